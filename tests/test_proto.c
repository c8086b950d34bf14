/*
 * test_proto.c - the wire protocol round trip: random messages of every
 * type, encoded and decoded through the generic and the per-type
 * functions, compared field by field; a few encodings pinned byte for
 * byte; the envelope helpers; what may be a rack's name.
 */
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"
#include "test_proto_gen.h"

#include <stdio.h>
#include <string.h>

#define ITERATIONS 1500

/* The per-type encoder of msg's type. */
static int encode_typed(sk_buf *b, const sk_msg *m)
{
    switch (m->m_type) {
    case SK_MSG_HELLO:
        return sk_hello_encode(b, &m->m_hello);
    case SK_MSG_SUBMIT_JOB:
        return sk_submit_job_encode(b, &m->m_submit_job);
    case SK_MSG_JOB_ACCEPTED:
        return sk_job_accepted_encode(b, &m->m_job_ack);
    case SK_MSG_JOB_REJECTED:
        return sk_job_rejected_encode(b, &m->m_job_ack);
    case SK_MSG_ENQUEUE_RESERVATION:
        return sk_enqueue_encode(b, &m->m_enqueue);
    case SK_MSG_GET_TASK:
        return sk_get_task_encode(b, &m->m_get_task);
    case SK_MSG_TASK_REPLY:
        return sk_task_reply_encode(b, &m->m_task_reply);
    case SK_MSG_CANCEL_RESERVATIONS:
        return sk_cancel_resv_encode(b, &m->m_cancel_resv);
    case SK_MSG_LAUNCH_TASK:
        return sk_launch_encode(b, &m->m_launch);
    case SK_MSG_TASK_STARTED:
        return sk_task_started_encode(b, &m->m_task_started);
    case SK_MSG_TASK_FINISHED:
        return sk_task_finished_encode(b, &m->m_task_finished);
    case SK_MSG_CANCEL_JOB:
        return sk_cancel_job_encode(b, &m->m_cancel_job);
    case SK_MSG_JOB_DONE:
        return sk_job_done_encode(b, &m->m_job_done);
    case SK_MSG_KILL_TASK:
        return sk_kill_task_encode(b, &m->m_kill_task);
    case SK_MSG_RESERVE:
        return sk_reserve_encode(b, &m->m_reserve);
    case SK_MSG_RESERVE_ACK:
        return sk_reserve_ack_encode(b, &m->m_reserve_ack);
    case SK_MSG_RESERVE_REJECT:
        return sk_reserve_reject_encode(b, &m->m_reserve_ack);
    case SK_MSG_RELEASE:
        return sk_release_encode(b, &m->m_release);
    case SK_MSG_HEARTBEAT:
        return sk_heartbeat_encode(b, &m->m_heartbeat);
    case SK_MSG_MEMBERSHIP:
        return sk_membership_encode(b, &m->m_membership);
    case SK_MSG_STATUS_REQUEST:
        return sk_status_request_encode(b, &m->m_status_request);
    case SK_MSG_STATUS_REPLY:
        return sk_status_reply_encode(b, &m->m_status_reply);
    case SK_MSG_TASK_OUTCOME:
        return sk_task_outcome_encode(b, &m->m_task_outcome);
    }
    return SK_EUNKNOWN;
}

typedef int (*decoder)(const void *, size_t, sk_msg *);

/* The per-type decoder of a type. */
static decoder decoder_of(sk_msg_type t)
{
    static const decoder table[SK_MSG_TYPE_END] = {
        [SK_MSG_HELLO] = sk_hello_decode,
        [SK_MSG_SUBMIT_JOB] = sk_submit_job_decode,
        [SK_MSG_JOB_ACCEPTED] = sk_job_accepted_decode,
        [SK_MSG_JOB_REJECTED] = sk_job_rejected_decode,
        [SK_MSG_ENQUEUE_RESERVATION] = sk_enqueue_decode,
        [SK_MSG_GET_TASK] = sk_get_task_decode,
        [SK_MSG_TASK_REPLY] = sk_task_reply_decode,
        [SK_MSG_CANCEL_RESERVATIONS] = sk_cancel_resv_decode,
        [SK_MSG_LAUNCH_TASK] = sk_launch_decode,
        [SK_MSG_TASK_STARTED] = sk_task_started_decode,
        [SK_MSG_TASK_FINISHED] = sk_task_finished_decode,
        [SK_MSG_CANCEL_JOB] = sk_cancel_job_decode,
        [SK_MSG_JOB_DONE] = sk_job_done_decode,
        [SK_MSG_KILL_TASK] = sk_kill_task_decode,
        [SK_MSG_RESERVE] = sk_reserve_decode,
        [SK_MSG_RESERVE_ACK] = sk_reserve_ack_decode,
        [SK_MSG_RESERVE_REJECT] = sk_reserve_reject_decode,
        [SK_MSG_RELEASE] = sk_release_decode,
        [SK_MSG_HEARTBEAT] = sk_heartbeat_decode,
        [SK_MSG_MEMBERSHIP] = sk_membership_decode,
        [SK_MSG_STATUS_REQUEST] = sk_status_request_decode,
        [SK_MSG_STATUS_REPLY] = sk_status_reply_decode,
        [SK_MSG_TASK_OUTCOME] = sk_task_outcome_decode,
    };
    return table[t];
}

