/*
 * test_client_endpoint.c - sk_endpoint_check, the one check of an
 * endpoint's syntax: the addresses nanomsg takes pass, and each kind of
 * mistake (empty, no scheme, another scheme, no host, no port, a port
 * that is no number or out of range, a bad host, IPv6, too long) is
 * refused with SK_EINVAL and words that say what is wrong.
 */
#include "skylark.h"
#include "tap.h"

#include <string.h>

typedef struct bad {
    const char *b_addr;
    const char *b_words; /* expected in the message */
} bad;

int main(void)
{
    tap_timeout(10);
    static const char *const good[] = {"tcp://127.0.0.1:7070",
                                       "tcp://localhost:1",
                                       "tcp://*:65535",
                                       "tcp://host-1.example_x:8080",
                                       "tcp://eth0;10.0.0.1:7000",
                                       "ipc:///tmp/sk.sock",
                                       "ipc://relative"};
    static const bad bads[] = {
        {"", "empty address (expected tcp://HOST:PORT or ipc://PATH)"},
        {"garbage", "no scheme (expected tcp://HOST:PORT or ipc://PATH)"},
        {"127.0.0.1:7070", "no scheme (did you mean tcp://127.0.0.1:7070?)"},
        {"://x", "no scheme"},
        {"http://x", "unsupported scheme \"http\" (expected tcp://HOST:PORT "
                     "or ipc://PATH)"},
        {"inproc://x", "unsupported scheme \"inproc\""},
        {"tcp://", "missing host and port"},
        {"tcp://:7070", "missing host (expected tcp://HOST:PORT)"},
        {"tcp://host", "missing port (expected tcp://HOST:PORT)"},
        {"tcp://host:", "missing port"},
        {"tcp://host:7x", "port \"7x\" is not a number"},
        {"tcp://host:-1", "port \"-1\" is not a number"},
        {"tcp://host:0", "port 0 out of range (1..65535)"},
        {"tcp://host:65536", "port 65536 out of range (1..65535)"},
        {"tcp://host:99999999999999999999", "out of range"},
        {"tcp://a b:7", "host \"a b\" is not a host name or address"},
        {"tcp://a\"b:7", "host \"a\"b\" is not"},
        {"tcp://[::1]:7070", "IPv6 addresses are not supported"},
        {"tcp://::1:7070", "IPv6 addresses are not supported"},
        {"ipc://", "missing path (expected ipc://PATH)"},
        {"h\x01tp://x", "unsupported scheme \"h?tp\""},
    };
    size_t ngood = sizeof good / sizeof good[0];
    size_t nbad = sizeof bads / sizeof bads[0];
    tap_plan((int)(ngood + nbad) + 5);

    char err[256];
    for (size_t i = 0; i < ngood; i++) {
        strcpy(err, "untouched");
        tap_ok(sk_endpoint_check(good[i], err, sizeof err) == 0,
               "'%s' is an endpoint", good[i]);
    }
    for (size_t i = 0; i < nbad; i++) {
        err[0] = '\0';
        int rc = sk_endpoint_check(bads[i].b_addr, err, sizeof err);
        tap_ok(rc == SK_EINVAL && strstr(err, bads[i].b_words) != NULL,
               "refused: %s", err);
    }
    tap_is_int(sk_endpoint_check(NULL, err, sizeof err), SK_EINVAL,
               "NULL is refused");
    tap_is_int(sk_endpoint_check("garbage", NULL, 0), SK_EINVAL,
               "no room for the words: still refused");

    char path[200] = "ipc://";
    memset(path + 6, 'p', 107);
    path[6 + 107] = '\0';
    tap_ok(sk_endpoint_check(path, err, sizeof err) == 0,
           "an ipc path of 107 bytes is an endpoint");
    strcat(path, "p");
    tap_ok(sk_endpoint_check(path, err, sizeof err) == SK_EINVAL &&
               strstr(err, "108 bytes is over the limit of 107") != NULL,
           "an ipc path of 108 bytes is refused: %s", err);
    char longer[300] = "tcp://";
    memset(longer + 6, 'h', 260);
    strcpy(longer + 266, ":1");
    tap_ok(sk_endpoint_check(longer, err, sizeof err) == SK_EINVAL &&
               strstr(err, "over the limit of 255 bytes") != NULL,
           "an address over 255 bytes is refused: %s", err);
    return tap_exit_status();
}
