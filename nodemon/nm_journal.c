/*
 * nm_journal.c - the command executor's journal (nm_journal.h).
 */
#include "nm_journal.h"
#include "sk_log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "skylark-journal 1 "

/* A record waiting to be removed. */
typedef struct lingering {
    uint64_t lg_job;
    uint32_t lg_task, lg_attempt;
    uint64_t lg_due_us;
} lingering;

struct nm_journal {
    int j_dir; /* the directory, open */
    char j_path[4096];
    uint64_t j_linger_us;
    lingering *j_ring; /* oldest at j_head */
    uint32_t j_max, j_head, j_count;
    nm_journal_stats j_st;
};

static void name_of(char *buf, size_t len, uint64_t job, uint32_t task,
                    uint32_t attempt)
{
    snprintf(buf, len, "%" PRIu64 "-%" PRIu32 "-%" PRIu32, job, task, attempt);
}

int nm_journal_open(const char *dir, int64_t linger_ms, uint32_t max,
                    nm_journal **out, char *err, size_t errlen)
{
    if (dir[0] == '\0' || strlen(dir) >= sizeof((nm_journal *)0)->j_path ||
        linger_ms < 0 || max == 0) {
        snprintf(err, errlen, "bad journal settings");
        return EINVAL;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        int e = errno;
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(e));
        return e;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
        (st.st_mode & 0077) != 0) {
        int e = fd < 0 ? errno : EPERM;
        snprintf(err, errlen,
                 "%s must be a directory of this user's, mode 0700 (%s)", dir,
                 strerror(e));
        if (fd >= 0)
            close(fd);
        return e;
    }
    nm_journal *j = calloc(1, sizeof *j);
    lingering *ring = calloc(max, sizeof *ring);
    if (j == NULL || ring == NULL) {
        free(j);
        free(ring);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    j->j_dir = fd;
    snprintf(j->j_path, sizeof j->j_path, "%s", dir);
    j->j_linger_us = (uint64_t)linger_ms * 1000u;
    j->j_ring = ring;
    j->j_max = max;
    *out = j;
    return 0;
}

static void remove_record(nm_journal *j, uint64_t job, uint32_t task,
                          uint32_t attempt)
{
    char name[64];
    name_of(name, sizeof name, job, task, attempt);
    if (unlinkat(j->j_dir, name, 0) != 0 && errno != ENOENT)
        sk_warn("journal: cannot remove %s/%s: %s", j->j_path, name,
                strerror(errno));
}

/* Removes the lingering records due at now_us and, with make_room, the
 * oldest while the ring is full. */
static void sweep(nm_journal *j, uint64_t now_us, bool make_room)
{
    while (j->j_count > 0) {
        lingering *l = &j->j_ring[j->j_head];
        if (l->lg_due_us > now_us && !(make_room && j->j_count == j->j_max))
            break;
        remove_record(j, l->lg_job, l->lg_task, l->lg_attempt);
        j->j_head = (j->j_head + 1) % j->j_max;
        j->j_count--;
    }
}

void nm_journal_close(nm_journal *j)
{
    if (j == NULL)
        return;
    sweep(j, UINT64_MAX, false);
    close(j->j_dir);
    free(j->j_ring);
    free(j);
}

int nm_journal_begin(nm_journal *j, uint64_t job, uint32_t task,
                     uint32_t attempt, const nm_origin *o, uint64_t launch_us)
{
    char name[64], line[128 + SK_MAX_NAME_LEN];
    name_of(name, sizeof name, job, task, attempt);
    int len = snprintf(line, sizeof line,
                       MAGIC "%" PRIx64 " %" PRIu32 " %" PRIu32 " %" PRIu64
                             " %" PRIu64 " %.*s\n",
                       o->or_key, o->or_ref, o->or_sched, o->or_sched_inc,
                       launch_us, (int)SK_MAX_NAME_LEN, o->or_user);
    int fd = openat(
        j->j_dir, name,
        O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    /* The lock goes with the descriptor to the keeper: held while the
     * task may still end, released when the keeper exits. */
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        write(fd, line, (size_t)len) == len) {
        j->j_st.js_written++;
        return fd;
    }
    if (j->j_st.js_write_failed++ == 0)
        sk_warn("journal: cannot write %s/%s: %s (tasks run without a "
                "record)",
                j->j_path, name, strerror(errno));
    if (fd >= 0) {
        close(fd);
        unlinkat(j->j_dir, name, 0);
    }
    return -1;
}

