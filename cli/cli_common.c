/*
 * cli_common.c - helpers of the cluster-facing subcommands (see
 * cli_common.h).
 */
#include "cli_common.h"

#include "skylark.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_parse_ulong(const char *s, unsigned long min, unsigned long max,
                    unsigned long *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double min, double max, double *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_placement(const char *s, sk_job_placement *out)
{
    if (s != NULL && strcmp(s, "sample") == 0)
        *out = SK_PLACEMENT_SAMPLE;
    else if (s != NULL && strcmp(s, "flow") == 0)
        *out = SK_PLACEMENT_FLOW;
    else
        return -1;
    return 0;
}

int cli_check_endpoint(const char *who, const char *what, const char *addr)
{
    char why[256];
    if (sk_endpoint_check(addr, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "%s: %s '%s': %s\n", who, what, addr, why);
    return -1;
}

int cli_conn_opt(cli_conn *o, const char *who, int c, const char *arg)
{
    switch (c) {
    case 't':
        if (cli_parse_double(arg, 0.01, o->co_timeout_max, &o->co_timeout) !=
            0) {
            fprintf(stderr, "%s: --timeout takes seconds\n", who);
            return -1;
        }
        return 1;
    case 'd':
        o->co_dir = arg;
        return 1;
    case 'K':
        o->co_key = arg;
        return 1;
    case 'T':
        o->co_token = arg;
        return 1;
    default:
        return 0;
    }
}

void cli_dir(const char *dir, char *out, size_t len)
{
    if (dir != NULL)
        snprintf(out, len, "%s", dir);
    else if (skc_default_dir(out, len) != 0)
        snprintf(out, len, "/tmp/skylark");
}

int cli_schedulers(const char *who, const char *dir, const char **scheds,
                   unsigned max, unsigned *n, skc_cluster **cl)
{
    *cl = NULL;
    if (*n > 0)
        return 0;
    if ((*cl = cli_load_cluster(who, dir)) == NULL)
        return -1;
    *n = skc_scheduler_endpoints(*cl, scheds, max);
    if (*n == 0) {
        fprintf(stderr, "%s: the local cluster has no scheduler\n", who);
        return -1;
    }
    return 0;
}

const char *cli_key_file(const char *given, const char *dir, char *buf,
                         size_t len)
{
    if (given != NULL)
        return given;
    const char *env = getenv("SKYLARK_KEY_FILE");
    if (env != NULL && env[0] != '\0')
        return env;
    char d[4096];
    cli_dir(dir, d, sizeof d);
    if (snprintf(buf, len, "%s/cluster.key", d) >= (int)len ||
        access(buf, F_OK) != 0)
        return NULL;
    return buf;
}

const char *cli_token_file(const char *given, const char *dir, char *buf,
                           size_t len)
{
    if (given != NULL)
        return given;
    const char *env = getenv("SKYLARK_TOKEN_FILE");
    if (env != NULL && env[0] != '\0')
        return env;
    char d[4096];
    cli_dir(dir, d, sizeof d);
    if (snprintf(buf, len, "%s/user.token", d) >= (int)len ||
        access(buf, F_OK) != 0)
        return NULL;
    return buf;
}

void cli_credential(const char *key, const char *token, const char *dir,
                    char *keybuf, char *tokbuf, size_t len,
                    const char **key_file, const char **token_file)
{
    *token_file = key != NULL ? token : cli_token_file(token, dir, tokbuf, len);
    *key_file =
        *token_file != NULL ? NULL : cli_key_file(key, dir, keybuf, len);
}

int cli_flowd(const char *who, const char *dir, const char *given, char *buf,
              size_t len)
{
    if (given != NULL) {
        snprintf(buf, len, "%s", given);
        return 0;
    }
    skc_cluster *cl = cli_load_cluster(who, dir);
    if (cl == NULL)
        return -1;
    int rc = -1;
    for (unsigned i = 0; i < cl->cc_n && rc != 0; i++)
        if (cl->cc_daemons[i].cd_kind == SKC_FLOWD) {
            snprintf(buf, len, "%s", cl->cc_daemons[i].cd_endpoint);
            rc = 0;
        }
    if (rc != 0)
        fprintf(stderr,
                "%s: the local cluster in %s has no flow node (started "
                "with --no-flowd?): give --flowd ADDR\n",
                who, cl->cc_dir);
    free(cl);
    return rc;
}

double cli_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t cli_num(const char *v)
{
    return v != NULL ? strtoull(v, NULL, 10) : 0;
}

int cli_column_of(const sk_status *s, const char *name)
{
    for (unsigned c = 0; c < sk_status_ncolumns(s); c++)
        if (strcmp(sk_status_column(s, c), name) == 0)
            return (int)c;
    return -1;
}

int cli_query(const char *who, const char *addr, const char *key,
              const char *query, double timeout, sk_status **out)
{
    double end = cli_mono_s() + timeout;
    for (;;) {
        double left = end - cli_mono_s();
        int rc = left > 0 ? sk_status_query(addr, key, query, left, 1, out)
                          : SK_ETIMEDOUT;
        if (rc != 0) {
            fprintf(stderr, "%s: no answer from %s: %s\n", who, addr,
                    sk_strerror(rc));
            return 1;
        }
        const char *err = sk_status_get(*out, "error");
        if (err == NULL)
            return 0;
        const char *retry = sk_status_get(*out, "retry");
        if (retry != NULL && strcmp(retry, "yes") == 0 &&
            end - cli_mono_s() > 0.02) {
            sk_status_free(*out);
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
            continue;
        }
        fprintf(stderr, "%s: %s %s at %s: %s\n", who, sk_status_role(*out),
                sk_status_name(*out), addr, err);
        sk_status_free(*out);
        *out = NULL;
        return 1;
    }
}

skc_cluster *cli_load_cluster(const char *who, const char *dir)
{
    skc_cluster *c = malloc(sizeof *c);
    if (c == NULL) {
        fprintf(stderr, "%s: out of memory\n", who);
        return NULL;
    }
    char d[4096], err[512];
    cli_dir(dir, d, sizeof d);
    int rc = skc_load(d, c, err, sizeof err);
    if (rc == SK_ENOTFOUND) {
        fprintf(stderr,
                "%s: no local cluster in %s (start one with `skylark "
                "cluster up`, or give an address)\n",
                who, d);
    } else if (rc != 0) {
        fprintf(stderr, "%s: %s\n", who, err);
    } else {
        return c;
    }
    free(c);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cli_rank(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    /* Rank ceil(q * n), 1-based; the slack keeps a product such as
     * 0.95 * 20 that lands a hair above 19 from taking the 20th. */
    double r = ceil(q * (double)n - 1e-9);
    size_t i = r < 1 ? 0 : (size_t)r - 1;
    return sorted[i < n ? i : n - 1];
}

void cli_dist_of(double *v, size_t n, cli_dist *out)
{
    memset(out, 0, sizeof *out);
    out->cd_n = n;
    if (n == 0)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    out->cd_p50 = cli_rank(v, n, 0.5);
    out->cd_p95 = cli_rank(v, n, 0.95);
    out->cd_p99 = cli_rank(v, n, 0.99);
    out->cd_max = v[n - 1];
}

const char *cli_outcome(const sk_task_result *r, char *buf, size_t len)
{
    const char *name = sk_outcome_name(r->tr_outcome);
    /* tr_exit: the exit code; -n killed by signal n; -1 no exit at all
     * (and 0 from a scheduler that decided the outcome itself). */
    if (r->tr_outcome == SK_OUTCOME_FAILED && r->tr_exit > 0)
        snprintf(buf, len, "%s (exit %d)", name, r->tr_exit);
    else if (r->tr_outcome == SK_OUTCOME_FAILED && r->tr_exit < -1)
        snprintf(buf, len, "%s (signal %d)", name, -r->tr_exit);
    else
        snprintf(buf, len, "%s", name);
    return buf;
}

const char *cli_duration(double s, char *buf, size_t len)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.0f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
    return buf;
}

static const char *get(const sk_status *s, const char *key)
{
    const char *v = sk_status_get(s, key);
    return v != NULL ? v : "?";
}

/* Whether d, a daemon of c, runs ("dead"), answers ("mute") or both
 * ("up"), with its answer in *s when it is up (the caller frees it). */
static const char *daemon_state(const skc_cluster *c, const skc_daemon *d,
                                sk_status **s)
{
    *s = NULL;
    if (!skc_alive(d))
        return "dead";
    if (sk_status_fetch_keyed(d->cd_endpoint, skc_key(c), 1.0, 0, s) != 0) {
        *s = NULL;
        return "mute";
    }
    return "up";
}

unsigned cli_print_cluster(const skc_cluster *c, FILE *out)
{
    unsigned down = 0;
    fprintf(out, "%-9s  %-8s  %-22s  %-7s  %-5s  %s\n", "ROLE", "NAME",
            "ENDPOINT", "PID", "STATE", "DETAIL");
    for (unsigned i = 0; i < c->cc_n; i++) {
        const skc_daemon *d = &c->cc_daemons[i];
        char detail[160] = "";
        sk_status *s;
        const char *state = daemon_state(c, d, &s);
        if (s != NULL && d->cd_kind == SKC_SCHED) {
            snprintf(detail, sizeof detail,
                     "%s node monitors, %s jobs in flight, %s tasks launched",
                     get(s, "nodes"), get(s, "jobs"), get(s, "tasks_launched"));
        } else if (s != NULL && d->cd_kind == SKC_FLOWD) {
            snprintf(detail, sizeof detail,
                     "%s nodes, %s schedulers, %s long tasks running, %s "
                     "waiting, %s rounds",
                     get(s, "nodes"), get(s, "schedulers"),
                     get(s, "long_running"), get(s, "long_waiting"),
                     get(s, "rounds"));
        } else if (s != NULL) {
            snprintf(detail, sizeof detail,
                     "%s/%s slots used, %s queued, %s launched",
                     get(s, "slots_used"), get(s, "slots_total"),
                     get(s, "queued"), get(s, "launched"));
        }
        sk_status_free(s);
        down += strcmp(state, "up") != 0;
        fprintf(out, "%-9s  %-8s  %-22s  %-7ld  %-5s  %s\n",
                skc_kind_name(d->cd_kind), d->cd_name, d->cd_endpoint,
                (long)d->cd_pid, state, detail);
    }
    return down;
}

void cli_json_status(cli_json *j, const char *addr, const sk_status *s,
                     int table)
{
    uint64_t us = sk_status_time_us(s);
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&secs, &tm) != NULL) {
        size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(when + n, sizeof when - n, ".%06uZ", (unsigned)(us % 1000000));
    }
    cli_json_string(j, "address", addr);
    cli_json_string(j, "role", sk_status_role(s));
    cli_json_string(j, "name", sk_status_name(s));
    cli_json_uint(j, "time_us", us);
    cli_json_string(j, "time", when);
    cli_json_object(j, "values");
    for (unsigned i = 0; i < sk_status_nkv(s); i++)
        cli_json_string(j, sk_status_key(s, i), sk_status_value(s, i));
    cli_json_end(j);
    if (!table)
        return;
    unsigned nc = sk_status_ncolumns(s), nr = sk_status_nrows(s);
    cli_json_array(j, "columns");
    for (unsigned c = 0; c < nc; c++)
        cli_json_string(j, NULL, sk_status_column(s, c));
    cli_json_end(j);
    cli_json_array(j, "rows");
    for (unsigned r = 0; r < nr; r++) {
        cli_json_object(j, NULL);
        for (unsigned c = 0; c < nc; c++)
            cli_json_string(j, sk_status_column(s, c), sk_status_cell(s, r, c));
        cli_json_end(j);
    }
    cli_json_end(j);
}

unsigned cli_json_cluster(const skc_cluster *c, FILE *out)
{
    unsigned down = 0;
    cli_json j;
    cli_json_init(&j, out);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "cluster", c->cc_dir);
    cli_json_array(&j, "daemons");
    for (unsigned i = 0; i < c->cc_n; i++) {
        const skc_daemon *d = &c->cc_daemons[i];
        sk_status *s;
        const char *state = daemon_state(c, d, &s);
        down += s == NULL;
        cli_json_object(&j, NULL);
        cli_json_string(&j, "kind", skc_kind_name(d->cd_kind));
        cli_json_string(&j, "name", d->cd_name);
        cli_json_string(&j, "address", d->cd_endpoint);
        cli_json_int(&j, "pid", (int64_t)d->cd_pid);
        cli_json_string(&j, "state", state);
        if (s == NULL) {
            cli_json_null(&j, "answer");
        } else {
            cli_json_object(&j, "answer");
            cli_json_status(&j, d->cd_endpoint, s, 0);
            cli_json_end(&j);
        }
        cli_json_end(&j);
        sk_status_free(s);
    }
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_finish(&j);
    return down;
}
