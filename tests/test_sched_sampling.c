/*
 * test_sched_sampling.c - the scheduler core's batch sampling: ceil(d*m)
 * probes on distinct node monitors, the per-job probe ratio, spreading
 * when nodes are fewer than probes, label and resource filtering,
 * saturated nodes skipped, uniform choice (chi-square), and rejection
 * when no live node can run the job.
 */
#include "sched_testutil.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 256

/* probes_of gathers the ENQUEUE_RESERVATIONs in the outbox: per node
 * peer the er_count, and returns the number of messages; *sum is the
 * total count, *dups the nodes that got more than one message. */
static uint32_t probes_of(sched_core *c, uint32_t counts[NMAX], uint64_t *sum,
                          uint32_t *dups)
{
    memset(counts, 0, NMAX * sizeof counts[0]);
    *sum = 0;
    *dups = 0;
    uint32_t n = 0;
    const sk_out *o;
    while ((o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, n)) != NULL) {
        if (o->o_peer < NMAX) {
            if (counts[o->o_peer] != 0)
                (*dups)++;
            counts[o->o_peer] += o->o_msg.m_enqueue.er_count;
        }
        *sum += o->o_msg.m_enqueue.er_count;
        n++;
    }
    return n;
}

static void test_count_and_distinct(void)
{
    sched_core *c;
    sched_new(NULL, 1, &c);
    st_nodes_up(c, 100);
    st_fe_up(c, ST_FE);
    uint32_t counts[NMAX], dups;
    uint64_t sum;

    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 10}, 0);
    tap_is_int(st_count(c, SK_MSG_JOB_ACCEPTED, ST_FE), 1, "job accepted");
    uint32_t n = probes_of(c, counts, &sum, &dups);
    tap_is_int(n, 20, "d=2, m=10: 20 ENQUEUE_RESERVATION");
    tap_ok(sum == 20 && dups == 0, "on 20 distinct nodes, one each");
    const sk_out *o = st_nth(c, SK_MSG_ENQUEUE_RESERVATION, 0);
    tap_ok(o->o_msg.m_enqueue.er_task == SK_TASK_ANY &&
               strcmp(o->o_msg.m_enqueue.er_user, "alice") == 0,
           "probes are unbound and carry the user");
    sched_job_info ji;
    sched_job_info_get(c, ST_FE, 1, &ji);
    tap_ok(ji.ji_resv == 20 && ji.ji_resv_nodes == 20 && ji.ji_pending == 10,
           "the core tracks 20 probes on 20 nodes, 10 tasks pending");
    st_clear(c);

    st_submit(c, ST_FE, &(st_job){.sj_job = 2, .ntasks = 3, .ratio = 1.5}, 0);
    probes_of(c, counts, &sum, &dups);
    tap_is_int((int64_t)sum, 5, "per-job ratio 1.5, m=3: ceil(4.5) = 5");
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 3, .ntasks = 10, .ratio = 1.1}, 0);
    probes_of(c, counts, &sum, &dups);
    tap_is_int((int64_t)sum, 11, "ratio 1.1, m=10: 11 (no rounding probe)");
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 4, .ntasks = 7, .ratio = 1}, 0);
    probes_of(c, counts, &sum, &dups);
    tap_is_int((int64_t)sum, 7, "ratio 1: one probe per task");
    st_clear(c);
    sched_free(c);

    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_probe_ratio = 3;
    sched_new(&cfg, 2, &c);
    st_nodes_up(c, 100);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 4}, 0);
    probes_of(c, counts, &sum, &dups);
    tap_is_int((int64_t)sum, 12, "scheduler ratio 3 is the default");
    sched_free(c);
}

static void test_spread(void)
{
    sched_core *c;
    sched_new(NULL, 3, &c);
    st_nodes_up(c, 3);
    uint32_t counts[NMAX], dups;
    uint64_t sum;
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 10}, 0);
    uint32_t n = probes_of(c, counts, &sum, &dups);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int p = 1; p <= 3; p++) {
        lo = counts[p] < lo ? counts[p] : lo;
        hi = counts[p] > hi ? counts[p] : hi;
    }
    tap_ok(n == 3 && dups == 0 && sum == 20,
           "20 probes on 3 nodes: one ENQUEUE per node, counts add up");
    tap_ok(lo == 6 && hi == 7, "spread evenly (6 or 7 each): %u..%u", lo, hi);
    sched_free(c);
}

