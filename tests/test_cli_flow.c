/*
 * test_cli_flow.c - the flow path's options of `skylark run` (--long,
 * --placement, --rack) and `skylark load` (--placement) reach the wire,
 * through the real tool: a fake scheduler in a child process rejects
 * every SUBMIT_JOB with a reason that spells the job's flow fields, and
 * the tool prints that reason. Bad values are bad usage (exit 2, nothing
 * sent). Every command runs under a time limit; the child is killed at
 * the end.
 */
#include "cli_run.h"
#include "sk_log.h"
#include "tap.h"
#include "test_client_fake.h"
#include "transport_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t fake_pid;
static char fake_ep[64];
static char nodir[64]; /* a cluster directory with no key in it */

/* "long=L placement=P tasks=N racks=A,B|C" of sj, with the task's racks
 * joined by commas and tasks by bars; "sched-fields" when a task carries
 * an attempt or done. */
static void spell(const sk_submit_job *sj, char *out, size_t len)
{
    size_t n = (size_t)snprintf(
        out, len, "long=%d placement=%u tasks=%u racks=", sj->sj_long,
        sj->sj_placement, sj->sj_ntasks);
    for (uint32_t t = 0; t < sj->sj_ntasks && n < len; t++) {
        const sk_task_spec *ts = &sj->sj_tasks[t];
        if (ts->ts_attempt != 0 || ts->ts_done) {
            snprintf(out, len, "sched-fields");
            return;
        }
        for (uint32_t k = 0; k < ts->ts_nracks && n < len; k++)
            n += (size_t)snprintf(out + n, len - n, "%s%s", k ? "," : "",
                                  ts->ts_racks[k]);
        if (t + 1 < sj->sj_ntasks && n < len)
            n += (size_t)snprintf(out + n, len - n, "|");
    }
}

static void reject_spelled(fake *f, sk_peer_id from, const sk_msg *msg)
{
    if (msg->m_type != SK_MSG_SUBMIT_JOB)
        return;
    char why[512];
    spell(&msg->m_submit_job, why, sizeof why);
    sk_msg m = {.m_type = SK_MSG_JOB_REJECTED};
    m.m_job_ack.ja_job = msg->m_submit_job.sj_job;
    m.m_job_ack.ja_reason = why;
    fake_send(f, &m);
    f->fk_nmsgs = 0; /* keeps no copies: any number of jobs */
}

static void start_fake(void)
{
    snprintf(fake_ep, sizeof fake_ep, "tcp://127.0.0.1:%d", tu_free_port());
    int p[2];
    if (pipe(p) != 0)
        tap_bail_out("pipe: %s", strerror(errno));
    fake_pid = fork();
    if (fake_pid < 0)
        tap_bail_out("fork: %s", strerror(errno));
    if (fake_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p[0]);
        sk_log_set_level(SK_LOG_OFF);
        struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
        static fake f;
        fake_start(&f, loop, fake_ep, "sched", "fake", SK_ROLE_SCHEDULER);
        f.fk_auto = reject_spelled;
        if (write(p[1], "y", 1) != 1)
            _exit(1);
        ev_run(loop, 0);
        _exit(0);
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1)
        tap_bail_out("the fake scheduler did not start");
    close(p[0]);
}

static void stop_fake(void)
{
    kill(fake_pid, SIGKILL);
    waitpid(fake_pid, NULL, 0);
}

static void show(void)
{
    tap_diag("status %d after %.2f s", R.r_status, R.r_elapsed);
    tap_diag("stdout: %s", R.r_out);
    tap_diag("stderr: %s", R.r_err);
}

/* The exit status, and a line of stderr that ends with in_err. */
static void expect(const char *what, int status, const char *in_err)
{
    const char *at = strstr(R.r_err, in_err);
    int ok = R.r_status == status && at != NULL && at[strlen(in_err)] == '\n';
    tap_ok(ok, "%s: exit %d, '%s'", what, status, in_err);
    if (!ok)
        show();
}

