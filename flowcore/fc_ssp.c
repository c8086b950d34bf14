/*
 * fc_ssp.c - successive shortest path (primal-dual), flowcore's reference
 * solver.
 *
 * The solver keeps reduced-cost optimality (every residual arc with room
 * has a non-negative reduced cost) and moves excess to deficits along
 * shortest paths. It starts from whatever flow and prices the state holds:
 * residual arcs whose reduced cost is negative under the current prices
 * are saturated first (from scratch, with zero prices, that saturates the
 * negative-cost arcs), which may create new excesses and deficits. Then,
 * round after round, a Dijkstra search from every node with excess stops at
 * the first deficit node it settles, the prices of the settled nodes move
 * so that shortest paths have reduced cost zero, and flow is pushed along
 * zero-reduced-cost paths (the one Dijkstra found, then as many more as a
 * depth-first search finds) until no more exist at those prices.
 *
 * Prices follow the graph's convention: the reduced cost of r is
 * cost[r] - price[tail] + price[head].
 */
#include "fc_graph_impl.h"

#include <string.h>

/* Prices beyond this are treated as stale and reset: keeps the distance
 * arithmetic (path lengths are at most FC_MAX_NODES * 2 * FC_MAX_COST =
 * 2^59) far from overflowing 64 bits. */
#define SSP_PRICE_LIMIT ((int64_t)1 << 60)

/* Per-solve scratch, sized to the graph's node bound. */
typedef struct ssp {
    const fc_graph *sp_g;
    fc_flow_state *sp_st;
    int32_t sp_n;
    int64_t *sp_dist;  /* tentative distance, valid if seen == epoch */
    int32_t *sp_pred;  /* residual arc into the node on its shortest path */
    uint32_t *sp_seen; /* epoch at which the node got a distance */
    uint32_t *sp_done; /* epoch at which the node was settled */
    uint32_t sp_epoch; /* current Dijkstra round */
    int32_t *sp_heap;  /* binary heap of node ids keyed by dist */
    int32_t *sp_hpos;  /* position of a node in the heap */
    int32_t sp_hlen;
    int32_t *sp_settled; /* nodes settled this round, in order */
    int32_t sp_nsettled;
    int32_t *sp_active; /* nodes that may have positive excess */
    int32_t sp_nactive;
    /* depth-first augmentation */
    int32_t *sp_cur;    /* current position in the node's adjacency */
    uint32_t *sp_visit; /* epoch at which cur was reset this round */
    uint32_t *sp_dead;  /* epoch at which the node was found to lead
                           nowhere */
    uint8_t *sp_onpath;
    int32_t *sp_path; /* residual arcs of the path being built */
} ssp;

static int64_t reduced_cost(const ssp *s, int32_t r)
{
    const fc_graph *g = s->sp_g;
    return g->g_cost[r] - s->sp_st->fs_price[fc_tail(g, r)] +
           s->sp_st->fs_price[g->g_head[r]];
}

static void ssp_free(ssp *s)
{
    free(s->sp_dist);
    free(s->sp_pred);
    free(s->sp_seen);
    free(s->sp_done);
    free(s->sp_heap);
    free(s->sp_hpos);
    free(s->sp_settled);
    free(s->sp_active);
    free(s->sp_cur);
    free(s->sp_visit);
    free(s->sp_dead);
    free(s->sp_onpath);
    free(s->sp_path);
}

