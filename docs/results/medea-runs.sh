#!/usr/bin/env bash
# docs/results/medea-runs.sh - rerun the measurements behind
# docs/results/medea.md: the load sweep of constraint violations with
# skylark-sim and the real flow node, the latency of placing a
# constrained application against the cluster size, and the round time
# of a large constrained job.
#
# usage: docs/results/medea-runs.sh BUILD_DIR [PART...]
#   PART: sweep latency round figures (default: all four); trace (the
#   sweep with the Google trace's short jobs, see trace_short; not in
#   the default: it needs the trace in $SHARED_DATA_DIR); hold (a held
#   application's cost to the loop, bench/medea_round --hold; not in
#   the default)
# Results go to docs/results/medea/. Everything in the sweep is seeded
# (skylark-sim's default --solve-time work): the same build gives the
# same numbers. latency and round are wall-clock benchmarks.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [PART...]}
shift
parts=${*:-sweep latency round figures}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$build" && pwd)
sim="$build/sim/skylark-sim"
out=${OUT:-$top/docs/results/medea} # OUT: elsewhere (e.g. a trial)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { nice -n 10 "$@"; }

# The cluster: NODES x SLOTS, RACKS racks of consecutive nodes.
NODES=${NODES:-200}
SLOTS=${SLOTS:-8}
RACKS=${RACKS:-20}
LOADS=${LOADS:-0.5 0.6 0.7 0.8 0.85 0.9 0.95}
SEEDS=${SEEDS:-1 2 3}
CASES_SET=${CASES:+1}
CASES=${CASES:-intra inter} # sweep: which workloads (when set, rows are
# appended to an existing sweep.csv)
END_US=${END_US:-12000000} # short jobs arrive for 12 s of virtual time
# SIM_ARGS: more skylark-sim options for the sweep and trace runs, e.g.
# "--cx-wait 0" (the flow node without the bounded wait: the "before"
# columns of medea.md)
SIM_ARGS=${SIM_ARGS:-}

# lra CASE SEED: the long-running applications as job-file lines, all
# tasks lasting past the run, arriving uniformly in [2 s, 8 s] (after
# the short jobs have loaded the cluster). Every constraint is soft
# (weight 1), as in MEDEA's integer program: flowd places every task it
# has room for and counts what it breaks.
#  intra: 40 applications, each constrained towards itself only (app/):
#    zk (5 tasks)   zk NOTIN NODE zk
#    hbase (15)     3 zk + 12 hb: zk NOTIN NODE zk, hb IN RACK zk,
#                   hb CARDINALITY NODE hb 0..1 (at most 2 a node)
#    storm (12)     st CARDINALITY NODE st 0..2 (at most 3 a node)
#  inter: 10 applications constrained towards each other (all/):
#    2 zk (8)       zk NOTIN NODE all/zk
#    4 hbase (50)   hb IN RACK all/zk, hb CARDINALITY NODE all/hb 0..2
#    4 storm (50)   st CARDINALITY NODE all/st 0..2, st NOTIN NODE all/hb
lra() {
    awk -v kase="$1" -v seed="$2" 'BEGIN {
        srand(seed); dur = "const:1000000000"
        if (kase == "intra") {
            n = 40
            for (i = 0; i < n; i++) {
                k = i % 3
                if (k == 0) { t = 5; tags = "zk"
                    c = "zk NOTIN NODE zk SOFT" }
                else if (k == 1) { t = 15; tags = "zk;zk;zk"
                    for (q = 0; q < 12; q++) tags = tags ";hb"
                    c = "zk NOTIN NODE zk SOFT:hb IN RACK zk SOFT:" \
                        "hb CARDINALITY NODE hb 0 1 SOFT" }
                else { t = 12; tags = "st"
                    c = "st CARDINALITY NODE st 0 2 SOFT" }
                at[i] = int(2000000 + rand() * 6000000)
                line[i] = t ",const:1000000000,,," tags "," c
            }
        } else {
            n = 10
            for (i = 0; i < n; i++) {
                if (i < 2) { t = 8; tags = "zk"
                    c = "zk NOTIN NODE all/zk SOFT" }
                else if (i < 6) { t = 50; tags = "hb"
                    c = "hb IN RACK all/zk SOFT:" \
                        "hb CARDINALITY NODE all/hb 0 2 SOFT" }
                else { t = 50; tags = "st"
                    c = "st CARDINALITY NODE all/st 0 2 SOFT:" \
                        "st NOTIN NODE all/hb SOFT" }
                # the zk applications come first: the others follow them
                at[i] = i < 2 ? 2000000 + i : int(2000000 + rand() * 6000000)
                line[i] = t ",const:1000000000,,," tags "," c
            }
        }
        for (i = 0; i < n; i++)
            printf "%d,%d,lra%d,0,long,%s\n", at[i], 900000 + i, i, line[i]
    }'
}

