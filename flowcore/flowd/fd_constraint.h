/*
 * fd_constraint.h - placement constraints (MEDEA) in the flow node, on a
 * compact instance independent of the core's records: nodes with free
 * slots, tasks with interned tags (some already placed and fixed, the
 * rest to place), and constraints with a group id per node. The core
 * builds one per round for the waiting tasks of constrained jobs
 * (fd_constraint_core.c); tests and the GLPK oracle build them directly.
 *
 * Semantics (sk_proto.h, sk_constraint): a placed task t of job j with
 * tag S, under constraint c = (j, S, target T, all, min, max, weight),
 * breaks c when the group holding its node has fewer than min or more
 * than max placed tasks tagged T (of job j, or of any job with all),
 * t itself not counted. A node in no group (a label group the node lacks)
 * counts 0. A waiting task breaks nothing but costs FD_CX_UNPLACED.
 *
 * The objective, lower is better, as MEDEA's (place every task first,
 * then fewest weighted violations): FD_CX_UNPLACED per waiting task to
 * place + weight per (soft constraint, task) broken; a placement breaking
 * a hard constraint is infeasible and fd_cx_place never makes one.
 *
 * Sans-I/O; no global state; one instance per thread.
 */
#ifndef FD_CONSTRAINT_H
#define FD_CONSTRAINT_H

#include "sk_proto.h" /* sk_group */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The cost of a task left waiting: over any sum of soft weights of the
 * instances it is used on. */
#define FD_CX_UNPLACED 1000000
#define FD_CX_NONE     (-1) /* no node; no group */

typedef struct fd_cx_task {
    uint32_t ck_job;         /* the job (application) it belongs to */
    const uint32_t *ck_tags; /* tag ids, < cx_ntags */
    uint32_t ck_ntags;
    bool ck_fixed;        /* runs (or is reserved) at ck_node: not moved */
    int32_t ck_node;      /* in: where a fixed task is; out: the place
                             found, or FD_CX_NONE (waits) */
    const uint8_t *ck_ok; /* nodes it may go to (non-zero), e.g. those with
                             the job's labels; NULL: any */
    const char *ck_why;   /* out, waiting: why (static text) */
} fd_cx_task;

typedef struct fd_cx_con {
    uint32_t cc_job;         /* the job whose tasks it constrains */
    uint32_t cc_source;      /* tag of the constrained tasks */
    uint32_t cc_target;      /* tag counted */
    bool cc_all;             /* count every job's tasks */
    uint32_t cc_min, cc_max; /* cc_max UINT32_MAX: unbounded */
    uint32_t cc_weight;      /* 0 hard, else soft */
    uint8_t cc_group;        /* sk_group: node, rack, label */
    const int32_t *cc_gid;   /* group of each node, < cc_ngroups, or
                                FD_CX_NONE */
    uint32_t cc_ngroups;
} fd_cx_con;

typedef struct fd_cx {
    uint32_t cx_nnodes;
    const uint32_t *cx_room; /* free slots of each node for the tasks to
                                place (fixed tasks are already counted out) */
    const int32_t *cx_rack;  /* rack of each node (< cx_nracks) */
    uint32_t cx_nracks;
    fd_cx_task *cx_tasks;
    uint32_t cx_ntasks;
    const fd_cx_con *cx_cons;
    uint32_t cx_ncons;
    uint32_t cx_ntags;
} fd_cx;

/* What a placement scores. */
typedef struct fd_cx_score {
    uint64_t cs_unplaced;    /* tasks to place left waiting */
    uint64_t cs_hard;        /* (hard constraint, task) pairs broken */
    uint64_t cs_soft;        /* (soft constraint, task) pairs broken */
    uint64_t cs_soft_weight; /* their weights */
    uint64_t cs_objective;   /* FD_CX_UNPLACED * unplaced + soft weight */
    uint64_t cs_checked;     /* (constraint, placed task) pairs checked */
} fd_cx_score;

/* fd_cx_eval scores the placement in x's tasks' ck_node (fixed tasks
 * included: their constraints count too). O(tasks * constraints + groups).
 * Returns 0 or FC_ENOMEM. */
int fd_cx_eval(const fd_cx *x, fd_cx_score *out);

/* fd_cx_eval_each scores like fd_cx_eval and, if broken is not NULL,
 * writes into broken[c] (cx_ncons entries) how many placed tasks break
 * constraint c. */
int fd_cx_eval_each(const fd_cx *x, fd_cx_score *out, uint32_t *broken);

