/*
 * test_transport_auth.c - sealed transport sessions: the session crypto on
 * its own, then routers and dealers in one process over loopback TCP:
 * matching keys talk; a wrong key, a missing key or a key where none is
 * expected never comes up and says why; and through a man in the middle
 * that records and forwards frames, a replayed handshake, a replayed
 * frame, an altered frame and a forged frame are all refused, counted, and
 * deliver nothing.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_tauth.h"
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

static struct ev_loop *loop;
static const uint8_t key_a[SK_TAUTH_KEY] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t key_b[SK_TAUTH_KEY] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

/* --- the crypto alone ---------------------------------------------------- */

static void test_crypto(void)
{
    tap_is_int(sk_tauth_init(), 0, "libsodium starts");
    uint8_t d[40], r[90];
    sk_tauth_random(d, sizeof d);
    sk_tauth_random(r, sizeof r);
    sk_tauth_keys dk, rk, other;
    sk_tauth_derive(key_a, d, sizeof d, r, sizeof r, 0, &dk);
    sk_tauth_derive(key_a, d, sizeof d, r, sizeof r, 1, &rk);
    tap_ok(memcmp(dk.ak_proof, rk.ak_proof, SK_TAUTH_PROOF) == 0 &&
               memcmp(dk.ak_tx, rk.ak_rx, SK_TAUTH_KEY) == 0 &&
               memcmp(dk.ak_rx, rk.ak_tx, SK_TAUTH_KEY) == 0 &&
               memcmp(dk.ak_tx, dk.ak_rx, SK_TAUTH_KEY) != 0,
           "both sides derive the same proof and crossed keys, one per "
           "direction");
    sk_tauth_derive(key_b, d, sizeof d, r, sizeof r, 0, &other);
    tap_ok(!sk_tauth_proof_ok(other.ak_proof, rk.ak_proof),
           "another cluster key gives another proof");
    r[0] ^= 1;
    sk_tauth_derive(key_a, d, sizeof d, r, sizeof r, 0, &other);
    tap_ok(!sk_tauth_proof_ok(other.ak_proof, rk.ak_proof),
           "a changed transcript gives another proof");
    /* Moving a byte from one body to the other changes the transcript. */
    sk_tauth_derive(key_a, d, sizeof d - 1, d + sizeof d - 1, 1, 0, &other);
    sk_tauth_keys split;
    sk_tauth_derive(key_a, d, sizeof d, NULL, 0, 0, &split);
    tap_ok(!sk_tauth_proof_ok(other.ak_proof, split.ak_proof),
           "the split between the two bodies is part of the transcript");

    uint8_t hdr[SK_TFRAME_HDR] = {2, 3}, msg[100], copy[100], tag[16];
    sk_tauth_random(msg, sizeof msg);
    memcpy(copy, msg, sizeof msg);
    sk_tauth_seal(dk.ak_tx, 5, hdr, sizeof hdr, msg, sizeof msg, msg, tag);
    tap_ok(memcmp(msg, copy, sizeof msg) != 0, "a sealed body is encrypted");
    uint8_t work[100];
    memcpy(work, msg, sizeof msg);
    tap_is_int(
        sk_tauth_open(rk.ak_rx, 5, hdr, sizeof hdr, work, sizeof work, tag), 0,
        "the other side opens it");
    tap_ok(memcmp(work, copy, sizeof copy) == 0, "and reads the message");
    memcpy(work, msg, sizeof msg);
    tap_is_int(
        sk_tauth_open(rk.ak_rx, 6, hdr, sizeof hdr, work, sizeof work, tag),
        SK_EPROTO, "under another seq it does not open (replay)");
    memcpy(work, msg, sizeof msg);
    work[50] ^= 0x10;
    tap_is_int(
        sk_tauth_open(rk.ak_rx, 5, hdr, sizeof hdr, work, sizeof work, tag),
        SK_EPROTO, "an altered body does not open");
    memcpy(work, msg, sizeof msg);
    hdr[1] = 4;
    tap_is_int(
        sk_tauth_open(rk.ak_rx, 5, hdr, sizeof hdr, work, sizeof work, tag),
        SK_EPROTO, "an altered header does not open");
    hdr[1] = 3;
    memcpy(work, msg, sizeof msg);
    tap_is_int(
        sk_tauth_open(dk.ak_rx, 5, hdr, sizeof hdr, work, sizeof work, tag),
        SK_EPROTO, "the sender's own receive key does not open it");
}

