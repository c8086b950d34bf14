/*
 * fd_core.h - the flow node's core: the sans-I/O heart of skylark-flowd
 * (DESIGN.md sections 3 and 5), prefix fd_.
 *
 * The core keeps the cluster as the node monitors describe it (HELLO,
 * HEARTBEAT), the long jobs (and fallback short work) that schedulers
 * forward to it (SUBMIT_JOB, CANCEL_JOB), and a min-cost flow network
 * built from them by a policy (cost model, fd_policy.h). It places tasks
 * in rounds: the network is solved by libflowcore, the flow is read off
 * as placements, and placements become RESERVE messages to node
 * monitors. It reads no clock and opens no socket: the driver (the
 * skylark-flowd shell or the simulator) calls it with one input at a
 * time and the current time, drains fd_core_outbox() after each call and
 * calls fd_core_on_timer() at fd_core_next_deadline().
 *
 * Rounds are explicit steps, so that the solve runs off the event loop:
 *
 *   if (fd_round_begin(core, now, &round) == 0) {
 *       ... on a worker thread: fc_solve(round->rd_graph, ...) ...
 *       fd_round_end(core, later, round, rc, &stats);   (loop thread)
 *   }
 *
 * While a round is out the core keeps taking messages and timers: their
 * changes go to its own state at once and are queued for the network,
 * which is changed (incrementally, through flowcore's change API) only
 * at the next fd_round_begin. fd_round_end reads the placements, drops
 * those of tasks that ended and of nodes that left meanwhile (as
 * Firmament does), sends RESERVEs, then applies the queued changes.
 *
 * Peers. A peer introduces itself with HELLO: role NODEMON is a node
 * (he_slots, he_res, he_labels; its rack is he_rack, which must be ""
 * or a rack name (sk_rack_valid), the nodes without one sharing the rack
 * ""; its long share from the label "long_share=X" when present, else
 * fdc_long_share, which must then match the node monitors'
 * configuration), role SCHEDULER a scheduler (he_id
 * is the id RESERVE carries in rv_sched). A scheduler gets the whole
 * MEMBERSHIP on its HELLO, then the changes (a node up, saturated by long
 * tasks, down; a node is saturated when the long tasks it holds, the
 * core's and others, reach its long cap). The core answers no HELLO:
 * the shell sends its own (role FLOWD), which is what makes a node
 * monitor start its heartbeats. Schedulers send SUBMIT_JOB (answered
 * JOB_ACCEPTED or JOB_REJECTED with a reason, ja_job = sj_job; sj_long
 * marks long work, anything else is fallback short work, which the
 * policies place ahead of long work), CANCEL_JOB and TASK_FINISHED (the
 * outcome of a task the flow path placed, as the node monitor reported
 * it to them); node monitors send HEARTBEAT, RESERVE_ACK and
 * RESERVE_REJECT. Anyone may send STATUS_REQUEST, and its queries (see
 * fd_core_status).
 *
 * Placement. A node takes at most floor(long share * slots) long tasks,
 * less the long reservations its heartbeat counts that the core does
 * not know; this cap is in the network and checked again before every
 * RESERVE. Task preferences name nodes (ts_preferred) and racks
 * (ts_racks, as node monitors name them in he_rack); job labels restrict
 * the nodes a job may use. The policy (fdc_policy: quincy, spread, multires;
 * see fd_quincy.c, fd_spread.c, fd_multires.c) sets the costs; with
 * fdc_preemption a round may also move or stop placed tasks.
 *
 * How a long task ends, in the core's view (every task ends exactly
 * once): its scheduler forwards the TASK_FINISHED of the attempt; or the
 * node's HEARTBEAT no longer lists it running after an earlier one did;
 * or, for a task acknowledged but never seen running (it ran between two
 * heartbeats), the node reports fewer pending long reservations than the
 * core has acknowledged and not seen start: the node starts pending long
 * tasks in arrival order, so the oldest ones are the ones that ran. The
 * outcome itself belongs to the scheduler (the node monitor sends it
 * there). The core reports to the scheduler only what it decides itself:
 * TASK_FINISHED LOST when a task's node timed out or its RESERVE went
 * unanswered and no attempt is left, FAILED after fdc_max_rejects
 * rejections. A cancelled job's tasks are released with kill and
 * forgotten; their KILLED outcomes reach the scheduler from the nodes.
 *
 * Restart. A core starts in epoch `epoch` (reservation ids and MEMBERSHIP
 * epochs carry it, so they never repeat an earlier epoch's) and a settle
 * window of fdc_settle_ms: nodes re-register and their heartbeats report
 * running long tasks, which are adopted as running when a scheduler has
 * (re-)forwarded their job; nothing is placed until the window ends.
 * After it, a long task a node reports that the core does not know is
 * released with kill.
 *
 * Costs: a message costs O(1) amortised plus its size; a HEARTBEAT
 * O(r log r) for r running tasks on the node; a node joining O(waiting
 * tasks with preferences); a round O(changes since the last one) to
 * update the network, the solve, and O(network) to read placements.
 *
 * Threading: the core is used from one thread at a time; between
 * fd_round_begin and fd_round_end another thread may solve the round's
 * graph (and only that) while this one keeps calling into the core.
 */
