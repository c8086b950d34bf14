/*
 * sim.h - skylark-sim, a deterministic discrete-event simulator of a
 * cluster scheduled by Skylark, and of the strategies Skylark is compared
 * with, at 10,000-node scale.
 *
 * One simulation (a "point") has a cluster of nodes x slots, K schedulers
 * (each with a frontend beside it; jobs go to schedulers round-robin), a
 * network with a one-way delay, a workload (sim_work.h) and a placement
 * strategy. Everything happens in virtual time, driven by one event queue
 * (sim_evq.h); all randomness comes from sk_rng streams split from the
 * run's seed (workload, strategy, network), so the same parameters and
 * seed give the same output, byte for byte.
 *
 * Strategies (sim_strategy), all in this same engine:
 *  - late-binding: batch sampling with late binding, run by the REAL
 *    scheduler and node monitor cores (scheduler/libsched,
 *    nodemon/libnodemon), unchanged, exchanging sk_msg messages over the
 *    simulated network (sim_real.c). The node monitors' command executor
 *    is simulated: a launched task ends after its duration.
 *  - random, per-task, batch: small models of random placement, per-task
 *    sampling (power of d choices) and batch sampling where nodes answer
 *    a probe at once with their queue length (sim_models.c).
 *  - omniscient: one global queue, every task to the first free slot, no
 *    network (sim_omni.c): the ideal the others are measured against.
 *
 * Long jobs (class long) and the mix (sim_mix): the flow plug-in
 * (sim_flow.h) drives the real flow node core (flowcore/flowd) or a
 * central greedy placer beside the late-binding strategy; without one,
 * long jobs go through the strategy (mix sampling) or are counted and
 * skipped (mix skip).
 */
#ifndef SIM_H
#define SIM_H

#include "nm_config.h"
#include "sched_core.h"
#include "sim_evq.h"
#include "sim_msg.h"
#include "sim_stats.h"
#include "sim_work.h"
#include "sk_rng.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum sim_strategy_id {
    SIM_RANDOM = 0,
    SIM_PERTASK = 1,
    SIM_BATCH = 2,
    SIM_LATE = 3,
    SIM_OMNI = 4,
    SIM_NSTRATEGIES = 5,
} sim_strategy_id;

/* How the one-way network delay is drawn, with mean p_delay. */
typedef enum sim_delay_kind {
    SIM_DELAY_FIXED = 0,   /* always the mean */
    SIM_DELAY_UNIFORM = 1, /* uniform in [mean/2, 3 mean/2] */
    SIM_DELAY_EXP = 2,     /* exponential */
} sim_delay_kind;

/* Peers of the simulated network: nodes are 0..nodes-1; scheduler k is
 * SIM_PEER_SCHED + k, its frontend SIM_PEER_FE + k. */
#define SIM_PEER_SCHED 0x40000000u
#define SIM_PEER_FE    0x50000000u
#define SIM_PEER_FLOWD 0x60000000u
/* The central placer of mix hawk as a scheduler (id p_scheds): the node
 * monitors report the tasks it places to it (sim_flow.h). */
#define SIM_PEER_FLOWS 0x60000001u
#define SIM_MAX_NODES  SK_MAX_NODES
#define SIM_MAX_SCHEDS 1024u

/* How long and short jobs are split between the paths (--mix). */
typedef enum sim_mix {
    SIM_MIX_SKIP = 0,     /* long jobs counted and skipped */
    SIM_MIX_SAMPLING = 1, /* long jobs through the strategy too */
    SIM_MIX_FLOW = 2,     /* every job through the flow node's rounds */
    SIM_MIX_HAWK = 3,     /* long jobs by a central greedy least-loaded
                             placer, off a short-only partition */
    SIM_MIX_HYBRID = 4,   /* Skylark: long jobs by the flow node, short
                             ones sampled, saturated nodes not probed */
    SIM_MIX_GREEDY = 5,   /* every job by a central greedy placer,
                             locality first (sim_loc.h) */
    SIM_NMIXES = 6,
} sim_mix;

/* How a flow round's solve costs virtual time (--solve-time). */
typedef enum sim_solve_time {
    SIM_SOLVE_WORK = 0,     /* deterministic: a model of the solver's work
                               (sim_flow.h), calibrated on this machine */
    SIM_SOLVE_MEASURED = 1, /* the solve's wall time */
    SIM_SOLVE_ZERO = 2,     /* free: placements at the round's start */
} sim_solve_time;

/* Node labels the cluster offers: a label on a share of the nodes. */
#define SIM_NODE_LABEL_SPECS 16u

