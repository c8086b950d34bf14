/*
 * bench/short_path.c - the short-task path end to end, on a local cluster
 * (1 scheduler, 16 node monitors x 4 slots, started as for `skylark
 * cluster up`), with a frontend and an executor per node monitor in this
 * process, all through the client API. In one run it measures:
 *
 *  (a) the floor: the transport's round-trip time between two processes
 *      (a dealer here, a router echoing in a child process, 100-byte
 *      messages), and its one-way message rates both ways;
 *  (b) the scheduling overhead of a task, its launch at the executor
 *      minus its job's submission, p50 and p99, at 10%, 50% and 80% slot
 *      load: jobs arrive as a Poisson process, their tasks hold a slot
 *      for a fixed time (the executor reports them done on a timer);
 *  (c) the peak sustained placement rate of the scheduler (tasks launched
 *      per second with zero-length tasks and always more work queued than
 *      slots), and the messages the scheduler handles per task (its
 *      link's received + sent, per task it launched).
 *
 * And, as context next to the targets (additional rows, not the issue's
 * definitions): the transport in the cluster's own pattern, one router
 * (this process) exchanging 100-byte messages with as many dealer
 * processes as there are node monitors: in rounds of one message to each
 * and one answer from each, the time of a round (the floor of a job's
 * fan-out on this machine); and free-running, each dealer answering and
 * getting the next message at once, the message rate through the router.
 *
 * With --insecure, the cluster runs without a cluster key (clear
 * sessions), as a daemon did before keys: alternate runs with and without
 * it to see what authenticated sessions cost (docs/SECURITY.md).
 *
 * With --spread, the daemons are pinned round-robin to the CPUs after
 * they start (all their threads), instead of being placed by the kernel:
 * a way to see how much of the result is where the kernel runs them.
 *
 * Each repetition measures everything once; the table gives medians with
 * min-max over repetitions, and the ratios against the targets: p50
 * overhead at 50% load <= 3 round trips; placement rate x messages per
 * task >= 0.5 x the transport's message rate (the slower direction).
 * Built by make, never run by make check.
 */
#include "config.h"
#include "sk_apiutil.h"
#include "sk_cluster.h"
#include "sk_log.h"
#include "sk_rng.h"
#include "sk_transport.h"
#include "skylark.h"
#include "transport_util.h"

#include <ev.h>
#include <dirent.h>
#include <ftw.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct {
    int reps;
    unsigned nodes, slots;
    double phase_s;  /* measured seconds per load level */
    double warmup_s; /* unmeasured seconds before */
    unsigned task_ms;
    unsigned job_tasks;
    long pings, stream;
    int verbose;
    int spread;
    int insecure; /* the cluster without a key */
} opt = {3, 16, 4, 4.0, 1.0, 50, 8, 5000, 200000, 0, 0, 0};

static struct ev_loop *loop;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "bench/short-path: %s\n", what);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i];
}

/* ---- (a) the transport floor: a child process as the router ---------- */

/* The child: echoes "p..." messages; on "b N" streams N messages back; on
 * "s N" counts N messages and answers "d". Runs until killed. */
static sk_transport *peer_t;
static sk_peer_id blast_to;
static long blast_left, sink_left;
static char payload[100];
static ev_idle blast_w;

static void blast_cb(struct ev_loop *l, ev_idle *w, int revents)
{
    while (blast_left > 0 &&
           sk_transport_send(peer_t, blast_to, payload, sizeof payload) == 0)
        blast_left--;
    if (blast_left == 0)
        ev_idle_stop(l, w);
}

static void peer_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    const char *m = data;
    if (len > 2 && m[0] == 'b' && m[1] == ' ') {
        blast_to = peer;
        blast_left = strtol(m + 2, NULL, 10);
        ev_idle_start(loop, &blast_w);
    } else if (len > 2 && m[0] == 's' && m[1] == ' ') {
        sink_left = strtol(m + 2, NULL, 10);
    } else if (len > 0 && m[0] == 'x') {
        if (sink_left > 0 && --sink_left == 0)
            sk_transport_send(peer_t, peer, "d", 1);
    } else {
        sk_transport_send(peer_t, peer, data, len);
    }
}

