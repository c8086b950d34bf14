/*
 * test_proto_gen.c - random valid protocol messages and their comparison
 * (see test_proto_gen.h). Every message type and field is spelled out by
 * hand here, apart from the protocol's own tables.
 */
#include "test_proto_gen.h"

#include <stdlib.h>
#include <string.h>

void pg_init(pg *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    sk_rng_seed(&g->pg_rng, seed);
    g->pg_max_list = 6;
}

void pg_free(pg *g)
{
    for (size_t i = 0; i < g->pg_n; i++)
        free(g->pg_ptrs[i]);
    free(g->pg_ptrs);
    g->pg_ptrs = NULL;
    g->pg_n = g->pg_cap = 0;
}

static void *alloc(pg *g, size_t size)
{
    if (g->pg_n == g->pg_cap) {
        g->pg_cap = g->pg_cap ? g->pg_cap * 2 : 64;
        g->pg_ptrs = realloc(g->pg_ptrs, g->pg_cap * sizeof *g->pg_ptrs);
        if (g->pg_ptrs == NULL)
            abort();
    }
    void *p = calloc(1, size ? size : 1);
    if (p == NULL)
        abort();
    g->pg_ptrs[g->pg_n++] = p;
    return p;
}

static uint64_t below(pg *g, uint64_t n)
{
    return sk_rng_below(&g->pg_rng, n);
}

/* A value in [lo, hi], often one of the edges. */
static uint64_t range(pg *g, uint64_t lo, uint64_t hi)
{
    switch (below(g, 5)) {
    case 0:
        return lo;
    case 1:
        return hi;
    default:
        if (hi - lo == UINT64_MAX)
            return sk_rng_next(&g->pg_rng);
        /* Small values are the common case on the wire; big ones test
         * the wide encodings. */
        if (below(g, 2) == 0 && hi - lo > 300)
            return lo + below(g, 300);
        return lo + below(g, hi - lo + 1);
    }
}

static uint64_t u64(pg *g)
{
    return range(g, 0, UINT64_MAX);
}

static uint32_t u32(pg *g)
{
    return (uint32_t)range(g, 0, UINT32_MAX);
}

/* A length in [0, max], often 0 or max. */
static uint32_t length(pg *g, uint32_t max)
{
    uint32_t small = max < 12 ? max : 12;
    switch (below(g, 6)) {
    case 0:
        return 0;
    case 1:
        return max;
    default:
        return (uint32_t)below(g, small + 1);
    }
}

static const char *str(pg *g, uint32_t max)
{
    uint32_t n = length(g, max);
    char *s = alloc(g, (size_t)n + 1);
    for (uint32_t i = 0; i < n; i++)
        s[i] = (char)(1 + below(g, 255)); /* any byte but NUL */
    /* NULL is how a C caller says "", and must encode as "". */
    if (n == 0 && below(g, 2) == 0)
        return NULL;
    return s;
}

static sk_bytes bytes(pg *g, uint32_t max)
{
    sk_bytes b = {NULL, length(g, max)};
    if (b.b_len > 0) {
        uint8_t *p = alloc(g, b.b_len);
        for (uint32_t i = 0; i < b.b_len; i++)
            p[i] = (uint8_t)below(g, 256);
        b.b_data = p;
    }
    return b;
}

static uint32_t count(pg *g, uint32_t max)
{
    return (uint32_t)below(g,
                           (max < g->pg_max_list ? max : g->pg_max_list) + 1);
}

static const char **strs(pg *g, uint32_t maxn, uint32_t maxlen, uint32_t *n)
{
    *n = count(g, maxn);
    if (*n == 0)
        return NULL;
    const char **v = alloc(g, *n * sizeof *v);
    for (uint32_t i = 0; i < *n; i++)
        v[i] = str(g, maxlen);
    return v;
}

static sk_resources res(pg *g)
{
    sk_resources r = {u32(g), u32(g)};
    return r;
}

static uint32_t task_index(pg *g)
{
    return (uint32_t)range(g, 0, SK_MAX_TASKS - 1);
}

static uint32_t attempt(pg *g)
{
    return (uint32_t)range(g, 0, SK_MAX_ATTEMPTS - 1);
}

static uint8_t prio(pg *g)
{
    return (uint8_t)range(g, 0, SK_PRIORITIES - 1);
}

