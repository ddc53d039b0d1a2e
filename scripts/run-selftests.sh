#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   run-selftests.sh KERNEL OUTDIR [SUITE...]
#
# Boots KERNEL with the host's root filesystem and init=selftests/init.sh,
# which runs the bats suites (default: all of selftests/*.bats; a SUITE is
# a name like 00-smoke, a file name or a path) inside that machine and
# powers it off.  KERNEL is either a UML binary (an ELF executable; root
# over hostfs) or an x86_64 bzImage, booted under qemu-system-x86_64 with
# TCG (root over virtio-9p).  Leaves in OUTDIR:
#
#   results.tap   bats' TAP output         console.log  the machine's console
#   dmesg.log     the kernel log at the end
#   kmemleak.log  kmemleak's report at the end (kernels with kmemleak)
#
# prints the TAP, fails on kernel splats found in dmesg.log or console.log,
# and writes "passed failed skipped" to OUTDIR/../selftests.counts.  A
# splat counts as one more failure, and so does a run without a complete
# TAP plan (the machine crashed, hung or was killed), and so does a
# kmemleak report with a leak from DAMON (see kmemleak_ours).  Exits non-zero on any failure.
#
#   run-selftests.sh --check-log LOG...
#
# only scans the given kernel logs for splats, prints what it finds and
# exits 1 if there is any (to check the scan itself, or an old run's logs).
#
# With several suites and ST_JOBS > 1 (default: the number of host CPUs),
# the suites are shared out to ST_JOBS machines running side by side,
# each booted once per suite and taking the next suite from a queue,
# largest first.  (UML runs one CPU, and so does each QEMU machine unless
# ST_SMP says otherwise; the suites are bound by forks and page faults, so
# two machines on two cores take about half the time.)
# Each suite then leaves its files in OUTDIR/SUITE/, and OUTDIR/results.tap
# is all of their TAP, renumbered, in suite order.
#
# Environment: ST_TIMEOUT (seconds for one machine's run, default 2400),
# ST_TEST_TIMEOUT (seconds per test, default 300), ST_FILTER (bats --filter
# regex without white space), ST_TAGS (a bats tag: only the tests
# tagged with it, e.g. x86, see selftests/README.md), ST_MEM (memory, default 1G), ST_SMP (CPUs of
# a QEMU machine, default 1), ST_VERBOSE=1
# (show the console while it runs), ST_FUZZ_SEED and ST_FUZZ_SECS (passed
# on to selftests/60-fuzz.bats), ST_BASH_ENV=0 (no loadable builtins in
# the machine's bash, selftests/bash-env.bash).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
me=$(basename "$0")

die() { echo "$me: $*" >&2; exit 2; }

# What a kernel splat looks like.  PRINTK_TIME prefixes do not matter.
splat='Oops|BUG:|WARNING:|Kernel panic|general protection fault'
splat+='|Unable to handle kernel|possible circular locking'
splat+='|possible recursive locking|inconsistent lock state'
splat+='|suspicious RCU|KASAN|UBSAN:|INFO: task .* blocked'
splat+='|rcu_sched self-detected stall|soft lockup|hard LOCKUP'
splat+='|Attempted to kill init'
# UML kills a process whose host mappings it cannot update.
splat+='|stub syscall type [0-9]+ failed|UML ran out of memory on the host'

# kmemleak_ours REPORT: print the objects of a kmemleak report that DAMON
# leaked: those with a damon or configfs function in their allocation
# backtrace, or allocated by a kdamond.  configfs counts as ours because
# DAMON is its only user in the selftest kernel.  Other objects are leaks
# of UML or of boot code that nothing here can fix (and conservative
# scanning misses some pointers UML keeps in host memory), so they are
# only counted.
kmemleak_ours() {
	awk '
	function flush() {
		if (ours) printf "%s", blk
		blk = ""; ours = 0; hex = 0
	}
	/^unreferenced object / { flush() }
	{ blk = blk $0 "\n" }
	/^ *hex dump/ { hex = 1; next }
	/^ *backtrace/ { hex = 0; next }
	!hex && /damon|configfs/ { ours = 1 }
	END { flush() }' "$1"
}

