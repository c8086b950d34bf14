/*
 * nm_int.h - the node monitor core's internal state, shared by its source
 * files (nm_core.c: inputs and slot logic; nm_report.c: heartbeats and
 * status). Not part of the core's contract.
 */
#ifndef NM_INT_H
#define NM_INT_H

#include "sk_arena.h"
#include "nm_core.h"
#include "nm_htab.h"
#include "nm_list.h"
#include "nm_pool.h"
#include "nm_queue.h"

#include <stdbool.h>

typedef struct nm_job nm_job;
typedef struct nm_long nm_long;
typedef struct nm_outcome nm_outcome;
typedef struct nm_lostrun nm_lostrun;

/* A registered peer. */
typedef struct nm_peer {
    nm_hnode pe_hnode; /* in nm_peers, by pe_id */
    sk_peer pe_id;
    uint8_t pe_role; /* sk_role */
    uint32_t pe_hello_id;
    char *pe_framework;      /* executors */
    bool pe_in_fw;           /* executors: the one nm_fw points to */
    bool pe_in_sched;        /* schedulers: the one nm_sched_ids points to */
    uint64_t pe_incarnation; /* from its HELLO: a restart changes it */
    nm_hnode pe_fw_hnode;    /* in nm_fw, by framework */
    nm_hnode pe_sched_hnode; /* in nm_sched_ids, by pe_hello_id */
    nm_link pe_jobs;         /* schedulers: their nm_job */
    nm_link pe_tasks;        /* executors: their running nm_task */
} nm_peer;

/* What the core holds for one job of one scheduler. */
struct nm_job {
    nm_hnode jb_hnode; /* in nm_jobs, by (scheduler, job) */
    nm_peer *jb_sched;
    uint64_t jb_id;    /* the scheduler's name for the job */
    uint64_t jb_local; /* this node's name for it towards executors: job
                          ids of two schedulers may be equal, these never */
    nm_link jb_link;   /* in jb_sched->pe_jobs */
    nm_link jb_resvs;  /* nm_resv, queued or waiting for replies */
    nm_link jb_tasks;  /* running nm_task */
    nm_link jb_longs;  /* pending nm_long */
};

/* A short reservation (ENQUEUE_RESERVATION). */
typedef struct nm_resv {
    nm_hnode rs_hnode; /* in nm_resvs, by (scheduler, er_resv) */
    nm_qent rs_q;      /* queued while rs_queued */
    nm_link rs_link;   /* in rs_job->jb_resvs */
    nm_job *rs_job;
    nm_user *rs_user;
    uint64_t rs_id;
    uint32_t rs_remaining;   /* GET_TASKs still to send */
    uint32_t rs_outstanding; /* GET_TASKs waiting for a reply */
    nm_link rs_fetches;      /* their nm_fetch, oldest first */
    sk_resources rs_res;
    bool rs_queued;
} nm_resv;

/* A slot held for one unanswered GET_TASK. There are never more than
 * slots of them: they come from a pool made with the core. */
typedef struct nm_fetch {
    nm_link fe_link;      /* in nm_fetches (by deadline) or nm_fetch_free */
    nm_link fe_resv_link; /* in fe_resv->rs_fetches */
    nm_resv *fe_resv;
    sk_time fe_deadline;
} nm_fetch;

/* A running task. */
typedef struct nm_task {
    nm_hnode tk_hnode;    /* in nm_tasks, by (tk_local, task, attempt) */
    nm_link tk_all;       /* in nm_running */
    nm_link tk_job_link;  /* in tk_job->jb_tasks */
    nm_link tk_exec_link; /* in tk_exec->pe_tasks */
    nm_link tk_orphan;    /* in nm_orphans while its grace runs */
    nm_job *tk_job;       /* NULL once its scheduler left */
    nm_peer *tk_exec;
    nm_user *tk_user;
    nm_long *tk_long;   /* its long reservation, if any */
    uint64_t tk_job_id; /* the scheduler's job id */
    uint64_t tk_local;  /* the job's node-local id (jb_local) */
    uint32_t tk_task;
    uint32_t tk_attempt;
    uint64_t tk_key; /* the frontend's name for it: job key (0: none) */
    uint32_t tk_ref; /* and ref (nm_outcome.c) */
    sk_resources tk_res;
    sk_time tk_start;
    bool tk_was_long; /* started through RESERVE */
    /* An orphan (its scheduler's session ended; nm_orphan.c): */
    uint32_t tk_orphan_of;   /* that scheduler's HELLO id */
    uint64_t tk_orphan_inc;  /* and its incarnation */
    sk_time tk_orphan_until; /* killed at this time unless reclaimed */
} nm_task;

