/*
 * test_sched_core.c - the scheduler core's life of a job: late binding in
 * submission order, proactive cancellation to exactly the nodes still
 * holding probes, per-task sampling on preferred nodes, node loss
 * (probes re-sent, tasks lost or retried), frontend loss, CANCEL_JOB,
 * limits that reject without side effects, stale attempts, hostile
 * input, JOB_DONE counts, the launch timeout, status and configuration.
 */
#include "sched_testutil.h"
#include "sk_log.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A probe as the outbox showed it. */
typedef struct probe {
    sk_peer pr_node;
    uint64_t pr_job;
    uint64_t pr_resv;
    uint32_t pr_count;
    uint32_t pr_task;
} probe;

/* probes collects the ENQUEUE_RESERVATIONs of the outbox into out. */
static uint32_t probes(sched_core *c, probe *out, uint32_t cap)
{
    uint32_t n = 0;
    const sk_out *o;
    while (n < cap && (o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, n)) != NULL) {
        const sk_enqueue *e = &o->o_msg.m_enqueue;
        out[n] =
            (probe){o->o_peer, e->er_job, e->er_resv, e->er_count, e->er_task};
        n++;
    }
    return n;
}

static int64_t stat_of(sched_core *c, size_t offset)
{
    return (int64_t) *
           (const uint64_t *)((const char *)sched_stats_get(c) + offset);
}
#define STAT(c, field) stat_of(c, offsetof(sched_stats, field))

static bool reply_is(const sk_task_reply *r, uint32_t task, uint32_t attempt)
{
    char spec[16];
    int len = snprintf(spec, sizeof spec, "task-%u", task);
    return r != NULL && r->tr_has_task && r->tr_task == task &&
           r->tr_attempt == attempt && r->tr_spec.b_len == (uint32_t)len &&
           memcmp(r->tr_spec.b_data, spec, (size_t)len) == 0;
}

static void test_late_binding_and_cancel(void)
{
    sched_core *c;
    sched_new(NULL, 11, &c);
    st_nodes_up(c, 2);
    /* 3 tasks, d = 2 on 2 nodes: 6 probes, 3 on each node. */
    st_submit(c, ST_FE, &(st_job){.sj_job = 77, .ntasks = 3}, 0);
    probe p[8];
    uint32_t n = probes(c, p, 8);
    tap_ok(n == 2 && p[0].pr_count == 3 && p[1].pr_count == 3,
           "6 probes: 3 on each of the 2 nodes");
    probe a = p[0], b = p[1];
    const sk_task_reply *r = st_get_task(c, a.pr_node, a.pr_job, a.pr_resv, 1);
    tap_ok(reply_is(r, 0, 0), "first GET_TASK gets task 0 with its spec");
    r = st_get_task(c, b.pr_node, b.pr_job, b.pr_resv, 2);
    tap_ok(reply_is(r, 1, 0), "second gets task 1 (late binding, in order)");
    tap_is_int(st_count(c, SK_MSG_CANCEL_RESERVATIONS, UINT32_MAX), 0,
               "no cancellation while a task is unlaunched");
    r = st_get_task(c, a.pr_node, a.pr_job, a.pr_resv, 3);
    tap_ok(reply_is(r, 2, 0), "third gets task 2");
    tap_ok(st_count(c, SK_MSG_CANCEL_RESERVATIONS, a.pr_node) == 1 &&
               st_count(c, SK_MSG_CANCEL_RESERVATIONS, b.pr_node) == 1,
           "last launch: one CANCEL_RESERVATIONS to each node with probes");
    const sk_out *o = st_nth(c, SK_MSG_CANCEL_RESERVATIONS, 0);
    tap_ok(o->o_msg.m_cancel_resv.cr_job == a.pr_job,
           "cancellation names the core's job id");
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 77, &ji);
    tap_ok(ji.ji_resv == 0 && ji.ji_pending == 0 && ji.ji_launched == 3 &&
               STAT(c, ss_resv_open) == 0,
           "no probe left outstanding after cancellation");
    r = st_get_task(c, b.pr_node, b.pr_job, b.pr_resv, 4);
    tap_ok(r != NULL && !r->tr_has_task,
           "a GET_TASK racing the cancellation gets nothing left");

    /* Outcomes: started and finished are forwarded with the frontend's
     * job id; JOB_DONE adds up and the job is freed. */
    st_clear(c);
    st_started(c, a.pr_node, a.pr_job, 0, 0, 5);
    o = st_nth(c, SK_MSG_TASK_STARTED, 0);
    tap_ok(o != NULL && o->o_peer == ST_FE &&
               o->o_msg.m_task_started.st_job == 77 &&
               strcmp(o->o_msg.m_task_started.st_node, "node1") +
                       strcmp(o->o_msg.m_task_started.st_node, "node2") !=
                   0,
           "TASK_STARTED forwarded to the frontend under its job id");
    st_started(c, a.pr_node, a.pr_job, 0, 0, 5);
    tap_is_int(STAT(c, ss_bad_state), 1, "a second TASK_STARTED is refused");
    st_clear(c);
    st_finished(c, a.pr_node, a.pr_job, 0, 0, SK_TASK_OK, 6);
    st_finished(c, b.pr_node, b.pr_job, 1, 0, SK_TASK_FAILED, 6);
    st_finished(c, b.pr_node, b.pr_job, 1, 0, SK_TASK_OK, 6);
    tap_is_int(STAT(c, ss_bad_state), 2, "a second outcome is refused");
    tap_is_int(st_count(c, SK_MSG_JOB_DONE, UINT32_MAX), 0,
               "no JOB_DONE while a task runs");
    st_finished(c, b.pr_node, b.pr_job, 2, 0, SK_TASK_OK, 7);
    st_finished(c, a.pr_node, a.pr_job, 2, 0, SK_TASK_OK, 7);
    tap_is_int(STAT(c, ss_bad_peer), 1,
               "an outcome from a node the task is not on is refused");
    tap_is_int(st_count(c, SK_MSG_TASK_FINISHED, ST_FE), 3,
               "one TASK_FINISHED per task");
    o = st_nth(c, SK_MSG_JOB_DONE, 0);
    const sk_job_done *d = o ? &o->o_msg.m_job_done : NULL;
    tap_ok(d != NULL && d->jd_job == 77 && d->jd_tasks == 3 && d->jd_ok == 2 &&
               d->jd_failed == 1 &&
               d->jd_ok + d->jd_failed + d->jd_killed + d->jd_lost +
                       d->jd_cancelled ==
                   d->jd_tasks,
           "JOB_DONE once, counts add up (2 ok, 1 failed)");
    tap_ok(sched_job_info_get(c, ST_FE, 77, &ji) == SK_ENOTFOUND &&
               STAT(c, ss_jobs) == 0,
           "the finished job is freed");
    st_clear(c);
    st_finished(c, a.pr_node, a.pr_job, 2, 0, SK_TASK_OK, 9);
    tap_is_int(STAT(c, ss_unknown_job), 1,
               "an outcome for a finished job is counted and dropped");
    st_clear(c);
    st_started(c, a.pr_node, a.pr_job, 2, 0, 9);
    tap_ok(st_count(c, SK_MSG_KILL_TASK, a.pr_node) == 0 &&
               STAT(c, ss_unknown_job) == 2,
           "a late TASK_STARTED of it in the same session is counted, "
           "not fenced");
    st_node_up(c, 51, 4, (sk_resources){4000, 8192}, NULL);
    st_started(c, 51, a.pr_job, 2, 0, 9);
    const sk_out *k = st_nth(c, SK_MSG_KILL_TASK, 0);
    tap_ok(k != NULL && k->o_peer == 51 &&
               k->o_msg.m_kill_task.kt_job == a.pr_job &&
               STAT(c, ss_fenced) == 1,
           "a node re-announcing a task of the finished job (before its "
           "first GET_TASK) is fenced");
    st_submit(c, ST_FE, &(st_job){.sj_job = 77, .ntasks = 1}, 10);
    tap_is_int(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE), 1,
               "the frontend may reuse a finished job's id");
    sched_free(c);
}

