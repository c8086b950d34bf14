/*
 * fd_explain.c - `skylark flow explain`: why a task is where it is, or
 * why it waits, read off the core's network and records: the task's arcs
 * with their capacities, costs and flow, the path its flow took, and for
 * a waiting task the cheapest node it could reach and what keeps it off
 * that node (full, its rack or class full, dearer than waiting, or not
 * solved yet).
 *
 * The query is "explain [SCHED/]JOB TASK": JOB is the id the scheduler
 * gave the work it handed over (flowd's `jobs` table), SCHED the
 * scheduler's id, needed only when two schedulers use the same JOB.
 * Costs: O(arcs of the task) + O(racks + nodes) for the alternatives +
 * O(network) when the flow must be traced through an aggregator.
 */
#include "fd_constraint.h"
#include "fd_int.h"
#include "skylark.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Finds the job of args' [SCHED/]JOB; NULL with a reason in why. */
static fd_job *find_job(const fd_core *c, const char *spec, char *why,
                        size_t len)
{
    uint64_t sid = 0, jid;
    bool has_sched = false;
    char end;
    if (sscanf(spec, "%" SCNu64 "/%" SCNu64 "%c", &sid, &jid, &end) == 2)
        has_sched = true;
    else if (sscanf(spec, "%" SCNu64 "%c", &jid, &end) != 1) {
        snprintf(why, len, "'%.64s' is not a job: give [SCHED/]JOB", spec);
        return NULL;
    }
    fd_job *found = NULL;
    unsigned matches = 0;
    uint32_t pos = 0;
    uint64_t key;
    fd_sched *s;
    while ((s = sk_map_next(&c->c_sched_by_peer, &pos, &key)) != NULL) {
        if (has_sched && s->s_id != sid)
            continue;
        fd_job *j = fd_job_find(s, jid);
        if (j != NULL && !j->j_dead) {
            found = j;
            matches++;
        }
    }
    if (matches > 1) {
        snprintf(why, len,
                 "job %" PRIu64 " is held for %u schedulers: give SCHED/JOB "
                 "(the sched column of `skylark jobs`)",
                 jid, matches);
        return NULL;
    }
    if (found == NULL)
        snprintf(why, len,
                 "flowd holds no job %s (it knows the hand-over ids of "
                 "`skylark jobs`, the job column of its part)",
                 spec);
    return found;
}

static double secs(sk_time from, sk_time to)
{
    return to > from ? (double)(to - from) / 1e6 : 0.0;
}

/* What graph node v is, for a person. */
static const char *gname(const fd_core *c, fc_node v, char *buf, size_t len)
{
    if (fd_core_gnode_name(c, v, buf, len) != 0)
        snprintf(buf, len, "graph node %d", (int)v);
    return buf;
}

/* Why an arc out of task t leads where it does. */
static const char *arc_role(const fd_core *c, const fd_task *t, fc_node dst)
{
    fd_gref r = fd_net_ref(c->c_net, dst);
    switch (r.g_kind) {
    case FD_G_JOB:
        return t->t_state == FD_TASK_WAITING
                   ? "stay unscheduled: the cost of waiting"
               : c->c_cfg.fdc_preemption
                   ? "be stopped: the work it would lose"
                   : "escape arc, never acted on (preemption off)";
    case FD_G_NODE:
        return t->t_state == FD_TASK_WAITING ? "its preferred node"
                                             : "stay where it is";
    case FD_G_RACK:
        return "its preferred rack";
    case FD_G_CLASS:
        return t->t_state == FD_TASK_WAITING
                   ? "the nodes its job's labels and request allow"
                   : "move elsewhere (preemption)";
    default:
        return dst == c->c_net->nt_cluster
                   ? (t->t_state == FD_TASK_WAITING
                          ? "any node, through the cluster"
                          : "move elsewhere (preemption)")
                   : "?";
    }
}

/* The cheapest arc from node n's graph node to the sink: with room left
 * (residual) when room, else any; FC_NONE if none. */
