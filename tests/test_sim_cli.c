/*
 * test_sim_cli.c - the skylark-sim and skylark-trace2jobs commands: help
 * and version, exit status 2 for bad usage and bad input with the error
 * on stderr, no progress line when stderr is not a terminal, a generated
 * job file that replays to the same records, the summary CSV, and gnuplot
 * figures (when gnuplot is installed).
 */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char sim[1024], t2j[1024];
static char tmpdir[] = "/tmp/test_sim_cli.XXXXXX";
static char out[1 << 16], err[1 << 16];

/* run runs `prog ARGS` with stdout and stderr to out and err. Returns the
 * exit status, -1 if it did not exit normally. */
static int run(const char *prog, const char *args)
{
    char cmd[4096], op[512], ep[512];
    snprintf(op, sizeof op, "%s/out", tmpdir);
    snprintf(ep, sizeof ep, "%s/err", tmpdir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s > '%s' 2> '%s' < /dev/null",
             tmpdir, prog, args, op, ep);
    int status = system(cmd);
    const char *paths[2] = {op, ep};
    char *bufs[2] = {out, err};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(paths[i], "r");
        size_t n = f ? fread(bufs[i], 1, sizeof out - 1, f) : 0;
        bufs[i][n] = '\0';
        if (f)
            fclose(f);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        *len = 0;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static bool exists(const char *name)
{
    char path[512];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return stat(path, &sb) == 0 && sb.st_size > 0;
}

static void test_usage(void)
{
    tap_ok(run(sim, "--help") == 0 && strstr(out, "usage: skylark-sim") &&
               strstr(out, "--strategy"),
           "--help prints the usage on stdout, exit 0");
    tap_ok(run(sim, "--version") == 0 && strncmp(out, "skylark-sim ", 12) == 0,
           "--version: %.*s", (int)strcspn(out, "\n"), out);
    tap_ok(run(sim, "--bogus") == 2 && strstr(err, "--bogus") && out[0] == 0,
           "an unknown option: exit 2, named on stderr");
    tap_ok(run(sim, "--load 0") == 2 && strstr(err, "--load"),
           "a value out of range: exit 2");
    tap_ok(run(sim, "--strategy omniscient,fastest") == 2 &&
               strstr(err, "fastest"),
           "an unknown strategy: exit 2");
    tap_ok(run(sim, "--load 0.5,0.6 --tasks-out t.csv") == 2 &&
               strstr(err, "single point"),
           "per-task records of a sweep: refused");
    char path[600];
    snprintf(path, sizeof path, "%s/bad.jobs", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("0,1,u,0,short,1,1000,,\n0,2,u,0,short,1,-5,,\n", f);
    fclose(f);
    tap_ok(run(sim, "--jobs-file bad.jobs --nodes 4") == 2 &&
               strstr(err, "bad.jobs:2: durations"),
           "a bad job file: exit 2, the line and field named: %.*s",
           (int)strcspn(err, "\n"), err);
    if (access(t2j, X_OK) != 0) {
        tap_skip(1, "skylark-trace2jobs is not built (no zlib)");
        return;
    }
    tap_ok(run(t2j, "") == 2 && run(t2j, "--help") == 0 &&
               strstr(out, "usage: skylark-trace2jobs") &&
               run(t2j, "no-such-dir") == 1 && strstr(err, "no-such-dir"),
           "trace2jobs: exit 2 without a folder, 0 for --help, 1 for a "
           "folder it cannot read");
}

static void test_run_outputs(void)
{
    int rc = run(sim, "--strategy batch --nodes 20 --tasks 5 --jobs 200 "
                      "--warmup 20 --seed 4 --drain --generate gen.jobs");
    tap_ok(rc == 0 && exists("gen.jobs"), "--generate writes a job file");
    rc = run(sim, "--strategy batch --nodes 20 --tasks 5 --jobs 200 "
                  "--warmup 20 --seed 4 --drain --tasks-out a.csv "
                  "--jobs-out aj.csv");
    bool no_progress = strchr(err, '\r') == NULL && strstr(err, "point 1:");
    int rc2 = run(sim, "--strategy batch --nodes 20 --jobs-file gen.jobs "
                       "--warmup 20 --seed 4 --drain --tasks-out b.csv "
                       "--jobs-out bj.csv");
    size_t la, lb, lja, ljb;
    char *a = slurp("a.csv", &la), *b = slurp("b.csv", &lb);
    char *ja = slurp("aj.csv", &lja), *jb = slurp("bj.csv", &ljb);
    tap_ok(rc == 0 && rc2 == 0 && a && b && la == lb && la > 1000 &&
               memcmp(a, b, la) == 0 && ja && jb && lja == ljb &&
               memcmp(ja, jb, lja) == 0,
           "the generated file replays to the same per-task and per-job "
           "records");
    tap_ok(no_progress, "no progress line when stderr is not a terminal; "
                        "the performance line is there");
    free(a);
    free(b);
    free(ja);
    free(jb);
    rc = run(sim, "--strategy omniscient,late-binding --probe-ratio 1,2 "
                  "--nodes 20 --tasks 5 --load 0.3,0.6 --jobs 100 "
                  "--summary-csv s.csv --quiet");
    size_t ls;
    char *csv = slurp("s.csv", &ls);
    int lines = 0;
    for (size_t i = 0; csv && i < ls; i++)
        lines += csv[i] == '\n';
    tap_ok(rc == 0 && out[0] == '\0' && lines == 1 + 2 + 4 &&
               strncmp(csv, "strategy,ratio,load", 19) == 0,
           "a sweep: the omniscient scheduler once per load, late binding "
           "per ratio and load; one CSV row each (%d lines)",
           lines);
    free(csv);
    if (system("gnuplot --version > /dev/null 2>&1") != 0) {
        tap_skip(2, "gnuplot is not installed");
        return;
    }
    rc = run(sim, "--strategy omniscient,batch --nodes 20 --tasks 5 "
                  "--load 0.3,0.6 --jobs 100 --quiet --plot fig");
    tap_ok(rc == 0 && exists("fig/response-p50.png") &&
               exists("fig/response-p99.svg") && exists("fig/sweep.dat") &&
               exists("fig/sweep.gp"),
           "--plot draws a sweep's figures as PNG and SVG");
    rc = run(sim, "--nodes 20 --tasks 5 --jobs 100 --quiet --plot one");
    tap_ok(rc == 0 && exists("one/response-cdf.png") &&
               exists("one/wait-cdf.svg"),
           "--plot draws one point's distributions");
}

int main(void)
{
    tap_timeout(60);
    tap_plan(14);
    const char *top = getenv("top_builddir");
    char cwd[512];
    if (top == NULL && getcwd(cwd, sizeof cwd) != NULL)
        top = cwd;
    snprintf(sim, sizeof sim, "%s/sim/skylark-sim", top);
    snprintf(t2j, sizeof t2j, "%s/sim/skylark-trace2jobs", top);
    if (mkdtemp(tmpdir) == NULL)
        tap_bail_out("mkdtemp failed");
    test_usage();
    test_run_outputs();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_exit_status();
}
