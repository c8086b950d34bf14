/*
 * bench/transport.c - the Skylark transport against plain nanomsg on
 * loopback TCP: round-trip latency (p50, p99) and one-way throughput.
 *
 * Every measurement runs between two processes: this one and a copy of it
 * started with --peer. Anchors in the same run: a cooked NN_REQ/NN_REP
 * pair for latency, an NN_PUSH/NN_PULL pair for throughput. The transport
 * is measured as dealer -> router -> dealer round trips, and as one-way
 * streams in both directions (router to dealer is the flow-controlled
 * one). The transport is measured twice, in clear sessions and in sealed
 * ones (a cluster key: authenticated and encrypted frames), so that the
 * cost of authentication is a ratio within the same repetition. Each
 * repetition measures everything once, clear and sealed back to back for
 * each measurement (the sealed one first in every other repetition); the
 * table gives medians with min-max over repetitions, and ratios per
 * repetition.
 *
 * On a shared machine a stream's rate says as much about the load as
 * about the code, so the dealer->router stream also reports the CPU time
 * its sending process spent per message (wait4's rusage), clear and
 * sealed. And the cipher alone is measured in the same repetition: 64
 * KiB frame bodies sealed in this thread, per second of its CPU time. A
 * sealed sender does at least the clear one's work plus that pass over
 * every record (its receiver the same to open them, on the other core),
 * so a stream that is CPU bound in the clear runs sealed at most at
 * clear CPU per message / (that + the cipher's CPU per record) of its
 * clear rate: the ceiling row.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_tauth.h"
#include "sk_tframe.h"
#include "sk_transport.h"
#include "skylark.h"
#include "transport_util.h"

#include <ev.h>
#include <getopt.h>
#include <limits.h>
#include <nanomsg/nn.h>
#include <nanomsg/pipeline.h>
#include <nanomsg/reqrep.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long opt_count = 200000; /* messages per throughput run */
static long opt_pings = 20000;  /* round trips per latency run */
static long opt_size = 100;     /* message bytes */
static int opt_reps = 5;
static int sealed; /* this measurement (and its peer) under a cluster key */
static const uint8_t bench_key[SK_TRANSPORT_KEY_BYTES] = {42, 7, 1};

/* Default settings, sealed under the bench key when `sealed` is set. */
static void bench_config(sk_transport_config *cfg)
{
    sk_transport_config_default(cfg);
    if (sealed) {
        cfg->tc_keyed = 1;
        memcpy(cfg->tc_key, bench_key, sizeof bench_key);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, long n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    long i = (long)(q * (double)(n - 1) + 0.5);
    return v[i];
}

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "bench/transport: %s\n", what);
    exit(1);
}

/* --- the peer process ------------------------------------------------------
 */

static struct ev_loop *loop;
static sk_transport *tr;
static sk_peer_id blast_to;
static long blast_left;
static char *payload;
static ev_idle blast_w;

static void blast_cb(struct ev_loop *l, ev_idle *w, int revents)
{
    (void)revents;
    /* Send until the transport pushes back, then let the loop run. */
    while (blast_left > 0 &&
           sk_transport_send(tr, blast_to, payload, (size_t)opt_size) == 0)
        blast_left--;
    if (blast_left == 0)
        ev_idle_stop(l, w);
}

static void peer_up(void *arg, sk_peer_id peer, const char *role,
                    const char *name)
{
    (void)role;
    (void)name;
    if (arg != NULL && blast_left > 0) {
        blast_to = peer;
        ev_idle_start(loop, &blast_w);
    }
}

static void peer_echo(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    (void)arg;
    sk_transport_send(tr, peer, data, len);
}

static sk_transport *make_transport(const char *role, int blast)
{
    sk_transport_config cfg;
    bench_config(&cfg);
    strcpy(cfg.tc_role, role);
    strcpy(cfg.tc_name, role[0] == 's' ? "s1" : "n1");
    sk_transport_callbacks cb = {.tc_up = peer_up,
                                 .tc_recv = blast ? NULL : peer_echo,
                                 .tc_arg = blast ? (void *)1 : NULL};
    sk_transport *t;
    if (sk_transport_create(loop, &cfg, &cb, &t) < 0)
        die("cannot create a transport");
    return t;
}

