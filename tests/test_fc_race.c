/*
 * test_fc_race.c - the race solver (relaxation against cost scaling on two
 * threads): the same verdict and optimal cost as successive shortest path
 * on random networks, a winner that is one of the two, incremental rounds
 * on scheduling networks that equal from-scratch solves whichever
 * algorithm produced the previous state, and the caller's cancellation.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_REPORT 5

static fc_solve_options options(fc_algorithm alg, bool incremental)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = alg;
    opt.so_incremental = incremental;
    return opt;
}

static bool capacities_ok(const fc_graph *g)
{
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a) && (fc_arc_flow(g, a) < 0 ||
                                    fc_arc_flow(g, a) > fc_arc_capacity(g, a)))
            return false;
    return true;
}

static int solve_fresh(const fc_graph *g, fc_algorithm alg, int64_t *cost)
{
    fc_graph *c;
    if (fc_graph_clone(g, &c) != 0)
        tap_bail_out("out of memory");
    fc_solve_options opt = options(alg, false);
    fc_solve_stats st;
    int rc = fc_solve(c, &opt, &st);
    *cost = st.ss_cost;
    fc_graph_free(c);
    return rc;
}

static void test_random(void)
{
    int failures = 0, wins[2] = {0, 0}, infeasible = 0;
    const int cases = 300;
    for (int k = 0; k < cases; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 31000 + (uint64_t)k);
        fct_graph_params p;
        fct_params_random(&rng, 120, &p);
        fc_graph *g;
        if (fct_random_graph(&rng, &p, &g) != 0)
            tap_bail_out("cannot build graph %d", k);
        int64_t want;
        int want_rc = solve_fresh(g, FC_ALG_SSP, &want);
        fc_solve_options opt = options(FC_ALG_RACE, false);
        fc_solve_stats st;
        int rc = fc_solve(g, &opt, &st);
        char err[256] = "";
        bool ok = rc == want_rc && capacities_ok(g) &&
                  (st.ss_algorithm == FC_ALG_RELAX ||
                   st.ss_algorithm == FC_ALG_COST_SCALING);
        if (ok && rc == 0)
            ok = st.ss_cost == want &&
                 fct_check_flow(g, st.ss_cost, true, err, sizeof err);
        infeasible += want_rc == FC_EINFEASIBLE;
        if (ok)
            wins[st.ss_algorithm == FC_ALG_COST_SCALING]++;
        else if (failures++ < MAX_REPORT)
            tap_diag("seed %d: race %s %" PRId64 " (%s) %s, ssp %s %" PRId64,
                     31000 + k, fc_strerror(rc), st.ss_cost,
                     fc_algorithm_name(st.ss_algorithm), err,
                     fc_strerror(want_rc), want);
        fc_graph_free(g);
    }
    tap_ok(failures == 0 && infeasible > 0,
           "race agrees with ssp on %d random networks (%d infeasible)", cases,
           infeasible);
    tap_diag("winners: relax %d, cost scaling %d", wins[0], wins[1]);
}

/* Rounds of scheduler events; each round is solved by race, relax or cost
 * scaling in turn, so each algorithm starts from states the others left. */
static void test_incremental(void)
{
    static const fc_algorithm turn[] = {FC_ALG_RACE, FC_ALG_RELAX, FC_ALG_RACE,
                                        FC_ALG_COST_SCALING};
    int failures = 0, rounds = 0;
    for (int k = 0; k < 6; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 41000 + (uint64_t)k);
        fct_sched sc;
        if (fct_sched_build(&rng, 30 + 10 * k, 10, 6, 10, 3, &sc) != 0)
            tap_bail_out("cannot build a scheduling network");
        fc_graph *g = sc.sc_g;
        for (int round = 0; round < 12; round++) {
            for (int e = 0; round > 0 && e < 8; e++) {
                int32_t t = (int32_t)fct_rng_range(&rng, 0, sc.sc_ntasks - 1);
                fc_arc a =
                    (fc_arc)fct_rng_range(&rng, 0, fc_graph_arc_bound(g) - 1);
                switch (fct_rng_range(&rng, 0, 3)) {
                case 0:
                    fct_sched_add_task(
                        &rng, &sc,
                        (int32_t)fct_rng_range(&rng, 0, sc.sc_njobs - 1));
                    break;
                case 1:
                    if (sc.sc_tasks[t] != FC_NONE)
                        fct_sched_finish_task(&sc, t);
                    break;
                case 2:
                    if (fc_arc_exists(g, a))
                        fc_arc_set_cost(g, a,
                                        fc_arc_cost(g, a) +
                                            fct_rng_range(&rng, -4, 4));
                    break;
                default:
                    if (fc_arc_exists(g, a))
                        fc_arc_set_capacity(g, a,
                                            fc_arc_capacity(g, a) +
                                                fct_rng_range(&rng, -1, 1) +
                                                (fc_arc_capacity(g, a) == 0));
                }
            }
            int64_t want;
            int want_rc = solve_fresh(g, FC_ALG_SSP, &want);
            fc_solve_options opt = options(turn[round % 4], round > 0);
            fc_solve_stats st;
            int rc = fc_solve(g, &opt, &st);
            char err[256] = "";
            bool ok = rc == want_rc && capacities_ok(g);
            if (ok && rc == 0)
                ok = st.ss_cost == want &&
                     fct_check_flow(g, st.ss_cost, true, err, sizeof err);
            rounds++;
            if (!ok && failures++ < MAX_REPORT)
                tap_diag("graph %d round %d (%s): %s %" PRId64 " %s, ssp %s "
                         "%" PRId64,
                         k, round, fc_algorithm_name(turn[round % 4]),
                         fc_strerror(rc), st.ss_cost, err, fc_strerror(want_rc),
                         want);
        }
        fct_sched_free(&sc);
    }
    tap_is_int(failures, 0,
               "incremental rounds (race, relax, cost scaling in turn) == "
               "from scratch over %d rounds",
               rounds);
}

static void test_cancel(void)
{
    fct_rng rng;
    fct_rng_seed(&rng, 51);
    fct_sched sc;
    if (fct_sched_build(&rng, 60, 10, 10, 20, 4, &sc) != 0)
        tap_bail_out("cannot build a scheduling network");
    atomic_bool stop = true;
    fc_solve_options opt = options(FC_ALG_RACE, false);
    opt.so_cancel = &stop;
    tap_is_int(fc_solve(sc.sc_g, &opt, NULL), FC_ECANCELED,
               "caller's cancel: FC_ECANCELED");
    tap_ok(capacities_ok(sc.sc_g), "cancelled: capacities respected");
    stop = false;
    opt.so_incremental = true;
    fc_solve_stats st;
    int64_t want;
    solve_fresh(sc.sc_g, FC_ALG_SSP, &want);
    tap_is_int(fc_solve(sc.sc_g, &opt, &st), 0,
               "resumed after cancellation: solved");
    tap_is_int(st.ss_cost, want, "resumed: optimal cost");
    fct_sched_free(&sc);
}

int main(void)
{
    tap_timeout(120);
    tap_plan(6);
    test_random();
    test_incremental();
    test_cancel();
    return tap_exit_status();
}