void nm_journal_end(nm_journal *j, uint64_t job, uint32_t task,
                    uint32_t attempt, bool linger, uint64_t now_us)
{
    sweep(j, now_us, false);
    if (!linger || j->j_linger_us == 0) {
        remove_record(j, job, task, attempt);
        return;
    }
    sweep(j, now_us, true);
    lingering *l = &j->j_ring[(j->j_head + j->j_count) % j->j_max];
    *l = (lingering){job, task, attempt, now_us + j->j_linger_us};
    j->j_count++;
}

/* The digits at *p as an unsigned number in base (at most max). */
static bool field(const char **p, const char *end, int base, uint64_t max,
                  uint64_t *v)
{
    const char *s = *p;
    uint64_t n = 0;
    int digits = 0;
    for (; s < end; s++, digits++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else
            break;
        if (n > (max - (uint64_t)d) / (uint64_t)base)
            return false;
        n = n * (uint64_t)base + (uint64_t)d;
    }
    if (digits == 0 || digits > 20)
        return false;
    *v = n;
    *p = s;
    return true;
}

/* Expects the literal word w at *p. */
static bool word(const char **p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - *p) < n || memcmp(*p, w, n) != 0)
        return false;
    *p += n;
    return true;
}

int nm_journal_parse(const char *text, size_t len, nm_journal_entry *e)
{
    memset(e, 0, sizeof *e);
    const char *p = text, *end = text + len;
    uint64_t ref, sched, inc, v;
    if (len > NM_JOURNAL_MAX_BYTES || memchr(text, '\0', len) != NULL ||
        !word(&p, end, MAGIC) || !field(&p, end, 16, UINT64_MAX, &v) ||
        !word(&p, end, " ") || !field(&p, end, 10, UINT32_MAX, &ref) ||
        !word(&p, end, " ") || !field(&p, end, 10, UINT32_MAX, &sched) ||
        !word(&p, end, " ") || !field(&p, end, 10, UINT64_MAX, &inc) ||
        !word(&p, end, " ") ||
        !field(&p, end, 10, UINT64_MAX, &e->je_launch_us) ||
        !word(&p, end, " "))
        return -1;
    e->je_origin.or_key = v;
    e->je_origin.or_ref = (uint32_t)ref;
    e->je_origin.or_sched = (uint32_t)sched;
    e->je_origin.or_sched_inc = inc;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL || (size_t)(nl - p) > SK_MAX_NAME_LEN)
        return -1;
    memcpy(e->je_origin.or_user, p, (size_t)(nl - p));
    p = nl + 1;
    if (p == end)
        return 0;
    bool sig;
    if (word(&p, end, "end exit "))
        sig = false;
    else if (word(&p, end, "end signal "))
        sig = true;
    else
        return -1;
    if (!field(&p, end, 10, sig ? 64 : 255, &v) || !word(&p, end, " at ") ||
        !field(&p, end, 10, UINT64_MAX, &e->je_end_us) ||
        !word(&p, end, "\n") || p != end)
        return -1;
    e->je_signaled = sig;
    e->je_code = (int32_t)v;
    return 1;
}

/* Whether name is JOB-TASK-ATTEMPT; the three into e. */
static bool record_name(const char *name, nm_journal_entry *e)
{
    uint64_t job, task, attempt;
    const char *p = name, *end = name + strlen(name);
    if (!field(&p, end, 10, UINT64_MAX, &job) || !word(&p, end, "-") ||
        !field(&p, end, 10, UINT32_MAX, &task) || !word(&p, end, "-") ||
        !field(&p, end, 10, UINT32_MAX, &attempt) || p != end)
        return false;
    e->je_job = job;
    e->je_task = (uint32_t)task;
    e->je_attempt = (uint32_t)attempt;
    return true;
}

/* Milliseconds of the monotonic clock. */
static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Reads the record name into buf once no keeper holds it (waiting until
 * the monotonic deadline_ms at most; *held says it still was); returns
 * its length or -1. */
