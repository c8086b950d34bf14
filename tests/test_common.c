/*
 * test_common.c - libskylark's common pieces: version and error text,
 * logging, configuration files and overrides, the seeded generator, the
 * cores' outbox.
 */
#include "config.h"
#include "sk_config.h"
#include "sk_core.h"
#include "sk_log.h"
#include "sk_rng.h"
#include "skylark.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_errors(void)
{
    tap_is_str(sk_version(), SK_VERSION_STRING, "sk_version matches header");
    tap_is_str(sk_version(), PACKAGE_VERSION, "header matches the package");
    int distinct = 1;
    for (int a = SK_ESTATE; a <= SK_OK; a++)
        for (int b = a + 1; b <= SK_OK; b++)
            if (strcmp(sk_strerror(a), sk_strerror(b)) == 0)
                distinct = 0;
    tap_ok(distinct, "every error code has its own text");
    tap_is_str(sk_strerror(-999), "unknown error", "unknown codes are named");
}

/* A log sink that keeps the last line. */
static char last_line[1024];
static int lines_seen;

static void keep_line(void *arg, sk_log_level level, const char *line)
{
    (void)arg;
    (void)level;
    snprintf(last_line, sizeof last_line, "%s", line);
    lines_seen++;
}

static void test_log(void)
{
    sk_log_level level;
    tap_ok(sk_log_parse_level("WARN", &level) == 0 && level == SK_LOG_WARN,
           "log level parses case-insensitively");
    tap_is_int(sk_log_parse_level("loud", &level), SK_EINVAL,
               "unknown level is refused");

    sk_log_set_sink(keep_line, NULL);
    sk_log_set_component("tester");
    sk_log_set_level(SK_LOG_INFO);
    sk_debug("hidden %d", 1);
    tap_is_int(lines_seen, 0, "lines below the threshold are dropped");
    sk_warn("disk %s at %d%%", "full", 99);
    tap_is_int(lines_seen, 1, "a line at the threshold is written");
    char want[64];
    snprintf(want, sizeof want, " tester[%ld] WARN: disk full at 99%%",
             (long)getpid());
    tap_ok(strstr(last_line, want) != NULL,
           "line has component, pid, level "
           "and message: %s",
           last_line);
    tap_ok(strlen(last_line) > 24 && last_line[4] == '-' &&
               last_line[10] == 'T' && last_line[23] == 'Z',
           "line starts with an ISO-8601 UTC timestamp");
    sk_log_set_level(SK_LOG_OFF);
    sk_error("silenced");
    tap_is_int(lines_seen, 1, "OFF silences errors too");
    sk_log_set_level(SK_LOG_INFO);
    sk_log_set_sink(NULL, NULL);
}

/* A configuration shaped like a daemon's. */
typedef struct test_cfg {
    int64_t slots;
    double probe_ratio;
    bool verbose;
    char name[8];
    int weights_total;
} test_cfg;

static int parse_weight(void *dst, const char *name, const char *value,
                        char *err, size_t errlen)
{
    int w = atoi(value);
    if (w <= 0) {
        snprintf(err, errlen, "weight of user %s must be > 0", name);
        return SK_ECONFIG;
    }
    ((test_cfg *)dst)->weights_total += w;
    return 0;
}

static test_cfg cfg;
static const sk_config_key cfg_keys[] = {
    {"node", "slots", SK_CONFIG_INT, &cfg.slots, 0, 1, 1024, NULL, "slots"},
    {"sched", "probe_ratio", SK_CONFIG_DOUBLE, &cfg.probe_ratio, 0, 1, 100,
     NULL, "probes per task"},
    {"", "verbose", SK_CONFIG_BOOL, &cfg.verbose, 0, 0, 0, NULL, "chatty"},
    {"node", "name", SK_CONFIG_STRING, cfg.name, sizeof cfg.name, 0, 0, NULL,
     "node name"},
    {"weights", "*", SK_CONFIG_CUSTOM, &cfg, 0, 0, 0, parse_weight,
     "user weights"},
};
#define NKEYS (sizeof cfg_keys / sizeof cfg_keys[0])

/* Loads the len bytes of text (NULs and all) from a temporary file; the
 * message in err has the file's name taken out. */
static int load_bytes(const char *text, size_t len, char *err, size_t errlen)
{
    char path[] = "/tmp/sk_test_cfg_XXXXXX";
    err[0] = '\0';
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len)
        tap_bail_out("cannot write a temporary file");
    close(fd);
    int rc = sk_config_load(cfg_keys, NKEYS, path, err, errlen);
    /* Strip the random file name so messages can be compared. */
    char *colon = strstr(err, path);
    if (colon != NULL)
        memmove(err, colon + strlen(path), strlen(colon + strlen(path)) + 1);
    unlink(path);
    return rc;
}

