/*
 * test_fd_grace.c - the flow node core keeps a scheduler's work when its
 * session ends (fd_grace.c, sched_grace_ms), driven with messages and
 * times: nothing released while it is away, nothing of its placed; an
 * outcome the core decides meanwhile kept and delivered when the same
 * incarnation returns; the
 * re-forwarded hand-overs matched with what is held (done tasks end,
 * running ones keep their attempt, one that ended here meanwhile is
 * reported LOST); a held job not re-forwarded cancelled; the grace
 * running out, another incarnation and a grace of 0 cancel as before,
 * and so does another scheduler handing over the same frontend job.
 * And flowd's own stall (fd_core_stalled): nodes not blamed for it, a
 * node whose session it ended taken back with its tasks.
 */
#include "fd_core.h"
#include "fd_testutil.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <string.h>

#define T0    1000000000000ull
#define MS    FDT_MS
#define SCHED 100
#define SID   7
#define INC   42

static void sched_hello(fd_core *c, sk_time now, sk_peer peer, uint64_t inc)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_SCHEDULER,
                           .he_id = SID,
                           .he_incarnation = inc,
                           .he_name = "sched",
                           .he_framework = ""};
    fd_core_on_msg(c, now, peer, &m);
}

/* reforward sends job `job` of n tasks again from peer, as a scheduler
 * does on flowd's HELLO: task i done when done[i], attempts att[i]. */
static void reforward(fd_core *c, sk_time now, sk_peer peer, uint64_t job,
                      uint32_t n, const bool *done, const uint32_t *att)
{
    fdt_drain(c);
    sk_task_spec ts[8];
    memset(ts, 0, sizeof ts);
    for (uint32_t i = 0; i < n; i++) {
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)"x", 2};
        ts[i].ts_done = done[i];
        ts[i].ts_attempt = att[i];
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = job,
                                     .sj_user = "alice",
                                     .sj_framework = "",
                                     .sj_long = true,
                                     .sj_placement = SK_PLACE_FLOW,
                                     .sj_tasks = ts,
                                     .sj_ntasks = n};
    fd_core_on_msg(c, now, peer, &m);
}

static void on_timer(fd_core *c, sk_time now)
{
    fdt_drain(c);
    fd_core_on_timer(c, now);
}

static void peer_down(fd_core *c, sk_time now, sk_peer peer)
{
    fdt_drain(c);
    fd_core_peer_down(c, now, peer);
}

static fd_config cfg_test(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    cfg.fdc_settle_ms = 0;
    cfg.fdc_sched_grace_ms = 5000;
    return cfg;
}

/* The long tasks each node runs, as running() left them. */
static fdt_run run1[8], run2[8];
static uint32_t nrun1, nrun2;

/* beat sends heartbeat seq of n1 and n2 (when up2) listing their tasks. */
static void beat(fd_core *c, sk_time now, uint64_t seq, bool up2)
{
    fdt_heartbeat(c, now, 1, seq, 2, nrun1, 0, 0, run1, nrun1);
    if (up2)
        fdt_heartbeat(c, now, 2, seq, 2, nrun2, 0, 0, run2, nrun2);
    fdt_drain(c);
}

/* A core with nodes n1 (peer 1) and n2 (peer 2) of 2 slots, all long,
 * the scheduler on SCHED, and job 1 of `ntasks` tasks placed, acked and
 * seen running: task i on the node in *where[i]. */
