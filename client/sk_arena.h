/*
 * sk_arena.h - per-call scratch memory of the sans-I/O cores: a bump
 * allocator emptied at the start of every call into a core. Internal to
 * Skylark, not part of skylark.h.
 *
 * Messages a core puts in its outbox must stay valid until the next call
 * into the core (client/sk_core.h). Their variable parts (strings, specs,
 * output tails, formatted reasons, status tables) are copied here; the
 * core rewinds the arena when the next call starts. After the first few
 * calls the arena is one block large enough for a call, so the hot path
 * does not allocate.
 *
 * It is the node monitor core's arena as tuned for the simulator (a rewind
 * touches no block, blocks start small), now shared with the scheduler
 * core, whose copy (sched_scratch: 64 KiB blocks, a walk of the block list
 * on every reset) it replaced.
 *
 * Costs: sk_arena_alloc O(1), and a malloc when the newest block is full
 * (a core's first calls, or a call that needs more than any before it);
 * sk_arena_rewind O(1), and when the last call needed more than one block,
 * frees them all and allocates one of the largest call's size;
 * sk_arena_strdup and sk_arena_memdup O(len); sk_arena_printf formats
 * twice (once to measure).
 *
 * Limits and memory: every allocation is rounded up to a multiple of
 * alignof(max_align_t) (16 bytes on x86-64) and aligned for any type; a
 * block holds at least SK_ARENA_MIN bytes; a request larger than
 * SIZE_MAX / 2 fails. The arena keeps one block as large as the largest
 * call so far (the peak) until sk_arena_fini: it never shrinks.
 *
 * Ownership: the arena owns its blocks; what it returns is valid until the
 * next sk_arena_rewind or sk_arena_fini, and must not be freed.
 *
 * Threading: none; one owner.
 */
#ifndef SK_ARENA_H
#define SK_ARENA_H

#include <stdbool.h>
#include <stddef.h>

/* The smallest block: a node monitor's calls need a few hundred bytes,
 * and a large block per core spreads a simulated cluster's cores over
 * more memory. */
#define SK_ARENA_MIN 512u

typedef struct sk_chunk sk_chunk;

/* What the hot path needs of the newest block is kept here, so that a
 * rewind touches no block: in a simulator of many cores, that block is
 * far out of the caches by the next call. The fields are the arena's. */
typedef struct sk_arena {
    sk_chunk *ar_chunks; /* newest first */
    size_t ar_size;      /* usable bytes of the newest block */
    size_t ar_top;       /* bytes used in the newest block */
    size_t ar_peak;      /* bytes used by the largest call so far */
    size_t ar_used;      /* bytes used since the last rewind */
    bool ar_several;     /* more than one block */
} sk_arena;

/* sk_arena_init makes an empty arena (no allocation). A zeroed sk_arena
 * is one too. */
void sk_arena_init(sk_arena *a);

/* sk_arena_rewind forgets every allocation; keeps one block big enough
 * for the largest call so far. */
void sk_arena_rewind(sk_arena *a);

/* sk_arena_alloc returns size bytes aligned for any type, or NULL when
 * out of memory; for size 0 a valid pointer to no bytes. */
void *sk_arena_alloc(sk_arena *a, size_t size);

/* sk_arena_strdup copies s (NULL as ""); NULL when out of memory. */
char *sk_arena_strdup(sk_arena *a, const char *s);

/* sk_arena_memdup copies len bytes; returns NULL when out of memory, and
 * for len 0 a valid pointer to no bytes. */
void *sk_arena_memdup(sk_arena *a, const void *data, size_t len);

/* sk_arena_printf formats into the arena. It never returns NULL: when
 * out of memory (or the format fails) it returns "", so that a message
 * goes out with an empty text rather than a core having to drop it. */
const char *sk_arena_printf(sk_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sk_arena_fini releases everything and leaves an empty arena. */
void sk_arena_fini(sk_arena *a);

#endif /* SK_ARENA_H */
