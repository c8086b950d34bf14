/*
 * sched_status.c - the scheduler core's STATUS_REPLY: its counters and
 * settings as key/value pairs, and on request a table of the jobs in
 * flight (at most SK_MAX_STATUS_ROWS of them): a user's own jobs only,
 * for a peer with a user token (sched_auth.c).
 */
#include "sched_int.h"

#include <inttypes.h>
#include <stdio.h>

/* Room for the key/value pairs below; SK_MAX_STATUS_KV bounds it. */
#define STATUS_KV 64

static const char *const COLUMNS[] = {
    "job",     "frontend", "fe_job", "user",   "tasks",
    "pending", "launched", "done",   "probes",
};
#define NCOLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

typedef struct kv_fill {
    sk_arena *kf_s;
    sk_status_kv *kf_kv;
    uint32_t kf_n;
} kv_fill;

static void kv_u64(kv_fill *f, const char *key, uint64_t v)
{
    if (f->kf_kv == NULL || f->kf_n >= STATUS_KV)
        return;
    f->kf_kv[f->kf_n].kv_key = key;
    f->kf_kv[f->kf_n].kv_value = sk_arena_printf(f->kf_s, "%" PRIu64, v);
    f->kf_n++;
}

static void fill_table(sched_core *c, sk_peer from, sk_status_reply *sr)
{
    sk_arena *s = &c->c_scratch;
    uint32_t rows = 0;
    for (sched_job *j = c->c_all; j != NULL && rows < SK_MAX_STATUS_ROWS;
         j = j->j_anext)
        rows += sched_auth_sees(c, from, j);
    sk_status_row *row = sk_arena_alloc(s, rows * sizeof *row + 1);
    if (row == NULL)
        return;
    sr->sr_columns = (const char **)COLUMNS;
    sr->sr_ncolumns = NCOLUMNS;
    uint32_t n = 0;
    for (sched_job *j = c->c_all; j != NULL && n < rows; j = j->j_anext) {
        if (!sched_auth_sees(c, from, j))
            continue;
        const char **cell = sk_arena_alloc(s, NCOLUMNS * sizeof *cell);
        if (cell == NULL)
            break;
        cell[0] = sk_arena_printf(s, "%" PRIu64, j->j_id);
        cell[1] = sk_arena_printf(s, "%u", j->j_fe->fe_peer);
        cell[2] = sk_arena_printf(s, "%" PRIu64, j->j_fe_job);
        cell[3] = sk_arena_printf(s, "%.*s", (int)SK_MAX_STATUS_LEN, j->j_user);
        cell[4] = sk_arena_printf(s, "%u", j->j_ntasks);
        cell[5] = sk_arena_printf(s, "%u", j->j_npending);
        cell[6] = sk_arena_printf(s, "%u", j->j_nlaunched);
        cell[7] = sk_arena_printf(s, "%u", j->j_ndone);
        cell[8] = sk_arena_printf(s, "%" PRIu64, j->j_resv_open);
        row[n].sw_cells = cell;
        row[n].sw_ncells = NCOLUMNS;
        n++;
    }
    sr->sr_rows = row;
    sr->sr_nrows = n;
}

