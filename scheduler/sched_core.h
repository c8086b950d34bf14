/*
 * sched_core.h - the scheduler core: batch sampling with late binding for
 * short jobs (the Sparrow path of DESIGN.md §2), as a sans-I/O module.
 *
 * The core keeps the node monitors connected to it (registered by a HELLO
 * of role NODEMON through sched_peer_up), the jobs its frontends submitted,
 * the reservations it placed on node monitors, and the tasks it bound to
 * them. It reads no clock, opens no socket and owns no randomness but the
 * sk_rng seeded by its creator; its driver (the skylark-sched shell or the
 * simulator) feeds it one input at a time with the current time, drains
 * sched_outbox() after each call and wakes it at sched_next_deadline().
 *
 * Job identity. A frontend names its job with sj_job, unique for that
 * frontend; the core keys jobs by (frontend peer, sj_job), and rejects a
 * second submission with the same pair. Towards node monitors the core
 * uses its own job id, unique for the life of the core and never reused,
 * so that two frontends may pick the same sj_job: ENQUEUE_RESERVATION,
 * GET_TASK, TASK_REPLY, TASK_STARTED, TASK_FINISHED, CANCEL_RESERVATIONS
 * and KILL_TASK between the core and node monitors carry that id; messages
 * to the frontend carry the frontend's sj_job.
 *
 * Outcomes. Every task of an accepted job gets exactly one TASK_FINISHED
 * to its frontend, with its final status: OK, FAILED (by the node, or by
 * the core with a reason in tf_output, e.g. when no preferred node is
 * live), KILLED, LOST (its node went away, or it never started within the
 * launch timeout, and no attempt is left) or CANCELLED (CANCEL_JOB). An
 * attempt that is lost while attempts remain is not reported: the task
 * goes back to pending with attempt + 1 and fresh probes, and the frontend
 * sees its next TASK_STARTED. Only LOST attempts are retried (a task that
 * ran and failed would most likely fail again). After the last outcome,
 * JOB_DONE goes to the frontend with counts that add up, and the job is
 * freed. A frontend that goes away loses its jobs: their reservations are
 * cancelled, their launched tasks killed, and nothing more is reported.
 *
 * Fencing. A node monitor that comes back re-announces, with
 * TASK_STARTED before its first GET_TASK, the attempts it still runs
 * (docs/FAULTS.md). One the core gave up (its job, one the core created,
 * is gone; a later attempt exists; or it is not the attempt launched on
 * that node) is answered with KILL_TASK to that node and counted
 * (ss_fenced); nothing reaches the frontend. Later TASK_STARTEDs are not
 * fenced: the core kills what it gives up in a session itself.
 *
 * Admission. A submission over a limit (tasks, spec bytes, jobs in
 * flight, probe ratio, attempts, labels), over a budget (the bytes of all
 * jobs held; the jobs and bytes of its frontend, and of its user, so that
 * one frontend or user cannot take what others need), a duplicate, a
 * long-running, flow-placed or constrained job without a flowd session,
 * or one that no live node monitor can run (labels and resource request,
 * when it has tasks without preferred nodes; "no node monitors" when
 * none is connected, "every node monitor is saturated or down" when none
 * is live and no flowd is connected) is rejected with a reason in
 * JOB_REJECTED, and leaves no trace but a counter. Tasks with preferred
 * nodes of which none is live are not a reason to reject: with a flowd
 * they are handed to it (sched_flow.c), without they end FAILED ("no
 * preferred node is live"). Tasks left with no probe and no live node
 * after a node loss end the same way. The flow path (long jobs, the
 * fallback, flowd restarts) is described in sched_flow.c.
 *
 * Costs. Every input costs O(1) amortised plus the size of the message or
 * of the work it causes (probes sent, tasks of the job it ends); sampling
 * an unconstrained job costs O(probes), not O(nodes). A job that carries
 * labels or a resource request that few nodes satisfy may look at every
 * live node. Memory is released when a job ends.
 *
 * Threading: a core is used from one thread at a time.
 */
