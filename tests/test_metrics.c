/*
 * test_metrics.c - the daemons' /metrics endpoint (metrics_listen) with
 * real daemons on loopback: a flow node, a scheduler and a node monitor
 * each serve /metrics on a free port; the pages pass `promtool check
 * metrics` (skipped, saying so, where promtool is not installed); the
 * counters move as a short job runs through the scheduler and the node
 * monitor and a long job through flowd's rounds (its solve histogram),
 * and a held constrained job through its constraint counters;
 * other paths and methods are refused and counted; a token file makes
 * the endpoint take a bearer token; an address beyond loopback without
 * a token, a malformed one, and the cluster key as the token are refused
 * at start (exit 2). Every family each daemon serves, once both jobs
 * ran, is the list of docs/OPERATIONS.md for that daemon (names and
 * types, both ways). The test speaks HTTP/1.0 over a plain socket
 * (http_get.h).
 */
#include "daemon_harness.h"
#include "http_get.h"
#include "sk_constraint.h"
#include "tap.h"
#include "transport_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHORT_TASKS 6
#define LONG_TASKS  2

static dh_proc flowd, sched, node, sched2;
static int flowd_port, sched_port, node_port, sched2_port;
static dh_client *tool;
static sk_peer_id flowd_peer; /* the tool's session with flowd, a scheduler */
static char promtool[512];
static char token_path[600]; /* test_token's file, reused by test_config */

