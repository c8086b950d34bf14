/*
 * test_fd_constraint.c - placement constraints in the flow node
 * (fd_constraint.h): the caps the flow network enforces exactly, the
 * repair pass, reasons for tasks left waiting, and the comparison with
 * the exact optimum of MEDEA's integer program from GLPK (skipped, with
 * the reason, when glpsol is not installed).
 */
#include "fd_constraint.h"
#include "fd_testutil.h"
#include "medea_lp.h"
#include "sk_constraint.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* n nodes of the given room, racks of rack nodes, tasks of one job with
 * one tag 0, and constraints cons. */
typedef struct small {
    uint32_t room[16];
    int32_t rack[16], gnode[16];
    uint32_t tag0;
    fd_cx_task tasks[40];
    fd_cx x;
} small;

static void small_init(small *s, uint32_t nodes, uint32_t room, uint32_t rack,
                       uint32_t ntasks, const fd_cx_con *cons, uint32_t ncons)
{
    memset(s, 0, sizeof *s);
    for (uint32_t n = 0; n < nodes; n++) {
        s->room[n] = room;
        s->rack[n] = (int32_t)(n / rack);
        s->gnode[n] = (int32_t)n;
    }
    for (uint32_t t = 0; t < ntasks; t++)
        s->tasks[t] = (fd_cx_task){.ck_tags = &s->tag0, .ck_ntags = 1};
    s->x = (fd_cx){.cx_nnodes = nodes,
                   .cx_room = s->room,
                   .cx_rack = s->rack,
                   .cx_nracks = (nodes + rack - 1) / rack,
                   .cx_tasks = s->tasks,
                   .cx_ntasks = ntasks,
                   .cx_cons = cons,
                   .cx_ncons = ncons,
                   .cx_ntags = 1};
}

static void test_exact_caps(void)
{
    small s;
    fd_cx_con notin = {.cc_group = SK_GROUP_NODE, .cc_ngroups = 10};
    small_init(&s, 10, 3, 5, 10, &notin, 1);
    notin.cc_gid = s.gnode;
    fd_cx_stats st;
    fd_cx_score sc;
    tap_is_int(fd_cx_place(&s.x, &st), 0, "10 zk NOTIN NODE zk on 10 nodes");
    fd_cx_eval(&s.x, &sc);
    tap_ok(sc.cs_unplaced == 0 && sc.cs_hard == 0 && st.xs_gated == 10 &&
               st.xs_flow_placed == 10 && st.xs_moved == 0,
           "all placed by the flow network through the node gates, none "
           "moved (gated %u, flow %u, moved %u)",
           st.xs_gated, st.xs_flow_placed, st.xs_moved);

    small_init(&s, 10, 3, 5, 11, &notin, 1);
    fd_cx_place(&s.x, &st);
    fd_cx_eval(&s.x, &sc);
    uint32_t waiting = 0;
    const char *why = NULL;
    for (uint32_t t = 0; t < 11; t++)
        if (s.tasks[t].ck_node == FD_CX_NONE) {
            waiting++;
            why = s.tasks[t].ck_why;
        }
    tap_ok(sc.cs_hard == 0 && waiting == 1 && why != NULL &&
               strcmp(why, "no node with room meets its hard placement "
                           "constraints") == 0,
           "the 11th waits, with its reason: %s", why ? why : "(none)");

    /* at most 2 others per rack (3 per rack), racks of 5 nodes: 3 racks
     * hold 9 */
    fd_cx_con card = {.cc_max = 2, .cc_group = SK_GROUP_RACK, .cc_ngroups = 3};
    small_init(&s, 15, 4, 5, 12, &card, 1);
    card.cc_gid = s.rack;
    fd_cx_place(&s.x, &st);
    fd_cx_eval(&s.x, &sc);
    tap_ok(sc.cs_hard == 0 && sc.cs_unplaced == 3 && st.xs_flow_placed == 9,
           "CARDINALITY RACK 0..2: the rack gates take 3 per rack, 9 of 12 "
           "(flow %u, waiting %llu)",
           st.xs_flow_placed, (unsigned long long)sc.cs_unplaced);

    /* affinity within the job: not a cap, the repair pass makes it */
    fd_cx_con in = {.cc_min = 1,
                    .cc_max = UINT32_MAX,
                    .cc_group = SK_GROUP_RACK,
                    .cc_ngroups = 4};
    small_init(&s, 16, 1, 4, 6, &in, 1);
    in.cc_gid = s.rack;
    fd_cx_place(&s.x, &st);
    fd_cx_eval(&s.x, &sc);
    tap_ok(sc.cs_hard == 0 && sc.cs_unplaced == 0,
           "zk IN RACK zk, one slot per node: all 6 placed in pairs or more "
           "per rack by the repair pass (moved %u, repaired %u)",
           st.xs_moved, st.xs_placed_repair);
}

