/*
 * fc_testutil.c - random flow networks, the LEMON reference runner, the
 * flow checker and the shared solving helpers of the flowcore tests (see
 * fc_testutil.h).
 */
#include "fc_testutil.h"

#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- seeded randomness ---------------------------------------------------*/

void fct_rng_seed(fct_rng *r, uint64_t seed)
{
    r->r_state = seed ^ 0x9e3779b97f4a7c15ULL;
}

/* fct_rng_next returns the next 64 random bits. */
static uint64_t fct_rng_next(fct_rng *r)
{
    /* splitmix64: every seed, including 0, gives a good stream. */
    uint64_t z = (r->r_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t fct_rng_range(fct_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    if (span == 0)
        return (int64_t)fct_rng_next(r);
    return lo + (int64_t)(fct_rng_next(r) % span);
}

bool fct_rng_pct(fct_rng *r, int pct)
{
    return fct_rng_range(r, 0, 99) < pct;
}

fc_arc fct_random_arc(fct_rng *r, const fc_graph *g)
{
    int32_t bound = fc_graph_arc_bound(g);
    for (int tries = 0; tries < 32 && bound > 0; tries++) {
        fc_arc a = (fc_arc)fct_rng_range(r, 0, bound - 1);
        if (fc_arc_exists(g, a))
            return a;
    }
    return FC_NONE;
}

/* --- generic random networks ---------------------------------------------*/

void fct_params_random(fct_rng *r, int32_t max_nodes, fct_graph_params *p)
{
    memset(p, 0, sizeof *p);
    int32_t hi =
        fct_rng_pct(r, 60) ? (max_nodes < 12 ? max_nodes : 12) : max_nodes;
    p->gp_nodes = (int32_t)fct_rng_range(r, 2, hi < 2 ? 2 : hi);
    p->gp_arcs = (int32_t)fct_rng_range(r, 0, 5 * (int64_t)p->gp_nodes);
    p->gp_isolated = fct_rng_pct(r, 30) ? (int32_t)fct_rng_range(r, 1, 3) : 0;
    p->gp_sources = (int32_t)fct_rng_range(r, 1, p->gp_nodes / 2 + 1);
    if (p->gp_sources >= p->gp_nodes)
        p->gp_sources = p->gp_nodes - 1;
    p->gp_sinks = (int32_t)fct_rng_range(r, 1, p->gp_nodes - p->gp_sources);
    p->gp_total_supply = fct_rng_range(r, 0, 4 * (int64_t)p->gp_nodes + 5);
    static const int64_t costs[] = {1, 10, 1000, 1000000, (int64_t)1 << 32};
    p->gp_max_cost = costs[fct_rng_range(r, 0, 4)];
    p->gp_negative_costs = fct_rng_pct(r, 50);
    static const int64_t caps[] = {1, 5, 100, 100000, (int64_t)1 << 40};
    p->gp_max_capacity = caps[fct_rng_range(r, 0, 4)];
    /* Keep every flow cost, and their sum over a few thousand arcs, well
     * inside 64 bits (negative cycles fill arcs to capacity). */
    while (p->gp_max_capacity > 1 &&
           p->gp_max_capacity > ((int64_t)1 << 50) / p->gp_max_cost)
        p->gp_max_capacity /= 1000;
    p->gp_zero_capacity_pct = fct_rng_pct(r, 30) ? 20 : 0;
    p->gp_parallel_pct = fct_rng_pct(r, 30) ? 25 : 0;
    p->gp_backbone = fct_rng_pct(r, 70);
    p->gp_unbalanced = fct_rng_pct(r, 4);
}

void fct_describe(const fct_graph_params *p, char *buf, size_t len)
{
    snprintf(buf, len,
             "n=%d m=%d iso=%d src=%d snk=%d supply=%" PRId64 " cost=%s%" PRId64
             " cap=%" PRId64 "%s%s%s%s",
             p->gp_nodes, p->gp_arcs, p->gp_isolated, p->gp_sources,
             p->gp_sinks, p->gp_total_supply, p->gp_negative_costs ? "+-" : "",
             p->gp_max_cost, p->gp_max_capacity,
             p->gp_zero_capacity_pct ? " zero-caps" : "",
             p->gp_parallel_pct ? " parallel" : "",
             p->gp_backbone ? " backbone" : "",
             p->gp_unbalanced ? " unbalanced" : "");
}

/* Split total into k non-negative parts, written to out[0..k). */
static void split(fct_rng *r, int64_t total, int32_t k, int64_t *out)
{
    for (int32_t i = 0; i < k; i++)
        out[i] = 0;
    /* Cut the total at k-1 random points; a few big draws suffice. */
    int64_t left = total;
    for (int32_t i = 0; i < k - 1 && left > 0; i++) {
        int64_t take = fct_rng_range(r, 0, left);
        out[fct_rng_range(r, 0, k - 1)] += take;
        left -= take;
    }
    out[fct_rng_range(r, 0, k - 1)] += left;
}

int fct_random_graph(fct_rng *r, const fct_graph_params *p, fc_graph **out)
{
    fc_graph *g;
    int rc = fc_graph_new(&g);
    if (rc != 0)
        return rc;
    int32_t n = p->gp_nodes;
    int64_t *supply = calloc((size_t)n, sizeof *supply);
    int32_t *order = malloc((size_t)n * sizeof *order);
    fc_node *ids = malloc((size_t)n * sizeof *ids);
    int64_t *part = malloc((size_t)n * sizeof *part);
    if (supply == NULL || order == NULL || ids == NULL || part == NULL) {
        rc = FC_ENOMEM;
        goto out;
    }
    /* Random roles: a shuffle decides which nodes give and take. */
    for (int32_t i = 0; i < n; i++)
        order[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)fct_rng_range(r, 0, i);
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    split(r, p->gp_total_supply, p->gp_sources, part);
    for (int32_t i = 0; i < p->gp_sources; i++)
        supply[order[i]] += part[i];
    int64_t demand = p->gp_total_supply;
    if (p->gp_unbalanced)
        demand += fct_rng_pct(r, 50) ? 1 : -1;
    if (demand < 0)
        demand = 0;
    split(r, demand, p->gp_sinks, part);
    for (int32_t i = 0; i < p->gp_sinks; i++)
        supply[order[p->gp_sources + i]] -= part[i];
    if (p->gp_unbalanced && demand == p->gp_total_supply)
        supply[order[0]] += 1;

    for (int32_t i = 0; i < n && rc == 0; i++)
        rc = fc_node_add(g, supply[i], FC_NODE_OTHER, &ids[i]);
    for (int32_t i = 0; i < p->gp_isolated && rc == 0; i++) {
        fc_node iso;
        rc = fc_node_add(g, 0, FC_NODE_OTHER, &iso);
    }
    fc_arc a, last = FC_NONE;
    for (int32_t i = 0; i < p->gp_arcs && rc == 0; i++) {
        int64_t cap = fct_rng_pct(r, p->gp_zero_capacity_pct)
                          ? 0
                          : fct_rng_range(r, 0, p->gp_max_capacity);
        int64_t cost = fct_rng_range(
            r, p->gp_negative_costs ? -p->gp_max_cost : 0, p->gp_max_cost);
        fc_node src, dst;
        if (last != FC_NONE && fct_rng_pct(r, p->gp_parallel_pct)) {
            src = fc_arc_src(g, last);
            dst = fc_arc_dst(g, last);
        } else {
            src = ids[fct_rng_range(r, 0, n - 1)];
            dst = ids[fct_rng_range(r, 0, n - 1)];
        }
        rc = fc_arc_add(g, src, dst, cap, cost, &a);
        last = a;
    }
    if (p->gp_backbone && rc == 0) {
        /* A hub with a dear arc from every giver and to every taker, wide
         * enough for all the supply: feasible whenever supplies balance,
         * and still after most later capacity changes. */
        fc_node hub;
        rc = fc_node_add(g, 0, FC_NODE_OTHER, &hub);
        int64_t dear = p->gp_max_cost;
        int64_t wide = p->gp_total_supply + 1;
        for (int32_t i = 0; i < n && rc == 0; i++) {
            if (supply[i] > 0)
                rc = fc_arc_add(g, ids[i], hub, wide, dear, &a);
            else if (supply[i] < 0)
                rc = fc_arc_add(g, hub, ids[i], wide, dear, &a);
        }
    }
out:
    free(supply);
    free(order);
    free(ids);
    free(part);
    if (rc != 0) {
        fc_graph_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

/* --- scheduling-shaped networks ------------------------------------------*/

static int sched_reserve_tasks(fct_sched *s)
{
    if (s->sc_ntasks < s->sc_tasks_cap)
        return 0;
    int32_t cap = s->sc_tasks_cap < 16 ? 16 : 2 * s->sc_tasks_cap;
    fc_node *t = realloc(s->sc_tasks, (size_t)cap * sizeof *t);
    if (t == NULL)
        return FC_ENOMEM;
    s->sc_tasks = t;
    int32_t *j = realloc(s->sc_task_job, (size_t)cap * sizeof *j);
    if (j == NULL)
        return FC_ENOMEM;
    s->sc_task_job = j;
    s->sc_tasks_cap = cap;
    return 0;
}

int fct_sched_add_task(fct_rng *r, fct_sched *s, int32_t j)
{
    fc_graph *g = s->sc_g;
    int rc = sched_reserve_tasks(s);
    fc_node t;
    fc_arc a;
    if (rc == 0)
        rc = fc_node_add(g, 1, FC_NODE_TASK, &t);
    if (rc != 0)
        return rc;
    rc = fc_node_set_supply(g, s->sc_sink, fc_node_supply(g, s->sc_sink) - 1);
    if (rc == 0)
        rc = fc_arc_add(g, t, s->sc_unsched[j], 1, fct_rng_range(r, 100, 400),
                        &a);
    if (rc == 0)
        rc = fc_arc_add(g, t, s->sc_cluster, 1, fct_rng_range(r, 30, 90), &a);
    int32_t prefs = (int32_t)fct_rng_range(r, 0, 3);
    for (int32_t k = 0; k < prefs && rc == 0; k++) {
        fc_node dst;
        if (fct_rng_pct(r, 30)) {
            dst = s->sc_racks[fct_rng_range(r, 0, s->sc_nracks - 1)];
        } else {
            dst = s->sc_machines[fct_rng_range(r, 0, s->sc_nmachines - 1)];
            if (dst == FC_NONE)
                continue;
        }
        rc = fc_arc_add(g, t, dst, 1, fct_rng_range(r, 0, 40), &a);
    }
    if (rc != 0)
        return rc;
    s->sc_tasks[s->sc_ntasks] = t;
    s->sc_task_job[s->sc_ntasks++] = j;
    return 0;
}

int fct_sched_build(fct_rng *r, int32_t machines, int32_t machines_per_rack,
                    int32_t jobs, int32_t tasks_per_job, int64_t slots,
                    fct_sched *s)
{
    memset(s, 0, sizeof *s);
    s->sc_slots = slots;
    int rc = fc_graph_new(&s->sc_g);
    if (rc != 0)
        return rc;
    fc_graph *g = s->sc_g;
    s->sc_nmachines = machines;
    s->sc_nracks = (machines + machines_per_rack - 1) / machines_per_rack;
    s->sc_njobs = jobs;
    s->sc_machines = malloc((size_t)machines * sizeof(fc_node));
    s->sc_racks = malloc((size_t)s->sc_nracks * sizeof(fc_node));
    s->sc_unsched = malloc((size_t)jobs * sizeof(fc_node));
    if (s->sc_machines == NULL || s->sc_racks == NULL ||
        s->sc_unsched == NULL) {
        fct_sched_free(s);
        return FC_ENOMEM;
    }
    fc_arc a;
    rc = fc_node_add(g, 0, FC_NODE_SINK, &s->sc_sink);
    if (rc == 0)
        rc = fc_node_add(g, 0, FC_NODE_AGGREGATOR, &s->sc_cluster);
    for (int32_t k = 0; k < s->sc_nracks && rc == 0; k++) {
        rc = fc_node_add(g, 0, FC_NODE_AGGREGATOR, &s->sc_racks[k]);
        if (rc == 0)
            rc = fc_arc_add(g, s->sc_cluster, s->sc_racks[k],
                            slots * machines_per_rack, 0, &a);
    }
    for (int32_t m = 0; m < machines && rc == 0; m++) {
        rc = fc_node_add(g, 0, FC_NODE_MACHINE, &s->sc_machines[m]);
        if (rc == 0)
            rc = fc_arc_add(g, s->sc_racks[m / machines_per_rack],
                            s->sc_machines[m], slots, fct_rng_range(r, 0, 5),
                            &a);
        if (rc == 0)
            rc = fc_arc_add(g, s->sc_machines[m], s->sc_sink, slots,
                            fct_rng_range(r, 0, 10), &a);
    }
    for (int32_t j = 0; j < jobs && rc == 0; j++) {
        rc = fc_node_add(g, 0, FC_NODE_UNSCHEDULED, &s->sc_unsched[j]);
        if (rc == 0)
            rc = fc_arc_add(g, s->sc_unsched[j], s->sc_sink, (int64_t)1 << 30,
                            0, &a);
        int32_t ntasks = (int32_t)fct_rng_range(r, 1, 2 * tasks_per_job - 1);
        for (int32_t i = 0; i < ntasks && rc == 0; i++)
            rc = fct_sched_add_task(r, s, j);
    }
    if (rc != 0)
        fct_sched_free(s);
    return rc;
}

int fct_sched_finish_task(fct_sched *s, int32_t i)
{
    fc_graph *g = s->sc_g;
    fc_node t = s->sc_tasks[i];
    if (t == FC_NONE)
        return FC_EINVAL;
    int64_t supply = fc_node_supply(g, t);
    int64_t before = fc_node_supply(g, s->sc_sink);
    int rc = fc_node_remove_drain(g, t);
    if (rc != 0)
        return rc;
    /* The drain lowered the sink's demand by what it moved; whatever of
     * the task's supply it did not move (an unsolved task) must leave the
     * sink's demand too, so that supplies still balance. */
    int64_t drained = fc_node_supply(g, s->sc_sink) - before;
    if (drained != supply)
        rc = fc_node_set_supply(
            g, s->sc_sink, fc_node_supply(g, s->sc_sink) + supply - drained);
    s->sc_tasks[i] = FC_NONE;
    return rc;
}

int fct_sched_remove_machine(fct_sched *s, int32_t m)
{
    if (s->sc_machines[m] == FC_NONE)
        return FC_EINVAL;
    int rc = fc_node_remove(s->sc_g, s->sc_machines[m]);
    s->sc_machines[m] = FC_NONE;
    return rc;
}

void fct_sched_event(fct_rng *r, fct_sched *s)
{
    fc_graph *g = s->sc_g;
    int32_t t = (int32_t)fct_rng_range(r, 0, s->sc_ntasks - 1);
    int32_t m = (int32_t)fct_rng_range(r, 0, s->sc_nmachines - 1);
    fc_arc a = (fc_arc)fct_rng_range(r, 0, fc_graph_arc_bound(g) - 1);
    switch (fct_rng_range(r, 0, 5)) {
    case 0:
    case 1:
        fct_sched_add_task(r, s, (int32_t)fct_rng_range(r, 0, s->sc_njobs - 1));
        break;
    case 2:
        if (s->sc_tasks[t] != FC_NONE)
            fct_sched_finish_task(s, t);
        break;
    case 3:
        if (fct_rng_pct(r, 30) && s->sc_machines[m] != FC_NONE)
            fct_sched_remove_machine(s, m);
        break;
    case 4:
        if (fc_arc_exists(g, a))
            fc_arc_set_cost(g, a, fc_arc_cost(g, a) + fct_rng_range(r, -5, 5));
        break;
    default:
        if (fc_arc_exists(g, a))
            fc_arc_set_capacity(g, a,
                                fc_arc_capacity(g, a) +
                                    fct_rng_range(r, -1, 1) +
                                    (fc_arc_capacity(g, a) == 0));
    }
}

void fct_sched_free(fct_sched *s)
{
    fc_graph_free(s->sc_g);
    free(s->sc_racks);
    free(s->sc_machines);
    free(s->sc_unsched);
    free(s->sc_tasks);
    free(s->sc_task_job);
    memset(s, 0, sizeof *s);
}

/* --- the LEMON reference -------------------------------------------------*/

const char *fct_lemon_path(void)
{
    const char *p = getenv("DIMACS_SOLVER");
    if (p == NULL || *p == '\0' || strchr(p, '\'') != NULL ||
        access(p, X_OK) != 0)
        return NULL;
    return p;
}

/* Write g as plain DIMACS, live nodes numbered 1.. in id order. */
static int write_plain(const fc_graph *g, FILE *f)
{
    int32_t nb = fc_graph_node_bound(g);
    int32_t *num = calloc((size_t)nb + 1, sizeof *num);
    if (num == NULL)
        return -1;
    int32_t k = 0;
    for (fc_node v = 0; v < nb; v++)
        if (fc_node_exists(g, v))
            num[v] = ++k;
    fprintf(f, "p min %d %d\n", k, fc_graph_arc_count(g));
    for (fc_node v = 0; v < nb; v++)
        if (fc_node_exists(g, v) && fc_node_supply(g, v) != 0)
            fprintf(f, "n %d %" PRId64 "\n", num[v], fc_node_supply(g, v));
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a))
            fprintf(f, "a %d %d 0 %" PRId64 " %" PRId64 "\n",
                    num[fc_arc_src(g, a)], num[fc_arc_dst(g, a)],
                    fc_arc_capacity(g, a), fc_arc_cost(g, a));
    free(num);
    return ferror(f) ? -1 : 0;
}

int fct_lemon_solve_file(const char *path, bool *feasible, int64_t *cost,
                         char *err, size_t errlen)
{
    const char *solver = fct_lemon_path();
    if (solver == NULL) {
        snprintf(err, errlen, "DIMACS_SOLVER is not set to an executable");
        return -1;
    }
    if (strchr(path, '\'') != NULL) {
        snprintf(err, errlen, "cannot quote the path %s for the shell", path);
        return -1;
    }
    char cmd[2600];
    int n = snprintf(cmd, sizeof cmd, "'%s' -long '%s' 2>&1", solver, path);
    if (n < 0 || (size_t)n >= sizeof cmd) {
        snprintf(err, errlen, "the command for %s is too long", path);
        return -1;
    }
    FILE *p = popen(cmd, "r");
    if (p == NULL) {
        snprintf(err, errlen, "cannot run %s", solver);
        return -1;
    }
    char line[512];
    int verdict = -1;
    bool have_cost = false;
    while (fgets(line, sizeof line, p) != NULL) {
        if (strncmp(line, "Feasible flow: found", 20) == 0)
            verdict = 1;
        else if (strncmp(line, "Feasible flow: not found", 24) == 0)
            verdict = 0;
        else if (sscanf(line, "Min flow cost: %" SCNd64, cost) == 1)
            have_cost = true;
    }
    int status = pclose(p);
    if (status != 0 || verdict < 0 || (verdict == 1 && !have_cost)) {
        snprintf(err, errlen, "%s gave no verdict on %s (status %d)", solver,
                 path, status);
        return -1;
    }
    *feasible = verdict == 1;
    if (!*feasible)
        *cost = 0;
    return 0;
}

int fct_lemon_solve(const fc_graph *g, bool *feasible, int64_t *cost, char *err,
                    size_t errlen)
{
    fc_int128 total = 0; /* many supplies of 2^40 pass 2^63 */
    for (fc_node v = 0; v < fc_graph_node_bound(g); v++)
        if (fc_node_exists(g, v))
            total += fc_node_supply(g, v);
    if (total != 0) {
        *feasible = false;
        *cost = 0;
        return 0;
    }
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/fc-lemon-XXXXXX",
             dir != NULL && *dir != '\0' && strchr(dir, '\'') == NULL ? dir
                                                                      : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, errlen, "mkstemp %s failed", path);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int rc = f != NULL ? write_plain(g, f) : -1;
    if (f == NULL)
        close(fd);
    else if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "writing %s failed", path);
        unlink(path);
        return -1;
    }
    rc = fct_lemon_solve_file(path, feasible, cost, err, errlen);
    unlink(path);
    return rc;
}

