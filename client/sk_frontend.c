/*
 * sk_frontend.c - the frontend object of the client API (skylark.h): its
 * session with one scheduler at a time, the failover to the next endpoint,
 * handing waiting jobs and cancels to the session, and the blocking waits.
 * What happens to jobs is in sk_frontend_job.c.
 */
#include "sk_apiutil.h"
#include "sk_frontend_int.h"
#include "sk_token.h"
#include "sk_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sk_outcome_name(int outcome)
{
    switch (outcome) {
    case SK_OUTCOME_OK:
        return "ok";
    case SK_OUTCOME_FAILED:
        return "failed";
    case SK_OUTCOME_KILLED:
        return "killed";
    case SK_OUTCOME_LOST:
        return "lost";
    case SK_OUTCOME_CANCELLED:
        return "cancelled";
    }
    return "unknown";
}

/* The public outcomes are the wire's task statuses. */
_Static_assert(SK_OUTCOME_OK == (int)SK_TASK_OK &&
                   SK_OUTCOME_FAILED == (int)SK_TASK_FAILED &&
                   SK_OUTCOME_KILLED == (int)SK_TASK_KILLED &&
                   SK_OUTCOME_LOST == (int)SK_TASK_LOST &&
                   SK_OUTCOME_CANCELLED == (int)SK_TASK_CANCELLED,
               "sk_outcome and sk_task_status differ");

void fe_set_error(sk_frontend *fe, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fe->fe_err, sizeof fe->fe_err, fmt, ap);
    va_end(ap);
}

void sk_frontend_opts_init(sk_frontend_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fo_connect_timeout = 2.0;
    o->fo_queue_timeout = 30.0;
    o->fo_heartbeat = 1.0;
    o->fo_max_jobs = 100000;
    o->fo_max_failovers = 3;
}

/* ---- the session ------------------------------------------------------ */

static void say_hello(sk_frontend *fe)
{
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello.he_role = SK_ROLE_FRONTEND;
    m.m_hello.he_incarnation = fe->fe_incarnation;
    m.m_hello.he_name = fe->fe_name;
    m.m_hello.he_framework = "";
    int rc = sk_link_send(fe->fe_link, fe->fe_peer, &m);
    if (rc != 0)
        sk_warn("frontend %s: cannot send HELLO to %s: %s", fe->fe_name,
                fe->fe_endpoints[fe->fe_cur], sk_strerror(rc));
}

void fe_arm_queue_timer(sk_frontend *fe)
{
    if (fe->fe_up || fe->fe_wait_head == NULL || fe->fe_queue_timeout <= 0 ||
        ev_is_active(&fe->fe_queue_w))
        return;
    ev_now_update(fe->fe_loop);
    double due = fe->fe_wait_head->fj_queued_at + fe->fe_queue_timeout -
                 ev_now(fe->fe_loop);
    ev_timer_set(&fe->fe_queue_w, due > 0 ? due : 0, 0);
    ev_timer_start(fe->fe_loop, &fe->fe_queue_w);
}

/* The peer at the current endpoint answered the handshake as another
 * kind of daemon (a node monitor answers a frontend's HELLO as readily as
 * a scheduler does, and would then drop its jobs forever). Nothing has
 * been sent to it. Move on to the next endpoint; when every endpoint has
 * answered so, the waiting jobs fail now, and the endpoints are tried
 * again after the connect timeout. */
