/*
 * nm_core.c - the node monitor core: peers, reservations, slots, task
 * launch and completion, long-task reservations. Heartbeats and status
 * replies are in nm_report.c.
 */
#include "nm_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Freed jobs and reservations a core keeps for reuse (nm_pool.h). */
#define NM_POOL_KEEP 64u

/* Count one drop of a kind and log the first and every 1024th. */
static void count_limit(uint64_t *counter, const char *what)
{
    uint64_t n = ++*counter;
    if (n == 1 || n % 1024 == 0)
        sk_warn("nodemon: %s (%" PRIu64 " so far)", what, n);
}

sk_msg *nm_push(nm_core *nm, sk_peer peer, sk_msg_type type)
{
    sk_msg *m = sk_outbox_push(nm->nm_out, peer, type);
    if (m == NULL)
        count_limit(&nm->nm_st.ns_nomem, "out of memory: message lost");
    return m;
}

/* Entering the core: the previous call's outgoing messages are gone. */
static void enter(nm_core *nm)
{
    sk_arena_rewind(&nm->nm_scratch);
}

/* ---- lookups ---------------------------------------------------------- */

static nm_peer *find_peer(const nm_core *nm, sk_peer id)
{
    if (id == NM_PEER_COMMAND)
        return (nm_peer *)&nm->nm_command;
    for (nm_hnode *n = nm_htab_find(&nm->nm_peers, nm_peer_hash(id)); n;
         n = nm_htab_next(n)) {
        nm_peer *p = NM_CONTAINER(n, nm_peer, pe_hnode);
        if (p->pe_id == id)
            return p;
    }
    return NULL;
}

static nm_peer *find_executor(const nm_core *nm, const char *fw)
{
    if (fw[0] == '\0')
        return (nm_peer *)&nm->nm_command;
    for (nm_hnode *n = nm_htab_find(&nm->nm_fw, nm_hash_str(fw)); n;
         n = nm_htab_next(n)) {
        nm_peer *p = NM_CONTAINER(n, nm_peer, pe_fw_hnode);
        if (strcmp(p->pe_framework, fw) == 0)
            return p;
    }
    return NULL;
}

/* ---- executors away --------------------------------------------------- */

static int away_index(const nm_core *nm, const char *fw)
{
    for (uint32_t i = 0; i < nm->nm_naway; i++)
        if (strcmp(nm->nm_away[i], fw) == 0)
            return (int)i;
    return -1;
}

/* Whether tasks of job of scheduler s were given back here, their
 * framework still away. */
static bool away_job(const nm_core *nm, sk_peer s, uint64_t job)
{
    for (uint32_t i = 0; i < NM_MAX_AWAY_JOBS; i++)
        if (nm->nm_away_jobs[i].aj_fw != 0 &&
            nm->nm_away_jobs[i].aj_job == job &&
            nm->nm_away_jobs[i].aj_sched == s)
            return true;
    return false;
}

static void away_job_add(nm_core *nm, sk_peer s, uint64_t job, const char *fw)
{
    if (away_job(nm, s, job))
        return;
    uint32_t i = nm->nm_away_next++ % NM_MAX_AWAY_JOBS;
    nm->nm_away_jobs[i].aj_sched = s;
    nm->nm_away_jobs[i].aj_job = job;
    nm->nm_away_jobs[i].aj_fw = nm_hash_str(fw) | 1;
}

/* fw's executor is registered again: its tasks launch as before. */
static void away_end(nm_core *nm, const char *fw)
{
    uint64_t h = nm_hash_str(fw) | 1;
    for (uint32_t k = 0; k < NM_MAX_AWAY_JOBS; k++)
        if (nm->nm_away_jobs[k].aj_fw == h)
            nm->nm_away_jobs[k].aj_fw = 0;
    int i = away_index(nm, fw);
    if (i < 0)
        return;
    free(nm->nm_away[i]);
    memmove(&nm->nm_away[i], &nm->nm_away[i + 1],
            (nm->nm_naway - (uint32_t)i - 1) * sizeof nm->nm_away[0]);
    nm->nm_naway--;
}

/* fw's last executor left: remember it, forgetting the oldest when
 * NM_MAX_AWAY are remembered (a task of that one fails, as for a
 * framework never seen). */
static void away_start(nm_core *nm, const char *fw)
{
    if (away_index(nm, fw) >= 0)
        return;
    char *name = strdup(fw);
    if (name == NULL) {
        nm->nm_st.ns_nomem++;
        return;
    }
    if (nm->nm_naway == NM_MAX_AWAY) {
        free(nm->nm_away[0]);
        memmove(&nm->nm_away[0], &nm->nm_away[1],
                (NM_MAX_AWAY - 1) * sizeof nm->nm_away[0]);
        nm->nm_naway--;
    }
    nm->nm_away[nm->nm_naway++] = name;
}

nm_peer *nm_sched_by_id(const nm_core *nm, uint32_t id)
{
    for (nm_hnode *n = nm_htab_find(&nm->nm_sched_ids, nm_sched_hash(id)); n;
         n = nm_htab_next(n)) {
        nm_peer *p = NM_CONTAINER(n, nm_peer, pe_sched_hnode);
        if (p->pe_hello_id == id)
            return p;
    }
    return NULL;
}

static nm_job *find_job(const nm_core *nm, const nm_peer *sched, uint64_t id)
{
    for (nm_hnode *n =
             nm_htab_find(&nm->nm_jobs, nm_job_hash(sched->pe_id, id));
         n; n = nm_htab_next(n)) {
        nm_job *j = NM_CONTAINER(n, nm_job, jb_hnode);
        if (j->jb_sched == sched && j->jb_id == id)
            return j;
    }
    return NULL;
}

static nm_resv *find_resv(const nm_core *nm, const nm_peer *sched, uint64_t id)
{
    for (nm_hnode *n =
             nm_htab_find(&nm->nm_resvs, nm_resv_hash(sched->pe_id, id));
         n; n = nm_htab_next(n)) {
        nm_resv *r = NM_CONTAINER(n, nm_resv, rs_hnode);
        if (r->rs_job->jb_sched == sched && r->rs_id == id)
            return r;
    }
    return NULL;
}

/* The running task an executor knows as (local job id, task, attempt). */
static nm_task *find_task(const nm_core *nm, uint64_t local, uint32_t task,
                          uint32_t attempt)
{
    for (nm_hnode *n =
             nm_htab_find(&nm->nm_tasks, nm_task_hash(local, task, attempt));
         n; n = nm_htab_next(n)) {
        nm_task *t = NM_CONTAINER(n, nm_task, tk_hnode);
        if (t->tk_local == local && t->tk_task == task &&
            t->tk_attempt == attempt)
            return t;
    }
    return NULL;
}

int nm_task_origin(const nm_core *nm, uint64_t job, uint32_t task,
                   uint32_t attempt, nm_origin *o)
{
    const nm_task *t = find_task(nm, job, task, attempt);
    if (t == NULL)
        return -1;
    o->or_key = t->tk_key;
    o->or_ref = t->tk_ref;
    if (t->tk_job != NULL) {
        o->or_sched = t->tk_job->jb_sched->pe_hello_id;
        o->or_sched_inc = t->tk_job->jb_sched->pe_incarnation;
    } else {
        o->or_sched = t->tk_orphan_of;
        o->or_sched_inc = t->tk_orphan_inc;
    }
    snprintf(o->or_user, sizeof o->or_user, "%s", t->tk_user->us_name);
    return 0;
}

static nm_long *find_long(const nm_core *nm, uint64_t resv)
{
    for (nm_hnode *n = nm_htab_find(&nm->nm_longs, nm_long_hash(resv)); n;
         n = nm_htab_next(n)) {
        nm_long *lg = NM_CONTAINER(n, nm_long, lg_hnode);
        if (lg->lg_resv == resv)
            return lg;
    }
    return NULL;
}

/* ---- resources -------------------------------------------------------- */

