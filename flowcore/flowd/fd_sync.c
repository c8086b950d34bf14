/*
 * fd_sync.c - from the core's records to its network. fd_sync applies
 * what changed since the last sync, record by record from the dirty
 * lists, through the policy and flowcore's change API (never a rebuild
 * in steady state); fd_build makes a network from nothing out of the
 * same records, for a rebuild after an error and for comparison.
 *
 * Order matters, because removing a graph node removes the arcs at it:
 * the tasks that changed lose their arcs (or, ended, their node: drained
 * to the sink) first; then nodes leave, racks follow, racks and nodes
 * join and nodes' loads are redone (with the classes' arcs to them);
 * then classes come and go; then jobs come and go; then the
 * tasks get their arcs for their new state, and waiting tasks with
 * preferences get theirs again if a node or rack joined (a preference
 * names a node that may come later). Time-dependent costs of waiting
 * tasks come next, and last what the policy derives from every record
 * at once (po_whole: quincy's fair shares).
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "skylark.h"

#include <stdlib.h>

static void free_task(fd_core *c, fd_task *t)
{
    fd_list_remove(&t->t_dirty_link);
    t->t_dirty = false;
    fd_slots_give(&c->c_tasks, t->t_slot);
    t->t_slot = UINT32_MAX;
    fd_job *j = t->t_job;
    if (j->j_live == 0 && !j->j_dirty) {
        j->j_dirty = true;
        fd_list_push(&c->c_dirty_jobs, &j->j_dirty_link);
    }
}

static bool rack_live(const fd_rack *r)
{
    return r->r_nnodes > 0;
}

int fd_sync(fd_core *c, fd_net *net, sk_time now)
{
    const fd_policy *po = c->c_pol;
    int rc = 0, err = 0;
#define KEEP(x)                                                                \
    do {                                                                       \
        rc = (x);                                                              \
        if (rc != 0 && err == 0)                                               \
            err = rc;                                                          \
    } while (0)

    /* 1. tasks that changed lose their arcs; ended ones their node. */
    for (fd_link *l = c->c_dirty_tasks.l_next; l != &c->c_dirty_tasks;) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_dirty_link);
        l = l->l_next;
        fd_gent *e = fd_net_find(net, FD_G_TASK, t->t_slot);
        if (t->t_state == FD_TASK_DEAD) {
            if (e != NULL)
                KEEP(fd_net_node_remove(net, FD_G_TASK, t->t_slot, true));
            free_task(c, t);
        } else if (e != NULL) {
            KEEP(fd_net_strip(net, e->e_node));
        }
    }
    /* 2. nodes leave, racks follow, racks and nodes join, loads. */
    for (fd_link *l = c->c_dirty_nodes.l_next; l != &c->c_dirty_nodes;) {
        fd_node *n = FD_CONTAINER(l, fd_node, n_dirty_link);
        l = l->l_next;
        if (!n->n_dead)
            continue;
        if (n->n_in_net)
            KEEP(po->po_node_remove(c, net, n));
        fd_list_remove(&n->n_dirty_link);
        fd_node_free(c, n);
    }
    if (c->c_racks_dirty) {
        for (uint32_t i = 0; i < c->c_racks.sl_len; i++) {
            fd_rack *r = fd_slots_get(&c->c_racks, i);
            if (r == NULL || !r->r_dirty)
                continue;
            if (!rack_live(r)) {
                if (r->r_in_net)
                    KEEP(po->po_rack_remove(c, net, r));
                fd_slots_give(&c->c_racks, r->r_slot);
                free(r);
                continue;
            }
            if (!r->r_in_net) {
                KEEP(po->po_rack_add(c, net, r));
                r->r_in_net = true;
            } else {
                KEEP(po->po_rack_update(c, net, r));
            }
            r->r_dirty = false;
        }
        c->c_racks_dirty = false;
    }
    while (!fd_list_empty(&c->c_dirty_nodes)) {
        fd_node *n =
            FD_CONTAINER(c->c_dirty_nodes.l_next, fd_node, n_dirty_link);
        fd_list_remove(&n->n_dirty_link);
        n->n_dirty = false;
        if (!n->n_in_net) {
            KEEP(po->po_node_add(c, net, n));
            n->n_in_net = true;
        } else if (n->n_load_changed) {
            KEEP(po->po_node_update(c, net, n));
        } else {
            continue;
        }
        n->n_load_changed = false;
        for (uint32_t i = 0; i < c->c_classes.sl_len; i++) {
            fd_class *k = fd_slots_get(&c->c_classes, i);
            if (k != NULL && k->k_in_net)
                KEEP(po->po_class_node(c, net, k, n));
        }
    }
    /* classes come (with their arcs to every node) and go */
    while (!fd_list_empty(&c->c_dirty_classes)) {
        fd_class *k =
            FD_CONTAINER(c->c_dirty_classes.l_next, fd_class, k_dirty_link);
        fd_list_remove(&k->k_dirty_link);
        k->k_dirty = false;
        if (k->k_refs == 0) {
            if (k->k_in_net)
                KEEP(po->po_class_remove(c, net, k));
            fd_class_free(c, k);
        } else if (!k->k_in_net) {
            KEEP(po->po_class_add(c, net, k));
            k->k_in_net = true;
        }
    }
    /* 3. jobs come, change and go. */
    while (!fd_list_empty(&c->c_dirty_jobs)) {
        fd_job *j = FD_CONTAINER(c->c_dirty_jobs.l_next, fd_job, j_dirty_link);
        fd_list_remove(&j->j_dirty_link);
        j->j_dirty = false;
        if (j->j_live == 0) {
            if (j->j_in_net)
                KEEP(po->po_job_remove(c, net, j));
            j->j_in_net = false;
            if (j->j_dead)
                fd_job_free(c, j);
        } else if (!j->j_in_net) {
            KEEP(po->po_job_add(c, net, j));
            j->j_in_net = true;
        } else {
            KEEP(po->po_job_update(c, net, j));
        }
    }
    /* 4. tasks get their arcs. */
    while (!fd_list_empty(&c->c_dirty_tasks)) {
        fd_task *t =
            FD_CONTAINER(c->c_dirty_tasks.l_next, fd_task, t_dirty_link);
        fd_list_remove(&t->t_dirty_link);
        t->t_dirty = false;
        rc = 0;
        if (fd_net_find(net, FD_G_TASK, t->t_slot) == NULL)
            KEEP(fd_net_node(net, FD_G_TASK, t->t_slot, 1, FC_NODE_TASK));
        if (rc == 0)
            KEEP(po->po_task_arcs(c, net, t, now));
        if (rc == 0)
            KEEP(fd_constraint_net_task(c, net, t));
        if (t->t_state == FD_TASK_WAITING)
            fd_due_set(c, t, po->po_task_costs_due(c, t, now));
    }
    if (c->c_nodes_added) {
        for (fd_link *l = c->c_pref_waiting.l_next; l != &c->c_pref_waiting;
             l = l->l_next) {
            fd_task *t = FD_CONTAINER(l, fd_task, t_pref_link);
            fd_gent *e = fd_net_find(net, FD_G_TASK, t->t_slot);
            if (e == NULL)
                continue;
            KEEP(fd_net_strip(net, e->e_node));
            if (rc == 0)
                KEEP(po->po_task_arcs(c, net, t, now));
            if (rc == 0)
                KEEP(fd_constraint_net_task(c, net, t));
        }
        c->c_nodes_added = false;
    }
    /* 5. costs that grow with time: of the waiting tasks, only those
     * whose costs are due to change (fd_due.c). */
    for (fd_task *t; (t = fd_due_pop(c, now)) != NULL;) {
        KEEP(po->po_task_costs(c, net, t, now));
        fd_due_set(c, t, po->po_task_costs_due(c, t, now));
    }
    if (c->c_cfg.fdc_preemption) /* what stopping a placed task costs */
        for (fd_link *l = c->c_assigned.l_next; l != &c->c_assigned;
             l = l->l_next)
            KEEP(po->po_task_costs(
                c, net, FD_CONTAINER(l, fd_task, t_assigned_link), now));
    if (po->po_whole != NULL) /* 6. what depends on every record */
        KEEP(po->po_whole(c, net, now));
    KEEP(fd_net_balance(net));
