/*
 * sk_proto.h - the Skylark wire protocol: every message the daemons,
 * frontends and executors exchange, its limits, and its encoder and decoder.
 *
 * A message on the wire is one msgpack array, the envelope:
 *
 *     [version, type, field1, field2, ...]
 *
 * version is SK_PROTOCOL_VERSION, type an sk_msg_type, and the fields are
 * the message's fields in the order of its struct below (nested structures
 * and lists are nested msgpack arrays). docs/PROTOCOL.md describes every
 * message, who sends it to whom, and the versioning rule.
 *
 * Encoding writes into a caller-owned sk_buf that can be reused, so a hot
 * path allocates nothing once the buffer has grown. Decoding fills an
 * sk_msg; all of its variable-size parts (strings, bytes, lists) live in
 * memory owned by that sk_msg and released by one sk_msg_free call. Input
 * to a decoder is treated as hostile: every type, length, count, range and
 * the absence of trailing bytes is checked against the limits below.
 *
 * Threading: the functions keep no global state; distinct buffers and
 * messages may be used from distinct threads.
 */
#ifndef SK_PROTO_H
#define SK_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The protocol version carried by every message. A receiver rejects any
 * other version with SK_EVERSION. */
#define SK_PROTOCOL_VERSION 4

/* Limits. Encoders refuse (SK_ELIMIT) to produce a message that exceeds
 * one; decoders reject (SK_ELIMIT) input that exceeds one. Lengths are in
 * bytes and exclude the terminating NUL of strings. */
#define SK_MAX_MSG_BYTES    (16u << 20) /* a whole encoded message */
#define SK_MAX_NAME_LEN     255u        /* node, user, framework names */
#define SK_MAX_ADDR_LEN     255u        /* one nanomsg address */
#define SK_MAX_ADDRS        8u          /* addresses in a HELLO */
#define SK_MAX_LABEL_LEN    127u        /* one label */
#define SK_MAX_LABELS       64u         /* labels per node or job */
#define SK_MAX_REASON_LEN   1024u       /* human-readable reasons */
#define SK_MAX_TASKS        100000u     /* tasks in one job */
#define SK_MAX_SPEC_BYTES   65536u      /* one task's opaque spec */
#define SK_MAX_PREFERRED    16u         /* preferred nodes per task */
#define SK_MAX_OUTPUT_BYTES 4096u       /* tail of a task's output */
#define SK_MAX_SLOTS        4096u       /* slots on one node */
#define SK_MAX_ATTEMPTS     100u        /* attempts of one task */
#define SK_MAX_NODES        65536u      /* nodes in a MEMBERSHIP */
#define SK_MAX_PROBE_RATIO  64.0        /* sampling probe ratio d */
#define SK_MAX_STATUS_KV    256u        /* key/value pairs in a status */
#define SK_MAX_STATUS_COLS  16u         /* columns of the status table */
#define SK_MAX_STATUS_ROWS  16384u      /* rows of the status table */
#define SK_MAX_STATUS_LEN   255u        /* one status key, value or cell */
#define SK_MAX_TAGS         8u          /* allocation tags of one task */
#define SK_MAX_TAG_LEN      63u         /* one allocation tag */
#define SK_MAX_CONSTRAINTS  32u         /* placement constraints of a job */
#define SK_MAX_WEIGHT       1000u       /* weight of a soft constraint */
#define SK_MAX_HB_USERS     64u         /* users summed in a HEARTBEAT */
/* A HEARTBEAT's users page index at most: 16,384 users (max_users) by 64
 * after page 0. */
#define SK_MAX_HB_USER_PAGES 256u
#define SK_MAX_USER_WEIGHT   1000000u /* a user's weight on a node */

/* Priority levels: 0 is the most urgent, SK_PRIORITIES - 1 the least. */
#define SK_PRIORITIES 8u

/* A task index meaning "not bound to one task" (ENQUEUE_RESERVATION) or
 * "every task of the job" (KILL_TASK). */
#define SK_TASK_ANY UINT32_MAX

/* Message types, as carried in the envelope. Values are part of the wire
 * format and never reused. */
