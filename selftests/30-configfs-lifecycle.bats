#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Turning contexts on and off and committing changes online
# (configfs-layout.md, "state", "Lifetime rules while on"): validation at
# on and commit with exact errnos, the kdamond thread, staging, busy
# directories, targets that exit, recycled pids, several contexts at once,
# and concurrent writers.

load lib
load configfs

setup() {
	cfs_setup
}

teardown() {
	cfs_teardown
}

# Short intervals: an aggregation every 20 ms (in theory; UML is slower).
FAST=(1000 20000 1000000 10 100)

# new_ctx NAME PID: a context with FAST attributes and target t0 on PID.
new_ctx() {
	cfs_mkctx "$1" "${FAST[@]}" && cfs_mktarget "$1" t0 "$2"
}

# start_ctx NAME [PID]: new_ctx on PID (a new sleeper if none), then on.
start_ctx() {
	local pid=${2:-}
	if [ -z "$pid" ]; then
		cfs_start_sleeper 2 || return 1
		pid=$SLEEPER_PID
	fi
	new_ctx "$1" "$pid" && cfs_on "$1"
}

# expect_off CTX: the context is off and has no kdamond.
expect_off() {
	cfs_expect_value "$CFS_CTXS/$1/state" off &&
	cfs_expect_value "$CFS_CTXS/$1/kdamond_pid" -1
}

# expect_kdamond CTX COMM: the context is on, with a live kdamond thread
# named COMM whose pid kdamond_pid shows.  Sets KPID.
expect_kdamond() {
	cfs_expect_value "$CFS_CTXS/$1/state" on || return 1
	KPID=$(cfs_kdamond_pid "$1")
	[ "$KPID" -gt 0 ] || { echo "$1: kdamond_pid $KPID"; return 1; }
	[ "$(cat "/proc/$KPID/comm")" = "$2" ] ||
		{ echo "/proc/$KPID/comm: $(cat "/proc/$KPID/comm"), expected $2"; return 1; }
}

# thread_gone PID COMM: no thread PID named COMM runs any more.
thread_gone() {
	local comm
	st_read comm "/proc/$1/comm" 2>/dev/null || return 0
	[ "$comm" != "$2" ]
}

# snapshot_lines CTX TARGET: the number of regions in the snapshot.
snapshot_lines() {
	cfs_snapshot_to "$1" "$2" "$BATS_TEST_TMPDIR/snap.lines" || return 1
	wc -l < "$BATS_TEST_TMPDIR/snap.lines"
}

# ------------------------------------------------------------ validation at on

@test "on without any target fails with EINVAL, nothing starts" {
	cfs_mkctx web "${FAST[@]}"
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	cfs_expect_value "$CFS_CTXS/web/nr_aggregations" 0
}

@test "on with a target without pid fails with EINVAL" {
	cfs_start_sleeper
	cfs_mkctx web "${FAST[@]}"
	cfs_mktarget web t0
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	# One good target does not make up for a bad one.
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_expect EINVAL "$CFS_CTXS/web/state" on$'\n'
	expect_off web
	cfs_set "$CFS_CTXS/web/targets/t0/pid" "$SLEEPER_PID"
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/t1"
	cfs_on web
	expect_kdamond web kdamond.web
}

# zombie_of SECS: start a child that exits after SECS under a parent that
# never reaps it; the child's pid in ZOMBIE (a zombie once SECS are over).
# The child waits for the parent's exec of sleep first: bash reaps a child
# that exits before the exec, and the pid would just vanish.
zombie_of() {
	local out=$BATS_TEST_TMPDIR/zombie.$RANDOM
	bash -c 'p=$$
		(c=; until [ "$c" = sleep ]; do
			read -r c < "/proc/$p/comm"; sleep 0.01
		done; sleep "$1") &
		echo $!; exec sleep 600' _ "$1" > "$out" 3>&- &
	ST_PIDS+=($!)
	st_wait_for 30 test -s "$out"
	read -r ZOMBIE < "$out"
}

is_zombie() {
	st_proc_state "$1"
	[ "$ST_STATE" = Z ]
}

@test "a zombie has exited: its pid fails with ESRCH, and so does on" {
	zombie_of 0
	st_wait_for 30 is_zombie "$ZOMBIE"
	cfs_mkctx web "${FAST[@]}"
	cfs_mktarget web t0
	cfs_expect ESRCH "$CFS_CTXS/web/targets/t0/pid" "$ZOMBIE"
	cfs_expect_value "$CFS_CTXS/web/targets/t0/pid" -1
	# Alive when written, a zombie at on.
	zombie_of 3
	cfs_set "$CFS_CTXS/web/targets/t0/pid" "$ZOMBIE"
	st_wait_for 30 is_zombie "$ZOMBIE"
	cfs_expect ESRCH "$CFS_CTXS/web/state" on
	expect_off web
}

@test "on with a target whose process exited fails with ESRCH" {
	local dead
	cfs_start_sleeper
	dead=$SLEEPER_PID
	new_ctx web "$dead"
	st_stop "$dead" TERM
	[ ! -e "/proc/$dead" ]
	cfs_start_sleeper
	cfs_expect ESRCH "$CFS_CTXS/web/state" on
	expect_off web
	# Also when another target is alive.
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_expect ESRCH "$CFS_CTXS/web/state" on
	expect_off web
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/t0"
	cfs_on web
	expect_kdamond web kdamond.web
}

@test "on with fvaddr and a target without regions fails with EINVAL" {
	local start end
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	# Every target needs regions, not just one.
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_mkregion web t1 r0 "$start" "$end"
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_on web
	expect_kdamond web kdamond.web
}

