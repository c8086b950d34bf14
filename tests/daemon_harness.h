/*
 * daemon_harness.h - what the integration tests use to run real
 * skylark-sched, skylark-nodemon and skylark-flowd processes on loopback:
 * starting them on free ports with their logs in a temporary folder,
 * signalling and waiting for them, killing every one of them however the
 * test ends (atexit, and PR_SET_PDEATHSIG if the test itself dies), and a test
 * client on sk_link that plays frontend and status tool: it submits jobs,
 * records every JOB_ACCEPTED, TASK_STARTED, TASK_FINISHED and JOB_DONE per
 * task, and asks daemons for their STATUS_REPLY.
 *
 * The daemons are found under $top_builddir (set by `make check`), or
 * the current folder.
 */
#ifndef DAEMON_HARNESS_H
#define DAEMON_HARNESS_H

#include "sk_link.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- processes ---------------------------------------------------------- */

/* One daemon (or any program) started by the test. */
typedef struct dh_proc {
    pid_t dp_pid;         /* 0 once reaped */
    int dp_status;        /* waitpid status once reaped */
    char dp_log[512];     /* its stdout and stderr */
    char dp_endpoint[96]; /* where it listens */
    char dp_name[64];
} dh_proc;

/* dh_init makes the temporary folder, finds the daemons and registers the
 * clean-up. Bails out of the test when it cannot. */
void dh_init(void);

/* dh_dir returns the temporary folder (removed at exit). */
const char *dh_dir(void);

/* dh_sched_path, dh_nodemon_path, dh_flowd_path: the daemon binaries
 * (skylark-flowd is looked for only when a test starts it). */
const char *dh_sched_path(void);
const char *dh_nodemon_path(void);
const char *dh_flowd_path(void);

/* dh_spawn starts argv[0] with argv, stdout and stderr appended to
 * dh_dir()/log_name. Returns 0 or -1. */
int dh_spawn(dh_proc *p, const char *log_name, char *const argv[]);

/* dh_set_child_hook makes every later dh_spawn call hook(arg) in the
 * child, after fork and before exec (tests/netns.c enters a network
 * namespace there); a hook that returns nonzero makes the child exit
 * 127. hook NULL removes it. The hook must be async-signal-safe. */
void dh_set_child_hook(int (*hook)(void *), void *arg);

/* dh_set_heartbeat sets the transport heartbeat (seconds) and misses of
 * the daemons and clients started after it: a peer silent for their
 * product is down. Default 1 s and 3: the tests share loaded machines,
 * where a tighter bound declares busy peers dead. */
void dh_set_heartbeat(double seconds, int misses);

/* dh_start_sched starts a scheduler named name with id on a free port,
 * with the heartbeat of dh_set_heartbeat, with the extra arguments
 * (NULL-terminated, may be NULL), and waits until it listens. Returns 0 or -1.
 */
int dh_start_sched(dh_proc *p, const char *name, int id,
                   const char *const *extra);

/* dh_start_nodemon starts a node monitor with slots slots, connected to
 * the n schedulers, on a free port, with the heartbeat of
 * dh_set_heartbeat, plus extra (may be
 * NULL), and waits until it listens. Returns 0 or -1. */
int dh_start_nodemon(dh_proc *p, const char *name, int id, int slots,
                     const dh_proc *const *scheds, int n,
                     const char *const *extra);

/* dh_start_two_scheds starts schedulers "s1" and "s2" (ids 1 and 2) in
 * scheds[0..1] and n node monitors "n1".."nN" (ids 1..n) of slots slots
 * in nodes[0..n), each registered with both schedulers. Bails out of the
 * test when one does not start. */
void dh_start_two_scheds(dh_proc scheds[2], dh_proc *nodes, int n, int slots);

/* dh_start_sched_at, dh_start_nodemon_at: the same, listening on listen
 * (any endpoint, kept in dp_endpoint), the node monitor connected to the
 * n scheduler endpoints scheds. */
