/*
 * sk_transport_rx.c - the receiving half of the transport: draining
 * nanomsg's signalling fds, validating frames, the handshake, acks, and
 * the heartbeat tick that finds silent peers.
 *
 * NN_RCVFD is a descriptor that nanomsg signals while its socket holds a
 * message; it is never to be read. Measured on 1.1.5: it stays readable
 * after a partial drain and turns unreadable once a receive says EAGAIN,
 * so it is level-triggered. Each readiness drains with NN_DONTWAIT until
 * EAGAIN, which empties the socket in one pass. NN_SNDFD of a router is
 * always readable (its sends never block): it is not watched. A dealer's
 * NN_SNDFD is watched only while a send said EAGAIN.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_token.h"
#include "sk_transport_impl.h"
#include "skylark.h"

#include <errno.h>
#include <nanomsg/nn.h>
#include <stdio.h>
#include <string.h>

/* Counts a malformed frame; logs the first few and then every power of 2,
 * so that a hostile peer cannot flood the log. */
static void malformed(sk_transport *t, const char *what)
{
    uint64_t n = ++t->t_stats.ts_malformed;
    if (n <= 10 || (n & (n - 1)) == 0)
        sk_warn("transport: malformed frame dropped (%s); %llu so far", what,
                (unsigned long long)n);
}

/* Counts a failed authentication, logged like a malformed frame. */
static void auth_failed(sk_transport *t, const char *role, const char *name,
                        const char *what)
{
    uint64_t n = ++t->t_stats.ts_auth_failed;
    if (n > 10 && (n & (n - 1)) != 0)
        return;
    if (role[0] != '\0')
        sk_warn("transport: %s %s: %s; %llu authentication failures so far",
                role, name, what, (unsigned long long)n);
    else
        sk_warn("transport: %s; %llu authentication failures so far", what,
                (unsigned long long)n);
}

/* Checks that a frame speaks our mode (sealed under a key, or clear).
 * Returns 1 if it does; otherwise counts and logs it. */
static int mode_ok(sk_transport *t, const uint8_t *buf, size_t len)
{
    if (len == 0)
        return 1; /* the parser calls it malformed */
    if (t->t_cfg.tc_keyed && buf[0] == SK_TFRAME_VERSION) {
        auth_failed(t, "", "",
                    "unauthenticated frame refused (this daemon requires the "
                    "cluster key)");
        return 0;
    }
    if (!t->t_cfg.tc_keyed && buf[0] == SK_TFRAME_SEALED) {
        auth_failed(t, "", "",
                    "authenticated frame refused (the peer holds a cluster "
                    "key, this daemon has none)");
        return 0;
    }
    return 1;
}

/* Opens a sealed frame in place with p's receive key and the seq it must
 * carry, and shortens *len by the tag. Frames that travel in the clear
 * (HELLO; RESET, which only a router sends) and unkeyed transports pass
 * untouched. Returns 0, or SK_EPROTO if it does not open (forged, altered,
 * replayed, reordered). */
static int open_frame(sk_transport *t, const sk_tpeer *p, uint8_t *buf,
                      size_t *len)
{
    if (!t->t_cfg.tc_keyed || *len < SK_TFRAME_HDR || buf[1] == SK_TF_HELLO ||
        (buf[1] == SK_TF_RESET && p->pe_conn != NULL))
        return 0;
    if (*len < SK_TFRAME_HDR + SK_TAUTH_TAG)
        return SK_EPROTO;
    size_t body = *len - SK_TFRAME_HDR - SK_TAUTH_TAG;
    if (sk_tauth_open(p->pe_keys.ak_rx, p->pe_rx_seq, buf, SK_TFRAME_HDR,
                      buf + SK_TFRAME_HDR, body,
                      buf + SK_TFRAME_HDR + body) < 0)
        return SK_EPROTO;
    *len -= SK_TAUTH_TAG;
    return 0;
}

