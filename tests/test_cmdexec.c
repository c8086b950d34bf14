/*
 * test_cmdexec.c - the node monitor's built-in command executor on a real
 * libev loop with real shells: exit codes and signals, the output tail,
 * the environment, stdin, process groups, kills with and without a grace,
 * leftovers of a task's group, spec validation, the concurrency limit,
 * destroy killing what still runs, the guard killing it when the
 * executor's process dies of SIGKILL, RLIMIT_AS from a memory request,
 * (as root only) tasks run as the account their user maps to, (as
 * root with cgroup v2 only) tasks confined in a cgroup of their own, and
 * with a journal: the same behaviour through the task keeper, the
 * records, and the end of a task that ended just before its executor's
 * process was killed, read back from the journal.
 */
#include "nm_cmdexec.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <errno.h>
#include <ev.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESULTS 128

typedef struct result {
    sk_task_finished r_tf;
    char r_out[SK_MAX_OUTPUT_BYTES + 1];
} result;

static struct ev_loop *loop;
static nm_cmdexec *x;
static result results[MAX_RESULTS];
static int nresults;
static int ready_calls;
static char dir[64];
static nm_journal *jn; /* the journal of the executors make() makes */

static void take(void)
{
    sk_task_finished tf;
    while (nresults < MAX_RESULTS && nm_cmdexec_next(x, &tf)) {
        result *r = &results[nresults++];
        r->r_tf = tf;
        memcpy(r->r_out, tf.tf_output.b_data, tf.tf_output.b_len);
        r->r_out[tf.tf_output.b_len] = '\0';
    }
}

static void on_ready(void *arg)
{
    (void)arg;
    ready_calls++;
    take();
}

static int have(void *arg)
{
    return nresults >= *(int *)arg;
}

/* Runs the loop until n results in all have come (or 10 s). */
static int wait_results(int n)
{
    take();
    return tu_run_until(loop, have, &n, 10);
}

/* Launches a task of user with a memory request of mem_mb MiB. */
static void launch_full(uint64_t job, uint32_t task, const void *spec,
                        uint32_t len, const char *user, uint32_t mem_mb)
{
    sk_launch lt;
    memset(&lt, 0, sizeof lt);
    lt.lt_job = job;
    lt.lt_task = task;
    lt.lt_attempt = 2;
    lt.lt_user = user;
    lt.lt_res.r_mem_mb = mem_mb;
    lt.lt_spec.b_data = spec;
    lt.lt_spec.b_len = len;
    lt.lt_framework = "";
    nm_cmdexec_launch(x, &lt, NULL, 1000);
}

/* Launches cmd as the attempt (job, task, 2) of origin o. */
static void launch_of(uint64_t job, uint32_t task, const char *cmd,
                      const nm_origin *o)
{
    sk_launch lt;
    memset(&lt, 0, sizeof lt);
    lt.lt_job = job;
    lt.lt_task = task;
    lt.lt_attempt = 2;
    lt.lt_user = "alice";
    lt.lt_spec.b_data = (const uint8_t *)cmd;
    lt.lt_spec.b_len = (uint32_t)strlen(cmd) + 1;
    lt.lt_framework = "";
    nm_cmdexec_launch(x, &lt, o, 1000);
}

static void launch_spec(uint64_t job, uint32_t task, const void *spec,
                        uint32_t len)
{
    launch_full(job, task, spec, len, "alice", 0);
}

static void launch(uint64_t job, uint32_t task, const char *cmd)
{
    launch_spec(job, task, cmd, (uint32_t)strlen(cmd) + 1);
}

static void launch_as(uint64_t job, uint32_t task, const char *user,
                      uint32_t mem_mb, const char *cmd)
{
    launch_full(job, task, cmd, (uint32_t)strlen(cmd) + 1, user, mem_mb);
}

