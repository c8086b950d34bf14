/*
 * skylark.h - the public C API of libskylark.
 *
 * This header is the whole contract between Skylark and the programs that
 * embed it (framework frontends, executors, tools). Everything it declares
 * is stable within a major version. Functions return 0 on success or a
 * negative SK_E* code; results come back through out-parameters.
 *
 * Threading: unless a function says otherwise, it may be called from any
 * thread, and functions on distinct objects never interfere. Frontends and
 * executors are the exception: each belongs to the thread that runs its
 * libev loop, all of its functions are called from that thread, and its
 * callbacks run there.
 *
 * The pieces: a framework's frontend submits jobs to a scheduler
 * (sk_frontend_*) and gets every task's outcome back; an executor on a
 * worker machine registers with the node monitor there for a framework
 * name and runs the tasks it is handed (sk_executor_*); any program can ask
 * a daemon for its state (sk_status_*). docs/CLIENT.md walks through them
 * with examples.
 */
#ifndef SKYLARK_H
#define SKYLARK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ev_loop;

/* SK_API marks each function of this API. libskylark is built with
 * -fvisibility=hidden, so these are the only symbols the shared library
 * exports: its internals (protocol, transport, logging) are not part of
 * the ABI. tests/test_exports.sh checks that the two lists agree. */
#ifndef SK_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif
#endif

/* Version of this header. sk_version() tells the version of the library
 * actually linked, which may differ for a shared library. */
#define SK_VERSION_MAJOR  0
#define SK_VERSION_MINOR  1
#define SK_VERSION_PATCH  0
#define SK_VERSION_STRING "0.1.0"

/* Error codes. Every failing function returns one of these (negative). */
enum sk_error {
    SK_OK = 0,
    SK_EINVAL = -1,     /* an argument is invalid */
    SK_ENOMEM = -2,     /* out of memory */
    SK_ELIMIT = -3,     /* an explicit limit was exceeded */
    SK_EPROTO = -4,     /* malformed message */
    SK_EVERSION = -5,   /* unsupported protocol version */
    SK_EUNKNOWN = -6,   /* unknown message type */
    SK_EAGAIN = -7,     /* would block, or a bounded queue is full */
    SK_ENOTFOUND = -8,  /* no such peer, job, task or key */
    SK_EEXIST = -9,     /* already exists */
    SK_EIO = -10,       /* transport or I/O failure */
    SK_ECONFIG = -11,   /* invalid configuration */
    SK_ECLOSED = -12,   /* the object was closed or shut down */
    SK_ETIMEDOUT = -13, /* a deadline passed */
    SK_ESYS = -14,      /* a system call failed (see errno) */
    SK_EREJECTED = -15, /* the peer refused the request */
    SK_ECANCELED = -16, /* the operation was cancelled */
    SK_ESTATE = -17,    /* not allowed in the current state */
    SK_EROLE = -18,     /* the peer is another kind of daemon (a node
                           monitor where a scheduler was wanted...) */
};

/* sk_version returns the version string of the linked library, such as
 * "0.1.0". The string is static. */
SK_API const char *sk_version(void);

/* sk_strerror returns a static, human-readable description of an SK_E* code
 * (or of SK_OK). Unknown codes give "unknown error". Never returns NULL. */
SK_API const char *sk_strerror(int err);

/* sk_endpoint_check tells whether endpoint is an address Skylark can
 * listen on or connect to: "tcp://HOST:PORT" (HOST a name, an IPv4
 * address, or "*" to listen on every interface; PORT 1..65535)
 * or "ipc://PATH" (PATH 1..107 bytes), 255 bytes at most in all. Returns
 * 0, or SK_EINVAL with, when err is not NULL, what is wrong in err
 * (errlen bytes, NUL-terminated), such as
 * `unsupported scheme "http" (expected tcp://HOST:PORT or ipc://PATH)`,
 * `missing host (expected tcp://HOST:PORT)` or
 * `port 99999 out of range (1..65535)`. Every function below that takes
 * an endpoint checks it with this before anything reaches the transport,
 * and so do the daemons' options. Cost: one pass over the string; no
 * allocation, no name resolution. */
SK_API int sk_endpoint_check(const char *endpoint, char *err, size_t errlen);

/* ===================================================================== *
 * Task outcomes
 * ===================================================================== */

/* How a task ended. Every task a frontend submits ends exactly once, with
 * one of these. The values are those of the wire protocol. */
typedef enum sk_outcome {
    SK_OUTCOME_OK = 1,        /* ran and exited with code 0 */
    SK_OUTCOME_FAILED = 2,    /* ran and failed, or could not be run */
    SK_OUTCOME_KILLED = 3,    /* killed on request */
    SK_OUTCOME_LOST = 4,      /* its node, executor or scheduler went away */
    SK_OUTCOME_CANCELLED = 5, /* the frontend cancelled its job */
} sk_outcome;

/* sk_outcome_name returns "ok", "failed", "killed", "lost", "cancelled",
 * or "unknown" for another value. Static string. */
SK_API const char *sk_outcome_name(int outcome);

/* A job, as its frontend numbers it: nonzero, unique within one
 * sk_frontend for its whole life, never reused. */
typedef uint64_t sk_job_id;