/* --- checking flows ------------------------------------------------------*/

/* Bellman-Ford with a FIFO queue over the residual network from a virtual
 * source at distance 0 to every node: a node queued more often than there
 * are nodes lies on (or behind) a negative cycle. */
static int residual_negative_cycle(const fc_graph *g, bool *found)
{
    int32_t n = fc_graph_node_bound(g);
    int64_t *dist = calloc((size_t)n + 1, sizeof *dist);
    int32_t *count = calloc((size_t)n + 1, sizeof *count);
    int32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    bool *queued = calloc((size_t)n + 1, sizeof *queued);
    if (dist == NULL || count == NULL || queue == NULL || queued == NULL) {
        free(dist);
        free(count);
        free(queue);
        free(queued);
        return -1;
    }
    int32_t head = 0, len = 0;
    for (fc_node v = 0; v < n; v++) {
        if (fc_node_exists(g, v)) {
            queue[len++] = v;
            queued[v] = true;
        }
    }
    *found = false;
    while (len > 0 && !*found) {
        fc_node u = queue[head];
        head = (head + 1) % (n + 1);
        len--;
        queued[u] = false;
        for (int32_t i = 0; i < fc_node_degree(g, u) && !*found; i++) {
            bool out;
            fc_arc a = fc_node_arc(g, u, i, &out);
            int64_t room = out ? fc_arc_capacity(g, a) - fc_arc_flow(g, a)
                               : fc_arc_flow(g, a);
            if (room <= 0)
                continue;
            fc_node w = out ? fc_arc_dst(g, a) : fc_arc_src(g, a);
            int64_t c = out ? fc_arc_cost(g, a) : -fc_arc_cost(g, a);
            if (dist[u] + c < dist[w]) {
                dist[w] = dist[u] + c;
                if (w == u)
                    *found = true;
                if (!queued[w]) {
                    /* Without a negative cycle, a node enters the FIFO
                     * queue at most once per Bellman-Ford pass. */
                    if (++count[w] > n)
                        *found = true;
                    queue[(head + len) % (n + 1)] = w;
                    len++;
                    queued[w] = true;
                }
            }
        }
    }
    free(dist);
    free(count);
    free(queue);
    free(queued);
    return 0;
}

