/*
 * fc_relax.c - Bertsekas-Tseng relaxation (RELAX): dual ascent on node
 * prices with complementary slackness kept at every step.
 *
 * Invariant (complementary slackness, CS): every residual arc with room has
 * a non-negative reduced cost, cost[r] - price[tail] + price[head]; an arc
 * with reduced cost zero is "balanced".
 *
 * One iteration starts at a node s with positive excess and grows a tree S
 * of nodes reached from s over balanced residual arcs with room, scanning
 * one node at a time. S's ascent direction is its total excess minus the
 * room on the balanced arcs leaving it. When that is positive, raising the
 * prices of S increases the dual: the balanced arcs leaving S are saturated
 * (their reduced cost is about to go negative) and S's prices rise by the
 * smallest reduced cost of the other residual arcs leaving it. Otherwise
 * the tree grows; as soon as a scan meets a balanced arc into a node with a
 * deficit, excess moves from s to it along the tree path (arc
 * prioritisation: arcs that lead to demand are taken the moment they are
 * seen, before the rest of the node's arcs and before any other labelled
 * node is scanned; a hub's own first arcs are peeked at when it is
 * labelled, since its scan comes last).
 *
 * The mirror iteration starts at a node t with a deficit and grows a tree T
 * of nodes that reach t over balanced residual arcs; when T's deficit
 * exceeds the room on the balanced arcs entering it, those arcs are
 * saturated and T's prices fall by the smallest reduced cost of the other
 * residual arcs entering it. A task that finishes frees a slot on a full
 * machine whose price the tasks had raised: from the machine the repair is
 * a small tree, from the sink's excess it would be raising the prices of
 * most of the network, many times. Trees from hubs (sink, aggregators) are
 * grown only when no other node has excess or a deficit.
 *
 * Incremental use: the solver starts from the flow and prices in the state.
 * It first restores CS on the arcs whose reduced cost sign disagrees with
 * their flow, by saturating or emptying them: every arc after a from-scratch
 * reset or when the change record was lost, otherwise only the arcs the
 * change record names (a state left by a successful solve satisfies CS).
 *
 * Infeasibility: supplies that do not sum to zero are rejected up front; a
 * price rise with no residual arc leaving S proves that S's excess cannot
 * leave it (a price drop with no arc entering T, that T's deficit cannot be
 * met). RELAX may otherwise raise prices forever on an infeasible
 * instance, and on such a run prices drift far apart, whereas a feasible
 * one keeps them within a bound of the order of (n + 1) times the largest
 * cost. If the spread of prices passes twice that bound, the solve is
 * finished by successive shortest path, which decides feasibility exactly;
 * so the solver never loops.
 *
 * Work (the count the caller charges, and the budget's and cancel checks'
 * clock): one unit per arc looked at, and RELAX_NODE_WORK units per move
 * to a node whose arcs are then walked, in proportion to the time taken
 * whatever the degrees. A scan counts RELAX_NODE_WORK for the node and
 * one for every arc it examines (all of them, or up to the one that ends
 * the iteration); a hub's peek, the arcs it looks at; a price change,
 * each node of the tree twice and each of its arcs once (the pass that
 * finds the step and saturates); an augmentation, its path's arcs (twice:
 * the bottleneck and the pushes); a sweep step, RELAX_NODE_WORK, plus the
 * arcs next_balanced passes over; a pass over the active nodes, each of
 * them twice (the visit, skipped or not, and the compaction). Restoring
 * CS at the start
 * (a pass over the arcs named, or all of them) is not counted: callers
 * charge every solve per arc of the network for it. The count is a sum of
 * loop bounds the code computes anyway, so it costs nothing measurable,
 * and it depends only on the network and the state: the same on every run.
 */
#include "fc_graph_impl.h"

#include <string.h>

/* Incoming prices beyond this are treated as stale and reset (CS is then
 * restored on every arc): keeps price arithmetic far from overflow. */
#define RELAX_PRICE_LIMIT ((int64_t)1 << 58)