@test "on with a region whose start is not below its end fails with EINVAL" {
	local start end ops
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	for ops in vaddr fvaddr; do
		new_ctx "$ops" "$SLEEPER_PID"
		cfs_set "$CFS_CTXS/$ops/operations" "$ops"
		cfs_mkregion "$ops" t0 r0 "$start" "$start"
		cfs_expect EINVAL "$CFS_CTXS/$ops/state" on
		expect_off "$ops"
		cfs_set "$CFS_CTXS/$ops/targets/t0/regions/r0/start" "$end"
		cfs_set "$CFS_CTXS/$ops/targets/t0/regions/r0/end" "$start"
		cfs_expect EINVAL "$CFS_CTXS/$ops/state" on
		expect_off "$ops"
		cfs_set "$CFS_CTXS/$ops/targets/t0/regions/r0/start" "$start"
		cfs_set "$CFS_CTXS/$ops/targets/t0/regions/r0/end" "$end"
		cfs_on "$ops"
		expect_kdamond "$ops" "kdamond.$ops"
	done
}

@test "on with overlapping regions fails with EINVAL, also after page rounding" {
	local start end p=$PAGE_SIZE r=$CFS_CTXS/web/targets/t0/regions
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	# Names do not matter: "b" lies below "a".
	cfs_mkregion web t0 a $((start + p)) $((start + 3 * p))
	cfs_mkregion web t0 b "$start" $((start + 2 * p))
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	# The same range twice.
	cfs_set "$r/b/start" $((start + p))
	cfs_set "$r/b/end" $((start + 3 * p))
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	# Disjoint as written, but both round out to the same page.
	cfs_set "$r/a/start" $((start + 100))
	cfs_set "$r/a/end" $((start + 200))
	cfs_set "$r/b/start" $((start + 300))
	cfs_set "$r/b/end" $((start + 400))
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	# Adjacent whole pages do not overlap.
	cfs_set "$r/a/start" $((start + p))
	cfs_set "$r/a/end" $((start + 2 * p))
	cfs_set "$r/b/start" "$start"
	cfs_set "$r/b/end" $((start + p))
	cfs_on web
	expect_kdamond web kdamond.web
}

@test "on with broken attribute relations fails with EINVAL" {
	local c=$CFS_CTXS/web
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	# sample_us > aggr_us
	cfs_attrs web 30000 20000 1000000 10 100
	cfs_expect EINVAL "$c/state" on
	expect_off web
	# aggr_us > update_us
	cfs_attrs web 1000 20000 10000 10 100
	cfs_expect EINVAL "$c/state" on
	expect_off web
	# min_nr_regions > max_nr_regions
	cfs_attrs web 1000 20000 1000000 101 100
	cfs_expect EINVAL "$c/state" on
	expect_off web
	# aggr_us / sample_us >= 2^32
	cfs_attrs web 1 4294967296 4294967296 10 100
	cfs_expect EINVAL "$c/state" on
	expect_off web
	# Equal values are fine: sample_us == aggr_us == update_us, min == max.
	cfs_attrs web 20000 20000 20000 10 10
	cfs_on web
	expect_kdamond web kdamond.web
	cfs_wait_aggr web 2
}

@test "a failed on changes nothing: the last run's results stay" {
	local c=$CFS_CTXS/web n snap
	start_ctx web
	cfs_wait_aggr web 3
	cfs_off web
	n=$(cfs_nr_aggr web)
	snap=$(cat "$c/targets/t0/snapshot")
	[ -n "$snap" ]
	cfs_mktarget web t1
	cfs_expect EINVAL "$c/state" on
	expect_off web
	[ "$(cfs_nr_aggr web)" = "$n" ]
	[ "$(cat "$c/targets/t0/snapshot")" = "$snap" ]
}

# ------------------------------------------------------------ running

@test "on starts kdamond.NAME; kdamond_pid shows it; nr_aggregations grows" {
	local pid
	start_ctx web
	expect_kdamond web kdamond.web
	pid=$KPID
	cfs_wait_aggr web 3
	# on while on: success, no change.
	cfs_on web
	expect_kdamond web kdamond.web
	[ "$KPID" = "$pid" ]
	cfs_wait_more_aggr web 2
	[ "$(cfs_kdamond_pid web)" = "$pid" ]
}

@test "kdamond.NAME: /proc shows the whole name, the task's comm its first 15 characters" {
	local long=abcdefghijklmnopqrstuvwxyz tr=/sys/kernel/tracing ev pid
	cfs_start_sleeper
	start_ctx "$long" "$SLEEPER_PID"
	expect_kdamond "$long" "kdamond.$long"
	pid=$KPID
	start_ctx x1 "$SLEEPER_PID"
	expect_kdamond x1 kdamond.x1
	# The 16-byte comm, as tracing records it when the thread exits.
	ev=$tr/events/sched/sched_process_exit
	[ -d "$ev" ] || skip "no tracefs sched events here (CONFIG_FTRACE, tracefs)"
	echo > "$tr/trace"
	echo 1 > "$ev/enable"
	cfs_off "$long"
	echo 0 > "$ev/enable"
	grep -q "sched_process_exit: comm=kdamond.abcdefg pid=$pid " "$tr/trace" ||
		{ echo "no exit of $pid as kdamond.abcdefg:"; grep kdamond "$tr/trace"; return 1; }
	echo > "$tr/trace"
}

