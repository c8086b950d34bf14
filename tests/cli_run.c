/*
 * cli_run.c - running the `skylark` tool and other programs in tests
 * (cli_run.h).
 */
#include "cli_run.h"
#include "tap.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

cr_result R;

static char skylark[4096];

const char *cr_skylark(void)
{
    const char *b = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", b ? b : ".");
    return access(skylark, X_OK) == 0 ? skylark : NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void cr_run(char *const argv[], double limit, const cr_pokes *pk)
{
    int po[2], pe[2];
    if (pipe(po) != 0 || pipe(pe) != 0)
        tap_bail_out("pipe: %s", strerror(errno));
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t lo = 0, le = 0;
    int open_fds = 2, sent = 0, killed = 0, st = 0, reaped = 0;
    while (open_fds > 0 || !reaped) {
        double t = now() - t0;
        if (t >= limit && !killed) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        while (pk != NULL && sent < 2 && pk->pk_sig[sent] != 0 &&
               t >= pk->pk_at[sent])
            kill(pid, pk->pk_sig[sent++]);
        if (!reaped && waitpid(pid, &st, WNOHANG) == pid) {
            reaped = 1;
            R.r_elapsed = now() - t0;
        }
        struct pollfd pf[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        if (poll(pf, 2, 10) <= 0)
            continue;
        for (int i = 0; i < 2; i++) {
            if (pf[i].revents == 0 || pf[i].fd < 0)
                continue;
            char *buf = i == 0 ? R.r_out : R.r_err;
            size_t *len = i == 0 ? &lo : &le;
            ssize_t r = read(pf[i].fd, buf + *len, sizeof R.r_out - 1 - *len);
            if (r <= 0) {
                close(i == 0 ? po[0] : pe[0]);
                if (i == 0)
                    po[0] = -1;
                else
                    pe[0] = -1;
                open_fds--;
            } else {
                *len += (size_t)r;
            }
        }
    }
    R.r_out[lo] = '\0';
    R.r_err[le] = '\0';
    if (killed)
        R.r_status = -1;
    else if (WIFEXITED(st))
        R.r_status = WEXITSTATUS(st);
    else
        R.r_status = 128 + WTERMSIG(st);
}

void cr_sky(double limit, const cr_pokes *pk, ...)
{
    char *argv[40];
    int n = 0;
    argv[n++] = skylark;
    va_list ap;
    va_start(ap, pk);
    char *a;
    while ((a = va_arg(ap, char *)) != NULL && n < 39)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    cr_run(argv, limit, pk);
}

/* Finds the line of the daemon called name in dir's cluster file (kind,
 * name, endpoint, pid): its endpoint into ep and its pid. Returns 1 if
 * found. */
static int cluster_line(const char *dir, const char *name, char ep[128],
                        long *pid)
{
    char path[600], kind[16], nm[64], line[512];
    snprintf(path, sizeof path, "%s/cluster", dir);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f != NULL && !found && fgets(line, sizeof line, f) != NULL)
        found = sscanf(line, "%15s %63s %127s %ld", kind, nm, ep, pid) == 4 &&
                strcmp(nm, name) == 0;
    if (f != NULL)
        fclose(f);
    return found;
}

const char *cr_endpoint_of(const char *dir, const char *name)
{
    static char ep[128];
    long pid;
    if (!cluster_line(dir, name, ep, &pid))
        ep[0] = '\0';
    return ep;
}

long cr_pid_of(const char *dir, const char *name)
{
    char ep[128];
    long pid;
    return cluster_line(dir, name, ep, &pid) ? pid : 0;
}
