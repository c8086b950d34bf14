/*
 * flowd.c - bench/flowd: the flow node's core (fd_core.h) driven directly,
 * no sockets, in virtual time, at cluster scale: N nodes of S slots, a
 * steady state with about 90% of the slots held by long tasks, and the
 * long jobs of the Google 2011 trace (a job file from skylark-trace2jobs)
 * arriving and ending at 1x or faster. Every round is solved on this
 * thread; its wall time is charged to the virtual clock (a round's
 * RESERVEs go out when its begin, solve and end have run).
 *
 * Reports per round (events, begin / solve / end ms), placement latency
 * (SUBMIT_JOB reaches the core -> RESERVE sent, virtual time) and peak
 * RSS; then, as the anchor in the same run, dumps the steady-state
 * network (fd_core_dump) and times LEMON's NetworkSimplex and CostScaling
 * from scratch on it in a child process. See bench/README.md.
 *
 * The simulated node monitors: a RESERVE is acknowledged ack_us later and
 * the task starts at once; every node heartbeats every heartbeat_ms
 * (phases spread evenly), listing its running long tasks; a task ends
 * after its trace duration divided by the speed-up, and its scheduler
 * passes the TASK_FINISHED on to the core at that moment.
 */
#include "fd_core.h"
#include "flowcore.h"
#include "flowd_lemon.h"
#include "sim_work.h"
#include "sk_core.h"
#include "sk_proto.h"
#include "skylark.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define US_PER_MS  1000ull
#define US_PER_S   1000000ull
#define T0         (1000000ull * 1000000ull) /* virtual start, us */
#define SCHED_PEER 1000000u                  /* the scheduler's peer */
#define SCHED_ID   1u
#define RACK_SIZE  40u
#define NEVER      UINT64_MAX

/* --- options --------------------------------------------------------------*/

typedef struct bo {
    uint32_t nodes, slots;
    double speed, fill, duration_s;
    char policy[16];
    fc_algorithm alg;
    uint64_t seed;
    const char *jobs;
    const char *dump;
    uint64_t ack_us;
    int lemon_runs;
    bool no_lemon;
} bo;

/* --- small helpers --------------------------------------------------------*/

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size);
    if (p == NULL) {
        fprintf(stderr, "bench/flowd: out of memory\n");
        exit(1);
    }
    return p;
}

static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size);
    if (p == NULL) {
        fprintf(stderr, "bench/flowd: out of memory\n");
        exit(1);
    }
    return p;
}

static void loadavg(char *buf, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");
    snprintf(buf, len, "?");
    if (f == NULL)
        return;
    if (fgets(buf, (int)len, f) != NULL) {
        char *sp = buf;
        for (int i = 0; i < 3 && sp != NULL; i++)
            sp = strchr(sp + 1, ' ');
        if (sp != NULL)
            *sp = '\0';
    }
    fclose(f);
}

/* A growable array of samples. */
typedef struct samples {
    double *s_v;
    size_t s_n, s_cap;
} samples;

