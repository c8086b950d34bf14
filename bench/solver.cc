/*
 * solver.cc - bench/solver: flowcore's min-cost flow algorithms against
 * LEMON's (NetworkSimplex, CostScaling, CapacityScaling) on the same
 * scheduling graphs in the same process: Quincy-policy graphs shaped like
 * the Google cluster trace, a load-spreading graph, an oversubscribed
 * cluster, and incremental rounds of task arrivals and completions.
 *
 * Every time is the median of several runs with its spread (min-max);
 * ratios are against LEMON's best median in the same run. Every algorithm's
 * optimal cost is compared with LEMON's, and every flowcore flow is checked
 * for capacities and mass balance; a disagreement is printed as MISMATCH
 * and makes the exit status 1. See bench/README.md.
 */
#include "flowcore.h"
#include "gen_quincy.h"
#include "solver_fc.h"

/* GCC 12 warns, wrongly, that LEMON's graph nodes are copied uninitialised
 * when their vectors grow (inside libstdc++); the warning is not ours. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <lemon/capacity_scaling.h>
#include <lemon/cost_scaling.h>
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <getopt.h>
#include <memory>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace
{

const char *const kVersion = "bench/solver 1";

/* flowcore's algorithms are indices here: fc_algorithm's values. */
const int kNumAlg = FC_ALG_RACE + 1;

const char *alg_name(int alg)
{
    return fc_algorithm_name(static_cast<fc_algorithm>(alg));
}

enum { LEMON_NS, LEMON_CS, LEMON_CAP, LEMON_N };
const char *const kLemonNames[LEMON_N] = {"lemon-ns", "lemon-cs", "lemon-cap"};

struct Options {
    bool quick = false;
    int runs = 5;
    int rounds = 9;
    uint64_t seed = 1;
    double timeout = 120.0;
    double lemon_timeout = 30.0;
    int32_t ssp_max_nodes = 30000;
    std::vector<std::string> scenarios;
    std::string dimacs_dir;
};

struct Scenario {
    const char *name;
    const char *what;
    gq_kind kind;
    int32_t machines;
    double utilisation;
    double running_share; /* < 0: the generator's default */
    int32_t new_job_tasks;
    int32_t events; /* > 0: incremental rounds of this many events */
    bool quick;
};

/* The benchmark set, and a small one for smoke runs (--quick). */
const Scenario kScenarios[] = {
    {"quincy-1000-50", "Quincy, 1,000 machines, 50% of slots", GQ_QUINCY, 1000,
     0.5, -1, 0, 0, false},
    {"quincy-1000-90", "Quincy, 1,000 machines, 90% of slots", GQ_QUINCY, 1000,
     0.9, -1, 0, 0, false},
    {"quincy-5000-50", "Quincy, 5,000 machines, 50% of slots", GQ_QUINCY, 5000,
     0.5, -1, 0, 0, false},
    {"quincy-5000-90", "Quincy, 5,000 machines, 90% of slots", GQ_QUINCY, 5000,
     0.9, -1, 0, 0, false},
    {"quincy-12500-50", "Quincy, 12,500 machines, 50% of slots", GQ_QUINCY,
     12500, 0.5, -1, 0, 0, false},
    {"quincy-12500-90", "Quincy, 12,500 machines, 90% of slots", GQ_QUINCY,
     12500, 0.9, -1, 0, 0, false},
    {"oversub-12500", "Quincy, 12,500 machines, 97% of slots busy, demand 110%",
     GQ_QUINCY, 12500, 1.10, 0.97 / 1.10, 0, 0, false},
    {"spread-12500-1000", "load spreading, new job of 1,000 tasks", GQ_SPREAD,
     12500, 0.5, -1, 1000, 0, false},
    {"spread-12500-5000", "load spreading, new job of 5,000 tasks", GQ_SPREAD,
     12500, 0.5, -1, 5000, 0, false},
    {"spread-12500-20000", "load spreading, new job of 20,000 tasks", GQ_SPREAD,
     12500, 0.5, -1, 20000, 0, false},
    {"incr-12500-10", "rounds of 10 events on quincy-12500-90", GQ_QUINCY,
     12500, 0.9, -1, 0, 10, false},
    {"incr-12500-100", "rounds of 100 events on quincy-12500-90", GQ_QUINCY,
     12500, 0.9, -1, 0, 100, false},
    {"incr-12500-1000", "rounds of 1,000 events on quincy-12500-90", GQ_QUINCY,
     12500, 0.9, -1, 0, 1000, false},
    {"quincy-100-50", "Quincy, 100 machines, 50% of slots", GQ_QUINCY, 100, 0.5,
     -1, 0, 0, true},
    {"quincy-100-90", "Quincy, 100 machines, 90% of slots", GQ_QUINCY, 100, 0.9,
     -1, 0, 0, true},
    {"quincy-400-90", "Quincy, 400 machines, 90% of slots", GQ_QUINCY, 400, 0.9,
     -1, 0, 0, true},
    {"oversub-400", "Quincy, 400 machines, 97% of slots busy, demand 110%",
     GQ_QUINCY, 400, 1.10, 0.97 / 1.10, 0, 0, true},
    {"spread-400-1000", "load spreading, 400 machines, new job of 1,000 tasks",
     GQ_SPREAD, 400, 0.5, -1, 1000, 0, true},
    {"incr-400-10", "rounds of 10 events on quincy-400-90", GQ_QUINCY, 400, 0.9,
     -1, 0, 10, true},
    {"incr-400-100", "rounds of 100 events on quincy-400-90", GQ_QUINCY, 400,
     0.9, -1, 0, 100, true},
};

/* --- small helpers --------------------------------------------------------*/

double now_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Median and spread of a set of samples (seconds). */
struct Stat {
    double median = 0, min = 0, max = 0;
    size_t n = 0;
};

