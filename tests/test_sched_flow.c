/*
 * test_sched_flow.c - the scheduler core's flow path (sched_flow.c):
 * long jobs handed to flowd and their reports relayed, fallback of short
 * tasks sampling cannot place, cancellation, a flowd restart, and input
 * that makes no sense for a flow task.
 */
#include "sched_testutil.h"
#include "tap.h"

#include <string.h>

#define FLOWD 500u

/* flowd_inc is the incarnation flowd_up announces: a restart changes it. */
static uint64_t flowd_inc = 1;

static void flowd_up(sched_core *c)
{
    sched_peer_up(
        c, FLOWD,
        &(sk_hello){.he_role = SK_ROLE_FLOWD, .he_incarnation = flowd_inc}, 0);
}

/* submit sends a job of n tasks; long_job or placement as given. */
static void submit(sched_core *c, uint64_t id, uint32_t n, bool long_job,
                   uint8_t placement, const char **pref, sk_time now)
{
    sk_task_spec ts[8];
    memset(ts, 0, sizeof ts);
    for (uint32_t i = 0; i < n; i++) {
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)"svc", 3};
        if (pref != NULL) {
            ts[i].ts_preferred = pref;
            ts[i].ts_npreferred = 1;
        }
    }
    static const char *rack[] = {"r1"};
    ts[0].ts_racks = rack;
    ts[0].ts_nracks = 1;
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = id,
                                     .sj_user = "alice",
                                     .sj_framework = "",
                                     .sj_long = long_job,
                                     .sj_placement = placement,
                                     .sj_tasks = ts,
                                     .sj_ntasks = n};
    sched_on_message(c, ST_FE, &m, now);
}

static const sk_submit_job *handed(sched_core *c, uint32_t n)
{
    const sk_out *o = st_nth(c, SK_MSG_SUBMIT_JOB, n);
    return o != NULL && o->o_peer == FLOWD ? &o->o_msg.m_submit_job : NULL;
}

static const sk_task_finished *to_fe(sched_core *c, uint32_t n)
{
    const sk_out *o = st_nth(c, SK_MSG_TASK_FINISHED, n);
    return o != NULL && o->o_peer == ST_FE ? &o->o_msg.m_task_finished : NULL;
}

static void from_flowd_finished(sched_core *c, uint64_t id, uint32_t task,
                                uint32_t attempt, uint8_t status)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished = (sk_task_finished){.tf_job = id,
                                           .tf_task = task,
                                           .tf_attempt = attempt,
                                           .tf_node = "",
                                           .tf_status = status};
    sched_on_message(c, FLOWD, &m, 0);
}

