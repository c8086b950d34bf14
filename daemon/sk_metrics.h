/*
 * sk_metrics.h - the Prometheus text exposition format (version 0.0.4)
 * for the daemons' counters and gauges: one renderer that every daemon
 * feeds from a table of (name, labels, type, help, field of its stats
 * struct), plus single values and histograms with fixed buckets.
 *
 * A family (one name) gets its "# HELP" and "# TYPE" lines before its
 * first sample; rows of one family must be consecutive, which is how the
 * tables are written (one row per label value, e.g.
 * skylark_sched_jobs_rejected_total{reason="limit"}). Names and label
 * sets are the caller's constants and are checked by the tests
 * (promtool), not here; help text is escaped as the format asks.
 *
 * Costs: rendering appends to one growing buffer, at most
 * SK_METRICS_MAX_BYTES; past that the output is marked truncated and
 * the server answers 500 instead of a partial scrape. Nothing here
 * locks: the buffer belongs to the thread that renders it.
 */
#ifndef SK_METRICS_H
#define SK_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes one scrape may have (a daemon writes a few tens of KiB). */
#define SK_METRICS_MAX_BYTES (1u << 20)

typedef enum sk_metric_type {
    SK_METRIC_COUNTER = 1, /* only goes up; the name ends in _total */
    SK_METRIC_GAUGE = 2,   /* goes up and down */
} sk_metric_type;

/* One row of a table: a uint64_t at mt_off in the caller's stats struct. */
typedef struct sk_metric {
    const char *mt_name;   /* family name, [a-zA-Z_:][a-zA-Z0-9_:]* */
    const char *mt_labels; /* what goes between the braces, or NULL */
    sk_metric_type mt_type;
    const char *mt_help;
    size_t mt_off; /* offsetof(struct, field), a uint64_t */
} sk_metric;

/* A growing text buffer, the output of one scrape. */
typedef struct sk_metrics_out {
    char *mo_data; /* NUL-terminated */
    size_t mo_len;
    size_t mo_cap;
    int mo_truncated;      /* over SK_METRICS_MAX_BYTES or out of memory */
    const char *mo_family; /* the family whose header was written last */
} sk_metrics_out;

/* sk_metrics_out_reset empties o for a new scrape (keeps its memory).
 * A zeroed sk_metrics_out is a valid empty one. */
void sk_metrics_out_reset(sk_metrics_out *o);

/* sk_metrics_out_free releases o's memory and zeroes it. */
void sk_metrics_out_free(sk_metrics_out *o);

/* sk_metrics_u64 appends one sample, with the family's header when name
 * differs from the previous sample's. labels is NULL or the text
 * between the braces (`reason="limit"`). */
void sk_metrics_u64(sk_metrics_out *o, const char *name, const char *labels,
                    sk_metric_type type, const char *help, uint64_t v);

/* sk_metrics_double is sk_metrics_u64 for a real value (NaN and the
 * infinities as the format spells them). */
void sk_metrics_double(sk_metrics_out *o, const char *name, const char *labels,
                       sk_metric_type type, const char *help, double v);

/* sk_metrics_table appends a sample per row of tab, its value the
 * uint64_t at stats + mt_off. */
void sk_metrics_table(sk_metrics_out *o, const sk_metric *tab, size_t n,
                      const void *stats);

/* The most finite bucket bounds of a histogram. */
#define SK_HIST_MAX_BOUNDS 24

/* A histogram with fixed upper bounds (le), cumulative when rendered. */
typedef struct sk_histogram {
    const double *hg_bounds; /* increasing, hg_nbounds of them */
    uint32_t hg_nbounds;
    uint64_t hg_counts[SK_HIST_MAX_BOUNDS + 1]; /* per bucket, last: +Inf */
    uint64_t hg_count;
    double hg_sum;
} sk_histogram;

/* sk_histogram_init empties h with the n (<= SK_HIST_MAX_BOUNDS)
 * increasing bounds, which must outlive h. */
void sk_histogram_init(sk_histogram *h, const double *bounds, uint32_t n);

/* sk_histogram_observe counts one value (O(number of bounds)). */
void sk_histogram_observe(sk_histogram *h, double v);

/* sk_metrics_histogram appends h as the histogram family name: its
 * _bucket samples (le="..." up to "+Inf"), _sum and _count. */
void sk_metrics_histogram(sk_metrics_out *o, const char *name, const char *help,
                          const sk_histogram *h);

#endif /* SK_METRICS_H */