static int ssp_init(ssp *s, const fc_graph *g, fc_flow_state *st)
{
    memset(s, 0, sizeof *s);
    s->sp_g = g;
    s->sp_st = st;
    s->sp_n = g->g_nbound;
    size_t n = (size_t)g->g_nbound + 1;
    s->sp_dist = malloc(n * sizeof(int64_t));
    s->sp_pred = malloc(n * sizeof(int32_t));
    s->sp_seen = calloc(n, sizeof(uint32_t));
    s->sp_done = calloc(n, sizeof(uint32_t));
    s->sp_heap = malloc(n * sizeof(int32_t));
    s->sp_hpos = malloc(n * sizeof(int32_t));
    s->sp_settled = malloc(n * sizeof(int32_t));
    s->sp_active = malloc(n * sizeof(int32_t));
    s->sp_cur = malloc(n * sizeof(int32_t));
    s->sp_visit = calloc(n, sizeof(uint32_t));
    s->sp_dead = calloc(n, sizeof(uint32_t));
    s->sp_onpath = calloc(n, 1);
    s->sp_path = malloc(n * sizeof(int32_t));
    if (!s->sp_dist || !s->sp_pred || !s->sp_seen || !s->sp_done ||
        !s->sp_heap || !s->sp_hpos || !s->sp_settled || !s->sp_active ||
        !s->sp_cur || !s->sp_visit || !s->sp_dead || !s->sp_onpath ||
        !s->sp_path) {
        ssp_free(s);
        return FC_ENOMEM;
    }
    return 0;
}

/* --- binary heap on dist -------------------------------------------------*/

static void heap_up(ssp *s, int32_t i)
{
    int32_t v = s->sp_heap[i];
    int64_t d = s->sp_dist[v];
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        int32_t w = s->sp_heap[p];
        if (s->sp_dist[w] <= d)
            break;
        s->sp_heap[i] = w;
        s->sp_hpos[w] = i;
        i = p;
    }
    s->sp_heap[i] = v;
    s->sp_hpos[v] = i;
}

static void heap_down(ssp *s, int32_t i)
{
    int32_t v = s->sp_heap[i];
    int64_t d = s->sp_dist[v];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= s->sp_hlen)
            break;
        if (c + 1 < s->sp_hlen &&
            s->sp_dist[s->sp_heap[c + 1]] < s->sp_dist[s->sp_heap[c]])
            c++;
        int32_t w = s->sp_heap[c];
        if (s->sp_dist[w] >= d)
            break;
        s->sp_heap[i] = w;
        s->sp_hpos[w] = i;
        i = c;
    }
    s->sp_heap[i] = v;
    s->sp_hpos[v] = i;
}

static int32_t heap_pop(ssp *s)
{
    int32_t v = s->sp_heap[0];
    s->sp_hlen--;
    if (s->sp_hlen > 0) {
        s->sp_heap[0] = s->sp_heap[s->sp_hlen];
        heap_down(s, 0);
    }
    return v;
}

/* --- the algorithm -------------------------------------------------------*/

/* Make every residual arc with room have a non-negative reduced cost by
 * saturating the ones that do not. */
static void saturate_negative(ssp *s)
{
    const fc_graph *g = s->sp_g;
    fc_flow_state *st = s->sp_st;
    for (int32_t r = 0; r < 2 * g->g_abound; r++) {
        if (g->g_head[r] < 0 || st->fs_rescap[r] <= 0)
            continue;
        if (reduced_cost(s, r) < 0)
            fc_push(g, st, r, st->fs_rescap[r]);
    }
}

static void next_epoch(ssp *s)
{
    if (++s->sp_epoch == 0) {
        /* The stamps wrapped: clear them so no old round looks current. */
        size_t n = (size_t)s->sp_n + 1;
        memset(s->sp_seen, 0, n * sizeof(uint32_t));
        memset(s->sp_done, 0, n * sizeof(uint32_t));
        memset(s->sp_visit, 0, n * sizeof(uint32_t));
        memset(s->sp_dead, 0, n * sizeof(uint32_t));
        s->sp_epoch = 1;
    }
}

/* Drop nodes without excess from the active list. Returns the number of
 * nodes left with positive excess. */
static int32_t compact_active(ssp *s)
{
    int32_t k = 0;
    for (int32_t i = 0; i < s->sp_nactive; i++) {
        int32_t v = s->sp_active[i];
        if (s->sp_st->fs_excess[v] > 0)
            s->sp_active[k++] = v;
    }
    s->sp_nactive = k;
    return k;
}

