/*
 * fd_share.c - the nodes' users summaries and the query `users` (see
 * fd_share.h).
 */
#include "fd_share.h"

#include "sk_map.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One user's row of a node's summary; its name is in the same block. */
typedef struct share_row {
    uint32_t sr_name; /* offset of the name from the block's start */
    uint32_t sr_weight, sr_queued, sr_running;
    uint64_t sr_slot_ms;
} share_row;

struct fd_share_node {
    size_t sn_cap;     /* bytes of this block */
    sk_time sn_at;     /* when the summary came */
    uint32_t sn_n;     /* rows */
    uint32_t sn_total; /* users the node tracks */
    share_row sn_rows[];
};

void fd_share_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                           const sk_heartbeat *hb)
{
    if (!hb->hb_users_sent)
        return; /* the last summary stands */
    size_t need = sizeof(fd_share_node) + hb->hb_nusers * sizeof(share_row);
    for (uint32_t i = 0; i < hb->hb_nusers; i++)
        need += strlen(hb->hb_users[i].us_user) + 1;
    fd_share_node *s = n->n_share;
    if (s == NULL || s->sn_cap < need) {
        /* Room for a little growth, so a summary that moves by a user or
         * two is not reallocated every heartbeat. */
        size_t cap = need + need / 4;
        fd_share_node *grown = realloc(s, cap);
        if (grown == NULL) {
            fd_share_forget(n);
            c->c_st.fs_nomem++;
            return;
        }
        s = n->n_share = grown;
        s->sn_cap = cap;
    }
    s->sn_at = now;
    s->sn_n = hb->hb_nusers;
    s->sn_total = hb->hb_users_total;
    size_t at = sizeof(fd_share_node) + hb->hb_nusers * sizeof(share_row);
    for (uint32_t i = 0; i < hb->hb_nusers; i++) {
        const sk_usage *u = &hb->hb_users[i];
        size_t len = strlen(u->us_user) + 1;
        memcpy((char *)s + at, u->us_user, len);
        s->sn_rows[i] = (share_row){(uint32_t)at, u->us_weight, u->us_queued,
                                    u->us_running, u->us_slot_ms};
        at += len;
    }
}

void fd_share_forget(fd_node *n)
{
    free(n->n_share);
    n->n_share = NULL;
}

/* ---- the query ----------------------------------------------------------*/

/* One user summed over the nodes. */
typedef struct share_sum {
    const char *ss_name; /* in a node's block */
    uint64_t ss_wmin, ss_wmax, ss_running, ss_queued, ss_slot_ms, ss_nodes;
    uint32_t ss_next; /* 1 + the next sum of the same name hash, or 0 */
} share_sum;

/* The user table being summed: sums by name hash (value: 1 + index). */
typedef struct share_table {
    share_sum *st_sums; /* SK_MAX_STATUS_ROWS */
    uint32_t st_n;
    sk_map st_by_hash;
    uint64_t st_dropped; /* rows of users beyond SK_MAX_STATUS_ROWS */
} share_table;

/* The sum of name, started if new and there is room; NULL when there is
 * none (or no memory). */
static share_sum *sum_of(share_table *t, const char *name)
{
    uint64_t h = fd_name_hash(name);
    uintptr_t first = (uintptr_t)sk_map_get(&t->st_by_hash, h);
    for (uintptr_t k = first; k != 0; k = t->st_sums[k - 1].ss_next)
        if (strcmp(t->st_sums[k - 1].ss_name, name) == 0)
            return &t->st_sums[k - 1];
    if (t->st_n == SK_MAX_STATUS_ROWS ||
        sk_map_put(&t->st_by_hash, h, (void *)(uintptr_t)(t->st_n + 1)) != 0)
        return NULL;
    share_sum *s = &t->st_sums[t->st_n++];
    *s = (share_sum){
        .ss_name = name, .ss_wmin = UINT64_MAX, .ss_next = (uint32_t)first};
    return s;
}

static const char *const user_columns[] = {
    "user",   "weight_min", "weight_max", "running",
    "queued", "slot_ms",    "nodes"};