/* A long reservation (RESERVE), pending or bound to its running task. */
struct nm_long {
    nm_hnode lg_hnode; /* in nm_longs, by rv_resv */
    nm_link lg_link;   /* pending: in nm_pending and lg_job->jb_longs */
    nm_link lg_job_link;
    nm_job *lg_job;
    nm_user *lg_user;
    nm_task *lg_task; /* NULL while pending */
    uint64_t lg_resv;
    uint32_t lg_task_idx;
    uint32_t lg_attempt;
    uint64_t lg_key; /* rv_key, rv_ref: the frontend's name for it */
    uint32_t lg_ref;
    sk_resources lg_res;
    uint8_t *lg_spec;
    uint32_t lg_spec_len;
    char *lg_framework;
};

/* The fields a short task's calls use come first, so that they share
 * few cache lines: in a simulated cluster every call finds its core cold.
 * Of the structures after them such a call reads the queue's levels and
 * its users' table, the command executor, the first fields of the configuration
 * (up to the node's name) and the first counters (nm_prefetch_msg loads these).
 */
struct nm_core {
    sk_outbox *nm_out; /* nm_own_out, or the driver's (nm_share_outbox) */
    sk_arena nm_scratch;
    uint32_t nm_slots_total;
    uint32_t nm_long_max; /* sk_long_cap(long_share, slots) */
    uint32_t nm_nrunning;
    uint32_t nm_nfetching;
    uint32_t nm_npending;
    uint32_t nm_nlong; /* long reservations, pending or running */
    uint64_t nm_used_cpu, nm_used_mem; /* running and held */
    uint64_t nm_last_local;            /* the last jb_local given out */
    nm_peer *nm_flowd;
    uint64_t nm_flowd_inc; /* the incarnation of the last flowd, 0: none */
    sk_time nm_hb_next;
    nm_link nm_running; /* every nm_task */
    nm_link nm_fetches; /* in use, by deadline (all waits are equal) */
    nm_link nm_fetch_free;
    nm_fetch *nm_fetch_pool; /* nm_slots_total of them */
    nm_htab nm_peers;        /* nm_peer by id */
    nm_htab nm_jobs;         /* nm_job */
    nm_htab nm_resvs;        /* nm_resv */
    nm_htab nm_tasks;        /* nm_task */
    nm_pool nm_job_pool;     /* freed nm_job, nm_resv, nm_task */
    nm_pool nm_resv_pool;
    nm_pool nm_task_pool;
    nm_link nm_pending;  /* pending nm_long, in order */
    nm_link nm_orphans;  /* nm_task in their grace, by tk_orphan_until */
    nm_link nm_outcomes; /* nm_outcome, oldest first (nm_outcome.c) */
    uint64_t nm_noutcomes;
    /* Time with no scheduler connected, which does not age them: */
    sk_time nm_alone_us;    /* summed over the periods that ended */
    sk_time nm_alone_since; /* start of the current one; 0: none */
    nm_link nm_lostruns;    /* nm_lostrun, oldest first (nm_outcome.c) */
    uint64_t nm_nlostruns;
    nm_queue nm_q;
    nm_peer nm_command; /* the built-in command executor */
    nm_config nm_cfg;
    nm_stats nm_st;

