/*
 * fc_dimacs.c - reading and writing flow networks in the DIMACS
 * min-cost-flow format and Firmament's extended incremental format (the
 * format is described in flowcore.h).
 *
 * Input is hostile: every line is bounded in length, every number is
 * checked against flowcore's limits and the reader's, every id is checked
 * to exist, and each error names the line and what was wrong. The reader
 * keeps two maps between DIMACS ids and node ids, because flowcore reuses
 * node ids in its own order while the extended format hands the smallest
 * free DIMACS id to each added node.
 */
#include "fc_graph_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_FIELDS 9

struct fc_dimacs_reader {
    fc_dimacs_limits dr_lim;
    fc_graph *dr_g;
    bool dr_failed;      /* an error stopped the reader */
    int dr_sections;     /* sections read completely */
    bool dr_have_p;      /* the p line was read */
    bool dr_built;       /* the nodes of the p line exist */
    int32_t dr_pnodes;   /* nodes declared by the p line */
    int64_t dr_parcs;    /* arcs declared by the p line */
    int64_t dr_narcs;    /* a lines read in the first section */
    int64_t *dr_psupply; /* [pnodes] supplies of the first section, kept
                            until its nodes are built */
    uint8_t *dr_ptype;   /* [pnodes] their types */
    /* input position */
    FILE *dr_in;
    char dr_name[128];
    uint64_t dr_line;
    char *dr_buf; /* one line, dl_max_line + 2 bytes */
    /* DIMACS id <-> node */
    fc_node *dr_node;   /* [dr_idcap] node of a DIMACS id, FC_NONE if free */
    int32_t dr_idbound; /* ids in [1, idbound) have been handed out */
    int32_t dr_idcap;
    int32_t *dr_id; /* [dr_ncap] DIMACS id of a node, 0 if none */
    int32_t dr_ncap;
    int32_t *dr_free; /* free DIMACS ids below idbound: a min-heap */
    int32_t dr_nfree;
    int32_t dr_freecap;
    /* a node added by `d` whose arcs are still to come */
    fc_node dr_new;
    int64_t dr_new_arcs;
    uint64_t dr_new_line;
    /* the sink, once found; dr_sink_only: it is the only node with
     * negative supply */
    fc_node dr_sink;
    bool dr_sink_only;
    char dr_err[256];
};

void fc_dimacs_limits_init(fc_dimacs_limits *lim)
{
    lim->dl_max_nodes = 1 << 22;
    lim->dl_max_arcs = 1 << 25;
    lim->dl_max_line = 1024;
}

int fc_dimacs_reader_new(const fc_dimacs_limits *lim, fc_dimacs_reader **out)
{
    fc_dimacs_reader *r = calloc(1, sizeof *r);
    if (r == NULL)
        return FC_ENOMEM;
    if (lim != NULL)
        r->dr_lim = *lim;
    else
        fc_dimacs_limits_init(&r->dr_lim);
    if (r->dr_lim.dl_max_nodes < 1 || r->dr_lim.dl_max_nodes > FC_MAX_NODES)
        r->dr_lim.dl_max_nodes = FC_MAX_NODES;
    if (r->dr_lim.dl_max_arcs < 0 || r->dr_lim.dl_max_arcs > FC_MAX_ARCS)
        r->dr_lim.dl_max_arcs = FC_MAX_ARCS;
    if (r->dr_lim.dl_max_line < 16)
        r->dr_lim.dl_max_line = 16;
    r->dr_buf = malloc((size_t)r->dr_lim.dl_max_line + 2);
    if (r->dr_buf == NULL) {
        free(r);
        return FC_ENOMEM;
    }
    r->dr_idbound = 1;
    r->dr_new = FC_NONE;
    r->dr_sink = FC_NONE;
    *out = r;
    return 0;
}

void fc_dimacs_reader_free(fc_dimacs_reader *r)
{
    if (r == NULL)
        return;
    fc_graph_free(r->dr_g);
    free(r->dr_psupply);
    free(r->dr_ptype);
    free(r->dr_buf);
    free(r->dr_node);
    free(r->dr_id);
    free(r->dr_free);
    free(r);
}

const char *fc_dimacs_error(const fc_dimacs_reader *r)
{
    return r->dr_err;
}

fc_graph *fc_dimacs_graph(const fc_dimacs_reader *r)
{
    return r->dr_g;
}

int64_t fc_dimacs_node_id(const fc_dimacs_reader *r, fc_node v)
{
    if (v < 0 || v >= r->dr_ncap)
        return 0;
    return r->dr_id[v];
}

