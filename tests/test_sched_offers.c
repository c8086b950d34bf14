/*
 * test_sched_offers.c - the scheduler core's offered outcomes
 * (sched_offers.c, docs/FAULTS.md "Outcomes offered"): an offer kept for
 * a resubmission ends its task at admission without a probe; an offer for
 * a job held ends a pending retry or kills a launched one; the first
 * outcome wins; the user must match; offers are bounded in number and
 * time; refs are checked at admission.
 */
#include "sched_testutil.h"
#include "sk_log.h"
#include "tap.h"

#include <stddef.h>
#include <string.h>

static void quiet(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    (void)line;
}

static int64_t stat_of(sched_core *c, size_t offset)
{
    return (int64_t) *
           (const uint64_t *)((const char *)sched_stats_get(c) + offset);
}
#define STAT(c, field) stat_of(c, offsetof(sched_stats, field))

static sched_core *core(int64_t keep_ms, int64_t max_offers)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_offer_keep_ms = keep_ms;
    cfg.sc_max_offers = max_offers;
    sched_core *c = NULL;
    tap_ok(sched_new(&cfg, 7, &c) == 0, "core made (keep %lld ms, %lld offers)",
           (long long)keep_ms, (long long)max_offers);
    st_nodes_up(c, 4);
    st_fe_up(c, ST_FE);
    return c;
}

/* node offers how task ref of the job keyed key ended for user. */
static void offer(sched_core *c, sk_peer node, uint64_t key, uint32_t ref,
                  const char *user, uint8_t status, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_TASK_OUTCOME};
    sk_task_outcome *o = &m.m_task_outcome;
    o->to_key = key;
    o->to_ref = ref;
    o->to_user = user;
    o->to_node = "far";
    o->to_status = status;
    o->to_exit = status == SK_TASK_OK ? 0 : 3;
    o->to_output = (sk_bytes){(const uint8_t *)"tail", 4};
    o->to_launch_us = 10;
    o->to_end_us = 20;
    st_node_msg(c, node, &m, now);
}

/* The n-th TASK_FINISHED to the frontend, or NULL. */
static const sk_task_finished *finished(sched_core *c, uint32_t n)
{
    const sk_out *o = st_nth(c, SK_MSG_TASK_FINISHED, n);
    return o != NULL && o->o_peer == ST_FE ? &o->o_msg.m_task_finished : NULL;
}

/* Takes every probe of the outbox in turn and returns the set of tasks
 * launched, as a bit mask (tasks < 32). */
static uint32_t launch_all(sched_core *c, sk_time now, sk_peer *node_of)
{
    sk_out probes[64];
    uint32_t n = 0;
    const sk_out *o;
    while (n < 64 && (o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, n)) != NULL)
        probes[n++] = *o;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sk_enqueue *e = &probes[i].o_msg.m_enqueue;
        for (uint32_t k = 0; k < e->er_count; k++) {
            const sk_task_reply *r =
                st_get_task(c, probes[i].o_peer, e->er_job, e->er_resv, now);
            if (r != NULL && r->tr_has_task) {
                mask |= 1u << r->tr_task;
                if (node_of != NULL)
                    node_of[r->tr_task] = probes[i].o_peer;
            }
        }
    }
    return mask;
}

