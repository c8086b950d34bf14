/*
 * transport_util.h - helpers shared by the transport tests and benchmark:
 * running a libev loop until a condition holds, free loopback ports, and a
 * recording set of transport callbacks.
 */
#ifndef SK_TRANSPORT_UTIL_H
#define SK_TRANSPORT_UTIL_H

#include "sk_transport.h"

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

/* tu_run_until runs loop until cond(arg) is true or timeout seconds pass.
 * Returns 1 if the condition held. The loop wakes at least every 5 ms. */
int tu_run_until(struct ev_loop *loop, int (*cond)(void *), void *arg,
                 double timeout);

/* tu_run_for runs loop for seconds. */
void tu_run_for(struct ev_loop *loop, double seconds);

/* tu_raw_send sends frame from s, a raw nanomsg dealer socket (AF_SP_RAW,
 * NN_REQ) of a test, under the request id dealer_id (top bit set), as a
 * transport's dealer sends: the id goes as SP_HDR control data, a size_t
 * length and then the id (docs/TRANSPORT.md). flags are nn_sendmsg's.
 * Returns what nn_sendmsg returns. */
int tu_raw_send(int s, uint32_t dealer_id, const void *frame, size_t len,
                int flags);

/* tu_free_port returns a TCP port on 127.0.0.1 that was free a moment ago,
 * or 0. */
int tu_free_port(void);

/* What the recording callbacks saw, for one transport. */
#define TU_MAX_PEERS 16
typedef struct tu_rec {
    int ru_ups, ru_downs;
    sk_peer_down_reason ru_last_why;
    sk_peer_id ru_last_up, ru_last_down;
    char ru_last_name[SK_TRANSPORT_MAX_NAME + 1];
    char ru_last_role[SK_TRANSPORT_MAX_ROLE + 1];
    uint64_t ru_msgs;      /* messages received */
    uint64_t ru_bytes;     /* bytes received */
    uint64_t ru_misorder;  /* messages whose counter was not the next */
    uint64_t ru_misrouted; /* messages whose tag was not ours */
    uint64_t ru_next[TU_MAX_PEERS]; /* next counter expected, per tag slot */
    sk_peer_id ru_from[TU_MAX_PEERS];
    const char *ru_tag; /* our name: messages must carry it */
    sk_transport *ru_t; /* for echoing */
    int ru_echo;        /* echo every message back */
} tu_rec;

/* tu_callbacks returns callbacks that record into rec. Messages are
 * "<tag> <counter>"; each sender's counters must run 0, 1, 2, ... */
sk_transport_callbacks tu_callbacks(tu_rec *rec);

#endif /* SK_TRANSPORT_UTIL_H */
