/*
 * test_fc_placement.c - placement extraction on multi-layer aggregator
 * networks: the placements read off an optimal flow must be one of the
 * path decompositions a brute-force enumeration finds, and account for
 * every unit that reaches a machine; paths of different lengths through
 * one aggregator, machines with machine-typed cores, unscheduled tasks and
 * cycles of flow are covered by hand-made cases.
 */
#include "fc_graph_impl.h"
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_RANDOM     150
#define MAX_OUTCOMES 4096

static void solve(fc_graph *g)
{
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    if (fc_solve(g, &opt, NULL) != 0)
        tap_bail_out("solve failed");
}

/* A placement list as text "task:machine ..." with one entry per unit, in
 * sorted order: the canonical form both sides are compared in. */
static void canonical(fc_placement *p, size_t n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        for (int64_t u = 0; u < p[i].pl_units && at + 24 < len; u++)
            at += (size_t)snprintf(buf + at, len - at, "%d:%d ", p[i].pl_task,
                                   p[i].pl_machine);
}

static int cmp_pl(const void *a, const void *b)
{
    const fc_placement *x = a, *y = b;
    if (x->pl_task != y->pl_task)
        return x->pl_task - y->pl_task;
    return x->pl_machine - y->pl_machine;
}

/* --- brute force: every way to decompose the flow into unit paths -------*/

typedef struct brute {
    const fc_graph *bf_g;
    int64_t *bf_flow;  /* remaining flow per arc */
    int64_t *bf_units; /* units each node still has to send */
    fc_placement bf_chosen[256];
    int bf_nchosen;
    char *bf_outcomes[MAX_OUTCOMES];
    int bf_noutcomes;
    bool bf_overflow;
} brute;

static void record_outcome(brute *b)
{
    fc_placement sorted[256];
    memcpy(sorted, b->bf_chosen, (size_t)b->bf_nchosen * sizeof *sorted);
    qsort(sorted, (size_t)b->bf_nchosen, sizeof *sorted, cmp_pl);
    char buf[4096];
    canonical(sorted, (size_t)b->bf_nchosen, buf, sizeof buf);
    for (int i = 0; i < b->bf_noutcomes; i++)
        if (strcmp(b->bf_outcomes[i], buf) == 0)
            return;
    if (b->bf_noutcomes == MAX_OUTCOMES) {
        b->bf_overflow = true;
        return;
    }
    b->bf_outcomes[b->bf_noutcomes++] = strdup(buf);
}

static void next_unit(brute *b);

/* Continue the unit of task t from node v, last machine seen m. */
static void walk(brute *b, fc_node t, fc_node v, fc_node m, int depth)
{
    const fc_graph *g = b->bf_g;
    if (fc_node_get_type(g, v) == FC_NODE_MACHINE)
        m = v;
    if (fc_node_supply(g, v) < 0 || depth > fc_graph_node_bound(g)) {
        if (m != FC_NONE)
            b->bf_chosen[b->bf_nchosen++] = (fc_placement){t, m, 1};
        next_unit(b);
        if (m != FC_NONE)
            b->bf_nchosen--;
        return;
    }
    for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
        bool out;
        fc_arc a = fc_node_arc(g, v, i, &out);
        if (!out || b->bf_flow[a] <= 0)
            continue;
        b->bf_flow[a]--;
        walk(b, t, fc_arc_dst(g, a), m, depth + 1);
        b->bf_flow[a]++;
    }
}

static void next_unit(brute *b)
{
    const fc_graph *g = b->bf_g;
    for (fc_node t = 0; t < fc_graph_node_bound(g); t++) {
        if (b->bf_units[t] > 0) {
            b->bf_units[t]--;
            walk(b, t, t, FC_NONE, 0);
            b->bf_units[t]++;
            return;
        }
    }
    record_outcome(b);
}

/* Whether the extracted placements are one of the brute-force
 * decompositions. Tasks are the only sources in these networks. */
