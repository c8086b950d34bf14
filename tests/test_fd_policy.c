/*
 * test_fd_policy.c - the network the quincy policy builds on small
 * clusters, checked arc by arc (ends, capacities, costs) and supply by
 * supply; its optimum checked against LEMON's dimacs-solver on the same
 * network (skipped when $DIMACS_SOLVER is absent); and the placements
 * the core reads off it: preferences honoured, fallback work ahead of
 * long work, no node beyond its long cap, a running task held by its
 * continuation arc, a preference for a node that joins later; quincy's
 * fair shares (the shares in the network, LEMON's optimum on it, an
 * even split where the plain policy gives the older job everything, and
 * with preemption the newest tasks of a job over its share stopped).
 */
#include "fc_testutil.h"
#include "fd_core.h"
#include "fd_testutil.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0    1000000000000ull
#define MS    FDT_MS
#define SCHED 100
#define SID   7

#define MAX_ARCS 256

typedef char arc_text[160];

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const arc_text *)a, *(const arc_text *)b);
}

/* Every live arc of the core's network as "SRC -> DST cap C cost K",
 * sorted; only those leaving a node whose name starts with from, when
 * from is not NULL. */
static size_t arcs_of(fd_core *c, const char *from, arc_text *out)
{
    const fc_graph *g = fd_core_graph(c);
    size_t n = 0;
    for (fc_arc a = 0; a < fc_graph_arc_bound(g) && n < MAX_ARCS; a++) {
        if (!fc_arc_exists(g, a))
            continue;
        char s[80] = "?", d[80] = "?";
        fd_core_gnode_name(c, fc_arc_src(g, a), s, sizeof s);
        fd_core_gnode_name(c, fc_arc_dst(g, a), d, sizeof d);
        if (from != NULL && strncmp(s, from, strlen(from)) != 0)
            continue;
        snprintf(out[n++], sizeof out[0], "%s -> %s cap %lld cost %lld", s, d,
                 (long long)fc_arc_capacity(g, a),
                 (long long)fc_arc_cost(g, a));
    }
    qsort(out, n, sizeof out[0], cmp_text);
    return n;
}

/* The arcs must be exactly want[0..nwant) (any order). */
static void arcs_are(fd_core *c, const char *from, const char *const *want,
                     size_t nwant, const char *what)
{
    static arc_text got[MAX_ARCS], exp[MAX_ARCS];
    size_t n = arcs_of(c, from, got);
    for (size_t i = 0; i < nwant; i++)
        snprintf(exp[i], sizeof exp[0], "%s", want[i]);
    qsort(exp, nwant, sizeof exp[0], cmp_text);
    bool same = n == nwant;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(got[i], exp[i]) == 0;
    if (!tap_ok(same, "%s: %zu arcs as expected", what, nwant)) {
        for (size_t i = 0; i < n; i++)
            tap_diag("got  %s", got[i]);
        for (size_t i = 0; i < nwant; i++)
            tap_diag("want %s", exp[i]);
    }
}

/* The supply of the node named name (or INT64_MIN). */
static int64_t supply_of(fd_core *c, const char *name)
{
    const fc_graph *g = fd_core_graph(c);
    char s[80];
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++)
        if (fc_node_exists(g, v) &&
            fd_core_gnode_name(c, v, s, sizeof s) == 0 && strcmp(s, name) == 0)
            return fc_node_supply(g, v);
    return INT64_MIN;
}

/* Solve the round out with flowcore and with LEMON; both costs must
 * agree and the flow check. Returns flowcore's optimal cost. */
static int64_t solve_both(fd_core *c, sk_time now, int64_t want)
{
    fd_round *r;
    if (fd_round_begin(c, now, &r) != 0)
        tap_bail_out("no round due");
    bool feasible = false;
    int64_t lemon = 0;
    char err[200];
    if (fct_lemon_path() == NULL) {
        tap_skip(1, "no dimacs-solver ($DIMACS_SOLVER)");
    } else if (fct_lemon_solve(r->rd_graph, &feasible, &lemon, err,
                               sizeof err) != 0) {
        tap_ok(false, "LEMON ran: %s", err);
    } else {
        tap_ok(feasible && lemon == want, "LEMON's optimum is %lld (%lld)",
               (long long)want, (long long)lemon);
    }
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_RACE;
    opt.so_incremental = r->rd_incremental;
    fc_solve_stats st;
    int rc = fc_solve(r->rd_graph, &opt, &st);
    tap_ok(rc == 0 && st.ss_cost == want &&
               fct_flow_ok(r->rd_graph, st.ss_cost),
           "flowcore's optimum is %lld (%lld), its flow checks",
           (long long)want, (long long)st.ss_cost);
    fd_round_end(c, now, r, rc, &st);
    return st.ss_cost;
}

