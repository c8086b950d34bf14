/*
 * sk_core.h - what the sans-I/O scheduling cores (scheduler, node monitor,
 * flow policy) share: time, peer references, and the outbox through which
 * a core hands messages back to whoever drives it.
 *
 * A core never touches a socket, a clock or a global random source. Its
 * driver (a daemon shell on nanomsg and libev, or the simulator) calls it
 * with one input at a time and the current time, then drains the outbox:
 * the messages to send, each addressed to a peer by the driver's own peer
 * id, and asks the core when it next wants to be woken (a deadline).
 *
 * Lifetime rule: the messages in an outbox, and everything they point to,
 * stay valid until the next call into the same core. The driver encodes
 * or copies them before that.
 */
#ifndef SK_CORE_H
#define SK_CORE_H

#include "sk_proto.h"

#include <stddef.h>
#include <stdint.h>

/* Time in microseconds. Daemons pass wall-clock time (the protocol's
 * *_us fields are microseconds since the epoch); the simulator passes
 * virtual time. Cores only compare and subtract times. */
typedef uint64_t sk_time;

/* No deadline: the core does not need to be woken. */
#define SK_TIME_NEVER UINT64_MAX

/* A peer as the driver numbers it (a transport peer handle, a simulated
 * node index). Cores treat the value as opaque. */
typedef uint32_t sk_peer;

/* One message a core wants sent. */
typedef struct sk_out {
    sk_peer o_peer; /* to whom */
    sk_msg o_msg;   /* what: not a decoded message (nothing to free) */
} sk_out;

/* A growable list of sk_out, owned by a core. */
typedef struct sk_outbox {
    sk_out *ob_msgs;
    size_t ob_len;
    size_t ob_cap;
} sk_outbox;

/* sk_outbox_push appends a message for peer and returns a pointer to its
 * zeroed sk_msg with m_type set, for the caller to fill; NULL when out of
 * memory (the caller counts and logs the loss). */
sk_msg *sk_outbox_push(sk_outbox *ob, sk_peer peer, sk_msg_type type);

/* sk_outbox_unpush takes back msg, which must be the message the last
 * sk_outbox_push returned and still the last in ob (it aborts otherwise):
 * for a core that pushed a message first and then failed to fill it (out
 * of memory for what it points to), so that no half-made message is sent.
 * O(1); the outbox keeps its memory. */
void sk_outbox_unpush(sk_outbox *ob, const sk_msg *msg);

/* sk_outbox_clear empties the outbox, keeping its memory. */
void sk_outbox_clear(sk_outbox *ob);

/* sk_outbox_free releases the outbox's memory. */
void sk_outbox_free(sk_outbox *ob);

#endif /* SK_CORE_H */
