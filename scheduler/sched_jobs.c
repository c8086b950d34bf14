/*
 * sched_jobs.c - the scheduler core's jobs: admission of a SUBMIT_JOB
 * (limits, duplicates, whether any live node can run it), the job's copy
 * of its specs, the probes (reservations) placed for it, and its end.
 *
 * Admission decides everything before anything is sent or kept: a job is
 * either rejected with no trace but a counter, or accepted whole.
 */
#include "sched_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sched_fe *sched_fe_get(sched_core *c, sk_peer peer)
{
    sched_fe *fe = sk_map_get(&c->c_fes, peer);
    if (fe != NULL)
        return fe;
    if (c->c_stats.ss_frontends >= (uint64_t)c->c_cfg.sc_max_frontends) {
        c->c_stats.ss_limit_frontends++;
        return NULL;
    }
    fe = calloc(1, sizeof *fe);
    if (fe == NULL || sk_map_put(&c->c_fes, peer, fe) != 0) {
        free(fe);
        c->c_stats.ss_nomem++;
        return NULL;
    }
    fe->fe_peer = peer;
    c->c_stats.ss_frontends++;
    return fe;
}

sched_job *sched_job_lookup(const sched_core *c, sk_peer fe, uint64_t sj_job)
{
    const sched_fe *f = sk_map_get(&c->c_fes, fe);
    return f == NULL ? NULL : sk_map_get(&f->fe_jobs, sj_job);
}

static void reject(sched_core *c, sk_peer to, uint64_t job, const char *why,
                   uint64_t *counter)
{
    c->c_stats.ss_jobs_rejected++;
    (*counter)++;
    sk_msg *m = sched_send(c, to, SK_MSG_JOB_REJECTED);
    if (m != NULL) {
        m->m_job_ack.ja_job = job;
        m->m_job_ack.ja_reason = why;
    }
}

/* A string's length if it is present and at most max long, else -1. */
static long str_len(const char *s, size_t max)
{
    if (s == NULL)
        return 0;
    size_t n = strnlen(s, max + 1);
    return n > max ? -1 : (long)n;
}

/* names_len adds the bytes of the n strings v (each with its NUL) to
 * *total; -1 if one is longer than max. */
static int names_len(const char *const *v, uint32_t n, size_t max,
                     uint64_t *total)
{
    for (uint32_t k = 0; k < n; k++) {
        long len = str_len(v[k], max);
        if (len < 0)
            return -1;
        *total += (uint64_t)len + 1;
    }
    return 0;
}

/* check_limits returns why sj cannot be taken, or NULL; *bytes is the
 * size of the job's blob. */