static fd_core *running(uint32_t ntasks, sk_peer *where)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 2, NULL, 1.0);
    fdt_node(c, T0, 2, "n2", 2, NULL, 1.0);
    sched_hello(c, T0, SCHED, INC);
    fdt_submit(c, T0, SCHED, 1, ntasks, true, NULL, 0);
    fdt_drain(c);
    fdt_round(c, T0 + 200 * MS, NULL);
    sk_reserve rv[8];
    sk_peer to[8];
    size_t n = 0;
    const sk_msg *m;
    while (n < 8 && (m = fdt_nth(c, SK_MSG_RESERVE, n, &to[n])) != NULL) {
        rv[n] = m->m_reserve;
        rv[n].rv_spec.b_data = NULL;
        n++;
    }
    if (n != ntasks)
        tap_bail_out("%zu of %u tasks placed", n, ntasks);
    fdt_drain(c);
    uint32_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < n; i++) {
        fdt_answer(c, T0 + 210 * MS, to[i], &rv[i], true);
        where[rv[i].rv_task] = to[i];
        fdt_run r = {1, rv[i].rv_task, 0};
        if (to[i] == 1)
            run1[n1++] = r;
        else
            run2[n2++] = r;
    }
    nrun1 = n1;
    nrun2 = n2;
    beat(c, T0 + 300 * MS, 1, true);
    if (fd_core_stats(c)->fs_running != ntasks)
        tap_bail_out("%llu running",
                     (unsigned long long)fd_core_stats(c)->fs_running);
    return c;
}

static bool finished(fd_core *c, sk_peer to, uint32_t task, uint8_t status)
{
    const sk_msg *m;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_TASK_FINISHED, i, NULL)); i++)
        if (m->m_task_finished.tf_task == task &&
            m->m_task_finished.tf_status == status &&
            fdt_count(c, SK_MSG_TASK_FINISHED, to) > 0)
            return true;
    return false;
}

/* Away and back: nothing released, LOST kept and delivered, the
 * re-forward matched. */
static void test_return(void)
{
    sk_peer where[4];
    fd_core *c = running(4, where);
    const fd_stats *st = fd_core_stats(c);
    peer_down(c, T0 + 1000 * MS, SCHED);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "its session ended: nothing released");
    tap_ok(st->fs_sched_held == 1 && st->fs_schedulers == 0 &&
               st->fs_running == 4 && st->fs_jobs == 1,
           "the scheduler is held, its 4 tasks run on");
    /* n2 goes silent: its tasks (max_attempts 3) are re-planned, not
     * reported; then n1 keeps beating while the scheduler is away. */
    beat(c, T0 + 2900 * MS, 2, false);
    uint32_t on1 = 0, on2 = 0, first1 = UINT32_MAX;
    for (uint32_t i = 0; i < 4; i++) {
        if (where[i] == 1 && first1 == UINT32_MAX)
            first1 = i;
        on1 += where[i] == 1;
        on2 += where[i] == 2;
    }
    tap_ok(on1 > 0 && on2 > 0, "tasks on both nodes (%u, %u)", on1, on2);
    on_timer(c, T0 + 3301 * MS);
    tap_is_int((int64_t)st->fs_nodes, 1, "n2 timed out");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX), 0,
               "nothing sent to the scheduler away");
    tap_ok(fd_core_next_deadline(c) <= T0 + 6000 * MS,
           "a deadline at the grace's end at the latest");

    /* The same incarnation comes back on another peer within the grace. */
    sched_hello(c, T0 + 4000 * MS, SCHED + 5, INC);
    tap_ok(st->fs_sched_reclaimed == 1 && st->fs_sched_held == 0 &&
               st->fs_schedulers == 1,
           "the same incarnation takes its work back");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_MEMBERSHIP, SCHED + 5), 1,
               "and gets the directory");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "nothing released");
    fd_task_state s = 0;
    uint32_t att = 9;
    tap_ok(fd_core_task(c, SCHED + 5, 1, first1, &s, &att, NULL) == 0 &&
               s == FD_TASK_RUNNING && att == 0,
           "a task on n1 still runs its attempt 0");

    /* It re-forwards: the first task on n1 done (it had the outcome from
     * the node), the others live, attempts as it knew them. */
    bool done[4] = {false};
    uint32_t atts[4] = {0};
    done[first1] = true;
    reforward(c, T0 + 4100 * MS, SCHED + 5, 1, 4, done, atts);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED + 5), 1,
               "the re-forward is accepted, not refused as a duplicate");
    const sk_msg *rl = fdt_nth(c, SK_MSG_RELEASE, 0, NULL);
    tap_ok(fdt_count(c, SK_MSG_RELEASE, 1) == 1 && rl->m_release.rl_job == 1 &&
               rl->m_release.rl_task == first1,
           "the task it reports done is released");
    tap_is_int((int64_t)st->fs_reforwarded, 1, "counted");
    tap_is_int((int64_t)st->fs_jobs_rejected, 0, "nothing refused");
    uint32_t still = 0;
    for (uint32_t i = 0; i < 4; i++)
        still += i != first1 &&
                 fd_core_task(c, SCHED + 5, 1, i, &s, &att, NULL) == 0;
    tap_is_int(still, 3, "the other 3 are held as before");
    /* n1 no longer runs the done one. */
    uint32_t k = 0;
    for (uint32_t i = 0; i < nrun1; i++)
        if (run1[i].task != first1)
            run1[k++] = run1[i];
    nrun1 = k;
    beat(c, T0 + 5000 * MS, 3, false);
    beat(c, T0 + 7000 * MS, 4, false);
    on_timer(c, T0 + 7200 * MS);
    tap_ok(fdt_count(c, SK_MSG_RELEASE, UINT32_MAX) == 0 && st->fs_jobs == 1 &&
               st->fs_sched_expired == 0,
           "the re-forward window passes: nothing cancelled");
    tap_is_int(fdt_drain(c), 0, "every message encodes");
    fd_core_free(c);
}

