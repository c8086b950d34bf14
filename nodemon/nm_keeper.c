/*
 * nm_keeper.c - skylark-keeper, the task keeper: the parent of one command
 * task, started by the node monitor's command executor when it keeps a
 * journal (nm_journal.h), that writes how the task ended into the task's
 * journal record, so that the end survives the node monitor's death
 * (docs/FAULTS.md, "The journal").
 *
 * Without it a task that ends just before a SIGKILL of its node monitor
 * dies as the node monitor's unreaped child: its exit status goes with
 * the process, the scheduler retries the task, and a task that had run
 * to its end completes twice. The keeper is in a session of its own, not
 * in the task's process group, so the task guard (nm_guard.h), which
 * kills the task's group when the node monitor dies, leaves the keeper
 * to record what happened.
 *
 * Usage (by the command executor only):
 *   skylark-keeper [-u UID -g GID -G GID,... -d HOME] [-m BYTES] [-k]
 *                  SHELL COMMAND
 * with descriptor 3 the starter's error pipe, 4 the journal record
 * (opened for appending), and with -k, 5 the task guard's pipe. The
 * environment is the task's. -u/-g/-G/-d: the account to switch to
 * (all four), -m: RLIMIT_AS in bytes. It forks the task, makes its
 * process group and tells the guard (a guard not told is recorded as
 * NM_STEP_UNGUARDED in the error pipe), writes NM_STEP_PID and the task's
 * pid there and closes the pipe, so that the starter goes on at once;
 * then lets the task start (nm_taskexec.h; a step that fails is written
 * to the task's output, and the task ends with 127), waits for it, kills
 * what is left of its process group, appends "end exit N at US" or "end
 * signal S at US" (US: microseconds since the epoch) to the record, and
 * ends the way the task ended (exit N, or signal S), so that its starter
 * reads the task's status from the keeper's. A failure before the fork
 * (arguments, descriptors, fork) is reported into the error pipe.
 */
#include "nm_guard.h"
#include "nm_taskexec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { ERR_FD = 3, RECORD_FD = 4, GUARD_FD = 5 };

/* Writes a record (nm_taskexec.h) into the starter's error pipe. */
static void put(int step, int value)
{
    nm_exec_err e = {step, value};
    ssize_t n;
    do
        n = write(ERR_FD, &e, sizeof e);
    while (n < 0 && errno == EINTR);
}

static void usage(const char *why)
{
    fprintf(stderr, "skylark-keeper: %s (started by skylark-nodemon only)\n",
            why);
    exit(127);
}

/* A decimal number in [0, max]; anything else ends the keeper. */
static uint64_t number(const char *s, uint64_t max, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > max)
        usage(what);
    return (uint64_t)v;
}

static void parse_groups(const char *s, nm_ident *id)
{
    if (s[0] == '\0')
        return;
    char buf[NM_MAX_GROUPS * 12];
    if (strlen(s) >= sizeof buf)
        usage("-G: too long");
    strcpy(buf, s);
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g != NULL;
         g = strtok_r(NULL, ",", &save)) {
        if (id->id_ngroups >= NM_MAX_GROUPS)
            usage("-G: too many groups");
        id->id_groups[id->id_ngroups++] = (gid_t)number(g, UINT32_MAX, "-G");
    }
}

