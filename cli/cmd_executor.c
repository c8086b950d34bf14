/*
 * cmd_executor.c - `skylark executor FRAMEWORK`: a framework executor
 * that runs each task's spec as a shell command. It registers with a node
 * monitor for FRAMEWORK through libskylark (sk_executor) and runs the
 * tasks with the node monitor's own command executor (nm_cmdexec.h):
 * `/bin/sh -c SPEC` in a process group of its own, the output's tail
 * kept, OK or FAILED with the exit status, SIGTERM then SIGKILL to the
 * group on a kill. Its task guard (nm_guard.h) kills the groups still
 * running when this process dies, even of SIGKILL, so that a task whose
 * executor is gone (and which the node monitor reports LOST, to be run
 * again) does not run on and complete twice. With --journal, each task
 * runs under its keeper, which records how it ended (nm_journal.h), and
 * the next process started on the journal reports the ends this one
 * could not (sk_executor_recovered).
 *
 * A command job (`skylark run`) runs on the node monitor itself; this is
 * for jobs submitted with a framework name (`skylark run --framework`),
 * so that their tasks run apart from the node monitor: under another
 * account, from another directory and environment, restarted apart.
 */
#include "cli_common.h"
#include "nm_cmdexec.h"
#include "sk_apiutil.h"
#include "sk_cli.h"
#include "sk_proto.h"
#include "skylark.h"

#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_NODEMON "tcp://127.0.0.1:7071" /* skylark-nodemon's */
#define WHO             "skylark executor"

static void executor_usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark executor [--node-monitor ADDR | --node NAME]\n"
        "                        [--max-tasks N] [--kill-grace S] "
        "[--name NAME]\n"
        "                        [--timeout S] [--dir DIR] [--key-file F]\n"
        "                        [--token-file F] [--journal DIR] "
        "FRAMEWORK\n"
        "\n"
        "Registers with a node monitor as the executor of FRAMEWORK and\n"
        "runs the tasks of jobs submitted for it (skylark run --framework\n"
        "FRAMEWORK) until SIGINT or SIGTERM: each task's spec is a shell\n"
        "command line, run as `/bin/sh -c SPEC` by this process's user in\n"
        "a process group of its own, with SKYLARK_JOB_ID,\n"
        "SKYLARK_TASK_INDEX, SKYLARK_ATTEMPT, SKYLARK_USER and\n"
        "SKYLARK_NODE in its environment. Exit status 0 is OK, any other\n"
        "FAILED; a kill sends SIGTERM to the group, SIGKILL after the\n"
        "grace. When this process dies, however (even of SIGKILL), its\n"
        "tasks are killed with it; when its session with the node monitor\n"
        "ends, it kills them (the node monitor has reported them lost)\n"
        "and registers again when the node monitor is back.\n"
        "\n"
        "  -N, --node-monitor ADDR  the node monitor (default\n"
        "                           " DEFAULT_NODEMON ")\n"
        "  -n, --node NAME          SKYLARK_NODE of the tasks (default: the\n"
        "                           host name); without --node-monitor,\n"
        "                           the local cluster's node monitor NAME\n"
        "  -j, --max-tasks N        tasks at once (1..4096, default 256);\n"
        "                           more fail at once\n"
        "  -g, --kill-grace S       SIGTERM to SIGKILL on a kill (default 3)\n"
        "      --name NAME          the executor's name at the node monitor\n"
        "                           (default: from the host and pid)\n"
        "  -t, --timeout S          wait at most S s for the first\n"
        "                           registration (default 10)\n"
        "  -d, --dir DIR            the local cluster's directory\n"
        "  -K, --key-file F         the cluster key (default:\n"
        "                           $SKYLARK_KEY_FILE, else the local\n"
        "                           cluster's key)\n"
        "  -T, --token-file F       an executor token for FRAMEWORK (from\n"
        "                           skylark user token FRAMEWORK --executor)\n"
        "                           instead of the key\n"
        "      --journal DIR        record how each task ends in DIR (mode\n"
        "                           0700), and report at start the ends an\n"
        "                           earlier process on DIR could not (it\n"
        "                           was killed as they ended)\n"
        "  -h, --help               this text\n"
        "\n"
        "Exit status: 0 stopped by SIGINT or SIGTERM, 1 no node monitor\n"
        "registered it in time (or it could not start), 2 bad usage or\n"
        "input (an address that is not a node monitor's).\n");
}

