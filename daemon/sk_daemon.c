/*
 * sk_daemon.c - the daemon shell: link callbacks to core inputs, the
 * outbox to link sends, the deadline timer, signals, and the extension of
 * STATUS_REPLY with the shell's counters, and its part of /metrics.
 */
#include "sk_daemon.h"
#include "sk_advertise.h"
#include "sk_log.h"
#include "sk_peermap.h"
#include "skylark.h"

#include <ev.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Flag bits of a peer's pair. */
#define PF_CONN     1u  /* a connection of ours */
#define PF_HELLO    2u  /* it said HELLO this session */
#define PF_ANSWERED 4u  /* we answered with ours */
#define PF_USER     8u  /* it proved a user token, not the cluster key */
#define PF_EXEC     16u /* it proved an executor token */

/* "role name" of a peer, for log lines. */
#define LABEL_LEN 96

/* Bytes for the keys and values the shell adds to one STATUS_REPLY. */
#define STATUS_POOL (64u << 10)

/* What the shell counted. */
typedef struct sk_daemon_stats {
    uint64_t ds_send_failed;  /* the link refused a message of the core */
    uint64_t ds_unroutable;   /* a message for a reference nobody holds */
    uint64_t ds_map_full;     /* a peer refused: no reference left */
    uint64_t ds_hellos;       /* HELLOs handed to the core */
    uint64_t ds_answers;      /* HELLOs we answered */
    uint64_t ds_bad_input;    /* inputs the core dropped (dh_bad_input) */
    uint64_t ds_role_refused; /* HELLOs of a daemon's role from a user */
} sk_daemon_stats;

struct sk_daemon {
    struct ev_loop *d_loop;
    sk_link *d_link;
    sk_transport *d_t;
    sk_daemon_core d_core;
    sk_daemon_cred_fn d_cred; /* for peers with a user token, or NULL */
    sk_daemon_hooks d_hooks;
    sk_hello d_hello;
    char d_adv[SK_MAX_ADDRS][SK_MAX_ADDR_LEN + 1]; /* d_hello's he_addrs */
    const char *d_advp[SK_MAX_ADDRS];
    sk_peer d_local;
    sk_peermap d_peers;
    ev_timer d_timer;
    sk_time d_armed; /* deadline the timer is set for, or SK_TIME_NEVER */
    ev_signal d_sigterm, d_sigint;
    sk_daemon_stats d_st;
    sk_time d_started;
    uint64_t d_bad_seen;         /* the core's bad-input count last seen */
    char (*d_labels)[LABEL_LEN]; /* by reference: "role name" of peers
                                    that said HELLO, for the log */
    uint32_t d_nlabels;
    const char *d_listen;
    int d_in_pump;
    int d_pump_again;
    int d_down_goodbye; /* the session dc_peer_down reports ended cleanly */
    /* The STATUS_REPLY being extended. */
    sk_msg d_status;
    sk_status_kv d_kv[SK_MAX_STATUS_KV];
    uint32_t d_nkv;
    char *d_pool;
    size_t d_pool_used;
    sk_metrics_server *d_metrics; /* /metrics, or NULL */
};

sk_time sk_daemon_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (sk_time)ts.tv_sec * 1000000u + (sk_time)ts.tv_nsec / 1000u;
}

/* Complaints on the message path: the first and every 1024th. */
static int rate_ok(uint64_t count)
{
    return count % 1024 == 1;
}

static void peer_label(sk_daemon *d, sk_peer_id tid, char *buf, size_t len)
{
    sk_peer_info pi;
    if (sk_transport_peer_info(d->d_t, tid, &pi) == 0 && pi.pi_role[0] != '\0')
        snprintf(buf, len, "%s %s", pi.pi_role, pi.pi_name);
    else
        snprintf(buf, len, "peer %" PRIu64, tid);
}

/* The addresses of a HELLO, space-separated ("none" without any), for
 * the log and status: where a peer says others reach it. */
