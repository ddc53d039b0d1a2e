#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write crafted DAMON record files with known contents, for the tests.

    mkrec.py [--perf-script] NAME OUT

NAME is one of the records below.  The layout is the seed's format of
Documentation/record-format.md: per snapshot s64 sec, s64 nsec, u32
nr_tasks; per task u64 pid, u32 nr_regions; per region u64 start, u64 end,
u32 nr_accesses; native byte order, packed.

--perf-script writes the same snapshots as `perf script` prints the
damon:damon_aggregated tracepoint instead (target_id is the pid, times in
microseconds): text that damonitor/damo converts to its own record format,
so that the tests can have a record written by that tool's writer.
"""
import struct
import sys

T0 = 1000 * 10**9          # the first snapshot's time, ns
STEP = 100 * 10**6         # 100 ms between snapshots


PERF_SCRIPT = False


def snapshot(f, time_ns, tasks):
    if PERF_SCRIPT:
        perf_script_lines(f, time_ns, tasks)
        return
    f.write(struct.pack('=qqI', time_ns // 10**9, time_ns % 10**9, len(tasks)))
    for pid, regions in tasks:
        f.write(struct.pack('=QI', pid, len(regions)))
        for start, end, nr in regions:
            f.write(struct.pack('=QQI', start, end, nr))


def perf_script_lines(f, time_ns, tasks):
    """One line per region; the age (last field) is made up: 3."""
    assert time_ns % 1000 == 0, 'perf script times are in microseconds'
    stamp = '%d.%06d' % (time_ns // 10**9, time_ns % 10**9 // 1000)
    for pid, regions in tasks:
        for start, end, nr in regions:
            f.write(('kdamond.0  4242 [000] %s: damon:damon_aggregated: '
                     'target_id=%d nr_regions=%d %d-%d: %d 3\n' %
                     (stamp, pid, len(regions), start, end, nr)).encode())


def simple(f):
    """pid 42, 25 snapshots 100 ms apart.  [4096, 8192) is accessed 10
    times per aggregation from snapshot 10 on, [8192, 16384) always 5
    times, [16384, 20480) never (split in two in odd snapshots)."""
    for i in range(25):
        regions = [(4096, 8192, 10 if i >= 10 else 0), (8192, 16384, 5)]
        if i % 2:
            regions += [(16384, 18432, 0), (18432, 20480, 0)]
        else:
            regions += [(16384, 20480, 0)]
        snapshot(f, T0 + i * STEP, [(42, regions)])


def twopids(f):
    """pid 1 with one 64 KiB range, pid 2 with two 1 MiB ranges and a
    gap; pid 2 appears from the second snapshot on."""
    for i in range(5):
        tasks = [(1, [(0x10000, 0x20000, 1)])]
        if i:
            tasks.append((2, [(0x100000, 0x180000, 3),
                              (0x180000, 0x200000, 0),
                              (0x800000, 0x900000, 7)]))
        snapshot(f, T0 + i * STEP, tasks)


def tiny(f):
    """Two snapshots, for the exact raw text."""
    snapshot(f, T0, [(1348, [(0x560189609000, 0x56018abce000, 0),
                             (0x7fbdff59a000, 0x7fbdffaf1a00, 1)])])
    snapshot(f, T0 + 100000731, [(1348, [(0x560189609000,
                                          0x56018abce000, 2)])])


def varied(f):
    """Two pids, 80 snapshots 100 ms apart, regions of pseudo-random
    sizes and access counts (a fixed linear congruential sequence); pid 8
    is missing from every fifth snapshot.  No answers worked out by hand:
    the tests compare damo with damonitor/damo on it."""
    seed = [12345]

    def rand(n):
        seed[0] = (seed[0] * 1103515245 + 12345) % 2**31
        return seed[0] % n

    for i in range(80):
        tasks = []
        for pid, base in ((7, 0x10000000), (8, 0x7f0000000000)):
            if pid == 8 and i % 5 == 4:
                continue
            regions, addr = [], base
            for _ in range(5 + rand(26)):
                size = 4096 * (1 + rand(64))
                regions.append((addr, addr + size, rand(21)))
                addr += size + 4096 * rand(3)
            tasks.append((pid, regions))
        snapshot(f, T0 + i * STEP, tasks)


# latemap's layout, after a process recorded under UML: a static binary's
# text and heap, 32 MiB it maps after the first snapshot, its stack below
# UML's TASK_SIZE (0x7fc0000000).
LM_TEXT = (0x400000, 0x4a0000)
LM_HEAP = (0x4a2000, 0x4c6000)
LM_MMAP = (0x80800000, 0x82800000)
LM_STACK = (0x7fbffde000, 0x7fbffff000)


def latemap(f):
    """pid 7, 10 snapshots 100 ms apart.  The first, taken before the
    process maps its 32 MiB, has DAMON's three regions of that time: text,
    heap and stack, a small gap between text and heap, a large one from
    the heap up to the stack.  The later ones cover text and heap in one,
    then the 32 MiB (its lower half hot), then the stack: the large gap
    is now two, below and above the new mapping.  What is between the 32
    MiB and the stack, 509 GiB, is in no snapshot.  The seed's heats.py
    picks [LM_MMAP[0], LM_STACK[1]) for its default address range, damo
    picks LM_MMAP (tools/damo/heats.c, guides_of(), says why)."""
    mid = (LM_MMAP[0] + LM_MMAP[1]) // 2
    snapshot(f, T0, [(7, [LM_TEXT + (1,), LM_HEAP + (2,), LM_STACK + (3,)])])
    for i in range(1, 10):
        snapshot(f, T0 + i * STEP, [(7, [
            (LM_TEXT[0], 0x460000, 1), (0x460000, LM_HEAP[1], 0),
            (LM_MMAP[0], mid, 20), (mid, LM_MMAP[1], 5), LM_STACK + (3,)])])


def main():
    global PERF_SCRIPT
    args = sys.argv[1:]
    if args and args[0] == '--perf-script':
        PERF_SCRIPT = True
        args = args[1:]
    name, out = args
    with open(out, 'wb') as f:
        {'simple': simple, 'twopids': twopids, 'tiny': tiny,
         'varied': varied, 'latemap': latemap}[name](f)


if __name__ == '__main__':
    main()
