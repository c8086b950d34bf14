/*
 * test_client_idmap.c - the id map of the client objects: what was put is
 * found, what was deleted is gone, and deleting from the middle of probe
 * runs (sequential ids, a growing and shrinking table) never hides a key.
 * Checked against a plain array as the model.
 */
#include "sk_idmap.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>

#define N 5000

int main(void)
{
    tap_timeout(30);
    tap_plan(7);
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
    return tap_exit_status();
}
