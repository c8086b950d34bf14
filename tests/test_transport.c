/*
 * test_transport.c - the transport in one process: frame validation, the
 * handshake over tcp:// and ipc://, addressed sends and per-peer order in
 * both directions, bounded queues, floods without loss, goodbye, a router
 * restart, and malformed frames sent with raw nanomsg.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_tframe.h"
#include "sk_transport.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NDEALERS 3

static struct ev_loop *loop;
static sk_transport *router;
static tu_rec router_rec;
static sk_transport *dealer[NDEALERS];
static tu_rec dealer_rec[NDEALERS];
static char names[NDEALERS][8];

static void test_frames(void)
{
    uint8_t buf[256];
    sk_tframe f;
    const char *why;
    size_t n = SK_TFRAME_HDR;
    sk_tframe_header(buf, SK_TF_DATA, 7, 3, 2);
    sk_tframe_put32(buf + n, 2);
    memcpy(buf + n + 4, "hi", 2);
    n += 6;
    sk_tframe_put32(buf + n, 0);
    n += 4;
    tap_ok(sk_tframe_parse(buf, n, 100, &f, &why) == 0 && f.tf_seq == 7 &&
               f.tf_ack == 3 && f.tf_count == 2,
           "a two-message data frame parses");
    tap_is_int(sk_tframe_parse(buf, n - 1, 100, &f, &why), SK_EPROTO,
               "a truncated record is refused");
    tap_is_int(sk_tframe_parse(buf, n, 1, &f, &why), SK_EPROTO,
               "a record over the message limit is refused");
    sk_tframe_put32(buf + 12, 3);
    tap_is_int(sk_tframe_parse(buf, n, 100, &f, &why), SK_EPROTO,
               "a count beyond the records is refused");
    sk_tframe_put32(buf + SK_TFRAME_HDR, 0xffffffffu);
    tap_is_int(sk_tframe_parse(buf, n, 0xffffffffu, &f, &why), SK_EPROTO,
               "a huge record length does not wrap");
    n = SK_TFRAME_HDR + sk_tframe_hello_body(buf + SK_TFRAME_HDR, "nodemon",
                                             "n7", 0x1122334455667788ull);
    sk_tframe_header(buf, SK_TF_HELLO, 0, 0, 0);
    tap_ok(sk_tframe_parse(buf, n, 100, &f, &why) == 0 &&
               strcmp(f.tf_role, "nodemon") == 0 &&
               strcmp(f.tf_name, "n7") == 0 &&
               f.tf_incarnation == 0x1122334455667788ull,
           "a hello round-trips role, name and incarnation");
    buf[SK_TFRAME_HDR + 2] = ' ';
    tap_is_int(sk_tframe_parse(buf, n, 100, &f, &why), SK_EPROTO,
               "a role with a space is refused");
    sk_tframe_header(buf, 9, 0, 0, 0);
    tap_is_int(sk_tframe_parse(buf, SK_TFRAME_HDR, 100, &f, &why), SK_EPROTO,
               "an unknown kind is refused");
}

static sk_transport *make(const char *role, const char *name, tu_rec *rec,
                          uint32_t queue_msgs)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", role);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    /* Generous liveness: these tests are about delivery, and must pass
     * under valgrind too; test_transport_proc times the detection. */
    cfg.tc_heartbeat = 0.2;
    cfg.tc_misses = 10;
    cfg.tc_max_msg = 4096;
    cfg.tc_max_peers = 64;
    cfg.tc_queue_msgs = queue_msgs;
    sk_transport_callbacks cb = tu_callbacks(rec);
    sk_transport *t = NULL;
    if (sk_transport_create(loop, &cfg, &cb, &t) < 0)
        tap_bail_out("cannot create transport %s", name);
    rec->ru_t = t;
    return t;
}

/* True when the first *arg dealers (all if arg is NULL) and the router
 * see each other up. */