/* A tag of the constraint language: 1..SK_MAX_TAG_LEN name bytes. */
static const char *tag(pg *g)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"
                              "UVWXYZ0123456789_.-";
    uint32_t n = 1 + length(g, SK_MAX_TAG_LEN - 1);
    char *s = alloc(g, (size_t)n + 1);
    for (uint32_t i = 0; i < n; i++)
        s[i] = set[below(g, sizeof set - 1)];
    return s;
}

static const char **tags(pg *g, uint32_t *n)
{
    *n = count(g, SK_MAX_TAGS);
    if (*n == 0)
        return NULL;
    const char **v = alloc(g, *n * sizeof *v);
    for (uint32_t i = 0; i < *n; i++)
        v[i] = tag(g);
    return v;
}

static void fill_constraint(pg *g, sk_constraint *c)
{
    c->cn_source = tag(g);
    c->cn_count = (uint32_t)range(g, 0, SK_MAX_TASKS);
    c->cn_group = (uint8_t)range(g, 0, SK_GROUP_MAX);
    c->cn_label = c->cn_group == SK_GROUP_LABEL ? tag(g) : "";
    c->cn_target = tag(g);
    c->cn_all = below(g, 2);
    c->cn_min = (uint32_t)range(g, 0, SK_MAX_TASKS);
    c->cn_max = below(g, 3) == 0 ? SK_CARD_ANY
                                 : (uint32_t)range(g, c->cn_min, SK_MAX_TASKS);
    c->cn_weight = (uint32_t)range(g, 0, SK_MAX_WEIGHT);
}

static void fill_hello(pg *g, sk_hello *m)
{
    m->he_role = (uint8_t)range(g, 1, SK_ROLE_MAX);
    m->he_id = u32(g);
    m->he_incarnation = u64(g);
    m->he_name = str(g, SK_MAX_NAME_LEN);
    m->he_addrs = strs(g, SK_MAX_ADDRS, SK_MAX_ADDR_LEN, &m->he_naddrs);
    m->he_slots = (uint32_t)range(g, 0, SK_MAX_SLOTS);
    m->he_res = res(g);
    m->he_labels = strs(g, SK_MAX_LABELS, SK_MAX_LABEL_LEN, &m->he_nlabels);
    m->he_framework = str(g, SK_MAX_NAME_LEN);
    m->he_rack = str(g, SK_MAX_NAME_LEN);
}

static void fill_submit(pg *g, sk_submit_job *m)
{
    m->sj_job = u64(g);
    m->sj_user = str(g, SK_MAX_NAME_LEN);
    m->sj_priority = prio(g);
    switch (below(g, 3)) {
    case 0:
        m->sj_probe_ratio = 0.0;
        break;
    case 1:
        m->sj_probe_ratio = 1.0 + (double)below(g, 8) / 4.0;
        break;
    default:
        m->sj_probe_ratio =
            1.0 + sk_rng_double(&g->pg_rng) * (SK_MAX_PROBE_RATIO - 1.0);
    }
    m->sj_labels = strs(g, SK_MAX_LABELS, SK_MAX_LABEL_LEN, &m->sj_nlabels);
    m->sj_res = res(g);
    m->sj_long = below(g, 2);
    m->sj_est_task_us = u64(g);
    m->sj_max_attempts = (uint32_t)range(g, 0, SK_MAX_ATTEMPTS);
    m->sj_framework = str(g, SK_MAX_NAME_LEN);
    m->sj_ntasks = 1 + count(g, SK_MAX_TASKS - 1);
    m->sj_tasks = alloc(g, m->sj_ntasks * sizeof *m->sj_tasks);
    /* Refs name tasks under a key, increasing (a resubmission's skip the
     * tasks that ended); without a key they are 0. */
    m->sj_key = below(g, 2) ? u64(g) | 1 : 0;
    uint32_t ref = 0;
    for (uint32_t i = 0; i < m->sj_ntasks; i++) {
        sk_task_spec *t = &m->sj_tasks[i];
        t->ts_spec = bytes(g, below(g, 8) ? 64 : SK_MAX_SPEC_BYTES);
        t->ts_preferred =
            strs(g, SK_MAX_PREFERRED, SK_MAX_NAME_LEN, &t->ts_npreferred);
        t->ts_racks = strs(g, SK_MAX_PREFERRED, SK_MAX_NAME_LEN, &t->ts_nracks);
        t->ts_attempt = (uint32_t)range(g, 0, SK_MAX_ATTEMPTS - 1);
        t->ts_done = below(g, 2);
        t->ts_tags = tags(g, &t->ts_ntags);
        if (m->sj_key != 0) {
            if (i > 0)
                ref += m->sj_ntasks < SK_MAX_TASKS / 2 ? 1 + below(g, 2) : 1;
            t->ts_ref = ref;
        }
    }
    m->sj_placement = (uint8_t)range(g, 0, SK_PLACE_MAX);
    m->sj_nconstraints = count(g, SK_MAX_CONSTRAINTS);
    m->sj_constraints =
        alloc(g, m->sj_nconstraints * sizeof *m->sj_constraints);
    for (uint32_t i = 0; i < m->sj_nconstraints; i++)
        fill_constraint(g, &m->sj_constraints[i]);
}

