/*
 * flowcore.h - libflowcore: an incremental min-cost flow library.
 *
 * A graph holds nodes with a supply (positive: a source of flow, negative:
 * a demand) and directed arcs with a capacity (lower bound 0) and a cost.
 * The graph also holds a current flow and node prices (potentials). A solve
 * turns the current flow into a minimum-cost flow that meets every supply
 * exactly, or reports that none exists. Between solves the caller changes
 * the graph (nodes, arcs, supplies, costs, capacities); the graph keeps the
 * flow consistent with the changes and remembers them, so that the next
 * solve can start from the previous solution (incremental solving) instead
 * of from nothing.
 *
 * Ids are dense small integers: node ids in [0, fc_graph_node_bound()),
 * arc ids in [0, fc_graph_arc_bound()); ids of removed nodes and arcs are
 * reused by later additions.
 *
 * libflowcore depends on libc and pthreads only. A graph is not
 * thread-safe: one thread changes or solves it at a time (the race solver
 * runs its own threads inside fc_solve and joins them before returning).
 * Functions return 0 or a negative FC_E* code.
 */
#ifndef FLOWCORE_H
#define FLOWCORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t fc_node; /* node id */
typedef int32_t fc_arc;  /* arc id */
#define FC_NONE ((int32_t)-1)

/* Limits. Costs and capacities are bounded so that the solvers' scaled
 * arithmetic (costs times the node count, sums of capacities) never
 * overflows 64 bits. */
#define FC_MAX_NODES    (1 << 26)
#define FC_MAX_ARCS     (1 << 28)
#define FC_MAX_COST     ((int64_t)1 << 32) /* |cost| <= FC_MAX_COST */
#define FC_MAX_CAPACITY ((int64_t)1 << 40) /* 0 <= capacity <= this */
#define FC_MAX_SUPPLY   ((int64_t)1 << 40) /* |supply| <= this */

enum fc_error {
    FC_OK = 0,
    FC_EINVAL = -1,      /* invalid argument: bad id, value out of range */
    FC_ENOMEM = -2,      /* out of memory */
    FC_ELIMIT = -3,      /* a size limit would be exceeded */
    FC_EINFEASIBLE = -4, /* no flow meets the supplies */
    FC_ESYNTAX = -5,     /* malformed input file */
    FC_ECANCELED = -6,   /* the solve was cancelled */
    FC_EIO = -7,         /* reading or writing a stream failed */
};

/* fc_strerror returns static text for an FC_E* code. Never NULL. */
const char *fc_strerror(int err);

/* Node roles in a scheduling network. The solvers ignore them; placement
 * extraction and the DIMACS extended format use them. */
typedef enum fc_node_type {
    FC_NODE_OTHER = 0,
    FC_NODE_TASK = 1,        /* a task: supply 1 */
    FC_NODE_AGGREGATOR = 2,  /* cluster, rack or equivalence class */
    FC_NODE_UNSCHEDULED = 3, /* a job's unscheduled aggregator */
    FC_NODE_MACHINE = 4,     /* a machine (or a core/slot of one) */
    FC_NODE_SINK = 5,        /* the sink: negative supply */
} fc_node_type;

typedef struct fc_graph fc_graph;

/* --- graph ---------------------------------------------------------------*/

/* fc_graph_new creates an empty graph. Returns 0 or FC_ENOMEM. */
int fc_graph_new(fc_graph **out);

/* fc_graph_free frees the graph and everything in it. NULL is a no-op. */
void fc_graph_free(fc_graph *g);

/* fc_graph_clone makes an independent deep copy of g (topology, flow,
 * prices and the record of changes). Returns 0 or FC_ENOMEM. */
int fc_graph_clone(const fc_graph *g, fc_graph **out);

/* Live node and arc counts, and the bounds of their ids (one more than
 * the largest id ever in use; ids below the bound may be free). */
int32_t fc_graph_node_count(const fc_graph *g);
int32_t fc_graph_node_bound(const fc_graph *g);
int32_t fc_graph_arc_count(const fc_graph *g);
int32_t fc_graph_arc_bound(const fc_graph *g);

/* fc_node_add adds a node with the given supply and type; its id goes to
 * *out. Returns 0, FC_EINVAL (supply out of range) or FC_ELIMIT. */
int fc_node_add(fc_graph *g, int64_t supply, fc_node_type type, fc_node *out);

/* fc_node_remove removes v and every arc at it. Flow that used those arcs
 * is withdrawn and left as imbalance at the other ends, for the next solve
 * to re-route. Returns 0 or FC_EINVAL. */
int fc_node_remove(fc_graph *g, fc_node v);

/* fc_node_remove_drain removes v like fc_node_remove, but first drains the
 * flow leaving v downstream along its paths until they reach a node with
 * negative supply (the sink), lowering that node's demand by the amount
 * drained. Used when a task finishes: only the sink changes, and the next
 * solve has nothing to re-route. Flow entering v (rare in scheduling
 * networks) is withdrawn as in fc_node_remove. v's own supply leaves with
 * it. Returns 0 or FC_EINVAL. */
int fc_node_remove_drain(fc_graph *g, fc_node v);

/* fc_node_set_supply changes v's supply. Returns 0 or FC_EINVAL. */
int fc_node_set_supply(fc_graph *g, fc_node v, int64_t supply);

/* Accessors of a live node (undefined for a free id: check with
 * fc_node_exists). */
bool fc_node_exists(const fc_graph *g, fc_node v);
int64_t fc_node_supply(const fc_graph *g, fc_node v);
fc_node_type fc_node_get_type(const fc_graph *g, fc_node v);
int64_t fc_node_price(const fc_graph *g, fc_node v);