static fc_arc sink_arc(const fd_core *c, fc_node v, bool room)
{
    const fc_graph *g = c->c_net->nt_g;
    fc_arc best = FC_NONE;
    for (int32_t i = 0; i < fc_node_degree(g, v); i++) {
        bool out;
        fc_arc a = fc_node_arc(g, v, i, &out);
        if (!out || fc_arc_dst(g, a) != c->c_net->nt_sink ||
            fc_arc_capacity(g, a) == 0)
            continue;
        if (room && fc_arc_flow(g, a) >= fc_arc_capacity(g, a))
            continue;
        if (best == FC_NONE || fc_arc_cost(g, a) < fc_arc_cost(g, best))
            best = a;
    }
    return best;
}

/* One way from the task to a machine node. */
typedef struct way {
    fd_node *w_node;
    int64_t w_cost;   /* arcs to the node's graph node */
    bool w_full;      /* an arc on the way carries all it may */
    fc_arc w_full_at; /* that arc */
} way;

/* Considers reaching node n through `first` (the task's arc) and then
 * the arc `via` (FC_NONE: first reaches n directly); keeps the cheapest
 * way per node in ways[n_slot] (w_node NULL: none yet). */
static void consider(const fd_core *c, way *ways, fd_node *n, fc_arc first,
                     fc_arc via, fc_arc via2)
{
    const fc_graph *g = c->c_net->nt_g;
    fc_arc hops[3] = {first, via, via2};
    way w = {n, 0, false, FC_NONE};
    for (int i = 0; i < 3; i++) {
        if (hops[i] == FC_NONE)
            continue;
        if (fc_arc_capacity(g, hops[i]) == 0)
            return; /* no way at all (e.g. the class does not fit) */
        w.w_cost += fc_arc_cost(g, hops[i]);
        if (i > 0 && !w.w_full &&
            fc_arc_flow(g, hops[i]) >= fc_arc_capacity(g, hops[i])) {
            w.w_full = true;
            w.w_full_at = hops[i];
        }
    }
    way *k = &ways[n->n_slot];
    if (k->w_node == NULL || w.w_cost < k->w_cost ||
        (w.w_cost == k->w_cost && k->w_full && !w.w_full))
        *k = w;
}

/* Every node the task's arcs reach (through the cluster, a rack, a class
 * or directly), the cheapest way to each. */
static void reach(const fd_core *c, const fd_task *t, fc_node tv, way *ways)
{
    const fc_graph *g = c->c_net->nt_g;
    for (int32_t i = 0; i < fc_node_degree(g, tv); i++) {
        bool out;
        fc_arc a = fc_node_arc(g, tv, i, &out);
        if (!out)
            continue;
        fc_node d = fc_arc_dst(g, a);
        fd_gref r = fd_net_ref(c->c_net, d);
        if (r.g_kind == FD_G_JOB)
            continue;
        if (r.g_kind == FD_G_NODE) {
            fd_node *n = fd_slots_get(&c->c_nodes, r.g_slot);
            if (n != NULL && !n->n_dead && n != t->t_node)
                consider(c, ways, n, a, FC_NONE, FC_NONE);
            continue;
        }
        /* an aggregator: one or two levels down to the nodes */
        for (int32_t k = 0; k < fc_node_degree(g, d); k++) {
            fc_arc b = fc_node_arc(g, d, k, &out);
            if (!out)
                continue;
            fc_node e = fc_arc_dst(g, b);
            fd_gref er = fd_net_ref(c->c_net, e);
            if (er.g_kind == FD_G_NODE) {
                fd_node *n = fd_slots_get(&c->c_nodes, er.g_slot);
                if (n != NULL && !n->n_dead && n != t->t_node)
                    consider(c, ways, n, a, b, FC_NONE);
            } else if (er.g_kind == FD_G_RACK) {
                for (int32_t m = 0; m < fc_node_degree(g, e); m++) {
                    fc_arc x = fc_node_arc(g, e, m, &out);
                    if (!out)
                        continue;
                    fd_gref xr = fd_net_ref(c->c_net, fc_arc_dst(g, x));
                    fd_node *n = xr.g_kind == FD_G_NODE
                                     ? fd_slots_get(&c->c_nodes, xr.g_slot)
                                     : NULL;
                    if (n != NULL && !n->n_dead && n != t->t_node)
                        consider(c, ways, n, a, b, x);
                }
            }
        }
    }
}

/* The machine the flow of task node tv reaches, through aggregators:
 * read off flowcore's placements. NULL if none. */
