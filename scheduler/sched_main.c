/*
 * sched_main.c - skylark-sched: the scheduler daemon, a thin shell
 * (sk_daemon) around the scheduler core (sched_core.h). It listens for
 * node monitors and frontends; see docs/DAEMONS.md.
 */
#include "sched_core.h"
#include "sched_metrics.h"
#include "sk_daemon.h"
#include "sk_daemon_opts.h"
#include "sk_log.h"
#include "skylark.h"

#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG           "skylark-sched"
#define DEFAULT_LISTEN "tcp://127.0.0.1:7070"
#define NKEYS          (SCHED_CONFIG_NKEYS + SK_DAEMON_NKEYS + 1) /* flowd */

/* Adapters from the shell's void * core to the scheduler core. */
static void core_up(void *c, sk_peer p, const sk_hello *h, sk_time now)
{
    sched_peer_up(c, p, h, now);
}

static int core_cred(void *c, sk_peer p, const char *user, int admin)
{
    return sched_peer_cred(c, p, user, admin);
}

static void core_down(void *c, sk_peer p, sk_time now)
{
    sched_peer_down(c, p, now);
}

static void core_msg(void *c, sk_peer p, const sk_msg *m, sk_time now)
{
    sched_on_message(c, p, m, now);
}

static void core_timer(void *c, sk_time now)
{
    sched_on_timer(c, now);
}

static sk_time core_deadline(const void *c)
{
    return sched_next_deadline(c);
}

static sk_outbox *core_outbox(void *c)
{
    return sched_outbox(c);
}

/* Inputs the core dropped as invalid for their sender or state. Stale
 * or crossing messages (a GET_TASK after its cancel, a result of an old
 * attempt) are normal in a distributed system and not counted here. */
static uint64_t bad_input(void *arg)
{
    const sched_stats *st = sched_stats_get(arg);
    return st->ss_bad_type + st->ss_bad_peer + st->ss_bad_field +
           st->ss_bad_state;
}

static void metrics(void *arg, sk_metrics_out *o)
{
    sched_metrics(arg, o);
}

static const sk_daemon_option OPTIONS[] = {
    {"listen", "ENDPOINT", "sched", "listen",
     "endpoint to listen on (default " DEFAULT_LISTEN ")"},
    {"name", "NAME", "sched", "name", "this scheduler's name (default sched)"},
    {"id", "N", "sched", "id", "this scheduler's id (default 0)"},
    {"flowd", "ENDPOINT", "sched", "flowd",
     "the flow node to take the cluster directory from (default: none)"},
    {"metrics-listen", "HOST:PORT", "sched", "metrics_listen",
     "serve Prometheus metrics at http://HOST:PORT/metrics (default: off)"},
    {"log-level", "LEVEL", "sched", "log_level",
     "debug, info, warn, error or off (default info)"},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    sk_log_set_component("sched");

    sched_config cfg;
    sched_config_init(&cfg);
    sk_daemon_settings ds;
    sk_daemon_settings_init(&ds, DEFAULT_LISTEN, SK_MAX_MSG_BYTES);
    sk_config_key keys[NKEYS];
    sched_config_keys(&cfg, keys);
    sk_daemon_settings_keys(&ds, "sched", keys + SCHED_CONFIG_NKEYS);
    /* Connecting to flowd: it answers our HELLO with its own and sends
     * MEMBERSHIP, which the core applies (sched_core.h). */
    char flowd[SK_MAX_ADDR_LEN + 1] = "";
    keys[NKEYS - 1] = (sk_config_key){"sched",
                                      "flowd",
                                      SK_CONFIG_CUSTOM,
                                      flowd,
                                      0,
                                      0,
                                      0,
                                      sk_daemon_parse_endpoint,
                                      "the flow node (skylark-flowd) to "
                                      "connect to for the cluster directory; "
                                      "none by default"};

    sk_daemon_cli cli = {
        PROG,
        "The Skylark scheduler: batch sampling with late binding for short "
        "jobs.",
        OPTIONS,
        sizeof OPTIONS / sizeof OPTIONS[0],
        keys,
        NKEYS,
    };
    int rc = sk_daemon_parse_args(&cli, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : 2;

    char err[512];
    sk_transport_config tc;
    sk_metrics_config mc;
    uint8_t token[SK_METRICS_TOKEN_BYTES];
    if (sched_config_check(&cfg, err, sizeof err) != 0 ||
        sk_daemon_transport_config(&ds, "sched", cfg.sc_name, &tc, err,
                                   sizeof err) != 0 ||
        sk_daemon_metrics_config(&ds, &tc, &mc, token, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 2;
    }
    sk_log_set_level(ds.ds_log_level);
    /* Users' frontends and tools may come with a token (docs/SECURITY.md);
     * every other role takes the cluster key. */
    snprintf(tc.tc_token_roles, sizeof tc.tc_token_roles, "frontend tool");

    sched_core *core;
    rc = sched_new(&cfg, sk_daemon_seed(&ds), &core);
    if (rc != 0) {
        sk_error("cannot create the scheduler core: %s", sk_strerror(rc));
        return rc == SK_ECONFIG ? 2 : 1;
    }
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    if (loop == NULL) {
        sk_error("cannot create the event loop");
        sched_free(core);
        return 1;
    }

    const char *connect[1] = {flowd};
    sk_daemon_config dc = {
        .dc_transport = tc,
        .dc_listen = ds.ds_listen,
        .dc_connect = connect,
        .dc_nconnect = flowd[0] != '\0' ? 1 : 0,
        .dc_hello =
            {
                .he_role = SK_ROLE_SCHEDULER,
                .he_id = (uint32_t)cfg.sc_id,
                .he_incarnation = sk_daemon_now(),
                .he_name = cfg.sc_name,
                .he_framework = "",
            },
        .dc_metrics = mc,
    };
    sk_daemon_core dcore = {core,       core_up,       core_down,  core_msg,
                            core_timer, core_deadline, core_outbox};
    sk_daemon *d;
    sk_daemon_hooks hooks = {
        .dh_bad_input = bad_input, .dh_metrics = metrics, .dh_arg = core};
    rc = sk_daemon_create(loop, &dc, &dcore, &hooks, &d);
    if (rc != 0) {
        sched_free(core);
        ev_loop_destroy(loop);
        return 1;
    }
    sk_daemon_on_cred(d, core_cred);
    sk_info("%s %s: scheduler %s (id %lld) ready: probe ratio %g, %lld "
            "attempts, flowd %s",
            PROG, sk_version(), cfg.sc_name, (long long)cfg.sc_id,
            cfg.sc_probe_ratio, (long long)cfg.sc_max_attempts,
            flowd[0] != '\0' ? flowd : "none");
    sk_daemon_run(d);
    sk_daemon_destroy(d);
    sched_free(core);
    ev_loop_destroy(loop);
    sk_info("stopped");
    return 0;
}
