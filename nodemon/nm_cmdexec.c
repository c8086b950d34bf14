/*
 * nm_cmdexec.c - the built-in command executor: clone (a vfork) and exec of
 * `SHELL -c COMMAND` in its own process group (as the task's account and
 * under its memory limit), the output tail read from a pipe, SIGCHLD
 * reaping without blocking the loop, kills with a grace.
 */
#include "nm_cmdexec.h"
#include "nm_guard.h"
#include "nm_journal.h"
#include "nm_taskexec.h"
#include "sk_log.h"
#include "skylark.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define OUT_CAP SK_MAX_OUTPUT_BYTES

/* The stack of a child between clone and exec: it calls only system
 * call wrappers. */
#define SPAWN_STACK (64 * 1024)

/* The variables every task gets, in the order of env_fill. */
static const char *const ENV_NAMES[] = {
    "SKYLARK_JOB_ID=", "SKYLARK_TASK_INDEX=", "SKYLARK_ATTEMPT=",
    "SKYLARK_USER=",   "SKYLARK_NODE=",
};
#define NENV          (sizeof ENV_NAMES / sizeof ENV_NAMES[0])
#define ENV_VALUE_MAX (SK_MAX_NAME_LEN + 1)

typedef struct cx_child cx_child;

/* One task: running, or ended and waiting in the result queue. */
struct cx_child {
    cx_child *c_next; /* running list, result queue or free list */
    cx_child *c_prev; /* running list only */
    nm_cmdexec *c_x;
    pid_t c_pid;      /* our child: the shell, or the task's keeper */
    pid_t c_group;    /* the task's process group (its shell's pid); 0
                         until a keeper has said it */
    int c_efd;        /* a keeper's records (read end), -1 once closed */
    ev_io c_eio;      /* on c_efd */
    bool c_linger;    /* a journal record to keep a while after the end */
    bool c_record;    /* a journal record to remove */
    int c_fd;         /* read end of the output pipe, -1 once closed */
    ev_io c_io;       /* on c_fd */
    ev_timer c_grace; /* SIGKILL when a kill's grace is over */
    bool c_killing;   /* a kill was applied */
    uint64_t c_job;
    uint32_t c_task;
    uint32_t c_attempt;
    sk_time c_launch_us;
    sk_time c_end_us;
    uint8_t c_status;
    int32_t c_exit;
    uint32_t c_mem_mb;             /* the memory request, for a reason */
    char c_cg[NM_CGROUP_NAME_LEN]; /* its cgroup ("": none) */
    uint32_t c_out_len;            /* bytes kept, <= OUT_CAP */
    uint32_t c_out_pos;            /* where the next byte goes */
    uint8_t c_out[OUT_CAP];
};

struct nm_cmdexec {
    struct ev_loop *x_loop;
    nm_cmdexec_config x_cfg;
    void (*x_ready)(void *arg);
    void *x_arg;
    ev_signal x_sigchld;
    ev_timer x_sweep;    /* removes busy cgroups (nm_cgroup_sweep) */
    cx_child *x_running; /* doubly linked */
    cx_child *x_done_head, *x_done_tail;
    cx_child *x_free;
    cx_child *x_taken; /* the result last handed out, recycled next call */
    char **x_env;      /* the daemon's environment, then NENV, then NULL */
    size_t x_nbase;    /* inherited entries at the front of x_env */
    /* For a task run as another account: x_env without HOME, USER and
     * LOGNAME, then NENV, then the account's three, then NULL. */
    char **x_envsw;
    size_t x_nswbase; /* inherited entries at the front of x_envsw */
    char x_envbuf[NENV][32 + ENV_VALUE_MAX];
    uint8_t x_outbuf[OUT_CAP]; /* the output of x_taken, in order */
    nm_cmdexec_stats x_st;
    int x_guard; /* nm_guard.h: kills our tasks if we die; -1 without */
    /* The keeper's arguments (kept_argv), built before each start. */
    char x_karg[5][24];
    char x_kgroups[NM_MAX_GROUPS * 11 + 1];
    _Alignas(16) char x_stack[SPAWN_STACK]; /* see spawn */
};

void nm_cmdexec_config_init(nm_cmdexec_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->cx_shell, sizeof cfg->cx_shell, "/bin/sh");
    cfg->cx_kill_grace_ms = 3000;
    cfg->cx_max_children = 1;
    snprintf(cfg->cx_node, sizeof cfg->cx_node, "node");
}

/* ---- records ------------------------------------------------------------ */

static cx_child *child_alloc(nm_cmdexec *x)
{
    cx_child *c = x->x_free;
    if (c != NULL)
        x->x_free = c->c_next;
    else if ((c = malloc(sizeof *c)) == NULL)
        return NULL;
    c->c_next = c->c_prev = NULL;
    c->c_x = x;
    c->c_pid = 0;
    c->c_group = 0;
    c->c_efd = -1;
    c->c_linger = false;
    c->c_record = false;
    c->c_fd = -1;
    c->c_killing = false;
    c->c_out_len = 0;
    c->c_out_pos = 0;
    c->c_status = 0;
    c->c_exit = 0;
    c->c_end_us = 0;
    c->c_cg[0] = '\0';
    return c;
}

