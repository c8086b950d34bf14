/*
 * fd_directory.c - the flow node as the cluster directory: MEMBERSHIP to
 * schedulers, whole on their HELLO, then the changes of node states (up,
 * saturated by long tasks, down) gathered during an input and sent at
 * its end, in one message per scheduler.
 */
#include "fd_int.h"
#include "skylark.h"

uint8_t fd_node_state(const fd_node *n)
{
    if (n->n_dead)
        return SK_NODE_DOWN;
    if (n->n_cap > 0 && n->n_ntasks + n->n_foreign >= n->n_cap)
        return SK_NODE_SATURATED;
    return SK_NODE_UP;
}

void fd_membership_check(fd_core *c, fd_node *n)
{
    uint8_t st = fd_node_state(n);
    if (st != n->n_mstate && !n->n_mdirty) {
        n->n_mdirty = true;
        fd_list_push(&c->c_mchanges, &n->n_mlink);
    }
}

static void fill_member(sk_member *m, const fd_node *n, uint8_t state)
{
    m->me_id = n->n_id;
    m->me_name = n->n_name;
    m->me_addr = n->n_addr;
    m->me_state = state;
    m->me_slots = n->n_slots;
    m->me_res = n->n_res;
    m->me_labels = (const char **)n->n_labels;
    m->me_nlabels = n->n_nlabels;
}

static void send_membership(fd_core *c, sk_peer to, bool full, sk_member *v,
                            uint32_t count)
{
    sk_msg *m = fd_push(c, to, SK_MSG_MEMBERSHIP);
    if (m == NULL)
        return;
    m->m_membership.mb_epoch = (c->c_epoch << 32) | c->c_mb_seq;
    m->m_membership.mb_full = full;
    m->m_membership.mb_nodes = v;
    m->m_membership.mb_nnodes = count;
}

void fd_membership_full(fd_core *c, sk_peer to)
{
    sk_member *v = fd_scratch_alloc(c, (c->c_nnodes + 1) * sizeof *v);
    if (v == NULL) {
        c->c_st.fs_nomem++;
        return;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->c_nodes.sl_len && k < SK_MAX_NODES; i++) {
        fd_node *n = fd_slots_get(&c->c_nodes, i);
        if (n != NULL && !n->n_dead)
            fill_member(&v[k++], n, fd_node_state(n));
    }
    send_membership(c, to, true, v, k);
}

void fd_membership_flush(fd_core *c)
{
    if (fd_list_empty(&c->c_mchanges))
        return;
    uint32_t count = 0;
    for (fd_link *l = c->c_mchanges.l_next; l != &c->c_mchanges; l = l->l_next)
        count++;
    sk_member *v = fd_scratch_alloc(c, count * sizeof *v);
    if (v == NULL) {
        c->c_st.fs_nomem++;
        return; /* stays queued for the next call */
    }
    uint32_t k = 0;
    while (!fd_list_empty(&c->c_mchanges)) {
        fd_node *n = FD_CONTAINER(c->c_mchanges.l_next, fd_node, n_mlink);
        fd_list_remove(&n->n_mlink);
        n->n_mdirty = false;
        uint8_t st = fd_node_state(n);
        if (st == n->n_mstate)
            continue;
        /* A node that went before anyone heard of it: nothing to say. */
        bool news = !(st == SK_NODE_DOWN && n->n_mstate == 0);
        n->n_mstate = st;
        if (news && k < SK_MAX_NODES)
            fill_member(&v[k++], n, st);
    }
    if (k == 0)
        return;
    c->c_mb_seq++;
    uint32_t pos = 0;
    uint64_t key;
    fd_sched *s;
    while ((s = sk_map_next(&c->c_sched_by_peer, &pos, &key)) != NULL)
        send_membership(c, s->s_peer, false, v, k);
}
