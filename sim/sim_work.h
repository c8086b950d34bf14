/*
 * sim_work.h - the simulator's workloads: jobs, the job file that replays
 * them, and the synthetic generator that writes the same format.
 *
 * The job file (CSV, one job per line; '#' starts a comment line; the
 * header line below is optional):
 *
 *   arrival_us,job,user,priority,class,tasks,durations,labels,preferred
 *   0,1,alice,0,short,3,exp:100000,,
 *   2500,2,bob,1,short,2,120000;80000+,gpu,rand:2
 *   4100,3,alice,0,long,1,3600000000+,,
 *
 *  arrival_us  when the job is submitted, integer microseconds; never
 *              smaller than the line before (the file is in time order).
 *  job         the job's id in its source (echoed in the outputs; the
 *              simulator numbers jobs itself, in arrival order).
 *  user        1..64 of [A-Za-z0-9_.:-]; fair-share weights are per user.
 *  priority    0 (most urgent) .. 7.
 *  class       short (the sampling path) or long (the flow path, or as
 *              skylark-sim's --mix says).
 *  tasks       1..100000.
 *  durations   either a distribution the simulator draws from with its
 *              workload seed: const:US, exp:MEAN_US, pareto:SHAPE:MEAN_US
 *              (shape > 1); or one duration per task, integer
 *              microseconds separated by ';'. A duration ending in '+'
 *              is a lower bound: the task was cut short in its trace
 *              (killed, evicted, failed, lost or still running when the
 *              trace ends); the simulator runs it for that long and
 *              counts it.
 *  labels      node labels the job needs, separated by ';' (at most 8,
 *              each 1..32 of [A-Za-z0-9_.:-]), or empty.
 *  preferred   empty; rand:K (each task prefers K distinct random
 *              nodes); or, per task, node indexes separated by ' ',
 *              tasks separated by ';' (an empty entry: no preference),
 *              at most 16 per task.
 *  tags, constraints  (optional, after preferred) a long-running
 *              application's allocation tags and placement constraints:
 *              sim_cons.h says how, docs/CONSTRAINTS.md what they mean.
 *
 * Jobs are read one at a time, so a file of any length replays in memory
 * bounded by the jobs in flight. Every field is checked; an error names
 * the file, the line and the field.
 */
#ifndef SIM_WORK_H
#define SIM_WORK_H

#include "sk_core.h"
#include "sk_rng.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_NAME_MAX       64u   /* user name length */
#define SIM_LABEL_MAX      32u   /* label name length */
#define SIM_MAX_USERS      4096u /* distinct users in one run */
#define SIM_MAX_LABELS     64u   /* distinct labels in one run */
#define SIM_JOB_LABELS     8u    /* labels one job may need */
#define SIM_MAX_DURATION   (1000000ull * 86400 * 365) /* a year, in us */
#define SIM_MAX_LINE_BYTES (16u << 20)

/* A task duration distribution with its mean in microseconds. */
typedef enum sim_dist_kind {
    SIM_DIST_CONST = 1,
    SIM_DIST_EXP = 2,
    SIM_DIST_PARETO = 3,
} sim_dist_kind;

typedef struct sim_dist {
    sim_dist_kind d_kind;
    double d_mean;  /* microseconds, > 0 */
    double d_shape; /* Pareto shape, > 1 */
} sim_dist;

/* One user of a run. */
typedef struct sim_user {
    char u_name[SIM_NAME_MAX + 1];
    uint32_t u_weight; /* fair-share weight at the node monitors */
    double u_share;    /* generator: share of the jobs */
    uint8_t u_prio;    /* generator: priority of its jobs */
} sim_user;

/* The names a run knows: users (weights) and node labels. */
typedef struct sim_names {
    sim_user n_users[SIM_MAX_USERS];
    uint32_t n_nusers;
    char n_labels[SIM_MAX_LABELS][SIM_LABEL_MAX + 1];
    uint32_t n_nlabels;
} sim_names;

/* sim_names_user finds the user called name, or adds it with weight 1,
 * share 0 and priority 0. Returns 0 (its index in *idx), SK_EINVAL for a
 * bad name, SK_ELIMIT when SIM_MAX_USERS users exist. */
int sim_names_user(sim_names *n, const char *name, size_t len, uint32_t *idx);

/* sim_names_label does the same for a label name. */
int sim_names_label(sim_names *n, const char *name, size_t len, uint32_t *idx);

