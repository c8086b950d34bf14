/*
 * test_cli_refusals.c - the `skylark` tool refuses what it cannot use,
 * quickly and in words, through the real binary and real daemons on
 * loopback: a bad address is bad input (exit 2, the reason, no transport
 * log line) for every subcommand and daemon option that takes one; so is
 * the address of a node monitor given as a scheduler's, said within
 * seconds. Against a peer that never answers (a bound nanomsg socket that
 * reads nothing, and a "scheduler" that finishes the handshake and then
 * ignores everything), a timeout or a signal ends `run` and `load`
 * within the 2 s grace of their cancel (exit 1, 130, 143), and a second
 * signal at once. Every command runs under a time limit and is killed if
 * it overruns; the daemons are stopped at exit.
 */
#include "cli_run.h"
#include "daemon_harness.h"
#include "sk_log.h"
#include "sk_transport.h"
#include "tap.h"
#include "transport_util.h"

#include <errno.h>
#include <ev.h>
#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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
        cr_sky(10, NULL, "run", "--scheduler", a, "--", "true", NULL);
        ok &= R.r_status == 2 && in_err(words) && !log_lines();
        if (!ok)
            show("run");
        snprintf(words, sizeof words, "skylark load: --scheduler %s",
                 BAD[i].ba_words);
        cr_sky(10, NULL, "load", "--scheduler", a, NULL);
        ok &= R.r_status == 2 && in_err(words) && !log_lines();
        if (!ok)
            show("load");
        snprintf(words, sizeof words, "skylark status: address %s",
                 BAD[i].ba_words);
        cr_sky(10, NULL, "status", a, NULL);
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
    cr_run(sargv, 10, NULL);
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
    cr_run(nargv, 10, NULL);
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

    cr_sky(20, NULL, "run", "--scheduler", nm.dp_endpoint, "--", "true", NULL);
    tap_ok(R.r_status == 2 && in_err(words) && R.r_elapsed < 5 && !log_lines(),
           "run --scheduler <a node monitor>: exit 2 in %.2f s, '%s'",
           R.r_elapsed, words);
    if (R.r_status != 2)
        show("run");

    cr_sky(20, NULL, "load", "--scheduler", nm.dp_endpoint, "--jobs", "6",
           "--users", "ann,bo", NULL);
    tap_ok(R.r_status == 2 && in_err(words) && R.r_elapsed < 5 && !log_lines(),
           "load --scheduler <a node monitor>: exit 2 in %.2f s, the same "
           "words",
           R.r_elapsed);
    if (R.r_status != 2)
        show("load");

    cr_sky(20, NULL, "status", nm.dp_endpoint, NULL);
    tap_ok(R.r_status == 0 && strstr(R.r_out, "nodemon n1") != NULL,
           "status takes any kind of daemon");
}

/* ---- peers that never answer: timeouts and signals --------------------- */

/* A bound nanomsg socket that never reads: no session ever comes up. */
static int raw_sock = -1;
static char raw_ep[64];

/* A "scheduler" that finishes the transport's handshake and then
 * ignores every message, as a hung daemon would: in a child process. */
static pid_t mute_pid;
static char mute_ep[64];

static void start_mute_sched(void)
{
    snprintf(mute_ep, sizeof mute_ep, "tcp://127.0.0.1:%d", tu_free_port());
    int p[2];
    if (pipe(p) != 0)
        tap_bail_out("pipe: %s", strerror(errno));
    mute_pid = fork();
    if (mute_pid < 0)
        tap_bail_out("fork: %s", strerror(errno));
    if (mute_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p[0]);
        sk_log_set_level(SK_LOG_WARN);
        struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
        sk_transport_config cfg;
        sk_transport_config_default(&cfg);
        strcpy(cfg.tc_role, "sched");
        strcpy(cfg.tc_name, "mute");
        sk_transport_callbacks cb = {0};
        sk_transport *t;
        if (loop == NULL || sk_transport_create(loop, &cfg, &cb, &t) != 0 ||
            sk_transport_listen(t, mute_ep) != 0)
            _exit(1);
        if (write(p[1], "y", 1) != 1)
            _exit(1);
        ev_run(loop, 0);
        _exit(0);
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1)
        tap_bail_out("the mute scheduler did not start");
    close(p[0]);
}

static void stop_mute_sched(void)
{
    if (mute_pid > 0) {
        kill(mute_pid, SIGKILL);
        waitpid(mute_pid, NULL, 0);
        mute_pid = 0;
    }
}

