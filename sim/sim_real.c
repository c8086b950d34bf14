/*
 * sim_real.c - the late-binding strategy: Skylark's real scheduler and
 * node monitor cores, unchanged, on a simulated network.
 *
 * Every node runs an nm_core, every scheduler a sched_core, both created
 * from the run's settings and introduced to each other by HELLO (as the
 * daemons do when they connect). Beside each scheduler sits a frontend,
 * simulated here: it submits SUBMIT_JOB for each job given to its
 * scheduler and keeps the records when TASK_FINISHED and JOB_DONE come
 * back. After every call into a core its outbox is drained at once:
 * messages for other processes are copied (sim_msg.h) and delivered after
 * the network delay; LAUNCH_TASK and KILL_TASK for the node's command
 * executor (NM_PEER_COMMAND) go to the simulated executor, which ends a
 * task after its duration (carried in the task's spec: 8 bytes, little
 * endian, microseconds) by giving the core the TASK_FINISHED a real
 * executor would. Each core's timer (sched_next_deadline,
 * nm_next_deadline) is an event; one is kept pending per core, at the
 * earliest deadline it asked for.
 *
 * The simulated executor also checks the cores: a node may never run more
 * tasks than it has slots, and a task spec must be the one the frontend
 * sent; anything else stops the run with an error.
 */
#include "sim.h"
#include "sim_cons.h"
#include "sim_jobmap.h"
#include "sim_loc.h"
#include "sim_par.h"

#include "nm_core.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

enum {
    EV_MSG = SIM_EV_STRATEGY, /* ev_a from, ev_b to, ev_p sim_msg */
    EV_FINISH,                /* ev_a node, ev_b run index */
    EV_TIMER,                 /* ev_a peer, ev_x time it was set for */
    EV_SUBMIT,                /* ev_p job, after the frontend's delay */
};

/* A task the simulated command executor of a node runs. */
typedef struct real_run {
    uint64_t ru_job; /* the core's job id */
    uint32_t ru_task;
    uint32_t ru_attempt;
    sk_time ru_start;
    uint32_t ru_ev; /* its EV_FINISH */
    bool ru_used;
    bool ru_long; /* a task of a long job */
} real_run;

typedef struct real_node {
    nm_core *rn_core;
    sk_time rn_timer; /* pending EV_TIMER, or SK_TIME_NEVER */
} real_node;

typedef struct real_sched {
    sched_core *rs_core;
    sk_time rs_timer;
} real_sched;

/* A partition's node monitors' outbox (drained after each call), in a
 * cache line of its own: partitions run on threads of their own. */
typedef struct part_outbox {
    sk_outbox po_box;
} __attribute__((aligned(64))) part_outbox;

typedef struct real_state {
    real_node *nodes;
    part_outbox *node_out; /* per partition */
    uint32_t nparts;
    real_run *runs; /* nodes x slots */
    real_sched *scheds;
    sim_jobmap jobs; /* the frontends' jobs in flight, by j_seq */
    /* SUBMIT_JOB being built */
    sk_task_spec *specs;
    uint8_t *spec_bytes;
    const char **pref_ptrs;
    char (*pref_names)[16];
    uint32_t spec_cap, pref_cap;
    sk_time zero_wait; /* a task launched this long after its job's
                          arrival never queued (fixed delays) */
    uint64_t rejected;
    char first_reject[256];
} real_state;

/* ---- routing ---------------------------------------------------------- */

static bool is_node(const sim *s, sk_peer p)
{
    return p < s->s_p->p_nodes;
}

static bool is_sched(const sim *s, sk_peer p)
{
    return p >= SIM_PEER_SCHED && p - SIM_PEER_SCHED < s->s_p->p_scheds;
}

static bool is_fe(const sim *s, sk_peer p)
{
    return p >= SIM_PEER_FE && p - SIM_PEER_FE < s->s_p->p_scheds;
}

/* The flow peers talk to nodes, schedulers and each other. */
static bool is_flow(sk_peer p)
{
    return p == SIM_PEER_FLOWD || p == SIM_PEER_FLOWS;
}

static void drain_node(sim *s, uint32_t i);
static void drain_sched(sim *s, uint32_t k);
static void frontend(sim *s, uint32_t k, const sk_msg *m);

static void arm(sim *s, sk_time *timer, sk_time deadline, sk_peer peer)
{
    if (deadline == SK_TIME_NEVER || deadline >= *timer)
        return;
    if (deadline < s->s_now)
        deadline = s->s_now;
    sim_ev *ev = sim_at(s, deadline, EV_TIMER, false, NULL);
    ev->ev_a = peer;
    ev->ev_x = deadline;
    *timer = deadline;
}

static sim_msg *copy(sim *s, sk_peer from, const sk_msg *m)
{
    int err = 0;
    sim_msg *c = sim_msg_copy(&s->s_msgs, m, s->s_p->p_wire, &err);
    if (c == NULL)
        sim_fail(s, SK_ESTATE,
                 "peer %u sent a %s that the protocol rejects: %s", from,
                 sk_msg_type_name(m->m_type), sk_strerror(err));
    return c;
}