static void test_preferred(void)
{
    sched_core *c;
    sched_new(NULL, 12, &c);
    st_nodes_up(c, 10);
    const char *t0[] = {"node3", NULL};
    const char *t1[] = {"node3", "node4", "node3", NULL};
    const char *t2[] = {"ghost", NULL};
    const char **pref[] = {t0, t1, t2, NULL};
    st_submit(c, ST_FE, &(st_job){.sj_job = 5, .ntasks = 4, .preferred = pref},
              0);
    probe p[16];
    uint32_t n = probes(c, p, 16);
    uint32_t bound[4] = {0}, on3 = 0, unbound = 0;
    bool placed_ok = true;
    probe r0 = {0}, r1on3 = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].pr_task == SK_TASK_ANY) {
            unbound += p[i].pr_count;
            continue;
        }
        bound[p[i].pr_task] += p[i].pr_count;
        if (p[i].pr_node != 3 && p[i].pr_node != 4)
            placed_ok = false;
        if (p[i].pr_task == 0 && p[i].pr_node != 3)
            placed_ok = false;
        if (p[i].pr_node == 3)
            on3++;
        if (p[i].pr_task == 0)
            r0 = p[i];
        if (p[i].pr_task == 1 && p[i].pr_node == 3)
            r1on3 = p[i];
    }
    tap_ok(placed_ok && bound[0] == 2 && bound[1] == 2 && unbound == 2,
           "per-task probes: d per task among its preferred nodes, bound "
           "(er_task), and 2 unbound for the free task");
    tap_ok(r0.pr_count == 2 && r1on3.pr_count == 1 && on3 == 2,
           "one live preferred node gets both probes; a name listed twice "
           "counts once");
    const sk_out *o = st_nth(c, SK_MSG_TASK_FINISHED, 0);
    tap_ok(o != NULL && o->o_msg.m_task_finished.tf_task == 2 &&
               o->o_msg.m_task_finished.tf_status == SK_TASK_FAILED &&
               o->o_msg.m_task_finished.tf_output.b_len > 0 &&
               memcmp(o->o_msg.m_task_finished.tf_output.b_data, "no preferred",
                      12) == 0,
           "a task whose preferred nodes are all gone fails with a reason");
    /* node3 asks on task 0's probe twice: task 0, then task 1 which also
     * probed node3. */
    const sk_task_reply *r = st_get_task(c, 3, r0.pr_job, r0.pr_resv, 1);
    tap_ok(reply_is(r, 0, 0), "node3 asking on task 0's probe gets task 0");
    r = st_get_task(c, 3, r0.pr_job, r0.pr_resv, 2);
    tap_ok(reply_is(r, 1, 0),
           "asking again, it gets task 1 which prefers it too");
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 5, 1, &s, &att, &on);
    tap_ok(s == SCHED_TASK_LAUNCHED && on == 3, "task 1 is launched on node3");
    r = st_get_task(c, 3, r1on3.pr_job, r1on3.pr_resv, 3);
    tap_ok(reply_is(r, 3, 0),
           "a bound probe with no preferring task left takes a free task");
    tap_is_int(st_count(c, SK_MSG_CANCEL_RESERVATIONS, UINT32_MAX), 2,
               "all launched: cancellation to node4 and the unbound nodes");
    tap_is_int(st_count(c, SK_MSG_CANCEL_RESERVATIONS, 3), 0,
               "not to node3, which holds no probe any more");
    sched_free(c);
}

