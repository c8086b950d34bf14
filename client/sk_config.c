/*
 * sk_config.c - configuration tables filled from INI files and from
 * command-line assignments.
 *
 * The file is read whole (at most SK_CONFIG_MAX_FILE bytes) and split into
 * lines here rather than by libinih, which it used to be: inih reads lines
 * with fgets into a 200-byte buffer and measures them with strlen, so a
 * NUL byte silently ended a line (a file starting with one loaded as
 * empty), a longer line was cut into pieces that were parsed as lines of
 * their own, and both shifted the line numbers of later errors. What
 * inih still did (sections, `key = value`, comments) is a few lines of
 * the same loop, so it is no longer a dependency.
 */
#include "sk_config.h"
#include "skylark.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const sk_config_key *find_key(const sk_config_key *keys, size_t nkeys,
                                     const char *section, const char *name,
                                     bool *section_known)
{
    *section_known = false;
    for (size_t i = 0; i < nkeys; i++) {
        if (strcmp(keys[i].ck_section, section) != 0)
            continue;
        *section_known = true;
        if (strcmp(keys[i].ck_name, name) == 0 ||
            strcmp(keys[i].ck_name, "*") == 0)
            return &keys[i];
    }
    return NULL;
}

static int parse_int(const sk_config_key *key, const char *value, char *msg,
                     size_t msglen)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 0);
    if (errno != 0 || end == value || *end != '\0') {
        snprintf(msg, msglen, "must be an integer, got '%s'", value);
        return SK_ECONFIG;
    }
    if ((double)v < key->ck_min || (double)v > key->ck_max) {
        snprintf(msg, msglen, "must be in [%.0f, %.0f], got %lld", key->ck_min,
                 key->ck_max, v);
        return SK_ECONFIG;
    }
    *(int64_t *)key->ck_dst = v;
    return 0;
}

static int parse_double(const sk_config_key *key, const char *value, char *msg,
                        size_t msglen)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !isfinite(v)) {
        snprintf(msg, msglen, "must be a number, got '%s'", value);
        return SK_ECONFIG;
    }
    if (v < key->ck_min) {
        snprintf(msg, msglen, "must be >= %g, got %s", key->ck_min, value);
        return SK_ECONFIG;
    }
    if (v > key->ck_max) {
        snprintf(msg, msglen, "must be <= %g, got %s", key->ck_max, value);
        return SK_ECONFIG;
    }
    *(double *)key->ck_dst = v;
    return 0;
}

static int parse_bool(const sk_config_key *key, const char *value, char *msg,
                      size_t msglen)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(value, yes[i]) == 0) {
            *(bool *)key->ck_dst = true;
            return 0;
        }
        if (strcasecmp(value, no[i]) == 0) {
            *(bool *)key->ck_dst = false;
            return 0;
        }
    }
    snprintf(msg, msglen, "must be true or false, got '%s'", value);
    return SK_ECONFIG;
}

static int parse_string(const sk_config_key *key, const char *value, char *msg,
                        size_t msglen)
{
    size_t len = strlen(value);
    if (len >= key->ck_size) {
        snprintf(msg, msglen, "must be at most %zu bytes, got %zu",
                 key->ck_size - 1, len);
        return SK_ECONFIG;
    }
    memcpy(key->ck_dst, value, len + 1);
    return 0;
}

int sk_config_apply(const sk_config_key *keys, size_t nkeys, const char *where,
                    const char *section, const char *name, const char *value,
                    char *err, size_t errlen)
{
    char msg[256] = "";
    bool section_known;
    const sk_config_key *key =
        find_key(keys, nkeys, section, name, &section_known);
    int rc;

    if (key == NULL) {
        snprintf(msg, sizeof msg,
                 section_known ? "unknown key" : "unknown section");
        rc = SK_ECONFIG;
    } else {
        switch (key->ck_type) {
        case SK_CONFIG_INT:
            rc = parse_int(key, value, msg, sizeof msg);
            break;
        case SK_CONFIG_DOUBLE:
            rc = parse_double(key, value, msg, sizeof msg);
            break;
        case SK_CONFIG_BOOL:
            rc = parse_bool(key, value, msg, sizeof msg);
            break;
        case SK_CONFIG_STRING:
            rc = parse_string(key, value, msg, sizeof msg);
            break;
        case SK_CONFIG_CUSTOM:
            rc = key->ck_parse(key->ck_dst, name, value, msg, sizeof msg);
            break;
        default:
            snprintf(msg, sizeof msg, "key has no type");
            rc = SK_ECONFIG;
        }
        if (rc != 0)
            rc = SK_ECONFIG;
    }
    if (rc != 0 && err != NULL)
        snprintf(err, errlen, "%s: [%s] %s: %s", where, section, name, msg);
    return rc;
}

int sk_config_apply_assignment(const sk_config_key *keys, size_t nkeys,
                               const char *assignment, char *err, size_t errlen)
{
    char section[128] = "", name[128];
    const char *eq = strchr(assignment, '=');
    if (eq == NULL) {
        snprintf(err, errlen,
                 "command line: '%s' is not of the form section.key=value",
                 assignment);
        return SK_ECONFIG;
    }
    size_t keylen = (size_t)(eq - assignment);
    const char *dot = memchr(assignment, '.', keylen);
    const char *name_start = dot != NULL ? dot + 1 : assignment;
    size_t seclen = dot != NULL ? (size_t)(dot - assignment) : 0;
    size_t namelen = (size_t)(eq - name_start);
    if (seclen >= sizeof section || namelen >= sizeof name || namelen == 0) {
        snprintf(err, errlen, "command line: bad key in '%s'", assignment);
        return SK_ECONFIG;
    }
    memcpy(section, assignment, seclen);
    section[seclen] = '\0';
    memcpy(name, name_start, namelen);
    name[namelen] = '\0';
    return sk_config_apply(keys, nkeys, "command line", section, name, eq + 1,
                           err, errlen);
}

