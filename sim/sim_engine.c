/*
 * sim_engine.c - the simulator's engine: one point from parameters to
 * results. It seeds the streams, labels the nodes, feeds the jobs of the
 * workload to the strategy at their arrival times, runs the event loop,
 * decides when the measurement is over, and prints progress.
 */
#include "sim.h"
#include "sim_loc.h"
#include "sim_par.h"

#include "sk_log.h"
#include "skylark.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void sim_params_init(sim_params *p)
{
    memset(p, 0, sizeof *p);
    p->p_nodes = 100;
    p->p_slots = 4;
    p->p_scheds = 1;
    p->p_strategy = SIM_LATE;
    p->p_ratio = 2;
    p->p_delay = 500;
    p->p_delay_kind = SIM_DELAY_FIXED;
    p->p_fe_delay = 0;
    p->p_gen.g_load = 0.8;
    p->p_gen.g_tasks = 10;
    p->p_gen.g_dist = (sim_dist){SIM_DIST_EXP, 100000, 1.5};
    p->p_jobs = 1000;
    p->p_warmup = 100;
    p->p_seed = 1;
    sched_config_init(&p->p_sched);
    /* A simulated cluster runs more and larger jobs than a daemon's
     * defaults admit (a Google trace job has up to 20,010 tasks). */
    p->p_sched.sc_max_tasks = SK_MAX_TASKS;
    p->p_sched.sc_max_jobs = 10000000;
    /* Nor does it guard against a hostile frontend: no budget binds. */
    p->p_sched.sc_max_fe_jobs = p->p_sched.sc_max_jobs;
    p->p_sched.sc_max_user_jobs = p->p_sched.sc_max_jobs;
    p->p_sched.sc_max_bytes = p->p_sched.sc_max_fe_bytes = 1ll << 40;
    p->p_sched.sc_max_user_bytes = 1ll << 40;
    nm_config_init(&p->p_nm, 4);
    /* The node monitor keeps a heap of max_users entries per priority
     * level: 4,096 users would cost 256 KiB per node, 2.5 GiB at 10,000
     * nodes. It needs room for the users with work on the node at once
     * (idle ones are forgotten first); 256 is plenty for the Google
     * trace's users. */
    p->p_nm.nc_max_users = 256;
    p->p_mix = SIM_MIX_SKIP;
    snprintf(p->p_flow_policy, sizeof p->p_flow_policy, "quincy");
    p->p_flow_algorithm = -1;
    p->p_relax_budget = -1;
    p->p_solve_time = SIM_SOLVE_WORK;
    p->p_long_share = 0.75;
    p->p_short_part = 0.17;
}

static const sim_strategy *const strategies[SIM_NSTRATEGIES] = {
    [SIM_RANDOM] = &sim_strategy_random, [SIM_PERTASK] = &sim_strategy_pertask,
    [SIM_BATCH] = &sim_strategy_batch,   [SIM_LATE] = &sim_strategy_late,
    [SIM_OMNI] = &sim_strategy_omni,
};

const sim_strategy *sim_strategy_get(sim_strategy_id id)
{
    return id < SIM_NSTRATEGIES ? strategies[id] : NULL;
}

int sim_strategy_parse(const char *name, sim_strategy_id *out)
{
    for (int i = 0; i < SIM_NSTRATEGIES; i++)
        if (strcmp(name, strategies[i]->ss_name) == 0) {
            *out = (sim_strategy_id)i;
            return 0;
        }
    return SK_EINVAL;
}

void *sim_lines(size_t size)
{
    size = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, size);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

sim_ev *sim_at(sim *s, sk_time at, uint8_t kind, bool fifo, uint32_t *id)
{
    uint32_t tmp;
    sim_ev *ev = sim_evq_add(&s->s_q, at, fifo, id != NULL ? id : &tmp);
    ev->ev_kind = kind;
    return ev;
}

