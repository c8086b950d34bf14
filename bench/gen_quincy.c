/*
 * gen_quincy.c - the scheduling-graph generator of the solver benchmark:
 * Quincy-policy and load-spreading flow networks, and rounds of task
 * arrivals and completions (see gen_quincy.h and bench/README.md).
 */
#include "gen_quincy.h"

#include "flowcore.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define GQ_JOB_RACKS  4       /* racks holding one job's input, at most */
#define GQ_MAX_BLOCKS 64      /* input blocks per task, at most */
#define GQ_MAX_PREFS  64      /* preference arcs per task, at most */
#define GQ_RUN_CAP    604800. /* run times are capped at a week */
#define GQ_MAX_JOB_SHARE                                                       \
    (2.0 / 15) /* a job holds at most this share of the                        \
                  tasks: 20,000 of 150,000 */

typedef struct gq_job {
    fc_node jb_unsched;   /* U_j; FC_NONE once the job has left */
    fc_arc jb_usink;      /* U_j -> sink */
    int32_t jb_tasks;     /* N_j: tasks in the graph */
    int32_t jb_quota;     /* E_j = min(N_j, quota) must run */
    int32_t jb_alive_pos; /* index in w_alive, -1 once gone */
    bool jb_no_input;     /* its tasks read no input: no preferences */
    int32_t jb_nracks;
    int32_t jb_racks[GQ_JOB_RACKS]; /* racks that hold most of its input */
} gq_job;

typedef struct gq_task {
    fc_node tk_node;    /* FC_NONE once completed */
    int32_t tk_job;     /* index in w_jobs */
    int32_t tk_run_pos; /* index in w_running, -1 if not running */
} gq_task;

struct gq_world {
    gq_params w_p;
    fc_node w_sink;
    fc_node w_cluster;        /* X */
    int32_t w_nracks;         /* 0 in a load-spreading world */
    fc_node *w_rack_node;     /* [nracks] R_r */
    fc_node *w_machine_node;  /* [machines] */
    int32_t *w_machine_slots; /* [machines] */
    int32_t *w_machine_busy;  /* [machines] running tasks placed at build */
    int64_t w_slots;          /* sum of the slots */
    int32_t w_quota;          /* per-job guarantee, from gp_fair_share */
    gq_job *w_jobs;           /* every job ever made */
    int32_t w_njobs, w_jobs_cap;
    int32_t *w_alive; /* [jobs_cap] jobs with tasks */
    int32_t w_nalive;
    gq_task *w_tasks; /* every task ever made */
    int32_t w_ntasks, w_tasks_cap;
    int32_t *w_running; /* [tasks_cap] running tasks */
    int32_t w_nrunning;
    int64_t w_live_tasks;
    int64_t w_pref_arcs; /* preference arcs added so far */
};

/* One candidate preference of a task: a machine or a rack, and its cost. */
typedef struct gq_pref {
    int32_t pf_target; /* machine or rack index */
    bool pf_rack;
    int64_t pf_cost;
} gq_pref;

/* Where a task's input lives: blocks per machine and per rack. */
typedef struct gq_input {
    int32_t in_blocks;
    int32_t in_nm, in_nr;
    int32_t in_machine[3 * GQ_MAX_BLOCKS];
    int32_t in_mdata[3 * GQ_MAX_BLOCKS];
    int32_t in_rack[2 * GQ_MAX_BLOCKS];
    int32_t in_rdata[2 * GQ_MAX_BLOCKS];
} gq_input;

void gq_params_init(gq_params *p, gq_kind kind, int32_t machines,
                    double utilisation, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->gp_kind = kind;
    p->gp_seed = seed;
    p->gp_machines = machines;
    p->gp_rack_size = 40;
    p->gp_tasks_per_machine = 12.0;
    p->gp_tasks_per_job = 83.0;
    p->gp_utilisation = utilisation;
    p->gp_running_share = kind == GQ_SPREAD ? 1.0 : 0.9;
    p->gp_max_prefs = 10;
    p->gp_pref_threshold = 0.1;
    p->gp_no_input_share = 0.3;
    p->gp_blocks_mean = 2.0;
    p->gp_blocks_max = 16;
    p->gp_fair_share = 0.5;
    p->gp_tor_cost = 5;
    p->gp_core_cost = 10;
    p->gp_unsched_base = 200;
    p->gp_wait_cost = 1.0;
    p->gp_wait_mean = 60.0;
    p->gp_run_discount = 1.0 / 60.0;
    p->gp_run_mean = 1800.0;
    p->gp_new_job_tasks = 0;
    p->gp_new_job_share = 0.05;
    p->gp_completion_share = 0.5;
}

