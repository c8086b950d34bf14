/*
 * fd_net.c - the flow node's network: a flowcore graph plus the maps
 * between its nodes and the core's records (which record a graph node
 * stands for; which graph node and owned arcs a record has), with arc
 * changes checked against flowcore's limits. Also the slot tables that
 * give records their dense indices.
 */
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

/* ---- slot tables --------------------------------------------------------*/

int fd_slots_take(fd_slots *s, void *p, uint32_t *slot)
{
    if (s->sl_nfree > 0) {
        *slot = s->sl_free[--s->sl_nfree];
        s->sl_ptr[*slot] = p;
        return 0;
    }
    if (s->sl_len == s->sl_cap) {
        uint32_t cap = s->sl_cap < 16 ? 16 : s->sl_cap * 2;
        void **np = realloc(s->sl_ptr, cap * sizeof *np);
        if (np == NULL)
            return SK_ENOMEM;
        s->sl_ptr = np;
        uint32_t *nf = realloc(s->sl_free, cap * sizeof *nf);
        if (nf == NULL)
            return SK_ENOMEM;
        s->sl_free = nf;
        s->sl_cap = cap;
    }
    *slot = s->sl_len++;
    s->sl_ptr[*slot] = p;
    return 0;
}

void fd_slots_give(fd_slots *s, uint32_t slot)
{
    s->sl_ptr[slot] = NULL;
    s->sl_free[s->sl_nfree++] = slot; /* room: sl_free has sl_cap entries */
}

void fd_slots_free(fd_slots *s)
{
    free(s->sl_ptr);
    free(s->sl_free);
    memset(s, 0, sizeof *s);
}

/* ---- the network --------------------------------------------------------*/

int fd_net_new(fd_net **out)
{
    fd_net *net = calloc(1, sizeof *net);
    if (net == NULL)
        return FC_ENOMEM;
    int rc = fc_graph_new(&net->nt_g);
    if (rc != 0) {
        free(net);
        return rc;
    }
    net->nt_sink = net->nt_cluster = FC_NONE;
    *out = net;
    return 0;
}

void fd_net_free(fd_net *net)
{
    if (net == NULL)
        return;
    fc_graph_free(net->nt_g);
    free(net->nt_ref);
    free(net->nt_pair);
    for (int k = 0; k <= FD_G_TASK; k++)
        free(net->nt_ent[k]);
    free(net->nt_amark);
    free(net->nt_vmark);
    free(net);
}

fd_gent *fd_net_ent(fd_net *net, fd_gkind kind, uint32_t slot)
{
    if (slot >= net->nt_ent_cap[kind]) {
        size_t cap = net->nt_ent_cap[kind] < 16 ? 16 : net->nt_ent_cap[kind];
        while (cap <= slot)
            cap *= 2;
        fd_gent *e = realloc(net->nt_ent[kind], cap * sizeof *e);
        if (e == NULL)
            return NULL;
        for (size_t i = net->nt_ent_cap[kind]; i < cap; i++) {
            e[i].e_node = FC_NONE;
            for (int a = 0; a < FD_ENT_ARCS; a++)
                e[i].e_arc[a] = FC_NONE;
        }
        net->nt_ent[kind] = e;
        net->nt_ent_cap[kind] = cap;
    }
    return &net->nt_ent[kind][slot];
}

fd_gent *fd_net_find(const fd_net *net, fd_gkind kind, uint32_t slot)
{
    if (slot >= net->nt_ent_cap[kind] ||
        net->nt_ent[kind][slot].e_node == FC_NONE)
        return NULL;
    return &net->nt_ent[kind][slot];
}