int main(int argc, char **argv)
{
    nm_ident id;
    memset(&id, 0, sizeof id);
    int have = 0, opt;
    nm_task_exec te = {NULL, NULL, environ, NULL, 0, -1};
    while ((opt = getopt(argc, argv, "+u:g:G:d:m:k")) != -1) {
        switch (opt) {
        case 'u':
            id.id_uid = (uid_t)number(optarg, UINT32_MAX - 1, "-u");
            have |= 1;
            break;
        case 'g':
            id.id_gid = (gid_t)number(optarg, UINT32_MAX - 1, "-g");
            have |= 2;
            break;
        case 'G':
            parse_groups(optarg, &id);
            have |= 4;
            break;
        case 'd':
            if (strlen(optarg) >= sizeof id.id_home)
                usage("-d: too long");
            strcpy(id.id_home, optarg);
            have |= 8;
            break;
        case 'm':
            te.te_as_bytes = number(optarg, UINT64_MAX, "-m");
            break;
        case 'k':
            te.te_guard = GUARD_FD;
            break;
        default:
            usage("bad option");
        }
    }
    if (have != 0 && have != 15)
        usage("-u, -g, -G and -d go together");
    if (have == 15)
        te.te_id = &id;
    if (argc - optind != 2 || argv[optind][0] != '/')
        usage("needs SHELL (absolute) and COMMAND");
    te.te_shell = argv[optind];
    te.te_cmd = argv[optind + 1];
    if (fcntl(ERR_FD, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(RECORD_FD, F_SETFD, FD_CLOEXEC) != 0 ||
        (te.te_guard >= 0 && fcntl(GUARD_FD, F_SETFD, FD_CLOEXEC) != 0))
        usage("descriptors 3 and 4 (and 5 with -k) must be open");
    /* Out of the node monitor's session and process group: neither a
     * terminal's signals nor a kill of the task's group reach us. A node
     * monitor that died closed our pipes' other ends: a write there
     * fails, and we go on to record the task's end. */
    setsid();
    signal(SIGPIPE, SIG_IGN);

    /* The task waits (go) until its process group is its own and told
     * to the guard; its start's failures come back through fail. */
    int go[2], fail[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(fail, O_CLOEXEC) != 0)
        nm_exec_fail(ERR_FD, NM_STEP_KEEPER);
    pid_t task = fork();
    if (task < 0)
        nm_exec_fail(ERR_FD, NM_STEP_KEEPER);
    if (task == 0) {
        signal(SIGPIPE, SIG_DFL); /* an ignored signal would outlive exec */
        close(ERR_FD);
        close(go[1]);
        char b;
        while (read(go[0], &b, 1) < 0 && errno == EINTR)
            ;
        nm_task_exec te_task = te;
        te_task.te_guard = -1; /* told already */
        int told;
        nm_task_exec_now(&te_task, fail[1], &told);
    }
    close(go[0]);
    close(fail[1]);
    setpgid(task, task);
    if (te.te_guard < 0 || nm_guard_tell(te.te_guard, task, 1) != 0)
        put(NM_STEP_UNGUARDED, 0);
    put(NM_STEP_PID, (int)task);
    /* The starter goes on now: the task's own start is ours to watch. */
    close(ERR_FD);
    if (te.te_guard >= 0)
        close(GUARD_FD);
    ssize_t n;
    do
        n = write(go[1], "g", 1);
    while (n < 0 && errno == EINTR);
    close(go[1]);
    /* Until the task's exec closes it: a failed step of its start, told
     * in its output (stderr is the output pipe) as it ends with 127. */
    nm_exec_err failed;
    do
        n = read(fail[0], &failed, sizeof failed);
    while (n < 0 && errno == EINTR);
    close(fail[0]);
    if (n == (ssize_t)sizeof failed)
        fprintf(stderr, "skylark-keeper: cannot start the task: %s: %s\n",
                nm_step_name(failed.ee_step), strerror(failed.ee_errno));

    /* Peek first: while the task is an unreaped zombie its pid, and so
     * its process group's id, cannot be reused. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)task, &si, WEXITED | WNOWAIT) != 0)
        if (errno != EINTR)
            return 127;
    kill(-task, SIGKILL);
    int status = 0;
    while (waitpid(task, &status, 0) < 0 && errno == EINTR)
        ;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t at = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    char line[96];
    int len =
        WIFSIGNALED(status)
            ? snprintf(line, sizeof line, "end signal %d at %" PRIu64 "\n",
                       WTERMSIG(status), at)
            : snprintf(line, sizeof line, "end exit %d at %" PRIu64 "\n",
                       WEXITSTATUS(status), at);
    do
        n = write(RECORD_FD, line, (size_t)len);
    while (n < 0 && errno == EINTR);
    close(RECORD_FD);
    if (!WIFSIGNALED(status))
        return WEXITSTATUS(status);
    /* The task's signal, without a core of our own. */
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    return 128 + sig;
}
