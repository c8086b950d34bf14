/*
 * sk_daemon_opts.c - shared daemon settings (listen endpoint, log level,
 * seed, transport limits), string lists, endpoint checks and the command
 * line (getopt_long in two passes: the file first, then the options in
 * order).
 */
#include "sk_daemon_opts.h"
#include "sk_keyfile.h"
#include "sk_tframe.h"
#include "skylark.h"

#include <sodium.h>

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void sk_daemon_settings_init(sk_daemon_settings *s, const char *listen,
                             uint32_t max_msg)
{
    memset(s, 0, sizeof *s);
    snprintf(s->ds_listen, sizeof s->ds_listen, "%s", listen);
    s->ds_log_level = SK_LOG_INFO;
    sk_transport_config tc;
    sk_transport_config_default(&tc);
    s->ds_heartbeat_s = tc.tc_heartbeat;
    s->ds_misses = tc.tc_misses;
    s->ds_max_msg = max_msg > SK_MAX_MSG_BYTES ? SK_MAX_MSG_BYTES : max_msg;
    s->ds_max_peers = tc.tc_max_peers;
    s->ds_queue_msgs = 65536;
    s->ds_queue_bytes = 64 << 20;
    s->ds_reconnect_ms = tc.tc_reconnect_ms;
}

static int parse_level(void *dst, const char *name, const char *value,
                       char *err, size_t errlen)
{
    (void)name;
    if (sk_log_parse_level(value, dst) != 0) {
        snprintf(err, errlen,
                 "must be debug, info, warn, error or off, got '%s'", value);
        return SK_ECONFIG;
    }
    return 0;
}

