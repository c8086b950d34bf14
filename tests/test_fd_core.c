/*
 * test_fd_core.c - the flow node core driven directly with messages and
 * times, rounds solved on this thread: registration and the directory,
 * the settle window, RESERVEs to the right nodes and never beyond a
 * node's long share, ACK and REJECT, task ends learned from heartbeats
 * and from schedulers, node timeouts and attempts, cancellation, lost
 * RESERVEs, events during a solve, restart recovery (adoption, unknown
 * tasks released), bad input and status.
 */
#include "fd_core.h"
#include "fd_testutil.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define T0    1000000000000ull
#define MS    FDT_MS
#define SCHED 100
#define SID   7

/* Calls into the core drain the outbox first, as a driver must. */
static void on_msg(fd_core *c, sk_time now, sk_peer from, const sk_msg *m)
{
    fdt_drain(c);
    fd_core_on_msg(c, now, from, m);
}

static void on_timer(fd_core *c, sk_time now)
{
    fdt_drain(c);
    fd_core_on_timer(c, now);
}

static fd_config cfg_test(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    return cfg;
}

/* The RESERVEs in the outbox, copied (the outbox is drained after). */
typedef struct resv {
    sk_peer to;
    sk_reserve rv;
} resv;

static size_t take_reserves(fd_core *c, resv *out, size_t max)
{
    size_t n = 0;
    sk_peer to;
    const sk_msg *m;
    while (n < max && (m = fdt_nth(c, SK_MSG_RESERVE, n, &to)) != NULL) {
        out[n].to = to;
        out[n].rv = m->m_reserve;
        out[n].rv.rv_spec.b_data = NULL; /* not kept */
        n++;
    }
    return n;
}

static fd_task_state task_state(fd_core *c, uint64_t job, uint32_t task,
                                uint32_t *attempt)
{
    fd_task_state st = 0;
    if (fd_core_task(c, SCHED, job, task, &st, attempt, NULL) != 0)
        return 0;
    return st;
}

static void test_config(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    char err[200] = "";
    tap_is_int(fd_config_check(&cfg, err, sizeof err), 0, "defaults valid");
    cfg.fdc_q_unsched_cost = 50;
    tap_is_int(fd_config_check(&cfg, err, sizeof err), SK_ECONFIG,
               "unscheduled cheaper than a placement refused");
    tap_ok(strstr(err, "q_unsched_cost") != NULL, "message names it: %s", err);
    fd_config_init(&cfg);
    cfg.fdc_round_ms = 0;
    tap_is_int(fd_config_check(&cfg, err, sizeof err), SK_ECONFIG,
               "round_ms 0 refused");
    fd_core *c;
    fd_config_init(&cfg);
    tap_is_int(fd_core_new(&cfg, 0, T0, &c, err, sizeof err), SK_ECONFIG,
               "epoch 0 refused");
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "nope");
    tap_is_int(fd_core_new(&cfg, 1, T0, &c, err, sizeof err), SK_ECONFIG,
               "unknown policy refused");
}

/* Registration, the directory, settle window, placement within caps,
 * ACK and REJECT, ends learned from heartbeats and from the scheduler. */