static bool fits(sk_resources req, int64_t cpu, int64_t mem)
{
    return (int64_t)req.r_cpu_milli <= cpu && (int64_t)req.r_mem_mb <= mem;
}

static uint32_t slots_used(const nm_core *nm)
{
    return nm->nm_nrunning + nm->nm_nfetching;
}

static void take(nm_core *nm, sk_resources r)
{
    nm->nm_used_cpu += r.r_cpu_milli;
    nm->nm_used_mem += r.r_mem_mb;
}

static void give_back(nm_core *nm, sk_resources r, uint32_t times)
{
    SK_ASSERT(nm->nm_used_cpu >= (uint64_t)r.r_cpu_milli * times &&
              nm->nm_used_mem >= (uint64_t)r.r_mem_mb * times);
    nm->nm_used_cpu -= (uint64_t)r.r_cpu_milli * times;
    nm->nm_used_mem -= (uint64_t)r.r_mem_mb * times;
}

/* ---- jobs and reservations -------------------------------------------- */

static nm_job *get_job(nm_core *nm, nm_peer *sched, uint64_t id)
{
    nm_job *j = find_job(nm, sched, id);
    if (j != NULL)
        return j;
    j = nm_pool_get(&nm->nm_job_pool);
    if (j == NULL)
        return NULL;
    j->jb_sched = sched;
    j->jb_id = id;
    j->jb_local = ++nm->nm_last_local;
    nm_list_init(&j->jb_resvs);
    nm_list_init(&j->jb_tasks);
    nm_list_init(&j->jb_longs);
    nm_list_push_back(&sched->pe_jobs, &j->jb_link);
    nm_htab_insert(&nm->nm_jobs, &j->jb_hnode, nm_job_hash(sched->pe_id, id));
    return j;
}

/* A job record lives while it holds anything. */
static void maybe_free_job(nm_core *nm, nm_job *j)
{
    if (!nm_list_empty(&j->jb_resvs) || !nm_list_empty(&j->jb_tasks) ||
        !nm_list_empty(&j->jb_longs))
        return;
    nm_htab_remove(&nm->nm_jobs, &j->jb_hnode);
    nm_list_remove(&j->jb_link);
    nm_pool_put(&nm->nm_job_pool, j);
}

nm_job *nm_rejob(nm_core *nm, nm_task *t, nm_peer *sched)
{
    nm_job *j = get_job(nm, sched, t->tk_job_id);
    if (j == NULL)
        return NULL;
    t->tk_job = j;
    nm_list_push_back(&j->jb_tasks, &t->tk_job_link);
    if (t->tk_long != NULL)
        t->tk_long->lg_job = j;
    return j;
}

/* A reservation lives while queued or while a GET_TASK is unanswered.
 * Does not free its job: the caller does (it may be walking the job). */
static void maybe_free_resv(nm_core *nm, nm_resv *r)
{
    if (r->rs_queued || r->rs_outstanding > 0)
        return;
    nm_htab_remove(&nm->nm_resvs, &r->rs_hnode);
    nm_list_remove(&r->rs_link);
    nm_user_unref(&nm->nm_q, r->rs_user);
    nm_pool_put(&nm->nm_resv_pool, r);
}

/* Stop serving r: out of the queue, nothing more to ask for. */
static void unqueue(nm_core *nm, nm_resv *r)
{
    if (r->rs_queued) {
        nm_queue_remove(&nm->nm_q, &r->rs_q);
        r->rs_queued = false;
    }
    r->rs_remaining = 0;
}

/* ---- long reservations ------------------------------------------------ */

static bool long_pending(const nm_long *lg)
{
    return !nm_list_empty(&lg->lg_link);
}

/* Take a pending long reservation off the pending list (it is starting
 * or going away). */
static void unpend(nm_core *nm, nm_long *lg)
{
    nm_list_remove(&lg->lg_link);
    nm_list_remove(&lg->lg_job_link);
    nm->nm_npending--;
    nm->nm_pend_cpu -= lg->lg_res.r_cpu_milli;
    nm->nm_pend_mem -= lg->lg_res.r_mem_mb;
}

/* Forget a long reservation, pending, starting or bound to a task. Does
 * not free its job. */
static void free_long(nm_core *nm, nm_long *lg)
{
    if (long_pending(lg))
        unpend(nm, lg);
    if (lg->lg_task != NULL) {
        lg->lg_task->tk_long = NULL;
        nm->nm_longrun_cpu -= lg->lg_res.r_cpu_milli;
        nm->nm_longrun_mem -= lg->lg_res.r_mem_mb;
    }
    nm_htab_remove(&nm->nm_longs, &lg->lg_hnode);
    nm->nm_nlong--;
    nm_user_unref(&nm->nm_q, lg->lg_user);
    free(lg->lg_spec);
    free(lg->lg_framework);
    free(lg);
}

/* ---- reporting to schedulers ------------------------------------------ */

/* Send a scheduler TASK_FINISHED for a task that ended here without an
 * executor's word. */
static void send_end(nm_core *nm, sk_peer to, uint64_t job, uint32_t task,
                     uint32_t attempt, sk_task_status status, sk_time launched,
                     sk_time now, const char *reason)
{
    sk_msg *m = nm_push(nm, to, SK_MSG_TASK_FINISHED);
    if (m == NULL)
        return;
    sk_task_finished *tf = &m->m_task_finished;
    tf->tf_job = job;
    tf->tf_task = task;
    tf->tf_attempt = attempt;
    tf->tf_node = nm->nm_cfg.nc_node;
    tf->tf_status = (uint8_t)status;
    tf->tf_exit = -1;
    size_t len = strlen(reason);
    if (len > SK_MAX_OUTPUT_BYTES)
        len = SK_MAX_OUTPUT_BYTES;
    tf->tf_output.b_data = sk_arena_memdup(&nm->nm_scratch, reason, len);
    tf->tf_output.b_len = tf->tf_output.b_data != NULL ? (uint32_t)len : 0;
    tf->tf_launch_us = launched;
    tf->tf_end_us = now;
}

/* The same for a task of job j (failed to launch, lost, killed before
 * starting); counted as dropped when j's scheduler has left. */
static void report_end(nm_core *nm, const nm_job *j, uint32_t task,
                       uint32_t attempt, sk_task_status status,
                       sk_time launched, sk_time now, const char *reason)
{
    if (j == NULL) {
        nm->nm_st.ns_results_dropped++;
        return;
    }
    send_end(nm, j->jb_sched->pe_id, j->jb_id, task, attempt, status, launched,
             now, reason);
}

/* ---- slots held for GET_TASK ------------------------------------------ */

/* Hold a free slot and r's resources for one GET_TASK until its answer,
 * or until get_task_timeout_ms. */
static void fetch_start(nm_core *nm, nm_resv *r, sk_time now)
{
    nm_link *l = nm_list_first(&nm->nm_fetch_free);
    SK_ASSERT(l != NULL); /* a free slot implies a free record */
    nm_fetch *fe = NM_CONTAINER(l, nm_fetch, fe_link);
    nm_list_remove(l);
    fe->fe_resv = r;
    fe->fe_deadline = now + (sk_time)nm->nm_cfg.nc_get_task_timeout_ms * 1000;
    /* Every wait is equally long, so appending keeps the list sorted by
     * deadline (for a driver whose clock does not go back). */
    nm_list_push_back(&nm->nm_fetches, &fe->fe_link);
    nm_list_push_back(&r->rs_fetches, &fe->fe_resv_link);
    r->rs_outstanding++;
    nm->nm_nfetching++;
    take(nm, r->rs_res);
}

/* Give back the slot of r's oldest GET_TASK (answered, expired, or its
 * scheduler gone). */
