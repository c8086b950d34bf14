/*
 * test_dashboard.c - `skylark dashboard` against a local cluster
 * (`skylark cluster up`: flowd, 1 scheduler, 2 node monitors x 2 slots)
 * running a job of 4 tasks that sleep: the page and /api/cluster are
 * served on a free loopback port; python3 reads the JSON and it agrees
 * with `skylark status --json` (the same daemons, states and addresses)
 * and with the job (4 slots used on 2 nodes, 1 job in flight); headless
 * Chromium (Debian chromium; skipped, saying so, where it is absent)
 * loads the page, runs its script and the rendered DOM shows the same
 * numbers. Then a long job of user alice whose tasks do not all fit
 * (flowd holds part of each node for short work): /api/handovers is
 * flowd's part of `skylark jobs --json`, /api/users flowd's sums of the
 * node monitors' heartbeats, equal to their user tables of `skylark
 * status ADDR --json` summed, /api/explain says of each task what
 * `flow explain` says (running or waiting, as many as the hand-over
 * counts) and refuses bad arguments with 400, and the page
 * loaded with #explain= of a waiting task shows flowd's answer, the
 * hand-over and alice's fair share. A non-loopback --listen exits 2;
 * SIGTERM stops it with 0. docs/OPERATIONS.md's sample Prometheus
 * configuration passes `promtool check config` (skipped without it).
 */
#include "cli_run.h"
#include "http_get.h"
#include "tap.h"
#include "transport_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NODES 2
#define SLOTS 2
#define TASKS (NODES * SLOTS)

static char dir[256], path_json[300], path_status[300], path_dom[300];
static pid_t dash, job;
static int port;
static char sched_addr[128]; /* the scheduler's address */
static long short_job;       /* the short job's id at it */

static void reap(pid_t *p, int sig)
{
    if (*p <= 0)
        return;
    kill(*p, sig);
    waitpid(*p, NULL, 0);
    *p = 0;
}

static void cleanup(void)
{
    reap(&dash, SIGKILL);
    reap(&job, SIGKILL);
    if (dir[0] == '\0')
        return;
    cr_sky(20, NULL, "cluster", "down", "--dir", dir, "--grace", "2", NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    dir[0] = '\0';
}

/* Starts the skylark tool with argv[1..] in the background, its output
 * to log. */
static pid_t spawn(const char *log, char *const argv[])
{
    pid_t p = fork();
    if (p == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (f == NULL || dup2(fileno(stdout), 2) < 0)
            _exit(127);
        execv(cr_skylark(), argv);
        _exit(127);
    }
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void save(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text != NULL ? text : "", f) < 0 || fclose(f) != 0)
        tap_bail_out("cannot write %s", path);
}

/* Runs python3 with script (which has the dashboard's JSON as `d` and
 * `skylark cluster status --json` as `s`) and puts what it prints in
 * out. Returns its exit status. */
static int py(const char *script, char *out, size_t len)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json, sys, re, os, subprocess\n"
             "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
             "s = json.load(open(sys.argv[2], encoding=\"utf-8\"))\n"
             "%s' %s %s 2>&1",
             script, path_json, path_status);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        tap_bail_out("popen: %s", strerror(errno));
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Fetches /api/cluster into path_json until its nodes use want slots
 * (timeout s). Returns the slots used last seen, or -1. */
static long wait_used(long want, double timeout)
{
    long used = -1;
    double until = now_s() + timeout;
    do {
        hg_page p = hg_request(port, "GET", "/api/cluster", NULL);
        if (p.pg_status == 200) {
            save(path_json, p.pg_body);
            char out[64];
            if (py("print(sum(r[3] for r in d[\"nodes\"][\"rows\"]))", out,
                   sizeof out) == 0)
                used = strtol(out, NULL, 10);
        }
        hg_free(&p);
        if (used == want)
            break;
        usleep(200000);
    } while (now_s() < until);
    return used;
}

