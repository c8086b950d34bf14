/*
 * sim_flow.h - the flow path in skylark-sim: the real flow node core
 * (flowcore/flowd, fd_core.h) and real flowcore solves, or a central
 * greedy placer, beside the late-binding strategy's real scheduler and
 * node monitor cores (sim.h, sim_flow).
 *
 * Peers. The flow node is SIM_PEER_FLOWD: every node monitor registers
 * with it (its HELLO reaches the core at time 0, as when the daemons
 * connect) and gets its HELLO (role FLOWD), so heartbeats flow on the
 * node monitors' period; every scheduler core and the flow node exchange
 * HELLOs, so the schedulers hand long jobs (mix hybrid) or every job (mix
 * flow, sj_placement FLOW) and their fallback short work to it over the
 * scheduler's own flow path (scheduler/sched_flow.c), get its MEMBERSHIP
 * (nodes saturated with long tasks are not probed) and relay the
 * outcomes. Every flow link takes the mean delay p_delay.
 *
 * Rounds. When the core has a round due (fd_round_begin), the round's
 * network is solved at once by fc_solve, and fd_round_end is called
 * after the solve's cost in virtual time (p_solve_time): the wall time
 * of the solve (measured), a model of it (work, below) or nothing. While
 * the round is out the core keeps taking messages, as in skylark-flowd.
 *
 * The work model (SIM_SOLVE_WORK) makes a run's output depend only on
 * its parameters and seed: the solve's virtual time is
 *   (SIM_WORK_ARC_NS * arcs + SIM_WORK_ITER_NS * ss_relax_work) / 1000
 * microseconds, with arcs the network's arcs and ss_relax_work the work
 * count flowcore reports for relaxation, plus, when another solver
 * produced the flow (alone, or after relaxation spent its budget, the flow
 * node's relax_budget), its own arcs and work (ss_iterations less
 * ss_relax_work) at its own rates, SIM_WORK_SSP_* for successive shortest
 * path, SIM_WORK_CS_* for cost scaling; the constants were fitted on this
 * machine (docs/results/hybrid.md, "The solve-time model"). The race
 * (two threads, the first to finish wins) is not deterministic, so with
 * the work model the default algorithm is relaxation.
 *
 * Mix hawk has no flow node: the central placer (a Hawk-like split) gets
 * the long jobs through fl_submit, keeps their tasks in one FIFO queue
 * and sends each to the node with the fewest long tasks (ties: the one
 * that has had that count longest) outside a short-only partition (the
 * first p_short_part of the nodes), at most one per slot. It registers
 * with the nodes as the flow node does (RESERVE) and as scheduler
 * p_scheds (SIM_PEER_FLOWS), to which the nodes report the tasks' start
 * and end. Hawk's work stealing is not modelled.
 */
#ifndef SIM_FLOW_H
#define SIM_FLOW_H

#include "sim.h"

/* The work model's constants (see above): nanoseconds of CPU time per
 * arc and per unit of solver work (for relaxation an arc it looks at, a
 * node it moves to counting 16), relaxation on this machine. */
#define SIM_WORK_ARC_NS  6.7
#define SIM_WORK_ITER_NS 2.4
/* ... and, on top, successive shortest path's and cost scaling's: per
 * arc (their passes over the network, cost scaling's copy of it) and per
 * unit of their work. */
#define SIM_WORK_SSP_ARC_NS  11.0
#define SIM_WORK_SSP_ITER_NS 40.0
#define SIM_WORK_CS_ARC_NS   68.0
#define SIM_WORK_CS_ITER_NS  1.75

/* sim_flow_new builds the flow path for a run with parameters p (mix
 * flow, hawk or hybrid; p must outlive it, and it serves one sim_run).
 * Returns 0 with it in *out, or SK_ENOMEM / SK_ECONFIG (a setting the flow
 * node refuses, with a message in err). */
int sim_flow_new(const sim_params *p, sim_flow **out, char *err, size_t errlen);

/* sim_flow_free releases it (NULL: nothing), after its run. */
void sim_flow_free(sim_flow *f);

/* sim_mix_parse finds a mix by name ("skip", "sampling", "flow", "hawk",
 * "hybrid"). Returns 0 or SK_EINVAL. */
int sim_mix_parse(const char *name, sim_mix *out);

/* sim_mix_name returns the name of a mix. */
const char *sim_mix_name(sim_mix m);

/* sim_flow_rounds_header writes the header of the per-round CSV
 * (p_rounds_out). */
void sim_flow_rounds_header(FILE *out);

#endif /* SIM_FLOW_H */