/* The node a RESERVE for (job, task) went to, or 0. */
static sk_peer reserved_on(fd_core *c, uint64_t job, uint32_t task)
{
    sk_peer to;
    const sk_msg *m;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_RESERVE, i, &to)) != NULL; i++)
        if (m->m_reserve.rv_job == job && m->m_reserve.rv_task == task)
            return to;
    return 0;
}

static fd_config cfg_test(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    return cfg;
}

/* Two racks, three nodes, three jobs: the whole network by hand. */
static void test_quincy_network(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1);  /* cap 3 */
    fdt_node(c, T0, 2, "n2", 2, "r1", 1.0); /* cap 2 */
    fdt_node(c, T0, 3, "n3", 4, "r2", -1);  /* cap 3 */
    fdt_sched(c, T0, SCHED, SID);
    const char *pn3[] = {"n3"}, *pr1[] = {"r1"};
    sk_resources res = {500, 256};
    fdt_submit(c, T0, SCHED, 1, 2, true, pn3, 1);
    fdt_submit_racks(c, T0, SCHED, 2, 1, true, NULL, 0, pr1, 1, NULL, 0, res);
    fdt_submit(c, T0, SCHED, 3, 1, false, NULL, 0); /* fallback */
    fdt_heartbeat(c, T0 + 100 * MS, 1, 1, 4, 2, 0, 5, NULL, 0);
    fdt_drain(c);
    /* Begin the round by hand to look at the network before solving. */
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 3000 * MS, &r), 0, "round due");
    static const char *const want[] = {
        "cluster -> rack r1 cap 5 cost 0",
        "cluster -> rack r2 cap 3 cost 0",
        "rack r1 -> node n1 cap 3 cost 0",
        "rack r1 -> node n2 cap 2 cost 0",
        "rack r2 -> node n3 cap 3 cost 0",
        "node n1 -> sink cap 2 cost 0",  /* 2 slots free */
        "node n1 -> sink cap 1 cost 60", /* behind short work: 50 + 5 * 2 */
        "node n2 -> sink cap 2 cost 0",
        "node n2 -> sink cap 0 cost 50",
        "node n3 -> sink cap 3 cost 0",
        "node n3 -> sink cap 0 cost 50",
        "unsched 7/1 -> sink cap 2 cost 0",
        "unsched 7/2 -> sink cap 1 cost 0",
        "unsched 7/3 -> sink cap 1 cost 0",
        "task 7/1/0 -> unsched 7/1 cap 1 cost 1030", /* 1000 + 3 s * 10 */
        "task 7/1/0 -> cluster cap 1 cost 100",
        "task 7/1/0 -> node n3 cap 1 cost 10",
        "task 7/1/1 -> unsched 7/1 cap 1 cost 1030",
        "task 7/1/1 -> cluster cap 1 cost 100",
        "task 7/1/1 -> node n3 cap 1 cost 10",
        "task 7/2/0 -> unsched 7/2 cap 1 cost 1030",
        "task 7/2/0 -> cluster cap 1 cost 100",
        "task 7/2/0 -> rack r1 cap 1 cost 40",
        "task 7/3/0 -> unsched 7/3 cap 1 cost 2030", /* fallback: +1000 */
        "task 7/3/0 -> cluster cap 1 cost 100",
    };
    arcs_are(c, NULL, want, sizeof want / sizeof want[0], "quincy network");
    tap_is_int(supply_of(c, "sink"), -4, "the sink takes the 4 tasks");
    tap_is_int(supply_of(c, "task 7/2/0"), 1, "a task supplies 1");
    tap_is_int(supply_of(c, "cluster"), 0, "aggregators supply nothing");
    /* hand the round back unsolved: nothing placed, next round from
     * scratch */
    tap_is_int(fd_round_end(c, T0 + 3000 * MS, r, FC_ECANCELED, NULL), 0,
               "a cancelled round ends");
    tap_is_int((int64_t)fdt_count(c, SK_MSG_RESERVE, UINT32_MAX), 0,
               "a failed solve places nothing");
    /* optimum: 2 * 10 (n3) + 40 (r1, free slot) + 100 (cluster, free) */
    solve_both(c, T0 + 3200 * MS, 160);
    tap_is_int(reserved_on(c, 1, 0), 3, "task 1/0 on its preferred node");
    tap_is_int(reserved_on(c, 1, 1), 3, "task 1/1 on its preferred node");
    sk_peer p2 = reserved_on(c, 2, 0);
    tap_ok(p2 == 1 || p2 == 2, "task 2/0 in its preferred rack");
    tap_ok(reserved_on(c, 3, 0) != 0, "fallback task placed");
    fdt_drain(c);
    static const char *const placed[] = {
        "task 7/1/0 -> node n3 cap 1 cost 0",
        "task 7/1/0 -> unsched 7/1 cap 1 cost 2147483648",
    };
    arcs_are(c, "task 7/1/0", placed, 2,
             "a placed task: continuation arc and dear escape");
    static const char *const n3arcs[] = {
        "node n3 -> sink cap 3 cost 0",
        "node n3 -> sink cap 0 cost 50",
    };
    arcs_are(c, "node n3", n3arcs, 2, "n3's arcs: its tasks count as cheap");
    fd_core_free(c);
}