static void fetch_end(nm_core *nm, nm_resv *r)
{
    nm_link *l = nm_list_first(&r->rs_fetches);
    SK_ASSERT(l != NULL);
    nm_fetch *fe = NM_CONTAINER(l, nm_fetch, fe_resv_link);
    nm_list_remove(&fe->fe_resv_link);
    nm_list_remove(&fe->fe_link);
    nm_list_push_back(&nm->nm_fetch_free, &fe->fe_link);
    r->rs_outstanding--;
    nm->nm_nfetching--;
    give_back(nm, r->rs_res, 1);
}

void nm_send_started(nm_core *nm, const nm_task *t)
{
    sk_msg *m = nm_push(nm, t->tk_job->jb_sched->pe_id, SK_MSG_TASK_STARTED);
    if (m != NULL) {
        m->m_task_started.st_job = t->tk_job_id;
        m->m_task_started.st_task = t->tk_task;
        m->m_task_started.st_attempt = t->tk_attempt;
        m->m_task_started.st_node = nm->nm_cfg.nc_node;
        m->m_task_started.st_launch_us = t->tk_start;
    }
}

/* ---- launching -------------------------------------------------------- */

/* What a launch needs, from a TASK_REPLY or a long reservation. */
typedef struct launch_req {
    nm_job *lr_job;
    nm_user *lr_user;
    sk_resources lr_res;
    uint32_t lr_task;
    uint32_t lr_attempt;
    sk_bytes lr_spec;
    const char *lr_framework;
    uint64_t lr_key; /* the frontend's name for the task (0: none) */
    uint32_t lr_ref;
} launch_req;

/* Start a task on a free slot (not yet counted as used). Returns the
 * running task, or NULL after reporting the failure to the scheduler. */
static nm_task *launch(nm_core *nm, const launch_req *lr, sk_time now)
{
    char reason[SK_MAX_NAME_LEN + 64];
    nm_job *j = lr->lr_job;
    nm_peer *exec = find_executor(nm, lr->lr_framework);
    if (exec == NULL) {
        count_limit(&nm->nm_st.ns_no_executor,
                    "task for a framework with no executor failed");
        snprintf(reason, sizeof reason, "node %s: no executor for framework %s",
                 nm->nm_cfg.nc_node, lr->lr_framework);
        report_end(nm, j, lr->lr_task, lr->lr_attempt, SK_TASK_FAILED, now, now,
                   reason);
        return NULL;
    }
    if (find_task(nm, j->jb_local, lr->lr_task, lr->lr_attempt) != NULL) {
        count_limit(&nm->nm_st.ns_task_collisions,
                    "second launch of a running task failed");
        snprintf(reason, sizeof reason, "node %s: this attempt already runs",
                 nm->nm_cfg.nc_node);
        report_end(nm, j, lr->lr_task, lr->lr_attempt, SK_TASK_FAILED, now, now,
                   reason);
        return NULL;
    }
    nm_task *t = nm_pool_get(&nm->nm_task_pool);
    sk_msg *launch = nm_push(nm, exec->pe_id, SK_MSG_LAUNCH_TASK);
    void *spec = launch == NULL
                     ? NULL
                     : sk_arena_memdup(&nm->nm_scratch, lr->lr_spec.b_data,
                                       lr->lr_spec.b_len);
    char *user = sk_arena_strdup(&nm->nm_scratch, lr->lr_user->us_name);
    char *fw = sk_arena_strdup(&nm->nm_scratch, lr->lr_framework);
    if (t == NULL || launch == NULL || spec == NULL || user == NULL ||
        fw == NULL) {
        if (launch != NULL)
            sk_outbox_unpush(nm->nm_out, launch);
        nm_pool_put(&nm->nm_task_pool, t);
        nm->nm_st.ns_nomem++;
        report_end(nm, j, lr->lr_task, lr->lr_attempt, SK_TASK_FAILED, now, now,
                   "node monitor out of memory");
        return NULL;
    }
    sk_launch *lt = &launch->m_launch;
    lt->lt_job = j->jb_local;
    lt->lt_task = lr->lr_task;
    lt->lt_attempt = lr->lr_attempt;
    lt->lt_user = user;
    lt->lt_res = lr->lr_res;
    lt->lt_spec.b_data = spec;
    lt->lt_spec.b_len = lr->lr_spec.b_len;
    lt->lt_framework = fw;

    t->tk_job = j;
    t->tk_exec = exec;
    t->tk_user = lr->lr_user;
    t->tk_job_id = j->jb_id;
    t->tk_local = j->jb_local;
    t->tk_task = lr->lr_task;
    t->tk_attempt = lr->lr_attempt;
    t->tk_key = lr->lr_key;
    t->tk_ref = lr->lr_ref;
    t->tk_res = lr->lr_res;
    t->tk_start = now;
    nm_list_init(&t->tk_orphan);
    nm_htab_insert(&nm->nm_tasks, &t->tk_hnode,
                   nm_task_hash(j->jb_local, lr->lr_task, lr->lr_attempt));
    nm_list_push_back(&nm->nm_running, &t->tk_all);
    nm_list_push_back(&j->jb_tasks, &t->tk_job_link);
    nm_list_push_back(&exec->pe_tasks, &t->tk_exec_link);
    nm_user_ref(&nm->nm_q, t->tk_user);
    t->tk_user->us_running++;
    t->tk_user->us_start_sum += now;
    nm->nm_nrunning++;
    take(nm, lr->lr_res);
    nm->nm_st.ns_launched++;

    nm_send_started(nm, t);
    return t;
}

/* A task ended (finished, lost): free its slot and resources. */
static void end_task(nm_core *nm, nm_task *t, sk_time now)
{
    nm_job *j = t->tk_job;
    if (t->tk_long != NULL)
        free_long(nm, t->tk_long);
    nm_htab_remove(&nm->nm_tasks, &t->tk_hnode);
    nm_list_remove(&t->tk_all);
    nm_list_remove(&t->tk_job_link);
    nm_list_remove(&t->tk_exec_link);
    nm_orphan_end(nm, t);
    t->tk_user->us_running--;
    t->tk_user->us_start_sum -= t->tk_start;
    if (now > t->tk_start)
        t->tk_user->us_slot_us += now - t->tk_start;
    nm_user_unref(&nm->nm_q, t->tk_user);
    nm->nm_nrunning--;
    give_back(nm, t->tk_res, 1);
    nm_pool_put(&nm->nm_task_pool, t);
    if (j != NULL)
        maybe_free_job(nm, j);
}

static void start_long(nm_core *nm, nm_long *lg, sk_time now)
{
    nm_job *j = lg->lg_job;
    unpend(nm, lg);
    launch_req lr = {
        .lr_job = j,
        .lr_user = lg->lg_user,
        .lr_res = lg->lg_res,
        .lr_task = lg->lg_task_idx,
        .lr_attempt = lg->lg_attempt,
        .lr_spec = {lg->lg_spec, lg->lg_spec_len},
        .lr_framework = lg->lg_framework,
        .lr_key = lg->lg_key,
        .lr_ref = lg->lg_ref,
    };
    nm_task *t = launch(nm, &lr, now);
    if (t == NULL) {
        free_long(nm, lg);
        maybe_free_job(nm, j);
        return;
    }
    nm->nm_st.ns_long_started++;
    t->tk_long = lg;
    t->tk_was_long = true;
    lg->lg_task = t;
    nm->nm_longrun_cpu += lg->lg_res.r_cpu_milli;
    nm->nm_longrun_mem += lg->lg_res.r_mem_mb;
}

/* ---- the dispatcher --------------------------------------------------- */

/* Hand free slots out: pending long tasks first, then short reservations
 * in queue order. */