static void test_node_down(void)
{
    sched_core *c;
    sched_new(NULL, 13, &c);
    st_nodes_up(c, 8);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2, .max_attempts = 2},
              0);
    probe p[8];
    uint32_t n = probes(c, p, 8);
    tap_is_int(n, 4, "4 probes on 4 nodes");
    const sk_task_reply *r =
        st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 1);
    tap_ok(reply_is(r, 0, 0), "task 0 launched on the first node");
    st_started(c, p[0].pr_node, p[0].pr_job, 0, 0, 1);
    st_clear(c);

    sched_peer_down(c, p[1].pr_node, 2);
    probe q[8];
    n = probes(c, q, 8);
    tap_ok(n == 1 && q[0].pr_count == 1 && q[0].pr_node != p[1].pr_node &&
               STAT(c, ss_resent) == 1,
           "a lost node's probe is sent to another node");
    uint32_t held;
    sched_job_resv_on(c, ST_FE, 1, q[0].pr_node, &held);
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 1, &ji);
    tap_ok(held >= 1 && ji.ji_resv == 3,
           "the core counts it on its new node (3 outstanding)");
    tap_is_int(st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX), 0,
               "nothing to report for a node without tasks");
    st_clear(c);

    sched_peer_down(c, p[0].pr_node, 3);
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_PENDING && att == 1,
           "the running task is retried: pending, attempt 1");
    tap_ok(st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0 &&
               probes(c, q, 8) == 2 && STAT(c, ss_tasks_retried) == 1,
           "not reported to the frontend; fresh probes sent");
    /* Task 0 (the retry) waits behind task 1 in the queue. */
    st_clear(c);
    r = st_get_task(c, q[0].pr_node, q[0].pr_job, q[0].pr_resv, 4);
    tap_ok(reply_is(r, 1, 0), "the next GET_TASK gets task 1");
    sk_peer n1 = q[0].pr_node;
    r = st_get_task(c, q[1].pr_node, q[1].pr_job, q[1].pr_resv, 4);
    tap_ok(reply_is(r, 0, 1), "and then task 0, attempt 1");
    sk_peer n0 = q[1].pr_node;
    st_clear(c);
    st_finished(c, n0, q[1].pr_job, 0, 0, SK_TASK_OK, 5);
    tap_ok(STAT(c, ss_stale) == 1 &&
               st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0,
           "an outcome for the stale attempt 0 is counted and ignored");

    /* The lost node comes back (a new session, a new peer) and says what
     * it still runs: attempt 0 of task 0, given up. */
    st_node_up(c, 50, 4, (sk_resources){4000, 8192}, NULL);
    st_clear(c);
    int64_t fenced = STAT(c, ss_fenced), stale = STAT(c, ss_stale);
    st_started(c, 50, q[1].pr_job, 0, 0, 5);
    const sk_out *o = st_nth(c, SK_MSG_KILL_TASK, 0);
    tap_ok(o != NULL && o->o_peer == 50 &&
               o->o_msg.m_kill_task.kt_job == q[1].pr_job &&
               o->o_msg.m_kill_task.kt_task == 0 &&
               o->o_msg.m_kill_task.kt_attempt == 0 &&
               STAT(c, ss_fenced) == fenced + 1 &&
               st_count(c, SK_MSG_TASK_STARTED, ST_FE) == 0,
           "a node re-announcing a given-up attempt is fenced: KILL_TASK "
           "back, nothing to the frontend");
    st_clear(c);
    int64_t unknown = STAT(c, ss_unknown_job);
    st_started(c, 50, q[1].pr_job, 0, 7, 5);
    st_started(c, 50, 999, 0, 0, 5);
    tap_ok(STAT(c, ss_stale) == stale + 1 &&
               STAT(c, ss_unknown_job) == unknown + 1 &&
               STAT(c, ss_fenced) == fenced + 1 &&
               st_count(c, SK_MSG_KILL_TASK, 50) == 0,
           "an attempt never given out is counted stale, a job id never "
           "given out unknown: neither is fenced");
    st_clear(c);

    /* Task 1's node dies with no attempt left for... task 1 still has
     * one retry; lose it twice. */
    st_started(c, n1, q[0].pr_job, 1, 0, 5);
    sched_peer_down(c, n1, 6);
    sched_task_get(c, ST_FE, 1, 1, &s, &att, &on);
    tap_ok(s == SCHED_TASK_PENDING && att == 1, "task 1 retried too");
    n = probes(c, q, 8);
    r = st_get_task(c, q[0].pr_node, q[0].pr_job, q[0].pr_resv, 7);
    tap_ok(reply_is(r, 1, 1), "task 1, attempt 1, launched again");
    st_clear(c);
    sched_peer_down(c, q[0].pr_node, 8);
    o = st_nth(c, SK_MSG_TASK_FINISHED, 0);
    tap_ok(o != NULL && o->o_msg.m_task_finished.tf_task == 1 &&
               o->o_msg.m_task_finished.tf_status == SK_TASK_LOST &&
               o->o_msg.m_task_finished.tf_attempt == 1 &&
               o->o_msg.m_task_finished.tf_output.b_len == 9 &&
               memcmp(o->o_msg.m_task_finished.tf_output.b_data, "node lost",
                      9) == 0,
           "out of attempts: reported LOST \"node lost\" once");
    st_clear(c);
    if (n0 != q[0].pr_node) {
        st_finished(c, n0, 1, 0, 1, SK_TASK_OK, 9);
        o = st_nth(c, SK_MSG_JOB_DONE, 0);
        tap_ok(o != NULL && o->o_msg.m_job_done.jd_ok == 1 &&
                   o->o_msg.m_job_done.jd_lost == 1,
               "JOB_DONE: 1 ok, 1 lost");
    } else {
        o = st_nth(c, SK_MSG_JOB_DONE, 0);
        tap_ok(o != NULL, "JOB_DONE (both tasks lost on one node)");
    }
    tap_is_int(STAT(c, ss_jobs), 0, "job freed");
    sched_free(c);
}

