/*
 * nm_account.h - which Unix account runs a user's command tasks: the
 * [accounts] table of the node monitor's configuration (`user = account`,
 * like [weights]), [cmdexec] default_account and [cmdexec] allow_root,
 * and that table resolved once at start (getpwnam, getgrouplist) into
 * the uid, gid, groups and home a task's child process switches to.
 *
 * Policy (only used when the node monitor runs as root; see
 * docs/SECURITY.md): a user runs as its mapped account, else as
 * default_account, else it is refused; an account with uid 0, or running
 * an unmapped user as the daemon itself (root), needs allow_root.
 *
 * Accounts are resolved at start only: a change to /etc/passwd or
 * /etc/group takes effect when the node monitor restarts. Threading: any,
 * no shared state.
 */
#ifndef NM_ACCOUNT_H
#define NM_ACCOUNT_H

#include "sk_config.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Users that may have a mapped account. */
#define NM_MAX_ACCOUNTS 64u

/* The longest Unix account name accepted (useradd's limit is 32). */
#define NM_MAX_ACCOUNT_LEN 32u

/* Supplementary groups kept per account; more is a start-up error. */
#define NM_MAX_GROUPS 256u

/* The number of sk_config_key entries nm_account_keys fills. */
#define NM_ACCOUNT_NKEYS 3u

/* One line of [accounts]. */
typedef struct nm_account_entry {
    char ae_user[SK_MAX_NAME_LEN + 1];       /* Skylark user */
    char ae_account[NM_MAX_ACCOUNT_LEN + 1]; /* Unix account */
} nm_account_entry;

/* The settings as configured (names only). All zeros: no table, no
 * default, root not allowed. */
typedef struct nm_account_config {
    nm_account_entry ac_map[NM_MAX_ACCOUNTS];
    uint32_t ac_count;
    char ac_default[NM_MAX_ACCOUNT_LEN + 1]; /* "" : refuse unmapped users */
    bool ac_allow_root;                      /* uid 0 may run tasks */
} nm_account_config;

/* An account resolved: what a task's child process becomes. */
typedef struct nm_ident {
    char id_name[NM_MAX_ACCOUNT_LEN + 1];
    uid_t id_uid;
    gid_t id_gid;
    uint32_t id_ngroups;
    gid_t id_groups[NM_MAX_GROUPS];
    char id_home[256];   /* "/" when the account's home is unusable */
    char id_env[3][300]; /* HOME=, USER=, LOGNAME= for the task */
} nm_ident;

/* How a user's task runs (nm_accounts_lookup). */
typedef enum nm_run_as {
    NM_RUN_ACCOUNT, /* as the nm_ident handed back */
    NM_RUN_SELF,    /* as the node monitor itself (root, allowed) */
    NM_RUN_REFUSED, /* no account: the task fails */
} nm_run_as;

typedef struct nm_accounts nm_accounts;

/* nm_account_map_set maps user to account in cfg (replacing an earlier
 * mapping). Returns 0, SK_EINVAL for an empty or too long name, or
 * SK_ELIMIT when NM_MAX_ACCOUNTS users are already mapped. */
int nm_account_map_set(nm_account_config *cfg, const char *user,
                       const char *account);

/* nm_account_keys fills keys[0..NM_ACCOUNT_NKEYS) for sk_config_load:
 * [accounts] `user = account` (any key), [cmdexec] default_account and
 * [cmdexec] allow_root, into cfg. Returns NM_ACCOUNT_NKEYS. */
size_t nm_account_keys(nm_account_config *cfg, sk_config_key *keys);

/* nm_account_configured says whether cfg names any account (a table
 * entry or a default). */
bool nm_account_configured(const nm_account_config *cfg);

/* nm_accounts_resolve looks up every account of cfg (getpwnam,
 * getgrouplist) into a new table *out. Returns 0; SK_ECONFIG with a
 * message naming the key in err for an account that does not exist, has
 * more than NM_MAX_GROUPS groups, or has uid 0 without allow_root; or
 * SK_ENOMEM. Costs one passwd and one group lookup per account (NSS: may
 * block), so call it at start, not on an event loop. */
int nm_accounts_resolve(const nm_account_config *cfg, nm_accounts **out,
                        char *err, size_t errlen);

/* nm_accounts_lookup says how user's tasks run; for NM_RUN_ACCOUNT *id
 * points into a (valid until nm_accounts_free). O(accounts mapped). */
nm_run_as nm_accounts_lookup(const nm_accounts *a, const char *user,
                             const nm_ident **id);

/* nm_accounts_free frees a; NULL is a no-op. */
void nm_accounts_free(nm_accounts *a);

#endif /* NM_ACCOUNT_H */