/* Labelled nodes with more residual arcs than this are scanned only when
 * no other labelled node is left: scheduling networks have a few hubs (the
 * cluster and rack aggregators, a job's unscheduled aggregator) whose scan
 * costs thousands of arcs, while a short path to the demand usually runs
 * through nodes of small degree (machines). */
#define RELAX_HUB_DEGREE 64

/* How many of a hub's first arcs are looked at when it joins a tree. */
#define RELAX_PEEK 64

/* A sweep runs before a pass if the trees of the last pass averaged more
 * than this many scanned nodes: then one search with dead-end marks is
 * cheaper than many trees over the same balanced region. */
#define RELAX_SWEEP_TREE 16

/* The work of moving to a node to walk its arcs (a scan, a sweep step),
 * in arcs looked at: its adjacency and stamps are elsewhere in memory,
 * and a scheduling network's small nodes (machines, tasks) have their few
 * arcs scattered, where a hub's many arcs are walked in order. Measured
 * per solve on the trace's networks (docs/results/hybrid.md, "The
 * solve-time model"): about 40-50 ns per scan or sweep step against
 * 2-2.5 ns per other arc looked at. */
#define RELAX_NODE_WORK 16

/* How much work (arcs looked at) between two looks at the cancel flag: a
 * few microseconds' worth. */
#define RELAX_CANCEL_WORK 4096

/* Sums of excesses and capacities over a set of nodes can pass 2^63 (2^28
 * arcs of capacity 2^40); they are only compared, so a wide type keeps them
 * exact. */
typedef __int128 relax_wide;

/* Per-solve scratch, sized to the graph's node bound. */
typedef struct relax {
    const fc_graph *rx_g;
    fc_flow_state *rx_st;
    int32_t rx_n;
    uint32_t rx_epoch;  /* current tree */
    uint32_t *rx_label; /* epoch at which the node joined the tree */
    uint32_t *rx_scan;  /* epoch at which the node joined S (was scanned) */
    int32_t *rx_pred;   /* residual arc by which the node joined the tree */
    int32_t *rx_queue;  /* labelled nodes of small degree, to scan first */
    int32_t *rx_hubs;   /* labelled nodes of large degree, to scan last */
    int32_t *rx_sset;   /* S: the scanned nodes */
    int32_t *rx_active; /* stack of nodes that may have excess or deficit */
    int32_t rx_nactive;
    int32_t rx_small; /* active nodes that are not hubs (at compaction) */
    uint8_t *rx_onstack;
    /* the sweep's depth-first search over balanced arcs */
    uint32_t rx_sweep;              /* current sweep */
    int64_t rx_budget;              /* steps the current sweep may still take */
    const fc_solve_options *rx_opt; /* for the cancel flag */
    const fc_poll *rx_poll;         /* the caller's check, or NULL */
    uint32_t *rx_seen; /* sweep in which the node's rx_cur was reset */
    uint32_t *rx_dead; /* sweep in which the node was found to lead nowhere */
    int32_t *rx_cur;   /* next position to try in the node's adjacency */
    uint8_t *rx_onpath;
    uint64_t rx_scans; /* nodes scanned by iterations, for the sweep policy */
    int64_t rx_floor;  /* smallest price so far */
    int64_t rx_top;    /* largest price so far */
    int64_t rx_bound;  /* price spread that triggers the safety net */
    bool rx_bound_costed; /* rx_bound accounts for the real largest cost */
    bool rx_escaped;      /* the spread passed the bound */
} relax;

/* Hand out the next `bytes` of a scratch block, 64-byte aligned. */
static void *carve(char **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 63) / 64 * 64;
    return p;
}

/* Lay the per-node arrays out in the graph's scratch block for
 * relaxation, stamps and flags cleared. Returns 0 or FC_ENOMEM. */
