/*
 * fd_constraint_core.c - placement constraints in the flow node's round:
 * the tags and constraints a job brought (SUBMIT_JOB ts_tags and
 * sj_constraints), and after each solve the placement of the waiting
 * tasks of constrained jobs on the room the main network left
 * (fd_cx_place: exact gates in a flow network, then repair), before any
 * of their RESERVEs goes out.
 *
 * The main network still carries these tasks (its policies know nothing
 * of tags); the round ignores what it says for them and places them
 * here, so the slots it meant for them stay free until the next round.
 */
#include "fd_constraint_int.h"
#include "fd_int.h"
#include "flowcore.h"
#include "sk_constraint.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fd_cons {
    sk_constraint *cj_cons; /* copies, strings in cj_blob */
    uint32_t cj_ncons;
    const char ***cj_tags; /* [task]: its tags */
    uint32_t *cj_ntags;
    const char **cj_why;    /* [task]: why it waits (static), or NULL */
    fd_cons_count cj_count; /* after the last round that placed */
    uint32_t cj_ntasks;
    char *cj_blob;
};

static char *put(char **at, const char *s)
{
    size_t n = strlen(s != NULL ? s : "") + 1;
    char *d = *at;
    memcpy(d, s != NULL ? s : "", n);
    *at += n;
    return d;
}

void fd_cons_free(fd_cons *cj)
{
    if (cj == NULL)
        return;
    free(cj->cj_cons);
    free(cj->cj_tags);
    free(cj->cj_ntags);
    free(cj->cj_why);
    free(cj->cj_blob);
    free(cj);
}

int fd_cons_new(const sk_submit_job *sj, fd_cons **out)
{
    *out = NULL;
    size_t bytes = 0, ptrs = 0;
    for (uint32_t i = 0; i < sj->sj_nconstraints; i++) {
        const sk_constraint *k = &sj->sj_constraints[i];
        bytes += strlen(k->cn_source) + strlen(k->cn_target) +
                 strlen(k->cn_label != NULL ? k->cn_label : "") + 3;
    }
    for (uint32_t t = 0; t < sj->sj_ntasks; t++) {
        ptrs += sj->sj_tasks[t].ts_ntags;
        for (uint32_t i = 0; i < sj->sj_tasks[t].ts_ntags; i++)
            bytes += strlen(sj->sj_tasks[t].ts_tags[i]) + 1;
    }
    if (sj->sj_nconstraints == 0 && ptrs == 0)
        return 0;
    fd_cons *cj = calloc(1, sizeof *cj);
    if (cj == NULL)
        return SK_ENOMEM;
    uint32_t nt = sj->sj_ntasks;
    cj->cj_cons = calloc(sj->sj_nconstraints + 1, sizeof *cj->cj_cons);
    cj->cj_tags = calloc(nt, sizeof *cj->cj_tags);
    cj->cj_ntags = calloc(nt, sizeof *cj->cj_ntags);
    cj->cj_why = calloc(nt, sizeof *cj->cj_why);
    cj->cj_blob = malloc(ptrs * sizeof(const char *) + bytes + 1);
    if (cj->cj_cons == NULL || cj->cj_tags == NULL || cj->cj_ntags == NULL ||
        cj->cj_why == NULL || cj->cj_blob == NULL) {
        fd_cons_free(cj);
        return SK_ENOMEM;
    }
    const char **pv = (const char **)(void *)cj->cj_blob;
    char *at = cj->cj_blob + ptrs * sizeof(const char *);
    cj->cj_ncons = sj->sj_nconstraints;
    cj->cj_count.cc_ncons = sj->sj_nconstraints;
    cj->cj_ntasks = nt;
    for (uint32_t i = 0; i < sj->sj_nconstraints; i++) {
        sk_constraint *k = &cj->cj_cons[i];
        *k = sj->sj_constraints[i];
        k->cn_source = put(&at, k->cn_source);
        k->cn_target = put(&at, k->cn_target);
        k->cn_label = put(&at, k->cn_label);
    }
    for (uint32_t t = 0; t < nt; t++) {
        cj->cj_tags[t] = pv;
        cj->cj_ntags[t] = sj->sj_tasks[t].ts_ntags;
        for (uint32_t i = 0; i < sj->sj_tasks[t].ts_ntags; i++)
            *pv++ = put(&at, sj->sj_tasks[t].ts_tags[i]);
    }
    *out = cj;
    return 0;
}

bool fd_cons_active(const fd_job *j)
{
    return j->j_cons != NULL && j->j_cons->cj_ncons > 0;
}