/* MEDEA-shaped instances against GLPK's optimum. */
static void test_oracle(void)
{
    const char *glpsol = medea_lp_glpsol();
    if (glpsol == NULL) {
        tap_skip(4, "glpsol is not installed (Debian glpk-utils): no exact "
                    "oracle");
        return;
    }
    char dir[] = "/tmp/skylark-medea-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        tap_skip(4, "no temporary directory");
        return;
    }
    int runs = 0, optimal = 0, lp_bad = 0, ours_hard = 0, sat = 0, ours_all = 0,
        same_obj = 0, worse_than_opt = 0;
    uint64_t gap_sum = 0, gap_max = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        medea_inst mi;
        uint32_t nodes = 8 + (uint32_t)(seed % 5) * 2;
        uint32_t tasks = 16 + (uint32_t)(seed % 4) * 4;
        if (medea_gen(&mi, seed, nodes, tasks, 2) != 0)
            continue;
        fd_cx_stats st;
        fd_cx_score ours, opt;
        fd_cx_place(&mi.mi_x, &st);
        fd_cx_eval(&mi.mi_x, &ours);
        medea_lp_result lr;
        char err[256];
        if (medea_lp_solve(&mi.mi_x, dir, 20, &lr, err, sizeof err) != 0) {
            tap_diag("seed %llu: %s", (unsigned long long)seed, err);
            lp_bad++;
            medea_gen_free(&mi);
            continue;
        }
        fd_cx_eval(&mi.mi_x, &opt);
        runs++;
        optimal += lr.lr_optimal;
        /* the program's placement, scored by our own evaluator, must be
         * what glpsol says it is, and break no hard constraint */
        if (opt.cs_hard != 0 ||
            (double)opt.cs_objective > lr.lr_objective + 0.5 ||
            (double)opt.cs_objective < lr.lr_objective - 0.5) {
            lp_bad++;
            tap_diag("seed %llu: glpsol %.0f, evaluated %llu, hard %llu",
                     (unsigned long long)seed, lr.lr_objective,
                     (unsigned long long)opt.cs_objective,
                     (unsigned long long)opt.cs_hard);
        }
        ours_hard += ours.cs_hard != 0;
        if (opt.cs_unplaced == 0) {
            sat++;
            ours_all += ours.cs_unplaced == 0;
        }
        if (lr.lr_optimal && ours.cs_objective < opt.cs_objective)
            worse_than_opt++; /* an "optimum" beaten: the program is wrong */
        uint64_t gap = ours.cs_objective - opt.cs_objective;
        if (ours.cs_objective >= opt.cs_objective) {
            gap_sum += gap;
            gap_max = gap > gap_max ? gap : gap_max;
            same_obj += gap == 0;
        }
        tap_diag("seed %2llu: %2u nodes %2u tasks: ours unplaced %llu soft "
                 "%llu (w %llu) | optimum unplaced %llu soft %llu (w %llu)%s, "
                 "%ld rows, glpsol %.2f s | flow %u gated %u repaired %u "
                 "moved %u",
                 (unsigned long long)seed, nodes, tasks,
                 (unsigned long long)ours.cs_unplaced,
                 (unsigned long long)ours.cs_soft,
                 (unsigned long long)ours.cs_soft_weight,
                 (unsigned long long)opt.cs_unplaced,
                 (unsigned long long)opt.cs_soft,
                 (unsigned long long)opt.cs_soft_weight,
                 lr.lr_optimal ? "" : " (time limit)", lr.lr_rows,
                 lr.lr_seconds, st.xs_flow_placed, st.xs_gated,
                 st.xs_placed_repair, st.xs_moved);
        medea_gen_free(&mi);
    }
    char path[300];
    const char *files[] = {"medea.lp", "medea.sol", "glpsol.log"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    tap_diag("%d instances, %d proved optimal; satisfiable %d, ours placed "
             "all of %d of them; same objective %d; objective gap sum %llu "
             "max %llu",
             runs, optimal, sat, ours_all, same_obj,
             (unsigned long long)gap_sum, (unsigned long long)gap_max);
    tap_ok(runs == 12 && lp_bad == 0 && worse_than_opt == 0,
           "GLPK solved every instance; its placement scores as it says and "
           "is never beaten");
    tap_ok(ours_hard == 0, "the flow node breaks no hard constraint");
    tap_ok(sat > 0 && ours_all == sat,
           "on every instance whose hard constraints can all be met (%d), "
           "the flow node places every task and meets them all",
           sat);
    tap_ok(same_obj + 2 >= runs,
           "all but at most 2 instances at the optimum's objective (%d of "
           "%d; gap sum %llu)",
           same_obj, runs, (unsigned long long)gap_sum);
}

/* ---- in the flow node's round ----------------------------------------- */

#define MS    FDT_MS
#define T0    (1000000 * MS)
#define SCHED 100u

static sk_cspec spec;

/* SCHED hands job over to the flow node: long, user alice, the tasks
 * ts[0..ntasks), constrained by cs (NULL: none). */
static void send_job(fd_core *c, sk_time now, uint64_t job, sk_task_spec *ts,
                     uint32_t ntasks, sk_cspec *cs)
{
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = job,
                                     .sj_user = "alice",
                                     .sj_long = true,
                                     .sj_framework = "",
                                     .sj_tasks = ts,
                                     .sj_ntasks = ntasks};
    if (cs != NULL) {
        m.m_submit_job.sj_constraints = cs->cs_items;
        m.m_submit_job.sj_nconstraints = cs->cs_n;
    }
    fd_core_on_msg(c, now, SCHED, &m);
}

/* A long job of ntasks tasks tagged tag, constrained by text. */
static void submit(fd_core *c, sk_time now, uint64_t job, uint32_t ntasks,
                   const char *tag, const char *text)
{
    char err[160];
    fdt_drain(c);
    if (sk_constraint_parse(text, &spec, err, sizeof err) != 0)
        tap_bail_out("%s: %s", text, err);
    sk_task_spec *ts = calloc(ntasks, sizeof *ts);
    if (ts == NULL)
        tap_bail_out("out of memory");
    const char *tags[1] = {tag};
    for (uint32_t i = 0; i < ntasks; i++) {
        ts[i].ts_spec.b_data = (const uint8_t *)"true";
        ts[i].ts_spec.b_len = 5;
        ts[i].ts_tags = tags;
        ts[i].ts_ntags = 1;
    }
    send_job(c, now, job, ts, ntasks, &spec);
    free(ts);
}

/* A long job of ntasks tasks without tags or constraints. */
static void plain(fd_core *c, sk_time now, uint64_t job, uint32_t ntasks)
{
    sk_task_spec ts[4] = {0};
    for (uint32_t i = 0; i < ntasks && i < 4; i++) {
        ts[i].ts_spec.b_data = (const uint8_t *)"true";
        ts[i].ts_spec.b_len = 5;
    }
    fdt_drain(c);
    send_job(c, now, job, ts, ntasks < 4 ? ntasks : 4, NULL);
}

/* The nodes (peers) the RESERVEs of job went to, in *peers. */
static size_t reserves(fd_core *c, uint64_t job, sk_peer *peers, size_t max)
{
    size_t n = 0;
    const sk_msg *m;
    sk_peer to;
    for (size_t i = 0; (m = fdt_nth(c, SK_MSG_RESERVE, i, &to)) != NULL; i++)
        if (m->m_reserve.rv_job == job && n < max)
            peers[n++] = to;
    return n;
}

/* The text of flowd's answer to query q (the caller frees it); NULL if
 * the answer is an error. */
static char *explain(fd_core *c, sk_time now, const char *q)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request =
        (sk_status_request){.sq_request = 5, .sq_table = true, .sq_query = q};
    fd_core_on_msg(c, now, 200, &m);
    const sk_msg *r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    if (r == NULL || r->m_status_reply.sr_nrows == 0)
        return NULL;
    size_t len = 0;
    char *text = NULL;
    for (uint32_t i = 0; i < r->m_status_reply.sr_nrows; i++) {
        const char *cell = r->m_status_reply.sr_rows[i].sw_cells[0];
        size_t n = strlen(cell);
        char *t = realloc(text, len + n + 2);
        if (t == NULL)
            tap_bail_out("out of memory");
        text = t;
        memcpy(text + len, cell, n);
        len += n;
        text[len++] = '\n';
        text[len] = '\0';
    }
    return text;
}

