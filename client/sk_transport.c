/*
 * sk_transport.c - transport objects, peer slots and maps, sending and the
 * per-peer send queue (receiving is in sk_transport_rx.c).
 */
#include "config.h"
#include "sk_log.h"
#include "sk_transport_impl.h"
#include "skylark.h"

#include <errno.h>
#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <nanomsg/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The request id a dealer puts under each frame: nanomsg's router needs
 * the top bit set to find the bottom of the header stack. */
#define DEALER_ID 0x80000001u

void sk_transport_config_default(sk_transport_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->tc_heartbeat = 1.0;
    cfg->tc_misses = 3;
    cfg->tc_max_msg = 1u << 20;
    cfg->tc_max_peers = 16384;
    cfg->tc_queue_msgs = 4096;
    cfg->tc_queue_bytes = 16u << 20;
    cfg->tc_max_batch = 64u << 10;
    cfg->tc_reconnect_ms = 100;
    cfg->tc_max_pending = 256;
}

/* --- peer slots ---------------------------------------------------------- */

sk_tpeer *sk_tpeer_at(sk_transport *t, uint32_t slot)
{
    return &t->t_chunks[slot / SK_TPEER_CHUNK][slot % SK_TPEER_CHUNK];
}

static uint32_t sk_tpeer_slot(sk_transport *t, const sk_tpeer *p)
{
    (void)t;
    return p->pe_slot;
}

sk_peer_id sk_tpeer_id(sk_transport *t, const sk_tpeer *p)
{
    return (uint64_t)p->pe_gen << 32 | (sk_tpeer_slot(t, p) + 1);
}

/* The peer behind an id, or NULL if the id is stale or invalid. */
static sk_tpeer *peer_get(sk_transport *t, sk_peer_id id)
{
    uint32_t slot = (uint32_t)id - 1;
    if ((uint32_t)id == 0 || slot >= t->t_nslots)
        return NULL;
    sk_tpeer *p = sk_tpeer_at(t, slot);
    if (!p->pe_used || p->pe_gen != (uint32_t)(id >> 32))
        return NULL;
    return p;
}

sk_tpeer *sk_tpeer_alloc(sk_transport *t)
{
    uint32_t slot;
    if (t->t_free >= 0) {
        slot = (uint32_t)t->t_free;
        t->t_free = sk_tpeer_at(t, slot)->pe_route_next;
    } else {
        if (t->t_nslots >= t->t_cfg.tc_max_peers)
            return NULL;
        slot = t->t_nslots;
        if (slot % SK_TPEER_CHUNK == 0) {
            sk_tpeer *chunk = calloc(SK_TPEER_CHUNK, sizeof *chunk);
            if (chunk == NULL)
                return NULL;
            for (uint32_t i = 0; i < SK_TPEER_CHUNK; i++) {
                chunk[i].pe_gen = 1;
                chunk[i].pe_slot = slot + i;
            }
            t->t_chunks[slot / SK_TPEER_CHUNK] = chunk;
        }
        t->t_nslots++;
    }
    sk_tpeer *p = sk_tpeer_at(t, slot);
    /* The flush lists may still hold the slot: keep its links. */
    uint32_t gen = p->pe_gen;
    uint8_t listed = p->pe_listed;
    int32_t next[SK_TCLASSES];
    memcpy(next, p->pe_flush_next, sizeof next);
    memset(p, 0, sizeof *p);
    p->pe_gen = gen;
    p->pe_slot = slot;
    p->pe_listed = listed;
    memcpy(p->pe_flush_next, next, sizeof next);
    p->pe_class = SK_TCLASS_NORMAL;
    p->pe_used = 1;
    p->pe_route_next = -1;
    p->pe_name_next = -1;
    return p;
}

static void peer_free(sk_transport *t, sk_tpeer *p)
{
    uint32_t slot = sk_tpeer_slot(t, p);
    free(p->pe_q);
    p->pe_q = NULL;
    p->pe_used = 0;
    sk_tauth_wipe(&p->pe_keys, sizeof p->pe_keys);
    p->pe_gen++;
    if (p->pe_gen == 0)
        p->pe_gen = 1;
    p->pe_route_next = t->t_free;
    t->t_free = (int32_t)slot;
}

/* --- maps: chained hashing over slot indices ------------------------------ */

static uint32_t hash_bytes(uint64_t h, const void *data, size_t len)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return (uint32_t)(h ^ h >> 32);
}

