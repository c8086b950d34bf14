/*
 * sk_proto_buf.c - the growable byte buffer that protocol encoders write
 * into. It grows geometrically and never past SK_MAX_MSG_BYTES, so an
 * encoder that would build an oversized message stops early instead of
 * allocating it.
 */
#include "sk_proto.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

void sk_buf_init(sk_buf *buf)
{
    buf->b_data = NULL;
    buf->b_len = 0;
    buf->b_cap = 0;
}

/* sk_buf_reserve makes room for extra more bytes after b_len (errors as
 * for sk_buf_append). */
static int sk_buf_reserve(sk_buf *buf, size_t extra)
{
    if (extra > SK_MAX_MSG_BYTES || buf->b_len > SK_MAX_MSG_BYTES - extra)
        return SK_ELIMIT;
    size_t need = buf->b_len + extra;
    if (need <= buf->b_cap)
        return 0;
    size_t cap = buf->b_cap < 256 ? 256 : buf->b_cap;
    while (cap < need)
        cap *= 2;
    if (cap > SK_MAX_MSG_BYTES)
        cap = SK_MAX_MSG_BYTES;
    uint8_t *p = realloc(buf->b_data, cap);
    if (p == NULL)
        return SK_ENOMEM;
    buf->b_data = p;
    buf->b_cap = cap;
    return 0;
}

int sk_buf_append(sk_buf *buf, const void *data, size_t len)
{
    int rc = sk_buf_reserve(buf, len);
    if (rc != 0)
        return rc;
    if (len > 0)
        memcpy(buf->b_data + buf->b_len, data, len);
    buf->b_len += len;
    return 0;
}

void sk_buf_free(sk_buf *buf)
{
    free(buf->b_data);
    sk_buf_init(buf);
}