bool fct_check_flow(const fc_graph *g, fc_int128 reported_cost,
                    bool check_optimal, char *err, size_t errlen)
{
    if (fc_graph_check(g, err, errlen) != 0)
        return false;
    fc_int128 cost = 0;
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a))
            cost += (fc_int128)fc_arc_flow(g, a) * fc_arc_cost(g, a);
    if (cost != fc_graph_flow_cost(g) || cost != reported_cost) {
        char b1[FC_INT128_BUFSIZE], b2[FC_INT128_BUFSIZE],
            b3[FC_INT128_BUFSIZE];
        snprintf(err, errlen,
                 "cost recomputed from the arcs is %s, graph says %s, solver "
                 "reported %s",
                 fc_int128_format(cost, b1, sizeof b1),
                 fc_int128_format(fc_graph_flow_cost(g), b2, sizeof b2),
                 fc_int128_format(reported_cost, b3, sizeof b3));
        return false;
    }
    if (check_optimal) {
        bool cycle;
        if (residual_negative_cycle(g, &cycle) != 0) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        if (cycle) {
            snprintf(err, errlen,
                     "the residual network has a negative cycle: not "
                     "optimal");
            return false;
        }
    }
    return true;
}

bool fct_flow_ok(const fc_graph *g, fc_int128 reported_cost)
{
    char err[256];
    if (!fct_check_flow(g, reported_cost, true, err, sizeof err)) {
        tap_diag("flow check: %s", err);
        return false;
    }
    return true;
}

