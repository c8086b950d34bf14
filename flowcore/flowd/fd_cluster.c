/*
 * fd_cluster.c - the cluster as the flow node sees it: node monitors
 * registering (HELLO), their heartbeats (load, and the long tasks they
 * run: the core learns starts and ends from them, adopts running tasks
 * after its own restart, and releases the ones it does not know), nodes
 * going down, and racks.
 */
#include "fd_int.h"
#include "fd_share.h"
#include "sk_log.h"
#include "skylark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t fd_name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h != 0 ? h : 1;
}

fd_node *fd_node_by_peer(const fd_core *c, sk_peer peer)
{
    return sk_map_get(&c->c_node_by_peer, (uint64_t)peer + 1);
}

fd_node *fd_node_by_name(const fd_core *c, const char *name)
{
    fd_node *n = sk_map_get(&c->c_node_by_name, fd_name_hash(name));
    while (n != NULL && strcmp(n->n_name, name) != 0)
        n = n->n_name_next;
    return n;
}

fd_rack *fd_rack_by_name(const fd_core *c, const char *name)
{
    for (uint32_t i = 0; i < c->c_racks.sl_len; i++) {
        fd_rack *r = fd_slots_get(&c->c_racks, i);
        if (r != NULL && r->r_nnodes > 0 && strcmp(r->r_name, name) == 0)
            return r;
    }
    return NULL;
}