static void child_recycle(nm_cmdexec *x, cx_child *c)
{
    c->c_next = x->x_free;
    x->x_free = c;
}

static void out_append(cx_child *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (len >= OUT_CAP) {
        p += len - OUT_CAP;
        len = OUT_CAP;
    }
    while (len > 0) {
        size_t n = OUT_CAP - c->c_out_pos;
        if (n > len)
            n = len;
        memcpy(c->c_out + c->c_out_pos, p, n);
        c->c_out_pos = (uint32_t)((c->c_out_pos + n) % OUT_CAP);
        c->c_out_len =
            c->c_out_len + n > OUT_CAP ? OUT_CAP : (uint32_t)(c->c_out_len + n);
        p += n;
        len -= n;
    }
}

static void done_push(nm_cmdexec *x, cx_child *c)
{
    c->c_next = NULL;
    if (x->x_done_tail != NULL)
        x->x_done_tail->c_next = c;
    else
        x->x_done_head = c;
    x->x_done_tail = c;
    if (c->c_status == SK_TASK_OK)
        x->x_st.cs_ok++;
    else if (c->c_status == SK_TASK_KILLED)
        x->x_st.cs_killed++;
    else
        x->x_st.cs_failed++;
}

static void running_remove(nm_cmdexec *x, cx_child *c)
{
    if (c->c_prev != NULL)
        c->c_prev->c_next = c->c_next;
    else
        x->x_running = c->c_next;
    if (c->c_next != NULL)
        c->c_next->c_prev = c->c_prev;
    c->c_next = c->c_prev = NULL;
    x->x_st.cs_running--;
}

/* A task that could not start: its result is queued at once. */
static void fail_now(nm_cmdexec *x, const sk_launch *lt, sk_time now,
                     uint64_t *counter, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void fail_now(nm_cmdexec *x, const sk_launch *lt, sk_time now,
                     uint64_t *counter, const char *fmt, ...)
{
    (*counter)++;
    cx_child *c = child_alloc(x);
    if (c == NULL) {
        /* Without memory for the record the result is lost; the core's
         * own timeouts are all that is left to notice. */
        sk_error("command executor: out of memory: result of job %llu "
                 "task %u lost",
                 (unsigned long long)lt->lt_job, lt->lt_task);
        return;
    }
    c->c_job = lt->lt_job;
    c->c_task = lt->lt_task;
    c->c_attempt = lt->lt_attempt;
    c->c_launch_us = now;
    c->c_end_us = now;
    c->c_status = SK_TASK_FAILED;
    c->c_exit = -1;
    char reason[OUT_CAP];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (n > 0)
        out_append(c, reason, strlen(reason));
    done_push(x, c);
}

/* ---- output and exit ---------------------------------------------------- */

/* Reads what the pipe holds now; closes it at end of file. */
static void drain_output(cx_child *c)
{
    while (c->c_fd >= 0) {
        size_t room = OUT_CAP - c->c_out_pos;
        ssize_t n = read(c->c_fd, c->c_out + c->c_out_pos, room);
        if (n > 0) {
            c->c_out_pos = (uint32_t)((c->c_out_pos + (size_t)n) % OUT_CAP);
            c->c_out_len = c->c_out_len + (size_t)n > OUT_CAP
                               ? OUT_CAP
                               : (uint32_t)(c->c_out_len + (size_t)n);
            c->c_x->x_st.cs_output_bytes += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        /* End of file, or an error that will not go away. */
        ev_io_stop(c->c_x->x_loop, &c->c_io);
        close(c->c_fd);
        c->c_fd = -1;
    }
}

static void on_output(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    drain_output(w->data);
}

/* SIGKILL to the task's process group and, with a cgroup, to every
 * process in it (those that left the group too). */
static void kill_hard(cx_child *c)
{
    if (c->c_group > 0)
        kill(-c->c_group, SIGKILL);
    if (c->c_cg[0] != '\0')
        nm_cgroup_task_kill(c->c_x->x_cfg.cx_cgroup, c->c_cg);
}

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    cx_child *c = w->data;
    if (c->c_pid > 0)
        kill_hard(c);
}

static sk_time now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (sk_time)ts.tv_sec * 1000000u + (sk_time)ts.tv_nsec / 1000u;
}

/* The task's cgroup after its shell exited: what is left of it is
 * killed, the directory removed (or left to the sweep timer), and an
 * out-of-memory kill becomes the task's failure reason. */