static int relax_init(relax *x, const fc_graph *g, fc_flow_state *st,
                      fc_scratch *scratch)
{
    memset(x, 0, sizeof *x);
    x->rx_g = g;
    x->rx_st = st;
    x->rx_n = g->g_nbound;
    size_t n = (size_t)g->g_nbound + 1;
    size_t total = 12 * 64 + n * (4 * 11 + 2);
    char *at = fc_scratch_get(&scratch[FC_SCRATCH_RELAX], total);
    if (at == NULL)
        return FC_ENOMEM;
    /* The arrays that must start cleared come first, to clear at once. */
    char *zero = at;
    x->rx_label = carve(&at, n * sizeof(uint32_t));
    x->rx_scan = carve(&at, n * sizeof(uint32_t));
    x->rx_seen = carve(&at, n * sizeof(uint32_t));
    x->rx_dead = carve(&at, n * sizeof(uint32_t));
    x->rx_onstack = carve(&at, n);
    x->rx_onpath = carve(&at, n);
    memset(zero, 0, (size_t)(at - zero));
    x->rx_pred = carve(&at, n * sizeof(int32_t));
    x->rx_queue = carve(&at, n * sizeof(int32_t));
    x->rx_hubs = carve(&at, n * sizeof(int32_t));
    x->rx_sset = carve(&at, n * sizeof(int32_t));
    x->rx_active = carve(&at, n * sizeof(int32_t));
    x->rx_cur = carve(&at, n * sizeof(int32_t));
    return 0;
}

static void activate(relax *x, int32_t v)
{
    if (!x->rx_onstack[v]) {
        x->rx_onstack[v] = 1;
        x->rx_active[x->rx_nactive++] = v;
    }
}

/* After a saturating push between i and j: either may now have excess or
 * a deficit, and trees grow from both. */
static void activate_both(relax *x, int32_t i, int32_t j)
{
    if (x->rx_st->fs_excess[i] != 0)
        activate(x, i);
    if (x->rx_st->fs_excess[j] != 0)
        activate(x, j);
}

/* Saturate or empty arc a so that its flow agrees with the sign of its
 * reduced cost. */
static void restore_arc(relax *x, fc_arc a)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    int32_t r = 2 * a;
    int32_t dst = g->g_head[r];
    if (dst < 0)
        return;
    int64_t rc =
        g->g_cost[r] - st->fs_price[g->g_head[r + 1]] + st->fs_price[dst];
    if (rc < 0 && st->fs_rescap[r] > 0)
        fc_push(g, st, r, st->fs_rescap[r]);
    else if (rc > 0 && st->fs_rescap[r + 1] > 0)
        fc_push(g, st, r + 1, st->fs_rescap[r + 1]);
}

/* Give a node added since the last solve (price 0, which may be far from
 * its neighbours' prices) the highest price at which no residual arc
 * leaving it has a negative reduced cost: its arcs then need no
 * saturating, and its supply is one price rise or augmentation from its
 * cheapest arc. A node with no residual arc out takes the lowest price at
 * which the arcs into it keep CS. */
static void price_new_node(relax *x, fc_node v)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    const fc_adj *adj = &g->g_adj[v];
    int64_t out = INT64_MAX, in = INT64_MIN;
    for (int32_t m = 0; m < adj->ad_len; m++) {
        int32_t r = adj->ad_res[m];
        int32_t j = g->g_head[r];
        if (j == v)
            continue;
        if (st->fs_rescap[r] > 0 && g->g_cost[r] + st->fs_price[j] < out)
            out = g->g_cost[r] + st->fs_price[j];
        if (st->fs_rescap[r ^ 1] > 0 && st->fs_price[j] + g->g_cost[r] > in)
            in = st->fs_price[j] + g->g_cost[r];
    }
    if (out != INT64_MAX)
        st->fs_price[v] = out;
    else if (in != INT64_MIN)
        st->fs_price[v] = in;
}

/* Restore CS where it may be broken: on every arc, or on the arcs the
 * change record names (after pricing the nodes it says were added). */
