/*
 * test_fc_limits.c - flowcore at its documented limits (flowcore.h): costs
 * of 2^32, capacities and supplies of 2^40, whose flow costs pass 2^63.
 * Every algorithm must report the exact 128-bit total, computed here
 * independently of the library; the DIMACS writer must print it in
 * decimal; and the sum of capacities, the one limit that keeps the
 * solvers' excesses within 64 bits, must be enforced.
 *
 * LEMON's dimacs-solver is not the reference here: with -long it sums in
 * 64 bits and overflows like flowcore did (one arc of cost 2^32 - 1
 * carrying 2^40 - 1 gives "Min flow cost: -1103806595071"), and -ldouble
 * rounds to 64 bits of mantissa (4.72237e+21). The expected totals follow
 * from the networks' structure instead, derived in the comments.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAP  ((int64_t)1 << 40) /* FC_MAX_CAPACITY and FC_MAX_SUPPLY */
#define COST ((int64_t)1 << 32) /* FC_MAX_COST */

/* fc_int128 from its decimal text, parsed here rather than by the library
 * under test. */
static fc_int128 parse128(const char *s)
{
    bool neg = *s == '-';
    fc_int128 v = 0;
    for (s += neg; *s != '\0'; s++)
        v = v * 10 - (*s - '0'); /* built negative: the minimum fits */
    return neg ? v : -v;
}

static void test_format(void)
{
    static const char *const values[] = {
        "0",
        "7",
        "-1",
        "9223372036854775807",
        "-9223372036854775809",
        "4722366481765838618625",
        "170141183460469231731687303715884105727",
        "-170141183460469231731687303715884105728",
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char buf[FC_INT128_BUFSIZE];
        memset(buf, 'x', sizeof buf);
        tap_is_str(fc_int128_format(parse128(values[i]), buf, sizeof buf),
                   values[i], "fc_int128_format: %s", values[i]);
    }
    char small[4] = "abc";
    tap_is_str(fc_int128_format(-12345, small, sizeof small), "-12",
               "fc_int128_format cuts to the buffer, like snprintf");
    memcpy(small, "abc", 4);
    tap_is_str(fc_int128_format(5, small, 0), "abc",
               "fc_int128_format with no room writes nothing");
}

/* The flow cost that g's solve reported and that fc_graph_flow_cost
 * returns, against want; also checks the flow (capacities, balance, the
 * cost recomputed arc by arc in 128 bits, no negative residual cycle). */
static void check_solve(fc_graph *g, fc_algorithm alg, fc_int128 want,
                        const char *what)
{
    fc_graph *c;
    if (fc_graph_clone(g, &c) != 0)
        tap_bail_out("out of memory");
    fc_solve_options opt = fct_options(alg, false);
    fc_solve_stats st = {0};
    int rc = fc_solve(c, &opt, &st);
    char got_s[FC_INT128_BUFSIZE], want_s[FC_INT128_BUFSIZE], err[256] = "";
    bool ok = rc == 0 && st.ss_cost == want && fc_graph_flow_cost(c) == want &&
              fct_check_flow(c, st.ss_cost, true, err, sizeof err);
    tap_ok(
        ok, "%s, %s: %s, cost %s (want %s)%s%s", what, fc_algorithm_name(alg),
        fc_strerror(rc), fc_int128_format(st.ss_cost, got_s, sizeof got_s),
        fc_int128_format(want, want_s, sizeof want_s), err[0] ? ": " : "", err);
    fc_graph_free(c);
}

static fc_node add_node(fc_graph *g, int64_t supply)
{
    fc_node v;
    if (fc_node_add(g, supply, FC_NODE_OTHER, &v) != 0)
        tap_bail_out("fc_node_add");
    return v;
}

static void add_arc(fc_graph *g, fc_node s, fc_node t, int64_t cap,
                    int64_t cost)
{
    fc_arc a;
    if (fc_arc_add(g, s, t, cap, cost, &a) != 0)
        tap_bail_out("fc_arc_add");
}

/* Relaxation under a time limit: a thread raises the cancel flag after
 * RELAX_LIMIT_MS unless the solve returned first. */
#define RELAX_LIMIT_MS 2000

typedef struct limit {
    fc_cancel *li_cancel;
    atomic_bool li_done;
} limit;

