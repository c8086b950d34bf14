/*
 * test_fd_reclaim.c - a node the flow node core wrote off (silent past
 * node_timeout_ms: a partition) comes back with its long tasks still
 * running (fd_reclaim.c), driven with messages and times: a task still
 * waiting is taken back with its old attempt, not killed, and the node
 * gets no work before its first heartbeat; a task placed again
 * meanwhile (reserved, or running) keeps its new attempt and the
 * returning one is killed; a restarted node monitor (another
 * incarnation) is not a return. And the outcome the scheduler passes on
 * ends whatever attempt the core holds (fd_on_finished), and a job's key
 * and refs reach the node monitor in RESERVE.
 */
#include "fd_core.h"
#include "fd_testutil.h"
#include "skylark.h"
#include "tap.h"

#include <string.h>

#define T0    1000000000000ull
#define MS    FDT_MS
#define SCHED 100
#define KEY   0x5eedf00dull

static fd_config cfg_test(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    cfg.fdc_settle_ms = 0;
    return cfg;
}

/* node_hello registers node monitor `name` of incarnation inc, 2 slots,
 * all long, on peer. */
static void node_hello(fd_core *c, sk_time now, sk_peer peer, const char *name,
                       uint64_t inc)
{
    fdt_drain(c);
    const char *labels[1] = {"long_share=1"};
    const char *addr = "tcp://127.0.0.1:1";
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_NODEMON,
                           .he_id = peer,
                           .he_incarnation = inc,
                           .he_name = name,
                           .he_addrs = &addr,
                           .he_naddrs = 1,
                           .he_slots = 2,
                           .he_res = {2000, 2048},
                           .he_labels = labels,
                           .he_nlabels = 1,
                           .he_framework = "",
                           .he_rack = ""};
    fd_core_on_msg(c, now, peer, &m);
}

/* submit_keyed forwards long job `job` of n tasks under key KEY with
 * refs 10, 20, ... */
static void submit_keyed(fd_core *c, sk_time now, uint64_t job, uint32_t n)
{
    fdt_drain(c);
    sk_task_spec ts[8];
    memset(ts, 0, sizeof ts);
    for (uint32_t i = 0; i < n; i++) {
        ts[i].ts_spec = (sk_bytes){(const uint8_t *)"x", 2};
        ts[i].ts_ref = 10 * (i + 1);
    }
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = job,
                                     .sj_user = "alice",
                                     .sj_framework = "",
                                     .sj_long = true,
                                     .sj_placement = SK_PLACE_FLOW,
                                     .sj_tasks = ts,
                                     .sj_ntasks = n,
                                     .sj_key = KEY};
    fd_core_on_msg(c, now, SCHED, &m);
}

static void finished(fd_core *c, sk_time now, uint64_t job, uint32_t task,
                     uint32_t attempt)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished = (sk_task_finished){.tf_job = job,
                                           .tf_task = task,
                                           .tf_attempt = attempt,
                                           .tf_node = "",
                                           .tf_status = SK_TASK_OK};
    fd_core_on_msg(c, now, SCHED, &m);
}

/* The world of one test: nodes n1 (peer 1) and n2 (peer 2), job 1 of
 * ntasks keyed tasks placed, acknowledged and seen running; where[i]
 * the peer of task i, run1/run2 what each node runs. */
typedef struct world {
    fd_core *c;
    sk_peer where[4];
    fdt_run run[3][4]; /* by peer 1, 2 */
    uint32_t nrun[3];
    sk_reserve rv[4];
    uint32_t nrv;
} world;

static void take_reserves(world *w, sk_peer *to)
{
    const sk_msg *m;
    w->nrv = 0;
    while (w->nrv < 4 &&
           (m = fdt_nth(w->c, SK_MSG_RESERVE, w->nrv, &to[w->nrv])) != NULL) {
        w->rv[w->nrv] = m->m_reserve;
        w->rv[w->nrv].rv_spec.b_data = NULL;
        w->rv[w->nrv].rv_user = NULL;
        w->rv[w->nrv].rv_framework = NULL;
        w->nrv++;
    }
}

