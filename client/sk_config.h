/*
 * sk_config.h - INI-style configuration files and their command-line
 * overrides.
 *
 * A daemon describes its settings once, as a table of sk_config_key, each
 * pointing at the field it fills. The same table serves the file and the
 * command line (`--set section.key=value`, or a daemon's own long
 * options), so a value means the same wherever it comes from.
 *
 * The file is text of at most SK_CONFIG_MAX_FILE bytes, in lines of at most
 * SK_CONFIG_MAX_LINE bytes ended by LF or CRLF (a UTF-8 byte order mark
 * first is skipped). Blanks around a line and around its parts are
 * ignored. A line is blank, a comment (starting with `;` or `#`), a
 * `[section]` header, or `key = value` (split at the first `=`); a `;`
 * after a blank starts a comment that ends the line. Keys before any
 * header belong to the section "". Nothing is ever cut short: a NUL byte,
 * an over-long line or file, a line of any other form, an unknown section
 * or key and a bad value are errors that name the file and the line (and
 * the column of a NUL, the key of a bad value), such as
 *   sched.conf:12: [sched] probe_ratio: must be >= 1, got 0.5
 *   sched.conf:3: NUL byte at column 9 (byte offset 25)
 *   sched.conf:7: line too long: 5000 bytes, at most 4096
 * Loading stops at the first error in file order; the lines before it
 * have been applied. Fields keep the values they had for keys the file
 * omits, so the caller sets defaults before loading.
 */
#ifndef SK_CONFIG_H
#define SK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bounds of a configuration file: its size in bytes, and the bytes of
 * one line without its line end. A file or a line over them is an error. */
#define SK_CONFIG_MAX_FILE (1 << 20)
#define SK_CONFIG_MAX_LINE 4096

typedef enum sk_config_type {
    SK_CONFIG_INT,    /* int64_t, within [ck_min, ck_max] */
    SK_CONFIG_DOUBLE, /* double, within [ck_min, ck_max] */
    SK_CONFIG_BOOL,   /* bool: true/false, yes/no, on/off, 1/0 */
    SK_CONFIG_STRING, /* char[ck_size], NUL-terminated, never truncated */
    SK_CONFIG_CUSTOM, /* parsed by ck_parse */
} sk_config_type;

/* A custom parser stores the value for key `name` into dst. It returns 0,
 * or a negative SK_E* code after writing a message (without the location)
 * into err. */
typedef int (*sk_config_parse_fn)(void *dst, const char *name,
                                  const char *value, char *err, size_t errlen);

typedef struct sk_config_key {
    const char *ck_section; /* section name; "" for keys before any header */
    const char *ck_name;    /* key name; "*" takes any key of the section */
    sk_config_type ck_type; /* how the value is parsed */
    void *ck_dst;           /* the field to fill */
    size_t ck_size;         /* SK_CONFIG_STRING: size of the buffer */
    double ck_min;          /* SK_CONFIG_INT and _DOUBLE: smallest value */
    double ck_max;          /* SK_CONFIG_INT and _DOUBLE: largest value */
    sk_config_parse_fn ck_parse; /* SK_CONFIG_CUSTOM: the parser */
    const char *ck_help;         /* one line for --help and docs */
} sk_config_key;

/* sk_config_load reads the file at path and applies every key in it to
 * the table keys[0..nkeys), in file order. Returns 0, or SK_ECONFIG with a
 * message in err that names the file and the line of the first error, or
 * SK_ESYS if the file cannot be opened or read, or SK_ENOMEM; every error
 * message starts with the path. Costs one read of the file into a buffer
 * of SK_CONFIG_MAX_FILE bytes, freed before it returns, and about 13 KiB
 * of stack. */
int sk_config_load(const sk_config_key *keys, size_t nkeys, const char *path,
                   char *err, size_t errlen);

/* sk_config_apply sets one key from text. `where` says where the text came
 * from ("command line", "sched.conf:12") and starts the error message.
 * Returns 0, or SK_ECONFIG with a message in err. */
int sk_config_apply(const sk_config_key *keys, size_t nkeys, const char *where,
                    const char *section, const char *name, const char *value,
                    char *err, size_t errlen);

/* sk_config_apply_assignment applies "section.key=value" (the argument of
 * --set); a key of the unnamed section is written "key=value". Returns 0 or
 * SK_ECONFIG with a message in err. */
int sk_config_apply_assignment(const sk_config_key *keys, size_t nkeys,
                               const char *assignment, char *err,
                               size_t errlen);

#endif /* SK_CONFIG_H */
