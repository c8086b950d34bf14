/*
 * medea_round.c - what one constrained application costs the flow node's
 * round, on the real core (fd_core, driven as the daemon drives it, no
 * sockets): N nodes of 8 slots in racks of 40, an HBase-like application
 * of T tasks (3 tagged zk under `zk=3,NOTIN,NODE,zk`, the rest tagged hb
 * under `hb,IN,RACK,zk:hb,CARDINALITY,NODE,hb,0,2`) arrives, and one
 * round places it. Timed apart: fd_round_begin (the network, loop
 * thread), the solve (the solver's threads in flowd) and fd_round_end
 * (loop thread: acting on the flow and the constraint round). The anchor,
 * in the same run: the same application without tags or constraints.
 *
 * Usage: bench/medea_round [--tasks T] [--nodes N[,N...]] [--seeds K]
 *        [--hold W [--changes]]
 * --hold W: instead, what an application held by the bounded wait
 * (cx_wait_ms W) costs flowd's loop on a quiet cluster, per second of
 * wait and 1 s (hold_run below); the anchor, the same with cx_wait_ms 0.
 * --changes: and a plain one-task job comes each second (a change that
 * frees no place for the held tasks).
 * Prints a row per (N, constrained or not): medians [min-max] over K runs
 * of each time in ms of this thread's CPU, the tasks RESERVEd (in the
 * first round and the ones after it while they place more, heartbeats
 * between them), the rounds that placed, and the constraint pairs broken.
 * Exit 0 done, 2 bad usage.
 */
#include "fd_constraint.h"
#include "fd_core.h"
#include "fd_testutil.h"
#include "sk_constraint.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS    FDT_MS
#define T0    (1000000 * MS)
#define SCHED 100000u
#define MAXN  16

/* CPU time of this thread: the machine is shared, wall time is not
 * what the round costs. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void spread(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    printf(" | %9.2f [%.2f-%.2f]", v[n / 2] * 1e3, v[0] * 1e3, v[n - 1] * 1e3);
}

/* Job `job`: ntasks, the first nzk tagged zk and the rest hb under
 * text, or untagged and unconstrained. */