/* More work than room: nodes are filled to their cap exactly, and the
 * dearer long work waits while fallback work goes first. */
static void test_caps(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 3, NULL, -1);   /* cap 2 */
    fdt_node(c, T0, 2, "n2", 8, NULL, 0.25); /* cap 2 */
    fdt_sched(c, T0, SCHED, SID);
    const char *pn1[] = {"n1"};
    fdt_submit(c, T0, SCHED, 1, 6, true, pn1, 1);
    fdt_submit(c, T0, SCHED, 2, 1, false, NULL, 0);
    fdt_drain(c);
    /* 4 slots: fallback first (saves 2000 - 1000 more than a long task),
     * then 2 long on n1 (10 each) and 1 on n2 (100); 3 long wait at
     * 1000 + 1 s * 10 each: 100 (fallback) + 2 * 10 + 100 + 3 * 1010 */
    solve_both(c, T0 + 1000 * MS, 100 + 20 + 100 + 3 * 1010);
    size_t on[3] = {0, 0, 0};
    sk_peer to;
    const sk_msg *m;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_RESERVE, i, &to)) != NULL; i++)
        on[to]++;
    tap_ok(on[1] == 2 && on[2] == 2, "each node filled to its cap (%zu, %zu)",
           on[1], on[2]);
    tap_ok(reserved_on(c, 2, 0) == 2, "fallback placed ahead of long work");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 3, "3 long tasks wait");
    fd_core_free(c);
}

/* A preference for a node that is not there yet gets its arcs when the
 * node (and its rack) joins; they go when it leaves. */
