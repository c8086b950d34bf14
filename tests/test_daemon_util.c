/*
 * test_daemon_util.c - the pieces of the daemon shell that need no
 * process: the peer map (against a model, with references reused first
 * freed first), endpoint checks, string lists, the shared settings and
 * the command line over a configuration table, and the endpoints a daemon
 * advertises for the one it binds.
 */
#include "sk_advertise.h"
#include "sk_daemon_opts.h"
#include "sk_peermap.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_peermap_basic(void)
{
    sk_peermap m;
    sk_peermap_init(&m);
    sk_peer a, b, c;
    tap_is_int(sk_peermap_add(&m, 0x100000001ull, &a), 0, "pair a first id");
    tap_is_int(sk_peermap_add(&m, 0x200000001ull, &b), 0, "pair a second");
    tap_ok(a != 0 && b != 0 && a != b && a != UINT32_MAX && b != UINT32_MAX,
           "references are distinct, never 0 or UINT32_MAX (%u, %u)", a, b);
    tap_is_int(sk_peermap_add(&m, 0x100000001ull, &c), SK_EEXIST,
               "pairing an id twice says so");
    tap_is_int(c, a, "and gives its reference");
    tap_ok(sk_peermap_tid(&m, b) == 0x200000001ull &&
               sk_peermap_tid(&m, 0) == 0,
           "reference to id, and 0 for none");
    uint32_t *f = sk_peermap_flags(&m, a);
    tap_ok(f != NULL && *f == 0, "a new pair's flags are zero");
    *f = 5;
    tap_is_int(sk_peermap_remove(&m, 0x100000001ull, &c), 0, "unpair a");
    tap_ok(c == a && sk_peermap_find(&m, 0x100000001ull, &c) == SK_ENOTFOUND &&
               sk_peermap_tid(&m, a) == 0 && sk_peermap_flags(&m, a) == NULL,
           "it is gone both ways");
    tap_is_int(sk_peermap_remove(&m, 0x100000001ull, NULL), SK_ENOTFOUND,
               "unpairing twice says so");
    /* The freed reference comes back only after every other free one. */
    sk_peer first = 0;
    int reused_early = 0;
    for (uint64_t i = 0; i < 40; i++) {
        sk_peer r;
        sk_peermap_add(&m, 0x1000 + i, &r);
        if (i == 0)
            first = r;
        if (r == a && m.pm_count < m.pm_cap - 1)
            reused_early = 1;
    }
    tap_ok(first != a && !reused_early,
           "a freed reference is reused last (first free, first reused)");
    sk_peermap_free(&m);
}

/* Random adds and removes against an array model. */
static void test_peermap_model(void)
{
    enum { N = 5000 };
    sk_peermap m;
    sk_peermap_init(&m);
    static sk_peer_id tids[N];
    static sk_peer refs[N];
    static int in[N];
    sk_rng rng;
    sk_rng_seed(&rng, 42);
    int errors = 0;
    for (int step = 0; step < 200000; step++) {
        uint32_t i = (uint32_t)sk_rng_below(&rng, N);
        if (tids[i] == 0)
            tids[i] = ((uint64_t)(step + 1) << 32) | (i + 1);
        sk_peer r;
        if (!in[i]) {
            if (sk_peermap_add(&m, tids[i], &r) != 0)
                errors++;
            refs[i] = r;
            in[i] = 1;
        } else if (sk_rng_below(&rng, 2) == 0) {
            if (sk_peermap_remove(&m, tids[i], &r) != 0 || r != refs[i])
                errors++;
            in[i] = 0;
            tids[i] = 0;
        } else if (sk_peermap_find(&m, tids[i], &r) != 0 || r != refs[i] ||
                   sk_peermap_tid(&m, r) != tids[i]) {
            errors++;
        }
    }
    uint32_t count = 0;
    for (int i = 0; i < N; i++)
        if (in[i]) {
            count++;
            sk_peer r;
            if (sk_peermap_find(&m, tids[i], &r) != 0 || r != refs[i])
                errors++;
        }
    tap_is_int(errors, 0, "200,000 random operations agree with a model");
    tap_is_int(m.pm_count, count, "the map holds what the model holds");
    sk_peermap_free(&m);
}

static void test_endpoints_lists(void)
{
    char err[256];
    tap_ok(
        sk_daemon_check_endpoint("tcp://127.0.0.1:7070", err, sizeof err) ==
                0 &&
            sk_daemon_check_endpoint("tcp://host.example:1", err, sizeof err) ==
                0 &&
            sk_daemon_check_endpoint("ipc:///tmp/x.sock", err, sizeof err) == 0,
        "tcp://HOST:PORT and ipc://PATH are endpoints");
    const char *bad[] = {
        "tcp://host", "tcp://:7070", "tcp://h:0", "tcp://h:65536", "tcp://h:7x",
        "ipc://",     "udp://h:1",   "",          "127.0.0.1:7070"};
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused +=
            sk_daemon_check_endpoint(bad[i], err, sizeof err) == SK_ECONFIG;
    tap_is_int(refused, 9, "malformed endpoints are refused");

    sk_strlist l = {NULL, 0, 3, 8, 0};
    tap_ok(sk_strlist_parse(&l, "labels", " a, bb ,,c", err, sizeof err) == 0 &&
               l.sl_count == 3 && strcmp(l.sl_items[1], "bb") == 0,
           "items are split on commas and trimmed, empty ones skipped");
    tap_ok(sk_strlist_parse(&l, "labels", "d", err, sizeof err) == SK_ECONFIG &&
               strstr(err, "at most 3") != NULL,
           "a list over its limit is refused: %s", err);
    sk_strlist_free(&l);
    tap_ok(sk_strlist_parse(&l, "labels", "123456789", err, sizeof err) ==
                   SK_ECONFIG &&
               l.sl_count == 0,
           "an item over its length is refused: %s", err);
    sk_strlist e = {NULL, 0, 4, 255, 1};
    tap_ok(sk_strlist_parse(&e, "s", "tcp://a:1, nope", err, sizeof err) ==
                   SK_ECONFIG &&
               strstr(err, "nope") != NULL,
           "an endpoint list checks its items: %s", err);
    sk_strlist_free(&e);
}

