/*
 * test_nm_htab.c - the node monitor's intrusive hash table (nm_htab.h):
 * what was inserted is found and what was removed is not, through growth
 * and through chains of equal hashes and of hashes that share a bucket;
 * a small table allocates nothing; 100,000 random operations agree with a
 * model; nm_hash_str spreads names over buckets.
 */
#include "nm_htab.h"
#include "nm_list.h"
#include "sk_rng.h"
#include "tap.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct elem {
    nm_hnode e_node;
    uint64_t e_key;
    bool e_in; /* the model: inserted and not removed */
} elem;

/* How many elements with this hash the table yields, and whether each
 * is in the table by the model and has the hash. */
static int walk(const nm_htab *t, uint64_t hash, bool *clean)
{
    int n = 0;
    for (nm_hnode *h = nm_htab_find(t, hash); h != NULL; h = nm_htab_next(h)) {
        elem *e = NM_CONTAINER(h, elem, e_node);
        *clean = *clean && e->e_in && h->hn_hash == hash;
        n++;
    }
    return n;
}

static void test_small(void)
{
    nm_htab t;
    nm_htab_init(&t);
    tap_ok(nm_htab_find(&t, 42) == NULL && t.ht_count == 0,
           "an empty table finds nothing");
    static elem e[5];
    for (int i = 0; i < 4; i++) {
        e[i].e_in = true;
        nm_htab_insert(&t, &e[i].e_node, nm_hash_mix((uint64_t)i, 0));
    }
    tap_ok(t.ht_buckets == t.ht_small && t.ht_count == 4,
           "four elements stay in the table's own buckets (no allocation)");
    e[4].e_in = true;
    nm_htab_insert(&t, &e[4].e_node, nm_hash_mix(4, 0));
    tap_ok(t.ht_buckets != t.ht_small && t.ht_nbuckets == 2 * NM_HTAB_SMALL,
           "a fifth doubles the buckets");
    bool clean = true;
    int found = 0;
    for (int i = 0; i < 5; i++)
        found += walk(&t, nm_hash_mix((uint64_t)i, 0), &clean);
    tap_ok(found == 5 && clean, "all five are found after the growth");
    nm_htab_fini(&t);
}

/* Equal hashes (a chain the caller tells apart by key) and hashes equal
 * in their low bits (one bucket, whatever the size): find and next yield
 * exactly the elements with the hash asked for. */
static void test_collisions(void)
{
    enum { SAME = 50, BUCKET = 50 };
    nm_htab t;
    nm_htab_init(&t);
    static elem same[SAME], bucket[BUCKET];
    const uint64_t h = 0x123456789abcdef0ull;
    for (int i = 0; i < SAME; i++) {
        same[i].e_in = true;
        same[i].e_key = (uint64_t)i;
        nm_htab_insert(&t, &same[i].e_node, h);
    }
    for (int i = 0; i < BUCKET; i++) {
        bucket[i].e_in = true;
        nm_htab_insert(&t, &bucket[i].e_node, h + ((uint64_t)(i + 1) << 40));
    }
    bool clean = true;
    tap_is_int(walk(&t, h, &clean), SAME,
               "50 elements of one hash are all yielded");
    tap_ok(clean, "and only they, not the 50 sharing their bucket");
    int one_each = 0;
    for (int i = 0; i < BUCKET; i++)
        one_each += walk(&t, h + ((uint64_t)(i + 1) << 40), &clean) == 1;
    tap_ok(one_each == BUCKET && clean,
           "each of the 50 sharing the bucket is found alone");
    /* Remove every other one of the chain, head and tail included. */
    for (int i = 0; i < SAME; i += 2) {
        nm_htab_remove(&t, &same[i].e_node);
        same[i].e_in = false;
    }
    nm_htab_remove(&t, &same[SAME - 1].e_node);
    same[SAME - 1].e_in = false;
    clean = true;
    tap_ok(walk(&t, h, &clean) == SAME / 2 - 1 && clean &&
               t.ht_count == SAME + BUCKET - SAME / 2 - 1,
           "removals from a chain leave the others in it");
    nm_htab_fini(&t);
}

