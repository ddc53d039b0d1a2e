#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a DAMON record file as `damo report raw` does, reading it only as
Documentation/record-format.md describes it: an independent check that the
files damo writes are in that format (and so readable by the seed's
tools/damon scripts, which share it).

    readrec.py FILE
"""
import struct
import sys


def main():
    data = open(sys.argv[1], 'rb').read()
    off = 0
    start = None

    def take(fmt):
        nonlocal off
        vals = struct.unpack_from(fmt, data, off)
        off += struct.calcsize(fmt)
        return vals

    out = []
    while off < len(data):
        sec, nsec, nr_tasks = take('=qqI')
        t = sec * 10**9 + nsec
        if start is None:
            start = t
            out.append('start_time:  %d' % start)
        out.append('rel time: %16d' % (t - start))
        out.append('nr_tasks:  %d' % nr_tasks)
        for _ in range(nr_tasks):
            pid, nr_regions = take('=QI')
            out.append('pid:  %d' % pid)
            out.append('nr_regions:  %d' % nr_regions)
            for _ in range(nr_regions):
                s, e, nr = take('=QQI')
                out.append('%012x-%012x(%10d):\t%d' % (s, e, e - s, nr))
            out.append('')
    sys.stdout.write('\n'.join(out) + ('\n' if out else ''))


if __name__ == '__main__':
    main()
