/*
 * fd_grace.c - a scheduler's work outlives its session for a while.
 *
 * A session between a scheduler and the flow node can end while both
 * live on: a partition, or either side stalled past the transport's
 * heartbeat bound. Cancelling the scheduler's jobs then (as when it
 * dies) kills its running long tasks for nothing. So when a scheduler's
 * session ends its record stays, "gone", for fdc_sched_grace_ms: its
 * tasks stay placed and running, and the outcomes the core decides for
 * them (LOST, FAILED) are kept; its waiting tasks are not placed until
 * it re-forwards their job (their node monitors would report to nobody,
 * and a scheduler that dropped the job meanwhile, or whose frontend
 * moved it elsewhere, does not re-forward it). A HELLO with the same he_id and
 * he_incarnation (the same process) within the grace takes the work
 * back: the kept outcomes go out at once, and the hand-overs the
 * scheduler re-forwards on flowd's HELLO (it re-forwards everything in
 * flight) are matched with the held jobs instead of being refused as
 * duplicates: a task it reports done ends here, a task it holds that
 * ended here meanwhile (the heartbeats no longer listed it, its outcome
 * went to the scheduler from its node, or nowhere) is reported LOST,
 * and every other task keeps its state here. A held job not re-forwarded
 * within fdc_node_timeout_ms of the return is one the scheduler dropped
 * meanwhile (cancelled while it could not tell): it is cancelled. A
 * HELLO of another incarnation (a restart, which knows nothing of the
 * work) or the grace running out cancels the work, as a grace of 0 does
 * at once. So does another scheduler handing over the same frontend job
 * (its sj_key): the frontend moved it, and holding it would keep the
 * slots its waiting tasks are given from the new copy until the grace
 * ends (taken_over).
 *
 * Costs: a session ending O(1); a return O(jobs held + outcomes kept);
 * a scheduler HELLO O(schedulers in their grace); timers O(1) each.
 */
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

static sk_time grace_us(const fd_core *c)
{
    return (sk_time)c->c_cfg.fdc_sched_grace_ms * 1000;
}

static sk_time confirm_us(const fd_core *c)
{
    return (sk_time)c->c_cfg.fdc_node_timeout_ms * 1000;
}

static void kept_free(fd_sched *s)
{
    for (uint32_t i = 0; i < s->s_nkept; i++)
        free(s->s_kept[i].k_why);
    free(s->s_kept);
    s->s_kept = NULL;
    s->s_nkept = s->s_kept_cap = 0;
}

/* forget_ended drops the ids of s's jobs that ended while it was gone. */
static void forget_ended(fd_sched *s)
{
    sk_map_free(&s->s_ended);
    memset(&s->s_ended, 0, sizeof s->s_ended);
}

void fd_send_outcome(fd_core *c, fd_sched *s, uint64_t job, uint32_t task,
                     uint32_t attempt, uint8_t status, const char *node,
                     const char *why, sk_time end)
{
    sk_msg *m = fd_push(c, s->s_peer, SK_MSG_TASK_FINISHED);
    if (m == NULL)
        return;
    sk_task_finished *tf = &m->m_task_finished;
    tf->tf_job = job;
    tf->tf_task = task;
    tf->tf_attempt = attempt;
    tf->tf_node = fd_scratch_printf(c, "%s", node);
    if (tf->tf_node == NULL)
        tf->tf_node = "";
    tf->tf_status = status;
    char *out = why != NULL ? fd_scratch_printf(c, "%s", why) : NULL;
    tf->tf_output.b_data = (const uint8_t *)out;
    tf->tf_output.b_len = out != NULL ? (uint32_t)strlen(out) : 0;
    tf->tf_end_us = end;
}

bool fd_sched_leave(fd_core *c, sk_time now, fd_sched *s)
{
    if (c->c_cfg.fdc_sched_grace_ms == 0)
        return false;
    sk_map_del(&c->c_sched_by_peer, (uint64_t)s->s_peer + 1);
    fd_list_remove(&s->s_confirm_link);
    forget_ended(s);
    s->s_gone = true;
    s->s_gone_at = now;
    fd_list_push(&c->c_sched_gone, &s->s_gone_link);
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_sched == s && !j->j_dead)
            j->j_held = true;
    }
    c->c_st.fs_schedulers--;
    c->c_st.fs_sched_held++;
    c->c_st.fs_sched_gone++;
    sk_info("flowd: scheduler %u's session ended; its %u jobs are held for "
            "%lld ms",
            s->s_id, s->s_njobs, (long long)c->c_cfg.fdc_sched_grace_ms);
    return true;
}