/* Hands every message of a validated DATA frame to the daemon. */
static void deliver(sk_transport *t, sk_tpeer *p, const sk_tframe *f)
{
    sk_peer_id id = sk_tpeer_id(t, p);
    size_t at = 0;
    t->t_in_cb++;
    for (uint32_t i = 0; i < f->tf_count; i++) {
        uint32_t len = sk_tframe_get32(f->tf_body + at);
        at += SK_TFRAME_REC;
        t->t_stats.ts_received++;
        if (t->t_cb.tc_recv != NULL)
            t->t_cb.tc_recv(t->t_cb.tc_arg, id, f->tf_body + at, len);
        at += len;
    }
    t->t_in_cb--;
}

static void report_up(sk_transport *t, sk_tpeer *p)
{
    t->t_stats.ts_ups++;
    t->t_stats.ts_peers++;
    sk_tmap_name_add(t, p);
    sk_info("transport: peer up: %s %s", p->pe_role, p->pe_name);
    if (t->t_cb.tc_up != NULL) {
        t->t_in_cb++;
        t->t_cb.tc_up(t->t_cb.tc_arg, sk_tpeer_id(t, p), p->pe_role,
                      p->pe_name);
        t->t_in_cb--;
    }
}

/* Ends a broken session: both sides start over and the daemon hears
 * peer-down. */
static void reset_session(sk_transport *t, sk_tpeer *p)
{
    if (p->pe_conn != NULL) {
        sk_tpeer_down(t, p, SK_PEER_RESET);
        sk_tpeer_send_hello(t, p);
    } else {
        uint8_t route[8];
        memcpy(route, p->pe_route, 8);
        sk_tpeer_down(t, p, SK_PEER_RESET);
        sk_tpeer_send_reset(t, route, SK_TREFUSE_NONE);
    }
}

/* A session broke: a frame is missing. Nothing may be delivered after a
 * hole. */
static void seq_gap(sk_transport *t, sk_tpeer *p, uint32_t got)
{
    t->t_stats.ts_seq_gaps++;
    sk_warn("transport: %s %s: frame %u missing (got %u); resetting session",
            p->pe_role, p->pe_name, p->pe_rx_seq, got);
    reset_session(t, p);
}

/* --- router side -----------------------------------------------------------
 */

/* A peer for the session a dealer's HELLO f starts on route, in the route
 * map; NULL, counted and logged, at tc_max_peers (or, for a sealed
 * handshake, tc_max_pending handshakes under way). */
static sk_tpeer *router_peer_new(sk_transport *t, const uint8_t route[8],
                                 const sk_tframe *f, int sealed)
{
    sk_tpeer *p = !sealed || t->t_pending < t->t_cfg.tc_max_pending
                      ? sk_tpeer_alloc(t)
                      : NULL;
    if (p == NULL) {
        uint64_t n = ++t->t_stats.ts_peer_limit;
        if (n <= 10 || (n & (n - 1)) == 0)
            sk_warn("transport: %s %s refused: %u peers%s is the limit",
                    f->tf_role, f->tf_name, t->t_cfg.tc_max_peers,
                    sealed ? " or handshakes under way" : "");
        return NULL;
    }
    memcpy(p->pe_route, route, 8);
    memcpy(p->pe_role, f->tf_role, sizeof p->pe_role);
    memcpy(p->pe_name, f->tf_name, sizeof p->pe_name);
    p->pe_incarnation = f->tf_incarnation;
    p->pe_rx_seq = f->tf_seq + 1;
    p->pe_last_rx = ev_now(t->t_loop);
    sk_tmap_route_add(t, p);
    return p;
}

/* Whether a token of credential cred may take role here: one of the
 * words of tc_token_roles, "executor" for an executor token and only
 * for it. */
static int token_role_ok(const sk_transport *t, uint8_t cred, const char *role)
{
    if ((cred == SK_CRED_EXECUTOR) != (strcmp(role, "executor") == 0))
        return 0;
    const char *r = t->t_cfg.tc_token_roles;
    size_t rl = strlen(role);
    while (*r != '\0') {
        size_t w = strcspn(r, " ");
        if (w == rl && memcmp(r, role, rl) == 0)
            return 1;
        r += w + (r[w] == ' ');
    }
    return 0;
}