static uint32_t route_bucket(sk_transport *t, const uint8_t route[8])
{
    return hash_bytes(0xcbf29ce484222325ull, route, 8) & t->t_map_mask;
}

static uint32_t name_bucket(sk_transport *t, const char *role, const char *name)
{
    uint64_t h = hash_bytes(0xcbf29ce484222325ull, role, strlen(role) + 1);
    return hash_bytes(h, name, strlen(name)) & t->t_map_mask;
}

sk_tpeer *sk_tmap_route_find(sk_transport *t, const uint8_t route[8])
{
    for (int32_t s = t->t_route_map[route_bucket(t, route)]; s >= 0;) {
        sk_tpeer *p = sk_tpeer_at(t, (uint32_t)s);
        if (memcmp(p->pe_route, route, 8) == 0)
            return p;
        s = p->pe_route_next;
    }
    return NULL;
}

void sk_tmap_route_add(sk_transport *t, sk_tpeer *p)
{
    uint32_t b = route_bucket(t, p->pe_route);
    p->pe_route_next = t->t_route_map[b];
    t->t_route_map[b] = (int32_t)sk_tpeer_slot(t, p);
}

static void unlink_chain(sk_transport *t, int32_t *head, sk_tpeer *p, int route)
{
    int32_t want = (int32_t)sk_tpeer_slot(t, p);
    while (*head >= 0) {
        sk_tpeer *q = sk_tpeer_at(t, (uint32_t)*head);
        int32_t *next = route ? &q->pe_route_next : &q->pe_name_next;
        if (*head == want) {
            *head = *next;
            *next = -1;
            return;
        }
        head = next;
    }
    SK_ASSERT(!"peer missing from its map");
}

sk_tpeer *sk_tmap_name_find(sk_transport *t, const char *role, const char *name)
{
    for (int32_t s = t->t_name_map[name_bucket(t, role, name)]; s >= 0;) {
        sk_tpeer *p = sk_tpeer_at(t, (uint32_t)s);
        if (strcmp(p->pe_name, name) == 0 && strcmp(p->pe_role, role) == 0)
            return p;
        s = p->pe_name_next;
    }
    return NULL;
}

void sk_tmap_name_add(sk_transport *t, sk_tpeer *p)
{
    if (sk_tmap_name_find(t, p->pe_role, p->pe_name) != NULL) {
        /* Two of our connections lead to peers of one name: the first one
         * keeps the name; the second is reachable by id only. */
        sk_warn("transport: two peers named %s %s; the second is reachable "
                "by id only",
                p->pe_role, p->pe_name);
        return;
    }
    uint32_t b = name_bucket(t, p->pe_role, p->pe_name);
    p->pe_name_next = t->t_name_map[b];
    t->t_name_map[b] = (int32_t)sk_tpeer_slot(t, p);
    p->pe_named = 1;
}

/* --- sending ---------------------------------------------------------------
 */

size_t sk_tframe_body_max(const sk_transport_config *cfg)
{
    size_t one = (size_t)cfg->tc_max_msg + SK_TFRAME_REC;
    return cfg->tc_max_batch > one ? cfg->tc_max_batch : one;
}

/* Builds p's next frame sealed, in a message of nanomsg's own (its
 * allocator, so that nn_sendmsg takes it without a copy): the header hdr,
 * the body (body, then body2) encrypted straight from the caller's
 * buffers, the tag. Returns the message, or NULL. The first version
 * encrypted into a buffer of ours that nn_sendmsg then copied into its
 * message: a pass over every byte that the clear path does not make. */
static uint8_t *seal_msg(const sk_tpeer *p, const uint8_t *hdr,
                         const void *body, size_t len, const void *body2,
                         size_t len2)
{
    size_t blen = len + len2;
    uint8_t *m = nn_allocmsg(SK_TFRAME_HDR + blen + SK_TAUTH_TAG, 0);
    if (m == NULL)
        return NULL;
    uint8_t *b = m + SK_TFRAME_HDR;
    memcpy(m, hdr, SK_TFRAME_HDR);
    const uint8_t *in = body;
    if (len2 > 0) {
        /* Two pieces: join them, then encrypt in place. */
        memcpy(b, body, len);
        memcpy(b + len, body2, len2);
        in = b;
    }
    sk_tauth_seal(p->pe_keys.ak_tx, p->pe_tx_seq, m, SK_TFRAME_HDR, in, blen, b,
                  b + blen);
    return m;
}

