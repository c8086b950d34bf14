/*
 * daemon_harness.c - real daemons for integration tests, and a test
 * client on sk_link (see daemon_harness.h).
 */
#include "daemon_harness.h"
#include "sk_keyfile.h"
#include "sk_token.h"
#include "sk_log.h"
#include "tap.h"
#include "transport_util.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 64

static char dir[256];
static char sched_path[1024];
static char nodemon_path[1024];
static char flowd_path[1024];
static dh_proc *procs[MAX_PROCS];
static int nprocs;
static double heartbeat = 1.0;
static int misses = 3;
static char hb_arg[64], misses_arg[64];
static int (*child_hook)(void *);
static void *child_hook_arg;
static int keyed;
static uint8_t client_key[SK_KEY_BYTES];
static char client_token[1024]; /* a token file for clients, or "" */

void dh_set_child_hook(int (*hook)(void *), void *arg)
{
    child_hook = hook;
    child_hook_arg = arg;
}

void dh_set_token_file(const char *path)
{
    snprintf(client_token, sizeof client_token, "%s", path ? path : "");
}

void dh_set_key_file(const char *path)
{
    keyed = path != NULL;
    char err[512];
    if (keyed && sk_keyfile_read(path, client_key, err, sizeof err) != 0)
        tap_bail_out("%s", err);
}

void dh_set_heartbeat(double seconds, int n)
{
    heartbeat = seconds;
    misses = n;
}

/* The heartbeat settings as daemon arguments. */
static void heartbeat_args(char **argv, int *argc)
{
    snprintf(hb_arg, sizeof hb_arg, "transport.heartbeat_s=%g", heartbeat);
    snprintf(misses_arg, sizeof misses_arg, "transport.misses=%d", misses);
    argv[(*argc)++] = "--set";
    argv[(*argc)++] = hb_arg;
    argv[(*argc)++] = "--set";
    argv[(*argc)++] = misses_arg;
}

/* ---- set-up and clean-up ------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void cleanup(void)
{
    for (int i = 0; i < nprocs; i++)
        if (procs[i] != NULL && procs[i]->dp_pid > 0)
            dh_kill(procs[i]);
    if (dir[0] != '\0' && getenv("SK_KEEP_TEST_DIR") == NULL)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void dh_init(void)
{
    const char *top = getenv("top_builddir");
    if (top == NULL)
        top = ".";
    snprintf(sched_path, sizeof sched_path, "%s/scheduler/skylark-sched", top);
    snprintf(nodemon_path, sizeof nodemon_path, "%s/nodemon/skylark-nodemon",
             top);
    snprintf(flowd_path, sizeof flowd_path, "%s/flowcore/flowd/skylark-flowd",
             top);
    if (access(sched_path, X_OK) != 0 || access(nodemon_path, X_OK) != 0)
        tap_bail_out("daemons not found under %s (set top_builddir)", top);
    snprintf(dir, sizeof dir, "/tmp/skylark-test-XXXXXX");
    if (mkdtemp(dir) == NULL)
        tap_bail_out("mkdtemp: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    sk_log_set_level(SK_LOG_WARN); /* the client's own transport chatter */
    atexit(cleanup);
}

const char *dh_dir(void)
{
    return dir;
}

const char *dh_sched_path(void)
{
    return sched_path;
}

const char *dh_nodemon_path(void)
{
    return nodemon_path;
}

const char *dh_flowd_path(void)
{
    return flowd_path;
}

