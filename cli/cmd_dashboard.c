/*
 * cmd_dashboard.c - `skylark dashboard [--listen HOST:PORT]`: a live web
 * view of the local cluster. libmicrohttpd serves, on loopback only, one
 * static page (cli/dashboard.html, compiled in: no files to find at run
 * time, no build step for the page) and four JSON documents
 * (docs/OPERATIONS.md, "The dashboard"):
 *
 * - /api/cluster: every daemon's STATUS_REPLY as `skylark status --json`
 *   gathers it (cli_json_status), plus the node view in a compact form:
 *   one array per node, taken from flowd's table (a row per live node)
 *   or, in a cluster without flowd, from each node monitor's own answer;
 * - /api/users: fair share per user, the node monitors' user tables
 *   (weight, running, queued, slot time) summed over the nodes;
 * - /api/handovers: flowd's "jobs" query (the work handed over to it,
 *   tasks by state and the nodes they are on);
 * - /api/explain?sched=S&job=J&task=T: flowd's "explain S/J T", asked
 *   when the page asks (never cached).
 *
 * One request at a time (libmicrohttpd's internal thread); each cached
 * document is gathered at most once per its age (CACHE_S, USERS_CACHE_S,
 * HANDOVERS_CACHE_S), however many tabs poll it, so the daemons see a
 * few status requests a second at most. The main thread only waits for
 * SIGINT or SIGTERM.
 */
#include "cli_common.h"
#include "cli_json.h"
#include "dash_share.h"
#include "sk_cli.h"
#include "sk_metrics_http.h"
#include "skylark.h"

#include <getopt.h>
#include <limits.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dashboard_page.h" /* DASHBOARD_PAGE, from cli/dashboard.html */

#define PROG              "skylark dashboard"
#define DEFAULT_LISTEN    "127.0.0.1:7090"
#define CACHE_S           0.25
#define USERS_CACHE_S     5.0 /* /api/users asks every node monitor */
#define USERS_BUDGET_S    2.0 /* ... for at most this long in all */
#define HANDOVERS_CACHE_S 1.0
#define JOBS_CACHE_S      1.0
#define MAX_TASK          99999 /* as `skylark flow explain` */

/* A JSON document served from memory, gathered again once older than
 * its age. */
typedef struct doc {
    char *d_json; /* malloc, or NULL before the first gathering */
    size_t d_len;
    double d_at; /* when it was gathered (monotonic seconds) */
} doc;

typedef struct dashboard {
    skc_cluster *db_cl;
    double db_timeout;   /* per status request, seconds */
    dash_kept *db_kept;  /* sessions kept to node monitors, or NULL */
    doc db_cluster;      /* /api/cluster */
    doc db_users;        /* /api/users */
    doc db_handovers;    /* /api/handovers */
    doc db_jobs;         /* /api/jobs */
    uint64_t db_gathers; /* /api/cluster documents gathered */
} dashboard;

/* Writes one document's members into the object open in j; arg is the
 * caller's. Returns 0, or -1 when it cannot be made (no memory). */
typedef int (*fill_fn)(dashboard *db, cli_json *j, void *arg);

static void dashboard_usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark dashboard [--listen HOST:PORT] [--dir DIR] "
        "[--key-file FILE] [--timeout S]\n"
        "\n"
        "Serves a live view of the local cluster at http://HOST:PORT/\n"
        "(default " DEFAULT_LISTEN "): every node as a cell (slots busy\n"
        "with short work, held by long tasks, free; saturated nodes\n"
        "marked), the daemons, the jobs in flight, fair share per user,\n"
        "the work handed over to flowd with `flow explain` on demand,\n"
        "and flowd's rounds as a time series. /api/cluster, /api/users,\n"
        "/api/handovers and /api/explain are the same data as JSON\n"
        "(docs/OPERATIONS.md, \"The dashboard\"). Loopback addresses\n"
        "only. Runs until SIGINT or SIGTERM.\n"
        "\n"
        "  -l, --listen A     HOST:PORT to serve on (loopback only)\n"
        "  -d, --dir DIR      the local cluster's directory\n"
        "  -K, --key-file F   the cluster key (default: $SKYLARK_KEY_FILE,\n"
        "                     else the local cluster's key)\n"
        "  -t, --timeout S    how long to wait for each daemon (default 1)\n"
        "  -h, --help         this text\n"
        "\n"
        "Exit status: 0 stopped by a signal, 1 cannot serve or no\n"
        "cluster, 2 bad usage.\n");
}