/* Everything one simulation point depends on. */
typedef struct sim_params {
    /* cluster */
    uint32_t p_nodes;
    uint32_t p_slots; /* per node */
    uint32_t p_scheds;
    uint32_t p_nnode_labels;
    uint32_t p_node_label[SIM_NODE_LABEL_SPECS];     /* label index */
    double p_node_label_share[SIM_NODE_LABEL_SPECS]; /* share of nodes */
    /* strategy */
    sim_strategy_id p_strategy;
    double p_ratio; /* d: probes per task */
    /* network */
    sk_time p_delay; /* one-way, node <-> scheduler, mean */
    sim_delay_kind p_delay_kind;
    sk_time p_fe_delay; /* frontend <-> scheduler, fixed */
    /* workload */
    const char *p_jobs_file; /* NULL: the generator */
    sim_gen p_gen;
    uint64_t p_jobs;   /* measured jobs; 0: every job of the file */
    uint64_t p_warmup; /* jobs before them, not measured */
    bool p_drain;      /* after the measured jobs: no more arrivals, run
                          until every job is done (else stop when the
                          measured ones are, arrivals going on) */
    uint64_t p_seed;
    /* the real cores (late-binding); the simulator sets ids, names,
     * slots and resources per node and scheduler */
    sched_config p_sched;
    nm_config p_nm;
    nm_weights p_weights; /* [weights]; --user adds its own */
    bool p_wire;          /* messages through the codec (sim_msg.h) */
    bool p_check; /* check the strategy's invariants after every event */
    /* long jobs and the flow path (sim_flow.h) */
    sim_mix p_mix;
    char p_flow_policy[16]; /* quincy, spread, multires */
    bool p_flow_fair;       /* quincy's fair shares (q_fair_share) */
    bool p_flow_preempt;    /* the flow node may stop placed tasks */
    int p_flow_algorithm;   /* fc_algorithm; -1: race, or relax when
                               the solve time is modelled */
    sim_solve_time p_solve_time;
    double p_long_share;  /* of each node's slots, for long tasks */
    double p_short_part;  /* hawk: share of nodes for short jobs only */
    bool p_fast_fallback; /* flow node: fdc_fast_fallback */
    bool p_cx_wait_set;   /* flow node: fdc_cx_wait_ms = p_cx_wait, else
                             flowd's default */
    sk_time p_cx_wait;
    int64_t p_relax_budget; /* flow node: fdc_relax_budget; -1: its own */
    uint32_t p_racks;       /* flow node: racks of consecutive nodes (0:
                               none, every node's he_rack "") */
    FILE *p_rounds_out;     /* per flow round CSV, or NULL */
    /* racks and data locality (sim_loc.h) */
    uint32_t p_rack_size;   /* nodes per rack; 0: no racks */
    sk_time p_remote_rack;  /* extra run time: input read in the rack */
    sk_time p_remote_cross; /* ... read across racks */
    bool p_hide_prefs;      /* placers do not see the preferences */
    uint32_t p_threads;     /* of a split run (sim_par.h); 0: one per CPU
                               from 2,000 nodes, one below */
    /* outputs */
    FILE *p_jobs_out;    /* per-job CSV, or NULL */
    FILE *p_tasks_out;   /* per-task CSV, or NULL */
    FILE *p_write_jobs;  /* the jobs as they arrive, in job file format */
    bool p_progress;     /* a progress line on stderr */
    const char *p_label; /* names the point in the progress line */
} sim_params;

/* sim_params_init fills p with the defaults: 100 nodes x 4 slots, one
 * scheduler, late-binding with d = 2, a fixed 0.5 ms delay, 0 between
 * frontend and scheduler, the generator at load 0.8 with 10-task jobs of
 * exponential 100 ms tasks, 1,000 measured jobs after 100, seed 1, the
 * cores' default settings except: jobs of up to SK_MAX_TASKS tasks and
 * 10,000,000 jobs in flight per scheduler, 256 users with work at once
 * per node monitor. */
void sim_params_init(sim_params *p);

typedef struct sim sim;

/* The stages of a strategy's ss_prefetch. */
#define SIM_PREFETCH_STAGES 2u

