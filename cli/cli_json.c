/*
 * cli_json.c - the JSON writer of the `skylark` tool's --json outputs
 * (cli_json.h).
 */
#include "cli_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0: no
 * overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

void cli_json_quote(FILE *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t l = utf8_len(s + i, len - i);
            if (l == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(s + i, 1, l, out);
                i += l;
            }
            continue;
        }
        switch (c) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\b':
            fputs("\\b", out);
            break;
        case '\f':
            fputs("\\f", out);
            break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(out, "\\u%04x", c);
            else
                fputc(c, out);
        }
        i++;
    }
    fputc('"', out);
}

void cli_json_init(cli_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->j_out = out;
}

void cli_json_finish(cli_json *j)
{
    fputc('\n', j->j_out);
}

static void indent(cli_json *j)
{
    fputc('\n', j->j_out);
    for (int i = 0; i < j->j_depth; i++)
        fputs("  ", j->j_out);
}

/* What comes before a value: a comma after the container's previous
 * value, a new line and the indentation, and the member's name. */
static void member(cli_json *j, const char *key)
{
    if (j->j_depth > 0) {
        if (j->j_count[j->j_depth]++ > 0)
            fputc(',', j->j_out);
        indent(j);
    }
    if (key != NULL) {
        cli_json_quote(j->j_out, key, strlen(key));
        fputs(": ", j->j_out);
    }
}

static void open_container(cli_json *j, const char *key, char c)
{
    if (j->j_depth == CLI_JSON_MAX_DEPTH) {
        fprintf(stderr, "%s:%d: JSON nested deeper than %d\n", __FILE__,
                __LINE__, CLI_JSON_MAX_DEPTH);
        abort();
    }
    member(j, key);
    fputc(c, j->j_out);
    j->j_depth++;
    j->j_count[j->j_depth] = 0;
    j->j_close[j->j_depth] = c == '{' ? '}' : ']';
}

void cli_json_object(cli_json *j, const char *key)
{
    open_container(j, key, '{');
}

void cli_json_array(cli_json *j, const char *key)
{
    open_container(j, key, '[');
}

void cli_json_end(cli_json *j)
{
    if (j->j_depth == 0) {
        fprintf(stderr, "%s:%d: JSON end without a container\n", __FILE__,
                __LINE__);
        abort();
    }
    int empty = j->j_count[j->j_depth] == 0;
    char c = j->j_close[j->j_depth];
    j->j_depth--;
    if (!empty)
        indent(j);
    fputc(c, j->j_out);
}

void cli_json_string(cli_json *j, const char *key, const char *value)
{
    member(j, key);
    if (value == NULL)
        fputs("null", j->j_out);
    else
        cli_json_quote(j->j_out, value, strlen(value));
}

void cli_json_uint(cli_json *j, const char *key, uint64_t value)
{
    member(j, key);
    fprintf(j->j_out, "%" PRIu64, value);
}

void cli_json_int(cli_json *j, const char *key, int64_t value)
{
    member(j, key);
    fprintf(j->j_out, "%" PRId64, value);
}

void cli_json_bool(cli_json *j, const char *key, int value)
{
    member(j, key);
    fputs(value ? "true" : "false", j->j_out);
}

void cli_json_null(cli_json *j, const char *key)
{
    member(j, key);
    fputs("null", j->j_out);
}
