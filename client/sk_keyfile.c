/*
 * sk_keyfile.c - reading and making secret files: cluster keys and user
 * tokens (sk_keyfile.h).
 */
#include "sk_keyfile.h"
#include "sk_tauth.h"
#include "skylark.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEX_LEN (2 * SK_KEY_BYTES)

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int sk_hex_decode(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0)
            return (int)(2 * i);
        if (lo < 0)
            return (int)(2 * i + 1);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return -1;
}

void sk_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
}

int sk_secret_read(const char *path, const char *what, char *buf, size_t cap,
                   size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
        return SK_ECONFIG;
    }
    struct stat st;
    ssize_t n = -1;
    int rc = SK_ECONFIG;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s %s: not a regular file", what, path);
    } else if ((st.st_mode & 077) != 0) {
        snprintf(err, errlen,
                 "%s %s: its group or others may use it (mode %04o); "
                 "chmod 600 it",
                 what, path, (unsigned)(st.st_mode & 07777));
    } else if ((n = read(fd, buf, cap)) < 0) {
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
    } else {
        *len = (size_t)n;
        rc = 0;
    }
    close(fd);
    return rc;
}

int sk_secret_write(const char *path, const char *what, const char *text,
                    size_t len, char *err, size_t errlen)
{
    int fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
        return e == EEXIST ? SK_EEXIST : SK_ESYS;
    }
    ssize_t w = write(fd, text, len);
    int rc = 0;
    if (w != (ssize_t)len || fsync(fd) < 0) {
        snprintf(err, errlen, "%s %s: %s", what, path,
                 w < 0 || w == (ssize_t)len ? strerror(errno) : "short write");
        unlink(path);
        rc = SK_ESYS;
    }
    close(fd);
    return rc;
}

int sk_keyfile_read(const char *path, uint8_t key[SK_KEY_BYTES], char *err,
                    size_t errlen)
{
    char buf[HEX_LEN + 2];
    size_t n = 0;
    int rc = sk_secret_read(path, "key file", buf, sizeof buf, &n, err, errlen);
    if (rc != 0)
        return rc;
    if (n < HEX_LEN || (n > HEX_LEN && buf[HEX_LEN] != '\n') ||
        n == sizeof buf) {
        snprintf(err, errlen,
                 "key file %s: not a key (%d hexadecimal digits and a "
                 "newline)",
                 path, HEX_LEN);
        rc = SK_ECONFIG;
    } else {
        int bad = sk_hex_decode(buf, key, SK_KEY_BYTES);
        if (bad >= 0) {
            snprintf(err, errlen,
                     "key file %s: byte %d is not a hexadecimal digit", path,
                     bad + 1);
            rc = SK_ECONFIG;
        }
    }
    sk_tauth_wipe(buf, sizeof buf);
    return rc;
}

int sk_keyfile_create(const char *path, char *err, size_t errlen)
{
    if (sk_tauth_init() < 0) {
        snprintf(err, errlen, "no source of randomness for a key");
        return SK_ESYS;
    }
    uint8_t key[SK_KEY_BYTES];
    char hex[HEX_LEN + 1];
    sk_tauth_random(key, sizeof key);
    sk_hex_encode(key, SK_KEY_BYTES, hex);
    hex[HEX_LEN] = '\n';
    int rc = sk_secret_write(path, "key file", hex, sizeof hex, err, errlen);
    sk_tauth_wipe(key, sizeof key);
    sk_tauth_wipe(hex, sizeof hex);
    return rc;
}