#ifndef FD_CORE_H
#define FD_CORE_H

#include "flowcore.h"
#include "sk_config.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Settings of a core. Integer fields are int64_t so that a daemon's
 * configuration loader can fill them directly. */
typedef struct fd_config {
    char fdc_name[64];          /* name in STATUS_REPLY */
    char fdc_policy[16];        /* cost model: "quincy", "spread", "multires" */
    fc_algorithm fdc_algorithm; /* what the round asks for */
    int64_t fdc_round_ms;       /* a round this long after a change */
    int64_t fdc_round_events;   /* ... or at once after this many */
    int64_t fdc_heartbeat_ms;   /* the node monitors' period */
    int64_t fdc_node_timeout_ms;    /* silent this long: the node is down */
    int64_t fdc_settle_ms;          /* after start: nothing placed */
    int64_t fdc_sched_grace_ms;     /* a gone scheduler's work is kept */
    int64_t fdc_reserve_timeout_ms; /* RESERVE unanswered: lost */
    int64_t fdc_max_attempts;       /* attempts of a task by default */
    int64_t fdc_max_rejects;        /* RESERVE_REJECTs before FAILED */
    double fdc_long_share;          /* nodes without a long_share label */
    /* limits on input */
    int64_t fdc_max_nodes;      /* node monitors registered */
    int64_t fdc_max_schedulers; /* schedulers registered */
    int64_t fdc_max_jobs;       /* jobs held */
    int64_t fdc_max_tasks;      /* tasks held, all jobs */
    int64_t fdc_max_job_tasks;  /* tasks in one job */
    int64_t fdc_max_job_bytes;  /* specs and names of one job */
    /* quincy's costs (fd_quincy.c says how they combine) */
    int64_t fdc_q_cluster_cost; /* task -> cluster aggregator */
    int64_t fdc_q_rack_cost;    /* task -> a preferred rack */
    int64_t fdc_q_node_cost;    /* task -> a preferred node */
    int64_t fdc_q_busy_cost;    /* a slot behind short work */
    int64_t fdc_q_queue_cost;   /* per short reservation queued there */
    int64_t fdc_q_unsched_cost; /* leaving a task unscheduled */
    int64_t fdc_q_wait_cost;    /* ... more per second it has waited */
    bool fdc_q_fair_share;      /* quincy: no job runs over its fair share */
    bool fdc_preemption;        /* placed tasks may be moved or stopped */
    int64_t fdc_q_kill_cost;    /* preemption: per second of work lost */
    int64_t fdc_q_move_cost;    /* preemption: moving a task elsewhere */
    int64_t fdc_s_load_cost;    /* spread: a slot's cost at full load */
    int64_t fdc_m_use_cost;     /* multires: a node's cost at full use */
    int64_t fdc_max_classes;    /* distinct (request, labels) of jobs */
    bool fdc_fast_fallback;     /* fallback short work placed at once on a
                                   node with room, without a round */
    int64_t fdc_cx_wait_ms;     /* a constrained task whose every place
                                   breaks a soft constraint waits this long
                                   for one that breaks none
                                   (fd_constraint_wait.c) */
    int64_t fdc_relax_budget;   /* relax: units of relaxation's work per
                                   arc before cost scaling takes the round
                                   over (so_relax_budget); 0: no limit */
} fd_config;