static void test_json(void)
{
    tap_is_int(wait_used(TASKS, 20), TASKS,
               "/api/cluster: the job's %d tasks use %d slots", TASKS, TASKS);
    cr_sky(10, NULL, "cluster", "status", "--json", "--dir", dir, NULL);
    save(path_status, R.r_out);
    char out[4096];
    /* Node monitors are not asked while flowd answers: "running". */
    int rc = py("st = lambda x: \"up\" if x[\"state\"] == \"running\" "
                "and x[\"kind\"] == \"nodemon\" else x[\"state\"]\n"
                "a = [(x[\"kind\"], x[\"name\"], x[\"address\"], st(x)) "
                "for x in d[\"daemons\"]]\n"
                "b = [(x[\"kind\"], x[\"name\"], x[\"address\"], x[\"state\"]) "
                "for x in s[\"daemons\"]]\n"
                "print(a == b, len(a), d[\"cluster\"] == s[\"cluster\"])",
                out, sizeof out);
    tap_ok(rc == 0 && strcmp(out, "True 4 True\n") == 0,
           "the daemons, their addresses and states are those of `cluster "
           "status --json`");
    if (strcmp(out, "True 4 True\n") != 0)
        tap_diag("python3 said: %s", out);
    rc = py("n = d[\"nodes\"]\n"
            "names = sorted(x[\"name\"] for x in s[\"daemons\"] "
            "if x[\"kind\"] == \"nodemon\")\n"
            "sch = [x for x in d[\"daemons\"] if x[\"kind\"] == \"scheduler\"]"
            "[0][\"answer\"]\n"
            "print(n[\"source\"], sorted(r[0] for r in n[\"rows\"]) == names, "
            "sum(r[1] for r in n[\"rows\"]), sch[\"values\"][\"jobs\"], "
            "len(sch[\"rows\"]), sch[\"rows\"][0][\"tasks\"])",
            out, sizeof out);
    char want[128];
    snprintf(want, sizeof want, "flowd True %d 1 1 %d\n", TASKS, TASKS);
    tap_ok(rc == 0 && strcmp(out, want) == 0,
           "the node view has every node monitor (from flowd) with its "
           "slots, and the scheduler's job table its job");
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted %s", out, want);
    /* What is served, not a re-encoding: the rows as compact JSON must
     * be a substring of the body as it came. */
    rc = py("raw = open(sys.argv[1], encoding=\"utf-8\").read()\n"
            "rows = d[\"nodes\"][\"rows\"]\n"
            "c = json.dumps(rows, separators=(\",\", \":\"))\n"
            "print(c in raw and \"\\n\" not in raw.strip(), "
            "round(len(c) / len(rows)))",
            out, sizeof out);
    int per_node = 0;
    bool compact = rc == 0 && sscanf(out, "True %d", &per_node) == 1;
    tap_ok(compact && per_node > 0 && per_node < 40,
           "the JSON is served compact: the node view is %d bytes per node "
           "(names of 2 bytes)",
           per_node);
    if (per_node == 0)
        tap_diag("python3 said: %s", out);
}

/* GETs path into path_json; returns the HTTP status. */
static int get_json(const char *path)
{
    hg_page p = hg_request(port, "GET", path, NULL);
    int st = p.pg_status;
    save(path_json, p.pg_status > 0 ? p.pg_body : "{}");
    hg_free(&p);
    return st;
}

/* /api/jobs and /api/tasks against `skylark jobs --json`: the short
 * job's 4 tasks all running, 2 on each node. */
