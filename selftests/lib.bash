# SPDX-License-Identifier: GPL-2.0
#
# Helpers for selftests/*.bats; a suite starts with `load lib`.  Every
# helper is prefixed st_.  Workloads are started in the test's own shell
# (never under `run`), so that st_stop can collect their exit status, and
# a suite's teardown calls st_cleanup to kill whatever is still running.
#
# shellcheck disable=SC2034 # the variables set here are for the suites

ST_DIR=${ST_DIR:-$(cd "$BATS_TEST_DIRNAME" && pwd)}
ST_BIN=${ST_BIN:-$ST_DIR/bin}
# zram_swap_on / zram_swap_off (swap for the suites that page out)
# shellcheck source=../scripts/zram-swap.bash
. "$ST_DIR/../scripts/zram-swap.bash"
ST_PIDS=()

# Intervals for tests that judge hot memory against cold (README.md,
# "Accuracy under load").  Each sample that finds a page old costs the
# workload one re-fault when it next touches that page: ~0.3 ms in UML on
# an idle host, ~1 ms when the host is busy.  At 5 ms samples a hot range
# split into ten regions then costs the workload more CPU than it has, it
# falls behind, and the range reads as nearly idle, for upstream DAMON as
# for ours.  At 50 ms the same costs a tenth, and a busy host stays well
# clear of that cliff.  ST_ACC_MAX is aggr/sample, the highest nr_accesses.
ST_ACC_SAMPLE_US=50000
ST_ACC_AGGR_US=1000000
ST_ACC_MAX=$((ST_ACC_AGGR_US / ST_ACC_SAMPLE_US))

# st_in_test_machine: this shell runs in the machine that
# scripts/run-selftests.sh booted (PID 1 is selftests/init.sh), with that
# kernel's own procfs and sysfs mounted.  Every test loads this file, so
# the check forks nothing: /proc is this kernel's if /proc/self is this
# shell (through UML's hostfs, the host's /proc would show the host's pid
# of the machine), and its mount table then says what /sys is.
st_in_test_machine() {
	local args=() pid rest
	read -r pid rest < /proc/self/stat 2>/dev/null && [ "$pid" = "$BASHPID" ] ||
		return 1
	st_mount_type /sys > /dev/null
	[ "$ST_MOUNT_TYPE" = sysfs ] && mapfile -t -d '' args < /proc/1/cmdline
	# the interpreter, then the script
	[[ "${args[1]:-}" == */selftests/init.sh ]]
}

# st_platform: uml (UML reports the host's machine in uname -m; cpuinfo
# tells) or the machine of the real kernel (x86_64 under QEMU).
st_platform() {
	if grep -q '^vendor_id.*User Mode Linux' /proc/cpuinfo; then
		echo uml
	else
		uname -m
	fi
}

# Forks are what makes shell code slow in UML (~15 ms a fork, ~20 ms a fork
# and exec, against microseconds natively), so the helpers here that run
# often use bash builtins only.

# st_require_root: skip unless running as root.
st_require_root() {
	[ "$EUID" -eq 0 ] || skip "needs root"
}

# st_trace_test_only: bats runs its DEBUG trap (a function that records
# the stack for the failure report) before every command, and with
# functrace on, inside every function the test calls.  In UML that trap
# was half of a test's time in the helpers' loops (e.g. 7 s of 12 for a
# test of number ranges).  Called from setup (the test's function is
# already running, traced), it turns functrace off: the commands of the
# test's own body are still traced, so a failure is reported at the
# test's line, and one inside a helper at the line that called it.
st_trace_test_only() {
	set +o functrace
}

# st_require_path PATH [REASON]: skip unless PATH exists.
st_require_path() {
	[ -e "$1" ] || skip "${2:-$1 does not exist}"
}

# st_require_fs TYPE: skip unless this kernel knows the filesystem TYPE.
st_require_fs() {
	local nodev fs
	while read -r nodev fs; do
		[ "${fs:-$nodev}" = "$1" ] && return 0
	done < /proc/filesystems
	skip "no $1 in this kernel"
}