static ssize_t read_record(nm_journal *j, const char *name, char *buf,
                           size_t cap, uint64_t deadline_ms, bool *held)
{
    int fd = openat(j->j_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    struct stat st;
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const struct timespec tick = {0, 5 * 1000 * 1000};
        while ((*held = flock(fd, LOCK_SH | LOCK_NB) != 0) &&
               (errno == EWOULDBLOCK || errno == EINTR) &&
               mono_ms() < deadline_ms)
            nanosleep(&tick, NULL);
        if (fstat(fd, &st) == 0 && (uint64_t)st.st_size <= cap) {
            n = read(fd, buf, cap);
            if (n != st.st_size)
                n = -1;
        }
    }
    close(fd);
    return n;
}

void nm_journal_recover(nm_journal *j, uint32_t wait_ms,
                        void (*found)(void *arg, const nm_journal_entry *e),
                        void *arg)
{
    uint64_t deadline_ms = mono_ms() + wait_ms;
    int fd = dup(j->j_dir);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        sk_warn("journal: cannot read %s: %s", j->j_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    struct dirent *de;
    char buf[NM_JOURNAL_MAX_BYTES];
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        nm_journal_entry e, named = {0};
        bool held = false;
        ssize_t n = record_name(de->d_name, &named)
                        ? read_record(j, de->d_name, buf, sizeof buf,
                                      deadline_ms, &held)
                        : -1;
        int r = n >= 0 ? nm_journal_parse(buf, (size_t)n, &e) : -1;
        e.je_job = named.je_job;
        e.je_task = named.je_task;
        e.je_attempt = named.je_attempt;
        if (r < 0) {
            j->j_st.js_bad++;
            sk_warn("journal: %s/%s is not a task record%s", j->j_path,
                    de->d_name, n >= 0 ? ": removed" : ": left alone");
            if (n < 0)
                continue; /* not named as ours, or unreadable */
        } else if (r == 0) {
            j->j_st.js_unfinished++;
            sk_warn("journal: task %s has no end (%s): not offered, its "
                    "scheduler retries it",
                    de->d_name,
                    held ? "its keeper still ran" : "its keeper wrote none");
        } else if (e.je_signaled) {
            j->j_st.js_signaled++;
            sk_warn("journal: task %s ended by signal %" PRId32
                    ": not offered, its scheduler retries it",
                    de->d_name, e.je_code);
        } else {
            j->j_st.js_recovered++;
            found(arg, &e);
        }
        if (unlinkat(j->j_dir, de->d_name, 0) != 0)
            sk_warn("journal: cannot remove %s/%s: %s", j->j_path, de->d_name,
                    strerror(errno));
    }
    closedir(d);
}

#ifndef SK_PKGLIBEXECDIR
#define SK_PKGLIBEXECDIR "/usr/local/libexec/skylark"
#endif

int nm_journal_keeper(const char *configured, char *out, size_t len, char *err,
                      size_t errlen)
{
    if (configured[0] != '\0') {
        snprintf(out, len, "%s", configured);
    } else {
        /* Beside this program; in a build tree, in nodemon/ beside its
         * folder (cli/, bench/; libtool may run it from .libs/). */
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        char *slash = n > 0 ? memrchr(self, '/', (size_t)n) : NULL;
        out[0] = '\0';
        if (slash != NULL) {
            *slash = '\0';
            size_t dl = strlen(self);
            if (dl >= 6 && strcmp(self + dl - 6, "/.libs") == 0)
                self[dl - 6] = '\0';
            snprintf(out, len, "%s/skylark-keeper", self);
            if (access(out, X_OK) != 0)
                snprintf(out, len, "%s/../nodemon/skylark-keeper", self);
        }
        if (out[0] == '\0' || access(out, X_OK) != 0)
            snprintf(out, len, "%s/skylark-keeper", SK_PKGLIBEXECDIR);
    }
    if (out[0] != '/' || access(out, X_OK) != 0) {
        snprintf(err, errlen,
                 "[cmdexec] keeper: %s is not an executable file (%s)", out,
                 out[0] != '/' ? "not an absolute path" : strerror(errno));
        return -1;
    }
    return 0;
}

const nm_journal_stats *nm_journal_stats_get(const nm_journal *j)
{
    return &j->j_st;
}