static int run_peer(const char *ep)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    loop = ev_default_loop(0);
    ev_idle_init(&blast_w, blast_cb);
    memset(payload, 'x', sizeof payload);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "sched");
    strcpy(cfg.tc_name, "echo");
    sk_transport_callbacks cb = {.tc_recv = peer_recv};
    if (sk_transport_create(loop, &cfg, &cb, &peer_t) != 0 ||
        sk_transport_listen(peer_t, ep) != 0)
        die("peer cannot listen");
    ev_run(loop, 0);
    return 0;
}

/* A dealer child of the fan-out anchor: echoes every message. */
static sk_transport *dealer_t;

static void dealer_recv(void *arg, sk_peer_id peer, const void *data,
                        size_t len)
{
    sk_transport_send(dealer_t, peer, data, len);
}

static int run_dealer(const char *ep, const char *name)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    loop = ev_default_loop(0);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "nodemon");
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    sk_transport_callbacks cb = {.tc_recv = dealer_recv};
    sk_peer_id id;
    if (sk_transport_create(loop, &cfg, &cb, &dealer_t) != 0 ||
        sk_transport_connect(dealer_t, ep, &id) != 0)
        die("dealer cannot connect");
    ev_run(loop, 0);
    return 0;
}

/* The parent's side of (a). */
static struct {
    sk_transport *t;
    sk_peer_id peer;
    int up;
    long got, want;
    double t_first, t_last, sent_at;
    double *rtt;
    long nrtt, pings_left;
    int done;
    long dblast_left;
    ev_idle dblast_w;
} me;

static void me_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    me.up = 1;
}

static void me_ping(void)
{
    me.sent_at = mono();
    if (sk_transport_send(me.t, me.peer, "p-------", 8) != 0)
        die("ping refused");
}

static void me_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    const char *m = data;
    if (m[0] == 'p') {
        if (me.pings_left-- <= opt.pings)
            me.rtt[me.nrtt++] = mono() - me.sent_at;
        if (me.pings_left > 0)
            me_ping();
        else
            me.done = 1;
    } else if (m[0] == 'd') {
        me.t_last = mono();
        me.done = 1;
    } else {
        if (me.got++ == 0)
            me.t_first = mono();
        if (me.got == me.want) {
            me.t_last = mono();
            me.done = 1;
        }
    }
}

static void dblast_cb(struct ev_loop *l, ev_idle *w, int revents)
{
    while (me.dblast_left > 0 &&
           sk_transport_send(me.t, me.peer, payload, sizeof payload) == 0)
        me.dblast_left--;
    if (me.dblast_left == 0)
        ev_idle_stop(l, w);
}

static int me_is(void *arg)
{
    return *(int *)arg;
}

/* Round trip p50 (s) and message rates (msg/s) both ways. */
static void measure_floor(double *rtt50, double *r2d, double *d2r)
{
    char ep[64], self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        die("cannot find this program");
    self[n] = '\0';
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {self, "--peer", ep, NULL};
        execv(self, argv);
        _exit(127);
    }
    memset(&me, 0, sizeof me);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "nodemon");
    strcpy(cfg.tc_name, "bench");
    sk_transport_callbacks cb = {.tc_up = me_up, .tc_recv = me_recv};
    if (sk_transport_create(loop, &cfg, &cb, &me.t) != 0 ||
        sk_transport_connect(me.t, ep, &me.peer) != 0 ||
        sk_run_until(loop, me_is, &me.up, 10) != 0)
        die("no echo peer");
    /* Round trips, after a warm-up of 500. */
    me.rtt = malloc((size_t)opt.pings * sizeof *me.rtt);
    me.pings_left = opt.pings + 500;
    me_ping();
    if (sk_run_until(loop, me_is, &me.done, 60) != 0)
        die("round trips timed out");
    *rtt50 = quantile(me.rtt, (size_t)me.nrtt, 0.5);
    free(me.rtt);
    /* Router to dealer. */
    char msg[32];
    me.done = 0;
    me.got = 0;
    me.want = opt.stream;
    snprintf(msg, sizeof msg, "b %ld", opt.stream);
    sk_transport_send(me.t, me.peer, msg, strlen(msg));
    if (sk_run_until(loop, me_is, &me.done, 60) != 0)
        die("router->dealer stream timed out");
    *r2d = (double)(opt.stream - 1) / (me.t_last - me.t_first);
    /* Dealer to router: from the first send to the sink's answer. */
    me.done = 0;
    snprintf(msg, sizeof msg, "s %ld", opt.stream);
    sk_transport_send(me.t, me.peer, msg, strlen(msg));
    ev_idle_init(&me.dblast_w, dblast_cb);
    me.dblast_left = opt.stream;
    double t0 = mono();
    ev_idle_start(loop, &me.dblast_w);
    if (sk_run_until(loop, me_is, &me.done, 60) != 0)
        die("dealer->router stream timed out");
    ev_idle_stop(loop, &me.dblast_w);
    *d2r = (double)opt.stream / (me.t_last - t0);
    sk_transport_destroy(me.t);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* The router's side of the fan-out anchor. */
