/*
 * fd_constraint_flow.c - the exact part of placing under constraints: a
 * min-cost flow network, solved by flowcore's successive shortest path.
 *
 * The network: task -> [per-(job, tag) rack gate] -> [per-(job, tag) node
 * gate] -> node -> sink, and task -> sink (waiting, FD_CX_UNPLACED). A
 * gate's capacity is the number of tasks of that tag the group may still
 * take: a hard "T NOTIN/CARDINALITY 0..k of app/T" allows k + 1 in a
 * group, less the fixed ones there. Gated tasks of one (job, tag) have
 * the same arcs, so which of them takes which unit of flow is free. An
 * ungated task's arcs leave out the nodes where a constraint whose
 * counted tasks are all fixed would be broken (hard), or cost its weight
 * (soft).
 */
#include "fd_constraint_int.h"
#include "flowcore.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

#define ARC_COST 1 /* a placement: cheaper than waiting */

/* A hard self cap of constraint c: "T at most max others of app/T". */
static bool is_cap(const fd_cx_con *c)
{
    return c->cc_weight == 0 && !c->cc_all && c->cc_source == c->cc_target &&
           c->cc_min == 0 && c->cc_max != UINT32_MAX &&
           (c->cc_group == SK_GROUP_NODE || c->cc_group == SK_GROUP_RACK);
}

typedef struct gate {
    uint32_t g_job, g_tag;
    int64_t g_node_cap, g_rack_cap; /* per group, -1 none */
    fc_node *g_rnode;               /* [rack] */
    fc_node *g_nnode;               /* [node] */
    fc_arc *g_out;                  /* [node]: the arc into the node */
} gate;

typedef struct net {
    fc_graph *n_g;
    fc_node n_sink;
    fc_node *n_node; /* [node] */
    fc_node *n_task; /* [task] */
    fc_arc *n_wait;  /* [task] */
    int32_t *n_gate; /* [task]: gate index or -1 */
    gate *n_gates;
    uint32_t n_ngates;
    int32_t *n_fixed; /* scratch: fixed counted tasks per group */
} net;

/* The gate of (job, tag), made on first use; -1 when out of memory. */
static int32_t gate_of(net *w, const fd_cx *x, uint32_t job, uint32_t tag)
{
    for (uint32_t i = 0; i < w->n_ngates; i++)
        if (w->n_gates[i].g_job == job && w->n_gates[i].g_tag == tag)
            return (int32_t)i;
    gate *ng = realloc(w->n_gates, (w->n_ngates + 1) * sizeof *ng);
    if (ng == NULL)
        return -1;
    w->n_gates = ng;
    gate *g = &ng[w->n_ngates];
    memset(g, 0, sizeof *g);
    g->g_job = job;
    g->g_tag = tag;
    g->g_node_cap = g->g_rack_cap = -1;
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        if (!is_cap(c) || c->cc_job != job || c->cc_source != tag)
            continue;
        int64_t *cap =
            c->cc_group == SK_GROUP_NODE ? &g->g_node_cap : &g->g_rack_cap;
        if (*cap < 0 || (int64_t)c->cc_max + 1 < *cap)
            *cap = (int64_t)c->cc_max + 1;
    }
    return (int32_t)w->n_ngates++;
}

/* Fixed tasks of (job, tag) in node n's group: node or rack. */
static int64_t fixed_in(const fd_cx *x, const gate *g, int32_t n, bool rack)
{
    int64_t k = 0;
    for (uint32_t t = 0; t < x->cx_ntasks; t++) {
        const fd_cx_task *tk = &x->cx_tasks[t];
        if (!tk->ck_fixed || tk->ck_node == FD_CX_NONE ||
            tk->ck_job != g->g_job || !fd_cx_has_tag(tk, g->g_tag))
            continue;
        if (rack ? x->cx_rack[tk->ck_node] == x->cx_rack[n] : tk->ck_node == n)
            k++;
    }
    return k;
}

static int64_t cap_left(int64_t cap, int64_t fixed)
{
    return cap > fixed ? cap - fixed : 0;
}

/* The gate's nodes and arcs into the network's node layer: per rack an
 * entry and an exit joined by an arc of the rack's capacity, per node an
 * aggregator with an arc of the node's capacity into the node. */
