/*
 * test_sim_work.c - the simulator's workloads and measurements: the job
 * file reader accepts every documented form and rejects bad input with
 * the line and field named; writing a job and reading it back gives the
 * same job; the generator's arrival rate and task durations have the
 * requested means (within a computed sampling bound); histogram
 * quantiles are exact below 1,024 us and within 0.1% above.
 */
#include "sim_stats.h"
#include "sim_cons.h"
#include "sim_work.h"
#include "skylark.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_sim_work.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* read_all reads the jobs of text; returns the status of the last call,
 * the jobs in js (up to 8), their count in *n, the error in err. */
static int read_all(const char *text, uint32_t nodes, sim_names *names,
                    sim_job **js, int *n, char *err, size_t errlen)
{
    sim_src src;
    const char *path = write_file("jobs.csv", text);
    if (sim_src_file(&src, path, names, nodes, 1, err, errlen) != 0)
        return -100;
    int rc;
    *n = 0;
    sim_job *j;
    while ((rc = sim_src_next(&src, &j, err, errlen)) == 1) {
        if (*n < 8)
            js[(*n)++] = j;
        else
            sim_job_free(j);
    }
    sim_src_close(&src);
    return rc;
}

static void free_all(sim_job **js, int n)
{
    for (int i = 0; i < n; i++)
        sim_job_free(js[i]);
}

static void test_valid(void)
{
    static sim_names names;
    memset(&names, 0, sizeof names);
    sim_job *js[8];
    int n;
    char err[512] = "";
    const char *text =
        "# a comment\n"
        "arrival_us,job,user,priority,class,tasks,durations,labels,"
        "preferred\n"
        "0,17,alice,0,short,3,const:1000,,\n"
        "5,18,bob,7,long,2,120000;80000+,gpu;ssd,3 4;\n"
        "5,19,alice,1,short,4,exp:2000,,rand:2\n"
        "\n"
        "9,20,bob,2,short,2,pareto:1.5:3000\r\n";
    int rc = read_all(text, 10, &names, js, &n, err, sizeof err);
    tap_ok(rc == 0 && n == 4, "four jobs read (%s)", err);
    if (n < 4) {
        free_all(js, n);
        tap_skip(8, "jobs missing");
        return;
    }
    tap_ok(js[0]->j_id == 17 && js[0]->j_seq == 0 && js[0]->j_arrival == 0 &&
               js[0]->j_ntasks == 3 && js[0]->j_dur[2] == 1000 &&
               !js[0]->j_long && js[0]->j_cut == NULL,
           "const durations, short, numbered in arrival order");
    const sim_job *b = js[1];
    tap_ok(b->j_long && b->j_prio == 7 && b->j_dur[0] == 120000 &&
               b->j_dur[1] == 80000 && b->j_cut != NULL && !b->j_cut[0] &&
               b->j_cut[1] && b->j_ncut == 1,
           "explicit durations with a cut-short task, long, priority 7");
    tap_ok(b->j_nlabels == 2 &&
               strcmp(names.n_labels[b->j_labels[0]], "gpu") == 0 &&
               strcmp(names.n_labels[b->j_labels[1]], "ssd") == 0,
           "labels interned");
    tap_ok(sim_job_npref(b, 0) == 2 && b->j_pref[0] == 3 && b->j_pref[1] == 4 &&
               sim_job_npref(b, 1) == 0,
           "explicit preferred nodes, and none for the second task");
    const sim_job *c = js[2];
    bool distinct = true;
    for (uint32_t t = 0; t < c->j_ntasks; t++)
        distinct &=
            sim_job_npref(c, t) == 2 &&
            c->j_pref[c->j_pref_off[t]] != c->j_pref[c->j_pref_off[t] + 1] &&
            c->j_pref[c->j_pref_off[t]] < 10;
    tap_ok(distinct, "rand:2 gives each task two distinct nodes");
    tap_ok(js[3]->j_arrival == 9 && js[3]->j_ntasks == 2 &&
               js[3]->j_dur[0] >= 1000 && js[3]->j_nlabels == 0,
           "seven fields, CRLF, Pareto draws at least its scale");
    tap_ok(names.n_nusers == 2 && strcmp(names.n_users[0].u_name, "alice") == 0,
           "users interned in order of appearance");

    /* Write them out and read them back: the same jobs. */
    const char *path = write_file("rt.csv", "");
    FILE *f = fopen(path, "w");
    sim_jobs_header(f, "round trip");
    for (int i = 0; i < n; i++)
        sim_job_write(f, js[i], &names);
    fclose(f);
    sim_src src;
    sim_src_file(&src, path, &names, 10, 99, err, sizeof err);
    bool same = true;
    for (int i = 0; i < n; i++) {
        sim_job *j = NULL;
        same &= sim_src_next(&src, &j, err, sizeof err) == 1;
        if (j == NULL)
            break;
        const sim_job *o = js[i];
        same &= j->j_arrival == o->j_arrival && j->j_id == o->j_id &&
                j->j_user == o->j_user && j->j_prio == o->j_prio &&
                j->j_long == o->j_long && j->j_ntasks == o->j_ntasks &&
                j->j_nlabels == o->j_nlabels && j->j_ncut == o->j_ncut &&
                memcmp(j->j_dur, o->j_dur, o->j_ntasks * 8) == 0 &&
                memcmp(j->j_labels, o->j_labels, o->j_nlabels) == 0;
        for (uint32_t t = 0; t < o->j_ntasks; t++) {
            same &= sim_job_npref(j, t) == sim_job_npref(o, t);
            for (uint32_t k = 0; k < sim_job_npref(o, t); k++)
                same &= j->j_pref[j->j_pref_off[t] + k] ==
                        o->j_pref[o->j_pref_off[t] + k];
        }
        sim_job_free(j);
    }
    sim_src_close(&src);
    tap_ok(same, "written and read back, every job is the same");
    free_all(js, n);
}