bool fd_sched_return(fd_core *c, sk_time now, sk_peer peer, const sk_hello *h)
{
    fd_sched *s = NULL;
    for (fd_link *l = c->c_sched_gone.l_next; l != &c->c_sched_gone;
         l = l->l_next) {
        fd_sched *g = FD_CONTAINER(l, fd_sched, s_gone_link);
        if (g->s_id == h->he_id) {
            s = g;
            break;
        }
    }
    if (s == NULL)
        return false;
    if (s->s_incarnation != h->he_incarnation) {
        /* A restart: it knows nothing of the held work. */
        c->c_st.fs_sched_expired++;
        sk_info("flowd: scheduler %u restarted; its held jobs are cancelled",
                s->s_id);
        fd_sched_down(c, now, s);
        return false;
    }
    if (sk_map_put(&c->c_sched_by_peer, (uint64_t)peer + 1, s) != 0) {
        c->c_st.fs_nomem++;
        return false;
    }
    fd_list_remove(&s->s_gone_link);
    s->s_gone = false;
    s->s_peer = peer;
    s->s_confirm_at = now + confirm_us(c);
    fd_list_push(&c->c_sched_back, &s->s_confirm_link);
    c->c_st.fs_sched_held--;
    c->c_st.fs_schedulers++;
    c->c_st.fs_sched_reclaimed++;
    fd_membership_full(c, peer);
    for (uint32_t i = 0; i < s->s_nkept; i++) {
        const fd_kept *k = &s->s_kept[i];
        fd_send_outcome(c, s, k->k_job, k->k_task, k->k_attempt, k->k_status,
                        k->k_node, k->k_why, k->k_end);
    }
    sk_info("flowd: scheduler %u is back after %lld ms: %u jobs held, %u "
            "outcomes kept",
            s->s_id, (long long)((now - s->s_gone_at) / 1000), s->s_njobs,
            s->s_nkept);
    kept_free(s);
    return true;
}

bool fd_sched_keep(fd_core *c, sk_time now, fd_task *t, uint8_t status,
                   const char *why)
{
    fd_sched *s = t->t_job->j_sched;
    if (s == NULL || !s->s_gone)
        return false;
    if (s->s_nkept == s->s_kept_cap) {
        uint32_t cap = s->s_kept_cap ? 2 * s->s_kept_cap : 16;
        fd_kept *k = realloc(s->s_kept, (size_t)cap * sizeof *k);
        if (k == NULL) {
            c->c_st.fs_nomem++;
            return true;
        }
        s->s_kept = k;
        s->s_kept_cap = cap;
    }
    fd_kept *k = &s->s_kept[s->s_nkept++];
    k->k_job = t->t_job->j_id;
    k->k_task = t->t_index;
    k->k_attempt = t->t_attempt;
    k->k_status = status;
    k->k_end = now;
    snprintf(k->k_node, sizeof k->k_node, "%s",
             t->t_node != NULL ? t->t_node->n_name : "");
    k->k_why = why != NULL ? strdup(why) : NULL;
    c->c_st.fs_kept++;
    return true;
}

void fd_grace_job_ended(fd_core *c, fd_job *j)
{
    fd_sched *s = j->j_sched;
    if (s == NULL || !j->j_held || j->j_id == UINT64_MAX) /* no key */
        return;
    if (sk_map_put(&s->s_ended, j->j_id + 1, s) != 0)
        c->c_st.fs_nomem++;
}

/* lost_here tells s that task of job, which it holds, ended here. */
static void lost_here(fd_core *c, sk_time now, fd_sched *s, uint64_t job,
                      uint32_t task, uint32_t attempt)
{
    c->c_st.fs_gone_ended++;
    fd_send_outcome(c, s, job, task, attempt, SK_TASK_LOST, "",
                    "ended at its node while its scheduler was away; its "
                    "outcome is not known here",
                    now);
}

/* taken_over: s hands over sj, work of the frontend job sj_key; a job
 * of that key and user held for a gone scheduler was moved by its
 * frontend (failover after a kill -9, or a stall past the frontend's
 * timeout), and the gone
 * scheduler would only re-forward it to be cancelled. Cancelled now: its
 * waiting tasks no longer hold the slots the solver gives them (a held
 * task is routed but not placed, so the new hand-over waited for the
 * grace's end), and its running attempts are released with kill (the
 * new hand-over runs them again; their node monitors kill them as
 * orphans anyway, unless orphan_grace_ms keeps them). O(jobs) while a
 * scheduler is gone, nothing otherwise. */
static void taken_over(fd_core *c, sk_time now, const fd_sched *s,
                       const sk_submit_job *sj)
{
    uint64_t key = sj->sj_key;
    const char *user = sj->sj_user != NULL ? sj->sj_user : "";
    if (key == 0 || fd_list_empty(&c->c_sched_gone))
        return;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        /* The key is the frontend's name for the job, not a credential:
         * only the job's own (authenticated) user moves it. */
        if (j == NULL || j->j_dead || !j->j_held || j->j_key != key ||
            j->j_sched == s || strcmp(j->j_user, user) != 0)
            continue;
        sk_info("flowd: scheduler %u hands over job %llu of scheduler %u, "
                "which is away: its held copy is cancelled",
                s->s_id, (unsigned long long)key, j->j_sched->s_id);
        fd_job_cancel(c, now, j);
    }
}

