/*
 * test_sched_property.c - the scheduler core against a model of its
 * world: node monitors that queue probes, ask for tasks, run them and
 * die; frontends that submit, cancel and vanish; all driven at random
 * for thousands of steps with fixed seeds. After every call the model
 * checks what the design promises: every task of a job gets exactly one
 * TASK_FINISHED, JOB_DONE comes once, after the last, with counts that
 * add up, the probes the core believes outstanding are the ones the
 * nodes hold, and no GET_TASK ever names a probe the core forgot. At the
 * end, with no more failures, every job drains to JOB_DONE and the core
 * holds nothing.
 */
#include "sched_testutil.h"
#include "sk_log.h"
#include "sk_rng.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES    24
#define FES      3
#define MAXJOBS  4096
#define MAXQ     4096
#define MAXRUN   256
#define MAXTASKS 12

/* A probe a model node holds. */
typedef struct mprobe {
    uint64_t mp_job, mp_resv;
    uint32_t mp_count;
} mprobe;

/* A task a model node runs. */
typedef struct mrun {
    uint64_t mr_job;
    uint32_t mr_task, mr_attempt;
} mrun;

typedef struct mnode {
    sk_peer mn_peer; /* 0 while down */
    mprobe mn_q[MAXQ];
    uint32_t mn_nq;
    mrun mn_run[MAXRUN];
    uint32_t mn_nrun;
} mnode;

/* What a frontend saw of one of its jobs (indexed by sj_job). */
typedef struct mjob {
    int mj_fe;
    uint32_t mj_tasks;
    bool mj_accepted, mj_done, mj_abandoned;
    uint8_t mj_final[MAXTASKS]; /* status of its TASK_FINISHED, 0: none */
    uint32_t mj_tally[SK_TASK_STATUS_MAX + 1];
} mjob;

static mnode nodes[NODES];
static mjob jobs[MAXJOBS];
static uint64_t njobs;
static sk_peer next_peer = 1;
static bool fe_up[FES];
static int violations;
static char first_violation[256];

static void violation(const char *what, uint64_t a, uint64_t b)
{
    if (violations++ == 0)
        snprintf(first_violation, sizeof first_violation, "%s (%llu, %llu)",
                 what, (unsigned long long)a, (unsigned long long)b);
}

static sk_peer fe_peer(int fe)
{
    return ST_FE + (sk_peer)fe;
}

static mnode *node_of(sk_peer peer)
{
    for (int i = 0; i < NODES; i++)
        if (nodes[i].mn_peer == peer && peer != 0)
            return &nodes[i];
    return NULL;
}

static void to_frontend(const sk_out *o)
{
    const sk_msg *m = &o->o_msg;
    uint64_t id;
    switch (m->m_type) {
    case SK_MSG_JOB_ACCEPTED:
        id = m->m_job_ack.ja_job;
        if (id >= MAXJOBS || fe_peer(jobs[id].mj_fe) != o->o_peer)
            violation("JOB_ACCEPTED for a job not submitted", id, 0);
        else
            jobs[id].mj_accepted = true;
        break;
    case SK_MSG_TASK_FINISHED: {
        const sk_task_finished *f = &m->m_task_finished;
        id = f->tf_job;
        if (id >= MAXJOBS || !jobs[id].mj_accepted || jobs[id].mj_done ||
            f->tf_task >= jobs[id].mj_tasks)
            violation("TASK_FINISHED for no task", id, f->tf_task);
        else if (jobs[id].mj_final[f->tf_task] != 0)
            violation("second TASK_FINISHED", id, f->tf_task);
        else {
            jobs[id].mj_final[f->tf_task] = f->tf_status;
            jobs[id].mj_tally[f->tf_status]++;
        }
        break;
    }
    case SK_MSG_JOB_DONE: {
        const sk_job_done *d = &m->m_job_done;
        id = d->jd_job;
        if (id >= MAXJOBS || !jobs[id].mj_accepted || jobs[id].mj_done) {
            violation("JOB_DONE for no job, or twice", id, 0);
            break;
        }
        mjob *j = &jobs[id];
        j->mj_done = true;
        uint32_t sum = 0;
        for (int s = 1; s <= SK_TASK_STATUS_MAX; s++)
            sum += j->mj_tally[s];
        if (sum != j->mj_tasks || d->jd_tasks != j->mj_tasks ||
            d->jd_ok != j->mj_tally[SK_TASK_OK] ||
            d->jd_failed != j->mj_tally[SK_TASK_FAILED] ||
            d->jd_killed != j->mj_tally[SK_TASK_KILLED] ||
            d->jd_lost != j->mj_tally[SK_TASK_LOST] ||
            d->jd_cancelled != j->mj_tally[SK_TASK_CANCELLED])
            violation("JOB_DONE counts disagree with the tasks", id, sum);
        break;
    }
    default:
        break;
    }
}

