/*
 * sk_status.c - asking a daemon for its state or a query (skylark.h,
 * sk_status_*): one STATUS_REQUEST over a short-lived "tool" session
 * (sk_toolcall.h), and read access to the STATUS_REPLY.
 */
#include "sk_apiutil.h"
#include "sk_proto.h"
#include "sk_status_msg.h"
#include "sk_toolcall.h"
#include "skylark.h"

#include <stdlib.h>
#include <string.h>

struct sk_status {
    sk_msg st_msg; /* a STATUS_REPLY we own */
};

static bool is_reply(const sk_msg *msg, const void *arg)
{
    return msg->m_type == SK_MSG_STATUS_REPLY &&
           msg->m_status_reply.sr_request == *(const uint64_t *)arg;
}

static int ask_status(const char *endpoint, const char *key_file,
                      const char *token_file, const char *query, double timeout,
                      int table, sk_status **out);

int sk_status_fetch(const char *endpoint, double timeout, int table,
                    sk_status **out)
{
    return sk_status_fetch_keyed(endpoint, NULL, timeout, table, out);
}

int sk_status_fetch_keyed(const char *endpoint, const char *key_file,
                          double timeout, int table, sk_status **out)
{
    return sk_status_query(endpoint, key_file, "", timeout, table, out);
}

int sk_status_fetch_cred(const char *endpoint, const char *key_file,
                         const char *token_file, double timeout, int table,
                         sk_status **out)
{
    return ask_status(endpoint, key_file, token_file, "", timeout, table, out);
}

int sk_status_query(const char *endpoint, const char *key_file,
                    const char *query, double timeout, int table,
                    sk_status **out)
{
    return ask_status(endpoint, key_file, NULL, query, timeout, table, out);
}

/* ask_status sends STATUS_REQUEST with query over a session with the given
 * credential and keeps the answer (sk_status_query's contract). */
static int ask_status(const char *endpoint, const char *key_file,
                      const char *token_file, const char *query, double timeout,
                      int table, sk_status **out)
{
    if (out == NULL || query == NULL || strlen(query) > SK_MAX_STATUS_LEN)
        return SK_EINVAL;
    sk_status *s = calloc(1, sizeof *s);
    if (s == NULL)
        return SK_ENOMEM;
    uint64_t request = sk_new_incarnation();
    sk_msg ask = {.m_type = SK_MSG_STATUS_REQUEST};
    ask.m_status_request.sq_request = request;
    ask.m_status_request.sq_table = table != 0;
    ask.m_status_request.sq_query = query;
    int rc = sk_tool_call(endpoint, key_file, token_file, timeout, "status",
                          &ask, is_reply, &request, &s->st_msg);
    if (rc != 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int sk_status_of_msg(const sk_msg *reply, sk_buf *buf, sk_status **out)
{
    if (reply->m_type != SK_MSG_STATUS_REPLY)
        return SK_EINVAL;
    sk_status *s = calloc(1, sizeof *s);
    if (s == NULL)
        return SK_ENOMEM;
    int rc = sk_msg_encode(buf, reply);
    if (rc == 0)
        rc = sk_msg_decode(buf->b_data, buf->b_len, &s->st_msg);
    if (rc != 0) {
        sk_msg_free(&s->st_msg);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void sk_status_free(sk_status *s)
{
    if (s == NULL)
        return;
    sk_msg_free(&s->st_msg);
    free(s);
}

const char *sk_status_role(const sk_status *s)
{
    switch (s->st_msg.m_status_reply.sr_role) {
    case SK_ROLE_FRONTEND:
        return "frontend";
    case SK_ROLE_SCHEDULER:
        return "scheduler";
    case SK_ROLE_NODEMON:
        return "nodemon";
    case SK_ROLE_FLOWD:
        return "flowd";
    case SK_ROLE_EXECUTOR:
        return "executor";
    }
    return "unknown";
}

const char *sk_status_name(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_name;
}

uint64_t sk_status_time_us(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_time_us;
}

unsigned sk_status_nkv(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_nkv;
}

const char *sk_status_key(const sk_status *s, unsigned i)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return i < r->sr_nkv ? r->sr_kv[i].kv_key : NULL;
}

const char *sk_status_value(const sk_status *s, unsigned i)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return i < r->sr_nkv ? r->sr_kv[i].kv_value : NULL;
}

const char *sk_status_get(const sk_status *s, const char *key)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    for (uint32_t i = 0; i < r->sr_nkv; i++)
        if (strcmp(r->sr_kv[i].kv_key, key) == 0)
            return r->sr_kv[i].kv_value;
    return NULL;
}

unsigned sk_status_ncolumns(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_ncolumns;
}

const char *sk_status_column(const sk_status *s, unsigned col)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    return col < r->sr_ncolumns ? r->sr_columns[col] : NULL;
}

unsigned sk_status_nrows(const sk_status *s)
{
    return s->st_msg.m_status_reply.sr_nrows;
}

const char *sk_status_cell(const sk_status *s, unsigned row, unsigned col)
{
    const sk_status_reply *r = &s->st_msg.m_status_reply;
    if (row >= r->sr_nrows || col >= r->sr_rows[row].sw_ncells)
        return NULL;
    return r->sr_rows[row].sw_cells[col];
}
