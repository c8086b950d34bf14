/*
 * sk_cluster.h - a local Skylark cluster on loopback: the schedulers and
 * node monitors that `skylark cluster up` starts in the background (and
 * bench/short-path starts for its run), the cluster file that records
 * them, and stopping them again.
 *
 * A cluster lives in a directory (default: $SKYLARK_DIR, else
 * $XDG_RUNTIME_DIR/skylark, else /tmp/skylark-UID), which holds the
 * cluster file `cluster` (one line per daemon: kind, name, endpoint,
 * pid) and the daemons' logs under logs/. Daemons listen on
 * tcp://127.0.0.1 ports that were free a moment before; a daemon that
 * cannot bind its port is started again on another.
 *
 * Threading: none; the calls block the calling thread (starting waits for
 * every daemon to answer a status request).
 */
#ifndef SK_CLUSTER_H
#define SK_CLUSTER_H

#include <stddef.h>
#include <sys/types.h>

#define SKC_MAX_DAEMONS 1024
#define SKC_MAX_WEIGHTS 64

typedef enum skc_kind {
    SKC_SCHED = 1,
    SKC_NODEMON = 2,
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
    skc_daemon cc_daemons[SKC_MAX_DAEMONS];
    unsigned cc_n;
} skc_cluster;

/* What to start. */
typedef struct skc_spec {
    const char *cs_dir;                      /* NULL: skc_default_dir */
    unsigned cs_schedulers;                  /* 1..16 */
    unsigned cs_nodes;                       /* 1..(SKC_MAX_DAEMONS - 16) */
    unsigned cs_slots;                       /* per node, 1..4096 */
    const char *cs_weights[SKC_MAX_WEIGHTS]; /* "USER=W", to every node */
    unsigned cs_nweights;
    const char *cs_log_level; /* NULL: info */
    double cs_timeout;        /* seconds to wait for readiness */
    int cs_quiet;             /* no progress on stderr */
} skc_spec;

/* skc_kind_name returns "scheduler" or "nodemon". */
const char *skc_kind_name(skc_kind k);

/* skc_default_dir writes the default cluster directory into out. Returns
 * 0, or SK_ELIMIT if it does not fit. */
int skc_default_dir(char *out, size_t len);

/* skc_load reads the cluster file of dir into c. Returns 0, SK_ENOTFOUND
 * if there is none, SK_EPROTO (with a message in err) if it is damaged. */
int skc_load(const char *dir, skc_cluster *c, char *err, size_t errlen);

/* skc_alive tells whether d's process still runs (and is that daemon). */
int skc_alive(const skc_daemon *d);

/* skc_start starts the cluster described by spec into c (creating the
 * directory, mode 0700), writes the cluster file, and waits until every
 * daemon answers a status request and every scheduler sees every node
 * monitor. Returns 0; SK_EEXIST if a cluster already runs in the
 * directory; SK_ETIMEDOUT, SK_ESYS or SK_ENOTFOUND (a binary) with a
 * message in err, after stopping whatever it started. */
int skc_start(const skc_spec *spec, skc_cluster *c, char *err, size_t errlen);

/* skc_stop sends SIGTERM to every live daemon of c, waits up to grace
 * seconds, sends SIGKILL to those still alive and waits for them, then
 * removes the cluster file. Returns the number of daemons that needed
 * SIGKILL. */
int skc_stop(skc_cluster *c, double grace);

/* skc_scheduler_endpoints fills eps (up to max) with the schedulers'
 * endpoints and returns how many. */
unsigned skc_scheduler_endpoints(const skc_cluster *c, const char **eps,
                                 unsigned max);

#endif /* SK_CLUSTER_H */