static void fill_heartbeat(pg *g, sk_heartbeat *m)
{
    m->hb_node_id = u32(g);
    m->hb_node = str(g, SK_MAX_NAME_LEN);
    m->hb_seq = u64(g);
    m->hb_time_us = u64(g);
    m->hb_slots_total = (uint32_t)range(g, 0, SK_MAX_SLOTS);
    m->hb_slots_used = (uint32_t)range(g, 0, m->hb_slots_total);
    m->hb_slots_reserved = (uint32_t)range(g, 0, m->hb_slots_total);
    m->hb_used = res(g);
    for (unsigned i = 0; i < SK_PRIORITIES; i++)
        m->hb_queue[i] = u32(g);
    m->hb_nrunning = count(g, SK_MAX_SLOTS);
    m->hb_running = m->hb_nrunning
                        ? alloc(g, m->hb_nrunning * sizeof *m->hb_running)
                        : NULL;
    for (uint32_t i = 0; i < m->hb_nrunning; i++) {
        sk_running *r = &m->hb_running[i];
        r->ru_job = u64(g);
        r->ru_task = task_index(g);
        r->ru_attempt = attempt(g);
        r->ru_launch_us = u64(g);
        r->ru_long = below(g, 2);
        r->ru_res = res(g);
    }
    m->hb_nusers = count(g, SK_MAX_HB_USERS);
    m->hb_users =
        m->hb_nusers ? alloc(g, m->hb_nusers * sizeof *m->hb_users) : NULL;
    for (uint32_t i = 0; i < m->hb_nusers; i++) {
        sk_usage *u = &m->hb_users[i];
        u->us_user = str(g, SK_MAX_NAME_LEN);
        u->us_weight = (uint32_t)range(g, 1, SK_MAX_USER_WEIGHT);
        u->us_queued = u32(g);
        u->us_running = (uint32_t)range(g, 0, SK_MAX_SLOTS);
        u->us_slot_ms = u64(g);
    }
    m->hb_users_total = (uint32_t)range(g, m->hb_nusers, UINT32_MAX);
    m->hb_users_page = (uint32_t)range(g, 0, SK_MAX_HB_USER_PAGES);
    m->hb_users_sent = m->hb_nusers > 0 || m->hb_users_total > 0 ||
                       m->hb_users_page > 0 || below(g, 2);
}

static void fill_membership(pg *g, sk_membership *m)
{
    m->mb_epoch = u64(g);
    m->mb_full = below(g, 2);
    m->mb_nnodes = count(g, SK_MAX_NODES);
    m->mb_nodes =
        m->mb_nnodes ? alloc(g, m->mb_nnodes * sizeof *m->mb_nodes) : NULL;
    for (uint32_t i = 0; i < m->mb_nnodes; i++) {
        sk_member *e = &m->mb_nodes[i];
        e->me_id = u32(g);
        e->me_name = str(g, SK_MAX_NAME_LEN);
        e->me_addr = str(g, SK_MAX_ADDR_LEN);
        e->me_state = (uint8_t)range(g, 1, SK_NODE_STATE_MAX);
        e->me_slots = (uint32_t)range(g, 0, SK_MAX_SLOTS);
        e->me_res = res(g);
        e->me_labels = strs(g, SK_MAX_LABELS, SK_MAX_LABEL_LEN, &e->me_nlabels);
    }
}

