#!/usr/bin/env bash
# docs/results/sparrow-runs.sh - rerun the simulations behind
# docs/results/sparrow.md: Table 2, Figures 5, 6 and 7, the headline
# claims, the Google trace replay and the scale benchmark.
#
# usage: docs/results/sparrow-runs.sh BUILD_DIR [PART...]
#   PART: table2 fig5 fig6 fig7 headline trace scale (default: all but
#   scale). Results go to docs/results/sparrow/ (summary CSVs, figures,
#   the summaries as text). Everything is seeded: the same build gives the
#   same numbers. About 7 minutes of CPU for all but scale, which alone
#   takes 5 (100,000 jobs through the real cores) on a 2-core machine.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [PART...]}
shift
parts=${*:-table2 fig5 fig6 fig7 headline trace}
top=$(cd "$(dirname "$0")/../.." && pwd)
sim="$build/sim/skylark-sim"
t2j="$build/sim/skylark-trace2jobs"
out="$top/docs/results/sparrow"
mkdir -p "$out"
data=${SHARED_DATA_DIR:-$top/../shared/data}

# The cluster of Sparrow's Figures 5 and 6 as we run it: 10,000 nodes of
# 4 slots, 500-task jobs of 100 ms mean, one scheduler, a fixed 0.5 ms
# one-way delay. One user, so the node monitors track few users.
big=(--nodes 10000 --slots 4 --tasks 500 --task-mean 100ms
     --set nodemon.max_users=16 --no-progress)
run() { nice -n 10 "$sim" "$@"; }

for part in $parts; do
    case $part in
    table2)
        # Zero-wait frequencies: 10,000 nodes, 10-task jobs, d = 2; no
        # delay (the closed forms' instant information), then 0.5 ms.
        for slots in 1 4; do
            for delay in 0 0.5ms; do
                run --strategy random,per-task,batch --nodes 10000 \
                    --slots $slots --tasks 10 --probe-ratio 2 \
                    --load 0.1,0.3,0.5,0.7,0.9 --delay $delay --jobs 20000 \
                    --no-progress --quiet \
                    --summary-csv "$out/table2-t$slots-d$delay.csv"
            done
        done
        ;;
    fig5)
        run "${big[@]}" --strategy late-binding,omniscient --dist exp \
            --probe-ratio 1,1.1,1.2,1.5,2,3 \
            --load 0.1,0.3,0.5,0.7,0.8,0.9,0.95 --jobs 300 \
            --summary-csv "$out/fig5.csv" --plot "$out/fig5" \
            --title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" \
            > "$out/fig5.txt"
        ;;
    fig6)
        # One panel per task duration distribution, as in the paper.
        for dist in const exp pareto; do
            run "${big[@]}" --strategy random,per-task,batch,late-binding,omniscient \
                --dist $dist --probe-ratio 2 \
                --load 0.1,0.3,0.5,0.7,0.8,0.9 --jobs 300 \
                --summary-csv "$out/fig6-$dist.csv" --plot "$out/fig6-$dist" \
                --title "Figure 6 ($dist tasks): techniques, 10,000 x 4 slots, 500-task jobs, d = 2" \
                > "$out/fig6-$dist.txt"
        done
        ;;
    fig7)
        run --total-slots 40000 --slots 1,2,4,8 --tasks 500 \
            --task-mean 100ms --set nodemon.max_users=16 --no-progress \
            --strategy late-binding,batch,omniscient --dist exp \
            --probe-ratio 2 --load 0.5,0.7,0.8,0.9 --jobs 300 \
            --summary-csv "$out/fig7.csv" --plot "$out/fig7" \
            --title "Figure 7: slots per node at 40,000 slots, 500-task jobs, exp 100 ms, d = 2" \
            > "$out/fig7.txt"
        ;;
    headline)
        # Exponential tasks (the paper's setting) and constant ones (where
        # a job's time is not its longest task's luck).
        for dist in exp const; do
            for seed in 1 2 3; do
                run "${big[@]}" --strategy late-binding,omniscient \
                    --dist $dist --probe-ratio 2 \
                    --load 0.2,0.4,0.6,0.8,0.9,0.95 --jobs 1000 --seed $seed \
                    --summary-csv "$out/headline-$dist-s$seed.csv" \
                    > "$out/headline-$dist-s$seed.txt"
            done
        done
        ;;
    trace)
        "$t2j" --speedup 300 -o "$out/google-300x.jobs" "$data/google-2011" \
            2> "$out/trace2jobs.txt"
        for slots in 1 4; do
            run --strategy late-binding,omniscient --nodes 12500 \
                --slots $slots --jobs-file "$out/google-300x.jobs" \
                --no-progress --summary-csv "$out/trace-t$slots.csv" \
                > "$out/trace-t$slots.txt"
        done
        rm -f "$out/google-300x.jobs"
        ;;
    scale)
        for s in omniscient random batch late-binding; do
            /usr/bin/time -v "$sim" "${big[@]}" --strategy $s --load 0.8 \
                --jobs 100000 --warmup 0 --summary-csv "$out/scale-$s.csv" \
                > "$out/scale-$s.txt" 2> "$out/scale-$s.time"
        done
        ;;
    *)
        echo "$0: unknown part $part" >&2
        exit 2
        ;;
    esac
done