/* Checks the user credential of a dealer's HELLO and computes its key
 * into key. Returns 0, or the SK_TREFUSE_* reason, counted and logged. */
static uint32_t check_token(sk_transport *t, const sk_tframe *f,
                            uint8_t key[SK_TAUTH_KEY])
{
    char who[SK_TRANSPORT_MAX_NAME + 64];
    snprintf(who, sizeof who, "token of %s %s", sk_token_role_name(f->tf_cred),
             f->tf_user);
    if (!token_role_ok(t, f->tf_cred, f->tf_role)) {
        uint64_t n = ++t->t_stats.ts_role_refused;
        if (n <= 10 || (n & (n - 1)) == 0)
            sk_warn("transport: %s %s refused: a %s may not take the role "
                    "%s here, only the cluster key may; %llu so far",
                    f->tf_role, f->tf_name, who, f->tf_role,
                    (unsigned long long)n);
        return SK_TREFUSE_ROLE;
    }
    uint8_t mac[SK_TAUTH_PROOF];
    sk_token_key(t->t_cfg.tc_key, f->tf_user, f->tf_cred, f->tf_expiry, key);
    sk_tauth_hello_mac(key, f->tf_body, (size_t)(f->tf_mac - f->tf_body), mac);
    if (!sk_tauth_proof_ok(f->tf_mac, mac)) {
        sk_tauth_wipe(key, SK_TAUTH_KEY);
        auth_failed(t, f->tf_role, f->tf_name,
                    "its token does not verify (forged, or issued under "
                    "another cluster key)");
        return SK_TREFUSE_FORGED;
    }
    if (f->tf_expiry <= (uint64_t)ev_now(t->t_loop)) {
        sk_tauth_wipe(key, SK_TAUTH_KEY);
        t->t_stats.ts_token_expired++;
        auth_failed(t, f->tf_role, f->tf_name, "its token has expired");
        return SK_TREFUSE_EXPIRED;
    }
    return 0;
}

/* A sealed handshake from a dealer: a pending session whose keys are
 * derived now; it comes up when the dealer's first frame opens. An
 * existing session of this pipe ends (the dealer started over). A user
 * token is checked first: one that does not verify, has expired or
 * claims a role it may not have is refused with a RESET that says why. */
static void router_hello_sealed(sk_transport *t, sk_tpeer *p,
                                const uint8_t route[8], const sk_tframe *f)
{
    if (f->tf_nonce == NULL || f->tf_proof != NULL) {
        malformed(t, "a router's hello sent to a router");
        return;
    }
    uint8_t tkey[SK_TAUTH_KEY];
    uint32_t why = f->tf_cred != 0 ? check_token(t, f, tkey) : 0;
    if (p != NULL)
        sk_tpeer_down(t, p, SK_PEER_RESET);
    if (why != 0) {
        sk_tpeer_send_reset(t, route, why);
        return;
    }
    p = router_peer_new(t, route, f, 1);
    if (p == NULL) {
        sk_tauth_wipe(tkey, sizeof tkey);
        return;
    }
    p->pe_pending = 1;
    t->t_pending++;
    p->pe_cred = f->tf_cred;
    memcpy(p->pe_user, f->tf_user, sizeof p->pe_user);

    uint8_t body[SK_TFRAME_HELLO_SEALED_MAX];
    size_t n = sk_tframe_hello_body(body, t->t_cfg.tc_role, t->t_cfg.tc_name,
                                    t->t_incarnation);
    sk_tauth_random(body + n, SK_TFRAME_AUTH);
    memcpy(body + n + SK_TFRAME_AUTH, f->tf_nonce, SK_TFRAME_AUTH);
    n += 2 * SK_TFRAME_AUTH;
    sk_tauth_derive(f->tf_cred != 0 ? tkey : t->t_cfg.tc_key, f->tf_body,
                    f->tf_body_len, body, n, 1, &p->pe_keys);
    sk_tauth_wipe(tkey, sizeof tkey);
    memcpy(body + n, p->pe_keys.ak_proof, SK_TFRAME_AUTH);
    n += SK_TFRAME_AUTH;
    sk_tpeer_send_frame(t, p, SK_TF_HELLO, 0, body, n, NULL, 0);
}

