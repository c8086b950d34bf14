/*
 * test_sim_theory.c - Sparrow's Table 2: the closed forms for the
 * probability that a job sees no wait, checked against known values, and
 * the simulated frequencies of random placement, per-task sampling and
 * batch sampling checked against them at low load.
 *
 * The closed forms assume every core busy independently with probability
 * rho and placement on current information. The simulations match that
 * as closely as a finite cluster can: no network delay (probes see the
 * state the placement meets), 10,000 single-slot nodes and 4-task jobs,
 * so that the finite-size effects the forms ignore stay far below the
 * sampling error: two tasks of one job probing the same node (about
 * m^2 d^2 / 2N = 0.003 per job) and the fluctuation of the busy fraction
 * (a bias of about C(m,2) (1-rho)^(m-2) var(busy fraction) < 0.001).
 * The bound is 4 standard errors of a binomial frequency over the n
 * measured jobs, 4 sqrt(p (1 - p) / n) (about 0.014 at p = 0.4 and n =
 * 20,000): a deterministic run (fixed seed) inside it.
 *
 * With 4-slot nodes the independence assumption fails: a node is an
 * M/M/4 queue under random placement, all four slots busy with the
 * Erlang C probability rather than rho^4. The simulation must agree with
 * that corrected form, and not with the independent one.
 */
#include "sim.h"
#include "sim_report.h"
#include "sim_theory.h"
#include "sk_log.h"
#include "tap.h"

#include <math.h>
#include <string.h>

static void test_closed_forms(void)
{
    double rho = 0.3;
    tap_ok(fabs(sim_theory_random(rho, 10, 1) - pow(0.7, 10)) < 1e-12,
           "random, one core: (1 - rho)^m");
    tap_ok(fabs(sim_theory_pertask(rho, 10, 1, 1) -
                sim_theory_random(rho, 10, 1)) < 1e-12 &&
               fabs(sim_theory_pertask(rho, 10, 2, 1) -
                    pow(1 - rho * rho, 10)) < 1e-12,
           "per-task: d = 1 is random placement; d = 2 is (1 - rho^2)^m");
    tap_ok(fabs(sim_theory_batch(rho, 10, 1, 1) - pow(0.7, 10)) < 1e-12,
           "batch with d = 1 needs all m probed cores idle: (1 - rho)^m");
    /* P[Bin(4, 0.7) >= 2] = 1 - 0.3^4 - 4 * 0.7 * 0.3^3 = 0.9163 */
    tap_ok(fabs(sim_theory_batch(rho, 2, 2, 1) - 0.9163) < 1e-12,
           "batch, m = 2, d = 2: P[Binomial(4, 0.7) >= 2] = 0.9163");
    tap_ok(fabs(sim_theory_pertask(rho, 2, 1.5, 1) -
                (1 - rho) * (1 - rho * rho)) < 1e-12,
           "per-task with d = 1.5: one task probes 2, the other 1");
    tap_ok(fabs(sim_theory_erlang_c(1, 0.5) - 0.5) < 1e-12 &&
               fabs(sim_theory_erlang_c(2, 1.0) - 1.0 / 3) < 1e-12,
           "Erlang C: M/M/1 waits with probability rho; C(2, 1) = 1/3");
    /* 1000 machines, each with an idle core w.p. 1 - 0.5^4 = 0.9375:
     * the mean is 937.5, far above 500. */
    double big = sim_theory_batch(0.5, 500, 2, 4);
    tap_ok(big > 0.999999 && big <= 1,
           "batch at 500 tasks, 1000 probed 4-core machines: summed without "
           "overflow (%.9f)",
           big);
    /* Two 2-core machines for one task: P[at least one has an idle
     * core] = 1 - (rho^2)^2. */
    tap_ok(fabs(sim_theory_batch(rho, 1, 2, 2) - (1 - pow(rho, 4))) < 1e-12,
           "batch, one task, two probed 2-core machines: 1 - rho^4");
}

/* zero_wait simulates 20,000 measured jobs and returns their no-wait
 * frequency. */
static double zero_wait(sim_strategy_id s, uint32_t slots, double rho,
                        uint32_t m, uint64_t *n)
{
    static sim_names names;
    memset(&names, 0, sizeof names);
    sim_params p;
    sim_params_init(&p);
    p.p_nodes = 10000;
    p.p_slots = slots;
    p.p_strategy = s;
    p.p_ratio = 2;
    p.p_delay = 0;
    p.p_gen.g_load = rho;
    p.p_gen.g_tasks = m;
    p.p_gen.g_slots = (uint64_t)p.p_nodes * slots;
    p.p_gen.g_nodes = p.p_nodes;
    p.p_jobs = 20000;
    p.p_warmup = sim_default_warmup(&p);
    p.p_seed = 3;
    sim_result r;
    bool bad;
    char err[512];
    if (sim_run(&p, &names, NULL, &r, &bad, err, sizeof err) != 0)
        tap_bail_out("run failed: %s", err);
    *n = r.r_st.st_measured_done;
    double f = (double)r.r_st.st_measured_zero / (double)*n;
    sim_stats_fini(&r.r_st);
    return f;
}

static void check(sim_strategy_id s, uint32_t slots, double rho, uint32_t m,
                  double want, const char *form)
{
    uint64_t n;
    double got = zero_wait(s, slots, rho, m, &n);
    double bound = 4 * sqrt(want * (1 - want) / (double)n);
    tap_ok(fabs(got - want) <= bound,
           "%s, %u slot(s), load %g, %u tasks: no wait for %.4f of %llu jobs; "
           "%s %.4f +- %.4f",
           sim_strategy_get(s)->ss_name, slots, rho, m, got,
           (unsigned long long)n, form, want, bound);
}

int main(void)
{
    tap_timeout(60);
    tap_plan(8 + 6 + 2);
    sk_log_set_level(SK_LOG_ERROR);
    test_closed_forms();
    static const double loads[] = {0.2, 0.4};
    for (int i = 0; i < 2; i++) {
        double rho = loads[i];
        check(SIM_RANDOM, 1, rho, 4, sim_theory_random(rho, 4, 1),
              "closed form");
        check(SIM_PERTASK, 1, rho, 4, sim_theory_pertask(rho, 4, 2, 1),
              "closed form");
        check(SIM_BATCH, 1, rho, 4, sim_theory_batch(rho, 4, 2, 1),
              "closed form");
    }
    check(SIM_RANDOM, 4, 0.5, 4, sim_theory_random_mmc(0.5, 4, 4),
          "M/M/4 (Erlang C) form");
    uint64_t n;
    double got = zero_wait(SIM_RANDOM, 4, 0.5, 4, &n);
    double indep = sim_theory_random(0.5, 4, 4);
    tap_ok(fabs(got - indep) > 10 * sqrt(indep * (1 - indep) / (double)n),
           "random, 4 slots: far from the independent-cores form %.4f "
           "(simulated %.4f)",
           indep, got);
    return tap_exit_status();
}