static void fill_status_reply(pg *g, sk_status_reply *m)
{
    m->sr_request = u64(g);
    m->sr_role = (uint8_t)range(g, 1, SK_ROLE_MAX);
    m->sr_name = str(g, SK_MAX_NAME_LEN);
    m->sr_time_us = u64(g);
    m->sr_nkv = count(g, SK_MAX_STATUS_KV);
    m->sr_kv = m->sr_nkv ? alloc(g, m->sr_nkv * sizeof *m->sr_kv) : NULL;
    for (uint32_t i = 0; i < m->sr_nkv; i++) {
        m->sr_kv[i].kv_key = str(g, SK_MAX_STATUS_LEN);
        m->sr_kv[i].kv_value = str(g, SK_MAX_STATUS_LEN);
    }
    m->sr_columns =
        strs(g, SK_MAX_STATUS_COLS, SK_MAX_STATUS_LEN, &m->sr_ncolumns);
    m->sr_nrows = count(g, SK_MAX_STATUS_ROWS);
    m->sr_rows =
        m->sr_nrows ? alloc(g, m->sr_nrows * sizeof *m->sr_rows) : NULL;
    for (uint32_t i = 0; i < m->sr_nrows; i++) {
        sk_status_row *r = &m->sr_rows[i];
        r->sw_ncells = m->sr_ncolumns;
        r->sw_cells =
            r->sw_ncells ? alloc(g, r->sw_ncells * sizeof(char *)) : NULL;
        for (uint32_t c = 0; c < r->sw_ncells; c++)
            r->sw_cells[c] = str(g, SK_MAX_STATUS_LEN);
    }
}