/* --- transports ----------------------------------------------------------- */

typedef struct side {
    tu_rec sd_rec; /* first: the callbacks' argument is the side too */
    sk_transport *sd_t;
    int sd_refused;
    char sd_why[200];
} side;

static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    side *s = arg;
    (void)peer;
    s->sd_refused++;
    snprintf(s->sd_why, sizeof s->sd_why, "%s", why);
}

/* tu_callbacks with tc_refused added; arg must stay the side. */
static void make(side *s, const char *role, const char *name,
                 const uint8_t *key)
{
    memset(s, 0, sizeof *s);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", role);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    cfg.tc_heartbeat = 0.1;
    cfg.tc_misses = 3;
    if (key != NULL) {
        cfg.tc_keyed = 1;
        memcpy(cfg.tc_key, key, SK_TAUTH_KEY);
    }
    s->sd_rec.ru_tag = name;
    sk_transport_callbacks cb = tu_callbacks(&s->sd_rec);
    /* The recording callbacks get the tu_rec, which is the side's first
     * member: on_refused may take the side from the same pointer. */
    cb.tc_refused = on_refused;
    if (sk_transport_create(loop, &cfg, &cb, &s->sd_t) < 0)
        tap_bail_out("cannot create transport %s", name);
    s->sd_rec.ru_t = s->sd_t;
}

static int up_both(void *arg)
{
    side **s = arg;
    return s[0]->sd_rec.ru_ups > 0 && s[1]->sd_rec.ru_ups > 0;
}

static int refused_once(void *arg)
{
    return ((side *)arg)->sd_refused > 0;
}

static int got(void *arg)
{
    side *s = arg;
    return s->sd_rec.ru_msgs >= 200;
}

static void send_n(sk_transport *t, sk_peer_id to, const char *tag, int from,
                   int n)
{
    for (int i = from; i < from + n; i++) {
        char m[32];
        int len = snprintf(m, sizeof m, "%s %d", tag, i);
        if (sk_transport_send(t, to, m, (size_t)len) < 0)
            tap_bail_out("send failed");
    }
}

static void test_matching_keys(const char *ep)
{
    side r, d;
    make(&r, "sched", "s1", key_a);
    make(&d, "nodemon", "n1", key_a);
    tap_is_int(sk_transport_listen(r.sd_t, ep), 0, "a keyed router listens");
    sk_peer_id conn;
    sk_transport_connect(d.sd_t, ep, &conn);
    side *both[2] = {&r, &d};
    tap_ok(tu_run_until(loop, up_both, both, 5),
           "a dealer with the same key comes up on both sides");
    tap_is_str(r.sd_rec.ru_last_name, "n1", "under the name it said");
    sk_peer_id at_router = r.sd_rec.ru_last_up;
    send_n(d.sd_t, conn, "s1", 0, 200);
    send_n(r.sd_t, at_router, "n1", 0, 200);
    tap_ok(tu_run_until(loop, got, &r, 5) && tu_run_until(loop, got, &d, 5),
           "200 messages each way arrive");
    tap_ok(r.sd_rec.ru_misorder == 0 && d.sd_rec.ru_misorder == 0 &&
               r.sd_rec.ru_msgs == 200 && d.sd_rec.ru_msgs == 200,
           "once each and in order");
    sk_transport_stats rs, ds;
    sk_transport_stats_get(r.sd_t, &rs);
    sk_transport_stats_get(d.sd_t, &ds);
    tap_ok(rs.ts_auth_failed == 0 && ds.ts_auth_failed == 0 &&
               rs.ts_malformed == 0 && d.sd_refused == 0,
           "no failure counted");
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);
}

