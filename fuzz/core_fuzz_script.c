/*
 * core_fuzz_script.c - the wire round trip and the output checks shared
 * by the core fuzz drivers.
 */
#include "core_fuzz_script.h"

#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>

static sk_buf wire_buf = SK_BUF_INIT;
static sk_buf check_buf = SK_BUF_INIT;

int cf_wire(const sk_msg *m, sk_msg *out)
{
    int rc = sk_msg_encode(&wire_buf, m);
    if (rc != 0)
        return rc;
    return sk_msg_decode(wire_buf.b_data, wire_buf.b_len, out);
}

void cf_check_encodes(const sk_outbox *ob)
{
    for (size_t i = 0; i < ob->ob_len; i++) {
        int rc = sk_msg_encode(&check_buf, &ob->ob_msgs[i].o_msg);
        if (rc != 0) {
            fprintf(stderr, "core emitted %s that does not encode: %s\n",
                    sk_msg_type_name(ob->ob_msgs[i].o_msg.m_type),
                    sk_strerror(rc));
            abort();
        }
    }
}

void cf_fail(const char *what, unsigned long long a, unsigned long long b)
{
    fprintf(stderr, "broken promise: %s (%llu, %llu)\n", what, a, b);
    abort();
}