Stat stat_of(std::vector<double> v)
{
    Stat s;
    s.n = v.size();
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    s.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    s.min = v.front();
    s.max = v.back();
    return s;
}

/* Peak resident memory so far: of this process (generator, flowcore,
 * LEMON's graph) and of the largest LEMON solver child. */
void print_rss()
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    printf("#   peak RSS so far: this process %.1f MiB (generator, flowcore, "
           "LEMON's graph); LEMON solver children %.1f MiB (their graph "
           "copy included)\n\n",
           (double)self.ru_maxrss / 1024, (double)children.ru_maxrss / 1024);
}

/* x as a ratio: "1.23x". */
std::string fmt_ratio(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.2fx", x);
    return buf;
}

std::string fmt_ms(double s)
{
    char buf[32];
    double ms = s * 1e3;
    if (ms < 10)
        snprintf(buf, sizeof buf, "%.3f", ms);
    else if (ms < 1000)
        snprintf(buf, sizeof buf, "%.1f", ms);
    else
        snprintf(buf, sizeof buf, "%.0f", ms);
    return buf;
}

std::string fmt_stat(const Stat &s)
{
    if (s.n == 0)
        return "-";
    return fmt_ms(s.median) + " [" + fmt_ms(s.min) + "-" + fmt_ms(s.max) + "]";
}

/* The outcome of one algorithm on one scenario. */
struct Row {
    std::string alg;
    std::vector<double> times;
    std::string note; /* n/a, timeout, infeasible, MISMATCH, ... */
    int64_t cost = 0;
    bool has_cost = false;
    std::string extra;      /* e.g. race winners */
    bool unchecked = false; /* no LEMON result to compare the cost with */
};

int g_mismatches = 0;

void mismatch(const char *scenario, const std::string &what)
{
    g_mismatches++;
    fprintf(stderr, "!!! MISMATCH in %s: %s\n", scenario, what.c_str());
}

/* --- LEMON ----------------------------------------------------------------*/

typedef lemon::SmartDigraph Digraph;

struct LemonGraph {
    Digraph g;
    Digraph::ArcMap<int64_t> cap{g}, cost{g};
    Digraph::NodeMap<int64_t> supply{g};
};

void lemon_build(const bf_export &e, LemonGraph &lg)
{
    lg.g.clear();
    lg.g.reserveNode(e.be_nodes);
    lg.g.reserveArc(e.be_arcs);
    std::vector<Digraph::Node> nodes((size_t)e.be_nodes);
    for (int32_t v = 0; v < e.be_nodes; v++) {
        nodes[(size_t)v] = lg.g.addNode();
        lg.supply[nodes[(size_t)v]] = e.be_supply[v];
    }
    for (int32_t k = 0; k < e.be_arcs; k++) {
        Digraph::Arc a =
            lg.g.addArc(nodes[(size_t)e.be_src[k]], nodes[(size_t)e.be_dst[k]]);
        lg.cap[a] = e.be_cap[k];
        lg.cost[a] = e.be_cost[k];
    }
}

/* Outcomes of a LEMON run. */
enum { LS_OPTIMAL, LS_INFEASIBLE, LS_UNBOUNDED, LS_TIMEOUT, LS_FAILED };

/* What a LEMON child process reports through its pipe. */
struct LemonReport {
    double lr_seconds;
    int lr_status;
    int64_t lr_cost;
    double lr_mib; /* resident memory the algorithm added */
};

/* The resident set size now, in MiB (0 if /proc is not there). */
double rss_mib()
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

/* Solve lg with LEMON's Alg; the time includes constructing the algorithm
 * object (it copies the graph into its own arrays: part of a from-scratch
 * solve). */
template <class Alg> LemonReport lemon_solve(LemonGraph &lg)
{
    LemonReport rep;
    double before = rss_mib();
    double start = now_seconds();
    Alg alg(lg.g);
    alg.upperMap(lg.cap).costMap(lg.cost).supplyMap(lg.supply);
    typename Alg::ProblemType pt = alg.run();
    rep.lr_seconds = now_seconds() - start;
    rep.lr_mib = rss_mib() - before;
    rep.lr_status = pt == Alg::OPTIMAL      ? LS_OPTIMAL
                    : pt == Alg::INFEASIBLE ? LS_INFEASIBLE
                                            : LS_UNBOUNDED;
    rep.lr_cost =
        pt == Alg::OPTIMAL ? (int64_t)alg.template totalCost<int64_t>() : 0;
    return rep;
}

LemonReport lemon_solve_which(int which, LemonGraph &lg)
{
    switch (which) {
    case LEMON_NS:
        return lemon_solve<lemon::NetworkSimplex<Digraph, int64_t, int64_t>>(
            lg);
    case LEMON_CS:
        return lemon_solve<lemon::CostScaling<Digraph, int64_t, int64_t>>(lg);
    default:
        return lemon_solve<lemon::CapacityScaling<Digraph, int64_t, int64_t>>(
            lg);
    }
}

/* A LEMON solve quicker than this is first run once untimed, so that the
 * timed runs find their memory mapped, as flowcore's do. */
const double kWarmSeconds = 1.0;

/* A run that took more than kSlowFactor times the best time so far, and
 * more than kSlowSeconds, is not repeated: it cannot be the best, and
 * repeating it would only make the benchmark long. */
const double kSlowSeconds = 2.0;
const double kSlowFactor = 4.0;

bool too_slow(double t, double best)
{
    return t > kSlowSeconds && best > 0 && t > kSlowFactor * best;
}

void lemon_child(int which, LemonGraph &lg, int runs, double fastest, int fd)
{
    int done = 0;
    LemonReport r = lemon_solve_which(which, lg);
    /* Only the first solve maps new memory: report its growth with all. */
    double mib = r.lr_mib;
    if (r.lr_seconds >= kWarmSeconds) {
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(1);
        done = 1;
        if (too_slow(r.lr_seconds, fastest))
            _exit(0);
    }
    for (; done < runs; done++) {
        r = lemon_solve_which(which, lg);
        r.lr_mib = mib;
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(1);
        if (done == 0 && too_slow(r.lr_seconds, fastest))
            break;
    }
    _exit(0);
}

