/*
 * sim_main.c - the skylark-sim command: options, sweeps over lists of
 * values, and the outputs of each point (see `skylark-sim --help` and
 * docs/results/sparrow.md).
 *
 * Exit status: 0 every point ran; 1 a run failed (a core emitted a
 * message the protocol rejects, an invariant broke, out of memory, an
 * output could not be written); 2 bad usage or input (an option, the job
 * file).
 */
#include "config.h"
#include "sim.h"
#include "sim_flow.h"
#include "sim_par.h"
#include "sim_plot.h"
#include "sim_report.h"

#include "nm_config.h"
#include "flowcore.h"
#include "sched_core.h"
#include "sk_config.h"
#include "sk_log.h"
#include "skylark.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LIST 64

/* A list-valued option: every value is one more set of points. */
typedef struct list {
    double l_v[MAX_LIST];
    uint32_t l_n;
} list;

typedef struct options {
    sim_params base;
    sim_names names;
    list strategies, ratios, loads, dists, slots, mixes;
    uint64_t total_slots;
    bool jobs_set, warmup_set;
    const char *jobs_out, *tasks_out, *write_jobs, *summary_csv, *plot_dir;
    const char *rounds_out;
    const char *generate, *title;
    bool quiet, no_progress;
} options;

static const char *prog = "skylark-sim";

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: %s [OPTIONS]\n"
        "Simulate a cluster scheduled by Skylark's real cores (late-binding)\n"
        "or by models of other strategies, in virtual time; print a summary\n"
        "per point. Options marked [list] take comma-separated values: one\n"
        "point is run for every combination.\n"
        "\n"
        "Cluster:\n"
        "  --nodes N               nodes (default 100)\n"
        "  --slots S               [list] slots per node (default 4)\n"
        "  --total-slots T         keep nodes x slots = T as --slots varies\n"
        "  --schedulers K          schedulers, jobs round-robin (default 1)\n"
        "  --node-label NAME:SHARE put label NAME on SHARE of the nodes\n"
        "Strategy:\n"
        "  --strategy NAME         [list] random, per-task, batch,\n"
        "                          late-binding (the real cores), omniscient\n"
        "                          (default late-binding)\n"
        "  --probe-ratio D         [list] probes per task d (default 2)\n"
        "Long jobs and the flow path (late-binding):\n"
        "  --mix NAME              [list] skip (long jobs counted, not run;\n"
        "                          the default), sampling (long jobs sampled\n"
        "                          too), flow (every job by the flow node),\n"
        "                          hawk (long jobs by a central greedy\n"
        "                          placer, a short-only partition), hybrid\n"
        "                          (long jobs by the flow node, saturated\n"
        "                          nodes not probed), greedy (every job by\n"
        "                          a central locality-first placer)\n"
        "  --flow-policy NAME      quincy, spread or multires (quincy)\n"
        "  --flow-fair             quincy: no job over its fair share\n"
        "  --flow-preemption       the flow node may stop placed tasks\n"
        "  --flow-algorithm NAME   ssp, cost-scaling, relax or race (race\n"
        "                          when measured, else relax)\n"
        "  --relax-budget N        relax: after N units of its work per arc\n"
        "                          a round goes on by cost scaling (0: no\n"
        "                          limit; the flow node's relax_budget)\n"
        "  --solve-time MODE       work (a model of the solver's work:\n"
        "                          deterministic, the default), measured (the\n"
        "                          solve's wall time) or zero\n"
        "  --long-share X          share of each node's slots long tasks may\n"
        "                          hold (0.75)\n"
        "  --fast-fallback         hybrid: the flow node places fallback "
        "short\n"
        "                          work at once where a slot is free, not\n"
        "                          only in its rounds\n"
        "  --cx-wait TIME          the flow node's cx_wait_ms: how long a\n"
        "                          constrained task waits for a place that\n"
        "                          breaks no soft constraint (flowd's 10s)\n"
        "  --short-partition X     hawk: share of nodes for short jobs only\n"
        "                          (0.17)\n"
        "  --racks K               the flow node sees K racks of consecutive\n"
        "                          nodes (0: none, the default)\n"
        "Racks and data locality (one thread):\n"
        "  --rack-size N           N nodes per rack (default 0: no racks);\n"
        "                          a task prefers its preferred nodes' racks\n"
        "  --remote-read RACK:CROSS  a task's extra run time off its\n"
        "                          preferred nodes, in a preferred rack or\n"
        "                          across racks (default 0:0)\n"
        "  --hide-prefs            placers do not see the preferences\n"
        "                          (still measured and charged)\n"
        "  (--mix greedy: every job by a central locality-first placer)\n"
        "Network:\n"
        "  --delay TIME            one-way delay node <-> scheduler (0.5ms)\n"
        "  --delay-dist KIND       fixed, uniform (mean/2..3mean/2) or exp\n"
        "  --fe-delay TIME         frontend <-> scheduler, fixed (default 0)\n"
        "Workload (generated: Poisson arrivals at the offered load):\n"
        "  --load RHO              [list] offered load (default 0.8)\n"
        "  --tasks M               tasks per job (default 10)\n"
        "  --dist NAME             [list] const, exp, pareto (shape 1.5)\n"
        "  --task-mean TIME        mean task duration (default 100ms)\n"
        "  --user NAME[:W[:S[:P]]] a user with fair-share weight W, share S\n"
        "                          of the jobs, priority P (repeatable)\n"
        "  --job-label NAME:SHARE  SHARE of the jobs need label NAME\n"
        "  --preferred K:SHARE     SHARE of the jobs have tasks preferring K\n"
        "                          random nodes each\n"
        "  --jobs-file FILE        replay a job file (sim/sim_work.h) "
        "instead\n"
        "  --jobs N                measured jobs (default 1000; with a file:\n"
        "                          0, all of them)\n"
        "  --warmup N              jobs before them, not measured (default:\n"
        "                          those arriving in 10 mean task durations,\n"
        "                          at least 100; with a file: 0)\n"
        "  --drain                 after the measured jobs, no arrivals; run\n"
        "                          until every job is done\n"
        "  --seed N                (default 1)\n"
        "  --generate FILE         write the generator's warm-up and measured\n"
        "                          jobs to FILE as a job file, and stop\n"
        "The real cores:\n"
        "  --config FILE           [sched] and [nodemon] settings (INI)\n"
        "  --set SECTION.KEY=VAL   one setting (ids, names, slots, resources\n"
        "                          and the probe ratio are the simulator's)\n"
        "  --wire                  every message through the protocol codec\n"
        "  --check                 check invariants after every event (slow;\n"
        "                          one thread)\n"
        "  --threads N             threads of a late-binding run over a\n"
        "                          fixed or uniform delay (default: one\n"
        "                          per CPU from 2,000 nodes, else one); the\n"
        "                          output is the same for any N\n"
        "Output:\n"
        "  --jobs-out FILE         per-job CSV (one point only)\n"
        "  --tasks-out FILE        per-task CSV (one point only)\n"
        "  --write-jobs FILE       the jobs as they arrive, as a job file\n"
        "  --summary-csv FILE      one CSV row per point\n"
        "  --rounds-out FILE       one CSV row per flow round (one point)\n"
        "  --plot DIR              gnuplot figures (PNG and SVG) with data\n"
        "  --title TEXT            the figures' title\n"
        "  --quiet                 no summary on standard output\n"
        "  --no-progress           no progress line on a terminal\n"
        "  --help, --version\n"
        "TIME is a number with us, ms or s (no unit: ms). Exit status: 0 ok,\n"
        "1 a run failed, 2 bad usage or input.\n",
        prog);
}

