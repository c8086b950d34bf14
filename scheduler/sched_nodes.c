/*
 * sched_nodes.c - the scheduler core's node table: the node monitors
 * connected to it, the array of live ones (up and not saturated) that
 * sampling draws from, the index by name that preferred nodes and
 * MEMBERSHIP use, and the sampling itself.
 *
 * Sampling is a partial Fisher-Yates shuffle run in place on the live
 * array (its order means nothing, so the swaps cost nothing): the nodes
 * met in shuffle order are a uniformly random ordering of the live nodes,
 * and so the first k of them that fit the job are a uniform sample of the
 * fitting ones. When every live node fits, that costs O(k).
 */
#include "sched_int.h"
#include "sk_log.h"
#include "skylark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: names are short, and collisions are chained anyway. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s != '\0'; s++) {
        h ^= (uint8_t)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static char *copy_str(const char *s, size_t max)
{
    if (s == NULL)
        s = "";
    size_t len = strnlen(s, max + 1);
    if (len > max)
        return NULL;
    char *p = malloc(len + 1);
    if (p != NULL) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

void sched_node_destroy(sched_node *nd)
{
    if (nd == NULL)
        return;
    for (uint32_t i = 0; i < nd->nd_nlabels; i++)
        free(nd->nd_labels[i]);
    free(nd->nd_labels);
    free(nd->nd_name);
    free(nd);
}

static void live_add(sched_core *c, sched_node *nd)
{
    SK_ASSERT(nd->nd_live == SCHED_NOT_LIVE && c->c_nlive < c->c_live_cap);
    nd->nd_live = c->c_nlive;
    c->c_live[c->c_nlive++] = nd;
}

static void live_remove(sched_core *c, sched_node *nd)
{
    if (nd->nd_live == SCHED_NOT_LIVE)
        return;
    sched_node *last = c->c_live[--c->c_nlive];
    c->c_live[nd->nd_live] = last;
    last->nd_live = nd->nd_live;
    nd->nd_live = SCHED_NOT_LIVE;
}

/* live_grow makes room in c_live and c_picks for one more node. */
static int live_grow(sched_core *c)
{
    if (c->c_stats.ss_nodes < c->c_live_cap)
        return 0;
    uint32_t cap = c->c_live_cap ? c->c_live_cap * 2 : 64;
    sched_node **live = realloc(c->c_live, cap * sizeof *live);
    if (live == NULL)
        return SK_ENOMEM;
    c->c_live = live;
    sched_node **picks = realloc(c->c_picks, cap * sizeof *picks);
    if (picks == NULL)
        return SK_ENOMEM;
    c->c_picks = picks;
    c->c_live_cap = cap;
    return 0;
}

void sched_node_add(sched_core *c, sk_peer peer, const sk_hello *h)
{
    if (c->c_stats.ss_nodes >= (uint64_t)c->c_cfg.sc_max_nodes) {
        c->c_stats.ss_limit_nodes++;
        sk_warn("node monitor %s refused: %lld connected already",
                h->he_name ? h->he_name : "", (long long)c->c_cfg.sc_max_nodes);
        return;
    }
    if (h->he_nlabels > SK_MAX_LABELS || h->he_slots > SK_MAX_SLOTS ||
        (h->he_nlabels > 0 && h->he_labels == NULL)) {
        c->c_stats.ss_bad_field++;
        return;
    }
    sched_node *nd = calloc(1, sizeof *nd);
    if (nd == NULL)
        goto nomem;
    nd->nd_peer = peer;
    nd->nd_id = h->he_id;
    nd->nd_slots = h->he_slots;
    nd->nd_res = h->he_res;
    nd->nd_state = SK_NODE_UP;
    nd->nd_live = SCHED_NOT_LIVE;
    nd->nd_name = copy_str(h->he_name, SK_MAX_NAME_LEN);
    if (nd->nd_name == NULL) {
        /* Too long (or no memory): either way the HELLO is not usable. */
        sched_node_destroy(nd);
        c->c_stats.ss_bad_field++;
        return;
    }
    nd->nd_hash = name_hash(nd->nd_name);
    if (h->he_nlabels > 0) {
        nd->nd_labels = calloc(h->he_nlabels, sizeof *nd->nd_labels);
        if (nd->nd_labels == NULL)
            goto nomem;
        for (uint32_t i = 0; i < h->he_nlabels; i++) {
            nd->nd_labels[i] = copy_str(h->he_labels[i], SK_MAX_LABEL_LEN);
            if (nd->nd_labels[i] == NULL) {
                nd->nd_nlabels = i;
                sched_node_destroy(nd);
                c->c_stats.ss_bad_field++;
                return;
            }
        }
        nd->nd_nlabels = h->he_nlabels;
    }
    if (live_grow(c) != 0 || sk_map_reserve(&c->c_nodes, 1) != 0 ||
        sk_map_reserve(&c->c_names, 1) != 0)
        goto nomem;
    sched_node *same = sk_map_get(&c->c_names, nd->nd_hash);
    nd->nd_hnext = same;
    sk_map_put(&c->c_names, nd->nd_hash, nd);
    sk_map_put(&c->c_nodes, peer, nd);
    c->c_stats.ss_nodes++;
    live_add(c, nd);
    c->c_stats.ss_live = c->c_nlive;
    return;
nomem:
    sched_node_destroy(nd);
    c->c_stats.ss_nomem++;
    sk_error("node monitor on peer %u dropped: out of memory", peer);
}

sched_node *sched_node_unlink(sched_core *c, sk_peer peer)
{
    sched_node *nd = sk_map_del(&c->c_nodes, peer);
    if (nd == NULL)
        return NULL;
    live_remove(c, nd);
    sched_node *head = sk_map_get(&c->c_names, nd->nd_hash);
    if (head == nd) {
        if (nd->nd_hnext != NULL)
            sk_map_put(&c->c_names, nd->nd_hash, nd->nd_hnext);
        else
            sk_map_del(&c->c_names, nd->nd_hash);
    } else {
        while (head->nd_hnext != nd)
            head = head->nd_hnext;
        head->nd_hnext = nd->nd_hnext;
    }
    c->c_stats.ss_nodes--;
    c->c_stats.ss_live = c->c_nlive;
    return nd;
}

static sched_node *sched_node_by_name(const sched_core *c, const char *name)
{
    sched_node *nd = sk_map_get(&c->c_names, name_hash(name));
    /* Several peers may carry one name (a node monitor that restarted
     * before its old connection was noticed gone): prefer a live one. */
    sched_node *found = NULL;
    for (; nd != NULL; nd = nd->nd_hnext) {
        if (strcmp(nd->nd_name, name) != 0)
            continue;
        if (nd->nd_live != SCHED_NOT_LIVE)
            return nd;
        if (found == NULL)
            found = nd;
    }
    return found;
}

static bool has_label(const sched_node *nd, const char *label)
{
    for (uint32_t i = 0; i < nd->nd_nlabels; i++)
        if (strcmp(nd->nd_labels[i], label) == 0)
            return true;
    return false;
}

static bool sched_node_fits(const sched_node *nd, const sched_job *j)
{
    if (nd->nd_slots == 0 || nd->nd_res.r_cpu_milli < j->j_res.r_cpu_milli ||
        nd->nd_res.r_mem_mb < j->j_res.r_mem_mb)
        return false;
    for (uint32_t i = 0; i < j->j_nlabels; i++)
        if (!has_label(nd, j->j_labels[i]))
            return false;
    return true;
}

void sched_node_membership(sched_core *c, sk_peer from, const sk_membership *mb)
{
    (void)from;
    if (mb->mb_nnodes > SK_MAX_NODES ||
        (mb->mb_nnodes > 0 && mb->mb_nodes == NULL)) {
        c->c_stats.ss_bad_field++;
        return;
    }
    c->c_stats.ss_memberships++;
    /* A full directory restates every node flowd knows: a node it no
     * longer calls saturated must be probed again. */
    if (mb->mb_full) {
        sched_node **all = c->c_picks;
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->c_nodes.mp_cap; i++) {
            sched_node *nd = c->c_nodes.mp_vals[i];
            if (nd != NULL && nd->nd_state != SK_NODE_UP)
                all[n++] = nd;
        }
        for (uint32_t i = 0; i < n; i++) {
            all[i]->nd_state = SK_NODE_UP;
            live_add(c, all[i]);
        }
    }
    for (uint32_t i = 0; i < mb->mb_nnodes; i++) {
        const sk_member *me = &mb->mb_nodes[i];
        if (me->me_state < SK_NODE_UP || me->me_state > SK_NODE_STATE_MAX ||
            me->me_name == NULL) {
            c->c_stats.ss_bad_field++;
            continue;
        }
        uint64_t h = name_hash(me->me_name);
        bool seen = false;
        for (sched_node *nd = sk_map_get(&c->c_names, h); nd != NULL;
             nd = nd->nd_hnext) {
            if (strcmp(nd->nd_name, me->me_name) != 0)
                continue;
            seen = true;
            nd->nd_state = me->me_state;
            if (me->me_state == SK_NODE_UP && nd->nd_live == SCHED_NOT_LIVE)
                live_add(c, nd);
            else if (me->me_state != SK_NODE_UP)
                live_remove(c, nd);
        }
        if (!seen)
            c->c_stats.ss_membership_unknown++;
    }
    c->c_stats.ss_live = c->c_nlive;
}

