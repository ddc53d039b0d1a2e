#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a bench machine (UML, or x86_64 under QEMU): bench/run.sh boots
# it with the host's root filesystem and init=<this file>
# (scripts/machine.bash).  The mounts and the power-off come from
# scripts/init-lib.bash.  Scratch files go to a tmpfs at /dev/shm, never to
# the host's /tmp.
#
# Settings arrive as environment variables from the kernel command line
# (MACHINE_PLATFORM from scripts/machine.bash, then these):
#   BENCH_OUT     results directory of this run (a host path)
#   BENCH_KERNEL  ours | upstream (which DAMON interface to drive)
#   plus the BENCH_* knobs bench/driver.sh reads.
# Runs bench/driver.sh, saves the kernel log, writes BENCH_OUT/init.rc
# (the driver's exit status) and powers the machine off.

here=$(cd "${0%/*}" && pwd)

say() { echo "bench-init: $*"; }

# shellcheck source=../scripts/init-lib.bash
. "$here/../scripts/init-lib.bash"
export HOME=/dev/shm TMPDIR=/dev/shm

say "started on $(uname -r), $(date -u +%FT%TZ)"
init_mounts

{ [ -n "${BENCH_OUT:-}" ] && [ -d "$BENCH_OUT" ] && [ -w "$BENCH_OUT" ]; } ||
	fatal "BENCH_OUT '${BENCH_OUT:-}' is not a writable directory"

cd /dev/shm || fatal "no /dev/shm"
"$here/driver.sh" > "$BENCH_OUT/driver.log" 2>&1 < /dev/null
rc=$?
say "driver exited $rc"
dmesg > "$BENCH_OUT/dmesg.log" 2>&1
echo "$rc" > "$BENCH_OUT/init.rc"
cd / && power_off