/* A pending session's first frame opened: the dealer holds the key. Only
 * now may it take over a name from an older session. */
static void router_authenticated(sk_transport *t, sk_tpeer *p)
{
    p->pe_pending = 0;
    t->t_pending--;
    sk_tpeer *old = sk_tmap_name_find(t, p->pe_role, p->pe_name);
    if (old != NULL && old->pe_conn == NULL &&
        (old->pe_cred != p->pe_cred || strcmp(old->pe_user, p->pe_user) != 0)) {
        /* Only the credential that holds a name may take it over. */
        uint64_t n = ++t->t_stats.ts_role_refused;
        if (n <= 10 || (n & (n - 1)) == 0)
            sk_warn("transport: %s %s refused: the name is held under "
                    "another credential; %llu so far",
                    p->pe_role, p->pe_name, (unsigned long long)n);
        uint8_t route[8];
        memcpy(route, p->pe_route, 8);
        sk_tpeer_down(t, p, SK_PEER_RESET);
        sk_tpeer_send_reset(t, route, SK_TREFUSE_NAME);
        return;
    }
    if (old != NULL && old->pe_conn == NULL)
        sk_tpeer_down(t, old, SK_PEER_REPLACED);
    p->pe_up = 1;
    report_up(t, p);
}

static void router_hello(sk_transport *t, sk_tpeer *p, const uint8_t route[8],
                         const sk_tframe *f)
{
    if (t->t_cfg.tc_keyed) {
        router_hello_sealed(t, p, route, f);
        return;
    }
    ev_tstamp now = ev_now(t->t_loop);
    if (p != NULL) {
        if (p->pe_incarnation == f->tf_incarnation && p->pe_rx_seq == 1 &&
            f->tf_seq == 0 && strcmp(p->pe_role, f->tf_role) == 0 &&
            strcmp(p->pe_name, f->tf_name) == 0) {
            /* A retried HELLO: our answer is on its way or was lost. */
            p->pe_last_rx = now;
            if (!p->pe_inflight)
                sk_tpeer_send_hello(t, p);
            return;
        }
        sk_tpeer_down(t, p,
                      p->pe_incarnation != f->tf_incarnation ? SK_PEER_REPLACED
                                                             : SK_PEER_RESET);
    }
    sk_tpeer *old = sk_tmap_name_find(t, f->tf_role, f->tf_name);
    if (old != NULL && old->pe_conn == NULL)
        sk_tpeer_down(t, old, SK_PEER_REPLACED);

    p = router_peer_new(t, route, f, 0);
    if (p == NULL)
        return;
    p->pe_up = 1;
    sk_tpeer_send_hello(t, p);
    report_up(t, p);
}

