/*
 * sched_core.c - the scheduler core's inputs and the life of a task:
 * peers coming and going, the messages of frontends and node monitors,
 * late binding (GET_TASK), proactive cancellation, outcomes and retries,
 * the launch timeout, and the read-only inspection API.
 */
#include "sched_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

/* Reasons the core writes into tf_output of the outcomes it decides. */
static const char WHY_NODE_LOST[] = "node lost";
static const char WHY_TIMEOUT[] = "not started within the launch timeout";
static const char WHY_NO_PREF[] = "no preferred node is live";
static const char WHY_NO_NODE[] = "no live node monitor can run the task";
static const char WHY_CANCELLED[] = "cancelled by the frontend";

sk_msg *sched_send(sched_core *c, sk_peer peer, sk_msg_type type)
{
    sk_msg *m = sk_outbox_push(&c->c_out, peer, type);
    if (m == NULL) {
        c->c_stats.ss_nomem++;
        sk_error("%s to peer %u dropped: out of memory", sk_msg_type_name(type),
                 peer);
    }
    return m;
}

/* sched_text views a C string as bytes (no copy). */
sk_bytes sched_text(const char *s)
{
    return (sk_bytes){(const uint8_t *)s, (uint32_t)strlen(s)};
}

void sched_queue_push(sched_job *j, uint32_t task)
{
    SK_ASSERT(j->j_qlen < j->j_ntasks);
    j->j_queue[(j->j_qhead + j->j_qlen) % j->j_ntasks] = task;
    j->j_qlen++;
}

void sched_queue_remove(sched_job *j, uint32_t task)
{
    uint32_t k = 0;
    while (k < j->j_qlen && j->j_queue[(j->j_qhead + k) % j->j_ntasks] != task)
        k++;
    SK_ASSERT(k < j->j_qlen);
    for (; k + 1 < j->j_qlen; k++)
        j->j_queue[(j->j_qhead + k) % j->j_ntasks] =
            j->j_queue[(j->j_qhead + k + 1) % j->j_ntasks];
    j->j_qlen--;
}

static uint32_t queue_pop(sched_job *j)
{
    uint32_t task = j->j_queue[j->j_qhead];
    j->j_qhead = (j->j_qhead + 1) % j->j_ntasks;
    j->j_qlen--;
    return task;
}

static uint32_t queue_pop_tail(sched_job *j)
{
    j->j_qlen--;
    return j->j_queue[(j->j_qhead + j->j_qlen) % j->j_ntasks];
}

static uint32_t task_index(const sched_task *t)
{
    return (uint32_t)(t - t->tk_job->j_tasks);
}

const uint64_t SCHED_WAIT_BOUNDS_US[SCHED_WAIT_NBOUNDS] = {
    100,   250,    500,    1000,   2500,    5000,    10000,    25000,
    50000, 100000, 250000, 500000, 1000000, 2500000, 10000000, 60000000};

/* Counts t's wait, from its job's acceptance to now, in ss_wait and in
 * the job's own j_wait (its percentiles in the status table). */
static void count_wait(sched_core *c, sched_job *j, sk_time now)
{
    uint64_t w = now > j->j_accepted ? (uint64_t)(now - j->j_accepted) : 0;
    uint32_t b = 0;
    while (b < SCHED_WAIT_NBOUNDS && w > SCHED_WAIT_BOUNDS_US[b])
        b++;
    c->c_stats.ss_wait[b]++;
    j->j_wait[b]++;
    c->c_stats.ss_wait_sum_us += w;
}

static void bind(sched_core *c, sched_task *t, sched_node *nd, sk_time now)
{
    sched_job *j = t->tk_job;
    count_wait(c, j, now);
    t->tk_state = SCHED_TASK_LAUNCHED;
    t->tk_node = nd;
    t->tk_launched = now;
    t->tk_lnext = NULL;
    t->tk_lprev = c->c_ltail;
    if (c->c_ltail != NULL)
        c->c_ltail->tk_lnext = t;
    else
        c->c_lhead = t;
    c->c_ltail = t;
    j->j_npending--;
    j->j_nlaunched++;
}

