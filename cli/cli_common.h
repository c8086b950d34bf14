/*
 * cli_common.h - what the `skylark` subcommands that talk to a cluster
 * (cluster, run, status, load) share: strict number parsing, the cluster
 * directory and its schedulers, quantiles and durations for summaries,
 * and the one-line-per-daemon view of a local cluster.
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include "cli_json.h"
#include "sk_cluster.h"
#include "skylark.h"

#include <stddef.h>
#include <stdio.h>

/* How long `run` and `load` wait, after a timeout or a first SIGINT or
 * SIGTERM, for their cancel to end the jobs before they leave anyway: a
 * scheduler answers a cancel in milliseconds, and one that does not
 * (hung, or gone without a word) must not hold the command. */
#define CLI_CANCEL_GRACE 2.0

/* cli_parse_ulong parses all of s as a decimal integer in [min, max].
 * Returns 0 or -1. */
int cli_parse_ulong(const char *s, unsigned long min, unsigned long max,
                    unsigned long *out);

/* cli_parse_double parses all of s as a finite number in [min, max].
 * Returns 0 or -1. */
int cli_parse_double(const char *s, double min, double max, double *out);

/* cli_parse_placement parses a --placement value: "sample"
 * (SK_PLACEMENT_SAMPLE) or "flow" (SK_PLACEMENT_FLOW). Returns 0 or -1. */
int cli_parse_placement(const char *s, sk_job_placement *out);

/* cli_check_endpoint checks addr with sk_endpoint_check; when it is not
 * an endpoint, prints "WHO: WHAT 'ADDR': why" on stderr (what: the option
 * or argument that gave it, such as "--scheduler") and returns -1 (the
 * caller exits 2: bad input). Returns 0 for a good endpoint. */
int cli_check_endpoint(const char *who, const char *what, const char *addr);

/* The options that the commands talking to a cluster share (jobs,
 * cancel, flow, status, dashboard): --timeout S, --dir DIR, --key-file F
 * and, where a command takes it, --token-file F. A command sets
 * co_timeout to its default and co_timeout_max to the largest wait it
 * takes, lists CLI_CONN_LONGOPTS (and "T" for --token-file) in its
 * getopt tables, and gives each option to cli_conn_opt first. */
typedef struct cli_conn {
    double co_timeout;     /* --timeout, seconds (the command's default) */
    double co_timeout_max; /* the largest --timeout taken (at least 0.01) */
    const char *co_dir;    /* --dir, or NULL: the default directory */
    const char *co_key;    /* --key-file, or NULL */
    const char *co_token;  /* --token-file, or NULL */
} cli_conn;

/* getopt_long entries of cli_conn's options; short options "t:d:K:"
 * (and "T:" for --token-file, listed by the command that takes it). */
// clang-format off
#define CLI_CONN_LONGOPTS                                                    \
    {"timeout", required_argument, NULL, 't'},                               \
    {"dir", required_argument, NULL, 'd'},                                   \
    {"key-file", required_argument, NULL, 'K'}
// clang-format on

/* cli_conn_opt takes option c of getopt_long, with its argument arg, into
 * o if it is one of cli_conn's ('t', 'd', 'K', 'T'). Returns 1 when it
 * took it, 0 when c is not one of them (the command's own option), -1
 * after printing "WHO: --timeout takes seconds" on stderr for a timeout
 * that is not a number in [0.01, co_timeout_max] (the caller exits 2).
 * Costs nothing but the parse; arg is kept, not copied. */
int cli_conn_opt(cli_conn *o, const char *who, int c, const char *arg);

/* cli_dir writes dir, or the default cluster directory, into out. */
void cli_dir(const char *dir, char *out, size_t len);

/* cli_load_cluster loads the cluster of dir (NULL: the default) into a
 * new skc_cluster. Returns it, or NULL after printing why on stderr with
 * the prefix who. The caller frees it. */
skc_cluster *cli_load_cluster(const char *who, const char *dir);

/* cli_schedulers gives a command its schedulers: when none was given on
 * its command line (*n is 0) it loads the local cluster of dir (NULL: the
 * default) into a new *cl, which the caller frees, and fills scheds (up to
 * max) and *n with the cluster's schedulers; otherwise it does nothing
 * (*cl NULL). Returns 0, or -1 after saying why on stderr with the prefix
 * who (no cluster, or one without a scheduler). */
int cli_schedulers(const char *who, const char *dir, const char **scheds,
                   unsigned max, unsigned *n, skc_cluster **cl);

/* cli_flowd gives a command its flow node's endpoint: given (its
 * --flowd), else the skylark-flowd of the local cluster of dir (NULL:
 * the default), copied into buf. Returns 0, or -1 after saying why on
 * stderr with the prefix who (no cluster, or one without flowd). */
