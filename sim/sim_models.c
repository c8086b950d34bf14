/*
 * sim_models.c - models of the placement strategies Skylark is compared
 * with but does not implement, on the same nodes, network and workload
 * as the real cores (sim_real.c):
 *
 *  - random: each task goes to a node chosen uniformly at random.
 *  - per-task: each task probes d nodes; each node answers at once with
 *    its queue length; the task goes to the shortest (the power of d
 *    choices).
 *  - batch: a job of m tasks probes d*m distinct nodes; when every answer
 *    is in, the m tasks go to the m least loaded of them, one task per
 *    node, as Sparrow describes it ("places one of the job's m tasks on
 *    each of the m least loaded workers").
 *
 * A fractional d gives ceil(d * m) probes in all, spread as evenly as
 * possible over the tasks (per-task). A node runs up to its slots tasks
 * and queues the rest, strict priority then first come, first served; its
 * queue length, as a probe sees it, is running plus queued tasks. Probes,
 * answers and placements cross the network with its delay, as the real
 * cores' messages do, and so does the news of a task's end, which makes a
 * job's response time end when its scheduler learns that its last task
 * ended. Constraints: probes and random choices are drawn from the nodes
 * that carry the job's labels; a task with preferred nodes draws from
 * those alone (per-task sampling, as the real scheduler does); a task
 * left with no node it may use fails, and a job with none is rejected.
 *
 * A task "queued" when it found no free slot on arriving at its node:
 * the zero-wait statistic of Sparrow's Table 2 counts jobs none of whose
 * tasks queued.
 */
#include "sim.h"
#include "sim_theory.h"

#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

enum {
    EV_PLACE = SIM_EV_STRATEGY, /* ev_a node, ev_p mtask */
    EV_END,                     /* ev_a node, ev_p mtask */
    EV_DONE,                    /* ev_p mtask: its scheduler learns */
    EV_PROBE,                   /* ev_a node, ev_b probe, ev_p job */
    EV_REPLY,                   /* ev_b probe, ev_c load, ev_p job */
};

typedef enum model_kind { M_RANDOM, M_PERTASK, M_BATCH } model_kind;

/* A task on its way to, queued at, or running on a node. */
typedef struct mtask {
    sim_job *mt_job;
    uint32_t mt_task;
    uint32_t mt_node;
    sk_time mt_start;
    sk_time mt_end;
    bool mt_queued;
    struct mtask *mt_next;
} mtask;

/* A node: 24 bytes, so that 10,000 of them stay in the second-level
 * cache (probes read random nodes). Its queue is one list in priority
 * order, first come first served within a priority: appending is O(1)
 * unless a more urgent task arrives behind less urgent ones. */
typedef struct mnode {
    uint32_t mn_busy;
    uint32_t mn_queued;
    mtask *mn_head;
    mtask *mn_tail;
} mnode;

/* A job waiting for the answers to its probes. */
typedef struct mjob {
    uint32_t mj_nprobes;
    uint32_t mj_left;   /* answers still to come */
    uint32_t *mj_node;  /* per probe */
    uint32_t *mj_load;  /* per probe, its answer */
    uint32_t *mj_task;  /* per probe, its task or SK_TASK_ANY */
    uint32_t *mj_first; /* per-task: per task, its first probe (CSR) */
    uint32_t *mj_tleft; /* per-task: per task, answers still to come */
} mjob;

typedef struct mstate {
    model_kind ms_kind;
    mnode *ms_nodes;
    uint32_t *ms_perm;  /* sk_rng_sample's scratch over all nodes */
    uint32_t *ms_elig;  /* the nodes a labelled job may use */
    uint32_t *ms_eperm; /* sampling scratch over ms_elig */
    uint32_t *ms_pick;
    mtask **ms_chunks;
    uint32_t ms_nchunks;
    mtask *ms_free;
    uint64_t ms_failed; /* tasks with no node they may use */
} mstate;

#define CHUNK 4096u

