/*
 * sk_tframe.c - encoding and hostile-input validation of transport frames
 * (the layout is described in sk_tframe.h).
 */
#include "sk_transport.h"
#include "sk_tframe.h"
#include "skylark.h"

#include <string.h>

void sk_tframe_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

uint32_t sk_tframe_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

void sk_tframe_header(uint8_t *buf, sk_tframe_kind kind, uint32_t seq,
                      uint32_t ack, uint32_t count)
{
    buf[0] = SK_TFRAME_VERSION;
    buf[1] = (uint8_t)kind;
    buf[2] = 0;
    buf[3] = 0;
    sk_tframe_put32(buf + 4, seq);
    sk_tframe_put32(buf + 8, ack);
    sk_tframe_put32(buf + 12, count);
}

int sk_tframe_ident_ok(const char *s, size_t len, size_t max)
{
    if (len == 0 || len > max)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
                 c == '-';
        if (!ok)
            return 0;
    }
    return 1;
}

size_t sk_tframe_hello_body(uint8_t *buf, const char *role, const char *name,
                            uint64_t incarnation)
{
    size_t rl = strlen(role), nl = strlen(name), n = 0;
    buf[n++] = (uint8_t)rl;
    memcpy(buf + n, role, rl);
    n += rl;
    buf[n++] = (uint8_t)nl;
    memcpy(buf + n, name, nl);
    n += nl;
    sk_tframe_put32(buf + n, (uint32_t)(incarnation >> 32));
    sk_tframe_put32(buf + n + 4, (uint32_t)incarnation);
    return n + 8;
}

size_t sk_tframe_cred_body(uint8_t *buf, const char *user, uint8_t role,
                           uint64_t expiry)
{
    size_t ul = strlen(user), n = 0;
    buf[n++] = (uint8_t)ul;
    memcpy(buf + n, user, ul);
    n += ul;
    buf[n++] = role;
    sk_tframe_put32(buf + n, (uint32_t)(expiry >> 32));
    sk_tframe_put32(buf + n + 4, (uint32_t)expiry);
    return n + 8;
}

/* Reads one length-prefixed identifier at body[*at]. */
static int take_ident(const uint8_t *body, size_t len, size_t *at, char *dst,
                      size_t max)
{
    if (*at >= len)
        return SK_EPROTO;
    size_t n = body[*at];
    if (n > len - *at - 1 ||
        !sk_tframe_ident_ok((const char *)body + *at + 1, n, max))
        return SK_EPROTO;
    memcpy(dst, body + *at + 1, n);
    dst[n] = '\0';
    *at += 1 + n;
    return 0;
}

/* The rest of a dealer's sealed HELLO that carries a user credential
 * (count 1), from at: its nonce, then the credential and its MAC. */
static int parse_cred(sk_tframe *out, const uint8_t *body, size_t blen,
                      size_t at, const char **why)
{
    *why = "bad hello credential";
    if (out->tf_version != SK_TFRAME_SEALED || blen - at < SK_TFRAME_AUTH)
        return SK_EPROTO;
    out->tf_nonce = body + at;
    at += SK_TFRAME_AUTH;
    if (take_ident(body, blen, &at, out->tf_user, SK_TRANSPORT_MAX_NAME) < 0 ||
        blen - at != 1 + 8 + SK_TFRAME_AUTH ||
        (body[at] != SK_CRED_USER && body[at] != SK_CRED_ADMIN &&
         body[at] != SK_CRED_EXECUTOR))
        return SK_EPROTO;
    out->tf_cred = body[at];
    out->tf_expiry = (uint64_t)sk_tframe_get32(body + at + 1) << 32 |
                     sk_tframe_get32(body + at + 5);
    out->tf_mac = body + at + 9;
    return 0;
}

int sk_tframe_parse(const uint8_t *buf, size_t len, uint32_t max_msg,
                    sk_tframe *out, const char **why)
{
    if (len < SK_TFRAME_HDR) {
        *why = "shorter than a header";
        return SK_EPROTO;
    }
    if (buf[0] != SK_TFRAME_VERSION && buf[0] != SK_TFRAME_SEALED) {
        *why = "unknown version";
        return SK_EPROTO;
    }
    out->tf_version = buf[0];
    out->tf_nonce = out->tf_echo = out->tf_proof = out->tf_mac = NULL;
    out->tf_cred = 0;
    out->tf_user[0] = '\0';
    if (buf[2] != 0 || buf[3] != 0) {
        *why = "reserved bits set";
        return SK_EPROTO;
    }
    out->tf_kind = buf[1];
    out->tf_seq = sk_tframe_get32(buf + 4);
    out->tf_ack = sk_tframe_get32(buf + 8);
    out->tf_count = sk_tframe_get32(buf + 12);
    out->tf_body = buf + SK_TFRAME_HDR;
    out->tf_body_len = len - SK_TFRAME_HDR;
    const uint8_t *body = out->tf_body;
    size_t blen = out->tf_body_len;

    switch (out->tf_kind) {
    case SK_TF_DATA: {
        if (out->tf_count == 0) {
            *why = "data frame without messages";
            return SK_EPROTO;
        }
        /* Walk every record now so that delivery can trust the lengths. */
        size_t at = 0;
        for (uint32_t i = 0; i < out->tf_count; i++) {
            if (blen - at < SK_TFRAME_REC) {
                *why = "record header past the end";
                return SK_EPROTO;
            }
            uint32_t mlen = sk_tframe_get32(body + at);
            at += SK_TFRAME_REC;
            if (mlen > max_msg || mlen > blen - at) {
                *why = "record length too large";
                return SK_EPROTO;
            }
            at += mlen;
        }
        if (at != blen) {
            *why = "bytes after the last record";
            return SK_EPROTO;
        }
        return 0;
    }
    case SK_TF_HELLO: {
        size_t at = 0;
        if (out->tf_count > (out->tf_version == SK_TFRAME_SEALED) ||
            take_ident(body, blen, &at, out->tf_role, SK_TRANSPORT_MAX_ROLE) <
                0 ||
            take_ident(body, blen, &at, out->tf_name, SK_TRANSPORT_MAX_NAME) <
                0 ||
            blen - at < 8) {
            *why = "bad hello";
            return SK_EPROTO;
        }
        out->tf_incarnation = (uint64_t)sk_tframe_get32(body + at) << 32 |
                              sk_tframe_get32(body + at + 4);
        at += 8;
        size_t extra = blen - at;
        if (out->tf_count == 1)
            return parse_cred(out, body, blen, at, why);
        if (out->tf_version == SK_TFRAME_VERSION
                ? extra != 0
                : extra != SK_TFRAME_AUTH && extra != 3 * SK_TFRAME_AUTH) {
            *why = "bad hello";
            return SK_EPROTO;
        }
        if (extra > 0)
            out->tf_nonce = body + at;
        if (extra > SK_TFRAME_AUTH) {
            out->tf_echo = body + at + SK_TFRAME_AUTH;
            out->tf_proof = body + at + 2 * SK_TFRAME_AUTH;
        }
        return 0;
    }
    case SK_TF_HEARTBEAT:
    case SK_TF_GOODBYE:
    case SK_TF_ACK:
    case SK_TF_RESET:
        if ((out->tf_count != 0 &&
             (out->tf_kind != SK_TF_RESET || out->tf_count > SK_TREFUSE_MAX)) ||
            blen != 0) {
            *why = "control frame with a body";
            return SK_EPROTO;
        }
        return 0;
    default:
        *why = "unknown kind";
        return SK_EPROTO;
    }
}