@test "off stops the kdamond and waits for it; results are kept" {
	local c=$CFS_CTXS/web pid n snap
	start_ctx web
	expect_kdamond web kdamond.web
	pid=$KPID
	cfs_wait_aggr web 3
	cfs_off web
	expect_off web
	# The write returned after the thread finished.
	thread_gone "$pid" kdamond.web
	n=$(cfs_nr_aggr web)
	[ "$n" -ge 3 ]
	snap=$(cat "$c/targets/t0/snapshot")
	[ -n "$snap" ]
	sleep 0.3
	[ "$(cfs_nr_aggr web)" = "$n" ]
	[ "$(cat "$c/targets/t0/snapshot")" = "$snap" ]
	# off while off: success, no change.
	cfs_off web
	expect_off web
	[ "$(cfs_nr_aggr web)" = "$n" ]
}

@test "on again: a new kdamond, nr_aggregations from 0, snapshot empty until the first aggregation" {
	local c=$CFS_CTXS/web old
	start_ctx web
	old=$(cfs_kdamond_pid web)
	cfs_wait_aggr web 3
	cfs_off web
	[ -n "$(cat "$c/targets/t0/snapshot")" ]
	# The first aggregation of the next run is 10 s away.
	cfs_attrs web 1000 10000000 10000000 10 100
	cfs_on web
	expect_kdamond web kdamond.web
	[ "$KPID" != "$old" ]
	cfs_expect_value "$c/nr_aggregations" 0
	[ "$("$SYSIO" read "$c/targets/t0/snapshot" | wc -c)" -eq 0 ]
	cfs_off web
}

@test "the kdamond stops by itself when its target exits" {
	local pid
	start_ctx web
	expect_kdamond web kdamond.web
	pid=$KPID
	cfs_wait_aggr web 1
	st_stop "$SLEEPER_PID" TERM
	cfs_wait_off web 30
	expect_off web
	st_wait_for 10 thread_gone "$pid" kdamond.web
	# Everything can be removed again; the dead pid cannot start it.
	cfs_expect ESRCH "$CFS_CTXS/web/state" on
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/t0"
	cfs_expect_rmdir OK "$CFS_CTXS/web"
}

@test "with several targets the kdamond runs until the last one exits" {
	local a b
	cfs_start_sleeper
	a=$SLEEPER_PID
	cfs_start_sleeper
	b=$SLEEPER_PID
	start_ctx web "$a"
	cfs_mktarget web t1 "$b"
	cfs_commit web
	cfs_wait_aggr web 1
	st_stop "$a" TERM
	cfs_wait_more_aggr web 3
	expect_kdamond web kdamond.web
	st_stop "$b" TERM
	cfs_wait_off web 30
	expect_off web
	cfs_remove_all
}

@test "a recycled pid is not monitored: on fails with ESRCH" {
	local pid out=$BATS_TEST_TMPDIR/withpid.out
	cfs_start_sleeper
	pid=$SLEEPER_PID
	new_ctx web "$pid"
	st_stop "$pid" TERM
	[ ! -e "/proc/$pid" ]
	# A new process gets the same number.
	"$SYSIO" withpid "$pid" "$ST_BIN/sleeper" > "$out" 2>&1 3>&- &
	ST_PIDS+=($! "$pid")
	st_wait_for 30 grep -q . "$out"
	[ "$(cut -d' ' -f1 "$out")" = "$pid" ] || { cat "$out"; return 1; }
	[ -e "/proc/$pid" ]
	cfs_expect ESRCH "$CFS_CTXS/web/state" on
	expect_off web
	# Writing the number again names the new process.
	cfs_set "$CFS_CTXS/web/targets/t0/pid" "$pid"
	cfs_on web
	expect_kdamond web kdamond.web
	cfs_off web
	kill "$pid"
}

@test "several contexts run at once, each with its own kdamond" {
	local a b c
	cfs_start_sleeper
	start_ctx c1 "$SLEEPER_PID"
	start_ctx c2 "$SLEEPER_PID"
	start_ctx c3
	expect_kdamond c1 kdamond.c1
	a=$KPID
	expect_kdamond c2 kdamond.c2
	b=$KPID
	expect_kdamond c3 kdamond.c3
	c=$KPID
	[ "$a" != "$b" ]
	[ "$b" != "$c" ]
	[ "$a" != "$c" ]
	cfs_wait_aggr c1 2
	cfs_wait_aggr c2 2
	cfs_wait_aggr c3 2
	cfs_off c2
	expect_off c2
	thread_gone "$b" kdamond.c2
	cfs_wait_more_aggr c1 2
	cfs_wait_more_aggr c3 2
	expect_kdamond c1 kdamond.c1
	[ "$KPID" = "$a" ]
	expect_kdamond c3 kdamond.c3
	[ "$KPID" = "$c" ]
}

# ------------------------------------------------------------ commit

@test "commit while off fails with EINVAL, also after a run" {
	start_ctx web
	cfs_wait_aggr web 1
	cfs_off web
	cfs_expect EINVAL "$CFS_CTXS/web/state" commit
	cfs_expect EINVAL "$CFS_CTXS/web/state" commit$'\n'
	expect_off web
}

