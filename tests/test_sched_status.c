/*
 * test_sched_status.c - what the scheduler core's status says of the jobs
 * in flight: per job its progress and the percentiles of its launch
 * waits (the buckets of skylark_sched_launch_wait_seconds), the same per
 * user (query `users`), and a job's tasks with their nodes, attempts,
 * outcomes and hand-overs (query `tasks JOB [FIRST]`), bad queries
 * answered with an error.
 */
#include "sched_testutil.h"
#include "sk_log.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    (void)line;
}

/* Asks the core query (with the table) and returns its reply, valid until
 * the next call into the core. */
static const sk_status_reply *ask(sched_core *c, const char *query)
{
    st_clear(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request.sq_request = 7;
    m.m_status_request.sq_table = true;
    m.m_status_request.sq_query = query;
    sched_on_message(c, 600, &m, 10);
    const sk_out *o = st_nth(c, SK_MSG_STATUS_REPLY, 0);
    return o != NULL ? &o->o_msg.m_status_reply : NULL;
}

static const char *pair(const sk_status_reply *sr, const char *key)
{
    for (uint32_t i = 0; sr != NULL && i < sr->sr_nkv; i++)
        if (strcmp(sr->sr_kv[i].kv_key, key) == 0)
            return sr->sr_kv[i].kv_value;
    return NULL;
}

/* The cell of column name in row r, or NULL. */
static const char *cell(const sk_status_reply *sr, uint32_t r, const char *name)
{
    if (sr == NULL || r >= sr->sr_nrows)
        return NULL;
    for (uint32_t k = 0; k < sr->sr_ncolumns; k++)
        if (strcmp(sr->sr_columns[k], name) == 0)
            return sr->sr_rows[r].sw_cells[k];
    return NULL;
}

static bool is(const char *v, const char *want)
{
    return v != NULL && strcmp(v, want) == 0;
}

/* The first probe (ENQUEUE_RESERVATION) of the outbox to node, as
 * job/resv; false if none. */
static bool probe_on(sched_core *c, sk_peer node, uint64_t *job, uint64_t *resv)
{
    const sk_out *o;
    for (uint32_t n = 0; (o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, n)) != NULL;
         n++)
        if (o->o_peer == node) {
            *job = o->o_msg.m_enqueue.er_job;
            *resv = o->o_msg.m_enqueue.er_resv;
            return true;
        }
    return false;
}

