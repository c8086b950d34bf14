/*
 * nm_queue.c - per-user FIFOs, strict priority and start-time fair
 * queueing for the node monitor.
 */
#include "nm_queue.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

void nm_queue_init(nm_queue *q, uint32_t max_users, const nm_weight *weights,
                   uint32_t nweights)
{
    memset(q, 0, sizeof *q);
    q->q_weights = weights;
    q->q_nweights = nweights;
    q->q_max_users = max_users;
    nm_list_init(&q->q_idle);
    nm_htab_init(&q->q_users);
}

/* A level's heap holds at most one FIFO per tracked user: the heaps grow
 * with the users (doubling, up to q_max_users), so that a node monitor
 * with a few users stays small. Returns 0 or SK_ENOMEM. */
static int reserve_heaps(nm_queue *q, uint32_t users)
{
    if (users <= q->q_heapcap)
        return 0;
    uint32_t cap = q->q_heapcap < 4 ? 4 : q->q_heapcap * 2;
    if (cap > q->q_max_users)
        cap = q->q_max_users;
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        nm_uq **h = realloc(q->q_levels[p].lv_heap, cap * sizeof *h);
        if (h == NULL)
            return SK_ENOMEM; /* the levels grown so far keep their room */
        q->q_levels[p].lv_heap = h;
    }
    q->q_heapcap = cap;
    return 0;
}

static void free_user(nm_queue *q, nm_user *u)
{
    nm_htab_remove(&q->q_users, &u->us_hnode);
    nm_list_remove(&u->us_idle);
    q->q_nusers--;
    free(u);
}

void nm_queue_fini(nm_queue *q)
{
    for (size_t i = 0; i < q->q_users.ht_nbuckets; i++)
        while (q->q_users.ht_buckets[i] != NULL)
            free_user(
                q, NM_CONTAINER(q->q_users.ht_buckets[i], nm_user, us_hnode));
    nm_htab_fini(&q->q_users);
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        free(q->q_levels[p].lv_heap);
        q->q_levels[p].lv_heap = NULL;
    }
}

nm_user *nm_queue_find(const nm_queue *q, const char *name)
{
    uint64_t h = nm_hash_str(name);
    for (nm_hnode *n = nm_htab_find(&q->q_users, h); n; n = nm_htab_next(n)) {
        nm_user *u = NM_CONTAINER(n, nm_user, us_hnode);
        if (strcmp(u->us_name, name) == 0)
            return u;
    }
    return NULL;
}

void nm_user_ref(nm_queue *q, nm_user *u)
{
    (void)q;
    if (u->us_refs++ == 0)
        nm_list_remove(&u->us_idle);
}

void nm_user_unref(nm_queue *q, nm_user *u)
{
    SK_ASSERT(u->us_refs > 0);
    if (--u->us_refs == 0)
        nm_list_push_back(&q->q_idle, &u->us_idle);
}

int nm_queue_user(nm_queue *q, const char *name, nm_user **out)
{
    nm_user *u = nm_queue_find(q, name);
    if (u != NULL) {
        nm_user_ref(q, u);
        *out = u;
        return 0;
    }
    if (q->q_nusers == q->q_max_users) {
        /* Forget the user idle for longest; its history (slot time) goes
         * with it. */
        nm_link *l = nm_list_first(&q->q_idle);
        if (l == NULL)
            return SK_ELIMIT;
        free_user(q, NM_CONTAINER(l, nm_user, us_idle));
    }
    if (reserve_heaps(q, q->q_nusers + 1) != 0)
        return SK_ENOMEM;
    size_t len = strlen(name);
    u = calloc(1, sizeof *u + len + 1);
    if (u == NULL)
        return SK_ENOMEM;
    memcpy(u->us_name, name, len + 1);
    u->us_weight = nm_weight_of(q->q_weights, q->q_nweights, name);
    u->us_seq = q->q_seq++;
    u->us_refs = 1;
    nm_list_init(&u->us_idle);
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        u->us_q[p].uq_user = u;
        nm_list_init(&u->us_q[p].uq_fifo);
    }
    nm_htab_insert(&q->q_users, &u->us_hnode, nm_hash_str(name));
    q->q_nusers++;
    *out = u;
    return 0;
}

