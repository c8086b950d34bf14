/*
 * sk_idmap.h - a map from nonzero 64-bit ids to pointers, for the client
 * objects' jobs and tasks (open addressing, linear probing, backward-shift
 * deletion: no tombstones, so a long-lived map never degrades).
 *
 * Threading: none; one owner.
 */
#ifndef SK_IDMAP_H
#define SK_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sk_idmap_slot {
    uint64_t is_key; /* 0: empty */
    void *is_val;
} sk_idmap_slot;

typedef struct sk_idmap {
    sk_idmap_slot *im_slots;
    size_t im_cap;   /* a power of two, or 0 */
    size_t im_count; /* keys present */
} sk_idmap;

/* SK_IDMAP_INIT is an empty map; it allocates on the first insertion. */
#define SK_IDMAP_INIT                                                          \
    {                                                                          \
        NULL, 0, 0                                                             \
    }

/* sk_idmap_get returns the value of key, or NULL. O(1) expected. */
void *sk_idmap_get(const sk_idmap *m, uint64_t key);

/* sk_idmap_put inserts key (nonzero) with val, or replaces its value.
 * Returns 0, SK_EINVAL for key 0, SK_ENOMEM (map unchanged). The table
 * doubles when it is more than half full. */
int sk_idmap_put(sk_idmap *m, uint64_t key, void *val);

/* sk_idmap_del removes key and returns its value, or NULL if absent. */
void *sk_idmap_del(sk_idmap *m, uint64_t key);

/* sk_idmap_next iterates: start with *pos = 0; returns the next value and
 * its key in *key, or NULL at the end. The map must not change meanwhile. */
void *sk_idmap_next(const sk_idmap *m, size_t *pos, uint64_t *key);

/* sk_idmap_free releases the table (not the values) and empties m. */
void sk_idmap_free(sk_idmap *m);

#endif /* SK_IDMAP_H */
