/*
 * cmd_cluster.c - `skylark cluster up|status|down`: a whole Skylark
 * cluster on this machine, in the background, on loopback (sk_cluster.h).
 */
#include "cli_common.h"
#include "config.h"
#include "sk_cli.h"
#include "skylark.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cluster_usage(FILE *out)
{
    char dir[4096];
    cli_dir(NULL, dir, sizeof dir);
    fprintf(
        out,
        "usage: skylark cluster up [--nodes N] [--slots S] "
        "[--schedulers K]\n"
        "                          [--weight USER=W]... [--dir DIR] "
        "[--log-level L]\n"
        "                          [--timeout SECONDS] [--no-flowd] "
        "[--racks R]\n"
        "       skylark cluster status [--json] [--dir DIR]\n"
        "       skylark cluster down [--dir DIR] [--grace SECONDS]\n"
        "\n"
        "A whole Skylark cluster on this machine: a flow node, K schedulers\n"
        "and N node monitors of S slots each, in the background, listening\n"
        "on free ports of 127.0.0.1, every node monitor serving every\n"
        "scheduler and registered with the flow node (skylark-flowd).\n"
        "`skylark run` and `skylark status` without an address use it.\n"
        "\n"
        "  up      start it and wait until every daemon answers and every\n"
        "          scheduler (and flowd) sees every node monitor\n"
        "  status  one line per daemon: alive, answering, busy\n"
        "  down    SIGTERM every daemon, SIGKILL those still alive after\n"
        "          the grace period (default 5 s), wait until each has\n"
        "          exited, remove the cluster file\n"
        "\n"
        "  -n, --nodes N         node monitors (default 4)\n"
        "  -s, --slots S         slots per node monitor (default 4)\n"
        "  -k, --schedulers K    schedulers (default 1, at most 16)\n"
        "  -w, --weight USER=W   a user's fair-share weight on every node\n"
        "                        (repeatable; others weigh 1)\n"
        "  -d, --dir DIR         state and logs (default %s;\n"
        "                        $SKYLARK_DIR overrides the default)\n"
        "      --log-level L     the daemons' log level: debug, info\n"
        "                        (default), warn, error or off\n"
        "      --timeout S       how long `up` waits (default 30)\n"
        "      --no-flowd        no flow node: schedulers and node\n"
        "                        monitors only\n"
        "      --racks R         spread the node monitors over racks r0 ..\n"
        "                        r(R-1), consecutive nodes in each, for the\n"
        "                        flow node (default 0: no racks)\n"
        "      --grace S         how long `down` waits after SIGTERM\n"
        "                        before SIGKILL (default 5)\n"
        "  -j, --json            status: as JSON, for tools (see\n"
        "                        docs/CLIENT.md, \"status --json\")\n"
        "  -h, --help            this text\n"
        "\n"
        "The cluster file DIR/cluster lists each daemon's name, endpoint\n"
        "and pid; the daemons log to DIR/logs/NAME.log.\n"
        "\n"
        "Exit status: 0 done (status: every daemon answers), 1 failed,\n"
        "2 bad usage.\n",
        dir);
}

static int bad_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "skylark cluster: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see skylark cluster --help)\n");
    va_end(ap);
    return 2;
}

/* A signal during `up`: skc_start stops what it started. */
static volatile sig_atomic_t up_signal;

static void on_up_signal(int sig)
{
    up_signal = sig;
}

