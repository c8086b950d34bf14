/*
 * trace2jobs.c - skylark-trace2jobs: turn the Google cluster trace (2011)
 * into a skylark-sim job file (the rules are in sim_trace.h).
 *
 * Exit status: 0 converted; 1 a file could not be read or written; 2 bad
 * usage or a malformed trace line.
 */
#include "config.h"
#include "sim_trace.h"
#include "skylark.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: skylark-trace2jobs [OPTIONS] TRACE_DIR\n"
        "Write the jobs of the Google cluster trace 2011 in TRACE_DIR\n"
        "(job_events/ and task_events/, gzip CSV shards) as a skylark-sim job\n"
        "file, in arrival order, each job classified short or long.\n"
        "\n"
        "  -o, --out FILE           the job file (default: standard output)\n"
        "  --speedup F              divide arrivals and durations by F (>= 1,\n"
        "                           default 1; Firmament replays at 300)\n"
        "  --start-us US            trace time that becomes time 0 (default\n"
        "                           600000000: the window's start)\n"
        "  --long-priority P        long if a task has priority >= P (0..12,\n"
        "                           default 9: production; 12: never)\n"
        "  --long-class C           long if scheduling class >= C (0..4,\n"
        "                           default 2; 4: never)\n"
        "  --long-mean SECONDS      long if the mean task run is at least "
        "this\n"
        "                           long in trace time (default 7200; 0: "
        "never)\n"
        "  --present-short          jobs present at trace time 0 are not long\n"
        "                           for that reason alone\n"
        "  --max-shards N           read the first N shards of each table\n"
        "  --help, --version\n"
        "A task's duration is its last run (SCHEDULE to FINISH); runs cut "
        "short\n"
        "by EVICT, FAIL, KILL, LOST or the window's end, or begun before it,\n"
        "are written with '+'. Counts go to standard error.\n");
}

static int bad(const char *what)
{
    fprintf(stderr, "skylark-trace2jobs: %s\n(see --help)\n", what);
    return 2;
}

static bool num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    enum {
        O_SPEEDUP = 256,
        O_START,
        O_LPRIO,
        O_LCLASS,
        O_LMEAN,
        O_PRESENT,
        O_SHARDS,
        O_HELP,
        O_VERSION
    };
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"speedup", required_argument, NULL, O_SPEEDUP},
        {"start-us", required_argument, NULL, O_START},
        {"long-priority", required_argument, NULL, O_LPRIO},
        {"long-class", required_argument, NULL, O_LCLASS},
        {"long-mean", required_argument, NULL, O_LMEAN},
        {"present-short", no_argument, NULL, O_PRESENT},
        {"max-shards", required_argument, NULL, O_SHARDS},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    trace_opts o;
    trace_opts_init(&o);
    const char *out_path = NULL;
    double v;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out_path = optarg;
            break;
        case O_SPEEDUP:
            if (!num(optarg, 1, 1e9, &o.tc_speedup))
                return bad("--speedup must be a number >= 1");
            break;
        case O_START:
            if (!num(optarg, 0, 1e15, &v))
                return bad("--start-us must be a time in microseconds");
            o.tc_start = (uint64_t)v;
            break;
        case O_LPRIO:
            if (!num(optarg, 0, 12, &v) || v != floor(v))
                return bad("--long-priority must be in 0..12");
            o.tc_long_priority = (uint32_t)v;
            break;
        case O_LCLASS:
            if (!num(optarg, 0, 4, &v) || v != floor(v))
                return bad("--long-class must be in 0..4");
            o.tc_long_class = (uint32_t)v;
            break;
        case O_LMEAN:
            if (!num(optarg, 0, 1e9, &v))
                return bad("--long-mean must be seconds >= 0");
            o.tc_long_us = (uint64_t)(v * 1e6);
            break;
        case O_PRESENT:
            o.tc_present_long = false;
            break;
        case O_SHARDS:
            if (!num(optarg, 1, 1e6, &v) || v != floor(v))
                return bad("--max-shards must be a count >= 1");
            o.tc_max_shards = (uint32_t)v;
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        case O_VERSION:
            printf("skylark-trace2jobs %s\n", PACKAGE_VERSION);
            return 0;
        default:
            return bad("unknown option or missing value");
        }
    }
    if (optind + 1 != argc)
        return bad("expected one TRACE_DIR");
    o.tc_dir = argv[optind];
    FILE *out = stdout;
    if (out_path != NULL && strcmp(out_path, "-") != 0 &&
        (out = fopen(out_path, "w")) == NULL) {
        fprintf(stderr, "skylark-trace2jobs: %s: %s\n", out_path,
                strerror(errno));
        return 1;
    }
    trace_stats st;
    char err[600];
    int rc = trace_convert(&o, out, &st, err, sizeof err);
    int closed = out != stdout ? fclose(out) : fflush(out);
    if (rc != 0) {
        fprintf(stderr, "skylark-trace2jobs: %s\n", err);
        return rc == SK_EPROTO || rc == SK_EINVAL ? 2 : 1;
    }
    if (closed != 0) {
        fprintf(stderr, "skylark-trace2jobs: writing the job file failed\n");
        return 1;
    }
    fprintf(stderr,
            "skylark-trace2jobs: %" PRIu64 " job events, %" PRIu64
            " task events, window ends at %.1f s\n"
            "  jobs written %" PRIu64 ": short %" PRIu64 ", long %" PRIu64
            " (present at the start %" PRIu64 ", priority %" PRIu64
            ", class %" PRIu64 ", duration %" PRIu64 "); dropped (no task "
            "ran) %" PRIu64 "\n"
            "  tasks written %" PRIu64 ", of which cut short %" PRIu64
            "; never scheduled %" PRIu64 "\n",
            st.ts_job_events, st.ts_task_events, (double)st.ts_window_end / 1e6,
            st.ts_jobs, st.ts_jobs - st.ts_long, st.ts_long, st.ts_long_present,
            st.ts_long_priority, st.ts_long_class, st.ts_long_duration,
            st.ts_jobs_dropped, st.ts_tasks, st.ts_tasks_cut,
            st.ts_tasks_dropped);
    return 0;
}
