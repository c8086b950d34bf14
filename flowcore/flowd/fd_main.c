/*
 * fd_main.c - skylark-flowd: the flow node daemon, a thin shell
 * (sk_daemon) around the flow node core (fd_core.h). It listens for node
 * monitors and schedulers (they connect to it and speak first; the shell
 * answers each HELLO with ours, role FLOWD) and for `skylark status`.
 *
 * Rounds run off the event loop. When fd_round_begin hands a round out
 * (from the shell's dh_pump hook, after every input and timer), the
 * round's graph goes to one worker thread, made at start and reused,
 * which runs fc_solve on it and wakes the loop with an ev_async; the
 * loop thread then calls fd_round_end in dh_pump (through
 * sk_daemon_pump). Meanwhile the loop keeps feeding the core heartbeats,
 * submissions and status requests: the core takes them while a round is
 * out (fd_core.h, "Threading"). The worker touches nothing but the
 * round's graph and the hand-over slot below, under its mutex.
 *
 * SIGTERM and SIGINT stop the loop at once; a solve still out is
 * cancelled (fc_cancel) and the worker joined before the core is freed.
 * See docs/DAEMONS.md.
 */
#include "fd_core.h"
#include "fd_metrics.h"
#include "sk_daemon.h"
#include "sk_daemon_opts.h"
#include "sk_log.h"
#include "skylark.h"

#include <ev.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG           "skylark-flowd"
#define DEFAULT_LISTEN "tcp://127.0.0.1:7080"
#define NKEYS          (FD_CONFIG_NKEYS + SK_DAEMON_NKEYS)

/* The solver thread and what it hands over. Fields marked (mu) are read
 * and written under sv_mu only. */
typedef struct fd_solver {
    pthread_t sv_thread;
    pthread_mutex_t sv_mu;
    pthread_cond_t sv_cv;
    fd_round *sv_job;        /* (mu) a round to solve, or NULL */
    bool sv_done;            /* (mu) sv_rc and sv_stats are the result */
    bool sv_quit;            /* (mu) the thread should return */
    int sv_rc;               /* (mu) fc_solve's result */
    fc_solve_stats sv_st;    /* (mu) and its statistics */
    fc_cancel *sv_cancel;    /* watched by every solve */
    struct ev_loop *sv_loop; /* the daemon's loop */
    ev_async sv_async;       /* the worker's "done" to the loop */
} fd_solver;

/* The daemon. */
typedef struct fd_daemon {
    fd_core *fdd_core;
    sk_daemon *fdd_shell;
    struct ev_loop *fdd_loop;
    fd_solver fdd_sv;
    bool fdd_thread;         /* sv_thread was started */
    fd_round *fdd_out;       /* the round out (loop thread's view), or NULL */
    bool fdd_stopping;       /* a signal came: start no more rounds */
    uint64_t fdd_solves;     /* rounds handed to the worker */
    uint64_t fdd_failed;     /* fd_round_begin failures */
    double fdd_solve_max;    /* longest solve, ms */
    uint64_t fdd_resets;     /* sessions of nodes written off, reset */
    fd_round_metrics fdd_rm; /* what /metrics shows of the rounds */
    uint8_t *fdd_was_node;   /* by peer reference: registered as a node
                                this session (so a written-off node is told
                                from one whose HELLO was refused) */
    uint32_t fdd_nwas;       /* its length */
    /* this process's own stalls (on_wake) */
    ev_check fdd_wake;  /* after every poll, before any other callback */
    ev_tstamp fdd_last; /* when the loop last woke, 0: never */
    ev_tstamp fdd_hb;   /* the transport's heartbeat: the loop wakes at
                           least this often */
    sk_time fdd_stall;  /* a stall to tell the core, or 0 */
} fd_daemon;

/* ---- adapters from the shell's void * core (the daemon) to fd_core ---- */