static void dispatch(nm_core *nm, sk_time now)
{
    int64_t cpu = (int64_t)nm->nm_cfg.nc_cpu_milli;
    int64_t mem = (int64_t)nm->nm_cfg.nc_mem_mb;
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_pending)) != NULL) {
        nm_long *lg = NM_CONTAINER(l, nm_long, lg_link);
        if (slots_used(nm) >= nm->nm_slots_total ||
            !fits(lg->lg_res, cpu - (int64_t)nm->nm_used_cpu,
                  mem - (int64_t)nm->nm_used_mem))
            break;
        start_long(nm, lg, now);
    }
    for (;;) {
        if (slots_used(nm) + nm->nm_npending >= nm->nm_slots_total)
            break;
        nm_qent *e = nm_queue_peek(&nm->nm_q);
        if (e == NULL)
            break;
        nm_resv *r = NM_CONTAINER(e, nm_resv, rs_q);
        int64_t held_cpu = (int64_t)(nm->nm_used_cpu + nm->nm_pend_cpu);
        int64_t held_mem = (int64_t)(nm->nm_used_mem + nm->nm_pend_mem);
        if (!fits(r->rs_res, cpu - held_cpu, mem - held_mem)) {
            int64_t long_cpu = (int64_t)(nm->nm_longrun_cpu + nm->nm_pend_cpu);
            int64_t long_mem = (int64_t)(nm->nm_longrun_mem + nm->nm_pend_mem);
            if (fits(r->rs_res, cpu - long_cpu, mem - long_mem))
                break; /* it fits once running short tasks end */
            count_limit(&nm->nm_st.ns_unfit,
                        "reservation can no longer fit: dropped");
            nm_job *j = r->rs_job;
            unqueue(nm, r);
            maybe_free_resv(nm, r);
            maybe_free_job(nm, j);
            continue;
        }
        sk_msg *m = nm_push(nm, r->rs_job->jb_sched->pe_id, SK_MSG_GET_TASK);
        if (m == NULL) {
            /* Without the GET_TASK the reservation cannot be served;
             * dropping it keeps the loop finite. */
            nm_job *j = r->rs_job;
            unqueue(nm, r);
            maybe_free_resv(nm, r);
            maybe_free_job(nm, j);
            continue;
        }
        m->m_get_task.gt_job = r->rs_job->jb_id;
        m->m_get_task.gt_resv = r->rs_id;
        m->m_get_task.gt_node_id = (uint32_t)nm->nm_cfg.nc_node_id;
        m->m_get_task.gt_node = nm->nm_cfg.nc_node;
        nm->nm_st.ns_get_tasks++;
        nm_queue_charge(&nm->nm_q, e);
        r->rs_remaining--;
        fetch_start(nm, r, now);
        if (r->rs_remaining == 0)
            unqueue(nm, r);
    }
}

/* ---- messages from schedulers ----------------------------------------- */

static void on_enqueue(nm_core *nm, nm_peer *s, const sk_enqueue *e,
                       sk_time now)
{
    if (e->er_priority >= SK_PRIORITIES || e->er_count == 0 ||
        e->er_user == NULL) {
        count_limit(&nm->nm_st.ns_unexpected, "malformed reservation");
        return;
    }
    if (nm->nm_q.q_total >= (uint64_t)nm->nm_cfg.nc_max_queued) {
        count_limit(&nm->nm_st.ns_queue_full,
                    "reservation queue full: reservation dropped");
        return;
    }
    if (!fits(e->er_res, nm->nm_cfg.nc_cpu_milli, nm->nm_cfg.nc_mem_mb)) {
        count_limit(&nm->nm_st.ns_unfit,
                    "reservation larger than the node: dropped");
        return;
    }
    if (find_resv(nm, s, e->er_resv) != NULL) {
        count_limit(&nm->nm_st.ns_duplicate,
                    "duplicate reservation id: dropped");
        return;
    }
    if (nm->nm_naway > 0 && away_job(nm, s->pe_id, e->er_job)) {
        count_limit(&nm->nm_st.ns_resv_away,
                    "reservation of a job whose executor is away: dropped");
        return;
    }
    nm_user *u;
    int rc = nm_queue_user(&nm->nm_q, e->er_user, &u);
    if (rc != 0) {
        if (rc == SK_ELIMIT)
            count_limit(&nm->nm_st.ns_users_full,
                        "too many users: reservation dropped");
        else
            count_limit(&nm->nm_st.ns_nomem,
                        "out of memory: reservation dropped");
        return;
    }
    nm_job *j = get_job(nm, s, e->er_job);
    nm_resv *r = j == NULL ? NULL : nm_pool_get(&nm->nm_resv_pool);
    if (r == NULL) {
        nm_user_unref(&nm->nm_q, u);
        if (j != NULL)
            maybe_free_job(nm, j);
        count_limit(&nm->nm_st.ns_nomem, "out of memory: reservation dropped");
        return;
    }
    r->rs_job = j;
    r->rs_user = u;
    r->rs_id = e->er_resv;
    r->rs_remaining = e->er_count;
    r->rs_res = e->er_res;
    r->rs_queued = true;
    nm_list_init(&r->rs_fetches);
    nm_htab_insert(&nm->nm_resvs, &r->rs_hnode,
                   nm_resv_hash(s->pe_id, r->rs_id));
    nm_list_push_back(&j->jb_resvs, &r->rs_link);
    nm_queue_push(&nm->nm_q, u, e->er_priority, &r->rs_q);
    nm->nm_st.ns_enqueued++;
    dispatch(nm, now);
}

/* The task of tr is for a framework whose executor left and is not
 * back: it goes back to s LOST, to run elsewhere, and the job's queued
 * reservations here (r among them, freed by the caller) are dropped, so
 * that this node fetches no more of the job's tasks. GET_TASKs already
 * sent are answered as usual, and their tasks come back here. */
static void return_task(nm_core *nm, nm_peer *s, nm_resv *r,
                        const sk_task_reply *tr, sk_time now)
{
    char reason[SK_MAX_NAME_LEN * 2 + 64];
    count_limit(&nm->nm_st.ns_executor_away,
                "task of a framework whose executor is away given back");
    nm->nm_st.ns_lost++;
    snprintf(reason, sizeof reason,
             "node %s: the executor of framework %s is away",
             nm->nm_cfg.nc_node, tr->tr_framework);
    send_end(nm, s->pe_id, tr->tr_job, tr->tr_task, tr->tr_attempt,
             SK_TASK_LOST, now, now, reason);
    away_job_add(nm, s->pe_id, tr->tr_job, tr->tr_framework);
    nm_job *j = r->rs_job;
    nm_link *next;
    for (nm_link *l = j->jb_resvs.ln_next; l != &j->jb_resvs; l = next) {
        next = l->ln_next;
        nm_resv *o = NM_CONTAINER(l, nm_resv, rs_link);
        unqueue(nm, o);
        if (o != r)
            maybe_free_resv(nm, o);
    }
}

static void on_task_reply(nm_core *nm, nm_peer *s, const sk_task_reply *tr,
                          sk_time now)
{
    nm_resv *r = find_resv(nm, s, tr->tr_resv);
    if (r == NULL || r->rs_outstanding == 0 || r->rs_job->jb_id != tr->tr_job) {
        count_limit(&nm->nm_st.ns_stale_replies,
                    "TASK_REPLY for no pending GET_TASK");
        if (tr->tr_has_task) {
            char reason[SK_MAX_NAME_LEN + 64];
            snprintf(reason, sizeof reason,
                     "node %s: no slot waits for this task",
                     nm->nm_cfg.nc_node);
            send_end(nm, s->pe_id, tr->tr_job, tr->tr_task, tr->tr_attempt,
                     SK_TASK_FAILED, now, now, reason);
        }
        return;
    }
    nm_job *j = r->rs_job;
    fetch_end(nm, r);
    const char *fw = tr->tr_framework != NULL ? tr->tr_framework : "";
    if (tr->tr_has_task && fw[0] != '\0' && find_executor(nm, fw) == NULL &&
        away_index(nm, fw) >= 0) {
        return_task(nm, s, r, tr, now);
    } else if (tr->tr_has_task) {
        nm->nm_st.ns_replies_task++;
        launch_req lr = {
            .lr_job = j,
            .lr_user = r->rs_user,
            .lr_res = r->rs_res,
            .lr_task = tr->tr_task,
            .lr_attempt = tr->tr_attempt,
            .lr_spec = tr->tr_spec,
            .lr_framework = tr->tr_framework != NULL ? tr->tr_framework : "",
            .lr_key = tr->tr_key,
            .lr_ref = tr->tr_ref,
        };
        launch(nm, &lr, now);
    } else {
        /* The job has nothing left to run: asking again is pointless. */
        nm->nm_st.ns_replies_empty++;
        unqueue(nm, r);
    }
    maybe_free_resv(nm, r);
    maybe_free_job(nm, j);
    dispatch(nm, now);
}

