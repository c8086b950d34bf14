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
#include <stdlib.h>

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

/* ---- "flow-dump": the dump over the wire, page by page ------------------*/

/* Bytes of dump text in one reply: rows of SK_MAX_STATUS_LEN bytes, 765
 * KiB in all, so that a page (with the shell's pairs) stays under the 1
 * MiB a transport takes by default, whatever asks. */
#define DUMP_PAGE_ROWS 3072u
#define DUMP_PAGE      ((size_t)DUMP_PAGE_ROWS * SK_MAX_STATUS_LEN)

void fd_dump_free(fd_core *c)
{
    free(c->c_dump);
    c->c_dump = NULL;
    c->c_dump_len = 0;
}

/* Whether the flow on the network is the optimum of the last round on
 * this very network: solved, and nothing changed since. */
static bool flow_is_round(const fd_core *c)
{
    return c->c_st.fs_rounds > 0 && !c->c_solve_failed && !c->c_net_broken &&
           fc_graph_change_count(c->c_net->nt_g) == 0;
}

/* Renders the dump into c_dump: a header of comment lines, then what
 * fd_core_dump writes. */
static int render(fd_core *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return SK_ENOMEM;
    char cost[64] = "";
    if (flow_is_round(c))
        fc_int128_format(fc_graph_flow_cost(c->c_net->nt_g), cost, sizeof cost);
    fprintf(f,
            "c skylark-flowd %s: its network after round %" PRIu64
            " (policy %s), DIMACS min-cost flow\n",
            c->c_cfg.fdc_name, c->c_round.rd_seq, c->c_pol->po_name);
    if (cost[0] != '\0')
        fprintf(f,
                "c cost %s: the optimum round %" PRIu64
                " found on this network\n",
                cost, c->c_round.rd_seq);
    else
        fprintf(f,
                "c cost unknown: the network changed since round %" PRIu64
                " was solved\n",
                c->c_round.rd_seq);
    int rc = fd_core_dump(c, f);
    if (fclose(f) != 0 && rc == 0)
        rc = SK_ENOMEM;
    if (rc != 0) {
        free(text);
        return rc == SK_EIO ? SK_ENOMEM : rc;
    }
    fd_dump_free(c);
    c->c_dump = text;
    c->c_dump_len = len;
    c->c_dump_id++;
    return 0;
}

int fd_query_dump(fd_core *c, const char *args, sk_status_reply *reply)
{
    uint64_t id = 0, off = 0;
    bool first = args[0] == '\0';
    if (first) {
        if (c->c_round_out)
            return fd_reply_busy(c, reply);
        int rc = render(c);
        if (rc != 0)
            return rc;
        id = c->c_dump_id;
    } else {
        char end;
        if (sscanf(args, "%" SCNu64 " %" SCNu64 "%c", &id, &off, &end) != 2 ||
            args[0] < '0' || args[0] > '9') {
            c->c_st.fs_bad_field++;
            return fd_reply_kv(c, reply, "error",
                               "flow-dump takes nothing, or ID OFFSET");
        }
        if (c->c_dump == NULL || id != c->c_dump_id)
            return fd_reply_kv(c, reply, "error",
                               "dump %" PRIu64 " is gone (read to its end, "
                               "or a newer dump replaced it): start again",
                               id);
        if (off > c->c_dump_len) {
            c->c_st.fs_bad_field++;
            return fd_reply_kv(c, reply, "error",
                               "offset %" PRIu64 " is beyond the dump's %zu "
                               "bytes",
                               off, c->c_dump_len);
        }
    }
    size_t n =
        c->c_dump_len - off < DUMP_PAGE ? c->c_dump_len - off : DUMP_PAGE;
    int rc = fd_reply_text(c, reply, c->c_dump + off, n, false);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "dump", "%" PRIu64, id);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "bytes", "%zu", c->c_dump_len);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "offset", "%" PRIu64, off);
    if (rc == 0 && off + n == c->c_dump_len)
        rc = fd_reply_kv(c, reply, "next", "end");
    else if (rc == 0)
        rc = fd_reply_kv(c, reply, "next", "%" PRIu64, off + n);
    if (rc == 0 && first)
        rc = fd_reply_kv(c, reply, "round", "%" PRIu64, c->c_round.rd_seq);
    if (rc == 0 && first) {
        char cost[64] = "unknown";
        if (flow_is_round(c))
            fc_int128_format(fc_graph_flow_cost(c->c_net->nt_g), cost,
                             sizeof cost);
        rc = fd_reply_kv(c, reply, "cost", "%s", cost);
    }
    /* The reply holds copies: read to its end, the dump can go. */
    if (off + n == c->c_dump_len)
        fd_dump_free(c);
    return rc;
}
