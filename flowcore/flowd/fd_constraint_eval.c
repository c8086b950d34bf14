/*
 * fd_constraint_eval.c - scoring a placement against placement
 * constraints, and the counts behind it kept up to date move by move
 * (what the repair pass asks: what would moving this task cost).
 */
#include "fd_constraint_int.h"
#include "flowcore.h"

#include <stdlib.h>
#include <string.h>

bool fd_cx_has_tag(const fd_cx_task *t, uint32_t tag)
{
    for (uint32_t i = 0; i < t->ck_ntags; i++)
        if (t->ck_tags[i] == tag)
            return true;
    return false;
}

bool fd_cx_counted(const fd_cx_con *c, const fd_cx_task *t)
{
    return (c->cc_all || t->ck_job == c->cc_job) &&
           fd_cx_has_tag(t, c->cc_target);
}

bool fd_cx_subject(const fd_cx_con *c, const fd_cx_task *t)
{
    return t->ck_job == c->cc_job && fd_cx_has_tag(t, c->cc_source);
}

void fd_cx_state_free(fd_cx_state *s)
{
    for (uint32_t c = 0; s->st_x != NULL && c < s->st_x->cx_ncons; c++) {
        if (s->st_cnt != NULL)
            free(s->st_cnt[c]);
        if (s->st_subj != NULL)
            free(s->st_subj[c]);
        for (int k = 0; k < 2; k++)
            if (s->st_in[k] != NULL)
                free(s->st_in[k][c]);
    }
    free(s->st_cnt);
    free(s->st_subj);
    free(s->st_nsubj);
    free(s->st_in[0]);
    free(s->st_in[1]);
    s->st_cnt = s->st_subj = s->st_in[0] = s->st_in[1] = NULL;
    s->st_nsubj = NULL;
}

int fd_cx_state_init(fd_cx_state *s, const fd_cx *x)
{
    s->st_x = x;
    uint32_t nc = x->cx_ncons;
    s->st_cnt = calloc(nc ? nc : 1, sizeof *s->st_cnt);
    s->st_subj = calloc(nc ? nc : 1, sizeof *s->st_subj);
    s->st_nsubj = calloc(nc ? nc : 1, sizeof *s->st_nsubj);
    s->st_in[0] = calloc(nc ? nc : 1, sizeof *s->st_in[0]);
    s->st_in[1] = calloc(nc ? nc : 1, sizeof *s->st_in[1]);
    if (s->st_cnt == NULL || s->st_subj == NULL || s->st_nsubj == NULL ||
        s->st_in[0] == NULL || s->st_in[1] == NULL)
        goto nomem;
    for (uint32_t c = 0; c < nc; c++) {
        const fd_cx_con *k = &x->cx_cons[c];
        s->st_cnt[c] =
            calloc(k->cc_ngroups ? k->cc_ngroups : 1, sizeof **s->st_cnt);
        s->st_subj[c] =
            malloc((x->cx_ntasks ? x->cx_ntasks : 1) * sizeof **s->st_subj);
        for (int q = 0; q < 2; q++)
            s->st_in[q][c] =
                calloc(k->cc_ngroups ? k->cc_ngroups : 1, sizeof **s->st_in[q]);
        if (s->st_cnt[c] == NULL || s->st_subj[c] == NULL ||
            s->st_in[0][c] == NULL || s->st_in[1][c] == NULL)
            goto nomem;
        for (uint32_t t = 0; t < x->cx_ntasks; t++) {
            const fd_cx_task *tk = &x->cx_tasks[t];
            if (fd_cx_subject(k, tk))
                s->st_subj[c][s->st_nsubj[c]++] = t;
            if (fd_cx_subject(k, tk) && tk->ck_node != FD_CX_NONE &&
                k->cc_gid[tk->ck_node] != FD_CX_NONE)
                s->st_in[fd_cx_counted(k, tk)][c][k->cc_gid[tk->ck_node]]++;
            if (tk->ck_node != FD_CX_NONE && fd_cx_counted(k, tk)) {
                int32_t g = k->cc_gid[tk->ck_node];
                if (g != FD_CX_NONE)
                    s->st_cnt[c][g]++;
            }
        }
    }
    return 0;
nomem:
    fd_cx_state_free(s);
    return FC_ENOMEM;
}

static bool out_of(const fd_cx_con *c, uint64_t have)
{
    return have < c->cc_min || have > c->cc_max;
}

bool fd_cx_breaks(const fd_cx_state *s, uint32_t ci, uint32_t ti, int32_t n)
{
    const fd_cx_con *c = &s->st_x->cx_cons[ci];
    const fd_cx_task *t = &s->st_x->cx_tasks[ti];
    int32_t g = c->cc_gid[n];
    uint32_t have = 0;
    if (g != FD_CX_NONE) {
        have = s->st_cnt[ci][g];
        if (t->ck_node == n && fd_cx_counted(c, t))
            have--; /* not itself */
    }
    return out_of(c, have);
}

static int64_t pair_cost(const fd_cx_con *c)
{
    return c->cc_weight == 0 ? FD_CX_HARD : (int64_t)c->cc_weight;
}

/* The pairs of c's subject tasks placed in group g that are broken now,
 * but for task ti's own (counts per group: those not counted by c see
 * the group's count, those counted one less). */
