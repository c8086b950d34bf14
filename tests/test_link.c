/*
 * test_link.c - typed messages over the transport: a message sent with
 * sk_link_send arrives decoded; input that does not decode (garbage,
 * another protocol version, an unknown type, a limit exceeded) is counted
 * by kind and dropped while the session goes on; a message that will not
 * encode is refused and counted.
 */
#include "sk_link.h"
#include "sk_log.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <ev.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

static struct ev_loop *loop;

/* What one side saw. */
typedef struct side {
    sk_link *sd_link;
    sk_peer_id sd_peer; /* the other side, once up */
    int sd_ups;
    int sd_msgs;
    sk_msg_type sd_last_type;
    char sd_last_user[64];
    uint32_t sd_last_ntasks;
} side;

static void on_up(void *arg, sk_peer_id peer, const char *role,
                  const char *name)
{
    side *s = arg;
    s->sd_peer = peer;
    s->sd_ups++;
}

static void on_msg(void *arg, sk_peer_id peer, const sk_msg *msg)
{
    side *s = arg;
    s->sd_msgs++;
    s->sd_last_type = msg->m_type;
    if (msg->m_type == SK_MSG_SUBMIT_JOB) {
        snprintf(s->sd_last_user, sizeof s->sd_last_user, "%s",
                 msg->m_submit_job.sj_user);
        s->sd_last_ntasks = msg->m_submit_job.sj_ntasks;
    }
}

static sk_link *make(side *s, const char *role, const char *name)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", role);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    cfg.tc_heartbeat = 0.2;
    cfg.tc_misses = 10;
    sk_link_callbacks cb = {.lk_up = on_up, .lk_msg = on_msg, .lk_arg = s};
    if (sk_link_create(loop, &cfg, &cb, &s->sd_link) != 0)
        tap_bail_out("cannot create link %s", name);
    return s->sd_link;
}

static int both_up(void *arg)
{
    side *s = arg;
    return s[0].sd_ups > 0 && s[1].sd_ups > 0;
}

static int got_msgs(void *arg)
{
    side *s = arg;
    return s->sd_msgs >= 1;
}

/* Raw bytes from b to a, past the link's encoder. */
static void send_raw(side *from, const void *data, size_t len)
{
    sk_transport_send(sk_link_transport(from->sd_link), from->sd_peer, data,
                      len);
}

/* A msgpack envelope [version, type] with nothing after it; with reason,
 * a CANCEL_JOB body [job, reason] after it. */
static size_t envelope(char *out, size_t cap, uint64_t version, uint64_t type,
                       const char *reason)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, reason != NULL ? 4 : 2);
    msgpack_pack_uint64(&pk, version);
    msgpack_pack_uint64(&pk, type);
    if (reason != NULL) {
        msgpack_pack_uint64(&pk, 1);
        msgpack_pack_str_with_body(&pk, reason, strlen(reason));
    }
    size_t n = sb.size < cap ? sb.size : cap;
    memcpy(out, sb.data, n);
    msgpack_sbuffer_destroy(&sb);
    return n;
}

int main(void)
{
    tap_timeout(60);
    tap_plan(11);
    sk_log_set_level(SK_LOG_ERROR);
    loop = ev_loop_new(EVFLAG_AUTO);
    side s[2];
    memset(s, 0, sizeof s);
    sk_link *a = make(&s[0], "sched", "a");
    sk_link *b = make(&s[1], "frontend", "b");
    int port = tu_free_port();
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    sk_peer_id conn;
    if (sk_transport_listen(sk_link_transport(a), ep) != 0 ||
        sk_transport_connect(sk_link_transport(b), ep, &conn) != 0)
        tap_bail_out("cannot listen or connect on %s", ep);
    tap_ok(tu_run_until(loop, both_up, s, 10), "both sides come up");

    sk_task_spec tasks[3] = {{.ts_spec = {(const uint8_t *)"x", 1}},
                             {.ts_spec = {(const uint8_t *)"y", 1}},
                             {.ts_spec = {NULL, 0}}};
    sk_msg m = {.m_type = SK_MSG_SUBMIT_JOB};
    m.m_submit_job.sj_job = 7;
    m.m_submit_job.sj_user = "ana";
    m.m_submit_job.sj_tasks = tasks;
    m.m_submit_job.sj_ntasks = 3;
    tap_is_int(sk_link_send(b, conn, &m), 0, "a SUBMIT_JOB is sent");
    tu_run_until(loop, got_msgs, &s[0], 10);
    tap_ok(s[0].sd_msgs == 1 && s[0].sd_last_type == SK_MSG_SUBMIT_JOB &&
               strcmp(s[0].sd_last_user, "ana") == 0 &&
               s[0].sd_last_ntasks == 3,
           "it arrives decoded, fields intact");

    s[0].sd_msgs = 0;
    char raw[4096], reason[SK_MAX_REASON_LEN + 2];
    memset(reason, 'r', sizeof reason - 1);
    reason[sizeof reason - 1] = '\0';
    send_raw(&s[1], "\xc1garbage", 8);
    send_raw(&s[1], raw,
             envelope(raw, sizeof raw, SK_PROTOCOL_VERSION + 1, 1, NULL));
    send_raw(&s[1], raw,
             envelope(raw, sizeof raw, SK_PROTOCOL_VERSION, 99, NULL));
    send_raw(&s[1], raw,
             envelope(raw, sizeof raw, SK_PROTOCOL_VERSION, 2, NULL));
    send_raw(&s[1], raw,
             envelope(raw, sizeof raw, SK_PROTOCOL_VERSION, SK_MSG_CANCEL_JOB,
                      reason));
    m.m_submit_job.sj_ntasks = 0;
    tap_is_int(sk_link_send(b, conn, &m), SK_EINVAL,
               "a job without tasks does not encode");
    m.m_submit_job.sj_ntasks = 3;
    m.m_submit_job.sj_job = 8;
    sk_link_send(b, conn, &m);
    tu_run_until(loop, got_msgs, &s[0], 10);
    sk_link_stats st;
    sk_link_stats_get(a, &st);
    tap_is_int((int64_t)st.ls_malformed, 2,
               "garbage and a truncated body are counted as malformed");
    tap_is_int((int64_t)st.ls_bad_version, 1,
               "another protocol version is counted");
    tap_is_int((int64_t)st.ls_bad_type, 1, "an unknown type is counted");
    tap_is_int((int64_t)st.ls_bad_limit, 1,
               "a reason over its length limit is counted");
    tap_ok(s[0].sd_msgs == 1 && st.ls_received == 2,
           "the session goes on: the next good message arrives");
    sk_link_stats_get(b, &st);
    tap_ok(st.ls_encode_failed == 1 && st.ls_sent == 2,
           "the sender counted one refused encode and two sends");
    tap_is_int(sk_link_send(b, 12345, &m), SK_ENOTFOUND,
               "sending to no such peer is refused");

    sk_link_destroy(b);
    sk_link_destroy(a);
    ev_loop_destroy(loop);
    return tap_exit_status();
}