static void test_filters(void)
{
    sched_core *c;
    sched_new(NULL, 4, &c);
    const char *gpu[] = {"gpu", "ssd", NULL};
    const char *ssd[] = {"ssd", NULL};
    /* Odd peers have a gpu; peers over 20 have little memory. */
    for (sk_peer p = 1; p <= 40; p++)
        st_node_up(c, p, 2, (sk_resources){2000, p > 20 ? 1024 : 8192},
                   p % 2 ? gpu : ssd);
    uint32_t counts[NMAX], dups;
    uint64_t sum;

    const char *want_gpu[] = {"gpu"};
    st_submit(
        c, ST_FE,
        &(st_job){.sj_job = 1, .ntasks = 5, .labels = want_gpu, .nlabels = 1},
        0);
    probes_of(c, counts, &sum, &dups);
    bool ok = sum == 10 && dups == 0;
    for (int p = 0; p < NMAX; p++)
        if (counts[p] != 0 && p % 2 == 0)
            ok = false;
    tap_ok(ok, "label gpu: 10 probes, all on gpu nodes");
    st_clear(c);

    st_submit(c, ST_FE,
              &(st_job){.sj_job = 2, .ntasks = 4, .res = {1000, 4096}}, 0);
    probes_of(c, counts, &sum, &dups);
    ok = sum == 8 && dups == 0;
    for (int p = 21; p < NMAX; p++)
        if (counts[p] != 0)
            ok = false;
    tap_ok(ok, "4 GiB per task: only nodes with the memory are probed");
    st_clear(c);

    /* Both: gpu and memory leave 10 nodes (odd, <= 20); 30 probes. */
    st_submit(c, ST_FE,
              &(st_job){.sj_job = 3,
                        .ntasks = 15,
                        .labels = want_gpu,
                        .nlabels = 1,
                        .res = {1000, 4096}},
              0);
    uint32_t n = probes_of(c, counts, &sum, &dups);
    ok = n == 10 && sum == 30 && dups == 0;
    for (int p = 0; p < NMAX; p++)
        if (counts[p] != 0 && (p % 2 == 0 || p > 20 || counts[p] != 3))
            ok = false;
    tap_ok(ok, "labels and resources: 30 probes spread 3 each on 10 nodes");
    st_clear(c);

    const char *want_fpga[] = {"fpga"};
    st_submit(
        c, ST_FE,
        &(st_job){.sj_job = 4, .ntasks = 2, .labels = want_fpga, .nlabels = 1},
        0);
    const sk_out *o = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    tap_ok(o != NULL && strstr(o->o_msg.m_job_ack.ja_reason, "labels") &&
               st_count(c, SK_MSG_ENQUEUE_RESERVATION, UINT32_MAX) == 0,
           "no node has the label: rejected with a reason, no probe");
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 5, .ntasks = 2, .res = {3000, 0}},
              0);
    tap_is_int(st_count(c, SK_MSG_JOB_REJECTED, ST_FE), 1,
               "no node has the CPU: rejected");
    sched_job_info ji;
    tap_ok(sched_job_info_get(c, ST_FE, 5, &ji) == SK_ENOTFOUND &&
               sched_stats_get(c)->ss_jobs == 3,
           "rejected jobs leave nothing behind");
    st_clear(c);
    sched_free(c);

    sched_new(NULL, 5, &c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 2}, 0);
    o = st_nth(c, SK_MSG_JOB_REJECTED, 0);
    tap_ok(o != NULL &&
               strcmp(o->o_msg.m_job_ack.ja_reason, "no node monitors") == 0,
           "no node at all: rejected \"no node monitors\"");
    sched_free(c);
}

