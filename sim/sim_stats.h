/*
 * sim_stats.h - what a simulation measures: histograms of job response
 * times and task waits, outcome and message counts, slot utilisation over
 * the measurement window, and the per-job and per-task CSV records.
 *
 * Memory does not grow with the number of jobs: distributions are kept in
 * log-linear histograms of fixed size (values below 1,024 us exactly,
 * larger ones in buckets 1/1,024 of their magnitude wide, so a quantile is
 * within 0.1% of the exact order statistic), and records go straight to
 * their files.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include "sim_work.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_HIST_SUB_BITS 10u
#define SIM_HIST_SUB      (1u << SIM_HIST_SUB_BITS)
#define SIM_HIST_BUCKETS  (SIM_HIST_SUB * (64u - SIM_HIST_SUB_BITS + 1u))

/* A log-linear histogram of microsecond values. */
typedef struct sim_hist {
    uint64_t *h_count; /* SIM_HIST_BUCKETS */
    uint64_t h_n;
    uint64_t h_sum;
    uint64_t h_max;
} sim_hist;

/* sim_hist_init allocates an empty histogram. Returns 0 or SK_ENOMEM. */
int sim_hist_init(sim_hist *h);
void sim_hist_fini(sim_hist *h);

/* sim_hist_add counts one value. O(1). */
void sim_hist_add(sim_hist *h, uint64_t v);

/* sim_hist_quantile returns the q-quantile (0 < q <= 1) by nearest rank:
 * the smallest value with at least ceil(q * n) values at or below it,
 * rounded to the middle of its bucket; 0 when empty. O(buckets). */
double sim_hist_quantile(const sim_hist *h, double q);

/* sim_hist_mean returns the exact mean (0 when empty). */
double sim_hist_mean(const sim_hist *h);

/* sim_hist_bucket_range gives the values bucket i holds: [lo, hi]. */
void sim_hist_bucket_range(uint32_t i, uint64_t *lo, uint64_t *hi);

/* Kinds of message counted: the protocol's types (index = sk_msg_type)
 * and, after them, the messages of the simulator's models of strategies
 * that Skylark does not implement. */
enum {
    SIM_MSG_PROBE = SK_MSG_TYPE_END, /* models: a probe to a node */
    SIM_MSG_PROBE_REPLY,             /* models: the node's queue length */
    SIM_MSG_PLACE,                   /* models: a task sent to a node */
    SIM_MSG_DONE,                    /* models: a task's end, to its job */
    SIM_MSG_KINDS
};

/* sim_msg_kind_name returns the name of a counted message kind. */
const char *sim_msg_kind_name(int kind);

/* Outcome of a job in the records. */
typedef enum sim_job_outcome {
    SIM_JOB_DONE = 1,     /* every task has its outcome */
    SIM_JOB_REJECTED = 2, /* the scheduler refused it */
    SIM_JOB_SKIPPED = 3,  /* long: no flow path in this run */
} sim_job_outcome;

typedef struct sim_stats {
    /* jobs (all of them) */
    uint64_t st_arrived;
    uint64_t st_done;
    uint64_t st_rejected;
    uint64_t st_long_skipped;
    uint64_t st_measured_arrived;
    uint64_t st_measured_done;
    uint64_t st_measured_zero; /* measured jobs whose tasks never queued */
    /* tasks (all of them) */
    uint64_t st_tasks_submitted;
    uint64_t st_tasks_final[SK_TASK_STATUS_MAX + 1];
    uint64_t st_tasks_cut; /* finished tasks the trace had cut short */
    uint64_t st_measured_tasks;
    uint64_t st_measured_tasks_zero; /* never queued */
    /* distributions of measured jobs, microseconds */
    sim_hist st_resp; /* job response time: arrival to known done */
    sim_hist st_wait; /* task wait: arrival of its job to its start */
    /* long jobs in the measured range of arrivals (j_long_measured) */
    uint64_t st_long_arrived;
    uint64_t st_long_tasks;  /* their tasks */
    sim_hist st_long_wait;   /* placement latency: arrival to first start
                                (late-binding and the flow path only) */
    sim_hist st_long_resp;   /* job response, of those that ended */
    uint64_t st_behind_long; /* probes that reached a node whose slots
                                were all busy, one with a long task */
    /* slots */
    uint64_t st_slots; /* in the cluster */
    uint64_t st_busy;  /* slots running a task now */
    uint64_t st_busy_peak;
    sk_time st_busy_at;        /* time of the last change */
    uint64_t st_busy_integral; /* slot-microseconds so far */
    bool st_win_open;
    sk_time st_win_start, st_win_end;
    uint64_t st_int_start, st_int_end; /* busy slot time at them */
    bool st_start_due, st_end_due;     /* not taken yet (integrate) */
    /* messages */
    uint64_t st_net[SIM_MSG_KINDS];   /* over the simulated network */
    uint64_t st_local[SIM_MSG_KINDS]; /* node monitor <-> its executor */
    /* records */
    FILE *st_jobs_out;  /* per-job CSV, or NULL */
    FILE *st_tasks_out; /* per-task CSV, or NULL */
    const sim_names *st_names;
    char *st_buf; /* one record being formatted */
} sim_stats;

/* sim_stats_init prepares the counters for a cluster of slots slots,
 * writing records to jobs_out and tasks_out when not NULL (their headers
 * first). Returns 0 or SK_ENOMEM. */
int sim_stats_init(sim_stats *st, uint64_t slots, FILE *jobs_out,
                   FILE *tasks_out, const sim_names *names);
void sim_stats_fini(sim_stats *st);

/* sim_stats_busy records that delta slots started (+1) or stopped (-1)
 * running a task at now, no earlier than the last change; delta 0 settles
 * the counts up to now. */
void sim_stats_busy(sim_stats *st, sk_time now, int delta);

/* sim_stats_arrival counts job j arriving at now, and moves the
 * utilisation window's end (its start at the first measured job). Call it
 * before any task of j is recorded. The busy slot time at the window's
 * ends is taken when sim_stats_busy passes them, so slot changes before
 * now may still come, provided none was recorded after now. */
void sim_stats_arrival(sim_stats *st, sim_job *j, sk_time now);

/* sim_stats_task records the final outcome of one task of j: when it
 * started and ended (0 if it never started), on which node (NULL: none),
 * with which attempt and status, and whether it waited in a node queue
 * (queued). node is NULL for a task that never started. Writes its
 * record. */
void sim_stats_task(sim_stats *st, sim_job *j, uint32_t task, uint32_t attempt,
                    const char *node, sk_time start, sk_time end,
                    uint8_t status, bool queued);

/* sim_stats_placed records that a task of long job j started at start,
 * for the first time (its placement latency, when j is measured). */
void sim_stats_placed(sim_stats *st, const sim_job *j, sk_time start);

/* sim_stats_job records the end of j at now with its outcome, and writes
 * its record. The caller frees j. */
void sim_stats_job(sim_stats *st, sim_job *j, sim_job_outcome outcome,
                   sk_time now);

/* sim_stats_utilisation returns busy slot time over the window divided by
 * the slots times the window's length (0 when the window is empty). */
double sim_stats_utilisation(const sim_stats *st);

/* sim_stats_messages returns the network messages counted. */
uint64_t sim_stats_messages(const sim_stats *st);

#endif /* SIM_STATS_H */
