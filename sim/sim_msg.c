/*
 * sim_msg.c - messages in flight: flat and wire copies (see sim_msg.h).
 */
#include "sim_msg.h"

#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1024u

/* The variable parts of one message: pointers to its string fields and
 * to its byte-string fields. */
typedef struct var_fields {
    const char **vf_str[3];
    uint32_t vf_nstr;
    sk_bytes *vf_bytes[1];
    uint32_t vf_nbytes;
} var_fields;

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "skylark-sim: messages: %s\n", what);
    abort();
}

void sim_msgpool_init(sim_msgpool *p, uint32_t owner)
{
    memset(p, 0, sizeof *p);
    p->mp_owner = owner;
    sk_buf_init(&p->mp_buf);
}

void sim_msgpool_fini(sim_msgpool *p)
{
    for (uint32_t c = 0; c < p->mp_nchunks; c++) {
        for (uint32_t i = 0; i < CHUNK; i++) {
            sim_msg *m = &p->mp_chunks[c][i];
            if (m->mg_decoded)
                sk_msg_free(&m->mg_msg);
            free(m->mg_heap);
        }
        free(p->mp_chunks[c]);
    }
    free(p->mp_chunks);
    free(p->mp_free);
    sk_buf_free(&p->mp_buf);
    memset(p, 0, sizeof *p);
}

/* reserve makes room for n more pointers at *v (holding len of cap). */
static void reserve(sim_msg ***v, uint32_t len, uint32_t *cap, uint32_t n)
{
    if (len + n <= *cap)
        return;
    uint32_t c = *cap ? *cap : CHUNK;
    while (c < len + n)
        c *= 2;
    sim_msg **nv = realloc(*v, c * sizeof *nv);
    if (nv == NULL)
        die("out of memory");
    *v = nv;
    *cap = c;
}

static sim_msg *get_record(sim_msgpool *p)
{
    if (p->mp_nfree == 0) {
        sim_msg **chunks =
            realloc(p->mp_chunks, (p->mp_nchunks + 1) * sizeof *chunks);
        if (chunks == NULL)
            die("out of memory");
        p->mp_chunks = chunks;
        sim_msg *c = calloc(CHUNK, sizeof *c);
        if (c == NULL)
            die("out of memory");
        chunks[p->mp_nchunks++] = c;
        reserve(&p->mp_free, 0, &p->mp_free_cap, CHUNK);
        for (uint32_t i = 0; i < CHUNK; i++) {
            c[i].mg_owner = p->mp_owner;
            p->mp_free[i] = &c[CHUNK - 1 - i];
        }
        p->mp_nfree = CHUNK;
    }
    sim_msg *m = p->mp_free[--p->mp_nfree];
    /* The next copy's record: records come back from other threads, and
     * the copy writes most of one. */
    if (p->mp_nfree > 0) {
        const char *next = (const char *)p->mp_free[p->mp_nfree - 1];
        for (size_t off = 0; off < sizeof *m; off += 64)
            __builtin_prefetch(next + off, 1);
    }
    return m;
}

/* flat_fields finds the variable parts of m; false for a type with lists,
 * which only the codec copies. */
static bool flat_fields(sk_msg *m, var_fields *vf)
{
    vf->vf_nstr = vf->vf_nbytes = 0;
#define STR(f)   (vf->vf_str[vf->vf_nstr++] = &(f))
#define BYTES(f) (vf->vf_bytes[vf->vf_nbytes++] = &(f))
    switch (m->m_type) {
    case SK_MSG_JOB_ACCEPTED:
    case SK_MSG_JOB_REJECTED:
        STR(m->m_job_ack.ja_reason);
        return true;
    case SK_MSG_ENQUEUE_RESERVATION:
        STR(m->m_enqueue.er_user);
        return true;
    case SK_MSG_GET_TASK:
        STR(m->m_get_task.gt_node);
        return true;
    case SK_MSG_TASK_REPLY:
        STR(m->m_task_reply.tr_framework);
        BYTES(m->m_task_reply.tr_spec);
        return true;
    case SK_MSG_LAUNCH_TASK:
        STR(m->m_launch.lt_user);
        STR(m->m_launch.lt_framework);
        BYTES(m->m_launch.lt_spec);
        return true;
    case SK_MSG_TASK_STARTED:
        STR(m->m_task_started.st_node);
        return true;
    case SK_MSG_TASK_FINISHED:
        STR(m->m_task_finished.tf_node);
        BYTES(m->m_task_finished.tf_output);
        return true;
    case SK_MSG_CANCEL_JOB:
        STR(m->m_cancel_job.cj_reason);
        return true;
    case SK_MSG_RESERVE:
        STR(m->m_reserve.rv_user);
        STR(m->m_reserve.rv_framework);
        BYTES(m->m_reserve.rv_spec);
        return true;
    case SK_MSG_RESERVE_ACK:
    case SK_MSG_RESERVE_REJECT:
        STR(m->m_reserve_ack.ra_reason);
        return true;
    case SK_MSG_CANCEL_RESERVATIONS:
    case SK_MSG_JOB_DONE:
    case SK_MSG_KILL_TASK:
    case SK_MSG_RELEASE:
    case SK_MSG_STATUS_REQUEST:
        return true;
    default:
        return false;
    }
#undef STR
#undef BYTES
}

