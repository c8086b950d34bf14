/*
 * sk_arena.c - per-call scratch memory of the cores (see sk_arena.h).
 */
#include "sk_arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sk_chunk {
    sk_chunk *ch_next;
    alignas(max_align_t) unsigned char ch_data[];
};

void sk_arena_init(sk_arena *a)
{
    a->ar_chunks = NULL;
    a->ar_size = 0;
    a->ar_top = 0;
    a->ar_peak = 0;
    a->ar_used = 0;
    a->ar_several = false;
}

/* add_chunk puts a new block of size usable bytes in front; false when
 * out of memory. */
static bool add_chunk(sk_arena *a, size_t size)
{
    sk_chunk *c = malloc(sizeof *c + size);
    if (c == NULL)
        return false;
    c->ch_next = a->ar_chunks;
    a->ar_several = a->ar_chunks != NULL;
    a->ar_chunks = c;
    a->ar_size = size;
    a->ar_top = 0;
    return true;
}

static void free_chunks(sk_chunk *c)
{
    while (c != NULL) {
        sk_chunk *next = c->ch_next;
        free(c);
        c = next;
    }
}

void sk_arena_rewind(sk_arena *a)
{
    if (a->ar_used == 0)
        return; /* nothing to forget: the block stays untouched */
    if (a->ar_used > a->ar_peak)
        a->ar_peak = a->ar_used;
    a->ar_used = 0;
    a->ar_top = 0;
    /* One block sized for the largest call replaces several small ones,
     * so that steady state allocates nothing. */
    if (a->ar_several || a->ar_size < a->ar_peak) {
        free_chunks(a->ar_chunks);
        a->ar_chunks = NULL;
        a->ar_size = 0;
        add_chunk(a, a->ar_peak < SK_ARENA_MIN ? SK_ARENA_MIN : a->ar_peak);
    }
}

void *sk_arena_alloc(sk_arena *a, size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL; /* the rounding and the block header would overflow */
    size_t need =
        (size + alignof(max_align_t) - 1) & ~(size_t)(alignof(max_align_t) - 1);
    if ((a->ar_chunks == NULL || a->ar_size - a->ar_top < need) &&
        !add_chunk(a, need < SK_ARENA_MIN ? SK_ARENA_MIN : need))
        return NULL;
    void *p = a->ar_chunks->ch_data + a->ar_top;
    a->ar_top += need;
    a->ar_used += need;
    return p;
}

char *sk_arena_strdup(sk_arena *a, const char *s)
{
    if (s == NULL)
        s = "";
    return sk_arena_memdup(a, s, strlen(s) + 1);
}

void *sk_arena_memdup(sk_arena *a, const void *data, size_t len)
{
    void *p = sk_arena_alloc(a, len);
    if (p != NULL && len > 0)
        memcpy(p, data, len);
    return p;
}

const char *sk_arena_printf(sk_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return "";
    char *p = sk_arena_alloc(a, (size_t)n + 1);
    if (p == NULL)
        return "";
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void sk_arena_fini(sk_arena *a)
{
    free_chunks(a->ar_chunks);
    sk_arena_init(a);
}