static void on_cancel(nm_core *nm, nm_peer *s, const sk_cancel_resv *c)
{
    nm->nm_st.ns_cancels++;
    nm_job *j = find_job(nm, s, c->cr_job);
    uint64_t removed = 0;
    if (j != NULL) {
        nm_link *l = j->jb_resvs.ln_next;
        while (l != &j->jb_resvs) {
            nm_resv *r = NM_CONTAINER(l, nm_resv, rs_link);
            l = l->ln_next;
            if (r->rs_queued)
                removed++;
            unqueue(nm, r);
            maybe_free_resv(nm, r);
        }
        maybe_free_job(nm, j);
    }
    if (removed == 0)
        nm->nm_st.ns_cancel_unknown++;
    nm->nm_st.ns_cancelled += removed;
}

void nm_send_kill(nm_core *nm, const nm_task *t)
{
    sk_msg *m = nm_push(nm, t->tk_exec->pe_id, SK_MSG_KILL_TASK);
    if (m == NULL)
        return;
    m->m_kill_task.kt_job = t->tk_local;
    m->m_kill_task.kt_task = t->tk_task;
    m->m_kill_task.kt_attempt = t->tk_attempt;
    nm->nm_st.ns_kills++;
}

static void kill_pending_long(nm_core *nm, nm_long *lg, sk_time now)
{
    report_end(nm, lg->lg_job, lg->lg_task_idx, lg->lg_attempt, SK_TASK_KILLED,
               now, now, "killed before it started");
    nm->nm_st.ns_kills++;
    free_long(nm, lg);
}

static void on_kill(nm_core *nm, nm_peer *s, const sk_kill_task *k, sk_time now)
{
    nm_job *j = find_job(nm, s, k->kt_job);
    bool any = k->kt_task == SK_TASK_ANY;
    uint64_t matched = 0;
    if (j != NULL) {
        for (nm_link *l = j->jb_tasks.ln_next; l != &j->jb_tasks;
             l = l->ln_next) {
            nm_task *t = NM_CONTAINER(l, nm_task, tk_job_link);
            if (any ||
                (t->tk_task == k->kt_task && t->tk_attempt == k->kt_attempt)) {
                nm_send_kill(nm, t);
                matched++;
            }
        }
        nm_link *l = j->jb_longs.ln_next;
        while (l != &j->jb_longs) {
            nm_long *lg = NM_CONTAINER(l, nm_long, lg_job_link);
            l = l->ln_next;
            if (any || (lg->lg_task_idx == k->kt_task &&
                        lg->lg_attempt == k->kt_attempt)) {
                kill_pending_long(nm, lg, now);
                matched++;
            }
        }
        maybe_free_job(nm, j);
    }
    if (matched == 0) {
        count_limit(&nm->nm_st.ns_kill_unknown, "KILL_TASK for no task here");
        return;
    }
    dispatch(nm, now);
}

/* ---- messages from executors ------------------------------------------ */

/* Whether the executor x may report the end of t, which another
 * executor runs: one of the same framework (a new process of an executor
 * killed as the task ended, reporting it from its journal before the
 * old session's timeout). */
static bool same_framework(const nm_peer *x, const nm_task *t)
{
    const nm_peer *runs = t->tk_exec;
    /* The command executor (NM_PEER_COMMAND) has no framework name. */
    return x->pe_role == SK_ROLE_EXECUTOR && runs->pe_framework != NULL &&
           x->pe_framework != NULL &&
           strcmp(runs->pe_framework, x->pe_framework) == 0;
}

static void on_finished(nm_core *nm, nm_peer *x, const sk_task_finished *f,
                        sk_time now)
{
    nm_task *t = find_task(nm, f->tf_job, f->tf_task, f->tf_attempt);
    if (t != NULL && t->tk_exec != x && same_framework(x, t))
        x = t->tk_exec;
    if ((t == NULL || t->tk_exec != x) && x->pe_role == SK_ROLE_EXECUTOR &&
        nm_outcome_late(nm, x, f, now))
        return;
    if (t == NULL || t->tk_exec != x) {
        count_limit(&nm->nm_st.ns_stale_finished,
                    "TASK_FINISHED for no task running there");
        return;
    }
    nm->nm_st.ns_finished++;
    if (t->tk_job == NULL)
        nm_outcome_keep(nm, t, t->tk_orphan_of, t->tk_orphan_inc, f, now);
    else
        nm_outcome_keep(nm, t, t->tk_job->jb_sched->pe_hello_id,
                        t->tk_job->jb_sched->pe_incarnation, f, now);
    if (t->tk_job == NULL) {
        nm->nm_st.ns_results_dropped++;
    } else {
        sk_msg *m =
            nm_push(nm, t->tk_job->jb_sched->pe_id, SK_MSG_TASK_FINISHED);
        if (m != NULL) {
            sk_task_finished *tf = &m->m_task_finished;
            *tf = *f;
            tf->tf_job = t->tk_job_id;
            tf->tf_node = nm->nm_cfg.nc_node;
            tf->tf_output.b_data = sk_arena_memdup(
                &nm->nm_scratch, f->tf_output.b_data, f->tf_output.b_len);
            if (tf->tf_output.b_data == NULL)
                tf->tf_output.b_len = 0;
        }
    }
    end_task(nm, t, now);
    dispatch(nm, now);
}

/* ---- messages from flowd ---------------------------------------------- */

static void reserve_reply(nm_core *nm, sk_peer to, sk_msg_type type,
                          uint64_t resv, uint64_t job, uint32_t task,
                          const char *reason)
{
    sk_msg *m = nm_push(nm, to, type);
    if (m == NULL)
        return;
    m->m_reserve_ack.ra_resv = resv;
    m->m_reserve_ack.ra_job = job;
    m->m_reserve_ack.ra_task = task;
    m->m_reserve_ack.ra_node_id = (uint32_t)nm->nm_cfg.nc_node_id;
    m->m_reserve_ack.ra_reason = sk_arena_strdup(&nm->nm_scratch, reason);
    if (m->m_reserve_ack.ra_reason == NULL)
        m->m_reserve_ack.ra_reason = "";
    if (type == SK_MSG_RESERVE_REJECT)
        nm->nm_st.ns_reserve_rejects++;
}

