/*
 * test_integration_flowgrace.c - a scheduler's session with flowd lost
 * while both live on (issue 21; flowd's sched_grace_ms, fd_grace.c),
 * with real daemons on loopback: flowd, a scheduler, two node monitors
 * of 4 slots open to long tasks, and a frontend. 6 long tasks of 6 s
 * run; the scheduler is stopped with SIGSTOP for 4 s, past the 2 s
 * heartbeat bound of flowd and the node monitors, then resumed. flowd
 * holds its work and takes it back when the same incarnation returns;
 * the node monitors keep its tasks as orphans (orphan_grace_ms) and
 * re-announce them. Every task appends a start and an end line to a
 * ledger: all 6 end OK, each executed once, none killed. Then flowd
 * itself is stopped for 4 s: the same. Then the scheduler's stall again
 * with sched_grace_ms 0 (flowd cancels at the session's end, as before
 * the grace), which kills the running tasks, run again when the
 * scheduler re-forwards them: the anchor that shows the check can
 * fail.
 *
 * The scheduler's and the frontend's own heartbeat bound is long (20 s):
 * the scheduler, stopped, must not time out its peers itself when it
 * resumes (it would drop its frontend, a failure of another kind); its
 * peers time it out and reset its sessions.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTASKS 6

static dh_proc flowd, sched, nodes[2];
static dh_client *fe;
static sk_peer_id sched_peer, flowd_peer;
static char ledger[600];

/* A key of peer's status, -1 if three asks of 2 s each went unanswered
 * (a loaded machine can miss one). */
static int64_t status_int(sk_peer_id peer, const char *key)
{
    int64_t v = -1;
    for (int i = 0; i < 3 && v < 0; i++) {
        dh_status st;
        dh_client_status(fe, peer, false, &st, 2.0);
        v = st.st_ok ? dh_status_int(&st, key) : -1;
        dh_status_free(&st);
    }
    return v;
}

static void start(const char *grace)
{
    dh_set_heartbeat(0.5, 4); /* flowd, node monitors: 2 s */
    const char *fx[] = {"--set", "flowd.settle_ms=0",
                        "--set", "flowd.heartbeat_ms=200",
                        "--set", grace,
                        NULL};
    if (dh_start_flowd(&flowd, "flowd", fx) != 0)
        tap_bail_out("flowd did not start");
    dh_set_heartbeat(0.5, 40); /* the scheduler, the frontend: 20 s */
    const char *sx[] = {"--flowd", flowd.dp_endpoint, NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    dh_set_heartbeat(0.5, 4);
    const dh_proc *s[] = {&sched};
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        const char *nx[] = {"--flowd", flowd.dp_endpoint,
                            "--set",   "nodemon.heartbeat_ms=200",
                            "--set",   "nodemon.long_share=1",
                            "--set",   "nodemon.orphan_grace_ms=30000",
                            "--label", "long_share=1",
                            NULL};
        if (dh_start_nodemon(&nodes[i], name, i + 1, 4, s, 1, nx) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    dh_set_heartbeat(0.5, 40);
    fe = dh_client_new("frontend", "fe1");
    sched_peer = dh_client_connect(fe, sched.dp_endpoint, 5);
    flowd_peer = dh_client_connect(fe, flowd.dp_endpoint, 5);
    if (sched_peer == 0 || flowd_peer == 0)
        tap_bail_out("cannot reach the scheduler and flowd");
    dh_client_hello(fe, sched_peer, SK_ROLE_FRONTEND);
    if (!dh_wait_status(fe, flowd_peer, "nodes", 2, 10, NULL) ||
        !dh_wait_status(fe, sched_peer, "flowd_connected", 1, 10, NULL))
        tap_bail_out("the cluster did not come together");
}

static void stop_all(void)
{
    dh_client_free(fe);
    dh_kill(&flowd);
    dh_kill(&sched);
    for (int i = 0; i < 2; i++)
        dh_kill(&nodes[i]);
}

static dh_job *submit(uint64_t id)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "echo start $SKYLARK_TASK_INDEX >> %s; sleep 6; "
             "echo end $SKYLARK_TASK_INDEX >> %s",
             ledger, ledger);
    dh_job *j =
        dh_client_submit_long(fe, sched_peer, id, NTASKS, cmd, "alice", 3);
    if (j == NULL)
        tap_bail_out("cannot submit");
    return j;
}