typedef struct exec_state {
    sk_executor *xs_ex;
    nm_cmdexec *xs_cx;
    struct ev_loop *xs_loop;
    ev_signal xs_int, xs_term;
    int xs_signal;          /* the signal that stopped it, 0 while running */
    uint64_t xs_unreported; /* ends the node monitor had already given up */
    uint64_t xs_recovered;  /* ends read back from the journal, queued */
    uint8_t xs_spec[SK_MAX_SPEC_BYTES + 1]; /* a spec with its final NUL */
} exec_state;

static exec_state xs;

static sk_outcome outcome_of(uint8_t status)
{
    switch (status) {
    case SK_TASK_OK:
        return SK_OUTCOME_OK;
    case SK_TASK_KILLED:
        return SK_OUTCOME_KILLED;
    default:
        return SK_OUTCOME_FAILED;
    }
}

/* Reports every result the command executor has queued. */
static void drain(void *arg)
{
    (void)arg;
    sk_task_finished tf;
    while (nm_cmdexec_next(xs.xs_cx, &tf) == 1) {
        int rc =
            sk_executor_finish(xs.xs_ex, tf.tf_job, tf.tf_task, tf.tf_attempt,
                               outcome_of(tf.tf_status), tf.tf_exit,
                               tf.tf_output.b_data, tf.tf_output.b_len);
        /* SK_ENOTFOUND: the session ended while it ran (the node monitor
         * reported it LOST and this process killed it). */
        if (rc != 0)
            xs.xs_unreported++;
    }
}

/* A spec is a command line, with or without its final NUL (skylark run
 * sends it; a framework in C may pass strlen bytes): the command
 * executor takes it with one, and checks the rest (empty, NUL inside). */
static void on_launch(void *arg, const sk_launch_info *t)
{
    (void)arg;
    uint32_t len = t->li_spec_len;
    if (len > 0 && len <= SK_MAX_SPEC_BYTES &&
        ((const uint8_t *)t->li_spec)[len - 1] != '\0') {
        memcpy(xs.xs_spec, t->li_spec, len);
        xs.xs_spec[len++] = '\0';
    } else if (len > 0 && len <= SK_MAX_SPEC_BYTES) {
        memcpy(xs.xs_spec, t->li_spec, len);
    } else {
        len = 0; /* refused by nm_cmdexec_launch as an empty spec */
    }
    sk_launch lt = {
        .lt_job = t->li_job,
        .lt_task = t->li_task,
        .lt_attempt = t->li_attempt,
        .lt_user = t->li_user,
        .lt_res = {.r_cpu_milli = t->li_cpu_milli, .r_mem_mb = t->li_mem_mb},
        .lt_spec = {xs.xs_spec, len},
    };
    /* A journal's record names the node monitor process the attempt's
     * ids belong to (nm_journal.h). */
    nm_origin o = {.or_sched_inc = sk_executor_node_incarnation(xs.xs_ex)};
    snprintf(o.or_user, sizeof o.or_user, "%s",
             t->li_user != NULL ? t->li_user : "");
    nm_cmdexec_launch(xs.xs_cx, &lt, &o, (sk_time)t->li_launch_us);
    drain(NULL);
}

/* An end an earlier process left in the journal: reported when this one
 * registers with the same node monitor process. */
static void on_recovered(void *arg, const nm_journal_entry *e)
{
    (void)arg;
    if (sk_executor_recovered(
            xs.xs_ex, e->je_origin.or_sched_inc, e->je_job, e->je_task,
            e->je_attempt, e->je_code == 0 ? SK_OUTCOME_OK : SK_OUTCOME_FAILED,
            e->je_code, e->je_launch_us, e->je_end_us) == 0)
        xs.xs_recovered++;
}

static void on_kill(void *arg, sk_job_id job, uint32_t task, uint32_t attempt)
{
    (void)arg;
    sk_kill_task kt = {.kt_job = job, .kt_task = task, .kt_attempt = attempt};
    nm_cmdexec_kill(xs.xs_cx, &kt);
}

static void on_session(void *arg, int up)
{
    const char *nodemon = arg;
    fprintf(stderr, "%s: %s %s\n", WHO,
            up ? "registered with the node monitor at"
               : "lost the node monitor at",
            nodemon);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)revents;
    xs.xs_signal = w->signum;
    sk_executor_stop(xs.xs_ex);
    ev_break(loop, EVBREAK_ALL);
}

