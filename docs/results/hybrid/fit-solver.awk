# fit-solver.awk - the work model's rates for one solver (docs/results/
# hybrid.md, "The solve-time model"): over the rows of rounds CSVs
# (skylark-sim --rounds-out, --solve-time measured) whose algorithm is
# ALG, a least-squares fit of
#     cpu_us * 1000 - 7 * graph_arcs = a * graph_arcs + b * work
# (ns; work = iterations - relax_iterations, 7 ns/arc being relaxation's
# own rate, which every solve pays), and how well it predicts each round.
# Usage: awk -F, -v ALG=ssp -f fit-solver.awk rounds-ssp-*.csv
FNR == 1 { next }
$6 == ALG {
    x = $5; w = $7 - $11; y = $9 * 1000 - 7 * x
    n++; X[n] = x; W[n] = w; Y[n] = y
    s11 += x * x; s12 += x * w; s22 += w * w; t1 += x * y; t2 += w * y
}
END {
    det = s11 * s22 - s12 * s12
    a = (t1 * s22 - t2 * s12) / det; b = (s11 * t2 - s12 * t1) / det
    for (i = 1; i <= n; i++) {
        p = 7 * X[i] + a * X[i] + b * W[i]; q = Y[i] + 7 * X[i]
        e[i] = p / q - 1; if (e[i] < 0) e[i] = -e[i]
        sp += p; sq += q
    }
    # insertion sort: a few hundred rounds
    for (i = 2; i <= n; i++) {
        v = e[i]
        for (j = i - 1; j >= 1 && e[j] > v; j--) e[j + 1] = e[j]
        e[j + 1] = v
    }
    printf "%s: %d rounds, %.2f ns/arc + %.2f ns/unit; predicted/CPU %.3f " \
        "(%.2f s); error p50 %.0f%%, p90 %.0f%%\n", ALG, n, a, b, sp / sq,
        sq / 1e9, 100 * e[int(n / 2) + 1], 100 * e[int(n * 0.9) + 1]
}
