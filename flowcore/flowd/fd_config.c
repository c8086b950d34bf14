/*
 * fd_config.c - the flow node core's settings: defaults and validation.
 */
#include "fd_core.h"
#include "fd_policy.h"
#include "skylark.h"

#include <stdio.h>
#include <string.h>

void fd_config_init(fd_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->fc_name, sizeof cfg->fc_name, "flowd");
    snprintf(cfg->fc_policy, sizeof cfg->fc_policy, "quincy");
    cfg->fc_algorithm = FC_ALG_RACE;
    cfg->fc_round_ms = 100;
    cfg->fc_round_events = 256;
    cfg->fc_heartbeat_ms = 1000;
    cfg->fc_node_timeout_ms = 3000;
    cfg->fc_settle_ms = 1000;
    cfg->fc_reserve_timeout_ms = 5000;
    cfg->fc_max_attempts = 3;
    cfg->fc_max_rejects = 10;
    cfg->fc_long_share = 0.75;
    cfg->fc_max_nodes = 16384;
    cfg->fc_max_schedulers = 1024;
    cfg->fc_max_jobs = 10000;
    cfg->fc_max_tasks = 200000;
    cfg->fc_max_job_tasks = SK_MAX_TASKS;
    cfg->fc_max_job_bytes = 64 << 20;
    cfg->fc_q_cluster_cost = 100;
    cfg->fc_q_rack_cost = 40;
    cfg->fc_q_node_cost = 10;
    cfg->fc_q_busy_cost = 50;
    cfg->fc_q_queue_cost = 2;
    cfg->fc_q_unsched_cost = 1000;
    cfg->fc_q_wait_cost = 10;
    cfg->fc_preemption = false;
    cfg->fc_q_kill_cost = 10;
    cfg->fc_q_move_cost = 200;
    cfg->fc_s_load_cost = 100;
    cfg->fc_m_use_cost = 100;
    cfg->fc_max_classes = 256;
}

typedef struct range {
    const char *name;
    int64_t value, lo, hi;
} range;

/* Costs up to 2^20 (the queue cost to 1,000, times at most 100,000
 * queued) keep every path of the policies below 2^28, far inside
 * FC_MAX_COST, with the escape arc at 2^31. */
#define COST_MAX ((int64_t)1 << 20)

int fd_config_check(const fd_config *cfg, char *err, size_t errlen)
{
    const range r[] = {
        {"round_ms", cfg->fc_round_ms, 1, 3600000},
        {"round_events", cfg->fc_round_events, 1, 100000000},
        {"heartbeat_ms", cfg->fc_heartbeat_ms, 1, 3600000},
        {"node_timeout_ms", cfg->fc_node_timeout_ms, 1, 86400000},
        {"settle_ms", cfg->fc_settle_ms, 0, 3600000},
        {"reserve_timeout_ms", cfg->fc_reserve_timeout_ms, 1, 86400000},
        {"max_attempts", cfg->fc_max_attempts, 1, SK_MAX_ATTEMPTS},
        {"max_rejects", cfg->fc_max_rejects, 1, 1000000},
        {"max_nodes", cfg->fc_max_nodes, 1, SK_MAX_NODES},
        {"max_schedulers", cfg->fc_max_schedulers, 1, 65536},
        {"max_jobs", cfg->fc_max_jobs, 1, 10000000},
        {"max_tasks", cfg->fc_max_tasks, 1, 50000000},
        {"max_job_tasks", cfg->fc_max_job_tasks, 1, SK_MAX_TASKS},
        {"max_job_bytes", cfg->fc_max_job_bytes, 1, (int64_t)1 << 34},
        {"q_cluster_cost", cfg->fc_q_cluster_cost, 0, COST_MAX},
        {"q_rack_cost", cfg->fc_q_rack_cost, 0, COST_MAX},
        {"q_node_cost", cfg->fc_q_node_cost, 0, COST_MAX},
        {"q_busy_cost", cfg->fc_q_busy_cost, 0, COST_MAX},
        {"q_queue_cost", cfg->fc_q_queue_cost, 0, 1000},
        {"q_unsched_cost", cfg->fc_q_unsched_cost, 0, COST_MAX},
        {"q_wait_cost", cfg->fc_q_wait_cost, 0, COST_MAX},
        {"q_kill_cost", cfg->fc_q_kill_cost, 0, COST_MAX},
        {"q_move_cost", cfg->fc_q_move_cost, 0, COST_MAX},
        {"s_load_cost", cfg->fc_s_load_cost, 0, COST_MAX},
        {"m_use_cost", cfg->fc_m_use_cost, 0, COST_MAX},
        {"max_classes", cfg->fc_max_classes, 1, 65536},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        if (r[i].value < r[i].lo || r[i].value > r[i].hi) {
            if (err != NULL)
                snprintf(err, errlen, "%s must be in %lld..%lld, got %lld",
                         r[i].name, (long long)r[i].lo, (long long)r[i].hi,
                         (long long)r[i].value);
            return SK_ECONFIG;
        }
    }
    const char *bad = NULL;
    if (!(cfg->fc_long_share > 0.0 && cfg->fc_long_share <= 1.0))
        bad = "long_share must be in (0, 1]";
    else if (cfg->fc_algorithm < FC_ALG_SSP || cfg->fc_algorithm > FC_ALG_RACE)
        bad = "algorithm must be ssp, cost-scaling, relax or race";
    else if (memchr(cfg->fc_policy, '\0', sizeof cfg->fc_policy) == NULL ||
             fd_policy_find(cfg->fc_policy) == NULL)
        bad = "policy must be quincy, spread or multires";
    else if (memchr(cfg->fc_name, '\0', sizeof cfg->fc_name) == NULL)
        bad = "name too long";
    else if (cfg->fc_q_unsched_cost <=
             cfg->fc_q_cluster_cost + cfg->fc_q_busy_cost)
        bad = "q_unsched_cost must exceed q_cluster_cost + q_busy_cost, or "
              "free nodes would stay unused";
    if (bad != NULL) {
        if (err != NULL)
            snprintf(err, errlen, "%s", bad);
        return SK_ECONFIG;
    }
    return 0;
}
