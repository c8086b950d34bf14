/*
 * test_netns_partition.c - a real partition: a scheduler on host a
 * (listening on 0.0.0.0), node monitors on hosts b, c and e, the test on
 * host d (tests/netns.h), a 1 s heartbeat bound. While a job of 6 s tasks
 * runs, host b's link goes down for longer than the bound, then up. The
 * scheduler must declare b down, b must register again, and the job must
 * end with exactly one outcome per task, every task ok.
 *
 * Tasks append "start|end TASK ATTEMPT NODE" to a ledger, so the test
 * counts executions: the attempts b ran when it was cut off are retried
 * elsewhere, so executions of more than one attempt are expected for
 * those tasks only. b's node monitor keeps them as orphans (with a grace
 * of 10 s, longer than the partition) and, when its session is back,
 * announces them to the scheduler, which fences them (KILL_TASK: it gave
 * them up): no task may run to its end twice (docs/FAULTS.md).
 */
#include "daemon_harness.h"
#include "netns.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SUBNET     2
#define SCHED_PORT 7070
#define NODE_PORT  7071
#define NNODES     3
#define SLOTS      2
#define NTASKS     6   /* = NNODES x SLOTS: every task starts at once */
#define TASK_S     "6" /* b is back about 3.6 s after the cut */

static nh_host *ha, *hd, *hn[NNODES];
static dh_proc sched, nodes[NNODES];
static const char *const names[NNODES] = {"b", "c", "e"};
static char key[600], ledger[600];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the ledger says of one task. */
typedef struct runs {
    int rn_starts, rn_ends;
    int rn_on_b;       /* starts on b */
    char rn_what[200]; /* "a0@b a1@c ...", for the diagnostics */
} runs;

/* Reads the ledger into r[NTASKS]; returns the lines it could not read. */
static int read_ledger(runs r[NTASKS])
{
    memset(r, 0, sizeof(runs) * NTASKS);
    FILE *f = fopen(ledger, "r");
    if (f == NULL)
        return -1;
    char what[16], node[64];
    unsigned task, attempt;
    int bad = 0;
    while (fscanf(f, "%15s %u %u %63s", what, &task, &attempt, node) == 4) {
        if (task >= NTASKS) {
            bad++;
            continue;
        }
        runs *t = &r[task];
        size_t n = strlen(t->rn_what);
        if (strcmp(what, "start") == 0) {
            t->rn_starts++;
            t->rn_on_b += strcmp(node, "b") == 0;
            snprintf(t->rn_what + n, sizeof t->rn_what - n, " a%u@%s", attempt,
                     node);
        } else if (strcmp(what, "end") == 0) {
            t->rn_ends++;
            snprintf(t->rn_what + n, sizeof t->rn_what - n, " a%u@%s:end",
                     attempt, node);
        } else {
            bad++;
        }
    }
    fclose(f);
    return bad;
}

static void start_cluster(void)
{
    const char *keyed[] = {"--key-file", key, NULL};
    const char *node_extra[] = {"--key-file", key, "--set",
                                "nodemon.orphan_grace_ms=10000", NULL};
    if (nh_start_sched(ha, &sched, "a", 1, "tcp://0.0.0.0:7070", keyed) != 0)
        tap_bail_out("the scheduler on host a did not start");
    char sched_ep[40], ep[40];
    const char *scheds[] = {
        nh_endpoint(ha, SCHED_PORT, sched_ep, sizeof sched_ep)};
    for (int i = 0; i < NNODES; i++)
        if (nh_start_nodemon(hn[i], &nodes[i], names[i], i + 2, SLOTS,
                             nh_endpoint(hn[i], NODE_PORT, ep, sizeof ep),
                             scheds, 1, node_extra) != 0)
            tap_bail_out("node monitor %s did not start", names[i]);
}

static int64_t status_of(dh_client *c, sk_peer_id peer, const char *k)
{
    dh_status st;
    dh_client_status(c, peer, false, &st, 2);
    int64_t v = st.st_ok ? dh_status_int(&st, k) : -1;
    dh_status_free(&st);
    return v;
}