static int gate_build(net *w, const fd_cx *x, gate *g)
{
    int rc = 0;
    uint32_t nn = x->cx_nnodes, nr = x->cx_nracks;
    fc_node *rout = calloc(nr ? nr : 1, sizeof *rout);
    g->g_rnode = malloc((nr ? nr : 1) * sizeof *g->g_rnode);
    g->g_nnode = malloc((nn ? nn : 1) * sizeof *g->g_nnode);
    g->g_out = malloc((nn ? nn : 1) * sizeof *g->g_out);
    if (rout == NULL || g->g_rnode == NULL || g->g_nnode == NULL ||
        g->g_out == NULL) {
        free(rout);
        return FC_ENOMEM;
    }
    for (uint32_t r = 0; r < nr && rc == 0; r++) {
        g->g_rnode[r] = rout[r] = FC_NONE;
        if (g->g_rack_cap < 0)
            continue;
        rc = fc_node_add(w->n_g, 0, FC_NODE_AGGREGATOR, &g->g_rnode[r]);
        if (rc == 0)
            rc = fc_node_add(w->n_g, 0, FC_NODE_AGGREGATOR, &rout[r]);
        int64_t fixed = 0;
        for (uint32_t n = 0; rc == 0 && n < nn; n++)
            if (x->cx_rack[n] == (int32_t)r) {
                fixed = fixed_in(x, g, (int32_t)n, true);
                break;
            }
        fc_arc a;
        if (rc == 0)
            rc = fc_arc_add(w->n_g, g->g_rnode[r], rout[r],
                            cap_left(g->g_rack_cap, fixed), 0, &a);
    }
    for (uint32_t n = 0; n < nn && rc == 0; n++) {
        fc_node into = w->n_node[n];
        g->g_nnode[n] = FC_NONE;
        int64_t cap = x->cx_room[n];
        if (g->g_node_cap >= 0) {
            rc = fc_node_add(w->n_g, 0, FC_NODE_AGGREGATOR, &g->g_nnode[n]);
            int64_t c2 =
                cap_left(g->g_node_cap, fixed_in(x, g, (int32_t)n, false));
            if (rc == 0)
                rc = fc_arc_add(w->n_g, g->g_nnode[n], into,
                                c2 < cap ? c2 : cap, ARC_COST, &g->g_out[n]);
            into = g->g_nnode[n];
        }
        if (rc == 0 && g->g_rack_cap >= 0) {
            fc_arc a;
            rc = fc_arc_add(w->n_g, rout[x->cx_rack[n]], into, cap,
                            g->g_node_cap >= 0 ? 0 : ARC_COST, &a);
            if (g->g_node_cap < 0)
                g->g_out[n] = a;
        }
    }
    free(rout);
    return rc;
}

/* Arcs of a gated task: into every rack gate, or the node gate of every
 * node with room it may go to (a task restricted to some nodes is never
 * rack-gated; nodes without room, e.g. those a bounded round does not
 * offer, get no arc: the gate's arc into them has capacity 0). */
static int gated_arcs(net *w, const fd_cx *x, const gate *g,
                      const fd_cx_task *t, fc_node tn)
{
    fc_arc a;
    int rc = 0;
    if (g->g_rack_cap >= 0) {
        for (uint32_t r = 0; r < x->cx_nracks && rc == 0; r++)
            rc = fc_arc_add(w->n_g, tn, g->g_rnode[r], 1, 0, &a);
        return rc;
    }
    for (uint32_t n = 0; n < x->cx_nnodes && rc == 0; n++)
        if (x->cx_room[n] > 0 && fd_cx_ok_at(t, n))
            rc = fc_arc_add(w->n_g, tn, g->g_nnode[n], 1, 0, &a);
    return rc;
}

/* Constraints whose counted tasks are all fixed: a node either breaks
 * them or not whatever the others do, so the network says it exactly. */
static bool *static_cons(const fd_cx *x)
{
    bool *st = malloc((x->cx_ncons ? x->cx_ncons : 1) * sizeof *st);
    if (st == NULL)
        return NULL;
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        st[ci] = true;
        for (uint32_t t = 0; t < x->cx_ntasks && st[ci]; t++)
            if (!x->cx_tasks[t].ck_fixed &&
                fd_cx_counted(&x->cx_cons[ci], &x->cx_tasks[t]))
                st[ci] = false;
    }
    return st;
}

/* Constraints with a maximum whose subject tasks are all fixed (another
 * application's, placed in an earlier round): a task they count, placed
 * in a group, breaks those subjects there whose count is at the maximum.
 * Per group, the fixed subjects there, not counted by it ([0]) and
 * counted ([1]: their own count leaves them out). NULL where it does not
 * apply. */
typedef struct watch {
    uint32_t *wt_sub[2]; /* [group] */
} watch;

static void watch_free(watch *wt, uint32_t ncons)
{
    for (uint32_t ci = 0; wt != NULL && ci < ncons; ci++) {
        free(wt[ci].wt_sub[0]);
        free(wt[ci].wt_sub[1]);
    }
    free(wt);
}

