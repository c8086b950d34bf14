/*
 * sched_int.h - the scheduler core's internal state, shared by its files
 * (sched_core.c: inputs and task life cycle; sched_nodes.c: node table and
 * sampling; sched_jobs.c: admission and probes; sched_status.c: status
 * reply). Nothing here is part of the contract of sched_core.h.
 */
#ifndef SCHED_INT_H
#define SCHED_INT_H

#include "sched_core.h"
#include "sk_arena.h"
#include "sk_map.h"
#include "sk_rng.h"

#include <stddef.h>
#include <stdint.h>

/* nd_live of a node not in the live array. */
#define SCHED_NOT_LIVE UINT32_MAX

typedef struct sched_node sched_node;
typedef struct sched_job sched_job;
typedef struct sched_task sched_task;
typedef struct sched_resv sched_resv;
typedef struct sched_fe sched_fe;
typedef struct sched_flow sched_flow;
typedef struct sched_user sched_user;
typedef struct sched_offer sched_offer;

/* A node monitor connected to this scheduler. */
struct sched_node {
    sk_peer nd_peer;
    uint32_t nd_id;
    char *nd_name;
    uint64_t nd_hash;     /* hash of nd_name, its key in c_names */
    sched_node *nd_hnext; /* next node whose name has the same hash */
    uint32_t nd_slots;
    sk_resources nd_res;
    char **nd_labels;
    uint32_t nd_nlabels;
    uint8_t nd_state;     /* sk_node_state from MEMBERSHIP, UP at first */
    uint32_t nd_live;     /* index in c_live (state UP) or c_sat (state
                             SATURATED), or SCHED_NOT_LIVE */
    sched_resv *nd_resvs; /* reservations it holds (rs_nnext) */
    sched_resv *nd_rtail; /* last of them: a job's probes stay adjacent */
    uint64_t nd_mark;     /* c_stamp when last picked or visited */
    uint32_t nd_pick;     /* reservations picked in this sampling */
    bool nd_asked;        /* it sent a GET_TASK (sched_node_fence) */
};

/* One task of a job. */
struct sched_task {
    sched_job *tk_job;
    uint8_t tk_state; /* sched_task_state */
    uint32_t tk_attempt;
    sched_node *tk_node;  /* launched or running on */
    sched_task *tk_lnext; /* c_launched list (launched, not started) */
    sched_task *tk_lprev;
    sk_time tk_launched;
    uint32_t tk_probes;     /* outstanding probes bound to this task */
    const uint8_t *tk_spec; /* in the job's blob */
    uint32_t tk_spec_len;
    const char **tk_pref; /* preferred node names, in the blob */
    uint32_t tk_npref;
    const char **tk_racks; /* preferred racks (for flowd), in the blob */
    uint32_t tk_nracks;
    const char **tk_tags; /* allocation tags (for flowd), in the blob */
    uint32_t tk_ntags;
    sched_flow *tk_flow;  /* the hand-over to flowd that holds it, or NULL */
    uint32_t tk_fidx;     /* its index in that hand-over */
    uint8_t tk_outcome;   /* sk_task_status once DONE, else 0 (status) */
    uint64_t tk_end_node; /* sched_name_hash of the node it ended on, or 0 */
    uint32_t tk_ref;      /* its name under the job's key (ts_ref) */
    bool tk_offered;      /* an offer ends it at admission (sched_offers.c) */
};

/* A hand-over to flowd: tasks of one job that the flow node places (all
 * of a long job, or short tasks that sampling could not place). Towards
 * flowd and in the node monitors' reports of these tasks, fl_id is the
 * job id and the position in fl_tasks the task index. */
struct sched_flow {
    uint64_t fl_id; /* unique for the life of the core, from c_next_job */
    sched_job *fl_job;
    sched_flow *fl_next; /* the job's hand-overs (j_flows) */
    uint32_t fl_ntasks;
    uint32_t fl_tasks[]; /* index in the hand-over -> index in the job */
};

/* A reservation: rs_count probes of one job on one node, one
 * ENQUEUE_RESERVATION. */