static const result *find(uint64_t job, uint32_t task)
{
    for (int i = 0; i < nresults; i++)
        if (results[i].r_tf.tf_job == job && results[i].r_tf.tf_task == task)
            return &results[i];
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A process is gone when /proc has no entry or shows a zombie. */
static int gone(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

static int wait_gone(pid_t pid, double timeout)
{
    double end = now_s() + timeout;
    while (!gone(pid)) {
        if (now_s() > end)
            return 0;
        usleep(5000);
    }
    return 1;
}

static pid_t read_pid(const char *path, double timeout)
{
    double end = now_s() + timeout;
    while (now_s() < end) {
        ev_run(loop, EVRUN_NOWAIT);
        FILE *f = fopen(path, "r");
        int pid = 0;
        if (f != NULL) {
            int ok = fscanf(f, "%d", &pid);
            fclose(f);
            if (ok == 1 && pid > 0)
                return pid;
        }
        usleep(5000);
    }
    return 0;
}

static void make_as(uint32_t max_children, int64_t grace_ms,
                    const nm_accounts *accounts)
{
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    cfg.cx_accounts = accounts;
    cfg.cx_max_children = max_children;
    cfg.cx_kill_grace_ms = grace_ms;
    cfg.cx_journal = jn;
    snprintf(cfg.cx_keeper, sizeof cfg.cx_keeper, "%s", SK_TEST_KEEPER);
    snprintf(cfg.cx_node, sizeof cfg.cx_node, "node-7");
    if (nm_cmdexec_create(loop, &cfg, on_ready, NULL, &x) != 0)
        tap_bail_out("cannot create the command executor");
    nresults = 0;
}

static void make(uint32_t max_children, int64_t grace_ms)
{
    make_as(max_children, grace_ms, NULL);
}

static void test_create(void)
{
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    nm_cmdexec *y;
    snprintf(cfg.cx_shell, sizeof cfg.cx_shell, "sh");
    tap_is_int(nm_cmdexec_create(loop, &cfg, NULL, NULL, &y), SK_EINVAL,
               "a relative shell path is refused");
}

/* The task's open descriptors as "0 1 2 ", listed by the task's shell
 * itself: no pipeline (whose pipe the shell holds while its children run,
 * so `ls /proc/$$/fd | tr` saw 3 and 4 in 6 of 20 runs under load), no
 * other program. The glob reads /proc/$$/fd through a descriptor of its
 * own, closed before the loop runs: an entry still open when tested is
 * one the task had, not the glob's. */
#define LIST_FDS                                                               \
    "for f in /proc/$$/fd/*; do "                                              \
    "[ -e \"$f\" ] && printf '%s ' \"${f##*/}\"; done; exit 0"

static void test_exit_codes(void)
{
    launch(1, 0, "exit 0");
    launch(1, 1, "exit 3");
    launch(1, 2, "kill -9 $$");
    launch(1, 3, "set -- $(cat /proc/$$/stat); [ \"$5\" = \"$$\" ]");
    launch(1, 4, "cat; echo \"[$?]\"");
    launch(1, 5, LIST_FDS);
    launch(1, 6, "exec 7</dev/null; " LIST_FDS);
    tap_ok(wait_results(7), "seven commands end");
    const result *r = find(1, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK && r->r_tf.tf_exit == 0,
           "exit 0 is OK");
    r = find(1, 1);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED && r->r_tf.tf_exit == 3,
           "exit 3 is FAILED with exit 3");
    r = find(1, 2);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED && r->r_tf.tf_exit == -9,
           "a shell killed by signal 9 is FAILED with exit -9");
    r = find(1, 3);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK,
           "the task leads a process group of its own");
    r = find(1, 4);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
               strcmp(r->r_out, "[0]\n") == 0,
           "stdin is /dev/null (cat ends at once)");
    r = find(1, 5);
    if (!tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
                    strcmp(r->r_out, "0 1 2 ") == 0,
                "the task has stdin, stdout, stderr and no other descriptor"))
        tap_diag("descriptors: %s", r ? r->r_out : "");
    r = find(1, 6);
    if (!tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
                    strcmp(r->r_out, "0 1 2 7 ") == 0,
                "the same listing sees a descriptor the task opened"))
        tap_diag("descriptors: %s", r ? r->r_out : "");
    r = find(1, 0);
    tap_ok(r && r->r_tf.tf_launch_us == 1000 && r->r_tf.tf_end_us > 1000 &&
               r->r_tf.tf_job == 1 && r->r_tf.tf_attempt == 2,
           "results carry the attempt, its launch and end times");
    tap_ok(ready_calls > 0, "the ready callback ran");
}

static void test_output_env(void)
{
    nresults = 0;
    setenv("SKYLARK_JOB_ID", "stale", 1);
    setenv("SKYLARK_TEST_KEEP", "kept", 1);
    nm_cmdexec_destroy(x);
    make(8, 200);
    launch(2, 0, "printf out; printf err >&2");
    launch(2, 1, "head -c 100000 /dev/zero | tr '\\0' a; printf END");
    launch(77, 5,
           "echo $SKYLARK_JOB_ID $SKYLARK_TASK_INDEX $SKYLARK_ATTEMPT "
           "$SKYLARK_USER $SKYLARK_NODE $SKYLARK_TEST_KEEP");
    tap_ok(wait_results(3), "three commands with output end");
    const result *r = find(2, 0);
    tap_ok(r && strcmp(r->r_out, "outerr") == 0,
           "stdout and stderr are both captured: '%s'", r ? r->r_out : "");
    r = find(2, 1);
    size_t len = r ? strlen(r->r_out) : 0;
    tap_ok(r && r->r_tf.tf_output.b_len == SK_MAX_OUTPUT_BYTES &&
               len == SK_MAX_OUTPUT_BYTES &&
               strcmp(r->r_out + len - 3, "END") == 0 && r->r_out[0] == 'a',
           "100,000 bytes of output keep their last %u bytes (%zu)",
           SK_MAX_OUTPUT_BYTES, len);
    r = find(77, 5);
    if (!tap_ok(r && strcmp(r->r_out, "77 5 2 alice node-7 kept\n") == 0,
                "SKYLARK_* variables replace the daemon's, the rest is kept"))
        tap_diag("got '%s'", r ? r->r_out : "");
    const nm_cmdexec_stats *st = nm_cmdexec_stats_get(x);
    tap_ok(st->cs_output_bytes >= 100003, "output bytes are counted (%llu)",
           (unsigned long long)st->cs_output_bytes);
}