typedef enum sk_msg_type {
    SK_MSG_HELLO = 1,
    SK_MSG_SUBMIT_JOB = 2,
    SK_MSG_JOB_ACCEPTED = 3,
    SK_MSG_JOB_REJECTED = 4,
    SK_MSG_ENQUEUE_RESERVATION = 5,
    SK_MSG_GET_TASK = 6,
    SK_MSG_TASK_REPLY = 7,
    SK_MSG_CANCEL_RESERVATIONS = 8,
    SK_MSG_LAUNCH_TASK = 9,
    SK_MSG_TASK_STARTED = 10,
    SK_MSG_TASK_FINISHED = 11,
    SK_MSG_CANCEL_JOB = 12,
    SK_MSG_JOB_DONE = 13,
    SK_MSG_KILL_TASK = 14,
    SK_MSG_RESERVE = 15,
    SK_MSG_RESERVE_ACK = 16,
    SK_MSG_RESERVE_REJECT = 17,
    SK_MSG_RELEASE = 18,
    SK_MSG_HEARTBEAT = 19,
    SK_MSG_MEMBERSHIP = 20,
    SK_MSG_STATUS_REQUEST = 21,
    SK_MSG_STATUS_REPLY = 22,
    SK_MSG_TASK_OUTCOME = 23,
} sk_msg_type;

/* One past the largest message type. */
#define SK_MSG_TYPE_END 24

/* The role of a process in a HELLO or STATUS_REPLY. */
typedef enum sk_role {
    SK_ROLE_FRONTEND = 1,
    SK_ROLE_SCHEDULER = 2,
    SK_ROLE_NODEMON = 3,
    SK_ROLE_FLOWD = 4,
    SK_ROLE_EXECUTOR = 5,
} sk_role;
#define SK_ROLE_MAX SK_ROLE_EXECUTOR

/* How one attempt of a task ended (TASK_FINISHED). */
typedef enum sk_task_status {
    SK_TASK_OK = 1,        /* ran and exited with code 0 */
    SK_TASK_FAILED = 2,    /* ran and failed (exit code, or could not start) */
    SK_TASK_KILLED = 3,    /* killed on request (KILL_TASK, RELEASE) */
    SK_TASK_LOST = 4,      /* its node or executor went away */
    SK_TASK_CANCELLED = 5, /* the frontend cancelled the job */
} sk_task_status;
#define SK_TASK_STATUS_MAX SK_TASK_CANCELLED

/* The state of a node in a MEMBERSHIP entry. */
typedef enum sk_node_state {
    SK_NODE_UP = 1,        /* accepting short tasks */
    SK_NODE_SATURATED = 2, /* full of long tasks: do not probe it */
    SK_NODE_DOWN = 3,      /* gone: forget it */
} sk_node_state;
#define SK_NODE_STATE_MAX SK_NODE_DOWN

/* Opaque bytes: b_len bytes at b_data (b_data may be NULL when b_len is
 * 0). In a decoded message b_data points into memory the sk_msg owns. */
typedef struct sk_bytes {
    const uint8_t *b_data;
    uint32_t b_len;
} sk_bytes;

/* A resource amount: CPU in millicores, memory in MiB. */
typedef struct sk_resources {
    uint32_t r_cpu_milli;
    uint32_t r_mem_mb;
} sk_resources;

/*
 * Message bodies. Strings are NUL-terminated, contain no NUL, and are at
 * most the named limit long; an encoder treats a NULL string as "". A list
 * is a pointer and a count. In a decoded message every string is non-NULL.
 */

/* HELLO: any process registering with a peer (node monitor to flowd and
 * to schedulers, scheduler to flowd, executor to its node monitor,
 * frontend to its scheduler). */
typedef struct sk_hello {
    uint8_t he_role;          /* sk_role */
    uint32_t he_id;           /* node or daemon id (0 = none yet) */
    uint64_t he_incarnation;  /* changes when the process restarts */
    const char *he_name;      /* node or daemon name */
    const char **he_addrs;    /* addresses it listens on */
    uint32_t he_naddrs;       /* <= SK_MAX_ADDRS */
    uint32_t he_slots;        /* task slots (<= SK_MAX_SLOTS) */
    sk_resources he_res;      /* total resources offered */
    const char **he_labels;   /* node labels */
    uint32_t he_nlabels;      /* <= SK_MAX_LABELS */
    const char *he_framework; /* executors: the framework they run */
    const char *he_rack;      /* node monitors: their rack ("" = none) */
} sk_hello;

/* A node's long cap: how many long reservations (RESERVE) its node
 * monitor accepts at once, from its long_share (in [0, 1]) and its slots:
 * floor(long_share x slots), and at least one when long_share > 0, so
 * that a one-slot node can hold a long task (else neither long work nor
 * short work handed to flowd could ever run on it). The node monitor
 * applies it; flowd computes the same from the node's HELLO. */