fc_node fc_dimacs_node(const fc_dimacs_reader *r, int64_t id)
{
    if (id < 1 || id >= r->dr_idbound)
        return FC_NONE;
    return r->dr_node[id];
}

/* Record an error at the current line; returns code. */
__attribute__((format(printf, 3, 4))) static int
fail(fc_dimacs_reader *r, int code, const char *fmt, ...)
{
    int n = snprintf(r->dr_err, sizeof r->dr_err, "%s:%" PRIu64 ": ",
                     r->dr_name, r->dr_line);
    if (n < 0 || (size_t)n >= sizeof r->dr_err)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->dr_err + n, sizeof r->dr_err - (size_t)n, fmt, ap);
    va_end(ap);
    r->dr_failed = true;
    return code;
}

/* --- the id maps ---------------------------------------------------------*/

static int grow_i32(int32_t **p, int32_t *cap, int64_t need, int32_t fill)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap < 64 ? 64 : *cap;
    while (c < need)
        c *= 2;
    if (c > INT32_MAX)
        c = INT32_MAX;
    int32_t *q = realloc(*p, (size_t)c * sizeof *q);
    if (q == NULL)
        return FC_ENOMEM;
    for (int64_t i = *cap; i < c; i++)
        q[i] = fill;
    *p = q;
    *cap = (int32_t)c;
    return 0;
}

static void free_push(fc_dimacs_reader *r, int32_t id)
{
    int32_t i = r->dr_nfree++;
    while (i > 0 && r->dr_free[(i - 1) / 2] > id) {
        r->dr_free[i] = r->dr_free[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->dr_free[i] = id;
}

static int32_t free_pop(fc_dimacs_reader *r)
{
    int32_t top = r->dr_free[0];
    int32_t last = r->dr_free[--r->dr_nfree];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= r->dr_nfree)
            break;
        if (c + 1 < r->dr_nfree && r->dr_free[c + 1] < r->dr_free[c])
            c++;
        if (r->dr_free[c] >= last)
            break;
        r->dr_free[i] = r->dr_free[c];
        i = c;
    }
    if (r->dr_nfree > 0)
        r->dr_free[i] = last;
    return top;
}

/* Make DIMACS ids [idbound, bound) exist, as free ids. */
static int extend_ids(fc_dimacs_reader *r, int64_t bound)
{
    if (bound <= r->dr_idbound)
        return 0;
    if (grow_i32(&r->dr_node, &r->dr_idcap, bound, FC_NONE) != 0 ||
        grow_i32(&r->dr_free, &r->dr_freecap,
                 r->dr_nfree + bound - r->dr_idbound, 0) != 0)
        return fail(r, FC_ENOMEM, "out of memory");
    for (int64_t id = r->dr_idbound; id < bound; id++)
        free_push(r, (int32_t)id);
    r->dr_idbound = (int32_t)bound;
    return 0;
}

/* Remove id from the free heap (rare: `n` naming a free id). */
static void free_take(fc_dimacs_reader *r, int32_t id)
{
    int32_t k = 0;
    for (int32_t i = 0; i < r->dr_nfree; i++)
        if (r->dr_free[i] != id)
            r->dr_free[k++] = r->dr_free[i];
    r->dr_nfree = k;
    /* Restore the heap order bottom-up. */
    int32_t n = r->dr_nfree;
    r->dr_nfree = 0;
    for (int32_t i = 0; i < n; i++)
        free_push(r, r->dr_free[i]);
}

/* Add a node under DIMACS id (which must be free). */
static int add_node(fc_dimacs_reader *r, int32_t id, int64_t supply,
                    fc_node_type type, fc_node *out)
{
    fc_graph *g = r->dr_g;
    if (fc_graph_node_count(g) >= r->dr_lim.dl_max_nodes)
        return fail(r, FC_ELIMIT, "more than %d nodes", r->dr_lim.dl_max_nodes);
    fc_node v;
    int rc = fc_node_add(g, supply, type, &v);
    if (rc == FC_ENOMEM)
        return fail(r, rc, "out of memory");
    if (rc != 0)
        return fail(r, rc, "cannot add node %d: %s", id, fc_strerror(rc));
    if (grow_i32(&r->dr_id, &r->dr_ncap, (int64_t)v + 1, 0) != 0) {
        fc_node_remove(g, v);
        return fail(r, FC_ENOMEM, "out of memory");
    }
    r->dr_id[v] = id;
    r->dr_node[id] = v;
    *out = v;
    return 0;
}

/* --- the sink ------------------------------------------------------------*/