static int bad_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see %s --help)\n", prog);
    return 2;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return false;
    *out = v;
    return true;
}

/* parse_time reads "500us", "0.5ms", "2s" or "100" (ms) into us. */
static bool parse_time(const char *s, sk_time *out)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    double scale = 1000;
    if (n > 2 && strcmp(buf + n - 2, "us") == 0) {
        scale = 1;
        buf[n - 2] = '\0';
    } else if (n > 2 && strcmp(buf + n - 2, "ms") == 0) {
        buf[n - 2] = '\0';
    } else if (n > 1 && buf[n - 1] == 's') {
        scale = 1e6;
        buf[n - 1] = '\0';
    }
    double v;
    if (!parse_double(buf, &v) || v < 0 || v * scale > 1e15)
        return false;
    *out = (sk_time)llround(v * scale);
    return true;
}

/* parse_list splits a comma-separated list, each item through item(). */
static bool parse_list(const char *text, list *l,
                       bool (*item)(const char *, double *))
{
    char buf[1024];
    if (strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    l->l_n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (l->l_n == MAX_LIST || !item(tok, &l->l_v[l->l_n]))
            return false;
        l->l_n++;
    }
    return l->l_n > 0;
}

static bool item_number(const char *s, double *v)
{
    return parse_double(s, v);
}

static bool item_strategy(const char *s, double *v)
{
    sim_strategy_id id;
    if (sim_strategy_parse(s, &id) != 0)
        return false;
    *v = id;
    return true;
}

static bool item_mix(const char *s, double *v)
{
    sim_mix m;
    if (sim_mix_parse(s, &m) != 0)
        return false;
    *v = m;
    return true;
}

static bool item_dist(const char *s, double *v)
{
    if (strcmp(s, "const") == 0)
        *v = SIM_DIST_CONST;
    else if (strcmp(s, "exp") == 0)
        *v = SIM_DIST_EXP;
    else if (strcmp(s, "pareto") == 0)
        *v = SIM_DIST_PARETO;
    else
        return false;
    return true;
}

