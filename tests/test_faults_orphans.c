/*
 * test_faults_orphans.c - duplicates when a scheduler dies mid-job
 * (docs/FAULTS.md): `skylark run --scheduler s1 --scheduler s2 --output`
 * runs 300 tasks of 0.2 s on 3 node monitors of 4 slots registered with
 * both; s1, where the job goes first, gets SIGKILL a third of the way.
 * Every task appends "start|end TASK ATTEMPT NODE" to a ledger, and
 * --output prints one "--- task N" line per outcome the framework got.
 *
 * The test counts what the fault runner counts: outcomes (each
 * task exactly one, all ok: nothing lost, nothing reported twice),
 * executions, tasks executed more than once and tasks completed more
 * than once. The node monitors run with the default orphan_grace_ms 0:
 * s1's orphans are killed when the node monitors see its session end.
 * The tasks that ended before that, whose outcome s1 never passed on,
 * are offered to s2 by the node monitors (TASK_OUTCOME, under the job's
 * key) and end there with that outcome when the frontend's resubmission
 * comes (docs/FAULTS.md, "Outcomes offered"): none may complete twice.
 * Only a task still running when the node monitors lose s1 is executed
 * again: at most one per slot.
 */
#include "daemon_harness.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NNODES 3
#define SLOTS  4
#define NTASKS 300

static dh_proc sched[2], nodes[NNODES];

/* What the ledger and the output say of each task. */
typedef struct tally {
    int tl_starts[NTASKS], tl_ends[NTASKS], tl_outcomes[NTASKS];
    int tl_ok[NTASKS];
    int tl_bad; /* lines that name no task */
} tally;

static int ends_so_far(const char *ledger)
{
    FILE *f = fopen(ledger, "r");
    char what[8], node[64];
    unsigned t, a;
    int n = 0;
    while (f != NULL && fscanf(f, "%7s %u %u %63s", what, &t, &a, node) == 4)
        n += strcmp(what, "end") == 0;
    if (f != NULL)
        fclose(f);
    return n;
}

static void read_tally(const char *ledger, const char *out, tally *tl)
{
    memset(tl, 0, sizeof *tl);
    FILE *f = fopen(ledger, "r");
    char what[8], node[64], line[512];
    unsigned t, a;
    while (f != NULL && fscanf(f, "%7s %u %u %63s", what, &t, &a, node) == 4) {
        if (t >= NTASKS)
            tl->tl_bad++;
        else if (strcmp(what, "start") == 0)
            tl->tl_starts[t]++;
        else
            tl->tl_ends[t]++;
    }
    if (f != NULL)
        fclose(f);
    f = fopen(out, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char status[32];
        if (sscanf(line, "--- task %u: %31s", &t, status) != 2)
            continue;
        if (t >= NTASKS) {
            tl->tl_bad++;
            continue;
        }
        tl->tl_outcomes[t]++;
        tl->tl_ok[t] += strcmp(status, "ok") == 0;
    }
    if (f != NULL)
        fclose(f);
}

/* status_of reads peer's status into *st, asking up to 3 times: on a
 * loaded machine (make distcheck) one ask can outlast its 2 s. */
static void status_of(dh_client *tool, sk_peer_id peer, dh_status *st)
{
    for (int i = 0; i < 3; i++) {
        dh_client_status(tool, peer, false, st, 2 + 2 * i);
        if (st->st_ok)
            return;
        dh_status_free(st);
    }
}

