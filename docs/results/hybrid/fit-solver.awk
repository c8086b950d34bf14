# fit-solver.awk - the work model's rates for one solver (docs/results/
# hybrid.md, "The solve-time model"): over the rows of rounds CSVs
# (skylark-sim --rounds-out, --solve-time measured) whose algorithm is
# ALG, a least-squares fit of
#     cpu_us * 1000 - 7 * graph_arcs = a * graph_arcs + b * work
# (ns; work = iterations - relax_iterations, 7 ns/arc being relaxation's
# own rate, which every solve pays), and how well it predicts each round.
# ALG=relax fits relaxation's own rates instead:
#     cpu_us * 1000 = a * graph_arcs + b * relax_iterations.
# With -v A=ns -v B=ns it fits nothing and reports how well those rates
# predict (for ALG=relax: A per arc, B per unit of relaxation's work).
# -v REL=1 minimises the rounds' relative errors instead (each row
# weighted by 1 / CPU^2), so that one dear round does not set the rates.
# MIN_CPU_US=N keeps only rounds that took at least N us of CPU (the
# dear, over-full ones).
# Usage: awk -F, -v ALG=ssp -f fit-solver.awk rounds-ssp-*.csv
FNR == 1 { next }
$6 == ALG && $9 >= MIN_CPU_US + 0 {
    x = $5
    if (ALG == "relax") { w = $11; y = $9 * 1000; base = 0 }
    else { w = $7 - $11; y = $9 * 1000 - 7 * x; base = 7 }
    n++; X[n] = x; W[n] = w; Y[n] = y
    k = REL ? 1 / (($9 * 1000) ^ 2 + 1) : 1
    s11 += k * x * x; s12 += k * x * w; s22 += k * w * w
    t1 += k * x * y; t2 += k * w * y
}
END {
    if (n == 0) { printf "%s: no rounds\n", ALG; exit }
    if (A != "" && B != "") {
        a = A; b = B; how = "given"
    } else {
        det = s11 * s22 - s12 * s12
        a = (t1 * s22 - t2 * s12) / det; b = (s11 * t2 - s12 * t1) / det
        how = "fitted"
    }
    for (i = 1; i <= n; i++) {
        p = base * X[i] + a * X[i] + b * W[i]; q = Y[i] + base * X[i]
        r[i] = p / q
        e[i] = p / q - 1; if (e[i] < 0) e[i] = -e[i]
        sp += p; sq += q
    }
    # insertion sort: a few hundred rounds
    for (i = 2; i <= n; i++) {
        v = e[i]; u = r[i]
        for (j = i - 1; j >= 1 && e[j] > v; j--) { e[j + 1] = e[j]; r[j + 1] = r[j] }
        e[j + 1] = v; r[j + 1] = u
    }
    printf "%s: %d rounds, %s %.2f ns/arc + %.2f ns/unit; predicted/CPU %.3f " \
        "(%.2f s); error p50 %.0f%%, p90 %.0f%%, worst %.0f%% " \
        "(predicted/CPU %.3f)\n", ALG, n, how, a, b, sp / sq, sq / 1e9,
        100 * e[int(n / 2) + 1], 100 * e[int(n * 0.9) + 1], 100 * e[n], r[n]
}
