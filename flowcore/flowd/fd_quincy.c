/*
 * fd_quincy.c - the quincy policy (Isard et al., SOSP 2009), the flow
 * node's default cost model.
 *
 * The network, with the costs of fd_config (c_*):
 *
 *   task --(1, unsched + wait * seconds waited, all spells)--> U_job --(live
 * tasks, 0)
 *        --> sink        (fallback short work: one unsched more, so
 *                         that it is placed ahead of long work)
 *   task --(1, cluster)--> X --(sum of the rack's room, 0)--> R_rack
 *        --(room, 0)--> node
 *   task --(1, rack)--> R_rack        for a preferred rack (ts_racks)
 *   task --(1, node)--> node          for a preferred node
 *   task --(1, cluster)--> C_class --(room, 0)--> node
 *                                     instead of X for a job with labels:
 *                                     nodes with every label, large
 *                                     enough for the request (and rack
 *                                     preferences dropped)
 *   node --(cheap: long tasks there + free slots, 0)--> sink
 *   node --(the rest of its room, busy + queue * short queue)--> sink
 *
 * A placed or running task keeps its continuation arc to its node
 * (capacity 1, cost 0). With preemption off it also has an escape arc to
 * U_job at FD_ESCAPE_COST, so that the network stays feasible should its
 * node's room shrink below what runs there; the core ignores a flow that
 * takes it. With preemption on (Quincy's model: stopping a task costs
 * the work it has done), the arc to U_job costs what leaving it
 * unscheduled would (its wait so far counts) + kill * seconds it has run,
 * and an arc to X (a move) costs cluster + move + kill * seconds run: a task
 * that waited long enough, or that fits only where another runs, can displace
 * it. The wait cost is capped at FD_WAIT_CAP so that an old task never outgrows
 * flowcore's limits; the configuration check keeps every other sum far below
 * them.
 *
 * Fair shares (q_fair_share, Quincy's "fair" variants): each job's share
 * of the room is computed from every record after each sync (q_whole),
 * and U_job -> sink becomes two arcs: its share at cost 0 and the rest of
 * its live tasks at a discount, minus one more than the dearest of its
 * tasks' arcs to U_job (a waiting task's unscheduled cost; with
 * preemption a placed task's stop cost). A task then saves more by
 * taking the discounted arc than by any placement (placements cost 0 or
 * more), so the solver sends (live - share) of the job's tasks through
 * U_job: a job over its share gets no new slot, and its waiting tasks
 * that waited least stay out. Without preemption its placed tasks keep
 * their slots (the escape arc, at FD_ESCAPE_COST, is dearer than any
 * discount, and the core ignores it anyway); with preemption the tasks
 * that cost least to stop (the newest) are stopped until the job is back
 * at its share: Quincy's fair variant with preemption. (A fixed discount
 * of 2^30 did the same and made relaxation's rounds far slower: its work
 * grows with the costs.) The share is an upper bound only: a job under it gets
 * slots by the usual costs (its waiting tasks' unscheduled cost grows).
 *
 * Graph entries: a node's e_arc[0] is its cheap arc to the sink, e_arc[1]
 * the dear one, e_arc[FD_ARC_RACK] its rack's arc to it; a rack's e_arc[0] is
 * X's arc to it; a job's e_arc[0] is U_job -> sink (its share under fair
 * shares), e_arc[1] the discounted rest (fair shares); a task's e_arc[0]
 * its arc to U_job, e_arc[1] a placed task's arc to X (preemption on).
 */
#include "fd_int.h"

#include <string.h>

#define FD_WAIT_CAP    ((int64_t)1 << 30)
#define FD_ESCAPE_COST ((int64_t)1 << 31)

int fd_q_init(const fd_core *c, fd_net *net)
{
    (void)c;
    fc_node v;
    int rc = fc_node_add(net->nt_g, 0, FC_NODE_SINK, &v);
    if (rc != 0)
        return rc;
    net->nt_sink = v;
    rc = fc_node_add(net->nt_g, 0, FC_NODE_AGGREGATOR, &v);
    if (rc != 0)
        return rc;
    net->nt_cluster = v;
    return 0;
}

