/*
 * test_daemon_hostile.c - hostile input sent with raw nanomsg to a real
 * skylark-sched and a real skylark-nodemon: undecodable messages (not
 * msgpack, another protocol version, an unknown type, a string over its
 * limit, a truncated body), messages a daemon does not take, malformed
 * transport frames and a frame over the receive limit. Each is dropped
 * and counted (the counters come back in STATUS_REPLY), and the daemons
 * keep serving: the hostile peer's own session answers a STATUS_REQUEST,
 * and a job submitted afterwards runs. A job over the scheduler's task
 * limit is rejected with a reason.
 */
#include "daemon_harness.h"
#include "sk_tframe.h"
#include "transport_util.h"
#include "skylark.h"
#include "tap.h"

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dh_proc sched, node;
static dh_client *fe;

/* ---- a raw dealer ------------------------------------------------------- */

static int raw_open(const char *endpoint)
{
    int s = nn_socket(AF_SP_RAW, NN_REQ);
    int ms = 3000;
    nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &ms, sizeof ms);
    nn_setsockopt(s, NN_SOL_SOCKET, NN_SNDTIMEO, &ms, sizeof ms);
    if (s < 0 || nn_connect(s, endpoint) < 0)
        tap_bail_out("raw socket to %s failed", endpoint);
    return s;
}

static int raw_send(int s, const void *frame, size_t len)
{
    return tu_raw_send(s, 0x80000007u, frame, len, 0);
}

/* Receives one frame (blocking up to the receive timeout) into buf;
 * returns its length or -1. */
static int raw_recv(int s, uint8_t *buf, size_t cap)
{
    void *m;
    int n = nn_recv(s, &m, NN_MSG, 0);
    if (n < 0)
        return -1;
    size_t len = (size_t)n < cap ? (size_t)n : cap;
    memcpy(buf, m, len);
    nn_freemsg(m);
    return (int)len;
}

/* The state of the raw session: our next seq, frames received. */
typedef struct raw_peer {
    int rp_sock;
    uint32_t rp_seq;
    uint32_t rp_rx;
} raw_peer;

static int raw_handshake(raw_peer *rp, const char *endpoint)
{
    rp->rp_sock = raw_open(endpoint);
    uint8_t f[SK_TFRAME_HDR + SK_TFRAME_HELLO_MAX];
    size_t n = sk_tframe_hello_body(f + SK_TFRAME_HDR, "tool", "raw1", 77);
    sk_tframe_header(f, SK_TF_HELLO, 0, 0, 0);
    raw_send(rp->rp_sock, f, SK_TFRAME_HDR + n);
    rp->rp_seq = 1;
    uint8_t in[256];
    int len = raw_recv(rp->rp_sock, in, sizeof in);
    rp->rp_rx = len >= SK_TFRAME_HDR && in[1] == SK_TF_HELLO ? 1 : 0;
    return rp->rp_rx == 1;
}

/* Sends one DATA frame holding one record (the bytes msg[0..len)). */
static void raw_data(raw_peer *rp, const void *msg, size_t len)
{
    uint8_t *f = malloc(SK_TFRAME_HDR + SK_TFRAME_REC + len);
    sk_tframe_header(f, SK_TF_DATA, rp->rp_seq++, rp->rp_rx, 1);
    sk_tframe_put32(f + SK_TFRAME_HDR, (uint32_t)len);
    memcpy(f + SK_TFRAME_HDR + SK_TFRAME_REC, msg, len);
    raw_send(rp->rp_sock, f, SK_TFRAME_HDR + SK_TFRAME_REC + len);
    free(f);
}

/* Sends a STATUS_REQUEST in the session and waits for its reply. */
static int raw_status(raw_peer *rp)
{
    sk_buf b = SK_BUF_INIT;
    sk_msg m;
    memset(&m, 0, sizeof m);
    m.m_type = SK_MSG_STATUS_REQUEST;
    m.m_status_request.sq_request = 4242;
    sk_msg_encode(&b, &m);
    raw_data(rp, b.b_data, b.b_len);
    sk_buf_free(&b);
    static uint8_t in[1 << 17];
    for (int tries = 0; tries < 5; tries++) {
        int len = raw_recv(rp->rp_sock, in, sizeof in);
        if (len < 0)
            return 0;
        rp->rp_rx++;
        sk_tframe f;
        const char *why;
        if (sk_tframe_parse(in, (size_t)len, 1u << 24, &f, &why) != 0 ||
            f.tf_kind != SK_TF_DATA || f.tf_count < 1)
            continue;
        uint32_t rlen = sk_tframe_get32(f.tf_body);
        sk_msg r;
        if (sk_msg_decode(f.tf_body + SK_TFRAME_REC, rlen, &r) != 0)
            continue;
        int ok = r.m_type == SK_MSG_STATUS_REPLY &&
                 r.m_status_reply.sr_request == 4242;
        sk_msg_free(&r);
        if (ok)
            return 1;
    }
    return 0;
}

