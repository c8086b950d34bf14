/*
 * cmd_flow.c - `skylark flow dump`, `skylark flow explain` and `skylark
 * flow constraints`: the flow node's network for an operator, through its
 * STATUS_REQUEST queries (docs/PROTOCOL.md): the whole network as DIMACS
 * with names in comment lines, fetched page by page, why one task is
 * where it is, and what placement constraints are broken per job.
 */
#include "cli_common.h"
#include "config.h"
#include "sk_cli.h"
#include "skylark.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHO "skylark flow"

/* A dump whose pages are replaced under us this often is given up. */
#define DUMP_TRIES 3

static void flow_usage(FILE *out)
{
    fprintf(out,
            "usage: skylark flow dump [--out FILE] [--flowd ADDR] "
            "[--timeout S]\n"
            "       skylark flow explain [--flowd ADDR] [--timeout S] "
            "[SCHED/]JOB TASK\n"
            "       skylark flow explain [--flowd ADDR] [--timeout S] "
            "[SCHED/]JOB/TASK\n"
            "       skylark flow constraints [--flowd ADDR] [--timeout S]\n"
            "\n"
            "Asks the flow node (skylark-flowd) about its flow network.\n"
            "\n"
            "dump writes the network as flowd keeps it after its last round,\n"
            "in DIMACS min-cost-flow form, with a comment line 'c name ID\n"
            "TEXT' per node saying what it stands for (sink, cluster, rack,\n"
            "node, unsched S/J, class, task S/J/I) and a 'c cost' line with\n"
            "the optimum the round found when the network has not changed\n"
            "since; `skylark solve` and LEMON's dimacs-solver read it.\n"
            "\n"
            "explain says why task TASK of job JOB is where it is, or why it\n"
            "waits: its arcs with capacities, costs and flow, the path its\n"
            "flow took, and for a waiting task the cheapest node it could\n"
            "reach and what keeps it off. JOB is the id flowd knows the job\n"
            "by: the id its scheduler gave the hand-over (the job column of\n"
            "the flow node's part of `skylark jobs`), with SCHED/ the\n"
            "scheduler's id when two schedulers use the same JOB.\n"
            "\n"
            "constraints prints the counters of the constraint rounds and,\n"
            "per job with placement constraints, the (constraint, task)\n"
            "pairs its placements break: hard, soft, their weight, and per\n"
            "constraint in the job's order (after the last such round).\n"
            "\n"
            "  -o, --out FILE     dump: write to FILE (default: stdout)\n"
            "  -f, --flowd ADDR   the flow node (default: the local "
            "cluster's)\n"
            "  -t, --timeout S    how long to wait for flowd in all "
            "(default 10)\n"
            "  -d, --dir DIR      the local cluster's directory\n"
            "  -K, --key-file F   the cluster key (default: "
            "$SKYLARK_KEY_FILE,\n"
            "                     else the local cluster's key)\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 done, 1 flowd did not answer or refused (no such\n"
            "job), 2 bad usage.\n");
}

/* Appends the table's cells of s to out. */
static int put_cells(const sk_status *s, FILE *out)
{
    for (unsigned r = 0; r < sk_status_nrows(s); r++)
        if (fputs(sk_status_cell(s, r, 0), out) < 0)
            return -1;
    return 0;
}

/* One try at the whole dump into *text; returns 0, 1 (failed: said
 * why), or -1 (a page was gone: try again). */