#ifndef SCHED_CORE_H
#define SCHED_CORE_H

#include "sk_config.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stdint.h>

/* Settings of a core. Integer fields are int64_t so that the daemon's
 * configuration table (sched_config_keys) can fill them directly. */
typedef struct sched_config {
    int64_t sc_id;                /* scheduler id, er_sched in probes */
    char sc_name[64];             /* name in STATUS_REPLY */
    double sc_probe_ratio;        /* d: probes per task, 1..64 */
    double sc_max_probe_ratio;    /* largest per-job sj_probe_ratio */
    int64_t sc_max_attempts;      /* attempts of a task by default (1..) */
    int64_t sc_max_tasks;         /* tasks in one job */
    int64_t sc_max_spec_bytes;    /* one task's spec */
    int64_t sc_max_job_bytes;     /* all specs and names of one job */
    int64_t sc_max_jobs;          /* jobs in flight */
    int64_t sc_max_bytes;         /* bytes of all jobs held, all frontends */
    int64_t sc_max_fe_jobs;       /* jobs in flight of one frontend */
    int64_t sc_max_fe_bytes;      /* bytes of the jobs of one frontend */
    int64_t sc_max_user_jobs;     /* jobs in flight of one user */
    int64_t sc_max_user_bytes;    /* bytes of the jobs of one user */
    int64_t sc_max_nodes;         /* node monitors connected */
    int64_t sc_max_frontends;     /* frontends connected */
    int64_t sc_launch_timeout_ms; /* launched, not started: lost (0 off) */
    int64_t sc_fallback_ms;       /* pending this long after acceptance:
                                     handed to flowd (0 off) */
    int64_t sc_offer_keep_ms;     /* offered outcomes kept this long */
    int64_t sc_max_offers;        /* and at most this many */
    bool sc_probe_saturated;      /* probes a job cannot place on
                                     unsaturated nodes go to saturated
                                     nodes' short slots */
} sched_config;

/* Number of keys sched_config_keys describes. */
#define SCHED_CONFIG_NKEYS 21

/* sched_config_init fills cfg with the defaults: id 0, name "sched",
 * probe ratio 2, per-job probe ratio up to SK_MAX_PROBE_RATIO, 1 attempt
 * (no retry), 10,000 tasks per job, SK_MAX_SPEC_BYTES per spec, 64 MiB
 * per job, 10,000 jobs in flight, 256 MiB for all jobs held, 1,000 jobs
 * and 128 MiB per frontend, as much per user, SK_MAX_NODES node
 * monitors, 1,024 frontends, a launch timeout of 60 s, a fallback to
 * flowd after 5 s, offered outcomes kept 60 s, at most 65,536 of them. */
void sched_config_init(sched_config *cfg);

/* sched_config_keys fills keys[0..SCHED_CONFIG_NKEYS) with the [sched]
 * section of the daemon's configuration file, each key pointing at its
 * field of cfg and carrying its range, for sk_config_load. cfg must
 * outlive the table. */
void sched_config_keys(sched_config *cfg, sk_config_key *keys);

/* sched_config_check validates cfg (every field in its range, the
 * per-job probe ratio limit not below the default ratio, max_job_bytes <=
 * max_fe_bytes <= max_bytes, max_job_bytes <= max_user_bytes). Returns 0 or
 * SK_ECONFIG with a message naming the field in err. */
int sched_config_check(const sched_config *cfg, char *err, size_t errlen);

/* Buckets of sched_stats.ss_wait: how long a task waited from its job's
 * acceptance to its launch (the TASK_REPLY that gave it to a node), the
 * scheduling overhead of the sampling path. Upper bounds in
 * microseconds, from 100 us to 60 s; the last bucket is the rest. */