static void test_kill(void)
{
    nresults = 0;
    double t0 = now_s();
    launch(3, 0, "sleep 30");
    launch(3, 1, "trap '' TERM; sleep 30");
    tu_run_for(loop, 0.1);
    sk_kill_task kt = {3, 0, 2};
    tap_is_int(nm_cmdexec_kill(x, &kt), 1, "kill applies to one task");
    kt.kt_task = 1;
    nm_cmdexec_kill(x, &kt);
    tap_ok(wait_results(2), "both killed tasks end");
    const result *r = find(3, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_KILLED && r->r_tf.tf_exit == -15,
           "SIGTERM ends a plain task: KILLED, exit %d",
           r ? r->r_tf.tf_exit : 0);
    r = find(3, 1);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_KILLED && r->r_tf.tf_exit == -9,
           "a task that ignores SIGTERM gets SIGKILL after the grace: exit %d",
           r ? r->r_tf.tf_exit : 0);
    tap_ok(now_s() - t0 < 2, "within %.2f s", now_s() - t0);
    kt.kt_job = 99;
    tap_is_int(nm_cmdexec_kill(x, &kt), 0,
               "a kill for nothing applies to none");
    /* A task that ended by itself before the kill (its end not yet
     * reaped, as in a node monitor that was stopped) reports its end. */
    launch(4, 0, "exit 0");
    usleep(300 * 1000);
    kt = (sk_kill_task){4, 0, 2};
    nm_cmdexec_kill(x, &kt);
    tap_ok(wait_results(3), "the task that had ended reports");
    r = find(4, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK && r->r_tf.tf_exit == 0,
           "a kill after its end leaves its outcome OK, exit %d",
           r ? r->r_tf.tf_exit : -1);
    tap_is_int((int64_t)nm_cmdexec_stats_get(x)->cs_kill_unknown, 1,
               "and is counted");
}

static void test_leftovers(void)
{
    nresults = 0;
    launch(4, 0, "sleep 30 & echo $!");
    tap_ok(wait_results(1), "a task that leaves a background process ends");
    const result *r = find(4, 0);
    pid_t bg = r ? (pid_t)atoi(r->r_out) : 0;
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK && bg > 0 && wait_gone(bg, 2),
           "when its shell exits, what is left of its group is killed");
}

static void test_specs(void)
{
    nresults = 0;
    launch_spec(5, 0, "true", 4); /* no NUL at the end */
    launch_spec(5, 1, "", 0);
    launch_spec(5, 2, "", 1); /* only the NUL */
    launch_spec(5, 3, "tr\0ue", 6);
    tap_ok(wait_results(4), "four bad specs give four results");
    const char *want[] = {"NUL", "NUL", "empty", "NUL byte before"};
    for (uint32_t t = 0; t < 4; t++) {
        const result *r = find(5, t);
        tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED &&
                   r->r_tf.tf_exit == -1 && strstr(r->r_out, want[t]),
               "bad spec %u: FAILED: %s", t, r ? r->r_out : "");
    }
    tap_is_int((int64_t)nm_cmdexec_stats_get(x)->cs_bad_spec, 4,
               "bad specs are counted");
}

static void test_limits(void)
{
    nm_cmdexec_destroy(x);
    make(4, 200);
    for (uint32_t t = 0; t < 5; t++)
        launch(6, t, "sleep 30");
    launch(6, 0, "sleep 30"); /* the same attempt again */
    take();
    tap_ok(nresults == 2 && find(6, 4) &&
               find(6, 4)->r_tf.tf_status == SK_TASK_FAILED &&
               strstr(find(6, 4)->r_out, "already run"),
           "a fifth task over max_children fails at once: %s",
           find(6, 4) ? find(6, 4)->r_out : "");
    tap_ok(nresults == 2 && results[1].r_tf.tf_task == 0 &&
               strstr(results[1].r_out, "already runs"),
           "a second launch of a running attempt fails at once");
    tap_is_int(nm_cmdexec_stats_get(x)->cs_running, 4, "four tasks run");
    sk_kill_task all = {6, SK_TASK_ANY, 0};
    tap_is_int(nm_cmdexec_kill(x, &all), 4, "a job-wide kill applies to four");
    tap_ok(wait_results(6), "and they end");
    int killed = 0;
    for (int i = 2; i < nresults; i++)
        killed += results[i].r_tf.tf_status == SK_TASK_KILLED;
    tap_is_int(killed, 4, "KILLED, all four");

    /* Many short tasks ending together: none is missed. */
    nm_cmdexec_destroy(x);
    make(64, 200);
    for (uint32_t t = 0; t < 64; t++)
        launch(7, t, "exit 0");
    tap_ok(wait_results(64), "64 tasks ending at once are all reaped");
    int ok = 0;
    for (int i = 0; i < nresults; i++)
        ok += results[i].r_tf.tf_status == SK_TASK_OK;
    tap_is_int(ok, 64, "all OK");
}

