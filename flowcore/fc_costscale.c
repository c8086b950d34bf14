/*
 * fc_costscale.c - Goldberg's cost-scaling push-relabel min-cost flow
 * solver, from scratch and incremental.
 *
 * Costs are multiplied by N = (live nodes + 1) so that an epsilon-optimal
 * flow with epsilon < 1 in scaled units is optimal. Each phase ("refine")
 * divides epsilon by alpha, saturates the residual arcs whose reduced cost
 * went negative, and discharges the resulting excesses by push and relabel
 * in FIFO order until none is left. Global price updates (a bucket-based
 * shortest-path search from the deficits) run after every so many relabels;
 * they also detect supplies that cannot reach any demand (infeasibility).
 *
 * Incremental solving is the same code started from the flow and prices
 * the state holds: prices of nodes added since the last solve are first
 * set to the value that breaks the fewest of their arcs, then one scan
 * finds how far the changes broke epsilon-optimality (a cost change, a new
 * arc or more capacity on an arc with negative reduced cost; see
 * Firmament's Table 3). From scratch the phases start from the largest
 * cost, where Goldberg and Tarjan's bound on relabels, which this solver
 * uses to stop on infeasible networks, holds. After changes to an optimum
 * (on a network not too small for its costs) they start from eps = one
 * unscaled unit / alpha, whatever the changes broke: global price updates lift
 * the excess the changes left (new supply, capacity cuts) as far as it must
 * climb, and the arcs the changes left alone start with zero-optimal reduced
 * costs, so one phase usually ends optimal; an incremental solve that exceeds
 * the bound starts over from the largest cost. Incremental phases that start
 * from the largest cost with excess to re-route start from zero prices, not
 * the last optimum's: the bound holds only where every flow is that close
 * to optimal, and old prices can lie further apart than the costs allow.
 *
 * In such a low phase a hub (a node with more residual arcs than a
 * sixteenth of the nodes: a scheduling network's sink and cluster
 * aggregator) that runs out of admissible arcs is not relabelled while
 * other nodes wait in the queue; it keeps its excess until the queue
 * empties, and a global price update then ranks it with every other node.
 * Relabelling it at once makes thousands of tied arcs admissible (to every
 * machine with room, or every machine running a task), and its excess
 * spreads over the machines and comes back through their tasks, many
 * times: on the 12,500-machine Quincy graph a round of 100 events did
 * 315,000 to 500,000 relabels so, and with the hubs held it does 80,000 to
 * 240,000 plus 10 to 15 global updates, about half the work, in 60% of
 * the time. From scratch the hubs are not held: the queue empties so
 * often in the early phases that the updates cost more than they save
 * (2.5x the time on a 1,000-machine Quincy graph).
 *
 * The solver works on its own copy of the residual network, laid out by
 * tail node (each node's residual arcs contiguous, with head, scaled cost,
 * residual capacity and the index of the reverse arc side by side), so
 * that scanning a node reads one stretch of memory instead of three
 * arrays at random places; the copy costs one pass over the arcs at the
 * start and one at the end, where the residual capacities go back to the
 * state.
 *
 * The flow returned is optimal; the prices are made exactly optimal in
 * unscaled units (every residual arc has a non-negative reduced cost) by a
 * short label-correcting pass, so that any solver, this one included, can
 * start from them next time.
 *
 * The work count (ss_iterations) counts what the time goes to, so that a
 * model of time per unit can stand for the solve: residual arcs scanned
 * (saturation, discharge, relabel, global updates, the checks of
 * optimality), steps of the exact-price pass, and each pass over the
 * nodes (a phase's queue, a global update's buckets and ranks). The copy
 * of the network in and out is not counted: it costs per arc.
 *
 * Prices follow the graph's convention: the reduced cost of r is
 * cost[r] - price[tail] + price[head]; flow moves from high to low prices
 * and a relabel raises a price.
 */
#include "fc_graph_impl.h"

#include <string.h>

/* On the largest Flowlessly graph and 1,000-machine Quincy graphs, alpha
 * from 4 to 32 ran within the noise of each other (2 and 64 slower). */
#ifndef CS_DEFAULT_ALPHA
#define CS_DEFAULT_ALPHA 12
#endif
#define CS_MAX_ALPHA 1024
/* |scaled price| stays below this; reduced costs then fit in int64. */
#define CS_PRICE_LIMIT ((int64_t)1 << 61)
/* A global price update runs after this many relabels per live node. */
#define CS_UPDATE_PER_NODE 1
/* A hub is a node with more residual arcs than this, and than the live
 * nodes over CS_HUB_SHARE: a scheduling network's cluster aggregator and
 * sink (see the head of this file). */
#define CS_HUB_DEGREE 64
#define CS_HUB_SHARE  16
/* Work between two looks at the cancel flag. */
#define CS_CANCEL_EVERY 4096

/* Internal outcomes: the prices would leave the safe range; a check of
 * optimality gave up. */
#define CS_OVERFLOW 1
#define CS_UNSURE   2
#define CS_TOO_LOW  3 /* a phase started below the largest cost gave up */

/* A residual arc in the solver's own layout: the arcs leaving node v are
 * cs_arcs[cs_first[v] .. cs_first[v + 1]), in the order of v's adjacency
 * in the graph, so that scanning a node reads contiguous memory. */
