/*
 * test_fd_share.c - the flow node core's users summaries (fd_share.h),
 * driven directly (no sockets): heartbeats carrying users, the query
 * `users` summing them per user over the live nodes (weights as a range,
 * nodes counted, users a node left out counted), a newer heartbeat
 * replacing a node's summary (growing and shrinking it), a stale one
 * ignored, a node down dropping its part, more distinct users than a
 * reply holds counted as dropped, a node's users in pages (a cycle's
 * union kept, users gone dropped after a cycle, a lost page counted) and
 * the per-node limit.
 */
#include "fd_core.h"
#include "fd_testutil.h"
#include "skylark.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0   1000000000000ull
#define MS   FDT_MS
#define TOOL 9000

/* A user's line of a heartbeat: name, weight, queued, running, slot ms. */
typedef struct hu {
    const char *name;
    uint32_t weight, queued, running;
    uint64_t slot_ms;
} hu;

/* The node on peer sends heartbeat seq with users page page, u[0..n) of
 * total (u NULL and total UINT32_MAX: a heartbeat without a summary). */
static void beat_page(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                      const hu *u, uint32_t n, uint32_t total, uint32_t page)
{
    bool sent = !(u == NULL && total == UINT32_MAX);
    total = sent ? total : 0;
    fdt_drain(c);
    sk_usage *us = calloc(n + 1, sizeof *us);
    if (us == NULL)
        tap_bail_out("out of memory");
    for (uint32_t i = 0; i < n; i++)
        us[i] = (sk_usage){u[i].name, u[i].weight, u[i].queued, u[i].running,
                           u[i].slot_ms};
    sk_msg m = {.m_type = SK_MSG_HEARTBEAT};
    m.m_heartbeat = (sk_heartbeat){.hb_node_id = peer,
                                   .hb_node = "n",
                                   .hb_seq = seq,
                                   .hb_time_us = now,
                                   .hb_slots_total = 8,
                                   .hb_users = us,
                                   .hb_nusers = n,
                                   .hb_users_total = total,
                                   .hb_users_sent = sent,
                                   .hb_users_page = page};
    fd_core_on_msg(c, now, peer, &m);
    free(us);
}

/* A heartbeat with a whole cycle's users in page 0 (or none). */
static void beat(fd_core *c, sk_time now, sk_peer peer, uint64_t seq,
                 const hu *u, uint32_t n, uint32_t total)
{
    beat_page(c, now, peer, seq, u, n, total, 0);
}

/* Asks `users`; the reply stays valid until the next call into c. */
static const sk_status_reply *ask(fd_core *c, sk_time now)
{
    fdt_drain(c);
    sk_msg m = {.m_type = SK_MSG_STATUS_REQUEST};
    m.m_status_request = (sk_status_request){
        .sq_request = 5, .sq_table = true, .sq_query = "users"};
    fd_core_on_msg(c, now, TOOL, &m);
    const sk_msg *r = fdt_nth(c, SK_MSG_STATUS_REPLY, 0, NULL);
    if (r == NULL)
        tap_bail_out("no STATUS_REPLY to 'users'");
    return &r->m_status_reply;
}

static const char *kv(const sk_status_reply *r, const char *key)
{
    for (uint32_t i = 0; i < r->sr_nkv; i++)
        if (strcmp(r->sr_kv[i].kv_key, key) == 0)
            return r->sr_kv[i].kv_value;
    return "(none)";
}

/* The row of user as "wmin wmax running queued slot_ms nodes", or
 * "(none)"; in buf. */
static const char *row(const sk_status_reply *r, const char *user, char *buf,
                       size_t len)
{
    snprintf(buf, len, "(none)");
    for (uint32_t i = 0; i < r->sr_nrows; i++) {
        const char *const *c = r->sr_rows[i].sw_cells;
        if (strcmp(c[0], user) == 0)
            snprintf(buf, len, "%s %s %s %s %s %s", c[1], c[2], c[3], c[4],
                     c[5], c[6]);
    }
    return buf;
}

