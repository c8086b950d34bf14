/*
 * test_client_frontend.c - the frontend side of the client API against a
 * fake scheduler on loopback (no daemons): what a submission looks like
 * on the wire; acceptance, per-task start and finish callbacks and the
 * job's end; validation of the scheduler's messages (unknown job, a second
 * outcome, an index out of range, a report before acceptance, garbage);
 * rejection; cancellation, before and after hand-over; the waiting limit
 * when no scheduler answers; what a lost scheduler does to jobs in flight
 * and to jobs still waiting; fallback to the next endpoint; a JOB_DONE
 * that leaves tasks without an outcome; a node monitor where a scheduler
 * was wanted; refusals of bad submissions; the blocking mode with its own
 * loop; and failover: a job whose scheduler is lost moves to the next with
 * only its unfinished tasks, under a new wire id whose task indices map
 * back to the job's, one outcome per task, stragglers and duplicates
 * dropped, the failover limit, the waiting limit, and cancellation during
 * and after a failover; the flow path's fields (long, placement, each
 * task's preferred racks) on the wire and through a failover, and their
 * refusals.
 */
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"
#include "test_client_fake.h"
#include "transport_util.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ev_loop *loop;

#define MAXT 64

/* What a job's callbacks saw. */
typedef struct rec {
    int r_starts, r_dones, r_job_dones;
    int r_order_bad; /* a callback after the job's end, or a task twice */
    int r_done[MAXT];
    int r_outcome[MAXT];
    int r_exit[MAXT];
    int r_started[MAXT];
    uint32_t r_attempt[MAXT];
    uint32_t r_start_task, r_start_attempt; /* the latest jc_started */
    char r_output[MAXT][64];
    char r_reason[MAXT][128];
    char r_node[MAXT][32];
    uint64_t r_submit_us, r_launch_us;
    sk_job_result r_jr;
    char r_jr_reason[256];
    sk_frontend *r_fe;          /* to act from a callback */
    sk_job_id r_submit_from_cb; /* a job submitted from jc_task_done */
} rec;

static void cb_started(void *arg, const sk_task_start *s)
{
    rec *r = arg;
    if (r->r_job_dones > 0)
        r->r_order_bad++;
    r->r_starts++;
    r->r_start_task = s->ts_task;
    r->r_start_attempt = s->ts_attempt;
    r->r_submit_us = s->ts_submit_us;
    r->r_launch_us = s->ts_launch_us;
}

static void cb_task_done(void *arg, const sk_task_result *t)
{
    rec *r = arg;
    if (r->r_job_dones > 0 || t->tr_task >= MAXT || r->r_done[t->tr_task])
        r->r_order_bad++;
    if (t->tr_task >= MAXT)
        return;
    r->r_dones++;
    r->r_done[t->tr_task] = 1;
    r->r_outcome[t->tr_task] = t->tr_outcome;
    r->r_exit[t->tr_task] = t->tr_exit;
    r->r_started[t->tr_task] = t->tr_started;
    r->r_attempt[t->tr_task] = t->tr_attempt;
    snprintf(r->r_output[t->tr_task], sizeof r->r_output[0], "%.*s",
             (int)t->tr_output_len, (const char *)t->tr_output);
    snprintf(r->r_reason[t->tr_task], sizeof r->r_reason[0], "%s",
             t->tr_reason);
    snprintf(r->r_node[t->tr_task], sizeof r->r_node[0], "%s", t->tr_node);
}

static void cb_job_done(void *arg, const sk_job_result *j)
{
    rec *r = arg;
    r->r_job_dones++;
    r->r_jr = *j;
    snprintf(r->r_jr_reason, sizeof r->r_jr_reason, "%s", j->jr_reason);
}

static sk_job_callbacks callbacks(rec *r)
{
    sk_job_callbacks cb = {cb_started, cb_task_done, cb_job_done, r};
    return cb;
}

static int job_ended(void *arg)
{
    return ((rec *)arg)->r_job_dones > 0;
}

static int fe_up(void *arg)
{
    sk_frontend_stats st;
    sk_frontend_stats_get(arg, &st);
    return st.fs_connected;
}

/* fo_max_failovers of the frontends make_frontend makes. */
static unsigned max_failovers = 3;

static sk_frontend *make_frontend(const char *const *eps, unsigned n,
                                  double connect_timeout, double queue_timeout)
{
    sk_frontend_opts o;
    sk_frontend_opts_init(&o);
    o.fo_max_failovers = max_failovers;
    o.fo_schedulers = eps;
    o.fo_nschedulers = n;
    o.fo_connect_timeout = connect_timeout;
    o.fo_queue_timeout = queue_timeout;
    o.fo_heartbeat = 0.1;
    sk_frontend *fe;
    if (sk_frontend_create(loop, &o, &fe) != 0)
        tap_bail_out("cannot create a frontend");
    return fe;
}

/* A job of n tasks "t0".."tN" for user ana. */
static sk_job_id submit(sk_frontend *fe, uint32_t n, rec *r)
{
    static char specs[MAXT][8];
    sk_task_desc td[MAXT];
    memset(td, 0, sizeof td);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(specs[i], sizeof specs[i], "t%u", i);
        td[i].td_spec = specs[i];
        td[i].td_spec_len = (uint32_t)strlen(specs[i]);
    }
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_user = "ana";
    jd.jo_tasks = td;
    jd.jo_ntasks = n;
    sk_job_callbacks cb = callbacks(r);
    sk_job_id id = 0;
    if (sk_frontend_submit(fe, &jd, &cb, &id) != 0)
        tap_bail_out("submit: %s", sk_frontend_error(fe));
    return id;
}

static void send_ack(fake *f, uint64_t job, int accepted, const char *reason)
{
    sk_msg m = {.m_type = accepted ? SK_MSG_JOB_ACCEPTED : SK_MSG_JOB_REJECTED};
    m.m_job_ack.ja_job = job;
    m.m_job_ack.ja_reason = reason;
    fake_send(f, &m);
}

static void send_started(fake *f, uint64_t job, uint32_t task, uint32_t attempt,
                         uint64_t launch)
{
    sk_msg m = {.m_type = SK_MSG_TASK_STARTED};
    m.m_task_started.st_job = job;
    m.m_task_started.st_task = task;
    m.m_task_started.st_attempt = attempt;
    m.m_task_started.st_node = "n1";
    m.m_task_started.st_launch_us = launch;
    fake_send(f, &m);
}

static void send_finished(fake *f, uint64_t job, uint32_t task,
                          sk_task_status st, int code, const char *out)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    sk_task_finished *tf = &m.m_task_finished;
    tf->tf_job = job;
    tf->tf_task = task;
    tf->tf_node = "n1";
    tf->tf_status = (uint8_t)st;
    tf->tf_exit = code;
    tf->tf_output.b_data = (const uint8_t *)out;
    tf->tf_output.b_len = (uint32_t)strlen(out);
    tf->tf_launch_us = 1000;
    tf->tf_end_us = 2000;
    fake_send(f, &m);
}

static void send_job_done(fake *f, uint64_t job, uint32_t tasks, uint32_t ok,
                          uint32_t failed, uint32_t cancelled)
{
    sk_msg m = {.m_type = SK_MSG_JOB_DONE};
    m.m_job_done.jd_job = job;
    m.m_job_done.jd_tasks = tasks;
    m.m_job_done.jd_ok = ok;
    m.m_job_done.jd_failed = failed;
    m.m_job_done.jd_cancelled = cancelled;
    m.m_job_done.jd_lost = tasks - ok - failed - cancelled;
    fake_send(f, &m);
}

static sk_frontend_stats stats(sk_frontend *fe)
{
    sk_frontend_stats st;
    sk_frontend_stats_get(fe, &st);
    return st;
}

