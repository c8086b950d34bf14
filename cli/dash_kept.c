/*
 * dash_kept.c - the dashboard's kept sessions to node monitors, asked
 * all at once from one loop (dash_kept.h).
 */
#include "dash_kept.h"

#include "sk_apiutil.h"
#include "sk_link.h"
#include "sk_log.h"
#include "sk_status_msg.h"
#include "sk_token.h"

#include <ev.h>
#include <stdlib.h>
#include <string.h>

/* One kept session, and its part in the gathering under way. */
typedef struct conn {
    char *c_ep; /* malloc */
    sk_peer_id c_peer;
    int c_up;
    int c_want;     /* asked in this gathering */
    int c_sent;     /* the request is out on the current session */
    int c_done;     /* answered or refused in this gathering */
    int c_asked;    /* a request went out in this gathering */
    uint64_t c_req; /* the request's id */
    sk_status **c_out;
} conn;

struct dash_kept {
    struct ev_loop *k_loop;
    sk_link *k_link;
    conn k_c[DASH_KEPT_MAX];
    unsigned k_n;
    unsigned k_want, k_done, k_asked; /* this gathering */
    sk_buf k_buf;
    dash_kept_stats k_st;
};

static conn *conn_of(dash_kept *k, sk_peer_id peer)
{
    for (unsigned i = 0; i < k->k_n; i++)
        if (k->k_c[i].c_peer == peer)
            return &k->k_c[i];
    return NULL;
}

/* Sends c's request if it is wanted, up and not yet sent. */
static void send_ask(dash_kept *k, conn *c)
{
    if (!c->c_want || c->c_done || c->c_sent || !c->c_up)
        return;
    sk_msg ask = {.m_type = SK_MSG_STATUS_REQUEST};
    c->c_req = sk_new_incarnation();
    ask.m_status_request.sq_request = c->c_req;
    ask.m_status_request.sq_table = 1;
    ask.m_status_request.sq_query = "";
    if (sk_link_send(k->k_link, c->c_peer, &ask) != 0)
        return; /* counted by the link; the gathering's timeout ends it */
    if (!c->c_asked)
        k->k_asked++;
    c->c_asked = c->c_sent = 1;
}

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    (void)role;
    (void)name;
    dash_kept *k = arg;
    conn *c = conn_of(k, peer);
    if (c == NULL)
        return;
    k->k_st.ks_ups++;
    c->c_up = 1;
    send_ask(k, c);
}

/* A broken session loses a request in flight: ask again once it is up. */
static void on_down(void *arg, sk_peer_id peer, sk_peer_down_reason why)
{
    (void)why;
    dash_kept *k = arg;
    conn *c = conn_of(k, peer);
    if (c == NULL)
        return;
    k->k_st.ks_downs++;
    c->c_up = 0;
    c->c_sent = 0;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    dash_kept *k = arg;
    conn *c = conn_of(k, peer);
    if (c == NULL || !c->c_want || c->c_done || !c->c_sent ||
        msg->m_type != SK_MSG_STATUS_REPLY ||
        msg->m_status_reply.sr_request != c->c_req)
        return;
    if (sk_status_of_msg(msg, &k->k_buf, c->c_out) != 0) {
        k->k_st.ks_bad++;
        *c->c_out = NULL;
    }
    c->c_done = 1;
    k->k_done++;
}

static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    dash_kept *k = arg;
    conn *c = conn_of(k, peer);
    k->k_st.ks_refused++;
    if (c == NULL || !c->c_want || c->c_done)
        return;
    sk_warn("dashboard: node monitor %s: %s", c->c_ep, why);
    c->c_done = 1;
    k->k_done++;
}

