/*
 * test_sim_flow.c - skylark-sim's flow path (sim_flow.h) on a small
 * synthetic workload of long and short jobs:
 *
 *  - mixes flow, hybrid and hawk place every task of every long job and
 *    end every job, with the invariants of the real cores checked after
 *    every event (--check), and the flow node's rounds really ran;
 *  - with the solve-time model (--solve-time work) the same seed gives
 *    byte-identical records and summary, for the flow node's mixes;
 *  - hybrid keeps probes off nodes full of long tasks, where sampling
 *    the long jobs too puts probes behind them;
 *  - with a relaxation budget of 1 unit per arc (--relax-budget) every
 *    long task is placed, the output stays the seed's, and the rounds
 *    are relaxation's or, where it passed its budget (it looks every
 *    4,096 units, an arc each), finished by the other solver
 *    (tests/test_fc_budget.c checks the switch itself).
 */
#include "sim.h"
#include "sim_flow.h"
#include "sim_report.h"
#include "sim_testrun.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[] = "/tmp/test_sim_flow.XXXXXX";

/* A workload: 2-task long jobs of 2 s every 100 ms for 2 s (up to 40
 * long tasks at once, under the long cap of 48 of the 16 x 4 slots: the
 * hybrid's schedulers refuse short jobs when every node is saturated, see
 * docs/results/hybrid.md), and 3-task short jobs of 20 ms every 10 ms. */
static void write_jobs(void)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        tap_bail_out("cannot write a job file");
    uint64_t id = 0;
    for (uint64_t t = 0; t < 3000000; t += 10000) {
        if (t % 100000 == 0 && t < 2000000) {
            id++;
            fprintf(f, "%llu,%llu,svc,0,long,2,const:2000000,,\n",
                    (unsigned long long)t, (unsigned long long)id);
        }
        id++;
        fprintf(f, "%llu,%llu,u%llu,0,short,3,exp:20000,,\n",
                (unsigned long long)t, (unsigned long long)id,
                (unsigned long long)(id % 3));
    }
    fclose(f);
}

typedef sim_test_out out;

static int64_t relax_budget = -1; /* p_relax_budget of the runs */
static FILE *rounds_out;          /* p_rounds_out of the runs */

static void run(sim_mix mix, uint64_t seed, bool check, out *o)
{
    static sim_names names;
    sim_params p;
    sim_params_init(&p);
    p.p_nodes = 16;
    p.p_slots = 4;
    p.p_jobs_file = path;
    p.p_jobs = 0;
    p.p_warmup = 0;
    p.p_drain = true;
    p.p_seed = seed;
    p.p_mix = mix;
    p.p_check = check;
    p.p_delay_kind = SIM_DELAY_UNIFORM;
    p.p_relax_budget = relax_budget;
    p.p_rounds_out = rounds_out;
    sim_test_run(&p, &names, o);
}

static void out_free(out *o)
{
    free(o->rec);
    free(o->sum);
    if (o->rc == 0)
        sim_stats_fini(&o->pt.pt_r.r_st);
}

static uint64_t tasks_done(const sim_stats *st)
{
    uint64_t n = 0;
    for (int k = 1; k <= SK_TASK_STATUS_MAX; k++)
        n += st->st_tasks_final[k];
    return n;
}

static void test_places_all(sim_mix mix)
{
    out o;
    run(mix, 1, true, &o);
    const sim_stats *st = &o.pt.pt_r.r_st;
    bool rounds = mix == SIM_MIX_HAWK || strstr(o.sum, "rounds 0 ") == NULL;
    if (o.rc == 0 && (st->st_long_wait.h_n != 40 || !rounds ||
                      st->st_done != st->st_arrived))
        tap_diag("%s", o.sum);
    tap_ok(o.rc == 0 && st->st_long_arrived == 20 && st->st_long_tasks == 40 &&
               st->st_long_wait.h_n == 40 && st->st_long_resp.h_n == 20 &&
               st->st_done == st->st_arrived && st->st_rejected == 0 &&
               tasks_done(st) == st->st_tasks_submitted &&
               st->st_tasks_final[SK_TASK_OK] == st->st_tasks_submitted &&
               rounds,
           "mix %s places all 40 long tasks and ends every job (%s)",
           sim_mix_name(mix), o.err);
    out_free(&o);
}

static void test_deterministic(sim_mix mix)
{
    out a, b, c;
    run(mix, 7, false, &a);
    run(mix, 7, false, &b);
    run(mix, 8, false, &c);
    tap_ok(a.rc == 0 && b.rc == 0 && c.rc == 0 && a.rec_len == b.rec_len &&
               memcmp(a.rec, b.rec, a.rec_len) == 0 && a.sum_len == b.sum_len &&
               memcmp(a.sum, b.sum, a.sum_len) == 0 &&
               (a.rec_len != c.rec_len || memcmp(a.rec, c.rec, a.rec_len)),
           "mix %s: the same seed gives the same records and summary, "
           "another seed other records",
           sim_mix_name(mix));
    out_free(&a);
    out_free(&b);
    out_free(&c);
}

static void test_behind_long(void)
{
    out h, s;
    run(SIM_MIX_HYBRID, 1, false, &h);
    run(SIM_MIX_SAMPLING, 1, false, &s);
    tap_ok(h.rc == 0 && s.rc == 0 &&
               h.pt.pt_r.r_st.st_behind_long < s.pt.pt_r.r_st.st_behind_long &&
               s.pt.pt_r.r_st.st_behind_long > 0,
           "hybrid puts fewer probes behind long tasks (%llu) than "
           "sampling them (%llu)",
           (unsigned long long)h.pt.pt_r.r_st.st_behind_long,
           (unsigned long long)s.pt.pt_r.r_st.st_behind_long);
    out_free(&h);
    out_free(&s);
}

/* A budget of 1 unit per arc: a seeded run that places everything. */
static void test_budget(void)
{
    relax_budget = 1;
    rounds_out = tmpfile();
    if (rounds_out == NULL)
        tap_bail_out("no temporary file");
    out o;
    run(SIM_MIX_FLOW, 1, true, &o);
    rewind(rounds_out);
    char line[512];
    int rows = 0, relax = 0, other = 0;
    while (fgets(line, sizeof line, rounds_out) != NULL) {
        rows++;
        relax += strstr(line, ",relax,") != NULL;
        other += strstr(line, ",ssp,") != NULL ||
                 strstr(line, ",cost-scaling,") != NULL;
    }
    fclose(rounds_out);
    rounds_out = NULL;
    tap_ok(o.rc == 0 && o.pt.pt_r.r_st.st_long_wait.h_n == 40 && relax > 0 &&
               relax + other == rows,
           "relax budget 1: every long task placed, %d rounds by relaxation "
           "under the budget, %d finished by another solver (%s)",
           relax, other, o.err);
    out_free(&o);
    test_deterministic(SIM_MIX_FLOW);
    relax_budget = -1;
}

int main(void)
{
    tap_timeout(120);
    tap_plan(3 + 2 + 1 + 2);
    sk_log_set_level(SK_LOG_ERROR);
    write_jobs();
    test_places_all(SIM_MIX_FLOW);
    test_places_all(SIM_MIX_HYBRID);
    test_places_all(SIM_MIX_HAWK);
    test_deterministic(SIM_MIX_HYBRID);
    test_deterministic(SIM_MIX_FLOW);
    test_behind_long();
    test_budget();
    unlink(path);
    return tap_exit_status();
}