static void test_basic(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1);
    fdt_node(c, T0, 2, "n2", 4, "r2", -1);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_MEMBERSHIP, UINT32_MAX), 0,
               "no MEMBERSHIP without schedulers");
    fdt_drain(c);
    fdt_sched(c, T0, SCHED, SID);
    const sk_msg *m = fdt_nth(c, SK_MSG_MEMBERSHIP, 0, NULL);
    tap_ok(m != NULL && m->m_membership.mb_full &&
               m->m_membership.mb_nnodes == 2 &&
               m->m_membership.mb_nodes[0].me_state == SK_NODE_UP &&
               m->m_membership.mb_nodes[1].me_state == SK_NODE_UP,
           "a scheduler's HELLO gets the whole directory, both nodes up");
    fdt_drain(c);

    fdt_submit(c, T0 + 10 * MS, SCHED, 1, 8, true, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED), 1,
               "job accepted");
    fdt_drain(c);
    tap_is_int(fdt_round(c, T0 + 500 * MS, NULL), SK_EAGAIN,
               "no round in the settle window");
    tap_is_int((int64_t)fd_core_next_deadline(c), (int64_t)(T0 + 1000 * MS),
               "next deadline: the end of the settle window");
    /* heartbeats keep the nodes alive */
    fdt_heartbeat(c, T0 + 900 * MS, 1, 1, 4, 0, 0, 0, NULL, 0);
    fdt_heartbeat(c, T0 + 900 * MS, 2, 1, 4, 0, 0, 0, NULL, 0);
    int src = -99;
    tap_is_int(fdt_round(c, T0 + 1000 * MS, &src), 0, "round after settle");
    tap_is_int(src, 0, "solved");
    resv r[16];
    size_t n = take_reserves(c, r, 16);
    tap_is_int((int64_t)n, 6,
               "6 RESERVEs: long_share 0.75 of 4 slots is 3 "
               "per node");
    size_t on1 = 0, on2 = 0;
    bool fields = true;
    for (size_t i = 0; i < n; i++) {
        on1 += r[i].to == 1;
        on2 += r[i].to == 2;
        fields = fields && r[i].rv.rv_sched == SID && r[i].rv.rv_job == 1 &&
                 r[i].rv.rv_attempt == 0 && r[i].rv.rv_priority == 2 &&
                 strcmp(r[i].rv.rv_user, "alice") == 0 &&
                 r[i].rv.rv_res.r_cpu_milli == 500;
    }
    const sk_msg *first = fdt_nth(c, SK_MSG_RESERVE, 0, NULL);
    char want[48];
    snprintf(want, sizeof want, "task-1-%u", first->m_reserve.rv_task);
    tap_ok(first->m_reserve.rv_spec.b_len == strlen(want) + 1 &&
               memcmp(first->m_reserve.rv_spec.b_data, want,
                      strlen(want) + 1) == 0,
           "RESERVE carries the task's spec");
    tap_ok(on1 == 3 && on2 == 3, "3 to each node (%zu, %zu)", on1, on2);
    tap_ok(fields, "RESERVE fields: scheduler id, job, attempt, user, "
                   "priority, resources");
    tap_is_int(fd_core_node_long(c, 1), 3, "n1 holds 3 long tasks");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 2, "2 tasks wait");
    m = fdt_nth(c, SK_MSG_MEMBERSHIP, 0, NULL);
    tap_ok(m != NULL && !m->m_membership.mb_full &&
               m->m_membership.mb_nnodes == 2 &&
               m->m_membership.mb_nodes[0].me_state == SK_NODE_SATURATED,
           "both nodes announced saturated");
    tap_is_int(fdt_drain(c), 0, "every message encodes");

    /* ACK all but one of n2's, which is rejected. */
    uint32_t rejected = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        bool ack = !(r[i].to == 2 && rejected == UINT32_MAX);
        if (!ack)
            rejected = r[i].rv.rv_task;
        fdt_answer(c, T0 + 1010 * MS, r[i].to, &r[i].rv, ack);
    }
    tap_is_int(task_state(c, 1, rejected, NULL), FD_TASK_WAITING,
               "rejected task waits again");
    tap_is_int((int64_t)fd_core_stats(c)->fs_placed, 5, "5 acknowledged");
    fdt_drain(c);
    tap_is_int(fdt_round(c, T0 + 1050 * MS, NULL), SK_EAGAIN,
               "round_ms not passed since the change");
    tap_is_int(fdt_round(c, T0 + 1110 * MS, NULL), 0, "round after round_ms");
    n = take_reserves(c, r, 16);
    tap_ok(n == 1 && r[0].to == 2, "one RESERVE, to n2's freed room");
    tap_is_int(fd_core_node_long(c, 2), 3, "n2 back at its cap");
    fdt_answer(c, T0 + 1120 * MS, 2, &r[0].rv, true);
    fdt_drain(c);

    /* n1 reports its three running, then one gone. */
    fdt_run run[3];
    size_t k = 0;
    for (uint32_t t = 0; t < 8 && k < 3; t++) {
        sk_peer node;
        fd_task_state st;
        if (fd_core_task(c, SCHED, 1, t, &st, NULL, &node) == 0 &&
            st != FD_TASK_WAITING && node == 1)
            run[k++] = (fdt_run){1, t, 0};
    }
    tap_is_int((int64_t)k, 3, "three tasks on n1");
    fdt_heartbeat(c, T0 + 1900 * MS, 1, 2, 4, 3, 3, 0, run, 3);
    tap_is_int(task_state(c, 1, run[0].task, NULL), FD_TASK_RUNNING,
               "heartbeat: running");
    tap_is_int(fdt_round(c, T0 + 2000 * MS, NULL), 0,
               "a load change makes a round");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "nothing to place");
    fdt_heartbeat(c, T0 + 2050 * MS, 1, 3, 4, 3, 3, 0, run, 3);
    tap_is_int(fdt_round(c, T0 + 2200 * MS, NULL), SK_EAGAIN,
               "a heartbeat that changes nothing is no event");
    fdt_heartbeat(c, T0 + 2900 * MS, 1, 4, 4, 2, 2, 0, run + 1, 2);
    tap_is_int(task_state(c, 1, run[0].task, NULL), 0,
               "heartbeat without it: ended");
    tap_is_int(fd_core_node_long(c, 1), 2, "n1 has room again");
    fdt_heartbeat(c, T0 + 2900 * MS, 2, 2, 4, 0, 3, 0, NULL, 0);
    tap_is_int(fdt_round(c, T0 + 3000 * MS, NULL), 0, "round");
    n = take_reserves(c, r, 16);
    tap_ok(n == 1 && r[0].to == 1, "a waiting task goes to n1's room");
    fdt_answer(c, T0 + 3010 * MS, 1, &r[0].rv, true);
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 1,
               "one waits (8 tasks, 6 slots, 1 ended)");

    /* The scheduler passes on an outcome of an acknowledged task. */
    sk_msg f = {.m_type = SK_MSG_TASK_FINISHED};
    f.m_task_finished = (sk_task_finished){.tf_job = 1,
                                           .tf_task = r[0].rv.rv_task,
                                           .tf_attempt = 1,
                                           .tf_node = "n1",
                                           .tf_status = SK_TASK_OK};
    on_msg(c, T0 + 3100 * MS, SCHED, &f);
    tap_ok(task_state(c, 1, r[0].rv.rv_task, NULL) == 0 &&
               fdt_count(c, SK_MSG_RELEASE, 1) == 1 &&
               fd_core_stats(c)->fs_done_elsewhere == 1,
           "TASK_FINISHED of another attempt ends it, the one held released");
    f.m_task_finished.tf_attempt = 0;
    on_msg(c, T0 + 3100 * MS, SCHED, &f);
    tap_is_int((int64_t)fd_core_stats(c)->fs_stale, 1,
               "a second TASK_FINISHED is stale");

    /* n2's tasks were acknowledged, never seen running; the node now
     * says one reservation is pending: the two oldest ran already. */
    fdt_heartbeat(c, T0 + 3900 * MS, 2, 3, 4, 0, 1, 0, NULL, 0);
    tap_is_int(fd_core_node_long(c, 2), 1,
               "acknowledged tasks beyond the node's pending count ended");
    tap_is_int(fdt_encode_failures(), 0, "no message failed to encode");
    fdt_drain(c);
    fd_core_free(c);
}

