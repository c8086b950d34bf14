/*
 * sim_par.c - a run split into partitions and windows (see sim_par.h).
 */
#include "sim_par.h"

#include "sk_log.h"
#include "skylark.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Bits of a sort key below the time: the node (SIM_MAX_NODES is 2^16). */
#define ORDER_BITS 16u

/* An event for another partition. Its key orders the events a window
 * sends to partition 0: time (after the earliest an event sent in the
 * window may arrive), then the sending node as shuffled for that time;
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

/* Message records on their way back to the partition that made them. */
typedef struct homing {
    sim_msgbatch hm_batch;
} __attribute__((aligned(64))) homing;

/* A partition's slot changes in one window, in order of time: (time after
 * the window's start) << 1 | up. */
typedef struct busylog {
    uint64_t *bl_ch;
    uint32_t bl_len, bl_cap;
} __attribute__((aligned(64))) busylog;

/* Windows are a SUBWINDOWS-th of the lookahead L (m of them, fewer when L
 * is tiny): window w is [w L/m, (w + 1) L/m). What a partition sends in
 * window w arrives no earlier than window w + m, so a partition runs
 * window w once the partitions that send to it have finished window
 * w - m (partition 0 waits for every node partition, a node partition for
 * partition 0), and imports then what they sent in window w - m. A
 * partition may thus run up to m windows ahead of its senders, which
 * smooths the load's swings. A buffer written in window w is read at the
 * start of the reader's window w + m, and the writer cannot start window
 * w + 2m before that: SLOTS >= 2m buffers, by window modulo SLOTS, are
 * enough. */
#define SUBWINDOWS 4u
#define SLOTS      8u

/* A skip over a quiet stretch (see skip_quiet): from window sk_from on,
 * windows start sk_shift later than w L/m. Partition 0 writes skips,
 * every partition reads them; they lie 2m windows apart at least, so
 * that the latest SKIPS cover every window a partition may still ask
 * about (skip_quiet says why). */
typedef struct skip {
    _Atomic uint64_t sk_from;
    _Atomic sk_time sk_shift;
} skip;

#define SKIPS 4u

/* Where a partition is, in a cache line of its own. */
typedef struct pstate {
    _Atomic uint64_t ps_done;     /* windows finished */
    _Atomic uint32_t ps_wake;     /* its low bits, to sleep on (futex) */
    _Atomic uint32_t ps_sleepers; /* threads asleep on ps_wake */
    _Atomic uint64_t ps_events;   /* events handled, for the progress line */
    uint64_t ps_win;              /* the window it runs */
    sk_time ps_start;             /* when window ps_win starts */
    sk_time ps_arrive;            /* when window ps_win + m starts */
    sk_time ps_next[SLOTS]; /* by window: its next event's time after it */
    bool ps_sent[SLOTS];    /* by window: it sent events in it */
} __attribute__((aligned(64))) pstate;

struct sim_par {
    uint32_t pa_nparts; /* 1 + node partitions */
    uint32_t pa_nthreads;
    sim **pa_parts; /* [0] is the run's sim */
    uint8_t *pa_node_part;
    sk_time pa_lookahead;
    uint32_t pa_m;     /* windows per lookahead */
    sk_time pa_window; /* a window's length: pa_lookahead / pa_m */
    uint64_t pa_salt;  /* of shuffle, from the run's seed */
    pstate *pa_ps;     /* per partition */
    xbuf *pa_x;        /* [from][to][slot] */
    homing *pa_home;   /* [from][to][slot]: to's records */
    busylog *pa_busy;  /* [part][slot] */
    xev *pa_tmp;       /* partition 0's import: room to sort */
    uint32_t pa_tmp_cap;
    uint32_t pa_spins;               /* before sleeping */
    _Atomic bool pa_failed;          /* a partition failed: all stop */
    _Atomic uint64_t pa_stop_window; /* partition 0 stopped in it */
    double pa_t0, pa_shown;          /* progress */
    skip pa_skips[SKIPS];            /* skip i at i % SKIPS */
    _Atomic uint64_t pa_nskips;      /* skips made */
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
                         uint64_t w)
{
    return ((size_t)from * pa->pa_nparts + to) * SLOTS + w % SLOTS;
}

/* ---- set-up ----------------------------------------------------------- */