static inline uint32_t sk_long_cap(double long_share, uint32_t slots)
{
    uint32_t cap = (uint32_t)(long_share * (double)slots);
    return cap == 0 && long_share > 0 && slots > 0 ? 1 : cap;
}

/* One task of a SUBMIT_JOB. */
typedef struct sk_task_spec {
    sk_bytes ts_spec;          /* opaque, <= SK_MAX_SPEC_BYTES */
    const char **ts_preferred; /* preferred node names (may be empty) */
    uint32_t ts_npreferred;    /* <= SK_MAX_PREFERRED */
    const char **ts_racks;     /* preferred racks (flow path only) */
    uint32_t ts_nracks;        /* <= SK_MAX_PREFERRED */
    uint32_t ts_attempt;       /* scheduler to flowd: the attempt number to
                                  go on from (< SK_MAX_ATTEMPTS); 0 else */
    bool ts_done;              /* scheduler to flowd, re-forwarding after a
                                  flowd restart: the task has ended, keep
                                  its index but do not place it */
    const char **ts_tags;      /* allocation tags (flow path constraints) */
    uint32_t ts_ntags;         /* <= SK_MAX_TAGS, each 1..SK_MAX_TAG_LEN */
    uint32_t ts_ref;           /* with the job's sj_key: the task's index in
                                  the frontend's first submission of the job
                                  (< SK_MAX_TASKS, increasing within a job);
                                  0 without a key */
} sk_task_spec;

/* The node group a placement constraint counts tags in (cn_group). */
typedef enum sk_group {
    SK_GROUP_NODE = 0,  /* one node */
    SK_GROUP_RACK = 1,  /* the nodes of one rack (HELLO he_rack) */
    SK_GROUP_LABEL = 2, /* the nodes carrying the same label "KEY=VALUE"
                           for the key cn_label; a node without one is in
                           no group and counts no tag */
} sk_group;
#define SK_GROUP_MAX SK_GROUP_LABEL

/* "No upper bound" in cn_max. */
#define SK_CARD_ANY UINT32_MAX

/* One placement constraint of a job (MEDEA, YARN placement constraints):
 * every task of the job tagged cn_source must go where the node group
 * holding its node has between cn_min and cn_max tasks tagged cn_target,
 * the task itself not counted. Affinity (IN) is 1..SK_CARD_ANY,
 * anti-affinity (NOT IN) 0..0. A job's constraints all hold at once
 * (AND). client/sk_constraint.h parses the textual form. */
typedef struct sk_constraint {
    const char *cn_source; /* tag of the constrained tasks, 1..63 bytes */
    uint32_t cn_count;     /* "zk=3": tasks tagged cn_source (0: any) */
    uint8_t cn_group;      /* sk_group */
    const char *cn_label;  /* SK_GROUP_LABEL: the label key; else "" */
    const char *cn_target; /* tag counted, 1..63 bytes */
    bool cn_all;           /* count every job's tasks, not only this job's */
    uint32_t cn_min;       /* <= cn_max */
    uint32_t cn_max;       /* or SK_CARD_ANY */
    uint32_t cn_weight;    /* 0 hard, else soft: 1..SK_MAX_WEIGHT per
                              violating task */
} sk_constraint;

/* Where a short job is placed (sj_placement). Long jobs always go to the
 * flow path. */
typedef enum sk_placement {
    SK_PLACE_SAMPLE = 0, /* batch sampling, flowd as fallback */
    SK_PLACE_FLOW = 1,   /* straight to flowd */
} sk_placement;
#define SK_PLACE_MAX SK_PLACE_FLOW

/* SUBMIT_JOB: frontend to scheduler; scheduler to flowd for long jobs and
 * for the fallback of short jobs that sampling could not place. */
typedef struct sk_submit_job {
    uint64_t sj_job;               /* job id, unique per scheduler */
    const char *sj_user;           /* for fair sharing */
    uint8_t sj_priority;           /* < SK_PRIORITIES */
    double sj_probe_ratio;         /* 0 = default, else 1..SK_MAX_PROBE_RATIO */
    const char **sj_labels;        /* nodes must carry every label */
    uint32_t sj_nlabels;           /* <= SK_MAX_LABELS */
    sk_resources sj_res;           /* per-task resource request */
    bool sj_long;                  /* long-running: goes to the flow path */
    uint64_t sj_est_task_us;       /* estimated task duration (0 = unknown) */
    uint32_t sj_max_attempts;      /* 0 = default, else <= SK_MAX_ATTEMPTS */
    const char *sj_framework;      /* executor to use; "" = command executor */
    sk_task_spec *sj_tasks;        /* the tasks */
    uint32_t sj_ntasks;            /* 1..SK_MAX_TASKS */
    uint8_t sj_placement;          /* sk_placement */
    sk_constraint *sj_constraints; /* placement constraints (flow path) */
    uint32_t sj_nconstraints;      /* <= SK_MAX_CONSTRAINTS */
    uint64_t sj_key; /* the frontend's name for the job, the same in every
                        submission of it (failover); 0 = none */
} sk_submit_job;

