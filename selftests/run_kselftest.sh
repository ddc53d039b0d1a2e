#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   run_kselftest.sh [SUITE...]
#
# The suites as one kselftest: runs the bats suites (default: every
# selftests/*.bats; a SUITE is a name like 10-configfs-tree or a path),
# prints their TAP and exits the way kselftest's runner expects:
#
#   0  every test passed (some may have skipped)
#   1  a test failed, or bats could not run the suites
#   4  skip: nothing could be tested here (the reason is printed as a TAP
#      "# SKIP" line): not root, no bats, no DAMON configfs tree, not a
#      machine these tests may change, or every test skipped
#
# The suites change the kernel's DAMON state, so lib.bash lets them run
# only in a disposable test machine (UML or QEMU, booted by
# scripts/run-selftests.sh with init=selftests/init.sh); run
# anywhere else, this script skips rather than fails.
set -u

ksft_pass=0 ksft_fail=1 ksft_skip=4
dir=$(cd "$(dirname "$0")" && pwd)

skip_all() {
	echo "1..0 # SKIP $*"
	exit $ksft_skip
}

[ "$EUID" -eq 0 ] || skip_all "needs root"
command -v bats > /dev/null || skip_all "bats is not installed"
[ -d /sys/kernel/config/damon ] ||
	skip_all "no /sys/kernel/config/damon (CONFIG_DAMON_CONFIGFS, configfs mounted?)"
# the same test lib.bash makes: PID 1 is selftests/init.sh
mapfile -t -d '' init_args < /proc/1/cmdline 2> /dev/null
[[ "${init_args[1]:-}" == */selftests/init.sh ]] ||
	skip_all "not a selftest machine (scripts/run-selftests.sh boots one)"

suites=()
for s in "$@"; do
	for f in "$s" "$dir/$s" "$dir/$s.bats"; do
		[ -f "$f" ] && break
	done
	[ -f "$f" ] || { echo "no such suite: $s" >&2; exit $ksft_fail; }
	suites+=("$f")
done
[ $# -gt 0 ] || suites=("$dir"/*.bats)

out=$(mktemp "${TMPDIR:-/tmp}/ksft.XXXXXX") || exit $ksft_fail
trap 'rm -f "$out"' EXIT
bats --formatter tap "${suites[@]}" 3>&- | tee "$out"
rc=${PIPESTATUS[0]}

ran=$(grep -cE '^(not )?ok ' "$out")
failed=$(grep -cE '^not ok ' "$out")
skipped=$(grep -cE '^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]' "$out")
if [ "$failed" -gt 0 ] || [ "$rc" -ne 0 ] || [ "$ran" -eq 0 ]; then
	exit $ksft_fail
fi
[ "$skipped" -lt "$ran" ] || exit $ksft_skip
exit $ksft_pass
