/*
 * test_fd_query.c - the flow node core's STATUS_REQUEST queries, driven
 * directly (no sockets): "flow-dump" of a cluster where long work waits
 * behind full nodes, re-solved from the dump by `skylark solve` and by
 * LEMON's dimacs-solver (skipped when absent) to the cost the round
 * found; the dump of a 60,000-task network paged in 765 KiB pieces and
 * put back together byte for byte, a page of a replaced dump refused;
 * "explain" of a waiting task (the nodes it could reach are full), of a
 * reserved one, and its refusals (no such job, task, a job id two
 * schedulers use); "jobs"; and both network readers answering busy while
 * a round is out.
 */
#include "cli_run.h"
#include "fc_testutil.h"
#include "fd_core.h"
#include "fd_testutil.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0     1000000000000ull
#define MS     FDT_MS
#define SCHED  100
#define SCHED2 101
#define SID    7
#define TOOL   200

static fd_config cfg_test(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    return cfg;
}

/* Asks query q; the reply stays valid until the next call into c. */
static const sk_status_reply *ask(fd_core *c, sk_time now, const char *q)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request =
        (sk_status_request){.sq_request = 5, .sq_table = true, .sq_query = q};
    fd_core_on_msg(c, now, TOOL, &m);
    const sk_msg *r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    if (r == NULL)
        tap_bail_out("no STATUS_REPLY to '%s'", q);
    return &r->m_status_reply;
}

static const char *kv(const sk_status_reply *r, const char *key)
{
    for (uint32_t i = 0; i < r->sr_nkv; i++)
        if (strcmp(r->sr_kv[i].kv_key, key) == 0)
            return r->sr_kv[i].kv_value;
    return NULL;
}

/* Appends the reply's text cells to buf (newlines between rows with
 * lines); returns the new length. */
static size_t text_of(const sk_status_reply *r, char **buf, size_t len,
                      bool lines)
{
    for (uint32_t i = 0; i < r->sr_nrows; i++) {
        const char *cell = r->sr_rows[i].sw_cells[0];
        size_t n = strlen(cell);
        *buf = realloc(*buf, len + n + 2);
        if (*buf == NULL)
            tap_bail_out("out of memory");
        memcpy(*buf + len, cell, n);
        len += n;
        if (lines)
            (*buf)[len++] = '\n';
        (*buf)[len] = '\0';
    }
    return len;
}

static bool has(const char *text, const char *what)
{
    return text != NULL && strstr(text, what) != NULL;
}

/* The explanation of q as one string (the caller frees it), or the
 * error in *err. */
static char *explain(fd_core *c, sk_time now, const char *q, char *err,
                     size_t errlen)
{
    const sk_status_reply *r = ask(c, now, q);
    const char *e = kv(r, "error");
    snprintf(err, errlen, "%s", e != NULL ? e : "");
    char *text = NULL;
    text_of(r, &text, 0, true);
    return text;
}

/* Runs `skylark solve FILE` and reads its cost; -1 if it did not. */
static long long skylark_solve(const char *path)
{
    const char *tool = cr_skylark();
    if (tool == NULL)
        return -1;
    char *argv[] = {(char *)tool, (char *)"solve", (char *)path, NULL};
    cr_run(argv, 30, NULL);
    const char *s = strstr(R.r_out, "s ");
    return R.r_status == 0 && s != NULL ? atoll(s + 2) : -1;
}

/* A cluster of 2 nodes (long caps 3 and 1) with job 1 of 6 long tasks,
 * all preferring n2: 4 placed, 2 wait; then job 2 of one task arrives and
 * waits (round 2 places nothing: the network is the one solved). */
static fd_core *full_cluster(sk_time *now)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1);
    fdt_node(c, T0, 2, "n2", 2, "r2", -1);
    fdt_sched(c, T0, SCHED, SID);
    const char *pn2[] = {"n2"};
    fdt_submit(c, T0, SCHED, 1, 6, true, pn2, 1);
    *now = T0 + 1000 * MS;
    if (fdt_round(c, *now, NULL) != 0)
        tap_bail_out("round 1 did not run");
    *now += 500 * MS;
    fdt_submit(c, *now, SCHED, 2, 1, true, NULL, 0);
    *now += 200 * MS;
    if (fdt_round(c, *now, NULL) != 0)
        tap_bail_out("round 2 did not run");
    return c;
}