/* JOB_ACCEPTED (reason "") and JOB_REJECTED: scheduler to frontend. */
typedef struct sk_job_ack {
    uint64_t ja_job;
    const char *ja_reason; /* why it was rejected */
} sk_job_ack;

/* ENQUEUE_RESERVATION: scheduler to node monitor (a Sparrow probe). */
typedef struct sk_enqueue {
    uint64_t er_job;
    uint64_t er_resv;    /* reservation id, echoed in GET_TASK */
    uint32_t er_sched;   /* scheduler id: whom to ask with GET_TASK */
    const char *er_user; /* for the per-user queue */
    uint8_t er_priority; /* < SK_PRIORITIES */
    uint32_t er_count;   /* slots wanted on this node, 1..SK_MAX_TASKS */
    sk_resources er_res; /* per-task resource request */
    uint32_t er_task;    /* bound task index, or SK_TASK_ANY */
} sk_enqueue;

/* GET_TASK: node monitor to scheduler, when a reservation reaches the
 * head of its queue and a slot is free. */
typedef struct sk_get_task {
    uint64_t gt_job;
    uint64_t gt_resv; /* the reservation being served */
    uint32_t gt_node_id;
    const char *gt_node; /* node name */
} sk_get_task;

/* TASK_REPLY: scheduler to node monitor, the answer to GET_TASK: one task
 * (tr_has_task) or nothing left (then the task fields are zero/empty). */
typedef struct sk_task_reply {
    uint64_t tr_job;
    uint64_t tr_resv;
    bool tr_has_task;
    uint32_t tr_task;    /* task index */
    uint32_t tr_attempt; /* 0 for the first attempt */
    sk_bytes tr_spec;
    const char *tr_framework;
    uint64_t tr_key; /* the job's sj_key (0: none) */
    uint32_t tr_ref; /* the task's ts_ref */
} sk_task_reply;

/* CANCEL_RESERVATIONS: scheduler to node monitor: drop every queued
 * reservation of the job. */
typedef struct sk_cancel_resv {
    uint64_t cr_job;
} sk_cancel_resv;

/* LAUNCH_TASK: node monitor to executor. */
typedef struct sk_launch {
    uint64_t lt_job;
    uint32_t lt_task;
    uint32_t lt_attempt;
    const char *lt_user;
    sk_resources lt_res;
    sk_bytes lt_spec;
    const char *lt_framework;
} sk_launch;

/* TASK_STARTED: node monitor to scheduler, scheduler to frontend. */
typedef struct sk_task_started {
    uint64_t st_job;
    uint32_t st_task;
    uint32_t st_attempt;
    const char *st_node;
    uint64_t st_launch_us; /* wall clock, microseconds since the epoch */
} sk_task_started;

/* TASK_FINISHED: executor to node monitor, node monitor to scheduler,
 * scheduler to frontend. */
typedef struct sk_task_finished {
    uint64_t tf_job;
    uint32_t tf_task;
    uint32_t tf_attempt;
    const char *tf_node;
    uint8_t tf_status;     /* sk_task_status */
    int32_t tf_exit;       /* exit code; negative: killed by signal -n */
    sk_bytes tf_output;    /* tail of the output, <= SK_MAX_OUTPUT_BYTES */
    uint64_t tf_launch_us; /* microseconds since the epoch */
    uint64_t tf_end_us;
} sk_task_finished;

/* TASK_OUTCOME: node monitor to scheduler: how a task ended whose own
 * scheduler may never have heard it (its session ended), offered under
 * the frontend's name for the task (docs/FAULTS.md, "Outcomes offered"). */
