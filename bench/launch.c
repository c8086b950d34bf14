/*
 * bench/launch.c - what a command task's launch costs the node monitor,
 * with a cgroup per task ([cmdexec] cgroup) or with the journal and its
 * keeper ([cmdexec] journal) against plain launches (the anchor), in the
 * same run: rounds of N `true` tasks, the two modes alternating round by
 * round so both see the same load.
 *
 * Usage: bench/launch [--rounds R] [--tasks N] [--against cgroup|journal]
 *                     [--cgroup DIR]
 * cgroup (the default): DIR is a cgroup v2 directory (default: the
 * cgroup2 mount, found in /proc/self/mounts); needs root. journal: a
 * journal in a new folder under /tmp, the keeper found as the node
 * monitor finds it (nm_journal_keeper), every task keyed (its record
 * lingers as a real one does). Prints, per mode, the time per launch
 * (nm_cmdexec_launch: the cgroup's mkdir and limits, or the record and
 * the keeper's exec and fork; clone, exec) and per task from launch to
 * its result (with the cgroup's kill and rmdir, or the record's end), as
 * the median over rounds of the round's mean, with the min and max.
 */
#include "nm_cmdexec.h"
#include "skylark.h"

#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 200

static int results;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* arg: where the executor's pointer is. */
static void on_ready(void *arg)
{
    sk_task_finished tf;
    while (nm_cmdexec_next(*(nm_cmdexec **)arg, &tf))
        if (tf.tf_status == SK_TASK_OK)
            results++;
        else
            results += 1000000; /* a failure shows in the count */
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("  %-28s median %7.1f us  [%.1f-%.1f]\n", what, v[n / 2], v[0],
           v[n - 1]);
}

/* One round of n tasks on x; adds the mean launch and end-to-end times. */
static int round_once(struct ev_loop *loop, nm_cmdexec *x, uint64_t job, int n,
                      double *launch, double *total)
{
    static const nm_origin origin = {1, 0, 1, 1, "bench"};
    static const char cmd[] = "true";
    results = 0;
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        sk_launch lt;
        memset(&lt, 0, sizeof lt);
        lt.lt_job = job;
        lt.lt_task = (uint32_t)i;
        lt.lt_user = "bench";
        lt.lt_framework = "";
        lt.lt_res.r_mem_mb = 256;
        lt.lt_res.r_cpu_milli = 1000;
        lt.lt_spec.b_data = (const uint8_t *)cmd;
        lt.lt_spec.b_len = sizeof cmd;
        nm_cmdexec_launch(x, &lt, &origin, 0);
    }
    double t1 = now_us();
    on_ready(&x);
    while (results < n)
        ev_run(loop, EVRUN_ONCE);
    double t2 = now_us();
    *launch = (t1 - t0) / n;
    *total = (t2 - t0) / n;
    return results == n ? 0 : -1;
}

