/*
 * nm_arena.h - per-call scratch memory for the node monitor core.
 *
 * Messages a core puts in its outbox must stay valid until the next call
 * into the core (client/sk_core.h). Their variable parts (strings, specs,
 * output tails, status tables) are copied here; the core rewinds the arena
 * when the next call starts. After the first few calls the arena is one
 * block large enough for a call, so the hot path does not allocate.
 */
#ifndef NM_ARENA_H
#define NM_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct nm_chunk nm_chunk;

/* What the hot path needs of the newest block is kept here, so that a
 * rewind touches no block: in a simulator of many cores, that block is
 * far out of the caches by the next call. */
typedef struct nm_arena {
    nm_chunk *ar_chunks; /* newest first */
    size_t ar_size;      /* usable bytes of the newest block */
    size_t ar_top;       /* bytes used in the newest block */
    size_t ar_peak;      /* bytes used by the largest call so far */
    size_t ar_used;      /* bytes used since the last rewind */
    bool ar_several;     /* more than one block */
} nm_arena;

/* nm_arena_init makes an empty arena (no allocation). */
void nm_arena_init(nm_arena *a);

/* nm_arena_rewind forgets every allocation; keeps one block big enough
 * for the largest call so far. */
void nm_arena_rewind(nm_arena *a);

/* nm_arena_alloc returns size bytes aligned for any type, or NULL when
 * out of memory (always for a size over SIZE_MAX / 2). Valid until the
 * next rewind. */
void *nm_arena_alloc(nm_arena *a, size_t size);

/* nm_arena_strdup copies s (NULL as ""); NULL when out of memory. */
char *nm_arena_strdup(nm_arena *a, const char *s);

/* nm_arena_memdup copies len bytes; returns NULL when out of memory, and
 * for len 0 a valid pointer to no bytes. */
void *nm_arena_memdup(nm_arena *a, const void *data, size_t len);

/* nm_arena_fini releases everything. */
void nm_arena_fini(nm_arena *a);

#endif /* NM_ARENA_H */
