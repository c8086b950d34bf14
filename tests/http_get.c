/*
 * http_get.c - the tests' HTTP/1.0 client (http_get.h).
 */
#include "http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_ANSWER (2u << 20)
#define WAIT_S     5.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hg_free(hg_page *p)
{
    free(p->pg_head);
    memset(p, 0, sizeof *p);
}

hg_page hg_request(int port, const char *method, const char *path,
                   const char *extra)
{
    hg_page p = {0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return p;
    }
    char req[1024];
    int n = snprintf(
        req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s%s\r\n",
        method, path, extra != NULL ? extra : "", extra != NULL ? "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof req || write(fd, req, (size_t)n) != n) {
        close(fd);
        return p;
    }
    char *buf = malloc(MAX_ANSWER + 1);
    size_t len = 0;
    double until = now_s() + WAIT_S;
    while (buf != NULL && len < MAX_ANSWER && now_s() < until) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        ssize_t r = read(fd, buf + len, MAX_ANSWER - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (buf == NULL)
        return p;
    buf[len] = '\0';
    char *sep = strstr(buf, "\r\n\r\n");
    if (sep == NULL || sscanf(buf, "HTTP/1.%*d %d", &p.pg_status) != 1) {
        free(buf);
        p.pg_status = 0;
        return p;
    }
    *sep = '\0';
    p.pg_head = buf;
    p.pg_body = sep + 4;
    return p;
}
