/*
 * sk_frontend_int.h - the insides of an sk_frontend, shared by its two
 * files: sk_frontend.c (the object, the session with a scheduler and its
 * failover, the waits) and sk_frontend_job.c (jobs: submission, the
 * scheduler's messages about them, and their outcomes).
 */
#ifndef SK_FRONTEND_INT_H
#define SK_FRONTEND_INT_H

#include "sk_map.h"
#include "sk_link.h"
#include "sk_proto.h"
#include "skylark.h"

#include <ev.h>

#define FE_MAX_ENDPOINTS 16

/* The most failovers a job may be given (fo_max_failovers). */
#define FE_MAX_FAILOVERS 16

/* Wire ids of resubmissions have the top bit set, so that they never
 * meet a public job id (those count from 1 and stay far below). */
#define FE_RESUB_BIT (UINT64_C(1) << 63)

/* Where a job is. */
typedef enum fj_state {
    FJ_WAITING = 1,  /* in the frontend, not yet handed to a scheduler */
    FJ_SENT = 2,     /* handed to the session, no answer yet */
    FJ_ACCEPTED = 3, /* JOB_ACCEPTED received */
    FJ_ENDING = 4,   /* its last callbacks are running */
    FJ_HELD = 5,     /* a resubmission the scheduler refused, held for
                        fe_move_delay before it is offered again */
} fj_state;

/* Per task. */
#define FT_ENDED   1u /* has its final outcome */
#define FT_STARTED 2u /* a TASK_STARTED was seen */

typedef struct fe_task {
    uint64_t ft_launch_us;    /* latest TASK_STARTED */
    uint32_t ft_attempt;      /* latest attempt seen, as the framework
                                 numbers it (ft_attempt_base + the
                                 scheduler's number) */
    uint32_t ft_attempt_base; /* the framework's number of the current
                                 submission's attempt 0 */
    uint8_t ft_flags;
} fe_task;

typedef struct fe_job {
    sk_job_id fj_id;
    fj_state fj_state;
    uint32_t fj_ntasks;
    uint32_t fj_nended;
    uint32_t fj_count[SK_OUTCOME_CANCELLED + 1]; /* ended, by outcome */
    fe_task *fj_tasks;
    sk_job_callbacks fj_cb;
    uint64_t fj_submit_us;
    double fj_queued_at; /* ev_now when submitted, for fo_queue_timeout;
                            when held, ev_now at which it is released */
    uint8_t *fj_msg;     /* encoded SUBMIT_JOB of the whole job: until
                            handed over, or for the job's life when it
                            may fail over (resubmissions are cut from it) */
    uint32_t fj_msg_len;
    uint8_t *fj_resub; /* encoded resubmission until handed over */
    uint32_t fj_resub_len;
    /* Submissions (failover): each has its own wire id (sj_job); the
     * first is fj_id, the later ones come from fe_next_wire. */
    uint64_t fj_wire;       /* the current submission's */
    uint64_t *fj_old;       /* the earlier ones', fj_nsubs - 1 of them */
    unsigned fj_nsubs;      /* submissions made (1..) */
    uint32_t *fj_sub_map;   /* current submission's task i is task
                               fj_sub_map[i] of the job; NULL: identity */
    uint32_t fj_sub_ntasks; /* tasks in it */
    uint32_t fj_sub_count[SK_OUTCOME_CANCELLED + 1]; /* its outcomes, as
                                                        its JOB_DONE
                                                        should count them */
    int fj_cancel;          /* 1 cancel wanted, 2 CANCEL_JOB handed over */
    char *fj_cancel_reason; /* until handed over */
    struct fe_job *fj_prev, *fj_next; /* waiting or held list */
    struct fe_job *fj_cnext;          /* cancels to send */
    int fj_in_cancel_list;
} fe_job;

/* The result of a job kept for sk_frontend_wait_job (no jc_job_done). */
typedef struct fe_kept {
    sk_job_result fk_result;
    char fk_reason[SK_MAX_REASON_LEN + 64];
} fe_kept;

