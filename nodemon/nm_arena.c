/*
 * nm_arena.c - per-call scratch memory of the node monitor core.
 */
#include "nm_arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* Small: a node monitor's calls need a few hundred bytes, and a large
 * block per core spreads a simulated cluster's cores over more memory. */
#define NM_CHUNK_MIN 512u

struct nm_chunk {
    nm_chunk *ch_next;
    size_t ch_size; /* usable bytes after the header */
    size_t ch_used;
    alignas(max_align_t) unsigned char ch_data[];
};

void nm_arena_init(nm_arena *a)
{
    a->ar_chunks = NULL;
    a->ar_peak = 0;
    a->ar_used = 0;
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
    if (a->ar_chunks == NULL)
        return;
    /* One block sized for the largest call replaces several small ones,
     * so that steady state allocates nothing. */
    if (a->ar_chunks->ch_next != NULL || a->ar_chunks->ch_size < a->ar_peak) {
        free_chunks(a->ar_chunks);
        a->ar_chunks = NULL;
        size_t size = a->ar_peak < NM_CHUNK_MIN ? NM_CHUNK_MIN : a->ar_peak;
        nm_chunk *c = malloc(sizeof *c + size);
        if (c == NULL)
            return;
        c->ch_next = NULL;
        c->ch_size = size;
        a->ar_chunks = c;
    }
    a->ar_chunks->ch_used = 0;
}

void *nm_arena_alloc(nm_arena *a, size_t size)
{
    size_t need =
        (size + alignof(max_align_t) - 1) & ~(size_t)(alignof(max_align_t) - 1);
    nm_chunk *c = a->ar_chunks;
    if (c == NULL || c->ch_size - c->ch_used < need) {
        size_t csize = need < NM_CHUNK_MIN ? NM_CHUNK_MIN : need;
        c = malloc(sizeof *c + csize);
        if (c == NULL)
            return NULL;
        c->ch_next = a->ar_chunks;
        c->ch_size = csize;
        c->ch_used = 0;
        a->ar_chunks = c;
    }
    void *p = c->ch_data + c->ch_used;
    c->ch_used += need;
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