static void sample_add(samples *s, double v)
{
    if (s->s_n == s->s_cap) {
        s->s_cap = s->s_cap ? 2 * s->s_cap : 1024;
        s->s_v = xrealloc(s->s_v, s->s_cap * sizeof *s->s_v);
    }
    s->s_v[s->s_n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of sorted v, nearest rank. */
static double quant(const samples *s, double q)
{
    if (s->s_n == 0)
        return 0;
    size_t k = (size_t)ceil(q * (double)s->s_n);
    k = k == 0 ? 0 : k - 1;
    return s->s_v[k < s->s_n ? k : s->s_n - 1];
}

static void sample_sort(samples *s)
{
    if (s->s_n > 0)
        qsort(s->s_v, s->s_n, sizeof *s->s_v, cmp_double);
}

/* "median [p25-p75] p99 max" of sorted s, in the unit of its samples. */
static void print_dist(const char *name, samples *s, const char *unit)
{
    sample_sort(s);
    if (s->s_n == 0) {
        printf("  %-22s -\n", name);
        return;
    }
    printf("  %-22s median %9.3f [%.3f-%.3f]  p99 %9.3f  max %9.3f %s  "
           "(n=%zu)\n",
           name, quant(s, 0.5), quant(s, 0.25), quant(s, 0.75), quant(s, 0.99),
           s->s_v[s->s_n - 1], unit, s->s_n);
}

/* --- events ---------------------------------------------------------------*/

enum { EV_ACK = 1, EV_END = 2 };

typedef struct ev {
    sk_time e_t;
    uint32_t e_kind, e_node;
    uint64_t e_job, e_resv;
    uint32_t e_task, e_attempt;
} ev;

typedef struct heap {
    ev *h_v;
    size_t h_n, h_cap;
} heap;

static void heap_push(heap *h, ev e)
{
    if (h->h_n == h->h_cap) {
        h->h_cap = h->h_cap ? 2 * h->h_cap : 4096;
        h->h_v = xrealloc(h->h_v, h->h_cap * sizeof *h->h_v);
    }
    size_t i = h->h_n++;
    while (i > 0 && h->h_v[(i - 1) / 2].e_t > e.e_t) {
        h->h_v[i] = h->h_v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->h_v[i] = e;
}

static ev heap_pop(heap *h)
{
    ev top = h->h_v[0], last = h->h_v[--h->h_n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= h->h_n)
            break;
        if (k + 1 < h->h_n && h->h_v[k + 1].e_t < h->h_v[k].e_t)
            k++;
        if (h->h_v[k].e_t >= last.e_t)
            break;
        h->h_v[i] = h->h_v[k];
        i = k;
    }
    if (h->h_n > 0)
        h->h_v[i] = last;
    return top;
}

/* --- the simulated cluster ------------------------------------------------*/

typedef struct brun {
    uint64_t r_job;
    uint32_t r_task, r_attempt;
} brun;

typedef struct bnode {
    brun *n_run; /* running long tasks, at most slots */
    uint32_t n_nrun;
    uint64_t n_hb_seq;
} bnode;

/* A job handed to the core: its sj_job is its index + 1. */
typedef struct bjob {
    sim_job *b_sj;     /* durations */
    sk_time b_submit;  /* virtual time of its SUBMIT_JOB */
    uint32_t b_ntasks; /* submitted (a fill job may be cut) */
    uint32_t b_left;   /* tasks not ended */
    bool b_fill;       /* part of the initial steady state */
} bjob;

typedef struct bench {
    bo o;
    fd_core *c;
    bnode *nodes;
    bjob *jobs;
    size_t njobs, jobs_cap;
    heap h;
    sk_time now;      /* the virtual clock; never goes back */
    sk_time measure;  /* start of the measured phase (NEVER: warm-up) */
    sk_time end;      /* end of the run */
    sk_time hb_base;  /* heartbeat schedule origin */
    uint64_t hb_next; /* index of the next heartbeat */
    sk_running *hb_buf;
    char **node_names;
    /* results */
    samples r_events, r_begin, r_solve, r_end, r_total, r_placed;
    samples lat_ms;
    uint64_t reserves, acks, ends, releases, lost, rejected, arrivals,
        arrived_tasks, round_fail, warm_rounds;
    uint64_t held_max; /* long tasks held, the most after a round */
    bool quiet;        /* rounds after the measured phase: not recorded */
    double warm_s;     /* wall time of the warm-up */
} bench;

static bjob *job_add(bench *b)
{
    if (b->njobs == b->jobs_cap) {
        b->jobs_cap = b->jobs_cap ? 2 * b->jobs_cap : 4096;
        b->jobs = xrealloc(b->jobs, b->jobs_cap * sizeof *b->jobs);
    }
    bjob *j = &b->jobs[b->njobs++];
    memset(j, 0, sizeof *j);
    return j;
}

static sk_time hb_time(const bench *b, uint64_t k)
{
    return b->hb_base + k * (uint64_t)1000 * US_PER_MS / b->o.nodes;
}

static sk_resources task_res(void)
{
    return (sk_resources){1000, 1024}; /* one slot's worth */
}

/* Drains the core's outbox: a RESERVE gets its ACK ack_us later (and a
 * latency sample in the measured phase); the rest is counted. */
static void drain(bench *b)
{
    sk_outbox *ob = fd_core_outbox(b->c);
    for (size_t i = 0; i < ob->ob_len; i++) {
        const sk_out *o = &ob->ob_msgs[i];
        switch (o->o_msg.m_type) {
        case SK_MSG_RESERVE: {
            const sk_reserve *rv = &o->o_msg.m_reserve;
            b->reserves++;
            if (rv->rv_job >= 1 && rv->rv_job <= b->njobs) {
                bjob *j = &b->jobs[rv->rv_job - 1];
                if (!j->b_fill && rv->rv_attempt == 0)
                    sample_add(&b->lat_ms,
                               (double)(b->now - j->b_submit) / US_PER_MS);
            }
            heap_push(&b->h, (ev){.e_t = b->now + b->o.ack_us,
                                  .e_kind = EV_ACK,
                                  .e_node = o->o_peer,
                                  .e_job = rv->rv_job,
                                  .e_resv = rv->rv_resv,
                                  .e_task = rv->rv_task,
                                  .e_attempt = rv->rv_attempt});
            break;
        }
        case SK_MSG_RELEASE:
            b->releases++;
            break;
        case SK_MSG_JOB_REJECTED:
            b->rejected++;
            fprintf(stderr, "bench/flowd: job %" PRIu64 " rejected: %s\n",
                    o->o_msg.m_job_ack.ja_job,
                    o->o_msg.m_job_ack.ja_reason ? o->o_msg.m_job_ack.ja_reason
                                                 : "");
            break;
        case SK_MSG_TASK_FINISHED:
            b->lost++; /* the core decided LOST or FAILED */
            break;
        default:
            break;
        }
    }
    sk_outbox_clear(ob);
}

static void on_msg(bench *b, sk_peer from, const sk_msg *m)
{
    fd_core_on_msg(b->c, b->now, from, m);
    drain(b);
}

static void hello_nodes(bench *b)
{
    char rack[32], *labels[1];
    const char *addr = "tcp://127.0.0.1:1";
    labels[0] = "long_share=1";
    for (uint32_t i = 0; i < b->o.nodes; i++) {
        snprintf(rack, sizeof rack, "r%u", i / RACK_SIZE);
        sk_msg m = {.m_type = SK_MSG_HELLO};
        m.m_hello =
            (sk_hello){.he_role = SK_ROLE_NODEMON,
                       .he_id = i + 1,
                       .he_incarnation = 1,
                       .he_name = b->node_names[i],
                       .he_addrs = &addr,
                       .he_naddrs = 1,
                       .he_slots = b->o.slots,
                       .he_res = {b->o.slots * 1000u, b->o.slots * 1024u},
                       .he_labels = (const char **)labels,
                       .he_nlabels = 1,
                       .he_framework = "",
                       .he_rack = rack};
        on_msg(b, i + 1, &m);
    }
    sk_msg m = {.m_type = SK_MSG_HELLO};
    m.m_hello = (sk_hello){.he_role = SK_ROLE_SCHEDULER,
                           .he_id = SCHED_ID,
                           .he_name = "sched",
                           .he_framework = ""};
    on_msg(b, SCHED_PEER, &m);
}

/* Submits ntasks tasks of sj (the first ones) as a long job. */
static void submit(bench *b, sim_job *sj, uint32_t ntasks, bool fill)
{
    bjob *j = job_add(b);
    j->b_sj = sj;
    j->b_submit = b->now;
    j->b_ntasks = ntasks;
    j->b_left = ntasks;
    j->b_fill = fill;
    static const uint8_t spec[] = "svc";
    sk_task_spec *ts = xcalloc(ntasks, sizeof *ts);
    for (uint32_t i = 0; i < ntasks; i++)
        ts[i].ts_spec = (sk_bytes){.b_data = spec, .b_len = sizeof spec};
    char user[24];
    snprintf(user, sizeof user, "u%u", sj->j_user);
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job = (sk_submit_job){.sj_job = b->njobs,
                                     .sj_user = user,
                                     .sj_priority = sj->j_prio,
                                     .sj_res = task_res(),
                                     .sj_long = true,
                                     .sj_framework = "",
                                     .sj_tasks = ts,
                                     .sj_ntasks = ntasks};
    on_msg(b, SCHED_PEER, &m);
    free(ts);
}

static void heartbeat(bench *b, uint32_t k)
{
    bnode *n = &b->nodes[k];
    for (uint32_t i = 0; i < n->n_nrun; i++)
        b->hb_buf[i] = (sk_running){.ru_job = n->n_run[i].r_job,
                                    .ru_task = n->n_run[i].r_task,
                                    .ru_attempt = n->n_run[i].r_attempt,
                                    .ru_launch_us = b->now,
                                    .ru_long = true,
                                    .ru_res = task_res()};
    sk_msg m = {.m_type = SK_MSG_HEARTBEAT};
    m.m_heartbeat =
        (sk_heartbeat){.hb_node_id = k + 1,
                       .hb_node = b->node_names[k],
                       .hb_seq = ++n->n_hb_seq,
                       .hb_time_us = b->now,
                       .hb_slots_total = b->o.slots,
                       .hb_slots_used = n->n_nrun,
                       .hb_slots_reserved = 0,
                       .hb_used = {n->n_nrun * 1000u, n->n_nrun * 1024u},
                       .hb_running = b->hb_buf,
                       .hb_nrunning = n->n_nrun};
    on_msg(b, k + 1, &m);
}

/* The task's end in virtual time, from when it starts at `start`;
 * NEVER while the start of the measured phase is unknown. */
static sk_time end_time(const bench *b, const bjob *j, uint32_t task,
                        sk_time start)
{
    if (b->measure == NEVER)
        return NEVER;
    uint64_t dur = (uint64_t)((double)j->b_sj->j_dur[task] / b->o.speed);
    sk_time from = start > b->measure ? start : b->measure;
    return from + (dur > 0 ? dur : 1);
}

static void ack(bench *b, const ev *e)
{
    uint32_t k = e->e_node - 1;
    if (k >= b->o.nodes || b->nodes[k].n_nrun >= b->o.slots) {
        fprintf(stderr, "bench/flowd: RESERVE to peer %u beyond its slots\n",
                e->e_node);
        exit(1);
    }
    bnode *n = &b->nodes[k];
    n->n_run[n->n_nrun++] = (brun){
        .r_job = e->e_job, .r_task = e->e_task, .r_attempt = e->e_attempt};
    sk_msg m = {.m_type = SK_MSG_RESERVE_ACK};
    m.m_reserve_ack = (sk_reserve_ack){.ra_resv = e->e_resv,
                                       .ra_job = e->e_job,
                                       .ra_task = e->e_task,
                                       .ra_node_id = e->e_node,
                                       .ra_reason = ""};
    b->acks++;
    on_msg(b, e->e_node, &m);
    const bjob *j = &b->jobs[e->e_job - 1];
    if (j->b_sj == NULL)
        return; /* a re-placed task of a job that ended */
    sk_time t = end_time(b, j, e->e_task, b->now);
    if (t < b->end)
        heap_push(&b->h, (ev){.e_t = t,
                              .e_kind = EV_END,
                              .e_node = e->e_node,
                              .e_job = e->e_job,
                              .e_task = e->e_task,
                              .e_attempt = e->e_attempt});
}

static void task_end(bench *b, const ev *e)
{
    bnode *n = &b->nodes[e->e_node - 1];
    uint32_t i = 0;
    while (i < n->n_nrun &&
           !(n->n_run[i].r_job == e->e_job && n->n_run[i].r_task == e->e_task &&
             n->n_run[i].r_attempt == e->e_attempt))
        i++;
    if (i == n->n_nrun)
        return; /* released meanwhile */
    n->n_run[i] = n->n_run[--n->n_nrun];
    b->ends++;
    sk_msg m = {.m_type = SK_MSG_TASK_FINISHED};
    m.m_task_finished =
        (sk_task_finished){.tf_job = e->e_job,
                           .tf_task = e->e_task,
                           .tf_attempt = e->e_attempt,
                           .tf_node = b->node_names[e->e_node - 1],
                           .tf_status = SK_TASK_OK,
                           .tf_launch_us = 0,
                           .tf_end_us = b->now};
    on_msg(b, SCHED_PEER, &m);
    bjob *j = &b->jobs[e->e_job - 1];
    if (--j->b_left == 0) {
        sim_job_free(j->b_sj);
        j->b_sj = NULL;
    }
}

/* Once the fill runs: the measured phase starts, and the fill's tasks
 * end at their trace durations from then on. */
static void start_measuring(bench *b, sk_time at)
{
    b->measure = at;
    for (uint32_t k = 0; k < b->o.nodes; k++) {
        bnode *n = &b->nodes[k];
        for (uint32_t i = 0; i < n->n_nrun; i++) {
            const brun *r = &n->n_run[i];
            sk_time t = end_time(b, &b->jobs[r->r_job - 1], r->r_task, at);
            if (t < b->end)
                heap_push(&b->h, (ev){.e_t = t,
                                      .e_kind = EV_END,
                                      .e_node = k + 1,
                                      .e_job = r->r_job,
                                      .e_task = r->r_task,
                                      .e_attempt = r->r_attempt});
        }
    }
}

/* --- the job source -------------------------------------------------------*/

typedef struct bsrc {
    sim_src s;
    sim_names *names;
    sim_job *next; /* the next long job not yet submitted */
    bool eof;
    uint64_t short_jobs, long_present_dropped, tasks_present_dropped;
} bsrc;

/* Reads up to the next long job with an arrival after 0 (arrival-0 jobs
 * are the fill's, taken before the replay starts). */
static void src_advance(bsrc *s)
{
    char err[256];
    while (!s->eof && s->next == NULL) {
        sim_job *j;
        int rc = sim_src_next(&s->s, &j, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "bench/flowd: %s\n", err);
            exit(2);
        }
        if (rc == 0) {
            s->eof = true;
            break;
        }
        if (!j->j_long) {
            s->short_jobs++;
            sim_job_free(j);
            continue;
        }
        if (j->j_arrival == 0) {
            s->long_present_dropped++;
            s->tasks_present_dropped += j->j_ntasks;
            sim_job_free(j);
            continue;
        }
        s->next = j;
    }
}

/* Submits the trace's long jobs present at time 0 until `target` tasks
 * (the last one cut); the rest of them are left out. Returns the tasks
 * submitted. */
static uint64_t submit_fill(bench *b, bsrc *s, uint64_t target)
{
    char err[256];
    uint64_t got = 0;
    for (;;) {
        sim_job *j;
        int rc = sim_src_next(&s->s, &j, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "bench/flowd: %s\n", err);
            exit(2);
        }
        if (rc == 0) {
            s->eof = true;
            return got;
        }
        if (!j->j_long) {
            s->short_jobs++;
            sim_job_free(j);
            continue;
        }
        if (j->j_arrival > 0) {
            s->next = j;
            return got;
        }
        if (got >= target) {
            s->long_present_dropped++;
            s->tasks_present_dropped += j->j_ntasks;
            sim_job_free(j);
            continue;
        }
        uint32_t n = j->j_ntasks;
        if (got + n > target) {
            s->tasks_present_dropped += got + n - target;
            n = (uint32_t)(target - got);
        }
        submit(b, j, n, true);
        got += n;
    }
}

