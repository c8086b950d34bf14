#!/usr/bin/env python3
"""quincy_metrics.py - Quincy's measures of one skylark-sim run
(docs/results/hybrid.md#quincys-fairness-and-locality).

usage: quincy_metrics.py JOBFILE TASKS_CSV JOBS_CSV RACK_SIZE SLOTS LABEL

JOBFILE is the job file the run replayed (each task's preferred nodes,
the replicas of its input); TASKS_CSV and JOBS_CSV are the run's
--tasks-out and --jobs-out. Prints one line of space-separated fields:

  label tasks node_local rack_local cross_rack cross_rack_share
  resp_p50_s resp_p90_s resp_mean_s makespan_s throughput_tps
  unfair_share jain killed

- node_local, rack_local, cross_rack: tasks that ran on a preferred
  node, in a preferred rack (not on a preferred node), elsewhere; the
  cross-rack transfer is cross_rack x a task's input.
- makespan: first arrival to last task end; throughput: tasks / makespan.
- fairness, sampled every second from the first arrival to the last end:
  a job is active from its arrival to its end, and its fair share is
  Quincy's: the slots split evenly between the active jobs, a job
  wanting fewer (its tasks not yet ended) getting what it wants and the
  rest split among the others (water-filling). unfair_share is the mean
  over the samples of sum |running - fair| / 2 / slots in use by fair
  shares (the share of slots that were not where fairness put them);
  jain the mean of Jain's index of running / fair over the active jobs.
- tasks counts attempts that ran (a task stopped by preemption and run
  again counts twice, each where it ran); killed: attempts stopped.
"""
import bisect
import csv
import sys


def prefs_of(jobfile):
    """Per job (in file order, the simulator's numbering) per task: the
    set of preferred node indexes."""
    jobs = []
    with open(jobfile) as f:
        for line in f:
            if line.startswith('#') or line.startswith('arrival'):
                continue
            fields = line.rstrip('\n').split(',')
            pref = fields[8]
            tasks = [] if pref == '' else [
                set(int(x) for x in t.split()) for t in pref.split(';')]
            jobs.append(tasks)
    return jobs


def water_fill(demands, slots):
    """Fair shares of slots among demands (Quincy's fair share)."""
    share = [0.0] * len(demands)
    left = list(range(len(demands)))
    room = float(slots)
    while left and room > 1e-9:
        level = room / len(left)
        small = [i for i in left if demands[i] - share[i] <= level]
        if not small:
            for i in left:
                share[i] += level
            break
        for i in small:
            room -= demands[i] - share[i]
            share[i] = demands[i]
        left = [i for i in left if i not in small]
    return share


def main():
    jobfile, tasks_csv, jobs_csv, rack, slots, label = sys.argv[1:7]
    rack, slots = int(rack), int(slots)
    prefs = prefs_of(jobfile)
    kinds = [0, 0, 0]
    killed = 0
    runs = []  # (job, start, end)
    with open(tasks_csv) as f:
        for row in csv.DictReader(f):
            if row['node'] == '':
                continue
            j, t = int(row['job']), int(row['task'])
            killed += row['status'] == 'killed'
            node = int(row['node'][1:])
            p = prefs[j][t] if t < len(prefs[j]) else set()
            if node in p:
                kinds[0] += 1
            elif any(q // rack == node // rack for q in p):
                kinds[1] += 1
            else:
                kinds[2] += 1
            runs.append((j, int(row['start_us']), int(row['end_us'])))
    jobs = {}
    resp = []
    with open(jobs_csv) as f:
        for row in csv.DictReader(f):
            j = int(row['job'])
            jobs[j] = (int(row['arrival_us']), int(row['end_us']),
                       int(row['tasks']))
            resp.append(int(row['response_us']) / 1e6)
    resp.sort()
    t0 = min(a for a, _, _ in jobs.values())
    t1 = max(e for _, _, e in runs)
    makespan = (t1 - t0) / 1e6
    # Per job: sorted starts and ends of its tasks, for counts at time t.
    starts, ends = {}, {}
    for j, s, e in runs:
        starts.setdefault(j, []).append(s)
        ends.setdefault(j, []).append(e)
    for j in starts:
        starts[j].sort()
        ends[j].sort()
    unfair, jain, n = 0.0, 0.0, 0
    t = t0
    while t < t1:
        active = [j for j, (a, e, _) in jobs.items() if a <= t < e]
        if active:
            run = [bisect.bisect_right(starts.get(j, []), t) -
                   bisect.bisect_right(ends.get(j, []), t) for j in active]
            want = [jobs[j][2] - bisect.bisect_right(ends.get(j, []), t)
                    for j in active]
            fair = water_fill(want, slots)
            total = sum(fair)
            if total > 0:
                unfair += sum(abs(r - f) for r, f in zip(run, fair)) / 2 / total
                x = [r / f for r, f in zip(run, fair) if f > 0]
                jain += sum(x) ** 2 / (len(x) * sum(v * v for v in x)) \
                    if sum(v * v for v in x) > 0 else 0
                n += 1
        t += 1000000
    tasks = sum(kinds)

    def q(p):
        return resp[min(len(resp) - 1, int(p * len(resp)))]
    print(label, tasks, kinds[0], kinds[1], kinds[2],
          '%.4f' % (kinds[2] / tasks), '%.1f' % q(0.5), '%.1f' % q(0.9),
          '%.1f' % (sum(resp) / len(resp)), '%.1f' % makespan,
          '%.2f' % (tasks / makespan), '%.4f' % (unfair / max(n, 1)),
          '%.4f' % (jain / max(n, 1)), killed)


if __name__ == '__main__':
    main()
