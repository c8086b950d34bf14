/*
 * fd_core.c - the flow node core's frame: creation, the message switch,
 * timers and deadlines (when a round is due), the scratch memory behind
 * outgoing messages, and inspection.
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scratch memory and the outbox -------------------------------------*/

void *fd_scratch_alloc(fd_core *c, size_t n)
{
    fd_scratch *s = &c->c_scratch;
    if (s->sc_len == s->sc_cap) {
        size_t cap = s->sc_cap < 16 ? 16 : s->sc_cap * 2;
        void **p = realloc(s->sc_ptr, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        s->sc_ptr = p;
        s->sc_cap = cap;
    }
    void *m = calloc(1, n > 0 ? n : 1);
    if (m != NULL)
        s->sc_ptr[s->sc_len++] = m;
    return m;
}

char *fd_scratch_printf(fd_core *c, const char *fmt, ...)
{
    char buf[SK_MAX_REASON_LEN + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    char *s = fd_scratch_alloc(c, n + 1);
    if (s != NULL)
        memcpy(s, buf, n + 1);
    return s;
}

void fd_enter(fd_core *c)
{
    /* the contract: the driver empties the outbox between calls (what
     * the messages point to is freed below) */
    SK_ASSERT(c->c_out.ob_len == 0);
    for (size_t i = 0; i < c->c_scratch.sc_len; i++)
        free(c->c_scratch.sc_ptr[i]);
    c->c_scratch.sc_len = 0;
}

sk_msg *fd_push(fd_core *c, sk_peer to, sk_msg_type type)
{
    sk_msg *m = sk_outbox_push(&c->c_out, to, type);
    if (m == NULL)
        c->c_st.fs_nomem++;
    return m;
}

void fd_event(fd_core *c, sk_time now)
{
    if (c->c_events++ == 0)
        c->c_first_event = now;
}

/* ---- creation -----------------------------------------------------------*/

int fd_core_new(const fd_config *cfg, uint64_t epoch, sk_time now,
                fd_core **out, char *err, size_t errlen)
{
    fd_config def;
    if (cfg == NULL) {
        fd_config_init(&def);
        cfg = &def;
    }
    char why[160];
    if (fd_config_check(cfg, why, sizeof why) != 0) {
        if (err != NULL)
            snprintf(err, errlen, "%s", why);
        return SK_ECONFIG;
    }
    if (epoch == 0 || epoch >= ((uint64_t)1 << 31)) {
        if (err != NULL)
            snprintf(err, errlen, "epoch must be in 1..2^31-1, got %llu",
                     (unsigned long long)epoch);
        return SK_ECONFIG;
    }
    fd_core *c = calloc(1, sizeof *c);
    if (c == NULL)
        return SK_ENOMEM;
    c->c_cfg = *cfg;
    c->c_pol = fd_policy_find(cfg->fdc_policy);
    c->c_epoch = epoch;
    c->c_settle_until = now + (sk_time)cfg->fdc_settle_ms * 1000;
    c->c_cx_wake = SK_TIME_NEVER;
    c->c_resv_next = 1;
    fd_list_init(&c->c_by_seen);
    fd_list_init(&c->c_reserves);
    fd_list_init(&c->c_pref_waiting);
    fd_list_init(&c->c_waiting);
    fd_list_init(&c->c_fast);
    fd_list_init(&c->c_assigned);
    fd_list_init(&c->c_dirty_classes);
    fd_list_init(&c->c_dirty_tasks);
    fd_list_init(&c->c_dirty_nodes);
    fd_list_init(&c->c_dirty_jobs);
    fd_list_init(&c->c_mchanges);
    fd_list_init(&c->c_sched_gone);
    fd_list_init(&c->c_sched_back);
    int rc = fd_net_new(&c->c_net);
    if (rc == 0)
        rc = c->c_pol->po_init(c, c->c_net);
    if (rc != 0) {
        fd_core_free(c);
        return SK_ENOMEM;
    }
    *out = c;
    return 0;
}

void fd_core_free(fd_core *c)
{
    if (c == NULL)
        return;
    uint32_t pos = 0;
    uint64_t key;
    fd_sched *s;
    while ((s = sk_map_next(&c->c_sched_by_peer, &pos, &key)) != NULL)
        fd_sched_free(c, s);
    fd_grace_free(c);
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL)
            fd_job_free(c, j);
    }
    for (uint32_t i = 0; i < c->c_nodes.sl_len; i++) {
        fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n != NULL)
            fd_node_free(c, n);
    }
    for (uint32_t i = 0; i < c->c_racks.sl_len; i++)
        free(fd_slots_get(&c->c_racks, i));
    for (uint32_t i = 0; i < c->c_classes.sl_len; i++) {
        fd_class *k = fd_slots_get(&c->c_classes, i);
        if (k != NULL)
            fd_class_free(c, k);
    }
    fd_slots_free(&c->c_classes);
    fd_slots_free(&c->c_nodes);
    fd_slots_free(&c->c_racks);
    fd_slots_free(&c->c_jobs);
    fd_slots_free(&c->c_tasks);
    fd_due_free(c);
    sk_map_free(&c->c_node_by_peer);
    sk_map_free(&c->c_node_by_name);
    sk_map_free(&c->c_away);
    sk_map_free(&c->c_sched_by_peer);
    sk_map_free(&c->c_task_by_resv);
    fd_dump_free(c);
    sk_outbox_clear(&c->c_out); /* unsent: the driver is done */
    fd_enter(c);
    free(c->c_scratch.sc_ptr);
    sk_outbox_free(&c->c_out);
    fd_net_free(c->c_net);
    free(c);
}

