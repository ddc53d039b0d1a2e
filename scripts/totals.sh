#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   totals.sh RESULTS_DIR STAGE...
#
# Adds up the "passed failed skipped" lines that each STAGE wrote into
# RESULTS_DIR/<STAGE>.counts and prints the totals as the last line.  A
# stage that left no counts file failed before it could count anything.
set -u
dir=$1
shift
p=0 f=0 s=0
for stage in "$@"; do
	if [ ! -f "$dir/$stage.counts" ]; then
		echo "$stage: no results (stage failed early)"
		f=$((f + 1))
		continue
	fi
	read -r sp sf ss < "$dir/$stage.counts"
	echo "$stage: $sp passed, $sf failed, $ss skipped"
	p=$((p + sp)) f=$((f + sf)) s=$((s + ss))
done
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
