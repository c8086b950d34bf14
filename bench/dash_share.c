/*
 * bench/dash_share.c - how long `skylark dashboard` takes to gather fair
 * share from every node monitor of a local cluster (dash_share_gather),
 * a session each one after the other (the anchor, measured in the same
 * run), a session each 2, 4, 8 and 16 at once, and over kept sessions
 * (dash_kept.h: what the dashboard does; one session per node monitor
 * opened in the first round and kept across rounds, all asked at once
 * from one thread, up to DASH_KEPT_MAX, the rest DASH_SHARE_WORKERS at
 * once a session each), and from flowd (dash_share_from_flowd: its query
 * `users`, the node monitors' heartbeat summaries summed; one ask).
 *
 *   bench/dash-share [DIR] [ROUNDS] [PAUSE]
 *   bench/dash-share --in-process [RUNS] [NODES]
 *
 * DIR is a cluster of `skylark cluster up --nodes N` (default: the
 * default directory); each setting is gathered ROUNDS times (default 5),
 * alternating settings so that load from elsewhere falls on all of them,
 * with PAUSE seconds between rounds (default 0; the dashboard gathers at
 * most every 5 s, and a node monitor drops a session silent for its
 * heartbeat_s * misses, 3 s by default: the kept sessions are then redone,
 * which the last lines count, with this process's CPU in the pauses).
 * Prints per setting the node monitors answered, the median and the
 * range in milliseconds, the wall time and this process's CPU time per
 * node monitor (median and range over rounds) (what bounds the gathering when
 * the node monitors run on other machines), the node monitors one core could
 * gather in the dashboard's 2 s budget at that CPU cost, and the speed-up over
 * one at a time, and this process's CPU per gathering. Nothing is changed
 * in the cluster. Then the in-process part (dash_share_hb.h): what the
 * heartbeat summaries cost the node monitor and flowd per heartbeat, and
 * flowd's query over NODES nodes (default 10,000), against heartbeats
 * without users; --in-process runs only that part (RUNS times, default
 * 7).
 */
#include "cli_common.h"
#include "dash_share.h"
#include "dash_share_hb.h"
#include "sk_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_ROUNDS 50
#define FLOWD      (~0u) /* the setting that asks flowd */
#define HB_NODES   10000 /* nodes of the in-process query */

