#!/usr/bin/env bash
# docs/results/hybrid-runs.sh - rerun the simulations behind
# docs/results/hybrid.md: the Google trace (a prefix of it, see there)
# with long and short jobs under each mix of skylark-sim (--mix), at 1x
# on 12,500 machines and at higher load on 8,000 and 5,000.
#
# usage: docs/results/hybrid-runs.sh BUILD_DIR [PART...]
#   PART: trace-12500 trace-8000 trace-5000 calibrate figures whole scale
#         quincy quincy-cond hawk-detail whole-N (the whole trace on N machines) scale-figure
#         policy-N (spread, multires on the prefix) speed10 (the trace at 10x)
#         saturated (the hybrid with probe_saturated off)
#         kinds (relaxation's CPU per round against its work by kind)
#         lose (short jobs only and long jobs only: where the hybrid should lose)
#         budget (the hybrid and pure flow with relax_budget 256 at high load)
#   (default: the three trace parts and the figures; whole replays the
#   whole trace on 12,500 machines with the mixes in $WHOLE_MIXES). Results go to docs/results/hybrid/ (summary CSVs, the
#   summaries as text, /usr/bin/time -v of each run). With the default
#   --solve-time work everything is seeded: the same build gives the same
#   numbers.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [PART...]}
shift
parts=${*:-trace-12500 trace-8000 trace-5000 figures}
top=$(cd "$(dirname "$0")/../.." && pwd)
sim="$build/sim/skylark-sim"
t2j="$build/sim/skylark-trace2jobs"
out="$top/docs/results/hybrid"
mkdir -p "$out"
data=${SHARED_DATA_DIR:-$top/../shared/data}
# The prefix: jobs arriving in the first PREFIX_US of virtual time (300x:
# 20 s is the first 100 minutes of the trace).
prefix_us=${PREFIX_US:-20000000}
jobs="$out/google-300x-prefix.jobs"
whole="$out/google-300x.jobs"
if [ ! -s "$jobs" ] || [ ! -s "$whole" ]; then
    "$t2j" --speedup 300 -o "$whole" "$data/google-2011" \
        2> "$out/trace2jobs.txt"
    awk -F, -v lim="$prefix_us" '/^#/ || /^arrival/ { print; next }
        $1 < lim { print }' "$whole" > "$jobs"
fi
mixes=${MIXES:-skip sampling hawk hybrid flow}
run() { nice -n 10 "$@"; }
# quincy_jobs NODES LOAD SEED HOT: the quincy workload's job file (the
# quincy part says what it holds); the inputs' replicas only in the
# first HOT racks of 40 nodes (HOT = NODES / 40: everywhere).
quincy_jobs() {
    awk -v n="$1" -v load="$2" -v seed="$3" -v hot="$4" \
        -v njobs="${QJOBS:-300}" 'BEGIN {
        srand(seed); racks = int(n / 40); if (hot > racks) hot = racks
        rate = load * n * 4 / (44.8 * 10e6); t = 0
        for (i = 1; i <= njobs; i++) {
            t += -log(1 - rand()) / rate; u = rand()
            m = u < 0.4 ? 4 : u < 0.7 ? 16 : u < 0.9 ? 64 : 256
            pref = ""
            for (k = 0; k < m; k++) {
                a = int(rand() * hot)
                b = (a + 1 + int(rand() * (hot - 1))) % hot
                x = a * 40 + int(rand() * 40)
                y = b * 40 + int(rand() * 40)
                do z = b * 40 + int(rand() * 40); while (z == y)
                pref = pref (k ? ";" : "") x " " y " " z
            }
            printf "%d,%d,u%d,0,short,%d,exp:10000000,,%s\n",
                t, i, i, m, pref } }'
}
# quincy_run JOBS NODES REMOTE SEED MIX:VARIANT BASE: one run (variant
# locality or quincy: with preferences; nopref: --hide-prefs; fair:
# quincy with fair shares; fairpre: and preemption) and its line of
# quincy_metrics.py on stdout.
quincy_run() {
    local mix=${5%%:*} variant=${5#*:} extra=
    case $variant in
    nopref) extra=--hide-prefs ;;
    fair) extra=--flow-fair ;;
    fairpre) extra="--flow-fair --flow-preemption" ;;
    esac
    run /usr/bin/time -v "$sim" --nodes "$2" --slots 4 --rack-size 40 \
        --remote-read "$3" --seed "$4" $extra --jobs-file "$1" --mix "$mix" \
        --drain --no-progress --tasks-out "$6.tasks" --jobs-out "$6.jobsout" \
        > "$6.txt" 2> "$6.time"
    python3 "$out/quincy_metrics.py" "$1" "$6.tasks" "$6.jobsout" 40 \
        $(($2 * 4)) "$mix-$variant"
    rm -f "$6.tasks" "$6.jobsout"
}