/* The node view from flowd's table: [name, slots, long, used, queue,
 * state] per live node. */
static void nodes_from_flowd(cli_json *j, const sk_status *s)
{
    static const char *const want[] = {"node", "slots", "long", "used",
                                       "queue"};
    int col[5], cstate = cli_column_of(s, "state");
    for (int i = 0; i < 5; i++)
        col[i] = cli_column_of(s, want[i]);
    for (unsigned r = 0; r < sk_status_nrows(s); r++) {
        cli_json_array(j, NULL);
        cli_json_string(
            j, NULL, col[0] >= 0 ? sk_status_cell(s, r, (unsigned)col[0]) : "");
        for (int i = 1; i < 5; i++)
            cli_json_uint(j, NULL,
                          col[i] >= 0
                              ? cli_num(sk_status_cell(s, r, (unsigned)col[i]))
                              : 0);
        cli_json_string(j, NULL,
                        cstate >= 0 ? sk_status_cell(s, r, (unsigned)cstate)
                                    : "up");
        cli_json_end(j);
    }
}

/* One node from a node monitor's own answer, for a cluster without flowd. */
static void node_from_nodemon(cli_json *j, const sk_status *s)
{
    cli_json_array(j, NULL);
    cli_json_string(j, NULL, sk_status_name(s));
    cli_json_uint(j, NULL, cli_num(sk_status_get(s, "slots_total")));
    cli_json_uint(j, NULL, cli_num(sk_status_get(s, "slots_reserved")));
    cli_json_uint(j, NULL, cli_num(sk_status_get(s, "slots_used")));
    cli_json_uint(j, NULL, cli_num(sk_status_get(s, "queued")));
    cli_json_string(j, NULL, "up");
    cli_json_end(j);
}

/* minify drops the whitespace cli_json indents with (every byte outside
 * strings that is a space or a newline; inside strings cli_json escapes
 * control bytes, so nothing there changes), in place: the node view goes
 * from about 65 to 32 bytes per node of 10-byte names. Returns the new
 * length. */
static size_t minify(char *s, size_t len)
{
    size_t o = 0;
    int in_str = 0, esc = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (esc)
                esc = 0;
            else if (ch == '\\')
                esc = 1;
            else if (ch == '"')
                in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == ' ' || ch == '\n') {
            continue;
        }
        s[o++] = ch;
    }
    s[o] = '\0';
    return o;
}

/* Asks daemon i of the cluster for its status (with its table unless
 * it is a node monitor) into st[i]; NULL when it is dead or mute. */
static void ask(const dashboard *db, unsigned i, sk_status **st)
{
    const skc_daemon *d = &db->db_cl->cc_daemons[i];
    if (!skc_alive(d) || sk_status_fetch_keyed(
                             d->cd_endpoint, skc_key(db->db_cl), db->db_timeout,
                             d->cd_kind != SKC_NODEMON, &st[i]) != 0)
        st[i] = NULL;
}

/* The /api/cluster document: flowd's and the schedulers' answers
 * (schedulers with their table of jobs), then the node view: from
 * flowd's table when it answers, and then the node monitors are not asked
 * (one request per node would not scale: their entries say only whether
 * their process runs); else from each node monitor's answer. */
