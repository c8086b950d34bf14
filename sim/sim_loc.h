/*
 * sim_loc.h - racks and data locality in skylark-sim (--rack-size,
 * --remote-read, --hide-prefs), for Quincy's experiment
 * (docs/results/hybrid.md#quincys-fairness-and-locality).
 *
 * With a rack size R, node i is in rack "r<i / R>": the flow node hears
 * it in HELLO he_rack, and a task's preferred racks (ts_racks) are the
 * racks of its preferred nodes (the nodes that hold its input's
 * replicas). Each launch of a task with preferences is classified: on a
 * preferred node (its input is local), on a preferred rack (read over
 * the rack's switch), or elsewhere (read across racks); the last two
 * run longer by --remote-read's RACK and CROSS times, the model of the
 * input's transfer. With --hide-prefs the placers do not see the
 * preferences (the baseline "no preferences"), which are still used to
 * classify and to charge the transfer.
 *
 * The state lives beside the run's sim (s_loc), shared by its partitions;
 * a run with racks runs on one thread, so no two calls overlap.
 */
#ifndef SIM_LOC_H
#define SIM_LOC_H

#include "sim.h"

#include <stdint.h>
#include <stdio.h>

typedef struct sim_loc sim_loc;

/* Where a task ran, against its preferences. */
typedef enum sim_loc_kind {
    SIM_LOC_NODE = 0,  /* on a preferred node */
    SIM_LOC_RACK = 1,  /* on a preferred rack, not a preferred node */
    SIM_LOC_CROSS = 2, /* elsewhere: its input crosses racks */
    SIM_LOC_NONE = 3,  /* the task has no preferences */
} sim_loc_kind;

/* sim_loc_new makes the state of a run with p->p_rack_size > 0 (else
 * *out is NULL). Returns 0 or SK_ENOMEM. */
int sim_loc_new(const sim_params *p, sim_loc **out);

/* sim_loc_free releases l (NULL is fine). */
void sim_loc_free(sim_loc *l);

/* sim_rack_name writes "r<rack of node>" for p's rack size into buf (at
 * least 16 bytes) and returns it. p->p_rack_size must be above 0. */
const char *sim_rack_name(const sim_params *p, uint32_t node, char *buf);

/* sim_loc_arrive and sim_loc_end follow j from its arrival to its end,
 * so that a launch can find it by j_seq. sim_loc_arrive returns 0 or
 * SK_ENOMEM. O(1) expected. */
int sim_loc_arrive(sim_loc *l, sim_job *j);
void sim_loc_end(sim_loc *l, const sim_job *j);

/* sim_loc_classify tells where task t of j runs if on node. */
sim_loc_kind sim_loc_classify(const sim_params *p, const sim_job *j, uint32_t t,
                              uint32_t node);

/* sim_loc_launch counts the launch of task t of job seq on node and
 * returns the extra run time its input's transfer costs (0 for a job it
 * does not follow). O(preferred nodes). */
sk_time sim_loc_launch(sim_loc *l, uint64_t seq, uint32_t t, uint32_t node);

/* sim_loc_racks puts the distinct racks of task t of j's preferred nodes
 * into names (16 bytes each) and pointers to them into out, both with
 * room for sim_job_npref(j, t), and returns how many. */
uint32_t sim_loc_racks(const sim_params *p, const sim_job *j, uint32_t t,
                       const char **out, char (*names)[16]);

/* sim_loc_count returns the launches counted of kind k. */
uint64_t sim_loc_count(const sim_loc *l, sim_loc_kind k);

/* sim_loc_report writes the locality line of the summary. */
void sim_loc_report(const sim_loc *l, FILE *out);

#endif /* SIM_LOC_H */
