/*
 * test_cli_common.c - the `skylark` command line's summary figures
 * (cli/cli_common.c): percentiles by nearest rank and the maximum of a
 * sample handed over unsorted, as `skylark run` and `skylark load` print
 * them, a task's outcome in words, and the strict parsers of numbers and
 * placements.
 */
#include "cli_common.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* The sample of the issue: the last value recorded (1.015 s) is not the
 * largest, so a maximum read before the sort came out below the p99. */
static void test_max_not_last(void)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = 0.5 + 0.001 * i; /* 0.500 .. 0.599 */
    v[97] = 1.016;
    v[98] = 1.020;
    v[99] = 1.015;
    cli_dist d;
    cli_dist_of(v, 100, &d);
    tap_ok(d.cd_max == 1.020 && d.cd_p99 == 1.016 && d.cd_p99 <= d.cd_max,
           "max is the largest value, not the last one (p99 %g, max %g)",
           d.cd_p99, d.cd_max);
    tap_ok(v[0] == 0.5 && v[99] == 1.020, "the sample is left sorted");
}

static void test_nearest_rank(void)
{
    double v[100];
    /* 1..100 in a scrambled order (37 is prime to 100). */
    for (int i = 0; i < 100; i++)
        v[i] = (double)((i * 37) % 100 + 1);
    cli_dist d;
    cli_dist_of(v, 100, &d);
    tap_ok(d.cd_n == 100 && d.cd_p50 == 50 && d.cd_p95 == 95 &&
               d.cd_p99 == 99 && d.cd_max == 100,
           "1..100: p50 50, p95 95, p99 99, max 100 (nearest rank)");

    double w[20];
    for (int i = 0; i < 20; i++)
        w[i] = (double)(20 - i);
    cli_dist_of(w, 20, &d);
    tap_ok(d.cd_p50 == 10 && d.cd_p95 == 19 && d.cd_p99 == 20,
           "1..20: p95 is the 19th value (0.95 * 20 is 19, not a hair "
           "over), p99 the 20th");

    double one = 7;
    cli_dist_of(&one, 1, &d);
    tap_ok(d.cd_p50 == 7 && d.cd_p99 == 7 && d.cd_max == 7,
           "one value: every figure is that value");
    double two[2] = {3, 1};
    cli_dist_of(two, 2, &d);
    tap_ok(d.cd_p50 == 1 && d.cd_p95 == 3 && d.cd_max == 3,
           "two values: p50 the lower, p95 the upper");
    cli_dist_of(NULL, 0, &d);
    tap_ok(d.cd_n == 0 && d.cd_p50 == 0 && d.cd_p99 == 0 && d.cd_max == 0,
           "no values: all 0");
    double s[3] = {1, 2, 3};
    tap_ok(cli_rank(s, 3, 1.0) == 3 && cli_rank(s, 3, 1e-9) == 1 &&
               cli_rank(s, 3, 0.34) == 2 && cli_rank(s, 3, 0.33) == 1,
           "cli_rank at the edges: q 1 is the max, a tiny q the min");
}

/* Random samples: every figure is one of the values, in order, and has
 * the nearest rank's defining property. */
static void test_property(void)
{
    srand(24);
    int bad = 0;
    static const double qs[3] = {0.5, 0.95, 0.99};
    for (int round = 0; round < 2000 && !bad; round++) {
        size_t n = 1 + (size_t)(rand() % 300);
        double v[300], orig[300] = {0};
        for (size_t i = 0; i < n; i++)
            v[i] = orig[i] = (double)(rand() % 50) / 7;
        cli_dist d;
        cli_dist_of(v, n, &d);
        double got[3] = {d.cd_p50, d.cd_p95, d.cd_p99};
        double max = orig[0];
        for (size_t i = 1; i < n; i++)
            max = orig[i] > max ? orig[i] : max;
        if (!(d.cd_p50 <= d.cd_p95 && d.cd_p95 <= d.cd_p99 &&
              d.cd_p99 <= d.cd_max && d.cd_max == max))
            bad = 1;
        for (int k = 0; k < 3 && !bad; k++) {
            size_t at_or_below = 0, below = 0;
            for (size_t i = 0; i < n; i++) {
                at_or_below += orig[i] <= got[k];
                below += orig[i] < got[k];
            }
            /* At least q * n at or below it; fewer than q * n below. */
            if ((double)at_or_below < qs[k] * (double)n - 1e-9 ||
                (double)below >= qs[k] * (double)n - 1e-9)
                bad = 1;
        }
        if (bad)
            tap_diag("n %zu: p50 %g p95 %g p99 %g max %g (max %g)", n, d.cd_p50,
                     d.cd_p95, d.cd_p99, d.cd_max, max);
    }
    tap_ok(!bad, "2,000 random samples: p50 <= p95 <= p99 <= max, each the "
                 "nearest rank");
}

