/*
 * sched_status.c - the scheduler core's STATUS_REPLY: its counters and
 * settings as key/value pairs, and on request a table of the jobs in
 * flight (at most SK_MAX_STATUS_ROWS of them) with their progress and
 * the percentiles of their launch waits; and the answers to two queries
 * (docs/PROTOCOL.md, STATUS_REQUEST): `users`, the same per user, and
 * `tasks JOB [FIRST]`, a job's tasks with their nodes, attempts,
 * outcomes and hand-overs to flowd (at most SCHED_STATUS_TASKS rows). A
 * peer with a user token sees its own jobs only (sched_auth.c).
 */
#include "sched_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of one answer to `tasks JOB FIRST`: a job has up to SK_MAX_TASKS
 * tasks, and 1,000 rows of 7 short cells stay near 40 KB on the wire. */
#define SCHED_STATUS_TASKS 1000

/* Room for the key/value pairs below; SK_MAX_STATUS_KV bounds it. */
#define STATUS_KV 64

static const char *const COLUMNS[] = {
    "job",      "frontend", "fe_job",      "user",        "tasks",
    "pending",  "launched", "done",        "probes",      "flow",
    "progress", "launches", "wait_p50_us", "wait_p99_us",
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

/* The q-quantile (nearest rank) of the launch waits counted in w (the
 * buckets of SCHED_WAIT_BOUNDS_US): the upper bound in microseconds of
 * the bucket that holds it, "inf" past the last bound, "" for none. */
static const char *wait_rank(sk_arena *s, const uint32_t *w, double q)
{
    uint64_t n = 0;
    for (uint32_t b = 0; b <= SCHED_WAIT_NBOUNDS; b++)
        n += w[b];
    if (n == 0)
        return "";
    uint64_t rank = (uint64_t)ceil(q * (double)n), seen = 0;
    rank = rank < 1 ? 1 : rank;
    uint32_t b = 0;
    for (; b < SCHED_WAIT_NBOUNDS; b++) {
        seen += w[b];
        if (seen >= rank)
            break;
    }
    if (b == SCHED_WAIT_NBOUNDS)
        return "inf";
    return sk_arena_printf(s, "%" PRIu64, SCHED_WAIT_BOUNDS_US[b]);
}

/* What the job and users tables say of some jobs: counts, progress (the
 * share of tasks done, percent, one decimal) and launch waits. */
typedef struct job_sum {
    uint64_t js_tasks, js_pending, js_launched, js_flow, js_done;
    uint32_t js_wait[SCHED_WAIT_NBOUNDS + 1];
} job_sum;

static void sum_add(job_sum *u, const sched_job *j)
{
    u->js_tasks += j->j_ntasks;
    u->js_pending += j->j_npending;
    u->js_launched += j->j_nlaunched;
    u->js_flow += j->j_nflow;
    u->js_done += j->j_ndone;
    for (uint32_t b = 0; b <= SCHED_WAIT_NBOUNDS; b++)
        u->js_wait[b] += j->j_wait[b];
}

/* Writes flow, progress, launches, wait_p50_us and wait_p99_us of u
 * into cell[0..5). */
static void sum_cells(sk_arena *s, const job_sum *u, const char **cell)
{
    uint64_t launches = 0;
    for (uint32_t b = 0; b <= SCHED_WAIT_NBOUNDS; b++)
        launches += u->js_wait[b];
    double pct =
        u->js_tasks ? 100.0 * (double)u->js_done / (double)u->js_tasks : 0;
    cell[0] = sk_arena_printf(s, "%" PRIu64, u->js_flow);
    cell[1] = sk_arena_printf(s, "%.1f", pct);
    cell[2] = sk_arena_printf(s, "%" PRIu64, launches);
    cell[3] = wait_rank(s, u->js_wait, 0.50);
    cell[4] = wait_rank(s, u->js_wait, 0.99);
}

static void kv_str(kv_fill *f, const char *key, const char *v)
{
    if (f->kf_kv == NULL || f->kf_n >= STATUS_KV || v == NULL)
        return;
    f->kf_kv[f->kf_n].kv_key = key;
    f->kf_kv[f->kf_n].kv_value = v;
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
        job_sum one = {0};
        sum_add(&one, j);
        sum_cells(s, &one, &cell[9]);
        row[n].sw_cells = cell;
        row[n].sw_ncells = NCOLUMNS;
        n++;
    }
    sr->sr_rows = row;
    sr->sr_nrows = n;
}

static int by_user(const void *a, const void *b)
{
    const sched_job *x = *(const sched_job *const *)a;
    const sched_job *y = *(const sched_job *const *)b;
    return strcmp(x->j_user, y->j_user);
}

