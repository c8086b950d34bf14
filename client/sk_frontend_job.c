/*
 * sk_frontend_job.c - the jobs of a frontend (skylark.h): checking and
 * encoding a submission, the scheduler's answers and task reports, and
 * the one outcome every task ends with, including those the frontend
 * decides itself (rejection, scheduler lost, no scheduler, cancellation
 * before hand-over, a JOB_DONE that leaves tasks without an outcome).
 */
#include "sk_apiutil.h"
#include "sk_constraint.h"
#include "sk_frontend_int.h"
#include "sk_tauth.h"
#include "sk_log.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- lists ------------------------------------------------------------- */

/* Lists of jobs (waiting, held) through fj_prev and fj_next. */
static void list_unlink(fe_job **head, fe_job **tail, fe_job *j)
{
    if (j->fj_prev != NULL)
        j->fj_prev->fj_next = j->fj_next;
    else
        *head = j->fj_next;
    if (j->fj_next != NULL)
        j->fj_next->fj_prev = j->fj_prev;
    else
        *tail = j->fj_prev;
    j->fj_prev = j->fj_next = NULL;
}

static void list_append(fe_job **head, fe_job **tail, fe_job *j)
{
    j->fj_prev = *tail;
    j->fj_next = NULL;
    if (*tail != NULL)
        (*tail)->fj_next = j;
    else
        *head = j;
    *tail = j;
}

static void fe_unwait(sk_frontend *fe, fe_job *j)
{
    list_unlink(&fe->fe_wait_head, &fe->fe_wait_tail, j);
    fe->fe_nwaiting--;
}

void fe_job_sent(sk_frontend *fe, fe_job *j)
{
    fe_unwait(fe, j);
    free(j->fj_resub);
    j->fj_resub = NULL;
    if (fe->fe_max_failovers == 0) {
        free(j->fj_msg);
        j->fj_msg = NULL;
    }
    j->fj_state = FJ_SENT;
}

const uint8_t *fe_job_msg(const fe_job *j, uint32_t *len)
{
    if (j->fj_resub != NULL) {
        *len = j->fj_resub_len;
        return j->fj_resub;
    }
    *len = j->fj_msg_len;
    return j->fj_msg;
}

static void enwait(sk_frontend *fe, fe_job *j)
{
    list_append(&fe->fe_wait_head, &fe->fe_wait_tail, j);
    fe->fe_nwaiting++;
}

/* j waits for the session from now: handed over at once if one is up,
 * else within fo_queue_timeout. */
static void queue_job(sk_frontend *fe, fe_job *j)
{
    j->fj_state = FJ_WAITING;
    ev_now_update(fe->fe_loop);
    j->fj_queued_at = ev_now(fe->fe_loop);
    enwait(fe, j);
    if (fe->fe_up)
        fe_flush(fe);
    else
        fe_arm_queue_timer(fe);
}

static void uncancel(sk_frontend *fe, fe_job *j)
{
    if (!j->fj_in_cancel_list)
        return;
    for (fe_job **p = &fe->fe_cancels; *p != NULL; p = &(*p)->fj_cnext)
        if (*p == j) {
            *p = j->fj_cnext;
            break;
        }
    j->fj_cnext = NULL;
    j->fj_in_cancel_list = 0;
}

static void free_job(fe_job *j)
{
    free(j->fj_tasks);
    free(j->fj_msg);
    free(j->fj_resub);
    free(j->fj_sub_map);
    free(j->fj_old);
    free(j->fj_cancel_reason);
    free(j);
}

void fe_free_jobs(sk_frontend *fe)
{
    uint32_t pos = 0;
    fe_job *j;
    while ((j = sk_map_next(&fe->fe_jobs, &pos, NULL)) != NULL)
        free_job(j);
    sk_map_free(&fe->fe_jobs);
    sk_map_free(&fe->fe_wire);
    fe->fe_wait_head = fe->fe_wait_tail = NULL;
    fe->fe_held_head = fe->fe_held_tail = NULL;
    fe->fe_cancels = NULL;
    fe->fe_nwaiting = 0;
}

/* Room for the first line of a resubmitted command (make_resubmission). */
#define FE_CMD_PREFIX_MAX 96

/* ---- outcomes ---------------------------------------------------------- */

/* Report the end of task t of j; the caller has checked it had none. */
static void end_task(sk_frontend *fe, fe_job *j, uint32_t t,
                     const sk_task_result *r)
{
    j->fj_tasks[t].ft_flags |= FT_ENDED;
    j->fj_nended++;
    j->fj_count[r->tr_outcome]++;
    fe->fe_stats.fs_tasks_ended++;
    if (j->fj_cb.jc_task_done != NULL)
        j->fj_cb.jc_task_done(j->fj_cb.jc_arg, r);
}

/* The frontend decides the outcome of task t (it had none). */
static void decide_task(sk_frontend *fe, fe_job *j, uint32_t t,
                        sk_outcome outcome, const char *reason, uint64_t now)
{
    fe_task *ft = &j->fj_tasks[t];
    sk_task_result r = {
        .tr_job = j->fj_id,
        .tr_task = t,
        .tr_attempt = ft->ft_attempt,
        .tr_outcome = outcome,
        .tr_exit = -1,
        .tr_output = NULL,
        .tr_output_len = 0,
        .tr_node = "",
        .tr_reason = reason,
        .tr_started = (ft->ft_flags & FT_STARTED) != 0,
        .tr_submit_us = j->fj_submit_us,
        .tr_launch_us = ft->ft_launch_us,
        .tr_end_us = now,
    };
    end_task(fe, j, t, &r);
}