int sk_tpeer_send_frame(sk_transport *t, sk_tpeer *p, sk_tframe_kind kind,
                        uint32_t count, const void *body, size_t len,
                        const void *body2, size_t len2)
{
    uint8_t hdr[SK_TFRAME_HDR];
    sk_tframe_header(hdr, kind, p->pe_tx_seq, p->pe_rx_seq, count);
    struct nn_iovec iov[3] = {
        {hdr, sizeof hdr}, {(void *)body, len}, {(void *)body2, len2}};
    int niov = len2 > 0 ? 3 : len > 0 ? 2 : 1;
    uint8_t *sealed = NULL; /* ours until nanomsg takes it */
    if (t->t_cfg.tc_keyed) {
        hdr[0] = SK_TFRAME_SEALED;
        /* HELLO is the handshake itself; RESET answers a pipe that has no
         * session, hence no key. Everything else is sealed. */
        if (kind != SK_TF_HELLO && kind != SK_TF_RESET) {
            sealed = seal_msg(p, hdr, body, len, body2, len2);
            if (sealed == NULL)
                return SK_ENOMEM;
            iov[0].iov_base = &sealed;
            iov[0].iov_len = NN_MSG;
            niov = 1;
        }
    }

    /* SP_HDR control data: a size_t length, then the header bytes. */
    union {
        uint8_t b[NN_CMSG_SPACE(sizeof(size_t) + 8)];
        size_t align;
    } ctl;
    size_t hlen = p->pe_conn != NULL ? 4 : 8;
    struct nn_cmsghdr *c = (struct nn_cmsghdr *)ctl.b;
    c->cmsg_len = NN_CMSG_LEN(sizeof(size_t) + hlen);
    c->cmsg_level = PROTO_SP;
    c->cmsg_type = SP_HDR;
    uint8_t *d = NN_CMSG_DATA(c);
    memcpy(d, &hlen, sizeof hlen);
    if (p->pe_conn != NULL)
        sk_tframe_put32(d + sizeof(size_t), DEALER_ID);
    else
        memcpy(d + sizeof(size_t), p->pe_route, 8);
    struct nn_msghdr h = {iov, niov, ctl.b,
                          NN_CMSG_SPACE(sizeof(size_t) + hlen)};

    int sock = p->pe_conn != NULL ? p->pe_conn->cn_sock : t->t_router;
    if (nn_sendmsg(sock, &h, NN_DONTWAIT) < 0) {
        int err = nn_errno();
        if (sealed != NULL)
            nn_freemsg(sealed); /* never left: the next try seals anew */
        if (err == EAGAIN || err == EINTR)
            return SK_EAGAIN;
        sk_error("transport: nn_sendmsg to %s %s: %s", p->pe_role, p->pe_name,
                 nn_strerror(err));
        return SK_EIO;
    }
    if (p->pe_conn == NULL) {
        p->pe_inflight = 1;
        p->pe_inflight_seq = p->pe_tx_seq;
    }
    p->pe_tx_seq++;
    /* A frame key must never see a nonce twice: long before the sequence
     * number wraps, the session is redone with fresh keys. */
    if (t->t_cfg.tc_keyed && p->pe_tx_seq >= SK_TAUTH_SEQ_LIMIT &&
        !p->pe_reset) {
        p->pe_reset = 1;
        sk_tpeer_mark(t, p);
    }
    p->pe_ack_owed = 0;
    p->pe_last_tx = ev_now(t->t_loop);
    t->t_stats.ts_frames_sent++;
    return 0;
}

void sk_tpeer_mark(sk_transport *t, sk_tpeer *p)
{
    unsigned c = p->pe_class;
    if (p->pe_listed & (1u << c))
        return;
    p->pe_listed |= (uint8_t)(1u << c);
    p->pe_flush_next[c] = -1;
    if (t->t_flush_head[c] < 0)
        t->t_flush_head[c] = (int32_t)p->pe_slot;
    else
        sk_tpeer_at(t, (uint32_t)t->t_flush_tail[c])->pe_flush_next[c] =
            (int32_t)p->pe_slot;
    t->t_flush_tail[c] = (int32_t)p->pe_slot;
    if (!ev_is_active(&t->t_flush))
        ev_prepare_start(t->t_loop, &t->t_flush);
}

void sk_tpeer_block(sk_transport *t, sk_tpeer *p)
{
    if (p->pe_conn == NULL || p->pe_blocked)
        return;
    p->pe_blocked = 1;
    ev_io_start(t->t_loop, &p->pe_conn->cn_snd_w);
}

