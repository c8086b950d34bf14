/*
 * test_arena.c - the cores' per-call arena (client/sk_arena.h): every
 * allocation aligned for any type and apart from the others, a rewind
 * that reuses the memory, growth past a block and the one block of the
 * largest call's size that replaces several, big allocations, the copies
 * and the formatted text, and the failures it reports.
 */
#include "sk_arena.h"
#include "tap.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool aligned(const void *p)
{
    return (uintptr_t)p % alignof(max_align_t) == 0;
}

static void test_alignment(void)
{
    sk_arena a;
    sk_arena_init(&a);
    tap_ok(a.ar_chunks == NULL, "a new arena has allocated nothing");
    unsigned char *prev = NULL;
    size_t prev_len = 0;
    int ok = 1, apart = 1;
    for (size_t len = 0; len < 100; len++) {
        unsigned char *p = sk_arena_alloc(&a, len);
        ok &= p != NULL && aligned(p);
        if (p == NULL)
            break;
        memset(p, 0xa5, len);
        /* In one block, each allocation starts past the one before. */
        if (prev != NULL && p > prev)
            apart &= p >= prev + prev_len;
        prev = p;
        prev_len = len;
    }
    tap_ok(ok, "allocations of 0 to 99 bytes are aligned for any type");
    tap_ok(apart, "and do not overlap");
    sk_arena_fini(&a);
}

static void test_rewind(void)
{
    sk_arena a = {0};
    void *first = sk_arena_alloc(&a, 40);
    sk_arena_alloc(&a, 100);
    const sk_chunk *block = a.ar_chunks;
    sk_arena_rewind(&a);
    tap_ok(a.ar_chunks == block && a.ar_size == SK_ARENA_MIN,
           "a call that fits one block keeps it (%u bytes)", SK_ARENA_MIN);
    tap_ok(sk_arena_alloc(&a, 8) == first,
           "after a rewind the memory is used again from its start");
    sk_arena_rewind(&a);
    sk_arena_rewind(&a);
    tap_ok(a.ar_chunks == block && a.ar_used == 0 && a.ar_top == 0,
           "rewinding an unused arena changes nothing");
    sk_arena_fini(&a);
    tap_ok(a.ar_chunks == NULL && a.ar_peak == 0, "fini leaves it empty");
}

/* A call that outgrows its block gets more; the rewind replaces them with
 * one block of the call's size, which the next such call fills without
 * allocating. */
static void test_growth(void)
{
    sk_arena a;
    sk_arena_init(&a);
    void *p[40];
    int ok = 1;
    for (int i = 0; i < 40; i++) {
        p[i] = sk_arena_alloc(&a, 100);
        ok &= p[i] != NULL && aligned(p[i]);
        if (p[i] != NULL)
            memset(p[i], i, 100);
    }
    for (int i = 0; i < 40 && ok; i++)
        for (int k = 0; k < 100; k++)
            ok &= ((unsigned char *)p[i])[k] == i;
    tap_ok(ok && a.ar_several, "40 x 112 bytes span several blocks, intact");
    size_t used = a.ar_used;
    sk_arena_rewind(&a);
    tap_ok(!a.ar_several && a.ar_size >= used && a.ar_peak == used,
           "the rewind leaves one block of the call's size (%zu bytes)", used);
    const sk_chunk *block = a.ar_chunks;
    ok = 1;
    for (int i = 0; i < 40; i++)
        ok &= sk_arena_alloc(&a, 100) != NULL;
    tap_ok(ok && a.ar_chunks == block && !a.ar_several,
           "the same call again takes no new block");
    sk_arena_rewind(&a);
    sk_arena_alloc(&a, 8);
    sk_arena_rewind(&a);
    tap_ok(a.ar_chunks == block && a.ar_peak == used,
           "a smaller call keeps the block of the largest");
    sk_arena_fini(&a);
}

static void test_big(void)
{
    sk_arena a;
    sk_arena_init(&a);
    sk_arena_alloc(&a, 10);
    size_t big = (size_t)4 << 20;
    unsigned char *p = sk_arena_alloc(&a, big);
    int ok = p != NULL && aligned(p);
    if (p != NULL) {
        memset(p, 0x5a, big);
        ok &= p[0] == 0x5a && p[big - 1] == 0x5a;
    }
    tap_ok(ok, "a 4 MiB allocation gets a block of its own");
    void *after = sk_arena_alloc(&a, 16);
    tap_ok(after != NULL && aligned(after) &&
               ((unsigned char *)after >= p + big ||
                (unsigned char *)after + 16 <= p),
           "an allocation after it lies outside it");
    tap_ok(sk_arena_alloc(&a, SIZE_MAX) == NULL &&
               sk_arena_alloc(&a, SIZE_MAX / 2 + 1) == NULL,
           "a request past SIZE_MAX / 2 fails instead of wrapping around");
    sk_arena_rewind(&a);
    tap_ok(!a.ar_several && a.ar_size >= big, "the rewind keeps one block");
    sk_arena_fini(&a);
}

static void test_copies(void)
{
    sk_arena a;
    sk_arena_init(&a);
    char *s = sk_arena_strdup(&a, "node-17");
    tap_ok(s != NULL && strcmp(s, "node-17") == 0 && aligned(s),
           "strdup copies the string");
    char *e = sk_arena_strdup(&a, NULL);
    tap_ok(e != NULL && e[0] == '\0', "strdup of NULL is \"\"");
    static const unsigned char bytes[5] = {0, 1, 2, 0, 255};
    unsigned char *b = sk_arena_memdup(&a, bytes, sizeof bytes);
    tap_ok(b != NULL && memcmp(b, bytes, sizeof bytes) == 0,
           "memdup copies bytes, NULs too");
    tap_ok(sk_arena_memdup(&a, NULL, 0) != NULL,
           "memdup of no bytes is a valid pointer");
    const char *f =
        sk_arena_printf(&a, "job has %u tasks, limit %lld", 20000u, 10000LL);
    tap_is_str(f, "job has 20000 tasks, limit 10000", "printf formats");
    char wide[2000];
    memset(wide, 'x', sizeof wide - 1);
    wide[sizeof wide - 1] = '\0';
    f = sk_arena_printf(&a, "%s!", wide);
    tap_ok(strlen(f) == sizeof wide && f[sizeof wide - 1] == '!',
           "printf of %zu bytes, more than a block", sizeof wide);
    tap_ok(strcmp(s, "node-17") == 0 && memcmp(b, bytes, sizeof bytes) == 0,
           "the earlier copies are intact");
    sk_arena_fini(&a);
}

int main(void)
{
    tap_timeout(30);
    tap_plan_lazy();
    test_alignment();
    test_rewind();
    test_growth();
    test_big();
    test_copies();
    return tap_exit_status();
}
