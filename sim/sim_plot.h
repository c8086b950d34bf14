/*
 * sim_plot.h - gnuplot figures of skylark-sim's results (--plot DIR).
 *
 * One point: the distributions of job response time and task wait, as
 * cumulative fractions (response-cdf, wait-cdf). Several points: the job
 * response time's median, 95th and 99th percentiles, and the fraction of
 * jobs that never waited, against the first parameter that varies among
 * load, probe ratio and slots per node, one line per combination of the
 * others (response-p50, response-p95, response-p99, zero-wait), and when
 * the omniscient scheduler is in the sweep, the median and 95th
 * percentile of each point divided by the omniscient's at the same
 * workload (p50-vs-omniscient, p95-vs-omniscient). Each
 * figure is written as PNG and SVG, beside its data (*.dat) and gnuplot
 * script (*.gp), which `cd DIR && gnuplot NAME.gp` redraws.
 */
#ifndef SIM_PLOT_H
#define SIM_PLOT_H

#include "sim_report.h"

#include <stddef.h>
#include <stdint.h>

/* sim_plot writes the data and scripts of the n points' figures into dir
 * (created if missing) and runs gnuplot on them. title may be NULL.
 * Returns 0, or SK_ESYS with a message in err (a file could not be
 * written, gnuplot is missing or failed: the data and scripts are there
 * to draw by hand). */
int sim_plot(const char *dir, const sim_point *pts, uint32_t n,
             const char *title, char *err, size_t errlen);

#endif /* SIM_PLOT_H */
