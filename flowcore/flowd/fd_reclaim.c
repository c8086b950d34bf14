/*
 * fd_reclaim.c - a node lost past node_timeout_ms that comes back with
 * its long tasks still running (a partition of its host or of flowd's,
 * healed; a node monitor stopped for longer than the timeout).
 *
 * When the core writes a node off (fd_node_down) its long tasks go back
 * to waiting with their next attempt, and each remembers the node (name
 * and incarnation) and the attempt that ran there. The same node monitor
 * (same name and incarnation) registering again is a new record, which
 * gets no work until its first heartbeat says what it runs. A long task
 * that heartbeat lists and the core does not know is looked up among the
 * tasks that remember this node and that attempt:
 * - still waiting (not placed again): taken back, running there with
 *   its old attempt, as if the node had never been lost; the scheduler
 *   never heard of the new attempt, so the old one's reports count;
 * - placed again elsewhere meanwhile (reserved or running with a later
 *   attempt): the returning attempt is released with kill, and the
 *   scheduler, which has seen the later attempt start or holds the task
 *   for flowd, drops its KILLED report (sched_flow.c): one outcome.
 * Anything else (a task that ended, a job cancelled) is killed as any
 * long task the core does not know.
 *
 * Costs: a node lost O(its tasks); a heartbeat's unknown task O(schedulers).
 */
#include "fd_int.h"
#include "sk_log.h"

/* The key of a node monitor process in c_away: its name and incarnation. */
static uint64_t away_key(uint64_t name, uint64_t incarnation)
{
    uint64_t k = (name ^ incarnation) * 0x9e3779b97f4a7c15ull;
    return k != 0 ? k : 1;
}

void fd_reclaim_mark(fd_core *c, fd_node *n, fd_task *t)
{
    uint64_t name = fd_name_hash(n->n_name);
    t->t_away_attempt = t->t_attempt;
    t->t_away_name = name;
    t->t_away_inc = n->n_incarnation;
    /* Bounded: a cluster that loses more nodes than it may hold forgets
     * which come back (their tasks are then killed, as before). */
    if (c->c_away.mp_len >= (uint64_t)c->c_cfg.fdc_max_nodes)
        sk_map_free(&c->c_away);
    if (sk_map_put(&c->c_away, away_key(name, n->n_incarnation), c) != 0)
        c->c_st.fs_nomem++;
}

void fd_reclaim_hello(fd_core *c, fd_node *n)
{
    uint64_t k = away_key(fd_name_hash(n->n_name), n->n_incarnation);
    if (sk_map_del(&c->c_away, k) != NULL)
        n->n_returning = true;
}

/* The task of a job with this id, of any scheduler (in its grace too),
 * that remembers running attempt ru on node n before it was lost. */
static fd_task *find_away(fd_core *c, const fd_node *n, const sk_running *ru)
{
    uint64_t name = fd_name_hash(n->n_name);
    uint32_t pos = 0;
    uint64_t key;
    fd_sched *s;
    fd_link *l = c->c_sched_gone.l_next;
    for (;;) {
        if ((s = sk_map_next(&c->c_sched_by_peer, &pos, &key)) == NULL) {
            if (l == &c->c_sched_gone)
                return NULL;
            s = FD_CONTAINER(l, fd_sched, s_gone_link);
            l = l->l_next;
        }
        fd_job *j = fd_job_find(s, ru->ru_job);
        if (j == NULL || ru->ru_task >= j->j_ntasks)
            continue;
        fd_task *t = &j->j_tasks[ru->ru_task];
        if (t->t_state != FD_TASK_DEAD && t->t_away_name == name &&
            t->t_away_inc == n->n_incarnation &&
            t->t_away_attempt == ru->ru_attempt)
            return t;
    }
}

int fd_reclaim(fd_core *c, sk_time now, fd_node *n, const sk_running *ru)
{
    fd_task *t = find_away(c, n, ru);
    if (t == NULL)
        return 0;
    t->t_away_name = 0;
    if (t->t_state == FD_TASK_WAITING && n->n_ntasks < n->n_cap) {
        t->t_attempt = ru->ru_attempt;
        t->t_waited += now > t->t_since ? now - t->t_since : 0;
        fd_task_assign(c, t, n);
        t->t_resv = 0; /* the old reservation's id is not kept */
        fd_task_set_state(c, t, FD_TASK_RUNNING);
        t->t_run_since = now;
        t->t_seen = true;
        c->c_st.fs_reclaimed++;
        fd_event(c, now);
        return 1;
    }
    /* Placed again (or no room): the later attempt stands. */
    fd_send_release(c, n, 0, ru->ru_job, ru->ru_task);
    c->c_st.fs_reclaim_killed++;
    return -1;
}
