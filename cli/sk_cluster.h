/*
 * sk_cluster.h - a local Skylark cluster on loopback: the flow node,
 * schedulers and node monitors that `skylark cluster up` starts in the
 * background (and bench/short-path starts for its run, without flowd),
 * the cluster file that records them, and stopping them again.
 *
 * A cluster lives in a directory (default: $SKYLARK_DIR, else
 * $XDG_RUNTIME_DIR/skylark, else /tmp/skylark-UID), which holds the
 * cluster file `cluster` (one line per daemon: kind, name, endpoint,
 * pid), the cluster key `cluster.key` (mode 0600: every daemon and every
 * command of the local cluster authenticates with it) and the daemons'
 * logs under logs/. Daemons listen on
 * tcp://127.0.0.1 ports that were free a moment before; a daemon that
 * cannot bind its port is started again on another.
 *
 * Threading: none; the calls block the calling thread (starting waits for
 * every daemon to answer a status request).
 */
#ifndef SK_CLUSTER_H
#define SK_CLUSTER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define SKC_MAX_DAEMONS 1024
#define SKC_MAX_WEIGHTS 64

typedef enum skc_kind {
    SKC_SCHED = 1,
    SKC_NODEMON = 2,
    SKC_FLOWD = 3, /* the flow node, started first when there is one */
} skc_kind;

/* One daemon of the cluster. */
typedef struct skc_daemon {
    skc_kind cd_kind;
    char cd_name[64];
    char cd_endpoint[128];
    pid_t cd_pid;
} skc_daemon;

typedef struct skc_cluster {
    char cc_dir[4096];
    char cc_key[4200]; /* the cluster key's file, or "" if it has none */
    skc_daemon cc_daemons[SKC_MAX_DAEMONS];
    unsigned cc_n;
} skc_cluster;

/* What to start. */
typedef struct skc_spec {
    const char *cs_dir;     /* NULL: skc_default_dir */
    unsigned cs_schedulers; /* 1..16 */
    unsigned cs_nodes;      /* 1..(SKC_MAX_DAEMONS - 16) */
    unsigned cs_slots;      /* per node, 1..4096 */
    int cs_flowd;           /* start one skylark-flowd first and give every
                               scheduler and node monitor --flowd */
    unsigned cs_racks;      /* 0, or 1..cs_nodes: node monitor nJ gets
                               --rack r(J * cs_racks / cs_nodes) */
    const char *cs_weights[SKC_MAX_WEIGHTS]; /* "USER=W", to every node */
    unsigned cs_nweights;
    const char *cs_log_level; /* NULL: info */
    double cs_timeout;        /* seconds to wait for readiness */
    int cs_quiet;             /* no progress on stderr */
    int cs_insecure;          /* no cluster key: unauthenticated sessions
                                 (benchmarks measure what keys cost) */
    /* NULL, or a flag (set by a signal handler) that makes skc_start stop
     * what it started and return SK_ECANCELED within about 0.25 s */
    volatile sig_atomic_t *cs_cancel;
} skc_spec;

/* skc_kind_name returns "scheduler", "nodemon" or "flowd". */
const char *skc_kind_name(skc_kind k);

/* skc_default_dir writes the default cluster directory into out. Returns
 * 0, or SK_ELIMIT if it does not fit. */
int skc_default_dir(char *out, size_t len);

/* skc_key returns c's key file, or NULL if the cluster has none. */
const char *skc_key(const skc_cluster *c);

/* skc_load reads the cluster file of dir into c (and finds its key).
 * Returns 0, SK_ENOTFOUND if there is none, SK_EPROTO (with a message in
 * err) if it is damaged. */
int skc_load(const char *dir, skc_cluster *c, char *err, size_t errlen);

/* skc_alive tells whether d's process still runs (and is that daemon). */
int skc_alive(const skc_daemon *d);

/* skc_start starts the cluster described by spec into c (creating the
 * directory, mode 0700, and the cluster key in it unless one is there),
 * writes the cluster file, and waits until every
 * daemon answers a status request and every scheduler (and flowd, with
 * cs_flowd) sees every node monitor. Returns 0; SK_EEXIST if a cluster already
 * runs in the directory; SK_ETIMEDOUT, SK_ESYS, SK_ENOTFOUND (a binary) or
 * SK_ECANCELED (spec->cs_cancel) with a message in err, after stopping
 * whatever it started. */
int skc_start(const skc_spec *spec, skc_cluster *c, char *err, size_t errlen);

#define SKC_MAX_LEFT 16

/* What skc_stop did to the daemons that were running when it began. */
typedef struct skc_stop_result {
    unsigned sr_stopped;  /* exited after SIGTERM, within the grace period */
    unsigned sr_killed;   /* still running after it: SIGKILL, then exited */
    unsigned sr_unreaped; /* of those, exited but not yet reaped by their
                             parent (init) when skc_stop returned */
    unsigned sr_nleft;    /* still running 5 s after SIGKILL */
    pid_t sr_left[SKC_MAX_LEFT]; /* the first of them */
} skc_stop_result;

/* skc_stop sends SIGTERM to every running daemon of c and waits until
 * each has exited, for at most grace seconds; sends SIGKILL to those
 * still running and waits for them, at most 5 s more. An exited daemon is
 * also waited for until its parent has reaped it (at most 5 s), so that
 * on return its pid is gone. Then it removes the cluster file, unless a
 * daemon still runs. Fills *out (if not NULL); returns 0, or
 * SK_ETIMEDOUT if a daemon still runs. Blocks, polling every 10 ms. */
int skc_stop(skc_cluster *c, double grace, skc_stop_result *out);

/* skc_scheduler_endpoints fills eps (up to max) with the schedulers'
 * endpoints and returns how many. */
unsigned skc_scheduler_endpoints(const skc_cluster *c, const char **eps,
                                 unsigned max);

#endif /* SK_CLUSTER_H */