static void test_no_node_left(void)
{
    sched_core *c;
    sched_new(NULL, 14, &c);
    st_nodes_up(c, 1);
    const char *only1[] = {"node1", NULL};
    const char **pref[] = {only1, NULL};
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2, .preferred = pref},
              0);
    st_clear(c);
    sched_peer_down(c, 1, 1);
    tap_is_int(st_count(c, SK_MSG_TASK_FINISHED, ST_FE), 2,
               "last node gone: both pending tasks fail");
    const sk_out *o = st_nth(c, SK_MSG_JOB_DONE, 0);
    tap_ok(o != NULL && o->o_msg.m_job_done.jd_failed == 2 &&
               STAT(c, ss_jobs) == 0 && STAT(c, ss_resv_open) == 0,
           "JOB_DONE with 2 failed, nothing left behind");
    sched_free(c);
}

static void test_frontend_down(void)
{
    sched_core *c;
    sched_new(NULL, 15, &c);
    st_nodes_up(c, 6);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 3}, 0);
    probe p[8];
    probes(c, p, 8);
    const sk_task_reply *r =
        st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 1);
    tap_ok(reply_is(r, 0, 0), "task 0 launched");
    st_clear(c);
    sched_peer_down(c, ST_FE, 2);
    bool cancels = true;
    for (int i = 1; i < 6; i++)
        if (st_count(c, SK_MSG_CANCEL_RESERVATIONS, p[i].pr_node) != 1)
            cancels = false;
    tap_ok(cancels &&
               st_count(c, SK_MSG_CANCEL_RESERVATIONS, p[0].pr_node) == 0,
           "frontend gone: each node still holding a probe gets a cancel");
    const sk_out *o = st_nth(c, SK_MSG_KILL_TASK, 0);
    tap_ok(o != NULL && o->o_peer == p[0].pr_node &&
               o->o_msg.m_kill_task.kt_task == 0 &&
               st_count(c, SK_MSG_KILL_TASK, UINT32_MAX) == 1,
           "its launched task is killed");
    tap_ok(st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0 &&
               STAT(c, ss_jobs) == 0 && STAT(c, ss_frontends) == 0 &&
               STAT(c, ss_resv_open) == 0,
           "nothing sent to it, job and frontend freed");
    st_clear(c);
    r = st_get_task(c, p[1].pr_node, p[1].pr_job, p[1].pr_resv, 3);
    tap_ok(r != NULL && !r->tr_has_task, "a late GET_TASK gets nothing");
    sched_free(c);
}

