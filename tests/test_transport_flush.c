/*
 * test_transport_flush.c - when and in which order a router's queued
 * messages leave: an ack that reopens the window lets the replies to the
 * frame that carried it share one frame with what was waiting; expedited
 * peers leave first; and between the frames of a fan-out the router takes
 * in answers, so that an urgent reply does not wait for the fan-out's end.
 *
 * The peers are raw nanomsg dealers driven by hand, so every frame is
 * known. The order of the router's frames is observed where it leaves the
 * transport: this program defines nn_sendmsg, which the library's calls
 * reach first (the executable's symbol wins), records each router frame,
 * and hands it to nanomsg's own.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_tframe.h"
#include "sk_transport.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <dlfcn.h>
#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NRAW   4
#define MAXLOG 64

static struct ev_loop *loop;
static sk_transport *router;
static sk_peer_id peer_of[NRAW]; /* router's id of each raw dealer */
static int raw[NRAW];            /* raw dealer sockets */
static uint32_t raw_rx[NRAW];    /* router frames each raw dealer got */
static uint32_t raw_tx[NRAW];    /* frames each raw dealer sent */

/* ---- the recording nn_sendmsg ------------------------------------------ */

/* The first message of each router DATA frame, in the order sent. */
static char sent_log[MAXLOG][16];
static int nsent;
/* When set: the router frame whose first message is this makes raw dealer
 * trigger_who answer with "ping" before nn_sendmsg returns. */
static const char *trigger_msg;
static int trigger_who;
static int in_wrapper;

static void raw_data(int who, const char *msg);

int nn_sendmsg(int s, const struct nn_msghdr *h, int flags)
{
    static int (*real)(int, const struct nn_msghdr *, int);
    if (real == NULL)
        real = (int (*)(int, const struct nn_msghdr *, int))dlsym(RTLD_NEXT,
                                                                  "nn_sendmsg");
    int rc = real(s, h, flags);
    if (rc < 0 || in_wrapper || h->msg_iovlen < 2)
        return rc;
    /* Router frames carry an 8-byte routing header; a DATA frame's body
     * starts with its first record. */
    size_t hl;
    memcpy(&hl, NN_CMSG_DATA((struct nn_cmsghdr *)h->msg_control), sizeof hl);
    const uint8_t *hdr = h->msg_iov[0].iov_base;
    if (hl != 8 || hdr[1] != SK_TF_DATA)
        return rc;
    const uint8_t *body = h->msg_iov[1].iov_base;
    uint32_t len = sk_tframe_get32(body);
    if (nsent < MAXLOG) {
        snprintf(sent_log[nsent], sizeof sent_log[nsent], "%.*s",
                 (int)(len < 15 ? len : 15), (const char *)body + 4);
        nsent++;
    }
    if (trigger_msg != NULL && len == strlen(trigger_msg) &&
        memcmp(body + 4, trigger_msg, len) == 0) {
        /* The peer answers at once, and the answer is in the router's
         * socket before the router sends its next frame. */
        trigger_msg = NULL;
        in_wrapper = 1;
        raw_rx[trigger_who]++; /* the ping acks this frame, */
        raw_data(trigger_who, "ping");
        raw_rx[trigger_who]--; /* which raw_recv counts when it comes */
        int fd;
        size_t sz = sizeof fd;
        nn_getsockopt(s, NN_SOL_SOCKET, NN_RCVFD, &fd, &sz);
        struct pollfd p = {fd, POLLIN, 0};
        poll(&p, 1, 2000);
        in_wrapper = 0;
    }
    return rc;
}

/* ---- raw dealers ------------------------------------------------------- */

static void raw_frame(int who, const uint8_t *frame, size_t len)
{
    if (tu_raw_send(raw[who], 0x80000001u, frame, len, 0) < 0)
        tap_bail_out("raw dealer %d cannot send: %s", who,
                     nn_strerror(nn_errno()));
    raw_tx[who]++;
}

/* One DATA frame of one message from a raw dealer, acking all it got. */
static void raw_data(int who, const char *msg)
{
    uint8_t f[SK_TFRAME_HDR + 4 + 64];
    size_t n = strlen(msg);
    sk_tframe_header(f, SK_TF_DATA, raw_tx[who], raw_rx[who], 1);
    sk_tframe_put32(f + SK_TFRAME_HDR, (uint32_t)n);
    memcpy(f + SK_TFRAME_HDR + 4, msg, n);
    raw_frame(who, f, SK_TFRAME_HDR + 4 + n);
}