# st_sleep SECONDS: sleep(1) without a fork, by a read that times out on a
# FIFO nobody writes to.
st_sleep() {
	local fifo
	if [ -z "${ST_SLEEP_FD:-}" ] || [ "${ST_SLEEP_OWNER:-}" != "$BASHPID" ]; then
		fifo=$(mktemp -u "${BATS_TEST_TMPDIR:-/tmp}/.st_sleep.XXXXXX")
		mkfifo "$fifo" && exec {ST_SLEEP_FD}<> "$fifo" || {
			sleep "$1"
			return
		}
		rm -f "$fifo"
		ST_SLEEP_OWNER=$BASHPID
	fi
	read -r -t "$1" -u "$ST_SLEEP_FD" _ || true
}

# st_read VAR FILE: VAR gets the first line of FILE, by a builtin read.
# For the predicates that st_wait_for polls ten times a second: a
# $(cat FILE) there forks and execs each time, tens of milliseconds of
# UML's one CPU that the kdamond and the workload under test need.
st_read() {
	local -n _st_read=$1
	_st_read=
	IFS= read -r _st_read < "$2" || [ -n "$_st_read" ]
}

# st_wait_for SECONDS COMMAND...: poll COMMAND every 0.1 s until it
# succeeds (return 0) or SECONDS pass (return 1).
st_wait_for() {
	local tries=$(($1 * 10))
	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		st_sleep 0.1
	done
}

# st_lines FILE: read FILE into the array ST_LINES, one element a line.
# For /proc files whose content changes (a process's status, smaps, ...)
# never read them line by line with `while read`: for every line, bash's
# read reads ahead and seeks back to the end of the line, and each seek
# has procfs generate the file anew, so when a number in it grows by a
# digit the following lines shift under the reader, which then misses or
# splits some (measured: VmRSS missing from the status of a live process
# that was still faulting its memory in).  mapfile reads it all in one go.
st_lines() {
	ST_LINES=()
	mapfile -t ST_LINES < "$1"
}

# st_proc_state PID: set ST_STATE to the state letter of PID (R, S, D, Z,
# ...) from its /proc status, or to "" if it has no /proc entry.
st_proc_state() {
	local line
	ST_STATE=
	st_lines "/proc/$1/status" 2>/dev/null || return 0
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" =~ ^State:[[:space:]]+([A-Za-z]) ]]; then
			ST_STATE=${BASH_REMATCH[1]}
		fi
	done
}

# st_gone PID: the process has exited (it may be a zombie not yet waited).
st_gone() {
	st_proc_state "$1"
	[ -z "$ST_STATE" ] || [ "$ST_STATE" = Z ]
}

# st_start NAME ARGS...: start bin/NAME in the background and wait (up to
# ST_START_TIMEOUT seconds, default 60) for the first line it prints.
# Sets ST_PID, ST_LINE (that line) and ST_OUT (the file with its output).
# With ST_CGROUP set (a cgroup2 directory), NAME runs in that cgroup from
# its start, so that its memory is charged there.
st_start() {
	local name=$1 pre=()
	shift
	[ -x "$ST_BIN/$name" ] || { echo "$ST_BIN/$name is not built (make -C selftests)"; return 1; }
	ST_OUT=$(mktemp "$BATS_TEST_TMPDIR/$name.XXXXXX")
	# shellcheck disable=SC2016 # $$, $0 and $@ are the inner shell's
	[ -z "${ST_CGROUP:-}" ] ||
		pre=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$ST_CGROUP")
	# fd 3 is bats' own; a background job holding it would hang bats.
	"${pre[@]}" "$ST_BIN/$name" "$@" > "$ST_OUT" 2>&1 3>&- &
	ST_PID=$!
	ST_PIDS+=("$ST_PID")
	st_wait_for "${ST_START_TIMEOUT:-60}" st__started "$ST_PID" "$ST_OUT" || {
		echo "$name did not start in time"
		return 1
	}
	ST_LINE=
	IFS= read -r ST_LINE < "$ST_OUT" || true
	if [ "${ST_LINE%% *}" != "$ST_PID" ]; then
		echo "$name failed to start: $(cat "$ST_OUT")"
		return 1
	fi
}

st__started() {
	local line
	IFS= read -r line < "$2" || st_gone "$1"
}