/* A node times out: its tasks are re-planned with their next attempt;
 * when none is left the scheduler hears LOST. */
static void test_timeout(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_max_attempts = 2;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 2, NULL, 1.0); /* cap 2 */
    fdt_node(c, T0, 2, "n2", 1, NULL, 1.0); /* cap 1 */
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 4, 3, true, NULL, 0);
    fdt_drain(c);
    fdt_round(c, T0 + 1000 * MS, NULL);
    resv r[8];
    size_t n = take_reserves(c, r, 8);
    tap_is_int((int64_t)n, 3, "three placed");
    uint32_t on2 = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        fdt_answer(c, T0 + 1001 * MS, r[i].to, &r[i].rv, true);
        if (r[i].to == 2)
            on2 = r[i].rv.rv_task;
    }
    tap_ok(on2 != UINT32_MAX && fd_core_node_long(c, 1) == 2,
           "two on n1, one on n2");
    fdt_drain(c);
    /* Only n1 keeps sending heartbeats (its two tasks pending). */
    fdt_heartbeat(c, T0 + 2500 * MS, 1, 1, 2, 0, 2, 0, NULL, 0);
    tap_is_int((int64_t)fd_core_next_deadline(c), (int64_t)(T0 + 3000 * MS),
               "deadline: n2's timeout");
    on_timer(c, T0 + 2999 * MS);
    tap_is_int(fd_core_node_long(c, 2), 1, "not yet timed out");
    on_timer(c, T0 + 3000 * MS);
    tap_is_int(fd_core_node_long(c, 2), -1, "n2 down at node_timeout_ms");
    const sk_msg *m = fdt_nth(c, SK_MSG_MEMBERSHIP, 0, NULL);
    tap_ok(m != NULL && m->m_membership.mb_nnodes == 1 &&
               m->m_membership.mb_nodes[0].me_state == SK_NODE_DOWN,
           "n2 announced down");
    uint32_t attempt = 0;
    tap_is_int(task_state(c, 4, on2, &attempt), FD_TASK_WAITING,
               "its task waits");
    tap_is_int(attempt, 1, "with attempt 1");
    tap_is_int((int64_t)fd_core_stats(c)->fs_replanned, 1, "re-planned");
    fdt_drain(c);
    fdt_round(c, T0 + 3100 * MS, NULL);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "n1 is full: nothing placed");
    /* One of n1's tasks ran and ended between heartbeats. */
    fdt_heartbeat(c, T0 + 3500 * MS, 1, 2, 2, 0, 1, 0, NULL, 0);
    tap_is_int(fd_core_node_long(c, 1), 1, "n1 has room");
    fdt_round(c, T0 + 3600 * MS, NULL);
    n = take_reserves(c, r, 8);
    tap_ok(n == 1 && r[0].to == 1 && r[0].rv.rv_task == on2 &&
               r[0].rv.rv_attempt == 1,
           "re-planned onto n1 with its next attempt");
    fdt_answer(c, T0 + 3601 * MS, 1, &r[0].rv, true);
    fdt_drain(c);
    on_timer(c, T0 + 6500 * MS);
    size_t lost = 0, n_tf = 0;
    const sk_msg *tf;
    for (size_t i = 0; (tf = fdt_nth(c, SK_MSG_TASK_FINISHED, i, NULL)); i++) {
        n_tf++;
        lost += tf->m_task_finished.tf_status == SK_TASK_LOST &&
                tf->m_task_finished.tf_task == on2 &&
                tf->m_task_finished.tf_attempt == 1;
    }
    tap_ok(lost == 1 && n_tf == 1,
           "the scheduler hears LOST for the task out of attempts only");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 1,
               "the other waits for its second attempt");
    tap_is_int((int64_t)fd_core_stats(c)->fs_nodes, 0, "no node left");
    tap_is_int(fdt_drain(c), 0, "encodes");
    fd_core_free(c);
}