/* An outcome the core decides while the scheduler is away is kept and
 * delivered when it returns. */
static void test_kept(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_max_rejects = 1;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, 1.0);
    sched_hello(c, T0, SCHED, INC);
    fdt_submit(c, T0, SCHED, 3, 1, true, NULL, 0);
    fdt_drain(c);
    fdt_round(c, T0 + 200 * MS, NULL);
    const sk_msg *m = fdt_nth(c, SK_MSG_RESERVE, 0, NULL);
    if (m == NULL)
        tap_bail_out("not placed");
    sk_reserve rv = m->m_reserve;
    rv.rv_spec.b_data = NULL;
    peer_down(c, T0 + 300 * MS, SCHED);
    fdt_answer(c, T0 + 400 * MS, 1, &rv, false);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_TASK_FINISHED, UINT32_MAX), 0,
               "rejected once (max_rejects 1): FAILED, kept");
    tap_is_int((int64_t)fd_core_stats(c)->fs_kept, 1, "counted");
    sched_hello(c, T0 + 2000 * MS, SCHED + 1, INC);
    const sk_msg *f = fdt_nth(c, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(f != NULL && fdt_count(c, SK_MSG_TASK_FINISHED, SCHED + 1) == 1 &&
               f->m_task_finished.tf_job == 3 &&
               f->m_task_finished.tf_status == SK_TASK_FAILED &&
               f->m_task_finished.tf_end_us == T0 + 400 * MS,
           "delivered on its return, with the time it was decided");
    /* The job ended here while it was away: its re-forward is answered,
     * nothing placed again. */
    bool done[1] = {false};
    uint32_t att[1] = {0};
    fdt_drain(c);
    reforward(c, T0 + 2100 * MS, SCHED + 1, 3, 1, done, att);
    tap_ok(fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED + 1) == 1 &&
               fd_core_stats(c)->fs_jobs == 0,
           "a re-forward of a job that ended here is answered, not held");
    tap_ok(finished(c, SCHED + 1, 0, SK_TASK_LOST),
           "a task it still holds that ended here is reported LOST");
    tap_is_int(fdt_drain(c), 0, "every message encodes");
    fd_core_free(c);
}

/* A held job the returning scheduler does not re-forward (it dropped it
 * meanwhile) is cancelled when the re-forward window ends. */