static void test_long_job(void)
{
    sched_core *c;
    sched_new(NULL, 1, &c);
    st_nodes_up(c, 3);
    st_fe_up(c, ST_FE);
    submit(c, 7, 3, true, 0, NULL, 0);
    const sk_out *rej = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    tap_ok(rej != NULL &&
               strstr(rej->o_msg.m_job_ack.ja_reason, "no flow node") != NULL,
           "without flowd a long job is rejected: %s",
           rej != NULL ? rej->o_msg.m_job_ack.ja_reason : "(none)");
    st_clear(c);

    flowd_up(c);
    submit(c, 7, 3, true, 0, NULL, 0);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE) == 1 && sj != NULL &&
               sj->sj_long && sj->sj_ntasks == 3 &&
               st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) == 0,
           "a long job is accepted and handed to flowd whole, unprobed");
    tap_ok(sj != NULL && sj->sj_job != 7 && sj->sj_tasks[0].ts_nracks == 1 &&
               strcmp(sj->sj_tasks[0].ts_racks[0], "r1") == 0 &&
               sj->sj_tasks[1].ts_attempt == 0 && !sj->sj_tasks[1].ts_done &&
               sj->sj_tasks[2].ts_spec.b_len == 3,
           "under its own id, with racks, specs and attempt 0");
    uint64_t id = sj != NULL ? sj->sj_job : 0;
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 7, 1, &s, &att, &on);
    tap_ok(s == SCHED_TASK_FLOW, "its tasks are held by flowd");

    st_clear(c);
    st_started(c, 2, id, 1, 0, 100);
    const sk_out *o = st_nth(c, SK_MSG_TASK_STARTED, 0);
    tap_ok(o != NULL && o->o_peer == ST_FE &&
               o->o_msg.m_task_started.st_job == 7 &&
               o->o_msg.m_task_started.st_task == 1 &&
               strcmp(o->o_msg.m_task_started.st_node, "node2") == 0,
           "a node's TASK_STARTED reaches the frontend in its ids");
    sched_task_get(c, ST_FE, 7, 1, &s, &att, &on);
    tap_ok(s == SCHED_TASK_RUNNING && on == 2, "the task runs on node2");

    st_clear(c);
    st_finished(c, 3, id, 1, 0, SK_TASK_OK, 200);
    tap_ok(to_fe(c, 0) == NULL && sched_stats_get(c)->ss_bad_peer == 1,
           "an outcome from another node is refused");
    st_finished(c, 2, id, 1, 0, SK_TASK_OK, 200);
    const sk_out *fwd = st_nth(c, SK_MSG_TASK_FINISHED, 0);
    const sk_out *rep = st_nth(c, SK_MSG_TASK_FINISHED, 1);
    const sk_task_finished *tf = rep != NULL && rep->o_peer == ST_FE
                                     ? &rep->o_msg.m_task_finished
                                     : NULL;
    tap_ok(tf != NULL && tf->tf_job == 7 && tf->tf_task == 1 &&
               tf->tf_status == SK_TASK_OK && fwd != NULL &&
               fwd->o_peer == FLOWD && fwd->o_msg.m_task_finished.tf_job == id,
           "its outcome reaches the frontend, and flowd too");
    st_clear(c);
    st_finished(c, 2, id, 1, 0, SK_TASK_OK, 200);
    tap_ok(to_fe(c, 0) == NULL, "a second outcome is dropped");

    from_flowd_finished(c, id, 0, 0, SK_TASK_LOST);
    tf = to_fe(c, 0);
    tap_ok(tf != NULL && tf->tf_task == 0 && tf->tf_status == SK_TASK_LOST,
           "flowd giving a task up ends it LOST");

    /* Its session ends and comes back, the same flowd (it held our work,
     * sched_grace_ms): the hand-over goes again, attempts unchanged. */
    st_clear(c);
    sched_peer_down(c, FLOWD, 250);
    flowd_up(c);
    sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_job == id && sj->sj_tasks[0].ts_done &&
               sj->sj_tasks[1].ts_done && !sj->sj_tasks[2].ts_done &&
               sj->sj_tasks[2].ts_attempt == 0,
           "the same flowd back: ended tasks done, attempts unchanged");

    /* flowd restarts: the hand-over goes again, same id and numbering. */
    st_clear(c);
    sched_peer_down(c, FLOWD, 300);
    flowd_inc++;
    flowd_up(c);
    sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_job == id && sj->sj_ntasks == 3 &&
               sj->sj_tasks[0].ts_done && sj->sj_tasks[1].ts_done &&
               !sj->sj_tasks[2].ts_done && sj->sj_tasks[2].ts_attempt == 1,
           "a restarted flowd gets it again: ended tasks done, attempts on");
    st_clear(c);
    st_started(c, 1, id, 2, 0, 400);
    tap_ok(st_count(c, SK_MSG_TASK_STARTED, ST_FE) == 0 &&
               sched_stats_get(c)->ss_stale == 1,
           "an attempt of the lost flowd's numbering is stale");

    sk_msg cj = {.m_type = SK_MSG_CANCEL_JOB};
    cj.m_cancel_job = (sk_cancel_job){.cj_job = 7, .cj_reason = ""};
    sched_on_message(c, ST_FE, &cj, 500);
    o = st_nth(c, SK_MSG_CANCEL_JOB, 0);
    tf = to_fe(c, 0);
    const sk_out *done = st_nth(c, SK_MSG_JOB_DONE, 0);
    tap_ok(o != NULL && o->o_peer == FLOWD &&
               o->o_msg.m_cancel_job.cj_job == id && tf != NULL &&
               tf->tf_status == SK_TASK_CANCELLED && done != NULL &&
               done->o_msg.m_job_done.jd_ok == 1 &&
               done->o_msg.m_job_done.jd_lost == 1 &&
               done->o_msg.m_job_done.jd_cancelled == 1,
           "cancel: flowd told, the last task CANCELLED, JOB_DONE adds up");
    st_clear(c);
    st_started(c, 1, id, 2, 1, 600);
    tap_ok(st_count(c, SK_MSG_TASK_STARTED, ST_FE) == 0,
           "reports after the job ended go nowhere");
    sched_free(c);
}

