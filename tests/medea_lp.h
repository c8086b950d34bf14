/*
 * medea_lp.h - the exact oracle for placement constraints: MEDEA's
 * integer program of a constraint instance (fd_constraint.h) written in
 * CPLEX LP form and solved by GLPK's glpsol, for small instances (tens of
 * nodes, about a hundred tasks).
 *
 * The program: a 0/1 variable x(t,n) per task to place and node with
 * room, a 0/1 violation v(c,t) per soft constraint and constrained task;
 * each task on at most one node, each node within its room; for each
 * constraint, constrained task t and group g, when t is in g the count of
 * target tags in g (t not counted) lies in [min, max] unless v(c,t) is 1
 * (big-M rows, M the tasks that can be counted); hard constraints have no
 * v. Objective: minimise a waiting cost per task left waiting plus the
 * weights of the violations: fd_cx_eval's objective, lexicographic as
 * its, but with the waiting cost medea_lp_wait_cost (1 + every soft
 * weight that can be broken) rather than FD_CX_UNPLACED, which keeps
 * glpsol's relative tolerances (1e-7) below one unit of soft weight.
 * lr_objective is converted back to fd_cx_eval's units.
 */
#ifndef MEDEA_LP_H
#define MEDEA_LP_H

#include "fd_constraint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* medea_lp_wait_cost: the program's cost of a waiting task. */
long long medea_lp_wait_cost(const fd_cx *x);

/* medea_lp_write writes x's program to f. Returns the number of rows
 * written, or -1 on an I/O error. */
long medea_lp_write(const fd_cx *x, FILE *f);

typedef struct medea_lp_result {
    bool lr_optimal;     /* glpsol proved it optimal (else: time limit) */
    bool lr_feasible;    /* a solution was found */
    double lr_objective; /* glpsol's objective, constant included */
    double lr_seconds;   /* glpsol's wall time */
    long lr_rows, lr_cols;
} medea_lp_result;

/* medea_lp_glpsol returns the path of glpsol if it can be run, else NULL. */
const char *medea_lp_glpsol(void);

/* medea_lp_solve writes x's program into dir, runs glpsol on it with a
 * time limit of tmlim seconds, and writes the placement found into x's
 * tasks' ck_node (fixed tasks unchanged). Returns 0, or -1 with a reason
 * in err. */
int medea_lp_solve(fd_cx *x, const char *dir, int tmlim, medea_lp_result *out,
                   char *err, size_t errlen);

/* A random instance shaped like MEDEA's long-running applications, owned
 * by the caller until medea_gen_free. Tags: 0 zk, 1 hb, 2 st, 3 db.
 * - job 0: zk tasks, hard "zk NOTIN NODE zk" (some already running);
 * - job 1: hb tasks, hard "hb IN RACK all/zk", soft "hb CARDINALITY NODE
 *   hb 0..1" weight 3;
 * - job 2: st tasks, hard "st CARDINALITY RACK st 0..k", soft "st NOTIN
 *   NODE all/hb" weight 2;
 * - job 3: db tasks, hard "db CARDINALITY LABEL=zone db 0..1" (a third of
 *   the nodes carry no zone).
 * nodes nodes in racks of 4, room 1..maxroom each; about tasks tasks. */
typedef struct medea_inst {
    fd_cx mi_x;
    uint32_t *mi_room;
    int32_t *mi_rack, *mi_gnode, *mi_zone;
    uint32_t *mi_tags; /* one tag per task */
    fd_cx_task *mi_tasks;
    fd_cx_con mi_cons[8];
} medea_inst;

int medea_gen(medea_inst *mi, uint64_t seed, uint32_t nodes, uint32_t tasks,
              uint32_t maxroom);
void medea_gen_free(medea_inst *mi);

#endif /* MEDEA_LP_H */
