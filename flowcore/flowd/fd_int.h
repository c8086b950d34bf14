/*
 * fd_int.h - the flow node core's insides, shared by its files: the
 * records of nodes, racks, schedulers, jobs and tasks, the network
 * (fd_net: the flowcore graph and the maps between its nodes and the
 * records), and the internal calls between the files.
 *
 * Records change at once when an input arrives; the network follows at
 * the next sync (fd_sync, at the start and end of a round), driven by
 * dirty lists. A record that dies (a task that ended, a node that left)
 * stays, marked dead, until that sync has removed it from the network,
 * so that the placements of a round solved meanwhile can still be read
 * and dropped.
 */
#ifndef FD_INT_H
#define FD_INT_H

#include "fd_core.h"
#include "sk_map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- a doubly linked intrusive list ----------------------------------- */

typedef struct fd_link {
    struct fd_link *l_next, *l_prev;
} fd_link;

static inline void fd_list_init(fd_link *h)
{
    h->l_next = h->l_prev = h;
}
static inline bool fd_list_empty(const fd_link *h)
{
    return h->l_next == h;
}
static inline bool fd_linked(const fd_link *l)
{
    return l->l_next != NULL && l->l_next != l;
}
static inline void fd_list_remove(fd_link *l)
{
    if (l->l_next == NULL)
        return;
    l->l_prev->l_next = l->l_next;
    l->l_next->l_prev = l->l_prev;
    l->l_next = l->l_prev = NULL;
}
static inline void fd_list_push(fd_link *h, fd_link *l)
{
    l->l_prev = h->l_prev;
    l->l_next = h;
    h->l_prev->l_next = l;
    h->l_prev = l;
}
#define FD_CONTAINER(p, type, field)                                           \
    ((type *)(void *)((char *)(p)-offsetof(type, field)))

/* ---- records ----------------------------------------------------------- */

typedef struct fd_job fd_job;
typedef struct fd_node fd_node;
typedef struct fd_share_node fd_share_node; /* fd_share.c */

/* Internal task states: the public ones, and dead. */
#define FD_TASK_DEAD 5

typedef struct fd_task {
    fd_job *t_job;
    uint32_t t_index;    /* in its job */
    uint32_t t_attempt;  /* the current attempt */
    uint32_t t_rejects;  /* RESERVE_REJECTs so far */
    uint8_t t_state;     /* fd_task_state or FD_TASK_DEAD */
    bool t_dirty;        /* in c_dirty_tasks */
    bool t_seen;         /* in the last heartbeat of its node */
    uint32_t t_slot;     /* index in c_tasks and the network's maps */
    fd_node *t_node;     /* when not waiting */
    uint64_t t_resv;     /* its reservation (0: adopted, unknown) */
    uint64_t t_order;    /* acknowledgement order on its node */
    sk_time t_since;     /* waiting since, or RESERVE sent at */
    sk_time t_run_since; /* seen running since */
    sk_time t_waited;    /* time waited before t_since, all spells */
    uint32_t t_moves;    /* attempts used up by preemption */
    uint32_t t_ref;      /* ts_ref: its name under the job's key */
    /* its node was lost with it (fd_reclaim.c): the attempt that ran
     * there, and the node (name hash, incarnation), 0: none */
    uint32_t t_away_attempt;
    uint64_t t_away_name, t_away_inc;
    uint64_t t_round;     /* stamp: stopped by this round's flow */
    const char **t_prefs; /* preferred nodes, then preferred racks */
    uint32_t t_nprefs;    /* both */
    uint32_t t_nracks;    /* the last t_nracks of t_prefs are racks */
    const uint8_t *t_spec;
    uint32_t t_spec_len;
    fd_link t_node_link;     /* in its node's n_tasks */
    fd_link t_dirty_link;    /* in c_dirty_tasks */
    fd_link t_resv_link;     /* in c_reserves (RESERVED) */
    fd_link t_pref_link;     /* in c_pref_waiting (waiting, has prefs) */
    fd_link t_wait_link;     /* in c_waiting (waiting) */
    fd_link t_assigned_link; /* in c_assigned (on a node) */
    fd_link t_fast_link;     /* in c_fast (waiting, fallback short) */
    uint32_t t_due_pos;      /* 1 + its index in c_due, 0: not there */
    sk_time t_due;           /* when its costs next change (fd_due.c) */
} fd_task;

