/*
 * sk_cluster.c - a local cluster of daemons on loopback (see sk_cluster.h).
 */
#include "sk_cluster.h"
#include "sk_keyfile.h"

#include "skylark.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLUSTER_FILE "cluster"
#define KEY_FILE     "cluster.key"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Each kind of daemon: its name in the cluster file, its program, the
 * variable that names the program and its folder in a build tree. */
typedef struct kind_info {
    const char *ki_name, *ki_binary, *ki_env, *ki_subdir;
} kind_info;

static const kind_info KINDS[] = {
    [SKC_SCHED] = {"scheduler", "skylark-sched", "SKYLARK_SCHED", "scheduler"},
    [SKC_NODEMON] = {"nodemon", "skylark-nodemon", "SKYLARK_NODEMON",
                     "nodemon"},
    [SKC_FLOWD] = {"flowd", "skylark-flowd", "SKYLARK_FLOWD", "flowcore/flowd"},
};

const char *skc_kind_name(skc_kind k)
{
    return KINDS[k].ki_name;
}

static const char *binary_name(skc_kind k)
{
    return KINDS[k].ki_binary;
}

/* The kind of a program name or of a cluster file's kind, or 0. */
static skc_kind kind_of(const char *name, int binary)
{
    for (int k = SKC_SCHED; k <= SKC_FLOWD; k++)
        if (strcmp(name, binary ? KINDS[k].ki_binary : KINDS[k].ki_name) == 0)
            return (skc_kind)k;
    return 0;
}

/* ---- where things are -------------------------------------------------- */

int skc_default_dir(char *out, size_t len)
{
    const char *d = getenv("SKYLARK_DIR");
    int n;
    if (d != NULL && d[0] != '\0')
        n = snprintf(out, len, "%s", d);
    else if ((d = getenv("XDG_RUNTIME_DIR")) != NULL && d[0] == '/')
        n = snprintf(out, len, "%s/skylark", d);
    else
        n = snprintf(out, len, "/tmp/skylark-%ld", (long)getuid());
    return n < 0 || (size_t)n >= len ? SK_ELIMIT : 0;
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* skc_find_binary finds the program name ("skylark-sched",
 * "skylark-nodemon"): $SKYLARK_SCHED or $SKYLARK_NODEMON, next to the
 * running program, in the build tree beside it, or on PATH. Returns 0 with
 * the path in out, or SK_ENOTFOUND. */
static int skc_find_binary(const char *name, char *out, size_t len)
{
    skc_kind kind = kind_of(name, 1);
    if (kind == 0)
        return SK_ENOTFOUND;
    const char *v = getenv(KINDS[kind].ki_env);
    if (v != NULL && v[0] != '\0') {
        snprintf(out, len, "%s", v);
        return executable(out) ? 0 : SK_ENOTFOUND;
    }
    /* Beside the running program; in a build tree the daemons are in
     * scheduler/, nodemon/ and flowcore/flowd/ beside cli/ or bench/, and
     * libtool may run the real program from a .libs folder. */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            size_t dl = strlen(self);
            if (dl >= 6 && strcmp(self + dl - 6, "/.libs") == 0)
                self[dl - 6] = '\0';
            const char *sub = KINDS[kind].ki_subdir;
            snprintf(out, len, "%s/%s", self, name);
            if (executable(out))
                return 0;
            snprintf(out, len, "%s/../%s/%s", self, sub, name);
            if (executable(out))
                return 0;
        }
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path != '\0') {
        size_t l = strcspn(path, ":");
        snprintf(out, len, "%.*s/%s", (int)l, path, name);
        if (l > 0 && executable(out))
            return 0;
        path += l + (path[l] == ':');
    }
    return SK_ENOTFOUND;
}

/* The directory, created with mode 0700 if missing; it must be ours. */
static int ensure_dir(const char *dir, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(tmp, 0755);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        set_err(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return SK_ESYS;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
        set_err(err, errlen, "%s is not a directory of ours", dir);
        return SK_ESYS;
    }
    snprintf(tmp, sizeof tmp, "%s/logs", dir);
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
        set_err(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return SK_ESYS;
    }
    return 0;
}

