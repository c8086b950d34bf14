/*
 * fd_config.c - the flow node core's settings: defaults and validation.
 */
#include "fd_core.h"
#include "fd_policy.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>
#include <string.h>

void fd_config_init(fd_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->fdc_name, sizeof cfg->fdc_name, "flowd");
    snprintf(cfg->fdc_policy, sizeof cfg->fdc_policy, "quincy");
    cfg->fdc_algorithm = FC_ALG_RACE;
    cfg->fdc_round_ms = 100;
    cfg->fdc_round_events = 256;
    cfg->fdc_heartbeat_ms = 1000;
    cfg->fdc_node_timeout_ms = 3000;
    cfg->fdc_settle_ms = 1000;
    cfg->fdc_sched_grace_ms = 10000;
    cfg->fdc_reserve_timeout_ms = 5000;
    cfg->fdc_max_attempts = 3;
    cfg->fdc_max_rejects = 10;
    cfg->fdc_long_share = 0.75;
    cfg->fdc_max_nodes = 16384;
    cfg->fdc_max_schedulers = 1024;
    cfg->fdc_max_jobs = 10000;
    cfg->fdc_max_tasks = 200000;
    cfg->fdc_max_job_tasks = SK_MAX_TASKS;
    cfg->fdc_max_job_bytes = 64 << 20;
    cfg->fdc_q_cluster_cost = 100;
    cfg->fdc_q_rack_cost = 40;
    cfg->fdc_q_node_cost = 10;
    cfg->fdc_q_busy_cost = 50;
    cfg->fdc_q_queue_cost = 2;
    cfg->fdc_q_unsched_cost = 1000;
    cfg->fdc_q_wait_cost = 10;
    cfg->fdc_q_fair_share = false;
    cfg->fdc_preemption = false;
    cfg->fdc_q_kill_cost = 10;
    cfg->fdc_q_move_cost = 200;
    cfg->fdc_s_load_cost = 100;
    cfg->fdc_m_use_cost = 100;
    cfg->fdc_max_classes = 256;
    cfg->fdc_fast_fallback = false;
    cfg->fdc_cx_wait_ms = 10000;
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
        {"round_ms", cfg->fdc_round_ms, 1, 3600000},
        {"round_events", cfg->fdc_round_events, 1, 100000000},
        {"heartbeat_ms", cfg->fdc_heartbeat_ms, 1, 3600000},
        {"node_timeout_ms", cfg->fdc_node_timeout_ms, 1, 86400000},
        {"settle_ms", cfg->fdc_settle_ms, 0, 3600000},
        {"sched_grace_ms", cfg->fdc_sched_grace_ms, 0, 3600000},
        {"reserve_timeout_ms", cfg->fdc_reserve_timeout_ms, 1, 86400000},
        {"max_attempts", cfg->fdc_max_attempts, 1, SK_MAX_ATTEMPTS},
        {"max_rejects", cfg->fdc_max_rejects, 1, 1000000},
        {"max_nodes", cfg->fdc_max_nodes, 1, SK_MAX_NODES},
        {"max_schedulers", cfg->fdc_max_schedulers, 1, 65536},
        {"max_jobs", cfg->fdc_max_jobs, 1, 10000000},
        {"max_tasks", cfg->fdc_max_tasks, 1, 50000000},
        {"max_job_tasks", cfg->fdc_max_job_tasks, 1, SK_MAX_TASKS},
        {"max_job_bytes", cfg->fdc_max_job_bytes, 1, (int64_t)1 << 34},
        {"q_cluster_cost", cfg->fdc_q_cluster_cost, 0, COST_MAX},
        {"q_rack_cost", cfg->fdc_q_rack_cost, 0, COST_MAX},
        {"q_node_cost", cfg->fdc_q_node_cost, 0, COST_MAX},
        {"q_busy_cost", cfg->fdc_q_busy_cost, 0, COST_MAX},
        {"q_queue_cost", cfg->fdc_q_queue_cost, 0, 1000},
        {"q_unsched_cost", cfg->fdc_q_unsched_cost, 0, COST_MAX},
        {"q_wait_cost", cfg->fdc_q_wait_cost, 0, COST_MAX},
        {"q_kill_cost", cfg->fdc_q_kill_cost, 0, COST_MAX},
        {"q_move_cost", cfg->fdc_q_move_cost, 0, COST_MAX},
        {"s_load_cost", cfg->fdc_s_load_cost, 0, COST_MAX},
        {"m_use_cost", cfg->fdc_m_use_cost, 0, COST_MAX},
        {"max_classes", cfg->fdc_max_classes, 1, 65536},
        {"cx_wait_ms", cfg->fdc_cx_wait_ms, 0, 3600000},
        {"relax_budget", cfg->fdc_relax_budget, 0, 1000000000},
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
    if (!(cfg->fdc_long_share > 0.0 && cfg->fdc_long_share <= 1.0))
        bad = "long_share must be in (0, 1]";
    else if (cfg->fdc_algorithm < FC_ALG_SSP ||
             cfg->fdc_algorithm > FC_ALG_RACE)
        bad = "algorithm must be ssp, cost-scaling, relax or race";
    else if (memchr(cfg->fdc_policy, '\0', sizeof cfg->fdc_policy) == NULL ||
             fd_policy_find(cfg->fdc_policy) == NULL)
        bad = "policy must be quincy, spread or multires";
    else if (memchr(cfg->fdc_name, '\0', sizeof cfg->fdc_name) == NULL)
        bad = "name too long";
    else if (cfg->fdc_q_unsched_cost <=
             cfg->fdc_q_cluster_cost + cfg->fdc_q_busy_cost)
        bad = "q_unsched_cost must exceed q_cluster_cost + q_busy_cost, or "
              "free nodes would stay unused";
    else if (cfg->fdc_q_fair_share &&
             strcmp(cfg->fdc_policy, fd_policy_quincy.po_name) != 0)
        bad = "q_fair_share needs policy quincy";
    if (bad != NULL) {
        if (err != NULL)
            snprintf(err, errlen, "%s", bad);
        return SK_ECONFIG;
    }
    return 0;
}