static bool distinct(const sk_peer *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (p[i] == p[k])
                return false;
    return true;
}

static void test_flowd(void)
{
    fd_config cfg;
    fd_config_init(&cfg);
    cfg.fdc_algorithm = FC_ALG_SSP;
    cfg.fdc_cx_wait_ms = 0; /* soft breaks at once (test_wait: the wait) */
    fd_core *c = fdt_core(&cfg, T0);
    for (uint32_t i = 1; i <= 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        fdt_node(c, T0, i, name, 4, i <= 3 ? "r1" : "r2", 1.0);
    }
    fdt_sched(c, T0, SCHED, 7);
    submit(c, T0 + 10 * MS, 1, 6, "zk", "zk=6,NOTIN,NODE,zk");
    sk_time now = T0 + 1000 * MS;
    for (uint32_t i = 1; i <= 6; i++)
        fdt_heartbeat(c, now - 100 * MS, i, 1, 4, 0, 0, 0, NULL, 0);
    tap_is_int(fdt_round(c, now, NULL), 0, "a round");
    sk_peer p[16];
    size_t n = reserves(c, 1, p, 16);
    tap_ok(n == 6 && distinct(p, n),
           "6 zk NOTIN NODE zk: 6 RESERVEs, on 6 distinct nodes (nothing "
           "else keeps them apart: 4 slots a node)");
    fdt_drain(c);

    submit(c, now, 2, 7, "zk2", "zk2,NOTIN,NODE,zk2");
    submit(c, now, 3, 2, "hb", "hb,IN,RACK,all/zk:hb,NOTIN,NODE,all/zk,SOFT=4");
    submit(c, now, 4, 3, "db", "db,IN,NODE,all/nothere");
    now += 1000 * MS;
    tap_is_int(fdt_round(c, now, NULL), 0, "a second round");
    n = reserves(c, 2, p, 16);
    tap_ok(n == 6 && distinct(p, n),
           "7 zk2 NOTIN NODE zk2 on 6 nodes: 6 distinct RESERVEs");
    const char *why = NULL;
    uint32_t waits = 0;
    for (uint32_t t = 0; t < 7 && why == NULL; t++)
        if ((why = fd_constraint_why(c, SCHED, 2, t)) != NULL)
            waits = t;
    tap_ok(why != NULL && strstr(why, "hard placement constraints") != NULL,
           "the seventh waits, saying why: %s", why ? why : "(nothing)");
    n = reserves(c, 3, p, 16);
    const fd_stats *st = fd_core_stats(c);
    tap_ok(n == 2 && st->fs_cx_soft == 2 && st->fs_cx_soft_weight == 8,
           "hb IN RACK all/zk placed; its soft NOTIN NODE all/zk cannot be "
           "met on a cluster full of zk: 2 soft violations of weight 4 "
           "counted (%llu, %llu)",
           (unsigned long long)st->fs_cx_soft,
           (unsigned long long)st->fs_cx_soft_weight);
    fd_cons_count cnt;
    tap_ok(fd_constraint_count(c, SCHED, 3, &cnt) == 0 && cnt.cc_ncons == 2 &&
               cnt.cc_hard == 0 && cnt.cc_soft == 2 && cnt.cc_weight == 8 &&
               cnt.cc_broken[0] == 0 && cnt.cc_broken[1] == 2,
           "per application and per constraint: job 3 breaks its second "
           "constraint twice (weight 8), its first never");
    tap_ok(fd_constraint_count(c, SCHED, 2, &cnt) == 0 && cnt.cc_hard == 0 &&
               cnt.cc_soft == 0 && cnt.cc_broken[0] == 0,
           "job 2 breaks nothing");
    tap_ok(reserves(c, 4, p, 16) == 0 && st->fs_cx_waiting == 4 &&
               st->fs_cx_hard == 0,
           "db IN NODE all/nothere: nothing placed, 4 tasks wait on hard "
           "constraints, none broken (waiting %llu)",
           (unsigned long long)st->fs_cx_waiting);
    sk_status_request rq = {0};
    sk_status_reply rp;
    bool found = false;
    if (fd_core_status(c, &rq, now, &rp) == 0)
        for (uint32_t i = 0; i < rp.sr_nkv; i++)
            found = found || (strcmp(rp.sr_kv[i].kv_key,
                                     "constraint_soft_broken") == 0 &&
                              strcmp(rp.sr_kv[i].kv_value, "2") == 0);
    tap_ok(found, "the status says constraint_soft_broken 2");

    char q[32];
    snprintf(q, sizeof q, "explain 2 %u", waits);
    char *x = explain(c, now, q);
    tap_ok(x != NULL &&
               strstr(x, "why it waits on them: no node with room "
                         "meets its hard placement") != NULL &&
               strstr(x, "constraint 1 (hard) rules out") != NULL &&
               strstr(x, "tasks tagged zk2 (of this job), constraint 1 "
                         "(zk2,NOTIN,NODE,zk2) wants 0..0") != NULL,
           "flow explain of the waiting zk2 task: the reason, the hard "
           "constraint that rules nodes out, the group and the tag count");
    free(x);
    x = explain(c, now, "explain 4 0");
    tap_ok(x != NULL && strstr(x, "constraint 1 (hard) rules out") != NULL &&
               strstr(x, "0 tasks tagged nothere (of any job), constraint "
                         "1 (db,IN,NODE,all/nothere) wants 1..*") != NULL,
           "flow explain of a db task: IN NODE all/nothere rules out every "
           "node with room, none has a task tagged nothere");
    free(x);
    x = explain(c, now, "explain 3 0");
    tap_ok(x != NULL && strstr(x, "breaks it: node") != NULL &&
               strstr(x, "1 tasks tagged zk (of any job), constraint 2") !=
                   NULL &&
               strstr(x, "a soft violation, weight 4") != NULL &&
               strstr(x, "1. hb,IN,RACK,all/zk") != NULL &&
               strstr(x, "the constraint round (below) placed it on") != NULL,
           "flow explain of a placed hb task: the soft constraint it breaks, "
           "where, and its weight");
    free(x);
    x = explain(c, now, "explain 1 0");
    tap_ok(x != NULL && strstr(x, "meets the 1 constraints") != NULL,
           "flow explain of a placed zk task: it meets its constraint");
    free(x);
    fd_core_free(c);
}