static void restore_cs(relax *x, bool everything)
{
    const fc_graph *g = x->rx_g;
    if (everything) {
        for (fc_arc a = 0; a < g->g_abound; a++)
            restore_arc(x, a);
        return;
    }
    for (size_t i = 0; i < g->g_nchanges; i++) {
        const fc_change *c = &g->g_changes[i];
        if (c->ch_kind == FC_CHANGE_NODE_ADD &&
            g->g_ntype[c->ch_id] != FC_NODE_FREE)
            price_new_node(x, c->ch_id);
    }
    for (size_t i = 0; i < g->g_nchanges; i++) {
        const fc_change *c = &g->g_changes[i];
        if (c->ch_kind == FC_CHANGE_ARC_ADD || c->ch_kind == FC_CHANGE_COST ||
            c->ch_kind == FC_CHANGE_CAPACITY)
            restore_arc(x, c->ch_id);
    }
}

/* Reset prices that are out of range. Returns true if it did. */
static bool reset_wild_prices(relax *x)
{
    int64_t *p = x->rx_st->fs_price;
    for (int32_t v = 0; v < x->rx_n; v++) {
        if (p[v] > RELAX_PRICE_LIMIT || p[v] < -RELAX_PRICE_LIMIT) {
            memset(p, 0, (size_t)x->rx_n * sizeof(int64_t));
            return true;
        }
    }
    return false;
}

static void next_epoch(relax *x)
{
    if (++x->rx_epoch == 0) {
        /* The stamps wrapped: clear them so no old tree looks current. */
        size_t n = (size_t)x->rx_n + 1;
        memset(x->rx_label, 0, n * sizeof(uint32_t));
        memset(x->rx_scan, 0, n * sizeof(uint32_t));
        x->rx_epoch = 1;
    }
}

/* Move excess from s to the deficit node t along the tree path. Returns
 * the work: twice the path's arcs. */
static uint64_t augment(relax *x, int32_t s, int32_t t)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    int64_t amount = st->fs_excess[s];
    if (-st->fs_excess[t] < amount)
        amount = -st->fs_excess[t];
    for (int32_t v = t; v != s; v = fc_tail(g, x->rx_pred[v])) {
        int32_t r = x->rx_pred[v];
        if (st->fs_rescap[r] < amount)
            amount = st->fs_rescap[r];
    }
    uint64_t len = 0;
    for (int32_t v = t; v != s; v = fc_tail(g, x->rx_pred[v]), len++)
        fc_push(g, st, x->rx_pred[v], amount);
    return 2 * len;
}

/* The largest |cost| of any arc. */
static int64_t max_cost(const fc_graph *g)
{
    int64_t c = 0;
    for (int32_t r = 0; r < 2 * g->g_abound; r += 2) {
        if (g->g_head[r] >= 0 && (g->g_cost[r] > c || -g->g_cost[r] > c))
            c = g->g_cost[r] > 0 ? g->g_cost[r] : -g->g_cost[r];
    }
    return c;
}

/* Note a price that changed; sets rx_escaped when the spread of prices
 * passes the bound a feasible run keeps to. */
static void note_price(relax *x, int64_t p)
{
    if (p > x->rx_top)
        x->rx_top = p;
    else if (p < x->rx_floor)
        x->rx_floor = p;
    else
        return;
    if (x->rx_top - x->rx_floor <= x->rx_bound)
        return;
    if (!x->rx_bound_costed) {
        /* The first bound assumed unit costs; now pay for the real one. */
        int64_t n = x->rx_n + 1;
        x->rx_bound += 4 * n * max_cost(x->rx_g);
        x->rx_bound_costed = true;
        if (x->rx_top - x->rx_floor <= x->rx_bound)
            return;
    }
    x->rx_escaped = true;
}

/* The next balanced residual arc with room out of u whose head is neither
 * on the sweep's path nor dead; -1 if none is left. Adds the arcs it
 * passes over to *work. */