struct sk_frontend {
    struct ev_loop *fe_loop;
    int fe_own_loop;
    sk_link *fe_link;
    char fe_name[SK_TRANSPORT_MAX_NAME + 1];
    char fe_user[SK_TRANSPORT_MAX_NAME + 1]; /* a token's user, or "" */
    uint64_t fe_incarnation;
    char *fe_endpoints[FE_MAX_ENDPOINTS];
    unsigned fe_nendpoints;
    unsigned fe_cur;                    /* endpoint in use */
    sk_peer_id fe_peer;                 /* its dealer */
    int fe_up;                          /* session up */
    uint8_t fe_wrong[FE_MAX_ENDPOINTS]; /* answered as another kind of
                                           daemon at its last try */
    int fe_all_wrong;                   /* every endpoint did */
    unsigned fe_refused; /* endpoints in a row that failed authentication */
    double fe_connect_timeout, fe_queue_timeout;
    double fe_move_delay; /* session lost: wait this long to move on */
    unsigned fe_max_jobs;
    unsigned fe_max_failovers; /* fo_max_failovers */
    uint32_t fe_max_msg;       /* largest transport message */
    ev_timer fe_connect_w;     /* no session in time: next endpoint */
    ev_timer fe_switch_w;      /* session lost: move on outside the callback */
    ev_timer fe_queue_w;       /* waiting jobs past fo_queue_timeout */
    ev_timer fe_retry_w;       /* the transport pushed back: send again */
    ev_timer fe_held_w;        /* the first held job is due */
    sk_job_id fe_next_id;
    sk_map fe_jobs;        /* in flight, by public id */
    sk_map fe_wire;        /* in flight, by the wire id of every submission */
    uint64_t fe_next_wire; /* for resubmissions, with FE_RESUB_BIT */
    sk_map fe_kept;        /* ended, results kept for a wait */
    fe_job *fe_wait_head, *fe_wait_tail;
    uint64_t fe_nwaiting;
    fe_job *fe_held_head, *fe_held_tail; /* FJ_HELD, by release time */
    fe_job *fe_cancels;                  /* CANCEL_JOB to hand over */
    sk_buf fe_buf;
    sk_frontend_stats fe_stats;
    /* sk_frontend_wait_job */
    sk_job_id fe_wait_id;
    int fe_wait_done;
    fe_kept fe_wait_result;
    char fe_err[SK_MAX_REASON_LEN + 128];
};

/* sk_frontend.c: hand jobs and cancels to the session as far as the
 * transport takes them, arming the retry timer if it pushes back. */
void fe_flush(sk_frontend *fe);

/* sk_frontend.c: printf into fe_err. */
void fe_set_error(sk_frontend *fe, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sk_frontend_job.c: the fe_held_w callback: held jobs that are due
 * wait for the session again, as new jobs do. */
void fe_held_cb(struct ev_loop *loop, ev_timer *w, int revents);

/* sk_frontend.c: arm fo_queue_timeout for the first waiting job while
 * no session is up (nothing when one is, or it is armed already). */
void fe_arm_queue_timer(sk_frontend *fe);

/* sk_frontend_job.c: a message from the scheduler in session. */
void fe_on_message(sk_frontend *fe, const sk_msg *msg);

/* sk_frontend_job.c: the session ended: every job handed over fails
 * over (waits again, with its unfinished tasks, for the next session) or
 * ends (see skylark.h). */
void fe_lose_jobs(sk_frontend *fe, const char *endpoint);

/* sk_frontend_job.c: the message that hands j's current submission over,
 * and its length. */
const uint8_t *fe_job_msg(const fe_job *j, uint32_t *len);

/* sk_frontend_job.c: end every task without an outcome with outcome and
 * reason, then the job with err and reason. Takes j off the waiting and
 * cancel lists first, and frees it. */
void fe_end_job(sk_frontend *fe, fe_job *j, sk_outcome outcome, int err,
                const char *reason);

/* sk_frontend_job.c: j, a waiting job, was handed to the session. */
void fe_job_sent(sk_frontend *fe, fe_job *j);

/* sk_frontend_job.c: free every job without a callback (destroy). */
void fe_free_jobs(sk_frontend *fe);

#endif /* SK_FRONTEND_INT_H */