static struct {
    sk_transport *t;
    sk_peer_id *peer;
    unsigned up, got;
    int running; /* free-running: answer each echo with the next message */
} fan;

static void fan_up(void *arg, sk_peer_id peer, const char *role,
                   const char *name)
{
    fan.peer[fan.up++] = peer;
}

static void fan_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    fan.got++;
    if (fan.running &&
        sk_transport_send(fan.t, peer, payload, sizeof payload) != 0)
        die("a fan-out send was refused");
}

static int fan_all_up(void *arg)
{
    return fan.up == opt.nodes;
}

static int fan_round_done(void *arg)
{
    return fan.got == opt.nodes;
}

/* One router and opt.nodes dealer processes: the p50 time (s) of a round
 * of one message to each and one answer from each, and the message rate
 * (msg/s, both ways) with every dealer always having one message. */
static void measure_fanout(double *round50, double *rate)
{
    char ep[64], self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        die("cannot find this program");
    self[n] = '\0';
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    memset(&fan, 0, sizeof fan);
    fan.peer = calloc(opt.nodes, sizeof *fan.peer);
    pid_t *pids = calloc(opt.nodes, sizeof *pids);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "sched");
    strcpy(cfg.tc_name, "fan");
    sk_transport_callbacks cb = {.tc_up = fan_up, .tc_recv = fan_recv};
    if (fan.peer == NULL || pids == NULL ||
        sk_transport_create(loop, &cfg, &cb, &fan.t) != 0 ||
        sk_transport_listen(fan.t, ep) != 0)
        die("the fan-out router cannot listen");
    for (unsigned i = 0; i < opt.nodes; i++) {
        char name[16];
        snprintf(name, sizeof name, "d%u", i);
        pids[i] = fork();
        if (pids[i] == 0) {
            char *argv[] = {self, "--dealer", ep, name, NULL};
            execv(self, argv);
            _exit(127);
        }
    }
    if (sk_run_until(loop, fan_all_up, NULL, 20) != 0)
        die("the fan-out dealers do not come up");
    enum { WARMUP = 50, ROUNDS = 500 };
    double *t = malloc(ROUNDS * sizeof *t);
    for (int r = -WARMUP; r < ROUNDS; r++) {
        double start = mono();
        fan.got = 0;
        for (unsigned i = 0; i < opt.nodes; i++)
            if (sk_transport_send(fan.t, fan.peer[i], payload,
                                  sizeof payload) != 0)
                die("a fan-out send was refused");
        if (sk_run_until(loop, fan_round_done, NULL, 10) != 0)
            die("a fan-out round timed out");
        if (r >= 0)
            t[r] = mono() - start;
    }
    *round50 = quantile(t, ROUNDS, 0.5);
    free(t);
    fan.running = 1;
    for (unsigned i = 0; i < opt.nodes; i++)
        if (sk_transport_send(fan.t, fan.peer[i], payload, sizeof payload) != 0)
            die("a fan-out send was refused");
    tu_run_for(loop, 0.2);
    unsigned got0 = fan.got;
    double t1 = mono();
    tu_run_for(loop, 1.0);
    *rate = 2.0 * (fan.got - got0) / (mono() - t1);
    fan.running = 0;
    sk_transport_destroy(fan.t);
    for (unsigned i = 0; i < opt.nodes; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
    free(pids);
    free(fan.peer);
}

/* ---- the cluster side: executors that run no-op tasks ------------------- */

typedef struct pending_task {
    ev_timer pt_w;
    sk_executor *pt_ex;
    sk_job_id pt_job;
    uint32_t pt_task, pt_attempt;
} pending_task;

static struct {
    sk_executor *ex[1024];
    unsigned nex;
    int recording;
    double *over; /* overhead samples, s */
    size_t nover, capover;
    uint64_t launched;
    uint64_t failed; /* tasks that did not end OK */
} X;