static uint64_t broken_in(const fd_cx_state *s, uint32_t ci, int32_t g,
                          const fd_cx_task *t)
{
    const fd_cx_con *c = &s->st_x->cx_cons[ci];
    uint64_t n0 = s->st_in[0][ci][g], n1 = s->st_in[1][ci][g];
    if (t->ck_node != FD_CX_NONE && c->cc_gid[t->ck_node] == g &&
        fd_cx_subject(c, t)) {
        if (fd_cx_counted(c, t))
            n1--;
        else
            n0--;
    }
    uint64_t have = s->st_cnt[ci][g];
    return (out_of(c, have) ? n0 : 0) +
           (n1 > 0 && out_of(c, have - 1) ? n1 : 0);
}

/* What the pairs a move of ti between nodes a and b can change cost now:
 * ti's own, and those of subject tasks in the groups of a and b of the
 * constraints that count ti. O(constraints): per group, the subjects
 * there are counted, not listed. */
static int64_t local_cost(const fd_cx_state *s, uint32_t ti, int32_t a,
                          int32_t b)
{
    const fd_cx *x = s->st_x;
    const fd_cx_task *t = &x->cx_tasks[ti];
    int64_t cost = t->ck_node == FD_CX_NONE ? FD_CX_UNPLACED : 0;
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        if (t->ck_node != FD_CX_NONE && fd_cx_subject(c, t) &&
            fd_cx_breaks(s, ci, ti, t->ck_node))
            cost += pair_cost(c);
        if (!fd_cx_counted(c, t))
            continue;
        int32_t ga = a != FD_CX_NONE ? c->cc_gid[a] : FD_CX_NONE;
        int32_t gb = b != FD_CX_NONE ? c->cc_gid[b] : FD_CX_NONE;
        if (ga != FD_CX_NONE)
            cost += (int64_t)broken_in(s, ci, ga, t) * pair_cost(c);
        if (gb != FD_CX_NONE && gb != ga)
            cost += (int64_t)broken_in(s, ci, gb, t) * pair_cost(c);
    }
    return cost;
}

int64_t fd_cx_local(const fd_cx_state *s, uint32_t ti)
{
    int32_t n = s->st_x->cx_tasks[ti].ck_node;
    return local_cost(s, ti, n, n);
}

void fd_cx_move(fd_cx_state *s, uint32_t ti, int32_t to)
{
    const fd_cx *x = s->st_x;
    fd_cx_task *t = &x->cx_tasks[ti];
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        bool counted = fd_cx_counted(c, t);
        uint32_t *in = fd_cx_subject(c, t) ? s->st_in[counted][ci] : NULL;
        int32_t gf =
            t->ck_node != FD_CX_NONE ? c->cc_gid[t->ck_node] : FD_CX_NONE;
        int32_t gt = to != FD_CX_NONE ? c->cc_gid[to] : FD_CX_NONE;
        if (gf != FD_CX_NONE && counted)
            s->st_cnt[ci][gf]--;
        if (gt != FD_CX_NONE && counted)
            s->st_cnt[ci][gt]++;
        if (gf != FD_CX_NONE && in != NULL)
            in[gf]--;
        if (gt != FD_CX_NONE && in != NULL)
            in[gt]++;
    }
    t->ck_node = to;
}

int64_t fd_cx_delta(fd_cx_state *s, uint32_t ti, int32_t to)
{
    int32_t from = s->st_x->cx_tasks[ti].ck_node;
    if (from == to)
        return 0;
    s->st_deltas++;
    int64_t before = local_cost(s, ti, from, to);
    fd_cx_move(s, ti, to);
    int64_t after = local_cost(s, ti, from, to);
    fd_cx_move(s, ti, from);
    return after - before;
}

int fd_cx_eval(const fd_cx *x, fd_cx_score *out)
{
    return fd_cx_eval_each(x, out, NULL);
}

int fd_cx_eval_each(const fd_cx *x, fd_cx_score *out, uint32_t *broken)
{
    fd_cx_state s = {0};
    int rc = fd_cx_state_init(&s, x);
    if (rc != 0)
        return rc;
    fd_cx_score sc = {0};
    if (broken != NULL)
        memset(broken, 0, x->cx_ncons * sizeof *broken);
    for (uint32_t t = 0; t < x->cx_ntasks; t++)
        if (!x->cx_tasks[t].ck_fixed && x->cx_tasks[t].ck_node == FD_CX_NONE)
            sc.cs_unplaced++;
    for (uint32_t ci = 0; ci < x->cx_ncons; ci++) {
        const fd_cx_con *c = &x->cx_cons[ci];
        for (uint32_t k = 0; k < s.st_nsubj[ci]; k++) {
            uint32_t ti = s.st_subj[ci][k];
            int32_t n = x->cx_tasks[ti].ck_node;
            if (n == FD_CX_NONE)
                continue;
            sc.cs_checked++;
            if (!fd_cx_breaks(&s, ci, ti, n))
                continue;
            if (broken != NULL)
                broken[ci]++;
            if (c->cc_weight == 0) {
                sc.cs_hard++;
            } else {
                sc.cs_soft++;
                sc.cs_soft_weight += c->cc_weight;
            }
        }
    }
    sc.cs_objective = FD_CX_UNPLACED * sc.cs_unplaced + sc.cs_soft_weight;
    fd_cx_state_free(&s);
    *out = sc;
    return 0;
}
