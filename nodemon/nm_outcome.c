/*
 * nm_outcome.c - the node monitor core's recent outcomes: how the tasks
 * that ran here under a frontend's name (a job key and a ref, given by
 * the scheduler in TASK_REPLY) ended, kept for outcome_keep_ms so that
 * an outcome its scheduler may have missed can be offered elsewhere
 * (docs/FAULTS.md, "Outcomes offered").
 *
 * A TASK_FINISHED sent into a session that has just died is dropped by
 * the transport, and the core never learns it; nor does an
 * acknowledgement from the scheduler prove that the frontend heard (the
 * scheduler may die between the two). So the core keeps every keyed
 * outcome for a while and, when the session to its scheduler ends,
 * offers those of that scheduler (TASK_OUTCOME) to every other
 * scheduler connected here, and to that scheduler itself should the same
 * process come back. An outcome of an orphan (its scheduler had already
 * left) is offered as it ends. The schedulers match offers against the
 * jobs they hold or are given, by key, ref and user; an offer nobody
 * takes expires there.
 *
 * The same goes for a framework executor stopped or cut off past the
 * session timeout: its running tasks were reported LOST, and those that
 * ended meanwhile are told again by the same executor process back
 * (nm_outcome_lost, nm_outcome_late, below).
 *
 * The kept outcomes form one list in the order they ended; an entry
 * leaves when it is older than outcome_keep_ms or when max_outcomes are
 * kept and a newer one comes (ns_outcomes_full). Age counts only time
 * in which some scheduler was connected here: a node monitor cut off
 * from every scheduler (a partition of its host) keeps what it has until
 * one is back and has been offered it for outcome_keep_ms. Expired entries are
 * dropped as new ones come and when they are looked at, so no timer is
 * needed.
 */
#include "nm_int.h"
#include "sk_log.h"

#include <stdlib.h>
#include <string.h>

/* The head of a kept record (an outcome or a lost run): its place in
 * its list, oldest first, and when it was kept. */
typedef struct kept {
    nm_link kp_link;
    sk_time kp_at;
    sk_time kp_alone; /* alone_us() then */
} kept;

/* One kept outcome. */
struct nm_outcome {
    kept oc_kept;          /* in nm_outcomes */
    uint32_t oc_sched;     /* the HELLO id of the scheduler it was for */
    uint64_t oc_sched_inc; /* and its incarnation */
    uint64_t oc_key;
    uint32_t oc_ref;
    uint8_t oc_status;
    int32_t oc_exit;
    uint64_t oc_launch_us, oc_end_us;
    uint32_t oc_out_len;
    char *oc_user;    /* after the struct */
    uint8_t oc_out[]; /* the output's tail, then the user's name */
};

/* Drops the record at l from its list, of *n records. */
static void kept_drop(nm_link *l, uint64_t *n)
{
    nm_list_remove(l);
    (*n)--;
    free(NM_CONTAINER(l, kept, kp_link));
}

/* Time so far with no scheduler connected. */
static sk_time alone_us(const nm_core *nm, sk_time now)
{
    sk_time since = nm->nm_alone_since;
    return nm->nm_alone_us + (since != 0 && now > since ? now - since : 0);
}

/* Stamps a new record k. */
static void kept_stamp(const nm_core *nm, kept *k, sk_time now)
{
    k->kp_at = now;
    k->kp_alone = alone_us(nm, now);
}

/* Drops the records of list older than the keep time, not counting time
 * with no scheduler connected. */
static void kept_expire(const nm_core *nm, nm_link *list, uint64_t *n,
                        sk_time now)
{
    sk_time keep = (sk_time)nm->nm_cfg.nc_outcome_keep_ms * 1000;
    sk_time alone = alone_us(nm, now);
    nm_link *l;
    while ((l = nm_list_first(list)) != NULL) {
        const kept *k = NM_CONTAINER(l, kept, kp_link);
        sk_time since = now > k->kp_at ? now - k->kp_at : 0;
        sk_time away = alone - k->kp_alone;
        if (since <= away || since - away <= keep)
            break;
        kept_drop(l, n);
    }
}

