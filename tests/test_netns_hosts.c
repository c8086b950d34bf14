/*
 * test_netns_hosts.c - daemons on separate hosts (network namespaces,
 * tests/netns.h), reached over a bridge: a scheduler on host a, node
 * monitors on hosts b (listening on its address) and c (listening on
 * 0.0.0.0), the test and `skylark run` on host d, all with a cluster key.
 * Checks that every daemon advertises in its HELLO an address the other
 * hosts reach (no hidden 127.0.0.1 or 0.0.0.0: the logs and
 * daemon.advertised), that a node monitor given 127.0.0.1 for its
 * scheduler on another host never registers (each host has its own
 * loopback), and that a job from host d runs on b and c, each task in its
 * node's namespace.
 */
#include "daemon_harness.h"
#include "netns.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUBNET     1
#define SCHED_PORT 7070
#define NODE_PORT  7071
#define NTASKS     8

static nh_host *ha, *hb, *hc, *hd, *he;
static dh_proc sched, nb, nc, ne;
static char skylark[1024], key[600];

/* Whether any "registered" line of p's log holds a loopback or wildcard
 * address; the line goes to bad. */
static bool hidden_address(const dh_proc *p, char *bad, size_t len)
{
    FILE *f = fopen(p->dp_log, "r");
    if (f == NULL)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL)
        if ((strstr(line, "INFO: nodemon ") != NULL ||
             strstr(line, "INFO: sched ") != NULL) &&
            strstr(line, " registered (") != NULL &&
            (strstr(line, "127.") != NULL || strstr(line, "0.0.0.0") != NULL ||
             strstr(line, "at none)") != NULL)) {
            found = true;
            line[strcspn(line, "\n")] = '\0';
            snprintf(bad, len, "%s", line);
        }
    fclose(f);
    return found;
}

/* The daemon.advertised of peer, asked from host d. */
static void check_advertised(dh_client *c, sk_peer_id peer, const char *want,
                             const char *who)
{
    dh_status st;
    memset(&st, 0, sizeof st);
    if (peer != 0)
        dh_client_status(c, peer, false, &st, 3);
    const char *got = st.st_ok ? dh_status_str(&st, "daemon.advertised") : NULL;
    tap_is_str(got != NULL ? got : "(no answer)", want,
               "%s advertises %s in its status", who, want);
    dh_status_free(&st);
}

static void make_key(void)
{
    const char *top = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", top ? top : ".");
    snprintf(key, sizeof key, "%s/cluster.key", dh_dir());
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' key new '%s' >/dev/null", skylark, key);
    if (system(cmd) != 0)
        tap_bail_out("skylark key new %s failed", key);
    dh_set_key_file(key);
}

static void start_cluster(void)
{
    char sched_ep[40], ep[40];
    const char *keyed[] = {"--key-file", key, NULL};
    nh_endpoint(ha, SCHED_PORT, sched_ep, sizeof sched_ep);
    if (nh_start_sched(ha, &sched, "a", 1, sched_ep, keyed) != 0)
        tap_bail_out("the scheduler on host a did not start");
    const char *scheds[] = {sched_ep};
    if (nh_start_nodemon(hb, &nb, "b", 2, 2,
                         nh_endpoint(hb, NODE_PORT, ep, sizeof ep), scheds, 1,
                         keyed) != 0 ||
        nh_start_nodemon(hc, &nc, "c", 3, 2, "tcp://0.0.0.0:7071", scheds, 1,
                         keyed) != 0)
        tap_bail_out("the node monitors on hosts b and c did not start");
    /* A configuration mistake this test must see fail: 127.0.0.1 on host
     * e is e's own loopback, where no scheduler listens. */
    const char *wrong[] = {"tcp://127.0.0.1:7070"};
    if (nh_start_nodemon(he, &ne, "e", 4, 2,
                         nh_endpoint(he, NODE_PORT, ep, sizeof ep), wrong, 1,
                         keyed) != 0)
        tap_bail_out("the node monitor on host e did not start");
}