/* The tags and constraints columns (sim_cons.h): parsed, and written
 * back the same. */
static void test_constraints(void)
{
    static sim_names names;
    memset(&names, 0, sizeof names);
    sim_job *js[8];
    int n;
    char err[512] = "";
    const char *text = "0,1,a,0,long,3,const:5,,,zk;zk hb;,"
                       "zk=2 NOTIN NODE zk:hb IN RACK all/zk SOFT=2\n"
                       "1,2,a,0,long,2,const:5,,,st,\n";
    int rc = read_all(text, 10, &names, js, &n, err, sizeof err);
    uint32_t k0 = 0, k1 = 0, k2 = 0, k3 = 0;
    const char **t1 = NULL, **t3 = NULL;
    if (rc == 0 && n == 2 && js[0]->j_cons != NULL && js[1]->j_cons != NULL) {
        sim_cons_task_tags(js[0]->j_cons, 0, &k0);
        t1 = sim_cons_task_tags(js[0]->j_cons, 1, &k1);
        sim_cons_task_tags(js[0]->j_cons, 2, &k2);
        t3 = sim_cons_task_tags(js[1]->j_cons, 1, &k3);
    }
    tap_ok(t1 != NULL && k0 == 1 && k1 == 2 && strcmp(t1[1], "hb") == 0 &&
               k2 == 0 && js[0]->j_cons->sc_spec.cs_n == 2 &&
               js[0]->j_cons->sc_spec.cs_items[1].cn_weight == 2 && k3 == 1 &&
               strcmp(t3[0], "st") == 0 && js[1]->j_cons->sc_spec.cs_n == 0,
           "tags per task and for every task, two constraints (%s)", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (fp != NULL && n == 2) {
        sim_job_write(fp, js[0], &names);
        fclose(fp);
    }
    tap_ok(buf != NULL && strstr(buf, ",zk;zk hb;,zk=2 NOTIN NODE zk:hb IN "
                                      "RACK all/zk SOFT=2\n") != NULL,
           "written back as read: %s", buf != NULL ? buf : "(nothing)");
    free(buf);
    free_all(js, n);
}

static void test_invalid(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"0,1,a,0,short,2,const:5,,\n3,2,a,0,short,1,const:5,,\n"
         "2,3,a,0,short,1,const:5,,\n",
         ":3: arrival_us: 2 is before the previous"},
        {"0,1,a,8,short,1,const:5,,\n", ":1: priority"},
        {"0,1,a,0,medium,1,const:5,,\n", ":1: class"},
        {"0,1,a,0,short,0,const:5,,\n", ":1: tasks"},
        {"0,1,a,0,short,3,1;2,,\n", ":1: durations: 2 durations for 3"},
        {"0,1,a,0,short,1,x1,,\n", ":1: durations: task 0"},
        {"0,1,a,0,short,1,pareto:1:5,,\n", ":1: durations: expected"},
        {"0,1,a,0,short,1,const:5,g p,\n", ":1: labels"},
        {"0,1,a,0,short,1,const:5,,10\n", ":1: preferred: task 0: '10'"},
        {"0,1,a,0,short,2,const:5,,1\n", ":1: preferred: 1 entries for 2"},
        {"0,1,a,0,short,1,const:5,,rand:11\n", ":1: preferred: rand:K"},
        {"0,1,a b,0,short,1,const:5,,\n", ":1: user"},
        {"0,1,a,0,short,1\n", ":1: line: 6 fields"},
        {"0,1,a,0,short,1,const:5,,,,,,\n", ":1: line: more than 11"},
        {"0,1,a,0,long,2,const:5,,,a;b;c,\n",
         ":1: tags/constraints: tags: 3 lists separated by ';'"},
        {"0,1,a,0,long,1,const:5,,,a/b,\n",
         ":1: tags/constraints: tags: 'a/b' (byte 1)"},
        {"0,1,a,0,long,1,const:5,,,a b c d e f g h i,\n",
         ":1: tags/constraints: tags: task 0 has more than 8 tags"},
        {"0,1,a,0,long,1,const:5,,,zk,zk NOTIN NOD zk\n",
         ":1: tags/constraints: constraints: at 10: expected NODE"},
        {"x,1,a,0,short,1,const:5,,\n", ":1: arrival_us"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static sim_names names;
        memset(&names, 0, sizeof names);
        sim_job *js[8];
        int n;
        char err[512] = "";
        int rc = read_all(cases[i].text, 10, &names, js, &n, err, sizeof err);
        free_all(js, n);
        tap_ok(rc == SK_EPROTO && strstr(err, cases[i].want) != NULL,
               "rejected with '%s' (got: %s)", cases[i].want, err);
    }
}