int main(void)
{
    tap_timeout(120);
    dh_init();
    tap_plan(7);
    dh_start_two_scheds(sched, nodes, NNODES, SLOTS);
    dh_client *tool = dh_client_new("tool", "t");
    bool seen = true;
    for (int i = 0; i < 2; i++) {
        sk_peer_id p = dh_client_connect(tool, sched[i].dp_endpoint, 5);
        seen &= p != 0 && dh_wait_status(tool, p, "nodes", NNODES, 10, NULL);
    }
    tap_ok(seen, "2 schedulers, each with %d node monitors of %d slots", NNODES,
           SLOTS);

    const char *top = getenv("top_builddir");
    char cli[1024], ledger[512], cmd[1300], tasks[16];
    snprintf(cli, sizeof cli, "%s/cli/skylark", top != NULL ? top : ".");
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    snprintf(cmd, sizeof cmd,
             "echo start $SKYLARK_TASK_INDEX $SKYLARK_ATTEMPT $SKYLARK_NODE "
             ">> %s; sleep 0.2; echo end $SKYLARK_TASK_INDEX $SKYLARK_ATTEMPT "
             "$SKYLARK_NODE >> %s",
             ledger, ledger);
    snprintf(tasks, sizeof tasks, "%d", NTASKS);
    char *argv[] = {cli,           "run",
                    "--dir",       (char *)dh_dir(),
                    "--scheduler", sched[0].dp_endpoint,
                    "--scheduler", sched[1].dp_endpoint,
                    "--output",    "-n",
                    tasks,         cmd,
                    NULL};
    dh_proc cr;
    memset(&cr, 0, sizeof cr);
    bool killed = false;
    if (seen && dh_spawn(&cr, "cli-run", argv) == 0) {
        for (int i = 0; i < 3000 && ends_so_far(ledger) < NTASKS / 3; i++)
            usleep(10 * 1000);
        dh_kill(&sched[0]);
        killed = true;
        if (!dh_wait_exit(&cr, 60))
            dh_kill(&cr);
    }
    char summary[80];
    snprintf(summary, sizeof summary, "%d tasks: %d ok, 0 failed", NTASKS,
             NTASKS);
    tap_ok(killed && WIFEXITED(cr.dp_status) &&
               WEXITSTATUS(cr.dp_status) == 0 && dh_log_has(&cr, summary) &&
               dh_log_has(&cr, "moved to another (1 time)"),
           "s1 killed a third of the way: the job moves to s2, %s, exit 0",
           summary);

    /* Let what the node monitors still ran reach its end, then count. */
    sleep(1);
    tally tl;
    read_tally(ledger, cr.dp_log, &tl);
    int reported = 0, twice = 0, ok = 0, executions = 0, ran_twice = 0;
    int completed_twice = 0, never = 0;
    for (int t = 0; t < NTASKS; t++) {
        reported += tl.tl_outcomes[t] == 1;
        twice += tl.tl_outcomes[t] > 1;
        ok += tl.tl_ok[t] == 1;
        executions += tl.tl_starts[t];
        ran_twice += tl.tl_starts[t] > 1;
        completed_twice += tl.tl_ends[t] > 1;
        never += tl.tl_ends[t] == 0;
    }
    tap_ok(reported == NTASKS && twice == 0 && ok == NTASKS && tl.tl_bad == 0,
           "every task's outcome reported once, ok (%d reported twice)", twice);
    tap_ok(never == 0, "every task ran to its end at least once");
    tap_ok(ran_twice <= NNODES * SLOTS,
           "%d executions of %d tasks; %d tasks ran more than once (bound: "
           "one per slot, %d)",
           executions, NTASKS, ran_twice, NNODES * SLOTS);
    tap_ok(completed_twice == 0, "no task completed twice (%d did)",
           completed_twice);

    dh_status st;
    int64_t orphaned = 0, killed_orphans = 0, offered = 0;
    for (int i = 0; i < NNODES; i++) {
        sk_peer_id p = dh_client_connect(tool, nodes[i].dp_endpoint, 5);
        status_of(tool, p, &st);
        orphaned += dh_status_int(&st, "orphaned");
        killed_orphans += dh_status_int(&st, "orphans_killed");
        offered += dh_status_int(&st, "outcomes_offered");
        dh_status_free(&st);
    }
    sk_peer_id p2 = dh_client_connect(tool, sched[1].dp_endpoint, 5);
    status_of(tool, p2, &st);
    int64_t taken = dh_status_int(&st, "offers_taken");
    dh_status_free(&st);
    tap_ok(offered > 0 && taken > 0,
           "the node monitors offered s2 %lld outcomes; %lld became tasks' "
           "outcomes (those s1 never passed on)",
           (long long)offered, (long long)taken);
    tap_diag("node monitors: %lld orphans, %lld killed (orphan_grace_ms 0)",
             (long long)orphaned, (long long)killed_orphans);
    if (tap_failures() > 0)
        dh_log_tail(&cr, 10);
    dh_client_free(tool);
    return tap_exit_status();
}