static void test_sums(void)
{
    sk_time now = T0;
    fd_core *c = fdt_core(NULL, now);
    fdt_node(c, now, 1, "a", 8, NULL, -1);
    fdt_node(c, now, 2, "b", 8, NULL, -1);
    fdt_node(c, now, 3, "c", 8, NULL, -1);
    fdt_node(c, now, 4, "d", 8, NULL, -1); /* never beats */
    const hu a1[] = {{"alice", 2, 1, 2, 1000}, {"bob", 1, 0, 1, 500}};
    const hu b1[] = {{"alice", 3, 0, 1, 200}};
    beat(c, now, 1, 1, a1, 2, 2);
    now += 100 * MS;
    beat(c, now, 2, 1, b1, 1, 70);
    beat(c, now, 3, 1, NULL, 0, 0);
    beat(c, now, 4, 1, NULL, 0, UINT32_MAX); /* d: no summary yet */
    now += 50 * MS;
    const sk_status_reply *r = ask(c, now);
    char buf[128];
    tap_ok(r->sr_ncolumns == 7 && strcmp(r->sr_columns[0], "user") == 0 &&
               r->sr_nrows == 2,
           "users: one row per user, 7 columns (%" PRIu32 " rows)",
           r->sr_nrows);
    tap_is_str(row(r, "alice", buf, sizeof buf), "2 3 3 1 1200 2",
               "alice summed over two nodes, weights as a range");
    tap_is_str(row(r, "bob", buf, sizeof buf), "1 1 1 0 500 1",
               "bob from the one node that has him");
    char pairs[160];
    snprintf(pairs, sizeof pairs, "%s %s %s %s %s %s %s", kv(r, "nodes"),
             kv(r, "nodes_reporting"), kv(r, "users"), kv(r, "users_cut"),
             kv(r, "rows"), kv(r, "users_dropped"), kv(r, "age_ms_max"));
    tap_is_str(pairs, "4 3 2 69 3 0 150",
               "pairs: 4 nodes, 3 reporting (d sent no summary yet), 2 users, "
               "69 left out by b, 3 rows kept, none dropped, the oldest "
               "150 ms old");

    /* A newer heartbeat replaces a's summary: bob gone, alice grown to
     * 64 users' worth of room; an older one changes nothing. */
    hu many[SK_MAX_HB_USERS];
    char names[SK_MAX_HB_USERS][16];
    for (unsigned i = 0; i < SK_MAX_HB_USERS; i++) {
        snprintf(names[i], sizeof names[i], "u%02u", i);
        many[i] = (hu){names[i], 1, 0, 1, 10};
    }
    many[0] = (hu){"alice", 2, 0, 4, 3000};
    now += 10 * MS;
    beat(c, now, 1, 2, many, SK_MAX_HB_USERS, SK_MAX_HB_USERS);
    beat(c, now, 1, 1, a1, 2, 2);            /* stale: seq 1 after 2 */
    beat(c, now, 1, 3, NULL, 0, UINT32_MAX); /* none: the last stands */
    r = ask(c, now);
    char alice[128];
    row(r, "alice", alice, sizeof alice);
    tap_ok(strcmp(row(r, "bob", buf, sizeof buf), "(none)") == 0 &&
               strcmp(row(r, "alice", buf, sizeof buf), "2 3 5 0 3200 2") ==
                   0 &&
               strcmp(row(r, "u63", buf, sizeof buf), "1 1 1 0 10 1") == 0 &&
               r->sr_nrows == SK_MAX_HB_USERS,
           "a newer heartbeat replaces the node's summary (64 users); a "
           "stale one, and one without a summary, leave it (alice %s)",
           alice);

    /* Shrinks back, then node a's session ends: only b's part stays. */
    now += 10 * MS;
    beat(c, now, 1, 4, a1, 1, 1);
    r = ask(c, now);
    tap_is_str(row(r, "alice", buf, sizeof buf), "2 3 3 1 1200 2",
               "a summary that shrinks to one user");
    fdt_drain(c);
    fd_core_peer_down(c, now, 1);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s %s", kv(r, "nodes"),
             kv(r, "nodes_reporting"), row(r, "alice", buf, sizeof buf));
    tap_is_str(pairs, "3 2 3 3 1 0 200 1",
               "a node down takes its part out of the sums");
    fd_core_free(c);
}