int dh_start_sched_at(dh_proc *p, const char *name, int id, const char *listen,
                      const char *const *extra);
int dh_start_nodemon_at(dh_proc *p, const char *name, int id, int slots,
                        const char *listen, const char *const *scheds, int n,
                        const char *const *extra);

/* dh_start_flowd starts a flow node named name on a free port, with the
 * heartbeat of dh_set_heartbeat, plus extra (NULL-terminated, may be
 * NULL), and waits until it listens. Schedulers and node monitors reach
 * it with "--flowd", p->dp_endpoint in their extra. Returns 0 or -1. */
int dh_start_flowd(dh_proc *p, const char *name, const char *const *extra);

/* dh_start_flowd_at: the same, listening on listen (a restart on the
 * endpoint its peers know). */
int dh_start_flowd_at(dh_proc *p, const char *name, const char *listen,
                      const char *const *extra);

/* dh_wait_exit waits up to timeout seconds for p to exit. Returns 1 (its
 * status in dp_status) or 0. */
int dh_wait_exit(dh_proc *p, double timeout);

/* dh_kill sends SIGKILL to p and reaps it. */
void dh_kill(dh_proc *p);

/* dh_log_has tells whether the log of p contains text. */
bool dh_log_has(const dh_proc *p, const char *text);

/* dh_log_tail prints the last lines of p's log as TAP diagnostics. */
void dh_log_tail(const dh_proc *p, int lines);

/* dh_write_file writes text to dh_dir()/name and returns the path
 * (static buffer, overwritten by the next call). */
const char *dh_write_file(const char *name, const char *text);

/* dh_sh runs a shell command line; its stderr and stdout go to out (at
 * most size bytes, NUL-terminated). Returns its exit status (-1 if it did
 * not exit), and the seconds it took in *secs if not NULL. */
int dh_sh(const char *cmd, char *out, size_t size, double *secs);

/* ---- the test client ---------------------------------------------------- */

#define DH_MAX_JOBS 16
#define DH_MAX_KV   512

/* What the client saw of one job it submitted. */
typedef struct dh_job {
    uint64_t jb_id;
    uint32_t jb_ntasks;
    int jb_accepted, jb_rejected;
    char jb_reason[SK_MAX_REASON_LEN + 1];
    uint32_t *jb_started;  /* TASK_STARTED per task */
    uint32_t *jb_finished; /* TASK_FINISHED per task */
    uint8_t *jb_status;    /* last tf_status per task */
    int32_t *jb_exit;      /* last tf_exit per task */
    uint32_t *jb_attempt;  /* last tf_attempt per task */
    char **jb_output;      /* last tf_output per task (NUL-terminated) */
    int jb_done;           /* JOB_DONE received (count) */
    sk_job_done jb_summary;
} dh_job;

/* A STATUS_REPLY, copied. */
typedef struct dh_status {
    int st_ok;
    uint32_t st_nkv;
    char *st_key[DH_MAX_KV];
    char *st_value[DH_MAX_KV];
    uint32_t st_nrows;
} dh_status;

typedef struct dh_client dh_client;

/* dh_set_key_file makes the clients created after it hold the cluster
 * key in path (sk_keyfile_read), as keyed daemons require; NULL: no key.
 * Bails out when the file is refused. */
void dh_set_key_file(const char *path);

/* dh_set_token_file makes the clients created after it authenticate
 * with the user token in path (sk_token.h) instead of the key; NULL: the
 * key again. Bails out when the file is refused. */
void dh_set_token_file(const char *path);

/* dh_client_new makes a client (its own libev loop and sk_link) with the
 * transport identity (role, name) and the heartbeat of dh_set_heartbeat.
 * Bails out on error. */
dh_client *dh_client_new(const char *role, const char *name);

/* dh_client_free destroys the client (goodbye to its peers). */
void dh_client_free(dh_client *c);

/* dh_client_connect connects to endpoint and waits until the session is
 * up. Returns the peer id, or 0 after timeout seconds. */
sk_peer_id dh_client_connect(dh_client *c, const char *endpoint,
                             double timeout);