static void wrong_role(sk_frontend *fe, const char *role)
{
    char reason[sizeof fe->fe_err];
    fe_set_error(fe, "%s: that is %s, not a scheduler",
                 fe->fe_endpoints[fe->fe_cur], sk_role_phrase(role));
    snprintf(reason, sizeof reason, "%s", fe->fe_err);
    sk_info("frontend %s: %s", fe->fe_name, reason);
    fe->fe_stats.fs_wrong_role++;
    fe->fe_wrong[fe->fe_cur] = 1;
    unsigned nwrong = 0;
    for (unsigned i = 0; i < fe->fe_nendpoints; i++)
        nwrong += fe->fe_wrong[i];
    ev_timer_stop(fe->fe_loop, &fe->fe_connect_w);
    ev_timer_set(&fe->fe_switch_w,
                 nwrong == fe->fe_nendpoints ? fe->fe_connect_timeout : 0, 0);
    ev_timer_start(fe->fe_loop, &fe->fe_switch_w);
    if (nwrong < fe->fe_nendpoints)
        return;
    fe->fe_all_wrong = 1;
    /* Only the jobs waiting now: one that a callback submits waits for
     * the next try (new jobs join the tail). */
    for (uint64_t n = fe->fe_nwaiting; n > 0 && fe->fe_wait_head != NULL; n--)
        fe_end_job(fe, fe->fe_wait_head, SK_OUTCOME_FAILED, SK_EROLE, reason);
    fe_arm_queue_timer(fe);
}

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    sk_frontend *fe = arg;
    if (peer != fe->fe_peer)
        return;
    if (strcmp(role, "sched") != 0) {
        wrong_role(fe, role);
        return;
    }
    fe->fe_wrong[fe->fe_cur] = 0;
    fe->fe_all_wrong = 0;
    fe->fe_up = 1;
    fe->fe_refused = 0;
    fe->fe_stats.fs_sessions++;
    ev_timer_stop(fe->fe_loop, &fe->fe_connect_w);
    ev_timer_stop(fe->fe_loop, &fe->fe_queue_w);
    sk_debug("frontend %s: session up with %s %s at %s", fe->fe_name, role,
             name, fe->fe_endpoints[fe->fe_cur]);
    say_hello(fe);
    fe_flush(fe);
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    sk_frontend *fe = arg;
    if (peer != fe->fe_peer || !fe->fe_up)
        return;
    fe->fe_up = 0;
    fe->fe_stats.fs_scheduler_lost++;
    sk_info("frontend %s: session with %s lost (reason %d)", fe->fe_name,
            fe->fe_endpoints[fe->fe_cur], (int)why);
    fe_lose_jobs(fe, fe->fe_endpoints[fe->fe_cur]);
    /* The transport forbids disconnecting inside its callback. The move
     * waits two heartbeats more: the node monitors lose the scheduler
     * within about that of us (a silence of 3 heartbeats counted from
     * each one's last message), and offer the outcomes it never passed
     * on to the next scheduler then (docs/FAULTS.md). Resubmitted sooner,
     * a task that had ended at the kill runs and completes again before
     * its outcome is offered. */
    ev_timer_set(&fe->fe_switch_w, fe->fe_move_delay, 0);
    ev_timer_start(fe->fe_loop, &fe->fe_switch_w);
    fe_arm_queue_timer(fe);
}

/* A scheduler that fails authentication (another key, or none) will not
 * do better by waiting: move on, and once every endpoint in a row has
 * refused, fail the waiting jobs with the reason. */
static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    sk_frontend *fe = arg;
    if (peer != fe->fe_peer || fe->fe_up)
        return;
    char reason[SK_MAX_REASON_LEN];
    snprintf(reason, sizeof reason, "%s %s", fe->fe_endpoints[fe->fe_cur], why);
    fe_set_error(fe, "%s", reason);
    sk_warn("frontend %s: %s", fe->fe_name, reason);
    if (++fe->fe_refused >= fe->fe_nendpoints) {
        fe->fe_refused = 0;
        while (fe->fe_wait_head != NULL)
            fe_end_job(fe, fe->fe_wait_head, SK_OUTCOME_FAILED, SK_EREJECTED,
                       reason);
    }
    ev_timer_set(&fe->fe_switch_w, 0, 0);
    ev_timer_start(fe->fe_loop, &fe->fe_switch_w);
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    sk_frontend *fe = arg;
    if (peer != fe->fe_peer || !fe->fe_up) {
        fe->fe_stats.fs_unexpected++;
        return;
    }
    fe_on_message(fe, msg);
}

