/*
 * sk_daemon_opts.h - the settings every Skylark daemon shares and its
 * command line.
 *
 * Shared settings: in the daemon's own section, `listen` (the endpoint it
 * binds), `log_level`, `seed` and the metrics endpoint (`metrics_listen`,
 * `metrics_token_file`, `metrics_public`); in [transport], the transport's
 * timing and limits, the cluster key (`key_file`) and `insecure`, the explicit
 * way to run without one beyond loopback. String lists (a node monitor's
 * schedulers and labels) are keys whose every value adds items; values given on
 * the command line replace the file's list.
 *
 * The command line is: --config FILE (read first, wherever it stands),
 * then --set SECTION.KEY=VALUE and the daemon's own options, applied in
 * order over the file, each bound to a configuration key so that a value
 * is checked the same way wherever it comes from; --help prints the
 * options and every configuration key; --version prints the version.
 */
#ifndef SK_DAEMON_OPTS_H
#define SK_DAEMON_OPTS_H

#include "sk_config.h"
#include "sk_log.h"
#include "sk_metrics_http.h"
#include "sk_proto.h"
#include "sk_transport.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Settings every daemon has. Integers are int64_t for sk_config. */
typedef struct sk_daemon_settings {
    char ds_listen[SK_MAX_ADDR_LEN + 1]; /* endpoint to bind */
    sk_log_level ds_log_level;
    int64_t ds_seed;         /* the core's random seed; 0: time and pid */
    double ds_heartbeat_s;   /* transport heartbeat interval */
    int64_t ds_misses;       /* silent intervals before a peer is down */
    int64_t ds_max_msg;      /* largest message, bytes */
    int64_t ds_max_peers;    /* transport peers at once */
    int64_t ds_queue_msgs;   /* per-peer send queue, messages */
    int64_t ds_queue_bytes;  /* per-peer send queue, bytes */
    int64_t ds_reconnect_ms; /* reconnect interval of our connections */
    char ds_key_file[1024];  /* the cluster key, or "" */
    bool ds_insecure;        /* without a key, listen beyond loopback */
    char ds_metrics_listen[SK_METRICS_LISTEN_LEN]; /* HOST:PORT or "" */
    char ds_metrics_token_file[1024]; /* bearer token for /metrics, or "" */
    bool ds_metrics_public; /* /metrics beyond loopback without a token */
} sk_daemon_settings;

/* Keys sk_daemon_settings_keys fills. */
#define SK_DAEMON_NKEYS 15

/* sk_daemon_settings_init sets the defaults: listen on `listen`, level
 * INFO, seed 0, the transport's defaults except its largest message,
 * max_msg bytes (at most SK_MAX_MSG_BYTES), and queues of 65,536 messages
 * and 64 MiB per peer. */
void sk_daemon_settings_init(sk_daemon_settings *s, const char *listen,
                             uint32_t max_msg);

/* sk_daemon_settings_keys fills keys[0..SK_DAEMON_NKEYS) for s: listen,
 * log_level, seed and the metrics_* keys in [section], the rest in
 * [transport]. Returns
 * SK_DAEMON_NKEYS. s and section must outlive the table. */
size_t sk_daemon_settings_keys(sk_daemon_settings *s, const char *section,
                               sk_config_key *keys);

/* sk_daemon_transport_config makes the transport settings for identity
 * (role, name), with the cluster key read from ds_key_file. Returns 0, or
 * SK_ECONFIG with a message in err when name is not 1 to
 * SK_TRANSPORT_MAX_NAME bytes of [A-Za-z0-9._:-], when the key file
 * cannot be used (sk_keyfile_read), or when there is no key, ds_listen is
 * not on this machine only (sk_endpoint_is_local) and ds_insecure is not
 * set. */
int sk_daemon_transport_config(const sk_daemon_settings *s, const char *role,
                               const char *name, sk_transport_config *out,
                               char *err, size_t errlen);