/* fd_config_init sets the defaults: name "flowd", policy "quincy",
 * algorithm race, rounds after 100 ms or 256 changes, heartbeats every
 * 1000 ms, node timeout 3000 ms, settle window one heartbeat (1000 ms),
 * a gone scheduler's grace 10000 ms,
 * RESERVE timeout 5000 ms, 3 attempts, 10 rejections, long share 0.75,
 * 16,384 nodes, 1,024 schedulers, 10,000 jobs, 200,000 tasks,
 * SK_MAX_TASKS tasks and 64 MiB per job; quincy costs 100 (cluster), 40
 * (rack), 10 (node), 50 (busy), 2 (queue), 1,000 (unscheduled), 10 (per
 * second waited), no fair shares; preemption off, and when on 10 per second run
 * (kill: a running task gains weight as fast as a waiting one) and 200 to move;
 * spread's load cost 100; multires's use cost 100; 256 classes; the fallback
 * fast path off (fd_fast.c: measured worse on the trace); a constrained task
 * waits up to 5000 ms for a place that breaks no soft constraint
 * (docs/results/medea.md: measured). */
void fd_config_init(fd_config *cfg);

/* fd_config_check validates cfg: every field in its range, and costs
 * small enough that no arc the policy makes can exceed FC_MAX_COST.
 * Returns 0 or SK_ECONFIG with a message naming the field in err. */
int fd_config_check(const fd_config *cfg, char *err, size_t errlen);

/* The number of entries fd_config_keys fills. */
#define FD_CONFIG_NKEYS 36u

/* fd_config_keys fills keys[0..FD_CONFIG_NKEYS) with the description of
 * cfg's fields for sk_config_load, section [section] (skylark-flowd:
 * "flowd"): every field of fd_config under its name without the fdc_
 * prefix (name, policy, algorithm, round_ms, ..., max_classes,
 * fast_fallback, cx_wait_ms, relax_budget), with
 * the ranges of fd_config_check; "algorithm" is parsed by
 * fc_algorithm_parse and "policy" checked against the policies, so that
 * a bad value is refused at its file and line. fd_config_check still
 * decides what is valid as a whole (costs against each other). Returns
 * FD_CONFIG_NKEYS.
 * The keys point into cfg; cfg and section must outlive the table. */
size_t fd_config_keys(fd_config *cfg, const char *section, sk_config_key *keys);

