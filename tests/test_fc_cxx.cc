/*
 * test_fc_cxx.cc - flowcore.h compiles as C++ (C++11, -Wall -Wextra
 * -Werror -pedantic; see flowcore/flowcore.mk) and its API works from a
 * C++ program linked to the shared library: a small network solved, the
 * cancel flag set and cleared, a 128-bit cost printed. flowcore.h is the
 * only flowcore header included; TAP is printed here, since tests/tap.h is
 * C only.
 */
#include "flowcore.h"

#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace
{

int planned = 0, failed = 0;

void ok(bool cond, const char *what)
{
    ++planned;
    if (!cond)
        ++failed;
    std::printf("%sok %d - %s\n", cond ? "" : "not ", planned, what);
}

} // namespace

int main()
{
    alarm(30); /* make check must never hang */

    fc_graph *g = nullptr;
    ok(fc_graph_new(&g) == 0, "fc_graph_new");
    fc_node s, a, t;
    fc_arc sa, at, st;
    bool built = fc_node_add(g, 3, FC_NODE_TASK, &s) == 0 &&
                 fc_node_add(g, 0, FC_NODE_AGGREGATOR, &a) == 0 &&
                 fc_node_add(g, -3, FC_NODE_SINK, &t) == 0 &&
                 fc_arc_add(g, s, a, 2, 1, &sa) == 0 &&
                 fc_arc_add(g, a, t, 9, 1, &at) == 0 &&
                 fc_arc_add(g, s, t, 9, 5, &st) == 0;
    ok(built, "three nodes and three arcs added");

    fc_cancel *stop = nullptr;
    ok(fc_cancel_new(&stop) == 0 && !fc_cancel_is_set(stop),
       "fc_cancel_new: a flag, not set");
    fc_cancel_set(stop, true);
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    opt.so_cancel = stop;
    ok(fc_cancel_is_set(stop) && fc_solve(g, &opt, nullptr) == FC_ECANCELED,
       "a set flag cancels the solve");
    fc_cancel_set(stop, false);

    fc_algorithm alg;
    ok(fc_algorithm_parse("race", &alg) == 0 && alg == FC_ALG_RACE,
       "fc_algorithm_parse");
    opt.so_algorithm = alg;
    fc_solve_stats stats;
    std::memset(&stats, 0, sizeof stats);
    int rc = fc_solve(g, &opt, &stats);
    /* 2 units through a at 2 each, 1 unit direct at 5 */
    ok(rc == 0 && stats.ss_cost == 9 && fc_graph_flow_cost(g) == 9 &&
           fc_arc_flow(g, sa) == 2 && fc_arc_flow(g, st) == 1,
       "the flag cleared, race solves it at cost 9");
    char err[128];
    ok(fc_graph_check(g, err, sizeof err) == 0, "the flow checks");

    char buf[FC_INT128_BUFSIZE];
    fc_int128 big = static_cast<fc_int128>(FC_MAX_CAPACITY) * FC_MAX_COST;
    ok(std::strcmp(fc_int128_format(-big, buf, sizeof buf),
                   "-4722366482869645213696") == 0,
       "fc_int128_format prints -2^72");
    ok(std::strcmp(fc_strerror(FC_EINFEASIBLE),
                   "infeasible: no flow meets the supplies") == 0,
       "fc_strerror");

    fc_cancel_free(stop);
    fc_graph_free(g);
    std::printf("1..%d\n", planned);
    return failed == 0 ? 0 : 1;
}