static int connect_current(sk_frontend *fe)
{
    int rc = sk_transport_connect(sk_link_transport(fe->fe_link),
                                  fe->fe_endpoints[fe->fe_cur], &fe->fe_peer);
    if (rc != 0) {
        fe->fe_peer = 0;
        sk_warn("frontend %s: cannot connect to %s: %s", fe->fe_name,
                fe->fe_endpoints[fe->fe_cur], sk_strerror(rc));
    }
    ev_timer_stop(fe->fe_loop, &fe->fe_connect_w);
    ev_timer_set(&fe->fe_connect_w, fe->fe_connect_timeout, 0);
    ev_timer_start(fe->fe_loop, &fe->fe_connect_w);
    return rc;
}

/* Leave the current endpoint for the next one (the same one again when
 * there is only one: a fresh connection). */
static void switch_endpoint(sk_frontend *fe)
{
    if (fe->fe_peer != 0)
        sk_transport_disconnect(sk_link_transport(fe->fe_link), fe->fe_peer);
    fe->fe_peer = 0;
    fe->fe_up = 0;
    fe->fe_cur = (fe->fe_cur + 1) % fe->fe_nendpoints;
    fe->fe_stats.fs_failovers++;
    connect_current(fe);
}

static void connect_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    sk_frontend *fe = w->data;
    if (fe->fe_up)
        return;
    sk_debug("frontend %s: no session with %s in %.1f s, trying the next",
             fe->fe_name, fe->fe_endpoints[fe->fe_cur], fe->fe_connect_timeout);
    switch_endpoint(fe);
}

static void switch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    sk_frontend *fe = w->data;
    if (!fe->fe_up)
        switch_endpoint(fe);
}

static void queue_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    sk_frontend *fe = w->data;
    if (fe->fe_up)
        return;
    ev_now_update(loop);
    char reason[64];
    snprintf(reason, sizeof reason, "no scheduler reachable in %.1f s",
             fe->fe_queue_timeout);
    while (fe->fe_wait_head != NULL &&
           fe->fe_wait_head->fj_queued_at + fe->fe_queue_timeout <=
               ev_now(loop) + 1e-6) {
        fe_end_job(fe, fe->fe_wait_head, SK_OUTCOME_FAILED, SK_ETIMEDOUT,
                   reason);
    }
    fe_arm_queue_timer(fe);
}

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    fe_flush(w->data);
}

/* ---- handing work to the session -------------------------------------- */

static int hand_cancel(sk_frontend *fe, fe_job *j)
{
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job.cj_job = j->fj_wire;
    m.m_cancel_job.cj_reason = j->fj_cancel_reason ? j->fj_cancel_reason : "";
    int rc = sk_link_send(fe->fe_link, fe->fe_peer, &m);
    if (rc == 0) {
        j->fj_cancel = 2;
        free(j->fj_cancel_reason);
        j->fj_cancel_reason = NULL;
    }
    return rc;
}

void fe_flush(sk_frontend *fe)
{
    if (!fe->fe_up)
        return;
    sk_transport *t = sk_link_transport(fe->fe_link);
    int pushed_back = 0;
    while (fe->fe_wait_head != NULL) {
        fe_job *j = fe->fe_wait_head;
        uint32_t len;
        const uint8_t *msg = fe_job_msg(j, &len);
        int rc = sk_transport_send(t, fe->fe_peer, msg, len);
        if (rc == SK_EAGAIN) {
            pushed_back = 1;
            break;
        }
        if (rc != 0) {
            /* The session is going down; the job waits for the next. */
            sk_debug("frontend %s: job %llu not handed over: %s", fe->fe_name,
                     (unsigned long long)j->fj_id, sk_strerror(rc));
            return;
        }
        fe_job_sent(fe, j);
    }
    while (!pushed_back && fe->fe_cancels != NULL) {
        fe_job *j = fe->fe_cancels;
        int rc = hand_cancel(fe, j);
        if (rc == SK_EAGAIN) {
            pushed_back = 1;
            break;
        }
        fe->fe_cancels = j->fj_cnext;
        j->fj_cnext = NULL;
        j->fj_in_cancel_list = 0;
        if (rc != 0)
            return;
    }
    if (pushed_back && !ev_is_active(&fe->fe_retry_w)) {
        ev_timer_set(&fe->fe_retry_w, 0.001, 0);
        ev_timer_start(fe->fe_loop, &fe->fe_retry_w);
    }
}

