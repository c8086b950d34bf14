/*
 * sim_omni.c - the omniscient scheduler: the ideal the sampling
 * strategies are measured against. It sees every slot of the cluster at
 * once, has no network and no decision cost: one global queue (strict
 * priority, then first come, first served by job and task), and every
 * task goes to a free slot the moment one exists. A slot that frees takes
 * the earliest waiting task that may run there.
 *
 * Constraints: a task of a job with labels, or with preferred nodes, may
 * only run on the nodes that allow it; such tasks wait in a list of their
 * own, which a freed slot scans for the earliest one it can take (so the
 * cost of a freed slot is O(constrained tasks waiting); unconstrained
 * tasks cost O(1)).
 */
#include "sim.h"

#include "sk_log.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

enum {
    EV_END = SIM_EV_STRATEGY, /* ev_a node, ev_b task, ev_p job */
};

/* A job whose unconstrained tasks wait, from task oj_next on. */
typedef struct ojob {
    sim_job *oj_job;
    uint32_t oj_next;
    uint32_t oj_queued; /* unconstrained tasks not yet started */
    struct ojob *oj_qnext;
    sk_time *oj_start; /* per task: when it started */
} ojob;

/* A constrained task waiting. */
typedef struct octask {
    sim_job *ct_job;
    uint32_t ct_task;
    struct octask *ct_next;
    struct octask *ct_prev;
} octask;

typedef struct ostate {
    uint32_t *os_free;  /* free slots per node */
    uint32_t *os_stack; /* nodes with a free slot */
    uint32_t *os_pos;   /* a node's place in os_stack, or UINT32_MAX */
    uint32_t os_nfree;  /* nodes in os_stack */
    ojob *os_head[SK_PRIORITIES];
    ojob *os_tail[SK_PRIORITIES];
    octask *os_chead[SK_PRIORITIES];
    octask *os_ctail[SK_PRIORITIES];
    uint64_t os_cwaiting;
    uint64_t os_failed;
} ostate;

static bool constrained(const sim_job *j, uint32_t t)
{
    return j->j_nlabels > 0 || sim_job_npref(j, t) > 0;
}

static bool may_run(const sim *s, const sim_job *j, uint32_t t, uint32_t node)
{
    if (!sim_node_fits(s, node, j))
        return false;
    uint32_t n = sim_job_npref(j, t);
    if (n == 0)
        return true;
    for (uint32_t k = j->j_pref_off[t]; k < j->j_pref_off[t + 1]; k++)
        if (j->j_pref[k] == node)
            return true;
    return false;
}

static void take_slot(ostate *os, uint32_t node)
{
    if (--os->os_free[node] > 0)
        return;
    uint32_t pos = os->os_pos[node], last = os->os_stack[--os->os_nfree];
    os->os_stack[pos] = last;
    os->os_pos[last] = pos;
    os->os_pos[node] = UINT32_MAX;
}

static void give_slot(ostate *os, uint32_t node)
{
    if (os->os_free[node]++ > 0)
        return;
    os->os_pos[node] = os->os_nfree;
    os->os_stack[os->os_nfree++] = node;
}

static void start(sim *s, sim_job *j, uint32_t t, uint32_t node)
{
    ostate *os = s->s_state;
    ojob *oj = j->j_strat;
    take_slot(os, node);
    sim_busy(s, +1);
    sim_task_start(s, j);
    oj->oj_start[t] = s->s_now;
    sim_ev *ev = sim_at(s, s->s_now + j->j_dur[t], EV_END, false, NULL);
    ev->ev_a = node;
    ev->ev_b = t;
    ev->ev_p = j;
}

static void job_free(ojob *oj)
{
    if (oj == NULL)
        return;
    free(oj->oj_start);
    free(oj);
}

/* task_final records a task's outcome; true when its job ended. */
static bool task_final(sim *s, sim_job *j, uint32_t t, int32_t node)
{
    ojob *oj = j->j_strat;
    if (node < 0) {
        ((ostate *)s->s_state)->os_failed++;
        sim_task_end(s, j, t, 0, NULL, 0, 0, SK_TASK_FAILED, false);
    } else {
        sim_task_end(s, j, t, 0, sim_node_str(s, (uint32_t)node),
                     oj->oj_start[t], s->s_now, SK_TASK_OK,
                     oj->oj_start[t] > j->j_arrival);
    }
    if (j->j_ndone < j->j_ntasks)
        return false;
    job_free(oj);
    j->j_strat = NULL;
    sim_job_end(s, j, SIM_JOB_DONE);
    return true;
}

