/*
 * nm_taskexec.c - the last steps of a command task's start
 * (nm_taskexec.h).
 */
#include "nm_taskexec.h"
#include "nm_guard.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const STEP_NAMES[NM_STEPS] = {
    "clone", "setpgid",   "stdio", "setgroups", "setgid", "setuid",
    "chdir", "setrlimit", "exec",  "cgroup",    "keeper",
};

const char *nm_step_name(int step)
{
    return step >= 0 && step < NM_STEPS ? STEP_NAMES[step] : "?";
}

static void put(int efd, int step, int value)
{
    nm_exec_err e = {step, value};
    ssize_t n;
    do
        n = write(efd, &e, sizeof e);
    while (n < 0 && errno == EINTR);
}

void nm_exec_fail(int efd, int step)
{
    put(efd, step, errno);
    _exit(127);
}

void nm_task_exec_now(const nm_task_exec *te, int efd, int *told)
{
    if (setpgid(0, 0) != 0)
        nm_exec_fail(efd, NM_STEP_SETPGID);
    int ok = nm_guard_tell(te->te_guard, (pid_t)syscall(SYS_getpid), 1) == 0;
    if (told != NULL)
        *told = ok;
    else if (!ok)
        put(efd, NM_STEP_UNGUARDED, 0);
    const nm_ident *id = te->te_id;
    if (id != NULL) {
        if (syscall(SYS_setgroups, (size_t)id->id_ngroups, id->id_groups) != 0)
            nm_exec_fail(efd, NM_STEP_SETGROUPS);
        if (syscall(SYS_setresgid, id->id_gid, id->id_gid, id->id_gid) != 0)
            nm_exec_fail(efd, NM_STEP_SETGID);
        if (syscall(SYS_setresuid, id->id_uid, id->id_uid, id->id_uid) != 0)
            nm_exec_fail(efd, NM_STEP_SETUID);
        /* Paranoia: a switch that could be undone is no switch. */
        if (id->id_uid != 0 && syscall(SYS_setuid, 0) == 0) {
            errno = EPERM;
            nm_exec_fail(efd, NM_STEP_SETUID);
        }
        if (chdir(id->id_home) != 0 && chdir("/") != 0)
            nm_exec_fail(efd, NM_STEP_CHDIR);
    }
    if (te->te_as_bytes > 0) {
        struct rlimit rl = {(rlim_t)te->te_as_bytes, (rlim_t)te->te_as_bytes};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            nm_exec_fail(efd, NM_STEP_RLIMIT);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char *argv[] = {"sh", "-c", (char *)te->te_cmd, NULL};
    execve(te->te_shell, argv, te->te_env);
    nm_exec_fail(efd, NM_STEP_EXEC);
}
