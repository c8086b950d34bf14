/*
 * test_proto_reject.c - the protocol's decoders against hostile input and
 * its encoders against out-of-limit messages: truncation at every length,
 * a wrong msgpack type in every position, every limit at and one past its
 * value, out-of-range values, the envelope (version, type, field count,
 * trailing bytes), huge declared lengths over short bodies, and random
 * corruption. Hostile messages are written here byte by byte, with a
 * writer independent of the library's encoder.
 */
#include "sk_proto.h"
#include "skylark.h"
#include "tap.h"
#include "test_proto_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a raw msgpack writer ---- */

typedef struct tw {
    uint8_t *w_p;
    size_t w_n;
    size_t w_cap;
} tw;

static void tw_put(tw *w, const void *p, size_t n)
{
    if (w->w_n + n > w->w_cap) {
        w->w_cap = (w->w_n + n) * 2 + 64;
        w->w_p = realloc(w->w_p, w->w_cap);
        if (w->w_p == NULL)
            abort();
    }
    memcpy(w->w_p + w->w_n, p, n);
    w->w_n += n;
}

static void tw_byte(tw *w, uint8_t b)
{
    tw_put(w, &b, 1);
}

static void tw_be(tw *w, uint64_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        tw_byte(w, (uint8_t)(v >> (8 * i)));
}

static void tw_array(tw *w, uint32_t n)
{
    if (n < 16) {
        tw_byte(w, (uint8_t)(0x90 | n));
    } else if (n <= 0xffff) {
        tw_byte(w, 0xdc);
        tw_be(w, n, 2);
    } else {
        tw_byte(w, 0xdd);
        tw_be(w, n, 4);
    }
}

static void tw_uint(tw *w, uint64_t v)
{
    if (v < 128) {
        tw_byte(w, (uint8_t)v);
    } else if (v <= 0xff) {
        tw_byte(w, 0xcc);
        tw_be(w, v, 1);
    } else if (v <= 0xffff) {
        tw_byte(w, 0xcd);
        tw_be(w, v, 2);
    } else if (v <= 0xffffffff) {
        tw_byte(w, 0xce);
        tw_be(w, v, 4);
    } else {
        tw_byte(w, 0xcf);
        tw_be(w, v, 8);
    }
}

static void tw_int(tw *w, int64_t v)
{
    if (v >= 0) {
        tw_uint(w, (uint64_t)v);
    } else if (v >= -32) {
        tw_byte(w, (uint8_t)(int8_t)v);
    } else {
        tw_byte(w, 0xd3);
        tw_be(w, (uint64_t)v, 8);
    }
}

/* A string of n copies of c. */
static void tw_strn(tw *w, char c, size_t n)
{
    if (n < 32) {
        tw_byte(w, (uint8_t)(0xa0 | n));
    } else if (n <= 0xff) {
        tw_byte(w, 0xd9);
        tw_be(w, n, 1);
    } else if (n <= 0xffff) {
        tw_byte(w, 0xda);
        tw_be(w, n, 2);
    } else {
        tw_byte(w, 0xdb);
        tw_be(w, n, 4);
    }
    for (size_t i = 0; i < n; i++)
        tw_byte(w, (uint8_t)c);
}

/* A bin of n zero bytes. */
static void tw_bin(tw *w, size_t n)
{
    if (n <= 0xff) {
        tw_byte(w, 0xc4);
        tw_be(w, n, 1);
    } else if (n <= 0xffff) {
        tw_byte(w, 0xc5);
        tw_be(w, n, 2);
    } else {
        tw_byte(w, 0xc6);
        tw_be(w, n, 4);
    }
    for (size_t i = 0; i < n; i++)
        tw_byte(w, 0);
}

static void tw_f64(tw *w, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    tw_byte(w, 0xcb);
    tw_be(w, bits, 8);
}

static void tw_bool(tw *w, bool b)
{
    tw_byte(w, b ? 0xc3 : 0xc2);
}

/* The envelope of a message with nfields fields. */
static void tw_env(tw *w, uint32_t nfields, sk_msg_type type)
{
    tw_array(w, 2 + nfields);
    tw_uint(w, SK_PROTOCOL_VERSION);
    tw_uint(w, type);
}

static void tw_res(tw *w)
{
    tw_array(w, 2);
    tw_uint(w, 1000);
    tw_uint(w, 512);
}

/* Decodes w's bytes, checks that a failure leaves nothing behind, frees
 * the message and w, and returns the decoder's result. */
static int leaks_on_failure;

static int decode_free(tw *w)
{
    sk_msg m;
    int rc = sk_msg_decode(w->w_p, w->w_n, &m);
    if (rc != 0 && (m.m_arena != NULL || m.m_type != 0))
        leaks_on_failure++;
    sk_msg_free(&m);
    free(w->w_p);
    memset(w, 0, sizeof *w);
    return rc;
}

/* ---- hand-written messages with one knob each ---- */

typedef struct submit_knobs {
    uint32_t ntasks, spec_len, npreferred, preferred_len, nlabels, label_len;
    uint32_t user_len, max_attempts;
    uint64_t priority;
    double probe;
    uint32_t ntags, tag_len; /* the first task's tags */
    char tag_char;           /* what they are made of */
    uint32_t nconstraints;   /* each "s,CARDINALITY,group,t,min,max" */
    uint64_t cn_group, cn_min, cn_max, cn_weight;
    uint32_t cn_label_len; /* its label key, 'k' bytes */
    uint64_t key;          /* sj_key */
    uint64_t ref0, ref1;   /* the first two tasks' ts_ref (then +1 each) */
} submit_knobs;

static const submit_knobs submit_ok = {.ntasks = 2,
                                       .spec_len = 3,
                                       .npreferred = 1,
                                       .preferred_len = 4,
                                       .nlabels = 1,
                                       .label_len = 3,
                                       .user_len = 5,
                                       .max_attempts = 3,
                                       .priority = 1,
                                       .probe = 2.0,
                                       .ntags = 2,
                                       .tag_len = 2,
                                       .tag_char = 'z',
                                       .nconstraints = 1,
                                       .cn_group = SK_GROUP_NODE,
                                       .cn_max = 3,
                                       .cn_weight = 5};

