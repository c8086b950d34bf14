/*
 * fd_jobs.c - schedulers and the work they forward to the flow node:
 * registration, SUBMIT_JOB (checked against the limits, copied into one
 * allocation per job), CANCEL_JOB, the TASK_FINISHED a scheduler passes
 * on, and the states of a task (waiting, reserved, placed, running,
 * dead) with the bookkeeping each move needs: gauges, the node's count,
 * the lists of waiting tasks, the dirty lists the network follows.
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fd_sched *fd_sched_by_peer(const fd_core *c, sk_peer peer)
{
    return sk_map_get(&c->c_sched_by_peer, (uint64_t)peer + 1);
}

fd_job *fd_job_find(const fd_sched *s, uint64_t id)
{
    if (id == UINT64_MAX)
        return s->s_job_max;
    return sk_map_get(&s->s_jobs, id + 1);
}

void fd_on_sched_hello(fd_core *c, sk_time now, sk_peer from, const sk_hello *h)
{
    if (fd_sched_by_peer(c, from) != NULL || fd_node_by_peer(c, from) != NULL) {
        c->c_st.fs_bad_peer++;
        return;
    }
    if (fd_sched_return(c, now, from, h))
        return;
    if (c->c_st.fs_schedulers + c->c_st.fs_sched_held >=
        (uint64_t)c->c_cfg.fdc_max_schedulers) {
        c->c_st.fs_limit++;
        return;
    }
    fd_sched *s = calloc(1, sizeof *s);
    if (s == NULL ||
        sk_map_put(&c->c_sched_by_peer, (uint64_t)from + 1, s) != 0) {
        free(s);
        c->c_st.fs_nomem++;
        return;
    }
    s->s_peer = from;
    s->s_id = h->he_id;
    s->s_incarnation = h->he_incarnation;
    c->c_st.fs_schedulers++;
    fd_membership_full(c, from);
}

void fd_sched_free(fd_core *c, fd_sched *s)
{
    if (!s->s_gone)
        sk_map_del(&c->c_sched_by_peer, (uint64_t)s->s_peer + 1);
    fd_grace_forget(s);
    sk_map_free(&s->s_jobs);
    free(s);
}

/* ---- task states --------------------------------------------------------*/

static uint64_t *gauge(fd_core *c, uint8_t state)
{
    switch (state) {
    case FD_TASK_WAITING:
        return &c->c_st.fs_waiting;
    case FD_TASK_RESERVED:
        return &c->c_st.fs_reserved;
    case FD_TASK_PLACED:
        return &c->c_st.fs_placed;
    case FD_TASK_RUNNING:
        return &c->c_st.fs_running;
    default:
        return NULL;
    }
}

void fd_task_dirty(fd_core *c, fd_task *t)
{
    c->c_cx_stale = true; /* came, ended, placed: held tasks retry */
    if (!t->t_dirty) {
        t->t_dirty = true;
        fd_list_push(&c->c_dirty_tasks, &t->t_dirty_link);
    }
}

static void job_dirty(fd_core *c, fd_job *j)
{
    if (!j->j_dirty) {
        j->j_dirty = true;
        fd_list_push(&c->c_dirty_jobs, &j->j_dirty_link);
    }
}

void fd_task_set_state(fd_core *c, fd_task *t, uint8_t state)
{
    uint64_t *g = gauge(c, t->t_state);
    if (g != NULL)
        (*g)--;
    /* Reserved, placed and running look the same in the network. */
    bool moved =
        (t->t_state == FD_TASK_WAITING) != (state == FD_TASK_WAITING) ||
        state == FD_TASK_DEAD || t->t_state == 0;
    if (t->t_state == FD_TASK_WAITING) {
        fd_due_remove(c, t);
        fd_list_remove(&t->t_wait_link);
        fd_list_remove(&t->t_pref_link);
        fd_list_remove(&t->t_fast_link);
    }
    t->t_state = state;
    if ((g = gauge(c, state)) != NULL)
        (*g)++;
    if (state == FD_TASK_WAITING) {
        fd_list_push(&c->c_waiting, &t->t_wait_link);
        if (t->t_nprefs > 0)
            fd_list_push(&c->c_pref_waiting, &t->t_pref_link);
        if (!t->t_job->j_long)
            fd_list_push(&c->c_fast, &t->t_fast_link);
    }
    if (moved)
        fd_task_dirty(c, t);
}