static int fill_cluster(dashboard *db, cli_json *j, void *arg)
{
    (void)arg;
    const skc_cluster *cl = db->db_cl;
    sk_status *st[SKC_MAX_DAEMONS] = {0};
    int flowd = -1;
    for (unsigned i = 0; i < cl->cc_n; i++) {
        if (cl->cc_daemons[i].cd_kind == SKC_NODEMON)
            continue;
        ask(db, i, st);
        if (st[i] != NULL && cl->cc_daemons[i].cd_kind == SKC_FLOWD &&
            flowd < 0)
            flowd = (int)i;
    }
    for (unsigned i = 0; i < cl->cc_n && flowd < 0; i++)
        if (cl->cc_daemons[i].cd_kind == SKC_NODEMON)
            ask(db, i, st);
    cli_json_string(j, "cluster", cl->cc_dir);
    cli_json_uint(j, "gathered", ++db->db_gathers);
    cli_json_array(j, "daemons");
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        cli_json_object(j, NULL);
        cli_json_string(j, "kind", skc_kind_name(d->cd_kind));
        cli_json_string(j, "name", d->cd_name);
        cli_json_string(j, "address", d->cd_endpoint);
        int asked = flowd < 0 || d->cd_kind != SKC_NODEMON;
        cli_json_string(j, "state",
                        st[i] != NULL   ? "up"
                        : !skc_alive(d) ? "dead"
                        : asked         ? "mute"
                                        : "running");
        if (st[i] == NULL) {
            cli_json_null(j, "answer");
        } else {
            cli_json_object(j, "answer");
            /* flowd's table is the node view below, in its compact form */
            cli_json_status(j, d->cd_endpoint, st[i], d->cd_kind == SKC_SCHED);
            cli_json_end(j);
        }
        cli_json_end(j);
    }
    cli_json_end(j);
    cli_json_object(j, "nodes");
    cli_json_string(j, "source", flowd >= 0 ? "flowd" : "nodemon");
    cli_json_array(j, "columns");
    static const char *const cols[] = {"node", "slots", "long",
                                       "used", "queue", "state"};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        cli_json_string(j, NULL, cols[c]);
    cli_json_end(j);
    cli_json_array(j, "rows");
    if (flowd >= 0)
        nodes_from_flowd(j, st[flowd]);
    else
        for (unsigned i = 0; i < cl->cc_n; i++)
            if (st[i] != NULL && cl->cc_daemons[i].cd_kind == SKC_NODEMON)
                node_from_nodemon(j, st[i]);
    cli_json_end(j);
    cli_json_end(j);
    for (unsigned i = 0; i < cl->cc_n; i++)
        sk_status_free(st[i]);
    return 0;
}

/* ---- /api/users: fair share, summed over the node monitors ------------ */

/* The /api/users document: flowd's sums of the node monitors' heartbeat
 * summaries (one ask), else every live node monitor asked for its table
 * of users, over the kept sessions (the first DASH_KEPT_MAX) and
 * DASH_SHARE_WORKERS at once a session each for the rest, for
 * USERS_BUDGET_S in all (the
 * document says its source, how many were asked and answered, and how
 * long it took), summed per user (dash_share.c). */
static int fill_users(dashboard *db, cli_json *j, void *arg)
{
    (void)arg;
    dash_share s;
    if (dash_share_from_flowd(db->db_cl, db->db_timeout, &s) != 0 &&
        dash_share_gather(db->db_cl, db->db_kept, db->db_timeout,
                          USERS_BUDGET_S, DASH_SHARE_WORKERS, &s) != 0)
        return -1;
    dash_share_json(&s, j);
    dash_share_free(&s);
    return 0;
}

/* ---- flowd's queries: /api/handovers and /api/explain ----------------- */

/* The endpoint of the local cluster's flowd while its process runs, or
 * NULL. */
static const char *flowd_of(const dashboard *db)
{
    for (unsigned i = 0; i < db->db_cl->cc_n; i++) {
        const skc_daemon *d = &db->db_cl->cc_daemons[i];
        if (d->cd_kind == SKC_FLOWD && skc_alive(d))
            return d->cd_endpoint;
    }
    return NULL;
}

/* Asks flowd at ep the query with its table, again every 20 ms while it
 * answers that it is busy solving a round, for db_timeout in all.
 * Returns its answer (the caller frees it; flowd's refusal is the pair
 * "error" in it), or NULL with *why set. */