/* Marks (or clears) peer p as registered as a node this session. */
static void mark_node(fd_daemon *fdd, sk_peer p, uint8_t on)
{
    if (p >= fdd->fdd_nwas) {
        if (!on)
            return;
        uint32_t n = fdd->fdd_nwas == 0 ? 64 : fdd->fdd_nwas;
        while (n <= p && n < UINT32_MAX / 2)
            n *= 2;
        if (n <= p)
            return;
        uint8_t *w = realloc(fdd->fdd_was_node, n);
        if (w == NULL)
            return; /* only the re-registration of this node is lost */
        memset(w + fdd->fdd_nwas, 0, n - fdd->fdd_nwas);
        fdd->fdd_was_node = w;
        fdd->fdd_nwas = n;
    }
    fdd->fdd_was_node[p] = on;
}

static void core_up(void *arg, sk_peer p, const sk_hello *h, sk_time now)
{
    fd_daemon *fdd = arg;
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_HELLO;
    m.m_hello = *h;
    fd_core_on_msg(fdd->fdd_core, now, p, &m);
    if (fd_core_node_long(fdd->fdd_core, p) >= 0)
        mark_node(fdd, p, 1);
}

static void core_down(void *arg, sk_peer p, sk_time now)
{
    fd_daemon *fdd = arg;
    mark_node(fdd, p, 0);
    if (sk_daemon_down_goodbye(fdd->fdd_shell))
        fd_core_peer_left(fdd->fdd_core, now, p);
    else
        fd_core_peer_down(fdd->fdd_core, now, p);
}

/* A HEARTBEAT from a peer that registered as a node this session and is
 * no live node now: the core wrote it off (silent for node_timeout_ms:
 * paused, overloaded, cut off) while its session lived on. Its heartbeats
 * would be refused for as long as the session lasts, as a node monitor
 * says HELLO once per session: reset the session instead, so that it
 * registers again. (A node whose HELLO the core refused is not marked:
 * resetting it would only repeat the refusal every heartbeat.) */
static void core_msg(void *arg, sk_peer p, const sk_msg *m, sk_time now)
{
    fd_daemon *fdd = arg;
    if (m->m_type == SK_MSG_HEARTBEAT && p < fdd->fdd_nwas &&
        fdd->fdd_was_node[p] && fd_core_node_long(fdd->fdd_core, p) < 0 &&
        sk_daemon_reset_peer(fdd->fdd_shell, p) == 0) {
        mark_node(fdd, p, 0);
        if (++fdd->fdd_resets % 1024 == 1)
            sk_info("a HEARTBEAT from a node that is down: its session is "
                    "reset, so that it registers again; %" PRIu64 " so far",
                    fdd->fdd_resets);
        return;
    }
    fd_core_on_msg(fdd->fdd_core, now, p, m);
}

static void core_timer(void *arg, sk_time now)
{
    fd_daemon *fdd = arg;
    fd_core_on_timer(fdd->fdd_core, now);
}

static sk_time core_deadline(const void *arg)
{
    const fd_daemon *fdd = arg;
    return fd_core_next_deadline(fdd->fdd_core);
}

static sk_outbox *core_outbox(void *arg)
{
    fd_daemon *fdd = arg;
    return fd_core_outbox(fdd->fdd_core);
}

/* Inputs the core dropped as not valid for their sender or state. */
static uint64_t bad_input(void *arg)
{
    const fd_daemon *fdd = arg;
    const fd_stats *st = fd_core_stats(fdd->fdd_core);
    return st->fs_bad_type + st->fs_bad_peer + st->fs_bad_field;
}

/* ---- the solver thread ----------------------------------------------- */

static void *solver_main(void *arg)
{
    fd_solver *sv = arg;
    pthread_mutex_lock(&sv->sv_mu);
    for (;;) {
        while (sv->sv_job == NULL && !sv->sv_quit)
            pthread_cond_wait(&sv->sv_cv, &sv->sv_mu);
        if (sv->sv_quit)
            break;
        fd_round *r = sv->sv_job;
        pthread_mutex_unlock(&sv->sv_mu);

        fc_solve_options opt;
        fc_solve_options_init(&opt);
        opt.so_algorithm = r->rd_algorithm;
        opt.so_incremental = r->rd_incremental;
        opt.so_relax_budget = r->rd_relax_budget;
        opt.so_cancel = sv->sv_cancel;
        fc_solve_stats st;
        memset(&st, 0, sizeof st);
        int rc = fc_solve(r->rd_graph, &opt, &st);

        pthread_mutex_lock(&sv->sv_mu);
        sv->sv_job = NULL;
        sv->sv_rc = rc;
        sv->sv_st = st;
        sv->sv_done = true;
        /* ev_async_send may be called from any thread (libev). */
        ev_async_send(sv->sv_loop, &sv->sv_async);
    }
    pthread_mutex_unlock(&sv->sv_mu);
    return NULL;
}

