/*
 * test_client_executor.c - the executor side of the client API against a
 * fake node monitor on loopback (no daemons): registration for a
 * framework; a LAUNCH_TASK reaches ec_launch with every field and the
 * report comes back as TASK_FINISHED (also when finished from inside the
 * callback, and with only the tail of a long output); kills of one
 * attempt and of a whole job; a task of another framework answered
 * FAILED; a duplicate launch and kills of nothing counted; finishing what
 * does not run refused; the end of the session forgets the running tasks
 * (with kill callbacks), and a node monitor that comes back gets a new
 * registration and, if it is the same process, the ends it could not
 * hear (late reports).
 */
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"
#include "test_client_fake.h"
#include "transport_util.h"

#include <ev.h>
#include <stdio.h>
#include <string.h>

static struct ev_loop *loop;

#define MAXK 16

typedef struct exrec {
    sk_executor *x_ex;
    int x_launches;
    sk_launch_info x_last;
    char x_spec[64], x_user[64];
    int x_finish_at_once; /* finish OK from inside ec_launch */
    int x_kills;
    sk_job_id x_kill_job[MAXK];
    uint32_t x_kill_task[MAXK], x_kill_attempt[MAXK];
    int x_sessions_up, x_sessions_down;
} exrec;

static void on_launch(void *arg, const sk_launch_info *t)
{
    exrec *x = arg;
    x->x_launches++;
    x->x_last = *t;
    snprintf(x->x_spec, sizeof x->x_spec, "%.*s", (int)t->li_spec_len,
             (const char *)t->li_spec);
    snprintf(x->x_user, sizeof x->x_user, "%s", t->li_user);
    if (x->x_finish_at_once)
        sk_executor_finish(x->x_ex, t->li_job, t->li_task, t->li_attempt,
                           SK_OUTCOME_OK, 0, "quick", 5);
}

static void on_kill(void *arg, sk_job_id job, uint32_t task, uint32_t attempt)
{
    exrec *x = arg;
    if (x->x_kills < MAXK) {
        x->x_kill_job[x->x_kills] = job;
        x->x_kill_task[x->x_kills] = task;
        x->x_kill_attempt[x->x_kills] = attempt;
    }
    x->x_kills++;
}

static void on_session(void *arg, int up)
{
    exrec *x = arg;
    if (up)
        x->x_sessions_up++;
    else
        x->x_sessions_down++;
}

static void send_launch(fake *f, uint64_t job, uint32_t task, uint32_t attempt,
                        const char *fw)
{
    sk_msg m = {.m_type = SK_MSG_LAUNCH_TASK};
    sk_launch *lt = &m.m_launch;
    lt->lt_job = job;
    lt->lt_task = task;
    lt->lt_attempt = attempt;
    lt->lt_user = "ana";
    lt->lt_res.r_cpu_milli = 250;
    lt->lt_res.r_mem_mb = 32;
    lt->lt_spec.b_data = (const uint8_t *)"do-it";
    lt->lt_spec.b_len = 5;
    lt->lt_framework = fw;
    fake_send(f, &m);
}

static void send_kill(fake *f, uint64_t job, uint32_t task, uint32_t attempt)
{
    sk_msg m = {.m_type = SK_MSG_KILL_TASK};
    m.m_kill_task.kt_job = job;
    m.m_kill_task.kt_task = task;
    m.m_kill_task.kt_attempt = attempt;
    fake_send(f, &m);
}

static int launched(void *arg)
{
    return ((exrec *)arg)->x_launches;
}

static sk_executor_stats stats(sk_executor *ex)
{
    sk_executor_stats st;
    sk_executor_stats_get(ex, &st);
    return st;
}