/* split_share reads "NAME:SHARE" with SHARE in [0, 1]. */
static bool split_share(const char *arg, char *name, size_t len, double *share)
{
    const char *colon = strrchr(arg, ':');
    if (colon == NULL || (size_t)(colon - arg) >= len || colon == arg)
        return false;
    memcpy(name, arg, (size_t)(colon - arg));
    name[colon - arg] = '\0';
    return parse_double(colon + 1, share) && *share >= 0 && *share <= 1;
}

static int parse_user(options *o, const char *arg)
{
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return bad_usage("--user %s: too long", arg);
    strcpy(buf, arg);
    char *save = NULL, *name = strtok_r(buf, ":", &save);
    char *w = strtok_r(NULL, ":", &save), *sh = strtok_r(NULL, ":", &save);
    char *pr = strtok_r(NULL, ":", &save);
    uint32_t idx;
    if (name == NULL ||
        sim_names_user(&o->names, name, strlen(name), &idx) != 0)
        return bad_usage("--user %s: the name must be 1..64 of "
                         "[A-Za-z0-9_.-]",
                         arg);
    sim_user *u = &o->names.n_users[idx];
    uint64_t v;
    double d;
    u->u_share = 1;
    if (w != NULL) {
        if (!parse_u64(w, &v) || v < 1 || v > NM_MAX_WEIGHT)
            return bad_usage("--user %s: weight must be in 1..%u", arg,
                             NM_MAX_WEIGHT);
        u->u_weight = (uint32_t)v;
    }
    if (sh != NULL) {
        if (!parse_double(sh, &d) || d < 0)
            return bad_usage("--user %s: share must be >= 0", arg);
        u->u_share = d;
    }
    if (pr != NULL) {
        if (!parse_u64(pr, &v) || v >= SK_PRIORITIES)
            return bad_usage("--user %s: priority must be in 0..7", arg);
        u->u_prio = (uint8_t)v;
    }
    if (strtok_r(NULL, ":", &save) != NULL)
        return bad_usage("--user %s: expected NAME[:WEIGHT[:SHARE[:PRIO]]]",
                         arg);
    return 0;
}

/* The [sched] and [nodemon] keys of the cores, for --config and --set. */
typedef struct core_keys {
    sk_config_key k[SCHED_CONFIG_NKEYS + NM_CONFIG_NKEYS];
    size_t n;
} core_keys;

static void core_keys_init(core_keys *ck, sim_params *p)
{
    sched_config_keys(&p->p_sched, ck->k);
    ck->n = SCHED_CONFIG_NKEYS;
    ck->n += nm_config_keys(&p->p_nm, &p->p_weights, ck->k + ck->n);
}

enum {
    O_NODES = 256,
    O_SLOTS,
    O_TOTAL_SLOTS,
    O_SCHEDS,
    O_NODE_LABEL,
    O_STRATEGY,
    O_RATIO,
    O_MIX,
    O_FLOW_POLICY,
    O_FLOW_FAIR,
    O_FLOW_PREEMPT,
    O_FLOW_ALG,
    O_RELAX_BUDGET,
    O_SOLVE_TIME,
    O_LONG_SHARE,
    O_SHORT_PART,
    O_RACKS,
    O_RACK_SIZE,
    O_REMOTE_READ,
    O_HIDE_PREFS,
    O_FAST_FALLBACK,
    O_CX_WAIT,
    O_ROUNDS_OUT,
    O_DELAY,
    O_DELAY_DIST,
    O_FE_DELAY,
    O_LOAD,
    O_TASKS,
    O_DIST,
    O_TASK_MEAN,
    O_USER,
    O_JOB_LABEL,
    O_PREFERRED,
    O_JOBS_FILE,
    O_JOBS,
    O_WARMUP,
    O_DRAIN,
    O_SEED,
    O_GENERATE,
    O_CONFIG,
    O_SET,
    O_WIRE,
    O_CHECK,
    O_THREADS,
    O_JOBS_OUT,
    O_TASKS_OUT,
    O_WRITE_JOBS,
    O_SUMMARY_CSV,
    O_PLOT,
    O_TITLE,
    O_QUIET,
    O_NO_PROGRESS,
    O_HELP,
    O_VERSION,
};