static fd_node *flow_machine(const fd_core *c, fc_node tv)
{
    fc_placement *pl = NULL;
    size_t n = 0;
    fd_node *found = NULL;
    if (fc_placements(c->c_net->nt_g, &pl, &n) != 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (pl[i].pl_task != tv)
            continue;
        fd_gref r = fd_net_ref(c->c_net, pl[i].pl_machine);
        if (r.g_kind == FD_G_NODE)
            found = fd_slots_get(&c->c_nodes, r.g_slot);
        break;
    }
    free(pl);
    return found;
}

/* Writes why the task is not on w's node: the first of full, its way
 * full, its arcs to the sink full, dearer than waiting, not solved yet. */
static void why_not(const fd_core *c, const way *w, int64_t wait_cost, FILE *f)
{
    const fd_node *n = w->w_node;
    char name[SK_MAX_NAME_LEN + 64];
    uint32_t room = fd_node_room(n);
    if (n->n_ntasks >= room) {
        fprintf(f,
                "  not taken: node %s is full: %" PRIu32 " long tasks of "
                "flowd there, its cap %" PRIu32 " (long_share of %" PRIu32
                " slots = %" PRIu32 ", less %" PRIu32
                " long reservations flowd does not know)\n",
                n->n_name, n->n_ntasks, room, n->n_slots, n->n_cap,
                n->n_foreign);
        return;
    }
    if (w->w_full) {
        fprintf(f,
                "  not taken: the arc to it from %s is full: tasks placed "
                "this round took that room\n",
                gname(c, fc_arc_src(c->c_net->nt_g, w->w_full_at), name,
                      sizeof name));
        return;
    }
    fd_gent *ne = fd_net_find(c->c_net, FD_G_NODE, n->n_slot);
    fc_arc sa = ne == NULL ? FC_NONE : sink_arc(c, ne->e_node, true);
    if (sa == FC_NONE) {
        fprintf(f, "  not taken: its arcs to the sink are full: tasks placed "
                   "this round took its last room\n");
        return;
    }
    int64_t total = w->w_cost + fc_arc_cost(c->c_net->nt_g, sa);
    if (total >= wait_cost) {
        fprintf(f,
                "  not taken: it costs %" PRId64 ", not less than waiting "
                "(%" PRId64 "): the wait cost grows with time until it "
                "does\n",
                total, wait_cost);
        return;
    }
    fprintf(f, "  not taken yet: it has room and costs less than waiting; "
               "the task or the node changed after the last round, which "
               "the next round takes into account\n");
}

static void explain_waiting(const fd_core *c, const fd_task *t, fc_node tv,
                            int64_t wait_cost, sk_time now, FILE *f)
{
    way *ways = calloc(c->c_nodes.sl_len + 1, sizeof *ways);
    if (ways == NULL) {
        fprintf(f, "(out of memory: no alternatives)\n");
        return;
    }
    reach(c, t, tv, ways);
    const way *best = NULL, *best_room = NULL;
    uint32_t reachable = 0, full = 0;
    int64_t best_total = 0, room_total = 0;
    for (uint32_t i = 0; i < c->c_nodes.sl_len; i++) {
        const way *w = &ways[i];
        if (w->w_node == NULL)
            continue;
        reachable++;
        fd_gent *ne = fd_net_find(c->c_net, FD_G_NODE, w->w_node->n_slot);
        fc_arc any = ne == NULL ? FC_NONE : sink_arc(c, ne->e_node, false);
        fc_arc free_ = ne == NULL ? FC_NONE : sink_arc(c, ne->e_node, true);
        bool has_room = !w->w_full && free_ != FC_NONE &&
                        w->w_node->n_ntasks < fd_node_room(w->w_node);
        full += !has_room;
        const fc_graph *g = c->c_net->nt_g;
        int64_t total = w->w_cost + (any != FC_NONE ? fc_arc_cost(g, any) : 0);
        if (best == NULL || total < best_total) {
            best = w;
            best_total = total;
        }
        if (has_room) {
            int64_t rt = w->w_cost + fc_arc_cost(g, free_);
            if (best_room == NULL || rt < room_total) {
                best_room = w;
                room_total = rt;
            }
        }
    }
    fprintf(f, "why it waits:\n");
    if (now < c->c_settle_until)
        fprintf(f,
                "  flowd is settling after its start for %.3f s more: "
                "nothing is placed before the node monitors and schedulers "
                "have reported\n",
                secs(now, c->c_settle_until));
    if (reachable == 0) {
        fprintf(f, "  its arcs reach no node: no live node carries its "
                   "job's labels or can hold its request, and its preferred "
                   "nodes are not live\n");
        free(ways);
        return;
    }
    fprintf(f,
            "  its arcs reach %" PRIu32 " nodes; %" PRIu32
            " of them have no room for it\n",
            reachable, full);
    fprintf(f,
            "  cheapest alternative: node %s at cost %" PRId64
            " (waiting costs %" PRId64 ")\n",
            best->w_node->n_name, best_total, wait_cost);
    why_not(c, best, wait_cost, f);
    if (best_room != NULL && best_room != best) {
        fprintf(f, "  cheapest node with room: %s at cost %" PRId64 "\n",
                best_room->w_node->n_name, room_total);
        why_not(c, best_room, wait_cost, f);
    }
    free(ways);
}

