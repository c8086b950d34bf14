/*
 * sched_prefetch.c - sched_prefetch_msg (sched_core.h): the index slots a
 * node monitor's message will make the scheduler core look up, loaded
 * ahead. The records behind them are left to the call: loading them ahead
 * would take more stages than they save a driver.
 */
#include "sched_int.h"

void sched_prefetch_msg(const sched_core *c, sk_peer from, const sk_msg *msg)
{
    switch (msg->m_type) {
    case SK_MSG_GET_TASK:
        sched_map_prefetch(&c->c_nodes, from);
        sched_map_prefetch(&c->c_resvs, msg->m_get_task.gt_resv);
        break;
    case SK_MSG_TASK_STARTED:
        sched_map_prefetch(&c->c_jobs, msg->m_task_started.st_job);
        break;
    case SK_MSG_TASK_FINISHED:
        sched_map_prefetch(&c->c_jobs, msg->m_task_finished.tf_job);
        break;
    default:
        break;
    }
}
