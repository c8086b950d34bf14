/*
 * sched_scratch.c - the scheduler core's bump allocator for the strings
 * and bytes that outgoing messages point to (copied node names, forwarded
 * task output, formatted reasons, status text). Everything in it is
 * dropped at the start of the next call into the core, when the driver
 * has sent the previous outbox.
 */
#include "sched_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES 65536u

struct sched_chunk {
    struct sched_chunk *ch_next;
    size_t ch_size;
    max_align_t ch_align;
    /* ch_size bytes follow */
};

static uint8_t *chunk_data(struct sched_chunk *ch)
{
    return (uint8_t *)(ch + 1);
}

void *sched_scratch_alloc(sched_scratch *s, size_t len)
{
    len = (len + 15) & ~(size_t)15;
    struct sched_chunk *ch = s->sc_chunks;
    if (ch == NULL || ch->ch_size - s->sc_used < len) {
        size_t size = len > CHUNK_BYTES ? len : CHUNK_BYTES;
        struct sched_chunk *n = malloc(sizeof *n + size);
        if (n == NULL)
            return NULL;
        n->ch_size = size;
        n->ch_next = ch;
        s->sc_chunks = n;
        s->sc_used = 0;
        ch = n;
    }
    void *p = chunk_data(ch) + s->sc_used;
    s->sc_used += len;
    return p;
}

const char *sched_scratch_printf(sched_scratch *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return "";
    char *p = sched_scratch_alloc(s, (size_t)n + 1);
    if (p == NULL)
        return "";
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

const char *sched_scratch_strdup(sched_scratch *s, const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = sched_scratch_alloc(s, n);
    if (p == NULL)
        return "";
    memcpy(p, str, n);
    return p;
}

void sched_scratch_reset(sched_scratch *s)
{
    /* Keep one ordinary chunk so that a steady state allocates nothing. */
    struct sched_chunk *keep = NULL;
    struct sched_chunk *ch = s->sc_chunks;
    while (ch != NULL) {
        struct sched_chunk *next = ch->ch_next;
        if (keep == NULL && ch->ch_size == CHUNK_BYTES)
            keep = ch;
        else
            free(ch);
        ch = next;
    }
    if (keep != NULL)
        keep->ch_next = NULL;
    s->sc_chunks = keep;
    s->sc_used = 0;
}

void sched_scratch_free(sched_scratch *s)
{
    struct sched_chunk *ch = s->sc_chunks;
    while (ch != NULL) {
        struct sched_chunk *next = ch->ch_next;
        free(ch);
        ch = next;
    }
    s->sc_chunks = NULL;
    s->sc_used = 0;
}
