/*
 * test_sim_trace.c - the Google trace converter (sim/sim_trace.h) on a
 * small hand-written trace whose every job exercises one rule: arrival
 * and speed-up, the last run as a task's duration, runs cut short by
 * KILL or by the end of the window or begun before it, tasks never
 * scheduled left out, each condition of the long-job rule, priorities
 * mapped to Skylark's; a malformed line named by file and line; and, when
 * the shared data is there, the first shard of the real trace converts to
 * a job file the simulator reads back whole.
 */
#include "sim_trace.h"
#include "sim_work.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char tmpdir[] = "/tmp/test_sim_trace.XXXXXX";

static void put(const char *table, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, table);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/part-00000-of-00001.csv.gz", tmpdir,
             table);
    /* zlib reads a file without a gzip header as it is. */
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Times in seconds of trace time, written in microseconds. */
#define S(x) #x "000000"

static const char job_events[] =
    /* 1: present at time 0 */
    "0,,1,0,user-a,0,n,l\n"
    /* 2: short, class 1 */
    S(700) ",,2,0,user-b,1,n,l\n"
    /* 3: production priority */
    S(800) ",,3,0,user-a,0,n,l\n"
    /* 4: scheduling class 2 */
    S(900) ",,4,0,user-c,2,n,l\n"
    /* 5: long runs */
    S(1000) ",,5,0,user-b,0,n,l\n"
    /* 6: no task ever scheduled */
    S(1100) ",,6,0,user-b,0,n,l\n";

static const char task_events[] = "0,,1,0,5,1,user-a,0,2,,,,\n"
    /* job 2: task 0 finishes after 10 s; task 1 evicted, rescheduled,
     * finishes after 4 s; task 2 killed after 6 s; task 3 never runs;
     * task 4 still running at the end (window ends at 5000 s). */
    S(700) ",,2,0,,0,user-b,1,1,,,,\n" S(701) ",,2,0,7,1,user-b,1,1,,,,\n" S(711) ",,2,0,7,4,user-b,1,1,,,,\n" S(702) ",,2,1,8,1,user-b,1,1,,,,\n" S(703) ",,2,1,8,2,user-b,1,1,,,,\n" S(750) ",,2,1,9,1,user-b,1,1,,,,\n" S(
        754) ",,2,1,9,4,user-b,1,1,,,,\n" S(702) ",,2,2,3,1,user-b,1,1,,,,\n" S(708) ",,2,2,3,5,user-b,1,1,,,,\n" S(700) ",,2,3,,0,user-b,1,1,,,,\n" S(4990) ",,2,4,4,1,user-b,1,1,,,,\n" S(801) ",,3,0,1,1,user-a,0,9,,,,\n" S(802) ",,3,0,1,4,user-a,0,9,,,,\n" S(901) ",,4,0,1,1,user-c,2,0,,,,\n" S(902) ",,4,0,1,4,user-c,2,0,,,,\n" S(1001) ",,5,0,1,1,user-b,0,0,,,,\n" S(4900) ",,5,0,1,4,user-b,0,0,,,,\n" S(1100) ",,6,0,,0,user-b,0,0,,,,\n" S(5000) ",,6,0,,5,user-b,0,0,,,,\n";