static void test_membership(void)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_probe_saturated = false; /* saturated nodes are not probed */
    sched_core *c;
    sched_new(&cfg, 6, &c);
    st_nodes_up(c, 3);
    sched_peer_up(c, 500, &(sk_hello){.he_role = SK_ROLE_FLOWD}, 0);
    sk_member me = {.me_id = 1,
                    .me_name = "node1",
                    .me_addr = "",
                    .me_state = SK_NODE_SATURATED};
    sk_msg m = {.m_type = SK_MSG_MEMBERSHIP};
    m.m_membership.mb_epoch = 1;
    m.m_membership.mb_nodes = &me;
    m.m_membership.mb_nnodes = 1;
    sched_on_message(c, 500, &m, 0);
    tap_ok(!sched_node_live(c, 1) && sched_node_live(c, 2),
           "MEMBERSHIP marks node1 saturated");
    uint32_t counts[NMAX], dups;
    uint64_t sum;
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 10}, 0);
    uint32_t n = probes_of(c, counts, &sum, &dups);
    tap_ok(n == 2 && counts[1] == 0 && sum == 20,
           "a saturated node is not probed");
    st_clear(c);
    me.me_state = SK_NODE_UP;
    sched_on_message(c, 500, &m, 0);
    tap_ok(sched_node_live(c, 1), "UP makes it live again");
    sched_on_message(c, 2, &m, 0);
    tap_is_int((int64_t)sched_stats_get(c)->ss_bad_peer, 1,
               "MEMBERSHIP from a node monitor is refused");
    sched_on_message(c, 501, &m, 0);
    tap_is_int((int64_t)sched_stats_get(c)->ss_bad_peer, 2,
               "and from a peer that did not say HELLO as flowd");
    me.me_state = SK_NODE_SATURATED;
    sched_on_message(c, 500, &m, 0);
    m.m_membership.mb_full = true;
    m.m_membership.mb_nnodes = 0;
    sched_on_message(c, 500, &m, 0);
    tap_ok(sched_node_live(c, 1),
           "a full directory that omits a saturated node revives it");
    sched_free(c);
}

/* Chi-square of the counts of k cells against equal expectation. */
static double chi_square(const uint32_t *cells, uint32_t k, double expect)
{
    double x = 0;
    for (uint32_t i = 0; i < k; i++) {
        double d = cells[i] - expect;
        x += d * d / expect;
    }
    return x;
}

static void test_uniform(void)
{
    sched_core *c;
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_max_jobs = 100000;
    cfg.sc_max_fe_jobs = cfg.sc_max_jobs;   /* one frontend sends them all */
    cfg.sc_max_user_jobs = cfg.sc_max_jobs; /* as one user */
    sched_new(&cfg, 7, &c);
    const char *gpu[] = {"gpu", NULL};
    /* 50 nodes; nodes 1..20 carry a label. */
    for (sk_peer p = 1; p <= 50; p++)
        st_node_up(c, p, 2, (sk_resources){2000, 2048}, p <= 20 ? gpu : NULL);
    uint32_t cells[NMAX] = {0}, counts[NMAX], dups;
    uint64_t sum;
    /* Single-task jobs, d = 2: 4000 probes, 80 per node expected. */
    bool distinct = true;
    for (uint64_t j = 1; j <= 2000; j++) {
        st_submit(c, ST_FE, &(st_job){.sj_job = j, .ntasks = 1}, 0);
        probes_of(c, counts, &sum, &dups);
        distinct = distinct && sum == 2 && dups == 0;
        for (int p = 1; p <= 50; p++)
            cells[p - 1] += counts[p];
        st_clear(c);
    }
    double x = chi_square(cells, 50, 80);
    tap_ok(distinct, "every job probed two distinct nodes");
    /* 49 degrees of freedom: P(X > 85.35) = 0.001. */
    tap_ok(x < 85.35, "node choice is uniform: chi-square %.1f < 85.35", x);

    memset(cells, 0, sizeof cells);
    const char *want_gpu[] = {"gpu"};
    bool inside = true;
    for (uint64_t j = 3001; j <= 4000; j++) {
        st_submit(
            c, ST_FE,
            &(st_job){
                .sj_job = j, .ntasks = 1, .labels = want_gpu, .nlabels = 1},
            0);
        probes_of(c, counts, &sum, &dups);
        for (int p = 1; p <= 50; p++) {
            if (p > 20 && counts[p] != 0)
                inside = false;
            if (p <= 20)
                cells[p - 1] += counts[p];
        }
        st_clear(c);
    }
    x = chi_square(cells, 20, 100);
    tap_ok(inside, "constrained probes stay on labelled nodes");
    /* 19 degrees of freedom: P(X > 43.82) = 0.001. */
    tap_ok(x < 43.82, "and are uniform among them: chi-square %.1f < 43.82", x);
    sched_free(c);
}