/* Reads the file at path into a new buffer of *len bytes plus a NUL (the
 * caller frees it). Returns 0, SK_ESYS, SK_ENOMEM, or SK_ECONFIG for a file
 * over SK_CONFIG_MAX_FILE bytes, with a message in err. */
static int read_file(const char *path, char **out, size_t *len, char *err,
                     size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return SK_ESYS;
    }
    /* One byte more than the bound, to tell "at the bound" from "over". */
    char *buf = malloc(SK_CONFIG_MAX_FILE + 2);
    if (buf == NULL) {
        close(fd);
        snprintf(err, errlen, "%s: out of memory", path);
        return SK_ENOMEM;
    }
    size_t n = 0;
    int rc = 0;
    while (n < SK_CONFIG_MAX_FILE + 1) {
        ssize_t got = read(fd, buf + n, SK_CONFIG_MAX_FILE + 1 - n);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            rc = SK_ESYS;
            break;
        }
        n += (size_t)got;
    }
    close(fd);
    if (rc == 0 && n > SK_CONFIG_MAX_FILE) {
        snprintf(err, errlen, "%s: file too large: more than %d bytes", path,
                 SK_CONFIG_MAX_FILE);
        rc = SK_ECONFIG;
    }
    if (rc != 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Trims blanks at both ends of s[0..len) in place; returns the new start
 * and ends it with a NUL. */
static char *trim(char *s, size_t len)
{
    while (len > 0 && is_blank(*s)) {
        s++;
        len--;
    }
    while (len > 0 && is_blank(s[len - 1]))
        len--;
    s[len] = '\0';
    return s;
}

/* Parses one line (NUL-terminated, without its '\n', no NUL inside) into
 * its effect: a section header sets section, `key = value` is applied.
 * Returns 0 or SK_ECONFIG with a message (without the file and line) in
 * msg. */
static int parse_line(const sk_config_key *keys, size_t nkeys, char *line,
                      char section[SK_CONFIG_MAX_LINE + 1], char *msg,
                      size_t msglen)
{
    char *s = trim(line, strlen(line));
    if (*s == '\0' || *s == ';' || *s == '#')
        return 0;
    /* An inline comment is a ';' after a blank, as in inih, so that values
     * may hold a ';' of their own ("a;b") and a '#' anywhere. */
    for (char *c = s + 1; *c != '\0'; c++)
        if (*c == ';' && is_blank(c[-1])) {
            *c = '\0';
            s = trim(s, strlen(s));
            break;
        }
    if (*s == '[') {
        char *close = strchr(s, ']');
        if (close == NULL || close[1] != '\0') {
            snprintf(msg, msglen,
                     close == NULL ? "syntax error (a '[section]' without ']')"
                                   : "syntax error (text after '[section]')");
            return SK_ECONFIG;
        }
        /* section holds a whole line, so no name is ever cut. */
        char *name = trim(s + 1, (size_t)(close - s - 1));
        size_t len = strlen(name);
        memcpy(section, name, len + 1);
        return 0;
    }
    char *eq = strchr(s, '=');
    if (eq == NULL) {
        snprintf(msg, msglen,
                 "syntax error (expected '[section]' or 'key = value')");
        return SK_ECONFIG;
    }
    char *name = trim(s, (size_t)(eq - s));
    char *value = trim(eq + 1, strlen(eq + 1));
    if (*name == '\0') {
        snprintf(msg, msglen, "syntax error (a 'key = value' without a key)");
        return SK_ECONFIG;
    }
    char where_err[SK_CONFIG_MAX_LINE + 512];
    if (sk_config_apply(keys, nkeys, "", section, name, value, where_err,
                        sizeof where_err) == 0)
        return 0;
    /* Drop the empty `where` and its ": ": the caller adds file:line. */
    snprintf(msg, msglen, "%s", where_err + 2);
    return SK_ECONFIG;
}

int sk_config_load(const sk_config_key *keys, size_t nkeys, const char *path,
                   char *err, size_t errlen)
{
    char *buf;
    size_t len;
    int rc = read_file(path, &buf, &len, err, errlen);
    if (rc != 0)
        return rc;

    char section[SK_CONFIG_MAX_LINE + 1] = "";
    char msg[SK_CONFIG_MAX_LINE + 512];
    char *p = buf, *end = buf + len;
    /* A UTF-8 byte order mark, which some editors write, is not text. */
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    for (int lineno = 1; p < end; lineno++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl != NULL ? nl : end) - p);
        char *nul = memchr(p, '\0', n);
        if (nul != NULL) {
            snprintf(err, errlen,
                     "%s:%d: NUL byte at column %zu (byte offset %zu)", path,
                     lineno, (size_t)(nul - p) + 1, (size_t)(nul - buf));
            rc = SK_ECONFIG;
            break;
        }
        /* A CRLF file's '\r' is a line end, not a byte of the line. */
        size_t bytes = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
        if (bytes > SK_CONFIG_MAX_LINE) {
            snprintf(err, errlen, "%s:%d: line too long: %zu bytes, at most %d",
                     path, lineno, bytes, SK_CONFIG_MAX_LINE);
            rc = SK_ECONFIG;
            break;
        }
        p[n] = '\0';
        if (parse_line(keys, nkeys, p, section, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            rc = SK_ECONFIG;
            break;
        }
        p += n + 1;
    }
    free(buf);
    return rc;
}