static int submit(submit_knobs k)
{
    tw w = {0};
    tw_env(&w, 14, SK_MSG_SUBMIT_JOB);
    tw_uint(&w, 77);
    tw_strn(&w, 'u', k.user_len);
    tw_uint(&w, k.priority);
    tw_f64(&w, k.probe);
    tw_array(&w, k.nlabels);
    for (uint32_t i = 0; i < k.nlabels; i++)
        tw_strn(&w, 'l', k.label_len);
    tw_res(&w);
    tw_bool(&w, false);
    tw_uint(&w, 20000);
    tw_uint(&w, k.max_attempts);
    tw_strn(&w, 'f', 2);
    tw_array(&w, k.ntasks);
    for (uint32_t i = 0; i < k.ntasks; i++) {
        tw_array(&w, 7);
        tw_bin(&w, i == 0 ? k.spec_len : 0);
        tw_array(&w, i == 0 ? k.npreferred : 0);
        for (uint32_t j = 0; i == 0 && j < k.npreferred; j++)
            tw_strn(&w, 'n', k.preferred_len);
        tw_array(&w, 1);
        tw_strn(&w, 'r', 5);
        tw_uint(&w, 0);
        tw_bool(&w, false);
        tw_array(&w, i == 0 ? k.ntags : 0);
        for (uint32_t j = 0; i == 0 && j < k.ntags; j++)
            tw_strn(&w, k.tag_char, k.tag_len);
        tw_uint(&w, i == 0 ? k.ref0 : k.ref1 + (i - 1) * (k.ref1 > k.ref0));
    }
    tw_uint(&w, SK_PLACE_FLOW);
    tw_array(&w, k.nconstraints);
    for (uint32_t i = 0; i < k.nconstraints; i++) {
        tw_array(&w, 9);
        tw_strn(&w, 's', 2);
        tw_uint(&w, 0);
        tw_uint(&w, k.cn_group);
        tw_strn(&w, 'k', k.cn_label_len);
        tw_strn(&w, 't', 2);
        tw_bool(&w, true);
        tw_uint(&w, k.cn_min);
        tw_uint(&w, k.cn_max);
        tw_uint(&w, k.cn_weight);
    }
    tw_uint(&w, k.key);
    return decode_free(&w);
}

typedef struct hello_knobs {
    uint64_t role, slots;
    uint32_t naddrs, addr_len, nlabels, label_len, name_len;
} hello_knobs;

static const hello_knobs hello_ok = {.role = SK_ROLE_NODEMON,
                                     .slots = 8,
                                     .naddrs = 1,
                                     .addr_len = 20,
                                     .nlabels = 2,
                                     .label_len = 3,
                                     .name_len = 6};

static int hello(hello_knobs k)
{
    tw w = {0};
    tw_env(&w, 10, SK_MSG_HELLO);
    tw_uint(&w, k.role);
    tw_uint(&w, 4);
    tw_uint(&w, 123456789);
    tw_strn(&w, 'h', k.name_len);
    tw_array(&w, k.naddrs);
    for (uint32_t i = 0; i < k.naddrs; i++)
        tw_strn(&w, 'a', k.addr_len);
    tw_uint(&w, k.slots);
    tw_res(&w);
    tw_array(&w, k.nlabels);
    for (uint32_t i = 0; i < k.nlabels; i++)
        tw_strn(&w, 'l', k.label_len);
    tw_strn(&w, 'f', 0);
    tw_strn(&w, 'r', 2);
    return decode_free(&w);
}

typedef struct finished_knobs {
    uint64_t task, attempt, status;
    int64_t exit;
    uint32_t output_len, node_len;
} finished_knobs;

static const finished_knobs finished_ok = {.task = 3,
                                           .attempt = 0,
                                           .status = SK_TASK_OK,
                                           .exit = 0,
                                           .output_len = 10,
                                           .node_len = 4};

static int finished(finished_knobs k)
{
    tw w = {0};
    tw_env(&w, 9, SK_MSG_TASK_FINISHED);
    tw_uint(&w, 9);
    tw_uint(&w, k.task);
    tw_uint(&w, k.attempt);
    tw_strn(&w, 'n', k.node_len);
    tw_uint(&w, k.status);
    tw_int(&w, k.exit);
    tw_bin(&w, k.output_len);
    tw_uint(&w, 1000);
    tw_uint(&w, 2000);
    return decode_free(&w);
}

typedef struct status_knobs {
    uint32_t nkv, ncols, nrows, cells, cell_len;
} status_knobs;

static const status_knobs status_ok = {
    .nkv = 2, .ncols = 3, .nrows = 2, .cells = 3, .cell_len = 5};

static int status(status_knobs k)
{
    tw w = {0};
    tw_env(&w, 7, SK_MSG_STATUS_REPLY);
    tw_uint(&w, 1);
    tw_uint(&w, SK_ROLE_SCHEDULER);
    tw_strn(&w, 's', 5);
    tw_uint(&w, 99);
    tw_array(&w, k.nkv);
    for (uint32_t i = 0; i < k.nkv; i++) {
        tw_array(&w, 2);
        tw_strn(&w, 'k', 3);
        tw_strn(&w, 'v', k.cell_len);
    }
    tw_array(&w, k.ncols);
    for (uint32_t i = 0; i < k.ncols; i++)
        tw_strn(&w, 'c', 4);
    tw_array(&w, k.nrows);
    for (uint32_t i = 0; i < k.nrows; i++) {
        tw_array(&w, 1);
        tw_array(&w, k.cells);
        for (uint32_t c = 0; c < k.cells; c++)
            tw_strn(&w, 'x', k.cell_len);
    }
    return decode_free(&w);
}

static int enqueue(uint64_t priority, uint64_t count, uint64_t task)
{
    tw w = {0};
    tw_env(&w, 8, SK_MSG_ENQUEUE_RESERVATION);
    tw_uint(&w, 1);
    tw_uint(&w, 2);
    tw_uint(&w, 3);
    tw_strn(&w, 'u', 1);
    tw_uint(&w, priority);
    tw_uint(&w, count);
    tw_res(&w);
    tw_uint(&w, task);
    return decode_free(&w);
}

/* A user's usage in a HEARTBEAT: weight, running and the name's length
 * as given, the rest valid. */
typedef struct usage_w {
    uint32_t uw_n;       /* users listed */
    uint64_t uw_total;   /* users the node says it tracks */
    uint64_t uw_weight;  /* of each */
    uint64_t uw_running; /* of each */
    size_t uw_name_len;  /* of each */
    bool uw_sent;        /* hb_users_sent */
    uint64_t uw_page;    /* hb_users_page */
} usage_w;

static int heartbeat_u(uint64_t total, uint64_t used, uint64_t reserved,
                       uint32_t nqueue, uint32_t nrunning, usage_w u)
{
    tw w = {0};
    tw_env(&w, 14, SK_MSG_HEARTBEAT);
    tw_uint(&w, 1);
    tw_strn(&w, 'n', 3);
    tw_uint(&w, 5);
    tw_uint(&w, 6);
    tw_uint(&w, total);
    tw_uint(&w, used);
    tw_uint(&w, reserved);
    tw_res(&w);
    tw_array(&w, nqueue);
    for (uint32_t i = 0; i < nqueue; i++)
        tw_uint(&w, i);
    tw_array(&w, nrunning);
    for (uint32_t i = 0; i < nrunning; i++) {
        tw_array(&w, 6);
        tw_uint(&w, 1);
        tw_uint(&w, i);
        tw_uint(&w, 0);
        tw_uint(&w, 100);
        tw_bool(&w, true);
        tw_res(&w);
    }
    tw_array(&w, u.uw_n);
    for (uint32_t i = 0; i < u.uw_n; i++) {
        tw_array(&w, 5);
        tw_strn(&w, (char)('a' + i % 26), u.uw_name_len);
        tw_uint(&w, u.uw_weight);
        tw_uint(&w, 7);
        tw_uint(&w, u.uw_running);
        tw_uint(&w, 12345);
    }
    tw_uint(&w, u.uw_total);
    tw_bool(&w, u.uw_sent);
    tw_uint(&w, u.uw_page);
    return decode_free(&w);
}

