/*
 * test_integration_failover.c - a frontend (libskylark's sk_frontend)
 * whose scheduler is killed (SIGKILL) in the middle of a job, with real
 * daemons on loopback: two schedulers, three node monitors registered
 * with both. The job's unfinished tasks move to the other scheduler and
 * the job completes with every task OK, each reported once under its own
 * index. Each command appends its task index (from the spec) and the
 * SKYLARK_TASK_INDEX it was given to a ledger: they must agree, also for
 * tasks run by the second scheduler, to which the job's task 150 may be
 * task 50 of the resubmission. And the test counts the executions that
 * really happened: only tasks without a reported outcome at the moment of
 * the kill may run twice (the lost scheduler's attempt runs on with
 * nobody to report to: the "orphans" of issue 21, not fixed here). Those
 * are the tasks running then, at most one per slot, and those that had
 * just ended but whose report was still on its way through the killed
 * scheduler (measured: up to 2 of them beside 8 busy slots under load),
 * so the bound is two per slot. The counts are printed as diagnostics.
 * Then the same through the command line: `skylark run --scheduler A
 * --scheduler B` on another pair of schedulers, A killed mid-job: every
 * task ok, exit 0.
 */
#include "daemon_harness.h"
#include "skylark.h"
#include "tap.h"

#include <ev.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NNODES  3
#define SLOTS   4
#define NTASKS  300
#define KILL_AT 100 /* outcomes seen before the kill */

static dh_proc sched[4];
static dh_proc nodes[NNODES + 2];

typedef struct run {
    sk_frontend *rn_fe;
    int rn_done[NTASKS];
    int rn_outcome[NTASKS];
    int rn_bad;    /* an index out of range, or a second outcome */
    int rn_ok;     /* OK outcomes */
    int rn_killed; /* index of the scheduler killed + 1 */
    int rn_after;  /* outcomes after the kill */
    int rn_job_dones;
    sk_job_result rn_jr;
} run;

static void on_task(void *arg, const sk_task_result *r)
{
    run *rn = arg;
    if (r->tr_task >= NTASKS || rn->rn_done[r->tr_task]++ > 0) {
        rn->rn_bad++;
        return;
    }
    rn->rn_outcome[r->tr_task] = r->tr_outcome;
    rn->rn_ok += r->tr_outcome == SK_OUTCOME_OK;
    if (rn->rn_killed)
        rn->rn_after++;
    if (rn->rn_ok == KILL_AT && !rn->rn_killed) {
        /* Kill the scheduler the job is on, now. */
        sk_frontend_stats st;
        sk_frontend_stats_get(rn->rn_fe, &st);
        for (int i = 0; i < 2; i++)
            if (strcmp(st.fs_scheduler, sched[i].dp_endpoint) == 0) {
                dh_kill(&sched[i]);
                rn->rn_killed = i + 1;
            }
    }
}

static void on_job(void *arg, const sk_job_result *r)
{
    run *rn = arg;
    rn->rn_job_dones++;
    rn->rn_jr = *r;
}

static int count_lines(const char *path, int *distinct, int n)
{
    int *seen = calloc((size_t)n, sizeof *seen), lines = 0, t;
    *distinct = 0;
    FILE *f = fopen(path, "r");
    while (f != NULL && fscanf(f, "%d", &t) == 1) {
        lines++;
        if (t >= 0 && t < n && seen[t]++ == 0)
            ++*distinct;
    }
    if (f != NULL)
        fclose(f);
    free(seen);
    return lines;
}

/* skylark run with two schedulers (s3, s4, and two node monitors of
 * theirs); s3, where the job goes first, is killed a third of the way. */