typedef struct cs_arc {
    int64_t a_cost; /* cost times the scale */
    int64_t a_cap;  /* residual capacity */
    int64_t a_both; /* a_cap plus the reverse arc's: the arc's capacity */
    int32_t a_head;
    int32_t a_twin; /* index of the reverse residual arc */
} cs_arc;

/* The residual capacity of the reverse of arc a, without reading it. */
static inline int64_t twin_cap(const cs_arc *a)
{
    return a->a_both - a->a_cap;
}

typedef struct cs {
    const fc_graph *cs_g;
    fc_flow_state *cs_st;
    const fc_solve_options *cs_opt;
    int32_t cs_n;     /* node id bound */
    int32_t cs_live;  /* live nodes */
    int64_t cs_scale; /* N: costs are multiplied by this */
    int64_t cs_alpha;
    int64_t cs_eps;
    cs_arc *cs_arcs;   /* [residual arcs] */
    int32_t *cs_first; /* [n + 1] */
    int64_t *cs_ex;    /* [n] excess (the state's array) */
    int64_t *cs_p;     /* [n] scaled prices */
    int32_t *cs_cur;   /* [n] current arc (an index into cs_arcs) */
    /* FIFO of active nodes (positive excess); a ring of n slots */
    int32_t *cs_q;
    int32_t cs_qhead;
    int32_t cs_qlen;
    /* nodes whose price rose since the last saturation scan */
    int32_t *cs_dirty;
    int32_t cs_ndirty;
    uint8_t *cs_isdirty;
    bool cs_all_dirty;
    /* global price update: bucket lists and distances */
    int32_t *cs_bhead; /* [n + 1] */
    int32_t *cs_bnext; /* [n] */
    int32_t *cs_bprev; /* [n] */
    int64_t *cs_dist;  /* [n] tentative rank, -1 if unseen */
    uint8_t *cs_done;  /* [n] settled */
    bool cs_paused;    /* a discharge stopped for a global update */
    /* Hubs have more residual arcs than cs_hub_degree; cs_held lists the
     * ones waiting, with excess, for the queue to empty (see the head of
     * this file). */
    int32_t cs_hub_degree;
    int32_t *cs_held;
    int32_t cs_nheld;
    bool cs_moved;     /* flow moved: cs_arcs differ from the state's */
    bool cs_low_start; /* excess to re-route, phases started below max */
    uint64_t cs_relabels_since_update;
    uint64_t cs_update_every;
    uint64_t cs_phase_relabels;
    uint64_t cs_relabel_bound;
    uint64_t cs_work;
    uint64_t cs_ticks; /* work units since the last cancel check */
} cs;

static bool live(const fc_graph *g, fc_node v)
{
    return g->g_ntype[v] != FC_NODE_FREE;
}

/* Floor division for a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Hand out the next `bytes` of a scratch block, 64-byte aligned. */
static void *carve(char **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 63) / 64 * 64;
    return p;
}

/* Lay the solver's arrays out in the graph's scratch block for cost
 * scaling. Returns 0 or FC_ENOMEM. */
static int cs_alloc(cs *c, fc_scratch *scratch)
{
    size_t n = (size_t)c->cs_n + 1;
    size_t m = (size_t)2 * c->cs_g->g_alive + 1;
    size_t total = 13 * 64 + m * sizeof(cs_arc) + (n + 1) * 4 + n * 8 +
                   n * 4 * 3 + n + (n + 1) * 4 + n * 4 * 2 + n * 8 + n + n * 4;
    char *at = fc_scratch_get(&scratch[FC_SCRATCH_CS], total);
    if (at == NULL)
        return FC_ENOMEM;
    c->cs_arcs = carve(&at, m * sizeof(cs_arc));
    c->cs_first = carve(&at, (n + 1) * sizeof(int32_t));
    c->cs_p = carve(&at, n * sizeof(int64_t));
    c->cs_cur = carve(&at, n * sizeof(int32_t));
    c->cs_q = carve(&at, n * sizeof(int32_t));
    c->cs_dirty = carve(&at, n * sizeof(int32_t));
    c->cs_isdirty = carve(&at, n);
    c->cs_bhead = carve(&at, (n + 1) * sizeof(int32_t));
    c->cs_bnext = carve(&at, n * sizeof(int32_t));
    c->cs_bprev = carve(&at, n * sizeof(int32_t));
    c->cs_dist = carve(&at, n * sizeof(int64_t));
    c->cs_done = carve(&at, n);
    c->cs_held = carve(&at, n * sizeof(int32_t));
    memset(c->cs_isdirty, 0, n);
    return 0;
}

static bool cs_cancel_due(cs *c, uint64_t units)
{
    c->cs_ticks += units;
    if (c->cs_ticks < CS_CANCEL_EVERY)
        return false;
    c->cs_ticks = 0;
    return fc_cancelled(c->cs_opt);
}

/* Copy the graph's residual arcs into the solver's layout. Returns 0 or
 * FC_ECANCELED. The copy walks the arcs in id order, reading the graph's
 * arrays front to back and writing each arc's two sides where their
 * tails' adjacencies put them: walking node by node instead reads those
 * arrays at the scattered ids of the nodes' arcs, and took twice as long
 * (30-35 ms against 13-18 on the 12,500-machine Quincy graph). */