static int heartbeat(uint64_t total, uint64_t used, uint64_t reserved,
                     uint32_t nqueue, uint32_t nrunning)
{
    return heartbeat_u(total, used, reserved, nqueue, nrunning,
                       (usage_w){0, 0, 1, 0, 1, true, 0});
}

static int task_reply(bool has_task, uint64_t task, uint32_t spec_len,
                      uint64_t key, uint64_t ref)
{
    tw w = {0};
    tw_env(&w, 9, SK_MSG_TASK_REPLY);
    tw_uint(&w, 1);
    tw_uint(&w, 2);
    tw_bool(&w, has_task);
    tw_uint(&w, task);
    tw_uint(&w, 0);
    tw_bin(&w, spec_len);
    tw_strn(&w, 'f', 0);
    tw_uint(&w, key);
    tw_uint(&w, ref);
    return decode_free(&w);
}

/* RESERVE with key and ref (version 4). */
static int reserve(uint64_t key, uint64_t ref)
{
    tw w = {0};
    tw_env(&w, 12, SK_MSG_RESERVE);
    tw_uint(&w, 1);
    tw_uint(&w, 2);
    tw_uint(&w, 3);
    tw_uint(&w, 0);
    tw_uint(&w, 7);
    tw_strn(&w, 'u', 3);
    tw_uint(&w, 0);
    tw_res(&w);
    tw_bin(&w, 2);
    tw_strn(&w, 'f', 0);
    tw_uint(&w, key);
    tw_uint(&w, ref);
    return decode_free(&w);
}

static int task_outcome(uint64_t key, uint64_t ref, uint64_t status,
                        uint32_t user_len, uint32_t out_len)
{
    tw w = {0};
    tw_env(&w, 9, SK_MSG_TASK_OUTCOME);
    tw_uint(&w, key);
    tw_uint(&w, ref);
    tw_strn(&w, 'u', user_len);
    tw_strn(&w, 'n', 2);
    tw_uint(&w, status);
    tw_uint(&w, 0);
    tw_bin(&w, out_len);
    tw_uint(&w, 1);
    tw_uint(&w, 2);
    return decode_free(&w);
}

static int job_done(uint64_t tasks, uint64_t ok, uint64_t failed)
{
    tw w = {0};
    tw_env(&w, 8, SK_MSG_JOB_DONE);
    tw_uint(&w, 1);
    tw_uint(&w, tasks);
    tw_uint(&w, ok);
    tw_uint(&w, failed);
    tw_uint(&w, 0);
    tw_uint(&w, 0);
    tw_uint(&w, 0);
    tw_uint(&w, 5);
    return decode_free(&w);
}

/* A MEMBERSHIP declaring n nodes but holding only one. */
static int membership_declared(uint32_t n)
{
    tw w = {0};
    tw_env(&w, 3, SK_MSG_MEMBERSHIP);
    tw_uint(&w, 1);
    tw_bool(&w, true);
    tw_array(&w, n);
    tw_array(&w, 7);
    tw_uint(&w, 1);
    tw_strn(&w, 'n', 2);
    tw_strn(&w, 'a', 2);
    tw_uint(&w, SK_NODE_UP);
    tw_uint(&w, 4);
    tw_res(&w);
    tw_array(&w, 0);
    return decode_free(&w);
}

