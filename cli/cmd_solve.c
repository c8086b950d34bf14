/*
 * cmd_solve.c - `skylark solve`: read a DIMACS network and its rounds of
 * changes, solve after each, print the solutions in DIMACS form.
 */
#include "config.h"
#include "flowcore.h"
#include "sk_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void solve_usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark solve [--algorithm ssp|cost-scaling|relax|race] "
        "[--stats] [FILE|-]\n"
        "\n"
        "Reads a min-cost flow network in DIMACS form (p min, n, a) from\n"
        "FILE or standard input, optionally followed by rounds of changes\n"
        "in Firmament's extended format (n, a, x, r, d), each ended by\n"
        "'c EOI' ('c EOS' ends the run). After the network and after every\n"
        "round it prints the optimal cost as 's COST' and each arc with\n"
        "flow as 'f SRC DST FLOW'; rounds are solved incrementally from\n"
        "the previous solution.\n"
        "\n"
        "  -a, --algorithm NAME  solver to use (default: race)\n"
        "  -s, --stats           print a 'c' line per solution with the\n"
        "                        algorithm asked for, the one that won\n"
        "                        (they differ for race) and the time\n"
        "  -h, --help            this text\n"
        "  -V, --version         the version\n"
        "\n"
        "Exit status: 0 every round solved, 1 a round was infeasible,\n"
        "2 bad usage or input.\n");
}

/* Solve the reader's network and print the solution; returns 0, 1 if it
 * is infeasible, or 1 after another failure. */
static int solve_round(fc_dimacs_reader *r, const fc_solve_options *opt,
                       bool stats, int round)
{
    fc_graph *g = fc_dimacs_graph(r);
    fc_solve_stats st;
    int rc = fc_solve(g, opt, &st);
    if (rc == FC_EINFEASIBLE) {
        printf("c round %d: infeasible\n", round);
        fprintf(stderr, "skylark solve: round %d: %s\n", round,
                fc_strerror(rc));
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "skylark solve: round %d: %s\n", round,
                fc_strerror(rc));
        return 1;
    }
    if (stats)
        printf("c round %d algorithm %s winner %s seconds %.6f work %llu "
               "nodes %d arcs %d\n",
               round, fc_algorithm_name(opt->so_algorithm),
               fc_algorithm_name(st.ss_algorithm), st.ss_seconds,
               (unsigned long long)st.ss_iterations, fc_graph_node_count(g),
               fc_graph_arc_count(g));
    if (fc_dimacs_write_flow(g, r, stdout) != 0) {
        fprintf(stderr, "skylark solve: writing the solution failed\n");
        return 1;
    }
    fflush(stdout);
    return 0;
}

int cmd_solve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"stats", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_incremental = true;
    bool stats = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "a:shV", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (fc_algorithm_parse(optarg, &opt.so_algorithm) != 0) {
                fprintf(stderr,
                        "skylark solve: unknown algorithm '%s' (ssp, "
                        "cost-scaling, relax or race)\n",
                        optarg);
                return 2;
            }
            break;
        case 's':
            stats = true;
            break;
        case 'h':
            solve_usage(stdout);
            return 0;
        case 'V':
            printf("skylark %s\n", PACKAGE_VERSION);
            return 0;
        default:
            solve_usage(stderr);
            return 2;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, "skylark solve: one input file at most\n");
        return 2;
    }
    const char *name = optind < argc ? argv[optind] : "-";
    FILE *in = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
    if (in == NULL) {
        perror(name);
        return 2;
    }
    fc_dimacs_reader *r;
    if (fc_dimacs_reader_new(NULL, &r) != 0) {
        fprintf(stderr, "skylark solve: out of memory\n");
        if (in != stdin)
            fclose(in);
        return 1;
    }
    int status = 0;
    for (int round = 0;; round++) {
        fc_dimacs_end end;
        size_t lines;
        int rc = fc_dimacs_read(r, in, strcmp(name, "-") == 0 ? "stdin" : name,
                                &end, &lines);
        if (rc != 0) {
            fprintf(stderr, "skylark solve: %s\n", fc_dimacs_error(r));
            status = rc == FC_ENOMEM ? 1 : 2;
            break;
        }
        /* Trailing comments after the last round are no round. */
        if (round > 0 && lines == 0 && end != FC_DIMACS_EOI)
            break;
        /* A failed solve does not stop the run: later rounds may fix it. */
        if (solve_round(r, &opt, stats, round) != 0)
            status = 1;
        if (end != FC_DIMACS_EOI)
            break;
    }
    fc_dimacs_reader_free(r);
    if (in != stdin)
        fclose(in);
    return status;
}
