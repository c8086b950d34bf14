/*
 * fd_status.c - the flow node's STATUS_REPLY: key/value pairs (nodes,
 * long tasks running and waiting, the last round, counters) and a table
 * of nodes, built in the core's scratch memory.
 */
#include "fd_int.h"
#include "fd_share.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_KV 48

int fd_reply_kv(fd_core *c, sk_status_reply *reply, const char *key,
                const char *fmt, ...)
{
    if (reply->sr_kv == NULL) {
        reply->sr_kv = fd_scratch_alloc(c, MAX_KV * sizeof(sk_status_kv));
        if (reply->sr_kv == NULL)
            return SK_ENOMEM;
    }
    if (reply->sr_nkv >= MAX_KV)
        return 0;
    char val[SK_MAX_STATUS_LEN + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    char *v = fd_scratch_printf(c, "%s", val);
    if (v == NULL)
        return SK_ENOMEM;
    reply->sr_kv[reply->sr_nkv].kv_key = key;
    reply->sr_kv[reply->sr_nkv].kv_value = v;
    reply->sr_nkv++;
    return 0;
}

static const char *const text_column[] = {"text"};

/* A row of one cell: text[0..len) as a string. */
static int text_row(fd_core *c, sk_status_row *row, const char *text,
                    size_t len)
{
    const char **cell = fd_scratch_alloc(c, sizeof *cell);
    char *t = fd_scratch_alloc(c, len + 1);
    if (cell == NULL || t == NULL)
        return SK_ENOMEM;
    memcpy(t, text, len);
    t[len] = '\0';
    cell[0] = t;
    row->sw_cells = cell;
    row->sw_ncells = 1;
    return 0;
}

int fd_reply_text(fd_core *c, sk_status_reply *reply, const char *text,
                  size_t len, bool by_line)
{
    size_t cap = len / SK_MAX_STATUS_LEN + 1;
    if (by_line)
        for (size_t i = 0; i < len; i++)
            cap += text[i] == '\n';
    cap = cap < SK_MAX_STATUS_ROWS ? cap : SK_MAX_STATUS_ROWS;
    sk_status_row *rows = fd_scratch_alloc(c, cap * sizeof *rows);
    if (rows == NULL)
        return SK_ENOMEM;
    uint32_t n = 0;
    size_t at = 0;
    while (at < len && n < cap) {
        size_t piece =
            len - at < SK_MAX_STATUS_LEN ? len - at : SK_MAX_STATUS_LEN;
        size_t skip = 0;
        if (by_line) {
            const char *nl = memchr(text + at, '\n', piece);
            if (nl != NULL) {
                piece = (size_t)(nl - (text + at));
                skip = 1;
            } else if (at + piece < len && text[at + piece] == '\n') {
                skip = 1;
            }
        }
        if (text_row(c, &rows[n], text + at, piece) != 0)
            return SK_ENOMEM;
        n++;
        at += piece + skip;
    }
    reply->sr_columns = (const char **)text_column;
    reply->sr_ncolumns = 1;
    reply->sr_rows = rows;
    reply->sr_nrows = n;
    return 0;
}

int fd_reply_busy(fd_core *c, sk_status_reply *reply)
{
    int rc = fd_reply_kv(c, reply, "error", "busy: a round is being solved");
    return rc != 0 ? rc : fd_reply_kv(c, reply, "retry", "yes");
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

static int status(fd_core *c, const sk_status_request *req, sk_time now,
                  sk_status_reply *reply)
{
    const fd_stats *st = &c->c_st;
    int rc = 0;
#define KV(...)                                                                \
    do {                                                                       \
        if (rc == 0)                                                           \
            rc = fd_reply_kv(c, reply, __VA_ARGS__);                           \
    } while (0)
    KV("epoch", "%" PRIu64, c->c_epoch);
    KV("settling", "%s", now < c->c_settle_until ? "yes" : "no");
    KV("policy", "%s", c->c_pol->po_name);
    KV("nodes", "%" PRIu64, st->fs_nodes);
    KV("schedulers", "%" PRIu64, st->fs_schedulers);
    KV("schedulers_held", "%" PRIu64, st->fs_sched_held);
    KV("sched_reclaimed", "%" PRIu64, st->fs_sched_reclaimed);
    KV("sched_expired", "%" PRIu64, st->fs_sched_expired);
    KV("nodes_registered", "%" PRIu64, st->fs_nodes_up);
    KV("nodes_lost", "%" PRIu64, st->fs_nodes_down);
    KV("heartbeats", "%" PRIu64, st->fs_heartbeats);
    KV("jobs", "%" PRIu64, st->fs_jobs);
    KV("long_waiting", "%" PRIu64, st->fs_waiting);
    KV("long_reserved", "%" PRIu64, st->fs_reserved);
    KV("long_placed", "%" PRIu64, st->fs_placed);
    KV("long_running", "%" PRIu64, st->fs_running);
    KV("rounds", "%" PRIu64, st->fs_rounds);
    KV("round_pending_events", "%" PRIu64, c->c_events);
    KV("last_round_events", "%" PRIu64, st->fs_last_events);
    KV("last_round_solve_ms", "%.3f", st->fs_last_solve_ms);
    KV("last_round_algorithm", "%s", fc_algorithm_name(st->fs_last_alg));
    KV("last_round_placed", "%" PRIu64, st->fs_last_placed);
    KV("graph_nodes", "%" PRId32, st->fs_graph_nodes);
    KV("graph_arcs", "%" PRId32, st->fs_graph_arcs);
    KV("constrained_waiting", "%" PRIu64, st->fs_cx_waiting);
    KV("constraint_hard_broken", "%" PRIu64, st->fs_cx_hard);
    KV("constraint_soft_broken", "%" PRIu64, st->fs_cx_soft);
    KV("constraint_soft_weight", "%" PRIu64, st->fs_cx_soft_weight);
    KV("reserves", "%" PRIu64, st->fs_reserves);
    KV("rejects", "%" PRIu64, st->fs_rejects);
    KV("reserves_lost", "%" PRIu64, st->fs_reserve_lost);
    KV("releases", "%" PRIu64, st->fs_releases);
    KV("replanned", "%" PRIu64, st->fs_replanned);
    KV("tasks_ended", "%" PRIu64, st->fs_tasks_ended);
    KV("tasks_lost", "%" PRIu64, st->fs_tasks_lost);
    KV("tasks_failed", "%" PRIu64, st->fs_tasks_failed);
    KV("adopted", "%" PRIu64, st->fs_adopted);
    KV("unknown_killed", "%" PRIu64, st->fs_unknown_kill);
    KV("reclaimed", "%" PRIu64, st->fs_reclaimed);
    KV("reclaim_killed", "%" PRIu64, st->fs_reclaim_killed);
    KV("done_elsewhere", "%" PRIu64, st->fs_done_elsewhere);
    KV("jobs_rejected", "%" PRIu64, st->fs_jobs_rejected);
    KV("refused_limit", "%" PRIu64, st->fs_limit);
    KV("refused_field", "%" PRIu64, st->fs_bad_field);
    KV("refused_peer", "%" PRIu64, st->fs_bad_peer);
    KV("refused_type", "%" PRIu64, st->fs_bad_type);
    KV("unknown", "%" PRIu64, st->fs_unknown);
    KV("stale", "%" PRIu64, st->fs_stale);
    KV("net_errors", "%" PRIu64, st->fs_net_errors);
    KV("nomem", "%" PRIu64, st->fs_nomem);
#undef KV
    if (rc != 0)
        return rc;
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

/* ---- "jobs": the jobs held, one row each ------------------------------*/

static const char *const job_columns[] = {
    "sched",   "job",      "user",   "kind",    "tasks",
    "waiting", "reserved", "placed", "running", "nodes"};
#define NJOBCOLS (sizeof job_columns / sizeof job_columns[0])

/* "NAME:COUNT ..." of the job's tasks on nodes, cut to fit a cell, in
 * O(tasks): count[] (one per node slot, zero) and touched[] (as many)
 * are the caller's, and count[] is zero again on return. */
static char *job_nodes(fd_core *c, const fd_job *j, uint32_t *count,
                       uint32_t *touched)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        const fd_node *n = j->j_tasks[i].t_node;
        if (j->j_tasks[i].t_state == FD_TASK_DEAD || n == NULL)
            continue;
        if (count[n->n_slot]++ == 0)
            touched[nt++] = n->n_slot;
    }
    char buf[SK_MAX_STATUS_LEN + 1];
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < nt; i++) {
        const fd_node *n = fd_slots_get(&c->c_nodes, touched[i]);
        if (n != NULL && at < sizeof buf) {
            int w = snprintf(buf + at, sizeof buf - at, "%s%s:%" PRIu32,
                             at > 0 ? " " : "", n->n_name, count[touched[i]]);
            if (w < 0 || (size_t)w >= sizeof buf - at)
                buf[at] = '\0', at = sizeof buf; /* cut at a whole entry */
            else
                at += (size_t)w;
        }
        count[touched[i]] = 0;
    }
    return fd_scratch_printf(c, "%s", buf);
}