static void submit_app(fd_core *c, sk_time now, uint64_t job, uint32_t ntasks,
                       bool tagged, const char *text, uint32_t nzk)
{
    static const char *zk[1] = {"zk"}, *hb[1] = {"hb"};
    static sk_cspec spec;
    char err[160];
    if (sk_constraint_parse(text, &spec, err, sizeof err) != 0) {
        fprintf(stderr, "medea_round: %s\n", err);
        exit(1);
    }
    sk_task_spec *ts = calloc(ntasks, sizeof *ts);
    if (ts == NULL)
        exit(1);
    for (uint32_t i = 0; i < ntasks; i++) {
        ts[i].ts_spec.b_data = (const uint8_t *)"true";
        ts[i].ts_spec.b_len = 5;
        if (tagged) {
            ts[i].ts_tags = i < nzk ? zk : hb;
            ts[i].ts_ntags = 1;
        }
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job =
        (sk_submit_job){.sj_job = job,
                        .sj_user = "alice",
                        .sj_long = true,
                        .sj_framework = "",
                        .sj_tasks = ts,
                        .sj_ntasks = ntasks,
                        .sj_constraints = tagged ? spec.cs_items : NULL,
                        .sj_nconstraints = tagged ? spec.cs_n : 0};
    fd_core_on_msg(c, now, SCHED, &m);
    free(ts);
}

/* A core with cfg, nodes of 8 slots in racks of 40 and a scheduler,
 * settled, at *now. */
static fd_core *cluster(const fd_config *cfg, uint32_t nodes, sk_time *now)
{
    fd_core *c = fdt_core(cfg, T0);
    for (uint32_t i = 0; i < nodes; i++) {
        char name[16], rack[16];
        snprintf(name, sizeof name, "n%u", i);
        snprintf(rack, sizeof rack, "r%u", i / 40);
        fdt_node(c, T0, i + 1, name, 8, rack, 1.0);
    }
    fdt_sched(c, T0, SCHED, 7);
    *now = T0 + 1500 * MS;
    for (uint32_t i = 0; i < nodes; i++)
        fdt_heartbeat(c, *now - 100 * MS, i + 1, 1, 8, 0, 0, 0, NULL, 0);
    fdt_drain(c);
    while (fdt_round(c, *now, NULL) == 0) /* settle: nothing to place */
        *now += 10 * MS;
    fdt_drain(c);
    return c;
}

/* --hold W: an application of ntasks hb tasks under a soft IN RACK
 * all/zk with no zk anywhere (every place breaks it: all held for the
 * wait, cx_wait_ms wait_ms) on a quiet cluster, driven as flowd's loop
 * does for span of virtual time from its arrival: the clock jumps to the
 * core's next deadline or the next second's heartbeats (every node,
 * nothing changed), timers fire, rounds run when due. With changes, a
 * plain job of one task (no tags) also comes each second: a change that
 * gives the held tasks no place. t[0]: this thread's CPU outside the
 * solves (flowd's loop thread), t[1]: in the solves (flowd's solver
 * threads); t[2]: rounds, t[3]: constraint rounds, t[4]: tasks RESERVEd
 * (the plain ones included). */
static void hold_run(uint32_t nodes, uint32_t ntasks, int64_t wait_ms,
                     bool changes, sk_time span, double *t)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_RELAX;
    cfg.fdc_cx_wait_ms = wait_ms;
    cfg.fdc_reserve_timeout_ms = 60000; /* RESERVEs stay unanswered */
    sk_time now;
    fd_core *c = cluster(&cfg, nodes, &now);
    const fd_stats *fs = fd_core_stats(c);
    uint64_t r0 = fs->fs_rounds, x0 = fs->fs_cx_rounds;
    double a = now_s(), solve = 0;
    submit_app(c, now, 1, ntasks, true, "hb,IN,RACK,all/zk,SOFT=1", 0);
    fdt_drain(c);
    sk_time end = now + span, hb = now + 1000 * MS;
    uint64_t seq = 2;
    t[4] = 0;
    for (;;) {
        sk_time d = fd_core_next_deadline(c);
        d = d < hb ? d : hb;
        if (d > end)
            break;
        now = d > now ? d : now;
        if (now >= hb) {
            for (uint32_t i = 0; i < nodes; i++)
                fdt_heartbeat(c, now, i + 1, seq, 8, 0, 0, 0, NULL, 0);
            if (changes)
                submit_app(c, now, 1 + seq, 1, false, "zk,IN,NODE,zk", 0);
            seq++;
            hb += 1000 * MS;
            fdt_drain(c);
        }
        fd_core_on_timer(c, now);
        fdt_drain(c);
        fd_round *r;
        if (fd_round_begin(c, now, &r) == 0) {
            fc_solve_stats st;
            double b = now_s();
            int src = fdt_solve(r, &st);
            solve += now_s() - b;
            fd_round_end(c, now, r, src, &st);
        }
        t[4] += (double)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX);
        fdt_drain(c);
    }
    t[0] = now_s() - a - solve;
    t[1] = solve;
    t[2] = (double)(fs->fs_rounds - r0);
    t[3] = (double)(fs->fs_cx_rounds - x0);
    fd_core_free(c);
}

/* The --hold table: per N, cx_wait_ms wait (held) and 0 (the anchor:
 * placed at once, breaking), over a span of the wait and 1 s: CPU per
 * second of the span. */
static void hold_table(const uint32_t *nodes, uint32_t nn, uint32_t ntasks,
                       int seeds, int64_t wait, bool changes)
{
    sk_time span = (sk_time)(wait + 1000) * MS;
    double secs = (double)(wait + 1000) / 1000;
    printf("nodes | tasks | cx_wait_ms | rounds | constraint rounds | "
           "placed | loop ms CPU per s of span | solve ms per s\n");
    for (uint32_t k = 0; k < nn; k++)
        for (int w = 1; w >= 0; w--) {
            double lp[100], sv[100], t[5] = {0};
            for (int s = 0; s < seeds; s++) {
                hold_run(nodes[k], ntasks, w ? wait : 0, changes, span, t);
                lp[s] = t[0] / secs;
                sv[s] = t[1] / secs;
            }
            printf("%u | %u | %lld | %.0f | %.0f | %.0f", nodes[k], ntasks,
                   (long long)(w ? wait : 0), t[2], t[3], t[4]);
            spread(lp, seeds);
            spread(sv, seeds);
            printf("\n");
            fflush(stdout);
        }
}