/* ---- scrapes ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static hg_page scrape(int port)
{
    return hg_request(port, "GET", "/metrics", NULL);
}

/* The value of the sample "name" or "name{labels}" in a page, or -1. */
static double sample(const hg_page *p, const char *name)
{
    if (p->pg_body == NULL)
        return -1;
    size_t n = strlen(name);
    for (const char *l = p->pg_body; l != NULL && *l != '\0';) {
        if (strncmp(l, name, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
        l = strchr(l, '\n');
        if (l != NULL)
            l++;
    }
    return -1;
}

/* Scrapes port every 50 ms until name is at least want (timeout s). */
static double wait_sample(int port, const char *name, double want,
                          double timeout)
{
    double v = -1, until = now_s() + timeout;
    do {
        hg_page p = scrape(port);
        v = sample(&p, name);
        hg_free(&p);
        if (v >= want)
            break;
        dh_client_run_for(tool, 0.05);
    } while (now_s() < until);
    return v;
}

/* ---- promtool -------------------------------------------------------------
 */

static void find_promtool(void)
{
    FILE *f = popen("command -v promtool 2>/dev/null", "r");
    if (f == NULL)
        return;
    if (fgets(promtool, sizeof promtool, f) == NULL)
        promtool[0] = '\0';
    promtool[strcspn(promtool, "\n")] = '\0';
    pclose(f);
}

/* Runs `promtool check metrics` on the body of p; its verdict, lint
 * lines included, goes to the TAP diagnostics. */
static void check_promtool(const hg_page *p, const char *who)
{
    if (promtool[0] == '\0') {
        tap_skip(1, "promtool is not installed (Debian: prometheus); "
                    "scripts/check installs it");
        return;
    }
    char path[600], cmd[2000];
    snprintf(path, sizeof path, "%s/%s.prom", dh_dir(), who);
    FILE *f = fopen(path, "w");
    if (f == NULL || p->pg_body == NULL) {
        if (f != NULL)
            fclose(f);
        tap_ok(false, "%s: promtool check metrics (no page)", who);
        return;
    }
    fputs(p->pg_body, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s check metrics < %s > %s.out 2>&1", promtool,
             path, path);
    int rc = system(cmd);
    char out[4096] = "";
    snprintf(cmd, sizeof cmd, "%s.out", path);
    FILE *o = fopen(cmd, "r");
    if (o != NULL) {
        size_t n = fread(out, 1, sizeof out - 1, o);
        out[n] = '\0';
        fclose(o);
    }
    bool ok = rc == 0 && out[0] == '\0';
    tap_ok(ok, "%s: promtool check metrics passes, no lint (%zu bytes)", who,
           strlen(p->pg_body));
    if (!ok)
        tap_diag("promtool: %s", out);
}

/* ---- the cluster ----------------------------------------------------------
 */

static void metrics_arg(char *buf, size_t len, int *port)
{
    *port = tu_free_port();
    if (*port == 0)
        tap_bail_out("no free port");
    snprintf(buf, len, "127.0.0.1:%d", *port);
}

static void start_cluster(void)
{
    char fm[64], sm[64], nm[64];
    metrics_arg(fm, sizeof fm, &flowd_port);
    const char *fx[] = {"--metrics-listen", fm, "--set", "flowd.settle_ms=0",
                        NULL};
    if (dh_start_flowd(&flowd, "flowd", fx) != 0)
        tap_bail_out("flowd did not start");
    metrics_arg(sm, sizeof sm, &sched_port);
    const char *sx[] = {"--flowd", flowd.dp_endpoint, "--metrics-listen", sm,
                        NULL};
    if (dh_start_sched(&sched, "s1", 1, sx) != 0)
        tap_bail_out("the scheduler did not start");
    metrics_arg(nm, sizeof nm, &node_port);
    const dh_proc *s[] = {&sched};
    const char *nx[] = {"--flowd", flowd.dp_endpoint, "--metrics-listen", nm,
                        NULL};
    if (dh_start_nodemon(&node, "n1", 1, 2, s, 1, nx) != 0)
        tap_bail_out("the node monitor did not start");
    tool = dh_client_new("frontend", "fe1");
}

static void test_pages(void)
{
    struct {
        const char *who;
        int port;
        const char *family;
    } d[] = {{"flowd", flowd_port, "skylark_flowd_nodes"},
             {"sched", sched_port, "skylark_sched_nodes"},
             {"nodemon", node_port, "skylark_nodemon_slots"}};
    for (int i = 0; i < 3; i++) {
        hg_page p = scrape(d[i].port);
        tap_ok(p.pg_status == 200 && p.pg_head != NULL &&
                   strstr(p.pg_head, "text/plain; version=0.0.4") != NULL,
               "%s: GET /metrics is 200, text format 0.0.4", d[i].who);
        tap_ok(sample(&p, d[i].family) >= 0 &&
                   sample(&p, "skylark_transport_peers") >= 0,
               "%s: its own families (%s) and the transport's", d[i].who,
               d[i].family);
        check_promtool(&p, d[i].who);
        hg_free(&p);
    }
    tap_is_int((int64_t)wait_sample(
                   node_port, "skylark_nodemon_heartbeats_total", 1, 10) >= 1,
               1, "nodemon: heartbeats to flowd are counted");
    tap_is_int((int64_t)wait_sample(flowd_port, "skylark_flowd_nodes", 1, 10),
               1, "flowd: the node is a live node");
}

static void test_short_job(void)
{
    hg_page p = scrape(sched_port);
    double launched0 = sample(&p, "skylark_sched_tasks_launched_total");
    double ok0 =
        sample(&p, "skylark_sched_tasks_finished_total{outcome=\"ok\"}");
    hg_free(&p);
    p = scrape(node_port);
    double nlaunched0 = sample(&p, "skylark_nodemon_tasks_launched_total");
    double exec0 =
        sample(&p, "skylark_nodemon_exec_results_total{status=\"ok\"}");
    hg_free(&p);
    tap_ok(launched0 == 0 && ok0 == 0 && nlaunched0 == 0 && exec0 == 0,
           "before the job: no task launched or finished");

    sk_peer_id peer = dh_client_connect(tool, sched.dp_endpoint, 5);
    if (peer == 0)
        tap_bail_out("cannot reach the scheduler");
    dh_client_hello(tool, peer, SK_ROLE_FRONTEND);
    dh_job *job =
        dh_client_submit(tool, peer, 1, SHORT_TASKS, "true", "alice", 1);
    tap_ok(job != NULL && dh_job_wait_done(tool, job, 20),
           "a job of %d tasks ran to its end", SHORT_TASKS);

    p = scrape(sched_port);
    tap_is_int((int64_t)sample(&p, "skylark_sched_tasks_launched_total"),
               SHORT_TASKS, "sched: tasks_launched_total moved to %d",
               SHORT_TASKS);
    tap_is_int((int64_t)sample(
                   &p, "skylark_sched_tasks_finished_total{outcome=\"ok\"}"),
               SHORT_TASKS, "sched: tasks_finished_total{outcome=\"ok\"} too");
    tap_is_int((int64_t)sample(&p, "skylark_sched_jobs_done_total"), 1,
               "sched: jobs_done_total is 1");
    tap_ok(
        (int64_t)sample(&p, "skylark_sched_launch_wait_seconds_count") ==
                SHORT_TASKS &&
            (int64_t)sample(
                &p, "skylark_sched_launch_wait_seconds_bucket{le=\"+Inf\"}") ==
                SHORT_TASKS &&
            sample(&p, "skylark_sched_launch_wait_seconds_sum") > 0,
        "sched: the launch wait histogram counts the %d launches", SHORT_TASKS);
    tap_ok(sample(&p, "skylark_sched_reservations_total") >= SHORT_TASKS &&
               sample(&p, "skylark_transport_messages_received_total") > 0,
           "sched: reservations and transport messages counted");
    hg_free(&p);
    p = scrape(node_port);
    tap_is_int((int64_t)sample(&p, "skylark_nodemon_tasks_launched_total"),
               SHORT_TASKS, "nodemon: tasks_launched_total moved to %d",
               SHORT_TASKS);
    tap_is_int((int64_t)sample(
                   &p, "skylark_nodemon_exec_results_total{status=\"ok\"}"),
               SHORT_TASKS, "nodemon: the executor's ok results too");
    hg_free(&p);
}

static void test_long_job(void)
{
    sk_peer_id peer = flowd_peer; /* test_held_job's session */
    double solves0 =
        wait_sample(flowd_port, "skylark_flowd_solve_seconds_count", 0, 1);
    static sk_task_spec tasks[LONG_TASKS];
    for (uint32_t i = 0; i < LONG_TASKS; i++) {
        tasks[i].ts_spec.b_data = (const uint8_t *)"true";
        tasks[i].ts_spec.b_len = 5;
    }
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job.sj_job = 77;
    m.m_submit_job.sj_user = "bob";
    m.m_submit_job.sj_long = true;
    m.m_submit_job.sj_framework = "";
    m.m_submit_job.sj_tasks = tasks;
    m.m_submit_job.sj_ntasks = LONG_TASKS;
    dh_client_track(tool, 77, LONG_TASKS);
    tap_ok(dh_client_send(tool, peer, &m) == 0, "a long job sent to flowd");
    tap_is_int((int64_t)wait_sample(flowd_port,
                                    "skylark_flowd_jobs_accepted_total", 1, 10),
               1, "flowd: jobs_accepted_total moved to 1");
    tap_ok(wait_sample(flowd_port, "skylark_flowd_reserves_total", LONG_TASKS,
                       10) >= LONG_TASKS,
           "flowd: a round reserved slots for its %d tasks", LONG_TASKS);
    hg_page p = scrape(flowd_port);
    double count = sample(&p, "skylark_flowd_solve_seconds_count");
    double inf = sample(&p, "skylark_flowd_solve_seconds_bucket{le=\"+Inf\"}");
    double won =
        sample(&p, "skylark_flowd_solves_total{algorithm=\"relax\"}") +
        sample(&p, "skylark_flowd_solves_total{algorithm=\"cost-scaling\"}") +
        sample(&p, "skylark_flowd_solves_total{algorithm=\"ssp\"}") +
        sample(&p, "skylark_flowd_solves_total{algorithm=\"race\"}");
    tap_ok(count > solves0 && inf == count && won == count,
           "flowd: the solve histogram counted the rounds (%g -> %g, +Inf "
           "%g, by algorithm %g)",
           solves0, count, inf, won);
    check_promtool(&p, "flowd-after");
    hg_free(&p);
}

/* A long job of one task sent to flowd; tagged hb under text if text is
 * not NULL. */
static void send_long(sk_peer_id peer, uint64_t job, const char *text)
{
    static const char *tags[1] = {"hb"};
    sk_task_spec task = {
        .ts_spec = {.b_data = (const uint8_t *)"true", .b_len = 5}};
    sk_cspec spec = {0};
    char err[160];
    if (text != NULL && sk_constraint_parse(text, &spec, err, sizeof err) != 0)
        tap_bail_out("%s: %s", text, err);
    if (text != NULL) {
        task.ts_tags = tags;
        task.ts_ntags = 1;
    }
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job.sj_job = job;
    m.m_submit_job.sj_user = "bob";
    m.m_submit_job.sj_long = true;
    m.m_submit_job.sj_framework = "";
    m.m_submit_job.sj_tasks = &task;
    m.m_submit_job.sj_ntasks = 1;
    m.m_submit_job.sj_constraints = spec.cs_items;
    m.m_submit_job.sj_nconstraints = spec.cs_n;
    dh_client_track(tool, job, 1);
    if (dh_client_send(tool, peer, &m) != 0)
        tap_bail_out("cannot send job %llu", (unsigned long long)job);
}

/* The constraint step's counters, before and after test_long_job: a
 * task under a soft constraint no node meets is held (cx_wait_ms, 10 s);
 * then the long job's tasks come and are reserved, and the constraint
 * step, its probe finding no node for the held task, places nothing
 * (rounds_skipped, rounds_ruled_out). */
static double ruled0;

static void test_held_job(void)
{
    flowd_peer = dh_client_connect(tool, flowd.dp_endpoint, 5);
    if (flowd_peer == 0)
        tap_bail_out("cannot reach flowd");
    dh_client_hello(tool, flowd_peer, SK_ROLE_SCHEDULER);
    ruled0 = wait_sample(
        flowd_port, "skylark_flowd_constraint_rounds_ruled_out_total", 0, 1);
    send_long(flowd_peer, 78, "hb,IN,NODE,all/nothere,SOFT=1");
    double held =
        wait_sample(flowd_port, "skylark_flowd_constraint_held_total", 1, 10);
    tap_ok(held >= 1 && ruled0 == 0,
           "flowd: a constrained task no node suits held "
           "(constraint_held_total %g)",
           held);
}

static void test_held_ruled_out(void)
{
    double ruled = wait_sample(
        flowd_port, "skylark_flowd_constraint_rounds_ruled_out_total",
        ruled0 + 1, 10);
    hg_page p = scrape(flowd_port);
    double skipped =
        sample(&p, "skylark_flowd_constraint_rounds_skipped_total");
    double rounds = sample(&p, "skylark_flowd_constraint_rounds_total");
    hg_free(&p);
    tap_ok(ruled >= ruled0 + 1 && skipped >= ruled && rounds >= 1,
           "flowd: the long job's changes, the held task's probe finds no "
           "node: constraint_rounds_ruled_out_total %g, "
           "constraint_rounds_skipped_total %g, constraint_rounds_total %g",
           ruled, skipped, rounds);
}

/* ---- the families against docs/OPERATIONS.md -------------------------- */

#define MAX_FAMILIES 256

typedef struct family {
    char fm_name[96];
    char fm_type[16];
} family;

/* Reads the families docs/OPERATIONS.md (section 1) lists for daemon who
 * ("flowd", "sched", "nodemon"): those under "**Every daemon**" and under
 * "**skylark-WHO**", as `| \`name\` | type |` rows. Returns how many, or
 * -1 when the file cannot be read. */
static int listed(const char *who, family *out, int max)
{
    const char *src = getenv("top_srcdir");
    char path[512], own[64], line[1024];
    snprintf(path, sizeof path, "%s/docs/OPERATIONS.md", src ? src : ".");
    snprintf(own, sizeof own, "**skylark-%s**", who);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int n = 0, section = 0, mine = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "## ", 3) == 0)
            section = strncmp(line, "## 1. ", 6) == 0;
        else if (section && strncmp(line, "**", 2) == 0)
            mine = strncmp(line, "**Every daemon**", 16) == 0 ||
                   strncmp(line, own, strlen(own)) == 0;
        else if (section && mine && n < max &&
                 sscanf(line, "| `%95[^`]` | %15[a-z] |", out[n].fm_name,
                        out[n].fm_type) == 2)
            n++;
    }
    fclose(f);
    return n;
}

