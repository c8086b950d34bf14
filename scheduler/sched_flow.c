/*
 * sched_flow.c - the scheduler's flow path: the work it hands to the
 * flow node (skylark-flowd) and the outcomes it relays back.
 *
 * What goes to flowd: every task of a long job (sj_long) or of a job
 * placed by flow (sj_placement FLOW), at admission; and the fallback of
 * short work that sampling cannot place: a task with no live preferred
 * node, a task left without probes after a node loss, and every task
 * still pending sc_fallback_ms after its job was accepted. Each such
 * batch is a hand-over (sched_flow): one SUBMIT_JOB to flowd whose job
 * id is the hand-over's own id and whose tasks are numbered within it.
 * flowd's RESERVE names this scheduler, so the node monitors report the
 * tasks here with those numbers: the hand-over maps them back to the
 * job's tasks, and the frontend hears of them as of any other task. The
 * scheduler keeps owning every outcome; flowd owns placement and
 * retries (it re-plans a task whose node is lost, and reports LOST or
 * FAILED when it gives up).
 *
 * A task held by flowd is in state SCHED_TASK_FLOW until a node reports
 * it started (RUNNING, on that node), then DONE with its outcome, which
 * also goes on to flowd (TASK_FINISHED) so that it frees the slot at
 * once. Attempt numbers are flowd's from there: a report for an attempt
 * older than the last one seen is stale.
 *
 * flowd's session ends: when its HELLO comes again, every hand-over in
 * flight is sent again with the same id and numbering, ended tasks
 * marked done. A restarted flowd (another incarnation) adopts what runs
 * and places the rest once, the attempts going on from the last seen; the
 * same flowd, which held our work for its sched_grace_ms, matches them
 * with what it holds, attempts unchanged (docs/DAEMONS.md §8).
 */
#include "sched_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

static const char WHY_REFUSED[] = "the flow node refused the job: ";

/* ---- hand-overs -------------------------------------------------------- */

static sched_flow *flow_of(const sched_core *c, uint64_t id)
{
    return sk_map_get(&c->c_flows, id);
}

/* send_handover sends fl to flowd as one SUBMIT_JOB (again, after a
 * restart: ended tasks are marked done). */
static void send_handover(sched_core *c, const sched_flow *fl)
{
    const sched_job *j = fl->fl_job;
    sk_task_spec *ts =
        sk_arena_alloc(&c->c_scratch, fl->fl_ntasks * sizeof *ts);
    sk_msg *m =
        ts != NULL ? sched_send(c, c->c_flowd, SK_MSG_SUBMIT_JOB) : NULL;
    if (m == NULL) {
        if (ts == NULL)
            c->c_stats.ss_nomem++;
        return;
    }
    for (uint32_t i = 0; i < fl->fl_ntasks; i++) {
        const sched_task *t = &j->j_tasks[fl->fl_tasks[i]];
        memset(&ts[i], 0, sizeof ts[i]);
        /* Tags even on ended tasks: constraints count the tagged. */
        ts[i].ts_tags = t->tk_tags;
        ts[i].ts_ntags = t->tk_ntags;
        /* The frontend's name, so that the node monitor keeps and offers
         * the outcome as for a short task (refs increase: fl_tasks do). */
        ts[i].ts_ref = j->j_key != 0 ? t->tk_ref : 0;
        if (t->tk_state == SCHED_TASK_DONE || t->tk_flow != fl) {
            ts[i].ts_done = true;
            continue;
        }
        ts[i].ts_spec = (sk_bytes){t->tk_spec, t->tk_spec_len};
        ts[i].ts_preferred = t->tk_pref;
        ts[i].ts_npreferred = t->tk_npref;
        ts[i].ts_racks = t->tk_racks;
        ts[i].ts_nracks = t->tk_nracks;
        ts[i].ts_attempt = t->tk_attempt;
    }
    sk_submit_job *sj = &m->m_submit_job;
    sj->sj_job = fl->fl_id;
    sj->sj_user = j->j_user;
    sj->sj_priority = j->j_prio;
    sj->sj_labels = j->j_labels;
    sj->sj_nlabels = j->j_nlabels;
    sj->sj_res = j->j_res;
    sj->sj_long = j->j_long;
    sj->sj_max_attempts = j->j_sj_attempts;
    sj->sj_framework = j->j_framework;
    sj->sj_tasks = ts;
    sj->sj_ntasks = fl->fl_ntasks;
    sj->sj_placement = SK_PLACE_FLOW;
    sj->sj_constraints = j->j_cons;
    sj->sj_nconstraints = j->j_ncons;
    sj->sj_key = j->j_key;
    c->c_stats.ss_flow_sent++;
}

