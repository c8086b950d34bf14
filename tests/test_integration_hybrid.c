/*
 * test_integration_hybrid.c - the hybrid end to end with real daemons on
 * loopback: a flow node, a scheduler and node monitors, and a frontend
 * speaking the protocol. Long jobs placed by flowd and run; short jobs
 * kept off nodes saturated by long tasks; the fallback of a task
 * sampling cannot place; placement flow; cancelling a long job kills
 * its tasks; a node monitor killed with SIGKILL has its long task
 * re-planned; flowd killed with SIGKILL while 200 long tasks run and 100
 * wait, restarted on its endpoint: nothing run twice, nothing lost, the
 * waiting ones placed.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEARTBEAT_MS 200
#define NODE_TIMEOUT_MS                                                        \
    3000 /* a node starting 100 tasks under load is slow                       \
          */

static dh_proc flowd, sched, nodes[3];
static dh_client *fe;
static sk_peer_id sched_peer, flowd_peer;

/* submit sends job id of n copies of cmd, long or placed as asked,
 * every task preferring pref (NULL: none), the job needing label (NULL:
 * none), and tracks it. */
static dh_job *submit(uint64_t id, uint32_t n, const char *cmd, bool long_job,
                      uint8_t placement, const char *pref, const char *label)
{
    dh_job *j = dh_client_track(fe, id, n);
    sk_task_spec *ts = calloc(n, sizeof *ts);
    if (j == NULL || ts == NULL)
        tap_bail_out("out of memory");
    const char *prefs[1] = {pref};
    const char *labels[1] = {label};
    for (uint32_t i = 0; i < n; i++) {
        ts[i].ts_spec =
            (sk_bytes){(const uint8_t *)cmd, (uint32_t)strlen(cmd) + 1};
        ts[i].ts_preferred = pref != NULL ? prefs : NULL;
        ts[i].ts_npreferred = pref != NULL ? 1 : 0;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = id,
                                     .sj_user = "alice",
                                     .sj_framework = "",
                                     .sj_long = long_job,
                                     .sj_placement = placement,
                                     .sj_labels = label != NULL ? labels : NULL,
                                     .sj_nlabels = label != NULL ? 1 : 0,
                                     .sj_max_attempts = 3,
                                     .sj_tasks = ts,
                                     .sj_ntasks = n};
    if (dh_client_send(fe, sched_peer, &m) != 0)
        tap_bail_out("cannot send SUBMIT_JOB");
    free(ts);
    return j;
}

static uint32_t started(const dh_job *j)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < j->jb_ntasks; i++)
        n += j->jb_started[i] > 0;
    return n;
}

typedef struct want {
    const dh_job *w_job;
    uint32_t w_n;
} want;

static int all_started(void *arg)
{
    const want *w = arg;
    return started(w->w_job) >= w->w_n;
}

static int started_twice(void *arg)
{
    const dh_job *j = arg;
    return j->jb_started[0] >= 2;
}

static int64_t status_int(sk_peer_id peer, const char *key)
{
    dh_status st;
    dh_client_status(fe, peer, false, &st, 2.0);
    int64_t v = st.st_ok ? dh_status_int(&st, key) : -1;
    dh_status_free(&st);
    return v;
}

static void start_flowd(const char *listen, const char *settle)
{
    char timeout[64], hb[64];
    snprintf(timeout, sizeof timeout, "flowd.node_timeout_ms=%d",
             NODE_TIMEOUT_MS);
    snprintf(hb, sizeof hb, "flowd.heartbeat_ms=%d", HEARTBEAT_MS);
    const char *fx[] = {"--set", timeout, "--set", hb,
                        "--set", settle,  "--set", "flowd.long_share=0.5",
                        NULL};
    int rc = listen != NULL ? dh_start_flowd_at(&flowd, "flowd", listen, fx)
                            : dh_start_flowd(&flowd, "flowd", fx);
    if (rc != 0)
        tap_bail_out("flowd did not start");
}

