/*
 * sk_map.c - 64-bit keys to pointers (see sk_map.h).
 */
#include "sk_map.h"
#include "skylark.h"

#include <stdlib.h>

/* The splitmix64 finaliser: keys such as peer numbers and sequential job
 * ids are far from random, and linear probing needs them spread. */
static uint64_t mix(uint64_t k)
{
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ULL;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebULL;
    k ^= k >> 31;
    return k;
}

static int grow(sk_map *m, uint32_t cap)
{
    uint64_t *keys = malloc((size_t)cap * sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return SK_ENOMEM;
    }
    for (uint32_t i = 0; i < m->mp_cap; i++) {
        if (m->mp_vals[i] == NULL)
            continue;
        uint32_t j = (uint32_t)mix(m->mp_keys[i]) & (cap - 1);
        while (vals[j] != NULL)
            j = (j + 1) & (cap - 1);
        keys[j] = m->mp_keys[i];
        vals[j] = m->mp_vals[i];
    }
    free(m->mp_keys);
    free(m->mp_vals);
    m->mp_keys = keys;
    m->mp_vals = vals;
    m->mp_cap = cap;
    return 0;
}

int sk_map_reserve(sk_map *m, uint32_t extra)
{
    uint64_t need = (uint64_t)m->mp_len + extra;
    if (need > SK_MAP_MAX)
        return SK_ELIMIT;
    uint64_t cap = m->mp_cap ? m->mp_cap : 16;
    while (need * 4 > cap * 3)
        cap *= 2;
    if (cap == m->mp_cap)
        return 0;
    return grow(m, (uint32_t)cap);
}

/* find returns the slot holding key, or the empty slot where it would go.
 * The table is never full, so the probe ends. */
static uint32_t find(const sk_map *m, uint64_t key)
{
    uint32_t i = (uint32_t)mix(key) & (m->mp_cap - 1);
    while (m->mp_vals[i] != NULL && m->mp_keys[i] != key)
        i = (i + 1) & (m->mp_cap - 1);
    return i;
}

int sk_map_put(sk_map *m, uint64_t key, void *val)
{
    if (m->mp_cap > 0) {
        uint32_t i = find(m, key);
        if (m->mp_vals[i] != NULL) {
            m->mp_vals[i] = val;
            return 0;
        }
    }
    int rc = sk_map_reserve(m, 1);
    if (rc != 0)
        return rc;
    uint32_t i = find(m, key);
    m->mp_keys[i] = key;
    m->mp_vals[i] = val;
    m->mp_len++;
    return 0;
}

void *sk_map_get(const sk_map *m, uint64_t key)
{
    if (m->mp_cap == 0)
        return NULL;
    return m->mp_vals[find(m, key)];
}

void sk_map_prefetch(const sk_map *m, uint64_t key)
{
    if (m->mp_cap == 0)
        return;
    uint32_t i = (uint32_t)mix(key) & (m->mp_cap - 1);
    __builtin_prefetch(&m->mp_keys[i]);
    __builtin_prefetch(&m->mp_vals[i]);
}

void *sk_map_del(sk_map *m, uint64_t key)
{
    if (m->mp_cap == 0)
        return NULL;
    uint32_t mask = m->mp_cap - 1;
    uint32_t i = find(m, key);
    void *val = m->mp_vals[i];
    if (val == NULL)
        return NULL;
    /* Backward shift: pull later entries of the probe run into the hole
     * unless their home slot lies cyclically after the hole. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & mask; m->mp_vals[j] != NULL;
         j = (j + 1) & mask) {
        uint32_t home = (uint32_t)mix(m->mp_keys[j]) & mask;
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->mp_keys[hole] = m->mp_keys[j];
            m->mp_vals[hole] = m->mp_vals[j];
            hole = j;
        }
    }
    m->mp_vals[hole] = NULL;
    m->mp_len--;
    return val;
}

void *sk_map_next(const sk_map *m, uint32_t *pos, uint64_t *key)
{
    for (; *pos < m->mp_cap; (*pos)++) {
        if (m->mp_vals[*pos] != NULL) {
            if (key != NULL)
                *key = m->mp_keys[*pos];
            return m->mp_vals[(*pos)++];
        }
    }
    return NULL;
}

void sk_map_free(sk_map *m)
{
    free(m->mp_keys);
    free(m->mp_vals);
    m->mp_keys = NULL;
    m->mp_vals = NULL;
    m->mp_cap = 0;
    m->mp_len = 0;
}