/* send carries m from one process to another over the network. */
static void send(sim *s, sk_peer from, sk_peer to, const sk_msg *m)
{
    const sim_params *p = s->s_p;
    s->s_st.st_net[m->m_type < SK_MSG_TYPE_END ? m->m_type : 0]++;
    if (is_fe(s, to) && p->p_fe_delay == 0) {
        /* The frontend is in the scheduler's process: no network. It
         * only keeps records, so handling it inside the drain is safe. */
        if (!p->p_wire) {
            frontend(s, to - SIM_PEER_FE, m);
            return;
        }
        sim_msg *c = copy(s, from, m);
        if (c != NULL) {
            frontend(s, to - SIM_PEER_FE, &c->mg_msg);
            sim_msg_put(&s->s_msgs, c);
        }
        return;
    }
    sk_time at;
    bool fifo = false;
    if (is_node(s, to) && is_sched(s, from))
        at = sim_net_time(s, to, from - SIM_PEER_SCHED, true, &fifo);
    else if (is_node(s, from) && is_sched(s, to))
        at = sim_net_time(s, from, to - SIM_PEER_SCHED, false, &fifo);
    else if ((is_fe(s, to) && is_sched(s, from)) ||
             (is_sched(s, to) && is_fe(s, from)))
        at = s->s_now + p->p_fe_delay;
    else if (is_flow(to) || is_flow(from))
        at = s->s_now + p->p_delay;
    else {
        sim_fail(s, SK_ESTATE,
                 "peer %u sent %s to peer %u, which is not "
                 "connected to it",
                 from, sk_msg_type_name(m->m_type), to);
        return;
    }
    sim_msg *c = copy(s, from, m);
    if (c == NULL)
        return;
    sim_ev *ev = sim_at_part(s, is_node(s, to) ? sim_node_part(s, to) : 0,
                             is_node(s, from) ? from : 0, at, EV_MSG, fifo);
    ev->ev_a = from;
    ev->ev_b = to;
    ev->ev_p = c;
}

void sim_send(sim *s, sk_peer from, sk_peer to, const sk_msg *m)
{
    if (s->s_ops != &sim_strategy_late) {
        sim_fail(s, SK_ESTATE, "sim_send needs the late-binding strategy");
        return;
    }
    send(s, from, to, m);
}

int sim_late_hello(sim *s, uint32_t node, sk_peer peer, const sk_hello *h)
{
    if (s->s_ops != &sim_strategy_late)
        return SK_ESTATE;
    if (node >= s->s_p->p_nodes)
        return SK_EINVAL;
    real_state *rs = s->s_state;
    sim *q = sim_par_part(s, sim_node_part(s, node));
    nm_peer_up(rs->nodes[node].rn_core, peer, h, q->s_now);
    drain_node(q, node);
    return 0;
}

int sim_late_sched_hello(sim *s, uint32_t k, sk_peer peer, const sk_hello *h)
{
    if (s->s_ops != &sim_strategy_late)
        return SK_ESTATE;
    if (k >= s->s_p->p_scheds)
        return SK_EINVAL;
    real_state *rs = s->s_state;
    sched_peer_up(rs->scheds[k].rs_core, peer, h, s->s_now);
    drain_sched(s, k);
    return 0;
}

/* ---- the simulated command executor ------------------------------------ */

static void exec_launch(sim *s, uint32_t node, const sk_launch *lt)
{
    real_state *rs = s->s_state;
    uint32_t slots = s->s_p->p_slots;
    s->s_st.st_local[SK_MSG_LAUNCH_TASK]++;
    if (lt->lt_spec.b_len != SIM_SPEC_BYTES) {
        sim_fail(s, SK_ESTATE,
                 "node n%u launched job %llu task %u with a spec of %u "
                 "bytes; the frontend sent %u",
                 node, (unsigned long long)lt->lt_job, lt->lt_task,
                 lt->lt_spec.b_len, SIM_SPEC_BYTES);
        return;
    }
    uint64_t dur = 0, seq = 0;
    for (int b = 7; b >= 0; b--) {
        dur = dur << 8 | lt->lt_spec.b_data[b];
        seq = seq << 8 | lt->lt_spec.b_data[8 + b];
    }
    bool is_long = (dur & SIM_SPEC_LONG) != 0;
    dur &= ~SIM_SPEC_LONG;
    real_run *run = &rs->runs[(size_t)node * slots], *free_run = NULL;
    for (uint32_t r = 0; r < slots && free_run == NULL; r++)
        if (!run[r].ru_used)
            free_run = &run[r];
    if (free_run == NULL) {
        sim_fail(s, SK_ESTATE,
                 "node n%u launched job %llu task %u while all its %u "
                 "slots run tasks",
                 node, (unsigned long long)lt->lt_job, lt->lt_task, slots);
        return;
    }
    if (s->s_loc != NULL)
        dur += (uint64_t)sim_loc_launch(s->s_loc, seq, lt->lt_task, node);
    uint32_t id;
    sim_ev *ev = sim_at(s, s->s_now + dur, EV_FINISH, false, &id);
    ev->ev_a = node;
    ev->ev_b = (uint32_t)(free_run - run);
    *free_run = (real_run){lt->lt_job, lt->lt_task, lt->lt_attempt, s->s_now,
                           id,         true,        is_long};
    sim_busy(s, +1);
}

