/*
 * sk_metrics_http.c - the /metrics endpoint: libmicrohttpd's thread asks
 * the loop for a page through an ev_async (sk_metrics_http.h says why).
 */
#include "sk_metrics_http.h"
#include "sk_log.h"
#include "skylark.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_CONNS    16
#define IDLE_S       10
#define CONN_MEMORY  (32u << 10)

/* Requests refused, by reason (the label of skylark_metrics_refused_total). */
enum {
    R_NOT_FOUND,
    R_METHOD,
    R_BODY,
    R_UNAUTHORIZED,
    R_LOOP_BUSY,
    R_TOO_BIG,
    R_N
};
static const char *const REASON_LABEL[R_N] = {
    "reason=\"not_found\"",    "reason=\"method\"",       "reason=\"body\"",
    "reason=\"unauthorized\"", "reason=\"loop_timeout\"", "reason=\"too_big\"",
};

struct sk_metrics_server {
    struct MHD_Daemon *ms_mhd;
    struct ev_loop *ms_loop;
    ev_async ms_async;
    sk_metrics_collect ms_collect;
    void *ms_arg;
    uint8_t ms_token[SK_METRICS_TOKEN_BYTES];
    int ms_has_token;
    double ms_wait_s;
    sk_metrics_out ms_work; /* loop thread: the page being rendered */
    pthread_mutex_t ms_mu;
    pthread_cond_t ms_cv;
    /* Under ms_mu: */
    uint64_t ms_asked;     /* the last scrape's number */
    uint64_t ms_rendered;  /* the number ms_pub answers */
    int ms_closing;        /* stopping: answer nothing more */
    sk_metrics_out ms_pub; /* the last page rendered */
    uint64_t ms_served;    /* pages served */
    uint64_t ms_refused[R_N];
};

/* ---- addresses ------------------------------------------------------------
 */

int sk_metrics_addr_parse(const char *listen, struct sockaddr_storage *ss,
                          socklen_t *len, char *err, size_t errlen)
{
    struct sockaddr_storage tmp;
    if (ss == NULL)
        ss = &tmp;
    memset(ss, 0, sizeof *ss);
    const char *colon = strrchr(listen, ':');
    char host[64];
    size_t hlen = colon != NULL ? (size_t)(colon - listen) : 0;
    if (colon == NULL || hlen == 0 || hlen >= sizeof host)
        goto bad;
    memcpy(host, listen, hlen);
    host[hlen] = '\0';
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 ||
        port < 1 || port > 65535)
        goto bad;
    if (host[0] == '[' && host[hlen - 1] == ']') {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        host[hlen - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
            goto bad;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        if (len != NULL)
            *len = sizeof *s6;
        return 0;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
        goto bad;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    if (len != NULL)
        *len = sizeof *s4;
    return 0;
bad:
    snprintf(err, errlen,
             "'%.64s': must be HOST:PORT, HOST an IPv4 address, localhost or "
             "an IPv6 address in brackets, PORT 1 to 65535",
             listen);
    return SK_ECONFIG;
}

int sk_metrics_addr_is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
    }
    if (ss->ss_family == AF_INET6) {
        const struct in6_addr *a =
            &((const struct sockaddr_in6 *)ss)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) ||
               (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 0;
}

/* ---- the loop's side --------------------------------------------------------
 */

