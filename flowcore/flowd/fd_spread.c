/*
 * fd_spread.c - the spread policy: load spreading through convex costs.
 *
 * A cost fixed within a round makes the solver flood the cheapest node:
 * every unit of flow sees the same price there. Here a node's arcs to
 * the sink are FD_SPREAD_ARCS parallel arcs whose costs rise with the
 * load the node would carry: its room (long-task cap less the long
 * reservations the core does not know) is cut into that many chunks, and
 * the chunk starting at the p-th long task costs
 *
 *     s_load_cost * (short + p + 1) / slots + queue_cost * short queue
 *
 * per unit, where short is the slots the node's heartbeat says short
 * work uses (slots used less the core's tasks seen running there). The
 * solver fills the cheap chunks of every node before the dear ones, so
 * that work spreads, and the arc count stays at FD_SPREAD_ARCS per node
 * whatever the cluster (Firmament's issue #69: arcs per task class that
 * grew with the cluster collapsed its throughput). Everything else
 * (unscheduled aggregators and their wait cost, cluster and racks,
 * preferences, continuation, preemption) is quincy's.
 */
#include "fd_int.h"

#define FD_SPREAD_ARCS 4

static int s_node_update(const fd_core *c, fd_net *net, fd_node *n)
{
    const fd_config *cfg = &c->c_cfg;
    fd_gent *e = fd_net_find(net, FD_G_NODE, n->n_slot);
    fd_gent *re = fd_net_find(net, FD_G_RACK, n->n_rack->r_slot);
    if (e == NULL || re == NULL)
        return FC_EINVAL;
    int64_t room = fd_node_room(n);
    uint32_t running = 0;
    for (fd_link *l = n->n_tasks.l_next; l != &n->n_tasks; l = l->l_next)
        running +=
            FD_CONTAINER(l, fd_task, t_node_link)->t_state == FD_TASK_RUNNING;
    int64_t shortw = n->n_used > running ? n->n_used - running : 0;
    int64_t queue = n->n_queue < 100000 ? n->n_queue : 100000;
    int64_t from = 0;
    int rc = 0;
    for (int k = 0; rc == 0 && k < FD_SPREAD_ARCS; k++) {
        int64_t to = room * (k + 1) / FD_SPREAD_ARCS;
        int64_t cost =
            cfg->fdc_s_load_cost * (shortw + from + 1) / (int64_t)n->n_slots +
            queue * cfg->fdc_q_queue_cost;
        rc = fd_net_arc_set(net, &e->e_arc[k], e->e_node, net->nt_sink,
                            to - from, cost);
        from = to;
    }
    if (rc == 0)
        rc = fd_net_arc_set(net, &e->e_arc[FD_ARC_RACK], re->e_node, e->e_node,
                            room, 0);
    return rc;
}

static int s_node_add(const fd_core *c, fd_net *net, fd_node *n)
{
    int rc = fd_net_node(net, FD_G_NODE, n->n_slot, 0, FC_NODE_MACHINE);
    return rc != 0 ? rc : s_node_update(c, net, n);
}

const fd_policy fd_policy_spread = {
    .po_name = "spread",
    .po_init = fd_q_init,
    .po_rack_add = fd_q_rack_add,
    .po_rack_update = fd_q_rack_update,
    .po_rack_remove = fd_q_rack_remove,
    .po_node_add = s_node_add,
    .po_node_update = s_node_update,
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
};
