/*
 * sched_metrics.h - skylark-sched's part of /metrics: the scheduler
 * core's counters and gauges (sched_stats) as Prometheus families
 * skylark_sched_* (docs/DAEMONS.md lists them).
 */
#ifndef SCHED_METRICS_H
#define SCHED_METRICS_H

#include "sched_core.h"
#include "sk_metrics.h"

/* sched_metrics appends the families of core c to o. Loop thread. */
void sched_metrics(const sched_core *c, sk_metrics_out *o);

#endif /* SCHED_METRICS_H */
