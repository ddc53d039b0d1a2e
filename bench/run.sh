#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/run.sh OUR_KERNEL UPSTREAM_KERNEL OUTDIR
#
# Runs bench/driver.sh in machines booted with init=bench/init.sh (UML
# kernels, or x86_64 bzImages under QEMU: scripts/machine.bash), both
# kernels of the same platform, alternating our kernel and the
# upstream reference (ours, upstream, ours, upstream, ...), BENCH_REPS
# times each (default 3), one machine at a time; then prints the table
# (bench/report.sh).  Each invocation gets OUTDIR/YYYYmmdd-HHMMSS/, with
# one directory per machine (rep-N-KERNEL/) and results.tsv + table.md;
# OUTDIR/latest points to it.  The BENCH_* knobs of driver.sh pass
# through; BENCH_MEM is the machine's memory (default 1G), BENCH_SMP a
# QEMU machine's CPUs (default 1), BENCH_TIMEOUT the seconds one machine
# may take (default 600 in UML, 1200 under QEMU).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
me=$(basename "$0")
die() { echo "$me: $*" >&2; exit 2; }

[ $# = 3 ] || die "usage: $me OUR_KERNEL UPSTREAM_KERNEL OUTDIR"
ours=$(readlink -f "$1") up=$(readlink -f "$2")
# shellcheck source=../scripts/machine.bash
. "$top/scripts/machine.bash"
machine_platform "$up" || exit 2
up_platform=$MACHINE_PLATFORM
machine_platform "$ours" || exit 2
[ "$MACHINE_PLATFORM" = "$up_platform" ] ||
	die "$ours and $up are kernels of different platforms"
mkdir -p "$3" || die "cannot create $3"
base=$(cd "$3" && pwd)
run=$base/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$run" || die "cannot create $run"
ln -sfn "$(basename "$run")" "$base/latest"
reps=${BENCH_REPS:-3}
bin=${BENCH_BIN:-$top/build/bench/bin}
[ -x "$bin/hwc" ] && [ -x "$bin/moving" ] ||
	die "no workloads in $bin (make bench-workloads)"
case "$top$run$bin" in
*[[:space:],]*) die "paths must not contain white space or commas" ;;
esac

umldir=$(mktemp -d /tmp/bench-machine.XXXXXX) || die "mktemp failed"
upid=
cleanup() {
	if [ -n "$upid" ] && kill -0 "$upid" 2>/dev/null; then
		kill -TERM "$upid" 2>/dev/null
		wait "$upid" 2>/dev/null
	fi
	rm -rf "$umldir"
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM HUP

{
	echo "date $(date -u +%FT%TZ)"
	echo "host $(uname -n) $(uname -r) $(uname -m)"
	echo "platform $MACHINE_PLATFORM"
	echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc)"
	echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(git -C "$top" diff --quiet HEAD -- kernel 2>/dev/null || echo '+dirty kernel/')"
	echo "reps $reps"
	env | grep '^BENCH_' | sort
} > "$run/machine.txt"

ulimit -c 0
deftime=600
[ "$MACHINE_PLATFORM" = qemu ] && deftime=2400
start=$SECONDS
for ((rep = 1; rep <= reps; rep++)); do
	for kernel in ours upstream; do
		[ "$kernel" = ours ] && k=$ours || k=$up
		dir=$run/rep-$rep-$kernel
		mkdir -p "$dir"
		args=(BENCH_OUT="$dir" BENCH_KERNEL="$kernel" BENCH_BIN="$bin")
		for v in BENCH_SIZES BENCH_WIN BENCH_MON_WIN BENCH_ACC_SECS BENCH_JUMPS \
			 BENCH_JUMP_SECS BENCH_PO_SECS BENCH_PHASES BENCH_SCALE_MIB \
			 BENCH_SCALE_NRS BENCH_LAT_SECS BENCH_RC_SECS BENCH_RC_MIN_AGE_S \
			 BENCH_FLOOR_NRS BENCH_FLOOR_PA_NRS; do
			[ -n "${!v:-}" ] && args+=("$v=${!v// /:}")
		done
		MACHINE_MEM=${BENCH_MEM:-1G} MACHINE_SMP=${BENCH_SMP:-1}
		machine_cmd "$k" "$top/bench/init.sh" "$umldir" \
			"bench-$rep-$kernel" "${args[@]}"
		t0=$SECONDS
		timeout -k 10 "${BENCH_TIMEOUT:-$deftime}" "${MACHINE_CMD[@]}" \
			< /dev/null > "$dir/console.log" 2>&1 &
		upid=$!
		wait "$upid"
		rc=$?
		upid=
		st=$(cat "$dir/init.rc" 2>/dev/null || echo none)
		echo "  BENCH   rep $rep/$reps $kernel: $((SECONDS - t0))s ($MACHINE_PLATFORM $rc, driver $st)"
		[ "$st" = 0 ] || tail -n 5 "$dir/driver.log" 2>/dev/null | sed 's/^/    /'
	done
done
echo "  BENCH   $((SECONDS - start))s in $MACHINE_NAME; results in $run"
"$top/bench/report.sh" "$run"