# st_start_hotcold [-t S] [-i US] [-H|-R] HOT_MIB COLD_MIB: st_start
# hotcold, and set HOT_START HOT_END COLD_START COLD_END (decimal, ends
# exclusive).
st_start_hotcold() {
	local pid
	st_start hotcold "$@" || return 1
	read -r pid HOT_START HOT_END COLD_START COLD_END <<< "$ST_LINE"
	[ "$pid" = "$ST_PID" ] && [ -n "$COLD_END" ]
}

# st_stop PID [SIGNAL [SECONDS]]: send SIGNAL (default TERM), wait up to
# SECONDS (default 60) for the process to exit and put its exit status in
# ST_STATUS.  Returns 1 if it did not exit in time.
st_stop() {
	local pid=$1 sig=${2:-TERM} secs=${3:-60} p keep=()
	kill -s "$sig" "$pid" 2>/dev/null || true
	st_wait_for "$secs" st_gone "$pid" || { echo "pid $pid ignored SIG$sig"; return 1; }
	ST_STATUS=0
	wait "$pid" || ST_STATUS=$?
	for p in "${ST_PIDS[@]}"; do
		[ "$p" = "$pid" ] || keep+=("$p")
	done
	ST_PIDS=("${keep[@]}")
}

# st_cleanup: kill every workload that st_start started and is still there.
st_cleanup() {
	local pid
	for pid in "${ST_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	ST_PIDS=()
	if [ -n "${ST_HUGETLB_WAS:-}" ]; then
		echo "$ST_HUGETLB_WAS" > /proc/sys/vm/nr_hugepages || true
		ST_HUGETLB_WAS=
	fi
	st__count_forks
}

# st__count_forks: append the machine's fork count so far (/proc/stat's
# "processes") and the test's name to ST_OUTDIR/forks.txt.  The
# difference between two lines is what a test forked (with its setup):
# in UML a fork and exec costs tens of milliseconds, so this says which
# tests to make cheaper.
st__count_forks() {
	local line
	[ -n "${ST_OUTDIR:-}" ] && [ -w "$ST_OUTDIR" ] || return 0
	st_lines /proc/stat || return 0
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" == "processes "* ]]; then
			echo "${line#processes } ${BATS_TEST_DESCRIPTION:-?}" >> "$ST_OUTDIR/forks.txt"
			return 0
		fi
	done
}

# st_rss_kib PID: the resident set size of PID in KiB.
# Fails, saying why on stderr, if PID has exited (a zombie has no VmRSS).
st_rss_kib() {
	local line rss= state=
	st_lines "/proc/$1/status" || return 1
	for line in "${ST_LINES[@]}"; do
		case $line in
		VmRSS:*) [[ "$line" =~ ([0-9]+) ]] && rss=${BASH_REMATCH[1]} ;;
		State:*) state=${line#State:} ;;
		esac
	done
	if [ -n "$rss" ]; then
		echo "$rss"
		return 0
	fi
	echo "st_rss_kib: pid $1 has no VmRSS (State:${state:- ?})" >&2
	st_why_gone "$1" >&2
	return 1
}

# st_why_gone PID: if PID is a workload st_start started and it has
# exited, reap it and print its exit status and output.
st_why_gone() {
	local status=0
	[ "$1" = "${ST_PID:-}" ] && st_gone "$1" || return 0
	wait "$1" || status=$?
	echo "pid $1 exited with status $status; its output:"
	cat "$ST_OUT"
}

# st_require_thp: skip unless the kernel has transparent huge pages and
# gives them at least to memory advised MADV_HUGEPAGE.
st_require_thp() {
	local f=/sys/kernel/mm/transparent_hugepage/enabled mode
	[ -r "$f" ] || skip "no transparent huge pages in this kernel (UML has none)"
	read -r mode < "$f"
	[[ "$mode" != *"[never]"* ]] || skip "transparent huge pages are off: $mode"
}

# st_require_hugetlb N: skip unless N free huge pages of the default size
# can be had from the hugetlb pool; grows the pool for them (st_cleanup
# gives it its old size back).
st_require_hugetlb() {
	local f=/proc/sys/vm/nr_hugepages was free=0 k v
	[ -w "$f" ] || skip "no hugetlb pages in this kernel (UML has none)"
	read -r was < "$f"
	ST_HUGETLB_WAS=$was
	echo $((was + $1)) > "$f" || true
	while read -r k v _; do
		[ "$k" = HugePages_Free: ] && free=$v
	done < /proc/meminfo
	[ "$free" -ge "$1" ] || skip "only $free of $1 hugetlb pages could be had"
}