static void router_frame(sk_transport *t, const uint8_t route[8], uint8_t *buf,
                         size_t len)
{
    sk_tframe f;
    const char *why;
    t->t_stats.ts_frames_received++;
    if (!mode_ok(t, buf, len)) {
        /* A RESET in our own mode tells the dealer why it gets nowhere. */
        if (len >= SK_TFRAME_HDR && buf[1] == SK_TF_HELLO)
            sk_tpeer_send_reset(t, route, SK_TREFUSE_NONE);
        return;
    }
    sk_tpeer *p = sk_tmap_route_find(t, route);
    if (p == NULL && t->t_cfg.tc_keyed && len >= SK_TFRAME_HDR &&
        buf[1] != SK_TF_HELLO) {
        /* A sealed frame of a session we do not know (we restarted, or
         * replaced or dropped it): no key opens it, and a parse would
         * call it malformed. Ask for a new handshake, as for a clear one. */
        if (buf[1] != SK_TF_GOODBYE && buf[1] != SK_TF_RESET) {
            t->t_stats.ts_unknown++;
            sk_tpeer_send_reset(t, route, SK_TREFUSE_NONE);
        }
        return;
    }
    if (p != NULL && open_frame(t, p, buf, &len) < 0) {
        /* Not from the holder of this session's keys. A session still in
         * its handshake ends; one that is up is redone, as after a gap. */
        auth_failed(t, p->pe_role, p->pe_name,
                    p->pe_pending ? "its first frame does not authenticate "
                                    "(it does not hold the cluster key)"
                                  : "a frame does not authenticate "
                                    "(forged, replayed or altered)");
        if (p->pe_pending)
            sk_tpeer_down(t, p, SK_PEER_RESET);
        else
            reset_session(t, p);
        return;
    }
    if (sk_tframe_parse(buf, len, t->t_cfg.tc_max_msg, &f, &why) < 0) {
        malformed(t, why);
        return;
    }
    if (f.tf_kind == SK_TF_HELLO) {
        router_hello(t, p, route, &f);
        return;
    }
    if (p == NULL) {
        /* A dealer whose session we do not know (we restarted, or it
         * reconnected): tell it to redo the handshake. */
        if (f.tf_kind != SK_TF_GOODBYE && f.tf_kind != SK_TF_RESET) {
            t->t_stats.ts_unknown++;
            sk_tpeer_send_reset(t, route, SK_TREFUSE_NONE);
        }
        return;
    }
    if (f.tf_seq != p->pe_rx_seq) {
        seq_gap(t, p, f.tf_seq);
        return;
    }
    if (p->pe_pending) {
        router_authenticated(t, p);
        if (!p->pe_up)
            return; /* refused: its slot is free again */
    }
    p->pe_rx_seq++;
    p->pe_last_rx = ev_now(t->t_loop);
    if (p->pe_inflight && (int32_t)(f.tf_ack - p->pe_inflight_seq) > 0) {
        /* The window is open again. Not a flush now: what this frame
         * carries is delivered first, so that the replies to it leave in
         * one frame with what was waiting. */
        p->pe_inflight = 0;
        if (p->pe_q_count > 0)
            sk_tpeer_mark(t, p);
    }
    switch (f.tf_kind) {
    case SK_TF_DATA:
        deliver(t, p, &f);
        break;
    case SK_TF_GOODBYE:
        sk_tpeer_down(t, p, SK_PEER_GOODBYE);
        break;
    case SK_TF_RESET:
        sk_tpeer_down(t, p, SK_PEER_RESET);
        break;
    default: /* HEARTBEAT, ACK: liveness and ack, handled above */
        break;
    }
}

/* Finds the routing header in the control data of a received message. */
static int route_of(struct nn_msghdr *h, uint8_t route[8])
{
    for (struct nn_cmsghdr *c = NN_CMSG_FIRSTHDR(h); c != NULL;
         c = NN_CMSG_NXTHDR(h, c)) {
        if (c->cmsg_level != PROTO_SP || c->cmsg_type != SP_HDR)
            continue;
        size_t hl;
        if (c->cmsg_len < NN_CMSG_LEN(sizeof hl + 8))
            return SK_EPROTO;
        memcpy(&hl, NN_CMSG_DATA(c), sizeof hl);
        /* Exactly pipe key and dealer id: we route no devices. */
        if (hl != 8)
            return SK_EPROTO;
        memcpy(route, NN_CMSG_DATA(c) + sizeof hl, 8);
        return 0;
    }
    return SK_EPROTO;
}

/* Receives every frame waiting on the router socket. */
static void sk_trx_router_drain(sk_transport *t);

void sk_trx_router_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    sk_trx_router_drain(w->data);
}