size_t sk_tpeer_dealer_hello(const sk_transport *t, const sk_tpeer *p,
                             uint8_t *buf)
{
    size_t n = sk_tframe_hello_body(buf, t->t_cfg.tc_role, t->t_cfg.tc_name,
                                    t->t_incarnation);
    if (!t->t_cfg.tc_keyed)
        return n;
    memcpy(buf + n, p->pe_nonce, sizeof p->pe_nonce);
    n += sizeof p->pe_nonce;
    if (t->t_cfg.tc_token_user[0] != '\0') {
        n += sk_tframe_cred_body(buf + n, t->t_cfg.tc_token_user,
                                 t->t_cfg.tc_token_role,
                                 t->t_cfg.tc_token_expiry);
        sk_tauth_hello_mac(t->t_cfg.tc_key, buf, n, buf + n);
        n += SK_TFRAME_AUTH;
    }
    return n;
}

void sk_tpeer_send_hello(sk_transport *t, sk_tpeer *p)
{
    uint8_t buf[SK_TFRAME_HELLO_SEALED_MAX];
    size_t n;
    if (p->pe_conn != NULL) {
        if (p->pe_blocked)
            return;
        p->pe_tx_seq = 0;
        p->pe_rx_seq = 0;
        /* A fresh nonce for every try: the router's answer to an older
         * one no longer matches and is ignored. */
        if (t->t_cfg.tc_keyed)
            sk_tauth_random(p->pe_nonce, sizeof p->pe_nonce);
        n = sk_tpeer_dealer_hello(t, p, buf);
    } else {
        n = sk_tframe_hello_body(buf, t->t_cfg.tc_role, t->t_cfg.tc_name,
                                 t->t_incarnation);
    }
    uint32_t cred = p->pe_conn != NULL && t->t_cfg.tc_keyed &&
                    t->t_cfg.tc_token_user[0] != '\0';
    int rc = sk_tpeer_send_frame(t, p, SK_TF_HELLO, cred, buf, n, NULL, 0);
    if (rc == SK_EAGAIN)
        sk_tpeer_block(t, p);
}

void sk_tpeer_send_reset(sk_transport *t, const uint8_t route[8], uint32_t why)
{
    sk_tpeer tmp;
    memset(&tmp, 0, sizeof tmp);
    memcpy(tmp.pe_route, route, 8);
    /* Best effort: a RESET lost to a busy pipe is resent at the dealer's
     * next frame. */
    sk_tpeer_send_frame(t, &tmp, SK_TF_RESET, why, NULL, 0, NULL, 0);
}

/* Sends one frame of queued messages, as many as fit in tc_max_batch. */
static int send_batch(sk_transport *t, sk_tpeer *p)
{
    /* The queue holds DATA records already: a prefix is a body. */
    size_t at = p->pe_q_head;
    uint32_t n = 0;
    while (n < p->pe_q_count) {
        size_t rec = SK_TFRAME_REC + sk_tframe_get32(p->pe_q + at);
        if (n > 0 && at + rec - p->pe_q_head > t->t_cfg.tc_max_batch)
            break;
        at += rec;
        n++;
    }
    int rc = sk_tpeer_send_frame(t, p, SK_TF_DATA, n, p->pe_q + p->pe_q_head,
                                 at - p->pe_q_head, NULL, 0);
    if (rc == 0) {
        t->t_stats.ts_sent += n;
        p->pe_q_count -= n;
        p->pe_q_head = at;
        if (p->pe_q_count == 0) {
            p->pe_q_head = p->pe_q_tail = 0;
            p->pe_class = SK_TCLASS_NORMAL;
        }
    }
    return rc;
}

void sk_tpeer_flush(sk_transport *t, sk_tpeer *p)
{
    int rc = 0;
    /* A router may have one frame in flight; a dealer sends until nanomsg
     * pushes back. */
    while (rc == 0 && p->pe_up &&
           !(p->pe_conn != NULL ? p->pe_blocked : p->pe_inflight)) {
        if (p->pe_q_count > 0)
            rc = send_batch(t, p);
        else if (p->pe_ack_owed)
            rc = sk_tpeer_send_frame(t, p, SK_TF_ACK, 0, NULL, 0, NULL, 0);
        else
            return;
    }
    if (rc == SK_EAGAIN)
        sk_tpeer_block(t, p);
}

