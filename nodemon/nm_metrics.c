/*
 * nm_metrics.c - the node monitor's counters as Prometheus families
 * (nm_metrics.h): two tables and the slot gauges, rendered by sk_metrics.
 */
#include "nm_metrics.h"

#include <stddef.h>

#define C(name, field, help)                                                   \
    {                                                                          \
        "skylark_nodemon_" name "_total", NULL, SK_METRIC_COUNTER, help,       \
            offsetof(nm_stats, field)                                          \
    }
#define L(name, label, field, help)                                            \
    {                                                                          \
        "skylark_nodemon_" name "_total", label, SK_METRIC_COUNTER, help,      \
            offsetof(nm_stats, field)                                          \
    }

#define REFUSED "Reservations dropped on arrival, by reason."
#define DROPPED "Inputs dropped as unexpected, stale or matching nothing."

static const sk_metric NM_METRICS[] = {
    C("reservations_enqueued", ns_enqueued, "Short reservations queued."),
    L("reservations_refused", "reason=\"queue_full\"", ns_queue_full, REFUSED),
    L("reservations_refused", "reason=\"unfit\"", ns_unfit, REFUSED),
    L("reservations_refused", "reason=\"duplicate\"", ns_duplicate, REFUSED),
    L("reservations_refused", "reason=\"users_full\"", ns_users_full, REFUSED),
    C("get_task_messages", ns_get_tasks, "GET_TASK messages sent."),
    C("task_replies", ns_replies_task, "TASK_REPLY with a task received."),
    C("empty_replies", ns_replies_empty,
      "TASK_REPLY without a task received (the job had none left)."),
    C("get_task_timeouts", ns_get_task_timeouts,
      "GET_TASK unanswered in time."),
    C("tasks_launched", ns_launched, "Tasks launched (LAUNCH_TASK)."),
    C("tasks_finished", ns_finished, "Task results accepted."),
    C("tasks_lost", ns_lost, "Tasks reported LOST."),
    C("tasks_no_executor", ns_no_executor,
      "Tasks failed: no executor for their framework."),
    C("reservations_away", ns_resv_away,
      "Reservations dropped: their job's framework executor is away."),
    C("outcomes_late", ns_outcomes_late,
      "Ends of tasks lost with their executor's session, told by the same "
      "executor back and offered."),
    C("tasks_executor_away", ns_executor_away,
      "Tasks given back LOST: their framework's executor left and is not "
      "back."),
    C("task_collisions", ns_task_collisions,
      "Tasks failed: the same task already runs."),
    C("results_dropped", ns_results_dropped,
      "Results for a scheduler that left."),
    C("cancel_messages", ns_cancels, "CANCEL_RESERVATIONS received."),
    C("reservations_cancelled", ns_cancelled,
      "Reservations removed by cancels."),
    C("kills", ns_kills, "KILL_TASK passed to executors."),
    C("reserves", ns_reserves, "Long-task RESERVEs accepted."),
    C("reserve_rejects", ns_reserve_rejects, "RESERVE_REJECT sent."),
    C("long_tasks_started", ns_long_started, "Long tasks started."),
    C("releases", ns_releases, "RELEASEs applied."),
    C("heartbeats", ns_heartbeats, "HEARTBEATs sent to flowd."),
    C("hb_users_cut", ns_hb_users_cut,
      "Users past a HEARTBEAT's page 0 (over 64), sent in later pages."),
    C("status_replies", ns_status_replies, "STATUS_REPLY sent."),
    L("input_dropped", "reason=\"unexpected\"", ns_unexpected, DROPPED),
    L("input_dropped", "reason=\"cancel_unknown\"", ns_cancel_unknown, DROPPED),
    L("input_dropped", "reason=\"stale_reply\"", ns_stale_replies, DROPPED),
    L("input_dropped", "reason=\"stale_finished\"", ns_stale_finished, DROPPED),
    L("input_dropped", "reason=\"kill_unknown\"", ns_kill_unknown, DROPPED),
    L("input_dropped", "reason=\"release_unknown\"", ns_release_unknown,
      DROPPED),
    L("hellos_refused", "reason=\"peers_full\"", ns_peers_full,
      "HELLOs refused, by reason."),
    L("hellos_refused", "reason=\"bad\"", ns_bad_hello,
      "HELLOs refused, by reason."),
    C("nomem", ns_nomem, "Work lost for want of memory."),
};
#undef C
#undef L