int fd_q_rack_update(const fd_core *c, fd_net *net, fd_rack *r)
{
    (void)c;
    fd_gent *e = fd_net_find(net, FD_G_RACK, r->r_slot);
    if (e == NULL)
        return FC_EINVAL;
    return fd_net_arc_set(net, &e->e_arc[0], net->nt_cluster, e->e_node,
                          r->r_cap, 0);
}

int fd_q_rack_add(const fd_core *c, fd_net *net, fd_rack *r)
{
    int rc = fd_net_node(net, FD_G_RACK, r->r_slot, 0, FC_NODE_AGGREGATOR);
    return rc != 0 ? rc : fd_q_rack_update(c, net, r);
}

int fd_q_rack_remove(const fd_core *c, fd_net *net, fd_rack *r)
{
    (void)c;
    return fd_net_node_remove(net, FD_G_RACK, r->r_slot, false);
}

/* A node's two arcs to the sink: the room a long task can take at once
 * (what long tasks hold there plus its free slots) at no cost, the rest
 * of its room (a slot behind short tasks, which are short) dearer the
 * longer its short queue. */
static int q_node_update(const fd_core *c, fd_net *net, fd_node *n)
{
    const fd_config *cfg = &c->c_cfg;
    fd_gent *e = fd_net_find(net, FD_G_NODE, n->n_slot);
    fd_gent *re = fd_net_find(net, FD_G_RACK, n->n_rack->r_slot);
    if (e == NULL || re == NULL)
        return FC_EINVAL;
    int64_t room = fd_node_room(n);
    int64_t free_slots = n->n_used < n->n_slots ? n->n_slots - n->n_used : 0;
    int64_t cheap = (int64_t)n->n_ntasks + free_slots;
    if (cheap > room)
        cheap = room;
    int64_t queue = n->n_queue < 100000 ? n->n_queue : 100000;
    int64_t busy = cfg->fdc_q_busy_cost + queue * cfg->fdc_q_queue_cost;
    int rc =
        fd_net_arc_set(net, &e->e_arc[0], e->e_node, net->nt_sink, cheap, 0);
    if (rc == 0)
        rc = fd_net_arc_set(net, &e->e_arc[1], e->e_node, net->nt_sink,
                            room - cheap, busy);
    if (rc == 0)
        rc = fd_net_arc_set(net, &e->e_arc[FD_ARC_RACK], re->e_node, e->e_node,
                            room, 0);
    return rc;
}

static int q_node_add(const fd_core *c, fd_net *net, fd_node *n)
{
    int rc = fd_net_node(net, FD_G_NODE, n->n_slot, 0, FC_NODE_MACHINE);
    return rc != 0 ? rc : q_node_update(c, net, n);
}

int fd_q_node_remove(const fd_core *c, fd_net *net, fd_node *n)
{
    (void)c;
    return fd_net_node_remove(net, FD_G_NODE, n->n_slot, false);
}

int fd_q_job_update(const fd_core *c, fd_net *net, fd_job *j)
{
    (void)c;
    fd_gent *e = fd_net_find(net, FD_G_JOB, j->j_slot);
    if (e == NULL)
        return FC_EINVAL;
    return fd_net_arc_set(net, &e->e_arc[0], e->e_node, net->nt_sink, j->j_live,
                          0);
}

int fd_q_job_add(const fd_core *c, fd_net *net, fd_job *j)
{
    int rc = fd_net_node(net, FD_G_JOB, j->j_slot, 0, FC_NODE_UNSCHEDULED);
    return rc != 0 ? rc : fd_q_job_update(c, net, j);
}

int fd_q_job_remove(const fd_core *c, fd_net *net, fd_job *j)
{
    (void)c;
    return fd_net_node_remove(net, FD_G_JOB, j->j_slot, false);
}

/* Seconds a task has waited in all (every spell of waiting, the current
 * one up to now if it waits), capped. */
