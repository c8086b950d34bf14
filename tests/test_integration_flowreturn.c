/*
 * test_integration_flowreturn.c - a node monitor flowd writes off comes
 * back with its long tasks still running (issue 21; fd_reclaim.c), with
 * real daemons on loopback: flowd, a scheduler, one node monitor of 4
 * slots open to long tasks (orphan_grace_ms 30 s, so that its tasks
 * outlive its sessions), and a frontend. 4 long tasks of 8 s run; the
 * node monitor is stopped with SIGSTOP for 4 s, past the 2 s heartbeat
 * bound: flowd ends its session and sends its tasks back to waiting
 * (there is no other node to place them on). When it resumes it
 * registers again, the same process: flowd takes its tasks back instead
 * of killing them as tasks it does not know. Every task appends a start
 * and an end line to a ledger: all 4 end OK, each executed once, and
 * flowd counts 4 taken back and released nothing.
 *
 * The scheduler's and the frontend's own heartbeat bound is long (20 s),
 * as in test_integration_flowgrace: the node monitor's return, not a
 * timeout of the scheduler's, is what this test is about.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTASKS 4

static dh_proc flowd, sched, node;
static dh_client *fe;
static sk_peer_id sched_peer, flowd_peer;
static char ledger[600];

static int64_t status_int(sk_peer_id peer, const char *key)
{
    dh_status st;
    dh_client_status(fe, peer, false, &st, 2.0);
    int64_t v = st.st_ok ? dh_status_int(&st, key) : -1;
    dh_status_free(&st);
    return v;
}

static void start(void)
{
    dh_set_heartbeat(0.5, 4); /* flowd, the node monitor: 2 s */
    const char *fx[] = {"--set", "flowd.settle_ms=0", "--set",
                        "flowd.heartbeat_ms=200", NULL};
    if (dh_start_flowd(&flowd, "flowd", fx) != 0)
        tap_bail_out("flowd did not start");
    dh_set_heartbeat(0.5, 40); /* the scheduler, the frontend: 20 s */
    const char *sx[] = {"--flowd", flowd.dp_endpoint, NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    dh_set_heartbeat(0.5, 4);
    const dh_proc *s[] = {&sched};
    const char *nx[] = {"--flowd", flowd.dp_endpoint,
                        "--set",   "nodemon.heartbeat_ms=200",
                        "--set",   "nodemon.long_share=1",
                        "--set",   "nodemon.orphan_grace_ms=30000",
                        "--label", "long_share=1",
                        NULL};
    if (dh_start_nodemon(&node, "n1", 1, 4, s, 1, nx) != 0)
        tap_bail_out("the node monitor did not start");
    dh_set_heartbeat(0.5, 40);
    fe = dh_client_new("frontend", "fe1");
    sched_peer = dh_client_connect(fe, sched.dp_endpoint, 5);
    flowd_peer = dh_client_connect(fe, flowd.dp_endpoint, 5);
    if (sched_peer == 0 || flowd_peer == 0)
        tap_bail_out("cannot reach the scheduler and flowd");
    dh_client_hello(fe, sched_peer, SK_ROLE_FRONTEND);
    if (!dh_wait_status(fe, flowd_peer, "nodes", 1, 10, NULL) ||
        !dh_wait_status(fe, sched_peer, "flowd_connected", 1, 10, NULL))
        tap_bail_out("the cluster did not come together");
}

static void stop_all(void)
{
    dh_client_free(fe);
    dh_kill(&flowd);
    dh_kill(&sched);
    dh_kill(&node);
}

static dh_job *submit(uint64_t id)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "echo start $SKYLARK_TASK_INDEX >> %s; sleep 8; "
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

int main(void)
{
    tap_timeout(120);
    tap_plan(4);
    dh_init();
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    start();
    dh_job *j = submit(1);
    if (!dh_client_run(fe, dh_job_all_started, j, 20))
        tap_bail_out("the long tasks did not start");
    kill(node.dp_pid, SIGSTOP);
    dh_client_run_for(fe, 4.0);
    int64_t lost = status_int(flowd_peer, "nodes");
    kill(node.dp_pid, SIGCONT);
    dh_job_wait_done(fe, j, 40);
    uint32_t starts, ends, twice;
    count(&starts, &ends, &twice);
    tap_is_int(lost, 0, "the node monitor stopped 4 s: flowd wrote it off");
    tap_ok(j->jb_done && j->jb_summary.jd_ok == NTASKS,
           "all %d long tasks end OK (ok %u, killed %u, lost %u)", NTASKS,
           j->jb_summary.jd_ok, j->jb_summary.jd_killed, j->jb_summary.jd_lost);
    tap_ok(starts == NTASKS && ends == NTASKS && twice == 0,
           "each executed once, to its end (%u starts, %u ends, %u twice)",
           starts, ends, twice);
    tap_ok(status_int(flowd_peer, "reclaimed") == NTASKS &&
               status_int(flowd_peer, "reclaim_killed") == 0 &&
               status_int(flowd_peer, "releases") == 0,
           "flowd took its %d tasks back and released nothing", NTASKS);
    stop_all();
    tap_done();
    return tap_exit_status();
}