static bool matches_brute_force(const fc_graph *g, char *why, size_t len)
{
    brute b;
    memset(&b, 0, sizeof b);
    b.bf_g = g;
    b.bf_flow = calloc((size_t)fc_graph_arc_bound(g) + 1, sizeof(int64_t));
    b.bf_units = calloc((size_t)fc_graph_node_bound(g) + 1, sizeof(int64_t));
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a))
            b.bf_flow[a] = fc_arc_flow(g, a);
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++)
        if (fc_node_exists(g, v) && fc_node_supply(g, v) > 0)
            b.bf_units[v] = fc_node_supply(g, v);
    next_unit(&b);

    fc_placement *p;
    size_t n;
    bool ok = false;
    if (fc_placements(g, &p, &n) != 0) {
        snprintf(why, len, "fc_placements failed");
    } else {
        char mine[4096];
        canonical(p, n, mine, sizeof mine);
        for (int i = 0; i < b.bf_noutcomes && !ok; i++)
            ok = strcmp(b.bf_outcomes[i], mine) == 0;
        if (!ok)
            snprintf(why, len,
                     "extracted '%s' is none of %d decompositions "
                     "(first: '%s')",
                     mine, b.bf_noutcomes,
                     b.bf_noutcomes ? b.bf_outcomes[0] : "");
        if (b.bf_overflow) {
            ok = false;
            snprintf(why, len, "too many decompositions to enumerate");
        }
        free(p);
    }
    for (int i = 0; i < b.bf_noutcomes; i++)
        free(b.bf_outcomes[i]);
    free(b.bf_flow);
    free(b.bf_units);
    return ok;
}

/* --- random multi-layer networks -----------------------------------------*/

/* Tasks -> up to three aggregator layers (arcs may skip layers) ->
 * machines (some with machine-typed cores) -> sink, and per task an arc to
 * an unscheduled aggregator. */
static fc_graph *random_layers(fct_rng *r)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node sink, unsched, nodes[64];
    int layer_of[64], n = 0;
    int ntasks = (int)fct_rng_range(r, 1, 5);
    int nlayers = (int)fct_rng_range(r, 0, 3);
    int nmachines = (int)fct_rng_range(r, 1, 3);
    fc_arc a;
    int64_t units = 0;
    for (int i = 0; i < ntasks; i++) {
        int64_t s = fct_rng_pct(r, 15) ? 2 : 1;
        fc_node_add(g, s, FC_NODE_TASK, &nodes[n]);
        layer_of[n++] = 0;
        units += s;
    }
    for (int l = 1; l <= nlayers; l++) {
        int k = (int)fct_rng_range(r, 1, 2);
        for (int i = 0; i < k; i++) {
            fc_node_add(g, 0, FC_NODE_AGGREGATOR, &nodes[n]);
            layer_of[n++] = l;
        }
    }
    int first_machine = n;
    for (int i = 0; i < nmachines; i++) {
        fc_node_add(g, 0, FC_NODE_MACHINE, &nodes[n]);
        layer_of[n++] = nlayers + 1;
    }
    fc_node_add(g, -units, FC_NODE_SINK, &sink);
    fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &unsched);
    fc_arc_add(g, unsched, sink, units, 0, &a);
    for (int i = first_machine; i < n; i++) {
        if (fct_rng_pct(r, 30)) {
            /* Two machine-typed cores under this machine. */
            for (int c = 0; c < 2; c++) {
                fc_node core;
                fc_node_add(g, 0, FC_NODE_MACHINE, &core);
                fc_arc_add(g, nodes[i], core, 1, fct_rng_range(r, 0, 3), &a);
                fc_arc_add(g, core, sink, 1, 0, &a);
            }
        } else {
            fc_arc_add(g, nodes[i], sink, fct_rng_range(r, 1, 3),
                       fct_rng_range(r, 0, 3), &a);
        }
    }
    /* Arcs from each node to random nodes of later layers. */
    for (int i = 0; i < first_machine; i++) {
        int outs = (int)fct_rng_range(r, 1, 3);
        for (int k = 0; k < outs; k++) {
            int j = (int)fct_rng_range(r, 0, n - 1);
            if (layer_of[j] <= layer_of[i])
                continue;
            fc_arc_add(g, nodes[i], nodes[j], fct_rng_range(r, 1, 3),
                       fct_rng_range(r, 0, 20), &a);
        }
        if (layer_of[i] == 0)
            fc_arc_add(g, nodes[i], unsched, 2, 60, &a);
    }
    return g;
}

/* --- hand-made cases -----------------------------------------------------*/

/* Two tasks through one aggregator X; one path is a layer longer: X -> R
 * -> M1 and X -> M2. A breadth-first pass would process X before R hands
 * it its unit. */