static void test_limits_decode(void)
{
    submit_knobs s;
    tap_is_int(submit(submit_ok), 0, "hand-written SUBMIT_JOB decodes");
#define SUBMIT(field, value, want, what)                                       \
    do {                                                                       \
        s = submit_ok;                                                         \
        s.field = value;                                                       \
        tap_is_int(submit(s), want, "SUBMIT_JOB " what);                       \
    } while (0)
    SUBMIT(ntasks, SK_MAX_TASKS, 0, "with SK_MAX_TASKS tasks decodes");
    SUBMIT(ntasks, SK_MAX_TASKS + 1, SK_ELIMIT, "with one task too many");
    SUBMIT(ntasks, 0, SK_EPROTO, "with no task");
    SUBMIT(spec_len, SK_MAX_SPEC_BYTES, 0, "spec at the limit");
    SUBMIT(spec_len, SK_MAX_SPEC_BYTES + 1, SK_ELIMIT, "spec over the limit");
    SUBMIT(npreferred, SK_MAX_PREFERRED, 0, "preferred nodes at the limit");
    SUBMIT(npreferred, SK_MAX_PREFERRED + 1, SK_ELIMIT,
           "preferred nodes over the limit");
    SUBMIT(preferred_len, SK_MAX_NAME_LEN + 1, SK_ELIMIT,
           "preferred node name too long");
    SUBMIT(nlabels, SK_MAX_LABELS, 0, "labels at the limit");
    SUBMIT(nlabels, SK_MAX_LABELS + 1, SK_ELIMIT, "labels over the limit");
    SUBMIT(label_len, SK_MAX_LABEL_LEN, 0, "label at its length limit");
    SUBMIT(label_len, SK_MAX_LABEL_LEN + 1, SK_ELIMIT, "label too long");
    SUBMIT(user_len, SK_MAX_NAME_LEN, 0, "user at its length limit");
    SUBMIT(user_len, SK_MAX_NAME_LEN + 1, SK_ELIMIT, "user too long");
    SUBMIT(priority, SK_PRIORITIES - 1, 0, "least urgent priority");
    SUBMIT(priority, SK_PRIORITIES, SK_EPROTO, "priority out of range");
    SUBMIT(priority, UINT64_MAX, SK_EPROTO, "priority 2^64-1");
    SUBMIT(probe, 0.0, 0, "probe ratio 0 (default)");
    SUBMIT(probe, 1.0, 0, "probe ratio 1");
    SUBMIT(probe, 0.5, SK_EPROTO, "probe ratio 0.5");
    SUBMIT(probe, -1.0, SK_EPROTO, "negative probe ratio");
    SUBMIT(probe, SK_MAX_PROBE_RATIO + 1, SK_EPROTO, "probe ratio too big");
    SUBMIT(probe, NAN, SK_EPROTO, "probe ratio NaN");
    SUBMIT(probe, INFINITY, SK_EPROTO, "probe ratio infinite");
    SUBMIT(max_attempts, SK_MAX_ATTEMPTS + 1, SK_EPROTO, "max_attempts");
    SUBMIT(ntags, SK_MAX_TAGS, 0, "tags at the limit");
    SUBMIT(ntags, SK_MAX_TAGS + 1, SK_ELIMIT, "tags over the limit");
    SUBMIT(tag_len, SK_MAX_TAG_LEN, 0, "tag at its length limit");
    SUBMIT(tag_len, SK_MAX_TAG_LEN + 1, SK_ELIMIT, "tag too long");
    SUBMIT(tag_len, 0, SK_EPROTO, "empty tag");
    SUBMIT(tag_char, ',', SK_EPROTO, "tag with a ','");
    SUBMIT(tag_char, '\x80', SK_EPROTO, "tag with a byte over 0x7f");
    SUBMIT(nconstraints, SK_MAX_CONSTRAINTS, 0, "constraints at the limit");
    SUBMIT(nconstraints, SK_MAX_CONSTRAINTS + 1, SK_ELIMIT,
           "constraints over the limit");
    SUBMIT(nconstraints, 0, 0, "no constraint");
    SUBMIT(cn_group, SK_GROUP_MAX + 1, SK_EPROTO, "node group out of range");
    SUBMIT(cn_group, SK_GROUP_LABEL, SK_EPROTO, "label group without a key");
    SUBMIT(cn_label_len, 2, SK_EPROTO, "label key on a node group");
    SUBMIT(cn_min, 4, SK_EPROTO, "cardinality minimum over its maximum");
    SUBMIT(cn_max, SK_CARD_ANY, 0, "cardinality with no maximum");
    SUBMIT(cn_max, SK_MAX_TASKS + 1, SK_EPROTO,
           "cardinality maximum over "
           "SK_MAX_TASKS");
    SUBMIT(cn_weight, SK_MAX_WEIGHT + 1, SK_EPROTO, "weight over the limit");
    s = submit_ok;
    s.cn_group = SK_GROUP_LABEL;
    s.cn_label_len = 4;
    tap_is_int(submit(s), 0, "SUBMIT_JOB label group with a key decodes");
    s = submit_ok;
    s.key = 99;
    s.ref0 = 3;
    s.ref1 = 7;
    tap_is_int(submit(s), 0, "SUBMIT_JOB with a key and increasing refs");
    s.ref1 = 3;
    tap_is_int(submit(s), SK_EPROTO, "SUBMIT_JOB with a key and a ref twice");
    s.ref0 = 0;
    s.ref1 = SK_MAX_TASKS;
    tap_is_int(submit(s), SK_EPROTO, "SUBMIT_JOB ref of SK_MAX_TASKS");
    s = submit_ok;
    s.ref1 = 1;
    tap_is_int(submit(s), SK_EPROTO, "SUBMIT_JOB with a ref but no key");

    hello_knobs h;
#define HELLO(field, value, want, what)                                        \
    do {                                                                       \
        h = hello_ok;                                                          \
        h.field = value;                                                       \
        tap_is_int(hello(h), want, "HELLO " what);                             \
    } while (0)
    HELLO(role, SK_ROLE_NODEMON, 0, "decodes");
    HELLO(role, 0, SK_EPROTO, "role 0");
    HELLO(role, SK_ROLE_MAX + 1, SK_EPROTO, "role past the last");
    HELLO(naddrs, SK_MAX_ADDRS, 0, "addresses at the limit");
    HELLO(naddrs, SK_MAX_ADDRS + 1, SK_ELIMIT, "addresses over the limit");
    HELLO(addr_len, SK_MAX_ADDR_LEN + 1, SK_ELIMIT, "address too long");
    HELLO(slots, SK_MAX_SLOTS, 0, "slots at the limit");
    HELLO(slots, SK_MAX_SLOTS + 1, SK_EPROTO, "slots over the limit");
    HELLO(name_len, SK_MAX_NAME_LEN + 1, SK_ELIMIT, "name too long");
    HELLO(nlabels, SK_MAX_LABELS + 1, SK_ELIMIT, "labels over the limit");

    finished_knobs f;
#define FINISHED(field, value, want, what)                                     \
    do {                                                                       \
        f = finished_ok;                                                       \
        f.field = value;                                                       \
        tap_is_int(finished(f), want, "TASK_FINISHED " what);                  \
    } while (0)
    FINISHED(status, SK_TASK_OK, 0, "decodes");
    FINISHED(status, 0, SK_EPROTO, "status 0");
    FINISHED(status, SK_TASK_STATUS_MAX + 1, SK_EPROTO, "status past last");
    FINISHED(exit, INT32_MIN, 0, "exit code INT32_MIN");
    FINISHED(exit, (int64_t)INT32_MIN - 1, SK_EPROTO, "exit below int32");
    FINISHED(exit, (int64_t)INT32_MAX + 1, SK_EPROTO, "exit above int32");
    FINISHED(output_len, SK_MAX_OUTPUT_BYTES, 0, "output at the limit");
    FINISHED(output_len, SK_MAX_OUTPUT_BYTES + 1, SK_ELIMIT,
             "output over the limit");
    FINISHED(task, SK_MAX_TASKS - 1, 0, "last task index");
    FINISHED(task, SK_MAX_TASKS, SK_EPROTO, "task index out of range");
    FINISHED(attempt, SK_MAX_ATTEMPTS, SK_EPROTO, "attempt out of range");
    FINISHED(node_len, SK_MAX_NAME_LEN + 1, SK_ELIMIT, "node name too long");

    status_knobs st;
#define STATUS(field, value, want, what)                                       \
    do {                                                                       \
        st = status_ok;                                                        \
        st.field = value;                                                      \
        tap_is_int(status(st), want, "STATUS_REPLY " what);                    \
    } while (0)
    STATUS(nkv, 2, 0, "decodes");
    STATUS(nkv, SK_MAX_STATUS_KV + 1, SK_ELIMIT, "pairs over the limit");
    STATUS(cell_len, SK_MAX_STATUS_LEN + 1, SK_ELIMIT, "value too long");
    STATUS(cells, 2, SK_EPROTO, "a row short of the columns");
    STATUS(nrows, SK_MAX_STATUS_ROWS, 0, "rows at the limit");
    STATUS(nrows, SK_MAX_STATUS_ROWS + 1, SK_ELIMIT, "rows over the limit");
    st = status_ok;
    st.ncols = st.cells = SK_MAX_STATUS_COLS + 1;
    tap_is_int(status(st), SK_ELIMIT, "STATUS_REPLY columns over the limit");

    tap_is_int(enqueue(0, 1, SK_TASK_ANY), 0, "ENQUEUE_RESERVATION decodes");
    tap_is_int(enqueue(0, 1, SK_MAX_TASKS - 1), 0, "bound to the last task");
    tap_is_int(enqueue(0, 1, SK_MAX_TASKS), SK_EPROTO,
               "ENQUEUE_RESERVATION bound past the last task");
    tap_is_int(enqueue(0, 0, SK_TASK_ANY), SK_EPROTO, "count 0");
    tap_is_int(enqueue(0, SK_MAX_TASKS + 1, SK_TASK_ANY), SK_EPROTO,
               "count over SK_MAX_TASKS");
    tap_is_int(enqueue(SK_PRIORITIES, 1, SK_TASK_ANY), SK_EPROTO,
               "ENQUEUE_RESERVATION priority out of range");

    tap_is_int(heartbeat(8, 8, 8, SK_PRIORITIES, 2), 0, "HEARTBEAT decodes");
    tap_is_int(heartbeat(8, 9, 0, SK_PRIORITIES, 0), SK_EPROTO,
               "HEARTBEAT more slots used than total");
    tap_is_int(heartbeat(8, 0, 9, SK_PRIORITIES, 0), SK_EPROTO,
               "HEARTBEAT more slots reserved than total");
    tap_is_int(heartbeat(8, 0, 0, SK_PRIORITIES - 1, 0), SK_EPROTO,
               "HEARTBEAT queue lengths short of the priorities");
    tap_is_int(heartbeat(8, 0, 0, SK_PRIORITIES + 1, 0), SK_EPROTO,
               "HEARTBEAT queue lengths past the priorities");
    tap_is_int(heartbeat(8, 0, 0, SK_PRIORITIES, SK_MAX_SLOTS + 1), SK_ELIMIT,
               "HEARTBEAT running tasks over the limit");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){SK_MAX_HB_USERS, 5000, 1000000, 4096,
                                     SK_MAX_NAME_LEN, true, 0}),
               0, "HEARTBEAT with 64 users at their limits decodes");
    tap_is_int(
        heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                    (usage_w){SK_MAX_HB_USERS + 1, 5000, 1, 0, 3, true, 0}),
        SK_ELIMIT, "HEARTBEAT users over the limit");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){3, 2, 1, 0, 3, true, 0}),
               SK_EPROTO, "HEARTBEAT listing more users than it tracks");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){1, 1, 0, 0, 3, true, 0}),
               SK_EPROTO, "HEARTBEAT user of weight 0");
    tap_is_int(
        heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                    (usage_w){1, 1, SK_MAX_USER_WEIGHT + 1, 0, 3, true, 0}),
        SK_EPROTO, "HEARTBEAT user weight over the limit");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){1, 1, 1, SK_MAX_SLOTS + 1, 3, true, 0}),
               SK_EPROTO, "HEARTBEAT user running more than a node's slots");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){1, 1, 1, 0, SK_MAX_NAME_LEN + 1, true, 0}),
               SK_ELIMIT, "HEARTBEAT user name over the limit");
    tap_is_int(
        heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                    (usage_w){0, (uint64_t)UINT32_MAX + 1, 1, 0, 3, true, 0}),
        SK_EPROTO, "HEARTBEAT users tracked over 32 bits");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){0, 0, 1, 0, 3, false, 0}),
               0, "HEARTBEAT without a users summary");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){1, 1, 1, 0, 3, false, 0}),
               SK_EPROTO, "HEARTBEAT listing users but saying it sent none");
    tap_is_int(
        heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                    (usage_w){1, 1000, 1, 0, 3, true, SK_MAX_HB_USER_PAGES}),
        0, "HEARTBEAT users page at its limit decodes");
    tap_is_int(heartbeat_u(
                   8, 0, 0, SK_PRIORITIES, 0,
                   (usage_w){1, 1000, 1, 0, 3, true, SK_MAX_HB_USER_PAGES + 1}),
               SK_EPROTO, "HEARTBEAT users page over the limit");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){0, 0, 1, 0, 3, false, 1}),
               SK_EPROTO, "HEARTBEAT users page but saying it sent none");
    tap_is_int(heartbeat_u(8, 0, 0, SK_PRIORITIES, 0,
                           (usage_w){0, 5, 1, 0, 3, false, 0}),
               SK_EPROTO, "HEARTBEAT counting users but saying it sent none");

    tap_is_int(task_reply(true, 5, 10, 0, 0), 0,
               "TASK_REPLY with a task decodes");
    tap_is_int(task_reply(true, 5, 10, 9, 8), 0,
               "TASK_REPLY with a task, a key and a ref decodes");
    tap_is_int(task_reply(false, 0, 0, 0, 0), 0,
               "TASK_REPLY without one decodes");
    tap_is_int(task_reply(false, 5, 0, 0, 0), SK_EPROTO,
               "TASK_REPLY without a task but with an index");
    tap_is_int(task_reply(false, 0, 3, 0, 0), SK_EPROTO,
               "TASK_REPLY without a task but with a spec");
    tap_is_int(task_reply(false, 0, 0, 9, 0), SK_EPROTO,
               "TASK_REPLY without a task but with a key");
    tap_is_int(task_reply(true, 5, 0, 9, SK_MAX_TASKS), SK_EPROTO,
               "TASK_REPLY ref of SK_MAX_TASKS");
    tap_is_int(reserve(9, 4), 0, "RESERVE with a key and a ref decodes");
    tap_is_int(reserve(0, 0), 0, "RESERVE without a key decodes");
    tap_is_int(reserve(0, 4), SK_EPROTO, "RESERVE with a ref but no key");
    tap_is_int(reserve(9, SK_MAX_TASKS), SK_EPROTO,
               "RESERVE ref of SK_MAX_TASKS");

    tap_is_int(task_outcome(7, 3, SK_TASK_OK, 4, 5), 0, "TASK_OUTCOME decodes");
    tap_is_int(task_outcome(7, 3, SK_TASK_FAILED, SK_MAX_NAME_LEN,
                            SK_MAX_OUTPUT_BYTES),
               0, "TASK_OUTCOME at its limits decodes");
    tap_is_int(task_outcome(0, 3, SK_TASK_OK, 4, 5), SK_EPROTO,
               "TASK_OUTCOME without a key");
    tap_is_int(task_outcome(7, SK_MAX_TASKS, SK_TASK_OK, 4, 5), SK_EPROTO,
               "TASK_OUTCOME ref of SK_MAX_TASKS");
    tap_is_int(task_outcome(7, 3, SK_TASK_KILLED, 4, 5), SK_EPROTO,
               "TASK_OUTCOME of a killed attempt");
    tap_is_int(task_outcome(7, 3, SK_TASK_OK, SK_MAX_NAME_LEN + 1, 5),
               SK_ELIMIT, "TASK_OUTCOME user too long");
    tap_is_int(task_outcome(7, 3, SK_TASK_OK, 4, SK_MAX_OUTPUT_BYTES + 1),
               SK_ELIMIT, "TASK_OUTCOME output over the limit");

    tap_is_int(job_done(5, 2, 3), 0, "JOB_DONE whose counts add up");
    tap_is_int(job_done(5, 2, 2), SK_EPROTO, "JOB_DONE a task short");
    tap_is_int(job_done(5, 3, 3), SK_EPROTO, "JOB_DONE a task too many");

    tap_is_int(membership_declared(1), 0, "MEMBERSHIP of one node decodes");
    tap_is_int(membership_declared(SK_MAX_NODES + 1), SK_ELIMIT,
               "MEMBERSHIP declaring too many nodes");
    tap_is_int(membership_declared(SK_MAX_NODES), SK_EPROTO,
               "MEMBERSHIP declaring more nodes than its bytes hold");
}