/* MODE ENDPOINT: runs until killed. */
static int run_peer(const char *mode, const char *ep)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    payload = calloc(1, (size_t)opt_size + 1);
    if (strcmp(mode, "nnrep") == 0) {
        int s = nn_socket(AF_SP, NN_REP);
        if (s < 0 || nn_bind(s, ep) < 0)
            die("rep bind");
        for (;;) {
            void *m;
            int n = nn_recv(s, &m, NN_MSG, 0);
            if (n < 0 || nn_send(s, &m, NN_MSG, 0) < 0)
                die("rep echo");
        }
    }
    if (strcmp(mode, "nnpush") == 0) {
        int s = nn_socket(AF_SP, NN_PUSH);
        if (s < 0 || nn_connect(s, ep) < 0)
            die("push connect");
        for (long i = 0; i < opt_count; i++)
            if (nn_send(s, payload, (size_t)opt_size, 0) < 0)
                die("push send");
        pause(); /* closing now could drop what is still in flight */
        return 0;
    }
    loop = ev_default_loop(0);
    ev_idle_init(&blast_w, blast_cb);
    sk_peer_id id;
    blast_left = opt_count;
    if (strcmp(mode, "skecho") == 0) {
        blast_left = 0;
        tr = make_transport("sched", 0);
        if (sk_transport_listen(tr, ep) < 0)
            die("listen");
    } else if (strcmp(mode, "skrouter") == 0) {
        tr = make_transport("sched", 1);
        if (sk_transport_listen(tr, ep) < 0)
            die("listen");
    } else if (strcmp(mode, "skdealer") == 0) {
        tr = make_transport("nodemon", 1);
        if (sk_transport_connect(tr, ep, &id) < 0)
            die("connect");
    } else {
        die("unknown peer mode");
    }
    ev_run(loop, 0);
    return 0;
}

/* This program, to run again as a child: argv[0] made absolute rather
 * than /proc/self/exe, which under valgrind is valgrind. */
static char self_path[4096] = "/proc/self/exe";

static void find_self(const char *argv0)
{
    if (strchr(argv0, '/') == NULL || realpath(argv0, self_path) == NULL)
        strcpy(self_path, "/proc/self/exe");
}

static pid_t spawn(const char *mode, const char *ep)
{
    char count[32], size[32];
    snprintf(count, sizeof count, "--count=%ld", opt_count);
    snprintf(size, sizeof size, "--size=%ld", opt_size);
    char *argv[8];
    int a = 0;
    argv[a++] = "bench-transport";
    argv[a++] = count;
    argv[a++] = size;
    if (sealed)
        argv[a++] = "--sealed";
    argv[a++] = "--peer";
    argv[a++] = (char *)mode;
    argv[a++] = (char *)ep;
    argv[a] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execv(self_path, argv);
        _exit(127);
    }
    if (pid < 0)
        die("fork");
    return pid;
}

/* Kills a peer process and returns the CPU time it used (user and
 * system, seconds). */
