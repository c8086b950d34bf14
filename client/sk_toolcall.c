/*
 * sk_toolcall.c - one question to a daemon and its answer over a
 * short-lived "tool" session (sk_toolcall.h).
 */
#include "sk_toolcall.h"
#include "sk_apiutil.h"
#include "sk_token.h"
#include "sk_link.h"
#include "sk_log.h"
#include "skylark.h"

#include <ev.h>
#include <string.h>

typedef struct call {
    sk_link *c_link;
    sk_peer_id c_peer;
    const sk_msg *c_ask;
    sk_tool_match c_match;
    const void *c_arg;
    int c_asked;
    sk_buf c_buf;
    sk_msg *c_reply;
    int c_rc; /* set when done */
    int c_done;
} call;

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    (void)role;
    (void)name;
    call *c = arg;
    if (peer != c->c_peer || c->c_asked)
        return;
    if (sk_link_send(c->c_link, peer, c->c_ask) != 0) {
        c->c_rc = SK_EIO;
        c->c_done = 1;
        return;
    }
    c->c_asked = 1;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    call *c = arg;
    if (c->c_done || peer != c->c_peer || !c->c_match(msg, c->c_arg))
        return;
    /* The link frees msg after this call: keep a copy of our own, made by
     * encoding and decoding it again. */
    int rc = sk_msg_encode(&c->c_buf, msg);
    if (rc == 0)
        rc = sk_msg_decode(c->c_buf.b_data, c->c_buf.b_len, c->c_reply);
    c->c_rc = rc;
    c->c_done = 1;
}

/* The daemon holds another key, or none: no answer will come. */
static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    (void)peer;
    call *c = arg;
    sk_warn("%s: %s", sk_msg_type_name(c->c_ask->m_type), why);
    c->c_rc = SK_EREJECTED;
    c->c_done = 1;
}

static int is_done(void *arg)
{
    return ((call *)arg)->c_done;
}

int sk_tool_call(const char *endpoint, const char *key_file,
                 const char *token_file, double timeout,
                 const char *name_prefix, const sk_msg *ask,
                 sk_tool_match match, const void *arg, sk_msg *reply)
{
    if (sk_endpoint_check(endpoint, NULL, 0) != 0 || !(timeout > 0) ||
        reply == NULL)
        return SK_EINVAL;
    memset(reply, 0, sizeof *reply);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    char err[1200];
    if (sk_cred_config(&cfg, key_file, token_file, NULL, err, sizeof err) !=
        0) {
        sk_error("%s: %s", sk_msg_type_name(ask->m_type), err);
        return SK_ECONFIG;
    }
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    if (loop == NULL)
        return SK_ENOMEM;
    call c;
    memset(&c, 0, sizeof c);
    c.c_ask = ask;
    c.c_match = match;
    c.c_arg = arg;
    c.c_reply = reply;
    sk_buf_init(&c.c_buf);
    /* An answer may be as large as the protocol allows (a status table of
     * 16,384 rows), over the transport's default of 1 MiB. */
    cfg.tc_max_msg = SK_MAX_MSG_BYTES;
    strcpy(cfg.tc_role, "tool");
    sk_make_name(cfg.tc_name, sizeof cfg.tc_name, name_prefix);
    /* Heartbeats drive the handshake retries: keep them short. */
    cfg.tc_heartbeat = timeout / 4 < 0.1 ? timeout / 4 : 0.1;
    if (cfg.tc_heartbeat < 0.01)
        cfg.tc_heartbeat = 0.01;
    cfg.tc_misses = 1000;
    sk_link_callbacks cb = {.lk_up = on_up,
                            .lk_msg = on_msg,
                            .lk_refused = on_refused,
                            .lk_arg = &c};
    int rc = sk_link_create(loop, &cfg, &cb, &c.c_link);
    if (rc == 0 && sk_transport_connect(sk_link_transport(c.c_link), endpoint,
                                        &c.c_peer) != 0)
        rc = SK_EIO;
    if (rc == 0)
        rc = sk_run_until(loop, is_done, &c, timeout);
    if (rc == 0)
        rc = c.c_rc;
    if (rc != 0)
        sk_msg_free(reply);
    sk_link_destroy(c.c_link);
    sk_buf_free(&c.c_buf);
    ev_loop_destroy(loop);
    return rc;
}