/* An outcome the core decided for a scheduler whose session had ended
 * (fd_grace.c): kept until it returns or its grace runs out. */
typedef struct fd_kept {
    uint64_t k_job;
    uint32_t k_task, k_attempt;
    uint8_t k_status;
    sk_time k_end;
    char k_node[SK_MAX_NAME_LEN + 1];
    char *k_why; /* owned; NULL: none */
} fd_kept;

typedef struct fd_sched {
    sk_peer s_peer;         /* meaningless while s_gone */
    uint32_t s_id;          /* he_id: rv_sched */
    uint64_t s_incarnation; /* he_incarnation */
    sk_map s_jobs;          /* sj_job + 1 -> fd_job */
    fd_job *s_job_max;      /* the job numbered UINT64_MAX */
    uint32_t s_njobs;
    /* grace (fd_grace.c): its session ended, its work is held */
    bool s_gone;
    sk_time s_gone_at;
    fd_link s_gone_link; /* in c_sched_gone, oldest first */
    fd_kept *s_kept;     /* outcomes decided meanwhile */
    uint32_t s_nkept, s_kept_cap;
    sk_map s_ended;         /* held jobs that ended: id + 1 -> s */
    sk_time s_confirm_at;   /* back: held jobs not re-forwarded by
                               then are cancelled */
    fd_link s_confirm_link; /* in c_sched_back, oldest first */
} fd_sched;

struct fd_job {
    fd_sched *j_sched;
    uint64_t j_id;  /* sj_job */
    uint64_t j_key; /* sj_key (0: none): its tasks' outcomes are offered */
    char *j_user, *j_framework;
    uint8_t j_priority;
    sk_resources j_res;
    uint32_t j_max_attempts;
    uint32_t j_ntasks;
    uint32_t j_live; /* tasks not dead */
    uint32_t j_slot;
    bool j_long; /* sj_long; else fallback short work */
    struct fd_class *j_class;
    bool j_dead, j_dirty, j_in_net;
    bool j_held; /* its scheduler went; not yet re-forwarded */
    sk_time j_submit;
    fd_task *j_tasks;
    void *j_blob;           /* specs and names, one allocation */
    struct fd_cons *j_cons; /* tags and constraints (fd_constraint.h) */
    fd_link j_dirty_link;
};

/* An equivalence class of jobs: the same per-task request and labels.
 * Policies that place by fit (multires) or by labels route a job's tasks
 * through its class's aggregator, which has arcs to the nodes that can
 * take them. */
typedef struct fd_class {
    sk_resources k_res;
    char **k_labels; /* sorted */
    uint32_t k_nlabels;
    uint32_t k_refs; /* live jobs */
    uint32_t k_slot;
    bool k_in_net, k_dirty;
    fd_link k_dirty_link;
} fd_class;

typedef struct fd_rack {
    char r_name[SK_MAX_NAME_LEN + 1]; /* he_rack ("": nodes without) */
    uint32_t r_slot;
    uint32_t r_nnodes;
    int64_t r_cap; /* sum of its live nodes' room */
    bool r_dirty;  /* its part of the network must be redone */
    bool r_in_net;
} fd_rack;

