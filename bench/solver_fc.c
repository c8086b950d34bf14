/*
 * solver_fc.c - the flowcore side of the solver benchmark (see
 * solver_fc.h): timed, time-limited solves, flow checks, graph memory,
 * export for LEMON and DIMACS.
 */
#include "solver_fc.h"

#include "fc_graph_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A watchdog that sets the cancel flag when the time limit passes, unless
 * told first that the solve is over. */
typedef struct watchdog {
    pthread_mutex_t wd_lock;
    pthread_cond_t wd_cond;
    bool wd_done;
    struct timespec wd_deadline; /* CLOCK_MONOTONIC */
    fc_cancel *wd_cancel;
} watchdog;

static void *watchdog_main(void *arg)
{
    watchdog *wd = arg;
    pthread_mutex_lock(&wd->wd_lock);
    while (!wd->wd_done) {
        int rc = pthread_cond_timedwait(&wd->wd_cond, &wd->wd_lock,
                                        &wd->wd_deadline);
        if (rc == ETIMEDOUT) {
            fc_cancel_set(wd->wd_cancel, true);
            break;
        }
    }
    pthread_mutex_unlock(&wd->wd_lock);
    return NULL;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bf_solve(fc_graph *g, int alg, bool incremental, double timeout,
             bf_result *out)
{
    memset(out, 0, sizeof *out);
    fc_solve_options opt;
    fc_solve_options_init(&opt);
    opt.so_algorithm = (fc_algorithm)alg;
    opt.so_incremental = incremental;

    watchdog wd;
    pthread_t thread;
    bool watching = false;
    wd.wd_cancel = NULL;
    wd.wd_done = false;
    if (timeout > 0 && fc_cancel_new(&wd.wd_cancel) != 0) {
        out->br_rc = FC_ENOMEM;
        return out->br_rc;
    }
    if (timeout > 0) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&wd.wd_cond, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&wd.wd_lock, NULL);
        clock_gettime(CLOCK_MONOTONIC, &wd.wd_deadline);
        double whole = (double)(int64_t)timeout;
        wd.wd_deadline.tv_sec += (time_t)whole;
        wd.wd_deadline.tv_nsec += (long)((timeout - whole) * 1e9);
        if (wd.wd_deadline.tv_nsec >= 1000000000L) {
            wd.wd_deadline.tv_sec++;
            wd.wd_deadline.tv_nsec -= 1000000000L;
        }
        watching = pthread_create(&thread, NULL, watchdog_main, &wd) == 0;
        opt.so_cancel = wd.wd_cancel;
    }

    fc_solve_stats stats;
    double start = now_seconds();
    out->br_rc = fc_solve(g, &opt, &stats);
    out->br_seconds = now_seconds() - start;

    if (timeout > 0) {
        if (watching) {
            pthread_mutex_lock(&wd.wd_lock);
            wd.wd_done = true;
            pthread_cond_signal(&wd.wd_cond);
            pthread_mutex_unlock(&wd.wd_lock);
            pthread_join(thread, NULL);
        }
        pthread_cond_destroy(&wd.wd_cond);
        pthread_mutex_destroy(&wd.wd_lock);
        fc_cancel_free(wd.wd_cancel);
    }
    if (out->br_rc == FC_EINVAL)
        return out->br_rc; /* not built: nothing ran */
    out->br_winner = (int)stats.ss_algorithm;
    fc_int128 cost = fc_graph_flow_cost(g);
    out->br_cost = (int64_t)cost;
    /* Whatever the outcome, capacities must hold; after a success, mass
     * balance too (fc_graph_check tests both). */
    out->br_flow_ok = fc_graph_check(g, out->br_err, sizeof out->br_err) == 0;
    if (out->br_rc != 0 && !out->br_flow_ok) {
        out->br_flow_ok = true;
        for (fc_arc a = 0; a < g->g_abound; a++) {
            if (g->g_head[2 * a] >= 0 && (g->g_st.fs_rescap[2 * a] < 0 ||
                                          g->g_st.fs_rescap[2 * a + 1] < 0)) {
                snprintf(out->br_err, sizeof out->br_err,
                         "arc %d breaks its capacity after %s", a,
                         fc_strerror(out->br_rc));
                out->br_flow_ok = false;
                break;
            }
        }
    }
    /* The benchmark's graphs have small costs, and LEMON sums in 64 bits:
     * a cost beyond them is a failure to report, not to wrap. */
    if (out->br_rc == 0 && out->br_flow_ok && cost != out->br_cost) {
        snprintf(out->br_err, sizeof out->br_err,
                 "the flow's cost does not fit 64 bits");
        out->br_flow_ok = false;
    }
    return out->br_rc;
}

