/*
 * sim_trace.h - the Google cluster trace (2011) as a skylark-sim job file
 * (sim_work.h): what sim/trace2jobs does.
 *
 * Input: a folder with job_events/ and task_events/, each a series of
 * gzip-compressed CSV shards (part-NNNNN-of-NNNNN.csv.gz, read in name
 * order; uncompressed files are read as they are). See the trace's
 * SOURCES.md for the columns.
 *
 * What a job becomes:
 *  - arrival: its first SUBMIT in job_events (else its tasks' first),
 *    minus tc_start (the trace window starts at 600 s), divided by the
 *    speed-up; a job already present at trace time 0 arrives at 0.
 *  - user: the trace's user hash, renamed u1, u2, ... in order of first
 *    appearance (the names only need to tell users apart).
 *  - priority: the trace's 0 (free) .. 11 (highest) mapped linearly onto
 *    Skylark's 7 (least urgent) .. 0: 7 - floor(8 p / 12); the job's
 *    highest task priority counts.
 *  - tasks: those scheduled at least once in the window; a task's
 *    duration is its last run, from its last SCHEDULE to its FINISH. A
 *    run that ends otherwise (EVICT, FAIL, KILL, LOST) or is still going
 *    when the window ends is cut short: its duration so far is written
 *    with '+'. Tasks never scheduled are left out (counted), and a job
 *    with none is left out (counted).
 *  - class: long when any of the rule's conditions holds, else short:
 *      * present at trace time 0 (tc_present_long), or
 *      * a task priority >= tc_long_priority (9: production), or
 *      * scheduling class >= tc_long_class (2; 3 is the most latency
 *        sensitive: services), or
 *      * mean task duration (cut-short runs at their lower bound) >=
 *        tc_long_us of trace time (2 hours).
 *  - durations and arrivals are divided by tc_speedup (Firmament replays
 *    this trace 300x faster).
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct trace_opts {
    const char *tc_dir;        /* the trace folder */
    double tc_speedup;         /* >= 1 */
    uint64_t tc_start;         /* trace time (us) that becomes time 0 */
    uint32_t tc_long_priority; /* 0..12; 12: never by priority */
    uint32_t tc_long_class;    /* 0..4; 4: never by class */
    uint64_t tc_long_us;       /* mean task duration; 0: never */
    bool tc_present_long;      /* jobs present at time 0 are long */
    uint32_t tc_max_shards;    /* per table; 0: all */
} trace_opts;

typedef struct trace_stats {
    uint64_t ts_job_events;
    uint64_t ts_task_events;
    uint64_t ts_jobs; /* written */
    uint64_t ts_long; /* of which long */
    uint64_t ts_long_present, ts_long_priority, ts_long_class,
        ts_long_duration;      /* by the first condition that held */
    uint64_t ts_jobs_dropped;  /* no task scheduled in the window */
    uint64_t ts_tasks;         /* written */
    uint64_t ts_tasks_cut;     /* of which cut short */
    uint64_t ts_tasks_dropped; /* never scheduled */
    uint64_t ts_window_end;    /* the last timestamp seen, us */
} trace_stats;

/* trace_opts_init sets the defaults above: speed-up 1, start 600 s,
 * long at priority 9, class 2, a mean of 2 hours, jobs present at the
 * start long, every shard. */
void trace_opts_init(trace_opts *o);

/* trace_convert reads the trace and writes the job file to out, jobs in
 * arrival order. Returns 0 with the counts in *st; SK_ESYS when a file
 * cannot be read or out written; SK_EPROTO for a malformed line (err
 * names the file, line and field); SK_ENOMEM. Memory: O(jobs + tasks)
 * of the window (about 30 MiB for the 19.6 hours). */
int trace_convert(const trace_opts *o, FILE *out, trace_stats *st, char *err,
                  size_t errlen);

#endif /* SIM_TRACE_H */