/* Off the launch-timeout list, once started or ended. */
static void unlist_launched(sched_core *c, sched_task *t)
{
    if (t->tk_lprev != NULL)
        t->tk_lprev->tk_lnext = t->tk_lnext;
    else
        c->c_lhead = t->tk_lnext;
    if (t->tk_lnext != NULL)
        t->tk_lnext->tk_lprev = t->tk_lprev;
    else
        c->c_ltail = t->tk_lprev;
    t->tk_lnext = t->tk_lprev = NULL;
}

void sched_task_unbind(sched_core *c, sched_task *t)
{
    if (t->tk_state == SCHED_TASK_LAUNCHED)
        unlist_launched(c, t);
    t->tk_node = NULL;
}

void sched_pending_changed(sched_core *c, sched_job *j)
{
    /* Proactive cancellation: once nothing is left to launch, every
     * probe still queued somewhere would only cost a GET_TASK round. */
    if (j->j_npending == 0 && j->j_resvs != NULL)
        sched_cancel_resvs(c, j);
    if (j->j_npending == 0)
        sched_fallback_disarm(c, j);
}

static bool job_done(sched_core *c, sched_job *j, sk_time end)
{
    if (j->j_ndone < j->j_ntasks)
        return false;
    /* Probes bound to tasks that ended while pending may remain. */
    sched_cancel_resvs(c, j);
    sk_msg *m = sched_send(c, j->j_fe->fe_peer, SK_MSG_JOB_DONE);
    if (m != NULL) {
        sk_job_done *d = &m->m_job_done;
        d->jd_job = j->j_fe_job;
        d->jd_tasks = j->j_ntasks;
        d->jd_ok = j->j_count[SK_TASK_OK];
        d->jd_failed = j->j_count[SK_TASK_FAILED];
        d->jd_killed = j->j_count[SK_TASK_KILLED];
        d->jd_lost = j->j_count[SK_TASK_LOST];
        d->jd_cancelled = j->j_count[SK_TASK_CANCELLED];
        d->jd_end_us = end;
    }
    c->c_stats.ss_jobs_done++;
    sched_job_free(c, j);
    return true;
}

/* sched_task_final records a task's outcome and tells its frontend;
 * returns true when the job ended and was freed. */
bool sched_task_final(sched_core *c, sched_task *t, uint8_t status,
                      int32_t exit_code, sk_bytes output, const char *node,
                      uint64_t launch_us, uint64_t end_us)
{
    sched_job *j = t->tk_job;
    SK_ASSERT(t->tk_state != SCHED_TASK_DONE);
    SK_ASSERT(status >= SK_TASK_OK && status <= SK_TASK_STATUS_MAX);
    bool was_pending = t->tk_state == SCHED_TASK_PENDING;
    sched_task_unbind(c, t);
    if (was_pending)
        j->j_npending--;
    else if (t->tk_state == SCHED_TASK_FLOW)
        j->j_nflow--;
    else
        j->j_nlaunched--;
    t->tk_state = SCHED_TASK_DONE;
    t->tk_outcome = status;
    t->tk_end_node = node != NULL && node[0] ? sched_name_hash(node) : 0;
    j->j_ndone++;
    j->j_count[status]++;
    c->c_stats.ss_outcome[status]++;
    sk_msg *m = sched_send(c, j->j_fe->fe_peer, SK_MSG_TASK_FINISHED);
    if (m != NULL) {
        sk_task_finished *f = &m->m_task_finished;
        f->tf_job = j->j_fe_job;
        f->tf_task = task_index(t);
        f->tf_attempt = t->tk_attempt;
        /* The node may be freed within this call; the outbox outlives it.
         * Out of memory, the report goes without the node's name. */
        const char *copy = sk_arena_strdup(&c->c_scratch, node);
        f->tf_node = copy != NULL ? copy : "";
        f->tf_status = status;
        f->tf_exit = exit_code;
        f->tf_output = output;
        f->tf_launch_us = launch_us;
        f->tf_end_us = end_us;
    }
    if (job_done(c, j, end_us))
        return true;
    if (was_pending)
        sched_pending_changed(c, j);
    return false;
}