/* The families page p serves: its "# TYPE name type" lines. */
static int served(const hg_page *p, family *out, int max)
{
    int n = 0;
    for (const char *l = p->pg_body; l != NULL && *l != '\0' && n < max;) {
        if (sscanf(l, "# TYPE %95s %15s", out[n].fm_name, out[n].fm_type) == 2)
            n++;
        l = strchr(l, '\n');
        if (l != NULL)
            l++;
    }
    return n;
}

/* Names of a that b lacks, or has with another type, into miss (cut at
 * len); returns how many. */
static int missing(const family *a, int na, const family *b, int nb, char *miss,
                   size_t len)
{
    int bad = 0;
    miss[0] = '\0';
    for (int i = 0; i < na; i++) {
        int k = 0;
        while (k < nb && strcmp(a[i].fm_name, b[k].fm_name) != 0)
            k++;
        if (k < nb && strcmp(a[i].fm_type, b[k].fm_type) == 0)
            continue;
        bad++;
        size_t used = strlen(miss);
        snprintf(miss + used, len - used, " %s (%s%s%s)", a[i].fm_name,
                 a[i].fm_type, k < nb ? " vs " : "",
                 k < nb ? b[k].fm_type : "");
    }
    return bad;
}

/* Every family each daemon serves, after a short and a long job ran, is
 * in docs/OPERATIONS.md's list for it with the same type, and every
 * family listed for it is served. */
