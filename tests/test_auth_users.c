/*
 * test_auth_users.c - users of an authenticated cluster: tokens issued by
 * `skylark user token`, and real daemons started with the cluster key. A
 * user's token cannot register as a node monitor (its HELLO is refused
 * and counted), submits as its own user only (a job naming another user
 * is refused; an empty user is filled in), and sees its own jobs only in
 * the scheduler's table, where an admin's token and the cluster key see
 * all. Expired and forged tokens fail the handshake with a clear error
 * and are counted; a token opens no session with a node monitor. An
 * executor token registers its framework's executors with a node
 * monitor, and nothing else.
 */
#include "config.h"
#include "daemon_harness.h"
#include "skylark.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char skylark[1024];

/* Issues user's token into the file name in the test directory with the
 * extra options, under key. Returns the path. */
static const char *issue(const char *user, const char *name, const char *extra,
                         const char *key, char *path, size_t len)
{
    char cmd[3000], out[1024];
    snprintf(path, len, "%s/%s", dh_dir(), name);
    snprintf(cmd, sizeof cmd, "'%s' user token %s '%s' %s --key-file '%s'",
             skylark, user, path, extra, key);
    if (dh_sh(cmd, out, sizeof out, NULL) != 0)
        tap_bail_out("skylark user token %s failed: %s", user, out);
    return path;
}

/* A client with the token file (NULL: the cluster key) connected to ep. */
static dh_client *client(const char *token, const char *name, const char *ep,
                         sk_peer_id *peer)
{
    dh_set_token_file(token);
    dh_client *c = dh_client_new("frontend", name);
    dh_set_token_file(NULL);
    if ((*peer = dh_client_connect(c, ep, 5)) == 0)
        tap_bail_out("client %s cannot connect", name);
    /* Its first frame completes the handshake at the scheduler. Each
     * client's loop runs only when the test runs it: the test keeps the
     * silences below the scheduler's 3 s timeout. */
    dh_client_run_for(c, 0.1);
    return c;
}

static uint32_t rows_seen(dh_client *c, sk_peer_id sched)
{
    dh_status st;
    dh_client_status(c, sched, true, &st, 5);
    uint32_t n = st.st_ok ? st.st_nrows : UINT32_MAX;
    dh_status_free(&st);
    return n;
}

/* The node monitor's daemon.role_refused, asked with the cluster key. */
static int64_t node_refusals(const char *key, const dh_proc *node)
{
    dh_set_token_file(NULL);
    dh_set_key_file(key);
    dh_client *c = dh_client_new("tool", "count");
    sk_peer_id p = dh_client_connect(c, node->dp_endpoint, 5);
    dh_status st;
    dh_client_status(c, p, false, &st, 5);
    int64_t n = st.st_ok ? dh_status_int(&st, "daemon.role_refused") : -1;
    dh_status_free(&st);
    dh_client_free(c);
    return n;
}

/* A client with the token file tok, as transport role, to ep: its peer
 * id, or 0 if its session never came up within 2 s. */
static sk_peer_id token_client(const char *tok, const char *role,
                               const char *name, const char *ep,
                               const char *framework, dh_client **c)
{
    dh_set_token_file(tok);
    *c = dh_client_new(role, name);
    dh_set_token_file(NULL);
    if (framework != NULL)
        dh_client_executor(*c, framework, true);
    return dh_client_connect(*c, ep, 2);
}

static void ignore_launch(void *arg, const sk_launch_info *t)
{
    (void)arg;
    (void)t;
}

/* Executors with an executor token instead of the cluster key: they
 * register with a node monitor as executors of their framework, and as
 * nothing else, nowhere else; a user's token is no executor's. */
