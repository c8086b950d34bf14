/*
 * sk_admin.c - an operator's requests to a daemon (skylark.h): cancel a
 * job in flight at a scheduler by the scheduler's id, over a "tool"
 * session (sk_toolcall.h).
 */
#include "sk_proto.h"
#include "sk_toolcall.h"
#include "skylark.h"

#include <stdio.h>

static bool is_answer(const sk_msg *msg, const void *arg)
{
    return (msg->m_type == SK_MSG_JOB_ACCEPTED ||
            msg->m_type == SK_MSG_JOB_REJECTED) &&
           msg->m_job_ack.ja_job == *(const uint64_t *)arg;
}

int sk_admin_cancel(const char *endpoint, const char *key_file, uint64_t job,
                    double timeout, char *why, size_t whylen)
{
    sk_msg ask = {.m_type = SK_MSG_CANCEL_JOB};
    ask.m_cancel_job.cj_job = job;
    ask.m_cancel_job.cj_reason = "cancelled by an operator";
    sk_msg reply;
    int rc = sk_tool_call(endpoint, key_file, NULL, timeout, "cancel", &ask,
                          is_answer, &job, &reply);
    if (rc == 0 && reply.m_type == SK_MSG_JOB_REJECTED) {
        rc = SK_EREJECTED;
        if (why != NULL && whylen > 0)
            snprintf(why, whylen, "%s", reply.m_job_ack.ja_reason);
    } else if (rc != 0 && why != NULL && whylen > 0) {
        snprintf(why, whylen, "%s", sk_strerror(rc));
    }
    sk_msg_free(&reply);
    return rc;
}
