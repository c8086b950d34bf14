/*
 * fd_actions.c - from placements to messages, and their answers: RESERVE
 * a placed task on its node, RELEASE (with kill) what must stop, match
 * RESERVE_ACK and RESERVE_REJECT to the reservations they answer, and
 * give up on RESERVEs left unanswered.
 *
 * Reservation ids are the epoch in the high 32 bits and a counter in the
 * low 32, so that a restarted flow node never reuses an id an earlier
 * one handed out.
 */
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>

void fd_send_reserve(fd_core *c, sk_time now, fd_task *t, fd_node *n)
{
    uint64_t resv = (c->c_epoch << 32) | (c->c_resv_next & 0xffffffffu);
    c->c_resv_next = (c->c_resv_next + 1) & 0xffffffffu;
    if (c->c_resv_next == 0)
        c->c_resv_next = 1;
    if (sk_map_put(&c->c_task_by_resv, resv, t) != 0) {
        c->c_st.fs_nomem++;
        return; /* stays waiting */
    }
    sk_msg *m = fd_push(c, n->n_peer, SK_MSG_RESERVE);
    if (m == NULL) {
        sk_map_del(&c->c_task_by_resv, resv);
        return;
    }
    fd_task_assign(c, t, n);
    t->t_resv = resv;
    t->t_waited += now > t->t_since ? now - t->t_since : 0;
    t->t_since = now;
    fd_task_set_state(c, t, FD_TASK_RESERVED);
    fd_list_push(&c->c_reserves, &t->t_resv_link);
    fd_job *j = t->t_job;
    sk_reserve *rv = &m->m_reserve;
    rv->rv_resv = resv;
    rv->rv_job = j->j_id;
    rv->rv_task = t->t_index;
    rv->rv_attempt = t->t_attempt;
    rv->rv_sched = j->j_sched != NULL ? j->j_sched->s_id : 0;
    rv->rv_user = j->j_user;
    rv->rv_priority = j->j_priority;
    rv->rv_res = j->j_res;
    rv->rv_spec.b_data = t->t_spec;
    rv->rv_spec.b_len = t->t_spec_len;
    rv->rv_framework = j->j_framework;
    rv->rv_key = j->j_key;
    rv->rv_ref = t->t_ref;
    c->c_st.fs_reserves++;
}

void fd_send_release(fd_core *c, fd_node *n, uint64_t resv, uint64_t job,
                     uint32_t task)
{
    sk_msg *m = fd_push(c, n->n_peer, SK_MSG_RELEASE);
    if (m == NULL)
        return;
    m->m_release.rl_resv = resv;
    m->m_release.rl_job = job;
    m->m_release.rl_task = task;
    m->m_release.rl_kill = true;
    c->c_st.fs_releases++;
}

void fd_on_reserve_answer(fd_core *c, sk_time now, fd_node *n,
                          const sk_reserve_ack *ra, bool ack)
{
    fd_task *t = sk_map_get(&c->c_task_by_resv, ra->ra_resv);
    if (t == NULL || t->t_node != n || t->t_job->j_id != ra->ra_job ||
        t->t_index != ra->ra_task) {
        c->c_st.fs_unknown++;
        return;
    }
    if (ack) {
        if (t->t_state != FD_TASK_RESERVED) {
            c->c_st.fs_stale++; /* a heartbeat showed it running first */
            return;
        }
        c->c_st.fs_acks++;
        fd_list_remove(&t->t_resv_link);
        t->t_order = ++n->n_order;
        fd_task_set_state(c, t, FD_TASK_PLACED);
        return;
    }
    /* Rejected (at once, or later: its scheduler left the node). The
     * attempt never ran, so it is not counted; a task rejected over and
     * over (a request no node it gets can hold) fails. */
    c->c_st.fs_rejects++;
    sk_debug("flowd: RESERVE of job %llu task %u rejected by %s: %s",
             (unsigned long long)ra->ra_job, ra->ra_task, n->n_name,
             ra->ra_reason != NULL ? ra->ra_reason : "");
    if (++t->t_rejects >= (uint32_t)c->c_cfg.fdc_max_rejects) {
        char why[SK_MAX_REASON_LEN];
        snprintf(why, sizeof why, "rejected by %u reservations, last by %s: %s",
                 t->t_rejects, n->n_name,
                 ra->ra_reason != NULL ? ra->ra_reason : "");
        c->c_st.fs_tasks_failed++;
        fd_task_end(c, now, t, SK_TASK_FAILED, why);
        return;
    }
    fd_task_unassign(c, t);
    t->t_since = now;
    c->c_st.fs_replanned++;
    fd_task_set_state(c, t, FD_TASK_WAITING);
    fd_event(c, now);
}

void fd_reserve_timeouts(fd_core *c, sk_time now)
{
    sk_time limit = (sk_time)c->c_cfg.fdc_reserve_timeout_ms * 1000;
    while (!fd_list_empty(&c->c_reserves)) {
        fd_task *t = FD_CONTAINER(c->c_reserves.l_next, fd_task, t_resv_link);
        if (t->t_since + limit > now)
            break;
        /* It may still arrive: make sure it does not run. */
        fd_send_release(c, t->t_node, t->t_resv, t->t_job->j_id, t->t_index);
        c->c_st.fs_reserve_lost++;
        fd_task_retry(c, now, t, "RESERVE unanswered");
    }
}
