/*
 * test_integration_flowd.c - skylark-flowd with real daemons on loopback:
 * one flow node, one scheduler and two node monitors started with
 * --flowd. The node monitors register with flowd (one with its --rack,
 * which flowd's table shows) and heartbeat; the scheduler receives
 * MEMBERSHIP; a node monitor killed with SIGKILL is
 * declared down by flowd's node_timeout_ms (before any transport bound
 * would notice), and the scheduler stops probing it on flowd's word
 * while its own session with the node still stands; flowd answers status
 * requests promptly while it runs rounds over its nodes; SIGTERM stops it
 * with status 0 at once. Also the command line: --help and --version
 * exit 0, a bad option or value exits 2.
 */
#include "daemon_harness.h"
#include "skylark.h"
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* flowd's node timeout and the node monitors' heartbeat period, ms */
#define NODE_TIMEOUT_MS 800
#define HEARTBEAT_MS    100

/* the busy flow node's load: jobs of tasks each */
#define SOLVE_JOBS  5
#define SOLVE_TASKS 10000

static dh_proc flowd, sched, nodes[2];
static dh_client *tool;
static sk_peer_id flowd_peer, sched_peer;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs flowd with args alone; returns its exit status, or -1. */
static int run_flowd(const char *log, const char *a1, const char *a2)
{
    char *argv[4] = {(char *)dh_flowd_path(), (char *)a1, (char *)a2, NULL};
    dh_proc p;
    memset(&p, 0, sizeof p);
    if (dh_spawn(&p, log, argv) != 0)
        return -1;
    if (!dh_wait_exit(&p, 10)) {
        dh_kill(&p);
        return -1;
    }
    return WIFEXITED(p.dp_status) ? WEXITSTATUS(p.dp_status) : -1;
}

static void test_cli(void)
{
    tap_is_int(run_flowd("help.log", "--help", NULL), 0, "--help exits 0");
    dh_proc p = {.dp_pid = 0};
    snprintf(p.dp_log, sizeof p.dp_log, "%s/help.log", dh_dir());
    tap_ok(dh_log_has(&p, "--algorithm") && dh_log_has(&p, "node_timeout_ms"),
           "--help lists the options and the [flowd] keys");
    tap_is_int(run_flowd("version.log", "--version", NULL), 0,
               "--version exits 0");
    tap_is_int(run_flowd("bad.log", "--no-such-option", NULL), 2,
               "an unknown option exits 2");
    tap_is_int(run_flowd("bad_alg.log", "--algorithm", "simplex"), 2,
               "an unknown algorithm exits 2");
    tap_is_int(run_flowd("bad_key.log", "--set", "flowd.round_ms=0"), 2,
               "a key out of range exits 2");
    const char *conf = dh_write_file("bad.conf", "[flowd]\nround_ms = 50\n"
                                                 "policy = fifo\n");
    tap_is_int(run_flowd("bad_conf.log", "--config", conf), 2,
               "an unknown policy in a file exits 2");
    snprintf(p.dp_log, sizeof p.dp_log, "%s/bad_conf.log", dh_dir());
    tap_ok(dh_log_has(&p, "bad.conf:3") && dh_log_has(&p, "policy") &&
               dh_log_has(&p, "'fifo'"),
           "... naming the file, line, key and value");
}

/* Asks peer for its status until key >= want; returns the last value. */
static int64_t wait_at_least(sk_peer_id peer, const char *key, int64_t want,
                             double timeout)
{
    double end = now_s() + timeout;
    int64_t v = -1;
    while (now_s() < end) {
        dh_status st;
        dh_client_status(tool, peer, false, &st, 1.0);
        v = st.st_ok ? dh_status_int(&st, key) : -1;
        dh_status_free(&st);
        if (v >= want)
            return v;
        dh_client_run_for(tool, 0.02);
    }
    return v;
}

static int64_t status_int(sk_peer_id peer, const char *key)
{
    dh_status st;
    dh_client_status(tool, peer, false, &st, 2.0);
    int64_t v = st.st_ok ? dh_status_int(&st, key) : -1;
    dh_status_free(&st);
    return v;
}

