/*
 * nm_metrics.h - skylark-nodemon's part of /metrics: the node monitor
 * core's counters (nm_stats), its slots (nm_slot_info) and the command
 * executor's counters as Prometheus families skylark_nodemon_*
 * (docs/DAEMONS.md lists them).
 */
#ifndef NM_METRICS_H
#define NM_METRICS_H

#include "nm_cmdexec.h"
#include "nm_core.h"
#include "sk_metrics.h"

/* nm_metrics appends the families of core nm and executor counters cs
 * to o. Loop thread. */
void nm_metrics(const nm_core *nm, const nm_cmdexec_stats *cs,
                sk_metrics_out *o);

#endif /* NM_METRICS_H */