static bool params_valid(const gq_params *p)
{
    return (p->gp_kind == GQ_QUINCY || p->gp_kind == GQ_SPREAD) &&
           p->gp_machines >= 1 && p->gp_machines <= 1000000 &&
           p->gp_rack_size >= 3 && p->gp_tasks_per_machine > 0 &&
           p->gp_tasks_per_machine <= 1000 && p->gp_tasks_per_job >= 1 &&
           p->gp_utilisation > 0.01 && p->gp_utilisation <= 10 &&
           p->gp_running_share >= 0 && p->gp_running_share <= 1 &&
           p->gp_max_prefs >= 0 && p->gp_max_prefs <= GQ_MAX_PREFS &&
           p->gp_pref_threshold > 0 && p->gp_pref_threshold <= 1 &&
           p->gp_no_input_share >= 0 && p->gp_no_input_share <= 1 &&
           p->gp_blocks_mean >= 1 && p->gp_blocks_max >= 1 &&
           p->gp_blocks_max <= GQ_MAX_BLOCKS && p->gp_fair_share >= 0 &&
           p->gp_fair_share <= 1 && p->gp_tor_cost >= 0 &&
           p->gp_core_cost >= p->gp_tor_cost && p->gp_core_cost <= 1000000 &&
           p->gp_unsched_base >= 0 && p->gp_unsched_base <= 1000000000 &&
           p->gp_wait_cost >= 0 && p->gp_wait_cost <= 1000 &&
           p->gp_wait_mean > 0 && p->gp_run_discount >= 0 &&
           p->gp_run_discount <= 1000 && p->gp_run_mean > 0 &&
           p->gp_new_job_tasks >= 0 && p->gp_new_job_tasks <= 10000000 &&
           p->gp_new_job_share >= 0 && p->gp_new_job_share <= 1 &&
           p->gp_completion_share >= 0 && p->gp_completion_share <= 1;
}

/* --- world bookkeeping ----------------------------------------------------*/

static int grow_jobs(gq_world *w)
{
    if (w->w_njobs < w->w_jobs_cap)
        return 0;
    int32_t cap = w->w_jobs_cap < 64 ? 64 : w->w_jobs_cap * 2;
    gq_job *j = realloc(w->w_jobs, (size_t)cap * sizeof *j);
    if (j == NULL)
        return FC_ENOMEM;
    w->w_jobs = j;
    int32_t *a = realloc(w->w_alive, (size_t)cap * sizeof *a);
    if (a == NULL)
        return FC_ENOMEM;
    w->w_alive = a;
    w->w_jobs_cap = cap;
    return 0;
}

static int grow_tasks(gq_world *w)
{
    if (w->w_ntasks < w->w_tasks_cap)
        return 0;
    int32_t cap = w->w_tasks_cap < 1024 ? 1024 : w->w_tasks_cap * 2;
    gq_task *t = realloc(w->w_tasks, (size_t)cap * sizeof *t);
    if (t == NULL)
        return FC_ENOMEM;
    w->w_tasks = t;
    int32_t *r = realloc(w->w_running, (size_t)cap * sizeof *r);
    if (r == NULL)
        return FC_ENOMEM;
    w->w_running = r;
    w->w_tasks_cap = cap;
    return 0;
}

static int32_t rack_of(const gq_world *w, int32_t m)
{
    return m / w->w_p.gp_rack_size;
}

static int32_t rack_machines(const gq_world *w, int32_t r)
{
    int32_t first = r * w->w_p.gp_rack_size;
    int32_t n = w->w_p.gp_machines - first;
    return n < w->w_p.gp_rack_size ? n : w->w_p.gp_rack_size;
}

static int32_t random_machine_in(const gq_world *w, int32_t r, sk_rng *rng)
{
    return r * w->w_p.gp_rack_size +
           (int32_t)sk_rng_below(rng, (uint64_t)rack_machines(w, r));
}

/* The cost, per Quincy, of moving the task's input to machine m: blocks
 * elsewhere in m's rack cross its rack switch, the others the core. */