static void test_kept_then_resubmitted(void)
{
    sched_core *c = core(60000, 100);
    offer(c, 1, 0xabc, 5, "alice", SK_TASK_OK, 1);
    offer(c, 2, 0xabc, 7, "alice", SK_TASK_FAILED, 1);
    tap_ok(STAT(c, ss_offers) == 2 && STAT(c, ss_offers_kept) == 2 &&
               st_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX) == 0,
           "offers for a job not here are kept, nothing sent");
    st_clear(c);
    static const uint32_t refs[] = {2, 5, 7, 9};
    st_submit(c, ST_FE,
              &(st_job){.sj_job = 1, .ntasks = 4, .key = 0xabc, .refs = refs},
              2);
    const sk_task_finished *f0 = finished(c, 0), *f1 = finished(c, 1);
    if (f0 != NULL && f1 != NULL && f0->tf_task == 2) {
        const sk_task_finished *x = f0;
        f0 = f1;
        f1 = x;
    }
    tap_ok(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE) == 1 && f0 != NULL &&
               f1 != NULL && f0->tf_task == 1 && f0->tf_status == SK_TASK_OK &&
               strcmp(f0->tf_node, "far") == 0 && f0->tf_output.b_len == 4 &&
               f1->tf_task == 2 && f1->tf_status == SK_TASK_FAILED &&
               f1->tf_exit == 3 && STAT(c, ss_offers_taken) == 2,
           "the resubmission's tasks 1 and 2 (refs 5, 7) end at once with "
           "the offered outcomes");
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 1, &ji);
    tap_ok(ji.ji_pending == 2 && ji.ji_done == 2,
           "the other two wait for a node");
    uint32_t mask = launch_all(c, 3, NULL);
    tap_is_int(mask, 0x9, "only tasks 0 and 3 are ever launched");
    st_clear(c);
    st_submit(c, ST_FE,
              &(st_job){.sj_job = 2, .ntasks = 4, .key = 0xabc, .refs = refs},
              4);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_taken) == 2,
           "a taken offer is gone: another job with the key gets nothing");
    sched_free(c);
}

static void test_all_offered(void)
{
    sched_core *c = core(60000, 100);
    offer(c, 1, 0x77, 0, "alice", SK_TASK_OK, 1);
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 1, .key = 0x77}, 2);
    const sk_out *d = st_nth(c, SK_MSG_JOB_DONE, 0);
    tap_ok(finished(c, 0) != NULL && d != NULL &&
               d->o_msg.m_job_done.jd_ok == 1 &&
               st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) == 0 &&
               STAT(c, ss_jobs) == 0,
           "a job whose every task was offered ends at admission, no probe");
    sched_free(c);
}

static void test_user_must_match(void)
{
    sched_core *c = core(60000, 100);
    offer(c, 1, 0x99, 0, "mallory", SK_TASK_OK, 1);
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2, .key = 0x99}, 2);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_refused) == 1 &&
               STAT(c, ss_offers_taken) == 0,
           "another user's offer under the key ends nothing");
    st_clear(c);
    offer(c, 2, 0x99, 1, "mallory", SK_TASK_OK, 3);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_refused) == 2,
           "nor does one for the job held");
    sched_free(c);
}

static void test_late_offers(void)
{
    sched_core *c = core(60000, 100);
    st_submit(
        c, ST_FE,
        &(st_job){.sj_job = 1, .ntasks = 3, .max_attempts = 3, .key = 0x55}, 1);
    sk_peer node_of[3] = {0};
    uint32_t mask = launch_all(c, 2, node_of);
    tap_is_int(mask, 0x7, "three tasks launched");
    /* Task 0: its node is lost, the retry waits first in the queue; the
     * node's outcome comes from elsewhere. */
    sched_peer_down(c, node_of[0], 3);
    sched_task_state s;
    uint32_t att;
    sk_peer on;
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(s == SCHED_TASK_PENDING && att == 1, "task 0 retried: pending");
    st_clear(c);
    sk_peer other = node_of[0] == 1 ? 2 : 1;
    offer(c, other, 0x55, 0, "alice", SK_TASK_OK, 4);
    const sk_task_finished *f = finished(c, 0);
    sched_task_get(c, ST_FE, 1, 0, &s, &att, &on);
    tap_ok(f != NULL && f->tf_task == 0 && f->tf_status == SK_TASK_OK &&
               s == SCHED_TASK_DONE &&
               st_count(c, SK_MSG_KILL_TASK, UINT32_MAX) == 0,
           "an offer ends a pending retry: reported, nothing to kill");
    /* A task still launched on a live node (the lost node may have had
     * two); an outcome of it is offered: it wins, the attempt is killed. */
    uint32_t t = node_of[1] != node_of[0] ? 1 : 2;
    sched_task_get(c, ST_FE, 1, t, &s, &att, &on);
    tap_ok(s == SCHED_TASK_LAUNCHED && on == node_of[t],
           "task %u is launched on node %u", t, node_of[t]);
    st_clear(c);
    offer(c, other, 0x55, t, "alice", SK_TASK_FAILED, 5);
    const sk_out *k = st_nth(c, SK_MSG_KILL_TASK, 0);
    f = finished(c, 0);
    tap_ok(f != NULL && f->tf_task == t && f->tf_status == SK_TASK_FAILED &&
               k != NULL && k->o_peer == node_of[t] &&
               k->o_msg.m_kill_task.kt_task == t &&
               k->o_msg.m_kill_task.kt_attempt == 0,
           "an offer ends a launched task and kills that attempt");
    st_clear(c);
    st_finished(c, node_of[t], 1, t, 0, SK_TASK_KILLED, 6);
    offer(c, other, 0x55, t, "alice", SK_TASK_OK, 6);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_late) == 1,
           "first outcome wins: the killed attempt's end and a second offer "
           "report nothing");
    st_clear(c);
    offer(c, other, 0x55, 42, "alice", SK_TASK_OK, 6);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_late) == 2,
           "an offer naming no task of the job is counted");
    offer(c, ST_FE, 0x55, 3 - t, "alice", SK_TASK_OK, 6);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_bad_peer) >= 1,
           "an offer from a frontend is refused");
    sched_free(c);
}

