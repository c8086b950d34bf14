/*
 * fd_round.c - the two steps of a round: begin (bring the network up to
 * date with the records and hand it out to be solved) and end (read the
 * placements off the flow and act on them: RESERVE, and with preemption
 * RELEASE), and the network built from scratch for comparison.
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

/* Bring the network up to the records; after an error, build it anew. */
static int update_net(fd_core *c, sk_time now)
{
    int rc = fd_sync(c, c->c_net, now);
    if (rc != 0) {
        c->c_st.fs_net_errors++;
        sk_warn("flowd: network change failed (%s); rebuilding it",
                fc_strerror(rc));
        c->c_net_broken = true;
    }
    if (!c->c_net_broken)
        return 0;
    fd_net *fresh = NULL;
    rc = fd_net_new(&fresh);
    if (rc == 0)
        rc = fd_build(c, fresh, now);
    if (rc != 0) {
        fd_net_free(fresh);
        c->c_st.fs_net_errors++;
        return rc == FC_ENOMEM ? SK_ENOMEM : SK_EINVAL;
    }
    fd_net_free(c->c_net);
    c->c_net = fresh;
    c->c_net_broken = false;
    c->c_solve_failed = true; /* no flow to start from */
    return 0;
}

int fd_round_begin(fd_core *c, sk_time now, fd_round **out)
{
    fd_enter(c);
    if (c->c_round_out)
        return SK_ESTATE;
    sk_time due = fd_round_due(c);
    if (due == SK_TIME_NEVER || due > now)
        return SK_EAGAIN;
    int rc = update_net(c, now);
    if (rc != 0)
        return rc;
    fd_round *r = &c->c_round;
    r->rd_graph = c->c_net->nt_g;
    r->rd_algorithm = c->c_cfg.fdc_algorithm;
    r->rd_incremental = !c->c_solve_failed;
    r->rd_relax_budget = (uint64_t)c->c_cfg.fdc_relax_budget;
    r->rd_seq++;
    r->rd_events = c->c_events;
    r->rd_begin = now;
    c->c_events = 0;
    c->c_round_out = true;
    c->c_st.fs_graph_nodes = fc_graph_node_count(r->rd_graph);
    c->c_st.fs_graph_arcs = fc_graph_arc_count(r->rd_graph);
    *out = r;
    return 0;
}

/* A task and the node its flow reaches. */
typedef struct fd_place {
    fd_task *p_task;
    fd_node *p_node;
} fd_place;

/* Follow task t's unit of flow: true with its node in *n when it reaches
 * a node and both records are live (else, dropped: it ended or the node
 * left during the solve). */
static bool flow_of(fd_core *c, fd_task *t, fd_node **n)
{
    fd_gent *e = fd_net_find(c->c_net, FD_G_TASK, t->t_slot);
    if (e == NULL) /* came during the solve */
        return false;
    /* Its one unit on its arc to U_job: unscheduled, and following it
     * would take no unit another task could follow. The common case
     * (a backlog of waiting tasks), at one look instead of a walk. */
    if (e->e_arc[0] != FC_NONE && fc_arc_flow(c->c_net->nt_g, e->e_arc[0]) > 0)
        return false;
    fc_node m = fd_net_follow(c->c_net, e->e_node);
    if (m == FC_NONE)
        return false;
    fd_gref r = fd_net_ref(c->c_net, m);
    *n = r.g_kind == FD_G_NODE ? fd_slots_get(&c->c_nodes, r.g_slot) : NULL;
    if (*n == NULL || (*n)->n_dead || t->t_state == FD_TASK_DEAD) {
        c->c_st.fs_dropped_dead++;
        return false;
    }
    return true;
}

static size_t list_len(const fd_link *h)
{
    size_t n = 0;
    for (const fd_link *l = h->l_next; l != h; l = l->l_next)
        n++;
    return n;
}

/* The placements that can matter, read off the flow: only tasks whose
 * flow can reach another node than the one they hold. Those are the
 * tasks waiting at the round's start and those changed since (waiting
 * or dirty now), and with preemption the placed tasks: without it a
 * policy gives a placed task arcs only to its node and its unscheduled
 * aggregator (fd_policy.h). Reading every placed task would make each
 * round cost as much as the tasks held. Into *out (scratch memory),
 * count in *n. */
static int read_flow(fd_core *c, fd_place **out, size_t *n)
{
    bool preempt = c->c_cfg.fdc_preemption;
    size_t cap = c->c_st.fs_waiting + list_len(&c->c_dirty_tasks) +
                 (preempt ? list_len(&c->c_assigned) : 0);
    fd_place *pl = fd_scratch_alloc(c, cap * sizeof *pl);
    if (pl == NULL || fd_net_read_begin(c->c_net) != 0)
        return SK_ENOMEM;
    size_t k = 0;
    fd_node *m;
    for (fd_link *l = c->c_waiting.l_next; l != &c->c_waiting; l = l->l_next) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_wait_link);
        if (!t->t_dirty && flow_of(c, t, &m))
            pl[k++] = (fd_place){t, m};
    }
    for (fd_link *l = c->c_dirty_tasks.l_next; l != &c->c_dirty_tasks;
         l = l->l_next) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_dirty_link);
        if (flow_of(c, t, &m))
            pl[k++] = (fd_place){t, m};
    }
    for (fd_link *l = c->c_assigned.l_next; preempt && l != &c->c_assigned;
         l = l->l_next) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_assigned_link);
        if (!t->t_dirty && flow_of(c, t, &m))
            pl[k++] = (fd_place){t, m};
    }
    SK_ASSERT(k <= cap);
    *out = pl;
    *n = k;
    return 0;
}

