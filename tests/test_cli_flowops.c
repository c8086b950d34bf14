/*
 * test_cli_flowops.c - `skylark flow dump`, `skylark flow explain`,
 * `skylark jobs` and `skylark cancel` against real daemons on loopback:
 * a flow node, a scheduler and two node monitors (2 slots each, long
 * caps 1). A test client plays a scheduler at flowd and hands it a long
 * job of 3 tasks: 2 run, 1 waits; then one of 25,000 that all wait. The
 * dump, 3 pages at least, is re-solved by `skylark
 * solve` and LEMON's dimacs-solver (skipped when absent) to the cost of
 * flowd's round, explain tells why a task waits and why one runs where it
 * does, jobs shows where the tasks run. A frontend's job of 2 long-running
 * commands is listed by `skylark jobs`, cancelled by `skylark cancel` with the
 * scheduler's id, and the frontend gets both tasks CANCELLED. Bad usage
 * exits 2. Every daemon is stopped at exit.
 */
#include "cli_run.h"
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dh_proc flowd, sched, nodes[2];
static char nokey[600]; /* --dir of no cluster: no key, no daemons */

static bool has(const char *s, const char *what)
{
    return strstr(s, what) != NULL;
}

/* `skylark ARGS... --flowd EP --dir NOKEY`, at most 20 s. */
/* tasks of the job that cannot be placed */
#define BIG_JOB 25000

#define SKY(...) cr_sky(20, NULL, __VA_ARGS__, "--dir", nokey, NULL)

static void start(void)
{
    const char *fx[] = {"--set", "flowd.settle_ms=0", "--set",
                        "flowd.round_ms=20", NULL};
    if (dh_start_flowd(&flowd, "flowd", fx) != 0)
        tap_bail_out("flowd did not start");
    const char *sx[] = {"--flowd", flowd.dp_endpoint, NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    const char *nx[] = {"--flowd", flowd.dp_endpoint, NULL};
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        if (dh_start_nodemon(&nodes[i], name, i + 1, 2, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
}

/* Runs the shell command line cmd (its output, a few lines, in R). */
static void sh(const char *cmd)
{
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL};
    cr_run(argv, 60, NULL);
}

/* `skylark solve FILE`'s cost (its flow lines, many, are dropped). */
static long long cost_of_solve(const char *path)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "'%s' solve '%s' | grep '^s '", cr_skylark(),
             path);
    sh(cmd);
    return R.r_status == 0 && strncmp(R.r_out, "s ", 2) == 0
               ? atoll(R.r_out + 2)
               : -1;
}

/* LEMON on the file, with 64-bit costs (-long): the escape arcs of placed
 * tasks cost 2^31. -2: no dimacs-solver; -1: no verdict. */
static long long lemon_cost(const char *path)
{
    const char *lemon = getenv("DIMACS_SOLVER");
    if (lemon == NULL || lemon[0] == '\0' || access(lemon, X_OK) != 0)
        return -2;
    char *argv[] = {(char *)lemon, (char *)"-long", (char *)path, NULL};
    cr_run(argv, 30, NULL);
    const char *s = strstr(R.r_out, "Min flow cost: ");
    if (s == NULL)
        s = strstr(R.r_err, "Min flow cost: ");
    return s != NULL ? atoll(s + strlen("Min flow cost: ")) : -1;
}

/* A long job of ntasks `sleep 30` tasks handed to flowd by a test client
 * that says it is a scheduler (HELLO first, with hello). It takes the real
 * scheduler's id (1): a node monitor rejects a RESERVE for a scheduler it
 * does not serve. The node monitors then report the tasks to that
 * scheduler, which knows no such job and ignores them. */
static void hand_over(dh_client *c, sk_peer_id peer, bool hello, uint64_t job,
                      uint32_t ntasks)
{
    sk_msg h = {.m_type = SK_MSG_HELLO};
    h.m_hello.he_role = SK_ROLE_SCHEDULER;
    h.m_hello.he_id = 1;
    h.m_hello.he_name = "fake";
    h.m_hello.he_incarnation = 1;
    h.m_hello.he_framework = "";
    static const char cmd[] = "sleep 30";
    sk_task_spec *ts = calloc(ntasks, sizeof *ts);
    if (ts == NULL)
        tap_bail_out("out of memory");
    for (uint32_t i = 0; i < ntasks; i++)
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)cmd, sizeof cmd};
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job.sj_job = job;
    m.m_submit_job.sj_user = "ops";
    m.m_submit_job.sj_framework = "";
    m.m_submit_job.sj_long = true;
    m.m_submit_job.sj_tasks = ts;
    m.m_submit_job.sj_ntasks = ntasks;
    if ((hello && dh_client_send(c, peer, &h) != 0) ||
        dh_client_send(c, peer, &m) != 0)
        tap_bail_out("cannot hand a job over to flowd");
    free(ts);
}

