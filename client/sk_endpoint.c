/*
 * sk_endpoint.c - the one check of an endpoint's syntax (skylark.h,
 * sk_endpoint_check), used by the client API, the transport and the
 * daemons' options alike, so that a bad address is refused with the same
 * words everywhere and before nanomsg sees it (nanomsg answers
 * "Invalid argument" or "Protocol not supported", and only after a socket
 * was made).
 */
#include "sk_proto.h"
#include "skylark.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EXPECTED "expected tcp://HOST:PORT or ipc://PATH"

/* Longest ipc:// path: a Unix socket's sun_path (108 bytes) with its NUL,
 * as nanomsg's ipc transport checks it. */
#define IPC_MAX_PATH 107

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SK_EINVAL;
}

/* Copy at most 32 bytes of s[0..n) into out for a message, printable
 * ASCII only (the rest as '?'). */
static const char *shown(const char *s, size_t n, char out[40])
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++)
        out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (n > 32) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

/* A host as nanomsg takes it: a name or IPv4 address, "*" (every
 * interface, to listen), optionally "INTERFACE;" before it. */
static int host_ok(const char *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && !strchr(".-_*;", h[i]))
            return 0;
    return 1;
}

static int check_tcp(const char *rest, char *err, size_t errlen)
{
    char b[40];
    size_t len = strlen(rest);
    const char *colon = strrchr(rest, ':');
    if (len == 0)
        return fail(err, errlen,
                    "missing host and port (expected "
                    "tcp://HOST:PORT)");
    if (colon == NULL)
        return fail(err, errlen, "missing port (expected tcp://HOST:PORT)");
    size_t hlen = (size_t)(colon - rest);
    const char *port = colon + 1;
    if (hlen == 0)
        return fail(err, errlen, "missing host (expected tcp://HOST:PORT)");
    if (port[0] == '\0')
        return fail(err, errlen, "missing port (expected tcp://HOST:PORT)");
    /* The transport leaves nanomsg IPv4-only (its default). */
    if (rest[0] == '[' || memchr(rest, ':', hlen) != NULL)
        return fail(err, errlen,
                    "IPv6 addresses are not supported (the "
                    "transport is IPv4 only)");
    if (!host_ok(rest, hlen))
        return fail(err, errlen, "host \"%s\" is not a host name or address",
                    shown(rest, hlen, b));
    size_t plen = strlen(port);
    if (strspn(port, "0123456789") != plen)
        return fail(err, errlen, "port \"%s\" is not a number",
                    shown(port, plen, b));
    unsigned long v = 0;
    for (size_t i = 0; i < plen && v <= 65535; i++)
        v = v * 10 + (unsigned long)(port[i] - '0');
    if (v < 1 || v > 65535)
        return fail(err, errlen, "port %s out of range (1..65535)",
                    shown(port, strlen(port), b));
    return 0;
}

int sk_endpoint_check(const char *endpoint, char *err, size_t errlen)
{
    char b[40];
    if (endpoint == NULL || endpoint[0] == '\0')
        return fail(err, errlen, "empty address (" EXPECTED ")");
    size_t len = strlen(endpoint);
    if (len > SK_MAX_ADDR_LEN)
        return fail(err, errlen,
                    "address of %zu bytes is over the limit of %u bytes", len,
                    SK_MAX_ADDR_LEN);
    const char *sep = strstr(endpoint, "://");
    if (sep == NULL) {
        /* "127.0.0.1:7070" is a common slip: say what was meant. */
        const char *colon = strrchr(endpoint, ':');
        if (colon != NULL && colon > endpoint && colon[1] != '\0' &&
            strspn(colon + 1, "0123456789") == strlen(colon + 1))
            return fail(err, errlen, "no scheme (did you mean tcp://%s?)",
                        shown(endpoint, len, b));
        return fail(err, errlen, "no scheme (" EXPECTED ")");
    }
    size_t slen = (size_t)(sep - endpoint);
    const char *rest = sep + 3;
    if (slen == 3 && memcmp(endpoint, "tcp", 3) == 0)
        return check_tcp(rest, err, errlen);
    if (slen == 3 && memcmp(endpoint, "ipc", 3) == 0) {
        size_t plen = strlen(rest);
        if (plen == 0)
            return fail(err, errlen, "missing path (expected ipc://PATH)");
        if (plen > IPC_MAX_PATH)
            return fail(err, errlen,
                        "ipc path of %zu bytes is over the limit of %d bytes "
                        "(a Unix socket's path)",
                        plen, IPC_MAX_PATH);
        return 0;
    }
    if (slen == 0)
        return fail(err, errlen, "no scheme (" EXPECTED ")");
    return fail(err, errlen, "unsupported scheme \"%s\" (" EXPECTED ")",
                shown(endpoint, slen, b));
}
