/*
 * fd_fast.c - the fallback fast path (fdc_fast_fallback).
 *
 * Short work a scheduler could not place by sampling within its
 * fallback_ms comes to the flow node as a job without sj_long. A round
 * places it ahead of long work, but only once the round's solve is done,
 * and on a cluster full of long work a solve can cost tens of seconds
 * (docs/results/hybrid.md): that wait was the hybrid's short-job tail.
 * Here a waiting fallback task is RESERVEd as soon as the core knows of
 * a node that can start it now: room under the node's long cap (what a
 * round checks before its RESERVEs too) and a free slot by its last
 * heartbeat, less the core's own tasks there not yet seen running.
 * Greedy: first fit, oldest task first. A task that fits nowhere waits
 * for the rounds, as before.
 *
 * When: at the end of each input (fd_fast_input). A HEARTBEAT or a
 * RESERVE answer tries the node that sent it (its load just changed); a
 * TASK_FINISHED the node it names; a SUBMIT_JOB of short work scans the
 * nodes from where the last scan stopped, at most FD_FAST_SCAN +
 * FD_FAST_SCAN_PER_TASK x its tasks of them, so that no input costs
 * O(nodes). Every node heartbeats once a period, so a node that frees a
 * slot is tried within a heartbeat at the latest.
 *
 * A task RESERVEd here while a round is out is no longer waiting when
 * the round ends, which then skips it (fd_round.c, act); a placement of
 * that round to a node this path filled meanwhile is dropped as over the
 * cap and its task waits for the next round.
 *
 * Off by default. On the whole Google trace at 8,000 machines
 * (docs/results/hybrid.md) it cut the hybrid's p99 short-job response
 * from 55 s to 30 s but raised the median from 0.47 to 0.81 s and the
 * p90 from 5.8 to 20 s: fallback tasks take the free slots sampling's
 * probes would have had, more short work falls back (118,174 tasks
 * against 85,859), and placements the rounds did not plan cost the
 * solver more (2.6 against 2.1 billion units of work).
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "skylark.h"

#define FD_FAST_SCAN          64
#define FD_FAST_SCAN_PER_TASK 4
/* Waiting tasks passed over on one node (labels, constraints, a job
 * whose scheduler is away) before the node is left. */
#define FD_FAST_SKIP 32

/* n's slots free by its last heartbeat, less the core's tasks there that
 * it has not seen running (not in that count yet). */
static uint32_t free_slots(const fd_node *n)
{
    uint32_t busy = n->n_used;
    for (const fd_link *l = n->n_tasks.l_next; l != &n->n_tasks; l = l->l_next)
        busy +=
            FD_CONTAINER(l, fd_task, t_node_link)->t_state != FD_TASK_RUNNING;
    return n->n_slots > busy ? n->n_slots - busy : 0;
}

static bool node_open(const fd_node *n)
{
    return !n->n_dead && !n->n_detached && n->n_hb_any &&
           n->n_ntasks < fd_node_room(n) && free_slots(n) > 0;
}

static bool task_fits(const fd_task *t, const fd_node *n)
{
    const fd_job *j = t->t_job;
    return !fd_job_away(j) && !fd_cons_active(j) &&
           (j->j_class == NULL || fd_q_fits(j->j_class, n));
}

/* fill RESERVEs waiting fallback tasks on n while it stays open. */
static void fill(fd_core *c, sk_time now, fd_node *n)
{
    uint32_t skipped = 0;
    fd_link *l = c->c_fast.l_next;
    while (l != &c->c_fast && skipped < FD_FAST_SKIP && node_open(n)) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_fast_link);
        l = l->l_next;
        if (!task_fits(t, n)) {
            skipped++;
            continue;
        }
        uint64_t sent = c->c_st.fs_reserves;
        fd_send_reserve(c, now, t, n);
        if (c->c_st.fs_reserves == sent)
            return; /* out of memory: it stays waiting */
        c->c_st.fs_fast_placed++;
    }
}

void fd_fast_input(fd_core *c, sk_time now, const sk_msg *msg, fd_node *n)
{
    if (!c->c_cfg.fdc_fast_fallback || fd_list_empty(&c->c_fast) ||
        now < c->c_settle_until)
        return;
    if (n != NULL) {
        fill(c, now, n);
        return;
    }
    if (msg->m_type == SK_MSG_TASK_FINISHED) {
        const char *name = msg->m_task_finished.tf_node;
        fd_node *m = name != NULL ? fd_node_by_name(c, name) : NULL;
        if (m != NULL)
            fill(c, now, m);
        return;
    }
    if (msg->m_type != SK_MSG_SUBMIT_JOB || msg->m_submit_job.sj_long)
        return;
    uint64_t len = c->c_nodes.sl_len;
    uint64_t budget = FD_FAST_SCAN + FD_FAST_SCAN_PER_TASK *
                                         (uint64_t)msg->m_submit_job.sj_ntasks;
    if (budget > len)
        budget = len;
    for (uint64_t i = 0; i < budget && !fd_list_empty(&c->c_fast); i++) {
        if (c->c_fast_cursor >= len)
            c->c_fast_cursor = 0;
        fd_node *m = fd_slots_get(&c->c_nodes, c->c_fast_cursor++);
        if (m != NULL)
            fill(c, now, m);
    }
}
