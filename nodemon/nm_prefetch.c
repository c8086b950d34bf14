/*
 * nm_prefetch.c - nm_prefetch_msg (nm_core.h): the memory one message's
 * call into the node monitor core will touch, loaded ahead in stages.
 *
 * Each stage reads only what the stages before it loaded, so that none of
 * them waits for memory:
 *   0  the core's hot fields (nm_int.h puts them first);
 *   1  reads those and the message: the hash buckets of the message's
 *      keys, the records the call will take from the pools and the lists
 *      it will append to, the queue's heads;
 *   2  reads the buckets: the records they hold;
 *   3  reads those records: what they point to (a reservation's job, user
 *      and fetch; the neighbours a finishing task leaves in its lists).
 * What a call touches beyond that (a new job's first task, say) is left to
 * the call.
 */
#include "nm_int.h"

static void load(const void *p)
{
    if (p != NULL)
        __builtin_prefetch(p);
}

/* A record that may straddle two cache lines. */
static void load2(const void *p)
{
    if (p != NULL) {
        __builtin_prefetch(p);
        __builtin_prefetch((const char *)p + 64);
    }
}

/* The lookup of hash in t at a stage: 1 loads the bucket, 2 the first
 * node in it, 3 returns the node found (NULL before stage 3). */
static const nm_hnode *lookup(const nm_htab *t, uint64_t hash, unsigned stage)
{
    nm_hnode *const *bucket = &t->ht_buckets[hash & (t->ht_nbuckets - 1)];
    if (stage == 1)
        load(bucket);
    else if (stage == 2)
        load2(*bucket);
    else
        return nm_htab_find(t, hash);
    return NULL;
}

/* A list's link and both its neighbours (a removal writes all three). */
static void load_links(const nm_link *l)
{
    load(l->ln_prev);
    load(l->ln_next);
}

/* The queue entry dispatch will serve next, one step per stage: the
 * first level's heap, its first user's FIFO, the FIFO's head. */
static void load_queue_head(const nm_queue *q, unsigned stage)
{
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        const nm_level *lv = &q->q_levels[p];
        if (lv->lv_heaplen == 0)
            continue;
        if (stage == 1)
            load(lv->lv_heap);
        else if (stage == 2)
            load(lv->lv_heap[0]);
        else
            load2(lv->lv_heap[0]->uq_fifo.ln_next);
        return;
    }
}

/* A slot handed out: the fetch record dispatch takes and the tail it
 * joins. */
static void load_fetch(const nm_core *nm)
{
    load(nm->nm_fetch_free.ln_next);
    load(nm->nm_fetches.ln_prev);
}

static void enqueue(const nm_core *nm, sk_peer from, const sk_enqueue *e,
                    unsigned stage)
{
    const nm_hnode *peer = lookup(&nm->nm_peers, nm_peer_hash(from), stage);
    const nm_hnode *job =
        lookup(&nm->nm_jobs, nm_job_hash(from, e->er_job), stage);
    lookup(&nm->nm_resvs, nm_resv_hash(from, e->er_resv), stage);
    const nm_hnode *user =
        e->er_user != NULL
            ? lookup(&nm->nm_q.q_users, nm_hash_str(e->er_user), stage)
            : NULL;
    uint8_t prio = e->er_priority < SK_PRIORITIES ? e->er_priority : 0;
    if (stage == 1) {
        load2(nm->nm_job_pool.pl_free);
        load2(nm->nm_resv_pool.pl_free);
        load(nm->nm_q.q_levels[prio].lv_heap);
        load_fetch(nm);
    } else if (stage == 3) {
        if (peer != NULL)
            load(NM_CONTAINER(peer, nm_peer, pe_hnode)->pe_jobs.ln_prev);
        if (job != NULL)
            load(NM_CONTAINER(job, nm_job, jb_hnode)->jb_resvs.ln_prev);
        if (user != NULL)
            load(&NM_CONTAINER(user, nm_user, us_hnode)->us_q[prio]);
    }
}

static void task_reply(const nm_core *nm, sk_peer from, const sk_task_reply *tr,
                       unsigned stage)
{
    lookup(&nm->nm_peers, nm_peer_hash(from), stage);
    const nm_hnode *resv =
        lookup(&nm->nm_resvs, nm_resv_hash(from, tr->tr_resv), stage);
    if (stage == 1) {
        load2(nm->nm_task_pool.pl_free);
        load(nm->nm_running.ln_prev);
        load(nm->nm_command.pe_tasks.ln_prev);
        load(nm->nm_fetch_free.ln_prev);
    } else if (stage == 3 && resv != NULL) {
        const nm_resv *r = NM_CONTAINER(resv, nm_resv, rs_hnode);
        load2(r->rs_job);
        load(r->rs_user);
        load(r->rs_fetches.ln_next);
    }
    load_queue_head(&nm->nm_q, stage);
}

static void cancel(const nm_core *nm, sk_peer from, const sk_cancel_resv *c,
                   unsigned stage)
{
    lookup(&nm->nm_peers, nm_peer_hash(from), stage);
    const nm_hnode *job =
        lookup(&nm->nm_jobs, nm_job_hash(from, c->cr_job), stage);
    if (stage == 3 && job != NULL) {
        const nm_job *j = NM_CONTAINER(job, nm_job, jb_hnode);
        if (!nm_list_empty(&j->jb_resvs))
            load2(NM_CONTAINER(j->jb_resvs.ln_next, nm_resv, rs_link));
        load_links(&j->jb_link);
    }
}

static void finished(const nm_core *nm, sk_peer from, const sk_task_finished *f,
                     unsigned stage)
{
    if (from != NM_PEER_COMMAND)
        lookup(&nm->nm_peers, nm_peer_hash(from), stage);
    const nm_hnode *task =
        lookup(&nm->nm_tasks,
               nm_task_hash(f->tf_job, f->tf_task, f->tf_attempt), stage);
    if (stage == 1) {
        load(nm->nm_task_pool.pl_free);
        load_fetch(nm);
    } else if (stage == 3 && task != NULL) {
        const nm_task *t = NM_CONTAINER(task, nm_task, tk_hnode);
        load(t->tk_job);
        load(t->tk_user);
        load_links(&t->tk_all);
        load_links(&t->tk_job_link);
        load_links(&t->tk_exec_link);
    }
    load_queue_head(&nm->nm_q, stage);
}

void nm_prefetch_msg(const nm_core *nm, sk_peer from, const sk_msg *msg,
                     unsigned stage)
{
    if (stage == 0) {
        /* The fields before nm_q and the queue's levels. */
        const char *p = (const char *)nm;
        size_t end = offsetof(nm_core, nm_q) + offsetof(nm_queue, q_users);
        for (size_t off = 0; off < end; off += 64)
            __builtin_prefetch(p + off);
        return;
    }
    if (stage >= NM_PREFETCH_STAGES)
        return;
    switch (msg->m_type) {
    case SK_MSG_ENQUEUE_RESERVATION:
        enqueue(nm, from, &msg->m_enqueue, stage);
        break;
    case SK_MSG_TASK_REPLY:
        task_reply(nm, from, &msg->m_task_reply, stage);
        break;
    case SK_MSG_CANCEL_RESERVATIONS:
        cancel(nm, from, &msg->m_cancel_resv, stage);
        break;
    case SK_MSG_TASK_FINISHED:
        finished(nm, from, &msg->m_task_finished, stage);
        break;
    default:
        break;
    }
}