void fe_end_job(sk_frontend *fe, fe_job *j, sk_outcome outcome, int err,
                const char *reason)
{
    uint64_t now = sk_wall_us();
    /* Callbacks may submit, flush or cancel: the job leaves the lists
     * now, and stays in the map (where a cancel of it does nothing) until
     * its last task has ended. */
    if (j->fj_state == FJ_WAITING)
        fe_unwait(fe, j);
    else if (j->fj_state == FJ_HELD)
        list_unlink(&fe->fe_held_head, &fe->fe_held_tail, j);
    uncancel(fe, j);
    j->fj_state = FJ_ENDING;
    for (uint32_t t = 0; t < j->fj_ntasks; t++)
        if (!(j->fj_tasks[t].ft_flags & FT_ENDED))
            decide_task(fe, j, t, outcome, reason, now);
    sk_map_del(&fe->fe_jobs, j->fj_id);
    sk_map_del(&fe->fe_wire, j->fj_wire);
    for (unsigned i = 0; i + 1 < j->fj_nsubs; i++)
        sk_map_del(&fe->fe_wire, j->fj_old[i]);
    fe->fe_stats.fs_jobs_ended++;

    fe_kept k;
    sk_job_result *r = &k.fk_result;
    memset(r, 0, sizeof *r);
    r->jr_job = j->fj_id;
    r->jr_tasks = j->fj_ntasks;
    r->jr_ok = j->fj_count[SK_OUTCOME_OK];
    r->jr_failed = j->fj_count[SK_OUTCOME_FAILED];
    r->jr_killed = j->fj_count[SK_OUTCOME_KILLED];
    r->jr_lost = j->fj_count[SK_OUTCOME_LOST];
    r->jr_cancelled = j->fj_count[SK_OUTCOME_CANCELLED];
    r->jr_error = err;
    r->jr_submit_us = j->fj_submit_us;
    r->jr_end_us = now;
    r->jr_failovers = j->fj_nsubs - 1;
    snprintf(k.fk_reason, sizeof k.fk_reason, "%s", reason);
    r->jr_reason = k.fk_reason;
    if (j->fj_id == fe->fe_wait_id) {
        fe->fe_wait_result = k;
        fe->fe_wait_done = 1;
    }
    sk_job_callbacks cb = j->fj_cb;
    free_job(j);
    if (cb.jc_job_done != NULL) {
        cb.jc_job_done(cb.jc_arg, r);
        return;
    }
    fe_kept *keep = malloc(sizeof *keep);
    if (keep != NULL) {
        *keep = k;
        if (sk_map_put(&fe->fe_kept, r->jr_job, keep) == 0)
            return;
        free(keep);
    }
    sk_warn("frontend %s: out of memory keeping the result of job %llu",
            fe->fe_name, (unsigned long long)r->jr_job);
}

/* Cut a resubmission of j's unfinished tasks out of the whole job, under
 * a new wire id, and make it j's current submission. Each task's attempts
 * there are numbered after every attempt of it seen so far. The command
 * executor tells a command its index and attempt in the submission
 * (SKYLARK_TASK_INDEX, SKYLARK_ATTEMPT), so a command job's commands get
 * a first line that puts back the job's: without it, a command that
 * shards its work by index would do another task's share. Should that
 * not fit (a spec or the message over its limit), the commands go as
 * they are, with a warning. Returns 0, or SK_ENOMEM (or a codec error)
 * with j unchanged. */
