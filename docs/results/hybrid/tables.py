#!/usr/bin/env python3
"""docs/results/hybrid/tables.py - the rows of hybrid.md's run tables,
read from the files hybrid-runs.sh writes for each run: NAME.csv (the
summary, --summary-csv), NAME.txt (the printed summary) and NAME.time
(/usr/bin/time -v).

usage: tables.py NAME...   (NAME without its extension, e.g.
                            docs/results/hybrid/trace-8000-hybrid)
       tables.py --quincy-cond quincy-cond.dat
       tables.py --scale scale-*.rounds
       tables.py --quincy quincy.dat

One markdown row per run: mix; short jobs' response p50 / p90 / p99
(ms); refused; long tasks' placement p50 / p99 (ms); long tasks placed
of all; utilisation; probes behind long tasks; short tasks handed to the
flow node by fallback; the flow node's rounds and longest round
(virtual); wall, CPU (user + system) and peak RSS. A run stopped by its
time limit (no CSV) gets a row saying so, with its time."""

import csv
import re
import sys


def num(v, digits=0):
    """v as a number with thousands separators (digits decimals)."""
    x = float(v)
    return f"{x:,.{digits}f}" if digits else f"{round(x):,}"


def ms(v):
    """a latency in ms: one decimal under 100, else whole."""
    x = float(v)
    return f"{x:.1f}" if x < 100 else num(x)


def timing(name):
    """'wall, CPU, RSS' of NAME.time; its exit status."""
    t = open(name + ".time").read()
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)",
                     t).group(1)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                        t).group(1))
    status = int(re.search(r"Exit status: (\d+)", t).group(1))
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return f"{secs:.0f} s, {user + sys_:.0f} s, {rss // 1024} MiB", status


def flow_fields(text):
    """(fallback tasks, 'rounds, longest') from the printed summary."""
    fb = re.search(r"tasks handed to flowd \d+ \(of which fallback (\d+)\)",
                   text)
    rounds = re.search(r"rounds (\d+) \(failed \d+\), solve time \(virtual, "
                       r"ms\) mean [\d.]+ p50 [\d.]+ p99 [\d.]+ max ([\d.]+)",
                       text)
    fallback = num(fb.group(1)) if fb else "-"
    if not rounds:
        return fallback, "-"
    return fallback, f"{num(rounds.group(1))}, {ms(rounds.group(2))} ms"


def row(name):
    """The markdown row of run NAME."""
    times, status = timing(name)
    try:
        s = next(csv.DictReader(open(name + ".csv")))
    except (FileNotFoundError, StopIteration):
        why = "stopped by its time limit" if status == 124 else \
            f"no summary (exit {status})"
        return f"| {name.rsplit('/', 1)[-1]} | {why} | | | | | | | | {times} |"
    text = open(name + ".txt").read()
    fallback, rounds = flow_fields(text)
    long_tasks = int(s["long_tasks"] or 0)
    if long_tasks and s["mix"] != "skip":
        longs = f"{ms(s['long_wait_p50_ms'])} / {ms(s['long_wait_p99_ms'])}"
        placed = f"{num(s['long_placed'])} of {num(long_tasks)}"
    else:
        longs = placed = "-"
    short = " / ".join(num(s[k]) for k in
                       ("resp_p50_ms", "resp_p90_ms", "resp_p99_ms"))
    return (f"| {s['mix']} | {short} | {num(s['rejected'])} | {longs} | "
            f"{placed} | {float(s['utilisation']):.2f} | "
            f"{num(s['behind_long'])} | {fallback} | {rounds} | {times} |")


PLACERS = {"flow-quincy": "quincy", "flow-fair": "quincy fair",
           "flow-fairpre": "quincy fair + preemption",
           "greedy-locality": "greedy", "flow-nopref": "no preferences (flow)"}


def spread(values, digits):
    """'mean [min, max]' of values."""
    mean = sum(values) / len(values)
    return (f"{mean:.{digits}f} [{min(values):.{digits}f}, "
            f"{max(values):.{digits}f}]")