/* one_long_task: a core (seed) with 2 nodes, the frontend and flowd up,
 * and a long job of one task (frontend id job) handed over; returns the
 * hand-over's id. */
static uint64_t one_long_task(sched_core **c, uint32_t seed, uint64_t job)
{
    sched_new(NULL, seed, c);
    st_nodes_up(*c, 2);
    st_fe_up(*c, ST_FE);
    flowd_up(*c);
    submit(*c, job, 1, true, 0, NULL, 0);
    const sk_submit_job *sj = handed(*c, 0);
    return sj != NULL ? sj->sj_job : 0;
}

static void test_running_node_lost(void)
{
    sched_core *c;
    uint64_t id = one_long_task(&c, 2, 1);
    st_started(c, 2, id, 0, 0, 10);
    st_clear(c);
    sched_peer_down(c, 2, 20);
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_FLOW && to_fe(c, 0) == NULL,
           "its node lost, a flow task waits for flowd's re-plan, unreported");
    st_started(c, 1, id, 0, 1, 30);
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_RUNNING && on == 1 && att == 1,
           "the next attempt runs where flowd placed it");
    st_clear(c);
    sched_peer_down(c, ST_FE, 40);
    const sk_out *k = st_nth(c, SK_MSG_KILL_TASK, 0);
    tap_ok(st_count(c, SK_MSG_CANCEL_JOB, FLOWD) == 1 && k != NULL &&
               k->o_peer == 1 && k->o_msg.m_kill_task.kt_job == id &&
               k->o_msg.m_kill_task.kt_attempt == 1,
           "its frontend gone: flowd told, the attempt killed in flowd's ids");
    sched_free(c);
}