/* A rack by name, including one emptied but not yet synced away. */
static fd_rack *rack_get(fd_core *c, const char *name)
{
    for (uint32_t i = 0; i < c->c_racks.sl_len; i++) {
        fd_rack *r = fd_slots_get(&c->c_racks, i);
        if (r != NULL && strcmp(r->r_name, name) == 0)
            return r;
    }
    fd_rack *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    snprintf(r->r_name, sizeof r->r_name, "%s", name);
    if (fd_slots_take(&c->c_racks, r, &r->r_slot) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static void rack_dirty(fd_core *c, fd_rack *r)
{
    r->r_dirty = true;
    c->c_racks_dirty = true;
}

uint32_t fd_node_room(const fd_node *n)
{
    return n->n_cap > n->n_foreign ? n->n_cap - n->n_foreign : 0;
}

/* The node's part of the network must be redone at the next sync. */
void fd_node_mark(fd_core *c, fd_node *n)
{
    n->n_load_changed = true;
    c->c_cx_stale = true; /* room, labels or liveness: held tasks retry */
    if (!n->n_dirty) {
        n->n_dirty = true;
        fd_list_push(&c->c_dirty_nodes, &n->n_dirty_link);
    }
}

/* Its room changed: the rack's sum follows. */
static void set_foreign(fd_core *c, fd_node *n, uint32_t foreign)
{
    if (foreign == n->n_foreign)
        return;
    n->n_rack->r_cap -= fd_node_room(n);
    n->n_foreign = foreign;
    n->n_rack->r_cap += fd_node_room(n);
    rack_dirty(c, n->n_rack);
}

void fd_node_touch(fd_core *c, fd_node *n)
{
    fd_node_mark(c, n);
    fd_membership_check(c, n);
}

void fd_node_free(fd_core *c, fd_node *n)
{
    fd_share_forget(n);
    fd_list_remove(&n->n_seen_link);
    fd_list_remove(&n->n_dirty_link);
    fd_list_remove(&n->n_mlink);
    fd_slots_give(&c->c_nodes, n->n_slot);
    for (uint32_t i = 0; i < n->n_nlabels; i++)
        free(n->n_labels[i]);
    free(n->n_labels);
    free(n);
}

static void unlink_name(fd_core *c, fd_node *n)
{
    uint64_t h = fd_name_hash(n->n_name);
    fd_node *first = sk_map_get(&c->c_node_by_name, h);
    if (first == n) {
        if (n->n_name_next != NULL)
            sk_map_put(&c->c_node_by_name, h, n->n_name_next);
        else
            sk_map_del(&c->c_node_by_name, h);
        return;
    }
    for (fd_node *p = first; p != NULL; p = p->n_name_next) {
        if (p->n_name_next == n) {
            p->n_name_next = n->n_name_next;
            return;
        }
    }
}

void fd_node_down(fd_core *c, sk_time now, fd_node *n, const char *why)
{
    if (n->n_dead)
        return;
    sk_info("flowd: node %s down: %s", n->n_name, why);
    /* Its tasks first, while the node still counts them. */
    while (!fd_list_empty(&n->n_tasks)) {
        fd_task *t = FD_CONTAINER(n->n_tasks.l_next, fd_task, t_node_link);
        char reason[SK_MAX_NAME_LEN + 64];
        snprintf(reason, sizeof reason, "node %s down", n->n_name);
        fd_reclaim_mark(c, n, t);
        fd_task_retry(c, now, t, reason);
    }
    n->n_rack->r_cap -= fd_node_room(n);
    n->n_rack->r_nnodes--;
    rack_dirty(c, n->n_rack);
    n->n_dead = true;
    fd_share_forget(n);
    if (!n->n_detached)
        sk_map_del(&c->c_node_by_peer, (uint64_t)n->n_peer + 1);
    unlink_name(c, n);
    fd_list_remove(&n->n_seen_link);
    c->c_nnodes--;
    c->c_st.fs_nodes = c->c_nnodes;
    c->c_st.fs_nodes_down++;
    fd_node_touch(c, n);
    fd_event(c, now);
}

void fd_node_detach(fd_core *c, fd_node *n)
{
    sk_map_del(&c->c_node_by_peer, (uint64_t)n->n_peer + 1);
    n->n_detached = true;
    c->c_st.fs_nodes_detached++;
    sk_info("flowd: node %s: its session ended after flowd's own stall; "
            "kept for its return",
            n->n_name);
}

/* The label "key=VALUE" of h, or NULL. */
static const char *label_value(const sk_hello *h, const char *key)
{
    size_t k = strlen(key);
    for (uint32_t i = 0; i < h->he_nlabels; i++)
        if (strncmp(h->he_labels[i], key, k) == 0 && h->he_labels[i][k] == '=')
            return h->he_labels[i] + k + 1;
    return NULL;
}

void fd_on_hello(fd_core *c, sk_time now, sk_peer from, const sk_hello *h)
{
    if (fd_node_by_peer(c, from) != NULL || fd_sched_by_peer(c, from) != NULL) {
        c->c_st.fs_bad_peer++; /* a second HELLO on one session */
        return;
    }
    const char *rack = h->he_rack != NULL ? h->he_rack : "";
    const char *share = label_value(h, "long_share");
    double ls = c->c_cfg.fdc_long_share;
    char *end = NULL;
    if (share != NULL)
        ls = strtod(share, &end);
    if (h->he_name == NULL || h->he_name[0] == '\0' ||
        strlen(h->he_name) > SK_MAX_NAME_LEN || h->he_slots == 0 ||
        h->he_slots > SK_MAX_SLOTS || h->he_nlabels > SK_MAX_LABELS ||
        (rack[0] != '\0' && !sk_rack_valid(rack)) ||
        (share != NULL &&
         (end == share || *end != '\0' || !(ls >= 0.0) || ls > 1.0))) {
        c->c_st.fs_bad_field++;
        return;
    }
    fd_node *old = fd_node_by_name(c, h->he_name);
    if (old != NULL && old->n_detached &&
        old->n_incarnation == h->he_incarnation) {
        if (sk_map_put(&c->c_node_by_peer, (uint64_t)from + 1, old) != 0) {
            c->c_st.fs_nomem++;
            return;
        }
        old->n_detached = false;
        old->n_peer = from;
        old->n_last_seen = now;
        fd_list_remove(&old->n_seen_link);
        fd_list_push(&c->c_by_seen, &old->n_seen_link);
        c->c_st.fs_nodes_back++;
        sk_info("flowd: node %s back with its %u long tasks", old->n_name,
                old->n_ntasks);
        fd_node_touch(c, old);
        return;
    }
    if (old == NULL && c->c_nnodes >= (uint64_t)c->c_cfg.fdc_max_nodes) {
        c->c_st.fs_limit++;
        sk_warn("flowd: node %s refused: max_nodes (%lld) reached", h->he_name,
                (long long)c->c_cfg.fdc_max_nodes);
        return;
    }
    fd_node *n = calloc(1, sizeof *n);
    if (n != NULL && h->he_nlabels > 0)
        n->n_labels = calloc(h->he_nlabels, sizeof *n->n_labels);
    bool ok = n != NULL && (h->he_nlabels == 0 || n->n_labels != NULL);
    for (uint32_t i = 0; ok && i < h->he_nlabels; i++) {
        n->n_labels[i] = strdup(h->he_labels[i]);
        ok = n->n_labels[i] != NULL;
        n->n_nlabels = i + 1;
    }
    fd_rack *r = ok ? rack_get(c, rack) : NULL;
    if (r == NULL || fd_slots_take(&c->c_nodes, n, &n->n_slot) != 0) {
        if (n != NULL) {
            for (uint32_t i = 0; i < n->n_nlabels; i++)
                free(n->n_labels[i]);
            free(n->n_labels);
            free(n);
        }
        c->c_st.fs_nomem++;
        return;
    }
    if (old != NULL) /* the node monitor restarted: what it ran is gone */
        fd_node_down(c, now, old, "registered again");
    n->n_peer = from;
    n->n_id = h->he_id;
    n->n_incarnation = h->he_incarnation;
    snprintf(n->n_name, sizeof n->n_name, "%s", h->he_name);
    snprintf(n->n_addr, sizeof n->n_addr, "%s",
             h->he_naddrs > 0 && h->he_addrs[0] != NULL ? h->he_addrs[0] : "");
    n->n_slots = h->he_slots;
    n->n_res = h->he_res;
    n->n_cap = sk_long_cap(ls, h->he_slots); /* as its node monitor does */
    n->n_rack = r;
    n->n_last_seen = now;
    n->n_mstate = 0; /* never announced */
    fd_list_init(&n->n_tasks);
    fd_reclaim_hello(c, n);
    if (sk_map_put(&c->c_node_by_peer, (uint64_t)from + 1, n) != 0) {
        fd_slots_give(&c->c_nodes, n->n_slot);
        n->n_rack = NULL;
        for (uint32_t i = 0; i < n->n_nlabels; i++)
            free(n->n_labels[i]);
        free(n->n_labels);
        free(n);
        c->c_st.fs_nomem++;
        return;
    }
    uint64_t hk = fd_name_hash(n->n_name);
    n->n_name_next = sk_map_get(&c->c_node_by_name, hk);
    if (sk_map_put(&c->c_node_by_name, hk, n) != 0)
        c->c_st.fs_nomem++; /* unreachable by name: no preference arcs */
    r->r_nnodes++;
    r->r_cap += fd_node_room(n);
    rack_dirty(c, r);
    fd_list_push(&c->c_by_seen, &n->n_seen_link);
    c->c_nnodes++;
    c->c_st.fs_nodes = c->c_nnodes;
    c->c_st.fs_nodes_up++;
    c->c_nodes_added = true;
    fd_node_touch(c, n);
    fd_event(c, now);
}

/* ---- heartbeats ---------------------------------------------------------*/

static int cmp_task_key(const void *a, const void *b)
{
    const fd_task *x = *(fd_task *const *)a, *y = *(fd_task *const *)b;
    if (x->t_job->j_id != y->t_job->j_id)
        return x->t_job->j_id < y->t_job->j_id ? -1 : 1;
    if (x->t_index != y->t_index)
        return x->t_index < y->t_index ? -1 : 1;
    return x->t_attempt < y->t_attempt ? -1 : x->t_attempt > y->t_attempt;
}

static fd_task *find_key(fd_task **v, size_t n, const sk_running *ru)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const fd_task *t = v[mid];
        int d = t->t_job->j_id != ru->ru_job
                    ? (t->t_job->j_id < ru->ru_job ? -1 : 1)
                : t->t_index != ru->ru_task
                    ? (t->t_index < ru->ru_task ? -1 : 1)
                    : (t->t_attempt < ru->ru_attempt
                           ? -1
                           : t->t_attempt > ru->ru_attempt);
        if (d == 0)
            return v[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int cmp_order(const void *a, const void *b)
{
    const fd_task *x = *(fd_task *const *)a, *y = *(fd_task *const *)b;
    return x->t_order < y->t_order ? -1 : x->t_order > y->t_order;
}

/* During the settle window: a long task the node runs and the core does
 * not know becomes a running task of a job a scheduler forwarded, when
 * one has it waiting. */
static bool adopt(fd_core *c, sk_time now, fd_node *n, const sk_running *ru)
{
    uint32_t pos = 0;
    uint64_t key;
    fd_sched *s;
    while ((s = sk_map_next(&c->c_sched_by_peer, &pos, &key)) != NULL) {
        fd_job *j = fd_job_find(s, ru->ru_job);
        if (j == NULL || ru->ru_task >= j->j_ntasks)
            continue;
        fd_task *t = &j->j_tasks[ru->ru_task];
        if (t->t_state != FD_TASK_WAITING)
            continue;
        /* Not fd_node_room: the task is one of the foreign ones an
         * earlier heartbeat counted (the job may come after it). */
        if (n->n_ntasks >= n->n_cap)
            return false;
        t->t_attempt = ru->ru_attempt;
        t->t_waited += now > t->t_since ? now - t->t_since : 0;
        fd_task_assign(c, t, n);
        t->t_resv = 0; /* the node did not tell it */
        fd_task_set_state(c, t, FD_TASK_RUNNING);
        t->t_run_since = now;
        t->t_seen = true;
        c->c_st.fs_adopted++;
        fd_event(c, now);
        return true;
    }
    return false;
}

void fd_on_heartbeat(fd_core *c, sk_time now, fd_node *n,
                     const sk_heartbeat *hb)
{
    if (n->n_hb_any && hb->hb_seq <= n->n_hb_seq) {
        c->c_st.fs_stale++;
        return;
    }
    if (hb->hb_slots_used > hb->hb_slots_total ||
        hb->hb_slots_reserved > hb->hb_slots_total ||
        hb->hb_nrunning > SK_MAX_SLOTS) {
        c->c_st.fs_bad_field++;
        return;
    }
    c->c_st.fs_heartbeats++;
    n->n_hb_any = true;
    n->n_hb_seq = hb->hb_seq;
    n->n_last_seen = now;
    fd_share_on_heartbeat(c, now, n, hb);
    fd_list_remove(&n->n_seen_link);
    fd_list_push(&c->c_by_seen, &n->n_seen_link);
    bool settling = now < c->c_settle_until;

    /* The core's tasks here, sorted for lookup. */
    fd_task **mine = NULL;
    if (n->n_ntasks > 0 &&
        (mine = malloc(n->n_ntasks * sizeof *mine)) == NULL) {
        c->c_st.fs_nomem++;
        return;
    }
    size_t k = 0;
    for (fd_link *l = n->n_tasks.l_next; l != &n->n_tasks; l = l->l_next) {
        fd_task *t = FD_CONTAINER(l, fd_task, t_node_link);
        t->t_seen = false;
        mine[k++] = t;
    }
    if (k > 0)
        qsort(mine, k, sizeof *mine, cmp_task_key);
    uint32_t matched = 0;
    bool started = false; /* spread counts running tasks apart */
    for (uint32_t i = 0; i < hb->hb_nrunning; i++) {
        const sk_running *ru = &hb->hb_running[i];
        if (!ru->ru_long)
            continue;
        fd_task *t = find_key(mine, k, ru);
        if (t != NULL && !t->t_seen) {
            t->t_seen = true;
            matched++;
            if (t->t_state != FD_TASK_RUNNING) {
                if (t->t_state == FD_TASK_RESERVED)
                    fd_list_remove(&t->t_resv_link); /* ack overtaken */
                fd_task_set_state(c, t, FD_TASK_RUNNING);
                t->t_run_since = now;
                started = true;
            }
            continue;
        }
        if (t != NULL)
            continue; /* listed twice */
        int back = fd_reclaim(c, now, n, ru);
        if (back != 0) {
            matched += back > 0;
            continue;
        }
        if (settling ? adopt(c, now, n, ru) : false) {
            matched++;
            continue;
        }
        if (!settling) {
            /* Not the core's: its job was cancelled, or it was placed
             * by an earlier epoch and no scheduler owns it now. */
            fd_send_release(c, n, 0, ru->ru_job, ru->ru_task);
            c->c_st.fs_unknown_kill++;
        }
    }
    /* Ends: running tasks missing now; and of the acknowledged ones not
     * seen start, those beyond the node's pending count ran already (a
     * node starts pending long tasks in arrival order). */
    uint32_t pending =
        hb->hb_slots_reserved > matched ? hb->hb_slots_reserved - matched : 0;
    size_t nacked = 0;
    for (size_t i = 0; i < k; i++) {
        fd_task *t = mine[i];
        if (t->t_state == FD_TASK_RUNNING && !t->t_seen) {
            c->c_st.fs_tasks_ended++;
            fd_task_end(c, now, t, 0, NULL);
        } else if (t->t_state == FD_TASK_PLACED && !t->t_seen) {
            mine[nacked++] = t;
        }
    }
    if (nacked > pending) {
        qsort(mine, nacked, sizeof *mine, cmp_order);
        for (size_t i = 0; i < nacked - pending; i++) {
            c->c_st.fs_tasks_ended++;
            fd_task_end(c, now, mine[i], 0, NULL);
        }
        nacked = pending;
    }
    free(mine);
    uint32_t foreign = (uint32_t)(pending - nacked);
    uint32_t queue = 0;
    for (unsigned p = 0; p < SK_PRIORITIES; p++)
        queue +=
            hb->hb_queue[p] < SK_MAX_TASKS ? hb->hb_queue[p] : SK_MAX_TASKS;
    bool changed = foreign != n->n_foreign || queue != n->n_queue ||
                   hb->hb_slots_used != n->n_used || started ||
                   hb->hb_used.r_cpu_milli != n->n_used_res.r_cpu_milli ||
                   hb->hb_used.r_mem_mb != n->n_used_res.r_mem_mb;
    n->n_used_res = hb->hb_used;
    set_foreign(c, n, foreign);
    n->n_queue = queue;
    n->n_used = hb->hb_slots_used;
    if (n->n_returning) { /* its tasks are known: work may go there */
        n->n_returning = false;
        changed = true;
    }
    if (changed) {
        fd_node_touch(c, n);
        fd_event(c, now);
    }
}