static void test_cli(void)
{
    if (dh_start_sched(&sched[2], "s3", 3, NULL) != 0 ||
        dh_start_sched(&sched[3], "s4", 4, NULL) != 0)
        tap_bail_out("the schedulers did not start");
    const dh_proc *s[] = {&sched[2], &sched[3]};
    if (dh_start_nodemon(&nodes[NNODES], "n4", 4, SLOTS, s, 2, NULL) != 0 ||
        dh_start_nodemon(&nodes[NNODES + 1], "n5", 5, SLOTS, s, 2, NULL) != 0)
        tap_bail_out("the node monitors did not start");
    dh_client *tool = dh_client_new("tool", "t3");
    int seen = 1;
    for (int i = 2; i < 4; i++) {
        sk_peer_id p = dh_client_connect(tool, sched[i].dp_endpoint, 5);
        seen &= p != 0 && dh_wait_status(tool, p, "nodes", 2, 10, NULL);
    }
    dh_client_free(tool);
    const char *top = getenv("top_builddir");
    char cli[1024], ledger[512], cmd[700];
    snprintf(cli, sizeof cli, "%s/cli/skylark", top != NULL ? top : ".");
    snprintf(ledger, sizeof ledger, "%s/ledger-cli", dh_dir());
    snprintf(cmd, sizeof cmd, "echo $SKYLARK_TASK_INDEX >> %s; sleep 0.05",
             ledger);
    char *argv[] = {cli,           "run",
                    "--dir",       (char *)dh_dir(),
                    "--scheduler", sched[2].dp_endpoint,
                    "--scheduler", sched[3].dp_endpoint,
                    "-n",          "200",
                    cmd,           NULL};
    dh_proc cr;
    memset(&cr, 0, sizeof cr);
    int distinct = 0, killed = 0;
    if (seen && dh_spawn(&cr, "cli-run", argv) == 0) {
        for (int i = 0; i < 3000 && count_lines(ledger, &distinct, 200) < 60;
             i++)
            usleep(10 * 1000);
        dh_kill(&sched[2]);
        killed = 1;
        if (!dh_wait_exit(&cr, 60))
            dh_kill(&cr);
    }
    tap_ok(killed && WIFEXITED(cr.dp_status) && WEXITSTATUS(cr.dp_status) == 0,
           "skylark run --scheduler s3 --scheduler s4, s3 killed mid-job: "
           "exit 0");
    tap_ok(killed && dh_log_has(&cr, "200 tasks: 200 ok, 0 failed") &&
               dh_log_has(&cr, "moved to another (1 time)"),
           "it says 200 ok and that the job moved");
    int lines = count_lines(ledger, &distinct, 200);
    tap_ok(distinct == 200 && lines - distinct <= 2 * 2 * SLOTS,
           "every task ran under its own index; %d of 200 twice",
           lines - distinct);
    if (tap_failures() > 0)
        dh_log_tail(&cr, 10);
}

