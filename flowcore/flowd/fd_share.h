/*
 * fd_share.h - the cluster's use per user, summed where the node monitors
 * already report: each HEARTBEAT (protocol 4) carries the node's most
 * active users (at most SK_MAX_HB_USERS: user, weight, queued, running,
 * slot time), flowd keeps each live node's last summary, and the status
 * query `users` sums them per user. `skylark dashboard` asks this one
 * daemon instead of every node monitor (cli/dash_share.c).
 *
 * Memory: one block per node, the size of its last summary (24 bytes and
 * the name per user; at most SK_MAX_HB_USERS users), reused while it
 * fits. Costs: a heartbeat O(its users) and no allocation while the
 * summary does not grow; the query O(rows kept + users), where rows kept
 * is the sum of the nodes' summaries. Called on the core's thread only.
 */
#ifndef FD_SHARE_H
#define FD_SHARE_H

#include "fd_int.h"

/* fd_share_on_heartbeat keeps hb's users summary (decoded, so within the
 * protocol's limits), received at now, as n's, replacing the previous
 * one; a heartbeat without one (hb_users_sent false: node monitors send
 * it at most every 5 s) leaves the last. Out of memory the node keeps
 * none (counted in fs_nomem). */
void fd_share_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                           const sk_heartbeat *hb);

/* fd_share_forget drops n's summary (a node down or freed). */
void fd_share_forget(fd_node *n);

/* fd_query_users answers the query `users` into reply (scratch memory):
 * one row per user over the live nodes' summaries, at most
 * SK_MAX_STATUS_ROWS (user, weight_min, weight_max, running, queued,
 * slot_ms, nodes), and the pairs nodes, nodes_reporting, users,
 * users_dropped (users beyond the rows), users_cut (users the nodes
 * track but left out of their last summary), rows and age_ms_max (the
 * oldest summary's age at now). Returns 0 or SK_ENOMEM. */
int fd_query_users(fd_core *c, sk_time now, sk_status_reply *reply);

#endif /* FD_SHARE_H */