static void test_listed(void)
{
    struct {
        const char *who;
        int port;
    } d[] = {
        {"flowd", flowd_port}, {"sched", sched_port}, {"nodemon", node_port}};
    int total = 0;
    for (int i = 0; i < 3; i++) {
        static family doc[MAX_FAMILIES], page[MAX_FAMILIES];
        int nd = listed(d[i].who, doc, MAX_FAMILIES);
        hg_page p = scrape(d[i].port);
        int np = served(&p, page, MAX_FAMILIES);
        hg_free(&p);
        char unlisted[2048], unserved[2048];
        int a = missing(page, np, doc, nd, unlisted, sizeof unlisted);
        int b = missing(doc, nd, page, np, unserved, sizeof unserved);
        tap_ok(nd > 0 && np > 0 && a == 0 && b == 0,
               "%s: the %d families served are the %d docs/OPERATIONS.md "
               "lists for it, names and types",
               d[i].who, np, nd);
        if (a > 0)
            tap_diag("served, not listed (or another type):%s", unlisted);
        if (b > 0)
            tap_diag("listed, not served (or another type):%s", unserved);
        total += np;
    }
    tap_diag("%d families served by the three daemons", total);
}

static void test_refusals(void)
{
    hg_page p = hg_request(sched_port, "GET", "/", NULL);
    tap_is_int(p.pg_status, 404, "GET / is 404");
    hg_free(&p);
    p = hg_request(sched_port, "POST", "/metrics", "Content-Length: 0");
    tap_is_int(p.pg_status, 405, "POST /metrics is 405");
    hg_free(&p);
    p = scrape(sched_port);
    tap_ok(sample(&p, "skylark_metrics_refused_total{reason=\"not_found\"}") ==
                   1 &&
               sample(&p, "skylark_metrics_refused_total{reason=\"method\"}") ==
                   1 &&
               sample(&p, "skylark_metrics_scrapes_total") > 0,
           "the refusals and the scrapes are counted");
    hg_free(&p);
}