static int64_t machine_cost(const gq_world *w, const gq_input *in, int32_t m)
{
    int32_t here = 0, rack = 0, r = rack_of(w, m);
    for (int32_t i = 0; i < in->in_nm; i++)
        if (in->in_machine[i] == m)
            here = in->in_mdata[i];
    for (int32_t i = 0; i < in->in_nr; i++)
        if (in->in_rack[i] == r)
            rack = in->in_rdata[i];
    return w->w_p.gp_tor_cost * (rack - here) +
           w->w_p.gp_core_cost * (in->in_blocks - rack);
}

static void count_at(int32_t *ids, int32_t *counts, int32_t *n, int32_t id)
{
    for (int32_t i = 0; i < *n; i++) {
        if (ids[i] == id) {
            counts[i]++;
            return;
        }
    }
    ids[*n] = id;
    counts[*n] = 1;
    (*n)++;
}

/* Place the task's input: each block has one replica in a machine of one of
 * the job's racks (or anywhere, now and then) and two in another rack, as
 * HDFS and GFS do. */
static void place_input(const gq_world *w, const gq_job *job, sk_rng *rng,
                        gq_input *in)
{
    const gq_params *p = &w->w_p;
    in->in_nm = in->in_nr = 0;
    in->in_blocks = 0;
    if (job->jb_no_input)
        return;
    /* 1 + a geometric count: the floor of an exponential with mean mu has
     * mean 1 / (e^(1/mu) - 1), which is gp_blocks_mean - 1 for this mu. */
    int32_t b = 1;
    if (p->gp_blocks_mean > 1.0) {
        double mu = 1.0 / log1p(1.0 / (p->gp_blocks_mean - 1.0));
        b += (int32_t)fmin(floor(sk_rng_exponential(rng, mu)), GQ_MAX_BLOCKS);
    }
    in->in_blocks = b < p->gp_blocks_max ? b : p->gp_blocks_max;
    for (int32_t k = 0; k < in->in_blocks; k++) {
        int32_t r1 =
            job->jb_nracks > 0 && sk_rng_double(rng) < 0.8
                ? job->jb_racks[sk_rng_below(rng, (uint64_t)job->jb_nracks)]
                : (int32_t)sk_rng_below(rng, (uint64_t)w->w_nracks);
        int32_t r2 = r1;
        if (w->w_nracks > 1) {
            r2 = (int32_t)sk_rng_below(rng, (uint64_t)w->w_nracks - 1);
            if (r2 >= r1)
                r2++;
        }
        int32_t m1 = random_machine_in(w, r1, rng);
        int32_t m2, m3;
        do
            m2 = random_machine_in(w, r2, rng);
        while (m2 == m1 && rack_machines(w, r2) > 1);
        do
            m3 = random_machine_in(w, r2, rng);
        while ((m3 == m1 || m3 == m2) && rack_machines(w, r2) > 2);
        count_at(in->in_machine, in->in_mdata, &in->in_nm, m1);
        count_at(in->in_machine, in->in_mdata, &in->in_nm, m2);
        count_at(in->in_machine, in->in_mdata, &in->in_nm, m3);
        count_at(in->in_rack, in->in_rdata, &in->in_nr, r1);
        if (r2 != r1)
            count_at(in->in_rack, in->in_rdata, &in->in_nr, r2);
    }
}

static int pref_cmp(const void *a, const void *b)
{
    const gq_pref *x = a, *y = b;
    if (x->pf_cost != y->pf_cost)
        return x->pf_cost < y->pf_cost ? -1 : 1;
    if (x->pf_rack != y->pf_rack)
        return x->pf_rack ? 1 : -1;
    return x->pf_target < y->pf_target ? -1 : x->pf_target > y->pf_target;
}

/* Quincy's preference lists: the machines and racks holding at least the
 * threshold share of the input, cheapest first, at most gp_max_prefs. */
static int32_t make_prefs(const gq_world *w, const gq_input *in, gq_pref *prefs)
{
    const gq_params *p = &w->w_p;
    int32_t n = 0;
    double need = p->gp_pref_threshold * in->in_blocks;
    for (int32_t i = 0; i < in->in_nm; i++)
        if (in->in_mdata[i] >= need)
            prefs[n++] = (gq_pref){in->in_machine[i], false,
                                   machine_cost(w, in, in->in_machine[i])};
    for (int32_t i = 0; i < in->in_nr; i++) {
        if (in->in_rdata[i] >= need) {
            /* The worst machine of the rack holds none of the input. */
            int64_t c = p->gp_tor_cost * in->in_rdata[i] +
                        p->gp_core_cost * (in->in_blocks - in->in_rdata[i]);
            prefs[n++] = (gq_pref){in->in_rack[i], true, c};
        }
    }
    qsort(prefs, (size_t)n, sizeof *prefs, pref_cmp);
    return n < p->gp_max_prefs ? n : p->gp_max_prefs;
}