/* A placement strategy. Its events are kinds >= SIM_EV_STRATEGY. */
typedef struct sim_strategy {
    const char *ss_name;
    const char *ss_summary;
    /* ss_init builds the strategy's state for s (cluster in s->s_p).
     * Returns 0 or an SK_E* code with a message in err. */
    int (*ss_init)(sim *s, char *err, size_t errlen);
    void (*ss_fini)(sim *s);
    /* ss_submit: job j reaches its scheduler at s->s_now. */
    void (*ss_submit)(sim *s, sim_job *j);
    /* ss_event handles one of its events (a copy of the record). */
    void (*ss_event)(sim *s, const sim_ev *ev);
    /* ss_prefetch (NULL: none) starts loading the memory an event will
     * touch, in stages: before each event is handled it is told the
     * events likely to follow, the one k events ahead (k = 1 ..
     * SIM_PREFETCH_STAGES) at stage SIM_PREFETCH_STAGES - k. So an event
     * goes through stages 0, 1, ... one event apart, and each stage reads
     * only what the earlier ones loaded; stage 0 finds the record loaded
     * (the engine prefetches it one event earlier). A guess may be wrong,
     * or an event skip stages: prefetching is only a hint. */
    void (*ss_prefetch)(sim *s, const sim_ev *ev, unsigned stage);
    /* ss_split: the strategy's nodes can run in partitions of their own
     * (sim_par.h): they meet the rest only through sim_at_part, give
     * delivered messages back with sim_msg_done and report slot changes
     * with sim_busy. */
    bool ss_split;
    /* ss_check verifies the strategy's invariants (NULL: none). Returns
     * 0, or SK_ESTATE with what is wrong in err. */
    int (*ss_check)(sim *s, char *err, size_t errlen);
    /* ss_report prints the strategy's own counters (NULL: none). */
    void (*ss_report)(sim *s, FILE *out);
} sim_strategy;

extern const sim_strategy sim_strategy_random;
extern const sim_strategy sim_strategy_pertask;
extern const sim_strategy sim_strategy_batch;
extern const sim_strategy sim_strategy_late;
extern const sim_strategy sim_strategy_omni;

/* sim_strategy_get returns the strategy id's operations. */
const sim_strategy *sim_strategy_get(sim_strategy_id id);

/* sim_strategy_parse finds a strategy by name ("random", "per-task",
 * "batch", "late-binding", "omniscient"). Returns 0 or SK_EINVAL. */
int sim_strategy_parse(const char *name, sim_strategy_id *out);

/*
 * The flow path's plug-in point. A flow policy core (flowcore's policy
 * with flowd's sans-I/O logic) is driven like the other cores, with the
 * late-binding strategy's real node monitors: at fl_start it registers
 * with them as the peer SIM_PEER_FLOWD (sim_late_hello), then it gets the
 * long jobs through fl_submit (and, with mix flow, every job), their
 * HEARTBEATs and RESERVE_ACK/REJECTs through fl_deliver, and sends RESERVE and
 * RELEASE with sim_send, over the network's delay. Its own timers are events it
 * schedules (sim_at, with a kind of its own above SIM_EV_FLOW, handled by
 * fl_event). A long job ends through sim_task_end and sim_job_end, as in the
 * strategies. Without one (s_flow NULL) long jobs go by the mix (p_mix).
 */
typedef struct sim_flow {
    void *fl_ctx;
    void (*fl_start)(void *ctx, sim *s); /* after the strategy's init */
    void (*fl_submit)(void *ctx, sim *s, sim_job *j);
    /* fl_deliver: m from peer from reaches peer to (SIM_PEER_FLOWD or
     * SIM_PEER_FLOWS). */
    void (*fl_deliver)(void *ctx, sim *s, sk_peer from, sk_peer to,
                       const sk_msg *m);
    void (*fl_event)(void *ctx, sim *s, const sim_ev *ev);
    void (*fl_report)(void *ctx, sim *s, FILE *out); /* NULL: none */
} sim_flow;

/* sim_late_hello registers peer (such as SIM_PEER_FLOWD) with the node
 * monitor of node under the late-binding strategy, as its HELLO would.
 * Returns 0, SK_ESTATE under another strategy, SK_EINVAL for a node out
 * of range. */
int sim_late_hello(sim *s, uint32_t node, sk_peer peer, const sk_hello *h);

/* sim_late_sched_hello introduces peer (SIM_PEER_FLOWD) to scheduler k
 * under the late-binding strategy, as its HELLO would. Returns 0,
 * SK_ESTATE under another strategy, SK_EINVAL for k out of range. */
int sim_late_sched_hello(sim *s, uint32_t k, sk_peer peer, const sk_hello *h);

