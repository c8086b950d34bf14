/*
 * sk_apiutil.c - helpers shared by the client objects (see sk_apiutil.h).
 */
#include "sk_apiutil.h"

#include "skylark.h"

#include <ev.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t sk_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
           c == '-';
}

int sk_name_valid(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char(name[i]))
            return 0;
    return 1;
}

static atomic_uint names_made;

void sk_make_name(char *out, size_t len, const char *prefix)
{
    char host[64] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    host[24] = '\0'; /* room for the prefix, pid and counter in 63 bytes */
    for (char *p = host; *p != '\0'; p++)
        if (!name_char(*p))
            *p = '_';
    unsigned n = atomic_fetch_add(&names_made, 1) + 1;
    snprintf(out, len, "%.15s-%s-%ld-%u", prefix,
             host[0] != '\0' ? host : "host", (long)getpid(), n);
}

uint64_t sk_new_incarnation(void)
{
    static atomic_uint made;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    v ^= (uint64_t)getpid() << 40;
    return v + atomic_fetch_add(&made, 1);
}

static void wake_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

const char *sk_role_phrase(const char *role)
{
    static const char *const names[][2] = {
        {"sched", "a scheduler"},    {"nodemon", "a node monitor"},
        {"flowd", "a flow node"},    {"frontend", "a frontend"},
        {"executor", "an executor"}, {"tool", "a status tool"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(role, names[i][0]) == 0)
            return names[i][1];
    return "a peer of another kind";
}

int sk_run_until(struct ev_loop *loop, int (*cond)(void *), void *arg,
                 double timeout)
{
    if (cond(arg))
        return 0;
    ev_now_update(loop);
    double end = ev_now(loop) + timeout;
    ev_timer wake;
    ev_timer_init(&wake, wake_cb, timeout >= 0 ? timeout : 0, 0);
    if (timeout >= 0)
        ev_timer_start(loop, &wake);
    int ok = 0;
    for (;;) {
        ev_run(loop, EVRUN_ONCE);
        if ((ok = cond(arg)) != 0)
            break;
        ev_now_update(loop);
        if (timeout >= 0 && ev_now(loop) >= end)
            break;
    }
    ev_timer_stop(loop, &wake);
    return ok ? 0 : SK_ETIMEDOUT;
}
