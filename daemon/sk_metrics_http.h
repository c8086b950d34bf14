/*
 * sk_metrics_http.h - a daemon's /metrics endpoint: libmicrohttpd on an
 * address of its own (metrics_listen), serving what the daemon renders
 * with sk_metrics.h in the Prometheus text format.
 *
 * Threading (the choice, and why): libmicrohttpd runs in its own thread
 * (MHD_USE_INTERNAL_POLLING_THREAD), one request at a time; the counters
 * live on the daemon's libev loop, which must not be made to take
 * locks on its message path. So a scrape asks the loop: the HTTP thread
 * bumps a request number and wakes the loop with an ev_async; the loop
 * thread renders the whole page (collect, then the endpoint's own
 * counters) into a buffer of its own, swaps it with the published one
 * under the server's mutex and signals; the HTTP thread copies the page
 * out under the mutex. The numbers are those of one moment of the loop,
 * read where they are written; nothing is rendered when nobody scrapes.
 * A loop that does not answer within mc_wait_s (a long callback) gets
 * the scrape a 503, counted, rather than stale numbers.
 *
 * Protection: GET or HEAD of /metrics only (404, 405 otherwise, counted
 * by reason); with mc_token, a request must carry "Authorization: Bearer
 * HEX", HEX the 64 hexadecimal digits of the token file (a file in the
 * cluster key's format, `skylark key new`), compared in constant time
 * (libsodium), else 401. Connections are limited (16 at once, 10 s idle,
 * 32 KiB of request memory each).
 */
#ifndef SK_METRICS_HTTP_H
#define SK_METRICS_HTTP_H

#include "sk_metrics.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct ev_loop;

#define SK_METRICS_TOKEN_BYTES 32
#define SK_METRICS_LISTEN_LEN  64 /* longest "HOST:PORT", with its NUL */

/* Renders the daemon's metrics into o, on the loop thread. */
typedef void (*sk_metrics_collect)(void *arg, sk_metrics_out *o);

typedef struct sk_metrics_config {
    const char *mc_listen;   /* "HOST:PORT" (sk_metrics_addr_parse) */
    const uint8_t *mc_token; /* SK_METRICS_TOKEN_BYTES, or NULL: none */
    double mc_wait_s;        /* how long a scrape waits for the loop */
} sk_metrics_config;

typedef struct sk_metrics_server sk_metrics_server;

/* sk_metrics_addr_parse reads "HOST:PORT": HOST an IPv4 address,
 * "localhost" (127.0.0.1) or an IPv6 address in brackets, PORT 1 to
 * 65535. Returns 0 with the address in *ss (length *len; either may be
 * NULL to check only), or SK_ECONFIG with the reason in err. */
int sk_metrics_addr_parse(const char *listen, struct sockaddr_storage *ss,
                          socklen_t *len, char *err, size_t errlen);

/* sk_metrics_addr_is_loopback tells whether ss is 127.0.0.0/8 or ::1 (or
 * ::ffff:127.x.y.z). */
int sk_metrics_addr_is_loopback(const struct sockaddr_storage *ss);

/* sk_metrics_server_start binds cfg->mc_listen and starts the HTTP
 * thread (with every signal blocked, so that they reach the loop) and
 * the ev_async on loop, which calls collect(arg, ...) for each scrape.
 * The token is copied. Returns 0, or SK_ECONFIG (bad address) or SK_EIO
 * (cannot bind, or libmicrohttpd refused) with the reason in err. Call
 * from the loop's thread. */
int sk_metrics_server_start(struct ev_loop *loop, const sk_metrics_config *cfg,
                            sk_metrics_collect collect, void *arg,
                            sk_metrics_server **out, char *err, size_t errlen);

/* sk_metrics_server_stop wakes a scrape that waits for the loop (it gets
 * a 503), stops and joins the HTTP thread, stops the ev_async and frees
 * the server. Call from the loop's thread, before the loop is destroyed.
 * NULL is a no-op. */
void sk_metrics_server_stop(sk_metrics_server *s);

#endif /* SK_METRICS_HTTP_H */