/* A dealer that cannot come up: it is told why, the router never reports
 * the peer, and each side counts what it saw. */
static void test_refused(const char *ep, const uint8_t *rkey,
                         const uint8_t *dkey, const char *what, const char *why)
{
    side r, d;
    make(&r, "sched", "s1", rkey);
    make(&d, "nodemon", "n1", dkey);
    sk_transport_listen(r.sd_t, ep);
    sk_peer_id conn;
    sk_transport_connect(d.sd_t, ep, &conn);
    tap_ok(tu_run_until(loop, refused_once, &d, 5), "%s: the dealer is refused",
           what);
    tap_ok(strstr(d.sd_why, why) != NULL, "%s: it is told why (%s)", what,
           d.sd_why);
    tu_run_for(loop, 0.6); /* longer than heartbeat * misses */
    sk_transport_stats rs, ds;
    sk_transport_stats_get(r.sd_t, &rs);
    sk_transport_stats_get(d.sd_t, &ds);
    tap_ok(r.sd_rec.ru_ups == 0 && d.sd_rec.ru_ups == 0 && rs.ts_peers == 0,
           "%s: no session comes up on either side", what);
    tap_ok(rs.ts_auth_failed + rs.ts_auth_timeouts + ds.ts_auth_failed > 0,
           "%s: the failure is counted (router %llu failed, %llu timed out; "
           "dealer %llu failed)",
           what, (unsigned long long)rs.ts_auth_failed,
           (unsigned long long)rs.ts_auth_timeouts,
           (unsigned long long)ds.ts_auth_failed);
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);
}

/* --- a man in the middle -------------------------------------------------- */

/* Frames from the dealer, recorded as they passed. */
#define MAX_REC 64
typedef struct mitm {
    int mi_front; /* raw REP the dealer connects to */
    int mi_back;  /* raw REQ connected to the router */
    uint8_t mi_route[8];
    int mi_have_route;
    uint8_t *mi_rec[MAX_REC];
    size_t mi_rec_len[MAX_REC];
    int mi_nrec;
    int mi_alter; /* flip a byte of the next DATA frame from the dealer */
    int mi_hold;  /* stop forwarding */
} mitm;

static int raw_send_req(int s, const void *frame, size_t len)
{
    return tu_raw_send(s, 0x80000009u, frame, len, NN_DONTWAIT);
}

static int raw_send_rep(int s, const uint8_t route[8], const void *frame,
                        size_t len)
{
    uint8_t ctl[NN_CMSG_SPACE(sizeof(size_t) + 8)];
    struct nn_cmsghdr *c = (struct nn_cmsghdr *)(void *)ctl;
    size_t hl = 8;
    c->cmsg_len = NN_CMSG_LEN(sizeof(size_t) + 8);
    c->cmsg_level = PROTO_SP;
    c->cmsg_type = SP_HDR;
    memcpy(NN_CMSG_DATA(c), &hl, sizeof hl);
    memcpy(NN_CMSG_DATA(c) + sizeof hl, route, 8);
    struct nn_iovec iov = {(void *)frame, len};
    struct nn_msghdr h = {&iov, 1, ctl, sizeof ctl};
    return nn_sendmsg(s, &h, NN_DONTWAIT);
}

/* Moves what waits on either side across, recording the dealer's frames.
 * Called from the loop's condition checks. */
