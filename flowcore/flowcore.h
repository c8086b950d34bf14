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
 * runs cost scaling on a thread of its own inside fc_solve and joins it
 * before returning).
 * Functions return 0 or a negative FC_E* code.
 */
#ifndef FLOWCORE_H
#define FLOWCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FC_API marks the library's API: the functions declared with it are the
 * only symbols libflowcore exports (it is built with -fvisibility=hidden,
 * see flowcore/flowcore.mk); tests/test_fc_exports.sh checks both ways. */
#if defined(__GNUC__)
#define FC_API __attribute__((visibility("default")))
#else
#define FC_API
#endif

typedef int32_t fc_node; /* node id */
typedef int32_t fc_arc;  /* arc id */
#define FC_NONE ((int32_t)-1)

/* Limits. Within them no intermediate of the solvers overflows 64 bits,
 * with one exception made wide instead: the cost of a whole flow, a sum of
 * flow times cost over the arcs, reaches 2^92 (FC_MAX_CAPACITY_SUM times
 * FC_MAX_COST) and is an fc_int128. The audit behind this statement:
 * - flow and excess: a node's excess is at most its |supply| plus the
 *   capacities of its arcs, at most 2^40 + 2^60. FC_MAX_CAPACITY_SUM is the
 *   limit tightened for this (2^28 arcs of capacity 2^40 could give one
 *   node an excess of 2^68); sums of excesses over sets of nodes
 *   (relaxation) and of supplies (balance checks) are 128-bit;
 * - successive shortest path: path lengths are at most FC_MAX_NODES * 2 *
 *   FC_MAX_COST = 2^59, and prices beyond 2^60 are reset, so distances and
 *   reduced costs stay below 2^62;
 * - cost scaling multiplies costs by the node count and keeps scaled prices
 *   below 2^61; a network whose largest cost times the node count squared
 *   does not fit that (about 2,100 nodes at cost 2^32) is solved by
 *   successive shortest path instead;
 * - relaxation resets incoming prices beyond 2^58 and hands the solve to
 *   successive shortest path once the spread of prices passes twice the
 *   incoming spread plus 4 * (nodes + 1) * the largest cost (at most
 *   2^61), so prices and reduced costs stay below 2^63.
 * The limits bound the arithmetic, not the time: relaxation's work grows
 * with the costs themselves on some networks (tests/test_fc_limits.c). */
#define FC_MAX_NODES    (1 << 26)
#define FC_MAX_ARCS     (1 << 28)
#define FC_MAX_COST     ((int64_t)1 << 32) /* |cost| <= FC_MAX_COST */
#define FC_MAX_CAPACITY ((int64_t)1 << 40) /* 0 <= capacity <= this */
#define FC_MAX_SUPPLY   ((int64_t)1 << 40) /* |supply| <= this */
/* The capacities of all live arcs of a graph sum to at most this: adding
 * an arc or raising a capacity beyond it fails with FC_ELIMIT (a million
 * arcs of the largest capacity; scheduling networks use a tiny share). */
#define FC_MAX_CAPACITY_SUM ((int64_t)1 << 60)

/* A signed 128-bit integer, for the cost of a flow (see the limits).
 * gcc and clang provide it, in C and in C++, on 64-bit targets; printf
 * cannot print it: fc_int128_format does. */
__extension__ typedef __int128 fc_int128;

/* Room for any fc_int128 in decimal: 39 digits, a sign and the NUL. */
#define FC_INT128_BUFSIZE 41

/* fc_int128_format writes v in decimal ("-" and digits) into buf, cut to
 * len - 1 characters and NUL-terminated like snprintf (len 0: nothing), and
 * returns buf. FC_INT128_BUFSIZE bytes always suffice. */
FC_API char *fc_int128_format(fc_int128 v, char *buf, size_t len);

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
FC_API const char *fc_strerror(int err);

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
FC_API int fc_graph_new(fc_graph **out);