bool sched_task_fail(sched_core *c, sched_task *t, const char *why)
{
    return sched_task_final(c, t, SK_TASK_FAILED, 0, sched_text(why), "", 0, 0);
}

/* task_lost ends the current attempt of a launched task whose node went
 * away (or that never started): another attempt if the job allows one,
 * else the final outcome LOST. Returns true if the job ended. */
static bool task_lost(sched_core *c, sched_task *t, sk_bytes why, sk_time now)
{
    sched_job *j = t->tk_job;
    const char *node = t->tk_node != NULL ? t->tk_node->nd_name : "";
    uint64_t launched = t->tk_launched;
    if (t->tk_attempt + 1 >= j->j_max_attempts)
        return sched_task_final(c, t, SK_TASK_LOST, 0, why, node, launched,
                                now);
    sched_task_unbind(c, t);
    t->tk_state = SCHED_TASK_PENDING;
    t->tk_attempt++;
    j->j_nlaunched--;
    j->j_npending++;
    c->c_stats.ss_tasks_retried++;
    uint32_t idx = task_index(t);
    /* The retry waits at the back of the queue: a node monitor that
     * stalled or was cut off may yet offer the outcome of the attempt
     * given up (docs/FAULTS.md, "Retries"), and the job's end does not
     * wait for it longer (the same work on the same slots). */
    if (t->tk_npref == 0)
        sched_queue_push(j, idx);
    if (sched_probe_task(c, j, idx) == 0)
        return false;
    if (t->tk_npref > 0) {
        if (t->tk_probes > 0 || sched_flow_take(c, j, idx))
            return false;
        c->c_stats.ss_tasks_unplaced++;
        return sched_task_fail(c, t, WHY_NO_PREF);
    }
    /* No node for fresh probes; the job's older probes may still serve
     * it, one pending task each. */
    if (j->j_unbound >= j->j_qlen)
        return false;
    uint32_t last = queue_pop_tail(j);
    SK_ASSERT(last == idx);
    if (sched_flow_take(c, j, idx))
        return false;
    return sched_task_final(c, t, SK_TASK_LOST, 0, sched_text(WHY_NO_NODE),
                            node, launched, now);
}

/* sched_kill sends KILL_TASK for the attempt of t on its node (which it
 * must have), in the ids the node knows it by: the job's, or for a task
 * flowd placed its hand-over's. */
void sched_kill(sched_core *c, sched_task *t)
{
    c->c_stats.ss_kills++;
    sk_msg *m = sched_send(c, t->tk_node->nd_peer, SK_MSG_KILL_TASK);
    if (m == NULL)
        return;
    bool flow = t->tk_flow != NULL;
    m->m_kill_task.kt_job = flow ? t->tk_flow->fl_id : t->tk_job->j_id;
    m->m_kill_task.kt_task = flow ? t->tk_fidx : task_index(t);
    m->m_kill_task.kt_attempt = t->tk_attempt;
}

/*
 * Peers
 */

static void frontend_down(sched_core *c, sched_fe *fe)
{
    while (fe->fe_list != NULL) {
        sched_job *j = fe->fe_list;
        sched_cancel_resvs(c, j);
        sched_flow_cancel(c, j);
        for (uint32_t i = 0; i < j->j_ntasks; i++)
            if (j->j_tasks[i].tk_node != NULL)
                sched_kill(c, &j->j_tasks[i]);
        c->c_stats.ss_jobs_abandoned++;
        c->c_stats.ss_tasks_abandoned += j->j_ntasks - j->j_ndone;
        sched_job_free(c, j);
    }
    sk_map_del(&c->c_fes, fe->fe_peer);
    sk_map_free(&fe->fe_jobs);
    free(fe);
    c->c_stats.ss_frontends--;
}

