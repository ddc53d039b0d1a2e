#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/platforms.sh OUTDIR PLATFORM OUR_KERNEL UPSTREAM_KERNEL [...]
#
# What `make bench` runs: bench/run.sh once per platform (uml, x86), with
# results in OUTDIR/PLATFORM/, then the tables of all of them.  The
# platforms run side by side when the host has two CPUs or more: a bench
# machine is one busy host thread (UML, or QEMU TCG with one CPU), so
# each platform gets a CPU of its own and the whole takes as long as the
# slower one.  Both kernels of a platform still alternate on the same CPU,
# so the ours/upstream ratios compare like with like.  BENCH_SERIAL=1 runs
# the platforms one after the other.  x86_64 defaults to larger sizes and
# memory than UML can take (BENCH_SIZES "16 64 256 1024", BENCH_MEM 2G).
set -u

here=$(cd "$(dirname "$0")" && pwd)
me=$(basename "$0")
if [ $# -lt 4 ] || [ $((($# - 1) % 3)) != 0 ]; then
	echo "usage: $me OUTDIR PLATFORM OUR_KERNEL UPSTREAM_KERNEL [...]" >&2
	exit 2
fi
out=$1
shift
mkdir -p "$out" || exit 2

serial=${BENCH_SERIAL:-0}
[ "$(nproc)" -ge 2 ] || serial=1

# one PLATFORM OURS UPSTREAM: bench/run.sh with the platform's defaults,
# its output lines tagged with the platform; exit status in OUT/PLATFORM.rc.
one() {
	local p=$1 rc
	(
		if [ "$p" = x86 ]; then
			export BENCH_SIZES=${BENCH_SIZES:-16 64 256 1024}
			export BENCH_MEM=${BENCH_MEM:-2G}
		fi
		"$here/run.sh" "$2" "$3" "$out/$p" 2>&1
		echo $? > "$out/$p.rc"
	) | sed -u "s/^/[$p] /"
	rc=$(cat "$out/$p.rc" 2>/dev/null || echo 1)
	return "$rc"
}

start=$SECONDS
platforms=()
pids=()
while [ $# -gt 0 ]; do
	platforms+=("$1")
	rm -f "$out/$1.rc"
	if [ "$serial" = 1 ]; then
		one "$1" "$2" "$3"
	else
		one "$1" "$2" "$3" &
		pids+=($!)
	fi
	shift 3
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"

rc=0
for p in "${platforms[@]}"; do
	echo
	echo "== $p: $out/$p/latest/table.md"
	cat "$out/$p/latest/table.md" 2>/dev/null || echo "(no table)"
	[ "$(cat "$out/$p.rc" 2>/dev/null)" = 0 ] || { echo "$p: bench/run.sh failed"; rc=1; }
done
echo
echo "  BENCH   $((SECONDS - start))s for ${platforms[*]}$([ "$serial" = 1 ] || echo ', side by side')"
exit $rc
