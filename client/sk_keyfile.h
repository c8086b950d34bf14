/*
 * sk_keyfile.h - secrets on disk: the cluster key (64 hexadecimal digits
 * and a newline) and user tokens (sk_token.h), in files only their owner
 * may read (mode 0600 or stricter).
 *
 * Internal to libskylark: the daemons, the client API and the command
 * line read keys with it; `skylark key new` and `skylark cluster up`
 * make them. Every daemon and client of a cluster holds the same key
 * (docs/SECURITY.md).
 */
#ifndef SK_KEYFILE_H
#define SK_KEYFILE_H

#include <stddef.h>
#include <stdint.h>

#define SK_KEY_BYTES 32 /* = SK_TRANSPORT_KEY_BYTES */

/* sk_keyfile_read reads the key at path into key. It refuses a file that
 * is not a regular file, that its group or others may read or write, or
 * whose content is not exactly 64 hex digits (an ending newline allowed).
 * Returns 0, or SK_ECONFIG with a message naming the file and the fault
 * in err. Reads at most a few hundred bytes. */
int sk_keyfile_read(const char *path, uint8_t key[SK_KEY_BYTES], char *err,
                    size_t errlen);

/* sk_keyfile_create makes a new random key and writes it to path, which
 * must not exist, with mode 0600. Returns 0, SK_EEXIST (err names the
 * file), or SK_ESYS with the reason in err. */
int sk_keyfile_create(const char *path, char *err, size_t errlen);

/* sk_secret_read reads at most cap bytes of the secret file path into buf
 * and their count into *len. It refuses (SK_ECONFIG, err names what and
 * the file) a file that is not a regular file or that its group or others
 * may read or write. The caller checks the content and wipes buf. */
int sk_secret_read(const char *path, const char *what, char *buf, size_t cap,
                   size_t *len, char *err, size_t errlen);

/* sk_secret_write writes len bytes of text to path, which must not exist,
 * with mode 0600, and syncs it. Returns 0, SK_EEXIST (err names the file)
 * or SK_ESYS with the reason in err (a partial file is removed). */
int sk_secret_write(const char *path, const char *what, const char *text,
                    size_t len, char *err, size_t errlen);

/* sk_hex_decode reads 2n hexadecimal digits at hex into n bytes at out.
 * Returns -1, or the index of the first character that is not a digit. */
int sk_hex_decode(const char *hex, uint8_t *out, size_t n);

/* sk_hex_encode writes n bytes at in as 2n lower-case digits at out (no
 * terminating NUL). */
void sk_hex_encode(const uint8_t *in, size_t n, char *out);

#endif /* SK_KEYFILE_H */