/* Round-trips ITERATIONS random messages of one type; returns a text
 * describing the first failure, or NULL. */
static const char *round_trip(sk_msg_type t, char *why, size_t whylen)
{
    pg g;
    sk_buf generic = SK_BUF_INIT, typed = SK_BUF_INIT, again = SK_BUF_INIT;
    const char *fail = NULL;
    pg_init(&g, 1000 + t);
    for (int i = 0; i < ITERATIONS && fail == NULL; i++) {
        sk_msg m, d1, d2;
        const char *field = "";
        pg_fill(&g, t, &m);
        int rc1 = sk_msg_encode(&generic, &m);
        int rc2 = encode_typed(&typed, &m);
        if (rc1 != 0 || rc2 != 0) {
            snprintf(why, whylen, "iteration %d: encode %d/%d", i, rc1, rc2);
            fail = why;
            break;
        }
        if (generic.b_len != typed.b_len ||
            memcmp(generic.b_data, typed.b_data, typed.b_len) != 0) {
            snprintf(why, whylen, "iteration %d: typed bytes differ", i);
            fail = why;
            break;
        }
        rc1 = sk_msg_decode(generic.b_data, generic.b_len, &d1);
        rc2 = decoder_of(t)(typed.b_data, typed.b_len, &d2);
        if (rc1 != 0 || rc2 != 0) {
            snprintf(why, whylen, "iteration %d: decode %d/%d", i, rc1, rc2);
            fail = why;
        } else if (!pg_equal(&m, &d1, &field) || !pg_equal(&m, &d2, &field)) {
            snprintf(why, whylen, "iteration %d: field %s differs", i, field);
            fail = why;
        } else if (sk_msg_encode(&again, &d1) != 0 ||
                   again.b_len != generic.b_len ||
                   memcmp(again.b_data, generic.b_data, again.b_len) != 0) {
            snprintf(why, whylen, "iteration %d: re-encoding differs", i);
            fail = why;
        }
        sk_msg_free(&d1);
        sk_msg_free(&d2);
        if (i % 64 == 63)
            pg_free(&g);
    }
    pg_free(&g);
    sk_buf_free(&generic);
    sk_buf_free(&typed);
    sk_buf_free(&again);
    return fail;
}

static void test_round_trips(void)
{
    char why[160];
    for (int t = 1; t < SK_MSG_TYPE_END; t++) {
        const char *fail = round_trip((sk_msg_type)t, why, sizeof why);
        tap_ok(fail == NULL, "%s: %d random messages round-trip%s%s",
               sk_msg_type_name(t), ITERATIONS, fail ? ": " : "",
               fail ? fail : "");
    }
}

static bool bytes_are(const sk_buf *b, const uint8_t *want, size_t n)
{
    return b->b_len == n && memcmp(b->b_data, want, n) == 0;
}