static void test_token(void)
{
    const char *hex =
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    char text[80];
    snprintf(text, sizeof text, "%s\n", hex);
    snprintf(token_path, sizeof token_path, "%s",
             dh_write_file("metrics.token", text));
    chmod(token_path, 0600);
    char set[700], ml[64];
    snprintf(set, sizeof set, "sched.metrics_token_file=%s", token_path);
    metrics_arg(ml, sizeof ml, &sched2_port);
    const char *x[] = {"--metrics-listen", ml, "--set", set, NULL};
    if (dh_start_sched(&sched2, "s2", 2, x) != 0)
        tap_bail_out("the scheduler with a token did not start");
    hg_page p = scrape(sched2_port);
    tap_ok(p.pg_status == 401 && p.pg_head != NULL &&
               strstr(p.pg_head, "WWW-Authenticate: Bearer") != NULL,
           "with a token file: a scrape without the token is 401");
    hg_free(&p);
    p = hg_request(
        sched2_port, "GET", "/metrics",
        "Authorization: Bearer "
        "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100");
    tap_is_int(p.pg_status, 401, "a wrong token is 401");
    hg_free(&p);
    char auth[128];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", hex);
    p = hg_request(sched2_port, "GET", "/metrics", auth);
    tap_ok(
        p.pg_status == 200 &&
            sample(&p,
                   "skylark_metrics_refused_total{reason=\"unauthorized\"}") ==
                2,
        "the token is 200, and the two refusals are counted");
    hg_free(&p);
}

