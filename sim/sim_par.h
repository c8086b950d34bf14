/*
 * sim_par.h - a run split into partitions that advance in windows of
 * virtual time, on one thread or several.
 *
 * Partition 0 is the run's own sim: the arrivals, the schedulers with
 * their frontends, the flow plug-in. Partitions 1..n each run a
 * contiguous range of the nodes, with a sim of their own (event queue,
 * clock, message pool, counters); they share the strategy's state, of
 * which each touches only its nodes' part. Partitions meet only through
 * events for one another (sim_at_part), and every such event lies at
 * least the lookahead L after the time it is sent: the least delay a
 * message between a node and the rest can take. Virtual time is cut into
 * windows of L/m (m = 4), from time 0: what a partition sends in window w
 * arrives no earlier than window w + m, so a partition runs window w once
 * the partitions that send to it have finished window w - m, and adds
 * what they sent it then to its queue. The nodes' slot changes are
 * replayed into partition 0's counters m windows late. A quiet stretch
 * (nothing pending anywhere, nothing on its way, before some time t) is
 * crossed in 2m windows: partition 0 sees it at the start of a window and
 * has every partition start the windows from 2m later at t's window.
 *
 * The output does not depend on the number of threads or on how the
 * nodes are grouped:
 *  - events that partition 0 gets from the nodes join its queue in order
 *    of time, then of the sending node in an order drawn afresh for every
 *    instant (a fixed one would favour some nodes), then of sending;
 *  - a node partition gets its events from partition 0 alone, in the
 *    order they were sent;
 *  - the nodes' slot changes are replayed summed per instant (so a peak
 *    of busy slots is taken between instants, never inside one);
 *  - a partition adds what the others sent it at the start of a window,
 *    so where those events fall among its own equal-time events depends
 *    on its own nodes' history alone, and no node's behaviour depends on
 *    another's;
 *  - when partition 0 stops, the node partitions run m - 1 windows past
 *    its last (the most they may have run before they could know).
 * The order of equal-time events therefore differs from an unsplit run
 * (which takes them in the order they were sent): a split run is as
 * deterministic, but not the same run.
 *
 * A message record goes back to the partition that made it at the start
 * of its next window, as a pointer: the receiver writes nothing in it.
 */
#ifndef SIM_PAR_H
#define SIM_PAR_H

#include "sim.h"

/* The most threads a run may use. */
#define SIM_PAR_MAX_THREADS 64u

/* sim_par_lookahead returns the least time a message between a node and
 * the rest takes under p, 0 when none is guaranteed (exponential delays,
 * no delay): such a run is not split. */
sk_time sim_par_lookahead(const sim_params *p);

/* sim_par_new splits run s (partition 0: parameters, names, strategy,
 * node labels and names set; its strategy not yet initialised) into 1 +
 * nthreads partitions, the nodes in nthreads contiguous ranges, and sets
 * s->s_par. Returns 0 or SK_ENOMEM. */
int sim_par_new(sim *s, uint32_t nthreads, sk_time lookahead);

/* sim_par_ready gives every partition the strategy's state, once its
 * init has made it. */
void sim_par_ready(sim *s);

/* sim_par_run runs s's windows until partition 0 stops, a partition
 * fails or nothing is pending, on the threads sim_par_new was given
 * (the caller's being the first), printing progress when asked. Then it
 * moves the partitions' counters, events and first error into s, and
 * sets s->s_now to the latest partition's time. */
void sim_par_run(sim *s);

/* sim_par_free releases the partitions of s (not s itself). */
void sim_par_free(sim *s);

/* sim_par_part returns partition part of run s (s itself when not
 * split). */
sim *sim_par_part(sim *s, uint32_t part);

/* sim_par_done gives back message record m, which s has delivered: to
 * s's pool, or to the partition that made it. */
void sim_par_done(sim *s, sim_msg *m);

/* sim_par_busy logs a slot change at s->s_now, to be replayed into
 * partition 0's counters at the window's end. */
void sim_par_busy(sim *s, int delta);

/* sim_par_at returns a record for an event of partition part at time at,
 * sent by s (another partition) from node order (0 from partition 0),
 * to be added to part's queue at the window's end (fifo: to its FIFO
 * lane). at must not be before the window's end. */
sim_ev *sim_par_at(sim *s, uint32_t part, uint32_t order, sk_time at,
                   bool fifo);

#endif /* SIM_PAR_H */