int dash_kept_create(const char *key_file, dash_kept **out)
{
    dash_kept *k = calloc(1, sizeof *k);
    if (k == NULL)
        return SK_ENOMEM;
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    char err[1200];
    if (sk_cred_config(&cfg, key_file, NULL, NULL, err, sizeof err) != 0) {
        sk_error("dashboard: %s", err);
        free(k);
        return SK_ECONFIG;
    }
    /* A status table may be as large as the protocol allows. */
    cfg.tc_max_msg = SK_MAX_MSG_BYTES;
    cfg.tc_max_peers = DASH_KEPT_MAX;
    strcpy(cfg.tc_role, "tool");
    sk_make_name(cfg.tc_name, sizeof cfg.tc_name, "dash");
    /* Heartbeats drive the handshake retries: short. The loop runs only
     * while a gathering waits, so the silence between gatherings must not
     * count as a dead peer here: 0.25 s * 1000 (the transport's most
     * misses) = 250 s. A node monitor
     * that dropped our silent session answers our next frame with a RESET,
     * and the session is redone (on_down, on_up). */
    cfg.tc_heartbeat = 0.25;
    cfg.tc_misses = 1000;
    k->k_loop = ev_loop_new(EVFLAG_AUTO);
    sk_link_callbacks cb = {.lk_up = on_up,
                            .lk_down = on_down,
                            .lk_msg = on_msg,
                            .lk_refused = on_refused,
                            .lk_arg = k};
    int rc = k->k_loop == NULL
                 ? SK_ENOMEM
                 : sk_link_create(k->k_loop, &cfg, &cb, &k->k_link);
    memset(cfg.tc_key, 0, sizeof cfg.tc_key);
    if (rc != 0) {
        if (k->k_loop != NULL)
            ev_loop_destroy(k->k_loop);
        free(k);
        return rc;
    }
    sk_buf_init(&k->k_buf);
    *out = k;
    return 0;
}

void dash_kept_destroy(dash_kept *k)
{
    if (k == NULL)
        return;
    sk_link_destroy(k->k_link);
    ev_loop_destroy(k->k_loop);
    for (unsigned i = 0; i < k->k_n; i++)
        free(k->k_c[i].c_ep);
    sk_buf_free(&k->k_buf);
    free(k);
}

/* Closes the sessions not wanted in this gathering. */
static void close_unwanted(dash_kept *k)
{
    for (unsigned i = 0; i < k->k_n;) {
        conn *c = &k->k_c[i];
        if (c->c_want) {
            i++;
            continue;
        }
        sk_transport_disconnect(sk_link_transport(k->k_link), c->c_peer);
        free(c->c_ep);
        k->k_st.ks_closed++;
        *c = k->k_c[--k->k_n];
    }
}

static int all_done(void *arg)
{
    const dash_kept *k = arg;
    return k->k_done >= k->k_want;
}

unsigned dash_kept_ask(dash_kept *k, const char *const *eps, unsigned n,
                       double timeout, sk_status **out)
{
    n = n < DASH_KEPT_MAX ? n : DASH_KEPT_MAX;
    for (unsigned i = 0; i < k->k_n; i++)
        k->k_c[i].c_want = 0;
    k->k_want = k->k_done = k->k_asked = 0;
    /* Mark what is wanted: a linear search per endpoint, at most
     * DASH_KEPT_MAX^2 comparisons. */
    for (unsigned e = 0; e < n; e++) {
        out[e] = NULL;
        conn *c = NULL;
        for (unsigned i = 0; i < k->k_n && c == NULL; i++)
            if (!k->k_c[i].c_want && strcmp(k->k_c[i].c_ep, eps[e]) == 0)
                c = &k->k_c[i];
        if (c != NULL) {
            c->c_want = 1;
            c->c_out = &out[e];
        }
    }
    close_unwanted(k);
    for (unsigned e = 0; e < n; e++) {
        int have = 0;
        for (unsigned i = 0; i < k->k_n && !have; i++)
            have = k->k_c[i].c_out == &out[e] && k->k_c[i].c_want;
        if (have || k->k_n >= DASH_KEPT_MAX)
            continue;
        conn *c = &k->k_c[k->k_n];
        memset(c, 0, sizeof *c);
        c->c_ep = strdup(eps[e]);
        if (c->c_ep == NULL)
            continue;
        if (sk_transport_connect(sk_link_transport(k->k_link), eps[e],
                                 &c->c_peer) != 0) {
            free(c->c_ep);
            continue;
        }
        k->k_st.ks_opened++;
        c->c_want = 1;
        c->c_out = &out[e];
        k->k_n++;
    }
    for (unsigned i = 0; i < k->k_n; i++) {
        conn *c = &k->k_c[i];
        c->c_done = c->c_sent = c->c_asked = 0;
        k->k_want++;
        send_ask(k, c);
    }
    sk_run_until(k->k_loop, all_done, k, timeout);
    /* What is left unanswered is ignored when it comes (a new request id
     * next time). */
    for (unsigned i = 0; i < k->k_n; i++) {
        k->k_c[i].c_want = 0;
        k->k_c[i].c_out = NULL;
    }
    return k->k_asked;
}

void dash_kept_stats_get(const dash_kept *k, dash_kept_stats *out)
{
    *out = k->k_st;
}
