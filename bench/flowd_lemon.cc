/*
 * flowd_lemon.cc - LEMON's NetworkSimplex and CostScaling timed from
 * scratch on a DIMACS file (flowd_lemon.h).
 */
#include "flowd_lemon.h"

/* GCC 12 warns, wrongly, that LEMON's graph nodes are copied uninitialised
 * when their vectors grow (inside libstdc++); the warning is not ours. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <lemon/cost_scaling.h>
#include <lemon/dimacs.h>
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>

namespace
{

typedef lemon::SmartDigraph Digraph;

double now_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct Problem {
    Digraph g;
    Digraph::ArcMap<int64_t> lower{g}, cap{g}, cost{g};
    Digraph::NodeMap<int64_t> supply{g};
};

template <class Alg> void solve(Problem &p, int runs, bfl_result *out)
{
    out->br_optimal = 1;
    for (int i = 0; i < runs; i++) {
        double start = now_seconds();
        Alg alg(p.g);
        alg.lowerMap(p.lower).upperMap(p.cap).costMap(p.cost).supplyMap(
            p.supply);
        typename Alg::ProblemType pt = alg.run();
        out->br_seconds[out->br_runs++] = now_seconds() - start;
        if (pt != Alg::OPTIMAL)
            out->br_optimal = 0;
        else
            out->br_cost = alg.template totalCost<int64_t>();
    }
}

} // namespace

const char *bfl_name(int which)
{
    return which == BFL_NS ? "lemon-ns" : "lemon-cs";
}

int bfl_solve_file(const char *path, int which, int runs, bfl_result *out,
                   char *err, size_t errlen)
{
    *out = bfl_result();
    if (runs < 1)
        runs = 1;
    if (runs > 16)
        runs = 16;
    Problem p;
    try {
        std::ifstream in(path);
        if (!in) {
            snprintf(err, errlen, "%s: cannot open", path);
            return -1;
        }
        lemon::readDimacsMin(in, p.g, p.lower, p.cap, p.cost, p.supply);
    } catch (const std::exception &e) {
        snprintf(err, errlen, "%s: %s", path, e.what());
        return -1;
    }
    out->br_nodes = p.g.nodeNum();
    out->br_arcs = p.g.arcNum();
    if (which == BFL_NS)
        solve<lemon::NetworkSimplex<Digraph, int64_t, int64_t>>(p, runs, out);
    else
        solve<lemon::CostScaling<Digraph, int64_t, int64_t>>(p, runs, out);
    return 0;
}
