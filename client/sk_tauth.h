/*
 * sk_tauth.h - the cryptography of authenticated transport sessions, on
 * libsodium (no primitive is written here).
 *
 * Internal to libskylark. A cluster shares one 32-byte key. A session
 * starts with two HELLO frames in the clear: the dealer's carries a fresh
 * 32-byte nonce, the router's its own fresh nonce, the dealer's nonce
 * echoed, and a proof. Both sides derive from the key and the two HELLO
 * bodies (the transcript: identities, incarnations, nonces) a session
 * secret, and from it the router's proof and one frame key per direction:
 *
 *   secret = BLAKE2b-256(key = cluster key, "skylark transport 2" || D || R)
 *   proof, key d->r, key r->d = crypto_kdf(secret, ids 1, 2, 3, "sktransp")
 *
 * where D is the dealer's HELLO body and R the router's without its proof.
 * The dealer checks the proof (the router holds the key, and answered this
 * HELLO: the nonce is fresh); the router accepts the session only when the
 * dealer's first frame opens under the d->r key (the dealer holds the key,
 * and answered this HELLO: the router's nonce is fresh). Every frame after
 * the HELLOs is sealed with ChaCha20-Poly1305 (IETF): the 16-byte header
 * is authenticated data, the body is encrypted in place, a 16-byte tag
 * follows it, and the nonce is the frame's sequence number. Keys change
 * with every session and sequence numbers never repeat within one, so no
 * nonce is used twice under a key; a frame replayed, reordered, cut or
 * altered does not open (its seq is not the next one expected, or the tag
 * fails).
 *
 * A dealer with a user token (sk_token.h) uses the token's key where the
 * cluster key stands above; the router computes the same key from the
 * cluster key and the credential the dealer's HELLO names.
 */
#ifndef SK_TAUTH_H
#define SK_TAUTH_H

#include <stddef.h>
#include <stdint.h>

#define SK_TAUTH_KEY   32 /* cluster key and frame keys, bytes */
#define SK_TAUTH_NONCE 32 /* HELLO nonce */
#define SK_TAUTH_PROOF 32 /* the router's proof */
#define SK_TAUTH_TAG   16 /* Poly1305 tag after a sealed body */

/* Frames a side may seal in one session: past this the session is redone
 * with new keys, so that no sequence number, the nonce, repeats. */
#define SK_TAUTH_SEQ_LIMIT 0xfffff000u

/* The keys of one session as one side sees them. */
typedef struct sk_tauth_keys {
    uint8_t ak_proof[SK_TAUTH_PROOF]; /* what the router's HELLO carries */
    uint8_t ak_tx[SK_TAUTH_KEY];      /* seals the frames we send */
    uint8_t ak_rx[SK_TAUTH_KEY];      /* opens the frames we receive */
} sk_tauth_keys;

/* sk_tauth_init initialises libsodium (idempotent, thread-safe). Returns
 * 0, or SK_ESYS if the library cannot start (no entropy source). */
int sk_tauth_init(void);

/* sk_tauth_random fills buf with len bytes from the system's CSPRNG.
 * sk_tauth_init must have succeeded. */
void sk_tauth_random(void *buf, size_t len);

/* sk_tauth_derive computes the session keys from the cluster key and the
 * two HELLO bodies: d (the dealer's, whole) and r (the router's, without
 * its trailing proof). router says which side we are (1: router, whose
 * tx key is r->d). Cost: one BLAKE2b over the bodies, three KDF calls. */
void sk_tauth_derive(const uint8_t key[SK_TAUTH_KEY], const uint8_t *d,
                     size_t dlen, const uint8_t *r, size_t rlen, int router,
                     sk_tauth_keys *out);

/* sk_tauth_hello_mac computes the MAC that ends a dealer's HELLO with a
 * user token: BLAKE2b-256 keyed with the token's key over "skylark hello
 * 2" and the len bytes of the body before it. It lets the router refuse a
 * forged or expired token at once, with a reason; the session's keys, not
 * this MAC, prove that the HELLO is fresh. Cost: one BLAKE2b. */
void sk_tauth_hello_mac(const uint8_t key[SK_TAUTH_KEY], const uint8_t *body,
                        size_t len, uint8_t out[SK_TAUTH_PROOF]);

/* sk_tauth_proof_ok compares a received proof with the expected one in
 * constant time. Returns 1 if they are equal. */
int sk_tauth_proof_ok(const uint8_t got[SK_TAUTH_PROOF],
                      const uint8_t want[SK_TAUTH_PROOF]);

/* sk_tauth_seal encrypts len bytes at in into out (the same place, or
 * one that does not overlap it) under key with nonce seq, authenticating
 * the header hdr (hdrlen bytes) too, and writes the tag to tag. Cost: one
 * ChaCha20-Poly1305 pass over the body. */
void sk_tauth_seal(const uint8_t key[SK_TAUTH_KEY], uint32_t seq,
                   const uint8_t *hdr, size_t hdrlen, const uint8_t *in,
                   size_t len, uint8_t *out, uint8_t tag[SK_TAUTH_TAG]);

/* sk_tauth_open checks tag over hdr and the len encrypted bytes at body
 * under key with nonce seq and, if it holds, decrypts body in place.
 * Returns 0, or SK_EPROTO (forged, altered, replayed or out of order:
 * body is then unspecified). */
int sk_tauth_open(const uint8_t key[SK_TAUTH_KEY], uint32_t seq,
                  const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t len,
                  const uint8_t tag[SK_TAUTH_TAG]);

/* sk_tauth_wipe zeroes len bytes at p in a way the compiler keeps. */
void sk_tauth_wipe(void *p, size_t len);

#endif /* SK_TAUTH_H */
