/*
 * test_fc_graph.c - the flowcore graph: adding and removing nodes and arcs,
 * id reuse, argument checks, the flow kept consistent by changes (removal,
 * capacity cuts, draining a finished task to the sink), deep clones, the
 * flow check, and the record of changes.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>

static bool checks(const fc_graph *g)
{
    char err[256];
    if (fc_graph_check(g, err, sizeof err) != 0) {
        tap_diag("%s", err);
        return false;
    }
    return true;
}

static void test_ids_and_arguments(void)
{
    fc_graph *g;
    tap_is_int(fc_graph_new(&g), 0, "new graph");
    fc_node a, b, c, d;
    fc_node_add(g, 0, FC_NODE_OTHER, &a);
    fc_node_add(g, 0, FC_NODE_TASK, &b);
    fc_node_add(g, 0, FC_NODE_MACHINE, &c);
    tap_ok(a == 0 && b == 1 && c == 2 && fc_graph_node_count(g) == 3 &&
               fc_graph_node_bound(g) == 3,
           "dense node ids");
    fc_arc x, y, z;
    fc_arc_add(g, a, b, 4, 1, &x);
    fc_arc_add(g, a, b, 5, 2, &y);  /* parallel */
    fc_arc_add(g, c, c, 1, -1, &z); /* self-loop */
    tap_ok(fc_arc_find(g, a, b) == y && fc_arc_find(g, b, a) == FC_NONE,
           "fc_arc_find returns the last parallel arc, none reversed");
    tap_ok(fc_node_degree(g, a) == 2 && fc_node_degree(g, c) == 2,
           "degrees count both ends, a self-loop twice");
    tap_is_int(fc_node_remove(g, b), 0, "remove a node");
    tap_ok(!fc_node_exists(g, b) && !fc_arc_exists(g, x) &&
               !fc_arc_exists(g, y) && fc_graph_arc_count(g) == 1 &&
               fc_node_degree(g, a) == 0,
           "its arcs went with it");
    fc_node_add(g, 3, FC_NODE_SINK, &d);
    tap_ok(d == b && fc_node_get_type(g, d) == FC_NODE_SINK &&
               fc_node_supply(g, d) == 3 && fc_node_degree(g, d) == 0,
           "a freed id is reused, fresh");
    fc_arc w;
    fc_arc_add(g, a, d, 1, 0, &w);
    tap_ok(w == x || w == y, "a freed arc id is reused");
    tap_ok(fc_graph_node_bound(g) == 3 && fc_graph_node_count(g) == 3,
           "bound unchanged by reuse");

    fc_node bad;
    fc_arc badarc;
    tap_ok(fc_node_add(g, FC_MAX_SUPPLY + 1, FC_NODE_OTHER, &bad) ==
                   FC_EINVAL &&
               fc_node_add(g, 0, (fc_node_type)99, &bad) == FC_EINVAL,
           "supply and type out of range refused");
    tap_ok(fc_arc_add(g, a, 77, 1, 1, &badarc) == FC_EINVAL &&
               fc_arc_add(g, a, c, -1, 1, &badarc) == FC_EINVAL &&
               fc_arc_add(g, a, c, FC_MAX_CAPACITY + 1, 1, &badarc) ==
                   FC_EINVAL &&
               fc_arc_add(g, a, c, 1, FC_MAX_COST + 1, &badarc) == FC_EINVAL,
           "arcs to missing nodes and out-of-range values refused");
    tap_ok(fc_node_remove(g, 77) == FC_EINVAL &&
               fc_node_remove(g, -1) == FC_EINVAL &&
               fc_arc_remove(g, 999) == FC_EINVAL &&
               fc_arc_set_cost(g, z, -FC_MAX_COST - 1) == FC_EINVAL &&
               fc_arc_set_capacity(g, z, -1) == FC_EINVAL &&
               fc_node_set_supply(g, 77, 1) == FC_EINVAL,
           "bad ids and values refused");
    fc_node_remove(g, b);
    tap_is_int(fc_node_remove(g, b), FC_EINVAL, "double removal refused");
    fc_graph_free(g);
}

/* s -> a -> m -> t with a side branch; solve, then change things. */
static void test_flow_consistency(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node s, m, t;
    fc_node_add(g, 3, FC_NODE_TASK, &s);
    fc_node_add(g, 0, FC_NODE_MACHINE, &m);
    fc_node_add(g, -3, FC_NODE_SINK, &t);
    fc_arc sm, mt;
    fc_arc_add(g, s, m, 5, 1, &sm);
    fc_arc_add(g, m, t, 5, 1, &mt);
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    fc_solve(g, &opt, NULL);
    tap_ok(fc_arc_flow(g, sm) == 3 && checks(g) &&
               fc_graph_change_count(g) == 0,
           "solved: 3 units, no changes pending");

    fc_arc_set_capacity(g, mt, 1);
    char err[256];
    tap_ok(fc_arc_flow(g, mt) == 1 && fc_arc_capacity(g, mt) == 1 &&
               fc_graph_check(g, err, sizeof err) == FC_EINVAL &&
               strstr(err, "node 1") != NULL,
           "capacity cut withdraws flow, leaving node 1 unbalanced: %s", err);
    tap_ok(fc_graph_change_count(g) == 1, "the change is recorded");
    opt = fct_options(FC_ALG_SSP, true);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "now infeasible (only 1 unit fits)");
    tap_ok(fc_graph_change_count(g) == SIZE_MAX,
           "a failed solve marks the record lost: the next solve looks at "
           "every arc");
    fc_arc_set_capacity(g, mt, 5);
    tap_ok(fc_solve(g, &opt, NULL) == 0 && checks(g) &&
               fc_graph_flow_cost(g) == 6,
           "widened again: solved incrementally, cost 6");

    fc_arc_remove(g, sm);
    tap_ok(fc_graph_check(g, err, sizeof err) == FC_EINVAL,
           "removing a used arc leaves imbalance: %s", err);
    fc_graph_reset_flow(g);
    tap_ok(fc_graph_change_count(g) == 0 && fc_arc_flow(g, mt) == 0 &&
               fc_node_price(g, m) == 0,
           "reset clears flow, prices and the record");
    fc_graph_free(g);
}

