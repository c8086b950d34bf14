/*
 * sched_map.h - an open-addressing hash map from 64-bit keys to non-NULL
 * pointers, the one index structure of the scheduler core (peers, jobs,
 * reservations, node names by hash).
 *
 * Linear probing with backward-shift deletion: no tombstones, so a map
 * that sees many insertions and deletions stays as fast as a fresh one.
 * The table doubles when three quarters full and never shrinks.
 */
#ifndef SCHED_MAP_H
#define SCHED_MAP_H

#include <stdint.h>

typedef struct sched_map {
    uint64_t *mp_keys;
    void **mp_vals;  /* NULL marks an empty slot */
    uint32_t mp_cap; /* 0 or a power of two */
    uint32_t mp_len; /* entries in use */
} sched_map;

/* sched_map_reserve makes room for extra more entries, so that the next
 * extra insertions of new keys cannot fail. Returns 0, SK_ELIMIT past
 * 2^30 entries, or SK_ENOMEM (map unchanged). */
int sched_map_reserve(sched_map *m, uint32_t extra);

/* sched_map_put maps key to val (non-NULL), replacing any previous value.
 * Returns 0 or an error of sched_map_reserve (map unchanged). */
int sched_map_put(sched_map *m, uint64_t key, void *val);

/* sched_map_get returns the value of key, or NULL. O(1) expected. */
void *sched_map_get(const sched_map *m, uint64_t key);

/* sched_map_prefetch asks the processor to start loading the slot where
 * a lookup of key begins (a hint: it reads m, changes nothing). */
void sched_map_prefetch(const sched_map *m, uint64_t key);

/* sched_map_del removes key and returns its value, or NULL if absent. */
void *sched_map_del(sched_map *m, uint64_t key);

/* sched_map_free releases the table; the values are the caller's. */
void sched_map_free(sched_map *m);

#endif /* SCHED_MAP_H */