static void cgroup_end(nm_cmdexec *x, cx_child *c)
{
    uint64_t oom = nm_cgroup_task_end(x->x_cfg.cx_cgroup, c->c_cg);
    c->c_cg[0] = '\0';
    if (nm_cgroup_stats_get(x->x_cfg.cx_cgroup)->gs_busy > 0 &&
        !ev_is_active(&x->x_sweep))
        ev_timer_again(x->x_loop, &x->x_sweep);
    if (oom == 0)
        return;
    x->x_st.cs_oom++;
    if (c->c_status == SK_TASK_OK)
        c->c_status = SK_TASK_FAILED;
    char why[160];
    int n =
        snprintf(why, sizeof why,
                 "\nskylark: out of memory: the kernel killed %llu "
                 "process%s of this task at its memory.max of %u MiB\n",
                 (unsigned long long)oom, oom == 1 ? "" : "es", c->c_mem_mb);
    if (n > 0)
        out_append(c, why, strlen(why));
}

static void on_sweep(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    nm_cmdexec *x = w->data;
    if (nm_cgroup_sweep(x->x_cfg.cx_cgroup) == 0)
        ev_timer_stop(loop, w);
}

/* Stops reading a keeper's records. */
static void keeper_close(cx_child *c)
{
    if (c->c_efd < 0)
        return;
    ev_io_stop(c->c_x->x_loop, &c->c_eio);
    close(c->c_efd);
    c->c_efd = -1;
}

/* Reads what a keeper has said (nm_keeper.c): the task's process group
 * (a kill asked for before it is applied now), a guard not told, a
 * failure before the task's fork (into the output). */
static void keeper_records(cx_child *c)
{
    nm_cmdexec *x = c->c_x;
    nm_exec_err e;
    ssize_t n;
    while (c->c_efd >= 0) {
        n = read(c->c_efd, &e, sizeof e);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n != (ssize_t)sizeof e) {
            keeper_close(c);
            return;
        }
        if (e.ee_step == NM_STEP_PID && e.ee_errno > 0 && c->c_group == 0) {
            c->c_group = (pid_t)e.ee_errno;
            if (c->c_killing)
                kill(-c->c_group, SIGTERM);
        } else if (e.ee_step == NM_STEP_UNGUARDED) {
            x->x_st.cs_guard_lost++;
        } else if (e.ee_step != NM_STEP_PID) {
            char why[160];
            int len = snprintf(why, sizeof why,
                               "command executor: the keeper cannot start "
                               "the task: %s: %s\n",
                               nm_step_name(e.ee_step), strerror(e.ee_errno));
            if (len > 0)
                out_append(c, why, (size_t)len);
        }
    }
}

static void on_keeper(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    keeper_records(w->data);
}

static void child_ended(nm_cmdexec *x, cx_child *c, int status)
{
    keeper_records(c);
    keeper_close(c);
    c->c_end_us = now_us();
    if (c->c_group > 0 && nm_guard_tell(x->x_guard, c->c_group, 0) != 0)
        x->x_st.cs_guard_lost++;
    c->c_pid = 0;
    c->c_group = 0;
    ev_timer_stop(x->x_loop, &c->c_grace);
    /* Whatever the task wrote before it exited is in the pipe now; what
     * the killed leftovers of its group might have written later is not
     * waited for. */
    if (c->c_fd >= 0) {
        drain_output(c);
        if (c->c_fd >= 0) {
            ev_io_stop(x->x_loop, &c->c_io);
            close(c->c_fd);
            c->c_fd = -1;
        }
    }
    if (WIFSIGNALED(status)) {
        c->c_exit = -WTERMSIG(status);
        c->c_status = c->c_killing ? SK_TASK_KILLED : SK_TASK_FAILED;
    } else {
        /* It exited by itself, killed or not: the kill came after its
         * end (a node monitor that stalled finds its tasks ended and
         * orphaned at once), and that end is an outcome the scheduler
         * may still take (docs/FAULTS.md, "Outcomes offered"). */
        c->c_exit = WEXITSTATUS(status);
        c->c_status = c->c_exit == 0 ? SK_TASK_OK : SK_TASK_FAILED;
    }
    if (c->c_cg[0] != '\0')
        cgroup_end(x, c);
    running_remove(x, c);
    done_push(x, c);
}

static cx_child *find_pid(nm_cmdexec *x, pid_t pid)
{
    for (cx_child *c = x->x_running; c != NULL; c = c->c_next)
        if (c->c_pid == pid)
            return c;
    return NULL;
}

static void on_sigchld(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)loop;
    (void)revents;
    nm_cmdexec *x = w->data;
    bool ended = false;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        /* Peek first: while the exited shell is an unreaped zombie its
         * pid cannot be reused, so killing its group cannot hit another
         * process group. */
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid == 0)
            break;
        pid_t pid = si.si_pid;
        cx_child *c = find_pid(x, pid);
        if (c != NULL)
            kill(-pid, SIGKILL);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (c == NULL) {
            x->x_st.cs_stray++;
            continue;
        }
        child_ended(x, c, status);
        ended = true;
    }
    if (ended && x->x_ready != NULL)
        x->x_ready(x->x_arg);
}

/* ---- launching ---------------------------------------------------------- */

static bool env_skip(const char *entry)
{
    for (size_t i = 0; i < NENV; i++)
        if (strncmp(entry, ENV_NAMES[i], strlen(ENV_NAMES[i])) == 0)
            return true;
    return false;
}