/* A core with cfg, one node n1 of slots slots (a long_share=share
 * label), a scheduler, and job 9 of tasks long tasks handed over, after
 * its first round (at T0 + 1 s). */
static fd_core *one_node_round(const fd_config *cfg, uint32_t slots,
                               double share, uint32_t tasks)
{
    fd_core *c = fdt_core(cfg, T0);
    fdt_node(c, T0, 1, "n1", slots, NULL, share);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 9, tasks, true, NULL, 0);
    fdt_drain(c);
    fdt_round(c, T0 + 1000 * MS, NULL);
    return c;
}

/* A one-slot node's cap is 1 (sk_long_cap), as its node monitor's: one
 * of two long tasks is placed there, the other waits. */
static void test_one_slot_cap(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = one_node_round(&cfg, 1, 0.75, 2);
    resv r[4];
    tap_is_int((int64_t)take_reserves(c, r, 4), 1,
               "one slot, long_share 0.75: cap 1, one long task placed");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 1, "the other waits");
    fd_core_free(c);
}

/* CANCEL_JOB releases and kills what is placed and forgets the rest. */
static void test_cancel(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = one_node_round(&cfg, 4, 0.5, 4);
    resv r[8];
    size_t n = take_reserves(c, r, 8);
    tap_is_int((int64_t)n, 2, "cap 2 (long_share label 0.5 of 4)");
    fdt_answer(c, T0 + 1001 * MS, 1, &r[0].rv, true);
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job = (sk_cancel_job){.cj_job = 9, .cj_reason = "user"};
    on_msg(c, T0 + 1100 * MS, SCHED, &m);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, 1), 2,
               "RELEASE for each placed task");
    bool match = true;
    for (size_t i = 0; i < 2; i++) {
        const sk_msg *rl = fdt_nth(c, SK_MSG_RELEASE, i, NULL);
        bool found = false;
        for (size_t k = 0; k < n; k++)
            found = found || (rl->m_release.rl_resv == r[k].rv.rv_resv &&
                              rl->m_release.rl_task == r[k].rv.rv_task);
        match = match && found && rl->m_release.rl_kill &&
                rl->m_release.rl_job == 9;
    }
    tap_ok(match, "RELEASEs name the reservations, with kill");
    tap_is_int(task_state(c, 9, 0, NULL), 0, "the job is gone");
    tap_is_int(fd_core_node_long(c, 1), 0, "the node is empty");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 0, "nothing waits");
    fdt_drain(c);
    fdt_answer(c, T0 + 1102 * MS, 1, &r[1].rv, true);
    tap_is_int((int64_t)fd_core_stats(c)->fs_unknown, 1,
               "a late ACK of a cancelled task is unknown");
    tap_is_int(fdt_round(c, T0 + 1300 * MS, NULL), 0, "round");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "nothing placed");
    fdt_submit(c, T0 + 1400 * MS, SCHED, 9, 1, true, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED), 1,
               "the id may be used again");
    fdt_drain(c);
    fd_core_free(c);
}

/* Changes during a solve wait for the next round; placements of tasks
 * that ended and onto nodes that left meanwhile are dropped. */
static void test_during_solve(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, 1.0);
    fdt_node(c, T0, 2, "n2", 4, NULL, 1.0);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 1, 4, true, NULL, 0);
    fdt_submit(c, T0, SCHED, 2, 2, true, NULL, 0);
    fdt_drain(c);
    fd_round *rd;
    tap_is_int(fd_round_begin(c, T0 + 1000 * MS, &rd), 0, "round out");
    fd_round *rd2;
    tap_is_int(fd_round_begin(c, T0 + 1000 * MS, &rd2), SK_ESTATE,
               "one round at a time");
    int32_t arcs = fc_graph_arc_count(rd->rd_graph);
    /* meanwhile: job 2 cancelled, n2 gone, n3 and job 3 come */
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job = (sk_cancel_job){.cj_job = 2, .cj_reason = ""};
    on_msg(c, T0 + 1001 * MS, SCHED, &m);
    fdt_drain(c);
    fd_core_peer_down(c, T0 + 1001 * MS, 2);
    fdt_node(c, T0 + 1001 * MS, 3, "n3", 2, NULL, 1.0);
    fdt_submit(c, T0 + 1001 * MS, SCHED, 3, 2, true, NULL, 0);
    tap_is_int(fc_graph_arc_count(rd->rd_graph), arcs,
               "the graph out is not touched");
    fdt_drain(c);
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    fc_solve_stats st;
    int src = fc_solve(rd->rd_graph, &opt, &st);
    tap_is_int(fd_round_end(c, T0 + 1002 * MS, rd, src, &st), 0, "ended");
    resv r[16];
    size_t n = take_reserves(c, r, 16);
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok = ok && r[i].rv.rv_job == 1 && r[i].to == 1;
    tap_ok(ok && n >= 1, "only job 1 placed, only on n1 (%zu)", n);
    tap_ok(fd_core_stats(c)->fs_dropped_dead > 0,
           "placements of the dead dropped (%llu)",
           (unsigned long long)fd_core_stats(c)->fs_dropped_dead);
    fdt_drain(c);
    tap_is_int(fdt_round(c, T0 + 1200 * MS, NULL), 0, "next round");
    n = take_reserves(c, r, 16);
    ok = true;
    size_t job3 = 0;
    for (size_t i = 0; i < n; i++) {
        ok = ok && r[i].to != 2;
        job3 += r[i].rv.rv_job == 3;
    }
    tap_ok(ok && job3 == 2 && fd_core_stats(c)->fs_waiting == 0,
           "the next round places the rest and job 3, none on n2");
    fdt_drain(c);
    fd_core_free(c);
}

