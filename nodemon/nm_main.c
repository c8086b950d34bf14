/*
 * nm_main.c - skylark-nodemon: the node monitor daemon, a thin shell
 * (sk_daemon) around the node monitor core (nm_core.h) and its built-in
 * command executor (nm_cmdexec.h). It connects to every scheduler it is
 * given and listens for executors and status requests; see
 * docs/DAEMONS.md.
 */
#include "nm_cmdexec.h"
#include "nm_core.h"
#include "nm_metrics.h"
#include "sk_daemon.h"
#include "sk_daemon_opts.h"
#include "sk_log.h"
#include "skylark.h"

#include <ctype.h>
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG           "skylark-nodemon"
#define DEFAULT_LISTEN "tcp://127.0.0.1:7071"
#define DEFAULT_SCHED  "tcp://127.0.0.1:7070"
#define MAX_SCHEDULERS 64
#define NOWN                                                                   \
    8 /* schedulers, flowd, labels, rack, shell,                               \
         kill_grace_ms, journal, keeper */
#define NKEYS                                                                  \
    (NM_CONFIG_NKEYS + NM_ACCOUNT_NKEYS + NM_CGROUP_NKEYS + SK_DAEMON_NKEYS +  \
     NOWN)

/* The daemon: the core, its command executor and the shell. */
typedef struct nm_daemon {
    nm_core *nd_core;
    nm_cmdexec *nd_cmd;
    nm_cgroup *nd_cgroup;   /* NULL without [cmdexec] cgroup */
    nm_journal *nd_journal; /* NULL without [cmdexec] journal */
    sk_daemon *nd_shell;
    struct ev_loop *nd_loop;
    ev_timer nd_grace;    /* shutdown: SIGKILL what SIGTERM left */
    int nd_stopping;      /* a signal asked us to stop */
    uint32_t nd_nsched;   /* schedulers we connect to */
    const char *nd_flowd; /* the flow node we connect to, or "" */
    uint64_t nd_ignored;  /* launches refused while stopping */
} nm_daemon;

/* Adapters from the shell's void * core to the node monitor core. */
static void core_up(void *c, sk_peer p, const sk_hello *h, sk_time now)
{
    nm_peer_up(c, p, h, now);
}

static void core_down(void *c, sk_peer p, sk_time now)
{
    nm_peer_down(c, p, now);
}

static void core_msg(void *c, sk_peer p, const sk_msg *m, sk_time now)
{
    nm_on_message(c, p, m, now);
}

static void core_timer(void *c, sk_time now)
{
    nm_on_timer(c, now);
}

static sk_time core_deadline(const void *c)
{
    return nm_next_deadline(c);
}

static sk_outbox *core_outbox(void *c)
{
    return nm_outbox(c);
}

/* ---- the command executor between the core and the shell -------------- */

/* LAUNCH_TASK and KILL_TASK the core sends to NM_PEER_COMMAND. */
static void on_local(void *arg, const sk_msg *msg)
{
    nm_daemon *nd = arg;
    if (msg->m_type == SK_MSG_LAUNCH_TASK) {
        /* Stopping: the node's tasks are being killed and the schedulers
         * will count this one lost when we leave. */
        if (nd->nd_stopping)
            nd->nd_ignored++;
        else {
            const sk_launch *lt = &msg->m_launch;
            nm_origin o;
            int known = nm_task_origin(nd->nd_core, lt->lt_job, lt->lt_task,
                                       lt->lt_attempt, &o) == 0;
            nm_cmdexec_launch(nd->nd_cmd, lt, known ? &o : NULL,
                              sk_daemon_now());
        }
    } else if (msg->m_type == SK_MSG_KILL_TASK) {
        nm_cmdexec_kill(nd->nd_cmd, &msg->m_kill_task);
    }
}

/* Feeds the core one result of the command executor. */
static int on_pump(void *arg)
{
    nm_daemon *nd = arg;
    sk_msg m;
    memset(&m, 0, sizeof m);
    if (!nm_cmdexec_next(nd->nd_cmd, &m.m_task_finished))
        return 0;
    if (nd->nd_stopping)
        return 1; /* results of tasks we kill on the way out: dropped */
    m.m_type = SK_MSG_TASK_FINISHED;
    nm_on_message(nd->nd_core, NM_PEER_COMMAND, &m, sk_daemon_now());
    return 1;
}

