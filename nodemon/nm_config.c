/*
 * nm_config.c - defaults, validation and the configuration-file table of
 * the node monitor core.
 */
#include "nm_config.h"
#include "skylark.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nm_config_init(nm_config *cfg, uint32_t ncores)
{
    memset(cfg, 0, sizeof *cfg);
    if (ncores < 1)
        ncores = 1;
    if (ncores > SK_MAX_SLOTS)
        ncores = SK_MAX_SLOTS;
    cfg->nc_node_id = 0;
    snprintf(cfg->nc_node, sizeof cfg->nc_node, "node");
    cfg->nc_slots = ncores;
    cfg->nc_cpu_milli = 1000 * (int64_t)ncores;
    cfg->nc_mem_mb = 1024 * (int64_t)ncores;
    cfg->nc_max_queued = 100000;
    cfg->nc_max_users = 4096;
    cfg->nc_max_peers = 4096;
    cfg->nc_long_share = 0.75;
    cfg->nc_heartbeat_ms = 1000;
    cfg->nc_get_task_timeout_ms = 10000;
    cfg->nc_orphan_grace_ms = 0;
    cfg->nc_outcome_keep_ms = 10000;
    cfg->nc_max_outcomes = 4096;
}

int nm_weights_set(nm_weights *w, const char *user, uint32_t weight)
{
    size_t len = strlen(user);
    if (len == 0 || len > SK_MAX_NAME_LEN || weight < 1 ||
        weight > NM_MAX_WEIGHT)
        return SK_EINVAL;
    for (uint32_t i = 0; i < w->nw_count; i++) {
        if (strcmp(w->nw_users[i].nw_user, user) == 0) {
            w->nw_users[i].nw_weight = weight;
            return 0;
        }
    }
    if (w->nw_count == NM_MAX_WEIGHTS)
        return SK_ELIMIT;
    nm_weight *e = &w->nw_users[w->nw_count++];
    memcpy(e->nw_user, user, len + 1);
    e->nw_weight = weight;
    return 0;
}

uint32_t nm_weight_of(const nm_weight *list, uint32_t n, const char *user)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(list[i].nw_user, user) == 0)
            return list[i].nw_weight;
    return 1;
}

static int parse_weight(void *dst, const char *name, const char *value,
                        char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < 1 ||
        v > NM_MAX_WEIGHT) {
        snprintf(err, errlen, "weight must be an integer in [1, %u], got '%s'",
                 NM_MAX_WEIGHT, value);
        return SK_ECONFIG;
    }
    int rc = nm_weights_set(dst, name, (uint32_t)v);
    if (rc == SK_ELIMIT)
        snprintf(err, errlen, "at most %u users may have a weight",
                 NM_MAX_WEIGHTS);
    else if (rc != 0)
        snprintf(err, errlen, "user name must be 1 to %u bytes",
                 SK_MAX_NAME_LEN);
    return rc;
}