static void test_run(void)
{
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep, "-n", "2",
           "--", "true", NULL);
    expect("run", 1, "job rejected: long=0 placement=0 tasks=2 racks=|");
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep, "-n", "3",
           "--long", "--rack", "r1", "--rack", "rack-two", "--", "sleep", "1",
           NULL);
    expect("run --long --rack r1 --rack rack-two", 1,
           "job rejected: long=1 placement=0 tasks=3 "
           "racks=r1,rack-two|r1,rack-two|r1,rack-two");
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep,
           "--placement", "flow", "--", "true", NULL);
    expect("run --placement flow", 1,
           "job rejected: long=0 placement=1 tasks=1 racks=");
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep,
           "--placement", "sample", "--long", "--", "true", NULL);
    expect("run --placement sample --long", 1,
           "job rejected: long=1 placement=0 tasks=1 racks=");
}

static void test_load(void)
{
    cr_sky(20, NULL, "load", "--dir", nodir, "--scheduler", fake_ep, "--jobs",
           "2", "--users", "ann", "--tasks", "1-1", "--placement", "flow",
           NULL);
    expect("load --placement flow", 1,
           "job rejected: long=0 placement=1 tasks=1 racks=");
    cr_sky(20, NULL, "load", "--dir", nodir, "--scheduler", fake_ep, "--jobs",
           "2", "--users", "ann", "--tasks", "2-2", NULL);
    expect("load", 1, "job rejected: long=0 placement=0 tasks=2 racks=|");
}

static void test_bad_usage(void)
{
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep,
           "--placement", "quincy", "--", "true", NULL);
    expect("run --placement quincy", 2,
           "--placement takes sample or flow, got 'quincy'");
    cr_sky(20, NULL, "load", "--dir", nodir, "--scheduler", fake_ep,
           "--placement", "", NULL);
    expect("load --placement ''", 2,
           "--placement takes sample or flow, got ''");
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep, "--rack",
           "", "--", "true", NULL);
    expect("run --rack ''", 2,
           "--rack takes a name of 1..255 bytes of graphic ASCII (no space), "
           "got ''");
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep, "--rack",
           "rack 1", "--", "true", NULL);
    expect("run --rack 'rack 1'", 2,
           "--rack takes a name of 1..255 bytes of graphic ASCII (no space), "
           "got 'rack 1'");
    char big[300];
    memset(big, 'r', 256);
    big[256] = '\0';
    cr_sky(20, NULL, "run", "--dir", nodir, "--scheduler", fake_ep, "--rack",
           big, "--", "true", NULL);
    char want[400];
    snprintf(want, sizeof want,
             "--rack takes a name of 1..255 bytes of graphic ASCII (no "
             "space), got '%s'",
             big);
    expect("run --rack <256 bytes>", 2, want);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)cr_skylark();
    argv[n++] = "run";
    argv[n++] = "--scheduler";
    argv[n++] = fake_ep;
    for (int i = 0; i < 17; i++) {
        argv[n++] = "--rack";
        argv[n++] = "r";
    }
    argv[n++] = "true";
    argv[n] = NULL;
    cr_run(argv, 20, NULL);
    expect("run with 17 --rack", 2, "at most 16 racks");
}

int main(void)
{
    if (cr_skylark() == NULL)
        tap_skip_all("no skylark tool under $top_builddir");
    tap_timeout(120);
    tap_plan(12);
    signal(SIGPIPE, SIG_IGN);
    unsetenv("SKYLARK_KEY_FILE");
    snprintf(nodir, sizeof nodir, "/tmp/test_cli_flow.%ld/none",
             (long)getpid());
    /* The child first: nanomsg's threads do not survive a fork. */
    start_fake();
    test_run();
    test_load();
    test_bad_usage();
    stop_fake();
    return tap_exit_status();
}
