/*
 * core_fuzz_sched.c - the scheduler core driven by a fuzz script (see
 * core_fuzz.h).
 *
 * Peers 1..6 are node monitors (they say HELLO as such), 7 and 8 are
 * frontends; any of them may send any message. The driver remembers the
 * reservations and launches the core announced, so that GET_TASK,
 * TASK_STARTED and TASK_FINISHED often name real ones, and keeps a model
 * of each frontend's jobs to check the core's promise: every task of an
 * accepted job is reported finished exactly once, then JOB_DONE with
 * counts that add up, and nothing reaches a frontend that went away but
 * the answer to a cancel it sends as an operator would (sched_admin.c).
 */
#include "core_fuzz.h"
#include "core_fuzz_script.h"
#include "sched_core.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NODES      6
#define FRONTENDS  2
#define FE0        (NODES + 1)
#define JOB_IDS    4 /* sj_job values a frontend uses */
#define MAX_TASKS  8
#define MEMORY     16
#define MAX_INPUTS 4096

/* What the core announced, for the script to answer. */
typedef struct seen_resv {
    sk_peer sr_node;
    uint64_t sr_job, sr_resv;
} seen_resv;
typedef struct seen_launch {
    sk_peer sl_node;
    uint64_t sl_job;
    uint32_t sl_task, sl_attempt;
} seen_launch;

/* The model of one (frontend, sj_job). */
typedef struct fe_job {
    bool fj_in_flight;
    uint32_t fj_submitted; /* tasks in the last submission */
    uint32_t fj_ntasks;    /* tasks of the accepted job */
    uint8_t fj_finished[MAX_TASKS];
} fe_job;

typedef struct driver {
    sched_core *d_core;
    sk_time d_now;
    seen_resv d_resv[MEMORY];
    seen_launch d_launch[MEMORY];
    uint32_t d_nresv, d_nlaunch;
    bool d_fe_up[FRONTENDS];
    fe_job d_jobs[FRONTENDS][JOB_IDS];
    cf_stats *d_stats;
} driver;

static const char *const labels[] = {"gpu", "ssd"};
static const char *const node_names[] = {"node1", "node2", "node3", "node4",
                                         "node5", "node6", "node7", "ghost"};

static bool is_fe(sk_peer p)
{
    return p >= FE0 && p < FE0 + FRONTENDS;
}

static fe_job *model_job(driver *d, sk_peer fe, uint64_t sj_job)
{
    if (!is_fe(fe) || sj_job >= JOB_IDS)
        cf_fail("message for a job no frontend submitted", fe, sj_job);
    return &d->d_jobs[fe - FE0][sj_job];
}

/* Check one message to a frontend against the model. */
static void check_to_fe(driver *d, const sk_out *o)
{
    const sk_msg *m = &o->o_msg;
    if (m->m_type == SK_MSG_STATUS_REPLY || m->m_type == SK_MSG_JOB_REJECTED)
        return;
    /* A peer that is no frontend (any more) and cancels names a job by
     * the scheduler's id: an operator's cancel, which is answered. */
    if (!d->d_fe_up[o->o_peer - FE0] && m->m_type == SK_MSG_JOB_ACCEPTED)
        return;
    if (!d->d_fe_up[o->o_peer - FE0])
        cf_fail("message to a frontend that went away", o->o_peer,
                (unsigned long long)m->m_type);
    fe_job *j;
    switch (m->m_type) {
    case SK_MSG_JOB_ACCEPTED:
        j = model_job(d, o->o_peer, m->m_job_ack.ja_job);
        if (j->fj_in_flight)
            cf_fail("a job accepted twice", o->o_peer, m->m_job_ack.ja_job);
        j->fj_in_flight = true;
        j->fj_ntasks = j->fj_submitted;
        memset(j->fj_finished, 0, sizeof j->fj_finished);
        break;
    case SK_MSG_TASK_STARTED:
        j = model_job(d, o->o_peer, m->m_task_started.st_job);
        if (!j->fj_in_flight || m->m_task_started.st_task >= j->fj_ntasks ||
            j->fj_finished[m->m_task_started.st_task])
            cf_fail("TASK_STARTED for no running task", o->o_peer,
                    m->m_task_started.st_task);
        break;
    case SK_MSG_TASK_FINISHED:
        j = model_job(d, o->o_peer, m->m_task_finished.tf_job);
        if (!j->fj_in_flight || m->m_task_finished.tf_task >= j->fj_ntasks ||
            j->fj_finished[m->m_task_finished.tf_task]++)
            cf_fail("a task finished twice or out of a job",
                    m->m_task_finished.tf_job, m->m_task_finished.tf_task);
        break;
    case SK_MSG_JOB_DONE: {
        const sk_job_done *jd = &m->m_job_done;
        j = model_job(d, o->o_peer, jd->jd_job);
        if (!j->fj_in_flight || jd->jd_tasks != j->fj_ntasks)
            cf_fail("JOB_DONE for no job, or with the wrong task count",
                    jd->jd_job, jd->jd_tasks);
        for (uint32_t t = 0; t < j->fj_ntasks; t++)
            if (!j->fj_finished[t])
                cf_fail("JOB_DONE before a task finished", jd->jd_job, t);
        j->fj_in_flight = false;
        d->d_stats->cs_done++;
        break;
    }
    default:
        cf_fail("unexpected message type to a frontend", o->o_peer,
                (unsigned long long)m->m_type);
    }
}