/* Draining: three tasks through a machine to the sink; finishing one
 * moves only the sink's demand. */
static void test_drain(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node t[3], u, m, sink;
    fc_node_add(g, -3, FC_NODE_SINK, &sink);
    fc_node_add(g, 0, FC_NODE_MACHINE, &m);
    fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &u);
    fc_arc a;
    fc_arc_add(g, m, sink, 2, 0, &a);
    fc_arc_add(g, u, sink, 10, 0, &a);
    for (int i = 0; i < 3; i++) {
        fc_node_add(g, 1, FC_NODE_TASK, &t[i]);
        fc_arc_add(g, t[i], m, 1, 1 + i, &a);
        fc_arc_add(g, t[i], u, 1, 10, &a);
    }
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    fc_solve(g, &opt, NULL);
    int64_t before = fc_graph_flow_cost(g);
    tap_ok(before == 1 + 2 + 10 && checks(g),
           "two tasks on the machine, one unscheduled");
    tap_is_int(fc_node_remove_drain(g, t[0]), 0, "drain a running task");
    tap_ok(checks(g) && fc_node_supply(g, sink) == -2 &&
               fc_graph_flow_cost(g) == 2 + 10,
           "the flow stays balanced; only the sink's demand moved");
    opt = fct_options(FC_ALG_SSP, true);
    tap_ok(fc_solve(g, &opt, NULL) == 0 && fc_graph_flow_cost(g) == 2 + 3,
           "the next solve moves the waiting task onto the freed slot");
    tap_is_int(fc_node_remove_drain(g, 99), FC_EINVAL, "drain of a bad id");
    fc_graph *c;
    fc_graph_clone(g, &c);
    tap_is_int(fc_node_remove(c, m), 0, "remove the machine");
    tap_ok(fc_solve(c, &opt, NULL) == 0 && checks(c) &&
               fc_graph_flow_cost(c) == 20,
           "its tasks are re-routed to the unscheduled aggregator");
    fc_graph_free(c);
    /* Draining a node that receives flow: its outflow drains to the sink,
     * its inflow is withdrawn and left at the tasks. */
    tap_is_int(fc_node_remove_drain(g, m), 0, "drain the machine itself");
    char err[256];
    tap_ok(fc_node_supply(g, sink) == 0 &&
               fc_graph_check(g, err, sizeof err) == FC_EINVAL &&
               strstr(err, "supply + inflow - outflow = 1") != NULL,
           "the sink's demand fell by 2, the tasks keep theirs: %s", err);
    fc_graph_free(g);
}

/* A clone is deep: solving and changing it leaves the original alone. */
static void test_clone(void)
{
    fct_rng r;
    fct_rng_seed(&r, 42);
    fct_sched s;
    if (fct_sched_build(&r, 12, 4, 3, 10, 2, &s) != 0)
        tap_bail_out("cannot build");
    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    fc_solve(s.sc_g, &opt, NULL);
    fct_sched_finish_task(&s, 0);
    fc_graph *c;
    tap_is_int(fc_graph_clone(s.sc_g, &c), 0, "clone");
    tap_ok(fc_graph_node_count(c) == fc_graph_node_count(s.sc_g) &&
               fc_graph_arc_count(c) == fc_graph_arc_count(s.sc_g) &&
               fc_graph_flow_cost(c) == fc_graph_flow_cost(s.sc_g) &&
               fc_graph_change_count(c) == fc_graph_change_count(s.sc_g),
           "same nodes, arcs, flow and pending changes");
    int64_t cost = fc_graph_flow_cost(s.sc_g);
    int32_t arcs = fc_graph_arc_count(s.sc_g);
    opt = fct_options(FC_ALG_SSP, true);
    fc_solve(c, &opt, NULL);
    fc_node v;
    fc_node_add(c, 0, FC_NODE_OTHER, &v);
    fc_node_remove(c, s.sc_sink);
    tap_ok(fc_graph_flow_cost(s.sc_g) == cost &&
               fc_graph_arc_count(s.sc_g) == arcs &&
               fc_node_exists(s.sc_g, s.sc_sink),
           "changing the clone leaves the original alone");
    fc_solve(s.sc_g, &opt, NULL);
    tap_ok(checks(s.sc_g), "the original still solves");
    fc_graph_free(c);
    fct_sched_free(&s);
}

static void test_algorithm_names(void)
{
    int ok = 1;
    for (int i = 0; i <= FC_ALG_RACE; i++) {
        fc_algorithm back;
        if (fc_algorithm_parse(fc_algorithm_name((fc_algorithm)i), &back) !=
                0 ||
            back != (fc_algorithm)i)
            ok = 0;
    }
    fc_algorithm x;
    tap_ok(ok && fc_algorithm_parse("simplex", &x) == FC_EINVAL,
           "algorithm names parse back; unknown names refused");
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_ids_and_arguments();
    test_flow_consistency();
    test_drain();
    test_clone();
    test_algorithm_names();
    tap_done();
    return tap_exit_status();
}