static int update_usink(struct fc_graph *g, gq_job *job)
{
    int32_t guaranteed =
        job->jb_tasks < job->jb_quota ? job->jb_tasks : job->jb_quota;
    int64_t cap = job->jb_tasks - guaranteed;
    if (fc_arc_capacity(g, job->jb_usink) == cap)
        return 0;
    return fc_arc_set_capacity(g, job->jb_usink, cap);
}

static int new_job(gq_world *w, struct fc_graph *g, sk_rng *rng, int32_t *out)
{
    int rc = grow_jobs(w);
    if (rc != 0)
        return rc;
    gq_job *job = &w->w_jobs[w->w_njobs];
    memset(job, 0, sizeof *job);
    job->jb_quota = w->w_p.gp_kind == GQ_QUINCY ? w->w_quota : 0;
    job->jb_no_input = sk_rng_double(rng) < w->w_p.gp_no_input_share;
    if (w->w_nracks > 0) {
        job->jb_nracks = 1 + (int32_t)sk_rng_below(rng, GQ_JOB_RACKS);
        for (int32_t i = 0; i < job->jb_nracks; i++)
            job->jb_racks[i] =
                (int32_t)sk_rng_below(rng, (uint64_t)w->w_nracks);
    }
    rc = fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &job->jb_unsched);
    if (rc == 0)
        rc = fc_arc_add(g, job->jb_unsched, w->w_sink, 0, 0, &job->jb_usink);
    if (rc != 0)
        return rc;
    job->jb_alive_pos = w->w_nalive;
    w->w_alive[w->w_nalive++] = w->w_njobs;
    *out = w->w_njobs++;
    return 0;
}

static int set_sink_demand(gq_world *w, struct fc_graph *g)
{
    if (fc_node_supply(g, w->w_sink) == -w->w_live_tasks)
        return 0;
    return fc_node_set_supply(g, w->w_sink, -w->w_live_tasks);
}

/* Add a task node to job j with its unscheduled arc (cost unsched), and
 * count it in the world. The caller adds the other arcs. */
static int add_task_node(gq_world *w, struct fc_graph *g, int32_t j,
                         int64_t unsched, int32_t *out)
{
    int rc = grow_tasks(w);
    if (rc != 0)
        return rc;
    gq_task *t = &w->w_tasks[w->w_ntasks];
    t->tk_job = j;
    t->tk_run_pos = -1;
    fc_arc a;
    rc = fc_node_add(g, 1, FC_NODE_TASK, &t->tk_node);
    if (rc == 0)
        rc = fc_arc_add(g, t->tk_node, w->w_jobs[j].jb_unsched, 1, unsched, &a);
    if (rc != 0)
        return rc;
    w->w_jobs[j].jb_tasks++;
    w->w_live_tasks++;
    *out = w->w_ntasks++;
    return 0;
}

static void mark_running(gq_world *w, int32_t t)
{
    w->w_tasks[t].tk_run_pos = w->w_nrunning;
    w->w_running[w->w_nrunning++] = t;
}

/* Machines with a free slot at build time, for placing running tasks. */
typedef struct gq_freelist {
    int32_t *fl_machine;
    int32_t *fl_pos; /* [machines] index in fl_machine, -1 if full */
    int32_t fl_n;
} gq_freelist;

static bool machine_free(const gq_world *w, int32_t m)
{
    return w->w_machine_busy[m] < w->w_machine_slots[m];
}

static void occupy(gq_world *w, gq_freelist *fl, int32_t m)
{
    w->w_machine_busy[m]++;
    if (!machine_free(w, m) && fl->fl_pos[m] >= 0) {
        int32_t last = fl->fl_machine[--fl->fl_n];
        fl->fl_machine[fl->fl_pos[m]] = last;
        fl->fl_pos[last] = fl->fl_pos[m];
        fl->fl_pos[m] = -1;
    }
}

/* Pick the machine a running task runs on: its cheapest preferred machine
 * with a free slot, else a free machine in a preferred rack, else any free
 * machine. Returns -1 if the cluster is full. */
