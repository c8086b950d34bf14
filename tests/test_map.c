/*
 * test_map.c - the hash map (client/sk_map.h): what was put is found,
 * what was deleted is gone, deleting from the middle of a probe run that
 * wraps around the end of the table never hides a key, the table grows
 * at three quarters, a reservation makes the puts after it allocation
 * free, and the limit is refused. Checked against a plain array as the
 * model, and after every change against the invariant of linear probing
 * (every entry is reachable from its home slot without crossing an empty
 * one).
 */
#include "sk_map.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define N 5000

/* The map's hash (sk_map.c), so that the test can build probe runs. */
static uint32_t home(const sk_map *m, uint64_t k)
{
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebULL;
    k ^= k >> 31;
    return (uint32_t)k & (m->mp_cap - 1);
}

/* Linear probing's invariant, and the count. */
static bool valid(const sk_map *m)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < m->mp_cap; i++) {
        if (m->mp_vals[i] == NULL)
            continue;
        used++;
        for (uint32_t j = home(m, m->mp_keys[i]); j != i;
             j = (j + 1) & (m->mp_cap - 1))
            if (m->mp_vals[j] == NULL)
                return false;
    }
    return used == m->mp_len;
}

/* The slot holding key, or UINT32_MAX. */
static uint32_t slot_of(const sk_map *m, uint64_t key)
{
    for (uint32_t i = 0; i < m->mp_cap; i++)
        if (m->mp_vals[i] != NULL && m->mp_keys[i] == key)
            return i;
    return UINT32_MAX;
}

/* The first count keys from *next on whose home slot in a 16-slot table
 * is h. */
static void keys_at(uint64_t h, uint64_t *out, int count, uint64_t *next)
{
    sk_map probe = {NULL, NULL, 16, 0};
    for (int n = 0; n < count; (*next)++)
        if (home(&probe, *next) == h)
            out[n++] = *next;
}

static void test_empty(void)
{
    sk_map m = SK_MAP_INIT;
    uint32_t pos = 0;
    sk_map_prefetch(&m, 1);
    tap_ok(sk_map_get(&m, 1) == NULL && sk_map_del(&m, 1) == NULL &&
               sk_map_next(&m, &pos, NULL) == NULL && m.mp_cap == 0,
           "an empty map finds nothing and has allocated nothing");
    sk_map_free(&m);
}

/* Three keys at home 15 fill 15, 0 and 1; one at home 0 goes to 2, one
 * at home 1 to 3. Deleting the first shifts each of the others back one
 * slot, across the end of the table. */
static void test_wrap(void)
{
    sk_map m = SK_MAP_INIT;
    static int v[8];
    uint64_t next = 0, a[3], b[1], c[1];
    keys_at(15, a, 3, &next);
    keys_at(0, b, 1, &next);
    keys_at(1, c, 1, &next);
    uint64_t keys[5] = {a[0], a[1], a[2], b[0], c[0]};
    int ok = 1;
    for (int i = 0; i < 5; i++)
        ok &= sk_map_put(&m, keys[i], &v[i]) == 0;
    tap_ok(ok && m.mp_cap == 16 && slot_of(&m, a[0]) == 15 &&
               slot_of(&m, a[1]) == 0 && slot_of(&m, a[2]) == 1 &&
               slot_of(&m, b[0]) == 2 && slot_of(&m, c[0]) == 3,
           "a probe run wraps around the end of the table");
    tap_ok(sk_map_del(&m, a[0]) == &v[0] && sk_map_get(&m, a[0]) == NULL,
           "deleting its head returns the value and forgets the key");
    tap_ok(slot_of(&m, a[1]) == 15 && slot_of(&m, a[2]) == 0 &&
               slot_of(&m, b[0]) == 1 && slot_of(&m, c[0]) == 2 &&
               m.mp_vals[3] == NULL && valid(&m),
           "the rest of the run shifts back across the wrap, no hole left");
    ok = 1;
    for (int i = 1; i < 5; i++)
        ok &= sk_map_get(&m, keys[i]) == &v[i];
    tap_ok(ok && m.mp_len == 4, "every other key is still found");
    tap_ok(sk_map_del(&m, a[1]) == &v[1] && slot_of(&m, a[2]) == 15 &&
               slot_of(&m, b[0]) == 0 && slot_of(&m, c[0]) == 1 && valid(&m),
           "a second deletion at the end shifts the run across it again");
    /* Now a[2] at 15, b at 0 (its home), c at 1 (its home). */
    tap_ok(sk_map_del(&m, a[2]) == &v[2] && slot_of(&m, b[0]) == 0 &&
               slot_of(&m, c[0]) == 1 && m.mp_vals[15] == NULL && valid(&m) &&
               sk_map_get(&m, b[0]) == &v[3] && sk_map_get(&m, c[0]) == &v[4] &&
               m.mp_len == 2,
           "entries at their home slots do not move back across the end");
    sk_map_free(&m);
}