static void test_jobs(void)
{
    cr_sky(10, NULL, "jobs", "--json", "--dir", dir, NULL);
    save(path_status, R.r_out);
    char out[4096];
    /* One user, one job: the user's percentiles are the job's. The
     * document may be up to JOBS_CACHE_S (1 s) old. */
    const char *users =
        "sc = d[\"schedulers\"][0]\n"
        "c = sc[\"columns\"]\n"
        "u = [dict(zip(c, map(str, x))) for x in sc[\"rows\"]]\n"
        "j = s[\"schedulers\"][0][\"rows\"]\n"
        "k = (\"user\", \"tasks\", \"launched\", \"done\", \"progress\", "
        "\"launches\", \"wait_p50_us\", \"wait_p99_us\")\n"
        "print(len(u), len(j), all(u[0][x] == j[0][x] for x in k), "
        "u[0][\"jobs\"], u[0][\"launches\"], u[0][\"wait_p99_us\"] != \"\", "
        "sc[\"address\"] == s[\"schedulers\"][0][\"address\"])";
    char want[128];
    snprintf(want, sizeof want, "1 1 True 1 %d True True\n", TASKS);
    double until = now_s() + 5;
    int rc;
    do {
        get_json("/api/jobs");
        rc = py(users, out, sizeof out);
    } while ((rc != 0 || strcmp(out, want) != 0) && now_s() < until &&
             usleep(300000) == 0);
    tap_ok(rc == 0 && strcmp(out, want) == 0,
           "/api/jobs: the user's jobs, progress and launch-wait p50/p99 "
           "are the job's row of `skylark jobs --json`");
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted %s", out, want);
    if (py("sc = s[\"schedulers\"][0]\n"
           "print(sc[\"address\"], sc[\"rows\"][0][\"job\"])",
           out, sizeof out) != 0 ||
        sscanf(out, "%127s %ld", sched_addr, &short_job) != 2)
        tap_bail_out("no job in `skylark jobs --json`: %s", out);
    char path[300];
    snprintf(path, sizeof path, "/api/tasks?sched=%s&job=%ld", sched_addr,
             short_job);
    int st = get_json(path);
    rc = py("import collections\n"
            "c = d[\"columns\"]\n"
            "r = [dict(zip(c, x)) for x in d[\"rows\"]]\n"
            "per = collections.Counter(x[\"node\"] for x in r)\n"
            "print(d[\"tasks\"], d[\"shown\"], d[\"job\"] == "
            "int(s[\"schedulers\"][0][\"rows\"][0][\"job\"]), "
            "sorted(per.values()), set(x[\"state\"] for x in r), "
            "set(x[\"attempt\"] for x in r), "
            "[x[\"task\"] for x in r] == list(range(len(r))))",
            out, sizeof out);
    snprintf(want, sizeof want, "%d %d True [%d, %d] {'running'} {0} True\n",
             TASKS, TASKS, SLOTS, SLOTS);
    tap_ok(st == 200 && rc == 0 && strcmp(out, want) == 0,
           "/api/tasks: the job's %d tasks, running, %d on each node, first "
           "attempts",
           TASKS, SLOTS);
    if (strcmp(out, want) != 0)
        tap_diag("HTTP %d, python3 said: %s; wanted %s", st, out, want);
    snprintf(path, sizeof path, "/api/tasks?sched=%s&job=x", sched_addr);
    int bad_job = get_json(path);
    int bad_sched = get_json("/api/tasks?sched=tcp://10.1.1.1:1&job=1");
    snprintf(path, sizeof path, "/api/tasks?sched=%s&job=999999", sched_addr);
    int none = get_json(path);
    rc = py("print(\"error\" in d)", out, sizeof out);
    tap_ok(bad_job == 400 && bad_sched == 400 && none == 200 && rc == 0 &&
               strcmp(out, "True\n") == 0,
           "/api/tasks refuses a bad job and an address that is not the "
           "cluster's scheduler (400), and says error for a job not in "
           "flight (%d %d %d)",
           bad_job, bad_sched, none);
}

static void test_page(void)
{
    hg_page p = hg_request(port, "GET", "/", NULL);
    tap_ok(p.pg_status == 200 && strstr(p.pg_head, "text/html") != NULL &&
               p.pg_body != NULL &&
               strstr(p.pg_body, "<canvas id=\"nodes\"") != NULL,
           "GET / is the page, with its node canvas");
    hg_free(&p);
    p = hg_request(port, "GET", "/nope", NULL);
    tap_is_int(p.pg_status, 404, "GET /nope is 404");
    hg_free(&p);
}

/* The text of the element with id in the dumped DOM, or "". */
static const char *dom_text(const char *dom, const char *id)
{
    static char v[64];
    char pat[80];
    v[0] = '\0';
    snprintf(pat, sizeof pat, "id=\"%s\">", id);
    const char *p = strstr(dom, pat);
    if (p != NULL)
        sscanf(p + strlen(pat), "%63[^<]", v);
    return v;
}