static void test_not_reforwarded(void)
{
    sk_peer where[2];
    fd_core *c = running(2, where);
    peer_down(c, T0 + 1000 * MS, SCHED);
    beat(c, T0 + 1500 * MS, 2, true);
    sched_hello(c, T0 + 2000 * MS, SCHED + 1, INC);
    beat(c, T0 + 3500 * MS, 3, true);
    on_timer(c, T0 + 4999 * MS);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "within the window (node_timeout_ms) nothing happens");
    on_timer(c, T0 + 5000 * MS);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 2,
               "then the job not re-forwarded is cancelled");
    tap_is_int((int64_t)fd_core_stats(c)->fs_jobs, 0, "no job left");
    fd_core_free(c);
}

/* A gone scheduler's waiting tasks wait: a node monitor would report
 * them to nobody. Back, they are placed once their job is re-forwarded. */
static void test_waiting(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, 1.0);
    sched_hello(c, T0, SCHED, INC);
    fdt_submit(c, T0, SCHED, 4, 2, true, NULL, 0);
    peer_down(c, T0 + 10 * MS, SCHED);
    tap_is_int(fdt_round(c, T0 + 200 * MS, NULL), 0, "a round runs");
    tap_ok(fdt_count(c, SK_MSG_RESERVE, UINT32_MAX) == 0 &&
               fd_core_stats(c)->fs_waiting == 2,
           "its scheduler away, the job's 2 tasks are not placed");
    sched_hello(c, T0 + 500 * MS, SCHED + 1, INC);
    fdt_drain(c);
    fdt_round(c, T0 + 700 * MS, NULL);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, 1), 0,
               "back, but the job not re-forwarded yet: still not placed");
    bool done[2] = {false, false};
    uint32_t att[2] = {0, 0};
    reforward(c, T0 + 800 * MS, SCHED + 1, 4, 2, done, att);
    fdt_drain(c);
    tap_is_int(fdt_round(c, T0 + 1000 * MS, NULL), 0, "re-forwarded: a round");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, 1), 2,
               "and they are placed");
    fd_core_free(c);
}

/* submit_keyed forwards job `job` of n long tasks with the frontend's
 * key from the scheduler on peer. */
static void submit_keyed_as(fd_core *c, sk_time now, sk_peer peer, uint64_t job,
                            uint32_t n, uint64_t key, const char *user)
{
    fdt_drain(c);
    sk_task_spec ts[8];
    memset(ts, 0, sizeof ts);
    for (uint32_t i = 0; i < n; i++) {
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)"x", 2};
        ts[i].ts_ref = key != 0 ? i + 1 : 0;
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = job,
                                     .sj_key = key,
                                     .sj_user = user,
                                     .sj_framework = "",
                                     .sj_long = true,
                                     .sj_placement = SK_PLACE_FLOW,
                                     .sj_tasks = ts,
                                     .sj_ntasks = n};
    fd_core_on_msg(c, now, peer, &m);
}

static void submit_keyed(fd_core *c, sk_time now, sk_peer peer, uint64_t job,
                         uint32_t n, uint64_t key)
{
    submit_keyed_as(c, now, peer, job, n, key, "alice");
}

/* The frontend moves a job from a gone scheduler to another (a kill -9:
 * no return): the held copy is cancelled when the other hands the job
 * over, so that its waiting tasks do not keep the slots from the new
 * copy until the grace ends, and its running attempts are killed. */