static void check_registration(dh_client *fe, sk_peer_id sp)
{
    int64_t nodes = -1;
    bool two = sp != 0 && dh_wait_status(fe, sp, "nodes", 2, 10, &nodes);
    tap_ok(two,
           "from host d, the scheduler on host a has node monitors b and c "
           "(nodes %lld)",
           (long long)nodes);
    char want[200];
    snprintf(want, sizeof want, "name b, 2 slots, at tcp://%s:%d)", hb->nh_addr,
             NODE_PORT);
    tap_ok(dh_log_has(&sched, want),
           "b, listening on its address, advertises it to the scheduler");
    snprintf(want, sizeof want, "name c, 2 slots, at tcp://%s:%d)", hc->nh_addr,
             NODE_PORT);
    tap_ok(dh_log_has(&sched, want),
           "c, listening on 0.0.0.0, advertises its host address %s",
           hc->nh_addr);
    snprintf(want, sizeof want, "name a, 0 slots, at tcp://%s:%d)", ha->nh_addr,
             SCHED_PORT);
    tap_ok(dh_log_has(&nb, want) && dh_log_has(&nc, want),
           "the scheduler advertises tcp://%s:%d to b and c", ha->nh_addr,
           SCHED_PORT);
    const dh_proc *all[] = {&sched, &nb, &nc};
    char bad[4096] = "";
    bool hidden = false;
    for (int i = 0; i < 3 && !hidden; i++)
        hidden = hidden_address(all[i], bad, sizeof bad);
    tap_ok(!hidden, "no daemon hears of a loopback or wildcard address");
    if (hidden)
        tap_diag("%s", bad);

    char ep[40];
    snprintf(want, sizeof want, "tcp://%s:%d", ha->nh_addr, SCHED_PORT);
    check_advertised(fe, sp, want, "the scheduler");
    snprintf(want, sizeof want, "tcp://%s:%d", hc->nh_addr, NODE_PORT);
    check_advertised(
        fe, dh_client_connect(fe, nh_endpoint(hc, NODE_PORT, ep, sizeof ep), 5),
        want, "node monitor c (on 0.0.0.0)");

    /* e has tried its own loopback ten times a second since it started. */
    dh_client_run_for(fe, 0.5);
    dh_status st;
    dh_client_status(fe, sp, false, &st, 3);
    tap_ok(dh_status_int(&st, "nodes") == 2 && !dh_log_has(&ne, "registered"),
           "node monitor e, told 127.0.0.1 for a scheduler on another host, "
           "never registers");
    dh_status_free(&st);
}

/* A job from host d with the real tool; each task writes its index, node
 * and the addresses of the host it runs on. */
static void check_job(dh_client *fe, sk_peer_id sp)
{
    char ledger[600], cmd[4000], sched_ep[40];
    snprintf(ledger, sizeof ledger, "%s/ledger", dh_dir());
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --key-file '%s' -n %d --timeout 30 "
             "-- 'echo $SKYLARK_TASK_INDEX $SKYLARK_NODE $(hostname -I) >> "
             "%s; sleep 0.3' > '%s/run.out' 2>&1",
             skylark, nh_endpoint(ha, SCHED_PORT, sched_ep, sizeof sched_ep),
             key, NTASKS, ledger, dh_dir());
    int rc = nh_system(hd, cmd);
    tap_is_int(rc, 0, "skylark run on host d: a job of %d tasks succeeds",
               NTASKS);
    int seen[NTASKS] = {0}, on_b = 0, on_c = 0, misplaced = 0, lines = 0;
    FILE *f = fopen(ledger, "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        unsigned idx;
        char node[64], addr[64];
        lines++;
        if (sscanf(line, "%u %63s %63s", &idx, node, addr) != 3 ||
            idx >= NTASKS) {
            misplaced++;
            continue;
        }
        seen[idx]++;
        if (strcmp(node, "b") == 0 && strcmp(addr, hb->nh_addr) == 0)
            on_b++;
        else if (strcmp(node, "c") == 0 && strcmp(addr, hc->nh_addr) == 0)
            on_c++;
        else
            misplaced++;
    }
    if (f != NULL)
        fclose(f);
    int once = 0;
    for (int i = 0; i < NTASKS; i++)
        once += seen[i] == 1;
    tap_ok(once == NTASKS && lines == NTASKS, "every task ran once (%d lines)",
           lines);
    tap_ok(on_b > 0 && on_c > 0 && misplaced == 0,
           "tasks ran on host b (%d) and host c (%d), in their namespaces; "
           "%d elsewhere",
           on_b, on_c, misplaced);
    dh_status st;
    dh_client_status(fe, sp, false, &st, 3);
    tap_is_int(dh_status_int(&st, "tasks_ok"), NTASKS,
               "the scheduler counts %d tasks ok", NTASKS);
    dh_status_free(&st);
}

int main(void)
{
    tap_timeout(60);
    nh_init(SUBNET);
    dh_init();
    make_key();
    ha = nh_host_add("a");
    hb = nh_host_add("b");
    hc = nh_host_add("c");
    hd = nh_host_add("d");
    he = nh_host_add("e");
    nh_enter(hd); /* the test's own client runs on host d */
    tap_plan(12);
    start_cluster();
    dh_client *fe = dh_client_new("tool", "test");
    char ep[40];
    sk_peer_id sp =
        dh_client_connect(fe, nh_endpoint(ha, SCHED_PORT, ep, sizeof ep), 5);
    check_registration(fe, sp);
    check_job(fe, sp);
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 20);
        dh_log_tail(&nb, 10);
        dh_log_tail(&nc, 10);
        dh_log_tail(&ne, 10);
    }
    dh_client_free(fe);
    return tap_exit_status();
}