static void test_cancel_job(void)
{
    sched_core *c;
    sched_new(NULL, 16, &c);
    st_nodes_up(c, 5);
    st_submit(c, ST_FE, &(st_job){.sj_job = 9, .ntasks = 3}, 0);
    probe p[8];
    probes(c, p, 8);
    st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 1);
    st_get_task(c, p[1].pr_node, p[1].pr_job, p[1].pr_resv, 1);
    st_finished(c, p[1].pr_node, p[1].pr_job, 1, 0, SK_TASK_OK, 2);
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job.cj_job = 9;
    m.m_cancel_job.cj_reason = "user";
    sched_on_message(c, ST_FE + 1, &m, 3);
    tap_is_int(STAT(c, ss_unknown_job), 1,
               "CANCEL_JOB from another frontend finds nothing");
    sched_on_message(c, ST_FE, &m, 3);
    tap_ok(st_count(c, SK_MSG_KILL_TASK, p[0].pr_node) == 1 &&
               st_count(c, SK_MSG_CANCEL_RESERVATIONS, UINT32_MAX) == 4,
           "CANCEL_JOB kills the launched task, cancels the 4 held probes");
    uint32_t cancelled = 0;
    const sk_out *o;
    for (uint32_t i = 0; (o = st_nth(c, SK_MSG_TASK_FINISHED, i)); i++)
        if (o->o_msg.m_task_finished.tf_status == SK_TASK_CANCELLED)
            cancelled++;
    o = st_nth(c, SK_MSG_JOB_DONE, 0);
    tap_ok(cancelled == 2 && o != NULL &&
               o->o_msg.m_job_done.jd_cancelled == 2 &&
               o->o_msg.m_job_done.jd_ok == 1,
           "the 2 unfinished tasks end CANCELLED; JOB_DONE 1 ok 2 cancelled");
    st_clear(c);
    st_finished(c, p[0].pr_node, p[0].pr_job, 0, 0, SK_TASK_KILLED, 4);
    tap_ok(st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0 &&
               STAT(c, ss_unknown_job) == 2,
           "the killed task's late outcome is dropped");
    sched_free(c);
}

/* reject_clean submits j and checks it was rejected with a reason that
 * contains want, and left no trace. */
static void reject_clean(sched_core *c, const st_job *j, const char *want,
                         const char *what)
{
    uint64_t jobs = (uint64_t)STAT(c, ss_jobs);
    uint64_t resv = (uint64_t)STAT(c, ss_resv_open);
    st_clear(c);
    st_submit(c, ST_FE, j, 0);
    const sk_out *o = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    bool ok = o != NULL && o->o_msg.m_job_ack.ja_job == j->sj_job &&
              strstr(o->o_msg.m_job_ack.ja_reason, want) != NULL &&
              sched_outbox(c)->ob_len == 1 &&
              (uint64_t)STAT(c, ss_jobs) == jobs &&
              (uint64_t)STAT(c, ss_resv_open) == resv;
    if (!ok && o != NULL)
        tap_diag("reason: %s", o->o_msg.m_job_ack.ja_reason);
    tap_ok(ok, "%s: rejected (\"%s\"), no side effect", what, want);
}

static void test_limits(void)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_max_tasks = 5;
    cfg.sc_max_spec_bytes = 4;
    cfg.sc_max_jobs = 2;
    cfg.sc_max_probe_ratio = 4;
    sched_core *c;
    sched_new(&cfg, 17, &c);
    st_nodes_up(c, 4);
    cfg.sc_max_spec_bytes = 16;
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 6},
                 "job has 6 tasks, over the scheduler's limit of 5 ([sched] "
                 "max_tasks)",
                 "too many tasks");
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 0}, "no task", "no task");
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 5, .ratio = 0.5},
                 "probe ratio", "probe ratio below 1");
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 5, .ratio = 5},
                 "probe ratio", "probe ratio over the limit");
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 5, .max_attempts = 101},
                 "attempts", "too many attempts");
    /* Specs are "task-<i>", 6 bytes, over the 4-byte limit. */
    sched_free(c);
    cfg.sc_max_spec_bytes = 4;
    sched_new(&cfg, 17, &c);
    st_nodes_up(c, 4);
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 1}, "spec of 6 bytes",
                 "spec too large");
    sched_free(c);
    cfg.sc_max_spec_bytes = 16;
    sched_new(&cfg, 17, &c);
    st_nodes_up(c, 4);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 1}, 0);
    reject_clean(c, &(st_job){.sj_job = 1, .ntasks = 1}, "duplicate",
                 "duplicate job id");
    st_submit(c, ST_FE, &(st_job){.sj_job = 2, .ntasks = 1}, 0);
    reject_clean(c, &(st_job){.sj_job = 3, .ntasks = 1}, "in flight",
                 "jobs in flight");
    st_clear(c);
    st_submit(c, ST_FE + 1, &(st_job){.sj_job = 1, .ntasks = 1}, 0);
    tap_is_int(st_count(c, SK_MSG_JOB_REJECTED, ST_FE + 1), 1,
               "the jobs-in-flight limit is per scheduler");
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    sk_task_spec ts = {0};
    m.m_submit_job.sj_job = 4;
    m.m_submit_job.sj_ntasks = 1;
    m.m_submit_job.sj_tasks = &ts;
    m.m_submit_job.sj_long = true;
    sched_on_message(c, ST_FE, &m, 0);
    tap_is_int(st_count(c, SK_MSG_JOB_REJECTED, ST_FE), 1,
               "a long-running job is rejected (flow path)");
    st_clear(c);
    sched_on_message(c, 1, &m, 0);
    tap_is_int(st_count(c, SK_MSG_JOB_REJECTED, 1), 1,
               "a node monitor cannot submit");
    sched_free(c);
}

