#!/usr/bin/env bash
# docs/results/hybrid-runs.sh - rerun the simulations behind
# docs/results/hybrid.md: the Google trace (a prefix of it, see there)
# with long and short jobs under each mix of skylark-sim (--mix), at 1x
# on 12,500 machines and at higher load on 8,000 and 5,000.
#
# usage: docs/results/hybrid-runs.sh BUILD_DIR [PART...]
#   PART: trace-12500 trace-8000 trace-5000 calibrate (default: the three
#   trace parts). Results go to docs/results/hybrid/ (summary CSVs, the
#   summaries as text, /usr/bin/time -v of each run). With the default
#   --solve-time work everything is seeded: the same build gives the same
#   numbers.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [PART...]}
shift
parts=${*:-trace-12500 trace-8000 trace-5000}
top=$(cd "$(dirname "$0")/../.." && pwd)
sim="$build/sim/skylark-sim"
t2j="$build/sim/skylark-trace2jobs"
out="$top/docs/results/hybrid"
mkdir -p "$out"
data=${SHARED_DATA_DIR:-$top/../shared/data}
# The prefix: jobs arriving in the first PREFIX_US of virtual time (300x:
# 10 s is the trace's first 50 minutes).
prefix_us=${PREFIX_US:-10000000}
jobs="$out/google-300x-prefix.jobs"
if [ ! -s "$jobs" ]; then
    "$t2j" --speedup 300 -o "$out/google-300x.jobs" "$data/google-2011" \
        2> "$out/trace2jobs.txt"
    awk -F, -v lim="$prefix_us" '/^#/ || /^arrival/ { print; next }
        $1 < lim { print }' "$out/google-300x.jobs" > "$jobs"
    rm -f "$out/google-300x.jobs"
fi
mixes=${MIXES:-skip sampling hawk hybrid flow}
run() { nice -n 10 "$@"; }

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
    calibrate)
        # The solve-time model (sim/sim_flow.h): measured solves, one
        # row per round, relaxation.
        run "$sim" --nodes 12500 --slots 16 --jobs-file "$jobs" \
            --mix hybrid --solve-time measured --flow-algorithm relax \
            --rounds-out "$out/rounds-relax.csv" --no-progress \
            > "$out/calibrate.txt"
        ;;
    *)
        echo "$0: unknown part $part" >&2
        exit 2
        ;;
    esac
done