static int load_text(const char *text, char *err, size_t errlen)
{
    return load_bytes(text, strlen(text), err, errlen);
}

static void test_config(void)
{
    char err[512] = "";
    memset(&cfg, 0, sizeof cfg);
    int rc = load_text("verbose = yes ; inline comment\n"
                       "# a comment\n"
                       "[node]\n"
                       "slots = 8\n"
                       "name = n7\n"
                       "[sched]\n"
                       "probe_ratio = 1.5\n"
                       "[weights]\n"
                       "alice = 2\n"
                       "bob = 3\n",
                       err, sizeof err);
    tap_is_int(rc, 0, "a valid file loads (%s)", err);
    tap_ok(cfg.slots == 8 && cfg.probe_ratio == 1.5 && cfg.verbose &&
               strcmp(cfg.name, "n7") == 0 && cfg.weights_total == 5,
           "every key type lands in its field");

    rc = load_text("[node]\nslots = 4\n\n[sched]\nprobe_ratio = 0.5\n", err,
                   sizeof err);
    tap_is_int(rc, SK_ECONFIG, "out-of-range value is an error");
    tap_is_str(err, ":5: [sched] probe_ratio: must be >= 1, got 0.5",
               "message names line, section, key and the bound");

    rc = load_text("[node]\nslotz = 4\n", err, sizeof err);
    tap_is_str(err, ":2: [node] slotz: unknown key", "unknown key is named");
    rc = load_text("[nodes]\nslots = 4\n", err, sizeof err);
    tap_is_str(err, ":2: [nodes] slots: unknown section",
               "unknown section is named");
    rc = load_text("[node]\nslots = many\n", err, sizeof err);
    tap_is_str(err, ":2: [node] slots: must be an integer, got 'many'",
               "non-number is refused");
    rc = load_text("[node]\nname = toolongname\n", err, sizeof err);
    tap_is_str(err, ":2: [node] name: must be at most 7 bytes, got 11",
               "over-long string is refused, not truncated");
    rc = load_text("[weights]\ncarol = -1\n", err, sizeof err);
    tap_is_str(err, ":2: [weights] carol: weight of user carol must be > 0",
               "custom parser errors carry the location");
    rc = load_text("[node]\nthis is not ini\nslots = x\n", err, sizeof err);
    tap_is_str(err, ":2: syntax error (expected '[section]' or 'key = value')",
               "the first error wins when a syntax error comes first");
    rc = load_text("[node]\nslots = x\n[node\n", err, sizeof err);
    tap_is_str(err, ":2: [node] slots: must be an integer, got 'x'",
               "the first error wins when a key error comes first");

    rc = sk_config_load(cfg_keys, NKEYS, "/nonexistent/sk.conf", err,
                        sizeof err);
    tap_is_int(rc, SK_ESYS, "a missing file is a system error");

    rc = sk_config_apply_assignment(cfg_keys, NKEYS, "node.slots=16", err,
                                    sizeof err);
    tap_ok(rc == 0 && cfg.slots == 16, "--set overrides a file value");
    rc = sk_config_apply_assignment(cfg_keys, NKEYS, "verbose=off", err,
                                    sizeof err);
    tap_ok(rc == 0 && !cfg.verbose, "--set reaches the unnamed section");
    rc = sk_config_apply_assignment(cfg_keys, NKEYS, "node.slots=2000", err,
                                    sizeof err);
    tap_is_str(err,
               "command line: [node] slots: must be in [1, 1024], got 2000",
               "a bad override names the command line");
    rc = sk_config_apply_assignment(cfg_keys, NKEYS, "node.slots", err,
                                    sizeof err);
    tap_is_int(rc, SK_ECONFIG, "an assignment without '=' is refused");
}