/* sim_send carries m (copied) from peer from to peer to over the
 * simulated network (late-binding strategy: nodes, schedulers, their
 * frontends, SIM_PEER_FLOWD and SIM_PEER_FLOWS; the flow peers' links
 * take the mean delay p_delay, always). A message the protocol rejects, or to a
 * peer not connected to from, stops the run with an error. */
void sim_send(sim *s, sk_peer from, sk_peer to, const sk_msg *m);

/* Event kinds of the engine; strategies number theirs from
 * SIM_EV_STRATEGY. */
enum {
    SIM_EV_ARRIVAL = 1, /* the next job of the source arrives */
    SIM_EV_STRATEGY = 16,
    SIM_EV_FLOW = 128, /* and above: the flow plug-in's */
};

typedef struct sim_par sim_par;

/* A run, or one partition of a split run (sim_par.h): partition 0 is the
 * run itself; the others use only the event queue, clock, message pool,
 * network and local message counters, events and error of their own. */
struct sim {
    const sim_params *s_p;
    sim_names *s_names;
    const sim_strategy *s_ops;
    void *s_state; /* the strategy's */
    const sim_flow *s_flow;
    sim_evq s_q;
    sk_time s_now;
    sk_rng s_rng;       /* the strategy's stream */
    sk_rng s_net_rng;   /* network delays towards the nodes */
    sk_rng *s_node_rng; /* per node: its delays towards the rest (drawn
                           delays only) */
    sim_src s_src;
    sim_job *s_next; /* the job whose arrival is scheduled */
    sim_stats s_st;
    sim_msgpool s_msgs;
    uint64_t *s_node_labels;  /* per node, bit i: carries label i */
    char (*s_node_names)[12]; /* per node, "n<index>" */
    sk_time *s_links;    /* per (node, scheduler, direction): last delivery */
    sim_job *s_inflight; /* jobs arrived and not ended */
    uint64_t s_ninflight;
    uint64_t s_measured_left;      /* measured jobs arrived and not ended */
    uint64_t s_measured_unstarted; /* their tasks not started (nor ended) */
    uint32_t s_arrival_id;         /* the pending SIM_EV_ARRIVAL (s_next) */
    bool s_arrivals_done;          /* no more arrivals will come */
    bool s_measured_all_in;        /* every measured job has arrived */
    uint64_t s_events;
    int s_error; /* a fatal error of the run (SK_E*), message in s_err */
    char s_err[512];
    sim_par *s_par;        /* NULL: the run is not split */
    uint32_t s_part;       /* this partition */
    uint8_t *s_node_part;  /* per node, its partition (split runs) */
    bool s_stop;           /* partition 0: the run is over */
    struct sim_loc *s_loc; /* racks and locality (sim_loc.h), or NULL */
};

/* What a finished point hands back. */
typedef struct sim_result {
    sim_stats r_st; /* moved out of the run: sim_stats_fini when done */
    uint64_t r_events;
    sk_time r_end;       /* virtual time at the end */
    double r_wall;       /* seconds of wall time */
    double r_cpu;        /* seconds of CPU time (user and system) */
    uint64_t r_inflight; /* jobs still in flight at the end */
    char r_report[4096]; /* the strategy's and the flow path's counters */
} sim_result;

/* sim_run runs one point. names holds the users (weights) and labels;
 * the job file may add to it. Returns 0 with the results in *res; SK_E*
 * with a message in err for bad parameters or input (exit status 2) or a
 * failure of the run, such as a core emitting a message the protocol
 * rejects or an invariant broken (exit status 1): *bad_input tells which.
 * Cost: the run. */
int sim_run(const sim_params *p, sim_names *names, const sim_flow *flow,
            sim_result *res, bool *bad_input, char *err, size_t errlen);

/* sim_default_warmup returns the warm-up that a generated workload needs
 * to reach steady state before measuring: the jobs that arrive in ten
 * mean task durations (load x slots x 10 / tasks per job), at least 100.
 * After ten means the busy slots of exponential tasks are within 0.005%
 * of their steady state; with Pareto(1.5) tasks the tail still misses a
 * few percent of the load (the utilisation in the summary shows it). */
uint64_t sim_default_warmup(const sim_params *p);

/* sim_work_seed returns the workload stream's seed of a run with the
 * given seed (the first output of the run's master stream), so that the
 * generator can write the jobs such a run would see. */
uint64_t sim_work_seed(uint64_t seed);

/*
 * For the strategies.
 */

/* sim_lines returns size zeroed bytes on cache lines of their own (the
 * size rounded up to whole lines), or NULL; free() releases them. For
 * what the threads of a split run write side by side. */
