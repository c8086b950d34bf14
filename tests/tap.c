/*
 * tap.c - the TAP producer used by every test program.
 */
#include "tap.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_planned = -1; /* -1: no plan yet; -2: lazy plan */
static int tap_count;
static int tap_failed;

void tap_plan(int n)
{
    tap_planned = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

void tap_plan_lazy(void)
{
    tap_planned = -2;
}

void tap_done(void)
{
    if (tap_planned == -2) {
        tap_planned = tap_count;
        printf("1..%d\n", tap_count);
        fflush(stdout);
    }
}

static void on_alarm(int sig)
{
    static const char msg[] = "Bail out! test timed out\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

void tap_timeout(unsigned seconds)
{
    signal(SIGALRM, on_alarm);
    alarm(seconds);
}

static bool report(bool cond, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static bool report(bool cond, const char *fmt, va_list ap)
{
    tap_count++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

bool tap_ok(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(cond, fmt, ap);
    va_end(ap);
    return cond;
}

bool tap_todo(bool cond, const char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_count++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    vprintf(fmt, ap);
    printf(" # TODO %s\n", why);
    fflush(stdout);
    va_end(ap);
    return cond;
}

bool tap_is_int(int64_t got, int64_t want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(got == want, fmt, ap);
    va_end(ap);
    if (got != want)
        tap_diag("  got: %" PRId64 ", expected: %" PRId64, got, want);
    return got == want;
}

bool tap_is_str(const char *got, const char *want, const char *fmt, ...)
{
    bool same = (got == NULL && want == NULL) ||
                (got != NULL && want != NULL && strcmp(got, want) == 0);
    va_list ap;
    va_start(ap, fmt);
    report(same, fmt, ap);
    va_end(ap);
    if (!same)
        tap_diag("  got: '%s', expected: '%s'", got ? got : "(null)",
                 want ? want : "(null)");
    return same;
}

void tap_skip(int n, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    for (int i = 0; i < n; i++)
        printf("ok %d # SKIP %s\n", ++tap_count, reason);
    fflush(stdout);
}

void tap_skip_all(const char *fmt, ...)
{
    va_list ap;
    printf("1..0 # SKIP ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(0);
}

void tap_bail_out(const char *fmt, ...)
{
    va_list ap;
    printf("Bail out! ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(1);
}

void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

int tap_failures(void)
{
    return tap_failed;
}

int tap_exit_status(void)
{
    if (tap_planned == -2)
        tap_done();
    if (tap_planned >= 0 && tap_planned != tap_count) {
        tap_diag("planned %d tests but ran %d", tap_planned, tap_count);
        return 1;
    }
    return tap_failed > 0 ? 1 : 0;
}