/* Counters and gauges. */
typedef struct fd_stats {
    /* registration and input */
    uint64_t fs_nodes_up;       /* HELLOs of node monitors accepted */
    uint64_t fs_nodes_down;     /* nodes timed out, gone or replaced */
    uint64_t fs_heartbeats;     /* HEARTBEATs applied */
    uint64_t fs_jobs_accepted;  /* SUBMIT_JOB accepted */
    uint64_t fs_jobs_rejected;  /* refused: limits, bad fields, dup */
    uint64_t fs_jobs_cancelled; /* CANCEL_JOB applied */
    /* tasks */
    uint64_t fs_reserves;     /* RESERVE sent */
    uint64_t fs_acks;         /* RESERVE_ACK matched */
    uint64_t fs_rejects;      /* RESERVE_REJECT matched */
    uint64_t fs_reserve_lost; /* RESERVE unanswered in time */
    uint64_t fs_releases;     /* RELEASE sent */
    uint64_t fs_replanned;    /* tasks sent back to waiting */
    uint64_t fs_tasks_ended;  /* learned ended (finished, heartbeat) */
    uint64_t fs_tasks_lost;   /* ended LOST by the core */
    uint64_t fs_tasks_failed; /* ended FAILED by the core */
    uint64_t fs_adopted;      /* running tasks adopted after start */
    uint64_t fs_unknown_kill; /* reported tasks released with kill */
    /* schedulers whose session ended (fdc_sched_grace_ms) */
    uint64_t fs_sched_gone;      /* sessions ended, work held */
    uint64_t fs_sched_reclaimed; /* came back in time: work taken back */
    uint64_t fs_sched_expired;   /* grace ran out or a new incarnation */
    uint64_t fs_kept;            /* outcomes kept for a gone scheduler */
    uint64_t fs_reforwarded;     /* held jobs re-forwarded after return */
    uint64_t fs_gone_ended;      /* re-forwarded live, ended here: LOST */
    /* flowd's own stalls (fd_core_stalled) */
    uint64_t fs_stalls;         /* stalls seen: nodes' silence forgiven */
    uint64_t fs_nodes_detached; /* sessions ended right after: kept */
    uint64_t fs_nodes_back;     /* detached nodes back with their tasks */
    /* nodes lost past node_timeout_ms that come back (fd_reclaim.c) */
    uint64_t fs_reclaimed;      /* their tasks taken back, not killed */
    uint64_t fs_reclaim_killed; /* placed again meanwhile: killed there */
    uint64_t fs_done_elsewhere; /* the scheduler's outcome ended another
                                   attempt here (released) */
    uint64_t fs_dropped_dead;   /* placements dropped: task ended or node
                                   left during the solve */
    uint64_t fs_dropped_cap;    /* placements over a node's cap dropped */
    uint64_t fs_ignored_moves;  /* flow left a task's node (no preemption) */
    uint64_t fs_preempted;      /* placed tasks stopped (moved or waiting) */
    uint64_t fs_fast_placed;    /* fallback short tasks RESERVEd without a
                                   round (fdc_fast_fallback) */
    /* rounds */
    uint64_t fs_rounds;     /* rounds ended */
    uint64_t fs_round_fail; /* rounds whose solve failed */
    uint64_t fs_net_errors; /* network changes that failed */
    /* refused or useless input, dropped */
    uint64_t fs_bad_type;   /* a type flowd does not take */
    uint64_t fs_bad_peer;   /* from a peer with no business sending it */
    uint64_t fs_bad_field;  /* a field out of range */
    uint64_t fs_limit;      /* over one of the limits above */
    uint64_t fs_unknown;    /* names no job, task or reservation */
    uint64_t fs_stale;      /* old heartbeat or attempt */
    uint64_t fs_nomem;      /* allocation failures (work dropped) */
    uint64_t fs_share_over; /* users rows over a node's limit (fd_share.h) */
    uint64_t fs_share_gaps; /* users pages out of turn */
    /* gauges */
    uint64_t fs_nodes;      /* live nodes */
    uint64_t fs_schedulers; /* schedulers registered */
    uint64_t fs_sched_held; /* schedulers gone, in their grace */
    uint64_t fs_jobs;       /* jobs held */
    uint64_t fs_waiting;    /* tasks waiting for a node */
    uint64_t fs_reserved;   /* RESERVE sent, no answer yet */
    uint64_t fs_placed;     /* acknowledged, not seen running */
    uint64_t fs_running;    /* seen running */
    uint64_t fs_events;     /* changes not yet in a round */
    /* the last round */
    uint64_t fs_last_events;  /* changes it applied */
    double fs_last_solve_ms;  /* its solve's wall time */
    fc_algorithm fs_last_alg; /* the algorithm that produced it */
    uint64_t fs_last_placed;  /* RESERVEs it sent */
    int32_t fs_graph_nodes;   /* network size at its start */
    int32_t fs_graph_arcs;
    /* placement constraints (fd_constraint.h) */
    uint64_t fs_cx_rounds;      /* rounds that placed constrained tasks */
    uint64_t fs_cx_placed;      /* constrained tasks RESERVEd */
    uint64_t fs_cx_repaired;    /* moves of the repair pass */
    uint64_t fs_cx_waiting;     /* left waiting by the last such round */
    uint64_t fs_cx_hard;        /* hard (constraint, task) pairs broken */
    uint64_t fs_cx_soft;        /* soft pairs broken, after the last one */
    uint64_t fs_cx_soft_weight; /* their weights */
    uint64_t fs_cx_checked;     /* (constraint, placed task) pairs */
    uint64_t fs_cx_bounded;     /* rounds that offered only some nodes */
    uint64_t fs_cx_cut;         /* rounds whose repair pass hit its bound */
    uint64_t fs_cx_spread;      /* moves spreading a tag over racks */
    uint64_t fs_cx_held;        /* (task, round) placements held back: they
                                   broke a soft constraint (cx_wait_ms) */
    uint64_t fs_cx_expired;     /* placed breaking one, the wait over */
    uint64_t fs_cx_skipped;     /* rounds whose constraint round did
                                   not place: nothing changed and no wait
                                   over, or ruled out (below) */
    uint64_t fs_cx_ruled_out;   /* of those, rounds whose probe found no
                                   node where a waiting task could stay
                                   (fd_cx_probe) */
} fd_stats;