int cli_flowd(const char *who, const char *dir, const char *given, char *buf,
              size_t len);

/* cli_query asks the daemon at addr the query (sk_status_query, with the
 * table) and waits at most timeout seconds in all: while the daemon
 * answers that it is busy (the pair retry = yes: flowd solving a round)
 * it asks again every 20 ms. Returns 0 with the answer in *out (the
 * caller frees it), or 1 after saying why on stderr with the prefix who
 * (no answer, or the daemon's error). */
int cli_query(const char *who, const char *addr, const char *key,
              const char *query, double timeout, sk_status **out);

/* cli_key_file says which cluster key a command uses: given (its
 * --key-file), else $SKYLARK_KEY_FILE, else the key of the local cluster
 * in dir (NULL: the default directory) if it has one; NULL for none. The
 * result points at given, the environment or buf. */
const char *cli_key_file(const char *given, const char *dir, char *buf,
                         size_t len);

/* cli_token_file says which user token a command uses: given (its
 * --token-file), else $SKYLARK_TOKEN_FILE, else user.token in the local
 * cluster's directory dir (NULL: the default) if there is one; NULL for
 * none, when the command uses the cluster key (cli_key_file) as the
 * cluster's operator. The result points at given, the environment or
 * buf. */
const char *cli_token_file(const char *given, const char *dir, char *buf,
                           size_t len);

/* cli_credential picks a command's credential from its --key-file (key)
 * and --token-file (token): a key given alone wins; else the token of
 * cli_token_file if there is one, else the key of cli_key_file. One of
 * *key_file and *token_file is set (they point at the arguments, the
 * environment or the buffers of len bytes), the other is NULL; both are
 * NULL for an unauthenticated cluster. */
void cli_credential(const char *key, const char *token, const char *dir,
                    char *keybuf, char *tokbuf, size_t len,
                    const char **key_file, const char **token_file);

/* cli_mono_s returns the monotonic clock in seconds. */
double cli_mono_s(void);

/* cli_num reads a status value or cell v as an unsigned decimal number:
 * its leading digits, 0 when there are none or v is NULL. */
uint64_t cli_num(const char *v);

/* cli_column_of returns the index of the column name in s's table, or -1
 * when it has none (O(columns)). */
int cli_column_of(const sk_status *s, const char *name);

/* cli_rank returns the q-quantile (0 < q <= 1) of sorted[0..n), ascending,
 * by the nearest-rank method: the smallest value such that at least q * n
 * of the values are at or below it. It is always one of the values, and
 * never above the last; 0 when n is 0. */
double cli_rank(const double *sorted, size_t n, double q);

/* The distribution of a sample, for a summary line. */
typedef struct cli_dist {
    size_t cd_n;                           /* values */
    double cd_p50, cd_p95, cd_p99, cd_max; /* nearest rank (cli_rank) */
} cli_dist;

/* cli_dist_of sorts v[0..n) in place (O(n log n)) and fills *out; all 0
 * when n is 0. Every figure is read after the sort, so p50 <= p95 <= p99
 * <= max. */
void cli_dist_of(double *v, size_t n, cli_dist *out);

/* cli_outcome writes how task r ended, for a person, into buf and
 * returns buf: the outcome's name and, for a failed task that ran to an
 * exit code or a signal, that ("failed (exit 3)", "failed (signal 9)").
 * A lost, killed or cancelled task has no exit code worth saying: its
 * reason is in its output ("lost", then "node lost"). */
const char *cli_outcome(const sk_task_result *r, char *buf, size_t len);

/* cli_duration formats seconds as "812 us", "3.41 ms" or "1.234 s". */
const char *cli_duration(double s, char *buf, size_t len);

/* cli_print_cluster prints one line per daemon of c (role, name,
 * endpoint, pid, state, and a few numbers from its status). Returns the
 * number of daemons that did not answer. */
unsigned cli_print_cluster(const skc_cluster *c, FILE *out);

/* cli_json_status writes a daemon's answer s, from addr, as members of
 * the object open in j: address, role, name, time_us, time (ISO 8601,
 * UTC), values (every key/value pair, in the daemon's order), and with
 * table nonzero columns and rows (every row, an object keyed by column).
 * The shape is documented in docs/CLIENT.md ("status --json"). */
void cli_json_status(cli_json *j, const char *addr, const sk_status *s,
                     int table);

/* cli_json_cluster writes c as one JSON document on out: the cluster's
 * directory and, per daemon, what cli_print_cluster says and its whole
 * answer (cli_json_status without the table, null when it did not
 * answer). Returns the number of daemons that did not answer. */
unsigned cli_json_cluster(const skc_cluster *c, FILE *out);

#endif /* CLI_COMMON_H */
