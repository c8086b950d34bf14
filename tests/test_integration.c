/*
 * test_integration.c - real skylark-sched and skylark-nodemon processes
 * on loopback: a 1,000-task job of command tasks runs each task exactly
 * once; after a job ends (proactive cancellation), after CANCEL_JOB and
 * after its frontend leaves, every node monitor's queue is empty and
 * nothing runs; tasks of a framework run on a registered executor, and a
 * cancel reaches it as KILL_TASK.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NNODES 4
#define SLOTS  4

static dh_proc sched;
static dh_proc nodes[NNODES];
static dh_client *fe;
static sk_peer_id sched_peer;
static sk_peer_id node_peer[NNODES];

/* Lines of the runs file per task index; -1 if it cannot be read. */
static int count_runs(const char *path, uint32_t ntasks, uint32_t *runs)
{
    memset(runs, 0, ntasks * sizeof *runs);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int bad = 0;
    unsigned task;
    while (fscanf(f, "%u", &task) == 1) {
        if (task < ntasks)
            runs[task]++;
        else
            bad++;
    }
    fclose(f);
    return bad;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void start_cluster(void)
{
    if (dh_start_sched(&sched, "s1", 1, NULL) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    for (int i = 0; i < NNODES; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        /* n1 alone carries the label the executor tests ask for. */
        const char *label[] = {"--label", "exec", NULL};
        if (dh_start_nodemon(&nodes[i], name, i + 1, SLOTS, s, 1,
                             i == 0 ? label : NULL) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    fe = dh_client_new("frontend", "fe1");
    sched_peer = dh_client_connect(fe, sched.dp_endpoint, 5);
    tap_ok(sched_peer != 0, "the test frontend connects to the scheduler");
    dh_client_hello(fe, sched_peer, SK_ROLE_FRONTEND);
    for (int i = 0; i < NNODES; i++)
        node_peer[i] = dh_client_connect(fe, nodes[i].dp_endpoint, 5);
    int64_t n;
    tap_ok(dh_wait_status(fe, sched_peer, "nodes", NNODES, 10, &n),
           "the scheduler sees %d node monitors (saw %lld)", NNODES,
           (long long)n);
}

/* Every node monitor's queue empty and nothing running. */
/* The counters that tell why a node monitor still holds something. */
static void diag_status(sk_peer_id peer)
{
    static const char *const keys[] = {
        "queued",        "slots_used", "slots_fetching", "jobs",
        "enqueued",      "get_tasks",  "replies_task",   "replies_empty",
        "stale_replies", "cancels",    "cancelled",      "cancel_unknown"};
    dh_status st;
    dh_client_status(fe, peer, false, &st, 1.0);
    for (size_t k = 0; st.st_ok && k < sizeof keys / sizeof *keys; k++)
        tap_diag("  %s %lld", keys[k], (long long)dh_status_int(&st, keys[k]));
    dh_status_free(&st);
}

/* Every node monitor's queue empties and nothing runs there within
 * timeout seconds. */
static void check_queues_empty(const char *when, double timeout)
{
    int ok = 1;
    for (int i = 0; i < NNODES; i++) {
        int64_t q, r;
        int qe = dh_wait_status(fe, node_peer[i], "queued", 0, timeout, &q);
        int re = dh_wait_status(fe, node_peer[i], "running", 0, timeout, &r);
        if (!qe || !re) {
            tap_diag("%s: queued %lld, running %lld", nodes[i].dp_name,
                     (long long)q, (long long)r);
            diag_status(node_peer[i]);
            ok = 0;
        }
    }
    tap_ok(ok, "%s: every node monitor's queue is empty, nothing runs", when);
}

static void test_thousand(void)
{
    char runs_path[512], cmd[640];
    snprintf(runs_path, sizeof runs_path, "%s/runs-1000", dh_dir());
    snprintf(cmd, sizeof cmd, "echo $SKYLARK_TASK_INDEX >> %s", runs_path);
    const uint32_t n = 1000;
    double t0 = now_s();
    dh_job *j = dh_client_submit(fe, sched_peer, 1, n, cmd, "alice", 0);
    tap_ok(j != NULL, "a 1,000-task job is submitted");
    if (j == NULL)
        return;
    tap_ok(dh_job_wait_done(fe, j, 60), "it ends with JOB_DONE");
    tap_diag("1,000 command tasks on %d x %d slots: %.2f s", NNODES, SLOTS,
             now_s() - t0);
    tap_is_int(j->jb_accepted, 1, "it was accepted once");
    uint32_t once = 0, ok = 0, started_once = 0;
    for (uint32_t t = 0; t < n; t++) {
        once += j->jb_finished[t] == 1;
        ok += j->jb_status[t] == SK_TASK_OK;
        started_once += j->jb_started[t] == 1;
    }
    tap_is_int(once, n, "every task has exactly one TASK_FINISHED");
    tap_is_int(started_once, n, "and exactly one TASK_STARTED");
    tap_is_int(ok, n, "every task succeeded");
    tap_ok(j->jb_done == 1 && j->jb_summary.jd_tasks == n &&
               j->jb_summary.jd_ok == n,
           "JOB_DONE counts %u tasks, %u ok", j->jb_summary.jd_tasks,
           j->jb_summary.jd_ok);
    uint32_t *runs = calloc(n, sizeof *runs);
    int bad = count_runs(runs_path, n, runs);
    uint32_t ran_once = 0;
    for (uint32_t t = 0; t < n; t++)
        ran_once += runs[t] == 1;
    tap_ok(bad == 0 && ran_once == n,
           "every command ran exactly once (%u of %u, %d stray lines)",
           ran_once, n, bad);
    free(runs);
    check_queues_empty("after the job (proactive cancellation)", 3);
}

static void test_cancel(void)
{
    const uint32_t n = 200;
    dh_job *j = dh_client_submit(fe, sched_peer, 2, n, "sleep 0.3", "bob", 0);
    tap_ok(j != NULL, "a job of 200 tasks of 0.3 s is submitted");
    if (j == NULL)
        return;
    dh_client_run_for(fe, 0.5);
    uint32_t started = 0;
    for (uint32_t t = 0; t < n; t++)
        started += j->jb_started[t] > 0;
    tap_ok(started > 0 && started < n, "%u tasks started before the cancel",
           started);
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_CANCEL_JOB;
    m.m_cancel_job.cj_job = 2;
    m.m_cancel_job.cj_reason = "test";
    dh_client_send(fe, sched_peer, &m);
    tap_ok(dh_job_wait_done(fe, j, 10), "CANCEL_JOB ends the job");
    uint32_t once = 0, cancelled = 0;
    for (uint32_t t = 0; t < n; t++) {
        once += j->jb_finished[t] == 1;
        cancelled += j->jb_status[t] == SK_TASK_CANCELLED;
    }
    tap_is_int(once, n, "every task has exactly one outcome");
    const sk_job_done *s = &j->jb_summary;
    tap_ok(s->jd_tasks == n &&
               s->jd_ok + s->jd_failed + s->jd_killed + s->jd_lost +
                       s->jd_cancelled ==
                   n &&
               s->jd_cancelled == cancelled && cancelled >= n - started,
           "JOB_DONE: %u ok, %u killed, %u cancelled", s->jd_ok, s->jd_killed,
           s->jd_cancelled);
    check_queues_empty("after CANCEL_JOB", 3);
}

static void test_frontend_leaves(void)
{
    dh_client *fe2 = dh_client_new("frontend", "fe2");
    sk_peer_id p = dh_client_connect(fe2, sched.dp_endpoint, 5);
    dh_client_hello(fe2, p, SK_ROLE_FRONTEND);
    dh_job *j = dh_client_submit(fe2, p, 1, 300, "sleep 0.3", "carol", 0);
    dh_client_run_for(fe2, 0.4);
    tap_ok(j != NULL && j->jb_accepted == 1,
           "a second frontend's job of 300 tasks is accepted");
    dh_client_free(fe2); /* goodbye: the scheduler drops its jobs */
    /* The goodbye is best effort: nanomsg may drop it when the socket
     * closes at once (seen under load). The scheduler then learns of the
     * departure from the missed heartbeats, 3 x 1 s here. */
    check_queues_empty("after its frontend left", 8);
    dh_status st;
    dh_client_status(fe, sched_peer, false, &st, 2);
    tap_ok(dh_status_int(&st, "jobs") == 0 &&
               dh_status_int(&st, "jobs_abandoned") == 1,
           "the scheduler holds no job and counts one abandoned");
    dh_status_free(&st);
}

/* A job of framework "fw" for the nodes labelled "exec" (n1). */
static dh_job *submit_fw(uint64_t id, uint32_t n)
{
    dh_job *j = dh_client_track(fe, id, n);
    sk_task_spec *t = calloc(n, sizeof *t);
    const char *labels[] = {"exec"};
    for (uint32_t i = 0; i < n; i++) {
        t[i].ts_spec.b_data = (const uint8_t *)"opaque";
        t[i].ts_spec.b_len = 6;
    }
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job.sj_job = id;
    m.m_submit_job.sj_user = "dave";
    m.m_submit_job.sj_labels = labels;
    m.m_submit_job.sj_nlabels = 1;
    m.m_submit_job.sj_framework = "fw";
    m.m_submit_job.sj_tasks = t;
    m.m_submit_job.sj_ntasks = n;
    int rc = dh_client_send(fe, sched_peer, &m);
    free(t);
    return rc == 0 ? j : NULL;
}

static int launches_reach(void *arg)
{
    return dh_client_launches(fe) >= *(uint32_t *)arg;
}

/* The test client registers with n1 as the executor of framework "fw". */
static void test_executor(void)
{
    dh_client_executor(fe, "fw", true);
    dh_client_hello(fe, node_peer[0], SK_ROLE_EXECUTOR);
    tap_ok(dh_wait_status(fe, node_peer[0], "peers", 2, 5, NULL),
           "an executor registers with n1 (HELLO, framework fw)");
    const uint32_t n = 40;
    dh_job *j = submit_fw(3, n);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 20),
           "a job of 40 tasks of framework fw ends");
    uint32_t ran = 0;
    for (uint32_t t = 0; j != NULL && t < n; t++)
        ran += j->jb_finished[t] == 1 && j->jb_status[t] == SK_TASK_OK &&
               j->jb_output[t] != NULL && strcmp(j->jb_output[t], "ran") == 0;
    tap_ok(ran == n && dh_client_launches(fe) == n,
           "each task was launched once on the executor and its result "
           "reached the frontend (%u of %u, %u launches)",
           ran, n, dh_client_launches(fe));

    /* Tasks that run until killed: a cancel reaches the executor. */
    dh_client_executor(fe, "fw", false);
    j = submit_fw(4, 12);
    uint32_t want = n + SLOTS;
    tap_ok(j != NULL && dh_client_run(fe, launches_reach, &want, 10),
           "n1's %d slots run tasks of a second job", SLOTS);
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_CANCEL_JOB;
    m.m_cancel_job.cj_job = 4;
    m.m_cancel_job.cj_reason = "test";
    dh_client_send(fe, sched_peer, &m);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 10) &&
               j->jb_summary.jd_cancelled == 12,
           "CANCEL_JOB ends it, every task cancelled");
    dh_client_run_for(fe, 0.2);
    tap_is_int(dh_client_kills(fe), SLOTS,
               "the executor got a KILL_TASK for each running task");
    check_queues_empty("after cancelling executor tasks", 3);
}

int main(void)
{
    tap_plan(27);
    tap_timeout(120);
    dh_init();
    start_cluster();
    test_thousand();
    test_cancel();
    test_frontend_leaves();
    test_executor();
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 20);
        for (int i = 0; i < NNODES; i++)
            dh_log_tail(&nodes[i], 10);
    }
    dh_client_free(fe);
    return tap_exit_status();
}
