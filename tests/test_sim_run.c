/*
 * test_sim_run.c - skylark-sim's runs, every strategy end to end:
 *
 *  - a tiny cluster replays a hand-computed schedule to the microsecond
 *    (the real cores included: three network legs before a task starts,
 *    late binding, the cancellation of leftover probes);
 *  - the same seed gives byte-identical records and summary, another
 *    seed does not; a late-binding run split over threads (sim_par.h)
 *    gives the same on any number of them, and crosses a long quiet
 *    stretch at once;
 *  - the real cores give the same results whether messages are copied
 *    flat or go through the protocol's encoder and decoder;
 *  - conservation: every task of every job that arrives ends exactly
 *    once, with invariants checked after every event (--check);
 *  - the omniscient scheduler never leaves a slot idle while a task
 *    waits, checked on its records (and the same check does catch
 *    random placement doing so);
 *  - a job file written during a run replays to the same records.
 */
#include "sim.h"
#include "sim_report.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_sim_run.XXXXXX";

/* What one run wrote. */
typedef struct run_out {
    char *jobs;
    size_t jobs_len;
    char *tasks;
    size_t tasks_len;
    char *summary;
    size_t summary_len;
    int rc;
    char err[600];
    sim_stats st;
} run_out;

static void run(sim_params *p, sim_names *names, run_out *o)
{
    memset(o, 0, sizeof *o);
    FILE *jf = open_memstream(&o->jobs, &o->jobs_len);
    FILE *tf = open_memstream(&o->tasks, &o->tasks_len);
    p->p_jobs_out = jf;
    p->p_tasks_out = tf;
    sim_point pt = {.pt_p = *p};
    bool bad;
    o->rc = sim_run(p, names, NULL, &pt.pt_r, &bad, o->err, sizeof o->err);
    fclose(jf);
    fclose(tf);
    p->p_jobs_out = p->p_tasks_out = NULL;
    FILE *sf = open_memstream(&o->summary, &o->summary_len);
    if (o->rc == 0) {
        pt.pt_closed = sim_point_closed_form(p);
        sim_report_print(sf, &pt, names, 0, 1);
        o->st = pt.pt_r.r_st;
        memset(&pt.pt_r.r_st, 0, sizeof pt.pt_r.r_st);
    } else {
        tap_diag("run failed: %s", o->err);
    }
    fclose(sf);
}

static void run_free(run_out *o)
{
    free(o->jobs);
    free(o->tasks);
    free(o->summary);
    sim_stats_fini(&o->st);
}

static bool same_output(const run_out *a, const run_out *b)
{
    return a->rc == 0 && b->rc == 0 && a->jobs_len == b->jobs_len &&
           a->tasks_len == b->tasks_len && a->summary_len == b->summary_len &&
           memcmp(a->jobs, b->jobs, a->jobs_len) == 0 &&
           memcmp(a->tasks, b->tasks, a->tasks_len) == 0 &&
           memcmp(a->summary, b->summary, a->summary_len) == 0;
}

/* A per-task record. */
typedef struct trow {
    uint64_t job;
    uint32_t task;
    uint64_t submit, start, end;
    char status[16];
    int queued;
} trow;

static uint32_t parse_tasks(const char *csv, trow **out)
{
    uint32_t n = 0, cap = 1024;
    trow *rows = malloc(cap * sizeof *rows);
    const char *line = strchr(csv, '\n'); /* skip the header */
    while (line != NULL && line[1] != '\0') {
        line++;
        if (n == cap)
            rows = realloc(rows, (cap *= 2) * sizeof *rows);
        trow *r = &rows[n];
        unsigned long long job, submit, start, end, wait;
        unsigned task, attempt;
        char node[32];
        int cut;
        if (sscanf(line, "%llu,%u,%u,%31[^,],%llu,%llu,%llu,%llu,%15[^,],%d,%d",
                   &job, &task, &attempt, node, &submit, &start, &end, &wait,
                   r->status, &r->queued, &cut) != 11 &&
            sscanf(line, "%llu,%u,%u,,%llu,%llu,%llu,%llu,%15[^,],%d,%d", &job,
                   &task, &attempt, &submit, &start, &end, &wait, r->status,
                   &r->queued, &cut) != 10)
            break;
        r->job = job;
        r->task = task;
        r->submit = submit;
        r->start = start;
        r->end = end;
        n++;
        line = strchr(line, '\n');
    }
    *out = rows;
    return n;
}