static int all_up(void *arg)
{
    int n = arg != NULL ? *(int *)arg : NDEALERS;
    sk_transport_stats st;
    sk_transport_stats_get(router, &st);
    for (int i = 0; i < n; i++)
        if (dealer_rec[i].ru_ups - dealer_rec[i].ru_downs < 1)
            return 0;
    return (int)st.ts_peers == n;
}

static void test_handshake(const char *endpoint[NDEALERS])
{
    sk_peer_id conn[NDEALERS];
    for (int i = 0; i < NDEALERS; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i + 1);
        dealer[i] = make("nodemon", names[i], &dealer_rec[i], 1024);
        dealer_rec[i].ru_tag = names[i];
        tap_is_int(sk_transport_connect(dealer[i], endpoint[i], &conn[i]), 0,
                   "%s connects to %s", names[i], endpoint[i]);
    }
    tap_ok(tu_run_until(loop, all_up, NULL, 5), "all peers come up");
    for (int i = 0; i < NDEALERS; i++) {
        sk_peer_info pi;
        tap_ok(sk_transport_peer_info(dealer[i], conn[i], &pi) == 0 &&
                   pi.pi_up && pi.pi_connected &&
                   strcmp(pi.pi_role, "sched") == 0 &&
                   strcmp(pi.pi_name, "s1") == 0,
               "%s sees sched s1 on its connection", names[i]);
        sk_peer_id id;
        tap_ok(sk_transport_lookup(router, "nodemon", names[i], &id) == 0 &&
                   sk_transport_peer_info(router, id, &pi) == 0 &&
                   !pi.pi_connected && strcmp(pi.pi_name, names[i]) == 0,
               "the router knows nodemon %s by name", names[i]);
    }
    sk_peer_id none;
    tap_is_int(sk_transport_lookup(router, "nodemon", "n99", &none),
               SK_ENOTFOUND, "an unknown name is not found");
    tap_is_int(sk_transport_send(router, 12345, "x", 1), SK_ENOTFOUND,
               "a made-up id is not found");
}

typedef struct want {
    uint64_t msgs;
    tu_rec *rec;
    int n;
} want;

static int got_all(void *arg)
{
    want *w = arg;
    for (int i = 0; i < w->n; i++)
        if (w->rec[i].ru_msgs < w->msgs)
            return 0;
    return 1;
}

/* Sends count tagged messages with send_fn, running the loop whenever the
 * queue is full, so that the sender sees SK_EAGAIN and nothing else. */
static int send_all(sk_transport *t, const char *role, const char *name,
                    const char *tag, uint64_t count, uint64_t *eagain)
{
    char msg[64];
    for (uint64_t c = 0; c < count;) {
        int len =
            snprintf(msg, sizeof msg, "%s %llu", tag, (unsigned long long)c);
        int rc = sk_transport_send_to(t, role, name, msg, (size_t)len);
        if (rc == SK_EAGAIN) {
            /* Block in the loop rather than spin: nanomsg's worker
             * threads must run to drain the queue. */
            (*eagain)++;
            ev_run(loop, EVRUN_ONCE);
            continue;
        }
        if (rc != 0)
            return rc;
        c++;
    }
    return 0;
}