bool fct_capacities_ok(const fc_graph *g)
{
    for (fc_arc a = 0; a < fc_graph_arc_bound(g); a++)
        if (fc_arc_exists(g, a) && (fc_arc_flow(g, a) < 0 ||
                                    fc_arc_flow(g, a) > fc_arc_capacity(g, a)))
            return false;
    return true;
}

/* --- solving -------------------------------------------------------------*/

fc_solve_options fct_options(fc_algorithm alg, bool incremental)
{
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = alg;
    opt.so_incremental = incremental;
    return opt;
}

int fct_solve_fresh(const fc_graph *g, fc_algorithm alg, fc_int128 *cost)
{
    fc_graph *c;
    if (fc_graph_clone(g, &c) != 0)
        tap_bail_out("out of memory cloning a graph for a fresh solve");
    fc_solve_options opt = fct_options(alg, false);
    fc_solve_stats st = {0};
    int rc = fc_solve(c, &opt, &st);
    *cost = st.ss_cost;
    fc_graph_free(c);
    return rc;
}

bool fct_matches_ssp(fc_graph *g, const fc_solve_options *opt,
                     fc_solve_stats *st, int *want_rc, char *why, size_t len)
{
    fc_int128 want;
    *want_rc = fct_solve_fresh(g, FC_ALG_SSP, &want);
    memset(st, 0, sizeof *st);
    int rc = fc_solve(g, opt, st);
    char err[256], got_s[FC_INT128_BUFSIZE], want_s[FC_INT128_BUFSIZE];
    fc_int128_format(st->ss_cost, got_s, sizeof got_s);
    fc_int128_format(want, want_s, sizeof want_s);
    if (rc != *want_rc) {
        snprintf(why, len,
                 "returned %s (cost %s), ssp from scratch %s (cost %s)",
                 fc_strerror(rc), got_s, fc_strerror(*want_rc), want_s);
        return false;
    }
    if (!fct_capacities_ok(g)) {
        snprintf(why, len, "returned %s with a flow over capacity",
                 fc_strerror(rc));
        return false;
    }
    if (rc != 0)
        return true;
    if (st->ss_cost != want) {
        snprintf(why, len, "cost %s, ssp from scratch %s", got_s, want_s);
        return false;
    }
    if (!fct_check_flow(g, st->ss_cost, true, err, sizeof err)) {
        snprintf(why, len, "flow check: %s", err);
        return false;
    }
    return true;
}

