/*
 * sim_flow.c - the flow path in skylark-sim: the real flow node core or a
 * central greedy placer, on the simulated network (see sim_flow.h).
 */
#include "sim_flow.h"

#include "fd_core.h"
#include "flowcore.h"
#include "sim_jobmap.h"
#include "sim_loc.h"
#include "skylark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    EV_FTIMER = SIM_EV_FLOW, /* ev_x: time it was set for */
    EV_FROUND,               /* the round out ends */
};

/* A job on the flow path. */
typedef struct fjob {
    sim_job *fj_job;
    uint32_t *fj_node;   /* hawk: per task, 1 + the node holding it */
    uint8_t *fj_started; /* per task: TASK_STARTED seen */
} fjob;

/* Hawk: a long task waiting in the central queue. */
typedef struct hwait {
    uint64_t hw_seq;
    uint32_t hw_task;
} hwait;

/* Greedy: a task waiting, in the cluster's queue and those of its
 * preferred nodes and racks (by index into fs_gw). */
typedef struct gwait {
    uint64_t gw_seq;
    uint32_t gw_task;
    bool gw_placed;
} gwait;

/* A FIFO of gwait indexes; placed entries are dropped when they reach
 * the head. */
typedef struct gqueue {
    uint32_t *q_ids;
    uint32_t q_head, q_len, q_cap;
} gqueue;

typedef struct flow_state {
    sim_flow fs_ops;
    const sim_params *fs_p;
    sim_mix fs_mix;
    fc_algorithm fs_alg;
    sim_jobmap fs_jobs; /* fjob by j_seq */
    /* the flow node */
    fd_core *fs_core;
    fd_round *fs_round;     /* out, or NULL */
    fc_solve_stats fs_rst;  /* its solve's */
    int fs_rrc;             /* its solve's result */
    sk_time fs_round_until; /* when it ends */
    sk_time fs_timer;       /* pending EV_FTIMER, or SK_TIME_NEVER */
    /* hawk: nodes by the long tasks they hold, in lists per count */
    uint32_t *fs_count; /* per node */
    uint32_t *fs_next;  /* per node, in its count's list; UINT32_MAX: end */
    uint32_t *fs_prev;  /* UINT32_MAX: head */
    uint32_t *fs_head;  /* per count 0..slots */
    uint32_t *fs_tail;
    hwait *fs_wait; /* a ring */
    size_t fs_wcap, fs_whead, fs_wlen;
    uint64_t fs_resv; /* last reservation id */
    /* counters */
    uint64_t fs_rounds, fs_round_fail;
    double fs_solve_wall;    /* seconds, all solves */
    double fs_solve_max;     /* seconds, the longest */
    sim_hist fs_round_virt;  /* virtual solve time per round, us */
    uint64_t fs_iterations;  /* flowcore's work count, all solves */
    uint64_t fs_hawk_placed; /* hawk: RESERVEs sent */
    uint64_t fs_hawk_rejects;
    size_t fs_hawk_peak; /* hawk: longest central queue */
    /* greedy: every task that waited, and the queues */
    gwait *fs_gw;
    uint32_t fs_gwn, fs_gwcap;
    gqueue fs_gall;      /* the cluster's, FIFO */
    gqueue *fs_gnode;    /* per node: tasks preferring it */
    gqueue *fs_grack;    /* per rack: tasks preferring it */
    uint64_t fs_g_local; /* placed from a node's or rack's queue */
} flow_state;

static const char *const mix_names[SIM_NMIXES] = {
    [SIM_MIX_SKIP] = "skip",     [SIM_MIX_SAMPLING] = "sampling",
    [SIM_MIX_FLOW] = "flow",     [SIM_MIX_HAWK] = "hawk",
    [SIM_MIX_HYBRID] = "hybrid", [SIM_MIX_GREEDY] = "greedy",
};

int sim_mix_parse(const char *name, sim_mix *out)
{
    for (int m = 0; m < SIM_NMIXES; m++)
        if (strcmp(name, mix_names[m]) == 0) {
            *out = (sim_mix)m;
            return 0;
        }
    return SK_EINVAL;
}