static void test_generator(void)
{
    static sim_names names;
    memset(&names, 0, sizeof names);
    uint32_t a, b;
    sim_names_user(&names, "a", 1, &a);
    sim_names_user(&names, "b", 1, &b);
    names.n_users[a].u_share = 3;
    names.n_users[b].u_share = 1;
    names.n_users[b].u_prio = 4;
    sim_gen g = {.g_load = 0.5,
                 .g_slots = 400,
                 .g_nodes = 100,
                 .g_tasks = 4,
                 .g_dist = {SIM_DIST_EXP, 1000, 1.5}};
    sim_src src;
    char err[256];
    tap_is_int(sim_src_gen(&src, &g, &names, 5, err, sizeof err), 0,
               "generator starts");
    enum { N = 40000 };
    double sum_dur = 0, sum_dur2 = 0;
    uint64_t n_b = 0, ntasks = 0;
    bool prio_ok = true;
    sk_time last = 0;
    for (int i = 0; i < N; i++) {
        sim_job *j;
        sim_src_next(&src, &j, err, sizeof err);
        for (uint32_t t = 0; t < j->j_ntasks; t++) {
            sum_dur += (double)j->j_dur[t];
            sum_dur2 += (double)j->j_dur[t] * (double)j->j_dur[t];
        }
        ntasks += j->j_ntasks;
        n_b += j->j_user == b;
        prio_ok &= j->j_prio == (j->j_user == b ? 4 : 0);
        last = j->j_arrival;
        sim_job_free(j);
    }
    sim_src_close(&src);
    /* Rate: load * slots / (tasks * mean) = 0.05 jobs per us: the mean
     * gap is 20 us, exponential, so the sum of N-1 gaps has standard
     * deviation 20 sqrt(N-1); allow 5 of them. */
    double want = 20.0 * (N - 1), sd = 20.0 * sqrt(N - 1.0);
    tap_ok(fabs((double)last - want) < 5 * sd,
           "arrivals at the offered load's rate (last %llu, want %.0f +- "
           "%.0f)",
           (unsigned long long)last, want, 5 * sd);
    double mean = sum_dur / (double)ntasks;
    double sdm =
        sqrt(sum_dur2 / (double)ntasks - mean * mean) / sqrt((double)ntasks);
    tap_ok(fabs(mean - 1000) < 5 * sdm,
           "exponential durations of mean %.1f "
           "(want 1000 +- %.1f)",
           mean, 5 * sdm);
    double share = (double)n_b / N, sds = sqrt(0.25 * 0.75 / N);
    tap_ok(fabs(share - 0.25) < 5 * sds && prio_ok,
           "users drawn by share (%.4f for 1/4), with their priority", share);

    /* Pareto 1.5 with mean 1000: scale 333.3, every draw above it; the
     * median is scale * 2^(1/1.5) = 529. */
    sk_rng rng;
    sk_rng_seed(&rng, 3);
    sim_dist d;
    sim_dist_parse("pareto:1.5:1000", 15, &d);
    uint64_t below = 0, above_scale = 1;
    for (int i = 0; i < N; i++) {
        uint64_t v = sim_dist_draw(&d, &rng);
        below += v <= 529;
        above_scale &= v >= 333;
    }
    double pb = (double)below / N, sdp = sqrt(0.25 / N);
    tap_ok(above_scale && fabs(pb - 0.5) < 5 * sdp,
           "Pareto(1.5) draws: none below the scale, half below the median "
           "(%.4f)",
           pb);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_histogram(void)
{
    sim_hist h;
    sim_hist_init(&h);
    for (uint64_t v = 1; v <= 1000; v++)
        sim_hist_add(&h, v);
    tap_ok(sim_hist_quantile(&h, 0.5) == 500 &&
               sim_hist_quantile(&h, 0.05) == 50 &&
               sim_hist_quantile(&h, 0.99) == 990 &&
               sim_hist_quantile(&h, 1.0) == 1000 && sim_hist_mean(&h) == 500.5,
           "values below 1,024 us: exact quantiles and mean");
    sim_hist_fini(&h);
    sim_hist_init(&h);
    sk_rng rng;
    sk_rng_seed(&rng, 11);
    enum { N = 100001 };
    uint64_t *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) {
        v[i] = 1000 + sk_rng_below(&rng, 1000000000);
        sim_hist_add(&h, v[i]);
    }
    qsort(v, N, sizeof *v, cmp_u64);
    bool ok = true;
    double worst = 0;
    static const double qs[] = {0.05, 0.5, 0.95, 0.99, 0.999};
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        uint64_t exact = v[(size_t)ceil(qs[k] * N) - 1];
        double got = sim_hist_quantile(&h, qs[k]);
        double rel = fabs(got - (double)exact) / (double)exact;
        worst = rel > worst ? rel : worst;
        ok &= rel <= 1.0 / 1024;
    }
    tap_ok(ok, "large values: quantiles within 1/1024 (worst %.2e)", worst);
    free(v);
    sim_hist_fini(&h);
}

int main(void)
{
    tap_timeout(30);
    tap_plan(37);
    if (mkdtemp(tmpdir) == NULL)
        tap_bail_out("mkdtemp failed");
    test_valid();
    test_invalid();
    test_constraints();
    test_generator();
    test_histogram();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_exit_status();
}
