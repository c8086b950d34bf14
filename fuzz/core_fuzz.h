/*
 * core_fuzz.h - drivers that feed the sans-I/O scheduling cores a stream
 * of hostile but well-formed inputs made from arbitrary bytes.
 *
 * The protocol's decoders already refuse malformed bytes (fuzz_proto.c);
 * what reaches a core is a valid message that may still make no sense:
 * unknown jobs, stale attempts, duplicates, messages from the wrong role,
 * peers that vanish mid-job, time jumps. A driver reads the bytes as a
 * script of such inputs for one core, answering the core's own requests
 * often enough (a GET_TASK to a reservation it sent, a TASK_FINISHED for a
 * task it launched) to reach deep states, and checks after every input:
 * every message the core emits encodes, and the core's promises hold (the
 * scheduler reports each task of an accepted job to its frontend exactly
 * once, then JOB_DONE with counts that add up; the node monitor never uses
 * more slots than it has). A broken promise aborts, for the fuzzer to
 * keep; internal invariants abort through SK_ASSERT.
 *
 * Used by the libFuzzer targets fuzz_sched_core and fuzz_nm_core, and by
 * tests/test_core_fuzz.c, which runs the drivers on seeded random bytes
 * under `make check`.
 */
#ifndef CORE_FUZZ_H
#define CORE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* How far a script got, added up over runs: tests check that the drivers
 * still reach the deep states they were written for. */
typedef struct cf_stats {
    uint64_t cs_inputs;   /* inputs played */
    uint64_t cs_launched; /* tasks launched: TASK_REPLY with a task
                             (scheduler), LAUNCH_TASK (node monitor) */
    uint64_t cs_done;     /* JOB_DONE to a frontend (scheduler), results
                             passed to a scheduler (node monitor) */
} cf_stats;

/* cf_sched_run plays data as a script against a fresh scheduler core,
 * frees it, and adds to *st. Aborts on a broken promise. */
void cf_sched_run(const uint8_t *data, size_t size, cf_stats *st);

/* cf_nm_run plays data as a script against a fresh node monitor core,
 * frees it, and adds to *st. Aborts on a broken promise. */
void cf_nm_run(const uint8_t *data, size_t size, cf_stats *st);

#endif /* CORE_FUZZ_H */