/* The node of type SINK, or else the only node with negative supply. */
static fc_node find_sink(fc_dimacs_reader *r)
{
    fc_graph *g = r->dr_g;
    fc_node s = r->dr_sink;
    /* Once found, the sink stays the sink (even when its demand falls to
     * zero) until it is removed or another node takes a negative supply. */
    if (s != FC_NONE && fc_node_exists(g, s))
        return s;
    fc_node typed = FC_NONE, negative = FC_NONE;
    int ntyped = 0, nnegative = 0;
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++) {
        if (!fc_node_exists(g, v))
            continue;
        if (fc_node_get_type(g, v) == FC_NODE_SINK) {
            typed = v;
            ntyped++;
        }
        if (fc_node_supply(g, v) < 0) {
            negative = v;
            nnegative++;
        }
    }
    if (ntyped == 1)
        s = typed;
    else if (ntyped == 0 && nnegative == 1)
        s = negative;
    else
        s = FC_NONE;
    r->dr_sink = s;
    r->dr_sink_only = s != FC_NONE && nnegative == 1 && negative == s;
    return s;
}

/* Move amount of supply onto the sink (negative: take it away). */
static int sink_add(fc_dimacs_reader *r, fc_node except, int64_t amount,
                    const char *why)
{
    if (amount == 0)
        return 0;
    fc_node s = find_sink(r);
    if (s == FC_NONE || s == except)
        return fail(r, FC_ESYNTAX,
                    "%s needs a sink (one node of type 3, or exactly one "
                    "node with negative supply)",
                    why);
    int64_t v = fc_node_supply(r->dr_g, s) + amount;
    if (v < -FC_MAX_SUPPLY || v > FC_MAX_SUPPLY)
        return fail(r, FC_ESYNTAX,
                    "the sink's supply would leave [%" PRId64 ", %" PRId64 "]",
                    -FC_MAX_SUPPLY, FC_MAX_SUPPLY);
    fc_node_set_supply(r->dr_g, s, v);
    return 0;
}

/* Called when a node other than the sink gets a negative supply: the
 * cached sink may no longer be the only one. */
static void sink_forget(fc_dimacs_reader *r)
{
    r->dr_sink = FC_NONE;
    r->dr_sink_only = false;
}

/* --- reading lines -------------------------------------------------------*/

/* Read one line into dr_buf. Returns 1, 0 at the end of input, or an
 * error. */
static int read_line(fc_dimacs_reader *r, FILE *in)
{
    int32_t len = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (len >= r->dr_lim.dl_max_line) {
            r->dr_line++;
            return fail(r, FC_ELIMIT, "line longer than %d characters",
                        r->dr_lim.dl_max_line);
        }
        if (c == '\0') {
            r->dr_line++;
            return fail(r, FC_ESYNTAX, "NUL byte in the line");
        }
        r->dr_buf[len++] = (char)c;
    }
    if (ferror(in)) {
        r->dr_line++;
        return fail(r, FC_EIO, "read error");
    }
    if (c == EOF && len == 0)
        return 0;
    r->dr_line++;
    if (len > 0 && r->dr_buf[len - 1] == '\r')
        len--;
    r->dr_buf[len] = '\0';
    return 1;
}

static int split_fields(fc_dimacs_reader *r, char *s, char **f)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            return n;
        if (n == MAX_FIELDS)
            return fail(r, FC_ESYNTAX, "too many fields");
        f[n++] = s;
        while (*s != '\0' && *s != ' ' && *s != '\t')
            s++;
        if (*s != '\0')
            *s++ = '\0';
    }
}

static int parse_int(fc_dimacs_reader *r, const char *s, int64_t lo, int64_t hi,
                     const char *what, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
        return fail(r, FC_ESYNTAX,
                    "%s '%.40s' is not an integer in [%" PRId64 ", %" PRId64
                    "]",
                    what, s, lo, hi);
    *out = v;
    return 0;
}

/* Map Firmament's node type numbers to flowcore's. */
static int parse_type(fc_dimacs_reader *r, const char *s, fc_node_type *out)
{
    static const fc_node_type map[] = {FC_NODE_OTHER,      FC_NODE_TASK,
                                       FC_NODE_MACHINE,    FC_NODE_SINK,
                                       FC_NODE_AGGREGATOR, FC_NODE_AGGREGATOR,
                                       FC_NODE_UNSCHEDULED};
    int64_t t;
    int rc = parse_int(r, s, 0, 6, "node type", &t);
    if (rc == 0)
        *out = map[t];
    return rc;
}

