/*
 * sim_theory.h - closed forms for the probability that a job sees no
 * wait at all (Sparrow's Table 2), to set beside the simulated
 * frequencies.
 *
 * The model behind them: a cluster at load rho whose every core is busy
 * with probability rho, independently of every other core; a job of m
 * tasks sees no wait when each task is placed on an idle core.
 *
 *  - random placement: each task lands on a random machine of t cores,
 *    which has an idle core unless all t are busy:
 *        (1 - rho^t)^m
 *  - per-task sampling: task i probes d_i machines and waits only if all
 *    their cores are busy:
 *        prod_i (1 - rho^(d_i t))          ((1 - rho^(d t))^m for whole d)
 *  - batch sampling: the job probes n = ceil(d m) machines and places
 *    one task on each of the m least loaded; it sees no wait when at
 *    least m of them have an idle core:
 *        P[Binomial(n, 1 - rho^t) >= m]
 *
 * With t = 1 these are exact in the limit of many machines (a machine is
 * busy with probability rho by the utilisation law, and probes of
 * distinct machines become independent). With t > 1 the cores of one
 * machine share its queue, so they are not independent: for random
 * placement with Poisson arrivals and exponential tasks a machine is an
 * M/M/t queue, all of whose cores are busy with the Erlang C probability
 * C(t, t rho), which exceeds rho^t; sim_theory_random_mmc gives that
 * corrected form.
 */
#ifndef SIM_THEORY_H
#define SIM_THEORY_H

#include <stdint.h>

/* (1 - rho^t)^m. */
double sim_theory_random(double rho, uint32_t m, uint32_t t);

/* prod over the m tasks of (1 - rho^(d_i t)), the ceil(d m) probes
 * spread as evenly as possible (d_i = floor or ceil of d). */
double sim_theory_pertask(double rho, uint32_t m, double d, uint32_t t);

/* P[Binomial(ceil(d m), 1 - rho^t) >= m], summed in log space (exact to
 * double precision for any size). */
double sim_theory_batch(double rho, uint32_t m, double d, uint32_t t);

/* The Erlang C probability that an M/M/c queue with offered load a
 * (erlangs, a < c) makes an arrival wait. */
double sim_theory_erlang_c(uint32_t c, double a);

/* (1 - C(t, t rho))^m: random placement on M/M/t machines. */
double sim_theory_random_mmc(double rho, uint32_t m, uint32_t t);

/* The probes ceil(d m), without rounding error adding one. */
uint64_t sim_theory_probes(double d, uint32_t m);

#endif /* SIM_THEORY_H */
