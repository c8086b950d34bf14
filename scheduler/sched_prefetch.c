/*
 * sched_prefetch.c - sched_prefetch_msg (sched_core.h): what a node
 * monitor's message will make the scheduler core look up, loaded ahead:
 * the index slots of a GET_TASK (its reservation's record is left to the
 * call: loading it would take another stage), the task record of a task
 * report.
 */
#include "sched_int.h"

/* A task report: the jobs in flight are few and busy, so their index and
 * records are in the caches, and the task's record (one of many, cold)
 * can be loaded at once. */
static void load_task(const sched_core *c, uint64_t job, uint32_t task)
{
    const sched_job *j = sk_map_get(&c->c_jobs, job);
    if (j != NULL && task < j->j_ntasks) {
        __builtin_prefetch(&j->j_tasks[task]);
        __builtin_prefetch((const char *)&j->j_tasks[task] + 64);
    }
}

void sched_prefetch_msg(const sched_core *c, sk_peer from, const sk_msg *msg)
{
    switch (msg->m_type) {
    case SK_MSG_GET_TASK:
        sk_map_prefetch(&c->c_nodes, from);
        sk_map_prefetch(&c->c_resvs, msg->m_get_task.gt_resv);
        break;
    case SK_MSG_TASK_STARTED:
        load_task(c, msg->m_task_started.st_job, msg->m_task_started.st_task);
        break;
    case SK_MSG_TASK_FINISHED:
        load_task(c, msg->m_task_finished.tf_job, msg->m_task_finished.tf_task);
        break;
    default:
        break;
    }
}