static void test_hostile(void)
{
    sched_core *c;
    sched_new(NULL, 18, &c);
    st_nodes_up(c, 3);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2}, 0);
    probe p[8];
    probes(c, p, 8);
    const sk_task_reply *r = st_get_task(c, 1, 999, 12345, 1);
    tap_ok(r != NULL && !r->tr_has_task && STAT(c, ss_unknown_resv) == 1,
           "GET_TASK for an unknown probe: answered nothing, counted");
    sk_peer other = p[0].pr_node == 1 ? 2 : 1;
    r = st_get_task(c, other, p[0].pr_job, p[0].pr_resv, 1);
    tap_ok(r != NULL && !r->tr_has_task && STAT(c, ss_bad_peer) == 1,
           "GET_TASK for another node's probe: nothing, counted");
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 1, &ji);
    tap_ok(ji.ji_resv == 4 && ji.ji_pending == 2,
           "and the job's state is untouched");
    st_finished(c, 1, p[0].pr_job, 7, 0, SK_TASK_OK, 1);
    tap_is_int(STAT(c, ss_bad_field), 1, "task index out of range");
    st_finished(c, 1, p[0].pr_job, 0, 0, 99, 1);
    tap_is_int(STAT(c, ss_bad_field), 2, "unknown task status");
    st_finished(c, 1, p[0].pr_job, 0, 0, SK_TASK_OK, 1);
    tap_is_int(STAT(c, ss_bad_state), 1, "outcome of a task not launched");
    sk_msg m = {.m_type = SK_MSG_HEARTBEAT};
    sched_on_message(c, 1, &m, 1);
    tap_is_int(STAT(c, ss_bad_type), 1, "a HEARTBEAT is not ours");
    sk_hello h = {.he_role = SK_ROLE_NODEMON, .he_name = "node1"};
    sched_peer_up(c, 1, &h, 1);
    tap_ok(STAT(c, ss_bad_peer) == 2 && STAT(c, ss_nodes) == 3,
           "a second HELLO on a peer is refused");
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    h.he_name = longname;
    sched_peer_up(c, 50, &h, 1);
    tap_ok(STAT(c, ss_bad_field) == 3 && STAT(c, ss_nodes) == 3,
           "a HELLO with an over-long name is refused");
    sched_free(c);
}

static void test_timeout(void)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_launch_timeout_ms = 100;
    sched_core *c;
    sched_new(&cfg, 19, &c);
    st_nodes_up(c, 3);
    tap_ok(sched_next_deadline(c) == SK_TIME_NEVER, "idle: no deadline");
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2}, 0);
    probe p[8];
    probes(c, p, 8);
    st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 1000);
    st_get_task(c, p[1].pr_node, p[1].pr_job, p[1].pr_resv, 2000);
    tap_is_int((int64_t)sched_next_deadline(c), 101000,
               "deadline: oldest launch + 100 ms");
    st_started(c, p[0].pr_node, p[0].pr_job, 0, 0, 3000);
    tap_is_int((int64_t)sched_next_deadline(c), 102000,
               "a started task no longer counts");
    st_clear(c);
    sched_on_timer(c, 101999);
    tap_is_int(sched_outbox(c)->ob_len, 0, "nothing before the deadline");
    sched_on_timer(c, 102000);
    const sk_out *o = st_nth(c, SK_MSG_TASK_FINISHED, 0);
    tap_ok(st_count(c, SK_MSG_KILL_TASK, p[1].pr_node) == 1 && o != NULL &&
               o->o_msg.m_task_finished.tf_status == SK_TASK_LOST &&
               o->o_msg.m_task_finished.tf_task == 1,
           "at the deadline: killed and reported lost");
    tap_ok(sched_next_deadline(c) == SK_TIME_NEVER, "no deadline left");
    sched_free(c);
}

static void test_status_and_config(void)
{
    sched_core *c;
    sched_new(NULL, 20, &c);
    st_nodes_up(c, 3);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2}, 0);
    st_submit(c, ST_FE, &(st_job){.sj_job = 2, .ntasks = 3}, 0);
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request.sq_request = 42;
    m.m_status_request.sq_table = true;
    sched_on_message(c, 600, &m, 5);
    const sk_out *o = st_nth(c, SK_MSG_STATUS_REPLY, 0);
    const sk_status_reply *sr = o ? &o->o_msg.m_status_reply : NULL;
    const char *jobs = NULL;
    for (uint32_t i = 0; sr != NULL && i < sr->sr_nkv; i++)
        if (strcmp(sr->sr_kv[i].kv_key, "jobs") == 0)
            jobs = sr->sr_kv[i].kv_value;
    tap_ok(sr != NULL && sr->sr_request == 42 &&
               sr->sr_role == SK_ROLE_SCHEDULER && jobs != NULL &&
               strcmp(jobs, "2") == 0,
           "STATUS_REPLY echoes the request and counts 2 jobs");
    tap_ok(sr != NULL && sr->sr_nrows == 2 && sr->sr_ncolumns == 14 &&
               sr->sr_rows[0].sw_ncells == 14,
           "its table has a row per job");
    sk_buf buf = SK_BUF_INIT;
    tap_is_int(sk_msg_encode(&buf, &o->o_msg), 0, "and it encodes");
    sk_buf_free(&buf);
    sched_free(c);

    sched_config cfg;
    sched_config_init(&cfg);
    sk_config_key keys[SCHED_CONFIG_NKEYS];
    sched_config_keys(&cfg, keys);
    char err[256];
    tap_ok(sk_config_apply_assignment(keys, SCHED_CONFIG_NKEYS,
                                      "sched.probe_ratio=3", err,
                                      sizeof err) == 0 &&
               cfg.sc_probe_ratio == 3,
           "[sched] probe_ratio is configurable");
    tap_ok(sk_config_apply_assignment(keys, SCHED_CONFIG_NKEYS,
                                      "sched.probe_ratio=0.5", err,
                                      sizeof err) == SK_ECONFIG,
           "a probe ratio below 1 is refused: %s", err);
    sk_config_apply_assignment(keys, SCHED_CONFIG_NKEYS,
                               "sched.max_probe_ratio=2", err, sizeof err);
    tap_ok(sched_new(&cfg, 1, &c) == SK_ECONFIG,
           "max_probe_ratio below probe_ratio: sched_new refuses");
}

