/*
 * test_cli_cluster.c - the demo's path with the real `skylark` tool and
 * daemons, scaled down: `skylark cluster up` (2 schedulers, 3 node
 * monitors over 2 racks) in a temporary directory, a second `up`
 * refused, `skylark status` of the cluster and of single daemons (flowd's
 * table with the racks), `skylark run` of jobs
 * that succeed and fail (exit codes 0, 1, 2), `skylark load`, and
 * `skylark cluster down` (one daemon frozen, to be killed), after which
 * no daemon pid is left; then scripts/demo on this build: bad arguments
 * refused before anything starts, Ctrl-C, a small workload. The test is
 * the daemons' subreaper; whatever happens, they are stopped at exit.
 */
#include "cli_run.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char skylark[4096], upper[4096];
static char dir[256];
static char out[65536];
static double sig_at; /* > 0: SIGINT to the program after that many s */

/* The test is a subreaper: the daemons, which outlive the `skylark
 * cluster up` that started them, become its children, and it reaps them
 * as an init would, at once, whatever the machine's init does. */
static void reap_orphans(pid_t keep)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid == 0 || si.si_pid == keep)
            return;
        waitpid(si.si_pid, NULL, 0);
    }
}

/* Whether any child of the test still runs (a daemon left behind). */
static int children_left(void)
{
    reap_orphans(0);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* Run prog with the arguments (NULL-terminated), its stdout and stderr
 * together in out, for at most timeout seconds. Returns its exit status,
 * or -1 if it had to be killed. */
static int run_prog(char *prog, double timeout, va_list ap)
{
    char *argv[32];
    int n = 0;
    argv[n++] = prog;
    char *a;
    while ((a = va_arg(ap, char *)) != NULL && n < 31)
        argv[n++] = a;
    argv[n] = NULL;
    int p[2];
    if (pipe(p) != 0)
        tap_bail_out("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        /* Its own process group with SIGINT at its default, so that a
         * SIGINT to the group is what Ctrl-C at a terminal would be. */
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        execv(prog, argv);
        _exit(127);
    }
    setpgid(pid, pid);
    close(p[1]);
    size_t len = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int killed = 0, signalled = 0;
    for (;;) {
        struct pollfd pf = {p[0], POLLIN, 0};
        clock_gettime(CLOCK_MONOTONIC, &t);
        double since = (double)(t.tv_sec - t0.tv_sec) +
                       (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
        double left = timeout - since, wait = left;
        if (sig_at > 0 && !signalled && since >= sig_at) {
            kill(-pid, SIGINT); /* as Ctrl-C would */
            signalled = 1;
        }
        if (sig_at > 0 && !signalled && sig_at - since < wait)
            wait = sig_at - since;
        if (wait > 0.02)
            wait = 0.02; /* to reap the orphans in good time */
        reap_orphans(pid);
        if (left <= 0) {
            /* A script gets the chance to stop what it started. */
            kill(pid, SIGTERM);
            for (int i = 0; i < 50 && waitpid(pid, NULL, WNOHANG) == 0; i++)
                usleep(100000);
            kill(pid, SIGKILL);
            killed = 1;
            break;
        }
        if (poll(&pf, 1, (int)(wait * 1000) + 1) <= 0)
            continue;
        ssize_t r = read(p[0], out + len, sizeof out - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    out[len] = '\0';
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    reap_orphans(0);
    if (killed || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* Run skylark, or the example framework, as run_prog. */
static int run(double timeout, ...)
{
    va_list ap;
    va_start(ap, timeout);
    int rc = run_prog(skylark, timeout, ap);
    va_end(ap);
    return rc;
}

static int run_demo(char *script, double timeout, ...)
{
    va_list ap;
    va_start(ap, timeout);
    int rc = run_prog(script, timeout, ap);
    va_end(ap);
    return rc;
}

static int run_upper(double timeout, ...)
{
    va_list ap;
    va_start(ap, timeout);
    int rc = run_prog(upper, timeout, ap);
    va_end(ap);
    return rc;
}

/* The second word of the line of out that starts with node and a space
 * (a row of a status table: its rack in flowd's), or "". */
static void rack_of(const char *node, char rack[16])
{
    char start[32];
    snprintf(start, sizeof start, "\n%s ", node);
    const char *l = strstr(out, start);
    rack[0] = '\0';
    if (l != NULL)
        sscanf(l + 1, "%*s %15s", rack);
}

static int has(const char *s)
{
    return strstr(out, s) != NULL;
}

/* The endpoint of the daemon called name, from the cluster file. */
static const char *endpoint_of(const char *name)
{
    return cr_endpoint_of(dir, name);
}

/* The pid of the daemon called name, from the cluster file; 0 if none. */
static pid_t pid_of(const char *name)
{
    return (pid_t)cr_pid_of(dir, name);
}

/* The pids of the cluster file, for the last-resort cleanup. */
static pid_t pids[64];
static int npids;

static void read_pids(void)
{
    char path[300], kind[16], nm[64], ep[128];
    long pid;
    snprintf(path, sizeof path, "%s/cluster", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[512];
    npids = 0;
    while (fgets(line, sizeof line, f) != NULL && npids < 64)
        if (sscanf(line, "%15s %63s %127s %ld", kind, nm, ep, &pid) == 4)
            pids[npids++] = (pid_t)pid;
    fclose(f);
}

/* The demo's cluster directories in dir (its TMPDIR). */
static int demo_dirs(void)
{
    char pattern[400];
    snprintf(pattern, sizeof pattern, "%s/skylark-demo.*", dir);
    glob_t g;
    int n = glob(pattern, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    if (n > 0)
        globfree(&g);
    return n;
}

static int any_alive(void)
{
    int alive = 0;
    for (int i = 0; i < npids; i++) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pids[i]);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        alive += rp != NULL && rp[1] != '\0' && rp[2] != 'Z';
    }
    return alive;
}

static void cleanup(void)
{
    if (dir[0] == '\0')
        return;
    run(15, "cluster", "down", "--dir", dir, "--grace", "2", NULL);
    for (int i = 0; i < npids; i++)
        kill(pids[i], SIGKILL);
    reap_orphans(0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    dir[0] = '\0';
}

int main(void)
{
    tap_timeout(150);
    tap_plan(30);
    const char *b = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", b ? b : ".");
    snprintf(upper, sizeof upper, "%s/client/examples/upper", b ? b : ".");
    if (access(skylark, X_OK) != 0)
        tap_skip_all("no %s", skylark);
    snprintf(dir, sizeof dir, "%s/skylark-cli-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp: %s", strerror(errno));
    atexit(cleanup);
    signal(SIGPIPE, SIG_IGN);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        tap_bail_out("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));

    int rc =
        run(30, "cluster", "up", "--dir", dir, "--schedulers", "2", "--nodes",
            "3", "--slots", "2", "--weight", "alice=3", "--racks", "2", NULL);
    read_pids();
    tap_ok(rc == 0 && has("cluster up in") && has("flowd flowd: tcp://") &&
               npids == 6,
           "cluster up starts flowd, 2 schedulers and 3 node monitors");
    if (rc != 0)
        tap_diag("%s", out);
    rc = run(10, "cluster", "up", "--dir", dir, NULL);
    tap_ok(rc == 1 && has("already runs"), "a second cluster up is refused");

    rc = run(10, "status", "--dir", dir, NULL);
    int ups = 0;
    for (const char *p = out; (p = strstr(p, "  up  ")) != NULL; p++)
        ups++;
    tap_ok(rc == 0 && ups == 6 && has("3 node monitors"),
           "status lists every daemon as up, each scheduler seeing 3 nodes");
    tap_ok(rc == 0 && has("\nflowd      flowd ") &&
               has("3 nodes, 2 schedulers, 0 long tasks running"),
           "status lists flowd up, with the 3 nodes and 2 schedulers");
    if (!has("3 nodes, 2 schedulers"))
        tap_diag("%s", out);
    rc = run(10, "status", "--dir", dir, endpoint_of("flowd"), NULL);
    tap_ok(rc == 0 && has("flowd flowd at") && has("nodes live") &&
               has("heartbeats") && has("last round: algorithm"),
           "status of flowd: nodes, heartbeats, the last round");
    char r0[16] = "", r1[16] = "", r2[16] = "";
    rack_of("n0", r0);
    rack_of("n1", r1);
    rack_of("n2", r2);
    tap_ok(strcmp(r0, "r0") == 0 && strcmp(r1, "r0") == 0 &&
               strcmp(r2, "r1") == 0,
           "--racks 2: flowd has n0 and n1 in rack r0, n2 in r1 (%s %s %s)", r0,
           r1, r2);
    rc = run(10, "status", "--dir", dir, endpoint_of("n1"), NULL);
    tap_ok(rc == 0 && has("nodemon n1") && has("slots") && has("user"),
           "status of a node monitor: its slots and users");
    rc = run(10, "status", "--dir", dir, endpoint_of("sched1"), NULL);
    tap_ok(rc == 0 && has("scheduler sched1") && has("node monitors"),
           "status of a scheduler");

    rc = run(30, "run", "--dir", dir, "-n", "12", "--user", "alice", "--",
             "test \"$SKYLARK_TASK_INDEX\" -lt 12", NULL);
    tap_ok(rc == 0 && has("12 tasks: 12 ok") && has("job response time") &&
               has("scheduling overhead"),
           "run: 12 tasks succeed, exit 0, with a summary");
    if (rc != 0)
        tap_diag("%s", out);
    rc = run(30, "run", "--dir", dir, "-n", "3", "--", "echo oops; exit 3",
             NULL);
    tap_ok(rc == 1 && has("3 failed") && has("(exit 3)") && has("oops"),
           "run: failing tasks give exit 1 and their output");
    rc = run(30, "run", "--dir", dir, "-n", "2", "--output", "--", "printf",
             "%s\\n", "a b", NULL);
    tap_ok(rc == 0 && has("--- task 1: ok") && has("a b\n"),
           "run: several words are quoted for the shell; --output shows it");
    rc = run(10, "run", "--dir", dir, NULL);
    tap_ok(rc == 2 && has("no command"), "run without a command: exit 2");
    rc = run(10, "run", "--dir", dir, "-n", "0", "--", "true", NULL);
    tap_ok(rc == 2, "run -n 0: exit 2");

    /* Two users, so two frontends, each starting at another scheduler:
     * both schedulers' jobs share the node monitors. */
    rc = run(40, "load", "--dir", dir, "--jobs", "8", "--tasks", "2-5",
             "--duration", "1-30", "--users", "alice,bob", NULL);
    tap_ok(rc == 0 && has("all ") && has("8 jobs of 2-5 tasks") &&
               has("2 schedulers") && has("weight share"),
           "load: a small workload from two users runs to the end with a "
           "summary");
    if (rc != 0)
        tap_diag("%s", out);

    /* A job over the scheduler's task limit is rejected, said once, and
     * its tasks are not counted as failed. */
    rc = run(30, "run", "--dir", dir, "-n", "20000", "--", "true", NULL);
    int said = 0;
    for (const char *p = out; (p = strstr(p, "job rejected:")) != NULL; p++)
        said++;
    tap_ok(rc == 1 && said == 1 && has("none run (job rejected)") &&
               has("limit of 10000 ([sched] max_tasks)") && !has("failed"),
           "run -n 20000: rejected once, naming max_tasks; none run, none "
           "failed; exit 1");
    if (said != 1 || !has("none run"))
        tap_diag("%s", out);

    /* Ctrl-C in the middle of a workload: the cancelled tasks are counted
     * as cancelled, not failed. */
    sig_at = 2;
    rc = run(40, "load", "--dir", dir, "--jobs", "12", "--tasks", "4-6",
             "--duration", "1500-2000", "--users", "alice,bob", NULL);
    sig_at = 0;
    unsigned lj = 0;
    unsigned long long lt = 0, lok = 0, lbad = 1, lcan = 0;
    const char *all = strstr(out, "\nall ");
    int got = all != NULL ? sscanf(all, "\nall %u %llu %llu %llu %llu", &lj,
                                   &lt, &lok, &lbad, &lcan)
                          : 0;
    tap_ok(rc != 0 && rc != -1 && got == 5 && has("cancelled |") && lbad == 0 &&
               lcan > 0 && lt == lok + lbad + lcan,
           "load interrupted: %llu tasks, %llu ok, %llu failed, %llu "
           "cancelled",
           lt, lok, lbad, lcan);
    if (got != 5 || lbad != 0 || lcan == 0)
        tap_diag("%s", out);

    /* After all that, including the cancels and the load's frontends
     * gone, each scheduler's totals add up. */
    int adds_up = 1;
    for (int k = 0; k < 2; k++) {
        rc = run(10, "status", "--verbose", "--dir", dir,
                 endpoint_of(k ? "sched1" : "sched0"), NULL);
        static const char *const keys[] = {
            "tasks_submitted", "tasks_ok",        "tasks_failed",
            "tasks_killed",    "tasks_lost",      "tasks_cancelled",
            "tasks_abandoned", "tasks_in_flight",
        };
        long long v[8];
        for (int i = 0; i < 8; i++) {
            char key[64];
            snprintf(key, sizeof key, "  %s ", keys[i]);
            const char *at = strstr(out, key);
            v[i] = at != NULL ? strtoll(at + strlen(key), NULL, 10) : -1;
            if (v[i] < 0)
                adds_up = 0;
        }
        if (rc != 0 || v[0] <= 0 ||
            v[0] != v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]) {
            adds_up = 0;
            tap_diag("%s", out);
        }
    }
    tap_ok(adds_up, "each scheduler's status: tasks submitted = ok + failed "
                    "+ killed + lost + cancelled + abandoned + in flight");

    /* The example framework: its executors on every node monitor, with
     * the cluster's key. */
    char key[4200];
    snprintf(key, sizeof key, "%s/cluster.key", dir);
    setenv("SKYLARK_KEY_FILE", key, 1);
    char ep[3][128];
    snprintf(ep[0], sizeof ep[0], "%s", endpoint_of("n0"));
    snprintf(ep[1], sizeof ep[1], "%s", endpoint_of("n1"));
    snprintf(ep[2], sizeof ep[2], "%s", endpoint_of("n2"));
    rc = run_upper(30, endpoint_of("sched0"), ep[0], ep[1], ep[2], "--", "sky",
                   "lark", "a", "b", "c", "d", NULL);
    tap_ok(rc == 0 && has("ok on n") && has(": SKY\n") && has(": LARK\n") &&
               has("6 of 6 tasks ok"),
           "the example framework's tasks run on its executors");
    if (rc != 0)
        tap_diag("%s", out);
    unsetenv("SKYLARK_KEY_FILE");

    /* A stopped node monitor cannot act on SIGTERM: `down` must kill it
     * after the grace period, say so, and return only when every daemon
     * is gone (not a zombie either: kill(pid, 0) says ESRCH). */
    pid_t frozen = pid_of("n2");
    tap_ok(frozen > 0 && kill(frozen, SIGSTOP) == 0,
           "node monitor n2 (pid %ld) stopped with SIGSTOP", (long)frozen);
    rc = run(20, "cluster", "down", "--dir", dir, "--grace", "1", NULL);
    tap_ok(rc == 0 && has("5 daemons stopped, 1 killed after 1 s\n"),
           "cluster down: 5 daemons stopped (flowd too), 1 killed after the "
           "grace period");
    if (rc != 0 || !has("5 daemons stopped, 1 killed after 1 s\n"))
        tap_diag("%s", out);
    int left = 0;
    for (int i = 0; i < npids; i++)
        if (kill(pids[i], 0) == 0 || errno != ESRCH) {
            tap_diag("pid %ld still exists", (long)pids[i]);
            left++;
        }
    tap_ok(npids == 6 && left == 0 && any_alive() == 0,
           "when cluster down returns, no daemon pid exists (ESRCH)");
    char path[300];
    snprintf(path, sizeof path, "%s/cluster", dir);
    struct stat st;
    tap_ok(stat(path, &st) != 0, "the cluster file is gone");
    rc = run(10, "status", "--dir", dir, NULL);
    tap_ok(rc == 1 && has("no local cluster"),
           "status without a cluster: exit 1");
    rc = run(10, "cluster", "down", "--dir", dir, NULL);
    tap_ok(rc == 0, "cluster down again is harmless");

    /* --no-flowd: schedulers and node monitors only, as before flowd. */
    rc = run(30, "cluster", "up", "--dir", dir, "--nodes", "1", "--slots", "1",
             "--no-flowd", NULL);
    read_pids();
    tap_ok(rc == 0 && npids == 2 && !has("flowd") && pid_of("flowd") == 0,
           "cluster up --no-flowd: a scheduler and a node monitor, no flowd");
    if (rc != 0)
        tap_diag("%s", out);
    rc = run(20, "cluster", "down", "--dir", dir, NULL);
    tap_ok(rc == 0 && has("2 daemons stopped\n") && any_alive() == 0,
           "... and down stops both");

    /* The demo itself, on this build, with a small workload. */
    const char *src = getenv("top_srcdir");
    char demo[4096], env[4200];
    snprintf(demo, sizeof demo, "%s/scripts/demo", src ? src : "..");
    snprintf(env, sizeof env, "%s", b ? b : ".");
    setenv("BUILD_DIR", env, 1);
    setenv("TMPDIR", dir, 1);
    /* Its arguments are checked before anything starts: no set-up, no
     * cluster (its directory would be in TMPDIR), exit 2. */
    rc = run_demo(demo, 20, "--jobs", "abc", NULL);
    tap_ok(rc == 2 &&
               has("--jobs takes a number of jobs (1..1000000), got "
                   "'abc'") &&
               !has("== ") && demo_dirs() == 0 && !children_left(),
           "scripts/demo --jobs abc: exit 2 before the set-up or a cluster");
    if (rc != 2)
        tap_diag("%s", out);
    rc = run_demo(demo, 20, "--no-setup", "--jobs", NULL);
    tap_ok(rc == 2 && has("--jobs takes a number") && !has("parameter") &&
               !has("unbound") && demo_dirs() == 0,
           "scripts/demo --jobs without a value: a clear message, exit 2");
    if (rc != 2)
        tap_diag("%s", out);

    /* Ctrl-C in the middle of the workload: the cluster is stopped and
     * the demo exits 130. */
    sig_at = 4;
    rc = run_demo(demo, 60, "--no-setup", "--jobs", "1000", NULL);
    sig_at = 0;
    tap_ok(rc == 130 && has("== skylark cluster down") && demo_dirs() == 0 &&
               !children_left(),
           "scripts/demo interrupted: cluster stopped, directory gone, no "
           "daemon left, exit 130");
    if (rc != 130)
        tap_diag("%s", out);

    rc = run_demo(demo, 60, "--no-setup", "--jobs", "9", NULL);
    tap_ok(rc == 0 && has("== skylark cluster up") && has("64 tasks: 64 ok") &&
               has("9 jobs of 10-50 tasks") && has("alice            4") &&
               has("11 daemons stopped"),
           "scripts/demo --no-setup --jobs 9: cluster, run, workload, down");
    if (rc != 0)
        tap_diag("%s", out);
    return tap_exit_status();
}
