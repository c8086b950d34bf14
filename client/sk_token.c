/*
 * sk_token.c - user tokens issued from the cluster key (sk_token.h), on
 * libsodium's BLAKE2b.
 */
#include "sk_token.h"
#include "sk_keyfile.h"
#include "sk_tauth.h"
#include "sk_tframe.h"
#include "skylark.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_LABEL "skylark token 1"
#define TOKEN_MAGIC "skylark-token 1 "

void sk_token_key(const uint8_t cluster[SK_TRANSPORT_KEY_BYTES],
                  const char *user, uint8_t role, uint64_t expiry,
                  uint8_t out[SK_TRANSPORT_KEY_BYTES])
{
    crypto_generichash_state st;
    crypto_generichash_init(&st, cluster, SK_TRANSPORT_KEY_BYTES,
                            SK_TRANSPORT_KEY_BYTES);
    crypto_generichash_update(&st, (const uint8_t *)TOKEN_LABEL,
                              sizeof TOKEN_LABEL - 1);
    uint8_t ulen = (uint8_t)strlen(user);
    crypto_generichash_update(&st, &ulen, 1);
    crypto_generichash_update(&st, (const uint8_t *)user, ulen);
    crypto_generichash_update(&st, &role, 1);
    uint8_t e[8];
    for (int i = 0; i < 8; i++)
        e[i] = (uint8_t)(expiry >> (56 - 8 * i));
    crypto_generichash_update(&st, e, sizeof e);
    crypto_generichash_final(&st, out, SK_TRANSPORT_KEY_BYTES);
    sodium_memzero(&st, sizeof st);
}

const char *sk_token_role_name(uint8_t role)
{
    return role == SK_CRED_ADMIN      ? "admin"
           : role == SK_CRED_USER     ? "user"
           : role == SK_CRED_EXECUTOR ? "executor"
                                      : "cluster";
}

int sk_token_issue(const uint8_t cluster[SK_TRANSPORT_KEY_BYTES],
                   const char *user, uint8_t role, uint64_t expiry,
                   sk_token *out, char *err, size_t errlen)
{
    if (!sk_tframe_ident_ok(user, strlen(user), SK_TOKEN_MAX_USER)) {
        snprintf(err, errlen,
                 "user name \"%.80s\": 1 to %d of [A-Za-z0-9._:-] expected",
                 user, SK_TOKEN_MAX_USER);
        return SK_EINVAL;
    }
    if (role != SK_CRED_USER && role != SK_CRED_ADMIN &&
        role != SK_CRED_EXECUTOR) {
        snprintf(err, errlen, "role %u: user, admin or executor expected",
                 role);
        return SK_EINVAL;
    }
    if (sk_tauth_init() < 0) {
        snprintf(err, errlen, "libsodium cannot start");
        return SK_ESYS;
    }
    memset(out, 0, sizeof *out);
    memcpy(out->tk_user, user, strlen(user));
    out->tk_role = role;
    out->tk_expiry = expiry;
    sk_token_key(cluster, user, role, expiry, out->tk_key);
    return 0;
}

size_t sk_token_format(const sk_token *tk, char *buf)
{
    char hex[2 * SK_TRANSPORT_KEY_BYTES + 1];
    sk_hex_encode(tk->tk_key, SK_TRANSPORT_KEY_BYTES, hex);
    hex[sizeof hex - 1] = '\0';
    int n = snprintf(buf, SK_TOKEN_TEXT_MAX + 1,
                     TOKEN_MAGIC "%s %s %" PRIu64 " %s\n", tk->tk_user,
                     sk_token_role_name(tk->tk_role), tk->tk_expiry, hex);
    sk_tauth_wipe(hex, sizeof hex);
    return n < 0 ? 0 : (size_t)n;
}

/* The next space-separated field of s[*at..len) into f (at most cap - 1
 * bytes); returns its length, or -1 if it is empty or too long. */
static long field(const char *s, size_t len, size_t *at, char *f, size_t cap)
{
    size_t b = *at;
    while (*at < len && s[*at] != ' ' && s[*at] != '\n')
        (*at)++;
    size_t n = *at - b;
    if (n == 0 || n >= cap)
        return -1;
    memcpy(f, s + b, n);
    f[n] = '\0';
    if (*at < len && s[*at] == ' ')
        (*at)++;
    return (long)n;
}