struct sched_resv {
    uint64_t rs_id; /* er_resv */
    sched_job *rs_job;
    sched_node *rs_node;
    uint32_t rs_task;     /* bound task, or SK_TASK_ANY */
    uint32_t rs_count;    /* outstanding on the node */
    sched_resv *rs_jnext; /* list of the job's reservations */
    sched_resv *rs_jprev;
    sched_resv *rs_nnext; /* list of the node's reservations */
    sched_resv *rs_nprev;
};

/* A job in flight. */
struct sched_job {
    uint64_t j_id;     /* the core's id, towards node monitors */
    uint64_t j_fe_job; /* the frontend's sj_job */
    sched_fe *j_fe;
    sched_job *j_fnext; /* list of the frontend's jobs */
    sched_job *j_fprev;
    sched_job *j_anext; /* list of all jobs (status table) */
    sched_job *j_aprev;
    const char *j_user; /* strings and specs live in j_blob */
    const char *j_framework;
    const char **j_labels;
    uint32_t j_nlabels;
    sk_resources j_res;
    uint8_t j_prio;
    double j_ratio; /* probe ratio in use */
    uint32_t j_max_attempts;
    uint32_t j_ntasks;
    sched_task *j_tasks;
    uint32_t *j_queue; /* ring of pending tasks without preferences */
    uint32_t j_qhead;
    uint32_t j_qlen;
    uint32_t j_npending;  /* all pending tasks */
    uint32_t j_nlaunched; /* launched or running */
    uint32_t j_ndone;
    uint32_t j_unbound;   /* outstanding probes not bound to a task */
    uint64_t j_resv_open; /* all outstanding probes */
    uint32_t j_count[SK_TASK_STATUS_MAX + 1]; /* final outcomes */
    uint32_t j_wait[SCHED_WAIT_NBOUNDS + 1];  /* launches by wait (ss_wait) */
    sched_resv *j_resvs;
    bool j_long;           /* long-running: every task goes to flowd */
    sk_constraint *j_cons; /* placement constraints (for flowd), in blob */
    uint32_t j_ncons;
    uint8_t j_placement;    /* sk_placement */
    uint32_t j_sj_attempts; /* sj_max_attempts as given (0: flowd's) */
    uint32_t j_nflow;       /* tasks held by flowd, not running */
    sched_flow *j_flows;    /* its hand-overs to flowd */
    sk_time j_accepted;     /* when it was admitted */
    sk_time j_fallback_at;  /* pending tasks go to flowd then */
    sched_job *j_fbnext;    /* c_fb_head list, in fallback time order */
    sched_job *j_fbprev;
    bool j_in_fallback; /* on that list */
    void *j_blob;
    size_t j_bytes;      /* what admission counted for it (budgets) */
    sched_user *j_quser; /* its user's budget (sched_users.c) */
    uint64_t j_key;      /* the frontend's name for it (sj_key), or 0 */
    bool j_keyed;        /* c_keys maps j_key to it */
};

/* A frontend: a peer that submits jobs. */
struct sched_fe {
    sk_peer fe_peer;
    sk_map fe_jobs; /* sj_job -> sched_job */
    sched_job *fe_list;
    uint64_t fe_bytes; /* bytes of its jobs held (sc_max_fe_bytes) */
};

struct sched_core {
    sched_config c_cfg;
    sk_rng c_rng;
    sk_outbox c_out;
    sched_stats c_stats;
    sk_arena c_scratch;  /* what the outbox points to, until the next call */
    sk_map c_nodes;      /* peer -> sched_node */
    sk_map c_names;      /* name hash -> sched_node (chained) */
    sk_map c_fes;        /* peer -> sched_fe */
    sk_map c_jobs;       /* j_id -> sched_job */
    sk_map c_resvs;      /* rs_id -> sched_resv */
    sk_map c_creds;      /* peer -> its user token (sched_auth.c) */
    sched_node **c_live; /* up, unsaturated nodes, in any order */
    uint32_t c_nlive;
    sched_node **c_sat; /* up nodes saturated by long tasks, any order */
    uint32_t c_nsat;
    uint32_t c_live_cap;  /* entries of c_live, c_sat and c_picks */
    sched_node **c_picks; /* sampling output */
    sched_job *c_all;     /* every job in flight (j_anext) */
    sched_task *c_lhead;  /* launched tasks, oldest first */
    sched_task *c_ltail;
    uint64_t c_next_job;
    uint64_t c_next_resv;
    uint64_t c_stamp; /* for nd_mark */
    sk_peer c_flowd;  /* the flow node's session, if c_flowd_up */
    bool c_flowd_up;
    uint64_t c_flowd_inc; /* he_incarnation of the last flowd, 0: none */
    sk_map c_flows;       /* fl_id -> sched_flow */
    sk_map c_users;       /* name hash -> sched_user with jobs (chained) */
    sched_job *c_fb_head; /* jobs whose fallback time is still ahead */
    sched_job *c_fb_tail;
    sk_map c_keys;        /* j_key -> sched_job (sched_offers.c) */
    sk_map c_offers;      /* key -> its kept sched_offer, chained */
    sched_offer *c_ohead; /* kept offers, oldest first */
    sched_offer *c_otail;
    uint64_t c_noffers;
};

