/*
 * test_cli_refusals.c - the `skylark` tool refuses what it cannot use,
 * quickly and in words, through the real binary and real daemons on
 * loopback: a bad address is bad input (exit 2, the reason, no transport
 * log line) for every subcommand and daemon option that takes one; so is
 * the address of a node monitor given as a scheduler's, said within
 * seconds. Every
 * command runs under a time limit and is killed if it overruns; the
 * daemons are stopped at exit.
 */
#include "daemon_harness.h"
#include "tap.h"
#include "transport_util.h"

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

static char skylark[4096];

/* What a command did. */
typedef struct result {
    int r_status;     /* exit status; 128 + n for signal n; -1 killed */
    double r_elapsed; /* seconds from start to exit */
    char r_out[65536];
    char r_err[65536];
} result;

static result R;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* How to poke a command while it runs: up to two signals, at times
 * after its start. */
typedef struct pokes {
    int pk_sig[2];
    double pk_at[2];
} pokes;

/* Run argv (NULL-terminated) with stdout and stderr kept apart in R, at
 * most limit seconds (then SIGKILL, status -1), sending the pokes. */
static void run_argv(char *const argv[], double limit, const pokes *pk)
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

/* Run `skylark ARGS...` (NULL-terminated) as run_argv. */
static void sky(double limit, const pokes *pk, ...)
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
    run_argv(argv, limit, pk);
}

static int in_err(const char *s)
{
    return strstr(R.r_err, s) != NULL;
}

/* A log line of the library (timestamp, level) on stderr. */
static int log_lines(void)
{
    return strstr(R.r_err, "ERROR:") != NULL ||
           strstr(R.r_err, "WARN:") != NULL ||
           strstr(R.r_err, "transport") != NULL;
}

static void show(const char *what)
{
    tap_diag("%s: status %d after %.2f s", what, R.r_status, R.r_elapsed);
    tap_diag("stdout: %s", R.r_out);
    tap_diag("stderr: %s", R.r_err);
}

/* ---- bad addresses ------------------------------------------------------ */

typedef struct bad_addr {
    const char *ba_addr;
    const char *ba_words;
} bad_addr;

static const bad_addr BAD[] = {
    {"garbage", "'garbage': no scheme (expected tcp://HOST:PORT or "
                "ipc://PATH)"},
    {"tcp://:7070", "'tcp://:7070': missing host (expected tcp://HOST:PORT)"},
    {"http://x", "'http://x': unsupported scheme \"http\" (expected "
                 "tcp://HOST:PORT or ipc://PATH)"},
    {"", "'': empty address"},
    {"tcp://127.0.0.1:99999",
     "'tcp://127.0.0.1:99999': port 99999 out of range (1..65535)"},
};
#define NBAD (sizeof BAD / sizeof BAD[0])

static void test_bad_addresses(void)
{
    for (size_t i = 0; i < NBAD; i++) {
        const char *a = BAD[i].ba_addr;
        char words[256];
        int ok = 1;
        snprintf(words, sizeof words, "skylark run: --scheduler %s",
                 BAD[i].ba_words);
        sky(10, NULL, "run", "--scheduler", a, "--", "true", NULL);
        ok &= R.r_status == 2 && in_err(words) && !log_lines();
        if (!ok)
            show("run");
        snprintf(words, sizeof words, "skylark load: --scheduler %s",
                 BAD[i].ba_words);
        sky(10, NULL, "load", "--scheduler", a, NULL);
        ok &= R.r_status == 2 && in_err(words) && !log_lines();
        if (!ok)
            show("load");
        snprintf(words, sizeof words, "skylark status: address %s",
                 BAD[i].ba_words);
        sky(10, NULL, "status", a, NULL);
        ok &= R.r_status == 2 && in_err(words) && !log_lines();
        if (!ok)
            show("status");
        tap_ok(ok,
               "'%s': run, load and status exit 2 and say why, "
               "without a transport log line",
               a);
    }
    /* The daemons say the same. */
    char *sargv[] = {(char *)dh_sched_path(), "--listen", "http://x", NULL};
    run_argv(sargv, 10, NULL);
    tap_ok(R.r_status == 2 &&
               in_err("--listen: [sched] listen: 'http://x': unsupported "
                      "scheme \"http\" (expected tcp://HOST:PORT or "
                      "ipc://PATH)") &&
               !log_lines(),
           "skylark-sched --listen http://x: exit 2, the same words");
    if (R.r_status != 2)
        show("skylark-sched");
    char *nargv[] = {(char *)dh_nodemon_path(), "--scheduler", "tcp://:7070",
                     NULL};
    run_argv(nargv, 10, NULL);
    tap_ok(R.r_status == 2 && in_err("'tcp://:7070': missing host") &&
               !log_lines(),
           "skylark-nodemon --scheduler tcp://:7070: exit 2, the same words");
    if (R.r_status != 2)
        show("skylark-nodemon");
}

/* ---- the wrong kind of daemon ----------------------------------------- */

static dh_proc nm;

static void test_wrong_daemon(void)
{
    if (dh_start_nodemon(&nm, "n1", 1, 2, NULL, 0, NULL) != 0)
        tap_bail_out("cannot start a node monitor");
    char words[256];
    snprintf(words, sizeof words, "%s: that is a node monitor, not a scheduler",
             nm.dp_endpoint);

    sky(20, NULL, "run", "--scheduler", nm.dp_endpoint, "--", "true", NULL);
    tap_ok(R.r_status == 2 && in_err(words) && R.r_elapsed < 5 && !log_lines(),
           "run --scheduler <a node monitor>: exit 2 in %.2f s, '%s'",
           R.r_elapsed, words);
    if (R.r_status != 2)
        show("run");

    sky(20, NULL, "load", "--scheduler", nm.dp_endpoint, "--jobs", "6",
        "--users", "ann,bo", NULL);
    tap_ok(R.r_status == 2 && in_err(words) && R.r_elapsed < 5 && !log_lines(),
           "load --scheduler <a node monitor>: exit 2 in %.2f s, the same "
           "words",
           R.r_elapsed);
    if (R.r_status != 2)
        show("load");

    sky(20, NULL, "status", nm.dp_endpoint, NULL);
    tap_ok(R.r_status == 0 && strstr(R.r_out, "nodemon n1") != NULL,
           "status takes any kind of daemon");
}

int main(void)
{
    const char *b = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", b ? b : ".");
    if (access(skylark, X_OK) != 0)
        tap_skip_all("no %s", skylark);
    tap_timeout(120);
    tap_plan((int)NBAD + 5);
    signal(SIGPIPE, SIG_IGN);
    dh_init();

    test_bad_addresses();
    test_wrong_daemon();
    return tap_exit_status();
}