static void flat_copy(sim_msg *m, var_fields *vf)
{
    size_t need = 0;
    for (uint32_t i = 0; i < vf->vf_nstr; i++)
        need += (*vf->vf_str[i] != NULL ? strlen(*vf->vf_str[i]) : 0) + 1;
    for (uint32_t i = 0; i < vf->vf_nbytes; i++)
        need += vf->vf_bytes[i]->b_len;
    uint8_t *dst = m->mg_inline;
    if (need > SIM_MSG_INLINE) {
        if (need > m->mg_cap) {
            free(m->mg_heap);
            m->mg_heap = malloc(need);
            if (m->mg_heap == NULL)
                die("out of memory");
            m->mg_cap = (uint32_t)need;
        }
        dst = m->mg_heap;
    }
    for (uint32_t i = 0; i < vf->vf_nstr; i++) {
        const char *s = *vf->vf_str[i] != NULL ? *vf->vf_str[i] : "";
        size_t n = strlen(s) + 1;
        memcpy(dst, s, n);
        *vf->vf_str[i] = (const char *)dst;
        dst += n;
    }
    for (uint32_t i = 0; i < vf->vf_nbytes; i++) {
        sk_bytes *b = vf->vf_bytes[i];
        if (b->b_len == 0) {
            b->b_data = NULL;
            continue;
        }
        memcpy(dst, b->b_data, b->b_len);
        b->b_data = dst;
        dst += b->b_len;
    }
}

sim_msg *sim_msg_copy(sim_msgpool *p, const sk_msg *src, bool wire, int *err)
{
    sim_msg *m = get_record(p);
    m->mg_msg = *src;
    m->mg_msg.m_arena = NULL;
    m->mg_decoded = false;
    var_fields vf = {{0}, 0, {0}, 0};
    if (!wire && flat_fields(&m->mg_msg, &vf)) {
        flat_copy(m, &vf);
        return m;
    }
    int rc = sk_msg_encode(&p->mp_buf, src);
    if (rc == 0)
        rc = sk_msg_decode(p->mp_buf.b_data, p->mp_buf.b_len, &m->mg_msg);
    if (rc != 0) {
        if (rc == SK_ENOMEM)
            die("out of memory");
        memset(&m->mg_msg, 0, sizeof m->mg_msg);
        sim_msg_put(p, m);
        *err = rc;
        return NULL;
    }
    m->mg_decoded = true;
    return m;
}

static void release(sim_msg *m)
{
    if (m->mg_decoded) {
        sk_msg_free(&m->mg_msg);
        m->mg_decoded = false;
    }
}

void sim_msg_put(sim_msgpool *p, sim_msg *m)
{
    release(m);
    reserve(&p->mp_free, p->mp_nfree, &p->mp_free_cap, 1);
    p->mp_free[p->mp_nfree++] = m;
}

void sim_msg_give(sim_msgbatch *b, sim_msg *m)
{
    release(m);
    reserve(&b->mb_v, b->mb_len, &b->mb_cap, 1);
    b->mb_v[b->mb_len++] = m;
}

void sim_msgpool_take(sim_msgpool *p, sim_msgbatch *b)
{
    if (b->mb_len == 0)
        return;
    reserve(&p->mp_free, p->mp_nfree, &p->mp_free_cap, b->mb_len);
    memcpy(&p->mp_free[p->mp_nfree], b->mb_v, b->mb_len * sizeof *b->mb_v);
    p->mp_nfree += b->mb_len;
    b->mb_len = 0;
}

void sim_msgbatch_free(sim_msgbatch *b)
{
    free(b->mb_v);
    memset(b, 0, sizeof *b);
}