static void join_addrs(const sk_hello *h, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < h->he_naddrs && n + 1 < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i > 0 ? " " : "",
                         h->he_addrs[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (buf[0] == '\0')
        snprintf(buf, len, "none");
}

static void send_hello(sk_daemon *d, sk_peer_id tid)
{
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_HELLO;
    m.m_hello = d->d_hello;
    if (sk_link_send(d->d_link, tid, &m) != 0) {
        d->d_st.ds_send_failed++;
        sk_warn("cannot send HELLO to peer %" PRIu64, tid);
    }
}

/* ---- STATUS_REPLY extension ------------------------------------------- */

void sk_daemon_status_add(sk_daemon *d, const char *key, const char *fmt, ...)
{
    if (d->d_nkv >= SK_MAX_STATUS_KV)
        return;
    size_t room = STATUS_POOL - d->d_pool_used;
    size_t klen = strnlen(key, SK_MAX_STATUS_LEN);
    if (room < klen + 1 + SK_MAX_STATUS_LEN + 1)
        return;
    char *k = d->d_pool + d->d_pool_used;
    memcpy(k, key, klen);
    k[klen] = '\0';
    char *v = k + klen + 1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v, SK_MAX_STATUS_LEN + 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    d->d_pool_used += klen + 1 + strlen(v) + 1;
    d->d_kv[d->d_nkv].kv_key = k;
    d->d_kv[d->d_nkv].kv_value = v;
    d->d_nkv++;
}

static void add_u64(sk_daemon *d, const char *key, uint64_t v)
{
    sk_daemon_status_add(d, key, "%" PRIu64, v);
}

static const sk_msg *status_extend(sk_daemon *d, const sk_msg *m)
{
    const sk_status_reply *in = &m->m_status_reply;
    d->d_status = *m;
    d->d_nkv = 0;
    d->d_pool_used = 0;
    for (uint32_t i = 0; i < in->sr_nkv && i < SK_MAX_STATUS_KV; i++)
        d->d_kv[d->d_nkv++] = in->sr_kv[i];

    sk_daemon_status_add(d, "daemon.version", "%s", sk_version());
    add_u64(d, "daemon.pid", (uint64_t)getpid());
    sk_time now = sk_daemon_now();
    sk_daemon_status_add(d, "daemon.uptime_s", "%.3f",
                         (double)(now - d->d_started) / 1e6);
    sk_daemon_status_add(d, "daemon.listen", "%s",
                         d->d_listen != NULL ? d->d_listen : "");
    char addrs[SK_MAX_STATUS_LEN + 1];
    join_addrs(&d->d_hello, addrs, sizeof addrs);
    sk_daemon_status_add(d, "daemon.advertised", "%s", addrs);
    add_u64(d, "daemon.peers", d->d_peers.pm_count);
    add_u64(d, "daemon.send_failed", d->d_st.ds_send_failed);
    add_u64(d, "daemon.unroutable", d->d_st.ds_unroutable);
    add_u64(d, "daemon.map_full", d->d_st.ds_map_full);
    add_u64(d, "daemon.hellos", d->d_st.ds_hellos);
    add_u64(d, "daemon.hello_answers", d->d_st.ds_answers);
    if (d->d_hooks.dh_bad_input != NULL)
        add_u64(d, "daemon.bad_input", d->d_st.ds_bad_input);

    sk_link_stats ls;
    sk_link_stats_get(d->d_link, &ls);
    add_u64(d, "link.received", ls.ls_received);
    add_u64(d, "link.sent", ls.ls_sent);
    add_u64(d, "link.bad_version", ls.ls_bad_version);
    add_u64(d, "link.bad_type", ls.ls_bad_type);
    add_u64(d, "link.bad_limit", ls.ls_bad_limit);
    add_u64(d, "link.malformed", ls.ls_malformed);
    add_u64(d, "link.encode_failed", ls.ls_encode_failed);
    add_u64(d, "link.send_failed", ls.ls_send_failed);

    sk_transport_stats ts;
    sk_transport_stats_get(d->d_t, &ts);
    add_u64(d, "transport.peers", ts.ts_peers);
    add_u64(d, "transport.sent", ts.ts_sent);
    add_u64(d, "transport.received", ts.ts_received);
    add_u64(d, "transport.frames_sent", ts.ts_frames_sent);
    add_u64(d, "transport.frames_received", ts.ts_frames_received);
    add_u64(d, "transport.queue_full", ts.ts_queue_full);
    add_u64(d, "transport.dropped", ts.ts_dropped);
    add_u64(d, "transport.malformed", ts.ts_malformed);
    add_u64(d, "transport.seq_gaps", ts.ts_seq_gaps);
    add_u64(d, "transport.unknown", ts.ts_unknown);
    add_u64(d, "transport.peer_limit", ts.ts_peer_limit);
    add_u64(d, "transport.auth_failed", ts.ts_auth_failed);
    add_u64(d, "transport.auth_timeouts", ts.ts_auth_timeouts);
    add_u64(d, "transport.token_expired", ts.ts_token_expired);
    add_u64(d, "transport.role_refused", ts.ts_role_refused);
    add_u64(d, "daemon.role_refused", d->d_st.ds_role_refused);
    add_u64(d, "transport.ups", ts.ts_ups);
    add_u64(d, "transport.downs", ts.ts_downs);

    if (d->d_hooks.dh_status != NULL)
        d->d_hooks.dh_status(d->d_hooks.dh_arg, d);
    d->d_status.m_status_reply.sr_kv = d->d_kv;
    d->d_status.m_status_reply.sr_nkv = d->d_nkv;
    return &d->d_status;
}

/* ---- /metrics ------------------------------------------------------------ */

#define M_COUNTER(name, field, help)                                           \
    {                                                                          \
        "skylark_daemon_" name "_total", NULL, SK_METRIC_COUNTER, help,        \
            offsetof(sk_daemon_stats, field)                                   \
    }
static const sk_metric DAEMON_METRICS[] = {
    M_COUNTER("send_failed", ds_send_failed,
              "Messages of the core the link refused (the session is reset)."),
    M_COUNTER("unroutable", ds_unroutable,
              "Messages of the core for a peer that is gone."),
    M_COUNTER("peer_map_full", ds_map_full,
              "Peers refused: no peer reference left."),
    M_COUNTER("hellos", ds_hellos, "HELLOs handed to the core."),
    M_COUNTER("hello_answers", ds_answers, "HELLOs answered with ours."),
    M_COUNTER("bad_input", ds_bad_input,
              "Inputs the core dropped as not valid for their sender or "
              "state."),
};
#undef M_COUNTER

#define M_LINK(name, field, help)                                              \
    {                                                                          \
        "skylark_link_" name "_total", NULL, SK_METRIC_COUNTER, help,          \
            offsetof(sk_link_stats, field)                                     \
    }
#define M_LINK_BAD(reason, field)                                              \
    {                                                                          \
        "skylark_link_input_dropped_total", "reason=\"" reason "\"",           \
            SK_METRIC_COUNTER,                                                 \
            "Messages received and dropped undecoded, by reason.",             \
            offsetof(sk_link_stats, field)                                     \
    }
static const sk_metric LINK_METRICS[] = {
    M_LINK("messages_received", ls_received,
           "Messages decoded and handed to the daemon."),
    M_LINK("messages_sent", ls_sent, "Messages encoded and queued."),
    M_LINK_BAD("bad_version", ls_bad_version),
    M_LINK_BAD("bad_type", ls_bad_type),
    M_LINK_BAD("over_limit", ls_bad_limit),
    M_LINK_BAD("malformed", ls_malformed),
    M_LINK("encode_failed", ls_encode_failed,
           "Messages of ours that would not encode."),
    M_LINK("send_failed", ls_send_failed,
           "Messages the transport refused to queue."),
};
#undef M_LINK
#undef M_LINK_BAD

#define M_T(name, field, help)                                                 \
    {                                                                          \
        "skylark_transport_" name "_total", NULL, SK_METRIC_COUNTER, help,     \
            offsetof(sk_transport_stats, field)                                \
    }
static const sk_metric TRANSPORT_METRICS[] = {
    M_T("messages_sent", ts_sent, "Messages handed to nanomsg."),
    M_T("messages_received", ts_received, "Messages received and delivered."),
    M_T("frames_sent", ts_frames_sent,
        "Frames sent (a frame may batch messages)."),
    M_T("frames_received", ts_frames_received, "Frames received."),
    M_T("queue_full", ts_queue_full,
        "Sends refused: the peer's send queue was full."),
    M_T("dropped", ts_dropped, "Queued messages discarded at a peer-down."),
    M_T("malformed_frames", ts_malformed, "Frames dropped as malformed."),
    M_T("seq_gaps", ts_seq_gaps, "Sessions reset for a missing frame."),
    M_T("resets", ts_resets, "Sessions reset by the daemon."),
    M_T("unknown_frames", ts_unknown, "Frames from no session."),
    M_T("peer_limit", ts_peer_limit, "Handshakes refused by the peer limits."),
    M_T("auth_failed", ts_auth_failed,
        "Handshakes and frames that failed authentication."),
    M_T("auth_timeouts", ts_auth_timeouts, "Handshakes never finished."),
    M_T("peer_ups", ts_ups, "Peer sessions that came up."),
    M_T("peer_downs", ts_downs, "Peer sessions that ended."),
};
#undef M_T

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The shell's part of a scrape, then the daemon's (loop thread). */
static void collect_metrics(void *arg, sk_metrics_out *o)
{
    sk_daemon *d = arg;
    char labels[128];
    snprintf(labels, sizeof labels, "version=\"%s\"", sk_version());
    sk_metrics_u64(o, "skylark_build_info", labels, SK_METRIC_GAUGE,
                   "1, with the Skylark version as a label.", 1);
    sk_metrics_double(o, "skylark_daemon_start_time_seconds", NULL,
                      SK_METRIC_GAUGE,
                      "When the daemon started, seconds since the epoch.",
                      (double)d->d_started / 1e6);
    sk_metrics_u64(o, "skylark_daemon_peers", NULL, SK_METRIC_GAUGE,
                   "Peers the daemon holds a reference for.",
                   d->d_peers.pm_count);
    sk_metrics_table(o, DAEMON_METRICS, NELEM(DAEMON_METRICS), &d->d_st);
    sk_link_stats ls;
    sk_link_stats_get(d->d_link, &ls);
    sk_metrics_table(o, LINK_METRICS, NELEM(LINK_METRICS), &ls);
    sk_transport_stats ts;
    sk_transport_stats_get(d->d_t, &ts);
    sk_metrics_u64(o, "skylark_transport_peers", NULL, SK_METRIC_GAUGE,
                   "Transport sessions up.", ts.ts_peers);
    sk_metrics_table(o, TRANSPORT_METRICS, NELEM(TRANSPORT_METRICS), &ts);
    if (d->d_hooks.dh_metrics != NULL)
        d->d_hooks.dh_metrics(d->d_hooks.dh_arg, o);
}

/* ---- the outbox, the pump and the timer ------------------------------- */

/* How soon a message should leave among the others of one loop iteration:
 * a task for a slot that waits for it first, work handed to a node next,
 * reports and the rest after (the transport keeps each peer's order). */
static sk_tclass send_class(sk_msg_type type)
{
    switch (type) {
    case SK_MSG_GET_TASK:
    case SK_MSG_TASK_REPLY:
    case SK_MSG_LAUNCH_TASK:
        return SK_TCLASS_FIRST;
    case SK_MSG_ENQUEUE_RESERVATION:
    case SK_MSG_CANCEL_RESERVATIONS:
    case SK_MSG_KILL_TASK:
        return SK_TCLASS_EARLY;
    default:
        return SK_TCLASS_NORMAL;
    }
}

static void route(sk_daemon *d, const sk_out *o)
{
    if (d->d_local != 0 && o->o_peer == d->d_local) {
        if (d->d_hooks.dh_local != NULL)
            d->d_hooks.dh_local(d->d_hooks.dh_arg, &o->o_msg);
        return;
    }
    sk_peer_id tid = sk_peermap_tid(&d->d_peers, o->o_peer);
    if (tid == 0) {
        if (rate_ok(++d->d_st.ds_unroutable))
            sk_warn("%s for peer %u dropped: it is gone; %" PRIu64 " so far",
                    sk_msg_type_name(o->o_msg.m_type), o->o_peer,
                    d->d_st.ds_unroutable);
        return;
    }
    const sk_msg *m = &o->o_msg;
    if (m->m_type == SK_MSG_STATUS_REPLY)
        m = status_extend(d, m);
    int rc = sk_link_send(d->d_link, tid, m);
    if (rc == 0) {
        sk_tclass cls = send_class(m->m_type);
        if (cls != SK_TCLASS_NORMAL)
            sk_transport_expedite(d->d_t, tid, cls);
        return;
    }
    if (rc == SK_ESTATE)
        return; /* the session is already ending */
    d->d_st.ds_send_failed++;
    char who[LABEL_LEN];
    peer_label(d, tid, who, sizeof who);
    sk_warn("%s to %s dropped: %s; resetting the session (%" PRIu64 " so far)",
            sk_msg_type_name(m->m_type), who, sk_strerror(rc),
            d->d_st.ds_send_failed);
    /* The peer would go on without a message the core sent it (a result,
     * a task, a cancel): end the session instead, so that both sides
     * apply what a lost peer means (DAEMONS.md). */
    sk_transport_reset(d->d_t, tid);
}

static void drain(sk_daemon *d)
{
    sk_outbox *ob = d->d_core.dc_outbox(d->d_core.dc_core);
    for (size_t i = 0; i < ob->ob_len; i++)
        route(d, &ob->ob_msgs[i]);
    sk_outbox_clear(ob);
}

/* Re-arms the timer when the core's deadline moved (the clock is read
 * only then). */
static void rearm(sk_daemon *d)
{
    sk_time at = d->d_core.dc_deadline(d->d_core.dc_core);
    if (at == d->d_armed)
        return;
    ev_timer_stop(d->d_loop, &d->d_timer);
    d->d_armed = at;
    if (at == SK_TIME_NEVER)
        return;
    sk_time now = sk_daemon_now();
    double after = at > now ? (double)(at - now) / 1e6 : 0.0;
    ev_timer_set(&d->d_timer, after, 0.0);
    ev_timer_start(d->d_loop, &d->d_timer);
}

/* Sends the outbox, lets the daemon feed its own inputs, re-arms. */
static void pump(sk_daemon *d)
{
    if (d->d_in_pump) {
        d->d_pump_again = 1;
        return;
    }
    d->d_in_pump = 1;
    do {
        d->d_pump_again = 0;
        drain(d);
        while (d->d_hooks.dh_pump != NULL &&
               d->d_hooks.dh_pump(d->d_hooks.dh_arg))
            drain(d);
    } while (d->d_pump_again);
    d->d_in_pump = 0;
    rearm(d);
}

void sk_daemon_pump(sk_daemon *d)
{
    pump(d);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    sk_daemon *d = w->data;
    d->d_armed = SK_TIME_NEVER;
    d->d_core.dc_timer(d->d_core.dc_core, sk_daemon_now());
    pump(d);
}

/* ---- link callbacks ---------------------------------------------------- */

static void on_up(void *arg, sk_peer_id tid, const char *role, const char *name)
{
    sk_daemon *d = arg;
    sk_peer_info pi;
    if (sk_transport_peer_info(d->d_t, tid, &pi) != 0 || !pi.pi_connected)
        return;
    sk_info("connected to %s %s", role, name);
    send_hello(d, tid);
}

/* Remembers who ref is, so that its departure can be logged by name
 * (the transport has forgotten the peer by then). Once per session. */
static void keep_label(sk_daemon *d, sk_peer ref, const char *who)
{
    if (ref >= d->d_nlabels) {
        uint32_t n = d->d_nlabels == 0 ? 64 : d->d_nlabels;
        while (n <= ref)
            n *= 2;
        char(*l)[LABEL_LEN] = realloc(d->d_labels, n * sizeof *l);
        if (l == NULL)
            return;
        d->d_labels = l;
        d->d_nlabels = n;
    }
    snprintf(d->d_labels[ref], LABEL_LEN, "%s", who);
}

/* An executor token registers an executor of the framework it names,
 * with a node monitor, and nothing else. Refusals are counted and
 * logged (rate-limited). */
static int exec_hello_ok(sk_daemon *d, sk_peer_id tid, const sk_hello *h)
{
    sk_peer_info pi;
    const char *why = NULL;
    if (sk_transport_peer_info(d->d_t, tid, &pi) != 0)
        why = "its session is gone";
    else if (h->he_role != SK_ROLE_EXECUTOR ||
             d->d_hello.he_role != SK_ROLE_NODEMON)
        why = "an executor token may only register an executor with a node "
              "monitor";
    else if (h->he_framework == NULL || strcmp(h->he_framework, pi.pi_user))
        why = "an executor token registers the framework it names only";
    if (why == NULL)
        return 1;
    if (rate_ok(++d->d_st.ds_role_refused)) {
        char who[LABEL_LEN];
        peer_label(d, tid, who, sizeof who);
        sk_warn("%s: HELLO as role %u (framework %.64s) refused: %s (token "
                "of %s); %" PRIu64 " so far",
                who, h->he_role, h->he_framework ? h->he_framework : "", why,
                pi.pi_user, d->d_st.ds_role_refused);
    }
    return 0;
}

static void on_hello(sk_daemon *d, sk_peer_id tid, sk_peer ref, uint32_t *flags,
                     const sk_hello *h, sk_time now)
{
    if ((*flags & PF_EXEC) && !exec_hello_ok(d, tid, h))
        return;
    if ((*flags & PF_USER) && h->he_role != SK_ROLE_FRONTEND) {
        /* A role comes from the credential: only the cluster key may
         * register a scheduler, node monitor, flowd or executor. */
        if (rate_ok(++d->d_st.ds_role_refused)) {
            char who[LABEL_LEN];
            peer_label(d, tid, who, sizeof who);
            sk_warn("%s: HELLO as role %u refused: a user token may only "
                    "register a frontend; %" PRIu64 " so far",
                    who, h->he_role, d->d_st.ds_role_refused);
        }
        return;
    }
    if (!(*flags & PF_CONN) && !(*flags & PF_ANSWERED)) {
        send_hello(d, tid);
        *flags |= PF_ANSWERED;
        d->d_st.ds_answers++;
    }
    if (!(*flags & PF_HELLO)) {
        *flags |= PF_HELLO;
        char who[LABEL_LEN];
        peer_label(d, tid, who, sizeof who);
        keep_label(d, ref, who);
        char addrs[512];
        join_addrs(h, addrs, sizeof addrs);
        sk_info("%s registered (role %u, id %u, name %s, %u slots, at %s)", who,
                h->he_role, h->he_id, h->he_name, h->he_slots, addrs);
    }
    d->d_st.ds_hellos++;
    d->d_core.dc_peer_up(d->d_core.dc_core, ref, h, now);
}

/* Logs what the core dropped of this input (rate-limited). */
static void check_bad_input(sk_daemon *d, sk_peer_id tid, int type)
{
    uint64_t bad = d->d_hooks.dh_bad_input(d->d_hooks.dh_arg);
    if (bad == d->d_bad_seen)
        return;
    d->d_bad_seen = bad;
    if (!rate_ok(++d->d_st.ds_bad_input))
        return;
    char who[LABEL_LEN];
    peer_label(d, tid, who, sizeof who);
    sk_warn("%s from %s dropped: not valid for its sender or state; "
            "%" PRIu64 " so far",
            sk_msg_type_name(type), who, d->d_st.ds_bad_input);
}

static void on_msg(void *arg, sk_peer_id tid, const sk_msg *msg)
{
    sk_daemon *d = arg;
    sk_time now = sk_daemon_now();
    sk_peer ref;
    if (sk_peermap_find(&d->d_peers, tid, &ref) != 0) {
        if (sk_peermap_add(&d->d_peers, tid, &ref) != 0) {
            if (rate_ok(++d->d_st.ds_map_full))
                sk_warn("message from peer %" PRIu64 " dropped: no peer "
                        "reference left; %" PRIu64 " so far",
                        tid, d->d_st.ds_map_full);
            return;
        }
        sk_peer_info pi;
        if (sk_transport_peer_info(d->d_t, tid, &pi) != 0)
            memset(&pi, 0, sizeof pi);
        if (pi.pi_connected)
            *sk_peermap_flags(&d->d_peers, ref) |= PF_CONN;
        else if (pi.pi_cred == SK_CRED_EXECUTOR)
            *sk_peermap_flags(&d->d_peers, ref) |= PF_EXEC; /* no user */
        else if (pi.pi_cred != SK_CRED_CLUSTER) {
            *sk_peermap_flags(&d->d_peers, ref) |= PF_USER;
            if (d->d_cred != NULL &&
                d->d_cred(d->d_core.dc_core, ref, pi.pi_user,
                          pi.pi_cred == SK_CRED_ADMIN) != 0) {
                sk_warn("user %s: the core cannot take its credential; "
                        "ending its session",
                        pi.pi_user);
                sk_transport_reset(d->d_t, tid);
                return;
            }
        }
    }
    if (msg->m_type == SK_MSG_HELLO)
        on_hello(d, tid, ref, sk_peermap_flags(&d->d_peers, ref), &msg->m_hello,
                 now);
    else
        d->d_core.dc_message(d->d_core.dc_core, ref, msg, now);
    if (d->d_hooks.dh_bad_input != NULL)
        check_bad_input(d, tid, msg->m_type);
    pump(d);
}

static const char *down_reason(sk_peer_down_reason why)
{
    switch (why) {
    case SK_PEER_TIMEOUT:
        return "silent too long";
    case SK_PEER_GOODBYE:
        return "goodbye";
    case SK_PEER_REPLACED:
        return "replaced by a new session";
    case SK_PEER_RESET:
        return "session reset";
    case SK_PEER_CLOSED:
        return "closed by us";
    }
    return "unknown reason";
}

static void on_down(void *arg, sk_peer_id tid, sk_peer_down_reason why)
{
    sk_daemon *d = arg;
    sk_peer ref;
    if (sk_peermap_find(&d->d_peers, tid, &ref) != 0)
        return;
    uint32_t flags = *sk_peermap_flags(&d->d_peers, ref);
    if (flags & PF_HELLO)
        sk_info("%s left: %s", ref < d->d_nlabels ? d->d_labels[ref] : "a peer",
                down_reason(why));
    /* Unpair first: what the core says to a peer that is gone is counted
     * as unroutable, not as a failed send. */
    sk_peermap_remove(&d->d_peers, tid, NULL);
    d->d_down_goodbye = why == SK_PEER_GOODBYE;
    d->d_core.dc_peer_down(d->d_core.dc_core, ref, sk_daemon_now());
    d->d_down_goodbye = 0;
    pump(d);
}

int sk_daemon_down_goodbye(const sk_daemon *d)
{
    return d->d_down_goodbye;
}

void sk_daemon_on_cred(sk_daemon *d, sk_daemon_cred_fn fn)
{
    d->d_cred = fn;
}

/* ---- signals and life cycle --------------------------------------------- */

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)loop;
    (void)revents;
    sk_daemon *d = w->data;
    sk_info("%s: shutting down", strsignal(w->signum));
    if (d->d_hooks.dh_signal != NULL)
        d->d_hooks.dh_signal(d->d_hooks.dh_arg, w->signum);
    else
        sk_daemon_stop(d);
}