/* Waiting: a while spinning (the other thread is usually about to
 * finish), then asleep until the partition publishes its next window.
 * With more threads than CPUs a spinning thread would hold the CPU the
 * one it waits for needs: they sleep at once. */
#define SPINS 16384u

/* The share of the work partition 0 does in a run of the real cores (on
 * 10,000 nodes with 500-task jobs it took 1.07 s of a 3.65 s run on one
 * thread): the thread that runs it gets fewer nodes. */
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

/* window_start returns when window w starts: w L/m, plus the shift of
 * the latest skip in force from w or earlier. */
static sk_time window_start(const sim_par *pa, uint64_t w)
{
    uint64_t n = atomic_load_explicit(&pa->pa_nskips, memory_order_acquire);
    for (uint64_t i = n; i > 0 && i + SKIPS > n; i--) {
        const skip *k = &pa->pa_skips[(i - 1) % SKIPS];
        if (atomic_load_explicit(&k->sk_from, memory_order_relaxed) <= w)
            return w * pa->pa_window +
                   atomic_load_explicit(&k->sk_shift, memory_order_relaxed);
    }
    if (n >= SKIPS)
        die("a window older than the skips kept");
    return w * pa->pa_window;
}

/* enter_window makes w the window partition ps runs, with its start and
 * the earliest arrival of what it sends in it (the start of w + m). */
static void enter_window(const sim_par *pa, pstate *ps, uint64_t w)
{
    ps->ps_win = w;
    ps->ps_start = window_start(pa, w);
    ps->ps_arrive = window_start(pa, w + pa->pa_m);
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
    pa->pa_m = lookahead < SUBWINDOWS ? (uint32_t)lookahead : SUBWINDOWS;
    pa->pa_window = lookahead / pa->pa_m;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    pa->pa_spins = cpus >= (long)nthreads ? SPINS : 0;
    pa->pa_salt = sk_rng_next(&s->s_net_rng);
    uint32_t np = pa->pa_nparts;
    pa->pa_parts = calloc(np, sizeof *pa->pa_parts);
    pa->pa_node_part = malloc(s->s_p->p_nodes);
    pa->pa_x = sim_lines((size_t)np * np * SLOTS * sizeof *pa->pa_x);
    pa->pa_home = sim_lines((size_t)np * np * SLOTS * sizeof *pa->pa_home);
    pa->pa_busy = sim_lines((size_t)np * SLOTS * sizeof *pa->pa_busy);
    pa->pa_ps = sim_lines(np * sizeof *pa->pa_ps);
    if (pa->pa_parts == NULL || pa->pa_node_part == NULL || pa->pa_x == NULL ||
        pa->pa_home == NULL || pa->pa_busy == NULL || pa->pa_ps == NULL)
        return SK_ENOMEM;
    atomic_init(&pa->pa_stop_window, UINT64_MAX);
    for (uint32_t k = 0; k < np; k++)
        enter_window(pa, &pa->pa_ps[k], 0);
    split_nodes(pa, s->s_p->p_nodes);
    s->s_node_part = pa->pa_node_part;
    pa->pa_parts[0] = s;
    for (uint32_t k = 1; k < np; k++) {
        sim *q = sim_lines(sizeof *q);
        if (q == NULL)
            return SK_ENOMEM;
        pa->pa_parts[k] = q;
        q->s_p = s->s_p;
        q->s_names = s->s_names;
        q->s_ops = s->s_ops;
        q->s_flow = s->s_flow;
        q->s_loc = s->s_loc;
        q->s_node_labels = s->s_node_labels;
        q->s_node_names = s->s_node_names;
        q->s_links = s->s_links;
        q->s_node_rng = s->s_node_rng;
        q->s_node_part = s->s_node_part;
        q->s_par = pa;
        q->s_part = k;
        sim_msgpool_init(&q->s_msgs, k);
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
    for (size_t i = 0; pa->pa_x != NULL && i < (size_t)np * np * SLOTS; i++)
        free(pa->pa_x[i].xb_ev);
    for (size_t i = 0; pa->pa_home != NULL && i < (size_t)np * np * SLOTS; i++)
        sim_msgbatch_free(&pa->pa_home[i].hm_batch);
    for (size_t i = 0; pa->pa_busy != NULL && i < (size_t)np * SLOTS; i++)
        free(pa->pa_busy[i].bl_ch);
    free(pa->pa_parts);
    free(pa->pa_node_part);
    free(pa->pa_x);
    free(pa->pa_home);
    free(pa->pa_busy);
    free(pa->pa_ps);
    free(pa->pa_tmp);
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
    pstate *ps = &pa->pa_ps[s->s_part];
    sk_time end = ps->ps_arrive;
    SK_ASSERT(at >= end && order < (1u << ORDER_BITS));
    order = shuffle(pa, order, at);
    ps->ps_sent[ps->ps_win % SLOTS] = true;
    xbuf *b = &pa->pa_x[link_index(pa, s->s_part, part, ps->ps_win)];
    if (b->xb_len == b->xb_cap)
        b->xb_ev = grow(b->xb_ev, &b->xb_cap, sizeof *b->xb_ev);
    xev *x = &b->xb_ev[b->xb_len];
    *x = (xev){.x_key = (at - end) << ORDER_BITS | order,
               .x_seq = b->xb_len,
               .x_fifo = fifo,
               .x_at = at};
    b->xb_len++;
    return &x->x_ev;
}

/* thread_of returns the thread that runs partition k (see work). */
static uint32_t thread_of(uint32_t k)
{
    return k == 0 ? 0 : k - 1;
}

void sim_par_done(sim *s, sim_msg *m)
{
    sim_par *pa = s->s_par;
    uint64_t w = pa->pa_ps[s->s_part].ps_win;
    /* On the same thread the record goes straight back, still in the
     * caches for the next copy. */
    if (thread_of(m->mg_owner) == thread_of(s->s_part))
        sim_msg_put(&pa->pa_parts[m->mg_owner]->s_msgs, m);
    else
        sim_msg_give(
            &pa->pa_home[link_index(pa, s->s_part, m->mg_owner, w)].hm_batch,
            m);
}

void sim_par_busy(sim *s, int delta)
{
    sim_par *pa = s->s_par;
    const pstate *ps = &pa->pa_ps[s->s_part];
    busylog *l = &pa->pa_busy[(size_t)s->s_part * SLOTS + ps->ps_win % SLOTS];
    if (l->bl_len == l->bl_cap)
        l->bl_ch = grow(l->bl_ch, &l->bl_cap, sizeof *l->bl_ch);
    l->bl_ch[l->bl_len++] = (s->s_now - ps->ps_start) << 1 | (delta > 0);
}

/* ---- between windows --------------------------------------------------- */

static int cmp_xev(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->x_key != y->x_key)
        return x->x_key < y->x_key ? -1 : 1;
    return x->x_seq < y->x_seq ? -1 : x->x_seq > y->x_seq;
}