/* A RESERVE with no answer is lost: released in case, re-planned. */
static void test_lost_reserve(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 6, 1, true, NULL, 0);
    fdt_drain(c);
    fdt_round(c, T0 + 1000 * MS, NULL);
    resv r[2];
    tap_is_int((int64_t)take_reserves(c, r, 2), 1, "placed");
    fdt_drain(c);
    tap_is_int((int64_t)fd_core_next_deadline(c), (int64_t)(T0 + 3000 * MS),
               "deadline: the node's timeout first");
    fdt_heartbeat(c, T0 + 2000 * MS, 1, 1, 4, 0, 0, 0, NULL, 0);
    fdt_heartbeat(c, T0 + 4000 * MS, 1, 2, 4, 0, 0, 0, NULL, 0);
    on_timer(c, T0 + 5999 * MS);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, 1), 0, "not yet");
    on_timer(c, T0 + 6000 * MS);
    const sk_msg *m = fdt_nth(c, SK_MSG_RELEASE, 0, NULL);
    tap_ok(m != NULL && m->m_release.rl_resv == r[0].rv.rv_resv &&
               m->m_release.rl_kill,
           "lost RESERVE released with kill");
    uint32_t attempt = 0;
    tap_is_int(task_state(c, 6, 0, &attempt), FD_TASK_WAITING, "waits");
    tap_is_int(attempt, 1, "with its next attempt");
    fdt_drain(c);
    fdt_answer(c, T0 + 6001 * MS, 1, &r[0].rv, true);
    tap_is_int((int64_t)fd_core_stats(c)->fs_unknown, 1,
               "the late ACK is unknown");
    fd_core_free(c);
}

/* After a restart: running tasks are adopted in the settle window,
 * nothing is placed before it ends, unknown tasks are released. */
static void test_restart(void)
{
    fd_config cfg = cfg_test();
    fd_core *c;
    char err[100];
    tap_is_int(fd_core_new(&cfg, 2, T0, &c, err, sizeof err), 0, "epoch 2");
    fdt_node(c, T0 + 10 * MS, 1, "n1", 4, NULL, -1);
    fdt_sched(c, T0 + 10 * MS, SCHED, SID);
    fdt_run run[2] = {{5, 0, 1}, {9, 0, 0}};
    fdt_heartbeat(c, T0 + 20 * MS, 1, 40, 4, 2, 2, 0, run, 2);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, UINT32_MAX), 0,
               "unknown tasks kept while settling");
    fdt_submit(c, T0 + 300 * MS, SCHED, 5, 2, true, NULL, 0);
    fdt_drain(c);
    fdt_heartbeat(c, T0 + 900 * MS, 1, 41, 4, 2, 2, 0, run, 2);
    uint32_t attempt = 0;
    tap_is_int(task_state(c, 5, 0, &attempt), FD_TASK_RUNNING,
               "reported task adopted as running");
    tap_is_int(attempt, 1, "with the node's attempt");
    tap_is_int(fdt_round(c, T0 + 999 * MS, NULL), SK_EAGAIN,
               "nothing placed while settling");
    tap_is_int(fdt_round(c, T0 + 1000 * MS, NULL), 0, "round at its end");
    resv r[4];
    size_t n = take_reserves(c, r, 4);
    tap_ok(n == 1 && r[0].rv.rv_task == 1 && (r[0].rv.rv_resv >> 32) == 2,
           "only the task not running is placed, with an epoch-2 id");
    fdt_drain(c);
    fdt_heartbeat(c, T0 + 1900 * MS, 1, 42, 4, 2, 3, 0, run, 2);
    const sk_msg *m = fdt_nth(c, SK_MSG_RELEASE, 0, NULL);
    tap_ok(m != NULL && m->m_release.rl_job == 9 && m->m_release.rl_kill &&
               fdt_count(c, SK_MSG_RELEASE, UINT32_MAX) == 1,
           "the task nobody owns is released with kill");
    tap_is_int(task_state(c, 5, 0, NULL), FD_TASK_RUNNING,
               "the adopted one runs on");
    fdt_drain(c);
    fd_core_free(c);

    /* A node full of long tasks reported before their job comes back:
     * the earlier heartbeat counted them foreign, which must not leave
     * them no room to be adopted in. */
    tap_is_int(fd_core_new(&cfg, 3, T0, &c, err, sizeof err), 0, "epoch 3");
    fdt_node(c, T0 + 10 * MS, 1, "n1", 1, NULL, 1.0);
    fdt_sched(c, T0 + 10 * MS, SCHED, SID);
    fdt_run full = {5, 0, 2};
    fdt_heartbeat(c, T0 + 20 * MS, 1, 40, 1, 1, 1, 0, &full, 1);
    fdt_submit(c, T0 + 300 * MS, SCHED, 5, 1, true, NULL, 0);
    fdt_heartbeat(c, T0 + 500 * MS, 1, 41, 1, 1, 1, 0, &full, 1);
    tap_is_int(task_state(c, 5, 0, &attempt), FD_TASK_RUNNING,
               "a node at its cap: its task adopted all the same");
    fdt_drain(c);
    fd_core_free(c);
}