/* resend places again, on live nodes, the probes a lost node held. */
static void resend(sched_core *c, sched_resv *r, sk_time now)
{
    sched_job *j = r->rs_job;
    uint32_t task = r->rs_task, n = r->rs_count;
    sched_resv_take(c, r, n);
    if (task == SK_TASK_ANY) {
        /* Unbound probes serve only tasks without preferences. */
        if (j->j_qlen > 0) {
            uint32_t k = sched_sample_any(c, j, n);
            if (k > 0) {
                sched_place(c, j, k, SK_TASK_ANY);
                c->c_stats.ss_resent += n;
            }
        }
        /* Tasks left with no probe at all would wait forever. */
        while (j->j_qlen > j->j_unbound) {
            uint32_t idx = queue_pop_tail(j);
            if (sched_flow_take(c, j, idx))
                continue;
            if (sched_task_final(c, &j->j_tasks[idx], SK_TASK_FAILED, 0,
                                 sched_text(WHY_NO_NODE), "", 0, now))
                return;
        }
        return;
    }
    sched_task *t = &j->j_tasks[task];
    if (t->tk_state != SCHED_TASK_PENDING)
        return;
    uint32_t k = sched_sample_task(c, j, t, n);
    if (k > 0) {
        sched_place(c, j, k, task);
        c->c_stats.ss_resent += n;
    } else if (t->tk_probes == 0 && !sched_flow_take(c, j, task)) {
        c->c_stats.ss_tasks_unplaced++;
        sched_task_fail(c, t, WHY_NO_PREF);
    }
}

static void node_down(sched_core *c, sched_node *nd, sk_time now)
{
    /* nd is out of the live array and the indexes already, so neither
     * the new probes nor the retries can land on it. */
    while (nd->nd_resvs != NULL)
        resend(c, nd->nd_resvs, now);
    /* Its tasks are found among all the jobs' (a node keeps no list of
     * them: linking and unlinking every task cost two cold cache lines,
     * a lost node costs a walk over the tasks in flight). A job that ends
     * is freed; the next one is not touched by that. */
    for (sched_job *j = c->c_all, *next; j != NULL; j = next) {
        next = j->j_anext;
        for (uint32_t i = 0; i < j->j_ntasks; i++) {
            sched_task *t = &j->j_tasks[i];
            if (t->tk_node != nd)
                continue;
            /* flowd re-plans its tasks (it sees the node go too). */
            if (t->tk_flow != NULL)
                sched_flow_node_down(c, t);
            else if (task_lost(c, t, sched_text(WHY_NODE_LOST), now))
                break;
        }
    }
    sched_node_destroy(nd);
}

void sched_peer_up(sched_core *c, sk_peer peer, const sk_hello *hello,
                   sk_time now)
{
    (void)now;
    sk_arena_rewind(&c->c_scratch);
    if (sk_map_get(&c->c_nodes, peer) != NULL ||
        sk_map_get(&c->c_fes, peer) != NULL ||
        (c->c_flowd_up && peer == c->c_flowd)) {
        c->c_stats.ss_bad_peer++;
        return;
    }
    if (hello->he_role == SK_ROLE_FLOWD)
        sched_flow_up(c, peer, hello->he_incarnation);
    if (hello->he_role != SK_ROLE_NODEMON && hello->he_role != SK_ROLE_FRONTEND)
        return;
    if (hello->he_role == SK_ROLE_NODEMON)
        sched_node_add(c, peer, hello);
    else
        sched_fe_get(c, peer);
}

void sched_peer_down(sched_core *c, sk_peer peer, sk_time now)
{
    sk_arena_rewind(&c->c_scratch);
    sched_flow_down(c, peer);
    sched_node *nd = sched_node_unlink(c, peer);
    if (nd != NULL)
        node_down(c, nd, now);
    sched_fe *fe = sk_map_get(&c->c_fes, peer);
    if (fe != NULL)
        frontend_down(c, fe);
    sched_auth_forget(c, peer);
}

/*
 * Messages
 */