static void test_late_preference(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_sched(c, T0, SCHED, SID);
    const char *pn9[] = {"n9"}, *pr9[] = {"r9"};
    fdt_submit_racks(c, T0, SCHED, 1, 4, true, pn9, 1, pr9, 1, NULL, 0,
                     (sk_resources){500, 256});
    tap_is_int(fdt_round(c, T0 + 1000 * MS, NULL), 0, "round, no node");
    static const char *const alone[] = {
        "task 7/1/0 -> unsched 7/1 cap 1 cost 1010",
        "task 7/1/0 -> cluster cap 1 cost 100",
    };
    arcs_are(c, "task 7/1/0", alone, 2, "no arc to what is not there");
    fdt_node(c, T0 + 2000 * MS, 9, "n9", 4, "r9", -1);
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 2100 * MS, &r), 0, "round after join");
    static const char *const joined[] = {
        "task 7/1/0 -> unsched 7/1 cap 1 cost 1020",
        "task 7/1/0 -> cluster cap 1 cost 100",
        "task 7/1/0 -> node n9 cap 1 cost 10",
        "task 7/1/0 -> rack r9 cap 1 cost 40",
    };
    arcs_are(c, "task 7/1/0", joined, 4, "arcs to the node and rack joined");
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = FC_ALG_SSP;
    fc_solve_stats st;
    int rc = fc_solve(r->rd_graph, &opt, &st);
    tap_is_int(st.ss_cost, 3 * 10 + 1020, "3 on n9, one waits");
    fd_round_end(c, T0 + 2100 * MS, r, rc, &st);
    tap_is_int(fd_core_node_long(c, 9), 3, "n9 filled to its cap");
    fdt_drain(c);
    fd_core_peer_down(c, T0 + 2200 * MS, 9);
    tap_is_int(fdt_round(c, T0 + 2300 * MS, NULL), 0, "round after leave");
    arc_text got[MAX_ARCS];
    bool gone = true;
    for (uint32_t t = 0; t < 4; t++) {
        char pfx[32];
        snprintf(pfx, sizeof pfx, "task 7/1/%u", t);
        size_t n = arcs_of(c, pfx, got);
        gone = gone && n == 2;
        for (size_t i = 0; i < n; i++)
            gone = gone && strstr(got[i], "9") == NULL;
    }
    tap_ok(gone, "the node gone, every task has its two arcs left");
    tap_is_int((int64_t)fd_core_stats(c)->fs_waiting, 4, "all 4 wait");
    fd_core_free(c);
}

/* A node's rack is its HELLO's he_rack, not a "rack=NAME" label; a
 * task's racks are its ts_racks, not "rack=NAME" among its nodes. A rack
 * that is no rack name is refused, as is a job with an empty rack. */
static void test_rack_sources(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1);
    const char *addr = "tcp://127.0.0.1:1", *label[] = {"rack=r5"};
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_NODEMON,
                           .he_id = 2,
                           .he_incarnation = 1,
                           .he_name = "n2",
                           .he_addrs = &addr,
                           .he_naddrs = 1,
                           .he_slots = 4,
                           .he_res = {4000, 4096},
                           .he_labels = label,
                           .he_nlabels = 1,
                           .he_framework = "",
                           .he_rack = ""};
    fd_core_on_msg(c, T0, 2, &m);
    m.m_hello.he_id = 3;
    m.m_hello.he_name = "n3";
    m.m_hello.he_nlabels = 0;
    m.m_hello.he_rack = "rack 3";
    fd_core_on_msg(c, T0, 3, &m);
    m.m_hello.he_rack = "r\n3";
    fd_core_on_msg(c, T0, 3, &m);
    tap_ok(fd_core_stats(c)->fs_nodes == 2 &&
               fd_core_stats(c)->fs_bad_field == 2,
           "he_rack 'rack 3' and 'r\\n3' refused and counted; n1 and n2 "
           "registered");
    fdt_sched(c, T0, SCHED, SID);
    const char *old_style[] = {"rack=r1"}, *r5[] = {"r5"}, *r1[] = {"r1"};
    const char *empty[] = {""};
    sk_resources res = {500, 256};
    fdt_submit(c, T0, SCHED, 1, 1, true, old_style, 1);
    fdt_submit_racks(c, T0, SCHED, 2, 1, true, NULL, 0, r5, 1, NULL, 0, res);
    fdt_submit_racks(c, T0, SCHED, 3, 1, true, NULL, 0, r1, 1, NULL, 0, res);
    fdt_drain(c);
    fdt_submit_racks(c, T0, SCHED, 4, 1, true, NULL, 0, empty, 1, NULL, 0, res);
    const sk_msg *rej = fdt_nth(c, SK_MSG_JOB_REJECTED, 0, NULL);
    tap_ok(rej != NULL && rej->m_job_ack.ja_job == 4 &&
               strcmp(rej->m_job_ack.ja_reason,
                      "task 0: rack name empty or too long") == 0,
           "a job with an empty rack name is rejected: %s",
           rej != NULL ? rej->m_job_ack.ja_reason : "(none)");
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 1000 * MS, &r), 0, "round due");
    static const char *const racks[] = {
        "cluster -> rack r1 cap 3 cost 0",
        "cluster -> rack  cap 3 cost 0",
    };
    arcs_are(c, "cluster", racks, 2,
             "n1 in rack r1 (he_rack), n2 in the rack of nodes without one "
             "(its label rack=r5 is only a label)");
    static const char *const t1[] = {
        "task 7/1/0 -> unsched 7/1 cap 1 cost 1010",
        "task 7/1/0 -> cluster cap 1 cost 100",
    };
    arcs_are(c, "task 7/1/0", t1, 2,
             "'rack=r1' among preferred nodes names no node: no arc");
    static const char *const t2[] = {
        "task 7/2/0 -> unsched 7/2 cap 1 cost 1010",
        "task 7/2/0 -> cluster cap 1 cost 100",
    };
    arcs_are(c, "task 7/2/0", t2, 2, "rack r5 (a label only): no arc");
    static const char *const t3[] = {
        "task 7/3/0 -> unsched 7/3 cap 1 cost 1010",
        "task 7/3/0 -> cluster cap 1 cost 100",
        "task 7/3/0 -> rack r1 cap 1 cost 40",
    };
    arcs_are(c, "task 7/3/0", t3, 3, "ts_racks r1: an arc to rack r1");
    fd_round_end(c, T0 + 1000 * MS, r, FC_ECANCELED, NULL);
    fd_core_free(c);
}

