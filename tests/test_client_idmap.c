/*
 * test_client_idmap.c - the id map of the client objects: what was put is
 * found, what was deleted is gone, and deleting from the middle of probe
 * runs (sequential ids, a growing and shrinking table; small tables
 * whose runs wrap around their end, arbitrary 64-bit keys) never hides a
 * key. Checked against a plain array as the model.
 */
#include "sk_idmap.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>

#define N 5000

/* Small tables (16 and 32 slots) where probe runs often wrap around the
 * end: 2,000 rounds of 200 random puts and deletes over 12 arbitrary
 * 64-bit keys, every key and the iteration checked after each step. */
static void test_small_tables(void)
{
    enum { KEYS = 12, ROUNDS = 2000, STEPS = 200 };
    static int vals[KEYS];
    sk_rng rng;
    sk_rng_seed(&rng, 99);
    int agree = 1, iter_ok = 1, counts_ok = 1;
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t keys[KEYS];
        int present[KEYS] = {0};
        for (int k = 0; k < KEYS; k++)
            do
                keys[k] = k == 0   ? UINT64_MAX
                          : k == 1 ? 1ull << 63
                                   : sk_rng_next(&rng);
            while (keys[k] == 0);
        sk_idmap m = SK_IDMAP_INIT;
        size_t count = 0;
        for (int step = 0; step < STEPS; step++) {
            int k = (int)sk_rng_below(&rng, KEYS);
            if (present[k] && sk_rng_below(&rng, 3) != 0) {
                agree &= sk_idmap_del(&m, keys[k]) == &vals[k];
                present[k] = 0;
                count--;
            } else {
                agree &= sk_idmap_put(&m, keys[k], &vals[k]) == 0;
                count += present[k] == 0;
                present[k] = 1;
            }
            counts_ok &= m.im_count == count && m.im_cap <= 32;
            for (int q = 0; q < KEYS; q++)
                agree &=
                    sk_idmap_get(&m, keys[q]) == (present[q] ? &vals[q] : NULL);
            size_t pos = 0, seen = 0;
            uint64_t key;
            void *v;
            while ((v = sk_idmap_next(&m, &pos, &key)) != NULL) {
                int q = (int)((int *)v - vals);
                iter_ok &= q >= 0 && q < KEYS && keys[q] == key && present[q];
                seen++;
            }
            iter_ok &= seen == count;
        }
        sk_idmap_free(&m);
    }
    tap_ok(agree, "2,000 small tables of arbitrary keys (UINT64_MAX and 2^63 "
                  "among them): every lookup agrees with the model");
    tap_ok(counts_ok, "the count follows, putting a present key again adds "
                      "nothing, and 12 keys never need over 32 slots");
    tap_ok(iter_ok, "iteration yields each present key once, with its value");
}

int main(void)
{
    tap_timeout(30);
    tap_plan(10);
    sk_idmap m = SK_IDMAP_INIT;
    static int present[N + 1];
    static int vals[N + 1];

    tap_ok(sk_idmap_get(&m, 1) == NULL && sk_idmap_del(&m, 1) == NULL,
           "an empty map finds nothing");
    tap_is_int(sk_idmap_put(&m, 0, vals), SK_EINVAL, "key 0 is refused");

    int ok = 1;
    for (int k = 1; k <= N; k++) {
        ok &= sk_idmap_put(&m, (uint64_t)k, &vals[k]) == 0;
        present[k] = 1;
    }
    for (int k = 1; k <= N; k++)
        ok &= sk_idmap_get(&m, (uint64_t)k) == &vals[k];
    tap_ok(ok && m.im_count == N, "%d sequential ids are all found", N);

    /* Random deletions and reinsertions against the model. */
    sk_rng rng;
    sk_rng_seed(&rng, 42);
    int agree = 1;
    for (int step = 0; step < 50000; step++) {
        int k = 1 + (int)sk_rng_below(&rng, N);
        if (present[k]) {
            agree &= sk_idmap_del(&m, (uint64_t)k) == &vals[k];
            present[k] = 0;
        } else {
            agree &= sk_idmap_put(&m, (uint64_t)k, &vals[k]) == 0;
            present[k] = 1;
        }
        if (step % 997 == 0)
            for (int q = 1; q <= N; q++)
                agree &= sk_idmap_get(&m, (uint64_t)q) ==
                         (present[q] ? &vals[q] : NULL);
    }
    size_t count = 0;
    for (int k = 1; k <= N; k++)
        count += (size_t)present[k];
    tap_ok(agree && m.im_count == count,
           "50,000 random deletions and insertions agree with the model");

    size_t pos = 0, seen = 0;
    uint64_t key;
    int keys_ok = 1;
    void *v;
    while ((v = sk_idmap_next(&m, &pos, &key)) != NULL) {
        seen++;
        keys_ok &= key >= 1 && key <= N && present[key] && v == &vals[key];
    }
    tap_ok(keys_ok && seen == count, "iteration visits every key once");

    tap_ok(sk_idmap_put(&m, 7, &vals[1]) == 0 &&
               sk_idmap_get(&m, 7) == &vals[1],
           "put replaces a value");
    sk_idmap_free(&m);
    tap_ok(m.im_count == 0 && sk_idmap_get(&m, 7) == NULL,
           "a freed map is empty");
    test_small_tables();
    return tap_exit_status();
}
