/*
 * test_daemon_cli.c - the command line and the life cycle of the real
 * daemons: --help and --version, exit status 2 with file:line for a bad
 * configuration and with the option for a bad option, exit status 1 when
 * the endpoint is taken, the example configurations of docs/ start, and
 * SIGTERM/SIGINT stop a daemon cleanly (exit 0), a node monitor killing
 * its running tasks' process groups on the way (its tasks are then lost
 * for the scheduler).
 */
#include "daemon_harness.h"
#include "sk_config.h"
#include "tap.h"
#include "transport_util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int nrun;

/* Runs the program in argv to its end (5 s at most); returns its exit
 * status (-1 if it did not exit normally) and leaves its output in p. */
static int run(dh_proc *p, const char *name, char *const argv[])
{
    char log[64];
    snprintf(log, sizeof log, "run%d-%s.log", ++nrun, name);
    memset(p, 0, sizeof *p);
    snprintf(p->dp_name, sizeof p->dp_name, "%s", name);
    if (dh_spawn(p, log, argv) != 0 || !dh_wait_exit(p, 5)) {
        dh_kill(p);
        return -1;
    }
    return WIFEXITED(p->dp_status) ? WEXITSTATUS(p->dp_status) : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether a live (not zombie) process is in process group pgid. */
static int group_alive(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    struct dirent *e;
    int alive = 0;
    while (!alive && (e = readdir(d)) != NULL) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        if (p != NULL && sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) == 3)
            alive = pgrp == pgid && state != 'Z';
    }
    closedir(d);
    return alive;
}

static void test_help_version(void)
{
    const char *prog[2] = {dh_sched_path(), dh_nodemon_path()};
    for (int i = 0; i < 2; i++) {
        dh_proc p;
        char *help[] = {(char *)prog[i], "--help", NULL};
        char *version[] = {(char *)prog[i], "--version", NULL};
        tap_ok(run(&p, "help", help) == 0 && dh_log_has(&p, "--listen") &&
                   dh_log_has(&p, "[transport]") &&
                   dh_log_has(&p, "heartbeat_s"),
               "%s --help lists options and keys, exit 0",
               strrchr(prog[i], '/') + 1);
        tap_ok(run(&p, "version", version) == 0 && dh_log_has(&p, "(skylark) "),
               "--version, exit 0");
    }
}

/* Writes the len bytes of data (NULs and all) to dh_dir()/name; returns the
 * path (dh_write_file's buffer). */
static const char *write_bytes(const char *name, const char *data, size_t len)
{
    const char *path = dh_write_file(name, "");
    FILE *f = fopen(path, "w");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        tap_bail_out("cannot write %s", path);
    return path;
}

/* A NUL byte or an over-long line in a daemon's file: exit 2 naming the
 * line. libinih stopped each line at its first NUL: a zero-filled file (as
 * a crash can leave one) loaded as empty and the daemon ran on its
 * defaults; "\0[nodemon]\nslots = 0" was a syntax error on line 2. */
static void test_binary_config(void)
{
    static const char zeros[4096];
    const char *conf = write_bytes("zeros.conf", zeros, sizeof zeros);
    char want[700];
    snprintf(want, sizeof want, "%s:1: NUL byte at column 1 (byte offset 0)",
             conf);
    dh_proc p;
    char *a0[] = {(char *)dh_nodemon_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "zeroconf", a0) == 2 && dh_log_has(&p, want),
           "skylark-nodemon refuses a zero-filled file: exit 2, %s", want);

    static const char nul_first[] = "\0[nodemon]\nslots = 0\n";
    conf = write_bytes("nul.conf", nul_first, sizeof nul_first - 1);
    snprintf(want, sizeof want, "%s:1: NUL byte at column 1 (byte offset 0)",
             conf);
    char *a1[] = {(char *)dh_nodemon_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "nulconf", a1) == 2 && dh_log_has(&p, want),
           "skylark-nodemon refuses a file starting with NUL: exit 2, %s",
           want);

    static const char nul_mid[] = "[sched]\nid = 2\n\nname = s\0x\n";
    conf = write_bytes("nul2.conf", nul_mid, sizeof nul_mid - 1);
    snprintf(want, sizeof want, "%s:4: NUL byte at column 9 (byte offset 24)",
             conf);
    char *a2[] = {(char *)dh_sched_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "nulconf2", a2) == 2 && dh_log_has(&p, want),
           "skylark-sched refuses an embedded NUL: exit 2, %s", want);

    char text[SK_CONFIG_MAX_LINE + 64];
    int n = snprintf(text, sizeof text, "[nodemon]\nnode = ");
    memset(text + n, 'n', SK_CONFIG_MAX_LINE);
    conf = write_bytes("long.conf", text, (size_t)n + SK_CONFIG_MAX_LINE);
    snprintf(want, sizeof want, "%s:2: line too long: %d bytes, at most %d",
             conf, SK_CONFIG_MAX_LINE + 7, SK_CONFIG_MAX_LINE);
    char *a3[] = {(char *)dh_nodemon_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "longconf", a3) == 2 && dh_log_has(&p, want),
           "an over-long line: exit 2, %s", want);
}