/* One run: times of begin, solve, end into t[0..2]; *placed RESERVEs. */
static void run(uint32_t nodes, uint32_t ntasks, bool tagged, double *t,
                size_t *placed, uint64_t *broken)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_RELAX;
    sk_time now;
    fd_core *c = cluster(&cfg, nodes, &now);
    submit_app(c, now, 1, ntasks, tagged,
               "zk=3,NOTIN,NODE,zk:hb,IN,RACK,zk:hb,CARDINALITY,NODE,hb,0,2",
               3);
    fdt_drain(c);
    now += 1000 * MS;
    fd_round *r;
    double a = now_s();
    if (fd_round_begin(c, now, &r) != 0) {
        fprintf(stderr, "medea_round: no round\n");
        exit(1);
    }
    double b = now_s();
    fc_solve_stats st;
    int src = fdt_solve(r, &st);
    double d = now_s();
    fd_round_end(c, now, r, src, &st);
    double e = now_s();
    t[0] = b - a;
    t[1] = d - b;
    t[2] = e - d;
    *placed = fdt_count(c, SK_MSG_RESERVE, UINT32_MAX);
    /* the rounds that follow, while they place more: all of them */
    t[3] = t[0] + t[1] + t[2];
    t[4] = 1;
    for (size_t more = *placed; more > 0 && t[4] < 50; t[4]++) {
        now += 1000 * MS;
        for (uint32_t i = 0; i < nodes; i++)
            fdt_heartbeat(c, now - 100 * MS, i + 1, (uint64_t)t[4] + 1, 8, 0, 0,
                          0, NULL, 0);
        fdt_drain(c);
        double f = now_s();
        if (fdt_round(c, now, NULL) != 0)
            break;
        t[3] += now_s() - f;
        more = fdt_count(c, SK_MSG_RESERVE, UINT32_MAX);
        *placed += more;
    }
    const fd_stats *fs = fd_core_stats(c);
    *broken = fs->fs_cx_hard + fs->fs_cx_soft;
    fd_core_free(c);
}

int main(int argc, char **argv)
{
    uint32_t ntasks = 15, nn = 0, nodes[MAXN];
    int seeds = 3;
    int64_t hold = 0;     /* --hold: the wait in ms */
    bool changes = false; /* --changes: a plain job each second */
    static const struct option opts[] = {
        {"tasks", 1, NULL, 't'},   {"nodes", 1, NULL, 'n'},
        {"seeds", 1, NULL, 's'},   {"hold", 1, NULL, 'w'},
        {"changes", 0, NULL, 'c'}, {"help", 0, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        if (o == 't') {
            ntasks = (uint32_t)strtoul(optarg, &end, 10);
            if (*end || ntasks < 4 || ntasks > SK_MAX_TASKS)
                goto usage;
        } else if (o == 'w') {
            hold = strtoll(optarg, &end, 10);
            if (*end || hold < 1 || hold > 600000)
                goto usage;
        } else if (o == 'c') {
            changes = true;
        } else if (o == 's') {
            seeds = atoi(optarg);
            if (seeds < 1 || seeds > 100)
                goto usage;
        } else if (o == 'n') {
            for (char *p = optarg; *p && nn < MAXN; p = *end ? end + 1 : end) {
                unsigned long v = strtoul(p, &end, 10);
                if (end == p || (*end && *end != ',') || v < 10 ||
                    v > SK_MAX_NODES)
                    goto usage;
                nodes[nn++] = (uint32_t)v;
            }
        } else {
            goto usage;
        }
    }
    if (nn == 0) {
        static const uint32_t dflt[] = {100, 1000, 2000, 5000, 10000};
        nn = 5;
        memcpy(nodes, dflt, sizeof dflt);
    }
    if (hold) {
        hold_table(nodes, nn, ntasks, seeds, hold, changes);
        return 0;
    }
    printf("nodes | tasks | constrained | placed (all rounds) | more rounds | "
           "broken | begin ms | solve ms | end ms (loop thread) | all rounds "
           "ms (solve included)\n");
    for (uint32_t k = 0; k < nn; k++)
        for (int tagged = 1; tagged >= 0; tagged--) {
            double tb[100], tsv[100], te[100], ta[100], t[5] = {0};
            size_t placed = 0;
            uint64_t broken = 0;
            for (int s = 0; s < seeds; s++) {
                run(nodes[k], ntasks, tagged, t, &placed, &broken);
                tb[s] = t[0];
                tsv[s] = t[1];
                te[s] = t[2];
                ta[s] = t[3];
            }
            printf("%u | %u | %s | %zu | %.0f | %llu", nodes[k], ntasks,
                   tagged ? "yes" : "no (anchor)", placed, t[4] - 1,
                   (unsigned long long)broken);
            spread(tb, seeds);
            spread(tsv, seeds);
            spread(te, seeds);
            spread(ta, seeds);
            printf("\n");
            fflush(stdout);
        }
    return 0;
usage:
    fprintf(stderr, "usage: bench/medea_round [--tasks T] [--nodes N[,N...]] "
                    "[--seeds K] [--hold W [--changes]]\n");
    return 2;
}