static int32_t pick_machine(const gq_world *w, const gq_freelist *fl,
                            const gq_pref *prefs, int32_t n, sk_rng *rng)
{
    for (int32_t i = 0; i < n; i++)
        if (!prefs[i].pf_rack && machine_free(w, prefs[i].pf_target))
            return prefs[i].pf_target;
    for (int32_t i = 0; i < n; i++) {
        if (!prefs[i].pf_rack)
            continue;
        for (int k = 0; k < 4; k++) {
            int32_t m = random_machine_in(w, prefs[i].pf_target, rng);
            if (machine_free(w, m))
                return m;
        }
    }
    if (fl->fl_n == 0)
        return -1;
    return fl->fl_machine[sk_rng_below(rng, (uint64_t)fl->fl_n)];
}

static int64_t round_cost(double c)
{
    return (int64_t)llround(c);
}

/* A Quincy task: unscheduled arc (base + wait cost), cluster arc (all input
 * over the core), preference arcs, and for a running task an arc to its
 * machine whose cost is the data cost there less a discount for the time
 * it has run (the preemption cost is the unscheduled arc's). */
static int quincy_task(gq_world *w, struct fc_graph *g, int32_t j, bool running,
                       double wait, gq_freelist *fl, sk_rng *rng)
{
    const gq_params *p = &w->w_p;
    gq_input in;
    gq_pref prefs[5 * GQ_MAX_BLOCKS]; /* every replica holder */
    place_input(w, &w->w_jobs[j], rng, &in);
    int32_t np = make_prefs(w, &in, prefs);
    int32_t t;
    int rc = add_task_node(
        w, g, j, p->gp_unsched_base + round_cost(p->gp_wait_cost * wait), &t);
    if (rc != 0)
        return rc;
    fc_node v = w->w_tasks[t].tk_node;
    fc_arc a;
    rc = fc_arc_add(g, v, w->w_cluster, 1, p->gp_core_cost * in.in_blocks, &a);
    int32_t m = -1;
    if (rc == 0 && running)
        m = pick_machine(w, fl, prefs, np, rng);
    for (int32_t i = 0; rc == 0 && i < np; i++) {
        if (!prefs[i].pf_rack && prefs[i].pf_target == m)
            continue; /* the running arc stands for it */
        fc_node dst = prefs[i].pf_rack ? w->w_rack_node[prefs[i].pf_target]
                                       : w->w_machine_node[prefs[i].pf_target];
        rc = fc_arc_add(g, v, dst, 1, prefs[i].pf_cost, &a);
        w->w_pref_arcs++;
    }
    if (rc == 0 && m >= 0) {
        double run = sk_rng_pareto(rng, 1.5, p->gp_run_mean);
        if (run > GQ_RUN_CAP)
            run = GQ_RUN_CAP;
        int64_t cost =
            machine_cost(w, &in, m) - round_cost(p->gp_run_discount * run);
        rc = fc_arc_add(g, v, w->w_machine_node[m], 1, cost, &a);
        occupy(w, fl, m);
        mark_running(w, t);
    }
    return rc;
}

/* A load-spreading background task: it runs on a machine and stays there
 * unless preempted (the unscheduled arc). */
static int spread_task(gq_world *w, struct fc_graph *g, int32_t j,
                       gq_freelist *fl, sk_rng *rng)
{
    const gq_params *p = &w->w_p;
    double wait = sk_rng_exponential(rng, p->gp_wait_mean);
    int32_t t;
    int rc = add_task_node(
        w, g, j, p->gp_unsched_base + round_cost(p->gp_wait_cost * wait), &t);
    if (rc != 0 || fl->fl_n == 0)
        return rc;
    int32_t m = fl->fl_machine[sk_rng_below(rng, (uint64_t)fl->fl_n)];
    fc_arc a;
    rc = fc_arc_add(g, w->w_tasks[t].tk_node, w->w_machine_node[m], 1, 0, &a);
    occupy(w, fl, m);
    mark_running(w, t);
    return rc;
}

/* Job sizes follow the trace's shape: many single-task jobs and a heavy
 * tail; the mean is gp_tasks_per_job before capping. The cap scales with
 * the cluster so that a small cluster is not one giant job. */
static int32_t job_size(const gq_params *p, sk_rng *rng, int64_t tasks,
                        int64_t left)
{
    double n = 1.0, cap = ceil(GQ_MAX_JOB_SHARE * (double)tasks);
    if (sk_rng_double(rng) >= 0.4 && p->gp_tasks_per_job > 1.0)
        n = ceil(sk_rng_pareto(rng, 1.6, (p->gp_tasks_per_job - 0.4) / 0.6));
    if (n > cap)
        n = cap;
    return n > (double)left ? (int32_t)left : (int32_t)n;
}

