/*
 * test_cli_docs.c - docs/CLIENT.md's synopses against the programs'
 * --help: every long option a `skylark` subcommand's --help lists is in
 * that subcommand's synopsis (the lines of CLIENT.md that start with
 * "**`skylark SUBCOMMAND"), and every option of skylark-sched's and
 * skylark-nodemon's --help is in their command lines there. --help and
 * --version, which every program has, are left out.
 */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char doc[1 << 20];

/* The output of cmd (a shell command line), or "" if it could not run. */
static const char *output_of(const char *cmd)
{
    static char buf[1 << 16];
    buf[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    pclose(p);
    return buf;
}

/* The lines of doc that start with prefix, joined. */
static void lines_with(const char *prefix, char *out, size_t len)
{
    out[0] = '\0';
    size_t used = 0;
    for (const char *l = doc; *l != '\0';) {
        const char *nl = strchr(l, '\n');
        size_t ll = nl ? (size_t)(nl - l) : strlen(l);
        if (strncmp(l, prefix, strlen(prefix)) == 0 && used + ll + 2 < len) {
            memcpy(out + used, l, ll);
            used += ll;
            out[used++] = '\n';
            out[used] = '\0';
        }
        l += ll + (nl != NULL);
    }
}

/* Whether text has the option opt ("--dir") as a whole word. */
static int has_option(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = text; (p = strstr(p, opt)) != NULL; p += n) {
        char c = p[n];
        if (!(c == '-' || (c >= 'a' && c <= 'z')))
            return 1;
    }
    return 0;
}

/* Check that every option help defines (a line whose first word starts
 * with "-", such as "  -u, --users LIST" or "  --config FILE") is in
 * synopsis; name for the messages. Returns the number missing. */
static int check(const char *name, const char *help, const char *synopsis)
{
    int missing = 0, seen = 0;
    for (const char *l = help; *l != '\0';) {
        const char *nl = strchr(l, '\n');
        size_t ll = nl ? (size_t)(nl - l) : strlen(l);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)ll, l);
        l += ll + (nl != NULL);
        const char *p = line + strspn(line, " ");
        if (*p != '-' || (p = strstr(p, "--")) == NULL)
            continue;
        char opt[64];
        size_t n = 2;
        while (n < sizeof opt - 1 &&
               ((p[n] >= 'a' && p[n] <= 'z') || p[n] == '-'))
            n++;
        snprintf(opt, sizeof opt, "%.*s", (int)n, p);
        if (n <= 2 || strcmp(opt, "--help") == 0 ||
            strcmp(opt, "--version") == 0)
            continue;
        seen++;
        if (!has_option(synopsis, opt)) {
            tap_diag("%s: %s is in --help, not in docs/CLIENT.md", name, opt);
            missing++;
        }
    }
    if (seen == 0) {
        tap_diag("%s: no option found in its --help", name);
        missing++;
    }
    return missing;
}

int main(void)
{
    tap_timeout(30);
    const char *src = getenv("top_srcdir"), *b = getenv("top_builddir");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/CLIENT.md", src ? src : "..");
    FILE *f = fopen(path, "r");
    if (f == NULL)
        tap_skip_all("no %s", path);
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = '\0';
    fclose(f);
    static const char *const subs[] = {"cluster", "run",     "status", "load",
                                       "solve",   "user",    "jobs",   "cancel",
                                       "flow",    "executor"};
    tap_plan(12);
    char cmd[8400], syn[16384];
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s/cli/skylark' %s --help 2>&1",
                 b ? b : ".", subs[i]);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "**`skylark %s ", subs[i]);
        lines_with(prefix, syn, sizeof syn);
        tap_ok(check(subs[i], output_of(cmd), syn) == 0,
               "skylark %s: every option of --help is in its synopsis",
               subs[i]);
    }
    static const char *const daemons[2][2] = {
        {"scheduler/skylark-sched", "    skylark-sched "},
        {"nodemon/skylark-nodemon", "    skylark-nodemon "},
    };
    /* The daemons' command lines: an indented block, its later lines
     * starting with spaces; take the block that follows each name. */
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "'%s/%s' --help 2>&1 | sed -n "
                 "'/^Options:/,/^$/p'",
                 b ? b : ".", daemons[k][0]);
        const char *at = strstr(doc, daemons[k][1]);
        syn[0] = '\0';
        if (at != NULL) {
            /* Up to the next line that is not a continuation. */
            const char *end = at + 1;
            while ((end = strchr(end, '\n')) != NULL &&
                   strncmp(end + 1, "                    ", 20) == 0)
                end++;
            size_t len = end ? (size_t)(end - at) : strlen(at);
            if (len >= sizeof syn)
                len = sizeof syn - 1;
            memcpy(syn, at, len);
            syn[len] = '\0';
        }
        tap_ok(check(daemons[k][0], output_of(cmd), syn) == 0,
               "%s: every option of --help is in docs/CLIENT.md",
               daemons[k][0]);
    }
    return tap_exit_status();
}