static int load_arcs(cs *c)
{
    const fc_graph *g = c->cs_g;
    const int64_t *rescap = c->cs_st->fs_rescap;
    int32_t k = 0;
    for (fc_node v = 0; v < c->cs_n; v++) {
        c->cs_first[v] = k;
        k += g->g_adj[v].ad_len;
    }
    c->cs_first[c->cs_n] = k;
    memcpy(c->cs_cur, c->cs_first, (size_t)c->cs_n * sizeof *c->cs_cur);
    for (int32_t r = 0; r < 2 * g->g_abound; r += 2) {
        fc_node h = g->g_head[r];
        if (h < 0)
            continue; /* a free arc id */
        fc_node t = g->g_head[r + 1];
        int32_t fwd = c->cs_first[t] + g->g_pos[r];
        int32_t back = c->cs_first[h] + g->g_pos[r + 1];
        int64_t cost = g->g_cost[r] * c->cs_scale;
        int64_t both = rescap[r] + rescap[r + 1];
        c->cs_arcs[fwd] = (cs_arc){.a_cost = cost,
                                   .a_cap = rescap[r],
                                   .a_both = both,
                                   .a_head = h,
                                   .a_twin = back};
        c->cs_arcs[back] = (cs_arc){.a_cost = -cost,
                                    .a_cap = rescap[r + 1],
                                    .a_both = both,
                                    .a_head = t,
                                    .a_twin = fwd};
        if (cs_cancel_due(c, 2))
            return FC_ECANCELED;
    }
    return 0;
}

/* Copy the residual capacities back into the graph's state, in arc id
 * order like load_arcs: the state's array is then written front to back
 * (on the 12,500-machine Quincy graph about 4 ms against 9 node by node,
 * in this machine's quiet spells). */
static void store_arcs(cs *c)
{
    const fc_graph *g = c->cs_g;
    int64_t *rescap = c->cs_st->fs_rescap;
    for (int32_t r = 0; r < 2 * g->g_abound; r += 2) {
        if (g->g_head[r] < 0)
            continue; /* a free arc id */
        const cs_arc *a =
            &c->cs_arcs[c->cs_first[g->g_head[r + 1]] + g->g_pos[r]];
        rescap[r] = a->a_cap;
        rescap[r + 1] = twin_cap(a);
    }
}

static void enqueue(cs *c, fc_node v)
{
    int32_t i = c->cs_qhead + c->cs_qlen;
    if (i >= c->cs_n)
        i -= c->cs_n;
    c->cs_q[i] = v;
    c->cs_qlen++;
}

static fc_node dequeue(cs *c)
{
    fc_node v = c->cs_q[c->cs_qhead];
    if (++c->cs_qhead == c->cs_n)
        c->cs_qhead = 0;
    c->cs_qlen--;
    return v;
}

static void mark_dirty(cs *c, fc_node v)
{
    if (!c->cs_isdirty[v]) {
        c->cs_isdirty[v] = 1;
        c->cs_dirty[c->cs_ndirty++] = v;
    }
}

/* Move delta units along arc k, which leaves v. */
static inline void push(cs *c, fc_node v, int32_t k, int64_t delta)
{
    cs_arc *a = &c->cs_arcs[k];
    a->a_cap -= delta;
    c->cs_arcs[a->a_twin].a_cap += delta;
    c->cs_ex[v] -= delta;
    c->cs_ex[a->a_head] += delta;
}

/* Saturate the residual arcs leaving v whose reduced cost is negative. */
static void saturate_node(cs *c, fc_node v)
{
    int64_t pv = c->cs_p[v];
    int32_t end = c->cs_first[v + 1];
    for (int32_t k = c->cs_first[v]; k < end; k++) {
        cs_arc *a = &c->cs_arcs[k];
        if (a->a_cap > 0 && a->a_cost + c->cs_p[a->a_head] < pv)
            push(c, v, k, a->a_cap);
    }
    c->cs_work += (uint64_t)(end - c->cs_first[v]);
}

/* Hold hub v, which has excess and no admissible arc, until the queue
 * empties. A held hub is in neither the queue nor (until released) the
 * list twice: pushes into it find it active and do not queue it. */
static void hold(cs *c, fc_node v)
{
    c->cs_held[c->cs_nheld++] = v;
}

/* Forget the held hubs; the caller queues the ones with excess. */
static void release_held(cs *c)
{
    c->cs_nheld = 0;
}

/* Make the pseudoflow 0-optimal at the start of a phase: only arcs leaving
 * a node whose price rose can have gone negative. Then queue the nodes
 * with excess. */
static void start_phase(cs *c)
{
    const fc_graph *g = c->cs_g;
    if (c->cs_all_dirty) {
        for (fc_node v = 0; v < c->cs_n; v++)
            saturate_node(c, v);
    } else {
        for (int32_t i = 0; i < c->cs_ndirty; i++)
            saturate_node(c, c->cs_dirty[i]);
    }
    for (int32_t i = 0; i < c->cs_ndirty; i++)
        c->cs_isdirty[c->cs_dirty[i]] = 0;
    c->cs_ndirty = 0;
    c->cs_all_dirty = false;
    c->cs_qhead = 0;
    c->cs_qlen = 0;
    release_held(c);
    for (fc_node v = 0; v < c->cs_n; v++)
        if (live(g, v) && c->cs_ex[v] > 0)
            enqueue(c, v);
    c->cs_work += (uint64_t)c->cs_n;
    c->cs_phase_relabels = 0;
}