const char *fd_constraint_why(const fd_core *c, sk_peer sched, uint64_t job,
                              uint32_t task)
{
    fd_sched *s = fd_sched_by_peer(c, sched);
    fd_job *j = s != NULL ? fd_job_find(s, job) : NULL;
    if (j == NULL || j->j_cons == NULL || task >= j->j_cons->cj_ntasks ||
        j->j_tasks[task].t_state != FD_TASK_WAITING)
        return NULL;
    return j->j_cons->cj_why[task];
}

const fd_cons_count *fd_cons_counts(const fd_job *j)
{
    return fd_cons_active(j) ? &j->j_cons->cj_count : NULL;
}

int fd_constraint_count(const fd_core *c, sk_peer sched, uint64_t job,
                        fd_cons_count *out)
{
    fd_sched *s = fd_sched_by_peer(c, sched);
    fd_job *j = s != NULL ? fd_job_find(s, job) : NULL;
    const fd_cons_count *k = j != NULL ? fd_cons_counts(j) : NULL;
    if (k == NULL)
        return SK_ENOTFOUND;
    *out = *k;
    return 0;
}

int fd_constraint_net_task(const fd_core *c, fd_net *net, const fd_task *t)
{
    (void)c;
    if (t->t_state != FD_TASK_WAITING || !fd_cons_active(t->t_job))
        return 0;
    fd_gent *e = fd_net_find(net, FD_G_TASK, t->t_slot);
    if (e == NULL)
        return 0;
    fc_graph *g = net->nt_g;
    for (int32_t i = 0; i < fc_node_degree(g, e->e_node); i++) {
        bool out;
        fc_arc a = fc_node_arc(g, e->e_node, i, &out);
        if (out && a != e->e_arc[0] && fc_arc_capacity(g, a) != 0) {
            int rc = fc_arc_set_capacity(g, a, 0);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* ---- one round's instance ------------------------------------------- */

typedef struct inst {
    fd_cx x;
    fd_node **nodes;  /* [node] */
    int32_t *node_of; /* [node slot]: index, or -1 */
    uint32_t *room;
    int32_t *rack;   /* [node]: compact rack index */
    int32_t *ident;  /* [node]: n (the node groups) */
    fd_task **tasks; /* [task] */
    fd_cx_task *ct;
    uint32_t *tagids;  /* every task's tag ids, back to back */
    const char **tags; /* [tag id] */
    uint32_t ntags, tags_cap;
    fd_cx_con *cons;
    uint32_t ncons;
    fd_job **con_job;    /* [constraint]: whose */
    uint32_t *broken;    /* [constraint]: tasks breaking it */
    int32_t **label_gid; /* per constraint with a label group */
    uint8_t **ok;        /* [job slot]: the nodes its labels allow */
    uint32_t nok;
    bool nomem;
} inst;

static uint32_t tag_id(inst *in, const char *tag)
{
    for (uint32_t i = 0; i < in->ntags; i++)
        if (strcmp(in->tags[i], tag) == 0)
            return i;
    if (in->ntags == in->tags_cap) {
        uint32_t cap = in->tags_cap ? in->tags_cap * 2 : 16;
        const char **nt = realloc(in->tags, cap * sizeof *nt);
        if (nt == NULL) {
            in->nomem = true;
            return 0;
        }
        in->tags = nt;
        in->tags_cap = cap;
    }
    in->tags[in->ntags] = tag;
    return in->ntags++;
}

/* The groups of "KEY=VALUE" labels: one per VALUE, nodes without none. */
static int32_t *label_groups(inst *in, const char *key, uint32_t *ngroups)
{
    uint32_t nn = in->x.cx_nnodes;
    int32_t *gid = malloc((nn ? nn : 1) * sizeof *gid);
    const char **vals = calloc(nn ? nn : 1, sizeof *vals);
    size_t kl = strlen(key);
    *ngroups = 0;
    if (gid == NULL || vals == NULL) {
        free(gid);
        free(vals);
        in->nomem = true;
        return NULL;
    }
    for (uint32_t n = 0; n < nn; n++) {
        const fd_node *nd = in->nodes[n];
        gid[n] = FD_CX_NONE;
        for (uint32_t l = 0; l < nd->n_nlabels && gid[n] == FD_CX_NONE; l++) {
            const char *lab = nd->n_labels[l];
            if (strncmp(lab, key, kl) != 0 || lab[kl] != '=')
                continue;
            uint32_t g = 0;
            while (g < *ngroups && strcmp(vals[g], lab + kl + 1) != 0)
                g++;
            if (g == *ngroups)
                vals[(*ngroups)++] = lab + kl + 1;
            gid[n] = (int32_t)g;
        }
    }
    free(vals);
    return gid;
}

static void inst_free(inst *in)
{
    for (uint32_t i = 0; in->label_gid != NULL && i < in->ncons; i++)
        free(in->label_gid[i]);
    for (uint32_t i = 0; in->ok != NULL && i < in->nok; i++)
        free(in->ok[i]);
    free(in->label_gid);
    free(in->ok);
    free(in->nodes);
    free(in->node_of);
    free(in->room);
    free(in->rack);
    free(in->ident);
    free(in->tasks);
    free(in->ct);
    free(in->tagids);
    free(in->tags);
    free(in->cons);
    free(in->con_job);
    free(in->broken);
}

/* Nodes: the live ones, their room for long tasks left after this
 * round's RESERVEs, their racks. */
static int build_nodes(const fd_core *c, inst *in)
{
    uint32_t cap = c->c_nodes.sl_len;
    in->nodes = malloc((cap ? cap : 1) * sizeof *in->nodes);
    in->node_of = malloc((cap ? cap : 1) * sizeof *in->node_of);
    in->room = malloc((cap ? cap : 1) * sizeof *in->room);
    in->rack = malloc((cap ? cap : 1) * sizeof *in->rack);
    in->ident = malloc((cap ? cap : 1) * sizeof *in->ident);
    int32_t *rack_of = malloc((c->c_racks.sl_len + 1) * sizeof *rack_of);
    if (in->nodes == NULL || in->node_of == NULL || in->room == NULL ||
        in->rack == NULL || in->ident == NULL || rack_of == NULL) {
        free(rack_of);
        return SK_ENOMEM;
    }
    for (uint32_t r = 0; r <= c->c_racks.sl_len; r++)
        rack_of[r] = -1;
    uint32_t nn = 0, nr = 0;
    for (uint32_t i = 0; i < cap; i++) {
        fd_node *n = fd_slots_get(&c->c_nodes, i);
        in->node_of[i] = -1;
        if (n == NULL || n->n_dead)
            continue;
        uint32_t room = fd_node_room(n);
        uint32_t rs = n->n_rack != NULL ? n->n_rack->r_slot : c->c_racks.sl_len;
        if (rack_of[rs] < 0)
            rack_of[rs] = (int32_t)nr++;
        in->node_of[i] = (int32_t)nn;
        in->nodes[nn] = n;
        /* A node back from a loss takes nothing before its heartbeat. */
        in->room[nn] =
            room > n->n_ntasks && !n->n_returning ? room - n->n_ntasks : 0;
        in->rack[nn] = rack_of[rs];
        in->ident[nn] = (int32_t)nn;
        nn++;
    }
    free(rack_of);
    in->x.cx_nnodes = nn;
    in->x.cx_nracks = nr;
    in->x.cx_room = in->room;
    in->x.cx_rack = in->rack;
    return 0;
}

/* Tasks of jobs with tags: waiting ones of constrained jobs to place,
 * the placed ones fixed where they are; and the jobs' constraints. */
static int build_tasks(const fd_core *c, inst *in)
{
    uint32_t nt = 0, ntag = 0, ncons = 0;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j == NULL || j->j_dead || j->j_cons == NULL)
            continue;
        nt += j->j_ntasks;
        ncons += j->j_cons->cj_ncons;
        for (uint32_t t = 0; t < j->j_ntasks; t++)
            ntag += j->j_cons->cj_ntags[t];
    }
    in->tasks = malloc((nt ? nt : 1) * sizeof *in->tasks);
    in->ct = calloc(nt ? nt : 1, sizeof *in->ct);
    in->tagids = malloc((ntag ? ntag : 1) * sizeof *in->tagids);
    in->cons = calloc(ncons ? ncons : 1, sizeof *in->cons);
    in->con_job = calloc(ncons ? ncons : 1, sizeof *in->con_job);
    in->broken = calloc(ncons ? ncons : 1, sizeof *in->broken);
    in->label_gid = calloc(ncons ? ncons : 1, sizeof *in->label_gid);
    in->ok = calloc(c->c_jobs.sl_len + 1, sizeof *in->ok);
    in->nok = c->c_jobs.sl_len;
    if (in->tasks == NULL || in->ct == NULL || in->tagids == NULL ||
        in->cons == NULL || in->label_gid == NULL || in->ok == NULL ||
        in->con_job == NULL || in->broken == NULL)
        return SK_ENOMEM;
    uint32_t k = 0, tg = 0, nn = in->x.cx_nnodes;
    for (uint32_t i = 0; i < c->c_jobs.sl_len; i++) {
        fd_job *j = fd_slots_get(&c->c_jobs, i);
        if (j == NULL || j->j_dead || j->j_cons == NULL)
            continue;
        const fd_cons *cj = j->j_cons;
        if (j->j_class != NULL && j->j_class->k_nlabels > 0) {
            if ((in->ok[i] = malloc(nn ? nn : 1)) == NULL)
                return SK_ENOMEM;
            for (uint32_t n = 0; n < nn; n++)
                in->ok[i][n] = fd_class_fits_labels(j->j_class, in->nodes[n]);
        }
        for (uint32_t t = 0; t < j->j_ntasks; t++) {
            fd_task *tk = &j->j_tasks[t];
            bool waiting = tk->t_state == FD_TASK_WAITING && fd_cons_active(j);
            bool placed =
                tk->t_state != FD_TASK_DEAD && tk->t_state != FD_TASK_WAITING &&
                tk->t_node != NULL && in->node_of[tk->t_node->n_slot] >= 0;
            if (!waiting && !placed)
                continue;
            fd_cx_task *ck = &in->ct[k];
            ck->ck_job = j->j_slot;
            ck->ck_tags = &in->tagids[tg];
            for (uint32_t g = 0; g < cj->cj_ntags[t]; g++)
                in->tagids[tg++] = tag_id(in, cj->cj_tags[t][g]);
            ck->ck_ntags = cj->cj_ntags[t];
            ck->ck_fixed = placed;
            ck->ck_node = placed ? in->node_of[tk->t_node->n_slot] : FD_CX_NONE;
            ck->ck_ok = in->ok[i];
            in->tasks[k++] = tk;
        }
        for (uint32_t q = 0; q < cj->cj_ncons; q++) {
            const sk_constraint *sc = &cj->cj_cons[q];
            fd_cx_con *cc = &in->cons[in->ncons];
            in->con_job[in->ncons] = j;
            cc->cc_job = j->j_slot;
            cc->cc_source = tag_id(in, sc->cn_source);
            cc->cc_target = tag_id(in, sc->cn_target);
            cc->cc_all = sc->cn_all;
            cc->cc_min = sc->cn_min;
            cc->cc_max = sc->cn_max;
            cc->cc_weight = sc->cn_weight;
            cc->cc_group = sc->cn_group;
            if (sc->cn_group == SK_GROUP_NODE) {
                cc->cc_gid = in->ident;
                cc->cc_ngroups = nn;
            } else if (sc->cn_group == SK_GROUP_RACK) {
                cc->cc_gid = in->rack;
                cc->cc_ngroups = in->x.cx_nracks;
            } else {
                in->label_gid[in->ncons] =
                    label_groups(in, sc->cn_label, &cc->cc_ngroups);
                cc->cc_gid = in->label_gid[in->ncons];
            }
            in->ncons++;
        }
    }
    in->x.cx_tasks = in->ct;
    in->x.cx_ntasks = k;
    in->x.cx_cons = in->cons;
    in->x.cx_ncons = in->ncons;
    in->x.cx_ntags = in->ntags;
    return in->nomem ? SK_ENOMEM : 0;
}

/* Bounds the round's work: when the tasks to place times the nodes with
 * room exceed FD_CX_MAX_ARCS, only some nodes keep their room: those in
 * racks that hold a task of a tagged job (where affinities point; at most
 * half the budget), then a window of the others that moves on by its
 * width each round, until the budget is spent and the room kept is at
 * least twice the tasks to place. With cand (the probe's nodes, not
 * NULL), only nodes with cand set are kept: the others can take none of
 * the tasks. Returns whether it bounded. */
static bool bound_nodes(fd_core *c, inst *in, const uint8_t *cand)
{
    uint32_t nn = in->x.cx_nnodes, todo = 0, with_room = 0;
    for (uint32_t i = 0; i < in->x.cx_ntasks; i++)
        todo += !in->ct[i].ck_fixed;
    for (uint32_t n = 0; n < nn; n++)
        with_room += in->room[n] > 0;
    if (todo == 0 || (uint64_t)todo * with_room <= FD_CX_MAX_ARCS)
        return false;
    uint32_t budget = FD_CX_MAX_ARCS / todo;
    uint8_t *keep = calloc(nn ? nn : 1, 1),
            *hot = calloc(in->x.cx_nracks + 1, 1);
    if (keep == NULL || hot == NULL) {
        free(keep);
        free(hot);
        return false; /* unbounded this round rather than not at all */
    }
    for (uint32_t i = 0; i < in->x.cx_ntasks; i++)
        if (in->ct[i].ck_fixed)
            hot[in->rack[in->ct[i].ck_node]] = 1;
    uint32_t kept = 0;
    uint64_t room = 0;
    for (uint32_t n = 0; n < nn && kept < budget / 2; n++)
        if (in->room[n] > 0 && hot[in->rack[n]] && (cand == NULL || cand[n])) {
            keep[n] = 1;
            kept++;
            room += in->room[n];
        }
    uint32_t start = c->c_cx_window % nn, n = start;
    do {
        if (in->room[n] > 0 && !keep[n] && (cand == NULL || cand[n]) &&
            (kept < budget || room < 2 * (uint64_t)todo)) {
            keep[n] = 1;
            kept++;
            room += in->room[n];
        }
        n = (n + 1) % nn;
    } while (n != start && (kept < budget || room < 2 * (uint64_t)todo));
    c->c_cx_swept += n == start ? nn : (n + nn - start) % nn;
    c->c_cx_window = n;
    for (uint32_t m = 0; m < nn; m++)
        if (!keep[m])
            in->room[m] = 0;
    c->c_st.fs_cx_bounded++;
    free(keep);
    free(hot);
    return true;
}

/* Per job and per constraint, from the instance's counts (a job's
 * constraints are consecutive, in its order). */
static void count_per_job(inst *in)
{
    fd_job *prev = NULL;
    uint32_t q = 0;
    for (uint32_t i = 0; i < in->ncons; i++) {
        fd_job *j = in->con_job[i];
        fd_cons_count *cc = &j->j_cons->cj_count;
        if (j != prev) {
            uint32_t n = cc->cc_ncons;
            memset(cc, 0, sizeof *cc);
            cc->cc_ncons = n;
            prev = j;
            q = 0;
        }
        cc->cc_broken[q++] = in->broken[i];
        if (in->cons[i].cc_weight == 0) {
            cc->cc_hard += in->broken[i];
        } else {
            cc->cc_soft += in->broken[i];
            cc->cc_weight += (uint64_t)in->broken[i] * in->cons[i].cc_weight;
        }
    }
}

/* Does a task of a constrained job wait; *untried: one that no round
 * has tried since it began to wait (no reason yet), or whose round's
 * work bound was spent before it. */
static bool any_waiting(const fd_core *c, bool *untried)
{
    bool any = false;
    *untried = false;
    for (const fd_link *l = c->c_waiting.l_next; l != &c->c_waiting;
         l = l->l_next) {
        const fd_task *t = FD_CONTAINER(l, fd_task, t_wait_link);
        if (!fd_cons_active(t->t_job))
            continue;
        const char *why = t->t_job->j_cons->cj_why[t->t_index];
        any = true;
        if (why == NULL || why == fd_cx_why_cut) {
            *untried = true;
            break;
        }
    }
    return any;
}

/* When task t's wait (cx_wait_ms) is over. */
static sk_time wait_end(const fd_core *c, const fd_task *t)
{
    return t->t_since - t->t_waited + (sk_time)c->c_cfg.fdc_cx_wait_ms * 1000;
}

/* Which of the instance's tasks may still wait (cx_wait_ms): those to
 * place that have waited less than it. NULL: out of memory. */
static uint8_t *may_wait(const fd_core *c, sk_time now, const inst *in)
{
    uint32_t nt = in->x.cx_ntasks;
    uint8_t *may = calloc(nt ? nt : 1, 1);
    for (uint32_t i = 0; may != NULL && i < nt; i++)
        may[i] = !in->ct[i].ck_fixed && now < wait_end(c, in->tasks[i]);
    return may;
}

/* The bounded wait (cx_wait_ms): the tasks placed where they break a
 * soft constraint, and that may wait, are taken back; *wake: the
 * earliest end of the waits of those taken back. */
static int hold(const fd_core *c, const uint8_t *may, inst *in, uint32_t *held,
                uint32_t *broke, sk_time *wake)
{
    int rc = fd_cx_hold(&in->x, may, held, broke);
    *wake = SK_TIME_NEVER;
    for (uint32_t i = 0; rc == 0 && i < in->x.cx_ntasks; i++)
        if (in->ct[i].ck_why == fd_cx_why_held &&
            wait_end(c, in->tasks[i]) < *wake)
            *wake = wait_end(c, in->tasks[i]);
    return rc;
}

/* The counters of a round that places nothing: what the placed tasks
 * break now (some may have ended or moved since the last round). */
static int count_unchanged(fd_core *c, inst *in)
{
    fd_cx_score sc;
    int rc = fd_cx_eval_each(&in->x, &sc, in->broken);
    if (rc != 0)
        return rc;
    c->c_st.fs_cx_waiting = 0;
    for (uint32_t i = 0; i < in->x.cx_ntasks; i++)
        c->c_st.fs_cx_waiting += !in->ct[i].ck_fixed;
    count_per_job(in);
    c->c_st.fs_cx_hard = sc.cs_hard;
    c->c_st.fs_cx_soft = sc.cs_soft;
    c->c_st.fs_cx_soft_weight = sc.cs_soft_weight;
    c->c_st.fs_cx_checked = sc.cs_checked;
    return 0;
}

/* The probe (fd_cx_probe), when every waiting task has been tried: into
 * *cand the nodes where one might be placed. Returns 0 and *cand NULL
 * when the probe does not apply; SK_ENOTFOUND when it finds no node (the
 * counters and the reasons of tasks whose wait is over updated as by a
 * round that places nothing, and c_cx_wake no later than the end of any
 * wait not over); or SK_ENOMEM. */
static int probe(fd_core *c, inst *in, const uint8_t *may, bool untried,
                 uint8_t **cand)
{
    *cand = NULL;
    if (untried)
        return 0; /* a new task: the round must try it */
    uint8_t *cd = malloc(in->x.cx_nnodes ? in->x.cx_nnodes : 1);
    uint32_t ncand = 0;
    if (cd == NULL || fd_cx_probe(&in->x, may, cd, &ncand) != 0) {
        free(cd);
        return SK_ENOMEM;
    }
    if (ncand > 0) {
        *cand = cd;
        return 0;
    }
    free(cd);
    if (count_unchanged(c, in) != 0)
        return SK_ENOMEM;
    /* A round would have held some of them till their waits end: try
     * again by then at the latest (each then probed with its wait over).
     * One held whose wait is over is held no more: it waits as a round
     * would say, for room or for its hard constraints. */
    bool room = false;
    for (uint32_t n = 0; n < in->x.cx_nnodes; n++)
        room = room || in->room[n] > 0;
    for (uint32_t i = 0; i < in->x.cx_ntasks; i++) {
        const fd_task *t = in->tasks[i];
        const char **why = &t->t_job->j_cons->cj_why[t->t_index];
        if (may[i] && wait_end(c, t) < c->c_cx_wake)
            c->c_cx_wake = wait_end(c, t);
        if (!in->ct[i].ck_fixed && !may[i] && *why == fd_cx_why_held)
            *why = room ? fd_cx_why_hard : fd_cx_why_room;
    }
    c->c_st.fs_cx_skipped++;
    c->c_st.fs_cx_ruled_out++;
    return SK_ENOTFOUND;
}

void fd_constraint_timeouts(fd_core *c, sk_time now)
{
    if (now < c->c_cx_wake)
        return;
    c->c_cx_wake = SK_TIME_NEVER;
    c->c_cx_stale = true;
    fd_event(c, now); /* the round places the held tasks, wait over */
}

void fd_constraint_round(fd_core *c, sk_time now)
{
    bool untried;
    if (!any_waiting(c, &untried))
        return;
    if (!c->c_cx_stale && !c->c_cx_more && now < c->c_cx_wake) {
        c->c_st.fs_cx_skipped++; /* it would place as the last one did */
        return;
    }
    if (c->c_cx_stale)
        c->c_cx_swept = 0; /* every window may place differently now */
    c->c_cx_stale = c->c_cx_more = false;
    inst in = {0};
    fd_cx_stats xs;
    fd_cx_score sc;
    int rc = build_nodes(c, &in);
    if (rc == 0)
        rc = build_tasks(c, &in);
    bool in_bounded = false;
    uint32_t held = 0, broke = 0;
    uint8_t *may = NULL, *cand = NULL;
    if (rc == 0 && (may = may_wait(c, now, &in)) == NULL)
        rc = SK_ENOMEM;
    if (rc == 0)
        rc = probe(c, &in, may, untried, &cand);
    if (rc == SK_ENOTFOUND) { /* no task can be placed: nothing to do */
        free(may);
        inst_free(&in);
        return;
    }
    if (rc == 0) {
        in_bounded = bound_nodes(c, &in, cand);
        rc = fd_cx_place(&in.x, &xs);
    }
    sk_time wake = SK_TIME_NEVER;
    if (rc == 0)
        rc = hold(c, may, &in, &held, &broke, &wake);
    if (rc == 0)
        rc = fd_cx_eval_each(&in.x, &sc, in.broken);
    free(may);
    free(cand);
    if (rc != 0) {
        c->c_st.fs_nomem++;
        inst_free(&in);
        c->c_cx_stale = true;
        fd_event(c, now); /* try again */
        return;
    }
    c->c_st.fs_cx_rounds++;
    c->c_st.fs_cx_repaired += xs.xs_moved + xs.xs_placed_repair;
    c->c_st.fs_cx_spread += xs.xs_spread;
    c->c_st.fs_cx_waiting = 0;
    uint32_t placed = 0;
    for (uint32_t i = 0; i < in.x.cx_ntasks; i++) {
        fd_cx_task *ck = &in.ct[i];
        fd_task *t = in.tasks[i];
        if (ck->ck_fixed)
            continue;
        t->t_job->j_cons->cj_why[t->t_index] = ck->ck_why;
        if (ck->ck_node == FD_CX_NONE) {
            c->c_st.fs_cx_waiting++;
            continue;
        }
        fd_send_reserve(c, now, t, in.nodes[ck->ck_node]);
        placed++;
        c->c_st.fs_last_placed++;
        c->c_st.fs_cx_placed++;
    }
    count_per_job(&in);
    c->c_st.fs_cx_held += held;
    c->c_st.fs_cx_expired += broke;
    c->c_cx_wake = wake; /* held ones: then, or at the next change */
    if (held > 0 && placed > 0)
        fd_event(c, now); /* with what it placed fixed, the held may fit */
    c->c_st.fs_cx_cut += xs.xs_cut;
    /* A bounded round: the rest at the next one, while it places or its
     * windows have not yet covered every node since the last change. */
    if ((xs.xs_cut || (c->c_st.fs_cx_waiting > 0 && in_bounded)) &&
        (placed > 0 || c->c_cx_swept < in.x.cx_nnodes)) {
        c->c_cx_more = true;
        fd_event(c, now);
    }
    c->c_st.fs_cx_hard = sc.cs_hard;
    c->c_st.fs_cx_soft = sc.cs_soft;
    c->c_st.fs_cx_soft_weight = sc.cs_soft_weight;
    c->c_st.fs_cx_checked = sc.cs_checked;
    inst_free(&in);
}

/* ---- `flow explain`: a task's constraints, what blocks or breaks them -- */

/* The name of the group of constraint k that holds node n. */
static const char *group_name(const inst *in, const sk_constraint *k,
                              uint32_t n, char *buf, size_t len)
{
    const fd_node *nd = in->nodes[n];
    if (k->cn_group == SK_GROUP_NODE)
        snprintf(buf, len, "node %s", nd->n_name);
    else if (k->cn_group == SK_GROUP_RACK)
        snprintf(buf, len, "rack %s of node %s",
                 nd->n_rack != NULL && nd->n_rack->r_name[0] != '\0'
                     ? nd->n_rack->r_name
                     : "(none)",
                 nd->n_name);
    else {
        size_t kl = strlen(k->cn_label);
        snprintf(buf, len, "node %s, in no %s group", nd->n_name, k->cn_label);
        for (uint32_t l = 0; l < nd->n_nlabels; l++)
            if (strncmp(nd->n_labels[l], k->cn_label, kl) == 0 &&
                nd->n_labels[l][kl] == '=')
                snprintf(buf, len, "group %s of node %s", nd->n_labels[l],
                         nd->n_name);
    }
    return buf;
}

/* Why constraint ci (the job's q-th) fails for task ti at node n: the
 * count of its target in n's group against what it allows. */
static void say_broken(const inst *in, const fd_cx_state *s, uint32_t ci,
                       uint32_t q, uint32_t ti, uint32_t n, FILE *f)
{
    const sk_constraint *k = &in->con_job[ci]->j_cons->cj_cons[q];
    const fd_cx_con *cc = &in->cons[ci];
    char g[2 * SK_MAX_NAME_LEN + 64], text[256], max[16];
    int32_t gid = cc->cc_gid[n];
    uint32_t have = gid == FD_CX_NONE ? 0 : s->st_cnt[ci][gid];
    if (gid != FD_CX_NONE && in->ct[ti].ck_node == (int32_t)n &&
        fd_cx_counted(cc, &in->ct[ti]))
        have--;
    sk_constraint_format(k, text, sizeof text);
    if (cc->cc_max == UINT32_MAX)
        snprintf(max, sizeof max, "*");
    else
        snprintf(max, sizeof max, "%" PRIu32, cc->cc_max);
    fprintf(f,
            "%s has %" PRIu32 " tasks tagged %s (%s), constraint %" PRIu32
            " (%s) wants %" PRIu32 "..%s",
            group_name(in, k, n, g, sizeof g), have, k->cn_target,
            k->cn_all ? "of any job" : "of this job", q + 1, text, cc->cc_min,
            max);
}

/* The task's hard constraints (soft ones too, if soft: a task held by
 * the bounded wait) against the nodes with room: how many each rules
 * out, with the first such node as an example. */
static void explain_blocked(const inst *in, const fd_cx_state *s, uint32_t ti,
                            uint32_t first, bool soft, FILE *f)
{
    const fd_cx_task *t = &in->ct[ti];
    uint32_t nn = in->x.cx_nnodes, with_room = 0, fit = 0;
    uint32_t out[SK_MAX_CONSTRAINTS] = {0}, ex[SK_MAX_CONSTRAINTS] = {0};
    for (uint32_t n = 0; n < nn; n++) {
        if (in->room[n] == 0 || !fd_cx_ok_at(t, n))
            continue;
        with_room++;
        bool ok = true;
        for (uint32_t q = 0; q < in->con_job[first]->j_cons->cj_ncons; q++) {
            uint32_t ci = first + q;
            if ((in->cons[ci].cc_weight != 0 && !soft) ||
                !fd_cx_subject(&in->cons[ci], t) ||
                !fd_cx_breaks(s, ci, ti, (int32_t)n))
                continue;
            if (out[q]++ == 0)
                ex[q] = n;
            ok = false;
        }
        fit += ok;
    }
    fprintf(f,
            "  %" PRIu32 " live nodes have room for it (after the last "
            "round's reservations); %" PRIu32
            " of them meet all its %s constraints\n",
            with_room, fit, soft ? "hard and soft" : "hard");
    for (uint32_t q = 0; q < in->con_job[first]->j_cons->cj_ncons; q++) {
        if (out[q] == 0)
            continue;
        fprintf(f,
                "  constraint %" PRIu32 " (%s) rules out %" PRIu32
                " of them; e.g. ",
                q + 1, in->cons[first + q].cc_weight != 0 ? "soft" : "hard",
                out[q]);
        say_broken(in, s, first + q, q, ti, ex[q], f);
        fprintf(f, "\n");
    }
    if (fit > 0)
        fprintf(f, "  a node meets them now: the tasks around it changed "
                   "since the last round, which the next round takes into "
                   "account\n");
}

/* The constraints a placed task breaks where it is. */
static void explain_placed(const inst *in, const fd_cx_state *s, uint32_t ti,
                           uint32_t first, FILE *f)
{
    const fd_cx_task *t = &in->ct[ti];
    uint32_t nq = in->con_job[first]->j_cons->cj_ncons, subj = 0, bad = 0;
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t ci = first + q;
        if (!fd_cx_subject(&in->cons[ci], t))
            continue;
        subj++;
        if (!fd_cx_breaks(s, ci, ti, t->ck_node))
            continue;
        bad++;
        fprintf(f, "  breaks it: ");
        say_broken(in, s, ci, q, ti, (uint32_t)t->ck_node, f);
        if (in->cons[ci].cc_weight != 0)
            fprintf(f, "; a soft violation, weight %" PRIu32 "\n",
                    in->cons[ci].cc_weight);
        else
            fprintf(f, "; hard: tasks already running when the others "
                       "came (flowd's placements never break one)\n");
    }
    if (bad == 0)
        fprintf(f, "  meets the %" PRIu32 " constraints that apply to it\n",
                subj);
}

