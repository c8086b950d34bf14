/*
 * sched_offers.c - outcomes offered by node monitors (TASK_OUTCOME): how
 * a task ended whose own scheduler may never have heard it, named by the
 * frontend's job key, the task's ref and its user (docs/FAULTS.md,
 * "Outcomes offered").
 *
 * An offer for a job this core holds (by key, and the same user: a key
 * is no credential, the user the frontend authenticated as is) becomes
 * the outcome of the task it names, unless that task has one: a pending
 * retry is taken out of the queue, a launched or running one killed. An
 * offer for a job the core does not hold is kept, at most
 * max_offers for offer_keep_ms, for the frontend's resubmission that
 * may come: at admission its tasks with an offer are taken out of the
 * queue before any probe is sent, and end with the offered outcome as
 * soon as the job is accepted. First outcome wins: a task reports one.
 *
 * Kept offers: a list in arrival order (every offer is kept equally
 * long, so it is also the order of expiry) and a map from key to the
 * key's offers, chained.
 */
#include "sched_int.h"
#include "sk_log.h"

#include <stdlib.h>
#include <string.h>

struct sched_offer {
    sched_offer *of_knext; /* the key's next offer (c_offers chain) */
    sched_offer *of_next;  /* arrival order (c_ohead) */
    sched_offer *of_prev;
    uint64_t of_key;
    uint32_t of_ref;
    sk_time of_until;
    uint8_t of_status;
    int32_t of_exit;
    uint64_t of_launch_us, of_end_us;
    uint32_t of_out_len;
    char *of_user; /* after the output, in the same allocation */
    char *of_node;
    uint8_t of_out[];
};