/* ---- inputs -------------------------------------------------------------*/

void fd_leave(fd_core *c)
{
    fd_membership_flush(c);
}

void fd_core_stalled(fd_core *c, sk_time now, sk_time gap)
{
    fd_enter(c);
    for (fd_link *l = c->c_by_seen.l_next; l != &c->c_by_seen; l = l->l_next) {
        fd_node *n = FD_CONTAINER(l, fd_node, n_seen_link);
        n->n_last_seen =
            n->n_last_seen + gap < now ? n->n_last_seen + gap : now;
    }
    for (fd_link *l = c->c_reserves.l_next; l != &c->c_reserves;
         l = l->l_next) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_resv_link);
        t->t_since = t->t_since + gap < now ? t->t_since + gap : now;
    }
    c->c_stall_end = now + (sk_time)c->c_cfg.fdc_node_timeout_ms * 1000;
    c->c_st.fs_stalls++;
    sk_warn("flowd: not run for %lld ms (stopped or starved): the nodes' "
            "silence meanwhile is forgiven",
            (long long)(gap / 1000));
    fd_leave(c);
}

void fd_core_on_msg(fd_core *c, sk_time now, sk_peer from, const sk_msg *msg)
{
    fd_enter(c);
    fd_node *n = NULL;
    fd_sched *s = NULL;
    switch (msg->m_type) {
    case SK_MSG_HELLO:
        if (msg->m_hello.he_role == SK_ROLE_NODEMON)
            fd_on_hello(c, now, from, &msg->m_hello);
        else if (msg->m_hello.he_role == SK_ROLE_SCHEDULER)
            fd_on_sched_hello(c, now, from, &msg->m_hello);
        else
            c->c_st.fs_bad_peer++;
        break;
    case SK_MSG_HEARTBEAT:
    case SK_MSG_RESERVE_ACK:
    case SK_MSG_RESERVE_REJECT:
        if ((n = fd_node_by_peer(c, from)) == NULL) {
            c->c_st.fs_bad_peer++;
            break;
        }
        if (msg->m_type == SK_MSG_HEARTBEAT)
            fd_on_heartbeat(c, now, n, &msg->m_heartbeat);
        else
            fd_on_reserve_answer(c, now, n, &msg->m_reserve_ack,
                                 msg->m_type == SK_MSG_RESERVE_ACK);
        break;
    case SK_MSG_SUBMIT_JOB:
    case SK_MSG_CANCEL_JOB:
    case SK_MSG_TASK_FINISHED:
        if ((s = fd_sched_by_peer(c, from)) == NULL) {
            c->c_st.fs_bad_peer++;
            if (msg->m_type == SK_MSG_SUBMIT_JOB) {
                sk_msg *m = fd_push(c, from, SK_MSG_JOB_REJECTED);
                if (m != NULL) {
                    m->m_job_ack.ja_job = msg->m_submit_job.sj_job;
                    m->m_job_ack.ja_reason =
                        "send HELLO as a scheduler before SUBMIT_JOB";
                }
            }
            break;
        }
        if (msg->m_type == SK_MSG_SUBMIT_JOB)
            fd_on_submit(c, now, s, &msg->m_submit_job);
        else if (msg->m_type == SK_MSG_CANCEL_JOB)
            fd_on_cancel(c, now, s, &msg->m_cancel_job);
        else
            fd_on_finished(c, now, s, &msg->m_task_finished);
        break;
    case SK_MSG_STATUS_REQUEST: {
        sk_status_reply r;
        if (fd_core_status(c, &msg->m_status_request, now, &r) != 0)
            break;
        sk_msg *m = fd_push(c, from, SK_MSG_STATUS_REPLY);
        if (m != NULL)
            m->m_status_reply = r;
        break;
    }
    default:
        c->c_st.fs_bad_type++;
        break;
    }
    fd_fast_input(c, now, msg, n);
    fd_leave(c);
}

