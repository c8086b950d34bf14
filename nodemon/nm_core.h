/*
 * nm_core.h - the node monitor core: the sans-I/O heart of
 * skylark-nodemon (DESIGN.md sections 2 and 3).
 *
 * It owns the slots and resources (CPU millicores, memory MiB) of one
 * machine, queues the short-job reservations that schedulers send
 * (ENQUEUE_RESERVATION), asks the reservation's scheduler for a task
 * (GET_TASK) whenever a slot is free and the job's request fits, launches
 * the task it gets on the framework's executor, reports the task's start
 * and end to the scheduler, holds slots for the long tasks flowd places
 * (RESERVE), and sends flowd a HEARTBEAT on a timer. It touches no socket
 * and no clock: the driver (the daemon shell or the simulator) calls it
 * with one input and the current time, then drains nm_outbox() and sleeps
 * until nm_next_deadline().
 *
 * Peers. Every peer registers with nm_peer_up and a HELLO; its role says
 * which messages it may send. Schedulers (SK_ROLE_SCHEDULER) send
 * ENQUEUE_RESERVATION, TASK_REPLY, CANCEL_RESERVATIONS and KILL_TASK;
 * executors (SK_ROLE_EXECUTOR, he_framework naming their framework, not
 * "") send TASK_FINISHED; flowd (SK_ROLE_FLOWD, the latest one registered)
 * sends RESERVE and RELEASE; anyone, registered or not, may send
 * STATUS_REQUEST. Any other message, or one from an unregistered peer or
 * the wrong role, is counted (ns_unexpected) and dropped.
 *
 * The command executor. Tasks of framework "" run on the built-in command
 * executor, which the daemon shell implements outside the core. The core
 * addresses it as the peer NM_PEER_COMMAND: LAUNCH_TASK and KILL_TASK go
 * there, and the shell reports the end of such a task by calling
 * nm_on_message(core, NM_PEER_COMMAND, TASK_FINISHED...). It is always
 * registered; a driver must never use NM_PEER_COMMAND for a real peer.
 * nm_peer_down(core, NM_PEER_COMMAND) reports its tasks LOST (it stays
 * registered).
 *
 * Decisions and their documented outcomes:
 * - Slots are handed out in this order: pending long tasks (RESERVE) in
 *   arrival order, then short reservations by strict priority (0 first)
 *   and weighted fair queueing across users within a level (nm_queue.h).
 *   A slot waiting for a TASK_REPLY is held, with the job's resources.
 * - Short tasks never use the slots and resources that pending long
 *   reservations hold. When the reservation to serve next does not fit in
 *   the free resources it waits (head of line) for running tasks to end;
 *   one that could not fit even with every short task gone (its request
 *   exceeds the node minus what long tasks hold) is dropped (ns_unfit).
 * - An ENQUEUE_RESERVATION over max_queued queued reservations, or whose
 *   request exceeds the whole node, or of a user beyond max_users, or a
 *   duplicate (same scheduler and er_resv), is dropped and counted, with a
 *   log line for the first and every 1024th of a kind. Nothing is sent:
 *   the protocol has no rejection for a probe, and a scheduler probes d
 *   nodes per task, so the job's tasks are served by its other probes; a
 *   job whose every probe is dropped needs the scheduler's fallback (it is
 *   never half-launched here).
 * - TASK_REPLY "nothing left" releases the held slot, drops what is left
 *   of that reservation and serves the next one in the same call.
 * - A GET_TASK unanswered after get_task_timeout_ms gives its slot back
 *   (ns_get_task_timeouts); the reservation, if it has slots left to ask
 *   for, stays queued. A TASK_REPLY carrying a task that matches no
 *   waiting GET_TASK (too late, duplicate, unknown) is answered with
 *   TASK_FINISHED FAILED ("no slot waits for it"), so the scheduler never
 *   believes a task runs here when it does not.
 * - A task whose framework has no registered executor fails at once:
 *   TASK_FINISHED FAILED to the scheduler, with the reason in tf_output;
 *   unless an executor of that framework was registered here and left
 *   (died, stalled, restarts) and none has registered since: then the
 *   task is given back LOST, to be retried elsewhere, and the job's
 *   other reservations here are dropped (ns_executor_away), so that a
 *   node whose executor is away does not fail, or eat the attempts of,
 *   every task of the framework it can fetch. Until the framework is
 *   back, new reservations of such a job are dropped too (ns_resv_away:
 *   its retries would come back here, to the idle node, and use up
 *   their attempts). The frameworks whose executor is away are
 *   remembered up to NM_MAX_AWAY, their jobs up to NM_MAX_AWAY_JOBS
 *   (the oldest is forgotten first).
 * - An executor going down: each of its running tasks is reported LOST;
 *   a keyed one is remembered for outcome_keep_ms, and if an executor of
 *   the same framework (the same process back, or a new one that read
 *   the end from its journal) reports its end (OK, FAILED), that
 *   outcome is offered to the schedulers (TASK_OUTCOME,
 *   ns_outcomes_late), so that a task that ended while its executor was
 *   stopped, cut off or killed is not completed again by its retry
 *   (nm_outcome.c). Before the session's end, such a report from an
 *   executor of the same framework ends the task as its own executor's
 *   would.
 *   A scheduler going down: its queued reservations are dropped, slots
 *   held for its GET_TASKs are released, its pending long reservations
 *   are dropped and flowd gets RESERVE_REJECT, and its running tasks
 *   become orphans (docs/FAULTS.md): they keep their slots and run on
 *   for orphan_grace_ms (0: they are killed at once), their results are
 *   dropped (ns_results_dropped), and when the grace ends they are
 *   killed (KILL_TASK to their executor, ns_orphans_killed).
 * - Fencing. A scheduler that registers again with the same HELLO id and
 *   incarnation (its session ended and came back: a partition, a stall)
 *   first gets, before any other message, TASK_STARTED for each of its
 *   orphans still running here, which are bound to it again
 *   (ns_orphans_reclaimed); it answers KILL_TASK for the attempts it
 *   gave up. The orphans of another incarnation (a restarted scheduler
 *   knows nothing of them) are killed then. Their slots stay taken until
 *   their executor reports their end, so no new work takes them first.
 * - RESERVE is accepted (RESERVE_ACK) when the request fits the node, the
 *   scheduler rv_sched is registered, rv_resv is new and fewer than
 *   sk_long_cap(long_share, slots) long reservations exist (pending or
 *   running: floor(long_share * slots), at least 1 when long_share > 0);
 *   otherwise RESERVE_REJECT with the reason. The long task
 *   starts as soon as a slot and its resources are free, before any short
 *   reservation. RELEASE drops a pending long reservation; for a running
 *   one it ends the reservation at once (the slot stops counting as
 *   reserved, the task keeps it until it ends) and with rl_kill sends
 *   KILL_TASK to its executor; the task's end then reaches its scheduler
 *   as usual.
 * - KILL_TASK from a scheduler goes to the executor running the attempt
 *   (kt_task SK_TASK_ANY: every running task of the job); a pending long
 *   reservation of the task is dropped and reported KILLED at once (flowd
 *   sees it gone from hb_slots_reserved).
 * - Job ids: schedulers number their jobs independently, so two may send
 *   the same job id. Towards executors (LAUNCH_TASK, KILL_TASK, their
 *   TASK_FINISHED) a job is named by a node-local id, given when the node
 *   first hears of (scheduler, job) and never reused in the core's life;
 *   messages to a scheduler carry the scheduler's own id, and HEARTBEAT's
 *   running tasks too. A running task is identified by (local id, task,
 *   attempt); a second launch of the same key while it runs (a scheduler
 *   that launched the same attempt twice) fails the newcomer.
 * - Heartbeats: while flowd is registered, one at once on its
 *   registration, then every heartbeat_ms. hb_slots_used counts slots
 *   running or held for a GET_TASK, hb_slots_reserved the long
 *   reservations (pending and running), hb_queue the queued reservations
 *   per priority. The users summary comes in a cycle of pages (hb_users:
 *   at most SK_MAX_HB_USERS each): page 0, the most active, rides the
 *   first heartbeat to a flowd that registers, then one
 *   NM_USERS_PERIOD_US (5 s) after the last cycle's end; with more users
 *   (counted in ns_hb_users_cut) the next heartbeats carry pages 1.. of
 *   every user in name order; hb_users_sent tells which carry one.
 *
 * Costs: every input is O(1) amortised or O(size of the message), plus
 * O(log users) per reservation queued or removed and per slot handed out
 * (that input's own consequences, never a scan of all queues), except
 * CANCEL_RESERVATIONS and KILL_TASK of a whole job (O(that job's
 * reservations and tasks)), a peer going down (O(what it owns)),
 * HEARTBEAT (O(running tasks)), a scheduler registering (O(orphans),
 * at most slots) and STATUS_REQUEST (O(users)). Memory is
 * bounded by max_queued, max_users, max_peers and slots; finished jobs
 * leave nothing behind.
 *
 * Threading: a core is used by one thread at a time.
 */
