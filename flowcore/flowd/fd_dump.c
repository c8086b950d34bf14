/*
 * fd_dump.c - the flow node's network for people: what each graph node
 * stands for, and the whole network as DIMACS with those names in
 * comment lines (for `skylark flow dump`, LEMON's dimacs-solver and
 * `skylark solve`).
 */
#include "fd_int.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdio.h>

const fc_graph *fd_core_graph(const fd_core *c)
{
    return c->c_net->nt_g;
}

int fd_core_gnode_name(const fd_core *c, fc_node v, char *buf, size_t len)
{
    fd_gref r = fd_net_ref(c->c_net, v);
    const fd_node *n;
    const fd_rack *k;
    const fd_job *j;
    const fd_task *t;
    switch (r.g_kind) {
    case FD_G_NONE:
        if (v == c->c_net->nt_sink)
            snprintf(buf, len, "sink");
        else if (v == c->c_net->nt_cluster)
            snprintf(buf, len, "cluster");
        else
            return SK_ENOTFOUND;
        return 0;
    case FD_G_RACK:
        k = fd_slots_get(&c->c_racks, r.g_slot);
        snprintf(buf, len, "rack %s", k != NULL ? k->r_name : "?");
        return 0;
    case FD_G_NODE:
        n = fd_slots_get(&c->c_nodes, r.g_slot);
        snprintf(buf, len, "node %s", n != NULL ? n->n_name : "?");
        return 0;
    case FD_G_JOB:
        j = fd_slots_get(&c->c_jobs, r.g_slot);
        if (j == NULL)
            return SK_ENOTFOUND;
        snprintf(buf, len, "unsched %" PRIu32 "/%" PRIu64,
                 j->j_sched != NULL ? j->j_sched->s_id : 0, j->j_id);
        return 0;
    case FD_G_CLASS: {
        const fd_class *cl = fd_slots_get(&c->c_classes, r.g_slot);
        if (cl == NULL)
            return SK_ENOTFOUND;
        int at = snprintf(buf, len, "class %" PRIu32 "m/%" PRIu32 "M",
                          cl->k_res.r_cpu_milli, cl->k_res.r_mem_mb);
        for (uint32_t i = 0; i < cl->k_nlabels && at >= 0 && (size_t)at < len;
             i++)
            at += snprintf(buf + at, len - (size_t)at, "%s%s",
                           i == 0 ? "/" : ",", cl->k_labels[i]);
        return 0;
    }
    case FD_G_TASK:
        t = fd_slots_get(&c->c_tasks, r.g_slot);
        if (t == NULL)
            return SK_ENOTFOUND;
        snprintf(buf, len, "task %" PRIu32 "/%" PRIu64 "/%" PRIu32,
                 t->t_job->j_sched != NULL ? t->t_job->j_sched->s_id : 0,
                 t->t_job->j_id, t->t_index);
        return 0;
    default:
        return SK_ENOTFOUND;
    }
}

int fd_core_dump(const fd_core *c, FILE *out)
{
    const fc_graph *g = c->c_net->nt_g;
    char name[SK_MAX_NAME_LEN + 64];
    int64_t id = 0;
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++) {
        if (!fc_node_exists(g, v))
            continue;
        id++; /* as fc_dimacs_write numbers them */
        if (fd_core_gnode_name(c, v, name, sizeof name) != 0)
            continue;
        if (fprintf(out, "c name %" PRId64 " %s\n", id, name) < 0)
            return SK_EIO;
    }
    return fc_dimacs_write(g, out) == 0 ? 0 : SK_EIO;
}