/* The worker finished a solve: let the shell pump (dh_pump ends it). */
static void on_solved(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)loop;
    (void)revents;
    fd_daemon *fdd = w->data;
    sk_daemon_pump(fdd->fdd_shell);
}

/* Starts the worker with every signal blocked, so that SIGTERM and SIGINT
 * reach the loop thread's watchers. Returns 0 or SK_ESYS. */
static int solver_start(fd_daemon *fdd)
{
    fd_solver *sv = &fdd->fdd_sv;
    if (fc_cancel_new(&sv->sv_cancel) != 0)
        return SK_ENOMEM;
    pthread_mutex_init(&sv->sv_mu, NULL);
    pthread_cond_init(&sv->sv_cv, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&sv->sv_thread, NULL, solver_main, sv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return SK_ESYS;
    fdd->fdd_thread = true;
    return 0;
}

/* Cancels a solve that is out, stops the worker and joins it. */
static void solver_stop(fd_daemon *fdd)
{
    fd_solver *sv = &fdd->fdd_sv;
    if (fdd->fdd_thread) {
        fc_cancel_set(sv->sv_cancel, true);
        pthread_mutex_lock(&sv->sv_mu);
        sv->sv_quit = true;
        pthread_cond_signal(&sv->sv_cv);
        pthread_mutex_unlock(&sv->sv_mu);
        pthread_join(sv->sv_thread, NULL);
        fdd->fdd_thread = false;
    }
    fc_cancel_free(sv->sv_cancel);
    sv->sv_cancel = NULL;
}

/* ---- rounds, from the shell's pump -------------------------------------- */

/* Ends the round out if its solve is done, else starts one if due.
 * Returns 1 when it called into the core (the shell then sends the
 * outbox and calls again), 0 when there is nothing to do. Loop thread. */
static int on_pump(void *arg)
{
    fd_daemon *fdd = arg;
    fd_solver *sv = &fdd->fdd_sv;
    if (fdd->fdd_stall > 0) {
        fd_core_stalled(fdd->fdd_core, sk_daemon_now(), fdd->fdd_stall);
        fdd->fdd_stall = 0;
        return 1;
    }
    if (fdd->fdd_out != NULL) {
        pthread_mutex_lock(&sv->sv_mu);
        bool done = sv->sv_done;
        int rc = sv->sv_rc;
        fc_solve_stats st = sv->sv_st;
        sv->sv_done = false;
        pthread_mutex_unlock(&sv->sv_mu);
        if (!done)
            return 0;
        fd_round *r = fdd->fdd_out;
        fdd->fdd_out = NULL;
        if (st.ss_seconds * 1000.0 > fdd->fdd_solve_max)
            fdd->fdd_solve_max = st.ss_seconds * 1000.0;
        int erc = fd_round_end(fdd->fdd_core, sk_daemon_now(), r, rc, &st);
        fd_round_metrics_observe(&fdd->fdd_rm, &st,
                                 fd_core_stats(fdd->fdd_core));
        if (erc != 0)
            sk_warn("round %" PRIu64 ": cannot read its placements: %s",
                    r->rd_seq, sk_strerror(erc));
        return 1;
    }
    if (fdd->fdd_stopping)
        return 0;
    fd_round *r;
    int rc = fd_round_begin(fdd->fdd_core, sk_daemon_now(), &r);
    if (rc == SK_EAGAIN || rc == SK_ESTATE)
        return 0;
    if (rc != 0) {
        /* The core rebuilds its network at the next try (fd_core.h). */
        if (++fdd->fdd_failed % 1024 == 1)
            sk_warn("cannot start a round: %s; %" PRIu64 " so far",
                    sk_strerror(rc), fdd->fdd_failed);
        return 0;
    }
    fdd->fdd_out = r;
    fdd->fdd_solves++;
    pthread_mutex_lock(&sv->sv_mu);
    sv->sv_job = r;
    pthread_cond_signal(&sv->sv_cv);
    pthread_mutex_unlock(&sv->sv_mu);
    return 1;
}

static void on_signal(void *arg, int signum)
{
    fd_daemon *fdd = arg;
    (void)signum;
    fdd->fdd_stopping = true;
    if (fdd->fdd_out != NULL)
        fc_cancel_set(fdd->fdd_sv.sv_cancel, true);
    sk_daemon_stop(fdd->fdd_shell);
}

static void on_status(void *arg, sk_daemon *d)
{
    fd_daemon *fdd = arg;
    sk_daemon_status_add(d, "flowd.solving", "%s",
                         fdd->fdd_out != NULL ? "yes" : "no");
    sk_daemon_status_add(d, "flowd.solves", "%" PRIu64, fdd->fdd_solves);
    sk_daemon_status_add(d, "flowd.solve_max_ms", "%.3f", fdd->fdd_solve_max);
    sk_daemon_status_add(d, "flowd.round_start_failed", "%" PRIu64,
                         fdd->fdd_failed);
    sk_daemon_status_add(d, "flowd.node_resets", "%" PRIu64, fdd->fdd_resets);
}

static void metrics(void *arg, sk_metrics_out *o)
{
    fd_daemon *fdd = arg;
    fd_metrics(fdd->fdd_core, &fdd->fdd_rm, o);
}

/* ---- configuration and main ------------------------------------------- */

/* The loop woke (after its poll, before any other callback: highest
 * priority). The transport's timer wakes it every heartbeat, so a longer
 * sleep than two is this process's stall (SIGSTOP, starved): the core
 * hears it before the transport times its peers out for it. */
static void on_wake(struct ev_loop *loop, ev_check *w, int revents)
{
    (void)revents;
    fd_daemon *fdd = w->data;
    ev_tstamp now = ev_now(loop);
    if (fdd->fdd_last > 0 && now - fdd->fdd_last > 2 * fdd->fdd_hb &&
        fdd->fdd_shell != NULL) {
        fdd->fdd_stall = (sk_time)((now - fdd->fdd_last - fdd->fdd_hb) * 1e6);
        sk_daemon_pump(fdd->fdd_shell);
    }
    fdd->fdd_last = now;
}

static const sk_daemon_option OPTIONS[] = {
    {"listen", "ENDPOINT", "flowd", "listen",
     "endpoint to listen on, for node monitors, schedulers and status "
     "(default " DEFAULT_LISTEN ")"},
    {"name", "NAME", "flowd", "name", "this flow node's name (default flowd)"},
    {"algorithm", "ALG", "flowd", "algorithm",
     "ssp, cost-scaling, relax or race (default race)"},
    {"policy", "POLICY", "flowd", "policy",
     "quincy, spread or multires (default quincy)"},
    {"metrics-listen", "HOST:PORT", "flowd", "metrics_listen",
     "serve Prometheus metrics at http://HOST:PORT/metrics (default: off)"},
    {"log-level", "LEVEL", "flowd", "log_level",
     "debug, info, warn, error or off (default info)"},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    sk_log_set_component("flowd");

    fd_config cfg;
    fd_config_init(&cfg);
    sk_daemon_settings ds;
    sk_daemon_settings_init(&ds, DEFAULT_LISTEN, SK_MAX_MSG_BYTES);
    sk_config_key keys[NKEYS];
    size_t n = fd_config_keys(&cfg, "flowd", keys);
    n += sk_daemon_settings_keys(&ds, "flowd", keys + n);
    SK_ASSERT(n == NKEYS);

    sk_daemon_cli cli = {
        PROG,
        "The Skylark flow node: places long tasks by min-cost flow and keeps "
        "the cluster directory.",
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
    if (fd_config_check(&cfg, err, sizeof err) != 0 ||
        sk_daemon_transport_config(&ds, "flowd", cfg.fdc_name, &tc, err,
                                   sizeof err) != 0 ||
        sk_daemon_metrics_config(&ds, &tc, &mc, token, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 2;
    }
    sk_log_set_level(ds.ds_log_level);

    fd_daemon fdd;
    memset(&fdd, 0, sizeof fdd);
    fd_round_metrics_init(&fdd.fdd_rm);
    /* A new epoch at every start (fd_core.h, "Restart"): the start time
     * in seconds, 1..2^31-1 until 2038. */
    sk_time now = sk_daemon_now();
    uint64_t epoch = (uint64_t)(now / 1000000u) & 0x7fffffffu;
    rc = fd_core_new(&cfg, epoch != 0 ? epoch : 1, now, &fdd.fdd_core, err,
                     sizeof err);
    if (rc != 0) {
        sk_error("cannot create the flow node core: %s", err);
        return rc == SK_ECONFIG ? 2 : 1;
    }
    int status = 1;
    fdd.fdd_loop = ev_loop_new(EVFLAG_AUTO);
    if (fdd.fdd_loop == NULL) {
        sk_error("cannot create the event loop");
        goto out_core;
    }
    fdd.fdd_sv.sv_loop = fdd.fdd_loop;
    ev_async_init(&fdd.fdd_sv.sv_async, on_solved);
    fdd.fdd_sv.sv_async.data = &fdd;
    ev_async_start(fdd.fdd_loop, &fdd.fdd_sv.sv_async);
    if ((rc = solver_start(&fdd)) != 0) {
        sk_error("cannot start the solver thread: %s", sk_strerror(rc));
        goto out_solver;
    }

    const char *addrs[1] = {ds.ds_listen};
    sk_daemon_config dc = {
        .dc_transport = tc,
        .dc_listen = ds.ds_listen,
        .dc_hello =
            {
                .he_role = SK_ROLE_FLOWD,
                .he_incarnation = now,
                .he_name = cfg.fdc_name,
                .he_addrs = addrs,
                .he_naddrs = 1,
                .he_framework = "",
            },
        .dc_metrics = mc,
    };
    sk_daemon_core dcore = {&fdd,       core_up,       core_down,  core_msg,
                            core_timer, core_deadline, core_outbox};
    sk_daemon_hooks hooks = {.dh_pump = on_pump,
                             .dh_status = on_status,
                             .dh_bad_input = bad_input,
                             .dh_metrics = metrics,
                             .dh_signal = on_signal,
                             .dh_arg = &fdd};
    rc = sk_daemon_create(fdd.fdd_loop, &dc, &dcore, &hooks, &fdd.fdd_shell);
    if (rc != 0)
        goto out_solver;
    fdd.fdd_hb = tc.tc_heartbeat;
    ev_check_init(&fdd.fdd_wake, on_wake);
    ev_set_priority(&fdd.fdd_wake, EV_MAXPRI);
    fdd.fdd_wake.data = &fdd;
    ev_check_start(fdd.fdd_loop, &fdd.fdd_wake);
    sk_info("%s %s: flow node %s ready: policy %s, algorithm %s, rounds "
            "after %lld ms, node timeout %lld ms, epoch %" PRIu64,
            PROG, sk_version(), cfg.fdc_name, cfg.fdc_policy,
            fc_algorithm_name(cfg.fdc_algorithm), (long long)cfg.fdc_round_ms,
            (long long)cfg.fdc_node_timeout_ms, epoch);
    sk_daemon_run(fdd.fdd_shell);
    if (fdd.fdd_out != NULL)
        sk_info("round %" PRIu64 " cancelled: its solve was still out",
                fdd.fdd_out->rd_seq);
    ev_check_stop(fdd.fdd_loop, &fdd.fdd_wake);
    sk_daemon_destroy(fdd.fdd_shell);
    status = 0;
out_solver:
    solver_stop(&fdd);
    ev_async_stop(fdd.fdd_loop, &fdd.fdd_sv.sv_async);
    ev_loop_destroy(fdd.fdd_loop);
out_core:
    /* The worker has returned: a round still out is abandoned. What the
     * core said last to peers that are gone goes nowhere. */
    sk_outbox_clear(fd_core_outbox(fdd.fdd_core));
    fd_core_free(fdd.fdd_core);
    free(fdd.fdd_was_node);
    if (status == 0)
        sk_info("stopped");
    return status;
}
