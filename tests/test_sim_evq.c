/*
 * test_sim_evq.c - the simulator's event queue: events come out in
 * (time, order added) order whichever lane holds them, ties included;
 * records keep their address and contents while pending; freed records
 * are reused; a large random schedule pops exactly as a sort of it; and
 * the upcoming events it names are the next pops when it sees them all.
 */
#include "sim_evq.h"
#include "sk_rng.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

typedef struct ref {
    sk_time r_time;
    uint64_t r_order;
} ref;

static int ref_cmp(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    if (x->r_time != y->r_time)
        return x->r_time < y->r_time ? -1 : 1;
    return x->r_order < y->r_order ? -1 : x->r_order > y->r_order;
}

static void test_ties_across_lanes(void)
{
    sim_evq q;
    sim_evq_init(&q);
    uint32_t id;
    /* Same time on both lanes: the order they were added decides. */
    sim_evq_add(&q, 10, true, &id)->ev_x = 1;
    sim_evq_add(&q, 10, false, &id)->ev_x = 2;
    sim_evq_add(&q, 5, false, &id)->ev_x = 0;
    sim_evq_add(&q, 10, true, &id)->ev_x = 3;
    sim_evq_add(&q, 20, true, &id)->ev_x = 5;
    sim_evq_add(&q, 10, false, &id)->ev_x = 4;
    uint64_t want = 0;
    bool ok = true;
    sk_time at, last = 0;
    while (sim_evq_pop(&q, &at, &id)) {
        ok &= sim_evq_rec(&q, id)->ev_x == want++ && at >= last;
        last = at;
        sim_evq_free(&q, id);
    }
    tap_ok(ok && want == 6, "ties on both lanes pop in the order added");
    tap_is_int((int64_t)q.q_now, 20, "the queue's time is the last event's");
    sim_evq_fini(&q);
}

static void test_random_schedule(void)
{
    enum { N = 200000 };
    sim_evq q;
    sim_evq_init(&q);
    sk_rng rng;
    sk_rng_seed(&rng, 42);
    uint64_t order = 0, popped = 0;
    sk_time fifo_last = 0;
    uint32_t peak = 0, peeked = UINT32_MAX;
    bool ok = true, stable = true, peek_ok = true;
    /* Interleave adds and pops, as a simulation does: each pop may add
     * events in the future, some on the FIFO lane at a fixed delay. */
    for (int i = 0; i < 64; i++) {
        uint32_t id;
        sim_ev *ev = sim_evq_add(&q, sk_rng_below(&rng, 1000), false, &id);
        ev->ev_x = order;
        ev->ev_a = (uint32_t)order;
        order++;
    }
    /* Every pop must not go back in (time, order added). */
    sk_time last_t = 0;
    uint64_t last_o = 0;
    bool first = true;
    sk_time at;
    uint32_t id;
    if (sim_evq_upcoming(&q, &peeked, 1) == 0)
        peeked = UINT32_MAX;
    while (sim_evq_pop(&q, &at, &id)) {
        peek_ok &= peeked == id; /* peeked after the last adds */
        if (sim_evq_pending(&q) + 1 > peak)
            peak = sim_evq_pending(&q) + 1;
        sim_ev *ev = sim_evq_rec(&q, id);
        uint64_t o = ev->ev_x;
        stable &= ev->ev_a == (uint32_t)o;
        if (!first && (at < last_t || (at == last_t && o < last_o)))
            ok = false;
        first = false;
        last_t = at;
        last_o = o;
        sim_evq_free(&q, id);
        popped++;
        if (order < N) {
            int adds = 1 + (int)sk_rng_below(&rng, 2);
            for (int k = 0; k < adds && order < N; k++) {
                bool fifo = sk_rng_below(&rng, 2) == 0;
                sk_time t = fifo ? at + 500 : at + sk_rng_below(&rng, 5000);
                if (fifo && t < fifo_last)
                    t = fifo_last;
                if (fifo)
                    fifo_last = t;
                sim_ev *n = sim_evq_add(&q, t, fifo, &id);
                n->ev_x = order;
                n->ev_a = (uint32_t)order;
                order++;
            }
        }
        if (sim_evq_upcoming(&q, &peeked, 1) == 0)
            peeked = UINT32_MAX;
    }
    peek_ok &= sim_evq_upcoming(&q, &id, 1) == 0;
    tap_ok(ok, "%llu interleaved events pop in (time, order added) order",
           (unsigned long long)popped);
    tap_ok(stable, "records keep their contents while pending");
    tap_ok(peek_ok, "the first upcoming event is the one the next pop "
                    "takes, and none is upcoming when nothing is pending");
    tap_is_int((int64_t)popped, (int64_t)order, "every event comes out once");
    tap_ok(q.q_nrec <= peak,
           "records are reused: %u made for %llu events, at most %u pending",
           q.q_nrec, (unsigned long long)popped, peak);
    sim_evq_fini(&q);
}

static void test_sorted_reference(void)
{
    enum { N = 50000 };
    sim_evq q;
    sim_evq_init(&q);
    sk_rng rng;
    sk_rng_seed(&rng, 7);
    ref *r = malloc(N * sizeof *r);
    for (uint64_t i = 0; i < N; i++) {
        uint32_t id;
        r[i] = (ref){sk_rng_below(&rng, 100), i};
        sim_evq_add(&q, r[i].r_time, false, &id)->ev_x = i;
    }
    qsort(r, N, sizeof *r, ref_cmp);
    bool ok = true;
    sk_time at;
    uint32_t id;
    for (uint64_t i = 0; i < N; i++) {
        ok &= sim_evq_pop(&q, &at, &id) && at == r[i].r_time &&
              sim_evq_rec(&q, id)->ev_x == r[i].r_order;
        sim_evq_free(&q, id);
    }
    tap_ok(ok && !sim_evq_pop(&q, &at, &id),
           "50,000 events with many equal times pop as a stable sort");
    free(r);
    sim_evq_fini(&q);
}

/* With at most one event on the heap lane, sim_evq_upcoming sees it, so
 * its guess must be exact: the next pops, in order. */
static void test_upcoming_exact(void)
{
    sim_evq q;
    sim_evq_init(&q);
    sk_rng rng;
    sk_rng_seed(&rng, 11);
    sk_time fifo_last = 0;
    uint32_t id, checked = 0;
    bool ok = true;
    for (int round = 0; round < 2000; round++) {
        while (sim_evq_pending(&q) < 12) {
            bool fifo = q.q_hlen >= 1 || sk_rng_below(&rng, 2) == 0;
            sk_time t = q.q_now + sk_rng_below(&rng, 50);
            if (fifo && t < fifo_last)
                t = fifo_last;
            if (fifo)
                fifo_last = t;
            sim_evq_add(&q, t, fifo, &id);
        }
        uint32_t want[8], n = sim_evq_upcoming(&q, want, 8);
        ok &= n == 8;
        sk_time at;
        for (uint32_t k = 0; k < n; k++) {
            ok &= sim_evq_pop(&q, &at, &id) && id == want[k];
            sim_evq_free(&q, id);
        }
        checked += n;
    }
    tap_ok(ok,
           "upcoming names the next %u pops exactly while the heap "
           "lane holds at most one event",
           checked);
    sim_evq_fini(&q);
}

int main(void)
{
    tap_timeout(30);
    tap_plan(9);
    test_ties_across_lanes();
    test_random_schedule();
    test_sorted_reference();
    test_upcoming_exact();
    return tap_exit_status();
}
