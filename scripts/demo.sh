#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   demo.sh UML_BINARY
#
# Boots UML and records the bundled phases workload with damo
# (scripts/demo.bats): 32 MiB whose hot quarter moves up the address range
# every 3 seconds.  Then, on the host, prints damo's working set size and
# number-of-regions reports and a terminal heatmap of the workload's
# memory, and writes a PNG heatmap.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
damo=$top/tools/out/damo
rm -rf "$out"
mkdir -p "$out"
"$top/scripts/run-selftests.sh" "$1" "$out/run" "$top/scripts/demo.bats" \
	> "$out/run.log" 2>&1 || { cat "$out/run.log"; exit 1; }
data=$out/run/demo.data
read -r pid start end < "$out/run/demo.out"

echo "DAMON demo: \`damo record\` of selftests/bin/phases (pid $pid) in UML"
echo "(32 MiB at $(printf '0x%x-0x%x' "$start" "$end"); the hot quarter moves up every 3 s)"
summary=$(sed -nE 's/^damo: ([0-9]+ snapshots of [0-9]+ aggregations) recorded to [^;]*(.*)/\1\2/p' "$out/run/demo.err")
echo "record: $data ($summary)"
echo
echo "$ damo report wss"
"$damo" report wss -i "$data"
echo
echo "$ damo report nr_regions"
"$damo" report nr_regions -i "$data"
echo
echo "$ damo report heatmap --amin $start --amax $end"
"$damo" report heatmap -i "$data" --amin "$start" --amax "$end" --ares 16
echo
"$damo" report heatmap -i "$data" --amin "$start" --amax "$end" \
	--title "DAMON: the phases workload (32 MiB, hot quarter moving up)" \
	-o "$out/heatmap.png"
echo "PNG heatmap: $out/heatmap.png"