#undef KEEP
    return err;
}

int fd_build(const fd_core *c, fd_net *net, sk_time now)
{
    const fd_policy *po = c->c_pol;
    int rc = po->po_init(c, net);
    for (uint32_t i = 0; rc == 0 && i < c->c_racks.sl_len; i++) {
        fd_rack *r = fd_slots_get(&c->c_racks, i);
        if (r != NULL && rack_live(r))
            rc = po->po_rack_add(c, net, r);
    }
    for (uint32_t i = 0; rc == 0 && i < c->c_nodes.sl_len; i++) {
        fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n != NULL && !n->n_dead)
            rc = po->po_node_add(c, net, n);
    }
    for (uint32_t i = 0; rc == 0 && i < c->c_classes.sl_len; i++) {
        fd_class *k = fd_slots_get(&c->c_classes, i);
        if (k != NULL && k->k_refs > 0)
            rc = po->po_class_add(c, net, k);
    }
    for (uint32_t i = 0; rc == 0 && i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_live > 0)
            rc = po->po_job_add(c, net, j);
    }
    for (uint32_t i = 0; rc == 0 && i < c->c_tasks.sl_len; i++) {
        fd_task *t = fd_slots_get(&c->c_tasks, i);
        if (t == NULL || t->t_state == FD_TASK_DEAD)
            continue;
        rc = fd_net_node(net, FD_G_TASK, t->t_slot, 1, FC_NODE_TASK);
        if (rc == 0)
            rc = po->po_task_arcs(c, net, t, now);
        if (rc == 0)
            rc = fd_constraint_net_task(c, net, t);
    }
    if (rc == 0 && po->po_whole != NULL)
        rc = po->po_whole(c, net, now);
    if (rc == 0)
        rc = fd_net_balance(net);
    return rc;
}