static void test_browser(void)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0) {
        tap_skip(3, "chromium is not installed (Debian: chromium): the "
                    "page is checked through its JSON only");
        return;
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "timeout 90 chromium --headless --no-sandbox --disable-gpu "
             "--user-data-dir=%s/chromium --virtual-time-budget=5000 "
             "--dump-dom http://127.0.0.1:%d/#tasks=%ld > %s "
             "2>%s/chromium.log",
             dir, port, short_job, path_dom, dir);
    double t0 = now_s();
    int rc = system(cmd);
    double took = now_s() - t0;
    FILE *f = fopen(path_dom, "r");
    static char dom[1 << 20];
    size_t n = f != NULL ? fread(dom, 1, sizeof dom - 1, f) : 0;
    dom[n] = '\0';
    if (f != NULL)
        fclose(f);
    char want[32];
    snprintf(want, sizeof want, "%d", TASKS);
    bool ok = rc == 0 && strcmp(dom_text(dom, "n-nodes"), "2") == 0 &&
              strcmp(dom_text(dom, "n-slots"), want) == 0 &&
              strcmp(dom_text(dom, "n-used"), want) == 0 &&
              strcmp(dom_text(dom, "n-jobs"), "1") == 0;
    char seen[256];
    snprintf(seen, sizeof seen, "%s nodes, ", dom_text(dom, "n-nodes"));
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s slots, ",
             dom_text(dom, "n-slots"));
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s busy, ",
             dom_text(dom, "n-used"));
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen),
             "%s job in flight", dom_text(dom, "n-jobs"));
    tap_ok(ok, "headless Chromium ran the page (%.1f s): %s, as the JSON says",
           took, seen);
    tap_ok(strstr(dom, "<td>flowd</td>") != NULL &&
               strstr(dom, "<td>sched0</td>") != NULL &&
               strstr(dom, "<td>n1</td>") != NULL &&
               strcmp(dom_text(dom, "error"), "") == 0,
           "... and lists the daemons, with no error shown");
    /* #tasks=JOB: the job's tasks shown; the user's wait percentiles. */
    char note[64];
    snprintf(note, sizeof note, "tasks 0..%d of %d (user ", TASKS - 1, TASKS);
    int running = 0;
    const char *t = strstr(dom, "<table id=\"tasks\">");
    const char *end = t != NULL ? strstr(t, "</table>") : NULL;
    for (const char *p = t;
         end != NULL && (p = strstr(p, "<td>running</td>")) && p < end; p++)
        running++;
    tap_ok(strncmp(dom_text(dom, "tasks-note"), note, strlen(note)) == 0 &&
               running == TASKS && strstr(dom, "<td>\u2264 ") != NULL,
           "... #tasks= shows the job's %d tasks running (%s...) and the "
           "users' wait percentiles",
           running, dom_text(dom, "tasks-note"));
}

/* The long job's hand-over, once flowd has settled it (none reserved or
 * placed, some running): "SCHED/JOB RUNNING WAITING", or "" after
 * timeout s. */
static const char *wait_handover(double timeout, char *out, size_t len)
{
    double until = now_s() + timeout;
    do {
        out[0] = '\0';
        if (get_json("/api/handovers") == 200 &&
            py("c = d[\"columns\"]\n"
               "r = [dict(zip(c, x)) for x in d[\"rows\"] "
               "if x[c.index(\"user\")] == \"alice\"]\n"
               "r = r[0] if len(r) == 1 and r[0][\"running\"] > 0 and "
               "r[0][\"reserved\"] + r[0][\"placed\"] == 0 and "
               "r[0][\"waiting\"] > 0 else None\n"
               "print(\"%d/%d %d %d\" % (r[\"sched\"], r[\"job\"], "
               "r[\"running\"], r[\"waiting\"]) if r else \"\")",
               out, len) == 0 &&
            out[0] != '\0' && strchr(out, '/') != NULL)
            return out;
        usleep(200000);
    } while (now_s() < until);
    return out;
}