/* Run LEMON algorithm `which` on lg `runs` times in a child process, which
 * is killed if a run takes more than timeout seconds (LEMON cannot be
 * cancelled): a slow LEMON algorithm costs the benchmark a bounded time,
 * and LEMON's memory is measured apart from ours (RUSAGE_CHILDREN). The
 * child stops after its first run if that was too_slow against fastest.
 * Returns the reports, the last one LS_TIMEOUT or LS_FAILED if the child
 * was killed or failed. */
std::vector<LemonReport> lemon_runs(int which, LemonGraph &lg, int runs,
                                    double fastest, double timeout)
{
    std::vector<LemonReport> reps;
    LemonReport fail = {0, LS_FAILED, 0, 0};
    int fds[2];
    if (pipe(fds) != 0) {
        reps.push_back(fail);
        return reps;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        reps.push_back(fail);
        return reps;
    }
    if (pid == 0) {
        close(fds[0]);
        lemon_child(which, lg, runs, fastest, fds[1]);
    }
    close(fds[1]);
    for (;;) {
        double limit = timeout + (reps.empty() ? kWarmSeconds : 0);
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int ready;
        do
            ready = poll(&pfd, 1, (int)(limit * 1000));
        while (ready < 0 && errno == EINTR);
        if (ready == 0) {
            kill(pid, SIGKILL);
            LemonReport t = {0, LS_TIMEOUT, 0, 0};
            reps.push_back(t);
            break;
        }
        LemonReport r;
        ssize_t n = read(fds[0], &r, sizeof r);
        if (n == 0)
            break; /* the child is done */
        if (n != (ssize_t)sizeof r) {
            reps.push_back(fail);
            break;
        }
        reps.push_back(r);
    }
    close(fds[0]);
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (reps.empty() ||
        (!WIFEXITED(wstatus) && reps.back().lr_status != LS_TIMEOUT) ||
        (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0))
        reps.push_back(fail);
    return reps;
}

const char *status_name(int status)
{
    static const char *const names[] = {"optimal", "infeasible", "unbounded",
                                        "timeout", "failed"};
    return names[status];
}

/* --- reporting ------------------------------------------------------------*/

void print_header()
{
    printf("%-20s %8s %9s  %-13s %-26s %9s %15s  %s\n", "graph", "nodes",
           "arcs", "algorithm", "time ms: median [min-max]", "vs LEMON", "cost",
           "note");
}

/* One line per algorithm; vs LEMON is LEMON's best median divided by this
 * algorithm's median (above 1: faster than LEMON's best). */
void print_rows(const char *name, int32_t nodes, int32_t arcs,
                const std::vector<Row> &rows, double lemon_best)
{
    for (const Row &r : rows) {
        Stat s = stat_of(r.times);
        char ratio[32] = "-";
        if (s.n > 0 && lemon_best > 0 && s.median > 0)
            snprintf(ratio, sizeof ratio, "%.2fx", lemon_best / s.median);
        char cost[32] = "-";
        if (r.has_cost)
            snprintf(cost, sizeof cost, "%" PRId64, r.cost);
        std::string note = r.note;
        if (!r.extra.empty())
            note += (note.empty() ? "" : " ") + r.extra;
        if (r.unchecked)
            note += " UNCHECKED (no LEMON result to compare with)";
        printf("%-20s %8d %9d  %-13s %-26s %9s %15s  %s\n", name, nodes, arcs,
               r.alg.c_str(), fmt_stat(s).c_str(), ratio, cost, note.c_str());
    }
    fflush(stdout);
}

/* The best (smallest) median among the LEMON rows, 0 if none ran. */
double lemon_best_of(const std::vector<Row> &rows)
{
    double best = 0;
    for (const Row &r : rows) {
        if (r.alg.compare(0, 6, "lemon-") != 0 || r.times.empty() ||
            !r.has_cost)
            continue;
        double m = stat_of(r.times).median;
        if (best == 0 || m < best)
            best = m;
    }
    return best;
}

/* Results kept for the summary of targets at the end. */
struct Summary {
    std::string scenario;
    double lemon_best = 0;
    double alg_median[kNumAlg] = {0, 0, 0, 0};
    size_t graph_bytes = 0;
    Stat race_per_round; /* incremental: race / the faster alone, by round */
    bool incremental = false;
    int32_t events = 0;
    int32_t machines = 0;
};

std::vector<Summary> g_summaries;

/* --- one from-scratch scenario -------------------------------------------*/

void make_params(const Scenario &sc, const Options &opt, gq_params *p)
{
    gq_params_init(p, sc.kind, sc.machines, sc.utilisation, opt.seed);
    if (sc.running_share >= 0)
        p->gp_running_share = sc.running_share;
    p->gp_new_job_tasks = sc.new_job_tasks;
}

bool ssp_allowed(const Options &opt, int32_t nodes)
{
    return nodes <= opt.ssp_max_nodes;
}

/* The answer every algorithm must give on a graph: that of the first
 * LEMON algorithm that finished on it. */
struct Reference {
    bool ok = false;
    int status = 0;
    int64_t cost = 0;
    std::string by;
};

/* Run LEMON algorithm `which` on lg up to `runs` times (see lemon_runs),
 * add the samples to row and check each against ref (the first result
 * becomes the reference if there is none). Returns false if it timed out
 * or failed (do not run it again on this graph). */