static void test_flow(void)
{
    dh_client *tool = dh_client_new("tool", "t");
    sk_peer_id fp = dh_client_connect(tool, flowd.dp_endpoint, 5);
    if (fp == 0)
        tap_bail_out("cannot reach flowd");
    tap_ok(dh_wait_status(tool, fp, "nodes", 2, 10, NULL) &&
               dh_wait_status(tool, fp, "graph_nodes", 5, 10, NULL),
           "flowd has both node monitors in its network");
    hand_over(tool, fp, true, 5, 3);
    tap_ok(dh_wait_status(tool, fp, "long_running", 2, 10, NULL) &&
               dh_wait_status(tool, fp, "long_waiting", 1, 10, NULL),
           "flowd runs 2 of the 3 long tasks handed over (caps 1 and 1), "
           "1 waits");
    /* a job too many to place, for a dump of several pages */
    hand_over(tool, fp, false, 6, BIG_JOB);
    tap_ok(dh_wait_status(tool, fp, "long_waiting", 1 + BIG_JOB, 10, NULL),
           "a second job of %d tasks waits whole", BIG_JOB);

    char out[700];
    snprintf(out, sizeof out, "%s/net.dimacs", dh_dir());
    SKY("flow", "dump", "--flowd", flowd.dp_endpoint, "--out", out);
    const char *w = strstr(R.r_err, "wrote ");
    long long bytes = w != NULL ? atoll(w + 6) : -1;
    tap_ok(R.r_status == 0 && bytes > 2 * 3072 * 255,
           "flow dump --out: %lld bytes, 3 pages at least, over the wire",
           bytes);
    FILE *f = fopen(out, "r");
    static char text[4 << 20];
    size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f != NULL)
        fclose(f);
    tap_ok(has(text, "c name ") && has(text, " node n1\n") &&
               has(text, " node n2\n") && has(text, " sink\n") &&
               has(text, " task 1/5/2\n") && has(text, " unsched 1/5\n") &&
               has(text, "\np min "),
           "the dump names the sink, cluster, rack, nodes and tasks");
    long long mine = cost_of_solve(out);
    tap_ok(mine > 0, "skylark solve reads the dump: cost %lld", mine);
    const char *c = strstr(text, "c cost ");
    if (c != NULL && c[7] >= '0' && c[7] <= '9')
        tap_is_int(mine, atoll(c + 7), "... the cost of flowd's round");
    else
        tap_skip(1, "the network changed since its round (cost unknown)");
    long long lemon = lemon_cost(out);
    if (lemon == -2)
        tap_skip(1, "no dimacs-solver ($DIMACS_SOLVER)");
    else
        tap_is_int(lemon, mine, "LEMON's dimacs-solver: the same cost");

    char cmd[4200];
    snprintf(cmd, sizeof cmd,
             "'%s' flow dump --flowd '%s' --dir '%s' | cmp - '%s' && echo same",
             cr_skylark(), flowd.dp_endpoint, nokey, out);
    sh(cmd);
    tap_ok(R.r_status == 0 && has(R.r_out, "same"),
           "flow dump without --out writes the same to stdout");
    int waiting = -1;
    char task[32];
    for (int t = 0; t < 3 && waiting < 0; t++) {
        snprintf(task, sizeof task, "1/5/%d", t);
        SKY("flow", "explain", "--flowd", flowd.dp_endpoint, task);
        if (R.r_status == 0 && has(R.r_out, "state: waiting"))
            waiting = t;
    }
    tap_ok(waiting >= 0 && has(R.r_out, "why it waits") &&
               has(R.r_out, "is full") && has(R.r_out, "-> unsched 1/5"),
           "flow explain SCHED/JOB/TASK: the waiting task, and why");
    char t2[16];
    snprintf(t2, sizeof t2, "%d", (waiting + 1) % 3);
    SKY("flow", "explain", "--flowd", flowd.dp_endpoint, "5", t2);
    tap_ok(R.r_status == 0 && has(R.r_out, "state: running on node") &&
               has(R.r_out, "why it is there"),
           "flow explain JOB TASK: a running task, and why it is there");
    SKY("flow", "explain", "--flowd", flowd.dp_endpoint, "5", "7");
    tap_ok(R.r_status == 1 && has(R.r_err, "has 3 tasks"),
           "a task the job lacks: exit 1, and why");
    SKY("flow", "explain", "--flowd", flowd.dp_endpoint, "9/5/2");
    tap_ok(R.r_status == 1 && has(R.r_err, "flowd holds no job 9/5"),
           "flow explain of a job flowd does not hold: exit 1, and why");
    SKY("flow", "explain", "--flowd", flowd.dp_endpoint, "five", "1");
    tap_is_int(R.r_status, 2, "a job that is no number: exit 2");
    SKY("flow", "constraints", "--flowd", flowd.dp_endpoint);
    tap_ok(R.r_status == 0 && has(R.r_out, "\npairs_checked 0\n") &&
               has(R.r_out, "\njobs 0\n") &&
               has(R.r_out,
                   "sched job user constraints hard soft weight broken\n"),
           "flow constraints: the counters and the header of the per-job "
           "table (no job has constraints)");
    SKY("flow", "constraints", "--flowd", flowd.dp_endpoint, "5");
    tap_is_int(R.r_status, 2, "flow constraints takes no argument: exit 2");
    SKY("flow", "explode", "--flowd", flowd.dp_endpoint);
    tap_is_int(R.r_status, 2, "flow without dump or explain: exit 2");
    SKY("flow", "dump", "--flowd", sched.dp_endpoint, "--timeout", "2");
    tap_ok(R.r_status == 1 && has(R.r_err, "is it a flow node?"),
           "flow dump of a scheduler: exit 1, and why");

    SKY("jobs", "--flowd", flowd.dp_endpoint);
    tap_ok(R.r_status == 0 && has(R.r_out, "2 jobs handed over") &&
               has(R.r_out, " ops ") && has(R.r_out, " long ") &&
               has(R.r_out, "n1:1") && has(R.r_out, "n2:1"),
           "jobs --flowd: the hand-overs, long, job 5's tasks on n1 and n2");
    SKY("jobs", "--json", "--flowd", flowd.dp_endpoint);
    tap_ok(R.r_status == 0 && has(R.r_out, "\"schedulers\": []") &&
               has(R.r_out, "\"kind\": \"long\"") &&
               has(R.r_out, "\"running\": \"2\""),
           "jobs --json: the same as JSON");
    dh_client_free(tool); /* its job is cancelled at flowd, tasks killed */
}

