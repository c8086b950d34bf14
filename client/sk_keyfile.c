/*
 * sk_keyfile.c - reading and making cluster key files (sk_keyfile.h).
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

int sk_keyfile_read(const char *path, uint8_t key[SK_KEY_BYTES], char *err,
                    size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
        return SK_ECONFIG;
    }
    struct stat st;
    char buf[HEX_LEN + 2];
    ssize_t n = -1;
    int rc = SK_ECONFIG;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "key file %s: not a regular file", path);
    } else if ((st.st_mode & 077) != 0) {
        snprintf(err, errlen,
                 "key file %s: its group or others may use it (mode %04o); "
                 "chmod 600 it",
                 path, (unsigned)(st.st_mode & 07777));
    } else if ((n = read(fd, buf, sizeof buf)) < 0) {
        snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
    } else if (n < HEX_LEN || (n > HEX_LEN && buf[HEX_LEN] != '\n') ||
               n == (ssize_t)sizeof buf) {
        snprintf(err, errlen,
                 "key file %s: not a key (%d hexadecimal digits and a "
                 "newline)",
                 path, HEX_LEN);
    } else {
        rc = 0;
        for (int i = 0; i < SK_KEY_BYTES && rc == 0; i++) {
            int hi = hexval(buf[2 * i]), lo = hexval(buf[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                snprintf(err, errlen,
                         "key file %s: byte %d is not a hexadecimal digit",
                         path, hi < 0 ? 2 * i + 1 : 2 * i + 2);
                rc = SK_ECONFIG;
            } else {
                key[i] = (uint8_t)(hi << 4 | lo);
            }
        }
    }
    sk_tauth_wipe(buf, sizeof buf);
    close(fd);
    return rc;
}

int sk_keyfile_create(const char *path, char *err, size_t errlen)
{
    if (sk_tauth_init() < 0) {
        snprintf(err, errlen, "no source of randomness for a key");
        return SK_ESYS;
    }
    int fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "key file %s: %s", path, strerror(e));
        return e == EEXIST ? SK_EEXIST : SK_ESYS;
    }
    uint8_t key[SK_KEY_BYTES];
    char hex[HEX_LEN + 1];
    static const char digits[] = "0123456789abcdef";
    sk_tauth_random(key, sizeof key);
    for (int i = 0; i < SK_KEY_BYTES; i++) {
        hex[2 * i] = digits[key[i] >> 4];
        hex[2 * i + 1] = digits[key[i] & 15];
    }
    hex[HEX_LEN] = '\n';
    ssize_t w = write(fd, hex, sizeof hex);
    int rc = 0;
    if (w != (ssize_t)sizeof hex || fsync(fd) < 0) {
        snprintf(err, errlen, "key file %s: %s", path,
                 w < 0 || w == (ssize_t)sizeof hex ? strerror(errno)
                                                   : "short write");
        unlink(path);
        rc = SK_ESYS;
    }
    sk_tauth_wipe(key, sizeof key);
    sk_tauth_wipe(hex, sizeof hex);
    close(fd);
    return rc;
}