/* Dijkstra from every active node; stops at the first settled node with a
 * deficit and returns it, or -1 if no deficit can be reached. On success
 * the settled nodes' prices have moved so that every residual arc with room
 * keeps a non-negative reduced cost and the shortest path to the returned
 * node has reduced cost zero. */
static int32_t dijkstra(ssp *s, uint64_t *work)
{
    const fc_graph *g = s->sp_g;
    fc_flow_state *st = s->sp_st;
    next_epoch(s);
    uint32_t ep = s->sp_epoch;
    s->sp_hlen = 0;
    s->sp_nsettled = 0;
    for (int32_t i = 0; i < s->sp_nactive; i++) {
        int32_t v = s->sp_active[i];
        s->sp_dist[v] = 0;
        s->sp_pred[v] = -1;
        s->sp_seen[v] = ep;
        s->sp_heap[s->sp_hlen] = v;
        s->sp_hpos[v] = s->sp_hlen++;
    }
    int32_t found = -1;
    while (s->sp_hlen > 0) {
        int32_t u = heap_pop(s);
        s->sp_done[u] = ep;
        s->sp_settled[s->sp_nsettled++] = u;
        if (st->fs_excess[u] < 0) {
            found = u;
            break;
        }
        int64_t du = s->sp_dist[u];
        int64_t pu = st->fs_price[u];
        const fc_adj *adj = &g->g_adj[u];
        for (int32_t i = 0; i < adj->ad_len; i++) {
            int32_t r = adj->ad_res[i];
            if (st->fs_rescap[r] <= 0)
                continue;
            int32_t v = g->g_head[r];
            if (s->sp_done[v] == ep)
                continue;
            int64_t d = du + g->g_cost[r] - pu + st->fs_price[v];
            if (s->sp_seen[v] != ep) {
                s->sp_seen[v] = ep;
                s->sp_dist[v] = d;
                s->sp_pred[v] = r;
                s->sp_heap[s->sp_hlen] = v;
                s->sp_hpos[v] = s->sp_hlen++;
                heap_up(s, s->sp_hpos[v]);
            } else if (d < s->sp_dist[v]) {
                s->sp_dist[v] = d;
                s->sp_pred[v] = r;
                heap_up(s, s->sp_hpos[v]);
            }
        }
        *work += (uint64_t)adj->ad_len + 1; /* the arcs scanned, the pop */
    }
    if (found < 0)
        return -1;
    int64_t dmax = s->sp_dist[found];
    for (int32_t i = 0; i < s->sp_nsettled; i++) {
        int32_t v = s->sp_settled[i];
        st->fs_price[v] += dmax - s->sp_dist[v];
    }
    return found;
}

/* Push along the predecessor path Dijkstra left to t. */
static void augment_tree_path(ssp *s, int32_t t)
{
    const fc_graph *g = s->sp_g;
    fc_flow_state *st = s->sp_st;
    int64_t amount = -st->fs_excess[t];
    int32_t v = t;
    while (s->sp_pred[v] >= 0) {
        int32_t r = s->sp_pred[v];
        if (st->fs_rescap[r] < amount)
            amount = st->fs_rescap[r];
        v = fc_tail(g, r);
    }
    if (st->fs_excess[v] < amount)
        amount = st->fs_excess[v];
    for (v = t; s->sp_pred[v] >= 0; v = fc_tail(g, s->sp_pred[v]))
        fc_push(g, st, s->sp_pred[v], amount);
}

/* The next residual arc out of u with room and reduced cost zero, whose
 * head is neither on the current path nor known to lead nowhere; -1 if
 * none is left. */