bool lemon_measure(const char *scenario, int which, LemonGraph &lg,
                   const Options &opt, int runs, double fastest, Row &row,
                   Reference &ref, const std::string &where)
{
    std::vector<LemonReport> reps =
        lemon_runs(which, lg, runs, fastest, opt.lemon_timeout);
    for (const LemonReport &rep : reps) {
        if (rep.lr_status == LS_TIMEOUT || rep.lr_status == LS_FAILED) {
            char note[64];
            snprintf(note, sizeof note, "%s (limit %.0f s)",
                     status_name(rep.lr_status), opt.lemon_timeout);
            row.note = note;
            return false;
        }
        row.times.push_back(rep.lr_seconds);
        if (row.times.size() == 1) {
            char mem[48];
            snprintf(mem, sizeof mem, "(+%.0f MiB)", rep.lr_mib);
            row.extra = mem;
        }
        if (!ref.ok) {
            ref.ok = true;
            ref.status = rep.lr_status;
            ref.cost = rep.lr_cost;
            ref.by = row.alg;
        } else if (rep.lr_status != ref.status ||
                   (rep.lr_status == LS_OPTIMAL && rep.lr_cost != ref.cost)) {
            row.note = "MISMATCH";
            mismatch(scenario, row.alg + " (" + status_name(rep.lr_status) +
                                   " " + std::to_string(rep.lr_cost) +
                                   ") disagrees with " + ref.by + " (" +
                                   status_name(ref.status) + " " +
                                   std::to_string(ref.cost) + ")" + where);
        }
        if (rep.lr_status == LS_OPTIMAL) {
            row.cost = rep.lr_cost;
            row.has_cost = true;
        } else if (row.note.empty()) {
            row.note = status_name(rep.lr_status);
        }
    }
    if ((int)reps.size() < runs)
        row.extra += " 1 run (slow)";
    return true;
}

/* LEMON's algorithms in the order they run: cost scaling first, as it is
 * usually the fastest on these graphs and so the yardstick of "slow". */
const int kLemonOrder[LEMON_N] = {LEMON_CS, LEMON_NS, LEMON_CAP};

/* Check a flowcore result against the reference; fills the row. */
void judge(const char *scenario, Row &row, const bf_result &res,
           const Reference &ref)
{
    if (!res.br_flow_ok) {
        row.note = "BADFLOW";
        mismatch(scenario, row.alg + ": " + res.br_err);
        return;
    }
    if (res.br_rc == 0) {
        row.cost = res.br_cost;
        row.has_cost = true;
        if (!ref.ok) {
            row.unchecked = true;
        } else if (ref.status != LS_OPTIMAL) {
            row.note = "MISMATCH";
            mismatch(scenario, row.alg + " solved a graph " + ref.by +
                                   " found " + status_name(ref.status));
        } else if (res.br_cost != ref.cost) {
            row.note = "MISMATCH";
            mismatch(scenario,
                     row.alg + " cost " + std::to_string(res.br_cost) +
                         " != " + ref.by + " " + std::to_string(ref.cost));
        }
        return;
    }
    if (res.br_rc == FC_EINFEASIBLE) {
        row.note = "infeasible";
        if (ref.ok && ref.status != LS_INFEASIBLE) {
            row.note = "MISMATCH";
            mismatch(scenario, row.alg + " says infeasible, " + ref.by +
                                   " says " + status_name(ref.status));
        }
        return;
    }
    row.note = res.br_rc == FC_ECANCELED ? "timeout" : fc_strerror(res.br_rc);
}

void write_dimacs(const Options &opt, const std::string &name,
                  const bf_export &e)
{
    if (opt.dimacs_dir.empty())
        return;
    std::string path = opt.dimacs_dir + "/" + name + ".min";
    if (bf_write_dimacs(&e, path.c_str()) != 0)
        fprintf(stderr, "bench/solver: cannot write %s\n", path.c_str());
}

/* Build the scenario's graph `runs` times (timing the generator), keep the
 * last. */
bool build_graph(const Scenario &sc, const Options &opt, fc_graph **g,
                 gq_world **w, Stat *build)
{
    gq_params p;
    make_params(sc, opt, &p);
    std::vector<double> times;
    *g = nullptr;
    *w = nullptr;
    for (int r = 0; r < opt.runs; r++) {
        fc_graph_free(*g);
        gq_world_free(*w);
        double start = now_seconds();
        int rc = gq_build(&p, g, w);
        times.push_back(now_seconds() - start);
        if (rc != 0) {
            fprintf(stderr, "bench/solver: %s: generator failed: %s\n", sc.name,
                    fc_strerror(rc));
            *g = nullptr;
            *w = nullptr;
            return false;
        }
    }
    *build = stat_of(times);
    return true;
}

/* Print a scenario's header: what it is, its world, the time to build the
 * graphs and the flowcore graph's own memory (graph_bytes). */
void describe(const Scenario &sc, size_t graph_bytes, gq_world *w,
              const Stat &build, const Stat &lemon_build_time)
{
    gq_summary s;
    gq_world_summary(w, &s);
    printf("# %s: %s\n", sc.name, sc.what);
    char racks[48] = "no racks (one aggregator)";
    if (s.gs_racks > 0)
        snprintf(racks, sizeof racks, "%d racks", s.gs_racks);
    printf("#   %d machines, %s, %" PRId64 " slots, %d jobs, %" PRId64
           " tasks (%" PRId64 " running), %" PRId64 " preference arcs\n",
           s.gs_machines, racks, s.gs_slots, s.gs_jobs, s.gs_tasks,
           s.gs_running, s.gs_pref_arcs);
    printf("#   construction: flowcore graph %s ms, LEMON graph %s ms; "
           "flowcore graph memory %.1f MiB\n",
           fmt_stat(build).c_str(), fmt_stat(lemon_build_time).c_str(),
           (double)graph_bytes / (1 << 20));
}

