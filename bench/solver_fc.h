/*
 * solver_fc.h - the flowcore side of the solver benchmark, in C: solving a
 * graph with one of flowcore's algorithms under a time limit and checking
 * the flow, cloning graphs, measuring a graph's memory, and exporting a
 * graph as plain arrays (for LEMON) or as a DIMACS file (for
 * dimacs-solver).
 *
 * flowcore.h uses C11 atomics, which C++ cannot include; the C++ harness
 * (solver.cc) reaches flowcore only through this header, which names the
 * graph as an opaque struct and the algorithms by index.
 */
#ifndef SOLVER_FC_H
#define SOLVER_FC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fc_graph;

/* flowcore's algorithms, in the order of fc_algorithm. */
#define BF_ALG_SSP   0
#define BF_ALG_CS    1
#define BF_ALG_RELAX 2
#define BF_ALG_RACE  3
#define BF_NALG      4

/* bf_algorithm_name returns flowcore's name of algorithm alg. */
const char *bf_algorithm_name(int alg);

/* bf_strerror returns flowcore's text for an FC_E* code. */
const char *bf_strerror(int rc);

/* bf_not_built tells whether rc means "this algorithm is not in the
 * library" (fc_solve returns FC_EINVAL for an algorithm it cannot run). */
bool bf_not_built(int rc);

/* bf_infeasible tells whether rc means no flow meets the supplies. */
bool bf_infeasible(int rc);

/* bf_cancelled tells whether rc means the solve hit the time limit. */
bool bf_cancelled(int rc);

typedef struct bf_result {
    int br_rc;         /* fc_solve's return: 0 or an FC_E* code */
    double br_seconds; /* wall time of fc_solve */
    int64_t br_cost;   /* cost of the flow (when br_rc == 0 and it fits
                          64 bits, else br_flow_ok is false) */
    int br_winner;     /* the algorithm that produced the flow */
    bool br_flow_ok;   /* the flow passed fc_graph_check */
    char br_err[160];  /* fc_graph_check's complaint, if any */
} bf_result;

/* bf_solve runs fc_solve on g with algorithm alg, from scratch or
 * incrementally, cancelling it after timeout seconds (<= 0: no limit),
 * then checks the flow (outside the timed part). Returns out->br_rc. */
int bf_solve(struct fc_graph *g, int alg, bool incremental, double timeout,
             bf_result *out);

/* bf_clone deep-copies g (fc_graph_clone). Returns 0 or an FC_E* code. */
int bf_clone(const struct fc_graph *g, struct fc_graph **out);

/* bf_free frees g (fc_graph_free). */
void bf_free(struct fc_graph *g);

/* Live node and arc counts of g. */
int32_t bf_nodes(const struct fc_graph *g);
int32_t bf_arcs(const struct fc_graph *g);

/* bf_graph_bytes returns the bytes g's arrays hold (allocated capacity,
 * adjacency arrays, change record, both flow states and the solvers'
 * scratch memory kept between solves included; malloc's own overhead
 * not). */
size_t bf_graph_bytes(const struct fc_graph *g);

/* bf_own_pages writes every page of the memory g's solvers write (both
 * flow states, the scratch slots) back with what it holds. A fork marks
 * this process's pages copy-on-write, and the first write to each page
 * after it takes a fault, even once the child is gone: call this after
 * forking, so that the timed solves do not pay faults that a solver in a
 * process that never forks would not. */
void bf_own_pages(struct fc_graph *g);

/* A graph as plain arrays, nodes renumbered densely from 0. */
typedef struct bf_export {
    int32_t be_nodes;
    int64_t *be_supply; /* [nodes] */
    int32_t be_arcs;
    int32_t *be_src;  /* [arcs] */
    int32_t *be_dst;  /* [arcs] */
    int64_t *be_cap;  /* [arcs] */
    int64_t *be_cost; /* [arcs] */
} bf_export;

/* bf_export fills out from g. Returns 0 or an FC_E* code (out is then
 * empty). Free with bf_export_free. */
int bf_export_graph(const struct fc_graph *g, bf_export *out);

/* bf_export_free frees the arrays of e. */
void bf_export_free(bf_export *e);

/* bf_write_dimacs writes e to path in the DIMACS min-cost-flow format
 * (nodes numbered from 1). Returns 0 or FC_EIO. */
int bf_write_dimacs(const bf_export *e, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SOLVER_FC_H */