#ifndef NM_CORE_H
#define NM_CORE_H

#include "nm_config.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdint.h>

/* The peer id of the built-in command executor (see above). */
#define NM_PEER_COMMAND UINT32_MAX

/* Frameworks whose executor left that a core remembers, and jobs of
 * theirs it gave tasks back for (see above). */
#define NM_MAX_AWAY      64
#define NM_MAX_AWAY_JOBS 256

typedef struct nm_core nm_core;

/* Counters of what the core did and what it dropped. */
typedef struct nm_stats {
    /* Those a short task counts come first (one or two cache lines). */
    uint64_t ns_enqueued;          /* reservations queued */
    uint64_t ns_get_tasks;         /* GET_TASK sent */
    uint64_t ns_replies_task;      /* TASK_REPLY with a task */
    uint64_t ns_replies_empty;     /* TASK_REPLY "nothing left" */
    uint64_t ns_launched;          /* LAUNCH_TASK sent */
    uint64_t ns_finished;          /* TASK_FINISHED accepted */
    uint64_t ns_cancels;           /* CANCEL_RESERVATIONS received */
    uint64_t ns_cancelled;         /* reservations removed by them */
    uint64_t ns_cancel_unknown;    /* CANCEL for a job with none here */
    uint64_t ns_queue_full;        /* dropped: over max_queued */
    uint64_t ns_unfit;             /* dropped: can never fit */
    uint64_t ns_duplicate;         /* dropped: reservation id already known */
    uint64_t ns_users_full;        /* dropped: over max_users */
    uint64_t ns_stale_replies;     /* TASK_REPLY matching no GET_TASK */
    uint64_t ns_get_task_timeouts; /* GET_TASK unanswered in time */
    uint64_t ns_no_executor;       /* failed: no executor for framework */
    uint64_t ns_executor_away;     /* given back LOST: its framework's
                                      executor left and is not back */
    uint64_t ns_resv_away;         /* dropped: a reservation of a job
                                      given back, its framework away */
    uint64_t ns_task_collisions;   /* failed: same task already running */
    uint64_t ns_stale_finished;    /* TASK_FINISHED for no running task */
    uint64_t ns_results_dropped;   /* results for a scheduler that left */
    uint64_t ns_lost;              /* tasks reported LOST */
    uint64_t ns_kills;             /* KILL_TASK passed to executors */
    uint64_t ns_kill_unknown;      /* KILL_TASK matching nothing */
    uint64_t ns_reserves;          /* RESERVE accepted */
    uint64_t ns_reserve_rejects;   /* RESERVE_REJECT sent */
    uint64_t ns_long_started;      /* long tasks started */
    uint64_t ns_releases;          /* RELEASE applied */
    uint64_t ns_release_unknown;   /* RELEASE matching nothing */
    uint64_t ns_long_dropped;      /* pending long reservations of a
                                      flowd that restarted, dropped */
    uint64_t ns_orphaned;          /* tasks whose scheduler left */
    uint64_t ns_orphans_reclaimed; /* back under their scheduler */
    uint64_t ns_orphans_killed;    /* killed: grace over, or a restart */
    uint64_t ns_outcomes_kept;     /* keyed outcomes kept (nm_outcome.c) */
    uint64_t ns_outcomes_offered;  /* TASK_OUTCOME sent */
    uint64_t ns_outcomes_full;     /* kept ones dropped: max_outcomes */
    uint64_t ns_outcomes_late;     /* ends of tasks lost with their
                                      executor's session, told by the
                                      same executor back, offered */
    uint64_t ns_heartbeats;        /* HEARTBEAT sent */
    uint64_t ns_hb_users_cut;      /* users past a cycle's page 0 (over
                                      SK_MAX_HB_USERS), sent later */
    uint64_t ns_status_replies;    /* STATUS_REPLY sent */
    uint64_t ns_unexpected;        /* wrong type, role, peer or field */
    uint64_t ns_peers_full;        /* peer_up refused: over max_peers */
    uint64_t ns_bad_hello;         /* peer_up refused: bad or duplicate */
    uint64_t ns_nomem;             /* work lost to memory exhaustion */
} nm_stats;