static int make_resubmission(sk_frontend *fe, fe_job *j)
{
    sk_msg m;
    int rc = sk_msg_decode(j->fj_msg, j->fj_msg_len, &m);
    if (rc != 0)
        return rc;
    sk_submit_job *sj = &m.m_submit_job;
    sk_task_spec *all = sj->sj_tasks;
    int cmd = sj->sj_framework[0] == '\0';
    uint32_t n = j->fj_ntasks - j->fj_nended;
    size_t spec_bytes = 0;
    for (uint32_t t = 0; cmd && t < j->fj_ntasks; t++)
        if (!(j->fj_tasks[t].ft_flags & FT_ENDED))
            spec_bytes += all[t].ts_spec.b_len + FE_CMD_PREFIX_MAX;
    uint32_t *map = malloc(n * sizeof *map);
    uint32_t *base = malloc(n * sizeof *base);
    sk_task_spec *ts = calloc(n, sizeof *ts);
    char *specs = spec_bytes > 0 ? malloc(spec_bytes) : NULL;
    uint64_t *old = realloc(j->fj_old, j->fj_nsubs * sizeof *old);
    uint8_t *resub = NULL;
    if (old != NULL)
        j->fj_old = old;
    rc = SK_ENOMEM;
    if (map == NULL || base == NULL || ts == NULL || old == NULL ||
        (spec_bytes > 0 && specs == NULL))
        goto out;
    uint32_t k = 0;
    for (uint32_t t = 0; t < j->fj_ntasks; t++) {
        fe_task *ft = &j->fj_tasks[t];
        if (ft->ft_flags & FT_ENDED)
            continue;
        map[k] = t;
        /* The lost scheduler may have launched an attempt we never saw
         * start: skip a number for it too. */
        base[k] = ((ft->ft_flags & FT_STARTED) ? ft->ft_attempt
                                               : ft->ft_attempt_base) +
                  1;
        k++;
    }
    SK_ASSERT(k == n);
    uint64_t wire = FE_RESUB_BIT | fe->fe_next_wire;
    sj->sj_job = wire;
    sj->sj_tasks = ts;
    sj->sj_ntasks = n;
    for (int prefix = cmd; prefix >= 0; prefix--) {
        char *next = specs;
        for (uint32_t i = 0; i < n; i++) {
            ts[i] = all[map[i]];
            if (!prefix)
                continue;
            /* Specs of a command job end with their NUL (encode_job). */
            int len = snprintf(next, FE_CMD_PREFIX_MAX,
                               "export SKYLARK_TASK_INDEX=%u "
                               "SKYLARK_ATTEMPT=$((SKYLARK_ATTEMPT+%u))\n",
                               map[i], base[i]);
            SK_ASSERT(len > 0 && len < FE_CMD_PREFIX_MAX);
            memcpy(next + len, ts[i].ts_spec.b_data, ts[i].ts_spec.b_len);
            ts[i].ts_spec.b_data = (const uint8_t *)next;
            ts[i].ts_spec.b_len += (uint32_t)len;
            next += ts[i].ts_spec.b_len;
        }
        rc = sk_msg_encode(&fe->fe_buf, &m);
        if (rc == 0 && fe->fe_buf.b_len > fe->fe_max_msg)
            rc = SK_ELIMIT;
        if (rc != SK_ELIMIT || !prefix)
            break;
        sk_warn("frontend %s: job %llu: the commands with their task index "
                "do not fit in a submission; they go as they are",
                fe->fe_name, (unsigned long long)j->fj_id);
    }
    sj->sj_tasks = all; /* the decoded message owns these */
    sj->sj_ntasks = j->fj_ntasks;
    if (rc != 0)
        goto out;
    rc = SK_ENOMEM;
    if ((resub = malloc(fe->fe_buf.b_len)) == NULL ||
        sk_map_put(&fe->fe_wire, wire, j) != 0)
        goto out;
    memcpy(resub, fe->fe_buf.b_data, fe->fe_buf.b_len);
    fe->fe_next_wire++;
    j->fj_old[j->fj_nsubs - 1] = j->fj_wire;
    j->fj_wire = wire;
    j->fj_nsubs++;
    free(j->fj_sub_map);
    j->fj_sub_map = map;
    map = NULL;
    j->fj_sub_ntasks = n;
    memset(j->fj_sub_count, 0, sizeof j->fj_sub_count);
    free(j->fj_resub);
    j->fj_resub = resub;
    j->fj_resub_len = (uint32_t)fe->fe_buf.b_len;
    resub = NULL;
    for (uint32_t i = 0; i < n; i++)
        j->fj_tasks[j->fj_sub_map[i]].ft_attempt_base = base[i];
    rc = 0;
out:
    free(resub);
    free(specs);
    free(ts);
    free(base);
    free(map);
    sk_msg_free(&m);
    return rc;
}

void fe_lose_jobs(sk_frontend *fe, const char *endpoint)
{
    /* Collect first: callbacks may submit (into the waiting list) while
     * these end. */
    size_t n = 0;
    uint32_t pos = 0;
    fe_job *j;
    sk_job_id *ids = malloc((fe->fe_jobs.mp_len + 1) * sizeof *ids);
    if (ids == NULL) {
        sk_error("frontend %s: out of memory losing jobs", fe->fe_name);
        return;
    }
    while ((j = sk_map_next(&fe->fe_jobs, &pos, NULL)) != NULL)
        if (j->fj_state == FJ_SENT || j->fj_state == FJ_ACCEPTED)
            ids[n++] = j->fj_id;
    char reason[SK_MAX_ADDR_LEN + 64];
    ev_now_update(fe->fe_loop);
    for (size_t i = 0; i < n; i++) {
        j = sk_map_get(&fe->fe_jobs, ids[i]);
        if (j == NULL || (j->fj_state != FJ_SENT && j->fj_state != FJ_ACCEPTED))
            continue;
        /* A job whose every task has its outcome lacks only JOB_DONE. */
        if (j->fj_nended == j->fj_ntasks) {
            fe_end_job(fe, j, SK_OUTCOME_LOST, 0, "");
            continue;
        }
        /* A job being cancelled is not moved: what its framework wanted
         * is that its unfinished tasks stop being its concern. */
        if (j->fj_cancel != 0) {
            snprintf(reason, sizeof reason,
                     "scheduler lost while cancelling: %s", endpoint);
            fe_end_job(fe, j, SK_OUTCOME_CANCELLED, 0, reason);
            continue;
        }
        unsigned done = j->fj_nsubs - 1;
        if (done > 0)
            snprintf(reason, sizeof reason,
                     "scheduler lost: %s (after %u failover%s)", endpoint, done,
                     done > 1 ? "s" : "");
        else
            snprintf(reason, sizeof reason, "scheduler lost: %s", endpoint);
        if (done >= fe->fe_max_failovers) {
            fe_end_job(fe, j, SK_OUTCOME_LOST, SK_ECLOSED, reason);
            continue;
        }
        int rc = make_resubmission(fe, j);
        if (rc != 0) {
            sk_error("frontend %s: job %llu cannot fail over: %s", fe->fe_name,
                     (unsigned long long)j->fj_id, sk_strerror(rc));
            fe_end_job(fe, j, SK_OUTCOME_LOST, SK_ECLOSED, reason);
            continue;
        }
        sk_info("frontend %s: job %llu fails over with %u unfinished tasks "
                "of %u (failover %u of at most %u)",
                fe->fe_name, (unsigned long long)j->fj_id, j->fj_sub_ntasks,
                j->fj_ntasks, done + 1, fe->fe_max_failovers);
        queue_job(fe, j);
        fe->fe_stats.fs_failed_over++;
    }
    free(ids);
}