/* With preemption on, fallback work waiting displaces a long task that
 * has not run long: RELEASE with kill, RESERVE of the newcomer there,
 * the displaced task waits with its next attempt, which does not count
 * against max_attempts. Off, nothing moves. */
static void test_preemption(bool on)
{
    fd_config cfg = cfg_test();
    cfg.fdc_preemption = on;
    cfg.fdc_max_attempts = 1;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 1, NULL, 1.0); /* cap 1 */
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 1, 1, true, NULL, 0);
    fdt_round(c, T0 + 1000 * MS, NULL);
    resv r[4];
    tap_is_int((int64_t)take_reserves(c, r, 4), 1, "long task placed");
    fdt_answer(c, T0 + 1001 * MS, 1, &r[0].rv, true);
    fdt_run run = {1, 0, 0};
    fdt_heartbeat(c, T0 + 1100 * MS, 1, 1, 1, 1, 1, 0, &run, 1);
    tap_is_int(task_state(c, 1, 0, NULL), FD_TASK_RUNNING, "it runs");
    fdt_round(c, T0 + 1200 * MS, NULL);
    /* fallback work: unscheduled costs 2000 against 1000 + 10 * 1 s
     * waited + 10 * 2 s of work lost (and 100 to place it) */
    fdt_submit(c, T0 + 3100 * MS, SCHED, 2, 1, false, NULL, 0);
    tap_is_int(fdt_round(c, T0 + 3200 * MS, NULL), 0, "round");
    const sk_msg *rl = fdt_nth(c, SK_MSG_RELEASE, 0, NULL);
    sk_peer to = 0;
    const sk_msg *rv = fdt_nth(c, SK_MSG_RESERVE, 0, &to);
    uint32_t attempt = 0;
    if (on) {
        tap_ok(rl != NULL && rl->m_release.rl_resv == r[0].rv.rv_resv &&
                   rl->m_release.rl_kill,
               "preemption: the long task released with kill");
        tap_ok(rv != NULL && rv->m_reserve.rv_job == 2 && to == 1,
               "the fallback task reserved in its place");
        tap_is_int(task_state(c, 1, 0, &attempt), FD_TASK_WAITING,
                   "the displaced task waits");
        tap_is_int(attempt, 1, "with its next attempt");
        tap_is_int((int64_t)fd_core_stats(c)->fs_preempted, 1, "counted");
        tap_is_int(fd_core_node_long(c, 1), 1, "the node stays at its cap");
    } else {
        tap_ok(rl == NULL && rv == NULL, "no preemption: nothing moves");
        tap_is_int(task_state(c, 1, 0, NULL), FD_TASK_RUNNING, "it runs on");
    }
    fdt_drain(c);
    fd_core_free(c);
}

/* A task rejected max_rejects times fails, and its scheduler hears it;
 * a scheduler that goes away (grace 0) takes its jobs with it. */
static void test_rejects_and_sched_down(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_max_rejects = 2;
    cfg.fdc_sched_grace_ms = 0; /* test_fd_grace: with a grace */
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_sched(c, T0, SCHED, SID);
    fdt_sched(c, T0, SCHED + 1, SID + 1);
    fdt_submit(c, T0, SCHED, 1, 1, true, NULL, 0);
    resv r[4];
    for (int i = 0; i < 2; i++) {
        fdt_round(c, T0 + (1000 + 200 * (uint64_t)i) * MS, NULL);
        tap_is_int((int64_t)take_reserves(c, r, 4), 1, "placed (%d)", i);
        fdt_answer(c, T0 + (1001 + 200 * (uint64_t)i) * MS, 1, &r[0].rv, false);
    }
    const sk_msg *m = fdt_nth(c, SK_MSG_TASK_FINISHED, 0, NULL);
    tap_ok(m != NULL && m->m_task_finished.tf_status == SK_TASK_FAILED &&
               strstr((const char *)m->m_task_finished.tf_output.b_data,
                      "test says no") != NULL,
           "second rejection: FAILED with the node's reason");
    tap_is_int(task_state(c, 1, 0, NULL), 0, "the task is gone");
    fdt_submit(c, T0 + 2000 * MS, SCHED, 2, 2, true, NULL, 0);
    fdt_round(c, T0 + 2200 * MS, NULL);
    tap_is_int((int64_t)take_reserves(c, r, 4), 2, "job 2 placed");
    fdt_drain(c);
    fd_core_peer_down(c, T0 + 2300 * MS, SCHED);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RELEASE, 1), 2,
               "its scheduler gone: its tasks released");
    tap_is_int((int64_t)fd_core_stats(c)->fs_jobs, 0, "no job left");
    tap_is_int((int64_t)fd_core_stats(c)->fs_schedulers, 1,
               "one scheduler left");
    fdt_heartbeat(c, T0 + 2400 * MS, 1, 1, 4, 0, 0, 0, NULL, 0);
    fdt_node(c, T0 + 2400 * MS, 2, "n2", 4, NULL, -1);
    tap_ok(fdt_count(c, SK_MSG_MEMBERSHIP, SCHED) == 0 &&
               fdt_count(c, SK_MSG_MEMBERSHIP, SCHED + 1) == 1,
           "directory changes go to the scheduler still there");
    fdt_drain(c);
    fd_core_free(c);
}