/* sched_nodes.c: the node table */
uint64_t sched_name_hash(const char *s);
void sched_node_add(sched_core *c, sk_peer peer, const sk_hello *h);
sched_node *sched_node_unlink(sched_core *c, sk_peer peer);
void sched_node_destroy(sched_node *nd);
void sched_node_membership(sched_core *c, sk_peer from,
                           const sk_membership *mb);
uint32_t sched_sample_any(sched_core *c, const sched_job *j, uint64_t want);
uint32_t sched_sample_task(sched_core *c, const sched_job *j,
                           const sched_task *t, uint64_t want);
/* sched_can_sample tells whether any live node may be probed: one up and
 * unsaturated, or with probe_saturated a saturated one. */
bool sched_can_sample(const sched_core *c);
uint64_t sched_probe_count(double ratio, uint32_t tasks);
/* sched_node_fence answers TASK_STARTED (job, task, attempt) from the
 * node monitor from, if it has sent no GET_TASK yet (a re-announcement,
 * FAULTS.md): when this core gave that attempt up or the job (an id it
 * gave out) is gone, it sends KILL_TASK (ss_fenced) and returns true;
 * otherwise (the attempt it holds there, or a report to count as bad)
 * false. */
bool sched_node_fence(sched_core *c, sk_peer from, uint64_t job, uint32_t task,
                      uint32_t attempt);

/* sched_jobs.c: admission, probes, job end */
void sched_submit(sched_core *c, sk_peer from, const sk_submit_job *sj,
                  sk_time now);
void sched_place(sched_core *c, sched_job *j, uint32_t npicks, uint32_t task);
int sched_probe_task(sched_core *c, sched_job *j, uint32_t task);
void sched_cancel_resvs(sched_core *c, sched_job *j);
void sched_resv_take(sched_core *c, sched_resv *r, uint32_t n);
void sched_job_free(sched_core *c, sched_job *j);
sched_job *sched_job_lookup(const sched_core *c, sk_peer fe, uint64_t sj_job);
sched_fe *sched_fe_get(sched_core *c, sk_peer peer);

/* sched_core.c: task life cycle. The functions returning bool return
 * true when the job ended and was freed: the caller must not touch it. */
bool sched_task_fail(sched_core *c, sched_task *t, const char *why);
void sched_task_unbind(sched_core *c, sched_task *t);
void sched_pending_changed(sched_core *c, sched_job *j);
void sched_queue_push(sched_job *j, uint32_t task);
/* sched_queue_remove takes task out of j's queue of pending tasks, where
 * it must be. O(queue length): for the rare task an offer ends. */
void sched_queue_remove(sched_job *j, uint32_t task);
sk_msg *sched_send(sched_core *c, sk_peer peer, sk_msg_type type);

/* sched_users.c: per-user budgets. sched_user_over says why user may not
 * add a job of bytes (scratch text), or NULL; sched_user_charge counts
 * job j (its j_user, j_bytes) against its user (SK_ENOMEM, nothing
 * counted); sched_user_release gives it back when j goes. */
const char *sched_user_over(sched_core *c, const char *user, size_t bytes);
int sched_user_charge(sched_core *c, sched_job *j);
void sched_user_release(sched_core *c, sched_job *j);

