/*
 * test_dash_kept.c - the dashboard's kept sessions (cli/dash_kept.h)
 * against three real node monitors on loopback whose transport drops a
 * session silent for 0.5 s (heartbeat 0.25 s, 2 misses): the first ask
 * opens a session each and all answer; a second at once reuses them; one
 * after 1 s of silence finds them dropped and redoes each over its
 * connection (downs and ups counted, nothing opened anew) and all
 * answer; with one node monitor killed the others still answer within
 * the timeout and its slot stays empty; asked without it, its session is
 * closed; asked for none, all are. Bounded: about 5 s.
 */
#include "daemon_harness.h"
#include "dash_kept.h"
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
    tap_plan(9);
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