typedef struct sk_task_outcome {
    uint64_t to_key;       /* the job's sj_key, not 0 */
    uint32_t to_ref;       /* the task's ts_ref, < SK_MAX_TASKS */
    const char *to_user;   /* the user the task ran for */
    const char *to_node;   /* where it ran */
    uint8_t to_status;     /* SK_TASK_OK or SK_TASK_FAILED: it ran to its end */
    int32_t to_exit;       /* as tf_exit */
    sk_bytes to_output;    /* tail of the output, <= SK_MAX_OUTPUT_BYTES */
    uint64_t to_launch_us; /* microseconds since the epoch */
    uint64_t to_end_us;
} sk_task_outcome;

/* CANCEL_JOB: frontend to scheduler (and scheduler to flowd). */
typedef struct sk_cancel_job {
    uint64_t cj_job;
    const char *cj_reason;
} sk_cancel_job;

/* JOB_DONE: scheduler to frontend, once every task has its final outcome.
 * The outcome counts add up to jd_tasks. */
typedef struct sk_job_done {
    uint64_t jd_job;
    uint32_t jd_tasks;
    uint32_t jd_ok;
    uint32_t jd_failed;
    uint32_t jd_killed;
    uint32_t jd_lost;
    uint32_t jd_cancelled;
    uint64_t jd_end_us;
} sk_job_done;

/* KILL_TASK: scheduler to node monitor, node monitor to executor: stop an
 * attempt (or, with kt_task SK_TASK_ANY, every task of the job). */
typedef struct sk_kill_task {
    uint64_t kt_job;
    uint32_t kt_task;
    uint32_t kt_attempt;
} sk_kill_task;

/* RESERVE: flowd to node monitor: hold a slot for a long (or fallback)
 * task and start it as soon as the slot frees. */
typedef struct sk_reserve {
    uint64_t rv_resv; /* reservation id chosen by flowd */
    uint64_t rv_job;
    uint32_t rv_task;
    uint32_t rv_attempt;
    uint32_t rv_sched; /* scheduler to report the task to */
    const char *rv_user;
    uint8_t rv_priority; /* < SK_PRIORITIES */
    sk_resources rv_res;
    sk_bytes rv_spec;
    const char *rv_framework;
    uint64_t rv_key; /* the job's sj_key as the scheduler handed it over
                        (0: none; version 4) */
    uint32_t rv_ref; /* the task's ts_ref; 0 without a key */
} sk_reserve;

/* RESERVE_ACK (reason "") and RESERVE_REJECT: node monitor to flowd. */
typedef struct sk_reserve_ack {
    uint64_t ra_resv;
    uint64_t ra_job;
    uint32_t ra_task;
    uint32_t ra_node_id;
    const char *ra_reason;
} sk_reserve_ack;

/* RELEASE: flowd to node monitor: drop a reservation; with rl_kill also
 * stop the task if it already runs (preemption or migration). */
typedef struct sk_release {
    uint64_t rl_resv;
    uint64_t rl_job;
    uint32_t rl_task;
    bool rl_kill;
} sk_release;

/* A task running on a node, in a HEARTBEAT. */
typedef struct sk_running {
    uint64_t ru_job;
    uint32_t ru_task;
    uint32_t ru_attempt;
    uint64_t ru_launch_us;
    bool ru_long; /* started through RESERVE */
    sk_resources ru_res;
} sk_running;

/* One user's usage of a node, in a HEARTBEAT (version 4): what the node
 * monitor's status table shows for the user (nm_report.c). */
typedef struct sk_usage {
    const char *us_user;
    uint32_t us_weight;  /* the node's weight for the user */
    uint32_t us_queued;  /* reservations queued */
    uint32_t us_running; /* tasks running */
    uint64_t us_slot_ms; /* slot time used, finished and running tasks */
} sk_usage;

/* HEARTBEAT: node monitor to flowd. */
typedef struct sk_heartbeat {
    uint32_t hb_node_id;
    const char *hb_node;
    uint64_t hb_seq; /* increases by one per heartbeat */
    uint64_t hb_time_us;
    uint32_t hb_slots_total;          /* <= SK_MAX_SLOTS */
    uint32_t hb_slots_used;           /* <= hb_slots_total */
    uint32_t hb_slots_reserved;       /* <= hb_slots_total */
    sk_resources hb_used;             /* resources in use */
    uint32_t hb_queue[SK_PRIORITIES]; /* queued reservations per priority */
    sk_running *hb_running;
    uint32_t hb_nrunning;    /* <= SK_MAX_SLOTS */
    sk_usage *hb_users;      /* the most active users (version 4) */
    uint32_t hb_nusers;      /* <= SK_MAX_HB_USERS */
    uint32_t hb_users_total; /* users the node tracks, >= hb_nusers */
    bool hb_users_sent;      /* false: no summary here (none listed, total
                                0, page 0): the last one stands */
    uint32_t hb_users_page;  /* page of the node's cycle: 0 the most active,
                                1.. the users by name, 64 a page
                                (<= SK_MAX_HB_USER_PAGES) */
} sk_heartbeat;