static int build_resources(gq_world *w, struct fc_graph *g, int64_t tasks)
{
    const gq_params *p = &w->w_p;
    int32_t nm = p->gp_machines;
    w->w_machine_node = calloc((size_t)nm, sizeof *w->w_machine_node);
    w->w_machine_slots = calloc((size_t)nm, sizeof *w->w_machine_slots);
    w->w_machine_busy = calloc((size_t)nm, sizeof *w->w_machine_busy);
    w->w_nracks = p->gp_kind == GQ_QUINCY
                      ? (nm + p->gp_rack_size - 1) / p->gp_rack_size
                      : 0;
    w->w_rack_node = calloc((size_t)w->w_nracks + 1, sizeof *w->w_rack_node);
    if (w->w_machine_node == NULL || w->w_machine_slots == NULL ||
        w->w_machine_busy == NULL || w->w_rack_node == NULL)
        return FC_ENOMEM;
    w->w_slots = llround((double)tasks / p->gp_utilisation);
    if (w->w_slots < nm)
        w->w_slots = nm;
    int rc = fc_node_add(g, 0, FC_NODE_SINK, &w->w_sink);
    if (rc == 0)
        rc = fc_node_add(g, 0, FC_NODE_AGGREGATOR, &w->w_cluster);
    for (int32_t r = 0; rc == 0 && r < w->w_nracks; r++)
        rc = fc_node_add(g, 0, FC_NODE_AGGREGATOR, &w->w_rack_node[r]);
    fc_arc a;
    for (int32_t m = 0; rc == 0 && m < nm; m++) {
        /* Spread the slots evenly: machine m gets its share of the total. */
        w->w_machine_slots[m] =
            (int32_t)(w->w_slots * (m + 1) / nm - w->w_slots * m / nm);
        rc = fc_node_add(g, 0, FC_NODE_MACHINE, &w->w_machine_node[m]);
        if (rc == 0)
            rc = fc_arc_add(g, w->w_machine_node[m], w->w_sink,
                            w->w_machine_slots[m], 0, &a);
    }
    for (int32_t r = 0; rc == 0 && r < w->w_nracks; r++) {
        int64_t rack_slots = 0;
        int32_t first = r * p->gp_rack_size;
        for (int32_t i = 0; rc == 0 && i < rack_machines(w, r); i++) {
            rack_slots += w->w_machine_slots[first + i];
            rc = fc_arc_add(g, w->w_rack_node[r], w->w_machine_node[first + i],
                            w->w_machine_slots[first + i], 0, &a);
        }
        if (rc == 0)
            rc = fc_arc_add(g, w->w_cluster, w->w_rack_node[r], rack_slots, 0,
                            &a);
    }
    return rc;
}

/* The load-spreading aggregator: one arc per free slot of every machine,
 * the k-th costing the machine's load with k more tasks, so the cost of a
 * machine's load is convex and the solver spreads the new job. */
static int spread_arcs(gq_world *w, struct fc_graph *g)
{
    int rc = 0;
    fc_arc a;
    for (int32_t m = 0; rc == 0 && m < w->w_p.gp_machines; m++)
        for (int32_t k = w->w_machine_busy[m] + 1;
             rc == 0 && k <= w->w_machine_slots[m]; k++)
            rc = fc_arc_add(g, w->w_cluster, w->w_machine_node[m], 1, k, &a);
    return rc;
}