/* n nodes of `slots` slots in racks of 40 (peers 1001..), heartbeating
 * at now. */
static fd_core *cluster_cfg(fd_config *cfg, uint32_t n, uint32_t slots,
                            sk_time now)
{
    cfg->fdc_algorithm = FC_ALG_SSP;
    fd_core *c = fdt_core(cfg, T0);
    for (uint32_t i = 1; i <= n; i++) {
        char name[16], rack[16];
        snprintf(name, sizeof name, "n%u", i);
        snprintf(rack, sizeof rack, "r%u", (i - 1) / 40);
        fdt_node(c, T0, 1000 + i, name, slots, rack, 1.0);
    }
    fdt_sched(c, T0, SCHED, 7);
    for (uint32_t i = 1; i <= n; i++)
        fdt_heartbeat(c, now - 100 * MS, 1000 + i, 1, slots, 0, 0, 0, NULL, 0);
    return c;
}

static fd_core *cluster(uint32_t n, uint32_t slots, sk_time now)
{
    fd_config cfg;
    fd_config_init(&cfg);
    return cluster_cfg(&cfg, n, slots, now);
}

/* The main network keeps no room for constrained tasks: a task that can
 * never be placed, older (dearer to leave waiting) than the others, no
 * longer holds a slot that stays idle. */
static void test_main_network(void)
{
    sk_time now = T0 + 1000 * MS;
    fd_core *c = cluster(2, 1, now);
    submit(c, now, 1, 1, "zk", "zk,IN,NODE,all/nothere");
    fdt_round(c, now, NULL);
    for (uint32_t k = 1; k <= 60; k++) { /* a minute of waiting: dear */
        now += 1000 * MS;
        for (uint32_t i = 1; i <= 2; i++)
            fdt_heartbeat(c, now, 1000 + i, k + 1, 1, 0, 0, 0, NULL, 0);
        fdt_round(c, now, NULL);
    }
    fdt_drain(c);
    fdt_submit(c, now, SCHED, 2, 2, true, NULL, 0);
    now += 1000 * MS;
    for (uint32_t i = 1; i <= 2; i++)
        fdt_heartbeat(c, now, 1000 + i, 62, 1, 0, 0, 0, NULL, 0);
    fdt_drain(c);
    fdt_round(c, now, NULL);
    sk_peer p[4];
    tap_ok(reserves(c, 2, p, 4) == 2 && reserves(c, 1, p, 4) == 0,
           "an unplaceable constrained task that waited a minute takes no "
           "slot of the main solve: both tasks of a new job placed on the "
           "2 slots");
    fd_core_free(c);
}

/* A round with more task-to-node pairs than FD_CX_MAX_ARCS offers only
 * some nodes, and still places every task under its constraint. */
static void test_bounded(void)
{
    sk_time now = T0 + 1000 * MS;
    fd_core *c = cluster(1200, 4, now);
    submit(c, now, 1, 300, "st", "st,CARDINALITY,NODE,st,0,1");
    tap_is_int(fdt_round(c, now, NULL), 0, "a round");
    sk_peer p[300];
    size_t n = reserves(c, 1, p, 300);
    uint32_t most = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = 0;
        for (size_t q = 0; q < n; q++)
            k += p[q] == p[i];
        most = k > most ? k : most;
    }
    const fd_stats *st = fd_core_stats(c);
    tap_ok(st->fs_cx_bounded == 1 && n == 300 && most <= 2 &&
               st->fs_cx_hard == 0,
           "300 tasks x 1,200 nodes > %u arcs: the round is bounded (%llu), "
           "places all 300 (%zu), at most 2 a node (%u)",
           FD_CX_MAX_ARCS, (unsigned long long)st->fs_cx_bounded, n, most);
    fd_core_free(c);
}

/* Placed tasks of a tag spread over the racks at no cost; an application
 * that comes later with "IN RACK that tag" then finds room (the
 * inter-application case of docs/results/medea.md). */
static void test_spread(void)
{
    /* 16 nodes of 2 slots, 4 racks of 4; 4 zk NOTIN NODE all/zk (hard) */
    small s;
    fd_cx_con zk = {
        .cc_all = true, .cc_group = SK_GROUP_NODE, .cc_ngroups = 16};
    small_init(&s, 16, 2, 4, 4, &zk, 1);
    zk.cc_gid = s.gnode;
    fd_cx_stats st;
    fd_cx_score sc;
    fd_cx_place(&s.x, &st);
    fd_cx_eval(&s.x, &sc);
    uint32_t per_rack[4] = {0};
    for (uint32_t t = 0; t < 4; t++)
        if (s.tasks[t].ck_node != FD_CX_NONE)
            per_rack[s.rack[s.tasks[t].ck_node]]++;
    tap_ok(sc.cs_unplaced == 0 && sc.cs_hard == 0 && per_rack[0] == 1 &&
               per_rack[1] == 1 && per_rack[2] == 1 && per_rack[3] == 1,
           "4 zk on 4 racks, one a rack (%u %u %u %u; spread moves %u)",
           per_rack[0], per_rack[1], per_rack[2], per_rack[3], st.xs_spread);

    /* the next round: zk fixed where it went, 20 hb IN RACK all/zk (hard)
     * on the room zk left; 16 fit on zk's racks only if zk spread */
    small h;
    fd_cx_con in = {.cc_job = 1,
                    .cc_target = 0,
                    .cc_source = 1,
                    .cc_all = true,
                    .cc_min = 1,
                    .cc_max = UINT32_MAX,
                    .cc_group = SK_GROUP_RACK,
                    .cc_ngroups = 4};
    small_init(&h, 16, 2, 4, 24, &in, 1);
    in.cc_gid = h.rack;
    uint32_t tag1 = 1;
    h.x.cx_ntags = 2;
    for (uint32_t t = 0; t < 4; t++) {
        h.tasks[t].ck_fixed = true;
        h.tasks[t].ck_node = s.tasks[t].ck_node;
        h.room[s.tasks[t].ck_node]--;
    }
    for (uint32_t t = 4; t < 24; t++) {
        h.tasks[t].ck_job = 1;
        h.tasks[t].ck_tags = &tag1;
    }
    fd_cx_place(&h.x, &st);
    fd_cx_eval(&h.x, &sc);
    tap_ok(sc.cs_unplaced == 0 && sc.cs_hard == 0,
           "then 20 hb IN RACK all/zk: all placed (waiting %llu, hard "
           "broken %llu)",
           (unsigned long long)sc.cs_unplaced, (unsigned long long)sc.cs_hard);

    /* spreading never costs: a soft affinity keeps 6 tasks in one rack */
    fd_cx_con aff = {.cc_min = 1,
                     .cc_max = UINT32_MAX,
                     .cc_weight = 1,
                     .cc_group = SK_GROUP_RACK,
                     .cc_ngroups = 4};
    small_init(&s, 16, 2, 4, 6, &aff, 1);
    aff.cc_gid = s.rack;
    fd_cx_place(&s.x, &st);
    fd_cx_eval(&s.x, &sc);
    tap_ok(sc.cs_unplaced == 0 && sc.cs_soft == 0,
           "6 tasks IN RACK of each other (soft): none broken after "
           "spreading (broken %llu, spread moves %u)",
           (unsigned long long)sc.cs_soft, st.xs_spread);
}