/* Limits of a job, checked by sk_frontend_submit before anything is sent
 * (they are the wire protocol's, see docs/PROTOCOL.md): at most 100,000
 * tasks; a task spec of at most 65,536 bytes; at most 16 preferred nodes
 * and 16 preferred racks per task and 64 labels per job; names (user,
 * framework, nodes, racks) of at most 255 bytes, racks of graphic ASCII
 * (no space, no control byte), labels of at most 127;
 * priority 0..7; probe ratio 0 or 1..64; max attempts 0..100; a
 * placement of SK_PLACEMENT_SAMPLE or SK_PLACEMENT_FLOW; and the encoded
 * job must fit in one transport message (1 MiB). */

/* Where a job's tasks are placed (jo_placement). The values are those of
 * the wire protocol.
 *
 * - SK_PLACEMENT_SAMPLE: by the scheduler's batch sampling, as Sparrow
 *   does (the default). Tasks that sampling cannot place (no live
 *   preferred node, no node left to probe, or still waiting after the
 *   scheduler's fallback_ms) are handed to the flow node (skylark-flowd)
 *   when the cluster has one; the job's outcomes come back the same way.
 * - SK_PLACEMENT_FLOW: straight to the flow node, which places every
 *   task in its next round (ahead of long-running work). A scheduler
 *   without a flow node rejects such a job.
 *
 * A long-running job (jo_long) always goes to the flow node, whatever its
 * placement. */
typedef enum sk_job_placement {
    SK_PLACEMENT_SAMPLE = 0,
    SK_PLACEMENT_FLOW = 1,
} sk_job_placement;

/* ===================================================================== *
 * Frontend side: submit jobs to a scheduler, learn what became of them
 * ===================================================================== *
 *
 * An sk_frontend keeps one session with one scheduler at a time (transport
 * role "frontend"), chosen from a list of endpoints: it connects to the
 * first, and moves to the next (round robin) when the current one does not
 * answer within fo_connect_timeout or its session ends.
 *
 * The role the peer gives in its answer to the handshake's HELLO is
 * checked before anything is sent: a peer that is not a scheduler (a node
 * monitor at that address, say) is left at once, sk_frontend_error says
 * so ("tcp://10.0.0.1:7071: that is a node monitor, not a scheduler"),
 * and the frontend moves to the next endpoint. When every endpoint has
 * answered as another kind of daemon, the jobs waiting at that moment
 * fail at once (every task FAILED, jr_error SK_EROLE, that sentence as
 * the reason), sk_frontend_wait_connected returns SK_EROLE, and the
 * endpoints are tried again every fo_connect_timeout.
 *
 * A job is submitted at once if a session is up, and otherwise waits in
 * the frontend (at most fo_queue_timeout) until one is. Its tasks are then
 * reported one by one: jc_started when an attempt starts on a node (a
 * retried task can start more than once), jc_task_done exactly once with
 * the task's final outcome, and after the last task jc_job_done once with
 * the counts. Nothing a frontend submitted is lost silently; each task
 * ends in exactly one of these ways:
 *
 * - as the scheduler reports it: OK, FAILED (with the exit code, or with
 *   the scheduler's or node monitor's reason in the output, such as "no
 *   preferred node is live"), KILLED, LOST ("node lost", after the
 *   job's retries), or CANCELLED (after sk_frontend_cancel);
 * - rejected: the scheduler refused the job (over a limit, no node
 *   monitor can run it, a long or SK_PLACEMENT_FLOW job and no flow node
 *   connected...): every task FAILED, tr_reason "job rejected: <the
 *   scheduler's reason>", jr_error SK_EREJECTED;
 * - failed over: the session with the scheduler ended (it died, the
 *   network broke, a heartbeat timeout of 3 * fo_heartbeat) after the job
 *   was handed to it. The scheduler forgets a frontend's jobs when the
 *   frontend goes away, so the frontend moves the job: it resubmits its
 *   unfinished tasks, and only those, to the next scheduler that answers
 *   (the endpoints in turn), as new attempts, with everything else the
 *   job said (user, priority, labels, request, long, placement, each
 *   task's preferred nodes and racks). The outcomes already reported
 *   stand. The job keeps its id and every task its index in the
 *   callbacks; on the wire each submission has its own job id and task
 *   numbering (an executor's li_task, and a command's
 *   SKYLARK_TASK_INDEX, are the index in the submission that ran it:
 *   frameworks that need their own task identity put it in the spec).
 *   Attempt numbers go on increasing across schedulers: a task's attempts
 *   at the new scheduler are numbered after the last one seen (one more
 *   is skipped, for an attempt the lost scheduler may have launched
 *   unseen). The resubmission waits like a new job: FAILED "no scheduler
 *   reachable" after fo_queue_timeout. If the next scheduler refuses it,
 *   the unfinished tasks are held two fo_heartbeat and offered again (a
 *   further move), and FAILED "job rejected" only once the moves are
 *   used up. The move happens two fo_heartbeat after the
 *   loss: by then the node monitors have offered the next scheduler,
 *   under the job's key (sent with every submission of it), the outcomes
 *   of tasks that ended while the lost scheduler could not pass them on,
 *   and those tasks end with them instead of running again. A task still
 *   running when the node monitors lose the scheduler is killed there
 *   and runs again at the next one: executed twice, reported once. A job
 *   is moved at most fo_max_failovers times; jr_failovers tells how
 *   often;
 * - scheduler lost: the job's scheduler was lost once more than
 *   fo_max_failovers allows (with 0: at once): each unfinished task is
 *   reported LOST with tr_reason "scheduler lost: ENDPOINT" (and "(after
 *   N failovers)"), tr_started telling whether any attempt was seen to
 *   start; jr_error SK_ECLOSED. A job being cancelled (sk_frontend_cancel)
 *   whose scheduler is lost is not moved: its unfinished tasks end
 *   CANCELLED, tr_reason "scheduler lost while cancelling: ENDPOINT";
 * - no scheduler: the job waited longer than fo_queue_timeout for a
 *   session: every task FAILED, tr_reason "no scheduler reachable",
 *   jr_error SK_ETIMEDOUT;
 * - not a scheduler: every endpoint answered as another kind of daemon
 *   (see above): every task FAILED, tr_reason "ENDPOINT: that is a node
 *   monitor, not a scheduler", jr_error SK_EROLE;
 * - cancelled before it reached a scheduler: every task CANCELLED;
 * - protocol violation: the scheduler said JOB_DONE while some tasks had
 *   no outcome: those end LOST, tr_reason "no outcome from the
 *   scheduler", jr_error SK_EPROTO.
 *
 * Input from the scheduler is validated: a message for a job or task this
 * frontend does not have in flight, a second outcome for a task, a field
 * out of range, or a message a scheduler has no business sending is
 * counted (sk_frontend_stats) and dropped; it never changes an outcome
 * already reported. One outcome per task, the first final one: once a
 * task has its outcome, any later report of it (a second attempt, a
 * repeat) is dropped (fs_duplicate); a report that names a submission of
 * a job that has failed over since (a straggler of the lost scheduler's
 * run) is dropped (fs_stale) even for a task without an outcome, since
 * the task belongs to the current submission, whose report counts.
 *
 * Two ways to drive it. With the caller's loop (sk_frontend_create with a
 * struct ev_loop *), the frontend adds its watchers to that loop and works
 * while the caller runs it; the caller may also block in the wait
 * functions, which run the loop. Blocking (loop NULL): the frontend owns a
 * private loop that runs only inside sk_frontend_wait_*.
 *
 * Threading: an sk_frontend belongs to the thread that runs its loop. All
 * its functions are called from that thread; callbacks run there, from
 * inside the loop (or inside the wait functions, which run it). Inside a
 * callback the caller may submit and cancel, but must not destroy the
 * frontend or call a wait function.
 */