/* A scrape is waiting: render the page and publish it. Loop thread. */
static void on_async(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)loop;
    (void)revents;
    sk_metrics_server *s = w->data;
    pthread_mutex_lock(&s->ms_mu);
    uint64_t asked = s->ms_asked;
    uint64_t served = s->ms_served;
    uint64_t refused[R_N];
    memcpy(refused, s->ms_refused, sizeof refused);
    pthread_mutex_unlock(&s->ms_mu);
    if (asked == s->ms_rendered)
        return; /* ms_rendered is written on this thread only */

    sk_metrics_out *o = &s->ms_work;
    sk_metrics_out_reset(o);
    s->ms_collect(s->ms_arg, o);
    sk_metrics_u64(o, "skylark_metrics_scrapes_total", NULL, SK_METRIC_COUNTER,
                   "Pages this metrics endpoint served before this one.",
                   served);
    for (int r = 0; r < R_N; r++)
        sk_metrics_u64(o, "skylark_metrics_refused_total", REASON_LABEL[r],
                       SK_METRIC_COUNTER,
                       "Requests to this metrics endpoint refused, by reason.",
                       refused[r]);

    pthread_mutex_lock(&s->ms_mu);
    sk_metrics_out t = s->ms_pub;
    s->ms_pub = *o;
    *o = t;
    s->ms_rendered = asked;
    pthread_cond_broadcast(&s->ms_cv);
    pthread_mutex_unlock(&s->ms_mu);
}

/* ---- the HTTP thread's side -------------------------------------------------
 */

