/*
 * test_gen_quincy.c - the solver benchmark's graph generator
 * (bench/gen_quincy): the shape of Quincy and load-spreading networks,
 * feasibility, determinism by seed, and rounds of events that keep the
 * sink's demand right and replay identically on clones, solved or not.
 */
#include "flowcore.h"
#include "gen_quincy.h"
#include "solver_fc.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Do two graphs have the same nodes, supplies and arcs? */
static bool same_graph(const fc_graph *a, const fc_graph *b)
{
    bf_export x, y;
    if (bf_export_graph(a, &x) != 0)
        return false;
    if (bf_export_graph(b, &y) != 0) {
        bf_export_free(&x);
        return false;
    }
    bool same = x.be_nodes == y.be_nodes && x.be_arcs == y.be_arcs;
    size_t n = (size_t)x.be_nodes, m = (size_t)x.be_arcs;
    same = same && memcmp(x.be_supply, y.be_supply, n * sizeof(int64_t)) == 0 &&
           memcmp(x.be_src, y.be_src, m * sizeof(int32_t)) == 0 &&
           memcmp(x.be_dst, y.be_dst, m * sizeof(int32_t)) == 0 &&
           memcmp(x.be_cap, y.be_cap, m * sizeof(int64_t)) == 0 &&
           memcmp(x.be_cost, y.be_cost, m * sizeof(int64_t)) == 0;
    bf_export_free(&x);
    bf_export_free(&y);
    return same;
}

static fc_node find_sink(const fc_graph *g)
{
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++)
        if (fc_node_exists(g, v) && fc_node_get_type(g, v) == FC_NODE_SINK)
            return v;
    return FC_NONE;
}

static int solve(fc_graph *g, bool incremental)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    opt.so_incremental = incremental;
    return fc_solve(g, &opt, NULL);
}

/* Walk a Quincy graph and check its shape against the summary. */
static void test_quincy_shape(void)
{
    gq_params p;
    gq_params_init(&p, GQ_QUINCY, 200, 0.9, 11);
    fc_graph *g;
    gq_world *w;
    if (!tap_ok(gq_build(&p, &g, &w) == 0, "quincy: builds"))
        return;
    gq_summary s;
    gq_world_summary(w, &s);
    tap_is_int(s.gs_tasks, 2400, "quincy: 12 tasks per machine");
    tap_is_int(s.gs_racks, 5, "quincy: racks of 40");
    tap_is_int(s.gs_slots, 2667, "quincy: slots = tasks / utilisation");
    tap_is_int(s.gs_running, 2160, "quincy: 90%% of the tasks run");
    fc_node sink = find_sink(g);
    tap_is_int(fc_node_supply(g, sink), -s.gs_tasks,
               "quincy: the sink's demand is the task count");

    /* The cluster aggregator X is the aggregator that feeds aggregators
     * (the racks). */
    fc_node x = FC_NONE;
    for (fc_node v = 0; v < fc_graph_node_bound(g) && x == FC_NONE; v++) {
        if (!fc_node_exists(g, v) ||
            fc_node_get_type(g, v) != FC_NODE_AGGREGATOR)
            continue;
        for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
            bool outgoing;
            fc_arc a = fc_node_arc(g, v, i, &outgoing);
            if (outgoing &&
                fc_node_get_type(g, fc_arc_dst(g, a)) == FC_NODE_AGGREGATOR)
                x = v;
        }
    }
    tap_ok(x != FC_NONE, "quincy: a cluster aggregator feeds the racks");

    int64_t tasks = 0, bad_task = 0, machine_slots = 0, prefs = 0;
    int64_t dearer = 0;
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++) {
        if (!fc_node_exists(g, v))
            continue;
        fc_node_type t = fc_node_get_type(g, v);
        if (t == FC_NODE_MACHINE) {
            fc_arc a = fc_arc_find(g, v, sink);
            machine_slots += a == FC_NONE ? 0 : fc_arc_capacity(g, a);
        }
        if (t != FC_NODE_TASK)
            continue;
        tasks++;
        int unsched = 0, cluster = 0, out = 0, odd = 0;
        int64_t cluster_cost = 0;
        for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
            bool outgoing;
            fc_arc a = fc_node_arc(g, v, i, &outgoing);
            fc_node d = fc_arc_dst(g, a);
            out += outgoing;
            if (!outgoing || fc_arc_capacity(g, a) != 1)
                odd++;
            else if (fc_node_get_type(g, d) == FC_NODE_UNSCHEDULED)
                unsched++;
            else if (d == x) {
                cluster++;
                cluster_cost = fc_arc_cost(g, a);
            }
        }
        /* Preference and running arcs never cost more than the cluster
         * arc, whose cost assumes all the input crosses the core. */
        for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
            bool outgoing;
            fc_arc a = fc_node_arc(g, v, i, &outgoing);
            fc_node d = fc_arc_dst(g, a);
            fc_node_type dt = fc_node_get_type(g, d);
            if (!outgoing || d == x ||
                (dt != FC_NODE_AGGREGATOR && dt != FC_NODE_MACHINE))
                continue;
            prefs++;
            if (fc_arc_cost(g, a) > cluster_cost)
                dearer++;
        }
        /* unscheduled + cluster + at most 10 preferences + running */
        if (unsched != 1 || cluster != 1 || odd != 0 || out > 13 ||
            fc_node_supply(g, v) != 1)
            bad_task++;
    }
    tap_is_int(tasks, s.gs_tasks, "quincy: task nodes match the summary");
    tap_is_int(bad_task, 0,
               "quincy: every task has supply 1, one unscheduled arc, one "
               "cluster arc, unit arcs out only, at most 10 preferences");
    tap_is_int(machine_slots, s.gs_slots,
               "quincy: machine -> sink capacities sum to the slots");
    tap_is_int(prefs, s.gs_pref_arcs + s.gs_running,
               "quincy: preference and running arcs match the summary");
    tap_is_int(dearer, 0,
               "quincy: no machine or rack arc of a task costs "
               "more than its cluster arc");
    tap_is_int(solve(g, false), 0, "quincy: feasible (ssp solves it)");
    char err[160];
    tap_is_int(fc_graph_check(g, err, sizeof err), 0, "quincy: flow checks");
    fc_graph_free(g);
    gq_world_free(w);
}