static int query_jobs(fd_core *c, sk_status_reply *reply)
{
    uint32_t cap = c->c_njobs < SK_MAX_STATUS_ROWS ? (uint32_t)c->c_njobs
                                                   : SK_MAX_STATUS_ROWS;
    sk_status_row *rows = fd_scratch_alloc(c, (cap + 1) * sizeof *rows);
    if (rows == NULL)
        return SK_ENOMEM;
    uint32_t nslots = c->c_nodes.sl_len + 1;
    uint32_t *count = fd_scratch_alloc(c, nslots * sizeof *count);
    uint32_t *touched = fd_scratch_alloc(c, nslots * sizeof *touched);
    if (count == NULL || touched == NULL)
        return SK_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len && n < cap; i++) {
        const fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j == NULL || j->j_dead)
            continue;
        uint32_t by_state[FD_TASK_DEAD + 1] = {0};
        for (uint32_t k = 0; k < j->j_ntasks; k++)
            by_state[j->j_tasks[k].t_state]++;
        const char **cells = fd_scratch_alloc(c, NJOBCOLS * sizeof *cells);
        if (cells == NULL)
            return SK_ENOMEM;
        cells[0] = fd_scratch_printf(c, "%" PRIu32,
                                     j->j_sched != NULL ? j->j_sched->s_id : 0);
        cells[1] = fd_scratch_printf(c, "%" PRIu64, j->j_id);
        cells[2] =
            fd_scratch_printf(c, "%.*s", (int)SK_MAX_STATUS_LEN, j->j_user);
        cells[3] = j->j_long ? "long" : "short";
        cells[4] = fd_scratch_printf(c, "%" PRIu32, j->j_live);
        cells[5] = fd_scratch_printf(c, "%" PRIu32, by_state[FD_TASK_WAITING]);
        cells[6] = fd_scratch_printf(c, "%" PRIu32, by_state[FD_TASK_RESERVED]);
        cells[7] = fd_scratch_printf(c, "%" PRIu32, by_state[FD_TASK_PLACED]);
        cells[8] = fd_scratch_printf(c, "%" PRIu32, by_state[FD_TASK_RUNNING]);
        cells[9] = job_nodes(c, j, count, touched);
        for (size_t k = 0; k < NJOBCOLS; k++)
            if (cells[k] == NULL)
                return SK_ENOMEM;
        rows[n].sw_cells = cells;
        rows[n].sw_ncells = NJOBCOLS;
        n++;
    }
    reply->sr_columns = (const char **)job_columns;
    reply->sr_ncolumns = NJOBCOLS;
    reply->sr_rows = rows;
    reply->sr_nrows = n;
    return fd_reply_kv(c, reply, "jobs", "%" PRIu64, c->c_njobs);
}

