/*
 * fd_due.c - the waiting tasks ordered by when their time-dependent costs
 * next change (a binary min-heap on t_due).
 *
 * A waiting task's unscheduled cost grows with its wait in whole seconds
 * (fd_quincy.c), so between two rounds a few milliseconds apart almost no
 * task's cost changes. A sync used to walk every waiting task to find out
 * (fd_sync.c, step 5): O(waiting) list hops and cache misses per sync,
 * twice a round, which on the trace's backlogs of tens of thousands of
 * waiting tasks was a sixth of the hybrid's CPU. The heap hands a sync
 * only the tasks whose cost is due; the others' arcs would not change.
 * Which arcs change is the same either way, and the solvers do not depend
 * on the order of the change record's cost changes, so a round's network
 * and flow are the same.
 *
 * The heap holds only tasks with a task slot; fd_due_reserve, called
 * where slots are taken, keeps it large enough for all of them, so that
 * fd_due_set never fails.
 */
#include "fd_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>

static void put(fd_core *c, uint32_t i, fd_task *t)
{
    c->c_due[i] = t;
    t->t_due_pos = i + 1;
}

static void up(fd_core *c, uint32_t i)
{
    fd_task *t = c->c_due[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (c->c_due[p]->t_due <= t->t_due)
            break;
        put(c, i, c->c_due[p]);
        i = p;
    }
    put(c, i, t);
}

static void down(fd_core *c, uint32_t i)
{
    fd_task *t = c->c_due[i];
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= c->c_ndue)
            break;
        if (k + 1 < c->c_ndue && c->c_due[k + 1]->t_due < c->c_due[k]->t_due)
            k++;
        if (t->t_due <= c->c_due[k]->t_due)
            break;
        put(c, i, c->c_due[k]);
        i = k;
    }
    put(c, i, t);
}

int fd_due_reserve(fd_core *c, uint32_t n)
{
    if (n <= c->c_due_cap)
        return 0;
    uint32_t cap = c->c_due_cap < 64 ? 64 : c->c_due_cap;
    while (cap < n)
        cap = cap > UINT32_MAX / 2 ? n : cap * 2;
    fd_task **p = realloc(c->c_due, cap * sizeof *p);
    if (p == NULL)
        return SK_ENOMEM;
    c->c_due = p;
    c->c_due_cap = cap;
    return 0;
}

void fd_due_set(fd_core *c, fd_task *t, sk_time due)
{
    if (t->t_due_pos == 0) {
        SK_ASSERT(c->c_ndue < c->c_due_cap);
        t->t_due = due;
        c->c_due[c->c_ndue] = t;
        up(c, c->c_ndue++);
        return;
    }
    uint32_t i = t->t_due_pos - 1;
    bool earlier = due < t->t_due;
    t->t_due = due;
    if (earlier)
        up(c, i);
    else
        down(c, i);
}

void fd_due_remove(fd_core *c, fd_task *t)
{
    if (t->t_due_pos == 0)
        return;
    uint32_t i = t->t_due_pos - 1;
    t->t_due_pos = 0;
    fd_task *last = c->c_due[--c->c_ndue];
    if (i == c->c_ndue)
        return;
    put(c, i, last);
    if (i > 0 && c->c_due[(i - 1) / 2]->t_due > last->t_due)
        up(c, i);
    else
        down(c, i);
}

fd_task *fd_due_pop(fd_core *c, sk_time now)
{
    if (c->c_ndue == 0 || c->c_due[0]->t_due > now)
        return NULL;
    fd_task *t = c->c_due[0];
    fd_due_remove(c, t);
    return t;
}

void fd_due_free(fd_core *c)
{
    free(c->c_due);
    c->c_due = NULL;
    c->c_ndue = c->c_due_cap = 0;
}