static void test_fallback(void)
{
    sched_core *c;
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_fallback_ms = 1000;
    cfg.sc_probe_saturated = false; /* saturated nodes are not probed */
    sched_new(&cfg, 3, &c);
    st_nodes_up(c, 2);
    st_fe_up(c, ST_FE);
    static const char *gone[] = {"node9"};
    submit(c, 1, 1, false, 0, gone, 0);
    const sk_task_finished *tf = to_fe(c, 0);
    tap_ok(tf != NULL && tf->tf_status == SK_TASK_FAILED,
           "without flowd a task with no live preferred node fails");
    st_clear(c);

    flowd_up(c);
    submit(c, 2, 1, false, 0, gone, 0);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(to_fe(c, 0) == NULL && sj != NULL && !sj->sj_long &&
               sj->sj_ntasks == 1 && sj->sj_tasks[0].ts_npreferred == 1 &&
               strcmp(sj->sj_tasks[0].ts_preferred[0], "node9") == 0,
           "with flowd it is handed over, preferences and all");
    st_clear(c);

    sk_member sat[2] = {{.me_id = 1,
                         .me_name = "node1",
                         .me_addr = "",
                         .me_state = SK_NODE_SATURATED},
                        {.me_id = 2,
                         .me_name = "node2",
                         .me_addr = "",
                         .me_state = SK_NODE_SATURATED}};
    sk_msg mb = {.m_type = SK_MSG_MEMBERSHIP};
    mb.m_membership =
        (sk_membership){.mb_epoch = 1, .mb_nodes = sat, .mb_nnodes = 2};
    sched_on_message(c, FLOWD, &mb, 0);
    submit(c, 9, 2, false, 0, NULL, 0);
    sj = handed(c, 0);
    tap_ok(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE) == 1 && sj != NULL &&
               sj->sj_ntasks == 2 && !sj->sj_long,
           "every node saturated: a short job goes to flowd, not refused");
    sat[0].me_state = sat[1].me_state = SK_NODE_UP;
    sched_on_message(c, FLOWD, &mb, 0);
    st_clear(c);

    submit(c, 3, 4, false, SK_PLACE_FLOW, NULL, 0);
    sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_ntasks == 4 &&
               st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) == 0,
           "placement flow: the whole job to flowd, no probe");
    st_clear(c);

    submit(c, 4, 4, false, 0, NULL, 10000);
    tap_ok(st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) > 0 &&
               handed(c, 0) == NULL,
           "a short job is sampled first");
    tap_is_int((int64_t)sched_next_deadline(c), 1010000,
               "its fallback is due 1 s after acceptance");
    st_clear(c);
    sched_on_timer(c, 1009999);
    tap_ok(handed(c, 0) == NULL, "not before");
    sched_on_timer(c, 1010000);
    sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_ntasks == 4 &&
               st_count(c, SK_MSG_CANCEL_RESERVATIONS, UINT32_MAX) > 0,
           "then its pending tasks go to flowd, their probes withdrawn");
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 4, &ji);
    tap_ok(ji.ji_flow == 4 && ji.ji_pending == 0 && ji.ji_resv == 0 &&
               sched_next_deadline(c) == SK_TIME_NEVER,
           "4 tasks held by flowd, none pending, nothing left to time");
    tap_is_int((int64_t)sched_stats_get(c)->ss_fallback_tasks, 7,
               "fallbacks counted: 1 by preference, 2 saturated, 4 by time");

    st_clear(c);
    sk_msg rj = {.m_type = SK_MSG_JOB_REJECTED};
    rj.m_job_ack = (sk_job_ack){.ja_job = sj->sj_job, .ja_reason = "full"};
    sched_on_message(c, FLOWD, &rj, 1020000);
    tf = to_fe(c, 3);
    tap_ok(tf != NULL && tf->tf_status == SK_TASK_FAILED &&
               tf->tf_output.b_len > 4 &&
               memcmp(tf->tf_output.b_data + tf->tf_output.b_len - 4, "full",
                      4) == 0 &&
               st_count(c, SK_MSG_JOB_DONE, ST_FE) == 1,
           "flowd refusing it fails the tasks with its reason");
    sched_on_message(c, 2, &rj, 1020000);
    tap_is_int((int64_t)sched_stats_get(c)->ss_bad_peer, 1,
               "an answer from someone not flowd is refused");
    sched_free(c);
}

/* Placement constraints are the flow path's: such a job goes to flowd
 * whole, its constraints and tags with it. */
static void test_constraints(void)
{
    sched_core *c;
    sched_new(NULL, 5, &c);
    st_nodes_up(c, 2);
    st_fe_up(c, ST_FE);
    const char *zk[] = {"zk"};
    sk_task_spec ts[2] = {
        {.ts_spec = {(const uint8_t *)"a", 1}, .ts_tags = zk, .ts_ntags = 1},
        {.ts_spec = {(const uint8_t *)"b", 1}, .ts_tags = zk, .ts_ntags = 1}};
    sk_constraint cn = {.cn_source = "zk",
                        .cn_count = 2,
                        .cn_group = SK_GROUP_NODE,
                        .cn_label = "",
                        .cn_target = "zk"};
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = 1,
                                     .sj_user = "u",
                                     .sj_tasks = ts,
                                     .sj_ntasks = 2,
                                     .sj_constraints = &cn,
                                     .sj_nconstraints = 1};
    sched_on_message(c, ST_FE, &m, 0);
    tap_ok(st_count(c, SK_MSG_JOB_REJECTED, ST_FE) == 1,
           "a constrained job without flowd is rejected");
    st_clear(c);
    flowd_up(c);
    sched_on_message(c, ST_FE, &m, 0);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_nconstraints == 1 && sj->sj_ntasks == 2 &&
               strcmp(sj->sj_constraints[0].cn_target, "zk") == 0 &&
               sj->sj_constraints[0].cn_count == 2 &&
               sj->sj_tasks[1].ts_ntags == 1 &&
               strcmp(sj->sj_tasks[1].ts_tags[0], "zk") == 0 &&
               st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) == 0,
           "with flowd it goes there whole, constraints and tags copied");
    sched_free(c);
}