typedef struct fd_node {
    sk_peer n_peer;
    uint32_t n_id;
    uint64_t n_incarnation;
    char n_name[SK_MAX_NAME_LEN + 1];
    char n_addr[SK_MAX_ADDR_LEN + 1];
    uint32_t n_slots;
    sk_resources n_res;
    sk_resources n_used_res; /* from heartbeats */
    char **n_labels;
    uint32_t n_nlabels;
    fd_rack *n_rack;
    uint32_t n_cap; /* sk_long_cap(long share, slots) */
    uint32_t n_slot;
    bool n_dead;
    bool n_detached;     /* its session ended after flowd's own stall:
                            kept, without a peer, for its return */
    bool n_returning;    /* lost with long tasks and back: no work until
                            its first heartbeat (fd_reclaim.c) */
    bool n_dirty;        /* in c_dirty_nodes */
    bool n_in_net;       /* its part of the network exists */
    bool n_load_changed; /* its arcs to the sink must be redone */
    /* from heartbeats */
    uint64_t n_hb_seq;
    bool n_hb_any;
    sk_time n_last_seen;
    uint32_t n_used;        /* slots used */
    uint32_t n_queue;       /* short reservations queued */
    uint32_t n_foreign;     /* long reservations the core does not know */
    fd_share_node *n_share; /* its users summary (fd_share.h), or NULL */
    /* long tasks of the core here */
    fd_link n_tasks;
    uint32_t n_ntasks;
    uint64_t n_order;            /* acknowledgements so far */
    uint8_t n_mstate;            /* MEMBERSHIP state last announced */
    bool n_mdirty;               /* a MEMBERSHIP change is pending */
    fd_link n_seen_link;         /* in c_by_seen (oldest first) */
    fd_link n_dirty_link;        /* in c_dirty_nodes */
    fd_link n_mlink;             /* in c_mchanges */
    struct fd_node *n_name_next; /* same name hash */
} fd_node;

/* ---- slot tables: records by dense index -------------------------------- */

typedef struct fd_slots {
    void **sl_ptr;
    uint32_t sl_len, sl_cap;
    uint32_t *sl_free;
    uint32_t sl_nfree;
} fd_slots;

int fd_slots_take(fd_slots *s, void *p, uint32_t *slot);
void fd_slots_give(fd_slots *s, uint32_t slot);
void fd_slots_free(fd_slots *s);
static inline void *fd_slots_get(const fd_slots *s, uint32_t slot)
{
    return slot < s->sl_len ? s->sl_ptr[slot] : NULL;
}

/* ---- the network ------------------------------------------------------- */

/* What a graph node stands for. */
typedef enum fd_gkind {
    FD_G_NONE = 0,
    FD_G_SINK,
    FD_G_CLUSTER,
    FD_G_RACK,
    FD_G_NODE,
    FD_G_JOB,
    FD_G_CLASS,
    FD_G_TASK,
} fd_gkind;

#define FD_ENT_ARCS 6

/* The graph node and owned arcs of one record. */
typedef struct fd_gent {
    fc_node e_node;
    fc_arc e_arc[FD_ENT_ARCS];
} fd_gent;

typedef struct fd_gref {
    uint8_t g_kind;
    uint32_t g_slot;
} fd_gref;

typedef struct fd_net {
    fc_graph *nt_g;
    fc_node nt_sink, nt_cluster;
    int64_t nt_supply; /* task nodes: the sink takes this many */
    fd_gref *nt_ref;   /* by graph node id */
    size_t nt_ref_cap;
    fd_gent *nt_ent[FD_G_TASK + 1]; /* by kind, then record slot */
    size_t nt_ent_cap[FD_G_TASK + 1];
    fc_arc *nt_pair; /* class -> node arcs, [class slot][node slot] */
    uint32_t nt_pair_rows, nt_pair_cols;
    /* reading the flow (fd_net_read_begin, fd_net_follow) */
    struct fd_mark *nt_amark; /* by arc: units followed */
    struct fd_mark *nt_vmark; /* by node: its first arc that may have more */
    size_t nt_amark_cap, nt_vmark_cap;
    uint32_t nt_gen; /* the reading's: older marks count as 0 */
} fd_net;

/* A mark of the current reading; stale (0) when m_gen is not nt_gen. */
typedef struct fd_mark {
    uint32_t m_gen;
    int32_t m_n;
} fd_mark;

int fd_net_new(fd_net **out);
void fd_net_free(fd_net *net);
/* The entry of (kind, slot), grown and set to FC_NONE on first use;
 * NULL when out of memory. */
fd_gent *fd_net_ent(fd_net *net, fd_gkind kind, uint32_t slot);
/* The entry if it exists with a node, else NULL. */
fd_gent *fd_net_find(const fd_net *net, fd_gkind kind, uint32_t slot);
/* Add a graph node for (kind, slot) with supply; its id in ent. */
int fd_net_node(fd_net *net, fd_gkind kind, uint32_t slot, int64_t supply,
                fc_node_type type);
/* Remove the graph node of (kind, slot) and its arcs (drain: a task's
 * flow goes to the sink first). */
