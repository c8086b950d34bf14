/*
 * test_cli_status_json.c - `skylark status --json` and `skylark cluster
 * status --json` against a local cluster (`skylark cluster up` of 1
 * scheduler and 2 node monitors in a temporary directory): python3's
 * json module reads every output, and what it reads agrees with the text
 * output (role, name, address, the values shown, the daemons and their
 * states); a user name with a quote, a backslash, control bytes and a
 * byte that is not UTF-8 comes back in the node monitor's table as the
 * same string (the bad byte as U+FFFD). The cluster is stopped at exit.
 */
#include "cli_run.h"
#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];
static char json_path[300];

static void cleanup(void)
{
    if (dir[0] == '\0')
        return;
    cr_sky(20, NULL, "cluster", "down", "--dir", dir, "--grace", "2", NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    dir[0] = '\0';
}

/* The endpoint of the daemon called name, from the cluster file. */
static const char *endpoint_of(const char *name)
{
    return cr_endpoint_of(dir, name);
}

/* Feed the last command's stdout to python3 running script (which reads
 * the document as `d`, json.load'ed, and prints lines); its output goes
 * to out. Returns python3's exit status. */
static int py(const char *script, char *out, size_t len)
{
    FILE *f = fopen(json_path, "w");
    if (f == NULL || fputs(R.r_out, f) < 0 || fclose(f) != 0)
        tap_bail_out("cannot write %s", json_path);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json, sys\n"
             "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
             "%s' %s 2>&1",
             script, json_path);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        tap_bail_out("popen: %s", strerror(errno));
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value printed after label in the text output ("  label   value"). */
static const char *text_value(const char *label)
{
    static char v[64];
    v[0] = '\0';
    const char *p = strstr(R.r_out, label);
    if (p != NULL)
        sscanf(p + strlen(label), " %63s", v);
    return v;
}

int main(void)
{
    if (cr_skylark() == NULL)
        tap_skip_all("no skylark tool under $top_builddir");
    if (system("python3 -c 1 2>/dev/null") != 0)
        tap_skip_all("no python3");
    tap_timeout(120);
    tap_plan(8);
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "%s/skylark-json-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp: %s", strerror(errno));
    snprintf(json_path, sizeof json_path, "%s/out.json", dir);
    atexit(cleanup);

    cr_sky(40, NULL, "cluster", "up", "--dir", dir, "--nodes", "2", "--slots",
           "1", NULL);
    if (R.r_status != 0)
        tap_bail_out("cluster up: %s", R.r_err);
    /* A user whose name needs escaping, in the node monitors' tables. */
    const char *odd = "we\"ird\\u\t\x01\xff";
    cr_sky(30, NULL, "run", "--dir", dir, "--user", odd, "-n", "4", "--",
           "true", NULL);
    tap_ok(R.r_status == 0, "a job of an oddly named user runs");

    char out[8192], ep[128];
    snprintf(ep, sizeof ep, "%s", endpoint_of("sched0"));
    cr_sky(10, NULL, "status", "--dir", dir, ep, NULL);
    char nodes[64], launched[64];
    snprintf(nodes, sizeof nodes, "%s", text_value("node monitors "));
    snprintf(launched, sizeof launched, "%s",
             text_value("task attempts launched "));
    cr_sky(10, NULL, "status", "--json", "--dir", dir, ep, NULL);
    int rc = py("v = d[\"values\"]\n"
                "print(d[\"role\"], d[\"name\"], d[\"address\"], "
                "v[\"nodes\"], v[\"tasks_launched\"], "
                "isinstance(d[\"time_us\"], int), d[\"time\"][-1], "
                "isinstance(d[\"rows\"], list), "
                "all(set(r) == set(d[\"columns\"]) for r in d[\"rows\"]))",
                out, sizeof out);
    char want[512];
    snprintf(want, sizeof want, "scheduler sched0 %s %s %s True Z True True\n",
             ep, nodes, launched);
    tap_ok(R.r_status == 0 && rc == 0 && strcmp(out, want) == 0 &&
               strcmp(nodes, "2") == 0,
           "status --json of the scheduler: valid, and as the text says "
           "(%s node monitors, %s tasks launched)",
           nodes, launched);
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted: %s", out, want);

    snprintf(ep, sizeof ep, "%s", endpoint_of("n0"));
    cr_sky(10, NULL, "status", "--dir", dir, ep, NULL);
    char slots[64];
    snprintf(slots, sizeof slots, "%s", text_value("slots "));
    cr_sky(10, NULL, "status", "--json", "--dir", dir, ep, NULL);
    rc = py("print(d[\"role\"], d[\"name\"], d[\"values\"][\"slots_total\"], "
            "d[\"columns\"][0])",
            out, sizeof out);
    snprintf(want, sizeof want, "nodemon n0 %s user\n", slots);
    tap_ok(rc == 0 && strcmp(out, want) == 0,
           "status --json of a node monitor: valid, and as the text says");
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted: %s", out, want);
    int any = 0;
    for (int i = 0; i < 2 && !any; i++) {
        cr_sky(10, NULL, "status", "--json", "--dir", dir,
               endpoint_of(i ? "n1" : "n0"), NULL);
        rc = py("print(any(r[\"user\"] == \"we\\\"ird\\\\u\\t\\x01\\ufffd\" "
                "for r in d[\"rows\"]))",
                out, sizeof out);
        any = rc == 0 && strcmp(out, "True\n") == 0;
    }
    tap_ok(any, "the odd user name comes back escaped and whole, its bad "
                "byte as U+FFFD");
    if (!any)
        tap_diag("python3 said: %s; the document: %s", out, R.r_out);

    cr_sky(20, NULL, "cluster", "status", "--json", "--dir", dir, NULL);
    rc = py("print(d[\"cluster\"])\n"
            "for x in d[\"daemons\"]:\n"
            "    print(x[\"kind\"], x[\"name\"], x[\"state\"], "
            "x[\"answer\"][\"role\"], x[\"answer\"][\"name\"], "
            "x[\"address\"] == x[\"answer\"][\"address\"], "
            "isinstance(x[\"pid\"], int))",
            out, sizeof out);
    snprintf(want, sizeof want,
             "%s\nflowd flowd up flowd flowd True True\n"
             "scheduler sched0 up scheduler sched0 True True\n"
             "nodemon n0 up nodemon n0 True True\n"
             "nodemon n1 up nodemon n1 True True\n",
             dir);
    tap_ok(R.r_status == 0 && rc == 0 && strcmp(out, want) == 0,
           "cluster status --json: every daemon, up, with its answer");
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted: %s", out, want);
    char first[8192];
    snprintf(first, sizeof first, "%s", out);

    cr_sky(20, NULL, "status", "--json", "--dir", dir, NULL);
    rc = py("print(d[\"cluster\"])\n"
            "for x in d[\"daemons\"]:\n"
            "    print(x[\"kind\"], x[\"name\"], x[\"state\"], "
            "x[\"answer\"][\"role\"], x[\"answer\"][\"name\"], "
            "x[\"address\"] == x[\"answer\"][\"address\"], "
            "isinstance(x[\"pid\"], int))",
            out, sizeof out);
    tap_ok(R.r_status == 0 && rc == 0 && strcmp(out, first) == 0,
           "status --json without an address: the same document");

    cr_sky(20, NULL, "status", "--dir", dir, NULL);
    int ups = 0;
    for (const char *p = R.r_out; (p = strstr(p, "  up  ")) != NULL; p++)
        ups++;
    tap_ok(ups == 4, "the text view agrees: 4 daemons up (flowd too)");

    cr_sky(10, NULL, "status", "--json", "tcp://127.0.0.1:1", "--timeout",
           "0.3", NULL);
    tap_ok(R.r_status == 1 && R.r_out[0] == '\0' &&
               strstr(R.r_err, "no answer from") != NULL,
           "no answer: exit 1, the reason on stderr, nothing on stdout");
    return tap_exit_status();
}