void fd_task_assign(fd_core *c, fd_task *t, fd_node *n)
{
    SK_ASSERT(t->t_node == NULL && !n->n_dead);
    t->t_node = n;
    fd_list_push(&n->n_tasks, &t->t_node_link);
    fd_list_push(&c->c_assigned, &t->t_assigned_link);
    n->n_ntasks++;
    fd_node_touch(c, n);
    fd_task_dirty(c, t);
}

void fd_task_unassign(fd_core *c, fd_task *t)
{
    fd_node *n = t->t_node;
    if (n == NULL)
        return;
    fd_list_remove(&t->t_node_link);
    fd_list_remove(&t->t_resv_link);
    fd_list_remove(&t->t_assigned_link);
    n->n_ntasks--;
    fd_node_touch(c, n);
    if (t->t_resv != 0)
        sk_map_del(&c->c_task_by_resv, t->t_resv);
    t->t_resv = 0;
    t->t_node = NULL;
    t->t_seen = false;
    fd_task_dirty(c, t);
}

/* The job holds no live task: forget it (freed at the next sync). */
static void job_retire(fd_core *c, fd_job *j)
{
    if (j->j_dead)
        return;
    j->j_dead = true;
    fd_grace_job_ended(c, j);
    fd_sched *s = j->j_sched;
    if (s != NULL) {
        if (j->j_id == UINT64_MAX)
            s->s_job_max = NULL;
        else
            sk_map_del(&s->s_jobs, j->j_id + 1);
        s->s_njobs--;
    }
    c->c_njobs--;
    c->c_st.fs_jobs = c->c_njobs;
    fd_class_unref(c, j->j_class);
    j->j_class = NULL;
    job_dirty(c, j);
}

/* Report an outcome the core decided to the task's scheduler. */
static void report(fd_core *c, sk_time now, fd_task *t, uint8_t status,
                   const char *why)
{
    if (fd_sched_keep(c, now, t, status, why))
        return;
    fd_sched *s = t->t_job->j_sched;
    if (s != NULL)
        fd_send_outcome(c, s, t->t_job->j_id, t->t_index, t->t_attempt, status,
                        t->t_node != NULL ? t->t_node->n_name : "", why, now);
}

void fd_task_end(fd_core *c, sk_time now, fd_task *t, uint8_t status,
                 const char *why)
{
    if (t->t_state == FD_TASK_DEAD)
        return;
    if (status != 0)
        report(c, now, t, status, why);
    fd_task_unassign(c, t);
    fd_task_set_state(c, t, FD_TASK_DEAD);
    c->c_ntasks--;
    fd_job *j = t->t_job;
    j->j_live--;
    job_dirty(c, j);
    if (j->j_live == 0)
        job_retire(c, j);
    fd_event(c, now);
}

void fd_task_retry(fd_core *c, sk_time now, fd_task *t, const char *why)
{
    if (t->t_attempt - t->t_moves + 1 >= t->t_job->j_max_attempts ||
        t->t_attempt + 1 >= SK_MAX_ATTEMPTS) {
        c->c_st.fs_tasks_lost++;
        fd_task_end(c, now, t, SK_TASK_LOST, why);
        return;
    }
    fd_task_unassign(c, t);
    t->t_attempt++;
    t->t_since = now;
    c->c_st.fs_replanned++;
    fd_task_set_state(c, t, FD_TASK_WAITING);
    fd_event(c, now);
}

void fd_job_free(fd_core *c, fd_job *j)
{
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        fd_task *t = &j->j_tasks[i];
        if (t->t_slot != UINT32_MAX)
            fd_slots_give(&c->c_tasks, t->t_slot);
    }
    fd_list_remove(&j->j_dirty_link);
    fd_slots_give(&c->c_jobs, j->j_slot);
    free(j->j_tasks);
    free(j->j_blob);
    fd_cons_free(j->j_cons);
    free(j);
}

/* ---- SUBMIT_JOB ---------------------------------------------------------*/

static size_t str_ok(const char *s, size_t max)
{
    if (s == NULL)
        return 0;
    size_t n = strnlen(s, max + 1);
    return n > max ? SIZE_MAX : n;
}