@test "staged writes read back at once; commit applies them (region bounds)" {
	local c=$CFS_CTXS/web n
	cfs_start_sleeper 4
	new_ctx web "$SLEEPER_PID"
	cfs_attrs web 1000 20000 1000000 60 120
	cfs_on web
	cfs_wait_aggr web 2
	(( $(snapshot_lines web t0) >= 60 ))
	# Staged: read back at once, not applied.
	cfs_set "$c/max_nr_regions" 10
	cfs_set "$c/min_nr_regions" 3
	cfs_expect_value "$c/max_nr_regions" 10
	cfs_expect_value "$c/min_nr_regions" 3
	# on while on changes nothing either: it applies nothing.
	cfs_on web
	for _ in 1 2 3; do
		cfs_wait_more_aggr web 1
		n=$(snapshot_lines web t0)
		(( n >= 60 )) || { echo "staged bounds applied early: $n regions"; return 1; }
	done
	cfs_commit web
	cfs_expect_value "$c/max_nr_regions" 10
	# The write returned once the setup was applied: the very next
	# aggregation already merges down to the new bound.
	cfs_wait_more_aggr web 1
	for _ in 1 2 3; do
		n=$(snapshot_lines web t0)
		(( n >= 3 && n <= 10 )) || { echo "$n regions after commit"; return 1; }
		cfs_wait_more_aggr web 1
	done
	expect_kdamond web kdamond.web
}

@test "commit applies a staged aggr_us: nr_accesses stay within aggr_us / sample_us" {
	local c=$CFS_CTXS/web snap=$BATS_TEST_TMPDIR/snap max
	st_start_hotcold 4 4
	new_ctx web "$ST_PID"
	cfs_attrs web 1000 100000 1000000 10 100
	cfs_on web
	cfs_wait_aggr web 2
	cfs_set "$c/aggr_us" 5000
	cfs_expect_value "$c/aggr_us" 5000
	cfs_commit web
	cfs_expect_value "$c/aggr_us" 5000
	cfs_wait_more_aggr web 2
	for _ in 1 2 3 4 5; do
		cfs_snapshot_to web t0 "$snap"
		[ -s "$snap" ]
		max=$(awk '$3 + 0 > m { m = $3 + 0 } END { print m + 0 }' "$snap")
		(( max <= 5 )) || { echo "nr_accesses $max > 5000/1000"; cat "$snap"; return 1; }
		cfs_wait_more_aggr web 1
	done
	[ -z "$(cfs_snapshot_problems "$snap" 5)" ]
}

# max_age FILE [START END]: the largest age in the snapshot in FILE, of the
# regions wholly inside [START, END) if given.
max_age() {
	awk -v lo="${2:-0}" -v hi="${3:-1e30}" '
	$1 + 0 >= lo + 0 && $2 + 0 <= hi + 0 && $4 + 0 > m { m = $4 + 0 }
	END { print m + 0 }' "$1"
}

# wait_max_age CTX FILE AGE [START END]: wait (up to 90 s) until a
# snapshot, read into FILE, has a region (inside [START, END)) of at least
# AGE; sets AGE_SEEN and AGGR_SEEN (nr_aggregations after that read).
wait_max_age() {
	local ctx=$1 file=$2 want=$3 deadline=$((SECONDS + 90))
	shift 3
	while [ "$SECONDS" -lt "$deadline" ]; do
		cfs_snapshot_to "$ctx" t0 "$file" || return 1
		AGGR_SEEN=$(cfs_nr_aggr "$ctx")
		AGE_SEEN=$(max_age "$file" "$@")
		[ "$AGE_SEEN" -lt "$want" ] || return 0
		sleep 0.2
	done
	echo "no region reached age $want (max $AGE_SEEN at $AGGR_SEEN aggregations)"
	cat "$file"
	return 1
}

@test "commit keeps the results: ages go on, added regions are fitted in fresh" {
	local start end mid snap=$BATS_TEST_TMPDIR/snap pre got before after
	cfs_start_sleeper 4
	read -r _ start end <<< "$ST_LINE"
	mid=$((start + (2 << 20)))
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/aggr_us" 50000
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	cfs_mkregion web t0 lo "$start" "$mid"
	cfs_on web
	# The untouched range keeps its regions, which grow old.
	wait_max_age web "$snap" 8
	pre=$AGE_SEEN
	cfs_mkregion web t0 hi "$mid" "$end"
	before=$(cfs_nr_aggr web)
	cfs_commit web
	cfs_wait_more_aggr web 1
	cfs_snapshot_to web t0 "$snap"
	after=$(cfs_nr_aggr web)
	got=$(cfs_covered "$snap")
	[ "$got" = "$start $end" ] || { echo "covers $got"; return 1; }
	# The old range's records were kept, not restarted...
	(( $(max_age "$snap" "$start" "$mid") >= pre / 2 )) ||
		{ echo "ages restarted (were up to $pre):"; cat "$snap"; return 1; }
	# ...and the added range starts from scratch: none of its regions is
	# older than the aggregations since the commit.  (Its first MiB is left
	# out: regions merged across the boundary pass old ages on to it.)
	(( $(max_age "$snap" $((mid + (1 << 20))) "$end") <= after - before )) ||
		{ echo "the added range has old records ($before..$after):"; cat "$snap"; return 1; }
}

@test "commit with a longer aggr_us rescales ages rather than restarting them" {
	local start end snap=$BATS_TEST_TMPDIR/snap pre got
	cfs_start_sleeper 4
	read -r _ start end <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_on web
	wait_max_age web "$snap" 40
	pre=$AGE_SEEN
	# Ten times longer intervals: an age of N intervals becomes N / 10.
	cfs_set "$CFS_CTXS/web/aggr_us" 200000
	cfs_commit web
	cfs_wait_more_aggr web 1
	cfs_snapshot_to web t0 "$snap"
	got=$(max_age "$snap")
	(( got >= 3 )) || { echo "ages restarted (max $got, was $pre)"; cat "$snap"; return 1; }
	(( got < pre / 2 )) || { echo "ages not rescaled (max $got, was $pre)"; cat "$snap"; return 1; }
}

