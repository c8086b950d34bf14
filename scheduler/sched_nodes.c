/*
 * sched_nodes.c - the scheduler core's node table: the node monitors
 * connected to it, the arrays of live ones that sampling draws from (up
 * and not saturated; saturated by long tasks, probed only with
 * probe_saturated for what the first cannot take), the index by name that
 * preferred nodes and MEMBERSHIP use, and the sampling itself.
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
uint64_t sched_name_hash(const char *s)
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

/* The live array of a node in state `state`: c_live or c_sat (with its
 * length in *n), NULL for a node down. */
static sched_node **live_set(sched_core *c, uint8_t state, uint32_t **n)
{
    if (state == SK_NODE_UP) {
        *n = &c->c_nlive;
        return c->c_live;
    }
    if (state == SK_NODE_SATURATED) {
        *n = &c->c_nsat;
        return c->c_sat;
    }
    return NULL;
}

/* live_add puts nd in the live array of its state (none when down). */
static void live_add(sched_core *c, sched_node *nd)
{
    uint32_t *n;
    sched_node **set = live_set(c, nd->nd_state, &n);
    SK_ASSERT(nd->nd_live == SCHED_NOT_LIVE);
    if (set == NULL)
        return;
    SK_ASSERT(*n < c->c_live_cap);
    nd->nd_live = *n;
    set[(*n)++] = nd;
}

/* live_remove takes nd out of the live array of its state: call it
 * before nd_state changes. */
static void live_remove(sched_core *c, sched_node *nd)
{
    uint32_t *n;
    sched_node **set = live_set(c, nd->nd_state, &n);
    if (nd->nd_live == SCHED_NOT_LIVE || set == NULL)
        return;
    sched_node *last = set[--(*n)];
    set[nd->nd_live] = last;
    last->nd_live = nd->nd_live;
    nd->nd_live = SCHED_NOT_LIVE;
}

/* live_count updates the gauges of the live arrays. */
static void live_count(sched_core *c)
{
    c->c_stats.ss_live = c->c_nlive;
    c->c_stats.ss_saturated = c->c_nsat;
}

/* set_state moves nd to the live array of its new state. */
static void set_state(sched_core *c, sched_node *nd, uint8_t state)
{
    if (nd->nd_state == state)
        return;
    live_remove(c, nd);
    nd->nd_state = state;
    live_add(c, nd);
}

static bool node_open(const sched_node *nd)
{
    return nd->nd_live != SCHED_NOT_LIVE && nd->nd_state == SK_NODE_UP;
}

/* grow reallocates *v to cap entries; false, *v untouched, without
 * memory. */
static bool grow(sched_node ***v, uint32_t cap)
{
    sched_node **p = realloc(*v, cap * sizeof *p);
    if (p == NULL)
        return false;
    *v = p;
    return true;
}

/* live_grow makes room in c_live, c_sat and c_picks for one more node. */
static int live_grow(sched_core *c)
{
    if (c->c_stats.ss_nodes < c->c_live_cap)
        return 0;
    uint32_t cap = c->c_live_cap ? c->c_live_cap * 2 : 64;
    if (!grow(&c->c_live, cap) || !grow(&c->c_sat, cap) ||
        !grow(&c->c_picks, cap))
        return SK_ENOMEM;
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
    nd->nd_hash = sched_name_hash(nd->nd_name);
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
    live_count(c);
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
    live_count(c);
    return nd;
}