sim_ev *sim_at_part(sim *s, uint32_t part, uint32_t order, sk_time at,
                    uint8_t kind, bool fifo)
{
    if (part == s->s_part)
        return sim_at(s, at, kind, fifo, NULL);
    sim_ev *ev = sim_par_at(s, part, order, at, fifo);
    ev->ev_kind = kind;
    return ev;
}

void sim_msg_done(sim *s, sim_msg *m)
{
    if (s->s_par != NULL)
        sim_par_done(s, m);
    else
        sim_msg_put(&s->s_msgs, m);
}

void sim_busy(sim *s, int delta)
{
    if (s->s_par != NULL)
        sim_par_busy(s, delta);
    else
        sim_stats_busy(&s->s_st, s->s_now, delta);
}

sk_time sim_net_time(sim *s, uint32_t node, uint32_t sched, bool to_node,
                     bool *fifo)
{
    const sim_params *p = s->s_p;
    if (p->p_delay_kind == SIM_DELAY_FIXED) {
        *fifo = true;
        return s->s_now + p->p_delay;
    }
    *fifo = false;
    /* A node draws from a stream of its own, so that a split run draws
     * the same delays whatever partition the node is in. */
    sk_rng *rng = to_node ? &s->s_net_rng : &s->s_node_rng[node];
    double d = p->p_delay_kind == SIM_DELAY_UNIFORM
                   ? (double)p->p_delay * (0.5 + sk_rng_double(rng))
                   : sk_rng_exponential(rng, (double)p->p_delay);
    sk_time at = s->s_now + (sk_time)(d + 0.5);
    sk_time *last =
        &s->s_links[((size_t)node * p->p_scheds + sched) * 2 + to_node];
    if (at < *last)
        at = *last;
    *last = at;
    return at;
}

void sim_fail(sim *s, int rc, const char *fmt, ...)
{
    if (s->s_error != 0)
        return;
    s->s_error = rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->s_err, sizeof s->s_err, fmt, ap);
    va_end(ap);
}

bool sim_node_fits(const sim *s, uint32_t node, const sim_job *j)
{
    if (j->j_nlabels == 0)
        return true;
    uint64_t need = 0;
    for (uint32_t i = 0; i < j->j_nlabels; i++)
        need |= 1ull << j->j_labels[i];
    return (s->s_node_labels[node] & need) == need;
}

const char *sim_node_name(uint32_t node, char *buf)
{
    snprintf(buf, 16, "n%u", node);
    return buf;
}

/* stop_early stops the arrivals once no measured task waits any more
 * (see sim_task_start). */
static void stop_early(sim *s)
{
    if (!s->s_measured_all_in || s->s_measured_unstarted > 0 ||
        s->s_arrivals_done)
        return;
    s->s_arrivals_done = true;
    if (s->s_next != NULL) {
        sim_evq_rec(&s->s_q, s->s_arrival_id)->ev_dead = 1;
        sim_job_free(s->s_next);
        s->s_next = NULL;
    }
}

void sim_task_start(sim *s, sim_job *j)
{
    if (j->j_unstarted == 0)
        return;
    j->j_unstarted--;
    if (j->j_measured && --s->s_measured_unstarted == 0)
        stop_early(s);
}

void sim_task_end(sim *s, sim_job *j, uint32_t task, uint32_t attempt,
                  const char *node, sk_time start, sk_time end, uint8_t status,
                  bool queued)
{
    sim_stats_task(&s->s_st, j, task, attempt, node, start, end, status,
                   queued);
    if (node == NULL)
        sim_task_start(s, j);
}