bool sched_flow_known(const sched_core *c)
{
    return c->c_flowd_up || c->c_stats.ss_flowd_up > 0;
}

/* handover moves the pending tasks idx[0..n) of j to a new hand-over and
 * sends it (held, while flowd's session is down, until it comes back:
 * sched_flow_up). Their probes are left to sched_pending_changed. Returns
 * false (nothing changed) if no flowd was ever connected, or without
 * memory. */
static bool handover(sched_core *c, sched_job *j, const uint32_t *idx,
                     uint32_t n)
{
    if (!sched_flow_known(c) || n == 0)
        return false;
    sched_flow *fl = malloc(sizeof *fl + (size_t)n * sizeof fl->fl_tasks[0]);
    uint64_t id = c->c_next_job + 1;
    if (fl == NULL || sk_map_put(&c->c_flows, id, fl) != 0) {
        free(fl);
        c->c_stats.ss_nomem++;
        return false;
    }
    c->c_next_job = id;
    fl->fl_id = id;
    fl->fl_job = j;
    fl->fl_ntasks = n;
    fl->fl_next = j->j_flows;
    j->j_flows = fl;
    for (uint32_t i = 0; i < n; i++) {
        sched_task *t = &j->j_tasks[idx[i]];
        SK_ASSERT(t->tk_state == SCHED_TASK_PENDING);
        fl->fl_tasks[i] = idx[i];
        t->tk_state = SCHED_TASK_FLOW;
        t->tk_flow = fl;
        t->tk_fidx = i;
    }
    j->j_npending -= n;
    j->j_nflow += n;
    c->c_stats.ss_flow_tasks += n;
    if (c->c_flowd_up)
        send_handover(c, fl);
    return true;
}

/* sched_flow_take hands the one pending task (already out of the job's
 * queue) to flowd as a fallback. Returns false, with nothing changed,
 * when no flowd is connected (or out of memory): the caller then ends
 * the task as it did before the flow path existed. */
bool sched_flow_take(sched_core *c, sched_job *j, uint32_t task)
{
    if (!c->c_flowd_up || !handover(c, j, &task, 1))
        return false;
    c->c_stats.ss_fallback_tasks++;
    sched_pending_changed(c, j);
    return true;
}

/* sched_flow_take_pending hands every pending task of j to flowd (a long
 * or flow-placed job at admission, or a short job at its fallback time)
 * and withdraws the job's probes. Nothing happens if no flowd was ever
 * connected; while its session is down the tasks wait for its return. */
void sched_flow_take_pending(sched_core *c, sched_job *j)
{
    uint32_t *idx =
        sk_arena_alloc(&c->c_scratch, (size_t)j->j_npending * sizeof *idx + 1);
    if (idx == NULL || !sched_flow_known(c)) {
        if (idx == NULL)
            c->c_stats.ss_nomem++;
        return;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < j->j_ntasks && n < j->j_npending; i++)
        if (j->j_tasks[i].tk_state == SCHED_TASK_PENDING)
            idx[n++] = i;
    if (!handover(c, j, idx, n))
        return;
    j->j_qlen = 0;
    if (!j->j_long && j->j_placement != SK_PLACE_FLOW)
        c->c_stats.ss_fallback_tasks += n;
    sched_pending_changed(c, j);
}

/* sched_flow_free forgets the hand-overs of a job being freed. */
void sched_flow_free(sched_core *c, sched_job *j)
{
    while (j->j_flows != NULL) {
        sched_flow *fl = j->j_flows;
        j->j_flows = fl->fl_next;
        sk_map_del(&c->c_flows, fl->fl_id);
        free(fl);
    }
    sched_fallback_disarm(c, j);
}