typedef struct fd_core fd_core;

/* fd_core_new creates a core with a copy of cfg (NULL: defaults), in
 * epoch epoch (1..2^31-1; a new one at every start of the daemon, e.g.
 * its start time in seconds), started at now: the settle window runs
 * until now + fdc_settle_ms. Returns 0 with the core in *out,
 * SK_ECONFIG (cfg invalid, unknown policy or epoch out of range, with a
 * message in err when err is not NULL) or SK_ENOMEM. */
int fd_core_new(const fd_config *cfg, uint64_t epoch, sk_time now,
                fd_core **out, char *err, size_t errlen);

/* fd_core_free releases the core and everything it holds; sends
 * nothing. A round still out is abandoned (its graph goes too: the
 * solver must have returned). NULL is a no-op. */
void fd_core_free(fd_core *c);

/* fd_core_on_msg handles one decoded message from peer (see the peers
 * above). Anything else, or anything out of range, is counted and
 * dropped; nothing accepted is lost by it. msg is not referenced after
 * the call. Cost: see above. */
void fd_core_on_msg(fd_core *c, sk_time now, sk_peer from, const sk_msg *msg);

/* fd_core_peer_down tells the core that peer's session ended. A node is
 * down at once (its tasks re-planned, as on a timeout), except within
 * fdc_node_timeout_ms after fd_core_stalled: then it is kept, without a
 * peer, until its timeout, and a HELLO of the same name and
 * incarnation takes it back with its tasks. A scheduler's
 * jobs are held for fdc_sched_grace_ms: they stay placed and running,
 * their waiting tasks wait, and the outcomes the core decides for them
 * meanwhile (LOST, FAILED) are kept. A HELLO with the same he_id and
 * he_incarnation within the grace takes them back (kept outcomes are sent at
 * once; the jobs it re-forwards are matched with the held ones, not refused as
 * duplicates; a task it still holds that ended here meanwhile is
 * reported LOST, as its end cannot be told). A HELLO of another
 * incarnation, or the grace running out, cancels them (tasks released
 * with kill), as at once with a grace of 0. Unknown peers are
 * ignored. */
void fd_core_peer_down(fd_core *c, sk_time now, sk_peer peer);

/* fd_core_peer_left is fd_core_peer_down for a peer that ended its
 * session cleanly (it said goodbye: it is leaving, not lost): a
 * scheduler's work is cancelled at once, without a grace. */
void fd_core_peer_left(fd_core *c, sk_time now, sk_peer peer);

/* fd_core_stalled tells the core that its driver did not run for gap
 * (up to now): the process was stopped or starved, so the nodes'
 * silence meanwhile is not theirs. Their last heartbeats and the
 * RESERVEs out are moved on by gap (never past now), and for
 * fdc_node_timeout_ms a node whose session ends is kept for its return
 * (fd_core_peer_down): the sessions its stall ended come back. The
 * skylark-flowd shell calls it first thing when its loop wakes more than
 * two transport heartbeats after the last time (the transport's timer
 * wakes it every heartbeat). O(nodes + RESERVEs out). */