static mtask *task_new(sim *s, sim_job *j, uint32_t t)
{
    mstate *ms = s->s_state;
    if (ms->ms_free == NULL) {
        mtask **c = realloc(ms->ms_chunks, (ms->ms_nchunks + 1) * sizeof *c);
        mtask *chunk = calloc(CHUNK, sizeof *chunk);
        if (c == NULL || chunk == NULL) {
            free(chunk);
            if (c != NULL)
                ms->ms_chunks = c;
            sim_fail(s, SK_ENOMEM, "out of memory");
            return NULL;
        }
        ms->ms_chunks = c;
        c[ms->ms_nchunks++] = chunk;
        for (uint32_t i = 0; i < CHUNK; i++) {
            chunk[i].mt_next = ms->ms_free;
            ms->ms_free = &chunk[i];
        }
    }
    mtask *mt = ms->ms_free;
    ms->ms_free = mt->mt_next;
    *mt = (mtask){.mt_job = j, .mt_task = t};
    return mt;
}

static void task_put(mstate *ms, mtask *mt)
{
    mt->mt_next = ms->ms_free;
    ms->ms_free = mt;
}

/* ---- nodes ------------------------------------------------------------ */

static void start(sim *s, uint32_t node, mtask *mt)
{
    mstate *ms = s->s_state;
    ms->ms_nodes[node].mn_busy++;
    sim_busy(s, +1);
    sim_task_start(s, mt->mt_job);
    mt->mt_start = s->s_now;
    sim_ev *ev = sim_at(s, s->s_now + mt->mt_job->j_dur[mt->mt_task], EV_END,
                        false, NULL);
    ev->ev_a = node;
    ev->ev_p = mt;
}

static void node_arrive(sim *s, uint32_t node, mtask *mt)
{
    mstate *ms = s->s_state;
    mnode *n = &ms->ms_nodes[node];
    mt->mt_node = node;
    if (n->mn_busy < s->s_p->p_slots) {
        start(s, node, mt);
        return;
    }
    mt->mt_queued = true;
    n->mn_queued++;
    uint8_t p = mt->mt_job->j_prio;
    if (n->mn_tail == NULL || n->mn_tail->mt_job->j_prio <= p) {
        mt->mt_next = NULL;
        if (n->mn_tail != NULL)
            n->mn_tail->mt_next = mt;
        else
            n->mn_head = mt;
        n->mn_tail = mt;
        return;
    }
    mtask **at = &n->mn_head;
    while ((*at)->mt_job->j_prio <= p)
        at = &(*at)->mt_next;
    mt->mt_next = *at;
    *at = mt;
}

static void node_end(sim *s, uint32_t node, mtask *mt)
{
    mstate *ms = s->s_state;
    mnode *n = &ms->ms_nodes[node];
    n->mn_busy--;
    sim_busy(s, -1);
    mt->mt_end = s->s_now;
    bool fifo;
    sk_time at = sim_net_time(s, node, mt->mt_job->j_sched, false, &fifo);
    sim_ev *ev = sim_at(s, at, EV_DONE, fifo, NULL);
    ev->ev_p = mt;
    s->s_st.st_net[SIM_MSG_DONE]++;
    mtask *next = n->mn_head;
    if (next == NULL)
        return;
    n->mn_head = next->mt_next;
    if (n->mn_head == NULL)
        n->mn_tail = NULL;
    n->mn_queued--;
    start(s, node, next);
}

/* ---- the scheduler side ----------------------------------------------- */

static void place(sim *s, sim_job *j, uint32_t t, uint32_t node)
{
    mtask *mt = task_new(s, j, t);
    if (mt == NULL)
        return;
    bool fifo;
    sk_time at = sim_net_time(s, node, j->j_sched, true, &fifo);
    sim_ev *ev = sim_at(s, at, EV_PLACE, fifo, NULL);
    ev->ev_a = node;
    ev->ev_p = mt;
    s->s_st.st_net[SIM_MSG_PLACE]++;
}

/* task_done: the scheduler learns that a task ended (or, with node
 * NULL, that it cannot run anywhere). Returns true when the job ended. */
static bool task_done(sim *s, sim_job *j, uint32_t t, const mtask *mt)
{
    if (mt != NULL) {
        sim_task_end(s, j, t, 0, sim_node_str(s, mt->mt_node), mt->mt_start,
                     mt->mt_end, SK_TASK_OK, mt->mt_queued);
    } else {
        mstate *ms = s->s_state;
        ms->ms_failed++;
        sim_task_end(s, j, t, 0, NULL, 0, 0, SK_TASK_FAILED, false);
    }
    if (j->j_ndone < j->j_ntasks)
        return false;
    sim_job_end(s, j, SIM_JOB_DONE);
    return true;
}