int fd_net_node_remove(fd_net *net, fd_gkind kind, uint32_t slot, bool drain);
/* Arcs with their cost and capacity checked against flowcore's limits
 * (FC_EINVAL beyond). */
int fd_net_arc(fd_net *net, fc_node src, fc_node dst, int64_t cap, int64_t cost,
               fc_arc *out);
/* Set (adding or, with cap 0, keeping) an owned arc: *a FC_NONE adds. */
int fd_net_arc_set(fd_net *net, fc_arc *a, fc_node src, fc_node dst,
                   int64_t cap, int64_t cost);
/* The arc of (class slot, node slot), grown and set to FC_NONE on first
 * use; NULL when out of memory. Cleared when either node is removed. */
fc_arc *fd_net_pair(fd_net *net, uint32_t k, uint32_t n);
/* Set a pair arc: add it, change it, or with cap 0 remove it (so that a
 * network kept up to date holds the same arcs as one built anew). */
int fd_net_pair_set(fd_net *net, fc_arc *a, fc_node src, fc_node dst,
                    int64_t cap, int64_t cost);
/* Remove every arc leaving v. */
int fd_net_strip(fd_net *net, fc_node v);
/* The record a graph node stands for. */
fd_gref fd_net_ref(const fd_net *net, fc_node v);
/* Set the sink's demand to nt_supply. */
int fd_net_balance(fd_net *net);
/* Reading the flow one task at a time, instead of decomposing all of it
 * (fc_placements) to learn about a few tasks. fd_net_read_begin starts a
 * reading of the current flow (FC_ENOMEM: marks could not grow; O(1)
 * amortised, growth aside). fd_net_follow(v) takes one unit of the flow
 * leaving v not yet taken in this reading and follows it, arc by arc, to
 * the first machine node, which it returns; FC_NONE when the unit ends
 * at an unscheduled aggregator or the sink (or v sends nothing). The
 * units taken in one reading are part of one decomposition of the flow
 * into paths (flow is conserved at every node in between), so that a
 * machine is never handed more units than reach it, whichever tasks are
 * followed and in which order. Cost: each node visited scans each of its
 * arcs at most once per reading, plus one step per node on the path. */
int fd_net_read_begin(fd_net *net);
fc_node fd_net_follow(fd_net *net, fc_node v);

/* ---- the policy interface ---------------------------------------------- */

#include "fd_policy.h"

/* ---- the core ---------------------------------------------------------- */

typedef struct fd_scratch {
    void **sc_ptr;
    size_t sc_len, sc_cap;
} fd_scratch;

struct fd_core {
    fd_config c_cfg;
    const fd_policy *c_pol;
    uint64_t c_epoch;
    sk_time c_settle_until;
    uint32_t c_cx_window; /* constraint rounds: where the node window of
                             a bounded round starts (fd_constraint_core.c) */
    bool c_cx_stale;      /* a task or node changed since the last
                             constraint round: it may place differently */
    bool c_cx_more;       /* a bounded one: its window moves on */
    uint64_t c_cx_swept;  /* nodes its windows covered since a change */
    sk_time c_cx_wake;    /* the earliest end of a held task's wait, or
                             SK_TIME_NEVER (fd_constraint_core.c) */
    sk_outbox c_out;
    fd_scratch c_scratch; /* freed at the next call */
    fd_stats c_st;
    /* records */
    fd_slots c_nodes, c_racks, c_jobs, c_tasks, c_classes;
    fd_link c_dirty_classes;
    sk_map c_node_by_peer; /* peer + 1 -> fd_node (live) */
    sk_map c_node_by_name; /* name hash -> fd_node chain (live) */
    sk_map c_away; /* node monitors lost with long tasks (fd_reclaim.c) */
    sk_map c_sched_by_peer; /* peer + 1 -> fd_sched (live sessions) */
    fd_link c_sched_gone;   /* schedulers in their grace, oldest first */
    fd_link c_sched_back;   /* back, re-forwards awaited, oldest first */
    sk_map c_task_by_resv;  /* resv -> fd_task */
    uint64_t c_ntasks;      /* tasks held (not dead) */
    uint64_t c_njobs;
    uint64_t c_nnodes;
    uint64_t c_resv_next;
    /* queues */
    fd_link c_by_seen;      /* live nodes, least recently heard first */
    fd_link c_reserves;     /* RESERVED tasks, oldest first */
    fd_link c_pref_waiting; /* waiting tasks with preferences */
    fd_link c_waiting;      /* waiting tasks */
    fd_link c_fast;         /* waiting fallback short tasks (fd_fast.c) */
    uint32_t c_fast_cursor; /* node slot the fast path's scan resumes at */
    fd_link c_assigned;     /* tasks on a node */
    fd_task **c_due;        /* waiting tasks by when their costs next change:
                               a heap of c_ndue, room for c_due_cap (fd_due.c) */
    uint32_t c_ndue, c_due_cap;
    uint64_t c_stamp; /* rounds ended, for t_round */
    fd_link c_dirty_tasks, c_dirty_nodes, c_dirty_jobs;
    fd_link c_mchanges; /* nodes with a MEMBERSHIP change */
    bool c_nodes_added; /* since the last sync */
    bool c_racks_dirty;
    uint32_t c_nclasses;
    /* the network and rounds */
    fd_net *c_net;
    bool c_net_broken; /* rebuild at the next sync */
    bool c_round_out;
    bool c_solve_failed;
    fd_round c_round;
    uint64_t c_events;
    sk_time c_first_event; /* of the pending changes */
    uint64_t c_mb_seq;
    sk_time c_stall_end; /* fd_core_stalled: node sessions ending
                            before this are detached */
    /* `flow-dump` (fd_dump.c): the one dump being read, page by page */
    char *c_dump;
    size_t c_dump_len;
    uint64_t c_dump_id;
};