/* ---- the cluster file -------------------------------------------------- */

const char *skc_key(const skc_cluster *c)
{
    return c->cc_key[0] != '\0' ? c->cc_key : NULL;
}

/* Sets c's key file if its directory holds one. */
static void find_key(skc_cluster *c)
{
    char path[sizeof c->cc_key];
    snprintf(path, sizeof path, "%s/%s", c->cc_dir, KEY_FILE);
    c->cc_key[0] = '\0';
    if (access(path, F_OK) == 0)
        snprintf(c->cc_key, sizeof c->cc_key, "%s", path);
}

int skc_load(const char *dir, skc_cluster *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->cc_dir, sizeof c->cc_dir, "%s", dir);
    find_key(c);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, CLUSTER_FILE);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        set_err(err, errlen, "no cluster in %s", dir);
        return SK_ENOTFOUND;
    }
    char line[512];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char kind[16], name[64], ep[128];
        long pid;
        if (c->cc_n == SKC_MAX_DAEMONS ||
            sscanf(line, "%15s %63s %127s %ld", kind, name, ep, &pid) != 4 ||
            kind_of(kind, 0) == 0 || pid <= 1) {
            set_err(err, errlen, "%s:%d: not a daemon line", path, lineno);
            rc = SK_EPROTO;
            break;
        }
        skc_daemon *d = &c->cc_daemons[c->cc_n++];
        d->cd_kind = kind_of(kind, 0);
        snprintf(d->cd_name, sizeof d->cd_name, "%s", name);
        snprintf(d->cd_endpoint, sizeof d->cd_endpoint, "%s", ep);
        d->cd_pid = (pid_t)pid;
    }
    fclose(f);
    return rc;
}

static int save(const skc_cluster *c, char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", c->cc_dir, CLUSTER_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        set_err(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return SK_ESYS;
    }
    fprintf(f, "# a local Skylark cluster (skylark cluster up): kind, name, "
               "endpoint, pid\n");
    for (unsigned i = 0; i < c->cc_n; i++)
        fprintf(f, "%s %s %s %ld\n", skc_kind_name(c->cc_daemons[i].cd_kind),
                c->cc_daemons[i].cd_name, c->cc_daemons[i].cd_endpoint,
                (long)c->cc_daemons[i].cd_pid);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        set_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return SK_ESYS;
    }
    return 0;
}

/* ---- processes --------------------------------------------------------- */

/* What runs under a daemon's pid. */
typedef enum proc_state {
    PROC_GONE,    /* no such process, or another program (pid reused) */
    PROC_EXITED,  /* exited (a zombie, or its memory already released),
                     not yet reaped by its parent */
    PROC_RUNNING, /* the daemon */
} proc_state;

static proc_state state_of(const skc_daemon *d)
{
    /* Reap it if it is our child; then look at what runs under the pid. */
    waitpid(d->cd_pid, NULL, WNOHANG);
    if (kill(d->cd_pid, 0) != 0 && errno == ESRCH)
        return PROC_GONE;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)d->cd_pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return PROC_GONE;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    if (rp == NULL || rp[1] == '\0' || rp[2] == 'Z' || rp[2] == 'X')
        return PROC_EXITED;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)d->cd_pid);
    if ((f = fopen(path, "r")) == NULL)
        return PROC_GONE;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (n == 0)
        return PROC_EXITED; /* exiting: its memory is gone */
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
    return strstr(buf, binary_name(d->cd_kind)) != NULL ? PROC_RUNNING
                                                        : PROC_GONE;
}

int skc_alive(const skc_daemon *d)
{
    return state_of(d) == PROC_RUNNING;
}

/* A free port on 127.0.0.1 for each of n endpoints, all distinct: the
 * sockets stay bound until every port is known. */
static int free_ports(int *ports, unsigned n, char *err, size_t errlen)
{
    int fds[SKC_MAX_DAEMONS];
    unsigned i;
    int rc = 0;
    for (i = 0; i < n; i++) {
        struct sockaddr_in a;
        socklen_t alen = sizeof a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) != 0 ||
            getsockname(fds[i], (struct sockaddr *)&a, &alen) != 0) {
            set_err(err, errlen, "no free port on 127.0.0.1: %s",
                    strerror(errno));
            rc = SK_ESYS;
            if (fds[i] >= 0)
                close(fds[i]);
            break;
        }
        ports[i] = ntohs(a.sin_port);
    }
    while (i-- > 0)
        close(fds[i]);
    return rc;
}