static void test_frontend_fields(void)
{
    sched_core *c;
    sched_new(NULL, 4, &c);
    st_nodes_up(c, 1);
    st_fe_up(c, ST_FE);
    flowd_up(c);
    sk_task_spec ts = {.ts_spec = {(const uint8_t *)"x", 1}, .ts_done = true};
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){
        .sj_job = 1, .sj_user = "u", .sj_tasks = &ts, .sj_ntasks = 1};
    sched_on_message(c, ST_FE, &m, 0);
    tap_ok(st_count(c, SK_MSG_JOB_REJECTED, ST_FE) == 1,
           "a frontend may not mark a task done");
    ts.ts_done = false;
    ts.ts_attempt = 3;
    sched_on_message(c, ST_FE, &m, 0);
    tap_ok(st_count(c, SK_MSG_JOB_REJECTED, ST_FE) == 2, "nor set its attempt");
    sched_free(c);
}

/* A flowd whose session is down for a moment: a long job is accepted and
 * held, and handed over when flowd is back. */
static void test_flowd_away(void)
{
    sched_core *c;
    sched_new(NULL, 1, &c);
    st_nodes_up(c, 3);
    st_fe_up(c, ST_FE);
    flowd_up(c);
    sched_peer_down(c, FLOWD, 10);
    st_clear(c);
    submit(c, 9, 2, true, 0, NULL, 20);
    tap_ok(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE) == 1 &&
               st_count(c, SK_MSG_JOB_REJECTED, ST_FE) == 0 &&
               handed(c, 0) == NULL,
           "flowd away: a long job is accepted and held, not sent");
    st_clear(c);
    flowd_up(c);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_long && sj->sj_ntasks == 2,
           "flowd back: the held job is handed over");
    sched_free(c);
}

/* A keyed long job (protocol 4): the hand-over keeps the key and refs;
 * a KILLED report the core did not ask for is flowd moving the task;
 * an offered outcome ends a task flowd holds, and flowd is told. */
static void test_keyed(void)
{
    sched_core *c;
    sched_new(NULL, 3, &c);
    st_nodes_up(c, 2);
    st_fe_up(c, ST_FE);
    flowd_up(c);
    sk_task_spec ts[3];
    memset(ts, 0, sizeof ts);
    for (uint32_t i = 0; i < 3; i++) {
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)"svc", 3};
        ts[i].ts_ref = 2 * i + 3;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = 4,
                                     .sj_user = "alice",
                                     .sj_framework = "",
                                     .sj_long = true,
                                     .sj_tasks = ts,
                                     .sj_ntasks = 3,
                                     .sj_key = 0xabcdef};
    sched_on_message(c, ST_FE, &m, 0);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(sj != NULL && sj->sj_key == 0xabcdef &&
               sj->sj_tasks[0].ts_ref == 3 && sj->sj_tasks[2].ts_ref == 7,
           "the hand-over carries the job's key and its tasks' refs");
    uint64_t id = sj != NULL ? sj->sj_job : 0;

    st_started(c, 2, id, 0, 0, 10);
    st_clear(c);
    st_finished(c, 2, id, 0, 0, SK_TASK_KILLED, 20);
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 4, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_FLOW && to_fe(c, 0) == NULL &&
               st_count(c, SK_MSG_TASK_FINISHED, FLOWD) == 0 &&
               sched_stats_get(c)->ss_flow_moved == 1,
           "a kill flowd asked for: the task is held again, unreported");
    st_started(c, 1, id, 0, 1, 30);
    st_finished(c, 1, id, 0, 1, SK_TASK_OK, 40);
    const sk_task_finished *tf = to_fe(c, 1); /* after flowd's copy */
    tap_ok(tf != NULL && tf->tf_task == 0 && tf->tf_status == SK_TASK_OK &&
               tf->tf_attempt == 1,
           "its next attempt's outcome is the task's");

    st_clear(c);
    sk_msg o = {.m_type = SK_MSG_TASK_OUTCOME};
    o.m_task_outcome = (sk_task_outcome){.to_key = 0xabcdef,
                                         .to_ref = 5,
                                         .to_user = "alice",
                                         .to_node = "node2",
                                         .to_status = SK_TASK_OK};
    st_node_msg(c, 2, &o, 50);
    tf = to_fe(c, 1); /* flowd is told first */
    const sk_out *fl = st_nth(c, SK_MSG_TASK_FINISHED, 0);
    tap_ok(tf != NULL && tf->tf_task == 1 && tf->tf_status == SK_TASK_OK &&
               fl != NULL && fl->o_peer == FLOWD &&
               fl->o_msg.m_task_finished.tf_job == id &&
               fl->o_msg.m_task_finished.tf_task == 1,
           "an offer ends a task flowd holds, and flowd is told");
    sched_free(c);
}