# lra_tasks CASE: how many tasks its applications have.
lra_tasks() { lra "$1" 1 | awk -F, '{ s += $6 } END { print s }'; }

# The Google trace (2011) as a skylark-sim job file, 300x faster as in
# docs/results/hybrid-runs.sh (skylark-trace2jobs' default rule for
# short and long), made once and kept out of git; the window: its short
# jobs arriving in [TRACE_START_US, + TRACE_WINDOW_US) of virtual time,
# moved to start at 0. Another start than 0 names the trace part's
# outputs trace-at-Ns (N: the start in seconds of virtual time).
data=${SHARED_DATA_DIR:-$top/../shared/data}
TRACE_START_US=${TRACE_START_US:-0}
TRACE_WINDOW_US=${TRACE_WINDOW_US:-$END_US}
TRACE_SEEDS=${TRACE_SEEDS:-1 2 3 4 5 6 7 8 9 10} # runs are short
tname=trace
[ "$TRACE_START_US" = 0 ] || tname="trace-at-$((TRACE_START_US / 1000000))s"
trace_file() {
    local f="$out/google-300x-$tname.jobs"
    if [ ! -s "$f" ]; then
        run "$build/sim/skylark-trace2jobs" --speedup 300 \
            -o "$tmp/google-300x.jobs" "$data/google-2011" \
            2> "$out/trace2jobs.txt"
        awk -F, -v t0="$TRACE_START_US" -v lim="$TRACE_WINDOW_US" \
            'BEGIN { OFS = "," } /^#/ || /^arrival/ { next }
            $5 == "short" && $1 >= t0 && $1 < t0 + lim {
                $1 -= t0; print }' "$tmp/google-300x.jobs" > "$f"
    fi
    echo "$f"
}

# trace_short FILE LOAD SLOTS SEED: the trace's short jobs of the window
# (FILE: arrival, job, user, priority, class, tasks, one duration per
# task, as trace2jobs writes them) thinned to offer LOAD to SLOTS slots
# over TRACE_WINDOW_US. The window's short jobs offer W (their work,
# the sum of their tasks' durations, cut-short runs at their lower
# bound, over SLOTS x window); each task is kept with probability
# LOAD / W (SEED), a job keeps its arrival, user, priority and the
# durations of the tasks kept, and a job left with none is dropped:
# the trace scaled down to this cluster, jobs narrower in proportion.
# Prints the offered load reached on standard error.
trace_short() {
    awk -F, -v load="$2" -v slots="$3" -v seed="$4" \
        -v win="$TRACE_WINDOW_US" '{
            line[NR] = $0; n = split($7, d, ";")
            for (i = 1; i <= n; i++) work += d[i] + 0 }
        END {
            srand(seed); q = load * slots * win / work; sum = 0
            if (q > 1) { print "trace window too light" > "/dev/stderr"
                exit 1 }
            for (j = 1; j <= NR; j++) {
                split(line[j], f, ","); n = split(f[7], d, ";")
                k = 0; kept = ""
                for (i = 1; i <= n; i++) if (rand() < q) {
                    kept = kept (k++ ? ";" : "") d[i]; sum += d[i] + 0 }
                if (k) printf "%s,%s,%s,%s,%s,%d,%s,,\n", f[1], f[2], f[3],
                    f[4], f[5], k, kept
            }
            printf "%.4f\n", sum / (slots * win) > "/dev/stderr"
        }' "$1"
}