#define X(name, field, help)                                                   \
    {                                                                          \
        "skylark_nodemon_exec_" name "_total", NULL, SK_METRIC_COUNTER, help,  \
            offsetof(nm_cmdexec_stats, field)                                  \
    }
#define XR(label, field)                                                       \
    {                                                                          \
        "skylark_nodemon_exec_results_total", label, SK_METRIC_COUNTER,        \
            "Results of commands run by the built-in executor, by status.",    \
            offsetof(nm_cmdexec_stats, field)                                  \
    }
#define XF(label, field)                                                       \
    {                                                                          \
        "skylark_nodemon_exec_refused_total", label, SK_METRIC_COUNTER,        \
            "Commands failed at once without running, by reason.",             \
            offsetof(nm_cmdexec_stats, field)                                  \
    }

static const sk_metric EXEC_METRICS[] = {
    X("started", cs_started, "Commands spawned."),
    XR("status=\"ok\"", cs_ok),
    XR("status=\"failed\"", cs_failed),
    XR("status=\"killed\"", cs_killed),
    XF("reason=\"bad_spec\"", cs_bad_spec),
    XF("reason=\"busy\"", cs_busy),
    XF("reason=\"duplicate\"", cs_duplicate),
    XF("reason=\"spawn_failed\"", cs_spawn_failed),
    XF("reason=\"no_account\"", cs_no_account),
    X("kills", cs_kills, "Kills applied."),
    X("kill_unknown", cs_kill_unknown, "Kills for no task running here."),
    X("stray_children", cs_stray, "Reaped children that were not tasks."),
    X("output_bytes", cs_output_bytes, "Output bytes read from all tasks."),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void gauge(sk_metrics_out *o, const char *name, const char *labels,
                  const char *help, uint64_t v)
{
    sk_metrics_u64(o, name, labels, SK_METRIC_GAUGE, help, v);
}

void nm_metrics(const nm_core *nm, const nm_cmdexec_stats *cs,
                sk_metrics_out *o)
{
    sk_metrics_table(o, NM_METRICS, NELEM(NM_METRICS), nm_get_stats(nm));
    nm_slot_info si;
    nm_slots(nm, &si);
    gauge(o, "skylark_nodemon_slots", NULL, "Task slots of the node.",
          si.si_total);
    const char *busy = "Slots in use, by what holds them.";
    gauge(o, "skylark_nodemon_slots_used", "state=\"running\"", busy,
          si.si_running);
    gauge(o, "skylark_nodemon_slots_used", "state=\"fetching\"", busy,
          si.si_fetching);
    gauge(o, "skylark_nodemon_long_reservations", NULL,
          "Long-task reservations, pending or running.", si.si_reserved);
    gauge(o, "skylark_nodemon_long_pending", NULL,
          "Long-task reservations waiting for a slot.", si.si_long_pending);
    gauge(o, "skylark_nodemon_queued_reservations", NULL,
          "Short reservations queued.", si.si_queued);
    const char *res = "Resources in use by running, held and pending long "
                      "tasks.";
    gauge(o, "skylark_nodemon_resources_used", "resource=\"cpu_milli\"", res,
          si.si_used_res.r_cpu_milli);
    gauge(o, "skylark_nodemon_resources_used", "resource=\"mem_mb\"", res,
          si.si_used_res.r_mem_mb);
    sk_metrics_table(o, EXEC_METRICS, NELEM(EXEC_METRICS), cs);
    gauge(o, "skylark_nodemon_exec_running", NULL,
          "Commands running in the built-in executor.", cs->cs_running);
}
