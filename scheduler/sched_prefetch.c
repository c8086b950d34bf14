/*
 * sched_prefetch.c - sched_prefetch_msg (sched_core.h): the memory one
 * node monitor's message will make the scheduler core touch, loaded ahead
 * in stages.
 *
 * Each stage reads only what the stages before it loaded:
 *   0  reads the message: the map slots of its keys (the node, the
 *      reservation of a GET_TASK, the job of a task report);
 *   1  reads the slots: the records they hold;
 *   2  reads those: a reservation's job and a job's task;
 *   3  reads those: the task a GET_TASK's probe is bound to (or the head
 *      of its job's queue), or the neighbours a reported task leaves in
 *      its lists and its node.
 */
#include "sched_int.h"

static void load(const void *p)
{
    if (p != NULL)
        __builtin_prefetch(p);
}

/* A record that may straddle two cache lines. */
static void load2(const void *p)
{
    if (p != NULL) {
        __builtin_prefetch(p);
        __builtin_prefetch((const char *)p + 64);
    }
}

/* The lookup of key in m: stage 0 loads its slot, stage 1 the record in
 * it; later stages return the record (NULL before). */
static const void *lookup(const sched_map *m, uint64_t key, unsigned stage)
{
    if (stage == 0) {
        sched_map_prefetch(m, key);
        return NULL;
    }
    const void *v = sched_map_get(m, key);
    if (stage == 1) {
        load2(v);
        return NULL;
    }
    return v;
}

static void get_task(const sched_core *c, sk_peer from, const sk_get_task *gt,
                     unsigned stage)
{
    lookup(&c->c_nodes, from, stage);
    const sched_resv *r = lookup(&c->c_resvs, gt->gt_resv, stage);
    if (r == NULL)
        return;
    const sched_job *j = r->rs_job;
    if (stage == 2) {
        load2(j);
        load(r->rs_node);
    } else if (r->rs_task != SK_TASK_ANY) {
        load2(&j->j_tasks[r->rs_task]);
    } else if (j->j_qlen > 0) {
        load(&j->j_queue[j->j_qhead]);
    }
}

/* TASK_STARTED and TASK_FINISHED: task of job. */
static void task_report(const sched_core *c, uint64_t job, uint32_t task,
                        unsigned stage)
{
    const sched_job *j = lookup(&c->c_jobs, job, stage);
    if (j == NULL || task >= j->j_ntasks)
        return;
    const sched_task *t = &j->j_tasks[task];
    if (stage == 2) {
        load2(t);
        return;
    }
    load(t->tk_node);
    load(t->tk_lprev);
    load(t->tk_lnext);
    load(t->tk_nprev);
    load(t->tk_nnext);
}

void sched_prefetch_msg(const sched_core *c, sk_peer from, const sk_msg *msg,
                        unsigned stage)
{
    if (stage >= SCHED_PREFETCH_STAGES)
        return;
    switch (msg->m_type) {
    case SK_MSG_GET_TASK:
        get_task(c, from, &msg->m_get_task, stage);
        break;
    case SK_MSG_TASK_STARTED:
        task_report(c, msg->m_task_started.st_job, msg->m_task_started.st_task,
                    stage);
        break;
    case SK_MSG_TASK_FINISHED:
        task_report(c, msg->m_task_finished.tf_job,
                    msg->m_task_finished.tf_task, stage);
        break;
    default:
        break;
    }
}