static void test_executor_tokens(const char *key, const dh_proc *sched,
                                 const dh_proc *node)
{
    char spark[600], alice[600], cmd[3000], out[1024];
    issue("spark", "spark.exec.token", "--executor", key, spark, sizeof spark);
    issue("alice", "alice2.token", "", key, alice, sizeof alice);
    FILE *f = fopen(spark, "r");
    char line[256] = "";
    if (f != NULL) {
        if (fgets(line, sizeof line, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    tap_ok(strncmp(line, "skylark-token 1 spark executor ", 31) == 0,
           "skylark user token --executor writes an executor token");
    snprintf(cmd, sizeof cmd,
             "'%s' user token x --admin --executor --key-file '%s'", skylark,
             key);
    tap_is_int(dh_sh(cmd, out, sizeof out, NULL), 2,
               "--admin with --executor: exit 2");

    /* The real executor library with the token. */
    sk_executor_opts o;
    sk_executor_opts_init(&o);
    o.eo_nodemon = node->dp_endpoint;
    o.eo_framework = "spark";
    o.eo_token_file = spark;
    sk_executor_callbacks cb = {.ec_launch = ignore_launch};
    sk_executor *ex = NULL;
    int rc = sk_executor_create(NULL, &o, &cb, &ex);
    tap_ok(rc == 0 && sk_executor_wait_registered(ex, 5) == 0,
           "an executor with its framework's executor token registers with "
           "the node monitor");
    sk_executor_destroy(ex);
    o.eo_framework = "hadoop";
    ex = NULL;
    tap_is_int(sk_executor_create(NULL, &o, &cb, &ex), SK_ECONFIG,
               "the library refuses spark's token for framework hadoop");
    sk_executor_destroy(ex);
    o.eo_framework = "alice";
    o.eo_token_file = alice;
    ex = NULL;
    tap_is_int(sk_executor_create(NULL, &o, &cb, &ex), SK_ECONFIG,
               "and a user's token for an executor");
    sk_executor_destroy(ex);

    /* Raw clients that try more. */
    int64_t before = node_refusals(key, node);
    dh_client *c;
    sk_peer_id p =
        token_client(spark, "executor", "ex2", node->dp_endpoint, "hadoop", &c);
    if (p != 0) {
        dh_client_hello(c, p, SK_ROLE_EXECUTOR);
        dh_client_run_for(c, 0.2);
    }
    dh_client_free(c);
    p = token_client(spark, "executor", "ex3", node->dp_endpoint, NULL, &c);
    if (p != 0) {
        dh_client_hello(c, p, SK_ROLE_SCHEDULER);
        dh_client_hello(c, p, SK_ROLE_FLOWD);
        dh_client_hello(c, p, SK_ROLE_FRONTEND);
        dh_client_run_for(c, 0.2);
    }
    dh_client_free(c);
    int64_t after = node_refusals(key, node);
    tap_ok(p != 0 && after - before == 4,
           "spark's executor token registering framework hadoop, or as a "
           "scheduler, flowd or frontend, is refused by the node monitor "
           "(daemon.role_refused +%lld)",
           (long long)(after - before));
    p = token_client(spark, "sched", "s9", node->dp_endpoint, NULL, &c);
    dh_client_free(c);
    tap_ok(p == 0, "an executor token opens no session as a scheduler");
    p = token_client(spark, "frontend", "fe9", sched->dp_endpoint, NULL, &c);
    dh_client_free(c);
    tap_ok(p == 0, "nor with a scheduler, as a frontend");
    p = token_client(alice, "executor", "ex9", node->dp_endpoint, "alice", &c);
    dh_client_free(c);
    tap_ok(p == 0, "a user's token opens no session as an executor");
}

int main(void)
{
    tap_plan_lazy();
    tap_timeout(120);
    dh_init();
    const char *b = getenv("top_builddir");
    snprintf(skylark, sizeof skylark, "%s/cli/skylark", b ? b : ".");
    if (access(skylark, X_OK) != 0)
        tap_bail_out("no skylark binary at %s", skylark);

    char key[600], other[600], cmd[4000], out[4096];
    snprintf(key, sizeof key, "%s/cluster.key", dh_dir());
    snprintf(other, sizeof other, "%s/other.key", dh_dir());
    snprintf(cmd, sizeof cmd, "'%s' key new '%s' && '%s' key new '%s'", skylark,
             key, skylark, other);
    if (dh_sh(cmd, out, sizeof out, NULL) != 0)
        tap_bail_out("skylark key new failed: %s", out);

    /* Tokens. */
    char alice[600], bob[600], admin[600], late[600], forged[600];
    issue("alice", "alice.token", "", key, alice, sizeof alice);
    issue("bob", "bob.token", "--expires 2h", key, bob, sizeof bob);
    issue("ops", "ops.token", "--admin", key, admin, sizeof admin);
    issue("alice", "late.token", "--expires 1s", key, late, sizeof late);
    issue("alice", "forged.token", "", other, forged, sizeof forged);
    struct stat st;
    tap_ok(stat(alice, &st) == 0 && (st.st_mode & 0777) == 0600,
           "skylark user token writes a file only its owner may read");
    snprintf(cmd, sizeof cmd, "'%s' user token alice '%s' --key-file '%s'",
             skylark, alice, key);
    tap_is_int(dh_sh(cmd, out, sizeof out, NULL), 2,
               "over an existing file: exit 2");
    snprintf(cmd, sizeof cmd,
             "'%s' user token alice --expires 5y --key-file '%s'", skylark,
             key);
    tap_is_int(dh_sh(cmd, out, sizeof out, NULL), 2,
               "a lifetime it cannot read: exit 2");
    snprintf(cmd, sizeof cmd, "'%s' user token 'al ice' --key-file '%s'",
             skylark, key);
    tap_is_int(dh_sh(cmd, out, sizeof out, NULL), 2,
               "a user name with a space: exit 2");

    /* The cluster. */
    dh_proc sched, node;
    const char *keyed[] = {"--key-file", key, NULL};
    if (dh_start_sched(&sched, "s1", 1, keyed) != 0)
        tap_bail_out("the keyed scheduler does not start");
    const dh_proc *scheds[] = {&sched};
    if (dh_start_nodemon(&node, "n1", 1, 4, scheds, 1, keyed) != 0)
        tap_bail_out("the keyed node monitor does not start");
    dh_set_key_file(key);
    sk_peer_id s_ops, s_alice, s_bob, s_key;
    dh_client *ops = client(admin, "ops", sched.dp_endpoint, &s_ops);
    dh_client *ca = client(alice, "fe-alice", sched.dp_endpoint, &s_alice);
    dh_client *cb = client(bob, "fe-bob", sched.dp_endpoint, &s_bob);
    dh_client *ck = client(NULL, "fe-key", sched.dp_endpoint, &s_key);
    if (!dh_wait_status(ops, s_ops, "nodes", 1, 5, NULL))
        tap_bail_out("the node monitor did not register");

    /* A user's token poses as a node monitor. */
    dh_client_hello(ca, s_alice, SK_ROLE_NODEMON);
    dh_client_run_for(ca, 0.2);
    dh_status stt;
    dh_client_status(ops, s_ops, false, &stt, 2);
    tap_ok(stt.st_ok && dh_status_int(&stt, "daemon.role_refused") == 1,
           "a HELLO as a node monitor from alice's token is refused and "
           "counted (daemon.role_refused %lld)",
           (long long)dh_status_int(&stt, "daemon.role_refused"));
    tap_ok(stt.st_ok && dh_status_int(&stt, "nodes") == 1,
           "the scheduler still knows one node monitor");
    dh_status_free(&stt);

    /* The job's user is the authenticated user. */
    dh_job *j = dh_client_submit(ca, s_alice, 1, 1, "true", "bob", 1);
    dh_job_wait_done(ca, j, 10);
    tap_ok(j->jb_rejected && strstr(j->jb_reason, "authenticated") != NULL,
           "alice's job as user bob is refused: %s", j->jb_reason);
    dh_client_status(ops, s_ops, false, &stt, 5);
    tap_ok(stt.st_ok && dh_status_int(&stt, "jobs_rejected_user") == 1,
           "and counted (jobs_rejected_user)");
    dh_status_free(&stt);
    dh_job *ja1 = dh_client_submit(ca, s_alice, 2, 1, "sleep 30", "alice", 1);
    dh_job *ja2 = dh_client_submit(ca, s_alice, 3, 1, "sleep 30", "", 1);
    dh_job *jb = dh_client_submit(cb, s_bob, 1, 1, "sleep 30", "bob", 1);
    dh_job *jk = dh_client_submit(ck, s_key, 1, 1, "sleep 30", "carol", 1);
    dh_client_run_for(ca, 0.3);
    dh_client_run_for(cb, 0.1);
    dh_client_run_for(ck, 0.1);
    tap_ok(ja1->jb_accepted && ja2->jb_accepted && jb->jb_accepted &&
               jk->jb_accepted,
           "jobs as one's own user, with an empty user, and any user with "
           "the cluster key are accepted");

    /* Who sees what. */
    uint32_t ra = rows_seen(ca, s_alice), rb = rows_seen(cb, s_bob),
             ro = rows_seen(ops, s_ops), rk = rows_seen(ck, s_key);
    tap_ok(ra == 2, "alice sees her 2 jobs only (%u rows)", ra);
    tap_ok(rb == 1, "bob sees his 1 job only (%u rows)", rb);
    tap_ok(ro == 4 && rk == 4,
           "an admin's token and the cluster key see all 4 (%u, %u rows)", ro,
           rk);
    snprintf(cmd, sizeof cmd, "'%s' status --json --token-file '%s' '%s'",
             skylark, bob, sched.dp_endpoint);
    int rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_ok(rc == 0 && strstr(out, "\"bob\"") != NULL &&
               strstr(out, "\"alice\"") == NULL &&
               strstr(out, "\"carol\"") == NULL,
           "skylark status --token-file shows bob's jobs and no one else's");
    /* Gone, their frontends' jobs are cancelled. */
    dh_client_free(ck);
    dh_client_free(cb);
    dh_client_free(ca);
    dh_client_free(ops);

    /* The real tool with a token. */
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --token-file '%s' -n 2 --timeout 20 "
             "-- 'echo ok'",
             skylark, sched.dp_endpoint, alice);
    rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_is_int(rc, 0, "skylark run --token-file runs a job as alice");
    if (rc != 0)
        tap_diag("%s", out);
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --token-file '%s' --user root -n 1 "
             "--timeout 20 -- true",
             skylark, sched.dp_endpoint, alice);
    rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_ok(rc == 1 && strstr(out, "not the authenticated user") != NULL,
           "--user root with alice's token: exit 1, and why");

    /* Expired and forged tokens. */
    sleep(2);
    double secs;
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --token-file '%s' -n 1 --timeout 20 "
             "-- true",
             skylark, sched.dp_endpoint, late);
    rc = dh_sh(cmd, out, sizeof out, &secs);
    tap_ok(rc == 1 && secs < 10 && strstr(out, "expired") != NULL,
           "an expired token: exit 1 in %.1f s, saying it has expired", secs);
    snprintf(cmd, sizeof cmd,
             "'%s' run --scheduler '%s' --token-file '%s' -n 1 --timeout 20 "
             "-- true",
             skylark, sched.dp_endpoint, forged);
    rc = dh_sh(cmd, out, sizeof out, &secs);
    tap_ok(rc == 1 && secs < 10 && strstr(out, "does not verify") != NULL,
           "a token of another cluster key: exit 1 in %.1f s, saying it does "
           "not verify",
           secs);
    ops = client(admin, "ops2", sched.dp_endpoint, &s_ops);
    dh_client_status(ops, s_ops, false, &stt, 5);
    tap_ok(stt.st_ok && dh_status_int(&stt, "transport.token_expired") >= 1 &&
               dh_status_int(&stt, "transport.auth_failed") >= 2,
           "the scheduler counted them (token_expired %lld, auth_failed "
           "%lld)",
           (long long)dh_status_int(&stt, "transport.token_expired"),
           (long long)dh_status_int(&stt, "transport.auth_failed"));
    dh_status_free(&stt);

    /* A token opens no session with a node monitor. */
    snprintf(cmd, sizeof cmd, "'%s' status --timeout 2 --token-file '%s' '%s'",
             skylark, admin, node.dp_endpoint);
    rc = dh_sh(cmd, out, sizeof out, NULL);
    tap_ok(rc == 1 && strstr(out, "only the cluster key") != NULL,
           "even an admin's token is refused by a node monitor, saying why");

    dh_client_free(ops);
    test_executor_tokens(key, &sched, &node);
    dh_kill(&node);
    dh_kill(&sched);
    tap_done();
    return tap_exit_status();
}
