/*
 * sk_map.h - a hash map from 64-bit keys to non-NULL pointers: the one
 * index structure of the scheduler core (peers, jobs, reservations, node
 * names by hash) and of the client objects (jobs in flight, results kept,
 * an executor's jobs). Internal to Skylark, not part of skylark.h.
 *
 * Design: open addressing with linear probing over two parallel arrays,
 * keys and values (a NULL value marks an empty slot), the splitmix64
 * finaliser spreading sequential ids, backward-shift deletion (no
 * tombstones, so a map that sees many insertions and deletions stays as
 * fast as a fresh one). It is the scheduler core's map as the simulator
 * ran it (sched_map, with the prefetch hook sched_prefetch.c uses), now
 * shared with the client objects, whose copy (sk_idmap) it replaced.
 *
 * Costs: sk_map_get, sk_map_put and sk_map_del O(1) expected; a put that
 * grows the table O(n) (amortised O(1)). The table starts at 16 slots on
 * the first insertion, doubles when more than three quarters full and
 * never shrinks: 16 bytes per slot, so from 21 to 43 bytes per entry
 * once past 12 entries (more after deletions or a reservation). No call
 * allocates but sk_map_reserve and sk_map_put.
 *
 * Limits: at most SK_MAP_MAX entries (2^30: the capacity stays a 32-bit
 * power of two); sk_map_reserve and sk_map_put return SK_ELIMIT past it.
 *
 * Ownership: the map owns its table, never the values; the caller frees
 * those (iterate with sk_map_next first). Any key is allowed, 0 too; a
 * value must not be NULL (NULL marks an empty slot).
 *
 * Threading: none; one owner, or the owner's lock around every call
 * (sk_map_get and sk_map_next only read, and may run concurrently with
 * each other).
 */
#ifndef SK_MAP_H
#define SK_MAP_H

#include <stdint.h>

/* The most entries a map holds. */
#define SK_MAP_MAX (1u << 30)

/* A zeroed sk_map (SK_MAP_INIT, {0}, calloc) is an empty map that has
 * allocated nothing. The fields are the map's; mp_len may be read. */
typedef struct sk_map {
    uint64_t *mp_keys;
    void **mp_vals;  /* NULL marks an empty slot */
    uint32_t mp_cap; /* 0 or a power of two */
    uint32_t mp_len; /* entries in use */
} sk_map;

#define SK_MAP_INIT                                                            \
    {                                                                          \
        NULL, NULL, 0, 0                                                       \
    }

/* sk_map_reserve makes room for extra more entries, so that the next
 * extra insertions of new keys (sk_map_put) cannot fail. Returns 0,
 * SK_ELIMIT past SK_MAP_MAX entries, or SK_ENOMEM (map unchanged). */
int sk_map_reserve(sk_map *m, uint32_t extra);

/* sk_map_put maps key to val (non-NULL), replacing any previous value
 * (which cannot fail). Returns 0 or an error of sk_map_reserve (map
 * unchanged). */
int sk_map_put(sk_map *m, uint64_t key, void *val);

/* sk_map_get returns the value of key, or NULL. */
void *sk_map_get(const sk_map *m, uint64_t key);

/* sk_map_prefetch asks the processor to start loading the slot where a
 * lookup of key begins, for a driver that knows its next lookups ahead
 * (sched_prefetch.c). A hint: it reads m and changes nothing. */
void sk_map_prefetch(const sk_map *m, uint64_t key);

/* sk_map_del removes key and returns its value, or NULL if absent. Other
 * entries may move: an iteration in progress must start over. */
void *sk_map_del(sk_map *m, uint64_t key);

/* sk_map_next iterates, in no particular order: start with *pos = 0; it
 * returns the next value and its key in *key (if key is not NULL), or
 * NULL at the end. The map must not change during an iteration. */
void *sk_map_next(const sk_map *m, uint32_t *pos, uint64_t *key);

/* sk_map_free releases the table (not the values) and leaves an empty
 * map, ready for use again. */
void sk_map_free(sk_map *m);

#endif /* SK_MAP_H */