/* Why the job cannot be taken (scratch text), or NULL. */
static const char *check_job(fd_core *c, const fd_sched *s,
                             const sk_submit_job *sj, size_t *bytes,
                             size_t *nprefs)
{
    const fd_config *cfg = &c->c_cfg;
    if (sj->sj_ntasks == 0 || sj->sj_ntasks > cfg->fdc_max_job_tasks)
        return fd_scratch_printf(c, "%u tasks: flowd takes 1..%lld per job",
                                 sj->sj_ntasks,
                                 (long long)cfg->fdc_max_job_tasks);
    if (c->c_njobs >= (uint64_t)cfg->fdc_max_jobs)
        return fd_scratch_printf(c, "flowd holds max_jobs (%lld) jobs",
                                 (long long)cfg->fdc_max_jobs);
    if (c->c_ntasks + sj->sj_ntasks > (uint64_t)cfg->fdc_max_tasks)
        return fd_scratch_printf(c,
                                 "flowd would hold more than max_tasks "
                                 "(%lld) tasks",
                                 (long long)cfg->fdc_max_tasks);
    if (fd_job_find(s, sj->sj_job) != NULL)
        return "a job with this id is in flight";
    if (sj->sj_priority >= SK_PRIORITIES ||
        sj->sj_max_attempts > SK_MAX_ATTEMPTS)
        return "priority or max_attempts out of range";
    size_t ul = str_ok(sj->sj_user, SK_MAX_NAME_LEN);
    size_t fl = str_ok(sj->sj_framework, SK_MAX_NAME_LEN);
    if (ul == SIZE_MAX || fl == SIZE_MAX)
        return "user or framework name too long";
    if (sj->sj_nlabels > SK_MAX_LABELS)
        return "too many labels";
    for (uint32_t i = 0; i < sj->sj_nlabels; i++)
        if (sj->sj_labels[i] == NULL ||
            str_ok(sj->sj_labels[i], SK_MAX_LABEL_LEN) == SIZE_MAX)
            return "label too long";
    size_t total = ul + fl + 2;
    *nprefs = 0;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        const sk_task_spec *ts = &sj->sj_tasks[i];
        if (ts->ts_spec.b_len > SK_MAX_SPEC_BYTES ||
            ts->ts_npreferred > SK_MAX_PREFERRED ||
            ts->ts_nracks > SK_MAX_PREFERRED)
            return fd_scratch_printf(c,
                                     "task %u: spec or preferences over "
                                     "their limit",
                                     i);
        total += ts->ts_spec.b_len;
        for (uint32_t k = 0; k < ts->ts_npreferred; k++) {
            size_t n = str_ok(ts->ts_preferred[k], SK_MAX_NAME_LEN);
            if (n == SIZE_MAX || ts->ts_preferred[k] == NULL)
                return fd_scratch_printf(c, "task %u: node name too long", i);
            total += n + 1;
        }
        for (uint32_t k = 0; k < ts->ts_nracks; k++) {
            size_t n = str_ok(ts->ts_racks[k], SK_MAX_NAME_LEN);
            if (n == SIZE_MAX || n == 0)
                return fd_scratch_printf(c,
                                         "task %u: rack name empty or too "
                                         "long",
                                         i);
            total += n + 1;
        }
        *nprefs += ts->ts_npreferred + ts->ts_nracks;
    }
    if (total > (uint64_t)cfg->fdc_max_job_bytes)
        return fd_scratch_printf(c,
                                 "the job's specs and names take %zu "
                                 "bytes, over max_job_bytes (%lld)",
                                 total, (long long)cfg->fdc_max_job_bytes);
    *bytes = total;
    return NULL;
}

static void answer(fd_core *c, fd_sched *s, uint64_t job, const char *why)
{
    sk_msg *m = fd_push(
        c, s->s_peer, why == NULL ? SK_MSG_JOB_ACCEPTED : SK_MSG_JOB_REJECTED);
    if (m == NULL)
        return;
    m->m_job_ack.ja_job = job;
    m->m_job_ack.ja_reason = why != NULL ? why : "";
}