static watch *watchers(const fd_cx *x)
{
    watch *wt = calloc(x->cx_ncons ? x->cx_ncons : 1, sizeof *wt);
    for (uint32_t ci = 0; wt != NULL && ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        bool fixed = c->cc_max != UINT32_MAX;
        for (uint32_t t = 0; t < x->cx_ntasks && fixed; t++)
            fixed =
                x->cx_tasks[t].ck_fixed || !fd_cx_subject(c, &x->cx_tasks[t]);
        if (!fixed)
            continue;
        size_t ng = c->cc_ngroups ? c->cc_ngroups : 1;
        wt[ci].wt_sub[0] = calloc(ng, sizeof(uint32_t));
        wt[ci].wt_sub[1] = calloc(ng, sizeof(uint32_t));
        if (wt[ci].wt_sub[0] == NULL || wt[ci].wt_sub[1] == NULL) {
            watch_free(wt, x->cx_ncons);
            return NULL;
        }
        for (uint32_t t = 0; t < x->cx_ntasks; t++) {
            const fd_cx_task *tk = &x->cx_tasks[t];
            if (tk->ck_node == FD_CX_NONE || !fd_cx_subject(c, tk) ||
                c->cc_gid[tk->ck_node] == FD_CX_NONE)
                continue;
            wt[ci].wt_sub[fd_cx_counted(c, tk)][c->cc_gid[tk->ck_node]]++;
        }
    }
    return wt;
}

/* The fixed subjects of watched constraint ci that task ti, placed at
 * node n, would break (the counts of s are the fixed tasks only). */
static uint32_t newly_broken(const fd_cx_state *s, const watch *wt, uint32_t ci,
                             uint32_t ti, uint32_t n)
{
    const fd_cx_con *c = &s->st_x->cx_cons[ci];
    int32_t g = c->cc_gid[n];
    if (wt[ci].wt_sub[0] == NULL || g == FD_CX_NONE ||
        !fd_cx_counted(c, &s->st_x->cx_tasks[ti]))
        return 0;
    uint64_t have = s->st_cnt[ci][g];
    return (have == c->cc_max ? wt[ci].wt_sub[0][g] : 0) +
           (have == (uint64_t)c->cc_max + 1 ? wt[ci].wt_sub[1][g] : 0);
}

/* An ungated task's arcs: to every node with room that breaks none of
 * its static hard constraints, costing the static soft ones it breaks;
 * and, for the watched constraints of fixed tasks that count it, leaving
 * out the nodes where it would break a hard one and costing the soft ones
 * (each task placed there is charged, though only the first breaks them:
 * the network steers clear of such nodes, the repair pass sorts out the
 * rest). */
static int direct_arcs(net *w, fd_cx_state *s, const bool *st, const watch *wt,
                       uint32_t ti)
{
    const fd_cx *x = s->st_x;
    int rc = 0;
    for (uint32_t n = 0; n < x->cx_nnodes && rc == 0; n++) {
        if (x->cx_room[n] == 0 || !fd_cx_ok_at(&x->cx_tasks[ti], n))
            continue;
        int64_t cost = ARC_COST;
        bool ok = true;
        for (uint32_t ci = 0; ci < x->cx_ncons && ok; ci++) {
            const fd_cx_con *c = &x->cx_cons[ci];
            if (!st[ci] || !fd_cx_subject(c, &x->cx_tasks[ti]) ||
                !fd_cx_breaks(s, ci, ti, (int32_t)n))
                continue;
            if (c->cc_weight == 0)
                ok = false;
            else
                cost += c->cc_weight;
        }
        for (uint32_t ci = 0; ci < x->cx_ncons && ok; ci++) {
            uint32_t k = newly_broken(s, wt, ci, ti, n);
            if (k > 0 && x->cx_cons[ci].cc_weight == 0)
                ok = false;
            else
                cost += (int64_t)k * x->cx_cons[ci].cc_weight;
        }
        fc_arc a;
        if (ok)
            rc = fc_arc_add(w->n_g, w->n_task[ti], w->n_node[n], 1, cost, &a);
    }
    return rc;
}

static void net_free(net *w)
{
    for (uint32_t i = 0; i < w->n_ngates; i++) {
        free(w->n_gates[i].g_rnode);
        free(w->n_gates[i].g_nnode);
        free(w->n_gates[i].g_out);
    }
    free(w->n_gates);
    free(w->n_node);
    free(w->n_task);
    free(w->n_wait);
    free(w->n_gate);
    fc_graph_free(w->n_g);
}

