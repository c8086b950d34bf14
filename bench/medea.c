/*
 * medea.c - placement constraints against the exact optimum: MEDEA-shaped
 * instances (tests/medea_lp.h) of growing size placed by the flow node's
 * fd_cx_place and by GLPK's glpsol on MEDEA's integer program, in the
 * same run. Prints per size the tasks left waiting, the soft weight
 * broken and the objective of both, and the time of both (medians with
 * [min-max]).
 *
 * With --scale, no GLPK: one instance of 100 tasks on 1,000 to 10,000
 * nodes, placed with its constraints and, as the anchor in the same run,
 * without them (the same network and passes, no gate, nothing to
 * repair), medians of --seeds runs.
 *
 * Usage: bench/medea [--seeds N] [--tmlim SEC] [--max-nodes N] [--room R]
 *                    [--scale]
 * Exit 0 done, 1 glpsol missing or failing, 2 bad usage.
 */
#include "fd_constraint.h"
#include "medea_lp.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void spread(double *v, int n, double scale, const char *unit)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    printf("%8.2f %s [%.2f-%.2f]", v[n / 2] * scale, unit, v[0] * scale,
           v[n - 1] * scale);
}

/* Placement time against the cluster size, with and without the
 * constraints. */
static int run_scale(int seeds, uint32_t room)
{
    static const uint32_t nodes[] = {1000, 2000, 5000, 10000};
    printf("nodes tasks | constrained: waiting hard soft-weight time | "
           "unconstrained anchor time | ratio\n");
    for (size_t z = 0; z < sizeof nodes / sizeof nodes[0]; z++) {
        double tc[100], tu[100], ratio[100];
        unsigned long long wait = 0, hard = 0, soft = 0;
        for (int s = 0; s < seeds; s++) {
            medea_inst mi;
            if (medea_gen(&mi, (uint64_t)s + 7, nodes[z], 100, room) != 0)
                return 1;
            fd_cx_stats st;
            fd_cx_score sc;
            double t0 = now_s();
            fd_cx_place(&mi.mi_x, &st);
            tc[s] = now_s() - t0;
            fd_cx_eval(&mi.mi_x, &sc);
            wait += sc.cs_unplaced;
            hard += sc.cs_hard;
            soft += sc.cs_soft_weight;
            mi.mi_x.cx_ncons = 0;
            t0 = now_s();
            fd_cx_place(&mi.mi_x, &st);
            tu[s] = now_s() - t0;
            ratio[s] = tc[s] / tu[s];
            medea_gen_free(&mi);
        }
        printf("%5u   100 | %7llu %4llu %11llu ", nodes[z], wait, hard, soft);
        spread(tc, seeds, 1000, "ms");
        printf(" | ");
        spread(tu, seeds, 1000, "ms");
        printf(" | ");
        spread(ratio, seeds, 1, "x");
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int seeds = 5, tmlim = 60, max_nodes = 50, room = 2, scale = 0;
    static const struct option opts[] = {
        {"seeds", 1, NULL, 's'},     {"tmlim", 1, NULL, 't'},
        {"max-nodes", 1, NULL, 'n'}, {"room", 1, NULL, 'r'},
        {"scale", 0, NULL, 'S'},     {"help", 0, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            seeds = atoi(optarg);
            break;
        case 't':
            tmlim = atoi(optarg);
            break;
        case 'n':
            max_nodes = atoi(optarg);
            break;
        case 'r':
            room = atoi(optarg);
            break;
        case 'S':
            scale = 1;
            break;
        case 'h':
            printf("usage: bench/medea [--seeds N] [--tmlim SEC] "
                   "[--max-nodes N] [--room R] [--scale]\n");
            return 0;
        default:
            return 2;
        }
    }
    if (seeds < 1 || seeds > 100 || tmlim < 1 || max_nodes < 4 || room < 1 ||
        room > 16) {
        fprintf(stderr, "bench/medea: bad option value\n");
        return 2;
    }
    if (scale)
        return run_scale(seeds, (uint32_t)room);
    if (medea_lp_glpsol() == NULL) {
        fprintf(stderr, "bench/medea: glpsol not found (glpk-utils)\n");
        return 1;
    }
    char dir[] = "/tmp/skylark-medea-bench-XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 1;
    static const unsigned sizes[][2] = {
        {10, 20}, {20, 40}, {30, 60}, {40, 80}, {50, 100}};
    printf("nodes tasks | n opt | waiting ours/opt | soft weight ours/opt | "
           "objective gap sum | at optimum | ours time | glpsol time\n");
    int rc = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        if ((int)sizes[z][0] > max_nodes)
            break;
        double tours[100], tglp[100];
        int n = 0, opt = 0, same = 0;
        unsigned long long wo = 0, wg = 0, so = 0, sg = 0, gap = 0;
        for (int s = 1; s <= seeds; s++) {
            medea_inst mi;
            if (medea_gen(&mi, (uint64_t)s * 1000 + z, sizes[z][0], sizes[z][1],
                          (uint32_t)room) != 0)
                return 1;
            fd_cx_stats st;
            fd_cx_score ours, best;
            double t0 = now_s();
            fd_cx_place(&mi.mi_x, &st);
            tours[n] = now_s() - t0;
            fd_cx_eval(&mi.mi_x, &ours);
            medea_lp_result lr;
            char err[256];
            if (medea_lp_solve(&mi.mi_x, dir, tmlim, &lr, err, sizeof err) !=
                0) {
                fprintf(stderr, "bench/medea: %s\n", err);
                rc = 1;
                medea_gen_free(&mi);
                continue;
            }
            fd_cx_eval(&mi.mi_x, &best);
            tglp[n] = lr.lr_seconds;
            opt += lr.lr_optimal;
            wo += ours.cs_unplaced;
            wg += best.cs_unplaced;
            so += ours.cs_soft_weight;
            sg += best.cs_soft_weight;
            if (ours.cs_objective >= best.cs_objective)
                gap += ours.cs_objective - best.cs_objective;
            else /* the program or the evaluator is wrong, or a limit */
                fprintf(stderr,
                        "bench/medea: %u nodes seed %d: ours %llu below "
                        "glpsol's %llu (%s)\n",
                        sizes[z][0], s, (unsigned long long)ours.cs_objective,
                        (unsigned long long)best.cs_objective,
                        lr.lr_optimal ? "proved optimal" : "time limit");
            same += ours.cs_objective <= best.cs_objective;
            n++;
            medea_gen_free(&mi);
        }
        if (n == 0)
            continue;
        printf("%5u %5u | %d %3d | %8llu/%-6llu | %9llu/%-9llu | %17llu | "
               "%7d/%-2d | ",
               sizes[z][0], sizes[z][1], n, opt, wo, wg, so, sg, gap, same, n);
        spread(tours, n, 1000, "ms");
        printf(" | ");
        spread(tglp, n, 1, "s");
        printf("\n");
        fflush(stdout);
    }
    char path[300];
    const char *files[] = {"medea.lp", "medea.sol", "glpsol.log"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return rc;
}