/* The endpoint of the local cluster's node monitor name, into buf. */
static int local_nodemon(const char *dir, const char *name, char *buf,
                         size_t len)
{
    skc_cluster *cl = cli_load_cluster(WHO, dir);
    if (cl == NULL)
        return -1;
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        if (d->cd_kind == SKC_NODEMON && strcmp(d->cd_name, name) == 0) {
            snprintf(buf, len, "%s", d->cd_endpoint);
            free(cl);
            return 0;
        }
    }
    fprintf(stderr, "%s: the local cluster in %s has no node monitor '%s'\n",
            WHO, cl->cc_dir, name);
    free(cl);
    return -1;
}

int cmd_executor(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"node-monitor", required_argument, NULL, 'N'},
        {"node", required_argument, NULL, 'n'},
        {"max-tasks", required_argument, NULL, 'j'},
        {"kill-grace", required_argument, NULL, 'g'},
        {"name", required_argument, NULL, 'a'},
        {"token-file", required_argument, NULL, 'T'},
        {"journal", required_argument, NULL, 'J'},
        CLI_CONN_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_conn co = {.co_timeout = 10, .co_timeout_max = 3600};
    const char *nodemon = NULL, *node = NULL, *name = NULL, *journal = NULL;
    unsigned long max_tasks = 256;
    double grace = 3;
    int c;
    optind = 0;
    argv[0] = (char *)WHO;