static void test_bad_usage(void)
{
    const char *conf =
        dh_write_file("bad.conf", "[sched]\nid = 2\nprobe_ratio = 0.5\n");
    char path[600];
    snprintf(path, sizeof path, "%s:3: [sched] probe_ratio", conf);
    dh_proc p;
    char *a1[] = {(char *)dh_sched_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "badconf", a1) == 2 && dh_log_has(&p, path),
           "a bad value: exit 2 naming file:line and key");
    conf = dh_write_file("bad2.conf", "[nodemon]\nslots = 2\n\n[nodemon]\n"
                                      "bogus = 1\n");
    snprintf(path, sizeof path, "%s:5: [nodemon] bogus: unknown key", conf);
    char *a2[] = {(char *)dh_nodemon_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "badconf2", a2) == 2 && dh_log_has(&p, path),
           "an unknown key: exit 2 naming file:line and key");
    conf = dh_write_file("bad3.conf", "[nodemon]\nnot a key value line\n");
    snprintf(path, sizeof path, "%s:2: syntax error", conf);
    char *a3[] = {(char *)dh_nodemon_path(), "--config", (char *)conf, NULL};
    tap_ok(run(&p, "badconf3", a3) == 2 && dh_log_has(&p, path),
           "a syntax error: exit 2 naming file:line");
    char *a4[] = {(char *)dh_sched_path(), "--config", "/nonexistent.conf",
                  NULL};
    tap_ok(run(&p, "noconf", a4) == 2 && dh_log_has(&p, "cannot open"),
           "a missing file: exit 2");
    char *a5[] = {(char *)dh_sched_path(), "--bogus", NULL};
    tap_ok(run(&p, "badopt", a5) == 2 && dh_log_has(&p, "--help"),
           "an unknown option: exit 2");
    char *a6[] = {(char *)dh_nodemon_path(), "--slots", "0", NULL};
    tap_ok(run(&p, "badslots", a6) == 2 &&
               dh_log_has(&p, "--slots: [nodemon] slots: must be in"),
           "a bad option value: exit 2 naming the option and key");
    char *a7[] = {(char *)dh_sched_path(), "--set", "sched.probe_ratio=x",
                  NULL};
    tap_ok(run(&p, "badset", a7) == 2 && dh_log_has(&p, "probe_ratio"),
           "a bad --set: exit 2");
    char *a8[] = {(char *)dh_nodemon_path(), "--name", "no spaces", NULL};
    tap_ok(run(&p, "badname", a8) == 2 && dh_log_has(&p, "name 'no spaces'"),
           "a name the transport cannot carry: exit 2");
    char *a9[] = {(char *)dh_nodemon_path(), "--scheduler", "tcp://nohost",
                  NULL};
    tap_ok(run(&p, "badep", a9) == 2 && dh_log_has(&p, "tcp://HOST:PORT"),
           "a bad endpoint: exit 2");
    char *a10[] = {(char *)dh_nodemon_path(), "--weight", "alice", NULL};
    tap_ok(run(&p, "badweight", a10) == 2 && dh_log_has(&p, "USER=W"),
           "a bad --weight: exit 2");
    char *a11[] = {(char *)dh_nodemon_path(), "--rack", "rack 1", NULL};
    tap_ok(run(&p, "badrack", a11) == 2 &&
               dh_log_has(&p, "[nodemon] rack: must be 1 to 255 bytes of "
                              "graphic ASCII (no space, no control byte), "
                              "got 'rack 1'"),
           "a rack with a space: exit 2");
}

