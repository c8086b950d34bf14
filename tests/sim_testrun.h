/*
 * sim_testrun.h - one simulation run for the simulator's tests: the
 * flow node made when the mix needs it, the run, its task records and
 * its summary caught in memory.
 */
#ifndef SIM_TESTRUN_H
#define SIM_TESTRUN_H

#include "sim.h"
#include "sim_report.h"

#include <stddef.h>

/* What a run left: its records and summary (malloc, the caller frees
 * them) and, when rc is 0, its result in pt.pt_r (the caller ends
 * pt.pt_r.r_st with sim_stats_fini). */
typedef struct sim_test_out {
    int rc; /* 0, or the failure's code with err saying why */
    char err[600];
    char *rec; /* p_tasks_out's lines */
    size_t rec_len;
    char *sum; /* sim_report_print's summary */
    size_t sum_len;
    sim_point pt;
} sim_test_out;

/* sim_test_run runs p (its p_tasks_out is set here) with names, after
 * clearing *o; with a mix other than sampling through a flow node made
 * for the run. A failure is also told with tap_diag. */
void sim_test_run(sim_params *p, sim_names *names, sim_test_out *o);

#endif /* SIM_TESTRUN_H */