static void bucket_insert(cs *c, fc_node v, int64_t k)
{
    int32_t h = c->cs_bhead[k];
    c->cs_bnext[v] = h;
    c->cs_bprev[v] = -1;
    if (h >= 0)
        c->cs_bprev[h] = v;
    c->cs_bhead[k] = v;
    c->cs_dist[v] = k;
}

static void bucket_remove(cs *c, fc_node v)
{
    int32_t nx = c->cs_bnext[v], pv = c->cs_bprev[v];
    if (pv >= 0)
        c->cs_bnext[pv] = nx;
    else
        c->cs_bhead[c->cs_dist[v]] = nx;
    if (nx >= 0)
        c->cs_bprev[nx] = pv;
}

/* Global price update: ranks every node by the length, in units of eps, of
 * its shortest residual path to a node with a deficit (an arc of reduced
 * cost rc counts floor(rc / eps) + 1, at least 0), and lowers the prices of
 * the nodes ranked below K by eps per rank, where K is the rank at which
 * the search could stop (all active nodes ranked) or the bucket cap. This
 * keeps eps-optimality and makes every ranked node's shortest path
 * admissible. Returns 0, FC_ECANCELED, or FC_EINFEASIBLE if some excess
 * cannot reach any deficit. */
static int global_update(cs *c)
{
    const fc_graph *g = c->cs_g;
    int32_t n = c->cs_n;
    int64_t cap = n; /* ranks are clamped to [0, cap] */
    int64_t eps = c->cs_eps;
    int32_t active = 0;
    for (int64_t k = 0; k <= cap; k++)
        c->cs_bhead[k] = -1;
    for (fc_node v = 0; v < n; v++) {
        c->cs_dist[v] = -1;
        c->cs_done[v] = 0;
        if (!live(g, v))
            continue;
        if (c->cs_ex[v] < 0)
            bucket_insert(c, v, 0);
        else if (c->cs_ex[v] > 0)
            active++;
    }
    int64_t k = 0;
    int32_t *settled = c->cs_q; /* the queue is rebuilt after an update */
    int32_t nsettled = 0;
    while (active > 0 && k <= cap) {
        fc_node v = c->cs_bhead[k];
        if (v < 0) {
            k++;
            continue;
        }
        bucket_remove(c, v);
        if (cs_cancel_due(c, 1))
            return FC_ECANCELED;
        c->cs_done[v] = 1;
        settled[nsettled++] = v;
        if (c->cs_ex[v] > 0)
            active--;
        int64_t pv = c->cs_p[v];
        int32_t end = c->cs_first[v + 1];
        for (int32_t j = c->cs_first[v]; j < end; j++) {
            const cs_arc *a = &c->cs_arcs[j];
            fc_node u = a->a_head;
            /* The arc u -> v is a's twin. */
            if (c->cs_done[u] || twin_cap(a) <= 0)
                continue;
            int64_t rc = -a->a_cost - c->cs_p[u] + pv;
            int64_t len = rc < 0 ? 0 : rc / eps + 1;
            int64_t d = len > cap - k ? cap : k + len;
            if (c->cs_dist[u] >= 0) {
                if (c->cs_dist[u] <= d)
                    continue;
                bucket_remove(c, u);
            }
            bucket_insert(c, u, d);
        }
        c->cs_work += (uint64_t)(end - c->cs_first[v]);
    }
    if (active > 0)
        return FC_EINFEASIBLE;
    for (int32_t i = 0; i < nsettled; i++) {
        fc_node v = settled[i];
        c->cs_p[v] -= (k - c->cs_dist[v]) * eps;
    }
    /* Prices moved both ways relative to each other: current arcs and the
     * saturation scan must start over. */
    memcpy(c->cs_cur, c->cs_first, (size_t)n * sizeof *c->cs_cur);
    c->cs_all_dirty = true;
    c->cs_qhead = 0;
    c->cs_qlen = 0;
    release_held(c);
    for (fc_node v = 0; v < n; v++)
        if (live(g, v) && c->cs_ex[v] > 0)
            enqueue(c, v);
    /* the three passes over the nodes and the buckets stepped over */
    c->cs_work += 3 * (uint64_t)c->cs_n + (uint64_t)k;
    c->cs_relabels_since_update = 0;
    return 0;
}

/* Raise v's price to eps above the cheapest residual arc leaving it and
 * start its current arc over. Returns 0, FC_EINFEASIBLE (no residual arc:
 * its excess is stuck) or CS_OVERFLOW. */