static sk_status *ask_flowd(const dashboard *db, const char *ep, const char *q,
                            const char **why)
{
    double end = cli_mono_s() + db->db_timeout;
    for (;;) {
        sk_status *s;
        int rc = sk_status_query(
            ep, skc_key(db->db_cl), q,
            end - cli_mono_s() > 0.01 ? end - cli_mono_s() : 0.01, 1, &s);
        if (rc != 0) {
            *why = sk_strerror(rc);
            return NULL;
        }
        const char *retry = sk_status_get(s, "retry");
        if (retry == NULL || strcmp(retry, "yes") != 0 ||
            end - cli_mono_s() <= 0.02)
            return s;
        sk_status_free(s);
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
}

/* Writes s's table into j compactly: "columns", then "rows" as arrays,
 * a cell of up to 19 digits as a number, any other as a string. */
static void table_compact(cli_json *j, const sk_status *s)
{
    cli_json_array(j, "columns");
    for (unsigned c = 0; c < sk_status_ncolumns(s); c++)
        cli_json_string(j, NULL, sk_status_column(s, c));
    cli_json_end(j);
    cli_json_array(j, "rows");
    for (unsigned r = 0; r < sk_status_nrows(s); r++) {
        cli_json_array(j, NULL);
        for (unsigned c = 0; c < sk_status_ncolumns(s); c++) {
            const char *v = sk_status_cell(s, r, c);
            size_t n = v != NULL ? strlen(v) : 0;
            if (n > 0 && n <= 19 && strspn(v, "0123456789") == n)
                cli_json_uint(j, NULL, cli_num(v));
            else
                cli_json_string(j, NULL, v != NULL ? v : "");
        }
        cli_json_end(j);
    }
    cli_json_end(j);
}

/* The /api/handovers document: flowd's address, its "jobs" table
 * (sched, job, user, kind, tasks, waiting, reserved, placed, running,
 * nodes) compact, and "held" (its count of jobs, which the table may
 * cut at SK_MAX_STATUS_ROWS); "flowd" null when there is none or no
 * answer, and then "error" says why. */
static int fill_handovers(dashboard *db, cli_json *j, void *arg)
{
    (void)arg;
    const char *ep = flowd_of(db), *why = "the cluster has no flowd running";
    sk_status *s = ep != NULL ? ask_flowd(db, ep, "jobs", &why) : NULL;
    const char *err = s != NULL ? sk_status_get(s, "error") : why;
    if (err != NULL) {
        cli_json_null(j, "flowd");
        cli_json_string(j, "error", err);
        sk_status_free(s);
        return 0;
    }
    cli_json_string(j, "flowd", ep);
    cli_json_uint(j, "held", cli_num(sk_status_get(s, "jobs")));
    table_compact(j, s);
    sk_status_free(s);
    return 0;
}

/* What /api/explain was asked, and the HTTP status of its answer. */
typedef struct explain_req {
    char ex_query[96];  /* "explain S/J T", or "" when the arguments are bad */
    const char *ex_bad; /* what is wrong with them, or NULL */
    unsigned ex_status;
} explain_req;

/* Reads sched (optional), job and task of the request into ex_query. */
static void explain_parse(struct MHD_Connection *c, explain_req *ex)
{
    const char *sched =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "sched");
    const char *job =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "job");
    const char *task =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "task");
    unsigned long s = 0, jv, t;
    ex->ex_query[0] = '\0';
    if (sched != NULL && sched[0] != '\0' &&
        cli_parse_ulong(sched, 0, UINT32_MAX, &s) != 0)
        ex->ex_bad = "sched must be a scheduler id (a decimal number)";
    else if (job == NULL || cli_parse_ulong(job, 0, ULONG_MAX, &jv) != 0)
        ex->ex_bad = "job must be a hand-over id (a decimal number)";
    else if (task == NULL || cli_parse_ulong(task, 0, MAX_TASK, &t) != 0)
        ex->ex_bad = "task must be a task index (0 to 99999)";
    else if (sched != NULL && sched[0] != '\0')
        snprintf(ex->ex_query, sizeof ex->ex_query, "explain %lu/%lu %lu", s,
                 jv, t);
    else
        snprintf(ex->ex_query, sizeof ex->ex_query, "explain %lu %lu", jv, t);
}