static void remember(driver *d, const sk_out *o)
{
    const sk_msg *m = &o->o_msg;
    if (m->m_type == SK_MSG_ENQUEUE_RESERVATION)
        d->d_resv[d->d_nresv++ % MEMORY] =
            (seen_resv){o->o_peer, m->m_enqueue.er_job, m->m_enqueue.er_resv};
    else if (m->m_type == SK_MSG_TASK_REPLY && m->m_task_reply.tr_has_task) {
        d->d_launch[d->d_nlaunch++ % MEMORY] =
            (seen_launch){o->o_peer, m->m_task_reply.tr_job,
                          m->m_task_reply.tr_task, m->m_task_reply.tr_attempt};
        d->d_stats->cs_launched++;
    }
}

static void after_input(driver *d)
{
    sk_outbox *ob = sched_outbox(d->d_core);
    cf_check_encodes(ob);
    for (size_t i = 0; i < ob->ob_len; i++) {
        if (is_fe(ob->ob_msgs[i].o_peer))
            check_to_fe(d, &ob->ob_msgs[i]);
        else
            remember(d, &ob->ob_msgs[i]);
    }
    sk_outbox_clear(ob);
}

/* Deliver m from peer through the wire; the wire may refuse it. */
static void deliver(driver *d, sk_peer from, const sk_msg *m)
{
    sk_msg in;
    if (cf_wire(m, &in) != 0)
        return;
    if (in.m_type == SK_MSG_SUBMIT_JOB && is_fe(from)) {
        fe_job *j = model_job(d, from, in.m_submit_job.sj_job);
        /* A duplicate of a job in flight is rejected and changes nothing. */
        if (!j->fj_in_flight)
            j->fj_submitted = in.m_submit_job.sj_ntasks;
        d->d_fe_up[from - FE0] = true; /* registered on the way */
    }
    if (in.m_type == SK_MSG_HELLO)
        sched_peer_up(d->d_core, from, &in.m_hello, d->d_now);
    else
        sched_on_message(d->d_core, from, &in, d->d_now);
    sk_msg_free(&in);
}

static void hello(driver *d, cf_script *s, sk_peer p)
{
    const char *lab[2];
    uint32_t nlab = 0;
    uint32_t mask = cf_below(s, 4);
    for (uint32_t i = 0; i < 2; i++)
        if (mask & (1u << i))
            lab[nlab++] = labels[i];
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello.he_role = is_fe(p) ? SK_ROLE_FRONTEND : SK_ROLE_NODEMON;
    m.m_hello.he_id = p;
    m.m_hello.he_name = node_names[(p - 1) % 8];
    m.m_hello.he_slots = 1 + cf_below(s, 4);
    m.m_hello.he_res = (sk_resources){1000u * cf_below(s, 5), 1024};
    m.m_hello.he_labels = lab;
    m.m_hello.he_nlabels = nlab;
    if (is_fe(p))
        d->d_fe_up[p - FE0] = true;
    deliver(d, p, &m);
}