static void reforward_accepted(fd_core *c, fd_sched *s, uint64_t job)
{
    c->c_st.fs_reforwarded++;
    sk_msg *m = fd_push(c, s->s_peer, SK_MSG_JOB_ACCEPTED);
    if (m != NULL) {
        m->m_job_ack.ja_job = job;
        m->m_job_ack.ja_reason = "";
    }
}

bool fd_grace_reforward(fd_core *c, sk_time now, fd_sched *s,
                        const sk_submit_job *sj)
{
    if (sj->sj_job != UINT64_MAX &&
        sk_map_get(&s->s_ended, sj->sj_job + 1) != NULL) {
        /* Every task ended here while it was away. */
        sk_map_del(&s->s_ended, sj->sj_job + 1);
        for (uint32_t i = 0; i < sj->sj_ntasks; i++)
            if (!sj->sj_tasks[i].ts_done)
                lost_here(c, now, s, sj->sj_job, i, sj->sj_tasks[i].ts_attempt);
        reforward_accepted(c, s, sj->sj_job);
        return true;
    }
    fd_job *j = fd_job_find(s, sj->sj_job);
    if (j == NULL || !j->j_held || j->j_ntasks != sj->sj_ntasks) {
        taken_over(c, now, s, sj);
        return false;
    }
    j->j_held = false;
    fd_event(c, now); /* its waiting tasks may be placed again */
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        fd_task *t = &j->j_tasks[i];
        const sk_task_spec *ts = &sj->sj_tasks[i];
        if (t->t_state == FD_TASK_DEAD) {
            if (!ts->ts_done)
                lost_here(c, now, s, j->j_id, i, t->t_attempt);
            continue;
        }
        if (!ts->ts_done)
            continue; /* both hold it: this core's state stands */
        /* It has the outcome (or ended the task itself): the attempt is
         * over, and a kill is harmless if it already ended. */
        if (t->t_node != NULL)
            fd_send_release(c, t->t_node, t->t_resv, j->j_id, t->t_index);
        c->c_st.fs_tasks_ended++;
        fd_task_end(c, now, t, 0, NULL);
    }
    reforward_accepted(c, s, sj->sj_job);
    return true;
}

/* confirm_due: the re-forwards of s are over; what it did not re-forward
 * it dropped while it could not tell this core. */
static void confirm_due(fd_core *c, sk_time now, fd_sched *s)
{
    fd_list_remove(&s->s_confirm_link);
    forget_ended(s);
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_sched == s && !j->j_dead && j->j_held) {
            fd_job_cancel(c, now, j);
            n++;
        }
    }
    if (n > 0)
        sk_info("flowd: scheduler %u did not re-forward %u held jobs: "
                "cancelled",
                s->s_id, n);
}

void fd_grace_timeouts(fd_core *c, sk_time now)
{
    while (!fd_list_empty(&c->c_sched_gone)) {
        fd_sched *s =
            FD_CONTAINER(c->c_sched_gone.l_next, fd_sched, s_gone_link);
        if (s->s_gone_at + grace_us(c) > now)
            break;
        c->c_st.fs_sched_expired++;
        sk_info("flowd: scheduler %u did not come back within "
                "sched_grace_ms; its %u jobs are cancelled",
                s->s_id, s->s_njobs);
        fd_sched_down(c, now, s);
    }
    while (!fd_list_empty(&c->c_sched_back)) {
        fd_sched *s =
            FD_CONTAINER(c->c_sched_back.l_next, fd_sched, s_confirm_link);
        if (s->s_confirm_at > now)
            break;
        confirm_due(c, now, s);
    }
}

sk_time fd_grace_deadline(const fd_core *c)
{
    sk_time t = SK_TIME_NEVER;
    if (!fd_list_empty(&c->c_sched_gone)) {
        const fd_sched *s =
            FD_CONTAINER(c->c_sched_gone.l_next, fd_sched, s_gone_link);
        t = s->s_gone_at + grace_us(c);
    }
    if (!fd_list_empty(&c->c_sched_back)) {
        const fd_sched *s =
            FD_CONTAINER(c->c_sched_back.l_next, fd_sched, s_confirm_link);
        t = s->s_confirm_at < t ? s->s_confirm_at : t;
    }
    return t;
}

bool fd_job_away(const fd_job *j)
{
    return j->j_held;
}

void fd_grace_forget(fd_sched *s)
{
    fd_list_remove(&s->s_gone_link);
    fd_list_remove(&s->s_confirm_link);
    forget_ended(s);
    kept_free(s);
}

void fd_grace_free(fd_core *c)
{
    while (!fd_list_empty(&c->c_sched_gone))
        fd_sched_free(
            c, FD_CONTAINER(c->c_sched_gone.l_next, fd_sched, s_gone_link));
}
