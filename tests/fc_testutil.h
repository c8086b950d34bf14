/*
 * fc_testutil.h - helpers shared by the flowcore tests: a seeded random
 * generator of flow networks (generic networks with the awkward cases, and
 * scheduling-shaped ones), a runner for LEMON's dimacs-solver as the
 * independent reference, a checker of returned flows, and the solve
 * options, from-scratch reference solves, small fixed networks and
 * cancellation check that several tests share.
 *
 * The helpers use only flowcore's public API and write their own DIMACS for
 * LEMON, so the reference path does not depend on the code under test.
 * They are for TAP tests (tests/tap.h): where noted, they bail out of the
 * test when memory runs out, or record assertions themselves.
 */
#ifndef FC_TESTUTIL_H
#define FC_TESTUTIL_H

#include "flowcore.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- seeded randomness ---------------------------------------------------*/

typedef struct fct_rng {
    uint64_t r_state;
} fct_rng;

/* fct_rng_seed starts a generator; the same seed gives the same stream. */
void fct_rng_seed(fct_rng *r, uint64_t seed);

/* fct_rng_range returns a uniform integer in [lo, hi] (lo <= hi). */
int64_t fct_rng_range(fct_rng *r, int64_t lo, int64_t hi);

/* fct_rng_pct returns true with probability pct percent. */
bool fct_rng_pct(fct_rng *r, int pct);

/* fct_random_arc returns a live arc of g drawn at random (up to 32 draws
 * of an arc id), or FC_NONE when none of the draws hit one. */
fc_arc fct_random_arc(fct_rng *r, const fc_graph *g);

/* --- generic random networks ---------------------------------------------*/

typedef struct fct_graph_params {
    int32_t gp_nodes;         /* nodes taking part (>= 2) */
    int32_t gp_arcs;          /* random arcs among them */
    int32_t gp_isolated;      /* extra nodes with no arcs and no supply */
    int32_t gp_sources;       /* nodes with positive supply */
    int32_t gp_sinks;         /* nodes with negative supply */
    int64_t gp_total_supply;  /* sum of the positive supplies */
    int64_t gp_max_cost;      /* costs in [-max, max] or [0, max] */
    bool gp_negative_costs;   /* allow negative costs */
    int64_t gp_max_capacity;  /* capacities in [0, max] */
    int gp_zero_capacity_pct; /* share of arcs with capacity 0 */
    int gp_parallel_pct;      /* share of arcs that duplicate another */
    bool gp_backbone;         /* add dear, wide arcs that make the
                                 instance feasible when balanced */
    bool gp_unbalanced;       /* supplies do not sum to zero */
} fct_graph_params;

/* fct_params_random picks parameters for one random case: sizes from tiny
 * to max_nodes, each awkward feature (negative costs, parallel arcs, zero
 * capacities, isolated and unreachable nodes, infeasible and unbalanced
 * supplies) switched on at random. */
void fct_params_random(fct_rng *r, int32_t max_nodes, fct_graph_params *p);

/* fct_random_graph builds a network from p, drawing from r. Returns 0 or
 * an FC_E* code. */
int fct_random_graph(fct_rng *r, const fct_graph_params *p, fc_graph **out);

/* fct_describe writes a one-line summary of p into buf. */
void fct_describe(const fct_graph_params *p, char *buf, size_t len);

/* --- scheduling-shaped networks ------------------------------------------*/

/* A Quincy-style network: tasks -> (job's unscheduled aggregator | the
 * cluster aggregator | preferred racks and machines), cluster -> racks ->
 * machines -> sink, unscheduled aggregators -> sink. Node ids of the parts
 * are kept so that tests can change the network like a scheduler would. */
