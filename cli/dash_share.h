/*
 * dash_share.h - fair share per user for `skylark dashboard`. First from
 * flowd: node monitors send it their most active users in every
 * HEARTBEAT (protocol 4) and its query `users` sums them
 * (flowcore/flowd/fd_share.h), one ask whatever the cluster's size.
 * Without a flowd that answers it (none in the cluster, an older one, no
 * node reporting yet), every live node monitor of a local cluster asked
 * for its table of users (user, weight, queued, running, slot_s), and
 * the tables summed per user. The
 * first DASH_KEPT_MAX node monitors are asked over sessions kept open
 * between gatherings (dash_kept.h), all at once from one thread; the rest
 * by a pool of threads, a session each (a TCP connection, a sealed
 * handshake, a close).
 *
 * bench/dash-share, 150 node monitors on this 2-core machine (load 6.7 to
 * 7.7 from other builds), 7 rounds, CPU of this process per node monitor,
 * median (min-max): a session each 0.68 ms (0.61-5.9) one at a time and
 * 0.69-0.74 ms 2 to 16 at once (about 2,700-2,900 node monitors per core
 * in the 2 s budget); kept sessions 0.19 ms (0.15-4.7), about 10,000 per
 * core, and a gathering of 52 ms (40-900) against 240 ms (164-1,013) one
 * at a time. A node monitor drops a session silent for 3 s (its
 * heartbeat_s * misses): gathered every 4 s or more (the dashboard's
 * every 5 s), each kept session is redone (a handshake, no new
 * connection): 0.39 ms (0.32-0.45) against 0.66 ms (0.63-1.09) one at a
 * time (load 3.8-6.7); heartbeats to keep them alive would cost 0.15 ms
 * per node monitor per second (measured), more. DASH_KEPT_MAX (256;
 * nanomsg allows 512 sockets a process) leaves a 10,000-node cluster
 * mostly to sessions each: not within the 2 s budget, hence flowd's
 * sums first.
 */
#ifndef DASH_SHARE_H
#define DASH_SHARE_H

#include "cli_json.h"
#include "dash_kept.h"
#include "sk_cluster.h"

#include <stddef.h>
#include <stdint.h>

#define DASH_SHARE_WORKERS 8    /* node monitors asked at once */
#define DASH_SHARE_USERS   4096 /* users summed; more are counted, not shown */

/* One user's share summed over the node monitors. */
typedef struct dash_user {
    char *du_name;             /* malloc */
    uint64_t du_wmin, du_wmax; /* the weight the nodes give it */
    uint64_t du_running, du_queued;
    uint64_t du_slot_ms; /* slot time used, milliseconds */
    uint64_t du_nodes;   /* nodes that know the user */
} dash_user;

/* What one gathering found. */
typedef struct dash_share {
    dash_user *ds_u; /* DASH_SHARE_USERS, sorted by name, ds_n used */
    size_t ds_n;
    uint64_t ds_dropped;   /* rows of users beyond DASH_SHARE_USERS */
    unsigned ds_nodemons;  /* node monitors in the cluster */
    unsigned ds_asked;     /* asked before the budget ran out */
    unsigned ds_answered;  /* answered */
    unsigned ds_workers;   /* threads that asked a session each */
    unsigned ds_kept;      /* node monitors asked over kept sessions */
    uint64_t ds_us;        /* how long asking took, microseconds */
    const char *ds_source; /* "flowd" or "nodemons" (static) */
    /* from flowd only: */
    uint64_t ds_reporting; /* nodes whose summary it holds */
    uint64_t ds_cut;       /* users the nodes left out of their summaries */
    uint64_t ds_age_ms;    /* age of the oldest summary */
} dash_share;

/* dash_share_from_flowd asks the flowd of cl (key: cl's key) its query
 * `users`, waiting at most timeout seconds, and fills *out (released
 * with dash_share_free) from its sums. Returns 0; or -1 when there is
 * no live flowd, it does not answer or does not know the query, it holds
 * no node's summary while node monitors run, or out of memory (nothing
 * to free then). Blocks the calling thread. */
int dash_share_from_flowd(const skc_cluster *cl, double timeout,
                          dash_share *out);

/* dash_share_gather asks every live node monitor of cl for its status
 * with its table (key: cl's key) and sums the tables into *out (which the
 * caller releases with dash_share_free). With kept (not NULL; made with
 * cl's key, used by one gathering at a time) the first DASH_KEPT_MAX live
 * node monitors are asked over its sessions, all at once from this
 * thread, waiting at most timeout seconds (dash_kept_ask); the others
 * (all of them without kept) are asked a session each by workers
 * threads at once (1 .. DASH_SHARE_WORKERS; 1 asks one after the
 * other), each ask waiting at most timeout seconds, none begun budget
 * seconds after the start. Blocks the calling thread for at most about
 * budget + timeout; threads are joined before it returns. Returns 0, or
 * -1 out of memory (nothing to free). */
int dash_share_gather(const skc_cluster *cl, dash_kept *kept, double timeout,
                      double budget, unsigned workers, dash_share *out);

/* dash_share_json writes s as members of the object open in j: source,
 * nodemons, asked, answered, users_dropped, workers, gather_us (and from
 * flowd nodes_reporting, users_cut, age_ms_max), columns (user,
 * weight_min, weight_max, running, queued, slot_ms, nodes) and rows (one
 * array per user, by name). */
void dash_share_json(const dash_share *s, cli_json *j);

/* dash_share_free releases what dash_share_gather made in s. */
void dash_share_free(dash_share *s);

#endif /* DASH_SHARE_H */