static void *limit_main(void *arg)
{
    limit *l = arg;
    for (int ms = 0; ms < RELAX_LIMIT_MS && !atomic_load(&l->li_done); ms += 10)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    fc_cancel_set(l->li_cancel, true);
    return NULL;
}

/* Relaxation alone on g, stopped after RELAX_LIMIT_MS: its iterations
 * raise prices by the smallest positive reduced cost, which on g is 1
 * (the cheap and the dear arc of a layer differ by one unit), so its work
 * grows with the costs themselves: about 5 * cost steps on 5 layers (5,033
 * at cost 1,000; 50,033 at 10,000), 2^34 and more at cost 2^32, where it
 * never finishes. A known weakness of RELAX (pseudo-polynomial), not
 * fixed here: recorded as TODO. The race finishes (cost scaling wins). */
static void check_relax_todo(fc_graph *g, fc_int128 want, const char *what)
{
    fc_graph *c;
    if (fc_graph_clone(g, &c) != 0)
        tap_bail_out("out of memory");
    limit l;
    if (fc_cancel_new(&l.li_cancel) != 0)
        tap_bail_out("out of memory");
    atomic_init(&l.li_done, false);
    pthread_t t;
    if (pthread_create(&t, NULL, limit_main, &l) != 0)
        tap_bail_out("pthread_create");
    fc_solve_options opt = fct_options(FC_ALG_RELAX, false);
    opt.so_cancel = l.li_cancel;
    fc_solve_stats st = {0};
    int rc = fc_solve(c, &opt, &st);
    atomic_store(&l.li_done, true);
    pthread_join(t, NULL);
    fc_cancel_free(l.li_cancel);
    char got_s[FC_INT128_BUFSIZE];
    tap_todo(
        rc == 0 && st.ss_cost == want, "relaxation's work grows with the costs",
        "%s, relax within %d ms: %s, cost %s", what, RELAX_LIMIT_MS,
        fc_strerror(rc), fc_int128_format(st.ss_cost, got_s, sizeof got_s));
    tap_ok(fct_capacities_ok(c), "%s, relax stopped: capacities respected",
           what);
    fc_graph_free(c);
}

/* One arc of cost 2^32 - 1 carrying 2^40 - 1 (the report of issue 24),
 * and the s line the DIMACS writer prints for it. */
static void test_one_arc(void)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory");
    fc_node s = add_node(g, CAP - 1), t = add_node(g, -(CAP - 1));
    add_arc(g, s, t, CAP - 1, COST - 1);
    fc_int128 want = (fc_int128)(CAP - 1) * (COST - 1);
    for (int alg = 0; alg <= FC_ALG_RACE; alg++)
        check_solve(g, (fc_algorithm)alg, want, "one arc");

    fc_solve_options opt = fct_options(FC_ALG_SSP, false);
    char text[256] = "";
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    if (f == NULL)
        tap_bail_out("fmemopen");
    int rc = fc_solve(g, &opt, NULL);
    rc = rc == 0 ? fc_dimacs_write_flow(g, NULL, f) : rc;
    fclose(f);
    tap_ok(rc == 0 &&
               strcmp(text,
                      "s 4722366481765838618625\nf 1 2 1099511627775\n") == 0,
           "one arc: the DIMACS writer prints s 4722366481765838618625 "
           "(printed %.60s)",
           text);
    fc_graph_free(g);
}

/* A chain of 199 arcs of cost 2^32 and capacity 2^40 carrying 2^40:
 * 199 * 2^72, which is 0 modulo 2^64. */
static void test_chain(void)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory");
    fc_node prev = add_node(g, CAP);
    for (int i = 1; i < 200; i++) {
        fc_node v = add_node(g, i == 199 ? -CAP : 0);
        add_arc(g, prev, v, CAP, COST);
        prev = v;
    }
    fc_int128 want = (fc_int128)199 * CAP * COST;
    for (int alg = 0; alg <= FC_ALG_RACE; alg++)
        check_solve(g, (fc_algorithm)alg, want, "199-arc chain");
    fc_graph_free(g);
}