/* saturate sends a MEMBERSHIP from flowd (peer 500) giving node1..n
 * the state st. */
static void saturate(sched_core *c, uint32_t n, uint8_t st)
{
    static char names[8][8];
    sk_member me[8];
    for (uint32_t i = 0; i < n && i < 8; i++) {
        snprintf(names[i], sizeof names[i], "node%u", i + 1);
        me[i] = (sk_member){
            .me_id = i + 1, .me_name = names[i], .me_addr = "", .me_state = st};
    }
    sk_msg m = {.m_type = SK_MSG_MEMBERSHIP};
    m.m_membership = (sk_membership){
        .mb_epoch = 1, .mb_nodes = me, .mb_nnodes = n < 8 ? n : 8};
    sched_on_message(c, 500, &m, 0);
}

/* probe_saturated: what unsaturated nodes cannot take goes to the short
 * slots of saturated ones, not to flowd. */
static void test_probe_saturated(void)
{
    sched_config cfg;
    sched_config_init(&cfg);
    cfg.sc_probe_saturated = true;
    sched_core *c;
    sched_new(&cfg, 7, &c);
    st_nodes_up(c, 3);
    sched_peer_up(c, 500, &(sk_hello){.he_role = SK_ROLE_FLOWD}, 0);
    saturate(c, 1, SK_NODE_SATURATED);
    uint32_t counts[NMAX], dups;
    uint64_t sum;
    st_submit(c, ST_FE, &(st_job){.sj_job = 1, .ntasks = 1}, 0);
    uint32_t n = probes_of(c, counts, &sum, &dups);
    tap_ok(n == 2 && counts[1] == 0 && sum == 2,
           "2 probes: both on the unsaturated nodes");
    st_clear(c);
    st_submit(c, ST_FE, &(st_job){.sj_job = 2, .ntasks = 10}, 0);
    n = probes_of(c, counts, &sum, &dups);
    tap_ok(n == 3 && counts[1] > 0 && sum == 20,
           "20 probes on 2 unsaturated nodes: the saturated one gets some");
    tap_ok(sched_stats_get(c)->ss_sat_probes == counts[1] &&
               sched_stats_get(c)->ss_saturated == 1 &&
               sched_stats_get(c)->ss_live == 2,
           "counted: %u reservations on the 1 saturated node, 2 live",
           counts[1]);
    st_clear(c);
    saturate(c, 3, SK_NODE_SATURATED);
    st_submit(c, ST_FE, &(st_job){.sj_job = 3, .ntasks = 2}, 0);
    n = probes_of(c, counts, &sum, &dups);
    tap_ok(n == 3 && sum == 4 && st_count(c, SK_MSG_SUBMIT_JOB, 500) == 0,
           "every node saturated: the job is probed there, not handed over");
    st_clear(c);
    const char *t0[] = {"node2", NULL};
    const char **pref[] = {t0, NULL};
    st_submit(c, ST_FE, &(st_job){.sj_job = 4, .ntasks = 1, .preferred = pref},
              0);
    n = probes_of(c, counts, &sum, &dups);
    tap_ok(n == 1 && counts[2] > 0,
           "a task whose preferred node is saturated is probed there");
    st_clear(c);
    saturate(c, 3, SK_NODE_DOWN);
    st_submit(c, ST_FE, &(st_job){.sj_job = 5, .ntasks = 1}, 0);
    tap_ok(probes_of(c, counts, &sum, &dups) == 0 &&
               st_count(c, SK_MSG_SUBMIT_JOB, 500) == 1,
           "every node down: the job goes to flowd");
    sched_free(c);
}

int main(void)
{
    tap_timeout(30);
    tap_plan(34);
    test_count_and_distinct();
    test_spread();
    test_filters();
    test_membership();
    test_uniform();
    test_probe_saturated();
    return tap_exit_status();
}