/* Appends one record to p's queue, within the configured bounds. */
static int queue_push(sk_transport *t, sk_tpeer *p, const void *data,
                      size_t len)
{
    size_t need = SK_TFRAME_REC + len;
    if (p->pe_q_count >= t->t_cfg.tc_queue_msgs ||
        p->pe_q_tail - p->pe_q_head + need > t->t_cfg.tc_queue_bytes) {
        t->t_stats.ts_queue_full++;
        return SK_EAGAIN;
    }
    if (p->pe_q_tail + need > p->pe_q_cap && p->pe_q_head > 0) {
        memmove(p->pe_q, p->pe_q + p->pe_q_head, p->pe_q_tail - p->pe_q_head);
        p->pe_q_tail -= p->pe_q_head;
        p->pe_q_head = 0;
    }
    if (p->pe_q_tail + need > p->pe_q_cap) {
        size_t cap = p->pe_q_cap < 4096 ? 4096 : p->pe_q_cap * 2;
        while (cap < p->pe_q_tail + need)
            cap *= 2;
        uint8_t *q = realloc(p->pe_q, cap);
        if (q == NULL)
            return SK_ENOMEM;
        p->pe_q = q;
        p->pe_q_cap = cap;
    }
    sk_tframe_put32(p->pe_q + p->pe_q_tail, (uint32_t)len);
    if (len > 0)
        memcpy(p->pe_q + p->pe_q_tail + SK_TFRAME_REC, data, len);
    p->pe_q_tail += need;
    p->pe_q_count++;
    return 0;
}

int sk_transport_send(sk_transport *t, sk_peer_id peer, const void *data,
                      size_t len)
{
    sk_tpeer *p = peer_get(t, peer);
    if (p == NULL)
        return SK_ENOTFOUND;
    if (!p->pe_up || p->pe_reset)
        return SK_ESTATE;
    if (len > t->t_cfg.tc_max_msg)
        return SK_ELIMIT;
    int rc = queue_push(t, p, data, len);
    if (rc == 0)
        sk_tpeer_mark(t, p);
    return rc;
}

int sk_transport_expedite(sk_transport *t, sk_peer_id peer, sk_tclass cls)
{
    sk_tpeer *p = peer_get(t, peer);
    if (p == NULL)
        return SK_ENOTFOUND;
    if ((unsigned)cls >= SK_TCLASSES)
        return SK_EINVAL;
    if (p->pe_q_count == 0 || cls >= p->pe_class)
        return 0;
    p->pe_class = (uint8_t)cls;
    sk_tpeer_mark(t, p);
    return 0;
}

int sk_transport_reset(sk_transport *t, sk_peer_id peer)
{
    sk_tpeer *p = peer_get(t, peer);
    if (p == NULL)
        return SK_ENOTFOUND;
    if (!p->pe_up)
        return SK_ESTATE;
    /* Not here: the caller may be inside a callback about this very peer,
     * and peer-down may free it. The flush, outside every callback, does
     * it. */
    p->pe_reset = 1;
    sk_tpeer_mark(t, p);
    return 0;
}

int sk_transport_lookup(sk_transport *t, const char *role, const char *name,
                        sk_peer_id *out)
{
    sk_tpeer *p = sk_tmap_name_find(t, role, name);
    if (p == NULL || !p->pe_up)
        return SK_ENOTFOUND;
    *out = sk_tpeer_id(t, p);
    return 0;
}

int sk_transport_send_to(sk_transport *t, const char *role, const char *name,
                         const void *data, size_t len)
{
    sk_peer_id id;
    int rc = sk_transport_lookup(t, role, name, &id);
    return rc < 0 ? rc : sk_transport_send(t, id, data, len);
}

/* --- sessions --------------------------------------------------------------
 */

void sk_tpeer_down(sk_transport *t, sk_tpeer *p, sk_peer_down_reason why)
{
    sk_peer_id id = sk_tpeer_id(t, p);
    int was_up = p->pe_up;
    p->pe_reset = 0;
    if (p->pe_pending) {
        p->pe_pending = 0;
        t->t_pending--;
    }
    if (p->pe_named) {
        unlink_chain(t, &t->t_name_map[name_bucket(t, p->pe_role, p->pe_name)],
                     p, 0);
        p->pe_named = 0;
    }
    t->t_stats.ts_dropped += p->pe_q_count;
    p->pe_q_count = 0;
    p->pe_q_head = p->pe_q_tail = 0;
    p->pe_up = 0;
    p->pe_inflight = 0;
    p->pe_ack_owed = 0;
    p->pe_class = SK_TCLASS_NORMAL;
    if (p->pe_conn == NULL) {
        unlink_chain(t, &t->t_route_map[route_bucket(t, p->pe_route)], p, 1);
        peer_free(t, p);
    }
    if (was_up) {
        t->t_stats.ts_downs++;
        t->t_stats.ts_peers--;
        sk_info("transport: peer down (%s)",
                why == SK_PEER_TIMEOUT    ? "timeout"
                : why == SK_PEER_GOODBYE  ? "goodbye"
                : why == SK_PEER_REPLACED ? "replaced"
                : why == SK_PEER_RESET    ? "reset"
                                          : "closed");
        if (t->t_cb.tc_down != NULL) {
            t->t_in_cb++;
            t->t_cb.tc_down(t->t_cb.tc_arg, id, why);
            t->t_in_cb--;
        }
    }
}

