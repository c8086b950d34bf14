/*
 * fd_metrics.c - the flow node's counters as Prometheus families
 * (fd_metrics.h): one table, the last round's gauges and the round
 * histograms, rendered by sk_metrics.
 */
#include "fd_metrics.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define C(name, field, help)                                                   \
    {                                                                          \
        "skylark_flowd_" name "_total", NULL, SK_METRIC_COUNTER, help,         \
            offsetof(fd_stats, field)                                          \
    }
#define L(name, label, field, help)                                            \
    {                                                                          \
        "skylark_flowd_" name "_total", label, SK_METRIC_COUNTER, help,        \
            offsetof(fd_stats, field)                                          \
    }
#define G(name, field, help)                                                   \
    {                                                                          \
        "skylark_flowd_" name, NULL, SK_METRIC_GAUGE, help,                    \
            offsetof(fd_stats, field)                                          \
    }

#define DROPPED "Inputs dropped as invalid, over a limit or stale, by reason."
#define PLACEMENT                                                              \
    "Placements of a solve dropped before their RESERVE, by reason."

static const sk_metric FD_METRICS[] = {
    C("nodes_up", fs_nodes_up, "Node monitor registrations accepted."),
    C("nodes_down", fs_nodes_down, "Nodes timed out, gone or replaced."),
    C("heartbeats", fs_heartbeats, "HEARTBEATs applied."),
    C("jobs_accepted", fs_jobs_accepted, "Jobs accepted."),
    C("jobs_rejected", fs_jobs_rejected,
      "Jobs refused (limits, bad fields, duplicates)."),
    C("jobs_cancelled", fs_jobs_cancelled, "Jobs cancelled."),
    C("reserves", fs_reserves, "RESERVE messages sent."),
    C("reserve_acks", fs_acks, "RESERVE_ACKs matched."),
    C("reserve_rejects", fs_rejects, "RESERVE_REJECTs matched."),
    C("reserves_lost", fs_reserve_lost, "RESERVEs unanswered in time."),
    C("releases", fs_releases, "RELEASE messages sent."),
    C("tasks_replanned", fs_replanned, "Tasks sent back to waiting."),
    C("tasks_ended", fs_tasks_ended, "Tasks learned to have ended."),
    C("tasks_lost", fs_tasks_lost, "Tasks ended LOST by the flow node."),
    C("tasks_failed", fs_tasks_failed, "Tasks ended FAILED by the flow node."),
    C("tasks_adopted", fs_adopted,
      "Running tasks adopted after a restart of the flow node."),
    C("unknown_tasks_killed", fs_unknown_kill,
      "Reported tasks released with a kill."),
    L("placements_dropped", "reason=\"dead\"", fs_dropped_dead, PLACEMENT),
    L("placements_dropped", "reason=\"over_cap\"", fs_dropped_cap, PLACEMENT),
    C("ignored_moves", fs_ignored_moves,
      "Flows that left a task's node, not applied (no preemption)."),
    C("tasks_preempted", fs_preempted, "Placed tasks stopped."),
    C("sched_sessions_lost", fs_sched_gone,
      "Scheduler sessions ended with their work held (sched_grace_ms)."),
    C("sched_reclaimed", fs_sched_reclaimed,
      "Schedulers back within their grace, work taken back."),
    C("sched_expired", fs_sched_expired,
      "Held work cancelled: grace over or a new incarnation."),
    C("outcomes_kept", fs_kept, "Outcomes kept for a scheduler away."),
    C("jobs_reforwarded", fs_reforwarded,
      "Held jobs matched with a returning scheduler's re-forward."),
    C("tasks_ended_away", fs_gone_ended,
      "Tasks a returning scheduler held that ended meanwhile (LOST)."),
    C("stalls", fs_stalls,
      "Stalls of flowd itself (stopped, starved): nodes' silence forgiven."),
    C("nodes_detached", fs_nodes_detached,
      "Node sessions ended right after a stall, kept for their return."),
    C("nodes_back", fs_nodes_back,
      "Detached nodes registered again, with their long tasks."),
    C("tasks_reclaimed", fs_reclaimed,
      "Long tasks of a node lost and back, taken back running."),
    C("tasks_reclaim_killed", fs_reclaim_killed,
      "Long tasks of a node lost and back, placed again meanwhile: killed."),
    C("tasks_done_elsewhere", fs_done_elsewhere,
      "Tasks the scheduler reported done while another attempt was held."),
    C("rounds", fs_rounds, "Rounds ended."),
    C("rounds_failed", fs_round_fail, "Rounds whose solve failed."),
    C("network_errors", fs_net_errors, "Flow network changes that failed."),
    L("input_dropped", "reason=\"bad_type\"", fs_bad_type, DROPPED),
    L("input_dropped", "reason=\"bad_peer\"", fs_bad_peer, DROPPED),
    L("input_dropped", "reason=\"bad_field\"", fs_bad_field, DROPPED),
    L("input_dropped", "reason=\"limit\"", fs_limit, DROPPED),
    L("input_dropped", "reason=\"unknown\"", fs_unknown, DROPPED),
    L("input_dropped", "reason=\"stale\"", fs_stale, DROPPED),
    C("nomem", fs_nomem, "Work dropped for want of memory."),
    C("constraint_rounds", fs_cx_rounds,
      "Rounds that placed tasks under placement constraints."),
    C("constraint_placed", fs_cx_placed, "Constrained tasks RESERVEd."),
    C("constraint_repair_moves", fs_cx_repaired,
      "Tasks placed or moved by the constraint repair pass."),
    C("constraint_spread_moves", fs_cx_spread,
      "Tasks moved at no cost to spread a tag over racks."),
    C("constraint_rounds_bounded", fs_cx_bounded,
      "Constraint rounds that offered only some nodes."),
    C("constraint_rounds_cut", fs_cx_cut,
      "Constraint rounds whose repair pass spent its work bound."),
    C("constraint_rounds_skipped", fs_cx_skipped,
      "Rounds whose constraint step placed nothing: no change, or ruled out."),
    C("constraint_rounds_ruled_out", fs_cx_ruled_out,
      "Of those, ruled out by the probe: no node where a waiting task fits."),
    C("constraint_held", fs_cx_held,
      "Placements held back: they broke a soft constraint (cx_wait_ms)."),
    C("constraint_placed_after_wait", fs_cx_expired,
      "Constrained tasks placed breaking a soft constraint, the wait over."),
    G("nodes", fs_nodes, "Live nodes."),
    G("schedulers", fs_schedulers, "Schedulers registered."),
    G("schedulers_held", fs_sched_held,
      "Schedulers gone, their work held for their return."),
    G("jobs", fs_jobs, "Jobs held."),
    G("tasks_waiting", fs_waiting, "Tasks waiting for a node."),
    G("tasks_reserved", fs_reserved, "Tasks with a RESERVE unanswered."),
    G("tasks_placed", fs_placed, "Tasks acknowledged, not yet seen running."),
    G("tasks_running", fs_running, "Tasks seen running."),
    G("pending_events", fs_events, "Changes not yet in a round."),
    G("last_round_events", fs_last_events, "Changes the last round applied."),
    G("last_round_placed", fs_last_placed, "RESERVEs the last round sent."),
    G("constraint_waiting", fs_cx_waiting,
      "Constrained tasks the last constraint round left waiting."),
    G("constraint_pairs_checked", fs_cx_checked,
      "(constraint, placed task) pairs of the last constraint round."),
    G("constraint_hard_broken", fs_cx_hard,
      "Hard (constraint, task) pairs broken after the last constraint round."),
    G("constraint_soft_broken", fs_cx_soft,
      "Soft (constraint, task) pairs broken after the last constraint round."),
    G("constraint_soft_weight", fs_cx_soft_weight,
      "Weight of the soft pairs broken after the last constraint round."),
};