/* More distinct users than a reply's rows: counted, not shown. */
static void test_dropped(void)
{
    sk_time now = T0;
    fd_core *c = fdt_core(NULL, now);
    enum { NODES = 300 };
    static char names[NODES][SK_MAX_HB_USERS][16];
    hu u[SK_MAX_HB_USERS];
    for (unsigned n = 0; n < NODES; n++) {
        char node[16];
        snprintf(node, sizeof node, "n%u", n);
        fdt_node(c, now, 10 + n, node, 8, NULL, -1);
        for (unsigned i = 0; i < SK_MAX_HB_USERS; i++) {
            snprintf(names[n][i], sizeof names[n][i], "x%u-%u", n, i);
            u[i] = (hu){names[n][i], 1, 1, 0, 1};
        }
        beat(c, now, 10 + n, 1, u, SK_MAX_HB_USERS, SK_MAX_HB_USERS);
    }
    const sk_status_reply *r = ask(c, now);
    char pairs[96];
    snprintf(pairs, sizeof pairs, "%" PRIu32 " %s %s %s", r->sr_nrows,
             kv(r, "users"), kv(r, "users_dropped"), kv(r, "rows"));
    tap_is_str(pairs, "16384 16384 2816 19200",
               "19,200 distinct users: 16,384 rows shown, 2,816 counted as "
               "dropped");
    fd_core_free(c);
}

/* A node's cycle of pages as a node monitor sends them, 250 ms apart:
 * page 0 the last 64 of u[0..n) (the most active, say), then every one
 * in order (u by name), 64 a page; page skip (if not 0) is lost. Stops
 * before page stop (UINT32_MAX: the whole cycle). */
static void cycle(fd_core *c, sk_time *now, uint64_t *seq, const hu *u,
                  uint32_t n, uint32_t skip, uint32_t stop)
{
    uint32_t first = n > SK_MAX_HB_USERS ? n - SK_MAX_HB_USERS : 0;
    beat_page(c, *now, 1, (*seq)++, u + first, n - first, n, 0);
    for (uint32_t p = 1; n > SK_MAX_HB_USERS && p < stop; p++) {
        uint32_t at = (p - 1) * SK_MAX_HB_USERS;
        if (at >= n)
            break;
        *now += 250 * MS;
        uint32_t k = n - at < SK_MAX_HB_USERS ? n - at : SK_MAX_HB_USERS;
        if (p != skip)
            beat_page(c, *now, 1, *seq, u + at, k, n, p);
        (*seq)++;
    }
    *now += 5000 * MS;
}

/* 200 users on one node, in pages: after one cycle the sums hold all
 * 200; a user that leaves is gone at the end of the next; one that comes
 * while another leaves waits a cycle (at most the users announced); a
 * lost page is counted and drops nothing. */