/* --- the driver loop ------------------------------------------------------*/

/* Runs one round if one is due at b->now: begin, solve here, end; the
 * round's wall time is charged to the virtual clock, and the events that
 * fall within the solve are applied while the round is out. Returns
 * true if a round ran. */
static bool run_round(bench *b, void (*step)(bench *, sk_time))
{
    fd_round *r;
    double t0 = wall();
    int rc = fd_round_begin(b->c, b->now, &r);
    drain(b);
    if (rc == SK_EAGAIN)
        return false;
    if (rc != 0) {
        fprintf(stderr, "bench/flowd: fd_round_begin: %s\n", sk_strerror(rc));
        exit(1);
    }
    double t1 = wall();
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = r->rd_algorithm;
    opt.so_incremental = r->rd_incremental;
    fc_solve_stats st;
    int src = fc_solve(r->rd_graph, &opt, &st);
    double t2 = wall();
    uint64_t events = r->rd_events;
    sk_time started = b->now;
    bool measured = !b->quiet && b->measure != NEVER && started >= b->measure;
    /* Messages that arrive during the solve. */
    step(b, started + (sk_time)((t2 - t0) * 1e6));
    double t3 = wall();
    sk_time te = started + (sk_time)((t2 - t0) * 1e6);
    if (b->now < te)
        b->now = te;
    rc = fd_round_end(b->c, b->now, r, src, &st);
    double t4 = wall();
    b->now += (sk_time)((t4 - t3) * 1e6);
    drain(b);
    if (rc != 0 || src != 0)
        b->round_fail++;
    const fd_stats *fs = fd_core_stats(b->c);
    uint64_t held = fs->fs_running + fs->fs_placed + fs->fs_reserved;
    if (held > b->held_max)
        b->held_max = held;
    if (measured) {
        sample_add(&b->r_events, (double)events);
        sample_add(&b->r_begin, (t1 - t0) * 1e3);
        sample_add(&b->r_solve, (t2 - t1) * 1e3);
        sample_add(&b->r_end, (t4 - t3) * 1e3);
        sample_add(&b->r_total, (t2 - t0 + t4 - t3) * 1e3);
        sample_add(&b->r_placed, (double)fd_core_stats(b->c)->fs_last_placed);
    } else {
        b->warm_rounds++;
    }
    return true;
}