typedef struct sk_frontend sk_frontend;

/* Settings of a frontend. Fill with sk_frontend_opts_init, then set at
 * least the schedulers. The strings are copied by sk_frontend_create. */
typedef struct sk_frontend_opts {
    const char *const *fo_schedulers; /* scheduler endpoints, such as
                                         "tcp://127.0.0.1:7100", in order */
    unsigned fo_nschedulers;          /* 1..16 */
    const char *fo_name;       /* our name towards the scheduler, 1..63 of
                                  [A-Za-z0-9._:-]; NULL: one is made up
                                  from the host name and process id */
    double fo_connect_timeout; /* seconds to wait for one endpoint before
                                  trying the next (default 2) */
    double fo_queue_timeout;   /* seconds a job may wait for a session
                                  before it fails (default 30; 0: no limit) */
    double fo_heartbeat;       /* transport heartbeat in seconds (default
                                  1); a session is lost after 3 silent
                                  intervals */
    unsigned fo_max_jobs;      /* jobs in flight at once (default 100,000):
                                  sk_frontend_submit says SK_ELIMIT above */
    const char *fo_key_file;   /* the cluster's key file (mode 0600), or
                                  NULL for an unauthenticated cluster. With
                                  a key every session is authenticated and
                                  encrypted; a scheduler that does not hold
                                  the same key is refused (the next one is
                                  tried; when all refuse, waiting jobs fail
                                  with SK_EREJECTED and the reason) */
    unsigned fo_max_failovers; /* times a job may be moved to another
                                  scheduler when its scheduler is lost
                                  (default 3; 0: never, its unfinished
                                  tasks end LOST; at most 16) */
    const char *fo_token_file; /* a user token file (`skylark user token`,
                                  mode 0600), used instead of fo_key_file:
                                  the scheduler then knows the frontend as
                                  that user (its jobs' user; it sees only
                                  its own jobs unless the token is an
                                  admin's). A token that is forged,
                                  expired or refused fails waiting jobs
                                  with SK_EREJECTED and the reason */
    const char *fo_token;      /* the token's line itself, instead of a
                                  file (wins over fo_token_file) */
} sk_frontend_opts;

/* sk_frontend_opts_init fills o with the defaults above and no scheduler. */
SK_API void sk_frontend_opts_init(sk_frontend_opts *o);

/* sk_frontend_create makes a frontend and starts connecting to the first
 * scheduler. loop is the caller's libev loop, which must outlive the
 * frontend; NULL makes the frontend own a private loop (blocking mode).
 * Returns 0 with the frontend in *out; SK_EINVAL for a bad option (no
 * endpoint, a bad name, a timeout below 0.01 s); SK_ECONFIG if the key
 * file cannot be used (the reason is logged); SK_EIO if an endpoint is
 * refused by nanomsg; SK_ENOMEM. Returns at once: the session comes up as
 * the loop runs (sk_frontend_wait_connected waits for it). */
