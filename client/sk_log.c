/*
 * sk_log.c - timestamped, levelled log lines to stderr or a sink.
 */
#include "sk_log.h"
#include "skylark.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static sk_log_level log_threshold = SK_LOG_INFO;
static char log_component[32] = "skylark";
static sk_log_sink log_sink;
static void *log_sink_arg;

static const char *const level_names[] = {"DEBUG", "INFO", "WARN", "ERROR",
                                          "OFF"};

void sk_log_set_level(sk_log_level level)
{
    if (level >= SK_LOG_DEBUG && level <= SK_LOG_OFF)
        log_threshold = level;
}

int sk_log_parse_level(const char *text, sk_log_level *out)
{
    static const char *const lower[] = {"debug", "info", "warn", "error",
                                        "off"};
    for (int i = 0; i <= SK_LOG_OFF; i++) {
        if (text != NULL && strcasecmp(text, lower[i]) == 0) {
            *out = (sk_log_level)i;
            return 0;
        }
    }
    return SK_EINVAL;
}

void sk_log_set_component(const char *name)
{
    snprintf(log_component, sizeof log_component, "%s", name);
}

void sk_log_set_sink(sk_log_sink fn, void *arg)
{
    log_sink = fn;
    log_sink_arg = arg;
}

void sk_log(sk_log_level level, const char *fmt, ...)
{
    if (level < log_threshold || level >= SK_LOG_OFF)
        return;

    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);

    char line[1024];
    int n = snprintf(line, sizeof line,
                     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s[%ld] %s: ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, now.tv_nsec / 1000000L,
                     log_component, (long)getpid(), level_names[level]);
    if (n < 0)
        return;
    if ((size_t)n < sizeof line) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    if (log_sink != NULL)
        log_sink(log_sink_arg, level, line);
    else
        fprintf(stderr, "%s\n", line);
}

void sk_assert_fail(const char *cond, const char *file, int line)
{
    /* Straight to stderr, whatever the threshold; the sink hears it too. */
    fprintf(stderr, "%s[%ld] assertion failed: %s (%s:%d)\n", log_component,
            (long)getpid(), cond, file, line);
    if (log_sink != NULL)
        sk_log(SK_LOG_ERROR, "assertion failed: %s (%s:%d)", cond, file, line);
    abort();
}