/* --- the happy path, and validation of what the scheduler says ---------- */

static void test_submit_and_outcomes(void)
{
    fake s;
    fake_start(&s, loop, NULL, "sched", "s1", SK_ROLE_SCHEDULER);
    char ep[64];
    snprintf(ep, sizeof ep, "%s", s.fk_endpoint);
    const char *eps[] = {ep};
    /* The rule without failover: a lost scheduler's tasks end LOST. */
    max_failovers = 0;
    sk_frontend *fe = make_frontend(eps, 1, 2, 5);
    max_failovers = 3;
    tap_ok(tu_run_until(loop, fe_up, fe, 5) &&
               fake_wait_count(&s, SK_MSG_HELLO, 1, 5) &&
               fake_last(&s, SK_MSG_HELLO)->m_hello.he_role == SK_ROLE_FRONTEND,
           "the frontend connects and says HELLO as a frontend");

    /* A job with every field set. */
    const char *labels[] = {"gpu", "rack=r1"};
    const char *pref[] = {"n7", "n8"};
    sk_task_desc td[2] = {{.td_spec = "echo a",
                           .td_spec_len = 6,
                           .td_preferred = pref,
                           .td_npreferred = 2},
                          {.td_spec = "echo b", .td_spec_len = 6}};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_user = "bob";
    jd.jo_priority = 2;
    jd.jo_labels = labels;
    jd.jo_nlabels = 2;
    jd.jo_cpu_milli = 500;
    jd.jo_mem_mb = 64;
    jd.jo_probe_ratio = 3;
    jd.jo_max_attempts = 4;
    jd.jo_framework = "spark";
    jd.jo_tasks = td;
    jd.jo_ntasks = 2;
    rec r0;
    memset(&r0, 0, sizeof r0);
    sk_job_callbacks cb = callbacks(&r0);
    sk_job_id id0;
    tap_is_int(sk_frontend_submit(fe, &jd, &cb, &id0), 0, "submit");
    fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 1, 5);
    const sk_msg *m = fake_last(&s, SK_MSG_SUBMIT_JOB);
    const sk_submit_job *sj = m != NULL ? &m->m_submit_job : NULL;
    tap_ok(sj != NULL && sj->sj_job == id0 && strcmp(sj->sj_user, "bob") == 0 &&
               sj->sj_priority == 2 && sj->sj_nlabels == 2 &&
               strcmp(sj->sj_labels[1], "rack=r1") == 0 &&
               sj->sj_res.r_cpu_milli == 500 && sj->sj_res.r_mem_mb == 64 &&
               sj->sj_probe_ratio == 3 && sj->sj_max_attempts == 4 &&
               strcmp(sj->sj_framework, "spark") == 0 && !sj->sj_long &&
               sj->sj_ntasks == 2 && sj->sj_tasks[0].ts_spec.b_len == 6 &&
               memcmp(sj->sj_tasks[0].ts_spec.b_data, "echo a", 6) == 0 &&
               sj->sj_tasks[0].ts_npreferred == 2 &&
               strcmp(sj->sj_tasks[0].ts_preferred[1], "n8") == 0 &&
               sj->sj_tasks[1].ts_npreferred == 0,
           "SUBMIT_JOB carries every field of the job");

    /* A report before JOB_ACCEPTED is not taken. */
    send_started(&s, id0, 0, 0, 1234);
    send_ack(&s, id0, 1, "");
    tu_run_for(loop, 0.1);
    tap_ok(r0.r_starts == 0 && stats(fe).fs_unexpected == 1 &&
               stats(fe).fs_jobs_accepted == 1,
           "a TASK_STARTED before JOB_ACCEPTED is counted and dropped");

    send_started(&s, id0, 0, 0, 5555);
    send_finished(&s, id0, 0, SK_TASK_OK, 0, "out-a");
    tu_run_for(loop, 0.1);
    tap_ok(r0.r_starts == 1 && r0.r_launch_us == 5555 && r0.r_submit_us > 0 &&
               r0.r_dones == 1 && r0.r_outcome[0] == SK_OUTCOME_OK &&
               strcmp(r0.r_output[0], "out-a") == 0 &&
               strcmp(r0.r_node[0], "n1") == 0 && r0.r_started[0] &&
               r0.r_job_dones == 0,
           "TASK_STARTED and TASK_FINISHED reach the callbacks");

    /* Garbage, and messages that name nothing in flight. */
    send_finished(&s, id0, 0, SK_TASK_FAILED, 1, "again");
    send_finished(&s, id0 + 100, 0, SK_TASK_OK, 0, "");
    send_finished(&s, id0, 2, SK_TASK_OK, 0, "");
    send_started(&s, id0, 0, 0, 1);
    sk_transport_send(sk_link_transport(s.fk_link), s.fk_peer, "\xc1zz", 3);
    sk_msg odd = {.m_type = SK_MSG_GET_TASK};
    odd.m_get_task.gt_node = "x";
    fake_send(&s, &odd);
    tu_run_for(loop, 0.1);
    sk_frontend_stats st = stats(fe);
    tap_ok(r0.r_dones == 1 && r0.r_outcome[0] == SK_OUTCOME_OK &&
               st.fs_duplicate == 2 && st.fs_unknown_job == 1 &&
               st.fs_bad_field == 1 && st.fs_undecodable == 1 &&
               st.fs_unexpected == 2 && st.fs_connected,
           "a second outcome, an unknown job, a task out of range, garbage "
           "and a GET_TASK are counted and dropped; the session goes on");

    send_finished(&s, id0, 1, SK_TASK_FAILED, 3, "boom");
    send_job_done(&s, id0, 2, 1, 1, 0);
    tu_run_until(loop, job_ended, &r0, 5);
    tap_ok(r0.r_dones == 2 && r0.r_outcome[1] == SK_OUTCOME_FAILED &&
               r0.r_exit[1] == 3 && r0.r_job_dones == 1 &&
               r0.r_jr.jr_job == id0 && r0.r_jr.jr_tasks == 2 &&
               r0.r_jr.jr_ok == 1 && r0.r_jr.jr_failed == 1 &&
               r0.r_jr.jr_error == 0 && r0.r_order_bad == 0 &&
               stats(fe).fs_jobs_in_flight == 0,
           "JOB_DONE ends the job with the counts, after every task");
    tap_is_int(sk_frontend_cancel(fe, id0, NULL), SK_ENOTFOUND,
               "an ended job cannot be cancelled");

    /* Rejection. */
    rec r1;
    memset(&r1, 0, sizeof r1);
    sk_job_id id1 = submit(fe, 3, &r1);
    fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 2, 5);
    m = fake_last(&s, SK_MSG_SUBMIT_JOB);
    tap_ok(m->m_submit_job.sj_job == id1 &&
               strcmp(m->m_submit_job.sj_framework, "") == 0 &&
               m->m_submit_job.sj_tasks[2].ts_spec.b_len == 3 &&
               memcmp(m->m_submit_job.sj_tasks[2].ts_spec.b_data, "t2", 3) == 0,
           "a command job's specs get their final NUL");
    send_ack(&s, id1, 0, "over the limit");
    tu_run_until(loop, job_ended, &r1, 5);
    tap_ok(r1.r_dones == 3 && r1.r_outcome[2] == SK_OUTCOME_FAILED &&
               strcmp(r1.r_reason[0], "job rejected: over the limit") == 0 &&
               r1.r_jr.jr_error == SK_EREJECTED && r1.r_jr.jr_failed == 3 &&
               strcmp(r1.r_jr_reason, "job rejected: over the limit") == 0 &&
               stats(fe).fs_jobs_rejected == 1,
           "a rejected job ends with every task failed and the reason");

    /* Cancellation after hand-over. */
    rec r2;
    memset(&r2, 0, sizeof r2);
    sk_job_id id2 = submit(fe, 2, &r2);
    fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 3, 5);
    send_ack(&s, id2, 1, "");
    send_finished(&s, id2, 0, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.05);
    tap_is_int(sk_frontend_cancel(fe, id2, "enough"), 0, "cancel");
    tap_is_int(sk_frontend_cancel(fe, id2, "twice"), 0, "cancel again");
    fake_wait_count(&s, SK_MSG_CANCEL_JOB, 1, 5);
    tu_run_for(loop, 0.05);
    m = fake_last(&s, SK_MSG_CANCEL_JOB);
    tap_ok(fake_count(&s, SK_MSG_CANCEL_JOB) == 1 &&
               m->m_cancel_job.cj_job == id2 &&
               strcmp(m->m_cancel_job.cj_reason, "enough") == 0,
           "one CANCEL_JOB goes out, with the reason");
    send_finished(&s, id2, 1, SK_TASK_CANCELLED, -1, "");
    send_job_done(&s, id2, 2, 1, 0, 1);
    tu_run_until(loop, job_ended, &r2, 5);
    tap_ok(r2.r_jr.jr_ok == 1 && r2.r_jr.jr_cancelled == 1 &&
               r2.r_outcome[1] == SK_OUTCOME_CANCELLED && r2.r_jr.jr_error == 0,
           "the cancelled job ends with what finished and what was cancelled");

    /* A JOB_DONE that leaves a task without an outcome. */
    rec r3;
    memset(&r3, 0, sizeof r3);
    sk_job_id id3 = submit(fe, 2, &r3);
    fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 4, 5);
    send_ack(&s, id3, 1, "");
    send_finished(&s, id3, 0, SK_TASK_OK, 0, "");
    send_job_done(&s, id3, 2, 2, 0, 0);
    tu_run_until(loop, job_ended, &r3, 5);
    tap_ok(r3.r_jr.jr_error == SK_EPROTO && r3.r_jr.jr_ok == 1 &&
               r3.r_jr.jr_lost == 1 && r3.r_outcome[1] == SK_OUTCOME_LOST &&
               strcmp(r3.r_reason[1], "no outcome from the scheduler") == 0 &&
               stats(fe).fs_bad_field == 2,
           "JOB_DONE without every outcome: the rest end lost, SK_EPROTO");

    /* Scheduler lost with a job in flight. */
    rec r4;
    memset(&r4, 0, sizeof r4);
    sk_job_id id4 = submit(fe, 3, &r4);
    fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 5, 5);
    send_ack(&s, id4, 1, "");
    send_started(&s, id4, 1, 0, 77);
    send_finished(&s, id4, 0, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&s);
    tu_run_until(loop, job_ended, &r4, 5);
    tap_ok(r4.r_job_dones == 1 && r4.r_jr.jr_error == SK_ECLOSED &&
               r4.r_jr.jr_ok == 1 && r4.r_jr.jr_lost == 2 &&
               r4.r_outcome[1] == SK_OUTCOME_LOST && r4.r_started[1] == 1 &&
               r4.r_started[2] == 0 &&
               strncmp(r4.r_reason[2], "scheduler lost", 14) == 0 &&
               stats(fe).fs_scheduler_lost == 1,
           "scheduler lost: unfinished tasks end lost, saying which started");

    /* Submitted while no scheduler answers: the job waits, then goes to
     * the scheduler that comes back on the same endpoint. */
    rec r5;
    memset(&r5, 0, sizeof r5);
    sk_job_id id5 = submit(fe, 1, &r5);
    tu_run_for(loop, 0.3);
    tap_ok(stats(fe).fs_jobs_waiting == 1 && r5.r_job_dones == 0,
           "with no session a job waits in the frontend");
    fake_start(&s, loop, ep, "sched", "s1", SK_ROLE_SCHEDULER);
    tap_ok(fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 1, 10) &&
               fake_last(&s, SK_MSG_SUBMIT_JOB)->m_submit_job.sj_job == id5 &&
               stats(fe).fs_jobs_waiting == 0,
           "and is handed over when a scheduler is back");
    fake_stop(&s);
    sk_frontend_destroy(fe);
}