static void test_addressed(void)
{
    const uint64_t per = 20000;
    uint64_t eagain = 0;
    int rc = 0;
    for (int i = 0; i < NDEALERS && rc == 0; i++)
        rc = send_all(router, "nodemon", names[i], names[i], per, &eagain);
    tap_is_int(rc, 0, "router sent %llu messages to each of %d peers",
               (unsigned long long)per, NDEALERS);
    want w = {per, dealer_rec, NDEALERS};
    tap_ok(tu_run_until(loop, got_all, &w, 20), "every peer got its messages");
    uint64_t misrouted = 0, misorder = 0, extra = 0;
    for (int i = 0; i < NDEALERS; i++) {
        misrouted += dealer_rec[i].ru_misrouted;
        misorder += dealer_rec[i].ru_misorder;
        extra += dealer_rec[i].ru_msgs - per;
    }
    tap_is_int((int64_t)misrouted, 0, "each message reached only its peer");
    tap_is_int((int64_t)misorder, 0, "per-peer order was kept");
    tap_is_int((int64_t)extra, 0, "no message arrived twice");
    tap_diag("router queue-full retries: %llu", (unsigned long long)eagain);

    /* The other way: every dealer streams to the router at once. */
    router_rec.ru_tag = "s1";
    for (uint64_t c = 0; c < per; c += 500)
        for (int i = 0; i < NDEALERS; i++) {
            char msg[64];
            for (uint64_t k = c; k < c + 500; k++) {
                int len =
                    snprintf(msg, sizeof msg, "s1 %llu", (unsigned long long)k);
                while (sk_transport_send_to(dealer[i], "sched", "s1", msg,
                                            (size_t)len) == SK_EAGAIN)
                    ev_run(loop, EVRUN_ONCE);
            }
        }
    want wr = {per * NDEALERS, &router_rec, 1};
    tap_ok(tu_run_until(loop, got_all, &wr, 20),
           "the router got all %llu messages from the dealers",
           (unsigned long long)(per * NDEALERS));
    tap_ok(router_rec.ru_misorder == 0 && router_rec.ru_misrouted == 0 &&
               router_rec.ru_msgs == per * NDEALERS,
           "in order per dealer, none twice");
    sk_transport_stats st;
    sk_transport_stats_get(router, &st);
    uint64_t bad = st.ts_seq_gaps + st.ts_dropped + st.ts_malformed +
                   st.ts_downs + (uint64_t)router_rec.ru_downs;
    for (int i = 0; i < NDEALERS; i++) {
        sk_transport_stats ds;
        sk_transport_stats_get(dealer[i], &ds);
        bad += ds.ts_seq_gaps + ds.ts_dropped + ds.ts_malformed + ds.ts_downs;
    }
    tap_is_int((int64_t)bad, 0,
               "no gaps, drops, malformed frames or peer-downs anywhere "
               "(router: %llu frames for %llu msgs)",
               (unsigned long long)st.ts_frames_sent,
               (unsigned long long)st.ts_sent);
}

static void test_queue_full(void)
{
    sk_transport_stats before, after;
    sk_transport_stats_get(router, &before);
    uint64_t start = dealer_rec[0].ru_msgs;
    dealer_rec[0].ru_next[0] = 0;
    /* Without running the loop: one frame leaves, the rest must queue. */
    char msg[64];
    uint64_t taken = 0;
    int rc = 0;
    for (; rc == 0 && taken < 5000;) {
        int len =
            snprintf(msg, sizeof msg, "n1 %llu", (unsigned long long)taken);
        rc = sk_transport_send_to(router, "nodemon", "n1", msg, (size_t)len);
        if (rc == 0)
            taken++;
    }
    sk_transport_stats_get(router, &after);
    tap_is_int(rc, SK_EAGAIN, "a full queue says SK_EAGAIN");
    tap_ok(taken == 1024 || taken == 1025,
           "1024 queued, plus one in flight if the window was open (%llu)",
           (unsigned long long)taken);
    tap_is_int((int64_t)(after.ts_queue_full - before.ts_queue_full), 1,
               "the refusal is counted");
    sk_peer_id id;
    sk_peer_info pi;
    sk_transport_lookup(router, "nodemon", "n1", &id);
    sk_transport_peer_info(router, id, &pi);
    tap_is_int(pi.pi_queued, 1024, "peer info shows the queue");
    static char big[4097];
    tap_is_int(sk_transport_send(router, id, big, sizeof big), SK_ELIMIT,
               "a message over tc_max_msg is refused");
    want w = {start + taken, &dealer_rec[0], 1};
    tap_ok(tu_run_until(loop, got_all, &w, 10) &&
               dealer_rec[0].ru_msgs == start + taken &&
               dealer_rec[0].ru_misorder == 0,
           "every accepted message arrives, in order");
}

