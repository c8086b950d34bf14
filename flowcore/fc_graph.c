/*
 * fc_graph.c - the flow network: nodes, arcs, the current flow, and the
 * record of changes between solves.
 */
#include "fc_graph_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Grow *array (of elem bytes each) from old to new elements, zeroing the
 * new part. Returns 0 or FC_ENOMEM (the array is unchanged then). */
static int grow(void *array, size_t elem, size_t old, size_t new)
{
    void **p = array;
    void *q = realloc(*p, new *elem);
    if (q == NULL)
        return FC_ENOMEM;
    memset((char *)q + old * elem, 0, (new - old) * elem);
    *p = q;
    return 0;
}

static size_t next_capacity(size_t have, size_t need)
{
    size_t cap = have < 16 ? 16 : have;
    while (cap < need)
        cap += cap / 2;
    return cap;
}

static int reserve_nodes(fc_graph *g, int32_t need)
{
    if (need <= g->g_ncap)
        return 0;
    size_t old = (size_t)g->g_ncap;
    size_t cap = next_capacity(old, (size_t)need);
    if (cap > FC_MAX_NODES)
        cap = FC_MAX_NODES;
    if (grow(&g->g_supply, sizeof(int64_t), old, cap) ||
        grow(&g->g_ntype, 1, old, cap) ||
        grow(&g->g_adj, sizeof(fc_adj), old, cap) ||
        grow(&g->g_nfree, sizeof(int32_t), old, cap) ||
        grow(&g->g_st.fs_excess, sizeof(int64_t), old, cap) ||
        grow(&g->g_st.fs_price, sizeof(int64_t), old, cap) ||
        grow(&g->g_spare.fs_excess, sizeof(int64_t), old, cap) ||
        grow(&g->g_spare.fs_price, sizeof(int64_t), old, cap))
        return FC_ENOMEM;
    memset(g->g_ntype + old, FC_NODE_FREE, cap - old);
    g->g_ncap = (int32_t)cap;
    return 0;
}

static int reserve_arcs(fc_graph *g, int32_t need)
{
    if (need <= g->g_acap)
        return 0;
    size_t old = (size_t)g->g_acap;
    size_t cap = next_capacity(old, (size_t)need);
    if (cap > FC_MAX_ARCS)
        cap = FC_MAX_ARCS;
    if (grow(&g->g_head, sizeof(int32_t), 2 * old, 2 * cap) ||
        grow(&g->g_cost, sizeof(int64_t), 2 * old, 2 * cap) ||
        grow(&g->g_pos, sizeof(int32_t), 2 * old, 2 * cap) ||
        grow(&g->g_afree, sizeof(int32_t), old, cap) ||
        grow(&g->g_st.fs_rescap, sizeof(int64_t), 2 * old, 2 * cap) ||
        grow(&g->g_spare.fs_rescap, sizeof(int64_t), 2 * old, 2 * cap))
        return FC_ENOMEM;
    for (size_t r = 2 * old; r < 2 * cap; r++)
        g->g_head[r] = -1;
    g->g_acap = (int32_t)cap;
    return 0;
}

static void record(fc_graph *g, fc_change_kind kind, int32_t id)
{
    if (g->g_changes_lost)
        return;
    /* Past this many changes an incremental solver gains nothing from the
     * list: it might as well look at everything. */
    size_t limit = (size_t)g->g_abound + (size_t)g->g_nbound + 1024;
    if (g->g_nchanges >= limit) {
        g->g_changes_lost = true;
        return;
    }
    if (g->g_nchanges == g->g_changes_cap) {
        size_t cap = next_capacity(g->g_changes_cap, g->g_nchanges + 1);
        fc_change *c = realloc(g->g_changes, cap * sizeof *c);
        if (c == NULL) {
            g->g_changes_lost = true;
            return;
        }
        g->g_changes = c;
        g->g_changes_cap = cap;
    }
    g->g_changes[g->g_nchanges++] = (fc_change){(uint8_t)kind, id};
}

int fc_graph_new(fc_graph **out)
{
    fc_graph *g = calloc(1, sizeof *g);
    if (g == NULL)
        return FC_ENOMEM;
    *out = g;
    return 0;
}

/* Blocks from this size up are aligned to and advised for huge pages. */
#define HUGE_PAGE ((size_t)2 << 20)

/* fc_scratch_free releases s's memory. */
static void fc_scratch_free(fc_scratch *s);

/* fc_flow_state_free frees the arrays of st. */
static void fc_flow_state_free(fc_flow_state *st);