void fd_core_stalled(fd_core *c, sk_time now, sk_time gap);

/* fd_core_on_timer does what is due at now: nodes silent for
 * fdc_node_timeout_ms go down, RESERVEs unanswered for
 * fdc_reserve_timeout_ms are lost (RELEASE with kill sent in case they
 * arrive, the task re-planned with its next attempt); once the wait
 * (fdc_cx_wait_ms) of a held constrained task is over, a round is asked
 * for (fd_constraint_timeouts). Harmless when called early. It does not
 * start rounds: see fd_round_begin. */
void fd_core_on_timer(fd_core *c, sk_time now);

/* fd_core_next_deadline returns when the driver should call
 * fd_core_on_timer and try fd_round_begin next (a round due, a node or
 * RESERVE timeout, a scheduler's grace, the end of a held constrained
 * task's wait), or SK_TIME_NEVER. */
sk_time fd_core_next_deadline(const fd_core *c);

/* fd_core_outbox returns the messages to send. The driver sends or
 * copies them and calls sk_outbox_clear before the next call into the
 * core (every call asserts it, fd_core_free excepted); what they point
 * to stays valid until then. */
sk_outbox *fd_core_outbox(fd_core *c);

/* fd_core_stats returns the counters (gauges up to date). */
const fd_stats *fd_core_stats(const fd_core *c);

/* --- rounds ---------------------------------------------------------------*/

/* A round handed out to be solved. */
typedef struct fd_round {
    fc_graph *rd_graph;        /* the core's network: solve it, change
                                  nothing else, until fd_round_end */
    fc_algorithm rd_algorithm; /* fc_algorithm of the configuration */
    bool rd_incremental;       /* false after a failed solve */
    uint64_t rd_relax_budget;  /* so_relax_budget (fdc_relax_budget) */
    uint64_t rd_seq;           /* 1, 2, ... */
    uint64_t rd_events;        /* changes applied to the network for it */
    sk_time rd_begin;          /* now at fd_round_begin */
} fd_round;

/* fd_round_begin starts a round when one is due: the settle window is
 * over, no round is out, and changes are pending for fdc_round_ms (or
 * fdc_round_events of them are). It applies the queued changes to the
 * network through the policy and hands it out in *out (the core's
 * struct, valid until fd_round_end). Returns 0; SK_EAGAIN when no round
 * is due (not an error); SK_ESTATE when a round is out; SK_ENOMEM or
 * SK_EINVAL when the network could not be changed (counted; the core
 * rebuilds it from its state at the next try). Loop thread. */
int fd_round_begin(fd_core *c, sk_time now, fd_round **out);

/* fd_round_end takes the round back with fc_solve's result solve_rc and
 * stats (NULL allowed). On success the flow's placements are compared
 * with what runs: with fdc_preemption, a placed task whose flow left its
 * node (to another node, or unscheduled) gets a RELEASE with kill there
 * and waits again with its next attempt (moves do not count against
 * max_attempts); then a waiting task whose flow reaches a live node gets
 * a RESERVE there, unless the task changed or ended, or the node left,
 * during the solve, or the node's long-task cap is reached; everything
 * else stays as it is. On failure nothing is placed and the next round solves
 * from scratch. Then the changes queued meanwhile are applied. Cost:
 * the flow is read only for the tasks waiting or changed since the
 * round began (with fdc_preemption, also every placed task), not for
 * every task held. Returns 0, SK_EINVAL (round is not the one out) or
 * SK_ENOMEM (placements could not be read; tasks stay waiting). Loop
 * thread. */
int fd_round_end(fd_core *c, sk_time now, fd_round *round, int solve_rc,
                 const fc_solve_stats *stats);

/* fd_core_build_fresh builds, from the core's state alone, a new network
 * as the policy would build it from nothing at time now (the same
 * nodes, arcs, costs and capacities as the incrementally kept one just
 * after fd_round_begin at now, up to node and arc numbering), for
 * `skylark flow dump`-like inspection and for tests. The caller owns
 * *out (fc_graph_free). Returns 0, SK_ENOMEM or SK_EINVAL. */
