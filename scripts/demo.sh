#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   demo.sh UML_BINARY
#
# Boots UML, monitors the bundled hotcold workload (8 MiB hot, 24 MiB cold)
# through /sys/kernel/config/damon with mkdir and echo (scripts/demo.bats),
# and prints on the host how the workload's mmap area looks to DAMON over
# time: one row per snapshot, one column per 1/64 of the area, darker for
# more accesses per aggregation.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"
"$top/scripts/run-selftests.sh" "$1" "$out/run" "$top/scripts/demo.bats" \
	> "$out/run.log" 2>&1 || { cat "$out/run.log"; exit 1; }
rec=$out/run/demo.rec
echo "DAMON demo: the monitored process's mmap area, as seen through"
echo "/sys/kernel/config/damon/contexts/demo/targets/app/snapshot"
echo "(sample_us 5000, aggr_us 100000; record: $rec)"
echo
awk '
/^# workload/ { hs = $6; he = $7; cs = $9; ce = $10; next }
/^# nr_agg/ { tail = $0; next }
{
	t = $1; s = $2; e = $3; n = $4
	if (e <= hs - 1048576 || s >= ce + 1048576) next
	rows[t] = 1; st[t, ++cnt[t]] = s; en[t, cnt[t]] = e; nr[t, cnt[t]] = n
}
END {
	lo = hs - 1048576; hi = ce + 1048576; w = 64; shade = " .:-=+*#%@"
	hc = int((hs - lo) * w / (hi - lo)); cc = int((cs - lo) * w / (hi - lo))
	printf "        %*s%-*s%s\n", hc, "", cc - hc, "v hot", "v cold"
	for (t = 1; t in rows; t++) {
		line = ""
		for (c = 0; c < w; c++) {
			a = lo + (hi - lo) * (c + 0.5) / w; v = 0
			for (i = 1; i <= cnt[t]; i++)
				if (st[t, i] <= a && a < en[t, i]) v = nr[t, i]
			line = line substr(shade, 1 + int(v * 9 / 20), 1)
		}
		printf "%5.1fs |%s|\n", t * 0.2, line
	}
	printf "\nlegend: \" \" 0 .. \"@\" 20 accesses per 20 samples\n"
	sub(/^# /, "", tail); print tail
}' "$rec"