void sim_job_end(sim *s, sim_job *j, sim_job_outcome outcome)
{
    if (j->j_measured) {
        s->s_measured_unstarted -= j->j_unstarted;
        j->j_unstarted = 0;
    }
    sim_stats_job(&s->s_st, j, outcome, s->s_now);
    if (s->s_loc != NULL)
        sim_loc_end(s->s_loc, j);
    if (j->j_prev != NULL)
        j->j_prev->j_next = j->j_next;
    else
        s->s_inflight = j->j_next;
    if (j->j_next != NULL)
        j->j_next->j_prev = j->j_prev;
    s->s_ninflight--;
    if (j->j_measured)
        s->s_measured_left--;
    sim_job_free(j);
    stop_early(s);
}

/* ---- set-up ----------------------------------------------------------- */

static int check_params(const sim_params *p, char *err, size_t errlen)
{
    const char *why = NULL;
    if (p->p_nodes < 1 || p->p_nodes > SIM_MAX_NODES)
        why = "nodes must be in 1..65536";
    else if (p->p_slots < 1 || p->p_slots > SK_MAX_SLOTS)
        why = "slots must be in 1..4096";
    else if (p->p_scheds < 1 || p->p_scheds > SIM_MAX_SCHEDS)
        why = "schedulers must be in 1..1024";
    else if (!(p->p_ratio >= 1 && p->p_ratio <= SK_MAX_PROBE_RATIO))
        why = "probe ratio must be in [1, 64]";
    else if (p->p_delay > 10000000 || p->p_fe_delay > 10000000)
        why = "delays must be at most 10 s";
    else if (p->p_delay_kind != SIM_DELAY_FIXED && p->p_delay == 0)
        why = "a distributed delay needs a mean above 0";
    else if (p->p_jobs_file == NULL && p->p_jobs == 0)
        why = "the generator needs a number of jobs";
    else if (p->p_strategy >= SIM_NSTRATEGIES)
        why = "unknown strategy";
    else if (p->p_threads > SIM_PAR_MAX_THREADS)
        why = "threads must be in 1..64";
    else if (p->p_mix >= SIM_NMIXES)
        why = "unknown mix";
    else if (p->p_mix != SIM_MIX_SKIP && p->p_mix != SIM_MIX_SAMPLING &&
             p->p_strategy != SIM_LATE)
        why = "the flow path (mix flow, hawk, hybrid) needs the "
              "late-binding strategy";
    else if (!(p->p_long_share > 0 && p->p_long_share <= 1))
        why = "long_share must be in (0, 1]";
    else if (!(p->p_short_part >= 0 && p->p_short_part < 1))
        why = "the short-only partition must be in [0, 1)";
    else if (p->p_rack_size > p->p_nodes)
        why = "a rack cannot hold more than the nodes";
    else if (p->p_rack_size > 0 && p->p_racks > 0)
        why = "give racks by --racks or by --rack-size, not both";
    else if (p->p_rack_size == 0 &&
             (p->p_remote_rack != 0 || p->p_remote_cross != 0 ||
              p->p_hide_prefs || p->p_mix == SIM_MIX_GREEDY))
        why = "remote reads, hidden preferences and mix greedy need racks "
              "(--rack-size)";
    else if (p->p_remote_rack > 3600000000 || p->p_remote_cross > 3600000000)
        why = "remote reads must cost at most an hour";
    if (why != NULL) {
        snprintf(err, errlen, "%s", why);
        return SK_EINVAL;
    }
    return 0;
}

/* label_nodes puts each label on its share of the nodes, chosen at
 * random (rounded to whole nodes). */