/* The /api/explain document: query, and lines (flowd's answer, a line
 * each) or error. */
static int fill_explain(dashboard *db, cli_json *j, void *arg)
{
    explain_req *ex = arg;
    if (ex->ex_bad != NULL) {
        ex->ex_status = MHD_HTTP_BAD_REQUEST;
        cli_json_string(j, "error", ex->ex_bad);
        return 0;
    }
    cli_json_string(j, "query", ex->ex_query);
    const char *ep = flowd_of(db), *why = "the cluster has no flowd running";
    sk_status *s = ep != NULL ? ask_flowd(db, ep, ex->ex_query, &why) : NULL;
    if (s == NULL) {
        ex->ex_status = MHD_HTTP_BAD_GATEWAY;
        cli_json_string(j, "error", why);
        return 0;
    }
    ex->ex_status = MHD_HTTP_OK;
    const char *err = sk_status_get(s, "error");
    if (err != NULL) {
        cli_json_string(j, "error", err);
    } else {
        cli_json_array(j, "lines");
        for (unsigned r = 0; r < sk_status_nrows(s); r++)
            cli_json_string(j, NULL, sk_status_cell(s, r, 0));
        cli_json_end(j);
    }
    sk_status_free(s);
    return 0;
}

/* ---- the schedulers' queries: /api/jobs and /api/tasks -------------- */

/* The /api/jobs document: per scheduler of the cluster, its name,
 * address, state (up, mute, dead) and, when it answers its `users`
 * query, that table compact (a row per user with jobs in flight: counts,
 * progress, launch-wait percentiles; docs/PROTOCOL.md). */
static int fill_jobs(dashboard *db, cli_json *j, void *arg)
{
    (void)arg;
    const skc_cluster *cl = db->db_cl;
    cli_json_array(j, "schedulers");
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        if (d->cd_kind != SKC_SCHED)
            continue;
        sk_status *s = NULL;
        int alive = skc_alive(d);
        if (alive && sk_status_query(d->cd_endpoint, skc_key(cl), "users",
                                     db->db_timeout, 1, &s) != 0)
            s = NULL;
        cli_json_object(j, NULL);
        cli_json_string(j, "name", d->cd_name);
        cli_json_string(j, "address", d->cd_endpoint);
        cli_json_string(j, "state", s != NULL ? "up" : alive ? "mute" : "dead");
        if (s != NULL)
            table_compact(j, s);
        cli_json_end(j);
        sk_status_free(s);
    }
    cli_json_end(j);
    return 0;
}

/* What /api/tasks was asked, and the HTTP status of its answer. */
typedef struct tasks_req {
    const char *tr_sched; /* a scheduler's endpoint of the cluster */
    char tr_query[64];    /* "tasks JOB FIRST" */
    const char *tr_bad;   /* what is wrong with the arguments, or NULL */
    unsigned tr_status;
} tasks_req;

/* Reads sched (the address of one of the cluster's schedulers: no other
 * is asked), job and first (optional) of the request. */
static void tasks_parse(const dashboard *db, struct MHD_Connection *c,
                        tasks_req *tr)
{
    const char *sched =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "sched");
    const char *job =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "job");
    const char *first =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "first");
    unsigned long jv, fv = 0;
    for (unsigned i = 0; sched != NULL && i < db->db_cl->cc_n; i++) {
        const skc_daemon *d = &db->db_cl->cc_daemons[i];
        if (d->cd_kind == SKC_SCHED && strcmp(d->cd_endpoint, sched) == 0)
            tr->tr_sched = d->cd_endpoint;
    }
    if (tr->tr_sched == NULL)
        tr->tr_bad = "sched must be the address of one of the cluster's "
                     "schedulers";
    else if (job == NULL || cli_parse_ulong(job, 0, ULONG_MAX, &jv) != 0)
        tr->tr_bad = "job must be a scheduler's job id (a decimal number)";
    else if (first != NULL && first[0] != '\0' &&
             cli_parse_ulong(first, 0, MAX_TASK, &fv) != 0)
        tr->tr_bad = "first must be a task index";
    else
        snprintf(tr->tr_query, sizeof tr->tr_query, "tasks %lu %lu", jv, fv);
}