static int64_t waited_s(const fd_task *t, uint64_t now)
{
    uint64_t w = t->t_waited;
    if (t->t_state == FD_TASK_WAITING && now > t->t_since)
        w += now - t->t_since;
    w /= 1000000;
    return (int64_t)(w < (uint64_t)FD_WAIT_CAP ? w : FD_WAIT_CAP);
}

static int64_t unsched_cost(const fd_config *cfg, const fd_task *t,
                            uint64_t now)
{
    int64_t cost =
        cfg->fdc_q_unsched_cost + waited_s(t, now) * cfg->fdc_q_wait_cost;
    if (!t->t_job->j_long) /* fallback short work goes ahead of long */
        cost += cfg->fdc_q_unsched_cost;
    return cost < FD_WAIT_CAP ? cost : FD_WAIT_CAP;
}

/* With preemption: what stopping the placed task t costs (the arc to
 * U_job), and moving it (the arc to X). */
static int64_t stop_cost(const fd_config *cfg, const fd_task *t, uint64_t now)
{
    uint64_t ran = t->t_state == FD_TASK_RUNNING && now > t->t_run_since
                       ? (now - t->t_run_since) / 1000000
                       : 0;
    int64_t r = (int64_t)(ran < (uint64_t)FD_WAIT_CAP ? ran : FD_WAIT_CAP);
    int64_t cost = unsched_cost(cfg, t, now) + r * cfg->fdc_q_kill_cost;
    return cost < FD_WAIT_CAP ? cost : FD_WAIT_CAP;
}

static int64_t move_cost(const fd_config *cfg, const fd_task *t, uint64_t now)
{
    return stop_cost(cfg, t, now) - unsched_cost(cfg, t, now) +
           cfg->fdc_q_cluster_cost + cfg->fdc_q_move_cost;
}

int fd_q_task_arcs(const fd_core *c, fd_net *net, fd_task *t, uint64_t now)
{
    const fd_config *cfg = &c->c_cfg;
    fd_gent *te = fd_net_find(net, FD_G_TASK, t->t_slot);
    fd_gent *je = fd_net_find(net, FD_G_JOB, t->t_job->j_slot);
    if (te == NULL || je == NULL)
        return FC_EINVAL;
    /* a job with a class in the network (labels; every job under
     * multires) reaches nodes through it instead of the cluster */
    fd_class *k = t->t_job->j_class;
    fd_gent *ke = k == NULL ? NULL : fd_net_find(net, FD_G_CLASS, k->k_slot);
    fc_node agg = ke != NULL ? ke->e_node : net->nt_cluster;
    fc_node v = te->e_node;
    te->e_arc[0] = te->e_arc[1] = FC_NONE;
    if (t->t_state != FD_TASK_WAITING) {
        fd_gent *ne = fd_net_find(net, FD_G_NODE, t->t_node->n_slot);
        if (ne == NULL)
            return FC_EINVAL;
        int rc = fd_net_arc(net, v, ne->e_node, 1, 0, NULL);
        if (!cfg->fdc_preemption) {
            if (rc == 0)
                rc = fd_net_arc(net, v, je->e_node, 1, FD_ESCAPE_COST,
                                &te->e_arc[0]);
            return rc;
        }
        if (rc == 0)
            rc = fd_net_arc(net, v, je->e_node, 1, stop_cost(cfg, t, now),
                            &te->e_arc[0]);
        if (rc == 0)
            rc = fd_net_arc(net, v, agg, 1, move_cost(cfg, t, now),
                            &te->e_arc[1]);
        return rc;
    }
    int rc = fd_net_arc(net, v, je->e_node, 1, unsched_cost(cfg, t, now),
                        &te->e_arc[0]);
    if (rc == 0)
        rc = fd_net_arc(net, v, agg, 1, cfg->fdc_q_cluster_cost, NULL);
    for (uint32_t i = 0; rc == 0 && i < t->t_nprefs; i++) {
        const char *p = t->t_prefs[i];
        fd_gent *pe = NULL;
        int64_t cost;
        if (i >= t->t_nprefs - t->t_nracks) {
            /* a rack may hold nodes the class may not use */
            fd_rack *r = ke != NULL ? NULL : fd_rack_by_name(c, p);
            pe = r == NULL ? NULL : fd_net_find(net, FD_G_RACK, r->r_slot);
            cost = cfg->fdc_q_rack_cost;
        } else {
            fd_node *n = fd_node_by_name(c, p);
            if (n != NULL && k != NULL && !fd_q_fits(k, n))
                n = NULL;
            pe = n == NULL ? NULL : fd_net_find(net, FD_G_NODE, n->n_slot);
            cost = cfg->fdc_q_node_cost;
        }
        if (pe != NULL)
            rc = fd_net_arc(net, v, pe->e_node, 1, cost, NULL);
    }
    return rc;
}

