/*
 * nm_pool.h - a node monitor core's free list for one kind of record
 * (reservation, task, job).
 *
 * A record the core frees is kept for its next record of that kind, up to
 * a bound; the rest go back to malloc. Records are made and freed for
 * every short task, and malloc's free lists are shared by every core in a
 * process: in a simulated cluster of 10,000 cores each malloc and free
 * walked memory no one had touched for a while. The pool keeps a core's
 * records with the core and its hot path out of malloc. Built with
 * AddressSanitizer it keeps none, so that a use after free is caught.
 */
#ifndef NM_POOL_H
#define NM_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct nm_pool {
    void *pl_free;   /* kept records, linked through their first bytes */
    size_t pl_size;  /* bytes per record, at least sizeof(void *) */
    uint32_t pl_len; /* records kept */
    uint32_t pl_max; /* records kept at most */
} nm_pool;

/* nm_pool_init prepares an empty pool of records of size bytes that keeps
 * at most max of them. No allocation. */
void nm_pool_init(nm_pool *p, size_t size, uint32_t max);

/* nm_pool_get returns a zeroed record, or NULL when out of memory. */
void *nm_pool_get(nm_pool *p);

/* nm_pool_put takes back a record from nm_pool_get (NULL is a no-op). */
void nm_pool_put(nm_pool *p, void *rec);

/* nm_pool_fini releases the kept records (not those still in use). */
void nm_pool_fini(nm_pool *p);

#endif /* NM_POOL_H */