/* sched_flow_cancel tells flowd to release and kill what it holds of j
 * (cancelled, or its frontend left). */
void sched_flow_cancel(sched_core *c, sched_job *j)
{
    for (sched_flow *fl = j->j_flows; fl != NULL && c->c_flowd_up;
         fl = fl->fl_next) {
        sk_msg *m = sched_send(c, c->c_flowd, SK_MSG_CANCEL_JOB);
        if (m != NULL) {
            m->m_cancel_job.cj_job = fl->fl_id;
            m->m_cancel_job.cj_reason = "";
        }
    }
}

/* ---- flowd comes and goes ---------------------------------------------- */

/* sched_flow_up: peer said HELLO as flowd, of process incarnation. It
 * becomes the directory and the flow path; every hand-over in flight is
 * sent to it again: a flowd that restarted adopts or places them, the
 * same flowd (its session was lost, and it held our work for
 * sched_grace_ms) matches them with what it holds and ends the tasks
 * marked done. */
void sched_flow_up(sched_core *c, sk_peer peer, uint64_t incarnation)
{
    /* Only a new flowd can have reserved attempts unseen; the same one
     * keeps its numbering, which the node monitors report with. */
    bool restarted = incarnation != c->c_flowd_inc;
    c->c_flowd = peer;
    c->c_flowd_up = true;
    c->c_flowd_inc = incarnation;
    c->c_stats.ss_flowd_up++;
    for (uint32_t i = 0; i < c->c_flows.mp_cap; i++) {
        sched_flow *fl = c->c_flows.mp_vals[i];
        if (fl == NULL)
            continue;
        for (uint32_t k = 0; k < fl->fl_ntasks && restarted; k++) {
            sched_task *t = &fl->fl_job->j_tasks[fl->fl_tasks[k]];
            if (t->tk_flow == fl && t->tk_state == SCHED_TASK_FLOW &&
                t->tk_attempt + 1 < SK_MAX_ATTEMPTS)
                t->tk_attempt++;
        }
        send_handover(c, fl);
        c->c_stats.ss_flow_resent++;
    }
}

/* sched_flow_down: the flow node's session ended. Its tasks stay held
 * (running ones run on) until it comes back and they are sent again. */
void sched_flow_down(sched_core *c, sk_peer peer)
{
    if (c->c_flowd_up && c->c_flowd == peer)
        c->c_flowd_up = false;
}

/* ---- reports ----------------------------------------------------------- */

/* task_of finds the task of hand-over id at index idx, or NULL. */
static sched_task *task_of(sched_core *c, uint64_t id, uint32_t idx)
{
    sched_flow *fl = flow_of(c, id);
    if (fl == NULL)
        return NULL;
    if (idx >= fl->fl_ntasks) {
        c->c_stats.ss_bad_field++;
        return NULL;
    }
    sched_task *t = &fl->fl_job->j_tasks[fl->fl_tasks[idx]];
    if (t->tk_flow != fl || t->tk_state == SCHED_TASK_DONE) {
        c->c_stats.ss_bad_state++;
        return NULL;
    }
    return t;
}

static uint32_t index_in_job(const sched_task *t)
{
    return (uint32_t)(t - t->tk_job->j_tasks);
}

/* sched_flow_started handles a TASK_STARTED whose job id is a hand-over's
 * (returns false if it is not one). From a node monitor, for the current
 * attempt or a later one (flowd moved the task): the task runs there,
 * and the frontend is told. */