/* ---- submission -------------------------------------------------------- */

/* The public placements are the wire's. */
_Static_assert(SK_PLACEMENT_SAMPLE == (int)SK_PLACE_SAMPLE &&
                   SK_PLACEMENT_FLOW == (int)SK_PLACE_FLOW,
               "sk_job_placement and sk_placement differ");

static int check_str(sk_frontend *fe, const char *what, const char *s,
                     size_t max)
{
    size_t n = s != NULL ? strlen(s) : 0;
    if (n > max) {
        fe_set_error(fe, "%s of %zu bytes is over the limit of %zu", what, n,
                     max);
        return SK_ELIMIT;
    }
    return 0;
}

static int is_command_job(const sk_job_desc *jd)
{
    return jd->jo_framework == NULL || jd->jo_framework[0] == '\0';
}

/* A command for the node monitor's command executor: some bytes, no NUL
 * but an optional final one (which the frontend adds when missing). */
static int check_command(sk_frontend *fe, uint32_t t, const sk_task_desc *td)
{
    const char *s = td->td_spec;
    uint32_t n = td->td_spec_len;
    if (n > 0 && s[n - 1] == '\0')
        n--;
    if (n == 0) {
        fe_set_error(fe, "task %u: empty command", t);
        return SK_EINVAL;
    }
    if (memchr(s, '\0', n) != NULL) {
        fe_set_error(fe, "task %u: the command holds a NUL byte", t);
        return SK_EINVAL;
    }
    if (n + 1 > SK_MAX_SPEC_BYTES) {
        fe_set_error(fe, "task %u: command of %u bytes is over the limit of %u",
                     t, n, SK_MAX_SPEC_BYTES - 1);
        return SK_ELIMIT;
    }
    return 0;
}

/* Task t's n preferred nodes or racks (what: "node", "rack"): at most
 * SK_MAX_PREFERRED names of 1..SK_MAX_NAME_LEN bytes, racks of graphic
 * ASCII (sk_rack_valid). */
static int check_names(sk_frontend *fe, uint32_t t, const char *what,
                       const char *const *names, unsigned n)
{
    int racks = strcmp(what, "rack") == 0;
    if (n > SK_MAX_PREFERRED) {
        fe_set_error(fe, "task %u: %u preferred %ss is over the limit of %u", t,
                     n, what, SK_MAX_PREFERRED);
        return SK_ELIMIT;
    }
    for (unsigned i = 0; i < n; i++) {
        if (names == NULL || names[i] == NULL || names[i][0] == '\0') {
            fe_set_error(fe, "task %u: preferred %s %u is empty", t, what, i);
            return SK_EINVAL;
        }
        size_t len = strlen(names[i]);
        if (len > SK_MAX_NAME_LEN) {
            fe_set_error(fe,
                         "task %u: a preferred %s name of %zu bytes is over "
                         "the limit of %u",
                         t, what, len, SK_MAX_NAME_LEN);
            return SK_ELIMIT;
        }
        if (racks && !sk_rack_valid(names[i])) {
            fe_set_error(fe,
                         "task %u: preferred rack %u holds a space, a "
                         "control or a non-ASCII byte",
                         t, i);
            return SK_EINVAL;
        }
    }
    return 0;
}

/* Tags valid, the constraint spec parses (into *cs), and a "TAG=N"
 * names as many tasks as carry TAG. */
static int check_placement(sk_frontend *fe, const sk_job_desc *jd, sk_cspec *cs)
{
    for (uint32_t t = 0; t < jd->jo_ntasks; t++) {
        const sk_task_desc *td = &jd->jo_tasks[t];
        if (td->td_ntags > SK_MAX_TAGS) {
            fe_set_error(fe, "task %u: %u tags is over the limit of %u", t,
                         td->td_ntags, SK_MAX_TAGS);
            return SK_ELIMIT;
        }
        for (unsigned i = 0; i < td->td_ntags; i++)
            if (td->td_tags == NULL || !sk_tag_valid(td->td_tags[i])) {
                fe_set_error(fe,
                             "task %u: tag %u is not 1..%u bytes of "
                             "[A-Za-z0-9_.-]",
                             t, i, SK_MAX_TAG_LEN);
                return SK_EINVAL;
            }
    }
    cs->cs_n = 0;
    if (jd->jo_constraints == NULL || jd->jo_constraints[0] == '\0')
        return 0;
    char err[200];
    int rc = sk_constraint_parse(jd->jo_constraints, cs, err, sizeof err);
    if (rc != 0) {
        fe_set_error(fe, "constraint spec %s", err);
        return rc;
    }
    for (uint32_t i = 0; i < cs->cs_n; i++) {
        const sk_constraint *c = &cs->cs_items[i];
        uint32_t n = 0;
        for (uint32_t t = 0; c->cn_count > 0 && t < jd->jo_ntasks; t++)
            for (unsigned k = 0; k < jd->jo_tasks[t].td_ntags; k++)
                if (strcmp(jd->jo_tasks[t].td_tags[k], c->cn_source) == 0) {
                    n++;
                    break;
                }
        if (c->cn_count > 0 && n != c->cn_count) {
            fe_set_error(fe,
                         "constraint spec: %s=%u, but %u tasks carry the "
                         "tag %s",
                         c->cn_source, c->cn_count, n, c->cn_source);
            return SK_EINVAL;
        }
    }
    return 0;
}

