/*
 * nm_pool.c - a node monitor core's free list for one kind of record.
 */
#include "nm_pool.h"

#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer every record goes back to malloc, so that a use
 * after free is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define NM_POOL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NM_POOL_SANITIZED 1
#endif
#endif

void nm_pool_init(nm_pool *p, size_t size, uint32_t max)
{
#ifdef NM_POOL_SANITIZED
    max = 0;
#endif
    p->pl_free = NULL;
    p->pl_size = size < sizeof(void *) ? sizeof(void *) : size;
    p->pl_len = 0;
    p->pl_max = max;
}

void *nm_pool_get(nm_pool *p)
{
    void *rec = p->pl_free;
    if (rec == NULL)
        return calloc(1, p->pl_size);
    memcpy(&p->pl_free, rec, sizeof(void *));
    p->pl_len--;
    memset(rec, 0, p->pl_size);
    return rec;
}

void nm_pool_put(nm_pool *p, void *rec)
{
    if (rec == NULL)
        return;
    if (p->pl_len == p->pl_max) {
        free(rec);
        return;
    }
    memcpy(rec, &p->pl_free, sizeof(void *));
    p->pl_free = rec;
    p->pl_len++;
}

void nm_pool_fini(nm_pool *p)
{
    while (p->pl_free != NULL) {
        void *rec = p->pl_free;
        memcpy(&p->pl_free, rec, sizeof(void *));
        free(rec);
    }
    p->pl_len = 0;
}
