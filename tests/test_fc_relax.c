/*
 * test_fc_relax.c - relaxation (RELAX): small networks with a known
 * optimum, infeasible ones, cancellation, the Flowlessly scheduling graphs
 * against LEMON's dimacs-solver, and incremental solving: after every round
 * of random changes the incremental result equals a from-scratch solve
 * (relaxation's and successive shortest path's). The work count grows
 * with the arcs relaxation looks at: a dense node on the way costs more
 * than a sparse one.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORT 5 /* failures described per check */

/* Two routes from s to t, then changes that move the optimum. */
static void test_two_routes(void)
{
    fct_routes r;
    fc_graph *g = fct_two_routes(&r);
    fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
    fct_solve_is(g, &opt, 2 * 2 + 3 * 6, "two routes");
    tap_ok(fct_flow_ok(g, 2 * 2 + 3 * 6), "two routes: flow checks");

    opt = fct_options(FC_ALG_RELAX, true);
    fc_arc_set_capacity(g, r.rt_sa, 5);
    fct_solve_is(g, &opt, 10, "widened, solved incrementally: all cheap");
    fc_arc_set_cost(g, r.rt_at, 100);
    fct_solve_is(g, &opt, 30, "cost raised, flow moved to the other route");
    tap_ok(fct_flow_ok(g, 30), "cost raised: flow checks");
    fc_graph_free(g);
}

/* Infeasible instances: a cut too narrow (with a cycle the surplus could
 * chase itself around), unbalanced supplies, and surplus with no way out. */
static void test_infeasible(void)
{
    fc_graph *g;
    fc_graph_new(&g);
    fc_node s, m, t, u;
    fc_node_add(g, 3, FC_NODE_OTHER, &s);
    fc_node_add(g, 0, FC_NODE_OTHER, &m);
    fc_node_add(g, -3, FC_NODE_OTHER, &t);
    fc_arc narrow, x;
    fc_arc_add(g, s, m, 10, 1, &x);
    fc_arc_add(g, m, s, 10, 1, &x);
    fc_arc_add(g, m, t, 2, 1, &narrow);
    fc_arc_add(g, t, m, 10, 1, &x);
    fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "narrow cut: infeasible");
    tap_ok(fct_capacities_ok(g), "narrow cut: capacities respected");
    fc_arc_set_capacity(g, narrow, 3);
    tap_is_int(fc_solve(g, &opt, NULL), 0, "widened: feasible");
    opt = fct_options(FC_ALG_RELAX, true);
    fc_arc_set_capacity(g, narrow, 1);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "narrowed again, incrementally: infeasible");
    tap_ok(fct_capacities_ok(g),
           "incremental infeasible: capacities respected");
    fc_arc_set_capacity(g, narrow, 3);
    tap_is_int(fc_solve(g, &opt, NULL), 0,
               "widened again, incrementally after infeasible: feasible");
    fc_node_add(g, -1, FC_NODE_OTHER, &u);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "unbalanced supplies: infeasible");
    fc_graph_free(g);

    fc_graph_new(&g);
    fc_node_add(g, 2, FC_NODE_OTHER, &s);
    fc_node_add(g, 0, FC_NODE_OTHER, &m);
    fc_node_add(g, -2, FC_NODE_OTHER, &t);
    fc_arc_add(g, s, m, 5, 3, &x);
    fc_arc_add(g, m, s, 5, -2, &x);
    fc_arc_add(g, t, m, 5, 1, &x);
    opt = fct_options(FC_ALG_RELAX, false);
    tap_is_int(fc_solve(g, &opt, NULL), FC_EINFEASIBLE,
               "demand unreachable: infeasible");
    tap_ok(fct_capacities_ok(g), "demand unreachable: capacities respected");
    fc_graph_free(g);
}

static void test_cancel(void)
{
    fct_rng rng;
    fct_rng_seed(&rng, 7);
    fct_sched sc;
    if (fct_sched_build(&rng, 40, 10, 8, 20, 4, &sc) != 0)
        tap_bail_out("cannot build a scheduling network");
    fct_check_cancel(sc.sc_g, FC_ALG_RELAX);
    fct_sched_free(&sc);
}

/* Many random networks against successive shortest path, the verdict and
 * the cost: the infeasible ones among them include instances on which
 * relaxation's prices would drift for ever without its safety net. */