/* The wire format is a contract with other implementations: pin it. */
static void test_golden(void)
{
    sk_buf b = SK_BUF_INIT;
    sk_cancel_resv cr = {5};
    static const uint8_t cr_bytes[] = {0x93, 0x04, 0x08, 0x05};
    tap_ok(sk_cancel_resv_encode(&b, &cr) == 0 &&
               bytes_are(&b, cr_bytes, sizeof cr_bytes),
           "CANCEL_RESERVATIONS{5} is [4, 8, 5]");

    sk_get_task gt = {300, 1, 2, "ab"};
    static const uint8_t gt_bytes[] = {0x96, 0x04, 0x06, 0xcd, 0x01, 0x2c,
                                       0x01, 0x02, 0xa2, 'a',  'b'};
    tap_ok(sk_get_task_encode(&b, &gt) == 0 &&
               bytes_are(&b, gt_bytes, sizeof gt_bytes),
           "GET_TASK{300, 1, 2, \"ab\"} is [4, 6, 300, 1, 2, \"ab\"]");

    sk_task_finished tf = {.tf_job = 1,
                           .tf_node = "",
                           .tf_status = SK_TASK_FAILED,
                           .tf_exit = -9,
                           .tf_output = {(const uint8_t *)"x", 1}};
    static const uint8_t tf_bytes[] = {0x9b, 0x04, 0x0b, 0x01, 0x00,
                                       0x00, 0xa0, 0x02, 0xf7, 0xc4,
                                       0x01, 'x',  0x00, 0x00};
    tap_ok(sk_task_finished_encode(&b, &tf) == 0 &&
               bytes_are(&b, tf_bytes, sizeof tf_bytes),
           "TASK_FINISHED: negative fixint exit code, bin output");

    sk_resources r = {1500, 2048};
    sk_enqueue er = {.er_job = 7,
                     .er_resv = 8,
                     .er_sched = 3,
                     .er_user = "u",
                     .er_priority = 2,
                     .er_count = 1,
                     .er_res = r,
                     .er_task = SK_TASK_ANY};
    static const uint8_t er_bytes[] = {
        0x9a, 0x04, 0x05, 0x07, 0x08, 0x03, 0xa1, 'u',  0x02, 0x01, 0x92,
        0xcd, 0x05, 0xdc, 0xcd, 0x08, 0x00, 0xce, 0xff, 0xff, 0xff, 0xff};
    tap_ok(sk_enqueue_encode(&b, &er) == 0 &&
               bytes_are(&b, er_bytes, sizeof er_bytes),
           "ENQUEUE_RESERVATION: resources nest as [cpu, mem]");

    sk_usage us = {"u", 1, 0, 1, 5};
    sk_heartbeat hb = {.hb_node_id = 1,
                       .hb_node = "n",
                       .hb_seq = 2,
                       .hb_time_us = 3,
                       .hb_slots_total = 4,
                       .hb_slots_used = 1,
                       .hb_users = &us,
                       .hb_nusers = 1,
                       .hb_users_total = 70,
                       .hb_users_sent = true,
                       .hb_users_page = 2};
    static const uint8_t hb_bytes[] = {
        0xdc, 0x00, 0x10, 0x04, 0x13, 0x01, 0xa1, 'n',  0x02, 0x03,
        0x04, 0x01, 0x00, 0x92, 0x00, 0x00, 0x98, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x91, 0x95, 0xa1, 'u',
        0x01, 0x00, 0x01, 0x05, 0x46, 0xc3, 0x02};
    tap_ok(sk_heartbeat_encode(&b, &hb) == 0 &&
               bytes_are(&b, hb_bytes, sizeof hb_bytes),
           "HEARTBEAT: 14 fields (array 16), the users page last");
    sk_buf_free(&b);
}

static void test_envelope_helpers(void)
{
    tap_is_str(sk_msg_type_name(SK_MSG_GET_TASK), "GET_TASK", "type name");
    tap_is_str(sk_msg_type_name(0), "UNKNOWN", "type 0 has no name");
    tap_is_str(sk_msg_type_name(SK_MSG_TYPE_END), "UNKNOWN",
               "past the last type has no name");
    tap_is_str(sk_msg_type_name(-1), "UNKNOWN", "negative has no name");

    sk_buf b = SK_BUF_INIT;
    sk_status_request sq = {42, true, ""};
    sk_msg_type t = 0;
    tap_ok(sk_status_request_encode(&b, &sq) == 0 &&
               sk_msg_peek_type(b.b_data, b.b_len, &t) == 0 &&
               t == SK_MSG_STATUS_REQUEST,
           "peek tells the type without decoding");

    sk_msg bad = {.m_type = (sk_msg_type)99};
    tap_is_int(sk_msg_encode(&b, &bad), SK_EUNKNOWN,
               "encoding an unknown type is refused");

    /* A reused buffer keeps its memory: the hot path stops allocating. */
    sk_launch lt = {.lt_job = 1, .lt_spec = {(const uint8_t *)"abc", 3}};
    sk_launch_encode(&b, &lt);
    uint8_t *before = b.b_data;
    size_t cap = b.b_cap;
    int same = 1;
    for (int i = 0; i < 1000; i++) {
        lt.lt_job = (uint64_t)i * 7919;
        if (sk_launch_encode(&b, &lt) != 0 || b.b_data != before ||
            b.b_cap != cap)
            same = 0;
    }
    tap_ok(same, "re-encoding into a grown buffer does not reallocate");
    sk_buf_free(&b);
    tap_ok(b.b_data == NULL && b.b_len == 0 && b.b_cap == 0,
           "sk_buf_free empties the buffer");

    sk_msg z;
    memset(&z, 0, sizeof z);
    sk_msg_free(&z);
    tap_ok(z.m_arena == NULL, "sk_msg_free on a zeroed message is harmless");
}

