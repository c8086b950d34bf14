/*
 * test_transport_proc.c - the transport across processes: a peer killed
 * with SIGKILL is detected within the heartbeat bound and a restarted one
 * (same name) is seen again, on the router's side and on the dealer's;
 * and one bound router serves 1,000 peers held by 4 child processes
 * (beyond nanomsg's 512 sockets per process), each getting exactly its own
 * addressed messages.
 *
 * Children are this program run again with "peer" or "router" as first
 * argument; they die with the parent (PR_SET_PDEATHSIG) and are always
 * killed and reaped before exit.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_transport.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define HB     0.1 /* heartbeat of the liveness tests, seconds */
#define MISSES 3
#define NCHILD 4
#define PER    250 /* identities per child: 1,000 peers in all */
#define MSGS   3   /* addressed messages per peer */

static struct ev_loop *loop;
static pid_t children[NCHILD + 2];

static void kill_children(void)
{
    for (size_t i = 0; i < sizeof children / sizeof children[0]; i++)
        if (children[i] > 0) {
            kill(children[i], SIGKILL);
            waitpid(children[i], NULL, 0);
            children[i] = 0;
        }
}

/* This program, to run again as a child: argv[0] made absolute rather
 * than /proc/self/exe, which under valgrind is valgrind. */
static char self_path[4096] = "/proc/self/exe";

static void find_self(const char *argv0)
{
    if (strchr(argv0, '/') == NULL || realpath(argv0, self_path) == NULL)
        strcpy(self_path, "/proc/self/exe");
}

static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execv(self_path, argv);
        _exit(127);
    }
    if (pid < 0)
        tap_bail_out("fork failed");
    return pid;
}

static sk_transport *make(const char *role, const char *name, tu_rec *rec,
                          double hb, uint32_t max_peers)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", role);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    cfg.tc_heartbeat = hb;
    cfg.tc_misses = MISSES;
    cfg.tc_max_peers = max_peers;
    cfg.tc_queue_msgs = 64;
    cfg.tc_queue_bytes = 64 << 10;
    sk_transport_callbacks cb = tu_callbacks(rec);
    sk_transport *t = NULL;
    if (sk_transport_create(loop, &cfg, &cb, &t) < 0)
        return NULL;
    rec->ru_t = t;
    return t;
}

/* --- children --------------------------------------------------------------
 */

static void stop_cb(struct ev_loop *l, ev_signal *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(l, EVBREAK_ALL);
}

/* peer ENDPOINT COUNT PREFIX HB: COUNT echoing dealers named PREFIX<i>. */
static int child_peer(char **argv)
{
    int count = atoi(argv[3]);
    double hb = atof(argv[5]);
    sk_transport **t = calloc((size_t)count, sizeof *t);
    tu_rec *rec = calloc((size_t)count, sizeof *rec);
    for (int i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%d", argv[4], i);
        sk_peer_id id;
        rec[i].ru_echo = 1;
        t[i] = make("nodemon", name, &rec[i], hb, 2);
        if (t[i] == NULL || sk_transport_connect(t[i], argv[2], &id) < 0)
            return 1;
    }
    ev_signal sig;
    ev_signal_init(&sig, stop_cb, SIGTERM);
    ev_signal_start(loop, &sig);
    ev_run(loop, 0);
    for (int i = 0; i < count; i++)
        sk_transport_destroy(t[i]);
    free(t);
    free(rec);
    return 0;
}

/* router ENDPOINT: an echoing router named "sched s9". */
static int child_router(char **argv)
{
    tu_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.ru_echo = 1;
    sk_transport *t = make("sched", "s9", &rec, HB, 16);
    if (t == NULL || sk_transport_listen(t, argv[2]) < 0)
        return 1;
    ev_signal sig;
    ev_signal_init(&sig, stop_cb, SIGTERM);
    ev_signal_start(loop, &sig);
    ev_run(loop, 0);
    sk_transport_destroy(t);
    return 0;
}

/* --- liveness --------------------------------------------------------------
 */

static tu_rec rrec;

static int ups_reach(void *arg)
{
    tu_rec *r = arg;
    return r->ru_ups - r->ru_downs >= 1;
}

static int want_ups;

static int ups_beyond(void *arg)
{
    tu_rec *r = arg;
    return r->ru_ups >= want_ups;
}

static int downs_reach(void *arg)
{
    tu_rec *r = arg;
    return r->ru_ups == r->ru_downs;
}