/* One node of a MEMBERSHIP. */
typedef struct sk_member {
    uint32_t me_id;
    const char *me_name;
    const char *me_addr; /* the address schedulers reach it on */
    uint8_t me_state;    /* sk_node_state */
    uint32_t me_slots;
    sk_resources me_res;
    const char **me_labels;
    uint32_t me_nlabels; /* <= SK_MAX_LABELS */
} sk_member;

/* MEMBERSHIP: flowd to schedulers and node monitors: the cluster
 * directory, whole (mb_full) or as changes since the previous epoch. */
typedef struct sk_membership {
    uint64_t mb_epoch;
    bool mb_full;
    sk_member *mb_nodes;
    uint32_t mb_nnodes; /* <= SK_MAX_NODES */
} sk_membership;

/* STATUS_REQUEST: any to any (the `skylark status` tool to a daemon).
 * sq_query "" asks for the daemon's status; anything else is a query the
 * daemon may know (flowd: "flow-dump", "explain JOB TASK", "jobs"; see
 * docs/PROTOCOL.md), answered by a STATUS_REPLY too. */
typedef struct sk_status_request {
    uint64_t sq_request;  /* echoed in the reply */
    bool sq_table;        /* also send the table */
    const char *sq_query; /* "" = status (version 2), <= SK_MAX_STATUS_LEN */
} sk_status_request;

/* A key/value pair of a STATUS_REPLY. */
typedef struct sk_status_kv {
    const char *kv_key;
    const char *kv_value;
} sk_status_kv;

/* A row of the STATUS_REPLY table: one cell per column. */
typedef struct sk_status_row {
    const char **sw_cells;
    uint32_t sw_ncells; /* equals the reply's sr_ncolumns */
} sk_status_row;

/* STATUS_REPLY: a daemon describes its state generically: key/value pairs
 * (counters, settings) and one table (per user, per node...). */
typedef struct sk_status_reply {
    uint64_t sr_request;
    uint8_t sr_role; /* sk_role */
    const char *sr_name;
    uint64_t sr_time_us;
    sk_status_kv *sr_kv;
    uint32_t sr_nkv; /* <= SK_MAX_STATUS_KV */
    const char **sr_columns;
    uint32_t sr_ncolumns; /* <= SK_MAX_STATUS_COLS */
    sk_status_row *sr_rows;
    uint32_t sr_nrows; /* <= SK_MAX_STATUS_ROWS */
} sk_status_reply;

/* A decoded message, or one to encode with sk_msg_encode. m_type tells
 * which member of the union is valid. Memory behind the pointers of a
 * decoded message belongs to it until sk_msg_free. Do not copy a decoded
 * sk_msg and free both copies. */
typedef struct sk_msg {
    sk_msg_type m_type;
    union {
        sk_hello m_hello;
        sk_submit_job m_submit_job;
        sk_job_ack m_job_ack; /* JOB_ACCEPTED, JOB_REJECTED */
        sk_enqueue m_enqueue;
        sk_get_task m_get_task;
        sk_task_reply m_task_reply;
        sk_cancel_resv m_cancel_resv;
        sk_launch m_launch;
        sk_task_started m_task_started;
        sk_task_finished m_task_finished;
        sk_cancel_job m_cancel_job;
        sk_job_done m_job_done;
        sk_kill_task m_kill_task;
        sk_reserve m_reserve;
        sk_reserve_ack m_reserve_ack; /* RESERVE_ACK, RESERVE_REJECT */
        sk_release m_release;
        sk_heartbeat m_heartbeat;
        sk_membership m_membership;
        sk_status_request m_status_request;
        sk_status_reply m_status_reply;
        sk_task_outcome m_task_outcome;
    };
    struct sk_arena *m_arena; /* owner of the decoded variable-size parts */
} sk_msg;

/* A growable byte buffer that encoders write into. Initialise with
 * SK_BUF_INIT or sk_buf_init; reuse it across messages to avoid
 * allocation; release with sk_buf_free. */