void run_scratch(const Scenario &sc, const Options &opt)
{
    fc_graph *g;
    gq_world *w;
    Stat build;
    if (!build_graph(sc, opt, &g, &w, &build))
        return;
    bf_export e;
    if (bf_export_graph(g, &e) != 0) {
        fprintf(stderr, "bench/solver: %s: out of memory\n", sc.name);
        fc_graph_free(g);
        gq_world_free(w);
        return;
    }
    write_dimacs(opt, sc.name, e);
    /* Each timed build starts from a fresh graph (a cleared one keeps its
     * memory and builds too fast); the last one is kept. */
    std::vector<double> lb;
    std::unique_ptr<LemonGraph> lgp;
    for (int r = 0; r < opt.runs; r++) {
        lgp.reset();
        double start = now_seconds();
        lgp.reset(new LemonGraph);
        lemon_build(e, *lgp);
        lb.push_back(now_seconds() - start);
    }
    LemonGraph &lg = *lgp;
    describe(sc, bf_graph_bytes(g), w, build, stat_of(lb));
    int32_t nodes = fc_graph_node_count(g), arcs = fc_graph_arc_count(g);

    std::vector<Row> rows(LEMON_N);
    Reference ref;
    double fastest = 0; /* fastest first run of a LEMON algorithm */
    for (int which : kLemonOrder) {
        Row &row = rows[(size_t)which];
        row.alg = kLemonNames[which];
        lemon_measure(sc.name, which, lg, opt, opt.runs, fastest, row, ref, "");
        if (!row.times.empty() && !too_slow(row.times[0], fastest) &&
            (fastest == 0 || row.times[0] < fastest))
            fastest = row.times[0];
    }
    double best = lemon_best_of(rows);
    bf_own_pages(g); /* LEMON's children were forked */
    Summary sum;
    sum.scenario = sc.name;
    sum.lemon_best = best;
    sum.machines = sc.machines;

    /* The algorithms take turns, one run each, so that the machine's slow
     * drifts (other work on a shared host) fall on all of them alike
     * rather than on whichever ran while the machine was busy. */
    Row alg_rows[kNumAlg];
    bool running[kNumAlg];
    int race_winners[kNumAlg] = {0, 0, 0, 0};
    for (int alg = 0; alg < kNumAlg; alg++) {
        alg_rows[alg].alg = alg_name(alg);
        running[alg] = alg != FC_ALG_SSP || ssp_allowed(opt, nodes);
        if (!running[alg])
            alg_rows[alg].note = "skipped (graph too large for the reference)";
    }
    for (int r = 0; r < opt.runs; r++) {
        for (int alg = 0; alg < kNumAlg; alg++) {
            if (!running[alg])
                continue;
            Row &row = alg_rows[alg];
            bf_result res;
            int rc = bf_solve(g, alg, false, opt.timeout, &res);
            if (rc == FC_EINVAL) {
                row.note = "n/a (not built)";
                running[alg] = false;
                continue;
            }
            judge(sc.name, row, res, ref);
            if (rc != 0 || !row.note.empty()) {
                running[alg] = false;
                continue;
            }
            row.times.push_back(res.br_seconds);
            if (alg == FC_ALG_RACE)
                race_winners[res.br_winner & 3]++;
            if (r == 0 && too_slow(res.br_seconds, best)) {
                row.note = "1 run (slow)";
                running[alg] = false;
            }
        }
    }
    for (int alg = 0; alg < kNumAlg; alg++) {
        Row &row = alg_rows[alg];
        if (alg == FC_ALG_RACE && !row.times.empty())
            row.extra = "won: relax " +
                        std::to_string(race_winners[FC_ALG_RELAX]) +
                        ", cost-scaling " +
                        std::to_string(race_winners[FC_ALG_COST_SCALING]);
        if (row.note.empty() || row.note == "MISMATCH" ||
            row.note == "1 run (slow)")
            sum.alg_median[alg] = stat_of(row.times).median;
        rows.push_back(row);
    }
    print_rows(sc.name, nodes, arcs, rows, best);
    /* After the solves: the graph then holds its solvers' scratch too. */
    sum.graph_bytes = bf_graph_bytes(g);
    printf("#   flowcore graph memory after solving (solvers' scratch "
           "included): %.1f MiB\n",
           (double)sum.graph_bytes / (1 << 20));
    print_rss();
    g_summaries.push_back(sum);
    bf_export_free(&e);
    fc_graph_free(g);
    gq_world_free(w);
}

/* --- incremental rounds ---------------------------------------------------*/

/* One chain of graphs: a graph, its world and the event generator. Every
 * chain starts from the same graph and seed, so they see the same events. */
struct Chain {
    int alg = -1; /* -1: the reference chain (LEMON only) */
    fc_graph *g = nullptr;
    gq_world *w = nullptr;
    sk_rng rng;
    Row row;
    bool live = true;
    int winners[kNumAlg] = {0, 0, 0, 0};
    std::vector<double> update_times; /* applying each round's events */
    std::vector<bf_result> results;   /* each round's solve, judged later */
};

/* The chain of algorithm alg, or nullptr. */
const Chain *chain_of(const std::vector<Chain> &chains, int alg)
{
    for (const Chain &c : chains)
        if (c.alg == alg)
            return &c;
    return nullptr;
}

/* The time of a chain's solve of round r (0 is the warm-up), or 0 if it
 * has no optimal flow for it. */
double round_time(const Chain *c, size_t r)
{
    if (c == nullptr || r >= c->results.size())
        return 0;
    const bf_result &res = c->results[r];
    return res.br_rc == 0 && res.br_flow_ok ? res.br_seconds : 0;
}

/* The race's time over the faster of relaxation and cost scaling alone,
 * round by round: the chains solve the same rounds side by side, so the
 * machine's slow spells hit the three times of a round alike. */
Stat race_per_round(const std::vector<Chain> &chains)
{
    const Chain *race = chain_of(chains, FC_ALG_RACE);
    const Chain *cs = chain_of(chains, FC_ALG_COST_SCALING);
    const Chain *rx = chain_of(chains, FC_ALG_RELAX);
    std::vector<double> ratios;
    for (size_t r = 1; race != nullptr && r < race->results.size(); r++) {
        double t = round_time(race, r), a = round_time(cs, r),
               b = round_time(rx, r);
        if (t > 0 && a > 0 && b > 0)
            ratios.push_back(t / std::min(a, b));
    }
    return stat_of(ratios);
}

