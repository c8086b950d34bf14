/*
 * flowd_lemon.h - bench/flowd's anchor: LEMON's min-cost flow algorithms
 * timed from scratch on a DIMACS file (the network fd_core_dump wrote).
 * C++ inside (flowd_lemon.cc), C interface, so that bench/flowd.c stays C.
 */
#ifndef BENCH_FLOWD_LEMON_H
#define BENCH_FLOWD_LEMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The LEMON algorithms the anchor tries. */
enum { BFL_NS = 0, BFL_CS = 1, BFL_N = 2 };

/* bfl_name returns "lemon-ns" or "lemon-cs". */
const char *bfl_name(int which);

/* The outcome of bfl_solve_file. */
typedef struct bfl_result {
    double br_seconds[16]; /* wall time of each run */
    int br_runs;           /* runs done (<= 16) */
    int br_optimal;        /* 1: every run found an optimum */
    int64_t br_cost;       /* its cost */
    int32_t br_nodes, br_arcs;
} bfl_result;

/* bfl_solve_file reads the DIMACS min-cost flow problem at path into a
 * LEMON SmartDigraph (not timed) and solves it `runs` times (1..16) from
 * scratch with algorithm `which`; each run's time includes constructing
 * the algorithm object, which copies the graph into its own arrays (part
 * of a from-scratch solve). Returns 0, or -1 with a message in err when
 * the file cannot be read. Memory: LEMON's graph and the algorithm's
 * arrays; run it in a child process to keep them out of the caller's
 * peak RSS. */
int bfl_solve_file(const char *path, int which, int runs, bfl_result *out,
                   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_FLOWD_LEMON_H */
