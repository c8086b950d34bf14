/*
 * test_fc_flowlessly.c - the Flowlessly scheduling graphs (from Firmament's
 * authors, in $SHARED_DATA_DIR/flowlessly-graphs): every full graph solved
 * by every algorithm of fc_solve gives the optimal cost LEMON's
 * dimacs-solver finds on the same file, with a flow that checks; every
 * change file applies cleanly to its base graph, and solving incrementally
 * after it gives LEMON's optimum for the changed network.
 */
#include "fc_testutil.h"
#include "flowcore.h"
#include "tap.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ALGS     (FC_ALG_RACE + 1)
#define MAX_FILES  128
#define MAX_REPORT 4

static char data_dir[1024];
static int failures[N_ALGS];
static int solved[N_ALGS];

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the data files, sorted. */
static int list_files(char **names)
{
    DIR *d = opendir(data_dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_FILES) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".in") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    return n;
}

/* Whether the file starts a network (its first non-comment line is p). */
static bool is_full_graph(const char *name)
{
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    bool full = false;
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == 'c' || line[0] == '\n')
            continue;
        full = line[0] == 'p';
        break;
    }
    fclose(f);
    return full;
}

/* LEMON's verdict on a data file as it is on disk. */
static int lemon_file(const char *name, bool *feasible, int64_t *cost,
                      char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    return fct_lemon_solve_file(path, feasible, cost, err, errlen);
}

/* Read files[0..n) into one reader: the first as the network, each further
 * one as a round of changes. Returns the reader or NULL (error in err). */
static fc_dimacs_reader *read_files(const char *const *files, int n, char *err,
                                    size_t errlen)
{
    fc_dimacs_reader *r;
    if (fc_dimacs_reader_new(NULL, &r) != 0)
        tap_bail_out("out of memory");
    for (int i = 0; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", data_dir, files[i]);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            snprintf(err, errlen, "cannot open %.200s", files[i]);
            fc_dimacs_reader_free(r);
            return NULL;
        }
        fc_dimacs_end end;
        size_t lines;
        int rc = fc_dimacs_read(r, f, files[i], &end, &lines);
        fclose(f);
        if (rc != 0) {
            snprintf(err, errlen, "%s", fc_dimacs_error(r));
            fc_dimacs_reader_free(r);
            return NULL;
        }
    }
    return r;
}

/* Solve g with alg and compare with the reference. */
static void check_solve(fc_graph *g, fc_algorithm alg, bool incremental,
                        bool feasible, int64_t want, const char *label)
{
    fc_solve_options opt = fct_options(alg, incremental);
    fc_solve_stats st;
    int rc = fc_solve(g, &opt, &st);
    char err[256] = "";
    bool ok;
    if (!feasible)
        ok = rc == FC_EINFEASIBLE;
    else
        ok = rc == 0 && st.ss_cost == want &&
             fct_check_flow(g, st.ss_cost, fc_graph_node_count(g) < 5000, err,
                            sizeof err);
    solved[alg]++;
    if (!ok && failures[alg]++ < MAX_REPORT)
        tap_diag("%s on %s: rc %d, cost %" PRId64 ", want %s %" PRId64 " %s",
                 fc_algorithm_name(alg), label, rc, (int64_t)st.ss_cost,
                 feasible ? "cost" : "infeasible", want, err);
}

/* The full graph a change file applies to: graph_4m_2crs_6j_add_task.in ->
 * graph_4m_2crs_6j.in; changes.in names nodes of graph_4m_2crs_6j.in. */
static bool base_of(const char *name, char *base, size_t len)
{
    if (strcmp(name, "changes.in") == 0) {
        snprintf(base, len, "graph_4m_2crs_6j.in");
        return true;
    }
    const char *j = strstr(name, "j_");
    if (strncmp(name, "graph_4m_2crs_", 14) != 0 || j == NULL)
        return false;
    snprintf(base, len, "%.*s.in", (int)(j + 1 - name), name);
    return true;
}

/* Lines of an *_incremental.in file: paths under test_graphs/. */
static int incremental_list(const char *name, char files[][256], int max)
{
    char path[1200], line[512];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int n = 0;
    while (n < max && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *slash = strrchr(line, '/');
        if (line[0] != '\0')
            snprintf(files[n++], 256, "%.200s", slash ? slash + 1 : line);
    }
    fclose(f);
    return n;
}

