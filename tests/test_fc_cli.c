/*
 * test_fc_cli.c - `skylark solve` as a user runs it: help and version,
 * solutions printed after the network and after every round of changes
 * (checked against the library solving each round from scratch), --stats,
 * every algorithm, totals beyond 64 bits printed exactly, and the exit
 * status for infeasible networks, bad input and bad usage.
 */
#include "config.h"
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char skylark[1024];
static char tmpdir[256];

/* Run `skylark ARGS < input`; stdout and stderr go to out and err (NUL
 * terminated, truncated to len). Returns the exit status, -1 if it did not
 * exit normally. */
static int run(const char *args, const char *input, char *out, char *err,
               size_t len)
{
    char in_path[512], out_path[512], err_path[512], cmd[4096];
    snprintf(in_path, sizeof in_path, "%s/in", tmpdir);
    snprintf(out_path, sizeof out_path, "%s/out", tmpdir);
    snprintf(err_path, sizeof err_path, "%s/err", tmpdir);
    FILE *f = fopen(in_path, "w");
    if (f == NULL)
        tap_bail_out("cannot write %s", in_path);
    fputs(input, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' %s < '%s' > '%s' 2> '%s'", skylark, args,
             in_path, out_path, err_path);
    int status = system(cmd);
    const char *paths[2] = {out_path, err_path};
    char *bufs[2] = {out, err};
    for (int i = 0; i < 2; i++) {
        f = fopen(paths[i], "r");
        size_t n = f ? fread(bufs[i], 1, len - 1, f) : 0;
        bufs[i][n] = '\0';
        if (f)
            fclose(f);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A network and two rounds: a task arrives, then one finishes and an arc
 * gets dearer. */
static const char *rounds_text =
    "c three tasks, two machines, a sink\n"
    "p min 7 9\n"
    "n 1 1 1\nn 2 1 1\nn 3 1 1\nn 7 -3 3\n"
    "a 1 4 0 1 3\na 2 4 0 1 1\na 3 5 0 1 2\na 1 6 0 1 50\n"
    "a 2 6 0 1 50\na 3 6 0 1 50\n"
    "a 4 7 0 1 0\na 5 7 0 2 0\na 6 7 0 9 0\n"
    "c EOI\n"
    "d 1 0 3 1\na 0 4 0 1 0\na 0 5 0 1 4\na 0 6 0 1 50\n"
    "c EOI\n"
    "r 2\nx 3 5 0 1 30\n"
    "c EOI\n";

/* The cost of each section of text, each solved from scratch by the
 * library; returns the number of sections. */
static int expected_costs(const char *text, int64_t *costs, int max)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    fc_dimacs_reader *r;
    fc_dimacs_reader_new(NULL, &r);
    int n = 0;
    for (; n < max; n++) {
        fc_dimacs_end end;
        size_t lines;
        if (fc_dimacs_read(r, f, "expected", &end, &lines) != 0 ||
            (n > 0 && lines == 0 && end != FC_DIMACS_EOI))
            break;
        fc_solve_options opt = fct_options(FC_ALG_SSP, false);
        fc_solve_stats st;
        if (fc_solve(fc_dimacs_graph(r), &opt, &st) != 0)
            tap_bail_out("reference solve failed");
        costs[n] = st.ss_cost;
        if (end != FC_DIMACS_EOI) {
            n++;
            break;
        }
    }
    fc_dimacs_reader_free(r);
    fclose(f);
    return n;
}

/* The costs of the s lines of an output, in order, and the number of f
 * lines with a positive flow. Returns the number of s lines. */
static int s_lines(const char *out, int64_t *costs, int max, int *f_lines)
{
    int n = 0;
    *f_lines = 0;
    for (const char *p = out; *p != '\0';) {
        int64_t v;
        int a, b;
        if (sscanf(p, "s %" SCNd64, &v) == 1 && n < max)
            costs[n++] = v;
        else if (sscanf(p, "f %d %d %" SCNd64, &a, &b, &v) == 3 && v > 0)
            ++*f_lines;
        const char *nl = strchr(p, '\n');
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return n;
}

static void test_help_and_version(char *out, char *err, size_t len)
{
    tap_ok(run("--help", "", out, err, len) == 0 &&
               strstr(out, "usage: skylark COMMAND") && strstr(out, "solve"),
           "skylark --help lists the commands");
    tap_ok(run("--version", "", out, err, len) == 0 &&
               strcmp(out, "skylark " PACKAGE_VERSION "\n") == 0,
           "skylark --version: %s", out);
    tap_ok(run("solve --help", "", out, err, len) == 0 &&
               strstr(out, "--algorithm") && strstr(out, "Exit status"),
           "skylark solve --help describes the options");
    tap_ok(run("", "", out, err, len) == 2 && strstr(err, "usage:"),
           "no command: usage on stderr, status 2");
    tap_ok(run("frobnicate", "", out, err, len) == 2 &&
               strstr(err, "unknown command 'frobnicate'"),
           "unknown command: status 2");
    tap_ok(run("solve --algorithm simplex", "", out, err, len) == 2 &&
               strstr(err, "unknown algorithm 'simplex'"),
           "unknown algorithm: status 2");
    tap_ok(run("solve --bogus", "", out, err, len) == 2,
           "unknown option: status 2");
    tap_ok(run("solve /nonexistent/graph.min", "", out, err, len) == 2 &&
               strstr(err, "/nonexistent/graph.min"),
           "missing file: status 2, named");
    tap_ok(run("solve a b", "", out, err, len) == 2, "two files: status 2");
}

static void test_rounds(char *out, char *err, size_t len)
{
    int64_t want[8], got[8];
    int nwant = expected_costs(rounds_text, want, 8);
    tap_is_int(nwant, 3, "the reference solves three sections");
    for (int i = 0; i <= FC_ALG_RACE; i++) {
        const char *name = fc_algorithm_name((fc_algorithm)i);
        char args[128];
        snprintf(args, sizeof args, "solve --algorithm %s --stats -", name);
        int status = run(args, rounds_text, out, err, len);
        int flines;
        int n = s_lines(out, got, 8, &flines);
        bool same = n == nwant;
        for (int k = 0; same && k < n; k++)
            same = got[k] == want[k];
        tap_ok(status == 0 && same && flines >= 9,
               "%s: status %d, %d solutions matching the reference "
               "(%" PRId64 ", %" PRId64 ", %" PRId64 "), %d flow lines",
               name, status, n, want[0], want[1], want[2], flines);
        /* The race names the algorithm that won it. */
        bool named = false;
        for (int w = 0; w <= FC_ALG_RACE; w++) {
            char stat_line[64];
            snprintf(stat_line, sizeof stat_line,
                     "c round 2 algorithm %s winner %s seconds ", name,
                     fc_algorithm_name((fc_algorithm)w));
            if (strstr(out, stat_line) == NULL)
                continue;
            named = i == FC_ALG_RACE
                        ? w == FC_ALG_RELAX || w == FC_ALG_COST_SCALING
                        : w == i;
        }
        tap_ok(named,
               "%s: --stats names the algorithm (for race, the winner) and "
               "the time",
               name);
    }
}

static void test_failures(char *out, char *err, size_t len)
{
    const char *infeasible = "p min 2 1\nn 1 2\nn 2 -2\na 1 2 0 1 1\n";
    tap_ok(run("solve --algorithm ssp", infeasible, out, err, len) == 1 &&
               strstr(out, "c round 0: infeasible") &&
               strstr(err, "infeasible"),
           "infeasible network: status 1");
    const char *bad = "p min 2 1\nn 1 1\nn 2 -1\na 1 2 0 1 x\n";
    tap_ok(run("solve --algorithm ssp", bad, out, err, len) == 2 &&
               strstr(err, "stdin:4: cost 'x'") != NULL,
           "bad input: status 2, line named: %s", err);
    const char *bad_round = "p min 2 1\nn 1 1\nn 2 -1\na 1 2 0 1 1\nc EOI\n"
                            "r 9\nc EOI\n";
    tap_ok(run("solve --algorithm ssp", bad_round, out, err, len) == 2 &&
               strncmp(out, "s 1\n", 4) == 0 &&
               strstr(err, "stdin:6: node 9 does not exist") != NULL,
           "a bad round after a good network: the network's solution, then "
           "status 2");
    const char *recovers = "p min 2 1\nn 1 2\nn 2 -2\na 1 2 0 1 1\nc EOI\n"
                           "x 1 2 0 2 1\nc EOI\n";
    tap_ok(run("solve --algorithm ssp", recovers, out, err, len) == 1 &&
               strstr(out, "c round 0: infeasible") && strstr(out, "s 2\n"),
           "an infeasible round, then a feasible one: both reported, "
           "status 1");
}

/* Totals at the documented limits, which pass 2^63: the cost is printed
 * exactly, whatever the algorithm. The expected decimals were computed
 * outside flowcore (Python's integers): (2^32 - 1) * (2^40 - 1) and
 * 199 * 2^32 * 2^40. Before flowcore summed in 128 bits the first printed
 * "s -1103806595071" and the second "s 0", both with status 0. */
static void test_wide_totals(char *out, char *err, size_t len)
{
    const char *one_arc = "p min 2 1\nn 1 1099511627775\n"
                          "n 2 -1099511627775\n"
                          "a 1 2 0 1099511627775 4294967295\n";
    static char chain[16384];
    int at = snprintf(chain, sizeof chain,
                      "p min 200 199\nn 1 1099511627776\n"
                      "n 200 -1099511627776\n");
    for (int i = 1; i < 200 && at < (int)sizeof chain; i++)
        at += snprintf(chain + at, sizeof chain - (size_t)at,
                       "a %d %d 0 1099511627776 4294967296\n", i, i + 1);
    if (at >= (int)sizeof chain)
        tap_bail_out("the chain's text does not fit");
    for (int i = 0; i <= FC_ALG_RACE; i++) {
        const char *name = fc_algorithm_name((fc_algorithm)i);
        char args[128];
        snprintf(args, sizeof args, "solve --algorithm %s -", name);
        int status = run(args, one_arc, out, err, len);
        tap_ok(status == 0 && strcmp(out, "s 4722366481765838618625\n"
                                          "f 1 2 1099511627775\n") == 0,
               "%s: one arc of cost 2^32 - 1 carrying 2^40 - 1: "
               "s 4722366481765838618625 (status %d, printed %.60s)",
               name, status, out);
        status = run(args, chain, out, err, len);
        tap_ok(status == 0 &&
                   strncmp(out, "s 939750930091059397525504\n", 27) == 0 &&
                   strstr(out, "f 199 200 1099511627776\n") != NULL,
               "%s: a chain of 199 arcs of cost 2^32 carrying 2^40: "
               "s 939750930091059397525504 (status %d, printed %.40s)",
               name, status, out);
    }
}

int main(void)
{
    tap_timeout(60);
    const char *top = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark",
             top != NULL ? top : ".");
    if (access(skylark, X_OK) != 0)
        tap_bail_out("%s is not built", skylark);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_fc_cli.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        tap_bail_out("mkdtemp failed");
    tap_plan_lazy();
    static char out[1 << 16], err[1 << 16];
    test_help_and_version(out, err, sizeof out);
    test_rounds(out, err, sizeof out);
    test_failures(out, err, sizeof out);
    test_wide_totals(out, err, sizeof out);
    char path[600];
    const char *names[] = {"in", "out", "err"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    tap_done();
    return tap_exit_status();
}