static void test_rules(void)
{
    put("job_events", job_events);
    put("task_events", task_events);
    trace_opts o;
    trace_opts_init(&o);
    o.tc_dir = tmpdir;
    o.tc_speedup = 10;
    o.tc_long_us = 3000ull * 1000000; /* job 5's 3899 s run is long */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    trace_stats st;
    char err[600] = "";
    int rc = trace_convert(&o, out, &st, err, sizeof err);
    fclose(out);
    tap_ok(rc == 0, "the trace converts (%s)", err);
    tap_ok(st.ts_jobs == 5 && st.ts_jobs_dropped == 1 &&
               st.ts_tasks_dropped == 2 && st.ts_tasks == 8 &&
               st.ts_window_end == 5000000000ull,
           "5 jobs and 8 tasks written; job 6 and 2 tasks never scheduled "
           "left out; the window ends at 5000 s");
    tap_ok(st.ts_long == 4 && st.ts_long_present == 1 &&
               st.ts_long_priority == 1 && st.ts_long_class == 1 &&
               st.ts_long_duration == 1,
           "one long job by each condition: present, priority, class, "
           "duration");
    /* Read the file back as the simulator does. */
    char path[512];
    snprintf(path, sizeof path, "%s/out.jobs", tmpdir);
    FILE *f = fopen(path, "w");
    fwrite(text, 1, len, f);
    fclose(f);
    static sim_names names;
    sim_src src;
    sim_src_file(&src, path, &names, 10, 1, err, sizeof err);
    sim_job *j[5] = {NULL};
    int n = 0;
    while (n < 5 && sim_src_next(&src, &j[n], err, sizeof err) == 1)
        n++;
    sim_src_close(&src);
    tap_ok(n == 5, "the simulator reads every job back (%s)", err);
    if (n < 5) {
        tap_skip(4, "jobs missing");
    } else {
        /* Arrivals: (t - 600 s) / 10; job 1 was there at time 0. */
        tap_ok(j[0]->j_id == 1 && j[0]->j_arrival == 0 && j[0]->j_long &&
                   j[1]->j_id == 2 && j[1]->j_arrival == 10000000 &&
                   j[4]->j_id == 5 && j[4]->j_arrival == 40000000,
               "arrivals in order, shifted by the window's start and sped "
               "up 10x");
        const sim_job *b = j[1];
        tap_ok(!b->j_long && b->j_ntasks == 4 && b->j_dur[0] == 1000000 &&
                   b->j_dur[1] == 400000 && b->j_dur[2] == 600000 &&
                   b->j_dur[3] == 1000000 && b->j_cut != NULL && !b->j_cut[0] &&
                   !b->j_cut[1] && b->j_cut[2] && b->j_cut[3],
               "job 2: durations are last runs (10 s, 4 s), a killed run "
               "(6 s) and one running at the end (10 s) cut short, at 1/10");
        tap_ok(j[0]->j_cut != NULL && j[0]->j_cut[0] && j[0]->j_ntasks == 1,
               "a run that began before the window counts as cut short");
        tap_ok(j[0]->j_prio == 6 && b->j_prio == 7 && j[2]->j_prio == 1 &&
                   strcmp(names.n_users[j[0]->j_user].u_name, "u1") == 0 &&
                   strcmp(names.n_users[b->j_user].u_name, "u2") == 0,
               "priorities 2, 1, 9 become 6, 7, 1; users renamed in order");
    }
    for (int i = 0; i < n; i++)
        sim_job_free(j[i]);
    free(text);

    put("task_events", "1,,2,0,7,1,user-b,1,1,,,,\n1,,2,0,7,x,user-b,1,,,,,\n");
    out = open_memstream(&text, &len);
    rc = trace_convert(&o, out, &st, err, sizeof err);
    fclose(out);
    free(text);
    tap_ok(rc == SK_EPROTO && strstr(err, "part-00000-of-00001.csv.gz:2: "
                                          "event_type") != NULL,
           "a malformed line is named: %s", err);
}

static void test_real_trace(void)
{
    const char *data = getenv("SHARED_DATA_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/google-2011", data ? data : "");
    struct stat sb;
    if (data == NULL || stat(dir, &sb) != 0) {
        tap_skip(2, "no shared data (SHARED_DATA_DIR/google-2011)");
        return;
    }
    trace_opts o;
    trace_opts_init(&o);
    o.tc_dir = dir;
    o.tc_speedup = 300;
    o.tc_max_shards = 1;
    char path[512];
    snprintf(path, sizeof path, "%s/google.jobs", tmpdir);
    FILE *out = fopen(path, "w");
    trace_stats st;
    char err[600] = "";
    int rc = trace_convert(&o, out, &st, err, sizeof err);
    fclose(out);
    tap_ok(rc == 0 && st.ts_jobs > 1000 && st.ts_long > 0 &&
               st.ts_long < st.ts_jobs,
           "the first shard of the Google trace converts: %llu jobs, %llu "
           "long (%s)",
           (unsigned long long)st.ts_jobs, (unsigned long long)st.ts_long, err);
    static sim_names names;
    sim_src src;
    sim_src_file(&src, path, &names, 12500, 1, err, sizeof err);
    uint64_t jobs = 0, tasks = 0;
    sim_job *j;
    while (sim_src_next(&src, &j, err, sizeof err) == 1) {
        jobs++;
        tasks += j->j_ntasks;
        sim_job_free(j);
    }
    sim_src_close(&src);
    tap_ok(jobs == st.ts_jobs && tasks == st.ts_tasks,
           "the simulator reads all %llu jobs and %llu tasks back",
           (unsigned long long)jobs, (unsigned long long)tasks);
}

int main(void)
{
    tap_timeout(60);
    tap_plan(11);
    if (mkdtemp(tmpdir) == NULL)
        tap_bail_out("mkdtemp failed");
    test_rules();
    test_real_trace();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_exit_status();
}
