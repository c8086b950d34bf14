/*
 * sk_peermap.h - the two-way map between the transport's peer ids
 * (sk_peer_id, 64 bits, a new one per session of a peer that connected to
 * us) and the 32-bit peer references a sans-I/O core works with (sk_peer).
 *
 * A daemon shell gives each transport peer a core reference when it first
 * hears from it, and drops the pair when the peer's session ends (after
 * telling the core). References are small integers, handed out again only
 * after every other free one (first freed, first reused), so a reference
 * the core may still mention in a late outbox is not soon someone else's.
 * Lookups both ways are O(1): an array indexed by reference, and an open
 * addressing table keyed by transport id. Each entry carries a few flag
 * bits for its owner.
 *
 * Threading: a map belongs to one thread.
 */
#ifndef SK_PEERMAP_H
#define SK_PEERMAP_H

#include "sk_core.h"
#include "sk_transport.h"

#include <stdint.h>

/* The largest number of pairs a map holds (references are 1..this). */
#define SK_PEERMAP_MAX (1u << 24)

typedef struct sk_peermap_ent {
    sk_peer_id pm_tid; /* transport id, 0 when the reference is free */
    uint32_t pm_flags; /* the owner's bits, zero when the pair is made */
    uint32_t pm_next;  /* free list: next free reference, 0 = none */
} sk_peermap_ent;

typedef struct sk_peermap {
    sk_peermap_ent *pm_ents; /* indexed by reference; [0] unused */
    uint32_t pm_cap;         /* entries allocated (references < cap) */
    uint32_t pm_count;       /* pairs in the map */
    uint32_t pm_free_head;   /* oldest free reference, 0 = none */
    uint32_t pm_free_tail;   /* newest free reference */
    uint32_t *pm_slots;      /* hash table of references, 0 = empty */
    uint32_t pm_mask;        /* table size - 1 */
} sk_peermap;

/* sk_peermap_init makes an empty map (no allocation yet). */
void sk_peermap_init(sk_peermap *m);

/* sk_peermap_free releases the map's memory and empties it. */
void sk_peermap_free(sk_peermap *m);

/* sk_peermap_add pairs tid with a free reference, returned in *ref.
 * Returns 0, SK_EEXIST (tid is already paired; *ref is its reference),
 * SK_ELIMIT (SK_PEERMAP_MAX pairs) or SK_ENOMEM. Cost: O(1) amortised. */
int sk_peermap_add(sk_peermap *m, sk_peer_id tid, sk_peer *ref);

/* sk_peermap_find returns in *ref the reference paired with tid. Returns
 * 0 or SK_ENOTFOUND. O(1). */
int sk_peermap_find(const sk_peermap *m, sk_peer_id tid, sk_peer *ref);

/* sk_peermap_tid returns the transport id paired with ref, or 0. O(1). */
sk_peer_id sk_peermap_tid(const sk_peermap *m, sk_peer ref);

/* sk_peermap_flags returns the flag word of ref's pair, or NULL if ref is
 * not paired. Valid until the map next changes. */
uint32_t *sk_peermap_flags(sk_peermap *m, sk_peer ref);

/* sk_peermap_remove unpairs tid; *ref (may be NULL) receives the freed
 * reference. Returns 0 or SK_ENOTFOUND. O(1) expected. */
int sk_peermap_remove(sk_peermap *m, sk_peer_id tid, sk_peer *ref);

#endif /* SK_PEERMAP_H */
