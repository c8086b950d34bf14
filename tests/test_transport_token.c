/*
 * test_transport_token.c - user tokens (sk_token.h) and the credentials
 * of transport sessions: a token's line on its own (round trip, hostile
 * lines), then routers and dealers over loopback TCP. A user's token
 * comes up for the roles the router admits, and the router learns the
 * user and role from it; a token that claims a daemon's role, that is
 * forged, altered, expired or not admitted here is refused at its HELLO,
 * told why and counted; and a session name cannot be taken over under
 * another credential. An executor token comes up as an executor only,
 * where a router admits executors, and no other token as one.
 */
#include "config.h"
#include "sk_log.h"
#include "sk_tauth.h"
#include "sk_token.h"
#include "sk_transport.h"
#include "skylark.h"
#include "tap.h"
#include "transport_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct ev_loop *loop;
static const uint8_t cluster[SK_TAUTH_KEY] = {7, 1, 7, 1, 7, 1};
static const uint8_t other[SK_TAUTH_KEY] = {1, 7, 1, 7, 1, 7};

/* --- tokens alone --------------------------------------------------------- */

static void test_token_lines(void)
{
    char err[200], line[SK_TOKEN_TEXT_MAX + 1];
    sk_token a, b;
    uint64_t exp = (uint64_t)time(NULL) + 3600;
    tap_is_int(sk_token_issue(cluster, "alice", SK_CRED_USER, exp, &a, err,
                              sizeof err),
               0, "a token is issued for alice");
    size_t n = sk_token_format(&a, line);
    tap_ok(n > 0 && strncmp(line, "skylark-token 1 alice user ", 27) == 0 &&
               line[n - 1] == '\n',
           "its line names the user and role (%.*s...)", 27, line);
    tap_ok(sk_token_parse(line, n, &b, err, sizeof err) == 0 &&
               strcmp(b.tk_user, "alice") == 0 && b.tk_role == SK_CRED_USER &&
               b.tk_expiry == exp &&
               memcmp(a.tk_key, b.tk_key, SK_TAUTH_KEY) == 0,
           "the line reads back as the same token");
    uint8_t k[SK_TAUTH_KEY];
    sk_token_key(cluster, "alice", SK_CRED_ADMIN, exp, k);
    int differ = memcmp(k, a.tk_key, SK_TAUTH_KEY) != 0;
    sk_token_key(cluster, "alicf", SK_CRED_USER, exp, k);
    differ &= memcmp(k, a.tk_key, SK_TAUTH_KEY) != 0;
    sk_token_key(cluster, "alice", SK_CRED_USER, exp + 1, k);
    differ &= memcmp(k, a.tk_key, SK_TAUTH_KEY) != 0;
    sk_token_key(other, "alice", SK_CRED_USER, exp, k);
    differ &= memcmp(k, a.tk_key, SK_TAUTH_KEY) != 0;
    tap_ok(differ, "another role, user, expiry or cluster key gives "
                   "another key");
    tap_is_int(sk_token_issue(cluster, "al ice", SK_CRED_USER, exp, &b, err,
                              sizeof err),
               SK_EINVAL, "a user name with a space is refused: %s", err);
    static const char *const bad[] = {
        "",
        "skylark-token 1 alice user 1 00",
        "skylark-token 1 alice root 99999999999 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "0\n",
        "skylark-token 1 al/ce user 99999999999 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "0\n",
        "skylark-token 1 alice user -5 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "0\n",
        "skylark-token 1 alice user 99999999999 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "g\n",
        "skylark-token 1 alice user 99999999999 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "0 more\n",
        "skylark-token 2 alice user 99999999999 "
        "000000000000000000000000000000000000000000000000000000000000000"
        "0\n",
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused += sk_token_parse(bad[i], strlen(bad[i]), &b, err,
                                  sizeof err) == SK_ECONFIG;
    tap_is_int(refused, (int)(sizeof bad / sizeof bad[0]),
               "every malformed line is refused");
}

/* --- sessions ------------------------------------------------------------- */

typedef struct side {
    tu_rec sd_rec; /* first: the callbacks' argument is the side too */
    sk_transport *sd_t;
    int sd_refused;
    char sd_why[200];
} side;

static void on_refused(void *arg, sk_peer_id peer, const char *why)
{
    side *s = arg;
    (void)peer;
    s->sd_refused++;
    snprintf(s->sd_why, sizeof s->sd_why, "%s", why);
}

/* A router under the cluster key that admits tokens for roles (NULL:
 * none). */
static void make_router(side *s, const char *roles, const char *ep)
{
    memset(s, 0, sizeof *s);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "sched");
    strcpy(cfg.tc_name, "s1");
    cfg.tc_heartbeat = 0.1;
    cfg.tc_keyed = 1;
    memcpy(cfg.tc_key, cluster, SK_TAUTH_KEY);
    if (roles != NULL)
        snprintf(cfg.tc_token_roles, sizeof cfg.tc_token_roles, "%s", roles);
    s->sd_rec.ru_tag = "s1";
    sk_transport_callbacks cb = tu_callbacks(&s->sd_rec);
    cb.tc_refused = on_refused;
    if (sk_transport_create(loop, &cfg, &cb, &s->sd_t) != 0 ||
        sk_transport_listen(s->sd_t, ep) != 0)
        tap_bail_out("cannot make the router");
}

