/*
 * sim_par.c - a run split into partitions and windows (see sim_par.h).
 */
#include "sim_par.h"

#include "sk_log.h"
#include "skylark.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bits of a sort key below the time: the node (SIM_MAX_NODES is 2^16). */
#define ORDER_BITS 16u

/* An event for another partition. Its key orders the events a window
 * sends to partition 0: time after the window's end, then sending node;
 * x_seq keeps one sender's order among equal keys. */
typedef struct xev {
    uint64_t x_key;
    uint32_t x_seq;
    bool x_fifo;
    sk_time x_at;
    sim_ev x_ev;
} xev;

/* Each in a cache line of its own: two threads write neighbours. */
typedef struct xbuf {
    xev *xb_ev;
    uint32_t xb_len, xb_cap;
} __attribute__((aligned(64))) xbuf;

typedef struct retlist {
    sim_msglist rl_list;
} __attribute__((aligned(64))) retlist;

/* A partition's slot changes in one window: (time after the window's
 * start, node, up) packed so that sorting the numbers sorts the changes;
 * equal numbers are equal changes. */
typedef struct busylog {
    uint64_t *bl_ch;
    uint32_t bl_len, bl_cap;
} __attribute__((aligned(64))) busylog;

struct sim_par {
    uint32_t pa_nparts; /* 1 + node partitions */
    uint32_t pa_nthreads;
    sim **pa_parts; /* [0] is the run's sim */
    uint8_t *pa_node_part;
    sk_time pa_lookahead;
    uint64_t pa_salt;         /* of shuffle, from the run's seed */
    sk_time pa_start, pa_end; /* the current window */
    unsigned pa_parity;       /* of the current window */
    xbuf *pa_x;               /* [from][to][parity] */
    retlist *pa_ret;          /* [from][to][parity]: to's records */
    busylog *pa_busy;         /* [part][parity] */
    xev *pa_merge;            /* partition 0's import, merged */
    uint32_t pa_merge_cap;
    bool pa_done;
    /* the barrier */
    _Atomic uint32_t pa_arrived;
    _Atomic uint32_t pa_generation;
    /* progress */
    double pa_t0, pa_shown;
    uint64_t pa_windows;
};

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "skylark-sim: split run: %s\n", what);
    abort();
}

sk_time sim_par_lookahead(const sim_params *p)
{
    switch (p->p_delay_kind) {
    case SIM_DELAY_FIXED:
        return p->p_delay;
    case SIM_DELAY_UNIFORM:
        return p->p_delay / 2; /* the least draw, rounded down */
    default:
        return 0;
    }
}

static size_t link_index(const sim_par *pa, uint32_t from, uint32_t to,
                         unsigned parity)
{
    return ((size_t)from * pa->pa_nparts + to) * 2 + parity;
}

/* ---- set-up ----------------------------------------------------------- */

/* The share of the work partition 0 does in a run of the real cores
 * (measured: bench/README.md, skylark-sim): the thread that runs it gets
 * fewer nodes. */
#define MAIN_SHARE 0.3

/* split_nodes gives partition k (1..n) its range: the first thread's
 * partition fewer nodes, as that thread also runs partition 0. */
static void split_nodes(sim_par *pa, uint32_t nodes)
{
    uint32_t n = pa->pa_nthreads;
    double first = n == 1 ? 1.0 : (1.0 / n - MAIN_SHARE) / (1.0 - MAIN_SHARE);
    if (first < 0)
        first = 0;
    uint32_t first_nodes = (uint32_t)(first * nodes + 0.5);
    for (uint32_t i = 0; i < nodes; i++) {
        uint32_t part = 1;
        if (i >= first_nodes)
            part = 2 + (uint32_t)((uint64_t)(i - first_nodes) * (n - 1) /
                                  (nodes - first_nodes));
        pa->pa_node_part[i] = (uint8_t)part;
    }
}

/* lines returns size zeroed bytes (a multiple of 64) on cache lines of
 * their own, or NULL. */