static int check_job(sk_frontend *fe, const sk_job_desc *jd)
{
    int rc;
    if (jd->jo_ntasks == 0 || jd->jo_tasks == NULL) {
        fe_set_error(fe, "a job needs at least one task");
        return SK_EINVAL;
    }
    if (jd->jo_ntasks > SK_MAX_TASKS) {
        fe_set_error(fe, "%u tasks is over the limit of %u", jd->jo_ntasks,
                     SK_MAX_TASKS);
        return SK_ELIMIT;
    }
    if (jd->jo_priority >= SK_PRIORITIES) {
        fe_set_error(fe, "priority %u is out of range 0..%u", jd->jo_priority,
                     SK_PRIORITIES - 1);
        return SK_EINVAL;
    }
    if (!(jd->jo_probe_ratio == 0 ||
          (jd->jo_probe_ratio >= 1 &&
           jd->jo_probe_ratio <= SK_MAX_PROBE_RATIO))) {
        fe_set_error(fe, "probe ratio %g is not 0 or in 1..%g",
                     jd->jo_probe_ratio, SK_MAX_PROBE_RATIO);
        return SK_EINVAL;
    }
    if (jd->jo_placement != SK_PLACEMENT_SAMPLE &&
        jd->jo_placement != SK_PLACEMENT_FLOW) {
        fe_set_error(fe,
                     "placement %d is not SK_PLACEMENT_SAMPLE (0) or "
                     "SK_PLACEMENT_FLOW (1)",
                     (int)jd->jo_placement);
        return SK_EINVAL;
    }
    if (jd->jo_max_attempts > SK_MAX_ATTEMPTS) {
        fe_set_error(fe, "max attempts %u is over the limit of %u",
                     jd->jo_max_attempts, SK_MAX_ATTEMPTS);
        return SK_ELIMIT;
    }
    if ((rc = check_str(fe, "user", jd->jo_user, SK_MAX_NAME_LEN)) != 0 ||
        (rc = check_str(fe, "framework", jd->jo_framework, SK_MAX_NAME_LEN)) !=
            0)
        return rc;
    if (jd->jo_nlabels > SK_MAX_LABELS) {
        fe_set_error(fe, "%u labels is over the limit of %u", jd->jo_nlabels,
                     SK_MAX_LABELS);
        return SK_ELIMIT;
    }
    for (unsigned i = 0; i < jd->jo_nlabels; i++) {
        if (jd->jo_labels == NULL || jd->jo_labels[i] == NULL ||
            jd->jo_labels[i][0] == '\0') {
            fe_set_error(fe, "label %u is empty", i);
            return SK_EINVAL;
        }
        if ((rc = check_str(fe, "a label", jd->jo_labels[i],
                            SK_MAX_LABEL_LEN)) != 0)
            return rc;
    }
    for (uint32_t t = 0; t < jd->jo_ntasks; t++) {
        const sk_task_desc *td = &jd->jo_tasks[t];
        if (td->td_spec_len > SK_MAX_SPEC_BYTES) {
            fe_set_error(fe,
                         "task %u: spec of %u bytes is over the limit of %u", t,
                         td->td_spec_len, SK_MAX_SPEC_BYTES);
            return SK_ELIMIT;
        }
        if (td->td_spec_len > 0 && td->td_spec == NULL) {
            fe_set_error(fe, "task %u: spec is NULL", t);
            return SK_EINVAL;
        }
        if (is_command_job(jd) && (rc = check_command(fe, t, td)) != 0)
            return rc;
        if ((rc = check_names(fe, t, "node", td->td_preferred,
                              td->td_npreferred)) != 0 ||
            (rc = check_names(fe, t, "rack", td->td_racks, td->td_nracks)) != 0)
            return rc;
    }
    return 0;
}

static const char *default_user(char *buf, size_t len)
{
    struct passwd pw, *res = NULL;
    char tmp[1024];
    if (getpwuid_r(getuid(), &pw, tmp, sizeof tmp, &res) == 0 && res != NULL &&
        strlen(pw.pw_name) <= SK_MAX_NAME_LEN)
        snprintf(buf, len, "%s", pw.pw_name);
    else
        snprintf(buf, len, "uid%ld", (long)getuid());
    return buf;
}

