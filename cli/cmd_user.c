/*
 * cmd_user.c - `skylark user token NAME [FILE]`: issue a user's token
 * from the cluster key (docs/SECURITY.md). A token names the user, its
 * role (user, admin or executor) and when it expires; a frontend that
 * holds it is that user to the schedulers, and cannot act as a daemon;
 * an executor token registers its framework's executors only.
 */
#include "config.h"
#include "cli_common.h"
#include "sk_cli.h"
#include "sk_keyfile.h"
#include "sk_tauth.h"
#include "sk_token.h"
#include "skylark.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_LIFE (30ull * 86400) /* seconds */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skylark user token NAME [FILE] [--admin | --executor]\n"
            "                          [--expires DURATION] [--key-file F] "
            "[--dir DIR]\n"
            "\n"
            "Issues a token for user NAME from the cluster key and writes it\n"
            "to FILE (which must not exist; mode 0600), or prints it. A\n"
            "frontend that gives it (skylark run/load/status --token-file\n"
            "FILE, fo_token_file) is NAME to the schedulers: its jobs run\n"
            "as NAME only, and it sees NAME's jobs only. It cannot register\n"
            "as a scheduler, node monitor or flowd; only the cluster key\n"
            "can. A new cluster key revokes every token.\n"
            "\n"
            "  -a, --admin            an admin's token: sees every job\n"
            "  -x, --executor         an executor token for framework NAME:\n"
            "                         it registers that framework's\n"
            "                         executors with node monitors\n"
            "                         (eo_token_file) and nothing else\n"
            "  -e, --expires D        lifetime: N followed by s, m, h or d\n"
            "                         (default 30d; at most 3660d)\n"
            "  -K, --key-file F       the cluster key (default:\n"
            "                         $SKYLARK_KEY_FILE, else the local\n"
            "                         cluster's key)\n"
            "  -d, --dir DIR          the local cluster's directory\n"
            "  -h, --help             this text\n"
            "\n"
            "Exit status: 0 issued, 1 failed, 2 bad usage or FILE exists.\n");
}

/* Parses a duration such as 90m or 30d into seconds in [1, max]. */
static int parse_duration(const char *s, unsigned long long max,
                          unsigned long long *out)
{
    size_t n = strlen(s);
    if (n < 2)
        return -1;
    unsigned long long unit = s[n - 1] == 's'   ? 1
                              : s[n - 1] == 'm' ? 60
                              : s[n - 1] == 'h' ? 3600
                              : s[n - 1] == 'd' ? 86400
                                                : 0;
    char num[24];
    unsigned long v;
    if (unit == 0 || n - 1 >= sizeof num)
        return -1;
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    if (cli_parse_ulong(num, 1, (unsigned long)(max / unit), &v) != 0)
        return -1;
    *out = v * unit;
    return 0;
}

static int issue(const char *name, const char *file, uint8_t role,
                 unsigned long long life, const char *key_file)
{
    char err[1200], line[SK_TOKEN_TEXT_MAX + 1];
    uint8_t key[SK_KEY_BYTES];
    sk_token tk;
    if (sk_keyfile_read(key_file, key, err, sizeof err) != 0) {
        fprintf(stderr, "skylark user: %s\n", err);
        return 1;
    }
    uint64_t expiry = (uint64_t)time(NULL) + life;
    int rc = sk_token_issue(key, name, role, expiry, &tk, err, sizeof err);
    sk_tauth_wipe(key, sizeof key);
    if (rc != 0) {
        fprintf(stderr, "skylark user: %s\n", err);
        return rc == SK_EINVAL ? 2 : 1;
    }
    size_t n = sk_token_format(&tk, line);
    sk_tauth_wipe(&tk, sizeof tk);
    if (file == NULL) {
        fwrite(line, 1, n, stdout);
        rc = fflush(stdout) == 0 ? 0 : 1;
    } else if ((rc = sk_secret_write(file, "token file", line, n, err,
                                     sizeof err)) != 0) {
        fprintf(stderr, "skylark user: %s\n", err);
        rc = rc == SK_EEXIST ? 2 : 1;
    } else {
        time_t e = (time_t)expiry;
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&e));
        fprintf(stderr, "skylark user: %s's %s token in %s, expires %s\n", name,
                sk_token_role_name(role), file, when);
    }
    sk_tauth_wipe(line, sizeof line);
    return rc;
}

int cmd_user(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"admin", no_argument, NULL, 'a'},
        {"executor", no_argument, NULL, 'x'},
        {"expires", required_argument, NULL, 'e'},
        {"key-file", required_argument, NULL, 'K'},
        {"dir", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *key = NULL, *dir = NULL;
    uint8_t role = SK_CRED_USER;
    int c;
    unsigned long long life = DEFAULT_LIFE;
    optind = 0;
    argv[0] = (char *)"skylark user";
    while ((c = getopt_long(argc, argv, "axe:K:d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
        case 'x':
            if (role != SK_CRED_USER) {
                fprintf(stderr, "skylark user: --admin and --executor "
                                "exclude each other\n");
                return 2;
            }
            role = c == 'a' ? SK_CRED_ADMIN : SK_CRED_EXECUTOR;
            break;
        case 'e':
            if (parse_duration(optarg, SK_TOKEN_MAX_LIFE, &life) != 0) {
                fprintf(stderr,
                        "skylark user: --expires takes N followed by s, m, "
                        "h or d (at most 3660d), got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'K':
            key = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    int rest = argc - optind;
    if (rest < 2 || rest > 3 || strcmp(argv[optind], "token") != 0) {
        usage(stderr);
        return 2;
    }
    char keybuf[4200];
    const char *key_file = cli_key_file(key, dir, keybuf, sizeof keybuf);
    if (key_file == NULL) {
        fprintf(stderr, "skylark user: no cluster key (--key-file F, "
                        "$SKYLARK_KEY_FILE, or a local cluster's)\n");
        return 2;
    }
    return issue(argv[optind + 1], rest == 3 ? argv[optind + 2] : NULL, role,
                 life, key_file);
}