static const char *check_limits(sched_core *c, const sk_submit_job *sj,
                                size_t *bytes)
{
    const sched_config *cfg = &c->c_cfg;
    sk_arena *s = &c->c_scratch;
    if (sj->sj_ntasks == 0 || sj->sj_tasks == NULL)
        return "job has no task";
    if (sj->sj_ntasks > cfg->sc_max_tasks)
        return sk_arena_printf(s,
                               "job has %u tasks, over the scheduler's "
                               "limit of %lld ([sched] max_tasks)",
                               sj->sj_ntasks, (long long)cfg->sc_max_tasks);
    if (sj->sj_priority >= SK_PRIORITIES)
        return sk_arena_printf(s, "priority %u out of range 0..%u",
                               sj->sj_priority, SK_PRIORITIES - 1);
    double d = sj->sj_probe_ratio;
    if (d != 0 && !(d >= 1 && d <= cfg->sc_max_probe_ratio))
        return sk_arena_printf(s,
                               "probe ratio %g out of range 1..%g "
                               "([sched] max_probe_ratio)",
                               d, cfg->sc_max_probe_ratio);
    if (sj->sj_placement > SK_PLACE_MAX)
        return sk_arena_printf(s, "placement %u out of range 0..%u",
                               sj->sj_placement, SK_PLACE_MAX);
    if (sj->sj_max_attempts > SK_MAX_ATTEMPTS)
        return sk_arena_printf(s, "max attempts %u over the limit %u",
                               sj->sj_max_attempts, SK_MAX_ATTEMPTS);
    if (sj->sj_nlabels > SK_MAX_LABELS ||
        (sj->sj_nlabels > 0 && sj->sj_labels == NULL))
        return "too many labels";
    long ul = str_len(sj->sj_user, SK_MAX_NAME_LEN);
    long fl = str_len(sj->sj_framework, SK_MAX_NAME_LEN);
    if (ul < 0 || fl < 0)
        return "user or framework name too long";
    uint64_t total = (uint64_t)ul + 1 + (uint64_t)fl + 1;
    uint64_t ptrs = sj->sj_nlabels;
    for (uint32_t i = 0; i < sj->sj_nlabels; i++) {
        long n = str_len(sj->sj_labels[i], SK_MAX_LABEL_LEN);
        if (n < 0)
            return "label too long";
        total += (uint64_t)n + 1;
    }
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        const sk_task_spec *ts = &sj->sj_tasks[i];
        if (ts->ts_spec.b_len > cfg->sc_max_spec_bytes ||
            (ts->ts_spec.b_len > 0 && ts->ts_spec.b_data == NULL))
            return sk_arena_printf(s,
                                   "task %u: spec of %u bytes, limit "
                                   "%lld ([sched] max_spec_bytes)",
                                   i, ts->ts_spec.b_len,
                                   (long long)cfg->sc_max_spec_bytes);
        if (ts->ts_npreferred > SK_MAX_PREFERRED ||
            (ts->ts_npreferred > 0 && ts->ts_preferred == NULL) ||
            ts->ts_nracks > SK_MAX_PREFERRED ||
            (ts->ts_nracks > 0 && ts->ts_racks == NULL))
            return sk_arena_printf(s,
                                   "task %u: too many preferred "
                                   "nodes or racks",
                                   i);
        /* What a scheduler tells flowd, never a frontend. */
        if (ts->ts_attempt != 0 || ts->ts_done)
            return sk_arena_printf(s,
                                   "task %u: attempt and done are for "
                                   "flowd, not from a frontend",
                                   i);
        if (ts->ts_ntags > SK_MAX_TAGS || (ts->ts_ntags > 0 && !ts->ts_tags))
            return sk_arena_printf(s, "task %u: too many tags", i);
        /* Refs name the tasks under the key: distinct, found by
         * bisection (sched_offers.c). */
        if (sj->sj_key == 0 ? ts->ts_ref != 0
                            : ts->ts_ref >= SK_MAX_TASKS ||
                                  (i > 0 && ts->ts_ref <= ts[-1].ts_ref))
            return sk_arena_printf(s,
                                   "task %u: ref %u does not follow the "
                                   "previous task's under the job's key",
                                   i, ts->ts_ref);
        total += ts->ts_spec.b_len;
        ptrs += ts->ts_npreferred + ts->ts_nracks + ts->ts_ntags;
        if (names_len(ts->ts_preferred, ts->ts_npreferred, SK_MAX_NAME_LEN,
                      &total) != 0 ||
            names_len(ts->ts_racks, ts->ts_nracks, SK_MAX_NAME_LEN, &total) !=
                0 ||
            names_len(ts->ts_tags, ts->ts_ntags, SK_MAX_TAG_LEN, &total) != 0)
            return sk_arena_printf(s,
                                   "task %u: node, rack or tag name too "
                                   "long",
                                   i);
    }
    if (sj->sj_nconstraints > SK_MAX_CONSTRAINTS ||
        (sj->sj_nconstraints > 0 && sj->sj_constraints == NULL))
        return "too many placement constraints";
    total += (uint64_t)sj->sj_nconstraints * sizeof(sk_constraint);
    for (uint32_t i = 0; i < sj->sj_nconstraints; i++) {
        const sk_constraint *cn = &sj->sj_constraints[i];
        const char *names[3] = {cn->cn_source, cn->cn_label, cn->cn_target};
        if (names_len(names, 3, SK_MAX_TAG_LEN, &total) != 0)
            return sk_arena_printf(s, "constraint %u: a name too long", i);
    }
    total += ptrs * sizeof(char *);
    if (total > (uint64_t)cfg->sc_max_job_bytes)
        return sk_arena_printf(s,
                               "job of %llu bytes, limit %lld "
                               "([sched] max_job_bytes)",
                               (unsigned long long)total,
                               (long long)cfg->sc_max_job_bytes);
    *bytes = (size_t)total;
    return NULL;
}

