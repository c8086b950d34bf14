/*
 * sim_msg.h - messages in flight in the simulated network: self-contained
 * copies of what a core put in its outbox, made before the next call into
 * that core (the outbox lifetime rule of sk_core.h), and a pool of them.
 *
 * Two ways to copy, chosen per run:
 *
 *  - flat (the default): the sk_msg structure is copied and each string
 *    and byte string it points to is copied after it, into the record's
 *    inline buffer or a heap buffer the record keeps for reuse. Messages
 *    with lists (HELLO, SUBMIT_JOB, HEARTBEAT, MEMBERSHIP, STATUS_REPLY)
 *    go through the codec instead, as below; the cores do not send them on
 *    the simulator's hot path.
 *  - wire: every message is encoded with sk_msg_encode and decoded with
 *    sk_msg_decode, exactly as between daemons, so a core that emits a
 *    message the protocol cannot carry (a field out of range, a string
 *    too long) fails the run.
 *
 * Why flat by default: on this machine the codec costs about 190 ns per
 * message (encode plus decode, bench/nm_core), and a 500-task job at d = 2
 * exchanges about a dozen messages per task: 50 million tasks would spend
 * nearly two minutes in the codec alone, more than the whole run may take.
 * A flat copy costs a few tens of nanoseconds and delivers the same
 * values (a decoded message differs only in owning its memory, and in
 * NULL strings arriving as ""; the flat copy does the same). The test
 * tests/test_sim_run.c checks that both ways give byte-identical results.
 */
#ifndef SIM_MSG_H
#define SIM_MSG_H

#include "sk_proto.h"

#include <stdbool.h>
#include <stdint.h>

/* Bytes of variable parts kept inside the record (node and user names,
 * an 8-byte task spec); more goes to a heap buffer. */
#define SIM_MSG_INLINE 64

typedef struct sim_msg {
    sk_msg mg_msg;     /* the message; its pointers point into this record
                          (flat) or into memory the codec allocated */
    bool mg_decoded;   /* mg_msg came from sk_msg_decode: sk_msg_free it */
    uint32_t mg_cap;   /* bytes at mg_heap */
    uint8_t *mg_heap;  /* variable parts too large for mg_inline */
    uint32_t mg_owner; /* the owner of the pool that made it */
    uint8_t mg_inline[SIM_MSG_INLINE];
} sim_msg;

/* A pool of sim_msg records with stable addresses, for one thread. A
 * record another thread is done with comes back through a sim_msgbatch:
 * pointers, so that nothing is written in the record on its way. */
typedef struct sim_msgpool {
    sim_msg **mp_chunks;
    uint32_t mp_nchunks;
    sim_msg **mp_free; /* a stack */
    uint32_t mp_nfree, mp_free_cap;
    sk_buf mp_buf;     /* the encode buffer of wire copies */
    uint32_t mp_owner; /* marks its records (mg_owner) */
} sim_msgpool;

/* Records on their way back to their pool. */
typedef struct sim_msgbatch {
    sim_msg **mb_v;
    uint32_t mb_len, mb_cap;
} sim_msgbatch;

/* sim_msgpool_init makes an empty pool whose records carry owner. */
void sim_msgpool_init(sim_msgpool *p, uint32_t owner);

/* sim_msgpool_fini releases every record (handed out or not). */
void sim_msgpool_fini(sim_msgpool *p);

/* sim_msg_copy returns a new record holding a copy of src (see above for
 * wire), or NULL with the SK_E* code in *err when the codec refused the
 * message (wire mode, or a message with lists): the caller reports the
 * core's bug. Aborts when out of memory. Cost: O(size of the message). */
sim_msg *sim_msg_copy(sim_msgpool *p, const sk_msg *src, bool wire, int *err);

/* sim_msg_put returns a record of p to it, releasing what the codec
 * allocated for it (its heap buffer is kept for the next copy). */
void sim_msg_put(sim_msgpool *p, sim_msg *m);

/* sim_msg_give releases what the codec allocated for m and adds it to b,
 * for its pool to take. Writes nothing in m unless the codec made it.
 * Aborts when out of memory. */
void sim_msg_give(sim_msgbatch *b, sim_msg *m);

/* sim_msgpool_take puts every record of b back in p, their pool, and
 * empties b. Aborts when out of memory. */
void sim_msgpool_take(sim_msgpool *p, sim_msgbatch *b);

/* sim_msgbatch_free releases b's array (not its records). */
void sim_msgbatch_free(sim_msgbatch *b);

#endif /* SIM_MSG_H */
