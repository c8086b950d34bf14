/*
 * test_core_fuzz.c - the core fuzz drivers (fuzz/core_fuzz.h) on seeded
 * random scripts, so that `make check` plays thousands of hostile input
 * sequences against the scheduler and node monitor cores in every build
 * (under --enable-sanitizers too). A broken promise aborts the program,
 * which the TAP driver reports as an error.
 */
#include "core_fuzz.h"
#include "sk_log.h"
#include "sk_rng.h"
#include "tap.h"

#include <stdlib.h>

#define SCRIPTS    1500
#define MAX_SCRIPT 6000

static cf_stats play(void (*run)(const uint8_t *, size_t, cf_stats *),
                     uint64_t seed)
{
    sk_rng rng;
    sk_rng_seed(&rng, seed);
    uint8_t *buf = malloc(MAX_SCRIPT);
    if (buf == NULL)
        tap_bail_out("out of memory");
    cf_stats st = {0, 0, 0};
    for (int i = 0; i < SCRIPTS; i++) {
        size_t len = 1 + sk_rng_below(&rng, MAX_SCRIPT);
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)sk_rng_next(&rng);
        run(buf, len, &st);
    }
    free(buf);
    return st;
}

int main(void)
{
    tap_timeout(120);
    tap_plan(2);
    sk_log_set_level(SK_LOG_OFF);
    cf_stats st = play(cf_sched_run, 1);
    tap_ok(st.cs_launched > 1000 && st.cs_done > 100,
           "scheduler core: %d scripts, %llu hostile inputs, %llu tasks "
           "launched, %llu jobs done, every promise kept",
           SCRIPTS, (unsigned long long)st.cs_inputs,
           (unsigned long long)st.cs_launched, (unsigned long long)st.cs_done);
    st = play(cf_nm_run, 2);
    tap_ok(st.cs_launched > 1000 && st.cs_done > 100,
           "node monitor core: %d scripts, %llu hostile inputs, %llu tasks "
           "launched, %llu results to schedulers, every promise kept",
           SCRIPTS, (unsigned long long)st.cs_inputs,
           (unsigned long long)st.cs_launched, (unsigned long long)st.cs_done);
    return tap_exit_status();
}
