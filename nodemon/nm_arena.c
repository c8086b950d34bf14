/*
 * nm_arena.c - per-call scratch memory of the node monitor core.
 */
#include "nm_arena.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Small: a node monitor's calls need a few hundred bytes, and a large
 * block per core spreads a simulated cluster's cores over more memory. */
#define NM_CHUNK_MIN 512u

struct nm_chunk {
    nm_chunk *ch_next;
    alignas(max_align_t) unsigned char ch_data[];
};

void nm_arena_init(nm_arena *a)
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
static bool add_chunk(nm_arena *a, size_t size)
{
    nm_chunk *c = malloc(sizeof *c + size);
    if (c == NULL)
        return false;
    c->ch_next = a->ar_chunks;
    a->ar_several = a->ar_chunks != NULL;
    a->ar_chunks = c;
    a->ar_size = size;
    a->ar_top = 0;
    return true;
}

static void free_chunks(nm_chunk *c)
{
    while (c != NULL) {
        nm_chunk *next = c->ch_next;
        free(c);
        c = next;
    }
}

void nm_arena_rewind(nm_arena *a)
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
        add_chunk(a, a->ar_peak < NM_CHUNK_MIN ? NM_CHUNK_MIN : a->ar_peak);
    }
}

void *nm_arena_alloc(nm_arena *a, size_t size)
{
    /* No block can be this large, and rounding it up or adding a block's
     * header would wrap around to a small size (SIZE_MAX gave 0 bytes). */
    if (size > SIZE_MAX / 2)
        return NULL;
    size_t need =
        (size + alignof(max_align_t) - 1) & ~(size_t)(alignof(max_align_t) - 1);
    if ((a->ar_chunks == NULL || a->ar_size - a->ar_top < need) &&
        !add_chunk(a, need < NM_CHUNK_MIN ? NM_CHUNK_MIN : need))
        return NULL;
    void *p = a->ar_chunks->ch_data + a->ar_top;
    a->ar_top += need;
    a->ar_used += need;
    return p;
}

char *nm_arena_strdup(nm_arena *a, const char *s)
{
    if (s == NULL)
        s = "";
    return nm_arena_memdup(a, s, strlen(s) + 1);
}

void *nm_arena_memdup(nm_arena *a, const void *data, size_t len)
{
    void *p = nm_arena_alloc(a, len);
    if (p != NULL && len > 0)
        memcpy(p, data, len);
    return p;
}

void nm_arena_fini(nm_arena *a)
{
    free_chunks(a->ar_chunks);
    nm_arena_init(a);
}