SK_API int sk_frontend_create(struct ev_loop *loop, const sk_frontend_opts *o,
                              sk_frontend **out);

/* sk_frontend_destroy closes the session and frees the frontend. No
 * callback runs, for any job. Jobs still in flight are abandoned: the
 * scheduler notices that the frontend is gone (at once, or after its
 * heartbeat timeout), cancels their reservations and kills their running
 * tasks. NULL is a no-op. Not from inside a callback. */
SK_API void sk_frontend_destroy(sk_frontend *fe);

/* sk_frontend_loop returns the loop the frontend runs on: the caller's,
 * or in blocking mode its own, to which the caller may add watchers. */
SK_API struct ev_loop *sk_frontend_loop(sk_frontend *fe);

/* One task of a job. */
typedef struct sk_task_desc {
    const void *td_spec;             /* opaque bytes for the executor; for
                                        the command executor a command
                                        line for /bin/sh -c without NUL
                                        bytes (the frontend adds the
                                        final NUL the node monitor
                                        expects) */
    uint32_t td_spec_len;            /* 0..65,536 */
    const char *const *td_preferred; /* nodes to run on (data locality):
                                        per-task sampling among them */
    unsigned td_npreferred;          /* 0 (anywhere)..16 */
    const char *const *td_racks;     /* racks to run in, for the flow
                                        node only (long jobs, placement
                                        FLOW, fallback): it prefers a
                                        node of these racks, as a node
                                        monitor's rack key names them;
                                        batch sampling ignores them */
    unsigned td_nracks;              /* 0 (anywhere)..16 */
    const char *const *td_tags;      /* allocation tags the job's placement
                                        constraints name (flow path):
                                        1..63 bytes of [A-Za-z0-9_.-] */
    unsigned td_ntags;               /* 0..8 */
} sk_task_desc;

/* A job to submit. Fill with sk_job_desc_init, then set the tasks. */
typedef struct sk_job_desc {
    const char *jo_user;           /* for fair sharing; NULL or "": the
                                      user of the frontend's token, else
                                      the name of the process's user */
    unsigned jo_priority;          /* 0 (most urgent)..7; default 4 */
    const char *const *jo_labels;  /* a node must carry every label */
    unsigned jo_nlabels;           /* 0..64 */
    uint32_t jo_cpu_milli;         /* per task CPU request, millicores (0:
                                      none) */
    uint32_t jo_mem_mb;            /* per task memory request, MiB (0: none) */
    double jo_probe_ratio;         /* probes per task: 0 the scheduler's
                                      default, else 1..64 */
    unsigned jo_max_attempts;      /* 0 the scheduler's default, else 1..100;
                                      only attempts lost with their node are
                                      retried */
    const char *jo_framework;      /* the executor's framework name; NULL or
                                      "": the node monitor's built-in command
                                      executor */
    const sk_task_desc *jo_tasks;  /* the tasks, indexed from 0 */
    uint32_t jo_ntasks;            /* 1..100,000 */
    int jo_long;                   /* nonzero: long-running (services):
                                      placed by the flow node, which holds
                                      a slot for each task until it exits
                                      or the job is cancelled; default 0 */
    sk_job_placement jo_placement; /* where short tasks go (see
                                      sk_job_placement); default
                                      SK_PLACEMENT_SAMPLE */
    const char *jo_constraints;    /* placement constraints between tagged
                                      tasks, e.g. "zk=3,NOTIN,NODE,zk"
                                      (docs/CONSTRAINTS.md); NULL or "":
                                      none. Honoured on the flow path. */
} sk_job_desc;

/* sk_job_desc_init fills j with the defaults above and no task. */
SK_API void sk_job_desc_init(sk_job_desc *j);

/* An attempt of a task started on a node (jc_started). */
typedef struct sk_task_start {
    sk_job_id ts_job;
    uint32_t ts_task;      /* index in the job */
    uint32_t ts_attempt;   /* 0 for the first attempt */
    const char *ts_node;   /* node name */
    uint64_t ts_submit_us; /* when sk_frontend_submit was called, wall
                              clock, microseconds since the epoch */
    uint64_t ts_launch_us; /* when the node monitor launched it, on the
                              node's wall clock */
} sk_task_start;

/* The final outcome of a task (jc_task_done). */
typedef struct sk_task_result {
    sk_job_id tr_job;
    uint32_t tr_task;
    uint32_t tr_attempt; /* the attempt that ended */
    sk_outcome tr_outcome;
    int tr_exit;           /* exit code; negative: killed by signal -n;
                              -1 when it did not run to an exit */
    const void *tr_output; /* tail of the output (at most 4,096 bytes), or
                              the reason a node or scheduler gave */
    uint32_t tr_output_len;
    const char *tr_node;   /* where it ran, "" if nowhere known */
    const char *tr_reason; /* "" when the scheduler reported the outcome;
                              else why the frontend decided it (see the
                              list above) */
    int tr_started;        /* 1 if an attempt was seen to start */
    uint64_t tr_submit_us; /* as in sk_task_start */
    uint64_t tr_launch_us; /* 0 if it was never launched */
    uint64_t tr_end_us;    /* when it ended (the frontend's clock for
                              outcomes the frontend decided) */
} sk_task_result;