/* eligible returns the nodes j may use for its unconstrained tasks: all
 * of them (NULL, *n = nodes) or the list of those with its labels. */
static const uint32_t *eligible(sim *s, const sim_job *j, uint32_t *n)
{
    mstate *ms = s->s_state;
    if (j->j_nlabels == 0) {
        *n = s->s_p->p_nodes;
        return NULL;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->s_p->p_nodes; i++)
        if (sim_node_fits(s, i, j))
            ms->ms_elig[k++] = i;
    *n = k;
    return ms->ms_elig;
}

/* sample puts k distinct nodes drawn from the n eligible (list NULL: all
 * nodes) into out. */
static void sample(sim *s, const uint32_t *list, uint32_t n, uint32_t k,
                   uint32_t *out)
{
    mstate *ms = s->s_state;
    if (list == NULL) {
        sk_rng_sample(&s->s_rng, n, k, ms->ms_perm, out);
        return;
    }
    sk_rng_sample_init(n, ms->ms_eperm);
    sk_rng_sample(&s->s_rng, n, k, ms->ms_eperm, out);
    for (uint32_t i = 0; i < k; i++)
        out[i] = list[out[i]];
}

/* prefs puts the preferred nodes of task t that fit j into out (at most
 * 16); returns how many. */
static uint32_t prefs(sim *s, const sim_job *j, uint32_t t, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t k = j->j_pref_off[t]; k < j->j_pref_off[t + 1]; k++) {
        uint32_t node = j->j_pref[k];
        bool dup = false;
        for (uint32_t q = 0; q < n; q++)
            dup |= out[q] == node;
        if (!dup && sim_node_fits(s, node, j))
            out[n++] = node;
    }
    return n;
}

/* Probes of task t out of total spread over m tasks. */
static uint32_t probes_of(uint64_t total, uint32_t m, uint32_t t)
{
    return (uint32_t)(total / m + (t < total % m ? 1 : 0));
}

static void mjob_free(mjob *mj)
{
    if (mj == NULL)
        return;
    free(mj->mj_node);
    free(mj->mj_load);
    free(mj->mj_task);
    free(mj->mj_first);
    free(mj->mj_tleft);
    free(mj);
}

static void send_probe(sim *s, sim_job *j, uint32_t probe, uint32_t node)
{
    bool fifo;
    sk_time at = sim_net_time(s, node, j->j_sched, true, &fifo);
    sim_ev *ev = sim_at(s, at, EV_PROBE, fifo, NULL);
    ev->ev_a = node;
    ev->ev_b = probe;
    ev->ev_p = j;
    s->s_st.st_net[SIM_MSG_PROBE]++;
}

static void random_submit(sim *s, sim_job *j)
{
    uint32_t n, cand[16], node;
    const uint32_t *list = eligible(s, j, &n);
    if (n == 0 && j->j_pref_off == NULL) {
        sim_job_end(s, j, SIM_JOB_REJECTED);
        return;
    }
    for (uint32_t t = 0; t < j->j_ntasks; t++) {
        if (sim_job_npref(j, t) > 0) {
            uint32_t k = prefs(s, j, t, cand);
            if (k == 0) {
                if (task_done(s, j, t, NULL))
                    return;
                continue;
            }
            node = cand[sk_rng_below(&s->s_rng, k)];
        } else if (n == 0) {
            if (task_done(s, j, t, NULL))
                return;
            continue;
        } else {
            uint32_t r = (uint32_t)sk_rng_below(&s->s_rng, n);
            node = list != NULL ? list[r] : r;
        }
        place(s, j, t, node);
    }
}