typedef struct fct_sched {
    fc_graph *sc_g;
    fc_node sc_sink;
    fc_node sc_cluster;
    fc_node *sc_racks;
    int32_t sc_nracks;
    fc_node *sc_machines; /* FC_NONE once removed */
    int32_t sc_nmachines;
    fc_node *sc_unsched; /* per job */
    int32_t sc_njobs;
    fc_node *sc_tasks; /* FC_NONE once removed */
    int32_t *sc_task_job;
    int32_t sc_ntasks;
    int32_t sc_tasks_cap;
    int64_t sc_slots; /* capacity of each machine's arc to the sink */
} fct_sched;

/* fct_sched_build creates a network with the given shape; each job gets
 * between 1 and 2 * tasks_per_job - 1 tasks. Returns 0 or an FC_E* code. */
int fct_sched_build(fct_rng *r, int32_t machines, int32_t machines_per_rack,
                    int32_t jobs, int32_t tasks_per_job, int64_t slots,
                    fct_sched *s);

/* fct_sched_add_task adds a task to job j with its arcs (unscheduled,
 * cluster, a few preferences) and takes one more unit at the sink. Returns
 * 0 or an FC_E* code. */
int fct_sched_add_task(fct_rng *r, fct_sched *s, int32_t j);

/* fct_sched_finish_task removes task i as finished: its flow is drained to
 * the sink (fc_node_remove_drain) and the sink's demand follows. Returns 0
 * or an FC_E* code. */
int fct_sched_finish_task(fct_sched *s, int32_t i);

/* fct_sched_remove_machine removes machine m and its arcs; the tasks that
 * ran there are re-routed by the next solve. Returns 0 or an FC_E* code. */
int fct_sched_remove_machine(fct_sched *s, int32_t m);

/* fct_sched_event applies one random scheduler event to s: a task of a
 * random job arrives (twice as likely as each other event), a task
 * finishes, a machine goes (when picked, 30% of the time), an arc's cost
 * moves by up to 5 either way, or an arc's capacity moves by up to 1 either
 * way (an empty arc gains 1). An event that picks a removed task, machine
 * or arc changes nothing; errors of the changes are ignored, the solves
 * after them are what the tests check. */
void fct_sched_event(fct_rng *r, fct_sched *s);

/* fct_sched_free frees s and its graph. */
void fct_sched_free(fct_sched *s);

/* --- the LEMON reference -------------------------------------------------*/

/* fct_lemon_path returns the dimacs-solver to use ($DIMACS_SOLVER, if it
 * names an executable), or NULL. */
const char *fct_lemon_path(void);

/* fct_lemon_solve_file runs dimacs-solver on the DIMACS file at path as it
 * is on disk and reports whether a feasible flow exists and the optimal
 * cost (0 when infeasible). Returns 0, or -1 with the reason in err (no
 * solver, a path with a quote in it, no verdict from the solver). Costs one
 * run of the solver. */
int fct_lemon_solve_file(const char *path, bool *feasible, int64_t *cost,
                         char *err, size_t errlen);

/* fct_lemon_solve writes g's supplies, capacities and costs (not its flow)
 * as DIMACS to a temporary file, runs dimacs-solver on it and reports
 * whether a feasible flow exists and the optimal cost. Supplies that do not
 * sum to zero are reported infeasible without running LEMON (its GEQ
 * reading of supplies differs from flowcore's exact one). Returns 0, or -1
 * with the reason in err. */
int fct_lemon_solve(const fc_graph *g, bool *feasible, int64_t *cost, char *err,
                    size_t errlen);

/* --- checking flows ------------------------------------------------------*/

/* fct_check_flow verifies g's current flow: capacities and mass balance
 * (fc_graph_check), the cost recomputed arc by arc against both
 * fc_graph_flow_cost and reported_cost, and, if check_optimal, that the
 * residual network has no negative-cost cycle (an optimality certificate
 * independent of the solver's prices). Returns true, or false with the
 * first problem in err. */
bool fct_check_flow(const fc_graph *g, fc_int128 reported_cost,
                    bool check_optimal, char *err, size_t errlen);

/* fct_flow_ok is fct_check_flow with the optimality check, for a test's
 * assertion: on failure it prints the problem as a TAP diagnostic. */