int sk_daemon_check_endpoint(const char *value, char *err, size_t errlen)
{
    char why[256];
    if (sk_endpoint_check(value, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "'%.*s': %s", (int)SK_MAX_ADDR_LEN, value, why);
    return SK_ECONFIG;
}

int sk_daemon_parse_endpoint(void *dst, const char *name, const char *value,
                             char *err, size_t errlen)
{
    (void)name;
    int rc = sk_daemon_check_endpoint(value, err, errlen);
    if (rc == 0)
        memcpy(dst, value, strlen(value) + 1);
    return rc;
}

static int parse_metrics_listen(void *dst, const char *name, const char *value,
                                char *err, size_t errlen)
{
    (void)name;
    if (value[0] != '\0') {
        if (strlen(value) >= SK_METRICS_LISTEN_LEN) {
            snprintf(err, errlen, "'%.40s...': longer than %d bytes", value,
                     SK_METRICS_LISTEN_LEN - 1);
            return SK_ECONFIG;
        }
        int rc = sk_metrics_addr_parse(value, NULL, NULL, err, errlen);
        if (rc != 0)
            return rc;
    }
    snprintf(dst, SK_METRICS_LISTEN_LEN, "%s", value);
    return 0;
}

#define KEY_INT(sec, name, field, lo, hi, help)                                \
    (sk_config_key)                                                            \
    {                                                                          \
        sec, name, SK_CONFIG_INT, &s->field, 0, lo, hi, NULL, help             \
    }

size_t sk_daemon_settings_keys(sk_daemon_settings *s, const char *section,
                               sk_config_key *keys)
{
    size_t n = 0;
    keys[n++] = (sk_config_key){section,
                                "listen",
                                SK_CONFIG_CUSTOM,
                                s->ds_listen,
                                0,
                                0,
                                0,
                                sk_daemon_parse_endpoint,
                                "endpoint to listen on (tcp://HOST:PORT or "
                                "ipc://PATH)"};
    keys[n++] = (sk_config_key){section,
                                "log_level",
                                SK_CONFIG_CUSTOM,
                                &s->ds_log_level,
                                0,
                                0,
                                0,
                                parse_level,
                                "debug, info, warn, error or off"};
    keys[n++] = KEY_INT(section, "seed", ds_seed, 0, 9007199254740992.0,
                        "random seed of the core (0: from time and pid)");
    keys[n++] = (sk_config_key){section,
                                "metrics_listen",
                                SK_CONFIG_CUSTOM,
                                s->ds_metrics_listen,
                                0,
                                0,
                                0,
                                parse_metrics_listen,
                                "HOST:PORT to serve Prometheus metrics on "
                                "(http://HOST:PORT/metrics); off by default"};
    keys[n++] = (sk_config_key){section,
                                "metrics_token_file",
                                SK_CONFIG_STRING,
                                s->ds_metrics_token_file,
                                sizeof s->ds_metrics_token_file,
                                0,
                                0,
                                NULL,
                                "a key file (mode 0600, `skylark key new`) "
                                "whose 64 hex digits a scrape must send as "
                                "a bearer token"};
    keys[n++] = (sk_config_key){section,
                                "metrics_public",
                                SK_CONFIG_BOOL,
                                &s->ds_metrics_public,
                                0,
                                0,
                                0,
                                NULL,
                                "serve metrics beyond loopback without a "
                                "token"};
    keys[n++] = (sk_config_key){"transport",
                                "heartbeat_s",
                                SK_CONFIG_DOUBLE,
                                &s->ds_heartbeat_s,
                                0,
                                0.01,
                                3600,
                                NULL,
                                "seconds between heartbeats to each peer"};
    keys[n++] = KEY_INT("transport", "misses", ds_misses, 1, 1000,
                        "silent heartbeat intervals before a peer is down");
    keys[n++] = KEY_INT("transport", "max_msg_bytes", ds_max_msg, 1024,
                        SK_MAX_MSG_BYTES, "largest message, bytes");
    keys[n++] = KEY_INT("transport", "max_peers", ds_max_peers, 1, 1000000,
                        "peers at once");
    keys[n++] = KEY_INT("transport", "queue_msgs", ds_queue_msgs, 1, INT32_MAX,
                        "send queue of one peer, messages");
    keys[n++] = KEY_INT("transport", "queue_bytes", ds_queue_bytes, 65536,
                        UINT32_MAX, "send queue of one peer, bytes");
    keys[n++] = KEY_INT("transport", "reconnect_ms", ds_reconnect_ms, 1,
                        3600000, "reconnect interval of our connections");
    keys[n++] = (sk_config_key){"transport",
                                "key_file",
                                SK_CONFIG_STRING,
                                s->ds_key_file,
                                sizeof s->ds_key_file,
                                0,
                                0,
                                NULL,
                                "the cluster key (mode 0600): every session "
                                "is authenticated and encrypted"};
    keys[n++] = (sk_config_key){"transport",
                                "insecure",
                                SK_CONFIG_BOOL,
                                &s->ds_insecure,
                                0,
                                0,
                                0,
                                NULL,
                                "run without a key even when listening "
                                "beyond loopback"};
    return n;
}

int sk_daemon_transport_config(const sk_daemon_settings *s, const char *role,
                               const char *name, sk_transport_config *out,
                               char *err, size_t errlen)
{
    if (!sk_tframe_ident_ok(name, strlen(name), SK_TRANSPORT_MAX_NAME)) {
        snprintf(err, errlen,
                 "name '%s': must be 1 to %d bytes of [A-Za-z0-9._:-]", name,
                 SK_TRANSPORT_MAX_NAME);
        return SK_ECONFIG;
    }
    sk_transport_config_default(out);
    snprintf(out->tc_role, sizeof out->tc_role, "%s", role);
    snprintf(out->tc_name, sizeof out->tc_name, "%s", name);
    out->tc_heartbeat = s->ds_heartbeat_s;
    out->tc_misses = (unsigned)s->ds_misses;
    out->tc_max_msg = (uint32_t)s->ds_max_msg;
    out->tc_max_peers = (uint32_t)s->ds_max_peers;
    out->tc_queue_msgs = (uint32_t)s->ds_queue_msgs;
    out->tc_queue_bytes = (uint32_t)s->ds_queue_bytes;
    out->tc_reconnect_ms = (int)s->ds_reconnect_ms;
    if (s->ds_key_file[0] != '\0') {
        if (sk_keyfile_read(s->ds_key_file, out->tc_key, err, errlen) < 0)
            return SK_ECONFIG;
        out->tc_keyed = 1;
    } else if (!s->ds_insecure && s->ds_listen[0] != '\0' &&
               !sk_endpoint_is_local(s->ds_listen)) {
        snprintf(err, errlen,
                 "refusing to listen on %s without a cluster key: give "
                 "key_file (--key-file FILE; `skylark key new FILE` makes "
                 "one), or --insecure to run unauthenticated",
                 s->ds_listen);
        return SK_ECONFIG;
    }
    return 0;
}

int sk_daemon_metrics_config(const sk_daemon_settings *s,
                             const sk_transport_config *tc,
                             sk_metrics_config *out,
                             uint8_t token[SK_METRICS_TOKEN_BYTES], char *err,
                             size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (s->ds_metrics_listen[0] == '\0')
        return 0;
    struct sockaddr_storage ss;
    int rc =
        sk_metrics_addr_parse(s->ds_metrics_listen, &ss, NULL, err, errlen);
    if (rc != 0)
        return rc;
    out->mc_listen = s->ds_metrics_listen;
    if (s->ds_metrics_token_file[0] != '\0') {
        if (sk_keyfile_read(s->ds_metrics_token_file, token, err, errlen) < 0)
            return SK_ECONFIG;
        if (tc->tc_keyed &&
            sodium_memcmp(token, tc->tc_key, SK_METRICS_TOKEN_BYTES) == 0) {
            snprintf(err, errlen,
                     "metrics_token_file %s holds the cluster key: give the "
                     "metrics endpoint a token of its own (whoever scrapes "
                     "holds it; `skylark key new FILE` makes one)",
                     s->ds_metrics_token_file);
            return SK_ECONFIG;
        }
        out->mc_token = token;
    } else if (!s->ds_metrics_public && !sk_metrics_addr_is_loopback(&ss)) {
        snprintf(err, errlen,
                 "refusing to serve metrics on %s, beyond loopback, without "
                 "a token: give metrics_token_file (`skylark key new FILE` "
                 "makes one), or metrics_public to serve them to anyone",
                 s->ds_metrics_listen);
        return SK_ECONFIG;
    }
    return 0;
}

int sk_endpoint_is_local(const char *endpoint)
{
    if (strncmp(endpoint, "ipc://", 6) == 0)
        return 1;
    if (strncmp(endpoint, "tcp://", 6) != 0)
        return 0;
    const char *host = endpoint + 6, *end = strrchr(host, ':');
    if (end == NULL)
        return 0;
    size_t len = (size_t)(end - host);
    if ((len == 9 && strncmp(host, "localhost", 9) == 0) ||
        (len == 2 && strncmp(host, "lo", 2) == 0) ||
        (len == 5 && strncmp(host, "[::1]", 5) == 0))
        return 1;
    /* 127.0.0.0/8: four dotted numbers, the first 127. */
    unsigned a, b, c, d;
    char tail;
    char buf[16];
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, host, len);
    buf[len] = '\0';
    return sscanf(buf, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 &&
           a == 127 && b < 256 && c < 256 && d < 256;
}

uint64_t sk_daemon_seed(const sk_daemon_settings *s)
{
    if (s->ds_seed != 0)
        return (uint64_t)s->ds_seed;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
           ((uint64_t)getpid() << 32);
}

/* ---- string lists ------------------------------------------------------- */

int sk_strlist_parse(void *dst, const char *name, const char *value, char *err,
                     size_t errlen)
{
    (void)name;
    sk_strlist *l = dst;
    const char *p = value;
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        p = *end == ',' ? end + 1 : end;
        size_t len = (size_t)(b - a);
        if (len == 0)
            continue;
        if (len > l->sl_maxlen) {
            snprintf(err, errlen, "an item is at most %zu bytes, got %zu",
                     l->sl_maxlen, len);
            return SK_ECONFIG;
        }
        if (l->sl_count >= l->sl_max) {
            snprintf(err, errlen, "at most %u items", l->sl_max);
            return SK_ECONFIG;
        }
        char *item = strndup(a, len);
        if (item == NULL) {
            snprintf(err, errlen, "out of memory");
            return SK_ENOMEM;
        }
        if (l->sl_endpoints && sk_daemon_check_endpoint(item, err, errlen)) {
            free(item);
            return SK_ECONFIG;
        }
        char **items =
            realloc(l->sl_items, (l->sl_count + 1) * sizeof *l->sl_items);
        if (items == NULL) {
            free(item);
            snprintf(err, errlen, "out of memory");
            return SK_ENOMEM;
        }
        l->sl_items = items;
        l->sl_items[l->sl_count++] = item;
    }
    return 0;
}

