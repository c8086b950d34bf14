/*
 * fd_constraint_int.h - shared by the fd_constraint files: the counts of
 * target tags per (constraint, group) behind a placement, kept up to date
 * move by move, and what a move costs.
 */
#ifndef FD_CONSTRAINT_INT_H
#define FD_CONSTRAINT_INT_H

#include "fd_constraint.h"

#include <stddef.h>

#define FD_CX_HARD                                                             \
    1000000000LL /* what breaking a hard constraint costs                      \
                    inside the repair pass */

typedef struct fd_cx_state {
    const fd_cx *st_x;
    uint32_t **st_cnt;  /* [constraint][group]: placed tasks counted */
    uint32_t **st_subj; /* [constraint]: its subject tasks */
    uint32_t *st_nsubj;
    uint32_t **st_in[2]; /* [counted][constraint][group]: placed subject
                            tasks there, not counted by it / counted */
    uint64_t st_deltas;  /* fd_cx_delta calls: the repair pass's work */
} fd_cx_state;

bool fd_cx_has_tag(const fd_cx_task *t, uint32_t tag);
/* t counts towards c's target / is constrained by c */
bool fd_cx_counted(const fd_cx_con *c, const fd_cx_task *t);
bool fd_cx_subject(const fd_cx_con *c, const fd_cx_task *t);
/* the counts of the placement in x's ck_node; 0 or FC_ENOMEM */
int fd_cx_state_init(fd_cx_state *s, const fd_cx *x);
void fd_cx_state_free(fd_cx_state *s);
/* does placed subject task t break c at node n (counts as they are, with
 * t counted at n if it is counted by c) */
bool fd_cx_breaks(const fd_cx_state *s, uint32_t ci, uint32_t ti, int32_t n);
/* what the pairs involving task ti (its own, and those of the subject
 * tasks in its groups of the constraints that count it) cost now */
int64_t fd_cx_local(const fd_cx_state *s, uint32_t ti);
/* move task ti to node to (FD_CX_NONE: unplace); counts follow */
void fd_cx_move(fd_cx_state *s, uint32_t ti, int32_t to);
/* the objective's change if task ti went to node to (counts unchanged
 * on return); FD_CX_HARD per hard pair broken */
int64_t fd_cx_delta(fd_cx_state *s, uint32_t ti, int32_t to);

/* t may go to node n (its ck_ok allows it) */
static inline bool fd_cx_ok_at(const fd_cx_task *t, uint32_t n)
{
    return t->ck_ok == NULL || t->ck_ok[n] != 0;
}
/* fd_constraint_flow.c: build and solve the flow network for x's tasks
 * to place (all waiting in s), and move the tasks it places there; 0 or
 * an FC_E* code */
int fd_cx_flow_stage(fd_cx *x, fd_cx_state *s, fd_cx_stats *xs);

/* fd_constraint_spread.c: move placed tasks (not fixed) of order[] so
 * that each tag spreads over the racks, each move costing nothing
 * (fd_cx_delta <= 0); used[] (tasks placed per node) follows. 0 or
 * FC_ENOMEM. */
int fd_cx_spread(fd_cx_state *s, uint32_t *used, const uint32_t *order,
                 uint32_t norder, fd_cx_stats *xs);

#endif /* FD_CONSTRAINT_INT_H */