# summarise CASE LOAD SEED SHORT LRA_TASKS RUN: one CSV row from a run's
# summary (the flow node's constraints line; the constrained tasks'
# placement latency, arrival to start, skylark-sim's "long placement":
# mean, p99 and max in ms).
summarise() {
    awk -v k="$1" -v l="$2" -v s="$3" -v ls="$4" -v lt="$5" '
        /^utilisation/ { u = $2 }
        /^long placement/ { pm = $5; p99 = $11; px = $13 }
        /^  constraints/ {
            for (i = 1; i <= NF; i++) {
                if ($i == "waiting") w = $(i + 1)
                if ($i == "checked") p = $(i + 1)
                if ($i == "soft" && $(i + 1) == "broken")
                    b = $(i + 2)
                if ($i == "hard" && $(i + 1) == "broken")
                    h = $(i + 2)
            }
        }
        END {
            gsub(/[;,]/, "", w); gsub(/[;,]/, "", p)
            gsub(/[;,]/, "", h)
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%.2f,%s,%s,%s,%s,%s\n", k, l,
                s, ls, lt, u, p, b, p ? 100 * b / p : 0, w, h, pm, p99, px
        }' "$6"
}

# short_load LOAD LRA_TASKS SLOTS: what the applications leave of the
# offered load for the short jobs (at least 0.01).
short_load() {
    awk -v l="$1" -v t="$2" -v s="$3" \
        'BEGIN { x = l - t / s; printf "%.4f", (x > 0.01 ? x : 0.01) }'
}

# csv_start CSV HEADER: a fresh CSV with its header, unless CASES was
# set and it has rows (then rows are appended).
csv_start() {
    [ -n "${CASES_SET:-}" ] && [ -s "$1" ] || echo "$2" > "$1"
}

# points SEEDS FN: FN CASE LOAD SEED SHORT_LOAD LRA_TASKS for every case
# in $CASES, load in $LOADS and seed in SEEDS.
points() {
    local kase load seed lt ls
    for kase in $CASES; do
        lt=$(lra_tasks "$kase")
        for load in $LOADS; do
            ls=$(short_load "$load" "$lt" "$((NODES * SLOTS))")
            for seed in $1; do "$2" "$kase" "$load" "$seed" "$ls" "$lt"; done
        done
    done
}

# sweep_point CASE LOAD SEED SHORT_LOAD LRA_TASKS: one run of the sweep,
# its row appended to $csv.
sweep_point() {
    local f="$tmp/$1-$2-$3" r="$out/run-$1-$2-$3.txt"
    # 10-task jobs of exponential 100 ms tasks at the short load
    local jobs; jobs=$(awk -v l="$4" -v s="$((NODES * SLOTS))" \
        -v e="$END_US" 'BEGIN { printf "%d", l * s / (10 * 0.1) * e / 1e6 }')
    run "$sim" --nodes "$NODES" --slots "$SLOTS" --load "$4" \
        --tasks 10 --jobs "$jobs" --seed "$3" --generate "$f.short" > /dev/null
    { grep -v '^#\|^arrival' "$f.short"; lra "$1" "$3"; } |
        sort -t, -k1,1n -s > "$f.jobs"
    run "$sim" --nodes "$NODES" --slots "$SLOTS" --racks "$RACKS" \
        --mix flow --jobs-file "$f.jobs" --seed "$3" $SIM_ARGS > "$r"
    summarise "$1" "$2" "$3" "$4" "$5" "$r" >> "$csv"
}

sweep() {
    local csv="$out/sweep.csv"
    csv_start "$csv" "case,load,seed,short_load,lra_tasks,utilisation,pairs,soft_broken,pct,waiting,hard_broken,place_mean_ms,place_p99_ms,place_max_ms"
    points "$SEEDS" sweep_point
    # per (case, load): the mean over the seeds, with min and max
    awk -F, 'NR > 1 { k = $1 "," $2; n[k]++; s[k] += $9; u[k] += $6
            w[k] += $10; pm[k] += $12
            if (!(k in px) || $14 > px[k]) px[k] = $14
            if (!(k in lo) || $9 < lo[k]) lo[k] = $9
            if (!(k in hi) || $9 > hi[k]) hi[k] = $9 }
        END { print "case,load,utilisation,pct_mean,pct_min,pct_max," \
                "waiting_mean,place_mean_ms,place_max_ms"
            for (k in n) printf "%s,%.3f,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f\n",
                k, u[k] / n[k], s[k] / n[k], lo[k], hi[k], w[k] / n[k],
                pm[k] / n[k], px[k] }' \
        "$csv" | sort -t, -k1,1 -k2,2n > "$out/sweep-summary.csv"
}

