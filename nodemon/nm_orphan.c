/*
 * nm_orphan.c - the node monitor core's orphans: running tasks whose
 * scheduler's session ended (docs/FAULTS.md). An orphan keeps its slot
 * and runs on for orphan_grace_ms; its result has nobody to go to and is
 * dropped. If the same scheduler (same HELLO id, same incarnation: its
 * session was cut by a partition or a stall, not a restart) registers
 * again first, its orphans are bound to it again and re-announced, so
 * that it can fence the attempts it gave up meanwhile (KILL_TASK);
 * otherwise they are killed when the grace ends, or at once when another
 * incarnation of that scheduler registers.
 *
 * Every grace is equally long and the driver's clock does not go back,
 * so appending keeps nm_orphans sorted by deadline. There are never more
 * orphans than slots.
 */
#include "nm_int.h"
#include "sk_log.h"

static void kill_orphan(nm_core *nm, nm_task *t)
{
    nm_list_remove(&t->tk_orphan);
    nm->nm_st.ns_orphans_killed++;
    nm_send_kill(nm, t);
}

void nm_orphan(nm_core *nm, nm_task *t, const nm_peer *sched, sk_time now)
{
    nm->nm_st.ns_orphaned++;
    t->tk_orphan_of = sched->pe_hello_id;
    t->tk_orphan_inc = sched->pe_incarnation;
    t->tk_orphan_until = now + (sk_time)nm->nm_cfg.nc_orphan_grace_ms * 1000;
    nm_list_push_back(&nm->nm_orphans, &t->tk_orphan);
    if (nm->nm_cfg.nc_orphan_grace_ms == 0)
        kill_orphan(nm, t);
}

void nm_orphan_end(nm_core *nm, nm_task *t)
{
    (void)nm;
    nm_list_remove(&t->tk_orphan);
}

void nm_orphans_reclaim(nm_core *nm, nm_peer *sched)
{
    nm_link *l = nm->nm_orphans.ln_next;
    uint64_t back = 0, killed = 0;
    while (l != &nm->nm_orphans) {
        nm_task *t = NM_CONTAINER(l, nm_task, tk_orphan);
        l = l->ln_next;
        if (t->tk_orphan_of != sched->pe_hello_id)
            continue;
        if (t->tk_orphan_inc != sched->pe_incarnation) {
            kill_orphan(nm, t);
            killed++;
            continue;
        }
        if (nm_rejob(nm, t, sched) == NULL) {
            nm->nm_st.ns_nomem++;
            kill_orphan(nm, t);
            killed++;
            continue;
        }
        nm_list_remove(&t->tk_orphan);
        nm->nm_st.ns_orphans_reclaimed++;
        back++;
        nm_send_started(nm, t);
    }
    if (back + killed > 0)
        sk_info("nodemon: scheduler %u registered: %llu orphans "
                "re-announced, %llu of an earlier incarnation killed",
                sched->pe_hello_id, (unsigned long long)back,
                (unsigned long long)killed);
}

void nm_orphans_expire(nm_core *nm, sk_time now)
{
    nm_link *l;
    while ((l = nm_list_first(&nm->nm_orphans)) != NULL) {
        nm_task *t = NM_CONTAINER(l, nm_task, tk_orphan);
        if (t->tk_orphan_until > now)
            break;
        kill_orphan(nm, t);
    }
}

sk_time nm_orphans_deadline(const nm_core *nm)
{
    nm_link *l = nm_list_first(&nm->nm_orphans);
    return l == NULL ? SK_TIME_NEVER
                     : NM_CONTAINER(l, nm_task, tk_orphan)->tk_orphan_until;
}