static void mitm_pump(mitm *m)
{
    for (;;) {
        void *body = NULL;
        union {
            uint8_t b[256];
            size_t align;
        } ctl;
        struct nn_iovec iov = {&body, NN_MSG};
        struct nn_msghdr h = {&iov, 1, ctl.b, sizeof ctl.b};
        int n = nn_recvmsg(m->mi_front, &h, NN_DONTWAIT);
        if (n < 0)
            break;
        struct nn_cmsghdr *c = NN_CMSG_FIRSTHDR(&h);
        if (c != NULL) {
            memcpy(m->mi_route, NN_CMSG_DATA(c) + sizeof(size_t), 8);
            m->mi_have_route = 1;
        }
        uint8_t *f = body;
        if (m->mi_nrec < MAX_REC) {
            m->mi_rec[m->mi_nrec] = malloc((size_t)n);
            memcpy(m->mi_rec[m->mi_nrec], f, (size_t)n);
            m->mi_rec_len[m->mi_nrec++] = (size_t)n;
        }
        if (m->mi_alter && n > SK_TFRAME_HDR + SK_TAUTH_TAG &&
            f[1] == SK_TF_DATA) {
            f[SK_TFRAME_HDR + 2] ^= 0x01;
            m->mi_alter = 0;
        }
        if (!m->mi_hold)
            raw_send_req(m->mi_back, f, (size_t)n);
        nn_freemsg(body);
    }
    for (;;) {
        void *body = NULL;
        int n = nn_recv(m->mi_back, &body, NN_MSG, NN_DONTWAIT);
        if (n < 0)
            break;
        if (m->mi_have_route && !m->mi_hold)
            raw_send_rep(m->mi_front, m->mi_route, body, (size_t)n);
        nn_freemsg(body);
    }
}

typedef struct mitm_wait {
    mitm *mw_m;
    int (*mw_cond)(void *);
    void *mw_arg;
} mitm_wait;