static void finish_timer(struct ev_loop *l, ev_timer *w, int revents)
{
    pending_task *p = (pending_task *)w;
    sk_executor_finish(p->pt_ex, p->pt_job, p->pt_task, p->pt_attempt,
                       SK_OUTCOME_OK, 0, NULL, 0);
    free(p);
}

/* The spec: "SUBMIT_US HOLD_MS". */
static void ex_launch(void *arg, const sk_launch_info *t)
{
    sk_executor *ex = *(sk_executor **)arg;
    char spec[64];
    uint32_t n = t->li_spec_len < sizeof spec - 1 ? t->li_spec_len
                                                  : (uint32_t)sizeof spec - 1;
    memcpy(spec, t->li_spec, n);
    spec[n] = '\0';
    char *end;
    uint64_t submit = strtoull(spec, &end, 10);
    unsigned hold = (unsigned)strtoul(end, NULL, 10);
    X.launched++;
    if (X.recording && t->li_attempt == 0) {
        if (X.nover == X.capover) {
            X.capover = X.capover ? 2 * X.capover : 4096;
            X.over = realloc(X.over, X.capover * sizeof *X.over);
            if (X.over == NULL)
                die("out of memory");
        }
        X.over[X.nover++] = (double)(t->li_launch_us - submit) / 1e6;
    }
    if (hold == 0) {
        sk_executor_finish(ex, t->li_job, t->li_task, t->li_attempt,
                           SK_OUTCOME_OK, 0, NULL, 0);
        return;
    }
    pending_task *p = malloc(sizeof *p);
    if (p == NULL)
        die("out of memory");
    p->pt_ex = ex;
    p->pt_job = t->li_job;
    p->pt_task = t->li_task;
    p->pt_attempt = t->li_attempt;
    ev_timer_init(&p->pt_w, finish_timer, hold / 1000.0, 0);
    ev_timer_start(loop, &p->pt_w);
}

/* ---- the frontend: jobs of no-op tasks ---------------------------------- */

static struct {
    sk_frontend *fe;
    sk_rng rng;
    uint64_t inflight_tasks;
    unsigned inflight_jobs;
    unsigned hold_ms;
    double rate_jobs;   /* Poisson arrivals per second, or 0 */
    unsigned keep_jobs; /* closed loop: jobs kept in flight, or 0 */
    unsigned job_tasks;
    int stop;
    ev_timer arrive_w;
} F;

static void submit_job(void);

static void job_done(void *arg, const sk_job_result *r)
{
    F.inflight_jobs--;
    F.inflight_tasks -= r->jr_tasks;
    X.failed += r->jr_tasks - r->jr_ok;
    if (F.keep_jobs > 0 && !F.stop)
        while (F.inflight_jobs < F.keep_jobs)
            submit_job();
}

static void submit_job(void)
{
    static sk_task_desc td[4096];
    static char spec[64];
    int len = snprintf(spec, sizeof spec, "%llu %u",
                       (unsigned long long)sk_wall_us(), F.hold_ms);
    for (unsigned i = 0; i < F.job_tasks; i++)
        td[i] = (sk_task_desc){.td_spec = spec, .td_spec_len = (uint32_t)len};
    sk_job_desc jd;
    sk_job_desc_init(&jd);
    jd.jo_user = "bench";
    jd.jo_framework = "noop";
    jd.jo_tasks = td;
    jd.jo_ntasks = F.job_tasks;
    sk_job_callbacks cb = {NULL, NULL, job_done, NULL};
    if (sk_frontend_submit(F.fe, &jd, &cb, NULL) != 0)
        die(sk_frontend_error(F.fe));
    F.inflight_jobs++;
    F.inflight_tasks += F.job_tasks;
}

static void arrive_cb(struct ev_loop *l, ev_timer *w, int revents)
{
    if (F.stop)
        return;
    submit_job();
    ev_timer_set(w, sk_rng_exponential(&F.rng, 1.0 / F.rate_jobs), 0);
    ev_timer_start(l, w);
}

static int idle_now(void *arg)
{
    return F.inflight_jobs == 0;
}

static int never(void *arg)
{
    return 0;
}

static void run_for(double s)
{
    sk_run_until(loop, never, NULL, s);
}