static void raw_ack(int who)
{
    uint8_t f[SK_TFRAME_HDR];
    sk_tframe_header(f, SK_TF_ACK, raw_tx[who], raw_rx[who], 0);
    raw_frame(who, f, sizeof f);
}

/* The next frame a raw dealer gets, while the loop runs: its messages
 * joined with ',' into out; returns its kind, or -1 after a timeout. */
static int raw_recv(int who, char *out, size_t cap)
{
    double end = ev_time() + 3;
    out[0] = '\0';
    while (ev_time() < end) {
        uint8_t *m;
        int n = nn_recv(raw[who], &m, NN_MSG, NN_DONTWAIT);
        if (n >= SK_TFRAME_HDR) {
            int kind = m[1];
            uint32_t count = sk_tframe_get32(m + 12);
            size_t at = SK_TFRAME_HDR, used = 0;
            for (uint32_t i = 0; kind == SK_TF_DATA && i < count; i++) {
                uint32_t len = sk_tframe_get32(m + at);
                used += (size_t)snprintf(out + used, cap - used, "%s%.*s",
                                         i > 0 ? "," : "", (int)len,
                                         (const char *)m + at + 4);
                at += 4 + len;
                if (used >= cap)
                    break;
            }
            nn_freemsg(m);
            raw_rx[who]++;
            return kind;
        }
        if (n >= 0)
            nn_freemsg(m);
        ev_run(loop, EVRUN_NOWAIT);
        usleep(500);
    }
    return -1;
}

/* ---- the router -------------------------------------------------------- */

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    (void)arg;
    (void)role;
    int who = name[0] - 'a';
    if (who >= 0 && who < NRAW)
        peer_of[who] = peer;
}

/* "ping" is answered with "pong-X", expedited as a reply someone waits
 * on. */
static void on_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    (void)arg;
    if (len != 4 || memcmp(data, "ping", 4) != 0)
        return;
    for (int i = 0; i < NRAW; i++)
        if (peer_of[i] == peer) {
            char reply[8] = {'p', 'o', 'n', 'g', '-', (char)('A' + i), 0};
            sk_transport_send(router, peer, reply, 6);
            sk_transport_expedite(router, peer, SK_TCLASS_FIRST);
        }
}

static void setup(const char *ep)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "sched");
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "s1");
    cfg.tc_heartbeat = 5; /* no heartbeat frame in the middle of a test */
    sk_transport_callbacks cb = {.tc_up = on_up, .tc_recv = on_recv};
    if (sk_transport_create(loop, &cfg, &cb, &router) != 0 ||
        sk_transport_listen(router, ep) != 0)
        tap_bail_out("no router on %s", ep);
    int ok = 1;
    for (int i = 0; i < NRAW; i++) {
        raw[i] = nn_socket(AF_SP_RAW, NN_REQ);
        if (raw[i] < 0 || nn_connect(raw[i], ep) < 0)
            tap_bail_out("raw dealer %d cannot connect", i);
        uint8_t f[SK_TFRAME_HDR + SK_TFRAME_HELLO_MAX];
        char name[2] = {(char)('a' + i), 0};
        size_t n = sk_tframe_hello_body(f + SK_TFRAME_HDR, "nodemon", name,
                                        100 + (uint64_t)i);
        sk_tframe_header(f, SK_TF_HELLO, 0, 0, 0);
        raw_frame(i, f, SK_TFRAME_HDR + n);
        char buf[64];
        ok &= raw_recv(i, buf, sizeof buf) == SK_TF_HELLO;
        raw_ack(i); /* opens the router's window */
    }
    tu_run_for(loop, 0.05);
    for (int i = 0; i < NRAW; i++)
        ok &= peer_of[i] != 0;
    tap_ok(ok, "%d raw dealers are up, their windows open", NRAW);
}

static int log_is(const char *want)
{
    char got[MAXLOG * 16] = "";
    size_t used = 0;
    for (int i = 0; i < nsent; i++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%s",
                                 i > 0 ? " " : "", sent_log[i]);
    if (strcmp(got, want) != 0) {
        tap_diag("frames sent: '%s', expected '%s'", got, want);
        return 0;
    }
    return 1;
}

