/*
 * cmd_status.c - `skylark status [ADDR]`: what a daemon says about itself
 * (a node monitor: its slots and its queues per user; a scheduler: the
 * node monitors it sees and its jobs in flight), or, without an address,
 * one line per daemon of the local cluster.
 */
#include "cli_common.h"
#include "config.h"
#include "sk_cli.h"
#include "skylark.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void status_usage(FILE *out)
{
    fprintf(out,
            "usage: skylark status [--json] [--verbose] [--rows N] "
            "[--timeout S] [ADDR]\n"
            "       skylark status [--json] [--dir DIR]\n"
            "\n"
            "With ADDR (a daemon's endpoint, such as tcp://127.0.0.1:7100),\n"
            "asks that daemon for its state and prints it: for a node\n"
            "monitor its slots, tasks and queued reservations, and a table\n"
            "of its users (weight, queued, running, seconds of slot time);\n"
            "for a scheduler the node monitors and frontends it sees, its\n"
            "jobs in flight and its totals, and a table of the jobs.\n"
            "Without ADDR, prints one line per daemon of the local cluster\n"
            "(see skylark cluster).\n"
            "\n"
            "  -j, --json        print it as JSON, for tools: every pair the\n"
            "                    daemon reports and every row (the shape is\n"
            "                    in docs/CLIENT.md, \"status --json\")\n"
            "  -v, --verbose     every counter the daemon reports\n"
            "  -r, --rows N      table rows to print (default 40; 0: all)\n"
            "  -t, --timeout S   how long to wait for the answer (default 2)\n"
            "  -d, --dir DIR     the local cluster's directory\n"
            "  -K, --key-file F  the cluster key (default: $SKYLARK_KEY_FILE,\n"
            "                    else the local cluster's key)\n"
            "  -T, --token-file F  a user token instead (as skylark run):\n"
            "                    a scheduler then lists that user's jobs\n"
            "                    only, unless it is an admin's\n"
            "  -h, --help        this text\n"
            "\n"
            "Exit status: 0 the daemon (every daemon) answered, 1 it did "
            "not,\n2 bad usage or a bad address.\n");
}

/* The pairs worth a person's attention, per role, with labels. */
typedef struct shown {
    const char *sh_key;
    const char *sh_label;
} shown;

static const shown NODEMON_KEYS[] = {
    {"slots_total", "slots"},
    {"slots_used", "slots used"},
    {"slots_fetching", "slots asking for a task"},
    {"slots_reserved", "slots reserved (long tasks)"},
    {"running", "tasks running"},
    {"queued", "reservations queued"},
    {"users", "users"},
    {"launched", "tasks launched"},
    {"finished", "tasks finished"},
    {"lost", "tasks lost"},
    {"cancelled", "reservations cancelled"},
    {NULL, NULL},
};

static const shown SCHED_KEYS[] = {
    {"nodes", "node monitors"},
    {"nodes_live", "node monitors live"},
    {"nodes_saturated", "node monitors saturated"},
    {"frontends", "frontends"},
    {"jobs", "jobs in flight"},
    {"reservations_open", "reservations open"},
    {"jobs_accepted", "jobs accepted"},
    {"jobs_rejected", "jobs rejected"},
    {"jobs_done", "jobs done"},
    {"tasks_submitted", "tasks submitted"},
    {"tasks_ok", "  ok"},
    {"tasks_failed", "  failed"},
    {"tasks_killed", "  killed"},
    {"tasks_lost", "  lost"},
    {"tasks_cancelled", "  cancelled"},
    {"tasks_abandoned", "  abandoned (frontend gone)"},
    {"tasks_in_flight", "  in flight"},
    {"tasks_launched", "task attempts launched"},
    {NULL, NULL},
};

static const shown FLOWD_KEYS[] = {
    {"nodes", "nodes live"},
    {"nodes_registered", "node registrations"},
    {"nodes_lost", "nodes lost"},
    {"heartbeats", "heartbeats"},
    {"schedulers", "schedulers"},
    {"jobs", "long jobs"},
    {"long_running", "long tasks running"},
    {"long_placed", "long tasks placed"},
    {"long_reserved", "long tasks reserved"},
    {"long_waiting", "long tasks waiting"},
    {"rounds", "rounds"},
    {"last_round_events", "last round: events"},
    {"last_round_solve_ms", "last round: solve ms"},
    {"last_round_algorithm", "last round: algorithm"},
    {"last_round_placed", "last round: placed"},
    {"graph_nodes", "graph nodes"},
    {"graph_arcs", "graph arcs"},
    {NULL, NULL},
};