const char *dh_write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        tap_bail_out("cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

/* ---- processes ---------------------------------------------------------- */

int dh_spawn(dh_proc *p, const char *log_name, char *const argv[])
{
    snprintf(p->dp_log, sizeof p->dp_log, "%s/%s", dir, log_name);
    p->dp_status = 0;
    pid_t parent = getpid();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* Die with the test, however it ends (even by SIGALRM). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int fd = open(p->dp_log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (fd < 0 || in < 0)
            _exit(127);
        dup2(in, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (child_hook != NULL && child_hook(child_hook_arg) != 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    p->dp_pid = pid;
    if (nprocs < MAX_PROCS)
        procs[nprocs++] = p;
    return 0;
}

bool dh_log_has(const dh_proc *p, const char *text)
{
    FILE *f = fopen(p->dp_log, "r");
    if (f == NULL)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

static int reap(dh_proc *p, int flags)
{
    if (p->dp_pid <= 0)
        return 1;
    int status;
    pid_t r = waitpid(p->dp_pid, &status, flags);
    if (r == p->dp_pid) {
        p->dp_status = status;
        p->dp_pid = 0;
        return 1;
    }
    if (r < 0 && errno == ECHILD) {
        p->dp_pid = 0;
        return 1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* dh_wait_ready waits until the log of p shows "INFO: listening on ".
 * Returns 1, or 0 when p exited or timeout seconds passed. */
static int dh_wait_ready(dh_proc *p, double timeout)
{
    double end = now_s() + timeout;
    while (now_s() < end) {
        if (dh_log_has(p, "INFO: listening on "))
            return 1;
        if (reap(p, WNOHANG))
            return 0;
        usleep(5000);
    }
    return 0;
}

int dh_wait_exit(dh_proc *p, double timeout)
{
    double end = now_s() + timeout;
    for (;;) {
        if (reap(p, WNOHANG))
            return 1;
        if (now_s() >= end)
            return 0;
        usleep(2000);
    }
}

void dh_kill(dh_proc *p)
{
    if (p->dp_pid <= 0)
        return;
    kill(p->dp_pid, SIGKILL);
    reap(p, 0);
}

void dh_log_tail(const dh_proc *p, int lines)
{
    FILE *f = fopen(p->dp_log, "r");
    if (f == NULL)
        return;
    char buf[64][512];
    int n = 0;
    while (fgets(buf[n % 64], sizeof buf[0], f) != NULL)
        n++;
    fclose(f);
    if (lines > 64)
        lines = 64;
    for (int i = n > lines ? n - lines : 0; i < n; i++) {
        buf[i % 64][strcspn(buf[i % 64], "\n")] = '\0';
        tap_diag("%s: %s", p->dp_name, buf[i % 64]);
    }
}

static int start(dh_proc *p, const char *name, char **argv, int argc,
                 const char *const *extra)
{
    for (const char *const *e = extra; e != NULL && *e != NULL; e++)
        argv[argc++] = (char *)*e;
    argv[argc] = NULL;
    char log[96];
    snprintf(log, sizeof log, "%s.log", name);
    if (dh_spawn(p, log, argv) != 0)
        return -1;
    if (!dh_wait_ready(p, 10)) {
        tap_diag("%s did not start", name);
        dh_log_tail(p, 10);
        return -1;
    }
    return 0;
}

int dh_start_sched_at(dh_proc *p, const char *name, int id, const char *listen,
                      const char *const *extra)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dp_name, sizeof p->dp_name, "%s", name);
    snprintf(p->dp_endpoint, sizeof p->dp_endpoint, "%s", listen);
    char ids[16];
    snprintf(ids, sizeof ids, "%d", id);
    char *argv[64] = {sched_path, "--listen", p->dp_endpoint,
                      "--name",   p->dp_name, "--id",
                      ids};
    int argc = 7;
    heartbeat_args(argv, &argc);
    return start(p, name, argv, argc, extra);
}

int dh_start_sched(dh_proc *p, const char *name, int id,
                   const char *const *extra)
{
    char listen[64];
    snprintf(listen, sizeof listen, "tcp://127.0.0.1:%d", tu_free_port());
    return dh_start_sched_at(p, name, id, listen, extra);
}

int dh_start_nodemon_at(dh_proc *p, const char *name, int id, int slots,
                        const char *listen, const char *const *scheds, int n,
                        const char *const *extra)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dp_name, sizeof p->dp_name, "%s", name);
    snprintf(p->dp_endpoint, sizeof p->dp_endpoint, "%s", listen);
    char ids[16], slot_s[16];
    snprintf(ids, sizeof ids, "%d", id);
    snprintf(slot_s, sizeof slot_s, "%d", slots);
    char *argv[64] = {nodemon_path, "--listen", p->dp_endpoint,
                      "--name",     p->dp_name, "--id",
                      ids,          "--slots",  slot_s};
    int argc = 9;
    /* Run as root (CI, containers), tasks run as root, as before
     * accounts: the tests' users map to no account. */
    if (geteuid() == 0) {
        argv[argc++] = "--set";
        argv[argc++] = "cmdexec.allow_root=yes";
    }
    heartbeat_args(argv, &argc);
    for (int i = 0; i < n && argc < 40; i++) {
        argv[argc++] = "--scheduler";
        argv[argc++] = (char *)scheds[i];
    }
    return start(p, name, argv, argc, extra);
}

void dh_start_two_scheds(dh_proc scheds[2], dh_proc *nodes, int n, int slots)
{
    if (dh_start_sched(&scheds[0], "s1", 1, NULL) != 0 ||
        dh_start_sched(&scheds[1], "s2", 2, NULL) != 0)
        tap_bail_out("the schedulers did not start");
    const dh_proc *s[] = {&scheds[0], &scheds[1]};
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i + 1);
        if (dh_start_nodemon(&nodes[i], name, i + 1, slots, s, 2, NULL) != 0)
            tap_bail_out("node monitor %s did not start", name);
    }
}

int dh_start_nodemon(dh_proc *p, const char *name, int id, int slots,
                     const dh_proc *const *scheds, int n,
                     const char *const *extra)
{
    const char *eps[16];
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++)
        eps[i] = scheds[i]->dp_endpoint;
    char listen[64];
    snprintf(listen, sizeof listen, "tcp://127.0.0.1:%d", tu_free_port());
    return dh_start_nodemon_at(p, name, id, slots, listen, eps, n, extra);
}

