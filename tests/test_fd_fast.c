/*
 * test_fd_fast.c - the flow node core's fallback fast path
 * (fdc_fast_fallback, fd_fast.c), driven with messages and times:
 * fallback short work RESERVEd at once, without a round, on a node with
 * room under its long cap and a free slot by its heartbeat; never on a
 * full node, a node at its cap or during the settle window; a node
 * tried again when its heartbeat or a TASK_FINISHED frees room; no task
 * placed twice when a round is out meanwhile; off, the rounds place it.
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

static void on_msg(fd_core *c, sk_time now, sk_peer from, const sk_msg *m)
{
    fdt_drain(c);
    fd_core_on_msg(c, now, from, m);
}

/* A core with two nodes of 4 slots (long cap 3), heartbeats (seq 1)
 * saying used[0] and used[1] slots busy, a scheduler, at T0 + 1 s (the
 * settle window over). */
static fd_core *setup(bool fast, uint32_t used0, uint32_t used1)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    cfg.fdc_fast_fallback = fast;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_node(c, T0, 2, "n2", 4, NULL, -1);
    fdt_sched(c, T0, SCHED, SID);
    fdt_heartbeat(c, T0 + 1000 * MS, 1, 1, 4, used0, 0, 0, NULL, 0);
    fdt_heartbeat(c, T0 + 1000 * MS, 2, 1, 4, used1, 0, 0, NULL, 0);
    fdt_drain(c);
    return c;
}

static size_t reserves_to(fd_core *c, sk_peer peer)
{
    return fdt_count(c, SK_MSG_RESERVE, peer);
}

static fd_task_state task_state(fd_core *c, uint64_t job, uint32_t task)
{
    fd_task_state st = 0;
    if (fd_core_task(c, SCHED, job, task, &st, NULL, NULL) != 0)
        return 0;
    return st;
}

/* On: a fallback job's tasks go at once to the free slots, first fit;
 * what does not fit waits; off: nothing until a round. */
static void test_at_once(bool fast)
{
    fd_core *c = setup(fast, 2, 4); /* n1: 2 free, n2: full */
    fdt_submit(c, T0 + 1100 * MS, SCHED, 1, 3, false, NULL, 0);
    if (fast) {
        tap_is_int((int64_t)reserves_to(c, 1), 2,
                   "on: two tasks RESERVEd on n1's two free slots at once");
        tap_is_int((int64_t)reserves_to(c, 2), 0, "none on the full n2");
        tap_is_int((int64_t)fd_core_stats(c)->fs_fast_placed, 2, "counted");
        tap_is_int(task_state(c, 1, 0), FD_TASK_RESERVED, "task 0 reserved");
        tap_is_int(task_state(c, 1, 2), FD_TASK_WAITING, "task 2 waits");
    } else {
        tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
                   "off: no RESERVE without a round");
        tap_is_int((int64_t)fd_core_stats(c)->fs_fast_placed, 0,
                   "off: nothing counted");
        tap_is_int(fdt_round(c, T0 + 1200 * MS, NULL), 0, "off: a round");
        tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 3,
                   "off: the round places all three");
    }
    fdt_drain(c);
    fd_core_free(c);
}

/* A heartbeat that frees a slot has the node take the oldest waiting
 * fallback task; a node at its long cap takes none whatever its free
 * slots say. */
static void test_heartbeat_and_cap(void)
{
    fd_core *c = setup(true, 4, 4);
    fdt_submit(c, T0 + 1100 * MS, SCHED, 1, 1, false, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "every slot busy: the task waits");
    fdt_heartbeat(c, T0 + 2000 * MS, 2, 2, 4, 3, 0, 0, NULL, 0);
    tap_is_int((int64_t)reserves_to(c, 2), 1,
               "n2's heartbeat shows a free slot: RESERVEd there at once");
    fdt_drain(c);
    /* fill n1's long cap (3) with long tasks, leave a slot free */
    fdt_submit(c, T0 + 2100 * MS, SCHED, 2, 3, true, NULL, 0);
    fdt_heartbeat(c, T0 + 2100 * MS, 2, 3, 4, 4, 0, 0, NULL, 0);
    tap_is_int(fdt_round(c, T0 + 2300 * MS, NULL), 0, "a round");
    tap_is_int((int64_t)reserves_to(c, 1), 3, "the long tasks on n1");
    fdt_drain(c);
    fdt_submit(c, T0 + 2400 * MS, SCHED, 3, 1, false, NULL, 0);
    fdt_heartbeat(c, T0 + 3000 * MS, 1, 2, 4, 0, 3, 0, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "n1 at its long cap takes no fallback task, free slots or not");
    tap_is_int(task_state(c, 3, 0), FD_TASK_WAITING, "it waits");
    fdt_drain(c);
    fd_core_free(c);
}