static int type_number(fc_node_type t)
{
    switch (t) {
    case FC_NODE_TASK:
        return 1;
    case FC_NODE_MACHINE:
        return 2;
    case FC_NODE_SINK:
        return 3;
    case FC_NODE_AGGREGATOR:
        return 5;
    case FC_NODE_UNSCHEDULED:
        return 6;
    default:
        return 0;
    }
}

/* A node named on a line: DIMACS id, or 0 for the node `d` just added. */
static int parse_node(fc_dimacs_reader *r, const char *s, const char *what,
                      bool allow_new, fc_node *out)
{
    int64_t id;
    int rc =
        parse_int(r, s, allow_new ? 0 : 1, r->dr_lim.dl_max_nodes, what, &id);
    if (rc != 0)
        return rc;
    if (id == 0) {
        *out = r->dr_new;
        return 0;
    }
    fc_node v = fc_dimacs_node(r, id);
    if (v == FC_NONE)
        return fail(r, FC_ESYNTAX, "%s %" PRId64 " does not exist", what, id);
    *out = v;
    return 0;
}

/* Create the nodes declared by the p line, with the supplies and types
 * their n lines gave. */
static int build_nodes(fc_dimacs_reader *r)
{
    if (r->dr_built)
        return 0;
    r->dr_built = true;
    int rc = extend_ids(r, (int64_t)r->dr_pnodes + 1);
    /* extend_ids queued every id as free; they are all taken now. */
    r->dr_nfree = 0;
    for (int32_t i = 0; i < r->dr_pnodes && rc == 0; i++) {
        fc_node v;
        rc = add_node(r, i + 1, r->dr_psupply[i], (fc_node_type)r->dr_ptype[i],
                      &v);
    }
    free(r->dr_psupply);
    free(r->dr_ptype);
    r->dr_psupply = NULL;
    r->dr_ptype = NULL;
    return rc;
}

static int line_p(fc_dimacs_reader *r, char **f, int nf)
{
    if (r->dr_have_p)
        return fail(r, FC_ESYNTAX, "a second p line");
    if (nf != 4 || strcmp(f[1], "min") != 0)
        return fail(r, FC_ESYNTAX, "expected 'p min NODES ARCS'");
    int64_t n, m;
    int rc = parse_int(r, f[2], 0, INT64_MAX, "node count", &n);
    if (rc == 0)
        rc = parse_int(r, f[3], 0, INT64_MAX, "arc count", &m);
    if (rc != 0)
        return rc;
    if (n > r->dr_lim.dl_max_nodes)
        return fail(r, FC_ELIMIT, "%" PRId64 " nodes: the limit is %d", n,
                    r->dr_lim.dl_max_nodes);
    if (m > r->dr_lim.dl_max_arcs)
        return fail(r, FC_ELIMIT, "%" PRId64 " arcs: the limit is %d", m,
                    r->dr_lim.dl_max_arcs);
    r->dr_psupply = calloc((size_t)n + 1, sizeof *r->dr_psupply);
    r->dr_ptype = calloc((size_t)n + 1, sizeof *r->dr_ptype);
    if (r->dr_psupply == NULL || r->dr_ptype == NULL)
        return fail(r, FC_ENOMEM, "out of memory");
    r->dr_have_p = true;
    r->dr_pnodes = (int32_t)n;
    r->dr_parcs = m;
    return 0;
}

static int line_n(fc_dimacs_reader *r, char **f, int nf)
{
    if (nf < 3 || nf > 4)
        return fail(r, FC_ESYNTAX, "expected 'n ID SUPPLY [TYPE]'");
    int64_t id, supply;
    fc_node_type type = FC_NODE_OTHER;
    int rc = parse_int(r, f[1], 1, r->dr_lim.dl_max_nodes, "node id", &id);
    if (rc == 0)
        rc = parse_int(r, f[2], -FC_MAX_SUPPLY, FC_MAX_SUPPLY, "supply",
                       &supply);
    if (rc == 0 && nf == 4)
        rc = parse_type(r, f[3], &type);
    if (rc != 0)
        return rc;
    if (r->dr_sections == 0 && id > r->dr_pnodes)
        return fail(r, FC_ESYNTAX,
                    "node %" PRId64 " is beyond the %d of the p line", id,
                    r->dr_pnodes);
    if (!r->dr_built) {
        r->dr_psupply[id - 1] = supply;
        r->dr_ptype[id - 1] = (uint8_t)type;
        return 0;
    }
    fc_graph *g = r->dr_g;
    bool round = r->dr_sections > 0;
    fc_node v = fc_dimacs_node(r, id);
    if (v == FC_NONE) {
        if (id >= r->dr_idbound && (rc = extend_ids(r, id + 1)) != 0)
            return rc;
        free_take(r, (int32_t)id);
        if (round && supply > 0 &&
            (rc = sink_add(r, FC_NONE, -supply, "a node with supply")) != 0)
            return rc;
        if ((rc = add_node(r, (int32_t)id, supply, type, &v)) != 0)
            return rc;
    } else {
        if (nf == 4 && type != fc_node_get_type(g, v))
            return fail(r, FC_ESYNTAX,
                        "node %" PRId64 " exists with another type", id);
        int64_t old = fc_node_supply(g, v);
        if (round && v != find_sink(r) &&
            (rc = sink_add(r, v, old - supply, "a change of supply")) != 0)
            return rc;
        fc_node_set_supply(g, v, supply);
    }
    if (supply < 0 && v != r->dr_sink)
        sink_forget(r);
    return 0;
}

