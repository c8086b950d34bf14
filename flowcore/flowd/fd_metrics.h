/*
 * fd_metrics.h - skylark-flowd's part of /metrics: the flow node core's
 * counters and gauges (fd_stats) as Prometheus families skylark_flowd_*,
 * and what the daemon observes of each round as it ends: the solve's
 * wall time and the round's events as histograms, the winning
 * algorithm as a label (docs/DAEMONS.md lists them).
 */
#ifndef FD_METRICS_H
#define FD_METRICS_H

#include "fd_core.h"
#include "sk_metrics.h"

/* What the daemon saw of the rounds. Loop thread only. */
typedef struct fd_round_metrics {
    sk_histogram rm_solve_s;          /* wall time of each solve, seconds */
    sk_histogram rm_events;           /* changes each round applied */
    uint64_t rm_won[FC_ALG_RACE + 1]; /* solves by the algorithm that
                                         produced the flow */
} fd_round_metrics;

/* fd_round_metrics_init empties m. */
void fd_round_metrics_init(fd_round_metrics *m);

/* fd_round_metrics_observe counts a round that ended: its solve st and
 * the core's statistics after fd_round_end (fs_last_events). */
void fd_round_metrics_observe(fd_round_metrics *m, const fc_solve_stats *st,
                              const fd_stats *fs);

/* fd_metrics appends the families of core c and of m to o. */
void fd_metrics(const fd_core *c, const fd_round_metrics *m, sk_metrics_out *o);

#endif /* FD_METRICS_H */