uint64_t sched_probe_count(double ratio, uint32_t tasks)
{
    /* ceil(d * m), without letting rounding in the product (1.1 * 10 is
     * 11.000000000000002) add a probe. */
    double want = ratio * (double)tasks;
    return (uint64_t)ceil(want - want * 1e-12);
}

/* spread gives each of the npicks picked nodes its share of want
 * reservations: one each when want <= npicks, else want / npicks each
 * and one more for the first want % npicks (the picks are in random
 * order, so which nodes get the extra one is random too). */
static void spread(sched_node **picks, uint32_t npicks, uint64_t want)
{
    uint64_t each = want / npicks, extra = want % npicks;
    for (uint32_t i = 0; i < npicks; i++)
        picks[i]->nd_pick = (uint32_t)(each + (i < extra ? 1 : 0));
}

uint32_t sched_sample_any(sched_core *c, const sched_job *j, uint64_t want)
{
    uint32_t n = c->c_nlive, k = 0;
    sched_node **live = c->c_live;
    for (uint32_t i = 0; i < n && k < want; i++) {
        uint32_t r = i + (uint32_t)sk_rng_below(&c->c_rng, n - i);
        sched_node *tmp = live[i];
        live[i] = live[r];
        live[r] = tmp;
        live[i]->nd_live = i;
        live[r]->nd_live = r;
        if (sched_node_fits(live[i], j))
            c->c_picks[k++] = live[i];
    }
    if (k > 0) {
        if (want > k)
            spread(c->c_picks, k, want);
        else
            for (uint32_t i = 0; i < k; i++)
                c->c_picks[i]->nd_pick = 1;
    }
    return k;
}