/* Parse the fields of an a or x line after the letter. */
static int arc_fields(fc_dimacs_reader *r, char **f, int nf, int max_fields,
                      fc_node *src, fc_node *dst, int64_t *cap, int64_t *cost)
{
    if (nf < 6 || nf > max_fields)
        return fail(r, FC_ESYNTAX, "expected '%c SRC DST LOW CAP COST%s'",
                    f[0][0], f[0][0] == 'x' ? " [TYPE [OLD_COST]]" : " [TYPE]");
    bool pending = r->dr_new != FC_NONE;
    int64_t low, type;
    int rc = parse_node(r, f[1], "source node", pending, src);
    if (rc == 0)
        rc = parse_node(r, f[2], "destination node", pending, dst);
    if (rc == 0)
        rc = parse_int(r, f[3], INT64_MIN, INT64_MAX, "lower bound", &low);
    if (rc == 0 && low != 0)
        rc = fail(r, FC_ESYNTAX,
                  "lower bound %" PRId64 " (only 0 is supported)", low);
    if (rc == 0)
        rc = parse_int(r, f[4], 0, FC_MAX_CAPACITY, "capacity", cap);
    if (rc == 0)
        rc = parse_int(r, f[5], -FC_MAX_COST, FC_MAX_COST, "cost", cost);
    if (rc == 0 && nf >= 7)
        rc = parse_int(r, f[6], INT32_MIN, INT32_MAX, "arc type", &type);
    if (rc == 0 && pending && *src != r->dr_new && *dst != r->dr_new)
        rc = fail(r, FC_ESYNTAX,
                  "arc of the node added on line %" PRIu64
                  " does not name node 0",
                  r->dr_new_line);
    return rc;
}

static int add_arc(fc_dimacs_reader *r, fc_node src, fc_node dst, int64_t cap,
                   int64_t cost)
{
    if (fc_graph_arc_count(r->dr_g) >= r->dr_lim.dl_max_arcs)
        return fail(r, FC_ELIMIT, "more than %d arcs", r->dr_lim.dl_max_arcs);
    fc_arc a;
    int rc = fc_arc_add(r->dr_g, src, dst, cap, cost, &a);
    if (rc != 0)
        return fail(r, rc, "cannot add the arc: %s", fc_strerror(rc));
    return 0;
}

static int line_a(fc_dimacs_reader *r, char **f, int nf)
{
    int rc = build_nodes(r);
    fc_node src, dst;
    int64_t cap, cost;
    if (rc == 0)
        rc = arc_fields(r, f, nf, 7, &src, &dst, &cap, &cost);
    if (rc != 0)
        return rc;
    if (r->dr_sections == 0 && ++r->dr_narcs > r->dr_parcs)
        return fail(r, FC_ESYNTAX,
                    "more arcs than the %" PRId64 " of the p line",
                    r->dr_parcs);
    rc = add_arc(r, src, dst, cap, cost);
    if (rc == 0 && r->dr_new != FC_NONE && --r->dr_new_arcs == 0)
        r->dr_new = FC_NONE;
    return rc;
}