void pg_fill(pg *g, sk_msg_type type, sk_msg *msg)
{
    memset(msg, 0, sizeof *msg);
    msg->m_type = type;
    switch (type) {
    case SK_MSG_HELLO:
        fill_hello(g, &msg->m_hello);
        break;
    case SK_MSG_SUBMIT_JOB:
        fill_submit(g, &msg->m_submit_job);
        break;
    case SK_MSG_JOB_ACCEPTED:
    case SK_MSG_JOB_REJECTED:
        msg->m_job_ack.ja_job = u64(g);
        msg->m_job_ack.ja_reason = str(g, SK_MAX_REASON_LEN);
        break;
    case SK_MSG_ENQUEUE_RESERVATION: {
        sk_enqueue *m = &msg->m_enqueue;
        m->er_job = u64(g);
        m->er_resv = u64(g);
        m->er_sched = u32(g);
        m->er_user = str(g, SK_MAX_NAME_LEN);
        m->er_priority = prio(g);
        m->er_count = (uint32_t)range(g, 1, SK_MAX_TASKS);
        m->er_res = res(g);
        m->er_task = below(g, 2) ? SK_TASK_ANY : task_index(g);
        break;
    }
    case SK_MSG_GET_TASK: {
        sk_get_task *m = &msg->m_get_task;
        m->gt_job = u64(g);
        m->gt_resv = u64(g);
        m->gt_node_id = u32(g);
        m->gt_node = str(g, SK_MAX_NAME_LEN);
        break;
    }
    case SK_MSG_TASK_REPLY: {
        sk_task_reply *m = &msg->m_task_reply;
        m->tr_job = u64(g);
        m->tr_resv = u64(g);
        m->tr_has_task = below(g, 4) != 0;
        if (m->tr_has_task) {
            m->tr_task = task_index(g);
            m->tr_attempt = attempt(g);
            m->tr_spec = bytes(g, SK_MAX_SPEC_BYTES);
            m->tr_framework = str(g, SK_MAX_NAME_LEN);
            m->tr_key = below(g, 2) ? u64(g) : 0;
            m->tr_ref = task_index(g);
        }
        break;
    }
    case SK_MSG_CANCEL_RESERVATIONS:
        msg->m_cancel_resv.cr_job = u64(g);
        break;
    case SK_MSG_LAUNCH_TASK: {
        sk_launch *m = &msg->m_launch;
        m->lt_job = u64(g);
        m->lt_task = task_index(g);
        m->lt_attempt = attempt(g);
        m->lt_user = str(g, SK_MAX_NAME_LEN);
        m->lt_res = res(g);
        m->lt_spec = bytes(g, SK_MAX_SPEC_BYTES);
        m->lt_framework = str(g, SK_MAX_NAME_LEN);
        break;
    }
    case SK_MSG_TASK_STARTED: {
        sk_task_started *m = &msg->m_task_started;
        m->st_job = u64(g);
        m->st_task = task_index(g);
        m->st_attempt = attempt(g);
        m->st_node = str(g, SK_MAX_NAME_LEN);
        m->st_launch_us = u64(g);
        break;
    }
    case SK_MSG_TASK_FINISHED: {
        sk_task_finished *m = &msg->m_task_finished;
        m->tf_job = u64(g);
        m->tf_task = task_index(g);
        m->tf_attempt = attempt(g);
        m->tf_node = str(g, SK_MAX_NAME_LEN);
        m->tf_status = (uint8_t)range(g, 1, SK_TASK_STATUS_MAX);
        m->tf_exit = (int32_t)(uint32_t)u32(g);
        m->tf_output = bytes(g, SK_MAX_OUTPUT_BYTES);
        m->tf_launch_us = u64(g);
        m->tf_end_us = u64(g);
        break;
    }
    case SK_MSG_CANCEL_JOB:
        msg->m_cancel_job.cj_job = u64(g);
        msg->m_cancel_job.cj_reason = str(g, SK_MAX_REASON_LEN);
        break;
    case SK_MSG_JOB_DONE: {
        sk_job_done *m = &msg->m_job_done;
        m->jd_job = u64(g);
        m->jd_tasks = (uint32_t)range(g, 0, SK_MAX_TASKS);
        uint32_t left = m->jd_tasks;
        uint32_t *parts[] = {&m->jd_ok, &m->jd_failed, &m->jd_killed,
                             &m->jd_lost};
        for (unsigned i = 0; i < 4; i++) {
            *parts[i] = (uint32_t)range(g, 0, left);
            left -= *parts[i];
        }
        m->jd_cancelled = left;
        m->jd_end_us = u64(g);
        break;
    }
    case SK_MSG_KILL_TASK:
        msg->m_kill_task.kt_job = u64(g);
        msg->m_kill_task.kt_task = below(g, 3) ? task_index(g) : SK_TASK_ANY;
        msg->m_kill_task.kt_attempt = attempt(g);
        break;
    case SK_MSG_RESERVE: {
        sk_reserve *m = &msg->m_reserve;
        m->rv_resv = u64(g);
        m->rv_job = u64(g);
        m->rv_task = task_index(g);
        m->rv_attempt = attempt(g);
        m->rv_sched = u32(g);
        m->rv_user = str(g, SK_MAX_NAME_LEN);
        m->rv_priority = prio(g);
        m->rv_res = res(g);
        m->rv_spec = bytes(g, SK_MAX_SPEC_BYTES);
        m->rv_framework = str(g, SK_MAX_NAME_LEN);
        m->rv_key = below(g, 2) ? u64(g) | 1 : 0;
        m->rv_ref = m->rv_key != 0 ? task_index(g) : 0;
        break;
    }
    case SK_MSG_RESERVE_ACK:
    case SK_MSG_RESERVE_REJECT: {
        sk_reserve_ack *m = &msg->m_reserve_ack;
        m->ra_resv = u64(g);
        m->ra_job = u64(g);
        m->ra_task = task_index(g);
        m->ra_node_id = u32(g);
        m->ra_reason = str(g, SK_MAX_REASON_LEN);
        break;
    }
    case SK_MSG_RELEASE:
        msg->m_release.rl_resv = u64(g);
        msg->m_release.rl_job = u64(g);
        msg->m_release.rl_task = task_index(g);
        msg->m_release.rl_kill = below(g, 2);
        break;
    case SK_MSG_HEARTBEAT:
        fill_heartbeat(g, &msg->m_heartbeat);
        break;
    case SK_MSG_MEMBERSHIP:
        fill_membership(g, &msg->m_membership);
        break;
    case SK_MSG_STATUS_REQUEST:
        msg->m_status_request.sq_request = u64(g);
        msg->m_status_request.sq_table = below(g, 2);
        msg->m_status_request.sq_query = str(g, SK_MAX_STATUS_LEN);
        break;
    case SK_MSG_STATUS_REPLY:
        fill_status_reply(g, &msg->m_status_reply);
        break;
    case SK_MSG_TASK_OUTCOME: {
        sk_task_outcome *m = &msg->m_task_outcome;
        m->to_key = u64(g) | 1;
        m->to_ref = task_index(g);
        m->to_user = str(g, SK_MAX_NAME_LEN);
        m->to_node = str(g, SK_MAX_NAME_LEN);
        m->to_status = (uint8_t)range(g, SK_TASK_OK, SK_TASK_FAILED);
        m->to_exit = (int32_t)(uint32_t)u32(g);
        m->to_output = bytes(g, SK_MAX_OUTPUT_BYTES);
        m->to_launch_us = u64(g);
        m->to_end_us = u64(g);
        break;
    }
    }
}

/* ---- comparison ---- */