/* The lone path: 1-task jobs one after the other; overhead p50 (s). */
static void measure_serial(double *p50)
{
    F.job_tasks = 1;
    F.hold_ms = 0;
    F.keep_jobs = 0;
    F.stop = 0;
    X.nover = 0;
    X.recording = 1;
    for (int i = 0; i < 300; i++) {
        submit_job();
        if (sk_run_until(loop, idle_now, NULL, 10) != 0)
            die("a lone job did not end");
    }
    X.recording = 0;
    *p50 = quantile(X.over, X.nover, 0.5);
}

/* (b): overhead p50 and p99 (s) at a slot load. */
static void measure_load(double load, double *p50, double *p99)
{
    double slots = (double)(opt.nodes * opt.slots);
    F.job_tasks = opt.job_tasks;
    F.hold_ms = opt.task_ms;
    F.rate_jobs = load * slots / (opt.task_ms / 1000.0) / opt.job_tasks;
    F.keep_jobs = 0;
    F.stop = 0;
    ev_timer_init(&F.arrive_w, arrive_cb,
                  sk_rng_exponential(&F.rng, 1.0 / F.rate_jobs), 0);
    ev_timer_start(loop, &F.arrive_w);
    run_for(opt.warmup_s);
    X.nover = 0;
    X.recording = 1;
    run_for(opt.phase_s);
    X.recording = 0;
    F.stop = 1;
    ev_timer_stop(loop, &F.arrive_w);
    if (sk_run_until(loop, idle_now, NULL, 30) != 0)
        die("jobs did not drain");
    *p50 = quantile(X.over, X.nover, 0.5);
    *p99 = quantile(X.over, X.nover, 0.99);
    if (opt.verbose)
        fprintf(stderr, "  load %.0f%%: %zu samples, %.1f jobs/s\n", load * 100,
                X.nover, F.rate_jobs);
}

static const skc_cluster *cpu_cluster;

/* A counter of the scheduler's status. */
static double sched_counter(const char *ep, const char *key)
{
    sk_status *s;
    if (sk_status_fetch_keyed(ep, skc_key(cpu_cluster), 5, 0, &s) != 0)
        die("the scheduler does not answer");
    const char *v = sk_status_get(s, key);
    double x = v != NULL ? atof(v) : -1;
    sk_status_free(s);
    if (x < 0)
        die("the scheduler's status lacks a counter");
    return x;
}

/* CPU seconds used so far by this process and the cluster's daemons. */

static double cpu_seconds(int sched_only)
{
    double hz = (double)sysconf(_SC_CLK_TCK), sum = 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (!sched_only)
        sum += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    for (unsigned i = 0; i < cpu_cluster->cc_n; i++) {
        if (sched_only && cpu_cluster->cc_daemons[i].cd_kind != SKC_SCHED)
            continue;
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%ld/stat",
                 (long)cpu_cluster->cc_daemons[i].cd_pid);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* Fields after the command's closing parenthesis: state is the
         * 3rd field, utime and stime the 14th and 15th. */
        char *p = strrchr(buf, ')');
        unsigned long ut = 0, st = 0;
        if (p != NULL && sscanf(p + 2,
                                "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
                                "%*u %lu %lu",
                                &ut, &st) == 2)
            sum += (double)(ut + st) / hz;
    }
    return sum;
}

/* (c): placement rate (tasks/s) and the scheduler's messages per task;
 * also its frames per task and the CPU the whole set-up used. */