/* Sends one frame from a raw nanomsg dealer, blocking. */
static int raw_send(int s, const void *frame, size_t len)
{
    return tu_raw_send(s, 0x80000009u, frame, len, 0);
}

/* Receives one frame on a raw dealer while running the loop; returns its
 * kind, or -1 after timeout seconds. */
static int raw_recv_kind(int s, double timeout)
{
    double end = ev_time() + timeout;
    while (ev_time() < end) {
        void *m;
        int n = nn_recv(s, &m, NN_MSG, NN_DONTWAIT);
        if (n >= SK_TFRAME_HDR) {
            int kind = ((uint8_t *)m)[1];
            nn_freemsg(m);
            return kind;
        }
        if (n >= 0)
            nn_freemsg(m);
        ev_run(loop, EVRUN_NOWAIT);
        usleep(1000);
    }
    return -1;
}

/* A peer whose frames skip a seq: the session is reset on both sides. */
static void test_seq_gap(const char *endpoint)
{
    int s = nn_socket(AF_SP_RAW, NN_REQ);
    nn_connect(s, endpoint);
    sk_transport_stats before, after;
    sk_transport_stats_get(router, &before);
    int ups = router_rec.ru_ups, downs = router_rec.ru_downs;
    uint8_t f[SK_TFRAME_HDR + SK_TFRAME_HELLO_MAX];
    size_t n = sk_tframe_hello_body(f + SK_TFRAME_HDR, "nodemon", "raw1", 42);
    sk_tframe_header(f, SK_TF_HELLO, 0, 0, 0);
    raw_send(s, f, SK_TFRAME_HDR + n);
    tap_is_int(raw_recv_kind(s, 3), SK_TF_HELLO,
               "a hand-made HELLO is answered with HELLO");
    tap_is_int(router_rec.ru_ups, ups + 1, "and the peer is up");
    sk_tframe_header(f, SK_TF_HEARTBEAT, 1, 1, 0);
    raw_send(s, f, SK_TFRAME_HDR);
    sk_tframe_header(f, SK_TF_HEARTBEAT, 3, 1, 0); /* seq 2 is missing */
    raw_send(s, f, SK_TFRAME_HDR);
    tap_is_int(raw_recv_kind(s, 3), SK_TF_RESET,
               "a frame after a hole is answered with RESET");
    sk_transport_stats_get(router, &after);
    tap_ok(after.ts_seq_gaps == before.ts_seq_gaps + 1 &&
               router_rec.ru_downs == downs + 1 &&
               router_rec.ru_last_why == SK_PEER_RESET,
           "the hole is counted and the daemon hears peer-down (reset)");
    nn_close(s);
}

/* Both ends see the reset and redo the handshake. */
typedef struct reset_wait {
    tu_rec *rw_near, *rw_far;
    int rw_near_downs, rw_far_downs, rw_far_ups;
} reset_wait;

static int reset_done(void *arg)
{
    reset_wait *w = arg;
    return w->rw_near->ru_downs > w->rw_near_downs &&
           w->rw_far->ru_downs > w->rw_far_downs &&
           w->rw_far->ru_ups > w->rw_far_ups && all_up(NULL);
}