static bool eq_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool eq_bytes(sk_bytes a, sk_bytes b)
{
    return a.b_len == b.b_len &&
           (a.b_len == 0 || memcmp(a.b_data, b.b_data, a.b_len) == 0);
}

static bool eq_strs(const char **a, uint32_t na, const char **b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!eq_str(a[i], b[i]))
            return false;
    return true;
}

static bool eq_res(sk_resources a, sk_resources b)
{
    return a.r_cpu_milli == b.r_cpu_milli && a.r_mem_mb == b.r_mem_mb;
}

/* Checks one field; on a difference names it and fails the comparison. */
#define F(cond, name)                                                          \
    do {                                                                       \
        if (!(cond)) {                                                         \
            *field = name;                                                     \
            return false;                                                      \
        }                                                                      \
    } while (0)
#define FV(m, f) F(x->f == y->f, #f)
#define FS(f)    F(eq_str(x->f, y->f), #f)
#define FB(f)    F(eq_bytes(x->f, y->f), #f)
#define FR(f)    F(eq_res(x->f, y->f), #f)
#define FL(f, n) F(eq_strs(x->f, x->n, y->f, y->n), #f)

static bool eq_submit(const sk_submit_job *x, const sk_submit_job *y,
                      const char **field)
{
    FV(x, sj_job);
    FS(sj_user);
    FV(x, sj_priority);
    FV(x, sj_probe_ratio);
    FL(sj_labels, sj_nlabels);
    FR(sj_res);
    FV(x, sj_long);
    FV(x, sj_est_task_us);
    FV(x, sj_max_attempts);
    FS(sj_framework);
    FV(x, sj_ntasks);
    for (uint32_t i = 0; i < x->sj_ntasks; i++) {
        const sk_task_spec *a = &x->sj_tasks[i], *b = &y->sj_tasks[i];
        F(eq_bytes(a->ts_spec, b->ts_spec), "ts_spec");
        F(eq_strs(a->ts_preferred, a->ts_npreferred, b->ts_preferred,
                  b->ts_npreferred),
          "ts_preferred");
        F(eq_strs(a->ts_tags, a->ts_ntags, b->ts_tags, b->ts_ntags), "ts_tags");
        F(a->ts_ref == b->ts_ref, "ts_ref");
    }
    FV(x, sj_placement);
    FV(x, sj_nconstraints);
    for (uint32_t i = 0; i < x->sj_nconstraints; i++) {
        const sk_constraint *a = &x->sj_constraints[i],
                            *b = &y->sj_constraints[i];
        F(eq_str(a->cn_source, b->cn_source), "cn_source");
        F(a->cn_count == b->cn_count, "cn_count");
        F(a->cn_group == b->cn_group, "cn_group");
        F(eq_str(a->cn_label, b->cn_label), "cn_label");
        F(eq_str(a->cn_target, b->cn_target), "cn_target");
        F(a->cn_all == b->cn_all, "cn_all");
        F(a->cn_min == b->cn_min && a->cn_max == b->cn_max, "cn_min/max");
        F(a->cn_weight == b->cn_weight, "cn_weight");
    }
    FV(x, sj_key);
    return true;
}

static bool eq_heartbeat(const sk_heartbeat *x, const sk_heartbeat *y,
                         const char **field)
{
    FV(x, hb_node_id);
    FS(hb_node);
    FV(x, hb_seq);
    FV(x, hb_time_us);
    FV(x, hb_slots_total);
    FV(x, hb_slots_used);
    FV(x, hb_slots_reserved);
    FR(hb_used);
    F(memcmp(x->hb_queue, y->hb_queue, sizeof x->hb_queue) == 0, "hb_queue");
    FV(x, hb_nrunning);
    for (uint32_t i = 0; i < x->hb_nrunning; i++) {
        const sk_running *a = &x->hb_running[i], *b = &y->hb_running[i];
        F(a->ru_job == b->ru_job, "ru_job");
        F(a->ru_task == b->ru_task, "ru_task");
        F(a->ru_attempt == b->ru_attempt, "ru_attempt");
        F(a->ru_launch_us == b->ru_launch_us, "ru_launch_us");
        F(a->ru_long == b->ru_long, "ru_long");
        F(eq_res(a->ru_res, b->ru_res), "ru_res");
    }
    FV(x, hb_nusers);
    for (uint32_t i = 0; i < x->hb_nusers; i++) {
        const sk_usage *a = &x->hb_users[i], *b = &y->hb_users[i];
        F(eq_str(a->us_user, b->us_user), "us_user");
        F(a->us_weight == b->us_weight, "us_weight");
        F(a->us_queued == b->us_queued, "us_queued");
        F(a->us_running == b->us_running, "us_running");
        F(a->us_slot_ms == b->us_slot_ms, "us_slot_ms");
    }
    FV(x, hb_users_total);
    FV(x, hb_users_sent);
    FV(x, hb_users_page);
    return true;
}