/* --- no scheduler at all ------------------------------------------------ */

static void test_no_scheduler(void)
{
    char dead[64];
    snprintf(dead, sizeof dead, "tcp://127.0.0.1:%d", tu_free_port());
    const char *eps[] = {dead};
    sk_frontend *fe = make_frontend(eps, 1, 0.1, 0.3);
    rec r0, r1;
    memset(&r0, 0, sizeof r0);
    memset(&r1, 0, sizeof r1);
    sk_job_id id0 = submit(fe, 2, &r0);
    submit(fe, 2, &r1);
    tap_is_int(sk_frontend_cancel(fe, id0, NULL), 0,
               "a waiting job is cancelled");
    tap_ok(r0.r_job_dones == 1 && r0.r_jr.jr_cancelled == 2 &&
               r0.r_jr.jr_error == 0 && r0.r_outcome[0] == SK_OUTCOME_CANCELLED,
           "at once: its tasks end cancelled");
    tu_run_until(loop, job_ended, &r1, 5);
    tap_ok(r1.r_job_dones == 1 && r1.r_jr.jr_error == SK_ETIMEDOUT &&
               r1.r_jr.jr_failed == 2 &&
               strncmp(r1.r_reason[1], "no scheduler reachable", 22) == 0 &&
               stats(fe).fs_failovers >= 1,
           "a job that waits longer than the limit fails, SK_ETIMEDOUT");
    sk_frontend_destroy(fe);
}

/* --- fallback ----------------------------------------------------------- */

static void test_fallback(void)
{
    char dead[64];
    snprintf(dead, sizeof dead, "tcp://127.0.0.1:%d", tu_free_port());
    fake a, b;
    fake_start(&b, loop, NULL, "sched", "sb", SK_ROLE_SCHEDULER);
    char bep[64];
    snprintf(bep, sizeof bep, "%s", b.fk_endpoint);
    const char *eps[] = {dead, bep};
    max_failovers = 0;
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
    max_failovers = 3;
    rec r0;
    memset(&r0, 0, sizeof r0);
    sk_job_id id0 = submit(fe, 1, &r0);
    tap_ok(fake_wait_count(&b, SK_MSG_SUBMIT_JOB, 1, 5) &&
               fake_last(&b, SK_MSG_SUBMIT_JOB)->m_submit_job.sj_job == id0 &&
               strcmp(stats(fe).fs_scheduler, bep) == 0,
           "the first endpoint is down: the job goes to the second");

    /* The second goes away; the first comes up: new jobs go there. */
    fake_start(&a, loop, dead, "sched", "sa", SK_ROLE_SCHEDULER);
    send_ack(&b, id0, 1, "");
    tu_run_for(loop, 0.05);
    fake_stop(&b);
    tu_run_until(loop, job_ended, &r0, 5);
    rec r1;
    memset(&r1, 0, sizeof r1);
    sk_job_id id1 = submit(fe, 1, &r1);
    tap_ok(r0.r_jr.jr_error == SK_ECLOSED &&
               fake_wait_count(&a, SK_MSG_SUBMIT_JOB, 1, 5) &&
               fake_last(&a, SK_MSG_SUBMIT_JOB)->m_submit_job.sj_job == id1,
           "after losing the second, the next job goes to the first");
    fake_stop(&a);
    sk_frontend_destroy(fe);
}

/* --- the wrong kind of daemon ------------------------------------------ */

