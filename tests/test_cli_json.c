/*
 * test_cli_json.c - the JSON writer of the `skylark` tool's --json
 * outputs: nesting, commas and indentation byte for byte; strings with
 * quotes, backslashes, every control byte, DEL, valid UTF-8 (kept) and
 * invalid UTF-8 (each bad byte U+FFFD: stray continuation bytes,
 * truncated sequences, overlong forms, surrogates, above U+10FFFF); and
 * a document with all of them that python3's json module reads back to
 * the same strings.
 */
#include "cli_json.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *buf;
static size_t len;

static FILE *open_buf(void)
{
    free(buf);
    buf = NULL;
    len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        tap_bail_out("open_memstream");
    return f;
}

/* s (n bytes) as cli_json_quote writes it. */
static const char *quoted(const char *s, size_t n)
{
    FILE *f = open_buf();
    cli_json_quote(f, s, n);
    fclose(f);
    return buf;
}

#define Q(lit) quoted(lit, sizeof lit - 1)

int main(void)
{
    tap_timeout(30);
    tap_plan(16);

    FILE *f = open_buf();
    cli_json j;
    cli_json_init(&j, f);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "name", "n1");
    cli_json_uint(&j, "time_us", 18446744073709551615u);
    cli_json_int(&j, "pid", -42);
    cli_json_bool(&j, "up", 1);
    cli_json_null(&j, "answer");
    cli_json_string(&j, "none", NULL);
    cli_json_object(&j, "empty");
    cli_json_end(&j);
    cli_json_array(&j, "rows");
    cli_json_object(&j, NULL);
    cli_json_string(&j, "user", "ann");
    cli_json_end(&j);
    cli_json_array(&j, NULL);
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_finish(&j);
    fclose(f);
    tap_is_str(buf,
               "{\n"
               "  \"name\": \"n1\",\n"
               "  \"time_us\": 18446744073709551615,\n"
               "  \"pid\": -42,\n"
               "  \"up\": true,\n"
               "  \"answer\": null,\n"
               "  \"none\": null,\n"
               "  \"empty\": {},\n"
               "  \"rows\": [\n"
               "    {\n"
               "      \"user\": \"ann\"\n"
               "    },\n"
               "    []\n"
               "  ]\n"
               "}\n",
               "nesting, commas, indentation and every kind of value");

    tap_is_str(Q("plain text"), "\"plain text\"", "plain text as is");
    tap_is_str(Q("a\"b\\c"), "\"a\\\"b\\\\c\"", "quote and backslash");
    tap_is_str(Q("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"", "the short escapes");
    tap_is_str(Q("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"",
               "other control bytes and DEL as \\u00XX");
    tap_is_str(quoted("a\0b", 3), "\"a\\u0000b\"", "a NUL byte inside");
    tap_is_str(Q("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa6"),
               "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa6\"",
               "valid UTF-8 of 2, 3 and 4 bytes is kept");
    tap_is_str(Q("a\xff"
                 "b\x80"),
               "\"a\\ufffdb\\ufffd\"", "a stray byte is U+FFFD");
    tap_is_str(Q("\xc3"), "\"\\ufffd\"", "a truncated sequence is U+FFFD");
    tap_is_str(Q("\xe2\x82x"), "\"\\ufffd\\ufffdx\"",
               "a sequence cut short: each byte U+FFFD");
    tap_is_str(Q("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "an overlong '/'");
    tap_is_str(Q("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"",
               "an overlong 3-byte form");
    tap_is_str(Q("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"",
               "a UTF-16 surrogate");
    tap_is_str(Q("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
               "above U+10FFFF");

    /* python3 reads a document of nasty keys and values back. */
    char path[] = "/tmp/test_cli_json-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        tap_bail_out("mkstemp");
    f = fdopen(fd, "w");
    cli_json_init(&j, f);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "k\"\\\n", "v\x01\"\\\t\xc3\xa9\xff");
    cli_json_array(&j, "a");
    for (int c = 1; c < 128; c++) {
        char s[2] = {(char)c, 0};
        cli_json_string(&j, NULL, s);
    }
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_finish(&j);
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], "
             "encoding=\"utf-8\")); "
             "ok = d[\"k\\\"\\\\\\n\"] == \"v\\x01\\\"\\\\\\t\\u00e9\\ufffd\" "
             "and d[\"a\"] == [chr(c) for c in range(1, 128)]; "
             "sys.exit(0 if ok else 1)' %s",
             path);
    if (system("python3 -c 1 2>/dev/null") != 0) {
        tap_skip(2, "no python3");
    } else {
        int rc = system(cmd);
        tap_ok(rc == 0, "python3 reads it back to the same strings");
        snprintf(cmd, sizeof cmd, "python3 -m json.tool %s >/dev/null", path);
        tap_ok(system(cmd) == 0, "python3 -m json.tool accepts it");
    }
    unlink(path);
    free(buf);
    return tap_exit_status();
}
