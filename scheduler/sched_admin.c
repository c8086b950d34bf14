/*
 * sched_admin.c - what an operator may ask of a scheduler core besides
 * its status: cancel a job in flight by the scheduler's own id (`skylark
 * cancel`), from a peer that is not the frontend that submitted it.
 *
 * The cancel itself is the frontend's: the request is handed to the
 * core's message switch as a CANCEL_JOB from the job's frontend with the
 * frontend's id for it, so that an operator's cancel does exactly what
 * the frontend's would (reservations withdrawn, running tasks killed,
 * work handed to flowd cancelled there, outcomes CANCELLED and JOB_DONE
 * to the frontend), whatever that comes to be.
 */
#include "sched_int.h"
#include "skylark.h"

/* may_cancel says why the peer `from` may not cancel job j, or NULL if
 * it may. This is the one place that decides who may cancel: a node
 * monitor never; a session holding a user token only its user's jobs
 * (an admin's token any); the cluster key any (docs/SECURITY.md). */
static const char *may_cancel(const sched_core *c, sk_peer from,
                              const sched_job *j)
{
    if (sk_map_get(&c->c_nodes, from) != NULL)
        return "a node monitor may not cancel jobs";
    if (!sched_auth_sees(c, from, j))
        return "a user may cancel its own jobs only";
    return NULL;
}

static void answer(sched_core *c, sk_peer to, sk_msg_type type, uint64_t job,
                   const char *why)
{
    sk_msg *m = sched_send(c, to, type);
    if (m != NULL) {
        m->m_job_ack.ja_job = job;
        m->m_job_ack.ja_reason = why;
    }
}

bool sched_admin_cancel(sched_core *c, sk_peer from, const sk_cancel_job *cj,
                        sk_time now)
{
    if (sk_map_get(&c->c_fes, from) != NULL)
        return false; /* a frontend cancels its own jobs, by its own ids */
    sched_job *j = sk_map_get(&c->c_jobs, cj->cj_job);
    if (j == NULL) {
        c->c_stats.ss_unknown_job++;
        answer(c, from, SK_MSG_JOB_REJECTED, cj->cj_job,
               "no such job in flight at this scheduler (the job column "
               "of `skylark jobs`)");
        return true;
    }
    const char *why = may_cancel(c, from, j);
    if (why != NULL) {
        c->c_stats.ss_bad_peer++;
        answer(c, from, SK_MSG_JOB_REJECTED, cj->cj_job, why);
        return true;
    }
    sk_msg as_fe = {.m_type = SK_MSG_CANCEL_JOB};
    as_fe.m_cancel_job.cj_job = j->j_fe_job;
    as_fe.m_cancel_job.cj_reason = cj->cj_reason;
    /* j may be freed by this: read nothing of it after */
    sched_on_message(c, j->j_fe->fe_peer, &as_fe, now);
    answer(c, from, SK_MSG_JOB_ACCEPTED, cj->cj_job, "");
    return true;
}
