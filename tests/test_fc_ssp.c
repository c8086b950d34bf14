/*
 * test_fc_ssp.c - successive shortest path on small hand-made networks
 * whose optimum is known: negative costs, parallel arcs, infeasibility,
 * incremental re-solves and cancellation.
 */
#include "flowcore.h"
#include "tap.h"

#include <stdio.h>

static fc_solve_options ssp_options(bool incremental)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    opt.so_incremental = incremental;
    return opt;
}

static bool flow_ok(const fc_graph *g)
{
    char err[256];
    if (fc_graph_check(g, err, sizeof err) != 0) {
        tap_diag("check: %s", err);
        return false;
    }
    return true;
}

/* Two routes from s to t: cheap and narrow, dear and wide. */
static void test_two_routes(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node s, a, b, t;
    fc_node_add(g, 5, FC_NODE_OTHER, &s);
    fc_node_add(g, 0, FC_NODE_OTHER, &a);
    fc_node_add(g, 0, FC_NODE_OTHER, &b);
    fc_node_add(g, -5, FC_NODE_OTHER, &t);
    fc_arc sa, at, sb, bt;
    fc_arc_add(g, s, a, 2, 1, &sa);
    fc_arc_add(g, a, t, 10, 1, &at);
    fc_arc_add(g, s, b, 10, 3, &sb);
    fc_arc_add(g, b, t, 10, 3, &bt);
    fc_solve_options opt = ssp_options(false);
    fc_solve_stats stats;
    tap_is_int(fc_solve(g, &opt, &stats), 0, "two routes: solved");
    tap_is_int(stats.ss_cost, 2 * 2 + 3 * 6, "two routes: optimal cost 22");
    tap_is_int(fc_arc_flow(g, sa), 2, "two routes: cheap route full");
    tap_ok(flow_ok(g), "two routes: flow checks");

    /* Make the cheap route wider and re-solve from the last optimum. */
    fc_arc_set_capacity(g, sa, 5);
    opt = ssp_options(true);
    tap_is_int(fc_solve(g, &opt, &stats), 0, "incremental: solved");
    tap_is_int(stats.ss_cost, 10, "incremental: everything on the cheap route");
    tap_ok(flow_ok(g), "incremental: flow checks");

    /* Now make the cheap route dear: flow must move back. */
    fc_arc_set_cost(g, at, 100);
    tap_is_int(fc_solve(g, &opt, &stats), 0, "cost raised: solved");
    tap_is_int(stats.ss_cost, 30, "cost raised: flow moved to the other route");
    tap_ok(flow_ok(g), "cost raised: flow checks");
    fc_graph_free(g);
}

/* A negative cycle with room must be saturated even with no supply. */
static void test_negative_cycle(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node a, b, c;
    fc_node_add(g, 0, FC_NODE_OTHER, &a);
    fc_node_add(g, 0, FC_NODE_OTHER, &b);
    fc_node_add(g, 0, FC_NODE_OTHER, &c);
    fc_arc x;
    fc_arc_add(g, a, b, 4, -5, &x);
    fc_arc_add(g, b, c, 3, 1, &x);
    fc_arc_add(g, c, a, 9, 1, &x);
    fc_arc_add(g, a, a, 2, -1, &x); /* a negative self-loop */
    fc_solve_options opt = ssp_options(false);
    fc_solve_stats stats;
    tap_is_int(fc_solve(g, &opt, &stats), 0, "negative cycle: solved");
    tap_is_int(stats.ss_cost, 3 * -3 - 2, "negative cycle: cycle saturated");
    tap_ok(flow_ok(g), "negative cycle: flow checks");
    fc_graph_free(g);
}

static void test_infeasible(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node s, t, u;
    fc_node_add(g, 3, FC_NODE_OTHER, &s);
    fc_node_add(g, -3, FC_NODE_OTHER, &t);
    fc_arc a;
    fc_arc_add(g, s, t, 2, 1, &a);
    fc_solve_options opt = ssp_options(false);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "too little capacity: infeasible");
    char err[128];
    tap_ok(fc_arc_flow(g, a) <= 2 && fc_graph_check(g, err, sizeof err) != 0,
           "infeasible: capacities respected, balance not met");
    fc_arc_set_capacity(g, a, 3);
    tap_is_int(fc_solve(g, &opt, NULL), 0, "widened: feasible");
    fc_node_add(g, -1, FC_NODE_OTHER, &u);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "unbalanced supplies: infeasible");
    fc_graph_free(g);
}

static void test_cancel(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node s, t;
    fc_node_add(g, 1, FC_NODE_OTHER, &s);
    fc_node_add(g, -1, FC_NODE_OTHER, &t);
    fc_arc a;
    fc_arc_add(g, s, t, 1, 1, &a);
    atomic_bool stop = true;
    fc_solve_options opt = ssp_options(false);
    opt.so_cancel = &stop;
    tap_is_int(fc_solve(g, &opt, NULL), FC_ECANCELED, "cancelled up front");
    tap_is_int(fc_arc_flow(g, a), 0,
               "cancelled before any work: no flow moved");
    fc_graph_free(g);
}

int main(void)
{
    tap_timeout(30);
    tap_plan(19);
    test_two_routes();
    test_negative_cycle();
    test_infeasible();
    test_cancel();
    return tap_exit_status();
}