static void print_table(const sk_status *s, unsigned max_rows)
{
    unsigned nc = sk_status_ncolumns(s), nr = sk_status_nrows(s);
    if (nc == 0)
        return;
    unsigned shown_rows = max_rows == 0 || nr < max_rows ? nr : max_rows;
    size_t w[16] = {0};
    for (unsigned c = 0; c < nc && c < 16; c++) {
        w[c] = strlen(sk_status_column(s, c));
        for (unsigned r = 0; r < shown_rows; r++) {
            size_t l = strlen(sk_status_cell(s, r, c));
            if (l > w[c])
                w[c] = l;
        }
    }
    printf("\n");
    for (unsigned c = 0; c < nc && c < 16; c++)
        printf("%s%-*s", c ? "  " : "", (int)w[c], sk_status_column(s, c));
    printf("\n");
    for (unsigned r = 0; r < shown_rows; r++) {
        for (unsigned c = 0; c < nc && c < 16; c++)
            printf("%s%-*s", c ? "  " : "", (int)w[c], sk_status_cell(s, r, c));
        printf("\n");
    }
    if (shown_rows < nr)
        printf("... and %u more rows (--rows 0 shows all)\n", nr - shown_rows);
    if (nr == 0)
        printf("(no rows)\n");
}

static int status_of(const char *addr, const char *key, const char *token,
                     double timeout, int verbose, unsigned rows, int json)
{
    sk_status *s;
    int rc = sk_status_fetch_cred(addr, key, token, timeout, 1, &s);
    if (rc != 0) {
        fprintf(stderr, "skylark status: no answer from %s: %s\n", addr,
                sk_strerror(rc));
        return 1;
    }
    if (json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object(&j, NULL);
        cli_json_status(&j, addr, s, 1);
        cli_json_end(&j);
        cli_json_finish(&j);
        sk_status_free(s);
        return 0;
    }
    printf("%s %s at %s\n", sk_status_role(s), sk_status_name(s), addr);
    const shown *keys = NULL;
    if (strcmp(sk_status_role(s), "nodemon") == 0)
        keys = NODEMON_KEYS;
    else if (strcmp(sk_status_role(s), "scheduler") == 0)
        keys = SCHED_KEYS;
    else if (strcmp(sk_status_role(s), "flowd") == 0)
        keys = FLOWD_KEYS;
    if (keys != NULL && !verbose) {
        for (const shown *k = keys; k->sh_key != NULL; k++) {
            const char *v = sk_status_get(s, k->sh_key);
            if (v != NULL)
                printf("  %-28s %s\n", k->sh_label, v);
        }
    } else {
        for (unsigned i = 0; i < sk_status_nkv(s); i++)
            printf("  %-28s %s\n", sk_status_key(s, i), sk_status_value(s, i));
    }
    print_table(s, rows);
    sk_status_free(s);
    return 0;
}

int cmd_status(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"verbose", no_argument, NULL, 'v'},
        {"rows", required_argument, NULL, 'r'},
        CLI_CONN_LONGOPTS,
        {"token-file", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int verbose = 0, json = 0, c;
    unsigned long rows = 40;
    cli_conn o = {.co_timeout = 2, .co_timeout_max = 3600};
    optind = 0;
    argv[0] = (char *)"skylark status"; /* for getopt's messages */
    while ((c = getopt_long(argc, argv, "jvr:t:d:K:T:h", longopts, NULL)) !=
           -1) {
        int taken = cli_conn_opt(&o, "skylark status", c, optarg);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'v':
            verbose = 1;
            break;
        case 'r':
            if (cli_parse_ulong(optarg, 0, 1000000, &rows) != 0) {
                fprintf(stderr, "skylark status: --rows takes a count\n");
                return 2;
            }
            break;
        case 'h':
            status_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark status --help)\n");
            return 2;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, "skylark status: one address at most\n");
        return 2;
    }
    if (optind < argc &&
        cli_check_endpoint("skylark status", "address", argv[optind]) != 0)
        return 2;
    char keybuf[4200], tokbuf[4200];
    if (optind < argc) {
        const char *kf, *tf;
        cli_credential(o.co_key, o.co_token, o.co_dir, keybuf, tokbuf,
                       sizeof keybuf, &kf, &tf);
        return status_of(argv[optind], kf, tf, o.co_timeout, verbose,
                         (unsigned)rows, json);
    }
    skc_cluster *cl = cli_load_cluster("skylark status", o.co_dir);
    if (cl == NULL)
        return 1;
    unsigned bad;
    if (json) {
        bad = cli_json_cluster(cl, stdout);
    } else {
        printf("cluster in %s\n", cl->cc_dir);
        bad = cli_print_cluster(cl, stdout);
    }
    free(cl);
    return bad == 0 ? 0 : 1;
}
