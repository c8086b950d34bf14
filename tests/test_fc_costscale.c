/*
 * test_fc_costscale.c - the cost-scaling solver: hand-made networks with a
 * known optimum (negative cycles, self-loops, infeasibility found up front
 * and during the solve, cancellation, bad alpha), the same optimum for
 * every scaling factor, optimal prices, and incremental solving: after
 * rounds of random changes to scheduling and generic networks (task
 * arrivals and completions, machine removal, cost and capacity changes
 * both ways, arcs added and removed, supply changes, infeasible rounds,
 * too many changes to record, a start from another solver's solution,
 * old prices further apart than the new costs) the incremental result
 * equals a from-scratch solve and carries an optimality certificate. A
 * few scheduling networks are also checked against LEMON.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Every residual arc has a non-negative reduced cost under g's prices: the
 * prices certify the flow optimal. Describes the first violation in err. */
static bool prices_optimal(const fc_graph *g, char *err, size_t len)
{
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++) {
        if (!fc_arc_exists(g, a))
            continue;
        fc_node s = fc_arc_src(g, a), t = fc_arc_dst(g, a);
        int64_t rc =
            fc_arc_cost(g, a) - fc_node_price(g, s) + fc_node_price(g, t);
        int64_t flow = fc_arc_flow(g, a);
        if ((flow < fc_arc_capacity(g, a) && rc < 0) || (flow > 0 && rc > 0)) {
            snprintf(err, len,
                     "arc %d (%d -> %d) flow %" PRId64 "/%" PRId64
                     " reduced cost %" PRId64,
                     a, s, t, flow, fc_arc_capacity(g, a), rc);
            return false;
        }
    }
    return true;
}

static fc_graph *new_graph(void)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory");
    return g;
}

static fc_node node(fc_graph *g, int64_t supply)
{
    fc_node v;
    if (fc_node_add(g, supply, FC_NODE_OTHER, &v) != 0)
        tap_bail_out("fc_node_add");
    return v;
}

static fc_arc arc(fc_graph *g, fc_node s, fc_node t, int64_t cap, int64_t cost)
{
    fc_arc a;
    if (fc_arc_add(g, s, t, cap, cost, &a) != 0)
        tap_bail_out("fc_arc_add");
    return a;
}

static void test_small(void)
{
    fct_routes r;
    fc_graph *g = fct_two_routes(&r);
    fc_node s = r.rt_s, t = r.rt_t;
    fc_arc sa = r.rt_sa, at = r.rt_at;
    arc(g, r.rt_b, r.rt_b, 3, 2);  /* a dear self-loop: must stay empty */
    arc(g, r.rt_a, r.rt_a, 2, -4); /* a cheap one: must be full */
    fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, false);
    char err[256];
    fct_solve_is(g, &opt, 2 * 2 + 3 * 6 - 8, "two routes, the optimum");
    tap_is_int(fc_arc_flow(g, sa), 2, "two routes: cheap route full");
    tap_ok(fct_check_flow(g, 2 * 2 + 3 * 6 - 8, true, err, sizeof err) &&
               prices_optimal(g, err, sizeof err),
           "two routes: flow and prices optimal %s", err);

    opt.so_incremental = true;
    fc_arc_set_capacity(g, sa, 5);
    fct_solve_is(g, &opt, 10 - 8, "capacity raised, all on the cheap route");
    fc_arc_set_cost(g, at, 100);
    fct_solve_is(g, &opt, 30 - 8, "cost raised, flow moved back");
    tap_ok(prices_optimal(g, err, sizeof err), "cost raised: prices %s", err);

    /* Balanced supplies that the arcs cannot carry: found while solving. */
    fc_arc_set_capacity(g, at, 0);
    fc_node_set_supply(g, s, 30);
    fc_node_set_supply(g, t, -30);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "too little capacity: infeasible");
    tap_ok(fc_graph_check(g, err, sizeof err) != 0 &&
               fc_arc_flow(g, sa) <= fc_arc_capacity(g, sa),
           "infeasible: capacities respected, balance not met");
    /* The next incremental solve must not trust that state. */
    fc_node_set_supply(g, s, 5);
    fc_node_set_supply(g, t, -5);
    fct_solve_is(g, &opt, 30 - 8, "supplies lowered, solved again optimally");

    fc_node u = node(g, -1);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "unbalanced supplies: infeasible");
    fc_node_remove(g, u);
    fc_node v = node(g, 2), w = node(g, -2); /* no arc at all */
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "isolated supply: infeasible");
    arc(g, v, w, 2, -7);
    fct_solve_is(g, &opt, 30 - 8 - 14, "isolated supply connected, optimal");

    opt.so_alpha = 1;
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINVAL, "alpha 1 refused");
    opt.so_alpha = -3;
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINVAL, "negative alpha refused");
    fc_graph_free(g);

    g = new_graph();
    s = node(g, 1);
    t = node(g, -1);
    sa = arc(g, s, t, 1, 1);
    fc_cancel *stop;
    if (fc_cancel_new(&stop) != 0)
        tap_bail_out("out of memory");
    fc_cancel_set(stop, true);
    opt = fct_options(FC_ALG_COST_SCALING, false);
    opt.so_cancel = stop;
    tap_is_int(fc_solve(g, &opt, NULL), FC_ECANCELED, "cancelled up front");
    tap_is_int(fc_arc_flow(g, sa), 0, "cancelled: no flow moved");
    fc_cancel_free(stop);
    fc_graph_free(g);
}