int main(void)
{
    tap_timeout(60);
    tap_plan(23);
    sk_log_set_level(SK_LOG_OFF);
    loop = ev_loop_new(EVFLAG_AUTO);
    fake nm;
    fake_start(&nm, loop, NULL, "nodemon", "n1", SK_ROLE_NODEMON);
    char ep[64];
    snprintf(ep, sizeof ep, "%s", nm.fk_endpoint);

    exrec x;
    memset(&x, 0, sizeof x);
    sk_executor_opts o;
    sk_executor_opts_init(&o);
    o.eo_nodemon = ep;
    o.eo_framework = "spark";
    o.eo_heartbeat = 0.1;
    sk_executor_callbacks cb = {on_launch, on_kill, on_session, &x};
    sk_executor *ex;
    if (sk_executor_create(loop, &o, &cb, &ex) != 0)
        tap_bail_out("cannot create an executor");
    x.x_ex = ex;
    tap_ok(sk_executor_wait_registered(ex, 5) == 0 &&
               fake_wait_count(&nm, SK_MSG_HELLO, 1, 5) &&
               fake_last(&nm, SK_MSG_HELLO)->m_hello.he_role ==
                   SK_ROLE_EXECUTOR &&
               strcmp(fake_last(&nm, SK_MSG_HELLO)->m_hello.he_framework,
                      "spark") == 0 &&
               x.x_sessions_up == 1,
           "the executor registers for its framework");

    send_launch(&nm, 9, 3, 1, "spark");
    tu_run_until(loop, launched, &x, 5);
    tap_ok(x.x_launches == 1 && x.x_last.li_job == 9 && x.x_last.li_task == 3 &&
               x.x_last.li_attempt == 1 && strcmp(x.x_spec, "do-it") == 0 &&
               strcmp(x.x_user, "ana") == 0 && x.x_last.li_cpu_milli == 250 &&
               x.x_last.li_mem_mb == 32 && x.x_last.li_launch_us > 0 &&
               stats(ex).es_running == 1,
           "LAUNCH_TASK reaches ec_launch with every field");
    uint64_t launch_us = x.x_last.li_launch_us;

    static char longout[SK_MAX_OUTPUT_BYTES + 100];
    memset(longout, 'a', 100);
    memset(longout + 100, 'z', SK_MAX_OUTPUT_BYTES);
    tap_is_int(sk_executor_finish(ex, 9, 3, 1, SK_OUTCOME_FAILED, 7, longout,
                                  sizeof longout),
               0, "finish");
    fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 1, 5);
    const sk_msg *m = fake_last(&nm, SK_MSG_TASK_FINISHED);
    const sk_task_finished *tf = m != NULL ? &m->m_task_finished : NULL;
    tap_ok(tf != NULL && tf->tf_job == 9 && tf->tf_task == 3 &&
               tf->tf_attempt == 1 && tf->tf_status == SK_TASK_FAILED &&
               tf->tf_exit == 7 && tf->tf_output.b_len == SK_MAX_OUTPUT_BYTES &&
               tf->tf_output.b_data[0] == 'z' &&
               tf->tf_launch_us == launch_us && tf->tf_end_us >= launch_us,
           "TASK_FINISHED carries the outcome and the tail of the output");
    tap_is_int(sk_executor_finish(ex, 9, 3, 1, SK_OUTCOME_OK, 0, NULL, 0),
               SK_ENOTFOUND, "a finished attempt cannot finish again");
    tap_is_int(sk_executor_finish(ex, 9, 3, 1, 9, 0, NULL, 0), SK_EINVAL,
               "an outcome out of range is refused");

    /* Finished from inside the callback. */
    x.x_finish_at_once = 1;
    send_launch(&nm, 10, 0, 0, "spark");
    tap_ok(
        fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 2, 5) &&
            fake_last(&nm, SK_MSG_TASK_FINISHED)->m_task_finished.tf_job ==
                10 &&
            fake_last(&nm, SK_MSG_TASK_FINISHED)->m_task_finished.tf_status ==
                SK_TASK_OK &&
            stats(ex).es_running == 0,
        "a task finished from inside ec_launch is reported");
    x.x_finish_at_once = 0;

    /* Another framework's task is answered FAILED, without a launch. */
    int before = x.x_launches;
    send_launch(&nm, 11, 0, 0, "flink");
    fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 3, 5);
    tf = &fake_last(&nm, SK_MSG_TASK_FINISHED)->m_task_finished;
    tap_ok(tf->tf_job == 11 && tf->tf_status == SK_TASK_FAILED &&
               tf->tf_output.b_len > 0 && x.x_launches == before &&
               stats(ex).es_bad_input == 1,
           "a task of another framework is answered FAILED");

    /* Kills. */
    send_launch(&nm, 12, 0, 0, "spark");
    send_launch(&nm, 12, 1, 0, "spark");
    send_launch(&nm, 12, 1, 0, "spark"); /* duplicate */
    send_launch(&nm, 13, 5, 2, "spark");
    tu_run_for(loop, 0.2);
    tap_ok(x.x_launches == before + 3 && stats(ex).es_running == 3 &&
               stats(ex).es_bad_input == 2,
           "a second launch of a running attempt is counted and dropped");
    send_kill(&nm, 13, 5, 2);
    send_kill(&nm, 13, 5, 0); /* not that attempt */
    tu_run_for(loop, 0.2);
    tap_ok(x.x_kills == 1 && x.x_kill_job[0] == 13 && x.x_kill_task[0] == 5 &&
               x.x_kill_attempt[0] == 2 && stats(ex).es_bad_input == 3,
           "KILL_TASK of one attempt reaches ec_kill; of another, counted");
    send_kill(&nm, 12, SK_TASK_ANY, 0);
    tu_run_for(loop, 0.2);
    tap_ok(x.x_kills == 3 && x.x_kill_job[1] == 12 && x.x_kill_job[2] == 12 &&
               x.x_kill_task[1] + x.x_kill_task[2] == 1,
           "KILL_TASK of a whole job reaches every running attempt of it");
    tap_ok(
        sk_executor_finish(ex, 12, 0, 0, SK_OUTCOME_KILLED, -9, NULL, 0) == 0 &&
            fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 4, 5) &&
            fake_last(&nm, SK_MSG_TASK_FINISHED)->m_task_finished.tf_status ==
                SK_TASK_KILLED,
        "a killed task reports KILLED");
    tap_is_int(sk_executor_finish(ex, 77, 0, 0, SK_OUTCOME_OK, 0, NULL, 0),
               SK_ENOTFOUND, "finishing a task never launched is refused");

    /* The node monitor goes away with tasks 12/1 and 13/5 running. */
    fake_stop(&nm);
    tu_run_for(loop, 0.5);
    tap_ok(x.x_sessions_down == 1 && x.x_kills == 5 &&
               stats(ex).es_forgotten == 2 && stats(ex).es_running == 0 &&
               !stats(ex).es_registered,
           "losing the node monitor kills and forgets the running tasks");
    tap_is_int(sk_executor_finish(ex, 12, 1, 0, SK_OUTCOME_OK, 0, "late", 4), 0,
               "a forgotten task's end is taken, for the node monitor back");
    tap_is_int(sk_executor_finish(ex, 12, 1, 0, SK_OUTCOME_OK, 0, NULL, 0),
               SK_ENOTFOUND, "once");

    fake_start(&nm, loop, ep, "nodemon", "n1", SK_ROLE_NODEMON);
    tap_ok(sk_executor_wait_registered(ex, 10) == 0 &&
               fake_wait_count(&nm, SK_MSG_HELLO, 1, 5) && x.x_sessions_up == 2,
           "a node monitor back on the endpoint gets a new registration");
    /* The same node monitor process (its HELLO's incarnation) back: the
     * end it could not hear is sent again. */
    const sk_msg *late = fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 1, 5)
                             ? fake_last(&nm, SK_MSG_TASK_FINISHED)
                             : NULL;
    tap_ok(late != NULL && fake_count(&nm, SK_MSG_TASK_FINISHED) == 1 &&
               late->m_task_finished.tf_job == 12 &&
               late->m_task_finished.tf_task == 1 &&
               late->m_task_finished.tf_status == SK_TASK_OK &&
               late->m_task_finished.tf_output.b_len == 4,
           "the same node monitor back gets the forgotten task's end");

    /* A report sent as the session dies is sent again too; to another
     * node monitor process, nothing is. */
    send_launch(&nm, 14, 0, 0, "spark");
    tu_run_for(loop, 0.2);
    fake_stop(&nm);
    sk_executor_finish(ex, 14, 0, 0, SK_OUTCOME_OK, 0, NULL, 0);
    tu_run_for(loop, 0.5);
    fake_start(&nm, loop, ep, "nodemon", "n1", SK_ROLE_NODEMON);
    sk_executor_wait_registered(ex, 10);
    tap_ok(fake_wait_count(&nm, SK_MSG_TASK_FINISHED, 1, 5) &&
               fake_last(&nm, SK_MSG_TASK_FINISHED)->m_task_finished.tf_job ==
                   14,
           "a report sent into a dying session is sent again");
    send_launch(&nm, 15, 0, 0, "spark");
    tu_run_for(loop, 0.2);
    fake_stop(&nm);
    tu_run_for(loop, 0.5);
    sk_executor_finish(ex, 15, 0, 0, SK_OUTCOME_OK, 0, NULL, 0);
    fake_start(&nm, loop, ep, "nodemon", "n1", SK_ROLE_NODEMON);
    nm.fk_incarnation = 2;
    sk_executor_wait_registered(ex, 10);
    fake_wait_count(&nm, SK_MSG_HELLO, 1, 5);
    tu_run_for(loop, 0.3);
    tap_ok(fake_count(&nm, SK_MSG_TASK_FINISHED) == 0,
           "a restarted node monitor (another incarnation) gets none");

    /* A scheduler where the node monitor was wanted. */
    fake sc;
    fake_start(&sc, loop, NULL, "sched", "s1", SK_ROLE_SCHEDULER);
    sk_executor_opts wo = o;
    wo.eo_nodemon = sc.fk_endpoint;
    sk_executor *ex3;
    char want[128];
    snprintf(want, sizeof want, "%s: that is a scheduler, not a node monitor",
             sc.fk_endpoint);
    if (sk_executor_create(loop, &wo, &cb, &ex3) != 0)
        tap_bail_out("cannot create an executor");
    int rc = sk_executor_wait_registered(ex3, 5);
    tap_ok(rc == SK_EROLE && strcmp(sk_executor_error(ex3), want) == 0,
           "an executor pointed at a scheduler says SK_EROLE: %s",
           sk_executor_error(ex3));
    tap_ok(fake_count(&sc, SK_MSG_HELLO) == 0 &&
               stats(ex3).es_wrong_role == 1 && !stats(ex3).es_registered,
           "it does not register there");
    sk_executor_destroy(ex3);
    fake_stop(&sc);

    sk_executor_opts bad;
    sk_executor_opts_init(&bad);
    bad.eo_nodemon = ep;
    sk_executor *ex2;
    tap_is_int(sk_executor_create(loop, &bad, &cb, &ex2), SK_EINVAL,
               "an executor without a framework is refused");
    sk_executor_destroy(ex);
    fake_stop(&nm);
    ev_loop_destroy(loop);
    return tap_exit_status();
}
