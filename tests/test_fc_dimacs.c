/*
 * test_fc_dimacs.c - the DIMACS reader and writer: plain networks, the
 * extended incremental format (n, a, x, r, d, c EOI, c EOS), the id
 * mapping across removals and additions, round trips through the writer,
 * and malformed input rejected with the right line number and reason.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read every section of text with a fresh reader; returns the code of the
 * first failure (0 if none) and leaves the reader in *out. */
static int read_text(const char *text, const fc_dimacs_limits *lim,
                     fc_dimacs_reader **out, int *sections)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (f == NULL)
        tap_bail_out("fmemopen failed");
    fc_dimacs_reader *r;
    if (fc_dimacs_reader_new(lim, &r) != 0)
        tap_bail_out("out of memory");
    int rc = 0;
    *sections = 0;
    for (;;) {
        fc_dimacs_end end;
        size_t lines;
        rc = fc_dimacs_read(r, f, "test", &end, &lines);
        if (rc != 0 || (end == FC_DIMACS_EOF && lines == 0 && *sections > 0))
            break;
        ++*sections;
        if (end != FC_DIMACS_EOI)
            break;
    }
    fclose(f);
    *out = r;
    return rc;
}

static char *write_to_string(const fc_graph *g, const fc_dimacs_reader *r,
                             bool flow)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        tap_bail_out("open_memstream failed");
    int rc = flow ? fc_dimacs_write_flow(g, r, f) : fc_dimacs_write(g, f);
    fclose(f);
    if (rc != 0)
        tap_bail_out("write failed: %s", fc_strerror(rc));
    return buf;
}

static int64_t solve_cost(fc_graph *g, int *rc)
{
    fc_solve_options opt = fct_options(FC_ALG_SSP, true);
    fc_solve_stats st;
    *rc = fc_solve(g, &opt, &st);
    return st.ss_cost;
}

static void test_plain(void)
{
    const char *text = "c a small network\n"
                       "p min 6 8\n"
                       "n 1 5\n"
                       "n 6 -5\n"
                       "a 1 2 0 7 1\n"
                       "a 1 3 0 7 5\n"
                       "a 2 3 0 2 2\n"
                       "a 2 4 0 3 8\n"
                       "a 3 4 0 3 3\n"
                       "a 3 5 0 2 4\n"
                       "\n"
                       "a 4 6 0 10 0\r\n"
                       "a 5 6 0 10 0";
    fc_dimacs_reader *r;
    int sections;
    int rc = read_text(text, NULL, &r, &sections);
    tap_is_int(rc, 0, "plain network reads: %s", fc_dimacs_error(r));
    fc_graph *g = fc_dimacs_graph(r);
    tap_ok(g != NULL && fc_graph_node_count(g) == 6 &&
               fc_graph_arc_count(g) == 8,
           "6 nodes and 8 arcs");
    fc_node one = fc_dimacs_node(r, 1), six = fc_dimacs_node(r, 6);
    tap_ok(fc_node_supply(g, one) == 5 && fc_node_supply(g, six) == -5 &&
               fc_dimacs_node_id(r, one) == 1,
           "supplies and ids map");
    int64_t cost = solve_cost(g, &rc);
    tap_ok(rc == 0 && cost == 38,
           "solves to LEMON's optimum 38 (got %" PRId64 ")", cost);
    char *sol = write_to_string(g, r, true);
    tap_ok(strncmp(sol, "s 38\nf 1 ", 9) == 0 &&
               strstr(sol, "\nf 4 6 ") != NULL,
           "solution lines: s then f SRC DST FLOW");
    free(sol);
    fc_dimacs_reader_free(r);
}

/* Writing a random network and reading it back gives the same text and the
 * same optimum. */
static void test_round_trip(void)
{
    int bad = 0;
    for (int k = 0; k < 40; k++) {
        fct_rng rng;
        fct_rng_seed(&rng, 77 + (uint64_t)k);
        fct_graph_params p;
        fct_params_random(&rng, 40, &p);
        fc_graph *g;
        if (fct_random_graph(&rng, &p, &g) != 0)
            tap_bail_out("generator failed");
        if (k % 3 == 0) {
            fc_node v;
            fc_node_add(g, 0, FC_NODE_MACHINE, &v);
            fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &v);
            fc_node_remove(g, 0); /* a hole in the ids */
        }
        char *text = write_to_string(g, NULL, false);
        fc_dimacs_reader *r;
        int sections;
        int rc = read_text(text, NULL, &r, &sections);
        char *again =
            rc == 0 ? write_to_string(fc_dimacs_graph(r), NULL, false) : NULL;
        int rc1, rc2;
        int64_t c1 = solve_cost(g, &rc1);
        int64_t c2 = rc == 0 ? solve_cost(fc_dimacs_graph(r), &rc2) : 0;
        if (rc != 0 || strcmp(text, again) != 0 || rc1 != rc2 ||
            (rc1 == 0 && c1 != c2)) {
            if (bad++ < 3)
                tap_diag("graph %d: rc %d (%s), costs %" PRId64 "/%" PRId64, k,
                         rc, fc_dimacs_error(r), c1, c2);
        }
        free(text);
        free(again);
        fc_dimacs_reader_free(r);
        fc_graph_free(g);
    }
    tap_is_int(bad, 0, "40 random networks survive write, read, write");
}