/* The task of j named ref, or NULL: refs increase (admission checks). */
static sched_task *task_by_ref(sched_job *j, uint32_t ref)
{
    uint32_t lo = 0, hi = j->j_ntasks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (j->j_tasks[mid].tk_ref < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < j->j_ntasks && j->j_tasks[lo].tk_ref == ref ? &j->j_tasks[lo]
                                                            : NULL;
}

/* take ends t with the offered outcome; true if the job ended. */
static bool take(sched_core *c, sched_task *t, uint8_t status,
                 int32_t exit_code, sk_bytes out, const char *node,
                 uint64_t launch_us, uint64_t end_us)
{
    c->c_stats.ss_offers_taken++;
    if (t->tk_state == SCHED_TASK_PENDING && t->tk_npref == 0 && !t->tk_offered)
        sched_queue_remove(t->tk_job, (uint32_t)(t - t->tk_job->j_tasks));
    if (t->tk_node != NULL)
        sched_kill(c, t); /* the retry: the task has its outcome */
    if (t->tk_flow != NULL)
        sched_flow_settled(c, t, status); /* flowd holds a retry */
    t->tk_offered = false;
    return sched_task_final(c, t, status, exit_code, out, node, launch_us,
                            end_us);
}

static void unlink_offer(sched_core *c, sched_offer *o)
{
    if (o->of_prev != NULL)
        o->of_prev->of_next = o->of_next;
    else
        c->c_ohead = o->of_next;
    if (o->of_next != NULL)
        o->of_next->of_prev = o->of_prev;
    else
        c->c_otail = o->of_prev;
    sched_offer **pp = NULL;
    sched_offer *head = sk_map_get(&c->c_offers, o->of_key);
    if (head == o) {
        if (o->of_knext != NULL)
            sk_map_put(&c->c_offers, o->of_key, o->of_knext); /* no growth */
        else
            sk_map_del(&c->c_offers, o->of_key);
    } else {
        for (pp = &head->of_knext; *pp != o; pp = &(*pp)->of_knext)
            ;
        *pp = o->of_knext;
    }
    c->c_noffers--;
    free(o);
}

/* keep stores an offer for a job not here; false when out of memory. */
static void keep(sched_core *c, const sk_task_outcome *to, sk_time now)
{
    if (c->c_noffers >= (uint64_t)c->c_cfg.sc_max_offers) {
        c->c_stats.ss_offers_full++;
        if (c->c_ohead == NULL)
            return; /* max_offers 0: keep none */
        unlink_offer(c, c->c_ohead);
    }
    uint32_t out = to->to_output.b_len;
    if (out > SK_MAX_OUTPUT_BYTES || (out > 0 && to->to_output.b_data == NULL))
        out = 0;
    size_t ulen = strlen(to->to_user) + 1, nlen = strlen(to->to_node) + 1;
    sched_offer *o = malloc(sizeof *o + out + ulen + nlen);
    sched_offer *head = sk_map_get(&c->c_offers, to->to_key);
    if (o == NULL || sk_map_put(&c->c_offers, to->to_key, o) != 0) {
        free(o);
        c->c_stats.ss_nomem++;
        return;
    }
    o->of_knext = head;
    o->of_key = to->to_key;
    o->of_ref = to->to_ref;
    o->of_until = now + (sk_time)c->c_cfg.sc_offer_keep_ms * 1000;
    o->of_status = to->to_status;
    o->of_exit = to->to_exit;
    o->of_launch_us = to->to_launch_us;
    o->of_end_us = to->to_end_us;
    o->of_out_len = out;
    if (out > 0)
        memcpy(o->of_out, to->to_output.b_data, out);
    o->of_user = (char *)o->of_out + out;
    memcpy(o->of_user, to->to_user, ulen);
    o->of_node = o->of_user + ulen;
    memcpy(o->of_node, to->to_node, nlen);
    o->of_next = NULL;
    o->of_prev = c->c_otail;
    if (c->c_otail != NULL)
        c->c_otail->of_next = o;
    else
        c->c_ohead = o;
    c->c_otail = o;
    c->c_noffers++;
    c->c_stats.ss_offers_kept++;
}

void sched_offer_in(sched_core *c, sk_peer from, const sk_task_outcome *to,
                    sk_time now)
{
    /* Only a node monitor ran the task; the codec checked the ranges,
     * a driver that hands over a message of its own may not have. */
    if (sk_map_get(&c->c_nodes, from) == NULL) {
        c->c_stats.ss_bad_peer++;
        return;
    }
    if (to->to_key == 0 || to->to_user == NULL || to->to_node == NULL ||
        (to->to_status != SK_TASK_OK && to->to_status != SK_TASK_FAILED)) {
        c->c_stats.ss_bad_field++;
        return;
    }
    c->c_stats.ss_offers++;
    sched_job *j = sk_map_get(&c->c_keys, to->to_key);
    if (j == NULL) {
        keep(c, to, now);
        return;
    }
    if (strcmp(j->j_user, to->to_user) != 0) {
        c->c_stats.ss_offers_refused++;
        return;
    }
    sched_task *t = task_by_ref(j, to->to_ref);
    if (t == NULL || t->tk_state == SCHED_TASK_DONE) {
        c->c_stats.ss_offers_late++;
        return;
    }
    sk_bytes out = to->to_output;
    if (out.b_len > SK_MAX_OUTPUT_BYTES || out.b_data == NULL)
        out.b_len = 0;
    uint8_t *copy = out.b_len > 0
                        ? sk_arena_memdup(&c->c_scratch, out.b_data, out.b_len)
                        : NULL;
    out.b_data = copy;
    if (copy == NULL)
        out.b_len = 0;
    const char *node = sk_arena_strdup(&c->c_scratch, to->to_node);
    take(c, t, to->to_status, to->to_exit, out, node != NULL ? node : "",
         to->to_launch_us, to->to_end_us);
}

uint32_t sched_offers_claim(sched_core *c, sched_job *j)
{
    uint32_t n = 0;
    for (sched_offer *o = sk_map_get(&c->c_offers, j->j_key); o != NULL;
         o = o->of_knext) {
        if (strcmp(o->of_user, j->j_user) != 0) {
            c->c_stats.ss_offers_refused++;
            continue;
        }
        sched_task *t = task_by_ref(j, o->of_ref);
        if (t == NULL || t->tk_offered)
            continue;
        t->tk_offered = true;
        n++;
        if (t->tk_npref == 0)
            sched_queue_remove(j, (uint32_t)(t - j->j_tasks));
    }
    return n;
}

bool sched_offers_settle(sched_core *c, sched_job *j)
{
    sched_offer *o = sk_map_get(&c->c_offers, j->j_key);
    while (o != NULL) {
        sched_offer *next = o->of_knext;
        sched_task *t = strcmp(o->of_user, j->j_user) == 0
                            ? task_by_ref(j, o->of_ref)
                            : NULL;
        if (t != NULL && t->tk_offered) {
            /* The outbox keeps pointing at the output and the node: copy
             * them before the offer goes. */
            sk_bytes out = {NULL, 0};
            if (o->of_out_len > 0 &&
                (out.b_data = sk_arena_memdup(&c->c_scratch, o->of_out,
                                              o->of_out_len)) != NULL)
                out.b_len = o->of_out_len;
            const char *node = sk_arena_strdup(&c->c_scratch, o->of_node);
            uint8_t status = o->of_status;
            int32_t code = o->of_exit;
            uint64_t launch = o->of_launch_us, end = o->of_end_us;
            unlink_offer(c, o);
            if (take(c, t, status, code, out, node != NULL ? node : "", launch,
                     end))
                return true;
        }
        o = next;
    }
    return false;
}

void sched_offers_expire(sched_core *c, sk_time now)
{
    while (c->c_ohead != NULL && c->c_ohead->of_until <= now) {
        c->c_stats.ss_offers_expired++;
        unlink_offer(c, c->c_ohead);
    }
}

sk_time sched_offers_deadline(const sched_core *c)
{
    return c->c_ohead != NULL ? c->c_ohead->of_until : SK_TIME_NEVER;
}

void sched_offers_free(sched_core *c)
{
    while (c->c_ohead != NULL)
        unlink_offer(c, c->c_ohead);
    sk_map_free(&c->c_offers);
}