static void test_port_taken(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(s, 1) != 0 || getsockname(s, (struct sockaddr *)&a, &len) != 0)
        tap_bail_out("cannot hold a port");
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", ntohs(a.sin_port));
    dh_proc p;
    char *argv[] = {(char *)dh_sched_path(), "--listen", ep, NULL};
    tap_ok(run(&p, "taken", argv) == 1 && dh_log_has(&p, "cannot listen"),
           "an endpoint in use: exit 1");
    close(s);
}

static void test_examples(void)
{
    const char *src = getenv("top_srcdir");
    char sconf[600], nconf[600];
    snprintf(sconf, sizeof sconf, "%s/docs/skylark-sched.conf",
             src ? src : "..");
    snprintf(nconf, sizeof nconf, "%s/docs/skylark-nodemon.conf",
             src ? src : "..");
    const char *se[] = {"--config", sconf, NULL};
    dh_proc s, n;
    tap_ok(dh_start_sched(&s, "example-s", 0, se) == 0,
           "skylark-sched starts with docs/skylark-sched.conf");
    const char *ne[] = {"--config", nconf, NULL};
    const dh_proc *ss[] = {&s};
    tap_ok(dh_start_nodemon(&n, "example-n", 1, 2, ss, 1, ne) == 0,
           "skylark-nodemon starts with docs/skylark-nodemon.conf");
    dh_client *c = dh_client_new("tool", "t1");
    sk_peer_id sp = dh_client_connect(c, s.dp_endpoint, 5);
    sk_peer_id np = dh_client_connect(c, n.dp_endpoint, 5);
    tap_ok(sp != 0 && np != 0 && dh_wait_status(c, sp, "nodes", 1, 5, NULL) &&
               dh_wait_status(c, np, "nodemon.schedulers", 1, 1, NULL),
           "the command line's --scheduler replaces the file's list");
    dh_client_free(c);
    kill(s.dp_pid, SIGINT);
    tap_ok(dh_wait_exit(&s, 5) && WIFEXITED(s.dp_status) &&
               WEXITSTATUS(s.dp_status) == 0 && dh_log_has(&s, "stopped"),
           "SIGINT stops the scheduler: exit 0");
    dh_kill(&n);
}

static void test_sigterm(void)
{
    dh_proc s, n;
    if (dh_start_sched(&s, "term-s", 1, NULL) != 0)
        tap_bail_out("scheduler did not start");
    const dh_proc *ss[] = {&s};
    if (dh_start_nodemon(&n, "term-n", 1, 2, ss, 1, NULL) != 0)
        tap_bail_out("node monitor did not start");
    dh_client *c = dh_client_new("frontend", "fe");
    sk_peer_id sp = dh_client_connect(c, s.dp_endpoint, 5);
    dh_client_hello(c, sp, SK_ROLE_FRONTEND);
    dh_wait_status(c, sp, "nodes", 1, 5, NULL);
    char pids[512], cmd[700];
    snprintf(pids, sizeof pids, "%s/pids", dh_dir());
    snprintf(cmd, sizeof cmd, "echo $$ >> %s; sleep 30", pids);
    dh_job *j = dh_client_submit(c, sp, 1, 2, cmd, "alice", 1);
    pid_t pg[2] = {0, 0};
    double end = now_s() + 5;
    while (now_s() < end && pg[1] == 0) {
        dh_client_run_for(c, 0.02);
        FILE *f = fopen(pids, "r");
        if (f != NULL) {
            int a = 0, b = 0;
            if (fscanf(f, "%d %d", &a, &b) == 2) {
                pg[0] = a;
                pg[1] = b;
            }
            fclose(f);
        }
    }
    tap_ok(pg[0] > 0 && pg[1] > 0 && group_alive(pg[0]) && group_alive(pg[1]),
           "two tasks of 30 s run");
    double t0 = now_s();
    kill(n.dp_pid, SIGTERM);
    int exited = dh_wait_exit(&n, 5);
    tap_ok(exited && WIFEXITED(n.dp_status) && WEXITSTATUS(n.dp_status) == 0,
           "SIGTERM stops the node monitor: exit 0 after %.2f s", now_s() - t0);
    tap_ok(pg[0] > 0 && !group_alive(pg[0]) && !group_alive(pg[1]),
           "and its tasks' process groups are gone");
    tap_ok(j != NULL && dh_job_wait_done(c, j, 5) && j->jb_summary.jd_lost == 2,
           "the scheduler reports both tasks lost");
    kill(s.dp_pid, SIGTERM);
    exited = dh_wait_exit(&s, 5);
    tap_ok(exited && WIFEXITED(s.dp_status) && WEXITSTATUS(s.dp_status) == 0 &&
               dh_log_has(&s, "stopped"),
           "SIGTERM stops the scheduler: exit 0");
    dh_client_free(c);
}