/* Build and solve the network; write the tasks it places. */
int fd_cx_flow_stage(fd_cx *x, fd_cx_state *s, fd_cx_stats *xs)
{
    net w = {0};
    uint32_t nt = x->cx_ntasks, nn = x->cx_nnodes, todo = 0;
    int rc = fc_graph_new(&w.n_g);
    bool *st = static_cons(x);
    watch *wt = watchers(x);
    w.n_node = malloc((nn ? nn : 1) * sizeof *w.n_node);
    w.n_task = malloc((nt ? nt : 1) * sizeof *w.n_task);
    w.n_wait = malloc((nt ? nt : 1) * sizeof *w.n_wait);
    w.n_gate = malloc((nt ? nt : 1) * sizeof *w.n_gate);
    if (rc == 0 && (st == NULL || wt == NULL || w.n_node == NULL ||
                    w.n_task == NULL || w.n_wait == NULL || w.n_gate == NULL))
        rc = FC_ENOMEM;
    for (uint32_t t = 0; t < nt; t++)
        todo += !x->cx_tasks[t].ck_fixed;
    if (rc == 0)
        rc = fc_node_add(w.n_g, -(int64_t)todo, FC_NODE_SINK, &w.n_sink);
    for (uint32_t n = 0; n < nn && rc == 0; n++) {
        fc_arc a;
        rc = fc_node_add(w.n_g, 0, FC_NODE_MACHINE, &w.n_node[n]);
        if (rc == 0)
            rc = fc_arc_add(w.n_g, w.n_node[n], w.n_sink, x->cx_room[n], 0, &a);
    }
    for (uint32_t t = 0; t < nt && rc == 0; t++) {
        fd_cx_task *tk = &x->cx_tasks[t];
        w.n_gate[t] = -1;
        w.n_task[t] = FC_NONE;
        if (tk->ck_fixed)
            continue;
        rc = fc_node_add(w.n_g, 1, FC_NODE_TASK, &w.n_task[t]);
        if (rc == 0)
            rc = fc_arc_add(w.n_g, w.n_task[t], w.n_sink, 1, FD_CX_UNPLACED,
                            &w.n_wait[t]);
        for (uint32_t ci = 0; ci < x->cx_ncons && w.n_gate[t] == -1; ci++) {
            const fd_cx_con *c = &x->cx_cons[ci];
            if (is_cap(c) && fd_cx_subject(c, tk)) {
                w.n_gate[t] = gate_of(&w, x, c->cc_job, c->cc_source);
                if (w.n_gate[t] < 0)
                    rc = FC_ENOMEM;
                else if (w.n_gates[w.n_gate[t]].g_nnode == NULL)
                    rc = gate_build(&w, x, &w.n_gates[w.n_gate[t]]);
                if (rc == 0 && tk->ck_ok != NULL &&
                    w.n_gates[w.n_gate[t]].g_rack_cap >= 0)
                    w.n_gate[t] = -2; /* restricted: direct, repaired */
            }
        }
        if (rc != 0)
            break;
        if (w.n_gate[t] >= 0) {
            xs->xs_gated++;
            rc = gated_arcs(&w, x, &w.n_gates[w.n_gate[t]], tk, w.n_task[t]);
        } else {
            rc = direct_arcs(&w, s, st, wt, t);
        }
    }
    fc_solve_options o;
    fc_solve_options_init(&o);
    o.so_algorithm = FC_ALG_SSP;
    o.so_incremental = false;
    if (rc == 0)
        rc = fc_solve(w.n_g, &o, NULL);
    fc_placement *pl = NULL;
    size_t npl = 0;
    if (rc == 0)
        rc = fc_placements(w.n_g, &pl, &npl);
    int32_t bound = rc == 0 ? fc_graph_node_bound(w.n_g) : 0;
    int32_t *who =
        rc == 0 ? malloc((size_t)(bound ? bound : 1) * sizeof *who) : NULL;
    if (rc == 0 && who == NULL)
        rc = FC_ENOMEM;
    if (rc == 0) {
        for (int32_t v = 0; v < bound; v++)
            who[v] = -1;
        for (uint32_t n = 0; n < nn; n++)
            who[w.n_node[n]] = (int32_t)n;
        for (uint32_t t = 0; t < nt; t++)
            if (w.n_task[t] != FC_NONE)
                who[w.n_task[t]] = (int32_t)t;
        for (size_t i = 0; i < npl; i++) {
            int32_t t = who[pl[i].pl_task], n = who[pl[i].pl_machine];
            if (t < 0 || n < 0 || x->cx_tasks[t].ck_node != FD_CX_NONE)
                continue;
            fd_cx_move(s, (uint32_t)t, n);
            xs->xs_flow_placed++;
        }
    }
    free(who);
    free(pl);
    free(st);
    watch_free(wt, x->cx_ncons);
    net_free(&w);
    return rc;
}