/* fd_core.c */
/* Every call into the core starts with fd_enter (what the previous
 * call's messages pointed to may go) and an input ends with fd_leave
 * (the directory's changes go out). */
void fd_enter(fd_core *c);
void fd_leave(fd_core *c);
/* When the pending changes make a round due, or SK_TIME_NEVER. */
sk_time fd_round_due(const fd_core *c);
sk_msg *fd_push(fd_core *c, sk_peer to, sk_msg_type type);
void *fd_scratch_alloc(fd_core *c, size_t n);
char *fd_scratch_printf(fd_core *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fd_event(fd_core *c, sk_time now);

/* fd_cluster.c: nodes, racks, heartbeats, the directory */
/* fd_name_hash: FNV-1a of the NUL-terminated s, never 0. */
uint64_t fd_name_hash(const char *s);
void fd_on_hello(fd_core *c, sk_time now, sk_peer from, const sk_hello *h);
void fd_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                     const sk_heartbeat *hb);
void fd_node_down(fd_core *c, sk_time now, fd_node *n, const char *why);
void fd_node_touch(fd_core *c, fd_node *n);
fd_node *fd_node_by_peer(const fd_core *c, sk_peer peer);
/* fd_node_detach: n's session ended right after flowd's own stall: it
 * stays up without a peer until node_timeout_ms after its last heartbeat,
 * and a HELLO of the same name and incarnation takes it back with its
 * tasks (fd_on_hello). */
void fd_node_detach(fd_core *c, fd_node *n);
fd_node *fd_node_by_name(const fd_core *c, const char *name);
/* fd_name_hash: the hash of a node's name (never 0). */
uint64_t fd_name_hash(const char *s);
fd_rack *fd_rack_by_name(const fd_core *c, const char *name);
void fd_node_free(fd_core *c, fd_node *n);

/* fd_reclaim.c: a node lost past node_timeout_ms comes back.
 * fd_reclaim_mark: t ran on n, which the core writes off: t remembers n
 * and its attempt (call before t is re-planned). fd_reclaim_hello: the
 * new record n registered; a node monitor lost with tasks gets no work
 * until its first heartbeat. fd_reclaim: ru, a long task n's heartbeat
 * lists and the core does not know: 1 taken back (running on n with its
 * old attempt), -1 released with kill (placed again meanwhile), 0 none
 * of the tasks lost with n. */
void fd_reclaim_mark(fd_core *c, fd_node *n, fd_task *t);
void fd_reclaim_hello(fd_core *c, fd_node *n);
int fd_reclaim(fd_core *c, sk_time now, fd_node *n, const sk_running *ru);