void nm_outcomes_schedulers(nm_core *nm, sk_time now)
{
    bool alone = nm->nm_sched_ids.ht_count == 0;
    if (nm->nm_alone_since != 0 && !alone) {
        nm->nm_alone_us = alone_us(nm, now);
        nm->nm_alone_since = 0;
    } else if (nm->nm_alone_since == 0 && alone) {
        nm->nm_alone_since = now > 0 ? now : 1;
    }
}

static void drop(nm_core *nm, nm_outcome *oc)
{
    kept_drop(&oc->oc_kept.kp_link, &nm->nm_noutcomes);
}

static void expire(nm_core *nm, sk_time now)
{
    kept_expire(nm, &nm->nm_outcomes, &nm->nm_noutcomes, now);
}

/* Sends oc to the scheduler peer to. */
static void offer(nm_core *nm, const nm_outcome *oc, sk_peer to)
{
    sk_msg *m = nm_push(nm, to, SK_MSG_TASK_OUTCOME);
    if (m == NULL)
        return;
    sk_task_outcome *o = &m->m_task_outcome;
    o->to_key = oc->oc_key;
    o->to_ref = oc->oc_ref;
    o->to_user = oc->oc_user;
    o->to_node = nm->nm_cfg.nc_node;
    o->to_status = oc->oc_status;
    o->to_exit = oc->oc_exit;
    o->to_output = (sk_bytes){oc->oc_out, oc->oc_out_len};
    o->to_launch_us = oc->oc_launch_us;
    o->to_end_us = oc->oc_end_us;
    nm->nm_st.ns_outcomes_offered++;
}

/* Offers oc to every scheduler connected here but the one of HELLO id
 * but (UINT32_MAX: none). */
static void offer_all(nm_core *nm, const nm_outcome *oc, uint32_t but)
{
    for (size_t i = 0; i < nm->nm_sched_ids.ht_nbuckets; i++)
        for (nm_hnode *h = nm->nm_sched_ids.ht_buckets[i]; h != NULL;
             h = h->hn_next) {
            const nm_peer *p = NM_CONTAINER(h, nm_peer, pe_sched_hnode);
            if (p->pe_hello_id != but)
                offer(nm, oc, p->pe_id);
        }
}

/* Keeps an outcome (when keeping is on); returns it, or NULL. */
static nm_outcome *keep(nm_core *nm, uint32_t sched, uint64_t sched_inc,
                        uint64_t key, uint32_t ref, const char *user,
                        sk_time launch, const sk_task_finished *f, sk_time now)
{
    if (nm->nm_cfg.nc_outcome_keep_ms == 0 || nm->nm_cfg.nc_max_outcomes == 0)
        return NULL;
    expire(nm, now);
    if (nm->nm_noutcomes >= (uint64_t)nm->nm_cfg.nc_max_outcomes) {
        nm->nm_st.ns_outcomes_full++;
        kept_drop(nm_list_first(&nm->nm_outcomes), &nm->nm_noutcomes);
    }
    uint32_t out = f->tf_output.b_len <= SK_MAX_OUTPUT_BYTES
                       ? f->tf_output.b_len
                       : SK_MAX_OUTPUT_BYTES;
    size_t ulen = strlen(user) + 1;
    nm_outcome *oc = malloc(sizeof *oc + out + ulen);
    if (oc == NULL) {
        nm->nm_st.ns_nomem++;
        return NULL;
    }
    oc->oc_sched = sched;
    oc->oc_sched_inc = sched_inc;
    kept_stamp(nm, &oc->oc_kept, now);
    oc->oc_key = key;
    oc->oc_ref = ref;
    oc->oc_status = f->tf_status;
    oc->oc_exit = f->tf_exit;
    oc->oc_launch_us = launch;
    oc->oc_end_us = f->tf_end_us;
    oc->oc_out_len = out;
    if (out > 0)
        memcpy(oc->oc_out, f->tf_output.b_data + (f->tf_output.b_len - out),
               out);
    oc->oc_user = (char *)oc->oc_out + out;
    memcpy(oc->oc_user, user, ulen);
    nm_list_push_back(&nm->nm_outcomes, &oc->oc_kept.kp_link);
    nm->nm_noutcomes++;
    nm->nm_st.ns_outcomes_kept++;
    return oc;
}