/* The owner ends a session whose messages were lost, from either side. */
static void test_reset(void)
{
    sk_peer_id id;
    if (sk_transport_lookup(router, "nodemon", names[0], &id) != 0)
        tap_bail_out("no peer %s on the router", names[0]);
    sk_transport_stats before, after;
    sk_transport_stats_get(router, &before);
    reset_wait w = {&router_rec, &dealer_rec[0], router_rec.ru_downs,
                    dealer_rec[0].ru_downs, dealer_rec[0].ru_ups};
    tap_is_int(sk_transport_reset(router, id), 0, "the router resets n1");
    tap_is_int(sk_transport_send(router, id, "n1 0", 4), SK_ESTATE,
               "sends to it are refused while the reset is pending");
    tap_ok(tu_run_until(loop, reset_done, &w, 5) &&
               router_rec.ru_last_why == SK_PEER_RESET &&
               dealer_rec[0].ru_last_why == SK_PEER_RESET,
           "both sides hear peer-down (reset), and the session comes back");
    sk_transport_stats_get(router, &after);
    tap_is_int((int64_t)(after.ts_resets - before.ts_resets), 1,
               "the reset is counted");
    tap_is_int(sk_transport_reset(router, id), SK_ENOTFOUND,
               "the old session's id is dead");

    if (sk_transport_lookup(dealer[1], "sched", "s1", &id) != 0)
        tap_bail_out("dealer %s does not see the router", names[1]);
    w = (reset_wait){&dealer_rec[1], &router_rec, dealer_rec[1].ru_downs,
                     router_rec.ru_downs, router_rec.ru_ups};
    tap_is_int(sk_transport_reset(dealer[1], id), 0,
               "a dealer resets its router");
    tap_ok(tu_run_until(loop, reset_done, &w, 5) &&
               dealer_rec[1].ru_last_why == SK_PEER_RESET,
           "both sides hear it, and the session comes back");
    tap_is_int(sk_transport_peer_info(dealer[1], id, &(sk_peer_info){0}), 0,
               "the connection keeps its id");
}

static void test_malformed(const char *endpoint)
{
    int s = nn_socket(AF_SP_RAW, NN_REQ);
    nn_connect(s, endpoint);
    sk_transport_stats before, after;
    sk_transport_stats_get(router, &before);
    uint8_t frames[6][40];
    memset(frames, 0, sizeof frames);
    size_t lens[6];
    memcpy(frames[0], "garbage", 7); /* shorter than a header */
    lens[0] = 7;
    sk_tframe_header(frames[1], SK_TF_DATA, 0, 0, 1); /* record past end */
    sk_tframe_put32(frames[1] + SK_TFRAME_HDR, 1000);
    lens[1] = SK_TFRAME_HDR + 4;
    sk_tframe_header(frames[2], SK_TF_HELLO, 0, 0, 0); /* empty hello */
    lens[2] = SK_TFRAME_HDR;
    sk_tframe_header(frames[3], 77, 0, 0, 0); /* unknown kind */
    lens[3] = SK_TFRAME_HDR;
    sk_tframe_header(frames[4], SK_TF_DATA, 0, 0, 0); /* no messages */
    lens[4] = SK_TFRAME_HDR;
    frames[5][0] = 9; /* unknown version */
    lens[5] = SK_TFRAME_HDR;
    int sent = 0;
    for (int round = 0; round < 10; round++)
        for (int i = 0; i < 6; i++) {
            /* Blocking send: the pipe takes one message at a time. */
            if (raw_send(s, frames[i], lens[i]) >= 0)
                sent++;
            ev_run(loop, EVRUN_NOWAIT);
        }
    tu_run_for(loop, 0.2);
    sk_transport_stats_get(router, &after);
    tap_is_int(sent, 60, "60 hostile frames sent");
    tap_is_int((int64_t)(after.ts_malformed - before.ts_malformed), 60,
               "every one was counted as malformed");
    /* A well-formed heartbeat from no session gets RESET, not a crash. */
    uint64_t msgs = router_rec.ru_msgs;
    tap_is_int(sk_transport_send_to(dealer[1], "sched", "s1", "s1 x", 4), 0,
               "the router still serves its peers");
    want w = {msgs + 1, &router_rec, 1};
    tap_ok(tu_run_until(loop, got_all, &w, 5), "and receives from them");
    nn_close(s);
}

static int dealer_downs(void *arg)
{
    int want_downs = *(int *)arg;
    for (int i = 0; i < NDEALERS - 1; i++)
        if (dealer_rec[i].ru_downs < want_downs)
            return 0;
    return 1;
}