/* fc_graph_free frees the graph and everything in it. NULL is a no-op. */
FC_API void fc_graph_free(fc_graph *g);

/* fc_graph_clone makes an independent deep copy of g (topology, flow,
 * prices and the record of changes). Returns 0 or FC_ENOMEM. */
FC_API int fc_graph_clone(const fc_graph *g, fc_graph **out);

/* Live node and arc counts, and the bounds of their ids (one more than
 * the largest id ever in use; ids below the bound may be free). */
FC_API int32_t fc_graph_node_count(const fc_graph *g);
FC_API int32_t fc_graph_node_bound(const fc_graph *g);
FC_API int32_t fc_graph_arc_count(const fc_graph *g);
FC_API int32_t fc_graph_arc_bound(const fc_graph *g);

/* fc_node_add adds a node with the given supply and type; its id goes to
 * *out. Returns 0, FC_EINVAL (supply out of range) or FC_ELIMIT. */
FC_API int fc_node_add(fc_graph *g, int64_t supply, fc_node_type type,
                       fc_node *out);

/* fc_node_remove removes v and every arc at it. Flow that used those arcs
 * is withdrawn and left as imbalance at the other ends, for the next solve
 * to re-route. Returns 0 or FC_EINVAL. */
FC_API int fc_node_remove(fc_graph *g, fc_node v);

/* fc_node_remove_drain removes v like fc_node_remove, but first drains the
 * flow leaving v downstream along its paths until they reach a node with
 * negative supply (the sink), lowering that node's demand by the amount
 * drained. Used when a task finishes: only the sink changes, and the next
 * solve has nothing to re-route. Flow entering v (rare in scheduling
 * networks) is withdrawn as in fc_node_remove. v's own supply leaves with
 * it. Returns 0 or FC_EINVAL. */
FC_API int fc_node_remove_drain(fc_graph *g, fc_node v);

/* fc_node_set_supply changes v's supply. Returns 0 or FC_EINVAL. */
FC_API int fc_node_set_supply(fc_graph *g, fc_node v, int64_t supply);

/* Accessors of a live node (undefined for a free id: check with
 * fc_node_exists). */
FC_API bool fc_node_exists(const fc_graph *g, fc_node v);
FC_API int64_t fc_node_supply(const fc_graph *g, fc_node v);
FC_API fc_node_type fc_node_get_type(const fc_graph *g, fc_node v);
FC_API int64_t fc_node_price(const fc_graph *g, fc_node v);

/* fc_node_degree returns the number of arcs at v, in and out; fc_node_arc
 * returns the i-th of them (0 <= i < degree) and sets *outgoing to whether
 * v is its source. The order changes when arcs are added or removed. */
FC_API int32_t fc_node_degree(const fc_graph *g, fc_node v);
FC_API fc_arc fc_node_arc(const fc_graph *g, fc_node v, int32_t i,
                          bool *outgoing);

/* fc_arc_add adds an arc src -> dst with capacity in [0, FC_MAX_CAPACITY]
 * and |cost| <= FC_MAX_COST, carrying no flow; its id goes to *out.
 * Parallel arcs and self-loops are allowed. Returns 0, FC_EINVAL or
 * FC_ELIMIT (too many arcs, or the capacities would sum to more than
 * FC_MAX_CAPACITY_SUM). */
FC_API int fc_arc_add(fc_graph *g, fc_node src, fc_node dst, int64_t capacity,
                      int64_t cost, fc_arc *out);

/* fc_arc_remove removes arc a; its flow is withdrawn and left as
 * imbalance at its ends. Returns 0 or FC_EINVAL. */
FC_API int fc_arc_remove(fc_graph *g, fc_arc a);

/* fc_arc_set_cost changes a's cost. Returns 0 or FC_EINVAL. */
FC_API int fc_arc_set_cost(fc_graph *g, fc_arc a, int64_t cost);