/* A cursor filling a job's blob: the constraints, pointer arrays, then
 * bytes. */
typedef struct blob_fill {
    const char **bf_ptrs;
    uint8_t *bf_bytes;
} blob_fill;

static const char *put_str(blob_fill *bf, const char *s)
{
    if (s == NULL)
        s = "";
    size_t n = strlen(s) + 1;
    char *p = (char *)bf->bf_bytes;
    memcpy(p, s, n);
    bf->bf_bytes += n;
    return p;
}

/* build_job copies sj into a new job (not yet indexed anywhere). */
static sched_job *build_job(sched_core *c, const sk_submit_job *sj,
                            size_t bytes)
{
    sched_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->j_tasks = calloc(sj->sj_ntasks, sizeof *j->j_tasks);
    j->j_queue = malloc(sj->sj_ntasks * sizeof *j->j_queue);
    j->j_blob = malloc(bytes);
    if (j->j_tasks == NULL || j->j_queue == NULL || j->j_blob == NULL) {
        free(j->j_tasks);
        free(j->j_queue);
        free(j->j_blob);
        free(j);
        return NULL;
    }
    uint64_t ptrs = sj->sj_nlabels;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++)
        ptrs += sj->sj_tasks[i].ts_npreferred + sj->sj_tasks[i].ts_nracks +
                sj->sj_tasks[i].ts_ntags;
    sk_constraint *cons = j->j_blob;
    const char **pv = (const char **)(void *)(cons + sj->sj_nconstraints);
    blob_fill bf = {pv, (uint8_t *)(pv + ptrs)};
    j->j_cons = cons;
    j->j_ncons = sj->sj_nconstraints;
    for (uint32_t i = 0; i < sj->sj_nconstraints; i++) {
        cons[i] = sj->sj_constraints[i];
        cons[i].cn_source = put_str(&bf, cons[i].cn_source);
        cons[i].cn_label = put_str(&bf, cons[i].cn_label);
        cons[i].cn_target = put_str(&bf, cons[i].cn_target);
    }
    j->j_fe_job = sj->sj_job;
    j->j_user = put_str(&bf, sj->sj_user);
    j->j_framework = put_str(&bf, sj->sj_framework);
    j->j_labels = bf.bf_ptrs;
    j->j_nlabels = sj->sj_nlabels;
    for (uint32_t i = 0; i < sj->sj_nlabels; i++)
        *bf.bf_ptrs++ = put_str(&bf, sj->sj_labels[i]);
    j->j_key = sj->sj_key;
    j->j_res = sj->sj_res;
    j->j_prio = sj->sj_priority;
    j->j_ratio =
        sj->sj_probe_ratio != 0 ? sj->sj_probe_ratio : c->c_cfg.sc_probe_ratio;
    j->j_max_attempts = sj->sj_max_attempts != 0
                            ? sj->sj_max_attempts
                            : (uint32_t)c->c_cfg.sc_max_attempts;
    j->j_sj_attempts = sj->sj_max_attempts;
    j->j_long = sj->sj_long;
    j->j_placement = sj->sj_placement;
    j->j_ntasks = sj->sj_ntasks;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        const sk_task_spec *ts = &sj->sj_tasks[i];
        sched_task *t = &j->j_tasks[i];
        t->tk_job = j;
        t->tk_state = SCHED_TASK_PENDING;
        t->tk_spec = bf.bf_bytes;
        t->tk_spec_len = ts->ts_spec.b_len;
        if (ts->ts_spec.b_len > 0)
            memcpy(bf.bf_bytes, ts->ts_spec.b_data, ts->ts_spec.b_len);
        bf.bf_bytes += ts->ts_spec.b_len;
        t->tk_pref = bf.bf_ptrs;
        t->tk_npref = ts->ts_npreferred;
        for (uint32_t k = 0; k < ts->ts_npreferred; k++)
            *bf.bf_ptrs++ = put_str(&bf, ts->ts_preferred[k]);
        t->tk_racks = bf.bf_ptrs;
        t->tk_nracks = ts->ts_nracks;
        for (uint32_t k = 0; k < ts->ts_nracks; k++)
            *bf.bf_ptrs++ = put_str(&bf, ts->ts_racks[k]);
        t->tk_ref = ts->ts_ref;
        t->tk_tags = bf.bf_ptrs;
        t->tk_ntags = ts->ts_ntags;
        for (uint32_t k = 0; k < ts->ts_ntags; k++)
            *bf.bf_ptrs++ = put_str(&bf, ts->ts_tags[k]);
        /* Tasks without preferences wait in submission order. */
        if (t->tk_npref == 0)
            sched_queue_push(j, i);
    }
    j->j_npending = sj->sj_ntasks;
    return j;
}

