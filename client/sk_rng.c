/*
 * sk_rng.c - xoshiro256** (Blackman and Vigna) seeded with splitmix64.
 */
#include "sk_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void sk_rng_seed(sk_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->rs_state[i] = splitmix64(&x);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs
     * are never all zero. */
}

void sk_rng_split(sk_rng *parent, sk_rng *child)
{
    sk_rng_seed(child, sk_rng_next(parent));
}

uint64_t sk_rng_next(sk_rng *rng)
{
    uint64_t *s = rng->rs_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sk_rng_below(sk_rng *rng, uint64_t bound)
{
    if (bound == 0)
        return 0;
    /* Lemire's multiply-and-reject: unbiased, usually one multiplication. */
    unsigned __int128 m = (unsigned __int128)sk_rng_next(rng) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            m = (unsigned __int128)sk_rng_next(rng) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double sk_rng_double(sk_rng *rng)
{
    return (double)(sk_rng_next(rng) >> 11) * 0x1.0p-53;
}

double sk_rng_exponential(sk_rng *rng, double mean)
{
    /* 1 - u lies in (0, 1], so the logarithm is finite. */
    return -mean * log(1.0 - sk_rng_double(rng));
}

double sk_rng_pareto(sk_rng *rng, double shape, double mean)
{
    double scale = mean * (shape - 1.0) / shape;
    return scale / pow(1.0 - sk_rng_double(rng), 1.0 / shape);
}

void sk_rng_sample_init(uint32_t n, uint32_t *scratch)
{
    for (uint32_t i = 0; i < n; i++)
        scratch[i] = i;
}

void sk_rng_sample(sk_rng *rng, uint32_t n, uint32_t k, uint32_t *scratch,
                   uint32_t *out)
{
    /* A partial Fisher-Yates shuffle: the first k entries become the sample.
     * Any permutation in scratch is as good a start as the identity. */
    for (uint32_t i = 0; i < k && i < n; i++) {
        uint32_t j = i + (uint32_t)sk_rng_below(rng, n - i);
        uint32_t tmp = scratch[i];
        scratch[i] = scratch[j];
        scratch[j] = tmp;
        out[i] = scratch[i];
    }
}