static int label_nodes(sim *s, sk_rng *rng)
{
    const sim_params *p = s->s_p;
    s->s_node_labels = calloc(p->p_nodes, sizeof *s->s_node_labels);
    s->s_node_names = malloc(p->p_nodes * sizeof *s->s_node_names);
    uint32_t *perm = malloc(p->p_nodes * sizeof *perm);
    if (s->s_node_labels == NULL || s->s_node_names == NULL || perm == NULL) {
        free(perm);
        return SK_ENOMEM;
    }
    for (uint32_t i = 0; i < p->p_nodes; i++)
        snprintf(s->s_node_names[i], sizeof s->s_node_names[i], "n%u", i);
    for (uint32_t l = 0; l < p->p_nnode_labels; l++) {
        uint32_t k = (uint32_t)(p->p_node_label_share[l] * p->p_nodes + 0.5);
        if (k > p->p_nodes)
            k = p->p_nodes;
        sk_rng_sample_init(p->p_nodes, perm);
        uint32_t *picked = malloc((k ? k : 1) * sizeof *picked);
        if (picked == NULL) {
            free(perm);
            return SK_ENOMEM;
        }
        sk_rng_sample(rng, p->p_nodes, k, perm, picked);
        for (uint32_t i = 0; i < k; i++)
            s->s_node_labels[picked[i]] |= 1ull << p->p_node_label[l];
        free(picked);
    }
    free(perm);
    return 0;
}

/* next_arrival reads the next job and schedules its arrival, or notes
 * that no more will come. */
static void next_arrival(sim *s)
{
    const sim_params *p = s->s_p;
    s->s_next = NULL;
    if (s->s_arrivals_done)
        return;
    sim_job *j = NULL;
    char err[512];
    int rc = sim_src_next(&s->s_src, &j, err, sizeof err);
    if (rc < 0) {
        sim_fail(s, rc, "%s", err);
        s->s_arrivals_done = true;
        return;
    }
    if (rc == 0) {
        s->s_arrivals_done = true;
        s->s_measured_all_in = true;
        return;
    }
    bool in_range = j->j_seq >= p->p_warmup &&
                    (p->p_jobs == 0 || j->j_seq < p->p_warmup + p->p_jobs);
    j->j_measured = !j->j_long && in_range;
    j->j_long_measured = j->j_long && in_range;
    s->s_next = j;
    sk_time at = j->j_arrival > s->s_now ? j->j_arrival : s->s_now;
    sim_at(s, at, SIM_EV_ARRIVAL, false, &s->s_arrival_id);
}