/* How fd_cx_place did it. */
typedef struct fd_cx_stats {
    uint32_t xs_flow_placed;   /* placed by the flow network */
    uint32_t xs_gated;         /* tasks whose tag cap the network enforced */
    uint32_t xs_moved;         /* moved by the repair pass */
    uint32_t xs_placed_repair; /* placed by the repair pass */
    uint32_t xs_unplaced;      /* left waiting, hard constraints unmet */
    uint32_t xs_spread;        /* moved to spread a tag over racks */
    bool xs_cut;               /* the repair pass spent FD_CX_MAX_DELTAS */
} fd_cx_stats;

/* fd_cx_place places x's tasks that are not fixed: first a min-cost flow
 * network that enforces exactly the caps a network can (a hard anti-
 * affinity or cardinality maximum of a tag towards itself per node and per
 * rack, as per-(tag, rack) and per-(tag, node) aggregators of capacity k;
 * hard constraints whose target tasks are all fixed, as missing arcs; soft
 * ones of the same kind, as arc costs), solved by flowcore's successive
 * shortest path; then a repair pass for what remains (MEDEA's heuristics:
 * tasks under the most constraints first, among them those with the
 * fewest candidate nodes first, each moved to the node that lowers the
 * objective most, never breaking a hard constraint; a task that cannot be
 * placed without breaking one waits, with ck_why set); then each tag's
 * tasks spread over the racks by moves that cost nothing
 * (fd_constraint_spread.c). Writes ck_node of every task not fixed. Cost:
 * the network has tasks * nodes-with-room arcs; the repair pass and the
 * spreading make at most FD_CX_MAX_DELTAS costed moves
 * (fd_cx_delta, each O(constraints)) before its
 * last step, which takes back every task that keeps a hard pair broken
 * (O(tasks) costed moves a sweep). Returns 0, FC_ENOMEM, or another FC_E*
 * from the solver. */
#define FD_CX_MAX_DELTAS 100000u
int fd_cx_place(fd_cx *x, fd_cx_stats *stats);

/* The reason a held task waits (fd_cx_hold): this very pointer. */
extern const char fd_cx_why_held[];

/* fd_cx_hold, after fd_cx_place: takes back (ck_node FD_CX_NONE, ck_why
 * fd_cx_why_held) each placed task i, not fixed, with may_wait[i] non-zero
 * that breaks a soft constraint where it is: its own, or another task's
 * cap (a maximum, NOTIN included) that it helps fill over in its group
 * (e.g. it lands beside a placed task that wants none of its tag), sweep
 * after sweep
 * until none is left (taking one back can leave another short of an
 * affinity; it can also mend another's cap, which then stays). *held:
 * tasks taken back; *broke: tasks left placed (not fixed) that break a
 * soft one so (their wait is over). Hard constraints are untouched:
 * fd_cx_place broke none.
 * O(sweeps * tasks * constraints), sweeps at most 1 + held. Returns 0 or
 * FC_ENOMEM (then nothing was taken back). */
int fd_cx_hold(fd_cx *x, const uint8_t *may_wait, uint32_t *held,
               uint32_t *broke);

/* fd_cx_probe, before fd_cx_place, with x's tasks to place all waiting:
 * sets cand[n] (cx_nnodes entries) to 1 for each node n with room where
 * some task i to place might stay after fd_cx_place and fd_cx_hold with
 * may_wait (its wait not over: may_wait[i] non-zero), else to 0, and
 * *ncand to their count. Sound, not exact: a node with cand 0 gets no
 * task of this instance's in any placement fd_cx_place and fd_cx_hold
 * can leave, whatever the room of the other nodes (with the placed
 * tasks counted as they are, and the other tasks to place as if all in
 * its groups, a hard constraint, or a soft one of a task that may wait,
 * surely breaks there: its own, or another's cap it fills over); so
 * *ncand 0 means such a round places nothing. O(tasks * constraints +
 * groups) for the counts plus O(nodes * kinds * constraints), a kind
 * being the tasks of one job with the same tags, wait and ck_ok. Returns
 * 0 or FC_ENOMEM. */
int fd_cx_probe(const fd_cx *x, const uint8_t *may_wait, uint8_t *cand,
                uint32_t *ncand);

/* The reasons fd_cx_place gives a task it leaves waiting: its work bound
 * cut off, no node with room meets its hard constraints, no node has
 * room (these very pointers). */
extern const char fd_cx_why_cut[], fd_cx_why_hard[], fd_cx_why_room[];

/* ---- the core's hooks (fd_constraint_core.c) --------------------------- */

#include "fd_core.h"

typedef struct fd_cons fd_cons;
struct fd_job;
struct fd_task;

/* fd_cons_new copies the tags and constraints of sj (validated by the
 * decoder) into *out, or sets it NULL when sj has neither. Returns 0 or
 * SK_ENOMEM. fd_cons_free(NULL) is a no-op. */
