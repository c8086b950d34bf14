/*
 * sk_transport.h - Skylark's transport: opaque messages between named
 * peers, over nanomsg inside a caller's libev loop.
 *
 * One sk_transport per daemon (per loop thread). It may listen on one
 * endpoint (a raw NN_REP "router": one nanomsg socket serves any number of
 * connected peers, each addressed through its routing header) and connect
 * to several peers (one raw NN_REQ "dealer" socket each). Endpoints are
 * nanomsg addresses: "tcp://127.0.0.1:7000", "ipc:///tmp/sk.sock".
 *
 * Peers are named: every transport has an identity (role, name), such as
 * ("nodemon", "n7"), exchanged in a handshake when a connection forms. A
 * daemon sends to a peer by id or by (role, name), gets a callback for each
 * message, and callbacks when a peer comes up and goes down. The daemon's
 * own registration travels as its first data message: identity is only
 * (role, name).
 *
 * Guarantees within one session (from peer-up to peer-down): messages to a
 * peer arrive once, complete, and in the order sent. A missing frame (which
 * nanomsg's router would drop silently when a peer's pipe is busy) is
 * prevented by flow control and, if it ever happens, detected by sequence
 * numbers: the session is reset and both sides see peer-down. Messages
 * still queued when a peer goes down are discarded and counted
 * (ts_dropped); messages in flight at that moment may be lost, which the
 * peer-down callback tells the daemon. Nothing is lost without a counter
 * and a callback. See docs/TRANSPORT.md for the frame format and limits.
 *
 * Authentication. A transport given the cluster key (tc_keyed) speaks only
 * sealed sessions (sk_tauth.h, docs/TRANSPORT.md): both sides prove the key
 * over fresh nonces in the handshake, and every later frame is encrypted
 * and authenticated with its sequence number, so that frames cannot be
 * read, forged, replayed, reordered or injected. A peer without the key,
 * or with another one, never comes up: the failure is logged, counted
 * (ts_auth_failed, ts_auth_timeouts) and, for a connection of ours,
 * reported through tc_refused. A handshake left unfinished costs a peer
 * slot of a few hundred bytes for at most tc_heartbeat * tc_misses, and at
 * most tc_max_pending of them exist at once. An unkeyed transport speaks
 * only clear sessions, and refuses sealed ones.
 *
 * Credentials. Daemons hold the cluster key; a user holds a token issued
 * from it (sk_token.h) that names the user and a role (user or admin).
 * A transport given a token authenticates with the token's key: the
 * router recomputes that key from the cluster key and the user, role and
 * expiry the HELLO names, so the peer's credential comes from what it
 * proved (sk_peer_info's pi_cred and pi_user), never from what it says.
 * A router admits a user's or admin's token only for the roles in
 * tc_token_roles other than "executor", and an executor token
 * (SK_CRED_EXECUTOR) only for the role "executor" and only where
 * tc_token_roles lists it (a node monitor); it refuses
 * an expired or forged one at once (a RESET that says why), and lets a
 * session take over a (role, name) only under the same credential.
 *
 * Threading: an sk_transport belongs to the thread that runs its loop; all
 * functions must be called from that thread. Callbacks run on the loop.
 * Inside a callback the daemon may send, look up peers and read stats; it
 * must not call sk_transport_disconnect or sk_transport_destroy.
 */
#ifndef SK_TRANSPORT_H
#define SK_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;

/* Longest role ("sched", "nodemon", "flowd", "frontend", "executor") and
 * name, in bytes. Both are made of [A-Za-z0-9._:-]. */
#define SK_TRANSPORT_MAX_ROLE 15
#define SK_TRANSPORT_MAX_NAME 63

/* Bytes of a cluster key. */
#define SK_TRANSPORT_KEY_BYTES 32

/* A peer's credential (sk_peer_info.pi_cred): what it proved in the
 * handshake. */
#define SK_CRED_CLUSTER  0 /* the cluster key (or none, unkeyed): a daemon */
#define SK_CRED_USER     1 /* a user token (sk_token.h) */
#define SK_CRED_ADMIN    2 /* an admin token */
#define SK_CRED_EXECUTOR 3 /* an executor token: role "executor" only */

