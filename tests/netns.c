/*
 * netns.c - hosts made of network namespaces for multi-host tests (see
 * netns.h): a bridge in a switch namespace, one namespace per host joined
 * to it by a veth pair, `ip` to build them, setns(2) to run programs on
 * them, and a clean-up that leaves nothing behind.
 */
#include "netns.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NETNS_DIR "/run/netns"
#define PREFIX    "skn"

static const char *const IP_PATHS[] = {"/usr/sbin/ip", "/sbin/ip",
                                       "/usr/bin/ip", "/bin/ip"};

static const int SIGNALS[] = {SIGINT,  SIGTERM, SIGHUP,
                              SIGALRM, SIGABRT, SIGSEGV};
#define NSIGNALS (int)(sizeof SIGNALS / sizeof SIGNALS[0])

static const char *ip_path;
static pid_t owner; /* the test's pid: children never clean up */
static int subnet;
static char sw[40]; /* the switch's namespace, "" until made */
static nh_host hosts[NH_MAX_HOSTS];
static int nhosts;
static struct sigaction old_actions[NSIGNALS];

/* ---- running ip --------------------------------------------------------- */

/* Runs ip with the words of the printf-style command line (words split at
 * spaces; names never hold any). Its output, if out is not NULL, goes to
 * out (NUL-terminated, newlines as spaces). Returns its exit status, or
 * -1 if it did not run. Uses only fork, exec and wait, so that the clean-up
 * may call it from a signal handler. */