static sched_node *sched_node_by_name(const sched_core *c, const char *name)
{
    sched_node *nd = sk_map_get(&c->c_names, sched_name_hash(name));
    /* Several peers may carry one name (a node monitor that restarted
     * before its old connection was noticed gone): prefer a live one. */
    sched_node *found = NULL;
    for (; nd != NULL; nd = nd->nd_hnext) {
        if (strcmp(nd->nd_name, name) != 0)
            continue;
        if (node_open(nd))
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
        for (uint32_t i = 0; i < c->c_nodes.mp_cap; i++) {
            sched_node *nd = c->c_nodes.mp_vals[i];
            if (nd != NULL)
                set_state(c, nd, SK_NODE_UP);
        }
    }
    for (uint32_t i = 0; i < mb->mb_nnodes; i++) {
        const sk_member *me = &mb->mb_nodes[i];
        if (me->me_state < SK_NODE_UP || me->me_state > SK_NODE_STATE_MAX ||
            me->me_name == NULL) {
            c->c_stats.ss_bad_field++;
            continue;
        }
        uint64_t h = sched_name_hash(me->me_name);
        bool seen = false;
        for (sched_node *nd = sk_map_get(&c->c_names, h); nd != NULL;
             nd = nd->nd_hnext) {
            if (strcmp(nd->nd_name, me->me_name) != 0)
                continue;
            seen = true;
            set_state(c, nd, me->me_state);
        }
        if (!seen)
            c->c_stats.ss_membership_unknown++;
    }
    live_count(c);
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

/* draw adds to c_picks[*k..) the nodes of set[0..n) that fit j, in a
 * uniformly random order, until *k reaches want. */
static void draw(sched_core *c, sched_node **set, uint32_t n,
                 const sched_job *j, uint64_t want, uint32_t *k)
{
    for (uint32_t i = 0; i < n && *k < want; i++) {
        uint32_t r = i + (uint32_t)sk_rng_below(&c->c_rng, n - i);
        sched_node *tmp = set[i];
        set[i] = set[r];
        set[r] = tmp;
        set[i]->nd_live = i;
        set[r]->nd_live = r;
        if (sched_node_fits(set[i], j))
            c->c_picks[(*k)++] = set[i];
    }
}

bool sched_can_sample(const sched_core *c)
{
    return c->c_nlive > 0 || (c->c_cfg.sc_probe_saturated && c->c_nsat > 0);
}

uint32_t sched_sample_any(sched_core *c, const sched_job *j, uint64_t want)
{
    uint32_t k = 0;
    draw(c, c->c_live, c->c_nlive, j, want, &k);
    uint32_t open = k;
    if (k < want && c->c_cfg.sc_probe_saturated)
        draw(c, c->c_sat, c->c_nsat, j, want, &k);
    if (k > 0) {
        if (want > k)
            spread(c->c_picks, k, want);
        else
            for (uint32_t i = 0; i < k; i++)
                c->c_picks[i]->nd_pick = 1;
    }
    for (uint32_t i = open; i < k; i++)
        c->c_stats.ss_sat_probes += c->c_picks[i]->nd_pick;
    return k;
}

/* preferred fills cand with t's preferred nodes in state `state` (live)
 * that fit j, each once; returns how many. */
static uint32_t preferred(sched_core *c, const sched_job *j,
                          const sched_task *t, uint8_t state, sched_node **cand)
{
    uint32_t n = 0;
    uint64_t stamp = ++c->c_stamp;
    for (uint32_t i = 0; i < t->tk_npref && n < SK_MAX_PREFERRED; i++) {
        sched_node *nd = sched_node_by_name(c, t->tk_pref[i]);
        /* A name listed twice must not double its node's chances. */
        if (nd == NULL || nd->nd_live == SCHED_NOT_LIVE ||
            nd->nd_state != state || nd->nd_mark == stamp ||
            !sched_node_fits(nd, j))
            continue;
        nd->nd_mark = stamp;
        cand[n++] = nd;
    }
    return n;
}

uint32_t sched_sample_task(sched_core *c, const sched_job *j,
                           const sched_task *t, uint64_t want)
{
    sched_node *cand[SK_MAX_PREFERRED];
    uint32_t n = preferred(c, j, t, SK_NODE_UP, cand);
    bool saturated = n == 0 && c->c_cfg.sc_probe_saturated;
    if (saturated)
        n = preferred(c, j, t, SK_NODE_SATURATED, cand);
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
    for (uint32_t i = 0; saturated && i < k; i++)
        c->c_stats.ss_sat_probes += c->c_picks[i]->nd_pick;
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