static void sk_trx_router_drain(sk_transport *t)
{
    for (;;) {
        void *body = NULL;
        union {
            uint8_t b[256];
            size_t align;
        } ctl;
        struct nn_iovec iov = {&body, NN_MSG};
        struct nn_msghdr h = {&iov, 1, ctl.b, sizeof ctl.b};
        int n = nn_recvmsg(t->t_router, &h, NN_DONTWAIT);
        if (n < 0) {
            int err = nn_errno();
            if (err == EINTR)
                continue;
            if (err != EAGAIN)
                sk_error("transport: router nn_recvmsg: %s", nn_strerror(err));
            return;
        }
        uint8_t route[8];
        if (route_of(&h, route) < 0) {
            t->t_stats.ts_frames_received++;
            malformed(t, "no routing header");
        } else {
            router_frame(t, route, body, (size_t)n);
        }
        nn_freemsg(body);
    }
}

/* --- dealer side -----------------------------------------------------------
 */

/* Tells the daemon that a handshake on a connection of ours failed. */
static void notify_refused(sk_transport *t, sk_tpeer *p, const char *why)
{
    if (t->t_cb.tc_refused != NULL) {
        t->t_in_cb++;
        t->t_cb.tc_refused(t->t_cb.tc_arg, sk_tpeer_id(t, p), why);
        t->t_in_cb--;
    }
}

/* Counts, logs and reports a failed handshake on a connection of ours. */
static void refused(sk_transport *t, sk_tpeer *p, const char *role,
                    const char *name, const char *why)
{
    auth_failed(t, role, name, why);
    notify_refused(t, p, why);
}

/* What a router's RESET of reason why (SK_TREFUSE_*) tells us. */
static const char *refusal(uint32_t why)
{
    switch (why) {
    case SK_TREFUSE_FORGED:
        return "refused our token: it does not verify (forged, or issued "
               "under another cluster key)";
    case SK_TREFUSE_EXPIRED:
        return "refused our token: it has expired (ask for a new one: "
               "skylark user token)";
    case SK_TREFUSE_ROLE:
        return "refused our token for this role: only the cluster key may "
               "take it";
    default:
        return "refused our session: its name is held under another "
               "credential";
    }
}

/* Checks a router's sealed answer to our HELLO and derives the session's
 * keys. Returns 1 if the session may come up. */
static int dealer_check_hello(sk_transport *t, sk_tpeer *p, const sk_tframe *f)
{
    if (f->tf_proof == NULL) {
        malformed(t, "a dealer's hello sent to a dealer");
        return 0;
    }
    if (memcmp(f->tf_echo, p->pe_nonce, SK_TFRAME_AUTH) != 0)
        return 0; /* the answer to an older try of ours: one follows */
    uint8_t mine[SK_TFRAME_HELLO_SEALED_MAX];
    size_t n = sk_tpeer_dealer_hello(t, p, mine);
    sk_tauth_derive(t->t_cfg.tc_key, mine, n, f->tf_body,
                    f->tf_body_len - SK_TFRAME_AUTH, 0, &p->pe_keys);
    if (!sk_tauth_proof_ok(f->tf_proof, p->pe_keys.ak_proof)) {
        sk_tauth_wipe(&p->pe_keys, sizeof p->pe_keys);
        refused(t, p, f->tf_role, f->tf_name,
                t->t_cfg.tc_token_user[0] != '\0'
                    ? "failed authentication: it does not accept our token"
                    : "failed authentication: it does not hold our cluster "
                      "key");
        return 0;
    }
    return 1;
}