size_t nm_config_keys(nm_config *cfg, nm_weights *weights, sk_config_key *keys)
{
    const sk_config_key k[NM_CONFIG_NKEYS] = {
        {"nodemon", "node_id", SK_CONFIG_INT, &cfg->nc_node_id, 0, 0,
         UINT32_MAX, NULL, "this node's id"},
        {"nodemon", "node", SK_CONFIG_STRING, cfg->nc_node, sizeof cfg->nc_node,
         0, 0, NULL, "this node's name"},
        {"nodemon", "slots", SK_CONFIG_INT, &cfg->nc_slots, 0, 1, SK_MAX_SLOTS,
         NULL, "task slots (default: the number of cores)"},
        {"nodemon", "cpu_milli", SK_CONFIG_INT, &cfg->nc_cpu_milli, 0, 1,
         UINT32_MAX, NULL, "CPU offered to tasks, in millicores"},
        {"nodemon", "mem_mb", SK_CONFIG_INT, &cfg->nc_mem_mb, 0, 1, UINT32_MAX,
         NULL, "memory offered to tasks, in MiB"},
        {"nodemon", "max_queued", SK_CONFIG_INT, &cfg->nc_max_queued, 0, 1,
         10000000, NULL, "queued reservations before new ones are dropped"},
        {"nodemon", "max_users", SK_CONFIG_INT, &cfg->nc_max_users, 0, 1,
         SK_MAX_STATUS_ROWS, NULL, "users tracked at once"},
        {"nodemon", "max_peers", SK_CONFIG_INT, &cfg->nc_max_peers, 0, 1,
         1000000, NULL, "registered peers at once"},
        {"nodemon", "long_share", SK_CONFIG_DOUBLE, &cfg->nc_long_share, 0, 0,
         1, NULL, "fraction of slots that long (RESERVE) tasks may hold"},
        {"nodemon", "heartbeat_ms", SK_CONFIG_INT, &cfg->nc_heartbeat_ms, 0, 1,
         3600000, NULL, "period of HEARTBEAT to flowd, in ms"},
        {"nodemon", "get_task_timeout_ms", SK_CONFIG_INT,
         &cfg->nc_get_task_timeout_ms, 0, 1, 3600000, NULL,
         "how long a slot waits for the answer to a GET_TASK, in ms"},
        {"nodemon", "orphan_grace_ms", SK_CONFIG_INT, &cfg->nc_orphan_grace_ms,
         0, 0, 3600000, NULL,
         "how long a task whose scheduler left runs on before it is killed, "
         "in ms"},
        {"nodemon", "outcome_keep_ms", SK_CONFIG_INT, &cfg->nc_outcome_keep_ms,
         0, 0, 3600000, NULL,
         "how long a task's outcome is kept to be offered to another "
         "scheduler, in ms (0: never)"},
        {"nodemon", "max_outcomes", SK_CONFIG_INT, &cfg->nc_max_outcomes, 0, 0,
         1000000, NULL, "outcomes kept at most"},
        {"weights", "*", SK_CONFIG_CUSTOM, weights, 0, 0, 0, parse_weight,
         "user = weight: fair-share weight of a user (default 1)"},
    };
    memcpy(keys, k, sizeof k);
    return NM_CONFIG_NKEYS;
}

int nm_config_check(const nm_config *cfg, char *err, size_t errlen)
{
    const char *what = NULL;
    if (cfg->nc_node_id < 0 || cfg->nc_node_id > UINT32_MAX)
        what = "node_id must be in [0, 4294967295]";
    else if (cfg->nc_node[0] == '\0' ||
             strnlen(cfg->nc_node, sizeof cfg->nc_node) > SK_MAX_NAME_LEN)
        what = "node must be a name of 1 to 255 bytes";
    else if (cfg->nc_slots < 1 || cfg->nc_slots > SK_MAX_SLOTS)
        what = "slots must be in [1, 4096]";
    else if (cfg->nc_cpu_milli < 1 || cfg->nc_cpu_milli > UINT32_MAX)
        what = "cpu_milli must be in [1, 4294967295]";
    else if (cfg->nc_mem_mb < 1 || cfg->nc_mem_mb > UINT32_MAX)
        what = "mem_mb must be in [1, 4294967295]";
    else if (cfg->nc_max_queued < 1 || cfg->nc_max_queued > 10000000)
        what = "max_queued must be in [1, 10000000]";
    else if (cfg->nc_max_users < 1 || cfg->nc_max_users > SK_MAX_STATUS_ROWS)
        what = "max_users must be in [1, 16384]";
    else if (cfg->nc_max_peers < 1 || cfg->nc_max_peers > 1000000)
        what = "max_peers must be in [1, 1000000]";
    else if (!(cfg->nc_long_share >= 0 && cfg->nc_long_share <= 1))
        what = "long_share must be in [0, 1]";
    else if (cfg->nc_heartbeat_ms < 1 || cfg->nc_heartbeat_ms > 3600000)
        what = "heartbeat_ms must be in [1, 3600000]";
    else if (cfg->nc_get_task_timeout_ms < 1 ||
             cfg->nc_get_task_timeout_ms > 3600000)
        what = "get_task_timeout_ms must be in [1, 3600000]";
    else if (cfg->nc_orphan_grace_ms < 0 || cfg->nc_orphan_grace_ms > 3600000)
        what = "orphan_grace_ms must be in [0, 3600000]";
    else if (cfg->nc_outcome_keep_ms < 0 || cfg->nc_outcome_keep_ms > 3600000)
        what = "outcome_keep_ms must be in [0, 3600000]";
    else if (cfg->nc_max_outcomes < 0 || cfg->nc_max_outcomes > 1000000)
        what = "max_outcomes must be in [0, 1000000]";
    if (what == NULL)
        return 0;
    if (err != NULL)
        snprintf(err, errlen, "nodemon: %s", what);
    return SK_ECONFIG;
}
