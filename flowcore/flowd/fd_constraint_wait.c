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

#include <stdlib.h>
#include <string.h>

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

/* ---- the probe: could a round place anything now? ------------------- */

/* One kind of task to place: the same job, tags, allowed nodes and wait
 * (tasks alike meet or break the same constraints at every node). */
typedef struct probe_kind {
    uint32_t pk_task; /* one of them */
    uint32_t *pk_own; /* constraints it is the subject of */
    uint32_t pk_nown;
    uint32_t *pk_cnt; /* constraints that count it */
    uint32_t pk_ncnt;
} probe_kind;

static bool same_kind(const fd_cx_task *a, bool may_a, const fd_cx_task *b,
                      bool may_b)
{
    if (a->ck_job != b->ck_job || a->ck_ok != b->ck_ok ||
        a->ck_ntags != b->ck_ntags || may_a != may_b)
        return false;
    for (uint32_t i = 0; i < a->ck_ntags; i++)
        if (a->ck_tags[i] != b->ck_tags[i])
            return false;
    return true;
}

/* Could a task of kind k stay where a round puts it at node n: with the
 * placed (fixed) tasks counted as they are and every other task to place
 * that c counts assumed in n's group (an upper bound), does none of the
 * constraints the round must keep (hard ones; soft ones too if it may
 * wait) surely break, its own (a count over the maximum, or under the
 * minimum even with them all) or another's cap it would fill over
 * (fd_cx_hold's over_cap)? Counts only grow as tasks are placed, so a
 * break seen here is a break in any placement the round can make. */
static bool may_stay(const fd_cx_state *s, const probe_kind *k,
                     const uint32_t *pending, bool may, uint32_t n)
{
    const fd_cx *x = s->st_x;
    const fd_cx_task *t = &x->cx_tasks[k->pk_task];
    for (uint32_t i = 0; i < k->pk_nown; i++) {
        uint32_t ci = k->pk_own[i];
        const fd_cx_con *c = &x->cx_cons[ci];
        if (c->cc_weight != 0 && !may)
            continue;
        int32_t g = c->cc_gid[n];
        uint64_t have = g == FD_CX_NONE ? 0 : s->st_cnt[ci][g];
        uint64_t most =
            g == FD_CX_NONE ? 0 : have + pending[ci] - fd_cx_counted(c, t);
        if (have > c->cc_max || most < c->cc_min)
            return false;
    }
    for (uint32_t i = 0; i < k->pk_ncnt; i++) {
        uint32_t ci = k->pk_cnt[i];
        const fd_cx_con *c = &x->cx_cons[ci];
        int32_t g = c->cc_gid[n];
        if ((c->cc_weight != 0 && !may) || g == FD_CX_NONE)
            continue;
        uint64_t cnt = (uint64_t)s->st_cnt[ci][g] + 1; /* with t */
        if (cnt > c->cc_max &&
            (s->st_in[0][ci][g] > 0 ||
             (s->st_in[1][ci][g] > 0 && cnt - 1 > c->cc_max)))
            return false;
    }
    return true;
}

/* The kinds of x's tasks to place (at most one per task) with the
 * constraints each meets, into kinds; their count. pending[c]: the tasks
 * to place that c counts. Lists in one allocation *lists. */
static int probe_kinds(const fd_cx *x, const uint8_t *may_wait,
                       probe_kind *kinds, uint32_t *nkinds, uint32_t *pending,
                       uint32_t **lists)
{
    uint32_t nk = 0, nc = x->cx_ncons;
    for (uint32_t ti = 0; ti < x->cx_ntasks; ti++) {
        const fd_cx_task *t = &x->cx_tasks[ti];
        if (t->ck_fixed)
            continue;
        for (uint32_t ci = 0; ci < nc; ci++)
            pending[ci] += fd_cx_counted(&x->cx_cons[ci], t);
        uint32_t q = 0;
        while (q < nk && !same_kind(&x->cx_tasks[kinds[q].pk_task],
                                    may_wait[kinds[q].pk_task] != 0, t,
                                    may_wait[ti] != 0))
            q++;
        if (q == nk)
            kinds[nk++].pk_task = ti;
    }
    *nkinds = nk;
    *lists = malloc(((size_t)2 * nk * nc + 1) * sizeof **lists);
    if (*lists == NULL)
        return FC_ENOMEM;
    for (uint32_t q = 0; q < nk; q++) {
        probe_kind *k = &kinds[q];
        const fd_cx_task *t = &x->cx_tasks[k->pk_task];
        k->pk_own = *lists + (size_t)2 * q * nc;
        k->pk_cnt = k->pk_own + nc;
        k->pk_nown = k->pk_ncnt = 0;
        for (uint32_t ci = 0; ci < nc; ci++) {
            if (fd_cx_subject(&x->cx_cons[ci], t))
                k->pk_own[k->pk_nown++] = ci;
            if (fd_cx_counted(&x->cx_cons[ci], t))
                k->pk_cnt[k->pk_ncnt++] = ci;
        }
    }
    return 0;
}

int fd_cx_probe(const fd_cx *x, const uint8_t *may_wait, uint8_t *cand,
                uint32_t *ncand)
{
    *ncand = 0;
    memset(cand, 0, x->cx_nnodes);
    uint32_t nt = x->cx_ntasks, nk = 0, *lists = NULL;
    probe_kind *kinds = malloc((nt ? nt : 1) * sizeof *kinds);
    uint32_t *pending = calloc(x->cx_ncons + 1, sizeof *pending);
    fd_cx_state s = {0};
    int rc = kinds != NULL && pending != NULL ? 0 : FC_ENOMEM;
    if (rc == 0)
        rc = probe_kinds(x, may_wait, kinds, &nk, pending, &lists);
    if (rc == 0)
        rc = fd_cx_state_init(&s, x);
    for (uint32_t n = 0; rc == 0 && n < x->cx_nnodes; n++) {
        if (x->cx_room[n] == 0)
            continue;
        for (uint32_t q = 0; q < nk && !cand[n]; q++) {
            const fd_cx_task *t = &x->cx_tasks[kinds[q].pk_task];
            cand[n] = fd_cx_ok_at(t, n) &&
                      may_stay(&s, &kinds[q], pending,
                               may_wait[kinds[q].pk_task] != 0, n);
        }
        *ncand += cand[n];
    }
    if (s.st_x != NULL)
        fd_cx_state_free(&s);
    free(lists);
    free(pending);
    free(kinds);
    return rc;
}