/* ---- the switch ---------------------------------------------------------*/

/* Whether q is word alone or word, a space and arguments (in *args). */
static bool is_query(const char *q, const char *word, const char **args)
{
    size_t n = strlen(word);
    if (strncmp(q, word, n) != 0 || (q[n] != '\0' && q[n] != ' '))
        return false;
    *args = q[n] == ' ' ? q + n + 1 : q + n;
    return true;
}

int fd_status_build(fd_core *c, const sk_status_request *req, sk_time now,
                    sk_status_reply *reply)
{
    memset(reply, 0, sizeof *reply);
    reply->sr_request = req->sq_request;
    reply->sr_role = SK_ROLE_FLOWD;
    reply->sr_name = c->c_cfg.fdc_name;
    reply->sr_time_us = now;
    const char *q = req->sq_query != NULL ? req->sq_query : "";
    const char *args;
    if (q[0] == '\0')
        return status(c, req, now, reply);
    if (is_query(q, "flow-dump", &args))
        return fd_query_dump(c, args, reply);
    if (is_query(q, "explain", &args))
        return fd_query_explain(c, args, now, reply);
    if (strcmp(q, "jobs") == 0)
        return query_jobs(c, reply);
    if (strcmp(q, "constraints") == 0)
        return fd_query_cons(c, reply);
    if (strcmp(q, "users") == 0)
        return fd_query_users(c, now, reply);
    c->c_st.fs_bad_field++;
    return fd_reply_kv(c, reply, "error",
                       "unknown query '%.100s' (flowd knows flow-dump, "
                       "explain, jobs, constraints and users)",
                       q);
}