static void measure_peak(const char *sched_ep, double *rate, double *mpt,
                         double *fpt, double *cpu_us, double *cores,
                         double *sched_us)
{
    F.job_tasks = 4 * opt.slots;
    F.hold_ms = 0;
    F.keep_jobs = 4 * opt.nodes;
    F.stop = 0;
    while (F.inflight_jobs < F.keep_jobs)
        submit_job();
    run_for(opt.warmup_s);
    double msgs0 = sched_counter(sched_ep, "link.received") +
                   sched_counter(sched_ep, "link.sent");
    double tasks0 = sched_counter(sched_ep, "tasks_launched");
    double frames0 = sched_counter(sched_ep, "transport.frames_received") +
                     sched_counter(sched_ep, "transport.frames_sent");
    uint64_t l0 = X.launched;
    double t0 = mono(), c0 = cpu_seconds(0), s0 = cpu_seconds(1);
    run_for(opt.phase_s);
    uint64_t l1 = X.launched;
    double t1 = mono(), c1 = cpu_seconds(0), s1 = cpu_seconds(1);
    double msgs1 = sched_counter(sched_ep, "link.received") +
                   sched_counter(sched_ep, "link.sent");
    double tasks1 = sched_counter(sched_ep, "tasks_launched");
    double frames1 = sched_counter(sched_ep, "transport.frames_received") +
                     sched_counter(sched_ep, "transport.frames_sent");
    F.stop = 1;
    if (sk_run_until(loop, idle_now, NULL, 60) != 0)
        die("jobs did not drain");
    *rate = (double)(l1 - l0) / (t1 - t0);
    *mpt = (msgs1 - msgs0) / (tasks1 - tasks0);
    *fpt = (frames1 - frames0) / (tasks1 - tasks0);
    *cpu_us = (c1 - c0) / (double)(l1 - l0) * 1e6;
    *cores = (c1 - c0) / (t1 - t0);
    *sched_us = (s1 - s0) / (double)(l1 - l0) * 1e6;
}

/* ---- the report --------------------------------------------------------- */

enum {
    M_RTT,
    M_R2D,
    M_D2R,
    M_SERIAL,
    M_P50_10,
    M_P99_10,
    M_P50_50,
    M_P99_50,
    M_P50_80,
    M_P99_80,
    M_RATE,
    M_CPU,
    M_SCHED_CPU,
    M_SCHED_CAP,
    M_MPT,
    M_FPT,
    M_CORES,
    M_RATIO_LONE,
    M_RATIO_RTT,
    M_RATIO_RATE,
    M_RATIO_CAP,
    M_FAN_ROUND,
    M_FAN_RATE,
    M_RATIO_FAN_P50,
    M_RATIO_FAN_RATE,
    NM
};

static const char *const NAMES[NM] = {
    "transport round trip p50 (us)",
    "transport router->dealer (msg/s)",
    "transport dealer->router (msg/s)",
    "overhead p50, one lone task (us)",
    "overhead p50 at 10% load (us)",
    "overhead p99 at 10% load (us)",
    "overhead p50 at 50% load (us)",
    "overhead p99 at 50% load (us)",
    "overhead p50 at 80% load (us)",
    "overhead p99 at 80% load (us)",
    "placement rate (tasks/s)",
    "CPU per task placed, all processes (us)",
    "CPU per task placed, scheduler (us)",
    "scheduler alone: 1 / its CPU (tasks/s)",
    "scheduler messages per task",
    "scheduler frames per task",
    "CPU in use during (c) (cores)",
    "lone task p50 / round trip",
    "p50 at 50% / round trip (<= 3)",
    "rate x msgs/task / transport (>= 0.5)",
    "same with the scheduler-alone rate",
    "additional: fan-out round p50 (us)",
    "additional: fan-out rate (msg/s)",
    "additional: p50 at 50% / fan-out round",
    "additional: rate x msgs/task / fan-out",
};

