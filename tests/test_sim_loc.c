/*
 * test_sim_loc.c - racks and data locality in skylark-sim (sim_loc.h):
 *
 *  - sim_loc_classify and sim_loc_racks on a hand-made job;
 *  - with racks, mixes flow, greedy and sampling end every job of a
 *    small workload whose tasks prefer 3 nodes in 2 racks, with the
 *    cores' invariants checked after every event, and every launch is
 *    classified;
 *  - the same seed gives the same records and summary (flow, greedy);
 *  - the quincy policy and the greedy placer put more tasks on their
 *    preferred racks, and add less transfer time, when they see the
 *    preferences than when they do not (--hide-prefs);
 *  - with fair shares (--flow-fair) a small job that comes while a big
 *    one fills the cluster starts far sooner than under plain quincy,
 *    where the big job's older tasks take every freed slot first.
 */
#include "sim.h"
#include "sim_flow.h"
#include "sim_loc.h"
#include "sim_report.h"
#include "sim_testrun.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODES 40u
#define RACK  10u

static char path[] = "/tmp/test_sim_loc.XXXXXX";

/* 80 jobs of 4 tasks of exp 300 ms, one every 40 ms (load about 0.4 of
 * the 40 x 2 slots before transfers); each task prefers a node of one
 * rack and two of another. */
static void write_jobs(void)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        tap_bail_out("cannot write a job file");
    uint64_t x = 12345;
    for (uint32_t i = 0; i < 80; i++) {
        fprintf(f, "%u,%u,u%u,0,short,4,exp:300000,,", i * 40000, i + 1, i % 5);
        for (uint32_t t = 0; t < 4; t++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t a = (uint32_t)(x >> 33) % (NODES / RACK);
            uint32_t b = (a + 1 + (uint32_t)(x >> 40) % (NODES / RACK - 1)) %
                         (NODES / RACK);
            uint32_t y = (uint32_t)(x >> 20) % RACK;
            fprintf(f, "%s%u %u %u", t ? ";" : "",
                    a * RACK + (uint32_t)(x >> 50) % RACK, b * RACK + y,
                    b * RACK + (y + 1) % RACK);
        }
        fputc('\n', f);
    }
    fclose(f);
}

typedef struct out {
    sim_test_out r;
    uint64_t tasks, node, rack, cross;
    double extra_s;
} out;

static void run(sim_mix mix, bool hide, uint64_t seed, bool check, out *o)
{
    static sim_names names;
    memset(o, 0, sizeof *o);
    sim_params p;
    sim_params_init(&p);
    p.p_nodes = NODES;
    p.p_slots = 2;
    p.p_jobs_file = path;
    p.p_jobs = 0;
    p.p_warmup = 0;
    p.p_drain = true;
    p.p_seed = seed;
    p.p_mix = mix;
    p.p_check = check;
    p.p_rack_size = RACK;
    p.p_remote_rack = 100000;
    p.p_remote_cross = 500000;
    p.p_hide_prefs = hide;
    sim_test_run(&p, &names, &o->r);
    if (o->r.rc != 0)
        return;
    const char *l = strstr(o->r.pt.pt_r.r_report, "with preferences ");
    unsigned long long n = 0, a = 0, b = 0, c = 0;
    if (l == NULL ||
        sscanf(l,
               "with preferences %llu: on a preferred node %llu (%*f), on a "
               "preferred rack %llu (%*f), across racks %llu (%*f); "
               "without %*u; transfer time added %lf s",
               &n, &a, &b, &c, &o->extra_s) != 5)
        o->r.rc = -1;
    o->tasks = n;
    o->node = a;
    o->rack = b;
    o->cross = c;
    if (o->r.pt.pt_r.r_st.st_done != 80 || o->r.pt.pt_r.r_st.st_rejected != 0)
        o->r.rc = -2;
    sim_stats_fini(&o->r.pt.pt_r.r_st);
}

static void out_free(out *o)
{
    free(o->r.rec);
    free(o->r.sum);
}

static void test_classify(void)
{
    sim_params p;
    sim_params_init(&p);
    p.p_nodes = NODES;
    p.p_rack_size = RACK;
    uint32_t off[3] = {0, 3, 3}, pref[3] = {3, 12, 15};
    uint64_t dur[2] = {1, 1};
    sim_job j = {
        .j_ntasks = 2, .j_dur = dur, .j_pref_off = off, .j_pref = pref};
    const char *racks[3];
    char names[3][16];
    uint32_t nr = sim_loc_racks(&p, &j, 0, racks, names);
    tap_ok(sim_loc_classify(&p, &j, 0, 12) == SIM_LOC_NODE &&
               sim_loc_classify(&p, &j, 0, 9) == SIM_LOC_RACK &&
               sim_loc_classify(&p, &j, 0, 19) == SIM_LOC_RACK &&
               sim_loc_classify(&p, &j, 0, 20) == SIM_LOC_CROSS &&
               sim_loc_classify(&p, &j, 1, 20) == SIM_LOC_NONE && nr == 2 &&
               strcmp(racks[0], "r0") == 0 && strcmp(racks[1], "r1") == 0 &&
               sim_loc_racks(&p, &j, 1, racks, names) == 0,
           "a task on n12 of {n3, n12, n15} is node-local, on n9 and n19 "
           "rack-local, on n20 across racks; its racks are r0 and r1 once "
           "each");
}