/* fc_arc_set_capacity changes a's capacity; flow above the new capacity is
 * withdrawn and left as imbalance at its ends. Returns 0, FC_EINVAL or
 * FC_ELIMIT (the capacities would sum to more than FC_MAX_CAPACITY_SUM;
 * nothing changed). */
FC_API int fc_arc_set_capacity(fc_graph *g, fc_arc a, int64_t capacity);

/* fc_arc_find returns an arc src -> dst (the one added last if there are
 * parallel ones), or FC_NONE. Cost: O(degree of src). */
FC_API fc_arc fc_arc_find(const fc_graph *g, fc_node src, fc_node dst);

/* Accessors of a live arc. */
FC_API bool fc_arc_exists(const fc_graph *g, fc_arc a);
FC_API fc_node fc_arc_src(const fc_graph *g, fc_arc a);
FC_API fc_node fc_arc_dst(const fc_graph *g, fc_arc a);
FC_API int64_t fc_arc_capacity(const fc_graph *g, fc_arc a);
FC_API int64_t fc_arc_cost(const fc_graph *g, fc_arc a);
FC_API int64_t fc_arc_flow(const fc_graph *g, fc_arc a);

/* fc_graph_flow_cost returns the cost of the current flow: the sum over
 * arcs of flow times cost, exact (it can pass 2^63; see the limits). Cost:
 * one pass over the arcs. */
FC_API fc_int128 fc_graph_flow_cost(const fc_graph *g);

/* fc_graph_check verifies the current flow: 0 <= flow <= capacity on every
 * arc and, at every node, supply + inflow - outflow = 0. Returns 0, or
 * FC_EINVAL with the first violation described in err. */
FC_API int fc_graph_check(const fc_graph *g, char *err, size_t errlen);

/* fc_graph_reset_flow sets every flow and price to zero and forgets the
 * record of changes: the next solve starts from nothing. */
FC_API void fc_graph_reset_flow(fc_graph *g);

/* fc_graph_change_count returns how many changes were recorded since the
 * last successful solve (or reset), or SIZE_MAX when the record is lost:
 * too many changes, no memory for the record, or a solve that failed since
 * (its flow and prices no longer match any record), so that the next
 * incremental solve looks at the whole network. */
FC_API size_t fc_graph_change_count(const fc_graph *g);

/* --- solving -------------------------------------------------------------*/

typedef enum fc_algorithm {
    FC_ALG_SSP = 0,          /* successive shortest path: the reference */
    FC_ALG_COST_SCALING = 1, /* Goldberg's push-relabel cost scaling */
    FC_ALG_RELAX = 2,        /* Bertsekas-Tseng relaxation */
    FC_ALG_RACE = 3,         /* relaxation and incremental cost scaling on
                                two threads; the first to finish wins (after
                                relaxation's wins it gets a head start, after
                                cost scaling's a short try or none; see
                                fc_race.c) */
} fc_algorithm;

/* A cancel flag: set from any thread, it asks the solves that watch it to
 * stop soon (fc_solve_options.so_cancel). It is an object of the library's
 * rather than a C11 atomic_bool of the caller's so that this header needs
 * no <stdatomic.h> and compiles as C++. The solvers look at it every few
 * thousand steps of work (a few microseconds), and a look must stay a plain
 * load: an object the library owns is read with one relaxed atomic load,
 * inlined, where a callback (int (*)(void *)) would cost an indirect call
 * the compiler cannot inline, and would leave it to every caller to make
 * the flag safe to read while another thread writes it. One flag may be
 * watched by several solves at once. */
typedef struct fc_cancel fc_cancel;

/* fc_cancel_new creates a flag, not set. Returns 0 or FC_ENOMEM. */
FC_API int fc_cancel_new(fc_cancel **out);

/* fc_cancel_free frees the flag; no solve may be watching it. NULL is a
 * no-op. */
FC_API void fc_cancel_free(fc_cancel *c);