/* Messages whose declared sizes lie about the bytes that follow. */
static void test_declared_sizes(void)
{
    tw w = {0};
    tw_env(&w, 2, SK_MSG_CANCEL_JOB);
    tw_uint(&w, 1);
    tw_byte(&w, 0xdb);
    tw_be(&w, 0xffffffff, 4);
    tw_strn(&w, 'x', 3);
    tap_is_int(decode_free(&w), SK_ELIMIT, "str32 of 4 GiB over 3 bytes");

    tw_env(&w, 2, SK_MSG_CANCEL_JOB);
    tw_uint(&w, 1);
    tw_byte(&w, 0xda);
    tw_be(&w, 1000, 2);
    tw_strn(&w, 'x', 3);
    tap_is_int(decode_free(&w), SK_EPROTO,
               "str16 within the limit but longer than the input");

    tw_env(&w, 7, SK_MSG_LAUNCH_TASK);
    tw_uint(&w, 1);
    tw_uint(&w, 0);
    tw_uint(&w, 0);
    tw_strn(&w, 'u', 1);
    tw_res(&w);
    tw_byte(&w, 0xc6);
    tw_be(&w, 60000, 4);
    tap_is_int(decode_free(&w), SK_EPROTO, "bin32 spec longer than input");

    tw_env(&w, 2, SK_MSG_CANCEL_JOB);
    tw_uint(&w, 1);
    tw_strn(&w, 'r', SK_MAX_REASON_LEN + 1);
    tap_is_int(decode_free(&w), SK_ELIMIT, "reason over its limit");

    tw_byte(&w, 0xdd);
    tw_be(&w, 0xffffffff, 4);
    tw_uint(&w, 1);
    tw_uint(&w, SK_MSG_CANCEL_JOB);
    tap_is_int(decode_free(&w), SK_EPROTO, "envelope of 2^32-1 elements");

    size_t big = (size_t)SK_MAX_MSG_BYTES + 1;
    uint8_t *huge = calloc(1, big);
    sk_msg m;
    tap_is_int(sk_msg_decode(huge, big, &m), SK_ELIMIT,
               "input over SK_MAX_MSG_BYTES is refused unread");
    free(huge);
}