static void test_wrong_role(void)
{
    fake nm, s;
    fake_start(&nm, loop, NULL, "nodemon", "n1", SK_ROLE_NODEMON);
    char nep[64];
    snprintf(nep, sizeof nep, "%s", nm.fk_endpoint);
    const char *eps[] = {nep};
    sk_frontend *fe = make_frontend(eps, 1, 0.5, 30);
    rec r;
    memset(&r, 0, sizeof r);
    submit(fe, 3, &r);
    char want[128];
    snprintf(want, sizeof want, "%s: that is a node monitor, not a scheduler",
             nep);
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_error == SK_EROLE &&
               r.r_jr.jr_failed == 3 && strcmp(r.r_jr_reason, want) == 0 &&
               strcmp(r.r_reason[2], want) == 0,
           "a node monitor at the only endpoint: the job fails at once with "
           "SK_EROLE and '%s'",
           r.r_jr_reason);
    tap_ok(fake_count(&nm, SK_MSG_SUBMIT_JOB) == 0 &&
               fake_count(&nm, SK_MSG_HELLO) == 0 &&
               stats(fe).fs_wrong_role >= 1 && !stats(fe).fs_connected,
           "nothing was sent to it, and the frontend says why");
    tap_ok(sk_frontend_wait_connected(fe, 5) == SK_EROLE &&
               strcmp(sk_frontend_error(fe), want) == 0,
           "waiting for a session says SK_EROLE: %s", sk_frontend_error(fe));
    sk_frontend_destroy(fe);

    /* A node monitor first, a scheduler second: the job goes there. */
    fake_start(&s, loop, NULL, "sched", "s1", SK_ROLE_SCHEDULER);
    const char *two[] = {nep, s.fk_endpoint};
    fe = make_frontend(two, 2, 0.5, 30);
    memset(&r, 0, sizeof r);
    sk_job_id id = submit(fe, 1, &r);
    tap_ok(fake_wait_count(&s, SK_MSG_SUBMIT_JOB, 1, 5) &&
               fake_last(&s, SK_MSG_SUBMIT_JOB)->m_submit_job.sj_job == id &&
               fake_count(&nm, SK_MSG_SUBMIT_JOB) == 0 && r.r_job_dones == 0,
           "a node monitor, then a scheduler: the job goes to the scheduler");
    sk_frontend_destroy(fe);
    fake_stop(&s);
    fake_stop(&nm);
}

/* --- refusals ----------------------------------------------------------- */

static void test_refusals(void)
{
    const char *eps[] = {"tcp://127.0.0.1:1"};
    sk_frontend *fe = make_frontend(eps, 1, 1, 0);
    sk_task_desc td = {.td_spec = "x", .td_spec_len = 1};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "a job without tasks is refused");
    jd.jo_tasks = &td;
    jd.jo_ntasks = 1;
    jd.jo_priority = 8;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "priority 8 is refused");
    jd.jo_priority = 0;
    jd.jo_probe_ratio = 0.5;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "probe ratio 0.5 is refused");
    jd.jo_probe_ratio = 0;
    sk_task_desc empty = {.td_spec = "", .td_spec_len = 0};
    jd.jo_tasks = &empty;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "an empty command is refused");
    sk_task_desc nul = {.td_spec = "a\0b", .td_spec_len = 3};
    jd.jo_tasks = &nul;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "a command with a NUL inside is refused");
    static char big[SK_MAX_SPEC_BYTES + 1];
    memset(big, 'x', sizeof big);
    sk_task_desc longcmd = {.td_spec = big, .td_spec_len = SK_MAX_SPEC_BYTES};
    jd.jo_tasks = &longcmd;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_ELIMIT,
               "a command with no room left for its final NUL is refused");
    jd.jo_framework = "fw";
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), 0,
               "the same spec for an executor is taken");
    int rc;
    const char *zk[] = {"zk"}, *bad_tag[] = {"z k"};
    sk_task_desc tagged[2] = {{.td_spec = "a", .td_spec_len = 1},
                              {.td_spec = "b", .td_spec_len = 1}};
    tagged[0].td_tags = tagged[1].td_tags = zk;
    tagged[0].td_ntags = tagged[1].td_ntags = 1;
    jd.jo_tasks = tagged;
    jd.jo_ntasks = 2;
    jd.jo_constraints = "zk=2,NOTIN,NOD,zk";
    rc = sk_frontend_submit(fe, &jd, NULL, NULL);
    tap_ok(rc == SK_EINVAL &&
               strcmp(sk_frontend_error(fe),
                      "constraint spec at 12: expected NODE, RACK or "
                      "LABEL=KEY, got 'NOD'") == 0,
           "a bad constraint spec is refused with its position: %s",
           sk_frontend_error(fe));
    jd.jo_constraints = "zk=3,NOTIN,NODE,zk";
    rc = sk_frontend_submit(fe, &jd, NULL, NULL);
    tap_ok(rc == SK_EINVAL &&
               strcmp(sk_frontend_error(fe),
                      "constraint spec: zk=3, but 2 tasks carry the tag "
                      "zk") == 0,
           "a task count the tags do not match is refused");
    tagged[1].td_tags = bad_tag;
    jd.jo_constraints = "zk,NOTIN,NODE,zk";
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "a tag with a space is refused");
    tagged[1].td_tags = zk;
    tagged[1].td_ntags = SK_MAX_TAGS + 1;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_ELIMIT,
               "too many tags are refused");
    tagged[1].td_ntags = 1;
    jd.jo_constraints = "zk=2,NOTIN,NODE,zk:zk,IN,RACK,all/hb,SOFT=3";
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), 0,
               "tags and constraints are taken");
    jd.jo_constraints = NULL;
    jd.jo_ntasks = 1;
    sk_task_desc huge = {.td_spec = big, .td_spec_len = sizeof big};
    jd.jo_tasks = &huge;
    rc = sk_frontend_submit(fe, &jd, NULL, NULL);
    tap_ok(rc == SK_ELIMIT &&
               strcmp(sk_frontend_error(fe),
                      "task 0: spec of 65537 bytes is over the limit of "
                      "65536") == 0,
           "a spec over 64 KiB is refused, and the error says so");
    sk_task_desc many[20];
    for (int i = 0; i < 20; i++)
        many[i] =
            (sk_task_desc){.td_spec = big, .td_spec_len = SK_MAX_SPEC_BYTES};
    jd.jo_tasks = many;
    jd.jo_ntasks = 20;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_ELIMIT,
               "a job over the transport's message limit is refused");
    tap_is_int((int)stats(fe).fs_jobs_submitted, 2,
               "nothing refused was counted as submitted");
    sk_frontend_opts o;
    sk_frontend_opts_init(&o);
    sk_frontend *bad;
    tap_is_int(sk_frontend_create(loop, &o, &bad), SK_EINVAL,
               "a frontend without a scheduler is refused");
    sk_frontend_destroy(fe);
}

/* --- failover ----------------------------------------------------------- */

/* Two fake schedulers; the frontend knows A first, then B. */
static void start_pair(fake *a, fake *b, char *aep, char *bep)
{
    fake_start(a, loop, NULL, "sched", "sa", SK_ROLE_SCHEDULER);
    fake_start(b, loop, NULL, "sched", "sb", SK_ROLE_SCHEDULER);
    snprintf(aep, 64, "%s", a->fk_endpoint);
    snprintf(bep, 64, "%s", b->fk_endpoint);
}

static int fe_waiting(void *arg)
{
    return stats(arg).fs_jobs_waiting > 0;
}

/* Waits for the nth SUBMIT_JOB at f and returns it, or NULL. */
static const sk_submit_job *got_submit(fake *f, int n)
{
    if (!fake_wait_count(f, SK_MSG_SUBMIT_JOB, n, 5))
        return NULL;
    return &fake_last(f, SK_MSG_SUBMIT_JOB)->m_submit_job;
}