/* A dealer of role and name connected to ep, with the token tk (NULL:
 * the cluster key). claim, if nonzero, replaces the role its HELLO
 * names. */
static sk_peer_id make_dealer(side *s, const char *role, const char *name,
                              const sk_token *tk, uint8_t claim, const char *ep)
{
    memset(s, 0, sizeof *s);
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    snprintf(cfg.tc_role, sizeof cfg.tc_role, "%s", role);
    snprintf(cfg.tc_name, sizeof cfg.tc_name, "%s", name);
    cfg.tc_heartbeat = 0.1;
    cfg.tc_keyed = 1;
    memcpy(cfg.tc_key, tk != NULL ? tk->tk_key : cluster, SK_TAUTH_KEY);
    if (tk != NULL) {
        snprintf(cfg.tc_token_user, sizeof cfg.tc_token_user, "%s",
                 tk->tk_user);
        cfg.tc_token_role = claim != 0 ? claim : tk->tk_role;
        cfg.tc_token_expiry = tk->tk_expiry;
    }
    s->sd_rec.ru_tag = name;
    sk_transport_callbacks cb = tu_callbacks(&s->sd_rec);
    cb.tc_refused = on_refused;
    sk_peer_id id;
    if (sk_transport_create(loop, &cfg, &cb, &s->sd_t) != 0 ||
        sk_transport_connect(s->sd_t, ep, &id) != 0)
        tap_bail_out("cannot make dealer %s", name);
    return id;
}

static int up(void *arg)
{
    return ((side *)arg)->sd_rec.ru_ups > 0;
}

/* The router's session comes up after the dealer's, at its first frame. */
static int router_ups;
static int router_up_again(void *arg)
{
    return ((side *)arg)->sd_rec.ru_ups > router_ups;
}

static int refused_once(void *arg)
{
    return ((side *)arg)->sd_refused > 0;
}

static void new_ep(char *ep, size_t len)
{
    snprintf(ep, len, "tcp://127.0.0.1:%d", tu_free_port());
}

static sk_token token(const char *user, uint8_t role, int64_t life,
                      const uint8_t *key)
{
    sk_token tk;
    char err[200];
    if (sk_token_issue(key, user, role, (uint64_t)(time(NULL) + life), &tk, err,
                       sizeof err) != 0)
        tap_bail_out("cannot issue a token: %s", err);
    return tk;
}