static void maybe_stop(nm_daemon *nd)
{
    if (nd->nd_stopping && nm_cmdexec_stats_get(nd->nd_cmd)->cs_running == 0)
        sk_daemon_stop(nd->nd_shell);
}

/* A task ended (from the executor's SIGCHLD watcher). */
static void on_cmd_ready(void *arg)
{
    nm_daemon *nd = arg;
    sk_daemon_pump(nd->nd_shell);
    maybe_stop(nd);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    nm_daemon *nd = w->data;
    sk_warn("tasks still running after the grace period: killing them");
    nm_cmdexec_signal_all(nd->nd_cmd, SIGKILL);
    sk_daemon_stop(nd->nd_shell);
}

/* SIGTERM/SIGINT: SIGTERM to every task, leave when they are gone or the
 * grace is over; a second signal kills them at once. */
static void on_signal(void *arg, int signum)
{
    nm_daemon *nd = arg;
    (void)signum;
    if (nd->nd_stopping) {
        nm_cmdexec_signal_all(nd->nd_cmd, SIGKILL);
        sk_daemon_stop(nd->nd_shell);
        return;
    }
    nd->nd_stopping = 1;
    const nm_cmdexec_stats *cs = nm_cmdexec_stats_get(nd->nd_cmd);
    if (cs->cs_running > 0) {
        sk_info("stopping %u running tasks", cs->cs_running);
        nm_cmdexec_signal_all(nd->nd_cmd, SIGTERM);
        ev_timer_start(nd->nd_loop, &nd->nd_grace);
    }
    maybe_stop(nd);
}

static void on_status(void *arg, sk_daemon *d)
{
    nm_daemon *nd = arg;
    const nm_cmdexec_stats *cs = nm_cmdexec_stats_get(nd->nd_cmd);
    sk_daemon_status_add(d, "nodemon.schedulers", "%u", nd->nd_nsched);
    sk_daemon_status_add(d, "nodemon.flowd", "%s", nd->nd_flowd);
    sk_daemon_status_add(d, "cmdexec.running", "%u", cs->cs_running);
    sk_daemon_status_add(d, "cmdexec.started", "%llu",
                         (unsigned long long)cs->cs_started);
    sk_daemon_status_add(d, "cmdexec.ok", "%llu",
                         (unsigned long long)cs->cs_ok);
    sk_daemon_status_add(d, "cmdexec.failed", "%llu",
                         (unsigned long long)cs->cs_failed);
    sk_daemon_status_add(d, "cmdexec.killed", "%llu",
                         (unsigned long long)cs->cs_killed);
    sk_daemon_status_add(d, "cmdexec.bad_spec", "%llu",
                         (unsigned long long)cs->cs_bad_spec);
    sk_daemon_status_add(d, "cmdexec.busy", "%llu",
                         (unsigned long long)cs->cs_busy);
    sk_daemon_status_add(d, "cmdexec.duplicate", "%llu",
                         (unsigned long long)cs->cs_duplicate);
    sk_daemon_status_add(d, "cmdexec.spawn_failed", "%llu",
                         (unsigned long long)cs->cs_spawn_failed);
    sk_daemon_status_add(d, "cmdexec.no_account", "%llu",
                         (unsigned long long)cs->cs_no_account);
    sk_daemon_status_add(d, "cmdexec.kills", "%llu",
                         (unsigned long long)cs->cs_kills);
    sk_daemon_status_add(d, "cmdexec.kill_unknown", "%llu",
                         (unsigned long long)cs->cs_kill_unknown);
    sk_daemon_status_add(d, "cmdexec.stray", "%llu",
                         (unsigned long long)cs->cs_stray);
    sk_daemon_status_add(d, "cmdexec.guard_lost", "%llu",
                         (unsigned long long)cs->cs_guard_lost);
    sk_daemon_status_add(d, "cmdexec.output_bytes", "%llu",
                         (unsigned long long)cs->cs_output_bytes);
    sk_daemon_status_add(d, "cmdexec.oom", "%llu",
                         (unsigned long long)cs->cs_oom);
    if (nd->nd_journal != NULL) {
        const nm_journal_stats *js = nm_journal_stats_get(nd->nd_journal);
        sk_daemon_status_add(d, "journal.written", "%llu",
                             (unsigned long long)js->js_written);
        sk_daemon_status_add(d, "journal.write_failed", "%llu",
                             (unsigned long long)js->js_write_failed);
        sk_daemon_status_add(d, "journal.recovered", "%llu",
                             (unsigned long long)js->js_recovered);
        sk_daemon_status_add(d, "journal.unfinished", "%llu",
                             (unsigned long long)js->js_unfinished);
        sk_daemon_status_add(d, "journal.signaled", "%llu",
                             (unsigned long long)js->js_signaled);
        sk_daemon_status_add(d, "journal.bad", "%llu",
                             (unsigned long long)js->js_bad);
    }
    if (nd->nd_cgroup == NULL)
        return;
    const nm_cgroup_stats *gs = nm_cgroup_stats_get(nd->nd_cgroup);
    sk_daemon_status_add(d, "cgroup.created", "%llu",
                         (unsigned long long)gs->gs_created);
    sk_daemon_status_add(d, "cgroup.removed", "%llu",
                         (unsigned long long)gs->gs_removed);
    sk_daemon_status_add(d, "cgroup.failed", "%llu",
                         (unsigned long long)gs->gs_failed);
    sk_daemon_status_add(d, "cgroup.leaked", "%llu",
                         (unsigned long long)gs->gs_leaked);
    sk_daemon_status_add(d, "cgroup.busy", "%u", gs->gs_busy);
}