static void reply_nothing(sched_core *c, sk_peer to, const sk_get_task *gt)
{
    c->c_stats.ss_nothing_left++;
    sk_msg *m = sched_send(c, to, SK_MSG_TASK_REPLY);
    if (m != NULL) {
        m->m_task_reply.tr_job = gt->gt_job;
        m->m_task_reply.tr_resv = gt->gt_resv;
        m->m_task_reply.tr_framework = "";
    }
}

/* pick_bound finds a pending task for a probe bound to a task that is
 * pending no more: another task of the job that probed the same node.
 * Such probes sit next to r in the node's list (placed in one call). */
static sched_task *pick_bound(sched_resv *r)
{
    sched_job *j = r->rs_job;
    for (sched_resv *p = r->rs_nprev; p != NULL && p->rs_job == j;
         p = p->rs_nprev)
        if (p->rs_task != SK_TASK_ANY &&
            j->j_tasks[p->rs_task].tk_state == SCHED_TASK_PENDING)
            return &j->j_tasks[p->rs_task];
    for (sched_resv *p = r->rs_nnext; p != NULL && p->rs_job == j;
         p = p->rs_nnext)
        if (p->rs_task != SK_TASK_ANY &&
            j->j_tasks[p->rs_task].tk_state == SCHED_TASK_PENDING)
            return &j->j_tasks[p->rs_task];
    return NULL;
}

static void on_get_task(sched_core *c, sk_peer from, const sk_get_task *gt,
                        sk_time now)
{
    /* Only a node monitor holds a slot waiting for the answer; anyone
     * else asking is counted and ignored. */
    sched_node *asker = sk_map_get(&c->c_nodes, from);
    if (asker == NULL) {
        c->c_stats.ss_bad_peer++;
        return;
    }
    asker->nd_asked = true; /* its re-announcements are over (FAULTS.md) */
    sched_resv *r = sk_map_get(&c->c_resvs, gt->gt_resv);
    /* A node always gets an answer: it holds a slot until it does. A
     * probe cancelled while its GET_TASK was on the way lands here. */
    if (r == NULL || r->rs_job->j_id != gt->gt_job) {
        c->c_stats.ss_unknown_resv++;
        reply_nothing(c, from, gt);
        return;
    }
    if (r->rs_node->nd_peer != from) {
        c->c_stats.ss_bad_peer++;
        reply_nothing(c, from, gt);
        return;
    }
    sched_job *j = r->rs_job;
    sched_node *nd = r->rs_node;
    sched_task *t = NULL;
    if (r->rs_task != SK_TASK_ANY) {
        t = &j->j_tasks[r->rs_task];
        if (t->tk_state != SCHED_TASK_PENDING)
            t = pick_bound(r);
    }
    if (t == NULL && j->j_qlen > 0)
        t = &j->j_tasks[queue_pop(j)];
    sched_resv_take(c, r, 1);
    if (t == NULL) {
        reply_nothing(c, from, gt);
        return;
    }
    bind(c, t, nd, now);
    c->c_stats.ss_tasks_launched++;
    sk_msg *m = sched_send(c, from, SK_MSG_TASK_REPLY);
    if (m != NULL) {
        sk_task_reply *tr = &m->m_task_reply;
        tr->tr_job = j->j_id;
        tr->tr_resv = gt->gt_resv;
        tr->tr_has_task = true;
        tr->tr_task = task_index(t);
        tr->tr_attempt = t->tk_attempt;
        tr->tr_spec = (sk_bytes){t->tk_spec, t->tk_spec_len};
        tr->tr_framework = j->j_framework;
        tr->tr_key = j->j_key;
        tr->tr_ref = t->tk_ref;
    }
    sched_pending_changed(c, j);
}

