/*
 * fd_constraint_wait.c - the bounded wait of soft-constrained tasks
 * (cx_wait_ms): after fd_cx_place, a task placed where it breaks a soft
 * constraint is taken back while it may still wait, so that a later
 * round, with the slots that short work frees meanwhile, can place it
 * where it breaks nothing; once its wait is over it is placed with the
 * break (docs/CONSTRAINTS.md).
 */
#include "fd_constraint_int.h"
#include "flowcore.h"

const char fd_cx_why_held[] =
    "every place with room now breaks a soft constraint: it waits for one "
    "that breaks none, up to cx_wait_ms, then takes the best";

/* Does placed task ti push another task's soft cap over, in its group:
 * a soft constraint that counts ti, with more tasks counted there than
 * its maximum allows a subject task there other than ti? */
static bool over_cap(const fd_cx_state *s, uint32_t ti)
{
    const fd_cx *x = s->st_x;
    const fd_cx_task *t = &x->cx_tasks[ti];
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        int32_t g = c->cc_gid[t->ck_node];
        if (c->cc_weight == 0 || g == FD_CX_NONE || !fd_cx_counted(c, t) ||
            s->st_cnt[ci][g] <= c->cc_max)
            continue;
        uint32_t n0 = s->st_in[0][ci][g], n1 = s->st_in[1][ci][g];
        if (fd_cx_subject(c, t))
            n1--; /* counted by c: not itself */
        if (n0 > 0 || (n1 > 0 && s->st_cnt[ci][g] - 1 > c->cc_max))
            return true;
    }
    return false;
}

/* Does placed task ti break a soft constraint where it is: its own, or
 * another task's cap that it fills? */
static bool breaks_soft(const fd_cx_state *s, uint32_t ti)
{
    const fd_cx *x = s->st_x;
    const fd_cx_task *t = &x->cx_tasks[ti];
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++)
        if (x->cx_cons[ci].cc_weight != 0 &&
            fd_cx_subject(&x->cx_cons[ci], t) &&
            fd_cx_breaks(s, ci, ti, t->ck_node))
            return true;
    return over_cap(s, ti);
}

int fd_cx_hold(fd_cx *x, const uint8_t *may_wait, uint32_t *held,
               uint32_t *broke)
{
    *held = *broke = 0;
    fd_cx_state s = {0};
    int rc = fd_cx_state_init(&s, x);
    if (rc != 0)
        return rc;
    /* Sweeps until nothing changes: taking a task back can leave another
     * short of an affinity it met (at most one sweep per task held). */
    for (bool again = true; again;) {
        again = false;
        for (uint32_t ti = 0; ti < x->cx_ntasks; ti++) {
            fd_cx_task *t = &x->cx_tasks[ti];
            if (t->ck_fixed || t->ck_node == FD_CX_NONE || !may_wait[ti] ||
                !breaks_soft(&s, ti))
                continue;
            fd_cx_move(&s, ti, FD_CX_NONE);
            t->ck_why = fd_cx_why_held;
            (*held)++;
            again = true;
        }
    }
    for (uint32_t ti = 0; ti < x->cx_ntasks; ti++) {
        const fd_cx_task *t = &x->cx_tasks[ti];
        *broke +=
            !t->ck_fixed && t->ck_node != FD_CX_NONE && breaks_soft(&s, ti);
    }
    fd_cx_state_free(&s);
    return 0;
}
