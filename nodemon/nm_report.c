/*
 * nm_report.c - what the node monitor core tells about itself: the
 * HEARTBEAT it sends flowd and the STATUS_REPLY it gives anyone who asks.
 */
#include "nm_int.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A user's slot time at now, microseconds: its finished tasks' and its
 * running tasks' time so far (running * now minus the sum of their start
 * times). */
static uint64_t slot_us(const nm_user *u, sk_time now)
{
    uint64_t all_now = (uint64_t)u->us_running * now;
    uint64_t run_us = all_now > u->us_start_sum ? all_now - u->us_start_sum : 0;
    return u->us_slot_us + run_us;
}

/* Gathering the users for a heartbeat: every tracked user (page 0), or
 * those named after the cycle's last name sent (the pages after). */
typedef struct usage_build {
    const nm_user **ub_users;
    uint32_t ub_n;
    const char *ub_after; /* NULL: every user */
} usage_build;

static void add_user(void *arg, const nm_user *u)
{
    usage_build *b = arg;
    if (b->ub_after == NULL || strcmp(u->us_name, b->ub_after) > 0)
        b->ub_users[b->ub_n++] = u;
}

/* Most active first: running, then queued, then slot time used. */
static int by_activity(const void *a, const void *b)
{
    const nm_user *x = *(const nm_user *const *)a;
    const nm_user *y = *(const nm_user *const *)b;
    if (x->us_running != y->us_running)
        return x->us_running > y->us_running ? -1 : 1;
    if (x->us_queued != y->us_queued)
        return x->us_queued > y->us_queued ? -1 : 1;
    if (x->us_slot_us != y->us_slot_us)
        return x->us_slot_us > y->us_slot_us ? -1 : 1;
    return strcmp(x->us_name, y->us_name);
}

static int by_name(const void *a, const void *b)
{
    const nm_user *x = *(const nm_user *const *)a;
    const nm_user *y = *(const nm_user *const *)b;
    return strcmp(x->us_name, y->us_name);
}

/* Fills hb's users summary with the cycle's next page (at most
 * SK_MAX_HB_USERS) from the scratch memory. Page 0 lists the most active
 * users; when the node tracks more, the pages after list every user in
 * name order, 64 a heartbeat, from the name after the last sent, and
 * the cycle ends with the page that reaches the last name (the users
 * beyond page 0 are counted in ns_hb_users_cut: they wait for those
 * pages). Returns false out of memory. Cost: O(users) for page 0 of a
 * node of 64 users or fewer, else O(users log users). */
static bool fill_users(nm_core *nm, sk_time now, sk_heartbeat *hb)
{
    uint32_t total = nm->nm_q.q_nusers;
    uint32_t page = nm->nm_users_page;
    usage_build b = {
        sk_arena_alloc(&nm->nm_scratch, (total + 1) * sizeof *b.ub_users), 0,
        page == 0 ? NULL : nm->nm_users_after};
    sk_usage *us =
        sk_arena_alloc(&nm->nm_scratch, SK_MAX_HB_USERS * sizeof *us);
    if (b.ub_users == NULL || us == NULL)
        return false;
    nm_queue_foreach(&nm->nm_q, add_user, &b);
    uint32_t n = b.ub_n;
    bool more = false; /* users left for the next page */
    if (page == 0 && n > SK_MAX_HB_USERS) {
        qsort(b.ub_users, n, sizeof *b.ub_users, by_activity);
        nm->nm_st.ns_hb_users_cut += n - SK_MAX_HB_USERS;
        n = SK_MAX_HB_USERS;
        more = true;
        nm->nm_users_after[0] = '\0'; /* before every name */
    } else if (page > 0) {
        qsort(b.ub_users, n, sizeof *b.ub_users, by_name);
        more = n > SK_MAX_HB_USERS && page < SK_MAX_HB_USER_PAGES;
        n = n > SK_MAX_HB_USERS ? SK_MAX_HB_USERS : n;
        if (more)
            strcpy(nm->nm_users_after, b.ub_users[n - 1]->us_name);
    }
    for (uint32_t i = 0; i < n; i++) {
        const nm_user *u = b.ub_users[i];
        us[i] = (sk_usage){.us_user = u->us_name,
                           .us_weight = u->us_weight,
                           .us_queued = u->us_queued,
                           .us_running = u->us_running,
                           .us_slot_ms = (slot_us(u, now) + 500) / 1000};
    }
    hb->hb_users = us;
    hb->hb_nusers = n;
    hb->hb_users_total = total;
    hb->hb_users_page = page;
    nm->nm_users_page = more ? page + 1 : 0;
    if (!more)
        nm->nm_users_next = now + NM_USERS_PERIOD_US;
    return true;
}

