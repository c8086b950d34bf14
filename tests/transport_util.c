/*
 * transport_util.c - helpers of the transport tests (see transport_util.h).
 */
#include "transport_util.h"
#include "sk_tframe.h"

#include <arpa/inet.h>
#include <nanomsg/nn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void wake_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

int tu_run_until(struct ev_loop *loop, int (*cond)(void *), void *arg,
                 double timeout)
{
    ev_timer wake;
    ev_timer_init(&wake, wake_cb, 0.005, 0.005);
    ev_timer_start(loop, &wake);
    ev_now_update(loop);
    double end = ev_now(loop) + timeout;
    int ok;
    while (!(ok = cond(arg)) && ev_now(loop) < end)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &wake);
    return ok;
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

void tu_run_for(struct ev_loop *loop, double seconds)
{
    tu_run_until(loop, never, NULL, seconds);
}

int tu_free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = 0;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    tu_rec *r = arg;
    r->ru_ups++;
    r->ru_last_up = peer;
    snprintf(r->ru_last_role, sizeof r->ru_last_role, "%s", role);
    snprintf(r->ru_last_name, sizeof r->ru_last_name, "%s", name);
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    tu_rec *r = arg;
    r->ru_downs++;
    r->ru_last_down = peer;
    r->ru_last_why = why;
    for (int i = 0; i < TU_MAX_PEERS; i++)
        if (r->ru_from[i] == peer) {
            r->ru_from[i] = 0;
            r->ru_next[i] = 0;
        }
}

static void on_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    tu_rec *r = arg;
    char text[128];
    size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    r->ru_msgs++;
    r->ru_bytes += len;
    char *sp = strchr(text, ' ');
    if (r->ru_tag != NULL &&
        (sp == NULL || (size_t)(sp - text) != strlen(r->ru_tag) ||
         strncmp(text, r->ru_tag, strlen(r->ru_tag)) != 0))
        r->ru_misrouted++;
    int slot = -1;
    for (int i = 0; i < TU_MAX_PEERS && slot < 0; i++)
        if (r->ru_from[i] == peer)
            slot = i;
    for (int i = 0; i < TU_MAX_PEERS && slot < 0; i++)
        if (r->ru_from[i] == 0) {
            r->ru_from[i] = peer;
            slot = i;
        }
    if (slot >= 0 && sp != NULL) {
        uint64_t c = strtoull(sp + 1, NULL, 10);
        if (c != r->ru_next[slot])
            r->ru_misorder++;
        r->ru_next[slot] = c + 1;
    }
    if (r->ru_echo && r->ru_t != NULL)
        sk_transport_send(r->ru_t, peer, data, len);
}

sk_transport_callbacks tu_callbacks(tu_rec *rec)
{
    sk_transport_callbacks cb = {
        .tc_up = on_up, .tc_down = on_down, .tc_recv = on_recv, .tc_arg = rec};
    return cb;
}

int tu_raw_send(int s, uint32_t dealer_id, const void *frame, size_t len,
                int flags)
{
    uint8_t ctl[NN_CMSG_SPACE(sizeof(size_t) + 4)];
    struct nn_cmsghdr *c = (struct nn_cmsghdr *)(void *)ctl;
    size_t hl = 4;
    c->cmsg_len = NN_CMSG_LEN(sizeof(size_t) + 4);
    c->cmsg_level = PROTO_SP;
    c->cmsg_type = SP_HDR;
    memcpy(NN_CMSG_DATA(c), &hl, sizeof hl);
    sk_tframe_put32(NN_CMSG_DATA(c) + sizeof hl, dealer_id);
    struct nn_iovec iov = {(void *)frame, len};
    struct nn_msghdr h = {&iov, 1, ctl, sizeof ctl};
    return nn_sendmsg(s, &h, flags);
}