int fd_cons_new(const sk_submit_job *sj, fd_cons **out);
void fd_cons_free(fd_cons *cj);

/* fd_cons_active: the job has constraints; its waiting tasks are placed
 * by fd_constraint_round, not by the main network's flow. */
bool fd_cons_active(const struct fd_job *j);

/* fd_constraint_net_task: after the policy gave task t its arcs in the
 * main network, a waiting task of a constrained job keeps only its arc
 * to waiting (its e_arc[0]), the others get capacity 0: the main solve
 * then keeps no room for it, and fd_constraint_round places it on what
 * the main solve leaves. Returns 0 or an FC_E* code. O(the task's arcs). */
struct fd_net;
int fd_constraint_net_task(const fd_core *c, struct fd_net *net,
                           const struct fd_task *t);

/* The work of one constraint round is bounded: the flow network of
 * fd_cx_place has at most max(FD_CX_MAX_ARCS, the arcs to the nodes
 * that give twice the room the tasks to place need) task-to-node arcs;
 * beyond it only some nodes are offered (fd_constraint_round). */
#define FD_CX_MAX_ARCS 200000u

/* fd_constraint_round places the waiting tasks of constrained jobs on the
 * room the round's RESERVEs left, sends their RESERVEs, records why the
 * others wait, and updates the constraint counters of fd_stats. Called at
 * the end of a round, before its RESERVEs leave the core. Costs one
 * fd_cx_place over the live nodes and the tasks of jobs with tags, its
 * network bounded by FD_CX_MAX_ARCS (above), plus O(nodes + tagged
 * tasks) to build the instance. It does nothing (counted in
 * fs_cx_skipped) when no task or node changed since the last one
 * (c_cx_stale: fd_task_dirty, fd_node_mark) and no held task's wait
 * (cx_wait_ms) is over: it would place as the last one did. When every
 * waiting task has been tried by a round before, it first probes the
 * instance (fd_cx_probe, O(nodes * kinds * constraints)): if no node
 * could keep one of them, it places nothing (fs_cx_skipped and
 * fs_cx_ruled_out; the broken counts are updated); else a bounded round
 * offers only the nodes the probe found, so one pass of its window over
 * them replaces a pass over every node. Tasks held by the wait ask for
 * no round: they are tried again at the next round something else
 * brings, or at the earliest end of their waits (c_cx_wake, a deadline
 * of fd_core_next_deadline). */
void fd_constraint_round(fd_core *c, sk_time now);

/* fd_constraint_timeouts, from fd_core_on_timer: once the earliest wait
 * of a held task is over (now >= c_cx_wake), asks for a round (an event)
 * whose constraint round places it. O(1). */
void fd_constraint_timeouts(fd_core *c, sk_time now);

/* fd_constraint_why: why task `task` of job sj_job of the scheduler at
 * peer sched waits on its placement constraints (static text), or NULL
 * (not waiting, not constrained, or no reason known yet). */
const char *fd_constraint_why(const fd_core *c, sk_peer sched, uint64_t job,
                              uint32_t task);

/* fd_constraint_explain writes to f, for `flow explain`, task t's tags
 * and its job's constraints; if t waits, the reason the last constraint
 * round gave and, against the live nodes with room now, how many nodes
 * each hard constraint rules out, with one such node, its group (node,
 * rack or label value) and the count of the target tag there; if t is
 * placed, each constraint it breaks where it is (hard, or soft with its
 * weight). Nothing if t's job has no tags. Costs one instance of the
 * tagged jobs (as fd_constraint_round builds, without placing) plus
 * O(nodes * constraints) for a waiting task. Loop thread. */
void fd_constraint_explain(const fd_core *c, const struct fd_task *t, FILE *f);

/* What the placements of one job break, after the last round that placed
 * constrained tasks: per application and per constraint. */
typedef struct fd_cons_count {
    uint32_t cc_hard, cc_soft;              /* pairs broken */
    uint64_t cc_weight;                     /* soft weight */
    uint32_t cc_broken[SK_MAX_CONSTRAINTS]; /* per constraint, in the
                                               job's order */
    uint32_t cc_ncons;
} fd_cons_count;

/* fd_constraint_count fills *out for job sj_job of the scheduler at peer
 * sched. Returns 0, or SK_ENOTFOUND (no such job, or no constraint). */
int fd_constraint_count(const fd_core *c, sk_peer sched, uint64_t job,
                        fd_cons_count *out);
/* fd_cons_counts: job j's counts, or NULL when it has no constraint. */
const fd_cons_count *fd_cons_counts(const struct fd_job *j);

#endif /* FD_CONSTRAINT_H */