void nm_send_heartbeat(nm_core *nm, sk_time now)
{
    nm->nm_hb_next = now + (sk_time)nm->nm_cfg.nc_heartbeat_ms * 1000;
    sk_running *run =
        sk_arena_alloc(&nm->nm_scratch, nm->nm_nrunning * sizeof *run + 1);
    sk_msg *m =
        run == NULL ? NULL : nm_push(nm, nm->nm_flowd->pe_id, SK_MSG_HEARTBEAT);
    if (m == NULL) {
        nm->nm_st.ns_nomem++;
        return;
    }
    sk_heartbeat *hb = &m->m_heartbeat;
    hb->hb_node_id = (uint32_t)nm->nm_cfg.nc_node_id;
    hb->hb_node = nm->nm_cfg.nc_node;
    hb->hb_seq = nm->nm_hb_seq++;
    hb->hb_time_us = now;
    hb->hb_slots_total = nm->nm_slots_total;
    hb->hb_slots_used = nm->nm_nrunning + nm->nm_nfetching;
    hb->hb_slots_reserved = nm->nm_nlong;
    hb->hb_used.r_cpu_milli = (uint32_t)nm->nm_used_cpu;
    hb->hb_used.r_mem_mb = (uint32_t)nm->nm_used_mem;
    for (unsigned p = 0; p < SK_PRIORITIES; p++)
        hb->hb_queue[p] = nm->nm_q.q_levels[p].lv_len;
    uint32_t n = 0;
    for (nm_link *l = nm->nm_running.ln_next; l != &nm->nm_running;
         l = l->ln_next) {
        const nm_task *t = NM_CONTAINER(l, nm_task, tk_all);
        run[n].ru_job = t->tk_job_id;
        run[n].ru_task = t->tk_task;
        run[n].ru_attempt = t->tk_attempt;
        run[n].ru_launch_us = t->tk_start;
        run[n].ru_long = t->tk_was_long;
        run[n].ru_res = t->tk_res;
        n++;
    }
    hb->hb_running = run;
    hb->hb_nrunning = n;
    if (nm->nm_users_page > 0 || now >= nm->nm_users_next) {
        hb->hb_users_sent = fill_users(nm, now, hb);
        if (!hb->hb_users_sent) {
            hb->hb_nusers = hb->hb_users_total = hb->hb_users_page = 0;
            nm->nm_users_page = 0; /* a new cycle after the pause */
            nm->nm_users_next = now + NM_USERS_PERIOD_US;
            nm->nm_st.ns_nomem++;
        }
    }
    nm->nm_st.ns_heartbeats++;
}

/* Building a status reply in the scratch memory. */
typedef struct status_build {
    nm_core *sb_nm;
    sk_status_reply *sb_reply;
    sk_time sb_now;
    bool sb_failed;
} status_build;