/* What the slots and resources of the node are doing. */
typedef struct nm_slot_info {
    uint32_t si_total;
    uint32_t si_used;         /* running or held for a GET_TASK */
    uint32_t si_fetching;     /* held for a GET_TASK */
    uint32_t si_running;      /* tasks running (short and long) */
    uint32_t si_reserved;     /* long reservations, pending or running */
    uint32_t si_long_pending; /* long reservations waiting for a slot */
    sk_resources si_used_res; /* running, held and pending long */
    uint32_t si_queued;       /* queued short reservations */
} nm_slot_info;

/* One user as the core sees it. */
typedef struct nm_user_info {
    uint32_t ui_weight;
    uint32_t ui_queued;  /* queued reservations, all levels */
    uint32_t ui_running; /* running tasks */
    uint64_t ui_slot_us; /* slot time of its finished tasks */
    uint32_t ui_queued_at[SK_PRIORITIES];
} nm_user_info;

/* nm_new creates a core for the configuration cfg and the users' weights
 * (both copied; weights NULL: every user weighs 1) with the random seed
 * seed (unused by the current policy, kept so that the core stays
 * replayable when a policy draws). Returns 0, SK_ECONFIG for an invalid
 * configuration (nm_config_check, or more than NM_MAX_WEIGHTS weights),
 * or SK_ENOMEM. */
