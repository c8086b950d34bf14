/*
 * test_fc_budget.c - relaxation with a work budget (so_relax_budget,
 * fc_budget.c): past the budget cost scaling (or successive shortest path,
 * where cost scaling hands over) finishes the solve from relaxation's
 * state. The result is optimal (successive shortest path from scratch and
 * LEMON agree on the cost), the switch happens where the budget says, the
 * work of both solvers is reported, and every count is the same on every
 * run.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An over-full scheduling network: more tasks than slots, the excess left
 * on the unscheduled arcs, relaxation's bad case. */
static int over_full(uint64_t seed, int32_t machines, fct_sched *sc)
{
    fct_rng rng;
    fct_rng_seed(&rng, seed);
    /* 3 slots a machine, 12 jobs of 1 to 2 * machines / 3 tasks: about
     * 8 * machines tasks for 3 * machines slots */
    return fct_sched_build(&rng, machines, 10, 12, machines / 3, 3, sc);
}

static fc_solve_options budget_options(uint64_t budget, bool incremental)
{
    fc_solve_options opt = fct_options(FC_ALG_RELAX, incremental);
    opt.so_relax_budget = budget;
    return opt;
}

/* A budget of 1 unit per arc on an over-full network: relaxation stops,
 * the other solver finishes, the cost is the optimum, the counts add up,
 * and a second solve of a copy reports the same counts. */
static void test_switch(void)
{
    fct_sched sc;
    if (over_full(7, 200, &sc) != 0)
        tap_bail_out("cannot build the network");
    fc_graph *copy;
    if (fc_graph_clone(sc.sc_g, &copy) != 0)
        tap_bail_out("cannot clone");
    uint64_t arcs = (uint64_t)fc_graph_arc_count(sc.sc_g);

    fc_solve_options opt = budget_options(1, false);
    fc_solve_stats st;
    int want_rc;
    char why[512];
    bool ok = fct_matches_ssp(sc.sc_g, &opt, &st, &want_rc, why, sizeof why);
    tap_ok(ok && want_rc == 0, "budget 1: optimal (as ssp from scratch)%s%s",
           ok ? "" : ": ", ok ? "" : why);
    tap_ok(st.ss_algorithm == FC_ALG_COST_SCALING,
           "budget 1: cost scaling finished the solve (%s)",
           fc_algorithm_name(st.ss_algorithm));
    tap_ok(st.ss_relax_work > arcs + 1 && st.ss_relax_work < 2 * arcs + 8192,
           "budget 1: relaxation stopped just past arcs + 1 = %" PRIu64
           " units (%" PRIu64 ")",
           arcs + 1, st.ss_relax_work);
    tap_ok(st.ss_iterations > st.ss_relax_work,
           "budget 1: the work of both counted (%" PRIu64 " in all)",
           st.ss_iterations);

    fc_solve_stats again;
    tap_is_int(fc_solve(copy, &opt, &again), 0, "the copy: solved");
    tap_ok(again.ss_iterations == st.ss_iterations &&
               again.ss_relax_work == st.ss_relax_work &&
               again.ss_algorithm == st.ss_algorithm &&
               again.ss_cost == st.ss_cost,
           "the copy: the same solver, counts and cost");

    /* Relaxation alone, and with a budget it does not reach. */
    fc_graph *plain;
    if (fc_graph_clone(copy, &plain) != 0)
        tap_bail_out("cannot clone");
    fc_graph_reset_flow(plain);
    fc_graph_reset_flow(copy);
    fc_solve_options none = budget_options(0, false);
    fc_solve_stats alone, roomy;
    tap_is_int(fc_solve(plain, &none, &alone), 0, "relaxation alone: solved");
    uint64_t enough = alone.ss_iterations / arcs + 1;
    opt = budget_options(enough, false);
    tap_is_int(fc_solve(copy, &opt, &roomy), 0,
               "a budget of %" PRIu64 " per arc: solved", enough);
    tap_ok(roomy.ss_algorithm == FC_ALG_RELAX &&
               roomy.ss_iterations == alone.ss_iterations &&
               roomy.ss_relax_work == alone.ss_iterations &&
               roomy.ss_cost == alone.ss_cost && alone.ss_cost == st.ss_cost,
           "... relaxation alone, its work and cost unchanged (%" PRIu64
           " units)",
           alone.ss_iterations);
    fc_graph_free(plain);
    fc_graph_free(copy);
    fct_sched_free(&sc);
}

/* The escape arcs of flowd's networks (2^31) on more than about 3,000
 * nodes do not fit cost scaling's scaled prices: successive shortest path
 * finishes, and the stats say so. */
