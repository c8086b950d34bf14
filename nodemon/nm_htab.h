/*
 * nm_htab.h - an intrusive chained hash table for the node monitor core.
 *
 * Elements embed an nm_hnode and are found by a 64-bit hash; the caller
 * walks the nodes with that hash and compares its own keys, so one table
 * type serves every key shape (peer ids, (scheduler, job) pairs, names).
 * The table doubles its buckets when it holds as many nodes as buckets:
 * insertion is O(1) amortised, lookup O(1) expected. It owns no element.
 */
#ifndef NM_HTAB_H
#define NM_HTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct nm_hnode {
    struct nm_hnode *hn_next;
    uint64_t hn_hash;
} nm_hnode;

/* Buckets a table holds in itself before it first grows. */
#define NM_HTAB_SMALL 4u

/* A table starts with its buckets inside itself, so that a small one
 * (most of a node monitor's: a few peers, jobs, tasks) is read with the
 * structure that holds it, and takes no allocation. It points to itself
 * then: it must not be copied or moved. */
typedef struct nm_htab {
    nm_hnode **ht_buckets; /* ht_small, or allocated once grown */
    size_t ht_nbuckets;    /* a power of two */
    size_t ht_count;
    nm_hnode *ht_small[NM_HTAB_SMALL];
} nm_htab;

/* nm_htab_init prepares an empty table in place. */
void nm_htab_init(nm_htab *t);

/* nm_htab_fini releases the buckets (not the elements). */
void nm_htab_fini(nm_htab *t);

/* nm_htab_insert adds node under hash. It cannot fail: when growing is
 * impossible (out of memory) the chains just get longer. */
void nm_htab_insert(nm_htab *t, nm_hnode *node, uint64_t hash);

/* nm_htab_remove takes node (which must be in t) out of t. */
void nm_htab_remove(nm_htab *t, nm_hnode *node);

/* nm_htab_find returns the first node with this hash, or NULL;
 * nm_htab_next the next node after node with the same hash, or NULL. */
nm_hnode *nm_htab_find(const nm_htab *t, uint64_t hash);
nm_hnode *nm_htab_next(const nm_hnode *node);

/* nm_hash_mix combines two 64-bit values into a well-spread hash (inline:
 * every lookup of a short task's calls makes one or two). */
static inline uint64_t nm_hash_mix(uint64_t a, uint64_t b)
{
    /* splitmix64's finaliser over a combination of both values. */
    uint64_t z = a * 0x9e3779b97f4a7c15ull + b;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* nm_hash_str hashes a NUL-terminated string. */
uint64_t nm_hash_str(const char *s);

#endif /* NM_HTAB_H */
