/*
 * nm_cgroup.h - cgroup v2 confinement of command tasks, an option of the
 * node monitor ([cmdexec] cgroup, off by default; docs/SECURITY.md).
 *
 * Under the configured parent directory (on a cgroup v2 mount) the node
 * monitor makes a directory of its own, `skylark-NODE`, and in it one
 * directory per task attempt, `JOB.TASK.ATTEMPT`, made before the task
 * starts and removed after it ends. A task's child joins its directory
 * before exec (it writes to cgroup.procs), so every process the task
 * forks, in any process group or session, stays in it: a kill writes
 * cgroup.kill and none escapes. A task's directory gets the limits of its
 * request where the machine offers the controller: memory.max (and
 * memory.swap.max 0) from its memory, cpu.max from its CPU, pids.max from
 * [cmdexec] cgroup_pids_max. Which of these are enforced depends on the
 * controllers the parent offers: nm_cgroup_open enables those it can in
 * the parent's cgroup.subtree_control, and nm_cgroup_describe says which
 * are enforced and which are not offered.
 *
 * A directory left by an earlier run of the same node (the node monitor
 * died of SIGKILL) is found at open: its tasks are killed and the task
 * directories removed. Removal of a task's directory waits until its
 * last process has exited (the kernel refuses it before): directories
 * still busy wait in a bounded list that nm_cgroup_sweep retries.
 *
 * Costs: a task's directory is a mkdir, one write per limit, an open of
 * cgroup.procs, and at the end a write to cgroup.kill, a read of
 * memory.events and an rmdir: bench/launch measured 1.14x and 1.25x the
 * time from launch to result of a `true` task without a cgroup (medians
 * of 21 and 41 rounds of 64; 1.2 ms without, +0.17 and +0.28 ms with).
 * Threading: one thread.
 */
#ifndef NM_CGROUP_H
#define NM_CGROUP_H

#include "sk_config.h"
#include "sk_proto.h"

#include <stddef.h>
#include <stdint.h>

/* The number of sk_config_key entries nm_cgroup_keys fills. */
#define NM_CGROUP_NKEYS 2u

/* The longest parent directory accepted. */
#define NM_CGROUP_PATH_MAX 200u

/* Bytes of a task directory's name, with its NUL: JOB.TASK.ATTEMPT. */
#define NM_CGROUP_NAME_LEN 48u

/* The limits a task's directory can carry (nm_cgroup_enforced). */
enum {
    NM_CG_MEMORY = 1u, /* memory.max from the memory request */
    NM_CG_CPU = 2u,    /* cpu.max from the CPU request */
    NM_CG_PIDS = 4u,   /* pids.max from cgroup_pids_max */
};

/* Settings. */
typedef struct nm_cgroup_config {
    char cg_parent[NM_CGROUP_PATH_MAX + 1]; /* "" : no cgroups (default) */
    int64_t cg_pids_max;                    /* pids.max of a task; 0: no cap */
} nm_cgroup_config;

/* Counters. */
typedef struct nm_cgroup_stats {
    uint64_t gs_created; /* task directories made */
    uint64_t gs_removed; /* task directories removed */
    uint64_t gs_failed;  /* task directories that could not be made */
    uint64_t gs_oom;     /* tasks the out-of-memory killer hit */
    uint64_t gs_leaked;  /* directories given up: the busy list was full
                            or the removal failed for another reason */
    uint32_t gs_busy;    /* directories waiting for their last process */
    uint32_t gs_stale;   /* task directories of an earlier run removed */
} nm_cgroup_stats;

typedef struct nm_cgroup nm_cgroup;

/* nm_cgroup_config_init sets the defaults: off, pids.max 4096. */
void nm_cgroup_config_init(nm_cgroup_config *cfg);

/* nm_cgroup_keys fills keys[0..NM_CGROUP_NKEYS) for sk_config_load:
 * [cmdexec] cgroup and cgroup_pids_max, into cfg. */
size_t nm_cgroup_keys(nm_cgroup_config *cfg, sk_config_key *keys);

/* nm_cgroup_open sets up confinement under cfg->cg_parent for the node
 * node: checks that the parent is an absolute path to a directory of a
 * cgroup v2 file system with cgroup.kill (Linux 5.14), enables the
 * memory, cpu and pids controllers the parent offers, makes (or cleans,
 * see above) the node's directory, and gives the controllers it got to
 * the tasks' directories. max_busy bounds the list of directories waiting
 * for removal. Returns 0, or SK_ECONFIG with a message naming the key and
 * the fault in err (the configuration is wrong or the machine does not
 * allow it; the node monitor should refuse to start), or SK_ENOMEM.
 * Blocks (file system calls, up to a second to clean an earlier run's
 * directory): call at start. */
int nm_cgroup_open(const nm_cgroup_config *cfg, const char *node,
                   uint32_t max_busy, nm_cgroup **out, char *err,
                   size_t errlen);

/* nm_cgroup_close kills what is left in every task directory, removes
 * them and the node's directory (waiting up to a second for the last
 * processes to exit) and frees cg. NULL is a no-op. */
void nm_cgroup_close(nm_cgroup *cg);

/* nm_cgroup_enforced returns the NM_CG_* limits tasks get here. */
unsigned nm_cgroup_enforced(const nm_cgroup *cg);

/* nm_cgroup_describe writes into buf (len bytes) one line for the log:
 * the node's directory, the limits enforced and those not offered by
 * this machine. */
void nm_cgroup_describe(const nm_cgroup *cg, char *buf, size_t len);

/* nm_cgroup_path returns the node's directory. */
const char *nm_cgroup_path(const nm_cgroup *cg);

/* nm_cgroup_name writes the task directory's name of an attempt into
 * name (NM_CGROUP_NAME_LEN bytes). */
void nm_cgroup_name(uint64_t job, uint32_t task, uint32_t attempt,
                    char name[NM_CGROUP_NAME_LEN]);

/* nm_cgroup_task_create makes the task directory name with the limits of
 * res that are enforced (0 in a field: no limit of that kind) and opens
 * its cgroup.procs for writing into *procs: a process that writes "0"
 * there joins the directory. The caller closes *procs. Returns 0, or an
 * errno value with the step that failed in err (the directory is then
 * gone again). */
int nm_cgroup_task_create(nm_cgroup *cg, const char *name,
                          const sk_resources *res, int *procs, char *err,
                          size_t errlen);

/* nm_cgroup_task_kill kills (SIGKILL) every process of the task
 * directory name at once (cgroup.kill). Returns 0 or an errno value. */
int nm_cgroup_task_kill(nm_cgroup *cg, const char *name);

/* nm_cgroup_task_end is called when the task's shell has exited: it
 * kills what is left in name, returns the number of processes the
 * out-of-memory killer killed in it (memory.events oom_kill; 0 without
 * the memory controller) and removes the directory, now or, while
 * processes remain, from nm_cgroup_sweep. */
uint64_t nm_cgroup_task_end(nm_cgroup *cg, const char *name);

/* nm_cgroup_sweep retries the removal of busy directories. Returns how
 * many still wait (call it again later while that is not 0). */
uint32_t nm_cgroup_sweep(nm_cgroup *cg);

/* nm_cgroup_stats_get returns the counters. */
const nm_cgroup_stats *nm_cgroup_stats_get(const nm_cgroup *cg);

#endif /* NM_CGROUP_H */