/* peer_gone: peer's session ended; lost (not a goodbye): a scheduler's
 * work is held, and right after a stall a node is detached. */
static void peer_gone(fd_core *c, sk_time now, sk_peer peer, bool lost)
{
    fd_enter(c);
    fd_node *n = fd_node_by_peer(c, peer);
    if (n != NULL && lost && now < c->c_stall_end)
        fd_node_detach(c, n);
    else if (n != NULL)
        fd_node_down(c, now, n, lost ? "its session ended" : "it left");
    fd_sched *s = fd_sched_by_peer(c, peer);
    if (s != NULL && !(lost && fd_sched_leave(c, now, s)))
        fd_sched_down(c, now, s);
    fd_leave(c);
}

void fd_core_peer_down(fd_core *c, sk_time now, sk_peer peer)
{
    peer_gone(c, now, peer, true);
}

void fd_core_peer_left(fd_core *c, sk_time now, sk_peer peer)
{
    peer_gone(c, now, peer, false);
}

void fd_core_on_timer(fd_core *c, sk_time now)
{
    fd_enter(c);
    sk_time limit = (sk_time)c->c_cfg.fdc_node_timeout_ms * 1000;
    while (!fd_list_empty(&c->c_by_seen)) {
        fd_node *n = FD_CONTAINER(c->c_by_seen.l_next, fd_node, n_seen_link);
        if (n->n_last_seen + limit > now)
            break;
        fd_node_down(c, now, n, "no heartbeat within node_timeout_ms");
    }
    fd_reserve_timeouts(c, now);
    fd_grace_timeouts(c, now);
    fd_constraint_timeouts(c, now);
    fd_leave(c);
}

sk_time fd_round_due(const fd_core *c)
{
    if (c->c_round_out || c->c_events == 0)
        return SK_TIME_NEVER;
    sk_time t = c->c_first_event + (sk_time)c->c_cfg.fdc_round_ms * 1000;
    if (c->c_events >= (uint64_t)c->c_cfg.fdc_round_events)
        t = c->c_first_event;
    return t > c->c_settle_until ? t : c->c_settle_until;
}

sk_time fd_core_next_deadline(const fd_core *c)
{
    sk_time t = fd_round_due(c);
    if (!fd_list_empty(&c->c_by_seen)) {
        const fd_node *n =
            FD_CONTAINER(c->c_by_seen.l_next, fd_node, n_seen_link);
        sk_time d =
            n->n_last_seen + (sk_time)c->c_cfg.fdc_node_timeout_ms * 1000;
        t = d < t ? d : t;
    }
    if (!fd_list_empty(&c->c_reserves)) {
        const fd_task *k =
            FD_CONTAINER(c->c_reserves.l_next, fd_task, t_resv_link);
        sk_time d =
            k->t_since + (sk_time)c->c_cfg.fdc_reserve_timeout_ms * 1000;
        t = d < t ? d : t;
    }
    sk_time g = fd_grace_deadline(c);
    t = g < t ? g : t;
    return c->c_cx_wake < t ? c->c_cx_wake : t;
}

sk_outbox *fd_core_outbox(fd_core *c)
{
    return &c->c_out;
}

const fd_stats *fd_core_stats(const fd_core *c)
{
    return &c->c_st;
}

int fd_core_status(fd_core *c, const sk_status_request *req, sk_time now,
                   sk_status_reply *reply)
{
    return fd_status_build(c, req, now, reply);
}

/* ---- inspection ---------------------------------------------------------*/

int fd_core_task(const fd_core *c, sk_peer sched, uint64_t sj_job,
                 uint32_t task, fd_task_state *state, uint32_t *attempt,
                 sk_peer *node)
{
    fd_sched *s = fd_sched_by_peer(c, sched);
    fd_job *j = s == NULL ? NULL : fd_job_find(s, sj_job);
    if (j == NULL || task >= j->j_ntasks ||
        j->j_tasks[task].t_state == FD_TASK_DEAD)
        return SK_ENOTFOUND;
    const fd_task *t = &j->j_tasks[task];
    if (state != NULL)
        *state = (fd_task_state)t->t_state;
    if (attempt != NULL)
        *attempt = t->t_attempt;
    if (node != NULL)
        *node = t->t_node != NULL ? t->t_node->n_peer : 0;
    return 0;
}

int64_t fd_core_node_long(const fd_core *c, sk_peer node)
{
    fd_node *n = fd_node_by_peer(c, node);
    return n == NULL ? -1 : (int64_t)n->n_ntasks;
}