static void test_extended(void)
{
    const char *text = "p min 5 4\n"
                       "n 1 2 1\n"  /* task */
                       "n 2 1 1\n"  /* task */
                       "n 3 0 2\n"  /* PU */
                       "n 5 -3 3\n" /* sink */
                       "a 1 3 0 1 5\n"
                       "a 2 3 0 1 7\n"
                       "a 3 5 0 5 0\n"
                       "a 1 4 0 5 1\n"
                       "c EOI\n"
                       "c a task leaves: its supply leaves the sink\n"
                       "r 2\n"
                       "x 4 5 0 9 2\n" /* missing: added */
                       "x 1 3 0 0 5\n" /* capacity 0: removed */
                       "c EOI\n"
                       "d 1 0 2 1\n" /* a task: takes id 2 again */
                       "a 0 3 0 1 4\n"
                       "c between the arcs of a new node\n"
                       "a 0 4 0 1 9\n"
                       "n 4 0\n"
                       "c EOS\n"
                       "p min 1 0\n";
    fc_dimacs_reader *r;
    int sections;
    int rc = read_text(text, NULL, &r, &sections);
    tap_is_int(rc, 0, "extended format reads: %s", fc_dimacs_error(r));
    tap_is_int(sections, 3, "three sections up to c EOS");
    fc_graph *g = fc_dimacs_graph(r);
    fc_node sink = fc_dimacs_node(r, 5), t2 = fc_dimacs_node(r, 2);
    tap_ok(sink != FC_NONE && fc_node_supply(g, sink) == -3 &&
               fc_node_get_type(g, sink) == FC_NODE_SINK,
           "the sink's demand followed the removal and the addition");
    tap_ok(t2 != FC_NONE && fc_node_get_type(g, t2) == FC_NODE_TASK &&
               fc_node_supply(g, t2) == 1 && fc_node_degree(g, t2) == 2,
           "d reused the smallest free id 2 for the new task, with 2 arcs");
    fc_node one = fc_dimacs_node(r, 1), three = fc_dimacs_node(r, 3),
            four = fc_dimacs_node(r, 4);
    tap_ok(fc_arc_find(g, one, three) == FC_NONE &&
               fc_arc_find(g, four, sink) != FC_NONE &&
               fc_arc_capacity(g, fc_arc_find(g, four, sink)) == 9,
           "x removed one arc and added another");
    tap_ok(fc_node_get_type(g, three) == FC_NODE_MACHINE &&
               fc_node_get_type(g, four) == FC_NODE_OTHER,
           "types: Firmament's PU is a machine, untyped is other");
    int64_t cost = solve_cost(g, &rc);
    tap_ok(rc == 0 && cost == 2 * 1 + 2 * 2 + 4,
           "the changed network solves (cost %" PRId64 ")", cost);
    fc_dimacs_reader_free(r);
}