/* free_node_for finds a node with a free slot that task t of j may use. */
static int64_t free_node_for(sim *s, const sim_job *j, uint32_t t)
{
    ostate *os = s->s_state;
    uint32_t n = sim_job_npref(j, t);
    if (n > 0) {
        for (uint32_t k = j->j_pref_off[t]; k < j->j_pref_off[t + 1]; k++) {
            uint32_t node = j->j_pref[k];
            if (os->os_free[node] > 0 && sim_node_fits(s, node, j))
                return node;
        }
        return -1;
    }
    for (uint32_t i = 0; i < os->os_nfree; i++)
        if (sim_node_fits(s, os->os_stack[i], j))
            return os->os_stack[i];
    return -1;
}

/* can_ever_run tells whether some node may run task t of j (t of
 * UINT32_MAX: a task without preferences). */
static bool can_ever_run(const sim *s, const sim_job *j, uint32_t t)
{
    if (t != UINT32_MAX && sim_job_npref(j, t) > 0) {
        for (uint32_t k = j->j_pref_off[t]; k < j->j_pref_off[t + 1]; k++)
            if (sim_node_fits(s, j->j_pref[k], j))
                return true;
        return false;
    }
    for (uint32_t i = 0; i < s->s_p->p_nodes; i++)
        if (sim_node_fits(s, i, j))
            return true;
    return false;
}

static void omni_submit(sim *s, sim_job *j)
{
    ostate *os = s->s_state;
    ojob *oj = calloc(1, sizeof *oj);
    if (oj != NULL)
        oj->oj_start = calloc(j->j_ntasks, sizeof *oj->oj_start);
    if (oj == NULL || oj->oj_start == NULL) {
        job_free(oj);
        sim_fail(s, SK_ENOMEM, "out of memory");
        return;
    }
    oj->oj_job = j;
    j->j_strat = oj;
    uint8_t p = j->j_prio;
    bool labelled_ok = j->j_nlabels == 0 || can_ever_run(s, j, UINT32_MAX);
    for (uint32_t t = 0; t < j->j_ntasks; t++) {
        if (!constrained(j, t)) {
            oj->oj_queued++;
            continue;
        }
        if ((sim_job_npref(j, t) == 0 && !labelled_ok) ||
            (sim_job_npref(j, t) > 0 && !can_ever_run(s, j, t))) {
            if (task_final(s, j, t, -1))
                return;
            continue;
        }
        int64_t node = free_node_for(s, j, t);
        if (node >= 0) {
            start(s, j, t, (uint32_t)node);
            continue;
        }
        octask *ct = calloc(1, sizeof *ct);
        if (ct == NULL) {
            sim_fail(s, SK_ENOMEM, "out of memory");
            return;
        }
        ct->ct_job = j;
        ct->ct_task = t;
        ct->ct_prev = os->os_ctail[p];
        if (os->os_ctail[p] != NULL)
            os->os_ctail[p]->ct_next = ct;
        else
            os->os_chead[p] = ct;
        os->os_ctail[p] = ct;
        os->os_cwaiting++;
    }
    /* Free slots exist only while nothing unconstrained waits, so the
     * new job's tasks take them before anything queues. */
    while (oj->oj_queued > 0 && os->os_nfree > 0) {
        while (constrained(j, oj->oj_next))
            oj->oj_next++;
        start(s, j, oj->oj_next++, os->os_stack[os->os_nfree - 1]);
        oj->oj_queued--;
    }
    if (oj->oj_queued > 0) {
        if (os->os_tail[p] != NULL)
            os->os_tail[p]->oj_qnext = oj;
        else
            os->os_head[p] = oj;
        os->os_tail[p] = oj;
    }
}

/* next_for finds the earliest waiting task that may run on node, takes it
 * off its queue and starts it there. Returns false if none may. */
