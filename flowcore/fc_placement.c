/*
 * fc_placement.c - placement extraction: which machine each task's flow
 * reaches, read off the flow in one backward pass from the machines.
 *
 * Units start at the machine nodes and travel against the flow, node by
 * node in reverse topological order of the arcs that carry flow, until
 * they reach tasks. A node passes its units on only after every node its
 * flow goes to has passed theirs, so aggregator layers of any depth, and
 * paths of different lengths, are handled (a breadth-first pass, as in
 * Firmament's extraction, loses units when paths to the same aggregator
 * differ in length). Units are kept as runs (machine, count) in one pool.
 */
#include "fc_graph_impl.h"

#include <string.h>

typedef struct run {
    int32_t ru_machine;
    int32_t ru_next; /* next run of the same node, or -1 */
    int64_t ru_count;
} run;

typedef struct extract {
    const fc_graph *ex_g;
    int64_t *ex_flow; /* [arcs] scratch copy of the flow */
    int32_t *ex_head; /* [nodes] first run of the node's units, or -1 */
    run *ex_runs;
    int32_t ex_nruns;
    int32_t ex_runcap;
    fc_placement *ex_out;
    size_t ex_nout;
    size_t ex_outcap;
} extract;

static int new_run(extract *ex, int32_t machine, int64_t count, int32_t next)
{
    if (ex->ex_nruns == ex->ex_runcap) {
        int32_t cap = ex->ex_runcap < 64 ? 64 : ex->ex_runcap * 2;
        run *p = realloc(ex->ex_runs, (size_t)cap * sizeof *p);
        if (p == NULL)
            return -1;
        ex->ex_runs = p;
        ex->ex_runcap = cap;
    }
    ex->ex_runs[ex->ex_nruns] = (run){machine, next, count};
    return ex->ex_nruns++;
}

/* Move up to amount units from v to u; returns the amount moved or -1. */
static int64_t move_units(extract *ex, fc_node v, fc_node u, int64_t amount)
{
    int64_t moved = 0;
    while (moved < amount && ex->ex_head[v] >= 0) {
        int32_t h = ex->ex_head[v];
        run *rv = &ex->ex_runs[h];
        int64_t want = amount - moved;
        if (rv->ru_count <= want) {
            ex->ex_head[v] = rv->ru_next;
            rv->ru_next = ex->ex_head[u];
            ex->ex_head[u] = h;
            moved += rv->ru_count;
        } else {
            int32_t machine = rv->ru_machine;
            rv->ru_count -= want;
            int32_t n = new_run(ex, machine, want, ex->ex_head[u]);
            if (n < 0)
                return -1;
            ex->ex_head[u] = n;
            moved += want;
        }
    }
    return moved;
}

static int add_placement(extract *ex, fc_node task, fc_node machine,
                         int64_t units)
{
    if (ex->ex_nout == ex->ex_outcap) {
        size_t cap = ex->ex_outcap < 64 ? 64 : 2 * ex->ex_outcap;
        fc_placement *p = realloc(ex->ex_out, cap * sizeof *p);
        if (p == NULL)
            return FC_ENOMEM;
        ex->ex_out = p;
        ex->ex_outcap = cap;
    }
    ex->ex_out[ex->ex_nout++] = (fc_placement){task, machine, units};
    return 0;
}

/* Cancel every cycle of flow in ex_flow (they cost nothing in an optimal
 * flow, and they have no reverse topological order). Depth-first search
 * along arcs with flow; a back arc closes a cycle, whose smallest flow is
 * taken off every arc on it, and the search resumes at the cycle's start.
 * Each cancellation empties an arc, so this ends. */