/* The envelope: version, type, field count, trailing bytes. */
static void test_envelope(void)
{
    tw w = {0};
    tap_is_int(decode_free(&w), SK_EPROTO, "empty input");
    tw_byte(&w, 0x80);
    tap_is_int(decode_free(&w), SK_EPROTO, "a map instead of the envelope");
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "an integer instead");
    tw_array(&w, 1);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "an envelope of one element");

    uint64_t versions[] = {0, SK_PROTOCOL_VERSION + 1, 255, UINT64_MAX};
    for (unsigned i = 0; i < 4; i++) {
        tw_array(&w, 3);
        tw_uint(&w, versions[i]);
        tw_uint(&w, SK_MSG_CANCEL_RESERVATIONS);
        tw_uint(&w, 1);
        tap_is_int(decode_free(&w), SK_EVERSION, "version %llu",
                   (unsigned long long)versions[i]);
    }
    tw_array(&w, 5);
    tw_uint(&w, SK_PROTOCOL_VERSION + 1);
    tw_uint(&w, 99);
    tw_byte(&w, 0xc0);
    tw_f64(&w, 1.5);
    tw_strn(&w, 'z', 40);
    tap_is_int(decode_free(&w), SK_EVERSION,
               "a later version is told apart whatever its layout");
    tw_array(&w, 3);
    tw_strn(&w, '1', 1);
    tw_uint(&w, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "version as a string");

    uint64_t types[] = {0, SK_MSG_TYPE_END, 1000, (uint64_t)1 << 40};
    for (unsigned i = 0; i < 4; i++) {
        tw_array(&w, 3);
        tw_uint(&w, SK_PROTOCOL_VERSION);
        tw_uint(&w, types[i]);
        tw_uint(&w, 1);
        tap_is_int(decode_free(&w), SK_EUNKNOWN, "type %llu",
                   (unsigned long long)types[i]);
    }
    tw_array(&w, 3);
    tw_uint(&w, SK_PROTOCOL_VERSION);
    tw_int(&w, -1);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "negative type");

    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), 0, "CANCEL_RESERVATIONS [2, 8, 1]");
    tw_env(&w, 0, SK_MSG_CANCEL_RESERVATIONS);
    tap_is_int(decode_free(&w), SK_EPROTO, "a field missing");
    tw_env(&w, 2, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "a field too many");
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tw_byte(&w, 0xc0);
    tap_is_int(decode_free(&w), SK_EPROTO, "one trailing byte");
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "two messages back to back");

    /* Other encoders may pick wider or signed integer forms. */
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_byte(&w, 0xcf);
    tw_be(&w, 5, 8);
    tap_is_int(decode_free(&w), 0, "a small value in a uint64 form");
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_byte(&w, 0xd0);
    tw_byte(&w, 5);
    tap_is_int(decode_free(&w), 0, "a positive value in an int8 form");
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_int(&w, -5);
    tap_is_int(decode_free(&w), SK_EPROTO, "a negative id");
    tw_env(&w, 1, SK_MSG_CANCEL_RESERVATIONS);
    tw_byte(&w, 0xd3);
    tw_be(&w, (uint64_t)INT64_MIN, 8);
    tap_is_int(decode_free(&w), SK_EPROTO, "INT64_MIN as an id");

    tw_env(&w, 2, SK_MSG_CANCEL_JOB);
    tw_uint(&w, 1);
    tw_byte(&w, 0xa3);
    tw_put(&w, "a\0b", 3);
    tap_is_int(decode_free(&w), SK_EPROTO, "a string with a NUL inside");

    tw_env(&w, 2, SK_MSG_STATUS_REQUEST);
    tw_uint(&w, 1);
    tw_uint(&w, 1);
    tap_is_int(decode_free(&w), SK_EPROTO, "an integer for a bool");

    tw_env(&w, 3, SK_MSG_STATUS_REQUEST);
    tw_uint(&w, 1);
    tw_bool(&w, true);
    tw_strn(&w, 'q', SK_MAX_STATUS_LEN);
    tap_is_int(decode_free(&w), 0, "a query of SK_MAX_STATUS_LEN bytes");
    tw_env(&w, 3, SK_MSG_STATUS_REQUEST);
    tw_uint(&w, 1);
    tw_bool(&w, true);
    tw_strn(&w, 'q', SK_MAX_STATUS_LEN + 1);
    tap_is_int(decode_free(&w), SK_ELIMIT, "a query one byte too long");
    tw_env(&w, 3, SK_MSG_STATUS_REQUEST);
    tw_uint(&w, 1);
    tw_bool(&w, false);
    tw_uint(&w, 7);
    tap_is_int(decode_free(&w), SK_EPROTO, "an integer for the query");

    sk_buf b = SK_BUF_INIT;
    sk_cancel_resv cr = {1};
    sk_msg m;
    sk_cancel_resv_encode(&b, &cr);
    tap_is_int(sk_cancel_job_decode(b.b_data, b.b_len, &m), SK_EPROTO,
               "a typed decoder refuses another type");
    tap_is_int(sk_cancel_resv_decode(b.b_data, b.b_len, &m), 0,
               "and accepts its own");
    sk_msg_free(&m);
    sk_buf_free(&b);
}

