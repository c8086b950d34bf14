/*
 * nm_account.c - the [accounts] table, its configuration keys, and its
 * resolution into uids, gids and groups at start.
 */
#include "nm_account.h"
#include "skylark.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nm_accounts {
    uint32_t a_count;
    char a_users[NM_MAX_ACCOUNTS][SK_MAX_NAME_LEN + 1];
    nm_ident a_ids[NM_MAX_ACCOUNTS];
    bool a_has_default;
    nm_ident a_default;
    bool a_allow_root;
};

int nm_account_map_set(nm_account_config *cfg, const char *user,
                       const char *account)
{
    size_t ulen = strlen(user), alen = strlen(account);
    if (ulen == 0 || ulen > SK_MAX_NAME_LEN || alen == 0 ||
        alen > NM_MAX_ACCOUNT_LEN)
        return SK_EINVAL;
    for (uint32_t i = 0; i < cfg->ac_count; i++) {
        if (strcmp(cfg->ac_map[i].ae_user, user) == 0) {
            memcpy(cfg->ac_map[i].ae_account, account, alen + 1);
            return 0;
        }
    }
    if (cfg->ac_count == NM_MAX_ACCOUNTS)
        return SK_ELIMIT;
    nm_account_entry *e = &cfg->ac_map[cfg->ac_count++];
    memcpy(e->ae_user, user, ulen + 1);
    memcpy(e->ae_account, account, alen + 1);
    return 0;
}

static int parse_account(void *dst, const char *name, const char *value,
                         char *err, size_t errlen)
{
    int rc = nm_account_map_set(dst, name, value);
    if (rc == SK_ELIMIT)
        snprintf(err, errlen, "at most %u users may have an account",
                 NM_MAX_ACCOUNTS);
    else if (rc != 0)
        snprintf(err, errlen,
                 "user name must be 1 to %u bytes and account name 1 to %u "
                 "bytes, got '%s'",
                 SK_MAX_NAME_LEN, NM_MAX_ACCOUNT_LEN, value);
    return rc;
}

size_t nm_account_keys(nm_account_config *cfg, sk_config_key *keys)
{
    const sk_config_key k[NM_ACCOUNT_NKEYS] = {
        {"accounts", "*", SK_CONFIG_CUSTOM, cfg, 0, 0, 0, parse_account,
         "user = account: the Unix account that runs the user's command "
         "tasks when the node monitor runs as root"},
        {"cmdexec", "default_account", SK_CONFIG_STRING, cfg->ac_default,
         sizeof cfg->ac_default, 0, 0, NULL,
         "the account for users [accounts] does not name (empty: their "
         "tasks are refused when running as root)"},
        {"cmdexec", "allow_root", SK_CONFIG_BOOL, &cfg->ac_allow_root, 0, 0, 0,
         NULL,
         "allow tasks to run as root (an account of uid 0, or unmapped "
         "users as the node monitor itself); default no"},
    };
    memcpy(keys, k, sizeof k);
    return NM_ACCOUNT_NKEYS;
}

bool nm_account_configured(const nm_account_config *cfg)
{
    return cfg->ac_count > 0 || cfg->ac_default[0] != '\0';
}

/* Resolves account into id; what names the key in error messages. */
static int resolve_one(const char *account, bool allow_root, const char *what,
                       nm_ident *id, char *err, size_t errlen)
{
    memset(id, 0, sizeof *id);
    errno = 0;
    struct passwd *pw = getpwnam(account);
    if (pw == NULL) {
        snprintf(err, errlen, "%s: no Unix account '%s' on this machine%s%s",
                 what, account, errno != 0 ? ": " : "",
                 errno != 0 ? strerror(errno) : "");
        return SK_ECONFIG;
    }
    if (pw->pw_uid == 0 && !allow_root) {
        snprintf(err, errlen,
                 "%s: account '%s' is root (uid 0); set [cmdexec] allow_root "
                 "= yes to run tasks as root",
                 what, account);
        return SK_ECONFIG;
    }
    snprintf(id->id_name, sizeof id->id_name, "%s", account);
    id->id_uid = pw->pw_uid;
    id->id_gid = pw->pw_gid;
    const char *home = pw->pw_dir;
    if (home == NULL || home[0] != '/' || strlen(home) >= sizeof id->id_home)
        home = "/";
    snprintf(id->id_home, sizeof id->id_home, "%s", home);
    int ng = (int)NM_MAX_GROUPS;
    if (getgrouplist(account, pw->pw_gid, id->id_groups, &ng) < 0) {
        snprintf(err, errlen,
                 "%s: account '%s' is in %d groups, at most %u are supported",
                 what, account, ng, NM_MAX_GROUPS);
        return SK_ECONFIG;
    }
    id->id_ngroups = (uint32_t)ng;
    snprintf(id->id_env[0], sizeof id->id_env[0], "HOME=%s", id->id_home);
    snprintf(id->id_env[1], sizeof id->id_env[1], "USER=%s", account);
    snprintf(id->id_env[2], sizeof id->id_env[2], "LOGNAME=%s", account);
    return 0;
}

int nm_accounts_resolve(const nm_account_config *cfg, nm_accounts **out,
                        char *err, size_t errlen)
{
    nm_accounts *a = calloc(1, sizeof *a);
    if (a == NULL)
        return SK_ENOMEM;
    a->a_allow_root = cfg->ac_allow_root;
    char what[SK_MAX_NAME_LEN + 32];
    for (uint32_t i = 0; i < cfg->ac_count && i < NM_MAX_ACCOUNTS; i++) {
        const nm_account_entry *e = &cfg->ac_map[i];
        snprintf(what, sizeof what, "[accounts] %s", e->ae_user);
        int rc = resolve_one(e->ae_account, cfg->ac_allow_root, what,
                             &a->a_ids[i], err, errlen);
        if (rc != 0) {
            free(a);
            return rc;
        }
        snprintf(a->a_users[i], sizeof a->a_users[i], "%s", e->ae_user);
        a->a_count++;
    }
    if (cfg->ac_default[0] != '\0') {
        int rc = resolve_one(cfg->ac_default, cfg->ac_allow_root,
                             "[cmdexec] default_account", &a->a_default, err,
                             errlen);
        if (rc != 0) {
            free(a);
            return rc;
        }
        a->a_has_default = true;
    }
    *out = a;
    return 0;
}

nm_run_as nm_accounts_lookup(const nm_accounts *a, const char *user,
                             const nm_ident **id)
{
    for (uint32_t i = 0; i < a->a_count; i++) {
        if (strcmp(a->a_users[i], user) == 0) {
            *id = &a->a_ids[i];
            return NM_RUN_ACCOUNT;
        }
    }
    if (a->a_has_default) {
        *id = &a->a_default;
        return NM_RUN_ACCOUNT;
    }
    *id = NULL;
    return a->a_allow_root ? NM_RUN_SELF : NM_RUN_REFUSED;
}

void nm_accounts_free(nm_accounts *a)
{
    free(a);
}