static int cancel_cycles(extract *ex)
{
    const fc_graph *g = ex->ex_g;
    int32_t n = g->g_nbound;
    uint8_t *color = calloc((size_t)n + 1, 1); /* 0 new, 1 open, 2 done */
    int32_t *stk_node = malloc(((size_t)n + 1) * sizeof *stk_node);
    int32_t *stk_pos = malloc(((size_t)n + 1) * sizeof *stk_pos);
    int32_t *stk_arc = malloc(((size_t)n + 1) * sizeof *stk_arc);
    int32_t *depth = malloc(((size_t)n + 1) * sizeof *depth);
    if (!color || !stk_node || !stk_pos || !stk_arc || !depth) {
        free(color);
        free(stk_node);
        free(stk_pos);
        free(stk_arc);
        free(depth);
        return FC_ENOMEM;
    }
    for (fc_node root = 0; root < n; root++) {
        if (color[root] != 0 || g->g_ntype[root] == FC_NODE_FREE)
            continue;
        int32_t len = 0;
        stk_node[0] = root;
        stk_pos[0] = 0;
        stk_arc[0] = -1;
        depth[root] = 0;
        color[root] = 1;
        len = 1;
        while (len > 0) {
            fc_node v = stk_node[len - 1];
            const fc_adj *adj = &g->g_adj[v];
            if (stk_pos[len - 1] >= adj->ad_len) {
                color[v] = 2;
                len--;
                continue;
            }
            int32_t r = adj->ad_res[stk_pos[len - 1]];
            fc_node w = g->g_head[r];
            if ((r & 1) != 0 || ex->ex_flow[r >> 1] <= 0 || color[w] == 2) {
                stk_pos[len - 1]++;
                continue;
            }
            if (color[w] == 0) {
                color[w] = 1;
                depth[w] = len;
                stk_node[len] = w;
                stk_pos[len] = 0;
                stk_arc[len] = r >> 1;
                len++;
                continue;
            }
            /* w is open: the arcs from w's entry on the stack to v, and
             * r, form a cycle. */
            int32_t from = depth[w];
            int64_t least = ex->ex_flow[r >> 1];
            for (int32_t i = from + 1; i < len; i++)
                if (ex->ex_flow[stk_arc[i]] < least)
                    least = ex->ex_flow[stk_arc[i]];
            ex->ex_flow[r >> 1] -= least;
            for (int32_t i = from + 1; i < len; i++)
                ex->ex_flow[stk_arc[i]] -= least;
            /* Resume at w: nodes above it are re-opened later if still
             * reachable. */
            for (int32_t i = from + 1; i < len; i++)
                color[stk_node[i]] = 0;
            len = from + 1;
        }
    }
    free(color);
    free(stk_node);
    free(stk_pos);
    free(stk_arc);
    free(depth);
    return 0;
}

static int cmp_placement(const void *a, const void *b)
{
    const fc_placement *x = a, *y = b;
    if (x->pl_task != y->pl_task)
        return x->pl_task < y->pl_task ? -1 : 1;
    if (x->pl_machine != y->pl_machine)
        return x->pl_machine < y->pl_machine ? -1 : 1;
    return 0;
}

/* Sort the placements and merge the ones of the same task and machine. */
static void merge_placements(extract *ex)
{
    if (ex->ex_nout == 0)
        return;
    qsort(ex->ex_out, ex->ex_nout, sizeof *ex->ex_out, cmp_placement);
    size_t k = 0;
    for (size_t i = 1; i < ex->ex_nout; i++) {
        if (cmp_placement(&ex->ex_out[k], &ex->ex_out[i]) == 0)
            ex->ex_out[k].pl_units += ex->ex_out[i].pl_units;
        else
            ex->ex_out[++k] = ex->ex_out[i];
    }
    ex->ex_nout = k + 1;
}

