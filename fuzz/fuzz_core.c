/*
 * fuzz_core.c - libFuzzer target that plays its input as a script of
 * hostile inputs against a scheduling core (core_fuzz.h). Built as
 * fuzz_sched_core (-DFUZZ_CORE_SCHED) and fuzz_nm_core (-DFUZZ_CORE_NM).
 */
#include "core_fuzz.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cf_stats st = {0, 0, 0};
#if defined(FUZZ_CORE_SCHED)
    cf_sched_run(data, size, &st);
#elif defined(FUZZ_CORE_NM)
    cf_nm_run(data, size, &st);
#else
#error "build with -DFUZZ_CORE_SCHED or -DFUZZ_CORE_NM"
#endif
    return 0;
}