static const struct option long_opts[] = {
    {"nodes", required_argument, NULL, O_NODES},
    {"slots", required_argument, NULL, O_SLOTS},
    {"total-slots", required_argument, NULL, O_TOTAL_SLOTS},
    {"schedulers", required_argument, NULL, O_SCHEDS},
    {"node-label", required_argument, NULL, O_NODE_LABEL},
    {"strategy", required_argument, NULL, O_STRATEGY},
    {"probe-ratio", required_argument, NULL, O_RATIO},
    {"mix", required_argument, NULL, O_MIX},
    {"flow-policy", required_argument, NULL, O_FLOW_POLICY},
    {"flow-fair", no_argument, NULL, O_FLOW_FAIR},
    {"flow-preemption", no_argument, NULL, O_FLOW_PREEMPT},
    {"flow-algorithm", required_argument, NULL, O_FLOW_ALG},
    {"relax-budget", required_argument, NULL, O_RELAX_BUDGET},
    {"solve-time", required_argument, NULL, O_SOLVE_TIME},
    {"long-share", required_argument, NULL, O_LONG_SHARE},
    {"short-partition", required_argument, NULL, O_SHORT_PART},
    {"racks", required_argument, NULL, O_RACKS},
    {"rack-size", required_argument, NULL, O_RACK_SIZE},
    {"remote-read", required_argument, NULL, O_REMOTE_READ},
    {"hide-prefs", no_argument, NULL, O_HIDE_PREFS},
    {"fast-fallback", no_argument, NULL, O_FAST_FALLBACK},
    {"cx-wait", required_argument, NULL, O_CX_WAIT},
    {"rounds-out", required_argument, NULL, O_ROUNDS_OUT},
    {"delay", required_argument, NULL, O_DELAY},
    {"delay-dist", required_argument, NULL, O_DELAY_DIST},
    {"fe-delay", required_argument, NULL, O_FE_DELAY},
    {"load", required_argument, NULL, O_LOAD},
    {"tasks", required_argument, NULL, O_TASKS},
    {"dist", required_argument, NULL, O_DIST},
    {"task-mean", required_argument, NULL, O_TASK_MEAN},
    {"user", required_argument, NULL, O_USER},
    {"job-label", required_argument, NULL, O_JOB_LABEL},
    {"preferred", required_argument, NULL, O_PREFERRED},
    {"jobs-file", required_argument, NULL, O_JOBS_FILE},
    {"jobs", required_argument, NULL, O_JOBS},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"drain", no_argument, NULL, O_DRAIN},
    {"seed", required_argument, NULL, O_SEED},
    {"generate", required_argument, NULL, O_GENERATE},
    {"config", required_argument, NULL, O_CONFIG},
    {"set", required_argument, NULL, O_SET},
    {"wire", no_argument, NULL, O_WIRE},
    {"check", no_argument, NULL, O_CHECK},
    {"threads", required_argument, NULL, O_THREADS},
    {"jobs-out", required_argument, NULL, O_JOBS_OUT},
    {"tasks-out", required_argument, NULL, O_TASKS_OUT},
    {"write-jobs", required_argument, NULL, O_WRITE_JOBS},
    {"summary-csv", required_argument, NULL, O_SUMMARY_CSV},
    {"plot", required_argument, NULL, O_PLOT},
    {"title", required_argument, NULL, O_TITLE},
    {"quiet", no_argument, NULL, O_QUIET},
    {"no-progress", no_argument, NULL, O_NO_PROGRESS},
    {"help", no_argument, NULL, O_HELP},
    {"version", no_argument, NULL, O_VERSION},
    {NULL, 0, NULL, 0},
};