/* probe_submit: per-task and batch sampling send their probes. */
static void probe_submit(sim *s, sim_job *j)
{
    mstate *ms = s->s_state;
    uint32_t n, m = j->j_ntasks;
    const uint32_t *list = eligible(s, j, &n);
    if (n == 0 && j->j_pref_off == NULL) {
        sim_job_end(s, j, SIM_JOB_REJECTED);
        return;
    }
    uint64_t total = sim_theory_probes(s->s_p->p_ratio, m);
    mjob *mj = calloc(1, sizeof *mj);
    uint64_t cap = total + (uint64_t)m * 16;
    if (mj != NULL) {
        mj->mj_node = malloc(cap * sizeof *mj->mj_node);
        mj->mj_load = malloc(cap * sizeof *mj->mj_load);
        mj->mj_task = malloc(cap * sizeof *mj->mj_task);
        mj->mj_first = malloc((m + 1) * sizeof *mj->mj_first);
        mj->mj_tleft = calloc(m, sizeof *mj->mj_tleft);
    }
    if (mj == NULL || mj->mj_node == NULL || mj->mj_load == NULL ||
        mj->mj_task == NULL || mj->mj_first == NULL || mj->mj_tleft == NULL) {
        mjob_free(mj);
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    j->j_strat = mj;
    uint32_t np = 0, unconstrained = 0;
    for (uint32_t t = 0; t < m; t++)
        unconstrained += sim_job_npref(j, t) == 0;
    /* Batch: the unconstrained tasks share one sample of distinct nodes,
     * d per task, up to every eligible node. */
    if (ms->ms_kind == M_BATCH && unconstrained > 0 && n > 0) {
        uint64_t want = sim_theory_probes(s->s_p->p_ratio, unconstrained);
        uint32_t k = want < n ? (uint32_t)want : n;
        sample(s, list, n, k, &mj->mj_node[np]);
        for (uint32_t i = 0; i < k; i++)
            mj->mj_task[np + i] = SK_TASK_ANY;
        np += k;
    }
    for (uint32_t t = 0; t < m; t++) {
        mj->mj_first[t] = np;
        uint32_t cand[16], k = 0;
        if (sim_job_npref(j, t) > 0) {
            k = prefs(s, j, t, cand);
            uint32_t want = probes_of(total, m, t);
            if (want < 1)
                want = 1;
            /* d among the preferred nodes, in random order. */
            for (uint32_t i = 0; i < k; i++) {
                uint32_t r = i + (uint32_t)sk_rng_below(&s->s_rng, k - i);
                uint32_t tmp = cand[i];
                cand[i] = cand[r];
                cand[r] = tmp;
            }
            if (k > want)
                k = want;
            memcpy(&mj->mj_node[np], cand, k * sizeof cand[0]);
        } else if (ms->ms_kind == M_PERTASK && n > 0) {
            k = probes_of(total, m, t);
            if (k < 1)
                k = 1;
            if (k > n)
                k = n;
            sample(s, list, n, k, &mj->mj_node[np]);
        }
        for (uint32_t i = 0; i < k; i++)
            mj->mj_task[np + i] = t;
        mj->mj_tleft[t] = k;
        np += k;
    }
    mj->mj_nprobes = np;
    mj->mj_left = np;
    /* Tasks that can run nowhere fail now (a job of only such tasks ends
     * here). */
    for (uint32_t t = 0; t < m; t++) {
        bool nowhere = sim_job_npref(j, t) > 0 ? mj->mj_tleft[t] == 0 : n == 0;
        if (nowhere && task_done(s, j, t, NULL)) {
            mjob_free(mj);
            return;
        }
    }
    SK_ASSERT(np > 0);
    for (uint32_t i = 0; i < np; i++)
        send_probe(s, j, i, mj->mj_node[i]);
}

/* Among probes [from, to) of mj for task (or SK_TASK_ANY), the one with
 * the smallest load, the earliest on ties (probes are in random order). */
static uint32_t least_loaded(const mjob *mj, uint32_t from, uint32_t to,
                             uint32_t task)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = from; i < to; i++)
        if (mj->mj_task[i] == task &&
            (best == UINT32_MAX || mj->mj_load[i] < mj->mj_load[best]))
            best = i;
    return best;
}

/* batch_place: every answer is in. As in Sparrow, the unconstrained tasks
 * go to the least loaded of the probed nodes, one task per node (ties to
 * the earlier probe; probes are in random order); only when fewer nodes
 * were probed than tasks remain (few eligible nodes) does a node take
 * several, each counting against its load. A binary heap on (load,
 * probe) finds them. Tasks with preferred nodes go to the best of their
 * own probes. */
