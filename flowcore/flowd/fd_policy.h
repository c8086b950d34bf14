/*
 * fd_policy.h - the cost model interface of the flow node: one struct of
 * function pointers per policy, as Firmament's cost models, through
 * which the core builds and changes its network.
 *
 * The generic part (fd_sync.c) owns the task nodes: it adds one with
 * supply 1 per task, strips its outgoing arcs when its state changes,
 * drains and removes it when it ends, and keeps the sink's demand equal
 * to the number of task nodes. A policy owns everything else: the sink
 * (made by po_init), aggregators, machine nodes and their arcs to the
 * sink, per-job nodes, and which arcs a task node gets: arcs to the
 * unscheduled aggregator, to aggregators and nodes it prefers, and for a
 * task placed on a node its continuation arc (and whatever lets it move,
 * when the policy allows preemption).
 *
 * Rules every policy keeps, which fd_sync relies on and the tests check:
 * - the network is always feasible (every task node has a path to the
 *   sink that no other task can fill, e.g. through its job's
 *   unscheduled aggregator);
 * - a node's arcs to the sink carry at most fd_node_room(n) units in
 *   all, its long-task cap less the long reservations the core does not
 *   know: no placement can exceed a node's slots or long share;
 * - a placed task's arcs lead only to its node and its unscheduled
 *   aggregator, unless preemption is on (the core reads the flow of
 *   placed tasks only then), and a machine node's arcs lead to the sink
 *   (a task is placed on the first machine node its flow reaches);
 * - every cost and capacity goes through fd_net_arc / fd_net_arc_set,
 *   which refuse values beyond flowcore's limits;
 * - the hooks read the records and the time they are given and nothing
 *   else, so that a network built from scratch (fd_build) equals the one
 *   kept up to date change by change (fd_sync).
 *
 * Hooks return 0 or a negative FC_E* code; on error the core counts it
 * and rebuilds the network at its next sync. Called on the loop thread,
 * never while a round is out.
 */
#ifndef FD_POLICY_H
#define FD_POLICY_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fd_core fd_core;
typedef struct fd_net fd_net;
typedef struct fd_node fd_node;
typedef struct fd_rack fd_rack;
typedef struct fd_job fd_job;
typedef struct fd_task fd_task;
typedef struct fd_class fd_class;

typedef struct fd_policy {
    const char *po_name;
    /* a new, empty network: the sink (net->nt_sink) and the
     * cluster-wide nodes */
    int (*po_init)(const fd_core *c, fd_net *net);
    /* a rack with its first node coming, one losing its last, or the
     * sum of its nodes' caps changed */
    int (*po_rack_add)(const fd_core *c, fd_net *net, fd_rack *r);
    int (*po_rack_update)(const fd_core *c, fd_net *net, fd_rack *r);
    int (*po_rack_remove)(const fd_core *c, fd_net *net, fd_rack *r);
    /* a node monitor joined (its rack exists), its load or room changed
     * (the arcs to the sink), or it left */
    int (*po_node_add)(const fd_core *c, fd_net *net, fd_node *n);
    int (*po_node_update)(const fd_core *c, fd_net *net, fd_node *n);
    int (*po_node_remove)(const fd_core *c, fd_net *net, fd_node *n);
    /* a job arrived, its live task count changed, it left */
    int (*po_job_add)(const fd_core *c, fd_net *net, fd_job *j);
    int (*po_job_update)(const fd_core *c, fd_net *net, fd_job *j);
    int (*po_job_remove)(const fd_core *c, fd_net *net, fd_job *j);
    /* the task's node exists with no outgoing arc: add its arcs for its
     * state at time now (waiting: unscheduled, preferences, cluster;
     * placed: continuation) */
    int (*po_task_arcs)(const fd_core *c, fd_net *net, fd_task *t,
                        uint64_t now);
    /* time passed: update the costs that depend on it (a waiting task's
     * unscheduled cost grows with its wait) */
    int (*po_task_costs)(const fd_core *c, fd_net *net, fd_task *t,
                         uint64_t now);
    /* when the costs po_task_costs sets for the waiting task t next
     * change, a time after now: until then a sync leaves them alone
     * (fd_due.c) */
    uint64_t (*po_task_costs_due)(const fd_core *c, const fd_task *t,
                                  uint64_t now);
    /* an equivalence class of jobs (fd_int.h) came or went; the arc
     * from class k to node n must be set (k and n are in the network;
     * called for every pair when either comes or n's load changes) */
    int (*po_class_add)(const fd_core *c, fd_net *net, fd_class *k);
    int (*po_class_remove)(const fd_core *c, fd_net *net, fd_class *k);
    int (*po_class_node)(const fd_core *c, fd_net *net, fd_class *k,
                         fd_node *n);
    /* every record is in the network (the end of a sync or a build at
     * time now): set what depends on all of them at once (quincy's fair
     * shares); NULL: nothing */
    int (*po_whole)(const fd_core *c, fd_net *net, uint64_t now);
} fd_policy;

/* The policies: quincy (fd_quincy.c), spread (fd_spread.c), multires
 * (fd_multires.c). */
extern const fd_policy fd_policy_quincy;
extern const fd_policy fd_policy_spread;
extern const fd_policy fd_policy_multires;

/* fd_policy_find returns the policy called name, or NULL. */
const fd_policy *fd_policy_find(const char *name);

/*
 * Building blocks: quincy's hooks, which spread shares (everything but a
 * node's arcs to the sink). A node's entry keeps its arcs to the sink in
 * e_arc[0 .. FD_ARC_RACK) and its rack's arc to it in
 * e_arc[FD_ARC_RACK].
 */
#define FD_ARC_RACK 5

int fd_q_init(const fd_core *c, fd_net *net);
int fd_q_rack_add(const fd_core *c, fd_net *net, fd_rack *r);
int fd_q_rack_update(const fd_core *c, fd_net *net, fd_rack *r);
int fd_q_rack_remove(const fd_core *c, fd_net *net, fd_rack *r);
int fd_q_node_remove(const fd_core *c, fd_net *net, fd_node *n);
int fd_q_job_add(const fd_core *c, fd_net *net, fd_job *j);
int fd_q_job_update(const fd_core *c, fd_net *net, fd_job *j);
int fd_q_job_remove(const fd_core *c, fd_net *net, fd_job *j);
int fd_q_task_arcs(const fd_core *c, fd_net *net, fd_task *t, uint64_t now);
int fd_q_task_costs(const fd_core *c, fd_net *net, fd_task *t, uint64_t now);
uint64_t fd_q_task_costs_due(const fd_core *c, const fd_task *t, uint64_t now);
/* quincy's classes: an aggregator only for a class with labels, arcs of
 * capacity room to the nodes that fit (fd_q_fits: every label, and the
 * request within the node's total resources) */
int fd_q_class_add(const fd_core *c, fd_net *net, fd_class *k);
int fd_q_class_remove(const fd_core *c, fd_net *net, fd_class *k);
int fd_q_class_node(const fd_core *c, fd_net *net, fd_class *k, fd_node *n);
/* the aggregator of class k and po_class_node for every live node */
int fd_q_class_build(const fd_core *c, fd_net *net, fd_class *k);
bool fd_q_fits(const fd_class *k, const fd_node *n);

#endif /* FD_POLICY_H */