/* As root, task accounts end to end: accounts checked at start, alice's
 * task runs as nobody, bob's (unmapped) is refused with the reason, and
 * the refusal is counted in the node monitor's status. */
#define ACCOUNT_TESTS 5
static void test_accounts(void)
{
    struct passwd *pw = getpwnam("nobody");
    if (geteuid() != 0 || pw == NULL) {
        tap_skip(ACCOUNT_TESTS, "%s",
                 pw == NULL ? "no account 'nobody' on this machine"
                            : "not root: the node monitor ignores [accounts] "
                              "and runs tasks as itself");
        return;
    }
    char uid[32];
    snprintf(uid, sizeof uid, "%u\n", (unsigned)pw->pw_uid);
    dh_proc p;
    char *a0[] = {(char *)dh_nodemon_path(), "--set",
                  "accounts.alice=no-such-account-xq", NULL};
    tap_ok(run(&p, "badaccount", a0) == 2 &&
               dh_log_has(&p, "[accounts] alice: no Unix account "
                              "'no-such-account-xq' on this machine"),
           "an account that does not exist: exit 2 naming it");
    char *a1[] = {(char *)dh_nodemon_path(), "--set",
                  "cmdexec.default_account=root", NULL};
    tap_ok(run(&p, "rootaccount", a1) == 2 &&
               dh_log_has(&p, "[cmdexec] default_account: account 'root' is "
                              "root (uid 0); set [cmdexec] allow_root"),
           "root as an account without allow_root: exit 2");

    dh_proc s, n;
    if (dh_start_sched(&s, "acct-s", 1, NULL) != 0)
        tap_bail_out("scheduler did not start");
    const dh_proc *ss[] = {&s};
    /* After the harness's own allow_root: the last value wins. */
    const char *ne[] = {"--set", "accounts.alice=nobody", "--set",
                        "cmdexec.allow_root=no", NULL};
    if (dh_start_nodemon(&n, "acct-n", 1, 2, ss, 1, ne) != 0)
        tap_bail_out("node monitor did not start");
    dh_client *c = dh_client_new("frontend", "fe-acct");
    sk_peer_id sp = dh_client_connect(c, s.dp_endpoint, 5);
    sk_peer_id np = dh_client_connect(c, n.dp_endpoint, 5);
    dh_client_hello(c, sp, SK_ROLE_FRONTEND);
    dh_wait_status(c, sp, "nodes", 1, 5, NULL);
    dh_job *ja = dh_client_submit(c, sp, 1, 1, "id -u", "alice", 1);
    dh_job *jb = dh_client_submit(c, sp, 2, 1, "id -u", "bob", 1);
    tap_ok(ja != NULL && dh_job_wait_done(c, ja, 10) &&
               ja->jb_status[0] == SK_TASK_OK && ja->jb_output[0] != NULL &&
               strcmp(ja->jb_output[0], uid) == 0,
           "alice's task runs as nobody (uid %u): %s", (unsigned)pw->pw_uid,
           ja && ja->jb_output[0] ? ja->jb_output[0] : "");
    tap_ok(jb != NULL && dh_job_wait_done(c, jb, 10) &&
               jb->jb_status[0] == SK_TASK_FAILED && jb->jb_output[0] != NULL &&
               strcmp(jb->jb_output[0],
                      "no account for user bob on node acct-n") == 0,
           "bob's task, unmapped, fails with the reason: %s",
           jb && jb->jb_output[0] ? jb->jb_output[0] : "");
    tap_ok(np != 0 && dh_wait_status(c, np, "cmdexec.no_account", 1, 5, NULL),
           "the refusal is counted in the node monitor's status");
    dh_client_free(c);
    dh_kill(&n);
    dh_kill(&s);
}

int main(void)
{
    tap_plan(29 + ACCOUNT_TESTS);
    tap_timeout(60);
    dh_init();
    test_help_version();
    test_bad_usage();
    test_binary_config();
    test_port_taken();
    test_examples();
    test_sigterm();
    test_accounts();
    return tap_exit_status();
}
