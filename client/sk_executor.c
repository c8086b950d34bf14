/*
 * sk_executor.c - the executor side of the client API (skylark.h): a
 * registration with the local node monitor for one framework, the tasks
 * it hands over (LAUNCH_TASK), kills (KILL_TASK), and the reports of
 * their ends (TASK_FINISHED).
 */
#include "sk_apiutil.h"
#include "sk_token.h"
#include "sk_map.h"
#include "sk_link.h"
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A running attempt. */
typedef struct ex_run {
    uint32_t xr_task;
    uint32_t xr_attempt;
    uint64_t xr_launch_us;
} ex_run;

/* The running attempts of one job. */
typedef struct ex_job {
    ex_run *xj_runs;
    uint32_t xj_n, xj_cap;
} ex_job;

/* Reports kept for a node monitor that comes back (late reports): at
 * most LATE_MAX of each kind, a forgotten run for at most LATE_GONE_S. */
#define LATE_MAX    1024
#define LATE_GONE_S 60.0

/* A report sent, or a run forgotten at a session's end, kept (see
 * "late reports" below). */
typedef struct ex_late {
    struct ex_late *xl_next;
    double xl_at; /* loop time it was sent, or forgotten */
    uint64_t xl_job;
    uint32_t xl_task, xl_attempt;
    uint32_t xl_len; /* the encoded TASK_FINISHED; 0 for a run */
    uint8_t xl_data[];
} ex_late;

/* A list of them, oldest first. */
typedef struct late_list {
    ex_late *ll_head, *ll_tail;
    uint32_t ll_n;
} late_list;

static void late_push(late_list *l, ex_late *e);
static void late_trim(late_list *l, double at);
static ex_late *late_new(double at, uint64_t job, uint32_t task,
                         uint32_t attempt, const sk_buf *frame);
static int late_finish(sk_executor *ex, const sk_task_finished *tf);

/* A report the transport pushed back, encoded. */
typedef struct ex_pending {
    struct ex_pending *xp_next;
    uint32_t xp_len;
    uint8_t xp_data[];
} ex_pending;

struct sk_executor {
    struct ev_loop *ex_loop;
    int ex_own_loop;
    sk_link *ex_link;
    sk_peer_id ex_peer;
    int ex_up;
    int ex_wrong; /* the peer is not a node monitor */
    int ex_stop;
    char ex_endpoint[SK_MAX_ADDR_LEN + 1];
    char ex_err[SK_MAX_ADDR_LEN + 64];
    char ex_name[SK_TRANSPORT_MAX_NAME + 1];
    char ex_framework[SK_MAX_NAME_LEN + 1];
    uint64_t ex_incarnation;
    sk_executor_callbacks ex_cb;
    sk_map ex_jobs; /* job id -> ex_job */
    ex_pending *ex_pend_head, *ex_pend_tail;
    ev_timer ex_retry_w;
    sk_buf ex_buf;
    sk_executor_stats ex_stats;
    double ex_window;    /* late reports: twice the session timeout */
    uint64_t ex_nm_inc;  /* the node monitor's incarnation, 0: unknown */
    int ex_nm_known;     /* its HELLO came on this session */
    late_list ex_sent;   /* OK and FAILED reports of this session */
    late_list ex_resend; /* reports for the same node monitor back */
    late_list ex_gone;   /* runs forgotten at a session's end */
};

void sk_executor_opts_init(sk_executor_opts *o)
{
    memset(o, 0, sizeof *o);
    o->eo_heartbeat = 1.0;
}

/* ---- running attempts -------------------------------------------------- */

static ex_run *find_run(sk_executor *ex, uint64_t job, uint32_t task,
                        uint32_t attempt, ex_job **jout)
{
    ex_job *j = sk_map_get(&ex->ex_jobs, job);
    if (jout != NULL)
        *jout = j;
    if (j == NULL)
        return NULL;
    for (uint32_t i = 0; i < j->xj_n; i++)
        if (j->xj_runs[i].xr_task == task &&
            j->xj_runs[i].xr_attempt == attempt)
            return &j->xj_runs[i];
    return NULL;
}