/* ---- the object -------------------------------------------------------- */

int sk_frontend_create(struct ev_loop *loop, const sk_frontend_opts *o,
                       sk_frontend **out)
{
    if (o == NULL || out == NULL || o->fo_nschedulers == 0 ||
        o->fo_nschedulers > FE_MAX_ENDPOINTS || o->fo_schedulers == NULL ||
        o->fo_connect_timeout < 0.01 || o->fo_heartbeat < 0.01 ||
        o->fo_queue_timeout < 0 || o->fo_max_jobs == 0 ||
        o->fo_max_failovers > FE_MAX_FAILOVERS ||
        (o->fo_name != NULL && !sk_name_valid(o->fo_name)))
        return SK_EINVAL;
    for (unsigned i = 0; i < o->fo_nschedulers; i++)
        if (sk_endpoint_check(o->fo_schedulers[i], NULL, 0) != 0)
            return SK_EINVAL;
    sk_frontend *fe = calloc(1, sizeof *fe);
    if (fe == NULL)
        return SK_ENOMEM;
    int rc = SK_ENOMEM;
    fe->fe_own_loop = loop == NULL;
    fe->fe_loop = loop != NULL ? loop : ev_loop_new(EVFLAG_AUTO);
    if (fe->fe_loop == NULL)
        goto fail;
    if (o->fo_name != NULL)
        snprintf(fe->fe_name, sizeof fe->fe_name, "%s", o->fo_name);
    else
        sk_make_name(fe->fe_name, sizeof fe->fe_name, "fe");
    fe->fe_incarnation = sk_new_incarnation();
    for (unsigned i = 0; i < o->fo_nschedulers; i++) {
        if ((fe->fe_endpoints[i] = strdup(o->fo_schedulers[i])) == NULL)
            goto fail;
        fe->fe_nendpoints++;
    }
    fe->fe_connect_timeout = o->fo_connect_timeout;
    fe->fe_queue_timeout = o->fo_queue_timeout;
    fe->fe_max_jobs = o->fo_max_jobs;
    fe->fe_max_failovers = o->fo_max_failovers;
    fe->fe_next_id = 1;
    fe->fe_next_wire = 1;
    sk_buf_init(&fe->fe_buf);

    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "frontend");
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", fe->fe_name);
    cfg.tc_heartbeat = o->fo_heartbeat;
    fe->fe_move_delay = 2 * o->fo_heartbeat;
    fe->fe_max_msg = cfg.tc_max_msg;
    char err[1200];
    if (sk_cred_config(&cfg, o->fo_key_file, o->fo_token_file, o->fo_token, err,
                       sizeof err) != 0) {
        sk_error("frontend %s: %s", fe->fe_name, err);
        rc = SK_ECONFIG;
        goto fail;
    }
    memcpy(fe->fe_user, cfg.tc_token_user, sizeof fe->fe_user);
    sk_link_callbacks cb = {.lk_up = on_up,
                            .lk_down = on_down,
                            .lk_msg = on_msg,
                            .lk_refused = on_refused,
                            .lk_arg = fe};
    if ((rc = sk_link_create(fe->fe_loop, &cfg, &cb, &fe->fe_link)) != 0)
        goto fail;
    ev_timer_init(&fe->fe_connect_w, connect_timeout_cb, 0, 0);
    ev_timer_init(&fe->fe_switch_w, switch_cb, 0, 0);
    ev_timer_init(&fe->fe_queue_w, queue_timeout_cb, 0, 0);
    ev_timer_init(&fe->fe_retry_w, retry_cb, 0, 0);
    ev_timer_init(&fe->fe_held_w, fe_held_cb, 0, 0);
    fe->fe_connect_w.data = fe->fe_switch_w.data = fe->fe_queue_w.data =
        fe->fe_retry_w.data = fe->fe_held_w.data = fe;
    if ((rc = connect_current(fe)) != 0) {
        rc = SK_EIO;
        goto fail;
    }
    *out = fe;
    return 0;
fail:
    sk_frontend_destroy(fe);
    return rc;
}