int main(void)
{
    tap_timeout(300);
    const char *shared = getenv("SHARED_DATA_DIR");
    if (shared == NULL || *shared == '\0')
        tap_skip_all("SHARED_DATA_DIR is not set");
    snprintf(data_dir, sizeof data_dir, "%s/flowlessly-graphs", shared);
    if (fct_lemon_path() == NULL)
        tap_skip_all("DIMACS_SOLVER (LEMON's dimacs-solver) not available");
    char *names[MAX_FILES];
    int nfiles = list_files(names);
    if (nfiles <= 0)
        tap_skip_all("no graphs in %s", data_dir);
    tap_plan_lazy();

    int full = 0, changes = 0, sequences = 0;
    for (int k = 0; k < nfiles; k++) {
        const char *name = names[k];
        char err[512];
        char base[256];
        const char *files[8];
        int nf;
        char listed[8][256];
        if (is_full_graph(name)) {
            files[0] = name;
            nf = 1;
            full++;
        } else if (strstr(name, "_incremental.in") != NULL) {
            nf = incremental_list(name, listed, 8);
            tap_ok(nf >= 2, "%s lists a graph and its changes", name);
            for (int i = 0; i < nf; i++)
                files[i] = listed[i];
            sequences++;
        } else if (base_of(name, base, sizeof base)) {
            files[0] = base;
            files[1] = name;
            nf = 2;
            changes++;
        } else {
            tap_ok(false, "%s: unknown kind of file", name);
            continue;
        }
        fc_dimacs_reader *r = read_files(files, nf, err, sizeof err);
        if (strcmp(name, "changes.in") == 0) {
            /* A hand-made file that changes an arc to node 23 after
             * removing node 23 (Flowlessly silently revives the id):
             * flowcore must refuse it, naming the line. */
            tap_ok(r == NULL && strstr(err, "changes.in:10: destination "
                                            "node 23 does not exist"),
                   "changes.in is refused at line 10: %s", err);
            fc_dimacs_reader_free(r);
            continue;
        }
        tap_ok(r != NULL, "%s reads%s%s", name, r ? "" : ": ", r ? "" : err);
        if (r == NULL)
            continue;
        bool feasible;
        int64_t want = 0;
        int lrc = nf == 1 ? lemon_file(name, &feasible, &want, err, sizeof err)
                          : fct_lemon_solve(fc_dimacs_graph(r), &feasible,
                                            &want, err, sizeof err);
        tap_ok(lrc == 0 && (nf > 1 || feasible),
               "LEMON solves %s (cost %" PRId64 ")%s%s", name, want,
               lrc != 0 ? ": " : "", lrc != 0 ? err : "");
        fc_dimacs_reader_free(r);
        if (lrc != 0)
            continue;
        for (int i = 0; i < N_ALGS; i++) {
            if (nf == 1) {
                r = read_files(files, 1, err, sizeof err);
                check_solve(fc_dimacs_graph(r), (fc_algorithm)i, false,
                            feasible, want, name);
                fc_dimacs_reader_free(r);
                continue;
            }
            /* Solve the base, apply each round, re-solve incrementally. */
            r = read_files(files, 1, err, sizeof err);
            fc_graph *g = fc_dimacs_graph(r);
            fc_solve_options opt = fct_options((fc_algorithm)i, false);
            int brc = fc_solve(g, &opt, NULL);
            for (int f = 1; f < nf && brc == 0; f++) {
                char path[1200];
                snprintf(path, sizeof path, "%s/%s", data_dir, files[f]);
                FILE *in = fopen(path, "r");
                fc_dimacs_end end;
                size_t lines;
                brc = in ? fc_dimacs_read(r, in, files[f], &end, &lines) : -1;
                if (in)
                    fclose(in);
            }
            if (brc != 0) {
                if (failures[i]++ < MAX_REPORT)
                    tap_diag("%s: base solve or changes failed: %d %s", name,
                             brc, fc_dimacs_error(r));
            } else {
                check_solve(g, (fc_algorithm)i, true, feasible, want, name);
            }
            fc_dimacs_reader_free(r);
        }
    }
    tap_ok(full >= 20 && changes >= 20 && sequences >= 2,
           "%d full graphs, %d change files, %d sequences", full, changes,
           sequences);
    for (int i = 0; i < N_ALGS; i++) {
        tap_is_int(failures[i], 0,
                   "%s matches LEMON on all %d solves (full graphs from "
                   "scratch, changed graphs incrementally)",
                   fc_algorithm_name((fc_algorithm)i), solved[i]);
    }
    for (int k = 0; k < nfiles; k++)
        free(names[k]);
    tap_done();
    return tap_exit_status();
}
