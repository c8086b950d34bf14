/*
 * test_integration_slow.c - a frontend that stops reading while its job
 * runs, with real daemons on loopback: once its send queue on the
 * scheduler overflows, the scheduler resets the session instead of
 * dropping results silently, and treats the frontend as gone (its job is
 * abandoned and cleaned up everywhere); the frontend sees the scheduler
 * go down, and never a JOB_DONE for a job whose results it missed.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define TASKS 600

int main(void)
{
    tap_plan(7);
    tap_timeout(90);
    dh_init();
    /* A frontend silent for 10 s is dead; its queue overflows long
     * before. */
    dh_set_heartbeat(1.0, 10);
    dh_proc sched, node;
    const char *small_queue[] = {"--set", "transport.queue_msgs=32", NULL};
    if (dh_start_sched(&sched, "s1", 1, small_queue) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    if (dh_start_nodemon(&node, "n1", 1, 8, s, 1, NULL) != 0)
        tap_bail_out("the node monitor did not start");

    dh_client *exe = dh_client_new("executor", "x1");
    sk_peer_id node_peer = dh_client_connect(exe, node.dp_endpoint, 5);
    dh_client_executor(exe, "fw", true);
    dh_client_hello(exe, node_peer, SK_ROLE_EXECUTOR);
    dh_client *tool = dh_client_new("tool", "t1");
    sk_peer_id tool_sched = dh_client_connect(tool, sched.dp_endpoint, 5);
    dh_client *fe = dh_client_new("frontend", "fe1");
    sk_peer_id fe_sched = dh_client_connect(fe, sched.dp_endpoint, 5);
    dh_client_hello(fe, fe_sched, SK_ROLE_FRONTEND);
    tap_ok(node_peer != 0 && tool_sched != 0 && fe_sched != 0 &&
               dh_wait_status(tool, tool_sched, "nodes", 1, 10, NULL) &&
               dh_wait_status(exe, node_peer, "peers", 2, 10, NULL),
           "a scheduler, a node monitor with an executor, a frontend");

    sk_task_spec *t = calloc(TASKS, sizeof *t);
    for (uint32_t i = 0; i < TASKS; i++)
        t[i].ts_spec = (sk_bytes){(const uint8_t *)"x", 1};
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job = (sk_submit_job){.sj_job = 1,
                                     .sj_user = "slow",
                                     .sj_framework = "fw",
                                     .sj_tasks = t,
                                     .sj_ntasks = TASKS};
    dh_job *j = dh_client_track(fe, 1, TASKS);
    dh_client_send(fe, fe_sched, &m);
    free(t);
    dh_client_run_for(fe, 0.05); /* the submission leaves; then silence */

    /* The executor finishes tasks at once: results pile up for the
     * frontend, which reads nothing. */
    dh_client_run_for(exe, 2.0);
    tap_ok(dh_client_launches(exe) >= 16,
           "tasks ran while the frontend read nothing (%u)",
           dh_client_launches(exe));
    tap_ok(dh_wait_status(tool, tool_sched, "jobs_abandoned", 1, 20, NULL) &&
               dh_wait_status(tool, tool_sched, "jobs", 0, 5, NULL),
           "its queue overflowed: the scheduler reset the session and "
           "abandoned the job");
    tap_ok(dh_log_has(&sched, "resetting the session"),
           "the scheduler says why");
    tap_ok(dh_wait_status(exe, node_peer, "queued", 0, 10, NULL) &&
               dh_wait_status(exe, node_peer, "running", 0, 10, NULL),
           "the node monitor holds nothing of the job");
    tap_ok(dh_client_launches(exe) < TASKS,
           "the rest of the job never ran (%u of %u launched)",
           dh_client_launches(exe), TASKS);

    dh_client_run_for(fe, 1.0);
    tap_ok(dh_client_downs(fe) >= 1 && j != NULL && j->jb_done == 0,
           "the frontend sees the scheduler go down, and no JOB_DONE");
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 15);
        dh_log_tail(&node, 10);
    }
    dh_client_free(fe);
    dh_client_free(tool);
    dh_client_free(exe);
    return tap_exit_status();
}