/* A run ends (finished or killed): the executor tells the node monitor. */
static sk_msg run_end(sim *s, real_run *run, uint8_t status)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    sk_task_finished *tf = &m.m_task_finished;
    tf->tf_job = run->ru_job;
    tf->tf_task = run->ru_task;
    tf->tf_attempt = run->ru_attempt;
    tf->tf_node = "";
    tf->tf_status = status;
    tf->tf_exit = status == SK_TASK_OK ? 0 : -9;
    tf->tf_launch_us = run->ru_start;
    tf->tf_end_us = s->s_now;
    run->ru_used = false;
    sim_busy(s, -1);
    s->s_st.st_local[SK_MSG_TASK_FINISHED]++;
    return m;
}

static void exec_kill(sim *s, uint32_t node, const sk_kill_task *kt)
{
    real_state *rs = s->s_state;
    uint32_t slots = s->s_p->p_slots;
    s->s_st.st_local[SK_MSG_KILL_TASK]++;
    real_run *run = &rs->runs[(size_t)node * slots];
    for (uint32_t r = 0; r < slots; r++) {
        if (!run[r].ru_used || run[r].ru_job != kt->kt_job ||
            (kt->kt_task != SK_TASK_ANY &&
             (run[r].ru_task != kt->kt_task ||
              run[r].ru_attempt != kt->kt_attempt)))
            continue;
        sim_evq_rec(&s->s_q, run[r].ru_ev)->ev_dead = 1;
        /* A killed process is reported at once, as a message that the
         * node monitor gets after this call (never inside its drain). */
        sk_msg m = run_end(s, &run[r], SK_TASK_KILLED);
        sim_msg *c = copy(s, NM_PEER_COMMAND, &m);
        if (c == NULL)
            return;
        sim_ev *ev = sim_at(s, s->s_now, EV_MSG, false, NULL);
        ev->ev_a = NM_PEER_COMMAND;
        ev->ev_b = node;
        ev->ev_p = c;
    }
}

static void exec_finish(sim *s, uint32_t node, uint32_t r)
{
    real_state *rs = s->s_state;
    real_run *run = &rs->runs[(size_t)node * s->s_p->p_slots + r];
    sk_msg m = run_end(s, run, SK_TASK_OK);
    nm_on_message(rs->nodes[node].rn_core, NM_PEER_COMMAND, &m, s->s_now);
    drain_node(s, node);
}

/* ---- draining the cores ----------------------------------------------- */

static void drain_node(sim *s, uint32_t i)
{
    real_state *rs = s->s_state;
    real_node *n = &rs->nodes[i];
    sk_outbox *ob = nm_outbox(n->rn_core);
    for (size_t k = 0; k < ob->ob_len; k++) {
        const sk_out *o = &ob->ob_msgs[k];
        if (o->o_peer != NM_PEER_COMMAND)
            send(s, i, o->o_peer, &o->o_msg);
        else if (o->o_msg.m_type == SK_MSG_LAUNCH_TASK)
            exec_launch(s, i, &o->o_msg.m_launch);
        else if (o->o_msg.m_type == SK_MSG_KILL_TASK)
            exec_kill(s, i, &o->o_msg.m_kill_task);
        else
            sim_fail(s, SK_ESTATE, "node n%u sent %s to its executor", i,
                     sk_msg_type_name(o->o_msg.m_type));
    }
    sk_outbox_clear(ob);
    arm(s, &n->rn_timer, nm_next_deadline(n->rn_core), i);
}

static void drain_sched(sim *s, uint32_t k)
{
    real_state *rs = s->s_state;
    real_sched *sc = &rs->scheds[k];
    sk_outbox *ob = sched_outbox(sc->rs_core);
    for (size_t i = 0; i < ob->ob_len; i++)
        send(s, SIM_PEER_SCHED + k, ob->ob_msgs[i].o_peer,
             &ob->ob_msgs[i].o_msg);
    sk_outbox_clear(ob);
    arm(s, &sc->rs_timer, sched_next_deadline(sc->rs_core), SIM_PEER_SCHED + k);
}

/* ---- the frontends ---------------------------------------------------- */

static sim_job *fe_job(sim *s, uint64_t id, const char *what)
{
    real_state *rs = s->s_state;
    sim_job *j = sim_jobmap_get(&rs->jobs, id);
    if (j == NULL)
        sim_fail(s, SK_ESTATE, "a frontend got %s for job %llu, not in flight",
                 what, (unsigned long long)id);
    return j;
}

