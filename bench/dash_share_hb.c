/*
 * dash_share_hb.c - bench/dash-share's in-process part (see
 * dash_share_hb.h): the real node monitor and flowd cores, driven with
 * messages and a virtual clock as their daemons drive them.
 */
#include "dash_share_hb.h"

#include "fd_core.h"
#include "nm_core.h"
#include "sk_core.h"
#include "sk_proto.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCHED    1
#define FLOWD    2
#define BEATS    2000 /* heartbeats timed per run */
#define TOOL     0x7fffffffu
#define MAX_RUNS 50

static const unsigned users_per_node[] = {0, 4, 16, 64};
#define NU (sizeof users_per_node / sizeof users_per_node[0])

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void user_name(char *buf, size_t len, unsigned i)
{
    snprintf(buf, len, "user%04u", i);
}

/* ---- the node monitor: building and encoding a heartbeat ------------- */

/* A node monitor core (1 slot, a heartbeat every hb_ms) with users
 * users, each with a reservation queued (one fetching); NULL on
 * failure. */
static nm_core *nm_with_users(unsigned users, int64_t hb_ms)
{
    nm_config cfg;
    nm_config_init(&cfg, 1);
    snprintf(cfg.nc_node, sizeof cfg.nc_node, "bench-node");
    cfg.nc_heartbeat_ms = hb_ms;
    /* The longest GET_TASK timeout: few of them within the runs. */
    cfg.nc_get_task_timeout_ms = 3600000;
    nm_core *nm;
    if (nm_new(&cfg, NULL, 1, &nm) != 0)
        return NULL;
    sk_hello h = {.he_role = SK_ROLE_SCHEDULER,
                  .he_id = 1,
                  .he_name = "s",
                  .he_framework = ""};
    nm_peer_up(nm, SCHED, &h, 0);
    h.he_role = SK_ROLE_FLOWD;
    h.he_id = 0;
    nm_peer_up(nm, FLOWD, &h, 0);
    for (unsigned i = 0; i < users; i++) {
        char name[32];
        user_name(name, sizeof name, i);
        sk_msg m = {.m_type = SK_MSG_ENQUEUE_RESERVATION};
        m.m_enqueue = (sk_enqueue){.er_job = 1 + i,
                                   .er_resv = 1 + i,
                                   .er_sched = 1,
                                   .er_user = name,
                                   .er_count = 1,
                                   .er_res = {100, 10},
                                   .er_task = SK_TASK_ANY};
        nm_on_message(nm, SCHED, &m, 0);
    }
    sk_outbox_clear(nm_outbox(nm));
    return nm;
}

/* ns per heartbeat (core + encoding) over BEATS heartbeats step_us
 * apart; the most bytes of one in *bytes. */
static double nm_run(nm_core *nm, sk_time *now, sk_time step_us, size_t *bytes,
                     sk_buf *buf)
{
    double t0 = now_ns();
    for (unsigned k = 0; k < BEATS; k++) {
        *now += step_us;
        nm_on_timer(nm, *now);
        sk_outbox *ob = nm_outbox(nm);
        for (size_t i = 0; i < ob->ob_len; i++)
            if (sk_msg_encode(buf, &ob->ob_msgs[i].o_msg) == 0 &&
                buf->b_len > *bytes)
                *bytes = buf->b_len;
        sk_outbox_clear(ob);
    }
    return (now_ns() - t0) / BEATS;
}

/* ---- flowd: decoding and keeping a heartbeat ------------------------- */

/* A flowd core with nodes node monitors registered (peers 10..); NULL on
 * failure. */
static fd_core *fd_with_nodes(unsigned nodes)
{
    fd_config cfg;
    fd_config_init(&cfg);
    fd_core *c;
    if (fd_core_new(&cfg, 1, 1, &c, NULL, 0) != 0)
        return NULL;
    const char *addr = "tcp://127.0.0.1:1";
    for (unsigned n = 0; n < nodes; n++) {
        char name[32];
        snprintf(name, sizeof name, "node%05u", n);
        sk_msg m = {.m_type = SK_MSG_HELLO};
        m.m_hello = (sk_hello){.he_role = SK_ROLE_NODEMON,
                               .he_id = 10 + n,
                               .he_incarnation = 1,
                               .he_name = name,
                               .he_addrs = &addr,
                               .he_naddrs = 1,
                               .he_slots = 8,
                               .he_res = {8000, 8192},
                               .he_framework = "",
                               .he_rack = ""};
        fd_core_on_msg(c, 1, 10 + n, &m);
        sk_outbox_clear(fd_core_outbox(c));
    }
    return c;
}

/* Encodes node n's heartbeat seq with users users (the same names on
 * every node, as a cluster's users run everywhere) into buf. */
static int hb_bytes(sk_buf *buf, unsigned n, uint64_t seq, unsigned users,
                    sk_time now)
{
    sk_usage us[SK_MAX_HB_USERS];
    static char names[SK_MAX_HB_USERS][32];
    for (unsigned i = 0; i < users; i++) {
        user_name(names[i], sizeof names[i], i);
        us[i] = (sk_usage){names[i], 1 + i % 4, i % 3, i % 2, 1000 * i};
    }
    char name[32];
    snprintf(name, sizeof name, "node%05u", n);
    sk_heartbeat hb = {.hb_node_id = 10 + n,
                       .hb_node = name,
                       .hb_seq = seq,
                       .hb_time_us = now,
                       .hb_slots_total = 8,
                       .hb_users = us,
                       .hb_nusers = users,
                       .hb_users_total = users,
                       .hb_users_sent = true};
    return sk_heartbeat_encode(buf, &hb);
}