/* Messages whose lists are much longer than the random ones. */
static void test_big_lists(void)
{
    pg g;
    pg_init(&g, 77);
    g.pg_max_list = 400;
    sk_buf b = SK_BUF_INIT;
    int ok = 1;
    static const sk_msg_type types[] = {SK_MSG_SUBMIT_JOB, SK_MSG_HEARTBEAT,
                                        SK_MSG_MEMBERSHIP, SK_MSG_STATUS_REPLY};
    for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++)
        for (int k = 0; k < 5; k++) {
            sk_msg m, d;
            const char *field;
            pg_fill(&g, types[i], &m);
            if (sk_msg_encode(&b, &m) != 0 ||
                sk_msg_decode(b.b_data, b.b_len, &d) != 0) {
                ok = 0;
                continue;
            }
            if (!pg_equal(&m, &d, &field)) {
                tap_diag("%s: %s differs", sk_msg_type_name(types[i]), field);
                ok = 0;
            }
            sk_msg_free(&d);
        }
    tap_ok(ok, "messages with lists of hundreds of elements round-trip");
    pg_free(&g);
    sk_buf_free(&b);
}

/* Each typed decoder accepts its own type and no other. */
static void test_typed_decoders(void)
{
    pg g;
    pg_init(&g, 5);
    sk_buf b = SK_BUF_INIT;
    int wrong = 0;
    for (int t = 1; t < SK_MSG_TYPE_END; t++) {
        sk_msg m, d;
        pg_fill(&g, (sk_msg_type)t, &m);
        sk_msg_encode(&b, &m);
        for (int u = 1; u < SK_MSG_TYPE_END; u++) {
            int rc = decoder_of((sk_msg_type)u)(b.b_data, b.b_len, &d);
            if (rc != (u == t ? 0 : SK_EPROTO) ||
                (rc == 0 && (int)d.m_type != t))
                wrong++;
            sk_msg_free(&d);
        }
    }
    tap_is_int(wrong, 0, "typed decoders accept their own type only");
    pg_free(&g);
    sk_buf_free(&b);
}

/* What may be a rack's name. */
static void test_rack_names(void)
{
    char longest[SK_MAX_NAME_LEN + 2];
    memset(longest, 'r', SK_MAX_NAME_LEN);
    longest[SK_MAX_NAME_LEN] = '\0';
    tap_ok(sk_rack_valid("r1") && sk_rack_valid("dc1/row-3:rack_7.b") &&
               sk_rack_valid("!~") && sk_rack_valid(longest),
           "rack names: graphic ASCII of 1..255 bytes");
    longest[SK_MAX_NAME_LEN] = 'r';
    longest[SK_MAX_NAME_LEN + 1] = '\0';
    tap_ok(!sk_rack_valid(longest) && !sk_rack_valid("") &&
               !sk_rack_valid(NULL) && !sk_rack_valid("rack 1") &&
               !sk_rack_valid("r1\n") && !sk_rack_valid("r\t1") &&
               !sk_rack_valid("r\x7f") && !sk_rack_valid("r\xc3\xa9"),
           "not: 256 bytes, empty, NULL, a space, control bytes, DEL, "
           "non-ASCII");
}

int main(void)
{
    tap_timeout(60);
    tap_plan(SK_MSG_TYPE_END - 1 + 5 + 9 + 2 + 2);
    test_round_trips();
    test_golden();
    test_envelope_helpers();
    test_big_lists();
    test_typed_decoders();
    test_rack_names();
    return tap_exit_status();
}