static int dump_once(const char *ep, const char *key, double timeout,
                     char **text, size_t *len, char *summary, size_t slen)
{
    FILE *f = open_memstream(text, len);
    if (f == NULL) {
        fprintf(stderr, WHO ": out of memory\n");
        return 1;
    }
    sk_status *s;
    if (cli_query(WHO, ep, key, "flow-dump", timeout, &s) != 0) {
        fclose(f);
        return 1;
    }
    const char *id = sk_status_get(s, "dump");
    snprintf(summary, slen, "round %s, cost %s",
             sk_status_get(s, "round") ? sk_status_get(s, "round") : "?",
             sk_status_get(s, "cost") ? sk_status_get(s, "cost") : "?");
    char dump_id[32];
    snprintf(dump_id, sizeof dump_id, "%s", id != NULL ? id : "");
    int rc = 0;
    for (;;) {
        const char *next = sk_status_get(s, "next");
        if (dump_id[0] == '\0' || next == NULL || put_cells(s, f) != 0) {
            fprintf(stderr,
                    WHO ": %s answered no dump page (is it a flow node?)\n",
                    ep);
            rc = 1;
            break;
        }
        if (strcmp(next, "end") == 0)
            break;
        char q[96];
        snprintf(q, sizeof q, "flow-dump %s %s", dump_id, next);
        fflush(f);
        unsigned long long want = strtoull(next, NULL, 10);
        sk_status_free(s);
        s = NULL;
        int qr = sk_status_query(ep, key, q, timeout, 1, &s);
        if (qr != 0) {
            fprintf(stderr, WHO ": no answer from %s: %s\n", ep,
                    sk_strerror(qr));
            rc = 1;
            break;
        }
        const char *off = sk_status_get(s, "offset");
        if (sk_status_get(s, "error") != NULL || off == NULL ||
            strtoull(off, NULL, 10) != want) {
            rc = -1; /* replaced by a newer dump meanwhile */
            break;
        }
    }
    sk_status_free(s);
    if (fclose(f) != 0 && rc == 0) {
        fprintf(stderr, WHO ": out of memory\n");
        rc = 1;
    }
    return rc;
}

static int dump(const char *ep, const char *key, double timeout,
                const char *path)
{
    char *text = NULL, summary[128] = "";
    size_t len = 0;
    int rc = -1;
    for (int i = 0; i < DUMP_TRIES && rc < 0; i++) {
        free(text);
        text = NULL;
        rc = dump_once(ep, key, timeout, &text, &len, summary, sizeof summary);
    }
    if (rc < 0)
        fprintf(stderr,
                WHO ": the dump was replaced %d times while it was read "
                    "(someone else dumps too): try again\n",
                DUMP_TRIES);
    if (rc != 0) {
        free(text);
        return 1;
    }
    FILE *out = path == NULL ? stdout : fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, WHO ": %s: %s\n", path, strerror(errno));
        free(text);
        return 1;
    }
    int bad = fwrite(text, 1, len, out) != len;
    if (out != stdout)
        bad |= fclose(out) != 0;
    else
        bad |= fflush(out) != 0;
    free(text);
    if (bad) {
        fprintf(stderr, WHO ": writing %s failed\n",
                path != NULL ? path : "the dump");
        return 1;
    }
    if (path != NULL)
        fprintf(stderr, "wrote %zu bytes to %s (%s)\n", len, path, summary);
    return 0;
}

/* Makes flowd's "explain SPEC TASK" of the command's arguments. */
static int explain_query(int argc, char **argv, char *q, size_t len)
{
    char spec[64];
    const char *task;
    if (argc == 1) {
        const char *slash = strrchr(argv[0], '/');
        if (slash == NULL || (size_t)(slash - argv[0]) >= sizeof spec)
            return -1;
        snprintf(spec, sizeof spec, "%.*s", (int)(slash - argv[0]), argv[0]);
        task = slash + 1;
    } else if (argc == 2) {
        if (strlen(argv[0]) >= sizeof spec)
            return -1;
        snprintf(spec, sizeof spec, "%s", argv[0]);
        task = argv[1];
    } else {
        return -1;
    }
    /* [SCHED/]JOB and TASK: decimal numbers */
    unsigned long v;
    char *slash = strchr(spec, '/');
    if (slash != NULL) {
        *slash = '\0';
        if (cli_parse_ulong(spec, 0, UINT32_MAX, &v) != 0)
            return -1;
        *slash = '/';
    }
    char *job = slash != NULL ? slash + 1 : spec;
    char *end;
    errno = 0;
    if (*job < '0' || *job > '9' || (strtoull(job, &end, 10), errno != 0) ||
        *end != '\0' || cli_parse_ulong(task, 0, 99999, &v) != 0)
        return -1;
    snprintf(q, len, "explain %s %lu", spec, v);
    return 0;
}