static void test_determinism(void)
{
    gq_params p;
    gq_params_init(&p, GQ_QUINCY, 120, 0.5, 5);
    fc_graph *a, *b, *c;
    gq_world *wa, *wb, *wc;
    int rc = gq_build(&p, &a, &wa);
    rc |= gq_build(&p, &b, &wb);
    p.gp_seed = 6;
    rc |= gq_build(&p, &c, &wc);
    if (!tap_ok(rc == 0, "seed: builds"))
        return;
    tap_ok(same_graph(a, b), "seed: the same seed gives the same graph");
    tap_ok(!same_graph(a, c), "seed: another seed gives another graph");
    fc_graph_free(a);
    fc_graph_free(b);
    fc_graph_free(c);
    gq_world_free(wa);
    gq_world_free(wb);
    gq_world_free(wc);
}

/* Rounds applied to a solved graph (incremental ssp) and to an unsolved
 * clone give the same graph and the same optimum as a fresh solve. */
static void test_rounds(void)
{
    gq_params p;
    gq_params_init(&p, GQ_QUINCY, 120, 0.9, 3);
    fc_graph *g, *ref;
    gq_world *w, *wref;
    if (!tap_ok(gq_build(&p, &g, &w) == 0, "rounds: builds"))
        return;
    bool ok = fc_graph_clone(g, &ref) == 0 && gq_world_clone(w, &wref) == 0;
    if (!tap_ok(ok, "rounds: clones"))
        return;
    tap_is_int(solve(g, false), 0, "rounds: base solves");
    sk_rng r1, r2;
    sk_rng_seed(&r1, 99);
    sk_rng_seed(&r2, 99);
    int bad_rc = 0, bad_graph = 0, bad_sink = 0, bad_cost = 0, bad_check = 0;
    int arrivals = 0, completions = 0, new_jobs = 0;
    for (int round = 0; round < 8; round++) {
        gq_round_stats s1, s2;
        int32_t events = round % 2 ? 40 : 7;
        if (gq_round(w, g, events, &r1, &s1) != 0 ||
            gq_round(wref, ref, events, &r2, &s2) != 0) {
            bad_rc++;
            break;
        }
        arrivals += s1.gr_arrivals;
        completions += s1.gr_completions;
        new_jobs += s1.gr_new_jobs;
        if (!same_graph(g, ref))
            bad_graph++;
        gq_summary s;
        gq_world_summary(w, &s);
        if (fc_node_supply(g, find_sink(g)) != -s.gs_tasks)
            bad_sink++;
        if (solve(g, true) != 0 || solve(ref, false) != 0) {
            bad_rc++;
            break;
        }
        char err[160];
        if (fc_graph_check(g, err, sizeof err) != 0)
            bad_check++;
        if (fc_graph_flow_cost(g) != fc_graph_flow_cost(ref))
            bad_cost++;
    }
    tap_is_int(bad_rc, 0, "rounds: every round applies and solves");
    tap_ok(arrivals > 0 && completions > 0 && new_jobs > 0,
           "rounds: arrivals (%d, %d new jobs) and completions (%d)", arrivals,
           new_jobs, completions);
    tap_is_int(bad_graph, 0,
               "rounds: a solved graph and an unsolved clone "
               "see the same changes");
    tap_is_int(bad_sink, 0, "rounds: the sink's demand follows the tasks");
    tap_is_int(bad_check, 0, "rounds: incremental flows check");
    tap_is_int(bad_cost, 0, "rounds: incremental optimum = fresh optimum");
    fc_graph_free(g);
    fc_graph_free(ref);
    gq_world_free(w);
    gq_world_free(wref);
}