/* ---- hostile variations of valid messages ---- */

/* Families of msgpack values: a value replaced by one of another family
 * is of the wrong type wherever it stands. */
enum {
    FAM_NIL,
    FAM_BOOL,
    FAM_INT,
    FAM_FLOAT,
    FAM_STR,
    FAM_BIN,
    FAM_ARRAY,
    FAM_MAP,
    FAM_EXT,
    FAM_COUNT
};

static const struct {
    uint8_t r_bytes[9];
    uint8_t r_len;
} replacement[FAM_COUNT] = {
    [FAM_NIL] = {{0xc0}, 1},
    [FAM_BOOL] = {{0xc2}, 1},
    [FAM_INT] = {{0x01}, 1},
    [FAM_FLOAT] = {{0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 9},
    [FAM_STR] = {{0xa1, 'a'}, 2},
    [FAM_BIN] = {{0xc4, 0x01, 0x00}, 3},
    [FAM_ARRAY] = {{0x90}, 1},
    [FAM_MAP] = {{0x80}, 1},
    [FAM_EXT] = {{0xd4, 0x01, 0x00}, 3},
};

/* One value found in an encoding: where it is and its family. */
typedef struct span {
    size_t sp_at, sp_len;
    int sp_family;
} span;

/* Walks the valid encoding p (it came from our encoder) and records
 * every value at every depth; returns the end of the value at *at. */
static size_t walk(const uint8_t *p, size_t at, span *out, size_t *n)
{
    size_t start = at;
    uint8_t t = p[at++];
    int fam;
    uint64_t len = 0, count = 0;
    if (t <= 0x7f || t >= 0xe0) {
        fam = FAM_INT;
    } else if (t >= 0xcc && t <= 0xd3) {
        fam = FAM_INT;
        at += (size_t)1 << ((t - 0xcc) & 3);
    } else if (t == 0xc2 || t == 0xc3) {
        fam = FAM_BOOL;
    } else if (t == 0xcb) {
        fam = FAM_FLOAT;
        at += 8;
    } else if (t >= 0xa0 && t <= 0xbf) {
        fam = FAM_STR;
        len = t & 0x1f;
    } else if (t >= 0xd9 && t <= 0xdb) {
        fam = FAM_STR;
        unsigned w = 1u << (t - 0xd9);
        for (unsigned i = 0; i < w; i++)
            len = len << 8 | p[at++];
    } else if (t >= 0xc4 && t <= 0xc6) {
        fam = FAM_BIN;
        unsigned w = 1u << (t - 0xc4);
        for (unsigned i = 0; i < w; i++)
            len = len << 8 | p[at++];
    } else if (t >= 0x90 && t <= 0x9f) {
        fam = FAM_ARRAY;
        count = t & 0x0f;
    } else if (t == 0xdc || t == 0xdd) {
        fam = FAM_ARRAY;
        unsigned w = t == 0xdc ? 2 : 4;
        for (unsigned i = 0; i < w; i++)
            count = count << 8 | p[at++];
    } else {
        tap_bail_out("walk: unexpected tag 0x%02x from the encoder", t);
    }
    at += len;
    size_t me = (*n)++;
    for (uint64_t i = 0; i < count; i++)
        at = walk(p, at, out, n);
    out[me] = (span){start, at - start, fam};
    return at;
}

/* Fills *m with a random message of type t that encodes to at most max
 * bytes (so that quadratic checks stay fast). */
static void small_message(pg *g, sk_msg_type t, sk_buf *b, size_t max)
{
    for (;;) {
        sk_msg m;
        pg_fill(g, t, &m);
        if (sk_msg_encode(b, &m) != 0)
            tap_bail_out("a generated %s does not encode", sk_msg_type_name(t));
        if (b->b_len <= max)
            return;
    }
}

static void test_truncation_and_types(void)
{
    pg g;
    pg_init(&g, 4242);
    sk_buf b = SK_BUF_INIT;
    uint8_t *tmp = malloc(4096 + 16);
    span *spans = malloc(4096 * sizeof *spans);
    for (int t = 1; t < SK_MSG_TYPE_END; t++) {
        long prefixes = 0, accepted_prefix = 0, swaps = 0, accepted_swap = 0;
        long kept_arena = 0;
        for (int k = 0; k < 12; k++) {
            small_message(&g, (sk_msg_type)t, &b, 2048);
            sk_msg m;
            for (size_t len = 0; len < b.b_len; len++) {
                /* A copy of exactly len bytes: an over-read leaves it. */
                uint8_t *cut = malloc(len ? len : 1);
                memcpy(cut, b.b_data, len);
                prefixes++;
                if (sk_msg_decode(cut, len, &m) == 0) {
                    accepted_prefix++;
                    sk_msg_free(&m);
                } else if (m.m_arena != NULL) {
                    kept_arena++;
                }
                free(cut);
            }
            size_t n = 0;
            walk(b.b_data, 0, spans, &n);
            for (size_t s = 0; s < n; s++) {
                for (int fam = 0; fam < FAM_COUNT; fam++) {
                    if (fam == spans[s].sp_family)
                        continue;
                    size_t at = spans[s].sp_at, old = spans[s].sp_len;
                    size_t len = b.b_len - old + replacement[fam].r_len;
                    memcpy(tmp, b.b_data, at);
                    memcpy(tmp + at, replacement[fam].r_bytes,
                           replacement[fam].r_len);
                    memcpy(tmp + at + replacement[fam].r_len,
                           b.b_data + at + old, b.b_len - at - old);
                    swaps++;
                    if (sk_msg_decode(tmp, len, &m) == 0) {
                        accepted_swap++;
                        sk_msg_free(&m);
                    }
                }
            }
        }
        tap_ok(accepted_prefix == 0 && kept_arena == 0,
               "%s: all %ld proper prefixes rejected, nothing kept",
               sk_msg_type_name(t), prefixes);
        tap_ok(accepted_swap == 0 && swaps > 0,
               "%s: all %ld values of a wrong msgpack type rejected",
               sk_msg_type_name(t), swaps);
        pg_free(&g);
    }
    free(spans);
    free(tmp);
    sk_buf_free(&b);
}

/* Random corruption: whatever decodes must be a message the encoder
 * accepts, and re-encoding it must decode to the same message. */
static void test_corruption(void)
{
    pg g;
    sk_rng r;
    pg_init(&g, 99);
    sk_rng_seed(&r, 7);
    sk_buf b = SK_BUF_INIT, again = SK_BUF_INIT;
    long tried = 0, decoded = 0, inconsistent = 0;
    for (int i = 0; i < 20000; i++) {
        sk_msg_type t =
            (sk_msg_type)(1 + sk_rng_below(&r, SK_MSG_TYPE_END - 1));
        small_message(&g, t, &b, 512);
        int flips = 1 + (int)sk_rng_below(&r, 3);
        for (int f = 0; f < flips; f++)
            b.b_data[sk_rng_below(&r, b.b_len)] ^=
                (uint8_t)(1 + sk_rng_below(&r, 255));
        sk_msg m, m2;
        const char *field;
        tried++;
        if (sk_msg_decode(b.b_data, b.b_len, &m) != 0)
            continue;
        decoded++;
        if (sk_msg_encode(&again, &m) != 0 ||
            sk_msg_decode(again.b_data, again.b_len, &m2) != 0) {
            inconsistent++;
        } else {
            if (!pg_equal(&m, &m2, &field))
                inconsistent++;
            sk_msg_free(&m2);
        }
        sk_msg_free(&m);
        if (i % 256 == 255)
            pg_free(&g);
    }
    tap_ok(inconsistent == 0,
           "corrupted messages: %ld tried, %ld still valid, all of those "
           "re-encode to the same message",
           tried, decoded);
    pg_free(&g);
    sk_buf_free(&b);
    sk_buf_free(&again);
}

/* ---- the encoder's refusals ---- */

static void test_encoder_limits(void)
{
    sk_buf b = SK_BUF_INIT;
    char name[SK_MAX_REASON_LEN + 2];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    char *name_over = name + sizeof name - 2 - SK_MAX_NAME_LEN;
    char *name_at = name_over + 1;

    sk_get_task gt = {.gt_node = name_at};
    tap_is_int(sk_get_task_encode(&b, &gt), 0, "node name at its limit");
    gt.gt_node = name_over;
    tap_is_int(sk_get_task_encode(&b, &gt), SK_ELIMIT, "node name too long");

    sk_cancel_job cj = {1, name};
    tap_is_int(sk_cancel_job_encode(&b, &cj), SK_ELIMIT, "reason too long");
    cj.cj_reason = name + 1;
    tap_is_int(sk_cancel_job_encode(&b, &cj), 0, "reason at its limit");

    sk_hello he = {.he_role = SK_ROLE_FLOWD, .he_naddrs = 1};
    tap_is_int(sk_hello_encode(&b, &he), SK_EINVAL, "a NULL list with a count");
    const char *addrs[SK_MAX_ADDRS + 1] = {0};
    he.he_addrs = addrs;
    he.he_naddrs = SK_MAX_ADDRS + 1;
    tap_is_int(sk_hello_encode(&b, &he), SK_ELIMIT, "too many addresses");
    he.he_naddrs = SK_MAX_ADDRS;
    tap_is_int(sk_hello_encode(&b, &he), 0, "NULL addresses encode as \"\"");
    he.he_role = 0;
    tap_is_int(sk_hello_encode(&b, &he), SK_EINVAL, "role 0");

    static uint8_t spec[SK_MAX_SPEC_BYTES + 1];
    sk_task_spec ts = {.ts_spec = {spec, SK_MAX_SPEC_BYTES + 1}};
    sk_submit_job sj = {.sj_tasks = &ts, .sj_ntasks = 1};
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_ELIMIT, "spec too big");
    ts.ts_spec.b_len = SK_MAX_SPEC_BYTES;
    tap_is_int(sk_submit_job_encode(&b, &sj), 0, "spec at its limit");
    sj.sj_ntasks = 0;
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_EINVAL, "a job of no task");
    sj.sj_ntasks = 1;
    sj.sj_probe_ratio = 0.5;
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_EINVAL, "probe ratio 0.5");
    sj.sj_probe_ratio = NAN;
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_EINVAL, "probe ratio NaN");
    sj.sj_probe_ratio = 0;
    sj.sj_priority = SK_PRIORITIES;
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_EINVAL, "bad priority");
    sj.sj_priority = 0;

    /* 300 specs of 64 KiB are each fine and together too much. */
    sk_task_spec *many = calloc(300, sizeof *many);
    for (int i = 0; i < 300; i++)
        many[i].ts_spec = (sk_bytes){spec, SK_MAX_SPEC_BYTES};
    sj.sj_tasks = many;
    sj.sj_ntasks = 300;
    tap_is_int(sk_submit_job_encode(&b, &sj), SK_ELIMIT,
               "a message over SK_MAX_MSG_BYTES");
    tap_ok(b.b_cap <= SK_MAX_MSG_BYTES, "the buffer never grows past it");
    free(many);

    sk_task_reply tr = {.tr_has_task = false, .tr_spec = {spec, 1}};
    tap_is_int(sk_task_reply_encode(&b, &tr), SK_EINVAL,
               "a task-less reply with a spec");
    sk_job_done jd = {.jd_tasks = 3, .jd_ok = 2};
    tap_is_int(sk_job_done_encode(&b, &jd), SK_EINVAL,
               "job outcomes that do not add up");
    sk_heartbeat hb = {.hb_slots_total = 2, .hb_slots_used = 3};
    tap_is_int(sk_heartbeat_encode(&b, &hb), SK_EINVAL,
               "more slots used than total");
    sk_status_row row = {NULL, 0};
    const char *cols[] = {"a"};
    sk_status_reply sr = {.sr_role = SK_ROLE_NODEMON,
                          .sr_columns = cols,
                          .sr_ncolumns = 1,
                          .sr_rows = &row,
                          .sr_nrows = 1};
    tap_is_int(sk_status_reply_encode(&b, &sr), SK_EINVAL,
               "a status row short of the columns");
    sk_enqueue er = {.er_count = 1, .er_task = SK_MAX_TASKS};
    tap_is_int(sk_enqueue_encode(&b, &er), SK_EINVAL, "bound past the last");
    sk_buf_free(&b);
}

int main(void)
{
    tap_timeout(120);
    tap_plan_lazy();
    test_envelope();
    test_declared_sizes();
    test_limits_decode();
    test_truncation_and_types();
    test_corruption();
    test_encoder_limits();
    tap_is_int(leaks_on_failure, 0,
               "no failed decode left memory or a type behind");
    tap_done();
    return tap_exit_status();
}
