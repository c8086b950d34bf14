/*
 * gen_quincy.h - a seeded generator of scheduling flow networks for the
 * solver benchmark: Quincy-policy graphs shaped like the Google cluster
 * trace (machines in racks, jobs of tasks with data-locality preferences,
 * running tasks with continuation and preemption costs), a load-spreading
 * graph with one large new job, and rounds of realistic events (task
 * arrivals in new or existing jobs, task completions) applied to a graph.
 *
 * The network and the meaning of every parameter are described in
 * bench/README.md. The generator is plain C against the flowcore API, and
 * this header, like flowcore.h, compiles as C++ for the harness.
 * A world (gq_world) remembers which node stands for what, so that rounds
 * of events can be applied; the events depend only on the world and the
 * generator handed in, never on the flow, so the same seed replays the
 * same changes on clones of a graph whatever solver ran on them.
 */
#ifndef GEN_QUINCY_H
#define GEN_QUINCY_H

#include "flowcore.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sk_rng.h has no C++ guard of its own. */
#include "sk_rng.h"

typedef enum gq_kind {
    GQ_QUINCY = 0, /* Quincy: data locality, wait time, preemption */
    GQ_SPREAD = 1, /* load spreading: one new job through one aggregator */
} gq_kind;

typedef struct gq_params {
    gq_kind gp_kind;
    uint64_t gp_seed;
    int32_t gp_machines;         /* machines in the cluster */
    int32_t gp_rack_size;        /* machines per rack */
    double gp_tasks_per_machine; /* tasks (running and waiting) per machine */
    double gp_tasks_per_job;  /* mean tasks per job (jobs are Pareto-sized) */
    double gp_utilisation;    /* tasks / slots; above 1 is oversubscribed */
    double gp_running_share;  /* share of the tasks already running */
    int32_t gp_max_prefs;     /* preference arcs per task, at most */
    double gp_pref_threshold; /* a machine or rack is preferred if it holds
                                 at least this share of the task's input */
    double gp_no_input_share; /* share of jobs whose tasks read no input */
    double gp_blocks_mean;    /* mean input blocks per task (others) */
    int32_t gp_blocks_max;    /* input blocks per task, at most */
    double gp_fair_share;     /* share of the slots guaranteed to jobs (E_j) */
    int64_t gp_tor_cost;      /* cost of one block through a rack switch */
    int64_t gp_core_cost;     /* cost of one block through the core */
    int64_t gp_unsched_base;  /* cost of leaving a task unscheduled ... */
    double gp_wait_cost;      /* ... plus this per second it has waited */
    double gp_wait_mean;      /* mean wait of a task so far, seconds */
    double gp_run_discount;   /* a running task's arc to its machine gets
                                 cheaper by this per second it has run */
    double gp_run_mean;       /* mean run time so far, seconds (Pareto) */
    int32_t gp_new_job_tasks; /* GQ_SPREAD: tasks in the new job */
    double gp_new_job_share;  /* rounds: share of arrivals opening a job */
    double gp_completion_share; /* rounds: share of events that are
                                   completions */
} gq_params;

/* gq_params_init fills p with the defaults for a graph of the given kind,
 * size and utilisation (see bench/README.md for the values). */
void gq_params_init(gq_params *p, gq_kind kind, int32_t machines,
                    double utilisation, uint64_t seed);

typedef struct gq_world gq_world;

/* What a graph holds, for printing. */
typedef struct gq_summary {
    int32_t gs_machines;
    int32_t gs_racks;
    int64_t gs_slots;
    int32_t gs_jobs;
    int64_t gs_tasks;
    int64_t gs_running; /* tasks with a running arc */
    int64_t gs_pref_arcs;
} gq_summary;

/* gq_build generates a graph for p and the world that describes it.
 * Returns 0, or a negative FC_E* code (FC_EINVAL for parameters out of
 * range, FC_ENOMEM); nothing is allocated then. */
int gq_build(const gq_params *p, fc_graph **gout, gq_world **wout);

/* gq_world_clone copies w (for a clone of its graph). Returns 0 or
 * FC_ENOMEM. */
int gq_world_clone(const gq_world *w, gq_world **out);

/* gq_world_free frees w. NULL is a no-op. */
void gq_world_free(gq_world *w);

/* gq_world_summary describes the graph w stands for now. */
void gq_world_summary(const gq_world *w, gq_summary *out);

/* Counts of the events of one round. */
typedef struct gq_round_stats {
    int32_t gr_arrivals;    /* tasks added (including those of new jobs) */
    int32_t gr_new_jobs;    /* jobs opened */
    int32_t gr_completions; /* running tasks removed by draining */
    int32_t gr_jobs_done;   /* jobs whose last task left */
} gq_round_stats;

/* gq_round applies `events` events to g (the graph w describes), drawing
 * from rng: task arrivals in new or existing jobs (a task node with its
 * unscheduled, cluster and preference arcs, one more unit of sink demand)
 * and completions of running tasks (fc_node_remove_drain, which lowers
 * the sink's demand). Only GQ_QUINCY worlds have rounds. Returns 0,
 * FC_EINVAL (a GQ_SPREAD world) or a negative FC_E* code from the graph
 * (the graph and world may then disagree: discard both). */
int gq_round(gq_world *w, fc_graph *g, int32_t events, sk_rng *rng,
             gq_round_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* GEN_QUINCY_H */