static void free_job_memory(sched_job *j)
{
    free(j->j_tasks);
    free(j->j_queue);
    free(j->j_blob);
    free(j);
}

/* over_budget says why a job of bytes from fe would exceed a budget, or
 * NULL. Budgets keep one frontend from taking the memory and the job
 * slots every frontend shares. */
static const char *over_budget(sched_core *c, const sched_fe *fe, size_t bytes)
{
    const sched_config *cfg = &c->c_cfg;
    if (fe->fe_jobs.mp_len >= (uint64_t)cfg->sc_max_fe_jobs)
        return sk_arena_printf(&c->c_scratch,
                               "this frontend has %llu jobs in flight, "
                               "its limit ([sched] max_fe_jobs)",
                               (unsigned long long)fe->fe_jobs.mp_len);
    if (fe->fe_bytes + bytes > (uint64_t)cfg->sc_max_fe_bytes)
        return sk_arena_printf(&c->c_scratch,
                               "this frontend's jobs hold %llu bytes; "
                               "%zu more is over its budget of %lld "
                               "([sched] max_fe_bytes)",
                               (unsigned long long)fe->fe_bytes, bytes,
                               (long long)cfg->sc_max_fe_bytes);
    if (c->c_stats.ss_bytes + bytes > (uint64_t)cfg->sc_max_bytes)
        return sk_arena_printf(&c->c_scratch,
                               "the scheduler holds %llu bytes of jobs; "
                               "%zu more is over its budget of %lld "
                               "([sched] max_bytes)",
                               (unsigned long long)c->c_stats.ss_bytes, bytes,
                               (long long)cfg->sc_max_bytes);
    return NULL;
}