static int env_init(nm_cmdexec *x)
{
    size_t n = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        n++;
    x->x_env = calloc(n + NENV + 1, sizeof *x->x_env);
    if (x->x_env == NULL)
        return SK_ENOMEM;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        if (env_skip(*e))
            continue;
        if ((x->x_env[x->x_nbase] = strdup(*e)) == NULL)
            return SK_ENOMEM;
        x->x_nbase++;
    }
    size_t k = x->x_nbase;
    for (size_t i = 0; i < NENV; i++)
        x->x_env[k + i] = x->x_envbuf[i];
    x->x_env[k + NENV] = NULL;
    /* The switched copy shares the strings of x_env. */
    x->x_envsw = calloc(k + NENV + 3 + 1, sizeof *x->x_envsw);
    if (x->x_envsw == NULL)
        return SK_ENOMEM;
    for (size_t i = 0; i < k; i++)
        if (strncmp(x->x_env[i], "HOME=", 5) != 0 &&
            strncmp(x->x_env[i], "USER=", 5) != 0 &&
            strncmp(x->x_env[i], "LOGNAME=", 8) != 0)
            x->x_envsw[x->x_nswbase++] = x->x_env[i];
    for (size_t i = 0; i < NENV; i++)
        x->x_envsw[x->x_nswbase + i] = x->x_envbuf[i];
    return 0;
}

/* Fills the task's variables; for a task run as id (NULL: as the
 * daemon) returns the environment to give it. */
static char **env_fill(nm_cmdexec *x, const sk_launch *lt, const nm_ident *id)
{
    const size_t len = sizeof x->x_envbuf[0];
    snprintf(x->x_envbuf[0], len, "%s%llu", ENV_NAMES[0],
             (unsigned long long)lt->lt_job);
    snprintf(x->x_envbuf[1], len, "%s%u", ENV_NAMES[1], lt->lt_task);
    snprintf(x->x_envbuf[2], len, "%s%u", ENV_NAMES[2], lt->lt_attempt);
    snprintf(x->x_envbuf[3], len, "%s%.*s", ENV_NAMES[3], (int)SK_MAX_NAME_LEN,
             lt->lt_user != NULL ? lt->lt_user : "");
    snprintf(x->x_envbuf[4], len, "%s%.*s", ENV_NAMES[4], (int)SK_MAX_NAME_LEN,
             x->x_cfg.cx_node);
    if (id == NULL)
        return x->x_env;
    size_t k = x->x_nswbase + NENV;
    for (size_t i = 0; i < 3; i++)
        x->x_envsw[k + i] = (char *)id->id_env[i];
    x->x_envsw[k + 3] = NULL;
    return x->x_envsw;
}

/* Everything a child needs, prepared before it starts. The child shares
 * the daemon's memory (clone with CLONE_VM | CLONE_VFORK, like
 * posix_spawn: a plain fork of a daemon with 200 MiB touched took 18 ms
 * against 0.6 ms), and the daemon has threads (nanomsg's): it allocates
 * nothing, looks up no name, and changes its ids with raw system calls,
 * since glibc's setuid would make every thread of the daemon change
 * too (nm_taskexec.h). With a journal the child execs the task's keeper
 * instead (nm_keeper.c), which starts the task the same way. */
typedef struct spawn_req {
    nm_task_exec sr_task;
    int sr_cgroup;         /* the task cgroup's cgroup.procs, or -1 */
    int *sr_guard_told;    /* set by the child: 1 if the guard was told */
    const char *sr_keeper; /* the keeper's path, or NULL: exec the task */
    char **sr_kargv;       /* the keeper's arguments */
    int sr_record;         /* the journal record, for the keeper */
    char *sr_stack;        /* SPAWN_STACK bytes for the child */
} spawn_req;

/* The descriptors the keeper gets (nm_keeper.c): the error pipe, the
 * journal record and the guard's pipe. */
enum { KEEPER_ERR_FD = 3, KEEPER_RECORD_FD = 4, KEEPER_GUARD_FD = 5 };

/* Moves the keeper's descriptors into place: above them first, so that
 * no dup2 overwrites one still to move. */
static void keeper_fds(const spawn_req *r, int efd)
{
    int from[3] = {efd, r->sr_record, r->sr_task.te_guard};
    int high[3];
    for (int i = 0; i < 3; i++) {
        high[i] = -1;
        if (from[i] >= 0 && (high[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 16)) < 0)
            nm_exec_fail(efd, NM_STEP_KEEPER);
    }
    /* efd itself may be one of the targets: failures go to its copy. */
    for (int i = 0; i < 3; i++)
        if (high[i] >= 0 && dup2(high[i], KEEPER_ERR_FD + i) < 0)
            nm_exec_fail(high[0], NM_STEP_KEEPER);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    close_range(KEEPER_GUARD_FD + 1, ~0u, 0);
#endif
}

/* The child: plain signals, the cgroup, /dev/null and the pipe as stdio,
 * no other descriptor, then the task (nm_task_exec_now) or its keeper. */
