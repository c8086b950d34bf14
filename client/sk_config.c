/*
 * sk_config.c - configuration tables filled from INI files (parsed by
 * inih) and from command-line assignments.
 */
#include "sk_config.h"
#include "skylark.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* State of one sk_config_load, handed to inih's reader and callback. */
typedef struct load_state {
    const sk_config_key *ls_keys;
    size_t ls_nkeys;
    FILE *ls_file;
    int ls_line;       /* lines read so far: the line being handled */
    int ls_error_line; /* line of the first key error, 0 if none */
    char ls_msg[512];  /* that error, without the file and line */
} load_state;

/* An fgets for inih that counts lines, so errors can name theirs. */
static char *read_line(char *buf, int size, void *user)
{
    load_state *st = user;
    char *line = fgets(buf, size, st->ls_file);
    if (line != NULL && (strchr(line, '\n') != NULL || feof(st->ls_file)))
        st->ls_line++;
    return line;
}

static int on_ini_entry(void *user, const char *section, const char *name,
                        const char *value)
{
    load_state *st = user;
    char msg[512];
    if (sk_config_apply(st->ls_keys, st->ls_nkeys, "", section, name, value,
                        msg, sizeof msg) == 0)
        return 1;
    if (st->ls_error_line == 0) {
        st->ls_error_line = st->ls_line;
        /* Drop the empty `where` and its ": ": the caller adds file:line. */
        snprintf(st->ls_msg, sizeof st->ls_msg, "%s", msg + 2);
    }
    return 0;
}

int sk_config_load(const sk_config_key *keys, size_t nkeys, const char *path,
                   char *err, size_t errlen)
{
    load_state st = {.ls_keys = keys, .ls_nkeys = nkeys};
    st.ls_file = fopen(path, "r");
    if (st.ls_file == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return SK_ESYS;
    }
    int line = ini_parse_stream(read_line, &st, on_ini_entry, &st);
    fclose(st.ls_file);
    if (line == 0)
        return 0;
    if (line < 0) {
        snprintf(err, errlen, "%s: out of memory while parsing", path);
        return SK_ENOMEM;
    }
    /* inih returns the first failing line: ours if a key was bad, or an
     * earlier one that was not even `key = value`. */
    if (st.ls_error_line == line)
        snprintf(err, errlen, "%s:%d: %s", path, line, st.ls_msg);
    else
        snprintf(err, errlen,
                 "%s:%d: syntax error (expected '[section]' or "
                 "'key = value')",
                 path, line);
    return SK_ECONFIG;
}