static int line_x(fc_dimacs_reader *r, char **f, int nf)
{
    fc_node src, dst;
    int64_t cap, cost, old_cost = 0;
    int rc = arc_fields(r, f, nf, 8, &src, &dst, &cap, &cost);
    if (rc == 0 && nf == 8)
        rc = parse_int(r, f[7], -FC_MAX_COST, FC_MAX_COST, "old cost",
                       &old_cost);
    if (rc != 0)
        return rc;
    fc_graph *g = r->dr_g;
    fc_arc a = FC_NONE;
    if (nf == 8) {
        for (int32_t i = 0; i < fc_node_degree(g, src); i++) {
            bool out;
            fc_arc b = fc_node_arc(g, src, i, &out);
            if (out && fc_arc_dst(g, b) == dst && fc_arc_cost(g, b) == old_cost)
                a = b;
        }
    } else {
        a = fc_arc_find(g, src, dst);
    }
    if (a == FC_NONE)
        return cap > 0 ? add_arc(r, src, dst, cap, cost) : 0;
    if (cap == 0)
        return fc_arc_remove(g, a);
    rc = fc_arc_set_capacity(g, a, cap);
    if (rc != 0)
        return fail(r, rc, "cannot change the arc: %s", fc_strerror(rc));
    fc_arc_set_cost(g, a, cost);
    return 0;
}

/* Remove v. A task that only sends its own supply out is drained to the
 * sink along its paths, which leaves the same network as removing it and
 * crediting its supply to the sink, but keeps the rest of the flow
 * optimal for the next solve. */
static int remove_node(fc_dimacs_reader *r, fc_node v)
{
    fc_graph *g = r->dr_g;
    int64_t supply = fc_node_supply(g, v);
    fc_node sink = find_sink(r);
    if (v == sink)
        sink_forget(r);
    if (v == sink || supply == 0)
        return fc_node_remove(g, v);
    if (sink == FC_NONE)
        return sink_add(r, v, supply, "removing a node with supply");
    int64_t in = 0, out = 0;
    for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
        bool outgoing;
        fc_arc a = fc_node_arc(g, v, i, &outgoing);
        if (outgoing)
            out += fc_arc_flow(g, a);
        else
            in += fc_arc_flow(g, a);
    }
    int64_t before = fc_node_supply(g, sink);
    int rc;
    if (r->dr_sink_only && in == 0 && out == supply)
        rc = fc_node_remove_drain(g, v);
    else
        rc = fc_node_remove(g, v);
    if (rc != 0)
        return fail(r, rc, "cannot remove the node: %s", fc_strerror(rc));
    /* Whatever the drain did not credit to the sink, credit now. */
    return sink_add(r, FC_NONE, supply - (fc_node_supply(g, sink) - before),
                    "removing a node with supply");
}

static int line_r(fc_dimacs_reader *r, char **f, int nf)
{
    if (nf != 2)
        return fail(r, FC_ESYNTAX, "expected 'r ID'");
    int64_t id;
    int rc = parse_int(r, f[1], 1, r->dr_lim.dl_max_nodes, "node id", &id);
    if (rc != 0)
        return rc;
    fc_node v = fc_dimacs_node(r, id);
    if (v == FC_NONE)
        return fail(r, FC_ESYNTAX, "node %" PRId64 " does not exist", id);
    if ((rc = remove_node(r, v)) != 0)
        return rc;
    r->dr_node[id] = FC_NONE;
    r->dr_id[v] = 0;
    free_push(r, (int32_t)id);
    return 0;
}

static int line_d(fc_dimacs_reader *r, char **f, int nf)
{
    if (nf < 3 || nf > 5)
        return fail(r, FC_ESYNTAX,
                    "expected 'd SUPPLY [POTENTIAL] NARCS [TYPE]'");
    int64_t supply, potential, narcs;
    fc_node_type type = FC_NODE_OTHER;
    int rc =
        parse_int(r, f[1], -FC_MAX_SUPPLY, FC_MAX_SUPPLY, "supply", &supply);
    if (rc == 0 && nf >= 4)
        rc = parse_int(r, f[2], INT64_MIN, INT64_MAX, "potential", &potential);
    if (rc == 0)
        rc = parse_int(r, f[nf == 3 ? 2 : 3], 0, r->dr_lim.dl_max_arcs,
                       "arc count", &narcs);
    if (rc == 0 && nf == 5)
        rc = parse_type(r, f[4], &type);
    if (rc != 0)
        return rc;
    if (r->dr_nfree == 0 && (rc = extend_ids(r, (int64_t)r->dr_idbound + 1)))
        return rc;
    if (r->dr_free[0] > r->dr_lim.dl_max_nodes)
        return fail(r, FC_ELIMIT, "more than %d node ids",
                    r->dr_lim.dl_max_nodes);
    if (supply > 0 &&
        (rc = sink_add(r, FC_NONE, -supply, "a node with supply")) != 0)
        return rc;
    int32_t id = free_pop(r);
    fc_node v;
    if ((rc = add_node(r, id, supply, type, &v)) != 0)
        return rc;
    if (supply < 0)
        sink_forget(r);
    if (narcs > 0) {
        r->dr_new = v;
        r->dr_new_arcs = narcs;
        r->dr_new_line = r->dr_line;
    }
    return 0;
}