static int32_t next_balanced(relax *x, int32_t u, uint64_t *work)
{
    const fc_graph *g = x->rx_g;
    const fc_flow_state *st = x->rx_st;
    const fc_adj *adj = &g->g_adj[u];
    uint32_t sw = x->rx_sweep;
    if (x->rx_seen[u] != sw) {
        x->rx_seen[u] = sw;
        x->rx_cur[u] = 0;
    }
    int64_t pu = st->fs_price[u];
    int32_t from = x->rx_cur[u];
    for (int32_t m = from; m < adj->ad_len; m++) {
        int32_t r = adj->ad_res[m];
        int32_t j = g->g_head[r];
        if (st->fs_rescap[r] > 0 && g->g_cost[r] - pu + st->fs_price[j] == 0 &&
            !x->rx_onpath[j] && x->rx_dead[j] != sw) {
            x->rx_cur[u] = m;
            *work += (uint64_t)(m - from);
            return r;
        }
    }
    x->rx_cur[u] = adj->ad_len;
    if (adj->ad_len > from)
        *work += (uint64_t)(adj->ad_len - from);
    return -1;
}

/* Move as much of s's excess as a depth-first search finds room for along
 * balanced paths to deficit nodes. Prices do not change, so CS holds. */
static void sweep_from(relax *x, int32_t s, uint64_t *work)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    int32_t *path = x->rx_queue;
    int32_t len = 0, u = s;
    x->rx_onpath[s] = 1;
    while (st->fs_excess[s] > 0 && x->rx_budget-- > 0) {
        /* a step is RELAX_NODE_WORK units: look every RELAX_CANCEL_WORK */
        if (x->rx_budget % (RELAX_CANCEL_WORK / RELAX_NODE_WORK) == 0 &&
            fc_must_stop(x->rx_opt, x->rx_poll))
            x->rx_budget = 0; /* the main loop sees the flag next */
        *work += RELAX_NODE_WORK;
        if (u != s && st->fs_excess[u] < 0) {
            int64_t amount = st->fs_excess[s];
            if (-st->fs_excess[u] < amount)
                amount = -st->fs_excess[u];
            for (int32_t k = 0; k < len; k++)
                if (st->fs_rescap[path[k]] < amount)
                    amount = st->fs_rescap[path[k]];
            for (int32_t k = 0; k < len; k++)
                fc_push(g, st, path[k], amount);
            *work += 2 * (uint64_t)len;
            /* Back up to the tail of the first arc left without room. */
            int32_t k = 0;
            while (k < len && st->fs_rescap[path[k]] > 0)
                k++;
            while (len > k) {
                x->rx_onpath[u] = 0;
                u = fc_tail(g, path[--len]);
            }
            continue;
        }
        int32_t r = next_balanced(x, u, work);
        if (r >= 0) {
            path[len++] = r;
            u = g->g_head[r];
            x->rx_onpath[u] = 1;
            continue;
        }
        x->rx_dead[u] = x->rx_sweep;
        if (u == s)
            break;
        x->rx_onpath[u] = 0;
        u = fc_tail(g, path[--len]);
        x->rx_cur[u]++;
    }
    while (len > 0) {
        x->rx_onpath[u] = 0;
        u = fc_tail(g, path[--len]);
    }
    x->rx_onpath[s] = 0;
}

/* One sweep: every active node sends what it can along balanced paths.
 * Trees grown one root at a time re-explore the same balanced region for
 * every unit they move; the sweep's dead marks explore it once. */
static void sweep(relax *x, uint64_t *work)
{
    if (++x->rx_sweep == 0) {
        size_t n = (size_t)x->rx_n + 1;
        memset(x->rx_seen, 0, n * sizeof(uint32_t));
        memset(x->rx_dead, 0, n * sizeof(uint32_t));
        x->rx_sweep = 1;
    }
    /* Without the level structure of a blocking-flow search, paths can
     * push flow to and fro across small arcs for as long as the excesses
     * last; a budget of a few passes over the graph bounds the sweep, and
     * the iterations do the rest. */
    x->rx_budget = 4 * ((int64_t)x->rx_g->g_abound + x->rx_n);
    for (int32_t k = 0; k < x->rx_nactive && x->rx_budget > 0; k++)
        if (x->rx_st->fs_excess[x->rx_active[k]] > 0)
            sweep_from(x, x->rx_active[k], work);
}

static bool is_hub(const relax *x, int32_t v)
{
    return x->rx_g->g_adj[v].ad_len > RELAX_HUB_DEGREE;
}