void sk_frontend_destroy(sk_frontend *fe)
{
    if (fe == NULL)
        return;
    if (fe->fe_loop != NULL) {
        ev_timer_stop(fe->fe_loop, &fe->fe_connect_w);
        ev_timer_stop(fe->fe_loop, &fe->fe_switch_w);
        ev_timer_stop(fe->fe_loop, &fe->fe_queue_w);
        ev_timer_stop(fe->fe_loop, &fe->fe_retry_w);
        ev_timer_stop(fe->fe_loop, &fe->fe_held_w);
    }
    sk_link_destroy(fe->fe_link);
    fe_free_jobs(fe);
    uint32_t pos = 0;
    fe_kept *k;
    while ((k = sk_map_next(&fe->fe_kept, &pos, NULL)) != NULL)
        free(k);
    sk_map_free(&fe->fe_kept);
    sk_map_free(&fe->fe_jobs);
    for (unsigned i = 0; i < fe->fe_nendpoints; i++)
        free(fe->fe_endpoints[i]);
    sk_buf_free(&fe->fe_buf);
    if (fe->fe_own_loop && fe->fe_loop != NULL)
        ev_loop_destroy(fe->fe_loop);
    free(fe);
}

struct ev_loop *sk_frontend_loop(sk_frontend *fe)
{
    return fe->fe_loop;
}

/* ---- waiting ----------------------------------------------------------- */

static int is_up(void *arg)
{
    sk_frontend *fe = arg;
    return fe->fe_up || fe->fe_all_wrong;
}

int sk_frontend_wait_connected(sk_frontend *fe, double timeout)
{
    int rc = sk_run_until(fe->fe_loop, is_up, fe, timeout);
    if (rc == 0 && !fe->fe_up)
        return SK_EROLE;
    return rc;
}

static int wait_done(void *arg)
{
    return ((sk_frontend *)arg)->fe_wait_done;
}

static void copy_result(sk_job_result *out, fe_kept *k)
{
    *out = k->fk_result;
    out->jr_reason = k->fk_reason;
}

int sk_frontend_wait_job(sk_frontend *fe, sk_job_id job, double timeout,
                         sk_job_result *out)
{
    fe_kept *k = sk_map_del(&fe->fe_kept, job);
    if (k != NULL) {
        fe->fe_wait_result = *k;
        free(k);
        if (out != NULL)
            copy_result(out, &fe->fe_wait_result);
        return 0;
    }
    if (sk_map_get(&fe->fe_jobs, job) == NULL) {
        fe_set_error(fe, "job %llu is not in flight", (unsigned long long)job);
        return SK_ENOTFOUND;
    }
    fe->fe_wait_id = job;
    fe->fe_wait_done = 0;
    int rc = sk_run_until(fe->fe_loop, wait_done, fe, timeout);
    fe->fe_wait_id = 0;
    if (rc != 0) {
        fe_set_error(fe, "job %llu still in flight after %.3f s",
                     (unsigned long long)job, timeout);
        return rc;
    }
    /* A job without jc_job_done also left its result in fe_kept. */
    free(sk_map_del(&fe->fe_kept, job));
    if (out != NULL)
        copy_result(out, &fe->fe_wait_result);
    return 0;
}

static int is_idle(void *arg)
{
    return ((sk_frontend *)arg)->fe_jobs.mp_len == 0;
}

int sk_frontend_wait_idle(sk_frontend *fe, double timeout)
{
    return sk_run_until(fe->fe_loop, is_idle, fe, timeout);
}

void sk_frontend_stats_get(sk_frontend *fe, sk_frontend_stats *out)
{
    *out = fe->fe_stats;
    sk_link_stats ls;
    sk_link_stats_get(fe->fe_link, &ls);
    out->fs_undecodable =
        ls.ls_bad_version + ls.ls_bad_type + ls.ls_bad_limit + ls.ls_malformed;
    out->fs_jobs_in_flight = fe->fe_jobs.mp_len;
    out->fs_jobs_waiting = fe->fe_nwaiting;
    out->fs_connected = fe->fe_up;
    out->fs_scheduler = fe->fe_endpoints[fe->fe_cur];
}

const char *sk_frontend_error(const sk_frontend *fe)
{
    return fe->fe_err;
}
