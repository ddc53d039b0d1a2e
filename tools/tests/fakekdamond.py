#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's side of a stand-in DAMON configfs tree, for host tests of
`damo record` (with tests/fakecfs.c, which makes the files).

    fakekdamond.py ROOT

Once running it makes ROOT/ready.  Until ROOT/stop exists (or ROOT is
gone), every context under ROOT/contexts whose state
reads "on" runs like a kdamond: every aggr_us (read when it goes on) it
writes each target's snapshot, then counts the aggregation in
nr_aggregations; when no target's process is alive any more it writes
state "off", as the kernel does.  A target's snapshot has two regions at
an address made from its directory's position (0x10000000 apart), the
first accessed "aggregation number mod 5" times.  A paddr context's target
has no process and never ends: its snapshot is its region directories' ranges
(the first accessed as above), or without any two regions of a stand-in
"RAM" at 0x100000.  Files are replaced by
rename(2), so that a reader sees the old content or the new, never half.
"""
import os
import sys
import time

POLL_S = 0.005
REGION = 0x10000
BASE = 0x10000000


def read(path):
    with open(path) as f:
        return f.read().strip()


def write(root, path, text):
    tmp = os.path.join(root, '.kdamond.tmp')
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def alive(pid):
    """The process exists and is not a zombie (its memory is gone)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        return False
    return state not in ('Z', 'X')


def targets(ctx):
    tdir = os.path.join(ctx, 'targets')
    return [os.path.join(tdir, t) for t in sorted(os.listdir(tdir))]


RAM = 0x100000


def paddr_snapshot(t, nr):
    rdir = os.path.join(t, 'regions')
    ranges = sorted((int(read(os.path.join(rdir, r, 'start'))),
                     int(read(os.path.join(rdir, r, 'end'))))
                    for r in os.listdir(rdir))
    if not ranges:
        ranges = [(RAM, RAM + REGION), (RAM + REGION, RAM + 2 * REGION)]
    return ''.join('%d %d %d %d\n' % (s, e, nr % 5 if not i else 0, nr)
                   for i, (s, e) in enumerate(ranges))


def aggregate(root, ctx, run):
    """One aggregation: the snapshots, then the count; False when every
    target has exited and the context went off."""
    any_alive = False
    paddr = read(os.path.join(ctx, 'operations')) == 'paddr'
    for i, t in enumerate(targets(ctx)):
        if paddr:
            any_alive = True
            write(root, os.path.join(t, 'snapshot'),
                  paddr_snapshot(t, run['nr']))
            continue
        pid = int(read(os.path.join(t, 'pid')))
        if not alive(pid):
            continue
        any_alive = True
        start = BASE * (i + 1)
        write(root, os.path.join(t, 'snapshot'),
              '%d %d %d 0\n%d %d 0 %d\n' %
              (start, start + REGION, run['nr'] % 5,
               start + REGION, start + 2 * REGION, run['nr']))
    if not any_alive:
        write(root, os.path.join(ctx, 'kdamond_pid'), '-1\n')
        write(root, os.path.join(ctx, 'state'), 'off\n')
        return False
    run['nr'] += 1
    write(root, os.path.join(ctx, 'nr_aggregations'), '%d\n' % run['nr'])
    return True


def step(root, ctx, runs, now):
    state = read(os.path.join(ctx, 'state'))
    run = runs.get(ctx)
    if state == 'on' and not run:
        aggr_s = int(read(os.path.join(ctx, 'aggr_us'))) / 1e6
        runs[ctx] = {'nr': 0, 'aggr_s': aggr_s, 'next': now + aggr_s}
        write(root, os.path.join(ctx, 'nr_aggregations'), '0\n')
        write(root, os.path.join(ctx, 'kdamond_pid'), '%d\n' % os.getpid())
    elif state != 'on' and run:
        del runs[ctx]
    elif run and now >= run['next']:
        run['next'] += run['aggr_s']
        if not aggregate(root, ctx, run):
            del runs[ctx]


def main():
    root = sys.argv[1]
    runs = {}
    cdir = os.path.join(root, 'contexts')
    open(os.path.join(root, 'ready'), 'w').close()
    while os.path.isdir(cdir) and not os.path.exists(os.path.join(root, 'stop')):
        now = time.monotonic()
        try:
            names = os.listdir(cdir)
        except OSError:
            break
        for name in names:
            ctx = os.path.join(cdir, name)
            try:
                step(root, ctx, runs, now)
            except (OSError, ValueError):
                # damo is making or removing it: see again next time
                if not os.path.isdir(ctx):
                    runs.pop(ctx, None)
        time.sleep(POLL_S)


if __name__ == '__main__':
    main()
