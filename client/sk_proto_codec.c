/*
 * sk_proto_codec.c - the engine of the wire protocol: encodes a struct
 * described by an sk_schema with msgpack-c's packer, and decodes it back
 * with a small bounds-checked reader of the msgpack format.
 *
 * Why a hand-written reader instead of msgpack_unpack_next: the unpacker
 * builds a tree of msgpack_object in a zone sized from the declared
 * lengths and counts of the input, before we can hold them against our
 * limits, and then we would walk that tree anyway. Reading the few
 * msgpack forms we use straight from the bytes lets every declared length
 * and count be checked against its limit and against the bytes actually
 * left before anything is allocated, needs no intermediate tree, and
 * copies each string once into the message's own arena. Nesting is bounded
 * by the schema, never by the input.
 *
 * Decoded variable-size parts live in an arena: a list of chunks owned by
 * the sk_msg and freed together by sk_msg_free.
 */
#include "sk_proto_schema.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

/* A chunk of decoded data; chunks form a list, newest first. */
struct sk_arena {
    struct sk_arena *a_next;
    size_t a_used;         /* bytes handed out from a_data */
    size_t a_cap;          /* bytes in a_data */
    max_align_t a_align[]; /* start of a_data, suitably aligned */
};

#define ARENA_MIN_CHUNK 1024u
#define ARENA_MAX_FIRST (1u << 20) /* doubling takes over from there */

/* Returns size bytes aligned to align (a power of two) from *arena,
 * adding a chunk when needed; the first chunk holds at least first bytes. */
static void *arena_alloc(struct sk_arena **arena, size_t size, size_t align,
                         size_t first)
{
    struct sk_arena *a = *arena;
    if (a != NULL) {
        size_t at = (a->a_used + align - 1) & ~(align - 1);
        if (at <= a->a_cap && size <= a->a_cap - at) {
            a->a_used = at + size;
            return (uint8_t *)a->a_align + at;
        }
    }
    /* Doubling keeps the number of chunks logarithmic in the message. */
    size_t cap = a != NULL ? a->a_cap * 2 : first;
    if (cap < ARENA_MIN_CHUNK)
        cap = ARENA_MIN_CHUNK;
    if (cap < size)
        cap = size;
    struct sk_arena *n = malloc(sizeof *n + cap);
    if (n == NULL)
        return NULL;
    n->a_next = a;
    n->a_used = size;
    n->a_cap = cap;
    *arena = n;
    return n->a_align;
}

void sk_arena_free(struct sk_arena *arena)
{
    while (arena != NULL) {
        struct sk_arena *next = arena->a_next;
        free(arena);
        arena = next;
    }
}

/* ---- encoding ---- */

static int pack_done(int rc, const int *werr)
{
    if (rc == 0)
        return 0;
    return *werr != 0 ? *werr : SK_ENOMEM;
}

static int enc_str(msgpack_packer *pk, const int *werr, const char *s,
                   uint64_t max)
{
    if (s == NULL)
        s = "";
    size_t len = strlen(s);
    if (len > max)
        return SK_ELIMIT;
    int rc = msgpack_pack_str(pk, len);
    if (rc == 0)
        rc = msgpack_pack_str_body(pk, s, len);
    return pack_done(rc, werr);
}

/* Checks a list's count and pointer, and packs its array header. */
static int enc_list_head(msgpack_packer *pk, const int *werr, const sk_field *f,
                         const void *list, uint32_t count)
{
    if (count > f->f_max)
        return SK_ELIMIT;
    if (count < f->f_min || (list == NULL && count > 0))
        return SK_EINVAL;
    return pack_done(msgpack_pack_array(pk, count), werr);
}

/* Encodes a nested structure: an array of its fields. */
static int enc_nested(msgpack_packer *pk, const int *werr,
                      const sk_schema *schema, const void *body)
{
    int rc = pack_done(msgpack_pack_array(pk, schema->s_nfields), werr);
    return rc != 0 ? rc : sk_schema_encode(pk, werr, schema, body);
}