@test "commit validates like on: an invalid staged setup fails with EINVAL and the old one keeps running" {
	local c=$CFS_CTXS/web pid
	start_ctx web
	expect_kdamond web kdamond.web
	pid=$KPID
	cfs_set "$c/min_nr_regions" 200		# > max_nr_regions
	cfs_expect EINVAL "$c/state" commit
	expect_kdamond web kdamond.web
	[ "$KPID" = "$pid" ]
	cfs_expect_value "$c/min_nr_regions" 200	# still staged
	cfs_wait_more_aggr web 2
	cfs_set "$c/min_nr_regions" 10
	cfs_set "$c/sample_us" 50000			# > aggr_us
	cfs_expect EINVAL "$c/state" commit
	cfs_set "$c/sample_us" 1000
	cfs_mktarget web t1				# no pid
	cfs_expect EINVAL "$c/state" commit
	cfs_set "$c/targets/t1/pid" "$SLEEPER_PID"
	cfs_commit web
	expect_kdamond web kdamond.web
	[ "$KPID" = "$pid" ]
	cfs_wait_more_aggr web 2
}

@test "commit with staged regions validates them: overlap or start >= end fail with EINVAL" {
	local c=$CFS_CTXS/web start end r=$CFS_CTXS/web/targets/t0/regions
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	start_ctx web "$SLEEPER_PID"
	cfs_mkregion web t0 r0 "$start" $((start + 2 * PAGE_SIZE))
	cfs_mkregion web t0 r1 $((start + PAGE_SIZE)) "$end"
	cfs_expect EINVAL "$c/state" commit
	cfs_set "$r/r1/start" "$end"
	cfs_expect EINVAL "$c/state" commit
	cfs_set "$r/r1/start" $((start + 2 * PAGE_SIZE))
	cfs_commit web
	expect_kdamond web kdamond.web
}

@test "commit fails with ESRCH when a target's process has exited" {
	local a b c=$CFS_CTXS/web
	cfs_start_sleeper
	a=$SLEEPER_PID
	cfs_start_sleeper
	b=$SLEEPER_PID
	start_ctx web "$a"
	cfs_mktarget web t1 "$b"
	cfs_commit web
	st_stop "$b" TERM
	cfs_expect ESRCH "$c/state" commit
	expect_kdamond web kdamond.web
	cfs_wait_more_aggr web 2
}

@test "commit that changes operations fails with EBUSY" {
	local c=$CFS_CTXS/web start end pid
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	# A setup valid for both operations: the target has a region.
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_on web
	expect_kdamond web kdamond.web
	pid=$KPID
	cfs_set "$c/operations" fvaddr
	cfs_expect_value "$c/operations" fvaddr
	cfs_expect EBUSY "$c/state" commit
	expect_kdamond web kdamond.web
	[ "$KPID" = "$pid" ]
	cfs_set "$c/operations" vaddr
	cfs_commit web
	cfs_wait_more_aggr web 2
}

@test "commit that changes a monitored target's pid fails with EBUSY" {
	local c=$CFS_CTXS/web a b pid
	cfs_start_sleeper
	a=$SLEEPER_PID
	cfs_start_sleeper
	b=$SLEEPER_PID
	start_ctx web "$a"
	pid=$(cfs_kdamond_pid web)
	cfs_set "$c/targets/t0/pid" "$b"
	cfs_expect_value "$c/targets/t0/pid" "$b"
	cfs_expect EBUSY "$c/state" commit
	expect_kdamond web kdamond.web
	[ "$KPID" = "$pid" ]
	cfs_set "$c/targets/t0/pid" "$a"
	cfs_commit web
	# The old pid still counts: when it exits, monitoring stops.
	st_stop "$a" TERM
	cfs_wait_off web 30
}

@test "a signal interrupts the wait of commit (EINTR), and the commit still happens" {
	local c=$CFS_CTXS/web got n
	cfs_start_sleeper 4
	new_ctx web "$SLEEPER_PID"
	# Aggregations 4 s apart: the commit waits for the next boundary.
	cfs_attrs web 5000 4000000 4000000 60 120
	cfs_on web
	cfs_wait_aggr web 1 60
	(( $(snapshot_lines web t0) >= 60 ))
	cfs_set "$c/max_nr_regions" 10
	cfs_set "$c/min_nr_regions" 3
	# Commit just after a boundary, so that the next is almost 4 s away.
	n=$(cfs_nr_aggr web)
	cfs_wait_aggr web $((n + 1)) 60
	got=$(SYSIO_ALARM_MS=300 "$SYSIO" write "$c/state" commit)
	[ "$got" = EINTR ] || { echo "interrupted commit: $got, expected EINTR"; return 1; }
	expect_kdamond web kdamond.web
	cfs_wait_more_aggr web 2 60
	n=$(snapshot_lines web t0)
	(( n >= 3 && n <= 10 )) || { echo "$n regions: the commit was lost"; return 1; }
}

# ------------------------------------------------------------ busy while on

@test "rmdir of the context or a target fails with EBUSY while on; of a region, it is staged" {
	local c=$CFS_CTXS/web start end
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_on web
	cfs_expect_rmdir EBUSY "$c/targets/t0"
	cfs_expect_rmdir EBUSY "$c"
	cfs_expect_rmdir OK "$c/targets/t0/regions/r0"
	expect_kdamond web kdamond.web
	cfs_wait_more_aggr web 2
	cfs_off web
	cfs_expect_rmdir OK "$c/targets/t0"
	cfs_expect_rmdir OK "$c"
}