static void test_user_up(void)
{
    char ep[64];
    new_ep(ep, sizeof ep);
    side r, d;
    make_router(&r, "frontend tool", ep);
    sk_token tk = token("alice", SK_CRED_USER, 3600, cluster);
    make_dealer(&d, "frontend", "fe1", &tk, 0, ep);
    tap_ok(tu_run_until(loop, up, &r, 5) && tu_run_until(loop, up, &d, 5),
           "a user's token comes up as a frontend");
    sk_peer_info pi;
    memset(&pi, 0, sizeof pi);
    int found = sk_transport_peer_info(r.sd_t, r.sd_rec.ru_last_up, &pi) == 0;
    tap_ok(found && pi.pi_cred == SK_CRED_USER &&
               strcmp(pi.pi_user, "alice") == 0,
           "the router knows it as user alice (cred %u, user %s)", pi.pi_cred,
           pi.pi_user);
    sk_transport_destroy(d.sd_t);

    sk_token adm = token("root-ops", SK_CRED_ADMIN, 3600, cluster);
    router_ups = r.sd_rec.ru_ups;
    make_dealer(&d, "tool", "st1", &adm, 0, ep);
    tap_ok(tu_run_until(loop, router_up_again, &r, 5) &&
               sk_transport_peer_info(r.sd_t, r.sd_rec.ru_last_up, &pi) == 0 &&
               pi.pi_cred == SK_CRED_ADMIN &&
               strcmp(pi.pi_user, "root-ops") == 0,
           "an admin's token comes up as a tool, known as admin");
    sk_transport_destroy(d.sd_t);
    router_ups = r.sd_rec.ru_ups;
    make_dealer(&d, "nodemon", "n1", NULL, 0, ep);
    tap_ok(tu_run_until(loop, router_up_again, &r, 5) &&
               sk_transport_peer_info(r.sd_t, r.sd_rec.ru_last_up, &pi) == 0 &&
               pi.pi_cred == SK_CRED_CLUSTER && pi.pi_user[0] == '\0',
           "the cluster key comes up as a daemon, with no user");
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);
}

/* A dealer that must be refused at its HELLO: it is told why, nothing
 * comes up, and the router's counter moves. */
static void refused(const char *what, const char *roles, const char *role,
                    const sk_token *tk, uint8_t claim, const char *why,
                    size_t counter)
{
    char ep[64];
    new_ep(ep, sizeof ep);
    side r, d;
    make_router(&r, roles, ep);
    make_dealer(&d, role, "x1", tk, claim, ep);
    tap_ok(tu_run_until(loop, refused_once, &d, 5) &&
               strstr(d.sd_why, why) != NULL,
           "%s: refused, and told why (%s)", what, d.sd_why);
    tu_run_for(loop, 0.35);
    sk_transport_stats rs;
    sk_transport_stats_get(r.sd_t, &rs);
    uint64_t n;
    memcpy(&n, (const char *)&rs + counter, sizeof n);
    tap_ok(r.sd_rec.ru_ups == 0 && d.sd_rec.ru_ups == 0 && rs.ts_peers == 0 &&
               n > 0,
           "%s: no session comes up; the router counted it (%llu)", what,
           (unsigned long long)n);
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);
}

