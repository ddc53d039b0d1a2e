#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the selftest machine: scripts/run-selftests.sh boots a UML kernel
# or an x86_64 kernel under QEMU with the host's root filesystem and
# init=<this file> (scripts/machine.bash).  The mounts and the power-off
# come from scripts/init-lib.bash.
#
# Settings arrive as environment variables from the kernel command line
# (MACHINE_PLATFORM from scripts/machine.bash, then these):
#   ST_OUTDIR        results directory (a host path, written through the root)
#   ST_SUITES        comma-separated .bats files (default: selftests/*.bats)
#   ST_FILTER        bats --filter regex (no white space), optional
#   ST_TAGS          bats --filter-tags: only the tests with this tag, optional
#   ST_TEST_TIMEOUT  seconds one test may take (default 300, 0: no limit)
#   ST_FUZZ_SEED, ST_FUZZ_SECS   for 60-fuzz.bats, optional
#
# Writes ST_OUTDIR/results.tap (bats' TAP), ST_OUTDIR/kmemleak.log (when
# the kernel has kmemleak), ST_OUTDIR/dmesg.log and, last,
# ST_OUTDIR/init.rc (the exit status of bats), then powers the machine off.

ST_DIR=$(cd "${0%/*}" && pwd)
export ST_DIR ST_BIN=$ST_DIR/bin ST_OUTDIR=${ST_OUTDIR:-}

say() { echo "init: $*"; }

# shellcheck source=../scripts/init-lib.bash
. "$ST_DIR/../scripts/init-lib.bash"
export HOME=/tmp TMPDIR=/tmp

say "started, $(date -u +%FT%TZ)"
init_mounts

# Private scratch space (init_scratch): without it, writes to /tmp would
# land on the host.  The work tree, ST_OUTDIR and the suites stay visible.
{ [ -n "$ST_OUTDIR" ] && [ -d "$ST_OUTDIR" ]; } ||
	fatal "ST_OUTDIR '$ST_OUTDIR' is not a directory"
IFS=, read -r -a suites <<< "${ST_SUITES:-}"
init_scratch "$(dirname "$ST_DIR")" "$ST_OUTDIR" "${suites[@]%/*}"
[ -w "$ST_OUTDIR" ] || fatal "ST_OUTDIR '$ST_OUTDIR' is not writable"

[ ${#suites[@]} -gt 0 ] || suites=("$ST_DIR"/*.bats)
opts=(--formatter tap --timing)
[ -n "${ST_FILTER:-}" ] && opts+=(--filter "$ST_FILTER")
[ -n "${ST_TAGS:-}" ] && opts+=(--filter-tags "$ST_TAGS")
# bats and every test shell load bash's builtins for mkdir, rm, sleep,
# ... instead of exec'ing coreutils (selftests/bash-env.bash).
# ST_BASH_ENV=0 leaves them out.
if [ "${ST_BASH_ENV:-1}" != 0 ]; then
	export BASH_ENV=$ST_DIR/bash-env.bash
fi
# Per-test watchdog; ST_TEST_TIMEOUT=0 turns it off.
if [ "${ST_TEST_TIMEOUT:-300}" != 0 ]; then
	export BATS_TEST_TIMEOUT=${ST_TEST_TIMEOUT:-300}
fi

# Under QEMU's TCG, a process alone on the vCPU hides its accesses from
# the Accessed bits (selftests/workloads/tlbtick.c); a process that wakes
# every millisecond brings back the TLB turnover of a real machine, at
# about 5 % of the vCPU.
if [ "${MACHINE_PLATFORM:-}" = qemu ]; then
	"$ST_BIN/tlbtick" 1000 &
	say "tlbtick $! wakes every 1000 us"
fi

say "running ${#suites[@]} suite(s) as $(id -un) on $(uname -r) $(uname -m)"
cd "$ST_DIR" || fatal "cannot cd to $ST_DIR"
start=$(date +%s)
bats "${opts[@]}" "${suites[@]}" > "$ST_OUTDIR/results.tap" < /dev/null
rc=$?
say "bats exited $rc after $(( $(date +%s) - start ))s"

# kmemleak (the debug flavour has it): scan for what the whole run leaked
# and save the report for run-selftests.sh.  Objects younger than 5 s are
# never reported, hence the pause; a second scan drops what the first one
# saw unreferenced only because its pointer was in flight (the report
# lists the objects that the latest scan found unreferenced).
kmemleak=/sys/kernel/debug/kmemleak
if [ -e "$kmemleak" ]; then
	say "kmemleak: scanning"
	sleep 6
	if echo scan > "$kmemleak" && sleep 2 && echo scan > "$kmemleak"; then
		cat "$kmemleak" > "$ST_OUTDIR/kmemleak.log" 2>&1
		say "kmemleak: $(grep -c '^unreferenced object' \
			"$ST_OUTDIR/kmemleak.log") unreferenced object(s)"
	else
		# It disables itself on errors (metadata pool exhausted, ...).
		say "kmemleak: cannot scan"
		echo "kmemleak: unavailable: $(dmesg | grep -m3 'kmemleak:')" \
			> "$ST_OUTDIR/kmemleak.log"
	fi
fi

dmesg > "$ST_OUTDIR/dmesg.log" 2>&1 || say "dmesg failed"
echo "$rc" > "$ST_OUTDIR/init.rc"
cd / && power_off