static int add_run(sk_executor *ex, uint64_t job, const ex_run *r)
{
    ex_job *j = sk_map_get(&ex->ex_jobs, job);
    if (j == NULL) {
        if ((j = calloc(1, sizeof *j)) == NULL)
            return SK_ENOMEM;
        if (sk_map_put(&ex->ex_jobs, job, j) != 0) {
            free(j);
            return SK_ENOMEM;
        }
    }
    if (j->xj_n == j->xj_cap) {
        uint32_t ncap = j->xj_cap != 0 ? j->xj_cap * 2 : 4;
        ex_run *nr = realloc(j->xj_runs, ncap * sizeof *nr);
        if (nr == NULL) {
            if (j->xj_n == 0)
                free(sk_map_del(&ex->ex_jobs, job));
            return SK_ENOMEM;
        }
        j->xj_runs = nr;
        j->xj_cap = ncap;
    }
    j->xj_runs[j->xj_n++] = *r;
    ex->ex_stats.es_running++;
    return 0;
}

static void del_run(sk_executor *ex, uint64_t job, ex_job *j, ex_run *r)
{
    *r = j->xj_runs[--j->xj_n];
    ex->ex_stats.es_running--;
    if (j->xj_n == 0) {
        sk_map_del(&ex->ex_jobs, job);
        free(j->xj_runs);
        free(j);
    }
}

/* The attempts to kill, copied: ec_kill may finish them meanwhile. */
typedef struct kill_list {
    uint64_t *kl_job;
    ex_run *kl_run;
    size_t kl_n;
} kill_list;

static void kill_all(sk_executor *ex, kill_list *kl)
{
    for (size_t i = 0; i < kl->kl_n; i++) {
        ex->ex_stats.es_killed++;
        if (ex->ex_cb.ec_kill != NULL)
            ex->ex_cb.ec_kill(ex->ex_cb.ec_arg, kl->kl_job[i],
                              kl->kl_run[i].xr_task, kl->kl_run[i].xr_attempt);
    }
    free(kl->kl_job);
    free(kl->kl_run);
}

/* ---- reports ----------------------------------------------------------- */

static void drop_pending(sk_executor *ex)
{
    while (ex->ex_pend_head != NULL) {
        ex_pending *p = ex->ex_pend_head;
        ex->ex_pend_head = p->xp_next;
        free(p);
        ex->ex_stats.es_dropped++;
    }
    ex->ex_pend_tail = NULL;
}

static void flush_pending(sk_executor *ex)
{
    sk_transport *t = sk_link_transport(ex->ex_link);
    while (ex->ex_up && ex->ex_pend_head != NULL) {
        ex_pending *p = ex->ex_pend_head;
        int rc = sk_transport_send(t, ex->ex_peer, p->xp_data, p->xp_len);
        if (rc == SK_EAGAIN) {
            if (!ev_is_active(&ex->ex_retry_w)) {
                ev_timer_set(&ex->ex_retry_w, 0.001, 0);
                ev_timer_start(ex->ex_loop, &ex->ex_retry_w);
            }
            return;
        }
        ex->ex_pend_head = p->xp_next;
        if (ex->ex_pend_head == NULL)
            ex->ex_pend_tail = NULL;
        free(p);
        if (rc == 0)
            ex->ex_stats.es_finished++;
        else
            ex->ex_stats.es_dropped++;
    }
}

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    flush_pending(w->data);
}

