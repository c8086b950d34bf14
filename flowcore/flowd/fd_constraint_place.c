/*
 * fd_constraint_place.c - placing tasks under placement constraints: the
 * flow network for what it enforces exactly (fd_constraint_flow.c), then
 * a greedy repair pass for the rest, MEDEA's heuristics
 * (fd_constraint.h says which is which).
 */
#include "fd_constraint_int.h"
#include "flowcore.h"

#include <stdlib.h>
#include <string.h>

#define PASSES 6 /* sweeps of the repair pass */

typedef struct rank {
    uint32_t r_task;
    uint32_t r_cons;  /* constraints it is under or counted by */
    uint32_t r_cands; /* nodes with room where it breaks no hard one */
} rank;

static int by_rank(const void *a, const void *b)
{
    const rank *x = a, *y = b;
    if (x->r_cons != y->r_cons)
        return x->r_cons > y->r_cons ? -1 : 1;
    if (x->r_cands != y->r_cands)
        return x->r_cands < y->r_cands ? -1 : 1;
    return x->r_task < y->r_task ? -1 : x->r_task > y->r_task;
}

static void rank_tasks(fd_cx_state *s, const uint32_t *used, rank *rk,
                       uint32_t nrk)
{
    const fd_cx *x = s->st_x;
    for (uint32_t i = 0; i < nrk; i++) {
        uint32_t ti = rk[i].r_task;
        const fd_cx_task *t = &x->cx_tasks[ti];
        rk[i].r_cons = rk[i].r_cands = 0;
        for (uint32_t ci = 0; ci < x->cx_ncons; ci++)
            rk[i].r_cons += fd_cx_subject(&x->cx_cons[ci], t) ||
                            fd_cx_counted(&x->cx_cons[ci], t);
        for (uint32_t n = 0; n < x->cx_nnodes; n++) {
            if ((used[n] >= x->cx_room[n] && t->ck_node != (int32_t)n) ||
                !fd_cx_ok_at(t, n))
                continue;
            bool ok = true;
            for (uint32_t ci = 0; ci < x->cx_ncons && ok; ci++)
                if (x->cx_cons[ci].cc_weight == 0 &&
                    fd_cx_subject(&x->cx_cons[ci], t) &&
                    fd_cx_breaks(s, ci, ti, (int32_t)n))
                    ok = false;
            rk[i].r_cands += ok;
        }
    }
    qsort(rk, nrk, sizeof *rk, by_rank);
}

static void relocate(fd_cx_state *s, uint32_t *used, uint32_t ti, int32_t to)
{
    int32_t from = s->st_x->cx_tasks[ti].ck_node;
    if (from != FD_CX_NONE)
        used[from]--;
    if (to != FD_CX_NONE)
        used[to]++;
    fd_cx_move(s, ti, to);
}

/* A task ti that no single move improves (waiting, or placed in a broken
 * pair): make room for it on a full node n where it breaks no hard
 * constraint, by moving a task u placed there (not fixed) to a node with
 * room or to ti's own node (a swap), when both moves together lower the
 * objective. At most CHAIN_BUDGET pairs of moves are costed. Returns true
 * if it moved them. */
#define CHAIN_BUDGET 20000

static bool make_room(fd_cx_state *s, uint32_t *used, uint32_t ti,
                      fd_cx_stats *xs)
{
    fd_cx *x = (fd_cx *)s->st_x;
    int32_t cur = x->cx_tasks[ti].ck_node;
    int64_t best = 0;
    int32_t bu = -1, bn = FD_CX_NONE, bm = FD_CX_NONE;
    uint32_t budget = CHAIN_BUDGET;
    for (uint32_t n = 0;
         n < x->cx_nnodes && budget > 0 && s->st_deltas < FD_CX_MAX_DELTAS;
         n++) {
        if (used[n] < x->cx_room[n] || x->cx_room[n] == 0 || (int32_t)n == cur)
            continue;
        bool ok = true;
        for (uint32_t ci = 0; ci < x->cx_ncons && ok; ci++)
            if (x->cx_cons[ci].cc_weight == 0 &&
                fd_cx_subject(&x->cx_cons[ci], &x->cx_tasks[ti]) &&
                fd_cx_breaks(s, ci, ti, (int32_t)n))
                ok = false;
        for (uint32_t u = 0; ok && u < x->cx_ntasks && budget > 0; u++) {
            fd_cx_task *uk = &x->cx_tasks[u];
            if (uk->ck_fixed || uk->ck_node != (int32_t)n)
                continue;
            for (uint32_t m = 0; m < x->cx_nnodes && budget > 0; m++) {
                if (m == n || !fd_cx_ok_at(uk, m) ||
                    (used[m] >= x->cx_room[m] && (int32_t)m != cur))
                    continue;
                budget--;
                int64_t d1 = fd_cx_delta(s, u, (int32_t)m);
                if (d1 >= FD_CX_HARD)
                    continue;
                fd_cx_move(s, u, (int32_t)m);
                int64_t d2 = fd_cx_delta(s, ti, (int32_t)n);
                fd_cx_move(s, u, (int32_t)n);
                if (d1 + d2 < best) {
                    best = d1 + d2;
                    bu = (int32_t)u;
                    bn = (int32_t)n;
                    bm = (int32_t)m;
                }
            }
        }
    }
    if (bu < 0)
        return false;
    relocate(s, used, (uint32_t)bu, bm);
    relocate(s, used, ti, bn);
    xs->xs_moved += cur == FD_CX_NONE ? 1 : 2;
    xs->xs_placed_repair += cur == FD_CX_NONE;
    return true;
}