/* The `users` query: one row per user with jobs in flight (those from
 * sees), at most SK_MAX_STATUS_ROWS, their jobs summed. Sorting the jobs
 * by user costs O(jobs log jobs) per request. */
static void fill_users(sched_core *c, sk_peer from, sk_status_reply *sr)
{
    static const char *const cols[] = {
        "user", "jobs",     "tasks",    "pending",     "launched",    "done",
        "flow", "progress", "launches", "wait_p50_us", "wait_p99_us",
    };
    enum { NC = sizeof cols / sizeof cols[0] };
    sk_arena *s = &c->c_scratch;
    size_t nj = 0;
    for (const sched_job *j = c->c_all; j != NULL; j = j->j_anext)
        nj += sched_auth_sees(c, from, j);
    sched_job **jobs = sk_arena_alloc(s, nj * sizeof *jobs + 1);
    sk_status_row *row = sk_arena_alloc(
        s,
        (nj < SK_MAX_STATUS_ROWS ? nj : SK_MAX_STATUS_ROWS) * sizeof *row + 1);
    if (jobs == NULL || row == NULL)
        return;
    size_t k = 0;
    for (sched_job *j = c->c_all; j != NULL; j = j->j_anext)
        if (sched_auth_sees(c, from, j))
            jobs[k++] = j;
    qsort(jobs, nj, sizeof *jobs, by_user);
    sr->sr_columns = (const char **)cols;
    sr->sr_ncolumns = NC;
    uint32_t n = 0;
    for (size_t i = 0; i < nj && n < SK_MAX_STATUS_ROWS;) {
        job_sum u = {0};
        size_t first = i;
        for (; i < nj && strcmp(jobs[i]->j_user, jobs[first]->j_user) == 0; i++)
            sum_add(&u, jobs[i]);
        const char **cell = sk_arena_alloc(s, NC * sizeof *cell);
        if (cell == NULL)
            break;
        cell[0] = sk_arena_printf(s, "%.*s", (int)SK_MAX_STATUS_LEN,
                                  jobs[first]->j_user);
        cell[1] = sk_arena_printf(s, "%zu", i - first);
        cell[2] = sk_arena_printf(s, "%" PRIu64, u.js_tasks);
        cell[3] = sk_arena_printf(s, "%" PRIu64, u.js_pending);
        cell[4] = sk_arena_printf(s, "%" PRIu64, u.js_launched);
        cell[5] = sk_arena_printf(s, "%" PRIu64, u.js_done);
        sum_cells(s, &u, &cell[6]);
        row[n].sw_cells = cell;
        row[n].sw_ncells = NC;
        n++;
    }
    sr->sr_rows = row;
    sr->sr_nrows = n;
}

static const char *task_state(const sched_task *t)
{
    static const char *const names[] = {
        [SCHED_TASK_PENDING] = "pending", [SCHED_TASK_LAUNCHED] = "launched",
        [SCHED_TASK_RUNNING] = "running", [SCHED_TASK_DONE] = "done",
        [SCHED_TASK_FLOW] = "flow",
    };
    return t->tk_state < sizeof names / sizeof names[0] &&
                   names[t->tk_state] != NULL
               ? names[t->tk_state]
               : "?";
}

static const char *outcome_name(uint8_t o)
{
    static const char *const names[] = {
        [SK_TASK_OK] = "ok",
        [SK_TASK_FAILED] = "failed",
        [SK_TASK_KILLED] = "killed",
        [SK_TASK_LOST] = "lost",
        [SK_TASK_CANCELLED] = "cancelled",
    };
    return o <= SK_TASK_STATUS_MAX && names[o] != NULL ? names[o] : "";
}

/* The node t is on or ended on: a done task keeps only its node's name
 * hash, and the name while the scheduler still knows a node of that
 * name ("-" once it left). */
static const char *task_node(const sched_core *c, const sched_task *t)
{
    if (t->tk_node != NULL)
        return t->tk_node->nd_name;
    if (t->tk_state != SCHED_TASK_DONE || t->tk_end_node == 0)
        return "";
    for (const sched_node *nd = sk_map_get(&c->c_names, t->tk_end_node);
         nd != NULL; nd = nd->nd_hnext)
        if (nd->nd_hash == t->tk_end_node)
            return nd->nd_name;
    return "-";
}

/* Parses "JOB [FIRST]" (decimal). Returns 0 or -1. */
static int tasks_args(const char *a, uint64_t *job, uint64_t *first)
{
    char *end;
    if (*a < '0' || *a > '9')
        return -1;
    *job = strtoull(a, &end, 10);
    *first = 0;
    if (*end == ' ' && end[1] >= '0' && end[1] <= '9')
        *first = strtoull(end + 1, &end, 10);
    return *end == '\0' ? 0 : -1;
}