/* Encode and send a TASK_FINISHED, or queue it behind earlier ones. */
static int report(sk_executor *ex, const sk_task_finished *tf)
{
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished = *tf;
    int rc = sk_msg_encode(&ex->ex_buf, &m);
    if (rc != 0)
        return rc;
    if (tf->tf_status == SK_TASK_OK || tf->tf_status == SK_TASK_FAILED) {
        double now = ev_now(ex->ex_loop);
        late_trim(&ex->ex_sent, now - ex->ex_window);
        ex_late *e =
            late_new(now, tf->tf_job, tf->tf_task, tf->tf_attempt, &ex->ex_buf);
        if (e != NULL)
            late_push(&ex->ex_sent, e);
    }
    if (ex->ex_pend_head == NULL) {
        rc = sk_transport_send(sk_link_transport(ex->ex_link), ex->ex_peer,
                               ex->ex_buf.b_data, ex->ex_buf.b_len);
        if (rc == 0) {
            ex->ex_stats.es_finished++;
            return 0;
        }
        if (rc != SK_EAGAIN) {
            ex->ex_stats.es_dropped++;
            return 0; /* the session is ending; the node monitor loses it */
        }
    }
    ex_pending *p = malloc(sizeof *p + ex->ex_buf.b_len);
    if (p == NULL)
        return SK_ENOMEM;
    p->xp_next = NULL;
    p->xp_len = (uint32_t)ex->ex_buf.b_len;
    memcpy(p->xp_data, ex->ex_buf.b_data, ex->ex_buf.b_len);
    if (ex->ex_pend_tail != NULL)
        ex->ex_pend_tail->xp_next = p;
    else
        ex->ex_pend_head = p;
    ex->ex_pend_tail = p;
    flush_pending(ex);
    return 0;
}

/* A TASK_FINISHED of the attempt, without output. */
static sk_task_finished finished(sk_job_id job, uint32_t task, uint32_t attempt,
                                 sk_outcome outcome, int exit_code,
                                 uint64_t launch_us, uint64_t end_us)
{
    return (sk_task_finished){
        .tf_job = job,
        .tf_task = task,
        .tf_attempt = attempt,
        .tf_node = "",
        .tf_status = (uint8_t)outcome,
        .tf_exit = exit_code,
        .tf_launch_us = launch_us,
        .tf_end_us = end_us,
    };
}

int sk_executor_finish(sk_executor *ex, sk_job_id job, uint32_t task,
                       uint32_t attempt, sk_outcome outcome, int exit_code,
                       const void *output, size_t len)
{
    if (outcome < SK_OUTCOME_OK || outcome > SK_OUTCOME_CANCELLED ||
        (output == NULL && len > 0))
        return SK_EINVAL;
    ex_job *j;
    ex_run *r = find_run(ex, job, task, attempt, &j);
    if (len > SK_MAX_OUTPUT_BYTES) {
        output = (const uint8_t *)output + (len - SK_MAX_OUTPUT_BYTES);
        len = SK_MAX_OUTPUT_BYTES;
    }
    sk_task_finished tf =
        finished(job, task, attempt, outcome, exit_code,
                 r != NULL ? r->xr_launch_us : 0, sk_wall_us());
    tf.tf_output = (sk_bytes){output, (uint32_t)len};
    if (r == NULL)
        return late_finish(ex, &tf) ? 0 : SK_ENOTFOUND;
    del_run(ex, job, j, r);
    return report(ex, &tf);
}

/* ---- late reports -------------------------------------------------------
 *
 * A node monitor that stopped (SIGSTOP, a stall) or was cut off for
 * longer than the session timeout has reported our running tasks LOST,
 * and they run again elsewhere; those that ended meanwhile must not
 * complete twice. So the reports of the session's last two timeouts (the
 * reports sent into a session the node monitor had already ended are
 * lost unseen), and the ends of the runs forgotten at the session's
 * end, are sent again when the same node monitor process (its HELLO
 * incarnation) registers us again. The node monitor matches them with
 * the tasks it reported LOST and offers their outcomes to their
 * schedulers (docs/FAULTS.md, "Executors"); the others it counts stale.
 * A node monitor of another incarnation knows none of them (and its
 * job ids start again): they are dropped. */