static void test_random_vs_ssp(void)
{
    int failures = 0, infeasible = 0;
    const int cases = 3000;
    for (int k = 0; k < cases; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 77777 + (uint64_t)k);
        fct_graph_params p;
        fct_params_random(&rng, 120, &p);
        fc_graph *g;
        if (fct_random_graph(&rng, &p, &g) != 0)
            tap_bail_out("cannot build graph %d", k);
        fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
        fc_solve_stats st;
        int want_rc;
        char why[512];
        bool ok = fct_matches_ssp(g, &opt, &st, &want_rc, why, sizeof why);
        infeasible += want_rc == FC_EINFEASIBLE;
        if (!ok && failures++ < MAX_REPORT)
            tap_diag("seed %d: relax %s", 77777 + k, why);
        fc_graph_free(g);
    }
    tap_ok(failures == 0 && infeasible > cases / 10,
           "relax agrees with ssp on %d random networks (%d infeasible)", cases,
           infeasible);
}

/* --- the Flowlessly graphs -----------------------------------------------*/

/* Read a plain DIMACS min-cost-flow file (p, n, a lines) into a graph:
 * enough for the full Flowlessly graphs, whose format is fixed. Returns
 * NULL on any line it does not understand. */
static fc_graph *read_dimacs(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    fc_graph *g = NULL;
    int32_t n = 0;
    char line[512];
    bool bad = false;
    while (!bad && fgets(line, sizeof line, f) != NULL) {
        long long a, b, c, d, e;
        if (line[0] == 'p') {
            if (g != NULL || sscanf(line, "p min %lld %lld", &a, &b) != 2 ||
                a < 1 || a > 1000000 || fc_graph_new(&g) != 0) {
                bad = true;
                break;
            }
            n = (int32_t)a;
            for (int32_t i = 0; i < n && !bad; i++) {
                fc_node v;
                bad = fc_node_add(g, 0, FC_NODE_OTHER, &v) != 0;
            }
        } else if (line[0] == 'n') {
            bad = g == NULL || sscanf(line, "n %lld %lld", &a, &b) != 2 ||
                  a < 1 || a > n ||
                  fc_node_set_supply(g, (fc_node)(a - 1), b) != 0;
        } else if (line[0] == 'a') {
            fc_arc x;
            bad = g == NULL ||
                  sscanf(line, "a %lld %lld %lld %lld %lld", &a, &b, &c, &d,
                         &e) != 5 ||
                  a < 1 || a > n || b < 1 || b > n || c != 0 ||
                  fc_arc_add(g, (fc_node)(a - 1), (fc_node)(b - 1), d, e, &x) !=
                      0;
        } else if (line[0] != 'c' && line[0] != '\n') {
            bad = true;
        }
    }
    fclose(f);
    if (bad) {
        fc_graph_free(g);
        return NULL;
    }
    return g;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The full graphs of the folder: graph_*.in and small_graph*.in without a
 * change-set suffix (change sets have no p line and fail to read). */
static int list_graphs(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    char **names = NULL;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".in") != 0 ||
            (strncmp(e->d_name, "graph_", 6) != 0 &&
             strncmp(e->d_name, "small_graph", 11) != 0))
            continue;
        names = realloc(names, (size_t)(count + 1) * sizeof *names);
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, compare_names);
    *out = names;
    return count;
}

static void test_flowlessly(void)
{
    const char *dir = getenv("SHARED_DATA_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/flowlessly-graphs", dir ? dir : "");
    char **names = NULL;
    int count = dir ? list_graphs(path, &names) : 0;
    if (count == 0 || fct_lemon_path() == NULL) {
        tap_skip(2, "no Flowlessly graphs or no dimacs-solver");
        return;
    }
    int full = 0, failed = 0, solved_after_change = 0;
    for (int i = 0; i < count; i++) {
        char file[1200];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        fc_graph *g = read_dimacs(file);
        if (g == NULL)
            continue; /* a change set, not a full graph */
        full++;
        bool feasible;
        int64_t want;
        char err[256];
        if (fct_lemon_solve(g, &feasible, &want, err, sizeof err) != 0 ||
            !feasible) {
            tap_diag("%s: LEMON: %s", names[i], feasible ? err : "infeasible");
            failed++;
            fc_graph_free(g);
            continue;
        }
        fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
        fc_solve_stats st;
        int rc = fc_solve(g, &opt, &st);
        if (rc != 0 || st.ss_cost != want || !fct_flow_ok(g, st.ss_cost)) {
            tap_diag("%s: relax %s cost %" PRId64 ", LEMON %" PRId64, names[i],
                     fc_strerror(rc), (int64_t)st.ss_cost, want);
            failed++;
        }
        /* Perturb every 7th arc's cost and re-solve incrementally: LEMON
         * must agree again. */
        for (fc_arc a = 0; a < fc_graph_arc_bound(g); a += 7)
            fc_arc_set_cost(g, a, fc_arc_cost(g, a) + (a % 3) - 1);
        opt.so_incremental = true;
        rc = fc_solve(g, &opt, &st);
        if (fct_lemon_solve(g, &feasible, &want, err, sizeof err) == 0 &&
            feasible && rc == 0 && st.ss_cost == want &&
            fct_flow_ok(g, st.ss_cost))
            solved_after_change++;
        else
            tap_diag("%s after cost changes: relax %s cost %" PRId64
                     ", LEMON %" PRId64,
                     names[i], fc_strerror(rc), (int64_t)st.ss_cost, want);
        fc_graph_free(g);
    }
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
    tap_ok(full >= 10 && failed == 0,
           "relax matches LEMON on %d full Flowlessly graphs", full);
    tap_is_int(solved_after_change, full,
               "incremental relax matches LEMON after cost changes");
}