/* MEDEA's inter-application case in miniature, through the core: 4
 * ZooKeeper, then 60 Storm (at most 3 a node, not beside HBase), then
 * 200 HBase (on a rack holding ZooKeeper, at most 3 a node), all soft,
 * on 160 nodes of 4 slots in 4 racks of 40. HBase needs 67 nodes: more
 * than a rack, so ZooKeeper must not sit on one rack, and Storm must
 * leave room there. Then the "constraints" query: per application. */
/* Runs the next round that becomes due within 5 s, moving *now on. */
static int round_soon(fd_core *c, sk_time *now)
{
    for (int i = 0; i < 50; i++, *now += 100 * MS)
        if (fdt_round(c, *now, NULL) == 0)
            return 0;
    return SK_EAGAIN;
}

static void test_inter_apps(void)
{
    sk_time now = T0 + 1000 * MS;
    fd_core *c = cluster(160, 4, now);
    submit(c, now, 1, 4, "zk", "zk,NOTIN,NODE,all/zk,SOFT=1");
    tap_is_int(round_soon(c, &now), 0, "zk's round");
    submit(c, now, 2, 60, "st",
           "st,CARDINALITY,NODE,all/st,0,2,SOFT=1:st,NOTIN,NODE,all/hb,SOFT=1");
    tap_is_int(round_soon(c, &now), 0, "storm's round");
    submit(c, now, 3, 200, "hb",
           "hb,IN,RACK,all/zk,SOFT=1:hb,CARDINALITY,NODE,all/hb,0,2,SOFT=1");
    tap_is_int(round_soon(c, &now), 0, "hbase's round");
    const fd_stats *st = fd_core_stats(c);
    tap_ok(st->fs_cx_waiting == 0 && st->fs_cx_checked == 4 + 120 + 400 &&
               st->fs_cx_soft == 0 && st->fs_cx_spread > 0,
           "all 264 placed, %llu of %llu pairs broken (spread moves %llu, "
           "rounds cut %llu)",
           (unsigned long long)st->fs_cx_soft,
           (unsigned long long)st->fs_cx_checked,
           (unsigned long long)st->fs_cx_spread,
           (unsigned long long)st->fs_cx_cut);

    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request = (sk_status_request){
        .sq_request = 6, .sq_table = true, .sq_query = "constraints"};
    fd_core_on_msg(c, now, 200, &m);
    const sk_msg *r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    const sk_status_reply *rp = r != NULL ? &r->m_status_reply : NULL;
    bool ok = rp != NULL && rp->sr_nrows == 3 && rp->sr_ncolumns == 8 &&
              strcmp(rp->sr_columns[7], "broken") == 0;
    const char *rounds = NULL, *checked = NULL;
    for (uint32_t i = 0; ok && i < rp->sr_nkv; i++) {
        if (strcmp(rp->sr_kv[i].kv_key, "rounds") == 0)
            rounds = rp->sr_kv[i].kv_value;
        if (strcmp(rp->sr_kv[i].kv_key, "pairs_checked") == 0)
            checked = rp->sr_kv[i].kv_value;
    }
    uint32_t seen = 0;
    for (uint32_t i = 0; ok && i < rp->sr_nrows; i++) {
        const char **cl = rp->sr_rows[i].sw_cells;
        bool two = strcmp(cl[1], "1") != 0;
        seen |= 1u << atoi(cl[1]);
        ok = strcmp(cl[3], two ? "2" : "1") == 0 && strcmp(cl[5], "0") == 0 &&
             strcmp(cl[7], two ? "0,0" : "0") == 0;
    }
    tap_ok(ok && seen == 0xe && rounds != NULL && strcmp(rounds, "3") == 0 &&
               checked != NULL && strcmp(checked, "524") == 0,
           "the constraints query: 3 rounds, 524 pairs, a row per "
           "application with its constraints and none broken");
    fdt_drain(c);
    m.m_status_request.sq_query = "constraint";
    fd_core_on_msg(c, now, 200, &m);
    r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    tap_ok(r != NULL && r->m_status_reply.sr_nkv == 1 &&
               strstr(r->m_status_reply.sr_kv[0].kv_value, "constraints") !=
                   NULL,
           "an unknown query is refused, naming the constraints query");
    fd_core_free(c);
}

/* fd_cx_hold on a compact instance: node 0 holds a fixed task tagged x
 * and the only room (2); task 0 (a, soft NOTIN NODE all/x) breaks there,
 * task 1 (b, soft IN NODE a) meets its affinity only beside task 0. */