# st_anon_huge_kib PID START END: the AnonHugePages (KiB) of PID's mappings
# that lie within [START, END), from /proc/PID/smaps.
st_anon_huge_kib() {
	local line inside=0 sum=0
	st_lines "/proc/$1/smaps" || return 1
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" =~ ^([0-9a-f]+)-([0-9a-f]+)\  ]]; then
			inside=0
			if [ $((16#${BASH_REMATCH[1]})) -ge "$2" ] &&
				[ $((16#${BASH_REMATCH[2]})) -le "$3" ]; then
				inside=1
			fi
		elif [ "$inside" = 1 ] &&
			[[ "$line" =~ ^AnonHugePages:\ +([0-9]+) ]]; then
			sum=$((sum + BASH_REMATCH[1]))
		fi
	done
	echo "$sum"
}

# st_swap_setup_file, st_swap_teardown_file: swap on zram for a suite
# that pages out, from its setup_file and teardown_file.  ST_NO_SWAP says
# why there is none (st_need_swap then skips the test); ST_SWAP_OURS says
# whether the suite turned it on, and so turns it off.
st_swap_setup_file() {
	zram_swap_on 256M || :	# the reason, if any, is in ZRAM_SWAP_WHY
	ST_NO_SWAP=$ZRAM_SWAP_WHY
	ST_SWAP_OURS=$ZRAM_SWAP_MADE
	export ST_NO_SWAP ST_SWAP_OURS
}

st_swap_teardown_file() {
	[ -n "${ST_SWAP_OURS:-}" ] || return 0
	zram_swap_off
}

st_need_swap() {
	[ -z "$ST_NO_SWAP" ] || skip "$ST_NO_SWAP"
}

# st_cgroups NAME...: a cgroup2 hierarchy mounted in the test's directory
# (ST_CG; it is the machine's one cgroup2 hierarchy, but no other mount
# point appears), the memory controller enabled below its root, and the
# cgroups ST_CG/NAME made.  Skips the test when the kernel has no memory
# controller.  st_cgroups_cleanup removes them again.
st_cgroups() {
	local n
	ST_CG=$BATS_TEST_TMPDIR/cgroup2
	ST_CG_MADE=()
	mkdir -p "$ST_CG"
	mount -t cgroup2 none "$ST_CG" || skip "cannot mount cgroup2"
	grep -qw memory "$ST_CG/cgroup.controllers" ||
		skip "no cgroup2 memory controller (CONFIG_MEMCG)"
	grep -qw memory "$ST_CG/cgroup.subtree_control" ||
		echo +memory > "$ST_CG/cgroup.subtree_control" || return 1
	for n in "$@"; do
		mkdir "$ST_CG/$n" || return 1
		ST_CG_MADE+=("$ST_CG/$n")
	done
}

# st_cgroups_cleanup: after the workloads in them ended.
st_cgroups_cleanup() {
	local d
	[ -n "${ST_CG:-}" ] || return 0
	for d in "${ST_CG_MADE[@]}"; do
		rmdir "$d" 2>/dev/null || true
	done
	umount "$ST_CG" 2>/dev/null || true
	ST_CG=
}

# st_mount_type DIR: the filesystem type mounted at DIR ("" if none).
# Also sets ST_MOUNT_TYPE, so that callers need no command substitution.
st_mount_type() {
	local line dev mnt type rest
	ST_MOUNT_TYPE=
	st_lines /proc/self/mounts
	for line in "${ST_LINES[@]}"; do
		read -r dev mnt type rest <<< "$line"
		[ "$mnt" = "$1" ] && ST_MOUNT_TYPE=$type
	done
	echo "$ST_MOUNT_TYPE"
}

# Last, with every helper defined: these tests write to /sys, so refuse to
# run anywhere but in the machine that scripts/run-selftests.sh boots.
if ! st_in_test_machine; then
	echo "lib.bash: not inside the selftest machine, refusing to run" >&2
	return 1
fi
