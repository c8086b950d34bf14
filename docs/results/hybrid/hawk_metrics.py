#!/usr/bin/env python3
"""hawk_metrics.py - where short jobs wait, for one skylark-sim run of the
trace (docs/results/hybrid.md#why-the-hawk-like-split-misses).

usage: hawk_metrics.py JOBS_CSV TASKS_CSV SUMMARY_TXT NODES PART LABEL

JOBS_CSV and TASKS_CSV are the run's --jobs-out and --tasks-out,
SUMMARY_TXT its printed summary (for the probes behind long tasks),
NODES the cluster's machines and PART the short-only partition's share
(the first floor(PART x NODES) nodes; the partition exists only under
--mix hawk, but the split is reported for every mix). Prints one line:

  label nodes part short_jobs p10 p25 p50 p75 p90 p95 p99
  tasks_in_part wait_p50_part wait_p90_part
  tasks_general wait_p50_general wait_p90_general
  slow_jobs slow_jobs_general behind_long

- p10 .. p99: short jobs' response (ms), the measured ones;
- tasks_in_part / tasks_general: their tasks that ran on a node of the
  partition / elsewhere, with their wait (submit to start, ms) p50, p90;
- slow_jobs: short jobs whose response is above the p75 of the run;
  slow_jobs_general: of those, the ones whose slowest task ran outside
  the partition;
- behind_long: probes that reached a node whose slots were all busy,
  one with a long task (the summary's count).
"""
import csv
import math
import re
import sys


def pct(v, p):
    if not v:
        return float('nan')
    return v[min(len(v) - 1, int(p * len(v)))]


def main():
    jobs_csv, tasks_csv, txt, nodes, part, label = sys.argv[1:7]
    first = math.floor(float(part) * int(nodes))
    short = {}
    with open(jobs_csv) as f:
        for row in csv.DictReader(f):
            if row['class'] == 'short' and row['measured'] == '1':
                short[int(row['job'])] = int(row['response_us']) / 1e3
    resp = sorted(short.values())
    slow_cut = pct(resp, 0.75)
    waits = {True: [], False: []}
    last = {}  # job -> (wait of its slowest task, in the partition?)
    with open(tasks_csv) as f:
        for row in csv.DictReader(f):
            j = int(row['job'])
            if j not in short or row['node'] == '':
                continue
            inside = int(row['node'][1:]) < first
            w = int(row['wait_us']) / 1e3
            waits[inside].append(w)
            if j not in last or w > last[j][0]:
                last[j] = (w, inside)
    for v in waits.values():
        v.sort()
    slow = [j for j, r in short.items() if r > slow_cut]
    slow_gen = sum(1 for j in slow if j in last and not last[j][1])
    behind = 0
    with open(txt) as f:
        m = re.search(r'probes behind long tasks (\d+)', f.read())
        if m:
            behind = int(m.group(1))
    out = [label, nodes, part, len(resp)]
    out += ['%.0f' % pct(resp, p) for p in
            (0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99)]
    for inside in (True, False):
        v = waits[inside]
        out += [len(v), '%.0f' % pct(v, 0.5), '%.0f' % pct(v, 0.9)]
    out += [len(slow), slow_gen, behind]
    print(' '.join(str(x) for x in out))


if __name__ == '__main__':
    main()