static void test_ends_all(sim_mix mix)
{
    out o;
    run(mix, false, 1, true, &o);
    tap_ok(o.r.rc == 0 && o.tasks == 320 && o.node + o.rack + o.cross == 320,
           "mix %s with racks ends all 80 jobs and classifies each of the "
           "320 launches (node %llu, rack %llu, cross %llu) (%s)",
           sim_mix_name(mix), (unsigned long long)o.node,
           (unsigned long long)o.rack, (unsigned long long)o.cross, o.r.err);
    out_free(&o);
}

static void test_deterministic(sim_mix mix)
{
    out a, b;
    run(mix, false, 7, false, &a);
    run(mix, false, 7, false, &b);
    tap_ok(a.r.rc == 0 && b.r.rc == 0 && a.r.rec_len == b.r.rec_len &&
               memcmp(a.r.rec, b.r.rec, a.r.rec_len) == 0 &&
               a.r.sum_len == b.r.sum_len &&
               memcmp(a.r.sum, b.r.sum, a.r.sum_len) == 0,
           "mix %s with racks: the same seed gives the same records and "
           "summary",
           sim_mix_name(mix));
    out_free(&a);
    out_free(&b);
}

static void test_prefers(sim_mix mix)
{
    out y, n;
    run(mix, false, 1, false, &y);
    run(mix, true, 1, false, &n);
    tap_ok(y.r.rc == 0 && n.r.rc == 0 && y.node + y.rack > n.node + n.rack &&
               y.cross < n.cross && y.extra_s < n.extra_s,
           "mix %s: on preferred racks %llu of 320 seeing the preferences, "
           "%llu without; transfer %.1f s against %.1f s",
           sim_mix_name(mix), (unsigned long long)(y.node + y.rack),
           (unsigned long long)(n.node + n.rack), y.extra_s, n.extra_s);
    out_free(&y);
    out_free(&n);
}

/* The longest wait (submit to start, us) of a task of job index job in
 * a run's task records, or -1. */
static long long longest_wait(const char *rec, unsigned job)
{
    long long most = -1;
    for (const char *l = rec; l != NULL && *l != '\0';) {
        unsigned j, t, a;
        long long sub, start;
        if (sscanf(l, "%u,%u,%u,%*[^,],%lld,%lld", &j, &t, &a, &sub, &start) ==
                5 &&
            j == job && start - sub > most)
            most = start - sub;
        l = strchr(l, '\n');
        l = l != NULL ? l + 1 : NULL;
    }
    return most;
}

/* A big job (240 tasks of exp 3 s) fills the 80 slots at 0; a small
 * one (8 tasks) comes at 2 s. Plain quincy gives freed slots to the big
 * job's older tasks first; with fair shares the small job is under its
 * share (8) and the big one over it, so the small job gets the first 8
 * freed slots. */
static void test_fair(void)
{
    char fpath[] = "/tmp/test_sim_loc_fair.XXXXXX";
    int fd = mkstemp(fpath);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        tap_bail_out("cannot write a job file");
    fprintf(f, "0,1,u1,0,short,240,exp:3000000,,\n"
               "2000000,2,u2,0,short,8,exp:3000000,,\n");
    fclose(f);
    long long wait[2];
    for (int fair = 0; fair < 2; fair++) {
        static sim_names names;
        sim_params p;
        sim_params_init(&p);
        p.p_nodes = NODES;
        p.p_slots = 2;
        p.p_jobs_file = fpath;
        p.p_jobs = 0;
        p.p_warmup = 0;
        p.p_drain = true;
        p.p_seed = 1;
        p.p_mix = SIM_MIX_FLOW;
        p.p_flow_fair = fair;
        sim_test_out o;
        sim_test_run(&p, &names, &o);
        wait[fair] = o.rc == 0 ? longest_wait(o.rec, 1) : -1;
        if (o.rc != 0)
            tap_diag("run failed: %s", o.err);
        else
            sim_stats_fini(&o.pt.pt_r.r_st);
        free(o.rec);
        free(o.sum);
    }
    tap_ok(wait[0] > 0 && wait[1] >= 0 && wait[1] * 3 < wait[0],
           "the small job's longest wait: %.2f s with fair shares, %.2f s "
           "without",
           (double)wait[1] / 1e6, (double)wait[0] / 1e6);
    unlink(fpath);
}

int main(void)
{
    tap_timeout(120);
    tap_plan(1 + 3 + 2 + 2 + 1);
    sk_log_set_level(SK_LOG_ERROR);
    write_jobs();
    test_classify();
    test_ends_all(SIM_MIX_FLOW);
    test_ends_all(SIM_MIX_GREEDY);
    test_ends_all(SIM_MIX_SAMPLING);
    test_deterministic(SIM_MIX_FLOW);
    test_deterministic(SIM_MIX_GREEDY);
    test_prefers(SIM_MIX_FLOW);
    test_prefers(SIM_MIX_GREEDY);
    test_fair();
    unlink(path);
    return tap_exit_status();
}