static void explain(const fd_core *c, const fd_task *t, sk_time now, FILE *f)
{
    const fd_job *j = t->t_job;
    char name[SK_MAX_NAME_LEN + 64];
    uint32_t sid = j->j_sched != NULL ? j->j_sched->s_id : 0;
    fprintf(f,
            "task %" PRIu32 "/%" PRIu64 "/%" PRIu32 ": task %" PRIu32
            " of job %" PRIu64 " (the hand-over id) of scheduler %" PRIu32
            ", user %s, %s work, attempt %" PRIu32 " of %" PRIu32 "\n",
            sid, j->j_id, t->t_index, t->t_index, j->j_id, sid, j->j_user,
            j->j_long ? "long" : "fallback short", t->t_attempt + 1,
            j->j_max_attempts);
    if (t->t_state == FD_TASK_WAITING)
        fprintf(f, "state: waiting for %.3f s (%.3f s in all)\n",
                secs(t->t_since, now),
                secs(t->t_since, now) + (double)t->t_waited / 1e6);
    else if (t->t_state == FD_TASK_RESERVED)
        fprintf(f,
                "state: reserved on node %s (reservation %" PRIu64
                ", sent %.3f s ago, no answer yet)\n",
                t->t_node->n_name, t->t_resv, secs(t->t_since, now));
    else if (t->t_state == FD_TASK_PLACED)
        fprintf(f,
                "state: placed on node %s (reservation %" PRIu64
                " acknowledged, not yet seen running)\n",
                t->t_node->n_name, t->t_resv);
    else
        fprintf(f, "state: running on node %s for %.3f s\n", t->t_node->n_name,
                secs(t->t_run_since, now));
    fprintf(f, "preferences:");
    for (uint32_t i = 0; i < t->t_nprefs; i++)
        fprintf(f, "%s %s", i > 0 ? "," : "",
                strncmp(t->t_prefs[i], "rack=", 5) == 0 ? t->t_prefs[i] + 5
                                                        : t->t_prefs[i]);
    fprintf(f, "%s\n", t->t_nprefs == 0 ? " none" : "");
    fd_gent *te = fd_net_find(c->c_net, FD_G_TASK, t->t_slot);
    if (t->t_dirty || te == NULL) {
        fprintf(f,
                "network: %s since round %" PRIu64 "; the next round (%" PRIu64
                " changes pending) %s\n",
                te == NULL ? "not in it yet: it came" : "its arcs changed",
                c->c_round.rd_seq, c->c_events,
                te == NULL ? "adds it" : "redoes them");
        if (te == NULL) {
            fd_constraint_explain(c, t, f);
            return;
        }
    }
    const fc_graph *g = c->c_net->nt_g;
    fc_node tv = te->e_node;
    fprintf(f, "arcs (network after round %" PRIu64 "):\n", c->c_round.rd_seq);
    fc_arc flow_arc = FC_NONE;
    int64_t wait_cost = 0;
    for (int32_t i = 0; i < fc_node_degree(g, tv); i++) {
        bool out;
        fc_arc a = fc_node_arc(g, tv, i, &out);
        if (!out)
            continue;
        fc_node d = fc_arc_dst(g, a);
        fprintf(f,
                "  -> %-24s capacity %" PRId64 "  cost %" PRId64
                "  flow %" PRId64 "  (%s)\n",
                gname(c, d, name, sizeof name), fc_arc_capacity(g, a),
                fc_arc_cost(g, a), fc_arc_flow(g, a), arc_role(c, t, d));
        if (fc_arc_flow(g, a) > 0)
            flow_arc = a;
        if (fd_net_ref(c->c_net, d).g_kind == FD_G_JOB)
            wait_cost = fc_arc_cost(g, a);
    }
    fprintf(f, "flow: ");
    if (flow_arc == FC_NONE) {
        fprintf(f, "none (the network changed since its last solve)\n");
    } else {
        fc_node d = fc_arc_dst(g, flow_arc);
        fd_gref r = fd_net_ref(c->c_net, d);
        fprintf(f, "task -> %s", gname(c, d, name, sizeof name));
        fd_node *m = NULL;
        if (r.g_kind == FD_G_NODE)
            m = fd_slots_get(&c->c_nodes, r.g_slot);
        else if (r.g_kind != FD_G_JOB)
            m = flow_machine(c, tv);
        if (m != NULL && r.g_kind != FD_G_NODE) {
            if (r.g_kind != FD_G_RACK && d == c->c_net->nt_cluster)
                fprintf(f, " -> rack %s", m->n_rack->r_name);
            fprintf(f, " -> node %s", m->n_name);
        }
        fprintf(f, " -> sink\n");
        if (r.g_kind == FD_G_JOB && t->t_state != FD_TASK_WAITING)
            fprintf(f, "  (its flow takes the escape arc: its node's room "
                       "shrank below what runs there; flowd leaves it "
                       "running)\n");
        else if (m != NULL && t->t_state == FD_TASK_WAITING)
            fprintf(f,
                    "  (the round placed it on %s, but did not reserve it: "
                    "the node left, reached its cap, or the task changed "
                    "during the solve; the next round places it again)\n",
                    m->n_name);
    }
    if (t->t_state == FD_TASK_WAITING && fd_cons_active(j)) {
        fprintf(f, "why it waits: its job has placement constraints, which "
                   "the main network does not see: there the task may "
                   "only wait, and the constraint round after each solve "
                   "places it on the room left (below)\n");
        fd_constraint_explain(c, t, f);
        return;
    }
    if (t->t_state == FD_TASK_WAITING) {
        explain_waiting(c, t, tv, wait_cost, now, f);
        fd_constraint_explain(c, t, f);
        return;
    }
    fprintf(f,
            "why it is there: %s placed it on %s; it keeps the slot at no "
            "cost (its continuation arc)%s\n",
            fd_cons_active(j) ? "the constraint round (below)"
                              : "a round's flow",
            t->t_node->n_name,
            c->c_cfg.fdc_preemption
                ? ", and moves or stops only when another task gains more "
                  "than the arcs above cost"
                : "; preemption is off: flowd never moves it");
    fd_constraint_explain(c, t, f);
}