static int relabel(cs *c, fc_node v)
{
    int64_t best = INT64_MAX;
    int32_t begin = c->cs_first[v], end = c->cs_first[v + 1];
    for (int32_t k = begin; k < end; k++) {
        const cs_arc *a = &c->cs_arcs[k];
        /* A self-loop's reduced cost does not depend on v's price. */
        if (a->a_cap <= 0 || a->a_head == v)
            continue;
        int64_t x = a->a_cost + c->cs_p[a->a_head];
        if (x < best)
            best = x;
    }
    c->cs_work += (uint64_t)(end - begin) + 1;
    if (best == INT64_MAX)
        return FC_EINFEASIBLE;
    if (best + c->cs_eps > CS_PRICE_LIMIT)
        return CS_OVERFLOW;
    c->cs_p[v] = best + c->cs_eps;
    /* Arcs before the cheapest may be admissible too (within eps of it). */
    c->cs_cur[v] = begin;
    mark_dirty(c, v);
    c->cs_relabels_since_update++;
    c->cs_phase_relabels++;
    return 0;
}

/* Whether v has an admissible arc; moves v's current arc to the first. */
static bool has_admissible(cs *c, fc_node v)
{
    const cs_arc *arcs = c->cs_arcs;
    const int64_t *p = c->cs_p;
    int64_t pv = p[v];
    int32_t end = c->cs_first[v + 1];
    int32_t k = c->cs_cur[v];
    for (; k < end; k++) {
        const cs_arc *a = &arcs[k];
        if (a->a_cap > 0 && a->a_cost + p[a->a_head] < pv)
            break;
    }
    c->cs_work += (uint64_t)(k - c->cs_cur[v]) + 1;
    c->cs_cur[v] = k;
    return k < end;
}

/* Whether a global price update is due. Discharging stops for it (a
 * node's excess may circle between nodes that all lost their way to the
 * deficits, which only an update notices), leaving the node active but
 * out of the queue: the update queues every active node again. */
static bool update_due(cs *c)
{
    if (c->cs_relabels_since_update < c->cs_update_every)
        return false;
    c->cs_paused = true;
    return true;
}

/* Push v's excess along admissible arcs, relabelling when it has none,
 * until the excess is gone or a global price update is due; a hub with
 * no admissible arc is held instead of relabelled while other nodes wait
 * in the queue. */
static int discharge(cs *c, fc_node v)
{
    cs_arc *arcs = c->cs_arcs;
    int64_t *ex = c->cs_ex;
    const int64_t *p = c->cs_p;
    int32_t end = c->cs_first[v + 1];
    int32_t k = c->cs_cur[v];
    while (ex[v] > 0) {
        int64_t pv = p[v];
        int32_t from = k;
        for (; k < end; k++) {
            const cs_arc *a = &arcs[k];
            if (a->a_cap > 0 && a->a_cost + p[a->a_head] < pv)
                break;
        }
        c->cs_work += (uint64_t)(k - from) + 1;
        if (k == end && c->cs_low_start && c->cs_qlen > 0 &&
            c->cs_first[v + 1] - c->cs_first[v] > c->cs_hub_degree) {
            hold(c, v);
            break;
        }
        if (k == end) {
            int rc = relabel(c, v);
            if (rc != 0)
                return rc;
            k = c->cs_cur[v];
            if (update_due(c))
                break;
            continue;
        }
        fc_node w = arcs[k].a_head;
        /* Look ahead: a node without a deficit and without an admissible
         * arc would only send the flow back; relabel it instead. */
        if (ex[w] >= 0 && w != v && !has_admissible(c, w)) {
            int rc = relabel(c, w);
            if (rc == 0) {
                if (update_due(c))
                    break;
                continue;
            }
            if (rc != FC_EINFEASIBLE)
                return rc;
        }
        int64_t delta = ex[v] < arcs[k].a_cap ? ex[v] : arcs[k].a_cap;
        bool was_active = ex[w] > 0;
        push(c, v, k, delta);
        if (!was_active && ex[w] > 0)
            enqueue(c, w);
        if (arcs[k].a_cap == 0)
            k++;
    }
    c->cs_cur[v] = k;
    return 0;
}

/* The queue is empty and hubs are held: rank the nodes by a global price
 * update, which queues every active node, if any price moved since the
 * last one; otherwise queue the held hubs (the last of them then
 * relabels, so the phase goes on). Returns 0 or global_update's error. */
static int release_hubs(cs *c)
{
    if (c->cs_relabels_since_update > 0)
        return global_update(c);
    int32_t nheld = c->cs_nheld;
    release_held(c);
    for (int32_t i = 0; i < nheld; i++)
        if (c->cs_ex[c->cs_held[i]] > 0)
            enqueue(c, c->cs_held[i]);
    return 0;
}