static int router_down_seen(void *arg)
{
    return router_rec.ru_downs >= *(int *)arg;
}

static void test_goodbye_and_restart(const char *listen_ep)
{
    int downs = router_rec.ru_downs + 1;
    double t0 = ev_time();
    sk_transport_destroy(dealer[NDEALERS - 1]);
    dealer[NDEALERS - 1] = NULL;
    tap_ok(tu_run_until(loop, router_down_seen, &downs, 2),
           "the router sees a destroyed dealer go");
    tap_ok(router_rec.ru_last_why == SK_PEER_GOODBYE,
           "by its goodbye (%d), after %.0f ms", router_rec.ru_last_why,
           (ev_time() - t0) * 1000);

    /* Restart the router: dealers see it go and come back. */
    int ups_before = dealer_rec[0].ru_ups;
    sk_transport_destroy(router);
    memset(&router_rec, 0, sizeof router_rec);
    int one = 1;
    tap_ok(tu_run_until(loop, dealer_downs, &one, 2),
           "dealers see the router go");
    router = make("sched", "s1", &router_rec, 1024);
    tap_is_int(sk_transport_listen(router, listen_ep), 0,
               "a new router listens on the same endpoint");
    int left = NDEALERS - 1;
    tap_ok(tu_run_until(loop, all_up, &left, 5) &&
               dealer_rec[0].ru_ups == ups_before + 1,
           "dealers redo the handshake with it");
    tap_is_int(sk_transport_send_to(router, "nodemon", "n1", "n1 0", 4), 0,
               "and the new router can address them");
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    sk_log_set_level(getenv("SK_TEST_LOG") ? SK_LOG_DEBUG : SK_LOG_WARN);
    loop = ev_loop_new(EVFLAG_AUTO);
    test_frames();

    char dir[] = "/tmp/sk-tt-XXXXXX";
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp");
    int port = tu_free_port();
    char tcp_ep[64], ipc_ep[128];
    snprintf(tcp_ep, sizeof tcp_ep, "tcp://127.0.0.1:%d", port);
    snprintf(ipc_ep, sizeof ipc_ep, "ipc://%s/router.sock", dir);

    /* Over TCP first. */
    router = make("sched", "s1", &router_rec, 1024);
    tap_is_int(sk_transport_listen(router, tcp_ep), 0, "listen on %s", tcp_ep);
    tap_is_int(sk_transport_listen(router, ipc_ep), SK_EEXIST,
               "a second listen is refused");
    const char *eps[NDEALERS] = {tcp_ep, tcp_ep, tcp_ep};
    test_handshake(eps);
    test_addressed();
    test_queue_full();
    test_malformed(tcp_ep);
    test_seq_gap(tcp_ep);
    test_reset();
    test_goodbye_and_restart(tcp_ep);
    for (int i = 0; i < NDEALERS; i++)
        sk_transport_destroy(dealer[i]);
    sk_transport_destroy(router);

    /* The same over ipc:// in a private folder. */
    memset(&router_rec, 0, sizeof router_rec);
    memset(dealer_rec, 0, sizeof dealer_rec);
    router = make("sched", "s1", &router_rec, 1024);
    tap_is_int(sk_transport_listen(router, ipc_ep), 0, "listen on %s", ipc_ep);
    const char *ieps[NDEALERS] = {ipc_ep, ipc_ep, ipc_ep};
    test_handshake(ieps);
    test_addressed();
    tap_ok(all_up(NULL), "all ipc peers still up");
    for (int i = 0; i < NDEALERS; i++)
        sk_transport_destroy(dealer[i]);
    sk_transport_destroy(router);

    char sock[160];
    snprintf(sock, sizeof sock, "%s/router.sock", dir);
    unlink(sock);
    rmdir(dir);
    ev_loop_destroy(loop);
    return tap_exit_status();
}