static void test_hold(void)
{
    uint32_t room[2] = {2, 0}, tx = 0, ta = 1, tb = 2;
    int32_t rack[2] = {0, 0}, gnode[2] = {0, 1};
    fd_cx_con cons[2] = {{.cc_source = 1,
                          .cc_target = 0,
                          .cc_all = true,
                          .cc_weight = 1,
                          .cc_group = SK_GROUP_NODE,
                          .cc_gid = gnode,
                          .cc_ngroups = 2},
                         {.cc_source = 2,
                          .cc_target = 1,
                          .cc_min = 1,
                          .cc_max = UINT32_MAX,
                          .cc_weight = 1,
                          .cc_group = SK_GROUP_NODE,
                          .cc_gid = gnode,
                          .cc_ngroups = 2}};
    for (int wait = 1; wait >= 0; wait--) {
        fd_cx_task tk[3] = {{.ck_job = 0, .ck_tags = &ta, .ck_ntags = 1},
                            {.ck_job = 0, .ck_tags = &tb, .ck_ntags = 1},
                            {.ck_job = 1,
                             .ck_tags = &tx,
                             .ck_ntags = 1,
                             .ck_fixed = true,
                             .ck_node = 0}};
        fd_cx x = {.cx_nnodes = 2,
                   .cx_room = room,
                   .cx_rack = rack,
                   .cx_nracks = 1,
                   .cx_tasks = tk,
                   .cx_ntasks = 3,
                   .cx_cons = cons,
                   .cx_ncons = 2,
                   .cx_ntags = 3};
        uint8_t may[3] = {(uint8_t)wait, (uint8_t)wait, (uint8_t)wait};
        fd_cx_stats st;
        uint32_t held = 9, broke = 9;
        int rc = fd_cx_place(&x, &st);
        tap_ok(rc == 0 && tk[0].ck_node == 0 && tk[1].ck_node == 0,
               "both placed beside the x task, the only room");
        rc = fd_cx_hold(&x, may, &held, &broke);
        if (wait)
            tap_ok(rc == 0 && held == 2 && broke == 0 &&
                       tk[0].ck_node == FD_CX_NONE &&
                       tk[1].ck_node == FD_CX_NONE &&
                       tk[0].ck_why == fd_cx_why_held &&
                       tk[1].ck_why == fd_cx_why_held && tk[2].ck_node == 0,
                   "may wait: the breaking task is held, then the one whose "
                   "affinity it met (held %u, left breaking %u)",
                   held, broke);
        else
            tap_ok(rc == 0 && held == 0 && broke == 1 && tk[0].ck_node == 0 &&
                       tk[1].ck_node == 0,
                   "wait over: both stay, one breaking (held %u, left "
                   "breaking %u)",
                   held, broke);
    }
}

/* The held-cap instance: a fixed st task on node 0 wants no hb beside
 * it (soft, across jobs), two hb tasks wait, and the only room is on
 * node 0. hold_cap_init fills h, whose fields point into h. */
typedef struct hold_cap {
    uint32_t room[2], thb, tst;
    int32_t rack[2], gnode[2];
    fd_cx_con con;
    fd_cx_task tk[3];
    fd_cx x;
} hold_cap;

static void hold_cap_init(hold_cap *h)
{
    *h = (hold_cap){.room = {2, 0}, .thb = 0, .tst = 1, .gnode = {0, 1}};
    h->con = (fd_cx_con){.cc_job = 1,
                         .cc_source = 1,
                         .cc_target = 0,
                         .cc_all = true,
                         .cc_weight = 1,
                         .cc_group = SK_GROUP_NODE,
                         .cc_gid = h->gnode,
                         .cc_ngroups = 2};
    for (int i = 0; i < 2; i++)
        h->tk[i] = (fd_cx_task){.ck_job = 0, .ck_tags = &h->thb, .ck_ntags = 1};
    h->tk[2] = (fd_cx_task){.ck_job = 1,
                            .ck_tags = &h->tst,
                            .ck_ntags = 1,
                            .ck_fixed = true,
                            .ck_node = 0};
    h->x = (fd_cx){.cx_nnodes = 2,
                   .cx_room = h->room,
                   .cx_rack = h->rack,
                   .cx_nracks = 1,
                   .cx_tasks = h->tk,
                   .cx_ntasks = 3,
                   .cx_cons = &h->con,
                   .cx_ncons = 1,
                   .cx_ntags = 2};
}

/* fd_cx_hold of tasks that break another task's cap, not their own: a
 * fixed st task wants no hb beside it (soft), and the only room is there:
 * both hb tasks wait (one would still break it). */
static void test_hold_cap(void)
{
    hold_cap h;
    hold_cap_init(&h);
    fd_cx *x = &h.x;
    const fd_cx_task *tk = h.tk;
    uint8_t may[3] = {1, 1, 1};
    fd_cx_stats st;
    uint32_t held = 9, broke = 9;
    int rc = fd_cx_place(x, &st);
    rc = rc != 0 ? rc : fd_cx_hold(x, may, &held, &broke);
    tap_ok(rc == 0 && held == 2 && broke == 0 && tk[0].ck_node == FD_CX_NONE &&
               tk[1].ck_node == FD_CX_NONE,
           "2 hb beside a st that wants none (soft): both held, not only "
           "one (held %u)",
           held);
}

/* fd_cx_probe is sound: on random instances shaped like MEDEA's (hard
 * and soft, node, rack and label groups, some tasks running), the tasks
 * of one job to place, with every task, none or some allowed to wait, no
 * task fd_cx_place and fd_cx_hold
 * leave placed sits on a node the probe ruled out; and it does rule out
 * nodes with room (else it would be no test). The held hb of
 * test_hold_cap: no node while they may wait, node 0 once they may not. */
static void test_probe(void)
{
    uint32_t runs = 0, unsound = 0, ruled = 0, nomem = 0, none = 0;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        medea_inst mi;
        uint32_t nodes = 6 + (uint32_t)(seed % 7) * 2;
        uint32_t tasks = 12 + (uint32_t)(seed % 5) * 6;
        if (medea_gen(&mi, seed, nodes, tasks, 1 + (uint32_t)(seed % 3)) != 0)
            continue;
        fd_cx *x = &mi.mi_x;
        uint8_t may[256], cand[64];
        /* one job's tasks to place, the others' set aside (fixed
         * nowhere: counted nowhere, placed by no one) */
        for (uint32_t i = 0; i < x->cx_ntasks; i++)
            if (!x->cx_tasks[i].ck_fixed &&
                x->cx_tasks[i].ck_job != (uint32_t)(seed / 3 % 4))
                x->cx_tasks[i].ck_fixed = true;
        for (uint32_t i = 0; i < x->cx_ntasks && i < 256; i++)
            may[i] = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 0 : (i + seed) % 2;
        uint32_t ncand = 0, held, broke;
        fd_cx_stats st;
        if (x->cx_ntasks > 256 || x->cx_nnodes > 64 ||
            fd_cx_probe(x, may, cand, &ncand) != 0 ||
            fd_cx_place(x, &st) != 0 ||
            fd_cx_hold(x, may, &held, &broke) != 0) {
            nomem++;
            medea_gen_free(&mi);
            continue;
        }
        runs++;
        none += ncand == 0;
        for (uint32_t n = 0; n < x->cx_nnodes; n++)
            ruled += x->cx_room[n] > 0 && !cand[n];
        for (uint32_t i = 0; i < x->cx_ntasks; i++) {
            const fd_cx_task *t = &x->cx_tasks[i];
            if (!t->ck_fixed && t->ck_node != FD_CX_NONE && !cand[t->ck_node]) {
                unsound++;
                tap_diag("seed %llu: task %u placed on node %d, ruled out",
                         (unsigned long long)seed, i, t->ck_node);
            }
        }
        medea_gen_free(&mi);
    }
    tap_ok(runs >= 100 && nomem == 0 && unsound == 0 && ruled > 0,
           "the probe is sound on %u random instances: no task placed on a "
           "node it ruled out (%u), %u nodes with room ruled out, %u "
           "instances with none left",
           runs, unsound, ruled, none);
    hold_cap h;
    hold_cap_init(&h);
    fd_cx *x = &h.x;
    uint8_t may[2][3] = {{1, 1, 0}, {0, 0, 0}}, cand[2][2];
    uint32_t nc[2] = {9, 9};
    int rc = fd_cx_probe(x, may[0], cand[0], &nc[0]);
    rc = rc != 0 ? rc : fd_cx_probe(x, may[1], cand[1], &nc[1]);
    tap_ok(rc == 0 && nc[0] == 0 && nc[1] == 1 && cand[1][0] == 1 &&
               cand[1][1] == 0,
           "2 hb that may wait, the only room beside a st that wants none: "
           "no node (%u); wait over: that node (%u)",
           nc[0], nc[1]);
}