/* Removing a solved task drains it: the rest of the flow stays put. */
static void test_remove_drains(void)
{
    const char *text = "p min 4 3\n"
                       "n 1 1\nn 2 1\nn 4 -2\n"
                       "a 1 3 0 1 1\na 2 3 0 1 1\na 3 4 0 2 1\n";
    fc_dimacs_reader *r;
    int sections;
    int rc = read_text(text, NULL, &r, &sections);
    fc_graph *g = fc_dimacs_graph(r);
    solve_cost(g, &rc);
    FILE *f = fmemopen((void *)"r 1\n", 4, "r");
    fc_dimacs_end end;
    size_t lines;
    rc = fc_dimacs_read(r, f, "round", &end, &lines);
    fclose(f);
    char err[128];
    tap_ok(rc == 0 && lines == 1 && end == FC_DIMACS_EOF &&
               fc_graph_check(g, err, sizeof err) == 0,
           "r of a solved task leaves a balanced flow: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
}

static void test_change_writer(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fc_dimacs_change c[] = {
        {.dc_op = 'n', .dc_id = 4, .dc_supply = -2, .dc_type = FC_NODE_SINK},
        {.dc_op = 'n', .dc_id = 5, .dc_supply = 7},
        {.dc_op = 'a',
         .dc_src = 1,
         .dc_dst = 2,
         .dc_capacity = 3,
         .dc_cost = -4},
        {.dc_op = 'x',
         .dc_src = 2,
         .dc_dst = 3,
         .dc_capacity = 0,
         .dc_cost = 9},
        {.dc_op = 'r', .dc_id = 6},
        {.dc_op = 'd', .dc_supply = 1, .dc_narcs = 2, .dc_type = FC_NODE_TASK},
        {.dc_op = 'd',
         .dc_supply = 0,
         .dc_narcs = 0,
         .dc_type = FC_NODE_UNSCHEDULED},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        rc |= fc_dimacs_write_change(f, &c[i]);
    rc |= fc_dimacs_write_end(f, FC_DIMACS_EOI);
    rc |= fc_dimacs_write_end(f, FC_DIMACS_EOF);
    rc |= fc_dimacs_write_end(f, FC_DIMACS_EOS);
    fclose(f);
    tap_ok(rc == 0 && strcmp(buf, "n 4 -2 3\nn 5 7\na 1 2 0 3 -4\n"
                                  "x 2 3 0 0 9\nr 6\nd 1 0 2 1\n"
                                  "d 0 0 0 6\nc EOI\nc EOS\n") == 0,
           "change lines in the extended format");
    if (rc != 0 || tap_failures() > 0)
        tap_diag("written: %s", buf);
    free(buf);
    fc_dimacs_change bad[] = {
        {.dc_op = 'q'},
        {.dc_op = 'n', .dc_id = 0},
        {.dc_op = 'a', .dc_src = 1, .dc_dst = 2, .dc_capacity = -1},
        {.dc_op = 'x', .dc_src = -1, .dc_dst = 2},
        {.dc_op = 'd', .dc_supply = FC_MAX_SUPPLY + 1},
        {.dc_op = 'd', .dc_narcs = -1},
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused += fc_dimacs_write_change(stdout, &bad[i]) == FC_EINVAL;
    tap_is_int(refused, 6, "values the reader would refuse are not written");
}

/* Random rounds produced with the change writer on a scheduling network
 * written by fc_dimacs_write, read back and solved incrementally: every
 * round must equal a from-scratch solve, and the sink's demand must follow
 * the tasks. */
static void test_written_rounds(void)
{
    fct_rng rng;
    fct_rng_seed(&rng, 2024);
    fct_sched s;
    if (fct_sched_build(&rng, 12, 4, 3, 8, 2, &s) != 0)
        tap_bail_out("cannot build");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fc_dimacs_write(s.sc_g, f);
    fc_dimacs_write_end(f, FC_DIMACS_EOI);
    /* DIMACS ids as fc_dimacs_write numbers the live nodes. */
    int64_t cluster = 0, unsched = 0, ntask = 0, k = 0;
    int64_t tasks[4096];
    for (fc_node v = 0; v < fc_graph_node_bound(s.sc_g); v++) {
        if (!fc_node_exists(s.sc_g, v))
            continue;
        k++;
        if (v == s.sc_cluster)
            cluster = k;
        if (v == s.sc_unsched[0])
            unsched = k;
        if (fc_node_get_type(s.sc_g, v) == FC_NODE_TASK)
            tasks[ntask++] = k;
    }
    int64_t next_id = k + 1, free_ids[4096];
    int nfree = 0;
    for (int round = 0; round < 20; round++) {
        int events = (int)fct_rng_range(&rng, 1, 6);
        for (int e = 0; e < events; e++) {
            fc_dimacs_change c = {0};
            if (fct_rng_pct(&rng, 50) || ntask < 2) {
                c = (fc_dimacs_change){.dc_op = 'd',
                                       .dc_supply = 1,
                                       .dc_narcs = 2,
                                       .dc_type = FC_NODE_TASK};
                fc_dimacs_write_change(f, &c);
                fc_dimacs_change a1 = {.dc_op = 'a',
                                       .dc_src = 0,
                                       .dc_dst = cluster,
                                       .dc_capacity = 1,
                                       .dc_cost = fct_rng_range(&rng, 5, 50)};
                fc_dimacs_change a2 = {.dc_op = 'a',
                                       .dc_src = 0,
                                       .dc_dst = unsched,
                                       .dc_capacity = 1,
                                       .dc_cost = 100};
                fc_dimacs_write_change(f, &a1);
                fc_dimacs_write_change(f, &a2);
                /* The reader hands out the smallest free id. */
                int best = -1;
                for (int i = 0; i < nfree; i++)
                    if (best < 0 || free_ids[i] < free_ids[best])
                        best = i;
                if (best >= 0) {
                    tasks[ntask++] = free_ids[best];
                    free_ids[best] = free_ids[--nfree];
                } else {
                    tasks[ntask++] = next_id++;
                }
            } else {
                int i = (int)fct_rng_range(&rng, 0, ntask - 1);
                c = (fc_dimacs_change){.dc_op = 'r', .dc_id = tasks[i]};
                fc_dimacs_write_change(f, &c);
                free_ids[nfree++] = tasks[i];
                tasks[i] = tasks[--ntask];
            }
        }
        fc_dimacs_write_end(f, FC_DIMACS_EOI);
    }
    fclose(f);

    FILE *in = fmemopen(buf, len, "r");
    fc_dimacs_reader *r;
    fc_dimacs_reader_new(NULL, &r);
    int bad = 0, rounds = 0;
    for (;;) {
        fc_dimacs_end end;
        size_t lines;
        int rc = fc_dimacs_read(r, in, "written", &end, &lines);
        if (rc != 0) {
            tap_diag("%s", fc_dimacs_error(r));
            bad++;
            break;
        }
        if (lines == 0)
            break;
        fc_graph *g = fc_dimacs_graph(r), *fresh;
        fc_graph_clone(g, &fresh);
        int rc1, rc2;
        int64_t inc = solve_cost(g, &rc1);
        fc_graph_reset_flow(fresh);
        int64_t scratch = solve_cost(fresh, &rc2);
        char err[256];
        if (rc1 != 0 || rc2 != 0 || inc != scratch ||
            !fct_check_flow(g, inc, true, err, sizeof err)) {
            if (bad++ < 3)
                tap_diag("round %d: %d/%d %" PRId64 "/%" PRId64, rounds, rc1,
                         rc2, inc, scratch);
        }
        fc_graph_free(fresh);
        rounds++;
    }
    fclose(in);
    tap_ok(bad == 0 && rounds == 21,
           "%d written rounds read back and solve incrementally like from "
           "scratch",
           rounds);
    fc_dimacs_reader_free(r);
    free(buf);
    fct_sched_free(&s);
}

typedef struct bad_case {
    const char *bc_text;
    int bc_rc;
    const char *bc_err; /* expected text of the error, with its line */
} bad_case;

static const bad_case bad_cases[] = {
    {"", FC_ESYNTAX, "test:0: no p line"},
    {"c only\n", FC_ESYNTAX, "no p line"},
    {"a 1 2 0 1 1\n", FC_ESYNTAX, "test:1: 'a' line before the p line"},
    {"p max 2 1\n", FC_ESYNTAX, "test:1: expected 'p min NODES ARCS'"},
    {"p min 2\n", FC_ESYNTAX, "test:1: expected"},
    {"p min -2 1\n", FC_ESYNTAX, "test:1: node count '-2'"},
    {"p min 2 1\np min 2 1\n", FC_ESYNTAX, "test:2: a second p line"},
    {"p min 2 1\nn 3 1\n", FC_ESYNTAX, "test:2: node 3 is beyond"},
    {"p min 2 1\nn 0 1\n", FC_ESYNTAX, "test:2: node id '0'"},
    {"p min 2 1\nn 1 1x\n", FC_ESYNTAX, "test:2: supply '1x'"},
    {"p min 2 1\nn 1 1 9\n", FC_ESYNTAX, "test:2: node type '9'"},
    {"p min 2 1\nn 1 99999999999999999999\n", FC_ESYNTAX, "test:2: supply"},
    {"p min 2 1\nn 1 2000000000000\n", FC_ESYNTAX, "test:2: supply"},
    {"p min 2 1\nc x\na 1 3 0 1 1\n", FC_ESYNTAX,
     "test:3: destination node 3 does not exist"},
    {"p min 2 1\na 1 2 1 1 1\n", FC_ESYNTAX, "test:2: lower bound 1"},
    {"p min 2 1\na 1 2 0 -1 1\n", FC_ESYNTAX, "test:2: capacity '-1'"},
    {"p min 2 1\na 1 2 0 1 5000000000\n", FC_ESYNTAX, "test:2: cost"},
    {"p min 2 1\na 1 2 0 1\n", FC_ESYNTAX, "test:2: expected 'a SRC"},
    {"p min 2 1\na 1 2 0 1 1\na 2 1 0 1 1\n", FC_ESYNTAX,
     "test:3: more arcs than the 1"},
    {"p min 2 2\na 1 2 0 1 1\n", FC_ESYNTAX, "declared 2 arcs, found 1"},
    {"p min 2 0\nq 1\n", FC_ESYNTAX, "test:2: unknown line type 'q'"},
    {"p min 2 0\nnn 1 1\n", FC_ESYNTAX, "test:2: unknown line type 'nn'"},
    {"p min 2 0\nr 1\n", FC_ESYNTAX, "test:2: 'r' line in the first"},
    {"p min 2 0\nc EOI\nr 3\n", FC_ESYNTAX, "test:3: node 3 does not exist"},
    {"p min 2 0\nn 1 1\nc EOI\nr 1\n", FC_ESYNTAX,
     "test:4: removing a node "
     "with supply needs a sink"},
    {"p min 2 0\nc EOI\nd 0 0 2\na 0 1 0 1 1\nr 1\n", FC_ESYNTAX,
     "test:5: 'r' line where an arc of the node added on line 3"},
    {"p min 2 0\nc EOI\nd 0 0 2\na 0 1 0 1 1\n", FC_ESYNTAX,
     "test:4: 1 arcs of the node added on line 3 are missing"},
    {"p min 2 0\nc EOI\nd 0 0 1\na 1 2 0 1 1\n", FC_ESYNTAX,
     "test:4: arc of the node added on line 3 does not name node 0"},
    {"p min 2 0\nc EOI\nd 0 1 2 3 4 5\n", FC_ESYNTAX, "test:3: expected 'd"},
    {"p min 2 0\nc EOI\nx 1 2 0 1 1 0 1 2\n", FC_ESYNTAX,
     "test:3: expected 'x"},
    {"p min 2 0\na 1 2 0 1 1 1 1 1 1 1\n", FC_ESYNTAX,
     "test:2: too many fields"},
    {"p min 2 0\nn 1 \0011\n", FC_ESYNTAX, "test:2: supply"},
};

static void test_malformed(void)
{
    int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
    for (int i = 0; i < n; i++) {
        const bad_case *c = &bad_cases[i];
        fc_dimacs_reader *r;
        int sections;
        int rc = read_text(c->bc_text, NULL, &r, &sections);
        const char *err = fc_dimacs_error(r);
        tap_ok(rc == c->bc_rc && strstr(err, c->bc_err) != NULL,
               "bad input %d rejected: got %d '%s', want %d '%s'", i, rc, err,
               c->bc_rc, c->bc_err);
        fc_dimacs_reader_free(r);
    }
}

static void test_limits(void)
{
    fc_dimacs_limits lim;
    fc_dimacs_limits_init(&lim);
    lim.dl_max_nodes = 10;
    lim.dl_max_arcs = 3;
    lim.dl_max_line = 40;
    fc_dimacs_reader *r;
    int sections;
    int rc = read_text("p min 11 0\n", &lim, &r, &sections);
    tap_ok(rc == FC_ELIMIT && strstr(fc_dimacs_error(r), "test:1: 11 nodes"),
           "node limit: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
    rc = read_text("p min 2 4\n", &lim, &r, &sections);
    tap_ok(rc == FC_ELIMIT && strstr(fc_dimacs_error(r), "test:1: 4 arcs"),
           "arc limit on the p line: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
    rc = read_text("p min 2 0\nc EOI\na 1 2 0 1 1\na 1 2 0 1 1\n"
                   "a 1 2 0 1 1\na 1 2 0 1 1\n",
                   &lim, &r, &sections);
    tap_ok(rc == FC_ELIMIT && strstr(fc_dimacs_error(r), "test:6: more than 3"),
           "arc limit in a round: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
    rc = read_text("p min 10 0\nc EOI\nd 0 0\nd 0 0\n", &lim, &r, &sections);
    tap_ok(rc == FC_ELIMIT && strstr(fc_dimacs_error(r), "test:3: more than"),
           "node limit in a round: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
    rc = read_text("p min 2 0\nc 0123456789012345678901234567890123456789\n",
                   &lim, &r, &sections);
    tap_ok(rc == FC_ELIMIT && strstr(fc_dimacs_error(r), "test:2: line longer"),
           "line length limit: %s", fc_dimacs_error(r));
    fc_dimacs_reader_free(r);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    test_plain();
    test_round_trip();
    test_extended();
    test_remove_drains();
    test_change_writer();
    test_written_rounds();
    test_malformed();
    test_limits();
    tap_done();
    return tap_exit_status();
}
