/*
 * solver_fc.h - the flowcore side of the solver benchmark, in C: solving a
 * graph with one of flowcore's algorithms under a time limit and checking
 * the flow, measuring a graph's memory, and exporting a graph as plain
 * arrays (for LEMON) or as a DIMACS file (for dimacs-solver): what needs
 * flowcore's internals (fc_graph_impl.h, C only). The C++ harness
 * (solver.cc) uses flowcore.h itself for the rest; algorithms are named
 * by fc_algorithm's values as ints.
 */
#ifndef SOLVER_FC_H
#define SOLVER_FC_H

#include "flowcore.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
int bf_solve(fc_graph *g, int alg, bool incremental, double timeout,
             bf_result *out);

/* bf_graph_bytes returns the bytes g's arrays hold (allocated capacity,
 * adjacency arrays, change record, both flow states and the solvers'
 * scratch memory kept between solves included; malloc's own overhead
 * not). */
size_t bf_graph_bytes(const fc_graph *g);

/* bf_own_pages writes every page of the memory g's solvers write (both
 * flow states, the scratch slots) back with what it holds. A fork marks
 * this process's pages copy-on-write, and the first write to each page
 * after it takes a fault, even once the child is gone: call this after
 * forking, so that the timed solves do not pay faults that a solver in a
 * process that never forks would not. */
void bf_own_pages(fc_graph *g);

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
int bf_export_graph(const fc_graph *g, bf_export *out);

/* bf_export_free frees the arrays of e. */
void bf_export_free(bf_export *e);

/* bf_write_dimacs writes e to path in the DIMACS min-cost-flow format
 * (nodes numbered from 1). Returns 0 or FC_EIO. */
int bf_write_dimacs(const bf_export *e, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SOLVER_FC_H */