/* sort_instant sorts n events of one instant by their order (the low
 * ORDER_BITS of the key), keeping the sender's order among equal ones:
 * by insertion when few, else by a radix sort through tmp (room for n). */
static void sort_instant(xev *x, uint32_t n, xev *tmp)
{
    if (n <= 16) {
        for (uint32_t i = 1; i < n; i++) {
            xev v = x[i];
            uint32_t j = i;
            for (; j > 0 && x[j - 1].x_key > v.x_key; j--)
                x[j] = x[j - 1];
            x[j] = v;
        }
        return;
    }
    for (unsigned shift = 0; shift < ORDER_BITS; shift += 8) {
        uint32_t at[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            at[((x[i].x_key >> shift) & 0xff) + 1]++;
        for (int d = 1; d <= 256; d++)
            at[d] += at[d - 1];
        for (uint32_t i = 0; i < n; i++)
            tmp[at[(x[i].x_key >> shift) & 0xff]++] = x[i];
        memcpy(x, tmp, n * sizeof *x);
    }
}

/* sort_xbuf sorts what a node partition sent partition 0 in a window by
 * key. Over a fixed delay the events come in order of time and only each
 * instant's need sorting; otherwise all of them. */
static void sort_xbuf(sim_par *pa, xbuf *b)
{
    xev *x = b->xb_ev;
    for (uint32_t i = 1; i < b->xb_len; i++)
        if (x[i].x_at < x[i - 1].x_at) {
            qsort(x, b->xb_len, sizeof *x, cmp_xev);
            return;
        }
    if (b->xb_len > pa->pa_tmp_cap) {
        free(pa->pa_tmp);
        pa->pa_tmp_cap = b->xb_cap;
        pa->pa_tmp = malloc(pa->pa_tmp_cap * sizeof *pa->pa_tmp);
        if (pa->pa_tmp == NULL)
            die("out of memory");
    }
    for (uint32_t i = 0, j; i < b->xb_len; i = j) {
        for (j = i + 1; j < b->xb_len && x[j].x_at == x[i].x_at; j++)
            ;
        if (j - i > 1)
            sort_instant(&x[i], j - i, pa->pa_tmp);
    }
}

static void add_event(sim *s, const xev *x)
{
    uint32_t id;
    sim_ev *ev = sim_evq_add(&s->s_q, x->x_at, x->x_fifo, &id);
    *ev = x->x_ev;
}

/* import adds to partition part's queue what the others sent it in
 * window w, and the records of its pool they are done with. */
static void import(sim_par *pa, uint32_t part, uint64_t w)
{
    sim *s = pa->pa_parts[part];
    uint32_t np = pa->pa_nparts;
    for (uint32_t from = 0; from < np; from++)
        sim_msgpool_take(&s->s_msgs,
                         &pa->pa_home[link_index(pa, from, part, w)].hm_batch);
    if (part != 0) {
        xbuf *b = &pa->pa_x[link_index(pa, 0, part, w)];
        for (uint32_t i = 0; i < b->xb_len; i++)
            add_event(s, &b->xb_ev[i]);
        b->xb_len = 0;
        return;
    }
    /* From the node partitions: each sorted by key, then merged. */
    xbuf *in[SIM_PAR_MAX_THREADS];
    uint32_t at[SIM_PAR_MAX_THREADS] = {0}, nin = 0;
    for (uint32_t from = 1; from < np; from++) {
        xbuf *b = &pa->pa_x[link_index(pa, from, 0, w)];
        if (b->xb_len == 0)
            continue;
        sort_xbuf(pa, b);
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

/* replay_busy gives partition 0's counters the slot changes of window w,
 * summed per instant: the order of simultaneous changes (which decides a
 * peak inside an instant) is not something a split run can keep. */
static void replay_busy(sim_par *pa, uint64_t w)
{
    sim_stats *st = &pa->pa_parts[0]->s_st;
    busylog *in[SIM_PAR_MAX_THREADS + 1];
    uint32_t at[SIM_PAR_MAX_THREADS + 1] = {0}, nin = 0;
    for (uint32_t k = 0; k < pa->pa_nparts; k++) {
        busylog *l = &pa->pa_busy[(size_t)k * SLOTS + w % SLOTS];
        if (l->bl_len > 0)
            in[nin++] = l;
    }
    uint64_t instant = 0;
    int64_t net = 0;
    for (;;) {
        uint32_t best = nin;
        for (uint32_t k = 0; k < nin; k++)
            if (at[k] < in[k]->bl_len &&
                (best == nin ||
                 in[k]->bl_ch[at[k]] >> 1 < in[best]->bl_ch[at[best]] >> 1))
                best = k;
        uint64_t ch = best < nin ? in[best]->bl_ch[at[best]++] : UINT64_MAX;
        if (ch >> 1 != instant && net != 0) {
            sim_stats_busy(st, window_start(pa, w) + instant, (int)net);
            net = 0;
        }
        if (best == nin)
            break;
        instant = ch >> 1;
        net += (ch & 1) ? 1 : -1;
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

static void futex(_Atomic uint32_t *word, int op, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* wait_for waits until partition k has finished w windows; false when
 * the run failed meanwhile. */
static bool wait_for(sim_par *pa, uint32_t k, uint64_t w)
{
    pstate *ps = &pa->pa_ps[k];
    for (uint32_t spins = 0;; spins++) {
        uint32_t seen = atomic_load(&ps->ps_wake);
        if (atomic_load_explicit(&ps->ps_done, memory_order_acquire) >= w)
            return true;
        if (atomic_load_explicit(&pa->pa_failed, memory_order_relaxed))
            return false;
        if (spins < pa->pa_spins) {
            __builtin_ia32_pause();
            continue;
        }
        atomic_fetch_add(&ps->ps_sleepers, 1);
        if (atomic_load(&ps->ps_done) < w && !atomic_load(&pa->pa_failed))
            futex(&ps->ps_wake, FUTEX_WAIT_PRIVATE, seen);
        atomic_fetch_sub(&ps->ps_sleepers, 1);
    }
}

/* publish tells the waiters that partition k has finished w windows. */
static void publish(sim_par *pa, uint32_t k, uint64_t w)
{
    pstate *ps = &pa->pa_ps[k];
    atomic_store_explicit(&ps->ps_done, w, memory_order_release);
    atomic_store(&ps->ps_wake, (uint32_t)w);
    if (atomic_load(&ps->ps_sleepers) > 0)
        futex(&ps->ps_wake, FUTEX_WAKE_PRIVATE, INT_MAX);
}

/* fail stops every partition: the waiters wake and see it. */
static void fail(sim_par *pa)
{
    atomic_store(&pa->pa_failed, true);
    for (uint32_t k = 0; k < pa->pa_nparts; k++) {
        atomic_fetch_add(&pa->pa_ps[k].ps_wake, 1);
        futex(&pa->pa_ps[k].ps_wake, FUTEX_WAKE_PRIVATE, INT_MAX);
    }
}

/* next_pending tells partition 0, at the start of window w >= 2m (after
 * its import), the time of the earliest event pending anywhere, when it
 * lies past window w + 2m (SK_TIME_NEVER: nothing pending at all);
 * otherwise, or when something may be on its way, 0. Nothing is on its
 * way when partition 0 sent nothing since window w - 2m (what it sent
 * before, the node partitions have imported) and no node partition sent
 * anything in window w - m (what they sent before, partition 0 has
 * imported). Then a node partition's next event is the one it had at the
 * end of window w - m, or one that partition 0's next event causes, and
 * nothing happens anywhere before the earliest of those. */
static sk_time next_pending(const sim_par *pa, uint64_t w)
{
    uint64_t m = pa->pa_m;
    for (uint64_t v = w - 2 * m + 1; v < w; v++)
        if (pa->pa_ps[0].ps_sent[v % SLOTS])
            return 0;
    sk_time next = sim_evq_next_time(&pa->pa_parts[0]->s_q);
    sk_time past = window_start(pa, w + 2 * m + 1);
    for (uint32_t k = 1; k < pa->pa_nparts && next >= past; k++) {
        const pstate *ps = &pa->pa_ps[k];
        if (ps->ps_sent[(w - m) % SLOTS])
            return 0;
        if (ps->ps_next[(w - m) % SLOTS] < next)
            next = ps->ps_next[(w - m) % SLOTS];
    }
    return next >= past ? next : 0;
}

/* skip_quiet makes the windows from w + 2m on start at the window (of
 * the grid of the latest skip) in which next lies, the earliest event
 * pending anywhere (next_pending, past window w + 2m): the stretch
 * between is quiet, so its windows are empty, whatever their length,
 * and a run crosses it in 2m windows. Nothing is sent in it, so no
 * message has to arrive m windows after it was sent across the skip.
 * No partition asks about window w + 2m or later before partition 0 has
 * finished window w + 1 (a node partition runs at most m - 1 windows
 * ahead of it, and asks about windows up to m ahead of its own), so all
 * see the same start for every window.
 *
 * A skip is made only once the previous one is in force (w at or past
 * its first window), so skips lie 2m windows apart at least. While skip
 * n is made at window w, partitions ask about windows w - m or later
 * (partition 0 replays window w - m, node partitions run m - 1 windows
 * behind it at most), and skips n - 1 (in force at w) and n - 2 (in force
 * 2m windows earlier) answer for all of them: SKIPS = 4 keeps both, and
 * the slot skip n overwrites is no one's. */
static void skip_quiet(sim_par *pa, uint64_t w, sk_time next)
{
    uint64_t n = atomic_load_explicit(&pa->pa_nskips, memory_order_relaxed);
    if (n > 0 && atomic_load_explicit(&pa->pa_skips[(n - 1) % SKIPS].sk_from,
                                      memory_order_relaxed) > w)
        return;
    uint64_t from = w + 2 * pa->pa_m;
    sk_time start = window_start(pa, from);
    sk_time shift = start + (next - start) / pa->pa_window * pa->pa_window -
                    from * pa->pa_window;
    skip *k = &pa->pa_skips[n % SKIPS];
    atomic_store_explicit(&k->sk_from, from, memory_order_relaxed);
    atomic_store_explicit(&k->sk_shift, shift, memory_order_relaxed);
    atomic_store_explicit(&pa->pa_nskips, n + 1, memory_order_release);
}

static void progress(sim_par *pa)
{
    double now = wall_now();
    if (now - pa->pa_shown < 0.5)
        return;
    pa->pa_shown = now;
    uint64_t events = 0;
    for (uint32_t k = 0; k < pa->pa_nparts; k++)
        events +=
            atomic_load_explicit(&pa->pa_ps[k].ps_events, memory_order_relaxed);
    sim_progress(pa->pa_parts[0], pa->pa_t0, events, false);
}

/* past_stop tells a node partition that partition 0 stopped m windows
 * or more before window w. */
static bool past_stop(sim_par *pa, uint64_t w)
{
    uint64_t stop =
        atomic_load_explicit(&pa->pa_stop_window, memory_order_relaxed);
    return stop != UINT64_MAX && w >= stop + pa->pa_m;
}

/* run_window runs window w of partition k once the partitions that send
 * to it have finished window w - m. Returns false when k has no more
 * windows to run: the run failed, or partition 0 stopped (in this window;
 * a node partition runs m - 1 windows more, the most it may have run
 * before it could know: so how far it runs does not depend on timing). */
static bool run_window(sim_par *pa, uint32_t k, uint64_t w)
{
    sim *s = pa->pa_parts[k];
    pstate *ps = &pa->pa_ps[k];
    uint64_t m = pa->pa_m, need = w + 1 > m ? w + 1 - m : 0;
    if (k == 0) {
        for (uint32_t j = 1; j < pa->pa_nparts; j++)
            if (!wait_for(pa, j, need))
                return false;
        if (w >= m)
            replay_busy(pa, w - m);
    } else if (!wait_for(pa, 0, need) || past_stop(pa, w)) {
        return false;
    }
    enter_window(pa, ps, w);
    ps->ps_sent[w % SLOTS] = false;
    if (w >= m)
        import(pa, k, w - m);
    if (k == 0 && w >= 2 * m) {
        sk_time next = next_pending(pa, w);
        if (next == SK_TIME_NEVER)
            s->s_stop = true;
        else if (next != 0)
            skip_quiet(pa, w, next);
    }
    sim_run_until(s, window_start(pa, w + 1), UINT64_MAX);
    ps->ps_next[w % SLOTS] = sim_evq_next_time(&s->s_q);
    atomic_store_explicit(&ps->ps_events, s->s_events, memory_order_relaxed);
    bool more = s->s_error == 0 && !s->s_stop;
    if (k == 0 && s->s_stop)
        atomic_store_explicit(&pa->pa_stop_window, w, memory_order_relaxed);
    publish(pa, k, w + 1);
    if (s->s_error != 0)
        fail(pa);
    if (k == 0 && s->s_p->p_progress && (w & 0x3ff) == 0)
        progress(pa);
    return more;
}

/* A thread's share of the run: thread t runs node partition t + 1, the
 * first thread partition 0 before it. */
typedef struct worker {
    sim_par *w_pa;
    uint32_t w_thread;
} worker;

static void *work(void *arg)
{
    const worker *w = arg;
    sim_par *pa = w->w_pa;
    bool main = w->w_thread == 0;
    for (uint64_t win = 0;; win++) {
        if (main)
            main = run_window(pa, 0, win);
        if (!run_window(pa, w->w_thread + 1, win))
            return NULL;
    }
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
        s->s_st.st_behind_long += q->s_st.st_behind_long;
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
    pthread_t tid[SIM_PAR_MAX_THREADS];
    worker w[SIM_PAR_MAX_THREADS];
    uint32_t started = 1;
    for (uint32_t t = 0; t < pa->pa_nthreads; t++)
        w[t] = (worker){pa, t};
    if (s->s_error != 0)
        fail(pa);
    for (; started < pa->pa_nthreads; started++)
        if (pthread_create(&tid[started], NULL, work, &w[started]) != 0)
            die("cannot start a thread");
    work(&w[0]);
    for (uint32_t t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    /* The slot changes of the windows partition 0 has not replayed:
     * the node partitions ran up to m - 1 windows past its last. */
    if (!atomic_load(&pa->pa_failed))
        for (uint64_t v = pa->pa_ps[0].ps_win + 1 > pa->pa_m
                              ? pa->pa_ps[0].ps_win + 1 - pa->pa_m
                              : 0;
             v < pa->pa_ps[0].ps_win + pa->pa_m; v++)
            replay_busy(pa, v);
    gather(pa);
    if (s->s_p->p_progress)
        sim_progress(s, pa->pa_t0, 0, true);
}
