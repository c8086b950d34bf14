/*
 * test_client_fake.c - the fake daemon of the client API's tests (see
 * test_client_fake.h).
 */
#include "test_client_fake.h"

#include "tap.h"
#include "transport_util.h"

#include <stdio.h>
#include <string.h>

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    fake *f = arg;
    f->fk_peer = peer;
    f->fk_ups++;
}

static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    fake *f = arg;
    f->fk_downs++;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    fake *f = arg;
    if (f->fk_nmsgs < FAKE_MAX_MSGS && sk_msg_encode(&f->fk_buf, msg) == 0 &&
        sk_msg_decode(f->fk_buf.b_data, f->fk_buf.b_len,
                      &f->fk_msgs[f->fk_nmsgs]) == 0)
        f->fk_nmsgs++;
    if (msg->m_type == SK_MSG_HELLO) {
        sk_msg h = {.m_type = SK_MSG_HELLO};
        h.m_hello.he_role = (uint8_t)f->fk_role;
        h.m_hello.he_name = "fake";
        h.m_hello.he_incarnation =
            f->fk_incarnation != 0 ? f->fk_incarnation : 1;
        sk_link_send(f->fk_link, peer, &h);
    }
    if (f->fk_auto != NULL)
        f->fk_auto(f, peer, msg);
}

void fake_start(fake *f, struct ev_loop *loop, const char *endpoint,
                const char *trole, const char *name, int role)
{
    memset(f, 0, sizeof *f);
    f->fk_loop = loop;
    f->fk_role = role;
    sk_buf_init(&f->fk_buf);
    if (endpoint != NULL)
        snprintf(f->fk_endpoint, sizeof f->fk_endpoint, "%s", endpoint);
    else
        snprintf(f->fk_endpoint, sizeof f->fk_endpoint, "tcp://127.0.0.1:%d",
                 tu_free_port());
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", trole);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    cfg.tc_heartbeat = 0.1;
    cfg.tc_misses = 5;
    sk_link_callbacks cb = {
        .lk_up = on_up, .lk_down = on_down, .lk_msg = on_msg, .lk_arg = f};
    if (sk_link_create(loop, &cfg, &cb, &f->fk_link) != 0 ||
        sk_transport_listen(sk_link_transport(f->fk_link), f->fk_endpoint) != 0)
        tap_bail_out("fake %s cannot listen on %s", name, f->fk_endpoint);
}

void fake_stop(fake *f)
{
    sk_link_destroy(f->fk_link);
    f->fk_link = NULL;
    for (int i = 0; i < f->fk_nmsgs; i++)
        sk_msg_free(&f->fk_msgs[i]);
    f->fk_nmsgs = 0;
    sk_buf_free(&f->fk_buf);
}

int fake_send(fake *f, const sk_msg *msg)
{
    return sk_link_send(f->fk_link, f->fk_peer, msg);
}

int fake_count(const fake *f, sk_msg_type type)
{
    int n = 0;
    for (int i = 0; i < f->fk_nmsgs; i++)
        n += f->fk_msgs[i].m_type == type;
    return n;
}

const sk_msg *fake_last(const fake *f, sk_msg_type type)
{
    for (int i = f->fk_nmsgs - 1; i >= 0; i--)
        if (f->fk_msgs[i].m_type == type)
            return &f->fk_msgs[i];
    return NULL;
}

typedef struct want {
    fake *w_f;
    sk_msg_type w_type;
    int w_n;
} want;

static int have(void *arg)
{
    want *w = arg;
    return fake_count(w->w_f, w->w_type) >= w->w_n;
}

int fake_wait_count(fake *f, sk_msg_type type, int n, double timeout)
{
    want w = {f, type, n};
    return tu_run_until(f->fk_loop, have, &w, timeout);
}