bool fct_solve_is(fc_graph *g, const fc_solve_options *opt, int64_t want,
                  const char *what)
{
    fc_solve_stats st = {0};
    bool solved = tap_is_int(fc_solve(g, opt, &st), 0, "%s: solved", what);
    char got_s[FC_INT128_BUFSIZE];
    bool cost =
        tap_ok(st.ss_cost == want, "%s: cost %" PRId64 " (got %s)", what, want,
               fc_int128_format(st.ss_cost, got_s, sizeof got_s));
    return solved && cost;
}

/* --- small fixed networks and shared checks ------------------------------*/

fc_graph *fct_two_routes(fct_routes *r)
{
    if (fc_graph_new(&r->rt_g) != 0)
        tap_bail_out("out of memory building the two-route network");
    fc_graph *g = r->rt_g;
    if (fc_node_add(g, 5, FC_NODE_OTHER, &r->rt_s) != 0 ||
        fc_node_add(g, 0, FC_NODE_OTHER, &r->rt_a) != 0 ||
        fc_node_add(g, 0, FC_NODE_OTHER, &r->rt_b) != 0 ||
        fc_node_add(g, -5, FC_NODE_OTHER, &r->rt_t) != 0 ||
        fc_arc_add(g, r->rt_s, r->rt_a, 2, 1, &r->rt_sa) != 0 ||
        fc_arc_add(g, r->rt_a, r->rt_t, 10, 1, &r->rt_at) != 0 ||
        fc_arc_add(g, r->rt_s, r->rt_b, 10, 3, &r->rt_sb) != 0 ||
        fc_arc_add(g, r->rt_b, r->rt_t, 10, 3, &r->rt_bt) != 0)
        tap_bail_out("cannot build the two-route network");
    return g;
}