static char *copy_str(char **at, const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    char *d = *at;
    if (n > 0)
        memcpy(d, s, n);
    d[n] = '\0';
    *at += n + 1;
    return d;
}

void fd_on_submit(fd_core *c, sk_time now, fd_sched *s, const sk_submit_job *sj)
{
    if (fd_grace_reforward(c, now, s, sj))
        return;
    size_t bytes = 0, nprefs = 0;
    const char *why = check_job(c, s, sj, &bytes, &nprefs);
    if (why != NULL) {
        c->c_st.fs_jobs_rejected++;
        c->c_st.fs_limit++;
        answer(c, s, sj->sj_job, why);
        return;
    }
    fd_class *k = NULL;
    int krc = fd_class_ref(c, sj, &k);
    if (krc != 0) {
        c->c_st.fs_jobs_rejected++;
        if (krc == SK_ENOMEM)
            c->c_st.fs_nomem++;
        else
            c->c_st.fs_limit++;
        answer(c, s, sj->sj_job,
               krc == SK_ENOMEM
                   ? "flowd is out of memory"
                   : fd_scratch_printf(c,
                                       "flowd holds max_classes (%lld) "
                                       "distinct requests and label sets",
                                       (long long)c->c_cfg.fdc_max_classes));
        return;
    }
    fd_job *j = calloc(1, sizeof *j);
    fd_task *tasks = calloc(sj->sj_ntasks, sizeof *tasks);
    size_t ptrs = nprefs * sizeof(const char *);
    char *blob = malloc(ptrs + bytes);
    fd_cons *cons = NULL;
    bool got = j != NULL && tasks != NULL && blob != NULL &&
               fd_cons_new(sj, &cons) == 0;
    int rc = got ? fd_slots_take(&c->c_jobs, j, &j->j_slot) : SK_ENOMEM;
    bool slotted = rc == 0;
    if (rc == 0 && sj->sj_job != UINT64_MAX)
        rc = sk_map_put(&s->s_jobs, sj->sj_job + 1, j);
    if (rc != 0) {
        if (slotted)
            fd_slots_give(&c->c_jobs, j->j_slot);
        free(j);
        free(tasks);
        free(blob);
        fd_cons_free(cons);
        fd_class_unref(c, k);
        c->c_st.fs_nomem++;
        c->c_st.fs_jobs_rejected++;
        answer(c, s, sj->sj_job, "flowd is out of memory");
        return;
    }
    if (sj->sj_job == UINT64_MAX)
        s->s_job_max = j;
    const char **pv = (const char **)(void *)blob;
    char *at = blob + ptrs;
    j->j_sched = s;
    j->j_class = k;
    j->j_id = sj->sj_job;
    j->j_key = sj->sj_key;
    j->j_user = copy_str(&at, sj->sj_user);
    j->j_framework = copy_str(&at, sj->sj_framework);
    j->j_priority = sj->sj_priority;
    j->j_res = sj->sj_res;
    j->j_long = sj->sj_long;
    j->j_max_attempts = sj->sj_max_attempts > 0
                            ? sj->sj_max_attempts
                            : (uint32_t)c->c_cfg.fdc_max_attempts;
    j->j_ntasks = sj->sj_ntasks;
    j->j_tasks = tasks;
    j->j_blob = blob;
    j->j_cons = cons;
    j->j_submit = now;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        const sk_task_spec *ts = &sj->sj_tasks[i];
        fd_task *t = &tasks[i];
        t->t_job = j;
        t->t_index = i;
        t->t_ref = sj->sj_key != 0 ? ts->ts_ref : 0;
        t->t_slot = UINT32_MAX;
        t->t_spec = (const uint8_t *)at;
        t->t_spec_len = ts->ts_spec.b_len;
        if (ts->ts_spec.b_len > 0)
            memcpy(at, ts->ts_spec.b_data, ts->ts_spec.b_len);
        at += ts->ts_spec.b_len;
        t->t_prefs = pv;
        t->t_nprefs = ts->ts_npreferred + ts->ts_nracks;
        t->t_nracks = ts->ts_nracks;
        for (uint32_t p = 0; p < ts->ts_npreferred; p++)
            *pv++ = copy_str(&at, ts->ts_preferred[p]);
        for (uint32_t p = 0; p < ts->ts_nracks; p++)
            *pv++ = copy_str(&at, ts->ts_racks[p]);
    }
    /* Slots last: the only step left that can fail. A task a scheduler
     * re-forwards as done keeps its index and nothing else. */
    uint32_t live = 0;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        tasks[i].t_attempt = sj->sj_tasks[i].ts_attempt;
        if (sj->sj_tasks[i].ts_done) {
            tasks[i].t_state = FD_TASK_DEAD;
            continue;
        }
        live++;
        if (fd_slots_take(&c->c_tasks, &tasks[i], &tasks[i].t_slot) != 0 ||
            fd_due_reserve(c, c->c_tasks.sl_len) != 0) {
            c->c_st.fs_nomem++;
            s->s_njobs++;
            c->c_njobs++;
            j->j_live = 0;
            job_retire(c, j);
            c->c_st.fs_jobs_rejected++;
            answer(c, s, sj->sj_job, "flowd is out of memory");
            return;
        }
    }
    s->s_njobs++;
    c->c_njobs++;
    c->c_st.fs_jobs = c->c_njobs;
    c->c_ntasks += live;
    j->j_live = live;
    for (uint32_t i = 0; i < sj->sj_ntasks; i++) {
        tasks[i].t_since = now;
        if (tasks[i].t_state != FD_TASK_DEAD)
            fd_task_set_state(c, &tasks[i], FD_TASK_WAITING);
    }
    job_dirty(c, j);
    c->c_st.fs_jobs_accepted++;
    fd_event(c, now);
    answer(c, s, sj->sj_job, NULL);
    if (live == 0)
        job_retire(c, j);
}