def quincy_cond(path):
    """The rows of the seeds-and-conditions table from quincy-cond.dat
    (hybrid-runs.sh quincy-cond): per condition and placer, each measure's
    mean [min, max] over the seeds; the gain is each seed's throughput
    against greedy's on the same seed and condition."""
    runs = {}
    for line in open(path):
        f = line.split()
        seed, load, remote, hot, label = f[0], f[1], f[2], f[3], f[4]
        tasks, node, across = int(f[5]), int(f[6]), int(f[8])
        runs.setdefault((load, remote, hot), {}).setdefault(label, {})[
            seed] = (100 * node / tasks, 100 * across / tasks, float(f[12]),
                     float(f[14]), float(f[15]), float(f[16]))
    print("| load | remote read (rack : across) | hot racks | placer | "
          "on a preferred node (%) | across racks (%) | job response mean "
          "(s) | throughput (tasks/s) | gain vs greedy (%) | unfair / Jain |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (load, remote, hot), placers in runs.items():
        greedy = placers.get("greedy-locality", {})
        for label in PLACERS:
            seeds = placers.get(label)
            if not seeds:
                continue
            col = list(zip(*seeds.values()))
            gain = [100 * (v[3] / greedy[k][3] - 1)
                    for k, v in seeds.items() if k in greedy]
            rack, across_s = remote.replace("s", " s").split(":")
            print(f"| {load} | {rack} : {across_s} | {hot} | {PLACERS[label]} "
                  f"| {spread(col[0], 1)} | {spread(col[1], 2)} | "
                  f"{spread(col[2], 1)} | {spread(col[3], 1)} | "
                  f"{spread(gain, 1) if gain else '-'} | "
                  f"{spread(col[4], 3)} / {spread(col[5], 3)} |")


QUINCY_RUNS = {"flow-quincy": "flow (quincy)", "flow-fair": "flow, quincy fair",
               "flow-fairpre": "flow, quincy fair + preemption",
               "flow-nopref": "flow, no preferences", "greedy-locality": "greedy",
               "greedy-nopref": "greedy, no preferences",
               "sampling-locality": "sampling",
               "sampling-nopref": "sampling, no preferences"}


def quincy(path):
    """The rows of the quincy table from quincy.dat (hybrid-runs.sh
    quincy: the load, then quincy_metrics.py's fields), each run's wall
    time and peak RSS from its .time file beside quincy.dat."""
    print("| load | placer | preferred node | preferred rack | across racks | "
          "job response p50 / p90 / mean (s) | makespan (s) | throughput "
          "(tasks/s) | unfair | Jain | wall, CPU, peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    for line in open(path):
        f = line.split()
        load, label, tasks = f[0], f[1], int(f[2])
        node, rack, across = int(f[3]), int(f[4]), int(f[5])
        try:
            times = timing(f"{base}quincy-400-{load}-{label}")[0]
        except FileNotFoundError:
            times = "-"
        print(f"| {load} | {QUINCY_RUNS[label]} | {node:,} "
              f"({100 * node / tasks:.1f}%) | {rack:,} | {across:,} "
              f"({100 * across / tasks:.2f}%) | {f[7]} / {f[8]} / {f[9]} | "
              f"{f[10]} | {float(f[11]):.1f} | {float(f[12]):.3f} | "
              f"{float(f[13]):.3f} | {times} |")


ALGS = ("relax", "cost-scaling", "race")


def scale(paths):
    """The rows of the scale table from the scale part's rounds files
    (scale-NODES-LOAD-ALG.rounds, beside their .txt and .time): rounds,
    solve wall p50 / p99 / max (the value at floor(q x n) of the sorted
    rounds, as the scale-figure part takes it), the network's largest
    arc count, long placement p50 / p99, the run's wall time."""
    print("| machines | load | algorithm | rounds | solve wall p50 / p99 / "
          "max (ms) | network arcs (max) | placement p50 / p99 (ms) | "
          "wall |")
    print("|---|---|---|---|---|---|---|---|")
    runs = []
    for path in paths:
        nodes, load, alg = path.rsplit("/", 1)[-1][len("scale-"):-len(
            ".rounds")].split("-", 2)
        runs.append((int(nodes), float(load), ALGS.index(alg), path))
    for nodes, load, alg, path in sorted(runs):
        rows = list(csv.DictReader(open(path)))
        walls = sorted(float(r["wall_us"]) / 1000 for r in rows)
        arcs = max(int(r["graph_arcs"]) for r in rows)
        base = path[:-len(".rounds")]
        text = open(base + ".txt").read()
        place = re.search(r"long placement \(ms\) mean [\d.]+  p50 ([\d.]+)"
                          r"  p90 [\d.]+  p99 ([\d.]+)", text)
        try:
            wall = timing(base)[0].split(",")[0]
        except FileNotFoundError:
            wall = "-"
        q = [walls[min(int(len(walls) * f), len(walls) - 1)]
             for f in (0.5, 0.99)] + [walls[-1]]
        print(f"| {nodes:,} | {load:g} | {ALGS[alg]} | {len(rows)} | "
              + " / ".join(f"{v:.2f}" for v in q) + f" | {arcs:,} | "
              f"{ms(place.group(1))} / {ms(place.group(2))} | {wall} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--quincy":
        quincy(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--scale":
        scale(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "--quincy-cond":
        quincy_cond(sys.argv[2])
        sys.exit(0)
    print("| mix | short jobs: response p50 / p90 / p99 (ms) | refused | "
          "long tasks: placement p50 / p99 (ms) | long tasks placed | "
          "utilisation | probes behind long tasks | fallback tasks | "
          "flow rounds, longest (virtual) | wall, CPU, peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in sys.argv[1:]:
        print(row(name))