static void test_dump_resolved(void)
{
    sk_time now;
    fd_core *c = full_cluster(&now);
    const sk_status_reply *r = ask(c, now, "flow-dump");
    tap_ok(kv(r, "error") == NULL && kv(r, "next") != NULL &&
               strcmp(kv(r, "next"), "end") == 0 &&
               strcmp(kv(r, "offset"), "0") == 0,
           "flow-dump: one page, from offset 0 to the end");
    tap_is_str(kv(r, "round"), "2", "... of round 2");
    long long cost = kv(r, "cost") != NULL ? atoll(kv(r, "cost")) : -1;
    tap_ok(cost > 0,
           "... with the round's cost, %lld (the network did not "
           "change since its solve)",
           cost);
    char *text = NULL;
    size_t len = text_of(r, &text, 0, false);
    tap_ok(len > 0 && (size_t)atoll(kv(r, "bytes")) == len &&
               r->sr_ncolumns == 1 && strcmp(r->sr_columns[0], "text") == 0,
           "... its bytes in cells of one column 'text' (%zu bytes)", len);
    tap_ok(has(text, "c name ") && has(text, " node n2\n") &&
               has(text, " task 7/2/0\n") && has(text, " unsched 7/1\n") &&
               has(text, "\np min "),
           "... DIMACS with the names in comment lines");
    char path[] = "/tmp/fd_query_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len)
        tap_bail_out("cannot write %s", path);
    close(fd);
    long long solved = skylark_solve(path);
    if (cr_skylark() == NULL)
        tap_skip(1, "no skylark tool under $top_builddir");
    else
        tap_ok(solved == cost, "skylark solve on the dump: %lld (round %lld)",
               solved, cost);
    if (fct_lemon_path() == NULL) {
        tap_skip(1, "no dimacs-solver ($DIMACS_SOLVER)");
    } else {
        bool feasible = false;
        int64_t lemon = -1;
        char err[200] = "";
        int rc = fct_lemon_solve_file(path, &feasible, &lemon, err, sizeof err);
        tap_ok(rc == 0 && feasible && lemon == cost,
               "LEMON's dimacs-solver on the dump: %lld (round %lld) %s",
               (long long)lemon, cost, err);
    }
    unlink(path);
    free(text);

    /* jobs */
    r = ask(c, now, "jobs");
    bool ok = r->sr_nrows == 2 && r->sr_ncolumns == 10;
    for (uint32_t i = 0; ok && i < r->sr_nrows; i++) {
        const char **cell = r->sr_rows[i].sw_cells;
        if (strcmp(cell[1], "1") == 0)
            ok = strcmp(cell[0], "7") == 0 && strcmp(cell[3], "long") == 0 &&
                 strcmp(cell[4], "6") == 0 && strcmp(cell[5], "2") == 0 &&
                 strcmp(cell[6], "4") == 0 && has(cell[9], "n1:3") &&
                 has(cell[9], "n2:1");
        else
            ok = strcmp(cell[5], "1") == 0 && strcmp(cell[9], "") == 0;
    }
    tap_ok(ok, "jobs: a row per job: 2 of job 1 wait, 4 reserved on n1:3 "
               "n2:1; job 2's one task waits");

    /* explain */
    char err[300];
    char *x = explain(c, now, "explain 7/2 0", err, sizeof err);
    tap_ok(err[0] == '\0' && has(x, "state: waiting") &&
               has(x, "-> unsched 7/2") && has(x, "-> cluster") &&
               has(x, "flow: task -> unsched 7/2 -> sink") &&
               has(x, "its arcs reach 2 nodes; 2 of them have no room") &&
               has(x, "is full"),
           "explain a waiting task: its arcs, its flow to unscheduled, the "
           "nodes it reaches full");
    free(x);
    uint32_t waiting = 0, reserved = 0;
    for (uint32_t t = 0; t < 6; t++) {
        fd_task_state st;
        if (fd_core_task(c, SCHED, 1, t, &st, NULL, NULL) == 0)
            *(st == FD_TASK_WAITING ? &waiting : &reserved) = t;
    }
    char q[64];
    snprintf(q, sizeof q, "explain 1 %u", waiting);
    x = explain(c, now, q, err, sizeof err);
    tap_ok(err[0] == '\0' && has(x, "preferences: n2") &&
               has(x, "(its preferred node)") &&
               has(x, "cheapest alternative: node n2") &&
               has(x, "node n2 is full: 1 long tasks"),
           "explain a task whose preferred node is full: the preference, "
           "and why it is not taken");
    free(x);
    snprintf(q, sizeof q, "explain 1 %u", reserved);
    x = explain(c, now, q, err, sizeof err);
    tap_ok(err[0] == '\0' && has(x, "state: reserved on node") &&
               has(x, "(stay where it is)") && has(x, "why it is there"),
           "explain a reserved task: its continuation arc and why it stays");
    free(x);

    uint64_t bad_before = fd_core_stats(c)->fs_bad_field;
    x = explain(c, now, "explain 99 0", err, sizeof err);
    tap_ok(x == NULL && has(err, "flowd holds no job 99"), "no such job: %s",
           err);
    x = explain(c, now, "explain 1 6", err, sizeof err);
    tap_ok(x == NULL && has(err, "has 6 tasks"), "no such task: %s", err);
    x = explain(c, now, "explain one", err, sizeof err);
    tap_ok(x == NULL && has(err, "[SCHED/]JOB TASK") &&
               fd_core_stats(c)->fs_bad_field == bad_before + 1,
           "a malformed explain is refused and counted: %s", err);
    const sk_status_reply *u = ask(c, now, "bogus");
    tap_ok(has(kv(u, "error"), "unknown query 'bogus'") &&
               fd_core_stats(c)->fs_bad_field == bad_before + 2,
           "an unknown query is refused and counted");
    fdt_sched(c, now, SCHED2, 8);
    fdt_submit(c, now, SCHED2, 1, 1, true, NULL, 0);
    x = explain(c, now, "explain 1 0", err, sizeof err);
    tap_ok(x == NULL && has(err, "give SCHED/JOB"),
           "a job id two schedulers use needs SCHED/: %s", err);
    x = explain(c, now, "explain 7/1 0", err, sizeof err);
    tap_ok(x != NULL && has(x, "task 7/1/0"), "... and with it, it is found");
    free(x);

    /* busy while a round is out */
    fd_round *round;
    fdt_drain(c);
    tap_is_int(fd_round_begin(c, now + 1000 * MS, &round), 0, "a round out");
    r = ask(c, now + 1000 * MS, "flow-dump");
    tap_ok(has(kv(r, "error"), "busy") && has(kv(r, "retry"), "yes"),
           "flow-dump while a round is out: busy, retry");
    r = ask(c, now + 1000 * MS, "explain 7/1 0");
    tap_ok(has(kv(r, "error"), "busy") && has(kv(r, "retry"), "yes"),
           "explain while a round is out: busy, retry");
    fdt_drain(c);
    fd_round_end(c, now + 1000 * MS, round, FC_ECANCELED, NULL);
    fd_core_free(c);
}