/* sched_flow.c: the flow path (hand-overs to flowd, fallback) */
/* sched_flow_known: a flowd has connected at some time (its session may
 * be down for a moment: hand-overs then wait for its return). */
bool sched_flow_known(const sched_core *c);
void sched_flow_up(sched_core *c, sk_peer peer, uint64_t incarnation);
void sched_flow_down(sched_core *c, sk_peer peer);
bool sched_flow_take(sched_core *c, sched_job *j, uint32_t task);
void sched_flow_take_pending(sched_core *c, sched_job *j);
bool sched_flow_started(sched_core *c, sk_peer from, const sk_task_started *st);
bool sched_flow_finished(sched_core *c, sk_peer from,
                         const sk_task_finished *tf, sk_bytes out);
void sched_flow_answer(sched_core *c, sk_peer from, const sk_msg *msg);
void sched_flow_cancel(sched_core *c, sched_job *j);
void sched_flow_free(sched_core *c, sched_job *j);
void sched_flow_node_down(sched_core *c, sched_task *t);
/* sched_flow_settled: t, held by flowd or placed through it, ended with
 * an offered outcome (status): flowd ends it too and releases its slot
 * (sched_flow.c). */
void sched_flow_settled(sched_core *c, const sched_task *t, uint8_t status);
void sched_fallback_arm(sched_core *c, sched_job *j, sk_time now);
void sched_fallback_disarm(sched_core *c, sched_job *j);
void sched_fallback_due(sched_core *c, sk_time now);
sk_time sched_fallback_deadline(const sched_core *c);

/* sched_core.c: outcomes (sched_flow.c reports through them) */
bool sched_task_final(sched_core *c, sched_task *t, uint8_t status,
                      int32_t exit_code, sk_bytes output, const char *node,
                      uint64_t launch_us, uint64_t end_us);
void sched_kill(sched_core *c, sched_task *t);
sk_bytes sched_text(const char *s);

/* sched_offers.c: outcomes offered by node monitors (TASK_OUTCOME).
 * sched_offer_in takes one from the peer from: the outcome of the task
 * it names in a job held here, else kept for a resubmission.
 * sched_offers_claim marks the tasks of j, a job being admitted, that a
 * kept offer ends, and takes them out of its queue, before its probes
 * are counted; returns how many. sched_offers_settle ends them with
 * their offers once j is accepted; true if that ended the job (freed).
 * sched_offers_expire drops the offers kept past offer_keep_ms;
 * sched_offers_deadline is when the next one goes, or SK_TIME_NEVER. */
void sched_offer_in(sched_core *c, sk_peer from, const sk_task_outcome *to,
                    sk_time now);
uint32_t sched_offers_claim(sched_core *c, sched_job *j);
bool sched_offers_settle(sched_core *c, sched_job *j);
void sched_offers_expire(sched_core *c, sk_time now);
sk_time sched_offers_deadline(const sched_core *c);
void sched_offers_free(sched_core *c);

/* sched_auth.c: user credentials. sched_auth_submit checks sj against
 * the sender's user, filling an empty sj_user; it answers a refusal
 * (JOB_REJECTED, counted) and returns false. sched_auth_sees tells
 * whether the sender may see job j; sched_auth_daemon whether it holds
 * the cluster key. */
bool sched_auth_submit(sched_core *c, sk_peer from, sk_submit_job *sj);
bool sched_auth_sees(const sched_core *c, sk_peer from, const sched_job *j);
bool sched_auth_daemon(const sched_core *c, sk_peer from);
void sched_auth_forget(sched_core *c, sk_peer peer);
void sched_auth_free(sched_core *c);

/* sched_admin.c: an operator's CANCEL_JOB. Returns false when from is a
 * frontend of this core (its CANCEL_JOB names its own job: the caller
 * handles it); else handles it (cj_job is the core's j_id: the job is
 * cancelled as its frontend would, and from gets JOB_ACCEPTED, or
 * JOB_REJECTED with a reason) and returns true. */
bool sched_admin_cancel(sched_core *c, sk_peer from, const sk_cancel_job *cj,
                        sk_time now);

/* sched_status.c */
void sched_status_reply(sched_core *c, sk_peer from,
                        const sk_status_request *rq, sk_time now);

#endif /* SCHED_INT_H */
