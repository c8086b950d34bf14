/*
 * sk_status.c - asking a daemon for its state (skylark.h, sk_status_*):
 * one STATUS_REQUEST over a short-lived "tool" connection on a private
 * loop, and read access to the STATUS_REPLY.
 */
#include "sk_apiutil.h"
#include "sk_token.h"
#include "sk_link.h"
#include "sk_log.h"
#include "sk_proto.h"
#include "skylark.h"

#include <ev.h>
#include <stdlib.h>
#include <string.h>

struct sk_status {
    sk_msg st_msg; /* a STATUS_REPLY we own */
};

typedef struct fetch {
    sk_link *f_link;
    sk_peer_id f_peer;
    uint64_t f_request;
    int f_table;
    int f_asked;
    sk_buf f_buf;
    sk_status *f_out;
    int f_rc; /* set when done */
    int f_done;
} fetch;

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    fetch *f = arg;
    if (peer != f->f_peer || f->f_asked)
        return;
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request.sq_request = f->f_request;
    m.m_status_request.sq_table = f->f_table != 0;
    if (sk_link_send(f->f_link, peer, &m) != 0) {
        f->f_rc = SK_EIO;
        f->f_done = 1;
        return;
    }
    f->f_asked = 1;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    fetch *f = arg;
    if (f->f_done || peer != f->f_peer || msg->m_type != SK_MSG_STATUS_REPLY ||
        msg->m_status_reply.sr_request != f->f_request)
        return;
    /* The link frees msg after this call: keep a copy of our own, made by
     * encoding and decoding it again. */
    sk_status *s = calloc(1, sizeof *s);
    int rc = s == NULL ? SK_ENOMEM : sk_msg_encode(&f->f_buf, msg);
    if (rc == 0)
        rc = sk_msg_decode(f->f_buf.b_data, f->f_buf.b_len, &s->st_msg);
    if (rc != 0) {
        free(s);
        s = NULL;
    }
    f->f_out = s;
    f->f_rc = rc;
    f->f_done = 1;
}

/* The daemon holds another key, or none: no answer will come. */
static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    fetch *f = arg;
    sk_warn("status: %s", why);
    f->f_rc = SK_EREJECTED;
    f->f_done = 1;
}

static int is_done(void *arg)
{
    return ((fetch *)arg)->f_done;
}

int sk_status_fetch(const char *endpoint, double timeout, int table,
                    sk_status **out)
{
    return sk_status_fetch_keyed(endpoint, NULL, timeout, table, out);
}

int sk_status_fetch_keyed(const char *endpoint, const char *key_file,
                          double timeout, int table, sk_status **out)
{
    return sk_status_fetch_cred(endpoint, key_file, NULL, timeout, table, out);
}

int sk_status_fetch_cred(const char *endpoint, const char *key_file,
                         const char *token_file, double timeout, int table,
                         sk_status **out)
{
    if (sk_endpoint_check(endpoint, NULL, 0) != 0 || timeout <= 0 ||
        out == NULL)
        return SK_EINVAL;
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    char err[1200];
    if (sk_cred_config(&cfg, key_file, token_file, NULL, err, sizeof err) !=
        0) {
        sk_error("status: %s", err);
        return SK_ECONFIG;
    }
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    if (loop == NULL)
        return SK_ENOMEM;
    fetch f;
    memset(&f, 0, sizeof f);
    f.f_request = sk_new_incarnation();
    f.f_table = table;
    sk_buf_init(&f.f_buf);
    strcpy(cfg.tc_role, "tool");
    sk_make_name(cfg.tc_name, sizeof cfg.tc_name, "status");
    /* Heartbeats drive the handshake retries: keep them short. */
    cfg.tc_heartbeat = timeout / 4 < 0.1 ? timeout / 4 : 0.1;
    if (cfg.tc_heartbeat < 0.01)
        cfg.tc_heartbeat = 0.01;
    cfg.tc_misses = 1000;
    sk_link_callbacks cb = {.lk_up = on_up,
                            .lk_msg = on_msg,
                            .lk_refused = on_refused,
                            .lk_arg = &f};
    int rc = sk_link_create(loop, &cfg, &cb, &f.f_link);
    if (rc == 0 && sk_transport_connect(sk_link_transport(f.f_link), endpoint,
                                        &f.f_peer) != 0)
        rc = SK_EIO;
    if (rc == 0)
        rc = sk_run_until(loop, is_done, &f, timeout);
    if (rc == 0)
        rc = f.f_rc;
    if (rc == 0)
        *out = f.f_out;
    else if (f.f_out != NULL)
        sk_status_free(f.f_out);
    sk_link_destroy(f.f_link);
    sk_buf_free(&f.f_buf);
    ev_loop_destroy(loop);
    return rc;
}

void sk_status_free(sk_status *s)
{
    if (s == NULL)
        return;
    sk_msg_free(&s->st_msg);
    free(s);
}

const char *sk_status_role(const sk_status *s)
{
    switch (s->st_msg.m_status_reply.sr_role) {
    case SK_ROLE_FRONTEND:
        return "frontend";
    case SK_ROLE_SCHEDULER:
        return "scheduler";
    case SK_ROLE_NODEMON:
        return "nodemon";
    case SK_ROLE_FLOWD:
        return "flowd";
    case SK_ROLE_EXECUTOR:
        return "executor";
    }
    return "unknown";
}

const char *sk_status_name(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_name;
}

uint64_t sk_status_time_us(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_time_us;
}

unsigned sk_status_nkv(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_nkv;
}

const char *sk_status_key(const sk_status *s, unsigned i)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return i < r->sr_nkv ? r->sr_kv[i].kv_key : NULL;
}

const char *sk_status_value(const sk_status *s, unsigned i)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return i < r->sr_nkv ? r->sr_kv[i].kv_value : NULL;
}

const char *sk_status_get(const sk_status *s, const char *key)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    for (uint32_t i = 0; i < r->sr_nkv; i++)
        if (strcmp(r->sr_kv[i].kv_key, key) == 0)
            return r->sr_kv[i].kv_value;
    return NULL;
}

unsigned sk_status_ncolumns(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_ncolumns;
}

const char *sk_status_column(const sk_status *s, unsigned col)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return col < r->sr_ncolumns ? r->sr_columns[col] : NULL;
}

unsigned sk_status_nrows(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_nrows;
}

const char *sk_status_cell(const sk_status *s, unsigned row, unsigned col)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    if (row >= r->sr_nrows || col >= r->sr_rows[row].sw_ncells)
        return NULL;
    return r->sr_rows[row].sw_cells[col];
}