static double stop(pid_t pid)
{
    struct rusage ru;
    kill(pid, SIGKILL);
    if (wait4(pid, NULL, 0, &ru) < 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void endpoint(char *ep, size_t len)
{
    int port = tu_free_port();
    if (port == 0)
        die("no free port");
    snprintf(ep, len, "tcp://127.0.0.1:%d", port);
}

/* --- measurements ----------------------------------------------------------
 */

#define WARMUP 1000

static void nn_latency(double *p50, double *p99)
{
    char ep[64];
    endpoint(ep, sizeof ep);
    pid_t pid = spawn("nnrep", ep);
    int s = nn_socket(AF_SP, NN_REQ);
    if (s < 0 || nn_connect(s, ep) < 0)
        die("req connect");
    double *rtt = malloc((size_t)opt_pings * sizeof *rtt);
    char *buf = malloc((size_t)opt_size);
    memset(buf, 'x', (size_t)opt_size);
    for (long i = -WARMUP; i < opt_pings; i++) {
        double t0 = now_s();
        void *m;
        if (nn_send(s, buf, (size_t)opt_size, 0) < 0 ||
            nn_recv(s, &m, NN_MSG, 0) < 0)
            die("req round trip");
        nn_freemsg(m);
        if (i >= 0)
            rtt[i] = now_s() - t0;
    }
    *p50 = quantile(rtt, opt_pings, 0.50) * 1e6;
    *p99 = quantile(rtt, opt_pings, 0.99) * 1e6;
    nn_close(s);
    stop(pid);
    free(rtt);
    free(buf);
}

static double nn_throughput(void)
{
    char ep[64];
    endpoint(ep, sizeof ep);
    int s = nn_socket(AF_SP, NN_PULL);
    if (s < 0 || nn_bind(s, ep) < 0)
        die("pull bind");
    pid_t pid = spawn("nnpush", ep);
    double t0 = 0;
    for (long i = 0; i < opt_count; i++) {
        void *m;
        if (nn_recv(s, &m, NN_MSG, 0) < 0)
            die("pull recv");
        nn_freemsg(m);
        if (i == 0)
            t0 = now_s();
    }
    double rate = (double)(opt_count - 1) / (now_s() - t0);
    nn_close(s);
    stop(pid);
    return rate;
}

/* State of the transport measurements in this process. */
static struct {
    sk_peer_id peer;
    long got;
    long pings_left;
    double t0, sent_at;
    double *rtt;
    long nrtt;
} me;

static void me_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    (void)arg;
    (void)role;
    (void)name;
    me.peer = peer;
}

static void me_ping(void)
{
    me.sent_at = now_s();
    if (sk_transport_send(tr, me.peer, payload, (size_t)opt_size) < 0)
        die("ping send");
}

static void me_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    (void)arg;
    (void)peer;
    (void)data;
    (void)len;
    if (me.rtt != NULL) {
        long i = opt_pings + WARMUP - me.pings_left;
        if (i >= WARMUP)
            me.rtt[i - WARMUP] = now_s() - me.sent_at;
        if (--me.pings_left > 0)
            me_ping();
        return;
    }
    if (me.got++ == 0)
        me.t0 = now_s();
}

static int me_has_peer(void *arg)
{
    (void)arg;
    return me.peer != 0;
}

static int me_done(void *arg)
{
    (void)arg;
    return me.rtt != NULL ? me.pings_left == 0 : me.got >= opt_count;
}

static sk_transport *me_transport(const char *role)
{
    sk_transport_config cfg;
    bench_config(&cfg);
    strcpy(cfg.tc_role, role);
    strcpy(cfg.tc_name, "me");
    sk_transport_callbacks cb = {.tc_up = me_up, .tc_recv = me_recv};
    sk_transport *t;
    if (sk_transport_create(loop, &cfg, &cb, &t) < 0)
        die("cannot create a transport");
    return t;
}

static void sk_latency(double *p50, double *p99)
{
    char ep[64];
    endpoint(ep, sizeof ep);
    pid_t pid = spawn("skecho", ep);
    memset(&me, 0, sizeof me);
    tr = me_transport("nodemon");
    sk_peer_id id;
    if (sk_transport_connect(tr, ep, &id) < 0 ||
        !tu_run_until(loop, me_has_peer, NULL, 10))
        die("no echo peer");
    me.rtt = malloc((size_t)opt_pings * sizeof *me.rtt);
    me.pings_left = opt_pings + WARMUP;
    me_ping();
    if (!tu_run_until(loop, me_done, NULL, 120))
        die("latency run timed out");
    *p50 = quantile(me.rtt, opt_pings, 0.50) * 1e6;
    *p99 = quantile(me.rtt, opt_pings, 0.99) * 1e6;
    free(me.rtt);
    sk_transport_destroy(tr);
    stop(pid);
}

/* One-way stream into this process; router_here: we listen and the
 * peer's dealer sends, else we connect and the peer's router sends.
 * Returns the rate, and sets *cpu_ns (if not NULL) to the CPU time the
 * sending process spent per message (its whole life: start and handshake
 * are a few milliseconds of it), which the machine's load does not
 * inflate as it does a rate. */
static double sk_throughput(int router_here, double *cpu_ns)
{
    char ep[64];
    endpoint(ep, sizeof ep);
    memset(&me, 0, sizeof me);
    pid_t pid;
    if (router_here) {
        tr = me_transport("sched");
        if (sk_transport_listen(tr, ep) < 0)
            die("listen");
        pid = spawn("skdealer", ep);
    } else {
        pid = spawn("skrouter", ep);
        tr = me_transport("nodemon");
        sk_peer_id id;
        if (sk_transport_connect(tr, ep, &id) < 0)
            die("connect");
    }
    if (!tu_run_until(loop, me_done, NULL, 120))
        die("throughput run timed out");
    double rate = (double)(opt_count - 1) / (now_s() - me.t0);
    sk_transport_destroy(tr);
    double cpu = stop(pid);
    if (cpu_ns != NULL)
        *cpu_ns = cpu / (double)opt_count * 1e9;
    return rate;
}