/* The response time of job seq in the per-job CSV, or -1. */
static int64_t response_of(const char *csv, uint64_t seq)
{
    const char *line = strchr(csv, '\n');
    while (line != NULL && line[1] != '\0') {
        line++;
        unsigned long long job, id, arr, first, end, resp;
        char user[64], cls[16];
        unsigned prio, tasks;
        if (sscanf(line, "%llu,%llu,%63[^,],%u,%15[^,],%u,%llu,%llu,%llu,%llu",
                   &job, &id, user, &prio, cls, &tasks, &arr, &first, &end,
                   &resp) == 10 &&
            job == seq)
            return (int64_t)resp;
        line = strchr(line, '\n');
    }
    return -1;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* replay_params sets p to replay the job file at path on nodes nodes
 * with strategy s, every job measured, until the cluster is empty. */
static void replay_params(sim_params *p, const char *path, uint32_t nodes,
                          sim_strategy_id s)
{
    sim_params_init(p);
    p->p_nodes = nodes;
    p->p_strategy = s;
    p->p_jobs_file = path;
    p->p_jobs = 0;
    p->p_warmup = 0;
    p->p_drain = true;
}

/* ---- a hand-computed schedule ------------------------------------------ */

static void test_hand_schedule(void)
{
    /* One node with two slots, a 0.5 ms delay. Job 0: three 10 ms tasks
     * at t=0; job 1: one 5 ms task at t=1 ms. Worked out by hand in
     * docs/results/sparrow.md ("A schedule by hand"). */
    const char *path = write_file("hand.csv", "0,1,u,0,short,3,10000;10000;"
                                              "10000,,\n"
                                              "1000,2,u,0,short,1,5000,,\n");
    static const struct {
        sim_strategy_id s;
        uint64_t start[4]; /* job 0 tasks 0-2, job 1 task 0 */
        int queued[4];
        int64_t resp[2];
    } want[] = {
        {SIM_LATE, {1500, 1500, 12500, 13500}, {0, 0, 1, 1}, {23000, 18000}},
        {SIM_OMNI, {0, 0, 10000, 10000}, {0, 0, 1, 1}, {20000, 14000}},
        {SIM_RANDOM, {500, 500, 10500, 10500}, {0, 0, 1, 1}, {21000, 15000}},
        {SIM_BATCH, {1500, 1500, 11500, 11500}, {0, 0, 1, 1}, {22000, 16000}},
        {SIM_PERTASK, {1500, 1500, 11500, 11500}, {0, 0, 1, 1}, {22000, 16000}},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        static sim_names names;
        memset(&names, 0, sizeof names);
        sim_params p;
        replay_params(&p, path, 1, want[k].s);
        p.p_slots = 2;
        p.p_check = true;
        run_out o;
        run(&p, &names, &o);
        trow *rows;
        uint32_t n = parse_tasks(o.tasks ? o.tasks : "", &rows);
        bool ok = o.rc == 0 && n == 4;
        for (uint32_t i = 0; ok && i < n; i++) {
            uint32_t idx = rows[i].job == 0 ? rows[i].task : 3;
            uint64_t dur = rows[i].job == 0 ? 10000 : 5000;
            ok &= rows[i].start == want[k].start[idx] &&
                  rows[i].end == want[k].start[idx] + dur &&
                  rows[i].queued == want[k].queued[idx] &&
                  strcmp(rows[i].status, "ok") == 0;
            if (!ok)
                tap_diag("job %llu task %u: start %llu end %llu queued %d",
                         (unsigned long long)rows[i].job, rows[i].task,
                         (unsigned long long)rows[i].start,
                         (unsigned long long)rows[i].end, rows[i].queued);
        }
        int64_t r0 = o.jobs ? response_of(o.jobs, 0) : -1;
        int64_t r1 = o.jobs ? response_of(o.jobs, 1) : -1;
        tap_ok(ok && r0 == want[k].resp[0] && r1 == want[k].resp[1],
               "%s: the hand-computed schedule (responses %lld and %lld us)",
               sim_strategy_get(want[k].s)->ss_name, (long long)r0,
               (long long)r1);
        free(rows);
        run_free(&o);
    }
}

/* ---- a workload with every feature -------------------------------------- */

static void rich_params(sim_params *p, sim_names *names, sim_strategy_id s)
{
    memset(names, 0, sizeof *names);
    uint32_t u, gpu;
    sim_names_user(names, "alice", 5, &u);
    names->n_users[u].u_weight = 3;
    names->n_users[u].u_share = 2;
    sim_names_user(names, "bob", 3, &u);
    names->n_users[u].u_share = 1;
    names->n_users[u].u_prio = 2;
    sim_names_label(names, "gpu", 3, &gpu);
    sim_params_init(p);
    p->p_nodes = 40;
    p->p_slots = 4;
    p->p_scheds = 2;
    p->p_strategy = s;
    p->p_nnode_labels = 1;
    p->p_node_label[0] = gpu;
    p->p_node_label_share[0] = 0.25;
    p->p_gen.g_load = 0.7;
    p->p_gen.g_tasks = 12;
    p->p_gen.g_slots = 160;
    p->p_gen.g_nodes = 40;
    p->p_gen.g_nlabel_reqs = 1;
    p->p_gen.g_label[0] = gpu;
    p->p_gen.g_label_share[0] = 0.1;
    p->p_gen.g_pref_share = 0.2;
    p->p_gen.g_pref_count = 3;
    p->p_jobs = 250;
    p->p_warmup = 50;
    p->p_seed = 7;
}

static void test_determinism(void)
{
    for (int s = 0; s < SIM_NSTRATEGIES; s++) {
        static sim_names names;
        sim_params p;
        run_out a, b, c;
        rich_params(&p, &names, (sim_strategy_id)s);
        run(&p, &names, &a);
        rich_params(&p, &names, (sim_strategy_id)s);
        run(&p, &names, &b);
        rich_params(&p, &names, (sim_strategy_id)s);
        p.p_seed = 8;
        run(&p, &names, &c);
        tap_ok(same_output(&a, &b) && a.tasks_len > 1000,
               "%s: the same seed gives the same records and summary, byte "
               "for byte",
               sim_strategy_get((sim_strategy_id)s)->ss_name);
        tap_ok(c.rc == 0 && !same_output(&a, &c),
               "%s: another seed gives other results",
               sim_strategy_get((sim_strategy_id)s)->ss_name);
        run_free(&a);
        run_free(&b);
        run_free(&c);
    }
}

static void test_threads(void)
{
    static const uint32_t threads[] = {1, 2, 3, 5};
    for (int uniform = 0; uniform < 2; uniform++) {
        static sim_names names;
        sim_params p;
        run_out base;
        rich_params(&p, &names, SIM_LATE);
        p.p_threads = threads[0];
        if (uniform)
            p.p_delay_kind = SIM_DELAY_UNIFORM;
        run(&p, &names, &base);
        bool same = base.rc == 0 && base.tasks_len > 1000;
        for (size_t k = 1; k < sizeof threads / sizeof threads[0]; k++) {
            run_out o;
            rich_params(&p, &names, SIM_LATE);
            p.p_threads = threads[k];
            if (uniform)
                p.p_delay_kind = SIM_DELAY_UNIFORM;
            run(&p, &names, &o);
            if (!same_output(&base, &o)) {
                tap_diag("%u threads differ from one", threads[k]);
                same = false;
            }
            run_free(&o);
        }
        tap_ok(same,
               "late-binding, %s delay: 1, 2, 3 and 5 threads give the same "
               "records and summary, byte for byte",
               uniform ? "uniform" : "fixed");
        run_free(&base);
    }
}

/* Two equal jobs 60,000 s apart: a split run crosses the quiet stretch
 * between them in a few windows (stepping through its 480 million
 * windows of 0.125 ms would take minutes), and the second job fares as
 * the first did. */
static void test_quiet_stretch(void)
{
    const char *path =
        write_file("quiet.csv", "0,1,u,0,short,4,10000;10000;10000;10000,,\n"
                                "60000000000,2,u,0,short,4,10000;10000;"
                                "10000;10000,,\n");
    run_out o[2];
    clock_t cpu = clock();
    for (uint32_t t = 0; t < 2; t++) {
        static sim_names names;
        memset(&names, 0, sizeof names);
        sim_params p;
        replay_params(&p, path, 8, SIM_LATE);
        p.p_threads = t + 1;
        run(&p, &names, &o[t]);
    }
    double secs = (double)(clock() - cpu) / CLOCKS_PER_SEC;
    int64_t first = response_of(o[0].jobs ? o[0].jobs : "", 0);
    int64_t second = response_of(o[0].jobs ? o[0].jobs : "", 1);
    tap_ok(o[0].rc == 0 && o[0].st.st_done == 2 && first > 0 &&
               first == second && same_output(&o[0], &o[1]) && secs < 10,
           "a split run crosses 60,000 quiet seconds in %.2f s of CPU, on 1 "
           "and 2 threads alike; the job after them takes as long as the one "
           "before (%lld and %lld us)",
           secs, (long long)first, (long long)second);
    run_free(&o[0]);
    run_free(&o[1]);
}

static void test_wire(void)
{
    static sim_names names;
    sim_params p;
    run_out a, b;
    rich_params(&p, &names, SIM_LATE);
    run(&p, &names, &a);
    rich_params(&p, &names, SIM_LATE);
    p.p_wire = true;
    run(&p, &names, &b);
    tap_ok(same_output(&a, &b),
           "late-binding: flat copies and the protocol codec give the same "
           "results");
    run_free(&a);
    run_free(&b);
}

static int cmp_row(const void *x, const void *y)
{
    const trow *a = x, *b = y;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    return (a->task > b->task) - (a->task < b->task);
}

/* Failed tasks per strategy in test_conservation: the ones no node may
 * run (their preferred nodes lack the job's label). */
static uint64_t failed_by[SIM_NSTRATEGIES];

static void test_conservation(void)
{
    for (int s = 0; s < SIM_NSTRATEGIES; s++) {
        static sim_names names;
        sim_params p;
        rich_params(&p, &names, (sim_strategy_id)s);
        p.p_drain = true;
        p.p_check = true;
        run_out o;
        run(&p, &names, &o);
        trow *rows;
        uint32_t n = parse_tasks(o.tasks ? o.tasks : "", &rows);
        qsort(rows, n, sizeof *rows, cmp_row);
        /* Each job's tasks 0..m-1 exactly once, m = 12. */
        bool once = o.rc == 0;
        uint64_t ok = 0, failed = 0, jobs = 0;
        for (uint32_t i = 0; i < n; i++) {
            bool first = i == 0 || rows[i].job != rows[i - 1].job;
            jobs += first;
            once &= first ? rows[i].task == 0
                          : rows[i].task == rows[i - 1].task + 1;
            once &= i + 1 == n || rows[i + 1].job != rows[i].job ||
                    rows[i].task + 1 < 12;
            ok += strcmp(rows[i].status, "ok") == 0;
            failed += strcmp(rows[i].status, "failed") == 0;
            once &= rows[i].start >= rows[i].submit || rows[i].start == 0;
        }
        const sim_stats *st = &o.st;
        tap_ok(once && n == st->st_tasks_submitted - 12 * st->st_rejected &&
                   ok + failed == n && st->st_arrived == 300 &&
                   st->st_done + st->st_rejected == st->st_arrived &&
                   st->st_busy == 0,
               "%s: %u tasks of %llu jobs, each ended exactly once (%llu "
               "ok, %llu failed, %llu jobs rejected), no slot left busy",
               sim_strategy_get((sim_strategy_id)s)->ss_name, n,
               (unsigned long long)jobs, (unsigned long long)ok,
               (unsigned long long)failed, (unsigned long long)st->st_rejected);
        failed_by[s] = failed;
        free(rows);
        run_free(&o);
    }
    /* The same workload and constraints: the real cores fail the same
     * tasks as the models, also with two schedulers whose job ids are
     * equal (node monitors name jobs to executors by node-local ids). */
    tap_ok(failed_by[SIM_LATE] == failed_by[SIM_OMNI],
           "late-binding fails only the tasks no node may run (%llu, "
           "omniscient %llu)",
           (unsigned long long)failed_by[SIM_LATE],
           (unsigned long long)failed_by[SIM_OMNI]);
}

/* ---- the omniscient scheduler keeps every slot busy while tasks wait ---- */

typedef struct edge {
    uint64_t t;
    int busy, waiting;
} edge;

static int cmp_edge(const void *x, const void *y)
{
    const edge *a = x, *b = y;
    return (a->t > b->t) - (a->t < b->t);
}

/* idle_while_waiting counts the instants (between record boundaries) at
 * which some task had arrived and not started while a slot was free. */
static uint64_t idle_while_waiting(const trow *rows, uint32_t n, int slots)
{
    edge *e = malloc(4 * (size_t)n * sizeof *e);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        e[k++] = (edge){rows[i].submit, 0, +1};
        e[k++] = (edge){rows[i].start, +1, -1};
        e[k++] = (edge){rows[i].end, -1, 0};
    }
    qsort(e, k, sizeof *e, cmp_edge);
    int busy = 0, waiting = 0;
    uint64_t bad = 0;
    for (uint32_t i = 0; i < k; i++) {
        busy += e[i].busy;
        waiting += e[i].waiting;
        /* Judge the interval after the last change at this instant. */
        if ((i + 1 == k || e[i + 1].t != e[i].t) && waiting > 0 && busy < slots)
            bad++;
    }
    free(e);
    return bad;
}