static void batch_place(sim *s, sim_job *j, mjob *mj)
{
    uint32_t m = j->j_ntasks, nany = 0, uleft = 0;
    while (nany < mj->mj_nprobes && mj->mj_task[nany] == SK_TASK_ANY)
        nany++;
    for (uint32_t t = 0; t < m; t++)
        uleft += sim_job_npref(j, t) == 0;
    uint32_t *heap = mj->mj_task; /* the ANY entries are free to reuse */
    uint32_t hlen = 0;
#define HLESS(a, b)                                                            \
    (mj->mj_load[a] < mj->mj_load[b] ||                                        \
     (mj->mj_load[a] == mj->mj_load[b] && (a) < (b)))
    for (uint32_t i = 0; i < nany; i++) {
        uint32_t c = hlen++;
        while (c > 0 && HLESS(i, heap[(c - 1) / 2])) {
            heap[c] = heap[(c - 1) / 2];
            c = (c - 1) / 2;
        }
        heap[c] = i;
    }
    for (uint32_t t = 0; t < m; t++) {
        if (sim_job_npref(j, t) > 0) {
            uint32_t b = least_loaded(
                mj, mj->mj_first[t],
                t + 1 < m ? mj->mj_first[t + 1] : mj->mj_nprobes, t);
            if (b != UINT32_MAX)
                place(s, j, t, mj->mj_node[b]);
            continue;
        }
        if (hlen == 0)
            continue; /* failed at submission: no eligible node */
        uint32_t top = heap[0];
        place(s, j, t, mj->mj_node[top]);
        uleft--;
        if (hlen - 1 >= uleft)
            heap[0] = heap[--hlen]; /* one task per node */
        else
            mj->mj_load[top]++;
        /* Sift the new top down. */
        uint32_t c = 0;
        for (;;) {
            uint32_t l = 2 * c + 1, best = c;
            if (l < hlen && HLESS(heap[l], heap[best]))
                best = l;
            if (l + 1 < hlen && HLESS(heap[l + 1], heap[best]))
                best = l + 1;
            if (best == c)
                break;
            uint32_t tmp = heap[c];
            heap[c] = heap[best];
            heap[best] = tmp;
            c = best;
        }
    }
#undef HLESS
}

static void reply(sim *s, sim_job *j, uint32_t probe, uint32_t load)
{
    mstate *ms = s->s_state;
    mjob *mj = j->j_strat;
    mj->mj_load[probe] = load;
    mj->mj_left--;
    uint32_t t = mj->mj_task[probe];
    if (ms->ms_kind == M_PERTASK && --mj->mj_tleft[t] == 0) {
        uint32_t end =
            t + 1 < j->j_ntasks ? mj->mj_first[t + 1] : mj->mj_nprobes;
        place(s, j, t, mj->mj_node[least_loaded(mj, mj->mj_first[t], end, t)]);
    }
    if (mj->mj_left > 0)
        return;
    if (ms->ms_kind == M_BATCH)
        batch_place(s, j, mj);
    j->j_strat = NULL;
    mjob_free(mj);
}

/* ---- events ----------------------------------------------------------- */

static void model_event(sim *s, const sim_ev *ev)
{
    mstate *ms = s->s_state;
    switch (ev->ev_kind) {
    case EV_PLACE:
        node_arrive(s, ev->ev_a, ev->ev_p);
        break;
    case EV_END:
        node_end(s, ev->ev_a, ev->ev_p);
        break;
    case EV_DONE: {
        mtask *mt = ev->ev_p;
        task_done(s, mt->mt_job, mt->mt_task, mt);
        task_put(ms, mt);
        break;
    }
    case EV_PROBE: {
        const mnode *n = &ms->ms_nodes[ev->ev_a];
        sim_job *j = ev->ev_p;
        bool fifo;
        sk_time at = sim_net_time(s, ev->ev_a, j->j_sched, false, &fifo);
        sim_ev *r = sim_at(s, at, EV_REPLY, fifo, NULL);
        r->ev_b = ev->ev_b;
        r->ev_c = n->mn_busy + n->mn_queued;
        r->ev_p = j;
        s->s_st.st_net[SIM_MSG_PROBE_REPLY]++;
        break;
    }
    case EV_REPLY:
        reply(s, ev->ev_p, ev->ev_b, ev->ev_c);
        break;
    default:
        sim_fail(s, SK_ESTATE, "unknown event kind %u", ev->ev_kind);
    }
}