/* A TASK_FINISHED of a long task frees room under the cap of the node it
 * names, which takes a waiting fallback task at once. */
static void test_finished(void)
{
    fd_core *c = setup(true, 0, 4);
    fdt_submit(c, T0 + 1100 * MS, SCHED, 1, 3, true, NULL, 0);
    fdt_round(c, T0 + 1300 * MS, NULL);
    sk_reserve rv[3];
    for (size_t i = 0; i < 3; i++) {
        const sk_msg *m = fdt_nth(c, SK_MSG_RESERVE, i, NULL);
        rv[i] = m != NULL ? m->m_reserve : (sk_reserve){0};
    }
    tap_is_int((int64_t)reserves_to(c, 1), 3, "three long tasks on n1");
    fdt_drain(c);
    fdt_run run[3] = {{1, 0, 0}, {1, 1, 0}, {1, 2, 0}};
    fdt_heartbeat(c, T0 + 2000 * MS, 1, 2, 4, 4, 0, 0, run, 3);
    fdt_submit(c, T0 + 2100 * MS, SCHED, 2, 1, false, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "n1 at its cap, n2 full: the fallback task waits");
    sk_msg f = {.m_type = SK_MSG_TASK_FINISHED};
    f.m_task_finished = (sk_task_finished){.tf_job = 1,
                                           .tf_task = rv[0].rv_task,
                                           .tf_attempt = 0,
                                           .tf_node = "n1",
                                           .tf_status = SK_TASK_OK};
    /* the heartbeat said 4 used; the long task's end frees one */
    fdt_heartbeat(c, T0 + 2500 * MS, 1, 3, 4, 3, 0, 0, run, 3);
    on_msg(c, T0 + 2600 * MS, SCHED, &f);
    sk_peer to = 0;
    const sk_msg *m = fdt_nth(c, SK_MSG_RESERVE, 0, &to);
    tap_ok(m != NULL && m->m_reserve.rv_job == 2 && to == 1,
           "the TASK_FINISHED's node takes the fallback task at once");
    fdt_drain(c);
    fd_core_free(c);
}

/* A fallback task RESERVEd while a round is out is not RESERVEd again by
 * the round's end. */
static void test_round_out(void)
{
    fd_core *c = setup(true, 4, 4);
    fdt_submit(c, T0 + 1100 * MS, SCHED, 1, 1, false, NULL, 0);
    fd_round *r = NULL;
    fdt_drain(c);
    tap_is_int(fd_round_begin(c, T0 + 1200 * MS, &r), 0, "a round begins");
    fc_solve_stats st;
    int rc = fdt_solve(r, &st);
    fdt_heartbeat(c, T0 + 1300 * MS, 1, 2, 4, 3, 0, 0, NULL, 0);
    tap_is_int((int64_t)reserves_to(c, 1), 1,
               "placed by the fast path while the round is out");
    fdt_drain(c);
    tap_is_int(fd_round_end(c, T0 + 1400 * MS, r, rc, &st), 0, "it ends");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "the round's end does not RESERVE it again");
    tap_is_int(task_state(c, 1, 0), FD_TASK_RESERVED, "reserved once");
    fdt_drain(c);
    fd_core_free(c);
}

/* Nothing is placed in the settle window, nor without a heartbeat. */
static void test_settle(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    cfg.fdc_fast_fallback = true;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0 + 100 * MS, SCHED, 1, 1, false, NULL, 0);
    fdt_heartbeat(c, T0 + 500 * MS, 1, 1, 4, 0, 0, 0, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "settle window: nothing placed");
    fdt_heartbeat(c, T0 + 1500 * MS, 1, 2, 4, 0, 0, 0, NULL, 0);
    tap_is_int((int64_t)reserves_to(c, 1), 1, "after it: placed");
    fdt_drain(c);
    fd_core_free(c);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    sk_log_set_level(SK_LOG_ERROR);
    test_at_once(true);
    test_at_once(false);
    test_heartbeat_and_cap();
    test_finished();
    test_round_out();
    test_settle();
    tap_done();
    return tap_exit_status();
}