static int echoes_reach(void *arg)
{
    tu_rec *r = arg;
    return r->ru_msgs >= 10;
}

/* Bound on detection: the silence allowed, plus one tick to notice it,
 * plus scheduling slack on a shared machine. */
static const double bound = HB * (MISSES + 1) + 0.25;

static void test_router_side(const char *ep)
{
    tu_rec *r = &rrec;
    sk_transport_stats st;
    sk_transport *router = make("sched", "s1", r, HB, 16);
    tap_is_int(sk_transport_listen(router, ep), 0, "router listens");
    char *argv[] = {
        "test_transport_proc", "peer", (char *)ep, "1", "k", "0.1", NULL};
    children[0] = spawn(argv);
    tap_ok(tu_run_until(loop, ups_reach, r, 5) &&
               strcmp(r->ru_last_name, "k0") == 0,
           "child peer nodemon k0 comes up");
    sk_peer_id first = r->ru_last_up;
    for (int i = 0; i < 10; i++) {
        char msg[32];
        int len = snprintf(msg, sizeof msg, "k0 %d", i);
        sk_transport_send_to(router, "nodemon", "k0", msg, (size_t)len);
    }
    tap_ok(tu_run_until(loop, echoes_reach, r, 5) && r->ru_misorder == 0,
           "it echoes 10 messages in order");

    kill(children[0], SIGKILL);
    waitpid(children[0], NULL, 0);
    children[0] = 0;
    double t0 = ev_time();
    int seen = tu_run_until(loop, downs_reach, r, 5);
    double took = ev_time() - t0;
    tap_ok(seen && r->ru_last_why == SK_PEER_TIMEOUT,
           "a SIGKILLed peer is declared down by timeout");
    tap_ok(took <= bound, "within the bound: %.0f ms <= %.0f ms", took * 1000,
           bound * 1000);

    children[0] = spawn(argv);
    tap_ok(tu_run_until(loop, ups_reach, r, 5) &&
               strcmp(r->ru_last_name, "k0") == 0 && r->ru_last_up != first,
           "the restarted peer is seen again, under a new id");
    tap_is_int(sk_transport_send_to(router, "nodemon", "k0", "k0 0", 4), 0,
               "and can be addressed by name");
    tap_is_int(sk_transport_send(router, first, "k0 0", 4), SK_ENOTFOUND,
               "the id of the dead session is refused");

    /* A new process of the same name while the old session still looks
     * alive (a restart faster than the timeout): the new one replaces it. */
    int downs = r->ru_downs;
    want_ups = r->ru_ups + 1;
    children[2] = spawn(argv);
    int back = tu_run_until(loop, ups_beyond, r, 5);
    kill(children[0], SIGKILL);
    waitpid(children[0], NULL, 0);
    children[0] = 0;
    sk_transport_stats_get(router, &st);
    tap_ok(back && r->ru_downs == downs + 1 &&
               r->ru_last_why == SK_PEER_REPLACED && st.ts_peers == 1,
           "a second k0 replaces the first (reason %d, %u up)", r->ru_last_why,
           st.ts_peers);
    kill_children();
    sk_transport_destroy(router);
}

static void test_dealer_side(const char *ep)
{
    tu_rec d;
    memset(&d, 0, sizeof d);
    sk_transport *dealer = make("nodemon", "n1", &d, HB, 4);
    char *argv[] = {"test_transport_proc", "router", (char *)ep, NULL};
    children[1] = spawn(argv);
    sk_peer_id conn;
    tap_is_int(sk_transport_connect(dealer, ep, &conn), 0, "dealer connects");
    tap_ok(tu_run_until(loop, ups_reach, &d, 5) &&
               strcmp(d.ru_last_name, "s9") == 0 && d.ru_last_up == conn,
           "child router sched s9 comes up on our connection");

    kill(children[1], SIGKILL);
    waitpid(children[1], NULL, 0);
    children[1] = 0;
    double t0 = ev_time();
    int seen = tu_run_until(loop, downs_reach, &d, 5);
    double took = ev_time() - t0;
    tap_ok(seen && d.ru_last_why == SK_PEER_TIMEOUT && took <= bound,
           "a SIGKILLed router is declared down in %.0f ms", took * 1000);

    children[1] = spawn(argv);
    tap_ok(tu_run_until(loop, ups_reach, &d, 5) && d.ru_last_up == conn,
           "the connection comes back up when the router restarts");
    d.ru_next[0] = 0;
    d.ru_from[0] = conn;
    uint64_t before = d.ru_msgs;
    for (int i = 0; i < 10; i++) {
        char msg[32];
        int len = snprintf(msg, sizeof msg, "n1 %d", i);
        sk_transport_send(dealer, conn, msg, (size_t)len);
    }
    d.ru_msgs = 0;
    tap_ok(tu_run_until(loop, echoes_reach, &d, 5) && d.ru_misorder == 0,
           "and the new session carries messages both ways (%llu before)",
           (unsigned long long)before);
    kill_children();
    sk_transport_destroy(dealer);
}