static bool eq_membership(const sk_membership *x, const sk_membership *y,
                          const char **field)
{
    FV(x, mb_epoch);
    FV(x, mb_full);
    FV(x, mb_nnodes);
    for (uint32_t i = 0; i < x->mb_nnodes; i++) {
        const sk_member *a = &x->mb_nodes[i], *b = &y->mb_nodes[i];
        F(a->me_id == b->me_id, "me_id");
        F(eq_str(a->me_name, b->me_name), "me_name");
        F(eq_str(a->me_addr, b->me_addr), "me_addr");
        F(a->me_state == b->me_state, "me_state");
        F(a->me_slots == b->me_slots, "me_slots");
        F(eq_res(a->me_res, b->me_res), "me_res");
        F(eq_strs(a->me_labels, a->me_nlabels, b->me_labels, b->me_nlabels),
          "me_labels");
    }
    return true;
}

static bool eq_status_reply(const sk_status_reply *x, const sk_status_reply *y,
                            const char **field)
{
    FV(x, sr_request);
    FV(x, sr_role);
    FS(sr_name);
    FV(x, sr_time_us);
    FV(x, sr_nkv);
    for (uint32_t i = 0; i < x->sr_nkv; i++) {
        F(eq_str(x->sr_kv[i].kv_key, y->sr_kv[i].kv_key), "kv_key");
        F(eq_str(x->sr_kv[i].kv_value, y->sr_kv[i].kv_value), "kv_value");
    }
    FL(sr_columns, sr_ncolumns);
    FV(x, sr_nrows);
    for (uint32_t i = 0; i < x->sr_nrows; i++)
        F(eq_strs(x->sr_rows[i].sw_cells, x->sr_rows[i].sw_ncells,
                  y->sr_rows[i].sw_cells, y->sr_rows[i].sw_ncells),
          "sw_cells");
    return true;
}