static void test_omniscient_busy(void)
{
    static const sim_strategy_id which[2] = {SIM_OMNI, SIM_RANDOM};
    uint64_t bad[2] = {0, 0};
    uint32_t n[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
        static sim_names names;
        memset(&names, 0, sizeof names);
        sim_params p;
        sim_params_init(&p);
        p.p_nodes = 30;
        p.p_slots = 4;
        p.p_strategy = which[w];
        p.p_gen.g_load = 0.9;
        p.p_gen.g_tasks = 15;
        p.p_gen.g_dist = (sim_dist){SIM_DIST_PARETO, 100000, 1.5};
        p.p_gen.g_slots = 120;
        p.p_gen.g_nodes = 30;
        p.p_jobs = 400;
        p.p_warmup = 0;
        p.p_drain = true;
        p.p_check = true;
        run_out o;
        run(&p, &names, &o);
        trow *rows;
        n[w] = parse_tasks(o.tasks ? o.tasks : "", &rows);
        bad[w] = idle_while_waiting(rows, n[w], 120);
        free(rows);
        run_free(&o);
    }
    tap_ok(n[0] == 6000 && bad[0] == 0,
           "omniscient: over %u tasks at load 0.9, no instant with a free "
           "slot and a waiting task",
           n[0]);
    tap_ok(n[1] == 6000 && bad[1] > 0,
           "the same check finds %llu such instants under random placement",
           (unsigned long long)bad[1]);
}

