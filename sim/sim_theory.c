/*
 * sim_theory.c - the zero-wait closed forms (see sim_theory.h).
 */
#include "sim_theory.h"

#include <math.h>

uint64_t sim_theory_probes(double d, uint32_t m)
{
    double want = d * (double)m;
    return (uint64_t)ceil(want - want * 1e-12);
}

double sim_theory_random(double rho, uint32_t m, uint32_t t)
{
    return pow(1 - pow(rho, t), m);
}

double sim_theory_pertask(double rho, uint32_t m, double d, uint32_t t)
{
    uint64_t total = sim_theory_probes(d, m);
    uint64_t each = total / m, extra = total % m;
    double p_lo = 1 - pow(rho, (double)(each * t));
    double p_hi = 1 - pow(rho, (double)((each + 1) * t));
    return pow(p_lo, (double)(m - extra)) * pow(p_hi, (double)extra);
}

double sim_theory_batch(double rho, uint32_t m, double d, uint32_t t)
{
    uint64_t n = sim_theory_probes(d, m);
    if (n < m)
        return 0;
    if (rho <= 0)
        return 1;
    if (rho >= 1)
        return 0;
    /* A machine has an idle core unless all t are busy. */
    double busy = pow(rho, t);
    double lp = log1p(-busy), lq = log(busy), sum = 0;
    double ln = lgamma((double)n + 1);
    for (uint64_t i = m; i <= n; i++) {
        double term = ln - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
                      (double)i * lp + (double)(n - i) * lq;
        sum += exp(term);
    }
    return sum > 1 ? 1 : sum;
}

double sim_theory_erlang_c(uint32_t c, double a)
{
    if (a <= 0)
        return 0;
    if (a >= c)
        return 1;
    /* Erlang B by its recurrence, then C from B. */
    double b = 1;
    for (uint32_t k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    double rho = a / c;
    return b / (1 - rho + rho * b);
}

double sim_theory_random_mmc(double rho, uint32_t m, uint32_t t)
{
    return pow(1 - sim_theory_erlang_c(t, rho * t), m);
}