static pid_t spawn(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* The child: its own session (a Ctrl-C at the terminal is not for
     * it), no inherited descriptors, output to its log. */
    setsid();
    int in = open("/dev/null", O_RDONLY);
    int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0)
        _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* The last line of a daemon's log, for an error message. */
static void log_tail(const char *log, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL)
        if (line[0] != '\n')
            snprintf(out, len, "%s", line);
    fclose(f);
    size_t n = strlen(out);
    if (n > 0 && out[n - 1] == '\n')
        out[n - 1] = '\0';
}

/* Whether the caller asked skc_start to give up (a signal). */
static int cancelled(const skc_spec *sp)
{
    return sp->cs_cancel != NULL && *sp->cs_cancel != 0;
}

/* Wait until d, our child, answers a status request. 1: it does; 0: it
 * exited; -1: the deadline passed; -2: cancelled. (Its command line is
 * not yet the daemon's until it has called exec: ask waitpid, not
 * skc_alive.) */
static int wait_answer(const skc_spec *sp, const skc_cluster *c,
                       const skc_daemon *d, double deadline)
{
    while (mono_s() < deadline) {
        if (cancelled(sp))
            return -2;
        if (waitpid(d->cd_pid, NULL, WNOHANG) != 0)
            return 0;
        sk_status *s;
        if (sk_status_fetch_keyed(d->cd_endpoint, skc_key(c), 0.25, 0, &s) ==
            0) {
            sk_status_free(s);
            return 1;
        }
        sleep_s(0.02);
    }
    return -1;
}

typedef struct start_ctx {
    const skc_spec *sx_spec;
    skc_cluster *sx_c;
    char sx_bin[SKC_FLOWD + 1][4096]; /* by kind */
    const char *sx_flowd;             /* flowd's endpoint, or NULL */
    char *sx_err;
    size_t sx_errlen;
    double sx_deadline;
} start_ctx;

/* Start daemon d (name set; id its --id) and wait until it answers, on a
 * fresh port for each of up to three tries. */