/* The end of a section: what must be complete by now. */
static int end_section(fc_dimacs_reader *r)
{
    if (r->dr_new != FC_NONE)
        return fail(r, FC_ESYNTAX,
                    "%" PRId64 " arcs of the node added on line %" PRIu64
                    " are missing",
                    r->dr_new_arcs, r->dr_new_line);
    if (r->dr_sections == 0) {
        if (!r->dr_have_p)
            return fail(r, FC_ESYNTAX, "no p line");
        if (r->dr_narcs != r->dr_parcs)
            return fail(r, FC_ESYNTAX,
                        "the p line declared %" PRId64 " arcs, found %" PRId64,
                        r->dr_parcs, r->dr_narcs);
        int rc = build_nodes(r);
        if (rc != 0)
            return rc;
    }
    r->dr_sections++;
    return 0;
}

static int one_line(fc_dimacs_reader *r, char **f, int nf)
{
    char kind = f[0][0];
    if (f[0][1] != '\0')
        return fail(r, FC_ESYNTAX, "unknown line type '%.20s'", f[0]);
    if (kind == 'p')
        return line_p(r, f, nf);
    if (!r->dr_have_p)
        return fail(r, FC_ESYNTAX, "'%c' line before the p line", kind);
    if (r->dr_new != FC_NONE && kind != 'a')
        return fail(r, FC_ESYNTAX,
                    "'%c' line where an arc of the node added on line "
                    "%" PRIu64 " was expected",
                    kind, r->dr_new_line);
    switch (kind) {
    case 'n':
        return line_n(r, f, nf);
    case 'a':
        return line_a(r, f, nf);
    case 'x':
    case 'r':
    case 'd':
        if (r->dr_sections == 0)
            return fail(r, FC_ESYNTAX,
                        "'%c' line in the first section (changes come after "
                        "'c EOI')",
                        kind);
        return kind == 'x'   ? line_x(r, f, nf)
               : kind == 'r' ? line_r(r, f, nf)
                             : line_d(r, f, nf);
    default:
        return fail(r, FC_ESYNTAX, "unknown line type '%c'", kind);
    }
}

int fc_dimacs_read(fc_dimacs_reader *r, FILE *in, const char *name,
                   fc_dimacs_end *end, size_t *lines)
{
    if (r->dr_failed)
        return FC_EINVAL;
    if (in != r->dr_in || strncmp(name, r->dr_name, sizeof r->dr_name) != 0) {
        r->dr_in = in;
        snprintf(r->dr_name, sizeof r->dr_name, "%s", name);
        r->dr_line = 0;
    }
    if (r->dr_g == NULL && fc_graph_new(&r->dr_g) != 0)
        return fail(r, FC_ENOMEM, "out of memory");
    *end = FC_DIMACS_EOF;
    *lines = 0;
    int rc;
    while ((rc = read_line(r, in)) == 1) {
        char *s = r->dr_buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (s[0] == 'c' && (s[1] == ' ' || s[1] == '\t' || s[1] == '\0')) {
            /* A comment, unless it is exactly an end marker. */
            char *f[2];
            int nf = 0;
            for (char *t = strtok(s + 1, " \t"); t != NULL && nf < 2;
                 t = strtok(NULL, " \t"))
                f[nf++] = t;
            if (nf == 1 && strcmp(f[0], "EOI") == 0) {
                *end = FC_DIMACS_EOI;
                break;
            }
            if (nf == 1 && strcmp(f[0], "EOS") == 0) {
                *end = FC_DIMACS_EOS;
                break;
            }
            continue;
        }
        char *f[MAX_FIELDS];
        int nf = split_fields(r, s, f);
        if (nf < 0)
            return nf;
        if (nf == 0)
            continue;
        if ((rc = one_line(r, f, nf)) != 0)
            return rc;
        (*lines)++;
    }
    if (rc < 0)
        return rc;
    /* A first section of only comments is no network: unless the input
     * ended right away, say so. */
    if (r->dr_sections == 0 && !r->dr_have_p && *lines == 0 &&
        *end == FC_DIMACS_EOF)
        return fail(r, FC_ESYNTAX, "no p line (empty input)");
    return end_section(r);
}

/* --- writing -------------------------------------------------------------*/