int fd_query_explain(fd_core *c, const char *args, sk_time now,
                     sk_status_reply *reply)
{
    char spec[64], why[256];
    uint32_t task;
    char end;
    if (sscanf(args, "%63s %" SCNu32 "%c", spec, &task, &end) != 2) {
        c->c_st.fs_bad_field++;
        return fd_reply_kv(c, reply, "error",
                           "explain takes [SCHED/]JOB TASK, got '%.100s'",
                           args);
    }
    fd_job *j = find_job(c, spec, why, sizeof why);
    if (j == NULL)
        return fd_reply_kv(c, reply, "error", "%s", why);
    if (task >= j->j_ntasks)
        return fd_reply_kv(c, reply, "error",
                           "job %s has %" PRIu32 " tasks (0..%" PRIu32 ")",
                           spec, j->j_ntasks, j->j_ntasks - 1);
    const fd_task *t = &j->j_tasks[task];
    if (t->t_state == FD_TASK_DEAD)
        return fd_reply_kv(c, reply, "error",
                           "task %" PRIu32 " of job %s has ended (or was "
                           "handed over as done): flowd no longer places it",
                           task, spec);
    if (c->c_round_out)
        return fd_reply_busy(c, reply);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return SK_ENOMEM;
    explain(c, t, now, f);
    if (fclose(f) != 0) {
        free(text);
        return SK_ENOMEM;
    }
    int rc = fd_reply_text(c, reply, text, len, true);
    free(text);
    return rc;
}
