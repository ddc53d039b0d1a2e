#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write crafted DAMON record files with known contents, for the tests.

    mkrec.py NAME OUT

NAME is one of the records below.  The layout is the one of
Documentation/record-format.md: per snapshot s64 sec, s64 nsec, u32
nr_tasks; per task u64 pid, u32 nr_regions; per region u64 start, u64 end,
u32 nr_accesses; native byte order, packed.
"""
import struct
import sys

T0 = 1000 * 10**9          # the first snapshot's time, ns
STEP = 100 * 10**6         # 100 ms between snapshots


def snapshot(f, time_ns, tasks):
    f.write(struct.pack('=qqI', time_ns // 10**9, time_ns % 10**9, len(tasks)))
    for pid, regions in tasks:
        f.write(struct.pack('=QI', pid, len(regions)))
        for start, end, nr in regions:
            f.write(struct.pack('=QQI', start, end, nr))


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


def main():
    name, out = sys.argv[1], sys.argv[2]
    with open(out, 'wb') as f:
        {'simple': simple, 'twopids': twopids, 'tiny': tiny}[name](f)


if __name__ == '__main__':
    main()
