#!/usr/bin/env python3
"""fit-kinds.py - relaxation's CPU per round against its work by kind
(docs/results/hybrid.md, "The solve-time model").

Reads rounds CSVs from a build with hybrid/relax-kinds.patch applied
(skylark-sim --rounds-out: the usual columns, then relaxation's work per
round split by kind: scan_nodes, scan_arcs, peek, pc_arcs, pc_nodes, aug,
sw_steps, sw_aug, sw_nb, compact, visits; the working set:
distinct_nodes, distinct_arcs; and the scans of hubs, more than 64 arcs:
hub_scans, hub_arcs).

  fit-kinds.py [--built-with W] fit CSV...
      least squares of the rounds' relative errors (each round weighted
      by 1 / CPU^2) of CPU on several sets of features, and how well each
      fit predicts each file's rounds.
  fit-kinds.py [--built-with W] score A B NODE CSV...
      scores the model A ns per arc + B ns per unit, a unit being an arc
      looked at and a move to a node (a scan, a sweep step) NODE units,
      against the old one (7 + 4.5, a move one unit). Files named
      SET-rN.csv are repeats of one set: with the work model the rounds
      are the same in each, so the rounds' CPU is their median over the
      repeats, and one repeat's CPU predicting another's, round by round,
      is the noise floor no model of the work can pass.

--built-with W: the RELAX_NODE_WORK of the build that wrote the CSVs
(16 since it counts moves; 1 before), to recover the arcs-only count.
"""
import csv
import sys

KINDS = ['scan_nodes', 'scan_arcs', 'peek', 'pc_arcs', 'pc_nodes', 'aug',
         'sw_steps', 'sw_aug', 'sw_nb', 'compact', 'visits']


def load(path, built_with):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['algorithm'] != 'relax' or r.get('scan_nodes') is None:
                continue
            d = {k: float(v) for k, v in r.items() if k != 'algorithm'}
            moves = d['scan_nodes'] + d['sw_steps']
            d['arcunits'] = d['relax_iterations'] - (built_with - 1) * moves
            d['moves'] = moves
            # the pass's visits: the rest of the count (the patch's own
            # column, where there is one, is the same)
            d['visits'] = d['arcunits'] - sum(d[k] for k in KINDS[:-1])
            d['other'] = d['arcunits'] - moves
            if 'hub_arcs' in d:
                d['small_arcs'] = d['scan_arcs'] - d['hub_arcs']
                d['small_scans'] = d['scan_nodes'] - d['hub_scans']
                d['rest'] = d['other'] - d['scan_arcs']
            rows.append(d)
    return rows


def solve(a, b):
    n = len(b)
    m = [a[i][:] + [b[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    # a feature that is zero in every round (no sweep in the set, say)
    # gets a coefficient of 0
    return [m[i][n] / m[i][i] if m[i][i] != 0 else 0.0 for i in range(n)]


def fit(rows, feats):
    n = len(feats)
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for d in rows:
        y = d['cpu_us'] * 1000
        w = 1 / (y * y + 1)
        x = [d[f] for f in feats]
        for i in range(n):
            b[i] += w * x[i] * y
            for j in range(n):
                a[i][j] += w * x[i] * x[j]
    return solve(a, b)


def quant(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def score(rows, feats, coef):
    errs, sp, sq = [], 0.0, 0.0
    for d in rows:
        p = sum(c * d[f] for c, f in zip(coef, feats))
        y = d['cpu_us'] * 1000
        errs.append((abs(p / y - 1), p / y))
        sp += p
        sq += y
    errs.sort()
    e = [x for x, _ in errs]
    return ('%d rounds, CPU %.2f s, charged/used %.2f, error p50 %.0f%% '
            'p90 %.0f%%, worst %.0f%% (%.2f)' %
            (len(rows), sq / 1e9, sp / sq, 100 * quant(e, .5),
             100 * quant(e, .9), 100 * errs[-1][0], errs[-1][1]))


def cmd_fit(paths, built_with):
    sets = [load(p, built_with) for p in paths]
    rows = [d for s in sets for d in s]
    models = [
        ('arcs + units (moves 1)', ['graph_arcs', 'arcunits']),
        ('arcs + moves + other units', ['graph_arcs', 'moves', 'other']),
        ('arcs + each kind', ['graph_arcs'] + KINDS),
    ]
    if all('hub_arcs' in d for d in rows):
        models.append(('arcs + moves + scans\' arcs of small nodes and of '
                       'hubs + the rest',
                       ['graph_arcs', 'moves', 'small_arcs', 'hub_arcs',
                        'rest']))
    for name, feats in models:
        coef = fit(rows, feats)
        print('%s: %s' % (name, ', '.join('%s %.2f' % (f, c)
                                          for f, c in zip(feats, coef))))
        for p, s in zip(paths, sets):
            print('    %s: %s' % (p, score(s, feats, coef)))
    for node in (1, 4, 8, 16, 24, 32):
        for d in rows:
            d['u'] = d['other'] + node * d['moves']
        coef = fit(rows, ['graph_arcs', 'u'])
        print('a move = %d units: %.2f ns per arc + %.2f ns per unit' %
              (node, coef[0], coef[1]))
        for p, s in zip(paths, sets):
            print('    %s: %s' % (p, score(s, ['graph_arcs', 'u'], coef)))


def cmd_score(a, b, node, paths, built_with):
    sets = {}
    for p in paths:
        name = p.rsplit('/', 1)[-1].rsplit('.', 1)[0]
        if '-r' in name:
            name = name.rsplit('-r', 1)[0]
        sets.setdefault(name, []).append(load(p, built_with))
    for name, reps in sets.items():
        n = min(len(r) for r in reps)
        same = all([d['relax_iterations'] for d in r[:n]] ==
                   [d['relax_iterations'] for d in reps[0][:n]] for r in reps)
        if not same:
            print('%s: the repeats are not the same rounds' % name)
            continue
        med = []
        for i in range(n):
            d = dict(reps[0][i])
            cpus = sorted(r[i]['cpu_us'] for r in reps)
            d['cpu_us'] = cpus[len(cpus) // 2]
            d['u'] = d['other'] + node * d['moves']
            med.append(d)
        line = '%s: %d repeat(s), %d rounds, CPU %s s' % (
            name, len(reps), n, ' / '.join(
                '%.1f' % (sum(d['cpu_us'] for d in r[:n]) / 1e6) for r in reps))
        if len(reps) > 1:
            e = [abs(x[i]['cpu_us'] / y[i]['cpu_us'] - 1) for x in reps
                 for y in reps if x is not y for i in range(n)]
            line += ('; one repeat predicting another: error p50 %.0f%%, '
                     'p90 %.0f%%' % (100 * quant(e, .5), 100 * quant(e, .9)))
        print(line)
        print('    old (7 + 4.5, a move 1 unit): %s' %
              score(med, ['graph_arcs', 'arcunits'], [7, 4.5]))
        print('    new (%g + %g, a move %d units): %s' %
              (a, b, node, score(med, ['graph_arcs', 'u'], [a, b])))


def main(argv):
    built_with = 16
    if len(argv) > 2 and argv[1] == '--built-with':
        built_with = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) > 2 and argv[1] == 'fit':
        cmd_fit(argv[2:], built_with)
    elif len(argv) > 5 and argv[1] == 'score':
        cmd_score(float(argv[2]), float(argv[3]), int(argv[4]), argv[5:],
                  built_with)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