/* The file as bytes: NULs, line lengths and endings, the size bound. */
static void test_config_bytes(void)
{
    char err[512] = "";
    memset(&cfg, 0, sizeof cfg);

    /* A NUL first used to end the text there: the daemon ran on defaults. */
    static const char nul_first[] = "\0verbose = yes\n";
    int rc = load_bytes(nul_first, sizeof nul_first - 1, err, sizeof err);
    tap_is_int(rc, SK_ECONFIG, "a file starting with a NUL byte is refused");
    tap_is_str(err, ":1: NUL byte at column 1 (byte offset 0)",
               "the message names the NUL's line, column and offset");
    tap_ok(!cfg.verbose, "nothing after the NUL was applied");

    static const char nul_mid[] = "[node]\nslots = 4\nname = a\0b\nslots = x\n";
    rc = load_bytes(nul_mid, sizeof nul_mid - 1, err, sizeof err);
    tap_is_str(err, ":3: NUL byte at column 9 (byte offset 25)",
               "an embedded NUL is named on its own line");

    static const char nul_comment[] =
        "[node]\n; a \0 in a comment\nslots = 2\n";
    rc = load_bytes(nul_comment, sizeof nul_comment - 1, err, sizeof err);
    tap_is_str(err, ":2: NUL byte at column 5 (byte offset 11)",
               "a NUL in a comment is refused as well");

    static const char nul_last[] = "[node]\nslots = 2\n\0";
    rc = load_bytes(nul_last, sizeof nul_last - 1, err, sizeof err);
    tap_is_str(err, ":3: NUL byte at column 1 (byte offset 17)",
               "a NUL as the file's last byte is refused");

    /* Lines of every length up to the limit count as one line each. */
    size_t big = 2 * SK_CONFIG_MAX_LINE + 64;
    char *text = malloc(big);
    if (text == NULL)
        tap_bail_out("out of memory");
    size_t n = 0;
    text[n++] = ';';
    memset(text + n, 'c', 299);
    n += 299;
    text[n++] = '\n';
    n += (size_t)sprintf(text + n, "[node]\nslotz = 1\n");
    rc = load_bytes(text, n, err, sizeof err);
    tap_is_str(err, ":3: [node] slotz: unknown key",
               "a 300-byte comment is one line: the next error's line is "
               "right");

    n = (size_t)sprintf(text, "[node]\n;");
    memset(text + n, 'c', SK_CONFIG_MAX_LINE - 1);
    n += SK_CONFIG_MAX_LINE - 1;
    n += (size_t)sprintf(text + n, "\nslots = x\n");
    rc = load_bytes(text, n, err, sizeof err);
    tap_is_str(err, ":3: [node] slots: must be an integer, got 'x'",
               "a line of exactly SK_CONFIG_MAX_LINE bytes is read whole");

    n = (size_t)sprintf(text, "[node]\nname = ");
    memset(text + n, 'n', 293);
    n += 293;
    text[n++] = '\n';
    rc = load_bytes(text, n, err, sizeof err);
    tap_is_str(err, ":2: [node] name: must be at most 7 bytes, got 293",
               "a 300-byte 'name =' line is judged by the key's own bound");

    n = (size_t)sprintf(text, "[node]\n\nname = ");
    memset(text + n, 'n', SK_CONFIG_MAX_LINE);
    n += SK_CONFIG_MAX_LINE;
    n += (size_t)sprintf(text + n, "\nslots = 2\n");
    rc = load_bytes(text, n, err, sizeof err);
    char want[128];
    snprintf(want, sizeof want, ":3: line too long: %d bytes, at most %d",
             SK_CONFIG_MAX_LINE + 7, SK_CONFIG_MAX_LINE);
    tap_is_int(rc, SK_ECONFIG, "an over-long line is an error");
    tap_is_str(err, want, "it is named too long, with its line and the limit");
    free(text);

    rc = load_text("[node]\r\nslots = 3\r\n\r\nslots = x\r\n", err, sizeof err);
    tap_is_str(err, ":4: [node] slots: must be an integer, got 'x'",
               "CRLF line ends: values and line numbers as with LF");
    rc = load_text("\xEF\xBB\xBF[node]\nslots = 5", err, sizeof err);
    tap_ok(rc == 0 && cfg.slots == 5,
           "a UTF-8 byte order mark and a last line without a newline (%s)",
           err);
    rc = load_text("[node\nslots = 2\n", err, sizeof err);
    tap_is_str(err, ":1: syntax error (a '[section]' without ']')",
               "an unclosed section header is named");
    rc = load_text("[node]\n= 4\n", err, sizeof err);
    tap_is_str(err, ":2: syntax error (a 'key = value' without a key)",
               "a value without a key is named");
    rc = load_text("[node]\n  slots = 6\n", err, sizeof err);
    tap_ok(rc == 0 && cfg.slots == 6, "an indented line is an ordinary line");

    /* The file's size is bounded before anything is parsed. */
    size_t huge = SK_CONFIG_MAX_FILE + 1;
    text = malloc(huge);
    if (text == NULL)
        tap_bail_out("out of memory");
    memset(text, '\n', huge);
    rc = load_bytes(text, huge, err, sizeof err);
    snprintf(want, sizeof want, ": file too large: more than %d bytes",
             SK_CONFIG_MAX_FILE);
    tap_is_str(err, want, "a file over SK_CONFIG_MAX_FILE bytes is refused");
    rc = load_bytes(text, huge - 1, err, sizeof err);
    tap_is_int(rc, 0, "a file of SK_CONFIG_MAX_FILE blank lines loads (%s)",
               err);
    free(text);

    rc = sk_config_load(cfg_keys, NKEYS, "/", err, sizeof err);
    tap_ok(rc == SK_ESYS && strstr(err, "/: cannot read: ") == err,
           "a directory is a system error (%s)", err);
}

