/*
 * test_metrics_render.c - sk_metrics (the Prometheus text renderer) and
 * the metrics address rules, without sockets: a table's families and
 * headers, label rows sharing one header, help escaping, histogram
 * buckets (cumulative, +Inf, _sum, _count), the size limit, and which
 * addresses are accepted and which are loopback.
 */
#include "sk_metrics.h"
#include "sk_metrics_http.h"
#include "tap.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct demo_stats {
    uint64_t ds_ok;
    uint64_t ds_bad_a;
    uint64_t ds_bad_b;
    uint64_t ds_level;
} demo_stats;

static const sk_metric DEMO[] = {
    {"demo_ok_total", NULL, SK_METRIC_COUNTER, "Things done.",
     offsetof(demo_stats, ds_ok)},
    {"demo_bad_total", "reason=\"a\"", SK_METRIC_COUNTER, "Bad, by reason.",
     offsetof(demo_stats, ds_bad_a)},
    {"demo_bad_total", "reason=\"b\"", SK_METRIC_COUNTER, "Bad, by reason.",
     offsetof(demo_stats, ds_bad_b)},
    {"demo_level", NULL, SK_METRIC_GAUGE, "A back\\slash\nand a newline.",
     offsetof(demo_stats, ds_level)},
};

static void test_table(void)
{
    demo_stats st = {1, 2, 18446744073709551615u, 4};
    sk_metrics_out o = {0};
    sk_metrics_table(&o, DEMO, 4, &st);
    const char *want = "# HELP demo_ok_total Things done.\n"
                       "# TYPE demo_ok_total counter\n"
                       "demo_ok_total 1\n"
                       "# HELP demo_bad_total Bad, by reason.\n"
                       "# TYPE demo_bad_total counter\n"
                       "demo_bad_total{reason=\"a\"} 2\n"
                       "demo_bad_total{reason=\"b\"} 18446744073709551615\n"
                       "# HELP demo_level A back\\\\slash\\nand a newline.\n"
                       "# TYPE demo_level gauge\n"
                       "demo_level 4\n";
    tap_is_str(o.mo_data, want,
               "a table: one header per family, label rows under it, "
               "help escaped, 64-bit values exact");
    tap_is_int((int64_t)o.mo_len, (int64_t)strlen(want),
               "mo_len is the length");
    sk_metrics_out_reset(&o);
    sk_metrics_double(&o, "demo_x", NULL, SK_METRIC_GAUGE, "x", 0.25);
    sk_metrics_double(&o, "demo_y", NULL, SK_METRIC_GAUGE, "y", NAN);
    sk_metrics_double(&o, "demo_z", NULL, SK_METRIC_GAUGE, "z", -INFINITY);
    tap_ok(strstr(o.mo_data, "demo_x 0.25\n") != NULL &&
               strstr(o.mo_data, "demo_y NaN\n") != NULL &&
               strstr(o.mo_data, "demo_z -Inf\n") != NULL,
           "reals, NaN and infinities as the format spells them");
    sk_metrics_out_free(&o);
}

static void test_histogram(void)
{
    static const double bounds[] = {0.01, 0.1, 1};
    sk_histogram h;
    sk_histogram_init(&h, bounds, 3);
    const double v[] = {0.005, 0.01, 0.05, 0.5, 2, 3};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        sk_histogram_observe(&h, v[i]);
    sk_metrics_out o = {0};
    sk_metrics_histogram(&o, "demo_seconds", "Times.", &h);
    const char *want = "# HELP demo_seconds Times.\n"
                       "# TYPE demo_seconds histogram\n"
                       "demo_seconds_bucket{le=\"0.01\"} 2\n"
                       "demo_seconds_bucket{le=\"0.1\"} 3\n"
                       "demo_seconds_bucket{le=\"1\"} 4\n"
                       "demo_seconds_bucket{le=\"+Inf\"} 6\n"
                       "demo_seconds_sum 5.565\n"
                       "demo_seconds_count 6\n";
    tap_is_str(o.mo_data, want,
               "a histogram: cumulative buckets (a value on a bound counts "
               "in it), +Inf, _sum, _count");
    sk_metrics_out_free(&o);
}

static void test_limit(void)
{
    sk_metrics_out o = {0};
    char name[64];
    size_t i = 0;
    while (!o.mo_truncated && i < 1000000) {
        snprintf(name, sizeof name, "demo_many_%zu", i++);
        sk_metrics_u64(&o, name, NULL, SK_METRIC_GAUGE, "Many.", i);
    }
    tap_ok(o.mo_truncated && o.mo_len <= SK_METRICS_MAX_BYTES,
           "past SK_METRICS_MAX_BYTES the output is marked truncated (%zu "
           "bytes, %zu families)",
           o.mo_len, i);
    sk_metrics_out_reset(&o);
    sk_metrics_u64(&o, "demo_a", NULL, SK_METRIC_GAUGE, "A.", 1);
    tap_ok(!o.mo_truncated && strstr(o.mo_data, "demo_a 1\n") != NULL,
           "a reset starts over");
    sk_metrics_out_free(&o);
}

static void test_addresses(void)
{
    struct {
        const char *addr;
        int ok, loopback;
    } c[] = {
        {"127.0.0.1:9464", 1, 1}, {"localhost:9464", 1, 1},
        {"127.3.2.1:1", 1, 1},    {"[::1]:9464", 1, 1},
        {"0.0.0.0:9464", 1, 0},   {"10.1.2.3:65535", 1, 0},
        {"[::]:9464", 1, 0},      {"127.0.0.1", 0, 0},
        {"127.0.0.1:0", 0, 0},    {"127.0.0.1:65536", 0, 0},
        {"127.0.0.1:9x", 0, 0},   {"example.org:80", 0, 0},
        {":9464", 0, 0},          {"[::1:9464", 0, 0},
        {"127.0.0.1:-1", 0, 0},   {"tcp://127.0.0.1:9464", 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct sockaddr_storage ss;
        socklen_t len;
        char err[256] = "";
        int rc = sk_metrics_addr_parse(c[i].addr, &ss, &len, err, sizeof err);
        if (c[i].ok)
            tap_ok(rc == 0 && sk_metrics_addr_is_loopback(&ss) == c[i].loopback,
                   "'%s' is accepted, %s", c[i].addr,
                   c[i].loopback ? "loopback" : "not loopback");
        else
            tap_ok(rc != 0 && strstr(err, "HOST:PORT") != NULL,
                   "'%s' is refused: %s", c[i].addr, err);
    }
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_table();
    test_histogram();
    test_limit();
    test_addresses();
    tap_done();
    return tap_exit_status();
}