bool fct_flow_ok(const fc_graph *g, fc_int128 reported_cost);

/* fct_capacities_ok returns whether every live arc of g carries a flow in
 * [0, capacity]: what must hold after any solve, also an infeasible or a
 * cancelled one. Costs one pass over the arcs. */
bool fct_capacities_ok(const fc_graph *g);

/* --- solving -------------------------------------------------------------*/

/* fct_options returns fc_solve_options_init's defaults (no cancel flag,
 * the tuned cost-scaling alpha) with the algorithm and incremental set. */
fc_solve_options fct_options(fc_algorithm alg, bool incremental);

/* fct_solve_fresh solves a clone of g from scratch with alg, leaving g
 * untouched, and returns fc_solve's verdict, with the cost it reported in
 * cost: the reference an incremental or another algorithm's solve of g is
 * compared with. Bails out of the test when the clone cannot be made.
 * Costs a clone of g and one solve. */
int fct_solve_fresh(const fc_graph *g, fc_algorithm alg, fc_int128 *cost);

/* fct_matches_ssp solves g with opt and compares the outcome with
 * successive shortest path solving a clone of g from scratch: the same
 * verdict, every flow within its capacity, and when feasible the same cost
 * and a flow that checks (fct_check_flow, optimality included). Returns
 * true when all hold, or false with the first difference in why. The
 * solve's statistics go to st, the reference's verdict to want_rc. Bails
 * out of the test when the clone cannot be made. Costs a clone of g, two
 * solves and a flow check. */
bool fct_matches_ssp(fc_graph *g, const fc_solve_options *opt,
                     fc_solve_stats *st, int *want_rc, char *why, size_t len);

/* fct_solve_is solves g with opt and records two TAP assertions: the solve
 * succeeds ("WHAT: solved") and reports the cost want ("WHAT: cost N").
 * Returns whether both held. */
bool fct_solve_is(fc_graph *g, const fc_solve_options *opt, int64_t want,
                  const char *what);

/* --- small fixed networks and shared checks ------------------------------*/

/* The two-route network of the hand-made solver tests: 5 units from s (5)
 * to t (-5) over the cheap and narrow s->a->t (s->a capacity 2, a->t
 * capacity 10, cost 1 each) or the dear and wide s->b->t (capacity 10,
 * cost 3 each). Its optimum sends 2 units the cheap way: cost 22. */
typedef struct fct_routes {
    fc_graph *rt_g;
    fc_node rt_s, rt_a, rt_b, rt_t;
    fc_arc rt_sa, rt_at, rt_sb, rt_bt;
} fct_routes;

/* fct_two_routes builds the two-route network in a new graph, r->rt_g,
 * which it also returns and the caller frees with fc_graph_free. Bails out
 * of the test when it cannot be built. */
fc_graph *fct_two_routes(fct_routes *r);

/* fct_check_negative_cycle records three TAP assertions about alg on a
 * network with no supply whose optimum is negative: a cycle a->b->c->a
 * (costs -5, 1 and 1; room 4, 3 and 9), a negative self-loop at a (room 2,
 * cost -1) and a free one at b (room 2, cost 0). The solve succeeds, at the
 * cost of the saturated cycle and negative self-loop, 3 * -3 - 2 = -11,
 * with a flow that checks (fct_flow_ok). */
void fct_check_negative_cycle(fc_algorithm alg);

/* fct_check_cancel records four TAP assertions about the caller's
 * cancellation of alg on g, a feasible network: a solve whose cancel flag
 * is already set returns FC_ECANCELED, leaves every flow within its
 * capacity, and an incremental solve after clearing the flag solves g to
 * the optimal cost (successive shortest path from scratch) with a flow
 * that checks (fct_check_flow, optimality included). Leaves g solved.
 * Costs two solves of g and one of a clone. */
void fct_check_cancel(fc_graph *g, fc_algorithm alg);

#endif /* FC_TESTUTIL_H */