/* sk_daemon_metrics_config makes the /metrics settings: off (mc_listen
 * NULL) without metrics_listen; else its address and, with
 * metrics_token_file, the token read into token (sk_keyfile_read's
 * rules), mc_token pointing to it. Returns 0, or SK_ECONFIG with a
 * message in err when the address or the file is refused, when the
 * token is the cluster key of tc (whoever scrapes holds the token), or
 * when the address is beyond loopback with neither a token nor
 * metrics_public. */
int sk_daemon_metrics_config(const sk_daemon_settings *s,
                             const sk_transport_config *tc,
                             sk_metrics_config *out,
                             uint8_t token[SK_METRICS_TOKEN_BYTES], char *err,
                             size_t errlen);

/* sk_endpoint_is_local tells whether an endpoint can be reached from this
 * machine only: ipc://, and tcp:// on 127.0.0.0/8, ::1, localhost or lo. */
int sk_endpoint_is_local(const char *endpoint);

/* sk_daemon_seed returns ds_seed, or a seed from the clock and the pid
 * when it is 0. */
uint64_t sk_daemon_seed(const sk_daemon_settings *s);

/* sk_daemon_check_endpoint accepts what sk_endpoint_check (skylark.h)
 * accepts: "tcp://HOST:PORT" (port 1..65535) and "ipc://PATH", at most
 * SK_MAX_ADDR_LEN bytes. Returns 0 or SK_ECONFIG with the reason in err,
 * "'VALUE': " and sk_endpoint_check's words. */
int sk_daemon_check_endpoint(const char *value, char *err, size_t errlen);

/* sk_daemon_parse_endpoint is an sk_config parser (SK_CONFIG_CUSTOM)
 * that checks an endpoint and copies it into dst, a char array of
 * SK_MAX_ADDR_LEN + 1 (a daemon's endpoint keys: listen, flowd). */
int sk_daemon_parse_endpoint(void *dst, const char *name, const char *value,
                             char *err, size_t errlen);

/* A list of strings filled from repeated or comma-separated values. */
typedef struct sk_strlist {
    char **sl_items;
    uint32_t sl_count;
    uint32_t sl_max;  /* most items */
    size_t sl_maxlen; /* longest item, bytes */
    int sl_endpoints; /* items must be endpoints */
} sk_strlist;

/* sk_strlist_parse is an sk_config parser (SK_CONFIG_CUSTOM, dst an
 * sk_strlist) that appends each comma-separated, trimmed, non-empty item
 * of value. Errors name the bad item or the limit. */
int sk_strlist_parse(void *dst, const char *name, const char *value, char *err,
                     size_t errlen);

/* sk_strlist_free releases the items and empties the list. */
void sk_strlist_free(sk_strlist *l);

/* A command-line option bound to a configuration key. */
typedef struct sk_daemon_option {
    const char *do_name;    /* long option, without the dashes */
    const char *do_arg;     /* its argument, for --help ("ENDPOINT") */
    const char *do_section; /* the key it sets: [do_section] do_key */
    const char *do_key;     /* NULL: the argument is KEY=VALUE, a key of
                               do_section (--weight alice=3) */
    const char *do_help;
} sk_daemon_option;

/* A daemon's command line. */
typedef struct sk_daemon_cli {
    const char *cl_prog;    /* "skylark-sched" */
    const char *cl_summary; /* one line for --help */
    const sk_daemon_option *cl_opts;
    size_t cl_nopts;
    const sk_config_key *cl_keys; /* every configuration key */
    size_t cl_nkeys;
} sk_daemon_cli;

/* sk_daemon_parse_args applies argv to the keys of cli (see the top of
 * this file). Returns 0 to go on; 1 after printing --help or --version to
 * stdout (exit 0); SK_ECONFIG after printing the error, naming the file,
 * line and key or the option, to stderr (exit 2). */
int sk_daemon_parse_args(const sk_daemon_cli *cli, int argc, char **argv);

#endif /* SK_DAEMON_OPTS_H */
