/*
 * sim_jobmap.h - a map from a job's number (j_seq, the id towards the
 * cores) to what a strategy keeps for it: open addressing, linear
 * probing, backward-shift deletion, keys hashed. The late-binding
 * strategy's frontends and the flow path keep their jobs in flight here.
 */
#ifndef SIM_JOBMAP_H
#define SIM_JOBMAP_H

#include <stdint.h>

/* Zero-initialised: empty. Values are never NULL. */
typedef struct sim_jobmap {
    uint64_t *jm_keys;
    void **jm_vals;
    uint32_t jm_cap; /* a power of two, or 0 */
    uint32_t jm_len;
} sim_jobmap;

/* sim_jobmap_put maps key to v (not NULL), replacing any value. Returns
 * 0 or SK_ENOMEM. O(1) amortised. */
int sim_jobmap_put(sim_jobmap *m, uint64_t key, void *v);

/* sim_jobmap_get returns key's value or NULL. O(1) expected. */
void *sim_jobmap_get(const sim_jobmap *m, uint64_t key);

/* sim_jobmap_del removes key (absent: nothing). O(1) expected. */
void sim_jobmap_del(sim_jobmap *m, uint64_t key);

/* sim_jobmap_fini frees the table (not the values) and empties m. */
void sim_jobmap_fini(sim_jobmap *m);

#endif /* SIM_JOBMAP_H */
