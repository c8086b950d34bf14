/*
 * sim_jobmap.c - jobs in flight by number (see sim_jobmap.h).
 */
#include "sim_jobmap.h"

#include "skylark.h"

#include <stdlib.h>

static uint32_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static uint32_t jm_find(const sim_jobmap *m, uint64_t key)
{
    uint32_t i = mix(key) & (m->jm_cap - 1);
    while (m->jm_vals[i] != NULL && m->jm_keys[i] != key)
        i = (i + 1) & (m->jm_cap - 1);
    return i;
}

int sim_jobmap_put(sim_jobmap *m, uint64_t key, void *v)
{
    if ((m->jm_len + 1) * 4 > m->jm_cap * 3) {
        sim_jobmap n = {0};
        n.jm_cap = m->jm_cap ? m->jm_cap * 2 : 256;
        n.jm_keys = malloc(n.jm_cap * sizeof *n.jm_keys);
        n.jm_vals = calloc(n.jm_cap, sizeof *n.jm_vals);
        if (n.jm_keys == NULL || n.jm_vals == NULL) {
            free(n.jm_keys);
            free(n.jm_vals);
            return SK_ENOMEM;
        }
        for (uint32_t i = 0; i < m->jm_cap; i++)
            if (m->jm_vals[i] != NULL) {
                uint32_t k = jm_find(&n, m->jm_keys[i]);
                n.jm_keys[k] = m->jm_keys[i];
                n.jm_vals[k] = m->jm_vals[i];
            }
        n.jm_len = m->jm_len;
        free(m->jm_keys);
        free(m->jm_vals);
        *m = n;
    }
    uint32_t i = jm_find(m, key);
    if (m->jm_vals[i] == NULL)
        m->jm_len++;
    m->jm_keys[i] = key;
    m->jm_vals[i] = v;
    return 0;
}

void *sim_jobmap_get(const sim_jobmap *m, uint64_t key)
{
    return m->jm_cap ? m->jm_vals[jm_find(m, key)] : NULL;
}

void sim_jobmap_del(sim_jobmap *m, uint64_t key)
{
    if (m->jm_cap == 0)
        return;
    uint32_t i = jm_find(m, key), mask = m->jm_cap - 1;
    if (m->jm_vals[i] == NULL)
        return;
    m->jm_vals[i] = NULL;
    m->jm_len--;
    for (uint32_t j = (i + 1) & mask; m->jm_vals[j] != NULL;
         j = (j + 1) & mask) {
        uint32_t home = mix(m->jm_keys[j]) & mask;
        /* Move j back to the hole if its home is not within (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->jm_keys[i] = m->jm_keys[j];
            m->jm_vals[i] = m->jm_vals[j];
            m->jm_vals[j] = NULL;
            i = j;
        }
    }
}

void sim_jobmap_fini(sim_jobmap *m)
{
    free(m->jm_keys);
    free(m->jm_vals);
    m->jm_keys = NULL;
    m->jm_vals = NULL;
    m->jm_cap = m->jm_len = 0;
}