void *fc_scratch_get(fc_scratch *s, size_t bytes)
{
    if (bytes <= s->sc_size)
        return s->sc_mem;
    fc_scratch_free(s);
    /* Room to grow a little without coming back. */
    size_t size = bytes + bytes / 16 + 64;
    void *p = NULL;
    if (size >= HUGE_PAGE) {
        size = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (posix_memalign(&p, HUGE_PAGE, size) != 0)
            p = NULL;
#ifdef MADV_HUGEPAGE
        else
            (void)madvise(p, size, MADV_HUGEPAGE); /* only advice */
#endif
    } else {
        p = malloc(size);
    }
    if (p == NULL)
        return NULL;
    s->sc_mem = p;
    s->sc_size = size;
    return p;
}

static void fc_scratch_free(fc_scratch *s)
{
    free(s->sc_mem);
    s->sc_mem = NULL;
    s->sc_size = 0;
}

void fc_graph_free(fc_graph *g)
{
    if (g == NULL)
        return;
    for (int i = 0; i < FC_SCRATCH_N; i++)
        fc_scratch_free(&g->g_scratch[i]);
    for (int32_t v = 0; v < g->g_ncap; v++) {
        free(g->g_adj[v].ad_res);
        free(g->g_adj[v].ad_arc);
    }
    free(g->g_supply);
    free(g->g_ntype);
    free(g->g_adj);
    free(g->g_nfree);
    free(g->g_head);
    free(g->g_cost);
    free(g->g_pos);
    free(g->g_afree);
    fc_flow_state_free(&g->g_st);
    fc_flow_state_free(&g->g_spare);
    free(g->g_changes);
    free(g);
}

static void *dup_array(const void *src, size_t bytes, int *failed)
{
    if (bytes == 0)
        return NULL;
    void *p = malloc(bytes);
    if (p == NULL)
        *failed = 1;
    else
        memcpy(p, src, bytes);
    return p;
}

/* A copy of flow state st of a graph with nc node and ac arc slots; sets
 * *failed when out of memory (the arrays it got are in the copy). */
static fc_flow_state dup_state(const fc_flow_state *st, size_t nc, size_t ac,
                               int *failed)
{
    return (fc_flow_state){
        .fs_rescap = dup_array(st->fs_rescap, 2 * ac * sizeof(int64_t), failed),
        .fs_excess = dup_array(st->fs_excess, nc * sizeof(int64_t), failed),
        .fs_price = dup_array(st->fs_price, nc * sizeof(int64_t), failed),
    };
}

int fc_graph_clone(const fc_graph *g, fc_graph **out)
{
    fc_graph *c = calloc(1, sizeof *c);
    if (c == NULL)
        return FC_ENOMEM;
    int failed = 0;
    size_t nc = (size_t)g->g_ncap, ac = (size_t)g->g_acap;
    *c = *g;
    memset(c->g_scratch, 0, sizeof c->g_scratch);
    c->g_supply = dup_array(g->g_supply, nc * sizeof(int64_t), &failed);
    c->g_ntype = dup_array(g->g_ntype, nc, &failed);
    c->g_adj = calloc(nc ? nc : 1, sizeof(fc_adj));
    c->g_nfree = dup_array(g->g_nfree, nc * sizeof(int32_t), &failed);
    c->g_head = dup_array(g->g_head, 2 * ac * sizeof(int32_t), &failed);
    c->g_cost = dup_array(g->g_cost, 2 * ac * sizeof(int64_t), &failed);
    c->g_pos = dup_array(g->g_pos, 2 * ac * sizeof(int32_t), &failed);
    c->g_afree = dup_array(g->g_afree, ac * sizeof(int32_t), &failed);
    c->g_st = dup_state(&g->g_st, nc, ac, &failed);
    /* the spare's contents do not matter; copying maps its pages now */
    c->g_spare = dup_state(&g->g_st, nc, ac, &failed);
    c->g_changes =
        dup_array(g->g_changes, g->g_nchanges * sizeof(fc_change), &failed);
    c->g_changes_cap = g->g_nchanges;
    if (c->g_adj == NULL)
        failed = 1;
    for (size_t v = 0; !failed && v < nc; v++) {
        const fc_adj *a = &g->g_adj[v];
        c->g_adj[v].ad_res =
            dup_array(a->ad_res, (size_t)a->ad_cap * sizeof(int32_t), &failed);
        c->g_adj[v].ad_arc = dup_array(
            a->ad_arc, (size_t)a->ad_cap * sizeof(fc_adj_arc), &failed);
        c->g_adj[v].ad_len = c->g_adj[v].ad_res ? a->ad_len : 0;
        c->g_adj[v].ad_cap = c->g_adj[v].ad_res ? a->ad_cap : 0;
    }
    if (failed) {
        if (c->g_adj == NULL)
            c->g_ncap = 0;
        fc_graph_free(c);
        return FC_ENOMEM;
    }
    *out = c;
    return 0;
}