/* Why a keyed router refused a HELLO, carried in its RESET's count field
 * so that the connecting side can say so (tc_refused). */
#define SK_TREFUSE_NONE    0 /* no session here: redo the handshake */
#define SK_TREFUSE_FORGED  1 /* the token does not verify */
#define SK_TREFUSE_EXPIRED 2 /* the token has expired */
#define SK_TREFUSE_ROLE    3 /* a token may not take this role here */
#define SK_TREFUSE_NAME    4 /* the name is held under another credential */
#define SK_TREFUSE_MAX     4

/* A peer: nonzero, never reused for another peer. A peer we connected to
 * keeps its id across its sessions (until sk_transport_disconnect); a peer
 * that connected to us gets a new id for each session. */
typedef uint64_t sk_peer_id;

/* How soon a peer's queued messages leave, against other peers' messages
 * of the same loop iteration (sk_transport_expedite). */
typedef enum sk_tclass {
    SK_TCLASS_FIRST = 0,  /* someone waits on it now (a task for a free slot) */
    SK_TCLASS_EARLY = 1,  /* it starts work elsewhere (a reservation) */
    SK_TCLASS_NORMAL = 2, /* the default: reports, registrations */
} sk_tclass;
#define SK_TCLASSES 3

/* Why a peer went down. */
typedef enum sk_peer_down_reason {
    SK_PEER_TIMEOUT = 1,  /* no frame within interval * misses */
    SK_PEER_GOODBYE = 2,  /* the peer closed cleanly */
    SK_PEER_REPLACED = 3, /* a new session with the same (role, name) */
    SK_PEER_RESET = 4,    /* the session broke (a missing frame, a restart
                             of the other side) and is being redone */
    SK_PEER_CLOSED = 5,   /* we closed it (disconnect or destroy) */
} sk_peer_down_reason;

/* Callbacks, all optional (NULL). tc_up reports a finished handshake with
 * the peer's identity (strings valid during the call). tc_recv hands one
 * message; data is valid only during the call. tc_down reports the end of
 * a session; for a peer that connected to us the id is dead afterwards. */
typedef struct sk_transport_callbacks {
    void (*tc_up)(void *arg, sk_peer_id peer, const char *role,
                  const char *name);
    void (*tc_down)(void *arg, sk_peer_id peer, sk_peer_down_reason why);
    void (*tc_recv)(void *arg, sk_peer_id peer, const void *data, size_t len);
    /* A handshake on a connection of ours failed: the other side does not
     * hold our key, has none, or wants one we lack. why is a static
     * sentence for people. The connection keeps retrying. */
    void (*tc_refused)(void *arg, sk_peer_id peer, const char *why);
    void *tc_arg; /* passed to every callback */
} sk_transport_callbacks;

/* Settings. Fill with sk_transport_config_default, then change fields. */
typedef struct sk_transport_config {
    char tc_role[SK_TRANSPORT_MAX_ROLE + 1]; /* our role */
    char tc_name[SK_TRANSPORT_MAX_NAME + 1]; /* our name */
    double tc_heartbeat;     /* seconds between heartbeats (default 1) */
    unsigned tc_misses;      /* silent intervals before down (default 3) */
    uint32_t tc_max_msg;     /* largest message, bytes (default 1 MiB) */
    uint32_t tc_max_peers;   /* sessions + connections (default 16384) */
    uint32_t tc_queue_msgs;  /* per-peer send queue, messages (4096) */
    uint32_t tc_queue_bytes; /* per-peer send queue, bytes (16 MiB) */
    uint32_t tc_max_batch;   /* most bytes packed in one frame (64 KiB) */
    int tc_reconnect_ms;     /* dealer reconnect interval (default 100) */
    int tc_keyed;            /* 1: sealed sessions under tc_key only */
    uint8_t tc_key[SK_TRANSPORT_KEY_BYTES]; /* the cluster key */
    uint32_t tc_max_pending; /* handshakes under way at once (256) */
    /* A user credential instead of the cluster key: with tc_token_user
     * set (and tc_keyed), tc_key holds the token's key (sk_token.h) and
     * our HELLO names the user, role and expiry. Such a transport may
     * only connect, never listen. */
    char tc_token_user[SK_TRANSPORT_MAX_NAME + 1];
    uint8_t tc_token_role;    /* SK_CRED_USER, _ADMIN or _EXECUTOR */
    uint64_t tc_token_expiry; /* seconds since the epoch */
    /* Listening and keyed: the roles, space-separated, that a peer with a
     * token may take in its HELLO (such as "frontend tool"; "executor"
     * admits executor tokens, and only them, as executors); the default
     * "" admits the cluster key only. */
    char tc_token_roles[48];
} sk_transport_config;