int sk_daemon_create(struct ev_loop *loop, const sk_daemon_config *cfg,
                     const sk_daemon_core *core, const sk_daemon_hooks *hooks,
                     sk_daemon **out)
{
    sk_daemon *d = calloc(1, sizeof *d);
    if (d == NULL)
        return SK_ENOMEM;
    d->d_pool = malloc(STATUS_POOL);
    if (d->d_pool == NULL) {
        free(d);
        return SK_ENOMEM;
    }
    d->d_loop = loop;
    d->d_core = *core;
    if (hooks != NULL)
        d->d_hooks = *hooks;
    d->d_hello = cfg->dc_hello;
    if (cfg->dc_listen != NULL && cfg->dc_listen[0] != '\0') {
        int n = sk_advertise(cfg->dc_listen, d->d_adv, SK_MAX_ADDRS);
        for (int i = 0; i < n; i++)
            d->d_advp[i] = d->d_adv[i];
        d->d_hello.he_addrs = d->d_advp;
        d->d_hello.he_naddrs = (uint32_t)n;
    }
    d->d_local = cfg->dc_local;
    d->d_listen = cfg->dc_listen;
    d->d_armed = SK_TIME_NEVER;
    d->d_started = sk_daemon_now();
    sk_peermap_init(&d->d_peers);
    ev_timer_init(&d->d_timer, on_timer, 0, 0);
    d->d_timer.data = d;

    sk_link_callbacks cb = {
        .lk_up = on_up, .lk_down = on_down, .lk_msg = on_msg, .lk_arg = d};
    int rc = sk_link_create(loop, &cfg->dc_transport, &cb, &d->d_link);
    if (rc != 0) {
        sk_error("cannot create the transport: %s", sk_strerror(rc));
        free(d->d_pool);
        free(d);
        return rc;
    }
    d->d_t = sk_link_transport(d->d_link);
    if (cfg->dc_listen != NULL && cfg->dc_listen[0] != '\0') {
        rc = sk_transport_listen(d->d_t, cfg->dc_listen);
        if (rc != 0) {
            sk_error("cannot listen on %s: %s", cfg->dc_listen,
                     sk_strerror(rc));
            sk_daemon_destroy(d);
            return SK_EIO;
        }
    }
    if (!cfg->dc_transport.tc_keyed)
        sk_warn("no cluster key: sessions are neither authenticated nor "
                "encrypted, and whoever reaches %s may use this daemon "
                "(key_file, --key-file)",
                cfg->dc_listen != NULL && cfg->dc_listen[0] != '\0'
                    ? cfg->dc_listen
                    : "it");
    for (uint32_t i = 0; i < cfg->dc_nconnect; i++) {
        sk_peer_id id;
        rc = sk_transport_connect(d->d_t, cfg->dc_connect[i], &id);
        if (rc != 0) {
            sk_error("cannot connect to %s: %s", cfg->dc_connect[i],
                     sk_strerror(rc));
            sk_daemon_destroy(d);
            return SK_EIO;
        }
    }
    if (cfg->dc_metrics.mc_listen != NULL &&
        cfg->dc_metrics.mc_listen[0] != '\0') {
        char err[256];
        rc = sk_metrics_server_start(loop, &cfg->dc_metrics, collect_metrics, d,
                                     &d->d_metrics, err, sizeof err);
        if (rc != 0) {
            sk_error("%s", err);
            sk_daemon_destroy(d);
            return SK_EIO;
        }
        sk_info("metrics on http://%s/metrics%s", cfg->dc_metrics.mc_listen,
                cfg->dc_metrics.mc_token != NULL ? " (bearer token)" : "");
    }
    ev_signal_init(&d->d_sigterm, on_signal, SIGTERM);
    d->d_sigterm.data = d;
    ev_signal_start(loop, &d->d_sigterm);
    ev_signal_init(&d->d_sigint, on_signal, SIGINT);
    d->d_sigint.data = d;
    ev_signal_start(loop, &d->d_sigint);
    if (cfg->dc_listen != NULL && cfg->dc_listen[0] != '\0') {
        char addrs[SK_MAX_ADDRS * (SK_MAX_ADDR_LEN + 1)];
        join_addrs(&d->d_hello, addrs, sizeof addrs);
        if (strcmp(addrs, cfg->dc_listen) != 0)
            sk_info("advertising %s to peers (listening on %s)", addrs,
                    cfg->dc_listen);
        sk_info("listening on %s", cfg->dc_listen);
    }
    *out = d;
    return 0;
}

void sk_daemon_run(sk_daemon *d)
{
    ev_run(d->d_loop, 0);
}

void sk_daemon_stop(sk_daemon *d)
{
    ev_break(d->d_loop, EVBREAK_ALL);
}

void sk_daemon_destroy(sk_daemon *d)
{
    if (d == NULL)
        return;
    sk_metrics_server_stop(d->d_metrics);
    ev_timer_stop(d->d_loop, &d->d_timer);
    if (ev_is_active(&d->d_sigterm))
        ev_signal_stop(d->d_loop, &d->d_sigterm);
    if (ev_is_active(&d->d_sigint))
        ev_signal_stop(d->d_loop, &d->d_sigint);
    sk_link_destroy(d->d_link);
    sk_peermap_free(&d->d_peers);
    free(d->d_labels);
    free(d->d_pool);
    free(d);
}

int sk_daemon_reset_peer(sk_daemon *d, sk_peer ref)
{
    sk_peer_id tid = sk_peermap_tid(&d->d_peers, ref);
    if (tid == 0)
        return SK_ENOTFOUND;
    return sk_transport_reset(d->d_t, tid);
}
