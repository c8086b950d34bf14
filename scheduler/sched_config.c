/*
 * sched_config.c - the scheduler core's settings: defaults, the [sched]
 * section of the daemon's configuration file, and validation.
 */
#include "sched_core.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>
#include <string.h>

void sched_config_init(sched_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->sc_id = 0;
    snprintf(cfg->sc_name, sizeof cfg->sc_name, "sched");
    cfg->sc_probe_ratio = 2.0;
    cfg->sc_max_probe_ratio = SK_MAX_PROBE_RATIO;
    cfg->sc_max_attempts = 1;
    cfg->sc_max_tasks = 10000;
    cfg->sc_max_spec_bytes = SK_MAX_SPEC_BYTES;
    cfg->sc_max_job_bytes = 64 << 20;
    cfg->sc_max_jobs = 10000;
    cfg->sc_max_bytes = 256 << 20;
    cfg->sc_max_fe_jobs = 1000;
    cfg->sc_max_fe_bytes = 128 << 20;
    cfg->sc_max_nodes = SK_MAX_NODES;
    cfg->sc_max_frontends = 1024;
    cfg->sc_launch_timeout_ms = 60000;
    cfg->sc_max_user_jobs = 1000;
    cfg->sc_max_user_bytes = 128ll << 20;
    cfg->sc_fallback_ms = 5000;
    cfg->sc_offer_keep_ms = 60000;
    cfg->sc_max_offers = 65536;
    cfg->sc_probe_saturated = true;
}

#define KEY_INT(name, field, lo, hi, help)                                     \
    (sk_config_key)                                                            \
    {                                                                          \
        "sched", name, SK_CONFIG_INT, &cfg->field, 0, lo, hi, NULL, help       \
    }
#define KEY_DOUBLE(name, field, lo, hi, help)                                  \
    (sk_config_key)                                                            \
    {                                                                          \
        "sched", name, SK_CONFIG_DOUBLE, &cfg->field, 0, lo, hi, NULL, help    \
    }

void sched_config_keys(sched_config *cfg, sk_config_key *keys)
{
    size_t n = 0;
    keys[n++] = KEY_INT("id", sc_id, 0, UINT32_MAX,
                        "scheduler id that node monitors answer to");
    keys[n++] = (sk_config_key){"sched",
                                "name",
                                SK_CONFIG_STRING,
                                cfg->sc_name,
                                sizeof cfg->sc_name,
                                0,
                                0,
                                NULL,
                                "name shown by skylark status"};
    keys[n++] = KEY_DOUBLE("probe_ratio", sc_probe_ratio, 1, SK_MAX_PROBE_RATIO,
                           "probes per task (d of batch sampling)");
    keys[n++] =
        KEY_DOUBLE("max_probe_ratio", sc_max_probe_ratio, 1, SK_MAX_PROBE_RATIO,
                   "largest probe ratio a job may ask for");
    keys[n++] = KEY_INT("max_attempts", sc_max_attempts, 1, SK_MAX_ATTEMPTS,
                        "attempts of a lost task when the job does not say");
    keys[n++] =
        KEY_INT("max_tasks", sc_max_tasks, 1, SK_MAX_TASKS, "tasks in one job");
    keys[n++] = KEY_INT("max_spec_bytes", sc_max_spec_bytes, 0,
                        SK_MAX_SPEC_BYTES, "bytes of one task's spec");
    keys[n++] = KEY_INT("max_job_bytes", sc_max_job_bytes, 1024, 1u << 30,
                        "bytes of all specs and names of one job");
    keys[n++] = KEY_INT("max_jobs", sc_max_jobs, 1, 10000000, "jobs in flight");
    keys[n++] = KEY_INT("max_bytes", sc_max_bytes, 1024, 1ll << 40,
                        "bytes of all jobs held (specs and names)");
    keys[n++] = KEY_INT("max_fe_jobs", sc_max_fe_jobs, 1, 10000000,
                        "jobs in flight of one frontend");
    keys[n++] = KEY_INT("max_fe_bytes", sc_max_fe_bytes, 1024, 1ll << 40,
                        "bytes of the jobs of one frontend");
    keys[n++] = KEY_INT("max_user_jobs", sc_max_user_jobs, 1, 10000000,
                        "jobs in flight of one user, all its frontends");
    keys[n++] = KEY_INT("max_user_bytes", sc_max_user_bytes, 1024, 1ll << 40,
                        "bytes of the jobs of one user, all its frontends");
    keys[n++] = KEY_INT("max_nodes", sc_max_nodes, 1, SK_MAX_NODES,
                        "node monitors connected");
    keys[n++] = KEY_INT("max_frontends", sc_max_frontends, 1, 1000000,
                        "frontends connected");
    keys[n++] = KEY_INT("launch_timeout_ms", sc_launch_timeout_ms, 0, 86400000,
                        "a task given out but not started within this is "
                        "lost (0: never)");
    keys[n++] = KEY_INT("fallback_ms", sc_fallback_ms, 0, 86400000,
                        "a short task still waiting for a node this long "
                        "after its job was accepted goes to flowd (0: "
                        "never)");
    keys[n++] = KEY_INT("offer_keep_ms", sc_offer_keep_ms, 0, 86400000,
                        "an outcome a node monitor offered for a job not "
                        "here is kept this long for its resubmission");
    keys[n++] = KEY_INT("max_offers", sc_max_offers, 0, 10000000,
                        "offered outcomes kept at most");
    keys[n++] = (sk_config_key){
        "sched",
        "probe_saturated",
        SK_CONFIG_BOOL,
        &cfg->sc_probe_saturated,
        0,
        0,
        0,
        NULL,
        "probes a job cannot place on nodes below their long cap go to "
        "saturated nodes, whose other slots are short work's"};
    SK_ASSERT(n == SCHED_CONFIG_NKEYS);
}