static void dealer_frame(sk_transport *t, sk_tpeer *p, uint8_t *buf, size_t len)
{
    sk_tframe f;
    const char *why;
    t->t_stats.ts_frames_received++;
    if (!mode_ok(t, buf, len)) {
        if (!p->pe_up)
            notify_refused(t, p,
                           t->t_cfg.tc_keyed
                               ? "answered without authentication: it has "
                                 "no cluster key"
                               : "wants authentication: it holds a cluster "
                                 "key and we have none");
        return;
    }
    if (!p->pe_up && t->t_cfg.tc_keyed && len >= SK_TFRAME_HDR &&
        buf[1] != SK_TF_HELLO && buf[1] != SK_TF_RESET) {
        /* Sealed under a session that has ended: nothing to open it. */
        t->t_stats.ts_unknown++;
        return;
    }
    if (p->pe_up && open_frame(t, p, buf, &len) < 0) {
        auth_failed(t, p->pe_role, p->pe_name,
                    "a frame does not authenticate (forged, replayed or "
                    "altered)");
        reset_session(t, p);
        return;
    }
    if (sk_tframe_parse(buf, len, t->t_cfg.tc_max_msg, &f, &why) < 0) {
        malformed(t, why);
        return;
    }
    ev_tstamp now = ev_now(t->t_loop);
    if (f.tf_kind == SK_TF_HELLO) {
        if (p->pe_up) {
            if (f.tf_incarnation == p->pe_incarnation &&
                f.tf_seq == p->pe_rx_seq) {
                /* The answer to a HELLO we retried. */
                p->pe_rx_seq++;
                p->pe_last_rx = now;
                p->pe_ack_owed = 1;
                return;
            }
            sk_tpeer_down(t, p, SK_PEER_RESET);
            sk_tpeer_send_hello(t, p);
            return;
        }
        if (t->t_cfg.tc_keyed && !dealer_check_hello(t, p, &f))
            return;
        memcpy(p->pe_role, f.tf_role, sizeof p->pe_role);
        memcpy(p->pe_name, f.tf_name, sizeof p->pe_name);
        p->pe_incarnation = f.tf_incarnation;
        p->pe_rx_seq = f.tf_seq + 1;
        p->pe_last_rx = now;
        p->pe_up = 1;
        /* Owed at once: sealed, it proves our key to the router, whose
         * session comes up only then. */
        p->pe_ack_owed = 1;
        report_up(t, p);
        return;
    }
    if (f.tf_kind == SK_TF_RESET) {
        if (p->pe_up)
            sk_tpeer_down(t, p, SK_PEER_RESET);
        if (f.tf_count != SK_TREFUSE_NONE) {
            /* Refused: the heartbeat retries, not a loop of HELLOs. */
            refused(t, p, "", "", refusal(f.tf_count));
            return;
        }
        sk_tpeer_send_hello(t, p);
        return;
    }
    if (!p->pe_up) {
        t->t_stats.ts_unknown++;
        return;
    }
    if (f.tf_seq != p->pe_rx_seq) {
        seq_gap(t, p, f.tf_seq);
        return;
    }
    p->pe_rx_seq++;
    p->pe_last_rx = now;
    /* The router sends nothing more until this frame is acked. */
    p->pe_ack_owed = 1;
    switch (f.tf_kind) {
    case SK_TF_DATA:
        deliver(t, p, &f);
        break;
    case SK_TF_GOODBYE:
        sk_tpeer_down(t, p, SK_PEER_GOODBYE);
        break;
    default: /* HEARTBEAT, ACK */
        break;
    }
}

void sk_trx_dealer_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    sk_tconn *cn = w->data;
    sk_transport *t = cn->cn_t;
    sk_tpeer *p = sk_tpeer_at(t, cn->cn_slot);
    (void)loop;
    (void)revents;
    for (;;) {
        void *body = NULL;
        int n = nn_recv(cn->cn_sock, &body, NN_MSG, NN_DONTWAIT);
        if (n < 0) {
            int err = nn_errno();
            if (err == EINTR)
                continue;
            if (err != EAGAIN)
                sk_error("transport: dealer nn_recv: %s", nn_strerror(err));
            break;
        }
        dealer_frame(t, p, body, (size_t)n);
        nn_freemsg(body);
    }
    /* One ack covers the whole batch, and rides on any reply. */
    if (p->pe_ack_owed)
        sk_tpeer_mark(t, p);
}

void sk_trx_dealer_snd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    sk_tconn *cn = w->data;
    sk_transport *t = cn->cn_t;
    sk_tpeer *p = sk_tpeer_at(t, cn->cn_slot);
    (void)revents;
    ev_io_stop(loop, w);
    p->pe_blocked = 0;
    if (p->pe_up)
        sk_tpeer_flush(t, p);
    else
        sk_tpeer_send_hello(t, p);
}