static void start_cluster(void)
{
    char timeout[64], hb[64], hbn[64];
    snprintf(timeout, sizeof timeout, "flowd.node_timeout_ms=%d",
             NODE_TIMEOUT_MS);
    snprintf(hb, sizeof hb, "flowd.heartbeat_ms=%d", HEARTBEAT_MS);
    snprintf(hbn, sizeof hbn, "nodemon.heartbeat_ms=%d", HEARTBEAT_MS);
    const char *fx[] = {
        "--set", timeout, "--set", hb, "--set", "flowd.settle_ms=0", NULL};
    if (dh_start_flowd(&flowd, "flowd", fx) != 0)
        tap_bail_out("flowd did not start");
    const char *sx[] = {"--flowd", flowd.dp_endpoint, NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    /* n1 in rack "rack-1", n2 in none */
    const char *nx[] = {"--flowd", flowd.dp_endpoint, "--set", hbn,
                        "--rack",  "rack-1",          NULL};
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        if (i == 1)
            nx[4] = NULL;
        if (dh_start_nodemon(&nodes[i], name, i + 1, 2, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    tool = dh_client_new("tool", "t1");
    flowd_peer = dh_client_connect(tool, flowd.dp_endpoint, 5);
    sched_peer = dh_client_connect(tool, sched.dp_endpoint, 5);
    if (flowd_peer == 0 || sched_peer == 0)
        tap_bail_out("cannot reach flowd and the scheduler");
}

/* The rack flowd's status table gives the node called name ("?" if the
 * table has no such row or column). */
static void node_rack(const char *name, char *out, size_t len)
{
    sk_status *st;
    snprintf(out, len, "?");
    if (sk_status_fetch(flowd.dp_endpoint, 2.0, 1, &st) != 0)
        return;
    unsigned rack = UINT32_MAX;
    for (unsigned c = 0; c < sk_status_ncolumns(st); c++)
        if (strcmp(sk_status_column(st, c), "rack") == 0)
            rack = c;
    for (unsigned r = 0; rack != UINT32_MAX && r < sk_status_nrows(st); r++)
        if (strcmp(sk_status_cell(st, r, 0), name) == 0)
            snprintf(out, len, "%s", sk_status_cell(st, r, rack));
    sk_status_free(st);
}

static void test_registration(void)
{
    tap_is_int(wait_at_least(flowd_peer, "nodes", 2, 10), 2,
               "flowd: both node monitors registered");
    tap_is_int(status_int(flowd_peer, "nodes_registered"), 2,
               "flowd: 2 registrations, no more");
    tap_is_int(wait_at_least(flowd_peer, "schedulers", 1, 10), 1,
               "flowd: the scheduler registered");
    int64_t hb0 = status_int(flowd_peer, "heartbeats");
    int64_t hb1 = wait_at_least(flowd_peer, "heartbeats", hb0 + 10, 5);
    tap_ok(hb0 >= 2 && hb1 >= hb0 + 10,
           "flowd: heartbeats keep arriving (%lld, then %lld)", (long long)hb0,
           (long long)hb1);
    tap_ok(dh_log_has(&nodes[0], "flowd flowd registered"),
           "n1 took flowd's HELLO (role FLOWD)");
    char r1[64] = "?", r2[64] = "?";
    node_rack("n1", r1, sizeof r1);
    node_rack("n2", r2, sizeof r2);
    tap_ok(strcmp(r1, "rack-1") == 0 && strcmp(r2, "") == 0,
           "flowd's table: n1 in the rack its --rack named ('%s'), n2 in "
           "none ('%s')",
           r1, r2);
    tap_ok(wait_at_least(sched_peer, "memberships", 1, 10) >= 1,
           "the scheduler received MEMBERSHIP from flowd");
    tap_is_int(wait_at_least(sched_peer, "nodes_live", 2, 10), 2,
               "the scheduler probes both nodes");
}

/* flowd keeps answering while it has nodes: rounds run on its worker. */
static void test_answers(void)
{
    tap_ok(wait_at_least(flowd_peer, "rounds", 1, 5) >= 1, "flowd ran a round");
    double worst = 0;
    int answered = 0;
    for (int i = 0; i < 20; i++) {
        double t0 = now_s();
        dh_status st;
        dh_client_status(tool, flowd_peer, true, &st, 2.0);
        double dt = now_s() - t0;
        worst = dt > worst ? dt : worst;
        answered += st.st_ok && st.st_nrows == 2;
        dh_status_free(&st);
        dh_client_run_for(tool, 0.05);
    }
    tap_is_int(answered, 20, "20 status requests answered, 2 nodes each");
    tap_ok(worst < 1.0, "the slowest answer took %.3f s", worst);
    int64_t solves = status_int(flowd_peer, "flowd.solves");
    int64_t rounds = status_int(flowd_peer, "rounds");
    tap_ok(solves >= 1 && rounds >= solves - 1 && rounds <= solves,
           "every round went through the solver thread (%lld solves, %lld "
           "rounds)",
           (long long)solves, (long long)rounds);
}

/* A node monitor paused (SIGSTOP) past node_timeout_ms is written off,
 * and registers again when it resumes: flowd resets its session at its
 * next HEARTBEAT rather than refuse its heartbeats until the transport
 * gives up on it. */
static void test_node_paused(void)
{
    kill(nodes[1].dp_pid, SIGSTOP);
    int64_t lost = wait_at_least(flowd_peer, "nodes_lost", 1, 6);
    tap_ok(lost == 1 && status_int(flowd_peer, "nodes") == 1,
           "a node monitor paused past node_timeout_ms is down at flowd");
    kill(nodes[1].dp_pid, SIGCONT);
    tap_is_int(wait_at_least(flowd_peer, "nodes_registered", 3, 6), 3,
               "resumed, it registers again");
    tap_is_int(wait_at_least(flowd_peer, "nodes", 2, 6), 2,
               "flowd has 2 nodes again");
    tap_is_int(status_int(flowd_peer, "flowd.node_resets"), 1,
               "by one session reset");
    tap_is_int(wait_at_least(sched_peer, "nodes_live", 2, 6), 2,
               "the scheduler probes it again");
}

static void test_node_killed(void)
{
    int64_t memberships = status_int(sched_peer, "memberships");
    int64_t downs = status_int(flowd_peer, "transport.downs");
    double t0 = now_s();
    dh_kill(&nodes[1]);
    /* The transports would notice after 1 s x 8 misses: flowd's own
     * node_timeout_ms is what declares the node down here. */
    int64_t lost = wait_at_least(flowd_peer, "nodes_lost", 2, 6);
    double dt = now_s() - t0;
    tap_is_int(lost, 2, "flowd declared the killed node down (%.2f s)", dt);
    tap_ok(dt >= NODE_TIMEOUT_MS / 1000.0 - 0.15 && dt < 6,
           "after about node_timeout_ms (%d ms): %.2f s", NODE_TIMEOUT_MS, dt);
    tap_is_int(status_int(flowd_peer, "nodes"), 1, "flowd: one node left");
    tap_is_int(status_int(flowd_peer, "transport.downs"), downs,
               "flowd's transport has not noticed yet");
    tap_is_int(wait_at_least(sched_peer, "memberships", memberships + 1, 5) >
                   memberships,
               1, "the scheduler heard of it");
    dh_status st;
    dh_client_status(tool, sched_peer, false, &st, 2.0);
    tap_ok(dh_status_int(&st, "nodes_live") == 1 &&
               dh_status_int(&st, "nodes") == 2,
           "the scheduler stops probing it while its session stands "
           "(nodes_live %lld of %lld)",
           (long long)dh_status_int(&st, "nodes_live"),
           (long long)dh_status_int(&st, "nodes"));
    dh_status_free(&st);
}

static void test_sigterm(void)
{
    double t0 = now_s();
    kill(flowd.dp_pid, SIGTERM);
    int exited = dh_wait_exit(&flowd, 5);
    double dt = now_s() - t0;
    tap_ok(exited && WIFEXITED(flowd.dp_status) &&
               WEXITSTATUS(flowd.dp_status) == 0,
           "SIGTERM: flowd exits 0");
    tap_ok(exited && dt < 2.0, "... in %.3f s", dt);
    tap_ok(dh_log_has(&flowd, "INFO: stopped"), "... after a clean stop");
    if (tap_failures() > 0) {
        dh_log_tail(&flowd, 20);
        dh_log_tail(&sched, 10);
        dh_log_tail(&nodes[0], 10);
    }
}

/* The value of key in peer's status, in buf ("" when none). */
static const char *status_str(sk_peer_id peer, const char *key, char *buf,
                              size_t len)
{
    dh_status st;
    dh_client_status(tool, peer, false, &st, 2.0);
    buf[0] = '\0';
    for (uint32_t i = 0; st.st_ok && i < st.st_nkv; i++)
        if (strcmp(st.st_key[i], key) == 0)
            snprintf(buf, len, "%s", st.st_value[i]);
    dh_status_free(&st);
    return buf;
}

static int all_acked(void *arg)
{
    dh_job **jobs = arg;
    for (int i = 0; i < SOLVE_JOBS; i++)
        if (!jobs[i]->jb_accepted && !jobs[i]->jb_rejected)
            return 0;
    return 1;
}

/* A second flow node, with successive shortest path, a node monitor of
 * 4,096 slots (and one more, over its max_nodes) and 50,000 long tasks
 * (submitted by the tool, registered as a scheduler; the node monitors reject
 * the RESERVEs of a scheduler they do not know, so rounds follow one another,
 * each of 0.1 to 1 s here): status requests are answered at once meanwhile, and
 * SIGTERM during a round cancels its solve and exits 0 without waiting. */
static void test_busy_solve(void)
{
    dh_proc f2;
    const char *fx[] = {
        "--algorithm",       "ssp", "--set", "flowd.settle_ms=0", "--set",
        "flowd.max_nodes=1", NULL};
    if (dh_start_flowd(&f2, "flowd2", fx) != 0)
        tap_bail_out("flowd2 did not start");
    /* Two wide nodes, of which flowd2 takes one (max_nodes 1): the other's
     * heartbeats are refused, and its session is not reset for them (it
     * would only be refused again). */
    dh_proc wide[2];
    const dh_proc *s[] = {&sched};
    const char *nx[] = {"--flowd", f2.dp_endpoint, NULL};
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i + 1);
        if (dh_start_nodemon(&wide[i], name, 10 + i, 4096, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    sk_peer_id peer = dh_client_connect(tool, f2.dp_endpoint, 5);
    if (wait_at_least(peer, "nodes", 1, 10) != 1)
        tap_bail_out("flowd2 does not see its node");
    dh_client_hello(tool, peer, SK_ROLE_SCHEDULER);
    static sk_task_spec tasks[SOLVE_TASKS];
    for (uint32_t i = 0; i < SOLVE_TASKS; i++) {
        tasks[i].ts_spec.b_data = (const uint8_t *)"x";
        tasks[i].ts_spec.b_len = 2;
    }
    dh_job *jobs[SOLVE_JOBS];
    for (int i = 0; i < SOLVE_JOBS; i++) {
        jobs[i] = dh_client_track(tool, 1000 + (uint64_t)i, SOLVE_TASKS);
        sk_msg m;
        memset(&m, 0, sizeof m);
        m.m_type = SK_MSG_SUBMIT_JOB;
        m.m_submit_job.sj_job = 1000 + (uint64_t)i;
        m.m_submit_job.sj_user = "u";
        m.m_submit_job.sj_long = true;
        m.m_submit_job.sj_framework = "";
        m.m_submit_job.sj_tasks = tasks;
        m.m_submit_job.sj_ntasks = SOLVE_TASKS;
        if (jobs[i] == NULL || dh_client_send(tool, peer, &m) != 0)
            tap_bail_out("cannot submit to flowd2");
    }
    int acked = dh_client_run(tool, all_acked, jobs, 20);
    int accepted = 0;
    for (int i = 0; i < SOLVE_JOBS; i++)
        accepted += jobs[i]->jb_accepted > 0;
    tap_ok(acked && accepted == SOLVE_JOBS,
           "flowd2 accepted %d long jobs of "
           "%d tasks",
           accepted, SOLVE_TASKS);
    char v[64];
    double end = now_s() + 20;
    while (strcmp(status_str(peer, "flowd.solving", v, sizeof v), "yes") != 0 &&
           now_s() < end)
        dh_client_run_for(tool, 0.02);
    tap_is_str(v, "yes", "a round is on the solver thread");
    double worst = 0;
    int answered = 0;
    for (int i = 0; i < 10; i++) {
        double t0 = now_s();
        status_str(peer, "flowd.solving", v, sizeof v);
        double dt = now_s() - t0;
        worst = dt > worst ? dt : worst;
        answered += strcmp(v, "yes") == 0;
        dh_client_run_for(tool, 0.02);
    }
    tap_ok(answered >= 1 && worst < 1.0,
           "status answered while rounds run: 10 requests, %d of them during "
           "a solve, the slowest in %.3f s",
           answered, worst);
    tap_ok(wait_at_least(peer, "refused_peer", 1, 5) >= 1 &&
               status_int(peer, "flowd.node_resets") == 0 &&
               status_int(peer, "nodes_registered") == 1,
           "a node over max_nodes: its heartbeats refused, its session not "
           "reset");
    /* SIGTERM while a round is on the worker: cancelled, not waited for
     * (a round here takes up to about a second). */
    end = now_s() + 10;
    while (strcmp(status_str(peer, "flowd.solving", v, sizeof v), "yes") != 0 &&
           now_s() < end)
        ;
    double t0 = now_s();
    kill(f2.dp_pid, SIGTERM);
    int exited = dh_wait_exit(&f2, 10);
    double dt = now_s() - t0;
    tap_ok(exited && WIFEXITED(f2.dp_status) &&
               WEXITSTATUS(f2.dp_status) == 0 && dt < 2.0,
           "SIGTERM during a round: exit 0 in %.3f s", dt);
    if (!dh_log_has(&f2, "cancelled"))
        tap_diag("(the round had ended before SIGTERM arrived)");
    if (tap_failures() > 0)
        dh_log_tail(&f2, 20);
}

int main(void)
{
    tap_plan(39);
    tap_timeout(120);
    dh_init();
    test_cli();
    dh_set_heartbeat(1.0, 8);
    start_cluster();
    test_registration();
    test_answers();
    test_node_paused();
    test_node_killed();
    test_sigterm();
    test_busy_solve();
    dh_client_free(tool);
    return tap_exit_status();
}