/* fc_cancel_set sets the flag (stop true: the solves watching it return
 * FC_ECANCELED soon) or clears it for the next solve. Any thread, any time;
 * never blocks. */
FC_API void fc_cancel_set(fc_cancel *c, bool stop);

/* fc_cancel_is_set tells whether the flag is set. Any thread. */
FC_API bool fc_cancel_is_set(const fc_cancel *c);

typedef struct fc_solve_options {
    fc_algorithm so_algorithm;
    bool so_incremental;      /* start from the current flow and prices (the
                                 last solution plus the recorded changes) rather
                                 than from zero */
    int so_alpha;             /* cost scaling: epsilon is divided by alpha each
                                 phase; 0 takes the tuned default */
    fc_cancel *so_cancel;     /* if not NULL, the solve stops with
                                 FC_ECANCELED soon after it is set; the
                                 caller keeps it alive through the solve */
    uint64_t so_relax_budget; /* relax only: 0, no limit; else once
                                 relaxation's work passes this many of its
                                 units (arcs it looked at, a node it
                                 moved to 16) per live arc,
                                 it stops and cost
                                 scaling finishes the solve incrementally
                                 from its state (successive shortest path
                                 where cost scaling hands over, see
                                 ss_algorithm): a deterministic race,
                                 fc_budget.c */
} fc_solve_options;

typedef struct fc_solve_stats {
    fc_algorithm ss_algorithm; /* the algorithm that produced the flow
                                  (ssp where cost scaling handed over:
                                  costs too large for its scaled prices) */
    double ss_seconds;         /* wall time of the solve */
    fc_int128 ss_cost;         /* cost of the resulting flow, exact */
    uint64_t ss_iterations;    /* algorithm-specific work count (pushes and
                                  relabels, augmentations, ...) */
    uint64_t ss_relax_work;    /* the part of ss_iterations relaxation
                                  did: all of it for relax, its budget's
                                  worth when it ran out of so_relax_budget
                                  (the rest is then ss_algorithm's), all
                                  of it for the race too (its two
                                  solvers' work is not split), else 0 */
} fc_solve_stats;

/* fc_solve_options_init sets the defaults: race, incremental, alpha 0, no
 * relaxation budget. */
FC_API void fc_solve_options_init(fc_solve_options *opt);

/* fc_solve computes a minimum-cost flow meeting every supply, starting from
 * the current state as opt says, and leaves it (with optimal prices) in g.
 * stats may be NULL. Returns 0; FC_EINFEASIBLE if no flow meets the
 * supplies (g then holds a flow that respects capacities but not all
 * supplies: do not rely on it); FC_ECANCELED (g holds a consistent but not
 * optimal flow); FC_ENOMEM. Never returns a flow that breaks a capacity. */
FC_API int fc_solve(fc_graph *g, const fc_solve_options *opt,
                    fc_solve_stats *stats);

/* fc_algorithm_name returns "ssp", "cost-scaling", "relax" or "race". */
FC_API const char *fc_algorithm_name(fc_algorithm alg);

/* fc_algorithm_parse is the inverse of fc_algorithm_name. Returns 0 or
 * FC_EINVAL. */
FC_API int fc_algorithm_parse(const char *name, fc_algorithm *out);

/* --- DIMACS I/O ----------------------------------------------------------*/