static int pump_until(void *arg)
{
    mitm_wait *w = arg;
    mitm_pump(w->mw_m);
    return w->mw_cond(w->mw_arg);
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

static void run_pumped(mitm *m, int (*cond)(void *), void *arg, double secs,
                       int *ok)
{
    mitm_wait w = {m, cond, arg};
    int r = tu_run_until(loop, pump_until, &w, secs);
    if (ok != NULL)
        *ok = r;
}

static int failed_more(void *arg)
{
    void **a = arg;
    sk_transport_stats st;
    sk_transport_stats_get(a[0], &st);
    return st.ts_auth_failed > *(uint64_t *)a[1];
}

static void test_mitm(const char *ep_router, const char *ep_front)
{
    side r, d;
    make(&r, "sched", "s1", key_a);
    make(&d, "nodemon", "n1", key_a);
    sk_transport_listen(r.sd_t, ep_router);
    mitm m;
    memset(&m, 0, sizeof m);
    m.mi_front = nn_socket(AF_SP_RAW, NN_REP);
    m.mi_back = nn_socket(AF_SP_RAW, NN_REQ);
    if (nn_bind(m.mi_front, ep_front) < 0 ||
        nn_connect(m.mi_back, ep_router) < 0)
        tap_bail_out("cannot set up the man in the middle");
    sk_peer_id conn;
    sk_transport_connect(d.sd_t, ep_front, &conn);
    side *both[2] = {&r, &d};
    int ok;
    run_pumped(&m, up_both, both, 5, &ok);
    tap_ok(ok, "through the man in the middle, the session comes up");
    send_n(d.sd_t, conn, "s1", 0, 100);
    run_pumped(&m, never, NULL, 0.3, NULL);
    tap_is_int((int64_t)r.sd_rec.ru_msgs, 100, "100 messages pass");
    int ups = r.sd_rec.ru_ups;
    uint64_t msgs = r.sd_rec.ru_msgs;

    /* 1. The whole recorded conversation, replayed on a new pipe. */
    sk_transport_stats before, after;
    sk_transport_stats_get(r.sd_t, &before);
    int s = nn_socket(AF_SP_RAW, NN_REQ);
    nn_connect(s, ep_router);
    tu_run_for(loop, 0.1);
    for (int i = 0; i < m.mi_nrec; i++) {
        raw_send_req(s, m.mi_rec[i], m.mi_rec_len[i]);
        tu_run_for(loop, 0.01);
    }
    run_pumped(&m, never, NULL, 0.5, NULL);
    sk_transport_stats_get(r.sd_t, &after);
    tap_ok(r.sd_rec.ru_ups == ups && r.sd_rec.ru_msgs == msgs,
           "a replayed conversation brings up no session and delivers "
           "nothing (%d frames replayed)",
           m.mi_nrec);
    tap_ok(after.ts_auth_failed > before.ts_auth_failed,
           "its first sealed frame fails authentication, counted");
    nn_close(s);

    /* 2. A recorded DATA frame, replayed into the live session. */
    int replay = -1;
    for (int i = m.mi_nrec - 1; i >= 0 && replay < 0; i--)
        if (m.mi_rec[i][1] == SK_TF_DATA)
            replay = i;
    int downs = r.sd_rec.ru_downs;
    sk_transport_stats_get(r.sd_t, &before);
    raw_send_req(m.mi_back, m.mi_rec[replay], m.mi_rec_len[replay]);
    uint64_t was = before.ts_auth_failed;
    void *fa[2] = {r.sd_t, &was};
    run_pumped(&m, failed_more, fa, 3, &ok);
    tap_ok(ok && r.sd_rec.ru_msgs == msgs,
           "a replayed frame in the live session is refused and delivers "
           "nothing twice");
    run_pumped(&m, up_both, both, 1, NULL);
    tap_ok(r.sd_rec.ru_downs > downs,
           "the session is redone (the daemon hears peer-down)");

    /* 2b. A sealed frame alone on a new pipe: a session the router does
     * not know. It cannot be opened; it is answered with RESET (redo the
     * handshake), as a clear one is, and not called malformed. */
    sk_transport_stats_get(r.sd_t, &before);
    int s2 = nn_socket(AF_SP_RAW, NN_REQ);
    nn_connect(s2, ep_router);
    tu_run_for(loop, 0.1);
    raw_send_req(s2, m.mi_rec[replay], m.mi_rec_len[replay]);
    int kind = -1;
    double end = ev_time() + 3;
    while (kind < 0 && ev_time() < end) {
        void *f;
        int n = nn_recv(s2, &f, NN_MSG, NN_DONTWAIT);
        if (n >= SK_TFRAME_HDR)
            kind = ((uint8_t *)f)[1];
        if (n >= 0)
            nn_freemsg(f);
        run_pumped(&m, never, NULL, 0.005, NULL);
    }
    sk_transport_stats_get(r.sd_t, &after);
    tap_ok(kind == SK_TF_RESET && after.ts_malformed == before.ts_malformed &&
               after.ts_unknown > before.ts_unknown,
           "a sealed frame of an unknown session is answered with RESET, "
           "not counted malformed");
    nn_close(s2);

    /* 3. An altered frame. */
    run_pumped(&m, never, NULL, 0.5, NULL); /* the new session settles */
    sk_transport_stats_get(r.sd_t, &before);
    msgs = r.sd_rec.ru_msgs;
    if (sk_transport_lookup(d.sd_t, "sched", "s1", &conn) < 0)
        tap_bail_out("the dealer lost the router");
    m.mi_alter = 1;
    char one[] = "s1 x";
    sk_transport_send(d.sd_t, conn, one, sizeof one - 1);
    was = before.ts_auth_failed;
    run_pumped(&m, failed_more, fa, 3, &ok);
    tap_ok(ok && r.sd_rec.ru_msgs == msgs,
           "an altered frame is refused and its message not delivered");

    /* 4. A forged frame: right header, made-up body and tag. */
    run_pumped(&m, never, NULL, 0.5, NULL);
    sk_transport_stats_get(r.sd_t, &before);
    uint8_t forged[SK_TFRAME_HDR + 30 + SK_TAUTH_TAG];
    sk_tauth_random(forged, sizeof forged);
    sk_tframe_header(forged, SK_TF_DATA, 2, 1, 1);
    forged[0] = SK_TFRAME_SEALED;
    raw_send_req(m.mi_back, forged, sizeof forged);
    was = before.ts_auth_failed;
    run_pumped(&m, failed_more, fa, 3, &ok);
    tap_ok(ok && r.sd_rec.ru_msgs == msgs,
           "a forged frame is refused and delivers nothing");

    for (int i = 0; i < m.mi_nrec; i++)
        free(m.mi_rec[i]);
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);
    nn_close(m.mi_front);
    nn_close(m.mi_back);
}

