/*
 * sk_rng.h - a small, fast, seeded pseudo-random generator.
 *
 * Scheduling cores never call rand() or read /dev/urandom: they are handed
 * an sk_rng, so that a given seed replays the same decisions (in tests and
 * in the simulator). The generator is xoshiro256** seeded through
 * splitmix64; it is not for cryptography. An sk_rng is a plain value: copy
 * it to fork a stream, and use one per thread.
 */
#ifndef SK_RNG_H
#define SK_RNG_H

#include <stdint.h>

typedef struct sk_rng {
    uint64_t rs_state[4]; /* xoshiro256** state, never all zero */
} sk_rng;

/* sk_rng_seed initialises rng from a 64-bit seed. Every seed, 0 included,
 * gives a valid, distinct stream. */
void sk_rng_seed(sk_rng *rng, uint64_t seed);

/* sk_rng_split seeds child from the next output of parent, giving an
 * independent stream (for a sub-component) and advancing parent. */
void sk_rng_split(sk_rng *parent, sk_rng *child);

/* sk_rng_next returns 64 uniformly distributed bits. */
uint64_t sk_rng_next(sk_rng *rng);

/* sk_rng_below returns an integer uniformly distributed in [0, bound),
 * without modulo bias. bound must be > 0 (0 yields 0). */
uint64_t sk_rng_below(sk_rng *rng, uint64_t bound);

/* sk_rng_double returns a double uniformly distributed in [0, 1). */
double sk_rng_double(sk_rng *rng);

/* sk_rng_exponential returns an exponentially distributed value with the
 * given mean (> 0). */
double sk_rng_exponential(sk_rng *rng, double mean);

/* sk_rng_pareto returns a Pareto-distributed value with the given shape
 * (> 1) and mean (> 0). */
double sk_rng_pareto(sk_rng *rng, double shape, double mean);

/* sk_rng_sample fills out[0..k) with k distinct integers drawn uniformly
 * from [0, n) (k <= n), in random order. scratch must hold n uint32_t; its
 * contents are overwritten. Cost: O(k) after an O(n) initialisation of
 * scratch, which the caller may keep between calls (see sk_rng_sample_init:
 * the function leaves scratch as a permutation of [0, n)). */
void sk_rng_sample(sk_rng *rng, uint32_t n, uint32_t k, uint32_t *scratch,
                   uint32_t *out);

/* sk_rng_sample_init sets scratch[i] = i for i in [0, n), the state that
 * sk_rng_sample expects. */
void sk_rng_sample_init(uint32_t n, uint32_t *scratch);

#endif /* SK_RNG_H */