static void late_push(late_list *l, ex_late *e)
{
    e->xl_next = NULL;
    if (l->ll_tail != NULL)
        l->ll_tail->xl_next = e;
    else
        l->ll_head = e;
    l->ll_tail = e;
    l->ll_n++;
}

static ex_late *late_pop(late_list *l)
{
    ex_late *e = l->ll_head;
    if (e != NULL) {
        l->ll_head = e->xl_next;
        if (l->ll_head == NULL)
            l->ll_tail = NULL;
        l->ll_n--;
    }
    return e;
}

static void late_clear(late_list *l)
{
    ex_late *e;
    while ((e = late_pop(l)) != NULL)
        free(e);
}

/* Drops the entries older than at, and the oldest over LATE_MAX - 1. */
static void late_trim(late_list *l, double at)
{
    while (l->ll_head != NULL &&
           (l->ll_head->xl_at < at || l->ll_n >= LATE_MAX))
        free(late_pop(l));
}

static ex_late *late_new(double at, uint64_t job, uint32_t task,
                         uint32_t attempt, const sk_buf *frame)
{
    size_t len = frame != NULL ? frame->b_len : 0;
    ex_late *e = malloc(sizeof *e + len);
    if (e == NULL)
        return NULL;
    e->xl_at = at;
    e->xl_job = job;
    e->xl_task = task;
    e->xl_attempt = attempt;
    e->xl_len = (uint32_t)len;
    if (len > 0)
        memcpy(e->xl_data, frame->b_data, len);
    return e;
}

/* Sends the late reports when the node monitor is the one that lost
 * them, behind the reports already queued. */
static void late_flush(sk_executor *ex)
{
    ex_late *e;
    while (ex->ex_up && ex->ex_nm_known && (e = late_pop(&ex->ex_resend))) {
        ex_pending *p = malloc(sizeof *p + e->xl_len);
        if (p != NULL) {
            p->xp_next = NULL;
            p->xp_len = e->xl_len;
            memcpy(p->xp_data, e->xl_data, e->xl_len);
            if (ex->ex_pend_tail != NULL)
                ex->ex_pend_tail->xp_next = p;
            else
                ex->ex_pend_head = p;
            ex->ex_pend_tail = p;
        }
        free(e);
    }
    flush_pending(ex);
}

/* The node monitor's HELLO: which process it is. */
static void late_hello(sk_executor *ex, uint64_t incarnation)
{
    if (ex->ex_nm_inc != incarnation) {
        if (ex->ex_resend.ll_n + ex->ex_gone.ll_n > 0)
            sk_info("executor %s: a restarted node monitor: %u late reports "
                    "dropped",
                    ex->ex_name, ex->ex_resend.ll_n + ex->ex_gone.ll_n);
        late_clear(&ex->ex_resend);
        late_clear(&ex->ex_gone);
        ex->ex_nm_inc = incarnation;
    }
    ex->ex_nm_known = 1;
    late_flush(ex);
}

/* The session ended: the reports of its last timeout are to be sent
 * again, the running attempts (in kl) are gone. */
static void late_down(sk_executor *ex, const kill_list *kl)
{
    double now = ev_now(ex->ex_loop);
    late_trim(&ex->ex_sent, now - ex->ex_window);
    ex_late *e;
    while ((e = late_pop(&ex->ex_sent)) != NULL) {
        late_trim(&ex->ex_resend, -1);
        late_push(&ex->ex_resend, e);
    }
    late_trim(&ex->ex_gone, now - LATE_GONE_S);
    for (size_t i = 0; i < kl->kl_n; i++) {
        late_trim(&ex->ex_gone, -1);
        if ((e = late_new(now, kl->kl_job[i], kl->kl_run[i].xr_task,
                          kl->kl_run[i].xr_attempt, NULL)) != NULL)
            late_push(&ex->ex_gone, e);
    }
    ex->ex_nm_known = 0;
}