static bsrc *g_src;

/* A round's step that applies nothing (quiesce). */
static void step_none(bench *b, sk_time until)
{
    (void)b;
    (void)until;
}

/* The time of the next event of any kind but the core's own timer. */
static sk_time next_event(bench *b)
{
    sk_time t = hb_time(b, b->hb_next);
    if (b->h.h_n > 0 && b->h.h_v[0].e_t < t)
        t = b->h.h_v[0].e_t;
    if (b->measure != NEVER && g_src->next != NULL) {
        sk_time a =
            b->measure + (sk_time)((double)g_src->next->j_arrival / b->o.speed);
        if (a < t)
            t = a;
    }
    return t;
}

/* Applies every event before `until` in time order. */
static void step_events(bench *b, sk_time until)
{
    for (;;) {
        sk_time t = next_event(b);
        if (t >= until)
            return;
        if (t > b->now)
            b->now = t;
        if (t == hb_time(b, b->hb_next)) {
            heartbeat(b, (uint32_t)(b->hb_next++ % b->o.nodes));
        } else if (b->h.h_n > 0 && b->h.h_v[0].e_t == t) {
            ev e = heap_pop(&b->h);
            if (e.e_kind == EV_ACK)
                ack(b, &e);
            else
                task_end(b, &e);
        } else {
            sim_job *j = g_src->next;
            g_src->next = NULL;
            b->arrivals++;
            b->arrived_tasks += j->j_ntasks;
            submit(b, j, j->j_ntasks, false);
            src_advance(g_src);
        }
    }
}