static void metrics(void *arg, sk_metrics_out *o)
{
    nm_daemon *nd = arg;
    nm_metrics(nd->nd_core, nm_cmdexec_stats_get(nd->nd_cmd), o);
}

/* A task's end read back from the journal: the core keeps and offers it. */
static void on_recovered(void *arg, const nm_journal_entry *e)
{
    nm_daemon *nd = arg;
    nm_outcome_recovered(nd->nd_core, &e->je_origin, e->je_code,
                         e->je_launch_us, e->je_end_us, sk_daemon_now());
}

/* ---- configuration ------------------------------------------------------ */

static const sk_daemon_option OPTIONS[] = {
    {"listen", "ENDPOINT", "nodemon", "listen",
     "endpoint to listen on, for executors and status (default " DEFAULT_LISTEN
     ")"},
    {"scheduler", "ENDPOINT", "nodemon", "schedulers",
     "a scheduler to serve (repeatable; default " DEFAULT_SCHED ")"},
    {"flowd", "ENDPOINT", "nodemon", "flowd",
     "the flow node to register with and heartbeat (default: none)"},
    {"name", "NAME", "nodemon", "node",
     "this node's name (default: host name)"},
    {"id", "N", "nodemon", "node_id", "this node's id (default 0)"},
    {"slots", "N", "nodemon", "slots", "task slots (default: cores)"},
    {"cpu-milli", "N", "nodemon", "cpu_milli",
     "CPU offered, millicores (default 1000 per slot)"},
    {"mem-mb", "N", "nodemon", "mem_mb",
     "memory offered, MiB (default 1024 per slot)"},
    {"label", "LABEL", "nodemon", "labels", "a node label (repeatable)"},
    {"rack", "NAME", "nodemon", "rack",
     "this node's rack, for the flow node (default: none)"},
    {"weight", "USER=W", "weights", NULL,
     "fair-share weight of a user (repeatable; default 1)"},
    {"metrics-listen", "HOST:PORT", "nodemon", "metrics_listen",
     "serve Prometheus metrics at http://HOST:PORT/metrics (default: off)"},
    {"log-level", "LEVEL", "nodemon", "log_level",
     "debug, info, warn, error or off (default info)"},
};