uint64_t sk_executor_node_incarnation(const sk_executor *ex)
{
    return ex->ex_nm_inc;
}

int sk_executor_recovered(sk_executor *ex, uint64_t nm_incarnation,
                          sk_job_id job, uint32_t task, uint32_t attempt,
                          sk_outcome outcome, int exit_code, uint64_t launch_us,
                          uint64_t end_us)
{
    if ((outcome != SK_OUTCOME_OK && outcome != SK_OUTCOME_FAILED) ||
        nm_incarnation == 0)
        return SK_EINVAL;
    if (ex->ex_stats.es_sessions > 0 ||
        (ex->ex_nm_inc != 0 && ex->ex_nm_inc != nm_incarnation))
        return SK_ESTATE;
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished =
        finished(job, task, attempt, outcome, exit_code, launch_us, end_us);
    ex_late *e;
    if (sk_msg_encode(&ex->ex_buf, &m) != 0 ||
        (e = late_new(ev_now(ex->ex_loop), job, task, attempt, &ex->ex_buf)) ==
            NULL)
        return SK_ENOMEM;
    /* Sent when the HELLO of that node monitor process comes
     * (late_hello); another process drops it. */
    ex->ex_nm_inc = nm_incarnation;
    late_trim(&ex->ex_resend, -1);
    late_push(&ex->ex_resend, e);
    return 0;
}

/* The end of a forgotten run: 1 if it was one (its report, when it ran
 * to its end, is sent to the same node monitor back), else 0. */
static int late_finish(sk_executor *ex, const sk_task_finished *tf)
{
    ex_late **pp = &ex->ex_gone.ll_head, *prev = NULL;
    for (ex_late *e = *pp; e != NULL; prev = e, pp = &e->xl_next, e = *pp) {
        if (e->xl_job != tf->tf_job || e->xl_task != tf->tf_task ||
            e->xl_attempt != tf->tf_attempt)
            continue;
        *pp = e->xl_next;
        if (ex->ex_gone.ll_tail == e)
            ex->ex_gone.ll_tail = prev;
        ex->ex_gone.ll_n--;
        free(e);
        if (tf->tf_status != SK_TASK_OK && tf->tf_status != SK_TASK_FAILED)
            return 1;
        sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
        m.m_task_finished = *tf;
        if (sk_msg_encode(&ex->ex_buf, &m) == 0 &&
            (e = late_new(ev_now(ex->ex_loop), tf->tf_job, tf->tf_task,
                          tf->tf_attempt, &ex->ex_buf)) != NULL) {
            late_trim(&ex->ex_resend, -1);
            late_push(&ex->ex_resend, e);
        }
        late_flush(ex);
        return 1;
    }
    return 0;
}

/* ---- the node monitor's messages --------------------------------------- */

static void on_launch(sk_executor *ex, const sk_launch *lt)
{
    uint64_t now = sk_wall_us();
    if (strcmp(lt->lt_framework, ex->ex_framework) != 0) {
        ex->ex_stats.es_bad_input++;
        char why[2 * SK_MAX_NAME_LEN + 64];
        int n = snprintf(why, sizeof why,
                         "executor of framework '%s' got a task of '%s'",
                         ex->ex_framework, lt->lt_framework);
        sk_task_finished tf = {
            .tf_job = lt->lt_job,
            .tf_task = lt->lt_task,
            .tf_attempt = lt->lt_attempt,
            .tf_node = "",
            .tf_status = SK_TASK_FAILED,
            .tf_exit = -1,
            .tf_output = {(const uint8_t *)why, (uint32_t)n},
            .tf_launch_us = now,
            .tf_end_us = now,
        };
        report(ex, &tf);
        return;
    }
    if (find_run(ex, lt->lt_job, lt->lt_task, lt->lt_attempt, NULL) != NULL) {
        ex->ex_stats.es_bad_input++; /* that attempt already runs here */
        return;
    }
    ex_run r = {lt->lt_task, lt->lt_attempt, now};
    if (add_run(ex, lt->lt_job, &r) != 0) {
        sk_error("executor %s: out of memory: job %llu task %u not run",
                 ex->ex_name, (unsigned long long)lt->lt_job, lt->lt_task);
        return; /* the node monitor learns of it when the session ends */
    }
    ex->ex_stats.es_launched++;
    sk_launch_info li = {
        .li_job = lt->lt_job,
        .li_task = lt->lt_task,
        .li_attempt = lt->lt_attempt,
        .li_spec = lt->lt_spec.b_data,
        .li_spec_len = lt->lt_spec.b_len,
        .li_user = lt->lt_user,
        .li_cpu_milli = lt->lt_res.r_cpu_milli,
        .li_mem_mb = lt->lt_res.r_mem_mb,
        .li_launch_us = now,
    };
    ex->ex_cb.ec_launch(ex->ex_cb.ec_arg, &li);
}

