/*
 * fd_multires.c - the multires policy: CPU and memory requests placed
 * where they fit.
 *
 * Every job reaches nodes through its class (fd_class.c: one per
 * distinct request and label set), and a class has an arc to a node only
 * where a copy of its request fits in what the node's last heartbeat
 * left free (and the node carries the class's labels):
 *
 *   task --(1, cluster)--> C_class --(copies, use)--> node --(room, 0)--> sink
 *   task --(1, unsched + wait ...)--> U_job --> sink      (as quincy)
 *
 * copies is how many copies of the request fit in the node's free CPU
 * and memory (at most its room); use is m_use_cost times the node's
 * normalised use after placing one copy, the larger of its CPU and
 * memory shares, so that the solver prefers the node the request leaves
 * least full. Two classes may both count the same free resources in one
 * round: the node monitor stays the judge, and a RESERVE it cannot
 * honour is rejected and re-planned. No racks (nor rack preferences); a
 * preferred node gets quincy's arc when its total resources can hold the
 * request, and unscheduled aggregators, continuation and preemption are
 * quincy's.
 */
#include "fd_int.h"

static int noop_rack(const fd_core *c, fd_net *net, fd_rack *r)
{
    (void)c;
    (void)net;
    (void)r;
    return 0;
}

static int m_node_update(const fd_core *c, fd_net *net, fd_node *n)
{
    (void)c;
    fd_gent *e = fd_net_find(net, FD_G_NODE, n->n_slot);
    if (e == NULL)
        return FC_EINVAL;
    return fd_net_arc_set(net, &e->e_arc[0], e->e_node, net->nt_sink,
                          fd_node_room(n), 0);
}

static int m_node_add(const fd_core *c, fd_net *net, fd_node *n)
{
    int rc = fd_net_node(net, FD_G_NODE, n->n_slot, 0, FC_NODE_MACHINE);
    return rc != 0 ? rc : m_node_update(c, net, n);
}

/* Copies of want that fit in free (a request of 0 takes none). */
static int64_t copies(uint32_t free_, uint32_t want)
{
    return want == 0 ? INT64_MAX : (int64_t)(free_ / want);
}

/* Per mille of total that used + want takes. */
static int64_t share(uint32_t used, uint32_t want, uint32_t total)
{
    return total == 0 ? 1000 : ((int64_t)used + want) * 1000 / total;
}

static int m_class_node(const fd_core *c, fd_net *net, fd_class *k, fd_node *n)
{
    fd_gent *ke = fd_net_find(net, FD_G_CLASS, k->k_slot);
    fd_gent *ne = fd_net_find(net, FD_G_NODE, n->n_slot);
    if (ke == NULL || ne == NULL)
        return 0;
    fc_arc *a = fd_net_pair(net, k->k_slot, n->n_slot);
    if (a == NULL)
        return FC_ENOMEM;
    const sk_resources *tot = &n->n_res, *used = &n->n_used_res;
    uint32_t fcpu = used->r_cpu_milli < tot->r_cpu_milli
                        ? tot->r_cpu_milli - used->r_cpu_milli
                        : 0;
    uint32_t fmem =
        used->r_mem_mb < tot->r_mem_mb ? tot->r_mem_mb - used->r_mem_mb : 0;
    int64_t cap = copies(fcpu, k->k_res.r_cpu_milli);
    int64_t m = copies(fmem, k->k_res.r_mem_mb);
    cap = m < cap ? m : cap;
    int64_t room = fd_node_room(n);
    cap = cap < room ? cap : room;
    if (!fd_class_fits_labels(k, n))
        cap = 0;
    int64_t sc =
        share(used->r_cpu_milli, k->k_res.r_cpu_milli, tot->r_cpu_milli);
    int64_t sm = share(used->r_mem_mb, k->k_res.r_mem_mb, tot->r_mem_mb);
    int64_t use = sc > sm ? sc : sm;
    use = use < 1000 ? use : 1000;
    return fd_net_pair_set(net, a, ke->e_node, ne->e_node, cap,
                           c->c_cfg.fdc_m_use_cost * use / 1000);
}

const fd_policy fd_policy_multires = {
    .po_name = "multires",
    .po_init = fd_q_init,
    .po_rack_add = noop_rack,
    .po_rack_update = noop_rack,
    .po_rack_remove = noop_rack,
    .po_node_add = m_node_add,
    .po_node_update = m_node_update,
    .po_node_remove = fd_q_node_remove,
    .po_job_add = fd_q_job_add,
    .po_job_update = fd_q_job_update,
    .po_job_remove = fd_q_job_remove,
    .po_task_arcs = fd_q_task_arcs,
    .po_task_costs = fd_q_task_costs,
    .po_task_costs_due = fd_q_task_costs_due,
    .po_class_add = fd_q_class_build,
    .po_class_remove = fd_q_class_remove,
    .po_class_node = m_class_node,
};