void sk_strlist_free(sk_strlist *l)
{
    for (uint32_t i = 0; i < l->sl_count; i++)
        free(l->sl_items[i]);
    free(l->sl_items);
    l->sl_items = NULL;
    l->sl_count = 0;
}

/* ---- the command line --------------------------------------------------- */

#define MAX_OPTS     48
#define OPT_CONFIG   1000
#define OPT_SET      1001
#define OPT_HELP     1002
#define OPT_VERSION  1003
#define OPT_KEY      1004
#define OPT_INSECURE 1005
#define OPT_OWN      2000 /* + index in cl_opts */

static void print_help(const sk_daemon_cli *cli)
{
    printf("Usage: %s [OPTION]...\n%s\n\nOptions:\n", cli->cl_prog,
           cli->cl_summary);
    printf("  %-28s %s\n", "--config FILE",
           "read settings from FILE (INI; see the keys below)");
    printf("  %-28s %s\n", "--set SECTION.KEY=VALUE",
           "set one key, over the file (repeatable)");
    printf("  %-28s %s\n", "--key-file FILE",
           "the cluster key: authenticate and encrypt every session");
    printf("  %-28s %s\n", "--insecure",
           "without a key, listen beyond loopback all the same");
    for (size_t i = 0; i < cli->cl_nopts; i++) {
        const sk_daemon_option *o = &cli->cl_opts[i];
        char left[64];
        snprintf(left, sizeof left, "--%s %s", o->do_name, o->do_arg);
        printf("  %-28s %s\n", left, o->do_help);
    }
    printf("  %-28s %s\n", "--help", "print this help and exit");
    printf("  %-28s %s\n", "--version", "print the version and exit");
    printf("\nConfiguration keys (in FILE under [SECTION], or --set "
           "SECTION.KEY=VALUE):\n");
    const char *section = NULL;
    for (size_t i = 0; i < cli->cl_nkeys; i++) {
        const sk_config_key *k = &cli->cl_keys[i];
        if (section == NULL || strcmp(section, k->ck_section) != 0) {
            section = k->ck_section;
            printf("  [%s]\n", section);
        }
        const char *name = strcmp(k->ck_name, "*") == 0 ? "NAME" : k->ck_name;
        printf("    %-24s %s\n", name, k->ck_help != NULL ? k->ck_help : "");
    }
    printf("\nExit status: 0 ok, 1 runtime failure (e.g. cannot listen), "
           "2 bad usage or configuration.\n");
}