/* Limits on jobs and classes are refusals with a reason, counted. */
static void test_limits(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_max_jobs = 2;
    cfg.fdc_max_classes = 2;
    cfg.fdc_max_tasks = 5;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_sched(c, T0, SCHED, SID);
    const char *a[] = {"a"}, *b[] = {"b"};
    sk_resources res = {100, 100};
    fdt_submit_ex(c, T0, SCHED, 1, 1, true, NULL, 0, a, 1, res);
    fdt_submit_ex(c, T0, SCHED, 2, 1, true, NULL, 0, b, 1, res);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED), 1,
               "two classes");
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_CANCEL_JOB};
    m.m_cancel_job = (sk_cancel_job){.cj_job = 2, .cj_reason = ""};
    on_msg(c, T0, SCHED, &m);
    const char *d[] = {"d"};
    fdt_submit_ex(c, T0, SCHED, 3, 1, true, NULL, 0, d, 1, res);
    const sk_msg *r = fdt_nth(c, SK_MSG_JOB_REJECTED, 0, NULL);
    tap_ok(r != NULL && strstr(r->m_job_ack.ja_reason, "max_classes"),
           "a third class refused while the second waits for the next "
           "round to go: %s",
           r ? r->m_job_ack.ja_reason : "");
    fdt_round(c, T0 + 1000 * MS, NULL);
    fdt_submit_ex(c, T0 + 1000 * MS, SCHED, 3, 1, true, NULL, 0, d, 1, res);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED), 1,
               "accepted once the round freed the class");
    fdt_submit_ex(c, T0 + 1000 * MS, SCHED, 4, 1, true, NULL, 0, a, 1, res);
    r = fdt_nth(c, SK_MSG_JOB_REJECTED, 0, NULL);
    tap_ok(r != NULL && strstr(r->m_job_ack.ja_reason, "max_jobs"),
           "a third job refused: %s", r ? r->m_job_ack.ja_reason : "");
    on_msg(c, T0 + 1000 * MS, SCHED, &m); /* job 2 is gone: unknown */
    tap_is_int((int64_t)fd_core_stats(c)->fs_unknown, 1,
               "CANCEL_JOB of a job gone is unknown");
    m.m_cancel_job.cj_job = 3;
    on_msg(c, T0 + 1000 * MS, SCHED, &m);
    fdt_submit(c, T0 + 1000 * MS, SCHED, 5, 5, true, NULL, 0);
    r = fdt_nth(c, SK_MSG_JOB_REJECTED, 0, NULL);
    tap_ok(r != NULL && strstr(r->m_job_ack.ja_reason, "max_tasks"),
           "over max_tasks refused: %s", r ? r->m_job_ack.ja_reason : "");
    tap_is_int((int64_t)fd_core_stats(c)->fs_jobs_rejected, 3,
               "refusals counted");
    fdt_drain(c);
    fd_core_free(c);
}

/* The shell's way: the round solved on a worker thread while the loop
 * thread keeps feeding the core heartbeats, submissions and answers. */
typedef struct solve_job {
    fd_round *sj_round;
    fc_solve_stats sj_st;
    int sj_rc;
} solve_job;

static void *solve_thread(void *arg)
{
    solve_job *j = arg;
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = j->sj_round->rd_algorithm;
    opt.so_incremental = j->sj_round->rd_incremental;
    j->sj_rc = fc_solve(j->sj_round->rd_graph, &opt, &j->sj_st);
    return NULL;
}

static void test_threaded_round(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_algorithm = FC_ALG_RACE;
    fd_core *c = fdt_core(&cfg, T0);
    for (uint32_t i = 1; i <= 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        fdt_node(c, T0, i, name, 8, i % 2 ? "odd" : "even", -1);
    }
    fdt_sched(c, T0, SCHED, SID);
    for (uint64_t j = 1; j <= 20; j++)
        fdt_submit(c, T0, SCHED, j, 10, true, NULL, 0);
    fdt_drain(c);
    size_t placed = 0;
    sk_time now = T0 + 1000 * MS;
    for (int round = 0; round < 5; round++) {
        solve_job job = {0};
        fdt_drain(c);
        if (fd_round_begin(c, now, &job.sj_round) != 0)
            break;
        pthread_t th;
        if (pthread_create(&th, NULL, solve_thread, &job) != 0)
            tap_bail_out("pthread_create");
        /* meanwhile, on this thread */
        for (uint32_t i = 1; i <= 40; i++)
            fdt_heartbeat(c, now, i, (uint64_t)round + 1, 8,
                          (uint32_t)(i + round) % 8, 0, i % 3, NULL, 0);
        if (round < 4)
            fdt_submit(c, now, SCHED, 100 + (uint64_t)round, 5, true, NULL, 0);
        fdt_drain(c);
        pthread_join(th, NULL);
        tap_is_int(job.sj_rc, 0, "round %d solved on a worker thread", round);
        fd_round_end(c, now, job.sj_round, job.sj_rc, &job.sj_st);
        placed += fdt_count(c, SK_MSG_RESERVE, UINT32_MAX);
        now += 200 * MS;
    }
    /* 40 nodes x cap 6 = 240 slots for 220 tasks: all placed */
    tap_is_int((int64_t)placed, 220, "every task placed over the rounds");
    bool within = true;
    for (uint32_t i = 1; i <= 40; i++)
        within = within && fd_core_node_long(c, i) <= 6;
    tap_ok(within, "no node beyond its cap");
    fdt_drain(c);
    fd_core_free(c);
}