static bool next_for(sim *s, uint32_t node)
{
    ostate *os = s->s_state;
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        ojob *oj = os->os_head[p];
        octask *ct = os->os_chead[p];
        while (ct != NULL && !may_run(s, ct->ct_job, ct->ct_task, node))
            ct = ct->ct_next;
        if (oj == NULL && ct == NULL)
            continue;
        bool take_fifo =
            ct == NULL || (oj != NULL && oj->oj_job->j_seq < ct->ct_job->j_seq);
        if (take_fifo) {
            sim_job *j = oj->oj_job;
            while (constrained(j, oj->oj_next))
                oj->oj_next++;
            uint32_t t = oj->oj_next++;
            if (--oj->oj_queued == 0) {
                os->os_head[p] = oj->oj_qnext;
                if (os->os_head[p] == NULL)
                    os->os_tail[p] = NULL;
                oj->oj_qnext = NULL;
            }
            start(s, j, t, node);
            return true;
        }
        if (ct->ct_prev != NULL)
            ct->ct_prev->ct_next = ct->ct_next;
        else
            os->os_chead[p] = ct->ct_next;
        if (ct->ct_next != NULL)
            ct->ct_next->ct_prev = ct->ct_prev;
        else
            os->os_ctail[p] = ct->ct_prev;
        os->os_cwaiting--;
        sim_job *j = ct->ct_job;
        uint32_t t = ct->ct_task;
        free(ct);
        start(s, j, t, node);
        return true;
    }
    return false;
}

static void omni_event(sim *s, const sim_ev *ev)
{
    ostate *os = s->s_state;
    if (ev->ev_kind != EV_END) {
        sim_fail(s, SK_ESTATE, "unknown event kind %u", ev->ev_kind);
        return;
    }
    uint32_t node = ev->ev_a;
    give_slot(os, node);
    sim_busy(s, -1);
    task_final(s, ev->ev_p, ev->ev_b, (int32_t)node);
    next_for(s, node);
}

static void omni_fini(sim *s)
{
    ostate *os = s->s_state;
    if (os == NULL)
        return;
    for (unsigned p = 0; p < SK_PRIORITIES; p++)
        while (os->os_chead[p] != NULL) {
            octask *ct = os->os_chead[p];
            os->os_chead[p] = ct->ct_next;
            free(ct);
        }
    for (sim_job *j = s->s_inflight; j != NULL; j = j->j_next) {
        job_free(j->j_strat);
        j->j_strat = NULL;
    }
    free(os->os_free);
    free(os->os_stack);
    free(os->os_pos);
    free(os);
    s->s_state = NULL;
}

static int omni_init(sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint32_t n = s->s_p->p_nodes;
    ostate *os = calloc(1, sizeof *os);
    if (os == NULL)
        return SK_ENOMEM;
    s->s_state = os;
    os->os_free = malloc(n * sizeof *os->os_free);
    os->os_stack = malloc(n * sizeof *os->os_stack);
    os->os_pos = malloc(n * sizeof *os->os_pos);
    if (os->os_free == NULL || os->os_stack == NULL || os->os_pos == NULL) {
        omni_fini(s);
        return SK_ENOMEM;
    }
    /* Lowest node first on the stack's top: the first free slot. */
    for (uint32_t i = 0; i < n; i++) {
        os->os_free[i] = s->s_p->p_slots;
        os->os_stack[i] = n - 1 - i;
        os->os_pos[n - 1 - i] = i;
    }
    os->os_nfree = n;
    return 0;
}

static int omni_check(sim *s, char *err, size_t errlen)
{
    ostate *os = s->s_state;
    if (os->os_nfree == 0)
        return 0;
    for (unsigned p = 0; p < SK_PRIORITIES; p++) {
        if (os->os_head[p] != NULL) {
            snprintf(err, errlen,
                     "node n%u has a free slot while job %llu waits",
                     os->os_stack[0],
                     (unsigned long long)os->os_head[p]->oj_job->j_seq);
            return SK_ESTATE;
        }
        for (const octask *ct = os->os_chead[p]; ct != NULL; ct = ct->ct_next)
            for (uint32_t i = 0; i < os->os_nfree; i++)
                if (may_run(s, ct->ct_job, ct->ct_task, os->os_stack[i])) {
                    snprintf(err, errlen,
                             "node n%u has a free slot while job %llu task "
                             "%u, which may run there, waits",
                             os->os_stack[i],
                             (unsigned long long)ct->ct_job->j_seq,
                             ct->ct_task);
                    return SK_ESTATE;
                }
    }
    return 0;
}

static void omni_report(sim *s, FILE *out)
{
    ostate *os = s->s_state;
    if (os->os_failed > 0)
        fprintf(out,
                "omniscient          %llu tasks had no node they may "
                "use\n",
                (unsigned long long)os->os_failed);
}

const sim_strategy sim_strategy_omni = {
    .ss_name = "omniscient",
    .ss_summary = "one global queue, every task to the first free slot, no "
                  "network (the ideal)",
    .ss_init = omni_init,
    .ss_fini = omni_fini,
    .ss_submit = omni_submit,
    .ss_event = omni_event,
    .ss_check = omni_check,
    .ss_report = omni_report,
};
