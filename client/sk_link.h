/*
 * sk_link.h - typed messages over the transport: what every Skylark
 * process (daemons, frontends, executors, the `skylark` tool) uses to talk
 * sk_proto messages to its peers.
 *
 * An sk_link owns one sk_transport. Received bytes are decoded once, here,
 * and handed to the owner as an sk_msg; bytes that do not decode (another
 * protocol version, an unknown type, a malformed or oversized body) are
 * counted by kind and dropped, with a log line for the first of each kind
 * and every 1024th after, and the peer's session goes on: one bad message
 * never costs the messages already accepted. Sending encodes into one
 * reused buffer, so a hot path allocates nothing.
 *
 * Threading: as for sk_transport, an sk_link belongs to its loop's thread.
 * Callbacks run on the loop; inside them the owner may send, and use the
 * transport (lookup, peer info), but must not destroy the link.
 */
#ifndef SK_LINK_H
#define SK_LINK_H

#include "sk_proto.h"
#include "sk_transport.h"

#include <stdint.h>

struct ev_loop;

/* Callbacks, all optional. lk_up and lk_down are the transport's peer
 * events (the strings are valid during the call); lk_msg hands one decoded
 * message, which is freed when the callback returns. */
typedef struct sk_link_callbacks {
    void (*lk_up)(void *arg, sk_peer_id peer, const char *role,
                  const char *name);
    void (*lk_down)(void *arg, sk_peer_id peer, sk_peer_down_reason why);
    void (*lk_msg)(void *arg, sk_peer_id peer, const sk_msg *msg);
    /* the transport's tc_refused: a handshake of ours failed */
    void (*lk_refused)(void *arg, sk_peer_id peer, const char *why);
    void *lk_arg;
} sk_link_callbacks;

/* Counters of what the link dropped. */
typedef struct sk_link_stats {
    uint64_t ls_received;      /* messages decoded and delivered */
    uint64_t ls_sent;          /* messages encoded and queued */
    uint64_t ls_bad_version;   /* input of another protocol version */
    uint64_t ls_bad_type;      /* input of an unknown message type */
    uint64_t ls_bad_limit;     /* input over a protocol limit */
    uint64_t ls_malformed;     /* any other undecodable input */
    uint64_t ls_encode_failed; /* our own message would not encode */
    uint64_t ls_send_failed;   /* the transport refused a send */
} sk_link_stats;

typedef struct sk_link sk_link;

/* sk_link_create makes a link, and its transport on loop with cfg (see
 * sk_transport_create). cb is copied. Returns 0, SK_EINVAL or SK_ENOMEM. */
int sk_link_create(struct ev_loop *loop, const sk_transport_config *cfg,
                   const sk_link_callbacks *cb, sk_link **out);

/* sk_link_destroy destroys the transport (saying goodbye to every peer)
 * and the link. No callback runs. NULL is a no-op. */
void sk_link_destroy(sk_link *l);

/* sk_link_transport returns the link's transport, for listen, connect,
 * disconnect, lookup and statistics. Never NULL. */
sk_transport *sk_link_transport(sk_link *l);

/* sk_link_send encodes msg and queues it to peer. Returns 0, or what the
 * encoder (SK_EUNKNOWN, SK_ELIMIT, SK_EINVAL, SK_ENOMEM; counted in
 * ls_encode_failed and logged) or sk_transport_send (SK_ENOTFOUND,
 * SK_ESTATE, SK_ELIMIT, SK_EAGAIN; counted in ls_send_failed) returned. */
int sk_link_send(sk_link *l, sk_peer_id peer, const sk_msg *msg);

/* sk_link_stats_get copies the link's counters. */
void sk_link_stats_get(const sk_link *l, sk_link_stats *out);

#endif /* SK_LINK_H */
