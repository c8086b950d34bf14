/*
 * sk_tauth.c - session keys and frame sealing for authenticated transport
 * sessions (the scheme is described in sk_tauth.h), on libsodium.
 */
#include "sk_tauth.h"
#include "skylark.h"

#include <sodium.h>
#include <string.h>

#define DERIVE_LABEL "skylark transport 2"
#define KDF_CONTEXT  "sktransp" /* crypto_kdf_CONTEXTBYTES (8) bytes */
#define HELLO_LABEL  "skylark hello 2"

int sk_tauth_init(void)
{
    /* 0: initialised now, 1: already was; -1: no entropy. */
    return sodium_init() < 0 ? SK_ESYS : 0;
}

void sk_tauth_random(void *buf, size_t len)
{
    randombytes_buf(buf, len);
}

void sk_tauth_derive(const uint8_t key[SK_TAUTH_KEY], const uint8_t *d,
                     size_t dlen, const uint8_t *r, size_t rlen, int router,
                     sk_tauth_keys *out)
{
    uint8_t secret[crypto_kdf_KEYBYTES];
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, SK_TAUTH_KEY, sizeof secret);
    crypto_generichash_update(&st, (const uint8_t *)DERIVE_LABEL,
                              sizeof DERIVE_LABEL - 1);
    /* Each body is prefixed by its length: no two transcripts hash alike. */
    uint8_t len[4];
    len[0] = (uint8_t)(dlen >> 24), len[1] = (uint8_t)(dlen >> 16);
    len[2] = (uint8_t)(dlen >> 8), len[3] = (uint8_t)dlen;
    crypto_generichash_update(&st, len, sizeof len);
    crypto_generichash_update(&st, d, dlen);
    crypto_generichash_update(&st, r, rlen);
    crypto_generichash_final(&st, secret, sizeof secret);

    uint8_t d2r[SK_TAUTH_KEY], r2d[SK_TAUTH_KEY];
    crypto_kdf_derive_from_key(out->ak_proof, sizeof out->ak_proof, 1,
                               KDF_CONTEXT, secret);
    crypto_kdf_derive_from_key(d2r, sizeof d2r, 2, KDF_CONTEXT, secret);
    crypto_kdf_derive_from_key(r2d, sizeof r2d, 3, KDF_CONTEXT, secret);
    memcpy(out->ak_tx, router ? r2d : d2r, SK_TAUTH_KEY);
    memcpy(out->ak_rx, router ? d2r : r2d, SK_TAUTH_KEY);
    sodium_memzero(secret, sizeof secret);
    sodium_memzero(d2r, sizeof d2r);
    sodium_memzero(r2d, sizeof r2d);
    sodium_memzero(&st, sizeof st);
}

void sk_tauth_hello_mac(const uint8_t key[SK_TAUTH_KEY], const uint8_t *body,
                        size_t len, uint8_t out[SK_TAUTH_PROOF])
{
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, SK_TAUTH_KEY, SK_TAUTH_PROOF);
    crypto_generichash_update(&st, (const uint8_t *)HELLO_LABEL,
                              sizeof HELLO_LABEL - 1);
    crypto_generichash_update(&st, body, len);
    crypto_generichash_final(&st, out, SK_TAUTH_PROOF);
    sodium_memzero(&st, sizeof st);
}

int sk_tauth_proof_ok(const uint8_t got[SK_TAUTH_PROOF],
                      const uint8_t want[SK_TAUTH_PROOF])
{
    return sodium_memcmp(got, want, SK_TAUTH_PROOF) == 0;
}

/* The 96-bit AEAD nonce of frame seq: zeros, then seq big-endian. */
static void nonce_of(uint32_t seq,
                     uint8_t n[crypto_aead_chacha20poly1305_IETF_NPUBBYTES])
{
    memset(n, 0, crypto_aead_chacha20poly1305_IETF_NPUBBYTES);
    uint8_t *p = n + crypto_aead_chacha20poly1305_IETF_NPUBBYTES - 4;
    p[0] = (uint8_t)(seq >> 24), p[1] = (uint8_t)(seq >> 16);
    p[2] = (uint8_t)(seq >> 8), p[3] = (uint8_t)seq;
}

void sk_tauth_seal(const uint8_t key[SK_TAUTH_KEY], uint32_t seq,
                   const uint8_t *hdr, size_t hdrlen, const uint8_t *in,
                   size_t len, uint8_t *out, uint8_t tag[SK_TAUTH_TAG])
{
    uint8_t n[crypto_aead_chacha20poly1305_IETF_NPUBBYTES];
    nonce_of(seq, n);
    unsigned long long taglen;
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(
        out, tag, &taglen, in, len, hdr, hdrlen, NULL, n, key);
}

int sk_tauth_open(const uint8_t key[SK_TAUTH_KEY], uint32_t seq,
                  const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t len,
                  const uint8_t tag[SK_TAUTH_TAG])
{
    uint8_t n[crypto_aead_chacha20poly1305_IETF_NPUBBYTES];
    nonce_of(seq, n);
    return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
               body, NULL, body, len, tag, hdr, hdrlen, n, key) == 0
               ? 0
               : SK_EPROTO;
}

void sk_tauth_wipe(void *p, size_t len)
{
    sodium_memzero(p, len);
}