/* ns per heartbeat (decoding and the core) over BEATS heartbeats, round
 * robin over the nodes from *seq % nodes; *seq numbers them (one
 * sequence for all: each node's increases). */
static double fd_run(fd_core *c, unsigned nodes, unsigned users, sk_time *now,
                     uint64_t *seq, sk_buf *wire)
{
    double ns = 0;
    for (unsigned k = 0; k < BEATS; k++) {
        unsigned n = (unsigned)(++*seq % nodes);
        *now += 1000;
        /* Encoding is the node monitor's work: not timed here. */
        if (hb_bytes(wire, n, *seq, users, *now) != 0)
            return -1;
        double t0 = now_ns();
        sk_msg m;
        if (sk_msg_decode(wire->b_data, wire->b_len, &m) != 0)
            return -1;
        fd_core_on_msg(c, *now, 10 + n, &m);
        sk_msg_free(&m);
        sk_outbox_clear(fd_core_outbox(c));
        ns += now_ns() - t0;
    }
    return ns / BEATS;
}

/* ms to answer `users` (the core and encoding the reply); its bytes in
 * *bytes and rows in *rows. */
static double fd_query(fd_core *c, sk_time now, sk_buf *buf, size_t *bytes,
                       uint32_t *rows)
{
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request = (sk_status_request){
        .sq_request = 1, .sq_table = true, .sq_query = "users"};
    double t0 = now_ns();
    fd_core_on_msg(c, now, TOOL, &m);
    sk_outbox *ob = fd_core_outbox(c);
    for (size_t i = 0; i < ob->ob_len; i++)
        if (ob->ob_msgs[i].o_msg.m_type == SK_MSG_STATUS_REPLY &&
            sk_msg_encode(buf, &ob->ob_msgs[i].o_msg) == 0) {
            *bytes = buf->b_len;
            *rows = ob->ob_msgs[i].o_msg.m_status_reply.sr_nrows;
        }
    double ms = (now_ns() - t0) / 1e6;
    sk_outbox_clear(ob);
    return ms;
}

int dash_hb_bench(unsigned runs, unsigned nodes)
{
    runs = runs < 3 ? 3 : runs > MAX_RUNS ? MAX_RUNS : runs;
    sk_buf buf = SK_BUF_INIT;
    printf("\nin-process, %u runs (median [min-max]); the anchor is the "
           "heartbeat without users.\nnodemon: every heartbeat with the "
           "summary (5 s apart), and at its pace (1 s apart, a summary in 1 "
           "of 5); flowd: each with a summary\n",
           runs);
    printf("%5s %22s %22s %6s %22s %24s %7s\n", "users", "nodemon ns, summary",
           "nodemon ns, paced", "bytes", "flowd ns, summary",
           "query `users` ms", "reply B");
    int rc = 0;
    for (unsigned u = 0; u < NU && rc == 0; u++) {
        unsigned users = users_per_node[u];
        double nm_ns[MAX_RUNS], nmp_ns[MAX_RUNS], fd_ns[MAX_RUNS],
            q_ms[MAX_RUNS];
        size_t nm_b = 0, q_b = 0, nmp_b = 0;
        uint32_t q_rows = 0;
        nm_core *nm = nm_with_users(users, 5000);
        nm_core *nmp = nm_with_users(users, 1000);
        fd_core *c = fd_with_nodes(nodes);
        if (nm == NULL || nmp == NULL || c == NULL) {
            fprintf(stderr, "dash-share: cannot make a core\n");
            rc = 1;
        }
        sk_time nm_now = 0, nmp_now = 0, fd_now = 1;
        uint64_t seq = 0;
        /* Every node's summary in place before the query. */
        for (unsigned n = 0; rc == 0 && n < nodes; n += BEATS)
            if (fd_run(c, nodes, users, &fd_now, &seq, &buf) < 0)
                rc = 1;
        for (unsigned r = 0; rc == 0 && r < runs; r++) {
            nm_ns[r] = nm_run(nm, &nm_now, 5000000, &nm_b, &buf);
            nmp_ns[r] = nm_run(nmp, &nmp_now, 1000000, &nmp_b, &buf);
            fd_ns[r] = fd_run(c, nodes, users, &fd_now, &seq, &buf);
            q_ms[r] = fd_query(c, fd_now, &buf, &q_b, &q_rows);
        }
        if (nm != NULL)
            nm_free(nm);
        if (nmp != NULL)
            nm_free(nmp);
        if (c != NULL)
            fd_core_free(c);
        if (rc != 0)
            break;
        qsort(nm_ns, runs, sizeof nm_ns[0], cmp);
        qsort(nmp_ns, runs, sizeof nmp_ns[0], cmp);
        qsort(fd_ns, runs, sizeof fd_ns[0], cmp);
        qsort(q_ms, runs, sizeof q_ms[0], cmp);
        printf("%5u %6.0f [%6.0f-%6.0f] %6.0f [%6.0f-%6.0f] %6zu "
               "%6.0f [%6.0f-%6.0f] %6.2f [%6.2f-%6.2f] %7zu (%u nodes, "
               "%u rows)\n",
               users, nm_ns[runs / 2], nm_ns[0], nm_ns[runs - 1],
               nmp_ns[runs / 2], nmp_ns[0], nmp_ns[runs - 1], nm_b,
               fd_ns[runs / 2], fd_ns[0], fd_ns[runs - 1], q_ms[runs / 2],
               q_ms[0], q_ms[runs - 1], q_b, nodes, q_rows);
    }
    sk_buf_free(&buf);
    return rc;
}