static void count_refused(sk_metrics_server *s, int reason)
{
    pthread_mutex_lock(&s->ms_mu);
    s->ms_refused[reason]++;
    pthread_mutex_unlock(&s->ms_mu);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
                              const char *text, size_t len, const char *hname,
                              const char *hvalue)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(
        r, MHD_HTTP_HEADER_CONTENT_TYPE,
        status == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain; charset=utf-8");
    if (hname != NULL)
        MHD_add_response_header(r, hname, hvalue);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result refuse(sk_metrics_server *s, struct MHD_Connection *c,
                              int reason, unsigned status, const char *text,
                              const char *hname, const char *hvalue)
{
    count_refused(s, reason);
    return answer(c, status, text, strlen(text), hname, hvalue);
}

/* Whether the request carries the token, compared in constant time. */
static int authorized(const sk_metrics_server *s, struct MHD_Connection *c)
{
    if (!s->ms_has_token)
        return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return 0;
    h += 7;
    while (*h == ' ')
        h++;
    uint8_t got[SK_METRICS_TOKEN_BYTES];
    size_t n = 0;
    const char *end;
    if (strlen(h) != 2 * SK_METRICS_TOKEN_BYTES ||
        sodium_hex2bin(got, sizeof got, h, strlen(h), NULL, &n, &end) != 0 ||
        n != sizeof got || *end != '\0')
        return 0;
    return sodium_memcmp(got, s->ms_token, sizeof got) == 0;
}

/* Asks the loop for a page and answers with it. */
static enum MHD_Result serve(sk_metrics_server *s, struct MHD_Connection *c)
{
    pthread_mutex_lock(&s->ms_mu);
    uint64_t want = ++s->ms_asked;
    pthread_mutex_unlock(&s->ms_mu);
    ev_async_send(s->ms_loop, &s->ms_async);

    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double at = (double)until.tv_sec + until.tv_nsec / 1e9 + s->ms_wait_s;
    until.tv_sec = (time_t)at;
    until.tv_nsec = (long)((at - (double)until.tv_sec) * 1e9);
    pthread_mutex_lock(&s->ms_mu);
    while (s->ms_rendered < want && !s->ms_closing)
        if (pthread_cond_timedwait(&s->ms_cv, &s->ms_mu, &until) == ETIMEDOUT)
            break;
    int reason = -1;
    if (s->ms_rendered < want) {
        reason = R_LOOP_BUSY;
    } else if (s->ms_pub.mo_truncated) {
        reason = R_TOO_BIG;
    }
    if (reason >= 0) {
        s->ms_refused[reason]++;
        pthread_mutex_unlock(&s->ms_mu);
        const char *text = reason == R_LOOP_BUSY
                               ? "the daemon's event loop did not answer\n"
                               : "the metrics page is over its size limit\n";
        return answer(c,
                      reason == R_LOOP_BUSY ? MHD_HTTP_SERVICE_UNAVAILABLE
                                            : MHD_HTTP_INTERNAL_SERVER_ERROR,
                      text, strlen(text), NULL, NULL);
    }
    s->ms_served++;
    /* Copied while the mutex is held: the loop may swap pages next. */
    enum MHD_Result rc =
        answer(c, MHD_HTTP_OK, s->ms_pub.mo_data, s->ms_pub.mo_len, NULL, NULL);
    pthread_mutex_unlock(&s->ms_mu);
    return rc;
}

/* A request: the first call sees the headers, later ones the body (none
 * is wanted), the last one (no more body) answers. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    static int got_headers, got_body;
    sk_metrics_server *s = cls;
    if (*state == NULL) {
        *state = &got_headers;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0;
        *state = &got_body;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
        strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return refuse(s, c, R_METHOD, MHD_HTTP_METHOD_NOT_ALLOWED,
                      "only GET and HEAD\n", MHD_HTTP_HEADER_ALLOW,
                      "GET, HEAD");
    if (*state == &got_body)
        return refuse(s, c, R_BODY, MHD_HTTP_BAD_REQUEST,
                      "a request body is not taken here\n", NULL, NULL);
    if (strcmp(url, "/metrics") != 0)
        return refuse(s, c, R_NOT_FOUND, MHD_HTTP_NOT_FOUND,
                      "not found: the metrics are at /metrics\n", NULL, NULL);
    if (!authorized(s, c))
        return refuse(s, c, R_UNAUTHORIZED, MHD_HTTP_UNAUTHORIZED,
                      "a bearer token is required (metrics_token_file)\n",
                      MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                      "Bearer realm=\"skylark metrics\"");
    return serve(s, c);
}

static void mhd_log(void *arg, const char *fmt, va_list ap)
{
    (void)arg;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    sk_warn("metrics endpoint: %s", line);
}

/* ---- life cycle
 * --------------------------------------------------------------- */

int sk_metrics_server_start(struct ev_loop *loop, const sk_metrics_config *cfg,
                            sk_metrics_collect collect, void *arg,
                            sk_metrics_server **out, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    int rc = sk_metrics_addr_parse(cfg->mc_listen, &ss, &sslen, err, errlen);
    if (rc != 0)
        return rc;
    sk_metrics_server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return SK_ENOMEM;
    }
    s->ms_loop = loop;
    s->ms_collect = collect;
    s->ms_arg = arg;
    s->ms_wait_s = cfg->mc_wait_s > 0 ? cfg->mc_wait_s : 2.0;
    if (cfg->mc_token != NULL) {
        memcpy(s->ms_token, cfg->mc_token, sizeof s->ms_token);
        s->ms_has_token = 1;
    }
    pthread_mutex_init(&s->ms_mu, NULL);
    pthread_cond_init(&s->ms_cv, NULL);
    ev_async_init(&s->ms_async, on_async);
    s->ms_async.data = s;
    ev_async_start(loop, &s->ms_async);

    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* The HTTP thread inherits this mask: signals go to the loop thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->ms_mhd = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)MAX_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (s->ms_mhd == NULL) {
        snprintf(err, errlen, "cannot serve metrics on %s: %s", cfg->mc_listen,
                 saved != 0 ? strerror(saved) : "libmicrohttpd refused");
        sk_metrics_server_stop(s);
        return SK_EIO;
    }
    *out = s;
    return 0;
}

void sk_metrics_server_stop(sk_metrics_server *s)
{
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->ms_mu);
    s->ms_closing = 1;
    pthread_cond_broadcast(&s->ms_cv);
    pthread_mutex_unlock(&s->ms_mu);
    if (s->ms_mhd != NULL)
        MHD_stop_daemon(s->ms_mhd);
    ev_async_stop(s->ms_loop, &s->ms_async);
    pthread_mutex_destroy(&s->ms_mu);
    pthread_cond_destroy(&s->ms_cv);
    sk_metrics_out_free(&s->ms_work);
    sk_metrics_out_free(&s->ms_pub);
    free(s);
}