static void test_settings_cli(void)
{
    sk_daemon_settings s;
    sk_daemon_settings_init(&s, "tcp://127.0.0.1:1", 1u << 30);
    tap_is_int(s.ds_max_msg, SK_MAX_MSG_BYTES,
               "max_msg is capped at the protocol's limit");
    sk_strlist l = {NULL, 0, 8, 64, 0};
    sk_config_key keys[SK_DAEMON_NKEYS + 1];
    size_t n = sk_daemon_settings_keys(&s, "d", keys);
    keys[n++] = (sk_config_key){"d", "items", SK_CONFIG_CUSTOM, &l,      0,
                                0,   0,       sk_strlist_parse, "a list"};
    static const sk_daemon_option opts[] = {
        {"listen", "ENDPOINT", "d", "listen", "listen"},
        {"item", "X", "d", "items", "an item"},
    };
    sk_daemon_cli cli = {"prog", "a test", opts, 2, keys, n};
    char path[] = "/tmp/skylark-opts-XXXXXX";
    int fd = mkstemp(path);
    const char text[] = "[d]\nitems = f1, f2\n[transport]\nmisses = 7\n";
    if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)sizeof text - 1)
        tap_bail_out("cannot write a temporary file");
    close(fd);
    char *argv[] = {"prog",
                    "--item",
                    "c1",
                    "--set",
                    "transport.heartbeat_s=0.5",
                    "--listen",
                    "ipc:///tmp/x",
                    "--config",
                    path,
                    "--item",
                    "c2",
                    NULL};
    int rc = sk_daemon_parse_args(&cli, 11, argv);
    tap_is_int(rc, 0, "the command line parses");
    tap_ok(s.ds_misses == 7 && s.ds_heartbeat_s == 0.5 &&
               strcmp(s.ds_listen, "ipc:///tmp/x") == 0,
           "the file is read first, options apply over it");
    tap_ok(l.sl_count == 2 && strcmp(l.sl_items[0], "c1") == 0 &&
               strcmp(l.sl_items[1], "c2") == 0,
           "the command line's list replaces the file's");
    sk_transport_config tc;
    char err[256];
    tap_ok(sk_daemon_transport_config(&s, "sched", "s-1.a:b_c", &tc, err,
                                      sizeof err) == 0 &&
               tc.tc_misses == 7 && tc.tc_heartbeat == 0.5 &&
               strcmp(tc.tc_name, "s-1.a:b_c") == 0,
           "transport settings carry over");
    tap_is_int(
        sk_daemon_transport_config(&s, "sched", "a b", &tc, err, sizeof err),
        SK_ECONFIG, "a name the transport cannot carry is refused");
    unlink(path);
    sk_strlist_free(&l);
    tap_ok(sk_daemon_seed(&s) != 0, "seed 0 draws a seed");
    s.ds_seed = 12;
    tap_is_int((int64_t)sk_daemon_seed(&s), 12, "a set seed is kept");
}

/* What is advertised: a specific endpoint as given; for a wildcard, the
 * machine's addresses (whatever they are here), never 0.0.0.0; for lo,
 * its address. tests/test_netns_hosts checks a wildcard on a host with a
 * known address. */
static void test_advertise(void)
{
    char out[SK_MAX_ADDRS][SK_MAX_ADDR_LEN + 1];
    int n = sk_advertise("tcp://10.1.2.3:7070", out, SK_MAX_ADDRS);
    tap_ok(n == 1 && strcmp(out[0], "tcp://10.1.2.3:7070") == 0,
           "a specific address is advertised as given");
    n = sk_advertise("ipc:///tmp/x.sock", out, SK_MAX_ADDRS);
    tap_ok(n == 1 && strcmp(out[0], "ipc:///tmp/x.sock") == 0,
           "an ipc endpoint is advertised as given");
    for (int w = 0; w < 2; w++) {
        const char *listen = w == 0 ? "tcp://0.0.0.0:7070" : "tcp://*:7070";
        n = sk_advertise(listen, out, SK_MAX_ADDRS);
        int good = n >= 1;
        for (int i = 0; i < n; i++) {
            size_t len = strlen(out[i]);
            good &= strncmp(out[i], "tcp://", 6) == 0 && len > 11 &&
                    strcmp(out[i] + len - 5, ":7070") == 0 &&
                    strstr(out[i], "0.0.0.0") == NULL &&
                    strchr(out[i], '*') == NULL;
        }
        tap_ok(good, "%s: %d addresses of this machine (%s...)", listen, n,
               n > 0 ? out[0] : "");
    }
    n = sk_advertise("tcp://lo:7070", out, SK_MAX_ADDRS);
    tap_ok(n >= 1 && strcmp(out[0], "tcp://127.0.0.1:7070") == 0,
           "an interface name is advertised as its address (%s)",
           n > 0 ? out[0] : "");
    n = sk_advertise("tcp://0.0.0.0:7070", out, 1);
    tap_is_int(n, 1, "at most max addresses");
}

int main(void)
{
    tap_plan(33);
    tap_timeout(30);
    test_peermap_basic();
    test_peermap_model();
    test_endpoints_lists();
    test_settings_cli();
    test_advertise();
    return tap_exit_status();
}
