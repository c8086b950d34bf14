/*
 * sim_testrun.c - one simulation run for the simulator's tests
 * (sim_testrun.h).
 */
#include "sim_testrun.h"

#include "sim_flow.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>

void sim_test_run(sim_params *p, sim_names *names, sim_test_out *o)
{
    memset(names, 0, sizeof *names);
    memset(o, 0, sizeof *o);
    FILE *rf = open_memstream(&o->rec, &o->rec_len);
    p->p_tasks_out = rf;
    sim_flow *flow = NULL;
    if (p->p_mix != SIM_MIX_SAMPLING)
        o->rc = sim_flow_new(p, &flow, o->err, sizeof o->err);
    o->pt.pt_p = *p;
    bool bad;
    if (o->rc == 0)
        o->rc =
            sim_run(p, names, flow, &o->pt.pt_r, &bad, o->err, sizeof o->err);
    sim_flow_free(flow);
    fclose(rf);
    FILE *sf = open_memstream(&o->sum, &o->sum_len);
    if (o->rc == 0)
        sim_report_print(sf, &o->pt, names, 0, 1);
    else
        tap_diag("%s: %s", sim_mix_name(p->p_mix), o->err);
    fclose(sf);
}
