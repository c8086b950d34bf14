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

/* One user a node listed; the latest listing wins. */
typedef struct share_row {
    char *sr_name;     /* owned */
    uint32_t sr_cycle; /* the node's cycle when last listed */
    uint32_t sr_next;  /* 1 + the next row of the same name hash, or 0 */
    uint32_t sr_weight, sr_queued, sr_running;
    uint64_t sr_slot_ms;
} share_row;

struct fd_share_node {
    share_row *sn_rows;
    uint32_t sn_n, sn_cap;
    sk_map sn_by_hash; /* name hash -> 1 + the first row of that hash */
    sk_time sn_at;     /* when the last page came */
    uint32_t sn_total; /* users the node tracks, as its last page said */
    uint32_t sn_cycle; /* pages 0 seen */
    uint32_t sn_page;  /* the page expected next */
    bool sn_whole;     /* every page of this cycle came in turn, and it
                          was not pruned yet */
};

/* The row named name (hash h), or NULL. */
static share_row *row_of(fd_share_node *s, uint64_t h, const char *name)
{
    uintptr_t k = (uintptr_t)sk_map_get(&s->sn_by_hash, h);
    for (; k != 0; k = s->sn_rows[k - 1].sr_next)
        if (strcmp(s->sn_rows[k - 1].sr_name, name) == 0)
            return &s->sn_rows[k - 1];
    return NULL;
}

/* Links row i into the map. Returns 0 or SK_ENOMEM. */
static int link_row(fd_share_node *s, uint32_t i)
{
    uint64_t h = fd_name_hash(s->sn_rows[i].sr_name);
    uintptr_t first = (uintptr_t)sk_map_get(&s->sn_by_hash, h);
    if (sk_map_put(&s->sn_by_hash, h, (void *)(uintptr_t)(i + 1)) != 0)
        return SK_ENOMEM;
    s->sn_rows[i].sr_next = (uint32_t)first;
    return 0;
}

/* A new row for name, or NULL over FD_SHARE_MAX_NODE_USERS (counted in
 * fs_share_over) or out of memory (fs_nomem). */
static share_row *add_row(fd_core *c, fd_share_node *s, const char *name)
{
    if (s->sn_n == FD_SHARE_MAX_NODE_USERS) {
        c->c_st.fs_share_over++;
        return NULL;
    }
    if (s->sn_n == s->sn_cap) {
        uint32_t cap = s->sn_cap == 0 ? SK_MAX_HB_USERS : 2 * s->sn_cap;
        cap = cap > FD_SHARE_MAX_NODE_USERS ? FD_SHARE_MAX_NODE_USERS : cap;
        share_row *grown = realloc(s->sn_rows, cap * sizeof *grown);
        if (grown == NULL) {
            c->c_st.fs_nomem++;
            return NULL;
        }
        s->sn_rows = grown;
        s->sn_cap = cap;
    }
    share_row *r = &s->sn_rows[s->sn_n];
    *r = (share_row){.sr_name = strdup(name)};
    if (r->sr_name == NULL || link_row(s, s->sn_n) != 0) {
        free(r->sr_name);
        c->c_st.fs_nomem++;
        return NULL;
    }
    s->sn_n++;
    return r;
}

/* Drops the rows that keep(row, arg) refuses, then relinks the map.
 * Returns 0 or SK_ENOMEM (the map could not be rebuilt). O(rows). */
static int prune(fd_share_node *s, bool (*keep)(const share_row *, uint32_t),
                 uint32_t arg)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->sn_n; i++) {
        if (keep(&s->sn_rows[i], arg))
            s->sn_rows[n++] = s->sn_rows[i];
        else
            free(s->sn_rows[i].sr_name);
    }
    if (n == s->sn_n)
        return 0;
    s->sn_n = n;
    sk_map_free(&s->sn_by_hash);
    if (sk_map_reserve(&s->sn_by_hash, n) != 0)
        return SK_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (link_row(s, i) != 0)
            return SK_ENOMEM;
    return 0;
}

static bool listed_in(const share_row *r, uint32_t cycle)
{
    return r->sr_cycle == cycle;
}