void fct_check_negative_cycle(fc_algorithm alg)
{
    fc_graph *g;
    if (fc_graph_new(&g) != 0)
        tap_bail_out("out of memory building the negative-cycle network");
    fc_node a, b, c;
    fc_arc x;
    if (fc_node_add(g, 0, FC_NODE_OTHER, &a) != 0 ||
        fc_node_add(g, 0, FC_NODE_OTHER, &b) != 0 ||
        fc_node_add(g, 0, FC_NODE_OTHER, &c) != 0 ||
        fc_arc_add(g, a, b, 4, -5, &x) != 0 ||
        fc_arc_add(g, b, c, 3, 1, &x) != 0 ||
        fc_arc_add(g, c, a, 9, 1, &x) != 0 ||
        fc_arc_add(g, a, a, 2, -1, &x) != 0 ||
        fc_arc_add(g, b, b, 2, 0, &x) != 0)
        tap_bail_out("cannot build the negative-cycle network");
    fc_solve_options opt = fct_options(alg, false);
    char what[64];
    snprintf(what, sizeof what, "%s, negative cycle saturated",
             fc_algorithm_name(alg));
    fct_solve_is(g, &opt, 3 * -3 - 2, what);
    tap_ok(fct_flow_ok(g, 3 * -3 - 2), "%s, negative cycle: flow checks",
           fc_algorithm_name(alg));
    fc_graph_free(g);
}

