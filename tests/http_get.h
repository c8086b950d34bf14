/*
 * http_get.h - a minimal HTTP/1.0 client for the tests of the daemons'
 * /metrics and of `skylark dashboard`: one request to 127.0.0.1 over a
 * plain socket, the whole answer read until the server closes, within
 * 5 s and 2 MiB. No HTTP library, so the tests need no client package.
 */
#ifndef HTTP_GET_H
#define HTTP_GET_H

/* An answer. */
typedef struct hg_page {
    int pg_status; /* 0: no answer, or not HTTP */
    char *pg_head; /* status line and headers (NUL-terminated), or NULL */
    char *pg_body; /* the body (NUL-terminated), or NULL */
} hg_page;

/* hg_request sends method path to 127.0.0.1:port, with extra (one header
 * line without its CRLF, or NULL), and returns the answer; free it with
 * hg_free. */
hg_page hg_request(int port, const char *method, const char *path,
                   const char *extra);

/* hg_free releases p and zeroes it. */
void hg_free(hg_page *p);

#endif /* HTTP_GET_H */