int main(void)
{
    tap_timeout(60);
    nh_init(SUBNET);
    dh_init();
    /* A node silent for 1 s is down: short, with room for a busy machine. */
    dh_set_heartbeat(0.2, 5);
    const char *top = getenv("top_builddir");
    char cmd[2000];
    snprintf(key, sizeof key, "%s/cluster.key", dh_dir());
    snprintf(cmd, sizeof cmd, "'%s/cli/skylark' key new '%s' >/dev/null",
             top ? top : ".", key);
    if (system(cmd) != 0)
        tap_bail_out("skylark key new failed");
    dh_set_key_file(key);
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    ha = nh_host_add("a");
    hd = nh_host_add("d");
    for (int i = 0; i < NNODES; i++)
        hn[i] = nh_host_add(names[i]);
    nh_enter(hd);
    tap_plan(11);
    start_cluster();

    dh_client *fe = dh_client_new("frontend", "fe");
    char ep[40];
    sk_peer_id sp =
        dh_client_connect(fe, nh_endpoint(ha, SCHED_PORT, ep, sizeof ep), 5);
    sk_peer_id bp =
        dh_client_connect(fe, nh_endpoint(hn[0], NODE_PORT, ep, sizeof ep), 5);
    dh_client_hello(fe, sp, SK_ROLE_FRONTEND);
    int64_t n = -1;
    bool up = sp != 0 && dh_wait_status(fe, sp, "nodes", NNODES, 10, &n);
    tap_ok(up, "the scheduler on host a has %lld node monitors", (long long)n);
    char want[80];
    snprintf(want, sizeof want, "name a, 0 slots, at tcp://%s:%d)", ha->nh_addr,
             SCHED_PORT);
    tap_ok(dh_log_has(&nodes[0], want) && dh_log_has(&nodes[2], want),
           "the scheduler, on 0.0.0.0, advertises tcp://%s:%d", ha->nh_addr,
           SCHED_PORT);

    snprintf(cmd, sizeof cmd,
             "echo start $SKYLARK_TASK_INDEX $SKYLARK_ATTEMPT $SKYLARK_NODE "
             ">> %s; sleep " TASK_S "; echo end $SKYLARK_TASK_INDEX "
             "$SKYLARK_ATTEMPT $SKYLARK_NODE >> %s",
             ledger, ledger);
    dh_job *j = dh_client_submit(fe, sp, 1, NTASKS, cmd, "alice", 3);
    int64_t on_b = 0;
    for (double end = now_s() + 10; on_b < 1 && now_s() < end;) {
        dh_client_run_for(fe, 0.02);
        on_b = status_of(fe, bp, "running");
    }
    dh_client_run_for(fe, 0.1); /* the others start too */
    runs before[NTASKS];
    read_ledger(before);
    int ran_on_b = 0;
    for (int t = 0; t < NTASKS; t++)
        ran_on_b += before[t].rn_on_b;

    /* The partition: longer than the bound, shorter than a task. */
    double t0 = now_s();
    bool cut = j != NULL && on_b >= 1 && nh_link(hn[0], false) == 0;
    tap_ok(cut, "host b runs %lld tasks: its link goes down", (long long)on_b);
    bool down = cut && dh_wait_status(fe, sp, "nodes", NNODES - 1, 5, &n);
    double t_down = now_s() - t0;
    tap_ok(down, "the scheduler declares b down after %.2f s (bound 1 s)",
           t_down);
    if (now_s() - t0 < 2.0)
        dh_client_run_for(fe, 2.0 - (now_s() - t0)); /* down 2 s in all */
    double t1 = now_s();
    bool back = nh_link(hn[0], true) == 0 &&
                dh_wait_status(fe, sp, "nodes", NNODES, 10, &n);
    double t_back = now_s() - t1;
    tap_ok(back, "link up after %.2f s: b registers again %.2f s later",
           t1 - t0, t_back);

    bool done = j != NULL && dh_job_wait_done(fe, j, 30);
    tap_ok(done, "the job ends (%.1f s after the cut)", now_s() - t0);
    uint32_t once = 0, ok = 0, retried = 0;
    for (uint32_t t = 0; j != NULL && t < NTASKS; t++) {
        once += j->jb_finished[t] == 1;
        ok += j->jb_status[t] == SK_TASK_OK;
        retried += j->jb_attempt[t] > 0;
    }
    tap_is_int(once, NTASKS, "every task has exactly one outcome");
    tap_is_int(ok, NTASKS, "every task ended ok (%u on a later attempt)",
               retried);

    /* Let the attempts b kept running reach their end, then count. */
    dh_client_run_for(fe, 0.5);
    runs r[NTASKS];
    int bad = read_ledger(r);
    int twice = 0, twice_off_b = 0, completed_twice = 0, never = 0;
    for (int t = 0; t < NTASKS; t++) {
        tap_diag("task %d:%s; outcome %s attempt %u", t, r[t].rn_what,
                 j != NULL && j->jb_status[t] == SK_TASK_OK ? "ok" : "not ok",
                 j != NULL ? j->jb_attempt[t] : 0);
        twice += r[t].rn_starts > 1;
        twice_off_b += r[t].rn_starts > 1 && before[t].rn_on_b == 0;
        completed_twice += r[t].rn_ends > 1;
        never += r[t].rn_ends == 0;
    }
    tap_ok(bad == 0 && never == 0 && twice_off_b == 0,
           "every task ran to its end; %d ran more than one attempt, all "
           "of them among the %d running on b when it was cut off",
           twice, ran_on_b);
    tap_ok(completed_twice == 0,
           "no task completed twice (%d did): b's given-up attempts were "
           "fenced when it came back",
           completed_twice);
    dh_status st;
    dh_client_status(fe, sp, false, &st, 2);
    tap_ok(dh_status_int(&st, "tasks_ok") == NTASKS &&
               dh_status_int(&st, "tasks_in_flight") == 0,
           "the scheduler counts %lld ok, %lld in flight, %lld retried, "
           "%lld fenced, %lld bad inputs",
           (long long)dh_status_int(&st, "tasks_ok"),
           (long long)dh_status_int(&st, "tasks_in_flight"),
           (long long)dh_status_int(&st, "tasks_retried"),
           (long long)dh_status_int(&st, "fenced"),
           (long long)dh_status_int(&st, "bad_input"));
    dh_status_free(&st);
    dh_client_status(fe, bp, false, &st, 2);
    tap_diag("node monitor b after the job: finished %lld, stale_finished "
             "%lld, results_dropped %lld, lost %lld, running %lld, orphaned "
             "%lld, reclaimed %lld, orphans killed %lld",
             (long long)dh_status_int(&st, "finished"),
             (long long)dh_status_int(&st, "stale_finished"),
             (long long)dh_status_int(&st, "results_dropped"),
             (long long)dh_status_int(&st, "lost"),
             (long long)dh_status_int(&st, "running"),
             (long long)dh_status_int(&st, "orphaned"),
             (long long)dh_status_int(&st, "orphans_reclaimed"),
             (long long)dh_status_int(&st, "orphans_killed"));
    dh_status_free(&st);
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 30);
        dh_log_tail(&nodes[0], 20);
    }
    dh_client_free(fe);
    return tap_exit_status();
}
