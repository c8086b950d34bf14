/*
 * fd_testutil.h - helpers shared by the flow node core's tests: messages
 * built and fed to a core as its peers would send them, a round run on
 * the calling thread, and views of the outbox (every message checked to
 * be encodable by the protocol's encoder as it is looked at).
 *
 * Every helper that calls into the core drains the outbox first (checking
 * that each message encodes), as a driver must before its next call: a
 * test looks at what the last call sent.
 *
 * For TAP tests (tests/tap.h): helpers bail out of the test when the core
 * cannot be made or memory runs out.
 */
#ifndef FD_TESTUTIL_H
#define FD_TESTUTIL_H

#include "fd_core.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MS 1000ull /* microseconds */

/* fdt_core makes a core from cfg (NULL: defaults) in epoch 1 at now. */
fd_core *fdt_core(const fd_config *cfg, sk_time now);

/* fdt_node registers a node monitor on peer with slots slots, named
 * name, in rack (he_rack; NULL: none), with the label "ssd" and the long
 * share share (a label "long_share=X"; < 0: no label). */
void fdt_node(fd_core *c, sk_time now, sk_peer peer, const char *name,
              uint32_t slots, const char *rack, double share);

/* fdt_sched registers a scheduler with id id on peer. */
void fdt_sched(fd_core *c, sk_time now, sk_peer peer, uint32_t id);

/* fdt_submit forwards job `job` of ntasks tasks from the scheduler on
 * peer; task i's spec is "task-<job>-<i>"; prefs (may be NULL) gives
 * every task the same npref preferred nodes. */
void fdt_submit(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                uint32_t ntasks, bool is_long, const char **prefs,
                uint32_t npref);

/* fdt_submit_ex is fdt_submit with the job's labels and per-task
 * request (fdt_submit: none, and 500 millicores, 256 MiB). */
void fdt_submit_ex(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                   uint32_t ntasks, bool is_long, const char **prefs,
                   uint32_t npref, const char **labels, uint32_t nlabels,
                   sk_resources res);

/* fdt_submit_racks is fdt_submit_ex with the same nracks preferred racks
 * (ts_racks) for every task too (fdt_submit_ex: none). */
void fdt_submit_racks(fd_core *c, sk_time now, sk_peer sched, uint64_t job,
                      uint32_t ntasks, bool is_long, const char **prefs,
                      uint32_t npref, const char **racks, uint32_t nracks,
                      const char **labels, uint32_t nlabels, sk_resources res);

/* A long task a node reports running. */
typedef struct fdt_run {
    uint64_t job;
    uint32_t task, attempt;
} fdt_run;

/* fdt_heartbeat sends the node on peer's heartbeat number seq: slots
 * total/used/reserved, the queue's length at priority 0 and the long
 * tasks running. */
void fdt_heartbeat(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                   uint32_t total, uint32_t used, uint32_t reserved,
                   uint32_t queue, const fdt_run *run, uint32_t nrun);

/* fdt_heartbeat_res is fdt_heartbeat reporting used resources too
 * (fdt_heartbeat: none). */
void fdt_heartbeat_res(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                       uint32_t total, uint32_t used, uint32_t reserved,
                       uint32_t queue, const fdt_run *run, uint32_t nrun,
                       sk_resources used_res);

/* fdt_answer sends RESERVE_ACK (ack) or RESERVE_REJECT for the RESERVE
 * rv from the node on peer. */
void fdt_answer(fd_core *c, sk_time now, sk_peer peer, const sk_reserve *rv,
                bool ack);

/* fdt_solve solves round r's network on this thread with the round's
 * algorithm and incrementality, as the daemon's solver threads do; the
 * stats in *st. Returns fc_solve's code. */
int fdt_solve(fd_round *r, fc_solve_stats *st);

/* fdt_round runs a round if one is due: begin, fc_solve on this thread
 * with the round's algorithm, end. Returns fd_round_begin's code (0: a
 * round ran); the solve's code goes to *solve_rc when not NULL. */
int fdt_round(fd_core *c, sk_time now, int *solve_rc);

/* fdt_count returns how many messages of type the outbox holds (to peer,
 * or to anyone with peer UINT32_MAX). */
size_t fdt_count(fd_core *c, sk_msg_type type, sk_peer peer);

/* fdt_nth returns the i-th message of type in the outbox, its peer in
 * *to (may be NULL), or NULL. */
const sk_msg *fdt_nth(fd_core *c, sk_msg_type type, size_t i, sk_peer *to);

/* fdt_drain checks that every message in the outbox encodes, then
 * empties it. Returns how many did not encode. */
int fdt_drain(fd_core *c);

/* fdt_encode_failures returns how many outgoing messages failed to
 * encode so far. */
int fdt_encode_failures(void);

#endif /* FD_TESTUTIL_H */