static int build(gq_world *w, struct fc_graph *g)
{
    const gq_params *p = &w->w_p;
    sk_rng rng;
    sk_rng_seed(&rng, p->gp_seed);
    int64_t tasks = llround(p->gp_tasks_per_machine * p->gp_machines);
    int rc = build_resources(w, g, tasks);
    if (rc != 0)
        return rc;
    gq_freelist fl = {0};
    fl.fl_machine = malloc((size_t)p->gp_machines * sizeof *fl.fl_machine);
    fl.fl_pos = malloc((size_t)p->gp_machines * sizeof *fl.fl_pos);
    if (fl.fl_machine == NULL || fl.fl_pos == NULL) {
        free(fl.fl_machine);
        free(fl.fl_pos);
        return FC_ENOMEM;
    }
    for (int32_t m = 0; m < p->gp_machines; m++) {
        fl.fl_pos[m] = fl.fl_n;
        fl.fl_machine[fl.fl_n++] = m;
    }
    /* Size the jobs first: the fairness quota depends on their number. */
    int32_t *sizes = NULL;
    int32_t nsizes = 0, sizes_cap = 0;
    for (int64_t left = tasks; rc == 0 && left > 0;) {
        if (nsizes == sizes_cap) {
            sizes_cap = sizes_cap < 64 ? 64 : 2 * sizes_cap;
            int32_t *s = realloc(sizes, (size_t)sizes_cap * sizeof *s);
            if (s == NULL) {
                rc = FC_ENOMEM;
                break;
            }
            sizes = s;
        }
        sizes[nsizes] = job_size(p, &rng, tasks, left);
        left -= sizes[nsizes++];
    }
    w->w_quota = nsizes > 0
                     ? (int32_t)(p->gp_fair_share * (double)w->w_slots / nsizes)
                     : 0;
    int64_t run_left = llround(p->gp_running_share * (double)tasks);
    if (run_left > w->w_slots)
        run_left = w->w_slots;
    int64_t task_left = tasks;
    for (int32_t k = 0; rc == 0 && k < nsizes; k++) {
        int32_t j;
        rc = new_job(w, g, &rng, &j);
        for (int32_t i = 0; rc == 0 && i < sizes[k]; i++) {
            /* Selection sampling: exactly run_left of the tasks run. */
            bool running =
                (double)run_left > sk_rng_double(&rng) * (double)task_left;
            task_left--;
            if (running)
                run_left--;
            if (p->gp_kind == GQ_SPREAD)
                rc = running ? spread_task(w, g, j, &fl, &rng)
                             : FC_EINVAL; /* background tasks all run */
            else
                rc = quincy_task(w, g, j, running,
                                 sk_rng_exponential(&rng, p->gp_wait_mean), &fl,
                                 &rng);
        }
        if (rc == 0)
            rc = update_usink(g, &w->w_jobs[j]);
    }
    free(sizes);
    free(fl.fl_machine);
    free(fl.fl_pos);
    if (rc == 0 && p->gp_kind == GQ_SPREAD && p->gp_new_job_tasks > 0) {
        int32_t j;
        rc = new_job(w, g, &rng, &j);
        fc_arc a;
        for (int32_t i = 0; rc == 0 && i < p->gp_new_job_tasks; i++) {
            int32_t t;
            rc = add_task_node(w, g, j, p->gp_unsched_base, &t);
            if (rc == 0)
                rc = fc_arc_add(g, w->w_tasks[t].tk_node, w->w_cluster, 1, 0,
                                &a);
        }
        if (rc == 0)
            rc = update_usink(g, &w->w_jobs[j]);
    }
    if (rc == 0 && p->gp_kind == GQ_SPREAD)
        rc = spread_arcs(w, g);
    if (rc == 0)
        rc = set_sink_demand(w, g);
    return rc;
}

int gq_build(const gq_params *p, struct fc_graph **gout, gq_world **wout)
{
    /* Load-spreading background tasks all run, so they must fit. */
    if (!params_valid(p) ||
        (p->gp_kind == GQ_SPREAD &&
         (p->gp_running_share != 1.0 || p->gp_utilisation > 1.0)))
        return FC_EINVAL;
    gq_world *w = calloc(1, sizeof *w);
    fc_graph *g = NULL;
    if (w == NULL)
        return FC_ENOMEM;
    w->w_p = *p;
    int rc = fc_graph_new(&g);
    if (rc == 0)
        rc = build(w, g);
    if (rc != 0) {
        fc_graph_free(g);
        gq_world_free(w);
        return rc;
    }
    *gout = g;
    *wout = w;
    return 0;
}

static void *dup_bytes(const void *src, size_t bytes, bool *failed)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        *failed = true;
    else if (bytes > 0)
        memcpy(p, src, bytes);
    return p;
}

