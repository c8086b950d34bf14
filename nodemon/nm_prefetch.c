/*
 * nm_prefetch.c - nm_prefetch_msg (nm_core.h): the memory one message's
 * call into the node monitor core will touch first, loaded ahead in two
 * stages: stage 0 the core's hot fields (nm_int.h says which); stage
 * 1 reads those and the message, and loads the hash buckets of the
 * message's keys (of the tables grown out of the core), the records the
 * call will take from the pools, the tails of the lists it will append to
 * and the heap of the queue's level. The records the buckets lead to are
 * left to the call: loading them ahead would take a third stage, which
 * costs a driver more than it saves.
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

/* Every cache line of the len bytes at p. */
static void load_range(const void *p, size_t len)
{
    const char *c = p;
    for (size_t off = 0; off < len; off += 64)
        __builtin_prefetch(c + off);
    __builtin_prefetch(c + len - 1);
}

/* Whether t has grown out of the buckets it holds in itself: a small
 * table's buckets are in the core, which stage 0 loaded. */
static bool grown(const nm_htab *t)
{
    return t->ht_buckets != t->ht_small;
}

/* The bucket where a lookup of hash in t starts, if not in the core. */
static void load_bucket(const nm_htab *t, uint64_t hash)
{
    if (grown(t))
        load(&t->ht_buckets[hash & (t->ht_nbuckets - 1)]);
}

/* The heap of the first level with anything queued: a freed slot goes to
 * its head. */
static void load_queue_head(const nm_queue *q)
{
    if (q->q_busy != 0)
        load(q->q_levels[__builtin_ctz(q->q_busy)].lv_heap);
}

/* A slot handed out: the fetch record dispatch takes and the tail it
 * joins. */
static void load_fetch(const nm_core *nm)
{
    load(nm->nm_fetch_free.ln_next);
    load(nm->nm_fetches.ln_prev);
}

static void enqueue(const nm_core *nm, sk_peer from, const sk_enqueue *e)
{
    uint8_t prio = e->er_priority < SK_PRIORITIES ? e->er_priority : 0;
    load_bucket(&nm->nm_peers, nm_peer_hash(from));
    load_bucket(&nm->nm_jobs, nm_job_hash(from, e->er_job));
    load_bucket(&nm->nm_resvs, nm_resv_hash(from, e->er_resv));
    if (e->er_user != NULL && grown(&nm->nm_q.q_users))
        load_bucket(&nm->nm_q.q_users, nm_hash_str(e->er_user));
    load2(nm->nm_job_pool.pl_free);
    load2(nm->nm_resv_pool.pl_free);
    load(nm->nm_q.q_levels[prio].lv_heap);
    load_fetch(nm);
}

static void task_reply(const nm_core *nm, sk_peer from, const sk_task_reply *tr)
{
    load_bucket(&nm->nm_peers, nm_peer_hash(from));
    load_bucket(&nm->nm_resvs, nm_resv_hash(from, tr->tr_resv));
    load2(nm->nm_task_pool.pl_free);
    load(nm->nm_running.ln_prev);
    load(nm->nm_command.pe_tasks.ln_prev);
    load(nm->nm_fetch_free.ln_prev);
    load_queue_head(&nm->nm_q);
}

static void cancel(const nm_core *nm, sk_peer from, const sk_cancel_resv *c)
{
    load_bucket(&nm->nm_peers, nm_peer_hash(from));
    load_bucket(&nm->nm_jobs, nm_job_hash(from, c->cr_job));
}

static void finished(const nm_core *nm, sk_peer from, const sk_task_finished *f)
{
    if (from != NM_PEER_COMMAND)
        load_bucket(&nm->nm_peers, nm_peer_hash(from));
    load_bucket(&nm->nm_tasks,
                nm_task_hash(f->tf_job, f->tf_task, f->tf_attempt));
    load_fetch(nm);
    load_queue_head(&nm->nm_q);
}

void nm_prefetch_msg(const nm_core *nm, sk_peer from, const sk_msg *msg,
                     unsigned stage)
{
    if (stage == 0) {
        /* The hot parts of the core (nm_int.h). */
        load_range(nm, offsetof(nm_core, nm_q) + offsetof(nm_queue, q_idle));
        load_range(&nm->nm_command, sizeof nm->nm_command);
        load_range(&nm->nm_cfg, offsetof(nm_config, nc_node) + 16);
        load_range(&nm->nm_st, offsetof(nm_stats, ns_cancel_unknown) + 8);
        return;
    }
    if (stage >= NM_PREFETCH_STAGES)
        return;
    switch (msg->m_type) {
    case SK_MSG_ENQUEUE_RESERVATION:
        enqueue(nm, from, &msg->m_enqueue);
        break;
    case SK_MSG_TASK_REPLY:
        task_reply(nm, from, &msg->m_task_reply);
        break;
    case SK_MSG_CANCEL_RESERVATIONS:
        cancel(nm, from, &msg->m_cancel_resv);
        break;
    case SK_MSG_TASK_FINISHED:
        finished(nm, from, &msg->m_task_finished);
        break;
    default:
        break;
    }
}