static void __attribute__((noreturn))
child_exec(const spawn_req *r, int out, int efd)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    /* Into the task's cgroup before anything of the task runs, and while
     * still the daemon's user. (clone3's CLONE_INTO_CGROUP would spare
     * this write, but a CLONE_VM child on a stack of its own cannot be
     * started through clone3 without assembly.) */
    if (r->sr_cgroup >= 0 && write(r->sr_cgroup, "0", 1) != 1)
        nm_exec_fail(efd, NM_STEP_CGROUP);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        fcntl(0, F_SETFD, 0) != 0 || fcntl(1, F_SETFD, 0) != 0 ||
        fcntl(2, F_SETFD, 0) != 0)
        nm_exec_fail(efd, NM_STEP_STDIO);
    if (r->sr_keeper != NULL) {
        keeper_fds(r, efd);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(r->sr_keeper, r->sr_kargv, r->sr_task.te_env);
        nm_exec_fail(KEEPER_ERR_FD, NM_STEP_EXEC);
    }
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    /* The task gets none of the daemon's other descriptors (its sockets
     * would outlive it in a task left running); the error pipe and the
     * guard's, still needed, are close-on-exec. Older libcs: the daemon
     * opens all close-on-exec. */
    int keep[2] = {efd, r->sr_task.te_guard};
    if (keep[1] >= 0 && keep[1] < keep[0]) {
        keep[0] = keep[1];
        keep[1] = efd;
    }
    unsigned from = 3;
    for (int i = 0; i < 2; i++) {
        if (keep[i] < (int)from)
            continue;
        if ((unsigned)keep[i] > from)
            close_range(from, (unsigned)keep[i] - 1, 0);
        from = (unsigned)keep[i] + 1;
    }
    close_range(from, ~0u, 0);
#endif
    nm_task_exec_now(&r->sr_task, efd, r->sr_guard_told);
}

typedef struct child_arg {
    const spawn_req *ca_req;
    int ca_out, ca_efd;
} child_arg;

/* No sanitizer bookkeeping on a stack it does not know. */
__attribute__((no_sanitize_address)) static int child_main(void *arg)
{
    const child_arg *ca = arg;
    child_exec(ca->ca_req, ca->ca_out, ca->ca_efd);
}

/* Reads the child's records: the task's pid (from a keeper), a guard
 * not told, a failed step; until the pipe ends or, when it does not
 * block, until it is empty (*open: 1 if it has not ended). Returns the
 * failure's errno (its step in *step) or 0. */
static int read_records(int efd, pid_t *group, int *told, int *step, int *open)
{
    int err = 0;
    nm_exec_err se;
    ssize_t n;
    *open = 0;
    for (;;) {
        do
            n = read(efd, &se, sizeof se);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno == EAGAIN)
            *open = 1;
        if (n != (ssize_t)sizeof se)
            return err;
        if (se.ee_step == NM_STEP_PID)
            *group = (pid_t)se.ee_errno;
        else if (se.ee_step == NM_STEP_UNGUARDED)
            *told = 0;
        else if (err == 0) {
            *step = se.ee_step;
            err = se.ee_errno != 0 ? se.ee_errno : EIO;
        }
    }
}

/* Starts the shell (or its keeper) for r with its output into a new pipe.
 * Returns 0, or an errno value with the failed step in *step; *pid is
 * the child's, or 0 if none started, either way; *group the task's
 * process group. Without a keeper it waits for the task's exec (a few
 * system calls), like posix_spawn. With one it waits for the keeper's
 * exec only, and reads what the keeper has said by then: *group is 0
 * until it says the task's pid, and *efd (non-blocking) is for the rest
 * (-1 when the keeper has said all). */