/* Whether task i of a resubmission is job task `task`'s command "t<task>"
 * with the first line that gives it back its index and attempt base. */
static int spec_is(const sk_submit_job *sj, uint32_t i, uint32_t task,
                   uint32_t base)
{
    char want[128];
    snprintf(want, sizeof want,
             "export SKYLARK_TASK_INDEX=%u "
             "SKYLARK_ATTEMPT=$((SKYLARK_ATTEMPT+%u))\nt%u",
             task, base, task);
    size_t n = strlen(want) + 1;
    return i < sj->sj_ntasks && sj->sj_tasks[i].ts_spec.b_len == n &&
           memcmp(sj->sj_tasks[i].ts_spec.b_data, want, n) == 0;
}

static void test_failover(void)
{
    fake a, b;
    char aep[64], bep[64];
    start_pair(&a, &b, aep, bep);
    const char *eps[] = {aep, bep};
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
    rec r;
    memset(&r, 0, sizeof r);
    sk_job_id id = submit(fe, 6, &r);
    const sk_submit_job *sj = got_submit(&a, 1);
    tap_ok(sj != NULL && sj->sj_job == id && sj->sj_ntasks == 6,
           "failover: the job goes to A first, under its own id");

    /* A: tasks 0 and 1 end, 2 and 3 start, 4 and 5 wait; then A dies. */
    send_ack(&a, id, 1, "");
    for (uint32_t t = 0; t < 4; t++)
        send_started(&a, id, t, 0, 100 + t);
    send_finished(&a, id, 0, SK_TASK_OK, 0, "");
    send_finished(&a, id, 1, SK_TASK_FAILED, 3, "");
    tu_run_for(loop, 0.1);
    tap_ok(r.r_dones == 2 && r.r_starts == 4 && r.r_job_dones == 0,
           "A reports 4 starts and 2 outcomes");
    fake_stop(&a);

    sj = got_submit(&b, 1);
    tap_ok(sj != NULL && sj->sj_job != id && (sj->sj_job >> 63) == 1 &&
               sj->sj_ntasks == 4 && spec_is(sj, 0, 2, 1) &&
               spec_is(sj, 1, 3, 1) && spec_is(sj, 2, 4, 1) &&
               spec_is(sj, 3, 5, 1) && strcmp(sj->sj_user, "ana") == 0 &&
               stats(fe).fs_failed_over == 1 && r.r_job_dones == 0,
           "A lost: B gets only the 4 unfinished tasks, under a new id, "
           "each command told its task index in the job");
    uint64_t wb = sj != NULL ? sj->sj_job : 0;

    /* B runs them; its indices 0..3 are the job's tasks 2..5. */
    send_ack(&b, wb, 1, "");
    send_started(&b, wb, 0, 0, 500);
    tu_run_for(loop, 0.1);
    tap_ok(r.r_starts == 5 && r.r_start_task == 2 && r.r_start_attempt == 1,
           "B's start of its task 0 is the job's task 2, attempt 1 (after "
           "A's attempt 0)");
    send_finished(&b, wb, 0, SK_TASK_OK, 0, "b0");
    send_finished(&b, wb, 1, SK_TASK_OK, 0, "b1");
    /* Stragglers: reports naming A's submission, for a task that ended
     * and for one that is B's now; and a second outcome from B. */
    send_finished(&b, id, 0, SK_TASK_FAILED, 9, "late");
    send_finished(&b, id, 4, SK_TASK_OK, 0, "late");
    send_started(&b, id, 5, 1, 1);
    send_finished(&b, wb, 0, SK_TASK_FAILED, 1, "again");
    tu_run_for(loop, 0.1);
    sk_frontend_stats st = stats(fe);
    tap_ok(r.r_dones == 4 && r.r_outcome[0] == SK_OUTCOME_OK &&
               r.r_outcome[2] == SK_OUTCOME_OK && r.r_done[4] == 0 &&
               strcmp(r.r_output[2], "b0") == 0 && st.fs_stale == 3 &&
               st.fs_duplicate == 1 && r.r_starts == 5,
           "reports naming A's submission (3) and a second outcome from B "
           "are dropped and counted; no outcome changes");
    send_finished(&b, wb, 2, SK_TASK_OK, 0, "");
    send_finished(&b, wb, 3, SK_TASK_FAILED, 2, "");
    send_job_done(&b, wb, 4, 3, 1, 0);
    tu_run_until(loop, job_ended, &r, 5);
    int once = 1;
    for (int t = 0; t < 6; t++)
        once &= r.r_done[t] == 1;
    tap_ok(
        r.r_job_dones == 1 && once && r.r_order_bad == 0 &&
            r.r_jr.jr_job == id && r.r_jr.jr_tasks == 6 && r.r_jr.jr_ok == 4 &&
            r.r_jr.jr_failed == 2 && r.r_jr.jr_lost == 0 &&
            r.r_jr.jr_error == 0 && r.r_jr.jr_failovers == 1 &&
            r.r_outcome[1] == SK_OUTCOME_FAILED &&
            r.r_outcome[5] == SK_OUTCOME_FAILED && r.r_exit[5] == 2 &&
            r.r_attempt[0] == 0 && r.r_attempt[2] == 1 && r.r_attempt[4] == 1 &&
            stats(fe).fs_bad_field == 0 && stats(fe).fs_jobs_in_flight == 0,
        "the job ends once: every task once under its own index, counts "
        "4 ok + 2 failed = 6, no error, 1 failover");
    fake_stop(&b);
    sk_frontend_destroy(fe);
}

/* Submits a job of n tasks (to A, which accepts it; its task 0 ends OK
 * there if one_ok), then loses A. Returns the job's id, and in *sj the
 * resubmission B gets (NULL if none came). */
static sk_job_id move_to_b(sk_frontend *fe, fake *a, fake *b, uint32_t n,
                           rec *r, bool one_ok, const sk_submit_job **sj)
{
    sk_job_id id = submit(fe, n, r);
    got_submit(a, 1);
    send_ack(a, id, 1, "");
    if (one_ok)
        send_finished(a, id, 0, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(a);
    *sj = got_submit(b, 1);
    return id;
}

static void test_failover_limit(void)
{
    fake a, b;
    char aep[64], bep[64];
    start_pair(&a, &b, aep, bep);
    const char *eps[] = {aep, bep};
    max_failovers = 1;
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
    max_failovers = 3;
    rec r;
    memset(&r, 0, sizeof r);
    const sk_submit_job *sj;
    sk_job_id id = move_to_b(fe, &a, &b, 3, &r, true, &sj);
    uint64_t wb = sj != NULL ? sj->sj_job : 0;
    send_ack(&b, wb, 1, "");
    send_started(&b, wb, 1, 0, 10);
    send_finished(&b, wb, 0, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&b);
    tu_run_until(loop, job_ended, &r, 5);
    char want[128];
    snprintf(want, sizeof want, "scheduler lost: %s (after 1 failover)", bep);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_error == SK_ECLOSED &&
               r.r_jr.jr_ok == 2 && r.r_jr.jr_lost == 1 &&
               r.r_jr.jr_failovers == 1 && r.r_outcome[2] == SK_OUTCOME_LOST &&
               r.r_started[2] == 1 && strcmp(r.r_reason[2], want) == 0 &&
               strcmp(r.r_jr_reason, want) == 0 &&
               stats(fe).fs_failed_over == 1,
           "fo_max_failovers 1: lost again, the rest ends LOST with the "
           "reason");
    sk_frontend_destroy(fe);

    /* No other scheduler within fo_queue_timeout: FAILED, as for a job
     * that never reached one; what ended stays. */
    char dead[64];
    snprintf(dead, sizeof dead, "tcp://127.0.0.1:%d", tu_free_port());
    fake_start(&a, loop, NULL, "sched", "sa", SK_ROLE_SCHEDULER);
    snprintf(aep, sizeof aep, "%s", a.fk_endpoint);
    const char *eps2[] = {aep, dead};
    fe = make_frontend(eps2, 2, 0.2, 0.5);
    memset(&r, 0, sizeof r);
    id = submit(fe, 2, &r);
    got_submit(&a, 1);
    send_ack(&a, id, 1, "");
    send_finished(&a, id, 1, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&a);
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_error == SK_ETIMEDOUT &&
               r.r_jr.jr_ok == 1 && r.r_jr.jr_failed == 1 &&
               r.r_outcome[0] == SK_OUTCOME_FAILED &&
               strncmp(r.r_reason[0], "no scheduler reachable", 22) == 0,
           "failing over, no scheduler within fo_queue_timeout: the "
           "unfinished task ends FAILED");
    sk_frontend_destroy(fe);
}