/* The end of a job (jc_job_done, sk_frontend_wait_job). */
typedef struct sk_job_result {
    sk_job_id jr_job;
    uint32_t jr_tasks; /* tasks in the job; the counts add up to it */
    uint32_t jr_ok, jr_failed, jr_killed, jr_lost, jr_cancelled;
    int jr_error;          /* 0: every outcome is a scheduler's (or a
                              cancellation), also after failovers;
                              SK_EREJECTED, SK_ECLOSED, SK_ETIMEDOUT,
                              SK_EROLE, SK_EPROTO: see above */
    const char *jr_reason; /* "" or the reason that goes with jr_error */
    uint64_t jr_submit_us;
    uint64_t jr_end_us;
    unsigned jr_failovers; /* times it moved to another scheduler */
} sk_job_result;

/* What a job reports, all optional. The structures handed to a callback,
 * and their strings and bytes, are valid during the call only. */
typedef struct sk_job_callbacks {
    void (*jc_started)(void *arg, const sk_task_start *s);
    void (*jc_task_done)(void *arg, const sk_task_result *r);
    void (*jc_job_done)(void *arg, const sk_job_result *r);
    void *jc_arg;
} sk_job_callbacks;

/* sk_frontend_submit checks job against the limits, copies it (the caller
 * may free it on return; with fo_max_failovers > 0 the encoded copy is
 * kept until the job ends, to cut resubmissions from) and sends it to the
 * scheduler, at once when a
 * session is up, else when one comes up. cb is copied; NULL means no
 * callbacks. Returns 0 with the job's id in *out (out may be NULL), after
 * which every outcome comes through cb (never from inside this call);
 * or, with nothing sent and no callback ever: SK_EINVAL (a field out of
 * range), SK_ELIMIT (over a limit, or fo_max_jobs in flight), SK_ENOMEM.
 * sk_frontend_error describes a refusal. A job submitted without a
 * jc_job_done callback keeps its result in the frontend after it ends
 * until sk_frontend_wait_job returns it. Cost: one copy of the job,
 * encoded once. */
SK_API int sk_frontend_submit(sk_frontend *fe, const sk_job_desc *job,
                              const sk_job_callbacks *cb, sk_job_id *out);

/* sk_frontend_cancel asks for the job to be cancelled, with reason (NULL:
 * ""). A job still waiting in the frontend ends at once (every task
 * CANCELLED, callbacks from this call); one handed to a scheduler gets
 * CANCEL_JOB, and its tasks end as the scheduler reports them: CANCELLED
 * for those not yet finished (a running task is killed), their real
 * outcome for those that finished first. After a failover the cancel
 * goes to the scheduler that holds the job now; a job waiting to fail
 * over ends at once (its unfinished tasks CANCELLED, "cancelled while
 * failing over"). Returns 0 (also when a cancel is
 * already under way), SK_ENOTFOUND if the job is not in flight. */
SK_API int sk_frontend_cancel(sk_frontend *fe, sk_job_id job,
                              const char *reason);

/* sk_frontend_wait_connected runs the loop until a session with a
 * scheduler is up, at most timeout seconds (< 0: no limit). Returns 0,
 * SK_ETIMEDOUT, or SK_EROLE when every endpoint answered as another kind
 * of daemon (sk_frontend_error says which). Not from inside a callback. */
SK_API int sk_frontend_wait_connected(sk_frontend *fe, double timeout);

/* sk_frontend_wait_job runs the loop until job has ended, at most timeout
 * seconds (< 0: no limit). Returns 0 and, if out is not NULL, the job's
 * result in *out (jr_reason stays valid until the next call on fe);
 * SK_ETIMEDOUT; SK_ENOTFOUND if the frontend has no such job: never
 * submitted, or ended and its result already handed over to jc_job_done
 * before this call or to an earlier wait. Not from inside a callback. */
SK_API int sk_frontend_wait_job(sk_frontend *fe, sk_job_id job, double timeout,
                                sk_job_result *out);

/* sk_frontend_wait_idle runs the loop until no job is in flight, at most
 * timeout seconds (< 0: no limit). Returns 0 or SK_ETIMEDOUT. Not from
 * inside a callback. */
SK_API int sk_frontend_wait_idle(sk_frontend *fe, double timeout);