/* parse_options fills o; returns -1 to go on, or an exit status. */
static int parse_options(options *o, int argc, char **argv)
{
    sim_params *p = &o->base;
    core_keys ck;
    core_keys_init(&ck, p);
    char err[512];
    uint64_t v;
    double d;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case O_NODES:
            if (!parse_u64(a, &v) || v < 1 || v > SIM_MAX_NODES)
                return bad_usage("--nodes must be in 1..%u", SIM_MAX_NODES);
            p->p_nodes = (uint32_t)v;
            break;
        case O_SLOTS:
            if (!parse_list(a, &o->slots, item_number))
                return bad_usage("--slots: expected numbers, got '%s'", a);
            break;
        case O_TOTAL_SLOTS:
            if (!parse_u64(a, &v) || v < 1)
                return bad_usage("--total-slots must be >= 1");
            o->total_slots = v;
            break;
        case O_SCHEDS:
            if (!parse_u64(a, &v) || v < 1 || v > SIM_MAX_SCHEDS)
                return bad_usage("--schedulers must be in 1..%u",
                                 SIM_MAX_SCHEDS);
            p->p_scheds = (uint32_t)v;
            break;
        case O_NODE_LABEL:
        case O_JOB_LABEL: {
            char name[SIM_LABEL_MAX + 1];
            uint32_t idx;
            if (!split_share(a, name, sizeof name, &d) ||
                sim_names_label(&o->names, name, strlen(name), &idx) != 0)
                return bad_usage(
                    "%s %s: expected NAME:SHARE, SHARE in "
                    "[0, 1]",
                    c == O_NODE_LABEL ? "--node-label" : "--job-label", a);
            if (c == O_NODE_LABEL) {
                if (p->p_nnode_labels == SIM_NODE_LABEL_SPECS)
                    return bad_usage("--node-label: at most %u",
                                     SIM_NODE_LABEL_SPECS);
                p->p_node_label[p->p_nnode_labels] = idx;
                p->p_node_label_share[p->p_nnode_labels++] = d;
            } else {
                if (p->p_gen.g_nlabel_reqs == SIM_JOB_LABELS)
                    return bad_usage("--job-label: at most %u", SIM_JOB_LABELS);
                p->p_gen.g_label[p->p_gen.g_nlabel_reqs] = idx;
                p->p_gen.g_label_share[p->p_gen.g_nlabel_reqs++] = d;
            }
            break;
        }
        case O_STRATEGY:
            if (!parse_list(a, &o->strategies, item_strategy))
                return bad_usage("--strategy: expected random, per-task, "
                                 "batch, late-binding or omniscient, got "
                                 "'%s'",
                                 a);
            break;
        case O_RATIO:
            if (!parse_list(a, &o->ratios, item_number))
                return bad_usage("--probe-ratio: expected numbers, got '%s'",
                                 a);
            for (uint32_t i = 0; i < o->ratios.l_n; i++)
                if (!(o->ratios.l_v[i] >= 1 && o->ratios.l_v[i] <= 64))
                    return bad_usage("--probe-ratio must be in [1, 64]");
            break;
        case O_MIX:
            if (!parse_list(a, &o->mixes, item_mix))
                return bad_usage("--mix: expected skip, sampling, flow, hawk "
                                 "or hybrid, got '%s'",
                                 a);
            break;
        case O_FLOW_POLICY:
            if (strcmp(a, "quincy") != 0 && strcmp(a, "spread") != 0 &&
                strcmp(a, "multires") != 0)
                return bad_usage("--flow-policy: quincy, spread or multires");
            snprintf(p->p_flow_policy, sizeof p->p_flow_policy, "%s", a);
            break;
        case O_FLOW_FAIR:
            p->p_flow_fair = true;
            break;
        case O_FLOW_PREEMPT:
            p->p_flow_preempt = true;
            break;
        case O_FLOW_ALG: {
            fc_algorithm alg;
            if (fc_algorithm_parse(a, &alg) != 0)
                return bad_usage("--flow-algorithm: ssp, cost-scaling, relax "
                                 "or race");
            p->p_flow_algorithm = (int)alg;
            break;
        }
        case O_RELAX_BUDGET:
            if (!parse_u64(a, &v) || v > 1000000000)
                return bad_usage("--relax-budget must be in 0..1000000000");
            p->p_relax_budget = (int64_t)v;
            break;
        case O_SOLVE_TIME:
            if (strcmp(a, "work") == 0)
                p->p_solve_time = SIM_SOLVE_WORK;
            else if (strcmp(a, "measured") == 0)
                p->p_solve_time = SIM_SOLVE_MEASURED;
            else if (strcmp(a, "zero") == 0)
                p->p_solve_time = SIM_SOLVE_ZERO;
            else
                return bad_usage("--solve-time: work, measured or zero");
            break;
        case O_LONG_SHARE:
            if (!parse_double(a, &d) || !(d > 0 && d <= 1))
                return bad_usage("--long-share must be in (0, 1]");
            p->p_long_share = d;
            break;
        case O_RACKS:
            if (!parse_u64(a, &v) || v > SIM_MAX_NODES)
                return bad_usage("--racks must be in 0..%u", SIM_MAX_NODES);
            p->p_racks = (uint32_t)v;
            break;
        case O_SHORT_PART:
            if (!parse_double(a, &d) || !(d >= 0 && d < 1))
                return bad_usage("--short-partition must be in [0, 1)");
            p->p_short_part = d;
            break;
        case O_RACK_SIZE:
            if (!parse_u64(a, &v) || v < 1 || v > SIM_MAX_NODES)
                return bad_usage("--rack-size must be in 1..%u", SIM_MAX_NODES);
            p->p_rack_size = (uint32_t)v;
            break;
        case O_REMOTE_READ: {
            char rack[32];
            const char *colon = strchr(a, ':');
            if (colon == NULL || (size_t)(colon - a) >= sizeof rack)
                return bad_usage("--remote-read: expected RACK:CROSS times");
            memcpy(rack, a, (size_t)(colon - a));
            rack[colon - a] = '\0';
            if (!parse_time(rack, &p->p_remote_rack) ||
                !parse_time(colon + 1, &p->p_remote_cross))
                return bad_usage("--remote-read: expected RACK:CROSS times");
            break;
        }
        case O_HIDE_PREFS:
            p->p_hide_prefs = true;
            break;
        case O_FAST_FALLBACK:
            p->p_fast_fallback = true;
            break;
        case O_CX_WAIT:
            if (!parse_time(a, &p->p_cx_wait) || p->p_cx_wait > 3600000000LL)
                return bad_usage("--cx-wait: expected a time up to 1 h, got "
                                 "'%s'",
                                 a);
            p->p_cx_wait_set = true;
            break;
        case O_ROUNDS_OUT:
            o->rounds_out = a;
            break;
        case O_DELAY:
            if (!parse_time(a, &p->p_delay))
                return bad_usage("--delay: expected a time, got '%s'", a);
            break;
        case O_DELAY_DIST:
            if (strcmp(a, "fixed") == 0)
                p->p_delay_kind = SIM_DELAY_FIXED;
            else if (strcmp(a, "uniform") == 0)
                p->p_delay_kind = SIM_DELAY_UNIFORM;
            else if (strcmp(a, "exp") == 0)
                p->p_delay_kind = SIM_DELAY_EXP;
            else
                return bad_usage("--delay-dist: fixed, uniform or exp");
            break;
        case O_FE_DELAY:
            if (!parse_time(a, &p->p_fe_delay))
                return bad_usage("--fe-delay: expected a time, got '%s'", a);
            break;
        case O_LOAD:
            if (!parse_list(a, &o->loads, item_number))
                return bad_usage("--load: expected numbers, got '%s'", a);
            for (uint32_t i = 0; i < o->loads.l_n; i++)
                if (!(o->loads.l_v[i] > 0 && o->loads.l_v[i] <= 100))
                    return bad_usage("--load must be in (0, 100]");
            break;
        case O_TASKS:
            if (!parse_u64(a, &v) || v < 1 || v > SK_MAX_TASKS)
                return bad_usage("--tasks must be in 1..%u", SK_MAX_TASKS);
            p->p_gen.g_tasks = (uint32_t)v;
            break;
        case O_DIST:
            if (!parse_list(a, &o->dists, item_dist))
                return bad_usage("--dist: const, exp or pareto");
            break;
        case O_TASK_MEAN: {
            sk_time t;
            if (!parse_time(a, &t) || t < 1 || t > SIM_MAX_DURATION)
                return bad_usage("--task-mean: expected a time >= 1us");
            p->p_gen.g_dist.d_mean = (double)t;
            break;
        }
        case O_USER: {
            int rc = parse_user(o, a);
            if (rc != 0)
                return rc;
            break;
        }
        case O_PREFERRED: {
            char k[16];
            if (!split_share(a, k, sizeof k, &d) || !parse_u64(k, &v) ||
                v < 1 || v > SK_MAX_PREFERRED)
                return bad_usage("--preferred: expected K:SHARE, K in 1..16");
            p->p_gen.g_pref_count = (uint32_t)v;
            p->p_gen.g_pref_share = d;
            break;
        }
        case O_JOBS_FILE:
            p->p_jobs_file = a;
            break;
        case O_JOBS:
            if (!parse_u64(a, &p->p_jobs))
                return bad_usage("--jobs: expected a count");
            o->jobs_set = true;
            break;
        case O_WARMUP:
            if (!parse_u64(a, &p->p_warmup))
                return bad_usage("--warmup: expected a count");
            o->warmup_set = true;
            break;
        case O_DRAIN:
            p->p_drain = true;
            break;
        case O_SEED:
            if (!parse_u64(a, &p->p_seed))
                return bad_usage("--seed: expected an unsigned integer");
            break;
        case O_GENERATE:
            o->generate = a;
            break;
        case O_CONFIG:
            if (sk_config_load(ck.k, ck.n, a, err, sizeof err) != 0)
                return bad_usage("--config: %s", err);
            break;
        case O_SET:
            if (sk_config_apply_assignment(ck.k, ck.n, a, err, sizeof err))
                return bad_usage("--set: %s", err);
            break;
        case O_WIRE:
            p->p_wire = true;
            break;
        case O_CHECK:
            p->p_check = true;
            break;
        case O_THREADS:
            if (!parse_u64(a, &v) || v < 1 || v > SIM_PAR_MAX_THREADS)
                return bad_usage("--threads must be in 1..%u",
                                 SIM_PAR_MAX_THREADS);
            p->p_threads = (uint32_t)v;
            break;
        case O_JOBS_OUT:
            o->jobs_out = a;
            break;
        case O_TASKS_OUT:
            o->tasks_out = a;
            break;
        case O_WRITE_JOBS:
            o->write_jobs = a;
            break;
        case O_SUMMARY_CSV:
            o->summary_csv = a;
            break;
        case O_PLOT:
            o->plot_dir = a;
            break;
        case O_TITLE:
            o->title = a;
            break;
        case O_QUIET:
            o->quiet = true;
            break;
        case O_NO_PROGRESS:
            o->no_progress = true;
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        case O_VERSION:
            printf("skylark-sim %s\n", PACKAGE_VERSION);
            return 0;
        default:
            return bad_usage("unknown option or missing value: %s",
                             argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s'", argv[optind]);
    return -1;
}

/* open_out opens an output file ("-": standard output). */
static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    if (f == NULL)
        return 0;
    int bad = ferror(f);
    if (f != stdout)
        bad |= fclose(f);
    else
        bad |= fflush(f);
    if (bad) {
        fprintf(stderr, "%s: %s: write failed\n", prog, path);
        return 1;
    }
    return 0;
}