/* A key of the scheduler's STATUS_REPLY as a number; -1 if missing. */
static int64_t status_num(sched_core *c, const char *key)
{
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request.sq_request = 7;
    sched_on_message(c, 600, &m, 50);
    const sk_out *o = st_nth(c, SK_MSG_STATUS_REPLY, 0);
    for (uint32_t i = 0; o != NULL && i < o->o_msg.m_status_reply.sr_nkv; i++)
        if (strcmp(o->o_msg.m_status_reply.sr_kv[i].kv_key, key) == 0)
            return strtoll(o->o_msg.m_status_reply.sr_kv[i].kv_value, NULL, 10);
    return -1;
}

/* The status's task totals add up after every way a task can end: ok,
 * failed, cancelled with its job, abandoned with its frontend, rejected
 * with its job (never counted), and still in flight. */
static void test_status_totals(void)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_max_tasks = 5;
    sched_core *c;
    sched_new(&cfg, 21, &c);
    st_nodes_up(c, 5);
    /* Job 1, 3 tasks: one ok, one launched, one pending; then cancelled. */
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 3}, 0);
    probe p[8];
    probes(c, p, 8);
    st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 1);
    st_get_task(c, p[1].pr_node, p[1].pr_job, p[1].pr_resv, 1);
    st_finished(c, p[1].pr_node, p[1].pr_job, 1, 0, SK_TASK_OK, 2);
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job.cj_job = 1;
    m.m_cancel_job.cj_reason = "user";
    sched_on_message(c, ST_FE, &m, 3);
    /* Job 2, 2 tasks: one failed, one still pending. */
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 2, .ntasks = 2}, 4);
    probes(c, p, 8);
    st_get_task(c, p[0].pr_node, p[0].pr_job, p[0].pr_resv, 5);
    st_finished(c, p[0].pr_node, p[0].pr_job, 0, 0, SK_TASK_FAILED, 6);
    /* Job 3, over the limit: rejected, so never submitted work. */
    st_submit(c, ST_FE, &(st_job){.sj_job = 3, .ntasks = 6}, 7);
    /* Job 1 of another frontend, 4 tasks, which then goes away. */
    st_submit(c, ST_FE + 1, &(st_job){.sj_job = 1, .ntasks = 4}, 8);
    sched_peer_down(c, ST_FE + 1, 9);

    int64_t sub = status_num(c, "tasks_submitted");
    int64_t ok = status_num(c, "tasks_ok"), bad = status_num(c, "tasks_failed");
    int64_t killed = status_num(c, "tasks_killed");
    int64_t lost = status_num(c, "tasks_lost");
    int64_t cancelled = status_num(c, "tasks_cancelled");
    int64_t abandoned = status_num(c, "tasks_abandoned");
    int64_t flight = status_num(c, "tasks_in_flight");
    tap_diag("submitted %lld: ok %lld failed %lld killed %lld lost %lld "
             "cancelled %lld abandoned %lld in flight %lld",
             (long long)sub, (long long)ok, (long long)bad, (long long)killed,
             (long long)lost, (long long)cancelled, (long long)abandoned,
             (long long)flight);
    tap_ok(sub == 9 && ok == 1 && bad == 1 && killed == 0 && lost == 0 &&
               cancelled == 2 && abandoned == 4 && flight == 1,
           "status: 9 tasks submitted (the rejected job's not among them): "
           "1 ok, 1 failed, 2 cancelled, 4 abandoned, 1 in flight");
    tap_ok(sub == ok + bad + killed + lost + cancelled + abandoned + flight,
           "status: submitted = ok + failed + killed + lost + cancelled + "
           "abandoned + in flight");
    sched_free(c);
}

static void quiet(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    (void)line;
}

/* A core with budgets that hold `fe` and `all` jobs of 300 tasks (each
 * job counted as `one` bytes), and fe_jobs jobs per frontend. */
