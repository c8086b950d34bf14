/*
 * test_auth_users.c - users of an authenticated cluster: tokens issued by
 * `skylark user token`, and real daemons started with the cluster key. A
 * user's token cannot register as a node monitor (its HELLO is refused
 * and counted), submits as its own user only (a job naming another user
 * is refused; an empty user is filled in), and sees its own jobs only in
 * the scheduler's table, where an admin's token and the cluster key see
 * all. Expired and forged tokens fail the handshake with a clear error
 * and are counted; a token opens no session with a node monitor.
 */
#include "config.h"
#include "daemon_harness.h"
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
    dh_kill(&node);
    dh_kill(&sched);
    tap_done();
    return tap_exit_status();
}