void sched_submit(sched_core *c, sk_peer from, const sk_submit_job *sj,
                  sk_time now)
{
    sched_stats *st = &c->c_stats;
    if (sk_map_get(&c->c_nodes, from) != NULL) {
        reject(c, from, sj->sj_job, "node monitors do not submit jobs",
               &st->ss_reject_other);
        return;
    }
    sched_fe *fe = sched_fe_get(c, from);
    if (fe == NULL) {
        reject(c, from, sj->sj_job, "too many frontends", &st->ss_reject_limit);
        return;
    }
    size_t bytes = 0;
    const char *why = check_limits(c, sj, &bytes);
    if (why != NULL) {
        reject(c, from, sj->sj_job, why, &st->ss_reject_limit);
        return;
    }
    if (sk_map_get(&fe->fe_jobs, sj->sj_job) != NULL) {
        reject(c, from, sj->sj_job, "duplicate job id: already in flight",
               &st->ss_reject_dup);
        return;
    }
    if (st->ss_jobs >= (uint64_t)c->c_cfg.sc_max_jobs) {
        reject(c, from, sj->sj_job,
               sk_arena_printf(&c->c_scratch,
                               "%lld jobs in flight already, the "
                               "limit ([sched] max_jobs)",
                               (long long)c->c_cfg.sc_max_jobs),
               &st->ss_reject_limit);
        return;
    }
    if ((why = over_budget(c, fe, bytes)) != NULL ||
        (why = sched_user_over(c, sj->sj_user != NULL ? sj->sj_user : "",
                               bytes)) != NULL) {
        reject(c, from, sj->sj_job, why, &st->ss_reject_budget);
        return;
    }
    /* Long, flow-placed and constrained jobs skip sampling: flowd places
     * them (sampling knows nothing of tags). */
    bool to_flow = sj->sj_long || sj->sj_placement == SK_PLACE_FLOW ||
                   sj->sj_nconstraints > 0;
    /* A flowd whose session is down for a moment (a stall, a restart)
     * gets the job when it is back; only a cluster that never had one
     * refuses it. */
    if (to_flow && !sched_flow_known(c)) {
        reject(c, from, sj->sj_job,
               "no flow node (skylark-flowd) has connected: long-running, "
               "flow-placed and constrained jobs need one",
               &st->ss_reject_nodes);
        return;
    }
    /* Every node saturated by long tasks: sampling has nowhere to probe,
     * but flowd sees the whole cluster; the job waits there rather than
     * being refused. */
    if (!to_flow && !sched_can_sample(c) && st->ss_nodes > 0 && c->c_flowd_up)
        to_flow = true;
    if (!to_flow && !sched_can_sample(c)) {
        reject(c, from, sj->sj_job,
               st->ss_nodes == 0 ? "no node monitors"
                                 : "every node monitor is saturated or down",
               &st->ss_reject_nodes);
        return;
    }
    sched_job *j = build_job(c, sj, bytes);
    if (j == NULL) {
        st->ss_nomem++;
        reject(c, from, sj->sj_job, "out of memory", &st->ss_reject_other);
        return;
    }
    /* Tasks whose outcome a node monitor offered (the job is a
     * resubmission) get no probe. */
    if (j->j_key != 0 && c->c_noffers > 0)
        sched_offers_claim(c, j);
    uint32_t npicks = 0;
    if (to_flow)
        j->j_qlen = 0;
    if (j->j_qlen > 0) {
        npicks =
            sched_sample_any(c, j, sched_probe_count(j->j_ratio, j->j_qlen));
        if (npicks == 0) {
            free_job_memory(j);
            reject(c, from, sj->sj_job,
                   "no live node monitor has the labels and resources the "
                   "job asks for",
                   &st->ss_reject_nodes);
            return;
        }
    }
    /* Room in every index now, so that nothing below can half-fail. */
    uint64_t bound =
        to_flow ? 0
                : (uint64_t)(j->j_ntasks - j->j_qlen) *
                      (uint64_t)fmin(ceil(j->j_ratio), SK_MAX_PREFERRED);
    if (sk_map_reserve(&c->c_jobs, 1) != 0 ||
        sk_map_reserve(&fe->fe_jobs, 1) != 0 || bound > UINT32_MAX / 2 ||
        sk_map_reserve(&c->c_resvs, npicks + (uint32_t)bound) != 0) {
        free_job_memory(j);
        st->ss_nomem++;
        reject(c, from, sj->sj_job, "out of memory", &st->ss_reject_other);
        return;
    }
    j->j_bytes = bytes;
    if (sched_user_charge(c, j) != 0) {
        free_job_memory(j);
        st->ss_nomem++;
        reject(c, from, sj->sj_job, "out of memory", &st->ss_reject_other);
        return;
    }
    j->j_id = ++c->c_next_job;
    j->j_accepted = now;
    j->j_fe = fe;
    fe->fe_bytes += bytes;
    st->ss_bytes += bytes;
    sk_map_put(&c->c_jobs, j->j_id, j);
    sk_map_put(&fe->fe_jobs, j->j_fe_job, j);
    j->j_fnext = fe->fe_list;
    if (fe->fe_list != NULL)
        fe->fe_list->j_fprev = j;
    fe->fe_list = j;
    j->j_anext = c->c_all;
    if (c->c_all != NULL)
        c->c_all->j_aprev = j;
    c->c_all = j;
    st->ss_jobs++;
    st->ss_jobs_accepted++;
    st->ss_tasks_submitted += j->j_ntasks;
    if (j->j_key != 0 && sk_map_get(&c->c_keys, j->j_key) == NULL &&
        sk_map_put(&c->c_keys, j->j_key, j) == 0)
        j->j_keyed = true;

    sk_msg *m = sched_send(c, from, SK_MSG_JOB_ACCEPTED);
    if (m != NULL) {
        m->m_job_ack.ja_job = j->j_fe_job;
        m->m_job_ack.ja_reason = "";
    }
    if (j->j_key != 0 && c->c_noffers > 0 && sched_offers_settle(c, j))
        return; /* every task had its outcome offered */
    if (to_flow) {
        sched_flow_take_pending(c, j);
        return;
    }
    if (npicks > 0)
        sched_place(c, j, npicks, SK_TASK_ANY);
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        if (j->j_tasks[i].tk_npref == 0 ||
            j->j_tasks[i].tk_state != SCHED_TASK_PENDING ||
            sched_probe_task(c, j, i) == 0 || sched_flow_take(c, j, i))
            continue;
        st->ss_tasks_unplaced++;
        static const char why_none[] = "no preferred node is live";
        if (sched_task_fail(c, &j->j_tasks[i], why_none))
            return; /* that was the job's last task: it is gone */
    }
    sched_pending_changed(c, j);
    sched_fallback_arm(c, j, now);
}