    nm_htab nm_fw;              /* executor nm_peer by framework */
    char *nm_away[NM_MAX_AWAY]; /* frameworks whose executor left, oldest
                                   first (executor_away in nm_core.c) */
    uint32_t nm_naway;
    struct {
        sk_peer aj_sched;
        uint64_t aj_job;
        uint64_t aj_fw; /* nm_hash_str of its framework; 0: a free entry */
    } nm_away_jobs[NM_MAX_AWAY_JOBS]; /* a ring: jobs given back */
    uint32_t nm_away_next;
    nm_htab nm_sched_ids; /* scheduler nm_peer by HELLO id */
    nm_htab nm_longs;     /* nm_long */
    uint32_t nm_npeers;
    uint64_t nm_pend_cpu, nm_pend_mem;       /* pending long */
    uint64_t nm_longrun_cpu, nm_longrun_mem; /* running long */
    uint64_t nm_hb_seq;
    sk_time nm_users_next;  /* the next heartbeat with a users summary */
    uint32_t nm_users_page; /* the next page of the cycle, 0: a new one */
    char nm_users_after[SK_MAX_NAME_LEN + 1]; /* the cycle's last name sent */
    sk_outbox nm_own_out;
    nm_weight *nm_weights; /* nm_nweights, copied from nm_new's */
    uint32_t nm_nweights;
};

/* Hash keys: a distinct salt per table keeps equal ids apart. */
static inline uint64_t nm_peer_hash(sk_peer id)
{
    return nm_hash_mix(id, 1);
}

static inline uint64_t nm_sched_hash(uint32_t id)
{
    return nm_hash_mix(id, 2);
}

static inline uint64_t nm_job_hash(sk_peer sched, uint64_t job)
{
    return nm_hash_mix(nm_hash_mix(sched, 3), job);
}

static inline uint64_t nm_resv_hash(sk_peer sched, uint64_t resv)
{
    return nm_hash_mix(nm_hash_mix(sched, 4), resv);
}

static inline uint64_t nm_task_hash(uint64_t job, uint32_t task,
                                    uint32_t attempt)
{
    return nm_hash_mix(nm_hash_mix(job, 5), (uint64_t)task << 32 | attempt);
}

static inline uint64_t nm_long_hash(uint64_t resv)
{
    return nm_hash_mix(resv, 6);
}

/* nm_push adds a message for peer to the outbox; NULL (counted in
 * ns_nomem) when out of memory. */
sk_msg *nm_push(nm_core *nm, sk_peer peer, sk_msg_type type);

/* nm_send_kill sends KILL_TASK for t to its executor. */
void nm_send_kill(nm_core *nm, const nm_task *t);

/* nm_send_started sends TASK_STARTED for t (bound to a job) to its
 * scheduler. */
void nm_send_started(nm_core *nm, const nm_task *t);

/* nm_rejob binds the running task t to its job (tk_job_id) of the
 * scheduler sched (an orphan coming back under its scheduler's new
 * session). t keeps the node-local id its executor knows it by
 * (tk_local), which may differ from the job's new jb_local. Returns the
 * job, or NULL when out of memory. */
nm_job *nm_rejob(nm_core *nm, nm_task *t, nm_peer *sched);

/* nm_orphan.c: tasks whose scheduler left. nm_orphan makes t (unbound
 * from its job already) an orphan of sched: it runs on for
 * orphan_grace_ms, or is killed at once when that is 0. */
void nm_orphan(nm_core *nm, nm_task *t, const nm_peer *sched, sk_time now);

/* nm_orphan_end takes t off the orphan list (it ended). */
void nm_orphan_end(nm_core *nm, nm_task *t);

/* nm_orphans_reclaim re-announces to sched, a scheduler just registered,
 * the orphans its previous session left here: with the same incarnation
 * they are bound to it again and reported with TASK_STARTED (the
 * scheduler answers KILL_TASK for the attempts it gave up); those of
 * another incarnation of it (a restart, which knows nothing of them) are
 * killed. Call before anything else is sent to sched. */
void nm_orphans_reclaim(nm_core *nm, nm_peer *sched);

/* nm_orphans_expire kills the orphans whose grace ended by now. */
void nm_orphans_expire(nm_core *nm, sk_time now);

