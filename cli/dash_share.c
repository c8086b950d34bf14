/*
 * dash_share.c - fair share per user: flowd's sums of the node monitors'
 * heartbeats, else the node monitors asked by a pool of threads (see
 * dash_share.h).
 */
#include "dash_share.h"

#include "cli_common.h"
#include "skylark.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The entry of name in s (sorted), added if new and there is room; NULL
 * when there is none (or no memory). */
static dash_user *user_of(dash_share *s, const char *name)
{
    size_t lo = 0, hi = s->ds_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->ds_u[mid].du_name, name);
        if (c == 0)
            return &s->ds_u[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    char *copy = s->ds_n < DASH_SHARE_USERS ? strdup(name) : NULL;
    if (copy == NULL)
        return NULL;
    memmove(&s->ds_u[lo + 1], &s->ds_u[lo], (s->ds_n - lo) * sizeof s->ds_u[0]);
    s->ds_u[lo] = (dash_user){.du_name = copy, .du_wmin = UINT64_MAX};
    s->ds_n++;
    return &s->ds_u[lo];
}

/* Adds flowd's summed table of users (user, weight_min, weight_max,
 * running, queued, slot_ms, nodes) to s. */
static void add_sums(dash_share *s, const sk_status *st)
{
    int cu = cli_column_of(st, "user"), cl = cli_column_of(st, "weight_min"),
        ch = cli_column_of(st, "weight_max"), cr = cli_column_of(st, "running"),
        cq = cli_column_of(st, "queued"), ct = cli_column_of(st, "slot_ms"),
        cn = cli_column_of(st, "nodes");
    if (cu < 0 || cl < 0 || ch < 0 || cr < 0 || cq < 0 || ct < 0 || cn < 0)
        return;
    for (unsigned r = 0; r < sk_status_nrows(st); r++) {
        const char *name = sk_status_cell(st, r, (unsigned)cu);
        dash_user *u = name != NULL ? user_of(s, name) : NULL;
        if (u == NULL) {
            s->ds_dropped++;
            continue;
        }
        uint64_t lo = cli_num(sk_status_cell(st, r, (unsigned)cl));
        uint64_t hi = cli_num(sk_status_cell(st, r, (unsigned)ch));
        u->du_wmin = lo < u->du_wmin ? lo : u->du_wmin;
        u->du_wmax = hi > u->du_wmax ? hi : u->du_wmax;
        u->du_running += cli_num(sk_status_cell(st, r, (unsigned)cr));
        u->du_queued += cli_num(sk_status_cell(st, r, (unsigned)cq));
        u->du_slot_ms += cli_num(sk_status_cell(st, r, (unsigned)ct));
        u->du_nodes += cli_num(sk_status_cell(st, r, (unsigned)cn));
    }
}

/* The number in pair key of st, 0 when absent. */
static uint64_t pair(const sk_status *st, const char *key)
{
    return cli_num(sk_status_get(st, key));
}

int dash_share_from_flowd(const skc_cluster *cl, double timeout,
                          dash_share *out)
{
    memset(out, 0, sizeof *out);
    const char *ep = NULL;
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        if (d->cd_kind == SKC_NODEMON)
            out->ds_nodemons++;
        else if (d->cd_kind == SKC_FLOWD && skc_alive(d))
            ep = d->cd_endpoint;
    }
    if (ep == NULL)
        return -1;
    double t0 = cli_mono_s();
    sk_status *st = NULL;
    if (sk_status_query(ep, skc_key(cl), "users", timeout, 1, &st) != 0)
        return -1;
    if (sk_status_get(st, "error") != NULL ||
        sk_status_get(st, "nodes_reporting") == NULL ||
        (pair(st, "nodes_reporting") == 0 && out->ds_nodemons > 0) ||
        (out->ds_u = calloc(DASH_SHARE_USERS, sizeof *out->ds_u)) == NULL) {
        sk_status_free(st);
        return -1;
    }
    out->ds_us = (uint64_t)((cli_mono_s() - t0) * 1e6);
    out->ds_source = "flowd";
    out->ds_asked = out->ds_answered = 1;
    out->ds_reporting = pair(st, "nodes_reporting");
    out->ds_cut = pair(st, "users_cut");
    out->ds_age_ms = pair(st, "age_ms_max");
    out->ds_dropped = pair(st, "users_dropped");
    add_sums(out, st);
    sk_status_free(st);
    return 0;
}