for part in $parts; do
    case $part in
    trace-*)
        nodes=${part#trace-}
        for mix in $mixes; do
            run /usr/bin/time -v "$sim" --nodes "$nodes" --slots 16 \
                --jobs-file "$jobs" --mix "$mix" --no-progress \
                --summary-csv "$out/$part-$mix.csv" \
                > "$out/$part-$mix.txt" 2> "$out/$part-$mix.time"
        done
        ;;
    figures)
        # One table of every run (summary.dat), and clustered bars per
        # cluster size: short-job response p50/p90/p99, long-job
        # placement p50/p99, probes behind long tasks.
        awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { printf "%s %s %s %s %s %s %s %s %s %s %s\n", $c["nodes"],
              $c["mix"], $c["resp_p50_ms"], $c["resp_p90_ms"],
              $c["resp_p99_ms"], $c["long_wait_p50_ms"],
              $c["long_wait_p99_ms"], $c["behind_long"],
              $c["utilisation"], $c["rejected"], $c["measured_jobs"] }' \
            "$out"/trace-*-*.csv | sort -k1,1nr -k2,2 > "$out/summary.dat"
        for n in $(cut -d' ' -f1 "$out/summary.dat" | sort -u); do
            grep "^$n " "$out/summary.dat" > "$out/summary-$n.dat"
            cat > "$out/fig-$n.gp" <<GP