uint32_t sched_sample_task(sched_core *c, const sched_job *j,
                           const sched_task *t, uint64_t want)
{
    sched_node *cand[SK_MAX_PREFERRED];
    uint32_t n = 0;
    uint64_t stamp = ++c->c_stamp;
    for (uint32_t i = 0; i < t->tk_npref && n < SK_MAX_PREFERRED; i++) {
        sched_node *nd = sched_node_by_name(c, t->tk_pref[i]);
        /* A name listed twice must not double its node's chances. */
        if (nd == NULL || nd->nd_live == SCHED_NOT_LIVE ||
            nd->nd_mark == stamp || !sched_node_fits(nd, j))
            continue;
        nd->nd_mark = stamp;
        cand[n++] = nd;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < want; i++) {
        uint32_t r = i + (uint32_t)sk_rng_below(&c->c_rng, n - i);
        sched_node *tmp = cand[i];
        cand[i] = cand[r];
        cand[r] = tmp;
        c->c_picks[k++] = cand[i];
    }
    if (k > 0) {
        if (want > k)
            spread(c->c_picks, k, want);
        else
            for (uint32_t i = 0; i < k; i++)
                c->c_picks[i]->nd_pick = 1;
    }
    return k;
}

bool sched_node_fence(sched_core *c, sk_peer from, uint64_t job, uint32_t task,
                      uint32_t attempt)
{
    /* A node monitor re-announces the attempts its earlier session left
     * before anything else, so before its first GET_TASK; after that, a
     * TASK_STARTED the core cannot place is a late report of an attempt
     * launched in this session (one the core killed meanwhile: cancel,
     * launch timeout), already answered with KILL_TASK. */
    const sched_node *nd = sk_map_get(&c->c_nodes, from);
    if (nd == NULL || nd->nd_asked)
        return false;
    const sched_job *j = sk_map_get(&c->c_jobs, job);
    /* An id this core never gave out is not its to judge (a task flowd
     * placed for it, or garbage): counted as unknown as before. */
    if (j == NULL && (job == 0 || job > c->c_next_job))
        return false;
    if (j != NULL) {
        if (task >= j->j_ntasks)
            return false;
        const sched_task *t = &j->j_tasks[task];
        if (attempt > t->tk_attempt)
            return false; /* never given out: counted as stale */
        if (attempt == t->tk_attempt && t->tk_node != NULL &&
            t->tk_node->nd_peer == from &&
            (t->tk_state == SCHED_TASK_LAUNCHED ||
             t->tk_state == SCHED_TASK_RUNNING))
            return false; /* the attempt this scheduler holds */
    }
    /* The job (one of ours: ids are never reused) ended, or the attempt
     * was given up (its node was lost, its launch timed out, the task
     * ended another way): the node must not run it to its end. */
    c->c_stats.ss_fenced++;
    c->c_stats.ss_kills++;
    sk_msg *m = sched_send(c, from, SK_MSG_KILL_TASK);
    if (m != NULL) {
        m->m_kill_task.kt_job = job;
        m->m_kill_task.kt_task = task;
        m->m_kill_task.kt_attempt = attempt;
    }
    return true;
}