#define SCHED_WAIT_NBOUNDS 16
extern const uint64_t SCHED_WAIT_BOUNDS_US[SCHED_WAIT_NBOUNDS];

/* Counters of a core: events, bad inputs (each dropped without harming
 * accepted state), and gauges of what it holds now. */
typedef struct sched_stats {
    /* jobs */
    uint64_t ss_jobs_accepted;
    uint64_t ss_jobs_rejected;  /* all reasons, detailed below */
    uint64_t ss_reject_limit;   /* over a limit or out of range */
    uint64_t ss_reject_dup;     /* (frontend, sj_job) already in flight */
    uint64_t ss_reject_nodes;   /* no live node monitor can run it */
    uint64_t ss_reject_other;   /* long job, sender is a node monitor */
    uint64_t ss_reject_budget;  /* over max_bytes, max_fe_jobs or
                                   max_fe_bytes */
    uint64_t ss_reject_user;    /* sj_user is not the authenticated user */
    uint64_t ss_jobs_done;      /* JOB_DONE sent */
    uint64_t ss_jobs_cancelled; /* by CANCEL_JOB */
    uint64_t ss_jobs_abandoned; /* their frontend went away */
    /* tasks: submitted = the final outcomes + abandoned + in flight */
    uint64_t ss_tasks_submitted; /* tasks of the jobs accepted */
    uint64_t ss_tasks_abandoned; /* unfinished when their frontend left */
    uint64_t ss_tasks_launched;  /* TASK_REPLY with a task */
    uint64_t ss_tasks_retried;   /* lost attempts given another try */
    uint64_t ss_tasks_unplaced;  /* failed: no live preferred node */
    uint64_t ss_launch_timeouts; /* launched, never started */
    uint64_t ss_outcome[SK_TASK_STATUS_MAX + 1]; /* final, by status */
    /* messages */
    uint64_t ss_enqueues;     /* ENQUEUE_RESERVATION sent */
    uint64_t ss_reservations; /* reservations placed (sum of er_count) */
    uint64_t ss_resent;       /* reservations re-placed after node loss */
    uint64_t ss_sat_probes;   /* reservations on saturated nodes */
    uint64_t ss_nothing_left; /* TASK_REPLY without a task */
    uint64_t ss_cancels;      /* CANCEL_RESERVATIONS sent */
    uint64_t ss_kills;        /* KILL_TASK sent */
    uint64_t ss_wait[SCHED_WAIT_NBOUNDS + 1]; /* launches by wait, bucket */
    uint64_t ss_wait_sum_us;                  /* the sum of those waits */
    uint64_t ss_fenced; /* of which for attempts given up that a
                           node reported running (FAULTS.md) */
    /* outcomes offered by node monitors (sched_offers.c) */
    uint64_t ss_offers;         /* TASK_OUTCOME taken in */
    uint64_t ss_offers_taken;   /* became a task's outcome */
    uint64_t ss_offers_kept;    /* kept for a resubmission */
    uint64_t ss_offers_late;    /* the task had an outcome already */
    uint64_t ss_offers_refused; /* another user's job has the key */
    uint64_t ss_offers_full;    /* a kept one dropped: max_offers */
    uint64_t ss_offers_expired; /* kept ones nobody took in time */
    /* the flow path (sched_flow.c) */
    uint64_t ss_flowd_up;       /* HELLOs of flowd (restarts + 1) */
    uint64_t ss_flow_sent;      /* SUBMIT_JOBs to flowd, resends included */
    uint64_t ss_flow_resent;    /* hand-overs sent again to a new flowd */
    uint64_t ss_flow_tasks;     /* tasks handed to flowd */
    uint64_t ss_fallback_tasks; /* of which short ones sampling left */
    uint64_t ss_flow_started;   /* flow tasks reported started */
    uint64_t ss_flow_gave_up;   /* outcomes flowd decided (LOST, FAILED) */
    uint64_t ss_flow_refused;   /* hand-overs flowd rejected */
    uint64_t ss_flow_moved;     /* attempts flowd released: held again */
    /* bad or useless input, dropped */
    uint64_t ss_bad_type;     /* a message type the scheduler takes not */
    uint64_t ss_bad_peer;     /* from a peer that has no business sending it */
    uint64_t ss_bad_field;    /* a field out of range */
    uint64_t ss_unknown_job;  /* names no job in flight */
    uint64_t ss_unknown_resv; /* GET_TASK for no reservation we know
                                 (also one that crossed its cancel) */
    uint64_t ss_bad_state;    /* makes no sense in the task's state */
    uint64_t ss_stale;        /* for an attempt that is not current */
    uint64_t ss_limit_nodes;  /* HELLO refused: too many node monitors */
    uint64_t ss_limit_frontends;    /* refused: too many frontends */
    uint64_t ss_memberships;        /* MEMBERSHIP messages applied */
    uint64_t ss_membership_unknown; /* MEMBERSHIP entries for no node */
    uint64_t ss_nomem;              /* allocation failures (work dropped) */
    /* gauges */
    uint64_t ss_nodes;     /* node monitors connected */
    uint64_t ss_live;      /* of which up and not saturated */
    uint64_t ss_saturated; /* and up, saturated by long tasks */
    uint64_t ss_frontends; /* frontends known */
    uint64_t ss_jobs;      /* jobs in flight */
    uint64_t ss_bytes;     /* bytes of the jobs held (their specs, names) */
    uint64_t ss_resv_open; /* reservations outstanding (sum of counts) */
} sched_stats;