/* ---- the hostile messages ----------------------------------------------- */

/* A HELLO whose name is 300 bytes: over SK_MAX_NAME_LEN. */
static size_t long_name_hello(uint8_t *out)
{
    size_t n = 0;
    out[n++] = 0x9c; /* array of 12: version, type, 10 fields */
    out[n++] = SK_PROTOCOL_VERSION;
    out[n++] = SK_MSG_HELLO;
    out[n++] = SK_ROLE_NODEMON;
    out[n++] = 0;    /* id */
    out[n++] = 0;    /* incarnation */
    out[n++] = 0xda; /* str 16 */
    out[n++] = 300 >> 8;
    out[n++] = 300 & 0xff;
    memset(out + n, 'x', 300);
    n += 300;
    out[n++] = 0x90; /* addrs [] */
    out[n++] = 0;    /* slots */
    out[n++] = 0x92; /* resources [0, 0] */
    out[n++] = 0;
    out[n++] = 0;
    out[n++] = 0x90; /* labels [] */
    out[n++] = 0xa0; /* framework "" */
    out[n++] = 0xa0; /* rack "" */
    return n;
}

typedef struct counts {
    int64_t malformed, bad_version, bad_type, bad_limit, transport_malformed;
} counts;

static void get_counts(sk_peer_id peer, counts *c)
{
    dh_status st;
    dh_client_status(fe, peer, false, &st, 3);
    c->malformed = dh_status_int(&st, "link.malformed");
    c->bad_version = dh_status_int(&st, "link.bad_version");
    c->bad_type = dh_status_int(&st, "link.bad_type");
    c->bad_limit = dh_status_int(&st, "link.bad_limit");
    c->transport_malformed = dh_status_int(&st, "transport.malformed");
    dh_status_free(&st);
}

/* Sends everything hostile to the daemon at endpoint; `wrong` is a valid
 * message the daemon does not take from this peer, and `bad_key` the
 * counter that must count it. */
static void attack(const char *who, const dh_proc *d, sk_peer_id peer,
                   const sk_msg *wrong, const char *bad_key)
{
    const char *endpoint = d->dp_endpoint;
    counts before, after;
    get_counts(peer, &before);
    dh_status st;
    dh_client_status(fe, peer, false, &st, 3);
    int64_t bad_before = dh_status_int(&st, bad_key);
    dh_status_free(&st);

    raw_peer rp;
    tap_ok(raw_handshake(&rp, endpoint), "%s: a raw dealer does the handshake",
           who);
    static const uint8_t not_msgpack[] = {0xc1, 0xc1, 0xc1};
    static const uint8_t later[] = {0x94, SK_PROTOCOL_VERSION + 1,
                                    SK_MSG_STATUS_REQUEST, 1, 0xc2};
    static const uint8_t type99[] = {0x92, SK_PROTOCOL_VERSION, 99};
    static const uint8_t truncated[] = {0x93, SK_PROTOCOL_VERSION,
                                        SK_MSG_STATUS_REQUEST, 1};
    uint8_t big[400];
    size_t big_len = long_name_hello(big);
    raw_data(&rp, not_msgpack, sizeof not_msgpack);
    raw_data(&rp, later, sizeof later);
    raw_data(&rp, type99, sizeof type99);
    raw_data(&rp, big, big_len);
    raw_data(&rp, truncated, sizeof truncated);
    sk_buf b = SK_BUF_INIT;
    sk_msg_encode(&b, wrong);
    raw_data(&rp, b.b_data, b.b_len);
    sk_buf_free(&b);
    tap_ok(raw_status(&rp),
           "%s: the same session still answers a STATUS_REQUEST", who);

    /* Frames the transport rejects, from a second raw socket. */
    int s = raw_open(endpoint);
    uint8_t f[64];
    memset(f, 0, sizeof f);
    raw_send(s, "garbage", 7); /* shorter than a header */
    sk_tframe_header(f, SK_TF_DATA, 0, 0, 1);
    sk_tframe_put32(f + SK_TFRAME_HDR, 1000); /* record past the end */
    raw_send(s, f, SK_TFRAME_HDR + 4);
    sk_tframe_header(f, 77, 0, 0, 0); /* unknown kind */
    raw_send(s, f, SK_TFRAME_HDR);
    /* Over the receive limit: nanomsg drops the connection. */
    size_t huge_len = 4u << 20;
    uint8_t *huge = calloc(1, huge_len);
    sk_tframe_header(huge, SK_TF_DATA, 0, 0, 1);
    sk_tframe_put32(huge + SK_TFRAME_HDR, (uint32_t)(huge_len - 20));
    raw_send(s, huge, huge_len);
    free(huge);
    dh_client_run_for(fe, 0.2);

    get_counts(peer, &after);
    tap_ok(after.malformed - before.malformed == 2 &&
               after.bad_version - before.bad_version == 1 &&
               after.bad_type - before.bad_type == 1 &&
               after.bad_limit - before.bad_limit == 1,
           "%s: undecodable messages are counted by kind (malformed +%lld, "
           "version +%lld, type +%lld, limit +%lld)",
           who, (long long)(after.malformed - before.malformed),
           (long long)(after.bad_version - before.bad_version),
           (long long)(after.bad_type - before.bad_type),
           (long long)(after.bad_limit - before.bad_limit));
    tap_ok(after.transport_malformed - before.transport_malformed == 3,
           "%s: malformed frames are counted (+%lld)", who,
           (long long)(after.transport_malformed - before.transport_malformed));
    dh_client_status(fe, peer, false, &st, 3);
    tap_ok(dh_status_int(&st, bad_key) == bad_before + 1,
           "%s: a message it does not take is counted in %s", who, bad_key);
    dh_status_free(&st);
    tap_ok(dh_log_has(d, "dropped a message") &&
               dh_log_has(d, "malformed frame"),
           "%s: its log says what it dropped", who);
    nn_close(s);
    nn_close(rp.rp_sock);
}