int dh_start_flowd_at(dh_proc *p, const char *name, const char *listen,
                      const char *const *extra)
{
    memset(p, 0, sizeof *p);
    if (access(flowd_path, X_OK) != 0) {
        tap_diag("%s not found", flowd_path);
        return -1;
    }
    snprintf(p->dp_name, sizeof p->dp_name, "%s", name);
    snprintf(p->dp_endpoint, sizeof p->dp_endpoint, "%s", listen);
    char *argv[64] = {flowd_path, "--listen", p->dp_endpoint, "--name",
                      p->dp_name};
    int argc = 5;
    heartbeat_args(argv, &argc);
    return start(p, name, argv, argc, extra);
}

int dh_start_flowd(dh_proc *p, const char *name, const char *const *extra)
{
    char listen[64];
    snprintf(listen, sizeof listen, "tcp://127.0.0.1:%d", tu_free_port());
    return dh_start_flowd_at(p, name, listen, extra);
}

/* ---- the test client ---------------------------------------------------- */

struct dh_client {
    struct ev_loop *c_loop;
    sk_link *c_link;
    int c_ups, c_downs;
    dh_job c_jobs[DH_MAX_JOBS];
    int c_njobs;
    char c_framework[64]; /* executor mode, "" otherwise */
    bool c_auto_finish;
    uint32_t c_launches, c_kills;
    uint64_t c_next_req;
    uint64_t c_want_req;
    dh_status *c_status;
};

static dh_job *find_job(dh_client *c, uint64_t id)
{
    for (int i = 0; i < c->c_njobs; i++)
        if (c->c_jobs[i].jb_id == id)
            return &c->c_jobs[i];
    return NULL;
}

static char *dup_bytes(const sk_bytes *b)
{
    char *s = malloc(b->b_len + 1);
    if (s == NULL)
        tap_bail_out("out of memory");
    if (b->b_len > 0)
        memcpy(s, b->b_data, b->b_len);
    s[b->b_len] = '\0';
    return s;
}