void fd_constraint_explain(const fd_core *c, const fd_task *t, FILE *f)
{
    const fd_job *j = t->t_job;
    const fd_cons *cj = j->j_cons;
    if (cj == NULL)
        return;
    char text[256];
    fprintf(f, "placement constraints: tags");
    for (uint32_t i = 0; i < cj->cj_ntags[t->t_index]; i++)
        fprintf(f, "%s %s", i > 0 ? "," : "", cj->cj_tags[t->t_index][i]);
    fprintf(f, "%s\n", cj->cj_ntags[t->t_index] == 0 ? " none" : "");
    for (uint32_t q = 0; q < cj->cj_ncons; q++) {
        sk_constraint_format(&cj->cj_cons[q], text, sizeof text);
        fprintf(f, "  %" PRIu32 ". %s\n", q + 1, text);
    }
    if (cj->cj_ncons == 0)
        return;
    bool waiting = t->t_state == FD_TASK_WAITING;
    if (waiting)
        fprintf(f, "why it waits on them: %s\n",
                cj->cj_why[t->t_index] != NULL
                    ? cj->cj_why[t->t_index]
                    : "no constraint round has tried it yet");
    else
        fprintf(f, "what they say where it is:\n");
    inst in = {0};
    fd_cx_state s = {0};
    uint32_t ti = UINT32_MAX, first = UINT32_MAX;
    int rc = build_nodes(c, &in);
    if (rc == 0)
        rc = build_tasks(c, &in);
    for (uint32_t i = 0; rc == 0 && i < in.x.cx_ntasks; i++)
        if (in.tasks[i] == t)
            ti = i;
    for (uint32_t i = 0; rc == 0 && i < in.ncons && first == UINT32_MAX; i++)
        if (in.con_job[i] == j)
            first = i;
    if (rc == 0)
        rc = fd_cx_state_init(&s, &in.x);
    if (rc != 0)
        fprintf(f, "  (out of memory: no details)\n");
    else if (ti == UINT32_MAX || first == UINT32_MAX)
        fprintf(f, "  (its node is not live: nothing to check)\n");
    else if (waiting)
        explain_blocked(&in, &s, ti, first,
                        cj->cj_why[t->t_index] == fd_cx_why_held, f);
    else
        explain_placed(&in, &s, ti, first, f);
    fd_cx_state_free(&s);
    inst_free(&in);
}