/* Counters of a frontend, monotonic except the gauges. */
typedef struct sk_frontend_stats {
    uint64_t fs_jobs_submitted;
    uint64_t fs_jobs_accepted; /* JOB_ACCEPTED answers: a job that failed
                                  over is counted at each scheduler */
    uint64_t fs_jobs_rejected;
    uint64_t fs_jobs_ended; /* all ways */
    uint64_t fs_tasks_ended;
    uint64_t fs_sessions;       /* sessions that came up */
    uint64_t fs_scheduler_lost; /* sessions that ended */
    uint64_t fs_failovers;      /* moves to another endpoint */
    uint64_t fs_wrong_role;     /* endpoints that answered as another kind
                                   of daemon (each try counts) */
    uint64_t fs_unknown_job;    /* dropped: for no job in flight */
    uint64_t fs_duplicate;      /* dropped: an answer or outcome twice,
                                   or the report of a task that already
                                   has its outcome */
    uint64_t fs_failed_over;    /* jobs moved to another scheduler (a job
                                   counts once per move) */
    uint64_t fs_stale;          /* dropped: for a submission of a job
                                   that has failed over since */
    uint64_t fs_bad_field;      /* dropped: task index or status out of
                                   range, counts that do not add up */
    uint64_t fs_unexpected;     /* dropped: a type a frontend does not
                                   take */
    uint64_t fs_undecodable;    /* dropped before decoding (malformed,
                                   other version, over a limit) */
    uint64_t fs_jobs_in_flight; /* gauge */
    uint64_t fs_jobs_waiting;   /* gauge: not yet handed to a scheduler */
    int fs_connected;           /* gauge: 1 if a session is up */
    const char *fs_scheduler;   /* gauge: the endpoint in use or being
                                   tried (valid until the next call) */
} sk_frontend_stats;

/* sk_frontend_stats_get fills out. */
SK_API void sk_frontend_stats_get(sk_frontend *fe, sk_frontend_stats *out);

/* sk_frontend_error returns a description of the last error a function
 * of fe returned, such as "task 7: spec of 70000 bytes is over the limit
 * of 65536". Valid until the next call on fe; "" if none. */
SK_API const char *sk_frontend_error(const sk_frontend *fe);

/* ===================================================================== *
 * Executor side: run a framework's tasks on a worker
 * ===================================================================== *
 *
 * An sk_executor connects to the node monitor of its machine (transport
 * role "executor") and registers for one framework name. The node monitor
 * then hands it the tasks of jobs submitted with that framework
 * (ec_launch); the executor runs each however it likes and reports the end
 * with sk_executor_finish. ec_kill asks it to stop a task early; it still
 * reports the end (normally SK_OUTCOME_KILLED) with sk_executor_finish.
 *
 * Job ids seen here are the node monitor's local ids for the jobs (two
 * schedulers may number jobs alike; the node monitor gives each of their
 * jobs its own id), neither the scheduler's nor the frontend's: frameworks
 * that need their own identifiers put them in the task spec. A task
 * attempt is named by (job, task, attempt).
 *
 * The role the peer gives in its answer to the handshake's HELLO is
 * checked: a peer that is not a node monitor (a scheduler at that
 * address, say) is not registered with; sk_executor_wait_registered
 * returns SK_EROLE and sk_executor_error says so ("tcp://...: that is a
 * scheduler, not a node monitor"), until a session with a node monitor
 * comes up at that endpoint.
 *
 * When the session with the node monitor ends, the node monitor reports
 * every task it had handed over as LOST; so the executor calls ec_kill for
 * each of its running tasks, forgets them, and registers again when the
 * node monitor is back (the transport reconnects by itself). The end of
 * a forgotten task (sk_executor_finish), and the reports sent in the
 * session's last two timeouts, are sent again if the same node monitor
 * process comes back (a stall or a cut shorter than outcome_keep_ms):
 * it offers those that ran to their end (OK, FAILED) to their
 * schedulers, which take them in place of the retries
 * (docs/FAULTS.md, "Executors"); a node monitor of another
 * incarnation gets none.
 *
 * Input from the node monitor is validated: a LAUNCH_TASK for another
 * framework is answered FAILED, one for an attempt already running, a
 * KILL_TASK for nothing running here, or a message an executor does not
 * take is counted and dropped.
 *
 * Threading and loops: as for sk_frontend (loop NULL: a private loop, run
 * by sk_executor_run).
 */

typedef struct sk_executor sk_executor;

/* Settings of an executor. Fill with sk_executor_opts_init. The strings
 * are copied by sk_executor_create. */
typedef struct sk_executor_opts {
    const char *eo_nodemon;    /* the node monitor's endpoint */
    const char *eo_framework;  /* 1..255 bytes */
    const char *eo_name;       /* 1..63 of [A-Za-z0-9._:-]; NULL: made up
                                  from the host name and process id */
    double eo_heartbeat;       /* transport heartbeat, seconds (default 1) */
    const char *eo_key_file;   /* the cluster's key file, or NULL (as
                                  fo_key_file) */
    const char *eo_token_file; /* an executor token file (`skylark user
                                  token FRAMEWORK --executor`, mode 0600),
                                  used instead of eo_key_file: it registers
                                  an executor of eo_framework with a node
                                  monitor and can do nothing else */
} sk_executor_opts;

/* sk_executor_opts_init fills o with the defaults and no endpoint or
 * framework. */
SK_API void sk_executor_opts_init(sk_executor_opts *o);

/* A task to run (ec_launch). Valid during the call only. */
typedef struct sk_launch_info {
    sk_job_id li_job; /* the node monitor's id for the job */
    uint32_t li_task;
    uint32_t li_attempt;
    const void *li_spec; /* the spec the frontend gave */
    uint32_t li_spec_len;
    const char *li_user;
    uint32_t li_cpu_milli; /* what the task may use */
    uint32_t li_mem_mb;
    uint64_t li_launch_us; /* when the executor received it, wall clock */
} sk_launch_info;

