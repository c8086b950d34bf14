/*
 * sk_idmap.c - nonzero 64-bit ids to pointers (see sk_idmap.h).
 */
#include "sk_idmap.h"

#include "skylark.h"

#include <stdlib.h>

/* Ids are often sequential: mix them so that neighbours spread out. */
static size_t home(const sk_idmap *m, uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (m->im_cap - 1);
}

void *sk_idmap_get(const sk_idmap *m, uint64_t key)
{
    if (m->im_cap == 0 || key == 0)
        return NULL;
    for (size_t i = home(m, key);; i = (i + 1) & (m->im_cap - 1)) {
        if (m->im_slots[i].is_key == key)
            return m->im_slots[i].is_val;
        if (m->im_slots[i].is_key == 0)
            return NULL;
    }
}

static void place(sk_idmap *m, uint64_t key, void *val)
{
    size_t i = home(m, key);
    while (m->im_slots[i].is_key != 0 && m->im_slots[i].is_key != key)
        i = (i + 1) & (m->im_cap - 1);
    if (m->im_slots[i].is_key == 0)
        m->im_count++;
    m->im_slots[i].is_key = key;
    m->im_slots[i].is_val = val;
}

static int grow(sk_idmap *m)
{
    size_t ncap = m->im_cap != 0 ? m->im_cap * 2 : 16;
    sk_idmap_slot *ns = calloc(ncap, sizeof *ns);
    if (ns == NULL)
        return SK_ENOMEM;
    sk_idmap old = *m;
    m->im_slots = ns;
    m->im_cap = ncap;
    m->im_count = 0;
    for (size_t i = 0; i < old.im_cap; i++)
        if (old.im_slots[i].is_key != 0)
            place(m, old.im_slots[i].is_key, old.im_slots[i].is_val);
    free(old.im_slots);
    return 0;
}

int sk_idmap_put(sk_idmap *m, uint64_t key, void *val)
{
    if (key == 0)
        return SK_EINVAL;
    if ((m->im_count + 1) * 2 > m->im_cap && grow(m) != 0)
        return SK_ENOMEM;
    place(m, key, val);
    return 0;
}

void *sk_idmap_del(sk_idmap *m, uint64_t key)
{
    if (m->im_cap == 0 || key == 0)
        return NULL;
    size_t mask = m->im_cap - 1, i = home(m, key);
    while (m->im_slots[i].is_key != key) {
        if (m->im_slots[i].is_key == 0)
            return NULL;
        i = (i + 1) & mask;
    }
    void *val = m->im_slots[i].is_val;
    /* Shift later members of the probe run back over the hole, so that
     * lookups never stop early at it. */
    for (size_t j = (i + 1) & mask; m->im_slots[j].is_key != 0;
         j = (j + 1) & mask) {
        size_t h = home(m, m->im_slots[j].is_key);
        /* j may move to i only if its home is not in (i, j]. */
        int between = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!between) {
            m->im_slots[i] = m->im_slots[j];
            i = j;
        }
    }
    m->im_slots[i].is_key = 0;
    m->im_slots[i].is_val = NULL;
    m->im_count--;
    return val;
}

void *sk_idmap_next(const sk_idmap *m, size_t *pos, uint64_t *key)
{
    for (; *pos < m->im_cap; (*pos)++) {
        if (m->im_slots[*pos].is_key != 0) {
            if (key != NULL)
                *key = m->im_slots[*pos].is_key;
            return m->im_slots[(*pos)++].is_val;
        }
    }
    return NULL;
}

void sk_idmap_free(sk_idmap *m)
{
    free(m->im_slots);
    m->im_slots = NULL;
    m->im_cap = 0;
    m->im_count = 0;
}