int fd_q_task_costs(const fd_core *c, fd_net *net, fd_task *t, uint64_t now)
{
    const fd_config *cfg = &c->c_cfg;
    fd_gent *te = fd_net_find(net, FD_G_TASK, t->t_slot);
    if (te == NULL || te->e_arc[0] == FC_NONE)
        return 0;
    if (t->t_state == FD_TASK_WAITING)
        return fd_net_arc_set(net, &te->e_arc[0], FC_NONE, FC_NONE, 1,
                              unsched_cost(cfg, t, now));
    if (!cfg->fdc_preemption || te->e_arc[1] == FC_NONE)
        return 0;
    int rc = fd_net_arc_set(net, &te->e_arc[0], FC_NONE, FC_NONE, 1,
                            stop_cost(cfg, t, now));
    if (rc == 0)
        rc = fd_net_arc_set(net, &te->e_arc[1], FC_NONE, FC_NONE, 1,
                            move_cost(cfg, t, now));
    return rc;
}

/* A waiting task's unscheduled cost changes when its wait (waited_s)
 * reaches its next whole second. */
uint64_t fd_q_task_costs_due(const fd_core *c, const fd_task *t, uint64_t now)
{
    (void)c;
    uint64_t w = t->t_waited + (now > t->t_since ? now - t->t_since : 0);
    return t->t_since + ((w / 1000000 + 1) * 1000000 - t->t_waited);
}

/* One more than the dearest arc of job j's tasks to U_job (at most
 * FD_WAIT_CAP + 1). */
static int64_t fair_discount(const fd_config *cfg, const fd_job *j,
                             uint64_t now)
{
    int64_t d = 0;
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        const fd_task *t = &j->j_tasks[i];
        int64_t x = 0;
        if (t->t_state == FD_TASK_WAITING)
            x = unsched_cost(cfg, t, now);
        else if (t->t_state != FD_TASK_DEAD && cfg->fdc_preemption)
            x = stop_cost(cfg, t, now);
        if (x > d)
            d = x;
    }
    return d + 1;
}

/* Slots of the room jobs get at water level L: min(live, L) each. */
static int64_t level_sum(const fd_core *c, uint32_t level)
{
    int64_t sum = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        const fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_live > 0)
            sum += j->j_live < level ? j->j_live : level;
    }
    return sum;
}

/* Water-filling: the largest level L whose sum fits the room (the sum
 * of the live racks' room); shares are min(live, L), and what the room
 * has left goes one slot each to the jobs above L in slot order, so the
 * shares sum to min(room, live tasks). Then each job's two arcs to the
 * sink (the header comment). O(jobs x log(largest job) + tasks). */