/* 100,000 random inserts and removes over 5,000 elements, keys hashed
 * with nm_hash_mix, a tenth of them forced onto 16 shared hashes. */
static void test_model(void)
{
    enum { N = 5000, OPS = 100000 };
    static elem e[N];
    nm_htab t;
    nm_htab_init(&t);
    sk_rng rng;
    sk_rng_seed(&rng, 3);
    for (int i = 0; i < N; i++)
        e[i].e_key = i % 10 == 0 ? (uint64_t)(i % 16) : (uint64_t)i << 8;
    size_t in = 0;
    int wrong = 0;
    size_t most_buckets = 0;
    for (int op = 0; op < OPS; op++) {
        elem *x = &e[sk_rng_below(&rng, N)];
        uint64_t h = nm_hash_mix(x->e_key, 7);
        if (x->e_in) {
            nm_htab_remove(&t, &x->e_node);
            x->e_in = false;
            in--;
        } else {
            nm_htab_insert(&t, &x->e_node, h);
            x->e_in = true;
            in++;
        }
        if (t.ht_nbuckets > most_buckets)
            most_buckets = t.ht_nbuckets;
        if (t.ht_count != in || t.ht_count > t.ht_nbuckets)
            wrong++;
        if (op % 5000 == 4999) {
            /* Every element: found exactly when the model has it. */
            for (int i = 0; i < N; i++) {
                bool clean = true, seen = false;
                uint64_t hi = nm_hash_mix(e[i].e_key, 7);
                for (nm_hnode *n = nm_htab_find(&t, hi); n != NULL;
                     n = nm_htab_next(n)) {
                    seen = seen || n == &e[i].e_node;
                    clean = clean && n->hn_hash == hi &&
                            NM_CONTAINER(n, elem, e_node)->e_in;
                }
                wrong += seen != e[i].e_in || !clean;
            }
        }
    }
    tap_is_int(wrong, 0,
               "100,000 random operations agree with the model (%zu in, up "
               "to %zu buckets)",
               in, most_buckets);
    for (int i = 0; i < N; i++)
        if (e[i].e_in) {
            nm_htab_remove(&t, &e[i].e_node);
            e[i].e_in = false;
        }
    tap_ok(t.ht_count == 0 && nm_htab_find(&t, nm_hash_mix(16, 7)) == NULL,
           "with everything removed the table is empty");
    nm_htab_fini(&t);
}

/* nm_hash_str: 100,000 user names like a cluster's spread evenly over
 * 1,024 buckets by their low bits, and no two of them share a hash. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_hash_str(void)
{
    enum { N = 100000, B = 1024 };
    static uint64_t h[N];
    static int load[B];
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "user%d", i);
        h[i] = nm_hash_str(name);
        load[h[i] & (B - 1)]++;
    }
    double mean = (double)N / B, chi2 = 0;
    for (int b = 0; b < B; b++)
        chi2 += (load[b] - mean) * (load[b] - mean) / mean;
    /* 1,023 degrees of freedom: mean 1023, sd 45; 1,250 is 5 sd. */
    tap_ok(chi2 < 1250,
           "names spread evenly over 1,024 buckets (chi-square "
           "%.0f, 1,023 expected)",
           chi2);
    qsort(h, N, sizeof h[0], cmp_u64);
    int dup = 0;
    for (int i = 1; i < N; i++)
        dup += h[i] == h[i - 1];
    tap_is_int(dup, 0, "no two of 100,000 names share a hash");
    tap_ok(nm_hash_str("") != nm_hash_str("a") &&
               nm_hash_str("ab") != nm_hash_str("ba"),
           "the empty name and swapped letters hash apart");
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_small();
    test_collisions();
    test_model();
    test_hash_str();
    tap_done();
    return tap_exit_status();
}