/* Drop the nodes without excess or deficit from the active stack, and
 * count the others that are not hubs. Adds the work (the stack's nodes)
 * to *work. */
static void compact_active(relax *x, uint64_t *work)
{
    int32_t kept = 0;
    *work += (uint64_t)x->rx_nactive;
    x->rx_small = 0;
    for (int32_t k = 0; k < x->rx_nactive; k++) {
        int32_t v = x->rx_active[k];
        if (x->rx_st->fs_excess[v] != 0) {
            x->rx_active[kept++] = v;
            x->rx_small += !is_hub(x, v);
        } else {
            x->rx_onstack[v] = 0;
        }
    }
    x->rx_nactive = kept;
}

/* Change the prices of the tree rx_sset[0 .. n) of the last iteration:
 * raise them when the tree grew forward from an excess (S), lower them
 * when it grew backward from a deficit (T). The balanced residual arcs
 * leaving S (entering T) are saturated, since their reduced costs are
 * about to go negative; then the prices move by the smallest reduced cost
 * of the other residual arcs leaving S (entering T). Adds the work (each
 * node and each of its arcs) to *work. Returns 0 or FC_EINFEASIBLE when
 * there is no such arc (S's excess is trapped, T's deficit cannot be
 * met). */
static inline int price_change(relax *x, int32_t n, bool forward,
                               uint64_t *work)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    uint32_t ep = x->rx_epoch;
    int64_t delta = INT64_MAX;
    uint64_t arcs = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t i = x->rx_sset[k];
        int64_t pi = st->fs_price[i];
        const fc_adj *adj = &g->g_adj[i];
        arcs += (uint64_t)adj->ad_len;
        for (int32_t m = 0; m < adj->ad_len; m++) {
            int32_t out = adj->ad_res[m]; /* i -> j */
            int32_t j = adj->ad_arc[m].aa_head;
            int32_t r = forward ? out : out ^ 1;
            if (x->rx_scan[j] == ep || st->fs_rescap[r] == 0)
                continue;
            int64_t cost = adj->ad_arc[m].aa_cost; /* of out; r's: -cost */
            int64_t rc = forward ? cost + st->fs_price[j] - pi
                                 : -cost + pi - st->fs_price[j];
            if (rc > 0) {
                if (rc < delta)
                    delta = rc;
                continue;
            }
            fc_push(g, st, r, st->fs_rescap[r]);
            activate_both(x, i, j);
        }
    }
    *work += arcs + 2 * (uint64_t)n; /* the arcs, the nodes twice */
    if (delta == INT64_MAX)
        return FC_EINFEASIBLE;
    for (int32_t k = 0; k < n; k++) {
        int32_t i = x->rx_sset[k];
        st->fs_price[i] += forward ? delta : -delta;
        note_price(x, st->fs_price[i]);
    }
    return 0;
}

/* A hub's first arcs are its own (to the next layer: aggregator to racks
 * or machines, a job's unscheduled node to the sink), its many later ones
 * come from tasks. Look at the first RELAX_PEEK of hub h, just labelled,
 * for a balanced residual arc with room to (forward) a node with a
 * deficit, or from (backward) a node with excess that is not labelled
 * yet; label it from h and return it, or return -1. Saves growing the
 * tree to the full scan of h, which comes last. */
static int32_t peek(relax *x, int32_t h, bool forward, uint64_t *work)
{
    const fc_graph *g = x->rx_g;
    const fc_flow_state *st = x->rx_st;
    const fc_adj *adj = &g->g_adj[h];
    int32_t len = adj->ad_len < RELAX_PEEK ? adj->ad_len : RELAX_PEEK;
    int64_t ph = st->fs_price[h];
    for (int32_t m = 0; m < len; m++) {
        int32_t r = adj->ad_res[m];
        int32_t j = adj->ad_arc[m].aa_head;
        int64_t ex = st->fs_excess[j];
        (*work)++;
        if ((forward ? ex >= 0 : ex <= 0) || x->rx_label[j] == x->rx_epoch ||
            adj->ad_arc[m].aa_cost - ph + st->fs_price[j] != 0 ||
            st->fs_rescap[forward ? r : r ^ 1] == 0)
            continue;
        x->rx_label[j] = x->rx_epoch;
        x->rx_pred[j] = forward ? r : r ^ 1;
        return j;
    }
    return -1;
}