@test "a target made while on can be removed before commit, is busy and monitored after it" {
	local c=$CFS_CTXS/web snap=$BATS_TEST_TMPDIR/snap
	cfs_start_sleeper
	start_ctx web "$SLEEPER_PID"
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_expect_rmdir OK "$c/targets/t1"
	cfs_start_sleeper 2
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_wait_more_aggr web 2
	# Not monitored before the commit.
	cfs_snapshot_to web t1 "$snap"
	[ ! -s "$snap" ]
	cfs_commit web
	cfs_expect_rmdir EBUSY "$c/targets/t1"
	cfs_wait_more_aggr web 2
	cfs_snapshot_to web t1 "$snap"
	[ -s "$snap" ]
	[ -z "$(cfs_snapshot_problems "$snap" 20)" ]
	cfs_off web
	cfs_expect_rmdir OK "$c/targets/t1"
}

@test "a region made while on can be removed before and after commit" {
	local c=$CFS_CTXS/web start end
	cfs_start_sleeper 2
	read -r _ start end <<< "$ST_LINE"
	start_ctx web "$SLEEPER_PID"
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_expect_value "$c/targets/t0/regions/r0/end" "$end"
	cfs_expect_rmdir OK "$c/targets/t0/regions/r0"
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_commit web
	cfs_expect_rmdir OK "$c/targets/t0/regions/r0"
	expect_kdamond web kdamond.web
	cfs_wait_more_aggr web 2
}

@test "a context made while another runs is independent of it" {
	cfs_start_sleeper
	start_ctx web "$SLEEPER_PID"
	new_ctx other "$SLEEPER_PID"
	expect_off other
	cfs_expect_rmdir OK "$CFS_CTXS/other/targets/t0"
	cfs_expect_rmdir OK "$CFS_CTXS/other"
	expect_kdamond web kdamond.web
}

# ------------------------------------------------------------ schemes

@test "on and commit check access patterns: a min above its max fails with EINVAL" {
	local c=$CFS_CTXS/web a=$CFS_CTXS/web/schemes/sc/access_pattern p name lo hi
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	cfs_mkscheme web sc
	for p in size_bytes:8192:4096 nr_accesses:5:4 age:10:9; do
		IFS=: read -r name lo hi <<< "$p"
		cfs_set "$a/min_$name" "$lo"
		cfs_set "$a/max_$name" "$hi"
		cfs_expect EINVAL "$c/state" on
		expect_off web
		# Equal is fine.
		cfs_set "$a/max_$name" "$lo"
	done
	cfs_on web
	expect_kdamond web kdamond.web
	# The same at commit; the running setup stays.
	cfs_set "$a/max_age" 3
	cfs_expect EINVAL "$c/state" commit
	expect_kdamond web kdamond.web
	cfs_set "$a/max_age" 10
	cfs_commit web
}

@test "on and commit check watermarks: with a metric, low <= mid <= high (EINVAL)" {
	local c=$CFS_CTXS/web w=$CFS_CTXS/web/schemes/sc/watermarks
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	cfs_mkscheme web sc
	# Without a metric the levels do not matter.
	cfs_set "$w/low" 900
	cfs_set "$w/mid" 500
	cfs_set "$w/high" 100
	cfs_on web
	cfs_off web
	cfs_set "$w/metric" free_mem_rate
	cfs_expect EINVAL "$c/state" on
	expect_off web
	cfs_set "$w/low" 100
	cfs_set "$w/high" 400		# mid > high
	cfs_expect EINVAL "$c/state" on
	cfs_set "$w/high" 900
	cfs_on web
	expect_kdamond web kdamond.web
	cfs_set "$w/mid" 50		# mid < low
	cfs_expect EINVAL "$c/state" commit
	cfs_set "$w/mid" 100		# low == mid is fine
	cfs_commit web
}

@test "on and commit check filters: addr needs start < end, target an existing target" {
	local c=$CFS_CTXS/web f=$CFS_CTXS/web/schemes/sc/filters/f0
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	cfs_mkscheme web sc f0
	cfs_set "$f/type" addr
	cfs_expect EINVAL "$c/state" on		# 0 .. 0
	cfs_set "$f/addr_start" 8192
	cfs_set "$f/addr_end" 4096
	cfs_expect EINVAL "$c/state" on
	expect_off web
	cfs_set "$f/addr_end" 16384
	cfs_on web
	cfs_off web
	cfs_set "$f/type" target
	cfs_expect EINVAL "$c/state" on		# no name
	cfs_set "$f/target" nosuch
	cfs_expect EINVAL "$c/state" on
	expect_off web
	cfs_set "$f/target" t0
	cfs_on web
	expect_kdamond web kdamond.web
	cfs_set "$f/target" t9
	cfs_expect EINVAL "$c/state" commit
	cfs_mktarget web t9 "$SLEEPER_PID"
	cfs_commit web
}

@test "schemes and filters of the running setup are busy; new ones are free until commit" {
	local s=$CFS_CTXS/web/schemes
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	cfs_mkscheme web sc f0
	cfs_on web
	cfs_expect_rmdir EBUSY "$s/sc/filters/f0"
	cfs_expect_rmdir EBUSY "$s/sc"
	# New ones may be made and removed again before commit.
	cfs_mkscheme web new nf
	cfs_expect_mkdir OK "$s/sc/filters/f1"
	cfs_expect_rmdir OK "$s/sc/filters/f1"
	cfs_expect_rmdir OK "$s/new/filters/nf"
	cfs_expect_rmdir OK "$s/new"
	cfs_mkscheme web new nf
	cfs_commit web
	cfs_expect_rmdir EBUSY "$s/new/filters/nf"
	cfs_expect_rmdir EBUSY "$s/new"
	expect_kdamond web kdamond.web
	cfs_off web
	cfs_expect_rmdir OK "$s/new/filters/nf"
	cfs_expect_rmdir OK "$s/new"
}

