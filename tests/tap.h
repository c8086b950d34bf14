/*
 * tap.h - a minimal Test Anything Protocol producer for Skylark's tests.
 *
 * A test program calls tap_plan(n) (or tap_plan_lazy() and tap_done() when
 * the count is known only at the end), then one check per assertion, and
 * returns tap_exit_status() from main. Output goes to stdout, diagnostics
 * to stdout as "# ..." lines, which automake's TAP driver keeps in the log.
 * Not thread-safe: call it from the main thread.
 */
#ifndef SK_TAP_H
#define SK_TAP_H

#include <stdbool.h>
#include <stdint.h>

/* tap_plan prints "1..n". */
void tap_plan(int n);

/* tap_plan_lazy defers the plan: tap_done prints it after the last test. */
void tap_plan_lazy(void);

/* tap_done prints the deferred plan "1..count"; a no-op after tap_plan. */
void tap_done(void);

/* tap_timeout aborts the program (SIGALRM, reported by the driver as an
 * error) if it runs longer than seconds. Every test calls it: make check
 * must never hang. */
void tap_timeout(unsigned seconds);

/* tap_ok records one assertion; name is printf-style. Returns cond. */
bool tap_ok(bool cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* tap_is_int, tap_is_str: equality assertions that print both values on
 * failure. */
bool tap_is_int(int64_t got, int64_t want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool tap_is_str(const char *got, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* tap_todo records an assertion of a known bug not fixed yet: printed
 * with a "# TODO why" directive, so that the TAP driver reports a failure
 * as expected (XFAIL) and a pass as unexpected (XPASS, which fails the
 * suite: remove the TODO once the bug is fixed). Never counted in
 * tap_failures. Returns cond. */
bool tap_todo(bool cond, const char *why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* tap_skip records n skipped assertions with a reason. */
void tap_skip(int n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* tap_skip_all prints "1..0 # SKIP reason" and exits 0: for a test whose
 * prerequisites (a data folder, a reference tool) are missing. */
_Noreturn void tap_skip_all(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* tap_bail_out prints "Bail out! reason" and exits 1. */
_Noreturn void tap_bail_out(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* tap_diag prints a "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* tap_failures returns the number of failed assertions so far. */
int tap_failures(void);

/* tap_exit_status returns 0 if every assertion passed and the plan was
 * met, 1 otherwise: the value for main to return. */
int tap_exit_status(void);

#endif /* SK_TAP_H */