static void test_dump_pages(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 1, 60000, true, NULL, 0);
    sk_time now = T0 + 1000 * MS;
    fd_round *round;
    fdt_drain(c);
    if (fd_round_begin(c, now, &round) != 0)
        tap_bail_out("no round");
    fdt_drain(c);
    fd_round_end(c, now, round, FC_ECANCELED, NULL); /* synced, unsolved */

    char *want = NULL;
    size_t want_len = 0;
    FILE *f = open_memstream(&want, &want_len);
    if (f == NULL || fd_core_dump(c, f) != 0 || fclose(f) != 0)
        tap_bail_out("cannot dump");

    const sk_status_reply *r = ask(c, now, "flow-dump");
    char id[32];
    snprintf(id, sizeof id, "%s", kv(r, "dump"));
    tap_is_str(kv(r, "cost"), "unknown",
               "a network not solved since it changed: cost unknown");
    char *got = NULL;
    size_t len = text_of(r, &got, 0, false);
    unsigned pages = 1;
    size_t total = (size_t)atoll(kv(r, "bytes"));
    char next[32];
    snprintf(next, sizeof next, "%s", kv(r, "next"));
    while (strcmp(next, "end") != 0 && pages < 100) {
        char q[96];
        snprintf(q, sizeof q, "flow-dump %s %s", id, next);
        r = ask(c, now, q);
        if (kv(r, "error") != NULL || strcmp(kv(r, "offset"), next) != 0)
            break;
        len = text_of(r, &got, len, false);
        snprintf(next, sizeof next, "%s", kv(r, "next"));
        pages++;
    }
    tap_ok(pages >= 2 && strcmp(next, "end") == 0 && len == total,
           "a %zu-byte dump comes in %u pages", total, pages);
    /* the pages past the two header comment lines are fd_core_dump's */
    const char *body = got;
    for (int i = 0; i < 2 && body != NULL; i++)
        body = strchr(body, '\n') != NULL ? strchr(body, '\n') + 1 : NULL;
    tap_ok(body != NULL && strlen(body) == want_len &&
               memcmp(body, want, want_len) == 0,
           "... which put together are the network's dump byte for byte");
    free(got);
    free(want);

    char q[96];
    snprintf(q, sizeof q, "flow-dump %s 0", id);
    r = ask(c, now, q);
    tap_ok(has(kv(r, "error"), "is gone"), "a dump read to its end is gone: %s",
           kv(r, "error"));
    r = ask(c, now, "flow-dump");
    snprintf(id, sizeof id, "%s", kv(r, "dump"));
    snprintf(q, sizeof q, "flow-dump %s 999999999999", id);
    r = ask(c, now, q);
    tap_ok(has(kv(r, "error"), "beyond"), "an offset past the end: %s",
           kv(r, "error"));
    r = ask(c, now, "flow-dump");
    snprintf(q, sizeof q, "flow-dump %s 255", id);
    r = ask(c, now, q);
    tap_ok(has(kv(r, "error"), "is gone"),
           "a page of a replaced dump is refused");
    r = ask(c, now, "flow-dump x y");
    tap_ok(has(kv(r, "error"), "takes nothing, or ID OFFSET"),
           "a malformed page request is refused");
    fd_core_free(c);
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    test_dump_resolved();
    test_dump_pages();
    tap_done();
    return tap_exit_status();
}