static void test_handover(void)
{
    fct_sched sc;
    if (over_full(11, 1200, &sc) != 0)
        tap_bail_out("cannot build the network");
    fc_arc escape;
    if (fc_arc_add(sc.sc_g, sc.sc_tasks[0], sc.sc_unsched[0], 1,
                   (int64_t)1 << 31, &escape) != 0)
        tap_bail_out("cannot add the escape arc");
    fc_solve_options opt = budget_options(1, false);
    fc_solve_stats st;
    int want_rc;
    char why[512];
    bool ok = fct_matches_ssp(sc.sc_g, &opt, &st, &want_rc, why, sizeof why);
    tap_ok(ok && want_rc == 0,
           "escape arc, %d nodes: optimal (as ssp from scratch)%s%s",
           fc_graph_node_count(sc.sc_g), ok ? "" : ": ", ok ? "" : why);
    tap_ok(st.ss_algorithm == FC_ALG_SSP && st.ss_iterations > st.ss_relax_work,
           "escape arc: successive shortest path finished (%s)",
           fc_algorithm_name(st.ss_algorithm));
    fc_solve_options cs = fct_options(FC_ALG_COST_SCALING, false);
    fc_solve_stats cst;
    fc_graph_reset_flow(sc.sc_g);
    tap_is_int(fc_solve(sc.sc_g, &cs, &cst), 0, "cost scaling alone: solved");
    tap_ok(cst.ss_algorithm == FC_ALG_SSP && cst.ss_relax_work == 0 &&
               cst.ss_cost == st.ss_cost,
           "cost scaling alone: named ssp too, no relaxation work, same cost");
    fct_sched_free(&sc);
}

/* Rounds of scheduler events, solved incrementally with a small budget:
 * every round optimal, and two runs of the same rounds report the same
 * work round by round. */
static void test_incremental(void)
{
    int failures = 0, switched = 0, rounds = 0;
    uint64_t work[2][40];
    for (int run = 0; run < 2; run++) {
        fct_sched sc;
        if (over_full(23, 120, &sc) != 0)
            tap_bail_out("cannot build the network");
        fct_rng rng;
        fct_rng_seed(&rng, 99);
        for (int round = 0; round < 40; round++) {
            fc_solve_options opt = budget_options(2, round > 0);
            fc_solve_stats st;
            int want_rc;
            char why[512];
            bool ok =
                fct_matches_ssp(sc.sc_g, &opt, &st, &want_rc, why, sizeof why);
            if (!ok && failures++ < 3)
                tap_diag("run %d round %d: %s", run, round, why);
            work[run][round] = st.ss_iterations * 4 + st.ss_algorithm;
            if (run == 0) {
                rounds++;
                switched += st.ss_algorithm != FC_ALG_RELAX;
            }
            for (int e = 0; e < 30; e++)
                fct_sched_event(&rng, &sc);
        }
        fct_sched_free(&sc);
    }
    tap_is_int(failures, 0, "%d incremental rounds with budget 2: optimal",
               rounds);
    tap_ok(switched > 0, "... %d of them switched", switched);
    tap_ok(memcmp(work[0], work[1], sizeof work[0]) == 0,
           "... the same solver and work round by round on a second run");
}

/* The caller's cancel flag stops the solve, and no other solver starts. */
static void test_cancel(void)
{
    fct_sched sc;
    if (over_full(5, 60, &sc) != 0)
        tap_bail_out("cannot build the network");
    fc_cancel *c;
    if (fc_cancel_new(&c) != 0)
        tap_bail_out("no memory");
    fc_cancel_set(c, true);
    fc_solve_options opt = budget_options(1, false);
    opt.so_cancel = c;
    fc_solve_stats st;
    tap_is_int(fc_solve(sc.sc_g, &opt, &st), FC_ECANCELED,
               "cancelled: FC_ECANCELED");
    tap_ok(st.ss_algorithm == FC_ALG_RELAX && fct_capacities_ok(sc.sc_g),
           "cancelled: no switch, capacities respected");
    fc_cancel_free(c);
    fct_sched_free(&sc);
}

/* The smallest Flowlessly graphs (Firmament's authors' scheduling
 * networks) with a budget of 1 per arc: the cost is LEMON's. */
static void test_lemon(void)
{
    const char *dir = getenv("SHARED_DATA_DIR");
    static const char *const names[] = {"graph_100m_4j_100t_10p.in",
                                        "graph_100m_16j_100t_10p.in"};
    if (dir == NULL || fct_lemon_path() == NULL) {
        tap_skip(2, "no Flowlessly graphs or no dimacs-solver");
        return;
    }
    int agree = 0, switched = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/flowlessly-graphs/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        fc_dimacs_reader *r;
        if (f == NULL || fc_dimacs_reader_new(NULL, &r) != 0)
            tap_bail_out("cannot open %s", path);
        fc_dimacs_end end;
        size_t lines;
        if (fc_dimacs_read(r, f, names[i], &end, &lines) != 0)
            tap_bail_out("%s: %s", names[i], fc_dimacs_error(r));
        fclose(f);
        fc_graph *g = fc_dimacs_graph(r);
        bool feasible;
        int64_t want;
        char err[256];
        fc_solve_options opt = budget_options(1, false);
        fc_solve_stats st;
        int rc = fc_solve(g, &opt, &st);
        if (fct_lemon_solve(g, &feasible, &want, err, sizeof err) == 0 &&
            feasible && rc == 0 && st.ss_cost == want &&
            fct_flow_ok(g, st.ss_cost))
            agree++;
        else
            tap_diag("%s: %s cost %" PRId64 ", LEMON %" PRId64 " %s", names[i],
                     fc_strerror(rc), (int64_t)st.ss_cost, want, err);
        switched += st.ss_algorithm != FC_ALG_RELAX;
        fc_dimacs_reader_free(r);
    }
    tap_is_int(agree, 2, "budget 1: LEMON's cost on 2 Flowlessly graphs");
    tap_is_int(switched, 2, "... both finished by the other solver");
}

int main(void)
{
    tap_timeout(120);
    tap_plan(20);
    test_switch();
    test_handover();
    test_incremental();
    test_cancel();
    test_lemon();
    return tap_exit_status();
}