static void test_alpha(void)
{
    static const int alphas[] = {2, 3, 5, 8, 16, 32, 100, 1024};
    int bad = 0;
    for (int seed = 0; seed < 6; seed++) {
        fct_rng r;
        fct_rng_seed(&r, 77 + (uint64_t)seed);
        fct_sched s;
        if (fct_sched_build(&r, 40, 8, 12, 10, 3, &s) != 0)
            tap_bail_out("fct_sched_build");
        fc_int128 want, got;
        if (fct_solve_fresh(s.sc_g, FC_ALG_SSP, &want) != 0)
            bad++;
        for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++) {
            fc_graph *c;
            if (fc_graph_clone(s.sc_g, &c) != 0)
                tap_bail_out("out of memory");
            fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, false);
            opt.so_alpha = alphas[i];
            fc_solve_stats st;
            int rc = fc_solve(c, &opt, &st);
            got = st.ss_cost;
            char err[256] = "";
            if (rc != 0 || got != want ||
                !fct_check_flow(c, got, false, err, sizeof err)) {
                if (bad++ < 5)
                    tap_diag("seed %d alpha %d: rc %d cost %" PRId64
                             " want %" PRId64 " %s",
                             seed, alphas[i], rc, (int64_t)got, (int64_t)want,
                             err);
            }
            fc_graph_free(c);
        }
        fct_sched_free(&s);
    }
    tap_is_int(bad, 0, "every alpha from 2 to 1024 finds the SSP optimum");
}

/* Compare g's incremental cost-scaling solve with from-scratch SSP on a
 * copy (fct_matches_ssp); a feasible round's prices must certify the
 * optimum too. Returns NULL or what went wrong, in buf. */
static const char *round_check(fc_graph *g, char *buf, size_t len)
{
    fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, true);
    fc_solve_stats st;
    int want_rc;
    if (!fct_matches_ssp(g, &opt, &st, &want_rc, buf, len))
        return buf;
    if (want_rc == 0 && !prices_optimal(g, buf, len))
        return buf;
    return NULL;
}

