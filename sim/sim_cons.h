/*
 * sim_cons.h - placement constraints in skylark-sim's job file: the two
 * optional columns after `preferred` that give a job's allocation tags
 * and its placement constraints (docs/CONSTRAINTS.md), so that the flow
 * node of a run (--mix flow or hybrid) places long-running applications
 * under them.
 *
 *   tags         empty; the tags of every task, separated by ' ' (at
 *                most SK_MAX_TAGS, each a valid tag, sk_tag_valid); or,
 *                per task, such lists separated by ';' (exactly one per
 *                task).
 *   constraints  empty, or the textual form of docs/CONSTRAINTS.md with
 *                each ',' written as ' ' (the file is CSV): for example
 *                "zk=3 NOTIN NODE zk:hb IN RACK all/zk SOFT=2". Parsed by
 *                sk_constraint_parse: at most SK_MAX_CONSTRAINTS items in
 *                SK_MAX_CSPEC_LEN bytes; an error names the position.
 *
 * Both columns are checked as hostile input: a bad one is an error that
 * names the line and the column, and stops the run (exit status 2).
 */
#ifndef SIM_CONS_H
#define SIM_CONS_H

#include "sk_constraint.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A job's tags and constraints, one allocation. */
typedef struct sim_cons {
    uint32_t sc_ntasks;
    uint32_t *sc_off;     /* [sc_ntasks + 1] into sc_tagv, or NULL when
                             every task has the same tags (0..sc_off1) */
    uint32_t sc_nsame;    /* tags of each task when sc_off is NULL */
    const char **sc_tagv; /* tag pointers into sc_text */
    char *sc_text;        /* the tags column, NULs between tags */
    sk_cspec sc_spec;     /* the constraints (sc_spec.cs_n may be 0) */
} sim_cons;

/* sim_cons_parse parses the tags column (tags, ntags bytes) and the
 * constraints column (cons, ncons bytes) of a job of ntasks tasks into
 * *out (NULL when both are empty). Returns 0; SK_EINVAL with a message
 * naming the column and the problem in err; or SK_ENOMEM. Costs
 * O(ntags + ncons + ntasks). */
int sim_cons_parse(const char *tags, size_t ntags, const char *cons,
                   size_t ncons, uint32_t ntasks, sim_cons **out, char *err,
                   size_t errlen);

/* sim_cons_free releases c (NULL: nothing). */
void sim_cons_free(sim_cons *c);

/* sim_cons_task_tags: task t's tags (count in *n). */
const char **sim_cons_task_tags(const sim_cons *c, uint32_t t, uint32_t *n);

/* sim_cons_write writes the two columns of c (NULL: empty ones), with the
 * ',' before each, as the job file has them. */
void sim_cons_write(FILE *fp, const sim_cons *c);

#endif /* SIM_CONS_H */
