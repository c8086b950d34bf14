/*
 * test_fd_due.c - the heap of waiting tasks by when their costs next
 * change (fd_due.c), against a brute-force list: random sets (insert and
 * move), removals and pops at rising times; every pop returns a task
 * that is due and none is left due when it returns NULL; the heap's
 * positions stay consistent; quincy's due time is the next whole second
 * of a task's wait, counting its earlier spells.
 */
#include "fd_int.h"
#include "fd_policy.h"
#include "tap.h"

#include <stdlib.h>

#define NT 500

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The heap's positions point back at their tasks, and each parent is
 * due no later than its children. */
static bool consistent(const fd_core *c)
{
    for (uint32_t i = 0; i < c->c_ndue; i++) {
        if (c->c_due[i]->t_due_pos != i + 1)
            return false;
        if (i > 0 && c->c_due[(i - 1) / 2]->t_due > c->c_due[i]->t_due)
            return false;
    }
    return true;
}

static void random_ops(void)
{
    fd_core *c = calloc(1, sizeof *c);
    fd_task *t = calloc(NT, sizeof *t);
    bool in[NT] = {0};
    if (c == NULL || t == NULL || fd_due_reserve(c, NT) != 0)
        tap_bail_out("out of memory");
    sk_time now = 0;
    bool ok = true, popped_due = true, none_left = true;
    uint64_t pops = 0;
    for (int step = 0; step < 20000; step++) {
        uint32_t k = (uint32_t)(next() % NT);
        switch (next() % 4) {
        case 0:
        case 1:
            fd_due_set(c, &t[k], now + next() % 5000);
            in[k] = true;
            break;
        case 2:
            fd_due_remove(c, &t[k]);
            in[k] = false;
            break;
        default: {
            now += next() % 200;
            fd_task *p;
            while ((p = fd_due_pop(c, now)) != NULL) {
                pops++;
                uint32_t i = (uint32_t)(p - t);
                popped_due &= in[i] && p->t_due <= now && p->t_due_pos == 0;
                in[i] = false;
            }
            for (uint32_t i = 0; i < NT; i++)
                none_left &= !(in[i] && t[i].t_due <= now);
        }
        }
        uint32_t n = 0;
        for (uint32_t i = 0; i < NT; i++)
            n += in[i];
        ok &= n == c->c_ndue && consistent(c);
    }
    tap_ok(ok, "the heap holds exactly the tasks set and not removed or "
               "popped, in heap order");
    tap_ok(popped_due && pops > 1000, "every pop (%llu) returns a due task",
           (unsigned long long)pops);
    tap_ok(none_left, "no task is left due after the pops");
    fd_due_free(c);
    tap_ok(c->c_due == NULL && c->c_ndue == 0, "fd_due_free empties it");
    free(t);
    free(c);
}

static void quincy_due(void)
{
    fd_task t = {0};
    t.t_state = FD_TASK_WAITING;
    t.t_since = 10000000;
    t.t_waited = 2500000; /* 2.5 s in earlier spells */
    /* at t_since: 2.5 s waited; 3 s at t_since + 0.5 s */
    tap_is_int((int64_t)fd_q_task_costs_due(NULL, &t, t.t_since), 10500000,
               "due at the next whole second of the wait");
    tap_is_int((int64_t)fd_q_task_costs_due(NULL, &t, 10500000), 11500000,
               "at the boundary itself, the one after");
    tap_is_int((int64_t)fd_q_task_costs_due(NULL, &t, 5000000), 10500000,
               "before t_since, counted from t_since");
}

int main(void)
{
    tap_plan(7);
    tap_timeout(30);
    random_ops();
    quincy_due();
    return tap_exit_status();
}
