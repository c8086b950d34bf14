/*
 * nm_cgroup.c - a cgroup v2 directory per command task (nm_cgroup.h):
 * controllers, limits, cgroup.kill, memory.events and removal.
 */
#include "nm_cgroup.h"
#include "sk_log.h"
#include "skylark.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* cpu.max's period, microseconds (the kernel's default). */
#define CPU_PERIOD_US 100000u

/* The largest pids.max accepted (the kernel's PID_MAX_LIMIT). */
#define PIDS_MAX_LIMIT 4194304

/* The controllers we use, in NM_CG_* order, with the limit each gives. */
static const struct {
    const char *name;
    const char *limit;
} CTRL[] = {{"memory", "memory.max"}, {"cpu", "cpu.max"}, {"pids", "pids.max"}};
#define NCTRL (sizeof CTRL / sizeof CTRL[0])

struct nm_cgroup {
    int g_dir;           /* the node's directory, O_PATH-like */
    unsigned g_enforced; /* NM_CG_* */
    int64_t g_pids_max;
    char g_path[NM_CGROUP_PATH_MAX + 2 + 8 + SK_MAX_NAME_LEN];
    char g_why[NCTRL][96]; /* why a controller is not enforced */
    uint32_t g_max_busy;
    uint32_t g_nbusy;
    char (*g_busy)[NM_CGROUP_NAME_LEN]; /* waiting for their last exit */
    nm_cgroup_stats g_st;
};

void nm_cgroup_config_init(nm_cgroup_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cg_pids_max = 4096;
}

size_t nm_cgroup_keys(nm_cgroup_config *cfg, sk_config_key *keys)
{
    const sk_config_key k[NM_CGROUP_NKEYS] = {
        {"cmdexec", "cgroup", SK_CONFIG_STRING, cfg->cg_parent,
         sizeof cfg->cg_parent, 0, 0, NULL,
         "a cgroup v2 directory under which every command task gets a "
         "cgroup of its own (empty: no cgroups, the default)"},
        {"cmdexec", "cgroup_pids_max", SK_CONFIG_INT, &cfg->cg_pids_max, 0, 0,
         PIDS_MAX_LIMIT, NULL,
         "pids.max of a task's cgroup (0: no cap); default 4096"},
    };
    memcpy(keys, k, sizeof k);
    return NM_CGROUP_NKEYS;
}

/* ---- small file helpers ------------------------------------------------- */