/* deliver routes the outbox to the model and empties it. */
static void deliver(sched_core *c)
{
    sk_outbox *ob = sched_outbox(c);
    for (size_t i = 0; i < ob->ob_len; i++) {
        const sk_out *o = &ob->ob_msgs[i];
        const sk_msg *m = &o->o_msg;
        if (o->o_peer >= ST_FE) {
            to_frontend(o);
            continue;
        }
        mnode *nd = node_of(o->o_peer);
        if (nd == NULL)
            continue; /* to a node that is gone: the transport drops it */
        if (m->m_type == SK_MSG_ENQUEUE_RESERVATION && nd->mn_nq < MAXQ) {
            nd->mn_q[nd->mn_nq++] =
                (mprobe){m->m_enqueue.er_job, m->m_enqueue.er_resv,
                         m->m_enqueue.er_count};
        } else if (m->m_type == SK_MSG_CANCEL_RESERVATIONS) {
            uint32_t k = 0;
            for (uint32_t q = 0; q < nd->mn_nq; q++)
                if (nd->mn_q[q].mp_job != m->m_cancel_resv.cr_job)
                    nd->mn_q[k++] = nd->mn_q[q];
            nd->mn_nq = k;
        } else if (m->m_type == SK_MSG_KILL_TASK) {
            for (uint32_t r = 0; r < nd->mn_nrun; r++)
                if (nd->mn_run[r].mr_job == m->m_kill_task.kt_job &&
                    nd->mn_run[r].mr_task == m->m_kill_task.kt_task) {
                    nd->mn_run[r] = nd->mn_run[--nd->mn_nrun];
                    break;
                }
        }
    }
    sk_outbox_clear(ob);
}

static void check_probes(sched_core *c, const char *when)
{
    uint64_t held = 0;
    for (int i = 0; i < NODES; i++)
        for (uint32_t q = 0; q < nodes[i].mn_nq; q++)
            held += nodes[i].mn_q[q].mp_count;
    if (held != sched_stats_get(c)->ss_resv_open)
        violation(when, held, sched_stats_get(c)->ss_resv_open);
}

static void node_boot(sched_core *c, int i)
{
    mnode *nd = &nodes[i];
    memset(nd, 0, sizeof *nd);
    nd->mn_peer = next_peer++;
    char name[16];
    snprintf(name, sizeof name, "n%d", i);
    sk_hello h = {.he_role = SK_ROLE_NODEMON,
                  .he_name = name,
                  .he_slots = 4,
                  .he_res = {4000, 8192}};
    sched_peer_up(c, nd->mn_peer, &h, 0);
}

/* node_ask: node i serves one of its probes (GET_TASK). */
static void node_ask(sched_core *c, sk_rng *rng, int i, sk_time now)
{
    mnode *nd = &nodes[i];
    if (nd->mn_peer == 0 || nd->mn_nq == 0 || nd->mn_nrun >= MAXRUN)
        return;
    uint32_t q = (uint32_t)sk_rng_below(rng, nd->mn_nq);
    mprobe p = nd->mn_q[q];
    if (--nd->mn_q[q].mp_count == 0)
        nd->mn_q[q] = nd->mn_q[--nd->mn_nq];
    sk_msg m = {.m_type = SK_MSG_GET_TASK};
    m.m_get_task.gt_job = p.mp_job;
    m.m_get_task.gt_resv = p.mp_resv;
    m.m_get_task.gt_node = "";
    st_node_msg(c, nd->mn_peer, &m, now);
    sk_outbox *ob = sched_outbox(c);
    for (size_t k = 0; k < ob->ob_len; k++) {
        const sk_msg *r = &ob->ob_msgs[k].o_msg;
        if (r->m_type == SK_MSG_TASK_REPLY && r->m_task_reply.tr_has_task)
            nd->mn_run[nd->mn_nrun++] =
                (mrun){r->m_task_reply.tr_job, r->m_task_reply.tr_task,
                       r->m_task_reply.tr_attempt};
    }
    deliver(c);
}