/* ---- set-up ----------------------------------------------------------- */

static void model_fini(sim *s)
{
    mstate *ms = s->s_state;
    if (ms == NULL)
        return;
    for (sim_job *j = s->s_inflight; j != NULL; j = j->j_next) {
        mjob_free(j->j_strat);
        j->j_strat = NULL;
    }
    for (uint32_t i = 0; i < ms->ms_nchunks; i++)
        free(ms->ms_chunks[i]);
    free(ms->ms_chunks);
    free(ms->ms_nodes);
    free(ms->ms_perm);
    free(ms->ms_elig);
    free(ms->ms_eperm);
    free(ms->ms_pick);
    free(ms);
    s->s_state = NULL;
}

static int model_init(sim *s, model_kind kind)
{
    uint32_t n = s->s_p->p_nodes;
    mstate *ms = calloc(1, sizeof *ms);
    if (ms == NULL)
        return SK_ENOMEM;
    s->s_state = ms;
    ms->ms_kind = kind;
    ms->ms_nodes = calloc(n, sizeof *ms->ms_nodes);
    ms->ms_perm = malloc(n * sizeof *ms->ms_perm);
    ms->ms_elig = malloc(n * sizeof *ms->ms_elig);
    ms->ms_eperm = malloc(n * sizeof *ms->ms_eperm);
    if (ms->ms_nodes == NULL || ms->ms_perm == NULL || ms->ms_elig == NULL ||
        ms->ms_eperm == NULL) {
        model_fini(s);
        return SK_ENOMEM;
    }
    sk_rng_sample_init(n, ms->ms_perm);
    return 0;
}

static int random_init(sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return model_init(s, M_RANDOM);
}

static int pertask_init(sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return model_init(s, M_PERTASK);
}

static int batch_init(sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return model_init(s, M_BATCH);
}

static int model_check(sim *s, char *err, size_t errlen)
{
    mstate *ms = s->s_state;
    for (uint32_t i = 0; i < s->s_p->p_nodes; i++) {
        const mnode *n = &ms->ms_nodes[i];
        if (n->mn_busy > s->s_p->p_slots ||
            (n->mn_queued > 0 && n->mn_busy < s->s_p->p_slots)) {
            snprintf(err, errlen,
                     "node n%u runs %u of %u slots with %u tasks queued", i,
                     n->mn_busy, s->s_p->p_slots, n->mn_queued);
            return SK_ESTATE;
        }
    }
    return 0;
}

static void model_report(sim *s, FILE *out)
{
    mstate *ms = s->s_state;
    if (ms->ms_failed > 0)
        fprintf(out,
                "model               %llu tasks had no node they may "
                "use\n",
                (unsigned long long)ms->ms_failed);
}

const sim_strategy sim_strategy_random = {
    .ss_name = "random",
    .ss_summary = "each task to a node chosen at random (model)",
    .ss_init = random_init,
    .ss_fini = model_fini,
    .ss_submit = random_submit,
    .ss_event = model_event,
    .ss_check = model_check,
    .ss_report = model_report,
};

const sim_strategy sim_strategy_pertask = {
    .ss_name = "per-task",
    .ss_summary = "each task probes d nodes, goes to the shortest queue "
                  "(model)",
    .ss_init = pertask_init,
    .ss_fini = model_fini,
    .ss_submit = probe_submit,
    .ss_event = model_event,
    .ss_check = model_check,
    .ss_report = model_report,
};

const sim_strategy sim_strategy_batch = {
    .ss_name = "batch",
    .ss_summary = "a job probes d*m nodes, its tasks go to the least "
                  "loaded; no late binding (model)",
    .ss_init = batch_init,
    .ss_fini = model_fini,
    .ss_submit = probe_submit,
    .ss_event = model_event,
    .ss_check = model_check,
    .ss_report = model_report,
};
