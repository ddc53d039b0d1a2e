#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/run.sh OUR_UML UPSTREAM_UML OUTDIR
#
# Runs bench/driver.sh in UML machines, alternating our kernel and the
# upstream reference (ours, upstream, ours, upstream, ...), BENCH_REPS
# times each (default 3), one machine at a time; then prints the table
# (bench/report.sh).  Each invocation gets OUTDIR/YYYYmmdd-HHMMSS/, with
# one directory per machine (rep-N-KERNEL/) and results.tsv + table.md;
# OUTDIR/latest points to it.  The BENCH_* knobs of driver.sh pass
# through; BENCH_MEM is the UML memory (default 1G), BENCH_TIMEOUT the
# seconds one machine may take (default 600).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
me=$(basename "$0")
die() { echo "$me: $*" >&2; exit 2; }

[ $# = 3 ] || die "usage: $me OUR_UML UPSTREAM_UML OUTDIR"
ours=$(readlink -f "$1") up=$(readlink -f "$2")
for k in "$ours" "$up"; do
	[ -x "$k" ] || die "$k: no such UML kernel"
done
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

umldir=$(mktemp -d /tmp/uml-bench.XXXXXX) || die "mktemp failed"
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
	echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc)"
	echo "commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(git -C "$top" diff --quiet HEAD -- kernel 2>/dev/null || echo '+dirty kernel/')"
	echo "reps $reps"
	env | grep '^BENCH_' | sort
} > "$run/machine.txt"

ulimit -c 0
start=$SECONDS
for ((rep = 1; rep <= reps; rep++)); do
	for kernel in ours upstream; do
		[ "$kernel" = ours ] && uml=$ours || uml=$up
		dir=$run/rep-$rep-$kernel
		mkdir -p "$dir"
		# shellcheck disable=SC2054 # commas belong to con0=null,fd:1
		args=(
			mem="${BENCH_MEM:-1G}" rootfstype=hostfs rootflags=/ rw
			con=null ssl=null con0=null,fd:1
			uml_dir="$umldir" umid="bench-$rep-$kernel"
			init="$top/bench/uml-init.sh"
			BENCH_OUT="$dir" BENCH_KERNEL="$kernel" BENCH_BIN="$bin"
		)
		for v in BENCH_SIZES BENCH_WIN BENCH_MON_WIN BENCH_ACC_SECS BENCH_JUMPS \
			 BENCH_JUMP_SECS BENCH_PO_SECS; do
			[ -n "${!v:-}" ] && args+=("$v=${!v// /:}")
		done
		t0=$SECONDS
		timeout -k 10 "${BENCH_TIMEOUT:-600}" "$uml" "${args[@]}" \
			< /dev/null > "$dir/console.log" 2>&1 &
		upid=$!
		wait "$upid"
		rc=$?
		upid=
		st=$(cat "$dir/init.rc" 2>/dev/null || echo none)
		echo "  BENCH   rep $rep/$reps $kernel: $((SECONDS - t0))s (uml $rc, driver $st)"
		[ "$st" = 0 ] || tail -n 5 "$dir/driver.log" 2>/dev/null | sed 's/^/    /'
	done
done
echo "  BENCH   $((SECONDS - start))s in UML; results in $run"
"$top/bench/report.sh" "$run"