static void test_long(void)
{
    reap(&job, SIGTERM); /* the short job's frontend goes: it is cancelled */
    char tasks[16], jlog[300];
    snprintf(tasks, sizeof tasks, "%d", TASKS);
    snprintf(jlog, sizeof jlog, "%s/job-long.log", dir);
    char *jargv[] = {"skylark", "run", "--dir", dir,  "--long",   "-u",
                     "alice",   "-n",  tasks,   "--", "sleep 60", NULL};
    job = spawn(jlog, jargv);
    char ho[128];
    int sched = -1, hjob = -1, running = -1, waiting = -1;
    if (sscanf(wait_handover(30, ho, sizeof ho), "%d/%d %d %d", &sched, &hjob,
               &running, &waiting) != 4) {
        tap_bail_out("flowd never settled alice's long job (%s)", ho);
    }
    tap_diag("hand-over %d/%d: %d running, %d waiting", sched, hjob, running,
             waiting);

    /* The same table as `skylark jobs --json` says of flowd. */
    cr_sky(10, NULL, "jobs", "--json", "--dir", dir, NULL);
    save(path_status, R.r_out);
    char out[4096];
    int rc = py("f = s[\"flowd\"]\n"
                "a = [[str(v) for v in r] for r in d[\"rows\"]]\n"
                "b = [[r[c] for c in f[\"columns\"]] for r in f[\"rows\"]]\n"
                "print(d[\"columns\"] == f[\"columns\"], a == b, len(a), "
                "d[\"flowd\"] == f[\"address\"])",
                out, sizeof out);
    tap_ok(rc == 0 && strcmp(out, "True True 1 True\n") == 0,
           "/api/handovers is flowd's table of `skylark jobs --json`");
    if (strcmp(out, "True True 1 True\n") != 0)
        tap_diag("python3 said: %s", out);

    /* Fair share: the node monitors' user tables, summed (each asked by
     * the test after the dashboard asked it: running and queued of a
     * settled job do not change between). */
    cr_sky(10, NULL, "cluster", "status", "--json", "--dir", dir, NULL);
    save(path_status, R.r_out);
    char script[2048];
    snprintf(script, sizeof script,
             "run = {}\n"
             "for x in s[\"daemons\"]:\n"
             "  if x[\"kind\"] != \"nodemon\": continue\n"
             "  o = subprocess.run([\"%s\", \"status\", \"--json\", "
             "\"--dir\", \"%s\", x[\"address\"]], capture_output=True)\n"
             "  for r in json.loads(o.stdout)[\"rows\"]:\n"
             "    u = run.setdefault(r[\"user\"], [0, 0, 0])\n"
             "    u[0] += int(r[\"running\"]); u[1] += int(r[\"queued\"]); "
             "u[2] += 1\n"
             "c = d[\"columns\"]\n"
             "got = {r[0]: [r[c.index(\"running\")], r[c.index(\"queued\")], "
             "r[c.index(\"nodes\")]] for r in d[\"rows\"]}\n"
             "print(got == run, got.get(\"alice\", [0])[0], d[\"source\"], "
             "d.get(\"nodes_reporting\"))",
             cr_skylark(), dir);
    char want[128];
    snprintf(want, sizeof want, "True %d flowd %d\n", running, NODES);
    /* The document may be up to USERS_CACHE_S (5 s) old, and flowd's
     * sums up to a users summary period (5 s) and a heartbeat. */
    double until = now_s() + 25;
    do {
        get_json("/api/users");
        rc = py(script, out, sizeof out);
    } while ((rc != 0 || strcmp(out, want) != 0) && now_s() < until &&
             usleep(500000) == 0);
    tap_ok(rc == 0 && strcmp(out, want) == 0,
           "/api/users is flowd's sum of the node monitors' heartbeat "
           "summaries, the same as their user tables: alice runs %d "
           "tasks, as flowd says",
           running);
    if (strcmp(out, want) != 0)
        tap_diag("python3 said: %s; wanted %s", out, want);

    /* The scheduler's side of the hand-over: /api/tasks of the long job
     * names it, and each task's state agrees with flowd's counts. */
    cr_sky(10, NULL, "jobs", "--json", "--dir", dir, NULL);
    save(path_status, R.r_out);
    long ljob = -1;
    if (py("print([r[\"job\"] for r in s[\"schedulers\"][0][\"rows\"] "
           "if r[\"user\"] == \"alice\"][0])",
           out, sizeof out) == 0)
        ljob = strtol(out, NULL, 10);
    char tpath[300];
    snprintf(tpath, sizeof tpath, "/api/tasks?sched=%s&job=%ld", sched_addr,
             ljob);
    int st = get_json(tpath);
    snprintf(script, sizeof script,
             "c = d[\"columns\"]\n"
             "r = [dict(zip(c, x)) for x in d[\"rows\"]]\n"
             "st = [x[\"state\"] for x in r]\n"
             "print(str(%d) in d[\"handovers\"].split(), "
             "all(x[\"handover\"] == %d for x in r), "
             "sorted(x[\"handover_task\"] for x in r) == list(range(%d)), "
             "st.count(\"running\"), st.count(\"flow\"), "
             "[int(j[\"flow\"]) for j in s[\"schedulers\"][0][\"rows\"] "
             "if j[\"user\"] == \"alice\"][0])",
             hjob, hjob, TASKS);
    rc = py(script, out, sizeof out);
    snprintf(want, sizeof want, "True True True %d %d %d\n", running, waiting,
             waiting);
    tap_ok(st == 200 && rc == 0 && strcmp(out, want) == 0,
           "/api/tasks of the long job: its hand-over %d, each task in it, "
           "%d running and %d held by flowd, as flowd and the job's flow "
           "column count",
           hjob, running, waiting);
    if (strcmp(out, want) != 0)
        tap_diag("HTTP %d, python3 said: %s; wanted %s", st, out, want);

    /* flow explain for every task: as many running and waiting as the
     * hand-over counts. */
    int n_run = 0, n_wait = 0, a_waiting = -1;
    for (int t = 0; t < TASKS; t++) {
        char path[128];
        snprintf(path, sizeof path, "/api/explain?sched=%d&job=%d&task=%d",
                 sched, hjob, t);
        if (get_json(path) != 200 ||
            py("print(d[\"lines\"][1].split(\":\")[1].split()[0] if "
               "\"lines\" in d else d)",
               out, sizeof out) != 0)
            continue;
        if (strcmp(out, "running\n") == 0)
            n_run++;
        if (strcmp(out, "waiting\n") == 0)
            n_wait++, a_waiting = t;
    }
    tap_ok(n_run == running && n_wait == waiting,
           "/api/explain: %d tasks running and %d waiting, as the "
           "hand-over counts",
           n_run, n_wait);
    int bad = get_json("/api/explain?sched=1&job=x&task=0");
    int big = get_json("/api/explain?job=1&task=100000");
    tap_ok(bad == 400 && big == 400,
           "/api/explain refuses a job that is no number and a task past "
           "99999 with 400 (%d, %d)",
           bad, big);

    if (system("command -v chromium >/dev/null 2>&1") != 0) {
        tap_skip(1, "chromium is not installed (Debian: chromium)");
        return;
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "timeout 90 chromium --headless --no-sandbox --disable-gpu "
             "--user-data-dir=%s/chromium --virtual-time-budget=6000 "
             "--dump-dom 'http://127.0.0.1:%d/#explain=%d/%d/%d' > %s "
             "2>%s/chromium.log",
             dir, port, sched, hjob, a_waiting, path_dom, dir);
    rc = system(cmd);
    FILE *f = fopen(path_dom, "r");
    static char dom[1 << 20];
    size_t n = f != NULL ? fread(dom, 1, sizeof dom - 1, f) : 0;
    dom[n] = '\0';
    if (f != NULL)
        fclose(f);
    char spec[64], share[96], detail[96];
    snprintf(spec, sizeof spec, "explain %d/%d %d", sched, hjob, a_waiting);
    snprintf(share, sizeof share,
             "<td>alice</td><td>1</td><td>100.0%%</td>"
             "<td>%d</td><td>100.0%%</td>",
             running);
    snprintf(detail, sizeof detail, "%d running", running);
    tap_ok(rc == 0 && strcmp(dom_text(dom, "explain-query"), spec) == 0 &&
               strstr(dom, "why it waits:") != NULL &&
               strstr(dom, share) != NULL &&
               strstr(dom, "class=\"sel\"") != NULL &&
               strstr(dom, detail) != NULL,
           "headless Chromium: #explain= shows flowd's answer for waiting "
           "task %d, the hand-over selected and alice's fair share",
           a_waiting);
}