/* node_finish: node i ends one of its tasks with a random status. */
static void node_finish(sched_core *c, sk_rng *rng, int i, bool calm,
                        sk_time now)
{
    mnode *nd = &nodes[i];
    if (nd->mn_peer == 0 || nd->mn_nrun == 0)
        return;
    uint32_t r = (uint32_t)sk_rng_below(rng, nd->mn_nrun);
    mrun t = nd->mn_run[r];
    nd->mn_run[r] = nd->mn_run[--nd->mn_nrun];
    static const sk_task_status st[] = {SK_TASK_OK,   SK_TASK_OK,
                                        SK_TASK_OK,   SK_TASK_FAILED,
                                        SK_TASK_LOST, SK_TASK_KILLED};
    sk_task_status s = calm ? SK_TASK_OK : st[sk_rng_below(rng, 6)];
    st_started(c, nd->mn_peer, t.mr_job, t.mr_task, t.mr_attempt, now);
    st_finished(c, nd->mn_peer, t.mr_job, t.mr_task, t.mr_attempt, s, now);
    deliver(c);
}

static void submit(sched_core *c, sk_rng *rng, sk_time now)
{
    int fe = (int)sk_rng_below(rng, FES);
    if (!fe_up[fe] || njobs + 1 >= MAXJOBS)
        return;
    uint64_t id = ++njobs;
    uint32_t ntasks = 1 + (uint32_t)sk_rng_below(rng, MAXTASKS);
    jobs[id] = (mjob){.mj_fe = fe, .mj_tasks = ntasks};
    char names[MAXTASKS][2][16];
    const char *lists[MAXTASKS][3];
    const char **pref[MAXTASKS];
    for (uint32_t t = 0; t < ntasks; t++) {
        pref[t] = NULL;
        if (sk_rng_below(rng, 4) != 0)
            continue;
        for (int k = 0; k < 2; k++) {
            snprintf(names[t][k], sizeof names[t][k], "n%d",
                     (int)sk_rng_below(rng, NODES));
            lists[t][k] = names[t][k];
        }
        lists[t][2] = NULL;
        pref[t] = lists[t];
    }
    static const double ratios[] = {0, 1, 1.5, 2, 3};
    st_job j = {.sj_job = id,
                .ntasks = ntasks,
                .ratio = ratios[sk_rng_below(rng, 5)],
                .max_attempts = 1 + (uint32_t)sk_rng_below(rng, 3),
                .preferred = pref};
    st_submit(c, fe_peer(fe), &j, now);
    deliver(c);
}

static void cancel(sched_core *c, sk_rng *rng, sk_time now)
{
    if (njobs == 0)
        return;
    uint64_t id = 1 + sk_rng_below(rng, njobs);
    if (!fe_up[jobs[id].mj_fe])
        return;
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job.cj_job = id;
    m.m_cancel_job.cj_reason = "";
    sched_on_message(c, fe_peer(jobs[id].mj_fe), &m, now);
    deliver(c);
}

static void fe_down(sched_core *c, int fe, sk_time now)
{
    sched_peer_down(c, fe_peer(fe), now);
    deliver(c);
    fe_up[fe] = false;
    for (uint64_t id = 1; id <= njobs; id++)
        if (jobs[id].mj_fe == fe && jobs[id].mj_accepted && !jobs[id].mj_done)
            jobs[id].mj_abandoned = true;
}