/* Layers v[i] -> v[i+1], each with a cheap arc (capacity 2^40 - 1, cost
 * 2^32 - 1), a dear one (capacity 2^40, cost 2^32) and a backward one
 * v[i+1] -> v[i] (capacity 2^40, cost -2^32); 2^40 units enter at v[0]
 * and leave at v[LAYERS]. Every layer carries 2^40 net, so with flows c, d
 * and b on its three arcs, b = c + d - 2^40 and the layer costs
 * (2^32 - 1) c + 2^32 d - 2^32 b = 2^72 - c: the optimum saturates the
 * cheap arc (c = 2^40 - 1, then d >= 1 keeps b >= 0), at 2^72 - 2^40 + 1
 * a layer. Negative costs, a negative cycle per layer (cheap and back,
 * -1 a unit) and a zero-cost one (dear and back), all at the limits. */
#define LAYERS 16

static void test_layers(void)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory");
    fc_node v[LAYERS + 1];
    for (int i = 0; i <= LAYERS; i++)
        v[i] = add_node(g, i == 0 ? CAP : i == LAYERS ? -CAP : 0);
    for (int i = 0; i < LAYERS; i++) {
        add_arc(g, v[i], v[i + 1], CAP - 1, COST - 1);
        add_arc(g, v[i], v[i + 1], CAP, COST);
        add_arc(g, v[i + 1], v[i], CAP, -COST);
    }
    fc_int128 per_layer = ((fc_int128)1 << 72) - CAP + 1;
    fc_int128 want = LAYERS * per_layer;
    for (int alg = 0; alg <= FC_ALG_RACE; alg++) {
        if (alg == FC_ALG_RELAX)
            check_relax_todo(g, want, "16 layers at the limits");
        else
            check_solve(g, (fc_algorithm)alg, want, "16 layers at the limits");
    }
    fc_graph_free(g);
}

/* The capacities of a graph sum to at most FC_MAX_CAPACITY_SUM = 2^60:
 * 2^20 arcs of capacity 2^40 reach it. Without it 2^23 such arcs into one
 * node would give it an excess of 2^63 in a solve (too large a graph to
 * build here, about 700 MB). This one takes about 70 MB. */
static void test_capacity_sum(void)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory");
    fc_node s = add_node(g, 0), t = add_node(g, 0);
    int64_t n = FC_MAX_CAPACITY_SUM / CAP;
    int failed = 0;
    fc_arc first = FC_NONE, a;
    for (int64_t i = 0; i < n; i++) {
        int rc = fc_arc_add(g, s, t, CAP, 1, &a);
        if (rc != 0 && failed++ == 0)
            tap_diag("arc %" PRId64 ": %s", i, fc_strerror(rc));
        if (i == 0)
            first = a;
    }
    tap_ok(failed == 0,
           "%" PRId64 " arcs of capacity 2^40: the sum is 2^60, "
           "allowed (%d refused)",
           n, failed);
    tap_is_int(fc_arc_add(g, s, t, 1, 1, &a), FC_ELIMIT,
               "one more unit of capacity: FC_ELIMIT");
    fc_arc zero;
    int rc = fc_arc_add(g, s, t, 0, 1, &zero);
    tap_ok(rc == 0 && fc_arc_set_capacity(g, zero, 1) == FC_ELIMIT &&
               fc_arc_capacity(g, zero) == 0,
           "raising a capacity past the sum: FC_ELIMIT, nothing changed");
    tap_ok(fc_arc_set_capacity(g, first, CAP - 1) == 0 &&
               fc_arc_set_capacity(g, zero, 1) == 0 &&
               fc_arc_add(g, s, t, 1, 1, &a) == FC_ELIMIT,
           "lowering one capacity makes room for as much elsewhere");
    tap_ok(fc_arc_remove(g, first) == 0 &&
               fc_arc_add(g, s, t, CAP - 1, 1, &a) == 0 &&
               fc_arc_add(g, s, t, 1, 1, &a) == FC_ELIMIT,
           "removing an arc gives its capacity back");
    fc_graph *c;
    if (fc_graph_clone(g, &c) != 0)
        tap_bail_out("out of memory");
    tap_is_int(fc_arc_add(c, s, t, 1, 1, &a), FC_ELIMIT,
               "a clone keeps the sum");
    fc_graph_free(c);
    fc_graph_free(g);
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    test_format();
    test_one_arc();
    test_chain();
    test_layers();
    test_capacity_sum();
    tap_done();
    return tap_exit_status();
}
