/*
 * test_integration_fail.c - node monitors killed (SIGKILL) in the middle
 * of a job, with real daemons on loopback. Commands append "task attempt"
 * to a file when they start, so the test counts the runs that really
 * happened: with retries (max_attempts 3) every task still succeeds, and
 * no attempt runs twice; without (max_attempts 1) the tasks of the dead
 * node are reported LOST "node lost", the others succeed, and nothing
 * runs twice.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NNODES 3
#define SLOTS  2
#define NTASKS 40

static dh_proc sched;
static dh_proc nodes[NNODES];
static dh_client *fe;
static sk_peer_id sched_peer;
static sk_peer_id node_peer[NNODES];

/* runs[task][attempt]: lines "task attempt" in the file; returns the
 * number of lines that name no task or attempt, or -1. */
static int count_runs(const char *path, uint32_t runs[NTASKS][3])
{
    memset(runs, 0, sizeof(uint32_t) * NTASKS * 3);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int bad = 0;
    unsigned task, attempt;
    while (fscanf(f, "%u %u", &task, &attempt) == 2) {
        if (task < NTASKS && attempt < 3)
            runs[task][attempt]++;
        else
            bad++;
    }
    fclose(f);
    return bad;
}

static void start_cluster(void)
{
    if (dh_start_sched(&sched, "s1", 1, NULL) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    for (int i = 0; i < NNODES; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        if (dh_start_nodemon(&nodes[i], name, i + 1, SLOTS, s, 1, NULL) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
    fe = dh_client_new("frontend", "fe1");
    sched_peer = dh_client_connect(fe, sched.dp_endpoint, 5);
    dh_client_hello(fe, sched_peer, SK_ROLE_FRONTEND);
    for (int i = 0; i < NNODES; i++)
        node_peer[i] = dh_client_connect(fe, nodes[i].dp_endpoint, 5);
    tap_ok(sched_peer != 0 &&
               dh_wait_status(fe, sched_peer, "nodes", NNODES, 10, NULL),
           "a scheduler and %d node monitors run", NNODES);
}

/* Submits NTASKS tasks that log their start and sleep, then kills node
 * victim (SIGKILL) once it runs one of them. */
static dh_job *run_and_kill(uint64_t id, uint32_t attempts, int victim,
                            const char *runs_path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "echo $SKYLARK_TASK_INDEX $SKYLARK_ATTEMPT >> %s; sleep 0.2",
             runs_path);
    dh_job *j =
        dh_client_submit(fe, sched_peer, id, NTASKS, cmd, "alice", attempts);
    if (j == NULL)
        return NULL;
    int64_t running = 0;
    for (int i = 0; i < 200 && running < 1; i++) {
        dh_status st;
        dh_client_status(fe, node_peer[victim], false, &st, 1);
        running = dh_status_int(&st, "running");
        dh_status_free(&st);
        dh_client_run_for(fe, 0.01);
    }
    tap_ok(running >= 1, "node %s runs %lld tasks of job %llu: kill it",
           nodes[victim].dp_name, (long long)running, (unsigned long long)id);
    dh_kill(&nodes[victim]);
    return j;
}

static void test_retried(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/runs-retried", dh_dir());
    dh_job *j = run_and_kill(1, 3, 0, path);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 30),
           "the job with 3 attempts per task ends");
    if (j == NULL)
        return;
    uint32_t once = 0, ok = 0, retried = 0;
    for (uint32_t t = 0; t < NTASKS; t++) {
        once += j->jb_finished[t] == 1;
        ok += j->jb_status[t] == SK_TASK_OK;
        retried += j->jb_attempt[t] > 0;
    }
    tap_is_int(once, NTASKS, "every task has exactly one outcome");
    tap_is_int(ok, NTASKS, "every task succeeded");
    tap_ok(retried >= 1, "%u tasks succeeded on a later attempt", retried);
    uint32_t runs[NTASKS][3];
    int bad = count_runs(path, runs);
    uint32_t twice = 0, final_ran = 0;
    for (uint32_t t = 0; t < NTASKS; t++) {
        for (int a = 0; a < 3; a++)
            twice += runs[t][a] > 1;
        final_ran += j->jb_attempt[t] < 3 && runs[t][j->jb_attempt[t]] == 1;
    }
    tap_ok(bad == 0 && twice == 0,
           "no attempt ran twice (%u did, %d stray lines)", twice, bad);
    tap_is_int(final_ran, NTASKS, "the successful attempt of each task ran");
    dh_status st;
    dh_client_status(fe, sched_peer, false, &st, 2);
    tap_ok(dh_status_int(&st, "tasks_retried") >= retried &&
               dh_status_int(&st, "nodes") == NNODES - 1,
           "the scheduler counts %lld retries and %lld nodes",
           (long long)dh_status_int(&st, "tasks_retried"),
           (long long)dh_status_int(&st, "nodes"));
    dh_status_free(&st);
}

static void test_lost(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/runs-lost", dh_dir());
    dh_job *j = run_and_kill(2, 1, 1, path);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 30),
           "the job with 1 attempt per task ends");
    if (j == NULL)
        return;
    uint32_t once = 0, ok = 0, lost = 0, lost_reason = 0;
    for (uint32_t t = 0; t < NTASKS; t++) {
        once += j->jb_finished[t] == 1;
        ok += j->jb_status[t] == SK_TASK_OK;
        if (j->jb_status[t] == SK_TASK_LOST) {
            lost++;
            lost_reason += j->jb_output[t] != NULL &&
                           strstr(j->jb_output[t], "node lost") != NULL;
        }
    }
    tap_is_int(once, NTASKS, "every task has exactly one outcome");
    tap_ok(lost >= 1 && lost_reason == lost && ok + lost == NTASKS,
           "%u tasks LOST with \"node lost\", %u ok", lost, ok);
    tap_ok(j->jb_summary.jd_lost == lost && j->jb_summary.jd_ok == ok,
           "JOB_DONE agrees: %u lost, %u ok", j->jb_summary.jd_lost,
           j->jb_summary.jd_ok);
    uint32_t runs[NTASKS][3];
    int bad = count_runs(path, runs);
    uint32_t ok_ran_once = 0, extra = 0;
    for (uint32_t t = 0; t < NTASKS; t++) {
        extra += runs[t][0] > 1 || runs[t][1] + runs[t][2] > 0;
        ok_ran_once += j->jb_status[t] == SK_TASK_OK && runs[t][0] == 1;
    }
    tap_ok(bad == 0 && extra == 0 && ok_ran_once == ok,
           "no task ran more than once; every OK task ran");
}

int main(void)
{
    tap_plan(15);
    tap_timeout(90);
    dh_init();
    /* Dead nodes noticed within 1 s: fast, with room for a busy machine. */
    dh_set_heartbeat(0.2, 5);
    start_cluster();
    test_retried();
    test_lost();
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 20);
        for (int i = 0; i < NNODES; i++)
            dh_log_tail(&nodes[i], 10);
    }
    dh_client_free(fe);
    return tap_exit_status();
}