static int spawn(const spawn_req *r, pid_t *pid, pid_t *group, int *fd,
                 int *efd, int *step)
{
    int p[2], e[2];
    *step = NM_STEP_CLONE;
    *efd = -1;
    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    if (pipe2(e, O_CLOEXEC) != 0) {
        int err = errno;
        close(p[0]);
        close(p[1]);
        return err;
    }
    /* Only our ends are non-blocking: the task's writes must block. */
    int err =
        fcntl(p[0], F_SETFL, O_NONBLOCK) != 0 ||
                (r->sr_keeper != NULL && fcntl(e[0], F_SETFL, O_NONBLOCK) != 0)
            ? errno
            : 0;
    pid_t c = -1;
    if (err == 0) {
        /* No handler of ours may run in the child before its signals are
         * plain again: they would write to the loop's wake-up pipe. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        child_arg ca = {r, p[1], e[1]};
        c = clone(child_main, r->sr_stack + SPAWN_STACK,
                  CLONE_VM | CLONE_VFORK | SIGCHLD, &ca);
        if (c < 0)
            err = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    close(p[1]);
    close(e[1]);
    /* The clone returns when the child has exec'd or failed: a failure
     * before the exec is in the pipe by now. */
    *group = r->sr_keeper != NULL ? 0 : c;
    int open = 0;
    if (err == 0 &&
        (err = read_records(e[0], group, r->sr_guard_told, step, &open)) != 0) {
        int st;
        while (waitpid(c, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (err == 0 && open)
        *efd = e[0];
    else
        close(e[0]);
    *pid = c > 0 ? c : 0;
    if (err != 0) {
        close(p[0]);
        return err;
    }
    *fd = p[0];
    return 0;
}

/* The keeper's command line for r (nm_keeper.c), in x's buffers. */
static void keeper_argv(nm_cmdexec *x, spawn_req *r, char **argv)
{
    size_t a = 0;
    argv[a++] = "skylark-keeper";
    const nm_ident *id = r->sr_task.te_id;
    if (id != NULL) {
        snprintf(x->x_karg[0], sizeof x->x_karg[0], "%u", (unsigned)id->id_uid);
        snprintf(x->x_karg[1], sizeof x->x_karg[1], "%u", (unsigned)id->id_gid);
        size_t off = 0;
        x->x_kgroups[0] = '\0';
        for (uint32_t i = 0; i < id->id_ngroups; i++)
            off += (size_t)snprintf(
                x->x_kgroups + off, sizeof x->x_kgroups - off, "%s%u",
                i > 0 ? "," : "", (unsigned)id->id_groups[i]);
        argv[a++] = "-u";
        argv[a++] = x->x_karg[0];
        argv[a++] = "-g";
        argv[a++] = x->x_karg[1];
        argv[a++] = "-G";
        argv[a++] = x->x_kgroups;
        argv[a++] = "-d";
        argv[a++] = (char *)id->id_home;
    }
    if (r->sr_task.te_as_bytes > 0) {
        snprintf(x->x_karg[2], sizeof x->x_karg[2], "%llu",
                 (unsigned long long)r->sr_task.te_as_bytes);
        argv[a++] = "-m";
        argv[a++] = x->x_karg[2];
    }
    if (r->sr_task.te_guard >= 0)
        argv[a++] = "-k";
    argv[a++] = "--";
    argv[a++] = (char *)r->sr_task.te_shell;
    argv[a++] = (char *)r->sr_task.te_cmd;
    argv[a] = NULL;
}

static cx_child *find_task(nm_cmdexec *x, uint64_t job, uint32_t task,
                           uint32_t attempt)
{
    for (cx_child *c = x->x_running; c != NULL; c = c->c_next)
        if (c->c_job == job && c->c_task == task && c->c_attempt == attempt)
            return c;
    return NULL;
}

void nm_cmdexec_launch(nm_cmdexec *x, const sk_launch *lt,
                       const nm_origin *origin, sk_time now)
{
    const uint8_t *spec = lt->lt_spec.b_data;
    uint32_t len = lt->lt_spec.b_len;
    if (len == 0 || spec == NULL || spec[len - 1] != '\0') {
        fail_now(x, lt, now, &x->x_st.cs_bad_spec,
                 "command executor: the spec must be a command line ending "
                 "with a NUL byte (got %u bytes%s)",
                 len, len == 0 ? "" : " without a final NUL");
        return;
    }
    if (memchr(spec, '\0', len - 1) != NULL) {
        fail_now(x, lt, now, &x->x_st.cs_bad_spec,
                 "command executor: the spec holds a NUL byte before its end");
        return;
    }
    if (len == 1) {
        fail_now(x, lt, now, &x->x_st.cs_bad_spec,
                 "command executor: empty command");
        return;
    }
    if (find_task(x, lt->lt_job, lt->lt_task, lt->lt_attempt) != NULL) {
        fail_now(x, lt, now, &x->x_st.cs_duplicate,
                 "command executor: this attempt already runs");
        return;
    }
    if (x->x_st.cs_running >= x->x_cfg.cx_max_children) {
        fail_now(x, lt, now, &x->x_st.cs_busy,
                 "command executor: %u tasks already run on this node",
                 x->x_st.cs_running);
        return;
    }
    const nm_ident *id = NULL;
    if (x->x_cfg.cx_accounts != NULL &&
        nm_accounts_lookup(x->x_cfg.cx_accounts,
                           lt->lt_user != NULL ? lt->lt_user : "",
                           &id) == NM_RUN_REFUSED) {
        fail_now(x, lt, now, &x->x_st.cs_no_account,
                 "no account for user %.*s on node %s", (int)SK_MAX_NAME_LEN,
                 lt->lt_user != NULL ? lt->lt_user : "", x->x_cfg.cx_node);
        return;
    }
    cx_child *c = child_alloc(x);
    if (c == NULL) {
        fail_now(x, lt, now, &x->x_st.cs_spawn_failed,
                 "command executor: out of memory");
        return;
    }
    nm_cgroup *cg = x->x_cfg.cx_cgroup;
    /* With memory.max, RLIMIT_AS (which counts address space reserved,
     * not memory used) is not needed. */
    bool as_limit = cg == NULL || !(nm_cgroup_enforced(cg) & NM_CG_MEMORY);
    int told = 1;
    spawn_req r = {{x->x_cfg.cx_shell, (const char *)spec, NULL, id,
                    as_limit ? (uint64_t)lt->lt_res.r_mem_mb << 20 : 0,
                    x->x_guard},
                   -1,
                   &told,
                   NULL,
                   NULL,
                   -1,
                   x->x_stack};
    if (cg != NULL) {
        char why[256];
        nm_cgroup_name(lt->lt_job, lt->lt_task, lt->lt_attempt, c->c_cg);
        int e = nm_cgroup_task_create(cg, c->c_cg, &lt->lt_res, &r.sr_cgroup,
                                      why, sizeof why);
        if (e != 0) {
            child_recycle(x, c);
            fail_now(x, lt, now, &x->x_st.cs_spawn_failed,
                     "command executor: cannot make the task's cgroup: %s",
                     why);
            return;
        }
    }
    r.sr_task.te_env = env_fill(x, lt, id);
    nm_journal *jn = x->x_cfg.cx_journal;
    static const nm_origin NO_ORIGIN;
    char *kargv[20];
    if (jn != NULL) {
        r.sr_record = nm_journal_begin(
            jn, lt->lt_job, lt->lt_task, lt->lt_attempt,
            origin != NULL ? origin : &NO_ORIGIN, (uint64_t)now);
        if (r.sr_record >= 0) {
            r.sr_keeper = x->x_cfg.cx_keeper;
            keeper_argv(x, &r, kargv);
            r.sr_kargv = kargv;
        }
    }
    pid_t pid = 0, group = 0;
    int fd = -1, efd = -1, step = 0;
    int err = spawn(&r, &pid, &group, &fd, &efd, &step);
    if (r.sr_cgroup >= 0)
        close(r.sr_cgroup);
    if (r.sr_record >= 0)
        close(r.sr_record);
    if (err != 0 && told && group > 0)
        nm_guard_tell(x->x_guard, group, 0);
    if (err != 0) {
        if (r.sr_record >= 0)
            nm_journal_end(jn, lt->lt_job, lt->lt_task, lt->lt_attempt, false,
                           (uint64_t)now);
        if (c->c_cg[0] != '\0')
            nm_cgroup_task_end(cg, c->c_cg);
        child_recycle(x, c);
        fail_now(x, lt, now, &x->x_st.cs_spawn_failed,
                 "command executor: cannot start %s%s%s%s: %s: %s",
                 x->x_cfg.cx_shell, id != NULL ? " as " : "",
                 id != NULL ? id->id_name : "",
                 r.sr_keeper != NULL ? " through its keeper" : "",
                 nm_step_name(step), strerror(err));
        return;
    }
    c->c_group = group;
    c->c_efd = efd;
    if (efd >= 0) {
        ev_io_init(&c->c_eio, on_keeper, efd, EV_READ);
        c->c_eio.data = c;
        ev_io_start(x->x_loop, &c->c_eio);
    }
    c->c_record = r.sr_record >= 0;
    c->c_linger = c->c_record && origin != NULL;
    c->c_pid = pid;
    c->c_fd = fd;
    if (!told)
        x->x_st.cs_guard_lost++;
    c->c_job = lt->lt_job;
    c->c_task = lt->lt_task;
    c->c_attempt = lt->lt_attempt;
    c->c_launch_us = now;
    c->c_mem_mb = lt->lt_res.r_mem_mb;
    ev_io_init(&c->c_io, on_output, fd, EV_READ);
    c->c_io.data = c;
    ev_io_start(x->x_loop, &c->c_io);
    ev_timer_init(&c->c_grace, on_grace, 0, 0);
    c->c_grace.data = c;
    c->c_prev = NULL;
    c->c_next = x->x_running;
    if (x->x_running != NULL)
        x->x_running->c_prev = c;
    x->x_running = c;
    x->x_st.cs_running++;
    x->x_st.cs_started++;
}

/* ---- killing --------------------------------------------------------------
 */

static void kill_child(nm_cmdexec *x, cx_child *c)
{
    x->x_st.cs_kills++;
    if (c->c_killing)
        return; /* the grace timer already runs */
    c->c_killing = true;
    if (c->c_group > 0) /* else when its keeper says it (keeper_records) */
        kill(-c->c_group, SIGTERM);
    ev_timer_set(&c->c_grace, (double)x->x_cfg.cx_kill_grace_ms / 1000.0, 0);
    ev_timer_start(x->x_loop, &c->c_grace);
}

uint32_t nm_cmdexec_kill(nm_cmdexec *x, const sk_kill_task *kt)
{
    uint32_t n = 0;
    for (cx_child *c = x->x_running; c != NULL; c = c->c_next) {
        if (c->c_job != kt->kt_job)
            continue;
        if (kt->kt_task != SK_TASK_ANY &&
            (c->c_task != kt->kt_task || c->c_attempt != kt->kt_attempt))
            continue;
        kill_child(x, c);
        n++;
    }
    if (n == 0)
        x->x_st.cs_kill_unknown++;
    return n;
}

void nm_cmdexec_signal_all(nm_cmdexec *x, int sig)
{
    for (cx_child *c = x->x_running; c != NULL; c = c->c_next) {
        if (c->c_pid > 0 && sig == SIGKILL)
            kill_hard(c);
        else if (c->c_pid > 0 && c->c_group > 0)
            kill(-c->c_group, sig);
    }
}

/* ---- results ------------------------------------------------------------ */

int nm_cmdexec_next(nm_cmdexec *x, sk_task_finished *out)
{
    if (x->x_taken != NULL) {
        child_recycle(x, x->x_taken);
        x->x_taken = NULL;
    }
    cx_child *c = x->x_done_head;
    if (c == NULL)
        return 0;
    x->x_done_head = c->c_next;
    if (x->x_done_head == NULL)
        x->x_done_tail = NULL;
    x->x_taken = c;
    if (c->c_record)
        nm_journal_end(x->x_cfg.cx_journal, c->c_job, c->c_task, c->c_attempt,
                       c->c_linger && (c->c_status == SK_TASK_OK ||
                                       c->c_status == SK_TASK_FAILED),
                       (uint64_t)now_us());
    /* The ring's oldest byte is at c_out_pos once it has wrapped. */
    uint32_t start = c->c_out_len < OUT_CAP ? 0 : c->c_out_pos;
    uint32_t first =
        OUT_CAP - start < c->c_out_len ? OUT_CAP - start : c->c_out_len;
    memcpy(x->x_outbuf, c->c_out + start, first);
    memcpy(x->x_outbuf + first, c->c_out, c->c_out_len - first);
    memset(out, 0, sizeof *out);
    out->tf_job = c->c_job;
    out->tf_task = c->c_task;
    out->tf_attempt = c->c_attempt;
    out->tf_node = "";
    out->tf_status = c->c_status;
    out->tf_exit = c->c_exit;
    out->tf_output.b_data = x->x_outbuf;
    out->tf_output.b_len = c->c_out_len;
    out->tf_launch_us = c->c_launch_us;
    out->tf_end_us = c->c_end_us;
    return 1;
}

const nm_cmdexec_stats *nm_cmdexec_stats_get(const nm_cmdexec *x)
{
    return &x->x_st;
}

/* ---- life cycle --------------------------------------------------------- */

int nm_cmdexec_create(struct ev_loop *loop, const nm_cmdexec_config *cfg,
                      void (*ready)(void *arg), void *arg, nm_cmdexec **out)
{
    /* libev's default loop reaps every child itself. */
    if (cfg->cx_shell[0] != '/' || cfg->cx_max_children == 0 ||
        cfg->cx_kill_grace_ms < 0 || ev_is_default_loop(loop))
        return SK_EINVAL;
    nm_cmdexec *x = calloc(1, sizeof *x);
    if (x == NULL)
        return SK_ENOMEM;
    x->x_loop = loop;
    x->x_cfg = *cfg;
    x->x_cfg.cx_shell[sizeof x->x_cfg.cx_shell - 1] = '\0';
    x->x_cfg.cx_node[sizeof x->x_cfg.cx_node - 1] = '\0';
    x->x_ready = ready;
    x->x_arg = arg;
    x->x_guard = nm_guard_start(cfg->cx_max_children);
    if (x->x_guard < 0)
        sk_warn("cmdexec: no task guard (%s): the tasks of a node monitor "
                "killed with SIGKILL would run on",
                strerror(errno));
    if (env_init(x) != 0) {
        nm_cmdexec_destroy(x);
        return SK_ENOMEM;
    }
    ev_init(&x->x_sweep, on_sweep);
    x->x_sweep.repeat = 0.02;
    x->x_sweep.data = x;
    ev_signal_init(&x->x_sigchld, on_sigchld, SIGCHLD);
    x->x_sigchld.data = x;
    ev_signal_start(loop, &x->x_sigchld);
    *out = x;
    return 0;
}

static void free_chain(cx_child *c)
{
    while (c != NULL) {
        cx_child *next = c->c_next;
        free(c);
        c = next;
    }
}

void nm_cmdexec_destroy(nm_cmdexec *x)
{
    if (x == NULL)
        return;
    for (cx_child *c = x->x_running; c != NULL; c = c->c_next) {
        if (c->c_pid > 0)
            kill_hard(c);
        if (c->c_cg[0] != '\0')
            nm_cgroup_task_end(x->x_cfg.cx_cgroup, c->c_cg);
        ev_timer_stop(x->x_loop, &c->c_grace);
        keeper_close(c);
        if (c->c_fd >= 0) {
            ev_io_stop(x->x_loop, &c->c_io);
            close(c->c_fd);
        }
    }
    if (ev_is_active(&x->x_sigchld))
        ev_signal_stop(x->x_loop, &x->x_sigchld);
    ev_timer_stop(x->x_loop, &x->x_sweep);
    if (x->x_guard >= 0)
        close(x->x_guard);
    free_chain(x->x_running);
    free_chain(x->x_done_head);
    free_chain(x->x_free);
    free(x->x_taken);
    if (x->x_env != NULL)
        for (size_t i = 0; i < x->x_nbase; i++)
            free(x->x_env[i]);
    free(x->x_env);
    free(x->x_envsw);
    free(x);
}