static void test_taken_over(void)
{
    /* 0: another key; 1: the same key; 2: the same key, another user */
    for (int kase = 0; kase < 3; kase++) {
        int same = kase == 1;
        fd_config cfg = cfg_test();
        fd_core *c = fdt_core(&cfg, T0);
        const fd_stats *st = fd_core_stats(c);
        fdt_node(c, T0, 1, "n1", 2, NULL, 1.0);
        sched_hello(c, T0, SCHED, INC);
        submit_keyed(c, T0, SCHED, 1, 4, 77);
        fdt_drain(c);
        fdt_round(c, T0 + 200 * MS, NULL);
        tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, 1), 2,
                   "2 of the job's 4 tasks placed, 2 waiting");
        peer_down(c, T0 + 3000 * MS, SCHED);
        fdt_sched(c, T0 + 5000 * MS, SCHED + 1, SID + 1);
        /* The other scheduler hands over the same frontend job (same
         * key), or another job (another key). */
        submit_keyed_as(c, T0 + 5100 * MS, SCHED + 1, 9, 4, kase == 0 ? 78 : 77,
                        kase == 2 ? "mallory" : "alice");
        uint32_t released = fdt_count(c, SK_MSG_RELEASE, 1);
        fdt_drain(c);
        fdt_round(c, T0 + 5300 * MS, NULL);
        uint32_t placed = fdt_count(c, SK_MSG_RESERVE, 1);
        if (same) {
            tap_ok(released == 2 && st->fs_jobs == 1,
                   "the same key: the held copy is cancelled, its 2 placed "
                   "attempts released with kill");
            tap_is_int((int64_t)placed, 2,
                       "the next round places 2 tasks of the new copy, "
                       "within the grace");
        } else {
            tap_ok(released == 0 && st->fs_jobs == 2 && st->fs_sched_held == 1,
                   "%s: the gone scheduler's job stays held",
                   kase == 0 ? "another key"
                             : "the same key from another user");
        }
        fd_core_free(c);
    }
    /* Its tasks all waiting (their attempts killed as orphans, or never
     * placed): the solver routes them, the round does not place them. */
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 2, NULL, 1.0);
    sched_hello(c, T0, SCHED, INC);
    submit_keyed(c, T0, SCHED, 1, 4, 77);
    peer_down(c, T0 + 10 * MS, SCHED);
    fdt_round(c, T0 + 200 * MS, NULL);
    fdt_sched(c, T0 + 3000 * MS, SCHED + 1, SID + 1);
    submit_keyed(c, T0 + 3100 * MS, SCHED + 1, 9, 4, 77);
    fdt_drain(c);
    fdt_round(c, T0 + 3300 * MS, NULL);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, 1), 2,
               "all waiting: the new copy's first round fills the node");
    fd_core_free(c);
}

/* flowd's own stall (fd_core_stalled): its nodes' silence is forgiven,
 * and a node whose session its stall ended comes back with its tasks. */
static void test_stalled(void)
{
    sk_peer where[4];
    fd_core *c = running(4, where);
    const fd_stats *st = fd_core_stats(c);
    /* Stopped from 300 ms to 10300 ms: the driver wakes late. */
    fdt_drain(c);
    fd_core_stalled(c, T0 + 10300 * MS, 9000 * MS);
    on_timer(c, T0 + 10300 * MS);
    tap_ok(st->fs_nodes == 2 && st->fs_running == 4 && st->fs_stalls == 1,
           "after a 10 s stall no node times out, 4 tasks still run");
    peer_down(c, T0 + 10300 * MS, 1);
    peer_down(c, T0 + 10300 * MS, 2);
    tap_ok(st->fs_nodes == 2 && st->fs_nodes_detached == 2 &&
               st->fs_running == 4 && st->fs_nodes_down == 0 &&
               fdt_count(c, SK_MSG_RELEASE, UINT32_MAX) == 0,
           "their sessions end right after: kept, tasks running, no kill");
    fdt_node(c, T0 + 10400 * MS, 11, "n1", 2, NULL, 1.0);
    tap_ok(st->fs_nodes_back == 1 && fd_core_node_long(c, 11) == (int64_t)nrun1,
           "n1 registers again (same incarnation): back with its %u tasks",
           nrun1);
    fdt_heartbeat(c, T0 + 10500 * MS, 11, 9, 2, nrun1, 0, 0, run1, nrun1);
    tap_ok(st->fs_running == 4 && st->fs_unknown_kill == 0,
           "its next heartbeat lists them: nothing unknown, nothing killed");
    /* n2 never comes back: down at its timeout, counted from the stall's
     * end (its last heartbeat moved on by the stall). */
    on_timer(c, T0 + 12200 * MS);
    tap_is_int((int64_t)st->fs_nodes, 2, "n2 not yet down");
    on_timer(c, T0 + 12400 * MS);
    tap_ok(st->fs_nodes == 1 && st->fs_nodes_down == 1,
           "n2 down at its timeout after the stall");
    fd_core_free(c);

    /* Without a stall, a node's session ending downs it at once. */
    c = running(2, where);
    st = fd_core_stats(c);
    peer_down(c, T0 + 1000 * MS, 1);
    tap_ok(st->fs_nodes == 1 && st->fs_nodes_detached == 0,
           "no stall: a node whose session ends is down at once");
    fd_core_free(c);
}