/* One scheduler-like event on s. */
static void sched_event(fct_rng *r, fct_sched *s)
{
    fc_graph *g = s->sc_g;
    int kind = (int)fct_rng_range(r, 0, 9);
    fc_arc a;
    int32_t i;
    switch (kind) {
    case 0:
    case 1:
    case 2:
        fct_sched_add_task(r, s, (int32_t)fct_rng_range(r, 0, s->sc_njobs - 1));
        break;
    case 3:
    case 4:
        i = (int32_t)fct_rng_range(r, 0, s->sc_ntasks - 1);
        if (s->sc_tasks[i] != FC_NONE)
            fct_sched_finish_task(s, i);
        break;
    case 5:
        i = (int32_t)fct_rng_range(r, 0, s->sc_nmachines - 1);
        if (s->sc_machines[i] != FC_NONE && fct_rng_pct(r, 30))
            fct_sched_remove_machine(s, i);
        break;
    case 6: /* cost up or down */
        if ((a = fct_random_arc(r, g)) != FC_NONE)
            fc_arc_set_cost(g, a, fct_rng_range(r, -20, 500));
        break;
    case 7: /* capacity down (maybe below the flow) or up */
        if ((a = fct_random_arc(r, g)) != FC_NONE) {
            int64_t c = fc_arc_capacity(g, a);
            fc_arc_set_capacity(g, a,
                                fct_rng_pct(r, 50) ? c / 2 : c + 1 + c / 2);
        }
        break;
    case 8: /* a new preference arc */
        i = (int32_t)fct_rng_range(r, 0, s->sc_ntasks - 1);
        int32_t m = (int32_t)fct_rng_range(r, 0, s->sc_nmachines - 1);
        if (s->sc_tasks[i] != FC_NONE && s->sc_machines[m] != FC_NONE)
            fc_arc_add(g, s->sc_tasks[i], s->sc_machines[m], 1,
                       fct_rng_range(r, -5, 60), &a);
        break;
    default: /* an arc goes */
        if ((a = fct_random_arc(r, g)) != FC_NONE && fct_rng_pct(r, 50))
            fc_arc_remove(g, a);
        break;
    }
}

static void test_incremental_sched(void)
{
    int rounds = 0, bad = 0, infeasible = 0;
    for (int seed = 0; seed < 12; seed++) {
        fct_rng r;
        fct_rng_seed(&r, 500 + (uint64_t)seed);
        fct_sched s;
        int64_t slots = fct_rng_range(&r, 1, 4);
        if (fct_sched_build(&r, (int32_t)fct_rng_range(&r, 4, 60), 6,
                            (int32_t)fct_rng_range(&r, 2, 10), 8, slots,
                            &s) != 0)
            tap_bail_out("fct_sched_build");
        fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, false);
        if (fc_solve(s.sc_g, &opt, NULL) != 0)
            bad++;
        for (int k = 0; k < 25; k++) {
            int events = (int)fct_rng_range(&r, 1, k % 5 == 4 ? 60 : 8);
            for (int e = 0; e < events; e++)
                sched_event(&r, &s);
            char buf[512];
            const char *why = round_check(s.sc_g, buf, sizeof buf);
            rounds++;
            infeasible += fc_graph_check(s.sc_g, buf, sizeof buf) != 0;
            if (why != NULL && bad++ < 5)
                tap_diag("sched seed %d round %d (%d events): %s", seed, k,
                         events, why);
        }
        fct_sched_free(&s);
    }
    tap_is_int(bad, 0,
               "scheduling networks: incremental equals from scratch in %d "
               "rounds (%d infeasible)",
               rounds, infeasible);
}