/* The DIMACS min-cost-flow format, and Firmament's extended incremental
 * format on top of it. A file is a sequence of sections. The first holds
 * the network: `p min NODES ARCS` (before any n or a line), then
 * `n ID SUPPLY [TYPE]` for nodes with a supply or a type (nodes 1..NODES
 * exist from the p line, with supply 0), and exactly ARCS lines
 * `a SRC DST LOW CAP COST [TYPE]`. Every later section is a round of
 * changes applied to that network:
 *   n ID SUPPLY [TYPE]          set a node's supply (adding the node if ID
 *                               is free); the difference goes to the sink
 *   a SRC DST LOW CAP COST [T]  add an arc
 *   x SRC DST LOW CAP COST [T [OLD_COST]]
 *                               change the arc SRC -> DST (the one costing
 *                               OLD_COST if given, else the last added);
 *                               CAP 0 removes it; adds it if missing
 *   r ID                        remove a node and its arcs; its supply
 *                               goes to the sink
 *   d SUPPLY [POTENTIAL] NARCS [TYPE]
 *                               add a node with the smallest free ID; the
 *                               next NARCS lines are its arcs, `a` lines in
 *                               which ID 0 names the new node; a positive
 *                               supply is taken from the sink
 * A section ends at `c EOI` (end of iteration), `c EOS` (end of the whole
 * run) or the end of the input; other `c` lines are comments. The sink is
 * the node of type SINK, or else the only node with negative supply;
 * changes that must move supply to a sink fail if there is none. LOW must
 * be 0. TYPE uses Firmament's numbers: 0 other, 1 task, 2 PU (an
 * FC_NODE_MACHINE), 3 sink, 4 machine and 5 intermediate resource (both
 * FC_NODE_AGGREGATOR), and flowcore's 6 for FC_NODE_UNSCHEDULED. Arc types
 * and potentials are read and ignored. Errors name the line: "NAME:LINE:
 * what was wrong". */

/* Limits applied while reading; anything beyond fails with FC_ELIMIT. */
typedef struct fc_dimacs_limits {
    int32_t dl_max_nodes; /* node ids (DIMACS ids) in [1, max] */
    int32_t dl_max_arcs;  /* live arcs */
    int32_t dl_max_line;  /* characters per line, newline excluded */
} fc_dimacs_limits;

/* fc_dimacs_limits_init sets the defaults: 2^24 nodes, 2^26 arcs, lines of
 * 1,024 characters. */
FC_API void fc_dimacs_limits_init(fc_dimacs_limits *lim);

/* How a section ended. */
typedef enum fc_dimacs_end {
    FC_DIMACS_EOF = 0, /* the input ended */
    FC_DIMACS_EOI = 1, /* `c EOI`: more rounds may follow */
    FC_DIMACS_EOS = 2, /* `c EOS`: the run is over */
} fc_dimacs_end;

/* A reader keeps the network it builds and the mapping between DIMACS ids
 * and node ids, across sections and input streams. */
typedef struct fc_dimacs_reader fc_dimacs_reader;

/* fc_dimacs_reader_new creates a reader with the given limits (NULL: the
 * defaults). Returns 0 or FC_ENOMEM. */
FC_API int fc_dimacs_reader_new(const fc_dimacs_limits *lim,
                                fc_dimacs_reader **out);

/* fc_dimacs_reader_free frees the reader and its graph. NULL is a no-op. */
FC_API void fc_dimacs_reader_free(fc_dimacs_reader *r);

/* fc_dimacs_read reads one section from in (named name in messages; line
 * numbers count from the first call with this stream and name) and
 * applies it: the first section builds the network, later ones change it.
 * *end says how the section ended and *lines counts the p, n, a, x, r and
 * d lines it held (0: nothing but comments). Returns 0; FC_ESYNTAX (a
 * malformed or inconsistent line), FC_ELIMIT, FC_ENOMEM or FC_EIO, with a
 * message in fc_dimacs_error. After an error the graph holds the lines
 * before the bad one; the reader accepts no more input. */
FC_API int fc_dimacs_read(fc_dimacs_reader *r, FILE *in, const char *name,
                          fc_dimacs_end *end, size_t *lines);

/* fc_dimacs_error returns the message of the last error ("" if none). */
FC_API const char *fc_dimacs_error(const fc_dimacs_reader *r);

/* fc_dimacs_graph returns the reader's graph (NULL before the first
 * section), to solve and inspect; it stays the reader's. */