/* Move deficit from t to the node s with excess along the reverse tree
 * path (each node's rx_pred is the arc from it towards t). Returns the
 * work: twice the path's arcs. */
static uint64_t augment_back(relax *x, int32_t s, int32_t t)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    int64_t amount = st->fs_excess[s];
    if (-st->fs_excess[t] < amount)
        amount = -st->fs_excess[t];
    for (int32_t v = s; v != t; v = g->g_head[x->rx_pred[v]]) {
        int32_t r = x->rx_pred[v];
        if (st->fs_rescap[r] < amount)
            amount = st->fs_rescap[r];
    }
    uint64_t len = 0;
    for (int32_t v = s; v != t; v = g->g_head[x->rx_pred[v]], len++)
        fc_push(g, st, x->rx_pred[v], amount);
    return 2 * len;
}

/* One iteration from root. Forward (root has excess): grow a tree of the
 * nodes root reaches over balanced residual arcs until a node with a
 * deficit is reached (augment) or S's ascent direction is positive (its
 * excess exceeds the room on the balanced arcs leaving it: raise its
 * prices). Backward (root has a deficit), the mirror: grow a tree of the
 * nodes that reach root until a node with excess is found, or lower T's
 * prices when its deficit exceeds the room on the balanced arcs entering
 * it. A task that finishes frees a slot on a machine whose price the full
 * machine had raised: from the machine's side the repair is one or two
 * small trees, whereas from the excess's side (the sink) it would take
 * raising the prices of most of the network, many times. Each scanned arc
 * r goes i -> j; the tree's arc is r forward and its twin backward.
 * Returns 0 or FC_EINFEASIBLE. Always inlined: each of the two calls, with
 * forward a constant, becomes its own loop without the direction's tests
 * (one shared out-of-line copy ran quincy-1000-90 5-10% slower). */
__attribute__((always_inline)) static inline int
iterate(relax *x, int32_t root, bool forward, uint64_t *work)
{
    const fc_graph *g = x->rx_g;
    fc_flow_state *st = x->rx_st;
    int32_t out = forward ? 0 : 1; /* r ^ out: the arc the tree grows on */
    int64_t sign = forward ? 1 : -1;
    next_epoch(x);
    uint32_t ep = x->rx_epoch;
    x->rx_label[root] = ep;
    x->rx_pred[root] = -1;
    x->rx_queue[0] = root;
    int32_t qhead = 0, qlen = 1, hhead = 0, hlen = 0, n = 0;
    relax_wide imbalance = 0; /* S's total excess, or T's total deficit */
    relax_wide room = 0; /* room on balanced arcs leaving S or entering T */
    for (;;) {
        int32_t i;
        if (qhead < qlen) {
            i = x->rx_queue[qhead++];
        } else if (hhead < hlen) {
            i = x->rx_hubs[hhead++];
        } else {
            /* Closed under balanced arcs: the direction is ascent. */
            return price_change(x, n, forward, work);
        }
        x->rx_sset[n++] = i;
        x->rx_scans++;
        x->rx_scan[i] = ep;
        imbalance += sign * st->fs_excess[i];
        int64_t pi = st->fs_price[i];
        const fc_adj *adj = &g->g_adj[i];
        /* The node and all its arcs; an iteration that ends mid-scan
         * takes back the arcs it did not look at. */
        *work += RELAX_NODE_WORK + (uint64_t)adj->ad_len;
        for (int32_t m = 0; m < adj->ad_len; m++) {
            int32_t r = adj->ad_res[m];
            int32_t j = adj->ad_arc[m].aa_head;
            if (j == i)
                continue; /* a self-loop never leaves the tree */
            if (adj->ad_arc[m].aa_cost - pi + st->fs_price[j] != 0)
                continue;
            if (x->rx_scan[j] == ep) {
                /* The arc between them crossed the boundary at j; now it
                 * is inside. */
                room -= st->fs_rescap[r ^ out ^ 1];
                continue;
            }
            int64_t cap = st->fs_rescap[r ^ out];
            if (cap == 0)
                continue;
            room += cap;
            if (x->rx_label[j] == ep)
                continue;
            x->rx_label[j] = ep;
            x->rx_pred[j] = r ^ out;
            if (sign * st->fs_excess[j] < 0) {
                *work -= (uint64_t)(adj->ad_len - m - 1);
                *work +=
                    forward ? augment(x, root, j) : augment_back(x, j, root);
                return 0;
            }
            if (is_hub(x, j)) {
                x->rx_hubs[hlen++] = j;
                int32_t e = peek(x, j, forward, work);
                if (e >= 0) {
                    *work -= (uint64_t)(adj->ad_len - m - 1);
                    *work += forward ? augment(x, root, e)
                                     : augment_back(x, e, root);
                    return 0;
                }
            } else {
                x->rx_queue[qlen++] = j;
            }
        }
        if (imbalance > room)
            return price_change(x, n, forward, work);
    }
}