/* `flow constraints`: the pairs, then the table with a header line. */
static int constraints(const char *ep, const char *key, double timeout)
{
    sk_status *s;
    if (cli_query(WHO, ep, key, "constraints", timeout, &s) != 0)
        return 1;
    if (sk_status_get(s, "pairs_checked") == NULL) {
        fprintf(stderr, WHO ": %s answered no constraint counts\n", ep);
        sk_status_free(s);
        return 1;
    }
    for (unsigned i = 0; i < sk_status_nkv(s); i++)
        printf("%s %s\n", sk_status_key(s, i), sk_status_value(s, i));
    unsigned nc = sk_status_ncolumns(s);
    for (unsigned k = 0; nc > 0 && k < nc; k++)
        printf("%s%s", k > 0 ? " " : "", sk_status_column(s, k));
    if (nc > 0)
        printf("\n");
    for (unsigned r = 0; r < sk_status_nrows(s); r++)
        for (unsigned k = 0; k < nc; k++)
            printf("%s%s", sk_status_cell(s, r, k), k + 1 < nc ? " " : "\n");
    sk_status_free(s);
    return fflush(stdout) == 0 ? 0 : 1;
}

static int explain(const char *ep, const char *key, double timeout,
                   const char *q)
{
    sk_status *s;
    if (cli_query(WHO, ep, key, q, timeout, &s) != 0)
        return 1;
    for (unsigned r = 0; r < sk_status_nrows(s); r++)
        printf("%s\n", sk_status_cell(s, r, 0));
    sk_status_free(s);
    return fflush(stdout) == 0 ? 0 : 1;
}

int cmd_flow(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"flowd", required_argument, NULL, 'f'},
        CLI_CONN_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    if (argc >= 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        flow_usage(stdout);
        return 0;
    }
    if (argc < 2 ||
        (strcmp(argv[1], "dump") != 0 && strcmp(argv[1], "explain") != 0 &&
         strcmp(argv[1], "constraints") != 0)) {
        fprintf(stderr, WHO ": dump, explain or constraints (see skylark "
                            "flow --help)\n");
        return 2;
    }
    bool is_dump = strcmp(argv[1], "dump") == 0;
    bool is_cons = strcmp(argv[1], "constraints") == 0;
    const char *out = NULL, *flowd = NULL;
    cli_conn o = {.co_timeout = 10, .co_timeout_max = 3600};
    int c;
    argc--;
    argv++;
    optind = 0;
    argv[0] = is_dump   ? (char *)WHO " dump"
              : is_cons ? (char *)WHO " constraints"
                        : (char *)WHO " explain";
    while ((c = getopt_long(argc, argv, "o:f:t:d:K:h", longopts, NULL)) != -1) {
        int taken = cli_conn_opt(&o, WHO, c, optarg);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'f':
            flowd = optarg;
            break;
        case 'h':
            flow_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark flow --help)\n");
            return 2;
        }
    }
    char q[128];
    if (is_dump && (optind < argc)) {
        fprintf(stderr, WHO " dump: no arguments (--out FILE writes a file)\n");
        return 2;
    }
    if (is_cons && (optind < argc || out != NULL)) {
        fprintf(stderr, WHO " constraints: no arguments, no --out\n");
        return 2;
    }
    if (!is_dump && !is_cons && out != NULL) {
        fprintf(stderr, WHO " explain: --out is for dump\n");
        return 2;
    }
    if (!is_dump && !is_cons &&
        explain_query(argc - optind, argv + optind, q, sizeof q) != 0) {
        fprintf(stderr, WHO " explain: give [SCHED/]JOB TASK or "
                            "[SCHED/]JOB/TASK, numbers\n");
        return 2;
    }
    if (flowd != NULL && cli_check_endpoint(WHO, "--flowd", flowd) != 0)
        return 2;
    char ep[256], keybuf[4200];
    if (cli_flowd(WHO, o.co_dir, flowd, ep, sizeof ep) != 0)
        return 1;
    const char *key = cli_key_file(o.co_key, o.co_dir, keybuf, sizeof keybuf);
    if (is_cons)
        return constraints(ep, key, o.co_timeout);
    return is_dump ? dump(ep, key, o.co_timeout, out)
                   : explain(ep, key, o.co_timeout, q);
}