/* --- objects ---------------------------------------------------------------
 */

static uint64_t make_incarnation(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    z ^= (uint64_t)getpid() << 40;
    /* splitmix64's finaliser spreads the bits. */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A token credential needs a key and a valid user and role; the roles a
 * token may take are identifiers separated by single spaces. */
static int token_ok(const sk_transport_config *c)
{
    size_t ul = strnlen(c->tc_token_user, sizeof c->tc_token_user);
    if (ul > 0 &&
        (!c->tc_keyed || ul == sizeof c->tc_token_user ||
         !sk_tframe_ident_ok(c->tc_token_user, ul, SK_TRANSPORT_MAX_NAME) ||
         (c->tc_token_role != SK_CRED_USER &&
          c->tc_token_role != SK_CRED_ADMIN &&
          c->tc_token_role != SK_CRED_EXECUTOR)))
        return 0;
    const char *r = c->tc_token_roles;
    size_t rl = strnlen(r, sizeof c->tc_token_roles);
    if (rl == sizeof c->tc_token_roles)
        return 0;
    for (size_t at = 0; at < rl;) {
        size_t w = strcspn(r + at, " ");
        if (!sk_tframe_ident_ok(r + at, w, SK_TRANSPORT_MAX_ROLE))
            return 0; /* also an empty word: two spaces, or an edge one */
        at += w;
        if (r[at] == ' ' && ++at == rl)
            return 0;
    }
    return 1;
}

static int config_ok(const sk_transport_config *c)
{
    return sk_tframe_ident_ok(c->tc_role,
                              strnlen(c->tc_role, sizeof c->tc_role),
                              SK_TRANSPORT_MAX_ROLE) &&
           sk_tframe_ident_ok(c->tc_name,
                              strnlen(c->tc_name, sizeof c->tc_name),
                              SK_TRANSPORT_MAX_NAME) &&
           c->tc_heartbeat >= 0.001 && c->tc_heartbeat <= 3600 &&
           c->tc_misses >= 1 && c->tc_misses <= 1000 && c->tc_max_msg >= 1 &&
           c->tc_max_msg <= (256u << 20) && c->tc_max_peers >= 1 &&
           c->tc_max_peers <= (1u << 24) && c->tc_queue_msgs >= 1 &&
           c->tc_queue_bytes >= SK_TFRAME_REC && c->tc_max_batch >= 64 &&
           c->tc_max_batch <= (256u << 20) && c->tc_reconnect_ms >= 1 &&
           c->tc_max_pending >= 1 && token_ok(c);
}

int sk_transport_create(struct ev_loop *loop, const sk_transport_config *cfg,
                        const sk_transport_callbacks *cb, sk_transport **out)
{
    if (loop == NULL || cfg == NULL || out == NULL || !config_ok(cfg))
        return SK_EINVAL;
    if (cfg->tc_keyed && sk_tauth_init() < 0)
        return SK_ESYS;
    sk_transport *t = calloc(1, sizeof *t);
    if (t == NULL)
        return SK_ENOMEM;
    t->t_loop = loop;
    t->t_cfg = *cfg;
    if (cb != NULL)
        t->t_cb = *cb;
    t->t_incarnation = make_incarnation();
    t->t_router = -1;
    t->t_free = -1;
    uint32_t buckets = 16;
    while (buckets < cfg->tc_max_peers && buckets < (1u << 20))
        buckets *= 2;
    t->t_map_mask = buckets - 1;
    uint32_t nchunks =
        (cfg->tc_max_peers + SK_TPEER_CHUNK - 1) / SK_TPEER_CHUNK;
    t->t_chunks = calloc(nchunks, sizeof *t->t_chunks);
    t->t_route_map = malloc(buckets * sizeof *t->t_route_map);
    t->t_name_map = malloc(buckets * sizeof *t->t_name_map);
    if (t->t_chunks == NULL || t->t_route_map == NULL ||
        t->t_name_map == NULL) {
        free(t->t_chunks);
        free(t->t_route_map);
        free(t->t_name_map);
        free(t);
        return SK_ENOMEM;
    }
    memset(t->t_route_map, 0xff, buckets * sizeof *t->t_route_map);
    memset(t->t_name_map, 0xff, buckets * sizeof *t->t_name_map);
    ev_timer_init(&t->t_tick, sk_trx_tick_cb, cfg->tc_heartbeat,
                  cfg->tc_heartbeat);
    t->t_tick.data = t;
    ev_prepare_init(&t->t_flush, sk_trx_prepare_cb);
    t->t_flush.data = t;
    for (int c = 0; c < SK_TCLASSES; c++)
        t->t_flush_head[c] = t->t_flush_tail[c] = -1;
    ev_timer_start(loop, &t->t_tick);
    *out = t;
    return 0;
}

/* Options shared by the router and the dealers. */
static void set_options(sk_transport *t, int sock, const char *endpoint)
{
    int maxsz = (int)(SK_TFRAME_HDR + sk_tframe_body_max(&t->t_cfg) +
                      (t->t_cfg.tc_keyed ? SK_TAUTH_TAG : 0));
    nn_setsockopt(sock, NN_SOL_SOCKET, NN_RCVMAXSIZE, &maxsz, sizeof maxsz);
    nn_setsockopt(sock, NN_SOL_SOCKET, NN_RECONNECT_IVL,
                  &t->t_cfg.tc_reconnect_ms, sizeof t->t_cfg.tc_reconnect_ms);
    if (strncmp(endpoint, "tcp://", 6) == 0) {
        /* Acks and replies are small frames sent back to back: Nagle would
         * hold the second one for a delayed ACK. */
        int one = 1;
        nn_setsockopt(sock, NN_TCP, NN_TCP_NODELAY, &one, sizeof one);
    }
}

static int get_fd(int sock, int opt, int *fd)
{
    size_t sz = sizeof *fd;
    return nn_getsockopt(sock, NN_SOL_SOCKET, opt, fd, &sz) < 0 ? SK_EIO : 0;
}

static int open_socket(int proto, int *out)
{
    int s = nn_socket(AF_SP_RAW, proto);
    if (s < 0) {
        int err = nn_errno();
        sk_error("transport: nn_socket: %s", nn_strerror(err));
        return err == EMFILE ? SK_ELIMIT : SK_EIO;
    }
    *out = s;
    return 0;
}

int sk_transport_listen(sk_transport *t, const char *endpoint)
{
    if (sk_endpoint_check(endpoint, NULL, 0) != 0)
        return SK_EINVAL;
    if (t->t_router >= 0)
        return SK_EEXIST;
    if (t->t_cfg.tc_token_user[0] != '\0')
        return SK_EINVAL; /* a router needs the cluster key */
    int s, fd, rc = open_socket(NN_REP, &s);
    if (rc < 0)
        return rc;
    set_options(t, s, endpoint);
    if (nn_bind(s, endpoint) < 0) {
        sk_error("transport: cannot listen on %s: %s", endpoint,
                 nn_strerror(nn_errno()));
        nn_close(s);
        return SK_EIO;
    }
    if (get_fd(s, NN_RCVFD, &fd) < 0) {
        nn_close(s);
        return SK_EIO;
    }
    t->t_router = s;
    ev_io_init(&t->t_router_w, sk_trx_router_cb, fd, EV_READ);
    t->t_router_w.data = t;
    ev_io_start(t->t_loop, &t->t_router_w);
    sk_info("transport: %s %s listening on %s", t->t_cfg.tc_role,
            t->t_cfg.tc_name, endpoint);
    return 0;
}

int sk_transport_connect(sk_transport *t, const char *endpoint, sk_peer_id *out)
{
    if (sk_endpoint_check(endpoint, NULL, 0) != 0 || out == NULL)
        return SK_EINVAL;
    int s, rfd, sfd, rc = open_socket(NN_REQ, &s);
    if (rc < 0)
        return rc;
    set_options(t, s, endpoint);
    if (nn_connect(s, endpoint) < 0) {
        sk_error("transport: cannot connect to %s: %s", endpoint,
                 nn_strerror(nn_errno()));
        nn_close(s);
        return SK_EIO;
    }
    if (get_fd(s, NN_RCVFD, &rfd) < 0 || get_fd(s, NN_SNDFD, &sfd) < 0) {
        nn_close(s);
        return SK_EIO;
    }
    sk_tconn *cn = calloc(1, sizeof *cn);
    sk_tpeer *p = cn != NULL ? sk_tpeer_alloc(t) : NULL;
    if (p == NULL) {
        free(cn);
        nn_close(s);
        return cn == NULL ? SK_ENOMEM : SK_ELIMIT;
    }
    cn->cn_sock = s;
    cn->cn_t = t;
    cn->cn_slot = sk_tpeer_slot(t, p);
    ev_io_init(&cn->cn_rcv_w, sk_trx_dealer_cb, rfd, EV_READ);
    ev_io_init(&cn->cn_snd_w, sk_trx_dealer_snd_cb, sfd, EV_READ);
    cn->cn_rcv_w.data = cn;
    cn->cn_snd_w.data = cn;
    ev_io_start(t->t_loop, &cn->cn_rcv_w);
    p->pe_conn = cn;
    *out = sk_tpeer_id(t, p);
    sk_tpeer_send_hello(t, p);
    return 0;
}

/* Says goodbye if up, then closes and frees a connection of ours. */
static void conn_close(sk_transport *t, sk_tpeer *p, int report)
{
    sk_tconn *cn = p->pe_conn;
    sk_tpeer_flush(t, p);
    if (p->pe_up && !p->pe_blocked)
        sk_tpeer_send_frame(t, p, SK_TF_GOODBYE, 0, NULL, 0, NULL, 0);
    if (report)
        sk_tpeer_down(t, p, SK_PEER_CLOSED);
    ev_io_stop(t->t_loop, &cn->cn_rcv_w);
    ev_io_stop(t->t_loop, &cn->cn_snd_w);
    nn_close(cn->cn_sock);
    free(cn);
    p->pe_conn = NULL;
    peer_free(t, p);
}

int sk_transport_disconnect(sk_transport *t, sk_peer_id peer)
{
    sk_tpeer *p = peer_get(t, peer);
    if (p == NULL)
        return SK_ENOTFOUND;
    if (p->pe_conn == NULL)
        return SK_EINVAL;
    if (t->t_in_cb > 0)
        return SK_ESTATE;
    conn_close(t, p, 1);
    return 0;
}

void sk_transport_destroy(sk_transport *t)
{
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->t_nslots; i++) {
        sk_tpeer *p = sk_tpeer_at(t, i);
        if (!p->pe_used)
            continue;
        if (p->pe_conn != NULL) {
            conn_close(t, p, 0);
        } else {
            /* A busy pipe would drop this goodbye: the peer then times
             * out. */
            sk_tpeer_flush(t, p);
            if (p->pe_up && !p->pe_inflight)
                sk_tpeer_send_frame(t, p, SK_TF_GOODBYE, 0, NULL, 0, NULL, 0);
            free(p->pe_q);
        }
    }
    if (t->t_router >= 0) {
        ev_io_stop(t->t_loop, &t->t_router_w);
        nn_close(t->t_router);
    }
    ev_timer_stop(t->t_loop, &t->t_tick);
    ev_prepare_stop(t->t_loop, &t->t_flush);
    for (uint32_t c = 0; c * SK_TPEER_CHUNK < t->t_nslots; c++) {
        sk_tauth_wipe(t->t_chunks[c], SK_TPEER_CHUNK * sizeof(sk_tpeer));
        free(t->t_chunks[c]);
    }
    free(t->t_chunks);
    free(t->t_route_map);
    free(t->t_name_map);
    sk_tauth_wipe(&t->t_cfg.tc_key, sizeof t->t_cfg.tc_key);
    free(t);
}

int sk_transport_peer_info(sk_transport *t, sk_peer_id peer, sk_peer_info *out)
{
    sk_tpeer *p = peer_get(t, peer);
    if (p == NULL)
        return SK_ENOTFOUND;
    memset(out, 0, sizeof *out);
    if (p->pe_up) {
        memcpy(out->pi_role, p->pe_role, sizeof out->pi_role);
        memcpy(out->pi_name, p->pe_name, sizeof out->pi_name);
    }
    out->pi_up = p->pe_up;
    out->pi_connected = p->pe_conn != NULL;
    out->pi_queued = p->pe_q_count;
    out->pi_cred = p->pe_cred;
    memcpy(out->pi_user, p->pe_user, sizeof out->pi_user);
    return 0;
}

void sk_transport_stats_get(const sk_transport *t, sk_transport_stats *out)
{
    *out = t->t_stats;
}