/* Adds a node monitor's table of users (user, weight, queued, running,
 * slot_s) to s. */
static void add_table(dash_share *s, const sk_status *st)
{
    int cu = cli_column_of(st, "user"), cw = cli_column_of(st, "weight"),
        cq = cli_column_of(st, "queued"), cr = cli_column_of(st, "running"),
        ct = cli_column_of(st, "slot_s");
    if (cu < 0 || cw < 0 || cq < 0 || cr < 0 || ct < 0)
        return;
    for (unsigned r = 0; r < sk_status_nrows(st); r++) {
        const char *name = sk_status_cell(st, r, (unsigned)cu);
        dash_user *u = name != NULL ? user_of(s, name) : NULL;
        if (u == NULL) {
            s->ds_dropped++;
            continue;
        }
        uint64_t w = cli_num(sk_status_cell(st, r, (unsigned)cw));
        u->du_wmin = w < u->du_wmin ? w : u->du_wmin;
        u->du_wmax = w > u->du_wmax ? w : u->du_wmax;
        u->du_queued += cli_num(sk_status_cell(st, r, (unsigned)cq));
        u->du_running += cli_num(sk_status_cell(st, r, (unsigned)cr));
        const char *t = sk_status_cell(st, r, (unsigned)ct);
        double sec = t != NULL ? strtod(t, NULL) : 0;
        if (sec > 0 && sec < 1e15)
            u->du_slot_ms += (uint64_t)(sec * 1000 + 0.5);
        u->du_nodes++;
    }
}

/* The work the threads share: node monitors by index in eps, the next
 * one to ask, and one answer slot per node monitor (written by the one
 * thread that took its index). */
typedef struct pool {
    const char **pl_eps;
    unsigned pl_n;
    atomic_uint pl_next;
    atomic_uint pl_asked;
    const char *pl_key;
    double pl_timeout, pl_until;
    sk_status **pl_out;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&p->pl_next, 1);
        double left = p->pl_until - cli_mono_s();
        if (i >= p->pl_n || left <= 0)
            return NULL;
        atomic_fetch_add(&p->pl_asked, 1);
        if (sk_status_fetch_keyed(p->pl_eps[i], p->pl_key,
                                  left < p->pl_timeout ? left : p->pl_timeout,
                                  1, &p->pl_out[i]) != 0)
            p->pl_out[i] = NULL;
    }
}