void sched_status_reply(sched_core *c, sk_peer from,
                        const sk_status_request *rq, sk_time now)
{
    sk_msg *m = sched_send(c, from, SK_MSG_STATUS_REPLY);
    if (m == NULL)
        return;
    const sched_stats *st = &c->c_stats;
    sk_status_reply *sr = &m->m_status_reply;
    sr->sr_request = rq->sq_request;
    sr->sr_role = SK_ROLE_SCHEDULER;
    sr->sr_name = c->c_cfg.sc_name;
    sr->sr_time_us = now;
    kv_fill f = {
        &c->c_scratch,
        sk_arena_alloc(&c->c_scratch, STATUS_KV * sizeof(sk_status_kv)), 0};
    uint64_t bad = st->ss_bad_type + st->ss_bad_peer + st->ss_bad_field +
                   st->ss_unknown_job + st->ss_bad_state + st->ss_stale;
    /* Counted from the jobs themselves rather than kept in step, so that
     * the totals below are a check: tasks_submitted = tasks_ok + _failed
     * + _killed + _lost + _cancelled + _abandoned + tasks_in_flight. */
    uint64_t in_flight = 0;
    for (const sched_job *j = c->c_all; j != NULL; j = j->j_anext)
        in_flight += j->j_ntasks - j->j_ndone;
    kv_u64(&f, "id", (uint64_t)c->c_cfg.sc_id);
    kv_u64(&f, "nodes", st->ss_nodes);
    kv_u64(&f, "nodes_live", st->ss_live);
    kv_u64(&f, "memberships", st->ss_memberships);
    kv_u64(&f, "membership_unknown", st->ss_membership_unknown);
    kv_u64(&f, "frontends", st->ss_frontends);
    kv_u64(&f, "jobs", st->ss_jobs);
    kv_u64(&f, "job_bytes", st->ss_bytes);
    kv_u64(&f, "reservations_open", st->ss_resv_open);
    kv_u64(&f, "jobs_accepted", st->ss_jobs_accepted);
    kv_u64(&f, "jobs_rejected", st->ss_jobs_rejected);
    kv_u64(&f, "jobs_rejected_budget", st->ss_reject_budget);
    kv_u64(&f, "jobs_rejected_user", st->ss_reject_user);
    kv_u64(&f, "jobs_done", st->ss_jobs_done);
    kv_u64(&f, "jobs_cancelled", st->ss_jobs_cancelled);
    kv_u64(&f, "jobs_abandoned", st->ss_jobs_abandoned);
    kv_u64(&f, "tasks_submitted", st->ss_tasks_submitted);
    kv_u64(&f, "tasks_ok", st->ss_outcome[SK_TASK_OK]);
    kv_u64(&f, "tasks_failed", st->ss_outcome[SK_TASK_FAILED]);
    kv_u64(&f, "tasks_killed", st->ss_outcome[SK_TASK_KILLED]);
    kv_u64(&f, "tasks_lost", st->ss_outcome[SK_TASK_LOST]);
    kv_u64(&f, "tasks_cancelled", st->ss_outcome[SK_TASK_CANCELLED]);
    kv_u64(&f, "tasks_abandoned", st->ss_tasks_abandoned);
    kv_u64(&f, "tasks_in_flight", in_flight);
    kv_u64(&f, "tasks_launched", st->ss_tasks_launched);
    kv_u64(&f, "tasks_retried", st->ss_tasks_retried);
    kv_u64(&f, "enqueues", st->ss_enqueues);
    kv_u64(&f, "reservations", st->ss_reservations);
    kv_u64(&f, "reservations_resent", st->ss_resent);
    kv_u64(&f, "nothing_left", st->ss_nothing_left);
    kv_u64(&f, "cancels", st->ss_cancels);
    kv_u64(&f, "kills", st->ss_kills);
    kv_u64(&f, "fenced", st->ss_fenced);
    kv_u64(&f, "offers", st->ss_offers);
    kv_u64(&f, "offers_taken", st->ss_offers_taken);
    kv_u64(&f, "offers_kept", st->ss_offers_kept);
    kv_u64(&f, "offers_late", st->ss_offers_late);
    kv_u64(&f, "offers_refused", st->ss_offers_refused);
    kv_u64(&f, "offers_full", st->ss_offers_full);
    kv_u64(&f, "offers_expired", st->ss_offers_expired);
    kv_u64(&f, "offers_held", c->c_noffers);
    kv_u64(&f, "launch_timeouts", st->ss_launch_timeouts);
    kv_u64(&f, "flowd_connected", c->c_flowd_up ? 1 : 0);
    kv_u64(&f, "flowd_hellos", st->ss_flowd_up);
    kv_u64(&f, "flow_tasks", st->ss_flow_tasks);
    kv_u64(&f, "flow_fallback_tasks", st->ss_fallback_tasks);
    kv_u64(&f, "flow_submits", st->ss_flow_sent);
    kv_u64(&f, "flow_resent", st->ss_flow_resent);
    kv_u64(&f, "flow_started", st->ss_flow_started);
    kv_u64(&f, "flow_gave_up", st->ss_flow_gave_up);
    kv_u64(&f, "flow_refused", st->ss_flow_refused);
    kv_u64(&f, "bad_input", bad);
    kv_u64(&f, "unknown_reservations", st->ss_unknown_resv);
    kv_u64(&f, "nomem", st->ss_nomem);
    sr->sr_kv = f.kf_kv;
    sr->sr_nkv = f.kf_n;
    if (rq->sq_table)
        fill_table(c, from, sr);
}