void nm_outcome_keep(nm_core *nm, const nm_task *t, uint32_t sched,
                     uint64_t sched_inc, const sk_task_finished *f, sk_time now)
{
    if (t->tk_key == 0 ||
        (f->tf_status != SK_TASK_OK && f->tf_status != SK_TASK_FAILED))
        return;
    nm_outcome *oc = keep(nm, sched, sched_inc, t->tk_key, t->tk_ref,
                          t->tk_user->us_name, t->tk_start, f, now);
    /* An orphan's scheduler has left already: offer it now. */
    if (oc != NULL && t->tk_job == NULL)
        offer_all(nm, oc, sched);
}

void nm_outcome_recovered(nm_core *nm, const nm_origin *o, int32_t code,
                          uint64_t launch_us, uint64_t end_us, sk_time now)
{
    if (o->or_key == 0)
        return;
    sk_task_finished f;
    memset(&f, 0, sizeof f);
    f.tf_status = code == 0 ? SK_TASK_OK : SK_TASK_FAILED;
    f.tf_exit = code;
    f.tf_end_us = end_us;
    keep(nm, o->or_sched, o->or_sched_inc, o->or_key, o->or_ref, o->or_user,
         (sk_time)launch_us, &f, now);
}

/* ---- tasks lost with their executor's session ---------------------------
 *
 * A framework executor stopped, or cut off, past the session timeout
 * has its running tasks reported LOST (nm_core.c, executor_down), and
 * they are retried; but a task that ended meanwhile ran to its end, and
 * its retry must not complete it again. An executor of the same
 * framework tells how it ended: the same process back (libskylark sends
 * these ends again when it registers with the same node monitor
 * process), or a new one that read the end back from its journal
 * (`skylark executor --journal`, sk_executor_recovered); its outcome is
 * then offered like any other, and the scheduler takes it in place of
 * the retry. */

struct nm_lostrun {
    kept lr_kept;      /* in nm_lostruns */
    uint64_t lr_local; /* the attempt, as the executor names it */
    uint32_t lr_task, lr_attempt;
    uint64_t lr_fw_hash; /* the executor's framework */
    uint32_t lr_sched;   /* the task's scheduler */
    uint64_t lr_sched_inc;
    uint64_t lr_key;
    uint32_t lr_ref;
    sk_time lr_launch;
    char lr_user[]; /* the task's user */
};

/* The hash of executor x's framework name (0 for none). */
static uint64_t fw_hash(const nm_peer *x)
{
    return x->pe_framework != NULL ? nm_hash_str(x->pe_framework) : 0;
}

static void lost_drop(nm_core *nm, nm_lostrun *lr)
{
    kept_drop(&lr->lr_kept.kp_link, &nm->nm_nlostruns);
}

static void lost_expire(nm_core *nm, sk_time now)
{
    kept_expire(nm, &nm->nm_lostruns, &nm->nm_nlostruns, now);
}