/* Encode j's SUBMIT_JOB into a copy the job owns. */
static int encode_job(sk_frontend *fe, fe_job *j, const sk_job_desc *jd)
{
    char user[SK_MAX_NAME_LEN + 1];
    if (sk_tauth_init() < 0) /* for the job's key */
        return SK_ESYS;
    sk_cspec *cs = malloc(sizeof *cs);
    if (cs == NULL)
        return SK_ENOMEM;
    int rc = check_placement(fe, jd, cs);
    if (rc != 0) {
        free(cs);
        return rc;
    }
    sk_task_spec *ts = calloc(jd->jo_ntasks, sizeof *ts);
    if (ts == NULL) {
        free(cs);
        return SK_ENOMEM;
    }
    /* The command executor takes a NUL-terminated command line: copies of
     * the commands that lack the NUL get one. */
    size_t extra = 0;
    int cmd = is_command_job(jd);
    for (uint32_t t = 0; cmd && t < jd->jo_ntasks; t++) {
        const sk_task_desc *td = &jd->jo_tasks[t];
        if (((const char *)td->td_spec)[td->td_spec_len - 1] != '\0')
            extra += td->td_spec_len + 1;
    }
    char *copies = extra > 0 ? malloc(extra) : NULL, *next = copies;
    if (extra > 0 && copies == NULL) {
        free(ts);
        free(cs);
        return SK_ENOMEM;
    }
    for (uint32_t t = 0; t < jd->jo_ntasks; t++) {
        const sk_task_desc *td = &jd->jo_tasks[t];
        ts[t].ts_spec.b_data = td->td_spec;
        ts[t].ts_spec.b_len = td->td_spec_len;
        if (cmd && ((const char *)td->td_spec)[td->td_spec_len - 1] != '\0') {
            memcpy(next, td->td_spec, td->td_spec_len);
            next[td->td_spec_len] = '\0';
            ts[t].ts_spec.b_data = (const uint8_t *)next;
            ts[t].ts_spec.b_len = td->td_spec_len + 1;
            next += td->td_spec_len + 1;
        }
        ts[t].ts_preferred = (const char **)td->td_preferred;
        ts[t].ts_npreferred = td->td_npreferred;
        ts[t].ts_racks = (const char **)td->td_racks;
        ts[t].ts_nracks = td->td_nracks;
        /* ts_attempt and ts_done are a scheduler's, towards flowd */
        ts[t].ts_attempt = 0;
        ts[t].ts_done = false;
        ts[t].ts_tags = (const char **)td->td_tags;
        ts[t].ts_ntags = td->td_ntags;
        ts[t].ts_ref = t;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    sk_submit_job *sj = &m.m_submit_job;
    sj->sj_job = j->fj_id;
    sj->sj_user = jd->jo_user != NULL && jd->jo_user[0] != '\0' ? jd->jo_user
                  : fe->fe_user[0] != '\0'                      ? fe->fe_user
                                           : default_user(user, sizeof user);
    sj->sj_priority = (uint8_t)jd->jo_priority;
    sj->sj_probe_ratio = jd->jo_probe_ratio;
    sj->sj_labels = (const char **)jd->jo_labels;
    sj->sj_nlabels = jd->jo_nlabels;
    sj->sj_res.r_cpu_milli = jd->jo_cpu_milli;
    sj->sj_res.r_mem_mb = jd->jo_mem_mb;
    sj->sj_max_attempts = jd->jo_max_attempts;
    sj->sj_long = jd->jo_long != 0;
    sj->sj_placement = (uint8_t)jd->jo_placement;
    sj->sj_framework = jd->jo_framework != NULL ? jd->jo_framework : "";
    sj->sj_tasks = ts;
    sj->sj_ntasks = jd->jo_ntasks;
    sj->sj_constraints = cs->cs_items;
    sj->sj_nconstraints = cs->cs_n;
    /* The job's name for every scheduler that runs it, resubmissions
     * included (they copy it and the refs from this message): a node
     * monitor offers an outcome its scheduler may have missed under it
     * (docs/FAULTS.md). Random, so that no one can guess another's. */
    do
        sk_tauth_random(&sj->sj_key, sizeof sj->sj_key);
    while (sj->sj_key == 0);
    rc = sk_msg_encode(&fe->fe_buf, &m);
    free(ts);
    free(copies);
    free(cs);
    if (rc != 0) {
        fe_set_error(fe, "the job does not encode: %s", sk_strerror(rc));
        return rc;
    }
    if (fe->fe_buf.b_len > fe->fe_max_msg) {
        fe_set_error(fe,
                     "the job encodes to %zu bytes, over the transport's "
                     "limit of %u: split it",
                     fe->fe_buf.b_len, fe->fe_max_msg);
        return SK_ELIMIT;
    }
    if ((j->fj_msg = malloc(fe->fe_buf.b_len)) == NULL)
        return SK_ENOMEM;
    memcpy(j->fj_msg, fe->fe_buf.b_data, fe->fe_buf.b_len);
    j->fj_msg_len = (uint32_t)fe->fe_buf.b_len;
    return 0;
}

void sk_job_desc_init(sk_job_desc *j)
{
    memset(j, 0, sizeof *j);
    j->jo_priority = 4;
}

int sk_frontend_submit(sk_frontend *fe, const sk_job_desc *jd,
                       const sk_job_callbacks *cb, sk_job_id *out)
{
    fe->fe_err[0] = '\0';
    if (jd == NULL) {
        fe_set_error(fe, "no job");
        return SK_EINVAL;
    }
    int rc = check_job(fe, jd);
    if (rc != 0)
        return rc;
    if (fe->fe_jobs.mp_len >= fe->fe_max_jobs) {
        fe_set_error(fe, "%u jobs in flight: the limit", fe->fe_max_jobs);
        return SK_ELIMIT;
    }
    fe_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return SK_ENOMEM;
    j->fj_id = j->fj_wire = fe->fe_next_id;
    j->fj_nsubs = 1;
    j->fj_ntasks = j->fj_sub_ntasks = jd->jo_ntasks;
    j->fj_tasks = calloc(jd->jo_ntasks, sizeof *j->fj_tasks);
    if (j->fj_tasks == NULL || (rc = encode_job(fe, j, jd)) != 0 ||
        (rc = sk_map_put(&fe->fe_wire, j->fj_wire, j)) != 0) {
        free_job(j);
        return rc != 0 ? rc : SK_ENOMEM;
    }
    if ((rc = sk_map_put(&fe->fe_jobs, j->fj_id, j)) != 0) {
        sk_map_del(&fe->fe_wire, j->fj_wire);
        free_job(j);
        return rc;
    }
    fe->fe_next_id++;
    if (cb != NULL)
        j->fj_cb = *cb;
    j->fj_submit_us = sk_wall_us();
    fe->fe_stats.fs_jobs_submitted++;
    if (out != NULL)
        *out = j->fj_id;
    queue_job(fe, j);
    return 0;
}

int sk_frontend_cancel(sk_frontend *fe, sk_job_id id, const char *reason)
{
    fe_job *j = sk_map_get(&fe->fe_jobs, id);
    if (j == NULL) {
        fe_set_error(fe, "job %llu is not in flight", (unsigned long long)id);
        return SK_ENOTFOUND;
    }
    if (j->fj_cancel != 0 || j->fj_state == FJ_ENDING)
        return 0;
    if (j->fj_state == FJ_WAITING || j->fj_state == FJ_HELD) {
        fe_end_job(fe, j, SK_OUTCOME_CANCELLED, 0,
                   j->fj_nsubs > 1 ? "cancelled while failing over"
                                   : "cancelled before it reached a scheduler");
        return 0;
    }
    j->fj_cancel = 1;
    if (reason != NULL && reason[0] != '\0') {
        size_t n = strlen(reason);
        if (n > SK_MAX_REASON_LEN)
            n = SK_MAX_REASON_LEN;
        j->fj_cancel_reason = strndup(reason, n);
    }
    j->fj_cnext = fe->fe_cancels;
    fe->fe_cancels = j;
    j->fj_in_cancel_list = 1;
    fe_flush(fe);
    return 0;
}

/* ---- the scheduler's messages ------------------------------------------ */

/* The job a message names by the wire id of one of its submissions, if
 * that is the current one and it was handed over. */
static fe_job *find_job(sk_frontend *fe, uint64_t wire)
{
    fe_job *j = sk_map_get(&fe->fe_wire, wire);
    if (j == NULL || j->fj_state == FJ_ENDING ||
        (j->fj_state == FJ_WAITING && wire == j->fj_wire)) {
        fe->fe_stats.fs_unknown_job++; /* not (yet) handed over */
        return NULL;
    }
    if (wire != j->fj_wire) {
        /* A submission that failed over: its task went to the next. */
        fe->fe_stats.fs_stale++;
        return NULL;
    }
    return j;
}

/* The task a report names by its index in the current submission, if it
 * is in range and has no outcome yet; its index in the job in *task. */
static fe_task *find_task(sk_frontend *fe, fe_job *j, uint32_t sub,
                          uint32_t *task)
{
    if (j->fj_state != FJ_ACCEPTED) {
        fe->fe_stats.fs_unexpected++; /* a report before JOB_ACCEPTED */
        return NULL;
    }
    if (sub >= j->fj_sub_ntasks) {
        fe->fe_stats.fs_bad_field++;
        return NULL;
    }
    *task = j->fj_sub_map != NULL ? j->fj_sub_map[sub] : sub;
    if (j->fj_tasks[*task].ft_flags & FT_ENDED) {
        fe->fe_stats.fs_duplicate++;
        return NULL;
    }
    return &j->fj_tasks[*task];
}

/* A resubmission refused by the scheduler it failed over to: that
 * scheduler may have just lost sight of its node monitors too (the
 * fault that took the first one), or be over a budget for a moment.
 * Unless the job was cancelled or has used up fo_max_failovers, a new
 * resubmission is held for fe_move_delay and then offered again, to
 * whichever scheduler the session is with by then. Returns whether j
 * was held; if not, the caller fails it with the reason. */
static bool hold_refused(sk_frontend *fe, fe_job *j, const char *why)
{
    unsigned done = j->fj_nsubs - 1;
    if (done == 0 || j->fj_cancel != 0 || done >= fe->fe_max_failovers ||
        make_resubmission(fe, j) != 0)
        return false;
    ev_now_update(fe->fe_loop);
    j->fj_state = FJ_HELD;
    j->fj_queued_at = ev_now(fe->fe_loop) + fe->fe_move_delay;
    list_append(&fe->fe_held_head, &fe->fe_held_tail, j);
    if (!ev_is_active(&fe->fe_held_w)) {
        ev_timer_set(&fe->fe_held_w, fe->fe_move_delay, 0);
        ev_timer_start(fe->fe_loop, &fe->fe_held_w);
    }
    fe->fe_stats.fs_failed_over++;
    sk_warn("frontend %s: job %llu refused after a failover (%s); its %u "
            "unfinished tasks are offered again in %.1f s (failover %u of "
            "at most %u)",
            fe->fe_name, (unsigned long long)j->fj_id, why, j->fj_sub_ntasks,
            fe->fe_move_delay, done + 1, fe->fe_max_failovers);
    return true;
}

void fe_held_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    sk_frontend *fe = w->data;
    ev_now_update(loop);
    fe_job *j;
    while ((j = fe->fe_held_head) != NULL &&
           j->fj_queued_at <= ev_now(loop) + 1e-6) {
        list_unlink(&fe->fe_held_head, &fe->fe_held_tail, j);
        queue_job(fe, j);
    }
    if (j != NULL) {
        ev_timer_set(w, j->fj_queued_at - ev_now(loop), 0);
        ev_timer_start(loop, w);
    }
}