/* dh_client_hello sends HELLO with role (SK_ROLE_*) to peer; an
 * executor's carries the framework of dh_client_executor. */
int dh_client_hello(dh_client *c, sk_peer_id peer, uint8_t role);

/* dh_client_send sends msg to peer. Returns sk_link_send's result. */
int dh_client_send(dh_client *c, sk_peer_id peer, const sk_msg *msg);

/* dh_client_submit submits job id of ntasks copies of the command cmd
 * (as a NUL-terminated spec) for user, with max_attempts, and starts
 * recording it. Returns its record, or NULL. */
dh_job *dh_client_submit(dh_client *c, sk_peer_id sched, uint64_t id,
                         uint32_t ntasks, const char *cmd, const char *user,
                         uint32_t max_attempts);

/* dh_client_submit_long is dh_client_submit for a long job (placed by
 * the flow node). */
dh_job *dh_client_submit_long(dh_client *c, sk_peer_id sched, uint64_t id,
                              uint32_t ntasks, const char *cmd,
                              const char *user, uint32_t max_attempts);

/* dh_job_all_started (a dh_client_run condition on a dh_job *): every
 * task of the job has a TASK_STARTED. */
int dh_job_all_started(void *job);

/* dh_ledger_count reads a ledger of "start I" and "end I" lines (tasks
 * I below ntasks; others ignored): starts, ends, and tasks started more
 * than once. A missing file counts nothing. */
void dh_ledger_count(const char *path, uint32_t ntasks, uint32_t *starts,
                     uint32_t *ends, uint32_t *twice);

/* dh_client_track starts recording job id of ntasks tasks that the test
 * submits itself (with dh_client_send). */
dh_job *dh_client_track(dh_client *c, uint64_t id, uint32_t ntasks);

/* dh_client_run runs the client's loop until cond(arg) or timeout
 * seconds. Returns 1 if cond held. */
int dh_client_run(dh_client *c, int (*cond)(void *), void *arg, double timeout);

/* dh_client_run_for runs the loop for seconds. */
void dh_client_run_for(dh_client *c, double seconds);

/* dh_job_wait_done runs until job has its JOB_DONE or the accept was
 * refused. Returns 1 on JOB_DONE. */
int dh_job_wait_done(dh_client *c, dh_job *job, double timeout);

/* dh_client_status asks peer for its status (with the table if table)
 * and waits for the reply into *st (st_ok 0 on timeout). */
void dh_client_status(dh_client *c, sk_peer_id peer, bool table, dh_status *st,
                      double timeout);

/* dh_wait_status asks peer for its status every 20 ms until key has
 * the value want. Returns 1, or 0 after timeout seconds (*last, if not
 * NULL, gets the last value seen, -1 if none). */
int dh_wait_status(dh_client *c, sk_peer_id peer, const char *key, int64_t want,
                   double timeout, int64_t *last);

/* dh_status_int returns the value of key as an integer, or -1. */
int64_t dh_status_int(const dh_status *st, const char *key);

/* dh_status_str returns the value of key, or NULL. */
const char *dh_status_str(const dh_status *st, const char *key);

/* dh_status_free releases the copy. */
void dh_status_free(dh_status *st);

/* Executor mode: the client records every LAUNCH_TASK and KILL_TASK it
 * receives (it registers with dh_client_hello(..., SK_ROLE_EXECUTOR)).
 * With auto_finish it answers each launch at once with TASK_FINISHED OK,
 * output "ran"; without, a task runs until its KILL_TASK, answered with
 * TASK_FINISHED KILLED. */
void dh_client_executor(dh_client *c, const char *framework, bool auto_finish);

/* Launches and kills an executor client received so far. */
uint32_t dh_client_launches(const dh_client *c);
uint32_t dh_client_kills(const dh_client *c);

/* dh_client_downs counts the peer-down events the client saw. */
int dh_client_downs(const dh_client *c);

#endif /* DAEMON_HARNESS_H */
