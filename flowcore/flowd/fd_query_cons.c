/*
 * fd_query_cons.c - the "constraints" status query: the counters of the
 * constraint rounds as key/value pairs, and a table of the constrained
 * jobs with what their placements break, per application and per
 * constraint (after the last constraint round). Kept apart from the
 * plain status, whose pairs are nearly all taken.
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdio.h>

static const char *const cons_columns[] = {
    "sched", "job", "user", "constraints", "hard", "soft", "weight", "broken"};
#define NCOLS (sizeof cons_columns / sizeof cons_columns[0])

/* "3,0,1": the pairs broken per constraint, in the job's order. */
static const char *per_constraint(fd_core *c, const fd_cons_count *k)
{
    char buf[SK_MAX_CONSTRAINTS * 11 + 1];
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t q = 0; q < k->cc_ncons && q < SK_MAX_CONSTRAINTS; q++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%" PRIu32,
                               q > 0 ? "," : "", k->cc_broken[q]);
    return fd_scratch_printf(c, "%s", buf);
}

static int job_rows(fd_core *c, sk_status_reply *reply)
{
    uint32_t cap = c->c_njobs < SK_MAX_STATUS_ROWS ? (uint32_t)c->c_njobs
                                                   : SK_MAX_STATUS_ROWS;
    sk_status_row *rows = fd_scratch_alloc(c, (cap + 1) * sizeof *rows);
    if (rows == NULL)
        return SK_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len && n < cap; i++) {
        const fd_job *j = fd_slots_get(&c->c_jobs, i);
        const fd_cons_count *k =
            j != NULL && !j->j_dead ? fd_cons_counts(j) : NULL;
        if (k == NULL)
            continue;
        const char **cells = fd_scratch_alloc(c, NCOLS * sizeof *cells);
        if (cells == NULL)
            return SK_ENOMEM;
        cells[0] = fd_scratch_printf(c, "%" PRIu32,
                                     j->j_sched != NULL ? j->j_sched->s_id : 0);
        cells[1] = fd_scratch_printf(c, "%" PRIu64, j->j_id);
        cells[2] =
            fd_scratch_printf(c, "%.*s", (int)SK_MAX_STATUS_LEN, j->j_user);
        cells[3] = fd_scratch_printf(c, "%" PRIu32, k->cc_ncons);
        cells[4] = fd_scratch_printf(c, "%" PRIu32, k->cc_hard);
        cells[5] = fd_scratch_printf(c, "%" PRIu32, k->cc_soft);
        cells[6] = fd_scratch_printf(c, "%" PRIu64, k->cc_weight);
        cells[7] = per_constraint(c, k);
        for (size_t q = 0; q < NCOLS; q++)
            if (cells[q] == NULL)
                return SK_ENOMEM;
        rows[n].sw_cells = cells;
        rows[n].sw_ncells = NCOLS;
        n++;
    }
    reply->sr_columns = (const char **)cons_columns;
    reply->sr_ncolumns = NCOLS;
    reply->sr_rows = rows;
    reply->sr_nrows = n;
    return 0;
}

int fd_query_cons(fd_core *c, sk_status_reply *reply)
{
    const fd_stats *st = &c->c_st;
    int rc = job_rows(c, reply);
#define KV(k, v)                                                               \
    if (rc == 0)                                                               \
    rc = fd_reply_kv(c, reply, k, "%" PRIu64, (uint64_t)(v))
    KV("rounds", st->fs_cx_rounds);
    KV("placed", st->fs_cx_placed);
    KV("repair_moves", st->fs_cx_repaired);
    KV("spread_moves", st->fs_cx_spread);
    KV("rounds_bounded", st->fs_cx_bounded);
    KV("rounds_cut", st->fs_cx_cut);
    KV("rounds_skipped", st->fs_cx_skipped);
    KV("rounds_ruled_out", st->fs_cx_ruled_out);
    KV("held", st->fs_cx_held);
    KV("placed_after_wait", st->fs_cx_expired);
    KV("waiting", st->fs_cx_waiting);
    KV("pairs_checked", st->fs_cx_checked);
    KV("hard_broken", st->fs_cx_hard);
    KV("soft_broken", st->fs_cx_soft);
    KV("soft_weight", st->fs_cx_soft_weight);
    KV("jobs", reply->sr_nrows);
#undef KV
    return rc;
}
