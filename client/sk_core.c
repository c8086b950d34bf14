/*
 * sk_core.c - the outbox of the sans-I/O cores.
 */
#include "sk_core.h"
#include "sk_log.h"

#include <stdlib.h>
#include <string.h>

sk_msg *sk_outbox_push(sk_outbox *ob, sk_peer peer, sk_msg_type type)
{
    if (ob->ob_len == ob->ob_cap) {
        size_t cap = ob->ob_cap < 16 ? 16 : ob->ob_cap * 2;
        sk_out *p = realloc(ob->ob_msgs, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        ob->ob_msgs = p;
        ob->ob_cap = cap;
    }
    sk_out *out = &ob->ob_msgs[ob->ob_len++];
    memset(out, 0, sizeof *out);
    out->o_peer = peer;
    out->o_msg.m_type = type;
    return &out->o_msg;
}

void sk_outbox_unpush(sk_outbox *ob, const sk_msg *msg)
{
    SK_ASSERT(ob->ob_len > 0 && msg == &ob->ob_msgs[ob->ob_len - 1].o_msg);
    ob->ob_len--;
}

void sk_outbox_clear(sk_outbox *ob)
{
    ob->ob_len = 0;
}

void sk_outbox_free(sk_outbox *ob)
{
    free(ob->ob_msgs);
    memset(ob, 0, sizeof *ob);
}