static void test_uneven_paths(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node t1, t2, x, rk, m1, m2, s;
    fc_node_add(g, 1, FC_NODE_TASK, &t1);
    fc_node_add(g, 1, FC_NODE_TASK, &t2);
    fc_node_add(g, 0, FC_NODE_AGGREGATOR, &x);
    fc_node_add(g, 0, FC_NODE_AGGREGATOR, &rk);
    fc_node_add(g, 0, FC_NODE_MACHINE, &m1);
    fc_node_add(g, 0, FC_NODE_MACHINE, &m2);
    fc_node_add(g, -2, FC_NODE_SINK, &s);
    fc_arc a;
    fc_arc_add(g, t1, x, 1, 1, &a);
    fc_arc_add(g, t2, x, 1, 1, &a);
    fc_arc_add(g, x, rk, 1, 0, &a);
    fc_arc_add(g, rk, m1, 1, 0, &a);
    fc_arc_add(g, x, m2, 1, 0, &a);
    fc_arc_add(g, m1, s, 1, 0, &a);
    fc_arc_add(g, m2, s, 1, 0, &a);
    solve(g);
    fc_placement *p;
    size_t n;
    int rc = fc_placements(g, &p, &n);
    tap_ok(rc == 0 && n == 2 && p[0].pl_task == t1 && p[1].pl_task == t2 &&
               p[0].pl_machine != p[1].pl_machine,
           "paths of different lengths through one aggregator: both placed");
    free(p);
    char why[512];
    tap_ok(matches_brute_force(g, why, sizeof why), "and it decomposes: %s",
           why);
    fc_graph_free(g);
}

/* A task whose flow goes round a cycle of aggregators before its machine,
 * and one left unscheduled. */
static void test_cycle_and_unscheduled(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node t1, t2, a1, a2, m, u, s;
    fc_node_add(g, 1, FC_NODE_TASK, &t1);
    fc_node_add(g, 1, FC_NODE_TASK, &t2);
    fc_node_add(g, 0, FC_NODE_AGGREGATOR, &a1);
    fc_node_add(g, 0, FC_NODE_AGGREGATOR, &a2);
    fc_node_add(g, 0, FC_NODE_MACHINE, &m);
    fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &u);
    fc_node_add(g, -2, FC_NODE_SINK, &s);
    fc_arc e, a12, a21;
    fc_arc_add(g, t1, a1, 1, 1, &e);
    fc_arc_add(g, a1, a2, 5, 0, &a12);
    fc_arc_add(g, a2, a1, 5, 0, &a21);
    fc_arc_add(g, a2, m, 1, 0, &e);
    fc_arc_add(g, m, s, 1, 0, &e);
    fc_arc_add(g, t2, u, 1, 5, &e);
    fc_arc_add(g, u, s, 1, 0, &e);
    solve(g);
    /* Put 3 units around the zero-cost cycle a1 -> a2 -> a1: still an
     * optimal flow. */
    fc_push(g, &g->g_st, 2 * a12, 3);
    fc_push(g, &g->g_st, 2 * a21, 3);
    char err[128];
    int64_t cost = fc_graph_flow_cost(g);
    fc_placement *p;
    size_t n;
    int rc = fc_placements(g, &p, &n);
    tap_ok(rc == 0 && n == 1 && p[0].pl_task == t1 && p[0].pl_machine == m &&
               p[0].pl_units == 1,
           "a cycle of flow is cancelled; the unscheduled task is not listed");
    tap_ok(fc_arc_flow(g, a12) == 4 && fc_graph_flow_cost(g) == cost &&
               fc_graph_check(g, err, sizeof err) == 0,
           "the graph's own flow is untouched");
    free(p);
    fc_graph_free(g);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    test_uneven_paths();
    test_cycle_and_unscheduled();

    int bad = 0, placed = 0, multi = 0;
    for (int k = 0; k < N_RANDOM; k++) {
        fct_rng r;
        fct_rng_seed(&r, 31337 + (uint64_t)k);
        fc_graph *g = random_layers(&r);
        solve(g);
        char why[8192];
        if (!matches_brute_force(g, why, sizeof why) && bad++ < 4)
            tap_diag("network %d: %s", k, why);
        fc_placement *p;
        size_t n;
        if (fc_placements(g, &p, &n) == 0) {
            placed += (int)n;
            for (size_t i = 0; i < n; i++)
                multi += p[i].pl_units > 1;
            free(p);
        }
        fc_graph_free(g);
    }
    tap_is_int(bad, 0,
               "%d random layered networks: placements are a brute-force "
               "path decomposition",
               N_RANDOM);
    tap_ok(placed > N_RANDOM && multi > 0,
           "the networks placed %d (task, machine) pairs, %d of them with "
           "2 units",
           placed, multi);
    fc_placement *p = (fc_placement *)1;
    size_t n = 99;
    fc_graph *empty;
    fc_graph_new(&empty);
    tap_ok(fc_placements(empty, &p, &n) == 0 && n == 0 && p == NULL,
           "an empty graph places nothing");
    fc_graph_free(empty);
    tap_done();
    return tap_exit_status();
}