int fd_net_node(fd_net *net, fd_gkind kind, uint32_t slot, int64_t supply,
                fc_node_type type)
{
    fd_gent *e = fd_net_ent(net, kind, slot);
    if (e == NULL)
        return FC_ENOMEM;
    SK_ASSERT(e->e_node == FC_NONE);
    fc_node v;
    int rc = fc_node_add(net->nt_g, supply, type, &v);
    if (rc != 0)
        return rc;
    if ((size_t)v >= net->nt_ref_cap) {
        size_t cap = net->nt_ref_cap < 64 ? 64 : net->nt_ref_cap;
        while (cap <= (size_t)v)
            cap *= 2;
        fd_gref *r = realloc(net->nt_ref, cap * sizeof *r);
        if (r == NULL) {
            fc_node_remove(net->nt_g, v);
            return FC_ENOMEM;
        }
        memset(r + net->nt_ref_cap, 0, (cap - net->nt_ref_cap) * sizeof *r);
        net->nt_ref = r;
        net->nt_ref_cap = cap;
    }
    net->nt_ref[v].g_kind = (uint8_t)kind;
    net->nt_ref[v].g_slot = slot;
    e->e_node = v;
    for (int a = 0; a < FD_ENT_ARCS; a++)
        e->e_arc[a] = FC_NONE;
    if (kind == FD_G_TASK)
        net->nt_supply += supply;
    return 0;
}

fc_arc *fd_net_pair(fd_net *net, uint32_t k, uint32_t n)
{
    if (k >= net->nt_pair_rows || n >= net->nt_pair_cols) {
        uint32_t rows = net->nt_pair_rows < 4 ? 4 : net->nt_pair_rows;
        uint32_t cols = net->nt_pair_cols < 16 ? 16 : net->nt_pair_cols;
        while (rows <= k)
            rows *= 2;
        while (cols <= n)
            cols *= 2;
        fc_arc *p = malloc((size_t)rows * cols * sizeof *p);
        if (p == NULL)
            return NULL;
        for (size_t i = 0; i < (size_t)rows * cols; i++)
            p[i] = FC_NONE;
        for (uint32_t r = 0; r < net->nt_pair_rows; r++)
            memcpy(p + (size_t)r * cols,
                   net->nt_pair + (size_t)r * net->nt_pair_cols,
                   net->nt_pair_cols * sizeof *p);
        free(net->nt_pair);
        net->nt_pair = p;
        net->nt_pair_rows = rows;
        net->nt_pair_cols = cols;
    }
    return &net->nt_pair[(size_t)k * net->nt_pair_cols + n];
}

int fd_net_node_remove(fd_net *net, fd_gkind kind, uint32_t slot, bool drain)
{
    fd_gent *e = fd_net_find(net, kind, slot);
    if (e == NULL)
        return 0;
    /* the pair arcs at it go with it */
    if (kind == FD_G_CLASS && slot < net->nt_pair_rows)
        for (uint32_t n = 0; n < net->nt_pair_cols; n++)
            net->nt_pair[(size_t)slot * net->nt_pair_cols + n] = FC_NONE;
    if (kind == FD_G_NODE && slot < net->nt_pair_cols)
        for (uint32_t k = 0; k < net->nt_pair_rows; k++)
            net->nt_pair[(size_t)k * net->nt_pair_cols + slot] = FC_NONE;
    fc_node v = e->e_node;
    if (kind == FD_G_TASK)
        net->nt_supply -= fc_node_supply(net->nt_g, v);
    int rc = drain ? fc_node_remove_drain(net->nt_g, v)
                   : fc_node_remove(net->nt_g, v);
    net->nt_ref[v].g_kind = FD_G_NONE;
    e->e_node = FC_NONE;
    for (int a = 0; a < FD_ENT_ARCS; a++)
        e->e_arc[a] = FC_NONE;
    return rc;
}

static bool arc_ok(int64_t cap, int64_t cost)
{
    return cap >= 0 && cap <= FC_MAX_CAPACITY && cost >= -FC_MAX_COST &&
           cost <= FC_MAX_COST;
}

int fd_net_arc(fd_net *net, fc_node src, fc_node dst, int64_t cap, int64_t cost,
               fc_arc *out)
{
    if (!arc_ok(cap, cost))
        return FC_EINVAL;
    fc_arc a;
    int rc = fc_arc_add(net->nt_g, src, dst, cap, cost, &a);
    if (rc == 0 && out != NULL)
        *out = a;
    return rc;
}

int fd_net_arc_set(fd_net *net, fc_arc *a, fc_node src, fc_node dst,
                   int64_t cap, int64_t cost)
{
    if (!arc_ok(cap, cost))
        return FC_EINVAL;
    if (*a == FC_NONE)
        return fc_arc_add(net->nt_g, src, dst, cap, cost, a);
    int rc = 0;
    if (fc_arc_cost(net->nt_g, *a) != cost)
        rc = fc_arc_set_cost(net->nt_g, *a, cost);
    if (rc == 0 && fc_arc_capacity(net->nt_g, *a) != cap)
        rc = fc_arc_set_capacity(net->nt_g, *a, cap);
    return rc;
}