static void test_model(void)
{
    sk_map m = SK_MAP_INIT;
    static int present[N];
    static int vals[N];
    int ok = 1;
    /* Key 0 is a key like any other; sequential ids are the common case. */
    for (int k = 0; k < N; k++) {
        ok &= sk_map_put(&m, (uint64_t)k, &vals[k]) == 0;
        present[k] = 1;
    }
    for (int k = 0; k < N; k++)
        ok &= sk_map_get(&m, (uint64_t)k) == &vals[k];
    tap_ok(ok && m.mp_len == N && valid(&m),
           "%d sequential ids, 0 among them, are all found", N);

    sk_rng rng;
    sk_rng_seed(&rng, 42);
    int agree = 1;
    for (int step = 0; step < 50000; step++) {
        int k = (int)sk_rng_below(&rng, N);
        if (present[k]) {
            agree &= sk_map_del(&m, (uint64_t)k) == &vals[k];
            present[k] = 0;
        } else {
            agree &= sk_map_put(&m, (uint64_t)k, &vals[k]) == 0;
            present[k] = 1;
        }
        if (step % 997 == 0) {
            agree &= valid(&m);
            for (int q = 0; q < N; q++)
                agree &= sk_map_get(&m, (uint64_t)q) ==
                         (present[q] ? &vals[q] : NULL);
        }
    }
    uint32_t count = 0;
    for (int k = 0; k < N; k++)
        count += (uint32_t)present[k];
    tap_ok(agree && m.mp_len == count && valid(&m),
           "50,000 random deletions and insertions agree with the model");

    uint32_t pos = 0, seen = 0;
    uint64_t key;
    int keys_ok = 1;
    void *v;
    while ((v = sk_map_next(&m, &pos, &key)) != NULL) {
        seen++;
        keys_ok &= key < N && present[key] && v == &vals[key];
    }
    tap_ok(keys_ok && seen == count, "iteration visits every key once");

    uint32_t len = m.mp_len;
    uint64_t some = 0;
    while (!present[some])
        some++;
    tap_ok(sk_map_put(&m, some, &vals[1]) == 0 &&
               sk_map_get(&m, some) == &vals[1] && m.mp_len == len,
           "put replaces a value");
    sk_map_free(&m);
    tap_ok(m.mp_len == 0 && m.mp_cap == 0 && sk_map_get(&m, 7) == NULL,
           "a freed map is empty");
    tap_ok(sk_map_put(&m, 7, &vals[7]) == 0 && sk_map_get(&m, 7) == &vals[7],
           "and ready for use again");
    sk_map_free(&m);
}

static void test_growth(void)
{
    sk_map m = SK_MAP_INIT;
    static int v;
    int ok = 1;
    for (uint64_t k = 1; k <= 12; k++)
        ok &= sk_map_put(&m, k, &v) == 0;
    tap_ok(ok && m.mp_cap == 16, "16 slots hold 12 entries");
    ok = sk_map_put(&m, 13, &v) == 0;
    tap_ok(ok && m.mp_cap == 32 && valid(&m),
           "the 13th doubles the table (more than three quarters full)");

    tap_is_int(sk_map_reserve(&m, 1000), 0, "reserve 1000 more");
    uint32_t cap = m.mp_cap;
    const uint64_t *keys = m.mp_keys;
    ok = cap >= 4 * (13 + 1000) / 3;
    for (uint64_t k = 100; k < 1100; k++)
        ok &= sk_map_put(&m, k, &v) == 0;
    tap_ok(ok && m.mp_cap == cap && m.mp_keys == keys && valid(&m),
           "the 1000 puts after it allocate nothing (they cannot fail)");

    sk_map before = m;
    tap_is_int(sk_map_reserve(&m, SK_MAP_MAX - m.mp_len + 1), SK_ELIMIT,
               "one past 2^30 entries is refused");
    tap_is_int(sk_map_reserve(&m, UINT32_MAX), SK_ELIMIT,
               "and so is any extra that overflows");
    tap_ok(m.mp_keys == before.mp_keys && m.mp_cap == before.mp_cap &&
               m.mp_len == before.mp_len && sk_map_get(&m, 1000) == &v,
           "a refused reservation leaves the map unchanged");
    sk_map_free(&m);
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_empty();
    test_wrap();
    test_model();
    test_growth();
    return tap_exit_status();
}