static int cluster_up(int argc, char **argv, const char *dir)
{
    skc_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.cs_dir = dir;
    sp.cs_schedulers = 1;
    sp.cs_nodes = 4;
    sp.cs_slots = 4;
    sp.cs_timeout = 30;
    sp.cs_flowd = 1;
    static const struct option longopts[] = {
        {"nodes", required_argument, NULL, 'n'},
        {"slots", required_argument, NULL, 's'},
        {"schedulers", required_argument, NULL, 'k'},
        {"weight", required_argument, NULL, 'w'},
        {"dir", required_argument, NULL, 'd'},
        {"log-level", required_argument, NULL, 'L'},
        {"timeout", required_argument, NULL, 't'},
        {"no-flowd", no_argument, NULL, 'F'},
        {"racks", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    argv[0] = (char *)"skylark cluster up"; /* for getopt's messages */
    int c;
    unsigned long v;
    while ((c = getopt_long(argc, argv, "+n:s:k:w:d:h", longopts, NULL)) !=
           -1) {
        switch (c) {
        case 'n':
            if (cli_parse_ulong(optarg, 1, 1000, &v) != 0)
                return bad_usage("--nodes takes 1..1000, got '%s'", optarg);
            sp.cs_nodes = (unsigned)v;
            break;
        case 's':
            if (cli_parse_ulong(optarg, 1, 4096, &v) != 0)
                return bad_usage("--slots takes 1..4096, got '%s'", optarg);
            sp.cs_slots = (unsigned)v;
            break;
        case 'k':
            if (cli_parse_ulong(optarg, 1, 16, &v) != 0)
                return bad_usage("--schedulers takes 1..16, got '%s'", optarg);
            sp.cs_schedulers = (unsigned)v;
            break;
        case 'w': {
            const char *eq = strchr(optarg, '=');
            if (eq == NULL || eq == optarg ||
                cli_parse_ulong(eq + 1, 1, 1000000, &v) != 0)
                return bad_usage("--weight takes USER=W (W in 1..1000000), "
                                 "got '%s'",
                                 optarg);
            if (sp.cs_nweights == SKC_MAX_WEIGHTS)
                return bad_usage("at most 64 weights");
            sp.cs_weights[sp.cs_nweights++] = optarg;
            break;
        }
        case 'd':
            sp.cs_dir = optarg;
            break;
        case 'L':
            if (strcmp(optarg, "debug") != 0 && strcmp(optarg, "info") != 0 &&
                strcmp(optarg, "warn") != 0 && strcmp(optarg, "error") != 0 &&
                strcmp(optarg, "off") != 0)
                return bad_usage("--log-level takes debug, info, warn, error "
                                 "or off, got '%s'",
                                 optarg);
            sp.cs_log_level = optarg;
            break;
        case 't':
            if (cli_parse_double(optarg, 0.1, 3600, &sp.cs_timeout) != 0)
                return bad_usage("--timeout takes seconds, got '%s'", optarg);
            break;
        case 'F':
            sp.cs_flowd = 0;
            break;
        case 'R':
            if (cli_parse_ulong(optarg, 0, 1000, &v) != 0)
                return bad_usage("--racks takes 0..1000, got '%s'", optarg);
            sp.cs_racks = (unsigned)v;
            break;
        case 'h':
            cluster_usage(stdout);
            return 0;
        default:
            return bad_usage("bad option");
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s'", argv[optind]);
    if (sp.cs_racks > sp.cs_nodes)
        return bad_usage("--racks %u is more than the %u nodes", sp.cs_racks,
                         sp.cs_nodes);
    skc_cluster *cl = malloc(sizeof *cl);
    if (cl == NULL)
        return 1;
    char err[1024];
    /* Ctrl-C or SIGTERM while the daemons start: stop those already
     * started (a daemon runs in its own session, and one not yet in the
     * cluster file would be left behind), then die of that signal, as
     * the shell that sent it expects. */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_up_signal;
    sigemptyset(&sa.sa_mask);
    up_signal = 0;
    sp.cs_cancel = &up_signal;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    if (old_int.sa_handler != SIG_IGN) /* a background job's stays so */
        sigaction(SIGINT, &sa, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
    int rc = skc_start(&sp, cl, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc == SK_ECANCELED) {
        fprintf(stderr, "skylark cluster up: interrupted; the daemons it "
                        "had started are stopped\n");
        free(cl);
        signal((int)up_signal, SIG_DFL);
        raise((int)up_signal);
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "skylark cluster up: %s\n", err);
        free(cl);
        return 1;
    }
    printf("cluster up in %s: %s%u scheduler%s, %u node monitor%s x %u "
           "slots\n",
           cl->cc_dir, sp.cs_flowd ? "flowd, " : "", sp.cs_schedulers,
           sp.cs_schedulers > 1 ? "s" : "", sp.cs_nodes,
           sp.cs_nodes > 1 ? "s" : "", sp.cs_slots);
    for (unsigned i = 0; i < cl->cc_n; i++)
        if (cl->cc_daemons[i].cd_kind != SKC_NODEMON)
            printf("%s %s: %s\n", skc_kind_name(cl->cc_daemons[i].cd_kind),
                   cl->cc_daemons[i].cd_name, cl->cc_daemons[i].cd_endpoint);
    free(cl);
    return 0;
}

/* status and down take only --dir (and down --grace). */
static int cluster_other(int argc, char **argv, const char *dir, int down)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"grace", required_argument, NULL, 'g'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double grace = 5;
    int json = 0;
    optind = 0;
    argv[0] =
        (char *)(down ? "skylark cluster down" : "skylark cluster status");
    int c;
    while ((c = getopt_long(argc, argv, "+d:jh", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            dir = optarg;
            break;
        case 'j':
            if (down)
                return bad_usage("--json is for cluster status");
            json = 1;
            break;
        case 'g':
            if (!down || cli_parse_double(optarg, 0, 3600, &grace) != 0)
                return bad_usage("--grace takes seconds (cluster down), got "
                                 "'%s'",
                                 optarg);
            break;
        case 'h':
            cluster_usage(stdout);
            return 0;
        default:
            return bad_usage("bad option");
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s'", argv[optind]);
    char d[4096], err[512];
    cli_dir(dir, d, sizeof d);
    skc_cluster *cl = malloc(sizeof *cl);
    if (cl == NULL)
        return 1;
    int rc = skc_load(d, cl, err, sizeof err);
    if (rc == SK_ENOTFOUND) {
        fprintf(stderr, "skylark cluster %s: no cluster in %s\n",
                down ? "down" : "status", d);
        free(cl);
        return down ? 0 : 1;
    }
    if (rc != 0) {
        fprintf(stderr, "skylark cluster: %s\n", err);
        free(cl);
        return 1;
    }
    if (down) {
        skc_stop_result r;
        rc = skc_stop(cl, grace, &r);
        printf("cluster down in %s: %u daemon%s stopped", d, r.sr_stopped,
               r.sr_stopped == 1 ? "" : "s");
        if (r.sr_killed > 0)
            printf(", %u killed after %g s", r.sr_killed, grace);
        if (r.sr_unreaped > 0)
            printf(" (%u exited but not yet reaped by %s parent)",
                   r.sr_unreaped, r.sr_unreaped == 1 ? "its" : "their");
        printf("\n");
        for (unsigned i = 0; i < r.sr_nleft && i < SKC_MAX_LEFT; i++)
            fprintf(stderr,
                    "skylark cluster down: pid %ld still runs 5 s after "
                    "SIGKILL; the cluster file stays\n",
                    (long)r.sr_left[i]);
        free(cl);
        return rc == 0 ? 0 : 1;
    }
    unsigned bad;
    if (json) {
        bad = cli_json_cluster(cl, stdout);
    } else {
        printf("cluster in %s\n", d);
        bad = cli_print_cluster(cl, stdout);
    }
    free(cl);
    return bad == 0 ? 0 : 1;
}

int cmd_cluster(int argc, char **argv)
{
    if (argc < 2) {
        cluster_usage(stderr);
        return 2;
    }
    const char *what = argv[1];
    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        cluster_usage(stdout);
        return 0;
    }
    if (strcmp(what, "up") == 0)
        return cluster_up(argc - 1, argv + 1, NULL);
    if (strcmp(what, "status") == 0)
        return cluster_other(argc - 1, argv + 1, NULL, 0);
    if (strcmp(what, "down") == 0)
        return cluster_other(argc - 1, argv + 1, NULL, 1);
    return bad_usage("unknown action '%s' (up, status or down)", what);
}