/* Lists the command line has already emptied (its values replace the
 * file's). */
typedef struct cleared {
    const void *cl_lists[MAX_OPTS];
    size_t cl_n;
} cleared;

/* Before the command line's first value for a list key, empty the list. */
static void clear_list(const sk_daemon_cli *cli, cleared *done,
                       const char *section, const char *name)
{
    for (size_t i = 0; i < cli->cl_nkeys; i++) {
        const sk_config_key *k = &cli->cl_keys[i];
        if (k->ck_parse != sk_strlist_parse ||
            strcmp(k->ck_section, section) != 0 || strcmp(k->ck_name, name))
            continue;
        for (size_t j = 0; j < done->cl_n; j++)
            if (done->cl_lists[j] == k->ck_dst)
                return;
        if (done->cl_n < MAX_OPTS)
            done->cl_lists[done->cl_n++] = k->ck_dst;
        sk_strlist_free(k->ck_dst);
        return;
    }
}

/* The same for the target of --set SECTION.KEY=VALUE. */
static void clear_assigned_list(const sk_daemon_cli *cli, cleared *done,
                                const char *assignment)
{
    char section[64], name[64];
    const char *eq = strchr(assignment, '=');
    const char *dot =
        eq != NULL ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
    if (dot == NULL || (size_t)(dot - assignment) >= sizeof section ||
        (size_t)(eq - dot - 1) >= sizeof name)
        return;
    memcpy(section, assignment, (size_t)(dot - assignment));
    section[dot - assignment] = '\0';
    memcpy(name, dot + 1, (size_t)(eq - dot - 1));
    name[eq - dot - 1] = '\0';
    clear_list(cli, done, section, name);
}