/* task_of finds the task a node monitor reports on, counting why not. */
static sched_task *task_of(sched_core *c, sk_peer from, uint64_t job,
                           uint32_t task, uint32_t attempt)
{
    sched_job *j = sk_map_get(&c->c_jobs, job);
    if (j == NULL) {
        c->c_stats.ss_unknown_job++;
        return NULL;
    }
    if (task >= j->j_ntasks) {
        c->c_stats.ss_bad_field++;
        return NULL;
    }
    sched_task *t = &j->j_tasks[task];
    if (attempt != t->tk_attempt) {
        c->c_stats.ss_stale++;
        return NULL;
    }
    if (t->tk_state != SCHED_TASK_LAUNCHED &&
        t->tk_state != SCHED_TASK_RUNNING) {
        c->c_stats.ss_bad_state++;
        return NULL;
    }
    if (t->tk_node->nd_peer != from) {
        c->c_stats.ss_bad_peer++;
        return NULL;
    }
    return t;
}

static void on_task_started(sched_core *c, sk_peer from,
                            const sk_task_started *st)
{
    if (c->c_flows.mp_len > 0 && sched_flow_started(c, from, st))
        return;
    if (sched_node_fence(c, from, st->st_job, st->st_task, st->st_attempt))
        return;
    sched_task *t = task_of(c, from, st->st_job, st->st_task, st->st_attempt);
    if (t == NULL)
        return;
    if (t->tk_state != SCHED_TASK_LAUNCHED) {
        c->c_stats.ss_bad_state++;
        return;
    }
    unlist_launched(c, t);
    t->tk_state = SCHED_TASK_RUNNING;
    sk_msg *m = sched_send(c, t->tk_job->j_fe->fe_peer, SK_MSG_TASK_STARTED);
    if (m != NULL) {
        sk_task_started *o = &m->m_task_started;
        o->st_job = t->tk_job->j_fe_job;
        o->st_task = st->st_task;
        o->st_attempt = st->st_attempt;
        o->st_node = t->tk_node->nd_name;
        o->st_launch_us = st->st_launch_us;
    }
}

static void on_task_finished(sched_core *c, sk_peer from,
                             const sk_task_finished *tf, sk_time now)
{
    if (tf->tf_status < SK_TASK_OK || tf->tf_status > SK_TASK_STATUS_MAX ||
        (tf->tf_output.b_len > 0 && tf->tf_output.b_data == NULL)) {
        c->c_stats.ss_bad_field++;
        return;
    }
    /* The message is the driver's: keep the tail of the output. */
    sk_bytes out = tf->tf_output;
    if (out.b_len > SK_MAX_OUTPUT_BYTES) {
        out.b_data += out.b_len - SK_MAX_OUTPUT_BYTES;
        out.b_len = SK_MAX_OUTPUT_BYTES;
    }
    uint8_t *copy = out.b_len ? sk_arena_alloc(&c->c_scratch, out.b_len) : NULL;
    if (copy != NULL)
        memcpy(copy, out.b_data, out.b_len);
    else
        out.b_len = 0;
    out.b_data = copy;
    if (c->c_flows.mp_len > 0 && sched_flow_finished(c, from, tf, out))
        return;
    sched_task *t = task_of(c, from, tf->tf_job, tf->tf_task, tf->tf_attempt);
    if (t == NULL)
        return;
    if (tf->tf_status == SK_TASK_LOST) {
        task_lost(c, t, out, now);
        return;
    }
    sched_task_final(c, t, tf->tf_status, tf->tf_exit, out, t->tk_node->nd_name,
                     tf->tf_launch_us, tf->tf_end_us);
}

static void on_cancel_job(sched_core *c, sk_peer from, const sk_cancel_job *cj,
                          sk_time now)
{
    sched_job *j = sched_job_lookup(c, from, cj->cj_job);
    if (j == NULL) {
        c->c_stats.ss_unknown_job++;
        return;
    }
    c->c_stats.ss_jobs_cancelled++;
    sched_cancel_resvs(c, j);
    sched_flow_cancel(c, j);
    j->j_qlen = 0;
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        sched_task *t = &j->j_tasks[i];
        if (t->tk_state == SCHED_TASK_DONE)
            continue;
        const char *node = "";
        uint64_t launched = 0;
        if (t->tk_node != NULL) {
            node = t->tk_node->nd_name;
            launched = t->tk_launched;
            sched_kill(c, t);
        }
        if (sched_task_final(c, t, SK_TASK_CANCELLED, 0,
                             sched_text(WHY_CANCELLED), node, launched, now))
            return;
    }
}