/* The host name as a node name: the characters a transport name allows. */
static void default_node_name(char *buf, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        snprintf(host, sizeof host, "node");
    size_t n = 0;
    for (const char *p = host;
         *p != '\0' && n < SK_TRANSPORT_MAX_NAME && n + 1 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        buf[n++] =
            isalnum(ch) || ch == '.' || ch == '_' || ch == ':' || ch == '-'
                ? (char)ch
                : '-';
    }
    buf[n] = '\0';
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    sk_log_set_component("nodemon");

    long ncores = sysconf(_SC_NPROCESSORS_ONLN);
    nm_config cfg;
    nm_config_init(&cfg, ncores > 0 ? (uint32_t)ncores : 1);
    static nm_weights weights;         /* static: 16 KiB, read once */
    static nm_account_config accounts; /* static: 19 KiB, read once */
    default_node_name(cfg.nc_node, sizeof cfg.nc_node);
    /* 0: not set, scaled with the slots below. */
    cfg.nc_cpu_milli = 0;
    cfg.nc_mem_mb = 0;
    sk_daemon_settings ds;
    sk_daemon_settings_init(&ds, DEFAULT_LISTEN, 1u << 20);
    nm_cmdexec_config cx;
    nm_cmdexec_config_init(&cx);
    sk_strlist scheds = {NULL, 0, MAX_SCHEDULERS, SK_MAX_ADDR_LEN, 1};
    sk_strlist labels = {NULL, 0, SK_MAX_LABELS, SK_MAX_LABEL_LEN, 0};
    char flowd[SK_MAX_ADDR_LEN + 1] = "";
    char rack[SK_MAX_NAME_LEN + 1] = "";
    nm_accounts *acct = NULL; /* resolved [accounts], when root */
    nm_cgroup_config cgc;
    nm_cgroup_config_init(&cgc);
    nm_cgroup *cgroup = NULL; /* [cmdexec] cgroup, when configured */
    char journal_dir[4096] = "";
    char keeper[sizeof cx.cx_keeper] = "";
    nm_journal *journal = NULL;

    sk_config_key keys[NKEYS];
    size_t n = nm_config_keys(&cfg, &weights, keys);
    n += nm_account_keys(&accounts, keys + n);
    n += nm_cgroup_keys(&cgc, keys + n);
    n += sk_daemon_settings_keys(&ds, "nodemon", keys + n);
    keys[n++] = (sk_config_key){"nodemon",
                                "schedulers",
                                SK_CONFIG_CUSTOM,
                                &scheds,
                                0,
                                0,
                                0,
                                sk_strlist_parse,
                                "schedulers to serve, comma-separated (each "
                                "value adds; the command line replaces)"};
    keys[n++] = (sk_config_key){"nodemon",
                                "flowd",
                                SK_CONFIG_CUSTOM,
                                flowd,
                                0,
                                0,
                                0,
                                sk_daemon_parse_endpoint,
                                "the flow node (skylark-flowd) to register "
                                "with and send HEARTBEAT; none by default"};
    keys[n++] = (sk_config_key){"nodemon",
                                "labels",
                                SK_CONFIG_CUSTOM,
                                &labels,
                                0,
                                0,
                                0,
                                sk_strlist_parse,
                                "node labels, comma-separated (each value "
                                "adds; the command line replaces)"};
    keys[n++] = (sk_config_key){"nodemon",
                                "rack",
                                SK_CONFIG_STRING,
                                rack,
                                sizeof rack,
                                0,
                                0,
                                NULL,
                                "this node's rack, for the flow node's "
                                "placement (HELLO he_rack); none by default"};
    keys[n++] = (sk_config_key){"cmdexec",
                                "shell",
                                SK_CONFIG_STRING,
                                cx.cx_shell,
                                sizeof cx.cx_shell,
                                0,
                                0,
                                NULL,
                                "shell that runs command tasks (SHELL -c "
                                "COMMAND)"};
    keys[n++] = (sk_config_key){"cmdexec",
                                "kill_grace_ms",
                                SK_CONFIG_INT,
                                &cx.cx_kill_grace_ms,
                                0,
                                0,
                                3600000,
                                NULL,
                                "SIGTERM to SIGKILL when a task is killed"};
    keys[n++] = (sk_config_key){"cmdexec",
                                "journal",
                                SK_CONFIG_STRING,
                                journal_dir,
                                sizeof journal_dir,
                                0,
                                0,
                                NULL,
                                "directory of the command tasks' journal, "
                                "read back at start (none by default)"};
    keys[n++] = (sk_config_key){"cmdexec",
                                "keeper",
                                SK_CONFIG_STRING,
                                keeper,
                                sizeof keeper,
                                0,
                                0,
                                NULL,
                                "the task keeper program the journal needs "
                                "(default: skylark-keeper beside this one, "
                                "else the installed one)"};
    SK_ASSERT(n == NKEYS);

    sk_daemon_cli cli = {
        PROG,    "The Skylark node monitor: queues reservations, runs tasks.",
        OPTIONS, sizeof OPTIONS / sizeof OPTIONS[0],
        keys,    NKEYS,
    };
    int rc = sk_daemon_parse_args(&cli, argc, argv);
    int status = 2;
    if (rc != 0) {
        status = rc == 1 ? 0 : 2;
        goto out_lists;
    }
    if (cfg.nc_cpu_milli == 0)
        cfg.nc_cpu_milli = 1000 * cfg.nc_slots;
    if (cfg.nc_mem_mb == 0)
        cfg.nc_mem_mb = 1024 * cfg.nc_slots;
    if (scheds.sl_count == 0 &&
        sk_strlist_parse(&scheds, "schedulers", DEFAULT_SCHED, NULL, 0) != 0)
        goto out_lists;

    char err[512];
    sk_transport_config tc;
    sk_metrics_config mc;
    uint8_t token[SK_METRICS_TOKEN_BYTES];
    if (nm_config_check(&cfg, err, sizeof err) != 0 ||
        sk_daemon_transport_config(&ds, "nodemon", cfg.nc_node, &tc, err,
                                   sizeof err) != 0 ||
        sk_daemon_metrics_config(&ds, &tc, &mc, token, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        goto out_lists;
    }
    /* Executors may hold an executor token instead of the cluster key
     * (`skylark user token FRAMEWORK --executor`); it admits nothing
     * else, and user tokens are admitted for nothing here. */
    snprintf(tc.tc_token_roles, sizeof tc.tc_token_roles, "executor");
    if (rack[0] != '\0' && !sk_rack_valid(rack)) {
        fprintf(stderr,
                "%s: [nodemon] rack: must be 1 to %u bytes of graphic ASCII "
                "(no space, no control byte), got '%s'\n",
                PROG, SK_MAX_NAME_LEN, rack);
        goto out_lists;
    }
    if (cx.cx_shell[0] != '/') {
        fprintf(stderr,
                "%s: [cmdexec] shell: must be an absolute path, got "
                "'%s'\n",
                PROG, cx.cx_shell);
        goto out_lists;
    }
    sk_log_set_level(ds.ds_log_level);
    /* Accounts matter only to root: anyone else cannot switch, and runs
     * every task as itself, as always. */
    if (geteuid() == 0) {
        if (nm_accounts_resolve(&accounts, &acct, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", PROG, err);
            goto out_lists;
        }
        cx.cx_accounts = acct;
        if (!nm_account_configured(&accounts))
            sk_warn(accounts.ac_allow_root
                        ? "running as root with allow_root and no account: "
                          "every command task runs as root"
                        : "running as root with no [accounts] and no "
                          "default_account: every command task is refused");
    } else if (nm_account_configured(&accounts)) {
        sk_warn("not running as root: [accounts] and default_account are "
                "ignored, every task runs as uid %u",
                (unsigned)geteuid());
    }
    cx.cx_max_children = (uint32_t)cfg.nc_slots;
    snprintf(cx.cx_node, sizeof cx.cx_node, "%s", cfg.nc_node);
    if (cgc.cg_parent[0] != '\0') {
        /* Tasks whose last processes linger after a kill wait for their
         * cgroup's removal: a few per slot is plenty. */
        if (nm_cgroup_open(&cgc, cfg.nc_node, 4 * cx.cx_max_children + 16,
                           &cgroup, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", PROG, err);
            goto out_lists;
        }
        char line[768];
        nm_cgroup_describe(cgroup, line, sizeof line);
        sk_info("%s", line);
        cx.cx_cgroup = cgroup;
    }
    if (journal_dir[0] != '\0' &&
        (nm_journal_keeper(keeper, cx.cx_keeper, sizeof cx.cx_keeper, err,
                           sizeof err) != 0 ||
         nm_journal_open(journal_dir, NM_JOURNAL_LINGER_MS,
                         4 * cx.cx_max_children + (uint32_t)cfg.nc_max_outcomes,
                         &journal, err, sizeof err) != 0)) {
        fprintf(stderr, "%s: [cmdexec] journal: %s\n", PROG, err);
        goto out_lists;
    }
    cx.cx_journal = journal;

    status = 1;
    nm_daemon nd;
    memset(&nd, 0, sizeof nd);
    nd.nd_nsched = scheds.sl_count;
    nd.nd_flowd = flowd;
    nd.nd_cgroup = cgroup;
    nd.nd_journal = journal;
    rc = nm_new(&cfg, &weights, sk_daemon_seed(&ds), &nd.nd_core);
    if (rc != 0) {
        sk_error("cannot create the node monitor core: %s", sk_strerror(rc));
        goto out_lists;
    }
    /* The ends an earlier node monitor on this journal left: offered to
     * the schedulers as they register (docs/FAULTS.md, "The journal"). */
    if (journal != NULL) {
        nm_journal_recover(journal, NM_JOURNAL_KEEPER_WAIT_MS, on_recovered,
                           &nd);
        const nm_journal_stats *js = nm_journal_stats_get(journal);
        /* Records left mean the last node monitor did not stop
         * cleanly: worth a warning. */
        if (js->js_recovered + js->js_unfinished + js->js_signaled +
                js->js_bad >
            0)
            sk_warn("journal %s: %llu task ends recovered, %llu tasks "
                    "without an end, %llu ended by a signal, %llu files "
                    "refused",
                    journal_dir, (unsigned long long)js->js_recovered,
                    (unsigned long long)js->js_unfinished,
                    (unsigned long long)js->js_signaled,
                    (unsigned long long)js->js_bad);
    }
    nd.nd_loop = ev_loop_new(EVFLAG_AUTO);
    if (nd.nd_loop == NULL) {
        sk_error("cannot create the event loop");
        goto out_core;
    }
    ev_timer_init(&nd.nd_grace, on_grace, (double)cx.cx_kill_grace_ms / 1000.0,
                  0);
    nd.nd_grace.data = &nd;
    rc = nm_cmdexec_create(nd.nd_loop, &cx, on_cmd_ready, &nd, &nd.nd_cmd);
    if (rc != 0) {
        sk_error("cannot create the command executor: %s", sk_strerror(rc));
        goto out_loop;
    }

    /* The schedulers, then flowd: the side that connects speaks first, so
     * flowd answers our HELLO and the core starts its heartbeats. */
    const char *connect[MAX_SCHEDULERS + 1];
    uint32_t nconnect = 0;
    for (uint32_t i = 0; i < scheds.sl_count; i++)
        connect[nconnect++] = scheds.sl_items[i];
    if (flowd[0] != '\0')
        connect[nconnect++] = flowd;
    sk_daemon_config dc = {
        .dc_transport = tc,
        .dc_listen = ds.ds_listen,
        .dc_connect = connect,
        .dc_nconnect = nconnect,
        .dc_hello =
            {
                .he_role = SK_ROLE_NODEMON,
                .he_id = (uint32_t)cfg.nc_node_id,
                .he_incarnation = sk_daemon_now(),
                .he_name = cfg.nc_node,
                .he_slots = (uint32_t)cfg.nc_slots,
                .he_res = {(uint32_t)cfg.nc_cpu_milli, (uint32_t)cfg.nc_mem_mb},
                .he_labels = (const char **)labels.sl_items,
                .he_nlabels = labels.sl_count,
                .he_framework = "",
                .he_rack = rack,
            },
        .dc_local = NM_PEER_COMMAND,
        .dc_metrics = mc,
    };
    sk_daemon_core dcore = {nd.nd_core, core_up,       core_down,  core_msg,
                            core_timer, core_deadline, core_outbox};
    sk_daemon_hooks hooks = {.dh_local = on_local,
                             .dh_pump = on_pump,
                             .dh_status = on_status,
                             .dh_metrics = metrics,
                             .dh_signal = on_signal,
                             .dh_arg = &nd};
    rc = sk_daemon_create(nd.nd_loop, &dc, &dcore, &hooks, &nd.nd_shell);
    if (rc != 0)
        goto out_cmd;
    sk_info("%s %s: node %s (id %lld) ready: %lld slots, %lld millicores, "
            "%lld MiB, %u schedulers, flowd %s, rack %s",
            PROG, sk_version(), cfg.nc_node, (long long)cfg.nc_node_id,
            (long long)cfg.nc_slots, (long long)cfg.nc_cpu_milli,
            (long long)cfg.nc_mem_mb, scheds.sl_count,
            flowd[0] != '\0' ? flowd : "none", rack[0] != '\0' ? rack : "none");
    sk_daemon_run(nd.nd_shell);
    ev_timer_stop(nd.nd_loop, &nd.nd_grace);
    sk_daemon_destroy(nd.nd_shell);
    status = 0;
out_cmd:
    /* Kills (SIGKILL) the process group of any task still running. */
    nm_cmdexec_destroy(nd.nd_cmd);
out_loop:
    ev_loop_destroy(nd.nd_loop);
out_core:
    nm_free(nd.nd_core);
    if (status == 0)
        sk_info("stopped");
out_lists:
    nm_journal_close(journal);
    nm_cgroup_close(cgroup);
    nm_accounts_free(acct);
    sk_strlist_free(&scheds);
    sk_strlist_free(&labels);
    return status;
}