static void test_spread(void)
{
    gq_params p;
    gq_params_init(&p, GQ_SPREAD, 100, 0.5, 8);
    p.gp_new_job_tasks = 500;
    fc_graph *g;
    gq_world *w;
    if (!tap_ok(gq_build(&p, &g, &w) == 0, "spread: builds"))
        return;
    gq_summary s;
    gq_world_summary(w, &s);
    tap_is_int(s.gs_tasks, 1200 + 500, "spread: background plus the new job");
    tap_is_int(s.gs_running, 1200, "spread: the background runs");
    /* One arc per free slot from the aggregator. */
    fc_node x = FC_NONE;
    for (fc_node v = 0; v < fc_graph_node_bound(g) && x == FC_NONE; v++)
        if (fc_node_exists(g, v) &&
            fc_node_get_type(g, v) == FC_NODE_AGGREGATOR)
            x = v;
    int32_t out = 0;
    for (int32_t i = 0; i < fc_node_degree(g, x); i++) {
        bool outgoing;
        fc_node_arc(g, x, i, &outgoing);
        out += outgoing;
    }
    tap_is_int(out, s.gs_slots - s.gs_running,
               "spread: an aggregator arc per free slot");
    tap_is_int(solve(g, false), 0, "spread: feasible");
    /* Room for all: no new task stays unscheduled, and the load is spread
     * (a convex cost: no machine takes two more before all took one). */
    int64_t unscheduled = 0;
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a) &&
            fc_node_get_type(g, fc_arc_src(g, a)) == FC_NODE_UNSCHEDULED)
            unscheduled += fc_arc_flow(g, a);
    tap_is_int(unscheduled, 0, "spread: every task is placed");
    /* The optimum levels the load: a machine that took new tasks ends
     * at most one above the least loaded machine. */
    int64_t lo = INT64_MAX, hi_new = 0;
    fc_node sink = find_sink(g);
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++) {
        if (!fc_node_exists(g, v) || fc_node_get_type(g, v) != FC_NODE_MACHINE)
            continue;
        int64_t load = fc_arc_flow(g, fc_arc_find(g, v, sink)), fresh = 0;
        for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
            bool outgoing;
            fc_arc a = fc_node_arc(g, v, i, &outgoing);
            if (!outgoing && fc_arc_src(g, a) == x)
                fresh += fc_arc_flow(g, a);
        }
        lo = load < lo ? load : lo;
        if (fresh > 0 && load > hi_new)
            hi_new = load;
    }
    tap_ok(hi_new > 0 && hi_new <= lo + 1,
           "spread: the load is levelled (least loaded %lld, most loaded "
           "machine that took new tasks %lld)",
           (long long)lo, (long long)hi_new);
    sk_rng rng;
    sk_rng_seed(&rng, 1);
    gq_round_stats st;
    tap_is_int(gq_round(w, g, 5, &rng, &st), FC_EINVAL,
               "spread: has no rounds");
    fc_graph_free(g);
    gq_world_free(w);
}

static void test_invalid(void)
{
    gq_params p;
    fc_graph *g = NULL;
    gq_world *w = NULL;
    gq_params_init(&p, GQ_QUINCY, 0, 0.9, 1);
    tap_is_int(gq_build(&p, &g, &w), FC_EINVAL, "invalid: no machines");
    gq_params_init(&p, GQ_QUINCY, 10, 0.9, 1);
    p.gp_rack_size = 2;
    tap_is_int(gq_build(&p, &g, &w), FC_EINVAL, "invalid: racks of 2");
    gq_params_init(&p, GQ_QUINCY, 10, 0.9, 1);
    p.gp_max_prefs = 1000;
    tap_is_int(gq_build(&p, &g, &w), FC_EINVAL, "invalid: 1000 preferences");
    gq_params_init(&p, GQ_SPREAD, 10, 1.5, 1);
    tap_is_int(gq_build(&p, &g, &w), FC_EINVAL,
               "invalid: an oversubscribed load-spreading background");
    tap_ok(g == NULL && w == NULL, "invalid: nothing handed back");
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    test_quincy_shape();
    test_determinism();
    test_rounds();
    test_spread();
    test_invalid();
    tap_done();
    return tap_exit_status();
}