typedef struct sched_core sched_core;

/* sched_new creates a core with a copy of cfg (NULL: defaults), its
 * generator seeded with seed. Returns 0, SK_ECONFIG if cfg is invalid,
 * or SK_ENOMEM; the core is in *out. */
int sched_new(const sched_config *cfg, uint64_t seed, sched_core **out);

/* sched_free releases the core and everything it holds (NULL is fine).
 * It sends nothing. */
void sched_free(sched_core *c);

/* sched_peer_up tells the core that peer said HELLO. A NODEMON becomes a
 * node to sample (its slots, resources and labels are copied); a FRONTEND
 * is registered (a peer that sends SUBMIT_JOB is registered on the way);
 * other roles are ignored. A second HELLO from a peer the core knows is
 * counted (ss_bad_peer) and ignored. */
void sched_peer_up(sched_core *c, sk_peer peer, const sk_hello *hello,
                   sk_time now);

/* sched_peer_cred tells the core that peer proved a user token for user
 * (an admin's if admin) rather than the cluster key; the shell calls it
 * before any input of the peer's session. Such a peer submits jobs as
 * user only (a SUBMIT_JOB naming another user is refused, counted in
 * ss_reject_user; an empty sj_user becomes user), sees only user's jobs
 * in status tables unless admin, and never sends MEMBERSHIP. Forgotten
 * at sched_peer_down. Returns 0, SK_EINVAL (no valid user name) or
 * SK_ENOMEM: the shell must then end the peer's session. */
int sched_peer_cred(sched_core *c, sk_peer peer, const char *user, int admin);

/* sched_peer_down tells the core that peer is gone. For a node monitor:
 * its reservations are placed again on other nodes, and its launched and
 * running tasks are lost (retried while attempts remain, else reported
 * LOST "node lost"). For a frontend: its jobs are cancelled on the node
 * monitors and freed. Unknown peers are ignored. */
void sched_peer_down(sched_core *c, sk_peer peer, sk_time now);