/* What an executor is told, all optional but ec_launch. ec_kill: stop
 * that attempt (or forget it: see above). ec_session: the registration
 * with the node monitor is up (1) or down (0). */
typedef struct sk_executor_callbacks {
    void (*ec_launch)(void *arg, const sk_launch_info *t);
    void (*ec_kill)(void *arg, sk_job_id job, uint32_t task, uint32_t attempt);
    void (*ec_session)(void *arg, int up);
    void *ec_arg;
} sk_executor_callbacks;

/* sk_executor_create makes an executor and starts connecting to the node
 * monitor; it registers (HELLO with the framework) each time a session
 * comes up. loop as for sk_frontend_create. Returns 0 with the executor
 * in *out; SK_EINVAL (no endpoint, a bad framework or name, no ec_launch);
 * SK_EIO (nanomsg refused the endpoint); SK_ENOMEM. */
SK_API int sk_executor_create(struct ev_loop *loop, const sk_executor_opts *o,
                              const sk_executor_callbacks *cb,
                              sk_executor **out);

/* sk_executor_destroy closes the session and frees the executor, with no
 * callback. The node monitor reports the tasks still running here as
 * LOST. NULL is a no-op. Not from inside a callback. */
SK_API void sk_executor_destroy(sk_executor *ex);

/* sk_executor_loop returns the loop the executor runs on. */
SK_API struct ev_loop *sk_executor_loop(sk_executor *ex);

/* sk_executor_finish reports the end of a running attempt: outcome
 * (normally OK, FAILED or KILLED), exit code, and output, of which the
 * last 4,096 bytes are kept (output may be NULL when len is 0). May be
 * called from inside ec_launch (a task that ends at once). Returns 0
 * (also for an attempt forgotten when the session ended, in the last
 * minute: its end is kept for the node monitor's return, see above);
 * SK_ENOTFOUND if that attempt is not running here (never launched,
 * already finished, or forgotten longer ago); SK_EINVAL for
 * an outcome out of range. The report is queued if the transport pushes
 * back, and dropped (counted) only if the session ends first. */
SK_API int sk_executor_finish(sk_executor *ex, sk_job_id job, uint32_t task,
                              uint32_t attempt, sk_outcome outcome,
                              int exit_code, const void *output, size_t len);

/* sk_executor_node_incarnation returns the incarnation (HELLO) of the
 * node monitor process the executor last registered with, 0 before the
 * first registration. A journal of the executor's tasks records it with
 * each task (`skylark executor --journal`), so that a later process of
 * the executor reports their ends to that same node monitor process
 * only (sk_executor_recovered). */
SK_API uint64_t sk_executor_node_incarnation(const sk_executor *ex);

/* sk_executor_recovered reports the end of an attempt that an earlier
 * process of this executor launched through the node monitor process of
 * incarnation nm_incarnation and could not report (it was killed as the
 * task ended; the end was read back from a journal): outcome OK or
 * FAILED, exit code, launch and end times (microseconds since the
 * epoch). Call it before the first registration: the report is sent when
 * this executor registers with that node monitor process, which offers
 * the outcome to the task's scheduler in place of the task's retry (or
 * ends the task, if its old session has not ended yet), and is dropped if
 * the node monitor is another process (it knows none of those attempts).
 * At most 1,023 such reports are kept (the oldest goes first). Returns 0,
 * SK_EINVAL (another outcome, incarnation 0), SK_ESTATE (after the first
 * registration, or for another incarnation than earlier calls), or
 * SK_ENOMEM. */
SK_API int sk_executor_recovered(sk_executor *ex, uint64_t nm_incarnation,
                                 sk_job_id job, uint32_t task, uint32_t attempt,
                                 sk_outcome outcome, int exit_code,
                                 uint64_t launch_us, uint64_t end_us);

/* sk_executor_wait_registered runs the loop until the registration is
 * up, at most timeout seconds (< 0: no limit). Returns 0, SK_ETIMEDOUT,
 * or SK_EROLE when the peer at the endpoint is not a node monitor. Not
 * from inside a callback. */
SK_API int sk_executor_wait_registered(sk_executor *ex, double timeout);

/* sk_executor_error describes the last thing that kept the executor from
 * registering, such as "tcp://127.0.0.1:7100: that is a scheduler, not a
 * node monitor"; "" if none. Valid until the next call on ex. */
SK_API const char *sk_executor_error(const sk_executor *ex);

/* sk_executor_run runs the loop for timeout seconds (< 0: until
 * sk_executor_stop). Returns 0 when stopped, SK_ETIMEDOUT when the time
 * is up. Not from inside a callback. */
SK_API int sk_executor_run(sk_executor *ex, double timeout);

/* sk_executor_stop makes sk_executor_run return after the current
 * callback. */
SK_API void sk_executor_stop(sk_executor *ex);

/* Counters of an executor. */
typedef struct sk_executor_stats {
    uint64_t es_sessions;    /* registrations that came up */
    uint64_t es_launched;    /* ec_launch calls */
    uint64_t es_finished;    /* reports sent */
    uint64_t es_killed;      /* ec_kill calls */
    uint64_t es_forgotten;   /* running tasks forgotten at session end */
    uint64_t es_dropped;     /* reports lost with the session */
    uint64_t es_bad_input;   /* dropped: wrong framework, duplicate
                                launch, kill of nothing, unexpected type */
    uint64_t es_undecodable; /* dropped before decoding */
    uint64_t es_wrong_role;  /* sessions with a peer that is not a node
                                monitor */
    uint64_t es_running;     /* gauge */
    int es_registered;       /* gauge */
} sk_executor_stats;