static void copy_status(dh_status *st, const sk_status_reply *sr)
{
    st->st_ok = 1;
    st->st_nkv = 0;
    for (uint32_t i = 0; i < sr->sr_nkv && i < DH_MAX_KV; i++) {
        st->st_key[i] = strdup(sr->sr_kv[i].kv_key);
        st->st_value[i] = strdup(sr->sr_kv[i].kv_value);
        st->st_nkv++;
    }
    st->st_nrows = sr->sr_nrows;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *m)
{
    dh_client *c = arg;
    dh_job *j;
    switch (m->m_type) {
    case SK_MSG_JOB_ACCEPTED:
        if ((j = find_job(c, m->m_job_ack.ja_job)) != NULL)
            j->jb_accepted++;
        break;
    case SK_MSG_JOB_REJECTED:
        if ((j = find_job(c, m->m_job_ack.ja_job)) != NULL) {
            j->jb_rejected++;
            snprintf(j->jb_reason, sizeof j->jb_reason, "%s",
                     m->m_job_ack.ja_reason);
        }
        break;
    case SK_MSG_TASK_STARTED:
        j = find_job(c, m->m_task_started.st_job);
        if (j != NULL && m->m_task_started.st_task < j->jb_ntasks)
            j->jb_started[m->m_task_started.st_task]++;
        break;
    case SK_MSG_TASK_FINISHED: {
        const sk_task_finished *f = &m->m_task_finished;
        j = find_job(c, f->tf_job);
        if (j == NULL || f->tf_task >= j->jb_ntasks)
            break;
        j->jb_finished[f->tf_task]++;
        j->jb_status[f->tf_task] = f->tf_status;
        j->jb_exit[f->tf_task] = f->tf_exit;
        j->jb_attempt[f->tf_task] = f->tf_attempt;
        free(j->jb_output[f->tf_task]);
        j->jb_output[f->tf_task] = dup_bytes(&f->tf_output);
        break;
    }
    case SK_MSG_JOB_DONE:
        if ((j = find_job(c, m->m_job_done.jd_job)) != NULL) {
            j->jb_done++;
            j->jb_summary = m->m_job_done;
        }
        break;
    case SK_MSG_LAUNCH_TASK:
        c->c_launches++;
        if (c->c_auto_finish) {
            const sk_launch *lt = &m->m_launch;
            sk_msg f;
            memset(&f, 0, sizeof f);
            f.m_type = SK_MSG_TASK_FINISHED;
            f.m_task_finished.tf_job = lt->lt_job;
            f.m_task_finished.tf_task = lt->lt_task;
            f.m_task_finished.tf_attempt = lt->lt_attempt;
            f.m_task_finished.tf_node = "";
            f.m_task_finished.tf_status = SK_TASK_OK;
            f.m_task_finished.tf_output.b_data = (const uint8_t *)"ran";
            f.m_task_finished.tf_output.b_len = 3;
            sk_link_send(c->c_link, peer, &f);
        }
        break;
    case SK_MSG_KILL_TASK:
        c->c_kills++;
        if (!c->c_auto_finish) {
            const sk_kill_task *kt = &m->m_kill_task;
            sk_msg f;
            memset(&f, 0, sizeof f);
            f.m_type = SK_MSG_TASK_FINISHED;
            f.m_task_finished.tf_job = kt->kt_job;
            f.m_task_finished.tf_task = kt->kt_task;
            f.m_task_finished.tf_attempt = kt->kt_attempt;
            f.m_task_finished.tf_node = "";
            f.m_task_finished.tf_status = SK_TASK_KILLED;
            f.m_task_finished.tf_exit = -15;
            sk_link_send(c->c_link, peer, &f);
        }
        break;
    case SK_MSG_STATUS_REPLY:
        if (c->c_status != NULL &&
            m->m_status_reply.sr_request == c->c_want_req) {
            copy_status(c->c_status, &m->m_status_reply);
            c->c_status = NULL;
        }
        break;
    default:
        break;
    }
}

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    (void)peer;
    (void)role;
    (void)name;
    ((dh_client *)arg)->c_ups++;
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    (void)peer;
    (void)why;
    ((dh_client *)arg)->c_downs++;
}

dh_client *dh_client_new(const char *role, const char *name)
{
    dh_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        tap_bail_out("out of memory");
    /* Not the default loop: that one would reap our daemons. */
    c->c_loop = ev_loop_new(EVFLAG_AUTO);
    sk_transport_config tc;
    sk_transport_config_default(&tc);
    snprintf(tc.tc_role, sizeof tc.tc_role, "%s", role);
    snprintf(tc.tc_name, sizeof tc.tc_name, "%s", name);
    tc.tc_heartbeat = heartbeat;
    tc.tc_misses = (unsigned)misses;
    tc.tc_max_msg = SK_MAX_MSG_BYTES;
    tc.tc_queue_msgs = 1u << 20;
    tc.tc_queue_bytes = 256u << 20;
    char err[1200];
    if (client_token[0] != '\0') {
        if (sk_cred_config(&tc, NULL, client_token, NULL, err, sizeof err))
            tap_bail_out("%s", err);
    } else if (keyed) {
        tc.tc_keyed = 1;
        memcpy(tc.tc_key, client_key, sizeof client_key);
    }
    sk_link_callbacks cb = {
        .lk_up = on_up, .lk_down = on_down, .lk_msg = on_msg, .lk_arg = c};
    if (c->c_loop == NULL || sk_link_create(c->c_loop, &tc, &cb, &c->c_link))
        tap_bail_out("cannot create the test client");
    c->c_next_req = 1;
    return c;
}

