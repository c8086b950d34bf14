/*
 * nm_taskexec.h - the last steps of a command task's start, shared by the
 * command executor's child (nm_cmdexec.c) and the task keeper
 * (skylark-keeper, nm_keeper.c): a process group of its own, told to the
 * task guard (nm_guard.h), the account switch, the memory limit, plain
 * signals and the exec of `SHELL -c COMMAND`.
 *
 * A step that fails writes an nm_exec_err record (the step, errno) into
 * the error pipe and exits 127; a successful exec closes the pipe (it is
 * close-on-exec), which is how the starter learns that the task runs.
 * The same pipe carries the keeper's other records (NM_STEP_PID,
 * NM_STEP_UNGUARDED).
 *
 * Everything here runs between a fork (or a vfork-like clone that shares
 * the daemon's memory) and exec: it allocates nothing, looks up no name,
 * and changes ids with raw system calls (glibc's setuid would make every
 * thread of the daemon change too).
 */
#ifndef NM_TASKEXEC_H
#define NM_TASKEXEC_H

#include "nm_account.h"

#include <stdint.h>
#include <sys/types.h>

/* Steps of a start, as recorded in nm_exec_err.ee_step. */
enum {
    NM_STEP_CLONE,
    NM_STEP_SETPGID,
    NM_STEP_STDIO,
    NM_STEP_SETGROUPS,
    NM_STEP_SETGID,
    NM_STEP_SETUID,
    NM_STEP_CHDIR,
    NM_STEP_RLIMIT,
    NM_STEP_EXEC,
    NM_STEP_CGROUP,
    NM_STEP_KEEPER, /* the keeper could not start the task (fork, args) */
    NM_STEPS,
    /* Not failures: the keeper's task runs as ee_errno (its pid, the
     * leader of the task's process group); the guard was not told. */
    NM_STEP_PID = 100,
    NM_STEP_UNGUARDED = 101,
};

/* nm_step_name names a failed step ("exec"), or "?" for another value. */
const char *nm_step_name(int step);

/* One record in the error pipe. */
typedef struct nm_exec_err {
    int ee_step;
    int ee_errno;
} nm_exec_err;

/* What the task becomes. */
typedef struct nm_task_exec {
    const char *te_shell; /* absolute path */
    const char *te_cmd;
    char **te_env;
    const nm_ident *te_id; /* NULL: stay this process's user */
    uint64_t te_as_bytes;  /* RLIMIT_AS, 0: unchanged */
    int te_guard;          /* the guard's descriptor, or -1 */
} nm_task_exec;

/* nm_exec_fail writes (step, errno) into efd and exits 127. */
void nm_exec_fail(int efd, int step) __attribute__((noreturn));

/* nm_task_exec_now makes this process the task te: its own process group
 * (told to the guard before anything of the task runs: *told is set to 1
 * if the guard was told, or, with told NULL, a guard that could not be
 * told is recorded as NM_STEP_UNGUARDED in efd), the account, the limit,
 * every signal unblocked, then exec.
 * Signal dispositions, stdio and descriptors are the caller's. Never
 * returns: on failure it reports the step into efd (nm_exec_fail). */
void nm_task_exec_now(const nm_task_exec *te, int efd, int *told)
    __attribute__((noreturn));

#endif /* NM_TASKEXEC_H */