/* Counters, monotonic since creation except ts_peers. */
typedef struct sk_transport_stats {
    uint64_t ts_sent;        /* messages handed to nanomsg */
    uint64_t ts_received;    /* messages delivered to tc_recv */
    uint64_t ts_frames_sent; /* frames (a frame may batch messages) */
    uint64_t ts_frames_received;
    uint64_t ts_queue_full;    /* sends refused with SK_EAGAIN */
    uint64_t ts_dropped;       /* queued messages discarded at peer-down */
    uint64_t ts_malformed;     /* frames dropped as malformed */
    uint64_t ts_seq_gaps;      /* sessions reset for a missing frame */
    uint64_t ts_resets;        /* sessions reset by sk_transport_reset */
    uint64_t ts_unknown;       /* frames from no session (answered RESET) */
    uint64_t ts_peer_limit;    /* handshakes refused by tc_max_peers or
                                  tc_max_pending */
    uint64_t ts_auth_failed;   /* handshakes and frames that failed
                                  authentication, or spoke the other mode */
    uint64_t ts_auth_timeouts; /* handshakes never finished */
    uint64_t ts_token_expired; /* handshakes refused: token expired (also
                                  in ts_auth_failed) */
    uint64_t ts_role_refused;  /* token handshakes refused for their role,
                                  or for a name held by another credential */
    uint64_t ts_ups;           /* peer-up events */
    uint64_t ts_downs;         /* peer-down events */
    uint32_t ts_peers;         /* peers up now */
} sk_transport_stats;

/* What sk_transport_peer_info tells about a peer. */
typedef struct sk_peer_info {
    char pi_role[SK_TRANSPORT_MAX_ROLE + 1]; /* "" before the handshake */
    char pi_name[SK_TRANSPORT_MAX_NAME + 1];
    int pi_up;          /* 1 between peer-up and peer-down */
    int pi_connected;   /* 1 if we connected to it (a dealer) */
    uint32_t pi_queued; /* messages waiting in its send queue */
    uint8_t pi_cred;    /* SK_CRED_*: a peer that connected to us as
                           proved; one we connected to: SK_CRED_CLUSTER */
    char pi_user[SK_TRANSPORT_MAX_NAME + 1]; /* a token's user, or "" */
} sk_peer_info;

typedef struct sk_transport sk_transport;

/* sk_transport_config_default fills cfg with the defaults above and the
 * identity ("", ""), which the caller must set. */
void sk_transport_config_default(sk_transport_config *cfg);

/* sk_transport_create makes a transport on loop (which the caller runs and
 * outlives the transport). cfg and cb are copied (the key too: the caller
 * may wipe its copy). Returns 0, SK_EINVAL for a bad identity or setting,
 * SK_ENOMEM, SK_ESYS if a keyed transport finds no entropy source. Starts
 * the heartbeat timer. */
int sk_transport_create(struct ev_loop *loop, const sk_transport_config *cfg,
                        const sk_transport_callbacks *cb, sk_transport **out);

/* sk_transport_destroy says goodbye to every peer (best effort), closes
 * the sockets, stops the watchers and frees everything. Reports no
 * callbacks. NULL is a no-op. */
void sk_transport_destroy(sk_transport *t);