/* --- incremental == from scratch -----------------------------------------*/

/* Compare an incremental relax solve of g with from-scratch relax and SSP.
 * Returns true when they agree; describes the first mismatch. */
static bool round_agrees(fc_graph *g, const char *what, int round)
{
    fc_solve_options opt = fct_options(FC_ALG_RELAX, true);
    fc_solve_stats st;
    fc_int128 again;
    int want_rc, again_rc = fct_solve_fresh(g, FC_ALG_RELAX, &again);
    char why[512];
    bool ok = fct_matches_ssp(g, &opt, &st, &want_rc, why, sizeof why);
    if (ok && (again_rc != want_rc || (again_rc == 0 && again != st.ss_cost))) {
        snprintf(why, sizeof why,
                 "relax from scratch %s (cost %" PRId64 "), incremental %s "
                 "(cost %" PRId64 ")",
                 fc_strerror(again_rc), (int64_t)again, fc_strerror(want_rc),
                 (int64_t)st.ss_cost);
        ok = false;
    }
    if (!ok)
        tap_diag("%s round %d: %s", what, round, why);
    return ok;
}

/* Random changes on random networks: costs and capacities up and down,
 * supplies moved between nodes, arcs added and removed. */
static void test_incremental_random(void)
{
    int failures = 0, rounds = 0;
    for (int k = 0; k < 60; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 5000 + (uint64_t)k);
        fct_graph_params p;
        fct_params_random(&rng, 60, &p);
        p.gp_unbalanced = false;
        fc_graph *g;
        if (fct_random_graph(&rng, &p, &g) != 0)
            tap_bail_out("cannot build graph %d", k);
        for (int round = 0; round < 6; round++) {
            if (round > 0) {
                int changes = (int)fct_rng_range(&rng, 1, 8);
                for (int c = 0; c < changes; c++) {
                    int32_t nb = fc_graph_node_bound(g);
                    int32_t ab = fc_graph_arc_bound(g);
                    fc_arc a = (fc_arc)fct_rng_range(&rng, 0, ab - 1);
                    fc_node u = (fc_node)fct_rng_range(&rng, 0, nb - 1);
                    fc_node v = (fc_node)fct_rng_range(&rng, 0, nb - 1);
                    fc_arc x;
                    switch (fct_rng_range(&rng, 0, 4)) {
                    case 0:
                        if (ab > 0 && fc_arc_exists(g, a))
                            fc_arc_set_cost(g, a, fct_rng_range(&rng, -20, 50));
                        break;
                    case 1:
                        if (ab > 0 && fc_arc_exists(g, a))
                            fc_arc_set_capacity(g, a,
                                                fct_rng_range(&rng, 0, 12));
                        break;
                    case 2:
                        if (ab > 0 && fc_arc_exists(g, a))
                            fc_arc_remove(g, a);
                        break;
                    case 3:
                        fc_arc_add(g, u, v, fct_rng_range(&rng, 0, 12),
                                   fct_rng_range(&rng, -20, 50), &x);
                        break;
                    default: {
                        int64_t d = fct_rng_range(&rng, 1, 3);
                        fc_node_set_supply(g, u, fc_node_supply(g, u) + d);
                        fc_node_set_supply(g, v, fc_node_supply(g, v) - d);
                    }
                    }
                }
            }
            rounds++;
            if (!round_agrees(g, "random", round) && failures++ >= MAX_REPORT)
                break;
        }
        fc_graph_free(g);
    }
    tap_is_int(failures, 0,
               "incremental relax == from scratch over %d rounds on random "
               "networks",
               rounds);
}

/* Scheduler-like rounds: task arrivals and completions, machine removal,
 * cost changes of preference arcs, slot capacity changes. */