typedef struct sk_buf {
    uint8_t *b_data;
    size_t b_len; /* bytes in use */
    size_t b_cap; /* bytes allocated */
} sk_buf;
#define SK_BUF_INIT                                                            \
    {                                                                          \
        NULL, 0, 0                                                             \
    }

/* sk_buf_init makes buf empty, without allocating. */
void sk_buf_init(sk_buf *buf);

/* sk_buf_append copies len bytes to the end of buf, growing it
 * geometrically. Returns 0, SK_ELIMIT if the total would exceed
 * SK_MAX_MSG_BYTES, or SK_ENOMEM (buf unchanged). */
int sk_buf_append(sk_buf *buf, const void *data, size_t len);

/* sk_buf_free releases the memory of buf and makes it empty. */
void sk_buf_free(sk_buf *buf);

/* sk_rack_valid tells whether name can be a rack (HELLO he_rack, a
 * task's ts_racks): 1..SK_MAX_NAME_LEN bytes of graphic ASCII (0x21..0x7e:
 * no space, no control character), so that it prints on one line in
 * status tables, logs and flow dumps. The codec does not check it (a
 * decoded rack is any string within its limit): the node monitor's
 * configuration, the frontend and flowd do. */
bool sk_rack_valid(const char *name);

/* sk_msg_type_name returns the upper-case name of a message type, such as
 * "GET_TASK", or "UNKNOWN" for a value that is not one. Static string. */
const char *sk_msg_type_name(int type);

/* sk_msg_encode encodes msg (the union member named by m_type) into buf,
 * replacing buf's contents (its memory is kept and reused). Returns 0;
 * SK_EUNKNOWN for a bad m_type; SK_ELIMIT if a string, list, byte string
 * or the whole message exceeds its limit; SK_EINVAL if a value is out of
 * its range or the fields disagree (see each message); SK_ENOMEM. On
 * error buf's contents are unspecified. Cost: linear in the message size,
 * no allocation once buf is large enough. */
int sk_msg_encode(sk_buf *buf, const sk_msg *msg);

/* sk_msg_decode decodes one whole message from data[0..len) into out,
 * whatever its type; out->m_type tells which. Returns 0, or on error (out
 * then holds nothing to free): SK_EVERSION for another protocol version,
 * SK_EUNKNOWN for an unknown type, SK_ELIMIT for a length, count or
 * message size over a limit, SK_EPROTO for anything else malformed
 * (wrong msgpack type, value out of range, truncation, trailing bytes),
 * SK_ENOMEM. On success the caller owns out and releases it with
 * sk_msg_free. data is not referenced after the call. */
int sk_msg_decode(const void *data, size_t len, sk_msg *out);

/* sk_msg_peek_type reads only the envelope: the version (SK_EVERSION if
 * it is not ours) and the type (SK_EUNKNOWN if unknown) into *type.
 * SK_EPROTO if the envelope is malformed. */
int sk_msg_peek_type(const void *data, size_t len, sk_msg_type *type);

/* sk_msg_free releases what a successful decode allocated and zeroes msg.
 * Safe on a zeroed sk_msg and after a failed decode. */
void sk_msg_free(sk_msg *msg);

/*
 * One encoder and decoder per message type. sk_X_encode(buf, body)
 * behaves as sk_msg_encode with the type X. sk_X_decode(data, len, out)
 * behaves as sk_msg_decode but also fails with SK_EPROTO when the message
 * is valid but of another type; on success the body is in out's member
 * named in the comment, and the caller releases it with sk_msg_free.
 */

/* HELLO: out->m_hello. */
int sk_hello_encode(sk_buf *buf, const sk_hello *m);
int sk_hello_decode(const void *data, size_t len, sk_msg *out);

/* SUBMIT_JOB: out->m_submit_job. SK_EINVAL when encoding a job with no
 * task or a probe ratio strictly between 0 and 1. */
int sk_submit_job_encode(sk_buf *buf, const sk_submit_job *m);
int sk_submit_job_decode(const void *data, size_t len, sk_msg *out);

/* JOB_ACCEPTED: out->m_job_ack. */
int sk_job_accepted_encode(sk_buf *buf, const sk_job_ack *m);
int sk_job_accepted_decode(const void *data, size_t len, sk_msg *out);

/* JOB_REJECTED: out->m_job_ack. */
int sk_job_rejected_encode(sk_buf *buf, const sk_job_ack *m);
int sk_job_rejected_decode(const void *data, size_t len, sk_msg *out);

/* ENQUEUE_RESERVATION: out->m_enqueue. er_task must be below
 * SK_MAX_TASKS or be SK_TASK_ANY. */
