/*
 * fd_constraint_spread.c - after the repair pass: spread the placed tasks
 * of each tag over the racks, without raising the objective.
 *
 * Why: the flow network and the repair pass break cost ties towards the
 * first nodes, so the tasks of one tag (say ZooKeeper's) land on one or
 * two racks. An application that comes later with "IN RACK that tag"
 * then finds those racks full. Spreading each tag over the racks is the
 * load-balancing term of MEDEA's objective, kept below every constraint:
 * a task moves only when the move costs nothing (fd_cx_delta <= 0) and
 * its tags are strictly fewer in the rack it goes to, so the sum over
 * (tag, rack) of the count squared falls at every move; at most
 * SPREAD_PASSES sweeps.
 */
#include "fd_constraint_int.h"
#include "flowcore.h"

#include <stdlib.h>

#define SPREAD_TRIES  16 /* costed moves per task and pass */
#define SPREAD_PASSES 4  /* sweeps over the tasks */

typedef struct spread {
    const fd_cx *sp_x;
    uint32_t *sp_cnt;  /* [tag * nracks + rack]: placed tasks with it */
    uint32_t *sp_node; /* [node]: scratch, the task's tags there */
} spread;

static uint32_t *cnt_at(spread *sp, uint32_t tag, int32_t rack)
{
    return &sp->sp_cnt[(size_t)tag * sp->sp_x->cx_nracks + (uint32_t)rack];
}

/* The tags of t counted in rack r (t itself not counted). */
static uint64_t crowd(spread *sp, const fd_cx_task *t, int32_t r)
{
    uint64_t k = 0;
    for (uint32_t i = 0; i < t->ck_ntags; i++)
        k += *cnt_at(sp, t->ck_tags[i], r);
    if (t->ck_node != FD_CX_NONE && sp->sp_x->cx_rack[t->ck_node] == r)
        k -= t->ck_ntags;
    return k;
}

static void count(spread *sp, const fd_cx_task *t, int32_t n, int d)
{
    for (uint32_t i = 0; n != FD_CX_NONE && i < t->ck_ntags; i++)
        *cnt_at(sp, t->ck_tags[i], sp->sp_x->cx_rack[n]) += (uint32_t)d;
}

/* Task ti's spreading move: among the nodes with room in racks where its
 * tags are fewer than in its own, the SPREAD_TRIES best (the least
 * crowded rack first, then the most of its tags on the node: a tag packs
 * within a node as far as the constraints allow, so that a node holds
 * fewer kinds of task and anti-affinities between kinds find more nodes
 * free of the other; then the most free slots, then the first node);
 * the first of them the move to which costs nothing. Returns the node or
 * FD_CX_NONE. O(nodes + tasks * tags of ti) and at most SPREAD_TRIES costed
 * moves. */
static int32_t spread_one(spread *sp, fd_cx_state *s, const uint32_t *used,
                          uint32_t ti)
{
    const fd_cx *x = sp->sp_x;
    const fd_cx_task *t = &x->cx_tasks[ti];
    uint64_t here = crowd(sp, t, x->cx_rack[t->ck_node]);
    struct {
        int32_t n;
        uint64_t k;
        uint32_t same, fr;
    } c[SPREAD_TRIES];
    uint32_t nc = 0;
    for (uint32_t u = 0; u < x->cx_ntasks; u++) {
        const fd_cx_task *tu = &x->cx_tasks[u];
        for (uint32_t i = 0; tu->ck_node != FD_CX_NONE && i < t->ck_ntags; i++)
            sp->sp_node[tu->ck_node] += fd_cx_has_tag(tu, t->ck_tags[i]);
    }
    for (uint32_t n = 0; n < x->cx_nnodes; n++) {
        uint32_t same = sp->sp_node[n];
        sp->sp_node[n] = 0;
        if (used[n] >= x->cx_room[n] || !fd_cx_ok_at(t, n))
            continue;
        uint64_t k = crowd(sp, t, x->cx_rack[n]);
        uint32_t fr = x->cx_room[n] - used[n];
        if (k >= here)
            continue;
        uint32_t at = nc;
        while (at > 0 && (c[at - 1].k > k ||
                          (c[at - 1].k == k &&
                           (c[at - 1].same < same ||
                            (c[at - 1].same == same && c[at - 1].fr < fr)))))
            at--;
        if (at >= SPREAD_TRIES)
            continue;
        if (nc < SPREAD_TRIES)
            nc++;
        for (uint32_t i = nc - 1; i > at; i--)
            c[i] = c[i - 1];
        c[at].n = (int32_t)n;
        c[at].k = k;
        c[at].same = same;
        c[at].fr = fr;
    }
    for (uint32_t i = 0; i < nc && s->st_deltas < FD_CX_MAX_DELTAS; i++)
        if (fd_cx_delta(s, ti, c[i].n) <= 0)
            return c[i].n;
    return FD_CX_NONE;
}

int fd_cx_spread(fd_cx_state *s, uint32_t *used, const uint32_t *order,
                 uint32_t norder, fd_cx_stats *xs)
{
    const fd_cx *x = s->st_x;
    if (x->cx_nracks < 2 || x->cx_ntags == 0)
        return 0;
    spread sp = {x,
                 calloc((size_t)x->cx_ntags * x->cx_nracks, sizeof *sp.sp_cnt),
                 calloc(x->cx_nnodes ? x->cx_nnodes : 1, sizeof *sp.sp_node)};
    if (sp.sp_cnt == NULL || sp.sp_node == NULL) {
        free(sp.sp_cnt);
        free(sp.sp_node);
        return FC_ENOMEM;
    }
    for (uint32_t t = 0; t < x->cx_ntasks; t++)
        count(&sp, &x->cx_tasks[t], x->cx_tasks[t].ck_node, 1);
    bool again = true;
    for (int pass = 0;
         again && pass < SPREAD_PASSES && s->st_deltas < FD_CX_MAX_DELTAS;
         pass++) {
        again = false;
        for (uint32_t i = 0; i < norder; i++) {
            uint32_t ti = order[i];
            fd_cx_task *t = &x->cx_tasks[ti];
            if (t->ck_fixed || t->ck_node == FD_CX_NONE || t->ck_ntags == 0)
                continue;
            int32_t to = spread_one(&sp, s, used, ti);
            if (to == FD_CX_NONE)
                continue;
            count(&sp, t, t->ck_node, -1);
            used[t->ck_node]--;
            fd_cx_move(s, ti, to);
            used[to]++;
            count(&sp, t, to, 1);
            xs->xs_spread++;
            again = true;
        }
    }
    free(sp.sp_cnt);
    free(sp.sp_node);
    return 0;
}