/* A message queued while the window is closed leaves with the reply to
 * the frame that reopens it: one frame, not two round trips. */
static void test_ack_batches(void)
{
    char buf[64];
    nsent = 0;
    sk_transport_send(router, peer_of[0], "w1", 2);
    tu_run_for(loop, 0.01);
    tap_ok(raw_recv(0, buf, sizeof buf) == SK_TF_DATA && strcmp(buf, "w1") == 0,
           "a: w1 arrives");
    sk_transport_send(router, peer_of[0], "w2", 2);
    tu_run_for(loop, 0.01);
    tap_ok(log_is("w1"), "w2 waits: w1 is not acked yet");
    raw_data(0, "ping"); /* acks w1 and asks for a pong */
    tap_ok(raw_recv(0, buf, sizeof buf) == SK_TF_DATA &&
               strcmp(buf, "w2,pong-A") == 0,
           "the waiting w2 and the reply share the next frame (%s)", buf);
    raw_ack(0);
}

/* Expedited peers leave first; the others in the order they were sent
 * to. */
static void test_classes(void)
{
    char buf[64];
    tu_run_for(loop, 0.01); /* take in the last test's ack: a's window */
    nsent = 0;
    sk_transport_send(router, peer_of[0], "r-a", 3);
    sk_transport_send(router, peer_of[1], "r-b", 3);
    sk_transport_send(router, peer_of[2], "t-c", 3);
    sk_transport_expedite(router, peer_of[2], SK_TCLASS_FIRST);
    sk_transport_send(router, peer_of[3], "e-d", 3);
    sk_transport_expedite(router, peer_of[3], SK_TCLASS_EARLY);
    tu_run_for(loop, 0.01);
    tap_ok(log_is("t-c e-d r-a r-b"),
           "FIRST, then EARLY, then the rest in the order sent");
    for (int i = 0; i < NRAW; i++) {
        raw_recv(i, buf, sizeof buf);
        raw_ack(i);
    }
    tap_is_int(sk_transport_expedite(router, peer_of[0], 7), SK_EINVAL,
               "no such class");
    tap_is_int(sk_transport_expedite(router, 12345, SK_TCLASS_FIRST),
               SK_ENOTFOUND, "no such peer");
}

/* During a fan-out to every peer, a's answer to its frame arrives before
 * the router's next send: the reply goes out before b, c and d get
 * theirs. */
static void test_fanout_answer(void)
{
    char buf[64];
    tu_run_for(loop, 0.01);
    nsent = 0;
    trigger_msg = "f-a";
    trigger_who = 0;
    sk_transport_send(router, peer_of[0], "f-a", 3);
    sk_transport_send(router, peer_of[1], "f-b", 3);
    sk_transport_send(router, peer_of[2], "f-c", 3);
    sk_transport_send(router, peer_of[3], "f-d", 3);
    tu_run_for(loop, 0.01);
    tap_ok(log_is("f-a pong-A f-b f-c f-d"),
           "the reply to a's answer leaves before the fan-out ends");
    tap_ok(raw_recv(0, buf, sizeof buf) == SK_TF_DATA &&
               strcmp(buf, "f-a") == 0 &&
               raw_recv(0, buf, sizeof buf) == SK_TF_DATA &&
               strcmp(buf, "pong-A") == 0,
           "a gets f-a, then pong-A");
    int rest = 1;
    for (int i = 1; i < NRAW; i++)
        rest &= raw_recv(i, buf, sizeof buf) == SK_TF_DATA && buf[0] == 'f' &&
                buf[2] == 'a' + i;
    tap_ok(rest, "b, c and d get theirs");
    sk_transport_stats st;
    sk_transport_stats_get(router, &st);
    tap_ok(st.ts_seq_gaps == 0 && st.ts_malformed == 0 && st.ts_downs == 0,
           "no gap, malformed frame or peer-down");
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    sk_log_set_level(getenv("SK_TEST_LOG") ? SK_LOG_DEBUG : SK_LOG_WARN);
    loop = ev_loop_new(EVFLAG_AUTO);
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    setup(ep);
    test_ack_batches();
    test_classes();
    test_fanout_answer();
    for (int i = 0; i < NRAW; i++)
        nn_close(raw[i]);
    sk_transport_destroy(router);
    ev_loop_destroy(loop);
    tap_done();
    return tap_exit_status();
}
