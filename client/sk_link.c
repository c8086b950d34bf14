/*
 * sk_link.c - typed messages over the transport: decode on receipt, count
 * and drop what does not decode, encode into one reused buffer on send.
 */
#include "sk_link.h"

#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>

struct sk_link {
    sk_transport *lk_t;
    sk_link_callbacks lk_cb;
    sk_buf lk_buf; /* reused by every send */
    sk_link_stats lk_stats;
};

/* Log the first drop of a kind and every 1024th after it. */
static void log_drop(uint64_t count, sk_peer_id peer, const char *what, int rc)
{
    if (count % 1024 == 1)
        sk_warn("dropped a message from peer %llu: %s (%s); %llu so far",
                (unsigned long long)peer, what, sk_strerror(rc),
                (unsigned long long)count);
}

static void on_recv(void *arg, sk_peer_id peer, const void *data, size_t len)
{
    sk_link *l = arg;
    sk_msg msg;
    int rc = sk_msg_decode(data, len, &msg);
    if (rc != 0) {
        sk_link_stats *s = &l->lk_stats;
        switch (rc) {
        case SK_EVERSION:
            log_drop(++s->ls_bad_version, peer, "another protocol version", rc);
            break;
        case SK_EUNKNOWN:
            log_drop(++s->ls_bad_type, peer, "unknown message type", rc);
            break;
        case SK_ELIMIT:
            log_drop(++s->ls_bad_limit, peer, "over a protocol limit", rc);
            break;
        default:
            log_drop(++s->ls_malformed, peer, "malformed", rc);
            break;
        }
        return;
    }
    l->lk_stats.ls_received++;
    if (l->lk_cb.lk_msg != NULL)
        l->lk_cb.lk_msg(l->lk_cb.lk_arg, peer, &msg);
    sk_msg_free(&msg);
}

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    sk_link *l = arg;
    if (l->lk_cb.lk_up != NULL)
        l->lk_cb.lk_up(l->lk_cb.lk_arg, peer, role, name);
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    sk_link *l = arg;
    if (l->lk_cb.lk_down != NULL)
        l->lk_cb.lk_down(l->lk_cb.lk_arg, peer, why);
}

static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    sk_link *l = arg;
    if (l->lk_cb.lk_refused != NULL)
        l->lk_cb.lk_refused(l->lk_cb.lk_arg, peer, why);
}

int sk_link_create(struct ev_loop *loop, const sk_transport_config *cfg,
                   const sk_link_callbacks *cb, sk_link **out)
{
    sk_link *l = calloc(1, sizeof *l);
    if (l == NULL)
        return SK_ENOMEM;
    if (cb != NULL)
        l->lk_cb = *cb;
    sk_buf_init(&l->lk_buf);
    sk_transport_callbacks tcb = {.tc_up = on_up,
                                  .tc_down = on_down,
                                  .tc_recv = on_recv,
                                  .tc_refused = on_refused,
                                  .tc_arg = l};
    int rc = sk_transport_create(loop, cfg, &tcb, &l->lk_t);
    if (rc != 0) {
        free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void sk_link_destroy(sk_link *l)
{
    if (l == NULL)
        return;
    sk_transport_destroy(l->lk_t);
    sk_buf_free(&l->lk_buf);
    free(l);
}

sk_transport *sk_link_transport(sk_link *l)
{
    return l->lk_t;
}

int sk_link_send(sk_link *l, sk_peer_id peer, const sk_msg *msg)
{
    int rc = sk_msg_encode(&l->lk_buf, msg);
    if (rc != 0) {
        l->lk_stats.ls_encode_failed++;
        sk_error("cannot encode %s for peer %llu: %s",
                 sk_msg_type_name(msg->m_type), (unsigned long long)peer,
                 sk_strerror(rc));
        return rc;
    }
    rc = sk_transport_send(l->lk_t, peer, l->lk_buf.b_data, l->lk_buf.b_len);
    if (rc != 0) {
        l->lk_stats.ls_send_failed++;
        return rc;
    }
    l->lk_stats.ls_sent++;
    return 0;
}

void sk_link_stats_get(const sk_link *l, sk_link_stats *out)
{
    *out = l->lk_stats;
}