void run_incremental(const Scenario &sc, const Options &opt)
{
    fc_graph *g0;
    gq_world *w0;
    Stat build;
    if (!build_graph(sc, opt, &g0, &w0, &build))
        return;
    int32_t nodes0 = fc_graph_node_count(g0);
    size_t bytes0 = bf_graph_bytes(g0); /* before solving adds scratch */
    /* Every chain starts from one optimum of the base graph, the race's
     * from scratch (not timed here: the from-scratch scenarios time it).
     * A scheduling graph has many optima (tasks of equal cost swap
     * places), and each algorithm's own would differ: the chains would
     * then solve the same events from different flows and prices, and the
     * comparison would partly be one of starting points. */
    bf_result base;
    int base_rc = bf_solve(g0, FC_ALG_RACE, false, opt.timeout, &base);
    if (base_rc != 0 || !base.br_flow_ok) {
        fprintf(stderr, "bench/solver: %s: base solve: %s\n", sc.name,
                base_rc != 0 ? fc_strerror(base_rc) : base.br_err);
        fc_graph_free(g0);
        gq_world_free(w0);
        return;
    }
    std::vector<Chain> chains;
    for (int alg = -1; alg < kNumAlg; alg++) {
        if (alg == FC_ALG_SSP && !ssp_allowed(opt, nodes0))
            continue;
        Chain c;
        c.alg = alg;
        if (fc_graph_clone(g0, &c.g) != 0 || gq_world_clone(w0, &c.w) != 0) {
            fprintf(stderr, "bench/solver: %s: out of memory\n", sc.name);
            fc_graph_free(c.g);
            gq_world_free(c.w);
            for (Chain &d : chains) {
                fc_graph_free(d.g);
                gq_world_free(d.w);
            }
            fc_graph_free(g0);
            gq_world_free(w0);
            return;
        }
        sk_rng_seed(&c.rng, opt.seed * 1000003u + (uint64_t)sc.events);
        c.row.alg = alg < 0 ? "" : alg_name(alg);
        chains.push_back(c);
    }
    std::vector<double> lb_build;
    {
        bf_export e;
        LemonGraph lg;
        if (bf_export_graph(g0, &e) == 0) {
            double start = now_seconds();
            lemon_build(e, lg);
            lb_build.push_back(now_seconds() - start);
            bf_export_free(&e);
        }
    }
    describe(sc, bytes0, w0, build, stat_of(lb_build));
    printf("#   every algorithm starts from the race's from-scratch optimum "
           "of the base graph (%s ms, won by %s)\n",
           fmt_ms(base.br_seconds).c_str(), alg_name(base.br_winner));
    std::vector<Row> lemon_rows(LEMON_N);
    for (int k = 0; k < LEMON_N; k++)
        lemon_rows[(size_t)k].alg = kLemonNames[k];
    std::vector<double> update_times;
    gq_round_stats total = {0, 0, 0, 0};
    int32_t nodes = 0, arcs = 0;
    bool lemon_skip[LEMON_N] = {false, false, false};
    double fastest = 0; /* fastest LEMON time in the warm-up */
    /* LEMON runs in forked children. A fork marks every page of this
     * process copy-on-write, so the first write to each page after it
     * faults: forks between the rounds would charge flowcore's solves
     * (the race's state copy most) tens of milliseconds a round that a
     * solver node never pays. So every chain runs all its rounds first,
     * each round's graph is kept as an export, and LEMON solves the
     * exports afterwards; the flowcore results are judged then.
     * Round 0 is a warm-up, judged but not timed: the chains' graphs are
     * clones, which leave behind the scratch memory the solvers keep
     * between solves, and a solver node pays those page faults once, not
     * every round. */
    std::vector<bf_export> exports;
    for (int round = 0; round <= opt.rounds; round++) {
        bool timed = round > 0;
        for (Chain &c : chains) {
            if (c.alg >= 0 && !c.live)
                continue;
            gq_round_stats st;
            double start = now_seconds();
            int rc = gq_round(c.w, c.g, sc.events, &c.rng, &st);
            double t = now_seconds() - start;
            if (rc != 0) {
                fprintf(stderr, "bench/solver: %s: round failed: %s\n", sc.name,
                        fc_strerror(rc));
                c.live = false;
                c.row.note = "round failed";
                continue;
            }
            if (c.alg < 0) {
                if (timed)
                    update_times.push_back(t);
                total.gr_arrivals += st.gr_arrivals;
                total.gr_new_jobs += st.gr_new_jobs;
                total.gr_completions += st.gr_completions;
                total.gr_jobs_done += st.gr_jobs_done;
                nodes = fc_graph_node_count(c.g);
                arcs = fc_graph_arc_count(c.g);
                bf_export e;
                if (bf_export_graph(c.g, &e) != 0) {
                    c.live = false;
                    break;
                }
                exports.push_back(e);
                continue;
            }
            if (timed)
                c.update_times.push_back(t);
            bf_result res;
            rc = bf_solve(c.g, c.alg, true, opt.timeout, &res);
            c.results.push_back(res);
            if (rc != 0 || !res.br_flow_ok)
                c.live = false;
            else if (timed)
                c.winners[res.br_winner & 3]++;
        }
        if (!chains[0].live)
            break;
    }
    for (size_t round = 0; round < exports.size(); round++) {
        /* LEMON solves each round's graph from scratch. */
        Reference ref;
        LemonGraph lg;
        bool timed = round > 0;
        if (round == (size_t)opt.rounds)
            write_dimacs(opt, sc.name, exports[round]);
        lemon_build(exports[round], lg);
        bf_export_free(&exports[round]);
        std::string where =
            timed ? " in round " + std::to_string(round) : " in the warm-up";
        for (int k : kLemonOrder) {
            Row &lr = lemon_rows[(size_t)k];
            if (lemon_skip[k])
                continue;
            if (!lemon_measure(sc.name, k, lg, opt, 1, fastest, lr, ref,
                               where)) {
                lemon_skip[k] = true;
                continue;
            }
            if (timed)
                continue;
            double lt = lr.times.back();
            lr.times.clear();
            if (too_slow(lt, fastest)) {
                lemon_skip[k] = true;
                lr.extra += " warm-up only (slow)";
            } else if (fastest == 0 || lt < fastest) {
                fastest = lt;
            }
        }
        for (Chain &c : chains) {
            if (c.alg < 0 || round >= c.results.size())
                continue;
            if (!c.row.note.empty() && c.row.note != "MISMATCH")
                continue; /* failed in an earlier round */
            const bf_result &res = c.results[round];
            judge(sc.name, c.row, res, ref);
            if (timed && res.br_rc == 0 && res.br_flow_ok)
                c.row.times.push_back(res.br_seconds);
        }
    }
    printf("#   %d rounds of %d events after a warm-up round: %d arrivals "
           "(%d new jobs), %d completions (%d jobs done) in all; applying a "
           "round to the unsolved graph: %s ms\n",
           opt.rounds, sc.events, total.gr_arrivals, total.gr_new_jobs,
           total.gr_completions, total.gr_jobs_done,
           fmt_stat(stat_of(update_times)).c_str());
    printf("#   LEMON rows: from scratch on each round's graph; flowcore "
           "rows: incremental solve of each round\n");
    std::vector<Row> rows = lemon_rows;
    Summary sum;
    sum.scenario = sc.name;
    sum.incremental = true;
    sum.events = sc.events;
    sum.machines = sc.machines;
    for (Chain &c : chains) {
        if (c.alg < 0)
            continue;
        if (!c.update_times.empty())
            c.row.extra =
                "(applying events: " + fmt_ms(stat_of(c.update_times).median) +
                " ms)";
        if (c.alg == FC_ALG_RACE && !c.row.times.empty())
            c.row.extra += " won: relax " +
                           std::to_string(c.winners[FC_ALG_RELAX]) +
                           ", cost-scaling " +
                           std::to_string(c.winners[FC_ALG_COST_SCALING]);
        if (c.row.note.empty() || c.row.note == "MISMATCH")
            sum.alg_median[c.alg] = stat_of(c.row.times).median;
        rows.push_back(c.row);
    }
    sum.lemon_best = lemon_best_of(rows);
    sum.race_per_round = race_per_round(chains);
    print_rows(sc.name, nodes, arcs, rows, sum.lemon_best);
    print_rss();
    g_summaries.push_back(sum);
    for (Chain &c : chains) {
        fc_graph_free(c.g);
        gq_world_free(c.w);
    }
    fc_graph_free(g0);
    gq_world_free(w0);
}