/* The /api/tasks document: sched, query, then the scheduler's pairs
 * (job, user, tasks, first, shown, handovers) and its table compact (a
 * row per task: task, state, attempt, node, outcome, handover,
 * handover_task), or error. */
static int fill_tasks(dashboard *db, cli_json *j, void *arg)
{
    tasks_req *tr = arg;
    if (tr->tr_bad != NULL) {
        tr->tr_status = MHD_HTTP_BAD_REQUEST;
        cli_json_string(j, "error", tr->tr_bad);
        return 0;
    }
    cli_json_string(j, "sched", tr->tr_sched);
    cli_json_string(j, "query", tr->tr_query);
    sk_status *s;
    int rc = sk_status_query(tr->tr_sched, skc_key(db->db_cl), tr->tr_query,
                             db->db_timeout, 1, &s);
    if (rc != 0) {
        tr->tr_status = MHD_HTTP_BAD_GATEWAY;
        cli_json_string(j, "error", sk_strerror(rc));
        return 0;
    }
    tr->tr_status = MHD_HTTP_OK;
    const char *err = sk_status_get(s, "error");
    if (err != NULL) {
        cli_json_string(j, "error", err);
    } else if (sk_status_get(s, "shown") == NULL) {
        cli_json_string(j, "error",
                        "the scheduler does not know the "
                        "tasks query (an older version?)");
    } else {
        static const char *const nums[] = {"job", "tasks", "first", "shown"};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
            cli_json_uint(j, nums[k], cli_num(sk_status_get(s, nums[k])));
        cli_json_string(j, "user", sk_status_get(s, "user"));
        cli_json_string(j, "handovers", sk_status_get(s, "handovers"));
        table_compact(j, s);
    }
    sk_status_free(s);
    return 0;
}

/* ---- documents and HTTP --------------------------------------------- */

/* Makes one document with fill, compact, into *out (malloc) and *len.
 * Returns 0 or -1 (no memory). */
static int render(dashboard *db, fill_fn fill, void *arg, char **out,
                  size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (f == NULL)
        return -1;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_object(&j, NULL);
    int rc = fill(db, &j, arg);
    cli_json_end(&j);
    cli_json_finish(&j);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = minify(buf, n);
    return 0;
}

/* d, gathered again by fill when older than age seconds; the old one
 * stays when that fails. Returns 0, or -1 when there is none. */
static int refresh(dashboard *db, doc *d, double age, fill_fn fill)
{
    char *buf;
    size_t len;
    if ((d->d_json == NULL || cli_mono_s() - d->d_at >= age) &&
        render(db, fill, NULL, &buf, &len) == 0) {
        free(d->d_json);
        d->d_json = buf;
        d->d_len = len;
        d->d_at = cli_mono_s();
    }
    return d->d_json != NULL ? 0 : -1;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
                              const char *type, const void *body, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* Answers c with a document made now by fill with arg (never cached),
 * with the HTTP status fill leaves in *status; 500 out of memory. */
static enum MHD_Result answer_once(dashboard *db, struct MHD_Connection *c,
                                   fill_fn fill, void *arg,
                                   const unsigned *status)
{
    char *buf;
    size_t len;
    if (render(db, fill, arg, &buf, &len) != 0)
        return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                      "text/plain; charset=utf-8", "out of memory\n", 14);
    enum MHD_Result rc = answer(c, *status, "application/json", buf, len);
    free(buf);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    static int seen;
    dashboard *db = cls;
    if (*state == NULL) {
        *state = &seen;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0; /* a body is read and ignored */
        return MHD_YES;
    }
    const char *text = "text/plain; charset=utf-8";
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
        strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, text, "GET only\n", 9);
    if (strcmp(url, "/") == 0)
        return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8",
                      DASHBOARD_PAGE, sizeof DASHBOARD_PAGE - 1);
    static const struct {
        const char *url;
        size_t doc_at; /* offsetof the doc in dashboard */
        double age;
        fill_fn fill;
    } docs[] = {
        {"/api/cluster", offsetof(dashboard, db_cluster), CACHE_S,
         fill_cluster},
        {"/api/users", offsetof(dashboard, db_users), USERS_CACHE_S,
         fill_users},
        {"/api/handovers", offsetof(dashboard, db_handovers), HANDOVERS_CACHE_S,
         fill_handovers},
        {"/api/jobs", offsetof(dashboard, db_jobs), JOBS_CACHE_S, fill_jobs},
    };
    const char *json = "application/json";
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (strcmp(url, docs[i].url) != 0)
            continue;
        doc *d = (doc *)((char *)db + docs[i].doc_at);
        if (refresh(db, d, docs[i].age, docs[i].fill) != 0)
            return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, text,
                          "out of memory\n", 14);
        return answer(c, MHD_HTTP_OK, json, d->d_json, d->d_len);
    }
    if (strcmp(url, "/api/tasks") == 0) {
        tasks_req tr = {.tr_status = MHD_HTTP_OK};
        tasks_parse(db, c, &tr);
        return answer_once(db, c, fill_tasks, &tr, &tr.tr_status);
    }
    if (strcmp(url, "/api/explain") == 0) {
        explain_req ex = {.ex_status = MHD_HTTP_OK};
        explain_parse(c, &ex);
        return answer_once(db, c, fill_explain, &ex, &ex.ex_status);
    }
    return answer(c, MHD_HTTP_NOT_FOUND, text, "not found\n", 10);
}