/* ---- a job file written by a run replays to the same records ------------ */

static void test_replay(void)
{
    static sim_names names;
    char path[256];
    snprintf(path, sizeof path, "%s/written.csv", tmpdir);
    sim_params p;
    rich_params(&p, &names, SIM_LATE);
    p.p_drain = true;
    FILE *wf = fopen(path, "w");
    sim_jobs_header(wf, "test");
    p.p_write_jobs = wf;
    run_out a, b;
    run(&p, &names, &a);
    fclose(wf);
    rich_params(&p, &names, SIM_LATE);
    p.p_drain = true;
    p.p_jobs_file = path;
    run(&p, &names, &b);
    tap_ok(a.rc == 0 && b.rc == 0 && a.tasks_len == b.tasks_len &&
               memcmp(a.tasks, b.tasks, a.tasks_len) == 0 &&
               a.jobs_len == b.jobs_len &&
               memcmp(a.jobs, b.jobs, a.jobs_len) == 0,
           "the jobs a run wrote replay to the same per-job and per-task "
           "records");
    run_free(&a);
    run_free(&b);
}

/* ---- long jobs, unsatisfiable labels, bad input ------------------------- */

static void test_outcomes(void)
{
    const char *path =
        write_file("mixed.csv", "0,1,u,0,short,2,1000;1000,,\n"
                                "10,2,u,0,long,1,5000000+,,\n"
                                "20,3,u,0,short,1,1000,nosuchlabel,\n"
                                "30,4,u,0,short,2,1000+;2000,,\n");
    for (int s = 0; s < SIM_NSTRATEGIES; s++) {
        static sim_names names;
        memset(&names, 0, sizeof names);
        sim_params p;
        replay_params(&p, path, 4, (sim_strategy_id)s);
        run_out o;
        run(&p, &names, &o);
        const sim_stats *st = &o.st;
        bool ok = o.rc == 0 && st->st_arrived == 4 &&
                  st->st_long_skipped == 1 &&
                  st->st_tasks_final[SK_TASK_OK] == 4 && st->st_tasks_cut == 1;
        /* The omniscient scheduler has no admission: the task no node can
         * run fails and its job ends; the others reject the job. */
        ok &= s == SIM_OMNI ? st->st_rejected == 0 && st->st_done == 3 &&
                                  st->st_tasks_final[SK_TASK_FAILED] == 1
                            : st->st_rejected == 1 && st->st_done == 2;
        tap_ok(ok,
               "%s: a long job skipped, an impossible label refused, a "
               "cut-short task counted",
               sim_strategy_get((sim_strategy_id)s)->ss_name);
        run_free(&o);
    }
    static sim_names names;
    memset(&names, 0, sizeof names);
    sim_params p;
    sim_params_init(&p);
    p.p_jobs_file = write_file("bad.csv", "0,1,u,0,short,1,1000,,\n"
                                          "5,2,u,0,short,2,1000,,\n");
    p.p_jobs = 0;
    sim_result r;
    bool bad_input = false;
    char err[600];
    int rc = sim_run(&p, &names, NULL, &r, &bad_input, err, sizeof err);
    tap_ok(rc != 0 && bad_input && strstr(err, ":2: durations") != NULL,
           "a bad line in the job file stops the run as bad input: %s", err);
}