size_t bf_graph_bytes(const fc_graph *g)
{
    size_t nc = (size_t)g->g_ncap, ac = (size_t)g->g_acap;
    size_t bytes = sizeof *g;
    /* per node: supply, type, adjacency header, free stack, and excess and
     * price in both flow states (the current one and the race's second) */
    bytes += nc * (sizeof(int64_t) + 1 + sizeof(fc_adj) + sizeof(int32_t) +
                   4 * sizeof(int64_t));
    /* per arc: head, cost, pos and two flow states' rescap for both
     * residual arcs, free stack */
    bytes += ac * (2 * (sizeof(int32_t) + sizeof(int64_t) + sizeof(int32_t) +
                        2 * sizeof(int64_t)) +
                   sizeof(int32_t));
    for (size_t v = 0; v < nc; v++)
        bytes += (size_t)g->g_adj[v].ad_cap * sizeof(int32_t);
    bytes += g->g_changes_cap * sizeof(fc_change);
    /* the solvers' scratch memory, which the graph keeps between solves */
    for (int i = 0; i < FC_SCRATCH_N; i++)
        bytes += g->g_scratch[i].sc_size;
    return bytes;
}

/* Write one byte of each page that the n bytes at p touch back. */
static void rewrite_pages(void *p, size_t n)
{
    volatile char *c = p;
    for (size_t i = 0; i < n; i += 4096)
        c[i] = c[i];
    if (n > 0)
        c[n - 1] = c[n - 1];
}

void bf_own_pages(fc_graph *g)
{
    size_t nc = (size_t)g->g_ncap, ac = (size_t)g->g_acap;
    const fc_flow_state *states[] = {&g->g_st, &g->g_spare};
    for (int k = 0; k < 2; k++) {
        rewrite_pages(states[k]->fs_rescap, 2 * ac * sizeof(int64_t));
        rewrite_pages(states[k]->fs_excess, nc * sizeof(int64_t));
        rewrite_pages(states[k]->fs_price, nc * sizeof(int64_t));
    }
    for (int i = 0; i < FC_SCRATCH_N; i++)
        rewrite_pages(g->g_scratch[i].sc_mem, g->g_scratch[i].sc_size);
}

void bf_export_free(bf_export *e)
{
    free(e->be_supply);
    free(e->be_src);
    free(e->be_dst);
    free(e->be_cap);
    free(e->be_cost);
    memset(e, 0, sizeof *e);
}

int bf_export_graph(const fc_graph *g, bf_export *out)
{
    memset(out, 0, sizeof *out);
    size_t nb = (size_t)g->g_nbound, na = (size_t)g->g_alive;
    int32_t *index = malloc((nb + 1) * sizeof *index);
    out->be_supply = malloc(((size_t)g->g_nlive + 1) * sizeof(int64_t));
    out->be_src = malloc((na + 1) * sizeof(int32_t));
    out->be_dst = malloc((na + 1) * sizeof(int32_t));
    out->be_cap = malloc((na + 1) * sizeof(int64_t));
    out->be_cost = malloc((na + 1) * sizeof(int64_t));
    if (index == NULL || out->be_supply == NULL || out->be_src == NULL ||
        out->be_dst == NULL || out->be_cap == NULL || out->be_cost == NULL) {
        free(index);
        bf_export_free(out);
        return FC_ENOMEM;
    }
    for (fc_node v = 0; v < g->g_nbound; v++) {
        index[v] = -1;
        if (g->g_ntype[v] != FC_NODE_FREE) {
            index[v] = out->be_nodes;
            out->be_supply[out->be_nodes++] = g->g_supply[v];
        }
    }
    for (fc_arc a = 0; a < g->g_abound; a++) {
        if (g->g_head[2 * a] < 0)
            continue;
        int32_t k = out->be_arcs++;
        out->be_src[k] = index[fc_arc_src(g, a)];
        out->be_dst[k] = index[fc_arc_dst(g, a)];
        out->be_cap[k] = fc_arc_capacity(g, a);
        out->be_cost[k] = fc_arc_cost(g, a);
    }
    free(index);
    return 0;
}

int bf_write_dimacs(const bf_export *e, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return FC_EIO;
    fprintf(f, "c skylark bench/solver: generated scheduling graph\n");
    fprintf(f, "p min %d %d\n", e->be_nodes, e->be_arcs);
    for (int32_t v = 0; v < e->be_nodes; v++)
        if (e->be_supply[v] != 0)
            fprintf(f, "n %d %" PRId64 "\n", v + 1, e->be_supply[v]);
    for (int32_t k = 0; k < e->be_arcs; k++)
        fprintf(f, "a %d %d 0 %" PRId64 " %" PRId64 "\n", e->be_src[k] + 1,
                e->be_dst[k] + 1, e->be_cap[k], e->be_cost[k]);
    int rc = ferror(f) ? FC_EIO : 0;
    if (fclose(f) != 0)
        rc = FC_EIO;
    return rc;
}
