#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   run-kunit.sh TREE BUILD_DIR KUNITCONFIG JOBS COUNTS_FILE [MAKE_OPTION...]
#
# Runs our KUnit suites with the tree's own kunit.py (ARCH=um) and writes
# "passed failed skipped" to COUNTS_FILE.
set -u
tree=$1 build=$2 kconf=$3 jobs=$4 counts=$5
shift 5
opts=()
for o in "$@"; do opts+=(--make_options "$o"); done
log=$(dirname "$counts")/kunit.log

cd "$tree" || exit 1
python3 tools/testing/kunit/kunit.py run --kunitconfig="$kconf" \
	--build_dir="$build" --jobs="$jobs" "${opts[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# "Testing complete. Ran 30 tests: passed: 29, failed: 1"
sum=$(grep -a 'Testing complete' "$log" | tail -n 1 | sed 's/\x1b\[[0-9;]*m//g')
get() { echo "$sum" | grep -o "$1: [0-9]*" | grep -o '[0-9]*$' || echo 0; }
passed=$(get passed)
failed=$(( $(get failed) + $(get crashed) + $(get errors) ))
skipped=$(get skipped)
# A run that built nothing or never reached the summary is one failure.
if [ -z "$sum" ] || { [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; }; then
	failed=$((failed + 1))
fi
echo "$passed $failed $skipped" > "$counts"
exit "$rc"
