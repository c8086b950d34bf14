/*
 * sk_proto_schema.h - internal to the protocol: the tables that describe
 * each message body field by field, and the engine that encodes a C struct
 * to msgpack and decodes msgpack back into it by walking such a table.
 *
 * Describing the messages as data keeps every check (type, range, length,
 * count) in one engine instead of 22 hand-written decoders, so a check
 * cannot be forgotten in one of them.
 */
#ifndef SK_PROTO_SCHEMA_H
#define SK_PROTO_SCHEMA_H

#include "sk_proto.h"

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

/* What a field holds in the struct and how it looks on the wire. */
typedef enum sk_kind {
    SK_K_BOOL,   /* bool; msgpack true/false */
    SK_K_U8,     /* uint8_t in [f_min, f_max]; msgpack integer */
    SK_K_U32,    /* uint32_t in [f_min, f_max] */
    SK_K_U64,    /* uint64_t in [f_min, f_max] */
    SK_K_I32,    /* int32_t; any int32 */
    SK_K_F64,    /* double in [0, f_dmax], not NaN; msgpack float 32/64 */
    SK_K_STR,    /* const char *, length <= f_max; msgpack str */
    SK_K_BYTES,  /* sk_bytes, length <= f_max; msgpack bin */
    SK_K_STRS,   /* const char ** and a uint32_t count at f_cnt_off,
                    count in [f_min, f_max], each length <= f_len */
    SK_K_ARRAY,  /* a pointer to f_sub structs and a uint32_t count at
                    f_cnt_off, count in [f_min, f_max] */
    SK_K_STRUCT, /* an f_sub struct held inline; a nested msgpack array */
    SK_K_FIXU32, /* uint32_t[f_max] held inline; an array of exactly f_max */
} sk_kind;

struct sk_schema;

/* One field of a message body or nested structure. */
typedef struct sk_field {
    sk_kind f_kind;
    uint32_t f_off;     /* offset of the field in its struct */
    uint32_t f_cnt_off; /* SK_K_STRS, SK_K_ARRAY: offset of the count */
    uint64_t f_min;     /* numbers: lowest value; lists: fewest elements */
    uint64_t f_max;     /* numbers: highest; strings: length; lists: count */
    uint32_t f_len;     /* SK_K_STRS: longest element */
    double f_dmax;      /* SK_K_F64: highest value */
    const struct sk_schema *f_sub; /* SK_K_ARRAY, SK_K_STRUCT */
} sk_field;

/* A struct as an ordered list of fields; s_check, if set, validates what
 * the fields cannot say alone (returns true if consistent). */
typedef struct sk_schema {
    const sk_field *s_fields;
    uint32_t s_nfields;
    uint32_t s_size; /* sizeof the struct, for SK_K_ARRAY elements */
    bool (*s_check)(const void *body);
} sk_schema;

/* sk_schema_encode appends the fields of body, described by schema, to pk
 * as elements of an array that the caller has opened. Returns 0, SK_ELIMIT (a
 * length or count limit), SK_EINVAL (a value out of range, a failed s_check, a
 * NULL list with a non-zero count) or the error the packer's writer recorded in
 * *werr. */
int sk_schema_encode(msgpack_packer *pk, const int *werr,
                     const sk_schema *schema, const void *body);

/* sk_schema_decode decodes the fields of schema from data[0..len) into
 * body (zeroed by the caller), allocating variable-size parts from
 * *arena. The fields are read as the remaining elements of an array that
 * the caller has opened: data starts at the first field. Returns 0 and
 * sets *used to the bytes consumed, or SK_ELIMIT, SK_EPROTO, SK_ENOMEM. On
 * error the caller frees *arena. */
int sk_schema_decode(const uint8_t *data, size_t len, const sk_schema *schema,
                     void *body, struct sk_arena **arena, size_t *used);

/* sk_arena_free releases every chunk of an arena (NULL is allowed). */
void sk_arena_free(struct sk_arena *arena);

/* sk_mp_read_array reads a msgpack array header at data[0..len) into
 * *count and sets *used to its size. Returns 0 or SK_EPROTO. */
int sk_mp_read_array(const uint8_t *data, size_t len, uint32_t *count,
                     size_t *used);

/* sk_mp_read_uint reads a non-negative msgpack integer no larger than max
 * into *value and sets *used to its size. Returns 0 or SK_EPROTO. */
int sk_mp_read_uint(const uint8_t *data, size_t len, uint64_t max,
                    uint64_t *value, size_t *used);

#endif /* SK_PROTO_SCHEMA_H */