set terminal pngcairo size 1000,420 font ",10"
set output "fig-$n.png"
set multiplot layout 1,3 title "Google trace (first 100 min, 300x), $n machines x 16 slots"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set key top left
set xtics rotate by -30
set title "short jobs: response (ms)"
plot "summary-$n.dat" using 3:xtic(2) title "p50", "" using 4 title "p90", "" using 5 title "p99"
set title "long tasks: placement latency (ms)"
plot "summary-$n.dat" using (\$6 > 0 ? \$6 : 1/0):xtic(2) title "p50", "" using (\$7 > 0 ? \$7 : 1/0) title "p99"
set title "probes behind long tasks"
unset logscale y
plot "summary-$n.dat" using 8:xtic(2) title "probes" lc rgb "#aa3333"
unset multiplot
GP
            (cd "$out" && gnuplot "fig-$n.gp")
        done
        ;;
    whole|whole-*)
        # The whole trace, on 12,500 machines (whole) or N (whole-N); a
        # run is stopped after RUN_LIMIT seconds (default 1,200).
        nodes=12500
        [ "$part" != whole ] && nodes=${part#whole-}
        for mix in ${WHOLE_MIXES:-sampling hybrid}; do
            run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" "$sim" \
                --nodes "$nodes" --slots 16 \
                --jobs-file "$whole" --mix "$mix" --no-progress \
                --summary-csv "$out/whole-$nodes-$mix.csv" \
                > "$out/whole-$nodes-$mix.txt" \
                2> "$out/whole-$nodes-$mix.time" || true
        done
        ;;
    scale)
        # Firmament-like: the flow node's round time against cluster size
        # and load, per algorithm, measured. Long jobs only (10 tasks of
        # exp 10 s, Poisson at LOAD of the slots), every job by flow.
        # SCALE_NODES and SCALE_LOADS choose the points (an offered load
        # above 1 is the overloaded cluster, where relaxation slows down).
        for nodes in ${SCALE_NODES:-1000 4000 12500}; do
            for load in ${SCALE_LOADS:-0.5 0.95}; do
                lj="$out/scale-$nodes-$load.jobs"
                awk -v n="$nodes" -v load="$load" 'BEGIN {
                    srand(1); rate = load * n * 4 / (10 * 10e6); t = 0
                    for (i = 1; i <= n * 0.8; i++) {
                        t += -log(1 - rand()) / rate
                        printf "%d,%d,u%d,0,long,10,exp:10000000,,\n",
                            t, i, i % 4 } }' > "$lj"
                for alg in relax cost-scaling race; do
                    run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" \
                        "$sim" --nodes "$nodes" --slots 4 --jobs-file "$lj" \
                        --mix flow --solve-time measured --flow-algorithm $alg \
                        --drain --no-progress \
                        --rounds-out "$out/scale-$nodes-$load-$alg.rounds" \
                        > "$out/scale-$nodes-$load-$alg.txt" \
                        2> "$out/scale-$nodes-$load-$alg.time" || true
                done
                rm -f "$lj"
            done
        done
        ;;
    saturated)
        # probe_saturated ("Probing saturated nodes"): the hybrid with it
        # off, on the prefix and the whole trace at 8,000 and 5,000
        # machines (the trace-N and whole-N parts have it on, the
        # default); a whole-trace run is stopped after RUN_LIMIT seconds.
        for nodes in 8000 5000; do
            for set in "prefix $jobs" "whole $whole"; do
                b="$out/saturated-${set%% *}-$nodes-off"
                run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" "$sim" \
                    --nodes "$nodes" --slots 16 --jobs-file "${set#* }" \
                    --mix hybrid --no-progress \
                    --set sched.probe_saturated=no --summary-csv "$b.csv" \
                    > "$b.txt" 2> "$b.time" || true
            done
        done
        ;;
    lose)
        # Where the hybrid should lose: 1,000 machines x 4 slots. Short
        # jobs only (the generator, load 0.8, 5,000 measured jobs) alone
        # and under the hybrid; long jobs only (LOSE_JOBS jobs of 10
        # tasks of exp 10 s, Poisson at each load of LOSE_LOADS of the
        # slots, drained) under the hybrid and pure flow.
        for mix in skip hybrid; do
            b="$out/lose-short-$mix"
            run /usr/bin/time -v "$sim" --nodes 1000 --slots 4 --load 0.8 \
                --jobs 5000 --mix "$mix" --no-progress \
                --summary-csv "$b.csv" > "$b.txt" 2> "$b.time"
        done
        for load in ${LOSE_LOADS:-0.5 0.9}; do
            lj="$out/lose-long-$load.jobs"
            awk -v load="$load" -v njobs="${LOSE_JOBS:-3000}" 'BEGIN {
                srand(1); rate = load * 4000 / (10 * 10e6); t = 0
                for (i = 1; i <= njobs; i++) {
                    t += -log(1 - rand()) / rate
                    printf "%d,%d,u%d,0,long,10,exp:10000000,,\n",
                        t, i, i % 4 } }' > "$lj"
            for mix in hybrid flow; do
                b="$out/lose-long-$load-$mix"
                run /usr/bin/time -v "$sim" --nodes 1000 --slots 4 \
                    --jobs-file "$lj" --mix "$mix" --drain --no-progress \
                    --summary-csv "$b.csv" > "$b.txt" 2> "$b.time"
            done
            rm -f "$lj"
        done
        ;;
    budget)
        # The relaxation budget ("The relaxation budget"): the hybrid with
        # relax_budget BUDGET (default 256) on the prefix at 5,000 machines
        # and the whole trace at 8,000 and 5,000, then pure flow on the
        # whole trace at 5,000 (without it: the trace-N and whole-N parts).
        bud=${BUDGET:-256}
        for set in "prefix-5000 $jobs hybrid" "whole-8000 $whole hybrid" \
            "whole-5000 $whole hybrid" "whole-5000 $whole flow"; do
            set -- $set
            b="$out/budget$bud-$1"
            [ "$3" = flow ] && b="$b-flow"
            run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" "$sim" \
                --nodes "${1#*-}" --slots 16 --jobs-file "$2" \
                --mix "$3" --relax-budget "$bud" --no-progress \
                --summary-csv "$b.csv" > "$b.txt" 2> "$b.time" || true
        done
        ;;
    policy-*)
        # The flow node's policies on the prefix, N machines: mixes
        # $POLICY_MIXES (default hybrid) under spread and multires (quincy
        # is the trace-N part's), and spread with the relaxation budget
        # (without it relaxation does not finish the burst round).
        nodes=${part#policy-}
        for pol in spread multires spread-b128; do
            extra=
            [ "$pol" = spread-b128 ] && extra="--relax-budget 128"
            for mix in ${POLICY_MIXES:-hybrid}; do
                b="$out/policy-$nodes-$mix-$pol"
                run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" "$sim" \
                    --nodes "$nodes" --slots 16 --jobs-file "$jobs" \
                    --mix "$mix" --flow-policy "${pol%-b128}" $extra \
                    --no-progress \
                    --summary-csv "$b.csv" > "$b.txt" 2> "$b.time" || true
            done
        done
        ;;
    speed10)
        # The trace at 10x speed (Firmament's stress test): converted at
        # 3000x instead of 300x (arrivals and durations ten times
        # shorter, the same load, ten times the changes per virtual
        # second; a solve costs what it cost), the same prefix of the
        # trace, 12,500 machines, mixes $SPEED_MIXES.
        j10="$out/google-3000x-prefix.jobs"
        if [ ! -s "$j10" ]; then
            "$t2j" --speedup 3000 -o "$out/google-3000x.jobs" \
                "$data/google-2011" 2> /dev/null
            awk -F, -v lim="$((prefix_us / 10))" \
                '/^#/ || /^arrival/ { print; next } $1 < lim { print }' \
                "$out/google-3000x.jobs" > "$j10"
            rm -f "$out/google-3000x.jobs"
        fi
        for mix in ${SPEED_MIXES:-hybrid flow sampling}; do
            b="$out/speed10-12500-$mix"
            run /usr/bin/time -v timeout "${RUN_LIMIT:-1200}" "$sim" \
                --nodes 12500 --slots 16 --jobs-file "$j10" --mix "$mix" \
                --no-progress --summary-csv "$b.csv" > "$b.txt" \
                2> "$b.time" || true
        done
        ;;
    quincy)
        # Quincy's fairness and locality: QNODES nodes x 4 slots in racks
        # of 40, QJOBS jobs (4, 16, 64 or 256 tasks, 40/30/20/10%) of
        # exp 10 s tasks, Poisson at QLOAD of the slots (compute only);
        # each task's input has 3 replicas, one on a random node of a
        # random rack and two on distinct random nodes of another rack
        # (HDFS's rule), its preferred nodes. A task off them runs 2 s
        # longer in a preferred rack, 10 s across racks (a 256 MB input
        # at 1 Gb/s in the rack, a fifth of that across an
        # oversubscribed core). Each placer with and without seeing the
        # preferences; the flow node also with fair shares, without and
        # with preemption.
        qn=${QNODES:-400}
        rm -f "$out/quincy.dat"
        for qload in ${QLOADS:-0.9 1.2}; do
        qj="$out/quincy-$qn-$qload.jobs"
        quincy_jobs "$qn" "$qload" 7 10 > "$qj"
        for r in flow:quincy flow:nopref flow:fair flow:fairpre \
            greedy:locality greedy:nopref sampling:locality sampling:nopref; do
            printf '%s ' "$qload" >> "$out/quincy.dat"
            quincy_run "$qj" "$qn" 2s:10s 1 "$r" \
                "$out/quincy-$qn-$qload-${r%%:*}-${r#*:}" >> "$out/quincy.dat"
        done
        rm -f "$qj"
        done
        # Figure: cross-rack share, throughput, job response and the
        # unfair share per run.
        cat > "$out/fig-quincy.gp" <<'GP'