/* Whether hb's page is its cycle's last: a page 0 with every user, or a
 * later one not full (a node monitor fills every page but the last); a
 * last page of exactly 64 is known at the next page 0. */
static bool last_page(const sk_heartbeat *hb)
{
    if (hb->hb_users_page == 0)
        return hb->hb_nusers == hb->hb_users_total;
    return hb->hb_nusers < SK_MAX_HB_USERS ||
           hb->hb_users_page == SK_MAX_HB_USER_PAGES;
}

/* Takes hb's page into s. Returns 0 or SK_ENOMEM. */
static int take_page(fd_core *c, sk_time now, fd_share_node *s,
                     const sk_heartbeat *hb)
{
    if (hb->hb_users_page == 0) {
        /* The last cycle ended, if its last page was not known as such. */
        if (s->sn_whole && prune(s, listed_in, s->sn_cycle) != 0)
            return SK_ENOMEM;
        s->sn_cycle++;
        s->sn_whole = true;
    } else if (hb->hb_users_page != s->sn_page) {
        c->c_st.fs_share_gaps++; /* lost or out of turn: keep, drop none */
        s->sn_whole = false;
    }
    s->sn_page = hb->hb_users_page + 1;
    s->sn_at = now;
    s->sn_total = hb->hb_users_total;
    bool ends = last_page(hb) && s->sn_whole;
    for (uint32_t i = 0; i < hb->hb_nusers; i++) {
        const sk_usage *u = &hb->hb_users[i];
        share_row *r = row_of(s, fd_name_hash(u->us_user), u->us_user);
        /* A new user while the node announces no more than are kept:
         * some kept have left, dropped at the cycle's end; it waits for
         * the next cycle unless this page ends this one. */
        if (r == NULL && s->sn_n >= hb->hb_users_total && !ends)
            continue;
        if (r == NULL && (r = add_row(c, s, u->us_user)) == NULL)
            continue;
        r->sr_cycle = s->sn_cycle;
        r->sr_weight = u->us_weight;
        r->sr_queued = u->us_queued;
        r->sr_running = u->us_running;
        r->sr_slot_ms = u->us_slot_ms;
    }
    if (ends) {
        /* A whole cycle without them: the users not listed have left. */
        s->sn_whole = false; /* pruned: nothing more at the next page 0 */
        return prune(s, listed_in, s->sn_cycle);
    }
    return 0;
}

void fd_share_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                           const sk_heartbeat *hb)
{
    if (!hb->hb_users_sent)
        return; /* the last pages stand */
    if (n->n_share == NULL &&
        (n->n_share = calloc(1, sizeof *n->n_share)) == NULL) {
        c->c_st.fs_nomem++;
        return;
    }
    if (take_page(c, now, n->n_share, hb) != 0) {
        fd_share_forget(n);
        c->c_st.fs_nomem++;
    }
}

void fd_share_forget(fd_node *n)
{
    fd_share_node *s = n->n_share;
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < s->sn_n; i++)
        free(s->sn_rows[i].sr_name);
    free(s->sn_rows);
    sk_map_free(&s->sn_by_hash);
    free(s);
    n->n_share = NULL;
}

/* ---- the query ----------------------------------------------------------*/

/* One user summed over the nodes. */
typedef struct share_sum {
    const char *ss_name; /* a node's row's */
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
        cut += s->sn_total > s->sn_n ? s->sn_total - s->sn_n : 0;
        kept += s->sn_n;
        oldest = s->sn_at < oldest ? s->sn_at : oldest;
        for (uint32_t r = 0; r < s->sn_n; r++) {
            const share_row *row = &s->sn_rows[r];
            share_sum *u = sum_of(&t, row->sr_name);
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
    /* The names live in the nodes' rows: copied into the reply above,
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
        rc = fd_reply_kv(c, reply, "users_over", "%" PRIu64,
                         c->c_st.fs_share_over);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "page_gaps", "%" PRIu64,
                         c->c_st.fs_share_gaps);
    if (rc == 0)
        rc = fd_reply_kv(c, reply, "age_ms_max", "%" PRIu64,
                         (uint64_t)(now - oldest) / 1000);
    return rc;
}