static void test_cancel(void)
{
    dh_client *fe = dh_client_new("frontend", "fe");
    sk_peer_id sp = dh_client_connect(fe, sched.dp_endpoint, 5);
    if (sp == 0 || dh_client_hello(fe, sp, SK_ROLE_FRONTEND) != 0)
        tap_bail_out("cannot reach the scheduler");
    tap_ok(dh_wait_status(fe, sp, "nodes_live", 2, 10, NULL),
           "the scheduler sees both node monitors");
    dh_job *job = dh_client_submit(fe, sp, 77, 2, "sleep 30", "ana", 1);
    tap_ok(job != NULL && dh_wait_status(fe, sp, "tasks_launched", 2, 10, NULL),
           "a frontend's job of 2 sleeping tasks runs");
    SKY("jobs", "--scheduler", sched.dp_endpoint);
    tap_ok(R.r_status == 0 && has(R.r_out, "1 jobs in flight") &&
               has(R.r_out, "ana"),
           "jobs --scheduler lists it");
    dh_client_run_for(fe, 0.05);
    SKY("cancel", "--scheduler", sched.dp_endpoint, "99");
    tap_ok(R.r_status == 1 && has(R.r_err, "no such job in flight"),
           "cancel of a job not in flight: exit 1, and why");
    dh_client_run_for(fe, 0.05);
    SKY("cancel", "--scheduler", sched.dp_endpoint, "1");
    tap_ok(R.r_status == 0 && has(R.r_out, "cancelled"),
           "cancel by the scheduler's id: exit 0");
    tap_ok(dh_job_wait_done(fe, job, 5) && job->jb_summary.jd_cancelled == 2,
           "the frontend gets both tasks cancelled and JOB_DONE");
    tap_ok(dh_wait_status(fe, sp, "jobs", 0, 5, NULL),
           "the scheduler holds the job no more");
    SKY("cancel", "--scheduler", sched.dp_endpoint);
    tap_is_int(R.r_status, 2, "cancel without a job: exit 2");
    dh_client_free(fe);
}

int main(void)
{
    if (cr_skylark() == NULL)
        tap_skip_all("no skylark tool under $top_builddir");
    tap_plan(28);
    tap_timeout(120);
    dh_init();
    snprintf(nokey, sizeof nokey, "%s/no-cluster", dh_dir());
    start();
    test_flow();
    test_cancel();
    return tap_exit_status();
}
