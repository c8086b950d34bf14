/*
 * sk_transport_impl.h - the transport's internal state, shared by its
 * files: sk_transport.c (objects, peers, sending) and sk_transport_rx.c
 * (receiving, handshake, heartbeats). Not installed.
 *
 * Flow control, the reason for most of this state: nanomsg's raw REP
 * socket accepts one message per pipe at a time and silently drops any
 * message sent to a pipe still busy with the previous one (measured: a
 * burst of 20,000 gave 324). So the router keeps at most one frame in
 * flight per peer, until the peer acknowledges it, and batches what the
 * daemon sends meanwhile into the next frame. A dealer's socket says
 * EAGAIN instead of dropping, so a dealer sends whenever nanomsg takes the
 * frame and batches while it does not. Both sides cork: a send only queues
 * and marks the peer; an ev_prepare watcher, which runs once per loop
 * iteration before the loop sleeps, flushes every marked peer, so the
 * messages of one iteration share a frame and a reply carries the ack. An
 * ack that reopens a router's window only marks the peer too: the frame's
 * own messages are delivered first, and the replies to them leave in the
 * same frame as what was waiting.
 *
 * Flush order: marked peers wait on one list per class (sk_tclass), most
 * urgent first, each in the order marked. Between the frames of one flush
 * a router takes in what its socket received meanwhile (a fan-out to many
 * peers takes a system call and a wake-up per frame, and the first answers
 * come back before it ends): an urgent reply then leaves before the rest
 * of the fan-out.
 */
#ifndef SK_TRANSPORT_IMPL_H
#define SK_TRANSPORT_IMPL_H

#include "sk_tauth.h"
#include "sk_tframe.h"
#include "sk_transport.h"

#include <ev.h>
#include <stdint.h>

#define SK_TPEER_CHUNK 256 /* peer slots are allocated this many at a time */

/* Receive passes one flush may make between its frames: bounds the time
 * the loop spends in one prepare callback while frames keep coming. */
#define SK_TFLUSH_POLLS 64

typedef struct sk_tconn sk_tconn;

/* One peer: a session of a dealer that connected to our router, or one of
 * our own connections (pe_conn set), which outlives its sessions. */
typedef struct sk_tpeer {
    uint32_t pe_gen;     /* half of the id; bumped when the slot is freed */
    uint32_t pe_slot;    /* index of this slot, the other half */
    uint8_t pe_used;     /* slot holds a peer */
    uint8_t pe_up;       /* handshake done, session live */
    uint8_t pe_named;    /* entered in the name map */
    uint8_t pe_inflight; /* router: a frame awaits the peer's ack */
    uint8_t pe_ack_owed; /* dealer: a router frame is not yet acked */
    uint8_t pe_blocked;  /* dealer: nanomsg said EAGAIN; SNDFD watched */
    uint8_t pe_listed;   /* bit c: on the flush list of class c */
    uint8_t pe_class;    /* most urgent class of what is queued */
    uint8_t pe_reset;    /* sk_transport_reset asked: end the session at
                            the next flush */
    uint8_t pe_pending;  /* router, sealed: our HELLO answered theirs; the
                            session is up once their first frame opens */
    uint8_t pe_cred;     /* router: SK_CRED_* the peer proved */
    char pe_role[SK_TRANSPORT_MAX_ROLE + 1];
    char pe_name[SK_TRANSPORT_MAX_NAME + 1];
    char pe_user[SK_TRANSPORT_MAX_NAME + 1]; /* router: a token's user */
    uint64_t pe_incarnation;  /* the peer process's random session stamp */
    uint8_t pe_route[8];      /* router: pipe key and dealer id */
    uint32_t pe_tx_seq;       /* seq of our next frame */
    uint32_t pe_rx_seq;       /* seq expected of the peer's next frame */
    uint32_t pe_inflight_seq; /* router: seq of the unacked frame */
    ev_tstamp pe_last_rx;     /* when a frame last came */
    ev_tstamp pe_last_tx;     /* when a frame last left */
    uint8_t *pe_q;            /* send queue: records as in a DATA body */
    size_t pe_q_head;         /* first queued byte */
    size_t pe_q_tail;         /* one past the last queued byte */
    size_t pe_q_cap;          /* allocated bytes */
    uint32_t pe_q_count;      /* queued messages */
    int32_t pe_route_next;    /* route map chain; free list when unused */
    int32_t pe_name_next;     /* name map chain */
    int32_t pe_flush_next[SK_TCLASSES]; /* flush list links, per class */
    sk_tconn *pe_conn;                  /* our connection, or NULL */
    uint8_t pe_nonce[SK_TAUTH_NONCE];   /* dealer, sealed: the nonce of our
                                           latest HELLO */
    sk_tauth_keys pe_keys;              /* sealed: this session's keys */
} sk_tpeer;