/* Runs the scheduler with args (NULL-terminated, at most 8); its exit
 * status, or -1. */
static int run_sched(dh_proc *p, const char *log, const char *const *args)
{
    char *argv[12] = {(char *)dh_sched_path(), "--listen", "tcp://127.0.0.1:1"};
    for (int i = 0; i < 8 && args[i] != NULL; i++)
        argv[3 + i] = (char *)args[i];
    memset(p, 0, sizeof *p);
    if (dh_spawn(p, log, argv) != 0)
        return -1;
    if (!dh_wait_exit(p, 10)) {
        dh_kill(p);
        return -1;
    }
    return WIFEXITED(p->dp_status) ? WEXITSTATUS(p->dp_status) : -1;
}

static void test_config(void)
{
    dh_proc p;
    const char *wide[] = {"--metrics-listen", "0.0.0.0:9464", NULL};
    tap_is_int(run_sched(&p, "wide.log", wide), 2,
               "metrics beyond loopback without a token: exit 2");
    tap_ok(dh_log_has(&p, "beyond loopback"), "... saying why");
    const char *bad[] = {"--metrics-listen", "127.0.0.1", NULL};
    tap_is_int(run_sched(&p, "bad.log", bad), 2,
               "a metrics address without a port: exit 2");
    tap_ok(dh_log_has(&p, "HOST:PORT"), "... saying what it takes");
    char set[700];
    snprintf(set, sizeof set, "sched.metrics_token_file=%s", token_path);
    const char *same[] = {"--key-file",  token_path, "--metrics-listen",
                          "127.0.0.1:9", "--set",    set,
                          NULL};
    tap_is_int(run_sched(&p, "same.log", same), 2,
               "the cluster key as the metrics token: exit 2");
    tap_ok(dh_log_has(&p, "holds the cluster key"), "... saying why");
}

static void stop(dh_proc *p, const char *who)
{
    kill(p->dp_pid, SIGTERM);
    tap_ok(dh_wait_exit(p, 10) && WIFEXITED(p->dp_status) &&
               WEXITSTATUS(p->dp_status) == 0,
           "%s stops on SIGTERM with status 0, its endpoint too", who);
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    dh_init();
    find_promtool();
    start_cluster();
    test_pages();
    test_short_job();
    test_held_job();
    test_long_job();
    test_held_ruled_out();
    test_listed();
    test_refusals();
    test_token();
    test_config();
    dh_client_free(tool);
    stop(&sched2, "the second scheduler");
    stop(&node, "the node monitor");
    stop(&sched, "the scheduler");
    stop(&flowd, "flowd");
    tap_done();
    return tap_exit_status();
}