int fc_relax_solve(const fc_graph *g, fc_flow_state *st,
                   const fc_solve_options *opt, const fc_poll *poll,
                   fc_scratch *scratch, uint64_t *work)
{
    relax x;
    int rc = relax_init(&x, g, st, scratch);
    if (rc != 0)
        return rc;
    bool everything =
        reset_wild_prices(&x) || !opt->so_incremental || g->g_changes_lost;
    restore_cs(&x, everything);

    relax_wide total = 0;
    x.rx_floor = INT64_MAX;
    x.rx_top = INT64_MIN;
    for (int32_t v = 0; v < x.rx_n; v++) {
        if (g->g_ntype[v] == FC_NODE_FREE)
            continue;
        total += st->fs_excess[v];
        if (st->fs_excess[v] != 0)
            activate(&x, v);
        if (st->fs_price[v] < x.rx_floor)
            x.rx_floor = st->fs_price[v];
        if (st->fs_price[v] > x.rx_top)
            x.rx_top = st->fs_price[v];
    }
    x.rx_bound = 2 * (x.rx_top - x.rx_floor) + 4 * ((int64_t)x.rx_n + 1);
    if (total != 0)
        return FC_EINFEASIBLE;

    /* Passes: a sweep, then one iteration from every active node. */
    x.rx_opt = opt;
    x.rx_poll = poll;
    uint64_t checked = *work - RELAX_CANCEL_WORK; /* look before any work */
    bool sweep_due = true;
    uint64_t iterations = 0;
    for (compact_active(&x, work); rc == 0 && x.rx_nactive > 0;
         compact_active(&x, work)) {
        if (sweep_due)
            sweep(&x, work);
        x.rx_scans = 0;
        iterations = 0;
        int32_t end = x.rx_nactive;
        *work += (uint64_t)end; /* the pass's visits, skipped ones too */
        for (int32_t k = 0; rc == 0 && k < end; k++) {
            int32_t s = x.rx_active[k];
            /* Trees from a hub (the sink, an aggregator) are large: grow
             * them only when no other node has excess or deficit. */
            if (st->fs_excess[s] == 0 || (x.rx_small > 0 && is_hub(&x, s)))
                continue;
            if (*work - checked >= RELAX_CANCEL_WORK) {
                checked = *work;
                if (fc_must_stop(opt, poll)) {
                    rc = FC_ECANCELED;
                    break;
                }
            }
            rc = st->fs_excess[s] > 0 ? iterate(&x, s, true, work)
                                      : iterate(&x, s, false, work);
            iterations++;
            if (x.rx_escaped)
                return fc_ssp_solve(g, st, opt, poll, work);
        }
        sweep_due = x.rx_scans > RELAX_SWEEP_TREE * iterations;
    }
    return rc;
}
