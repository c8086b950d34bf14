/*
 * sched_testutil.c - helpers for the scheduler core's unit tests.
 */
#include "sched_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void st_node_up(sched_core *c, sk_peer peer, uint32_t slots, sk_resources res,
                const char **labels)
{
    char name[32];
    snprintf(name, sizeof name, "node%u", peer);
    uint32_t n = 0;
    while (labels != NULL && labels[n] != NULL)
        n++;
    sk_hello h = {.he_role = SK_ROLE_NODEMON,
                  .he_id = peer,
                  .he_name = name,
                  .he_slots = slots,
                  .he_res = res,
                  .he_labels = labels,
                  .he_nlabels = n};
    sched_peer_up(c, peer, &h, 0);
}

void st_nodes_up(sched_core *c, uint32_t n)
{
    for (uint32_t p = 1; p <= n; p++)
        st_node_up(c, p, 4, (sk_resources){4000, 8192}, NULL);
}

void st_fe_up(sched_core *c, sk_peer fe)
{
    sk_hello h = {.he_role = SK_ROLE_FRONTEND, .he_name = "fe"};
    sched_peer_up(c, fe, &h, 0);
}

void st_submit(sched_core *c, sk_peer fe, const st_job *j, sk_time now)
{
    sk_task_spec *tasks = calloc(j->ntasks, sizeof *tasks);
    char(*specs)[16] = calloc(j->ntasks, sizeof *specs);
    for (uint32_t i = 0; i < j->ntasks; i++) {
        int len = snprintf(specs[i], sizeof specs[i], "task-%u", i);
        tasks[i].ts_spec = (sk_bytes){(const uint8_t *)specs[i], (uint32_t)len};
        if (j->preferred != NULL && j->preferred[i] != NULL) {
            uint32_t n = 0;
            while (j->preferred[i][n] != NULL)
                n++;
            tasks[i].ts_preferred = j->preferred[i];
            tasks[i].ts_npreferred = n;
        }
        if (j->key != 0)
            tasks[i].ts_ref = j->refs != NULL ? j->refs[i] : i;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    sk_submit_job *sj = &m.m_submit_job;
    sj->sj_job = j->sj_job;
    sj->sj_user = j->user != NULL ? j->user : "alice";
    sj->sj_key = j->key;
    sj->sj_probe_ratio = j->ratio;
    sj->sj_labels = j->labels;
    sj->sj_nlabels = j->nlabels;
    sj->sj_res = j->res;
    sj->sj_max_attempts = j->max_attempts;
    sj->sj_framework = "";
    sj->sj_tasks = tasks;
    sj->sj_ntasks = j->ntasks;
    sched_on_message(c, fe, &m, now);
    /* The core must have copied what it keeps: scribble over ours. */
    memset(specs, 'x', j->ntasks * sizeof *specs);
    free(specs);
    free(tasks);
}

uint32_t st_count(sched_core *c, sk_msg_type type, sk_peer peer)
{
    const sk_outbox *ob = sched_outbox(c);
    uint32_t n = 0;
    for (size_t i = 0; i < ob->ob_len; i++)
        if (ob->ob_msgs[i].o_msg.m_type == type &&
            (peer == UINT32_MAX || ob->ob_msgs[i].o_peer == peer))
            n++;
    return n;
}

const sk_out *st_nth(sched_core *c, sk_msg_type type, uint32_t n)
{
    const sk_outbox *ob = sched_outbox(c);
    for (size_t i = 0; i < ob->ob_len; i++)
        if (ob->ob_msgs[i].o_msg.m_type == type && n-- == 0)
            return &ob->ob_msgs[i];
    return NULL;
}

void st_clear(sched_core *c)
{
    sk_outbox_clear(sched_outbox(c));
}

void st_node_msg(sched_core *c, sk_peer node, const sk_msg *m, sk_time now)
{
    sched_prefetch_msg(c, node, m);
    sched_on_message(c, node, m, now);
}

const sk_task_reply *st_get_task(sched_core *c, sk_peer node, uint64_t job,
                                 uint64_t resv, sk_time now)
{
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_GET_TASK};
    m.m_get_task.gt_job = job;
    m.m_get_task.gt_resv = resv;
    m.m_get_task.gt_node_id = node;
    m.m_get_task.gt_node = "";
    st_node_msg(c, node, &m, now);
    const sk_out *o = st_nth(c, SK_MSG_TASK_REPLY, 0);
    return o != NULL && o->o_peer == node ? &o->o_msg.m_task_reply : NULL;
}

void st_started(sched_core *c, sk_peer node, uint64_t job, uint32_t task,
                uint32_t attempt, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_TASK_STARTED};
    m.m_task_started.st_job = job;
    m.m_task_started.st_task = task;
    m.m_task_started.st_attempt = attempt;
    m.m_task_started.st_node = "";
    m.m_task_started.st_launch_us = now;
    st_node_msg(c, node, &m, now);
}

void st_finished(sched_core *c, sk_peer node, uint64_t job, uint32_t task,
                 uint32_t attempt, sk_task_status status, sk_time now)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    sk_task_finished *f = &m.m_task_finished;
    f->tf_job = job;
    f->tf_task = task;
    f->tf_attempt = attempt;
    f->tf_node = "";
    f->tf_status = status;
    f->tf_exit = status == SK_TASK_OK ? 0 : 1;
    f->tf_output = (sk_bytes){(const uint8_t *)"out", 3};
    f->tf_launch_us = now;
    f->tf_end_us = now;
    st_node_msg(c, node, &m, now);
}