/* docs/OPERATIONS.md's sample scrape configuration (the ```yaml block of
 * its section 2) passes `promtool check config`. */
static void test_scrape_config(void)
{
    if (system("command -v promtool >/dev/null 2>&1") != 0) {
        tap_skip(1, "promtool is not installed (Debian: prometheus)");
        return;
    }
    const char *src = getenv("top_srcdir");
    char path[400], yml[300], cmd[1200];
    snprintf(path, sizeof path, "%s/docs/OPERATIONS.md", src ? src : ".");
    snprintf(yml, sizeof yml, "%s/prometheus.yml", dir);
    FILE *in = fopen(path, "r"), *out = fopen(yml, "w");
    if (in == NULL || out == NULL)
        tap_bail_out("cannot open %s or %s", path, yml);
    char line[512];
    int section = 0, block = 0, lines = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        if (strncmp(line, "## ", 3) == 0)
            section = strncmp(line, "## 2. ", 6) == 0;
        else if (section && strncmp(line, "```yaml", 7) == 0)
            block = 1;
        else if (block && strncmp(line, "```", 3) == 0)
            block = section = 0;
        else if (block && fputs(line, out) >= 0)
            lines++;
    }
    fclose(in);
    if (fclose(out) != 0)
        tap_bail_out("cannot write %s", yml);
    snprintf(cmd, sizeof cmd, "promtool check config '%s' >'%s.log' 2>&1", yml,
             yml);
    int rc = system(cmd);
    tap_ok(lines > 5 && rc == 0,
           "docs/OPERATIONS.md's scrape configuration (%d lines) passes "
           "`promtool check config`",
           lines);
}