static sched_core *budget_core(uint64_t one, double fe, double all,
                               int64_t fe_jobs)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_max_job_bytes = (int64_t)one;
    cfg.sc_max_fe_bytes = (int64_t)(fe * (double)one);
    cfg.sc_max_bytes = (int64_t)(all * (double)one);
    cfg.sc_max_fe_jobs = fe_jobs;
    sched_core *c;
    if (sched_new(&cfg, 5, &c) != 0)
        tap_bail_out("budget core refused");
    st_nodes_up(c, 4);
    return c;
}

static bool accepted(sched_core *c, sk_peer fe, uint64_t id)
{
    st_clear(c);
    st_submit(c, fe, &(st_job){.sj_job = id, .ntasks = 300}, 0);
    return st_count(c, SK_MSG_JOB_ACCEPTED, fe) == 1;
}

/* Budgets: one frontend cannot take the memory or the job slots every
 * frontend shares, and what a job held is given back when it ends. */
static void test_budgets(void)
{
    sched_core *c = budget_core(1 << 20, 100, 100, 1000);
    accepted(c, ST_FE, 1);
    uint64_t one = (uint64_t)STAT(c, ss_bytes);
    tap_ok(one >= 1024 && one < (1 << 20), "a 300-task job holds %llu bytes",
           (unsigned long long)one);
    sched_free(c);

    c = budget_core(one, 100, 100, 2);
    tap_ok(accepted(c, ST_FE, 1) && accepted(c, ST_FE, 2),
           "a frontend's first 2 jobs are accepted");
    reject_clean(c, &(st_job){.sj_job = 3, .ntasks = 300},
                 "[sched] max_fe_jobs", "its third, over max_fe_jobs 2");
    tap_ok(accepted(c, ST_FE + 1, 1),
           "another frontend is not locked out by it");
    sched_free(c);

    c = budget_core(one, 2.5, 100, 1000);
    tap_ok(accepted(c, ST_FE, 1) && accepted(c, ST_FE, 2),
           "two jobs fit a frontend budget of 2.5 jobs' bytes");
    reject_clean(c, &(st_job){.sj_job = 3, .ntasks = 300},
                 "[sched] max_fe_bytes", "the third is over max_fe_bytes");
    tap_ok(accepted(c, ST_FE + 1, 1), "another frontend has its own budget");
    sched_free(c);

    c = budget_core(one, 2.5, 3.5, 1000);
    accepted(c, ST_FE, 1);
    accepted(c, ST_FE, 2);
    tap_ok(accepted(c, ST_FE + 1, 1), "a third job in all fits max_bytes");
    st_clear(c);
    st_submit(c, ST_FE + 1, &(st_job){.sj_job = 2, .ntasks = 300}, 0);
    const sk_out *o = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    tap_ok(o != NULL &&
               strstr(o->o_msg.m_job_ack.ja_reason, "[sched] max_bytes") !=
                   NULL &&
               STAT(c, ss_reject_budget) == 1,
           "a fourth is over the scheduler's max_bytes, counted");
    uint64_t held = (uint64_t)STAT(c, ss_bytes);
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job.cj_job = 1;
    m.m_cancel_job.cj_reason = "user";
    sched_on_message(c, ST_FE, &m, 1);
    tap_ok((uint64_t)STAT(c, ss_bytes) == held - one &&
               accepted(c, ST_FE + 1, 3),
           "a cancelled job gives its bytes back: the next one fits");
    sched_free(c);

    /* Per user, over all its frontends (every st_submit is alice's). */
    c = budget_core(one, 100, 100, 1000);
    sched_config ucfg;
    sched_config_init(&ucfg);
    ucfg.sc_max_user_jobs = 2;
    sched_free(c);
    sched_new(&ucfg, 6, &c);
    st_nodes_up(c, 4);
    tap_ok(accepted(c, ST_FE, 1) && accepted(c, ST_FE + 1, 1),
           "a user's first 2 jobs are accepted, from two frontends");
    st_clear(c);
    st_submit(c, ST_FE + 2, &(st_job){.sj_job = 1, .ntasks = 300}, 0);
    o = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    tap_ok(o != NULL && strstr(o->o_msg.m_job_ack.ja_reason,
                               "[sched] max_user_jobs") != NULL,
           "its third, from a third frontend, is over max_user_jobs: %s",
           o != NULL ? o->o_msg.m_job_ack.ja_reason : "(none)");
    sched_on_message(c, ST_FE, &m, 2);
    tap_ok(accepted(c, ST_FE + 2, 2),
           "a job of the user ending makes room for the next");
    sched_free(c);

    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_max_fe_bytes = cfg.sc_max_job_bytes - 1;
    char err[200];
    tap_ok(sched_config_check(&cfg, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "max_fe_bytes") != NULL,
           "a frontend budget below one job's limit is a configuration "
           "error");
}

int main(void)
{
    tap_timeout(30);
    sk_log_set_sink(quiet, NULL);
    tap_plan_lazy();
    test_late_binding_and_cancel();
    test_preferred();
    test_node_down();
    test_no_node_left();
    test_frontend_down();
    test_cancel_job();
    test_limits();
    test_budgets();
    test_hostile();
    test_timeout();
    test_status_and_config();
    test_status_totals();
    tap_done();
    return tap_exit_status();
}