/* The backward pass proper, over the cycle-free scratch flow. */
static int backward_pass(extract *ex)
{
    const fc_graph *g = ex->ex_g;
    int32_t n = g->g_nbound;
    uint8_t *reach = calloc((size_t)n + 1, 1); /* can reach a machine */
    int32_t *pending = calloc((size_t)n + 1, sizeof *pending);
    int32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    int rc = FC_ENOMEM;
    if (reach == NULL || pending == NULL || queue == NULL)
        goto out;
    /* The nodes whose flow can reach a machine: search back from the
     * machines along arcs with flow. */
    int32_t qlen = 0;
    for (fc_node v = 0; v < n; v++) {
        if (g->g_ntype[v] == FC_NODE_MACHINE) {
            reach[v] = 1;
            queue[qlen++] = v;
        }
    }
    for (int32_t qi = 0; qi < qlen; qi++) {
        fc_node v = queue[qi];
        const fc_adj *adj = &g->g_adj[v];
        for (int32_t i = 0; i < adj->ad_len; i++) {
            int32_t r = adj->ad_res[i];
            fc_node u = g->g_head[r];
            if ((r & 1) == 1 && ex->ex_flow[r >> 1] > 0 && !reach[u]) {
                reach[u] = 1;
                queue[qlen++] = u;
            }
        }
    }
    /* Seed the machines, and count for every node the arcs of flow it
     * must hear back from before passing its units on. */
    for (fc_node v = 0; v < n; v++) {
        if (!reach[v])
            continue;
        const fc_adj *adj = &g->g_adj[v];
        int64_t seed = 0;
        for (int32_t i = 0; i < adj->ad_len; i++) {
            int32_t r = adj->ad_res[i];
            fc_node w = g->g_head[r];
            if ((r & 1) != 0 || ex->ex_flow[r >> 1] <= 0)
                continue;
            if (reach[w])
                pending[v]++;
            if (g->g_ntype[w] != FC_NODE_MACHINE)
                seed += ex->ex_flow[r >> 1];
        }
        if (g->g_ntype[v] == FC_NODE_MACHINE && seed > 0) {
            int32_t h = new_run(ex, v, seed, -1);
            if (h < 0)
                goto out;
            ex->ex_head[v] = h;
        }
    }
    qlen = 0;
    for (fc_node v = 0; v < n; v++)
        if (reach[v] && pending[v] == 0)
            queue[qlen++] = v;
    for (int32_t qi = 0; qi < qlen; qi++) {
        fc_node v = queue[qi];
        if (g->g_ntype[v] == FC_NODE_TASK) {
            /* A task keeps as many units as it supplies. */
            int64_t keep = g->g_supply[v];
            while (keep > 0 && ex->ex_head[v] >= 0) {
                run *h = &ex->ex_runs[ex->ex_head[v]];
                int64_t take = h->ru_count < keep ? h->ru_count : keep;
                if (add_placement(ex, v, h->ru_machine, take) != 0)
                    goto out;
                keep -= take;
                h->ru_count -= take;
                if (h->ru_count == 0)
                    ex->ex_head[v] = h->ru_next;
            }
        }
        const fc_adj *adj = &g->g_adj[v];
        for (int32_t i = 0; i < adj->ad_len; i++) {
            int32_t r = adj->ad_res[i];
            fc_node u = g->g_head[r];
            if ((r & 1) != 1 || ex->ex_flow[r >> 1] <= 0)
                continue;
            if (move_units(ex, v, u, ex->ex_flow[r >> 1]) < 0)
                goto out;
            if (--pending[u] == 0)
                queue[qlen++] = u;
        }
    }
    rc = 0;
out:
    free(reach);
    free(pending);
    free(queue);
    return rc;
}

int fc_placements(const fc_graph *g, fc_placement **out, size_t *count)
{
    extract ex;
    memset(&ex, 0, sizeof ex);
    ex.ex_g = g;
    ex.ex_flow = malloc(((size_t)g->g_abound + 1) * sizeof *ex.ex_flow);
    ex.ex_head = malloc(((size_t)g->g_nbound + 1) * sizeof *ex.ex_head);
    int rc = FC_ENOMEM;
    if (ex.ex_flow != NULL && ex.ex_head != NULL) {
        for (fc_arc a = 0; a < g->g_abound; a++)
            ex.ex_flow[a] =
                g->g_head[2 * a] >= 0 ? g->g_st.fs_rescap[2 * a + 1] : 0;
        for (fc_node v = 0; v < g->g_nbound; v++)
            ex.ex_head[v] = -1;
        rc = cancel_cycles(&ex);
        if (rc == 0)
            rc = backward_pass(&ex);
    }
    free(ex.ex_flow);
    free(ex.ex_head);
    free(ex.ex_runs);
    if (rc != 0) {
        free(ex.ex_out);
        return rc;
    }
    merge_placements(&ex);
    *out = ex.ex_out;
    *count = ex.ex_nout;
    if (ex.ex_nout == 0) {
        free(ex.ex_out);
        *out = NULL;
    }
    return 0;
}