static void on_reserve(nm_core *nm, nm_peer *f, const sk_reserve *rv,
                       sk_time now)
{
    char reason[128] = "";
    nm_peer *s = NULL;
    nm_user *u = NULL;
    if (rv->rv_priority >= SK_PRIORITIES)
        snprintf(reason, sizeof reason, "priority out of range");
    else if (find_long(nm, rv->rv_resv) != NULL)
        snprintf(reason, sizeof reason, "duplicate reservation id");
    else if (!fits(rv->rv_res, nm->nm_cfg.nc_cpu_milli, nm->nm_cfg.nc_mem_mb))
        snprintf(reason, sizeof reason, "request exceeds the node");
    else if (nm->nm_nlong >= nm->nm_long_max)
        snprintf(reason, sizeof reason,
                 "long_share limit: %u of %u slots reserved", nm->nm_nlong,
                 nm->nm_slots_total);
    else if ((s = nm_sched_by_id(nm, rv->rv_sched)) == NULL)
        snprintf(reason, sizeof reason, "scheduler %u not connected",
                 rv->rv_sched);
    else if (nm_queue_user(&nm->nm_q, rv->rv_user ? rv->rv_user : "", &u) != 0)
        snprintf(reason, sizeof reason, "too many users");
    if (reason[0] != '\0') {
        reserve_reply(nm, f->pe_id, SK_MSG_RESERVE_REJECT, rv->rv_resv,
                      rv->rv_job, rv->rv_task, reason);
        return;
    }
    nm_job *j = get_job(nm, s, rv->rv_job);
    nm_long *lg = j == NULL ? NULL : calloc(1, sizeof *lg);
    const char *fw = rv->rv_framework != NULL ? rv->rv_framework : "";
    if (lg != NULL) {
        lg->lg_spec = malloc(rv->rv_spec.b_len > 0 ? rv->rv_spec.b_len : 1);
        lg->lg_framework = strdup(fw);
    }
    if (lg == NULL || lg->lg_spec == NULL || lg->lg_framework == NULL) {
        if (lg != NULL) {
            free(lg->lg_spec);
            free(lg->lg_framework);
            free(lg);
        }
        nm_user_unref(&nm->nm_q, u);
        if (j != NULL)
            maybe_free_job(nm, j);
        nm->nm_st.ns_nomem++;
        reserve_reply(nm, f->pe_id, SK_MSG_RESERVE_REJECT, rv->rv_resv,
                      rv->rv_job, rv->rv_task, "node monitor out of memory");
        return;
    }
    if (rv->rv_spec.b_len > 0)
        memcpy(lg->lg_spec, rv->rv_spec.b_data, rv->rv_spec.b_len);
    lg->lg_spec_len = rv->rv_spec.b_len;
    lg->lg_job = j;
    lg->lg_user = u;
    lg->lg_resv = rv->rv_resv;
    lg->lg_task_idx = rv->rv_task;
    lg->lg_attempt = rv->rv_attempt;
    lg->lg_key = rv->rv_key;
    lg->lg_ref = rv->rv_ref;
    lg->lg_res = rv->rv_res;
    nm_htab_insert(&nm->nm_longs, &lg->lg_hnode, nm_long_hash(lg->lg_resv));
    nm_list_push_back(&nm->nm_pending, &lg->lg_link);
    nm_list_push_back(&j->jb_longs, &lg->lg_job_link);
    nm->nm_npending++;
    nm->nm_nlong++;
    nm->nm_pend_cpu += lg->lg_res.r_cpu_milli;
    nm->nm_pend_mem += lg->lg_res.r_mem_mb;
    nm->nm_st.ns_reserves++;
    reserve_reply(nm, f->pe_id, SK_MSG_RESERVE_ACK, rv->rv_resv, rv->rv_job,
                  rv->rv_task, "");
    dispatch(nm, now);
}

/* The running long task of (job, task), for a RELEASE without a
 * reservation id: flowd adopted the task after a restart and never
 * learnt the id. Costs a walk over the running tasks. */
static nm_task *find_long_task(nm_core *nm, uint64_t job, uint32_t task)
{
    for (nm_link *l = nm->nm_running.ln_next; l != &nm->nm_running;
         l = l->ln_next) {
        nm_task *t = NM_CONTAINER(l, nm_task, tk_all);
        if (t->tk_was_long && t->tk_job_id == job && t->tk_task == task)
            return t;
    }
    return NULL;
}

static void on_release(nm_core *nm, const sk_release *rl, sk_time now)
{
    nm_task *adopted;
    if (rl->rl_resv == 0 &&
        (adopted = find_long_task(nm, rl->rl_job, rl->rl_task)) != NULL) {
        nm->nm_st.ns_releases++;
        if (rl->rl_kill)
            nm_send_kill(nm, adopted);
        return;
    }
    nm_long *lg = find_long(nm, rl->rl_resv);
    if (lg == NULL || lg->lg_task_idx != rl->rl_task ||
        (lg->lg_job != NULL && lg->lg_job->jb_id != rl->rl_job)) {
        count_limit(&nm->nm_st.ns_release_unknown,
                    "RELEASE for no reservation here");
        return;
    }
    nm->nm_st.ns_releases++;
    nm_job *j = lg->lg_job;
    if (lg->lg_task != NULL && rl->rl_kill)
        nm_send_kill(nm, lg->lg_task);
    bool was_pending = long_pending(lg);
    free_long(nm, lg);
    if (was_pending) {
        maybe_free_job(nm, j);
        dispatch(nm, now);
    }
}

/* A flowd that restarted re-plans what its last incarnation reserved:
 * the reservations not started yet go, so that none starts twice. */
static void drop_pending_longs(nm_core *nm)
{
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_pending)) != NULL) {
        nm_long *lg = NM_CONTAINER(l, nm_long, lg_link);
        nm_job *j = lg->lg_job;
        free_long(nm, lg);
        maybe_free_job(nm, j);
        nm->nm_st.ns_long_dropped++;
    }
}

/* ---- peers ------------------------------------------------------------ */

static void free_peer(nm_core *nm, nm_peer *p)
{
    if (p->pe_in_fw)
        nm_htab_remove(&nm->nm_fw, &p->pe_fw_hnode);
    if (p->pe_in_sched)
        nm_htab_remove(&nm->nm_sched_ids, &p->pe_sched_hnode);
    if (nm->nm_flowd == p)
        nm->nm_flowd = NULL;
    nm_htab_remove(&nm->nm_peers, &p->pe_hnode);
    nm->nm_npeers--;
    free(p->pe_framework);
    free(p);
}

void nm_peer_up(nm_core *nm, sk_peer peer, const sk_hello *hello, sk_time now)
{
    enter(nm);
    if (peer == NM_PEER_COMMAND || find_peer(nm, peer) != NULL ||
        hello->he_role < SK_ROLE_FRONTEND || hello->he_role > SK_ROLE_MAX ||
        (hello->he_role == SK_ROLE_EXECUTOR &&
         (hello->he_framework == NULL || hello->he_framework[0] == '\0'))) {
        count_limit(&nm->nm_st.ns_bad_hello, "bad or duplicate HELLO");
        return;
    }
    if (nm->nm_npeers >= (uint64_t)nm->nm_cfg.nc_max_peers) {
        count_limit(&nm->nm_st.ns_peers_full, "too many peers");
        return;
    }
    nm_peer *p = calloc(1, sizeof *p);
    if (p != NULL && hello->he_role == SK_ROLE_EXECUTOR) {
        p->pe_framework = strdup(hello->he_framework);
        if (p->pe_framework == NULL) {
            free(p);
            p = NULL;
        }
    }
    if (p == NULL) {
        count_limit(&nm->nm_st.ns_nomem, "out of memory: peer refused");
        return;
    }
    p->pe_id = peer;
    p->pe_role = hello->he_role;
    p->pe_hello_id = hello->he_id;
    p->pe_incarnation = hello->he_incarnation;
    nm_list_init(&p->pe_jobs);
    nm_list_init(&p->pe_tasks);
    nm_htab_insert(&nm->nm_peers, &p->pe_hnode, nm_peer_hash(peer));
    nm->nm_npeers++;
    switch (p->pe_role) {
    case SK_ROLE_EXECUTOR: {
        /* The newest executor of a framework takes new tasks; an older
         * one keeps running what it has. */
        nm_peer *old = find_executor(nm, p->pe_framework);
        if (old != NULL) {
            nm_htab_remove(&nm->nm_fw, &old->pe_fw_hnode);
            old->pe_in_fw = false;
        }
        nm_htab_insert(&nm->nm_fw, &p->pe_fw_hnode,
                       nm_hash_str(p->pe_framework));
        p->pe_in_fw = true;
        away_end(nm, p->pe_framework);
        break;
    }
    case SK_ROLE_SCHEDULER: {
        nm_peer *old = nm_sched_by_id(nm, p->pe_hello_id);
        if (old != NULL) {
            nm_htab_remove(&nm->nm_sched_ids, &old->pe_sched_hnode);
            old->pe_in_sched = false;
        }
        nm_htab_insert(&nm->nm_sched_ids, &p->pe_sched_hnode,
                       nm_sched_hash(p->pe_hello_id));
        p->pe_in_sched = true;
        nm_orphans_reclaim(nm, p);
        nm_outcomes_schedulers(nm, now);
        nm_outcomes_back(nm, p, now);
        break;
    }
    case SK_ROLE_FLOWD:
        if (nm->nm_flowd_inc != 0 &&
            hello->he_incarnation != nm->nm_flowd_inc) {
            drop_pending_longs(nm);
            dispatch(nm, now);
        }
        nm->nm_flowd_inc = hello->he_incarnation;
        nm->nm_flowd = p;
        nm->nm_users_next = now; /* a new flowd gets the users at once */
        nm->nm_users_page = 0;   /* from its first page */
        nm_send_heartbeat(nm, now);
        break;
    default:
        break;
    }
}

