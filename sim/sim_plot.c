/*
 * sim_plot.c - gnuplot figures of skylark-sim's results (see sim_plot.h).
 */
#include "sim_plot.h"

#include "skylark.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

static FILE *open_in(const char *dir, const char *name, char *err,
                     size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return f;
}

static int close_in(FILE *f, const char *dir, const char *name, char *err,
                    size_t errlen)
{
    if (ferror(f) | fclose(f)) {
        snprintf(err, errlen, "%s/%s: write failed", dir, name);
        return SK_ESYS;
    }
    return 0;
}

/* One figure: a script that draws it as PNG and as SVG. */
static void figure(FILE *gp, const char *name, const char *title,
                   const char *xlabel, const char *ylabel, bool logx,
                   const char *plot)
{
    static const char *const terms[2][2] = {
        {"pngcairo size 960,640 enhanced font ',11'", "png"},
        {"svg size 960,640 enhanced font ',11'", "svg"},
    };
    for (int t = 0; t < 2; t++) {
        fprintf(gp, "set terminal %s\nset output '%s.%s'\n", terms[t][0], name,
                terms[t][1]);
        fprintf(gp,
                "set title \"%s\" noenhanced\nset xlabel '%s'\n"
                "set ylabel '%s'\n",
                title, xlabel, ylabel);
        fprintf(gp, "%s\n", logx ? "set logscale x" : "unset logscale x");
        fprintf(gp, "%s\nunset output\n", plot);
    }
}

