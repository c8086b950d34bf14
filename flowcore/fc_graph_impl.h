/*
 * fc_graph_impl.h - the layout of a flowcore graph, shared by the graph
 * module and the solvers (not installed).
 *
 * Every arc a has two residual arcs: r = 2a (forward, src -> dst) and
 * r = 2a + 1 (backward, dst -> src); r ^ 1 is r's twin. Arrays indexed by
 * residual arc keep the data a solver touches in its inner loops together
 * per array (head, residual capacity, cost), and each node's adjacency is a
 * compact array of the residual arcs leaving it, so scanning a node reads
 * contiguous memory.
 *
 * The flow itself lives in an fc_flow_state (residual capacities, node
 * excesses, prices), separate from the topology, so that the race solver
 * can let two algorithms work on private copies of the state over the one
 * shared, read-only topology.
 */
#ifndef FC_GRAPH_IMPL_H
#define FC_GRAPH_IMPL_H

#include "flowcore.h"

#include <stdatomic.h>
#include <stdlib.h>

#define FC_NODE_FREE 0xff /* g_ntype of an unused node id */

/* FC_ASSERT aborts with file and line when an internal invariant breaks. */
#define FC_ASSERT(cond)                                                        \
    ((cond) ? (void)0 : fc_assert_fail(#cond, __FILE__, __LINE__))
_Noreturn void fc_assert_fail(const char *cond, const char *file, int line);

/* A cancel flag (flowcore.h): one atomic, read relaxed where solvers look
 * at it. */
struct fc_cancel {
    atomic_bool cn_stop;
};

/* The head and cost of one residual arc, as a node's adjacency keeps
 * them beside the arc's id (copies of g_head[r] and g_cost[r]). */
typedef struct fc_adj_arc {
    int64_t aa_cost;
    int32_t aa_head;
} fc_adj_arc;

/* The residual arcs leaving one node. A scan reads ad_arc in order
 * instead of g_head and g_cost at the arcs' ids: once arc ids are
 * recycled a hub's arcs have scattered ids, and those two reads were
 * relaxation's cache misses (a third of its time on the trace). */
typedef struct fc_adj {
    int32_t *ad_res;    /* residual arc ids */
    fc_adj_arc *ad_arc; /* [ad_cap] the head and cost of ad_res[m] */
    int32_t ad_len;
    int32_t ad_cap;
} fc_adj;

/* A flow and its prices. Arrays are sized to the graph's capacities. */
typedef struct fc_flow_state {
    int64_t *fs_rescap; /* [2 * arcs] residual capacity; rescap[2a+1] is
                           the flow on a, rescap[2a] its free capacity */
    int64_t *fs_excess; /* [nodes] supply + inflow - outflow */
    int64_t *fs_price;  /* [nodes] potential; reduced cost of r is
                           cost[r] - price[tail] + price[head] */
} fc_flow_state;

/* Scratch memory a solver keeps between solves: the graph owns it, so
 * that a large solve does not fault fresh pages in every time (on large
 * graphs that cost more than the copy it holds). */
typedef struct fc_scratch {
    void *sc_mem;
    size_t sc_size;
} fc_scratch;

/* The graph's scratch slots, one per user: two users may run at once (the
 * race's threads) but never share a slot. */
enum {
    FC_SCRATCH_CS,    /* cost scaling's copy of the network */
    FC_SCRATCH_RELAX, /* relaxation's per-node arrays */
    FC_SCRATCH_N,
};

/* fc_scratch_get returns at least bytes of memory from s (contents
 * undefined), growing it if needed, or NULL when out of memory (s keeps
 * what it had). Blocks of 2 MiB and more ask for transparent huge pages
 * where the system has them: solvers read them at random. */
void *fc_scratch_get(fc_scratch *s, size_t bytes);

/* Kinds of recorded change, for incremental solvers. */
typedef enum fc_change_kind {
    FC_CHANGE_NODE_ADD,
    FC_CHANGE_NODE_REMOVE,
    FC_CHANGE_SUPPLY,
    FC_CHANGE_ARC_ADD,
    FC_CHANGE_ARC_REMOVE,
    FC_CHANGE_COST,
    FC_CHANGE_CAPACITY,
} fc_change_kind;

typedef struct fc_change {
    uint8_t ch_kind; /* fc_change_kind */
    int32_t ch_id;   /* the node or arc */
} fc_change;

/* What the race learned from its last rounds: relaxation's head start
 * after it won (0: it did not), cost scaling's time after it won (0: it
 * did not), both 0 before any win; and since cost scaling's wins, how
 * many rounds it runs alone before relaxation's next try, and how many
 * after the next failed try. */
typedef struct fc_race_hint {
    int64_t rh_relax_ns;
    int64_t rh_cs_ns;
    int32_t rh_skip;
    int32_t rh_backoff;
} fc_race_hint;

struct fc_graph {
    /* nodes */
    int32_t g_nbound;  /* one more than the largest node id in use */
    int32_t g_ncap;    /* allocated node slots */
    int32_t g_nlive;   /* live nodes */
    int64_t *g_supply; /* [ncap] */
    uint8_t *g_ntype;  /* [ncap] fc_node_type, or FC_NODE_FREE */
    fc_adj *g_adj;     /* [ncap] */
    int32_t *g_nfree;  /* free node ids below nbound (a stack) */
    int32_t g_nnfree;
    /* arcs */
    int32_t g_abound; /* one more than the largest arc id in use */
    int32_t g_acap;   /* allocated arc slots */
    int32_t g_alive;  /* live arcs */
    int32_t *g_head;  /* [2 * acap] head node of each residual arc; -1
                         for a free arc */
    int64_t *g_cost;  /* [2 * acap] cost[2a] = c, cost[2a+1] = -c */
    int32_t *g_pos;   /* [2 * acap] index of r in adj[tail(r)].ad_res */
    int32_t *g_afree; /* free arc ids below abound (a stack) */
    int32_t g_nafree;
    int64_t g_capsum; /* capacities of the live arcs summed, at most
                         FC_MAX_CAPACITY_SUM */
    /* the current flow */
    fc_flow_state g_st;
    /* the race's second flow state, as large as g_st and grown with it
     * (the race is the default algorithm, and memory first touched inside
     * a solve costs page faults there; contents undefined between
     * solves): cost scaling's side of the race, swapped with g_st when
     * cost scaling wins */
    fc_flow_state g_spare;
    /* changes since the last solve, for incremental solvers */
    fc_change *g_changes;
    size_t g_nchanges;
    size_t g_changes_cap;
    bool g_changes_lost; /* too many to record: treat everything as moved */
    bool g_optimal;      /* g_st was optimal before the recorded changes */
    /* solvers' scratch memory, kept between solves (never cloned) */
    fc_scratch g_scratch[FC_SCRATCH_N];
    /* what the race learned from its last round (fc_race.c) */
    fc_race_hint g_race_hint;
};

/* fc_tail returns the tail node of residual arc r. */
static inline fc_node fc_tail(const fc_graph *g, int32_t r)
{
    return g->g_head[r ^ 1];
}

/* fc_flow_state_copy copies the used part of src into dst (both at least
 * as large as g's id bounds). */
void fc_flow_state_copy(const fc_graph *g, fc_flow_state *dst,
                        const fc_flow_state *src);

/* fc_push moves amount units of flow along residual arc r in st, updating
 * the residual capacities of r and its twin and the excesses of its ends. */
static inline void fc_push(const fc_graph *g, fc_flow_state *st, int32_t r,
                           int64_t amount)
{
    st->fs_rescap[r] -= amount;
    st->fs_rescap[r ^ 1] += amount;
    st->fs_excess[fc_tail(g, r)] -= amount;
    st->fs_excess[g->g_head[r]] += amount;
}

/* A check that a solver makes wherever it looks at the cancel flag: when
 * pl_stop(pl_arg) returns true, it stops as if cancelled. The race runs
 * relaxation (and the successive shortest paths it may fall back on) on
 * the calling thread, and keeps time through it. */
typedef struct fc_poll {
    bool (*pl_stop)(void *arg);
    void *pl_arg;
} fc_poll;

/* Solvers. Each computes a minimum-cost flow from the flow in st (which
 * respects capacities but may leave excesses) over g's topology, counts its
 * work in *work, and returns 0, FC_EINFEASIBLE, FC_ECANCELED or FC_ENOMEM.
 * On return st respects every capacity. scratch is the graph's array of
 * FC_SCRATCH_N slots; each solver uses its own. poll, where a solver takes
 * one, may be NULL. */
int fc_ssp_solve(const fc_graph *g, fc_flow_state *st,
                 const fc_solve_options *opt, const fc_poll *poll,
                 uint64_t *work);
int fc_cs_solve(const fc_graph *g, fc_flow_state *st,
                const fc_solve_options *opt, fc_scratch *scratch,
                uint64_t *work);
int fc_relax_solve(const fc_graph *g, fc_flow_state *st,
                   const fc_solve_options *opt, const fc_poll *poll,
                   fc_scratch *scratch, uint64_t *work);
/* fc_cs_fits tells whether cost scaling solves g itself: when its largest
 * cost times the square of its node count is too large for scaled prices
 * (a scheduling network's 2^31 escape arcs past about 3,000 nodes),
 * fc_cs_solve hands the solve to successive shortest path. Cost: one pass
 * over the nodes and arcs. */
bool fc_cs_fits(const fc_graph *g, const fc_solve_options *opt);
/* Relaxation with opt->so_relax_budget (> 0) units of work per live arc
 * (plus one arc's worth), then, if it ran out, cost scaling from its state
 * (fc_budget.c): *used is the algorithm that produced the flow (relax,
 * cost-scaling or, where cost scaling hands over, ssp), relaxation's work
 * is added to *relax_work (which must start at 0) and the other's to
 * *other_work. */
int fc_budget_solve(const fc_graph *g, fc_flow_state *st,
                    const fc_solve_options *opt, fc_scratch *scratch,
                    fc_algorithm *used, uint64_t *relax_work,
                    uint64_t *other_work);
/* The race also takes a second flow state as large as st (contents
 * undefined), which it swaps with st when cost scaling wins, and takes and
 * updates *hint, what it learned from its last rounds (see fc_race.c). */
int fc_race_solve(const fc_graph *g, fc_flow_state *st, fc_flow_state *spare,
                  const fc_solve_options *opt, fc_scratch *scratch,
                  fc_race_hint *hint, fc_algorithm *winner, uint64_t *work);

/* fc_cancelled tells whether the caller asked the solve to stop. */
static inline bool fc_cancelled(const fc_solve_options *opt)
{
    return opt->so_cancel != NULL &&
           atomic_load_explicit(&opt->so_cancel->cn_stop, memory_order_relaxed);
}

/* fc_must_stop tells whether a solve must stop: the caller asked, or poll
 * (NULL: none) says so. */
static inline bool fc_must_stop(const fc_solve_options *opt,
                                const fc_poll *poll)
{
    return fc_cancelled(opt) || (poll != NULL && poll->pl_stop(poll->pl_arg));
}

#endif /* FC_GRAPH_IMPL_H */
