/*
 * fd_status.c - the flow node's STATUS_REPLY: key/value pairs (nodes,
 * long tasks running and waiting, the last round, counters) and a table
 * of nodes, built in the core's scratch memory.
 */
#include "fd_int.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_KV 48

typedef struct kvb {
    fd_core *b_c;
    sk_status_kv *b_kv;
    uint32_t b_n;
    bool b_fail;
} kvb;

static void kv(kvb *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void kv(kvb *b, const char *key, const char *fmt, ...)
{
    char val[SK_MAX_STATUS_LEN + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    if (b->b_n >= MAX_KV)
        return;
    char *v = fd_scratch_printf(b->b_c, "%s", val);
    if (v == NULL) {
        b->b_fail = true;
        return;
    }
    b->b_kv[b->b_n].kv_key = key;
    b->b_kv[b->b_n].kv_value = v;
    b->b_n++;
}

static const char *state_name(uint8_t st)
{
    return st == SK_NODE_SATURATED ? "saturated"
           : st == SK_NODE_DOWN    ? "down"
                                   : "up";
}

static const char *const columns[] = {"node", "rack",  "slots",
                                      "cap",  "long",  "foreign",
                                      "used", "queue", "state"};
#define NCOLS (sizeof columns / sizeof columns[0])

int fd_status_build(fd_core *c, const sk_status_request *req, sk_time now,
                    sk_status_reply *reply)
{
    const fd_stats *st = &c->c_st;
    memset(reply, 0, sizeof *reply);
    kvb b = {c, fd_scratch_alloc(c, MAX_KV * sizeof(sk_status_kv)), 0, false};
    if (b.b_kv == NULL)
        return SK_ENOMEM;
    kv(&b, "epoch", "%" PRIu64, c->c_epoch);
    kv(&b, "settling", "%s", now < c->c_settle_until ? "yes" : "no");
    kv(&b, "policy", "%s", c->c_pol->po_name);
    kv(&b, "nodes", "%" PRIu64, st->fs_nodes);
    kv(&b, "schedulers", "%" PRIu64, st->fs_schedulers);
    kv(&b, "nodes_registered", "%" PRIu64, st->fs_nodes_up);
    kv(&b, "nodes_lost", "%" PRIu64, st->fs_nodes_down);
    kv(&b, "heartbeats", "%" PRIu64, st->fs_heartbeats);
    kv(&b, "jobs", "%" PRIu64, st->fs_jobs);
    kv(&b, "long_waiting", "%" PRIu64, st->fs_waiting);
    kv(&b, "long_reserved", "%" PRIu64, st->fs_reserved);
    kv(&b, "long_placed", "%" PRIu64, st->fs_placed);
    kv(&b, "long_running", "%" PRIu64, st->fs_running);
    kv(&b, "rounds", "%" PRIu64, st->fs_rounds);
    kv(&b, "round_pending_events", "%" PRIu64, c->c_events);
    kv(&b, "last_round_events", "%" PRIu64, st->fs_last_events);
    kv(&b, "last_round_solve_ms", "%.3f", st->fs_last_solve_ms);
    kv(&b, "last_round_algorithm", "%s", fc_algorithm_name(st->fs_last_alg));
    kv(&b, "last_round_placed", "%" PRIu64, st->fs_last_placed);
    kv(&b, "graph_nodes", "%" PRId32, st->fs_graph_nodes);
    kv(&b, "graph_arcs", "%" PRId32, st->fs_graph_arcs);
    kv(&b, "constrained_waiting", "%" PRIu64, st->fs_cx_waiting);
    kv(&b, "constraint_hard_broken", "%" PRIu64, st->fs_cx_hard);
    kv(&b, "constraint_soft_broken", "%" PRIu64, st->fs_cx_soft);
    kv(&b, "constraint_soft_weight", "%" PRIu64, st->fs_cx_soft_weight);
    kv(&b, "reserves", "%" PRIu64, st->fs_reserves);
    kv(&b, "rejects", "%" PRIu64, st->fs_rejects);
    kv(&b, "reserves_lost", "%" PRIu64, st->fs_reserve_lost);
    kv(&b, "releases", "%" PRIu64, st->fs_releases);
    kv(&b, "replanned", "%" PRIu64, st->fs_replanned);
    kv(&b, "tasks_ended", "%" PRIu64, st->fs_tasks_ended);
    kv(&b, "tasks_lost", "%" PRIu64, st->fs_tasks_lost);
    kv(&b, "tasks_failed", "%" PRIu64, st->fs_tasks_failed);
    kv(&b, "adopted", "%" PRIu64, st->fs_adopted);
    kv(&b, "unknown_killed", "%" PRIu64, st->fs_unknown_kill);
    kv(&b, "jobs_rejected", "%" PRIu64, st->fs_jobs_rejected);
    kv(&b, "refused_limit", "%" PRIu64, st->fs_limit);
    kv(&b, "refused_field", "%" PRIu64, st->fs_bad_field);
    kv(&b, "refused_peer", "%" PRIu64, st->fs_bad_peer);
    kv(&b, "refused_type", "%" PRIu64, st->fs_bad_type);
    kv(&b, "unknown", "%" PRIu64, st->fs_unknown);
    kv(&b, "stale", "%" PRIu64, st->fs_stale);
    kv(&b, "net_errors", "%" PRIu64, st->fs_net_errors);
    kv(&b, "nomem", "%" PRIu64, st->fs_nomem);
    if (b.b_fail)
        return SK_ENOMEM;
    reply->sr_request = req->sq_request;
    reply->sr_role = SK_ROLE_FLOWD;
    reply->sr_name = c->c_cfg.fdc_name;
    reply->sr_time_us = now;
    reply->sr_kv = b.b_kv;
    reply->sr_nkv = b.b_n;
    if (!req->sq_table)
        return 0;
    uint32_t rows = 0;
    sk_status_row *rv = fd_scratch_alloc(c, (c->c_nnodes + 1) * sizeof *rv);
    if (rv == NULL)
        return SK_ENOMEM;
    for (uint32_t i = 0; i < c->c_nodes.sl_len && rows < SK_MAX_STATUS_ROWS;
         i++) {
        const fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n == NULL || n->n_dead)
            continue;
        const char **cells = fd_scratch_alloc(c, NCOLS * sizeof *cells);
        if (cells == NULL)
            return SK_ENOMEM;
        uint8_t state = fd_node_state(n);
        cells[0] = fd_scratch_printf(c, "%s", n->n_name);
        cells[1] = fd_scratch_printf(c, "%s", n->n_rack->r_name);
        cells[2] = fd_scratch_printf(c, "%u", n->n_slots);
        cells[3] = fd_scratch_printf(c, "%u", n->n_cap);
        cells[4] = fd_scratch_printf(c, "%u", n->n_ntasks);
        cells[5] = fd_scratch_printf(c, "%u", n->n_foreign);
        cells[6] = fd_scratch_printf(c, "%u", n->n_used);
        cells[7] = fd_scratch_printf(c, "%u", n->n_queue);
        cells[8] = state_name(state);
        for (size_t k = 0; k < NCOLS; k++)
            if (cells[k] == NULL)
                return SK_ENOMEM;
        rv[rows].sw_cells = cells;
        rv[rows].sw_ncells = NCOLS;
        rows++;
    }
    reply->sr_columns = (const char **)columns;
    reply->sr_ncolumns = NCOLS;
    reply->sr_rows = rv;
    reply->sr_nrows = rows;
    return 0;
}