/* generate writes the generator's jobs to a job file. */
static int generate(options *o)
{
    sim_params *p = &o->base;
    sim_gen g = p->p_gen;
    g.g_load = o->loads.l_v[0];
    g.g_dist.d_kind = (sim_dist_kind)o->dists.l_v[0];
    uint32_t slots = (uint32_t)o->slots.l_v[0];
    g.g_slots = (uint64_t)p->p_nodes * slots;
    g.g_nodes = p->p_nodes;
    sim_src src;
    char err[512];
    /* The workload seed of a run with these parameters: the file replays
     * the jobs that run would see. */
    if (sim_src_gen(&src, &g, &o->names, sim_work_seed(p->p_seed), err,
                    sizeof err) != 0)
        return bad_usage("%s", err);
    FILE *f = open_out(o->generate);
    if (f == NULL)
        return 1;
    char comment[256];
    snprintf(comment, sizeof comment,
             "generated: load %g on %u x %u slots, %u-task jobs, %s %g us, "
             "seed %llu",
             g.g_load, p->p_nodes, slots, g.g_tasks,
             sim_dist_name(g.g_dist.d_kind), g.g_dist.d_mean,
             (unsigned long long)p->p_seed);
    sim_jobs_header(f, comment);
    for (uint64_t i = 0; i < p->p_warmup + p->p_jobs; i++) {
        sim_job *j;
        if (sim_src_next(&src, &j, err, sizeof err) != 1) {
            fprintf(stderr, "%s: %s\n", prog, err);
            fclose(f);
            return 1;
        }
        sim_job_write(f, j, &o->names);
        sim_job_free(j);
    }
    sim_src_close(&src);
    return close_out(f, o->generate);
}