static void submit(driver *d, cf_script *s, sk_peer from)
{
    static const double ratios[] = {0, 1, 1.5, 2, 3, 64};
    static const uint32_t cpus[] = {0, 500, 1000, 5000};
    sk_task_spec tasks[MAX_TASKS];
    const char *pref[MAX_TASKS][2];
    uint32_t n = 1 + cf_below(s, MAX_TASKS);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t np = cf_below(s, 4) == 0 ? 1 + cf_below(s, 2) : 0;
        for (uint32_t k = 0; k < np; k++)
            pref[i][k] = cf_pick(s, node_names);
        tasks[i] = (sk_task_spec){.ts_spec = {(const uint8_t *)"t", 1},
                                  .ts_preferred = pref[i],
                                  .ts_npreferred = np};
    }
    const char *lab[1] = {cf_pick(s, labels)};
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    sk_submit_job *sj = &m.m_submit_job;
    sj->sj_job = cf_below(s, JOB_IDS);
    sj->sj_user = cf_below(s, 2) ? "ann" : "bob";
    sj->sj_priority = (uint8_t)cf_below(s, SK_PRIORITIES);
    sj->sj_probe_ratio = cf_pick(s, ratios);
    sj->sj_labels = lab;
    sj->sj_nlabels = cf_below(s, 4) == 0;
    sj->sj_res = (sk_resources){cf_pick(s, cpus), 0};
    sj->sj_long = cf_below(s, 16) == 0;
    sj->sj_max_attempts = cf_below(s, 4);
    sj->sj_framework = "";
    sj->sj_tasks = tasks;
    sj->sj_ntasks = n;
    /* A few keys, so that offers (below) meet jobs: refs are the
     * indices, as in a first submission. */
    sj->sj_key = cf_below(s, 4);
    for (uint32_t i = 0; sj->sj_key != 0 && i < n; i++)
        tasks[i].ts_ref = i;
    deliver(d, from, &m);
}

/* An outcome offered by a node monitor (or anyone), for a key and ref
 * that may name a task in flight, one that ended, or nothing. */
static void offer(driver *d, cf_script *s, sk_peer from)
{
    sk_msg m = {.m_type = SK_MSG_TASK_OUTCOME};
    sk_task_outcome *o = &m.m_task_outcome;
    o->to_key = cf_below(s, 4);
    o->to_ref = cf_below(s, MAX_TASKS + 1);
    o->to_user = cf_below(s, 2) ? "ann" : "bob";
    o->to_node = "n";
    o->to_status = (uint8_t)(SK_TASK_OK + cf_below(s, 3));
    o->to_launch_us = d->d_now;
    o->to_end_us = d->d_now;
    deliver(d, from, &m);
}

static void get_task(driver *d, cf_script *s, sk_peer from)
{
    sk_msg m = {.m_type = SK_MSG_GET_TASK};
    if (d->d_nresv > 0 && cf_below(s, 8) != 0) {
        const seen_resv *r =
            &d->d_resv[cf_below(s, MEMORY) % d->d_nresv % MEMORY];
        from = cf_below(s, 8) != 0 ? r->sr_node : from;
        m.m_get_task.gt_job = r->sr_job;
        m.m_get_task.gt_resv = r->sr_resv;
    } else {
        m.m_get_task.gt_job = cf_below(s, 8);
        m.m_get_task.gt_resv = cf_below(s, 32);
    }
    m.m_get_task.gt_node_id = from;
    m.m_get_task.gt_node = node_names[(from - 1) % 8];
    deliver(d, from, &m);
}