/* def: the defaults, with nodes kept up and RESERVEs unanswered through
 * cx_wait_ms's default wait (and a minute more); returns that wait. */
static sk_time wait_config(fd_config *def)
{
    fd_config_init(def);
    def->fdc_node_timeout_ms = def->fdc_reserve_timeout_ms =
        def->fdc_cx_wait_ms + 60000;
    return (sk_time)def->fdc_cx_wait_ms * MS;
}

/* 2 nodes of 2 slots under def and a zk task (zk NOTIN NODE zk) placed on
 * each by a round at *now, which moves past it. */
static fd_core *zk_cluster(fd_config *def, sk_time *now)
{
    fd_core *c = cluster_cfg(def, 2, 2, *now);
    submit(c, *now, 1, 2, "zk", "zk,NOTIN,NODE,zk");
    round_soon(c, now);
    return c;
}

/* The bounded wait through the core (cx_wait_ms, time as input): 2
 * nodes of 2 slots, a zk task on each; st tasks (soft NOTIN NODE all/zk)
 * are held while every place breaks it, placed on a node that comes
 * during the wait, or, with none, with the break once the wait is over. */
static void test_wait(void)
{
    fd_config def;
    sk_time wait = wait_config(&def);
    for (int comes = 1; comes >= 0; comes--) {
        sk_time now = T0 + 1000 * MS;
        fd_core *c = zk_cluster(&def, &now);
        submit(c, now, 2, 2, "st", "st,NOTIN,NODE,all/zk,SOFT=1");
        sk_time sub = now;
        fdt_drain(c);
        round_soon(c, &now);
        sk_peer p[4];
        const fd_stats *st = fd_core_stats(c);
        const char *why = fd_constraint_why(c, SCHED, 2, 0);
        tap_ok(reserves(c, 2, p, 4) == 0 && st->fs_cx_held == 2 &&
                   why == fd_cx_why_held,
               "%s: the 2 st tasks are held, not placed beside zk (held %llu)",
               comes ? "a node comes" : "none comes",
               (unsigned long long)st->fs_cx_held);
        if (comes) {
            char *x = explain(c, now, "explain 2 1");
            tap_ok(x != NULL &&
                       strstr(x, "why it waits on them: every place with "
                                 "room now breaks a soft constraint") != NULL &&
                       strstr(x, "0 of them meet all its hard and soft") !=
                           NULL &&
                       strstr(x, "constraint 1 (soft) rules out 2") != NULL,
                   "flow explain says why it waits and which soft constraint "
                   "rules out the nodes");
            free(x);
            fdt_drain(c);
            sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
            m.m_status_request = (sk_status_request){
                .sq_request = 7, .sq_table = true, .sq_query = "constraints"};
            fd_core_on_msg(c, now, 200, &m);
            const sk_msg *r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
            const char *held = NULL;
            for (uint32_t i = 0; r != NULL && i < r->m_status_reply.sr_nkv; i++)
                if (strcmp(r->m_status_reply.sr_kv[i].kv_key, "held") == 0)
                    held = r->m_status_reply.sr_kv[i].kv_value;
            tap_ok(held != NULL && strcmp(held, "2") == 0,
                   "the constraints query says held 2 (%s)",
                   held ? held : "none");
            now += 300 * MS;
            fdt_node(c, now, 1003, "n3", 4, "r0", 1.0);
            fdt_heartbeat(c, now, 1003, 1, 4, 0, 0, 0, NULL, 0);
        }
        size_t n = 0;
        while (n == 0 && now < sub + wait + 2000 * MS) {
            now += 100 * MS;
            fdt_drain(c);
            fd_core_on_timer(c, now);
            if (fdt_round(c, now, NULL) == 0)
                n = reserves(c, 2, p, 4);
        }
        if (comes)
            tap_ok(n == 2 && p[0] == 1003 && p[1] == 1003 && now < sub + wait &&
                       st->fs_cx_soft == 0 && st->fs_cx_expired == 0,
                   "placed on the new node %.0f ms after they came, nothing "
                   "broken (soft broken %llu)",
                   (double)(now - sub) / MS,
                   (unsigned long long)st->fs_cx_soft);
        else
            tap_ok(n == 2 && now >= sub + wait &&
                       now <= sub + wait + 200 * MS && st->fs_cx_soft == 2 &&
                       st->fs_cx_expired == 2 && st->fs_cx_waiting == 0,
                   "placed breaking it at the first round after the wait of "
                   "%lld ms (%.0f ms; soft broken %llu, after the wait %llu)",
                   (long long)def.fdc_cx_wait_ms, (double)(now - sub) / MS,
                   (unsigned long long)st->fs_cx_soft,
                   (unsigned long long)st->fs_cx_expired);
        fd_core_free(c);
    }
}

/* Drive the core as the daemon does, from *now to until: the clock
 * jumps to its next deadline, the timer fires, a round runs if due. */
static void idle(fd_core *c, sk_time *now, sk_time until)
{
    for (;;) {
        sk_time d = fd_core_next_deadline(c);
        if (d > until)
            break;
        *now = d > *now ? d : *now;
        fdt_drain(c);
        fd_core_on_timer(c, *now);
        fdt_round(c, *now, NULL);
    }
    *now = until;
}