/* Random changes to a generic network, keeping supplies balanced. */
static void generic_event(fct_rng *r, fc_graph *g)
{
    int32_t nb = fc_graph_node_bound(g);
    fc_node u = (fc_node)fct_rng_range(r, 0, nb - 1);
    fc_node v = (fc_node)fct_rng_range(r, 0, nb - 1);
    if (!fc_node_exists(g, u) || !fc_node_exists(g, v))
        return;
    fc_arc a;
    switch (fct_rng_range(r, 0, 5)) {
    case 0:
        fc_arc_add(g, u, v, fct_rng_range(r, 0, 20), fct_rng_range(r, -50, 100),
                   &a);
        break;
    case 1:
        if ((a = fct_random_arc(r, g)) != FC_NONE)
            fc_arc_remove(g, a);
        break;
    case 2:
        if ((a = fct_random_arc(r, g)) != FC_NONE)
            fc_arc_set_cost(g, a, fct_rng_range(r, -100, 100));
        break;
    case 3:
        if ((a = fct_random_arc(r, g)) != FC_NONE)
            fc_arc_set_capacity(
                g, a, fct_rng_range(r, 0, 2 * fc_arc_capacity(g, a) + 5));
        break;
    case 4: { /* move some supply from a giver u to a taker v */
        if (fc_node_supply(g, u) <= 0 || fc_node_supply(g, v) >= 0)
            break;
        int64_t d = fct_rng_range(r, 1, 5);
        fc_node_set_supply(g, u, fc_node_supply(g, u) + d);
        fc_node_set_supply(g, v, fc_node_supply(g, v) - d);
        break;
    }
    default: { /* a new node hooked into the network */
        fc_node w;
        if (fc_node_add(g, 0, FC_NODE_OTHER, &w) == 0) {
            fc_arc_add(g, u, w, fct_rng_range(r, 0, 20),
                       fct_rng_range(r, -50, 100), &a);
            fc_arc_add(g, w, v, fct_rng_range(r, 0, 20),
                       fct_rng_range(r, -50, 100), &a);
        }
        break;
    }
    }
}

static void test_incremental_generic(void)
{
    int rounds = 0, bad = 0, infeasible = 0;
    for (int seed = 0; seed < 40; seed++) {
        fct_rng r;
        fct_rng_seed(&r, 9000 + (uint64_t)seed);
        fct_graph_params p;
        fct_params_random(&r, 40, &p);
        p.gp_unbalanced = false;
        p.gp_backbone = true;
        p.gp_max_cost = 100;
        fc_graph *g;
        if (fct_random_graph(&r, &p, &g) != 0)
            tap_bail_out("fct_random_graph");
        /* Start from another solver's optimum now and then; start from
         * feasible networks, so that most rounds stay feasible. */
        fc_solve_options opt = fct_options(
            seed % 3 == 0 ? FC_ALG_SSP : FC_ALG_COST_SCALING, false);
        if (fc_solve(g, &opt, NULL) != 0) {
            fc_graph_free(g);
            continue;
        }
        for (int k = 0; k < 12; k++) {
            int events = (int)fct_rng_range(&r, 1, 10);
            for (int e = 0; e < events; e++)
                generic_event(&r, g);
            char buf[512];
            const char *why = round_check(g, buf, sizeof buf);
            rounds++;
            infeasible += fc_graph_check(g, buf, sizeof buf) != 0;
            if (why != NULL && bad++ < 5)
                tap_diag("generic seed %d round %d: %s", seed, k, why);
        }
        fc_graph_free(g);
    }
    tap_is_int(bad, 0,
               "generic networks: incremental equals from scratch in %d "
               "rounds (%d infeasible)",
               rounds, infeasible);
}

/* So many changes that the graph stops recording them: the solver must
 * treat everything as moved. */
static void test_changes_lost(void)
{
    fct_rng r;
    fct_rng_seed(&r, 4242);
    fct_sched s;
    if (fct_sched_build(&r, 20, 5, 4, 6, 2, &s) != 0)
        tap_bail_out("fct_sched_build");
    fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, false);
    fc_solve(s.sc_g, &opt, NULL);
    for (int e = 0; e < 3000; e++) {
        fc_arc a = fct_random_arc(&r, s.sc_g);
        if (a != FC_NONE)
            fc_arc_set_cost(s.sc_g, a, fct_rng_range(&r, -30, 300));
    }
    fct_sched_add_task(&r, &s, 0);
    tap_ok(fc_graph_change_count(s.sc_g) == SIZE_MAX,
           "3,000 changes: the record overflowed");
    char buf[512];
    const char *why = round_check(s.sc_g, buf, sizeof buf);
    tap_ok(why == NULL, "after the overflow: incremental equals scratch %s",
           why ? why : "");
    fct_sched_free(&s);
}

