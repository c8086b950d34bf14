/*
 * fc_solve.c - the solve entry point: picks the algorithm, times it, and
 * keeps the graph's record of changes in step with its flow.
 */
#include "fc_graph_impl.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const algorithm_names[] = {"ssp", "cost-scaling", "relax",
                                              "race"};

const char *fc_strerror(int err)
{
    switch (err) {
    case FC_OK:
        return "success";
    case FC_EINVAL:
        return "invalid argument";
    case FC_ENOMEM:
        return "out of memory";
    case FC_ELIMIT:
        return "size limit exceeded";
    case FC_EINFEASIBLE:
        return "infeasible: no flow meets the supplies";
    case FC_ESYNTAX:
        return "malformed input";
    case FC_ECANCELED:
        return "cancelled";
    case FC_EIO:
        return "I/O error";
    }
    return "unknown error";
}

void fc_assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "flowcore: assertion failed: %s (%s:%d)\n", cond, file,
            line);
    abort();
}

const char *fc_algorithm_name(fc_algorithm alg)
{
    if ((unsigned)alg > FC_ALG_RACE)
        return "?";
    return algorithm_names[alg];
}

int fc_algorithm_parse(const char *name, fc_algorithm *out)
{
    for (int i = 0; i <= FC_ALG_RACE; i++) {
        if (strcmp(name, algorithm_names[i]) == 0) {
            *out = (fc_algorithm)i;
            return 0;
        }
    }
    return FC_EINVAL;
}

int fc_cancel_new(fc_cancel **out)
{
    fc_cancel *c = malloc(sizeof *c);
    if (c == NULL)
        return FC_ENOMEM;
    atomic_init(&c->cn_stop, false);
    *out = c;
    return 0;
}

void fc_cancel_free(fc_cancel *c)
{
    free(c);
}

void fc_cancel_set(fc_cancel *c, bool stop)
{
    atomic_store(&c->cn_stop, stop);
}

bool fc_cancel_is_set(const fc_cancel *c)
{
    return atomic_load(&c->cn_stop);
}

void fc_solve_options_init(fc_solve_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->so_algorithm = FC_ALG_RACE;
    opt->so_incremental = true;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) +
           (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

int fc_solve(fc_graph *g, const fc_solve_options *opt, fc_solve_stats *stats)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (!opt->so_incremental)
        fc_graph_reset_flow(g);

    fc_algorithm used = opt->so_algorithm;
    uint64_t work = 0, relax_work = 0;
    int rc;
    switch (opt->so_algorithm) {
    case FC_ALG_SSP:
        rc = fc_ssp_solve(g, &g->g_st, opt, NULL, &work);
        break;
    case FC_ALG_COST_SCALING:
        if (!fc_cs_fits(g, opt))
            used = FC_ALG_SSP;
        rc = fc_cs_solve(g, &g->g_st, opt, g->g_scratch, &work);
        break;
    case FC_ALG_RELAX:
        if (opt->so_relax_budget > 0) {
            rc = fc_budget_solve(g, &g->g_st, opt, g->g_scratch, &used,
                                 &relax_work, &work);
        } else {
            rc = fc_relax_solve(g, &g->g_st, opt, NULL, g->g_scratch,
                                &relax_work);
        }
        break;
    case FC_ALG_RACE:
        rc = fc_race_solve(g, &g->g_st, &g->g_spare, opt, g->g_scratch,
                           &g->g_race_hint, &used, &relax_work);
        break;
    default:
        return FC_EINVAL;
    }
    g->g_optimal = rc == 0;
    if (rc == 0) {
        g->g_nchanges = 0;
        g->g_changes_lost = false;
    } else {
        /* A solve that stopped short of an optimum (infeasible, cancelled,
         * out of memory) leaves a flow and prices that the record of
         * changes no longer describes: cost scaling's rough prices, say,
         * break complementary slackness on arcs no change touched. The
         * next incremental solve must look at every arc. */
        g->g_changes_lost = true;
    }
    if (stats != NULL) {
        stats->ss_algorithm = used;
        stats->ss_seconds = seconds_since(&start);
        stats->ss_cost = fc_graph_flow_cost(g);
        stats->ss_iterations = relax_work + work;
        stats->ss_relax_work = relax_work;
    }
    return rc;
}