/* "algorithm": ssp, cost-scaling, relax or race. */
static int parse_algorithm(void *dst, const char *name, const char *value,
                           char *err, size_t errlen)
{
    (void)name;
    if (fc_algorithm_parse(value, dst) != 0) {
        snprintf(err, errlen,
                 "must be ssp, cost-scaling, relax or race, got '%s'", value);
        return SK_ECONFIG;
    }
    return 0;
}

/* "policy": one of the cost models of fd_policy.h. */
static int parse_policy(void *dst, const char *name, const char *value,
                        char *err, size_t errlen)
{
    (void)name;
    if (strlen(value) >= sizeof((fd_config *)0)->fdc_policy ||
        fd_policy_find(value) == NULL) {
        snprintf(err, errlen, "must be quincy, spread or multires, got '%s'",
                 value);
        return SK_ECONFIG;
    }
    memcpy(dst, value, strlen(value) + 1);
    return 0;
}

#define KEY_INT(key, field, lo, hi, help)                                      \
    (sk_config_key)                                                            \
    {                                                                          \
        section, key, SK_CONFIG_INT, &cfg->field, 0, lo, hi, NULL, help        \
    }

/* The ranges are fd_config_check's (which stays the judge): a value out
 * of them is refused where it was written, with its file and line. */