int main(void)
{
    tap_timeout(30);
    sk_log_set_sink(quiet, NULL);
    tap_plan_lazy();
    sched_core *c;
    sched_new(NULL, 5, &c);
    st_nodes_up(c, 2);
    /* Job A: 4 tasks accepted at 0, launched at 50 us, 200 us and 3 ms
     * (buckets <= 100 us, <= 250 us, <= 5 ms); the fourth waits. */
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 4, .max_attempts = 1},
              0);
    uint64_t a, ra, b, rb;
    bool ok = probe_on(c, 1, &a, &ra) && probe_on(c, 2, &b, &rb);
    tap_ok(ok && a == b, "job A has probes on both nodes");
    const sk_task_reply *r = st_get_task(c, 1, a, ra, 50);
    tap_ok(r != NULL && r->tr_has_task && r->tr_task == 0, "task 0 on node1");
    r = st_get_task(c, 2, a, rb, 200);
    tap_ok(r != NULL && r->tr_has_task && r->tr_task == 1, "task 1 on node2");
    r = st_get_task(c, 1, a, ra, 3000);
    tap_ok(r != NULL && r->tr_has_task && r->tr_task == 2, "task 2 on node1");
    st_started(c, 1, a, 0, 0, 60);
    st_finished(c, 1, a, 0, 0, SK_TASK_OK, 70);
    st_started(c, 2, a, 1, 0, 210);
    st_finished(c, 2, a, 1, 0, SK_TASK_FAILED, 220);

    const sk_status_reply *sr = ask(c, "");
    tap_ok(sr != NULL && sr->sr_nrows == 1 && is(cell(sr, 0, "done"), "2") &&
               is(cell(sr, 0, "progress"), "50.0") &&
               is(cell(sr, 0, "launches"), "3"),
           "the job's row: 2 of 4 done (50.0), 3 launches");
    tap_ok(is(cell(sr, 0, "wait_p50_us"), "250") &&
               is(cell(sr, 0, "wait_p99_us"), "5000"),
           "its waits: p50 <= 250 us, p99 <= 5000 us (nearest rank, "
           "bucket bounds): %s %s",
           cell(sr, 0, "wait_p50_us"), cell(sr, 0, "wait_p99_us"));

    /* Job B, same user, from another frontend: 2 tasks, one launched
     * after 70 s, past the last bound; none of its tasks yet done. */
    st_clear(c);
    st_submit(c, ST_FE + 1,
              &(st_job){.sj_job = 1, .ntasks = 2, .max_attempts = 1}, 100);
    uint64_t bj, br;
    tap_ok(probe_on(c, 2, &bj, &br) && bj != a, "job B has a probe on node2");
    r = st_get_task(c, 2, bj, br, 100 + 70 * 1000 * 1000);
    tap_ok(r != NULL && r->tr_has_task, "job B's task launched after 70 s");
    sr = ask(c, "");
    uint32_t rb_row = sr != NULL && is(cell(sr, 0, "tasks"), "2") ? 0 : 1;
    tap_ok(sr != NULL && sr->sr_nrows == 2 &&
               is(cell(sr, rb_row, "wait_p50_us"), "inf") &&
               is(cell(sr, rb_row, "progress"), "0.0"),
           "job B's wait is past the last bound: inf");

    sr = ask(c, "users");
    tap_ok(sr != NULL && sr->sr_nrows == 1 &&
               is(cell(sr, 0, "user"), "alice") &&
               is(cell(sr, 0, "jobs"), "2") && is(cell(sr, 0, "tasks"), "6") &&
               is(cell(sr, 0, "done"), "2") &&
               is(cell(sr, 0, "launches"), "4") && is(cell(sr, 0, "flow"), "0"),
           "users: alice, 2 jobs, 6 tasks, 2 done, 4 launches, none at flowd");
    tap_ok(is(cell(sr, 0, "wait_p50_us"), "250") &&
               is(cell(sr, 0, "wait_p99_us"), "inf") &&
               is(cell(sr, 0, "progress"), "33.3"),
           "alice's waits over both jobs: p50 250 us, p99 inf; 33.3%% done");

    char q[64];
    snprintf(q, sizeof q, "tasks %llu", (unsigned long long)a);
    sr = ask(c, q);
    tap_ok(sr != NULL && sr->sr_nrows == 4 && is(pair(sr, "tasks"), "4") &&
               is(pair(sr, "shown"), "4") && is(pair(sr, "user"), "alice") &&
               is(pair(sr, "handovers"), ""),
           "tasks: 4 rows, no hand-over");
    tap_ok(
        is(cell(sr, 0, "state"), "done") && is(cell(sr, 0, "outcome"), "ok") &&
            is(cell(sr, 0, "node"), "node1") && is(cell(sr, 0, "attempt"), "0"),
        "task 0: done, ok, on node1, attempt 0");
    tap_ok(is(cell(sr, 1, "outcome"), "failed") &&
               is(cell(sr, 1, "node"), "node2"),
           "task 1: failed on node2 (the node kept after the end)");
    tap_ok(is(cell(sr, 2, "state"), "launched") &&
               is(cell(sr, 2, "node"), "node1") &&
               is(cell(sr, 2, "outcome"), ""),
           "task 2: launched on node1, no outcome yet");
    tap_ok(is(cell(sr, 3, "state"), "pending") && is(cell(sr, 3, "node"), ""),
           "task 3: pending, no node");
    snprintf(q, sizeof q, "tasks %llu 3", (unsigned long long)a);
    sr = ask(c, q);
    tap_ok(sr != NULL && sr->sr_nrows == 1 && is(pair(sr, "first"), "3") &&
               is(cell(sr, 0, "task"), "3"),
           "tasks JOB 3: from task 3, one row");
    snprintf(q, sizeof q, "tasks %llu 99", (unsigned long long)a);
    sr = ask(c, q);
    tap_ok(sr != NULL && sr->sr_nrows == 0 && is(pair(sr, "first"), "4"),
           "past the last task: no rows");

    /* node2 leaves: the failed task's node is no longer known. */
    sched_peer_down(c, 2, 500);
    snprintf(q, sizeof q, "tasks %llu", (unsigned long long)a);
    sr = ask(c, q);
    tap_ok(is(cell(sr, 1, "node"), "-"), "a node that left shows as -");

    static const char *const bad[] = {"tasks 999", "tasks x", "tasks 1 2 3",
                                      "tasks ", "tasks 1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sr = ask(c, bad[i]);
        tap_ok(sr != NULL && sr->sr_nrows == 0 && pair(sr, "error") != NULL &&
                   pair(sr, "jobs") == NULL,
               "'%s': the pair error, no table: %s", bad[i],
               sr != NULL ? pair(sr, "error") : "(no reply)");
    }
    sr = ask(c, "no such query");
    tap_ok(sr != NULL && pair(sr, "jobs") != NULL,
           "another query is answered with the status, as before");
    sched_free(c);
    tap_done();
    return tap_exit_status();
}