static int start_one(start_ctx *x, skc_daemon *d, unsigned id_number)
{
    const skc_spec *sp = x->sx_spec;
    skc_cluster *c = x->sx_c;
    char log[4200], tail[512];
    snprintf(log, sizeof log, "%s/logs/%s.log", c->cc_dir, d->cd_name);
    for (int attempt = 0; attempt < 3; attempt++) {
        int port;
        int rc = free_ports(&port, 1, x->sx_err, x->sx_errlen);
        if (rc != 0)
            return rc;
        snprintf(d->cd_endpoint, sizeof d->cd_endpoint, "tcp://127.0.0.1:%d",
                 port);
        char id[16], slots[16], rack[16], journal[4400];
        snprintf(id, sizeof id, "%u", id_number);
        snprintf(slots, sizeof slots, "%u", sp->cs_slots);
        char *argv[24 + 2 * 16 + 2 * SKC_MAX_WEIGHTS];
        int a = 0;
        argv[a++] = x->sx_bin[d->cd_kind];
        argv[a++] = "--listen";
        argv[a++] = d->cd_endpoint;
        argv[a++] = "--name";
        argv[a++] = d->cd_name;
        if (d->cd_kind != SKC_FLOWD) {
            argv[a++] = "--id";
            argv[a++] = id;
            if (x->sx_flowd != NULL) {
                argv[a++] = "--flowd";
                argv[a++] = (char *)x->sx_flowd;
            }
        }
        argv[a++] = "--log-level";
        argv[a++] = (char *)(sp->cs_log_level ? sp->cs_log_level : "info");
        if (c->cc_key[0] != '\0') {
            argv[a++] = "--key-file";
            argv[a++] = c->cc_key;
        }
        if (d->cd_kind == SKC_NODEMON) {
            argv[a++] = "--slots";
            argv[a++] = slots;
            /* A local cluster runs its tasks as whoever started it, root
             * too (only that user holds its key); a node monitor run as
             * root refuses that unless told (docs/SECURITY.md). */
            if (geteuid() == 0) {
                argv[a++] = "--set";
                argv[a++] = "cmdexec.allow_root=yes";
            }
            /* The tasks' journal: a node monitor restarted on it offers
             * the ends its predecessor could not report (docs/FAULTS.md). */
            snprintf(journal, sizeof journal, "cmdexec.journal=%s/journal-%s",
                     c->cc_dir, d->cd_name);
            argv[a++] = "--set";
            argv[a++] = journal;
            for (unsigned i = 0; i < c->cc_n; i++)
                if (c->cc_daemons[i].cd_kind == SKC_SCHED) {
                    argv[a++] = "--scheduler";
                    argv[a++] = c->cc_daemons[i].cd_endpoint;
                }
            for (unsigned i = 0; i < sp->cs_nweights; i++) {
                argv[a++] = "--weight";
                argv[a++] = (char *)sp->cs_weights[i];
            }
            if (sp->cs_racks > 0) {
                /* node monitors are numbered after the schedulers */
                unsigned j = id_number - 1 - sp->cs_schedulers;
                snprintf(rack, sizeof rack, "r%u",
                         j * sp->cs_racks / sp->cs_nodes);
                argv[a++] = "--rack";
                argv[a++] = rack;
            }
        }
        argv[a] = NULL;
        d->cd_pid = spawn(argv, log);
        if (d->cd_pid < 0) {
            set_err(x->sx_err, x->sx_errlen, "fork: %s", strerror(errno));
            return SK_ESYS;
        }
        int ok = wait_answer(sp, c, d, x->sx_deadline);
        if (ok == 1)
            return 0;
        if (ok == -2) {
            set_err(x->sx_err, x->sx_errlen, "interrupted");
            return SK_ECANCELED;
        }
        if (ok < 0) {
            log_tail(log, tail, sizeof tail);
            set_err(x->sx_err, x->sx_errlen,
                    "%s %s does not answer on %s (log %s: %s)",
                    skc_kind_name(d->cd_kind), d->cd_name, d->cd_endpoint, log,
                    tail);
            return SK_ETIMEDOUT;
        }
        /* It died: most likely its port was taken meanwhile; say why if
         * it does so again. */
        log_tail(log, tail, sizeof tail);
        set_err(x->sx_err, x->sx_errlen, "%s %s exited at start (log %s: %s)",
                skc_kind_name(d->cd_kind), d->cd_name, log, tail);
    }
    return SK_ESYS;
}

/* Every scheduler, and flowd, sees every node monitor. */
static int wait_membership(start_ctx *x)
{
    skc_cluster *c = x->sx_c;
    while (mono_s() < x->sx_deadline) {
        if (cancelled(x->sx_spec)) {
            set_err(x->sx_err, x->sx_errlen, "interrupted");
            return SK_ECANCELED;
        }
        int all = 1;
        for (unsigned i = 0; i < c->cc_n && all; i++) {
            if (c->cc_daemons[i].cd_kind == SKC_NODEMON)
                continue;
            sk_status *s;
            if (sk_status_fetch_keyed(c->cc_daemons[i].cd_endpoint, skc_key(c),
                                      0.25, 0, &s) != 0) {
                all = 0;
                break;
            }
            const char *nodes = sk_status_get(s, "nodes");
            all = nodes != NULL &&
                  strtoul(nodes, NULL, 10) >= x->sx_spec->cs_nodes;
            sk_status_free(s);
        }
        if (all)
            return 0;
        sleep_s(0.05);
    }
    set_err(x->sx_err, x->sx_errlen,
            "the schedulers or flowd do not see all %u node monitors in time "
            "(logs in %s/logs)",
            x->sx_spec->cs_nodes, c->cc_dir);
    return SK_ETIMEDOUT;
}