static int q_whole(const fd_core *c, fd_net *net, uint64_t now)
{
    if (!c->c_cfg.fdc_q_fair_share)
        return 0;
    int64_t room = 0;
    for (uint32_t i = 0; i < c->c_racks.sl_len; i++) {
        const fd_rack *r = fd_slots_get(&c->c_racks, i);
        if (r != NULL && r->r_nnodes > 0)
            room += r->r_cap;
    }
    uint32_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        const fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_live > hi)
            hi = j->j_live;
    }
    while (lo < hi) { /* the largest level in [lo, hi] that fits */
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (level_sum(c, mid) <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t left = room - level_sum(c, lo);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        fd_gent *e = j == NULL || j->j_live == 0
                         ? NULL
                         : fd_net_find(net, FD_G_JOB, j->j_slot);
        if (e == NULL)
            continue;
        int64_t share = j->j_live < lo ? j->j_live : lo;
        if (j->j_live > lo && left > 0) {
            share++;
            left--;
        }
        rc = fd_net_arc_set(net, &e->e_arc[0], e->e_node, net->nt_sink, share,
                            0);
        if (rc == 0)
            rc = fd_net_arc_set(net, &e->e_arc[1], e->e_node, net->nt_sink,
                                j->j_live - share,
                                -fair_discount(&c->c_cfg, j, now));
    }
    return rc;
}

bool fd_q_fits(const fd_class *k, const fd_node *n)
{
    return fd_class_fits_labels(k, n) &&
           k->k_res.r_cpu_milli <= n->n_res.r_cpu_milli &&
           k->k_res.r_mem_mb <= n->n_res.r_mem_mb;
}

/* A class with labels gets an aggregator with arcs to the nodes that
 * carry them all (and are large enough for its request at all); without
 * labels the cluster aggregator serves it. */
int fd_q_class_node(const fd_core *c, fd_net *net, fd_class *k, fd_node *n)
{
    (void)c;
    fd_gent *ke = fd_net_find(net, FD_G_CLASS, k->k_slot);
    fd_gent *ne = fd_net_find(net, FD_G_NODE, n->n_slot);
    if (ke == NULL || ne == NULL)
        return 0;
    fc_arc *a = fd_net_pair(net, k->k_slot, n->n_slot);
    if (a == NULL)
        return FC_ENOMEM;
    return fd_net_pair_set(net, a, ke->e_node, ne->e_node,
                           fd_q_fits(k, n) ? fd_node_room(n) : 0, 0);
}

/* The class's aggregator and its arcs to every node in the network. */
int fd_q_class_build(const fd_core *c, fd_net *net, fd_class *k)
{
    int rc = fd_net_node(net, FD_G_CLASS, k->k_slot, 0, FC_NODE_AGGREGATOR);
    for (uint32_t i = 0; rc == 0 && i < c->c_nodes.sl_len; i++) {
        fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n != NULL && !n->n_dead)
            rc = c->c_pol->po_class_node(c, net, k, n);
    }
    return rc;
}

int fd_q_class_add(const fd_core *c, fd_net *net, fd_class *k)
{
    return k->k_nlabels == 0 ? 0 : fd_q_class_build(c, net, k);
}

int fd_q_class_remove(const fd_core *c, fd_net *net, fd_class *k)
{
    (void)c;
    return fd_net_node_remove(net, FD_G_CLASS, k->k_slot, false);
}

const fd_policy fd_policy_quincy = {
    .po_name = "quincy",
    .po_init = fd_q_init,
    .po_rack_add = fd_q_rack_add,
    .po_rack_update = fd_q_rack_update,
    .po_rack_remove = fd_q_rack_remove,
    .po_node_add = q_node_add,
    .po_node_update = q_node_update,
    .po_node_remove = fd_q_node_remove,
    .po_job_add = fd_q_job_add,
    .po_job_update = fd_q_job_update,
    .po_job_remove = fd_q_job_remove,
    .po_task_arcs = fd_q_task_arcs,
    .po_task_costs = fd_q_task_costs,
    .po_task_costs_due = fd_q_task_costs_due,
    .po_class_add = fd_q_class_add,
    .po_class_remove = fd_q_class_remove,
    .po_class_node = fd_q_class_node,
    .po_whole = q_whole,
};

const fd_policy *fd_policy_find(const char *name)
{
    if (strcmp(name, fd_policy_quincy.po_name) == 0)
        return &fd_policy_quincy;
    if (strcmp(name, fd_policy_spread.po_name) == 0)
        return &fd_policy_spread;
    if (strcmp(name, fd_policy_multires.po_name) == 0)
        return &fd_policy_multires;
    return NULL;
}