static void test_rng(void)
{
    sk_rng a, b;
    sk_rng_seed(&a, 42);
    sk_rng_seed(&b, 42);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= sk_rng_next(&a) == sk_rng_next(&b);
    tap_ok(same, "same seed, same stream");
    sk_rng_seed(&b, 43);
    tap_ok(sk_rng_next(&a) != sk_rng_next(&b), "other seed, other stream");

    /* Uniformity of sk_rng_below: chi-square over 10 buckets; the 0.999
     * quantile of chi-square with 9 degrees of freedom is 27.9. */
    enum { BUCKETS = 10, DRAWS = 100000 };
    int counts[BUCKETS] = {0};
    int in_range = 1;
    sk_rng_seed(&a, 7);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = sk_rng_below(&a, BUCKETS);
        in_range &= v < BUCKETS;
        if (v < BUCKETS)
            counts[v]++;
    }
    double chi = 0, expect = (double)DRAWS / BUCKETS;
    for (int i = 0; i < BUCKETS; i++)
        chi += (counts[i] - expect) * (counts[i] - expect) / expect;
    tap_ok(in_range, "sk_rng_below stays below its bound");
    tap_ok(chi < 27.9, "sk_rng_below is uniform (chi-square %.1f)", chi);

    double sum = 0;
    int unit = 1;
    for (int i = 0; i < DRAWS; i++) {
        double d = sk_rng_double(&a);
        unit &= d >= 0 && d < 1;
        sum += sk_rng_exponential(&a, 100.0);
    }
    tap_ok(unit, "sk_rng_double lies in [0, 1)");
    tap_ok(fabs(sum / DRAWS - 100.0) < 2.0,
           "exponential mean is close to 100 (%.2f)", sum / DRAWS);
    sum = 0;
    for (int i = 0; i < 4 * DRAWS; i++)
        sum += sk_rng_pareto(&a, 1.5, 100.0);
    /* A heavy tail: only a loose bound on the sample mean is fair. */
    tap_ok(sum / (4 * DRAWS) > 80 && sum / (4 * DRAWS) < 130,
           "pareto(1.5) mean is near 100 (%.2f)", sum / (4 * DRAWS));

    uint32_t scratch[50], out[20];
    sk_rng_sample_init(50, scratch);
    int distinct = 1, hits[50] = {0};
    for (int round = 0; round < 2000; round++) {
        int seen[50] = {0};
        sk_rng_sample(&a, 50, 20, scratch, out);
        for (int i = 0; i < 20; i++) {
            distinct &= out[i] < 50 && !seen[out[i]];
            if (out[i] < 50) {
                seen[out[i]] = 1;
                hits[out[i]]++;
            }
        }
    }
    int lo = hits[0], hi = hits[0];
    for (int i = 1; i < 50; i++) {
        lo = hits[i] < lo ? hits[i] : lo;
        hi = hits[i] > hi ? hits[i] : hi;
    }
    tap_ok(distinct, "sk_rng_sample draws distinct values");
    /* Each value is expected 800 times; 4 sigma is about 88. */
    tap_ok(lo > 700 && hi < 900,
           "every value is drawn about equally "
           "(min %d, max %d of 800)",
           lo, hi);
}

/* A core that pushed a message and could not fill it takes it back: the
 * messages before it stay as they were, and the next push reuses its place. */
static void test_outbox(void)
{
    sk_outbox ob = {0};
    int ok = 1;
    for (uint32_t i = 0; i < 40; i++) {
        sk_msg *m = sk_outbox_push(&ob, i, SK_MSG_TASK_STARTED);
        ok &= m != NULL;
        if (m != NULL)
            m->m_task_started.st_task = i;
    }
    sk_msg *last = sk_outbox_push(&ob, 99, SK_MSG_LAUNCH_TASK);
    ok &= last != NULL;
    sk_outbox_unpush(&ob, last);
    for (uint32_t i = 0; i < 40; i++)
        ok &= ob.ob_msgs[i].o_peer == i &&
              ob.ob_msgs[i].o_msg.m_task_started.st_task == i;
    tap_ok(ok && ob.ob_len == 40,
           "sk_outbox_unpush takes back the last message, and only it");
    sk_msg *again = sk_outbox_push(&ob, 7, SK_MSG_GET_TASK);
    tap_ok(again == last && ob.ob_len == 41 && ob.ob_msgs[40].o_peer == 7 &&
               again->m_type == SK_MSG_GET_TASK,
           "the next push takes its place");
    sk_outbox_unpush(&ob, again);
    sk_outbox_clear(&ob);
    tap_ok(ob.ob_len == 0, "sk_outbox_clear empties the outbox");
    sk_outbox_free(&ob);
}

int main(void)
{
    tap_timeout(60);
    tap_plan_lazy();
    test_errors();
    test_log();
    test_config();
    test_config_bytes();
    test_rng();
    test_outbox();
    return tap_exit_status();
}