static void frontend(sim *s, uint32_t k, const sk_msg *m)
{
    real_state *rs = s->s_state;
    sim_job *j;
    (void)k;
    switch (m->m_type) {
    case SK_MSG_JOB_REJECTED:
        if ((j = fe_job(s, m->m_job_ack.ja_job, "JOB_REJECTED")) == NULL)
            return;
        if (rs->rejected++ == 0)
            snprintf(rs->first_reject, sizeof rs->first_reject, "%s",
                     m->m_job_ack.ja_reason);
        sim_jobmap_del(&rs->jobs, j->j_seq);
        sim_job_end(s, j, SIM_JOB_REJECTED);
        return;
    case SK_MSG_TASK_FINISHED: {
        const sk_task_finished *tf = &m->m_task_finished;
        if ((j = fe_job(s, tf->tf_job, "TASK_FINISHED")) == NULL)
            return;
        if (tf->tf_task >= j->j_ntasks) {
            sim_fail(s, SK_ESTATE,
                     "TASK_FINISHED for task %u of a %u-task "
                     "job",
                     tf->tf_task, j->j_ntasks);
            return;
        }
        bool ran = tf->tf_node[0] != '\0';
        bool queued = ran && tf->tf_launch_us > j->j_arrival + rs->zero_wait;
        sim_task_end(s, j, tf->tf_task, tf->tf_attempt,
                     ran ? tf->tf_node : NULL, ran ? tf->tf_launch_us : 0,
                     ran ? tf->tf_end_us : 0, tf->tf_status, queued);
        return;
    }
    case SK_MSG_JOB_DONE:
        if ((j = fe_job(s, m->m_job_done.jd_job, "JOB_DONE")) == NULL)
            return;
        if (j->j_ndone != j->j_ntasks ||
            m->m_job_done.jd_tasks != j->j_ntasks) {
            sim_fail(s, SK_ESTATE,
                     "JOB_DONE for job %llu after %u of its %u tasks",
                     (unsigned long long)j->j_seq, j->j_ndone, j->j_ntasks);
            return;
        }
        sim_jobmap_del(&rs->jobs, j->j_seq);
        sim_job_end(s, j, SIM_JOB_DONE);
        return;
    case SK_MSG_TASK_STARTED:
        /* Only a first attempt is news: a retry (the simulator loses no
         * node) would restart a task already counted. */
        if (m->m_task_started.st_attempt == 0 &&
            (j = fe_job(s, m->m_task_started.st_job, "TASK_STARTED")) != NULL) {
            sim_stats_placed(&s->s_st, j, m->m_task_started.st_launch_us);
            sim_task_start(s, j);
        }
        return;
    default:
        return; /* JOB_ACCEPTED: nothing to record */
    }
}

static int grow_scratch(real_state *rs, uint32_t ntasks, uint32_t nprefs)
{
    if (ntasks > rs->spec_cap) {
        sk_task_spec *sp = realloc(rs->specs, ntasks * sizeof *sp);
        if (sp == NULL)
            return SK_ENOMEM;
        rs->specs = sp;
        uint8_t *b = realloc(rs->spec_bytes, (size_t)ntasks * SIM_SPEC_BYTES);
        if (b == NULL)
            return SK_ENOMEM;
        rs->spec_bytes = b;
        rs->spec_cap = ntasks;
    }
    if (nprefs > rs->pref_cap) {
        const char **pp = realloc(rs->pref_ptrs, nprefs * sizeof *pp);
        if (pp == NULL)
            return SK_ENOMEM;
        rs->pref_ptrs = pp;
        char(*pn)[16] = realloc(rs->pref_names, nprefs * sizeof *pn);
        if (pn == NULL)
            return SK_ENOMEM;
        rs->pref_names = pn;
        rs->pref_cap = nprefs;
    }
    return 0;
}