/* spread: a node's arcs to the sink are four chunks of its room whose
 * costs rise with the load; work spreads instead of filling the
 * cheapest node. */
static void test_spread(void)
{
    fd_config cfg = cfg_test();
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "spread");
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1); /* cap 3 */
    fdt_node(c, T0, 2, "n2", 4, NULL, -1); /* cap 3 */
    fdt_sched(c, T0, SCHED, SID);
    fdt_heartbeat(c, T0 + 10 * MS, 1, 1, 4, 2, 0, 0, NULL, 0);
    fdt_submit(c, T0 + 1000 * MS, SCHED, 1, 4, true, NULL, 0);
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 1100 * MS, &r), 0, "round due");
    /* room 3 in chunks [0,0) [0,1) [1,2) [2,3); a unit at load L costs
     * 100 * L / 4: n1 carries 2 short tasks, n2 none */
    static const char *const n1[] = {
        "node n1 -> sink cap 0 cost 75",
        "node n1 -> sink cap 1 cost 75",
        "node n1 -> sink cap 1 cost 100",
        "node n1 -> sink cap 1 cost 125",
    };
    static const char *const n2[] = {
        "node n2 -> sink cap 0 cost 25",
        "node n2 -> sink cap 1 cost 25",
        "node n2 -> sink cap 1 cost 50",
        "node n2 -> sink cap 1 cost 75",
    };
    arcs_are(c, "node n1", n1, 4, "spread: n1's convex arcs");
    arcs_are(c, "node n2", n2, 4, "spread: n2's convex arcs");
    fd_round_end(c, T0 + 1100 * MS, r, FC_ECANCELED, NULL);
    /* the 4 cheapest units: 25, 50, 75 on n2 and 75 on n1, + 4 * 100 */
    solve_both(c, T0 + 1300 * MS, 25 + 50 + 75 + 75 + 400);
    tap_is_int(fd_core_node_long(c, 2), 3, "three on the idle node");
    tap_is_int(fd_core_node_long(c, 1), 1, "one on the loaded node");
    fd_core_free(c);
}

/* Jobs with labels reach only the nodes that carry them, through their
 * class's aggregator (quincy). */
static void test_labels(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1); /* label ssd, rack r1 */
    fdt_sched(c, T0, SCHED, SID);
    const char *ssd[] = {"ssd"}, *gpu[] = {"gpu"}, *pr1[] = {"r1"};
    sk_resources res = {500, 256};
    fdt_submit_racks(c, T0, SCHED, 1, 1, true, NULL, 0, pr1, 1, ssd, 1, res);
    fdt_submit_ex(c, T0, SCHED, 2, 1, true, NULL, 0, gpu, 1, res);
    tap_is_int((int64_t)fdt_count(c, SK_MSG_JOB_ACCEPTED, SCHED), 1,
               "labelled jobs accepted");
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 1000 * MS, &r), 0, "round due");
    static const char *const cls[] = {
        "class 500m/256M/ssd -> node n1 cap 3 cost 0",
    };
    arcs_are(c, "class", cls, 1, "the ssd class reaches n1; gpu nothing");
    static const char *const t1[] = {
        "task 7/1/0 -> unsched 7/1 cap 1 cost 1010",
        "task 7/1/0 -> class 500m/256M/ssd cap 1 cost 100",
    };
    arcs_are(c, "task 7/1/0", t1, 2,
             "a labelled task: its class instead of the cluster, no rack");
    fd_round_end(c, T0 + 1000 * MS, r, FC_ECANCELED, NULL);
    solve_both(c, T0 + 1200 * MS, 100 + 1010);
    tap_is_int(reserved_on(c, 1, 0), 1, "ssd task placed on n1");
    tap_is_int(reserved_on(c, 2, 0), 0, "gpu task waits");
    fd_core_free(c);
}