int32_t fc_graph_node_count(const fc_graph *g)
{
    return g->g_nlive;
}

int32_t fc_graph_node_bound(const fc_graph *g)
{
    return g->g_nbound;
}

int32_t fc_graph_arc_count(const fc_graph *g)
{
    return g->g_alive;
}

int32_t fc_graph_arc_bound(const fc_graph *g)
{
    return g->g_abound;
}

bool fc_node_exists(const fc_graph *g, fc_node v)
{
    return v >= 0 && v < g->g_nbound && g->g_ntype[v] != FC_NODE_FREE;
}

int fc_node_add(fc_graph *g, int64_t supply, fc_node_type type, fc_node *out)
{
    if (supply < -FC_MAX_SUPPLY || supply > FC_MAX_SUPPLY ||
        (unsigned)type > FC_NODE_SINK)
        return FC_EINVAL;
    fc_node v;
    if (g->g_nnfree > 0) {
        v = g->g_nfree[--g->g_nnfree];
    } else {
        if (g->g_nbound >= FC_MAX_NODES)
            return FC_ELIMIT;
        if (reserve_nodes(g, g->g_nbound + 1) != 0)
            return FC_ENOMEM;
        v = g->g_nbound++;
    }
    g->g_supply[v] = supply;
    g->g_ntype[v] = (uint8_t)type;
    g->g_adj[v].ad_len = 0;
    g->g_st.fs_excess[v] = supply;
    g->g_st.fs_price[v] = 0;
    g->g_nlive++;
    record(g, FC_CHANGE_NODE_ADD, v);
    *out = v;
    return 0;
}

/* Append residual arc r (to head, at cost) to v's adjacency. */
static int adj_append(fc_graph *g, fc_node v, int32_t r, fc_node head,
                      int64_t cost)
{
    fc_adj *a = &g->g_adj[v];
    if (a->ad_len == a->ad_cap) {
        int32_t cap = a->ad_cap < 4 ? 4 : a->ad_cap * 2;
        int32_t *p = realloc(a->ad_res, (size_t)cap * sizeof *p);
        if (p == NULL)
            return FC_ENOMEM;
        a->ad_res = p; /* larger than ad_cap says until both have grown */
        fc_adj_arc *q = realloc(a->ad_arc, (size_t)cap * sizeof *q);
        if (q == NULL)
            return FC_ENOMEM;
        a->ad_arc = q;
        a->ad_cap = cap;
    }
    g->g_pos[r] = a->ad_len;
    a->ad_arc[a->ad_len] = (fc_adj_arc){cost, head};
    a->ad_res[a->ad_len++] = r;
    return 0;
}

static void adj_delete(fc_graph *g, fc_node v, int32_t r)
{
    fc_adj *a = &g->g_adj[v];
    int32_t i = g->g_pos[r];
    int32_t last = a->ad_res[--a->ad_len];
    a->ad_res[i] = last;
    a->ad_arc[i] = a->ad_arc[a->ad_len];
    g->g_pos[last] = i;
}

int fc_arc_add(fc_graph *g, fc_node src, fc_node dst, int64_t capacity,
               int64_t cost, fc_arc *out)
{
    if (!fc_node_exists(g, src) || !fc_node_exists(g, dst) || capacity < 0 ||
        capacity > FC_MAX_CAPACITY || cost < -FC_MAX_COST || cost > FC_MAX_COST)
        return FC_EINVAL;
    if (capacity > FC_MAX_CAPACITY_SUM - g->g_capsum)
        return FC_ELIMIT;
    fc_arc a;
    bool fresh = g->g_nafree == 0;
    if (!fresh) {
        a = g->g_afree[g->g_nafree - 1];
    } else {
        if (g->g_abound >= FC_MAX_ARCS)
            return FC_ELIMIT;
        if (reserve_arcs(g, g->g_abound + 1) != 0)
            return FC_ENOMEM;
        a = g->g_abound;
    }
    if (adj_append(g, src, 2 * a, dst, cost) != 0)
        return FC_ENOMEM;
    if (adj_append(g, dst, 2 * a + 1, src, -cost) != 0) {
        adj_delete(g, src, 2 * a);
        return FC_ENOMEM;
    }
    if (fresh)
        g->g_abound++;
    else
        g->g_nafree--;
    g->g_head[2 * a] = dst;
    g->g_head[2 * a + 1] = src;
    g->g_cost[2 * a] = cost;
    g->g_cost[2 * a + 1] = -cost;
    g->g_st.fs_rescap[2 * a] = capacity;
    g->g_st.fs_rescap[2 * a + 1] = 0;
    g->g_capsum += capacity;
    g->g_alive++;
    record(g, FC_CHANGE_ARC_ADD, a);
    *out = a;
    return 0;
}