static int run_gnuplot(const char *dir, const char *script, char *err,
                       size_t errlen)
{
    if (strchr(dir, '\'') != NULL) {
        snprintf(err, errlen, "%s: a folder name with ' is not supported", dir);
        return SK_ESYS;
    }
    char cd[4200];
    snprintf(cd, sizeof cd, "cd '%s'", dir);
    char *argv[] = {"gnuplot", "-e", cd, (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (rc != 0) {
        snprintf(err, errlen,
                 "cannot run gnuplot (%s); the data and scripts are in %s: "
                 "cd %s && gnuplot %s",
                 strerror(rc), dir, dir, script);
        return SK_ESYS;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "gnuplot failed on %s/%s", dir, script);
        return SK_ESYS;
    }
    return 0;
}

static int plot_cdfs(const char *dir, const sim_point *pt, const char *title,
                     char *err, size_t errlen)
{
    const sim_hist *h[2] = {&pt->pt_r.r_st.st_resp, &pt->pt_r.r_st.st_wait};
    const char *dat[2] = {"response-cdf.dat", "wait-cdf.dat"};
    for (int k = 0; k < 2; k++) {
        FILE *f = open_in(dir, dat[k], err, errlen);
        if (f == NULL)
            return SK_ESYS;
        fprintf(f, "# value_ms cumulative_fraction (skylark-sim)\n");
        uint64_t seen = 0;
        for (uint32_t i = 0; i < SIM_HIST_BUCKETS && h[k]->h_n > 0; i++) {
            if (h[k]->h_count[i] == 0)
                continue;
            seen += h[k]->h_count[i];
            uint64_t lo, hi;
            sim_hist_bucket_range(i, &lo, &hi);
            fprintf(f, "%.4f %.6f\n", (double)hi / 1000,
                    (double)seen / (double)h[k]->h_n);
        }
        if (close_in(f, dir, dat[k], err, errlen) != 0)
            return SK_ESYS;
    }
    FILE *gp = open_in(dir, "cdf.gp", err, errlen);
    if (gp == NULL)
        return SK_ESYS;
    fprintf(gp, "# skylark-sim: distributions of one point\nset grid\n"
                "set key bottom right\nset yrange [0:1]\n");
    figure(gp, "response-cdf", title, "job response time (ms)",
           "fraction of jobs", true,
           "plot 'response-cdf.dat' using 1:2 with steps title 'jobs'");
    figure(gp, "wait-cdf", title, "task wait (ms)", "fraction of tasks", false,
           "plot 'wait-cdf.dat' using 1:2 with steps title 'tasks'");
    if (close_in(gp, dir, "cdf.gp", err, errlen) != 0)
        return SK_ESYS;
    return run_gnuplot(dir, "cdf.gp", err, errlen);
}

/* Parameters a sweep may vary. */
enum { P_STRATEGY, P_DIST, P_SLOTS, P_RATIO, P_LOAD, P_COUNT };

static double param(const sim_params *p, int which)
{
    switch (which) {
    case P_STRATEGY:
        return p->p_strategy;
    case P_DIST:
        return p->p_gen.g_dist.d_kind;
    case P_SLOTS:
        return p->p_slots;
    case P_RATIO:
        return p->p_ratio;
    default:
        return p->p_gen.g_load;
    }
}

static void series_label(const sim_params *p, const bool *varies, int x,
                         char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", sim_strategy_get(p->p_strategy)->ss_name);
    bool uses_d = p->p_strategy != SIM_RANDOM && p->p_strategy != SIM_OMNI;
    if (varies[P_RATIO] && x != P_RATIO && uses_d)
        n += snprintf(buf + n, len - (size_t)n, " d=%g", p->p_ratio);
    if (varies[P_DIST])
        n += snprintf(buf + n, len - (size_t)n, " %s",
                      sim_dist_name(p->p_gen.g_dist.d_kind));
    if (varies[P_SLOTS] && x != P_SLOTS)
        n += snprintf(buf + n, len - (size_t)n, " %u slots", p->p_slots);
    if (varies[P_LOAD] && x != P_LOAD)
        snprintf(buf + n, len - (size_t)n, " load %g", p->p_gen.g_load);
}

static int plot_sweep(const char *dir, const sim_point *pts, uint32_t n,
                      const char *title, char *err, size_t errlen)
{
    bool varies[P_COUNT] = {false};
    for (int w = 0; w < P_COUNT; w++)
        for (uint32_t i = 1; i < n; i++)
            varies[w] |= param(&pts[i].pt_p, w) != param(&pts[0].pt_p, w);
    int x = varies[P_LOAD]    ? P_LOAD
            : varies[P_RATIO] ? P_RATIO
            : varies[P_SLOTS] ? P_SLOTS
                              : P_LOAD;
    static const char *xlabels[P_COUNT] = {"", "", "slots per node",
                                           "probe ratio d", "load"};
    /* Series in order of first appearance; points of one series in the
     * order they ran. */
    uint32_t *series = calloc(n, sizeof *series);
    char(*labels)[128] = calloc(n, sizeof *labels);
    if (series == NULL || labels == NULL) {
        free(series);
        free(labels);
        snprintf(err, errlen, "out of memory");
        return SK_ENOMEM;
    }
    uint32_t nseries = 0;
    for (uint32_t i = 0; i < n; i++) {
        char lab[128];
        series_label(&pts[i].pt_p, varies, x, lab, sizeof lab);
        uint32_t s = 0;
        while (s < nseries && strcmp(labels[s], lab) != 0)
            s++;
        if (s == nseries)
            memcpy(labels[nseries++], lab, sizeof lab);
        series[i] = s;
    }
    int rc = 0;
    FILE *f = open_in(dir, "sweep.dat", err, errlen);
    if (f == NULL) {
        rc = SK_ESYS;
        goto out;
    }
    fprintf(f, "# skylark-sim sweep: one block per series\n"
               "# x resp_p50_ms resp_p95_ms resp_p99_ms resp_mean_ms "
               "zero_wait_jobs closed_form utilisation p50_vs_omniscient "
               "p95_vs_omniscient\n");
    bool have_omni = false;
    for (uint32_t s = 0; s < nseries; s++) {
        fprintf(f, "# series %u: %s\n", s, labels[s]);
        for (uint32_t i = 0; i < n; i++) {
            if (series[i] != s || !pts[i].pt_done)
                continue;
            const sim_stats *st = &pts[i].pt_r.r_st;
            double zj = st->st_measured_done ? (double)st->st_measured_zero /
                                                   (double)st->st_measured_done
                                             : 0;
            char closed[32] = "NaN";
            if (!isnan(pts[i].pt_closed))
                snprintf(closed, sizeof closed, "%.6f", pts[i].pt_closed);
            /* The omniscient point of the same workload and cluster. */
            const sim_point *o = NULL;
            for (uint32_t k = 0; k < n && o == NULL; k++)
                if (pts[k].pt_done && pts[k].pt_p.p_strategy == SIM_OMNI &&
                    param(&pts[k].pt_p, P_DIST) ==
                        param(&pts[i].pt_p, P_DIST) &&
                    param(&pts[k].pt_p, P_SLOTS) ==
                        param(&pts[i].pt_p, P_SLOTS) &&
                    param(&pts[k].pt_p, P_LOAD) == param(&pts[i].pt_p, P_LOAD))
                    o = &pts[k];
            char vs[64] = "NaN NaN";
            if (o != NULL) {
                const sim_hist *oh = &o->pt_r.r_st.st_resp;
                snprintf(vs, sizeof vs, "%.6f %.6f",
                         sim_hist_quantile(&st->st_resp, 0.5) /
                             sim_hist_quantile(oh, 0.5),
                         sim_hist_quantile(&st->st_resp, 0.95) /
                             sim_hist_quantile(oh, 0.95));
                have_omni = true;
            }
            fprintf(f, "%g %.4f %.4f %.4f %.4f %.6f %s %.6f %s\n",
                    param(&pts[i].pt_p, x),
                    sim_hist_quantile(&st->st_resp, 0.5) / 1000,
                    sim_hist_quantile(&st->st_resp, 0.95) / 1000,
                    sim_hist_quantile(&st->st_resp, 0.99) / 1000,
                    sim_hist_mean(&st->st_resp) / 1000, zj, closed,
                    sim_stats_utilisation(st), vs);
        }
        fprintf(f, "\n\n");
    }
    if ((rc = close_in(f, dir, "sweep.dat", err, errlen)) != 0)
        goto out;
    FILE *gp = open_in(dir, "sweep.gp", err, errlen);
    if (gp == NULL) {
        rc = SK_ESYS;
        goto out;
    }
    fprintf(gp,
            "# skylark-sim: a sweep of %u points\nset grid\n"
            "set key top left\nset yrange [0:*]\n",
            n);
    static const struct {
        const char *name, *ylabel;
        int col;
    } figs[] = {
        {"response-p50", "job response time, median (ms)", 2},
        {"response-p95", "job response time, 95th percentile (ms)", 3},
        {"response-p99", "job response time, 99th percentile (ms)", 4},
        {"zero-wait", "fraction of jobs that never waited", 6},
        {"p50-vs-omniscient", "median job response, relative to omniscient", 9},
        {"p95-vs-omniscient", "95th percentile, relative to omniscient", 10},
    };
    for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
        if (figs[k].col >= 9 && !have_omni)
            continue;
        char plot[8192];
        int len = snprintf(plot, sizeof plot, "plot ");
        for (uint32_t s = 0; s < nseries && len < (int)sizeof plot - 200; s++)
            len += snprintf(plot + len, sizeof plot - (size_t)len,
                            "%s'sweep.dat' index %u using 1:%d with "
                            "linespoints title \"%s\" noenhanced",
                            s ? ", " : "", s, figs[k].col, labels[s]);
        figure(gp, figs[k].name, title, xlabels[x], figs[k].ylabel, false,
               plot);
    }
    if ((rc = close_in(gp, dir, "sweep.gp", err, errlen)) != 0)
        goto out;
    rc = run_gnuplot(dir, "sweep.gp", err, errlen);
out:
    free(series);
    free(labels);
    return rc;
}

int sim_plot(const char *dir, const sim_point *pts, uint32_t n,
             const char *title, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return SK_ESYS;
    }
    /* The title goes into gnuplot strings: no quotes or backslashes. */
    char safe[256];
    snprintf(safe, sizeof safe, "%s", title != NULL ? title : "skylark-sim");
    for (char *c = safe; *c != '\0'; c++)
        if (*c == '"' || *c == '\'' || *c == '\\' || *c == '\n')
            *c = ' ';
    title = safe;
    if (n == 1)
        return plot_cdfs(dir, &pts[0], title, err, errlen);
    return plot_sweep(dir, pts, n, title, err, errlen);
}