/* An executor left: its tasks are lost. */
static void executor_down(nm_core *nm, nm_peer *x, sk_time now)
{
    /* An older executor of the framework leaving leaves the newer one. */
    if (x->pe_in_fw)
        away_start(nm, x->pe_framework);
    char reason[SK_MAX_NAME_LEN * 2 + 64];
    snprintf(reason, sizeof reason, "node %s: executor of framework %s left",
             nm->nm_cfg.nc_node, x->pe_framework ? x->pe_framework : "");
    nm_link *l;
    while ((l = nm_list_first(&x->pe_tasks)) != NULL) {
        nm_task *t = NM_CONTAINER(l, nm_task, tk_exec_link);
        nm->nm_st.ns_lost++;
        report_end(nm, t->tk_job, t->tk_task, t->tk_attempt, SK_TASK_LOST,
                   t->tk_start, now, reason);
        nm_outcome_lost(nm, t, x, now);
        end_task(nm, t, now);
    }
}

/* A scheduler left: drop what waits for it, orphan what runs for it. */
static void scheduler_down(nm_core *nm, nm_peer *s, sk_time now)
{
    nm_link *l;
    while ((l = nm_list_first(&s->pe_jobs)) != NULL) {
        nm_job *j = NM_CONTAINER(l, nm_job, jb_link);
        nm_link *k;
        while ((k = nm_list_first(&j->jb_resvs)) != NULL) {
            nm_resv *r = NM_CONTAINER(k, nm_resv, rs_link);
            unqueue(nm, r);
            /* Its unanswered GET_TASKs will never be answered. */
            while (r->rs_outstanding > 0)
                fetch_end(nm, r);
            maybe_free_resv(nm, r);
        }
        while ((k = nm_list_first(&j->jb_longs)) != NULL) {
            nm_long *lg = NM_CONTAINER(k, nm_long, lg_job_link);
            if (nm->nm_flowd != NULL)
                reserve_reply(nm, nm->nm_flowd->pe_id, SK_MSG_RESERVE_REJECT,
                              lg->lg_resv, j->jb_id, lg->lg_task_idx,
                              "scheduler left");
            free_long(nm, lg);
        }
        while ((k = nm_list_first(&j->jb_tasks)) != NULL) {
            nm_task *t = NM_CONTAINER(k, nm_task, tk_job_link);
            nm_list_remove(&t->tk_job_link);
            t->tk_job = NULL;
            if (t->tk_long != NULL)
                t->tk_long->lg_job = NULL;
            nm_orphan(nm, t, s, now);
        }
        maybe_free_job(nm, j);
    }
}

void nm_peer_down(nm_core *nm, sk_peer peer, sk_time now)
{
    enter(nm);
    nm_peer *p = find_peer(nm, peer);
    if (p == NULL)
        return;
    if (p->pe_role == SK_ROLE_EXECUTOR)
        executor_down(nm, p, now);
    else if (p->pe_role == SK_ROLE_SCHEDULER) {
        scheduler_down(nm, p, now);
        nm_outcomes_offer(nm, p, now);
    }
    if (p != &nm->nm_command)
        free_peer(nm, p);
    nm_outcomes_schedulers(nm, now);
    dispatch(nm, now);
}

/* ---- the message switch ----------------------------------------------- */

void nm_on_message(nm_core *nm, sk_peer from, const sk_msg *msg, sk_time now)
{
    enter(nm);
    nm_peer *p = find_peer(nm, from);
    uint8_t role = p != NULL ? p->pe_role : 0;
    switch (msg->m_type) {
    case SK_MSG_STATUS_REQUEST: {
        sk_msg *m = nm_push(nm, from, SK_MSG_STATUS_REPLY);
        if (m == NULL)
            return;
        if (nm_fill_status(nm, &msg->m_status_request, now,
                           &m->m_status_reply) != 0) {
            sk_outbox_unpush(nm->nm_out, m);
            nm->nm_st.ns_nomem++;
            return;
        }
        nm->nm_st.ns_status_replies++;
        return;
    }
    case SK_MSG_ENQUEUE_RESERVATION:
        if (role == SK_ROLE_SCHEDULER)
            on_enqueue(nm, p, &msg->m_enqueue, now);
        else
            break;
        return;
    case SK_MSG_TASK_REPLY:
        if (role == SK_ROLE_SCHEDULER)
            on_task_reply(nm, p, &msg->m_task_reply, now);
        else
            break;
        return;
    case SK_MSG_CANCEL_RESERVATIONS:
        if (role == SK_ROLE_SCHEDULER)
            on_cancel(nm, p, &msg->m_cancel_resv);
        else
            break;
        return;
    case SK_MSG_KILL_TASK:
        if (role == SK_ROLE_SCHEDULER)
            on_kill(nm, p, &msg->m_kill_task, now);
        else
            break;
        return;
    case SK_MSG_TASK_FINISHED:
        if (role == SK_ROLE_EXECUTOR)
            on_finished(nm, p, &msg->m_task_finished, now);
        else
            break;
        return;
    case SK_MSG_RESERVE:
        if (role == SK_ROLE_FLOWD)
            on_reserve(nm, p, &msg->m_reserve, now);
        else
            break;
        return;
    case SK_MSG_RELEASE:
        if (role == SK_ROLE_FLOWD)
            on_release(nm, &msg->m_release, now);
        else
            break;
        return;
    default:
        break;
    }
    count_limit(&nm->nm_st.ns_unexpected,
                "unexpected message (type, role or unregistered peer)");
}

/* ---- life cycle and inspection ---------------------------------------- */