/* The first peer of the most urgent non-empty flush list, taken off that
 * list, or NULL when all are empty. */
static sk_tpeer *next_to_flush(sk_transport *t)
{
    for (unsigned c = 0; c < SK_TCLASSES; c++) {
        if (t->t_flush_head[c] < 0)
            continue;
        sk_tpeer *p = sk_tpeer_at(t, (uint32_t)t->t_flush_head[c]);
        t->t_flush_head[c] = p->pe_flush_next[c];
        if (t->t_flush_head[c] < 0)
            t->t_flush_tail[c] = -1;
        p->pe_listed &= (uint8_t) ~(1u << c);
        return p;
    }
    return NULL;
}

static int flush_pending(const sk_transport *t)
{
    for (unsigned c = 0; c < SK_TCLASSES; c++)
        if (t->t_flush_head[c] >= 0)
            return 1;
    return 0;
}

void sk_trx_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
    sk_transport *t = w->data;
    unsigned polls = 0;
    sk_tpeer *p;
    (void)revents;
    while ((p = next_to_flush(t)) != NULL) {
        uint64_t frames = t->t_stats.ts_frames_sent;
        if (p->pe_reset) {
            t->t_stats.ts_resets++;
            sk_warn("transport: %s %s: messages to it were lost; resetting "
                    "session",
                    p->pe_role, p->pe_name);
            reset_session(t, p);
        } else {
            sk_tpeer_flush(t, p);
        }
        /* Each frame cost a system call and woke its peer, which may have
         * answered already: take the answers in before the next frame, so
         * that an urgent reply need not wait for the rest of a fan-out. */
        if (t->t_router >= 0 && t->t_stats.ts_frames_sent != frames &&
            polls < SK_TFLUSH_POLLS && flush_pending(t)) {
            polls++;
            sk_trx_router_drain(t);
        }
    }
    ev_prepare_stop(loop, w);
}

/* --- heartbeats ------------------------------------------------------------
 */

void sk_trx_tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    sk_transport *t = w->data;
    ev_tstamp now = ev_now(loop);
    ev_tstamp hb = t->t_cfg.tc_heartbeat;
    ev_tstamp dead = hb * t->t_cfg.tc_misses;
    (void)revents;
    for (uint32_t i = 0; i < t->t_nslots; i++) {
        sk_tpeer *p = sk_tpeer_at(t, i);
        if (!p->pe_used)
            continue;
        if (p->pe_pending) {
            /* A handshake the dealer never finished. */
            if (now - p->pe_last_rx > dead) {
                uint64_t n = ++t->t_stats.ts_auth_timeouts;
                if (n <= 10 || (n & (n - 1)) == 0)
                    sk_warn("transport: %s %s: handshake not finished in "
                            "%.1f s (does it hold the cluster key?); %llu so "
                            "far",
                            p->pe_role, p->pe_name, dead,
                            (unsigned long long)n);
                sk_tpeer_down(t, p, SK_PEER_TIMEOUT);
            }
            continue;
        }
        if (!p->pe_up) {
            /* A connection of ours still (or again) without a session. */
            if (p->pe_conn != NULL)
                sk_tpeer_send_hello(t, p);
            continue;
        }
        if (now - p->pe_last_rx > dead) {
            sk_tpeer_down(t, p, SK_PEER_TIMEOUT);
            if (p->pe_used && p->pe_conn != NULL)
                sk_tpeer_send_hello(t, p);
            continue;
        }
        /* Keep the peer's view alive; a router waits for its window. */
        if (now - p->pe_last_tx < hb * 0.9)
            continue;
        if (p->pe_conn != NULL ? p->pe_blocked : p->pe_inflight)
            continue;
        if (p->pe_q_count > 0 || p->pe_ack_owed) {
            sk_tpeer_flush(t, p);
        } else {
            int rc =
                sk_tpeer_send_frame(t, p, SK_TF_HEARTBEAT, 0, NULL, 0, NULL, 0);
            if (rc == SK_EAGAIN)
                sk_tpeer_block(t, p);
        }
    }
}
