/*
 * nm_htab.c - the node monitor's intrusive chained hash table.
 */
#include "nm_htab.h"

#include <stdlib.h>
#include <string.h>

void nm_htab_init(nm_htab *t)
{
    memset(t->ht_small, 0, sizeof t->ht_small);
    t->ht_buckets = t->ht_small;
    t->ht_nbuckets = NM_HTAB_SMALL;
    t->ht_count = 0;
}

void nm_htab_fini(nm_htab *t)
{
    if (t->ht_buckets != t->ht_small)
        free(t->ht_buckets);
    t->ht_buckets = NULL;
    t->ht_nbuckets = 0;
    t->ht_count = 0;
}

static void grow(nm_htab *t)
{
    size_t n = t->ht_nbuckets * 2;
    nm_hnode **b = calloc(n, sizeof *b);
    if (b == NULL)
        return;
    for (size_t i = 0; i < t->ht_nbuckets; i++) {
        nm_hnode *node = t->ht_buckets[i];
        while (node != NULL) {
            nm_hnode *next = node->hn_next;
            size_t j = node->hn_hash & (n - 1);
            node->hn_next = b[j];
            b[j] = node;
            node = next;
        }
    }
    if (t->ht_buckets != t->ht_small)
        free(t->ht_buckets);
    t->ht_buckets = b;
    t->ht_nbuckets = n;
}

void nm_htab_insert(nm_htab *t, nm_hnode *node, uint64_t hash)
{
    if (t->ht_count >= t->ht_nbuckets)
        grow(t);
    size_t i = hash & (t->ht_nbuckets - 1);
    node->hn_hash = hash;
    node->hn_next = t->ht_buckets[i];
    t->ht_buckets[i] = node;
    t->ht_count++;
}

void nm_htab_remove(nm_htab *t, nm_hnode *node)
{
    nm_hnode **pp = &t->ht_buckets[node->hn_hash & (t->ht_nbuckets - 1)];
    while (*pp != node)
        pp = &(*pp)->hn_next;
    *pp = node->hn_next;
    node->hn_next = NULL;
    t->ht_count--;
}

nm_hnode *nm_htab_find(const nm_htab *t, uint64_t hash)
{
    nm_hnode *node = t->ht_buckets[hash & (t->ht_nbuckets - 1)];
    while (node != NULL && node->hn_hash != hash)
        node = node->hn_next;
    return node;
}

nm_hnode *nm_htab_next(const nm_hnode *node)
{
    nm_hnode *n = node->hn_next;
    while (n != NULL && n->hn_hash != node->hn_hash)
        n = n->hn_next;
    return n;
}

uint64_t nm_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return nm_hash_mix(h, 0);
}