void sched_on_message(sched_core *c, sk_peer from, const sk_msg *msg,
                      sk_time now)
{
    sk_arena_rewind(&c->c_scratch);
    switch (msg->m_type) {
    case SK_MSG_SUBMIT_JOB: {
        sk_submit_job sj = msg->m_submit_job;
        if (sched_auth_submit(c, from, &sj))
            sched_submit(c, from, &sj, now);
        break;
    }
    case SK_MSG_CANCEL_JOB:
        if (!sched_admin_cancel(c, from, &msg->m_cancel_job, now))
            on_cancel_job(c, from, &msg->m_cancel_job, now);
        break;
    case SK_MSG_GET_TASK:
        on_get_task(c, from, &msg->m_get_task, now);
        break;
    case SK_MSG_TASK_STARTED:
        on_task_started(c, from, &msg->m_task_started);
        break;
    case SK_MSG_TASK_FINISHED:
        on_task_finished(c, from, &msg->m_task_finished, now);
        break;
    case SK_MSG_JOB_ACCEPTED:
    case SK_MSG_JOB_REJECTED:
        sched_flow_answer(c, from, msg);
        break;
    case SK_MSG_MEMBERSHIP:
        /* The directory comes from flowd, never from anyone else. */
        if (!c->c_flowd_up || from != c->c_flowd || !sched_auth_daemon(c, from))
            c->c_stats.ss_bad_peer++;
        else
            sched_node_membership(c, from, &msg->m_membership);
        break;
    case SK_MSG_STATUS_REQUEST:
        sched_status_reply(c, from, &msg->m_status_request, now);
        break;
    case SK_MSG_TASK_OUTCOME:
        sched_offer_in(c, from, &msg->m_task_outcome, now);
        break;
    default:
        c->c_stats.ss_bad_type++;
        break;
    }
}

void sched_on_timer(sched_core *c, sk_time now)
{
    sk_arena_rewind(&c->c_scratch);
    sched_fallback_due(c, now);
    sched_offers_expire(c, now);
    if (c->c_cfg.sc_launch_timeout_ms == 0)
        return;
    sk_time limit = (sk_time)c->c_cfg.sc_launch_timeout_ms * 1000;
    /* Launch times only grow, so the list is oldest first. */
    while (c->c_lhead != NULL && now >= c->c_lhead->tk_launched &&
           now - c->c_lhead->tk_launched >= limit) {
        sched_task *t = c->c_lhead;
        c->c_stats.ss_launch_timeouts++;
        sched_kill(c, t);
        task_lost(c, t, sched_text(WHY_TIMEOUT), now);
    }
}

sk_time sched_next_deadline(const sched_core *c)
{
    sk_time fallback = sched_fallback_deadline(c);
    sk_time offers = sched_offers_deadline(c);
    if (offers < fallback)
        fallback = offers;
    if (c->c_cfg.sc_launch_timeout_ms == 0 || c->c_lhead == NULL)
        return fallback;
    sk_time limit = (sk_time)c->c_cfg.sc_launch_timeout_ms * 1000;
    sk_time at = c->c_lhead->tk_launched;
    at = at > SK_TIME_NEVER - limit ? SK_TIME_NEVER : at + limit;
    return at < fallback ? at : fallback;
}

sk_outbox *sched_outbox(sched_core *c)
{
    return &c->c_out;
}

const sched_stats *sched_stats_get(const sched_core *c)
{
    return &c->c_stats;
}

/*
 * Creation
 */