/* Runs the cluster until `until` (virtual), or, with until NEVER, until
 * stop(b) holds at a round boundary. */
static void run(bench *b, sk_time until, bool (*stop)(bench *))
{
    while (b->now < until) {
        if (stop != NULL && stop(b))
            return;
        sk_time dl = fd_core_next_deadline(b->c);
        sk_time ne = next_event(b);
        if (dl != SK_TIME_NEVER && dl <= ne) {
            if (dl > b->now)
                b->now = dl;
            fd_core_on_timer(b->c, b->now);
            drain(b);
            if (!run_round(b, step_events) &&
                fd_core_next_deadline(b->c) <= b->now)
                step_events(b, next_event(b) + 1); /* nothing due after all */
            continue;
        }
        step_events(b, ne + 1);
    }
}

static bool fill_running(bench *b)
{
    const fd_stats *st = fd_core_stats(b->c);
    return st->fs_events == 0 && st->fs_waiting == 0 && st->fs_reserved == 0 &&
           st->fs_placed == 0 && b->h.h_n == 0;
}

/* --- the anchor -----------------------------------------------------------*/

/* Times LEMON's algorithms on the DIMACS file in a child process (its
 * memory stays out of this process's peak RSS). Returns the best median
 * in seconds, 0 if none ran. */
static double lemon_anchor(const bo *o, const char *path, int64_t *cost)
{
    double best = 0;
    for (int which = 0; which < BFL_N; which++) {
        int fds[2];
        if (pipe(fds) != 0)
            return 0;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            bfl_result r;
            char err[256] = "";
            if (bfl_solve_file(path, which, o->lemon_runs, &r, err,
                               sizeof err) != 0) {
                fprintf(stderr, "bench/flowd: %s\n", err);
                _exit(1);
            }
            if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
                _exit(1);
            _exit(0);
        }
        close(fds[1]);
        bfl_result r;
        ssize_t n = pid > 0 ? read(fds[0], &r, sizeof r) : -1;
        close(fds[0]);
        if (pid > 0)
            waitpid(pid, NULL, 0);
        if (n != (ssize_t)sizeof r) {
            printf("  %-9s failed\n", bfl_name(which));
            continue;
        }
        samples s = {0};
        for (int i = 0; i < r.br_runs; i++)
            sample_add(&s, r.br_seconds[i] * 1e3);
        sample_sort(&s);
        double med = quant(&s, 0.5);
        printf("  %-9s from scratch: median %.1f ms [%.1f-%.1f] over %d "
               "runs, %s, cost %" PRId64 " (%d nodes, %d arcs)\n",
               bfl_name(which), med, s.s_v[0], s.s_v[s.s_n - 1], r.br_runs,
               r.br_optimal ? "optimal" : "NOT OPTIMAL", r.br_cost, r.br_nodes,
               r.br_arcs);
        if (r.br_optimal && (best == 0 || med < best * 1e3)) {
            best = med / 1e3;
            *cost = r.br_cost;
        }
        free(s.s_v);
    }
    return best;
}

/* Solves g from scratch with the configured algorithm; prints a line
 * named what and returns the cost through *cost (0: solved). */
static int fc_scratch(const bench *b, fc_graph *g, const char *what,
                      double build_s, fc_int128 *cost)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = b->o.alg;
    opt.so_incremental = false;
    fc_solve_stats st;
    double t0 = wall();
    int rc = fc_solve(g, &opt, &st);
    double t1 = wall();
    *cost = st.ss_cost;
    printf("  flowcore  %s (%s): build %.1f ms, solve %.1f ms (won: %s), %s, "
           "cost %" PRId64 " (%d nodes, %d arcs)\n",
           what, fc_algorithm_name(b->o.alg), build_s * 1e3, (t1 - t0) * 1e3,
           fc_algorithm_name(st.ss_algorithm), rc == 0 ? "optimal" : "FAILED",
           (int64_t)st.ss_cost, fc_graph_node_count(g), fc_graph_arc_count(g));
    return rc;
}

/* flowcore from scratch on the dumped file (the same network LEMON
 * reads: its cost must be LEMON's) and on the policy's fresh build of the
 * core's state (fd_core_build_fresh: equal to the kept network up to
 * numbering when no change is pending). Returns 0 when both solved. */
static int flowcore_scratch(bench *b, const char *path, fc_int128 *file_cost,
                            fc_int128 *fresh_cost)
{
    int rc = -1;
    fc_dimacs_reader *r = NULL;
    FILE *f = fopen(path, "r");
    fc_dimacs_end end;
    size_t lines;
    double t0 = wall();
    if (f == NULL || fc_dimacs_reader_new(NULL, &r) != 0 ||
        fc_dimacs_read(r, f, path, &end, &lines) != 0) {
        printf("  flowcore cannot read %s: %s\n", path,
               r ? fc_dimacs_error(r) : "");
    } else {
        rc = fc_scratch(b, fc_dimacs_graph(r), "from scratch on the dump",
                        wall() - t0, file_cost);
    }
    if (f != NULL)
        fclose(f);
    fc_dimacs_reader_free(r);
    fc_graph *g;
    t0 = wall();
    if (fd_core_build_fresh(b->c, b->now, &g) != 0) {
        printf("  flowcore fresh build failed\n");
        return -1;
    }
    rc |= fc_scratch(b, g, "fresh build of the core's state", wall() - t0,
                     fresh_cost);
    fc_graph_free(g);
    return rc;
}