/* sk_executor_stats_get fills out. */
SK_API void sk_executor_stats_get(sk_executor *ex, sk_executor_stats *out);

/* ===================================================================== *
 * Status: what a daemon says about itself
 * ===================================================================== */

/* A daemon's answer to a status request: key/value pairs (counters,
 * gauges, settings) and one table (a scheduler's jobs, a node monitor's
 * users). Immutable; free with sk_status_free. */
typedef struct sk_status sk_status;

/* sk_status_fetch connects to the daemon at endpoint (transport role
 * "tool", no registration), asks for its status (with the table if
 * table is nonzero) and waits for the answer at most timeout seconds, on a
 * private loop (it blocks the calling thread). Returns 0 with the answer
 * in *out; SK_EINVAL (bad endpoint or timeout); SK_EIO; SK_ETIMEDOUT (no
 * answer: the daemon is down or busy); SK_ENOMEM. Any thread. */
SK_API int sk_status_fetch(const char *endpoint, double timeout, int table,
                           sk_status **out);

/* sk_status_fetch_keyed is sk_status_fetch over a session authenticated
 * with the cluster key in key_file (NULL: as sk_status_fetch). Also
 * returns SK_ECONFIG when the key file cannot be used, and SK_EREJECTED
 * when the daemon does not hold the same key (or has none). */
SK_API int sk_status_fetch_keyed(const char *endpoint, const char *key_file,
                                 double timeout, int table, sk_status **out);

/* sk_status_fetch_cred is sk_status_fetch_keyed with a user token file
 * instead (token_file not NULL wins over key_file): a scheduler then
 * lists that user's jobs only, unless the token is an admin's. */
SK_API int sk_status_fetch_cred(const char *endpoint, const char *key_file,
                                const char *token_file, double timeout,
                                int table, sk_status **out);

/* sk_status_query is sk_status_fetch_keyed asking a query instead of the
 * status (query "" is the status): at most 255 bytes, answered as a
 * status whose pairs and table depend on the query. skylark-flowd knows
 * "flow-dump", "flow-dump ID OFFSET", "explain [SCHED/]JOB TASK", "jobs"
 * and "users" (docs/PROTOCOL.md, STATUS_REQUEST) and answers a query it
 * does not know with the pair "error"; schedulers and node monitors know
 * none and answer their status. Also returns SK_EINVAL for a query that is
 * too long. */
SK_API int sk_status_query(const char *endpoint, const char *key_file,
                           const char *query, double timeout, int table,
                           sk_status **out);

/* sk_admin_cancel asks the scheduler at endpoint to cancel its job `job`
 * (the scheduler's own id, the `job` column of its status table), as an
 * operator rather than as the frontend that submitted it: the frontend
 * gets its tasks' outcomes CANCELLED as if it had cancelled the job
 * itself. The session is authenticated with the cluster key in key_file
 * (NULL: none); docs/DAEMONS.md §3 says who may cancel. Waits at most
 * timeout seconds for the scheduler's answer. Returns 0 (cancelled);
 * SK_EREJECTED with the scheduler's reason in why (no such job in flight,
 * not permitted) or the session refused (another key); SK_EINVAL,
 * SK_ECONFIG, SK_EIO, SK_ETIMEDOUT (no answer: not a scheduler, or one
 * too old to answer), SK_ENOMEM. why (whylen bytes, may be NULL) gets a
 * reason on every failure. Blocks the calling thread; any thread. */
SK_API int sk_admin_cancel(const char *endpoint, const char *key_file,
                           uint64_t job, double timeout, char *why,
                           size_t whylen);

/* sk_status_free releases s. NULL is a no-op. */
SK_API void sk_status_free(sk_status *s);

/* The daemon's role ("scheduler", "nodemon", "flowd", "frontend",
 * "executor"), its name, and the time of the answer (its wall clock, us
 * since the epoch). */
SK_API const char *sk_status_role(const sk_status *s);
SK_API const char *sk_status_name(const sk_status *s);
SK_API uint64_t sk_status_time_us(const sk_status *s);

/* The key/value pairs, in the daemon's order: sk_status_nkv of them;
 * sk_status_key and sk_status_value return NULL for i out of range.
 * sk_status_get returns the value of key, or NULL. */
SK_API unsigned sk_status_nkv(const sk_status *s);
SK_API const char *sk_status_key(const sk_status *s, unsigned i);
SK_API const char *sk_status_value(const sk_status *s, unsigned i);
SK_API const char *sk_status_get(const sk_status *s, const char *key);

/* The table: its columns and rows; NULL for indices out of range. */
SK_API unsigned sk_status_ncolumns(const sk_status *s);
SK_API const char *sk_status_column(const sk_status *s, unsigned col);
SK_API unsigned sk_status_nrows(const sk_status *s);
SK_API const char *sk_status_cell(const sk_status *s, unsigned row,
                                  unsigned col);

#ifdef __cplusplus
}
#endif

#endif /* SKYLARK_H */