int sk_token_parse(const char *s, size_t len, sk_token *out, char *err,
                   size_t errlen)
{
    char role[10], exp[24], hex[2 * SK_TRANSPORT_KEY_BYTES + 2];
    size_t at = sizeof TOKEN_MAGIC - 1;
    memset(out, 0, sizeof *out);
    if (len < at || memcmp(s, TOKEN_MAGIC, at) != 0) {
        snprintf(err, errlen, "not a token (it starts \"%s\")", TOKEN_MAGIC);
        return SK_ECONFIG;
    }
    long ul = field(s, len, &at, out->tk_user, sizeof out->tk_user);
    if (ul < 0 ||
        !sk_tframe_ident_ok(out->tk_user, (size_t)ul, SK_TOKEN_MAX_USER)) {
        snprintf(err, errlen, "bad user name in token");
        return SK_ECONFIG;
    }
    if (field(s, len, &at, role, sizeof role) < 0 ||
        (strcmp(role, "user") != 0 && strcmp(role, "admin") != 0 &&
         strcmp(role, "executor") != 0)) {
        snprintf(err, errlen,
                 "bad role in token (user, admin or executor expected)");
        return SK_ECONFIG;
    }
    out->tk_role = role[0] == 'a'   ? SK_CRED_ADMIN
                   : role[0] == 'e' ? SK_CRED_EXECUTOR
                                    : SK_CRED_USER;
    char *end;
    if (field(s, len, &at, exp, sizeof exp) < 0 || exp[0] < '0' ||
        exp[0] > '9' || (out->tk_expiry = strtoull(exp, &end, 10), *end) ||
        out->tk_expiry > UINT32_MAX * 64ull) {
        snprintf(err, errlen, "bad expiry in token");
        return SK_ECONFIG;
    }
    long hl = field(s, len, &at, hex, sizeof hex);
    int bad = hl == 2 * SK_TRANSPORT_KEY_BYTES
                  ? sk_hex_decode(hex, out->tk_key, SK_TRANSPORT_KEY_BYTES)
                  : 0;
    sk_tauth_wipe(hex, sizeof hex);
    if (bad >= 0 || !(at == len || (at + 1 == len && s[at] == '\n'))) {
        snprintf(err, errlen,
                 "bad key in token (%d hexadecimal digits, then the end)",
                 2 * SK_TRANSPORT_KEY_BYTES);
        sk_tauth_wipe(out, sizeof *out);
        return SK_ECONFIG;
    }
    return 0;
}

int sk_token_read(const char *path, sk_token *out, char *err, size_t errlen)
{
    char buf[SK_TOKEN_TEXT_MAX + 1], why[160];
    size_t n = 0;
    int rc =
        sk_secret_read(path, "token file", buf, sizeof buf, &n, err, errlen);
    if (rc == 0 && n == sizeof buf) {
        snprintf(err, errlen, "token file %s: longer than a token", path);
        rc = SK_ECONFIG;
    } else if (rc == 0 && sk_token_parse(buf, n, out, why, sizeof why) != 0) {
        snprintf(err, errlen, "token file %s: %s", path, why);
        rc = SK_ECONFIG;
    }
    sk_tauth_wipe(buf, sizeof buf);
    return rc;
}

int sk_cred_config(sk_transport_config *cfg, const char *key_file,
                   const char *token_file, const char *token, char *err,
                   size_t errlen)
{
    sk_token tk;
    int rc = 0;
    if (token != NULL) {
        char why[160];
        if (sk_token_parse(token, strlen(token), &tk, why, sizeof why) != 0) {
            snprintf(err, errlen, "token: %s", why);
            return SK_ECONFIG;
        }
    } else if (token_file != NULL) {
        rc = sk_token_read(token_file, &tk, err, errlen);
    } else if (key_file != NULL) {
        rc = sk_keyfile_read(key_file, cfg->tc_key, err, errlen);
        cfg->tc_keyed = rc == 0;
        return rc;
    } else {
        return 0;
    }
    if (rc == 0) {
        memcpy(cfg->tc_key, tk.tk_key, sizeof cfg->tc_key);
        memcpy(cfg->tc_token_user, tk.tk_user, sizeof cfg->tc_token_user);
        cfg->tc_token_role = tk.tk_role;
        cfg->tc_token_expiry = tk.tk_expiry;
        cfg->tc_keyed = 1;
    }
    sk_tauth_wipe(&tk, sizeof tk);
    return rc;
}