static void test_refusals(void)
{
    sk_token alice = token("alice", SK_CRED_USER, 3600, cluster);
    const size_t role = offsetof(sk_transport_stats, ts_role_refused);
    const size_t failed = offsetof(sk_transport_stats, ts_auth_failed);
    const size_t expired = offsetof(sk_transport_stats, ts_token_expired);
    refused("a token as a node monitor", "frontend tool", "nodemon", &alice, 0,
            "only the cluster key", role);
    refused("a token as a scheduler", "frontend tool", "sched", &alice, 0,
            "only the cluster key", role);
    refused("a token as flowd", "frontend tool", "flowd", &alice, 0,
            "only the cluster key", role);
    refused("a token where no token is admitted", NULL, "frontend", &alice, 0,
            "only the cluster key", role);
    sk_token forged = token("alice", SK_CRED_USER, 3600, other);
    refused("a token from another cluster key", "frontend", "frontend", &forged,
            0, "does not verify", failed);
    refused("a user's token that claims admin", "frontend", "frontend", &alice,
            SK_CRED_ADMIN, "does not verify", failed);
    sk_token renamed = alice;
    strcpy(renamed.tk_user, "bob");
    refused("a token renamed to another user", "frontend", "frontend", &renamed,
            0, "does not verify", failed);
    sk_token late = token("alice", SK_CRED_USER, -5, cluster);
    refused("an expired token", "frontend", "frontend", &late, 0, "has expired",
            expired);
}

static void test_takeover(void)
{
    char ep[64];
    new_ep(ep, sizeof ep);
    side r, d1, d2, d3;
    make_router(&r, "frontend", ep);
    sk_token alice = token("alice", SK_CRED_USER, 3600, cluster);
    sk_token bob = token("bob", SK_CRED_USER, 3600, cluster);
    make_dealer(&d1, "frontend", "fe7", &alice, 0, ep);
    if (!tu_run_until(loop, up, &d1, 5) || !tu_run_until(loop, up, &r, 5))
        tap_bail_out("alice's frontend did not come up");
    sk_peer_id alices = r.sd_rec.ru_last_up;
    make_dealer(&d2, "frontend", "fe7", &bob, 0, ep);
    tap_ok(tu_run_until(loop, refused_once, &d2, 5) &&
               strstr(d2.sd_why, "another credential") != NULL,
           "bob cannot take alice's session name: %s", d2.sd_why);
    sk_peer_info pi;
    sk_transport_stats rs;
    sk_transport_stats_get(r.sd_t, &rs);
    tap_ok(r.sd_rec.ru_downs == 0 &&
               sk_transport_peer_info(r.sd_t, alices, &pi) == 0 && pi.pi_up &&
               rs.ts_role_refused > 0,
           "alice's session stays up; the attempt is counted (%llu)",
           (unsigned long long)rs.ts_role_refused);
    sk_transport_destroy(d2.sd_t);
    make_dealer(&d3, "frontend", "fe7", NULL, 0, ep);
    tap_ok(tu_run_until(loop, refused_once, &d3, 5),
           "nor can the cluster key take a user's name");
    sk_transport_destroy(d3.sd_t);
    router_ups = r.sd_rec.ru_ups;
    make_dealer(&d2, "frontend", "fe7", &alice, 0, ep);
    tap_ok(tu_run_until(loop, router_up_again, &r, 5) &&
               r.sd_rec.ru_downs == 1 &&
               r.sd_rec.ru_last_why == SK_PEER_REPLACED,
           "alice's own new session replaces her old one");
    sk_transport_destroy(d2.sd_t);
    sk_transport_destroy(d1.sd_t);
    sk_transport_destroy(r.sd_t);
}

static void test_config(void)
{
    sk_transport_config cfg;
    sk_transport_config_default(&cfg);
    strcpy(cfg.tc_role, "frontend");
    strcpy(cfg.tc_name, "f");
    strcpy(cfg.tc_token_user, "alice");
    cfg.tc_token_role = SK_CRED_USER;
    sk_transport *t = NULL;
    tap_is_int(sk_transport_create(loop, &cfg, NULL, &t), SK_EINVAL,
               "a token without tc_keyed is refused");
    cfg.tc_keyed = 1;
    cfg.tc_token_role = 9;
    tap_is_int(sk_transport_create(loop, &cfg, NULL, &t), SK_EINVAL,
               "a token of no known role is refused");
    cfg.tc_token_role = SK_CRED_USER;
    tap_is_int(sk_transport_create(loop, &cfg, NULL, &t), 0,
               "a user's token makes a transport");
    char ep[64];
    new_ep(ep, sizeof ep);
    tap_is_int(sk_transport_listen(t, ep), SK_EINVAL,
               "which cannot listen: a router holds the cluster key");
    sk_transport_destroy(t);
    cfg.tc_token_user[0] = '\0';
    static const char *const bad[] = {" frontend", "frontend ", "a  b",
                                      "fr/ontend"};
    int refusedn = 0;
    for (size_t i = 0; i < 4; i++) {
        snprintf(cfg.tc_token_roles, sizeof cfg.tc_token_roles, "%s", bad[i]);
        refusedn += sk_transport_create(loop, &cfg, NULL, &t) == SK_EINVAL;
    }
    tap_is_int(refusedn, 4, "malformed tc_token_roles are refused");
}