static int collect(kill_list *kl, uint64_t job, const ex_run *r, size_t n)
{
    uint64_t *nj = realloc(kl->kl_job, (kl->kl_n + n) * sizeof *nj);
    if (nj != NULL)
        kl->kl_job = nj;
    ex_run *nr = realloc(kl->kl_run, (kl->kl_n + n) * sizeof *nr);
    if (nr != NULL)
        kl->kl_run = nr;
    if (nj == NULL || nr == NULL)
        return SK_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        kl->kl_job[kl->kl_n] = job;
        kl->kl_run[kl->kl_n++] = r[i];
    }
    return 0;
}

static void on_kill(sk_executor *ex, const sk_kill_task *k)
{
    kill_list kl = {NULL, NULL, 0};
    ex_job *j;
    if (k->kt_task == SK_TASK_ANY) {
        j = sk_map_get(&ex->ex_jobs, k->kt_job);
        if (j != NULL && collect(&kl, k->kt_job, j->xj_runs, j->xj_n) != 0)
            sk_error("executor %s: out of memory killing job %llu", ex->ex_name,
                     (unsigned long long)k->kt_job);
    } else {
        ex_run *r = find_run(ex, k->kt_job, k->kt_task, k->kt_attempt, &j);
        if (r != NULL)
            collect(&kl, k->kt_job, r, 1);
    }
    if (kl.kl_n == 0)
        ex->ex_stats.es_bad_input++; /* nothing of that runs here */
    kill_all(ex, &kl);
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    sk_executor *ex = arg;
    if (peer != ex->ex_peer || !ex->ex_up) {
        ex->ex_stats.es_bad_input++;
        return;
    }
    switch (msg->m_type) {
    case SK_MSG_HELLO:
        /* The node monitor answers our HELLO with its own. */
        if (msg->m_hello.he_role != SK_ROLE_NODEMON)
            ex->ex_stats.es_bad_input++;
        else
            late_hello(ex, msg->m_hello.he_incarnation);
        break;
    case SK_MSG_LAUNCH_TASK:
        on_launch(ex, &msg->m_launch);
        break;
    case SK_MSG_KILL_TASK:
        on_kill(ex, &msg->m_kill_task);
        break;
    default:
        ex->ex_stats.es_bad_input++;
        break;
    }
}