@test "scheme stats count from on, survive commit and off, and restart at the next on" {
	local st=$CFS_CTXS/web/schemes/sc/stats n1 n2 n3
	cfs_start_sleeper 2
	new_ctx web "$SLEEPER_PID"
	# stat matches every region, acts on none and counts them all.
	cfs_mkscheme web sc
	cfs_on web
	cfs_wait_aggr web 3
	n1=$(cat "$st/nr_tried")
	(( n1 > 0 )) || { echo "nr_tried $n1 after 3 aggregations"; return 1; }
	(( $(cat "$st/sz_tried") > 0 ))
	# For stat, every tried region counts as applied.
	cfs_commit web
	n2=$(cat "$st/nr_tried")
	(( n2 >= n1 )) || { echo "nr_tried fell from $n1 to $n2 at commit"; return 1; }
	cfs_wait_more_aggr web 2
	cfs_off web
	n3=$(cat "$st/nr_tried")
	(( n3 > n2 ))
	[ "$(cat "$st/nr_applied")" = "$n3" ]
	[ "$(cat "$st/sz_applied")" = "$(cat "$st/sz_tried")" ]
	[ "$(cat "$st/qt_exceeds")" = 0 ]
	sleep 0.2
	[ "$(cat "$st/nr_tried")" = "$n3" ]
	# The first aggregation of the next run is 10 s away.
	cfs_attrs web 1000 10000000 10000000 10 100
	cfs_on web
	cfs_expect_value "$st/nr_tried" 0
	cfs_expect_value "$st/sz_applied" 0
}

# ------------------------------------------------------------ kernel log

# log_has PATTERN: the kernel log, or what the follower caught of it, has
# a line matching PATTERN.
log_has() {
	grep -qE "$1" "$BATS_TEST_TMPDIR/kmsg" 2>/dev/null || dmesg | grep -qE "$1"
}

# follow_log: catch new kernel log lines in a file as they come, so that
# a busy log cannot push ours out of the ring buffer before we look.
follow_log() {
	if dmesg --help 2>&1 | grep -q -- --follow-new; then
		dmesg --follow-new > "$BATS_TEST_TMPDIR/kmsg" 2>&1 3>&- &
		ST_PIDS+=($!)
	fi
}

# fail_until_logged CTX PATTERN WORD: write WORD (on or commit) to CTX's
# state, which must fail, until a kernel log line matches PATTERN (the
# messages are ratelimited, so a burst before may hide one for a while).
fail_until_logged() {
	local i
	for i in $(seq 15); do
		[ "$(cfs_w "$CFS_CTXS/$1/state" "$3")" != OK ] ||
			{ echo "$3 worked"; return 1; }
		st_wait_for 1 log_has "$2" && return 0
	done
	echo "no kernel log line matching '$2'"
	dmesg | grep damon-configfs | tail -n 5
	return 1
}

@test "a failed on or commit logs one damon-configfs: line naming the context" {
	follow_log
	cfs_mkctx logctx_on "${FAST[@]}"
	fail_until_logged logctx_on 'damon-configfs:.*logctx_on' on
	start_ctx logcm
	cfs_set "$CFS_CTXS/logcm/min_nr_regions" 1000
	fail_until_logged logcm 'damon-configfs:.*logcm' commit
	expect_kdamond logcm kdamond.logcm
}

# ------------------------------------------------------------ concurrency

@test "concurrent writers, committers and readers break nothing" {
	local c=$CFS_CTXS/web dir=$BATS_TEST_TMPDIR pids=() i out
	st_start_hotcold 2 2
	new_ctx web "$ST_PID"
	cfs_on web
	"$SYSIO" hammer "$c/aggr_us" 300 20000 30000 > "$dir/h1" 3>&- &
	pids+=($!)
	"$SYSIO" hammer "$c/sample_us" 300 1000 2000 > "$dir/h2" 3>&- &
	pids+=($!)
	"$SYSIO" hammer "$c/min_nr_regions" 300 10 20 > "$dir/h3" 3>&- &
	pids+=($!)
	"$SYSIO" hammer "$c/state" 30 commit > "$dir/h4" 3>&- &
	pids+=($!)
	"$SYSIO" hammer "$c/state" 30 commit > "$dir/h5" 3>&- &
	pids+=($!)
	"$SYSIO" hammer "$c/targets/t0/pid" 300 "$ST_PID" > "$dir/h6" 3>&- &
	pids+=($!)
	# A reader, and other contexts that come and go meanwhile: each one
	# `sysio serve` making all its calls (a process per call costs tens
	# of milliseconds in UML).
	for ((i = 0; i < 40; i++)); do
		for out in targets/t0/snapshot nr_aggregations kdamond_pid aggr_us; do
			cfs_serve_req readerr "$c/$out"
		done
	done | "$SYSIO" serve > "$dir/rd" 3>&- &
	pids+=($!)
	for ((i = 1; i <= 20; i++)); do
		cfs_serve_req mkdir "$CFS_CTXS/x$i"
		cfs_serve_req mkdir "$CFS_CTXS/x$i/targets/t"
		cfs_serve_req rmdir "$CFS_CTXS/x$i/targets/t"
		cfs_serve_req rmdir "$CFS_CTXS/x$i"
	done | "$SYSIO" serve > /dev/null 3>&- &
	pids+=($!)
	for i in "${pids[@]}"; do
		wait "$i"
	done
	for out in h1 h2 h3 h6; do
		[ "$(cat "$dir/$out")" = "ok 300" ] ||
			{ echo "$out: $(cat "$dir/$out")"; return 1; }
	done
	for out in h4 h5; do
		[ "$(cat "$dir/$out")" = "ok 30" ] ||
			{ echo "$out: $(cat "$dir/$out")"; return 1; }
	done
	# Every read worked, or asked to be retried (EAGAIN).
	[ "$(grep -cxE 'OK|EAGAIN' "$dir/rd")" = 160 ] || { cat "$dir/rd"; return 1; }
	# Everything is still consistent and works.
	[ "$(ls -A "$CFS_CTXS")" = web ]
	expect_kdamond web kdamond.web
	[[ "$(cat "$c/aggr_us")" =~ ^(20000|30000)$ ]]
	[[ "$(cat "$c/sample_us")" =~ ^(1000|2000)$ ]]
	[[ "$(cat "$c/min_nr_regions")" =~ ^(10|20)$ ]]
	cfs_commit web
	cfs_wait_more_aggr web 2
	cfs_off web
	expect_off web
}