static void on_answer(sk_frontend *fe, const sk_job_ack *a, int accepted)
{
    fe_job *j = find_job(fe, a->ja_job);
    if (j == NULL)
        return;
    if (j->fj_state != FJ_SENT) {
        fe->fe_stats.fs_duplicate++;
        return;
    }
    if (accepted) {
        j->fj_state = FJ_ACCEPTED;
        fe->fe_stats.fs_jobs_accepted++;
        return;
    }
    fe->fe_stats.fs_jobs_rejected++;
    if (hold_refused(fe, j, a->ja_reason))
        return;
    char reason[SK_MAX_REASON_LEN + 32];
    snprintf(reason, sizeof reason, "job rejected: %s", a->ja_reason);
    fe_end_job(fe, j, SK_OUTCOME_FAILED, SK_EREJECTED, reason);
}

static void on_started(sk_frontend *fe, const sk_task_started *s)
{
    fe_job *j = find_job(fe, s->st_job);
    uint32_t task;
    fe_task *t = j != NULL ? find_task(fe, j, s->st_task, &task) : NULL;
    if (t == NULL)
        return;
    uint32_t attempt = t->ft_attempt_base + s->st_attempt;
    if ((t->ft_flags & FT_STARTED) && attempt <= t->ft_attempt) {
        fe->fe_stats.fs_duplicate++; /* the same or an older attempt */
        return;
    }
    t->ft_flags |= FT_STARTED;
    t->ft_attempt = attempt;
    t->ft_launch_us = s->st_launch_us;
    if (j->fj_cb.jc_started == NULL)
        return;
    sk_task_start st = {
        .ts_job = j->fj_id,
        .ts_task = task,
        .ts_attempt = attempt,
        .ts_node = s->st_node,
        .ts_submit_us = j->fj_submit_us,
        .ts_launch_us = s->st_launch_us,
    };
    j->fj_cb.jc_started(j->fj_cb.jc_arg, &st);
}