bool fc_arc_exists(const fc_graph *g, fc_arc a)
{
    return a >= 0 && a < g->g_abound && g->g_head[2 * a] >= 0;
}

/* Take up to `amount` units of flow off arc a, leaving the imbalance at its
 * ends. */
static void withdraw(fc_graph *g, fc_arc a, int64_t amount)
{
    fc_push(g, &g->g_st, 2 * a + 1, amount);
}

int fc_arc_remove(fc_graph *g, fc_arc a)
{
    if (!fc_arc_exists(g, a))
        return FC_EINVAL;
    withdraw(g, a, g->g_st.fs_rescap[2 * a + 1]);
    g->g_capsum -= g->g_st.fs_rescap[2 * a];
    adj_delete(g, g->g_head[2 * a + 1], 2 * a);
    adj_delete(g, g->g_head[2 * a], 2 * a + 1);
    g->g_head[2 * a] = g->g_head[2 * a + 1] = -1;
    g->g_st.fs_rescap[2 * a] = g->g_st.fs_rescap[2 * a + 1] = 0;
    g->g_afree[g->g_nafree++] = a;
    g->g_alive--;
    record(g, FC_CHANGE_ARC_REMOVE, a);
    return 0;
}

int fc_node_remove(fc_graph *g, fc_node v)
{
    if (!fc_node_exists(g, v))
        return FC_EINVAL;
    fc_adj *adj = &g->g_adj[v];
    while (adj->ad_len > 0)
        fc_arc_remove(g, adj->ad_res[adj->ad_len - 1] >> 1);
    g->g_supply[v] = 0;
    g->g_st.fs_excess[v] = 0;
    g->g_st.fs_price[v] = 0;
    g->g_ntype[v] = FC_NODE_FREE;
    g->g_nfree[g->g_nnfree++] = v;
    g->g_nlive--;
    record(g, FC_CHANGE_NODE_REMOVE, v);
    return 0;
}

/* Find an arc leaving v that carries flow, or -1. */
static int32_t flow_out(const fc_graph *g, fc_node v)
{
    const fc_adj *adj = &g->g_adj[v];
    for (int32_t i = 0; i < adj->ad_len; i++) {
        int32_t r = adj->ad_res[i];
        if ((r & 1) == 0 && g->g_st.fs_rescap[r + 1] > 0)
            return r;
    }
    return -1;
}

/* Walk one path of flow from residual arc r (leaving the node being
 * removed) to a demand node, and take `amount` (at most the path's smallest
 * flow) off it. Returns the amount taken, 0 if no such path was found
 * within the graph's size (then nothing changed). */
static int64_t drain_path(fc_graph *g, int32_t first, int64_t amount,
                          int32_t *path)
{
    int32_t len = 0;
    int32_t r = first;
    for (;;) {
        if (len >= g->g_nbound)
            return 0; /* a flow cycle: leave it to the solver */
        int64_t f = g->g_st.fs_rescap[r + 1];
        if (f < amount)
            amount = f;
        path[len++] = r;
        fc_node w = g->g_head[r];
        if (g->g_supply[w] < 0)
            break;
        r = flow_out(g, w);
        if (r < 0)
            return 0;
    }
    for (int32_t i = 0; i < len; i++) {
        int32_t a = path[i] >> 1;
        g->g_st.fs_rescap[2 * a] += amount;
        g->g_st.fs_rescap[2 * a + 1] -= amount;
        record(g, FC_CHANGE_CAPACITY, a); /* its flow moved: recheck it */
    }
    /* Every node inside the path lost as much inflow as outflow. The end
     * lost inflow, and its demand falls by as much, so it stays balanced;
     * the start loses the outflow with the node itself. */
    fc_node end = g->g_head[path[len - 1]];
    g->g_supply[end] += amount;
    record(g, FC_CHANGE_SUPPLY, end);
    g->g_st.fs_excess[fc_tail(g, path[0])] += amount;
    return amount;
}