/* One phase at the current eps. */
static int refine(cs *c)
{
    if (fc_cancelled(c->cs_opt))
        return FC_ECANCELED;
    c->cs_moved = true;
    start_phase(c);
    for (;;) {
        if (c->cs_relabels_since_update >= c->cs_update_every &&
            (c->cs_qlen > 0 || c->cs_paused)) {
            c->cs_paused = false;
            int rc = global_update(c);
            if (rc != 0)
                return rc;
            continue;
        }
        /* Past this many relabels a feasible phase would have finished
         * (Goldberg and Tarjan's bound, with room to spare), if the phases
         * started from the largest cost. */
        if (c->cs_phase_relabels > c->cs_relabel_bound)
            return c->cs_low_start ? CS_TOO_LOW : FC_EINFEASIBLE;
        if (c->cs_qlen == 0 && c->cs_nheld > 0) {
            int rc = release_hubs(c);
            if (rc != 0)
                return rc;
            continue;
        }
        if (c->cs_qlen == 0)
            break;
        if (cs_cancel_due(c, 64))
            return FC_ECANCELED;
        fc_node v = dequeue(c);
        int rc = discharge(c, v);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Give each node added since the last solve the price that breaks the
 * fewest of its arcs: no residual arc leaving it may go below zero (the
 * highest such price, good for pushing its supply out), and no residual
 * arc entering it if possible. */
static void price_new_nodes(cs *c)
{
    const fc_graph *g = c->cs_g;
    if (g->g_changes_lost)
        return;
    for (size_t i = 0; i < g->g_nchanges; i++) {
        const fc_change *ch = &g->g_changes[i];
        fc_node v = ch->ch_id;
        if (ch->ch_kind != FC_CHANGE_NODE_ADD || !live(g, v))
            continue;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        int32_t end = c->cs_first[v + 1];
        for (int32_t k = c->cs_first[v]; k < end; k++) {
            const cs_arc *a = &c->cs_arcs[k];
            if (a->a_head == v)
                continue;
            int64_t x = a->a_cost + c->cs_p[a->a_head];
            if (a->a_cap > 0 && x < hi)
                hi = x; /* v -> w stays >= 0 while p[v] <= x */
            if (twin_cap(a) > 0 && x > lo)
                lo = x; /* w -> v stays >= 0 while p[v] >= x */
        }
        if (hi == INT64_MAX)
            c->cs_p[v] = lo == INT64_MIN ? 0 : lo;
        else if (lo == INT64_MIN || lo <= hi)
            c->cs_p[v] = hi;
        else
            c->cs_p[v] = lo / 2 + hi / 2;
    }
}

/* Scaled prices from the state's prices; 0 if they cannot be scaled. */
static void load_prices(cs *c)
{
    const fc_graph *g = c->cs_g;
    int64_t lim = CS_PRICE_LIMIT / 4 / c->cs_scale;
    bool ok = true;
    for (fc_node v = 0; v < c->cs_n && ok; v++)
        if (live(g, v) &&
            (c->cs_st->fs_price[v] > lim || c->cs_st->fs_price[v] < -lim))
            ok = false;
    for (fc_node v = 0; v < c->cs_n; v++)
        c->cs_p[v] = ok && live(g, v) ? c->cs_st->fs_price[v] * c->cs_scale : 0;
}

/* The largest amount by which a residual arc's scaled reduced cost is
 * negative (0 if none is). */
static int64_t max_violation(cs *c)
{
    int64_t worst = 0;
    for (fc_node v = 0; v < c->cs_n; v++) {
        int64_t pv = c->cs_p[v];
        int32_t end = c->cs_first[v + 1];
        for (int32_t k = c->cs_first[v]; k < end; k++) {
            const cs_arc *a = &c->cs_arcs[k];
            if (a->a_cap <= 0)
                continue;
            int64_t rc = a->a_cost - pv + c->cs_p[a->a_head];
            if (-rc > worst)
                worst = -rc;
        }
    }
    c->cs_work += (uint64_t)c->cs_first[c->cs_n];
    return worst;
}

/* Turn the scaled prices of a flow with no excess into exact unscaled ones
 * under which every residual arc has a non-negative reduced cost: dividing
 * rounds each reduced cost down by less than one unit (to >= -1 when the
 * flow is 1-optimal in scaled units), and a label-correcting pass lowers
 * prices until no arc is negative. That succeeds exactly when the flow is
 * optimal (no negative cycle), and then takes little work from prices
 * that are nearly right. With sure set the flow is known to be optimal;
 * otherwise the pass gives up after `budget` steps. Returns 0 (the state's
 * prices are exact), CS_UNSURE (gave up; the state's prices are
 * meaningless) or FC_ECANCELED. */
static int exact_prices(cs *c, bool sure, uint64_t budget)
{
    const fc_graph *g = c->cs_g;
    int64_t *price = c->cs_st->fs_price;
    int64_t scale = c->cs_scale;
    int32_t n = c->cs_n;
    uint8_t *inq = c->cs_done;
    for (fc_node v = 0; v < n; v++) {
        price[v] = live(g, v) ? floor_div(c->cs_p[v], scale) : 0;
        inq[v] = 0;
    }
    /* The queue holds nodes whose price fell; the arcs into them may now
     * be negative. Seed it with the heads of the arcs that are. */
    int32_t *q = c->cs_q;
    int32_t qh = 0, ql = 0;
    for (fc_node t = 0; t < n; t++) {
        int32_t end = c->cs_first[t + 1];
        for (int32_t k = c->cs_first[t]; k < end; k++) {
            const cs_arc *a = &c->cs_arcs[k];
            fc_node h = a->a_head;
            if (a->a_cap > 0 && a->a_cost / scale - price[t] + price[h] < 0 &&
                !inq[h]) {
                inq[h] = 1;
                q[(qh + ql++) % n] = h;
            }
        }
    }
    /* Without a negative cycle (the flow is optimal) each node's price
     * falls at most n times. */
    uint64_t steps = 0;
    uint64_t most = ((uint64_t)n + 1) * ((uint64_t)c->cs_first[n] + n + 1);
    if (!sure && budget < most)
        most = budget;
    while (ql > 0) {
        if (steps > most) {
            FC_ASSERT(!sure);
            c->cs_work += steps;
            return CS_UNSURE;
        }
        fc_node w = q[qh];
        qh = (qh + 1) % n;
        ql--;
        inq[w] = 0;
        int32_t end = c->cs_first[w + 1];
        for (int32_t k = c->cs_first[w]; k < end; k++) {
            const cs_arc *a = &c->cs_arcs[k];
            fc_node u = a->a_head; /* the arc u -> w is a's twin */
            if (twin_cap(a) <= 0)
                continue;
            int64_t rc = -a->a_cost / scale - price[u] + price[w];
            if (rc < 0) {
                price[u] += rc;
                if (!inq[u]) {
                    inq[u] = 1;
                    q[(qh + ql++) % n] = u;
                }
            }
        }
        steps += (uint64_t)(end - c->cs_first[w]) + 1;
        if ((steps & 0xffff) < (uint64_t)(end - c->cs_first[w]) + 1 &&
            fc_cancelled(c->cs_opt))
            return FC_ECANCELED;
    }
    c->cs_work += steps;
    return 0;
}

/* Write the scaled prices back (rounded) when stopping early. */
static void store_rough_prices(cs *c)
{
    for (fc_node v = 0; v < c->cs_n; v++)
        c->cs_st->fs_price[v] =
            live(c->cs_g, v) ? floor_div(c->cs_p[v], c->cs_scale) : 0;
}

/* The scaled arithmetic is safe when prices cannot outgrow CS_PRICE_LIMIT:
 * they move by at most about (alpha + 2) * n * eps per phase, eps starts
 * at most at max|cost| * N, and the phases' sum is geometric. */
static bool fits(int64_t max_cost, int64_t scale, int64_t alpha)
{
    if (max_cost == 0)
        return true;
    int64_t lim = CS_PRICE_LIMIT / 8;
    if (max_cost > lim / scale)
        return false;
    int64_t eps0 = max_cost * scale;
    return eps0 <= lim / scale / (alpha + 3);
}

/* Forget the prices: under zero prices every residual arc's reduced cost
 * is its cost, so every flow, feasible or not, is max_cost-optimal, and
 * Goldberg and Tarjan's bound holds from there. Returns the scaled eps
 * the phases start from (as from scratch: at least alpha units). */
static int64_t zero_prices(cs *c, int64_t max_cost)
{
    memset(c->cs_p, 0, (size_t)c->cs_n * sizeof *c->cs_p);
    int64_t start = max_cost * c->cs_scale;
    return start < c->cs_scale * c->cs_alpha ? c->cs_scale * c->cs_alpha
                                             : start;
}

/* Refine from eps = start / alpha down to an optimal flow with exact
 * prices. */
static int phases(cs *c, int64_t start)
{
    int rc;
    c->cs_eps = start;
    c->cs_all_dirty = true;
    do {
        c->cs_eps = c->cs_eps / c->cs_alpha;
        if (c->cs_eps < 1)
            c->cs_eps = 1;
        rc = refine(c);
        if (rc != 0)
            return rc;
        /* Once eps is below one unscaled unit, the flow is often optimal
         * phases before eps reaches 1: check, for at most the work of one
         * pass over the nodes and their residual arcs (a phase costs ten
         * times that and more; a smaller budget gives up on checks that
         * would succeed, and so runs a phase too many on large graphs). */
        if (c->cs_eps > 1 && c->cs_eps <= c->cs_scale) {
            rc = exact_prices(c, false,
                              (uint64_t)c->cs_first[c->cs_n] + c->cs_n);
            if (rc != CS_UNSURE)
                return rc;
        }
    } while (c->cs_eps > 1);
    return exact_prices(c, true, 0);
}

static int run(cs *c, int64_t max_cost)
{
    const fc_graph *g = c->cs_g;
    int rc = load_arcs(c);
    if (rc != 0)
        return rc;
    load_prices(c);
    price_new_nodes(c);
    int64_t viol = max_violation(c);
    /* The passes above cost as much as a small round's whole solve: a race
     * that relaxation already won should not wait for more of them. */
    if (fc_cancelled(c->cs_opt))
        return FC_ECANCELED;
    bool excess = false;
    for (fc_node v = 0; v < c->cs_n && !excess; v++)
        excess = live(g, v) && c->cs_ex[v] != 0;
    if (viol == 0 && !excess)
        return exact_prices(c, true, 0);
    /* Goldberg and Tarjan's bound on relabels, which this solver uses to
     * stop on infeasible networks, holds from the worst broken arc, and
     * when there is excess to re-route (supply, cut capacities), from the
     * largest cost. From scratch the phases start there. After changes to
     * an optimum they start lower, with one phase at one unscaled unit
     * over alpha, after which the flow is usually optimal: the arcs the
     * changes left alone are still exactly optimal, and the global price
     * updates rank every node by its distance to a deficit at any eps,
     * which lifts the excess as far as it must climb (starting at one
     * unit takes a second phase over every node the first relabelled).
     * Should a phase started so low exceed the bound, the
     * solve starts over from where it holds; on small networks, where the
     * bound leaves no room for every node to climb the largest cost in
     * steps of that eps, it would, and they start high.
     * The bound holds from the largest cost only if a feasible flow is
     * that close to optimal under the prices the phases start from, and
     * the prices of an earlier optimum need not be: a round after one
     * with a dearer arc (flowd's escape arcs, 2^31) can leave gaps of 2^31
     * between prices that excess must climb, where the largest cost is
     * now 1,000, and the excess then climbs them eps by eps, past the
     * bound, on a feasible network. With excess, the phases that start
     * high start from zero prices, under which every flow is within the
     * largest cost of optimal. */
    int64_t high = viol;
    if (excess && max_cost * c->cs_scale > high)
        high = max_cost * c->cs_scale;
    if (excess && high < c->cs_scale * c->cs_alpha)
        high = c->cs_scale * c->cs_alpha;
    uint64_t room =
        c->cs_relabel_bound / (uint64_t)c->cs_alpha / (uint64_t)c->cs_live;
    bool low = g->g_optimal && !g->g_changes_lost && high > c->cs_scale &&
               (uint64_t)max_cost <= room;
    int64_t start = low ? c->cs_scale : high;
    if (!low && excess)
        start = zero_prices(c, max_cost);
    c->cs_low_start = low;
    rc = phases(c, start);
    if (rc != CS_TOO_LOW)
        return rc;
    c->cs_low_start = false;
    return phases(c, zero_prices(c, max_cost));
}

/* One pass over g: its live nodes, largest |cost| and sum of supplies. */
static fc_int128 scan_network(const fc_graph *g, int32_t *live_out,
                              int64_t *max_cost_out)
{
    fc_int128 balance = 0; /* 2^26 supplies of 2^40 pass 2^63 */
    int32_t nlive = 0;
    int64_t max_cost = 0;
    for (fc_node v = 0; v < g->g_nbound; v++) {
        if (live(g, v)) {
            balance += g->g_supply[v];
            nlive++;
        }
    }
    for (fc_arc a = 0; a < g->g_abound; a++) {
        int64_t k = g->g_cost[2 * a];
        if (g->g_head[2 * a] >= 0 && (k < 0 ? -k : k) > max_cost)
            max_cost = k < 0 ? -k : k;
    }
    *live_out = nlive;
    *max_cost_out = max_cost;
    return balance;
}

bool fc_cs_fits(const fc_graph *g, const fc_solve_options *opt)
{
    int32_t nlive;
    int64_t max_cost;
    scan_network(g, &nlive, &max_cost);
    /* An alpha fc_cs_solve refuses (it fails FC_EINVAL) counts as 0. */
    int64_t alpha = opt->so_alpha;
    if (alpha < 2 || alpha > CS_MAX_ALPHA)
        alpha = CS_DEFAULT_ALPHA;
    return fits(max_cost, (int64_t)nlive + 1, alpha);
}

int fc_cs_solve(const fc_graph *g, fc_flow_state *st,
                const fc_solve_options *opt, fc_scratch *scratch,
                uint64_t *work)
{
    if (opt->so_alpha < 0 || opt->so_alpha == 1 || opt->so_alpha > CS_MAX_ALPHA)
        return FC_EINVAL;
    if (fc_cancelled(opt))
        return FC_ECANCELED;
    cs c;
    memset(&c, 0, sizeof c);
    c.cs_g = g;
    c.cs_st = st;
    c.cs_opt = opt;
    c.cs_n = g->g_nbound;
    c.cs_ex = st->fs_excess;
    c.cs_alpha = opt->so_alpha ? opt->so_alpha : CS_DEFAULT_ALPHA;

    int64_t max_cost;
    if (scan_network(g, &c.cs_live, &max_cost) != 0)
        return FC_EINFEASIBLE;
    c.cs_scale = (int64_t)c.cs_live + 1;
    /* Too large for scaled 64-bit prices: the reference solver is exact
     * at any size. */
    if (!fits(max_cost, c.cs_scale, c.cs_alpha))
        return fc_ssp_solve(g, st, opt, NULL, work);
    if (c.cs_n == 0)
        return 0;
    uint64_t live_n = (uint64_t)c.cs_live;
    c.cs_update_every = CS_UPDATE_PER_NODE * live_n + 16;
    c.cs_hub_degree = c.cs_live / CS_HUB_SHARE > CS_HUB_DEGREE
                          ? c.cs_live / CS_HUB_SHARE
                          : CS_HUB_DEGREE;
    c.cs_relabel_bound =
        ((uint64_t)c.cs_alpha + 3) * (live_n + 1) * (live_n + 1) + 1024;

    int rc = cs_alloc(&c, scratch);
    if (rc != 0)
        return rc;
    rc = run(&c, max_cost);
    /* Stopped before any flow moved (a race lost early): the state is
     * still the caller's, and writing it back would only cost time. */
    if (c.cs_moved) {
        store_arcs(&c);
        if (rc != 0)
            store_rough_prices(&c);
    }
    if (rc == CS_OVERFLOW)
        rc = fc_ssp_solve(g, st, opt, NULL, work);
    *work += c.cs_work;
    return rc;
}