static void on_finished(sk_frontend *fe, const sk_task_finished *f)
{
    fe_job *j = find_job(fe, f->tf_job);
    uint32_t task;
    fe_task *t = j != NULL ? find_task(fe, j, f->tf_task, &task) : NULL;
    if (t == NULL)
        return;
    if (f->tf_status < SK_OUTCOME_OK || f->tf_status > SK_OUTCOME_CANCELLED) {
        fe->fe_stats.fs_bad_field++;
        return;
    }
    if (f->tf_launch_us != 0)
        t->ft_launch_us = f->tf_launch_us;
    t->ft_attempt = t->ft_attempt_base + f->tf_attempt;
    j->fj_sub_count[f->tf_status]++;
    sk_task_result r = {
        .tr_job = j->fj_id,
        .tr_task = task,
        .tr_attempt = t->ft_attempt,
        .tr_outcome = (sk_outcome)f->tf_status,
        .tr_exit = f->tf_exit,
        .tr_output = f->tf_output.b_data,
        .tr_output_len = f->tf_output.b_len,
        .tr_node = f->tf_node,
        .tr_reason = "",
        .tr_started = (t->ft_flags & FT_STARTED) != 0,
        .tr_submit_us = j->fj_submit_us,
        .tr_launch_us = t->ft_launch_us,
        .tr_end_us = f->tf_end_us,
    };
    end_task(fe, j, task, &r);
}

static void on_job_done(sk_frontend *fe, const sk_job_done *d)
{
    fe_job *j = find_job(fe, d->jd_job);
    if (j == NULL)
        return;
    if (j->fj_state != FJ_ACCEPTED) {
        fe->fe_stats.fs_unexpected++;
        return;
    }
    /* The scheduler counts what it reported of its submission. */
    const uint32_t *c = j->fj_sub_count;
    if (d->jd_tasks != j->fj_sub_ntasks || d->jd_ok != c[SK_TASK_OK] ||
        d->jd_failed != c[SK_TASK_FAILED] ||
        d->jd_killed != c[SK_TASK_KILLED] || d->jd_lost != c[SK_TASK_LOST] ||
        d->jd_cancelled != c[SK_TASK_CANCELLED]) {
        /* Our own counts are what the callbacks said: they stand. */
        fe->fe_stats.fs_bad_field++;
        sk_warn("frontend %s: JOB_DONE for job %llu disagrees with the task "
                "reports (%u of %u tasks reported)",
                fe->fe_name, (unsigned long long)j->fj_id, j->fj_nended,
                j->fj_ntasks);
    }
    int complete = j->fj_nended == j->fj_ntasks;
    fe_end_job(fe, j, SK_OUTCOME_LOST, complete ? 0 : SK_EPROTO,
               complete ? "" : "no outcome from the scheduler");
}

void fe_on_message(sk_frontend *fe, const sk_msg *msg)
{
    switch (msg->m_type) {
    case SK_MSG_HELLO:
        /* The scheduler answers our HELLO with its own. */
        if (msg->m_hello.he_role != SK_ROLE_SCHEDULER)
            fe->fe_stats.fs_unexpected++;
        break;
    case SK_MSG_JOB_ACCEPTED:
        on_answer(fe, &msg->m_job_ack, 1);
        break;
    case SK_MSG_JOB_REJECTED:
        on_answer(fe, &msg->m_job_ack, 0);
        break;
    case SK_MSG_TASK_STARTED:
        on_started(fe, &msg->m_task_started);
        break;
    case SK_MSG_TASK_FINISHED:
        on_finished(fe, &msg->m_task_finished);
        break;
    case SK_MSG_JOB_DONE:
        on_job_done(fe, &msg->m_job_done);
        break;
    default:
        fe->fe_stats.fs_unexpected++;
        break;
    }
}