static int find_mount(char *out, size_t len)
{
    FILE *f = fopen("/proc/self/mounts", "r");
    char dev[256], path[160], type[64];
    int found = 0;
    while (f != NULL && !found &&
           fscanf(f, "%255s %159s %63s %*[^\n]", dev, path, type) == 3)
        if (strcmp(type, "cgroup2") == 0) {
            snprintf(out, len, "%s/skylark-bench-%d", path, (int)getpid());
            found = mkdir(out, 0755) == 0;
        }
    if (f != NULL)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    int rounds = 21, tasks = 64, journal = 0;
    nm_cgroup_config gc;
    nm_cgroup_config_init(&gc);
    int made = 0;
    static const struct option opts[] = {
        {"rounds", 1, NULL, 'r'}, {"tasks", 1, NULL, 't'},
        {"cgroup", 1, NULL, 'c'}, {"against", 1, NULL, 'a'},
        {"help", 0, NULL, 'h'},   {NULL, 0, NULL, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == 'r')
            rounds = atoi(optarg);
        else if (o == 't')
            tasks = atoi(optarg);
        else if (o == 'c')
            snprintf(gc.cg_parent, sizeof gc.cg_parent, "%s", optarg);
        else if (o == 'a' && (strcmp(optarg, "cgroup") == 0 ||
                              strcmp(optarg, "journal") == 0))
            journal = strcmp(optarg, "journal") == 0;
        else {
            printf("usage: bench/launch [--rounds R] [--tasks N] "
                   "[--against cgroup|journal] [--cgroup DIR]\n");
            return o == 'h' ? 0 : 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || tasks < 1 || tasks > 1024) {
        fprintf(stderr, "launch: rounds 1..%d, tasks 1..1024\n", MAX_ROUNDS);
        return 2;
    }
    if (!journal && gc.cg_parent[0] == '\0' &&
        !(made = find_mount(gc.cg_parent, sizeof gc.cg_parent))) {
        fprintf(stderr, "launch: no cgroup2 mount to use (root needed)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    char err[512], line[768], jdir[64] = "/tmp/skylark-bench-XXXXXX";
    char keeper[4096] = "";
    nm_cgroup *cg = NULL;
    nm_journal *jn = NULL;
    if (journal) {
        if (mkdtemp(jdir) == NULL ||
            nm_journal_keeper("", keeper, sizeof keeper, err, sizeof err) !=
                0 ||
            nm_journal_open(jdir, NM_JOURNAL_LINGER_MS, 4 * (uint32_t)tasks,
                            &jn, err, sizeof err) != 0) {
            fprintf(stderr, "launch: journal: %s\n", err);
            return 1;
        }
        printf("journal in %s, keeper %s\n", jdir, keeper);
    } else {
        if (nm_cgroup_open(&gc, "bench", 64, &cg, err, sizeof err) != 0) {
            fprintf(stderr, "launch: %s\n", err);
            return 1;
        }
        nm_cgroup_describe(cg, line, sizeof line);
        printf("%s\n", line);
    }
    double launch[2][MAX_ROUNDS], total[2][MAX_ROUNDS];
    int rc = 0;
    /* One executor at a time: each reaps every child of the process. */
    for (int r = 0; r < rounds && rc == 0; r++)
        for (int k = 0; k < 2 && rc == 0; k++) {
            int m = r % 2 == 0 ? k : 1 - k;
            nm_cmdexec_config cfg;
            nm_cmdexec_config_init(&cfg);
            cfg.cx_max_children = (uint32_t)tasks;
            cfg.cx_cgroup = m == 1 ? cg : NULL;
            cfg.cx_journal = m == 1 ? jn : NULL;
            snprintf(cfg.cx_keeper, sizeof cfg.cx_keeper, "%s", keeper);
            nm_cmdexec *x;
            if (nm_cmdexec_create(loop, &cfg, on_ready, &x, &x) != 0) {
                fprintf(stderr, "launch: cannot create the executor\n");
                return 1;
            }
            rc = round_once(loop, x, (uint64_t)r + 1, tasks, &launch[m][r],
                            &total[m][r]);
            nm_cmdexec_destroy(x);
        }
    if (rc != 0) {
        fprintf(stderr, "launch: a task failed\n");
    } else {
        static const char *const name[][2] = {
            {"without cgroup (anchor)", "with a cgroup per task"},
            {"without journal (anchor)", "with the journal and keeper"}};
        printf("%d rounds of %d tasks 'true', modes alternating\n", rounds,
               tasks);
        double ratio[MAX_ROUNDS];
        for (int m = 0; m < 2; m++) {
            printf("%s:\n", name[journal][m]);
            report("launch (and its setup)", launch[m], rounds);
            report("launch to result", total[m], rounds);
        }
        for (int r = 0; r < rounds; r++)
            ratio[r] = total[1][r] / total[0][r];
        qsort(ratio, (size_t)rounds, sizeof *ratio, cmp);
        printf("launch to result, with / without, per round: median %.2fx "
               "[%.2f-%.2f]\n",
               ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
    }
    nm_cgroup_close(cg);
    if (made)
        rmdir(gc.cg_parent);
    if (jn != NULL) {
        nm_journal_close(jn);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", jdir);
        if (system(cmd) != 0)
            fprintf(stderr, "launch: cannot remove %s\n", jdir);
    }
    ev_loop_destroy(loop);
    return rc == 0 ? 0 : 1;
}
