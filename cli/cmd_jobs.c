/*
 * cmd_jobs.c - `skylark jobs` and `skylark cancel`: the jobs in flight at
 * the schedulers (their status tables) and, at the flow node, the work
 * handed over to it and where its tasks are (its "jobs" query); and an
 * operator's cancel of a job by the id its scheduler shows.
 */
#include "cli_common.h"
#include "config.h"
#include "sk_cli.h"
#include "skylark.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCHEDS 64

static void jobs_usage(FILE *out)
{
    fprintf(out,
            "usage: skylark jobs [--json] [--scheduler ADDR]... "
            "[--flowd ADDR] [--timeout S]\n"
            "\n"
            "Lists the jobs in flight at the schedulers (the job column is\n"
            "the id `skylark cancel` takes: the scheduler's own id, not the\n"
            "frontend's), and the work handed over to the flow node with\n"
            "where its tasks are (the job column there is the hand-over id\n"
            "that `skylark flow explain` takes, sched the scheduler's id).\n"
            "Without --scheduler and --flowd, the schedulers and flow node\n"
            "of the local cluster; else the daemons given.\n"
            "\n"
            "  -j, --json            print it as JSON: an object with\n"
            "                        schedulers (an array) and flowd (or\n"
            "                        null), each as `skylark status --json`\n"
            "  -s, --scheduler ADDR  a scheduler to ask (repeatable)\n"
            "  -f, --flowd ADDR      the flow node to ask\n"
            "  -t, --timeout S       how long to wait for each (default 2)\n"
            "  -d, --dir DIR         the local cluster's directory\n"
            "  -K, --key-file F      the cluster key (default: "
            "$SKYLARK_KEY_FILE,\n"
            "                        else the local cluster's key)\n"
            "  -h, --help            this text\n"
            "\n"
            "Exit status: 0 every daemon answered, 1 not, 2 bad usage.\n");
}

static void cancel_usage(FILE *out)
{
    fprintf(out,
            "usage: skylark cancel [--scheduler ADDR] [--timeout S] JOB\n"
            "\n"
            "Cancels job JOB in flight at a scheduler, as an operator: JOB is\n"
            "the scheduler's id for it (the job column of `skylark jobs`).\n"
            "Its running tasks are killed, the rest end cancelled, and the\n"
            "frontend that submitted it gets their outcomes as if it had\n"
            "cancelled it (work handed to the flow node is released there).\n"
            "Any holder of the cluster key may cancel any job\n"
            "(docs/DAEMONS.md).\n"
            "\n"
            "  -s, --scheduler ADDR  the scheduler (default: the local\n"
            "                        cluster's, which must have only one)\n"
            "  -t, --timeout S       how long to wait for its answer "
            "(default 2)\n"
            "  -d, --dir DIR         the local cluster's directory\n"
            "  -K, --key-file F      the cluster key (default: "
            "$SKYLARK_KEY_FILE,\n"
            "                        else the local cluster's key)\n"
            "  -h, --help            this text\n"
            "\n"
            "Exit status: 0 cancelled, 1 refused (no such job in flight) or\n"
            "no answer, 2 bad usage.\n");
}

/* Prints one daemon's table, columns aligned. */
static void print_table(const sk_status *s)
{
    unsigned nc = sk_status_ncolumns(s), nr = sk_status_nrows(s);
    size_t w[16] = {0};
    nc = nc < 16 ? nc : 16;
    for (unsigned c = 0; c < nc; c++) {
        w[c] = strlen(sk_status_column(s, c));
        for (unsigned r = 0; r < nr; r++) {
            size_t l = strlen(sk_status_cell(s, r, c));
            w[c] = l > w[c] ? l : w[c];
        }
    }
    if (nr == 0) {
        printf("  (none)\n");
        return;
    }
    for (unsigned c = 0; c < nc; c++)
        printf("  %-*s", (int)w[c], sk_status_column(s, c));
    printf("\n");
    for (unsigned r = 0; r < nr; r++) {
        for (unsigned c = 0; c < nc; c++)
            printf("  %-*s", (int)w[c], sk_status_cell(s, r, c));
        printf("\n");
    }
}

/* The scheduler at ep: its jobs table. Returns 1 if it did not answer. */
static int one_scheduler(const char *ep, const char *key, double timeout,
                         cli_json *j)
{
    sk_status *s;
    int rc = sk_status_fetch_keyed(ep, key, timeout, 1, &s);
    if (rc != 0) {
        fprintf(stderr, "skylark jobs: no answer from %s: %s\n", ep,
                sk_strerror(rc));
        if (j != NULL)
            cli_json_null(j, NULL);
        return 1;
    }
    if (j != NULL) {
        cli_json_object(j, NULL);
        cli_json_status(j, ep, s, 1);
        cli_json_end(j);
    } else {
        const char *id = sk_status_get(s, "id");
        printf("scheduler %s (id %s) at %s: %u jobs in flight\n",
               sk_status_name(s), id != NULL ? id : "?", ep,
               sk_status_nrows(s));
        print_table(s);
    }
    sk_status_free(s);
    return 0;
}