/* A clear HELLO to a keyed router: answered with a sealed-version RESET,
 * nothing comes up, and pending handshakes expire. */
static void test_clear_hello(const char *ep)
{
    side r;
    make(&r, "sched", "s1", key_a);
    sk_transport_listen(r.sd_t, ep);
    int s = nn_socket(AF_SP_RAW, NN_REQ);
    nn_connect(s, ep);
    tu_run_for(loop, 0.1);
    uint8_t f[SK_TFRAME_HDR + SK_TFRAME_HELLO_SEALED_MAX];
    size_t n = sk_tframe_hello_body(f + SK_TFRAME_HDR, "sched", "s9", 7);
    sk_tframe_header(f, SK_TF_HELLO, 0, 0, 0);
    raw_send_req(s, f, SK_TFRAME_HDR + n);
    int kind = -1, version = -1;
    double end = ev_time() + 3;
    while (kind < 0 && ev_time() < end) {
        void *m;
        int got_n = nn_recv(s, &m, NN_MSG, NN_DONTWAIT);
        if (got_n >= SK_TFRAME_HDR) {
            version = ((uint8_t *)m)[0];
            kind = ((uint8_t *)m)[1];
        }
        if (got_n >= 0)
            nn_freemsg(m);
        tu_run_for(loop, 0.005);
    }
    tap_ok(kind == SK_TF_RESET && version == SK_TFRAME_SEALED,
           "a clear HELLO is answered with a RESET in the sealed version");

    /* A sealed HELLO from someone without the key: answered, pending,
     * then expired. */
    n = sk_tframe_hello_body(f + SK_TFRAME_HDR, "sched", "s9", 8);
    sk_tauth_random(f + SK_TFRAME_HDR + n, SK_TFRAME_AUTH);
    n += SK_TFRAME_AUTH;
    sk_tframe_header(f, SK_TF_HELLO, 0, 0, 0);
    f[0] = SK_TFRAME_SEALED;
    sk_transport_stats before, after;
    sk_transport_stats_get(r.sd_t, &before);
    raw_send_req(s, f, SK_TFRAME_HDR + n);
    tu_run_for(loop, 0.7);
    sk_transport_stats_get(r.sd_t, &after);
    tap_ok(r.sd_rec.ru_ups == 0 &&
               after.ts_auth_timeouts == before.ts_auth_timeouts + 1,
           "an unfinished handshake expires after heartbeat * misses and is "
           "counted; no session came up");
    nn_close(s);
    sk_transport_destroy(r.sd_t);
}

int main(void)
{
    tap_plan_lazy();
    tap_timeout(60);
    sk_log_set_level(getenv("SK_TEST_LOG") ? SK_LOG_DEBUG : SK_LOG_ERROR);
    loop = ev_default_loop(0);
    test_crypto();
    char ep[64], ep2[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_matching_keys(ep);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_refused(ep, key_a, key_b, "wrong key",
                 "does not hold our cluster key");
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_refused(ep, NULL, key_a, "keyed dealer, unkeyed router",
                 "it has no cluster key");
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_refused(ep, key_a, NULL, "unkeyed dealer, keyed router",
                 "wants authentication");
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    snprintf(ep2, sizeof ep2, "tcp://127.0.0.1:%d", tu_free_port());
    test_mitm(ep, ep2);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", tu_free_port());
    test_clear_hello(ep);
    ev_loop_destroy(loop);
    tap_done();
    return tap_exit_status();
}
