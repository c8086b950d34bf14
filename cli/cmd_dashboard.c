/*
 * cmd_dashboard.c - `skylark dashboard [--listen HOST:PORT]`: a live web
 * view of the local cluster. libmicrohttpd serves, on loopback only, one
 * static page (cli/dashboard.html, compiled in: no files to find at run
 * time, no build step for the page) and /api/cluster, a JSON document
 * gathered from every daemon's STATUS_REPLY as `skylark status --json`
 * gathers it (cli_json_status), plus the node view in a compact form:
 * one array per node, taken from flowd's table (a row per live node) or,
 * in a cluster without flowd, from each node monitor's own answer.
 *
 * One request at a time (libmicrohttpd's internal thread); the JSON is
 * gathered at most every CACHE_S seconds, however many tabs poll it, so
 * the daemons see a few status requests a second at most. The main
 * thread only waits for SIGINT or SIGTERM.
 */
#include "cli_common.h"
#include "cli_json.h"
#include "sk_cli.h"
#include "sk_metrics_http.h"
#include "skylark.h"

#include <getopt.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dashboard_page.h" /* DASHBOARD_PAGE, from cli/dashboard.html */

#define PROG           "skylark dashboard"
#define DEFAULT_LISTEN "127.0.0.1:7090"
#define CACHE_S        0.25

typedef struct dashboard {
    skc_cluster *db_cl;
    double db_timeout; /* per status request, seconds */
    char *db_json;     /* the last document (malloc), or NULL */
    size_t db_len;
    double db_at;        /* when it was gathered (monotonic seconds) */
    uint64_t db_gathers; /* documents gathered */
} dashboard;

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
        "marked), the daemons, the jobs in flight, and flowd's rounds\n"
        "as a time series. /api/cluster is the same data as JSON\n"
        "(docs/CLIENT.md, \"skylark dashboard\"). Loopback addresses\n"
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

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A cell of s as an unsigned number (0 when it is not one). */
static uint64_t num(const char *v)
{
    return v != NULL ? strtoull(v, NULL, 10) : 0;
}

static int column_of(const sk_status *s, const char *name)
{
    for (unsigned c = 0; c < sk_status_ncolumns(s); c++)
        if (strcmp(sk_status_column(s, c), name) == 0)
            return (int)c;
    return -1;
}

/* The node view from flowd's table: [name, slots, long, used, queue,
 * state] per live node. */