static int32_t next_admissible(ssp *s, int32_t u)
{
    const fc_graph *g = s->sp_g;
    const fc_adj *adj = &g->g_adj[u];
    uint32_t ep = s->sp_epoch;
    if (s->sp_visit[u] != ep) {
        s->sp_visit[u] = ep;
        s->sp_cur[u] = 0;
    }
    for (; s->sp_cur[u] < adj->ad_len; s->sp_cur[u]++) {
        int32_t r = adj->ad_res[s->sp_cur[u]];
        int32_t v = g->g_head[r];
        if (s->sp_st->fs_rescap[r] > 0 && !s->sp_onpath[v] &&
            s->sp_dead[v] != ep && reduced_cost(s, r) == 0)
            return r;
    }
    return -1;
}

/* Move as much of src's excess as depth-first search finds room for along
 * zero-reduced-cost paths to deficit nodes. */
static void augment_from(ssp *s, int32_t src, uint64_t *work)
{
    const fc_graph *g = s->sp_g;
    fc_flow_state *st = s->sp_st;
    uint32_t ep = s->sp_epoch;
    int32_t len = 0;
    int32_t u = src;
    s->sp_onpath[src] = 1;
    while (st->fs_excess[src] > 0) {
        if (u != src && st->fs_excess[u] < 0) {
            int64_t amount = st->fs_excess[src];
            if (-st->fs_excess[u] < amount)
                amount = -st->fs_excess[u];
            for (int32_t i = 0; i < len; i++)
                if (st->fs_rescap[s->sp_path[i]] < amount)
                    amount = st->fs_rescap[s->sp_path[i]];
            for (int32_t i = 0; i < len; i++)
                fc_push(g, st, s->sp_path[i], amount);
            (*work)++;
            /* Restart from the source; current arcs keep it cheap. */
            for (int32_t i = 0; i < len; i++)
                s->sp_onpath[g->g_head[s->sp_path[i]]] = 0;
            len = 0;
            u = src;
            continue;
        }
        int32_t r = next_admissible(s, u);
        if (r >= 0) {
            s->sp_path[len++] = r;
            u = g->g_head[r];
            s->sp_onpath[u] = 1;
            continue;
        }
        s->sp_dead[u] = ep;
        if (u == src)
            break;
        s->sp_onpath[u] = 0;
        u = fc_tail(g, s->sp_path[--len]);
        s->sp_cur[u]++;
    }
    for (int32_t i = 0; i < len; i++)
        s->sp_onpath[g->g_head[s->sp_path[i]]] = 0;
    s->sp_onpath[src] = 0;
}

static void check_prices(const fc_graph *g, fc_flow_state *st)
{
    for (int32_t v = 0; v < g->g_nbound; v++) {
        if (st->fs_price[v] > SSP_PRICE_LIMIT ||
            st->fs_price[v] < -SSP_PRICE_LIMIT) {
            memset(st->fs_price, 0, (size_t)g->g_nbound * sizeof(int64_t));
            return;
        }
    }
}

int fc_ssp_solve(const fc_graph *g, fc_flow_state *st,
                 const fc_solve_options *opt, const fc_poll *poll,
                 uint64_t *work)
{
    ssp s;
    int rc = ssp_init(&s, g, st);
    if (rc != 0)
        return rc;
    check_prices(g, st);
    saturate_negative(&s);
    for (int32_t v = 0; v < g->g_nbound; v++)
        if (st->fs_excess[v] > 0)
            s.sp_active[s.sp_nactive++] = v;

    while (compact_active(&s) > 0) {
        if (fc_must_stop(opt, poll)) {
            rc = FC_ECANCELED;
            break;
        }
        int32_t t = dijkstra(&s, work);
        if (t < 0) {
            rc = FC_EINFEASIBLE;
            break;
        }
        augment_tree_path(&s, t);
        (*work)++;
        for (int32_t i = 0; i < s.sp_nactive; i++)
            augment_from(&s, s.sp_active[i], work);
    }
    if (rc == 0) {
        /* No excess is left; a deficit left means supplies do not
         * balance. */
        for (int32_t v = 0; v < g->g_nbound; v++)
            if (st->fs_excess[v] != 0)
                rc = FC_EINFEASIBLE;
    }
    ssp_free(&s);
    return rc;
}