int fd_core_build_fresh(const fd_core *c, sk_time now, fc_graph **out);

/* --- status and inspection ------------------------------------------------*/

/* fd_core_graph returns the core's network as of the last sync (the
 * start or end of a round), for reading only; not while a round is out
 * (another thread may be solving it). Valid until the next call. */
const fc_graph *fd_core_graph(const fd_core *c);

/* fd_core_gnode_name writes into buf what node v of the core's network
 * stands for: "sink", "cluster", "rack NAME", "node NAME", "unsched
 * SCHED/JOB", "class CPUm/MEMM[/LABEL,...]" or "task SCHED/JOB/INDEX"
 * (SCHED the scheduler's id).
 * Returns 0 or SK_ENOTFOUND. O(1). */
int fd_core_gnode_name(const fd_core *c, fc_node v, char *buf, size_t len);

/* fd_core_dump writes the core's network as DIMACS (fc_dimacs_write),
 * preceded by a comment line "c name ID TEXT" per node (ID as the
 * DIMACS writer numbers it, TEXT as fd_core_gnode_name): what `skylark
 * flow dump` prints, and what LEMON's dimacs-solver and `skylark solve`
 * read. Not while a round is out. Returns 0 or SK_EIO. O(network). */
int fd_core_dump(const fd_core *c, FILE *out);

/* fd_core_status fills reply (for req, at now) with key/value pairs
 * (nodes, long tasks running and waiting, the last round: events, solve
 * ms, algorithm, graph size; counters) and, with req->sq_table, a table
 * of the nodes (name, rack, slots, cap, long tasks, foreign, used,
 * queue, state). A request with a query (sq_query not "") gets its
 * answer instead (docs/PROTOCOL.md): "flow-dump" renders fd_core_dump's
 * text, with a header of comment lines, into one snapshot the core keeps
 * (a newer dump replaces it, reading its last page frees it) and
 * answers its first page, "flow-dump ID OFFSET" a later page
 * (fd_dump.c); "explain [SCHED/]JOB TASK" a task's arcs, flow and why it
 * waits (fd_explain.c); "jobs" a row per job; "users" the node
 * monitors' heartbeat summaries summed per user (fd_share.c). A query
 * the core does not know, or malformed, is answered with the pair "error" and
 * counted (fs_bad_field); the network's readers answer "error" busy and "retry"
 * yes while a round is out. What it points to belongs to the core and
 * stays valid until the next call into it. fd_core_on_msg answers
 * STATUS_REQUEST with this. Returns 0 or SK_ENOMEM. Cost: the status
 * O(nodes); flow-dump O(network) for its first page, O(page) after;
 * explain O(nodes + the task's arcs), O(network) when its flow must be
 * traced through an aggregator; jobs O(tasks held); users O(summary
 * rows kept + users). */
int fd_core_status(fd_core *c, const sk_status_request *req, sk_time now,
                   sk_status_reply *reply);

/* The state of a task as the core sees it. */
typedef enum fd_task_state {
    FD_TASK_WAITING = 1,  /* needs a node */
    FD_TASK_RESERVED = 2, /* RESERVE sent, no answer yet */
    FD_TASK_PLACED = 3,   /* acknowledged, not seen running yet */
    FD_TASK_RUNNING = 4,  /* seen in its node's heartbeat */
} fd_task_state;

/* fd_core_task finds task `task` of job sj_job of the scheduler on peer
 * sched and returns its state, attempt and node (the node monitor's
 * peer, when not waiting). Returns 0 or SK_ENOTFOUND (also once it
 * ended). */
int fd_core_task(const fd_core *c, sk_peer sched, uint64_t sj_job,
                 uint32_t task, fd_task_state *state, uint32_t *attempt,
                 sk_peer *node);

/* fd_core_node_long returns how many long tasks the core has on the node
 * monitor at peer (reserved, placed or running), or -1 if no live node
 * is there. */
int64_t fd_core_node_long(const fd_core *c, sk_peer node);

#endif /* FD_CORE_H */