void *sim_lines(size_t size);

/* sim_at schedules an event of kind at time at (>= now) and returns its
 * record to fill. fifo: the FIFO lane (times in order, see sim_evq.h). */
sim_ev *sim_at(sim *s, sk_time at, uint8_t kind, bool fifo, uint32_t *id);

/* sim_net_time returns when a message sent now from node to scheduler
 * sched (to_node false) or back (to_node true) arrives: now plus a drawn
 * delay, never before the previous message on the same link (a TCP
 * connection keeps order). *fifo tells whether the time may go to the
 * FIFO lane (fixed delay). */
sk_time sim_net_time(sim *s, uint32_t node, uint32_t sched, bool to_node,
                     bool *fifo);

/* sim_fail stops the run with an error (a broken invariant, a core's
 * bad output): the first one wins. */
void sim_fail(sim *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sim_node_fits tells whether node carries every label j needs. */
bool sim_node_fits(const sim *s, uint32_t node, const sim_job *j);

/* sim_job_end records the end of j (its tasks all recorded, or rejected,
 * or skipped), takes it out of the jobs in flight and frees it. */
void sim_job_end(sim *s, sim_job *j, sim_job_outcome outcome);

/* sim_task_start notes that a task of j started running. Once every
 * measured job has arrived and all their tasks have started, later
 * arrivals can no longer change when they end: the engine stops the
 * arrivals then (unless --drain, which stops them earlier), so that a
 * heavy-tailed task does not keep the cluster loaded for nothing. */
void sim_task_start(sim *s, sim_job *j);

/* sim_task_end records the final outcome of task of j (sim_stats_task;
 * node NULL for a task that never started). */
void sim_task_end(sim *s, sim_job *j, uint32_t task, uint32_t attempt,
                  const char *node, sk_time start, sk_time end, uint8_t status,
                  bool queued);

/* A task's spec, as the simulated frontends and the central placer send
 * it and the simulated executor reads it: its duration in microseconds,
 * 8 bytes little endian, the top bit set for a task of a long job; then
 * its job's j_seq, 8 bytes little endian (a node monitor launches with
 * its own job ids: the executor finds the job's preferences by it). */
#define SIM_SPEC_BYTES 16
#define SIM_SPEC_LONG  (1ull << 63)

/* sim_spec_put writes task t of j's spec into b (SIM_SPEC_BYTES). */
static inline void sim_spec_put(uint8_t *b, const sim_job *j, uint32_t t)
{
    uint64_t d = j->j_dur[t] | (j->j_long ? SIM_SPEC_LONG : 0);
    uint64_t q = j->j_seq;
    for (unsigned i = 0; i < 8; i++, d >>= 8, q >>= 8) {
        b[i] = (uint8_t)d;
        b[8 + i] = (uint8_t)q;
    }
}

/* sim_node_name writes "n<node>" into buf (at least 16 bytes). */
const char *sim_node_name(uint32_t node, char *buf);

/* sim_node_str returns node's name "n<node>", made once per run. */
static inline const char *sim_node_str(const sim *s, uint32_t node)
{
    return s->s_node_names[node];
}

/* sim_node_part returns the partition that runs node (0 when the run is
 * not split). */
static inline uint32_t sim_node_part(const sim *s, uint32_t node)
{
    return s->s_node_part != NULL ? s->s_node_part[node] : 0;
}

/* sim_at_part schedules an event of kind at time at in partition part
 * (sim_node_part), sent from node order (0 from partition 0), and returns
 * its record to fill: sim_at for s's own partition; for another, at must
 * be at least the lookahead after now (sim_par.h) and the event joins
 * part's queue at the window's end. */
sim_ev *sim_at_part(sim *s, uint32_t part, uint32_t order, sk_time at,
                    uint8_t kind, bool fifo);

/* sim_msg_done gives back a message record s has delivered, to its pool
 * (in a split run, at the start of the next window when another
 * partition's). */
void sim_msg_done(sim *s, sim_msg *m);

/* sim_busy records that a slot started (+1) or stopped (-1) a task now
 * (in a split run, at the window's end). */
void sim_busy(sim *s, int delta);

/*
 * For sim_par.c.
 */

/* sim_run_until handles s's events before end, at most budget of them,
 * until the run stops or fails. */
void sim_run_until(sim *s, sk_time end, uint64_t budget);

/* sim_progress shows the progress line with events handled since wall
 * time t0 (last: clears it). */
void sim_progress(const sim *s, double t0, uint64_t events, bool last);

#endif /* SIM_H */