#define NUSERCOLS (sizeof user_columns / sizeof user_columns[0])

/* Writes t's sums as reply's table. Returns 0 or SK_ENOMEM. */
static int table_rows(fd_core *c, const share_table *t, sk_status_reply *reply)
{
    sk_status_row *rows = fd_scratch_alloc(c, (t->st_n + 1) * sizeof *rows);
    if (rows == NULL)
        return SK_ENOMEM;
    for (uint32_t i = 0; i < t->st_n; i++) {
        const share_sum *s = &t->st_sums[i];
        const char **cells = fd_scratch_alloc(c, NUSERCOLS * sizeof *cells);
        if (cells == NULL)
            return SK_ENOMEM;
        cells[0] = fd_scratch_printf(c, "%s", s->ss_name);
        cells[1] = fd_scratch_printf(c, "%" PRIu64, s->ss_wmin);
        cells[2] = fd_scratch_printf(c, "%" PRIu64, s->ss_wmax);
        cells[3] = fd_scratch_printf(c, "%" PRIu64, s->ss_running);
        cells[4] = fd_scratch_printf(c, "%" PRIu64, s->ss_queued);
        cells[5] = fd_scratch_printf(c, "%" PRIu64, s->ss_slot_ms);
        cells[6] = fd_scratch_printf(c, "%" PRIu64, s->ss_nodes);
        for (size_t k = 0; k < NUSERCOLS; k++)
            if (cells[k] == NULL)
                return SK_ENOMEM;
        rows[i].sw_cells = cells;
        rows[i].sw_ncells = NUSERCOLS;
    }
    reply->sr_columns = (const char **)user_columns;
    reply->sr_ncolumns = NUSERCOLS;
    reply->sr_rows = rows;
    reply->sr_nrows = t->st_n;
    return 0;
}

int fd_query_users(fd_core *c, sk_time now, sk_status_reply *reply)
{
    share_table t = {.st_sums = malloc(SK_MAX_STATUS_ROWS * sizeof *t.st_sums)};
    if (t.st_sums == NULL)
        return SK_ENOMEM;
    uint64_t nodes = 0, reporting = 0, cut = 0, kept = 0;
    sk_time oldest = now;
    for (uint32_t i = 0; i < c->c_nodes.sl_len; i++) {
        const fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n == NULL || n->n_dead)
            continue;
        nodes++;
        const fd_share_node *s = n->n_share;
        if (s == NULL)
            continue;
        reporting++;
        cut += s->sn_total - s->sn_n;
        kept += s->sn_n;
        oldest = s->sn_at < oldest ? s->sn_at : oldest;
        for (uint32_t r = 0; r < s->sn_n; r++) {
            const share_row *row = &s->sn_rows[r];
            share_sum *u = sum_of(&t, (const char *)s + row->sr_name);
            if (u == NULL) {
                t.st_dropped++;
                continue;
            }
            u->ss_wmin =
                row->sr_weight < u->ss_wmin ? row->sr_weight : u->ss_wmin;
            u->ss_wmax =
                row->sr_weight > u->ss_wmax ? row->sr_weight : u->ss_wmax;
            u->ss_running += row->sr_running;
            u->ss_queued += row->sr_queued;
            u->ss_slot_ms += row->sr_slot_ms;
            u->ss_nodes++;
        }
    }
    int rc = table_rows(c, &t, reply);
    /* The names live in the nodes' blocks: copied into the reply above,
     * so the sums can go now. */
    sk_map_free(&t.st_by_hash);
    free(t.st_sums);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "nodes", "%" PRIu64, nodes);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "nodes_reporting", "%" PRIu64, reporting);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "users", "%" PRIu32, reply->sr_nrows);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "users_dropped", "%" PRIu64, t.st_dropped);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "users_cut", "%" PRIu64, cut);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "rows", "%" PRIu64, kept);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "age_ms_max", "%" PRIu64,
                         (uint64_t)(now - oldest) / 1000);
    return rc;
}