int sched_new(const sched_config *cfg, uint64_t seed, sched_core **out)
{
    sched_config defaults;
    if (cfg == NULL) {
        sched_config_init(&defaults);
        cfg = &defaults;
    }
    char err[256];
    if (sched_config_check(cfg, err, sizeof err) != 0) {
        sk_error("scheduler core: %s", err);
        return SK_ECONFIG;
    }
    sched_core *c = calloc(1, sizeof *c);
    if (c == NULL)
        return SK_ENOMEM;
    c->c_cfg = *cfg;
    sk_rng_seed(&c->c_rng, seed);
    *out = c;
    return 0;
}

void sched_free(sched_core *c)
{
    if (c == NULL)
        return;
    while (c->c_all != NULL)
        sched_job_free(c, c->c_all);
    for (uint32_t i = 0; i < c->c_fes.mp_cap; i++) {
        sched_fe *fe = c->c_fes.mp_vals[i];
        if (fe != NULL) {
            sk_map_free(&fe->fe_jobs);
            free(fe);
        }
    }
    for (uint32_t i = 0; i < c->c_nodes.mp_cap; i++)
        sched_node_destroy(c->c_nodes.mp_vals[i]);
    sk_map_free(&c->c_nodes);
    sk_map_free(&c->c_names);
    sk_map_free(&c->c_fes);
    sk_map_free(&c->c_jobs);
    sk_map_free(&c->c_resvs);
    sk_map_free(&c->c_flows);
    sk_map_free(&c->c_users);
    sk_map_free(&c->c_keys);
    sched_offers_free(c);
    sched_auth_free(c);
    free(c->c_live);
    free(c->c_sat);
    free(c->c_picks);
    sk_outbox_free(&c->c_out);
    sk_arena_fini(&c->c_scratch);
    free(c);
}

/*
 * Inspection
 */

int sched_job_info_get(const sched_core *c, sk_peer fe, uint64_t sj_job,
                       sched_job_info *out)
{
    const sched_job *j = sched_job_lookup(c, fe, sj_job);
    if (j == NULL)
        return SK_ENOTFOUND;
    memset(out, 0, sizeof *out);
    out->ji_id = j->j_id;
    out->ji_tasks = j->j_ntasks;
    out->ji_pending = j->j_npending;
    out->ji_launched = j->j_nlaunched;
    out->ji_done = j->j_ndone;
    out->ji_flow = j->j_nflow;
    out->ji_resv = j->j_resv_open;
    /* Inspection may walk: it is for tests and status, not the hot path. */
    for (const sched_resv *r = j->j_resvs; r != NULL; r = r->rs_jnext) {
        const sched_resv *p = j->j_resvs;
        while (p != r && p->rs_node != r->rs_node)
            p = p->rs_jnext;
        if (p == r)
            out->ji_resv_nodes++;
    }
    return 0;
}

int sched_job_resv_on(const sched_core *c, sk_peer fe, uint64_t sj_job,
                      sk_peer node, uint32_t *count)
{
    const sched_job *j = sched_job_lookup(c, fe, sj_job);
    if (j == NULL)
        return SK_ENOTFOUND;
    *count = 0;
    for (const sched_resv *r = j->j_resvs; r != NULL; r = r->rs_jnext)
        if (r->rs_node->nd_peer == node)
            *count += r->rs_count;
    return 0;
}

int sched_task_get(const sched_core *c, sk_peer fe, uint64_t sj_job,
                   uint32_t task, sched_task_state *state, uint32_t *attempt,
                   sk_peer *node)
{
    const sched_job *j = sched_job_lookup(c, fe, sj_job);
    if (j == NULL || task >= j->j_ntasks)
        return SK_ENOTFOUND;
    const sched_task *t = &j->j_tasks[task];
    *state = (sched_task_state)t->tk_state;
    *attempt = t->tk_attempt;
    *node = t->tk_node != NULL ? t->tk_node->nd_peer : 0;
    return 0;
}

bool sched_node_live(const sched_core *c, sk_peer peer)
{
    const sched_node *nd = sk_map_get(&c->c_nodes, peer);
    return nd != NULL && nd->nd_live != SCHED_NOT_LIVE &&
           nd->nd_state == SK_NODE_UP;
}
