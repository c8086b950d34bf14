/*
 * sched_metrics.c - the scheduler core's counters as Prometheus
 * families (sched_metrics.h): one table, rendered by sk_metrics.
 */
#include "sched_metrics.h"

#include <stddef.h>

#define C(name, field, help)                                                   \
    {                                                                          \
        "skylark_sched_" name "_total", NULL, SK_METRIC_COUNTER, help,         \
            offsetof(sched_stats, field)                                       \
    }
#define L(name, label, field, help)                                            \
    {                                                                          \
        "skylark_sched_" name "_total", label, SK_METRIC_COUNTER, help,        \
            offsetof(sched_stats, field)                                       \
    }
#define G(name, field, help)                                                   \
    {                                                                          \
        "skylark_sched_" name, NULL, SK_METRIC_GAUGE, help,                    \
            offsetof(sched_stats, field)                                       \
    }

#define REJECTED "Jobs refused at submission, by reason."
#define FINAL    "Tasks that reached their final outcome, by outcome."
#define DROPPED                                                                \
    "Inputs dropped as invalid for their sender or state, or as stale, by "    \
    "reason."
#define REFUSED "HELLOs refused over a limit, by role."

static const sk_metric SCHED_METRICS[] = {
    C("jobs_accepted", ss_jobs_accepted, "Jobs accepted."),
    L("jobs_rejected", "reason=\"limit\"", ss_reject_limit, REJECTED),
    L("jobs_rejected", "reason=\"duplicate\"", ss_reject_dup, REJECTED),
    L("jobs_rejected", "reason=\"no_nodes\"", ss_reject_nodes, REJECTED),
    L("jobs_rejected", "reason=\"budget\"", ss_reject_budget, REJECTED),
    L("jobs_rejected", "reason=\"other\"", ss_reject_other, REJECTED),
    C("jobs_done", ss_jobs_done, "Jobs finished (JOB_DONE sent)."),
    C("jobs_cancelled", ss_jobs_cancelled, "Jobs cancelled by their frontend."),
    C("jobs_abandoned", ss_jobs_abandoned,
      "Jobs dropped because their frontend went away."),
    C("tasks_submitted", ss_tasks_submitted, "Tasks of the jobs accepted."),
    C("tasks_launched", ss_tasks_launched,
      "Tasks handed to a node monitor (TASK_REPLY with a task)."),
    C("tasks_retried", ss_tasks_retried, "Lost attempts given another try."),
    C("tasks_unplaced", ss_tasks_unplaced,
      "Tasks failed for want of a live preferred node."),
    C("tasks_abandoned", ss_tasks_abandoned,
      "Tasks unfinished when their frontend went away."),
    C("launch_timeouts", ss_launch_timeouts,
      "Tasks launched that never started in time."),
    L("tasks_finished", "outcome=\"ok\"", ss_outcome[SK_TASK_OK], FINAL),
    L("tasks_finished", "outcome=\"failed\"", ss_outcome[SK_TASK_FAILED],
      FINAL),
    L("tasks_finished", "outcome=\"killed\"", ss_outcome[SK_TASK_KILLED],
      FINAL),
    L("tasks_finished", "outcome=\"lost\"", ss_outcome[SK_TASK_LOST], FINAL),
    L("tasks_finished", "outcome=\"cancelled\"", ss_outcome[SK_TASK_CANCELLED],
      FINAL),
    C("enqueue_messages", ss_enqueues, "ENQUEUE_RESERVATION messages sent."),
    C("reservations", ss_reservations, "Reservations placed (probes)."),
    C("reservations_resent", ss_resent,
      "Reservations placed again after their node was lost."),
    C("reservations_saturated", ss_sat_probes,
      "Reservations placed on nodes saturated by long tasks."),
    C("nothing_left_replies", ss_nothing_left,
      "TASK_REPLY without a task (late binding found the job done)."),
    C("cancel_messages", ss_cancels, "CANCEL_RESERVATIONS messages sent."),
    C("kill_messages", ss_kills, "KILL_TASK messages sent."),
    L("input_dropped", "reason=\"bad_type\"", ss_bad_type, DROPPED),
    L("input_dropped", "reason=\"bad_peer\"", ss_bad_peer, DROPPED),
    L("input_dropped", "reason=\"bad_field\"", ss_bad_field, DROPPED),
    L("input_dropped", "reason=\"bad_state\"", ss_bad_state, DROPPED),
    L("input_dropped", "reason=\"unknown_job\"", ss_unknown_job, DROPPED),
    L("input_dropped", "reason=\"unknown_reservation\"", ss_unknown_resv,
      DROPPED),
    L("input_dropped", "reason=\"stale\"", ss_stale, DROPPED),
    L("hellos_refused", "role=\"nodemon\"", ss_limit_nodes, REFUSED),
    L("hellos_refused", "role=\"frontend\"", ss_limit_frontends, REFUSED),
    C("memberships", ss_memberships, "MEMBERSHIP messages applied."),
    C("membership_unknown", ss_membership_unknown,
      "MEMBERSHIP entries for no node known."),
    C("nomem", ss_nomem, "Work dropped for want of memory."),
    G("nodes", ss_nodes, "Node monitors connected."),
    G("nodes_live", ss_live, "Node monitors up and not saturated."),
    G("nodes_saturated", ss_saturated,
      "Node monitors up and saturated by long tasks."),
    G("frontends", ss_frontends, "Frontends known."),
    G("jobs", ss_jobs, "Jobs in flight."),
    G("job_bytes", ss_bytes, "Bytes held for the jobs in flight."),
    G("reservations_open", ss_resv_open, "Reservations outstanding."),
};

void sched_metrics(const sched_core *c, sk_metrics_out *o)
{
    const sched_stats *st = sched_stats_get(c);
    sk_metrics_table(o, SCHED_METRICS,
                     sizeof SCHED_METRICS / sizeof SCHED_METRICS[0], st);
    static double bounds[SCHED_WAIT_NBOUNDS];
    for (uint32_t b = 0; b < SCHED_WAIT_NBOUNDS; b++)
        bounds[b] = (double)SCHED_WAIT_BOUNDS_US[b] / 1e6;
    sk_histogram h;
    sk_histogram_init(&h, bounds, SCHED_WAIT_NBOUNDS);
    for (uint32_t b = 0; b <= SCHED_WAIT_NBOUNDS; b++) {
        h.hg_counts[b] = st->ss_wait[b];
        h.hg_count += st->ss_wait[b];
    }
    h.hg_sum = (double)st->ss_wait_sum_us / 1e6;
    sk_metrics_histogram(o, "skylark_sched_launch_wait_seconds",
                         "Time from a job's acceptance to each of its tasks' "
                         "launch (TASK_REPLY): the sampling path's overhead.",
                         &h);
}
