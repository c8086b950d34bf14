/*
 * sk_keyfile.h - the cluster key on disk: 64 hexadecimal digits and a
 * newline, in a file only its owner may read (mode 0600 or stricter).
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

#endif /* SK_KEYFILE_H */