int main(void)
{
    if (cr_skylark() == NULL)
        tap_skip_all("no skylark tool under $top_builddir");
    if (system("python3 -c 1 2>/dev/null") != 0)
        tap_skip_all("no python3");
    tap_timeout(300);
    tap_plan(21);
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "%s/skylark-dash-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp: %s", strerror(errno));
    snprintf(path_json, sizeof path_json, "%s/api.json", dir);
    snprintf(path_status, sizeof path_status, "%s/status.json", dir);
    snprintf(path_dom, sizeof path_dom, "%s/dom.html", dir);
    atexit(cleanup);
    save(path_status, "{}"); /* until `cluster status --json` fills it */
    test_scrape_config();

    char nodes[16], slots[16];
    snprintf(nodes, sizeof nodes, "%d", NODES);
    snprintf(slots, sizeof slots, "%d", SLOTS);
    cr_sky(40, NULL, "cluster", "up", "--dir", dir, "--nodes", nodes, "--slots",
           slots, NULL);
    if (R.r_status != 0)
        tap_bail_out("cluster up: %s", R.r_err);

    cr_sky(5, NULL, "dashboard", "--dir", dir, "--listen", "0.0.0.0:7090",
           NULL);
    tap_ok(R.r_status == 2 && strstr(R.r_err, "loopback") != NULL,
           "--listen beyond loopback: exit 2, saying why");

    port = tu_free_port();
    char listen[64], log[300];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    snprintf(log, sizeof log, "%s/dashboard.log", dir);
    char *dargv[] = {"skylark",  "dashboard", "--dir", dir,
                     "--listen", listen,      NULL};
    dash = spawn(log, dargv);
    char tasks[16], jlog[300];
    snprintf(tasks, sizeof tasks, "%d", TASKS);
    snprintf(jlog, sizeof jlog, "%s/job.log", dir);
    char *jargv[] = {"skylark", "run", "--dir",    dir, "-n",
                     tasks,     "--",  "sleep 60", NULL};
    job = spawn(jlog, jargv);

    test_json();
    test_jobs();
    test_page();
    test_browser();
    test_long();

    kill(dash, SIGTERM);
    int st = -1;
    pid_t got = 0;
    double until = now_s() + 10;
    while (now_s() < until && (got = waitpid(dash, &st, WNOHANG)) == 0)
        usleep(20000);
    if (got == dash)
        dash = 0;
    tap_ok(got > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "SIGTERM stops the dashboard with status 0");
    return tap_exit_status();
}