static void set_default_list(list *l, double v)
{
    if (l->l_n == 0) {
        l->l_v[0] = v;
        l->l_n = 1;
    }
}

int main(int argc, char **argv)
{
    static options o;
    sim_params_init(&o.base);
    sk_log_set_component("sim");
    sk_log_set_level(SK_LOG_ERROR);
    int rc = parse_options(&o, argc, argv);
    if (rc >= 0)
        return rc;
    sim_params *base = &o.base;
    set_default_list(&o.strategies, SIM_LATE);
    set_default_list(&o.ratios, base->p_ratio);
    set_default_list(&o.loads, base->p_gen.g_load);
    set_default_list(&o.dists, base->p_gen.g_dist.d_kind);
    set_default_list(&o.slots, base->p_slots);
    set_default_list(&o.mixes, base->p_mix);
    if (base->p_jobs_file != NULL) {
        if (!o.jobs_set)
            base->p_jobs = 0;
        if (!o.warmup_set)
            base->p_warmup = 0;
        if (o.loads.l_n > 1 || o.dists.l_n > 1)
            return bad_usage("--load and --dist describe the generator; "
                             "not with --jobs-file");
    }
    if (o.generate != NULL) {
        if (!o.warmup_set) {
            base->p_slots = (uint32_t)o.slots.l_v[0];
            base->p_gen.g_load = o.loads.l_v[0];
            base->p_warmup = sim_default_warmup(base);
        }
        if (base->p_jobs_file != NULL)
            return bad_usage("--generate writes the generator's jobs; not "
                             "with --jobs-file");
        return generate(&o);
    }
    uint32_t npoints = o.strategies.l_n * o.dists.l_n * o.slots.l_n *
                       o.ratios.l_n * o.loads.l_n * o.mixes.l_n;
    if (npoints > 1 &&
        (o.jobs_out || o.tasks_out || o.write_jobs || o.rounds_out))
        return bad_usage("--jobs-out, --tasks-out, --write-jobs and "
                         "--rounds-out need a single point (no lists)");
    for (uint32_t c = 0; c < o.slots.l_n; c++) {
        double sl = o.slots.l_v[c];
        if (!(sl >= 1 && sl <= SK_MAX_SLOTS) || sl != floor(sl))
            return bad_usage("--slots must be whole, in 1..%u", SK_MAX_SLOTS);
        uint64_t nodes = o.total_slots / (uint64_t)sl;
        if (o.total_slots > 0 && (nodes < 1 || nodes > SIM_MAX_NODES ||
                                  nodes * (uint64_t)sl != o.total_slots))
            return bad_usage("--total-slots %llu is not a multiple of %g "
                             "slots within 1..%u nodes",
                             (unsigned long long)o.total_slots, sl,
                             SIM_MAX_NODES);
    }
    sim_point *pts = calloc(npoints, sizeof *pts);
    if (pts == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    uint32_t n = 0;
    for (uint32_t mx = 0; mx < o.mixes.l_n; mx++)
        for (uint32_t a = 0; a < o.strategies.l_n; a++)
            for (uint32_t b = 0; b < o.dists.l_n; b++)
                for (uint32_t c = 0; c < o.slots.l_n; c++)
                    for (uint32_t d = 0; d < o.ratios.l_n; d++)
                        for (uint32_t e = 0; e < o.loads.l_n; e++) {
                            /* Random placement and the omniscient scheduler
                             * send no probes: one point for all ratios. */
                            sim_strategy_id sid =
                                (sim_strategy_id)o.strategies.l_v[a];
                            if (d > 0 && (sid == SIM_RANDOM || sid == SIM_OMNI))
                                continue;
                            sim_params *p = &pts[n++].pt_p;
                            *p = *base;
                            p->p_strategy =
                                (sim_strategy_id)o.strategies.l_v[a];
                            p->p_mix = (sim_mix)o.mixes.l_v[mx];
                            p->p_gen.g_dist.d_kind =
                                (sim_dist_kind)o.dists.l_v[b];
                            p->p_gen.g_dist.d_shape = 1.5;
                            p->p_slots = (uint32_t)o.slots.l_v[c];
                            if (o.total_slots > 0)
                                p->p_nodes =
                                    (uint32_t)(o.total_slots / p->p_slots);
                            p->p_ratio = o.ratios.l_v[d];
                            p->p_gen.g_load = o.loads.l_v[e];
                            p->p_gen.g_slots =
                                (uint64_t)p->p_nodes * p->p_slots;
                            p->p_gen.g_nodes = p->p_nodes;
                            if (!o.warmup_set && p->p_jobs_file == NULL)
                                p->p_warmup = sim_default_warmup(p);
                        }
    npoints = n;
    FILE *jobs_out = NULL, *tasks_out = NULL, *write_jobs = NULL, *csv = NULL;
    FILE *rounds_out = NULL;
    int status = 0;
    if ((o.jobs_out && (jobs_out = open_out(o.jobs_out)) == NULL) ||
        (o.tasks_out && (tasks_out = open_out(o.tasks_out)) == NULL) ||
        (o.write_jobs && (write_jobs = open_out(o.write_jobs)) == NULL) ||
        (o.summary_csv && (csv = open_out(o.summary_csv)) == NULL) ||
        (o.rounds_out && (rounds_out = open_out(o.rounds_out)) == NULL)) {
        status = 1;
        goto out;
    }
    if (write_jobs != NULL)
        sim_jobs_header(write_jobs, "written by skylark-sim --write-jobs");
    if (csv != NULL)
        sim_report_csv_header(csv);
    if (rounds_out != NULL)
        sim_flow_rounds_header(rounds_out);
    bool progress = !o.no_progress && isatty(STDERR_FILENO);
    for (uint32_t i = 0; i < npoints; i++) {
        sim_point *pt = &pts[i];
        sim_params *p = &pt->pt_p;
        char label[32];
        snprintf(label, sizeof label, "point %u/%u", i + 1, npoints);
        p->p_jobs_out = jobs_out;
        p->p_tasks_out = tasks_out;
        p->p_write_jobs = write_jobs;
        p->p_rounds_out = rounds_out;
        p->p_progress = progress;
        p->p_label = label;
        char err[600];
        bool bad_input;
        sim_flow *flow = NULL;
        if (p->p_mix == SIM_MIX_FLOW || p->p_mix == SIM_MIX_HAWK ||
            p->p_mix == SIM_MIX_HYBRID || p->p_mix == SIM_MIX_GREEDY) {
            rc = sim_flow_new(p, &flow, err, sizeof err);
            if (rc != 0) {
                fprintf(stderr, "%s: point %u: %s\n", prog, i + 1, err);
                status = rc == SK_ENOMEM ? 1 : 2;
                break;
            }
        }
        rc = sim_run(p, &o.names, flow, &pt->pt_r, &bad_input, err, sizeof err);
        sim_flow_free(flow);
        if (rc != 0) {
            fprintf(stderr, "%s: point %u: %s\n", prog, i + 1, err);
            status = bad_input ? 2 : 1;
            break;
        }
        pt->pt_done = true;
        pt->pt_closed = sim_point_closed_form(p);
        if (!o.quiet) {
            sim_report_print(stdout, pt, &o.names, i, npoints);
            fflush(stdout);
        }
        if (csv != NULL)
            sim_report_csv_row(csv, pt);
        sim_report_perf(stderr, pt, i);
    }
    if (status == 0 && o.plot_dir != NULL) {
        char err[600];
        rc = sim_plot(o.plot_dir, pts, npoints, o.title, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "%s: --plot: %s\n", prog, err);
            status = 1;
        }
    }
out:
    if (close_out(jobs_out, o.jobs_out) + close_out(tasks_out, o.tasks_out) +
                close_out(write_jobs, o.write_jobs) +
                close_out(csv, o.summary_csv) +
                close_out(rounds_out, o.rounds_out) >
            0 &&
        status == 0)
        status = 1;
    for (uint32_t i = 0; i < npoints; i++)
        sim_stats_fini(&pts[i].pt_r.r_st);
    free(pts);
    return status;
}