/* Preempted twice (skylark-sim's fair shares with preemption stop a task
 * up to 13 times): each KILLED the core did not ask for holds the task
 * again, a stale one is dropped, and only the attempt that ends is the
 * task's outcome; the job is done then. */
static void test_preempted_twice(void)
{
    sched_core *c;
    uint64_t id = one_long_task(&c, 4, 9);
    st_started(c, 1, id, 0, 0, 10);
    st_finished(c, 1, id, 0, 0, SK_TASK_KILLED, 20);
    st_started(c, 2, id, 0, 1, 30);
    st_clear(c);
    st_finished(c, 2, id, 0, 1, SK_TASK_KILLED, 40);
    st_finished(c, 1, id, 0, 0, SK_TASK_KILLED, 45); /* a duplicate */
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 9, 0, &s, &att, &on);
    const sched_stats *ss = sched_stats_get(c);
    tap_ok(s == SCHED_TASK_FLOW &&
               st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0 &&
               ss->ss_flow_moved == 2 && ss->ss_stale == 1,
           "stopped twice: held again each time, the stale report dropped");
    st_started(c, 1, id, 0, 2, 50);
    st_finished(c, 1, id, 0, 2, SK_TASK_OK, 60);
    const sk_task_finished *tf = to_fe(c, 1); /* after flowd's copy */
    tap_ok(tf != NULL && tf->tf_status == SK_TASK_OK && tf->tf_attempt == 2 &&
               st_count(c, SK_MSG_JOB_DONE, ST_FE) == 1,
           "the third attempt's outcome is the task's, and the job is done");
    sched_free(c);
}

/* The cluster's only node monitor replaced (killed, started again): its
 * old session ends before the new one registers, so the retry of the
 * task it ran finds no live node and goes to flowd, which places it once
 * the node is back. */
static void test_only_node_replaced(void)
{
    sched_core *c;
    sched_new(NULL, 5, &c);
    st_nodes_up(c, 1);
    st_fe_up(c, ST_FE);
    flowd_up(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 1, .max_attempts = 3},
              0);
    const sk_out *o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, 0);
    const sk_enqueue *e = o != NULL ? &o->o_msg.m_enqueue : NULL;
    const sk_task_reply *r =
        e != NULL ? st_get_task(c, 1, e->er_job, e->er_resv, 10) : NULL;
    tap_ok(r != NULL && r->tr_has_task, "the task is launched on node1");
    st_started(c, 1, e != NULL ? e->er_job : 0, 0, 0, 20);
    st_clear(c);
    sched_peer_down(c, 1, 30);
    const sk_submit_job *sj = handed(c, 0);
    tap_ok(to_fe(c, 0) == NULL && sj != NULL && sj->sj_ntasks == 1 &&
               sj->sj_tasks[0].ts_attempt == 1,
           "node1's session ends: its retry, attempt 1, goes to flowd");
    st_node_up(c, 1, 4, (sk_resources){4000, 8192}, NULL);
    uint64_t id = sj != NULL ? sj->sj_job : 0;
    st_started(c, 1, id, 0, 1, 40);
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_RUNNING && att == 1 && on == 1,
           "and runs where flowd placed it when node1 is back");
    sched_free(c);
}

int main(void)
{
    tap_plan(45);
    test_long_job();
    test_flowd_away();
    test_running_node_lost();
    test_fallback();
    test_constraints();
    test_frontend_fields();
    test_keyed();
    test_preempted_twice();
    test_only_node_replaced();
    tap_done();
    return tap_exit_status();
}