/* --- 1,000 peers -----------------------------------------------------------
 */

static uint64_t many_got[NCHILD * PER];
static uint64_t many_bad;
static sk_transport *many_router;

static void many_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    (void)arg;
    sk_peer_info pi;
    char text[64];
    int k, i, c;
    size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    /* The echo must come from the peer the message was addressed to, and
     * carry that peer's next counter. */
    if (sk_transport_peer_info(many_router, peer, &pi) < 0 ||
        sscanf(text, "m%d-%d %d", &k, &i, &c) != 3 || k < 0 || k >= NCHILD ||
        i < 0 || i >= PER || strncmp(text, pi.pi_name, strlen(pi.pi_name)) ||
        text[strlen(pi.pi_name)] != ' ' ||
        (uint64_t)c != many_got[k * PER + i]) {
        many_bad++;
        return;
    }
    many_got[k * PER + i]++;
}

static int many_up(void *arg)
{
    sk_transport_stats st;
    sk_transport_stats_get(many_router, &st);
    return st.ts_peers >= *(uint32_t *)arg;
}

static int many_done(void *arg)
{
    (void)arg;
    for (int j = 0; j < NCHILD * PER; j++)
        if (many_got[j] < MSGS)
            return 0;
    return 1;
}

static void test_many(const char *ep)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "sched");
    strcpy(cfg.tc_name, "s1");
    cfg.tc_heartbeat = 0.5;
    cfg.tc_max_peers = 2048;
    sk_transport_callbacks cb = {.tc_recv = many_recv};
    if (sk_transport_create(loop, &cfg, &cb, &many_router) < 0 ||
        sk_transport_listen(many_router, ep) < 0)
        tap_bail_out("cannot start the router");
    for (int k = 0; k < NCHILD; k++) {
        char prefix[16], count[16];
        snprintf(prefix, sizeof prefix, "m%d-", k);
        snprintf(count, sizeof count, "%d", PER);
        char *argv[] = {"test_transport_proc",
                        "peer",
                        (char *)ep,
                        count,
                        prefix,
                        "0.5",
                        NULL};
        children[k] = spawn(argv);
    }
    uint32_t want = NCHILD * PER;
    double t0 = ev_time();
    int up = tu_run_until(loop, many_up, &want, 60);
    double took = ev_time() - t0;
    tap_ok(up, "%u peers in %d processes are up on one router socket (%.1f s)",
           want, NCHILD, took);
    int rc = 0;
    for (int c = 0; c < MSGS; c++)
        for (int k = 0; k < NCHILD; k++)
            for (int i = 0; i < PER; i++) {
                char name[32], msg[48];
                snprintf(name, sizeof name, "m%d-%d", k, i);
                int len = snprintf(msg, sizeof msg, "%s %d", name, c);
                int r = sk_transport_send_to(many_router, "nodemon", name, msg,
                                             (size_t)len);
                if (r < 0 && rc == 0)
                    rc = r;
            }
    tap_is_int(rc, 0, "%d addressed messages accepted", MSGS * want);
    tap_ok(tu_run_until(loop, many_done, NULL, 30),
           "every peer echoed exactly its own messages");
    tap_is_int((int64_t)many_bad, 0, "no message reached a wrong peer");
    kill_children();
    sk_transport_destroy(many_router);
}

int main(int argc, char **argv)
{
    sk_log_set_level(getenv("SK_TEST_LOG") ? SK_LOG_DEBUG : SK_LOG_WARN);
    find_self(argv[0]);
    loop = ev_default_loop(0);
    if (argc >= 6 && strcmp(argv[1], "peer") == 0)
        return child_peer(argv);
    if (argc >= 3 && strcmp(argv[1], "router") == 0)
        return child_router(argv);

    tap_timeout(120);
    tap_plan_lazy();
    atexit(kill_children);
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_router_side(ep);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_dealer_side(ep);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_many(ep);
    return tap_exit_status();
}