static void test_incremental_sched(void)
{
    int failures = 0, rounds = 0;
    for (int k = 0; k < 8; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 9000 + (uint64_t)k);
        fct_sched sc;
        if (fct_sched_build(&rng, 20 + 5 * k, 5, 6, 8, 3, &sc) != 0)
            tap_bail_out("cannot build a scheduling network");
        fc_graph *g = sc.sc_g;
        for (int round = 0; round < 8; round++) {
            int events = (int)fct_rng_range(&rng, 1, 10);
            for (int e = 0; round > 0 && e < events; e++)
                fct_sched_event(&rng, &sc);
            rounds++;
            if (!round_agrees(g, "scheduling", round) &&
                failures++ >= MAX_REPORT)
                break;
        }
        fct_sched_free(&sc);
    }
    tap_is_int(failures, 0,
               "incremental relax == from scratch over %d scheduling rounds",
               rounds);
}

/* g (freed here), whose optimum costs 0, solved by relaxation from
 * scratch: its work count; bails out if the solve fails. */
static uint64_t zero_cost_work(fc_graph *g, const char *what)
{
    fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
    fc_solve_stats st;
    int rc = fc_solve(g, &opt, &st);
    fc_graph_free(g);
    if (rc != 0 || st.ss_cost != 0)
        tap_bail_out("%s: %s, or a cost other than 0", what, fc_strerror(rc));
    return st.ss_iterations;
}

/* s (supply 1) -> h -> t (demand 1), h with `extra` more arcs first, to
 * nodes of no supply at cost 5 (never balanced, never taken): solved by
 * relaxation from scratch, its work count. */
static uint64_t path_work(int32_t extra)
{
    fc_graph *g;
    fc_node s, h, t, v;
    fc_arc a;
    if (fc_graph_new(&g) != 0 || fc_node_add(g, 1, FC_NODE_OTHER, &s) != 0 ||
        fc_node_add(g, 0, FC_NODE_OTHER, &h) != 0 ||
        fc_node_add(g, -1, FC_NODE_OTHER, &t) != 0 ||
        fc_arc_add(g, s, h, 1, 0, &a) != 0)
        tap_bail_out("cannot build the path");
    for (int32_t k = 0; k < extra; k++)
        if (fc_node_add(g, 0, FC_NODE_OTHER, &v) != 0 ||
            fc_arc_add(g, h, v, 1, 5, &a) != 0)
            tap_bail_out("cannot add arc %d", k);
    if (fc_arc_add(g, h, t, 1, 0, &a) != 0)
        tap_bail_out("cannot build the path");
    return zero_cost_work(g, "the path");
}

/* The work count is the arcs looked at (and the nodes moved to): the
 * dense node's 1,000 extra arcs are all looked at before its arc to t,
 * and each counts. */
static void test_work_counts_arcs(void)
{
    uint64_t sparse = path_work(0), dense = path_work(1000);
    tap_ok(sparse < 128 && dense >= sparse + 1000 && dense < sparse + 4000,
           "work grows with the arcs a scan looks at: %" PRIu64
           " units through a sparse node, %" PRIu64 " through a dense one",
           sparse, dense);
}

/* s (supply 1) -> v1 -> ... -> vk -> t (demand 1), at cost 0: solved by
 * relaxation from scratch, its work count. */
static uint64_t chain_work(int32_t k)
{
    fc_graph *g;
    fc_node s, prev, v;
    fc_arc a;
    if (fc_graph_new(&g) != 0 || fc_node_add(g, 1, FC_NODE_OTHER, &s) != 0)
        tap_bail_out("cannot build the chain");
    prev = s;
    for (int32_t i = 0; i <= k; i++) {
        int64_t supply = i == k ? -1 : 0;
        if (fc_node_add(g, supply, FC_NODE_OTHER, &v) != 0 ||
            fc_arc_add(g, prev, v, 1, 0, &a) != 0)
            tap_bail_out("cannot add node %d", i);
        prev = v;
    }
    return zero_cost_work(g, "the chain");
}

/* A move to a node counts more than an arc: each of the chain's 100
 * nodes is scanned once (RELAX_NODE_WORK, 16 units, and its two arcs)
 * and its arc pushed along twice by the augmentation. */
static void test_work_counts_nodes(void)
{
    uint64_t short_chain = chain_work(0), long_chain = chain_work(100);
    uint64_t extra = long_chain - short_chain;
    tap_ok(long_chain > short_chain && extra >= 100 * 16 && extra <= 100 * 24,
           "work counts a scanned node as 16 arcs: %" PRIu64
           " units more for 100 more nodes on the path",
           long_chain - short_chain);
}

int main(void)
{
    tap_timeout(120);
    tap_plan(31);
    test_work_counts_arcs();
    test_work_counts_nodes();
    test_two_routes();
    fct_check_negative_cycle(FC_ALG_RELAX);
    test_infeasible();
    test_cancel();
    test_random_vs_ssp();
    test_flowlessly();
    test_incremental_random();
    test_incremental_sched();
    return tap_exit_status();
}