/* beat_as sends peer's heartbeat seq listing what node n1 (k 1) or n2
 * (k 2) runs; beat, for peers 1 and 2 themselves. */
static void beat_as(world *w, sk_time now, sk_peer peer, uint64_t seq,
                    uint32_t k)
{
    fdt_heartbeat(w->c, now, peer, seq, 2, w->nrun[k], 0, 0, w->run[k],
                  w->nrun[k]);
}

static void beat(world *w, sk_time now, sk_peer peer, uint64_t seq)
{
    beat_as(w, now, peer, seq, peer == 1 ? 1 : 2);
}

static void setup(world *w, uint32_t ntasks)
{
    memset(w, 0, sizeof *w);
    fd_config cfg = cfg_test();
    w->c = fdt_core(&cfg, T0);
    node_hello(w->c, T0, 1, "n1", 1);
    node_hello(w->c, T0, 2, "n2", 1);
    fdt_sched(w->c, T0, SCHED, 7);
    submit_keyed(w->c, T0, 1, ntasks);
    fdt_drain(w->c);
    fdt_round(w->c, T0 + 200 * MS, NULL);
    sk_peer to[4];
    take_reserves(w, to);
    if (w->nrv != ntasks)
        tap_bail_out("%u of %u tasks placed", w->nrv, ntasks);
    fdt_drain(w->c);
    for (uint32_t i = 0; i < w->nrv; i++) {
        fdt_answer(w->c, T0 + 210 * MS, to[i], &w->rv[i], true);
        w->where[w->rv[i].rv_task] = to[i];
        uint32_t k = to[i] == 1 ? 1 : 2;
        w->run[k][w->nrun[k]++] = (fdt_run){1, w->rv[i].rv_task, 0};
    }
    beat(w, T0 + 300 * MS, 1, 1);
    beat(w, T0 + 300 * MS, 2, 1);
    if (fd_core_stats(w->c)->fs_running != ntasks)
        tap_bail_out("not all running");
}

/* n2 goes silent after T0 + 300 ms; n1 beats on; at 3.4 s n2 is down. */
static void lose_n2(world *w)
{
    beat(w, T0 + 2900 * MS, 1, 2);
    fdt_drain(w->c);
    fd_core_on_timer(w->c, T0 + 3400 * MS);
}

static void test_key_in_reserve(void)
{
    world w;
    setup(&w, 2);
    bool ok = true;
    for (uint32_t i = 0; i < w.nrv; i++)
        ok = ok && w.rv[i].rv_key == KEY &&
             w.rv[i].rv_ref == 10 * (w.rv[i].rv_task + 1);
    tap_ok(ok, "RESERVE carries the job's key and each task's ref");
    fd_core_free(w.c);
}

