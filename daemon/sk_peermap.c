/*
 * sk_peermap.c - transport peer ids <-> core peer references: an entry
 * array indexed by reference with a FIFO free list, and a linear-probing
 * hash table over it keyed by transport id.
 */
#include "sk_peermap.h"
#include "skylark.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void sk_peermap_init(sk_peermap *m)
{
    memset(m, 0, sizeof *m);
}

void sk_peermap_free(sk_peermap *m)
{
    free(m->pm_ents);
    free(m->pm_slots);
    sk_peermap_init(m);
}

static uint32_t hash_tid(sk_peer_id tid)
{
    /* A 64-bit finaliser: transport ids differ mostly in a few bits. */
    tid ^= tid >> 33;
    tid *= 0xff51afd7ed558ccdull;
    tid ^= tid >> 33;
    tid *= 0xc4ceb9fe1a85ec53ull;
    tid ^= tid >> 33;
    return (uint32_t)tid;
}

/* The table slot holding tid, or the empty slot where it would go. */
static uint32_t probe(const sk_peermap *m, sk_peer_id tid)
{
    uint32_t i = hash_tid(tid) & m->pm_mask;
    while (m->pm_slots[i] != 0 && m->pm_ents[m->pm_slots[i]].pm_tid != tid)
        i = (i + 1) & m->pm_mask;
    return i;
}

static int grow_table(sk_peermap *m)
{
    uint32_t size = m->pm_slots == NULL ? 64 : (m->pm_mask + 1) * 2;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (slots == NULL)
        return SK_ENOMEM;
    uint32_t *old = m->pm_slots;
    uint32_t old_size = old == NULL ? 0 : m->pm_mask + 1;
    m->pm_slots = slots;
    m->pm_mask = size - 1;
    for (uint32_t i = 0; i < old_size; i++)
        if (old[i] != 0)
            m->pm_slots[probe(m, m->pm_ents[old[i]].pm_tid)] = old[i];
    free(old);
    return 0;
}

static void free_push(sk_peermap *m, uint32_t ref)
{
    m->pm_ents[ref].pm_next = 0;
    if (m->pm_free_head == 0)
        m->pm_free_head = ref;
    else
        m->pm_ents[m->pm_free_tail].pm_next = ref;
    m->pm_free_tail = ref;
}

static int grow_ents(sk_peermap *m)
{
    if (m->pm_cap >= SK_PEERMAP_MAX + 1)
        return SK_ELIMIT;
    uint32_t cap = m->pm_cap == 0 ? 32 : m->pm_cap * 2;
    if (cap > SK_PEERMAP_MAX + 1)
        cap = SK_PEERMAP_MAX + 1;
    sk_peermap_ent *e = realloc(m->pm_ents, cap * sizeof *e);
    if (e == NULL)
        return SK_ENOMEM;
    memset(e + m->pm_cap, 0, (cap - m->pm_cap) * sizeof *e);
    m->pm_ents = e;
    /* Reference 0 means "none": never hand it out. */
    for (uint32_t r = m->pm_cap == 0 ? 1 : m->pm_cap; r < cap; r++)
        free_push(m, r);
    m->pm_cap = cap;
    return 0;
}

int sk_peermap_add(sk_peermap *m, sk_peer_id tid, sk_peer *ref)
{
    if (m->pm_slots == NULL || (m->pm_count + 1) * 2 > m->pm_mask + 1) {
        int rc = grow_table(m);
        if (rc != 0)
            return rc;
    }
    uint32_t i = probe(m, tid);
    if (m->pm_slots[i] != 0) {
        *ref = m->pm_slots[i];
        return SK_EEXIST;
    }
    if (m->pm_free_head == 0) {
        int rc = grow_ents(m);
        if (rc != 0)
            return rc;
    }
    uint32_t r = m->pm_free_head;
    m->pm_free_head = m->pm_ents[r].pm_next;
    m->pm_ents[r].pm_tid = tid;
    m->pm_ents[r].pm_flags = 0;
    m->pm_ents[r].pm_next = 0;
    m->pm_slots[i] = r;
    m->pm_count++;
    *ref = r;
    return 0;
}

int sk_peermap_find(const sk_peermap *m, sk_peer_id tid, sk_peer *ref)
{
    if (m->pm_slots == NULL || tid == 0)
        return SK_ENOTFOUND;
    uint32_t r = m->pm_slots[probe(m, tid)];
    if (r == 0)
        return SK_ENOTFOUND;
    *ref = r;
    return 0;
}

sk_peer_id sk_peermap_tid(const sk_peermap *m, sk_peer ref)
{
    if (ref == 0 || ref >= m->pm_cap)
        return 0;
    return m->pm_ents[ref].pm_tid;
}

uint32_t *sk_peermap_flags(sk_peermap *m, sk_peer ref)
{
    if (ref == 0 || ref >= m->pm_cap || m->pm_ents[ref].pm_tid == 0)
        return NULL;
    return &m->pm_ents[ref].pm_flags;
}

int sk_peermap_remove(sk_peermap *m, sk_peer_id tid, sk_peer *ref)
{
    if (m->pm_slots == NULL || tid == 0)
        return SK_ENOTFOUND;
    uint32_t i = probe(m, tid);
    uint32_t r = m->pm_slots[i];
    if (r == 0)
        return SK_ENOTFOUND;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & m->pm_mask;
        if (m->pm_slots[j] == 0)
            break;
        uint32_t k = hash_tid(m->pm_ents[m->pm_slots[j]].pm_tid) & m->pm_mask;
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        m->pm_slots[i] = m->pm_slots[j];
        i = j;
    }
    m->pm_slots[i] = 0;
    m->pm_ents[r].pm_tid = 0;
    m->pm_ents[r].pm_flags = 0;
    free_push(m, r);
    m->pm_count--;
    if (ref != NULL)
        *ref = r;
    return 0;
}