int nm_new(const nm_config *cfg, const nm_weights *weights, uint64_t seed,
           nm_core **out);

/* nm_free releases the core and everything it holds. NULL is a no-op. */
void nm_free(nm_core *nm);

/* nm_peer_up registers peer with its HELLO (see the roles above). A peer
 * already registered, an executor with framework "", or one over
 * max_peers is counted and ignored. For flowd this also sends the first
 * heartbeat; for a scheduler, it re-announces or kills the orphans its
 * earlier session left (see Fencing above). */
void nm_peer_up(nm_core *nm, sk_peer peer, const sk_hello *hello, sk_time now);

/* nm_peer_down forgets peer, with the outcomes described above. Unknown
 * peers are ignored. */
void nm_peer_down(nm_core *nm, sk_peer peer, sk_time now);

/* nm_on_message handles one decoded message from peer. msg is not kept
 * after the call. */
void nm_on_message(nm_core *nm, sk_peer from, const sk_msg *msg, sk_time now);

/* nm_on_timer does what is due at now (heartbeats, GET_TASK timeouts,
 * the end of orphans' grace).
 * Harmless when called early. */
void nm_on_timer(nm_core *nm, sk_time now);

/* nm_next_deadline returns when nm_on_timer should next be called, or
 * SK_TIME_NEVER. */
