/*
 * nm_cmdexec.h - the node monitor's built-in command executor: it runs the
 * tasks of framework "" (the peer NM_PEER_COMMAND of nm_core.h) as shell
 * commands on this machine.
 *
 * A task's spec is its command line as a NUL-terminated string (the last
 * byte is the only NUL; at least one byte before it). It runs as
 * `SHELL -c COMMAND` in a process group of its own, stdin from /dev/null,
 * stdout and stderr into one pipe of which the last SK_MAX_OUTPUT_BYTES
 * are kept, with the daemon's environment plus SKYLARK_JOB_ID,
 * SKYLARK_TASK_INDEX, SKYLARK_ATTEMPT, SKYLARK_USER and SKYLARK_NODE,
 * as the account cx_accounts gives its user (see below), with RLIMIT_AS
 * (soft and hard) set to its memory request lt_res.r_mem_mb MiB when
 * that is not 0 (unless its cgroup enforces memory.max instead).
 * With cx_cgroup each task runs in a cgroup of its own (nm_cgroup.h),
 * which its child joins before exec; when the shell exits, or a kill's
 * grace is over, every process in the cgroup is killed, not only those
 * of the process group, and an out-of-memory kill in it makes the task
 * FAILED with the reason at the end of its output.
 * When the command's shell exits, whatever is left in its process group
 * is killed (SIGKILL) and the attempt ends:
 *   - exit code 0: OK; other exit code n: FAILED with tf_exit n;
 *   - killed by signal s: FAILED with tf_exit -s;
 *   - after nm_cmdexec_kill: KILLED, with the exit code or -signal;
 *   - a spec that is not a command, too many tasks at once, a user with
 *     no account ("no account for user U on node N"), or a failed start
 *     (clone, account switch, limit, exec): FAILED at once, tf_exit -1,
 *     the reason in tf_output.
 * Every launch produces exactly one result. A kill sends SIGTERM to the
 * task's process group, and SIGKILL after the grace period if the shell
 * has not exited by then.
 *
 * The executor watches SIGCHLD on the loop it is given (an ev_signal, so
 * the loop must be the only one in the process watching SIGCHLD, and no
 * one else may reap this process's children) and each task's pipe. It
 * never calls into the node monitor core: results wait in a queue, the
 * `ready` callback says when some arrived from the loop's watchers, and
 * the daemon takes them with nm_cmdexec_next (also after each launch,
 * since a launch may fail at once without a callback).
 *
 * With a journal (cx_journal) the task's shell is the child of its keeper,
 * a process of its own outside the task's process group, and the task's
 * record in the journal (nm_journal.h) says whose task it is and how it
 * ended; the record is removed when its result has been taken, or, for
 * a task launched with an origin that ran to its end, the journal's
 * linger time later.
 *
 * Costs: a launch is one clone (a vfork: no memory copied) and exec plus
 * two pipes (with a cgroup, also a mkdir, a write per limit, and at the
 * end a cgroup.kill and an rmdir; with a journal, a file written and
 * removed), and waits for the task to reach exec, like posix_spawn (with
 * a journal, for the keeper's exec only: the keeper's fork and the
 * task's start run while the loop goes on, the keeper's word of the
 * task's pid read from a pipe on the loop, a kill asked for before it
 * applied when it comes); a task's exit is O(tasks running) to find it. Memory:
 * one record of about 4.5 KiB per task running or waiting to be taken,
 * recycled, and a 64 KiB stack for children between clone and exec.
 *
 * Threading: one thread, the loop's.
 */
#ifndef NM_CMDEXEC_H
#define NM_CMDEXEC_H

#include "nm_account.h"
#include "nm_cgroup.h"
#include "nm_journal.h"
#include "sk_core.h"
#include "sk_proto.h"

#include <stdint.h>

struct ev_loop;

/* Settings. */
typedef struct nm_cmdexec_config {
    char cx_shell[256];       /* absolute path of the shell, "/bin/sh" */
    int64_t cx_kill_grace_ms; /* SIGTERM, then SIGKILL after this */
    uint32_t cx_max_children; /* tasks running at once (the slots) */
    char cx_node[SK_MAX_NAME_LEN + 1]; /* SKYLARK_NODE of every task */
    /* Who runs a user's task (nm_account.h; outlives the executor).
     * NULL: every task runs as this process, in its directory, as when
     * the node monitor is not root. Otherwise the child switches to the
     * user's account (groups, gid, uid), goes to its home (or /) and gets
     * its HOME, USER and LOGNAME; a user without one fails at once. */
    const nm_accounts *cx_accounts;
    /* The tasks' cgroups (nm_cgroup.h; outlives the executor), or NULL:
     * tasks are confined by their process group and RLIMIT_AS only. A
     * task whose cgroup cannot be made fails at once. */
    nm_cgroup *cx_cgroup;
    /* The journal (nm_journal.h; outlives the executor), or NULL. With
     * one, each task gets a record and runs under its keeper, the
     * program at cx_keeper (nm_keeper.c), which appends the task's end
     * to the record; a task whose record cannot be made runs without. */
    nm_journal *cx_journal;
    char cx_keeper[4096];
} nm_cmdexec_config;

