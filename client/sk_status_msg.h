/*
 * sk_status_msg.h - an sk_status (skylark.h) made from a STATUS_REPLY
 * received elsewhere: for a caller inside libskylark_impl that keeps its
 * own sessions (the dashboard's kept sessions, cli/dash_kept.c).
 */
#ifndef SK_STATUS_MSG_H
#define SK_STATUS_MSG_H

#include "sk_proto.h"
#include "skylark.h"

/* sk_status_of_msg copies reply, a STATUS_REPLY, into a new sk_status
 * (freed with sk_status_free), using buf (reused across calls) to encode
 * it. Returns 0, SK_EINVAL (not a STATUS_REPLY) or what the encoder and
 * decoder return (SK_ENOMEM, ...). */
int sk_status_of_msg(const sk_msg *reply, sk_buf *buf, sk_status **out);

#endif /* SK_STATUS_MSG_H */