int cmd_dashboard(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        CLI_CONN_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *listen = DEFAULT_LISTEN;
    cli_conn o = {.co_timeout = 1, .co_timeout_max = 60};
    int c;
    optind = 0;
    argv[0] = (char *)PROG;
    while ((c = getopt_long(argc, argv, "l:d:K:t:h", longopts, NULL)) != -1) {
        int taken = cli_conn_opt(&o, PROG, c, optarg);
        if (taken < 0)
            return 2;
        if (taken > 0)
            continue;
        switch (c) {
        case 'l':
            listen = optarg;
            break;
        case 'h':
            dashboard_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "(see skylark dashboard --help)\n");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, PROG ": no arguments but options\n");
        return 2;
    }
    struct sockaddr_storage ss;
    char err[256];
    if (sk_metrics_addr_parse(listen, &ss, NULL, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": --listen %s\n", err);
        return 2;
    }
    if (!sk_metrics_addr_is_loopback(&ss)) {
        fprintf(stderr,
                PROG ": --listen %s: loopback addresses only (127.0.0.0/8, "
                     "[::1], localhost): the page shows the whole cluster\n",
                listen);
        return 2;
    }
    dashboard db = {.db_timeout = o.co_timeout};
    db.db_cl = cli_load_cluster(PROG, o.co_dir);
    if (db.db_cl == NULL)
        return 1;
    char keybuf[4200];
    const char *k = cli_key_file(o.co_key, o.co_dir, keybuf, sizeof keybuf);
    snprintf(db.db_cl->cc_key, sizeof db.db_cl->cc_key, "%s",
             k != NULL ? k : "");
    /* Without kept sessions (an unusable key file: said in the log) every
     * node monitor is asked a session each, and fails the same way. */
    if (dash_kept_create(skc_key(db.db_cl), &db.db_kept) != 0)
        db.db_kept = NULL;
    /* SIGINT and SIGTERM are taken by sigwait below, in this thread; the
     * HTTP thread inherits the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_Daemon *mhd = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, &db, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, 16u,
        MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (mhd == NULL) {
        fprintf(stderr, PROG ": cannot serve on %s (in use?)\n", listen);
        dash_kept_destroy(db.db_kept);
        free(db.db_cl);
        return 1;
    }
    fprintf(stderr, PROG ": the cluster in %s at http://%s/\n",
            db.db_cl->cc_dir, listen);
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(mhd);
    free(db.db_cluster.d_json);
    free(db.db_users.d_json);
    free(db.db_handovers.d_json);
    free(db.db_jobs.d_json);
    dash_kept_destroy(db.db_kept);
    free(db.db_cl);
    return 0;
}
