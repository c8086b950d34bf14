/*
 * sk_error.c - library version and the text of error codes.
 */
#include "skylark.h"

const char *sk_version(void)
{
    return SK_VERSION_STRING;
}

const char *sk_strerror(int err)
{
    switch (err) {
    case SK_OK:
        return "success";
    case SK_EINVAL:
        return "invalid argument";
    case SK_ENOMEM:
        return "out of memory";
    case SK_ELIMIT:
        return "limit exceeded";
    case SK_EPROTO:
        return "malformed message";
    case SK_EVERSION:
        return "unsupported protocol version";
    case SK_EUNKNOWN:
        return "unknown message type";
    case SK_EAGAIN:
        return "resource temporarily unavailable";
    case SK_ENOTFOUND:
        return "not found";
    case SK_EEXIST:
        return "already exists";
    case SK_EIO:
        return "transport or I/O error";
    case SK_ECONFIG:
        return "invalid configuration";
    case SK_ECLOSED:
        return "closed";
    case SK_ETIMEDOUT:
        return "timed out";
    case SK_ESYS:
        return "system call failed";
    case SK_EREJECTED:
        return "rejected by peer";
    case SK_ECANCELED:
        return "cancelled";
    case SK_ESTATE:
        return "not allowed in the current state";
    case SK_EROLE:
        return "the peer is another kind of daemon";
    }
    return "unknown error";
}
