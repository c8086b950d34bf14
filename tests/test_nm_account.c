/*
 * test_nm_account.c - the [accounts] table of the node monitor: its
 * configuration keys ([accounts] user = account, [cmdexec]
 * default_account and allow_root) read through sk_config, and its
 * resolution at start: unknown accounts and root refused with a message
 * naming the key, uid, gid, groups, home and environment of a real
 * account, and the lookup order (table, default, allow_root, refusal).
 * Needs no root: it only reads the account database.
 */
#include "nm_account.h"
#include "skylark.h"
#include "tap.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static nm_account_config cfg;
static sk_config_key keys[NM_ACCOUNT_NKEYS];

static int apply(const char *assignment, char *err, size_t errlen)
{
    return sk_config_apply_assignment(keys, NM_ACCOUNT_NKEYS, assignment, err,
                                      errlen);
}

static void test_keys(void)
{
    char err[256] = "";
    tap_is_int(nm_account_keys(&cfg, keys), NM_ACCOUNT_NKEYS,
               "three configuration keys");
    tap_ok(!nm_account_configured(&cfg), "nothing configured at first");
    tap_ok(apply("accounts.alice=nobody", err, sizeof err) == 0 &&
               apply("accounts.bob=daemon", err, sizeof err) == 0 &&
               apply("accounts.alice=bin", err, sizeof err) == 0,
           "[accounts] user = account, a second line for a user replaces");
    tap_ok(cfg.ac_count == 2 && strcmp(cfg.ac_map[0].ae_user, "alice") == 0 &&
               strcmp(cfg.ac_map[0].ae_account, "bin") == 0 &&
               strcmp(cfg.ac_map[1].ae_account, "daemon") == 0,
           "two users mapped, alice to bin");
    tap_ok(nm_account_configured(&cfg), "a table is a configuration");
    tap_ok(apply("accounts.carol=an-account-name-longer-than-32-bytes", err,
                 sizeof err) == SK_ECONFIG &&
               strstr(err, "account name 1 to 32 bytes"),
           "an account name over 32 bytes is refused: %s", err);
    tap_ok(apply("cmdexec.allow_root=yes", err, sizeof err) == 0 &&
               cfg.ac_allow_root,
           "allow_root = yes");
    tap_ok(apply("cmdexec.default_account=nobody", err, sizeof err) == 0 &&
               strcmp(cfg.ac_default, "nobody") == 0,
           "default_account = nobody");
    nm_account_config many;
    memset(&many, 0, sizeof many);
    int rc = 0;
    for (unsigned i = 0; i < NM_MAX_ACCOUNTS + 1 && rc == 0; i++) {
        char user[16];
        snprintf(user, sizeof user, "u%u", i);
        rc = nm_account_map_set(&many, user, "nobody");
    }
    tap_ok(rc == SK_ELIMIT && many.ac_count == NM_MAX_ACCOUNTS,
           "at most %u users mapped", NM_MAX_ACCOUNTS);
}

static void test_resolve(void)
{
    struct passwd *pw = getpwnam("nobody");
    struct passwd *rootpw = getpwuid(0);
    if (pw == NULL || rootpw == NULL) {
        tap_skip(9, "no account 'nobody' or no uid 0 in the account database");
        return;
    }
    uid_t nuid = pw->pw_uid;
    gid_t ngid = pw->pw_gid;
    char rootname[NM_MAX_ACCOUNT_LEN + 1];
    snprintf(rootname, sizeof rootname, "%.*s", (int)NM_MAX_ACCOUNT_LEN,
             rootpw->pw_name);
    char err[256] = "";
    nm_accounts *a = NULL;

    nm_account_config c;
    memset(&c, 0, sizeof c);
    nm_account_map_set(&c, "alice", "no-such-account-xq");
    tap_ok(nm_accounts_resolve(&c, &a, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "[accounts] alice: no Unix account "
                           "'no-such-account-xq'"),
           "an unknown account is refused: %s", err);

    memset(&c, 0, sizeof c);
    nm_account_map_set(&c, "alice", rootname);
    tap_ok(nm_accounts_resolve(&c, &a, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "[accounts] alice") && strstr(err, "uid 0") &&
               strstr(err, "allow_root"),
           "a mapping to root is refused by default: %s", err);
    memset(&c, 0, sizeof c);
    memcpy(c.ac_default, rootname, sizeof rootname);
    tap_ok(nm_accounts_resolve(&c, &a, err, sizeof err) == SK_ECONFIG &&
               strstr(err, "[cmdexec] default_account") &&
               strstr(err, "allow_root"),
           "so is a default account that is root: %s", err);

    memset(&c, 0, sizeof c);
    nm_account_map_set(&c, "alice", "nobody");
    if (nm_accounts_resolve(&c, &a, err, sizeof err) != 0)
        tap_bail_out("cannot resolve alice = nobody: %s", err);
    const nm_ident *id = NULL;
    tap_ok(nm_accounts_lookup(a, "alice", &id) == NM_RUN_ACCOUNT &&
               id->id_uid == nuid && id->id_gid == ngid &&
               id->id_ngroups >= 1 && id->id_groups[0] == ngid,
           "alice runs as nobody: uid %u, gid %u, %u groups", (unsigned)nuid,
           (unsigned)ngid, id ? id->id_ngroups : 0);
    char home[300];
    snprintf(home, sizeof home, "HOME=%s", id->id_home);
    tap_ok(strcmp(id->id_env[0], home) == 0 &&
               strcmp(id->id_env[1], "USER=nobody") == 0 &&
               strcmp(id->id_env[2], "LOGNAME=nobody") == 0 &&
               id->id_home[0] == '/',
           "with its environment: %s %s %s", id->id_env[0], id->id_env[1],
           id->id_env[2]);
    tap_ok(nm_accounts_lookup(a, "bob", &id) == NM_RUN_REFUSED && id == NULL,
           "bob, unmapped, with no default and no allow_root: refused");
    nm_accounts_free(a);

    snprintf(c.ac_default, sizeof c.ac_default, "nobody");
    if (nm_accounts_resolve(&c, &a, err, sizeof err) != 0)
        tap_bail_out("cannot resolve default nobody: %s", err);
    tap_ok(nm_accounts_lookup(a, "bob", &id) == NM_RUN_ACCOUNT &&
               id->id_uid == nuid,
           "with default_account = nobody, bob runs as nobody");
    nm_accounts_free(a);

    memset(&c, 0, sizeof c);
    c.ac_allow_root = true;
    if (nm_accounts_resolve(&c, &a, err, sizeof err) != 0)
        tap_bail_out("cannot resolve allow_root: %s", err);
    tap_ok(nm_accounts_lookup(a, "bob", &id) == NM_RUN_SELF,
           "with allow_root and no default, bob runs as the node monitor");
    nm_accounts_free(a);

    nm_account_map_set(&c, "admin", rootname);
    tap_ok(nm_accounts_resolve(&c, &a, err, sizeof err) == 0 &&
               nm_accounts_lookup(a, "admin", &id) == NM_RUN_ACCOUNT &&
               id->id_uid == 0,
           "with allow_root, a mapping to root is accepted");
    nm_accounts_free(a);
}

int main(void)
{
    tap_plan(18);
    tap_timeout(20);
    test_keys();
    test_resolve();
    return tap_exit_status();
}