static void test_destroy(void)
{
    char path[128], cmd[512];
    snprintf(path, sizeof path, "%s/pid", dir);
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > %s.tmp; mv %s.tmp %s; wait",
             path, path, path);
    launch(8, 0, cmd);
    pid_t pid = read_pid(path, 5);
    tap_ok(pid > 0, "a task runs a sleeper");
    nm_cmdexec_destroy(x);
    x = NULL;
    tap_ok(pid > 0 && wait_gone(pid, 2),
           "destroying the executor kills the task's process group");
    unlink(path);
}

/* A node monitor killed with SIGKILL cannot kill its tasks: its guard
 * does (nm_guard.h). The executor lives in a child process here, which
 * the test kills. */
static void test_guard(void)
{
    char path[128], cmd[512];
    snprintf(path, sizeof path, "%s/guarded", dir);
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > %s.tmp; mv %s.tmp %s; wait",
             path, path, path);
    pid_t nm = fork();
    if (nm == 0) {
        loop = ev_loop_new(EVFLAG_AUTO);
        nm_cmdexec_config cfg;
        nm_cmdexec_config_init(&cfg);
        if (loop == NULL ||
            nm_cmdexec_create(loop, &cfg, on_ready, NULL, &x) != 0)
            _exit(1);
        launch(10, 0, cmd);
        ev_run(loop, 0);
        _exit(1);
    }
    pid_t pid = nm > 0 ? read_pid(path, 5) : 0;
    tap_ok(pid > 0, "an executor in another process runs a sleeper");
    if (nm > 0) {
        kill(nm, SIGKILL);
        while (waitpid(nm, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    tap_ok(pid > 0 && wait_gone(pid, 2),
           "that process killed with SIGKILL: its guard kills the task's "
           "process group");
    if (pid > 0 && !gone(pid))
        kill(pid, SIGKILL);
    unlink(path);
}

static uint64_t found_key;

static void recovered_one(void *arg, const nm_journal_entry *e)
{
    (*(int *)arg)++;
    found_key = e->je_origin.or_key;
}

/* The record of (job, task, 2) in journal directory d, read into *e:
 * 1 with an end, 0 without, -1 none or not a record. */
static int record(const char *d, uint64_t job, uint32_t task,
                  nm_journal_entry *e)
{
    char path[256], buf[NM_JOURNAL_MAX_BYTES];
    snprintf(path, sizeof path, "%s/%llu-%u-2", d, (unsigned long long)job,
             task);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return nm_journal_parse(buf, n, e);
}

#define JOURNAL_TESTS (1 + 10 + 9 + 2 + 2 + 1 + 12)

/* With a journal every task runs under its keeper: the same results as
 * without, a record per task, and the end of a task that ended just
 * before its executor's process died of SIGKILL survives in the record. */
static void test_journal(void)
{
    char jdir[128], err[256];
    snprintf(jdir, sizeof jdir, "%s/journal", dir);
    nm_journal *j = NULL;
    tap_is_int(nm_journal_open(jdir, 10000, 64, &j, err, sizeof err), 0,
               "a journal opens on a new directory");
    if (j == NULL)
        tap_bail_out("%s", err);
    jn = j;
    nm_cmdexec_destroy(x);
    make(8, 200);
    test_exit_codes();
    test_kill();
    test_leftovers();

    /* A kill before the keeper has said the task's pid: applied when it
     * does. */
    nresults = 0;
    double t0 = now_s();
    launch(31, 0, "sleep 30");
    sk_kill_task kt = {31, 0, 2};
    nm_cmdexec_kill(x, &kt);
    tap_ok(wait_results(1), "a task killed as it starts ends");
    const result *r = find(31, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_KILLED && now_s() - t0 < 2,
           "KILLED, exit %d, in %.2f s", r ? r->r_tf.tf_exit : 0, now_s() - t0);

    /* The keeper ignores SIGPIPE; its task must not. (Other bits of
     * SigIgn depend on what the test itself inherited.) */
    nresults = 0;
    launch(32, 0,
           "while read -r k v; do [ \"$k\" = SigIgn: ] && echo $v; "
           "done < /proc/$$/status");
    r = wait_results(1) ? find(32, 0) : NULL;
    unsigned long long ign = r != NULL ? strtoull(r->r_out, NULL, 16) : ~0ull;
    tap_ok(r != NULL && (ign & (1ull << (SIGPIPE - 1))) == 0,
           "the task does not ignore SIGPIPE: SigIgn %s",
           r != NULL ? r->r_out : "");

    nresults = 0;
    nm_origin o = {0xabc, 7, 3, 42, "alice"};
    launch_of(30, 0, "exit 5", &o);
    launch_of(30, 1, "exit 0", NULL);
    tap_ok(wait_results(2), "a keyed and an unkeyed task end");
    nm_journal_entry e;
    tap_ok(record(jdir, 30, 0, &e) == 1 && !e.je_signaled && e.je_code == 5 &&
               e.je_origin.or_key == 0xabc && e.je_origin.or_ref == 7 &&
               e.je_origin.or_sched == 3 && e.je_origin.or_sched_inc == 42 &&
               strcmp(e.je_origin.or_user, "alice") == 0 &&
               e.je_launch_us == 1000 && e.je_end_us > 1000,
           "the keyed task's record names it and says how it ended, and "
           "stays after its result was taken");
    tap_is_int(record(jdir, 30, 1, &e), -1,
               "the unkeyed task's record is gone once its result is taken");
    tap_ok(nm_journal_stats_get(j)->js_written >= 2, "records are counted");
    nm_cmdexec_destroy(x);
    x = NULL;
    jn = NULL;
    nm_journal_close(j);
    char path[256];
    snprintf(path, sizeof path, "%s/30-0-2", jdir);
    unlink(path);
    rmdir(jdir);

    /* The executor in a child process, killed with SIGKILL while one task
     * has just ended (its end not taken: the child does not run its loop)
     * and another runs. */
    snprintf(jdir, sizeof jdir, "%s/journal-killed", dir);
    int sync[2];
    if (pipe(sync) != 0)
        tap_bail_out("pipe");
    pid_t nm = fork();
    if (nm == 0) {
        close(sync[0]);
        loop = ev_loop_new(EVFLAG_AUTO);
        if (loop == NULL ||
            nm_journal_open(jdir, 10000, 64, &jn, err, sizeof err) != 0)
            _exit(1);
        make(8, 200);
        nm_origin done = {0xdef, 1, 3, 42, "alice"};
        nm_origin runs = {0xdef, 2, 3, 42, "alice"};
        launch_of(40, 0, "exit 0", &done);
        launch_of(41, 0, "sleep 30", &runs);
        usleep(300 * 1000);
        if (write(sync[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(1);
    }
    close(sync[1]);
    char c;
    int ready = nm > 0 && read(sync[0], &c, 1) == 1;
    close(sync[0]);
    tap_ok(ready, "an executor in another process started two tasks");
    if (nm > 0) {
        kill(nm, SIGKILL);
        while (waitpid(nm, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    double end = now_s() + 5;
    while (record(jdir, 41, 0, &e) != 1 && now_s() < end)
        usleep(5000);
    tap_ok(record(jdir, 41, 0, &e) == 1 && e.je_signaled && e.je_code == 9,
           "the running task, killed by the guard, has its end recorded by "
           "its keeper: signal %d",
           e.je_code);
    tap_ok(record(jdir, 40, 0, &e) == 1 && !e.je_signaled && e.je_code == 0,
           "the task that had ended has its exit recorded");
    j = NULL;
    tap_is_int(nm_journal_open(jdir, 10000, 64, &j, err, sizeof err), 0,
               "the journal opens again, as for the next node monitor");
    if (j == NULL)
        tap_bail_out("%s", err);
    int nfound = 0;
    nm_journal_recover(j, NM_JOURNAL_KEEPER_WAIT_MS, recovered_one, &nfound);
    const nm_journal_stats *js = nm_journal_stats_get(j);
    tap_is_int(nfound, 1, "one end is handed on");
    tap_is_int((int64_t)found_key, 0xdef, "the one that ended by itself");
    tap_ok(js->js_signaled == 1 && js->js_unfinished == 0 && js->js_bad == 0,
           "the killed one is counted, not handed on");
    tap_ok(record(jdir, 40, 0, &e) == -1 && record(jdir, 41, 0, &e) == -1,
           "the records read back are removed");
    nm_journal_close(j);
    rmdir(jdir);
}

static void test_spawn_failure(void)
{
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    snprintf(cfg.cx_shell, sizeof cfg.cx_shell, "/nonexistent/sh");
    if (nm_cmdexec_create(loop, &cfg, on_ready, NULL, &x) != 0)
        tap_bail_out("cannot create the command executor");
    nresults = 0;
    launch(9, 0, "true");
    take();
    tap_ok(nresults == 1 && results[0].r_tf.tf_status == SK_TASK_FAILED &&
               strstr(results[0].r_out, "cannot start /nonexistent/sh") &&
               nm_cmdexec_stats_get(x)->cs_spawn_failed == 1,
           "a shell that cannot start fails the task at once: %s",
           nresults ? results[0].r_out : "");
    nm_cmdexec_destroy(x);
    x = NULL;
}

/* Last: creating libev's default loop takes SIGCHLD for it. */
static void test_default_loop(void)
{
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    nm_cmdexec *y;
    tap_is_int(nm_cmdexec_create(ev_default_loop(0), &cfg, NULL, NULL, &y),
               SK_EINVAL, "the default loop (which reaps children) is refused");
}

/* RLIMIT_AS from the memory request, for any user running the test. */
static void test_mem_limit(void)
{
    nm_cmdexec_destroy(x);
    make(4, 200);
    launch_as(20, 0, "alice", 100,
              "ulimit -v; grep 'Max address space' /proc/self/limits");
    launch_as(20, 1, "alice", 0, "ulimit -v");
    tap_ok(wait_results(2), "two tasks with and without a memory request");
    const result *r = find(20, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
               strncmp(r->r_out, "102400\n", 7) == 0 &&
               strstr(r->r_out, "104857600            104857600"),
           "100 MiB requested: ulimit -v 102400 (KiB), soft and hard "
           "RLIMIT_AS 104857600: %s",
           r ? r->r_out : "");
    r = find(20, 1);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
               strcmp(r->r_out, "unlimited\n") == 0,
           "no memory request: no limit: %s", r ? r->r_out : "");
}

/* Root only: a task runs as its user's account, an unmapped user is
 * refused, root needs allow_root. */
#define ACCOUNT_TESTS 9
static void test_accounts(void)
{
    struct passwd *pw = getpwnam("nobody");
    if (geteuid() != 0 || pw == NULL) {
        tap_skip(ACCOUNT_TESTS, "%s",
                 pw == NULL ? "no account 'nobody' on this machine"
                            : "not root: the executor cannot switch "
                              "accounts, tasks run as the test's user");
        return;
    }
    uid_t nobody_uid = pw->pw_uid;
    gid_t nobody_gid = pw->pw_gid;
    nm_account_config ac;
    memset(&ac, 0, sizeof ac);
    nm_account_map_set(&ac, "alice", "nobody");
    nm_accounts *a = NULL;
    char err[256] = "";
    if (nm_accounts_resolve(&ac, &a, err, sizeof err) != 0)
        tap_bail_out("cannot resolve alice = nobody: %s", err);
    nm_cmdexec_destroy(x);
    make_as(4, 200, a);
    launch_as(21, 0, "alice", 0,
              "id -u; id -g; id -G; pwd; echo $HOME:$USER:$LOGNAME");
    launch_as(21, 1, "bob", 0, "id -u");
    launch_as(21, 2, "root", 0, "id -u");
    launch_as(21, 3, "alice", 50, "ulimit -v");
    tap_ok(wait_results(4), "four tasks of alice, bob and root end");
    char want[256];
    snprintf(want, sizeof want, "%u\n%u\n%u\n", (unsigned)nobody_uid,
             (unsigned)nobody_gid, (unsigned)nobody_gid);
    const result *r = find(21, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
               strncmp(r->r_out, want, strlen(want)) == 0,
           "alice's task runs as nobody: uid, gid and groups %u, no root "
           "group: %s",
           (unsigned)nobody_uid, r ? r->r_out : "");
    snprintf(want, sizeof want, ":nobody:nobody\n");
    tap_ok(
        r && strstr(r->r_out, want) &&
            (strstr(r->r_out, "\n/\n") || strstr(r->r_out, pw->pw_dir) != NULL),
        "in nobody's home or /, with its HOME, USER and LOGNAME");
    r = find(21, 1);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED && r->r_tf.tf_exit == -1 &&
               strcmp(r->r_out, "no account for user bob on node node-7") == 0,
           "an unmapped user fails at once: %s", r ? r->r_out : "");
    r = find(21, 2);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED &&
               strstr(r->r_out, "no account for user root"),
           "user root, unmapped, is refused (not run as root): %s",
           r ? r->r_out : "");
    tap_is_int((int64_t)nm_cmdexec_stats_get(x)->cs_no_account, 2,
               "refusals are counted");
    r = find(21, 3);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK &&
               strcmp(r->r_out, "51200\n") == 0,
           "the memory limit holds for a switched task too: %s",
           r ? r->r_out : "");
    nm_cmdexec_destroy(x);
    x = NULL;
    nm_accounts_free(a);

    /* allow_root with no account: the old way, tasks run as root. */
    memset(&ac, 0, sizeof ac);
    ac.ac_allow_root = true;
    if (nm_accounts_resolve(&ac, &a, err, sizeof err) != 0)
        tap_bail_out("cannot resolve an empty table: %s", err);
    make_as(4, 200, a);
    launch_as(22, 0, "bob", 0, "id -u");
    tap_ok(wait_results(1), "a task of an unmapped user with allow_root ends");
    r = find(22, 0);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK && strcmp(r->r_out, "0\n") == 0,
           "and runs as root, as allowed: %s", r ? r->r_out : "");
    nm_cmdexec_destroy(x);
    x = NULL;
    nm_accounts_free(a);
    make(8, 200);
}

/* ---- cgroup v2 confinement (root and a cgroup2 mount only) ------------ */

#define CGROUP_TESTS 17

static char cg_parent[NM_CGROUP_PATH_MAX + 1]; /* our test's parent directory */

/* The first cgroup2 mount of /proc/self/mounts into mnt; 0 if none. */
static int cgroup2_mount(char *mnt, size_t len)
{
    FILE *f = fopen("/proc/self/mounts", "r");
    if (f == NULL)
        return 0;
    char dev[256], path[160], type[64];
    int found = 0;
    while (!found &&
           fscanf(f, "%255s %159s %63s %*[^\n]", dev, path, type) == 3)
        if (strcmp(type, "cgroup2") == 0) {
            snprintf(mnt, len, "%s", path);
            found = 1;
        }
    fclose(f);
    return found;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static int dir_gone(void *arg)
{
    return !exists(arg);
}

static int cg_open_err(const char *parent, int64_t pids, char *err, size_t len)
{
    nm_cgroup_config c;
    nm_cgroup_config_init(&c);
    snprintf(c.cg_parent, sizeof c.cg_parent, "%s", parent);
    c.cg_pids_max = pids;
    nm_cgroup *cg = NULL;
    err[0] = '\0';
    int rc = nm_cgroup_open(&c, "node-7", 8, &cg, err, len);
    nm_cgroup_close(cg);
    return rc;
}

/* Configuration that is wrong, or a directory that is no cgroup. */
static void test_cgroup_refused(void)
{
    char err[512];
    tap_ok(cg_open_err("sys/fs/cgroup", 0, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "absolute path"),
           "cgroup: a relative path is refused: %s", err);
    tap_ok(cg_open_err(dir, 0, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "not on a cgroup v2 file system"),
           "cgroup: a directory that is not cgroup v2 is refused: %s", err);
    tap_ok(cg_open_err("/nonexistent/cg", 0, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "No such file"),
           "cgroup: a missing directory is refused: %s", err);
    tap_ok(cg_open_err(cg_parent, -1, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "cgroup_pids_max"),
           "cgroup: a negative pids.max is refused: %s", err);
}

/* A task and the grandchild it started in a session of its own (out of
 * its process group) both die when the task is killed, or when its shell
 * exits; the task's directory exists while it runs and is removed. */
static void test_cgroup_kill(nm_cgroup *cg)
{
    char cmd[512], gc[128], tdir[512], member[128];
    snprintf(gc, sizeof gc, "%s/gc1", dir);
    snprintf(cmd, sizeof cmd,
             "setsid sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 30' & "
             "sleep 30",
             gc, gc, gc);
    launch(30, 0, cmd);
    pid_t pid = read_pid(gc, 5);
    snprintf(tdir, sizeof tdir, "%s/30.0.2", nm_cgroup_path(cg));
    char procf[128];
    snprintf(procf, sizeof procf, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(procf, "r");
    member[0] = '\0';
    if (f != NULL) {
        while (fgets(member, sizeof member, f) != NULL &&
               strncmp(member, "0::", 3) != 0)
            ;
        fclose(f);
    }
    tap_ok(pid > 0 && exists(tdir) && strstr(member, "/skylark-node-7/30.0.2"),
           "the task's cgroup %s exists and holds the grandchild %d that "
           "left its process group: %s",
           tdir, (int)pid, member);
    sk_kill_task kt = {30, 0, 2};
    nm_cmdexec_kill(x, &kt);
    const result *r = wait_results(1) ? find(30, 0) : NULL;
    tap_ok(r && r->r_tf.tf_status == SK_TASK_KILLED && pid > 0 &&
               wait_gone(pid, 5),
           "a kill ends the task and its grandchild in another session");
    tap_ok(tu_run_until(loop, dir_gone, tdir, 5), "its cgroup is removed");

    snprintf(gc, sizeof gc, "%s/gc2", dir);
    snprintf(cmd, sizeof cmd,
             "setsid sleep 30 & echo $! > %s.tmp; mv %s.tmp %s; exit 0", gc, gc,
             gc);
    launch(30, 1, cmd);
    r = wait_results(2) ? find(30, 1) : NULL;
    pid = read_pid(gc, 5);
    snprintf(tdir, sizeof tdir, "%s/30.1.2", nm_cgroup_path(cg));
    tap_ok(r && r->r_tf.tf_status == SK_TASK_OK && pid > 0 && wait_gone(pid, 5),
           "a task that exits leaves no process behind, even in another "
           "session");
    tap_ok(tu_run_until(loop, dir_gone, tdir, 5), "and its cgroup is removed");
}

/* memory.max from the request, and an OOM kill as the failure reason,
 * where the machine offers the memory controller. */
static void test_cgroup_memory(nm_cgroup *cg)
{
    if (!(nm_cgroup_enforced(cg) & NM_CG_MEMORY)) {
        tap_skip(3,
                 "the memory controller is not offered by this machine's "
                 "cgroup v2 (%s/cgroup.controllers)",
                 cg_parent);
        return;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cat %s/31.0.2/memory.max", nm_cgroup_path(cg));
    launch_as(31, 0, "alice", 32, cmd);
    launch_as(31, 1, "alice", 32,
              "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived");
    tap_ok(wait_results(2), "two tasks with a 32 MiB request end");
    const result *r = find(31, 0);
    tap_ok(r && strcmp(r->r_out, "33554432\n") == 0,
           "memory.max is the request: %s", r ? r->r_out : "");
    r = find(31, 1);
    tap_ok(r && r->r_tf.tf_status == SK_TASK_FAILED &&
               strstr(r->r_out, "skylark: out of memory") &&
               nm_cmdexec_stats_get(x)->cs_oom == 1,
           "a task over it fails with the out-of-memory reason: %s",
           r ? r->r_out : "");
}

/* An earlier run's task cgroup, with a process in it, is cleaned at
 * open: the process killed, the directory removed. */
static void test_cgroup_stale(nm_cgroup_config *c)
{
    char node[512], task[600], procs[700];
    snprintf(node, sizeof node, "%s/skylark-node-7", cg_parent);
    snprintf(task, sizeof task, "%s/99.0.1", node);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", task);
    pid_t pid = -1;
    if (mkdir(node, 0755) == 0 && mkdir(task, 0755) == 0 &&
        (pid = fork()) == 0) {
        FILE *f = fopen(procs, "w");
        if (f == NULL || fprintf(f, "0") < 0 || fclose(f) != 0)
            _exit(1);
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(1);
    }
    usleep(100000);
    nm_cgroup *cg = NULL;
    char err[512] = "";
    int rc = nm_cgroup_open(c, "node-7", 8, &cg, err, sizeof err);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    tap_ok(rc == 0 && pid > 0 && WIFSIGNALED(status) &&
               WTERMSIG(status) == SIGKILL && !exists(task) &&
               nm_cgroup_stats_get(cg)->gs_stale == 1,
           "an earlier run's task cgroup is killed and removed at open %s",
           err);
    nm_cgroup_close(cg);
    tap_ok(!exists(node), "close removes the node's cgroup directory");
}

static void test_cgroup(void)
{
    char mnt[160];
    if (geteuid() != 0 || !cgroup2_mount(mnt, sizeof mnt)) {
        tap_skip(CGROUP_TESTS, "%s",
                 geteuid() != 0 ? "not root: cannot make cgroups"
                                : "no cgroup v2 file system mounted");
        return;
    }
    snprintf(cg_parent, sizeof cg_parent, "%s/skylark-test-%d", mnt,
             (int)getpid());
    if (mkdir(cg_parent, 0755) != 0) {
        tap_skip(CGROUP_TESTS, "cannot make %s: %s", cg_parent,
                 strerror(errno));
        return;
    }
    test_cgroup_refused();
    nm_cgroup_config c;
    nm_cgroup_config_init(&c);
    snprintf(c.cg_parent, sizeof c.cg_parent, "%s", cg_parent);
    nm_cgroup *cg = NULL;
    char err[512] = "", line[768] = "";
    tap_ok(nm_cgroup_open(&c, "node-7", 8, &cg, err, sizeof err) == 0,
           "cgroup: opens under %s %s", cg_parent, err);
    if (cg == NULL)
        tap_bail_out("no cgroup");
    nm_cgroup_describe(cg, line, sizeof line);
    char offered[256] = "", file[300];
    snprintf(file, sizeof file, "%s/cgroup.controllers", mnt);
    FILE *f = fopen(file, "r");
    if (f != NULL) {
        if (fgets(offered, sizeof offered, f) == NULL)
            offered[0] = '\0';
        fclose(f);
    }
    static const char *const ctl[] = {"memory", "cpu", "pids"};
    static const char *const lim[] = {"memory.max", "cpu.max", "pids.max"};
    int agree = 1;
    for (int i = 0; i < 3; i++) {
        char w[64];
        snprintf(w, sizeof w, "NOT enforced: %s", lim[i]);
        int on = (nm_cgroup_enforced(cg) >> i) & 1;
        /* The root offers what the machine has; we are root. */
        char sp[300], word[16];
        snprintf(sp, sizeof sp, " %.*s ", (int)strcspn(offered, "\n"), offered);
        snprintf(word, sizeof word, " %s ", ctl[i]);
        int have = strstr(sp, word) != NULL;
        if (on != have || (strstr(line, w) != NULL) == on)
            agree = 0;
    }
    tap_ok(agree,
           "the limits enforced are those the machine offers "
           "(controllers '%.*s'): %s",
           (int)strcspn(offered, "\n"), offered, line);

    nm_cmdexec_destroy(x);
    nm_cmdexec_config cfg;
    nm_cmdexec_config_init(&cfg);
    cfg.cx_max_children = 4;
    cfg.cx_kill_grace_ms = 200;
    cfg.cx_cgroup = cg;
    snprintf(cfg.cx_node, sizeof cfg.cx_node, "node-7");
    if (nm_cmdexec_create(loop, &cfg, on_ready, NULL, &x) != 0)
        tap_bail_out("cannot create the command executor");
    nresults = 0;
    test_cgroup_kill(cg);
    test_cgroup_memory(cg);
    const nm_cgroup_stats *gs = nm_cgroup_stats_get(cg);
    tap_ok(gs->gs_created == gs->gs_removed && gs->gs_busy == 0 &&
               gs->gs_leaked == 0,
           "every task cgroup made was removed (%llu)",
           (unsigned long long)gs->gs_created);
    nm_cmdexec_destroy(x);
    x = NULL;
    nm_cgroup_close(cg);
    test_cgroup_stale(&c);
    rmdir(cg_parent);
    make(8, 200);
}

int main(void)
{
    tap_plan(50 + ACCOUNT_TESTS + CGROUP_TESTS + JOURNAL_TESTS);
    tap_timeout(60);
    snprintf(dir, sizeof dir, "/tmp/skylark-cmdexec-XXXXXX");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp failed");
    signal(SIGPIPE, SIG_IGN);
    loop = ev_loop_new(EVFLAG_AUTO);
    test_create();
    make(8, 200);
    test_exit_codes();
    test_output_env();
    test_kill();
    test_leftovers();
    test_specs();
    test_limits();
    test_destroy();
    test_guard();
    test_spawn_failure();
    test_mem_limit();
    test_accounts();
    test_cgroup();
    test_journal();
    nm_cmdexec_destroy(x);
    x = NULL;
    /* Last: the default loop takes SIGCHLD from every other loop. */
    test_default_loop();
    ev_loop_destroy(loop);
    rmdir(dir);
    return tap_exit_status();
}