/* fd_directory.c: MEMBERSHIP */
uint8_t fd_node_state(const fd_node *n);          /* sk_node_state */
void fd_membership_check(fd_core *c, fd_node *n); /* queue a change */
void fd_membership_flush(fd_core *c);             /* send the changes */
void fd_membership_full(fd_core *c, sk_peer to);
void fd_node_mark(fd_core *c, fd_node *n);
uint32_t fd_node_room(const fd_node *n);

/* fd_jobs.c: schedulers, jobs, tasks */
void fd_on_sched_hello(fd_core *c, sk_time now, sk_peer from,
                       const sk_hello *h);
void fd_on_submit(fd_core *c, sk_time now, fd_sched *s,
                  const sk_submit_job *sj);
void fd_on_cancel(fd_core *c, sk_time now, fd_sched *s,
                  const sk_cancel_job *cj);
void fd_on_finished(fd_core *c, sk_time now, fd_sched *s,
                    const sk_task_finished *tf);
void fd_sched_down(fd_core *c, sk_time now, fd_sched *s);
fd_sched *fd_sched_by_peer(const fd_core *c, sk_peer peer);
fd_job *fd_job_find(const fd_sched *s, uint64_t id);
void fd_task_dirty(fd_core *c, fd_task *t);
void fd_task_set_state(fd_core *c, fd_task *t, uint8_t state);
void fd_task_assign(fd_core *c, fd_task *t, fd_node *n);
void fd_task_unassign(fd_core *c, fd_task *t);
void fd_task_end(fd_core *c, sk_time now, fd_task *t, uint8_t status,
                 const char *why);
void fd_task_retry(fd_core *c, sk_time now, fd_task *t, const char *why);
void fd_job_free(fd_core *c, fd_job *j);
void fd_sched_free(fd_core *c, fd_sched *s);
void fd_job_cancel(fd_core *c, sk_time now, fd_job *j);

/* fd_grace.c: a scheduler whose session ended keeps its work for
 * fdc_sched_grace_ms. fd_sched_leave: its session ended (false: no
 * grace, the caller cancels as before). fd_sched_return: a scheduler's
 * HELLO from peer; true when it took back held work (the scheduler is
 * registered on peer), false when there was none (held work of another
 * incarnation is cancelled). fd_sched_keep: keep an outcome the core
 * decided for a gone scheduler (true) or not gone (false: send it).
 * fd_grace_job_ended: a held job ended (remembered for the re-forward).
 * fd_grace_reforward: a SUBMIT_JOB from s; true when it was a held job
 * re-forwarded (answered); false for new work, after cancelling a job
 * of the same sj_key held for another, gone scheduler (moved).
 * fd_grace_timeouts and fd_grace_deadline: the grace and the re-forward window
 * running out. fd_grace_forget: what the grace holds of s is freed (s is being
 * freed). */
bool fd_sched_leave(fd_core *c, sk_time now, fd_sched *s);
bool fd_sched_return(fd_core *c, sk_time now, sk_peer peer, const sk_hello *h);
bool fd_sched_keep(fd_core *c, sk_time now, fd_task *t, uint8_t status,
                   const char *why);
/* fd_send_outcome sends s a TASK_FINISHED for (job, task, attempt):
 * status, the node it ended on ("" if none), why (NULL: no output) and
 * its end time; dropped when the outbox is full (fd_push). */
void fd_send_outcome(fd_core *c, fd_sched *s, uint64_t job, uint32_t task,
                     uint32_t attempt, uint8_t status, const char *node,
                     const char *why, sk_time end);
void fd_grace_job_ended(fd_core *c, fd_job *j);
bool fd_grace_reforward(fd_core *c, sk_time now, fd_sched *s,
                        const sk_submit_job *sj);
void fd_grace_timeouts(fd_core *c, sk_time now);
sk_time fd_grace_deadline(const fd_core *c);
void fd_grace_forget(fd_sched *s);
/* fd_job_away: j's scheduler went and has not re-forwarded it yet (its
 * waiting tasks are not placed: nobody may hear of them). */
bool fd_job_away(const fd_job *j);
void fd_grace_free(fd_core *c);

