/*
 * cli_json.h - a small streaming JSON writer for the `skylark` tool's
 * --json outputs: objects, arrays, strings, integers, booleans and null,
 * written as they come to a FILE, indented two spaces a level. Strings
 * are escaped for any bytes: quote, backslash and control bytes as JSON
 * escapes, valid UTF-8 as is, and each byte of invalid UTF-8 as U+FFFD,
 * so the output is always valid JSON in valid UTF-8 whatever a daemon
 * put in a name or a cell.
 *
 * The caller nests correctly (every begin has its end; keys inside
 * objects, none inside arrays); the writer puts the commas and the
 * indentation. No allocation; nesting up to CLI_JSON_MAX_DEPTH (deeper,
 * or an end without a container, is a bug: it aborts with file and
 * line).
 */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

typedef struct cli_json {
    FILE *j_out;
    int j_depth;                          /* open containers */
    int j_count[CLI_JSON_MAX_DEPTH + 1];  /* values written in each */
    char j_close[CLI_JSON_MAX_DEPTH + 1]; /* its closing bracket */
} cli_json;

/* cli_json_init starts a document on out. */
void cli_json_init(cli_json *j, FILE *out);

/* cli_json_finish ends the document with a newline (every container
 * must be closed). */
void cli_json_finish(cli_json *j);

/* Containers. key is the member's name inside an object, NULL inside an
 * array or at the top. */
void cli_json_object(cli_json *j, const char *key);
void cli_json_array(cli_json *j, const char *key);
void cli_json_end(cli_json *j); /* closes the innermost container */

/* Values, with key as above. cli_json_string writes null for a NULL
 * value. */
void cli_json_string(cli_json *j, const char *key, const char *value);
void cli_json_uint(cli_json *j, const char *key, uint64_t value);
void cli_json_int(cli_json *j, const char *key, int64_t value);
void cli_json_bool(cli_json *j, const char *key, int value);
void cli_json_null(cli_json *j, const char *key);

/* cli_json_quote writes s (len bytes) as a JSON string, quotes included:
 * the escaping above. */
void cli_json_quote(FILE *out, const char *s, size_t len);

#endif /* CLI_JSON_H */
