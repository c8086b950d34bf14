/*
 * skylark.c - the `skylark` command-line tool: dispatches to a subcommand
 * (sk_cli.h), and answers --help and --version itself.
 */
#include "config.h"
#include "sk_cli.h"
#include "sk_log.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *cm_name;
    int (*cm_run)(int argc, char **argv);
    const char *cm_summary;
} command;

static const command commands[] = {
    {"cluster", cmd_cluster,
     "start, inspect or stop a local cluster (up, status, down)"},
    {"run", cmd_run, "run a job of N copies of a command and summarise it"},
    {"executor", cmd_executor,
     "run a framework's tasks as shell commands beside a node monitor"},
    {"status", cmd_status, "what a daemon (or the local cluster) is doing"},
    {"dashboard", cmd_dashboard,
     "a live web view of the local cluster, on loopback"},
    {"key", cmd_key, "make a cluster key (authenticated clusters)"},
    {"user", cmd_user, "issue a user's token from the cluster key"},
    {"load", cmd_load,
     "run a mixed workload of short jobs from several users, summarised"},
    {"jobs", cmd_jobs,
     "the jobs in flight at the schedulers and the flow node"},
    {"cancel", cmd_cancel, "cancel a job in flight, as an operator"},
    {"flow", cmd_flow,
     "the flow node's network: dump it, explain a task's place"},
    {"solve", cmd_solve,
     "solve a min-cost flow network (DIMACS) and its change rounds"},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: skylark COMMAND [ARGS...]\n"
                 "       skylark --help | --version\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].cm_name,
                commands[i].cm_summary);
    fprintf(out, "\n`skylark COMMAND --help` describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("skylark %s\n", PACKAGE_VERSION);
        return 0;
    }
    /* The library's own log lines (sessions coming and going) are not for
     * the person at the terminal; warnings and errors are. */
    sk_log_set_component("skylark");
    sk_log_set_level(SK_LOG_WARN);
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].cm_name) == 0)
            return commands[i].cm_run(argc - 1, argv + 1);
    fprintf(stderr, "skylark: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