static int enc_field(msgpack_packer *pk, const int *werr, const sk_field *f,
                     const uint8_t *base)
{
    const void *p = base + f->f_off;
    uint64_t u;
    int rc;
    switch (f->f_kind) {
    case SK_K_BOOL:
        return pack_done(*(const bool *)p ? msgpack_pack_true(pk)
                                          : msgpack_pack_false(pk),
                         werr);
    case SK_K_U8:
    case SK_K_U32:
    case SK_K_U64:
        u = f->f_kind == SK_K_U8    ? *(const uint8_t *)p
            : f->f_kind == SK_K_U32 ? *(const uint32_t *)p
                                    : *(const uint64_t *)p;
        if (u < f->f_min || u > f->f_max)
            return SK_EINVAL;
        return pack_done(msgpack_pack_uint64(pk, u), werr);
    case SK_K_I32:
        return pack_done(msgpack_pack_int32(pk, *(const int32_t *)p), werr);
    case SK_K_F64: {
        double d = *(const double *)p;
        if (!(d >= 0.0 && d <= f->f_dmax))
            return SK_EINVAL;
        return pack_done(msgpack_pack_double(pk, d), werr);
    }
    case SK_K_STR:
        return enc_str(pk, werr, *(const char *const *)p, f->f_max);
    case SK_K_BYTES: {
        const sk_bytes *b = p;
        if (b->b_len > f->f_max)
            return SK_ELIMIT;
        if (b->b_data == NULL && b->b_len > 0)
            return SK_EINVAL;
        rc = msgpack_pack_bin(pk, b->b_len);
        if (rc == 0 && b->b_len > 0)
            rc = msgpack_pack_bin_body(pk, b->b_data, b->b_len);
        return pack_done(rc, werr);
    }
    case SK_K_STRS: {
        const char *const *v = *(const char *const *const *)p;
        uint32_t n = *(const uint32_t *)(base + f->f_cnt_off);
        if ((rc = enc_list_head(pk, werr, f, v, n)) != 0)
            return rc;
        for (uint32_t i = 0; i < n; i++)
            if ((rc = enc_str(pk, werr, v[i], f->f_len)) != 0)
                return rc;
        return 0;
    }
    case SK_K_ARRAY: {
        const uint8_t *v = *(const uint8_t *const *)p;
        uint32_t n = *(const uint32_t *)(base + f->f_cnt_off);
        if ((rc = enc_list_head(pk, werr, f, v, n)) != 0)
            return rc;
        for (uint32_t i = 0; i < n; i++) {
            rc = enc_nested(pk, werr, f->f_sub,
                            v + (size_t)i * f->f_sub->s_size);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    case SK_K_STRUCT:
        return enc_nested(pk, werr, f->f_sub, p);
    case SK_K_FIXU32: {
        const uint32_t *v = p;
        if ((rc = pack_done(msgpack_pack_array(pk, f->f_max), werr)) != 0)
            return rc;
        for (uint32_t i = 0; i < f->f_max; i++)
            if ((rc = pack_done(msgpack_pack_uint32(pk, v[i]), werr)) != 0)
                return rc;
        return 0;
    }
    }
    return SK_EINVAL;
}

int sk_schema_encode(msgpack_packer *pk, const int *werr,
                     const sk_schema *schema, const void *body)
{
    if (schema->s_check != NULL && !schema->s_check(body))
        return SK_EINVAL;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < schema->s_nfields; i++)
        rc = enc_field(pk, werr, &schema->s_fields[i], body);
    return rc;
}

/* ---- decoding ---- */

/* A read position in hostile input, and where decoded data goes. */
typedef struct cursor {
    const uint8_t *c_p;
    const uint8_t *c_end;
    struct sk_arena **c_arena;
    size_t c_first; /* size of the first arena chunk */
} cursor;

/* Allocates decoded data. Strings and bytes together never exceed the
 * input, so a first chunk of twice its size usually holds everything. */
static void *cur_alloc(cursor *c, size_t size, size_t align)
{
    return arena_alloc(c->c_arena, size, align, c->c_first);
}

static size_t left(const cursor *c)
{
    return (size_t)(c->c_end - c->c_p);
}

static uint64_t load_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Reads a big-endian length or value of n bytes after the tag byte. */
static int take_be(cursor *c, unsigned n, uint64_t *v)
{
    if (left(c) < n)
        return SK_EPROTO;
    *v = load_be(c->c_p, n);
    c->c_p += n;
    return 0;
}

/* Reads any msgpack integer as a sign and a magnitude: a value is
 * -(int64)mag when *neg, else mag. */
static int read_int(cursor *c, bool *neg, uint64_t *mag)
{
    if (left(c) < 1)
        return SK_EPROTO;
    uint8_t t = *c->c_p++;
    uint64_t v;
    *neg = false;
    if (t <= 0x7f) {
        *mag = t;
        return 0;
    }
    if (t >= 0xe0) {
        *neg = true;
        *mag = (uint64_t)(0x100 - t);
        return 0;
    }
    if (t >= 0xcc && t <= 0xcf) {
        if (take_be(c, 1u << (t - 0xcc), &v) != 0)
            return SK_EPROTO;
        *mag = v;
        return 0;
    }
    if (t >= 0xd0 && t <= 0xd3) {
        unsigned n = 1u << (t - 0xd0);
        if (take_be(c, n, &v) != 0)
            return SK_EPROTO;
        uint64_t sign = (uint64_t)1 << (n * 8 - 1);
        if (v & sign) {
            /* Two's complement magnitude of an n-byte negative value. */
            *neg = true;
            *mag = n == 8 ? ~v + 1 : (sign << 1) - v;
        } else {
            *mag = v;
        }
        return 0;
    }
    return SK_EPROTO;
}

static int read_uint(cursor *c, uint64_t min, uint64_t max, uint64_t *out)
{
    bool neg;
    uint64_t mag;
    if (read_int(c, &neg, &mag) != 0)
        return SK_EPROTO;
    if (neg || mag < min || mag > max)
        return SK_EPROTO;
    *out = mag;
    return 0;
}

/* Reads an array header and checks the count against [min, max] (over max:
 * SK_ELIMIT) and against the bytes left, as every element takes one. */
static int read_array(cursor *c, uint64_t min, uint64_t max, uint32_t *count)
{
    if (left(c) < 1)
        return SK_EPROTO;
    uint8_t t = *c->c_p++;
    uint64_t n;
    if (t >= 0x90 && t <= 0x9f)
        n = t & 0x0f;
    else if (t == 0xdc || t == 0xdd) {
        if (take_be(c, t == 0xdc ? 2 : 4, &n) != 0)
            return SK_EPROTO;
    } else
        return SK_EPROTO;
    if (n > max)
        return SK_ELIMIT;
    if (n < min || n > left(c))
        return SK_EPROTO;
    *count = (uint32_t)n;
    return 0;
}

/* Reads a str (is_bin false) or bin header and body of at most max bytes,
 * leaving *p pointing at the body inside the input. */
static int read_blob(cursor *c, bool is_bin, uint64_t max, const uint8_t **p,
                     uint32_t *len)
{
    if (left(c) < 1)
        return SK_EPROTO;
    uint8_t t = *c->c_p++;
    uint64_t n;
    if (!is_bin && t >= 0xa0 && t <= 0xbf)
        n = t & 0x1f;
    else if ((!is_bin && t >= 0xd9 && t <= 0xdb) ||
             (is_bin && t >= 0xc4 && t <= 0xc6)) {
        unsigned w = 1u << (t - (is_bin ? 0xc4 : 0xd9));
        if (take_be(c, w, &n) != 0)
            return SK_EPROTO;
    } else
        return SK_EPROTO;
    if (n > max)
        return SK_ELIMIT;
    if (n > left(c))
        return SK_EPROTO;
    *p = c->c_p;
    *len = (uint32_t)n;
    c->c_p += n;
    return 0;
}

static int read_str(cursor *c, uint64_t max, const char **out)
{
    const uint8_t *p;
    uint32_t n;
    int rc = read_blob(c, false, max, &p, &n);
    if (rc != 0)
        return rc;
    if (n == 0) {
        *out = "";
        return 0;
    }
    /* A NUL inside would silently truncate the C string. */
    if (memchr(p, 0, n) != NULL)
        return SK_EPROTO;
    char *s = cur_alloc(c, (size_t)n + 1, 1);
    if (s == NULL)
        return SK_ENOMEM;
    memcpy(s, p, n);
    s[n] = '\0';
    *out = s;
    return 0;
}

static int dec_struct(cursor *c, const sk_schema *s, uint8_t *body);

/* Decodes a nested structure: an array of exactly its field count. */
static int dec_nested(cursor *c, const sk_schema *s, uint8_t *body)
{
    uint32_t n;
    int rc = read_array(c, s->s_nfields, s->s_nfields, &n);
    if (rc != 0)
        return rc == SK_ELIMIT ? SK_EPROTO : rc;
    return dec_struct(c, s, body);
}

static int dec_field(cursor *c, const sk_field *f, uint8_t *base)
{
    void *p = base + f->f_off;
    uint64_t u;
    uint32_t n;
    int rc;
    switch (f->f_kind) {
    case SK_K_BOOL:
        if (left(c) < 1 || (*c->c_p != 0xc2 && *c->c_p != 0xc3))
            return SK_EPROTO;
        *(bool *)p = *c->c_p++ == 0xc3;
        return 0;
    case SK_K_U8:
    case SK_K_U32:
    case SK_K_U64:
        if (read_uint(c, f->f_min, f->f_max, &u) != 0)
            return SK_EPROTO;
        if (f->f_kind == SK_K_U8)
            *(uint8_t *)p = (uint8_t)u;
        else if (f->f_kind == SK_K_U32)
            *(uint32_t *)p = (uint32_t)u;
        else
            *(uint64_t *)p = u;
        return 0;
    case SK_K_I32: {
        bool neg;
        if (read_int(c, &neg, &u) != 0)
            return SK_EPROTO;
        if (neg ? u > (uint64_t)INT32_MAX + 1 : u > INT32_MAX)
            return SK_EPROTO;
        *(int32_t *)p = neg ? (int32_t)(-(int64_t)u) : (int32_t)u;
        return 0;
    }
    case SK_K_F64: {
        double d;
        if (left(c) >= 5 && *c->c_p == 0xca) {
            uint32_t bits = (uint32_t)load_be(c->c_p + 1, 4);
            float fl;
            memcpy(&fl, &bits, sizeof fl);
            d = fl;
            c->c_p += 5;
        } else if (left(c) >= 9 && *c->c_p == 0xcb) {
            uint64_t bits = load_be(c->c_p + 1, 8);
            memcpy(&d, &bits, sizeof d);
            c->c_p += 9;
        } else
            return SK_EPROTO;
        if (!(d >= 0.0 && d <= f->f_dmax))
            return SK_EPROTO;
        *(double *)p = d;
        return 0;
    }
    case SK_K_STR:
        return read_str(c, f->f_max, (const char **)p);
    case SK_K_BYTES: {
        sk_bytes *b = p;
        const uint8_t *src;
        if ((rc = read_blob(c, true, f->f_max, &src, &n)) != 0)
            return rc;
        if (n > 0) {
            uint8_t *dst = cur_alloc(c, n, 1);
            if (dst == NULL)
                return SK_ENOMEM;
            memcpy(dst, src, n);
            b->b_data = dst;
        }
        b->b_len = n;
        return 0;
    }
    case SK_K_STRS: {
        if ((rc = read_array(c, f->f_min, f->f_max, &n)) != 0)
            return rc;
        const char **v = NULL;
        if (n > 0) {
            v = cur_alloc(c, (size_t)n * sizeof *v, _Alignof(const char *));
            if (v == NULL)
                return SK_ENOMEM;
        }
        for (uint32_t i = 0; i < n; i++)
            if ((rc = read_str(c, f->f_len, &v[i])) != 0)
                return rc;
        *(const char ***)p = v;
        *(uint32_t *)(base + f->f_cnt_off) = n;
        return 0;
    }
    case SK_K_ARRAY: {
        if ((rc = read_array(c, f->f_min, f->f_max, &n)) != 0)
            return rc;
        uint8_t *v = NULL;
        size_t sz = f->f_sub->s_size;
        if (n > 0) {
            v = cur_alloc(c, (size_t)n * sz, _Alignof(max_align_t));
            if (v == NULL)
                return SK_ENOMEM;
            memset(v, 0, (size_t)n * sz);
        }
        for (uint32_t i = 0; i < n; i++)
            if ((rc = dec_nested(c, f->f_sub, v + (size_t)i * sz)) != 0)
                return rc;
        *(uint8_t **)p = v;
        *(uint32_t *)(base + f->f_cnt_off) = n;
        return 0;
    }
    case SK_K_STRUCT:
        return dec_nested(c, f->f_sub, p);
    case SK_K_FIXU32: {
        uint32_t *v = p;
        if ((rc = read_array(c, f->f_max, f->f_max, &n)) != 0)
            return rc == SK_ELIMIT ? SK_EPROTO : rc;
        for (uint32_t i = 0; i < n; i++) {
            if (read_uint(c, 0, UINT32_MAX, &u) != 0)
                return SK_EPROTO;
            v[i] = (uint32_t)u;
        }
        return 0;
    }
    }
    return SK_EPROTO;
}

static int dec_struct(cursor *c, const sk_schema *s, uint8_t *body)
{
    for (uint32_t i = 0; i < s->s_nfields; i++) {
        int rc = dec_field(c, &s->s_fields[i], body);
        if (rc != 0)
            return rc;
    }
    if (s->s_check != NULL && !s->s_check(body))
        return SK_EPROTO;
    return 0;
}

int sk_schema_decode(const uint8_t *data, size_t len, const sk_schema *schema,
                     void *body, struct sk_arena **arena, size_t *used)
{
    size_t first = len < ARENA_MAX_FIRST / 2 ? len * 2 : ARENA_MAX_FIRST;
    cursor c = {data, data + len, arena, first};
    int rc = dec_struct(&c, schema, body);
    if (rc == 0)
        *used = (size_t)(c.c_p - data);
    return rc;
}

int sk_mp_read_array(const uint8_t *data, size_t len, uint32_t *count,
                     size_t *used)
{
    cursor c = {data, data + len, NULL, 0};
    int rc = read_array(&c, 0, UINT32_MAX, count);
    if (rc == 0)
        *used = (size_t)(c.c_p - data);
    return rc;
}

int sk_mp_read_uint(const uint8_t *data, size_t len, uint64_t max,
                    uint64_t *value, size_t *used)
{
    cursor c = {data, data + len, NULL, 0};
    int rc = read_uint(&c, 0, max, value);
    if (rc == 0)
        *used = (size_t)(c.c_p - data);
    return rc;
}