/* Writes s to the file rel under dir. Returns 0 or an errno value. */
static int put(int dir, const char *rel, const char *s)
{
    int fd = openat(dir, rel, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t len = strlen(s);
    ssize_t n = write(fd, s, len);
    int err = n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
    close(fd);
    return err;
}

/* Reads the file rel under dir into buf (len bytes, NUL-terminated).
 * Returns 0 or an errno value. */
static int get(int dir, const char *rel, char *buf, size_t len)
{
    int fd = openat(dir, rel, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t got = 0;
    while (got + 1 < len) {
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    close(fd);
    return 0;
}

/* Whether the space-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl)
        if ((p == list || p[-1] == ' ') &&
            (p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\n'))
            return true;
    return false;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Kills what runs in the task directory name and removes it, waiting
 * up to a second (set-up and close only). Returns 0 or an errno. */
static int remove_wait(int dir, const char *name)
{
    char rel[NM_CGROUP_NAME_LEN + 16];
    snprintf(rel, sizeof rel, "%s/cgroup.kill", name);
    put(dir, rel, "1");
    for (int i = 0; i < 100; i++) {
        if (unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY)
            return errno;
        pause_ms(10);
    }
    return EBUSY;
}

/* Removes the task directories an earlier run left in the node's. */
static int clean_stale(nm_cgroup *cg, char *err, size_t errlen)
{
    int fd = openat(cg->g_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        snprintf(err, errlen, "[cmdexec] cgroup: cannot list %s: %s",
                 cg->g_path, strerror(errno));
        return SK_ECONFIG;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_type != DT_DIR || e->d_name[0] == '.')
            continue;
        if (strlen(e->d_name) >= NM_CGROUP_NAME_LEN ||
            remove_wait(cg->g_dir, e->d_name) != 0) {
            snprintf(err, errlen,
                     "[cmdexec] cgroup: cannot remove %s/%.60s, left by an "
                     "earlier run: %s",
                     cg->g_path, e->d_name, strerror(errno));
            rc = SK_ECONFIG;
            break;
        }
        cg->g_st.gs_stale++;
    }
    closedir(d);
    return rc;
}

/* Enables in the parent (pfd) and then in the node's directory every
 * controller we use that the parent offers; notes why the others are
 * not enforced. */
static void enable_controllers(nm_cgroup *cg, int pfd)
{
    char offered[512], on[512];
    if (get(pfd, "cgroup.controllers", offered, sizeof offered) != 0)
        offered[0] = '\0';
    if (get(pfd, "cgroup.subtree_control", on, sizeof on) != 0)
        on[0] = '\0';
    for (size_t i = 0; i < NCTRL; i++) {
        char plus[16];
        snprintf(plus, sizeof plus, "+%s", CTRL[i].name);
        int e = 0;
        if (!has_word(offered, CTRL[i].name))
            snprintf(cg->g_why[i], sizeof cg->g_why[i],
                     "controller %s not offered by this machine", CTRL[i].name);
        else if (!has_word(on, CTRL[i].name) &&
                 (e = put(pfd, "cgroup.subtree_control", plus)) != 0)
            snprintf(cg->g_why[i], sizeof cg->g_why[i],
                     "cannot enable %s in the parent: %s", CTRL[i].name,
                     strerror(e));
        else if ((e = put(cg->g_dir, "cgroup.subtree_control", plus)) != 0)
            snprintf(cg->g_why[i], sizeof cg->g_why[i],
                     "cannot enable %s for tasks: %s", CTRL[i].name,
                     strerror(e));
        else
            cg->g_enforced |= 1u << i;
    }
}

int nm_cgroup_open(const nm_cgroup_config *cfg, const char *node,
                   uint32_t max_busy, nm_cgroup **out, char *err, size_t errlen)
{
    const char *p = cfg->cg_parent;
    if (p[0] != '/' || strstr(p, "/../") != NULL ||
        strlen(p) > NM_CGROUP_PATH_MAX) {
        snprintf(err, errlen,
                 "[cmdexec] cgroup: must be an absolute path of at most %u "
                 "bytes without '..', got '%.80s'",
                 NM_CGROUP_PATH_MAX, p);
        return SK_ECONFIG;
    }
    if (cfg->cg_pids_max < 0 || cfg->cg_pids_max > PIDS_MAX_LIMIT) {
        snprintf(err, errlen,
                 "[cmdexec] cgroup_pids_max: must be 0 to %d, got %" PRId64,
                 PIDS_MAX_LIMIT, cfg->cg_pids_max);
        return SK_ECONFIG;
    }
    struct statfs fs;
    if (statfs(p, &fs) != 0) {
        snprintf(err, errlen, "[cmdexec] cgroup: %s: %s", p, strerror(errno));
        return SK_ECONFIG;
    }
    if (fs.f_type != CGROUP2_SUPER_MAGIC) {
        snprintf(err, errlen,
                 "[cmdexec] cgroup: %s is not on a cgroup v2 file system "
                 "(type 0x%lx; cgroup2 is 0x%x)",
                 p, (unsigned long)fs.f_type, CGROUP2_SUPER_MAGIC);
        return SK_ECONFIG;
    }
    nm_cgroup *cg = calloc(1, sizeof *cg);
    if (cg == NULL ||
        (cg->g_busy = calloc(max_busy + 1, sizeof *cg->g_busy)) == NULL) {
        free(cg);
        return SK_ENOMEM;
    }
    cg->g_dir = -1;
    cg->g_max_busy = max_busy;
    cg->g_pids_max = cfg->cg_pids_max;
    snprintf(cg->g_path, sizeof cg->g_path, "%s/skylark-%s", p, node);
    int pfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = SK_ECONFIG;
    if (pfd < 0) {
        snprintf(err, errlen, "[cmdexec] cgroup: %s: %s", p, strerror(errno));
        goto fail;
    }
    bool existed = false;
    if (mkdir(cg->g_path, 0755) != 0) {
        if (errno != EEXIST) {
            snprintf(err, errlen, "[cmdexec] cgroup: cannot make %s: %s",
                     cg->g_path, strerror(errno));
            goto fail;
        }
        existed = true;
    }
    cg->g_dir = open(cg->g_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg->g_dir < 0) {
        snprintf(err, errlen, "[cmdexec] cgroup: %s: %s", cg->g_path,
                 strerror(errno));
        goto fail;
    }
    if (faccessat(cg->g_dir, "cgroup.kill", W_OK, 0) != 0 ||
        faccessat(cg->g_dir, "cgroup.procs", W_OK, 0) != 0) {
        snprintf(err, errlen,
                 "[cmdexec] cgroup: %s: no writable cgroup.kill and "
                 "cgroup.procs (%s; Linux 5.14 or later is needed)",
                 cg->g_path, strerror(errno));
        goto fail;
    }
    if (existed && clean_stale(cg, err, errlen) != 0)
        goto fail;
    enable_controllers(cg, pfd);
    close(pfd);
    *out = cg;
    return 0;
fail:
    if (pfd >= 0)
        close(pfd);
    nm_cgroup_close(cg);
    return rc;
}

void nm_cgroup_close(nm_cgroup *cg)
{
    if (cg == NULL)
        return;
    if (cg->g_dir >= 0) {
        for (uint32_t i = 0; i < cg->g_nbusy; i++)
            remove_wait(cg->g_dir, cg->g_busy[i]);
        char err[256];
        clean_stale(cg, err, sizeof err);
        close(cg->g_dir);
        rmdir(cg->g_path);
    }
    free(cg->g_busy);
    free(cg);
}

unsigned nm_cgroup_enforced(const nm_cgroup *cg)
{
    return cg->g_enforced;
}

const char *nm_cgroup_path(const nm_cgroup *cg)
{
    return cg->g_path;
}

void nm_cgroup_describe(const nm_cgroup *cg, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len,
                                 "cgroup v2 confinement in %s: tasks killed "
                                 "as a whole (cgroup.kill); enforced:",
                                 cg->g_path);
    bool any = false;
    for (size_t i = 0; i < NCTRL && at < len; i++)
        if (cg->g_enforced & (1u << i)) {
            at += (size_t)snprintf(buf + at, len - at, " %s", CTRL[i].limit);
            any = true;
        }
    if (!any && at < len)
        at += (size_t)snprintf(buf + at, len - at, " none");
    for (size_t i = 0; i < NCTRL && at < len; i++)
        if (!(cg->g_enforced & (1u << i)))
            at +=
                (size_t)snprintf(buf + at, len - at, "; NOT enforced: %s (%s)",
                                 CTRL[i].limit, cg->g_why[i]);
}

void nm_cgroup_name(uint64_t job, uint32_t task, uint32_t attempt,
                    char name[NM_CGROUP_NAME_LEN])
{
    snprintf(name, NM_CGROUP_NAME_LEN, "%" PRIu64 ".%" PRIu32 ".%" PRIu32, job,
             task, attempt);
}

/* ---- tasks -------------------------------------------------------------- */

/* Writes value into the limit file of the task directory name. */
static int limit(nm_cgroup *cg, const char *name, const char *file,
                 const char *value)
{
    char rel[NM_CGROUP_NAME_LEN + 24];
    snprintf(rel, sizeof rel, "%s/%s", name, file);
    return put(cg->g_dir, rel, value);
}

int nm_cgroup_task_create(nm_cgroup *cg, const char *name,
                          const sk_resources *res, int *procs, char *err,
                          size_t errlen)
{
    if (mkdirat(cg->g_dir, name, 0755) != 0) {
        int e = errno;
        cg->g_st.gs_failed++;
        snprintf(err, errlen, "mkdir %s/%s: %s", cg->g_path, name, strerror(e));
        return e;
    }
    char v[32];
    const char *step = NULL;
    int e = 0;
    if ((cg->g_enforced & NM_CG_MEMORY) && res->r_mem_mb > 0) {
        snprintf(v, sizeof v, "%" PRIu64, (uint64_t)res->r_mem_mb << 20);
        if ((e = limit(cg, name, "memory.max", v)) != 0)
            step = "memory.max";
        /* No swap beyond the request; a kernel without swap accounting
         * has no such file, and nothing to limit. */
        else if (limit(cg, name, "memory.swap.max", "0") != 0)
            e = 0;
    }
    if (e == 0 && (cg->g_enforced & NM_CG_CPU) && res->r_cpu_milli > 0) {
        uint64_t quota = (uint64_t)res->r_cpu_milli * CPU_PERIOD_US / 1000u;
        snprintf(v, sizeof v, "%" PRIu64 " %u", quota < 1000 ? 1000 : quota,
                 CPU_PERIOD_US);
        if ((e = limit(cg, name, "cpu.max", v)) != 0)
            step = "cpu.max";
    }
    if (e == 0 && (cg->g_enforced & NM_CG_PIDS) && cg->g_pids_max > 0) {
        snprintf(v, sizeof v, "%" PRId64, cg->g_pids_max);
        if ((e = limit(cg, name, "pids.max", v)) != 0)
            step = "pids.max";
    }
    if (e == 0) {
        char rel[NM_CGROUP_NAME_LEN + 16];
        snprintf(rel, sizeof rel, "%s/cgroup.procs", name);
        if ((*procs = openat(cg->g_dir, rel, O_WRONLY | O_CLOEXEC)) < 0) {
            e = errno;
            step = "cgroup.procs";
        }
    }
    if (e != 0) {
        cg->g_st.gs_failed++;
        snprintf(err, errlen, "%s/%s/%s: %s", cg->g_path, name, step,
                 strerror(e));
        unlinkat(cg->g_dir, name, AT_REMOVEDIR);
        return e;
    }
    cg->g_st.gs_created++;
    return 0;
}

int nm_cgroup_task_kill(nm_cgroup *cg, const char *name)
{
    return limit(cg, name, "cgroup.kill", "1");
}

/* The oom_kill count of memory.events in the task directory name. */
static uint64_t oom_kills(nm_cgroup *cg, const char *name)
{
    char rel[NM_CGROUP_NAME_LEN + 16], buf[512];
    snprintf(rel, sizeof rel, "%s/memory.events", name);
    if (get(cg->g_dir, rel, buf, sizeof buf) != 0)
        return 0;
    const char *p = strstr(buf, "oom_kill ");
    return p != NULL ? strtoull(p + 9, NULL, 10) : 0;
}

uint64_t nm_cgroup_task_end(nm_cgroup *cg, const char *name)
{
    nm_cgroup_task_kill(cg, name);
    uint64_t oom = (cg->g_enforced & NM_CG_MEMORY) ? oom_kills(cg, name) : 0;
    if (oom > 0)
        cg->g_st.gs_oom++;
    if (unlinkat(cg->g_dir, name, AT_REMOVEDIR) == 0) {
        cg->g_st.gs_removed++;
    } else if (errno == EBUSY && cg->g_nbusy < cg->g_max_busy) {
        memcpy(cg->g_busy[cg->g_nbusy++], name, NM_CGROUP_NAME_LEN);
        cg->g_st.gs_busy = cg->g_nbusy;
    } else {
        cg->g_st.gs_leaked++;
        sk_warn("cgroup %s/%s: cannot remove it: %s", cg->g_path, name,
                strerror(errno));
    }
    return oom;
}

uint32_t nm_cgroup_sweep(nm_cgroup *cg)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < cg->g_nbusy; i++) {
        if (unlinkat(cg->g_dir, cg->g_busy[i], AT_REMOVEDIR) == 0 ||
            errno == ENOENT) {
            cg->g_st.gs_removed++;
            continue;
        }
        if (errno != EBUSY) {
            cg->g_st.gs_leaked++;
            sk_warn("cgroup %s/%s: cannot remove it: %s", cg->g_path,
                    cg->g_busy[i], strerror(errno));
            continue;
        }
        /* Killed again: a process that forked after the first kill. */
        nm_cgroup_task_kill(cg, cg->g_busy[i]);
        if (keep != i)
            memcpy(cg->g_busy[keep], cg->g_busy[i], NM_CGROUP_NAME_LEN);
        keep++;
    }
    cg->g_nbusy = keep;
    cg->g_st.gs_busy = keep;
    return keep;
}

const nm_cgroup_stats *nm_cgroup_stats_get(const nm_cgroup *cg)
{
    return &cg->g_st;
}
