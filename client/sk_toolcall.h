/*
 * sk_toolcall.h - one question to a daemon and its answer, over a
 * short-lived session of transport role "tool" on a private loop: what
 * sk_status_fetch and an operator's cancel (skylark.h) share.
 */
#ifndef SK_TOOLCALL_H
#define SK_TOOLCALL_H

#include "sk_proto.h"

#include <stdbool.h>

/* Tells whether msg is the answer awaited (arg: the caller's). */
typedef bool (*sk_tool_match)(const sk_msg *msg, const void *arg);

/* sk_tool_call connects to endpoint as a tool named PREFIX-HOST-PID-N
 * (name_prefix, see sk_make_name), over a session authenticated with the
 * user token in token_file if not NULL, else the cluster key in key_file
 * (both NULL: unauthenticated; sk_cred_config), sends ask once the
 * session is up (no HELLO: a tool does not register), and waits at most
 * timeout seconds for a message for which match returns true. Returns 0
 * with a copy of that message in *reply (the caller releases it with
 * sk_msg_free); SK_EINVAL (bad endpoint or timeout); SK_ECONFIG (the key or
 * token file cannot be used); SK_EREJECTED (the daemon holds another key, or
 * none); SK_EIO; SK_ETIMEDOUT; SK_ENOMEM. Blocks the calling thread;
 * any thread. */
int sk_tool_call(const char *endpoint, const char *key_file,
                 const char *token_file, double timeout,
                 const char *name_prefix, const sk_msg *ask,
                 sk_tool_match match, const void *arg, sk_msg *reply);

#endif /* SK_TOOLCALL_H */
