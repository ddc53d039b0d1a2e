#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   run-kunit.sh TREE BUILD_DIR COUNTS_FILE
#
# Runs our KUnit suites (damon*) in the UML kernel already built in
# BUILD_DIR (the debug flavour builds them in, off by default) with the
# tree's own kunit.py, which boots it with kunit.enable=1 and parses the
# results, and writes "passed failed skipped" to COUNTS_FILE.  No separate
# kunit.py kernel is built: that saved a whole UML build in make check.
set -u
tree=$1 build=$(realpath "$2") counts=$(realpath "$3")
log=$(dirname "$counts")/kunit.log

if ! grep -q '^CONFIG_DAMON_KUNIT_TEST=y' "$build/.config" 2>/dev/null; then
	echo "run-kunit.sh: $build has no CONFIG_DAMON_KUNIT_TEST" >&2
	echo "0 1 0" > "$counts"
	exit 1
fi
cd "$tree" || exit 1
python3 tools/testing/kunit/kunit.py exec --build_dir="$build" \
	--timeout=900 'damon*' 2>&1 | tee "$log"
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