int skc_start(const skc_spec *sp, skc_cluster *c, char *err, size_t errlen)
{
    char dir[4096];
    int rc;
    if (sp->cs_dir != NULL)
        snprintf(dir, sizeof dir, "%s", sp->cs_dir);
    else if ((rc = skc_default_dir(dir, sizeof dir)) != 0) {
        set_err(err, errlen, "the default directory is too long");
        return rc;
    }
    if (sp->cs_schedulers < 1 || sp->cs_schedulers > 16 || sp->cs_nodes < 1 ||
        sp->cs_schedulers + sp->cs_nodes + (sp->cs_flowd != 0) >
            SKC_MAX_DAEMONS ||
        sp->cs_slots < 1 || sp->cs_slots > 4096 ||
        sp->cs_racks > sp->cs_nodes) {
        set_err(err, errlen, "bad cluster size");
        return SK_EINVAL;
    }
    if (skc_load(dir, c, err, errlen) == 0)
        for (unsigned i = 0; i < c->cc_n; i++)
            if (skc_alive(&c->cc_daemons[i])) {
                set_err(err, errlen,
                        "a cluster already runs in %s (pid %ld); stop it "
                        "with `skylark cluster down`",
                        dir, (long)c->cc_daemons[i].cd_pid);
                return SK_EEXIST;
            }
    if ((rc = ensure_dir(dir, err, errlen)) != 0)
        return rc;
    start_ctx x = {sp, c, {"", "", "", ""}, NULL, err, errlen, 0};
    if (skc_find_binary("skylark-sched", x.sx_bin[SKC_SCHED],
                        sizeof x.sx_bin[0]) != 0 ||
        skc_find_binary("skylark-nodemon", x.sx_bin[SKC_NODEMON],
                        sizeof x.sx_bin[0]) != 0) {
        set_err(err, errlen,
                "cannot find skylark-sched and skylark-nodemon (set "
                "SKYLARK_SCHED and SKYLARK_NODEMON, or PATH)");
        return SK_ENOTFOUND;
    }
    if (sp->cs_flowd && skc_find_binary("skylark-flowd", x.sx_bin[SKC_FLOWD],
                                        sizeof x.sx_bin[0]) != 0) {
        set_err(err, errlen,
                "cannot find skylark-flowd (set SKYLARK_FLOWD, or PATH; "
                "--no-flowd starts a cluster without it)");
        return SK_ENOTFOUND;
    }
    memset(c, 0, sizeof *c);
    snprintf(c->cc_dir, sizeof c->cc_dir, "%s", dir);
    find_key(c);
    if (sp->cs_insecure) {
        c->cc_key[0] = '\0';
    } else if (c->cc_key[0] == '\0') {
        snprintf(c->cc_key, sizeof c->cc_key, "%s/%s", dir, KEY_FILE);
        if ((rc = sk_keyfile_create(c->cc_key, err, errlen)) != 0)
            return rc;
    }
    x.sx_deadline = mono_s() + (sp->cs_timeout > 0 ? sp->cs_timeout : 30);
    /* flowd first, so that the others' --flowd names its endpoint; ids
     * count schedulers and node monitors only, as without it. */
    unsigned first = sp->cs_flowd ? 1 : 0;
    unsigned total = first + sp->cs_schedulers + sp->cs_nodes;
    for (unsigned i = 0; i < total && rc == 0; i++) {
        if (cancelled(sp)) {
            set_err(err, errlen, "interrupted");
            rc = SK_ECANCELED;
            break;
        }
        skc_daemon *d = &c->cc_daemons[c->cc_n];
        memset(d, 0, sizeof *d);
        unsigned k = i - first; /* among schedulers and node monitors */
        if (i < first) {
            d->cd_kind = SKC_FLOWD;
            snprintf(d->cd_name, sizeof d->cd_name, "flowd");
        } else if (k < sp->cs_schedulers) {
            d->cd_kind = SKC_SCHED;
            snprintf(d->cd_name, sizeof d->cd_name, "sched%u", k);
        } else {
            d->cd_kind = SKC_NODEMON;
            snprintf(d->cd_name, sizeof d->cd_name, "n%u",
                     k - sp->cs_schedulers);
        }
        rc = start_one(&x, d, i < first ? 0 : k + 1);
        if (d->cd_pid > 0)
            c->cc_n++; /* recorded even on failure, to be stopped */
        if (rc == 0 && d->cd_kind == SKC_FLOWD)
            x.sx_flowd = d->cd_endpoint;
        if (rc == 0)
            rc = save(c, err, errlen);
        if (rc == 0 && !sp->cs_quiet && isatty(STDERR_FILENO))
            fprintf(stderr, "\rstarting daemons: %u/%u", i + 1, total);
    }
    if (!sp->cs_quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K");
    if (rc == 0)
        rc = wait_membership(&x);
    if (rc != 0)
        skc_stop(c, 2, NULL);
    return rc;
}

/* How long a daemon that has exited may stay a zombie before its parent
 * (init, or a subreaper: the daemons outlive `skylark cluster up`) reaps
 * it. A usual init reaps at once; the one of the project's virtual
 * machines reaps about every 1.3 to 1.8 s (measured on orphaned
 * `sleep`s). The bound keeps an init that never reaps from holding
 * `cluster down` up for longer. */
#define REAP_WAIT_S 5.0

/* Wait until none of the daemons marked in watch runs, or until
 * deadline; then, until none is left unreaped either, for at most
 * REAP_WAIT_S more. */
static void wait_gone(skc_cluster *c, const unsigned char *watch,
                      double deadline)
{
    double reap_end = 0;
    for (;;) {
        unsigned running = 0, exited = 0;
        for (unsigned i = 0; i < c->cc_n; i++) {
            if (!watch[i])
                continue;
            proc_state st = state_of(&c->cc_daemons[i]);
            running += st == PROC_RUNNING;
            exited += st == PROC_EXITED;
        }
        double now = mono_s();
        if (running == 0 && exited == 0)
            return;
        if (running == 0) {
            if (reap_end == 0)
                reap_end = now + REAP_WAIT_S;
            if (now >= reap_end)
                return;
        } else if (now >= deadline) {
            return;
        }
        sleep_s(0.01);
    }
}

int skc_stop(skc_cluster *c, double grace, skc_stop_result *out)
{
    skc_stop_result r;
    memset(&r, 0, sizeof r);
    unsigned char live[SKC_MAX_DAEMONS] = {0}, killed[SKC_MAX_DAEMONS] = {0};
    for (unsigned i = 0; i < c->cc_n; i++)
        if (state_of(&c->cc_daemons[i]) == PROC_RUNNING) {
            live[i] = 1;
            kill(c->cc_daemons[i].cd_pid, SIGTERM);
        }
    wait_gone(c, live, mono_s() + grace);
    int any = 0;
    for (unsigned i = 0; i < c->cc_n; i++)
        if (live[i] && state_of(&c->cc_daemons[i]) == PROC_RUNNING) {
            kill(c->cc_daemons[i].cd_pid, SIGKILL);
            killed[i] = 1;
            any = 1;
        }
    if (any)
        wait_gone(c, killed, mono_s() + 5);
    for (unsigned i = 0; i < c->cc_n; i++) {
        if (!live[i])
            continue;
        proc_state st = state_of(&c->cc_daemons[i]);
        if (st == PROC_RUNNING) {
            if (r.sr_nleft < SKC_MAX_LEFT)
                r.sr_left[r.sr_nleft] = c->cc_daemons[i].cd_pid;
            r.sr_nleft++;
            continue;
        }
        if (killed[i])
            r.sr_killed++;
        else
            r.sr_stopped++;
        r.sr_unreaped += st == PROC_EXITED;
    }
    /* The file stays while a daemon it names still runs, so that another
     * `cluster down` can try again. */
    if (r.sr_nleft == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", c->cc_dir, CLUSTER_FILE);
        unlink(path);
    }
    if (out != NULL)
        *out = r;
    return r.sr_nleft == 0 ? 0 : SK_ETIMEDOUT;
}

unsigned skc_scheduler_endpoints(const skc_cluster *c, const char **eps,
                                 unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->cc_n && n < max; i++)
        if (c->cc_daemons[i].cd_kind == SKC_SCHED)
            eps[n++] = c->cc_daemons[i].cd_endpoint;
    return n;
}