/* multires: a class has arcs only where a copy fits, capacity the copies
 * that fit, cost the node's use after placing one. */
static void test_multires(void)
{
    fd_config cfg = cfg_test();
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "multires");
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, NULL, -1);  /* 4000m, 4096M, cap 3 */
    fdt_node(c, T0, 2, "n2", 2, NULL, 1.0); /* 2000m, 2048M, cap 2 */
    fdt_node(c, T0, 3, "n3", 1, NULL, 1.0); /* 1000m, 1024M, cap 1 */
    fdt_sched(c, T0, SCHED, SID);
    fdt_heartbeat_res(c, T0 + 10 * MS, 1, 1, 4, 2, 0, 0, NULL, 0,
                      (sk_resources){2000, 1024});
    fdt_heartbeat_res(c, T0 + 10 * MS, 3, 1, 1, 0, 0, 0, NULL, 0,
                      (sk_resources){500, 0});
    fdt_submit_ex(c, T0 + 500 * MS, SCHED, 1, 3, true, NULL, 0, NULL, 0,
                  (sk_resources){1000, 256});
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 1000 * MS, &r), 0, "round due");
    static const char *const arcs[] = {
        /* n1: 2000m free: 2 copies; use after: 3000/4000 */
        "class 1000m/256M -> node n1 cap 2 cost 75",
        /* n2: 2 copies (and its room); 1000/2000 */
        "class 1000m/256M -> node n2 cap 2 cost 50",
        /* n3: 500m free, no copy fits: no arc */
        "node n1 -> sink cap 3 cost 0",
        "node n2 -> sink cap 2 cost 0",
        "node n3 -> sink cap 1 cost 0",
    };
    arcs_are(c, "class", arcs, 2, "multires: class arcs where it fits");
    arcs_are(c, "node", arcs + 2, 3, "multires: nodes to the sink");
    fd_round_end(c, T0 + 1000 * MS, r, FC_ECANCELED, NULL);
    /* 2 on n2 (50), 1 on n1 (75), each through the class (100) */
    solve_both(c, T0 + 1200 * MS, 50 + 50 + 75 + 300);
    tap_is_int(fd_core_node_long(c, 2), 2, "two on the emptier node");
    tap_is_int(fd_core_node_long(c, 1), 1, "one on the busier node");
    tap_is_int(fd_core_node_long(c, 3), 0, "none where it does not fit");
    fd_core_free(c);
}

/* fd_core_dump writes the network with names; the file reads back as
 * the same network and LEMON finds the same optimum in it. */