/* ---- the session ------------------------------------------------------- */

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    sk_executor *ex = arg;
    if (peer != ex->ex_peer)
        return;
    if (strcmp(role, "nodemon") != 0) {
        /* Registering would make no sense to it, and no task would ever
         * come. */
        snprintf(ex->ex_err, sizeof ex->ex_err,
                 "%s: that is %s, not a node monitor", ex->ex_endpoint,
                 sk_role_phrase(role));
        sk_warn("executor %s: %s", ex->ex_name, ex->ex_err);
        ex->ex_wrong = 1;
        ex->ex_stats.es_wrong_role++;
        return;
    }
    ex->ex_wrong = 0;
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello.he_role = SK_ROLE_EXECUTOR;
    m.m_hello.he_incarnation = ex->ex_incarnation;
    m.m_hello.he_name = ex->ex_name;
    m.m_hello.he_framework = ex->ex_framework;
    int rc = sk_link_send(ex->ex_link, peer, &m);
    if (rc != 0) {
        sk_warn("executor %s: cannot register with %s %s: %s", ex->ex_name,
                role, name, sk_strerror(rc));
        return;
    }
    ex->ex_up = 1;
    ex->ex_stats.es_sessions++;
    if (ex->ex_cb.ec_session != NULL)
        ex->ex_cb.ec_session(ex->ex_cb.ec_arg, 1);
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    sk_executor *ex = arg;
    if (peer != ex->ex_peer || !ex->ex_up)
        return;
    ex->ex_up = 0;
    sk_info("executor %s: session with the node monitor lost (reason %d)",
            ex->ex_name, (int)why);
    drop_pending(ex);
    /* The node monitor has reported these LOST: forget them, and tell the
     * framework to stop them. */
    kill_list kl = {NULL, NULL, 0};
    uint32_t pos = 0;
    uint64_t job;
    ex_job *j;
    while ((j = sk_map_next(&ex->ex_jobs, &pos, &job)) != NULL) {
        if (collect(&kl, job, j->xj_runs, j->xj_n) != 0)
            sk_error("executor %s: out of memory forgetting tasks",
                     ex->ex_name);
        ex->ex_stats.es_forgotten += j->xj_n;
        free(j->xj_runs);
        free(j);
    }
    sk_map_free(&ex->ex_jobs);
    ex->ex_stats.es_running = 0;
    late_down(ex, &kl);
    kill_all(ex, &kl);
    if (ex->ex_cb.ec_session != NULL)
        ex->ex_cb.ec_session(ex->ex_cb.ec_arg, 0);
}

int sk_executor_create(struct ev_loop *loop, const sk_executor_opts *o,
                       const sk_executor_callbacks *cb, sk_executor **out)
{
    if (o == NULL || cb == NULL || cb->ec_launch == NULL || out == NULL ||
        sk_endpoint_check(o->eo_nodemon, NULL, 0) != 0 ||
        o->eo_framework == NULL || o->eo_framework[0] == '\0' ||
        strlen(o->eo_framework) > SK_MAX_NAME_LEN || o->eo_heartbeat < 0.01 ||
        (o->eo_name != NULL && !sk_name_valid(o->eo_name)))
        return SK_EINVAL;
    sk_executor *ex = calloc(1, sizeof *ex);
    if (ex == NULL)
        return SK_ENOMEM;
    int rc = SK_ENOMEM;
    ex->ex_own_loop = loop == NULL;
    ex->ex_loop = loop != NULL ? loop : ev_loop_new(EVFLAG_AUTO);
    if (ex->ex_loop == NULL)
        goto fail;
    ex->ex_cb = *cb;
    snprintf(ex->ex_endpoint, sizeof ex->ex_endpoint, "%s", o->eo_nodemon);
    snprintf(ex->ex_framework, sizeof ex->ex_framework, "%s", o->eo_framework);
    if (o->eo_name != NULL)
        snprintf(ex->ex_name, sizeof ex->ex_name, "%s", o->eo_name);
    else
        sk_make_name(ex->ex_name, sizeof ex->ex_name, "ex");
    ex->ex_incarnation = sk_new_incarnation();
    sk_buf_init(&ex->ex_buf);
    ev_timer_init(&ex->ex_retry_w, retry_cb, 0, 0);
    ex->ex_retry_w.data = ex;
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "executor");
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", ex->ex_name);
    cfg.tc_heartbeat = o->eo_heartbeat;
    ex->ex_window = 2 * cfg.tc_heartbeat * cfg.tc_misses;
    char err[1200];
    if (sk_cred_config(&cfg, o->eo_key_file, o->eo_token_file, NULL, err,
                       sizeof err) != 0) {
        sk_error("executor %s: %s", ex->ex_name, err);
        rc = SK_ECONFIG;
        goto fail;
    }
    if (cfg.tc_token_user[0] != '\0' &&
        (cfg.tc_token_role != SK_CRED_EXECUTOR ||
         strcmp(cfg.tc_token_user, ex->ex_framework) != 0)) {
        sk_error("executor %s: %s is not an executor token of framework "
                 "%.64s (it is a %s token of %s; skylark user token "
                 "FRAMEWORK --executor)",
                 ex->ex_name, o->eo_token_file, ex->ex_framework,
                 sk_token_role_name(cfg.tc_token_role), cfg.tc_token_user);
        rc = SK_ECONFIG;
        goto fail;
    }
    sk_link_callbacks lcb = {
        .lk_up = on_up, .lk_down = on_down, .lk_msg = on_msg, .lk_arg = ex};
    if ((rc = sk_link_create(ex->ex_loop, &cfg, &lcb, &ex->ex_link)) != 0)
        goto fail;
    if (sk_transport_connect(sk_link_transport(ex->ex_link), o->eo_nodemon,
                             &ex->ex_peer) != 0) {
        rc = SK_EIO;
        goto fail;
    }
    *out = ex;
    return 0;