/* --- targets
 * ----------------------------------------------------------------*/

const char *verdict(bool known, bool ok)
{
    return !known ? "n/a" : ok ? "PASS" : "FAIL";
}

void print_targets()
{
    printf("# targets (ratios in this run)\n");
    for (const Summary &s : g_summaries) {
        double race = s.alg_median[FC_ALG_RACE];
        double cs = s.alg_median[FC_ALG_COST_SCALING],
               rx = s.alg_median[FC_ALG_RELAX];
        double alone = cs > 0 && rx > 0 ? std::min(cs, rx) : cs > 0 ? cs : rx;
        if (!s.incremental && s.machines == 12500 &&
            s.scenario.compare(0, 7, "quincy-") == 0) {
            bool known = race > 0 && s.lemon_best > 0;
            printf("#   %-20s race from scratch >= 2x faster than LEMON's "
                   "best: %s (%.2fx)\n",
                   s.scenario.c_str(),
                   verdict(known, known && s.lemon_best >= 2 * race),
                   known ? s.lemon_best / race : 0.0);
        }
        if (s.incremental && s.events == 100) {
            bool known = race > 0 && s.lemon_best > 0;
            printf("#   %-20s incremental race >= 20x faster than LEMON's "
                   "best from scratch: %s (%.1fx)\n",
                   s.scenario.c_str(),
                   verdict(known, known && s.lemon_best >= 20 * race),
                   known ? s.lemon_best / race : 0.0);
        }
        bool known = race > 0 && alone > 0;
        std::string by_round;
        if (s.race_per_round.n > 0)
            by_round = "; round by round " +
                       fmt_ratio(s.race_per_round.median) + " [" +
                       fmt_ratio(s.race_per_round.min) + "-" +
                       fmt_ratio(s.race_per_round.max) + "]";
        printf("#   %-20s race <= 1.2x the faster of relax and cost-scaling "
               "alone: %s (%.2fx%s)\n",
               s.scenario.c_str(), verdict(known, known && race <= 1.2 * alone),
               known ? race / alone : 0.0, by_round.c_str());
        if (s.machines == 12500 && s.graph_bytes > 0)
            printf("#   %-20s flowcore graph well under 1 GiB: %s (%.0f MiB)\n",
                   s.scenario.c_str(),
                   verdict(true, s.graph_bytes < (512u << 20)),
                   (double)s.graph_bytes / (1 << 20));
    }
}

/* --- command line ---------------------------------------------------------*/

