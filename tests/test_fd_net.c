/*
 * test_fd_net.c - reading the flow task by task (fd_net_follow), as a
 * round does for the tasks that can move, against fc_placements' reading
 * of the whole flow: on random Quincy-style networks (fct_sched, solved,
 * then changed by random events and solved again), following every task
 * places the same tasks and the same number on every machine;
 * following a random part of them, in random order, never hands a machine
 * more tasks than reach it; a task's unit is taken once per reading.
 */
#include "fc_testutil.h"
#include "fd_int.h"
#include "tap.h"

#include <stdlib.h>

/* Follow tasks in a random order (all of them, or each with
 * probability pct), counting per machine and per task placed into per[]
 * (by graph node); the number placed
 * into *placed. Every task followed a second time must find nothing.
 * Returns false when a task reached a node that is not a machine. */
static bool follow_some(fct_rng *r, fd_net *net, const fct_sched *s, int pct,
                        int64_t *per, int64_t *placed)
{
    int32_t n = s->sc_ntasks;
    int32_t *order = malloc((size_t)n * sizeof *order);
    if (order == NULL || fd_net_read_begin(net) != 0)
        tap_bail_out("out of memory");
    for (int32_t i = 0; i < n; i++)
        order[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)fct_rng_range(r, 0, i);
        int32_t x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    bool ok = true;
    *placed = 0;
    for (int32_t i = 0; i < n; i++) {
        fc_node t = s->sc_tasks[order[i]];
        if (t == FC_NONE || !fct_rng_pct(r, pct))
            continue;
        fc_node m = fd_net_follow(net, t);
        if (m == FC_NONE)
            continue;
        ok = ok && fc_node_get_type(net->nt_g, m) == FC_NODE_MACHINE &&
             fd_net_follow(net, t) == FC_NONE;
        per[m]++; /* tasks and machines have ids of their own: */
        per[t]++; /* per[] also says which tasks were placed */
        (*placed)++;
    }
    free(order);
    return ok;
}

static void test_random(uint64_t seed)
{
    fct_rng r;
    fct_rng_seed(&r, seed);
    fct_sched s;
    int32_t machines = (int32_t)fct_rng_range(&r, 4, 40);
    if (fct_sched_build(&r, machines, (int32_t)fct_rng_range(&r, 2, 8),
                        (int32_t)fct_rng_range(&r, 1, 6),
                        (int32_t)fct_rng_range(&r, 2, 12),
                        fct_rng_range(&r, 1, 3), &s) != 0)
        tap_bail_out("seed %llu: network not built", (unsigned long long)seed);
    fd_net *net;
    if (fd_net_new(&net) != 0)
        tap_bail_out("out of memory");
    fc_graph_free(net->nt_g);
    net->nt_g = s.sc_g; /* borrowed: s frees it */
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    bool same = true, within = true, once = true;
    int rounds = 0;
    for (int round = 0; round < 8; round++) {
        if (fc_solve(s.sc_g, &opt, NULL) != 0)
            break; /* an event made it infeasible: enough */
        rounds++;
        size_t bound = (size_t)fc_graph_node_bound(s.sc_g);
        int64_t *want = calloc(bound, sizeof *want);
        int64_t *all = calloc(bound, sizeof *all);
        int64_t *some = calloc(bound, sizeof *some);
        fc_placement *pl = NULL;
        size_t npl = 0;
        if (want == NULL || all == NULL || some == NULL ||
            fc_placements(s.sc_g, &pl, &npl) != 0)
            tap_bail_out("out of memory");
        for (size_t i = 0; i < npl; i++) {
            want[pl[i].pl_machine]++;
            want[pl[i].pl_task]++;
        }
        int64_t placed, part;
        once = follow_some(&r, net, &s, 100, all, &placed) && once;
        once = follow_some(&r, net, &s, 50, some, &part) && once;
        same = same && placed == (int64_t)npl;
        for (size_t v = 0; v < bound; v++) {
            same = same && all[v] == want[v];
            within = within && some[v] <= want[v];
        }
        free(pl);
        free(want);
        free(all);
        free(some);
        for (int e = (int)fct_rng_range(&r, 1, 6); e > 0; e--)
            fct_sched_event(&r, &s);
    }
    tap_ok(rounds > 0 && same,
           "seed %llu: following every task places the tasks fc_placements "
           "places, as many on each machine (%d solves)",
           (unsigned long long)seed, rounds);
    tap_ok(within && once,
           "seed %llu: a part followed stays within each machine's share; "
           "a unit is taken once",
           (unsigned long long)seed);
    net->nt_g = NULL;
    fd_net_free(net);
    fct_sched_free(&s);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    for (uint64_t seed = 1; seed <= 40; seed++)
        test_random(seed);
    tap_done();
    return tap_exit_status();
}