fail:
    sk_executor_destroy(ex);
    return rc;
}

void sk_executor_destroy(sk_executor *ex)
{
    if (ex == NULL)
        return;
    if (ex->ex_loop != NULL)
        ev_timer_stop(ex->ex_loop, &ex->ex_retry_w);
    sk_link_destroy(ex->ex_link);
    uint32_t pos = 0;
    ex_job *j;
    while ((j = sk_map_next(&ex->ex_jobs, &pos, NULL)) != NULL) {
        free(j->xj_runs);
        free(j);
    }
    sk_map_free(&ex->ex_jobs);
    while (ex->ex_pend_head != NULL) {
        ex_pending *p = ex->ex_pend_head;
        ex->ex_pend_head = p->xp_next;
        free(p);
    }
    late_clear(&ex->ex_sent);
    late_clear(&ex->ex_resend);
    late_clear(&ex->ex_gone);
    sk_buf_free(&ex->ex_buf);
    if (ex->ex_own_loop && ex->ex_loop != NULL)
        ev_loop_destroy(ex->ex_loop);
    free(ex);
}

struct ev_loop *sk_executor_loop(sk_executor *ex)
{
    return ex->ex_loop;
}

static int is_registered(void *arg)
{
    sk_executor *ex = arg;
    return ex->ex_up || ex->ex_wrong;
}

int sk_executor_wait_registered(sk_executor *ex, double timeout)
{
    int rc = sk_run_until(ex->ex_loop, is_registered, ex, timeout);
    if (rc == 0 && !ex->ex_up)
        return SK_EROLE;
    return rc;
}

const char *sk_executor_error(const sk_executor *ex)
{
    return ex->ex_err;
}

static int is_stopped(void *arg)
{
    return ((sk_executor *)arg)->ex_stop;
}

int sk_executor_run(sk_executor *ex, double timeout)
{
    ex->ex_stop = 0;
    int rc = sk_run_until(ex->ex_loop, is_stopped, ex, timeout);
    ex->ex_stop = 0;
    return rc;
}

void sk_executor_stop(sk_executor *ex)
{
    ex->ex_stop = 1;
}

void sk_executor_stats_get(sk_executor *ex, sk_executor_stats *out)
{
    *out = ex->ex_stats;
    out->es_registered = ex->ex_up;
    sk_link_stats ls;
    sk_link_stats_get(ex->ex_link, &ls);
    out->es_undecodable =
        ls.ls_bad_version + ls.ls_bad_type + ls.ls_bad_limit + ls.ls_malformed;
}