void dh_client_free(dh_client *c)
{
    if (c == NULL)
        return;
    sk_link_destroy(c->c_link);
    ev_loop_destroy(c->c_loop);
    for (int i = 0; i < c->c_njobs; i++) {
        dh_job *j = &c->c_jobs[i];
        for (uint32_t t = 0; t < j->jb_ntasks; t++)
            free(j->jb_output[t]);
        free(j->jb_output);
        free(j->jb_started);
        free(j->jb_finished);
        free(j->jb_status);
        free(j->jb_exit);
        free(j->jb_attempt);
    }
    free(c);
}

typedef struct up_wait {
    dh_client *uw_c;
    sk_peer_id uw_peer;
} up_wait;

static int peer_is_up(void *arg)
{
    up_wait *w = arg;
    sk_peer_info pi;
    return sk_transport_peer_info(sk_link_transport(w->uw_c->c_link),
                                  w->uw_peer, &pi) == 0 &&
           pi.pi_up;
}

sk_peer_id dh_client_connect(dh_client *c, const char *endpoint, double timeout)
{
    sk_peer_id peer;
    if (sk_transport_connect(sk_link_transport(c->c_link), endpoint, &peer))
        return 0;
    up_wait w = {c, peer};
    return tu_run_until(c->c_loop, peer_is_up, &w, timeout) ? peer : 0;
}

int dh_client_hello(dh_client *c, sk_peer_id peer, uint8_t role)
{
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_HELLO;
    m.m_hello.he_role = role;
    m.m_hello.he_name = "test";
    m.m_hello.he_incarnation = 1;
    m.m_hello.he_framework = role == SK_ROLE_EXECUTOR ? c->c_framework : "";
    return sk_link_send(c->c_link, peer, &m);
}

int dh_client_send(dh_client *c, sk_peer_id peer, const sk_msg *msg)
{
    return sk_link_send(c->c_link, peer, msg);
}

dh_job *dh_client_track(dh_client *c, uint64_t id, uint32_t ntasks)
{
    if (c->c_njobs >= DH_MAX_JOBS)
        return NULL;
    dh_job *j = &c->c_jobs[c->c_njobs++];
    memset(j, 0, sizeof *j);
    j->jb_id = id;
    j->jb_ntasks = ntasks;
    j->jb_started = calloc(ntasks, sizeof *j->jb_started);
    j->jb_finished = calloc(ntasks, sizeof *j->jb_finished);
    j->jb_status = calloc(ntasks, sizeof *j->jb_status);
    j->jb_exit = calloc(ntasks, sizeof *j->jb_exit);
    j->jb_attempt = calloc(ntasks, sizeof *j->jb_attempt);
    j->jb_output = calloc(ntasks, sizeof *j->jb_output);
    if (!j->jb_started || !j->jb_finished || !j->jb_status || !j->jb_exit ||
        !j->jb_attempt || !j->jb_output)
        tap_bail_out("out of memory");
    return j;
}

static dh_job *submit(dh_client *c, sk_peer_id sched, uint64_t id,
                      uint32_t ntasks, const char *cmd, const char *user,
                      uint32_t max_attempts, bool is_long)
{
    dh_job *j = dh_client_track(c, id, ntasks);
    sk_task_spec *tasks = calloc(ntasks, sizeof *tasks);
    if (j == NULL || tasks == NULL)
        return NULL;
    for (uint32_t i = 0; i < ntasks; i++) {
        tasks[i].ts_spec.b_data = (const uint8_t *)cmd;
        tasks[i].ts_spec.b_len = (uint32_t)strlen(cmd) + 1;
    }
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_SUBMIT_JOB;
    m.m_submit_job.sj_job = id;
    m.m_submit_job.sj_user = user;
    m.m_submit_job.sj_max_attempts = max_attempts;
    m.m_submit_job.sj_framework = "";
    m.m_submit_job.sj_long = is_long;
    m.m_submit_job.sj_tasks = tasks;
    m.m_submit_job.sj_ntasks = ntasks;
    int rc = sk_link_send(c->c_link, sched, &m);
    free(tasks);
    return rc == 0 ? j : NULL;
}

dh_job *dh_client_submit(dh_client *c, sk_peer_id sched, uint64_t id,
                         uint32_t ntasks, const char *cmd, const char *user,
                         uint32_t max_attempts)
{
    return submit(c, sched, id, ntasks, cmd, user, max_attempts, false);
}

dh_job *dh_client_submit_long(dh_client *c, sk_peer_id sched, uint64_t id,
                              uint32_t ntasks, const char *cmd,
                              const char *user, uint32_t max_attempts)
{
    return submit(c, sched, id, ntasks, cmd, user, max_attempts, true);
}