/* The cipher alone: MB of frame body sealed per second of this thread's
 * CPU time, in 64 KiB bodies (the default tc_max_batch) for at least
 * 0.2 s. */
static double seal_rate(void)
{
    enum { BODY = 64 << 10 };
    static uint8_t body[BODY], hdr[SK_TFRAME_HDR], tag[SK_TAUTH_TAG];
    static const uint8_t key[SK_TAUTH_KEY] = {9};
    struct timespec a, b;
    if (sk_tauth_init() < 0)
        die("libsodium does not start");
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    double spent = 0;
    long n = 0;
    while (spent < 0.2) {
        for (int i = 0; i < 16; i++, n++)
            sk_tauth_seal(key, (uint32_t)n, hdr, sizeof hdr, body, BODY, body,
                          tag);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        spent = (double)(b.tv_sec - a.tv_sec) +
                (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    }
    return (double)n * BODY / spent / 1e6;
}

/* --- report ----------------------------------------------------------------
 */

enum {
    NN_P50,
    NN_P99,
    SK_P50,
    SK_P99,
    NN_TPUT,
    SK_TPUT_RD,
    SK_TPUT_DR,
    SEAL_P50,
    SEAL_P99,
    SEAL_TPUT_RD,
    SEAL_TPUT_DR,
    R_P50,
    R_TPUT_RD,
    R_TPUT_DR,
    R_SEAL_P50,
    R_SEAL_RD,
    R_SEAL_DR,
    SK_CPU_DR,
    SEAL_CPU_DR,
    R_CPU_DR,
    SEAL_MBS,
    R_SEAL_CEIL,
    NMETRICS
};

static const char *const metric_names[NMETRICS] = {
    "nanomsg REQ/REP round trip p50 (us)",
    "nanomsg REQ/REP round trip p99 (us)",
    "skylark round trip p50 (us)",
    "skylark round trip p99 (us)",
    "nanomsg PUSH/PULL (msg/s)",
    "skylark router->dealer (msg/s)",
    "skylark dealer->router (msg/s)",
    "sealed round trip p50 (us)",
    "sealed round trip p99 (us)",
    "sealed router->dealer (msg/s)",
    "sealed dealer->router (msg/s)",
    "ratio p50 skylark/nanomsg (<= 1.2)",
    "ratio router->dealer/push-pull (>= 0.8)",
    "ratio dealer->router/push-pull (>= 0.8)",
    "ratio p50 sealed/clear (<= 1.1)",
    "ratio router->dealer sealed/clear (>= 0.8)",
    "ratio dealer->router sealed/clear (>= 0.8)",
    "dealer->router sender CPU/msg clear (ns)",
    "dealer->router sender CPU/msg sealed (ns)",
    "ratio of those, clear/sealed",
    "sealing alone, one core (MB/s of CPU)",
    "ceiling dealer->router from the cipher",
};

static void usage(FILE *f)
{
    fprintf(f, "usage: bench/transport [--count N] [--pings N] [--size B] "
               "[--reps R]\n"
               "Compares the Skylark transport with plain nanomsg on loopback "
               "TCP,\nbetween this process and a child process.\n"
               "  --count N   messages per throughput run (default 200000)\n"
               "  --pings N   round trips per latency run (default 20000)\n"
               "  --size B    message size in bytes (default 100)\n"
               "  --reps R    repetitions (default 5)\n"
               "  --sealed    (with --peer) the child's sessions are sealed\n"
               "  --help      this text\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"count", required_argument, NULL, 'c'},
        {"pings", required_argument, NULL, 'p'},
        {"size", required_argument, NULL, 's'},
        {"reps", required_argument, NULL, 'r'},
        {"peer", no_argument, NULL, 'P'},
        {"sealed", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int peer = 0, c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            opt_count = atol(optarg);
            break;
        case 'p':
            opt_pings = atol(optarg);
            break;
        case 's':
            opt_size = atol(optarg);
            break;
        case 'r':
            opt_reps = atoi(optarg);
            break;
        case 'P':
            peer = 1;
            break;
        case 'S':
            sealed = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (opt_count < 2 || opt_pings < 1 || opt_size < 1 ||
        opt_size > (1 << 20) || opt_reps < 1) {
        usage(stderr);
        return 2;
    }
    sk_log_set_level(SK_LOG_WARN);
    find_self(argv[0]);
    if (peer) {
        if (optind + 2 > argc) {
            usage(stderr);
            return 2;
        }
        return run_peer(argv[optind], argv[optind + 1]);
    }
    signal(SIGPIPE, SIG_IGN);
    loop = ev_default_loop(0);
    payload = calloc(1, (size_t)opt_size);

    double *v[NMETRICS];
    for (int m = 0; m < NMETRICS; m++)
        v[m] = calloc((size_t)opt_reps, sizeof(double));
    printf("# %d repetitions, %ld-byte messages, %ld round trips, %ld "
           "messages per stream; two processes over tcp://127.0.0.1\n",
           opt_reps, opt_size, opt_pings, opt_count);
    for (int r = 0; r < opt_reps; r++) {
        nn_latency(&v[NN_P50][r], &v[NN_P99][r]);
        v[NN_TPUT][r] = nn_throughput();
        /* Each measurement clear and sealed back to back, the sealed one
         * first in every other repetition: the machine's load drifts, and
         * a ratio should see the same load on both sides. */
        for (int k = 0; k < 2; k++) {
            sealed = k ^ (r & 1);
            sk_latency(&v[sealed ? SEAL_P50 : SK_P50][r],
                       &v[sealed ? SEAL_P99 : SK_P99][r]);
        }
        for (int k = 0; k < 2; k++) {
            sealed = k ^ (r & 1);
            v[sealed ? SEAL_TPUT_RD : SK_TPUT_RD][r] = sk_throughput(0, NULL);
        }
        for (int k = 0; k < 2; k++) {
            sealed = k ^ (r & 1);
            v[sealed ? SEAL_TPUT_DR : SK_TPUT_DR][r] =
                sk_throughput(1, &v[sealed ? SEAL_CPU_DR : SK_CPU_DR][r]);
        }
        sealed = 0;
        v[R_P50][r] = v[SK_P50][r] / v[NN_P50][r];
        v[R_TPUT_RD][r] = v[SK_TPUT_RD][r] / v[NN_TPUT][r];
        v[R_TPUT_DR][r] = v[SK_TPUT_DR][r] / v[NN_TPUT][r];
        v[R_SEAL_P50][r] = v[SEAL_P50][r] / v[SK_P50][r];
        v[R_SEAL_RD][r] = v[SEAL_TPUT_RD][r] / v[SK_TPUT_RD][r];
        v[R_SEAL_DR][r] = v[SEAL_TPUT_DR][r] / v[SK_TPUT_DR][r];
        v[R_CPU_DR][r] = v[SK_CPU_DR][r] / v[SEAL_CPU_DR][r];
        v[SEAL_MBS][r] = seal_rate();
        /* The sealed sender does the clear one's work and seals every
         * record: per message, at least this much more CPU. */
        double cipher_ns =
            (double)(opt_size + SK_TFRAME_REC) / (v[SEAL_MBS][r] * 1e6) * 1e9;
        v[R_SEAL_CEIL][r] = v[SK_CPU_DR][r] / (v[SK_CPU_DR][r] + cipher_ns);
        if (isatty(STDERR_FILENO))
            fprintf(stderr, "repetition %d/%d done\n", r + 1, opt_reps);
    }
    printf("%-42s %12s %12s %12s\n", "metric", "median", "min", "max");
    for (int m = 0; m < NMETRICS; m++) {
        qsort(v[m], (size_t)opt_reps, sizeof(double), cmp_double);
        double med = opt_reps % 2
                         ? v[m][opt_reps / 2]
                         : (v[m][opt_reps / 2 - 1] + v[m][opt_reps / 2]) / 2;
        printf("%-42s %12.2f %12.2f %12.2f\n", metric_names[m], med, v[m][0],
               v[m][opt_reps - 1]);
        free(v[m]);
    }
    free(payload);
    return 0;
}