void sched_place(sched_core *c, sched_job *j, uint32_t npicks, uint32_t task)
{
    for (uint32_t i = 0; i < npicks; i++) {
        sched_node *nd = c->c_picks[i];
        sched_resv *r = calloc(1, sizeof *r);
        if (r == NULL || sk_map_put(&c->c_resvs, c->c_next_resv + 1, r)) {
            free(r);
            c->c_stats.ss_nomem++;
            sk_error("job %llu: reservation dropped: out of memory",
                     (unsigned long long)j->j_id);
            continue;
        }
        r->rs_id = ++c->c_next_resv;
        r->rs_job = j;
        r->rs_node = nd;
        r->rs_task = task;
        r->rs_count = nd->nd_pick;
        r->rs_jnext = j->j_resvs;
        if (j->j_resvs != NULL)
            j->j_resvs->rs_jprev = r;
        j->j_resvs = r;
        /* Appended at the tail: the probes one call places for a job on
         * a node stay adjacent in the node's list (see GET_TASK). */
        r->rs_nprev = nd->nd_rtail;
        if (nd->nd_rtail != NULL)
            nd->nd_rtail->rs_nnext = r;
        else
            nd->nd_resvs = r;
        nd->nd_rtail = r;
        j->j_resv_open += r->rs_count;
        if (task == SK_TASK_ANY)
            j->j_unbound += r->rs_count;
        else
            j->j_tasks[task].tk_probes += r->rs_count;
        c->c_stats.ss_resv_open += r->rs_count;
        c->c_stats.ss_reservations += r->rs_count;
        c->c_stats.ss_enqueues++;
        sk_msg *m = sched_send(c, nd->nd_peer, SK_MSG_ENQUEUE_RESERVATION);
        if (m == NULL)
            continue;
        sk_enqueue *e = &m->m_enqueue;
        e->er_job = j->j_id;
        e->er_resv = r->rs_id;
        e->er_sched = (uint32_t)c->c_cfg.sc_id;
        e->er_user = j->j_user;
        e->er_priority = j->j_prio;
        e->er_count = r->rs_count;
        e->er_res = j->j_res;
        e->er_task = task;
    }
}