static void test_bounds(void)
{
    sched_core *c = core(1000, 2);
    offer(c, 1, 0x11, 0, "alice", SK_TASK_OK, 100);
    offer(c, 1, 0x11, 1, "alice", SK_TASK_OK, 200);
    offer(c, 1, 0x12, 0, "alice", SK_TASK_OK, 300);
    tap_ok(STAT(c, ss_offers_full) == 1 && STAT(c, ss_offers_kept) == 3,
           "over max_offers the oldest is dropped and counted");
    tap_ok(sched_next_deadline(c) == 200 + 1000 * 1000,
           "the next deadline is the oldest kept offer's end");
    sched_on_timer(c, 200 + 1000 * 1000);
    tap_ok(STAT(c, ss_offers_expired) == 1 &&
               sched_next_deadline(c) == 300 + 1000 * 1000,
           "at offer_keep_ms it expires");
    sched_on_timer(c, 300 + 1000 * 1000);
    tap_ok(STAT(c, ss_offers_expired) == 2 &&
               sched_next_deadline(c) == SK_TIME_NEVER,
           "none left, no deadline");
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2, .key = 0x11},
              400 + 1000 * 1000);
    tap_ok(finished(c, 0) == NULL && STAT(c, ss_offers_taken) == 0,
           "dropped and expired offers end nothing");
    sched_free(c);
}

static void test_refs_checked(void)
{
    sched_core *c = core(60000, 100);
    static const uint32_t twice[] = {3, 3};
    st_submit(c, ST_FE,
              &(st_job){.sj_job = 1, .ntasks = 2, .key = 0x5, .refs = twice},
              1);
    tap_ok(st_count(c, SK_MSG_JOB_REJECTED, ST_FE) == 1 &&
               STAT(c, ss_jobs) == 0,
           "refs that do not increase under a key are refused");
    st_clear(c);
    static const uint32_t ok[] = {1, 4};
    st_submit(c, ST_FE,
              &(st_job){.sj_job = 2, .ntasks = 2, .key = 0x5, .refs = ok}, 1);
    const sk_task_reply *r = NULL;
    const sk_out *o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, 0);
    if (o != NULL)
        r = st_get_task(c, o->o_peer, o->o_msg.m_enqueue.er_job,
                        o->o_msg.m_enqueue.er_resv, 2);
    tap_ok(r != NULL && r->tr_has_task && r->tr_key == 0x5 &&
               r->tr_ref == ok[r->tr_task],
           "TASK_REPLY names the task by the job's key and its ref");
    sched_free(c);
}

int main(void)
{
    tap_timeout(30);
    sk_log_set_sink(quiet, NULL);
    tap_plan_lazy();
    test_kept_then_resubmitted();
    test_all_offered();
    test_user_must_match();
    test_late_offers();
    test_bounds();
    test_refs_checked();
    tap_done();
    return 0;
}