/* nm_orphans_deadline: the end of the first grace, or SK_TIME_NEVER. */
sk_time nm_orphans_deadline(const nm_core *nm);

/* nm_sched_by_id: the registered scheduler of HELLO id id, or NULL. */
nm_peer *nm_sched_by_id(const nm_core *nm, uint32_t id);

/* nm_outcome.c: recent outcomes, offered when their scheduler may have
 * missed them. nm_outcome_keep keeps how the task t, run for the
 * scheduler of HELLO id sched and incarnation sched_inc, ended (f from
 * its executor), if it has a key and ran to its end (OK, FAILED); an
 * orphan's is offered at once to every scheduler connected here. Cost:
 * one allocation. */
void nm_outcome_keep(nm_core *nm, const nm_task *t, uint32_t sched,
                     uint64_t sched_inc, const sk_task_finished *f,
                     sk_time now);

/* nm_outcomes_offer offers the kept outcomes of gone, a scheduler whose
 * session just ended, to every other scheduler connected here
 * (TASK_OUTCOME). O(kept outcomes x schedulers). */
void nm_outcomes_offer(nm_core *nm, const nm_peer *gone, sk_time now);

/* nm_outcomes_back offers sched, a scheduler that just registered, the
 * kept outcomes of its own (the same process came back) and of every
 * scheduler not connected here. O(kept outcomes). */
void nm_outcomes_back(nm_core *nm, const nm_peer *sched, sk_time now);

/* nm_outcomes_schedulers tells the kept outcomes that the set of
 * schedulers connected here changed (call after it did): while none is
 * connected, kept outcomes do not age, so that a node monitor cut off
 * for longer than outcome_keep_ms still offers them when it is back. */
void nm_outcomes_schedulers(nm_core *nm, sk_time now);

/* nm_outcome_lost remembers t, a keyed task of the executor x reported
 * LOST because x's session ended, for outcome_keep_ms (at most
 * max_outcomes), so that an executor of the same framework (the same
 * process back, or a new one reading its journal) may still say how it
 * ended. Cost: one allocation. */
void nm_outcome_lost(nm_core *nm, const nm_task *t, const nm_peer *x,
                     sk_time now);

/* nm_outcome_late takes f, a TASK_FINISHED from the executor x for no
 * task running there: if it is the end of a task remembered by
 * nm_outcome_lost for an executor of x's framework and it ran to its
 * end (OK, FAILED), its outcome is kept
 * and offered at once to every scheduler connected here, its own
 * included (whose retry it ends; docs/FAULTS.md, "Executors"). Returns
 * 1 when f was such an end, else 0. O(remembered tasks). */
int nm_outcome_late(nm_core *nm, const nm_peer *x, const sk_task_finished *f,
                    sk_time now);

/* nm_outcomes_free drops every kept outcome and remembered task. */
void nm_outcomes_free(nm_core *nm);

/* A HEARTBEAT carries the users summary at most this often (and in the
 * first after flowd registers): the dashboard reads it at most every
 * 5 s, and a summary costs flowd about 0.2 us per user listed to decode
 * and keep (bench/dash-share), 14 us a heartbeat at 64 users: every
 * heartbeat at 10,000 nodes would be 14% of a core. */
#define NM_USERS_PERIOD_US 5000000

/* nm_send_heartbeat sends a HEARTBEAT to flowd (which must be set), with
 * the users summary's next page while a cycle runs or when nm_users_next
 * is due. */
void nm_send_heartbeat(nm_core *nm, sk_time now);

/* nm_fill_status fills reply (for the request req, at time now) with
 * key/value pairs (slots, resources, counters) and, when req->sq_table is
 * set, the table of users (user, weight, queued, running, slot_s: seconds
 * of slot time used by its finished and running tasks), in the core's
 * scratch memory: valid until the next call into the core. nm_on_message
 * answers STATUS_REQUEST with it. Returns 0 or SK_ENOMEM. */
int nm_fill_status(nm_core *nm, const sk_status_request *req, sk_time now,
                   sk_status_reply *reply);

#endif /* NM_INT_H */
