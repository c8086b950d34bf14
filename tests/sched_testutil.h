/*
 * sched_testutil.h - helpers for the scheduler core's unit tests: a core
 * with node monitors and a frontend attached, job submissions built from
 * a few parameters, and queries over the core's outbox.
 */
#ifndef SCHED_TESTUTIL_H
#define SCHED_TESTUTIL_H

#include "sched_core.h"
#include "skylark.h"

#include <stdbool.h>
#include <stdint.h>

/* Peers of the tests: node monitors are 1..n, frontends from ST_FE. */
#define ST_FE 10000u

/* A job to submit: the fields tests vary; the rest take defaults. */
typedef struct st_job {
    uint64_t sj_job;
    uint32_t ntasks;
    double ratio;          /* 0: scheduler default */
    uint32_t max_attempts; /* 0: scheduler default */
    const char **labels;
    uint32_t nlabels;
    sk_resources res;
    const char ***preferred; /* per task, NULL-terminated; NULL: none */
    uint64_t key;            /* sj_key (0: none) */
    const uint32_t *refs;    /* with a key, the tasks' refs; NULL: 0..n-1 */
    const char *user;        /* NULL: "alice" */
} st_job;

/* st_node_up registers node monitor peer with the name "node<peer>",
 * slots, resources and labels (NULL-terminated list or NULL). */
void st_node_up(sched_core *c, sk_peer peer, uint32_t slots, sk_resources res,
                const char **labels);

/* st_nodes_up registers peers 1..n with 4 slots, 4000 millicores,
 * 8192 MiB and no label. */
void st_nodes_up(sched_core *c, uint32_t n);

/* st_fe_up registers a frontend. */
void st_fe_up(sched_core *c, sk_peer fe);

/* st_submit sends SUBMIT_JOB for j from frontend fe; task i has the spec
 * "task-<i>". */
void st_submit(sched_core *c, sk_peer fe, const st_job *j, sk_time now);

/* st_count returns how many messages of type are in the outbox (to peer,
 * or to anyone with peer UINT32_MAX). */
uint32_t st_count(sched_core *c, sk_msg_type type, sk_peer peer);

/* st_nth returns the n-th message of type in the outbox, or NULL. */
const sk_out *st_nth(sched_core *c, sk_msg_type type, uint32_t n);

/* st_clear empties the outbox. */
void st_clear(sched_core *c);

/* st_node_msg gives the core message m from node as the simulator does:
 * sched_prefetch_msg first, then sched_on_message. The helpers below send
 * through it, so that every test also checks that prefetching changes nothing.
 */
void st_node_msg(sched_core *c, sk_peer node, const sk_msg *m, sk_time now);

/* st_get_task sends GET_TASK for the reservation resv of core job id
 * from node peer, and returns the TASK_REPLY (valid until the next call
 * into the core), or NULL if none came. Clears the outbox first. */
const sk_task_reply *st_get_task(sched_core *c, sk_peer node, uint64_t job,
                                 uint64_t resv, sk_time now);

/* st_started and st_finished report an attempt from node peer. */
void st_started(sched_core *c, sk_peer node, uint64_t job, uint32_t task,
                uint32_t attempt, sk_time now);
void st_finished(sched_core *c, sk_peer node, uint64_t job, uint32_t task,
                 uint32_t attempt, sk_task_status status, sk_time now);

#endif /* SCHED_TESTUTIL_H */