static void nodes_from_flowd(cli_json *j, const sk_status *s)
{
    static const char *const want[] = {"node", "slots", "long", "used",
                                       "queue"};
    int col[5], cstate = column_of(s, "state");
    for (int i = 0; i < 5; i++)
        col[i] = column_of(s, want[i]);
    for (unsigned r = 0; r < sk_status_nrows(s); r++) {
        cli_json_array(j, NULL);
        cli_json_string(
            j, NULL, col[0] >= 0 ? sk_status_cell(s, r, (unsigned)col[0]) : "");
        for (int i = 1; i < 5; i++)
            cli_json_uint(
                j, NULL,
                col[i] >= 0 ? num(sk_status_cell(s, r, (unsigned)col[i])) : 0);
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
    cli_json_uint(j, NULL, num(sk_status_get(s, "slots_total")));
    cli_json_uint(j, NULL, num(sk_status_get(s, "slots_reserved")));
    cli_json_uint(j, NULL, num(sk_status_get(s, "slots_used")));
    cli_json_uint(j, NULL, num(sk_status_get(s, "queued")));
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

/* Gathers the document: flowd's and the schedulers' answers (schedulers
 * with their table of jobs), then the node view: from flowd's table when
 * it answers, and then the node monitors are not asked (one request per
 * node would not scale: their entries say only whether their process
 * runs); else from each node monitor's answer. Returns 0 or -1 (no
 * memory). */
static int gather(dashboard *db)
{
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
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        goto fail;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "cluster", cl->cc_dir);
    cli_json_uint(&j, "gathered", ++db->db_gathers);
    cli_json_array(&j, "daemons");
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        cli_json_object(&j, NULL);
        cli_json_string(&j, "kind", skc_kind_name(d->cd_kind));
        cli_json_string(&j, "name", d->cd_name);
        cli_json_string(&j, "address", d->cd_endpoint);
        int asked = flowd < 0 || d->cd_kind != SKC_NODEMON;
        cli_json_string(&j, "state",
                        st[i] != NULL   ? "up"
                        : !skc_alive(d) ? "dead"
                        : asked         ? "mute"
                                        : "running");
        if (st[i] == NULL) {
            cli_json_null(&j, "answer");
        } else {
            cli_json_object(&j, "answer");
            /* flowd's table is the node view below, in its compact form */
            cli_json_status(&j, d->cd_endpoint, st[i], d->cd_kind == SKC_SCHED);
            cli_json_end(&j);
        }
        cli_json_end(&j);
    }
    cli_json_end(&j);
    cli_json_object(&j, "nodes");
    cli_json_string(&j, "source", flowd >= 0 ? "flowd" : "nodemon");
    cli_json_array(&j, "columns");
    static const char *const cols[] = {"node", "slots", "long",
                                       "used", "queue", "state"};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        cli_json_string(&j, NULL, cols[c]);
    cli_json_end(&j);
    cli_json_array(&j, "rows");
    if (flowd >= 0)
        nodes_from_flowd(&j, st[flowd]);
    else
        for (unsigned i = 0; i < cl->cc_n; i++)
            if (st[i] != NULL && cl->cc_daemons[i].cd_kind == SKC_NODEMON)
                node_from_nodemon(&j, st[i]);
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_finish(&j);
    if (fclose(f) != 0)
        goto fail;
    for (unsigned i = 0; i < cl->cc_n; i++)
        sk_status_free(st[i]);
    free(db->db_json);
    db->db_json = buf;
    db->db_len = minify(buf, len);
    db->db_at = mono_s();
    return 0;
fail:
    for (unsigned i = 0; i < cl->cc_n; i++)
        sk_status_free(st[i]);
    free(buf);
    return -1;
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
    if (strcmp(url, "/api/cluster") == 0) {
        if ((db->db_json == NULL || mono_s() - db->db_at >= CACHE_S) &&
            gather(db) != 0 && db->db_json == NULL)
            return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, text,
                          "out of memory\n", 14);
        return answer(c, MHD_HTTP_OK, "application/json", db->db_json,
                      db->db_len);
    }
    return answer(c, MHD_HTTP_NOT_FOUND, text, "not found\n", 10);
}

int cmd_dashboard(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"dir", required_argument, NULL, 'd'},
        {"key-file", required_argument, NULL, 'K'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *listen = DEFAULT_LISTEN, *dir = NULL, *key = NULL;
    double timeout = 1;
    int c;
    optind = 0;
    argv[0] = (char *)PROG;
    while ((c = getopt_long(argc, argv, "l:d:K:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            listen = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'K':
            key = optarg;
            break;
        case 't':
            if (cli_parse_double(optarg, 0.01, 60, &timeout) != 0) {
                fprintf(stderr, PROG ": --timeout takes seconds\n");
                return 2;
            }
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
    dashboard db = {.db_timeout = timeout};
    db.db_cl = cli_load_cluster(PROG, dir);
    if (db.db_cl == NULL)
        return 1;
    char keybuf[4200];
    const char *k = cli_key_file(key, dir, keybuf, sizeof keybuf);
    snprintf(db.db_cl->cc_key, sizeof db.db_cl->cc_key, "%s",
             k != NULL ? k : "");
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
        free(db.db_cl);
        return 1;
    }
    fprintf(stderr, PROG ": the cluster in %s at http://%s/\n",
            db.db_cl->cc_dir, listen);
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(mhd);
    free(db.db_json);
    free(db.db_cl);
    return 0;
}