/* sk_transport_listen binds the router to endpoint. At most one per
 * transport. Returns 0, SK_EINVAL if sk_endpoint_check refuses the
 * endpoint (nothing logged) or the transport holds a user token, SK_EEXIST if
 * already listening, SK_EIO if nanomsg refuses (the message is logged),
 * SK_ELIMIT without a socket to spare. */
int sk_transport_listen(sk_transport *t, const char *endpoint);

/* sk_transport_connect opens a dealer to endpoint and returns its peer id
 * at once; the peer comes up (tc_up) when the handshake completes, and
 * after any outage nanomsg reconnects and the handshake is redone. Returns
 * 0, SK_EINVAL (sk_endpoint_check refuses the endpoint; nothing logged),
 * SK_EIO, SK_ELIMIT (max peers or no nanomsg socket left), SK_ENOMEM. */
int sk_transport_connect(sk_transport *t, const char *endpoint,
                         sk_peer_id *out);

/* sk_transport_disconnect says goodbye and closes a connection made by
 * sk_transport_connect, reporting tc_down(SK_PEER_CLOSED) if it was up.
 * Returns 0, SK_ENOTFOUND, SK_EINVAL (not a connection of ours), SK_ESTATE
 * (called from a callback). */
int sk_transport_disconnect(sk_transport *t, sk_peer_id peer);

/* sk_transport_send queues one message of len bytes (0..tc_max_msg) to a
 * peer that is up, copying it. The loop sends it before it next sleeps:
 * messages queued to one peer during one loop iteration share frames, and
 * a router keeps one frame in flight per peer (see docs/TRANSPORT.md).
 * Returns 0; SK_ENOTFOUND (no such peer); SK_ESTATE (the peer is not up);
 * SK_ELIMIT (too long); SK_EAGAIN if the peer's queue is full (counted in
 * ts_queue_full: the message was not taken; try again after the loop has
 * run). Cost: a memcpy into the queue; no allocation once the queue has
 * grown. */
int sk_transport_send(sk_transport *t, sk_peer_id peer, const void *data,
                      size_t len);

/* sk_transport_expedite raises what is queued for a peer to class cls for
 * this loop iteration's flush: the flush sends the peers of class FIRST,
 * then EARLY, then NORMAL (where sk_transport_send puts them), each class
 * in the order its peers were marked. A peer's own messages keep their
 * order: all that is queued for it leaves together. A class is kept until
 * the peer's queue is empty, so a router peer whose window is closed is
 * flushed in its class when the ack comes. Use it for the few messages
 * someone waits on among many that can wait a moment. Returns 0,
 * SK_ENOTFOUND, SK_EINVAL (no such class). Cost: O(1). */
int sk_transport_expedite(sk_transport *t, sk_peer_id peer, sk_tclass cls);

/* sk_transport_reset ends the session with a peer that is up because
 * messages to it were lost (its queue overflowed, or a message could not
 * be sent): before the loop next sleeps, the session is reset as after a
 * missing frame (docs/TRANSPORT.md): both sides see peer-down
 * (SK_PEER_RESET here), the peer's queued messages are dropped, and the
 * handshake is redone. Until then sends to the peer are refused with
 * SK_ESTATE. May be called from a callback. Returns 0, SK_ENOTFOUND or
 * SK_ESTATE (the peer is not up). */
int sk_transport_reset(sk_transport *t, sk_peer_id peer);

/* sk_transport_send_to is sk_transport_send to the peer named (role, name).
 * Returns SK_ENOTFOUND if no such peer is up. */
int sk_transport_send_to(sk_transport *t, const char *role, const char *name,
                         const void *data, size_t len);

/* sk_transport_lookup finds the peer that is up under (role, name). Returns
 * 0 or SK_ENOTFOUND. */
int sk_transport_lookup(sk_transport *t, const char *role, const char *name,
                        sk_peer_id *out);

/* sk_transport_peer_info describes a peer. Returns 0 or SK_ENOTFOUND. */
int sk_transport_peer_info(sk_transport *t, sk_peer_id peer, sk_peer_info *out);

/* sk_transport_stats copies the counters. */
void sk_transport_stats_get(const sk_transport *t, sk_transport_stats *out);

#endif /* SK_TRANSPORT_H */