/* The grace running out, or another incarnation, cancels as before. */
static void test_cancelled(void)
{
    sk_peer where[2];
    fd_core *c = running(2, where);
    peer_down(c, T0 + 1000 * MS, SCHED);
    beat(c, T0 + 3000 * MS, 2, true);
    beat(c, T0 + 5500 * MS, 3, true);
    tap_ok(fd_core_next_deadline(c) <= T0 + 6000 * MS,
           "a deadline at the grace's end at the latest");
    on_timer(c, T0 + 5999 * MS);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "not before the grace ends");
    on_timer(c, T0 + 6000 * MS);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 2,
               "at its end, its tasks are released with kill");
    const fd_stats *st = fd_core_stats(c);
    tap_ok(st->fs_sched_expired == 1 && st->fs_sched_held == 0 &&
               st->fs_jobs == 0,
           "the scheduler and its job are gone");
    sched_hello(c, T0 + 6100 * MS, SCHED, INC);
    tap_is_int((int64_t)st->fs_schedulers, 1, "it may register again, afresh");
    fd_core_free(c);

    c = running(2, where);
    st = fd_core_stats(c);
    peer_down(c, T0 + 1000 * MS, SCHED);
    sched_hello(c, T0 + 2000 * MS, SCHED + 1, INC + 1);
    tap_ok(fdt_count(c, SK_MSG_RELEASE, UINT32_MAX) == 2 &&
               st->fs_sched_expired == 1 && st->fs_jobs == 0 &&
               st->fs_schedulers == 1 && st->fs_sched_held == 0,
           "another incarnation: the held tasks are released with kill, "
           "the new one registered");
    fd_core_free(c);

    c = running(2, where);
    st = fd_core_stats(c);
    fdt_drain(c);
    fd_core_peer_left(c, T0 + 1000 * MS, SCHED);
    tap_ok(fdt_count(c, SK_MSG_RELEASE, UINT32_MAX) == 2 && st->fs_jobs == 0 &&
               st->fs_sched_held == 0,
           "a scheduler that said goodbye: released with kill at once");
    fd_core_free(c);

    fd_config cfg = cfg_test();
    cfg.fdc_sched_grace_ms = 0;
    c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, 1.0);
    sched_hello(c, T0, SCHED, INC);
    fdt_submit(c, T0, SCHED, 1, 1, true, NULL, 0);
    fdt_round(c, T0 + 200 * MS, NULL);
    peer_down(c, T0 + 300 * MS, SCHED);
    tap_ok(fdt_count(c, SK_MSG_RELEASE, 1) == 1 &&
               fd_core_stats(c)->fs_jobs == 0,
           "grace 0: released at once");
    fd_core_free(c);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    sk_log_set_level(SK_LOG_ERROR);
    test_return();
    test_kept();
    test_not_reforwarded();
    test_waiting();
    test_taken_over();
    test_stalled();
    test_cancelled();
    tap_done();
    return tap_exit_status();
}