/* MEDEA's repair: most constrained tasks first, fewest candidates first;
 * each task that is waiting or part of a broken pair goes where the
 * objective falls most. Then no placed task may keep a hard pair broken. */
static int repair(fd_cx_state *s, fd_cx_stats *xs)
{
    fd_cx *x = (fd_cx *)s->st_x;
    uint32_t *used = calloc(x->cx_nnodes ? x->cx_nnodes : 1, sizeof *used);
    rank *rk = malloc((x->cx_ntasks ? x->cx_ntasks : 1) * sizeof *rk);
    if (used == NULL || rk == NULL) {
        free(used);
        free(rk);
        return FC_ENOMEM;
    }
    uint32_t nrk = 0;
    for (uint32_t t = 0; t < x->cx_ntasks; t++) {
        if (x->cx_tasks[t].ck_fixed)
            continue;
        rk[nrk++].r_task = t;
        if (x->cx_tasks[t].ck_node != FD_CX_NONE)
            used[x->cx_tasks[t].ck_node]++;
    }
    /* Single moves first, sweep after sweep; pairs of moves (make_room,
     * up to CHAIN_BUDGET costed a task) only in a sweep after one where
     * no single move helped: they would otherwise spend the round's bound
     * while single moves still do, and a round cut short sends what it
     * has (a constraint broken where a cheap move would have mended it). */
    bool chains = false;
    for (int pass = 0; pass < PASSES; pass++) {
        rank_tasks(s, used, rk, nrk);
        uint32_t changed = 0;
        for (uint32_t i = 0; i < nrk; i++) {
            uint32_t ti = rk[i].r_task;
            int32_t cur = x->cx_tasks[ti].ck_node;
            if (cur != FD_CX_NONE && fd_cx_local(s, ti) == 0)
                continue;
            if (s->st_deltas >= FD_CX_MAX_DELTAS) {
                xs->xs_cut = true; /* the round's budget is spent */
                break;
            }
            int64_t best = 0;
            int32_t to = cur;
            for (uint32_t n = 0; n < x->cx_nnodes; n++) {
                if ((int32_t)n == cur || used[n] >= x->cx_room[n] ||
                    !fd_cx_ok_at(&x->cx_tasks[ti], n))
                    continue;
                int64_t d = fd_cx_delta(s, ti, (int32_t)n);
                if (d < best) {
                    best = d;
                    to = (int32_t)n;
                }
            }
            if (cur != FD_CX_NONE && fd_cx_delta(s, ti, FD_CX_NONE) < best)
                to = FD_CX_NONE;
            if (to == cur) {
                if (chains && make_room(s, used, ti, xs))
                    changed++;
                continue;
            }
            if (cur == FD_CX_NONE)
                xs->xs_placed_repair++;
            else
                xs->xs_moved++;
            relocate(s, used, ti, to);
            changed++;
        }
        if (changed == 0 && chains)
            break;
        chains = changed == 0;
    }
    /* Spread each tag over the racks, at no cost (in rank order). */
    uint32_t *order = malloc((nrk ? nrk : 1) * sizeof *order);
    int rc = order == NULL ? FC_ENOMEM : 0;
    for (uint32_t i = 0; rc == 0 && i < nrk; i++)
        order[i] = rk[i].r_task;
    if (rc == 0)
        rc = fd_cx_spread(s, used, order, nrk, xs);
    free(order);
    /* Whatever a pass limit left: a task that keeps a hard pair broken
     * waits (unplacing it lowers the objective by more than waiting
     * costs only if it removes a hard pair). */
    for (bool again = true; again;) {
        again = false;
        for (uint32_t i = 0; i < nrk; i++) {
            uint32_t ti = rk[i].r_task;
            if (x->cx_tasks[ti].ck_node != FD_CX_NONE &&
                fd_cx_delta(s, ti, FD_CX_NONE) < 0) {
                relocate(s, used, ti, FD_CX_NONE);
                xs->xs_moved++;
                again = true;
            }
        }
    }
    bool room = false;
    for (uint32_t n = 0; n < x->cx_nnodes; n++)
        room = room || used[n] < x->cx_room[n];
    for (uint32_t i = 0; i < nrk; i++) {
        fd_cx_task *t = &x->cx_tasks[rk[i].r_task];
        if (t->ck_node != FD_CX_NONE)
            continue;
        xs->xs_unplaced++;
        t->ck_why = xs->xs_cut ? fd_cx_why_cut
                    : room     ? fd_cx_why_hard
                               : fd_cx_why_room;
    }
    free(used);
    free(rk);
    return rc;
}

const char fd_cx_why_cut[] = "the round's work bound was spent before it "
                             "was placed: tried again next round";
const char fd_cx_why_hard[] =
    "no node with room meets its hard placement constraints";
const char fd_cx_why_room[] = "no node has room";

int fd_cx_place(fd_cx *x, fd_cx_stats *stats)
{
    fd_cx_stats xs = {0};
    for (uint32_t t = 0; t < x->cx_ntasks; t++) {
        fd_cx_task *tk = &x->cx_tasks[t];
        tk->ck_why = NULL;
        if (!tk->ck_fixed)
            tk->ck_node = FD_CX_NONE;
    }
    fd_cx_state s = {0};
    int rc = fd_cx_state_init(&s, x);
    if (rc == 0)
        rc = fd_cx_flow_stage(x, &s, &xs);
    if (rc == 0)
        rc = repair(&s, &xs);
    fd_cx_state_free(&s);
    if (stats != NULL)
        *stats = xs;
    return rc;
}
