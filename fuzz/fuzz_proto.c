/*
 * fuzz_proto.c - libFuzzer target for the wire protocol's decoders.
 *
 * Built once per message type with -DFUZZ_MSG_TYPE=SK_MSG_<TYPE> (the
 * type's own decoder) and once with -DFUZZ_MSG_TYPE=0 (the generic
 * decoder that dispatches on the type). Besides the sanitizers' checks it
 * asserts that whatever decodes is a message the encoder accepts, and that
 * encoding is canonical: decode(encode(m)) encodes to the same bytes.
 */
#include "sk_proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_MSG_TYPE
#error "build with -DFUZZ_MSG_TYPE=<type> (0 for the generic decoder)"
#endif

typedef int (*decoder)(const void *, size_t, sk_msg *);

static const decoder decoders[SK_MSG_TYPE_END] = {
    [0] = sk_msg_decode,
    [SK_MSG_HELLO] = sk_hello_decode,
    [SK_MSG_SUBMIT_JOB] = sk_submit_job_decode,
    [SK_MSG_JOB_ACCEPTED] = sk_job_accepted_decode,
    [SK_MSG_JOB_REJECTED] = sk_job_rejected_decode,
    [SK_MSG_ENQUEUE_RESERVATION] = sk_enqueue_decode,
    [SK_MSG_GET_TASK] = sk_get_task_decode,
    [SK_MSG_TASK_REPLY] = sk_task_reply_decode,
    [SK_MSG_CANCEL_RESERVATIONS] = sk_cancel_resv_decode,
    [SK_MSG_LAUNCH_TASK] = sk_launch_decode,
    [SK_MSG_TASK_STARTED] = sk_task_started_decode,
    [SK_MSG_TASK_FINISHED] = sk_task_finished_decode,
    [SK_MSG_CANCEL_JOB] = sk_cancel_job_decode,
    [SK_MSG_JOB_DONE] = sk_job_done_decode,
    [SK_MSG_KILL_TASK] = sk_kill_task_decode,
    [SK_MSG_RESERVE] = sk_reserve_decode,
    [SK_MSG_RESERVE_ACK] = sk_reserve_ack_decode,
    [SK_MSG_RESERVE_REJECT] = sk_reserve_reject_decode,
    [SK_MSG_RELEASE] = sk_release_decode,
    [SK_MSG_HEARTBEAT] = sk_heartbeat_decode,
    [SK_MSG_MEMBERSHIP] = sk_membership_decode,
    [SK_MSG_STATUS_REQUEST] = sk_status_request_decode,
    [SK_MSG_STATUS_REPLY] = sk_status_reply_decode,
    [SK_MSG_TASK_OUTCOME] = sk_task_outcome_decode,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sk_buf first = SK_BUF_INIT, second = SK_BUF_INIT;
    sk_msg m, again;
    if (decoders[FUZZ_MSG_TYPE](data, size, &m) != 0)
        return 0;
    if (FUZZ_MSG_TYPE != 0 && m.m_type != FUZZ_MSG_TYPE)
        abort();
    if (sk_msg_encode(&first, &m) != 0)
        abort();
    if (sk_msg_decode(first.b_data, first.b_len, &again) != 0)
        abort();
    if (sk_msg_encode(&second, &again) != 0 || second.b_len != first.b_len ||
        memcmp(second.b_data, first.b_data, first.b_len) != 0)
        abort();
    sk_msg_free(&again);
    sk_msg_free(&m);
    return 0;
}