# scan_logs LOG...: print a report of the splats in the first LOG that
# has any (the console repeats the kernel log); set found to its name.
scan_logs() {
	local log
	found=
	for log in "$@"; do
		[ -f "$log" ] || continue
		grep -qaE "$splat" "$log" || continue
		echo "---- kernel splat report ($log) ----"
		grep -naE -B2 -A30 -m5 "$splat" "$log" | head -n 200
		echo "---- end of report ----"
		found=$log
		return
	done
}

if [ "${1:-}" = --check-log ]; then
	shift
	[ $# -gt 0 ] || die "usage: $me --check-log LOG..."
	for log in "$@"; do
		[ -f "$log" ] || die "$log: no such file"
	done
	scan_logs "$@"
	[ -z "$found" ] || { echo "$me: kernel splat in $found" >&2; exit 1; }
	echo "$me: no kernel splat in $*"
	exit 0
fi

[ $# -ge 2 ] || die "usage: $me KERNEL OUTDIR [SUITE...]"
kernel=$1 out=$2
shift 2
timeout=${ST_TIMEOUT:-2400}

# shellcheck source=machine.bash
. "$top/scripts/machine.bash"
machine_platform "$kernel" || exit 2
machine=$MACHINE_NAME
kernel=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
counts=${ST_COUNTS:-$(dirname "$out")/selftests.counts}
rm -f "$counts" "$out"/results.tap "$out"/dmesg.log "$out"/console.log \
	"$out"/init.rc "$out"/kmemleak.log

# Everything goes through the kernel command line, split at white space.
case "$top$out${ST_FILTER:-}" in
*[[:space:],]*) die "paths and ST_FILTER must not contain white space or commas" ;;
esac

suites=()
for s in "$@"; do
	for f in "$s" "$top/selftests/$s" "$top/selftests/$s.bats"; do
		[ -f "$f" ] && break
	done
	[ -f "$f" ] || die "no such suite: $s"
	suites+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done
[ $# -gt 0 ] || suites=("$top"/selftests/*.bats)
[ -e "${suites[0]}" ] || die "no suites in $top/selftests"
case "${suites[*]}" in
*,*) die "suite paths must not contain commas" ;;
esac

# The workloads are host binaries; build them here, not in the machine.
if [ -z "${ST_NO_BUILD:-}" ]; then
	make -s -C "$top/selftests" || die "building the selftest workloads failed"
fi

# run_sharded: run each suite in a machine of its own, ST_JOBS at a
# time, by running this script once per suite; then merge the results.
run_sharded() {
	local jobs=$1 queue lock w s name n i tap plan
	local total_p=0 total_f=0 total_s=0 p f k rc=0 start=$SECONDS

	rm -rf "$out"/*/
	queue=$out/.queue lock=$out/.queue.lock
	# Largest first: suites with many or slow tests are the long ones, and
	# a long one started last would leave the other machines idle.
	for s in "${suites[@]}"; do
		echo "$(wc -c < "$s") $s"
	done | sort -rn | cut -d' ' -f2- > "$queue"
	echo "  $machine    $kernel (${#suites[@]} suites on $jobs machines)"
	for ((w = 0; w < jobs; w++)); do
		(
			while :; do
				s=$(flock -x "$lock" sh -c \
					'read -r s < "$1" && sed -i 1d "$1" && echo "$s"' _ "$queue") || break
				[ -n "$s" ] || break
				name=$(basename "$s" .bats)
				ST_NO_BUILD=1 ST_JOBS=1 ST_COUNTS="$out/$name.counts" \
					"$0" "$kernel" "$out/$name" "$s" > "$out/$name.log" 2>&1
				echo "  $(tail -n 1 "$out/$name.log" | sed "s/^selftests:/$name:/")"
			done
		) &
	done
	wait
	rm -f "$queue" "$lock"

	# One TAP, in suite order, numbered through.
	tap=$out/results.tap
	n=0
	for s in "${suites[@]}"; do
		name=$(basename "$s" .bats)
		plan=$(grep -m1 -E '^1\.\.[0-9]+$' "$out/$name/results.tap" 2>/dev/null)
		plan=${plan#1..}
		n=$((n + ${plan:-0}))
	done
	{
		echo "1..$n"
		i=0
		for s in "${suites[@]}"; do
			name=$(basename "$s" .bats)
			[ -f "$out/$name/results.tap" ] || continue
			awk -v base="$i" '
			/^1\.\.[0-9]+$/ { next }
			/^(not )?ok [0-9]+/ {
				neg = $1 == "not"; k = neg ? 3 : 2
				$k = $k + base; print; next
			}
			{ print }' "$out/$name/results.tap"
			plan=$(grep -m1 -E '^1\.\.[0-9]+$' "$out/$name/results.tap")
			plan=${plan#1..}
			i=$((i + ${plan:-0}))
		done
	} > "$tap"
	echo
	cat "$tap"
	echo

	# Counts come from each run, which also counts splats, leaks and
	# machines that did not finish; show the whole log of any such run.
	for s in "${suites[@]}"; do
		name=$(basename "$s" .bats)
		if ! read -r p f k < "$out/$name.counts" 2>/dev/null; then
			p=0 f=1 k=0
		fi
		total_p=$((total_p + p)) total_f=$((total_f + f))
		total_s=$((total_s + k))
		if [ "$f" != 0 ]; then
			rc=1
			echo "---- $name: $f failure(s); its run's log ($out/$name.log) ----"
			grep -vE '^(not )?ok [0-9]+ |^1\.\.[0-9]+$' "$out/$name.log" | tail -n 300
			echo "----"
		fi
	done
	echo "$total_p $total_f $total_s" > "$counts"
	echo "selftests: $total_p passed, $total_f failed, $total_s skipped" \
		"(${#suites[@]} suites on $jobs $machine machines in $((SECONDS - start))s; logs in $out)"
	return $rc
}

jobs=${ST_JOBS:-$(nproc)}
case $jobs in
''|*[!0-9]*|0) die "ST_JOBS must be a positive number" ;;
esac
[ "$jobs" -le ${#suites[@]} ] || jobs=${#suites[@]}
if [ "$jobs" -gt 1 ]; then
	run_sharded "$jobs"
	exit
fi

# UML's own state (pid file, mconsole socket) goes to a private directory.
umldir=$(mktemp -d /tmp/st-machine.XXXXXX) || die "mktemp failed"
mpid=

cleanup() {
	if [ -n "$mpid" ] && kill -0 "$mpid" 2>/dev/null; then
		kill -TERM "$mpid" 2>/dev/null
		wait "$mpid" 2>/dev/null
	fi
	rm -rf "$umldir"
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM HUP

# What init.sh reads from its environment.
init_env=(
	ST_OUTDIR="$out"
	ST_SUITES="$(IFS=,; echo "${suites[*]}")"
	ST_TEST_TIMEOUT="${ST_TEST_TIMEOUT:-300}"
)
[ -n "${ST_FILTER:-}" ] && init_env+=(ST_FILTER="$ST_FILTER")
case ${ST_TAGS:-} in
'') ;;
*[!a-z0-9_-]*) die "ST_TAGS must be one tag ([a-z0-9_-]), not '$ST_TAGS'" ;;
*) init_env+=(ST_TAGS="$ST_TAGS") ;;
esac
for v in ST_FUZZ_SEED ST_FUZZ_SECS ST_BASH_ENV; do
	case ${!v:-} in
	'') ;;
	*[!0-9]*) die "$v must be a number" ;;
	*) init_env+=("$v=${!v}") ;;
	esac
done
MACHINE_MEM=${ST_MEM:-1G} MACHINE_SMP=${ST_SMP:-1}
machine_cmd "$kernel" "$top/selftests/init.sh" "$umldir" selftests "${init_env[@]}"

ulimit -c 0  # a crashing UML aborts(); no core files in the work tree
echo "  $machine    $kernel (${#suites[@]} suite(s), timeout ${timeout}s)"
start=$SECONDS
# timeout(1) runs the machine in a process group of its own and signals
# the whole group, so UML's helper and userspace processes go too.  stdin
# is /dev/null: CI has none, and the machine must never see the terminal.
timeout -k 10 "$timeout" "${MACHINE_CMD[@]}" < /dev/null > "$out/console.log" 2>&1 &
mpid=$!
[ "${ST_VERBOSE:-0}" = 1 ] && tail -n +1 -f --pid="$mpid" "$out/console.log" &
wait "$mpid"
rc=$?
mpid=
elapsed=$((SECONDS - start))

problems=()
# UML now and then aborts in its host-side exit after the guest powered
# off cleanly (twice in about ten make check runs, never reproduced
# alone).  The guest's work is complete then, so that is no failure; an
# abort before the power-down still is, and so are missing results.
if [ "$rc" = 134 ] && [ "$machine" = UML ] &&
	tail -n 1 "$out/console.log" | grep -q '] reboot: Power down$'; then
	echo "note: UML aborted (status 134) after the guest's clean power-down"
	rc=0
fi
case $rc in
0) ;;
124|137) problems+=("$machine did not finish within ${timeout}s and was killed") ;;
*) problems+=("$machine exited with status $rc") ;;
esac
bats_rc=
[ -f "$out/init.rc" ] && read -r bats_rc < "$out/init.rc"
[ -n "$bats_rc" ] || problems+=("init.sh did not finish")

# Count the TAP.  bats prints "ok N name # skip reason" for skipped tests.
tap=$out/results.tap
passed=0 failed=0 skipped=0 planned=-1
if [ -f "$tap" ]; then
	echo
	cat "$tap"
	echo
	plan=$(grep -m1 -E '^1\.\.[0-9]+$' "$tap")
	[ -n "$plan" ] && planned=${plan#1..}
	passed=$(grep -E '^ok ' "$tap" | grep -cvE '^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]')
	skipped=$(grep -cE '^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]' "$tap")
	failed=$(grep -cE '^not ok ' "$tap")
fi
ran=$((passed + failed + skipped))
complete=0
if [ "$planned" -lt 0 ]; then
	problems+=("no TAP plan in $tap")
	failed=$((failed + 1))
elif [ "$ran" -ne "$planned" ]; then
	problems+=("TAP plan says $planned tests, $ran reported")
	failed=$((failed + 1))
elif [ ${#problems[@]} -gt 0 ]; then
	# The tests all reported, but the machine did not shut down cleanly.
	failed=$((failed + 1))
else
	complete=1
	if [ "$bats_rc" != 0 ] && [ "$failed" -eq 0 ]; then
		problems+=("bats exited with status $bats_rc but no test failed")
		failed=$((failed + 1))
	fi
fi

# Kernel splats.  Both logs are scanned: dmesg.log is missing if the
# machine died.
scan_logs "$out/dmesg.log" "$out/console.log"
if [ -n "$found" ]; then
	problems+=("kernel splat in $found")
	failed=$((failed + 1))
fi

# Leaks (kernels with kmemleak; init.sh scanned after the suites).
kml=$out/kmemleak.log
if [ -f "$kml" ]; then
	if grep -q '^kmemleak: unavailable' "$kml"; then
		problems+=("kmemleak could not scan: $(head -c 300 "$kml")")
		failed=$((failed + 1))
	else
		ours=$(kmemleak_ours "$kml")
		nr_all=$(grep -c '^unreferenced object' "$kml")
		nr_ours=$(grep -c '^unreferenced object' <<< "$ours")
		if [ -n "$ours" ]; then
			echo "---- kmemleak: $nr_ours leak(s) from DAMON ($kml) ----"
			head -n 200 <<< "$ours"
			echo "---- end of report ----"
			problems+=("kmemleak: $nr_ours leak(s) from DAMON in $kml")
			failed=$((failed + 1))
		else
			echo "kmemleak: none from DAMON ($nr_all unrelated object(s) in $kml)"
		fi
	fi
fi

if [ "$complete" = 0 ]; then
	echo "---- last lines of $out/console.log ----"
	tail -n 40 "$out/console.log" 2>/dev/null
	echo "----"
fi

echo "$passed $failed $skipped" > "$counts"
for p in "${problems[@]}"; do
	echo "$me: $p" >&2
done
echo "selftests: $passed passed, $failed failed, $skipped skipped" \
	"($machine ran ${elapsed}s; logs in $out)"
[ "$failed" -eq 0 ]
