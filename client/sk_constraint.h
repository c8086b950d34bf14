/*
 * sk_constraint.h - the placement constraint language of long-running
 * applications (MEDEA, EuroSys'18; Apache YARN's placement spec): the
 * textual form people and the command line write, parsed into the
 * sk_constraint records that SUBMIT_JOB carries, printed back, and the
 * validity rules the protocol's decoder applies to them.
 *
 * The textual form (keywords in any case, spaces between tokens allowed):
 *
 *     spec   := item { ':' item }
 *     item   := TAG [ '=' N ] ',' expr [ ',' mode ]
 *     expr   := IN ',' group ',' target
 *             | NOTIN ',' group ',' target
 *             | CARDINALITY ',' group ',' target ',' MIN ',' ( MAX | '*' )
 *             | AND '(' expr { ':' expr } ')'
 *     group  := NODE | RACK | LABEL '=' KEY
 *     target := [ ( app | all ) '/' ] TAG
 *     mode   := HARD | SOFT [ '=' WEIGHT ]
 *
 * "zk=3,NOTIN,NODE,zk" puts the job's three tasks tagged zk on three
 * distinct nodes; "hb,IN,RACK,all/zk" puts each hb task on a rack that
 * holds a zk task of any job; "st,CARDINALITY,NODE,st,0,2,SOFT=5" asks for
 * at most three st tasks per node, each task over it costing 5. A target
 * counts this job's tasks (app/, the default, as YARN's "self") or every
 * job's (all/). An item is hard unless it says SOFT (weight 1 by default);
 * AND's operands become separate records with the item's tag and mode. A
 * TAG or KEY is 1..SK_MAX_TAG_LEN bytes of [A-Za-z0-9_.-].
 *
 * Sans-I/O, no allocation, no global state: any thread.
 */
#ifndef SK_CONSTRAINT_H
#define SK_CONSTRAINT_H

#include "sk_proto.h"

#include <stdbool.h>
#include <stddef.h>

/* The longest textual spec accepted. */
#define SK_MAX_CSPEC_LEN 4096u

/* A parsed spec: its records and the names they point to. */
typedef struct sk_cspec {
    sk_constraint cs_items[SK_MAX_CONSTRAINTS];
    uint32_t cs_n;
    char cs_names[2 * SK_MAX_CSPEC_LEN + 2]; /* NUL-terminated tokens */
} sk_cspec;

/* sk_constraint_parse parses spec into *out (overwritten; its records
 * point into out->cs_names). Returns 0, or SK_EINVAL with a message for
 * people in err (errlen bytes, may be 0) naming the 1-based character
 * position that is wrong ("at 9: expected NODE, RACK or LABEL=KEY, got
 * 'NOD'"), or SK_ELIMIT (with the same kind of message) for a spec over
 * SK_MAX_CSPEC_LEN bytes or over SK_MAX_CONSTRAINTS records. Costs
 * O(strlen(spec)). */
int sk_constraint_parse(const char *spec, sk_cspec *out, char *err,
                        size_t errlen);

/* sk_constraint_format writes c in the textual form (one item, that
 * parses back to the same record) into buf (size bytes, NUL-terminated,
 * truncated if short). Returns the length it needed, as snprintf. */
int sk_constraint_format(const sk_constraint *c, char *buf, size_t size);

/* sk_tag_valid: s is a valid TAG or KEY (see above). */
bool sk_tag_valid(const char *s);

/* sk_constraint_valid: the rules the protocol checks on a record: valid
 * source and target tags, a group in range with a valid key exactly
 * when it is SK_GROUP_LABEL (else ""), cn_min <= cn_max, cn_min <=
 * SK_MAX_TASKS, cn_max <= SK_MAX_TASKS or SK_CARD_ANY, cn_count <=
 * SK_MAX_TASKS, cn_weight <= SK_MAX_WEIGHT. */
bool sk_constraint_valid(const sk_constraint *c);

#endif /* SK_CONSTRAINT_H */