int fc_node_remove_drain(fc_graph *g, fc_node v)
{
    if (!fc_node_exists(g, v))
        return FC_EINVAL;
    int32_t *path = malloc((size_t)g->g_nbound * sizeof *path);
    if (path == NULL)
        return FC_ENOMEM;
    int32_t r;
    while ((r = flow_out(g, v)) >= 0) {
        if (drain_path(g, r, g->g_st.fs_rescap[r + 1], path) == 0)
            break;
    }
    free(path);
    return fc_node_remove(g, v);
}

int fc_node_set_supply(fc_graph *g, fc_node v, int64_t supply)
{
    if (!fc_node_exists(g, v) || supply < -FC_MAX_SUPPLY ||
        supply > FC_MAX_SUPPLY)
        return FC_EINVAL;
    g->g_st.fs_excess[v] += supply - g->g_supply[v];
    g->g_supply[v] = supply;
    record(g, FC_CHANGE_SUPPLY, v);
    return 0;
}

int64_t fc_node_supply(const fc_graph *g, fc_node v)
{
    return g->g_supply[v];
}

fc_node_type fc_node_get_type(const fc_graph *g, fc_node v)
{
    return (fc_node_type)g->g_ntype[v];
}

int64_t fc_node_price(const fc_graph *g, fc_node v)
{
    return g->g_st.fs_price[v];
}

int32_t fc_node_degree(const fc_graph *g, fc_node v)
{
    return g->g_adj[v].ad_len;
}

fc_arc fc_node_arc(const fc_graph *g, fc_node v, int32_t i, bool *outgoing)
{
    int32_t r = g->g_adj[v].ad_res[i];
    *outgoing = (r & 1) == 0;
    return r >> 1;
}

int fc_arc_set_cost(fc_graph *g, fc_arc a, int64_t cost)
{
    if (!fc_arc_exists(g, a) || cost < -FC_MAX_COST || cost > FC_MAX_COST)
        return FC_EINVAL;
    g->g_cost[2 * a] = cost;
    g->g_cost[2 * a + 1] = -cost;
    g->g_adj[g->g_head[2 * a + 1]].ad_arc[g->g_pos[2 * a]].aa_cost = cost;
    g->g_adj[g->g_head[2 * a]].ad_arc[g->g_pos[2 * a + 1]].aa_cost = -cost;
    record(g, FC_CHANGE_COST, a);
    return 0;
}

int fc_arc_set_capacity(fc_graph *g, fc_arc a, int64_t capacity)
{
    if (!fc_arc_exists(g, a) || capacity < 0 || capacity > FC_MAX_CAPACITY)
        return FC_EINVAL;
    int64_t old = fc_arc_capacity(g, a);
    if (capacity - old > FC_MAX_CAPACITY_SUM - g->g_capsum)
        return FC_ELIMIT;
    g->g_capsum += capacity - old;
    int64_t flow = g->g_st.fs_rescap[2 * a + 1];
    if (flow > capacity) {
        withdraw(g, a, flow - capacity);
        flow = capacity;
    }
    g->g_st.fs_rescap[2 * a] = capacity - flow;
    record(g, FC_CHANGE_CAPACITY, a);
    return 0;
}

fc_arc fc_arc_find(const fc_graph *g, fc_node src, fc_node dst)
{
    if (!fc_node_exists(g, src))
        return FC_NONE;
    fc_arc found = FC_NONE;
    const fc_adj *adj = &g->g_adj[src];
    for (int32_t i = 0; i < adj->ad_len; i++) {
        int32_t r = adj->ad_res[i];
        if ((r & 1) == 0 && g->g_head[r] == dst &&
            (found == FC_NONE || (r >> 1) > found))
            found = r >> 1;
    }
    return found;
}

fc_node fc_arc_src(const fc_graph *g, fc_arc a)
{
    return g->g_head[2 * a + 1];
}

fc_node fc_arc_dst(const fc_graph *g, fc_arc a)
{
    return g->g_head[2 * a];
}

int64_t fc_arc_capacity(const fc_graph *g, fc_arc a)
{
    return g->g_st.fs_rescap[2 * a] + g->g_st.fs_rescap[2 * a + 1];
}