int dh_job_all_started(void *job)
{
    const dh_job *j = job;
    for (uint32_t i = 0; i < j->jb_ntasks; i++)
        if (j->jb_started[i] == 0)
            return 0;
    return 1;
}

void dh_ledger_count(const char *path, uint32_t ntasks, uint32_t *starts,
                     uint32_t *ends, uint32_t *twice)
{
    uint32_t *s = calloc(ntasks > 0 ? ntasks : 1, sizeof *s);
    *starts = *ends = *twice = 0;
    FILE *f = fopen(path, "r");
    char what[16];
    unsigned idx;
    while (s != NULL && f != NULL && fscanf(f, "%15s %u", what, &idx) == 2) {
        if (idx >= ntasks)
            continue;
        if (strcmp(what, "start") == 0) {
            (*starts)++;
            if (++s[idx] == 2)
                (*twice)++;
        } else {
            (*ends)++;
        }
    }
    if (f != NULL)
        fclose(f);
    free(s);
}

int dh_client_run(dh_client *c, int (*cond)(void *), void *arg, double timeout)
{
    return tu_run_until(c->c_loop, cond, arg, timeout);
}

void dh_client_run_for(dh_client *c, double seconds)
{
    tu_run_for(c->c_loop, seconds);
}

static int job_over(void *arg)
{
    dh_job *j = arg;
    return j->jb_done > 0 || j->jb_rejected > 0;
}

int dh_job_wait_done(dh_client *c, dh_job *job, double timeout)
{
    dh_client_run(c, job_over, job, timeout);
    return job->jb_done > 0;
}

static int status_came(void *arg)
{
    return ((dh_client *)arg)->c_status == NULL;
}

void dh_client_status(dh_client *c, sk_peer_id peer, bool table, dh_status *st,
                      double timeout)
{
    memset(st, 0, sizeof *st);
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_STATUS_REQUEST;
    m.m_status_request.sq_request = c->c_next_req++;
    m.m_status_request.sq_table = table;
    c->c_want_req = m.m_status_request.sq_request;
    c->c_status = st;
    if (sk_link_send(c->c_link, peer, &m) != 0 ||
        !dh_client_run(c, status_came, c, timeout))
        c->c_status = NULL;
}

int64_t dh_status_int(const dh_status *st, const char *key)
{
    for (uint32_t i = 0; i < st->st_nkv; i++)
        if (strcmp(st->st_key[i], key) == 0)
            return strtoll(st->st_value[i], NULL, 10);
    return -1;
}

const char *dh_status_str(const dh_status *st, const char *key)
{
    for (uint32_t i = 0; i < st->st_nkv; i++)
        if (strcmp(st->st_key[i], key) == 0)
            return st->st_value[i];
    return NULL;
}

int dh_wait_status(dh_client *c, sk_peer_id peer, const char *key, int64_t want,
                   double timeout, int64_t *last)
{
    double end = now_s() + timeout;
    int64_t v = -1;
    for (;;) {
        dh_status st;
        dh_client_status(c, peer, false, &st, 1.0);
        v = st.st_ok ? dh_status_int(&st, key) : -1;
        dh_status_free(&st);
        if (v == want || now_s() >= end)
            break;
        dh_client_run_for(c, 0.02);
    }
    if (last != NULL)
        *last = v;
    return v == want;
}

void dh_status_free(dh_status *st)
{
    for (uint32_t i = 0; i < st->st_nkv; i++) {
        free(st->st_key[i]);
        free(st->st_value[i]);
    }
    st->st_nkv = 0;
}

void dh_client_executor(dh_client *c, const char *framework, bool auto_finish)
{
    snprintf(c->c_framework, sizeof c->c_framework, "%s", framework);
    c->c_auto_finish = auto_finish;
}

uint32_t dh_client_launches(const dh_client *c)
{
    return c->c_launches;
}

uint32_t dh_client_kills(const dh_client *c)
{
    return c->c_kills;
}

int dh_client_downs(const dh_client *c)
{
    return c->c_downs;
}

int dh_sh(const char *cmd, char *out, size_t size, double *secs)
{
    char path[600], line[8000];
    snprintf(path, sizeof path, "%s/sh-out.txt", dh_dir());
    snprintf(line, sizeof line, "%s > '%s' 2>&1", cmd, path);
    double t0 = now_s();
    int st = system(line);
    if (secs != NULL)
        *secs = now_s() - t0;
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        size_t n = fread(out, 1, size - 1, f);
        out[n] = '\0';
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
