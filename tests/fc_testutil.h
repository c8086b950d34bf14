/*
 * fc_testutil.h - helpers shared by the flowcore tests: a seeded random
 * generator of flow networks (generic networks with the awkward cases, and
 * scheduling-shaped ones), a runner for LEMON's dimacs-solver as the
 * independent reference, and a checker of returned flows.
 *
 * The helpers use only flowcore's public API and write their own DIMACS for
 * LEMON, so the reference path does not depend on the code under test.
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

/* fct_rng_next returns the next 64 random bits. */
uint64_t fct_rng_next(fct_rng *r);

/* fct_rng_range returns a uniform integer in [lo, hi] (lo <= hi). */
int64_t fct_rng_range(fct_rng *r, int64_t lo, int64_t hi);

/* fct_rng_pct returns true with probability pct percent. */
bool fct_rng_pct(fct_rng *r, int pct);

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

/* fct_sched_free frees s and its graph. */
void fct_sched_free(fct_sched *s);

/* --- the LEMON reference -------------------------------------------------*/

/* fct_lemon_path returns the dimacs-solver to use ($DIMACS_SOLVER, if it
 * names an executable), or NULL. */
const char *fct_lemon_path(void);

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
bool fct_check_flow(const fc_graph *g, int64_t reported_cost,
                    bool check_optimal, char *err, size_t errlen);

#endif /* FC_TESTUTIL_H */
