# SPDX-License-Identifier: GPL-2.0
#
# What the race suites (70-races.bats, 71-races-pids-memory.bats) share:
# setup and a teardown that kills whatever a failed test left running,
# outcome checks for sysio and cfsfuzz output, a kmemleak check (the debug
# flavour has kmemleak) and swap on zram for pageout.  Two suites rather
# than one so that the debug kernel, which runs them several times
# slower, can run them on two machines side by side.

load lib
load configfs

FUZZ=$ST_BIN/cfsfuzz
KMEMLEAK=/sys/kernel/debug/kmemleak
PID_MAX=/proc/sys/kernel/pid_max

setup() {
	cfs_setup
	[ -x "$FUZZ" ] || { echo "$FUZZ is not built (make -C selftests)"; return 1; }
	EXTRA_PIDS=()	# processes st_start does not know about
}

teardown() {
	local rc=0 d p
	# Background loops and processes of a failed test must not outlive it.
	# bats' watchdog is a job of this shell too, and must: killed, it
	# would leave its sleep holding bats' output open for the whole
	# ST_TEST_TIMEOUT after the last test.
	for p in $(jobs -p); do
		[ "$p" = "${BATS_killer_pid:-}" ] && continue
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ ${#EXTRA_PIDS[@]} -eq 0 ] || kill -KILL "${EXTRA_PIDS[@]}" 2>/dev/null
	if [ -n "${SAVED_PID_MAX:-}" ]; then
		echo "$SAVED_PID_MAX" > "$PID_MAX" || rc=1
	fi
	cfs_stop_all
	for d in "$CFS_CTXS"/*/schemes/*/filters/*/ "$CFS_CTXS"/*/schemes/*/; do
		[ ! -d "$d" ] || rmdir "$d" || rc=1
	done
	cfs_teardown || rc=1
	swap_off_zram || rc=1
	st_cgroups_cleanup
	return $rc
}

# allowed_only FILE OUTCOME...: FILE (one outcome a line, as sysio prints
# them, or "hammer" output "NAME COUNT") holds nothing but the OUTCOMEs.
allowed_only() {
	local file=$1 bad
	shift
	bad=$(awk -v ok=" $* " '{ if (index(ok, " " $1 " ") == 0) print }' "$file" |
		sort | uniq -c)
	[ -z "$bad" ] || { echo "unexpected outcomes in $file: $bad"; return 1; }
}

# counts FILE WHAT OUTCOME...: the "COUNT WHAT OUTCOME N" lines that
# cfsfuzz race printed for WHAT have only the OUTCOMEs.
counts() {
	local file=$1 what=$2 bad
	shift 2
	bad=$(awk -v w="$what" -v ok=" $* " '
		$1 == "COUNT" && $2 == w && index(ok, " " $3 " ") == 0' "$file")
	[ -z "$bad" ] || { echo "unexpected outcomes: $bad"; return 1; }
}

# no_kdamond NAME: no kdamond.NAME thread exists.
no_kdamond() {
	if grep -qx "kdamond.$1" /proc/[0-9]*/comm 2>/dev/null; then
		echo "a kdamond.$1 thread is still there"
		return 1
	fi
}

# stopped CTX: the context is off, without a kdamond.
stopped() {
	[ "$(cfs_state "$1")" = off ] &&
	[ "$(cfs_kdamond_pid "$1")" = -1 ] &&
	no_kdamond "$1"
}

# ------------------------------------------------------------ kmemleak

# kmemleak_begin: scan now and remember the objects already reported, so
# that kmemleak_check reports only what happens after.
kmemleak_begin() {
	KM_BEFORE=$BATS_TEST_TMPDIR/kmemleak.before
	[ -w "$KMEMLEAK" ] || return 0
	echo scan > "$KMEMLEAK" || { echo "kmemleak cannot scan"; return 1; }
	grep '^unreferenced object' "$KMEMLEAK" | sort > "$KM_BEFORE"
}

# kmemleak_check: fail if kmemleak finds new unreferenced objects that
# DAMON or configfs allocated (see kmemleak_ours in run-selftests.sh).
kmemleak_check() {
	local report=$BATS_TEST_TMPDIR/kmemleak.after ours
	[ -w "$KMEMLEAK" ] || return 0
	# Objects younger than 5 s are not reported; scan twice so that
	# pointers in flight during the first scan do not count.
	sleep 6
	if ! { echo scan > "$KMEMLEAK" && sleep 1 && echo scan > "$KMEMLEAK"; }; then
		echo "kmemleak cannot scan"
		return 1
	fi
	cat "$KMEMLEAK" > "$report"
	ours=$(awk -v before="$KM_BEFORE" '
	BEGIN { while ((getline l < before) > 0) old[l] = 1 }
	function flush() { if (ours && !(head in old)) printf "%s", blk
		blk = ""; ours = 0; hex = 0 }
	/^unreferenced object / { flush(); head = $0 }
	{ blk = blk $0 "\n" }
	/^ *hex dump/ { hex = 1; next }
	/^ *backtrace/ { hex = 0; next }
	!hex && /damon|configfs/ { ours = 1 }
	END { flush() }' "$report")
	echo "# kmemleak: $(grep -c '^unreferenced object' "$report") object(s) reported in all" >&3
	[ -z "$ours" ] || { echo "kmemleak: leaks from DAMON:"; echo "$ours" | head -n 100; return 1; }
}

# ------------------------------------------------------------ swap

# swap_on_zram: make sure there is swap, for pageout to page anonymous
# memory out: if there is none, 128 MiB on /dev/zram0, which teardown
# takes away again (SWAP_OURS).  Fails with the reason in SWAP_WHY.
swap_on_zram() {
	SWAP_WHY=
	[ "$(grep -c '^/' /proc/swaps)" -eq 0 ] || return 0
	zram_swap_on 128M || { SWAP_WHY=$ZRAM_SWAP_WHY; return 1; }
	SWAP_OURS=$ZRAM_SWAP_MADE
}

swap_off_zram() {
	[ -n "${SWAP_OURS:-}" ] || return 0
	SWAP_OURS=
	zram_swap_off
}