#define USAGE_ERR(...)                                                         \
    do {                                                                       \
        fprintf(stderr, WHO ": " __VA_ARGS__);                                 \
        fprintf(stderr, "\n(see skylark executor --help)\n");                  \
        return 2;                                                              \
    } while (0)
    while ((c = getopt_long(argc, argv, "+N:n:j:g:t:d:K:T:h", longopts,
                            NULL)) != -1) {
        int took = cli_conn_opt(&co, WHO, c, optarg);
        if (took < 0)
            return 2;
        if (took > 0)
            continue;
        switch (c) {
        case 'N':
            if (cli_check_endpoint(WHO, "--node-monitor", optarg) != 0)
                return 2;
            nodemon = optarg;
            break;
        case 'n':
            if (!sk_name_valid(optarg))
                USAGE_ERR("--node takes a name of 1..63 of [A-Za-z0-9._:-], "
                          "got '%s'",
                          optarg);
            node = optarg;
            break;
        case 'j':
            if (cli_parse_ulong(optarg, 1, 4096, &max_tasks) != 0)
                USAGE_ERR("--max-tasks takes 1..4096, got '%s'", optarg);
            break;
        case 'g':
            if (cli_parse_double(optarg, 0, 3600, &grace) != 0)
                USAGE_ERR("--kill-grace takes 0..3600 seconds, got '%s'",
                          optarg);
            break;
        case 'a':
            if (!sk_name_valid(optarg))
                USAGE_ERR("--name takes 1..63 of [A-Za-z0-9._:-], got '%s'",
                          optarg);
            name = optarg;
            break;
        case 'J':
            journal = optarg;
            break;
        case 'h':
            executor_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark executor --help)\n");
            return 2;
        }
    }
    if (optind != argc - 1)
        USAGE_ERR("%s", optind >= argc ? "no framework named"
                                       : "one framework, after the options");
    const char *fw = argv[optind];
    if (fw[0] == '\0' || strlen(fw) > SK_MAX_NAME_LEN)
        USAGE_ERR("the framework is a name of 1..%u bytes",
                  (unsigned)SK_MAX_NAME_LEN);

    char epbuf[SK_MAX_ADDR_LEN + 1];
    if (nodemon == NULL && node != NULL) {
        if (local_nodemon(co.co_dir, node, epbuf, sizeof epbuf) != 0)
            return 1;
        nodemon = epbuf;
    } else if (nodemon == NULL) {
        nodemon = DEFAULT_NODEMON;
    }
    char host[SK_MAX_NAME_LEN + 1] = "node";
    if (node == NULL && gethostname(host, sizeof host - 1) == 0)
        host[strcspn(host, ".")] = '\0';

    /* The command executor first: its guard must start before any
     * thread (nanomsg's come with the executor's transport). */
    memset(&xs, 0, sizeof xs);
    xs.xs_loop = ev_loop_new(EVFLAG_AUTO);
    if (xs.xs_loop == NULL) {
        fprintf(stderr, "%s: cannot make an event loop\n", WHO);
        return 1;
    }
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    cfg.cx_max_children = (uint32_t)max_tasks;
    cfg.cx_kill_grace_ms = (int64_t)(grace * 1000 + 0.5);
    snprintf(cfg.cx_node, sizeof cfg.cx_node, "%s", node != NULL ? node : host);
    char err[512];
    nm_journal *jn = NULL;
    if (journal != NULL &&
        (nm_journal_keeper("", cfg.cx_keeper, sizeof cfg.cx_keeper, err,
                           sizeof err) != 0 ||
         nm_journal_open(journal, NM_JOURNAL_LINGER_MS, 4 * (uint32_t)max_tasks,
                         &jn, err, sizeof err) != 0)) {
        fprintf(stderr, "%s: --journal: %s\n", WHO, err);
        ev_loop_destroy(xs.xs_loop);
        return 1;
    }
    cfg.cx_journal = jn;
    int rc = nm_cmdexec_create(xs.xs_loop, &cfg, drain, NULL, &xs.xs_cx);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot start the command executor: %s\n", WHO,
                sk_strerror(rc));
        nm_journal_close(jn);
        ev_loop_destroy(xs.xs_loop);
        return 1;
    }

    sk_executor_opts eo;
    sk_executor_opts_init(&eo);
    eo.eo_nodemon = nodemon;
    eo.eo_framework = fw;
    eo.eo_name = name;
    char keybuf[4200];
    if (co.co_token != NULL)
        eo.eo_token_file = co.co_token;
    else
        eo.eo_key_file =
            cli_key_file(co.co_key, co.co_dir, keybuf, sizeof keybuf);
    sk_executor_callbacks cb = {on_launch, on_kill, on_session,
                                (void *)nodemon};
    rc = sk_executor_create(xs.xs_loop, &eo, &cb, &xs.xs_ex);
    int status = 1;
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", WHO, sk_strerror(rc));
        status = rc == SK_EINVAL ? 2 : 1;
        goto out;
    }
    if (jn != NULL) {
        nm_journal_recover(jn, NM_JOURNAL_KEEPER_WAIT_MS, on_recovered, NULL);
        if (xs.xs_recovered > 0)
            fprintf(stderr, "%s: journal %s: %llu task ends read back\n", WHO,
                    journal, (unsigned long long)xs.xs_recovered);
    }
    ev_signal_init(&xs.xs_int, on_signal, SIGINT);
    ev_signal_init(&xs.xs_term, on_signal, SIGTERM);
    ev_signal_start(xs.xs_loop, &xs.xs_int);
    ev_signal_start(xs.xs_loop, &xs.xs_term);
    /* In slices, so that a signal ends the wait. */
    double until = cli_mono_s() + co.co_timeout;
    do
        rc = sk_executor_wait_registered(xs.xs_ex, 0.1);
    while (rc == SK_ETIMEDOUT && xs.xs_signal == 0 && cli_mono_s() < until);
    if (xs.xs_signal != 0) {
        status = 0;
        goto out;
    }
    if (rc != 0) {
        const char *why = sk_executor_error(xs.xs_ex);
        fprintf(stderr, "%s: not registered with %s within %g s%s%s\n", WHO,
                nodemon, co.co_timeout, why[0] != '\0' ? ": " : "", why);
        status = rc == SK_EROLE ? 2 : 1;
        goto out;
    }
    sk_executor_run(xs.xs_ex, -1);
    status = 0;

out:;
    sk_executor_stats st;
    if (xs.xs_ex != NULL) {
        sk_executor_stats_get(xs.xs_ex, &st);
        const nm_cmdexec_stats *cs = nm_cmdexec_stats_get(xs.xs_cx);
        if (st.es_sessions > 0)
            fprintf(stderr,
                    "%s: %llu tasks: %llu ok, %llu failed, %llu killed; "
                    "%llu ended too late to report\n",
                    WHO, (unsigned long long)st.es_launched,
                    (unsigned long long)cs->cs_ok,
                    (unsigned long long)cs->cs_failed,
                    (unsigned long long)cs->cs_killed,
                    (unsigned long long)xs.xs_unreported);
    }
    /* The node monitor reports what still runs LOST (the session ends),
     * and the groups are killed: they would have nobody to report to. */
    sk_executor_destroy(xs.xs_ex);
    nm_cmdexec_destroy(xs.xs_cx);
    nm_journal_close(jn);
    if (ev_is_active(&xs.xs_int)) {
        ev_signal_stop(xs.xs_loop, &xs.xs_int);
        ev_signal_stop(xs.xs_loop, &xs.xs_term);
    }
    ev_loop_destroy(xs.xs_loop);
    return status;
}
