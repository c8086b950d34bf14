/*
 * test_dash_kept.c - the dashboard's kept sessions (cli/dash_kept.h)
 * against three real node monitors on loopback whose transport drops a
 * session silent for 0.5 s (heartbeat 0.25 s, 2 misses): the first ask
 * opens a session each and all answer; a second at once reuses them; one
 * after 1 s of silence finds them dropped and redoes each over its
 * connection (downs and ups counted, nothing opened anew) and all
 * answer; with one node monitor killed the others still answer within
 * the timeout and its slot stays empty; asked without it, its session is
 * closed; asked for none, all are. Then dash_share's fallback: a
 * cluster without flowd is gathered from its live node monitors (kept
 * sessions), the killed one not asked. Bounded: about 5 s.
 */
#include "daemon_harness.h"
#include "dash_kept.h"
#include "dash_share.h"
#include "skylark.h"
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NODES 3

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* How many of out[0..n) are node monitor statuses; frees them. */
static unsigned answers(sk_status **out, unsigned n)
{
    unsigned got = 0;
    for (unsigned i = 0; i < n; i++) {
        if (out[i] != NULL && sk_status_get(out[i], "slots_total") != NULL &&
            strcmp(sk_status_role(out[i]), "nodemon") == 0)
            got++;
        sk_status_free(out[i]);
        out[i] = NULL;
    }
    return got;
}

int main(void)
{
    tap_plan(11);
    dh_init();
    dh_set_heartbeat(0.25, 2);
    dh_proc nm[NODES];
    const char *eps[NODES];
    for (int i = 0; i < NODES; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        if (dh_start_nodemon(&nm[i], name, i + 1, 1, NULL, 0, NULL) != 0)
            tap_bail_out("node monitor %s did not start", name);
        eps[i] = nm[i].dp_endpoint;
    }
    dash_kept *k;
    if (dash_kept_create(NULL, &k) != 0)
        tap_bail_out("dash_kept_create failed");
    sk_status *out[NODES] = {0};
    dash_kept_stats st;

    unsigned asked = dash_kept_ask(k, eps, NODES, 5.0, out);
    dash_kept_stats_get(k, &st);
    tap_ok(asked == NODES && answers(out, NODES) == NODES &&
               st.ks_opened == NODES && st.ks_ups == NODES,
           "first ask: a session opened to each, all answer (opened %llu, "
           "up %llu)",
           (unsigned long long)st.ks_opened, (unsigned long long)st.ks_ups);

    dash_kept_ask(k, eps, NODES, 5.0, out);
    dash_kept_stats_get(k, &st);
    tap_ok(answers(out, NODES) == NODES && st.ks_opened == NODES &&
               st.ks_ups == NODES && st.ks_downs == 0,
           "asked again at once: the same sessions answer");

    /* Past the node monitors' 0.5 s bound for a silent session. */
    usleep(1000000);
    dash_kept_ask(k, eps, NODES, 5.0, out);
    dash_kept_stats_get(k, &st);
    tap_ok(answers(out, NODES) == NODES,
           "after 1 s of silence every node monitor answers again");
    tap_ok(st.ks_opened == NODES && st.ks_downs == NODES &&
               st.ks_ups == 2 * NODES,
           "each dropped session was redone over its connection (opened "
           "%llu, down %llu, up %llu)",
           (unsigned long long)st.ks_opened, (unsigned long long)st.ks_downs,
           (unsigned long long)st.ks_ups);

    dh_kill(&nm[NODES - 1]);
    double t0 = mono_s();
    dash_kept_ask(k, eps, NODES, 1.0, out);
    double took = mono_s() - t0;
    bool last_empty = out[NODES - 1] == NULL;
    tap_ok(answers(out, NODES) == NODES - 1 && last_empty,
           "one node monitor killed: the others answer, its answer is empty");
    tap_ok(took < 2.0, "and the ask ends by its timeout (%.2f s)", took);

    dash_kept_ask(k, eps, NODES - 1, 5.0, out);
    dash_kept_stats_get(k, &st);
    tap_ok(answers(out, NODES - 1) == NODES - 1 && st.ks_closed == 1,
           "asked without it: its session is closed, the others answer");

    unsigned none = dash_kept_ask(k, eps, 0, 1.0, out);
    dash_kept_stats_get(k, &st);
    tap_ok(none == 0 && st.ks_closed == NODES && st.ks_opened == NODES,
           "asked for none: every session is closed, none opened");

    /* dash_share without a flowd in the cluster: no flowd to ask, so the
     * node monitors are, the dead one left out. */
    static skc_cluster cl;
    for (int i = 0; i < NODES; i++) {
        skc_daemon *d = &cl.cc_daemons[i];
        d->cd_kind = SKC_NODEMON;
        snprintf(d->cd_name, sizeof d->cd_name, "n%d", i + 1);
        snprintf(d->cd_endpoint, sizeof d->cd_endpoint, "%s", eps[i]);
        d->cd_pid = nm[i].dp_pid != 0 ? nm[i].dp_pid : 999999999;
    }
    cl.cc_n = NODES;
    dash_share s;
    tap_ok(dash_share_from_flowd(&cl, 1.0, &s) == -1,
           "no flowd in the cluster: flowd's sums are not there");
    int rc = dash_share_gather(&cl, k, 5.0, 2.0, 2, &s);
    tap_ok(rc == 0 && strcmp(s.ds_source, "nodemons") == 0 &&
               s.ds_nodemons == NODES && s.ds_asked == NODES - 1 &&
               s.ds_answered == NODES - 1 && s.ds_kept == NODES - 1,
           "the fallback asks the live node monitors over kept sessions "
           "(%u of %u answered)",
           rc == 0 ? s.ds_answered : 0, NODES);
    if (rc == 0)
        dash_share_free(&s);
    dash_kept_destroy(k);

    /* The survivors are fine after all that. */
    int alive = 0;
    for (int i = 0; i < NODES - 1; i++)
        alive += kill(nm[i].dp_pid, 0) == 0;
    tap_ok(alive == NODES - 1, "the other node monitors still run");
    for (int i = 0; i < NODES - 1; i++)
        dh_kill(&nm[i]);
    tap_done();
    return tap_exit_status();
}