static const char *fmt(status_build *b, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static const char *fmt(status_build *b, const char *format, ...)
{
    char text[SK_MAX_STATUS_LEN + 1];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    const char *s = sk_arena_strdup(&b->sb_nm->nm_scratch, text);
    if (s == NULL) {
        b->sb_failed = true;
        return "";
    }
    return s;
}

static void add_kv(status_build *b, const char *key, uint64_t value)
{
    sk_status_reply *r = b->sb_reply;
    if (r->sr_nkv == SK_MAX_STATUS_KV)
        return;
    r->sr_kv[r->sr_nkv].kv_key = key;
    r->sr_kv[r->sr_nkv].kv_value = fmt(b, "%" PRIu64, value);
    r->sr_nkv++;
}

static const char *const columns[] = {"user", "weight", "queued", "running",
                                      "slot_s"};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static void add_user_row(void *arg, const nm_user *u)
{
    status_build *b = arg;
    sk_status_reply *r = b->sb_reply;
    const char **cells =
        sk_arena_alloc(&b->sb_nm->nm_scratch, NCOLUMNS * sizeof *cells);
    if (cells == NULL) {
        b->sb_failed = true;
        return;
    }
    cells[0] = fmt(b, "%s", u->us_name);
    cells[1] = fmt(b, "%" PRIu32, u->us_weight);
    cells[2] = fmt(b, "%" PRIu32, u->us_queued);
    cells[3] = fmt(b, "%" PRIu32, u->us_running);
    cells[4] = fmt(b, "%.3f", (double)slot_us(u, b->sb_now) / 1e6);
    r->sr_rows[r->sr_nrows].sw_cells = cells;
    r->sr_rows[r->sr_nrows].sw_ncells = NCOLUMNS;
    r->sr_nrows++;
}

int nm_fill_status(nm_core *nm, const sk_status_request *req, sk_time now,
                   sk_status_reply *reply)
{
    status_build b = {nm, reply, now, false};
    const nm_stats *st = &nm->nm_st;
    memset(reply, 0, sizeof *reply);
    reply->sr_request = req->sq_request;
    reply->sr_role = SK_ROLE_NODEMON;
    reply->sr_name = nm->nm_cfg.nc_node;
    reply->sr_time_us = now;
    reply->sr_kv = sk_arena_alloc(&nm->nm_scratch,
                                  SK_MAX_STATUS_KV * sizeof *reply->sr_kv);
    if (reply->sr_kv == NULL)
        return SK_ENOMEM;
    add_kv(&b, "slots_total", nm->nm_slots_total);
    add_kv(&b, "slots_used", nm->nm_nrunning + nm->nm_nfetching);
    add_kv(&b, "slots_fetching", nm->nm_nfetching);
    add_kv(&b, "slots_reserved", nm->nm_nlong);
    add_kv(&b, "long_pending", nm->nm_npending);
    add_kv(&b, "running", nm->nm_nrunning);
    add_kv(&b, "queued", nm->nm_q.q_total);
    add_kv(&b, "cpu_total_milli", (uint64_t)nm->nm_cfg.nc_cpu_milli);
    add_kv(&b, "cpu_used_milli", nm->nm_used_cpu);
    add_kv(&b, "mem_total_mb", (uint64_t)nm->nm_cfg.nc_mem_mb);
    add_kv(&b, "mem_used_mb", nm->nm_used_mem);
    add_kv(&b, "users", nm->nm_q.q_nusers);
    add_kv(&b, "jobs", nm->nm_jobs.ht_count);
    add_kv(&b, "peers", nm->nm_npeers);
    add_kv(&b, "enqueued", st->ns_enqueued);
    add_kv(&b, "queue_full", st->ns_queue_full);
    add_kv(&b, "unfit", st->ns_unfit);
    add_kv(&b, "duplicate", st->ns_duplicate);
    add_kv(&b, "users_full", st->ns_users_full);
    add_kv(&b, "get_tasks", st->ns_get_tasks);
    add_kv(&b, "replies_task", st->ns_replies_task);
    add_kv(&b, "replies_empty", st->ns_replies_empty);
    add_kv(&b, "stale_replies", st->ns_stale_replies);
    add_kv(&b, "get_task_timeouts", st->ns_get_task_timeouts);
    add_kv(&b, "launched", st->ns_launched);
    add_kv(&b, "no_executor", st->ns_no_executor);
    add_kv(&b, "executor_away", st->ns_executor_away);
    add_kv(&b, "resv_away", st->ns_resv_away);
    add_kv(&b, "outcomes_late", st->ns_outcomes_late);
    add_kv(&b, "task_collisions", st->ns_task_collisions);
    add_kv(&b, "finished", st->ns_finished);
    add_kv(&b, "stale_finished", st->ns_stale_finished);
    add_kv(&b, "results_dropped", st->ns_results_dropped);
    add_kv(&b, "lost", st->ns_lost);
    add_kv(&b, "orphaned", st->ns_orphaned);
    add_kv(&b, "orphans_reclaimed", st->ns_orphans_reclaimed);
    add_kv(&b, "orphans_killed", st->ns_orphans_killed);
    add_kv(&b, "outcomes_kept", st->ns_outcomes_kept);
    add_kv(&b, "outcomes_offered", st->ns_outcomes_offered);
    add_kv(&b, "outcomes_full", st->ns_outcomes_full);
    add_kv(&b, "cancels", st->ns_cancels);
    add_kv(&b, "cancelled", st->ns_cancelled);
    add_kv(&b, "cancel_unknown", st->ns_cancel_unknown);
    add_kv(&b, "kills", st->ns_kills);
    add_kv(&b, "kill_unknown", st->ns_kill_unknown);
    add_kv(&b, "reserves", st->ns_reserves);
    add_kv(&b, "reserve_rejects", st->ns_reserve_rejects);
    add_kv(&b, "long_started", st->ns_long_started);
    add_kv(&b, "releases", st->ns_releases);
    add_kv(&b, "release_unknown", st->ns_release_unknown);
    add_kv(&b, "long_dropped", st->ns_long_dropped);
    add_kv(&b, "heartbeats", st->ns_heartbeats);
    add_kv(&b, "hb_users_cut", st->ns_hb_users_cut);
    add_kv(&b, "status_replies", st->ns_status_replies);
    add_kv(&b, "unexpected", st->ns_unexpected);
    add_kv(&b, "peers_full", st->ns_peers_full);
    add_kv(&b, "bad_hello", st->ns_bad_hello);
    add_kv(&b, "nomem", st->ns_nomem);
    if (req->sq_table) {
        reply->sr_columns = (const char **)columns;
        reply->sr_ncolumns = NCOLUMNS;
        reply->sr_rows = sk_arena_alloc(
            &nm->nm_scratch, (nm->nm_q.q_nusers + 1) * sizeof *reply->sr_rows);
        if (reply->sr_rows == NULL)
            return SK_ENOMEM;
        nm_queue_foreach(&nm->nm_q, add_user_row, &b);
    }
    return b.sb_failed ? SK_ENOMEM : 0;
}