/* --spread: daemon i and all its threads on CPU i mod the CPUs online. */
static void spread_daemons(const skc_cluster *cl)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    for (unsigned i = 0; ncpu > 1 && i < cl->cc_n; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)(i % (unsigned long)ncpu), &set);
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/task",
                 (long)cl->cc_daemons[i].cd_pid);
        DIR *d = opendir(path);
        if (d == NULL)
            die("--spread: a daemon's threads cannot be listed");
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && sched_setaffinity((pid_t)atol(e->d_name),
                                                         sizeof set, &set) != 0)
                die("--spread: sched_setaffinity refused");
        closedir(d);
    }
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    return remove(path);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench/short-path [--reps R] [--nodes N] [--slots S]\n"
               "                        [--phase SECONDS] [--task-ms MS] "
               "[--job-tasks K] [--spread] [--insecure] [--verbose]\n"
               "Measures the short-task path on a local cluster (see the "
               "source's header).\n"
               "  --reps R        repetitions (default 3)\n"
               "  --nodes N       node monitors (default 16)\n"
               "  --slots S       slots per node monitor (default 4)\n"
               "  --phase S       measured seconds per load level (default 4)\n"
               "  --task-ms MS    how long a task holds its slot in (b) "
               "(default 50)\n"
               "  --job-tasks K   tasks per job in (b) (default 8)\n"
               "  --spread        pin the daemons round-robin to the CPUs\n"
               "  --insecure      no cluster key: clear sessions\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"reps", required_argument, NULL, 'r'},
        {"nodes", required_argument, NULL, 'n'},
        {"slots", required_argument, NULL, 's'},
        {"phase", required_argument, NULL, 'p'},
        {"task-ms", required_argument, NULL, 't'},
        {"job-tasks", required_argument, NULL, 'k'},
        {"peer", required_argument, NULL, 'P'},
        {"dealer", required_argument, NULL, 'D'},
        {"verbose", no_argument, NULL, 'v'},
        {"spread", no_argument, NULL, 'S'},
        {"insecure", no_argument, NULL, 'I'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            opt.reps = atoi(optarg);
            break;
        case 'n':
            opt.nodes = (unsigned)atoi(optarg);
            break;
        case 's':
            opt.slots = (unsigned)atoi(optarg);
            break;
        case 'p':
            opt.phase_s = atof(optarg);
            break;
        case 't':
            opt.task_ms = (unsigned)atoi(optarg);
            break;
        case 'k':
            opt.job_tasks = (unsigned)atoi(optarg);
            break;
        case 'P':
            sk_log_set_level(SK_LOG_WARN);
            return run_peer(optarg);
        case 'D':
            sk_log_set_level(SK_LOG_WARN);
            if (optind >= argc)
                return 2;
            return run_dealer(optarg, argv[optind]);
        case 'v':
            opt.verbose = 1;
            break;
        case 'S':
            opt.spread = 1;
            break;
        case 'I':
            opt.insecure = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (opt.reps < 1 || opt.nodes < 1 || opt.nodes > 1000 || opt.slots < 1 ||
        opt.phase_s <= 0 || opt.task_ms < 1 || opt.job_tasks < 1 ||
        opt.job_tasks > 4096 || 4 * opt.slots > 4096) {
        usage(stderr);
        return 2;
    }
    sk_log_set_level(SK_LOG_WARN);
    signal(SIGPIPE, SIG_IGN);
    loop = ev_default_loop(0);
    memset(payload, 'x', sizeof payload);
    sk_rng_seed(&F.rng, 42);

    char dir[] = "/tmp/skylark-bench-XXXXXX";
    if (mkdtemp(dir) == NULL)
        die("mkdtemp");
    skc_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.cs_dir = dir;
    sp.cs_schedulers = 1;
    sp.cs_nodes = opt.nodes;
    sp.cs_slots = opt.slots;
    sp.cs_log_level = "warn";
    sp.cs_timeout = 60;
    sp.cs_quiet = 1;
    sp.cs_insecure = opt.insecure;
    static skc_cluster cl;
    char err[1024];
    if (skc_start(&sp, &cl, err, sizeof err) != 0) {
        fprintf(stderr, "bench/short-path: %s\n", err);
        return 1;
    }
    if (opt.spread)
        spread_daemons(&cl);
    const char *sched_ep = NULL;
    cpu_cluster = &cl;
    for (unsigned i = 0; i < cl.cc_n; i++) {
        if (cl.cc_daemons[i].cd_kind == SKC_SCHED) {
            sched_ep = cl.cc_daemons[i].cd_endpoint;
            continue;
        }
        sk_executor_opts eo;
        sk_executor_opts_init(&eo);
        eo.eo_nodemon = cl.cc_daemons[i].cd_endpoint;
        eo.eo_framework = "noop";
        eo.eo_key_file = skc_key(&cl);
        sk_executor **ex = &X.ex[X.nex++];
        sk_executor_callbacks cb = {ex_launch, NULL, NULL, ex};
        if (sk_executor_create(loop, &eo, &cb, ex) != 0 ||
            sk_executor_wait_registered(*ex, 10) != 0)
            die("an executor does not register");
    }
    sk_frontend_opts fo;
    sk_frontend_opts_init(&fo);
    fo.fo_schedulers = &sched_ep;
    fo.fo_nschedulers = 1;
    fo.fo_key_file = skc_key(&cl);
    if (sk_frontend_create(loop, &fo, &F.fe) != 0 ||
        sk_frontend_wait_connected(F.fe, 10) != 0)
        die("no scheduler");

    double *v[NM];
    for (int m = 0; m < NM; m++)
        v[m] = calloc((size_t)opt.reps, sizeof(double));
    char la[64] = "?";
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf != NULL) {
        if (fgets(la, sizeof la, lf) == NULL)
            snprintf(la, sizeof la, "?");
        fclose(lf);
        la[strcspn(la, "\n")] = '\0';
    }
    printf("# machine: %ld CPUs, load average at start %s\n",
           sysconf(_SC_NPROCESSORS_ONLN), la);
    printf("# bench/short-path: 1 scheduler, %u node monitors x %u slots, "
           "%d repetitions%s%s\n"
           "# (b) jobs of %u tasks holding a slot %u ms, Poisson arrivals, "
           "%.0f s measured per load after %.0f s\n"
           "# (c) zero-length tasks, %u jobs of %u tasks kept in flight\n",
           opt.nodes, opt.slots, opt.reps,
           opt.spread ? ", daemons pinned round-robin to the CPUs" : "",
           opt.insecure ? ", no cluster key (clear sessions)"
                        : ", sessions sealed under the cluster key",
           opt.job_tasks, opt.task_ms, opt.phase_s, opt.warmup_s, 4 * opt.nodes,
           4 * opt.slots);
    for (int r = 0; r < opt.reps; r++) {
        measure_floor(&v[M_RTT][r], &v[M_R2D][r], &v[M_D2R][r]);
        measure_fanout(&v[M_FAN_ROUND][r], &v[M_FAN_RATE][r]);
        measure_serial(&v[M_SERIAL][r]);
        measure_load(0.1, &v[M_P50_10][r], &v[M_P99_10][r]);
        measure_load(0.5, &v[M_P50_50][r], &v[M_P99_50][r]);
        measure_load(0.8, &v[M_P50_80][r], &v[M_P99_80][r]);
        measure_peak(sched_ep, &v[M_RATE][r], &v[M_MPT][r], &v[M_FPT][r],
                     &v[M_CPU][r], &v[M_CORES][r], &v[M_SCHED_CPU][r]);
        v[M_SCHED_CAP][r] = 1e6 / v[M_SCHED_CPU][r];
        v[M_RATIO_LONE][r] = v[M_SERIAL][r] / v[M_RTT][r];
        v[M_RATIO_RTT][r] = v[M_P50_50][r] / v[M_RTT][r];
        double raw = v[M_R2D][r] < v[M_D2R][r] ? v[M_R2D][r] : v[M_D2R][r];
        v[M_RATIO_RATE][r] = v[M_RATE][r] * v[M_MPT][r] / raw;
        v[M_RATIO_CAP][r] = v[M_SCHED_CAP][r] * v[M_MPT][r] / raw;
        v[M_RATIO_FAN_P50][r] = v[M_P50_50][r] / v[M_FAN_ROUND][r];
        v[M_RATIO_FAN_RATE][r] = v[M_RATE][r] * v[M_MPT][r] / v[M_FAN_RATE][r];
        for (int m = M_RTT; m <= M_P99_80; m++)
            if (m != M_R2D && m != M_D2R)
                v[m][r] *= 1e6;
        v[M_FAN_ROUND][r] *= 1e6;
        if (isatty(STDERR_FILENO) || opt.verbose)
            fprintf(stderr, "repetition %d/%d done\n", r + 1, opt.reps);
    }
    printf("\n| %-40s | %12s | %12s | %12s |\n", "metric", "median", "min",
           "max");
    printf("|%s|%s|%s|%s|\n", "------------------------------------------",
           "--------------", "--------------", "--------------");
    for (int m = 0; m < NM; m++) {
        double med = quantile(v[m], (size_t)opt.reps, 0.5);
        int prec = (m >= M_MPT && m < M_FAN_ROUND) || m > M_FAN_RATE ? 2 : 0;
        printf("| %-40s | %12.*f | %12.*f | %12.*f |\n", NAMES[m], prec, med,
               prec, v[m][0], prec, v[m][opt.reps - 1]);
    }
    printf("\ntasks that did not end OK: %llu\n", (unsigned long long)X.failed);
    sk_frontend_destroy(F.fe);
    for (unsigned i = 0; i < X.nex; i++)
        sk_executor_destroy(X.ex[i]);
    skc_stop(&cl, 5, NULL);
    if (X.failed == 0)
        nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    else
        fprintf(stderr, "bench/short-path: the daemons' logs are in %s\n", dir);
    return X.failed == 0 ? 0 : 1;
}