static int flow_node(const char *ep, const char *key, double timeout,
                     cli_json *j)
{
    sk_status *s;
    if (cli_query("skylark jobs", ep, key, "jobs", timeout, &s) != 0) {
        if (j != NULL)
            cli_json_null(j, "flowd");
        return 1;
    }
    if (j != NULL) {
        cli_json_object(j, "flowd");
        cli_json_status(j, ep, s, 1);
        cli_json_end(j);
    } else {
        printf("flow node %s at %s: %u jobs handed over (sched/job: the "
               "hand-over id)\n",
               sk_status_name(s), ep, sk_status_nrows(s));
        print_table(s);
    }
    sk_status_free(s);
    return 0;
}

int cmd_jobs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"scheduler", required_argument, NULL, 's'},
        {"flowd", required_argument, NULL, 'f'},
        CLI_CONN_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *scheds[MAX_SCHEDS];
    unsigned n = 0;
    const char *flowd = NULL;
    cli_conn o = {.co_timeout = 2, .co_timeout_max = 3600};
    int json = 0, c;
    optind = 0;
    argv[0] = (char *)"skylark jobs";
    while ((c = getopt_long(argc, argv, "js:f:t:d:K:h", longopts, NULL)) !=
           -1) {
        int taken = cli_conn_opt(&o, "skylark jobs", c, optarg);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 's':
            if (n == MAX_SCHEDS) {
                fprintf(stderr, "skylark jobs: %d schedulers at most\n",
                        MAX_SCHEDS);
                return 2;
            }
            if (cli_check_endpoint("skylark jobs", "--scheduler", optarg))
                return 2;
            scheds[n++] = optarg;
            break;
        case 'f':
            if (cli_check_endpoint("skylark jobs", "--flowd", optarg))
                return 2;
            flowd = optarg;
            break;
        case 'h':
            jobs_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark jobs --help)\n");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "skylark jobs: no arguments (see --help)\n");
        return 2;
    }
    bool local = n == 0 && flowd == NULL;
    skc_cluster *cl = NULL;
    if (local && cli_schedulers("skylark jobs", o.co_dir, scheds, MAX_SCHEDS,
                                &n, &cl) != 0)
        return 1;
    char flowd_ep[256] = "";
    if (flowd != NULL)
        snprintf(flowd_ep, sizeof flowd_ep, "%s", flowd);
    for (unsigned i = 0; local && cl != NULL && i < cl->cc_n; i++)
        if (cl->cc_daemons[i].cd_kind == SKC_FLOWD)
            snprintf(flowd_ep, sizeof flowd_ep, "%s",
                     cl->cc_daemons[i].cd_endpoint);
    char keybuf[4200];
    const char *key = cli_key_file(o.co_key, o.co_dir, keybuf, sizeof keybuf);
    cli_json j, *jp = json ? &j : NULL;
    if (jp != NULL) {
        cli_json_init(jp, stdout);
        cli_json_object(jp, NULL);
        cli_json_array(jp, "schedulers");
    }
    int bad = 0;
    for (unsigned i = 0; i < n; i++) {
        if (jp == NULL && i > 0)
            printf("\n");
        bad |= one_scheduler(scheds[i], key, o.co_timeout, jp);
    }
    if (jp != NULL)
        cli_json_end(jp);
    if (flowd_ep[0] != '\0') {
        if (jp == NULL)
            printf("\n");
        bad |= flow_node(flowd_ep, key, o.co_timeout, jp);
    } else if (jp != NULL) {
        cli_json_null(jp, "flowd");
    }
    if (jp != NULL) {
        cli_json_end(jp);
        cli_json_finish(jp);
    }
    free(cl);
    return bad ? 1 : 0;
}

int cmd_cancel(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"scheduler", required_argument, NULL, 's'},
        CLI_CONN_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *scheds[2];
    unsigned n = 0;
    cli_conn o = {.co_timeout = 2, .co_timeout_max = 3600};
    int c;
    optind = 0;
    argv[0] = (char *)"skylark cancel";
    while ((c = getopt_long(argc, argv, "s:t:d:K:h", longopts, NULL)) != -1) {
        int taken = cli_conn_opt(&o, "skylark cancel", c, optarg);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        switch (c) {
        case 's':
            if (cli_check_endpoint("skylark cancel", "--scheduler", optarg))
                return 2;
            scheds[0] = optarg;
            n = 1;
            break;
        case 'h':
            cancel_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark cancel --help)\n");
            return 2;
        }
    }
    unsigned long job;
    if (argc - optind != 1 ||
        cli_parse_ulong(argv[optind], 1, (unsigned long)-1, &job) != 0) {
        fprintf(stderr, "skylark cancel: give one job id (the job column of "
                        "`skylark jobs`)\n");
        return 2;
    }
    skc_cluster *cl;
    if (cli_schedulers("skylark cancel", o.co_dir, scheds, 2, &n, &cl) != 0)
        return 1;
    if (n > 1) {
        fprintf(stderr,
                "skylark cancel: the local cluster has several schedulers, "
                "each with its own job ids: give --scheduler ADDR (as "
                "`skylark jobs` shows)\n");
        free(cl);
        return 2;
    }
    char keybuf[4200], why[1100] = "";
    const char *key = cli_key_file(o.co_key, o.co_dir, keybuf, sizeof keybuf);
    int rc =
        sk_admin_cancel(scheds[0], key, job, o.co_timeout, why, sizeof why);
    if (rc == 0)
        printf("job %lu at %s cancelled\n", job, scheds[0]);
    else
        fprintf(stderr, "skylark cancel: job %lu at %s: %s\n", job, scheds[0],
                why);
    free(cl);
    return rc == 0 ? 0 : 1;
}