/* Input out of range or from the wrong peer is counted and dropped. */
static void test_bad_input(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_max_job_tasks = 10;
    cfg.fdc_max_nodes = 2;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_node(c, T0, 2, "n2", 4, NULL, -1);
    fdt_node(c, T0, 3, "n3", 4, NULL, -1);
    tap_is_int((int64_t)fd_core_stats(c)->fs_limit, 1, "third node refused");
    fdt_node(c, T0, 4, "n4", 4, NULL, 7.5);
    tap_is_int((int64_t)fd_core_stats(c)->fs_bad_field, 1,
               "long_share out of range refused");
    fdt_heartbeat(c, T0, 55, 1, 4, 0, 0, 0, NULL, 0);
    tap_is_int((int64_t)fd_core_stats(c)->fs_bad_peer, 1,
               "heartbeat from a stranger");
    fdt_submit(c, T0, 56, 1, 1, true, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_REJECTED, 56), 1,
               "SUBMIT_JOB from a non-scheduler rejected");
    fdt_sched(c, T0, SCHED, SID);
    fdt_drain(c);
    fdt_submit(c, T0, SCHED, 1, 11, true, NULL, 0);
    const sk_msg *m = fdt_nth(c, SK_MSG_JOB_REJECTED, 0, NULL);
    tap_ok(m != NULL && strstr(m->m_job_ack.ja_reason, "11 tasks") != NULL,
           "too many tasks rejected: %s", m ? m->m_job_ack.ja_reason : "");
    fdt_drain(c);
    fdt_submit(c, T0, SCHED, 1, 2, true, NULL, 0);
    fdt_submit(c, T0, SCHED, 1, 2, true, NULL, 0);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_REJECTED, SCHED), 1,
               "duplicate job id rejected");
    fdt_drain(c);
    fdt_heartbeat(c, T0, 1, 5, 4, 0, 0, 0, NULL, 0);
    fdt_heartbeat(c, T0, 1, 5, 4, 0, 0, 0, NULL, 0);
    tap_is_int((int64_t)fd_core_stats(c)->fs_stale, 1, "repeated seq stale");
    fdt_heartbeat(c, T0, 1, 6, 4, 5, 0, 0, NULL, 0);
    tap_is_int((int64_t)fd_core_stats(c)->fs_bad_field, 2,
               "more used than total refused");
    sk_msg q = {.m_type = SK_MSG_KILL_TASK};
    on_msg(c, T0, 1, &q);
    tap_is_int((int64_t)fd_core_stats(c)->fs_bad_type, 1, "KILL_TASK refused");
    sk_msg sq = {.m_type = SK_MSG_STATUS_REQUEST};
    sq.m_status_request =
        (sk_status_request){.sq_request = 77, .sq_table = true};
    on_msg(c, T0, 999, &sq);
    m = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    bool nodes2 = false, waiting2 = false;
    for (uint32_t i = 0; m != NULL && i < m->m_status_reply.sr_nkv; i++) {
        const sk_status_kv *kv = &m->m_status_reply.sr_kv[i];
        nodes2 |=
            strcmp(kv->kv_key, "nodes") == 0 && strcmp(kv->kv_value, "2") == 0;
        waiting2 |= strcmp(kv->kv_key, "long_waiting") == 0 &&
                    strcmp(kv->kv_value, "2") == 0;
    }
    tap_ok(m != NULL && m->m_status_reply.sr_request == 77 && nodes2 &&
               waiting2,
           "STATUS_REPLY: nodes 2, long_waiting 2");
    tap_ok(m != NULL && m->m_status_reply.sr_nrows == 2 &&
               strcmp(m->m_status_reply.sr_rows[0].sw_cells[0], "n1") == 0,
           "status table: one row per node");
    tap_is_int(fdt_drain(c), 0, "status encodes");
    fd_core_free(c);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    sk_log_set_level(SK_LOG_ERROR);
    test_config();
    test_basic();
    test_timeout();
    test_cancel();
    test_one_slot_cap();
    test_during_solve();
    test_lost_reserve();
    test_restart();
    test_preemption(false);
    test_preemption(true);
    test_rejects_and_sched_down();
    test_limits();
    test_threaded_round();
    test_bad_input();
    tap_done();
    return tap_exit_status();
}
