/*
 * test_fc_ssp.c - successive shortest path on small hand-made networks
 * whose optimum is known: negative costs, parallel arcs, infeasibility,
 * incremental re-solves and cancellation. Every flow is checked for
 * capacities, balance, its cost and optimality (fct_flow_ok).
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <stdio.h>

/* Two routes from s to t: cheap and narrow, dear and wide. */
static void test_two_routes(void)
{
    fct_routes r;
    fc_graph *g = fct_two_routes(&r);
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    fct_solve_is(g, &opt, 2 * 2 + 3 * 6, "two routes");
    tap_is_int(fc_arc_flow(g, r.rt_sa), 2, "two routes: cheap route full");
    tap_ok(fct_flow_ok(g, 2 * 2 + 3 * 6), "two routes: flow checks");

    /* Make the cheap route wider and re-solve from the last optimum. */
    fc_arc_set_capacity(g, r.rt_sa, 5);
    opt = fct_options(FC_ALG_SSP, true);
    fct_solve_is(g, &opt, 10, "incremental, everything on the cheap route");
    tap_ok(fct_flow_ok(g, 10), "incremental: flow checks");

    /* Now make the cheap route dear: flow must move back. */
    fc_arc_set_cost(g, r.rt_at, 100);
    fct_solve_is(g, &opt, 30, "cost raised, flow moved to the other route");
    tap_ok(fct_flow_ok(g, 30), "cost raised: flow checks");
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
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
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
    fc_cancel *stop;
    if (fc_cancel_new(&stop) != 0)
        tap_bail_out("out of memory");
    fc_cancel_set(stop, true);
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    opt.so_cancel = stop;
    tap_is_int(fc_solve(g, &opt, NULL), FC_ECANCELED, "cancelled up front");
    tap_is_int(fc_arc_flow(g, a), 0,
               "cancelled before any work: no flow moved");
    fc_cancel_free(stop);
    fc_graph_free(g);
}

int main(void)
{
    tap_timeout(30);
    tap_plan(19);
    test_two_routes();
    fct_check_negative_cycle(FC_ALG_SSP);
    test_infeasible();
    test_cancel();
    return tap_exit_status();
}