void fct_check_cancel(fc_graph *g, fc_algorithm alg)
{
    const char *name = fc_algorithm_name(alg);
    fc_cancel *stop;
    if (fc_cancel_new(&stop) != 0)
        tap_bail_out("out of memory for a cancel flag");
    fc_cancel_set(stop, true);
    fc_solve_options opt = fct_options(alg, false);
    opt.so_cancel = stop;
    tap_is_int(fc_solve(g, &opt, NULL), FC_ECANCELED,
               "%s, cancelled by the caller: FC_ECANCELED", name);
    tap_ok(fct_capacities_ok(g), "%s, cancelled: capacities respected", name);
    fc_cancel_set(stop, false);
    opt.so_incremental = true;
    fc_solve_stats st = {0};
    tap_is_int(fc_solve(g, &opt, &st), 0,
               "%s, resumed after cancellation: solved", name);
    fc_cancel_free(stop);
    fc_int128 want;
    int want_rc = fct_solve_fresh(g, FC_ALG_SSP, &want);
    char err[256] = "", got_s[FC_INT128_BUFSIZE], want_s[FC_INT128_BUFSIZE];
    if (want_rc != 0)
        snprintf(err, sizeof err, "ssp from scratch says %s",
                 fc_strerror(want_rc));
    bool ok = want_rc == 0 && st.ss_cost == want &&
              fct_check_flow(g, st.ss_cost, true, err, sizeof err);
    tap_ok(ok,
           "%s, resumed: the optimal cost %s (ssp from scratch %s) and a "
           "flow that checks%s%s",
           name, fc_int128_format(st.ss_cost, got_s, sizeof got_s),
           fc_int128_format(want, want_s, sizeof want_s),
           err[0] != '\0' ? ": " : "", err);
}