/* Excess that must climb a price gap far wider than the network's costs,
 * left by an earlier optimum of a dearer network (flowd's rounds do this:
 * its running tasks' escape arcs cost 2^31, and a round without them has
 * costs of at most a few thousand). The arc a -> b of cost 10^6 carries
 * a's unit, so the optimal prices put a at least 10^6 above b and c, b's
 * free neighbour. Then that arc costs 1, the supplies swap and b -> a
 * (cost 1) opens: b's 2 units of excess must rise by the old gap to reach
 * a's deficit, and b and c, relabelled in turn to eps above each other,
 * climb it one small eps per relabel. Without dear the solve starts low
 * (and, should that exceed the bound, starts over high). With dear, an
 * idle arc of cost 5,000 makes the largest cost too large for the low
 * start on so small a network (as in flowd's failing round: 22 nodes,
 * largest cost 1,000) and the solve starts high: from the old prices it
 * ran past the bound on relabels and called the network infeasible. */
static void test_far_prices(bool dear)
{
    fc_graph *g = new_graph();
    fc_node a = node(g, 1), b = node(g, -1);
    fc_node c = node(g, 0);
    fc_arc ab = arc(g, a, b, 1, 1000000);
    arc(g, b, c, 2, 0);
    arc(g, c, b, 2, 0);
    if (dear) {
        fc_node x = node(g, 0);
        arc(g, x, a, 1, 5000);
    }
    fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, true);
    tap_is_int(fc_solve(g, &opt, NULL), 0, "far prices%s: first solve",
               dear ? ", dear arc" : "");
    tap_ok(fc_node_price(g, a) - fc_node_price(g, b) >= 1000000,
           "far prices%s: a priced 10^6 above b", dear ? ", dear arc" : "");
    fc_arc_set_cost(g, ab, 1);
    fc_node_set_supply(g, a, -1);
    fc_node_set_supply(g, b, 1);
    arc(g, b, a, 2, 1);
    fc_solve_stats st;
    int want = 0;
    char why[256] = "";
    tap_ok(fct_matches_ssp(g, &opt, &st, &want, why, sizeof why) && want == 0,
           "far prices%s: incremental solve matches SSP %s",
           dear ? ", dear arc" : "", why);
    char err[256] = "";
    tap_ok(prices_optimal(g, err, sizeof err),
           "far prices%s: prices optimal %s", dear ? ", dear arc" : "", err);
    fc_graph_free(g);
}

/* Medium scheduling networks against LEMON, from scratch. */
static void test_lemon(void)
{
    if (fct_lemon_path() == NULL) {
        tap_skip(1, "DIMACS_SOLVER (LEMON's dimacs-solver) not available");
        return;
    }
    int bad = 0;
    for (int seed = 0; seed < 4; seed++) {
        fct_rng r;
        fct_rng_seed(&r, 31 + (uint64_t)seed);
        fct_sched s;
        if (fct_sched_build(&r, 200, 20, 30, 40, (seed & 1) ? 1 : 6, &s) != 0)
            tap_bail_out("fct_sched_build");
        bool feasible;
        int64_t want;
        char err[256];
        if (fct_lemon_solve(s.sc_g, &feasible, &want, err, sizeof err) != 0) {
            tap_diag("LEMON: %s", err);
            bad++;
        } else {
            fc_solve_options opt = fct_options(FC_ALG_COST_SCALING, false);
            fc_solve_stats st;
            int rc = fc_solve(s.sc_g, &opt, &st);
            if (!feasible || rc != 0 || st.ss_cost != want ||
                !fct_check_flow(s.sc_g, st.ss_cost, true, err, sizeof err)) {
                tap_diag("seed %d: rc %d cost %" PRId64 " LEMON %" PRId64, seed,
                         rc, (int64_t)st.ss_cost, want);
                bad++;
            }
        }
        fct_sched_free(&s);
    }
    tap_is_int(bad, 0, "4 scheduling networks of ~3,000 nodes match LEMON");
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    test_small();
    test_alpha();
    test_incremental_sched();
    test_incremental_generic();
    test_changes_lost();
    test_far_prices(false);
    test_far_prices(true);
    test_lemon();
    tap_done();
    return tap_exit_status();
}