size_t fd_config_keys(fd_config *cfg, const char *section, sk_config_key *keys)
{
    size_t n = 0;
    keys[n++] = (sk_config_key){section,
                                "name",
                                SK_CONFIG_STRING,
                                cfg->fdc_name,
                                sizeof cfg->fdc_name,
                                0,
                                0,
                                NULL,
                                "name shown by skylark status"};
    keys[n++] = (sk_config_key){section,
                                "policy",
                                SK_CONFIG_CUSTOM,
                                cfg->fdc_policy,
                                0,
                                0,
                                0,
                                parse_policy,
                                "cost model: quincy, spread or multires"};
    keys[n++] = (sk_config_key){section,
                                "algorithm",
                                SK_CONFIG_CUSTOM,
                                &cfg->fdc_algorithm,
                                0,
                                0,
                                0,
                                parse_algorithm,
                                "solver: ssp, cost-scaling, relax or race"};
    keys[n++] = KEY_INT("round_ms", fdc_round_ms, 1, 3600000,
                        "a round this long after the first change");
    keys[n++] = KEY_INT("round_events", fdc_round_events, 1, 100000000,
                        "... or at once after this many changes");
    keys[n++] = KEY_INT("heartbeat_ms", fdc_heartbeat_ms, 1, 3600000,
                        "the node monitors' HEARTBEAT period");
    keys[n++] = KEY_INT("node_timeout_ms", fdc_node_timeout_ms, 1, 86400000,
                        "a node silent this long is down");
    keys[n++] = KEY_INT("settle_ms", fdc_settle_ms, 0, 3600000,
                        "after start, nothing is placed for this long");
    keys[n++] = KEY_INT("sched_grace_ms", fdc_sched_grace_ms, 0, 3600000,
                        "a scheduler's work outlives its session this long");
    keys[n++] = KEY_INT("reserve_timeout_ms", fdc_reserve_timeout_ms, 1,
                        86400000, "a RESERVE unanswered this long is lost");
    keys[n++] = KEY_INT("max_attempts", fdc_max_attempts, 1, SK_MAX_ATTEMPTS,
                        "attempts of a task when its job does not say");
    keys[n++] = KEY_INT("max_rejects", fdc_max_rejects, 1, 1000000,
                        "RESERVE_REJECTs before a task fails");
    keys[n++] = (sk_config_key){section,
                                "long_share",
                                SK_CONFIG_DOUBLE,
                                &cfg->fdc_long_share,
                                0,
                                0.0,
                                1.0,
                                NULL,
                                "share of a node's slots for long tasks, "
                                "(0, 1], unless it has a long_share label"};
    keys[n++] = KEY_INT("max_nodes", fdc_max_nodes, 1, SK_MAX_NODES,
                        "node monitors registered");
    keys[n++] = KEY_INT("max_schedulers", fdc_max_schedulers, 1, 65536,
                        "schedulers registered");
    keys[n++] = KEY_INT("max_jobs", fdc_max_jobs, 1, 10000000, "jobs held");
    keys[n++] = KEY_INT("max_tasks", fdc_max_tasks, 1, 50000000,
                        "tasks held, all jobs");
    keys[n++] = KEY_INT("max_job_tasks", fdc_max_job_tasks, 1, SK_MAX_TASKS,
                        "tasks in one job");
    keys[n++] = KEY_INT("max_job_bytes", fdc_max_job_bytes, 1, (int64_t)1 << 34,
                        "bytes of the specs and names of one job");
    keys[n++] = KEY_INT("q_cluster_cost", fdc_q_cluster_cost, 0, COST_MAX,
                        "quincy: task to the cluster aggregator");
    keys[n++] = KEY_INT("q_rack_cost", fdc_q_rack_cost, 0, COST_MAX,
                        "quincy: task to a preferred rack");
    keys[n++] = KEY_INT("q_node_cost", fdc_q_node_cost, 0, COST_MAX,
                        "quincy: task to a preferred node");
    keys[n++] = KEY_INT("q_busy_cost", fdc_q_busy_cost, 0, COST_MAX,
                        "quincy: a slot behind short work");
    keys[n++] = KEY_INT("q_queue_cost", fdc_q_queue_cost, 0, 1000,
                        "quincy: per short reservation queued on the node");
    keys[n++] = KEY_INT("q_unsched_cost", fdc_q_unsched_cost, 0, COST_MAX,
                        "quincy: leaving a task unscheduled");
    keys[n++] = KEY_INT("q_wait_cost", fdc_q_wait_cost, 0, COST_MAX,
                        "quincy: more per second a task has waited");
    keys[n++] = (sk_config_key){section,
                                "q_fair_share",
                                SK_CONFIG_BOOL,
                                &cfg->fdc_q_fair_share,
                                0,
                                0,
                                0,
                                NULL,
                                "quincy: no job runs over its fair share"};
    keys[n++] = (sk_config_key){section,
                                "preemption",
                                SK_CONFIG_BOOL,
                                &cfg->fdc_preemption,
                                0,
                                0,
                                0,
                                NULL,
                                "placed tasks may be moved or stopped"};
    keys[n++] = KEY_INT("q_kill_cost", fdc_q_kill_cost, 0, COST_MAX,
                        "preemption: per second of work lost");
    keys[n++] = KEY_INT("q_move_cost", fdc_q_move_cost, 0, COST_MAX,
                        "preemption: moving a task elsewhere");
    keys[n++] = KEY_INT("s_load_cost", fdc_s_load_cost, 0, COST_MAX,
                        "spread: a slot's cost at full load");
    keys[n++] = KEY_INT("m_use_cost", fdc_m_use_cost, 0, COST_MAX,
                        "multires: a node's cost at full use");
    keys[n++] = KEY_INT("max_classes", fdc_max_classes, 1, 65536,
                        "distinct (request, labels) of jobs");
    keys[n++] = (sk_config_key){section,
                                "fast_fallback",
                                SK_CONFIG_BOOL,
                                &cfg->fdc_fast_fallback,
                                0,
                                0,
                                0,
                                NULL,
                                "fallback short work placed at once on a "
                                "node with room, without a round"};
    keys[n++] = KEY_INT("cx_wait_ms", fdc_cx_wait_ms, 0, 3600000,
                        "a task breaking a soft constraint waits this long "
                        "for a place that breaks none");
    keys[n++] = KEY_INT("relax_budget", fdc_relax_budget, 0, 1000000000,
                        "relax: work per arc, then cost scaling (0: none)");
    SK_ASSERT(n == FD_CONFIG_NKEYS);
    return n;
}
