/*
 * test_proto_gen.h - random, valid protocol messages for the protocol's
 * tests, fuzz seed corpora and benchmarks, and a field-by-field comparison
 * of two messages. Written independently of the protocol's schema tables,
 * so that a mistake in a table shows up as a failed round trip.
 */
#ifndef TEST_PROTO_GEN_H
#define TEST_PROTO_GEN_H

#include "sk_proto.h"
#include "sk_rng.h"

#include <stdbool.h>
#include <stddef.h>

/* A generator: a seeded stream and the memory behind the messages it
 * made. */
typedef struct pg {
    sk_rng pg_rng;
    void **pg_ptrs; /* every allocation, freed by pg_free */
    size_t pg_n;
    size_t pg_cap;
    unsigned pg_max_list; /* longest list it makes (default 6) */
} pg;

/* pg_init seeds a generator. */
void pg_init(pg *g, uint64_t seed);

/* pg_free releases everything the generator allocated. */
void pg_free(pg *g);

/* pg_fill sets *msg to a random valid message of the given type, with
 * values spread over each field's whole range (edges included). Its
 * memory lives until pg_free. */
void pg_fill(pg *g, sk_msg_type type, sk_msg *msg);

/* pg_equal compares every field of two messages of the same type,
 * treating a NULL string as "". On a difference it returns false and
 * sets *field to the name of the first differing field. */
bool pg_equal(const sk_msg *a, const sk_msg *b, const char **field);

#endif /* TEST_PROTO_GEN_H */