static void test_pages(void)
{
    sk_time now = T0;
    uint64_t seq = 1;
    fd_core *c = fdt_core(NULL, now);
    fdt_node(c, now, 1, "a", 8, NULL, -1);
    enum { N = 200 };
    static char names[N][8];
    hu all[N], some[N];
    for (unsigned i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "u%03u", i);
        all[i] = (hu){names[i], 1, 0, 1, 10};
    }
    cycle(c, &now, &seq, all, N, 0, 1); /* page 0 only */
    const sk_status_reply *r = ask(c, now);
    char pairs[128], buf[128];
    snprintf(pairs, sizeof pairs, "%s %s %s", kv(r, "users"), kv(r, "rows"),
             kv(r, "users_cut"));
    tap_is_str(pairs, "64 64 136", "page 0: 64 users kept, 136 to come");
    cycle(c, &now, &seq, all, N, 0, UINT32_MAX);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s %s %s %s", kv(r, "users"),
             kv(r, "rows"), kv(r, "users_cut"), kv(r, "page_gaps"),
             row(r, "u150", buf, sizeof buf));
    tap_is_str(pairs, "200 200 0 0 1 1 1 0 10 1",
               "after a cycle (pages 0..4) the sums hold all 200 users");

    /* u150 leaves: kept through the cycle, gone at its last page. */
    uint32_t n = 0;
    for (unsigned i = 0; i < N; i++)
        if (i != 150)
            some[n++] = all[i];
    cycle(c, &now, &seq, some, n, 0, 4);
    r = ask(c, now);
    tap_is_str(row(r, "u150", buf, sizeof buf), "1 1 1 0 10 1",
               "a user gone is kept until its cycle ends (pages 0..3)");
    cycle(c, &now, &seq, some, n, 0, UINT32_MAX);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s %s", kv(r, "users"), kv(r, "rows"),
             row(r, "u150", buf, sizeof buf));
    tap_is_str(pairs, "199 199 (none)",
               "a user that left is gone after a cycle without it");

    /* u150 comes back as u010 leaves: 199 announced, 199 kept, so u150
     * waits for the cycle after the one that drops u010. */
    n = 0;
    for (unsigned i = 0; i < N; i++)
        if (i != 10)
            some[n++] = all[i];
    cycle(c, &now, &seq, some, n, 0, UINT32_MAX);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s %s %s", kv(r, "rows"),
             kv(r, "users_cut"), row(r, "u010", buf, sizeof buf),
             row(r, "u150", buf + 64, sizeof buf - 64));
    tap_is_str(pairs, "198 1 (none) (none)",
               "one leaves as one comes: the one gone dropped, the one "
               "new held back (never more rows than users announced)");
    cycle(c, &now, &seq, some, n, 0, UINT32_MAX);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s", kv(r, "rows"),
             row(r, "u150", buf, sizeof buf));
    tap_is_str(pairs, "199 1 1 1 0 10 1", "and kept from the next cycle on");

    /* Page 1 lost: counted; u000..u063, not listed this cycle, stay (and
     * u010, back, waits for a page that lists it). */
    n = 0;
    for (unsigned i = 0; i < N; i++)
        some[n++] = all[i];
    cycle(c, &now, &seq, some, n, 1, UINT32_MAX);
    r = ask(c, now);
    snprintf(pairs, sizeof pairs, "%s %s %s", kv(r, "rows"), kv(r, "page_gaps"),
             row(r, "u000", buf, sizeof buf));
    tap_is_str(pairs, "199 1 1 1 1 0 10 1",
               "a lost page counted; the cycle drops nobody");
    fd_core_free(c);
}

/* A node announcing 100,000 users and sending 70 pages of new names:
 * kept up to FD_SHARE_MAX_NODE_USERS, the rest counted. */
static void test_node_limit(void)
{
    sk_time now = T0;
    fd_core *c = fdt_core(NULL, now);
    fdt_node(c, now, 1, "a", 8, NULL, -1);
    static char names[70][SK_MAX_HB_USERS][16];
    hu u[SK_MAX_HB_USERS];
    for (uint32_t p = 0; p < 70; p++) {
        for (unsigned i = 0; i < SK_MAX_HB_USERS; i++) {
            snprintf(names[p][i], sizeof names[p][i], "h%02u-%02u", p, i);
            u[i] = (hu){names[p][i], 1, 0, 1, 1};
        }
        now += 250 * MS;
        beat_page(c, now, 1, p + 1, u, SK_MAX_HB_USERS, 100000, p);
    }
    const sk_status_reply *r = ask(c, now);
    char pairs[96];
    snprintf(pairs, sizeof pairs, "%s %s %s", kv(r, "rows"),
             kv(r, "users_over"), kv(r, "users_cut"));
    tap_is_str(pairs, "4096 384 95904",
               "4,480 names from one node: 4,096 kept, 384 counted over");
    fd_core_free(c);
}

int main(void)
{
    tap_plan(16);
    test_sums();
    test_dropped();
    test_pages();
    test_node_limit();
    tap_done();
    return tap_exit_status();
}