static void test_dump(void)
{
    fd_config cfg = cfg_test();
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", -1);
    fdt_node(c, T0, 2, "n2", 2, "r2", -1);
    fdt_sched(c, T0, SCHED, SID);
    const char *pn2[] = {"n2"};
    fdt_submit(c, T0, SCHED, 1, 5, true, pn2, 1);
    fdt_round(c, T0 + 1000 * MS, NULL); /* the network exists */
    fdt_submit(c, T0 + 1100 * MS, SCHED, 2, 2, true, NULL, 0);
    fdt_drain(c);
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 1300 * MS, &r), 0, "round due");
    char path[] = "/tmp/fd_dump_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w+");
    if (f == NULL)
        tap_bail_out("cannot make a temporary file");
    tap_is_int(fd_core_dump(c, f), 0, "dumped");
    rewind(f);
    char line[256];
    int named = 0;
    while (fgets(line, sizeof line, f) != NULL)
        named += strncmp(line, "c name ", 7) == 0 &&
                 (strstr(line, " node n1\n") != NULL ||
                  strstr(line, " task 7/2/1\n") != NULL ||
                  strstr(line, " rack r2\n") != NULL);
    tap_is_int(named, 3, "names in comment lines (node, task, rack)");
    rewind(f);
    fc_dimacs_reader *rd;
    fc_dimacs_end end;
    size_t lines;
    if (fc_dimacs_reader_new(NULL, &rd) != 0)
        tap_bail_out("no reader");
    tap_is_int(fc_dimacs_read(rd, f, "dump", &end, &lines), 0, "reads back");
    const fc_graph *g = fc_dimacs_graph(rd);
    tap_ok(g != NULL &&
               fc_graph_node_count(g) == fc_graph_node_count(r->rd_graph) &&
               fc_graph_arc_count(g) == fc_graph_arc_count(r->rd_graph),
           "the same network size");
    fclose(f);
    fc_int128 want = 0;
    tap_is_int(fct_solve_fresh(r->rd_graph, FC_ALG_SSP, &want), 0, "solved");
    if (fct_lemon_path() == NULL) {
        tap_skip(1, "no dimacs-solver");
    } else {
        bool feasible = false;
        int64_t cost = -1;
        char err[200] = "";
        int rc = fct_lemon_solve_file(path, &feasible, &cost, err, sizeof err);
        tap_ok(rc == 0 && feasible && cost == want,
               "LEMON on the dump: %lld, flowcore %lld %s", (long long)cost,
               (long long)want, err);
    }
    unlink(path);
    fc_dimacs_reader_free(rd);
    fd_round_end(c, T0 + 1300 * MS, r, FC_ECANCELED, NULL);
    fd_core_free(c);
}

/* RESERVEs in the outbox for job's tasks. */
static size_t reserves_of(fd_core *c, uint64_t job)
{
    size_t n = 0;
    const sk_msg *m;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_RESERVE, i, NULL)) != NULL; i++)
        n += m->m_reserve.rv_job == job;
    return n;
}

/* job 1's discount at 3 s: its tasks' unscheduled cost + 1 */
#define FAIR_COST 1031ll

/* Job 1 (10 tasks) waited 3 s, job 2 (4 tasks) 1 s, on 8 slots: the
 * plain policy gives the older job every slot; with fair shares each
 * gets 4 (water-filling), job 1's other 6 drawn through U_job. */
static void test_fair_split(bool fair)
{
    fd_config cfg = cfg_test();
    cfg.fdc_q_fair_share = fair;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", 1.0);
    fdt_node(c, T0, 2, "n2", 4, "r1", 1.0);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 1, 10, true, NULL, 0);
    fdt_submit(c, T0 + 2000 * MS, SCHED, 2, 4, true, NULL, 0);
    fdt_drain(c);
    if (!fair) {
        tap_is_int(fdt_round(c, T0 + 3000 * MS, NULL), 0, "plain: round");
        tap_ok(reserves_of(c, 1) == 8 && reserves_of(c, 2) == 0,
               "plain: the older job takes all 8 slots (%zu, %zu)",
               reserves_of(c, 1), reserves_of(c, 2));
        fd_core_free(c);
        return;
    }
    fd_round *r;
    tap_is_int(fd_round_begin(c, T0 + 3000 * MS, &r), 0, "fair: round due");
    char over[80], none[80];
    snprintf(over, sizeof over, "unsched 7/1 -> sink cap 6 cost %lld",
             -FAIR_COST);
    snprintf(none, sizeof none, "unsched 7/2 -> sink cap 0 cost %lld", -1011ll);
    const char *const want[] = {
        "unsched 7/1 -> sink cap 4 cost 0",
        over,
        "unsched 7/2 -> sink cap 4 cost 0",
        none,
    };
    arcs_are(c, "unsched", want, 4, "fair: shares 4 and 4 of 8 slots");
    tap_is_int(fd_round_end(c, T0 + 3000 * MS, r, FC_ECANCELED, NULL), 0,
               "fair: the look ends");
    /* 8 placed through the cluster (100 each); job 1's other 6 through
     * its discounted arc (1000 + 3 s * 10 waited, less the discount, 1
     * more than that); job 2's discount is 1011 (1 s waited) */
    solve_both(c, T0 + 3200 * MS, 8 * 100 + 6 * (1030 - FAIR_COST));
    tap_ok(reserves_of(c, 1) == 4 && reserves_of(c, 2) == 4,
           "fair: 4 slots each (%zu, %zu)", reserves_of(c, 1),
           reserves_of(c, 2));
    fd_core_free(c);
}