int fd_net_strip(fd_net *net, fc_node v)
{
    for (int32_t i = fc_node_degree(net->nt_g, v); i-- > 0;) {
        bool outgoing;
        fc_arc a = fc_node_arc(net->nt_g, v, i, &outgoing);
        if (!outgoing)
            continue;
        int rc = fc_arc_remove(net->nt_g, a);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int fd_net_pair_set(fd_net *net, fc_arc *a, fc_node src, fc_node dst,
                    int64_t cap, int64_t cost)
{
    if (cap > 0)
        return fd_net_arc_set(net, a, src, dst, cap, cost);
    if (*a == FC_NONE)
        return 0;
    int rc = fc_arc_remove(net->nt_g, *a);
    *a = FC_NONE;
    return rc;
}

fd_gref fd_net_ref(const fd_net *net, fc_node v)
{
    fd_gref none = {FD_G_NONE, 0};
    if (v < 0 || (size_t)v >= net->nt_ref_cap)
        return none;
    return net->nt_ref[v];
}

int fd_net_balance(fd_net *net)
{
    if (fc_node_supply(net->nt_g, net->nt_sink) == -net->nt_supply)
        return 0;
    return fc_node_set_supply(net->nt_g, net->nt_sink, -net->nt_supply);
}

/* ---- reading the flow ---------------------------------------------------*/

static int marks_grow(fd_mark **m, size_t *cap, int32_t bound)
{
    if ((size_t)bound <= *cap)
        return 0;
    size_t n = *cap < 64 ? 64 : *cap;
    while (n < (size_t)bound)
        n *= 2;
    fd_mark *p = realloc(*m, n * sizeof *p);
    if (p == NULL)
        return FC_ENOMEM;
    memset(p + *cap, 0, (n - *cap) * sizeof *p);
    *m = p;
    *cap = n;
    return 0;
}

int fd_net_read_begin(fd_net *net)
{
    if (marks_grow(&net->nt_amark, &net->nt_amark_cap,
                   fc_graph_arc_bound(net->nt_g)) != 0 ||
        marks_grow(&net->nt_vmark, &net->nt_vmark_cap,
                   fc_graph_node_bound(net->nt_g)) != 0)
        return FC_ENOMEM;
    if (++net->nt_gen == 0) { /* wrapped: forget every mark */
        memset(net->nt_amark, 0, net->nt_amark_cap * sizeof *net->nt_amark);
        memset(net->nt_vmark, 0, net->nt_vmark_cap * sizeof *net->nt_vmark);
        net->nt_gen = 1;
    }
    return 0;
}

static int32_t *mark(fd_net *net, fd_mark *m)
{
    if (m->m_gen != net->nt_gen) {
        m->m_gen = net->nt_gen;
        m->m_n = 0;
    }
    return &m->m_n;
}

fc_node fd_net_follow(fd_net *net, fc_node v)
{
    const fc_graph *g = net->nt_g;
    for (;;) {
        fc_node_type type = fc_node_get_type(g, v);
        if (type == FC_NODE_MACHINE)
            return v;
        if (type == FC_NODE_UNSCHEDULED || type == FC_NODE_SINK)
            return FC_NONE;
        /* Arcs before the cursor are incoming or have had all their
         * units taken: they stay so for the rest of the reading. */
        int32_t *cur = mark(net, &net->nt_vmark[v]);
        int32_t deg = fc_node_degree(g, v);
        fc_arc next = FC_NONE;
        for (; *cur < deg; ++*cur) {
            bool out;
            fc_arc a = fc_node_arc(g, v, *cur, &out);
            if (!out)
                continue;
            int32_t *taken = mark(net, &net->nt_amark[a]);
            if (*taken < fc_arc_flow(g, a)) {
                ++*taken;
                next = a;
                break;
            }
        }
        if (next == FC_NONE)
            return FC_NONE;
        v = fc_arc_dst(g, next);
    }
}