@test "racing on and off writes keep state and kdamond_pid consistent" {
	local c=$CFS_CTXS/web dir=$BATS_TEST_TMPDIR p1 p2 state pid
	cfs_start_sleeper
	new_ctx web "$SLEEPER_PID"
	"$SYSIO" hammer "$c/state" 40 on off > "$dir/h1" 3>&- &
	p1=$!
	"$SYSIO" hammer "$c/state" 40 off on > "$dir/h2" 3>&- &
	p2=$!
	wait "$p1"
	wait "$p2"
	[ "$(cat "$dir/h1")" = "ok 40" ] || { cat "$dir/h1"; return 1; }
	[ "$(cat "$dir/h2")" = "ok 40" ] || { cat "$dir/h2"; return 1; }
	state=$(cfs_state web)
	pid=$(cfs_kdamond_pid web)
	if [ "$state" = on ]; then
		[ "$(cat "/proc/$pid/comm")" = kdamond.web ]
	else
		[ "$state" = off ]
		[ "$pid" = -1 ]
	fi
	[ "$(pgrep -x kdamond.web | wc -l)" -le 1 ]
	cfs_off web
	expect_off web
	[ "$(pgrep -x kdamond.web | wc -l)" -eq 0 ]
	cfs_on web
	expect_kdamond web kdamond.web
}

# ------------------------------------------------------------ contract edges

@test "on with more initial regions than max_nr_regions fails with EINVAL" {
	local start i
	cfs_start_sleeper 2
	read -r _ start _ <<< "$ST_LINE"
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	cfs_set "$CFS_CTXS/web/min_nr_regions" 3
	cfs_set "$CFS_CTXS/web/max_nr_regions" 3
	for i in 0 1 2 3; do
		cfs_mkregion web t0 "r$i" $((start + i * 2 * PAGE_SIZE)) \
			$((start + (i * 2 + 1) * PAGE_SIZE))
	done
	cfs_expect EINVAL "$CFS_CTXS/web/state" on
	expect_off web
	cfs_set "$CFS_CTXS/web/max_nr_regions" 4
	cfs_on web
}

@test "a region end beyond the last page boundary fails at on with EINVAL and says so" {
	follow_log
	cfs_start_sleeper 2
	new_ctx web "$SLEEPER_PID"
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	# 2^64-1: no page-aligned end covers it
	cfs_mkregion web t0 r0 0 18446744073709551615
	fail_until_logged web 'damon-configfs:.*web.*r0: end is beyond the last page' on
	expect_off web
}

@test "kdamond_pid is shown in the reader's pid namespace, as pid is" {
	local got
	if ! unshare --pid --fork --kill-child true 2>/dev/null; then
		skip "no pid namespaces in this kernel (CONFIG_PID_NS)"
	fi
	start_ctx web
	expect_kdamond web kdamond.web
	# From a new pid namespace neither the kdamond nor the target's
	# process is visible: both read 0, never a number of another space.
	got=$(unshare --pid --fork --kill-child -- bash -c \
		'read -r k < "$1" && read -r p < "$2" && echo "$k $p"' _ \
		"$CFS_CTXS/web/kdamond_pid" "$CFS_CTXS/web/targets/t0/pid" 3>&-)
	[ "$got" = "0 0" ] || { echo "read from a child namespace: $got"; return 1; }
	[ "$(cfs_kdamond_pid web)" = "$KPID" ]
}

@test "after the kdamond stopped by itself everything can be removed, without reading any file" {
	local pid round
	for round in 1 2 3 4 5; do
		start_ctx "r$round"
		expect_kdamond "r$round" "kdamond.r$round"
		pid=$KPID
		st_stop "$SLEEPER_PID" TERM
		# Wait for the thread to be gone without reading state,
		# kdamond_pid or nr_aggregations, which would clean up.
		st_wait_for 30 thread_gone "$pid" "kdamond.r$round"
		st_wait_for 10 rmdir "$CFS_CTXS/r$round/targets/t0" 2>/dev/null ||
			{ echo "round $round: rmdir of the target still fails"; return 1; }
		cfs_expect_rmdir OK "$CFS_CTXS/r$round"
	done
}