/* A resubmission the next scheduler refuses (it lost its node monitors
 * in the same fault, say) is held two heartbeats and offered again, as a
 * further failover; past fo_max_failovers the refusal stands. */
static void test_failover_refused(void)
{
    fake a, b;
    char aep[64], bep[64];
    start_pair(&a, &b, aep, bep);
    const char *eps[] = {aep, bep};
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
    rec r;
    memset(&r, 0, sizeof r);
    const sk_submit_job *sj;
    sk_job_id id = move_to_b(fe, &a, &b, 3, &r, true, &sj);
    uint64_t w1 = sj != NULL ? sj->sj_job : 0;
    send_ack(&b, w1, 0, "every node monitor is saturated or down");
    tu_run_for(loop, 0.05);
    tap_ok(r.r_job_dones == 0 && r.r_dones == 1 &&
               stats(fe).fs_jobs_rejected == 1 &&
               stats(fe).fs_failed_over == 2 &&
               fake_count(&b, SK_MSG_SUBMIT_JOB) == 1,
           "refused after a failover: no task fails, the job is held");
    sj = got_submit(&b, 2);
    uint64_t w2 = sj != NULL ? sj->sj_job : 0;
    tap_ok(sj != NULL && w2 != w1 && w2 != id && sj->sj_ntasks == 2 &&
               spec_is(sj, 0, 1, 2) && spec_is(sj, 1, 2, 2),
           "two heartbeats later B gets it again under a new id, attempt "
           "numbers after the refused submission's");
    send_ack(&b, w2, 1, "");
    send_finished(&b, w2, 0, SK_TASK_OK, 0, "");
    send_finished(&b, w2, 1, SK_TASK_OK, 0, "");
    send_job_done(&b, w2, 2, 2, 0, 0);
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_ok == 3 && r.r_jr.jr_error == 0 &&
               r.r_jr.jr_failovers == 2 && r.r_attempt[1] == 2,
           "the job ends ok, 2 failovers, attempt 2 for the tasks moved");
    sk_frontend_destroy(fe);

    /* A first submission refused still fails at once. */
    fe = make_frontend(eps, 2, 0.3, 10);
    memset(&r, 0, sizeof r);
    submit(fe, 2, &r);
    sj = got_submit(&b, 3);
    send_ack(&b, sj != NULL ? sj->sj_job : 0, 0, "no node monitors");
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_failed == 2 &&
               r.r_jr.jr_error == SK_EREJECTED && r.r_jr.jr_failovers == 0,
           "a first submission refused still fails at once");
    sk_frontend_destroy(fe);
    fake_stop(&b);

    /* fo_max_failovers 1: the refusal of the one resubmission stands. */
    start_pair(&a, &b, aep, bep);
    max_failovers = 1;
    fe = make_frontend(eps, 2, 0.3, 10);
    max_failovers = 3;
    memset(&r, 0, sizeof r);
    id = move_to_b(fe, &a, &b, 2, &r, false, &sj);
    send_ack(&b, sj != NULL ? sj->sj_job : 0, 0, "no node monitors");
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_failed == 2 &&
               r.r_jr.jr_error == SK_EREJECTED && r.r_jr.jr_failovers == 1 &&
               strcmp(r.r_reason[0], "job rejected: no node monitors") == 0,
           "fo_max_failovers used up: the refusal fails the tasks with the "
           "reason");
    sk_frontend_destroy(fe);

    /* Held, then cancelled: it ends CANCELLED and B hears no more of it. */
    start_pair(&a, &b, aep, bep);
    fe = make_frontend(eps, 2, 0.3, 10);
    memset(&r, 0, sizeof r);
    id = move_to_b(fe, &a, &b, 2, &r, false, &sj);
    send_ack(&b, sj != NULL ? sj->sj_job : 0, 0, "no node monitors");
    tu_run_for(loop, 0.05);
    int held = r.r_job_dones == 0;
    sk_frontend_cancel(fe, id, "enough");
    tu_run_for(loop, 0.4);
    tap_ok(held && r.r_job_dones == 1 && r.r_jr.jr_cancelled == 2 &&
               strcmp(r.r_reason[0], "cancelled while failing over") == 0 &&
               fake_count(&b, SK_MSG_SUBMIT_JOB) == 1,
           "held and cancelled: CANCELLED, and no further submission");
    sk_frontend_destroy(fe);
    fake_stop(&b);
}

static void test_failover_cancel(void)
{
    /* Cancelled while waiting for the next scheduler. */
    fake a, b;
    char dead[64], aep[64], bep[64];
    snprintf(dead, sizeof dead, "tcp://127.0.0.1:%d", tu_free_port());
    fake_start(&a, loop, NULL, "sched", "sa", SK_ROLE_SCHEDULER);
    snprintf(aep, sizeof aep, "%s", a.fk_endpoint);
    const char *eps[] = {aep, dead};
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
    rec r;
    memset(&r, 0, sizeof r);
    sk_job_id id = submit(fe, 3, &r);
    got_submit(&a, 1);
    send_ack(&a, id, 1, "");
    send_finished(&a, id, 0, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&a);
    tu_run_until(loop, fe_waiting, fe, 5);
    tap_ok(stats(fe).fs_jobs_waiting == 1 && r.r_job_dones == 0,
           "A lost, B down: the job waits to fail over");
    tap_is_int(sk_frontend_cancel(fe, id, "stop"), 0, "cancel it");
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_ok == 1 &&
               r.r_jr.jr_cancelled == 2 && r.r_jr.jr_error == 0 &&
               strcmp(r.r_reason[2], "cancelled while failing over") == 0,
           "at once: its unfinished tasks end CANCELLED, the one that "
           "ended stays OK");
    sk_frontend_destroy(fe);

    /* Cancelled after it moved: the cancel goes to B, under B's id. */
    start_pair(&a, &b, aep, bep);
    const char *eps2[] = {aep, bep};
    fe = make_frontend(eps2, 2, 0.3, 10);
    memset(&r, 0, sizeof r);
    id = submit(fe, 3, &r);
    got_submit(&a, 1);
    send_ack(&a, id, 1, "");
    send_finished(&a, id, 2, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&a);
    const sk_submit_job *sj = got_submit(&b, 1);
    uint64_t wb = sj != NULL ? sj->sj_job : 0;
    send_ack(&b, wb, 1, "");
    tu_run_for(loop, 0.05);
    sk_frontend_cancel(fe, id, "enough");
    fake_wait_count(&b, SK_MSG_CANCEL_JOB, 1, 5);
    const sk_msg *m = fake_last(&b, SK_MSG_CANCEL_JOB);
    tap_ok(m != NULL && m->m_cancel_job.cj_job == wb,
           "a cancel after the failover names B's submission");
    send_finished(&b, wb, 0, SK_TASK_CANCELLED, -1, "");
    send_finished(&b, wb, 1, SK_TASK_CANCELLED, -1, "");
    send_job_done(&b, wb, 2, 0, 0, 2);
    tu_run_until(loop, job_ended, &r, 5);
    tap_ok(r.r_job_dones == 1 && r.r_jr.jr_ok == 1 &&
               r.r_jr.jr_cancelled == 2 && r.r_jr.jr_error == 0 &&
               r.r_outcome[0] == SK_OUTCOME_CANCELLED &&
               r.r_outcome[1] == SK_OUTCOME_CANCELLED &&
               r.r_outcome[2] == SK_OUTCOME_OK && r.r_jr.jr_failovers == 1,
           "B's CANCELLED reports map to tasks 0 and 1; task 2 stays OK");
    fake_stop(&b);
    sk_frontend_destroy(fe);
}