bool pg_equal(const sk_msg *a, const sk_msg *b, const char **field)
{
    F(a->m_type == b->m_type, "m_type");
    switch (a->m_type) {
    case SK_MSG_HELLO: {
        const sk_hello *x = &a->m_hello, *y = &b->m_hello;
        FV(x, he_role);
        FV(x, he_id);
        FV(x, he_incarnation);
        FS(he_name);
        FL(he_addrs, he_naddrs);
        FV(x, he_slots);
        FR(he_res);
        FL(he_labels, he_nlabels);
        FS(he_framework);
        return true;
    }
    case SK_MSG_SUBMIT_JOB:
        return eq_submit(&a->m_submit_job, &b->m_submit_job, field);
    case SK_MSG_JOB_ACCEPTED:
    case SK_MSG_JOB_REJECTED: {
        const sk_job_ack *x = &a->m_job_ack, *y = &b->m_job_ack;
        FV(x, ja_job);
        FS(ja_reason);
        return true;
    }
    case SK_MSG_ENQUEUE_RESERVATION: {
        const sk_enqueue *x = &a->m_enqueue, *y = &b->m_enqueue;
        FV(x, er_job);
        FV(x, er_resv);
        FV(x, er_sched);
        FS(er_user);
        FV(x, er_priority);
        FV(x, er_count);
        FR(er_res);
        FV(x, er_task);
        return true;
    }
    case SK_MSG_GET_TASK: {
        const sk_get_task *x = &a->m_get_task, *y = &b->m_get_task;
        FV(x, gt_job);
        FV(x, gt_resv);
        FV(x, gt_node_id);
        FS(gt_node);
        return true;
    }
    case SK_MSG_TASK_REPLY: {
        const sk_task_reply *x = &a->m_task_reply, *y = &b->m_task_reply;
        FV(x, tr_job);
        FV(x, tr_resv);
        FV(x, tr_has_task);
        FV(x, tr_task);
        FV(x, tr_attempt);
        FB(tr_spec);
        FS(tr_framework);
        FV(x, tr_key);
        FV(x, tr_ref);
        return true;
    }
    case SK_MSG_CANCEL_RESERVATIONS: {
        const sk_cancel_resv *x = &a->m_cancel_resv, *y = &b->m_cancel_resv;
        FV(x, cr_job);
        return true;
    }
    case SK_MSG_LAUNCH_TASK: {
        const sk_launch *x = &a->m_launch, *y = &b->m_launch;
        FV(x, lt_job);
        FV(x, lt_task);
        FV(x, lt_attempt);
        FS(lt_user);
        FR(lt_res);
        FB(lt_spec);
        FS(lt_framework);
        return true;
    }
    case SK_MSG_TASK_STARTED: {
        const sk_task_started *x = &a->m_task_started, *y = &b->m_task_started;
        FV(x, st_job);
        FV(x, st_task);
        FV(x, st_attempt);
        FS(st_node);
        FV(x, st_launch_us);
        return true;
    }
    case SK_MSG_TASK_FINISHED: {
        const sk_task_finished *x = &a->m_task_finished,
                               *y = &b->m_task_finished;
        FV(x, tf_job);
        FV(x, tf_task);
        FV(x, tf_attempt);
        FS(tf_node);
        FV(x, tf_status);
        FV(x, tf_exit);
        FB(tf_output);
        FV(x, tf_launch_us);
        FV(x, tf_end_us);
        return true;
    }
    case SK_MSG_CANCEL_JOB: {
        const sk_cancel_job *x = &a->m_cancel_job, *y = &b->m_cancel_job;
        FV(x, cj_job);
        FS(cj_reason);
        return true;
    }
    case SK_MSG_JOB_DONE: {
        const sk_job_done *x = &a->m_job_done, *y = &b->m_job_done;
        FV(x, jd_job);
        FV(x, jd_tasks);
        FV(x, jd_ok);
        FV(x, jd_failed);
        FV(x, jd_killed);
        FV(x, jd_lost);
        FV(x, jd_cancelled);
        FV(x, jd_end_us);
        return true;
    }
    case SK_MSG_KILL_TASK: {
        const sk_kill_task *x = &a->m_kill_task, *y = &b->m_kill_task;
        FV(x, kt_job);
        FV(x, kt_task);
        FV(x, kt_attempt);
        return true;
    }
    case SK_MSG_RESERVE: {
        const sk_reserve *x = &a->m_reserve, *y = &b->m_reserve;
        FV(x, rv_resv);
        FV(x, rv_job);
        FV(x, rv_task);
        FV(x, rv_attempt);
        FV(x, rv_sched);
        FS(rv_user);
        FV(x, rv_priority);
        FR(rv_res);
        FB(rv_spec);
        FS(rv_framework);
        FV(x, rv_key);
        FV(x, rv_ref);
        return true;
    }
    case SK_MSG_RESERVE_ACK:
    case SK_MSG_RESERVE_REJECT: {
        const sk_reserve_ack *x = &a->m_reserve_ack, *y = &b->m_reserve_ack;
        FV(x, ra_resv);
        FV(x, ra_job);
        FV(x, ra_task);
        FV(x, ra_node_id);
        FS(ra_reason);
        return true;
    }
    case SK_MSG_RELEASE: {
        const sk_release *x = &a->m_release, *y = &b->m_release;
        FV(x, rl_resv);
        FV(x, rl_job);
        FV(x, rl_task);
        FV(x, rl_kill);
        return true;
    }
    case SK_MSG_HEARTBEAT:
        return eq_heartbeat(&a->m_heartbeat, &b->m_heartbeat, field);
    case SK_MSG_MEMBERSHIP:
        return eq_membership(&a->m_membership, &b->m_membership, field);
    case SK_MSG_STATUS_REQUEST: {
        const sk_status_request *x = &a->m_status_request,
                                *y = &b->m_status_request;
        FV(x, sq_request);
        FV(x, sq_table);
        FS(sq_query);
        return true;
    }
    case SK_MSG_STATUS_REPLY:
        return eq_status_reply(&a->m_status_reply, &b->m_status_reply, field);
    case SK_MSG_TASK_OUTCOME: {
        const sk_task_outcome *x = &a->m_task_outcome, *y = &b->m_task_outcome;
        FV(x, to_key);
        FV(x, to_ref);
        FS(to_user);
        FS(to_node);
        FV(x, to_status);
        FV(x, to_exit);
        FB(to_output);
        FV(x, to_launch_us);
        FV(x, to_end_us);
        return true;
    }
    }
    *field = "m_type (unknown)";
    return false;
}