/* ---- the flow path's plug-in point ------------------------------------- */

/* A stand-in flow node: registers with nodes 0 and 1, places task 0 of
 * each long job on node 1 with RESERVE, and counts what comes back. */
typedef struct dummy_flow {
    uint64_t long_jobs, heartbeats, bad_heartbeats, acks, rejects;
} dummy_flow;

static void df_start(void *ctx, sim *s)
{
    (void)ctx;
    sk_hello h = {.he_role = SK_ROLE_FLOWD, .he_name = "flowd"};
    for (uint32_t n = 0; n < 2; n++)
        if (sim_late_hello(s, n, SIM_PEER_FLOWD, &h) != 0)
            sim_fail(s, SK_ESTATE, "flowd cannot register");
}

static void df_submit(void *ctx, sim *s, sim_job *j)
{
    dummy_flow *df = ctx;
    df->long_jobs++;
    uint8_t spec[SIM_SPEC_BYTES];
    sim_spec_put(spec, j, 0);
    sk_msg m = {.m_type = SK_MSG_RESERVE};
    m.m_reserve.rv_resv = j->j_seq;
    m.m_reserve.rv_job = 1000000 + j->j_seq;
    m.m_reserve.rv_sched = 0;
    m.m_reserve.rv_user = "svc";
    m.m_reserve.rv_spec = (sk_bytes){spec, SIM_SPEC_BYTES};
    m.m_reserve.rv_framework = "";
    sim_send(s, SIM_PEER_FLOWD, 1, &m);
    sim_job_end(s, j, SIM_JOB_SKIPPED);
}