/* A held task is tried again only when something changes, or once its
 * wait is over (time as input, the clock moved as the daemon moves it):
 * 2 nodes of 2 slots, a zk task on each, an st task (soft NOTIN NODE
 * all/zk) held; then a zk task ends (a slot frees), or a node comes, or
 * nothing happens. */
static void test_wait_events(void)
{
    static const char *what[4] = {"nothing changes", "a zk task ends",
                                  "a node comes", "a plain job comes"};
    fd_config def;
    sk_time wait = wait_config(&def);
    for (int ev = 0; ev < 4; ev++) {
        sk_time now = T0 + 1000 * MS;
        fd_core *c = zk_cluster(&def, &now);
        sk_reserve zk = {0};
        sk_peer zk_at = 0;
        const sk_msg *m = fdt_nth(c, SK_MSG_RESERVE, 0, &zk_at);
        if (m != NULL)
            zk = m->m_reserve;
        submit(c, now, 2, 1, "st", "st,NOTIN,NODE,all/zk,SOFT=1");
        sk_time sub = now;
        round_soon(c, &now);
        const fd_stats *st = fd_core_stats(c);
        uint64_t rounds = st->fs_rounds, cx = st->fs_cx_rounds;
        sk_peer p[2];
        tap_ok(st->fs_cx_held == 1 && zk_at != 0 &&
                   fd_core_next_deadline(c) == sub + wait,
               "%s: st held, the next deadline is its wait's end (%+.0f ms)",
               what[ev], (double)(fd_core_next_deadline(c) - sub - wait) / MS);
        idle(c, &now, sub + 2000 * MS);
        tap_ok(st->fs_rounds == rounds && st->fs_cx_rounds == cx,
               "%s: no round while nothing changes (rounds %llu, constraint "
               "rounds %llu more)",
               what[ev], (unsigned long long)(st->fs_rounds - rounds),
               (unsigned long long)(st->fs_cx_rounds - cx));
        sk_peer want = 0;
        if (ev == 1) {
            sk_msg f = {.m_type = SK_MSG_TASK_FINISHED};
            f.m_task_finished = (sk_task_finished){.tf_job = 1,
                                                   .tf_task = zk.rv_task,
                                                   .tf_attempt = zk.rv_attempt,
                                                   .tf_node = "",
                                                   .tf_status = SK_TASK_OK};
            fdt_drain(c);
            fd_core_on_msg(c, now, SCHED, &f);
            want = zk_at;
        } else if (ev == 2) {
            fdt_node(c, now, 1003, "n3", 2, "r0", 1.0);
            fdt_heartbeat(c, now, 1003, 1, 2, 0, 0, 0, NULL, 0);
            want = 1003;
        } else if (ev == 3) {
            plain(c, now, 3, 1);
        }
        sk_time change = now;
        uint64_t ruled = st->fs_cx_ruled_out;
        size_t n = 0;
        while (n == 0 && now < sub + wait + 1000 * MS) {
            idle(c, &now, now + 100 * MS);
            n = reserves(c, 2, p, 2);
        }
        if (ev == 3)
            tap_ok(n == 1 && now >= sub + wait &&
                       now <= sub + wait + 200 * MS && st->fs_cx_expired == 1 &&
                       st->fs_cx_rounds == cx + 1 &&
                       st->fs_cx_ruled_out > ruled,
                   "%s: its tasks change, no place frees: the probe rules "
                   "the constraint round out (%llu); placed breaking at "
                   "the wait's end (%+.0f ms), by one constraint round",
                   what[ev], (unsigned long long)(st->fs_cx_ruled_out - ruled),
                   (double)(now - sub - wait) / MS);
        else if (ev == 0)
            tap_ok(n == 1 && now >= sub + wait &&
                       now <= sub + wait + 200 * MS && st->fs_cx_expired == 1 &&
                       st->fs_cx_rounds == cx + 1,
                   "%s: placed breaking it at the wait's end (%+.0f ms), by "
                   "one constraint round",
                   what[ev], (double)(now - sub - wait) / MS);
        else
            tap_ok(n == 1 && p[0] == want && now <= change + 200 * MS &&
                       st->fs_cx_soft == 0 && st->fs_cx_expired == 0,
                   "%s: tried again at once, placed there %.0f ms after it, "
                   "nothing broken",
                   what[ev], (double)(now - change) / MS);
        fd_core_free(c);
    }
}

/* A held task whose wait ends with no room anywhere: the step's probe
 * finds no node, places nothing, and says why it waits now (no room, not
 * held): 2 nodes of 2 slots, a zk task on each, st (soft NOTIN NODE
 * all/zk) held, then a plain job takes the last 2 slots. */
static void test_wait_over_full(void)
{
    fd_config def;
    sk_time wait = wait_config(&def);
    sk_time now = T0 + 1000 * MS;
    fd_core *c = zk_cluster(&def, &now);
    submit(c, now, 2, 1, "st", "st,NOTIN,NODE,all/zk,SOFT=1");
    sk_time sub = now;
    round_soon(c, &now);
    const fd_stats *st = fd_core_stats(c);
    const char *held = fd_constraint_why(c, SCHED, 2, 0);
    plain(c, now, 3, 2);
    round_soon(c, &now);
    uint64_t cx = st->fs_cx_rounds, ruled = st->fs_cx_ruled_out;
    idle(c, &now, sub + wait + 1000 * MS);
    sk_peer p[1];
    const char *why = fd_constraint_why(c, SCHED, 2, 0);
    tap_ok(held == fd_cx_why_held && st->fs_cx_rounds == cx &&
               st->fs_cx_ruled_out > ruled && reserves(c, 2, p, 1) == 0 &&
               why != NULL && strcmp(why, "no node has room") == 0,
           "wait over, no room left: the probe places nothing (constraint "
           "rounds %llu more, ruled out %llu more) and it waits for room, "
           "not held (%s)",
           (unsigned long long)(st->fs_cx_rounds - cx),
           (unsigned long long)(st->fs_cx_ruled_out - ruled),
           why != NULL ? why : "no reason");
    fd_core_free(c);
}

int main(void)
{
    tap_plan_lazy();
    test_exact_caps();
    test_spread();
    test_flowd();
    test_main_network();
    test_bounded();
    test_inter_apps();
    test_hold();
    test_wait_events();
    test_hold_cap();
    test_probe();
    test_wait();
    test_wait_over_full();
    test_oracle();
    tap_done();
    return tap_exit_status();
}