/* count reads the ledger: starts and ends, and tasks started twice. */
static void count(uint32_t *starts, uint32_t *ends, uint32_t *twice)
{
    dh_ledger_count(ledger, NTASKS, starts, ends, twice);
}

/* stall runs a job, stops p for 4 s once its tasks run, resumes it and
 * waits for the job's end. */
static dh_job *stall(uint64_t id, const dh_proc *p)
{
    dh_job *j = submit(id);
    if (!dh_client_run(fe, dh_job_all_started, j, 20))
        tap_bail_out("the long tasks did not start");
    kill(p->dp_pid, SIGSTOP);
    dh_client_run_for(fe, 4.0);
    kill(p->dp_pid, SIGCONT);
    dh_job_wait_done(fe, j, 40);
    return j;
}

static void test_with_grace(void)
{
    start("flowd.sched_grace_ms=20000");
    dh_job *j = stall(1, &sched);
    uint32_t starts, ends, twice;
    count(&starts, &ends, &twice);
    tap_ok(j->jb_done && j->jb_summary.jd_ok == NTASKS,
           "scheduler stopped 4 s past the 2 s bound: all %d long tasks end "
           "OK (ok %u, killed %u, lost %u)",
           NTASKS, j->jb_summary.jd_ok, j->jb_summary.jd_killed,
           j->jb_summary.jd_lost);
    tap_ok(starts == NTASKS && ends == NTASKS && twice == 0,
           "each executed once, to its end (%u starts, %u ends, %u twice)",
           starts, ends, twice);
    tap_is_int(status_int(flowd_peer, "sched_reclaimed"), 1,
               "flowd held the scheduler's work and it took it back");
    tap_is_int(status_int(flowd_peer, "sched_expired"), 0,
               "nothing of it cancelled");
    tap_is_int(status_int(flowd_peer, "releases"), 0, "flowd killed nothing");
}

/* flowd itself stopped: when it resumes its transport finds every peer
 * silent; the core, told of its own stall first, keeps the nodes and
 * takes them back with their tasks (fd_core_stalled). */
static void test_flowd_stopped(void)
{
    if (remove(ledger) != 0)
        tap_diag("no ledger to remove");
    dh_job *j = stall(2, &flowd);
    uint32_t starts, ends, twice;
    count(&starts, &ends, &twice);
    tap_ok(j->jb_done && j->jb_summary.jd_ok == NTASKS && starts == NTASKS &&
               twice == 0,
           "flowd stopped 4 s past the 2 s bound: all %d long tasks end OK, "
           "each executed once (ok %u, killed %u, %u starts)",
           NTASKS, j->jb_summary.jd_ok, j->jb_summary.jd_killed, starts);
    int64_t lost = status_int(flowd_peer, "nodes_lost");
    int64_t releases = status_int(flowd_peer, "releases");
    tap_ok(lost == 0 && releases == 0,
           "flowd lost no node and killed nothing (nodes_lost %lld, "
           "releases %lld; -1: no answer)",
           (long long)lost, (long long)releases);
}

static void test_without_grace(void)
{
    if (remove(ledger) != 0)
        tap_diag("no ledger to remove");
    start("flowd.sched_grace_ms=0");
    dh_job *j = stall(3, &sched);
    uint32_t starts, ends, twice;
    count(&starts, &ends, &twice);
    tap_ok(twice > 0 || j->jb_summary.jd_ok < NTASKS,
           "the anchor, sched_grace_ms 0: flowd cancels at the session's "
           "end, the running tasks are killed (and placed again when the "
           "scheduler re-forwards them): %u of %d started twice, ok %u",
           twice, NTASKS, j->jb_summary.jd_ok);
    stop_all();
}

int main(void)
{
    tap_timeout(180);
    tap_plan(8);
    dh_init();
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    test_with_grace();
    test_flowd_stopped();
    stop_all();
    test_without_grace();
    tap_done();
    return tap_exit_status();
}
