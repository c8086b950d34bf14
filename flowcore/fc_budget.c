/*
 * fc_budget.c - relaxation with a work budget: a deterministic race.
 *
 * Relaxation is the fastest solver on scheduling networks that can take
 * all their supply, and falls into its bad case on over-full ones (more
 * tasks than room: it raises the prices of large trees over and over
 * before the excess settles on the unscheduled arcs; 880 million units,
 * 38 s, for one round of the Google trace on 8,000 machines). The race
 * (fc_race.c) covers that case with cost scaling on a second thread, but
 * the first to finish wins, so its result and its work depend on the
 * machine's timing. Here the two run one after the other instead:
 * relaxation runs until its own work count passes so_relax_budget units
 * per live arc; then it stops (at its next look at the cancel flag, every
 * few thousand units, so a little past the budget) and cost scaling
 * solves the same problem, incrementally, from the state relaxation
 * stopped in. Both counts depend only on the network and the budget, so
 * a solve's result and work are the same on every run, and the caller
 * gets both counts to charge.
 *
 * Cost scaling starts from relaxation's state rather than from the state
 * the solve began with: relaxation keeps complementary slackness on every
 * arc at every step, so the state is a 0-optimal flow with excesses, the
 * start an incremental solve expects; and whatever flow relaxation moved
 * to the demand stays moved. Where cost scaling's scaled prices cannot
 * hold the network's costs (flowd's 2^31 escape arcs on more than about
 * 3,000 nodes), fc_cs_solve hands the solve to successive shortest path,
 * which is then what finishes it (and what the stats name): on the
 * over-full rounds of the trace it is that incremental successive
 * shortest path, not cost scaling, that takes 0.1 s where relaxation
 * takes 38.
 */
#include "fc_graph_impl.h"

/* The budget's check, polled by relaxation wherever it looks at the
 * cancel flag. */
typedef struct budget {
    const uint64_t *bg_work; /* relaxation's work count so far */
    uint64_t bg_limit;
    bool bg_spent;
} budget;

static bool budget_spent(void *arg)
{
    budget *b = arg;
    if (*b->bg_work > b->bg_limit)
        b->bg_spent = true;
    return b->bg_spent;
}

int fc_budget_solve(const fc_graph *g, fc_flow_state *st,
                    const fc_solve_options *opt, fc_scratch *scratch,
                    fc_algorithm *used, uint64_t *relax_work,
                    uint64_t *other_work)
{
    uint64_t arcs = (uint64_t)g->g_alive;
    uint64_t limit = opt->so_relax_budget > UINT64_MAX / (arcs + 1)
                         ? UINT64_MAX
                         : opt->so_relax_budget * (arcs + 1);
    budget b = {.bg_work = relax_work, .bg_limit = limit};
    fc_poll poll = {.pl_stop = budget_spent, .pl_arg = &b};
    *used = FC_ALG_RELAX;
    int rc = fc_relax_solve(g, st, opt, &poll, scratch, relax_work);
    if (rc != FC_ECANCELED || !b.bg_spent || fc_cancelled(opt))
        return rc;
    *used = fc_cs_fits(g, opt) ? FC_ALG_COST_SCALING : FC_ALG_SSP;
    return fc_cs_solve(g, st, opt, scratch, other_work);
}