static int usage_error(const sk_daemon_cli *cli)
{
    fprintf(stderr, "Try '%s --help' for more information.\n", cli->cl_prog);
    return SK_ECONFIG;
}

static int apply_option(const sk_daemon_cli *cli, const sk_daemon_option *o,
                        const char *arg, cleared *done)
{
    char err[768], where[80];
    snprintf(where, sizeof where, "--%s", o->do_name);
    int rc;
    if (o->do_key != NULL) {
        clear_list(cli, done, o->do_section, o->do_key);
        rc = sk_config_apply(cli->cl_keys, cli->cl_nkeys, where, o->do_section,
                             o->do_key, arg, err, sizeof err);
    } else {
        const char *eq = strchr(arg, '=');
        char key[SK_MAX_NAME_LEN + 1];
        size_t klen = eq != NULL ? (size_t)(eq - arg) : 0;
        if (eq == NULL || klen == 0 || klen >= sizeof key) {
            fprintf(stderr, "%s: --%s: expected %s, got '%s'\n", cli->cl_prog,
                    o->do_name, o->do_arg, arg);
            return SK_ECONFIG;
        }
        memcpy(key, arg, klen);
        key[klen] = '\0';
        rc = sk_config_apply(cli->cl_keys, cli->cl_nkeys, where, o->do_section,
                             key, eq + 1, err, sizeof err);
    }
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", cli->cl_prog, err);
    return rc;
}

int sk_daemon_parse_args(const sk_daemon_cli *cli, int argc, char **argv)
{
    struct option opts[MAX_OPTS + 7];
    size_t n = 0;
    opts[n++] = (struct option){"config", required_argument, NULL, OPT_CONFIG};
    opts[n++] = (struct option){"set", required_argument, NULL, OPT_SET};
    opts[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    opts[n++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    opts[n++] = (struct option){"key-file", required_argument, NULL, OPT_KEY};
    opts[n++] = (struct option){"insecure", no_argument, NULL, OPT_INSECURE};
    for (size_t i = 0; i < cli->cl_nopts && i < MAX_OPTS; i++)
        opts[n++] = (struct option){cli->cl_opts[i].do_name, required_argument,
                                    NULL, OPT_OWN + (int)i};
    opts[n] = (struct option){NULL, 0, NULL, 0};

    /* Pass 1: --help, --version, --config, and unknown options. */
    const char *config = NULL;
    int c;
    optind = 0;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            print_help(cli);
            return 1;
        case OPT_VERSION:
            printf("%s (skylark) %s\n", cli->cl_prog, sk_version());
            return 1;
        case OPT_CONFIG:
            if (config != NULL) {
                fprintf(stderr, "%s: --config given twice\n", cli->cl_prog);
                return usage_error(cli);
            }
            config = optarg;
            break;
        case '?':
            return usage_error(cli);
        default:
            break;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", cli->cl_prog,
                argv[optind]);
        return usage_error(cli);
    }
    char err[768];
    if (config != NULL &&
        sk_config_load(cli->cl_keys, cli->cl_nkeys, config, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", cli->cl_prog, err);
        return SK_ECONFIG;
    }

    /* Pass 2: everything else, in order, over the file. */
    optind = 0;
    opterr = 0;
    cleared done = {{NULL}, 0};
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == OPT_SET) {
            clear_assigned_list(cli, &done, optarg);
            if (sk_config_apply_assignment(cli->cl_keys, cli->cl_nkeys, optarg,
                                           err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", cli->cl_prog, err);
                return SK_ECONFIG;
            }
        } else if (c == OPT_KEY || c == OPT_INSECURE) {
            const char *name = c == OPT_KEY ? "key_file" : "insecure";
            const char *value = c == OPT_KEY ? optarg : "yes";
            if (sk_config_apply(cli->cl_keys, cli->cl_nkeys,
                                c == OPT_KEY ? "--key-file" : "--insecure",
                                "transport", name, value, err,
                                sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", cli->cl_prog, err);
                return SK_ECONFIG;
            }
        } else if (c >= OPT_OWN) {
            if (apply_option(cli, &cli->cl_opts[c - OPT_OWN], optarg, &done) !=
                0)
                return SK_ECONFIG;
        }
    }
    return 0;
}
