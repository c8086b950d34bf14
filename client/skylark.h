/*
 * skylark.h - the public C API of libskylark.
 *
 * This header is the whole contract between Skylark and the programs that
 * embed it (framework frontends, executors, tools). Everything it declares
 * is stable within a major version. Functions return 0 on success or a
 * negative SK_E* code; results come back through out-parameters.
 *
 * Threading: unless a function says otherwise, it may be called from any
 * thread, and functions on distinct objects never interfere.
 */
#ifndef SKYLARK_H
#define SKYLARK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this header. sk_version() tells the version of the library
 * actually linked, which may differ for a shared library. */
#define SK_VERSION_MAJOR  0
#define SK_VERSION_MINOR  1
#define SK_VERSION_PATCH  0
#define SK_VERSION_STRING "0.1.0"

/* Error codes. Every failing function returns one of these (negative). */
enum sk_error {
    SK_OK = 0,
    SK_EINVAL = -1,     /* an argument is invalid */
    SK_ENOMEM = -2,     /* out of memory */
    SK_ELIMIT = -3,     /* an explicit limit was exceeded */
    SK_EPROTO = -4,     /* malformed message */
    SK_EVERSION = -5,   /* unsupported protocol version */
    SK_EUNKNOWN = -6,   /* unknown message type */
    SK_EAGAIN = -7,     /* would block, or a bounded queue is full */
    SK_ENOTFOUND = -8,  /* no such peer, job, task or key */
    SK_EEXIST = -9,     /* already exists */
    SK_EIO = -10,       /* transport or I/O failure */
    SK_ECONFIG = -11,   /* invalid configuration */
    SK_ECLOSED = -12,   /* the object was closed or shut down */
    SK_ETIMEDOUT = -13, /* a deadline passed */
    SK_ESYS = -14,      /* a system call failed (see errno) */
    SK_EREJECTED = -15, /* the peer refused the request */
    SK_ECANCELED = -16, /* the operation was cancelled */
    SK_ESTATE = -17,    /* not allowed in the current state */
};

/* sk_version returns the version string of the linked library, such as
 * "0.1.0". The string is static. */
const char *sk_version(void);

/* sk_strerror returns a static, human-readable description of an SK_E* code
 * (or of SK_OK). Unknown codes give "unknown error". Never returns NULL. */
const char *sk_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SKYLARK_H */