/* Executor tokens: role "executor" only, and only where admitted. */
static void test_executor(void)
{
    sk_token ex = token("spark", SK_CRED_EXECUTOR, 3600, cluster), back;
    char line[SK_TOKEN_TEXT_MAX + 1], err[200];
    size_t n = sk_token_format(&ex, line);
    tap_ok(strncmp(line, "skylark-token 1 spark executor ", 31) == 0 &&
               sk_token_parse(line, n, &back, err, sizeof err) == 0 &&
               back.tk_role == SK_CRED_EXECUTOR &&
               memcmp(back.tk_key, ex.tk_key, SK_TAUTH_KEY) == 0,
           "an executor token's line round-trips");
    char ep[64];
    new_ep(ep, sizeof ep);
    side r, d;
    make_router(&r, "frontend executor", ep);
    make_dealer(&d, "executor", "ex1", &ex, 0, ep);
    sk_peer_info pi;
    memset(&pi, 0, sizeof pi);
    int found = tu_run_until(loop, up, &r, 5) &&
                sk_transport_peer_info(r.sd_t, r.sd_rec.ru_last_up, &pi) == 0;
    tap_ok(found && pi.pi_cred == SK_CRED_EXECUTOR &&
               strcmp(pi.pi_user, "spark") == 0,
           "an executor token comes up as an executor where admitted, known "
           "as executor spark (cred %u)",
           pi.pi_cred);
    sk_transport_destroy(d.sd_t);
    sk_transport_destroy(r.sd_t);

    sk_token alice = token("alice", SK_CRED_USER, 3600, cluster);
    sk_token adm = token("ops", SK_CRED_ADMIN, 3600, cluster);
    const size_t role = offsetof(sk_transport_stats, ts_role_refused);
    const size_t failed = offsetof(sk_transport_stats, ts_auth_failed);
    refused("an executor token as a frontend", "frontend executor", "frontend",
            &ex, 0, "only the cluster key", role);
    refused("an executor token as a scheduler", "frontend executor", "sched",
            &ex, 0, "only the cluster key", role);
    refused("an executor token where executors are not admitted",
            "frontend tool", "executor", &ex, 0, "only the cluster key", role);
    refused("a user's token as an executor", "frontend executor", "executor",
            &alice, 0, "only the cluster key", role);
    refused("an admin's token as an executor", "frontend executor", "executor",
            &adm, 0, "only the cluster key", role);
    refused("a user's token that claims executor", "frontend executor",
            "executor", &alice, SK_CRED_EXECUTOR, "does not verify", failed);
}

int main(void)
{
    tap_plan_lazy();
    tap_timeout(60);
    sk_log_set_level(getenv("SK_TEST_LOG") ? SK_LOG_DEBUG : SK_LOG_ERROR);
    loop = ev_default_loop(0);
    if (sk_tauth_init() != 0)
        tap_bail_out("libsodium cannot start");
    test_token_lines();
    test_config();
    test_user_up();
    test_refusals();
    test_takeover();
    test_executor();
    ev_loop_destroy(loop);
    tap_done();
    return tap_exit_status();
}