/* After the measured phase: no more input; rounds until no change is
 * pending, so that the kept network is the core's state (at most 8). */
static void quiesce(bench *b)
{
    b->quiet = true;
    for (int i = 0; i < 8 && fd_core_stats(b->c)->fs_events > 0; i++) {
        sk_time dl = fd_core_next_deadline(b->c);
        if (dl != SK_TIME_NEVER && dl > b->now)
            b->now = dl;
        fd_core_on_timer(b->c, b->now);
        drain(b);
        run_round(b, step_none);
    }
}

/* --- command line ---------------------------------------------------------*/

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: bench/flowd --jobs FILE [options]\n"
        "Drives the flow node's core in virtual time with the long jobs of a\n"
        "skylark-trace2jobs job file (Google 2011 trace) on a simulated\n"
        "cluster, and times LEMON from scratch on its steady-state network\n"
        "(see bench/README.md).\n"
        "\n"
        "  --jobs FILE        job file from skylark-trace2jobs (speed-up 1)\n"
        "  --nodes N          nodes (default 12500)\n"
        "  --slots S          slots per node (default 9)\n"
        "  --fill F           share of the slots the steady state's long\n"
        "                     tasks hold (default 0.9)\n"
        "  --speed X          replay X times faster than the trace (default "
        "1)\n"
        "  --duration SEC     virtual seconds measured after the warm-up\n"
        "                     (default 120)\n"
        "  --policy NAME      quincy (default), spread or multires\n"
        "  --algorithm NAME   race (default), cost-scaling, relax, ssp\n"
        "  --seed N           workload seed (default 1; the trace needs none)\n"
        "  --ack-ms MS        node monitors answer a RESERVE after MS\n"
        "                     (default 1)\n"
        "  --lemon-runs N     LEMON runs per algorithm (default 3)\n"
        "  --no-lemon         skip the anchor\n"
        "  --dump FILE        keep the steady-state network there (default:\n"
        "                     a temporary file, removed)\n"
        "  --help, --version\n"
        "\n"
        "Exit status: 0 done, 1 the core or a solve failed, 2 bad usage.\n");
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

static int bad_arg(const char *opt, const char *want, const char *got)
{
    fprintf(stderr, "bench/flowd: %s wants %s, got '%s'\n", opt, want, got);
    return 2;
}

static int parse(int argc, char **argv, bo *o)
{
    enum {
        O_JOBS = 256,
        O_NODES,
        O_SLOTS,
        O_FILL,
        O_SPEED,
        O_DURATION,
        O_POLICY,
        O_ALG,
        O_SEED,
        O_ACK,
        O_LRUNS,
        O_NOLEMON,
        O_DUMP,
        O_HELP,
        O_VERSION
    };
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, O_JOBS},
        {"nodes", required_argument, NULL, O_NODES},
        {"slots", required_argument, NULL, O_SLOTS},
        {"fill", required_argument, NULL, O_FILL},
        {"speed", required_argument, NULL, O_SPEED},
        {"duration", required_argument, NULL, O_DURATION},
        {"policy", required_argument, NULL, O_POLICY},
        {"algorithm", required_argument, NULL, O_ALG},
        {"seed", required_argument, NULL, O_SEED},
        {"ack-ms", required_argument, NULL, O_ACK},
        {"lemon-runs", required_argument, NULL, O_LRUNS},
        {"no-lemon", no_argument, NULL, O_NOLEMON},
        {"dump", required_argument, NULL, O_DUMP},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    *o = (bo){.nodes = 12500,
              .slots = 9,
              .speed = 1,
              .fill = 0.9,
              .duration_s = 120,
              .alg = FC_ALG_RACE,
              .seed = 1,
              .ack_us = 1000,
              .lemon_runs = 3};
    snprintf(o->policy, sizeof o->policy, "quincy");
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_JOBS:
            o->jobs = optarg;
            break;
        case O_NODES:
            if (!parse_num(optarg, 1, 16384, &v) || v != floor(v))
                return bad_arg("--nodes", "1..16384", optarg);
            o->nodes = (uint32_t)v;
            break;
        case O_SLOTS:
            if (!parse_num(optarg, 1, 256, &v) || v != floor(v))
                return bad_arg("--slots", "1..256", optarg);
            o->slots = (uint32_t)v;
            break;
        case O_FILL:
            if (!parse_num(optarg, 0, 1, &v))
                return bad_arg("--fill", "0..1", optarg);
            o->fill = v;
            break;
        case O_SPEED:
            if (!parse_num(optarg, 1, 10000, &v))
                return bad_arg("--speed", "1..10000", optarg);
            o->speed = v;
            break;
        case O_DURATION:
            if (!parse_num(optarg, 1, 86400, &v))
                return bad_arg("--duration", "1..86400 seconds", optarg);
            o->duration_s = v;
            break;
        case O_POLICY:
            if (strcmp(optarg, "quincy") != 0 &&
                strcmp(optarg, "spread") != 0 &&
                strcmp(optarg, "multires") != 0)
                return bad_arg("--policy", "quincy, spread or multires",
                               optarg);
            snprintf(o->policy, sizeof o->policy, "%s", optarg);
            break;
        case O_ALG:
            if (fc_algorithm_parse(optarg, &o->alg) != 0)
                return bad_arg("--algorithm",
                               "race, cost-scaling, relax or ssp", optarg);
            break;
        case O_SEED:
            if (!parse_num(optarg, 0, 1e18, &v) || v != floor(v))
                return bad_arg("--seed", "an integer >= 0", optarg);
            o->seed = (uint64_t)v;
            break;
        case O_ACK:
            if (!parse_num(optarg, 0, 10000, &v))
                return bad_arg("--ack-ms", "0..10000", optarg);
            o->ack_us = (uint64_t)(v * 1000);
            break;
        case O_LRUNS:
            if (!parse_num(optarg, 1, 16, &v) || v != floor(v))
                return bad_arg("--lemon-runs", "1..16", optarg);
            o->lemon_runs = (int)v;
            break;
        case O_NOLEMON:
            o->no_lemon = true;
            break;
        case O_DUMP:
            o->dump = optarg;
            break;
        case O_HELP:
            usage(stdout);
            exit(0);
        case O_VERSION:
            printf("bench/flowd 1\n");
            exit(0);
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bench/flowd: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }
    if (o->jobs == NULL) {
        fprintf(stderr, "bench/flowd: --jobs FILE is required (make one with "
                        "skylark-trace2jobs; see --help)\n");
        return 2;
    }
    return 0;
}