# trace_point CASE LOAD SEED SHORT_LOAD LRA_TASKS: one run of the trace
# sweep (window $tf), its row appended to $csv.
trace_point() {
    local f="$tmp/$tname-$1-$2-$3" r="$out/$tname-run-$1-$2-$3.txt"
    trace_short "$tf" "$4" "$((NODES * SLOTS))" "$3" \
        > "$f.short" 2> "$f.reached" || { cat "$f.reached" >&2; exit 1; }
    { cat "$f.short"; lra "$1" "$3"; } | sort -t, -k1,1n -s > "$f.jobs"
    run "$sim" --nodes "$NODES" --slots "$SLOTS" --racks "$RACKS" \
        --mix flow --jobs-file "$f.jobs" --seed "$3" $SIM_ARGS > "$r"
    summarise "$1" "$2" "$3" "$4,$(cat "$f.reached")" "$5" "$r" >> "$csv"
}

# trace: the sweep with the trace's short jobs instead of synthetic ones
# (the same applications, cluster and loads) into $tname-sweep.csv, with
# the short jobs' offered load asked (short_load) and reached
# (short_reached), and $tname-sweep-summary.csv.
trace() {
    local tf; tf=$(trace_file)
    local csv="$out/$tname-sweep.csv"
    csv_start "$csv" "case,load,seed,short_load,short_reached,lra_tasks,utilisation,pairs,soft_broken,pct,waiting,hard_broken,place_mean_ms,place_p99_ms,place_max_ms"
    points "$TRACE_SEEDS" trace_point
    awk -F, 'NR > 1 { k = $1 "," $2; n[k]++; s[k] += $10; u[k] += $7
            w[k] += $11; r[k] += $5; pm[k] += $13
            if (!(k in px) || $15 > px[k]) px[k] = $15
            if (!(k in lo) || $10 < lo[k]) lo[k] = $10
            if (!(k in hi) || $10 > hi[k]) hi[k] = $10 }
        END { print "case,load,short_reached,utilisation,pct_mean,pct_min," \
                "pct_max,waiting_mean,place_mean_ms,place_max_ms"
            for (k in n) printf "%s,%.4f,%.3f,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f\n",
                k, r[k] / n[k], u[k] / n[k], s[k] / n[k], lo[k], hi[k],
                w[k] / n[k], pm[k] / n[k], px[k] }' \
        "$csv" | sort -t, -k1,1 -k2,2n > "$out/$tname-sweep-summary.csv"
}

latency() {
    run "$build/bench/medea_round" --tasks 15 --seeds 5 \
        --nodes 100,1000,2000,5000,10000 > "$out/latency.txt"
}

round() {
    run "$build/bench/medea_round" --tasks 1000 --seeds 3 --nodes 10000 \
        > "$out/round-1000x10000.txt"
}

# hold: what an application held by the bounded wait costs the loop on
# a quiet cluster (bench/medea_round --hold), 5 s and 30 s waits, and
# with a plain job coming each second (--changes).
hold() {
    run "$build/bench/medea_round" --hold 5000 --tasks 1000 --seeds 3 \
        --nodes 1000,10000 > "$out/hold-5s.txt"
    run "$build/bench/medea_round" --hold 5000 --changes --tasks 1000 \
        --seeds 3 --nodes 1000,10000 > "$out/hold-5s-changes.txt"
    run "$build/bench/medea_round" --hold 30000 --tasks 1000 --seeds 3 \
        --nodes 10000 > "$out/hold-30s.txt"
}

# latency.dat: nodes, then median, min, max of the loop thread's time
# (fd_round_end), constrained, then the anchor.
figures() {
    awk -F'|' 'NR > 1 { split($9, v, /[][ -]+/); n = $1 + 0
            if ($3 ~ /yes/) { c[n] = v[2] " " v[3] " " v[4]; ns[++k] = n }
            else a[n] = v[2] " " v[3] " " v[4] }
        END { for (i = 1; i <= k; i++) print ns[i], c[ns[i]], a[ns[i]] }' \
        "$out/latency.txt" > "$out/latency.dat"
    (cd "$out" && gnuplot violations.gp && gnuplot latency.gp)
}

for part in $parts; do
    case $part in
    sweep | trace | latency | round | hold | figures) $part ;;
    *) echo "$0: unknown part $part" >&2; exit 2 ;;
    esac
done