set terminal pngcairo size 1400,420 font ",10"
set output "fig-quincy.png"
set multiplot layout 1,4 title "Quincy's experiment: 400 nodes x 4 slots, racks of 40, 300 jobs (load 0.9 | 1.2)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -30
set title "tasks across racks (share, log; none for sampling)"
set logscale y
plot "< awk '$1 == 0.9' quincy.dat" using ($7 > 0 ? $7 : 1/0):xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using ($7 > 0 ? $7 : 1/0) title "load 1.2"
unset logscale y
set yrange [0:*]
set title "throughput (tasks/s)"
plot "< awk '$1 == 0.9' quincy.dat" using 12:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 12 title "load 1.2"
set title "job response p50 (s)"
plot "< awk '$1 == 0.9' quincy.dat" using 8:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 8 title "load 1.2"
set title "unfair share of slots (sum |running - fair| / 2 / slots)"
plot "< awk '$1 == 0.9' quincy.dat" using 13:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 13 title "load 1.2"
unset multiplot
GP
        (cd "$out" && gnuplot fig-quincy.gp)
        ;;
    quincy-cond)
        # Where Quincy's gain over greedy grows: the quincy workload
        # under conditions QCONDS, each "load:remote:hot" (hot: the racks
        # holding every input, 10 = all), seeds QSEEDS (job file and
        # simulator), placers QRUNS. One line per run in quincy-cond.dat:
        # seed load remote hot, then quincy_metrics.py's fields
        # (QCOND_APPEND=1: added to the file's rows, else replacing them).
        qn=${QNODES:-400}
        [ -n "${QCOND_APPEND:-}" ] || : > "$out/quincy-cond.dat"
        for cond in ${QCONDS:-0.9:2s:10s:10 0.9:10s:60s:10 0.6:2s:10s:3 0.6:10s:60s:3}; do
            qload=${cond%%:*}; rest=${cond#*:}
            remote=${rest%:*}; hot=${rest##*:}
            for seed in ${QSEEDS:-1 2 3}; do
                qj="$out/quincy-cond.jobs"
                quincy_jobs "$qn" "$qload" $((6 + seed)) "$hot" > "$qj"
                for r in ${QRUNS:-flow:quincy flow:fair greedy:locality \
                    flow:nopref}; do
                    printf '%s %s %s %s ' "$seed" "$qload" "$remote" "$hot" \
                        >> "$out/quincy-cond.dat"
                    quincy_run "$qj" "$qn" "$remote" "$seed" "$r" \
                        "$out/quincy-cond-run" >> "$out/quincy-cond.dat"
                done
                rm -f "$qj" "$out/quincy-cond-run".{txt,time}
            done
        done
        ;;
    hawk-detail)
        # Why the Hawk-like split misses Hawk's short-job numbers: the
        # prefix on HNODES machines under sampling and hawk (and the
        # hybrid on HHYBRID sizes), every short job's response and every
        # task's wait and node kept, broken down by hawk_metrics.py into
        # percentiles and by where a short task ran (the short-only
        # partition or a general node). Then hawk with larger short
        # partitions (HPARTS) on 8,000 machines.
        : > "$out/hawk-detail.dat"
        for nodes in ${HNODES:-12500 10000 8000 6500 5000}; do
            for mix in sampling hawk hybrid; do
                [ "$mix" = hybrid ] && case " ${HHYBRID:-8000 5000} " in
                    *" $nodes "*) ;; *) continue ;; esac
                b="$out/hawk-run"
                run /usr/bin/time -v "$sim" --nodes "$nodes" --slots 16 \
                    --jobs-file "$jobs" --mix "$mix" --no-progress \
                    --jobs-out "$b.jobsout" --tasks-out "$b.tasks" \
                    > "$b.txt" 2> "$b.time"
                python3 "$out/hawk_metrics.py" "$b.jobsout" "$b.tasks" \
                    "$b.txt" "$nodes" 0.17 "$mix" >> "$out/hawk-detail.dat"
            done
        done
        for part in ${HPARTS:-0.3 0.5}; do
            b="$out/hawk-run"
            run "$sim" --nodes 8000 --slots 16 --jobs-file "$jobs" --mix hawk \
                --short-partition "$part" --no-progress --jobs-out \
                "$b.jobsout" --tasks-out "$b.tasks" > "$b.txt"
            python3 "$out/hawk_metrics.py" "$b.jobsout" "$b.tasks" "$b.txt" \
                8000 "$part" "hawk-$part" >> "$out/hawk-detail.dat"
        done
        rm -f "$out"/hawk-run.*
        # Figure: short-job response by percentile, per size and mix.
        cat > "$out/fig-hawk.gp" <<'GP'