void usage(FILE *f)
{
    fprintf(f,
            "usage: bench/solver [options]\n"
            "Times flowcore's min-cost flow algorithms against LEMON's on\n"
            "generated scheduling graphs (see bench/README.md).\n"
            "\n"
            "  --quick            small graphs only (a smoke run)\n"
            "  --runs N           runs per from-scratch measurement\n"
            "                     (default 5)\n"
            "  --rounds N         timed rounds per incremental scenario,\n"
            "                     after one warm-up round (default 9)\n"
            "  --scenario NAME    run only this scenario (repeatable; a\n"
            "                     prefix such as 'quincy-12500' selects all\n"
            "                     that start with it)\n"
            "  --list             list the scenarios and exit\n"
            "  --seed N           generator seed (default 1)\n"
            "  --timeout SEC      cancel a flowcore solve after SEC seconds\n"
            "                     (default 120)\n"
            "  --lemon-timeout SEC  stop a LEMON solve after SEC seconds\n"
            "                     (default 30)\n"
            "  --ssp-max-nodes N  run ssp only on graphs up to N nodes\n"
            "                     (default 30000)\n"
            "  --write-dimacs DIR write each graph (an incremental scenario:\n"
            "                     its last round) to DIR/NAME.min\n"
            "  --help, --version\n"
            "\n"
            "Exit status: 0 done, 1 some algorithm disagreed with LEMON or\n"
            "returned a bad flow, 2 bad usage.\n");
}

/* A --scenario NAME selects the scenario of that name or, if none has it,
 * every scenario whose name starts with it. */
bool selected(const Scenario &sc, const Options &opt)
{
    if (opt.scenarios.empty())
        return sc.quick == opt.quick;
    for (const std::string &s : opt.scenarios) {
        bool exact = false;
        for (const Scenario &other : kScenarios)
            exact = exact || s == other.name;
        if (exact ? s == sc.name
                  : std::string(sc.name).compare(0, s.size(), s) == 0)
            return true;
    }
    return false;
}

bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    Options opt;
    bool list = false;
    static const struct option longopts[] = {
        {"help", no_argument, nullptr, 'h'},
        {"version", no_argument, nullptr, 'V'},
        {"quick", no_argument, nullptr, 'q'},
        {"runs", required_argument, nullptr, 'r'},
        {"rounds", required_argument, nullptr, 'R'},
        {"scenario", required_argument, nullptr, 's'},
        {"list", no_argument, nullptr, 'l'},
        {"seed", required_argument, nullptr, 'S'},
        {"timeout", required_argument, nullptr, 't'},
        {"ssp-max-nodes", required_argument, nullptr, 'm'},
        {"lemon-timeout", required_argument, nullptr, 'L'},
        {"write-dimacs", required_argument, nullptr, 'd'},
        {nullptr, 0, nullptr, 0},
    };
    int c;
    long v;
    while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("%s\n", kVersion);
            return 0;
        case 'q':
            opt.quick = true;
            break;
        case 'r':
            if (!parse_long(optarg, 1, 1000, &v)) {
                fprintf(stderr,
                        "bench/solver: --runs wants 1..1000, got "
                        "'%s'\n",
                        optarg);
                return 2;
            }
            opt.runs = (int)v;
            break;
        case 'R':
            if (!parse_long(optarg, 1, 1000, &v)) {
                fprintf(stderr,
                        "bench/solver: --rounds wants 1..1000, got '%s'\n",
                        optarg);
                return 2;
            }
            opt.rounds = (int)v;
            break;
        case 's':
            opt.scenarios.push_back(optarg);
            break;
        case 'l':
            list = true;
            break;
        case 'S':
            if (!parse_long(optarg, 0, LONG_MAX, &v)) {
                fprintf(stderr,
                        "bench/solver: --seed wants a number >= 0, "
                        "got '%s'\n",
                        optarg);
                return 2;
            }
            opt.seed = (uint64_t)v;
            break;
        case 't':
            if (!parse_long(optarg, 1, 86400, &v)) {
                fprintf(stderr,
                        "bench/solver: --timeout wants 1..86400 "
                        "seconds, got '%s'\n",
                        optarg);
                return 2;
            }
            opt.timeout = (double)v;
            break;
        case 'L':
            if (!parse_long(optarg, 1, 86400, &v)) {
                fprintf(stderr,
                        "bench/solver: --lemon-timeout wants 1..86400 "
                        "seconds, got '%s'\n",
                        optarg);
                return 2;
            }
            opt.lemon_timeout = (double)v;
            break;
        case 'm':
            if (!parse_long(optarg, 0, INT32_MAX, &v)) {
                fprintf(stderr,
                        "bench/solver: --ssp-max-nodes wants a "
                        "number >= 0, got '%s'\n",
                        optarg);
                return 2;
            }
            opt.ssp_max_nodes = (int32_t)v;
            break;
        case 'd':
            opt.dimacs_dir = optarg;
            break;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bench/solver: unexpected argument '%s'\n",
                argv[optind]);
        usage(stderr);
        return 2;
    }
    if (list) {
        for (const Scenario &sc : kScenarios)
            printf("%-20s %s%s\n", sc.name, sc.what,
                   sc.quick ? " (--quick)" : "");
        return 0;
    }
    size_t chosen = 0;
    for (const Scenario &sc : kScenarios)
        chosen += selected(sc, opt);
    if (chosen == 0) {
        fprintf(stderr, "bench/solver: no scenario matches (see --list)\n");
        return 2;
    }
    printf("# bench/solver: %d runs per measurement, %d rounds per "
           "incremental scenario, seed %" PRIu64
           ", timeout %.0f s; times in ms, median [min-max]; 'vs LEMON' = "
           "LEMON's best median / this median (above 1: faster)\n",
           opt.runs, opt.rounds, opt.seed, opt.timeout);
    print_header();
    for (const Scenario &sc : kScenarios) {
        if (!selected(sc, opt))
            continue;
        if (sc.events > 0)
            run_incremental(sc, opt);
        else
            run_scratch(sc, opt);
    }
    print_targets();
    if (g_mismatches > 0) {
        printf("!!! %d MISMATCH(ES): some algorithm disagreed with LEMON or "
               "returned a bad flow (details on stderr)\n",
               g_mismatches);
        return 1;
    }
    printf("# every optimal cost agreed with LEMON's; every flowcore flow "
           "passed the capacity and mass-balance check\n");
    return 0;
}
