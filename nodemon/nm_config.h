/*
 * nm_config.h - the settings of the node monitor core: slots, resources,
 * queue limits, the long-task share, the heartbeat period and the users'
 * fair-share weights, with their defaults and the sk_config_key table that
 * loads them from the daemon's configuration file ([nodemon] and
 * [weights] sections).
 */
#ifndef NM_CONFIG_H
#define NM_CONFIG_H

#include "sk_config.h"
#include "sk_proto.h"

#include <stddef.h>
#include <stdint.h>

/* Users that may have a configured weight. */
#define NM_MAX_WEIGHTS 64u

/* The largest weight a user may have. */
#define NM_MAX_WEIGHT 1000000u

/* One user's weight, from the [weights] section (`user = weight`). */
typedef struct nm_weight {
    char nw_user[SK_MAX_NAME_LEN + 1];
    uint32_t nw_weight; /* 1..NM_MAX_WEIGHT */
} nm_weight;

/* The [weights] section: users with a weight other than 1. Kept apart
 * from nm_config so that a core copies only the weights it was given,
 * not room for NM_MAX_WEIGHTS of them (a simulated cluster has 10,000
 * cores). All zeros is the empty table. */
typedef struct nm_weights {
    nm_weight nw_users[NM_MAX_WEIGHTS];
    uint32_t nw_count;
} nm_weights;

/* Integer fields are int64_t because the configuration loader fills
 * int64_t; nm_new checks every field again. */
typedef struct nm_config {
    int64_t nc_node_id;                /* this node's id (he_id) */
    int64_t nc_slots;                  /* task slots, 1..SK_MAX_SLOTS */
    int64_t nc_cpu_milli;              /* CPU offered, millicores */
    int64_t nc_mem_mb;                 /* memory offered, MiB */
    int64_t nc_max_queued;             /* queued short reservations */
    int64_t nc_max_users;              /* users tracked at once */
    int64_t nc_max_peers;              /* registered peers at once */
    double nc_long_share;              /* fraction of slots for RESERVE */
    int64_t nc_heartbeat_ms;           /* HEARTBEAT period to flowd */
    int64_t nc_get_task_timeout_ms;    /* wait for a TASK_REPLY */
    int64_t nc_orphan_grace_ms;        /* orphans run on this long */
    int64_t nc_outcome_keep_ms;        /* keyed outcomes kept this long */
    int64_t nc_max_outcomes;           /* and at most this many */
    char nc_node[SK_MAX_NAME_LEN + 1]; /* this node's name (last: the
                                          numbers are used more) */
} nm_config;

/* The number of entries nm_config_keys fills. */
#define NM_CONFIG_NKEYS 15u

/* nm_config_init sets the defaults for a machine with ncores cores:
 * ncores slots (at least 1, at most SK_MAX_SLOTS), 1000 millicores and
 * 1024 MiB per slot, at most 100000 queued reservations, 4096 users and
 * 4096 peers, long_share 0.75, a heartbeat every 1000 ms, a GET_TASK
 * answered within 10000 ms, orphans killed at once (orphan_grace_ms 0),
 * outcomes kept 10000 ms (outcome_keep_ms), at most 4096 of them
 * (max_outcomes), node id 0 and name "node". */
void nm_config_init(nm_config *cfg, uint32_t ncores);

/* nm_config_keys fills keys[0..NM_CONFIG_NKEYS) with the description of
 * cfg's fields and of weights for sk_config_load: section [nodemon]
 * (node_id, node, slots, cpu_milli, mem_mb, max_queued, max_users,
 * max_peers, long_share, heartbeat_ms, get_task_timeout_ms,
 * orphan_grace_ms, outcome_keep_ms, max_outcomes, with their
 * ranges) into cfg, and section [weights], whose every key is a user name
 * and value a weight in 1..NM_MAX_WEIGHT, into weights. Returns
 * NM_CONFIG_NKEYS. The keys point into cfg and weights. */
size_t nm_config_keys(nm_config *cfg, nm_weights *weights, sk_config_key *keys);

/* nm_weights_set sets (or replaces) user's weight in w. Returns 0,
 * SK_EINVAL for an empty or too long name or a weight out of
 * 1..NM_MAX_WEIGHT, or SK_ELIMIT when NM_MAX_WEIGHTS users already have
 * one. */
int nm_weights_set(nm_weights *w, const char *user, uint32_t weight);

/* nm_weight_of returns user's weight among the n entries of list, or 1.
 * Cost: O(n), paid once per user a core starts tracking. */
uint32_t nm_weight_of(const nm_weight *list, uint32_t n, const char *user);

/* nm_config_check validates every field. Returns 0, or SK_ECONFIG with a
 * message naming the field in err. */
int nm_config_check(const nm_config *cfg, char *err, size_t errlen);

#endif /* NM_CONFIG_H */
