/*
 * sk_token.h - user credentials: tokens issued from the cluster key.
 *
 * Internal to libskylark. A token names a user, the user's role (user,
 * admin, or executor: see below) and when it expires, and carries a 32-byte key
 * that only the holder of the cluster key can compute from those three:
 *
 *   key = BLAKE2b-256(key = cluster key,
 *                     "skylark token 1" || u8 len || user || u8 role
 *                     || u64 expiry)
 *
 * A frontend authenticates with the token's key instead of the cluster
 * key (sk_transport.h): its HELLO names the user, role and expiry, the
 * daemon recomputes the key from its cluster key, and the handshake
 * proves that the frontend holds it. So the daemon learns the user and
 * role from the credential, and a token cannot be forged, renamed,
 * promoted to admin or extended without the cluster key. Tokens are not
 * stored by the daemons: a new cluster key revokes every token.
 *
 * An executor token (role "executor", SK_CRED_EXECUTOR) is the
 * credential of a framework's executors: its USER is the framework's
 * name, and it can only register, with a node monitor, as an executor
 * of that framework (sk_transport.h, docs/SECURITY.md); it is no user,
 * and never a frontend, scheduler, flowd or node monitor.
 *
 * On disk (mode 0600, like a key), one line:
 *   skylark-token 1 USER ROLE EXPIRY KEY
 * with ROLE "user", "admin" or "executor", EXPIRY in seconds since the epoch
 * (UTC) and KEY 64 hexadecimal digits.
 */
#ifndef SK_TOKEN_H
#define SK_TOKEN_H

#include "sk_transport.h"

#include <stddef.h>
#include <stdint.h>

#define SK_TOKEN_MAX_USER SK_TRANSPORT_MAX_NAME /* bytes of a user name */
#define SK_TOKEN_TEXT_MAX 192 /* bytes of a token's line, newline included */
#define SK_TOKEN_MAX_LIFE (10ull * 366 * 86400) /* longest life, seconds */

/* A credential issued from the cluster key (the roles are SK_CRED_USER,
 * SK_CRED_ADMIN and SK_CRED_EXECUTOR). */
typedef struct sk_token {
    char tk_user[SK_TOKEN_MAX_USER + 1]; /* [A-Za-z0-9._:-], 1..63 bytes */
    uint8_t tk_role;                     /* SK_CRED_USER, _ADMIN, _EXECUTOR */
    uint64_t tk_expiry;                  /* seconds since the epoch */
    uint8_t tk_key[SK_TRANSPORT_KEY_BYTES]; /* proves the three above */
} sk_token;

/* sk_token_key computes the key of (user, role, expiry) under the cluster
 * key into out. user must be a valid name. Cost: one BLAKE2b. */
void sk_token_key(const uint8_t cluster[SK_TRANSPORT_KEY_BYTES],
                  const char *user, uint8_t role, uint64_t expiry,
                  uint8_t out[SK_TRANSPORT_KEY_BYTES]);

/* sk_token_issue fills out with the token of user and role expiring at
 * expiry, under the cluster key. Returns 0, or SK_EINVAL with a reason in
 * err (a name that is not 1..63 of [A-Za-z0-9._:-], a role that is
 * not user, admin or executor). */
int sk_token_issue(const uint8_t cluster[SK_TRANSPORT_KEY_BYTES],
                   const char *user, uint8_t role, uint64_t expiry,
                   sk_token *out, char *err, size_t errlen);

/* sk_token_format writes a token's line (with its newline and a NUL)
 * into buf of at least SK_TOKEN_TEXT_MAX + 1 bytes; returns its length. */
size_t sk_token_format(const sk_token *tk, char *buf);

/* sk_token_parse reads a token's line from len bytes at s (a trailing
 * newline allowed). Returns 0, or SK_ECONFIG with the fault in err. The
 * key is not checked here: only a daemon with the cluster key can. */
int sk_token_parse(const char *s, size_t len, sk_token *out, char *err,
                   size_t errlen);

/* sk_token_read reads the token file at path, refused as a key file is
 * (sk_secret_read) when others may read it. Returns 0 or SK_ECONFIG
 * (err names the file and the fault). */
int sk_token_read(const char *path, sk_token *out, char *err, size_t errlen);

/* sk_cred_config gives a client's transport configuration its
 * credential: the token text token if not NULL, else the token file
 * token_file, else the cluster key file key_file, else none (an
 * unauthenticated client). Returns 0, or SK_ECONFIG with the fault in
 * err (naming the file). */
int sk_cred_config(sk_transport_config *cfg, const char *key_file,
                   const char *token_file, const char *token, char *err,
                   size_t errlen);

/* sk_token_role_name returns "user", "admin" or "executor" (or
 * "cluster" for SK_CRED_CLUSTER). */
const char *sk_token_role_name(uint8_t role);

#endif /* SK_TOKEN_H */