/* fd_actions.c: flow to messages and their answers */
void fd_send_reserve(fd_core *c, sk_time now, fd_task *t, fd_node *n);
void fd_send_release(fd_core *c, fd_node *n, uint64_t resv, uint64_t job,
                     uint32_t task);
void fd_on_reserve_answer(fd_core *c, sk_time now, fd_node *n,
                          const sk_reserve_ack *ra, bool ack);
void fd_reserve_timeouts(fd_core *c, sk_time now);

/* fd_class.c: equivalence classes */
int fd_class_ref(fd_core *c, const sk_submit_job *sj, fd_class **out);
void fd_class_unref(fd_core *c, fd_class *k);
void fd_class_free(fd_core *c, fd_class *k);
bool fd_class_fits_labels(const fd_class *k, const fd_node *n);

/* fd_due.c: the waiting tasks by when their time-dependent costs next
 * change. fd_due_reserve makes room for n tasks (0 or SK_ENOMEM): call
 * it with the task slot table's length whenever a slot is taken, and the
 * heap never lacks room. fd_due_set puts t in the heap (or moves it) to
 * be due at due; fd_due_remove takes it out (no-op when it is not in);
 * fd_due_pop takes out and returns the task due earliest if it is due at
 * now, else NULL. O(log n) each. fd_due_free frees the heap. */
int fd_due_reserve(fd_core *c, uint32_t n);
void fd_due_set(fd_core *c, fd_task *t, sk_time due);
void fd_due_remove(fd_core *c, fd_task *t);
fd_task *fd_due_pop(fd_core *c, sk_time now);
void fd_due_free(fd_core *c);

/* fd_fast.c: the fallback fast path. fd_fast_input, at the end of an
 * input (msg, from node n or NULL): waiting fallback short tasks go at
 * once, without a round, to nodes with room under their long cap and a
 * free slot by their last heartbeat: n, the node a TASK_FINISHED names,
 * and after a SUBMIT_JOB of short work a bounded scan of the nodes.
 * O(tasks placed + nodes scanned), the scan at most
 * FD_FAST_SCAN + FD_FAST_SCAN_PER_TASK x the job's tasks. */
void fd_fast_input(fd_core *c, sk_time now, const sk_msg *msg, fd_node *n);

/* fd_sync.c: records to network */
int fd_sync(fd_core *c, fd_net *net, sk_time now);
int fd_build(const fd_core *c, fd_net *net, sk_time now);

/* fd_status.c: STATUS_REPLY, to the status or to a query (sq_query:
 * "flow-dump ...", "explain ...", "jobs", "constraints", "users"), built
 * in scratch memory */
int fd_status_build(fd_core *c, const sk_status_request *req, sk_time now,
                    sk_status_reply *reply);
/* Adds a pair to reply (at most 48, values cut at SK_MAX_STATUS_LEN).
 * Returns 0 or SK_ENOMEM. */
int fd_reply_kv(fd_core *c, sk_status_reply *reply, const char *key,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Sets reply's table to one column "text" holding text[0..len): one row
 * per line (by_line, newlines dropped, a longer line cut into several
 * rows), else cells of SK_MAX_STATUS_LEN bytes to be concatenated; at
 * most SK_MAX_STATUS_ROWS rows. Returns 0 or SK_ENOMEM. */
int fd_reply_text(fd_core *c, sk_status_reply *reply, const char *text,
                  size_t len, bool by_line);
/* The answer while a round is out: the network cannot be read. */
int fd_reply_busy(fd_core *c, sk_status_reply *reply);

/* fd_dump.c: "flow-dump" and "flow-dump ID OFFSET" (args after the
 * word); fd_dump_free drops the dump being read. */
int fd_query_dump(fd_core *c, const char *args, sk_status_reply *reply);
void fd_dump_free(fd_core *c);

/* fd_query_cons.c: "constraints": the constraint rounds' counters (key/
 * value pairs) and one row per constrained job: its pairs broken, hard,
 * soft, soft weight and per constraint (at most SK_MAX_STATUS_ROWS). */
int fd_query_cons(fd_core *c, sk_status_reply *reply);

/* fd_explain.c: "explain [SCHED/]JOB TASK" (args after the word) */
int fd_query_explain(fd_core *c, const char *args, sk_time now,
                     sk_status_reply *reply);

#endif /* FD_INT_H */