int fc_dimacs_write(const fc_graph *g, FILE *out)
{
    int32_t nb = fc_graph_node_bound(g);
    int32_t *num = malloc(((size_t)nb + 1) * sizeof *num);
    if (num == NULL)
        return FC_ENOMEM;
    int32_t k = 0;
    for (fc_node v = 0; v < nb; v++)
        num[v] = fc_node_exists(g, v) ? ++k : 0;
    fprintf(out, "p min %d %d\n", k, fc_graph_arc_count(g));
    for (fc_node v = 0; v < nb; v++) {
        if (num[v] == 0)
            continue;
        fc_node_type t = fc_node_get_type(g, v);
        int64_t s = fc_node_supply(g, v);
        if (t != FC_NODE_OTHER)
            fprintf(out, "n %d %" PRId64 " %d\n", num[v], s, type_number(t));
        else if (s != 0)
            fprintf(out, "n %d %" PRId64 "\n", num[v], s);
    }
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a))
            fprintf(out, "a %d %d 0 %" PRId64 " %" PRId64 "\n",
                    num[fc_arc_src(g, a)], num[fc_arc_dst(g, a)],
                    fc_arc_capacity(g, a), fc_arc_cost(g, a));
    free(num);
    return ferror(out) ? FC_EIO : 0;
}

int fc_dimacs_write_flow(const fc_graph *g, const fc_dimacs_reader *r,
                         FILE *out)
{
    int32_t nb = fc_graph_node_bound(g);
    int64_t *num = malloc(((size_t)nb + 1) * sizeof *num);
    if (num == NULL)
        return FC_ENOMEM;
    int64_t k = 0;
    for (fc_node v = 0; v < nb; v++) {
        if (r != NULL)
            num[v] = fc_dimacs_node_id(r, v);
        else
            num[v] = fc_node_exists(g, v) ? ++k : 0;
    }
    char cost[FC_INT128_BUFSIZE];
    fprintf(out, "s %s\n",
            fc_int128_format(fc_graph_flow_cost(g), cost, sizeof cost));
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a) && fc_arc_flow(g, a) > 0)
            fprintf(out, "f %" PRId64 " %" PRId64 " %" PRId64 "\n",
                    num[fc_arc_src(g, a)], num[fc_arc_dst(g, a)],
                    fc_arc_flow(g, a));
    free(num);
    return ferror(out) ? FC_EIO : 0;
}

static bool valid_id(int64_t id, bool allow_zero)
{
    return id >= (allow_zero ? 0 : 1) && id <= FC_MAX_NODES;
}

int fc_dimacs_write_change(FILE *out, const fc_dimacs_change *c)
{
    int t = type_number(c->dc_type);
    bool supply_ok =
        c->dc_supply >= -FC_MAX_SUPPLY && c->dc_supply <= FC_MAX_SUPPLY;
    bool arc_ok = valid_id(c->dc_src, true) && valid_id(c->dc_dst, true) &&
                  c->dc_capacity >= 0 && c->dc_capacity <= FC_MAX_CAPACITY &&
                  c->dc_cost >= -FC_MAX_COST && c->dc_cost <= FC_MAX_COST;
    switch (c->dc_op) {
    case 'n':
        if (!valid_id(c->dc_id, false) || !supply_ok)
            return FC_EINVAL;
        if (t != 0)
            fprintf(out, "n %" PRId64 " %" PRId64 " %d\n", c->dc_id,
                    c->dc_supply, t);
        else
            fprintf(out, "n %" PRId64 " %" PRId64 "\n", c->dc_id, c->dc_supply);
        break;
    case 'a':
    case 'x':
        if (!arc_ok)
            return FC_EINVAL;
        fprintf(out, "%c %" PRId64 " %" PRId64 " 0 %" PRId64 " %" PRId64 "\n",
                c->dc_op, c->dc_src, c->dc_dst, c->dc_capacity, c->dc_cost);
        break;
    case 'r':
        if (!valid_id(c->dc_id, false))
            return FC_EINVAL;
        fprintf(out, "r %" PRId64 "\n", c->dc_id);
        break;
    case 'd':
        if (!supply_ok || c->dc_narcs < 0 || c->dc_narcs > FC_MAX_ARCS)
            return FC_EINVAL;
        /* Always with the potential field, so the type can follow. */
        fprintf(out, "d %" PRId64 " 0 %" PRId64 " %d\n", c->dc_supply,
                c->dc_narcs, t);
        break;
    default:
        return FC_EINVAL;
    }
    return ferror(out) ? FC_EIO : 0;
}

int fc_dimacs_write_end(FILE *out, fc_dimacs_end end)
{
    if (end == FC_DIMACS_EOI)
        fputs("c EOI\n", out);
    else if (end == FC_DIMACS_EOS)
        fputs("c EOS\n", out);
    return ferror(out) ? FC_EIO : 0;
}