int nm_new(const nm_config *cfg, const nm_weights *weights, uint64_t seed,
           nm_core **out)
{
    char err[128];
    (void)seed;
    if (nm_config_check(cfg, err, sizeof err) != 0) {
        sk_error("%s", err);
        return SK_ECONFIG;
    }
    uint32_t nweights = weights == NULL ? 0 : weights->nw_count;
    if (nweights > NM_MAX_WEIGHTS) {
        sk_error("nodemon: more than %u weights", NM_MAX_WEIGHTS);
        return SK_ECONFIG;
    }
    nm_core *nm = calloc(1, sizeof *nm);
    if (nm == NULL)
        return SK_ENOMEM;
    nm->nm_cfg = *cfg;
    nm->nm_out = &nm->nm_own_out;
    if (nweights > 0) {
        nm->nm_weights = malloc(nweights * sizeof *nm->nm_weights);
        if (nm->nm_weights == NULL) {
            free(nm);
            return SK_ENOMEM;
        }
        memcpy(nm->nm_weights, weights->nw_users,
               nweights * sizeof *nm->nm_weights);
        nm->nm_nweights = nweights;
    }
    sk_arena_init(&nm->nm_scratch);
    nm_list_init(&nm->nm_running);
    nm_list_init(&nm->nm_pending);
    nm_list_init(&nm->nm_orphans);
    nm_list_init(&nm->nm_outcomes);
    nm_list_init(&nm->nm_lostruns);
    nm->nm_command.pe_id = NM_PEER_COMMAND;
    nm->nm_command.pe_role = SK_ROLE_EXECUTOR;
    nm_list_init(&nm->nm_command.pe_jobs);
    nm_list_init(&nm->nm_command.pe_tasks);
    nm->nm_slots_total = (uint32_t)cfg->nc_slots;
    nm_pool_init(&nm->nm_job_pool, sizeof(nm_job), NM_POOL_KEEP);
    nm_pool_init(&nm->nm_resv_pool, sizeof(nm_resv), NM_POOL_KEEP);
    nm_pool_init(&nm->nm_task_pool, sizeof(nm_task), nm->nm_slots_total);
    nm->nm_long_max = sk_long_cap(cfg->nc_long_share, cfg->nc_slots);
    nm->nm_hb_next = SK_TIME_NEVER;
    nm_list_init(&nm->nm_fetch_free);
    nm_list_init(&nm->nm_fetches);
    nm->nm_fetch_pool = calloc(nm->nm_slots_total, sizeof *nm->nm_fetch_pool);
    if (nm->nm_fetch_pool == NULL) {
        free(nm->nm_weights);
        free(nm);
        return SK_ENOMEM;
    }
    for (uint32_t i = 0; i < nm->nm_slots_total; i++)
        nm_list_push_back(&nm->nm_fetch_free, &nm->nm_fetch_pool[i].fe_link);
    nm_queue_init(&nm->nm_q, (uint32_t)cfg->nc_max_users, nm->nm_weights,
                  nm->nm_nweights);
    nm_htab_init(&nm->nm_peers);
    nm_htab_init(&nm->nm_fw);
    nm_htab_init(&nm->nm_sched_ids);
    nm_htab_init(&nm->nm_jobs);
    nm_htab_init(&nm->nm_resvs);
    nm_htab_init(&nm->nm_tasks);
    nm_htab_init(&nm->nm_longs);
    *out = nm;
    return 0;
}

static void free_all_peers(nm_core *nm)
{
    if (nm->nm_peers.ht_buckets == NULL)
        return;
    for (size_t i = 0; i < nm->nm_peers.ht_nbuckets; i++) {
        while (nm->nm_peers.ht_buckets[i] != NULL) {
            nm_peer *p =
                NM_CONTAINER(nm->nm_peers.ht_buckets[i], nm_peer, pe_hnode);
            if (p->pe_role == SK_ROLE_EXECUTOR) {
                nm_link *l;
                while ((l = nm_list_first(&p->pe_tasks)) != NULL)
                    end_task(nm, NM_CONTAINER(l, nm_task, tk_exec_link), 0);
            } else if (p->pe_role == SK_ROLE_SCHEDULER) {
                scheduler_down(nm, p, 0);
            }
            free_peer(nm, p);
        }
    }
}

void nm_free(nm_core *nm)
{
    if (nm == NULL)
        return;
    /* Forgetting a peer frees what it owns (a scheduler its jobs and
     * reservations, an executor its tasks), in any order; without flowd
     * nothing is reported on the way. */
    nm->nm_flowd = NULL;
    free_all_peers(nm);
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_command.pe_tasks)) != NULL)
        end_task(nm, NM_CONTAINER(l, nm_task, tk_exec_link), 0);
    nm_outcomes_free(nm);
    nm_queue_fini(&nm->nm_q);
    nm_htab_fini(&nm->nm_peers);
    nm_htab_fini(&nm->nm_fw);
    for (uint32_t i = 0; i < nm->nm_naway; i++)
        free(nm->nm_away[i]);
    nm_htab_fini(&nm->nm_sched_ids);
    nm_htab_fini(&nm->nm_jobs);
    nm_htab_fini(&nm->nm_resvs);
    nm_htab_fini(&nm->nm_tasks);
    nm_htab_fini(&nm->nm_longs);
    sk_outbox_free(&nm->nm_own_out);
    sk_arena_fini(&nm->nm_scratch);
    nm_pool_fini(&nm->nm_job_pool);
    nm_pool_fini(&nm->nm_resv_pool);
    nm_pool_fini(&nm->nm_task_pool);
    free(nm->nm_fetch_pool);
    free(nm->nm_weights);
    free(nm);
}

void nm_on_timer(nm_core *nm, sk_time now)
{
    enter(nm);
    bool freed = false;
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_fetches)) != NULL) {
        nm_fetch *fe = NM_CONTAINER(l, nm_fetch, fe_link);
        if (fe->fe_deadline > now)
            break;
        nm_resv *r = fe->fe_resv;
        nm_job *j = r->rs_job;
        count_limit(&nm->nm_st.ns_get_task_timeouts,
                    "GET_TASK unanswered: slot given back");
        fetch_end(nm, r);
        maybe_free_resv(nm, r);
        maybe_free_job(nm, j);
        freed = true;
    }
    if (freed)
        dispatch(nm, now);
    nm_orphans_expire(nm, now);
    if (nm->nm_flowd != NULL && now >= nm->nm_hb_next)
        nm_send_heartbeat(nm, now);
}

sk_time nm_next_deadline(const nm_core *nm)
{
    sk_time t = nm->nm_flowd != NULL ? nm->nm_hb_next : SK_TIME_NEVER;
    nm_link *l = nm_list_first(&nm->nm_fetches);
    if (l != NULL) {
        sk_time f = NM_CONTAINER(l, nm_fetch, fe_link)->fe_deadline;
        if (f < t)
            t = f;
    }
    sk_time o = nm_orphans_deadline(nm);
    return o < t ? o : t;
}

sk_outbox *nm_outbox(nm_core *nm)
{
    return nm->nm_out;
}

void nm_share_outbox(nm_core *nm, sk_outbox *ob)
{
    nm->nm_out = ob != NULL ? ob : &nm->nm_own_out;
}

const nm_stats *nm_get_stats(const nm_core *nm)
{
    return &nm->nm_st;
}

void nm_slots(const nm_core *nm, nm_slot_info *out)
{
    out->si_total = nm->nm_slots_total;
    out->si_used = slots_used(nm);
    out->si_fetching = nm->nm_nfetching;
    out->si_running = nm->nm_nrunning;
    out->si_reserved = nm->nm_nlong;
    out->si_long_pending = nm->nm_npending;
    out->si_used_res.r_cpu_milli =
        (uint32_t)(nm->nm_used_cpu + nm->nm_pend_cpu);
    out->si_used_res.r_mem_mb = (uint32_t)(nm->nm_used_mem + nm->nm_pend_mem);
    out->si_queued = nm->nm_q.q_total;
}

int nm_get_user(const nm_core *nm, const char *name, nm_user_info *out)
{
    const nm_user *u = nm_queue_find(&nm->nm_q, name);
    if (u == NULL)
        return SK_ENOTFOUND;
    out->ui_weight = u->us_weight;
    out->ui_queued = u->us_queued;
    out->ui_running = u->us_running;
    out->ui_slot_us = u->us_slot_us;
    for (unsigned p = 0; p < SK_PRIORITIES; p++)
        out->ui_queued_at[p] = u->us_q[p].uq_len;
    return 0;
}

uint32_t nm_job_queued(const nm_core *nm, sk_peer sched, uint64_t job)
{
    const nm_peer *s = find_peer(nm, sched);
    const nm_job *j = s != NULL ? find_job(nm, s, job) : NULL;
    uint32_t n = 0;
    if (j == NULL)
        return 0;
    for (const nm_link *l = j->jb_resvs.ln_next; l != &j->jb_resvs;
         l = l->ln_next)
        n += NM_CONTAINER(l, nm_resv, rs_link)->rs_queued;
    return n;
}

uint64_t nm_job_local(const nm_core *nm, sk_peer sched, uint64_t job)
{
    const nm_peer *s = find_peer(nm, sched);
    const nm_job *j = s != NULL ? find_job(nm, s, job) : NULL;
    return j != NULL ? j->jb_local : 0;
}