/* An executor framework's specs are opaque: they move as they are. A
 * command whose first line would not fit under the spec limit moves as
 * it is too. */
static void test_failover_specs(void)
{
    static char big[SK_MAX_SPEC_BYTES];
    memset(big, 'x', sizeof big - 40);
    big[sizeof big - 40] = '\0'; /* a command 40 bytes short of the limit */
    for (int fw = 1; fw >= 0; fw--) {
        fake a, b;
        char aep[64], bep[64];
        start_pair(&a, &b, aep, bep);
        const char *eps[] = {aep, bep};
        sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);
        sk_task_desc td[2] = {{.td_spec = "t0", .td_spec_len = 2},
                              {.td_spec = big, .td_spec_len = 0}};
        td[1].td_spec_len = (uint32_t)strlen(big);
        if (fw)
            td[1] = (sk_task_desc){.td_spec = "t1", .td_spec_len = 2};
        sk_job_desc jd;
        sk_job_desc_init(&jd);
        jd.jo_framework = fw ? "fw" : NULL;
        jd.jo_tasks = td;
        jd.jo_ntasks = 2;
        rec r;
        memset(&r, 0, sizeof r);
        sk_job_callbacks cb = callbacks(&r);
        sk_job_id id;
        sk_frontend_submit(fe, &jd, &cb, &id);
        got_submit(&a, 1);
        send_ack(&a, id, 1, "");
        send_finished(&a, id, 0, SK_TASK_OK, 0, "");
        tu_run_for(loop, 0.1);
        fake_stop(&a);
        const sk_submit_job *sj = got_submit(&b, 1);
        if (fw)
            tap_ok(sj != NULL && sj->sj_ntasks == 1 &&
                       strcmp(sj->sj_framework, "fw") == 0 &&
                       sj->sj_tasks[0].ts_spec.b_len == 2 &&
                       memcmp(sj->sj_tasks[0].ts_spec.b_data, "t1", 2) == 0,
                   "failover: an executor framework's spec moves as it is");
        else
            tap_ok(sj != NULL && sj->sj_ntasks == 1 &&
                       sj->sj_tasks[0].ts_spec.b_len == strlen(big) + 1 &&
                       memcmp(sj->sj_tasks[0].ts_spec.b_data, big,
                              strlen(big) + 1) == 0,
                   "failover: a command with no room for its first line "
                   "moves as it is");
        fake_stop(&b);
        sk_frontend_destroy(fe);
    }
}

/* --- the flow path's fields --------------------------------------------- */

/* Whether task i of sj prefers exactly the n racks of want. */
static int racks_are(const sk_submit_job *sj, uint32_t i,
                     const char *const *want, uint32_t n)
{
    if (i >= sj->sj_ntasks || sj->sj_tasks[i].ts_nracks != n)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(sj->sj_tasks[i].ts_racks[k], want[k]) != 0)
            return 0;
    return 1;
}

/* Whether no task of sj carries the fields only a scheduler may set. */
static int no_sched_fields(const sk_submit_job *sj)
{
    for (uint32_t i = 0; i < sj->sj_ntasks; i++)
        if (sj->sj_tasks[i].ts_attempt != 0 || sj->sj_tasks[i].ts_done)
            return 0;
    return 1;
}

/* A long job with preferred racks, placed by the flow node: the fields
 * reach the wire, and move with a failover; the defaults are a short job
 * placed by sampling, without racks. */
static void test_flow_fields(void)
{
    fake a, b;
    char aep[64], bep[64];
    start_pair(&a, &b, aep, bep);
    const char *eps[] = {aep, bep};
    sk_frontend *fe = make_frontend(eps, 2, 0.3, 10);

    rec r0;
    memset(&r0, 0, sizeof r0);
    submit(fe, 2, &r0);
    const sk_submit_job *sj = got_submit(&a, 1);
    tap_ok(sj != NULL && !sj->sj_long &&
               sj->sj_placement == SK_PLACEMENT_SAMPLE &&
               sj->sj_tasks[0].ts_nracks == 0 &&
               sj->sj_tasks[1].ts_nracks == 0 && no_sched_fields(sj),
           "by default a job is short, placed by sampling, without racks");

    const char *r12[] = {"r1", "r2"}, *r3[] = {"r3"}, *n1[] = {"n1"};
    sk_task_desc td[3] = {
        {.td_spec = "svc a", .td_spec_len = 5, .td_racks = r12, .td_nracks = 2},
        {.td_spec = "svc b", .td_spec_len = 5},
        {.td_spec = "svc c",
         .td_spec_len = 5,
         .td_preferred = n1,
         .td_npreferred = 1,
         .td_racks = r3,
         .td_nracks = 1}};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_tasks = td;
    jd.jo_ntasks = 3;
    jd.jo_long = 7; /* any nonzero value */
    jd.jo_placement = SK_PLACEMENT_FLOW;
    rec r1;
    memset(&r1, 0, sizeof r1);
    sk_job_callbacks cb = callbacks(&r1);
    sk_job_id id;
    tap_is_int(sk_frontend_submit(fe, &jd, &cb, &id), 0,
               "a long job with racks and placement flow is taken");
    sj = got_submit(&a, 2);
    tap_ok(sj != NULL && sj->sj_job == id && sj->sj_long &&
               sj->sj_placement == SK_PLACE_FLOW && racks_are(sj, 0, r12, 2) &&
               racks_are(sj, 1, NULL, 0) && racks_are(sj, 2, r3, 1) &&
               sj->sj_tasks[2].ts_npreferred == 1 &&
               strcmp(sj->sj_tasks[2].ts_preferred[0], "n1") == 0 &&
               no_sched_fields(sj),
           "SUBMIT_JOB says long, placement flow, each task's racks; "
           "attempt 0 and not done");

    /* A runs task 1 to its end, then dies: B gets tasks 0 and 2 with
     * their racks, still long and placed by flow. */
    send_ack(&a, id, 1, "");
    send_finished(&a, id, 1, SK_TASK_OK, 0, "");
    tu_run_for(loop, 0.1);
    fake_stop(&a);
    sj = got_submit(&b, 1);
    tap_ok(sj != NULL && sj->sj_job != id && sj->sj_ntasks == 2 &&
               sj->sj_long && sj->sj_placement == SK_PLACE_FLOW &&
               racks_are(sj, 0, r12, 2) && racks_are(sj, 1, r3, 1) &&
               strcmp(sj->sj_tasks[1].ts_preferred[0], "n1") == 0 &&
               no_sched_fields(sj),
           "failover: the resubmission is long, placed by flow, and its "
           "tasks keep their racks");
    uint64_t wb = sj != NULL ? sj->sj_job : 0;
    send_ack(&b, wb, 1, "");
    send_finished(&b, wb, 0, SK_TASK_OK, 0, "b0");
    send_finished(&b, wb, 1, SK_TASK_OK, 0, "b1");
    send_job_done(&b, wb, 2, 2, 0, 0);
    tu_run_until(loop, job_ended, &r1, 5);
    tap_ok(r1.r_job_dones == 1 && r1.r_jr.jr_ok == 3 &&
               strcmp(r1.r_output[0], "b0") == 0 &&
               strcmp(r1.r_output[2], "b1") == 0 && stats(fe).fs_bad_field == 0,
           "B's outcomes map back to tasks 0 and 2");
    fake_stop(&b);
    sk_frontend_destroy(fe);
}