int sched_config_check(const sched_config *cfg, char *err, size_t errlen)
{
    sched_config copy = *cfg;
    sk_config_key keys[SCHED_CONFIG_NKEYS];
    sched_config_keys(&copy, keys);
    for (size_t i = 0; i < SCHED_CONFIG_NKEYS; i++) {
        double v;
        if (keys[i].ck_type == SK_CONFIG_INT)
            v = (double)*(const int64_t *)keys[i].ck_dst;
        else if (keys[i].ck_type == SK_CONFIG_DOUBLE)
            v = *(const double *)keys[i].ck_dst;
        else
            continue;
        /* NaN fails both comparisons, so test for being inside. */
        if (!(v >= keys[i].ck_min && v <= keys[i].ck_max)) {
            snprintf(err, errlen, "[sched] %s: must be in [%g, %g], got %g",
                     keys[i].ck_name, keys[i].ck_min, keys[i].ck_max, v);
            return SK_ECONFIG;
        }
    }
    if (memchr(cfg->sc_name, '\0', sizeof cfg->sc_name) == NULL) {
        snprintf(err, errlen, "[sched] name: not terminated");
        return SK_ECONFIG;
    }
    if (cfg->sc_max_probe_ratio < cfg->sc_probe_ratio) {
        snprintf(err, errlen,
                 "[sched] max_probe_ratio: must be >= probe_ratio %g, got %g",
                 cfg->sc_probe_ratio, cfg->sc_max_probe_ratio);
        return SK_ECONFIG;
    }
    if (cfg->sc_max_fe_bytes < cfg->sc_max_job_bytes ||
        cfg->sc_max_bytes < cfg->sc_max_fe_bytes) {
        snprintf(err, errlen,
                 "[sched] max_job_bytes %lld <= max_fe_bytes %lld <= "
                 "max_bytes %lld does not hold",
                 (long long)cfg->sc_max_job_bytes,
                 (long long)cfg->sc_max_fe_bytes, (long long)cfg->sc_max_bytes);
        return SK_ECONFIG;
    }
    if (cfg->sc_max_user_bytes < cfg->sc_max_job_bytes) {
        snprintf(err, errlen,
                 "[sched] max_job_bytes %lld <= max_user_bytes %lld does "
                 "not hold",
                 (long long)cfg->sc_max_job_bytes,
                 (long long)cfg->sc_max_user_bytes);
        return SK_ECONFIG;
    }
    return 0;
}