/* Solve times from 0.5 ms (a small incremental round) to 30 s. */
static const double SOLVE_BOUNDS[] = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                      0.025,  0.05,  0.1,    0.25,  0.5,
                                      1,      2.5,   5,      10,    30};
/* Changes per round, 1 to 100,000. */
static const double EVENT_BOUNDS[] = {1,    3,    10,    30,    100,   300,
                                      1000, 3000, 10000, 30000, 100000};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

void fd_round_metrics_init(fd_round_metrics *m)
{
    memset(m, 0, sizeof *m);
    sk_histogram_init(&m->rm_solve_s, SOLVE_BOUNDS, NELEM(SOLVE_BOUNDS));
    sk_histogram_init(&m->rm_events, EVENT_BOUNDS, NELEM(EVENT_BOUNDS));
}

void fd_round_metrics_observe(fd_round_metrics *m, const fc_solve_stats *st,
                              const fd_stats *fs)
{
    sk_histogram_observe(&m->rm_solve_s, st->ss_seconds);
    sk_histogram_observe(&m->rm_events, (double)fs->fs_last_events);
    if ((unsigned)st->ss_algorithm <= FC_ALG_RACE)
        m->rm_won[st->ss_algorithm]++;
}

void fd_metrics(const fd_core *c, const fd_round_metrics *m, sk_metrics_out *o)
{
    const fd_stats *fs = fd_core_stats(c);
    sk_metrics_table(o, FD_METRICS, NELEM(FD_METRICS), fs);
    sk_metrics_u64(o, "skylark_flowd_graph_nodes", NULL, SK_METRIC_GAUGE,
                   "Nodes of the flow network at the last round's start.",
                   fs->fs_graph_nodes > 0 ? (uint64_t)fs->fs_graph_nodes : 0);
    sk_metrics_u64(o, "skylark_flowd_graph_arcs", NULL, SK_METRIC_GAUGE,
                   "Arcs of the flow network at the last round's start.",
                   fs->fs_graph_arcs > 0 ? (uint64_t)fs->fs_graph_arcs : 0);
    sk_metrics_double(o, "skylark_flowd_last_solve_seconds", NULL,
                      SK_METRIC_GAUGE, "Wall time of the last round's solve.",
                      fs->fs_last_solve_ms / 1e3);
    for (int a = FC_ALG_SSP; a <= FC_ALG_RACE; a++) {
        char label[48];
        snprintf(label, sizeof label, "algorithm=\"%s\"",
                 fc_algorithm_name((fc_algorithm)a));
        sk_metrics_u64(o, "skylark_flowd_solves_total", label,
                       SK_METRIC_COUNTER,
                       "Solves ended, by the algorithm that produced the "
                       "flow.",
                       m->rm_won[a]);
    }
    sk_metrics_histogram(o, "skylark_flowd_solve_seconds",
                         "Wall time of each round's solve.", &m->rm_solve_s);
    sk_metrics_histogram(o, "skylark_flowd_round_events",
                         "Changes to the cluster each round applied.",
                         &m->rm_events);
}