/* The `tasks JOB [FIRST]` query: pairs job, user, tasks (all of them),
 * first, shown and handovers (its hand-over ids to flowd, newest first,
 * cut at SK_MAX_STATUS_LEN bytes); a row per task from FIRST, at most
 * SCHED_STATUS_TASKS: task, state, attempt, node, outcome, handover (the
 * id of the hand-over that holds or held it) and handover_task (its index
 * there, the TASK of flowd's explain). A job not in flight, or not the
 * asker's, is the pair error. */
static void fill_tasks(sched_core *c, sk_peer from, const char *args,
                       kv_fill *f, sk_status_reply *sr)
{
    static const char *const cols[] = {
        "task",    "state",    "attempt",       "node",
        "outcome", "handover", "handover_task",
    };
    enum { NC = sizeof cols / sizeof cols[0] };
    sk_arena *s = &c->c_scratch;
    uint64_t id, first;
    sched_job *j = NULL;
    if (tasks_args(args, &id, &first) == 0)
        j = sk_map_get(&c->c_jobs, id);
    if (j == NULL || !sched_auth_sees(c, from, j)) {
        kv_str(f, "error",
               sk_arena_printf(s,
                               "no job '%.64s' in flight here "
                               "(tasks JOB [FIRST], the job column)",
                               args));
        return;
    }
    uint32_t from_task = first < j->j_ntasks ? (uint32_t)first : j->j_ntasks;
    uint32_t rows = j->j_ntasks - from_task;
    rows = rows < SCHED_STATUS_TASKS ? rows : SCHED_STATUS_TASKS;
    char ids[SK_MAX_STATUS_LEN + 1] = "";
    size_t used = 0;
    for (const sched_flow *fl = j->j_flows; fl != NULL; fl = fl->fl_next) {
        int w = snprintf(ids + used, sizeof ids - used, "%s%" PRIu64,
                         used ? " " : "", fl->fl_id);
        if (w < 0 || (size_t)w >= sizeof ids - used) {
            ids[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
    kv_u64(f, "job", j->j_id);
    kv_str(f, "user",
           sk_arena_printf(s, "%.*s", (int)SK_MAX_STATUS_LEN, j->j_user));
    kv_u64(f, "tasks", j->j_ntasks);
    kv_u64(f, "first", from_task);
    kv_u64(f, "shown", rows);
    kv_str(f, "handovers", sk_arena_strdup(s, ids));
    sk_status_row *row = sk_arena_alloc(s, rows * sizeof *row + 1);
    if (row == NULL)
        return;
    sr->sr_columns = (const char **)cols;
    sr->sr_ncolumns = NC;
    uint32_t n = 0;
    for (; n < rows; n++) {
        const sched_task *t = &j->j_tasks[from_task + n];
        const char **cell = sk_arena_alloc(s, NC * sizeof *cell);
        if (cell == NULL)
            break;
        cell[0] = sk_arena_printf(s, "%" PRIu32, from_task + n);
        cell[1] = task_state(t);
        cell[2] = sk_arena_printf(s, "%" PRIu32, t->tk_attempt);
        cell[3] =
            sk_arena_printf(s, "%.*s", (int)SK_MAX_STATUS_LEN, task_node(c, t));
        cell[4] = outcome_name(t->tk_outcome);
        cell[5] = t->tk_flow != NULL
                      ? sk_arena_printf(s, "%" PRIu64, t->tk_flow->fl_id)
                      : "";
        cell[6] = t->tk_flow != NULL
                      ? sk_arena_printf(s, "%" PRIu32, t->tk_fidx)
                      : "";
        row[n].sw_cells = cell;
        row[n].sw_ncells = NC;
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
    const char *q = rq->sq_query != NULL ? rq->sq_query : "";
    if (strcmp(q, "users") == 0 || strncmp(q, "tasks ", 6) == 0) {
        if (q[0] == 'u')
            fill_users(c, from, sr);
        else
            fill_tasks(c, from, q + 6, &f, sr);
        sr->sr_kv = f.kf_kv;
        sr->sr_nkv = f.kf_n;
        return;
    }
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
    kv_u64(&f, "nodes_saturated", st->ss_saturated);
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
    kv_u64(&f, "reservations_saturated", st->ss_sat_probes);
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
    kv_u64(&f, "flow_moved", st->ss_flow_moved);
    kv_u64(&f, "flow_refused", st->ss_flow_refused);
    kv_u64(&f, "bad_input", bad);
    kv_u64(&f, "unknown_reservations", st->ss_unknown_resv);
    kv_u64(&f, "nomem", st->ss_nomem);
    sr->sr_kv = f.kf_kv;
    sr->sr_nkv = f.kf_n;
    if (rq->sq_table)
        fill_table(c, from, sr);
}