static int ip(char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ip(char *out, size_t outlen, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)ip_path;
    for (char *w = strtok(line, " "); w != NULL && argc < 31;
         w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        execv(ip_path, argv);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    char buf[256];
    ssize_t r;
    while ((r = read(fds[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        for (ssize_t i = 0; i < r && out != NULL && n + 1 < outlen; i++)
            out[n++] = buf[i] == '\n' ? ' ' : buf[i];
    if (out != NULL && outlen > 0)
        out[n] = '\0';
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- clean-up ----------------------------------------------------------- */

/* SIGKILLs every process whose network namespace is the one mounted at
 * NETNS_DIR/name, but the calling process (which nh_enter may have moved
 * there: it goes when it exits). */
static void kill_inside(const char *name)
{
    char path[300];
    struct stat ns;
    snprintf(path, sizeof path, "%s/%s", NETNS_DIR, name);
    if (stat(path, &ns) != 0)
        return;
    DIR *d = opendir("/proc");
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
        if (stat(path, &st) == 0 && st.st_ino == ns.st_ino &&
            st.st_dev == ns.st_dev)
            kill(pid, SIGKILL);
    }
    closedir(d);
}

static void delete_netns(const char *name)
{
    kill_inside(name);
    ip(NULL, 0, "netns del %s", name);
}

/* Deletes the hosts, then the switch: with it go the bridge and every veth
 * pair (deleting one end of a pair deletes the other). */
static void cleanup(void)
{
    if (getpid() != owner)
        return;
    for (int i = nhosts - 1; i >= 0; i--) {
        delete_netns(hosts[i].nh_netns);
        if (hosts[i].nh_fd >= 0)
            close(hosts[i].nh_fd);
        hosts[i].nh_fd = -1;
    }
    nhosts = 0;
    if (sw[0] != '\0')
        delete_netns(sw);
    sw[0] = '\0';
}

/* Cleans up, then lets the signal's previous action happen (tap's timeout
 * handler, or the default). opendir in kill_inside is not async-signal-safe;
 * a test that stopped in malloc may hang here, and its tap_timeout is the
 * bound. */
static void on_signal(int sig)
{
    cleanup();
    for (int i = 0; i < NSIGNALS; i++)
        if (SIGNALS[i] == sig)
            sigaction(sig, &old_actions[i], NULL);
    raise(sig);
}

/* Deletes namespaces "skn<pid>-*" of tests that are gone (killed by
 * SIGKILL, which no handler sees). Names are read first: deleting while
 * reading the folder would skip some. */
static void sweep_stale(void)
{
    char stale[64][256];
    int n = 0;
    DIR *d = opendir(NETNS_DIR);
    if (d == NULL)
        return;
    for (struct dirent *e; n < 64 && (e = readdir(d)) != NULL;) {
        int pid, used = 0;
        if (sscanf(e->d_name, PREFIX "%d-%n", &pid, &used) == 1 && used > 0 &&
            pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
            snprintf(stale[n++], sizeof stale[0], "%s", e->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        tap_diag("deleting namespace %s of a test that is gone", stale[i]);
        delete_netns(stale[i]);
    }
}

/* ---- set-up ------------------------------------------------------------- */

/* Whether this process may make a network namespace: tried in a child. */
static int probe_unshare(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0)
        _exit(unshare(CLONE_NEWNET) == 0 ? 0 : (errno & 0x7f));
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

void nh_init(int net)
{
    owner = getpid();
    subnet = net & 0xff;
    if (geteuid() != 0)
        tap_skip_all("not root: network namespaces, veth pairs and bridges "
                     "need CAP_SYS_ADMIN and CAP_NET_ADMIN");
    for (size_t i = 0; i < sizeof IP_PATHS / sizeof IP_PATHS[0]; i++)
        if (access(IP_PATHS[i], X_OK) == 0) {
            ip_path = IP_PATHS[i];
            break;
        }
    if (ip_path == NULL)
        tap_skip_all("no ip command (iproute2) in /usr/sbin, /sbin, "
                     "/usr/bin or /bin");
    int err = probe_unshare();
    if (err != 0)
        tap_skip_all("network namespaces refused: unshare(CLONE_NEWNET): %s",
                     strerror(err));
    sweep_stale();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIGNALS; i++)
        sigaction(SIGNALS[i], &sa, &old_actions[i]);
    atexit(cleanup);
    char out[512];
    snprintf(sw, sizeof sw, PREFIX "%d-sw", (int)owner);
    if (ip(out, sizeof out, "netns add %s", sw) != 0) {
        sw[0] = '\0';
        tap_skip_all("ip netns add refused: %s", out);
    }
    if (ip(out, sizeof out,
           "-n %s link add br0 type bridge forward_delay 0 stp_state 0",
           sw) != 0 ||
        ip(out, sizeof out, "-n %s link set br0 up", sw) != 0) {
        cleanup();
        tap_skip_all("cannot make a bridge in a namespace: %s", out);
    }
}

nh_host *nh_host_add(const char *name)
{
    if (nhosts >= NH_MAX_HOSTS || strlen(name) < 1 || strlen(name) > 12 ||
        strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(name))
        tap_bail_out("nh_host_add: bad host name '%s' or too many hosts", name);
    nh_host *h = &hosts[nhosts];
    memset(h, 0, sizeof *h);
    h->nh_fd = -1;
    snprintf(h->nh_name, sizeof h->nh_name, "%s", name);
    snprintf(h->nh_netns, sizeof h->nh_netns, PREFIX "%d-%s", (int)owner, name);
    snprintf(h->nh_veth, sizeof h->nh_veth, "v-%s", name);
    snprintf(h->nh_addr, sizeof h->nh_addr, "10.231.%d.%d", subnet, nhosts + 1);
    char out[512];
    if (ip(out, sizeof out, "netns add %s", h->nh_netns) != 0)
        tap_bail_out("host %s: ip netns add: %s", name, out);
    nhosts++; /* from here the clean-up deletes it */
    if (ip(out, sizeof out, "-n %s link set lo up", h->nh_netns) != 0 ||
        ip(out, sizeof out,
           "-n %s link add %s type veth peer name eth0 netns %s", sw,
           h->nh_veth, h->nh_netns) != 0 ||
        ip(out, sizeof out, "-n %s link set %s master br0 up", sw,
           h->nh_veth) != 0 ||
        ip(out, sizeof out, "-n %s addr add %s/24 dev eth0", h->nh_netns,
           h->nh_addr) != 0 ||
        ip(out, sizeof out, "-n %s link set eth0 up", h->nh_netns) != 0)
        tap_bail_out("host %s: %s", name, out);
    char path[300];
    snprintf(path, sizeof path, "%s/%s", NETNS_DIR, h->nh_netns);
    h->nh_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (h->nh_fd < 0)
        tap_bail_out("host %s: %s: %s", name, path, strerror(errno));
    return h;
}

void nh_enter(const nh_host *h)
{
    if (setns(h->nh_fd, CLONE_NEWNET) != 0)
        tap_bail_out("cannot enter host %s: setns: %s", h->nh_name,
                     strerror(errno));
}

static int enter_hook(void *arg)
{
    return setns(((const nh_host *)arg)->nh_fd, CLONE_NEWNET);
}

int nh_spawn(const nh_host *h, dh_proc *p, const char *log_name,
             char *const argv[])
{
    dh_set_child_hook(enter_hook, (void *)h);
    int rc = dh_spawn(p, log_name, argv);
    dh_set_child_hook(NULL, NULL);
    return rc;
}

int nh_start_sched(const nh_host *h, dh_proc *p, const char *name, int id,
                   const char *listen, const char *const *extra)
{
    dh_set_child_hook(enter_hook, (void *)h);
    int rc = dh_start_sched_at(p, name, id, listen, extra);
    dh_set_child_hook(NULL, NULL);
    return rc;
}

int nh_start_nodemon(const nh_host *h, dh_proc *p, const char *name, int id,
                     int slots, const char *listen, const char *const *scheds,
                     int n, const char *const *extra)
{
    dh_set_child_hook(enter_hook, (void *)h);
    int rc = dh_start_nodemon_at(p, name, id, slots, listen, scheds, n, extra);
    dh_set_child_hook(NULL, NULL);
    return rc;
}

int nh_system(const nh_host *h, const char *cmd)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (setns(h->nh_fd, CLONE_NEWNET) != 0)
            _exit(127);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int nh_link(const nh_host *h, bool up)
{
    char out[512];
    if (ip(out, sizeof out, "-n %s link set %s %s", sw, h->nh_veth,
           up ? "up" : "down") != 0) {
        tap_diag("host %s: link %s: %s", h->nh_name, up ? "up" : "down", out);
        return -1;
    }
    return 0;
}

char *nh_endpoint(const nh_host *h, int port, char *buf, size_t len)
{
    snprintf(buf, len, "tcp://%s:%d", h->nh_addr, port);
    return buf;
}