int sk_enqueue_encode(sk_buf *buf, const sk_enqueue *m);
int sk_enqueue_decode(const void *data, size_t len, sk_msg *out);

/* GET_TASK: out->m_get_task. */
int sk_get_task_encode(sk_buf *buf, const sk_get_task *m);
int sk_get_task_decode(const void *data, size_t len, sk_msg *out);

/* TASK_REPLY: out->m_task_reply. Without tr_has_task the task fields
 * must be zero and empty (SK_EINVAL otherwise). */
int sk_task_reply_encode(sk_buf *buf, const sk_task_reply *m);
int sk_task_reply_decode(const void *data, size_t len, sk_msg *out);

/* CANCEL_RESERVATIONS: out->m_cancel_resv. */
int sk_cancel_resv_encode(sk_buf *buf, const sk_cancel_resv *m);
int sk_cancel_resv_decode(const void *data, size_t len, sk_msg *out);

/* LAUNCH_TASK: out->m_launch. */
int sk_launch_encode(sk_buf *buf, const sk_launch *m);
int sk_launch_decode(const void *data, size_t len, sk_msg *out);

/* TASK_STARTED: out->m_task_started. */
int sk_task_started_encode(sk_buf *buf, const sk_task_started *m);
int sk_task_started_decode(const void *data, size_t len, sk_msg *out);

/* TASK_FINISHED: out->m_task_finished. */
int sk_task_finished_encode(sk_buf *buf, const sk_task_finished *m);
int sk_task_finished_decode(const void *data, size_t len, sk_msg *out);

/* CANCEL_JOB: out->m_cancel_job. */
int sk_cancel_job_encode(sk_buf *buf, const sk_cancel_job *m);
int sk_cancel_job_decode(const void *data, size_t len, sk_msg *out);

/* JOB_DONE: out->m_job_done. The outcome counts must add up to jd_tasks
 * (SK_EINVAL otherwise). */
int sk_job_done_encode(sk_buf *buf, const sk_job_done *m);
int sk_job_done_decode(const void *data, size_t len, sk_msg *out);

/* KILL_TASK: out->m_kill_task. */
int sk_kill_task_encode(sk_buf *buf, const sk_kill_task *m);
int sk_kill_task_decode(const void *data, size_t len, sk_msg *out);

/* RESERVE: out->m_reserve. */
int sk_reserve_encode(sk_buf *buf, const sk_reserve *m);
int sk_reserve_decode(const void *data, size_t len, sk_msg *out);

/* RESERVE_ACK: out->m_reserve_ack. */
int sk_reserve_ack_encode(sk_buf *buf, const sk_reserve_ack *m);
int sk_reserve_ack_decode(const void *data, size_t len, sk_msg *out);

/* RESERVE_REJECT: out->m_reserve_ack. */
int sk_reserve_reject_encode(sk_buf *buf, const sk_reserve_ack *m);
int sk_reserve_reject_decode(const void *data, size_t len, sk_msg *out);

/* RELEASE: out->m_release. */
int sk_release_encode(sk_buf *buf, const sk_release *m);
int sk_release_decode(const void *data, size_t len, sk_msg *out);

/* HEARTBEAT: out->m_heartbeat. Used and reserved slots must not exceed
 * the total (SK_EINVAL otherwise). */
int sk_heartbeat_encode(sk_buf *buf, const sk_heartbeat *m);
int sk_heartbeat_decode(const void *data, size_t len, sk_msg *out);

/* MEMBERSHIP: out->m_membership. */
int sk_membership_encode(sk_buf *buf, const sk_membership *m);
int sk_membership_decode(const void *data, size_t len, sk_msg *out);

/* STATUS_REQUEST: out->m_status_request. */
int sk_status_request_encode(sk_buf *buf, const sk_status_request *m);
int sk_status_request_decode(const void *data, size_t len, sk_msg *out);

/* STATUS_REPLY: out->m_status_reply. Every row must have exactly
 * sr_ncolumns cells (SK_EINVAL otherwise). */
int sk_status_reply_encode(sk_buf *buf, const sk_status_reply *m);
int sk_status_reply_decode(const void *data, size_t len, sk_msg *out);

/* TASK_OUTCOME: out->m_task_outcome. to_key must not be 0. */
int sk_task_outcome_encode(sk_buf *buf, const sk_task_outcome *m);
int sk_task_outcome_decode(const void *data, size_t len, sk_msg *out);

#endif /* SK_PROTO_H */