static void arrival(sim *s)
{
    const sim_params *p = s->s_p;
    sim_job *j = s->s_next;
    j->j_arrival = s->s_now;
    sim_stats_arrival(&s->s_st, j, s->s_now);
    if (p->p_write_jobs != NULL &&
        sim_job_write(p->p_write_jobs, j, s->s_names) != 0)
        sim_fail(s, SK_ESYS, "writing the job file failed");
    j->j_next = s->s_inflight;
    if (s->s_inflight != NULL)
        s->s_inflight->j_prev = j;
    s->s_inflight = j;
    s->s_ninflight++;
    j->j_unstarted = j->j_ntasks;
    if (j->j_measured) {
        s->s_measured_left++;
        s->s_measured_unstarted += j->j_ntasks;
    }
    j->j_sched = (uint32_t)(j->j_seq % p->p_scheds);
    if (p->p_jobs != 0 && j->j_seq + 1 >= p->p_warmup + p->p_jobs) {
        s->s_measured_all_in = true;
        if (p->p_drain && !s->s_src.s_file_mode)
            s->s_arrivals_done = true;
    }
    next_arrival(s);
    if (s->s_loc != NULL && sim_loc_arrive(s->s_loc, j) != 0) {
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    /* Long jobs go to the flow plug-in (mix hawk, or a plug-in of the
     * caller's) or are skipped; with mix sampling, flow and hybrid they
     * go to the strategy, whose scheduler hands them to the flow node
     * (flow, hybrid) or samples them. Mix greedy gives it every job. */
    if ((j->j_long && (p->p_mix == SIM_MIX_SKIP || p->p_mix == SIM_MIX_HAWK)) ||
        (p->p_mix == SIM_MIX_GREEDY && s->s_flow != NULL)) {
        if (s->s_flow != NULL)
            s->s_flow->fl_submit(s->s_flow->fl_ctx, s, j);
        else
            sim_job_end(s, j, SIM_JOB_SKIPPED);
        return;
    }
    s->s_ops->ss_submit(s, j);
}

/* ---- the loop --------------------------------------------------------- */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sim_progress(const sim *s, double t0, uint64_t events, bool last)
{
    const sim_params *p = s->s_p;
    if (last) {
        fprintf(stderr, "\r%*s\r", 79, "");
        return;
    }
    double el = wall_now() - t0;
    uint64_t want = p->p_jobs ? p->p_jobs : s->s_st.st_measured_arrived;
    fprintf(
        stderr,
        "\r%s: virtual %.2f s, %llu/%llu measured jobs done, %.2f M events/s  ",
        p->p_label ? p->p_label : "sim", (double)s->s_now / 1e6,
        (unsigned long long)s->s_st.st_measured_done, (unsigned long long)want,
        el > 0 ? (double)events / el / 1e6 : 0.0);
}

/* The next events' stages of ss_prefetch (sim.h), and the record of the
 * one after them. */
static void prefetch(sim *s)
{
    uint32_t ahead[SIM_PREFETCH_STAGES + 1];
    uint32_t n = sim_evq_upcoming(&s->s_q, ahead, SIM_PREFETCH_STAGES + 1);
    if (n == SIM_PREFETCH_STAGES + 1)
        __builtin_prefetch(sim_evq_rec(&s->s_q, ahead[SIM_PREFETCH_STAGES]));
    for (uint32_t k = 0; k < n && k < SIM_PREFETCH_STAGES; k++)
        s->s_ops->ss_prefetch(s, sim_evq_rec(&s->s_q, ahead[k]),
                              SIM_PREFETCH_STAGES - 1 - k);
}

/* over tells whether partition 0 has reached the end of the run. */
static bool over(const sim *s)
{
    const sim_params *p = s->s_p;
    if (s->s_part != 0)
        return false;
    if (!p->p_drain)
        return s->s_measured_all_in && s->s_measured_left == 0;
    /* Draining ends with the last job, not with the last event: a node
     * monitor's heartbeat timer never runs out. */
    return s->s_arrivals_done && s->s_ninflight == 0;
}

void sim_run_until(sim *s, sk_time end, uint64_t budget)
{
    const sim_params *p = s->s_p;
    uint64_t last = s->s_events + budget;
    sk_time at;
    uint32_t id;
    while (s->s_error == 0 && !s->s_stop && s->s_events != last &&
           sim_evq_next_time(&s->s_q) < end && sim_evq_pop(&s->s_q, &at, &id)) {
        sim_ev ev = *sim_evq_rec(&s->s_q, id);
        sim_evq_free(&s->s_q, id);
        if (ev.ev_dead)
            continue;
        s->s_now = at;
        s->s_events++;
        if (s->s_ops->ss_prefetch != NULL)
            prefetch(s);
        if (ev.ev_kind == SIM_EV_ARRIVAL)
            arrival(s);
        else if (ev.ev_kind >= SIM_EV_FLOW && s->s_flow != NULL)
            s->s_flow->fl_event(s->s_flow->fl_ctx, s, &ev);
        else
            s->s_ops->ss_event(s, &ev);
        if (p->p_check && s->s_ops->ss_check != NULL && s->s_error == 0) {
            char err[400];
            if (s->s_ops->ss_check(s, err, sizeof err) != 0)
                sim_fail(s, SK_ESTATE, "at t=%llu us: %s",
                         (unsigned long long)s->s_now, err);
        }
        if (over(s))
            s->s_stop = true;
    }
}

/* run runs an unsplit run to its end, showing progress in slices of
 * 65,536 events. */
static void run(sim *s)
{
    double t0 = wall_now(), shown = t0;
    while (s->s_error == 0 && !s->s_stop &&
           sim_evq_next_time(&s->s_q) != SK_TIME_NEVER) {
        sim_run_until(s, SK_TIME_NEVER, 65536);
        double w = wall_now();
        if (s->s_p->p_progress && w - shown >= 0.5) {
            shown = w;
            sim_progress(s, t0, s->s_events, false);
        }
    }
    if (s->s_p->p_progress)
        sim_progress(s, t0, 0, true);
}

uint64_t sim_default_warmup(const sim_params *p)
{
    double jobs = 10.0 * p->p_gen.g_load * (double)p->p_nodes *
                  (double)p->p_slots / (double)p->p_gen.g_tasks;
    return jobs > 100 ? (uint64_t)ceil(jobs) : 100;
}

uint64_t sim_work_seed(uint64_t seed)
{
    sk_rng master;
    sk_rng_seed(&master, seed);
    return sk_rng_next(&master);
}

/* make_node_streams gives each node its own stream of delays (split from
 * the network's) and each link its last delivery time. */
static int make_node_streams(sim *s)
{
    const sim_params *p = s->s_p;
    s->s_links =
        calloc((size_t)p->p_nodes * p->p_scheds * 2, sizeof *s->s_links);
    s->s_node_rng = malloc(p->p_nodes * sizeof *s->s_node_rng);
    if (s->s_links == NULL || s->s_node_rng == NULL)
        return SK_ENOMEM;
    for (uint32_t i = 0; i < p->p_nodes; i++)
        sk_rng_split(&s->s_net_rng, &s->s_node_rng[i]);
    return 0;
}

/* Below this many nodes a split run defaults to one thread. The threads
 * hand every window to each other, and a small cluster's windows hold
 * too little work to pay for it. Measured with 4 slots, 50-task jobs of
 * 100 ms, load 0.8, 5,000 jobs (wall time, one thread against two):
 * 100 nodes 0.40 s against 0.84 s, 1,000 nodes 0.54 s against 0.59 s,
 * 2,000 nodes 1.06 s against 0.74 s, 3,000 nodes 1.07-1.23 s against
 * 0.71-0.74 s. */
#define SPLIT_MIN_NODES 2000u

/* run_threads returns how many threads run p split (sim_par.h), 0 for
 * an unsplit run: a strategy that cannot split, a network without
 * lookahead. Checking invariants after every event needs one thread, as
 * the check reads every node. */
static uint32_t run_threads(const sim_params *p, const sim_flow *flow)
{
    if (!sim_strategy_get(p->p_strategy)->ss_split || sim_par_lookahead(p) == 0)
        return 0;
    /* The flow path's peers live in partition 0 and call into the nodes:
     * one thread. */
    if (flow != NULL)
        return 1;
    /* Racks: the locality counters are shared by the partitions. */
    if (p->p_check || p->p_rack_size > 0)
        return 1;
    if (p->p_threads > 0)
        return p->p_threads;
    if (p->p_nodes < SPLIT_MIN_NODES)
        return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return cpus > (long)SIM_PAR_MAX_THREADS ? SIM_PAR_MAX_THREADS
                                            : (uint32_t)cpus;
}

int sim_run(const sim_params *p, sim_names *names, const sim_flow *flow,
            sim_result *res, bool *bad_input, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    *bad_input = true;
    int rc = check_params(p, err, errlen);
    if (rc != 0)
        return rc;
    /* On cache lines of its own: a split run's partitions are written by
     * threads of their own. */
    sim *s = sim_lines(sizeof *s);
    if (s == NULL)
        return SK_ENOMEM;
    s->s_p = p;
    s->s_names = names;
    s->s_flow = flow;
    s->s_ops = sim_strategy_get(p->p_strategy);
    sim_msgpool_init(&s->s_msgs, 0);
    /* One stream each, split in a fixed order from the seed, so that the
     * workload is the same whatever the strategy and the network. */
    sk_rng master, cluster;
    sk_rng_seed(&master, p->p_seed);
    uint64_t work_seed = sk_rng_next(&master);
    SK_ASSERT(work_seed == sim_work_seed(p->p_seed));
    sk_rng_split(&master, &cluster);
    sk_rng_split(&master, &s->s_rng);
    sk_rng_split(&master, &s->s_net_rng);
    double t0 = wall_now(), c0 = cpu_now();
    bool strategy_up = false;
    if ((rc = sim_evq_init(&s->s_q)) != 0 || (rc = label_nodes(s, &cluster)))
        goto out;
    if (p->p_delay_kind != SIM_DELAY_FIXED && (rc = make_node_streams(s)) != 0)
        goto out;
    if (p->p_jobs_file != NULL)
        rc = sim_src_file(&s->s_src, p->p_jobs_file, names, p->p_nodes,
                          work_seed, err, errlen);
    else
        rc = sim_src_gen(&s->s_src, &p->p_gen, names, work_seed, err, errlen);
    if (rc != 0)
        goto out;
    rc = sim_stats_init(&s->s_st, (uint64_t)p->p_nodes * p->p_slots,
                        p->p_jobs_out, p->p_tasks_out, names);
    if (rc != 0)
        goto out;
    if ((rc = sim_loc_new(p, &s->s_loc)) != 0)
        goto out;
    uint32_t threads = run_threads(p, flow);
    if (threads > 0 && (rc = sim_par_new(s, threads, sim_par_lookahead(p))))
        goto out;
    if ((rc = s->s_ops->ss_init(s, err, errlen)) != 0)
        goto out;
    strategy_up = true;
    if (s->s_par != NULL)
        sim_par_ready(s);
    if (flow != NULL && flow->fl_start != NULL)
        flow->fl_start(flow->fl_ctx, s);
    next_arrival(s);
    if (s->s_error == 0 && s->s_par != NULL)
        sim_par_run(s);
    else if (s->s_error == 0)
        run(s);
    if (s->s_error != 0) {
        /* An error in the job file is bad input; anything else is a
         * failure of the run (a core, an invariant). */
        *bad_input = s->s_error == SK_EPROTO || s->s_error == SK_ELIMIT;
        rc = s->s_error;
        snprintf(err, errlen, "%s", s->s_err);
        goto out;
    }
    *bad_input = false;
    sim_stats_busy(&s->s_st, s->s_now, 0);
    if (s->s_ops->ss_report != NULL) {
        FILE *f = fmemopen(res->r_report, sizeof res->r_report - 1, "w");
        if (f != NULL) {
            s->s_ops->ss_report(s, f);
            if (flow != NULL && flow->fl_report != NULL)
                flow->fl_report(flow->fl_ctx, s, f);
            if (s->s_loc != NULL)
                sim_loc_report(s->s_loc, f);
            fclose(f);
        }
    }
    res->r_events = s->s_events;
    res->r_end = s->s_now;
    res->r_inflight = s->s_ninflight;
    res->r_st = s->s_st;
    memset(&s->s_st, 0, sizeof s->s_st);
out:
    res->r_wall = wall_now() - t0;
    res->r_cpu = cpu_now() - c0;
    if (strategy_up)
        s->s_ops->ss_fini(s);
    while (s->s_inflight != NULL) {
        sim_job *j = s->s_inflight;
        s->s_inflight = j->j_next;
        sim_job_free(j);
    }
    sim_job_free(s->s_next);
    sim_par_free(s);
    sim_loc_free(s->s_loc);
    sim_stats_fini(&s->s_st);
    sim_src_close(&s->s_src);
    sim_evq_fini(&s->s_q);
    sim_msgpool_fini(&s->s_msgs);
    free(s->s_node_labels);
    free(s->s_node_names);
    free(s->s_links);
    free(s->s_node_rng);
    free(s);
    if (rc == SK_ENOMEM) {
        snprintf(err, errlen, "out of memory");
        *bad_input = false;
    }
    return rc;
}