int dash_share_gather(const skc_cluster *cl, dash_kept *kept, double timeout,
                      double budget, unsigned workers, dash_share *out)
{
    memset(out, 0, sizeof *out);
    out->ds_source = "nodemons";
    const char **eps = calloc(cl->cc_n + 1, sizeof *eps);
    sk_status **st = calloc(cl->cc_n + 1, sizeof *st);
    out->ds_u = calloc(DASH_SHARE_USERS, sizeof *out->ds_u);
    if (eps == NULL || st == NULL || out->ds_u == NULL) {
        free(eps);
        free(st);
        free(out->ds_u);
        out->ds_u = NULL;
        return -1;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < cl->cc_n; i++) {
        const skc_daemon *d = &cl->cc_daemons[i];
        if (d->cd_kind != SKC_NODEMON)
            continue;
        out->ds_nodemons++;
        if (skc_alive(d))
            eps[n++] = d->cd_endpoint;
    }
    /* Kept sessions: the first DASH_KEPT_MAX, on this thread, while the
     * workers ask the rest a session each. */
    unsigned nk = kept == NULL ? 0 : (n < DASH_KEPT_MAX ? n : DASH_KEPT_MAX);
    double t0 = cli_mono_s();
    pool p = {.pl_eps = eps + nk,
              .pl_n = n - nk,
              .pl_key = skc_key(cl),
              .pl_timeout = timeout,
              .pl_until = t0 + budget,
              .pl_out = st + nk};
    atomic_init(&p.pl_next, 0);
    atomic_init(&p.pl_asked, 0);
    unsigned rest = n - nk;
    workers = workers < 1 ? 1 : workers;
    workers = workers > DASH_SHARE_WORKERS ? DASH_SHARE_WORKERS : workers;
    workers = workers > rest ? (rest > 0 ? rest : 1) : workers;
    pthread_t tid[DASH_SHARE_WORKERS];
    unsigned started = 0;
    /* With kept sessions this thread runs their loop: all the workers
     * are threads (none when every node monitor has a kept session). */
    unsigned threads = nk > 0 ? (rest > 0 ? workers : 0) : workers - 1;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, worker, &p) != 0)
            break;
    unsigned kasked = 0;
    if (nk > 0)
        kasked = dash_kept_ask(kept, eps, nk, timeout, st);
    if (nk == 0 || (rest > 0 && started == 0))
        worker(&p); /* this thread asks too */
    for (unsigned k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    out->ds_us = (uint64_t)((cli_mono_s() - t0) * 1e6);
    out->ds_workers = started + (nk == 0 || (rest > 0 && started == 0));
    out->ds_kept = nk;
    out->ds_asked = atomic_load(&p.pl_asked) + kasked;
    for (unsigned i = 0; i < n; i++)
        if (st[i] != NULL) {
            out->ds_answered++;
            add_table(out, st[i]);
            sk_status_free(st[i]);
        }
    free(eps);
    free(st);
    return 0;
}

void dash_share_json(const dash_share *s, cli_json *j)
{
    cli_json_string(j, "source", s->ds_source);
    if (strcmp(s->ds_source, "flowd") == 0) {
        cli_json_uint(j, "nodes_reporting", s->ds_reporting);
        cli_json_uint(j, "users_cut", s->ds_cut);
        cli_json_uint(j, "age_ms_max", s->ds_age_ms);
    }
    cli_json_uint(j, "nodemons", s->ds_nodemons);
    cli_json_uint(j, "asked", s->ds_asked);
    cli_json_uint(j, "answered", s->ds_answered);
    cli_json_uint(j, "users_dropped", s->ds_dropped);
    cli_json_uint(j, "workers", s->ds_workers);
    cli_json_uint(j, "gather_us", s->ds_us);
    cli_json_array(j, "columns");
    static const char *const cols[] = {"user",    "weight_min", "weight_max",
                                       "running", "queued",     "slot_ms",
                                       "nodes"};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        cli_json_string(j, NULL, cols[c]);
    cli_json_end(j);
    cli_json_array(j, "rows");
    for (size_t k = 0; k < s->ds_n; k++) {
        const dash_user *u = &s->ds_u[k];
        cli_json_array(j, NULL);
        cli_json_string(j, NULL, u->du_name);
        cli_json_uint(j, NULL, u->du_wmin);
        cli_json_uint(j, NULL, u->du_wmax);
        cli_json_uint(j, NULL, u->du_running);
        cli_json_uint(j, NULL, u->du_queued);
        cli_json_uint(j, NULL, u->du_slot_ms);
        cli_json_uint(j, NULL, u->du_nodes);
        cli_json_end(j);
    }
    cli_json_end(j);
}

void dash_share_free(dash_share *s)
{
    for (size_t k = 0; k < s->ds_n; k++)
        free(s->ds_u[k].du_name);
    free(s->ds_u);
    s->ds_u = NULL;
    s->ds_n = 0;
}