/* submit sends j's SUBMIT_JOB from its frontend to its scheduler. */
static void submit_now(sim *s, sim_job *j)
{
    real_state *rs = s->s_state;
    const sim_params *p = s->s_p;
    uint32_t npref = j->j_pref_off != NULL && !p->p_hide_prefs
                         ? j->j_pref_off[j->j_ntasks]
                         : 0;
    /* With racks, the preferred racks follow the nodes' (sim_loc.h). */
    bool racks = p->p_rack_size > 0;
    if (grow_scratch(rs, j->j_ntasks, racks ? 2 * npref : npref) != 0) {
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    for (uint32_t t = 0; t < j->j_ntasks; t++) {
        uint8_t *b = &rs->spec_bytes[(size_t)t * SIM_SPEC_BYTES];
        sim_spec_put(b, j, t);
        rs->specs[t] = (sk_task_spec){.ts_spec = {b, SIM_SPEC_BYTES}};
        uint32_t n = npref > 0 ? sim_job_npref(j, t) : 0;
        if (n > 0) {
            uint32_t off = j->j_pref_off[t];
            for (uint32_t q = 0; q < n; q++)
                rs->pref_ptrs[off + q] =
                    sim_node_name(j->j_pref[off + q], rs->pref_names[off + q]);
            rs->specs[t].ts_preferred = &rs->pref_ptrs[off];
            rs->specs[t].ts_npreferred = n;
            if (racks) {
                rs->specs[t].ts_racks = &rs->pref_ptrs[npref + off];
                rs->specs[t].ts_nracks =
                    sim_loc_racks(p, j, t, &rs->pref_ptrs[npref + off],
                                  &rs->pref_names[npref + off]);
            }
        }
        if (j->j_cons != NULL)
            rs->specs[t].ts_tags =
                sim_cons_task_tags(j->j_cons, t, &rs->specs[t].ts_ntags);
    }
    const char *labels[SIM_JOB_LABELS];
    for (uint32_t i = 0; i < j->j_nlabels; i++)
        labels[i] = s->s_names->n_labels[j->j_labels[i]];
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    sk_submit_job *sj = &m.m_submit_job;
    sj->sj_job = j->j_seq;
    sj->sj_user = s->s_names->n_users[j->j_user].u_name;
    sj->sj_priority = j->j_prio;
    sj->sj_labels = labels;
    sj->sj_nlabels = j->j_nlabels;
    sj->sj_framework = "";
    sj->sj_tasks = rs->specs;
    sj->sj_ntasks = j->j_ntasks;
    if (j->j_cons != NULL) {
        sj->sj_constraints = j->j_cons->sc_spec.cs_items;
        sj->sj_nconstraints = j->j_cons->sc_spec.cs_n;
    }
    /* With the flow node in the run the scheduler hands long jobs (mix
     * flow: every job) to it; otherwise they are sampled. */
    sj->sj_long = j->j_long && (s->s_p->p_mix == SIM_MIX_HYBRID ||
                                s->s_p->p_mix == SIM_MIX_FLOW);
    sj->sj_placement =
        s->s_p->p_mix == SIM_MIX_FLOW ? SK_PLACE_FLOW : SK_PLACE_SAMPLE;
    if (sim_jobmap_put(&rs->jobs, j->j_seq, j) != 0) {
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    s->s_st.st_net[SK_MSG_SUBMIT_JOB]++;
    real_sched *sc = &rs->scheds[j->j_sched];
    sk_peer fe = SIM_PEER_FE + j->j_sched;
    if (s->s_p->p_wire) {
        sim_msg *c = copy(s, fe, &m);
        if (c == NULL)
            return;
        sched_on_message(sc->rs_core, fe, &c->mg_msg, s->s_now);
        sim_msg_put(&s->s_msgs, c);
    } else {
        sched_on_message(sc->rs_core, fe, &m, s->s_now);
    }
    drain_sched(s, j->j_sched);
}

static void late_submit(sim *s, sim_job *j)
{
    if (s->s_p->p_fe_delay == 0) {
        submit_now(s, j);
        return;
    }
    sim_ev *ev =
        sim_at(s, s->s_now + s->s_p->p_fe_delay, EV_SUBMIT, false, NULL);
    ev->ev_p = j;
}

/* ---- events ----------------------------------------------------------- */

/* behind_long tells whether a probe reaching node now waits behind a long
 * task: every slot busy, one of them with a long task. */
static bool behind_long(const sim *s, uint32_t node)
{
    const real_state *rs = s->s_state;
    const real_run *run = &rs->runs[(size_t)node * s->s_p->p_slots];
    bool any_long = false;
    for (uint32_t r = 0; r < s->s_p->p_slots; r++) {
        if (!run[r].ru_used)
            return false;
        any_long |= run[r].ru_long;
    }
    return any_long;
}

static void deliver(sim *s, sk_peer from, sk_peer to, sim_msg *c)
{
    real_state *rs = s->s_state;
    const sk_msg *m = &c->mg_msg;
    if (is_node(s, to)) {
        if (m->m_type == SK_MSG_ENQUEUE_RESERVATION)
            s->s_st.st_behind_long += behind_long(s, to);
        nm_on_message(rs->nodes[to].rn_core, from, m, s->s_now);
        drain_node(s, to);
    } else if (is_sched(s, to)) {
        uint32_t k = to - SIM_PEER_SCHED;
        sched_on_message(rs->scheds[k].rs_core, from, m, s->s_now);
        drain_sched(s, k);
    } else if (is_fe(s, to)) {
        frontend(s, to - SIM_PEER_FE, m);
    } else if (is_flow(to) && s->s_flow != NULL) {
        s->s_flow->fl_deliver(s->s_flow->fl_ctx, s, from, to, m);
    }
    sim_msg_done(s, c);
}

static void timer(sim *s, sk_peer peer, sk_time set_for)
{
    real_state *rs = s->s_state;
    sk_time *t;
    if (is_node(s, peer))
        t = &rs->nodes[peer].rn_timer;
    else
        t = &rs->scheds[peer - SIM_PEER_SCHED].rs_timer;
    if (*t != set_for)
        return; /* superseded by an earlier one */
    *t = SK_TIME_NEVER;
    if (is_node(s, peer)) {
        nm_on_timer(rs->nodes[peer].rn_core, s->s_now);
        drain_node(s, peer);
    } else {
        sched_on_timer(rs->scheds[peer - SIM_PEER_SCHED].rs_core, s->s_now);
        drain_sched(s, peer - SIM_PEER_SCHED);
    }
}

static void late_event(sim *s, const sim_ev *ev)
{
    switch (ev->ev_kind) {
    case EV_MSG:
        deliver(s, ev->ev_a, ev->ev_b, ev->ev_p);
        break;
    case EV_FINISH:
        exec_finish(s, ev->ev_a, ev->ev_b);
        break;
    case EV_TIMER:
        timer(s, ev->ev_a, ev->ev_x);
        break;
    case EV_SUBMIT:
        submit_now(s, ev->ev_p);
        break;
    default:
        sim_fail(s, SK_ESTATE, "unknown event kind %u", ev->ev_kind);
    }
}

/* Stage 0 loads the message or the run, and is the node monitor core's
 * stage 0 (nm_prefetch_msg); stage 1 is the node monitor core's stage 1,
 * for the message or for the TASK_FINISHED the run will give, or
 * sched_prefetch_msg. */
static void late_prefetch(sim *s, const sim_ev *ev, unsigned stage)
{
    real_state *rs = s->s_state;
    if (ev->ev_dead)
        return;
    if (ev->ev_kind == EV_MSG) {
        const sk_msg *m = &((const sim_msg *)ev->ev_p)->mg_msg;
        if (stage == 0) {
            __builtin_prefetch(ev->ev_p);
            __builtin_prefetch((const char *)ev->ev_p + 64);
        }
        if (is_node(s, ev->ev_b))
            nm_prefetch_msg(rs->nodes[ev->ev_b].rn_core, ev->ev_a, m, stage);
        else if (is_sched(s, ev->ev_b) && stage == 1)
            sched_prefetch_msg(rs->scheds[ev->ev_b - SIM_PEER_SCHED].rs_core,
                               ev->ev_a, m);
        return;
    }
    if (ev->ev_kind != EV_FINISH)
        return;
    const real_run *run =
        &rs->runs[(size_t)ev->ev_a * s->s_p->p_slots + ev->ev_b];
    if (stage == 0) {
        __builtin_prefetch(run);
        nm_prefetch_msg(rs->nodes[ev->ev_a].rn_core, NM_PEER_COMMAND, NULL, 0);
        return;
    }
    /* Only the fields nm_prefetch_msg reads of a TASK_FINISHED. */
    sk_msg m;
    m.m_type = SK_MSG_TASK_FINISHED;
    m.m_task_finished.tf_job = run->ru_job;
    m.m_task_finished.tf_task = run->ru_task;
    m.m_task_finished.tf_attempt = run->ru_attempt;
    nm_prefetch_msg(rs->nodes[ev->ev_a].rn_core, NM_PEER_COMMAND, &m, 1);
}

/* ---- set-up ----------------------------------------------------------- */

static int make_cores(sim *s, real_state *rs, char *err, size_t errlen)
{
    const sim_params *p = s->s_p;
    const sim_names *names = s->s_names;
    for (uint32_t k = 0; k < p->p_scheds; k++) {
        sched_config cfg = p->p_sched;
        cfg.sc_id = k;
        snprintf(cfg.sc_name, sizeof cfg.sc_name, "sched%u", k);
        cfg.sc_probe_ratio = p->p_ratio;
        if (cfg.sc_max_probe_ratio < p->p_ratio)
            cfg.sc_max_probe_ratio = p->p_ratio;
        if (sched_new(&cfg, sk_rng_next(&s->s_rng), &rs->scheds[k].rs_core)) {
            snprintf(err, errlen, "the scheduler settings are invalid");
            return SK_ECONFIG;
        }
        rs->scheds[k].rs_timer = SK_TIME_NEVER;
    }
    nm_config cfg = p->p_nm;
    nm_weights weights = p->p_weights;
    cfg.nc_slots = p->p_slots;
    cfg.nc_cpu_milli = (int64_t)p->p_slots * 1000;
    cfg.nc_mem_mb = (int64_t)p->p_slots * 1024;
    /* The schedulers, the flow node and the flow path's scheduler peer. */
    if (cfg.nc_max_peers < (int64_t)p->p_scheds + 3)
        cfg.nc_max_peers = (int64_t)p->p_scheds + 3;
    /* Pure flow and the Hawk-like split place short work (or long work
     * on whole nodes) with RESERVE: every slot may take one. */
    cfg.nc_long_share = p->p_mix == SIM_MIX_FLOW || p->p_mix == SIM_MIX_HAWK ||
                                p->p_mix == SIM_MIX_GREEDY
                            ? 1.0
                            : p->p_long_share;
    for (uint32_t u = 0; u < names->n_nusers; u++)
        if (names->n_users[u].u_weight != 1 &&
            nm_weights_set(&weights, names->n_users[u].u_name,
                           names->n_users[u].u_weight) != 0) {
            snprintf(err, errlen, "user %s: weight %u cannot be set",
                     names->n_users[u].u_name, names->n_users[u].u_weight);
            return SK_ECONFIG;
        }
    const char *labels[SIM_MAX_LABELS];
    char name[16];
    for (uint32_t i = 0; i < p->p_nodes; i++) {
        cfg.nc_node_id = i;
        snprintf(cfg.nc_node, sizeof cfg.nc_node, "n%u", i);
        if (nm_new(&cfg, &weights, sk_rng_next(&s->s_rng),
                   &rs->nodes[i].rn_core)) {
            snprintf(err, errlen, "the node monitor settings are invalid");
            return SK_ECONFIG;
        }
        nm_share_outbox(rs->nodes[i].rn_core,
                        &rs->node_out[sim_node_part(s, i)].po_box);
        rs->nodes[i].rn_timer = SK_TIME_NEVER;
        uint32_t nl = 0;
        for (uint32_t l = 0; l < names->n_nlabels; l++)
            if (s->s_node_labels[i] >> l & 1)
                labels[nl++] = names->n_labels[l];
        sk_hello h = {
            .he_role = SK_ROLE_NODEMON,
            .he_id = i,
            .he_name = sim_node_name(i, name),
            .he_slots = p->p_slots,
            .he_res = {(uint32_t)cfg.nc_cpu_milli, (uint32_t)cfg.nc_mem_mb},
            .he_labels = labels,
            .he_nlabels = nl};
        for (uint32_t k = 0; k < p->p_scheds; k++)
            sched_peer_up(rs->scheds[k].rs_core, i, &h, 0);
        for (uint32_t k = 0; k < p->p_scheds; k++) {
            char sname[16];
            snprintf(sname, sizeof sname, "sched%u", k);
            sk_hello hs = {
                .he_role = SK_ROLE_SCHEDULER, .he_id = k, .he_name = sname};
            nm_peer_up(rs->nodes[i].rn_core, SIM_PEER_SCHED + k, &hs, 0);
        }
        if (nm_get_stats(rs->nodes[i].rn_core)->ns_bad_hello != 0 ||
            nm_get_stats(rs->nodes[i].rn_core)->ns_peers_full != 0) {
            snprintf(err, errlen, "node n%u refused its schedulers", i);
            return SK_ECONFIG;
        }
        sk_outbox_clear(nm_outbox(rs->nodes[i].rn_core));
    }
    for (uint32_t k = 0; k < p->p_scheds; k++) {
        sk_hello h = {.he_role = SK_ROLE_FRONTEND, .he_name = "frontend"};
        sched_peer_up(rs->scheds[k].rs_core, SIM_PEER_FE + k, &h, 0);
        const sched_stats *st = sched_stats_get(rs->scheds[k].rs_core);
        if (st->ss_nodes != p->p_nodes || st->ss_frontends != 1) {
            snprintf(err, errlen, "scheduler %u took %llu of the %u nodes", k,
                     (unsigned long long)st->ss_nodes, p->p_nodes);
            return SK_ECONFIG;
        }
        sk_outbox_clear(sched_outbox(rs->scheds[k].rs_core));
    }
    return 0;
}

static void late_fini(sim *s);

static int late_init(sim *s, char *err, size_t errlen)
{
    const sim_params *p = s->s_p;
    real_state *rs = calloc(1, sizeof *rs);
    if (rs == NULL)
        return SK_ENOMEM;
    s->s_state = rs;
    rs->nodes = calloc(p->p_nodes, sizeof *rs->nodes);
    rs->runs = calloc((size_t)p->p_nodes * p->p_slots, sizeof *rs->runs);
    rs->scheds = calloc(p->p_scheds, sizeof *rs->scheds);
    rs->nparts = 1;
    for (uint32_t i = 0; i < p->p_nodes; i++)
        if (sim_node_part(s, i) >= rs->nparts)
            rs->nparts = sim_node_part(s, i) + 1;
    rs->node_out = sim_lines(rs->nparts * sizeof *rs->node_out);
    if (rs->nodes == NULL || rs->runs == NULL || rs->scheds == NULL ||
        rs->node_out == NULL) {
        late_fini(s);
        return SK_ENOMEM;
    }
    /* With fixed delays a task that never queued is launched exactly
     * three network legs after its job reached the scheduler
     * (ENQUEUE_RESERVATION, GET_TASK, TASK_REPLY). */
    rs->zero_wait = p->p_delay_kind == SIM_DELAY_FIXED
                        ? p->p_fe_delay + 3 * p->p_delay
                        : SK_TIME_NEVER;
    int rc = make_cores(s, rs, err, errlen);
    if (rc != 0) {
        late_fini(s);
        return rc;
    }
    return 0;
}

static void late_fini(sim *s)
{
    real_state *rs = s->s_state;
    if (rs == NULL)
        return;
    const sim_params *p = s->s_p;
    for (uint32_t i = 0; rs->nodes != NULL && i < p->p_nodes; i++)
        nm_free(rs->nodes[i].rn_core);
    for (uint32_t k = 0; rs->scheds != NULL && k < p->p_scheds; k++)
        sched_free(rs->scheds[k].rs_core);
    /* Messages still in flight are in the pool, which the engine frees. */
    for (uint32_t k = 0; rs->node_out != NULL && k < rs->nparts; k++)
        sk_outbox_free(&rs->node_out[k].po_box);
    free(rs->node_out);
    free(rs->nodes);
    free(rs->runs);
    free(rs->scheds);
    sim_jobmap_fini(&rs->jobs);
    free(rs->specs);
    free(rs->spec_bytes);
    free(rs->pref_ptrs);
    free(rs->pref_names);
    free(rs);
    s->s_state = NULL;
}

static int late_check(sim *s, char *err, size_t errlen)
{
    real_state *rs = s->s_state;
    const sim_params *p = s->s_p;
    for (uint32_t i = 0; i < p->p_nodes; i++) {
        nm_slot_info si;
        nm_slots(rs->nodes[i].rn_core, &si);
        uint32_t running = 0;
        for (uint32_t r = 0; r < p->p_slots; r++)
            running += rs->runs[(size_t)i * p->p_slots + r].ru_used;
        if (si.si_running != running || si.si_used > si.si_total) {
            snprintf(err, errlen,
                     "node n%u: the core counts %u running and %u used of "
                     "%u slots, its executor runs %u",
                     i, si.si_running, si.si_used, si.si_total, running);
            return SK_ESTATE;
        }
    }
    return 0;
}

static void late_report(sim *s, FILE *out)
{
    real_state *rs = s->s_state;
    const sim_params *p = s->s_p;
    /* Both counter structures are all uint64_t: sum them field by
     * field. */
    _Static_assert(sizeof(sched_stats) % sizeof(uint64_t) == 0, "");
    _Static_assert(sizeof(nm_stats) % sizeof(uint64_t) == 0, "");
    sched_stats ss = {0};
    for (uint32_t k = 0; k < p->p_scheds; k++) {
        const sched_stats *a = sched_stats_get(rs->scheds[k].rs_core);
        const uint64_t *src = (const uint64_t *)a;
        uint64_t *dst = (uint64_t *)&ss;
        for (size_t f = 0; f < sizeof ss / sizeof(uint64_t); f++)
            dst[f] += src[f];
    }
    nm_stats ns = {0};
    for (uint32_t i = 0; i < p->p_nodes; i++) {
        const uint64_t *src =
            (const uint64_t *)nm_get_stats(rs->nodes[i].rn_core);
        uint64_t *dst = (uint64_t *)&ns;
        for (size_t f = 0; f < sizeof ns / sizeof(uint64_t); f++)
            dst[f] += src[f];
    }
    fprintf(out,
            "schedulers          accepted %llu, rejected %llu, "
            "reservations %llu, cancels %llu; nothing-left replies %llu "
            "(%llu to probes cancelled while their GET_TASK was on the "
            "way)\n",
            (unsigned long long)ss.ss_jobs_accepted,
            (unsigned long long)ss.ss_jobs_rejected,
            (unsigned long long)ss.ss_reservations,
            (unsigned long long)ss.ss_cancels,
            (unsigned long long)ss.ss_nothing_left,
            (unsigned long long)ss.ss_unknown_resv);
    fprintf(out,
            "  anomalies         input dropped %llu, launch timeouts %llu, "
            "retried %llu, out of memory %llu\n",
            (unsigned long long)(ss.ss_bad_type + ss.ss_bad_peer +
                                 ss.ss_bad_field + ss.ss_unknown_job +
                                 ss.ss_bad_state + ss.ss_stale),
            (unsigned long long)ss.ss_launch_timeouts,
            (unsigned long long)ss.ss_tasks_retried,
            (unsigned long long)ss.ss_nomem);
    if (ss.ss_flowd_up > 0)
        fprintf(out,
                "  flow path         tasks handed to flowd %llu (of which "
                "fallback %llu) in %llu hand-overs, started %llu, given up "
                "%llu, refused hand-overs %llu\n",
                (unsigned long long)ss.ss_flow_tasks,
                (unsigned long long)ss.ss_fallback_tasks,
                (unsigned long long)ss.ss_flow_sent,
                (unsigned long long)ss.ss_flow_started,
                (unsigned long long)ss.ss_flow_gave_up,
                (unsigned long long)ss.ss_flow_refused);
    fprintf(out,
            "node monitors       queued %llu, GET_TASK %llu, empty replies "
            "%llu, reservations cancelled %llu\n",
            (unsigned long long)ns.ns_enqueued,
            (unsigned long long)ns.ns_get_tasks,
            (unsigned long long)ns.ns_replies_empty,
            (unsigned long long)ns.ns_cancelled);
    fprintf(
        out,
        "  anomalies         stale replies %llu, GET_TASK timeouts %llu, "
        "task id collisions %llu, dropped (queue full %llu, unfit "
        "%llu, users %llu, memory %llu, unexpected %llu)\n",
        (unsigned long long)ns.ns_stale_replies,
        (unsigned long long)ns.ns_get_task_timeouts,
        (unsigned long long)ns.ns_task_collisions,
        (unsigned long long)ns.ns_queue_full, (unsigned long long)ns.ns_unfit,
        (unsigned long long)ns.ns_users_full, (unsigned long long)ns.ns_nomem,
        (unsigned long long)ns.ns_unexpected);
    if (rs->rejected > 0)
        fprintf(out, "  first rejection   %s\n", rs->first_reject);
}

const sim_strategy sim_strategy_late = {
    .ss_name = "late-binding",
    .ss_summary = "batch sampling with late binding: the real scheduler and "
                  "node monitor cores",
    .ss_init = late_init,
    .ss_fini = late_fini,
    .ss_submit = late_submit,
    .ss_event = late_event,
    .ss_prefetch = late_prefetch,
    .ss_split = true,
    .ss_check = late_check,
    .ss_report = late_report,
};