/* Bad placements and racks are refused before anything is sent, with a
 * reason; the error is cleared by the next submission that is taken. */
static void test_flow_refusals(void)
{
    const char *eps[] = {"tcp://127.0.0.1:1"};
    sk_frontend *fe = make_frontend(eps, 1, 1, 0);
    sk_task_desc td = {.td_spec = "x", .td_spec_len = 1};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_tasks = &td;
    jd.jo_ntasks = 1;
    jd.jo_placement = (sk_job_placement)2;
    int rc = sk_frontend_submit(fe, &jd, NULL, NULL);
    tap_ok(rc == SK_EINVAL &&
               strcmp(sk_frontend_error(fe),
                      "placement 2 is not SK_PLACEMENT_SAMPLE (0) or "
                      "SK_PLACEMENT_FLOW (1)") == 0,
           "placement 2 is refused: %s", sk_frontend_error(fe));
    jd.jo_placement = (sk_job_placement)-1;
    tap_is_int(sk_frontend_submit(fe, &jd, NULL, NULL), SK_EINVAL,
               "placement -1 is refused");
    jd.jo_placement = SK_PLACEMENT_FLOW;

    static char longname[SK_MAX_NAME_LEN + 2];
    memset(longname, 'r', sizeof longname - 1);
    const char *many[SK_MAX_PREFERRED + 1];
    for (unsigned i = 0; i <= SK_MAX_PREFERRED; i++)
        many[i] = "r";
    const char *with_null[] = {"r1", NULL}, *with_empty[] = {"", "r2"};
    const char *with_space[] = {"r1", "r2", "rack 3"};
    const char *too_long[] = {longname};
    struct {
        const char *const *racks;
        unsigned n;
        int rc;
        const char *err;
    } bad[] = {
        {many, SK_MAX_PREFERRED + 1, SK_ELIMIT,
         "task 1: 17 preferred racks is over the limit of 16"},
        {NULL, 1, SK_EINVAL, "task 1: preferred rack 0 is empty"},
        {with_null, 2, SK_EINVAL, "task 1: preferred rack 1 is empty"},
        {with_empty, 2, SK_EINVAL, "task 1: preferred rack 0 is empty"},
        {with_space, 3, SK_EINVAL,
         "task 1: preferred rack 2 holds a space, a control or a non-ASCII "
         "byte"},
        {too_long, 1, SK_ELIMIT,
         "task 1: a preferred rack name of 256 bytes is over the limit of "
         "255"},
    };
    sk_task_desc two[2] = {{.td_spec = "x",
                            .td_spec_len = 1,
                            .td_racks = many,
                            .td_nracks = SK_MAX_PREFERRED},
                           {.td_spec = "y", .td_spec_len = 1}};
    jd.jo_tasks = two;
    jd.jo_ntasks = 2;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        two[1].td_racks = bad[i].racks;
        two[1].td_nracks = bad[i].n;
        rc = sk_frontend_submit(fe, &jd, NULL, NULL);
        tap_ok(rc == bad[i].rc &&
                   strcmp(sk_frontend_error(fe), bad[i].err) == 0,
               "refused: %s", sk_frontend_error(fe));
    }
    longname[SK_MAX_NAME_LEN] = '\0';
    two[1].td_racks = too_long;
    two[1].td_nracks = 1;
    tap_ok(sk_frontend_submit(fe, &jd, NULL, NULL) == 0 &&
               strcmp(sk_frontend_error(fe), "") == 0,
           "16 racks, and a rack name of 255 bytes, are taken; the error "
           "is cleared");
    tap_is_int((int)stats(fe).fs_jobs_submitted, 1,
               "nothing refused was counted as submitted");
    sk_frontend_destroy(fe);
}

/* --- blocking mode ------------------------------------------------------ */

/* A fake scheduler that runs every job at once: all tasks OK. */
static void run_everything(fake *f, sk_peer_id from, const sk_msg *msg)
{
    if (msg->m_type != SK_MSG_SUBMIT_JOB)
        return;
    const sk_submit_job *sj = &msg->m_submit_job;
    send_ack(f, sj->sj_job, 1, "");
    for (uint32_t t = 0; t < sj->sj_ntasks; t++) {
        send_started(f, sj->sj_job, t, 0, 10);
        send_finished(f, sj->sj_job, t, SK_TASK_OK, 0, "");
    }
    send_job_done(f, sj->sj_job, sj->sj_ntasks, sj->sj_ntasks, 0, 0);
}

static void test_blocking(void)
{
    sk_frontend_opts o;
    sk_frontend_opts_init(&o);
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    const char *eps[] = {ep};
    o.fo_schedulers = eps;
    o.fo_nschedulers = 1;
    o.fo_heartbeat = 0.1;
    sk_frontend *fe;
    tap_is_int(sk_frontend_create(NULL, &o, &fe), 0,
               "a blocking frontend (own loop)");
    /* The fake scheduler lives on the frontend's private loop, which runs
     * only inside the waits. */
    fake s;
    fake_start(&s, sk_frontend_loop(fe), ep, "sched", "s1", SK_ROLE_SCHEDULER);
    s.fk_auto = run_everything;
    tap_is_int(sk_frontend_wait_connected(fe, 5), 0, "wait_connected");
    sk_task_desc td[3] = {{.td_spec = "a", .td_spec_len = 1},
                          {.td_spec = "b", .td_spec_len = 1},
                          {.td_spec = "c", .td_spec_len = 1}};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_tasks = td;
    jd.jo_ntasks = 3;
    sk_job_id a, b;
    sk_frontend_submit(fe, &jd, NULL, &a);
    jd.jo_ntasks = 2;
    sk_frontend_submit(fe, &jd, NULL, &b);
    sk_job_result jr;
    int rc = sk_frontend_wait_job(fe, b, 5, &jr);
    tap_ok(rc == 0 && jr.jr_job == b && jr.jr_tasks == 2 && jr.jr_ok == 2,
           "wait_job returns the second job's result");
    tap_ok(s.fk_nmsgs > 0 && fake_last(&s, SK_MSG_SUBMIT_JOB) != NULL &&
               strlen(fake_last(&s, SK_MSG_SUBMIT_JOB)->m_submit_job.sj_user) >
                   0,
           "a job without a user is submitted as the process's user");
    rc = sk_frontend_wait_job(fe, a, 0.01, &jr);
    tap_ok(rc == 0 && jr.jr_job == a && jr.jr_ok == 3,
           "the first job, ended meanwhile, kept its result for the wait");
    tap_is_int(sk_frontend_wait_job(fe, a, 0.01, &jr), SK_ENOTFOUND,
               "a result is handed over once");
    tap_is_int(sk_frontend_wait_idle(fe, 1), 0, "wait_idle");
    fake_stop(&s);
    sk_frontend_destroy(fe);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    sk_log_set_level(SK_LOG_OFF);
    loop = ev_loop_new(EVFLAG_AUTO);
    test_submit_and_outcomes();
    test_no_scheduler();
    test_fallback();
    test_wrong_role();
    test_refusals();
    test_failover();
    test_failover_limit();
    test_failover_refused();
    test_failover_cancel();
    test_failover_specs();
    test_flow_fields();
    test_flow_refusals();
    test_blocking();
    ev_loop_destroy(loop);
    tap_done();
    return tap_exit_status();
}
