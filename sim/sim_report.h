/*
 * sim_report.h - what skylark-sim prints about a point: the summary block
 * on stdout, a row of the summary CSV, and the line of wall-clock
 * performance on stderr (kept out of the results, which must not depend
 * on how fast the machine was).
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include "sim.h"

#include <stdio.h>

/* One simulated point: its parameters and results. */
typedef struct sim_point {
    sim_params pt_p;
    sim_result pt_r;
    double pt_closed; /* zero-wait closed form (sim_theory.h), or NAN */
    bool pt_done;     /* pt_r is valid */
} sim_point;

/* sim_point_closed_form returns the Table 2 closed form for the point's
 * strategy (random, per-task, batch) and generated workload, or NAN. */
double sim_point_closed_form(const sim_params *p);

/* sim_report_print writes the summary of point idx of n to out. */
void sim_report_print(FILE *out, const sim_point *pt, const sim_names *names,
                      uint32_t idx, uint32_t n);

/* sim_report_csv_header and sim_report_csv_row write the summary CSV. */
void sim_report_csv_header(FILE *out);
void sim_report_csv_row(FILE *out, const sim_point *pt);

/* sim_report_perf writes the wall time, events per second and the peak
 * resident memory so far to out. */
void sim_report_perf(FILE *out, const sim_point *pt, uint32_t idx);

#endif /* SIM_REPORT_H */
