/*
 * nm_queue.h - the node monitor's reservation queues: one FIFO per user
 * and priority level, strict priority across levels (0 first), and
 * weighted fair queueing across the users of a level.
 *
 * Fair queueing is start-time fair queueing (SFQ) with one virtual clock
 * per level. Every decision (one slot handed to a user, nm_queue_charge)
 * costs the user 1/weight of virtual time: the user's start tag advances
 * by that amount, and the level's virtual time becomes the start tag of
 * the user served. The user with the smallest start tag goes next. A user
 * who becomes backlogged starts at max(virtual time, its last finish tag),
 * so idleness earns no credit. Over any stretch of decisions in which
 * users i and j are both backlogged, their decisions divided by their
 * weights differ by at most 1/w_i + 1/w_j (SFQ's bound). Against the
 * ideal share n * w / W (W the sum of the N users' weights), a user may
 * trail by up to about N * w / W decisions: at 4:2:1 every user stays
 * within 1 decision over 700, but a user of weight 100 among 100 users of
 * weight 1 trails by 50 each time their tags come due together (measured;
 * tests/test_nm_queue.c). Cost: O(log users) per decision, O(1) to append,
 * O(log users) to remove an entry that empties its user's FIFO.
 *
 * Users are tracked while anything references them (queued entries,
 * reservations, running tasks: nm_user_ref / nm_user_unref) and kept
 * afterwards, least recently idle first out, when room is needed.
 */
#ifndef NM_QUEUE_H
#define NM_QUEUE_H

#include "nm_config.h"
#include "nm_htab.h"
#include "nm_list.h"
#include "sk_proto.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct nm_user nm_user;

/* A queue entry, embedded in whatever is queued. */
typedef struct nm_qent {
    nm_link qe_link;  /* in its user's FIFO of its level */
    nm_user *qe_user; /* set by nm_queue_push */
    uint8_t qe_prio;
} nm_qent;

_Static_assert(SK_PRIORITIES <= 32, "a level is a bit of q_busy");

/* One user's FIFO at one level, with its SFQ tags. */
typedef struct nm_uq {
    nm_user *uq_user;
    nm_link uq_fifo;
    uint32_t uq_len;
    uint32_t uq_heap; /* index in the level's heap while uq_len > 0 */
    double uq_start;  /* start tag of the head */
    double uq_finish; /* finish tag of the last decision */
} nm_uq;

struct nm_user {
    nm_hnode us_hnode;
    uint32_t us_weight;
    uint64_t us_seq;       /* creation order: breaks ties between tags */
    uint32_t us_refs;      /* what keeps the user tracked */
    nm_link us_idle;       /* in the idle list while us_refs is 0 */
    uint32_t us_queued;    /* entries over all levels */
    uint32_t us_running;   /* tasks running (kept by the core) */
    uint64_t us_slot_us;   /* slot time used by finished tasks */
    uint64_t us_start_sum; /* sum of the running tasks' start times */
    nm_uq us_q[SK_PRIORITIES];
    char us_name[]; /* in the same block: a lookup touches one */
};

/* One priority level: its users' FIFOs in a heap by start tag. */
typedef struct nm_level {
    nm_uq **lv_heap;     /* q_heapcap entries */
    uint32_t lv_heaplen; /* FIFOs in the heap */
    uint32_t lv_len;     /* entries */
    double lv_vtime;     /* the level's virtual time */
} nm_level;

/* The fields a call uses first, then those seldom used. */
typedef struct nm_queue {
    uint32_t q_total;
    uint32_t q_busy;    /* bit p: level p's heap is not empty */
    uint32_t q_heapcap; /* >= q_nusers, <= q_max_users */
    nm_level q_levels[SK_PRIORITIES];
    nm_htab q_users;
    nm_link q_idle;
    uint32_t q_nusers;
    uint32_t q_max_users;
    uint64_t q_seq;
    const nm_weight *q_weights;
    uint32_t q_nweights;
} nm_queue;

/* nm_queue_init prepares empty queues, in place, for at most max_users
 * users, whose weights are found among the nweights entries of weights
 * (which must outlive q; other users weigh 1). It allocates nothing. */
void nm_queue_init(nm_queue *q, uint32_t max_users, const nm_weight *weights,
                   uint32_t nweights);

/* nm_queue_fini releases every user (queued entries must be gone). */
void nm_queue_fini(nm_queue *q);

/* nm_queue_user finds or starts tracking the user called name, with its
 * configured weight, and takes a reference (nm_user_unref gives it back).
 * Returns 0; SK_ELIMIT when max_users users are referenced; SK_ENOMEM. */
int nm_queue_user(nm_queue *q, const char *name, nm_user **out);

/* nm_queue_find returns the tracked user called name, or NULL. */
nm_user *nm_queue_find(const nm_queue *q, const char *name);

/* nm_user_ref and nm_user_unref count what keeps u tracked. */
void nm_user_ref(nm_queue *q, nm_user *u);
void nm_user_unref(nm_queue *q, nm_user *u);

/* nm_queue_push appends e at the tail of u's FIFO of level prio
 * (< SK_PRIORITIES). */
void nm_queue_push(nm_queue *q, nm_user *u, uint8_t prio, nm_qent *e);

/* nm_queue_remove takes the queued entry e out of its FIFO. */
void nm_queue_remove(nm_queue *q, nm_qent *e);

/* nm_queue_peek returns the entry to serve next, or NULL if all queues
 * are empty. It does not charge anyone. */
nm_qent *nm_queue_peek(const nm_queue *q);

/* nm_queue_charge records one decision in favour of the queued entry e
 * (its user pays 1/weight of virtual time at e's level). */
void nm_queue_charge(nm_queue *q, nm_qent *e);

/* nm_queue_foreach calls fn on every tracked user (for status reports).
 * Cost: O(users). */
void nm_queue_foreach(const nm_queue *q, void (*fn)(void *, const nm_user *),
                      void *arg);

#endif /* NM_QUEUE_H */
