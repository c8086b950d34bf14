/*
 * sk_metrics.c - the Prometheus text format renderer (sk_metrics.h).
 */
#include "sk_metrics.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sk_metrics_out_reset(sk_metrics_out *o)
{
    o->mo_len = 0;
    if (o->mo_data != NULL)
        o->mo_data[0] = '\0';
    o->mo_truncated = 0;
    o->mo_family = NULL;
}

void sk_metrics_out_free(sk_metrics_out *o)
{
    free(o->mo_data);
    memset(o, 0, sizeof *o);
}

/* Makes room for need more bytes and the NUL; 0 or -1 (truncated). */
static int reserve(sk_metrics_out *o, size_t need)
{
    if (o->mo_truncated)
        return -1;
    if (o->mo_len + need + 1 > SK_METRICS_MAX_BYTES) {
        o->mo_truncated = 1;
        return -1;
    }
    if (o->mo_len + need + 1 <= o->mo_cap)
        return 0;
    size_t cap = o->mo_cap == 0 ? 8192 : o->mo_cap;
    while (cap < o->mo_len + need + 1)
        cap *= 2;
    if (cap > SK_METRICS_MAX_BYTES)
        cap = SK_METRICS_MAX_BYTES;
    char *p = realloc(o->mo_data, cap);
    if (p == NULL) {
        o->mo_truncated = 1;
        return -1;
    }
    o->mo_data = p;
    o->mo_cap = cap;
    return 0;
}

static void put(sk_metrics_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(sk_metrics_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(o, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(o->mo_data + o->mo_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->mo_len += (size_t)n;
}

/* HELP text escapes backslash and newline (the format's only rules). */
static void put_help(sk_metrics_out *o, const char *help)
{
    for (const char *p = help; *p != '\0'; p++) {
        if (*p == '\\')
            put(o, "\\\\");
        else if (*p == '\n')
            put(o, "\\n");
        else
            put(o, "%c", *p);
    }
}

static const char *type_name(sk_metric_type t)
{
    return t == SK_METRIC_COUNTER ? "counter" : "gauge";
}

static void header(sk_metrics_out *o, const char *name, const char *type,
                   const char *help)
{
    if (o->mo_family != NULL && strcmp(o->mo_family, name) == 0)
        return;
    o->mo_family = name;
    put(o, "# HELP %s ", name);
    put_help(o, help);
    put(o, "\n# TYPE %s %s\n", name, type);
}

/* "name" or "name{labels}" before the value. */
static void sample_name(sk_metrics_out *o, const char *name, const char *suffix,
                        const char *labels)
{
    if (labels != NULL && labels[0] != '\0')
        put(o, "%s%s{%s} ", name, suffix, labels);
    else
        put(o, "%s%s ", name, suffix);
}

static void put_double(sk_metrics_out *o, double v)
{
    if (isnan(v))
        put(o, "NaN\n");
    else if (isinf(v))
        put(o, "%cInf\n", v > 0 ? '+' : '-');
    else
        put(o, "%.15g\n", v);
}

void sk_metrics_u64(sk_metrics_out *o, const char *name, const char *labels,
                    sk_metric_type type, const char *help, uint64_t v)
{
    header(o, name, type_name(type), help);
    sample_name(o, name, "", labels);
    put(o, "%" PRIu64 "\n", v);
}

void sk_metrics_double(sk_metrics_out *o, const char *name, const char *labels,
                       sk_metric_type type, const char *help, double v)
{
    header(o, name, type_name(type), help);
    sample_name(o, name, "", labels);
    put_double(o, v);
}

void sk_metrics_table(sk_metrics_out *o, const sk_metric *tab, size_t n,
                      const void *stats)
{
    const unsigned char *base = stats;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, base + tab[i].mt_off, sizeof v);
        sk_metrics_u64(o, tab[i].mt_name, tab[i].mt_labels, tab[i].mt_type,
                       tab[i].mt_help, v);
    }
}

void sk_histogram_init(sk_histogram *h, const double *bounds, uint32_t n)
{
    memset(h, 0, sizeof *h);
    h->hg_bounds = bounds;
    h->hg_nbounds = n > SK_HIST_MAX_BOUNDS ? SK_HIST_MAX_BOUNDS : n;
}

void sk_histogram_observe(sk_histogram *h, double v)
{
    uint32_t i = 0;
    while (i < h->hg_nbounds && v > h->hg_bounds[i])
        i++;
    h->hg_counts[i]++;
    h->hg_count++;
    h->hg_sum += v;
}

void sk_metrics_histogram(sk_metrics_out *o, const char *name, const char *help,
                          const sk_histogram *h)
{
    header(o, name, "histogram", help);
    uint64_t cum = 0;
    for (uint32_t i = 0; i < h->hg_nbounds; i++) {
        cum += h->hg_counts[i];
        put(o, "%s_bucket{le=\"%.15g\"} %" PRIu64 "\n", name, h->hg_bounds[i],
            cum);
    }
    cum += h->hg_counts[h->hg_nbounds];
    put(o, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", name, cum);
    sample_name(o, name, "_sum", NULL);
    put_double(o, h->hg_sum);
    sample_name(o, name, "_count", NULL);
    put(o, "%" PRIu64 "\n", h->hg_count);
}