/* This process's CPU time (user and system), seconds. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --in-process [RUNS] [NODES] */
static int in_process(int argc, char **argv)
{
    unsigned long runs = 7, nodes = HB_NODES;
    if (argc > 4 ||
        (argc > 2 && cli_parse_ulong(argv[2], 3, MAX_ROUNDS, &runs) != 0) ||
        (argc > 3 && cli_parse_ulong(argv[3], 1, 65536, &nodes) != 0)) {
        fprintf(stderr,
                "usage: dash-share --in-process [RUNS (3..%d)] "
                "[NODES (1..65536)]\n",
                MAX_ROUNDS);
        return 2;
    }
    sk_log_set_level(SK_LOG_ERROR);
    return dash_hb_bench((unsigned)runs, (unsigned)nodes);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--in-process") == 0)
        return in_process(argc, argv);
    const char *dir = argc > 1 ? argv[1] : NULL;
    unsigned long rounds = 5;
    double pause = 0;
    if (argc > 4 ||
        (argc > 2 && cli_parse_ulong(argv[2], 1, MAX_ROUNDS, &rounds) != 0) ||
        (argc > 3 && cli_parse_double(argv[3], 0, 60, &pause) != 0)) {
        fprintf(stderr,
                "usage: dash-share [DIR] [ROUNDS (1..%d)] [PAUSE (0..60 s)]\n",
                MAX_ROUNDS);
        return 2;
    }
    sk_log_set_level(SK_LOG_WARN);
    skc_cluster *cl = cli_load_cluster("dash-share", dir);
    if (cl == NULL)
        return 1;
    /* 0: kept sessions; FLOWD: flowd's query */
    static const unsigned workers[] = {1, 2, 4, 8, 16, 0, FLOWD};
    enum { NW = sizeof workers / sizeof workers[0] };
    dash_kept *kept;
    if (dash_kept_create(skc_key(cl), &kept) != 0) {
        fprintf(stderr, "dash-share: cannot make kept sessions\n");
        free(cl);
        return 1;
    }
    double ms[NW][MAX_ROUNDS], cpu[NW][MAX_ROUNDS];
    unsigned answered[NW] = {0}, nodemons = 0;
    double idle_cpu = 0, idle_s = 0; /* CPU in the pauses: heartbeats */
    for (unsigned long r = 0; r < rounds; r++) {
        if (r > 0 && pause > 0) {
            double c0 = cpu_s();
            nanosleep(
                &(struct timespec){
                    .tv_sec = (time_t)pause,
                    .tv_nsec = (long)((pause - (double)(time_t)pause) * 1e9)},
                NULL);
            idle_cpu += cpu_s() - c0;
            idle_s += pause;
        }
        for (unsigned w = 0; w < NW; w++) {
            dash_share s;
            double c0 = cpu_s();
            if (workers[w] == FLOWD) {
                if (dash_share_from_flowd(cl, 2.0, &s) != 0) {
                    fprintf(stderr, "dash-share: flowd did not answer its "
                                    "query `users`\n");
                    ms[w][r] = cpu[w][r] = 0;
                    answered[w] = 0;
                    continue;
                }
            } else if (dash_share_gather(cl, workers[w] ? NULL : kept, 2.0, 600,
                                         workers[w] ? workers[w]
                                                    : DASH_SHARE_WORKERS,
                                         &s) != 0) {
                /* no budget cut: every node monitor is asked */
                fprintf(stderr, "dash-share: out of memory\n");
                dash_kept_destroy(kept);
                free(cl);
                return 1;
            }
            ms[w][r] = (double)s.ds_us / 1000;
            cpu[w][r] = cpu_s() - c0;
            /* From flowd: the node monitors its sums cover. */
            answered[w] =
                workers[w] == FLOWD ? (unsigned)s.ds_reporting : s.ds_answered;
            nodemons = s.ds_nodemons;
            dash_share_free(&s);
        }
    }
    printf("%u node monitors, %lu rounds each\n", nodemons, rounds);
    printf("%8s %9s %10s %18s %10s %10s %16s %10s %8s %18s\n", "at once",
           "answered", "median ms", "range ms", "ms/nm", "cpu ms/nm",
           "cpu range ms/nm", "nm/2s/core", "speedup", "cpu ms (range)");
    double anchor = 0;
    for (unsigned w = 0; w < NW; w++) {
        qsort(ms[w], rounds, sizeof ms[w][0], cmp);
        qsort(cpu[w], rounds, sizeof cpu[w][0], cmp);
        double med = ms[w][rounds / 2];
        if (w == 0)
            anchor = med;
        double per = answered[w] ? 1.0 / answered[w] : 0;
        double cpu_nm = 1000 * cpu[w][rounds / 2] * per;
        char name[16];
        snprintf(name, sizeof name,
                 workers[w] == FLOWD ? "flowd"
                 : workers[w]        ? "%u"
                                     : "kept",
                 workers[w]);
        printf("%8s %9u %10.1f %8.1f .. %7.1f %10.3f %10.3f %7.3f .. %6.3f "
               "%10.0f %7.2fx %6.2f (%.2f-%.2f)\n",
               name, answered[w], med, ms[w][0], ms[w][rounds - 1], med * per,
               cpu_nm, 1000 * cpu[w][0] * per, 1000 * cpu[w][rounds - 1] * per,
               cpu_nm > 0 ? 2000 / cpu_nm : 0, med > 0 ? anchor / med : 0,
               1000 * cpu[w][rounds / 2], 1000 * cpu[w][0],
               1000 * cpu[w][rounds - 1]);
    }
    dash_kept_stats ks;
    dash_kept_stats_get(kept, &ks);
    printf("kept sessions: %llu opened, %llu closed, %llu came up, %llu "
           "broke, %llu refused\n",
           (unsigned long long)ks.ks_opened, (unsigned long long)ks.ks_closed,
           (unsigned long long)ks.ks_ups, (unsigned long long)ks.ks_downs,
           (unsigned long long)ks.ks_refused);
    if (idle_s > 0)
        printf("between rounds: %.4f ms of CPU per node monitor per second "
               "in the pauses\n",
               nodemons ? 1000 * idle_cpu / idle_s / nodemons : 0);
    dash_kept_destroy(kept);
    free(cl);
    sk_log_set_level(SK_LOG_ERROR); /* the cores' GET_TASK timeouts */
    return dash_hb_bench((unsigned)rounds, HB_NODES);
}