/* A job: what its workload says, and its progress through a run. */
typedef struct sim_job {
    uint64_t j_seq; /* arrival order from 0: the id towards schedulers */
    uint64_t j_id;  /* id in the job file */
    sk_time j_arrival;
    uint32_t j_user;
    uint8_t j_prio;
    bool j_long;
    uint32_t j_ntasks;
    uint64_t *j_dur; /* per task, microseconds */
    uint8_t *j_cut;  /* per task, 1: cut short; NULL: none is */
    uint32_t j_ncut; /* tasks cut short */
    uint8_t j_nlabels;
    uint8_t j_labels[SIM_JOB_LABELS]; /* indexes into sim_names */
    uint32_t *j_pref_off;    /* NULL, or ntasks + 1 offsets into j_pref */
    uint32_t *j_pref;        /* preferred node indexes */
    struct sim_cons *j_cons; /* tags and constraints (sim_cons.h), or NULL */

    /* Progress, kept by the simulator. */
    bool j_measured;      /* counts in the summary (short jobs) */
    bool j_long_measured; /* a long job in the measured range */
    uint32_t j_sched;     /* scheduler it was given to */
    uint32_t j_ndone;     /* tasks with a final outcome */
    uint32_t j_unstarted; /* tasks neither started nor ended */
    uint32_t j_count[6];  /* final outcomes by sk_task_status */
    sk_time j_first_start;
    sk_time j_last_end;
    bool j_queued;          /* a task waited in a node's queue */
    void *j_strat;          /* the strategy's own state */
    struct sim_job *j_next; /* jobs in flight */
    struct sim_job *j_prev;
} sim_job;

/* sim_job_free releases a job and what it owns (NULL is fine). */
void sim_job_free(sim_job *j);

/* sim_job_npref returns the number of preferred nodes of task t. */
static inline uint32_t sim_job_npref(const sim_job *j, uint32_t t)
{
    return j->j_pref_off == NULL ? 0 : j->j_pref_off[t + 1] - j->j_pref_off[t];
}

/* The generator's parameters. Arrivals are Poisson at the rate that
 * offers load g_load to g_slots slots: g_load * g_slots / (g_tasks *
 * mean duration) jobs per second. */
typedef struct sim_gen {
    double g_load;
    uint64_t g_slots; /* slots of the cluster */
    uint32_t g_nodes; /* nodes, for preferences */
    uint32_t g_tasks; /* tasks per job */
    sim_dist g_dist;
    uint32_t g_nlabel_reqs; /* job label requirements */
    uint32_t g_label[SIM_JOB_LABELS];
    double g_label_share[SIM_JOB_LABELS]; /* share of jobs needing it */
    double g_pref_share;   /* share of jobs whose tasks have preferences */
    uint32_t g_pref_count; /* preferred nodes per such task */
} sim_gen;

/* A source of jobs in arrival order: the generator, or a job file. */
typedef struct sim_src {
    bool s_file_mode;
    sim_gen s_gen;
    sim_names *s_names;
    sk_rng s_rng;       /* the workload's own stream */
    uint32_t s_nodes;   /* cluster size: preferences must be below it */
    double s_clock;     /* generator: arrival time in microseconds */
    uint64_t s_seq;     /* next j_seq */
    uint64_t s_next_id; /* generator: next job id */
    FILE *s_fp;
    const char *s_path;
    char *s_line;
    size_t s_linecap;
    uint64_t s_lineno;
    sk_time s_last; /* arrival of the previous job */
} sim_src;

/* sim_src_gen starts the generator (g copied) with the workload seed.
 * Users are drawn by their u_share (all zero: uniformly). Returns 0 or
 * SK_EINVAL with a message in err. */
int sim_src_gen(sim_src *s, const sim_gen *g, sim_names *names, uint64_t seed,
                char *err, size_t errlen);

/* sim_src_file opens a job file ("-": standard input) for a cluster of
 * nodes nodes. Returns 0 or SK_ESYS with a message in err. */
int sim_src_file(sim_src *s, const char *path, sim_names *names, uint32_t nodes,
                 uint64_t seed, char *err, size_t errlen);

/* sim_src_next reads or generates the next job into *out (the caller owns
 * it). Returns 1, 0 at the end of a file (the generator never ends), or
 * SK_EPROTO / SK_ELIMIT / SK_ENOMEM with a message naming the file, line
 * and field in err. */
int sim_src_next(sim_src *s, sim_job **out, char *err, size_t errlen);

/* sim_src_close releases the source. */
void sim_src_close(sim_src *s);

/* sim_job_write writes j as one line of the job file, durations and
 * preferences spelled out, so that replaying the file gives the same job.
 * Returns 0 or SK_ESYS. */
int sim_job_write(FILE *fp, const sim_job *j, const sim_names *names);

/* sim_jobs_header writes the comment and header lines of a job file. */
int sim_jobs_header(FILE *fp, const char *comment);

/* sim_dist_parse reads "const:US", "exp:MEAN_US" or
 * "pareto:SHAPE:MEAN_US" (len bytes at text). Returns 0 or SK_EINVAL. */
int sim_dist_parse(const char *text, size_t len, sim_dist *out);

/* sim_dist_draw draws one duration in microseconds (at least 1). */
uint64_t sim_dist_draw(const sim_dist *d, sk_rng *rng);

/* sim_dist_name writes "const", "exp" or "pareto". */
const char *sim_dist_name(sim_dist_kind k);

#endif /* SIM_WORK_H */