static const char *outcome(sk_outcome o, int exit_code)
{
    static char buf[64];
    sk_task_result r;
    memset(&r, 0, sizeof r);
    r.tr_outcome = o;
    r.tr_exit = exit_code;
    return cli_outcome(&r, buf, sizeof buf);
}

static void test_outcome(void)
{
    tap_is_str(outcome(SK_OUTCOME_LOST, 0), "lost",
               "a lost task is \"lost\", not \"lost (exit 0)\"");
    tap_is_str(outcome(SK_OUTCOME_FAILED, 3), "failed (exit 3)",
               "a failed task gives its exit code");
    tap_is_str(outcome(SK_OUTCOME_FAILED, -9), "failed (signal 9)",
               "a task killed by a signal on its own says which");
    tap_is_str(outcome(SK_OUTCOME_FAILED, -1), "failed",
               "a task that never ran to an exit has no code");
    tap_is_str(outcome(SK_OUTCOME_FAILED, 0), "failed",
               "nor one failed by the scheduler (exit 0, reason in output)");
    tap_is_str(outcome(SK_OUTCOME_KILLED, -15), "killed",
               "a killed task is \"killed\"");
    tap_is_str(outcome(SK_OUTCOME_CANCELLED, 0), "cancelled",
               "a cancelled task is \"cancelled\"");
    tap_is_str(outcome(SK_OUTCOME_OK, 0), "ok", "an ok task is \"ok\"");
}

static void test_parse(void)
{
    unsigned long u = 0;
    double x = 0;
    tap_ok(cli_parse_ulong("10000", 1, 100000, &u) == 0 && u == 10000,
           "a number in range parses");
    tap_ok(cli_parse_ulong("100001", 1, 100000, &u) != 0 &&
               cli_parse_ulong("0", 1, 100000, &u) != 0 &&
               cli_parse_ulong("-1", 1, 100000, &u) != 0 &&
               cli_parse_ulong("12x", 1, 100000, &u) != 0 &&
               cli_parse_ulong("", 1, 100000, &u) != 0,
           "out of range, negative, trailing text and empty are refused");
    tap_ok(cli_parse_double("0.5", 0, 1, &x) == 0 && x == 0.5 &&
               cli_parse_double("nan", 0, 1, &x) != 0 &&
               cli_parse_double("2", 0, 1, &x) != 0,
           "doubles: in range parses, NaN and out of range do not");
    sk_job_placement pl = SK_PLACEMENT_SAMPLE;
    tap_ok(cli_parse_placement("flow", &pl) == 0 && pl == SK_PLACEMENT_FLOW &&
               cli_parse_placement("sample", &pl) == 0 &&
               pl == SK_PLACEMENT_SAMPLE,
           "placements: flow and sample parse");
    tap_ok(cli_parse_placement("FLOW", &pl) != 0 &&
               cli_parse_placement("flows", &pl) != 0 &&
               cli_parse_placement("", &pl) != 0 &&
               cli_parse_placement("1", &pl) != 0 && pl == SK_PLACEMENT_SAMPLE,
           "placements: anything else is refused, *out untouched");
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_max_not_last();
    test_nearest_rank();
    test_property();
    test_outcome();
    test_parse();
    tap_done();
    return tap_exit_status();
}
