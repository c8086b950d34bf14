/*
 * test_fc_property.c - every algorithm of fc_solve against LEMON's
 * dimacs-solver on several hundred seeded random networks (negative costs,
 * parallel arcs, zero capacities, isolated and unreachable nodes,
 * infeasible and unbalanced supplies): the same verdict and optimal cost,
 * and a flow that respects capacities and mass balance, whose cost is
 * recomputed from the arcs and whose residual network has no negative
 * cycle.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_GRAPHS   360 /* small: up to MAX_NODES nodes */
#define MAX_NODES  120
#define N_MEDIUM   40 /* then medium ones: hundreds to 1,500 nodes */
#define N_ALGS     (FC_ALG_RACE + 1)
#define MAX_REPORT 5 /* failures described per algorithm */

typedef struct alg_result {
    int ar_failed; /* graphs on which the algorithm disagreed */
} alg_result;

/* Solve one case with alg and compare with LEMON's verdict; returns NULL
 * on agreement or a description of the disagreement in buf. */
static const char *solve_one(const fc_graph *orig, fc_algorithm alg,
                             bool feasible, int64_t want, char *buf, size_t len)
{
    fc_graph *g;
    if (fc_graph_clone(orig, &g) != 0)
        tap_bail_out("out of memory");
    fc_solve_options opt = fct_options(alg, false);
    fc_solve_stats st;
    int rc = fc_solve(g, &opt, &st);
    const char *bad = NULL;
    char err[256];
    if (feasible && rc != 0) {
        snprintf(buf, len, "returned %s, LEMON found cost %" PRId64,
                 fc_strerror(rc), want);
        bad = buf;
    } else if (!feasible && rc != FC_EINFEASIBLE) {
        snprintf(buf, len, "returned %s (cost %" PRId64 "), LEMON: infeasible",
                 fc_strerror(rc), (int64_t)st.ss_cost);
        bad = buf;
    } else if (!feasible && !fct_capacities_ok(g)) {
        snprintf(buf, len, "infeasible, but left a flow over capacity");
        bad = buf;
    } else if (feasible && st.ss_cost != want) {
        /* the cast only shapes the message; the comparison was exact */
        snprintf(buf, len, "cost %" PRId64 ", LEMON %" PRId64,
                 (int64_t)st.ss_cost, want);
        bad = buf;
    } else if (feasible &&
               !fct_check_flow(g, st.ss_cost, true, err, sizeof err)) {
        snprintf(buf, len, "flow check: %s", err);
        bad = buf;
    }
    fc_graph_free(g);
    return bad;
}

int main(void)
{
    tap_timeout(240);
    if (fct_lemon_path() == NULL)
        tap_skip_all("DIMACS_SOLVER (LEMON's dimacs-solver) not available");
    tap_plan(N_ALGS + 1);

    alg_result res[N_ALGS];
    memset(res, 0, sizeof res);
    int lemon_errors = 0, infeasible_cases = 0;

    for (int k = 0; k < N_GRAPHS + N_MEDIUM; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 1000 + (uint64_t)k);
        fct_graph_params p;
        fct_params_random(&rng, MAX_NODES, &p);
        if (k >= N_GRAPHS) {
            p.gp_nodes = (int32_t)fct_rng_range(&rng, 200, 1500);
            p.gp_arcs = (int32_t)fct_rng_range(&rng, p.gp_nodes,
                                               6 * (int64_t)p.gp_nodes);
            p.gp_sources = (int32_t)fct_rng_range(&rng, 1, p.gp_nodes / 3);
            p.gp_sinks = (int32_t)fct_rng_range(&rng, 1, p.gp_nodes / 3);
            p.gp_total_supply = fct_rng_range(&rng, 0, 20 * p.gp_nodes);
        }
        fc_graph *g;
        if (fct_random_graph(&rng, &p, &g) != 0)
            tap_bail_out("cannot build graph %d", k);
        bool feasible;
        int64_t want;
        char err[256];
        if (fct_lemon_solve(g, &feasible, &want, err, sizeof err) != 0) {
            if (lemon_errors++ < MAX_REPORT)
                tap_diag("graph %d: LEMON: %s", k, err);
            fc_graph_free(g);
            continue;
        }
        infeasible_cases += !feasible;
        for (int i = 0; i < N_ALGS; i++) {
            char why[512];
            if (solve_one(g, (fc_algorithm)i, feasible, want, why,
                          sizeof why) == NULL)
                continue;
            if (res[i].ar_failed++ < MAX_REPORT) {
                char desc[256];
                fct_describe(&p, desc, sizeof desc);
                tap_diag("%s, graph %d (seed %d, %s): %s",
                         fc_algorithm_name((fc_algorithm)i), k, 1000 + k, desc,
                         why);
            }
        }
        fc_graph_free(g);
    }

    tap_ok(lemon_errors == 0 && infeasible_cases >= N_GRAPHS / 20 &&
               infeasible_cases <= N_GRAPHS / 2,
           "LEMON solved all %d graphs; %d are infeasible", N_GRAPHS + N_MEDIUM,
           infeasible_cases);
    for (int i = 0; i < N_ALGS; i++) {
        const char *name = fc_algorithm_name((fc_algorithm)i);
        tap_is_int(res[i].ar_failed, 0,
                   "%s agrees with LEMON on %d random graphs", name,
                   N_GRAPHS + N_MEDIUM);
    }
    return tap_exit_status();
}