void nm_outcome_lost(nm_core *nm, const nm_task *t, const nm_peer *x,
                     sk_time now)
{
    if (t->tk_key == 0 || t->tk_job == NULL ||
        nm->nm_cfg.nc_outcome_keep_ms == 0 || nm->nm_cfg.nc_max_outcomes == 0)
        return;
    lost_expire(nm, now);
    if (nm->nm_nlostruns >= (uint64_t)nm->nm_cfg.nc_max_outcomes)
        kept_drop(nm_list_first(&nm->nm_lostruns), &nm->nm_nlostruns);
    size_t ulen = strlen(t->tk_user->us_name) + 1;
    nm_lostrun *lr = malloc(sizeof *lr + ulen);
    if (lr == NULL) {
        nm->nm_st.ns_nomem++;
        return;
    }
    kept_stamp(nm, &lr->lr_kept, now);
    lr->lr_local = t->tk_local;
    lr->lr_task = t->tk_task;
    lr->lr_attempt = t->tk_attempt;
    lr->lr_fw_hash = fw_hash(x);
    lr->lr_sched = t->tk_job->jb_sched->pe_hello_id;
    lr->lr_sched_inc = t->tk_job->jb_sched->pe_incarnation;
    lr->lr_key = t->tk_key;
    lr->lr_ref = t->tk_ref;
    lr->lr_launch = t->tk_start;
    memcpy(lr->lr_user, t->tk_user->us_name, ulen);
    nm_list_push_back(&nm->nm_lostruns, &lr->lr_kept.kp_link);
    nm->nm_nlostruns++;
}

int nm_outcome_late(nm_core *nm, const nm_peer *x, const sk_task_finished *f,
                    sk_time now)
{
    lost_expire(nm, now);
    for (nm_link *l = nm->nm_lostruns.ln_next; l != &nm->nm_lostruns;
         l = l->ln_next) {
        nm_lostrun *lr = NM_CONTAINER(l, nm_lostrun, lr_kept.kp_link);
        if (lr->lr_local != f->tf_job || lr->lr_task != f->tf_task ||
            lr->lr_attempt != f->tf_attempt || lr->lr_fw_hash != fw_hash(x))
            continue;
        if (f->tf_status == SK_TASK_OK || f->tf_status == SK_TASK_FAILED) {
            nm_outcome *oc =
                keep(nm, lr->lr_sched, lr->lr_sched_inc, lr->lr_key, lr->lr_ref,
                     lr->lr_user, lr->lr_launch, f, now);
            if (oc != NULL) {
                nm->nm_st.ns_outcomes_late++;
                offer_all(nm, oc, UINT32_MAX);
            }
        }
        lost_drop(nm, lr);
        return 1;
    }
    return 0;
}

void nm_outcomes_offer(nm_core *nm, const nm_peer *gone, sk_time now)
{
    expire(nm, now);
    for (nm_link *l = nm->nm_outcomes.ln_next; l != &nm->nm_outcomes;
         l = l->ln_next) {
        const nm_outcome *oc = NM_CONTAINER(l, nm_outcome, oc_kept.kp_link);
        if (oc->oc_sched == gone->pe_hello_id &&
            oc->oc_sched_inc == gone->pe_incarnation)
            offer_all(nm, oc, gone->pe_hello_id);
    }
}

void nm_outcomes_back(nm_core *nm, const nm_peer *sched, sk_time now)
{
    expire(nm, now);
    for (nm_link *l = nm->nm_outcomes.ln_next; l != &nm->nm_outcomes;
         l = l->ln_next) {
        const nm_outcome *oc = NM_CONTAINER(l, nm_outcome, oc_kept.kp_link);
        /* Its own, and anyone's whose scheduler is not here (a frontend
         * may have moved its job to this one). */
        const nm_peer *owner = nm_sched_by_id(nm, oc->oc_sched);
        if (owner == NULL || owner == sched ||
            owner->pe_incarnation != oc->oc_sched_inc)
            offer(nm, oc, sched->pe_id);
    }
}

void nm_outcomes_free(nm_core *nm)
{
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_outcomes)) != NULL)
        drop(nm, NM_CONTAINER(l, nm_outcome, oc_kept.kp_link));
    while ((l = nm_list_first(&nm->nm_lostruns)) != NULL)
        lost_drop(nm, NM_CONTAINER(l, nm_lostrun, lr_kept.kp_link));
}