/* The cluster is full: n2's tasks wait, and come back with n2. */
static void test_taken_back(void)
{
    world w;
    setup(&w, 4);
    const fd_stats *st = fd_core_stats(w.c);
    lose_n2(&w);
    tap_ok(st->fs_nodes == 1 && st->fs_replanned == 2 && st->fs_waiting == 2,
           "n2 written off: its 2 tasks wait (no room on n1)");
    uint32_t t2 = w.run[2][0].task;
    fd_task_state s = 0;
    uint32_t att = 0;
    tap_ok(fd_core_task(w.c, SCHED, 1, t2, &s, &att, NULL) == 0 &&
               s == FD_TASK_WAITING && att == 1,
           "a lost task waits with its next attempt");

    /* n2 (the same process) registers again on another session. */
    node_hello(w.c, T0 + 5000 * MS, 12, "n2", 1);
    fdt_drain(w.c);
    fdt_round(w.c, T0 + 5200 * MS, NULL);
    tap_is_int((int64_t)fdt_count(w.c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "no work for the returning node before its heartbeat");
    fdt_drain(w.c);
    beat_as(&w, T0 + 5300 * MS, 12, 1, 2);
    tap_is_int((int64_t)fdt_count(w.c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "its running tasks are not killed");
    sk_peer node = 0;
    tap_ok(fd_core_task(w.c, SCHED, 1, t2, &s, &att, &node) == 0 &&
               s == FD_TASK_RUNNING && att == 0 && node == 12,
           "a task is taken back: running on n2, attempt 0 again");
    tap_ok(st->fs_reclaimed == 2 && st->fs_running == 4 &&
               st->fs_waiting == 0 && fd_core_node_long(w.c, 12) == 2,
           "both taken back, nothing waits");
    tap_is_int((int64_t)fdt_count(w.c, SK_MSG_TASK_FINISHED, UINT32_MAX), 0,
               "the scheduler is told nothing");
    fdt_round(w.c, T0 + 5500 * MS, NULL);
    tap_is_int((int64_t)fdt_count(w.c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "and nothing is placed again");

    /* The attempt ends there: its outcome is the scheduler's, as for
     * any task. */
    finished(w.c, T0 + 6000 * MS, 1, t2, 0);
    tap_ok(fd_core_task(w.c, SCHED, 1, t2, NULL, NULL, NULL) != 0 &&
               st->fs_done_elsewhere == 0 &&
               fdt_count(w.c, SK_MSG_RELEASE, UINT32_MAX) == 0,
           "its end (attempt 0) ends it; nothing released");
    fd_core_free(w.c);
}

/* n1 has room: n2's tasks are placed again there; the returning
 * attempts are killed, placed (reserved) or running. */
static void test_placed_again(bool started)
{
    world w;
    setup(&w, 2);
    const fd_stats *st = fd_core_stats(w.c);
    /* Both tasks on one node or one each: lose a node that has one. */
    sk_peer lost = w.nrun[2] > 0 ? 2 : 1, kept = lost == 2 ? 1 : 2;
    uint32_t k = lost == 2 ? 2 : 1, nlost = w.nrun[k];
    if (lost == 2) {
        lose_n2(&w);
    } else {
        beat(&w, T0 + 2900 * MS, 2, 2);
        fdt_drain(w.c);
        fd_core_on_timer(w.c, T0 + 3400 * MS);
    }
    fdt_drain(w.c);
    fdt_round(w.c, T0 + 3600 * MS, NULL);
    sk_peer to[4];
    take_reserves(&w, to);
    tap_ok(w.nrv == nlost && to[0] == kept && w.rv[0].rv_attempt == 1,
           "%s: the lost node's %u tasks placed again with attempt 1",
           started ? "running" : "reserved", nlost);
    fdt_drain(w.c);
    uint32_t kk = kept == 1 ? 1 : 2;
    for (uint32_t i = 0; i < w.nrv; i++) {
        fdt_answer(w.c, T0 + 3700 * MS, kept, &w.rv[i], true);
        if (started)
            w.run[kk][w.nrun[kk]++] = (fdt_run){1, w.rv[i].rv_task, 1};
    }
    if (started)
        beat(&w, T0 + 3800 * MS, kept, 3);
    node_hello(w.c, T0 + 5000 * MS, 12, lost == 2 ? "n2" : "n1", 1);
    fdt_drain(w.c);
    beat_as(&w, T0 + 5100 * MS, 12, 1, k);
    const sk_msg *m = fdt_nth(w.c, SK_MSG_RELEASE, 0, NULL);
    sk_peer rto = 0;
    fdt_nth(w.c, SK_MSG_RELEASE, 0, &rto);
    tap_ok(fdt_count(w.c, SK_MSG_RELEASE, UINT32_MAX) == nlost && m != NULL &&
               rto == 12 && m->m_release.rl_kill && m->m_release.rl_resv == 0,
           "%s: the returning attempts are released with kill, by task",
           started ? "running" : "reserved");
    fd_task_state s = 0;
    uint32_t att = 0;
    sk_peer node = 0;
    tap_ok(fd_core_task(w.c, SCHED, 1, w.rv[0].rv_task, &s, &att, &node) == 0 &&
               att == 1 && node == kept &&
               s == (started ? FD_TASK_RUNNING : FD_TASK_PLACED) &&
               st->fs_reclaim_killed == nlost && st->fs_reclaimed == 0,
           "%s: the new attempt stands", started ? "running" : "reserved");
    fd_core_free(w.c);
}

/* A restarted node monitor (another incarnation) is no return: its
 * record takes work at once. */
static void test_restarted(void)
{
    world w;
    setup(&w, 4);
    const fd_stats *st = fd_core_stats(w.c);
    lose_n2(&w);
    node_hello(w.c, T0 + 5000 * MS, 12, "n2", 2);
    fdt_drain(w.c);
    fdt_round(w.c, T0 + 5200 * MS, NULL);
    tap_is_int((int64_t)fdt_count(w.c, SK_MSG_RESERVE, 12), 2,
               "another incarnation gets the waiting tasks at once");
    tap_is_int((int64_t)st->fs_reclaimed, 0, "nothing taken back");
    fd_core_free(w.c);
}

/* The scheduler's outcome ends the task whatever attempt is held. */
static void test_done_elsewhere(void)
{
    world w;
    setup(&w, 4);
    const fd_stats *st = fd_core_stats(w.c);
    lose_n2(&w);
    uint32_t t2 = w.run[2][0].task;
    /* The old attempt's outcome reached the scheduler from n2 (its
     * session with the scheduler lived on): the waiting retry ends. */
    finished(w.c, T0 + 3500 * MS, 1, t2, 0);
    tap_ok(fd_core_task(w.c, SCHED, 1, t2, NULL, NULL, NULL) != 0 &&
               st->fs_done_elsewhere == 1 && st->fs_waiting == 1,
           "a waiting retry ends with the scheduler's outcome");
    /* The other one is placed again when n1 frees a slot, then the
     * outcome of its old attempt arrives: the new one is released. */
    uint32_t t1 = w.run[1][0].task, t3 = w.run[2][1].task;
    w.nrun[1] = 0;
    w.run[1][w.nrun[1]++] = (fdt_run){1, w.run[1][1].task, 0};
    beat(&w, T0 + 3600 * MS, 1, 3); /* t1 ended */
    finished(w.c, T0 + 3600 * MS, 1, t1, 0);
    fdt_drain(w.c);
    fdt_round(w.c, T0 + 3800 * MS, NULL);
    sk_peer to[4];
    take_reserves(&w, to);
    tap_ok(w.nrv == 1 && w.rv[0].rv_task == t3 && w.rv[0].rv_attempt == 1,
           "the other retry is placed on n1");
    finished(w.c, T0 + 3900 * MS, 1, t3, 0);
    sk_peer rto = 0;
    const sk_msg *m = fdt_nth(w.c, SK_MSG_RELEASE, 0, &rto);
    tap_ok(m != NULL && rto == 1 && m->m_release.rl_kill &&
               m->m_release.rl_resv == w.rv[0].rv_resv &&
               st->fs_done_elsewhere == 2 &&
               fd_core_task(w.c, SCHED, 1, t3, NULL, NULL, NULL) != 0,
           "the old attempt's outcome releases the new one and ends it");
    finished(w.c, T0 + 4000 * MS, 1, t3, 1);
    tap_is_int((int64_t)st->fs_done_elsewhere, 2, "a second end is stale");
    fd_core_free(w.c);
}

int main(void)
{
    tap_plan(22);
    test_key_in_reserve();
    test_taken_back();
    test_placed_again(false);
    test_placed_again(true);
    test_restarted();
    test_done_elsewhere();
    tap_done();
    return tap_exit_status();
}