static void *lines(size_t size)
{
    void *p = aligned_alloc(64, size);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

int sim_par_new(sim *s, uint32_t nthreads, sk_time lookahead)
{
    SK_ASSERT(nthreads >= 1 && nthreads <= SIM_PAR_MAX_THREADS &&
              lookahead > 0);
    sim_par *pa = calloc(1, sizeof *pa);
    if (pa == NULL)
        return SK_ENOMEM;
    s->s_par = pa;
    pa->pa_nthreads = nthreads;
    pa->pa_nparts = nthreads + 1;
    pa->pa_lookahead = lookahead;
    pa->pa_salt = sk_rng_next(&s->s_net_rng);
    uint32_t np = pa->pa_nparts;
    pa->pa_parts = calloc(np, sizeof *pa->pa_parts);
    pa->pa_node_part = malloc(s->s_p->p_nodes);
    pa->pa_x = lines((size_t)np * np * 2 * sizeof *pa->pa_x);
    pa->pa_ret = lines((size_t)np * np * 2 * sizeof *pa->pa_ret);
    pa->pa_busy = lines((size_t)np * 2 * sizeof *pa->pa_busy);
    if (pa->pa_parts == NULL || pa->pa_node_part == NULL || pa->pa_x == NULL ||
        pa->pa_ret == NULL || pa->pa_busy == NULL)
        return SK_ENOMEM;
    split_nodes(pa, s->s_p->p_nodes);
    s->s_node_part = pa->pa_node_part;
    pa->pa_parts[0] = s;
    for (uint32_t k = 1; k < np; k++) {
        sim *q = lines((sizeof *q + 63) / 64 * 64);
        if (q == NULL)
            return SK_ENOMEM;
        pa->pa_parts[k] = q;
        q->s_p = s->s_p;
        q->s_names = s->s_names;
        q->s_ops = s->s_ops;
        q->s_flow = s->s_flow;
        q->s_node_labels = s->s_node_labels;
        q->s_node_names = s->s_node_names;
        q->s_links = s->s_links;
        q->s_node_rng = s->s_node_rng;
        q->s_node_part = s->s_node_part;
        q->s_par = pa;
        q->s_part = k;
        sim_msgpool_init(&q->s_msgs);
        if (sim_evq_init(&q->s_q) != 0)
            return SK_ENOMEM;
    }
    return 0;
}

void sim_par_ready(sim *s)
{
    for (uint32_t k = 1; k < s->s_par->pa_nparts; k++)
        s->s_par->pa_parts[k]->s_state = s->s_state;
}

void sim_par_free(sim *s)
{
    sim_par *pa = s->s_par;
    if (pa == NULL)
        return;
    uint32_t np = pa->pa_nparts;
    for (uint32_t k = 1; pa->pa_parts != NULL && k < np; k++) {
        sim *q = pa->pa_parts[k];
        if (q == NULL)
            continue;
        sim_evq_fini(&q->s_q);
        sim_msgpool_fini(&q->s_msgs);
        free(q);
    }
    for (size_t i = 0; pa->pa_x != NULL && i < (size_t)np * np * 2; i++)
        free(pa->pa_x[i].xb_ev);
    for (size_t i = 0; pa->pa_busy != NULL && i < (size_t)np * 2; i++)
        free(pa->pa_busy[i].bl_ch);
    free(pa->pa_parts);
    free(pa->pa_node_part);
    free(pa->pa_x);
    free(pa->pa_ret);
    free(pa->pa_busy);
    free(pa->pa_merge);
    free(pa);
    s->s_par = NULL;
    s->s_node_part = NULL;
}

sim *sim_par_part(sim *s, uint32_t part)
{
    return s->s_par != NULL ? s->s_par->pa_parts[part] : s;
}

/* ---- what partitions send one another ---------------------------------- */

static void *grow(void *p, uint32_t *cap, size_t size)
{
    uint32_t n = *cap ? *cap * 2 : 256;
    void *q = realloc(p, n * size);
    if (q == NULL)
        die("out of memory");
    *cap = n;
    return q;
}

/* shuffle maps node to its place among the nodes' events of time at: a
 * permutation of 0..2^16-1 drawn afresh for every time (from the run's
 * seed), so that no node is always first among simultaneous messages.
 * Ordering them by node alone would favour the low-numbered nodes: a
 * scheduler serves simultaneous GET_TASKs in order, and the first get the
 * tasks. */
static uint32_t shuffle(const sim_par *pa, uint32_t node, sk_time at)
{
    uint64_t h = (at + pa->pa_salt) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    uint32_t x = node;
    for (int round = 0; round < 3; round++, h >>= 16) {
        x ^= (uint32_t)h & 0xffffu;
        x = (x * (((uint32_t)(h >> 8) & 0xffffu) | 1u)) & 0xffffu;
        x ^= x >> 7;
    }
    return x;
}

sim_ev *sim_par_at(sim *s, uint32_t part, uint32_t order, sk_time at, bool fifo)
{
    sim_par *pa = s->s_par;
    SK_ASSERT(at >= pa->pa_end && order < (1u << ORDER_BITS));
    order = shuffle(pa, order, at);
    xbuf *b = &pa->pa_x[link_index(pa, s->s_part, part, pa->pa_parity)];
    if (b->xb_len == b->xb_cap)
        b->xb_ev = grow(b->xb_ev, &b->xb_cap, sizeof *b->xb_ev);
    xev *x = &b->xb_ev[b->xb_len];
    *x = (xev){.x_key = (at - pa->pa_end) << ORDER_BITS | order,
               .x_seq = b->xb_len,
               .x_fifo = fifo,
               .x_at = at};
    b->xb_len++;
    return &x->x_ev;
}

void sim_par_done(sim *s, sim_msg *m)
{
    sim_par *pa = s->s_par;
    uint32_t owner = 0;
    while (&pa->pa_parts[owner]->s_msgs != m->mg_pool)
        owner++;
    sim_msg_give(
        &pa->pa_ret[link_index(pa, s->s_part, owner, pa->pa_parity)].rl_list,
        m);
}

void sim_par_busy(sim *s, uint32_t node, int delta)
{
    sim_par *pa = s->s_par;
    busylog *l = &pa->pa_busy[(size_t)s->s_part * 2 + pa->pa_parity];
    if (l->bl_len == l->bl_cap)
        l->bl_ch = grow(l->bl_ch, &l->bl_cap, sizeof *l->bl_ch);
    l->bl_ch[l->bl_len++] = (s->s_now - pa->pa_start) << (ORDER_BITS + 1) |
                            (uint64_t)node << 1 | (delta > 0);
}

/* ---- a window's end ----------------------------------------------------- */

static int cmp_xev(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->x_key != y->x_key)
        return x->x_key < y->x_key ? -1 : 1;
    return x->x_seq < y->x_seq ? -1 : x->x_seq > y->x_seq;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void sort_xbuf(xbuf *b)
{
    for (uint32_t i = 1; i < b->xb_len; i++)
        if (b->xb_ev[i].x_key < b->xb_ev[i - 1].x_key) {
            qsort(b->xb_ev, b->xb_len, sizeof *b->xb_ev, cmp_xev);
            return;
        }
}

static void add_event(sim *s, const xev *x)
{
    uint32_t id;
    sim_ev *ev = sim_evq_add(&s->s_q, x->x_at, x->x_fifo, &id);
    *ev = x->x_ev;
}

/* import adds to partition part's queue what the others sent it in the
 * window that just ended (parity), and takes back its records. */
static void import(sim_par *pa, uint32_t part, unsigned parity)
{
    sim *s = pa->pa_parts[part];
    uint32_t np = pa->pa_nparts;
    for (uint32_t from = 0; from < np; from++)
        sim_msgpool_take(
            &s->s_msgs,
            &pa->pa_ret[link_index(pa, from, part, parity)].rl_list);
    if (part != 0) {
        xbuf *b = &pa->pa_x[link_index(pa, 0, part, parity)];
        for (uint32_t i = 0; i < b->xb_len; i++)
            add_event(s, &b->xb_ev[i]);
        b->xb_len = 0;
        return;
    }
    /* From the node partitions: each sorted by key, then merged. */
    xbuf *in[SIM_PAR_MAX_THREADS];
    uint32_t at[SIM_PAR_MAX_THREADS] = {0}, nin = 0;
    for (uint32_t from = 1; from < np; from++) {
        xbuf *b = &pa->pa_x[link_index(pa, from, 0, parity)];
        if (b->xb_len == 0)
            continue;
        sort_xbuf(b);
        in[nin++] = b;
    }
    for (;;) {
        uint32_t best = nin;
        for (uint32_t k = 0; k < nin; k++)
            if (at[k] < in[k]->xb_len &&
                (best == nin ||
                 in[k]->xb_ev[at[k]].x_key < in[best]->xb_ev[at[best]].x_key))
                best = k;
        if (best == nin)
            break;
        add_event(s, &in[best]->xb_ev[at[best]++]);
    }
    for (uint32_t k = 0; k < nin; k++)
        in[k]->xb_len = 0;
}

/* replay_busy gives partition 0's counters the window's slot changes, in
 * order of (time, node). */
static void replay_busy(sim_par *pa, unsigned parity)
{
    sim_stats *st = &pa->pa_parts[0]->s_st;
    busylog *in[SIM_PAR_MAX_THREADS + 1];
    uint32_t at[SIM_PAR_MAX_THREADS + 1] = {0}, nin = 0;
    for (uint32_t k = 0; k < pa->pa_nparts; k++) {
        busylog *l = &pa->pa_busy[(size_t)k * 2 + parity];
        if (l->bl_len == 0)
            continue;
        for (uint32_t i = 1; i < l->bl_len; i++)
            if (l->bl_ch[i] < l->bl_ch[i - 1]) {
                qsort(l->bl_ch, l->bl_len, sizeof *l->bl_ch, cmp_u64);
                break;
            }
        in[nin++] = l;
    }
    for (;;) {
        uint32_t best = nin;
        for (uint32_t k = 0; k < nin; k++)
            if (at[k] < in[k]->bl_len &&
                (best == nin ||
                 in[k]->bl_ch[at[k]] < in[best]->bl_ch[at[best]]))
                best = k;
        if (best == nin)
            break;
        uint64_t ch = in[best]->bl_ch[at[best]++];
        sim_stats_busy(st, pa->pa_start + (ch >> (ORDER_BITS + 1)),
                       (ch & 1) ? +1 : -1);
    }
    for (uint32_t k = 0; k < nin; k++)
        in[k]->bl_len = 0;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* window_end runs once per window, on the last thread to finish it:
 * replays the slot changes, decides whether the run goes on and where
 * the next window starts. */
static void window_end(sim_par *pa)
{
    sim *s = pa->pa_parts[0];
    unsigned parity = pa->pa_parity;
    replay_busy(pa, parity);
    pa->pa_windows++;
    bool failed = false;
    for (uint32_t k = 0; k < pa->pa_nparts; k++)
        failed |= pa->pa_parts[k]->s_error != 0;
    sk_time next = SK_TIME_NEVER;
    for (uint32_t k = 0; k < pa->pa_nparts; k++) {
        sk_time t = sim_evq_next_time(&pa->pa_parts[k]->s_q);
        if (t < next)
            next = t;
        for (uint32_t to = 0; to < pa->pa_nparts; to++) {
            const xbuf *b = &pa->pa_x[link_index(pa, k, to, parity)];
            for (uint32_t i = 0; i < b->xb_len; i++)
                if (b->xb_ev[i].x_at < next)
                    next = b->xb_ev[i].x_at;
        }
    }
    pa->pa_done = failed || s->s_stop || next == SK_TIME_NEVER;
    pa->pa_start = next;
    pa->pa_end = next + pa->pa_lookahead;
    pa->pa_parity = parity ^ 1;
    if (s->s_p->p_progress && (pa->pa_windows & 0xff) == 0) {
        double w = wall_now();
        if (w - pa->pa_shown >= 0.5) {
            pa->pa_shown = w;
            uint64_t events = 0;
            for (uint32_t k = 0; k < pa->pa_nparts; k++)
                events += pa->pa_parts[k]->s_events;
            sim_progress(s, pa->pa_t0, events, false);
        }
    }
}

/* barrier waits for every thread to finish the window; the last runs
 * window_end before letting them go. */
static void barrier(sim_par *pa)
{
    uint32_t gen =
        atomic_load_explicit(&pa->pa_generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&pa->pa_arrived, 1, memory_order_acq_rel) +
            1 ==
        pa->pa_nthreads) {
        window_end(pa);
        atomic_store_explicit(&pa->pa_arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&pa->pa_generation, gen + 1,
                              memory_order_release);
        return;
    }
    for (uint32_t spins = 0;
         atomic_load_explicit(&pa->pa_generation, memory_order_acquire) == gen;
         spins++) {
        if (spins < 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
}

/* A thread's share of the run: thread t runs node partition t + 1, and
 * the first thread partition 0 too. */
typedef struct worker {
    sim_par *w_pa;
    uint32_t w_thread;
} worker;

static void *work(void *arg)
{
    const worker *w = arg;
    sim_par *pa = w->w_pa;
    while (!pa->pa_done) {
        unsigned last = pa->pa_parity ^ 1;
        if (w->w_thread == 0) {
            import(pa, 0, last);
            sim_run_until(pa->pa_parts[0], pa->pa_end, UINT64_MAX);
        }
        import(pa, w->w_thread + 1, last);
        sim_run_until(pa->pa_parts[w->w_thread + 1], pa->pa_end, UINT64_MAX);
        barrier(pa);
    }
    return NULL;
}

/* gather moves the partitions' counters, events and first error into
 * partition 0, and its clock to the latest. */
static void gather(sim_par *pa)
{
    sim *s = pa->pa_parts[0];
    for (uint32_t k = 1; k < pa->pa_nparts; k++) {
        sim *q = pa->pa_parts[k];
        for (int m = 0; m < SIM_MSG_KINDS; m++) {
            s->s_st.st_net[m] += q->s_st.st_net[m];
            s->s_st.st_local[m] += q->s_st.st_local[m];
        }
        s->s_events += q->s_events;
        if (q->s_now > s->s_now)
            s->s_now = q->s_now;
        if (s->s_error == 0 && q->s_error != 0) {
            s->s_error = q->s_error;
            memcpy(s->s_err, q->s_err, sizeof s->s_err);
        }
    }
}

void sim_par_run(sim *s)
{
    sim_par *pa = s->s_par;
    pa->pa_t0 = pa->pa_shown = wall_now();
    /* What the set-up sent (sim_late_hello). */
    for (uint32_t k = 0; k < pa->pa_nparts; k++)
        import(pa, k, pa->pa_parity);
    pa->pa_start = SK_TIME_NEVER;
    for (uint32_t k = 0; k < pa->pa_nparts; k++) {
        sk_time t = sim_evq_next_time(&pa->pa_parts[k]->s_q);
        if (t < pa->pa_start)
            pa->pa_start = t;
    }
    pa->pa_done = pa->pa_start == SK_TIME_NEVER || s->s_error != 0;
    pa->pa_end = pa->pa_start + pa->pa_lookahead;
    pthread_t tid[SIM_PAR_MAX_THREADS];
    worker w[SIM_PAR_MAX_THREADS];
    uint32_t started = 1;
    for (uint32_t t = 0; t < pa->pa_nthreads; t++)
        w[t] = (worker){pa, t};
    for (; started < pa->pa_nthreads; started++)
        if (pthread_create(&tid[started], NULL, work, &w[started]) != 0)
            die("cannot start a thread");
    work(&w[0]);
    for (uint32_t t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    gather(pa);
    if (s->s_p->p_progress)
        sim_progress(s, pa->pa_t0, 0, true);
}
