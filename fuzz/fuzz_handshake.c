/*
 * fuzz_handshake.c - libFuzzer target for what a keyed transport does
 * with a stranger's first bytes: the input is split into a frame and what
 * follows. The frame is parsed as a transport frame; a sealed HELLO is
 * answered as a router answers one (its session keys derived from the
 * transcript), and the rest of the input is then opened as the dealer's
 * next sealed frame under those keys, as the router would before bringing
 * the session up; a HELLO with a user token has its MAC checked first, as
 * the router checks it. Nothing that does not hold the key may open, so
 * besides the sanitizers' checks the target aborts if such a frame does.
 */
#include "sk_tauth.h"
#include "sk_tframe.h"
#include "sk_token.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t key[SK_TAUTH_KEY] = {0x5a, 0x17};
    static int ready;
    if (!ready) {
        if (sk_tauth_init() != 0)
            abort();
        ready = 1;
    }
    if (size < 2)
        return 0;
    /* The first byte says where the frame ends. */
    size_t flen = 1 + (size_t)data[0] * (size - 1) / 256;
    if (flen > size - 1)
        flen = size - 1;
    uint8_t *frame = malloc(flen + 1);
    memcpy(frame, data + 1, flen);
    sk_tframe f;
    const char *why;
    if (sk_tframe_parse(frame, flen, 1u << 20, &f, &why) != 0 ||
        f.tf_kind != SK_TF_HELLO || f.tf_version != SK_TFRAME_SEALED ||
        f.tf_nonce == NULL || f.tf_proof != NULL) {
        free(frame);
        return 0;
    }
    uint8_t body[SK_TFRAME_HELLO_SEALED_MAX];
    size_t n = sk_tframe_hello_body(body, "sched", "s1", 1);
    memset(body + n, 0xab, SK_TFRAME_AUTH);
    memcpy(body + n + SK_TFRAME_AUTH, f.tf_nonce, SK_TFRAME_AUTH);
    n += 2 * SK_TFRAME_AUTH;
    /* A user's token: the router recomputes its key from the cluster
     * key and checks the HELLO's MAC, which nothing without the cluster
     * key can make. */
    uint8_t tkey[SK_TAUTH_KEY], mac[SK_TAUTH_PROOF];
    if (f.tf_cred != 0) {
        sk_token_key(key, f.tf_user, f.tf_cred, f.tf_expiry, tkey);
        sk_tauth_hello_mac(tkey, f.tf_body, (size_t)(f.tf_mac - f.tf_body),
                           mac);
        if (sk_tauth_proof_ok(f.tf_mac, mac))
            abort(); /* a token forged without the key */
    }
    sk_tauth_keys k;
    sk_tauth_derive(f.tf_cred != 0 ? tkey : key, f.tf_body, f.tf_body_len, body,
                    n, 1, &k);

    size_t rest = size - 1 - flen;
    if (rest >= SK_TFRAME_HDR + SK_TAUTH_TAG) {
        uint8_t *next = malloc(rest);
        memcpy(next, data + 1 + flen, rest);
        size_t blen = rest - SK_TFRAME_HDR - SK_TAUTH_TAG;
        if (sk_tauth_open(k.ak_rx, 1, next, SK_TFRAME_HDR, next + SK_TFRAME_HDR,
                          blen, next + SK_TFRAME_HDR + blen) == 0)
            abort(); /* forged without the key */
        free(next);
    }
    free(frame);
    return 0;
}