int sched_probe_task(sched_core *c, sched_job *j, uint32_t task)
{
    sched_task *t = &j->j_tasks[task];
    uint64_t want = sched_probe_count(j->j_ratio, 1);
    uint32_t n;
    if (t->tk_npref > 0) {
        n = sched_sample_task(c, j, t, want);
        if (n == 0)
            return SK_ENOTFOUND;
        sched_place(c, j, n, task);
    } else {
        n = sched_sample_any(c, j, want);
        if (n == 0)
            return SK_ENOTFOUND;
        sched_place(c, j, n, SK_TASK_ANY);
    }
    return 0;
}

void sched_resv_take(sched_core *c, sched_resv *r, uint32_t n)
{
    SK_ASSERT(n <= r->rs_count);
    sched_job *j = r->rs_job;
    r->rs_count -= n;
    j->j_resv_open -= n;
    if (r->rs_task == SK_TASK_ANY)
        j->j_unbound -= n;
    else
        j->j_tasks[r->rs_task].tk_probes -= n;
    c->c_stats.ss_resv_open -= n;
    if (r->rs_count > 0)
        return;
    if (r->rs_jprev != NULL)
        r->rs_jprev->rs_jnext = r->rs_jnext;
    else
        j->j_resvs = r->rs_jnext;
    if (r->rs_jnext != NULL)
        r->rs_jnext->rs_jprev = r->rs_jprev;
    sched_node *nd = r->rs_node;
    if (r->rs_nprev != NULL)
        r->rs_nprev->rs_nnext = r->rs_nnext;
    else
        nd->nd_resvs = r->rs_nnext;
    if (r->rs_nnext != NULL)
        r->rs_nnext->rs_nprev = r->rs_nprev;
    else
        nd->nd_rtail = r->rs_nprev;
    sk_map_del(&c->c_resvs, r->rs_id);
    free(r);
}

void sched_cancel_resvs(sched_core *c, sched_job *j)
{
    uint64_t stamp = ++c->c_stamp;
    while (j->j_resvs != NULL) {
        sched_resv *r = j->j_resvs;
        sched_node *nd = r->rs_node;
        /* CANCEL_RESERVATIONS drops all of the job's probes on a node:
         * one message per node, however many probes it holds. */
        if (nd->nd_mark != stamp) {
            nd->nd_mark = stamp;
            c->c_stats.ss_cancels++;
            sk_msg *m = sched_send(c, nd->nd_peer, SK_MSG_CANCEL_RESERVATIONS);
            if (m != NULL)
                m->m_cancel_resv.cr_job = j->j_id;
        }
        sched_resv_take(c, r, r->rs_count);
    }
}

void sched_job_free(sched_core *c, sched_job *j)
{
    while (j->j_resvs != NULL)
        sched_resv_take(c, j->j_resvs, j->j_resvs->rs_count);
    for (uint32_t i = 0; i < j->j_ntasks; i++)
        sched_task_unbind(c, &j->j_tasks[i]);
    sched_flow_free(c, j);
    sched_user_release(c, j);
    sk_map_del(&c->c_jobs, j->j_id);
    if (j->j_keyed)
        sk_map_del(&c->c_keys, j->j_key);
    sched_fe *fe = j->j_fe;
    sk_map_del(&fe->fe_jobs, j->j_fe_job);
    if (j->j_fprev != NULL)
        j->j_fprev->j_fnext = j->j_fnext;
    else
        fe->fe_list = j->j_fnext;
    if (j->j_fnext != NULL)
        j->j_fnext->j_fprev = j->j_fprev;
    if (j->j_aprev != NULL)
        j->j_aprev->j_anext = j->j_anext;
    else
        c->c_all = j->j_anext;
    if (j->j_anext != NULL)
        j->j_anext->j_aprev = j->j_aprev;
    c->c_stats.ss_jobs--;
    c->c_stats.ss_bytes -= j->j_bytes;
    fe->fe_bytes -= j->j_bytes;
    free_job_memory(j);
}