int main(void)
{
    tap_plan(8);
    tap_timeout(120);
    dh_init();
    dh_start_two_scheds(sched, nodes, NNODES, SLOTS);
    dh_client *tool = dh_client_new("tool", "t1");
    int seen = 1;
    for (int i = 0; i < 2; i++) {
        sk_peer_id p = dh_client_connect(tool, sched[i].dp_endpoint, 5);
        seen &= p != 0 && dh_wait_status(tool, p, "nodes", NNODES, 10, NULL);
    }
    dh_client_free(tool);
    tap_ok(seen, "2 schedulers, each with %d node monitors of %d slots", NNODES,
           SLOTS);

    const char *eps[] = {sched[0].dp_endpoint, sched[1].dp_endpoint};
    sk_frontend_opts o;
    sk_frontend_opts_init(&o);
    o.fo_schedulers = eps;
    o.fo_nschedulers = 2;
    /* The daemons' heartbeat (1 s, dh_set_heartbeat): the session with
     * the killed scheduler ends after 3 s of silence. */
    o.fo_connect_timeout = 1;
    o.fo_queue_timeout = 20;
    run rn;
    memset(&rn, 0, sizeof rn);
    if (sk_frontend_create(NULL, &o, &rn.rn_fe) != 0 ||
        sk_frontend_wait_connected(rn.rn_fe, 10) != 0)
        tap_bail_out("the frontend has no session");

    char ledger[512];
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    static char specs[NTASKS][600];
    static sk_task_desc td[NTASKS];
    for (int t = 0; t < NTASKS; t++) {
        snprintf(specs[t], sizeof specs[t],
                 "echo %d $SKYLARK_TASK_INDEX >> %s; sleep 0.05", t, ledger);
        td[t].td_spec = specs[t];
        td[t].td_spec_len = (uint32_t)strlen(specs[t]);
    }
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_user = "alice";
    jd.jo_tasks = td;
    jd.jo_ntasks = NTASKS;
    sk_job_callbacks cb = {NULL, on_task, on_job, &rn};
    sk_job_id id;
    if (sk_frontend_submit(rn.rn_fe, &jd, &cb, &id) != 0)
        tap_bail_out("submit: %s", sk_frontend_error(rn.rn_fe));
    sk_frontend_wait_idle(rn.rn_fe, 90);
    sk_frontend_stats st;
    sk_frontend_stats_get(rn.rn_fe, &st);
    tap_diag("sessions %llu, lost %llu, endpoint moves %llu, failed over %llu, "
             "stale %llu, duplicate %llu",
             (unsigned long long)st.fs_sessions,
             (unsigned long long)st.fs_scheduler_lost,
             (unsigned long long)st.fs_failovers,
             (unsigned long long)st.fs_failed_over,
             (unsigned long long)st.fs_stale,
             (unsigned long long)st.fs_duplicate);
    tap_ok(rn.rn_killed != 0 && rn.rn_after > 0 && st.fs_failed_over == 1,
           "the job's scheduler (s%d) was killed after %d outcomes; %d "
           "more came after the failover",
           rn.rn_killed, KILL_AT, rn.rn_after);
    const sk_job_result *jr = &rn.rn_jr;
    tap_ok(rn.rn_job_dones == 1 && jr->jr_job == id && jr->jr_tasks == NTASKS &&
               jr->jr_ok == NTASKS && jr->jr_lost == 0 && jr->jr_failed == 0 &&
               jr->jr_error == 0 && jr->jr_failovers == 1,
           "the job completes: %u ok, %u lost, %u failed of %u, error %d, "
           "%u failover",
           jr->jr_ok, jr->jr_lost, jr->jr_failed, jr->jr_tasks, jr->jr_error,
           jr->jr_failovers);
    int once = rn.rn_bad == 0;
    for (int t = 0; t < NTASKS; t++)
        once &= rn.rn_done[t] == 1 && rn.rn_outcome[t] == SK_OUTCOME_OK;
    tap_ok(once, "every task reported once, OK, under its own index");

    /* The ledger: executions per task. Orphans of the killed scheduler
     * may still be finishing. */
    usleep(500 * 1000);
    static int runs[NTASKS];
    int bad = 0, never = 0, twice = 0, more = 0, lines = 0;
    FILE *f = fopen(ledger, "r");
    int t, env;
    while (f != NULL && fscanf(f, "%d %d", &t, &env) == 2) {
        lines++;
        if (t >= 0 && t < NTASKS && env == t)
            runs[t]++;
        else
            bad++;
    }
    if (f != NULL)
        fclose(f);
    for (t = 0; t < NTASKS; t++) {
        never += runs[t] == 0;
        twice += runs[t] == 2;
        more += runs[t] > 2;
    }
    tap_diag("%d executions of %d tasks: %d executed twice, %d more than "
             "twice, %d never",
             lines, NTASKS, twice, more, never);
    tap_ok(f != NULL && bad == 0 && never == 0 && more == 0 &&
               twice <= 2 * NNODES * SLOTS,
           "every task ran, told its own index (%d not); %d ran twice (at "
           "most two per slot: running or unreported at the kill), none "
           "more",
           bad, twice);
    if (tap_failures() > 0)
        for (int i = 0; i < 2; i++)
            dh_log_tail(&sched[i], 10);
    sk_frontend_destroy(rn.rn_fe);
    test_cli();
    return tap_exit_status();
}
