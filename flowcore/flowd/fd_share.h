/*
 * fd_share.h - the cluster's use per user, summed where the node monitors
 * already report: HEARTBEATs (protocol 4) carry a node's users in pages
 * of at most SK_MAX_HB_USERS (user, weight, queued, running, slot time):
 * page 0 its most active, then, when it tracks more, every user in name
 * order, a page a heartbeat, and a 5 s pause before the next cycle.
 * flowd keeps per live node the union of the latest pages and the query
 * `users` sums them per user. `skylark dashboard` asks this one daemon
 * instead of every node monitor (cli/dash_share.c).
 *
 * A node's rows: replaced when the user is listed again, dropped when a
 * whole cycle (every page in turn, from one page 0 to the next) passed
 * without it, at most the users the node announces (hb_users_total: the
 * latest listed kept) and at most FD_SHARE_MAX_NODE_USERS (the rest
 * counted in fs_share_over); pages out of turn are counted in
 * fs_share_gaps and drop nothing at that cycle's end.
 *
 * Memory: about 100 bytes a row (row, name, map). Costs: a page O(its
 * users), a cycle's end O(rows), O(rows log rows) when a node announces
 * fewer users than kept; the query O(rows kept + users). Called on the
 * core's thread only.
 */
#ifndef FD_SHARE_H
#define FD_SHARE_H

#include "fd_int.h"

/* Rows kept per node: the node monitor's default max_users. */
#define FD_SHARE_MAX_NODE_USERS 4096u

/* fd_share_on_heartbeat takes hb's users page (decoded, so within the
 * protocol's limits), received at now, into n's rows (see above); a
 * heartbeat without one (hb_users_sent false) leaves them. Out of memory
 * the node keeps none (counted in fs_nomem). */
void fd_share_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                           const sk_heartbeat *hb);

/* fd_share_forget drops n's rows (a node down or freed). */
void fd_share_forget(fd_node *n);

/* fd_query_users answers the query `users` into reply (scratch memory):
 * one row per user over the live nodes' rows, at most
 * SK_MAX_STATUS_ROWS (user, weight_min, weight_max, running, queued,
 * slot_ms, nodes), and the pairs nodes, nodes_reporting, users,
 * users_dropped (users beyond the rows), users_cut (users the nodes
 * announce beyond the rows kept: pages to come or over the limit), rows,
 * users_over (fs_share_over), page_gaps (fs_share_gaps) and age_ms_max
 * (the oldest node's last page's age at now). Returns 0 or SK_ENOMEM. */
int fd_query_users(fd_core *c, sk_time now, sk_status_reply *reply);

#endif /* FD_SHARE_H */