bool sched_flow_started(sched_core *c, sk_peer from, const sk_task_started *st)
{
    if (flow_of(c, st->st_job) == NULL)
        return false;
    sched_node *nd = sk_map_get(&c->c_nodes, from);
    sched_task *t = task_of(c, st->st_job, st->st_task);
    if (t == NULL)
        return true;
    if (nd == NULL) {
        c->c_stats.ss_bad_peer++;
        return true;
    }
    if (st->st_attempt < t->tk_attempt || (st->st_attempt == t->tk_attempt &&
                                           t->tk_state == SCHED_TASK_RUNNING)) {
        c->c_stats.ss_stale++;
        return true;
    }
    sched_job *j = t->tk_job;
    if (t->tk_state == SCHED_TASK_FLOW) {
        j->j_nflow--;
        j->j_nlaunched++;
    }
    t->tk_state = SCHED_TASK_RUNNING;
    t->tk_node = nd;
    t->tk_attempt = st->st_attempt;
    t->tk_launched = (sk_time)st->st_launch_us;
    c->c_stats.ss_flow_started++;
    sk_msg *m = sched_send(c, j->j_fe->fe_peer, SK_MSG_TASK_STARTED);
    if (m != NULL) {
        sk_task_started *o = &m->m_task_started;
        o->st_job = j->j_fe_job;
        o->st_task = index_in_job(t);
        o->st_attempt = st->st_attempt;
        o->st_node = nd->nd_name;
        o->st_launch_us = st->st_launch_us;
    }
    return true;
}

/* end records the outcome of a held or running flow task; returns true
 * if the job ended. */
static bool end(sched_core *c, sched_task *t, const sk_task_finished *tf,
                sk_bytes out, const char *node)
{
    t->tk_node = NULL;
    return sched_task_final(c, t, tf->tf_status, tf->tf_exit, out, node,
                            tf->tf_launch_us, tf->tf_end_us);
}

/* sched_flow_finished handles a TASK_FINISHED whose job id is a
 * hand-over's (returns false if it is not one), out being the output
 * the core keeps. From the node monitor the task runs on: its outcome,
 * passed on to flowd. From flowd: the outcome it decided (LOST, FAILED)
 * for a task it gave up. */
bool sched_flow_finished(sched_core *c, sk_peer from,
                         const sk_task_finished *tf, sk_bytes out)
{
    if (flow_of(c, tf->tf_job) == NULL)
        return false;
    sched_task *t = task_of(c, tf->tf_job, tf->tf_task);
    if (t == NULL)
        return true;
    if (tf->tf_attempt < t->tk_attempt) {
        c->c_stats.ss_stale++;
        return true;
    }
    if (c->c_flowd_up && from == c->c_flowd) {
        c->c_stats.ss_flow_gave_up++;
        end(c, t, tf, out, tf->tf_node);
        return true;
    }
    if (t->tk_state != SCHED_TASK_RUNNING || t->tk_node == NULL ||
        t->tk_node->nd_peer != from || tf->tf_attempt != t->tk_attempt) {
        c->c_stats.ss_bad_peer++;
        return true;
    }
    if (tf->tf_status == SK_TASK_KILLED) {
        /* Not this core's kill (a task it kills has ended here first):
         * flowd released the attempt to run another one (preemption, or
         * a node back from a partition whose task it had placed again),
         * and holds the task until that one starts. */
        c->c_stats.ss_flow_moved++;
        sched_flow_node_down(c, t);
        return true;
    }
    if (c->c_flowd_up) {
        sk_msg *m = sched_send(c, c->c_flowd, SK_MSG_TASK_FINISHED);
        if (m != NULL) {
            m->m_task_finished = *tf;
            m->m_task_finished.tf_output = (sk_bytes){NULL, 0};
        }
    }
    /* The node may go within this call; the name is copied before. */
    end(c, t, tf, out, t->tk_node->nd_name);
    return true;
}

/* sched_flow_settled tells flowd that t, which it holds (waiting or
 * placed), has its outcome from elsewhere (an outcome a node monitor
 * offered): it ends the task and releases what it placed. While flowd
 * is away the task is marked done in the re-forward instead. */
void sched_flow_settled(sched_core *c, const sched_task *t, uint8_t status)
{
    if (!c->c_flowd_up || t->tk_flow == NULL)
        return;
    sk_msg *m = sched_send(c, c->c_flowd, SK_MSG_TASK_FINISHED);
    if (m == NULL)
        return;
    sk_task_finished *tf = &m->m_task_finished;
    tf->tf_job = t->tk_flow->fl_id;
    tf->tf_task = t->tk_fidx;
    tf->tf_attempt = t->tk_attempt;
    tf->tf_node = "";
    tf->tf_status = status;
}