static void test_never_answers(void)
{
    /* The child first: nanomsg's threads do not survive a fork. */
    start_mute_sched();
    snprintf(raw_ep, sizeof raw_ep, "tcp://127.0.0.1:%d", tu_free_port());
    raw_sock = nn_socket(AF_SP, NN_REP);
    if (raw_sock < 0 || nn_bind(raw_sock, raw_ep) < 0)
        tap_bail_out("cannot bind a raw socket on %s", raw_ep);

    cr_sky(20, NULL, "run", "--scheduler", raw_ep, "--timeout", "2", "--",
           "true", NULL);
    tap_ok(R.r_status == 1 && in_err("timed out") && R.r_elapsed < 4,
           "a peer that never answers, --timeout 2: exit 1 in %.2f s, "
           "\"timed out\"",
           R.r_elapsed);
    if (R.r_status != 1)
        show("run --timeout 2");

    cr_pokes term = {{SIGTERM, 0}, {0.5, 0}};
    cr_sky(20, &term, "run", "--scheduler", raw_ep, "--", "true", NULL);
    tap_ok(R.r_status == 143 && in_err("terminated: cancelling the job") &&
               R.r_elapsed - 0.5 < 3,
           "a peer that never answers, SIGTERM: exit 143 %.2f s after it",
           R.r_elapsed - 0.5);
    if (R.r_status != 143)
        show("run, SIGTERM");

    /* A session, and then silence: the cancel is never answered. */
    cr_sky(20, NULL, "run", "--scheduler", mute_ep, "--timeout", "1", "--",
           "true", NULL);
    tap_ok(R.r_status == 1 && in_err("timed out: cancelling the job") &&
               in_err("did not end within 2 s of its cancel: leaving") &&
               R.r_elapsed < 4.5,
           "a scheduler that never answers, --timeout 1: exit 1 in %.2f s "
           "(1 s and the 2 s grace)",
           R.r_elapsed);
    if (R.r_status != 1)
        show("run --timeout 1, mute");

    cr_pokes intr = {{SIGINT, 0}, {1.0, 0}};
    cr_sky(20, &intr, "run", "--scheduler", mute_ep, "--", "true", NULL);
    tap_ok(R.r_status == 130 && in_err("interrupted: cancelling the job") &&
               in_err("did not end within 2 s") && R.r_elapsed - 1.0 < 3,
           "a scheduler that never answers, SIGINT: exit 130 %.2f s after it",
           R.r_elapsed - 1.0);
    if (R.r_status != 130)
        show("run, SIGINT, mute");

    cr_pokes twice = {{SIGTERM, SIGTERM}, {1.0, 1.2}};
    cr_sky(20, &twice, "run", "--scheduler", mute_ep, "--", "true", NULL);
    tap_ok(R.r_status == 143 && in_err("interrupted again: leaving") &&
               R.r_elapsed - 1.2 < 1,
           "a second SIGTERM leaves at once: exit 143 %.2f s after it",
           R.r_elapsed - 1.2);
    if (R.r_status != 143)
        show("run, SIGTERM twice, mute");

    cr_pokes lterm = {{SIGTERM, 0}, {1.0, 0}};
    cr_sky(20, &lterm, "load", "--scheduler", mute_ep, "--jobs", "6", NULL);
    tap_ok(R.r_status == 143 && in_err("terminated: cancelling the jobs") &&
               in_err("did not end within 2 s") && R.r_elapsed - 1.0 < 3,
           "load, a scheduler that never answers, SIGTERM: exit 143 %.2f s "
           "after it",
           R.r_elapsed - 1.0);
    if (R.r_status != 143)
        show("load, SIGTERM, mute");

    cr_sky(20, NULL, "load", "--scheduler", mute_ep, "--jobs", "6", "--timeout",
           "1", NULL);
    tap_ok(R.r_status == 1 && in_err("timed out: cancelling the jobs") &&
               in_err("did not end within 2 s") && R.r_elapsed < 4.5,
           "load --timeout 1, a scheduler that never answers: exit 1 in "
           "%.2f s",
           R.r_elapsed);
    if (R.r_status != 1)
        show("load --timeout 1, mute");

    cr_pokes lint = {{SIGINT, 0}, {1.0, 0}};
    cr_sky(20, &lint, "load", "--scheduler", raw_ep, "--jobs", "6", NULL);
    tap_ok(R.r_status == 130 && in_err("interrupted: cancelling the jobs") &&
               R.r_elapsed - 1.0 < 3,
           "load, a peer that never answers, SIGINT: exit 130 %.2f s after it",
           R.r_elapsed - 1.0);
    if (R.r_status != 130)
        show("load, SIGINT, raw");

    stop_mute_sched();
    nn_close(raw_sock);
}

int main(void)
{
    if (cr_skylark() == NULL)
        tap_skip_all("no skylark tool under $top_builddir");
    tap_timeout(120);
    tap_plan((int)NBAD + 13);
    signal(SIGPIPE, SIG_IGN);
    dh_init();

    test_bad_addresses();
    test_wrong_daemon();
    test_never_answers();
    return tap_exit_status();
}