/* TASK_STARTED or TASK_FINISHED for a remembered launch, or made up. */
static void task_report(driver *d, cf_script *s, sk_peer from, bool finished)
{
    seen_launch l = {from, cf_below(s, 8), cf_below(s, MAX_TASKS),
                     cf_below(s, 3)};
    if (d->d_nlaunch > 0 && cf_below(s, 8) != 0) {
        l = d->d_launch[cf_below(s, MEMORY) % d->d_nlaunch % MEMORY];
        if (cf_below(s, 8) == 0)
            l.sl_node = from;
    }
    sk_msg m;
    memset(&m, 0, sizeof m);
    if (!finished) {
        m.m_type = SK_MSG_TASK_STARTED;
        m.m_task_started =
            (sk_task_started){l.sl_job, l.sl_task, l.sl_attempt, "n", d->d_now};
    } else {
        m.m_type = SK_MSG_TASK_FINISHED;
        sk_task_finished *tf = &m.m_task_finished;
        tf->tf_job = l.sl_job;
        tf->tf_task = l.sl_task;
        tf->tf_attempt = l.sl_attempt;
        tf->tf_node = "n";
        tf->tf_status = (uint8_t)(SK_TASK_OK + cf_below(s, SK_TASK_STATUS_MAX));
        tf->tf_exit = (int32_t)cf_below(s, 3) - 1;
        tf->tf_launch_us = d->d_now;
        tf->tf_end_us = d->d_now;
    }
    deliver(d, l.sl_node, &m);
}

static void membership(driver *d, cf_script *s, sk_peer from)
{
    sk_member mb[3];
    uint32_t n = 1 + cf_below(s, 3);
    for (uint32_t i = 0; i < n; i++) {
        memset(&mb[i], 0, sizeof mb[i]);
        mb[i].me_id = i;
        mb[i].me_name = cf_pick(s, node_names);
        mb[i].me_addr = "";
        mb[i].me_state = (uint8_t)(SK_NODE_UP + cf_below(s, SK_NODE_STATE_MAX));
    }
    sk_msg m = {.m_type = SK_MSG_MEMBERSHIP};
    m.m_membership = (sk_membership){d->d_now, cf_below(s, 2), mb, n};
    deliver(d, from, &m);
}

static void step(driver *d, cf_script *s)
{
    sk_peer p = 1 + cf_below(s, NODES + FRONTENDS);
    sk_peer fe = FE0 + cf_below(s, FRONTENDS);
    uint32_t op = cf_below(s, 16);
    switch (op) {
    case 0:
    case 1:
        hello(d, s, op == 0 ? p : fe);
        break;
    case 2:
        sched_peer_down(d->d_core, p, d->d_now);
        if (is_fe(p)) {
            d->d_fe_up[p - FE0] = false;
            memset(d->d_jobs[p - FE0], 0, sizeof d->d_jobs[p - FE0]);
        }
        break;
    case 3:
    case 4:
        submit(d, s, cf_below(s, 8) != 0 ? fe : p);
        break;
    case 5: {
        sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
        m.m_cancel_job = (sk_cancel_job){cf_below(s, JOB_IDS), "stop"};
        deliver(d, fe, &m);
        break;
    }
    case 6:
    case 7:
    case 8:
        get_task(d, s, p);
        break;
    case 9:
    case 10:
        task_report(d, s, p, false);
        break;
    case 11:
    case 12:
        task_report(d, s, p, true);
        break;
    case 13:
        if (cf_below(s, 2))
            membership(d, s, p);
        else
            offer(d, s, p);
        break;
    case 14: {
        sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
        m.m_status_request = (sk_status_request){.sq_request = cf_byte(s),
                                                 .sq_table = cf_below(s, 2)};
        deliver(d, p, &m);
        break;
    }
    default:
        d->d_now += (sk_time)cf_byte(s) << 14; /* up to about 4 s */
        sched_on_timer(d->d_core, d->d_now);
        break;
    }
    after_input(d);
}

void cf_sched_run(const uint8_t *data, size_t size, cf_stats *st)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_id = 1;
    cfg.sc_launch_timeout_ms = 1000;
    cfg.sc_max_jobs = 6;
    driver d;
    memset(&d, 0, sizeof d);
    d.d_now = 1000000;
    d.d_stats = st;
    if (sched_new(&cfg, 42, &d.d_core) != 0)
        cf_fail("cannot create a scheduler core", 0, 0);
    cf_script s = {data, size};
    for (size_t n = 0; s.cs_left > 0 && n < MAX_INPUTS; n++) {
        step(&d, &s);
        st->cs_inputs++;
    }
    sched_free(d.d_core);
}
