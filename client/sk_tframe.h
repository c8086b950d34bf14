/*
 * sk_tframe.h - the transport's own frames: encoding and validation.
 *
 * Internal to libskylark. Every frame starts with a 16-byte header (all
 * integers big-endian):
 *   0  u8  version (SK_TFRAME_VERSION)
 *   1  u8  kind (sk_tframe_kind)
 *   2  u16 reserved, zero
 *   4  u32 seq: the sender's frame number within the session
 *   8  u32 ack: how many frames the sender has received in the session
 *   12 u32 count: DATA: messages in the frame; otherwise zero
 * A DATA body is count records (u32 length, then that many bytes) that fill
 * the frame exactly. A HELLO body is u8 role length, role, u8 name length,
 * name, u64 incarnation. Other kinds have no body. Parsing treats the bytes
 * as hostile: every length is checked before it is used.
 *
 * Sealed sessions (a transport with a cluster key, sk_tauth.h) use version
 * SK_TFRAME_SEALED. Their HELLO bodies go on: the dealer's with its 32-byte
 * nonce; the router's with its own nonce, the dealer's nonce echoed and a
 * 32-byte proof. A dealer holding a user token (sk_token.h) sets the
 * HELLO's count to 1 and appends to its nonce the credential: u8 user
 * length, user, u8 role, u64 expiry, and a 32-byte MAC of the body so far
 * under the token's key. A RESET's count says why a router refused a
 * HELLO (SK_TREFUSE_*). Every other frame but RESET carries its body encrypted
 * and a 16-byte tag after it; sk_tframe_parse is given such a frame once
 * it is opened, without the tag.
 */
#ifndef SK_TFRAME_H
#define SK_TFRAME_H

#include "sk_transport.h"

#include <stddef.h>
#include <stdint.h>

#define SK_TFRAME_VERSION 1  /* the clear frames of an unkeyed transport */
#define SK_TFRAME_SEALED  2  /* the frames of a keyed transport */
#define SK_TFRAME_HDR     16 /* header bytes */
#define SK_TFRAME_REC     4  /* length prefix of each DATA record */
#define SK_TFRAME_HELLO_MAX                                                    \
    (1 + SK_TRANSPORT_MAX_ROLE + 1 + SK_TRANSPORT_MAX_NAME + 8)
#define SK_TFRAME_AUTH 32 /* a nonce, an echoed nonce or a proof */
/* A user credential in a dealer's HELLO, with its MAC. */
#define SK_TFRAME_CRED_MAX (1 + SK_TRANSPORT_MAX_NAME + 1 + 8 + SK_TFRAME_AUTH)
/* Either a dealer's nonce and credential, or a router's three fields. */
#define SK_TFRAME_HELLO_SEALED_MAX                                             \
    (SK_TFRAME_HELLO_MAX + SK_TFRAME_AUTH + SK_TFRAME_CRED_MAX)

typedef enum sk_tframe_kind {
    SK_TF_HELLO = 1,     /* identity; starts a session */
    SK_TF_HEARTBEAT = 2, /* liveness, carries ack */
    SK_TF_DATA = 3,      /* count messages */
    SK_TF_GOODBYE = 4,   /* clean close */
    SK_TF_ACK = 5,       /* acknowledgement only */
    SK_TF_RESET = 6,     /* "no session here": redo the handshake */
} sk_tframe_kind;

/* A parsed frame; pointers refer into the parsed buffer. */
typedef struct sk_tframe {
    uint8_t tf_version; /* SK_TFRAME_VERSION or SK_TFRAME_SEALED */
    uint8_t tf_kind;
    uint32_t tf_seq;
    uint32_t tf_ack;
    uint32_t tf_count;      /* DATA: number of records */
    const uint8_t *tf_body; /* after the header */
    size_t tf_body_len;
    /* HELLO only, NUL-terminated copies: */
    char tf_role[SK_TRANSPORT_MAX_ROLE + 1];
    char tf_name[SK_TRANSPORT_MAX_NAME + 1];
    uint64_t tf_incarnation;
    /* A sealed HELLO: the sender's nonce; a router's also the dealer's
     * nonce echoed and its proof (NULL otherwise). */
    const uint8_t *tf_nonce;
    const uint8_t *tf_echo;
    const uint8_t *tf_proof;
    /* A dealer's sealed HELLO with a user token (count 1): the user, the
     * role (SK_CRED_USER, _ADMIN or _EXECUTOR; 0 without a token), the expiry
     * and the MAC over the body before it, under the token's key. */
    char tf_user[SK_TRANSPORT_MAX_NAME + 1];
    uint8_t tf_cred;
    uint64_t tf_expiry;
    const uint8_t *tf_mac;
} sk_tframe;

/* sk_tframe_header writes a header into buf (SK_TFRAME_HDR bytes) of
 * version SK_TFRAME_VERSION; a sealed session then sets buf[0] to
 * SK_TFRAME_SEALED. */
void sk_tframe_header(uint8_t *buf, sk_tframe_kind kind, uint32_t seq,
                      uint32_t ack, uint32_t count);

/* sk_tframe_hello_body writes the body of a HELLO frame into buf (at
 * least SK_TFRAME_HELLO_MAX bytes) and returns its length. role and name
 * must be valid identifiers (sk_tframe_ident_ok). */
size_t sk_tframe_hello_body(uint8_t *buf, const char *role, const char *name,
                            uint64_t incarnation);

/* sk_tframe_cred_body writes a HELLO's user credential without its MAC
 * (u8 length, user, u8 role, u64 expiry) into buf (at least
 * SK_TFRAME_CRED_MAX bytes) and returns its length. */
size_t sk_tframe_cred_body(uint8_t *buf, const char *user, uint8_t role,
                           uint64_t expiry);

/* sk_tframe_parse validates len bytes at buf as one frame (of either
 * version; a sealed one already opened and without its tag) whose
 * messages are at most max_msg bytes each, filling out. Returns 0, or
 * SK_EPROTO and a static reason in *why. */
int sk_tframe_parse(const uint8_t *buf, size_t len, uint32_t max_msg,
                    sk_tframe *out, const char **why);

/* sk_tframe_ident_ok tells whether len bytes at s form a valid role or
 * name: 1..max bytes of [A-Za-z0-9._:-]. */
int sk_tframe_ident_ok(const char *s, size_t len, size_t max);

/* sk_tframe_put32 / sk_tframe_get32: big-endian u32 at p. */
void sk_tframe_put32(uint8_t *p, uint32_t v);
uint32_t sk_tframe_get32(const uint8_t *p);

#endif /* SK_TFRAME_H */
