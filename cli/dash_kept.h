/*
 * dash_kept.h - the dashboard's kept sessions to node monitors: one
 * long-lived authenticated "tool" session per node monitor on one private
 * loop, so that a fair-share gathering (dash_share.h) costs a
 * STATUS_REQUEST and its reply per node monitor, all in flight at once
 * from one thread, not a TCP connection and a handshake each. The loop
 * runs only while a gathering waits: a node monitor drops a session
 * silent for its heartbeat_s * misses (3 s by default), and the next
 * gathering redoes it (the transport's handshake again, over the same
 * nanomsg socket), which costs less than heartbeats between gatherings
 * would (bench/README.md, dash-share). A node monitor that leaves the
 * cluster, or is no longer alive, has its session closed at the next
 * gathering.
 *
 * Limits: at most DASH_KEPT_MAX sessions (one nanomsg socket each; nanomsg
 * allows 512 per process, and the dashboard's other asks need some); the
 * memory is the table here (about 200 bytes a session) and the
 * transport's peer state and queues. Node monitors beyond the limit are
 * left to the caller (dash_share_gather asks them a session each).
 *
 * Threading: a dash_kept is used by one thread at a time (the caller
 * serialises its gatherings).
 */
#ifndef DASH_KEPT_H
#define DASH_KEPT_H

#include "skylark.h"

#include <stdint.h>

#define DASH_KEPT_MAX 256 /* sessions kept open */

typedef struct dash_kept dash_kept;

/* Counters since creation. */
typedef struct dash_kept_stats {
    uint64_t ks_opened;  /* connections made */
    uint64_t ks_closed;  /* closed: the node monitor left or died */
    uint64_t ks_ups;     /* sessions that came up (first or redone) */
    uint64_t ks_downs;   /* sessions that broke */
    uint64_t ks_refused; /* handshakes the node monitor refused */
    uint64_t ks_bad;     /* replies that could not be copied */
} dash_kept_stats;

/* dash_kept_create makes an empty set of sessions authenticated with the
 * cluster key in key_file (NULL: unauthenticated). Returns 0, SK_ECONFIG
 * (the key file cannot be used; logged) or SK_ENOMEM. */
int dash_kept_create(const char *key_file, dash_kept **out);

/* dash_kept_destroy closes every session (a goodbye each) and frees k.
 * NULL is a no-op. */
void dash_kept_destroy(dash_kept *k);

/* dash_kept_ask asks the node monitors at eps[0 .. n-1] (n at most
 * DASH_KEPT_MAX, endpoints distinct) for their status with its table over
 * the kept sessions, opening those it lacks and closing those to
 * endpoints not in eps; waits at most timeout seconds in all (a session
 * not up by then is not asked). out[i] gets the answer of eps[i] (the
 * caller frees it with sk_status_free) or NULL. Returns how many were
 * asked (a request sent). Blocks the calling thread. */
unsigned dash_kept_ask(dash_kept *k, const char *const *eps, unsigned n,
                       double timeout, sk_status **out);

/* dash_kept_stats_get copies k's counters. */
void dash_kept_stats_get(const dash_kept *k, dash_kept_stats *out);

#endif /* DASH_KEPT_H */