/* fc_node_degree returns the number of arcs at v, in and out; fc_node_arc
 * returns the i-th of them (0 <= i < degree) and sets *outgoing to whether
 * v is its source. The order changes when arcs are added or removed. */
int32_t fc_node_degree(const fc_graph *g, fc_node v);
fc_arc fc_node_arc(const fc_graph *g, fc_node v, int32_t i, bool *outgoing);

/* fc_arc_add adds an arc src -> dst with capacity in [0, FC_MAX_CAPACITY]
 * and |cost| <= FC_MAX_COST, carrying no flow; its id goes to *out.
 * Parallel arcs and self-loops are allowed. Returns 0, FC_EINVAL or
 * FC_ELIMIT. */
int fc_arc_add(fc_graph *g, fc_node src, fc_node dst, int64_t capacity,
               int64_t cost, fc_arc *out);

/* fc_arc_remove removes arc a; its flow is withdrawn and left as
 * imbalance at its ends. Returns 0 or FC_EINVAL. */
int fc_arc_remove(fc_graph *g, fc_arc a);

/* fc_arc_set_cost changes a's cost. Returns 0 or FC_EINVAL. */
int fc_arc_set_cost(fc_graph *g, fc_arc a, int64_t cost);

/* fc_arc_set_capacity changes a's capacity; flow above the new capacity is
 * withdrawn and left as imbalance at its ends. Returns 0 or FC_EINVAL. */
int fc_arc_set_capacity(fc_graph *g, fc_arc a, int64_t capacity);

/* fc_arc_find returns an arc src -> dst (the one added last if there are
 * parallel ones), or FC_NONE. Cost: O(degree of src). */
fc_arc fc_arc_find(const fc_graph *g, fc_node src, fc_node dst);

/* Accessors of a live arc. */
bool fc_arc_exists(const fc_graph *g, fc_arc a);
fc_node fc_arc_src(const fc_graph *g, fc_arc a);
fc_node fc_arc_dst(const fc_graph *g, fc_arc a);
int64_t fc_arc_capacity(const fc_graph *g, fc_arc a);
int64_t fc_arc_cost(const fc_graph *g, fc_arc a);
int64_t fc_arc_flow(const fc_graph *g, fc_arc a);

/* fc_graph_flow_cost returns the cost of the current flow: the sum over
 * arcs of flow times cost. */
int64_t fc_graph_flow_cost(const fc_graph *g);

/* fc_graph_check verifies the current flow: 0 <= flow <= capacity on every
 * arc and, at every node, supply + inflow - outflow = 0. Returns 0, or
 * FC_EINVAL with the first violation described in err. */
int fc_graph_check(const fc_graph *g, char *err, size_t errlen);

/* fc_graph_reset_flow sets every flow and price to zero and forgets the
 * record of changes: the next solve starts from nothing. */
void fc_graph_reset_flow(fc_graph *g);

/* fc_graph_change_count returns how many changes were recorded since the
 * last successful solve (or reset). */
size_t fc_graph_change_count(const fc_graph *g);

/* --- solving -------------------------------------------------------------*/

typedef enum fc_algorithm {
    FC_ALG_SSP = 0,          /* successive shortest path: the reference */
    FC_ALG_COST_SCALING = 1, /* Goldberg's push-relabel cost scaling */
    FC_ALG_RELAX = 2,        /* Bertsekas-Tseng relaxation */
    FC_ALG_RACE = 3,         /* relaxation and incremental cost scaling on
                                two threads; the first to finish wins */
} fc_algorithm;

typedef struct fc_solve_options {
    fc_algorithm so_algorithm;
    bool so_incremental;    /* start from the current flow and prices (the
                               last solution plus the recorded changes) rather
                               than from zero */
    int so_alpha;           /* cost scaling: epsilon is divided by alpha each
                               phase; 0 takes the tuned default */
    atomic_bool *so_cancel; /* if not NULL, the solve stops with
                               FC_ECANCELED soon after it becomes true */
} fc_solve_options;

typedef struct fc_solve_stats {
    fc_algorithm ss_algorithm; /* the algorithm that produced the flow */
    double ss_seconds;         /* wall time of the solve */
    int64_t ss_cost;           /* cost of the resulting flow */
    uint64_t ss_iterations;    /* algorithm-specific work count (pushes and
                                  relabels, augmentations, ...) */
} fc_solve_stats;

/* fc_solve_options_init sets the defaults: race, incremental, alpha 0. */
void fc_solve_options_init(fc_solve_options *opt);

/* fc_solve computes a minimum-cost flow meeting every supply, starting from
 * the current state as opt says, and leaves it (with optimal prices) in g.
 * stats may be NULL. Returns 0; FC_EINFEASIBLE if no flow meets the
 * supplies (g then holds a flow that respects capacities but not all
 * supplies: do not rely on it); FC_ECANCELED (g holds a consistent but not
 * optimal flow); FC_ENOMEM. Never returns a flow that breaks a capacity. */
int fc_solve(fc_graph *g, const fc_solve_options *opt, fc_solve_stats *stats);

/* fc_algorithm_name returns "ssp", "cost-scaling", "relax" or "race". */
const char *fc_algorithm_name(fc_algorithm alg);

/* fc_algorithm_parse is the inverse of fc_algorithm_name. Returns 0 or
 * FC_EINVAL. */
int fc_algorithm_parse(const char *name, fc_algorithm *out);

#ifdef __cplusplus
}
#endif

#endif /* FLOWCORE_H */
