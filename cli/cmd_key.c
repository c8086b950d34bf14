/*
 * cmd_key.c - `skylark key new FILE`: make a cluster key, the secret that
 * every daemon and client of an authenticated cluster holds
 * (docs/SECURITY.md).
 */
#include "config.h"
#include "sk_cli.h"
#include "sk_keyfile.h"
#include "skylark.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skylark key new FILE\n"
            "\n"
            "Makes a new random cluster key in FILE (which must not exist),\n"
            "readable by its owner only (mode 0600). Give it to every daemon\n"
            "(--key-file FILE, or key_file in [transport]) and to every\n"
            "client (skylark run/load/status --key-file FILE); a peer\n"
            "without it gets nothing done.\n");
}

int cmd_key(int argc, char **argv)
{
    if (argc == 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "new") != 0 || argv[2][0] == '\0') {
        usage(stderr);
        return 2;
    }
    char err[1200];
    int rc = sk_keyfile_create(argv[2], err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "skylark key: %s\n", err);
        return rc == SK_EEXIST ? 2 : 1;
    }
    printf("%s\n", argv[2]);
    return 0;
}