int gq_world_clone(const gq_world *w, gq_world **out)
{
    gq_world *c = calloc(1, sizeof *c);
    if (c == NULL)
        return FC_ENOMEM;
    *c = *w;
    bool failed = false;
    size_t nm = (size_t)w->w_p.gp_machines;
    c->w_rack_node = dup_bytes(
        w->w_rack_node, ((size_t)w->w_nracks + 1) * sizeof(fc_node), &failed);
    c->w_machine_node =
        dup_bytes(w->w_machine_node, nm * sizeof(fc_node), &failed);
    c->w_machine_slots =
        dup_bytes(w->w_machine_slots, nm * sizeof(int32_t), &failed);
    c->w_machine_busy =
        dup_bytes(w->w_machine_busy, nm * sizeof(int32_t), &failed);
    c->w_jobs =
        dup_bytes(w->w_jobs, (size_t)w->w_jobs_cap * sizeof(gq_job), &failed);
    c->w_alive =
        dup_bytes(w->w_alive, (size_t)w->w_jobs_cap * sizeof(int32_t), &failed);
    c->w_tasks = dup_bytes(w->w_tasks, (size_t)w->w_tasks_cap * sizeof(gq_task),
                           &failed);
    c->w_running = dup_bytes(w->w_running,
                             (size_t)w->w_tasks_cap * sizeof(int32_t), &failed);
    if (failed) {
        gq_world_free(c);
        return FC_ENOMEM;
    }
    *out = c;
    return 0;
}

void gq_world_free(gq_world *w)
{
    if (w == NULL)
        return;
    free(w->w_rack_node);
    free(w->w_machine_node);
    free(w->w_machine_slots);
    free(w->w_machine_busy);
    free(w->w_jobs);
    free(w->w_alive);
    free(w->w_tasks);
    free(w->w_running);
    free(w);
}

void gq_world_summary(const gq_world *w, gq_summary *out)
{
    out->gs_machines = w->w_p.gp_machines;
    out->gs_racks = w->w_nracks;
    out->gs_slots = w->w_slots;
    out->gs_jobs = w->w_nalive;
    out->gs_tasks = w->w_live_tasks;
    out->gs_running = w->w_nrunning;
    out->gs_pref_arcs = w->w_pref_arcs;
}

/* --- rounds -------------------------------------------------------------*/

static int complete_task(gq_world *w, struct fc_graph *g, int32_t t,
                         gq_round_stats *st)
{
    gq_task *task = &w->w_tasks[t];
    gq_job *job = &w->w_jobs[task->tk_job];
    int rc = fc_node_remove_drain(g, task->tk_node);
    if (rc != 0)
        return rc;
    task->tk_node = FC_NONE;
    int32_t last = w->w_running[--w->w_nrunning];
    w->w_running[task->tk_run_pos] = last;
    w->w_tasks[last].tk_run_pos = task->tk_run_pos;
    task->tk_run_pos = -1;
    job->jb_tasks--;
    w->w_live_tasks--;
    st->gr_completions++;
    if (job->jb_tasks == 0) {
        rc = fc_node_remove(g, job->jb_unsched);
        job->jb_unsched = FC_NONE;
        int32_t moved = w->w_alive[--w->w_nalive];
        w->w_alive[job->jb_alive_pos] = moved;
        w->w_jobs[moved].jb_alive_pos = job->jb_alive_pos;
        job->jb_alive_pos = -1;
        st->gr_jobs_done++;
    } else {
        rc = update_usink(g, job);
    }
    /* Draining lowered the sink's demand if the task's flow reached it; if
     * the task carried no flow (an unsolved graph) lower it here. */
    return rc != 0 ? rc : set_sink_demand(w, g);
}

int gq_round(gq_world *w, struct fc_graph *g, int32_t events, sk_rng *rng,
             gq_round_stats *out)
{
    memset(out, 0, sizeof *out);
    if (w->w_p.gp_kind != GQ_QUINCY || events < 0)
        return FC_EINVAL;
    const gq_params *p = &w->w_p;
    int rc = 0;
    for (int32_t e = 0; rc == 0 && e < events; e++) {
        if (w->w_nrunning > 0 && sk_rng_double(rng) < p->gp_completion_share) {
            int32_t t =
                w->w_running[sk_rng_below(rng, (uint64_t)w->w_nrunning)];
            rc = complete_task(w, g, t, out);
            continue;
        }
        int32_t j;
        if (w->w_nalive == 0 || sk_rng_double(rng) < p->gp_new_job_share) {
            rc = new_job(w, g, rng, &j);
            out->gr_new_jobs++;
        } else {
            j = w->w_alive[sk_rng_below(rng, (uint64_t)w->w_nalive)];
        }
        if (rc == 0)
            rc = quincy_task(w, g, j, false, 0.0, NULL, rng);
        if (rc == 0)
            rc = update_usink(g, &w->w_jobs[j]);
        if (rc == 0)
            rc = set_sink_demand(w, g);
        out->gr_arrivals++;
    }
    return rc;
}