/* --- main -----------------------------------------------------------------*/

int main(int argc, char **argv)
{
    bench *b = xcalloc(1, sizeof *b);
    int rc = parse(argc, argv, &b->o);
    if (rc != 0)
        return rc;
    const bo *o = &b->o;
    char err[256] = "", la0[64], la1[64];
    loadavg(la0, sizeof la0);

    fd_config cfg;
    fd_config_init(&cfg);
    snprintf(cfg.fdc_policy, sizeof cfg.fdc_policy, "%s", o->policy);
    cfg.fdc_algorithm = o->alg;
    cfg.fdc_max_nodes = o->nodes;
    cfg.fdc_max_jobs = 1000000;
    cfg.fdc_max_tasks = 4000000;
    cfg.fdc_long_share = 1;
    if (fd_core_new(&cfg, 1, T0, &b->c, err, sizeof err) != 0) {
        fprintf(stderr, "bench/flowd: %s\n", err);
        return 1;
    }
    bsrc src = {0};
    g_src = &src;
    src.names = xcalloc(1, sizeof *src.names);
    if (sim_src_file(&src.s, o->jobs, src.names, o->nodes, o->seed, err,
                     sizeof err) != 0) {
        fprintf(stderr, "bench/flowd: %s\n", err);
        return 2;
    }
    b->nodes = xcalloc(o->nodes, sizeof *b->nodes);
    b->node_names = xcalloc(o->nodes, sizeof *b->node_names);
    for (uint32_t k = 0; k < o->nodes; k++) {
        b->nodes[k].n_run = xcalloc(o->slots, sizeof(brun));
        b->node_names[k] = xcalloc(16, 1);
        snprintf(b->node_names[k], 16, "n%u", k);
    }
    b->hb_buf = xcalloc(o->slots, sizeof *b->hb_buf);
    b->measure = NEVER;
    b->end = NEVER;
    b->now = T0;
    b->hb_base = T0 + 1;

    printf("# bench/flowd: %u nodes x %u slots, fill %.0f%%, policy %s, "
           "algorithm %s, speed %gx, %g s measured, jobs %s\n",
           o->nodes, o->slots, o->fill * 100, o->policy,
           fc_algorithm_name(o->alg), o->speed, o->duration_s, o->jobs);
    printf("# load average at start: %s\n", la0);
    fflush(stdout);

    /* Warm-up: nodes register, the fill is submitted and placed, every
     * task acknowledged and seen running. */
    double w0 = wall();
    hello_nodes(b);
    uint64_t target = (uint64_t)floor(o->fill * o->nodes * o->slots);
    uint64_t fill = submit_fill(b, &src, target);
    src_advance(&src);
    run(b, NEVER, fill_running);
    /* Two more heartbeat periods so that the core has seen every start. */
    run(b, b->now + 2 * cfg.fdc_heartbeat_ms * US_PER_MS, NULL);
    b->warm_s = wall() - w0;
    const fd_stats *st = fd_core_stats(b->c);
    printf("# warm-up: %" PRIu64 " long tasks of the trace's jobs present at "
           "its start hold %.1f%% of %u slots (%" PRIu64 " running); "
           "%" PRIu64 " rounds, %.1f s wall, %.1f s virtual; left out: "
           "%" PRIu64 " present jobs, %" PRIu64 " of their tasks\n",
           fill, 100.0 * (double)fill / ((double)o->nodes * o->slots),
           o->nodes * o->slots, st->fs_running, b->warm_rounds, b->warm_s,
           (double)(b->now - T0) / US_PER_S, src.long_present_dropped,
           src.tasks_present_dropped);
    fflush(stdout);
    if (fill < target)
        printf("# note: the trace has fewer present long tasks than the "
               "target; the fill is smaller\n");

    /* The measured phase: the trace from its time 0 at `speed`. */
    sk_time m0 = b->now;
    b->end = m0 + (sk_time)(o->duration_s * US_PER_S);
    start_measuring(b, m0);
    double r0 = wall();
    uint64_t res0 = b->reserves, ends0 = b->ends;
    run(b, b->end, NULL);
    double run_s = wall() - r0;
    st = fd_core_stats(b->c);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss_mib = (double)ru.ru_maxrss / 1024;
    uint64_t held = st->fs_running + st->fs_placed + st->fs_reserved;
    loadavg(la1, sizeof la1);

    printf("# measured: %.0f s virtual (trace %.0f s) in %.1f s wall; "
           "%" PRIu64 " long jobs (%" PRIu64 " tasks) arrived, %" PRIu64
           " RESERVEs, %" PRIu64 " tasks ended; at the end %" PRIu64
           " long tasks held (%.1f%% of slots), %" PRIu64 " waiting; "
           "%" PRIu64 " failed rounds, %" PRIu64 " RELEASEs, %" PRIu64
           " lost/failed, %" PRIu64 " jobs rejected\n",
           o->duration_s, o->duration_s * o->speed, run_s, b->arrivals,
           b->arrived_tasks, b->reserves - res0, b->ends - ends0, held,
           100.0 * (double)held / ((double)o->nodes * o->slots), st->fs_waiting,
           b->round_fail, b->releases, b->lost, b->rejected);
    printf("# network at the end: %d nodes, %d arcs\n", st->fs_graph_nodes,
           st->fs_graph_arcs);
    printf("# per round (%zu rounds in the measured phase; ms are wall "
           "time; median [p25-p75] p99 max):\n",
           b->r_total.s_n);
    print_dist("events applied", &b->r_events, "");
    print_dist("update (begin)", &b->r_begin, "ms");
    print_dist("solve", &b->r_solve, "ms");
    print_dist("extract+actions (end)", &b->r_end, "ms");
    print_dist("round (all three)", &b->r_total, "ms");
    print_dist("RESERVEs sent", &b->r_placed, "");
    printf("# placement latency (SUBMIT_JOB reaches the core -> RESERVE "
           "sent, virtual ms, round wall time counted):\n");
    print_dist("latency", &b->lat_ms, "ms");
    printf("# peak RSS (ru_maxrss, before the anchor): %.0f MiB; long tasks "
           "held: %" PRIu64 " at most, %" PRIu64 " at the end\n",
           rss_mib, b->held_max, held);
    fflush(stdout);

    /* The anchor: the steady-state network, LEMON from scratch. */
    int status = b->round_fail > 0 || b->rejected > 0 ? 1 : 0;
    double lemon = 0;
    int64_t lcost = 0;
    if (!o->no_lemon) {
        char tmp[] = "/tmp/bench-flowd-XXXXXX";
        const char *path = o->dump;
        FILE *f;
        if (path == NULL) {
            int fd = mkstemp(tmp);
            f = fd < 0 ? NULL : fdopen(fd, "w");
            path = tmp;
        } else {
            f = fopen(path, "w");
        }
        quiesce(b);
        uint64_t pending = fd_core_stats(b->c)->fs_events;
        if (f == NULL || fd_core_dump(b->c, f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "bench/flowd: cannot write %s\n", path);
            return 1;
        }
        printf("# anchor: the network at the end, after rounds without "
               "input until no change was pending (%" PRIu64
               " pending; fd_core_dump%s%s):\n",
               pending, o->dump ? " in " : "", o->dump ? o->dump : "");
        fc_int128 file_cost = 0, fresh_cost = 0;
        if (flowcore_scratch(b, path, &file_cost, &fresh_cost) != 0)
            status = 1;
        lemon = lemon_anchor(o, path, &lcost);
        if (o->dump == NULL)
            unlink(path);
        if (lemon > 0 && (int64_t)file_cost != lcost) {
            printf("!!! MISMATCH: flowcore's optimum on the dump %" PRId64
                   " differs from LEMON's %" PRId64 "\n",
                   (int64_t)file_cost, lcost);
            status = 1;
        }
        if ((int64_t)fresh_cost != (int64_t)file_cost)
            printf("!!! the fresh build's optimum %" PRId64
                   " differs from the kept network's %" PRId64 "%s\n",
                   (int64_t)fresh_cost, (int64_t)file_cost,
                   pending > 0 ? " (changes were pending)"
                               : ": the incrementally kept network is not "
                                 "the one the policy builds from the state");
    }
    loadavg(la1, sizeof la1);
    printf("# load average at the end: %s\n", la1);

    /* Targets. */
    double med = quant(&b->r_total, 0.5), p99 = quant(&b->r_total, 0.99);
    printf("# targets\n");
    if (lemon > 0 && b->r_total.s_n > 0)
        printf("#   round / LEMON's best from scratch (%.1f ms) <= 0.05: "
               "median round %.2f ms = %.3f: %s; p99 round %.2f ms = %.3f: "
               "%s; median solve alone %.2f ms = %.3f\n",
               lemon * 1e3, med, med / (lemon * 1e3),
               med * 20 <= lemon * 1e3 ? "MET" : "MISSED", p99,
               p99 / (lemon * 1e3), p99 * 20 <= lemon * 1e3 ? "MET" : "MISSED",
               quant(&b->r_solve, 0.5),
               quant(&b->r_solve, 0.5) / (lemon * 1e3));
    double lp99 = quant(&b->lat_ms, 0.99);
    printf("#   placement latency p99 < 1 s at 10x: %.1f ms at %gx%s\n", lp99,
           o->speed,
           o->speed != 10       ? " (not a 10x run)"
           : b->lat_ms.s_n == 0 ? " (no placements)"
           : lp99 < 1000        ? ": MET"
                                : ": MISSED");
    printf("#   peak RSS < 1 GiB at 12,500 nodes with 100,000 long tasks: "
           "%.0f MiB with %u nodes, up to %" PRIu64 " tasks%s\n",
           rss_mib, o->nodes, b->held_max,
           o->nodes < 12500 || b->held_max < 100000 ? " (not that scale)"
           : rss_mib < 1024                         ? ": MET"
                                                    : ": MISSED");
    fd_core_free(b->c);
    return status;
}