static void start_cluster(void)
{
    start_flowd(NULL, "flowd.settle_ms=0");
    /* Saturated nodes are never probed (probe_saturated off): the short
     * job below must keep off the nodes with long tasks. */
    const char *sx[] = {"--flowd", flowd.dp_endpoint, "--set",
                        "sched.probe_saturated=no", NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    char hb[64];
    snprintf(hb, sizeof hb, "nodemon.heartbeat_ms=%d", HEARTBEAT_MS);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        /* n1 and n2 carry "svc" (n3's list ends before it): the long
         * jobs below need it. */
        const char *nx[] = {"--flowd",
                            flowd.dp_endpoint,
                            "--set",
                            hb,
                            "--set",
                            "nodemon.long_share=0.5",
                            i < 2 ? "--label" : NULL,
                            "svc",
                            NULL};
        if (dh_start_nodemon(&nodes[i], name, i + 1, 4, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    fe = dh_client_new("frontend", "fe1");
    sched_peer = dh_client_connect(fe, sched.dp_endpoint, 5);
    flowd_peer = dh_client_connect(fe, flowd.dp_endpoint, 5);
    if (sched_peer == 0 || flowd_peer == 0)
        tap_bail_out("cannot reach the scheduler and flowd");
    dh_client_hello(fe, sched_peer, SK_ROLE_FRONTEND);
    if (!dh_wait_status(fe, flowd_peer, "nodes", 3, 10, NULL) ||
        !dh_wait_status(fe, sched_peer, "flowd_connected", 1, 10, NULL))
        tap_bail_out("the cluster did not come together");
}

static dh_job *long_a;

static void test_long_and_short(void)
{
    /* 4 long tasks fill the long share (2 of 4 slots) of n1 and n2. */
    long_a = submit(1, 4, "sleep 60", true, SK_PLACE_SAMPLE, NULL, "svc");
    want w = {long_a, 4};
    int ran = dh_client_run(fe, all_started, &w, 15);
    tap_ok(ran && long_a->jb_accepted == 1,
           "a long job of 4 tasks is accepted and runs (%u started)",
           started(long_a));
    tap_ok(dh_wait_status(fe, flowd_peer, "long_running", 4, 5, NULL),
           "flowd counts 4 long tasks running");
    tap_ok(dh_wait_status(fe, sched_peer, "nodes_live", 1, 5, NULL),
           "the scheduler stops probing the 2 saturated nodes");

    dh_job *s =
        submit(2, 6, "echo $SKYLARK_NODE", false, SK_PLACE_SAMPLE, NULL, NULL);
    int done = dh_job_wait_done(fe, s, 15);
    uint32_t on_n3 = 0;
    for (uint32_t i = 0; i < s->jb_ntasks; i++)
        on_n3 += s->jb_status[i] == SK_TASK_OK && s->jb_output[i] != NULL &&
                 strncmp(s->jb_output[i], "n3", 2) == 0;
    tap_ok(done && on_n3 == 6,
           "a short job runs wholly on the node without long tasks (%u/6)",
           on_n3);
}

static void test_fallback(void)
{
    dh_job *f = submit(3, 1, "echo fell back", false, SK_PLACE_SAMPLE,
                       "no-such-node", NULL);
    tap_ok(dh_job_wait_done(fe, f, 15) && f->jb_status[0] == SK_TASK_OK,
           "a task whose preferred node is not live runs through flowd");
    tap_is_int(status_int(sched_peer, "flow_fallback_tasks"), 1,
               "the scheduler counts one fallback");
    dh_job *p = submit(4, 2, "true", false, SK_PLACE_FLOW, NULL, NULL);
    tap_ok(dh_job_wait_done(fe, p, 15) && p->jb_summary.jd_ok == 2,
           "placement flow: a short job placed by flowd runs");
}

static void test_cancel(void)
{
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job = (sk_cancel_job){.cj_job = 1, .cj_reason = "test"};
    dh_client_send(fe, sched_peer, &m);
    tap_ok(dh_job_wait_done(fe, long_a, 10) &&
               long_a->jb_summary.jd_cancelled == 4,
           "cancelling the long job ends its 4 tasks CANCELLED");
    tap_ok(dh_wait_status(fe, flowd_peer, "long_running", 0, 5, NULL),
           "flowd holds no long task any more");
    sk_peer_id p1 = dh_client_connect(fe, nodes[0].dp_endpoint, 2);
    sk_peer_id p2 = dh_client_connect(fe, nodes[1].dp_endpoint, 2);
    int64_t left = -1;
    for (int i = 0; i < 50 && left != 0; i++) {
        left = status_int(p1, "running") + status_int(p2, "running");
        dh_client_run_for(fe, 0.1);
    }
    tap_is_int(left, 0, "and the node monitors killed them");
}

static void test_node_killed(void)
{
    /* Short: the attempt on the killed node monitor lives on as an
     * orphan until it ends (issue 21's fencing is not here yet). */
    dh_job *b = submit(5, 1, "sleep 8", true, SK_PLACE_SAMPLE, "n2", "svc");
    want w = {b, 1};
    tap_ok(dh_client_run(fe, all_started, &w, 10),
           "a long task starts (preferring n2)");
    dh_kill(&nodes[1]);
    tap_ok(dh_client_run(fe, started_twice, b, 15) && b->jb_finished[0] == 0,
           "its node killed, flowd starts it again elsewhere, unreported");
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job = (sk_cancel_job){.cj_job = 5, .cj_reason = "test"};
    dh_client_send(fe, sched_peer, &m);
    tap_ok(dh_job_wait_done(fe, b, 10), "and is cancelled");
}

static dh_proc big[2];

/* Two node monitors of 100 slots, all of them open to long tasks. */
static void start_big_nodes(void)
{
    int64_t before = status_int(flowd_peer, "nodes");
    const dh_proc *s[] = {&sched};
    char hb[64];
    snprintf(hb, sizeof hb, "nodemon.heartbeat_ms=%d", HEARTBEAT_MS);
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "big%d", i + 1);
        const char *nx[] = {"--flowd", flowd.dp_endpoint,      "--set",   hb,
                            "--set",   "nodemon.long_share=1", "--label", "big",
                            "--label", "long_share=1",         NULL};
        if (dh_start_nodemon(&big[i], name, 10 + i, 100, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    if (!dh_wait_status(fe, flowd_peer, "nodes", before + 2, 10, NULL))
        tap_bail_out("the big node monitors did not register");
}

static void test_flowd_restart(void)
{
    start_big_nodes();
    /* 200 long slots: 200 tasks run, 100 wait. */
    dh_job *r = submit(6, 300, "sleep 6", true, SK_PLACE_SAMPLE, NULL, "big");
    want w = {r, 200};
    int ran = dh_client_run(fe, all_started, &w, 30);
    tap_ok(ran && started(r) == 200,
           "200 long tasks run, 100 wait (%u started)", started(r));
    char listen[sizeof flowd.dp_endpoint];
    snprintf(listen, sizeof listen, "%s", flowd.dp_endpoint);
    dh_kill(&flowd);
    /* The settle window must cover the scheduler's reconnection, which
     * took up to 0.9 s on a loaded machine: tasks no scheduler claims by
     * its end are killed. */
    start_flowd(listen, "flowd.settle_ms=3000");
    int done = dh_job_wait_done(fe, r, 60);
    uint32_t twice = 0;
    for (uint32_t i = 0; i < r->jb_ntasks; i++)
        twice += r->jb_started[i] > 1;
    tap_ok(done && r->jb_summary.jd_ok == 300 && twice == 0,
           "flowd killed and restarted: all 300 end OK, none started twice "
           "(ok %u, lost %u, killed %u, twice %u)",
           r->jb_summary.jd_ok, r->jb_summary.jd_lost, r->jb_summary.jd_killed,
           twice);
    tap_ok(status_int(sched_peer, "flow_resent") >= 1,
           "the scheduler sent its hand-over to the new flowd");
}

int main(void)
{
    tap_plan(16);
    dh_init();
    dh_set_heartbeat(1.0, 8);
    start_cluster();
    test_long_and_short();
    test_fallback();
    test_cancel();
    test_node_killed();
    test_flowd_restart();
    dh_client_free(fe);
    dh_kill(&flowd);
    dh_kill(&sched);
    for (int i = 0; i < 3; i++)
        dh_kill(&nodes[i]);
    for (int i = 0; i < 2; i++)
        dh_kill(&big[i]);
    tap_done();
    return tap_exit_status();
}
