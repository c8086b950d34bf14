/*
 * sk_apiutil.h - small helpers the client objects (frontend, executor,
 * status) share: the wall clock, made-up transport names, process
 * incarnations, and running a libev loop until a condition holds.
 */
#ifndef SK_APIUTIL_H
#define SK_APIUTIL_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;

/* sk_wall_us returns the wall clock in microseconds since the epoch (the
 * protocol's time base). */
uint64_t sk_wall_us(void);

/* sk_name_valid tells whether name can be a transport name: 1..63 bytes
 * of [A-Za-z0-9._:-]. */
int sk_name_valid(const char *name);

/* sk_make_name writes "PREFIX-HOST-PID-N" into out (len >= 64), with the
 * host name cut and cleaned to the transport's alphabet and N counting
 * the names made by this process, so every object gets its own name. */
void sk_make_name(char *out, size_t len, const char *prefix);

/* sk_new_incarnation returns a value for he_incarnation that differs
 * between processes and between objects of one process. */
uint64_t sk_new_incarnation(void);

/* sk_role_phrase returns how to name a peer of transport role role in a
 * sentence: "a scheduler" for "sched", "a node monitor" for "nodemon",
 * and so on; "a peer of another kind" for a role it does not know.
 * Static string. */
const char *sk_role_phrase(const char *role);

/* sk_run_until runs loop until cond(arg) is nonzero or timeout seconds
 * have passed (timeout < 0: no limit). Returns 0 if the condition holds,
 * SK_ETIMEDOUT otherwise. cond is checked before the first and after
 * every loop iteration. */
int sk_run_until(struct ev_loop *loop, int (*cond)(void *), void *arg,
                 double timeout);

#endif /* SK_APIUTIL_H */