int main(void)
{
    tap_plan(16);
    tap_timeout(60);
    dh_init();
    /* A small message limit, so the oversized frame stays small. */
    const char *small[] = {"--set", "transport.max_msg_bytes=65536", "--set",
                           "sched.max_tasks=100", NULL};
    if (dh_start_sched(&sched, "s1", 1, small) != 0)
        tap_bail_out("the scheduler did not start");
    const dh_proc *s[] = {&sched};
    if (dh_start_nodemon(&node, "n1", 1, 2, s, 1, NULL) != 0)
        tap_bail_out("the node monitor did not start");
    fe = dh_client_new("frontend", "fe1");
    sk_peer_id sp = dh_client_connect(fe, sched.dp_endpoint, 5);
    sk_peer_id np = dh_client_connect(fe, node.dp_endpoint, 5);
    dh_client_hello(fe, sp, SK_ROLE_FRONTEND);
    tap_ok(sp != 0 && np != 0 && dh_wait_status(fe, sp, "nodes", 1, 10, NULL),
           "a scheduler and a node monitor run");

    sk_msg done;
    memset(&done, 0, sizeof done);
    done.m_type = SK_MSG_JOB_DONE; /* a scheduler never takes it */
    attack("scheduler", &sched, sp, &done, "bad_input");
    tap_ok(dh_log_has(&sched, "JOB_DONE from tool raw1 dropped"),
           "scheduler: its log names the message the core dropped and whom "
           "from");
    sk_msg enq;
    memset(&enq, 0, sizeof enq);
    enq.m_type = SK_MSG_ENQUEUE_RESERVATION; /* from no scheduler */
    enq.m_enqueue.er_user = "mallory";
    enq.m_enqueue.er_count = 1;
    attack("node monitor", &node, np, &enq, "unexpected");

    dh_job *j = dh_client_submit(fe, sp, 1, 101, "true", "alice", 0);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 5) == 0 &&
               j->jb_rejected == 1 && strstr(j->jb_reason, "100") != NULL,
           "a job over max_tasks is rejected with a reason: %s",
           j ? j->jb_reason : "");
    j = dh_client_submit(fe, sp, 2, 20, "true", "alice", 0);
    tap_ok(j != NULL && dh_job_wait_done(fe, j, 20) &&
               j->jb_summary.jd_ok == 20,
           "both daemons still run a job of 20 tasks");
    if (tap_failures() > 0) {
        dh_log_tail(&sched, 20);
        dh_log_tail(&node, 20);
    }
    dh_client_free(fe);
    return tap_exit_status();
}
