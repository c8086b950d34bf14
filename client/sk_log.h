/*
 * sk_log.h - the one small logging module of Skylark.
 *
 * A log line is: an ISO-8601 UTC timestamp with milliseconds, the component
 * name and process id, the level, and the message, written to stderr (or to
 * a sink set by sk_log_set_sink). Lines below the current level cost one
 * comparison. The settings are process-wide; sk_log itself may be called
 * from any thread (each line is written with one call).
 */
#ifndef SK_LOG_H
#define SK_LOG_H

#include <stddef.h>

typedef enum sk_log_level {
    SK_LOG_DEBUG = 0,
    SK_LOG_INFO = 1,
    SK_LOG_WARN = 2,
    SK_LOG_ERROR = 3,
    SK_LOG_OFF = 4, /* as a threshold: log nothing */
} sk_log_level;

/* A sink receives each formatted line (without the trailing newline). */
typedef void (*sk_log_sink)(void *arg, sk_log_level level, const char *line);

/* sk_log_set_level sets the threshold: lines below it are dropped.
 * The default is SK_LOG_INFO. */
void sk_log_set_level(sk_log_level level);

/* sk_log_parse_level turns "debug", "info", "warn", "error" or "off"
 * (case-insensitive) into a level. Returns 0, or SK_EINVAL for other text. */
int sk_log_parse_level(const char *text, sk_log_level *out);

/* sk_log_set_component names the component that writes ("sched",
 * "nodemon", ...). The name is copied (at most 31 bytes are kept). */
void sk_log_set_component(const char *name);

/* sk_log_set_sink sends lines to fn instead of stderr; fn NULL restores
 * stderr. Not to be called while other threads log. */
void sk_log_set_sink(sk_log_sink fn, void *arg);

/* sk_log formats and writes one line at the given level. */
void sk_log(sk_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define sk_debug(...) sk_log(SK_LOG_DEBUG, __VA_ARGS__)
#define sk_info(...)  sk_log(SK_LOG_INFO, __VA_ARGS__)
#define sk_warn(...)  sk_log(SK_LOG_WARN, __VA_ARGS__)
#define sk_error(...) sk_log(SK_LOG_ERROR, __VA_ARGS__)

/* SK_ASSERT aborts with file and line when an internal invariant breaks.
 * It is always compiled in: invariants are cheap and silence is costly. */
#define SK_ASSERT(cond)                                                        \
    ((cond) ? (void)0 : sk_assert_fail(#cond, __FILE__, __LINE__))

/* sk_assert_fail logs the failed invariant at ERROR and aborts. */
_Noreturn void sk_assert_fail(const char *cond, const char *file, int line);

#endif /* SK_LOG_H */