/* A connection of ours: its own raw NN_REQ socket and two watchers. */
struct sk_tconn {
    ev_io cn_rcv_w;     /* on NN_RCVFD, always active */
    ev_io cn_snd_w;     /* on NN_SNDFD, active only while blocked */
    int cn_sock;        /* nanomsg socket */
    sk_transport *cn_t; /* owner */
    uint32_t cn_slot;   /* our peer slot */
};

struct sk_transport {
    struct ev_loop *t_loop;
    sk_transport_config t_cfg;
    sk_transport_callbacks t_cb;
    uint64_t t_incarnation; /* stamp of this transport's sessions */
    int t_router;           /* listening raw NN_REP socket, or -1 */
    ev_io t_router_w;       /* on its NN_RCVFD */
    ev_timer t_tick;        /* heartbeats and liveness, every tc_heartbeat */
    ev_prepare t_flush;     /* flushes marked peers before the loop sleeps */
    int32_t t_flush_head[SK_TCLASSES]; /* flush lists: first slot, or -1 */
    int32_t t_flush_tail[SK_TCLASSES]; /* and last slot */
    sk_tpeer **t_chunks;  /* peer slots, SK_TPEER_CHUNK per chunk */
    uint32_t t_nslots;    /* slots ever handed out */
    int32_t t_free;       /* free slot list head, or -1 */
    int32_t *t_route_map; /* route hash -> slot chain head */
    int32_t *t_name_map;  /* (role, name) hash -> slot chain head */
    uint32_t t_map_mask;  /* buckets - 1 */
    int t_in_cb;          /* depth of callbacks running */
    uint32_t t_pending;   /* router peers with pe_pending */
    sk_transport_stats t_stats;
};

/* Slot access. */
sk_tpeer *sk_tpeer_at(sk_transport *t, uint32_t slot);
sk_peer_id sk_tpeer_id(sk_transport *t, const sk_tpeer *p);

/* A new peer slot, zeroed, or NULL at tc_max_peers. */
sk_tpeer *sk_tpeer_alloc(sk_transport *t);

/* Maps: route and (role, name). find returns NULL when absent. */
sk_tpeer *sk_tmap_route_find(sk_transport *t, const uint8_t route[8]);
void sk_tmap_route_add(sk_transport *t, sk_tpeer *p);
sk_tpeer *sk_tmap_name_find(sk_transport *t, const char *role,
                            const char *name);
void sk_tmap_name_add(sk_transport *t, sk_tpeer *p);

/* Ends a session: reports tc_down if it was up, discards its queue
 * (counted), and frees a router peer's slot. */
void sk_tpeer_down(sk_transport *t, sk_tpeer *p, sk_peer_down_reason why);

/* Sends one frame: header (with our seq and ack) then body iovecs.
 * Returns 0, SK_EAGAIN (a dealer's pipe is busy or absent: the caller
 * decides whether to wait for SNDFD), SK_EIO. */
int sk_tpeer_send_frame(sk_transport *t, sk_tpeer *p, sk_tframe_kind kind,
                        uint32_t count, const void *body, size_t len,
                        const void *body2, size_t len2);

/* Sends our HELLO, starting a session from our side (dealer) or answering
 * one (router). A dealer that gets EAGAIN waits for SNDFD. */
void sk_tpeer_send_hello(sk_transport *t, sk_tpeer *p);

/* Sends what flow control allows: a batch of the queue, or a due ack. */
void sk_tpeer_flush(sk_transport *t, sk_tpeer *p);

/* Puts p on the flush list of its class (pe_class), which the prepare
 * watcher flushes. */
void sk_tpeer_mark(sk_transport *t, sk_tpeer *p);

/* Marks a dealer blocked and watches its SNDFD. */
void sk_tpeer_block(sk_transport *t, sk_tpeer *p);

/* Largest frame body (DATA records) the settings allow. */
size_t sk_tframe_body_max(const sk_transport_config *cfg);

/* Writes the body of our HELLO on connection p into buf (at least
 * SK_TFRAME_HELLO_SEALED_MAX bytes): identity, and when keyed the nonce
 * of our latest try and any user credential with its MAC. */
size_t sk_tpeer_dealer_hello(const sk_transport *t, const sk_tpeer *p,
                             uint8_t *buf);

/* Answers a frame from an unknown route with RESET; why is SK_TREFUSE_*
 * (SK_TREFUSE_NONE: just redo the handshake). */
void sk_tpeer_send_reset(sk_transport *t, const uint8_t route[8], uint32_t why);

/* Receive watchers and the tick (sk_transport_rx.c). */
void sk_trx_router_cb(struct ev_loop *loop, ev_io *w, int revents);
void sk_trx_dealer_cb(struct ev_loop *loop, ev_io *w, int revents);
void sk_trx_dealer_snd_cb(struct ev_loop *loop, ev_io *w, int revents);
void sk_trx_tick_cb(struct ev_loop *loop, ev_timer *w, int revents);
void sk_trx_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents);

#endif /* SK_TRANSPORT_IMPL_H */