static void run(uint64_t seed, int steps)
{
    memset(nodes, 0, sizeof nodes);
    memset(jobs, 0, sizeof jobs);
    njobs = 0;
    sk_rng rng;
    sk_rng_seed(&rng, seed);
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_launch_timeout_ms = 0;
    sched_core *c;
    sched_new(&cfg, seed, &c);
    for (int i = 0; i < NODES; i++)
        node_boot(c, i);
    for (int f = 0; f < FES; f++)
        fe_up[f] = true;
    sk_time now = 0;
    for (int s = 0; s < steps; s++) {
        now += 1000;
        uint64_t roll = sk_rng_below(&rng, 100);
        int i = (int)sk_rng_below(&rng, NODES);
        if (roll < 4)
            submit(c, &rng, now);
        else if (roll < 50)
            node_ask(c, &rng, i, now);
        else if (roll < 90)
            node_finish(c, &rng, i, false, now);
        else if (roll < 93)
            cancel(c, &rng, now);
        else if (roll < 97) {
            if (nodes[i].mn_peer != 0) {
                sk_peer p = nodes[i].mn_peer;
                /* Its queue and its tasks die with it. */
                nodes[i].mn_peer = 0;
                nodes[i].mn_nq = 0;
                nodes[i].mn_nrun = 0;
                sched_peer_down(c, p, now);
                deliver(c);
            } else {
                node_boot(c, i);
            }
        } else if (roll < 97 + (s % 10 == 0)) {
            int fe = (int)sk_rng_below(&rng, FES);
            if (fe_up[fe])
                fe_down(c, fe, now);
            else
                fe_up[fe] = true;
        }
        check_probes(c, "probes outstanding disagree during the run");
    }
    /* Calm: every node back, no more failures; everything must drain. */
    for (int i = 0; i < NODES; i++)
        if (nodes[i].mn_peer == 0)
            node_boot(c, i);
    for (int round = 0; round < 100000; round++) {
        bool busy = false;
        for (int i = 0; i < NODES; i++) {
            if (nodes[i].mn_nq > 0 || nodes[i].mn_nrun > 0)
                busy = true;
            node_ask(c, &rng, i, now);
            node_finish(c, &rng, i, true, now);
        }
        if (!busy)
            break;
    }
    check_probes(c, "probes outstanding disagree after draining");
    uint64_t done = 0, accepted = 0, stuck = 0;
    for (uint64_t id = 1; id <= njobs; id++) {
        if (!jobs[id].mj_accepted)
            continue;
        accepted++;
        if (jobs[id].mj_done)
            done++;
        else if (!jobs[id].mj_abandoned)
            stuck++;
    }
    const sched_stats *st = sched_stats_get(c);
    tap_diag("seed %llu: %llu submitted, %llu rejected (%llu no node), "
             "%llu tasks launched",
             (unsigned long long)seed, (unsigned long long)njobs,
             (unsigned long long)st->ss_jobs_rejected,
             (unsigned long long)st->ss_reject_nodes,
             (unsigned long long)st->ss_tasks_launched);
    tap_ok(violations == 0, "seed %llu: %d steps, no violation%s%s",
           (unsigned long long)seed, steps, violations ? ": " : "",
           first_violation);
    tap_ok(stuck == 0 && st->ss_jobs == 0 && st->ss_resv_open == 0,
           "seed %llu: all %llu accepted jobs ended (%llu JOB_DONE, the "
           "rest abandoned), core empty",
           (unsigned long long)seed, (unsigned long long)accepted,
           (unsigned long long)done);
    tap_ok(st->ss_unknown_resv == 0 && st->ss_bad_peer == 0 &&
               st->ss_bad_state == 0 && st->ss_stale == 0,
           "seed %llu: no GET_TASK for a forgotten probe, no refused "
           "report (%llu retries, %llu re-sent probes)",
           (unsigned long long)seed, (unsigned long long)st->ss_tasks_retried,
           (unsigned long long)st->ss_resent);
    sched_free(c);
    violations = 0;
}

static void quiet(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    (void)line;
}

int main(void)
{
    tap_timeout(60);
    sk_log_set_sink(quiet, NULL);
    tap_plan(9);
    run(1, 20000);
    run(2, 20000);
    run(3, 20000);
    return tap_exit_status();
}