/* ---- CANCEL_JOB, TASK_FINISHED, schedulers leaving ----------------------*/

void fd_job_cancel(fd_core *c, sk_time now, fd_job *j)
{
    for (uint32_t i = 0; i < j->j_ntasks; i++) {
        fd_task *t = &j->j_tasks[i];
        if (t->t_state == FD_TASK_DEAD)
            continue;
        if (t->t_node != NULL)
            fd_send_release(c, t->t_node, t->t_resv, j->j_id, t->t_index);
        fd_task_end(c, now, t, 0, NULL);
    }
    job_retire(c, j);
    c->c_st.fs_jobs_cancelled++;
}

void fd_on_cancel(fd_core *c, sk_time now, fd_sched *s, const sk_cancel_job *cj)
{
    fd_job *j = fd_job_find(s, cj->cj_job);
    if (j == NULL) {
        c->c_st.fs_unknown++;
        return;
    }
    fd_job_cancel(c, now, j);
}

void fd_on_finished(fd_core *c, sk_time now, fd_sched *s,
                    const sk_task_finished *tf)
{
    fd_job *j = fd_job_find(s, tf->tf_job);
    if (j == NULL || tf->tf_task >= j->j_ntasks) {
        c->c_st.fs_unknown++;
        return;
    }
    fd_task *t = &j->j_tasks[tf->tf_task];
    if (t->t_state == FD_TASK_DEAD) {
        c->c_st.fs_stale++;
        return;
    }
    /* The scheduler passes on only the outcome it keeps: the task is
     * over, whatever this core holds of it. Another attempt (this core
     * placed the task again after its node was lost, or the outcome was
     * offered from elsewhere) is released, so that it does not complete
     * a second time. */
    if (t->t_node != NULL &&
        (t->t_attempt != tf->tf_attempt || t->t_state != FD_TASK_RUNNING)) {
        fd_send_release(c, t->t_node, t->t_resv, j->j_id, t->t_index);
        c->c_st.fs_done_elsewhere++;
    } else if (t->t_state == FD_TASK_WAITING) {
        c->c_st.fs_done_elsewhere++;
    }
    c->c_st.fs_tasks_ended++;
    fd_task_end(c, now, t, 0, NULL);
}

void fd_sched_down(fd_core *c, sk_time now, fd_sched *s)
{
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_sched == s && !j->j_dead)
            fd_job_cancel(c, now, j);
    }
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j != NULL && j->j_sched == s)
            j->j_sched = NULL;
    }
    if (s->s_gone)
        c->c_st.fs_sched_held--;
    else
        c->c_st.fs_schedulers--;
    fd_sched_free(c, s);
}