set terminal pngcairo size 1400,420 font ",10"
set output "fig-hawk.png"
set multiplot layout 1,4 title "Short jobs' response by percentile, trace prefix: sampling, the Hawk-like split (17% short-only), the hybrid"
set logscale y
set grid
set xlabel "percentile"
set ylabel "response (ms)"
set key top left
set xtics ("10" 1, "25" 2, "50" 3, "75" 4, "90" 5, "95" 6, "99" 7)
do for [n in "12500 10000 8000 5000"] {
  set title n." machines x 16 slots"
  plot for [m in "sampling hawk hybrid"] sprintf("< awk '$1 == \"%s\" && $2 == %s { for (i = 5; i <= 11; i++) print i - 4, $i }' hawk-detail.dat", m, n) using 1:2 with linespoints title m
}
unset multiplot
GP
        (cd "$out" && gnuplot fig-hawk.gp)
        ;;
    scale-figure)
        # Firmament's figure from the scale part's rounds: a round's solve
        # (wall, measured) p50 and p99 against the cluster size, per
        # algorithm and load.
        rm -f "$out/scale.dat"
        for f in "$out"/scale-*-*-*.rounds; do
            b=$(basename "$f" .rounds); b=${b#scale-}
            nodes=${b%%-*}; rest=${b#*-}; load=${rest%%-*}; alg=${rest#*-}
            tail -n +2 "$f" | cut -d, -f8 | sort -g | awk -v n="$nodes" \
                -v l="$load" -v a="$alg" '{ v[NR] = $1 } END {
                printf "%s %s %s %s %s %s\n", n, l, a, v[int(NR * 0.5) + 1] / 1000,
                    v[int(NR * 0.99) + 1] / 1000, v[NR] / 1000 }'
        done | sort -k2,2 -k3,3 -k1,1n > "$out/scale.dat"
        cat > "$out/fig-scale.gp" <<'GP'
set terminal pngcairo size 1500,420 font ",10"
set output "fig-scale.png"
LOADS = system("cut -d' ' -f2 scale.dat | sort -u | tr '\\n' ' '")
NL = words(LOADS)
set multiplot layout 1,NL title "Flow node round (solve wall time) against cluster size, long jobs only, 4 slots"
set logscale xy
set xrange [700:20000]
set grid
set xlabel "machines"
set ylabel "solve wall time (ms)"
set key top left
do for [l in LOADS] {
  set title "offered load ".l
  plot for [a in "relax cost-scaling race"] sprintf("< awk '$2 == \"%s\" && $3 == \"%s\"' scale.dat", l, a) using 1:4 with linespoints title a." p50", \
       for [a in "relax cost-scaling race"] sprintf("< awk '$2 == \"%s\" && $3 == \"%s\"' scale.dat", l, a) using 1:5 with linespoints dashtype 2 title a." p99"
}
unset multiplot
GP
        (cd "$out" && gnuplot fig-scale.gp)
        ;;
    calibrate)
        # The solve-time model (sim/sim_flow.h): measured solves, one
        # row per round, relaxation.
        run "$sim" --nodes 12500 --slots 16 --jobs-file "$jobs" \
            --mix hybrid --solve-time measured --flow-algorithm relax \
            --rounds-out "$out/rounds-relax.csv" --no-progress \
            > "$out/calibrate.txt"
        # relaxation's own rates, fitted on the rounds' relative errors
        awk -F, -v ALG=relax -v REL=1 -f "$out/fit-solver.awk" \
            "$out/rounds-relax.csv"
        # ... successive shortest path (what cost scaling hands quincy's
        # networks to) and cost scaling (whose prices fit with preemption
        # on), on the prefix at 12,500 machines and the trace's first 2 s
        # (its over-full burst) at 8,000; fit-solver.awk fits the rates.
        j2="$out/google-300x-2s.jobs"
        awk -F, '/^#/ || /^arrival/ { print; next } $1 < 2000000 { print }' \
            "$whole" > "$j2"
        for alg in ssp cost-scaling; do
            name=ssp extra=
            [ "$alg" = cost-scaling ] && name=cs extra=--flow-preemption
            for nj in "12500 $jobs" "8000 $j2"; do
                set -- $nj
                run "$sim" --nodes "$1" --slots 16 --jobs-file "$2" \
                    --mix hybrid --solve-time measured --flow-algorithm "$alg" \
                    $extra --rounds-out "$out/rounds-$name-$1.csv" \
                    --no-progress > /dev/null
            done
            awk -F, -v ALG="$alg" -f "$out/fit-solver.awk" \
                "$out"/rounds-$name-*.csv
        done
        ;;
    kinds)
        # The work model's kinds of work (hybrid.md, "The solve-time
        # model"): this commit's tree with hybrid/relax-kinds.patch (the
        # rounds CSV gains relaxation's work per round by kind), built in
        # $KINDS_DIR; the three calibration sets, each $KINDS_REPEATS
        # times with the work model (the same rounds every time, so the
        # spread of a round's CPU is the machine's) and once measured.
        kd=${KINDS_DIR:-/tmp/skylark-kinds}
        rm -rf "$kd"
        mkdir -p "$kd/src"
        (cd "$top" && git archive HEAD) | tar -x -C "$kd/src"
        (cd "$kd/src" && patch -p1 < "$out/relax-kinds.patch" &&
            autoreconf -fi && mkdir -p build && cd build &&
            ../configure > /dev/null && run make -j2 sim/skylark-sim) \
            > "$kd/build.log" 2>&1
        j2="$out/google-300x-2s.jobs"
        awk -F, '/^#/ || /^arrival/ { print; next } $1 < 2000000 { print }' \
            "$whole" > "$j2"
        for nj in "12500 $jobs" "5000 $jobs" "8000 $j2"; do
            set -- $nj
            for rep in $(seq "${KINDS_REPEATS:-3}"); do
                run "$kd/src/build/sim/skylark-sim" --nodes "$1" --slots 16 \
                    --jobs-file "$2" --mix hybrid --flow-algorithm relax \
                    --rounds-out "$kd/w-$1-r$rep.csv" --no-progress > /dev/null
            done
            run "$kd/src/build/sim/skylark-sim" --nodes "$1" --slots 16 \
                --jobs-file "$2" --mix hybrid --flow-algorithm relax \
                --solve-time measured --rounds-out "$kd/m-$1.csv" \
                --no-progress > /dev/null
        done
        python3 "$out/fit-kinds.py" fit "$kd"/m-*.csv "$kd"/w-*-r1.csv
        python3 "$out/fit-kinds.py" score 6.7 2.4 16 "$kd"/w-*.csv \
            "$kd"/m-*.csv
        ;;
    *)
        echo "$0: unknown part $part" >&2
        exit 2
        ;;
    esac
done