/* sched_flow_answer handles flowd's JOB_ACCEPTED or JOB_REJECTED of a
 * hand-over. A refusal ends its unfinished tasks FAILED with the reason. */
void sched_flow_answer(sched_core *c, sk_peer from, const sk_msg *msg)
{
    const sk_job_ack *ja = &msg->m_job_ack;
    sched_flow *fl = flow_of(c, ja->ja_job);
    if (!c->c_flowd_up || from != c->c_flowd || fl == NULL) {
        c->c_stats.ss_bad_peer++;
        return;
    }
    if (msg->m_type == SK_MSG_JOB_ACCEPTED)
        return;
    c->c_stats.ss_flow_refused++;
    sched_job *j = fl->fl_job;
    const char *why =
        sk_arena_printf(&c->c_scratch, "%s%s", WHY_REFUSED, ja->ja_reason);
    sk_task_finished tf = {.tf_status = SK_TASK_FAILED};
    for (uint32_t i = 0; i < fl->fl_ntasks; i++) {
        sched_task *t = &j->j_tasks[fl->fl_tasks[i]];
        if (t->tk_flow != fl || t->tk_state != SCHED_TASK_FLOW)
            continue;
        if (end(c, t, &tf, sched_text(why != NULL ? why : WHY_REFUSED), ""))
            return;
    }
}

/* sched_flow_node_down: the node t (a flow task) ran on is gone. flowd
 * sees it too and re-plans or gives up; the task is held again. */
void sched_flow_node_down(sched_core *c, sched_task *t)
{
    (void)c;
    sched_job *j = t->tk_job;
    t->tk_node = NULL;
    t->tk_state = SCHED_TASK_FLOW;
    j->j_nlaunched--;
    j->j_nflow++;
}

/* ---- fallback by time -------------------------------------------------- */

/* sched_fallback_arm puts a newly accepted short job on the fallback
 * list (jobs are accepted in time order, so it stays sorted). */
void sched_fallback_arm(sched_core *c, sched_job *j, sk_time now)
{
    if (c->c_cfg.sc_fallback_ms == 0 || j->j_npending == 0)
        return;
    j->j_fallback_at = now + (sk_time)c->c_cfg.sc_fallback_ms * 1000;
    j->j_fbnext = NULL;
    j->j_fbprev = c->c_fb_tail;
    j->j_in_fallback = true;
    if (c->c_fb_tail != NULL)
        c->c_fb_tail->j_fbnext = j;
    else
        c->c_fb_head = j;
    c->c_fb_tail = j;
}

/* sched_fallback_disarm takes j off the fallback list (nothing pending
 * any more, or freed); a no-op if it is not on it. */
void sched_fallback_disarm(sched_core *c, sched_job *j)
{
    if (!j->j_in_fallback)
        return;
    if (j->j_fbprev != NULL)
        j->j_fbprev->j_fbnext = j->j_fbnext;
    else
        c->c_fb_head = j->j_fbnext;
    if (j->j_fbnext != NULL)
        j->j_fbnext->j_fbprev = j->j_fbprev;
    else
        c->c_fb_tail = j->j_fbprev;
    j->j_fbnext = j->j_fbprev = NULL;
    j->j_in_fallback = false;
}

/* sched_fallback_due hands the pending tasks of every job whose fallback
 * time has come to flowd (when one is connected; else they stay with
 * sampling). */
void sched_fallback_due(sched_core *c, sk_time now)
{
    while (c->c_fb_head != NULL && c->c_fb_head->j_fallback_at <= now) {
        sched_job *j = c->c_fb_head;
        sched_fallback_disarm(c, j);
        sched_flow_take_pending(c, j);
    }
}

/* sched_fallback_deadline: when sched_fallback_due has work. */
sk_time sched_fallback_deadline(const sched_core *c)
{
    return c->c_fb_head != NULL ? c->c_fb_head->j_fallback_at : SK_TIME_NEVER;
}