const char *sim_mix_name(sim_mix m)
{
    return m < SIM_NMIXES ? mix_names[m] : "?";
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t flows_id(const sim *s)
{
    return s->s_p->p_scheds;
}

/* ---- jobs ------------------------------------------------------------- */

static void fjob_free(fjob *fj)
{
    if (fj == NULL)
        return;
    free(fj->fj_node);
    free(fj->fj_started);
    free(fj);
}

/* job_maybe_end ends fj's job when every task has its outcome. */
static void job_maybe_end(flow_state *fs, sim *s, fjob *fj)
{
    sim_job *j = fj->fj_job;
    if (j->j_ndone < j->j_ntasks)
        return;
    sim_jobmap_del(&fs->fs_jobs, j->j_seq);
    fjob_free(fj);
    sim_job_end(s, j, SIM_JOB_DONE);
}

static fjob *job_of(flow_state *fs, sim *s, uint64_t seq, uint32_t task,
                    const char *what)
{
    fjob *fj = sim_jobmap_get(&fs->fs_jobs, seq);
    if (fj == NULL || task >= fj->fj_job->j_ntasks) {
        sim_fail(s, SK_ESTATE,
                 "the flow path got %s for job %llu task %u, "
                 "not in flight",
                 what, (unsigned long long)seq, task);
        return NULL;
    }
    return fj;
}

/* ---- the flow node ---------------------------------------------------- */

static void drain(flow_state *fs, sim *s)
{
    sk_outbox *ob = fd_core_outbox(fs->fs_core);
    for (size_t i = 0; i < ob->ob_len; i++)
        sim_send(s, SIM_PEER_FLOWD, ob->ob_msgs[i].o_peer,
                 &ob->ob_msgs[i].o_msg);
    sk_outbox_clear(ob);
}

/* arm keeps one EV_FTIMER pending, at the core's next deadline (not
 * before a round out ends: the round's end looks again). */
static void arm(flow_state *fs, sim *s)
{
    sk_time d = fd_core_next_deadline(fs->fs_core);
    if (fs->fs_round != NULL && d != SK_TIME_NEVER && d < fs->fs_round_until)
        d = fs->fs_round_until;
    if (d == SK_TIME_NEVER || d >= fs->fs_timer)
        return;
    if (d < s->s_now)
        d = s->s_now;
    sim_ev *ev = sim_at(s, d, EV_FTIMER, false, NULL);
    ev->ev_x = d;
    fs->fs_timer = d;
}

/* The work model's nanoseconds for a solve (sim_flow.h). */
static double solve_model_ns(const fc_solve_stats *st, int32_t arcs)
{
    double ns = SIM_WORK_ARC_NS * (double)arcs +
                SIM_WORK_ITER_NS * (double)st->ss_relax_work;
    double rest = (double)(st->ss_iterations - st->ss_relax_work);
    if (st->ss_algorithm == FC_ALG_SSP)
        ns += SIM_WORK_SSP_ARC_NS * (double)arcs + SIM_WORK_SSP_ITER_NS * rest;
    else if (st->ss_algorithm != FC_ALG_RELAX)
        ns += SIM_WORK_CS_ARC_NS * (double)arcs + SIM_WORK_CS_ITER_NS * rest;
    return ns;
}

/* The virtual time a solve costs (sim_flow.h). */
static sk_time solve_cost(const flow_state *fs, const fc_solve_stats *st,
                          int32_t arcs, double wall)
{
    double us = 0;
    switch (fs->fs_p->p_solve_time) {
    case SIM_SOLVE_MEASURED:
        us = wall * 1e6;
        break;
    case SIM_SOLVE_WORK:
        us = solve_model_ns(st, arcs) / 1000;
        break;
    case SIM_SOLVE_ZERO:
        break;
    }
    return (sk_time)llround(us);
}

static void round_end(flow_state *fs, sim *s);

/* try_round starts a round when one is due and solves it. */
static void try_round(flow_state *fs, sim *s)
{
    if (fs->fs_round != NULL)
        return;
    fd_round *r;
    if (fd_round_begin(fs->fs_core, s->s_now, &r) != 0)
        return;
    drain(fs, s);
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = r->rd_algorithm;
    opt.so_incremental = r->rd_incremental;
    opt.so_relax_budget = r->rd_relax_budget;
    memset(&fs->fs_rst, 0, sizeof fs->fs_rst);
    int32_t arcs = fc_graph_arc_count(r->rd_graph);
    int32_t nodes = fc_graph_node_count(r->rd_graph);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    double t0 = wall_now();
    fs->fs_rrc = fc_solve(r->rd_graph, &opt, &fs->fs_rst);
    double wall = wall_now() - t0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) +
                 (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    sk_time cost = solve_cost(fs, &fs->fs_rst, arcs, wall);
    fs->fs_round = r;
    fs->fs_round_until = s->s_now + cost;
    fs->fs_solve_wall += wall;
    if (wall > fs->fs_solve_max)
        fs->fs_solve_max = wall;
    fs->fs_iterations += fs->fs_rst.ss_iterations;
    sim_hist_add(&fs->fs_round_virt, (uint64_t)cost);
    if (fs->fs_p->p_rounds_out != NULL)
        fprintf(fs->fs_p->p_rounds_out,
                "%llu,%llu,%llu,%d,%d,%s,%llu,%.1f,%.1f,%llu,%llu\n",
                (unsigned long long)r->rd_seq, (unsigned long long)s->s_now,
                (unsigned long long)r->rd_events, nodes, arcs,
                fc_algorithm_name(fs->fs_rst.ss_algorithm),
                (unsigned long long)fs->fs_rst.ss_iterations, wall * 1e6,
                cpu * 1e6, (unsigned long long)cost,
                (unsigned long long)fs->fs_rst.ss_relax_work);
    if (cost == 0) {
        round_end(fs, s);
        return;
    }
    sim_at(s, fs->fs_round_until, EV_FROUND, false, NULL);
}

static void round_end(flow_state *fs, sim *s)
{
    fd_round *r = fs->fs_round;
    fs->fs_round = NULL;
    fs->fs_rounds++;
    fs->fs_round_fail += fs->fs_rrc != 0;
    int rc = fd_round_end(fs->fs_core, s->s_now, r, fs->fs_rrc, &fs->fs_rst);
    if (rc != 0)
        sim_fail(s, rc, "the flow node could not end round %llu: %s",
                 (unsigned long long)r->rd_seq, sk_strerror(rc));
    drain(fs, s);
    try_round(fs, s);
}

/* core_input ends a call into the core: what it sends, a round if due,
 * its timer. */
static void core_input(flow_state *fs, sim *s)
{
    drain(fs, s);
    try_round(fs, s);
    arm(fs, s);
}

static void core_hello(flow_state *fs, sim *s, sk_peer from, const sk_hello *h)
{
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = *h;
    fd_core_on_msg(fs->fs_core, s->s_now, from, &m);
    drain(fs, s);
}

static void core_start(flow_state *fs, sim *s)
{
    const sim_params *p = s->s_p;
    char name[16], rack[16];
    const char *labels[SIM_MAX_LABELS];
    for (uint32_t i = 0; i < p->p_nodes; i++) {
        uint32_t nl = 0;
        for (uint32_t l = 0; l < s->s_names->n_nlabels; l++)
            if (s->s_node_labels[i] >> l & 1)
                labels[nl++] = s->s_names->n_labels[l];
        sk_hello h = {.he_role = SK_ROLE_NODEMON,
                      .he_id = i,
                      .he_name = sim_node_name(i, name),
                      .he_slots = p->p_slots,
                      .he_res = {p->p_slots * 1000, p->p_slots * 1024},
                      .he_labels = labels,
                      .he_nlabels = nl};
        rack[0] = '\0';
        if (p->p_rack_size > 0) {
            sim_rack_name(p, i, rack);
        } else if (p->p_racks > 0) {
            uint32_t per = (p->p_nodes + p->p_racks - 1) / p->p_racks;
            snprintf(rack, sizeof rack, "r%u", i / per);
        }
        h.he_rack = rack;
        core_hello(fs, s, i, &h);
    }
    /* Each scheduler opens a session to the flow node: both HELLOs. */
    sk_hello hf = {.he_role = SK_ROLE_FLOWD, .he_name = "flowd"};
    for (uint32_t k = 0; k < p->p_scheds; k++) {
        snprintf(name, sizeof name, "sched%u", k);
        sk_hello hk = {
            .he_role = SK_ROLE_SCHEDULER, .he_id = k, .he_name = name};
        core_hello(fs, s, SIM_PEER_SCHED + k, &hk);
        if (sim_late_sched_hello(s, k, SIM_PEER_FLOWD, &hf) != 0)
            sim_fail(s, SK_ESTATE, "scheduler %u refused the flow node", k);
    }
    const fd_stats *st = fd_core_stats(fs->fs_core);
    if (st->fs_nodes != p->p_nodes)
        sim_fail(s, SK_ECONFIG, "the flow node took %llu of the %u nodes",
                 (unsigned long long)st->fs_nodes, p->p_nodes);
    core_input(fs, s);
}

/* ---- hawk: the central greedy placer ------------------------------------ */

#define NONE UINT32_MAX

static void h_unlink(flow_state *fs, uint32_t n)
{
    uint32_t c = fs->fs_count[n];
    if (fs->fs_prev[n] == NONE)
        fs->fs_head[c] = fs->fs_next[n];
    else
        fs->fs_next[fs->fs_prev[n]] = fs->fs_next[n];
    if (fs->fs_next[n] == NONE)
        fs->fs_tail[c] = fs->fs_prev[n];
    else
        fs->fs_prev[fs->fs_next[n]] = fs->fs_prev[n];
}

static void h_append(flow_state *fs, uint32_t n)
{
    uint32_t c = fs->fs_count[n];
    fs->fs_next[n] = NONE;
    fs->fs_prev[n] = fs->fs_tail[c];
    if (fs->fs_tail[c] == NONE)
        fs->fs_head[c] = n;
    else
        fs->fs_next[fs->fs_tail[c]] = n;
    fs->fs_tail[c] = n;
}

static void h_move(flow_state *fs, uint32_t n, int delta)
{
    h_unlink(fs, n);
    fs->fs_count[n] = (uint32_t)((int64_t)fs->fs_count[n] + delta);
    h_append(fs, n);
}

/* h_pick returns the least loaded node outside the short-only partition
 * that j may use and that has a slot without a long task, or NONE. */
static uint32_t h_pick(const flow_state *fs, const sim *s, const sim_job *j)
{
    for (uint32_t c = 0; c < s->s_p->p_slots; c++)
        for (uint32_t n = fs->fs_head[c]; n != NONE; n = fs->fs_next[n])
            if (j->j_nlabels == 0 || sim_node_fits(s, n, j))
                return n;
    return NONE;
}

/* g_least returns whichever of a and n (NONE: none) holds fewer tasks,
 * n only if it has a free slot. */
static uint32_t g_least(const flow_state *fs, const sim *s, uint32_t a,
                        uint32_t n)
{
    if (fs->fs_count[n] >= s->s_p->p_slots)
        return a;
    return a == NONE || fs->fs_count[n] < fs->fs_count[a] ? n : a;
}

/* g_pick (mix greedy) returns the node for task t of j, locality first:
 * the least loaded preferred node with a free slot, else the least
 * loaded node with one in a preferred rack (a rack of a preferred node),
 * else h_pick's; NONE when no node has a free slot. Preferences the
 * placers may not see (--hide-prefs) are ignored. O(preferred nodes x
 * rack size). */
static uint32_t g_pick(const flow_state *fs, const sim *s, const sim_job *j,
                       uint32_t t)
{
    const sim_params *p = s->s_p;
    uint32_t n = p->p_hide_prefs ? 0 : sim_job_npref(j, t);
    const uint32_t *pref = n > 0 ? &j->j_pref[j->j_pref_off[t]] : NULL;
    uint32_t best = NONE;
    for (uint32_t q = 0; q < n; q++)
        if (j->j_nlabels == 0 || sim_node_fits(s, pref[q], j))
            best = g_least(fs, s, best, pref[q]);
    for (uint32_t q = 0; q < n && best == NONE; q++) {
        uint32_t first = pref[q] / p->p_rack_size * p->p_rack_size;
        for (uint32_t i = first; i < first + p->p_rack_size && i < p->p_nodes;
             i++)
            if (j->j_nlabels == 0 || sim_node_fits(s, i, j))
                best = g_least(fs, s, best, i);
    }
    return best != NONE ? best : h_pick(fs, s, j);
}

static void h_reserve(flow_state *fs, sim *s, fjob *fj, uint32_t t,
                      uint32_t node)
{
    sim_job *j = fj->fj_job;
    uint8_t spec[SIM_SPEC_BYTES];
    sim_spec_put(spec, j, t);
    sk_msg m = {.m_type = SK_MSG_RESERVE};
    sk_reserve *rv = &m.m_reserve;
    rv->rv_resv = ++fs->fs_resv;
    rv->rv_job = j->j_seq;
    rv->rv_task = t;
    rv->rv_sched = flows_id(s);
    rv->rv_user = s->s_names->n_users[j->j_user].u_name;
    rv->rv_priority = j->j_prio;
    rv->rv_spec = (sk_bytes){spec, SIM_SPEC_BYTES};
    rv->rv_framework = "";
    fj->fj_node[t] = node + 1;
    h_move(fs, node, +1);
    fs->fs_hawk_placed++;
    sim_send(s, SIM_PEER_FLOWD, node, &m);
}

/* h_place places waiting tasks in FIFO order while nodes have room. */
static void h_place(flow_state *fs, sim *s)
{
    while (fs->fs_wlen > 0) {
        hwait *w = &fs->fs_wait[fs->fs_whead];
        fjob *fj = sim_jobmap_get(&fs->fs_jobs, w->hw_seq);
        if (fj != NULL) {
            uint32_t n = h_pick(fs, s, fj->fj_job);
            if (n == NONE)
                return; /* head of line: FIFO, as a central queue */
            h_reserve(fs, s, fj, w->hw_task, n);
        }
        fs->fs_whead = (fs->fs_whead + 1) % fs->fs_wcap;
        fs->fs_wlen--;
    }
}

static int h_enqueue(flow_state *fs, uint64_t seq, uint32_t task)
{
    if (fs->fs_wlen == fs->fs_wcap) {
        size_t cap = fs->fs_wcap ? fs->fs_wcap * 2 : 1024;
        hwait *w = malloc(cap * sizeof *w);
        if (w == NULL)
            return SK_ENOMEM;
        for (size_t i = 0; i < fs->fs_wlen; i++)
            w[i] = fs->fs_wait[(fs->fs_whead + i) % fs->fs_wcap];
        free(fs->fs_wait);
        fs->fs_wait = w;
        fs->fs_wcap = cap;
        fs->fs_whead = 0;
    }
    fs->fs_wait[(fs->fs_whead + fs->fs_wlen) % fs->fs_wcap] =
        (hwait){seq, task};
    fs->fs_wlen++;
    if (fs->fs_wlen > fs->fs_hawk_peak)
        fs->fs_hawk_peak = fs->fs_wlen;
    return 0;
}

/* ---- greedy: the locality-first central placer -------------------------- */

/* Quincy's greedy baseline: a task that arrives takes a free slot if
 * one exists (g_pick: locality first); else it waits in the cluster's
 * FIFO and in the queues of its preferred nodes and racks. A slot that
 * frees on node n takes the oldest task preferring n, else the oldest
 * preferring n's rack, else the cluster queue's head (where g_pick
 * sends it). Memory: one gwait per task of the run. */

/* grow doubles the array *arr of *cap elements of size bytes (first
 * when empty). Returns 0 or SK_ENOMEM (the array unchanged). */
static int grow(void **arr, uint32_t *cap, size_t size, uint32_t first)
{
    uint32_t c = *cap ? *cap * 2 : first;
    void *n = realloc(*arr, c * size);
    if (n == NULL)
        return SK_ENOMEM;
    *arr = n;
    *cap = c;
    return 0;
}

static int gq_push(gqueue *q, uint32_t id)
{
    if (q->q_head > 0 && q->q_head + q->q_len == q->q_cap) {
        memmove(q->q_ids, q->q_ids + q->q_head, q->q_len * sizeof *q->q_ids);
        q->q_head = 0;
    }
    if (q->q_len == q->q_cap &&
        grow((void **)&q->q_ids, &q->q_cap, sizeof *q->q_ids, 8) != 0)
        return SK_ENOMEM;
    q->q_ids[q->q_head + q->q_len++] = id;
    return 0;
}

/* gq_peek returns the oldest task of q not yet placed, or NONE. */
static uint32_t gq_peek(const flow_state *fs, gqueue *q)
{
    while (q->q_len > 0 && fs->fs_gw[q->q_ids[q->q_head]].gw_placed) {
        q->q_head++;
        q->q_len--;
    }
    if (q->q_len == 0)
        q->q_head = 0;
    return q->q_len > 0 ? q->q_ids[q->q_head] : NONE;
}

static void gq_free(gqueue *q)
{
    free(q->q_ids);
}

/* g_place sends waiting task id to node. */
static void g_place(flow_state *fs, sim *s, uint32_t id, uint32_t node)
{
    gwait *w = &fs->fs_gw[id];
    w->gw_placed = true;
    fjob *fj = sim_jobmap_get(&fs->fs_jobs, w->gw_seq);
    if (fj == NULL) {
        sim_fail(s, SK_ESTATE, "greedy: job %llu left while waiting",
                 (unsigned long long)w->gw_seq);
        return;
    }
    h_reserve(fs, s, fj, w->gw_task, node);
}

/* g_drain places the cluster queue's head while a node has room. */
static void g_drain(flow_state *fs, sim *s)
{
    uint32_t id;
    while ((id = gq_peek(fs, &fs->fs_gall)) != NONE && s->s_error == 0) {
        fjob *fj = sim_jobmap_get(&fs->fs_jobs, fs->fs_gw[id].gw_seq);
        uint32_t n = fj != NULL
                         ? g_pick(fs, s, fj->fj_job, fs->fs_gw[id].gw_task)
                         : NONE;
        if (n == NONE)
            return;
        g_place(fs, s, id, n);
    }
}

/* g_fill gives node's free slots to the tasks preferring it, then its
 * rack, then the cluster queue. */
static void g_fill(flow_state *fs, sim *s, uint32_t node)
{
    const sim_params *p = s->s_p;
    gqueue *qn = &fs->fs_gnode[node];
    gqueue *qr = &fs->fs_grack[node / p->p_rack_size];
    while (fs->fs_count[node] < p->p_slots && s->s_error == 0) {
        uint32_t id = gq_peek(fs, qn);
        if (id == NONE)
            id = gq_peek(fs, qr);
        if (id == NONE)
            break;
        fs->fs_g_local++;
        g_place(fs, s, id, node);
    }
    g_drain(fs, s);
}

/* g_submit queues j's tasks and places what fits. */
static int g_submit(flow_state *fs, sim *s, const sim_job *j)
{
    const sim_params *p = s->s_p;
    for (uint32_t t = 0; t < j->j_ntasks; t++) {
        if (fs->fs_gwn == fs->fs_gwcap &&
            grow((void **)&fs->fs_gw, &fs->fs_gwcap, sizeof *fs->fs_gw, 1024) !=
                0)
            return SK_ENOMEM;
        uint32_t id = fs->fs_gwn++;
        fs->fs_gw[id] = (gwait){j->j_seq, t, false};
        if (gq_push(&fs->fs_gall, id) != 0)
            return SK_ENOMEM;
        uint32_t n = p->p_hide_prefs ? 0 : sim_job_npref(j, t);
        const uint32_t *pref = n > 0 ? &j->j_pref[j->j_pref_off[t]] : NULL;
        for (uint32_t q = 0; q < n; q++) {
            uint32_t r = pref[q] / p->p_rack_size;
            bool seen = false;
            for (uint32_t i = 0; i < q && !seen; i++)
                seen = pref[i] / p->p_rack_size == r;
            if (gq_push(&fs->fs_gnode[pref[q]], id) != 0 ||
                (!seen && gq_push(&fs->fs_grack[r], id) != 0))
                return SK_ENOMEM;
        }
    }
    g_drain(fs, s);
    return 0;
}

static int h_init(flow_state *fs, const sim *s)
{
    const sim_params *p = s->s_p;
    uint32_t n = p->p_nodes;
    fs->fs_count = calloc(n, sizeof *fs->fs_count);
    fs->fs_next = malloc(n * sizeof *fs->fs_next);
    fs->fs_prev = malloc(n * sizeof *fs->fs_prev);
    fs->fs_head = malloc((p->p_slots + 1) * sizeof *fs->fs_head);
    fs->fs_tail = malloc((p->p_slots + 1) * sizeof *fs->fs_tail);
    if (fs->fs_count == NULL || fs->fs_next == NULL || fs->fs_prev == NULL ||
        fs->fs_head == NULL || fs->fs_tail == NULL)
        return SK_ENOMEM;
    for (uint32_t c = 0; c <= p->p_slots; c++)
        fs->fs_head[c] = fs->fs_tail[c] = NONE;
    uint32_t first = (uint32_t)floor(p->p_short_part * n);
    if (fs->fs_mix == SIM_MIX_GREEDY) {
        first = 0;
        fs->fs_gnode = calloc(n, sizeof *fs->fs_gnode);
        fs->fs_grack = calloc(n / p->p_rack_size + 1, sizeof *fs->fs_grack);
        if (fs->fs_gnode == NULL || fs->fs_grack == NULL)
            return SK_ENOMEM;
    }
    for (uint32_t i = first; i < n; i++)
        h_append(fs, i);
    return 0;
}

/* ---- the plug-in ------------------------------------------------------- */

static void fl_start(void *ctx, sim *s)
{
    flow_state *fs = ctx;
    const sim_params *p = s->s_p;
    bool hawk = fs->fs_mix == SIM_MIX_HAWK || fs->fs_mix == SIM_MIX_GREEDY;
    sk_hello hf = {.he_role = SK_ROLE_FLOWD, .he_name = "flowd"};
    sk_hello hs = {.he_role = SK_ROLE_SCHEDULER,
                   .he_id = flows_id(s),
                   .he_name = "placer"};
    for (uint32_t i = 0; i < p->p_nodes && s->s_error == 0; i++)
        if (sim_late_hello(s, i, SIM_PEER_FLOWD, &hf) != 0 ||
            (hawk && sim_late_hello(s, i, SIM_PEER_FLOWS, &hs) != 0))
            sim_fail(s, SK_ESTATE, "the flow path cannot register with n%u", i);
    if (hawk) {
        if (h_init(fs, s) != 0)
            sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    char err[256];
    fd_config cfg;
    fd_config_init(&cfg);
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "%s", p->p_flow_policy);
    cfg.fdc_q_fair_share = p->p_flow_fair; /* checked by fd_core_new */
    cfg.fdc_preemption = p->p_flow_preempt;
    cfg.fdc_algorithm = fs->fs_alg;
    if (p->p_relax_budget >= 0)
        cfg.fdc_relax_budget = p->p_relax_budget;
    cfg.fdc_heartbeat_ms = p->p_nm.nc_heartbeat_ms;
    cfg.fdc_settle_ms = 0; /* every node is known from the start */
    cfg.fdc_long_share = fs->fs_mix == SIM_MIX_FLOW ? 1.0 : p->p_long_share;
    cfg.fdc_max_nodes = p->p_nodes;
    cfg.fdc_max_schedulers = p->p_scheds + 1;
    cfg.fdc_max_jobs = 10000000;
    cfg.fdc_max_tasks = 50000000;
    cfg.fdc_max_job_tasks = SK_MAX_TASKS;
    cfg.fdc_fast_fallback = p->p_fast_fallback;
    if (p->p_cx_wait_set)
        cfg.fdc_cx_wait_ms = p->p_cx_wait / 1000;
    int rc = fd_core_new(&cfg, 1, s->s_now, &fs->fs_core, err, sizeof err);
    if (rc != 0) {
        sim_fail(s, rc, "the flow node: %s", err);
        return;
    }
    core_start(fs, s);
}

static void fl_submit(void *ctx, sim *s, sim_job *j)
{
    flow_state *fs = ctx;
    fjob *fj = calloc(1, sizeof *fj);
    if (fj != NULL) {
        fj->fj_job = j;
        fj->fj_started = calloc(j->j_ntasks, 1);
        fj->fj_node = calloc(j->j_ntasks, sizeof *fj->fj_node);
    }
    if (fj == NULL || fj->fj_started == NULL || fj->fj_node == NULL ||
        sim_jobmap_put(&fs->fs_jobs, j->j_seq, fj) != 0) {
        fjob_free(fj);
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    if (fs->fs_mix == SIM_MIX_GREEDY) {
        if (g_submit(fs, s, j) != 0)
            sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    for (uint32_t t = 0; t < j->j_ntasks; t++)
        if (h_enqueue(fs, j->j_seq, t) != 0) {
            sim_fail(s, SK_ENOMEM, "out of memory");
            return;
        }
    h_place(fs, s);
}

/* Hawk: a task ended, as its node reports. */
static void task_ended(flow_state *fs, sim *s, const sk_task_finished *tf)
{
    fjob *fj = job_of(fs, s, tf->tf_job, tf->tf_task, "TASK_FINISHED");
    if (fj == NULL)
        return;
    sim_job *j = fj->fj_job;
    bool ran = tf->tf_node[0] != '\0';
    sim_task_end(s, j, tf->tf_task, tf->tf_attempt, ran ? tf->tf_node : NULL,
                 ran ? tf->tf_launch_us : 0, ran ? tf->tf_end_us : 0,
                 tf->tf_status, false);
    uint32_t n = fj->fj_node[tf->tf_task];
    if (n != 0) {
        fj->fj_node[tf->tf_task] = 0;
        h_move(fs, n - 1, -1);
    }
    job_maybe_end(fs, s, fj);
    if (fs->fs_mix == SIM_MIX_GREEDY && n != 0)
        g_fill(fs, s, n - 1);
    else
        h_place(fs, s);
}

/* What reaches the central placer's scheduler peer from the nodes. */
static void to_flows(flow_state *fs, sim *s, const sk_msg *m)
{
    if (m->m_type == SK_MSG_TASK_STARTED) {
        const sk_task_started *ts = &m->m_task_started;
        fjob *fj = job_of(fs, s, ts->st_job, ts->st_task, "TASK_STARTED");
        if (fj != NULL && !fj->fj_started[ts->st_task]) {
            fj->fj_started[ts->st_task] = 1;
            sim_stats_placed(&s->s_st, fj->fj_job, ts->st_launch_us);
            sim_task_start(s, fj->fj_job);
        }
    } else if (m->m_type == SK_MSG_TASK_FINISHED) {
        task_ended(fs, s, &m->m_task_finished);
    }
}

static void fl_deliver(void *ctx, sim *s, sk_peer from, sk_peer to,
                       const sk_msg *m)
{
    flow_state *fs = ctx;
    if (to == SIM_PEER_FLOWS) {
        to_flows(fs, s, m);
        return;
    }
    if (fs->fs_mix == SIM_MIX_HAWK || fs->fs_mix == SIM_MIX_GREEDY) {
        /* Heartbeats and acks carry nothing the placer needs; a node
         * refuses only what does not fit, which the counts prevent. */
        if (m->m_type == SK_MSG_RESERVE_REJECT) {
            fs->fs_hawk_rejects++;
            sim_fail(s, SK_ESTATE, "n%u refused a long task: %s", from,
                     m->m_reserve_ack.ra_reason);
        }
        return;
    }
    fd_core_on_msg(fs->fs_core, s->s_now, from, m);
    core_input(fs, s);
}

static void fl_event(void *ctx, sim *s, const sim_ev *ev)
{
    flow_state *fs = ctx;
    if (ev->ev_kind == EV_FROUND) {
        round_end(fs, s);
        arm(fs, s);
        return;
    }
    if (ev->ev_kind != EV_FTIMER || ev->ev_x != fs->fs_timer)
        return; /* superseded by an earlier one */
    fs->fs_timer = SK_TIME_NEVER;
    fd_core_on_timer(fs->fs_core, s->s_now);
    core_input(fs, s);
}

static double ms(double us)
{
    return us / 1000;
}

/* Per application, what its placements break after the last constraint
 * round: the core's "constraints" status query, as a client reads it. */
static void report_cons(flow_state *fs, sim *s, FILE *out)
{
    sk_status_request rq = {.sq_table = true, .sq_query = "constraints"};
    sk_status_reply r;
    if (fd_core_status(fs->fs_core, &rq, s->s_now, &r) != 0 ||
        r.sr_ncolumns != 8)
        return;
    for (uint32_t i = 0; i < r.sr_nrows; i++) {
        const char **cl = r.sr_rows[i].sw_cells;
        fprintf(out,
                "    job %-10s soft broken %s (weight %s), hard %s; per "
                "constraint %s\n",
                cl[1], cl[5], cl[6], cl[4], cl[7]);
    }
}

static void fl_report(void *ctx, sim *s, FILE *out)
{
    flow_state *fs = ctx;
    (void)s;
    if (fs->fs_mix == SIM_MIX_GREEDY) {
        fprintf(out,
                "central placer      greedy locality-first: tasks placed "
                "%llu (%llu to a freed slot from its node's or rack's "
                "queue), waiting at the end %u\n",
                (unsigned long long)fs->fs_hawk_placed,
                (unsigned long long)fs->fs_g_local, fs->fs_gall.q_len);
        return;
    }
    if (fs->fs_mix == SIM_MIX_HAWK) {
        fprintf(out,
                "central placer      %s: long tasks placed %llu, refused "
                "%llu, longest queue %zu, waiting at the end %zu\n",
                "greedy least-loaded", (unsigned long long)fs->fs_hawk_placed,
                (unsigned long long)fs->fs_hawk_rejects, fs->fs_hawk_peak,
                fs->fs_wlen);
        return;
    }
    const fd_stats *st = fd_core_stats(fs->fs_core);
    const sim_hist *h = &fs->fs_round_virt;
    fprintf(out,
            "flow node           policy %s, %s: rounds %llu (failed %llu), "
            "solve time (virtual, ms) mean %.3f p50 %.3f p99 %.3f max "
            "%.3f; solver work %llu\n",
            fs->fs_p->p_flow_policy, fc_algorithm_name(fs->fs_alg),
            (unsigned long long)fs->fs_rounds,
            (unsigned long long)fs->fs_round_fail, ms(sim_hist_mean(h)),
            ms(sim_hist_quantile(h, 0.5)), ms(sim_hist_quantile(h, 0.99)),
            ms((double)h->h_max), (unsigned long long)fs->fs_iterations);
    /* Wall time only where it is the model: the summary of a seeded run
     * stays the same from run to run (the rounds CSV has it always). */
    if (fs->fs_p->p_solve_time == SIM_SOLVE_MEASURED)
        fprintf(out,
                "  solves            wall %.3f s in all, longest %.3f ms\n",
                fs->fs_solve_wall, fs->fs_solve_max * 1e3);
    fprintf(out,
            "  placements        RESERVE %llu, acked %llu, refused %llu, "
            "lost %llu, released %llu, dropped (ended %llu, cap %llu); "
            "jobs accepted %llu, refused %llu; waiting at the end %llu; "
            "fallback tasks placed without a round %llu\n",
            (unsigned long long)st->fs_reserves,
            (unsigned long long)st->fs_acks, (unsigned long long)st->fs_rejects,
            (unsigned long long)st->fs_reserve_lost,
            (unsigned long long)st->fs_releases,
            (unsigned long long)st->fs_dropped_dead,
            (unsigned long long)st->fs_dropped_cap,
            (unsigned long long)st->fs_jobs_accepted,
            (unsigned long long)st->fs_jobs_rejected,
            (unsigned long long)st->fs_waiting,
            (unsigned long long)st->fs_fast_placed);
    if (st->fs_cx_rounds > 0)
        fprintf(out,
                "  constraints       rounds %llu, tasks placed %llu, waiting "
                "%llu; (constraint, task) pairs checked %llu, soft broken "
                "%llu (%.2f%%, weight %llu), hard broken %llu; held %llu, "
                "placed breaking after the wait %llu\n",
                (unsigned long long)st->fs_cx_rounds,
                (unsigned long long)st->fs_cx_placed,
                (unsigned long long)st->fs_cx_waiting,
                (unsigned long long)st->fs_cx_checked,
                (unsigned long long)st->fs_cx_soft,
                st->fs_cx_checked
                    ? 100.0 * (double)st->fs_cx_soft / (double)st->fs_cx_checked
                    : 0.0,
                (unsigned long long)st->fs_cx_soft_weight,
                (unsigned long long)st->fs_cx_hard,
                (unsigned long long)st->fs_cx_held,
                (unsigned long long)st->fs_cx_expired);
    if (st->fs_cx_rounds > 0)
        report_cons(fs, s, out);
    fprintf(
        out,
        "  anomalies         input dropped %llu, over limits %llu, "
        "unknown %llu, stale %llu, network errors %llu, nodes down "
        "%llu, tasks lost %llu, failed %llu\n",
        (unsigned long long)(st->fs_bad_type + st->fs_bad_peer +
                             st->fs_bad_field),
        (unsigned long long)st->fs_limit, (unsigned long long)st->fs_unknown,
        (unsigned long long)st->fs_stale, (unsigned long long)st->fs_net_errors,
        (unsigned long long)st->fs_nodes_down,
        (unsigned long long)st->fs_tasks_lost,
        (unsigned long long)st->fs_tasks_failed);
}

void sim_flow_rounds_header(FILE *out)
{
    fputs("round,begin_us,changes,graph_nodes,graph_arcs,algorithm,"
          "iterations,wall_us,cpu_us,virtual_us,relax_iterations\n",
          out);
}

int sim_flow_new(const sim_params *p, sim_flow **out, char *err, size_t errlen)
{
    *out = NULL;
    if (p->p_mix != SIM_MIX_FLOW && p->p_mix != SIM_MIX_HAWK &&
        p->p_mix != SIM_MIX_HYBRID && p->p_mix != SIM_MIX_GREEDY) {
        snprintf(err, errlen, "mix %s has no flow path",
                 sim_mix_name(p->p_mix));
        return SK_ECONFIG;
    }
    flow_state *fs = calloc(1, sizeof *fs);
    if (fs == NULL || sim_hist_init(&fs->fs_round_virt) != 0) {
        free(fs);
        return SK_ENOMEM;
    }
    fs->fs_ops =
        (sim_flow){fs, fl_start, fl_submit, fl_deliver, fl_event, fl_report};
    fs->fs_p = p;
    fs->fs_mix = p->p_mix;
    fs->fs_timer = SK_TIME_NEVER;
    if (p->p_flow_algorithm >= 0)
        fs->fs_alg = (fc_algorithm)p->p_flow_algorithm;
    else
        fs->fs_alg =
            p->p_solve_time == SIM_SOLVE_MEASURED ? FC_ALG_RACE : FC_ALG_RELAX;
    if (fs->fs_alg == FC_ALG_RACE && p->p_solve_time == SIM_SOLVE_WORK) {
        snprintf(err, errlen,
                 "the race is not deterministic: the work "
                 "model needs another algorithm");
        sim_flow_free(&fs->fs_ops);
        return SK_ECONFIG;
    }
    *out = &fs->fs_ops;
    return 0;
}

void sim_flow_free(sim_flow *f)
{
    if (f == NULL)
        return;
    flow_state *fs = f->fl_ctx;
    /* Jobs still in flight: the run freed their sim_jobs, not these. */
    for (uint32_t i = 0; i < fs->fs_jobs.jm_cap; i++)
        fjob_free(fs->fs_jobs.jm_vals[i]);
    sim_jobmap_fini(&fs->fs_jobs);
    fd_core_free(fs->fs_core);
    sim_hist_fini(&fs->fs_round_virt);
    free(fs->fs_count);
    free(fs->fs_next);
    free(fs->fs_prev);
    free(fs->fs_head);
    free(fs->fs_tail);
    free(fs->fs_wait);
    if (fs->fs_gnode != NULL)
        for (uint32_t i = 0; i < fs->fs_p->p_nodes; i++)
            gq_free(&fs->fs_gnode[i]);
    if (fs->fs_grack != NULL)
        for (uint32_t i = 0; i <= fs->fs_p->p_nodes / fs->fs_p->p_rack_size;
             i++)
            gq_free(&fs->fs_grack[i]);
    free(fs->fs_gnode);
    free(fs->fs_grack);
    gq_free(&fs->fs_gall);
    free(fs->fs_gw);
    free(fs);
}
