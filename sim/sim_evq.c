/*
 * sim_evq.c - the simulator's event queue (see sim_evq.h).
 */
#include "sim_evq.h"

#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_BITS 24
#define ID_MASK ((1ull << ID_BITS) - 1)
#define MAX_SEQ (1ull << (64 - ID_BITS))
#define CHUNK   (1u << SIM_EVQ_CHUNK_BITS)

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "skylark-sim: event queue: %s\n", what);
    abort();
}

int sim_evq_init(sim_evq *q)
{
    memset(q, 0, sizeof *q);
    q->q_hcap = 1024;
    q->q_rcap = 1024;
    q->q_heap = malloc(q->q_hcap * sizeof *q->q_heap);
    q->q_ring = malloc(q->q_rcap * sizeof *q->q_ring);
    if (q->q_heap == NULL || q->q_ring == NULL) {
        sim_evq_fini(q);
        return SK_ENOMEM;
    }
    return 0;
}

void sim_evq_fini(sim_evq *q)
{
    for (uint32_t i = 0; i < q->q_nchunks; i++)
        free(q->q_chunks[i]);
    free(q->q_chunks);
    free(q->q_free);
    free(q->q_heap);
    free(q->q_ring);
    memset(q, 0, sizeof *q);
}

static inline bool key_less(const sim_evq_key *a, const sim_evq_key *b)
{
    return *a < *b;
}

static inline sk_time key_time(sim_evq_key k)
{
    return (sk_time)(k >> 64);
}

static uint32_t alloc_rec(sim_evq *q)
{
    if (q->q_nfree > 0)
        return q->q_free[--q->q_nfree];
    if (q->q_nrec >= SIM_EVQ_MAX_PENDING)
        die("more than 2^24 events pending");
    if (q->q_nrec == q->q_nchunks * CHUNK) {
        sim_ev **chunks =
            realloc(q->q_chunks, (q->q_nchunks + 1) * sizeof *chunks);
        if (chunks == NULL)
            die("out of memory");
        q->q_chunks = chunks;
        chunks[q->q_nchunks] = malloc(CHUNK * sizeof(sim_ev));
        uint32_t *fr =
            realloc(q->q_free, (q->q_nchunks + 1) * CHUNK * sizeof *q->q_free);
        if (chunks[q->q_nchunks] == NULL || fr == NULL)
            die("out of memory");
        q->q_free = fr;
        q->q_nchunks++;
    }
    return q->q_nrec++;
}

static void heap_push(sim_evq *q, sim_evq_key k)
{
    if (q->q_hlen == q->q_hcap) {
        uint32_t cap = q->q_hcap * 2;
        sim_evq_key *h = realloc(q->q_heap, cap * sizeof *h);
        if (h == NULL)
            die("out of memory");
        q->q_heap = h;
        q->q_hcap = cap;
    }
    sim_evq_key *h = q->q_heap;
    uint32_t i = q->q_hlen++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 4;
        if (!key_less(&k, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = k;
}

static sim_evq_key heap_pop(sim_evq *q)
{
    sim_evq_key *h = q->q_heap;
    sim_evq_key top = h[0];
    sim_evq_key last = h[--q->q_hlen];
    uint32_t n = q->q_hlen, i = 0;
    for (;;) {
        uint32_t c = 4 * i + 1;
        if (c >= n)
            break;
        uint32_t best = c, end = c + 4 < n ? c + 4 : n;
        for (uint32_t j = c + 1; j < end; j++)
            if (key_less(&h[j], &h[best]))
                best = j;
        if (!key_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n > 0)
        h[i] = last;
    return top;
}

static void ring_push(sim_evq *q, sim_evq_key k)
{
    if (q->q_rlen > 0) {
        const sim_evq_key *tail =
            &q->q_ring[(q->q_rhead + q->q_rlen - 1) & (q->q_rcap - 1)];
        SK_ASSERT(key_time(*tail) <= key_time(k));
    }
    if (q->q_rlen == q->q_rcap) {
        uint32_t cap = q->q_rcap * 2;
        sim_evq_key *r = malloc(cap * sizeof *r);
        if (r == NULL)
            die("out of memory");
        for (uint32_t i = 0; i < q->q_rlen; i++)
            r[i] = q->q_ring[(q->q_rhead + i) & (q->q_rcap - 1)];
        free(q->q_ring);
        q->q_ring = r;
        q->q_rcap = cap;
        q->q_rhead = 0;
    }
    q->q_ring[(q->q_rhead + q->q_rlen) & (q->q_rcap - 1)] = k;
    q->q_rlen++;
}

sim_ev *sim_evq_add(sim_evq *q, sk_time at, bool fifo, uint32_t *id)
{
    SK_ASSERT(at >= q->q_now);
    if (q->q_seq >= MAX_SEQ)
        die("more than 2^40 events in one run");
    uint32_t rec = alloc_rec(q);
    sim_evq_key k = (sim_evq_key)at << 64 | (q->q_seq++ << ID_BITS | rec);
    if (fifo)
        ring_push(q, k);
    else
        heap_push(q, k);
    sim_ev *ev = sim_evq_rec(q, rec);
    memset(ev, 0, sizeof *ev);
    *id = rec;
    return ev;
}

uint32_t sim_evq_upcoming(const sim_evq *q, uint32_t *ids, uint32_t n)
{
    /* The FIFO lane in order, merged with the heap lane's root: the
     * heap's second smallest is seldom among the next few (events there
     * are one task end to about seven messages). */
    uint32_t out = 0, r = 0;
    bool root = q->q_hlen > 0;
    while (out < n && (root || r < q->q_rlen)) {
        const sim_evq_key *k =
            r < q->q_rlen ? &q->q_ring[(q->q_rhead + r) & (q->q_rcap - 1)]
                          : NULL;
        if (k != NULL && (!root || key_less(k, &q->q_heap[0]))) {
            r++;
        } else {
            k = &q->q_heap[0];
            root = false;
        }
        ids[out++] = (uint32_t)((uint64_t)*k & ID_MASK);
    }
    return out;
}

bool sim_evq_pop(sim_evq *q, sk_time *at, uint32_t *id)
{
    sim_evq_key k;
    if (q->q_rlen > 0 &&
        (q->q_hlen == 0 || key_less(&q->q_ring[q->q_rhead], &q->q_heap[0]))) {
        k = q->q_ring[q->q_rhead];
        q->q_rhead = (q->q_rhead + 1) & (q->q_rcap - 1);
        q->q_rlen--;
    } else if (q->q_hlen > 0) {
        k = heap_pop(q);
    } else {
        return false;
    }
    q->q_now = key_time(k);
    q->q_popped++;
    *at = q->q_now;
    *id = (uint32_t)((uint64_t)k & ID_MASK);
    return true;
}

void sim_evq_free(sim_evq *q, uint32_t id)
{
    q->q_free[q->q_nfree++] = id;
}
