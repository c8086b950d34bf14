/*
 * test_fc_race.c - the race solver (relaxation against cost scaling on two
 * threads): the same verdict and optimal cost as successive shortest path
 * on random networks, a winner that is one of the two, incremental rounds
 * on scheduling networks that equal from-scratch solves whichever
 * algorithm produced the previous state, the rounds the race runs after
 * what it learned (a head start for relaxation, a try, cost scaling
 * alone), and the caller's cancellation.
 */
#include "fc_graph_impl.h"
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_REPORT 5

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
        fc_solve_options opt = fct_options(FC_ALG_RACE, false);
        fc_solve_stats st;
        int want_rc;
        char why[512] = "";
        bool ok = fct_matches_ssp(g, &opt, &st, &want_rc, why, sizeof why) &&
                  (st.ss_algorithm == FC_ALG_RELAX ||
                   st.ss_algorithm == FC_ALG_COST_SCALING);
        infeasible += want_rc == FC_EINFEASIBLE;
        if (ok)
            wins[st.ss_algorithm == FC_ALG_COST_SCALING]++;
        else if (failures++ < MAX_REPORT)
            tap_diag("seed %d: race won by %s: %s", 31000 + k,
                     fc_algorithm_name(st.ss_algorithm), why);
        fc_graph_free(g);
    }
    tap_ok(failures == 0 && infeasible > 0,
           "race agrees with ssp on %d random networks (%d infeasible)", cases,
           infeasible);
    tap_diag("winners: relax %d, cost scaling %d", wins[0], wins[1]);
}

/* Rounds of scheduler events (fct_sched_event: arrivals, completions,
 * machine removals, cost and capacity changes); each round is solved by
 * race, relax or cost scaling in turn, so each algorithm starts from states
 * the others left. */
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
            for (int e = 0; round > 0 && e < 8; e++)
                fct_sched_event(&rng, &sc);
            fc_solve_options opt = fct_options(turn[round % 4], round > 0);
            fc_solve_stats st;
            int want_rc;
            char why[512];
            bool ok = fct_matches_ssp(g, &opt, &st, &want_rc, why, sizeof why);
            rounds++;
            if (!ok && failures++ < MAX_REPORT)
                tap_diag("graph %d round %d (%s): %s", k, round,
                         fc_algorithm_name(turn[round % 4]), why);
        }
        fct_sched_free(&sc);
    }
    tap_is_int(failures, 0,
               "incremental rounds (race, relax, cost scaling in turn) == "
               "from scratch over %d rounds",
               rounds);
}

/* Solve g from scratch by race after setting what the race learned to
 * *hint; true when the outcome matches ssp's and cost scaling won or not
 * as want_cs says (-1: either). */
static bool race_round(fc_graph *g, fc_race_hint hint, int want_cs,
                       const char *what)
{
    g->g_race_hint = hint;
    fc_solve_options opt = fct_options(FC_ALG_RACE, false);
    fc_solve_stats st;
    int want_rc;
    char why[512] = "";
    bool ok = fct_matches_ssp(g, &opt, &st, &want_rc, why, sizeof why);
    bool cs = st.ss_algorithm == FC_ALG_COST_SCALING;
    if (ok && want_cs >= 0 && cs != (want_cs == 1)) {
        snprintf(why, sizeof why, "won by %s",
                 fc_algorithm_name(st.ss_algorithm));
        ok = false;
    }
    return tap_ok(ok, "race, %s: matches ssp%s%s", what, why[0] ? ": " : "",
                  why);
}

/* The race's three kinds of round on a network large enough that
 * relaxation looks at its poll before it finishes: a head start so short
 * that cost scaling starts at relaxation's first look, a try so short
 * that relaxation is stopped there (cost scaling wins, and the failed try
 * makes the next round cost scaling's alone), and that round. */
static void test_rounds(void)
{
    fct_rng rng;
    fct_rng_seed(&rng, 61);
    fct_sched sc;
    if (fct_sched_build(&rng, 300, 20, 200, 20, 4, &sc) != 0)
        tap_bail_out("cannot build a scheduling network");
    fc_graph *g = sc.sc_g;
    race_round(g, (fc_race_hint){.rh_relax_ns = 1}, -1,
               "cost scaling joins after a 1 ns head start");
    race_round(g, (fc_race_hint){.rh_cs_ns = 8}, 1,
               "relaxation's 1 ns try is cut");
    tap_ok(g->g_race_hint.rh_skip == 1 && g->g_race_hint.rh_backoff == 1,
           "race: a failed try skips one round (skip %d, backoff %d)",
           g->g_race_hint.rh_skip, g->g_race_hint.rh_backoff);
    race_round(g, g->g_race_hint, 1, "the skipped round, cost scaling alone");
    tap_ok(g->g_race_hint.rh_skip == 0 && g->g_race_hint.rh_relax_ns == 0,
           "race: the next round tries relaxation again (skip %d)",
           g->g_race_hint.rh_skip);
    fct_sched_free(&sc);
}

static void test_cancel(void)
{
    fct_rng rng;
    fct_rng_seed(&rng, 51);
    fct_sched sc;
    if (fct_sched_build(&rng, 60, 10, 10, 20, 4, &sc) != 0)
        tap_bail_out("cannot build a scheduling network");
    fct_check_cancel(sc.sc_g, FC_ALG_RACE);
    fct_sched_free(&sc);
}

int main(void)
{
    tap_timeout(120);
    tap_plan(11);
    test_random();
    test_incremental();
    test_rounds();
    test_cancel();
    return tap_exit_status();
}
