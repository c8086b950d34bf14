/*
 * sim_evq.h - the simulator's event queue: virtual time in microseconds,
 * events ordered by (time, sequence number) so that a run is a pure
 * function of its inputs, and a pool of event records whose addresses never
 * change.
 *
 * Two lanes hold scheduled events. The heap lane is a 4-ary min-heap of
 * 16-byte keys (four children fill one cache line); any time may go there.
 * The FIFO lane is a ring for events whose times never decrease in the
 * order they are added, which is what messages over a fixed network delay
 * are: it costs O(1) per event instead of O(log n). Popping takes the
 * smaller (time, sequence) head of the two lanes, so the order of events
 * is the same whichever lane holds them.
 *
 * Limits: 2^24 events pending at once (a record's index shares a 64-bit
 * key with its 40-bit sequence number) and 2^40 events per queue; past
 * either the queue aborts with a message, since a silent wrap would
 * reorder events.
 *
 * Threading: one thread.
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include "sk_core.h"

#include <stdbool.h>
#include <stdint.h>

/* An event record: what happens, and whatever its handler needs. The
 * fields are the owner's to interpret by ev_kind. */
typedef struct sim_ev {
    uint8_t ev_kind;   /* owner-defined kind */
    uint8_t ev_dead;   /* cancelled: popped and freed, never handled */
    uint16_t ev_small; /* owner-defined */
    uint32_t ev_a;     /* owner-defined, e.g. a peer or node */
    uint32_t ev_b;     /* owner-defined */
    uint32_t ev_c;     /* owner-defined */
    uint64_t ev_x;     /* owner-defined */
    void *ev_p;        /* owner-defined */
} sim_ev;

/* The largest number of events pending at once. */
#define SIM_EVQ_MAX_PENDING (1u << 24)

/* Records are allocated in chunks of 1 << SIM_EVQ_CHUNK_BITS. */
#define SIM_EVQ_CHUNK_BITS 12

/* An event's place in the order: time in the high 64 bits, sequence
 * number << 24 | record index in the low ones, so that one unsigned
 * comparison orders by (time, sequence). */
typedef unsigned __int128 sim_evq_key;

typedef struct sim_evq {
    sim_evq_key *q_heap; /* the heap lane */
    uint32_t q_hlen;
    uint32_t q_hcap;
    sim_evq_key *q_ring; /* the FIFO lane */
    uint32_t q_rhead;
    uint32_t q_rlen;
    uint32_t q_rcap;   /* a power of two */
    sim_ev **q_chunks; /* records, 1 << SIM_EVQ_CHUNK_BITS per chunk */
    uint32_t q_nchunks;
    uint32_t *q_free; /* free record indexes (a stack) */
    uint32_t q_nfree;
    uint32_t q_nrec; /* records ever made */
    uint64_t q_seq;  /* next sequence number */
    sk_time q_now;   /* time of the last event popped */
    uint64_t q_popped;
} sim_evq;

/* sim_evq_init makes an empty queue at time 0. Returns 0 or SK_ENOMEM. */
int sim_evq_init(sim_evq *q);

/* sim_evq_fini releases the queue and its records. */
void sim_evq_fini(sim_evq *q);

/* sim_evq_add schedules a new event at time at (>= the current time) and
 * returns its zeroed record for the caller to fill, its index in *id.
 * With fifo the event goes to the FIFO lane: at must not be below the
 * time of the last event added to that lane (asserted). Aborts when out
 * of memory or past the limits above. Cost: O(log pending) on the heap
 * lane, O(1) on the FIFO lane. The record stays at its address until it
 * is freed. */
sim_ev *sim_evq_add(sim_evq *q, sk_time at, bool fifo, uint32_t *id);

/* sim_evq_pop takes the earliest pending event (by time, then by the order
 * of sim_evq_add calls), sets the queue's time to its time, and returns
 * its index in *id and time in *at. Returns false when nothing is
 * pending. The record stays valid until sim_evq_free(id). */
bool sim_evq_pop(sim_evq *q, sk_time *at, uint32_t *id);

/* sim_evq_upcoming writes to ids the indexes of up to n events that
 * sim_evq_pop is likely to take next, nearest first, and returns how many
 * it wrote. It is exact for the FIFO lane; of the heap lane it sees only
 * the smallest, so past it the guess can be wrong. For prefetching: a
 * wrong guess costs time, never correctness. Cost: O(n). */
uint32_t sim_evq_upcoming(const sim_evq *q, uint32_t *ids, uint32_t n);

/* sim_evq_rec returns the record with index id. */
static inline sim_ev *sim_evq_rec(const sim_evq *q, uint32_t id)
{
    return &q->q_chunks[id >> SIM_EVQ_CHUNK_BITS]
                       [id & ((1u << SIM_EVQ_CHUNK_BITS) - 1)];
}

/* sim_evq_free returns a popped record to the pool. */
void sim_evq_free(sim_evq *q, uint32_t id);

/* sim_evq_next_time returns the time of the event sim_evq_pop would take
 * next, SK_TIME_NEVER when nothing is pending. O(1). */
static inline sk_time sim_evq_next_time(const sim_evq *q)
{
    sk_time t = SK_TIME_NEVER;
    if (q->q_rlen > 0)
        t = (sk_time)(q->q_ring[q->q_rhead] >> 64);
    if (q->q_hlen > 0 && (sk_time)(q->q_heap[0] >> 64) < t)
        t = (sk_time)(q->q_heap[0] >> 64);
    return t;
}

/* sim_evq_pending returns the number of events scheduled and not popped
 * (cancelled ones included until they are popped). */
static inline uint32_t sim_evq_pending(const sim_evq *q)
{
    return q->q_hlen + q->q_rlen;
}

#endif /* SIM_EVQ_H */
