/*
 * nm_guard.c - the task guard (nm_guard.h).
 */
#include "nm_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The guard's life: read events until the pipe ends, then kill what is
 * left. Runs in the grandchild; never returns. */
static void guard_loop(int fd, unsigned max)
{
    pid_t *groups = calloc(max > 0 ? max : 1, sizeof *groups);
    unsigned n = 0;
    int32_t ev;
    for (;;) {
        ssize_t r = read(fd, &ev, sizeof ev);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof ev)
            break; /* the node monitor is gone (a short read cannot happen
                      with 4-byte writes to a pipe) */
        pid_t g = ev > 0 ? ev : -ev;
        if (ev > 0 && groups != NULL && n < max) {
            groups[n++] = g;
        } else if (ev < 0) {
            for (unsigned i = 0; i < n; i++)
                if (groups[i] == g) {
                    groups[i] = groups[--n];
                    break;
                }
        }
    }
    for (unsigned i = 0; i < n; i++)
        kill(-groups[i], SIGKILL);
    _exit(0);
}

int nm_guard_start(unsigned max)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    if (child == 0) {
        /* The intermediate child: start the guard and leave, so that the
         * guard's parent is init, not the node monitor. */
        if (fork() != 0)
            _exit(0);
        setsid();
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        if (p[0] != 3) {
            dup2(p[0], 3);
            close(p[0]);
        }
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
        closefrom(4);
#else
        long top = sysconf(_SC_OPEN_MAX);
        for (long fd = 4; fd < (top > 0 && top < 65536 ? top : 65536); fd++)
            close((int)fd);
#endif
        close(0);
        close(1);
        close(2);
        guard_loop(3, max);
    }
    close(p[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (fcntl(p[1], F_SETFL, O_NONBLOCK) != 0) {
        int e = errno;
        close(p[1]);
        errno = e;
        return -1;
    }
    return p[1];
}

int nm_guard_tell(int fd, pid_t pgid, int on)
{
    int32_t ev = on ? (int32_t)pgid : -(int32_t)pgid;
    if (fd < 0)
        return -1;
    ssize_t w;
    do
        w = write(fd, &ev, sizeof ev);
    while (w < 0 && errno == EINTR);
    return w == (ssize_t)sizeof ev ? 0 : -1;
}