static void df_deliver(void *ctx, sim *s, sk_peer from, sk_peer to,
                       const sk_msg *m)
{
    dummy_flow *df = ctx;
    (void)s;
    (void)to;
    if (m->m_type == SK_MSG_HEARTBEAT) {
        df->heartbeats++;
        df->bad_heartbeats += from > 1 || m->m_heartbeat.hb_node_id != from;
    } else if (m->m_type == SK_MSG_RESERVE_ACK && from == 1) {
        df->acks++;
    } else {
        df->rejects++;
    }
}

static void test_flow_plugin(void)
{
    const char *path =
        write_file("flow.csv", "0,1,u,0,short,4,const:30000,,\n"
                               "1000,2,u,0,long,1,400000,,\n"
                               "1500,3,u,0,short,4,const:30000,,\n"
                               "2000000,4,u,0,long,1,100000,,\n"
                               "2500000,5,u,0,short,2,const:30000,,\n");
    static sim_names names;
    memset(&names, 0, sizeof names);
    sim_params p;
    replay_params(&p, path, 4, SIM_LATE);
    p.p_slots = 2;
    p.p_check = true;
    dummy_flow df = {0};
    sim_flow flow = {&df, df_start, df_submit, df_deliver, NULL, NULL};
    sim_result r;
    bool bad;
    char err[600] = "";
    int rc = sim_run(&p, &names, &flow, &r, &bad, err, sizeof err);
    /* Node 1's first heartbeat comes at registration, then one a second
     * while the run lasts (2.5 s and its last job). */
    tap_ok(rc == 0 && df.long_jobs == 2 && df.acks == 2 && df.rejects == 0 &&
               df.heartbeats >= 6 && df.bad_heartbeats == 0 &&
               r.r_st.st_done == 3 && r.r_st.st_long_skipped == 2 &&
               r.r_st.st_local[SK_MSG_LAUNCH_TASK] == 12,
           "a flow plug-in registers with the real node monitors, gets the "
           "long jobs and their heartbeats, and its RESERVEs run (%s)",
           err);
    if (rc == 0)
        sim_stats_fini(&r.r_st);
}

int main(void)
{
    tap_timeout(120);
    tap_plan(5 + 2 * SIM_NSTRATEGIES + 2 + 1 + 1 + SIM_NSTRATEGIES + 1 + 2 + 1 +
             SIM_NSTRATEGIES + 1 + 1);
    sk_log_set_level(SK_LOG_ERROR);
    if (mkdtemp(tmpdir) == NULL)
        tap_bail_out("mkdtemp failed");
    test_hand_schedule();
    test_determinism();
    test_threads();
    test_quiet_stretch();
    test_wire();
    test_conservation();
    test_omniscient_busy();
    test_replay();
    test_outcomes();
    test_flow_plugin();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_exit_status();
}