/* Counters. */
typedef struct nm_cmdexec_stats {
    uint64_t cs_started;      /* commands spawned */
    uint64_t cs_ok;           /* results OK */
    uint64_t cs_failed;       /* results FAILED (ran, or could not start) */
    uint64_t cs_killed;       /* results KILLED */
    uint64_t cs_bad_spec;     /* failed at once: the spec is not a command */
    uint64_t cs_busy;         /* failed at once: max_children running */
    uint64_t cs_duplicate;    /* failed at once: that attempt already runs */
    uint64_t cs_spawn_failed; /* failed at once: pipe, clone, the switch
                                 of account or exec failed */
    uint64_t cs_no_account;   /* failed at once: the user maps to no
                                 account (cx_accounts) */
    uint64_t cs_kills;        /* kills applied */
    uint64_t cs_kill_unknown; /* kills for no task running here */
    uint64_t cs_stray;        /* reaped children that were not tasks */
    uint64_t cs_output_bytes; /* output read from all tasks */
    uint64_t cs_guard_lost;   /* task starts and ends the guard missed */
    uint64_t cs_oom;          /* tasks failed by their cgroup's OOM kill */
    uint32_t cs_running;      /* tasks running now */
} nm_cmdexec_stats;

typedef struct nm_cmdexec nm_cmdexec;

/* nm_cmdexec_config_init fills cfg with the defaults: /bin/sh, a grace of
 * 3000 ms, 1 child, node "node". */
void nm_cmdexec_config_init(nm_cmdexec_config *cfg);

/* nm_cmdexec_create makes an executor on loop (which outlives it) with a
 * copy of cfg, and starts watching SIGCHLD. ready(arg) runs on the loop
 * when results have been queued by a task's end. Copies the process's
 * environment (minus any SKYLARK_* variables it sets itself). Returns 0,
 * SK_EINVAL (a relative shell path, no children allowed, a negative
 * grace) or SK_ENOMEM. */
int nm_cmdexec_create(struct ev_loop *loop, const nm_cmdexec_config *cfg,
                      void (*ready)(void *arg), void *arg, nm_cmdexec **out);

/* nm_cmdexec_destroy kills (SIGKILL) the process group of every task
 * still running, stops the watchers and frees everything; queued results
 * are discarded. Children are not waited for. NULL is a no-op. */
void nm_cmdexec_destroy(nm_cmdexec *x);

/* nm_cmdexec_launch starts the task lt (the attempt lt_job, lt_task,
 * lt_attempt) at time now (microseconds since the epoch), for origin
 * (whose task it is, for the journal's record; NULL: no job key).
 * Whatever happens, exactly one result for it will come out of
 * nm_cmdexec_next: later when it ends, or at once if it could not start.
 * lt and origin are not referenced after the call. */
void nm_cmdexec_launch(nm_cmdexec *x, const sk_launch *lt,
                       const nm_origin *origin, sk_time now);

/* nm_cmdexec_kill stops the attempt kt names (kt_task SK_TASK_ANY: every
 * task of the job kt_job): SIGTERM to its process group now, SIGKILL
 * after the grace. Its result, KILLED, comes when its shell has exited.
 * Returns the number of tasks it applied to (0: none runs; counted). */
uint32_t nm_cmdexec_kill(nm_cmdexec *x, const sk_kill_task *kt);

/* nm_cmdexec_signal_all sends sig to the process group of every running
 * task (shutdown: SIGTERM first, then SIGKILL). */
void nm_cmdexec_signal_all(nm_cmdexec *x, int sig);

/* nm_cmdexec_next takes the oldest queued result into *out. Returns 1,
 * or 0 if there is none. tf_node is "" (the core fills in the node);
 * tf_output points into the executor and stays valid until the next call
 * of nm_cmdexec_next or nm_cmdexec_destroy. */
int nm_cmdexec_next(nm_cmdexec *x, sk_task_finished *out);

/* nm_cmdexec_stats_get returns the counters. */
const nm_cmdexec_stats *nm_cmdexec_stats_get(const nm_cmdexec *x);

#endif /* NM_CMDEXEC_H */