sk_time nm_next_deadline(const nm_core *nm);

/* nm_outbox returns the messages to send. The driver sends (or copies)
 * them and calls sk_outbox_clear before the next call into the core. */
sk_outbox *nm_outbox(nm_core *nm);

/* The stages of nm_prefetch_msg. */
#define NM_PREFETCH_STAGES 2u

/* nm_prefetch_msg asks the processor to start loading the memory that
 * nm_on_message(nm, from, msg, ...) will read first, without waiting for
 * it: a driver of many cores calls it for calls it will make soon, while
 * it works on something else. It goes in stages: stage 0 loads the core's
 * hot fields (it does not read msg, which may be NULL); stage 1 reads them
 * and msg, and loads what they point to. The driver calls both for the
 * same message, in order and some work apart (the simulator: one event
 * apart). It changes nothing, reads msg only during the call, and is only
 * a hint: skipping a stage or calling them for a message that never comes
 * costs time, never correctness. Larger stages are ignored. */
void nm_prefetch_msg(const nm_core *nm, sk_peer from, const sk_msg *msg,
                     unsigned stage);

/* nm_share_outbox makes the core put its messages in ob (NULL: back in
 * its own outbox), which nm_outbox then returns. For a driver of many
 * cores in one thread that drains after every call, as the simulator
 * does: one outbox for all of them stays in the caches, where each core's
 * own would be cold at its next call. ob must be empty when a call into
 * the core starts and outlive the core's use of it. */
void nm_share_outbox(nm_core *nm, sk_outbox *ob);

/* nm_get_stats returns the counters. */
const nm_stats *nm_get_stats(const nm_core *nm);

/* Whose task an attempt is: the frontend's name for it and the
 * scheduler it runs for (for the command executor's journal). */
typedef struct nm_origin {
    uint64_t or_key; /* the job key, 0: none */
    uint32_t or_ref;
    uint32_t or_sched;     /* HELLO id of its scheduler */
    uint64_t or_sched_inc; /* and its incarnation */
    char or_user[SK_MAX_NAME_LEN + 1];
} nm_origin;

/* nm_task_origin fills *o for the running attempt an executor knows as
 * (local job id job, task, attempt). Returns 0, or -1 when none runs. */
int nm_task_origin(const nm_core *nm, uint64_t job, uint32_t task,
                   uint32_t attempt, nm_origin *o);

/* nm_outcome_recovered keeps, as if it had ended here, the end of a task
 * a previous node monitor process ran (read back from the command
 * executor's journal): origin o, ended at end_us by itself with exit code
 * code (0: OK, else FAILED), launched at launch_us. It is offered
 * (TASK_OUTCOME) to the schedulers that register, like every kept
 * outcome of a scheduler not connected here (nm_outcome.c). Ignored
 * without a job key or when outcomes are not kept. */
void nm_outcome_recovered(nm_core *nm, const nm_origin *o, int32_t code,
                          uint64_t launch_us, uint64_t end_us, sk_time now);

/* nm_slots fills out with the state of the slots. O(1). */
void nm_slots(const nm_core *nm, nm_slot_info *out);

/* nm_get_user fills out for the user called name. Returns 0 or SK_ENOTFOUND
 * when the core does not track that user. */
int nm_get_user(const nm_core *nm, const char *name, nm_user_info *out);

/* nm_job_queued returns the number of queued reservations of job from
 * the scheduler peer sched (0 for an unknown job). */
uint32_t nm_job_queued(const nm_core *nm, sk_peer sched, uint64_t job);

/* nm_job_local returns the node-local id under which executors know job
 * of the scheduler peer sched, or 0 when the core holds nothing of that
 * job. */
uint64_t nm_job_local(const nm_core *nm, sk_peer sched, uint64_t job);

#endif /* NM_CORE_H */
