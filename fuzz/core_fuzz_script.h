/*
 * core_fuzz_script.h - what the core fuzz drivers share: a cursor that
 * reads fuzz bytes as small numbers, the round trip that turns a message
 * the driver built into what a core would receive from the wire, and the
 * check that a core's output encodes.
 */
#ifndef CORE_FUZZ_SCRIPT_H
#define CORE_FUZZ_SCRIPT_H

#include "sk_core.h"
#include "sk_proto.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes not yet read; reading past the end yields zeros. */
typedef struct cf_script {
    const uint8_t *cs_p;
    size_t cs_left;
} cf_script;

/* cf_byte reads one byte. */
static inline uint32_t cf_byte(cf_script *s)
{
    if (s->cs_left == 0)
        return 0;
    s->cs_left--;
    return *s->cs_p++;
}

/* cf_below reads a number in [0, n), 1 <= n <= 65536. */
static inline uint32_t cf_below(cf_script *s, uint32_t n)
{
    uint32_t v = cf_byte(s);
    if (n > 256)
        v = v << 8 | cf_byte(s);
    return v % n;
}

/* cf_pick reads an index into an array of n elements (n >= 1). */
#define cf_pick(s, arr) ((arr)[cf_below((s), sizeof(arr) / sizeof((arr)[0]))])

/* cf_wire encodes m and decodes the bytes into *out, as a core's driver
 * would receive them. Returns 0, or the error of the encoder or decoder
 * (the driver then skips the input: the wire would never carry it). The
 * caller frees *out with sk_msg_free. */
int cf_wire(const sk_msg *m, sk_msg *out);

/* cf_check_encodes aborts unless every message in ob encodes. */
void cf_check_encodes(const sk_outbox *ob);

/* cf_fail reports a broken promise on stderr and aborts. */
_Noreturn void cf_fail(const char *what, unsigned long long a,
                       unsigned long long b);

#endif /* CORE_FUZZ_SCRIPT_H */
