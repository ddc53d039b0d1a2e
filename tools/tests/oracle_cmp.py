#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare damo's reports of a record with damonitor/damo's (the oracle).

    oracle_cmp.py DAMO ORACLE RECORD [--hz AGGR_US] [--tres N --ares N]

Runs `report wss`, `report nr_regions` and `report heatmap --output raw` of
the oracle (ORACLE: its damo.py) and damo's `report wss`, `nr_regions` and
`heats` over the same ranges, and checks that every figure agrees: the
average and the percentiles of each target's working set size and number
of regions, and every heatmap cell of each target (over the target's time
span and its lowest monitored range, as `damo report heats --guide` lists
them).  --hz: the record has monitoring intervals, so the oracle's heat is
in accesses per second: damo's accesses per aggregation are scaled by
10^6 / AGGR_US.  Prints what it compared; exits 1 on the first difference.
"""
import argparse
import math
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        sys.exit('%s: exit %d\n%s%s' % (' '.join(cmd), p.returncode,
                                        p.stdout, p.stderr))
    return p.stdout


def dists(text, target_re):
    """{target: [avr, (percentile, value), ...]} of a wss/nr_regions
    output, either tool's."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(target_re, line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r'# avr:\s+(\d+)', line)
        if m and cur is not None:
            cur.append(int(m.group(1)))
            continue
        m = re.match(r'\s*(\d+)\s+(\d+)', line)
        if m and cur is not None:
            cur.append((int(m.group(1)), int(m.group(2))))
    return out


def same_dists(what, ours, theirs):
    if ours != theirs or not ours:
        sys.exit('%s differs:\n damo:   %s\n oracle: %s' % (what, ours, theirs))
    for t, v in sorted(ours.items()):
        print('%s, target %d: avr %d, percentiles %s agree' %
              (what, t, v[0], ' '.join('%d:%d' % pv for pv in v[1:])))


def guides(damo, rec):
    """[(pid, tmin, tmax, amin, amax)] from damo's --guide."""
    out, cur = [], None
    for line in run([damo, 'report', 'heats', '-i', rec, '--guide']).splitlines():
        m = re.match(r'pid:(\d+)', line)
        if m:
            cur = [int(m.group(1))]
            out.append(cur)
        m = re.match(r'time: (\d+)-(\d+)', line)
        if m:
            cur += [int(m.group(1)), int(m.group(2))]
        m = re.match(r'region\s+0: (\d+)-(\d+)', line)
        if m:
            cur += [int(m.group(1)), int(m.group(2))]
    return out


def cells(text):
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3:
            heat = float(f[2])
            out.append((int(f[0]), int(f[1]), 0.0 if math.isnan(heat) else heat))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('damo')
    ap.add_argument('oracle')
    ap.add_argument('record')
    ap.add_argument('--hz', type=int, metavar='AGGR_US')
    ap.add_argument('--tres', type=int, default=20)
    ap.add_argument('--ares', type=int, default=20)
    a = ap.parse_args()
    oracle = [sys.executable, a.oracle, 'report']
    ours = [a.damo, 'report']

    same_dists('wss',
               dists(run(ours + ['wss', '-i', a.record, '--raw-numbers']),
                     r'# pid\s+(\d+)'),
               dists(run(oracle + ['wss', '-i', a.record, '--raw_number',
                                   '--per_target']), r'# target_id\s+(\d+)'))
    same_dists('nr_regions',
               dists(run(ours + ['nr_regions', '-i', a.record,
                                 '--raw-numbers']),
                     r'# pid\s+(\d+)'),
               dists(run(oracle + ['nr_regions', '-i', a.record]),
                     r'# target_id\s+(\d+)'))

    scale = 10**6 / a.hz if a.hz else 1
    for pid, tmin, tmax, amin, amax in guides(a.damo, a.record):
        mine = cells(run(ours + [
            'heats', '-i', a.record, '--pid', str(pid),
            '--tres', str(a.tres), '--ares', str(a.ares),
            '--tmin', str(tmin), '--tmax', str(tmax),
            '--amin', str(amin), '--amax', str(amax)]))
        theirs = cells(run(oracle + [
            'heatmap', '-i', a.record, '--output', 'raw', '--tid', str(pid),
            '--resol', str(a.tres), str(a.ares),
            '--time_range', str(tmin), str(tmax),
            '--address_range', str(amin), str(amax)]))
        if len(mine) != len(theirs) or len(mine) != a.tres * a.ares:
            sys.exit('heatmap of target %d: %d cells, the oracle %d' %
                     (pid, len(mine), len(theirs)))
        hot = 0
        for (t, ad, h), (t2, ad2, h2) in zip(mine, theirs):
            if (t, ad) != (t2, ad2) or not math.isclose(
                    h * scale, h2, rel_tol=1e-9, abs_tol=1e-9):
                sys.exit('heatmap of target %d, cell (%d, %d): damo %r '
                         '(x %g), oracle %r at (%d, %d)' %
                         (pid, t, ad, h, scale, h2, t2, ad2))
            hot += h > 0
        print('heatmap, target %d: %d cells (%d hot) over [%d, %d) ns x '
              '[%d, %d) agree' % (pid, len(mine), hot, tmin, tmax, amin, amax))


if __name__ == '__main__':
    main()
