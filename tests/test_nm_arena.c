/*
 * test_nm_arena.c - the node monitor's per-call scratch memory
 * (nm_arena.h): allocations are aligned, disjoint and keep their bytes
 * until the rewind, copies copy, after a rewind one block holds a call as
 * large as the largest so far (so that the same call again allocates
 * nothing), and impossible sizes give NULL.
 */
#include "nm_arena.h"
#include "sk_rng.h"
#include "tap.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool aligned(const void *p)
{
    return (uintptr_t)p % alignof(max_align_t) == 0;
}

static void test_copies(void)
{
    nm_arena a;
    nm_arena_init(&a);
    static const char node[] = "node-7";
    char *s = nm_arena_strdup(&a, node);
    char *e = nm_arena_strdup(&a, NULL);
    static const unsigned char bytes[5] = {0, 1, 0, 255, 7};
    unsigned char *m = nm_arena_memdup(&a, bytes, sizeof bytes);
    void *z = nm_arena_memdup(&a, bytes, 0);
    tap_ok(s != NULL && strcmp(s, node) == 0 && s != node,
           "strdup copies the string");
    tap_ok(e != NULL && e[0] == '\0', "strdup of NULL is \"\"");
    tap_ok(m != NULL && memcmp(m, bytes, sizeof bytes) == 0,
           "memdup copies bytes, NULs included");
    tap_ok(z != NULL, "memdup of 0 bytes is a valid pointer, not NULL");
    nm_arena_fini(&a);
}

/* 2,000 allocations of 0 to 3,000 bytes over several blocks: each aligned,
 * each keeping the pattern written into it while all the others are
 * written (so none overlaps another), until the rewind. */
static void test_disjoint(void)
{
    enum { N = 2000 };
    nm_arena a;
    nm_arena_init(&a);
    sk_rng rng;
    sk_rng_seed(&rng, 11);
    static unsigned char *p[N];
    static size_t len[N];
    bool all_aligned = true, all_there = true;
    for (int i = 0; i < N; i++) {
        /* Mostly small, as a call's strings; now and then larger than a
         * block, as an output tail. */
        len[i] = sk_rng_below(&rng, 10) == 0 ? sk_rng_below(&rng, 3001)
                                             : sk_rng_below(&rng, 64);
        p[i] = nm_arena_alloc(&a, len[i]);
        all_there = all_there && p[i] != NULL;
        all_aligned = all_aligned && aligned(p[i]);
        if (p[i] != NULL)
            memset(p[i], i & 0xff, len[i]);
    }
    tap_ok(all_there, "2,000 allocations succeed");
    tap_ok(all_aligned, "each is aligned for any type");
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (size_t k = 0; k < len[i]; k++)
            bad += p[i][k] != (unsigned char)(i & 0xff);
    tap_is_int(bad, 0, "no allocation overlaps another (bytes changed)");
    nm_arena_fini(&a);
}

/* A "call": the same 30 allocations, of 1 to 200 bytes. Returns the first
 * pointer; says in *one_block whether all of them lay in [first, first +
 * bytes of the block). */
static unsigned char *call(nm_arena *a, bool *one_block)
{
    unsigned char *first = NULL;
    uintptr_t lo = 0, hi = 0;
    for (int i = 0; i < 30; i++) {
        size_t len = 1 + (size_t)(i * 37) % 200;
        unsigned char *p = nm_arena_alloc(a, len);
        if (p == NULL)
            tap_bail_out("out of memory");
        if (first == NULL) {
            first = p;
            lo = (uintptr_t)p;
        }
        if ((uintptr_t)p + len > hi)
            hi = (uintptr_t)p + len;
        *one_block = *one_block && (uintptr_t)p >= lo;
    }
    *one_block = *one_block && hi <= lo + a->ar_size;
    return first;
}

static void test_steady_state(void)
{
    nm_arena a;
    nm_arena_init(&a);
    bool ignored = true;
    call(&a, &ignored);
    tap_ok(a.ar_several, "a first call of about 3 KiB spans several blocks");
    nm_arena_rewind(&a);
    tap_ok(!a.ar_several && a.ar_size >= a.ar_peak && a.ar_peak >= 3000,
           "the rewind leaves one block for the whole call (%zu bytes for a "
           "peak of %zu)",
           a.ar_size, a.ar_peak);
    bool same = true, one = true;
    unsigned char *first = NULL;
    for (int rep = 0; rep < 100; rep++) {
        unsigned char *f = call(&a, &one);
        if (first == NULL)
            first = f;
        same = same && f == first && !a.ar_several;
        nm_arena_rewind(&a);
    }
    tap_ok(same && one,
           "100 more such calls use that one block, allocating nothing");

    /* A larger call spills into a new block; the next rewind makes one
     * block for it, and smaller calls keep that block. */
    void *big = nm_arena_alloc(&a, 20000);
    tap_ok(big != NULL && a.ar_several, "a 20,000-byte call spills over");
    nm_arena_rewind(&a);
    size_t size = a.ar_size;
    tap_ok(!a.ar_several && size >= 20000,
           "the rewind keeps one block of %zu bytes", size);
    one = true;
    call(&a, &one);
    nm_arena_rewind(&a);
    tap_ok(one && a.ar_size == size && !a.ar_several,
           "a smaller call afterwards fits it, and the block stays");
    nm_arena_rewind(&a);
    tap_ok(a.ar_size == size,
           "a rewind with nothing allocated changes nothing");
    nm_arena_fini(&a);
    tap_ok(a.ar_chunks == NULL && a.ar_size == 0 && a.ar_peak == 0,
           "fini leaves an empty arena");
    char *s = nm_arena_strdup(&a, "again");
    tap_ok(s != NULL && strcmp(s, "again") == 0, "which can be used again");
    nm_arena_fini(&a);
}

/* Sizes no block can have: rounding up to the alignment, or adding the
 * block's header, would wrap around to a small number. */
static void test_impossible(void)
{
    nm_arena a;
    nm_arena_init(&a);
    char *before = nm_arena_strdup(&a, "kept");
    tap_ok(nm_arena_alloc(&a, SIZE_MAX) == NULL, "SIZE_MAX bytes: NULL");
    tap_ok(nm_arena_alloc(&a, SIZE_MAX - 20) == NULL,
           "SIZE_MAX - 20 bytes: NULL");
    tap_ok(nm_arena_memdup(&a, "x", SIZE_MAX / 2 + 1) == NULL,
           "memdup of more than half the address space: NULL");
    char *after = nm_arena_strdup(&a, "next");
    tap_ok(before != NULL && strcmp(before, "kept") == 0 && after != NULL &&
               strcmp(after, "next") == 0 && a.ar_used < 1024,
           "the arena works on, its accounts untouched (%zu bytes used)",
           a.ar_used);
    nm_arena_fini(&a);
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_copies();
    test_disjoint();
    test_steady_state();
    test_impossible();
    tap_done();
    return tap_exit_status();
}