/* The heap of a level orders users' FIFOs by (start tag, creation). */
static bool before(const nm_uq *a, const nm_uq *b)
{
    if (a->uq_start != b->uq_start)
        return a->uq_start < b->uq_start;
    return a->uq_user->us_seq < b->uq_user->us_seq;
}

static void heap_set(nm_uq **h, uint32_t i, nm_uq *uq)
{
    h[i] = uq;
    uq->uq_heap = i;
}

static void sift_up(nm_uq **h, uint32_t i)
{
    nm_uq *uq = h[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(uq, h[parent]))
            break;
        heap_set(h, i, h[parent]);
        i = parent;
    }
    heap_set(h, i, uq);
}

static void sift_down(nm_uq **h, uint32_t len, uint32_t i)
{
    nm_uq *uq = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= len)
            break;
        if (c + 1 < len && before(h[c + 1], h[c]))
            c++;
        if (!before(h[c], uq))
            break;
        heap_set(h, i, h[c]);
        i = c;
    }
    heap_set(h, i, uq);
}

static void heap_remove(nm_queue *q, unsigned p, nm_uq *uq)
{
    nm_uq **h = q->q_levels[p].lv_heap;
    uint32_t i = uq->uq_heap;
    uint32_t last = --q->q_levels[p].lv_heaplen;
    if (last == 0)
        q->q_busy &= ~(1u << p);
    if (i == last)
        return;
    heap_set(h, i, h[last]);
    sift_down(h, last, i);
    sift_up(h, h[i]->uq_heap);
}

void nm_queue_push(nm_queue *q, nm_user *u, uint8_t prio, nm_qent *e)
{
    SK_ASSERT(prio < SK_PRIORITIES);
    nm_uq *uq = &u->us_q[prio];
    nm_level *lv = &q->q_levels[prio];
    e->qe_user = u;
    e->qe_prio = prio;
    nm_list_push_back(&uq->uq_fifo, &e->qe_link);
    nm_user_ref(q, u);
    u->us_queued++;
    lv->lv_len++;
    q->q_total++;
    if (uq->uq_len++ > 0)
        return;
    /* Newly backlogged: start no earlier than now in virtual time, so an
     * idle spell earns no credit. */
    if (uq->uq_start < lv->lv_vtime)
        uq->uq_start = lv->lv_vtime;
    if (uq->uq_start < uq->uq_finish)
        uq->uq_start = uq->uq_finish;
    /* Every referenced user fits: the heaps have room for every user. */
    SK_ASSERT(lv->lv_heaplen < q->q_heapcap);
    uint32_t i = lv->lv_heaplen++;
    q->q_busy |= 1u << prio;
    heap_set(lv->lv_heap, i, uq);
    sift_up(lv->lv_heap, i);
}

void nm_queue_remove(nm_queue *q, nm_qent *e)
{
    nm_user *u = e->qe_user;
    nm_uq *uq = &u->us_q[e->qe_prio];
    nm_list_remove(&e->qe_link);
    u->us_queued--;
    q->q_levels[e->qe_prio].lv_len--;
    q->q_total--;
    if (--uq->uq_len == 0)
        heap_remove(q, e->qe_prio, uq);
    nm_user_unref(q, u);
}

nm_qent *nm_queue_peek(const nm_queue *q)
{
    if (q->q_busy == 0)
        return NULL;
    const nm_level *lv = &q->q_levels[__builtin_ctz(q->q_busy)];
    nm_link *l = nm_list_first(&lv->lv_heap[0]->uq_fifo);
    return NM_CONTAINER(l, nm_qent, qe_link);
}

void nm_queue_charge(nm_queue *q, nm_qent *e)
{
    nm_level *lv = &q->q_levels[e->qe_prio];
    nm_uq *uq = &e->qe_user->us_q[e->qe_prio];
    lv->lv_vtime = uq->uq_start;
    uq->uq_finish = uq->uq_start + 1.0 / uq->uq_user->us_weight;
    uq->uq_start = uq->uq_finish;
    sift_down(lv->lv_heap, lv->lv_heaplen, uq->uq_heap);
}

void nm_queue_foreach(const nm_queue *q, void (*fn)(void *, const nm_user *),
                      void *arg)
{
    for (size_t i = 0; i < q->q_users.ht_nbuckets; i++)
        for (nm_hnode *n = q->q_users.ht_buckets[i]; n; n = n->hn_next)
            fn(arg, NM_CONTAINER(n, nm_user, us_hnode));
}