FC_API fc_graph *fc_dimacs_graph(const fc_dimacs_reader *r);

/* fc_dimacs_node_id returns the DIMACS id of node v, or 0 if v has none.
 * fc_dimacs_node returns the node of a DIMACS id, or FC_NONE. */
FC_API int64_t fc_dimacs_node_id(const fc_dimacs_reader *r, fc_node v);
FC_API fc_node fc_dimacs_node(const fc_dimacs_reader *r, int64_t id);

/* fc_dimacs_write writes g as one DIMACS section: the p line, an n line per
 * live node with a supply or a type (the type as a third field), an a line
 * per arc. Live nodes are numbered 1, 2, ... in id order. Returns 0 or
 * FC_EIO. */
FC_API int fc_dimacs_write(const fc_graph *g, FILE *out);

/* fc_dimacs_write_flow writes g's flow as a DIMACS solution: `s COST`,
 * then `f SRC DST FLOW` for every arc with flow, in arc id order. Nodes are
 * named by r's DIMACS ids if r is not NULL (r's graph must be g), else as
 * fc_dimacs_write numbers them. Returns 0 or FC_EIO. */
FC_API int fc_dimacs_write_flow(const fc_graph *g, const fc_dimacs_reader *r,
                                FILE *out);

/* One line of a change round in the extended format, for programs that
 * produce rounds (a scheduler, a generator). Ids are DIMACS ids. */
typedef struct fc_dimacs_change {
    char dc_op;           /* 'n', 'a', 'x', 'r' or 'd' (see above) */
    int64_t dc_id;        /* n, r: the node */
    int64_t dc_src;       /* a, x: the arc's ends; 0 names the node of */
    int64_t dc_dst;       /*   the last d line */
    int64_t dc_supply;    /* n, d */
    int64_t dc_capacity;  /* a, x (0 in an x line removes the arc) */
    int64_t dc_cost;      /* a, x */
    int64_t dc_narcs;     /* d: how many a lines follow for the node */
    fc_node_type dc_type; /* n, d: written when not FC_NODE_OTHER */
} fc_dimacs_change;

/* fc_dimacs_write_change writes one change line. Returns 0, FC_EINVAL (an
 * unknown op or a value the reader would refuse) or FC_EIO. */
FC_API int fc_dimacs_write_change(FILE *out, const fc_dimacs_change *c);

/* fc_dimacs_write_end ends a section: `c EOI` or `c EOS` (FC_DIMACS_EOF
 * writes nothing). Returns 0 or FC_EIO. */
FC_API int fc_dimacs_write_end(FILE *out, fc_dimacs_end end);

/* --- placement extraction ------------------------------------------------*/

/* One task's flow reaching one machine. */
typedef struct fc_placement {
    fc_node pl_task;    /* a node of type FC_NODE_TASK */
    fc_node pl_machine; /* a node of type FC_NODE_MACHINE */
    int64_t pl_units;   /* units of the task's flow placed there */
} fc_placement;

/* fc_placements reads off the current flow which machine each task's flow
 * reaches, through any number of aggregator layers, in one backward pass:
 * every machine node holds as many units as it sends to nodes that are not
 * machines (a machine may feed its own machine-typed cores: the units count
 * at the last machine node on the way), and the units travel back along
 * the arcs carrying flow, each node passing them on once all the nodes its
 * flow goes to have passed theirs, until they reach task nodes. Where flows
 * merge, any split is a valid reading; cycles of flow (possible only at
 * zero cost) are cancelled on a scratch copy first, so g is not changed.
 * Tasks whose flow reaches no machine (e.g. unscheduled) are not listed.
 * On success *out is an array of *count placements sorted by task and
 * machine, to be released with free() (NULL when *count is 0). Returns 0
 * or FC_ENOMEM. Cost: O(nodes + arcs + placements). */
FC_API int fc_placements(const fc_graph *g, fc_placement **out, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* FLOWCORE_H */