/* sched_on_message handles one decoded message from peer: SUBMIT_JOB and
 * CANCEL_JOB (frontends), GET_TASK, TASK_STARTED and TASK_FINISHED (node
 * monitors), MEMBERSHIP (SATURATED and DOWN nodes are not probed until
 * UP again) and STATUS_REQUEST (answered with a STATUS_REPLY: counters,
 * and with sq_table a table of the jobs in flight). Anything else, or
 * anything that makes no sense, is counted and dropped. msg is not
 * referenced after the call. */
void sched_on_message(sched_core *c, sk_peer from, const sk_msg *msg,
                      sk_time now);

/* sched_on_timer lets the core act on deadlines up to now: tasks
 * launched (TASK_REPLY sent) longer than the launch timeout ago without
 * a TASK_STARTED are killed and treated as lost. */
void sched_on_timer(sched_core *c, sk_time now);

/* sched_next_deadline returns when sched_on_timer wants to be called,
 * or SK_TIME_NEVER. */
sk_time sched_next_deadline(const sched_core *c);

/* sched_prefetch_msg asks the processor to start loading what
 * sched_on_message(c, from, msg, ...) will look up first (the index slots
 * of a GET_TASK's node and reservation, the task of a task report),
 * without waiting for it: a driver calls it for a message it will
 * deliver soon, once msg itself is loaded. It changes nothing, reads msg
 * only during the call, and is only a hint. */
void sched_prefetch_msg(const sched_core *c, sk_peer from, const sk_msg *msg);

/* sched_outbox returns the messages the core wants sent. The driver
 * sends them and calls sk_outbox_clear before the next call; what they
 * point to stays valid until that next call. */
sk_outbox *sched_outbox(sched_core *c);

/* sched_stats returns the counters of c. */
const sched_stats *sched_stats_get(const sched_core *c);

/*
 * Inspection, for tests and the simulator: read-only views of the state.
 */

/* The state of one task. */
typedef enum sched_task_state {
    SCHED_TASK_PENDING = 1,  /* waiting for a node monitor to ask */
    SCHED_TASK_LAUNCHED = 2, /* given to a node in TASK_REPLY */
    SCHED_TASK_RUNNING = 3,  /* the node reported TASK_STARTED */
    SCHED_TASK_DONE = 4,     /* has its final outcome */
    SCHED_TASK_FLOW = 5,     /* held by flowd, not started */
} sched_task_state;

/* A summary of one job in flight. */
typedef struct sched_job_info {
    uint64_t ji_id;         /* the core's job id (towards node monitors) */
    uint32_t ji_tasks;      /* tasks in the job */
    uint32_t ji_pending;    /* not yet launched */
    uint32_t ji_launched;   /* launched or running */
    uint32_t ji_done;       /* with a final outcome */
    uint32_t ji_flow;       /* held by flowd, not started */
    uint32_t ji_resv_nodes; /* distinct nodes holding its reservations */
    uint64_t ji_resv;       /* its reservations outstanding (sum) */
} sched_job_info;

/* sched_job_info_get describes the job (fe, sj_job). Returns 0 or
 * SK_ENOTFOUND. */
int sched_job_info_get(const sched_core *c, sk_peer fe, uint64_t sj_job,
                       sched_job_info *out);

/* sched_job_resv_on returns in *count the reservations of job (fe,
 * sj_job) outstanding on node peer (0 if none). Returns 0 or
 * SK_ENOTFOUND for an unknown job. */
int sched_job_resv_on(const sched_core *c, sk_peer fe, uint64_t sj_job,
                      sk_peer node, uint32_t *count);

/* sched_task_get returns the state, current attempt and (launched or
 * running) node peer of a task. Returns 0 or SK_ENOTFOUND. */
int sched_task_get(const sched_core *c, sk_peer fe, uint64_t sj_job,
                   uint32_t task, sched_task_state *state, uint32_t *attempt,
                   sk_peer *node);

/* sched_node_live tells whether the node monitor on peer is known, up
 * and not saturated (probed first). */
bool sched_node_live(const sched_core *c, sk_peer peer);

#endif /* SCHED_CORE_H */