int64_t fc_arc_cost(const fc_graph *g, fc_arc a)
{
    return g->g_cost[2 * a];
}

int64_t fc_arc_flow(const fc_graph *g, fc_arc a)
{
    return g->g_st.fs_rescap[2 * a + 1];
}

fc_int128 fc_graph_flow_cost(const fc_graph *g)
{
    /* Each product reaches 2^72, the sum 2^92 (see flowcore.h's limits). */
    fc_int128 total = 0;
    for (fc_arc a = 0; a < g->g_abound; a++)
        if (g->g_head[2 * a] >= 0)
            total += (fc_int128)g->g_st.fs_rescap[2 * a + 1] * g->g_cost[2 * a];
    return total;
}

char *fc_int128_format(fc_int128 v, char *buf, size_t len)
{
    /* Digits from the lowest, of the magnitude as unsigned: -v overflows
     * for the most negative value, its unsigned negation does not. */
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    char tmp[FC_INT128_BUFSIZE];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m != 0);
    if (v < 0)
        tmp[n++] = '-';
    if (len == 0)
        return buf;
    size_t k = 0;
    while (n > 0 && k + 1 < len)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
    return buf;
}

int fc_graph_check(const fc_graph *g, char *err, size_t errlen)
{
    int64_t *balance = calloc((size_t)g->g_nbound + 1, sizeof *balance);
    if (balance == NULL) {
        snprintf(err, errlen, "out of memory");
        return FC_ENOMEM;
    }
    int rc = 0;
    for (fc_node v = 0; v < g->g_nbound; v++)
        balance[v] = g->g_supply[v];
    for (fc_arc a = 0; a < g->g_abound && rc == 0; a++) {
        if (g->g_head[2 * a] < 0)
            continue;
        int64_t flow = g->g_st.fs_rescap[2 * a + 1];
        int64_t free_cap = g->g_st.fs_rescap[2 * a];
        if (flow < 0 || free_cap < 0) {
            snprintf(err, errlen,
                     "arc %d (%d -> %d): flow %" PRId64
                     " outside [0, capacity %" PRId64 "]",
                     a, fc_arc_src(g, a), fc_arc_dst(g, a), flow,
                     flow + free_cap);
            rc = FC_EINVAL;
        }
        balance[fc_arc_src(g, a)] -= flow;
        balance[fc_arc_dst(g, a)] += flow;
    }
    for (fc_node v = 0; v < g->g_nbound && rc == 0; v++) {
        if (g->g_ntype[v] != FC_NODE_FREE && balance[v] != 0) {
            snprintf(err, errlen,
                     "node %d: supply + inflow - outflow = %" PRId64 ", not 0",
                     v, balance[v]);
            rc = FC_EINVAL;
        }
    }
    free(balance);
    return rc;
}

void fc_graph_reset_flow(fc_graph *g)
{
    for (fc_arc a = 0; a < g->g_abound; a++) {
        g->g_st.fs_rescap[2 * a] += g->g_st.fs_rescap[2 * a + 1];
        g->g_st.fs_rescap[2 * a + 1] = 0;
    }
    for (fc_node v = 0; v < g->g_nbound; v++) {
        g->g_st.fs_excess[v] = g->g_supply[v];
        g->g_st.fs_price[v] = 0;
    }
    g->g_nchanges = 0;
    g->g_changes_lost = false;
    g->g_optimal = false;
}

size_t fc_graph_change_count(const fc_graph *g)
{
    return g->g_changes_lost ? SIZE_MAX : g->g_nchanges;
}

void fc_flow_state_copy(const fc_graph *g, fc_flow_state *dst,
                        const fc_flow_state *src)
{
    /* A graph without arcs (or nodes) may have NULL arrays, and memcpy
     * from NULL is undefined even for 0 bytes. */
    if (g->g_abound > 0)
        memcpy(dst->fs_rescap, src->fs_rescap,
               2 * (size_t)g->g_abound * sizeof(int64_t));
    if (g->g_nbound > 0) {
        memcpy(dst->fs_excess, src->fs_excess,
               (size_t)g->g_nbound * sizeof(int64_t));
        memcpy(dst->fs_price, src->fs_price,
               (size_t)g->g_nbound * sizeof(int64_t));
    }
}

static void fc_flow_state_free(fc_flow_state *st)
{
    free(st->fs_rescap);
    free(st->fs_excess);
    free(st->fs_price);
    st->fs_rescap = NULL;
    st->fs_excess = NULL;
    st->fs_price = NULL;
}