/* Preemption: stop the placed task t where it is (its flow left), to be
 * placed again from waiting with its next attempt. */
static void evict(fd_core *c, sk_time now, fd_task *t)
{
    if (t->t_attempt + 1 >= SK_MAX_ATTEMPTS) {
        c->c_st.fs_ignored_moves++;
        return;
    }
    fd_send_release(c, t->t_node, t->t_resv, t->t_job->j_id, t->t_index);
    fd_task_unassign(c, t);
    t->t_attempt++;
    t->t_moves++;
    t->t_since = now;
    t->t_round = c->c_stamp;
    fd_task_set_state(c, t, FD_TASK_WAITING);
    c->c_st.fs_preempted++;
    fd_event(c, now);
}

/* Compare the flow with what runs. A task that changed during the solve
 * (dirty: its part of the network is stale) is left for the next round,
 * unless this round stopped it. */
static void act(fd_core *c, sk_time now, const fd_place *pl, size_t count)
{
    c->c_stamp++;
    bool preempt = c->c_cfg.fdc_preemption;
    for (size_t i = 0; i < count; i++) {
        fd_task *t = pl[i].p_task;
        if (t->t_dirty || t->t_state == FD_TASK_WAITING ||
            t->t_node == pl[i].p_node ||
            fd_cons_active(t->t_job)) /* not moved by a tag-blind flow */
            continue;
        if (preempt)
            evict(c, now, t); /* moved: placed below */
        else
            c->c_st.fs_ignored_moves++;
    }
    if (preempt) { /* flow to U_job: stopped, waits */
        for (fd_link *l = c->c_assigned.l_next; l != &c->c_assigned;) {
            fd_task *t = FD_CONTAINER(l, fd_task, t_assigned_link);
            l = l->l_next;
            fd_gent *e = fd_net_find(c->c_net, FD_G_TASK, t->t_slot);
            if (!t->t_dirty && e != NULL && e->e_arc[0] != FC_NONE &&
                fc_arc_flow(c->c_net->nt_g, e->e_arc[0]) > 0 &&
                !fd_cons_active(t->t_job))
                evict(c, now, t);
        }
    }
    for (size_t i = 0; i < count; i++) {
        fd_task *t = pl[i].p_task;
        fd_node *n = pl[i].p_node;
        if (t->t_state != FD_TASK_WAITING ||
            fd_cons_active(t->t_job) || /* fd_constraint_round places it */
            fd_job_away(t->t_job))      /* nobody to report to: it waits */
            continue;
        if (t->t_dirty && t->t_round != c->c_stamp) {
            c->c_st.fs_dropped_dead++; /* changed meanwhile */
            continue;
        }
        if (n->n_ntasks >= fd_node_room(n) || n->n_detached || n->n_returning) {
            c->c_st.fs_dropped_cap++;
            continue;
        }
        fd_send_reserve(c, now, t, n);
        c->c_st.fs_last_placed++;
    }
    fd_constraint_round(c, now);
}

int fd_round_end(fd_core *c, sk_time now, fd_round *round, int solve_rc,
                 const fc_solve_stats *stats)
{
    fd_enter(c);
    if (!c->c_round_out || round != &c->c_round)
        return SK_EINVAL;
    c->c_round_out = false;
    c->c_st.fs_rounds++;
    c->c_st.fs_last_events = round->rd_events;
    c->c_st.fs_last_placed = 0;
    if (stats != NULL) {
        c->c_st.fs_last_solve_ms = stats->ss_seconds * 1000.0;
        c->c_st.fs_last_alg = stats->ss_algorithm;
    }
    int rc = 0;
    if (solve_rc != 0) {
        c->c_st.fs_round_fail++;
        c->c_solve_failed = true;
        if (solve_rc != FC_ECANCELED)
            fc_graph_reset_flow(c->c_net->nt_g);
        sk_warn("flowd: round %llu: solve failed: %s",
                (unsigned long long)round->rd_seq, fc_strerror(solve_rc));
        fd_event(c, now); /* try again */
    } else {
        c->c_solve_failed = false;
        fd_place *pl = NULL;
        size_t n = 0;
        if (read_flow(c, &pl, &n) != 0) {
            c->c_st.fs_nomem++;
            fd_event(c, now);
            rc = SK_ENOMEM;
        }
        act(c, now, pl, n);
    }
    int src = fd_sync(c, c->c_net, now);
    if (src != 0) {
        c->c_st.fs_net_errors++;
        c->c_net_broken = true;
    }
    fd_leave(c);
    return rc;
}

int fd_core_build_fresh(const fd_core *c, sk_time now, fc_graph **out)
{
    fd_net *net;
    int rc = fd_net_new(&net);
    if (rc == 0)
        rc = fd_build(c, net, now);
    if (rc != 0) {
        fd_net_free(net);
        return rc == FC_ENOMEM ? SK_ENOMEM : SK_EINVAL;
    }
    *out = net->nt_g;
    net->nt_g = NULL;
    fd_net_free(net);
    return 0;
}