/* Job 1 alone takes all 8 slots (its share while alone) and runs; job 2
 * comes: with preemption the 4 tasks of job 1 that ran least are
 * stopped (RELEASE with kill); without, nothing moves and job 2 waits
 * for job 1's tasks to end. */
static void test_fair_preempt(bool preempt)
{
    fd_config cfg = cfg_test();
    cfg.fdc_q_fair_share = true;
    cfg.fdc_preemption = preempt;
    fd_core *c = fdt_core(&cfg, T0);
    fdt_node(c, T0, 1, "n1", 4, "r1", 1.0);
    fdt_node(c, T0, 2, "n2", 4, "r1", 1.0);
    fdt_sched(c, T0, SCHED, SID);
    fdt_submit(c, T0, SCHED, 1, 10, true, NULL, 0);
    fdt_round(c, T0 + 1000 * MS, NULL);
    tap_is_int((int64_t)reserves_of(c, 1), 8, "alone, job 1 gets all 8");
    sk_reserve rv[8];
    sk_peer to[8];
    fdt_run run[2][4];
    uint32_t nrun[3] = {0, 0, 0};
    size_t n = 0;
    const sk_msg *m;
    while (n < 8 && (m = fdt_nth(c, SK_MSG_RESERVE, n, &to[n])) != NULL) {
        rv[n] = m->m_reserve;
        rv[n].rv_spec.b_data = NULL; /* not kept */
        n++;
    }
    fdt_drain(c);
    for (size_t i = 0; i < n; i++) {
        fdt_answer(c, T0 + 1001 * MS, to[i], &rv[i], true);
        if (to[i] >= 1 && to[i] <= 2 && nrun[to[i]] < 4)
            run[to[i] - 1][nrun[to[i]]++] =
                (fdt_run){rv[i].rv_job, rv[i].rv_task, rv[i].rv_attempt};
    }
    fdt_heartbeat(c, T0 + 1100 * MS, 1, 1, 4, 4, 4, 0, run[0], nrun[1]);
    fdt_heartbeat(c, T0 + 1100 * MS, 2, 1, 4, 4, 4, 0, run[1], nrun[2]);
    fdt_round(c, T0 + 1200 * MS, NULL);
    fdt_drain(c);
    fdt_submit(c, T0 + 3000 * MS, SCHED, 2, 4, true, NULL, 0);
    tap_is_int(fdt_round(c, T0 + 3200 * MS, NULL), 0, "job 2: round");
    size_t kills = 0, others = 0;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_RELEASE, i, NULL)) != NULL; i++) {
        bool ours = false;
        for (size_t k = 0; k < n; k++)
            ours = ours || m->m_release.rl_resv == rv[k].rv_resv;
        kills += ours && m->m_release.rl_kill;
        others += !ours || !m->m_release.rl_kill;
    }
    if (preempt) {
        tap_ok(kills == 4 && others == 0,
               "preemption: 4 of job 1's tasks stopped (%zu, %zu other)", kills,
               others);
        tap_is_int((int64_t)fd_core_stats(c)->fs_preempted, 4, "counted");
    } else {
        tap_ok(kills == 0 && others == 0 && reserves_of(c, 2) == 0,
               "no preemption: nothing moves, job 2 waits");
    }
    fdt_drain(c);
    fd_core_free(c);
}

/* q_fair_share belongs to the quincy policy. */
static void test_fair_config(void)
{
    fd_config cfg = cfg_test();
    cfg.fdc_q_fair_share = true;
    char err[200] = "";
    tap_is_int(fd_config_check(&cfg, err, sizeof err), 0, "quincy: fair ok");
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "spread");
    tap_ok(fd_config_check(&cfg, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "q_fair_share") != NULL,
           "spread with q_fair_share refused: %s", err);
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    sk_log_set_level(SK_LOG_ERROR);
    test_quincy_network();
    test_caps();
    test_late_preference();
    test_rack_sources();
    test_spread();
    test_labels();
    test_multires();
    test_dump();
    test_fair_split(false);
    test_fair_split(true);
    test_fair_preempt(false);
    test_fair_preempt(true);
    test_fair_config();
    tap_done();
    return tap_exit_status();
}
