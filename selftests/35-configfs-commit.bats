#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What an online commit keeps and what it changes (configfs-layout.md,
# "state", commit): regions fitted exactly to changed fixed ranges, a
# region removed while on (staged until commit), vaddr
# records that survive a commit that does not touch the initial regions,
# intervals that take effect at once, and a superseded commit that waits
# for the setup that includes it.

load lib
load configfs

setup() {
	cfs_setup
}

teardown() {
	cfs_teardown
}

MIB=$((1024 * 1024))

# max_age_in FILE START END: the oldest region inside [START, END).
max_age_in() {
	awk -v lo="$2" -v hi="$3" '
	$1 + 0 >= lo + 0 && $2 + 0 <= hi + 0 && $4 + 0 > m { m = $4 + 0 }
	END { print m + 0 }' "$1"
}

# span_of FILE: "START END" from the first region's start to the last end.
span_of() {
	awk 'NR == 1 { s = $1 } { e = $2 } END { printf "%.0f %.0f\n", s, e }' "$1"
}

# fvaddr_two_ranges A: context web, fvaddr, on the sleeper, with regions
# r0 = [A, A + 1 MiB) and r1 = [A + 2 MiB, A + 3 MiB); not on yet.
fvaddr_two_ranges() {
	local a=$1
	cfs_mkctx web 1000 20000 1000000 10 100
	cfs_set "$CFS_CTXS/web/operations" fvaddr
	cfs_mktarget web t0 "$SLEEPER_PID"
	cfs_mkregion web t0 r0 "$a" $((a + MIB))
	cfs_mkregion web t0 r1 $((a + 2 * MIB)) $((a + 3 * MIB))
}

# expect_covered WHEN WANT: t0's snapshot covers exactly WANT ("S E S E ").
expect_covered() {
	local snap=$BATS_TEST_TMPDIR/snap got
	cfs_snapshot_to web t0 "$snap"
	got=$(cfs_covered "$snap" | tr '\n' ' ')
	[ "$got" = "$2" ] || { echo "$1: covers $got"; cat "$snap"; return 1; }
}

@test "commit fits changed fixed ranges exactly: a gap that is now inside a range is monitored" {
	local a n
	cfs_start_sleeper 6
	read -r _ a _ <<< "$ST_LINE"
	fvaddr_two_ranges "$a"
	cfs_on web
	cfs_wait_aggr web 2
	expect_covered before "$a $((a + MIB)) $((a + 2 * MIB)) $((a + 3 * MIB)) "
	# r0 now takes in the gap and r1's old range; r1 moves further up.
	cfs_set "$CFS_CTXS/web/targets/t0/regions/r1/start" $((a + 4 * MIB))
	cfs_set "$CFS_CTXS/web/targets/t0/regions/r1/end" $((a + 5 * MIB))
	cfs_set "$CFS_CTXS/web/targets/t0/regions/r0/end" $((a + 3 * MIB))
	cfs_commit web
	# The aggregation that applied the commit published the old regions
	# just before; every snapshot after it covers exactly the new ranges.
	cfs_wait_more_aggr web 1
	for n in 1 2 3; do
		cfs_wait_more_aggr web 1
		expect_covered "after commit ($n)" \
			"$a $((a + 3 * MIB)) $((a + 4 * MIB)) $((a + 5 * MIB)) "
	done
}

@test "a region removed while on keeps being monitored until commit, and not after it" {
	local a n
	cfs_start_sleeper 6
	read -r _ a _ <<< "$ST_LINE"
	fvaddr_two_ranges "$a"
	cfs_on web
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/t0/regions/r1"
	cfs_wait_aggr web 2
	expect_covered "before commit" \
		"$a $((a + MIB)) $((a + 2 * MIB)) $((a + 3 * MIB)) "
	cfs_commit web
	cfs_wait_more_aggr web 1
	for n in 1 2; do
		cfs_wait_more_aggr web 1
		expect_covered "after commit ($n)" "$a $((a + MIB)) "
	done
	# Without regions, an fvaddr target has nothing to monitor.
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/t0/regions/r0"
	cfs_expect EINVAL "$CFS_CTXS/web/state" commit
	[ "$(cat "$CFS_CTXS/web/state")" = on ]
}

@test "vaddr: a commit that changes only intervals keeps the regions updates built and their ages" {
	local snap=$BATS_TEST_TMPDIR/snap pre post span
	st_start_hotcold 2 16
	cfs_mkctx web 1000 20000 200000 10 100
	cfs_mktarget web t0 "$ST_PID"
	# The hot range is the only initial region; updates add the rest.
	cfs_mkregion web t0 hot "$HOT_START" "$HOT_END"
	cfs_on web
	local deadline=$((SECONDS + 90))
	while :; do
		cfs_snapshot_to web t0 "$snap"
		pre=$(max_age_in "$snap" "$COLD_START" "$COLD_END")
		[ "$pre" -lt 20 ] || break
		[ "$SECONDS" -lt "$deadline" ] ||
			{ echo "the cold range never aged to 20:"; cat "$snap"; return 1; }
		st_sleep 0.2
	done
	span=$(span_of "$snap")
	# Twice as long aggregations: ages are halved, not restarted, and
	# the cold range stays monitored.
	cfs_set "$CFS_CTXS/web/aggr_us" 40000
	cfs_commit web
	# (the aggregation that applied it published the regions before)
	cfs_wait_more_aggr web 2
	cfs_snapshot_to web t0 "$snap"
	post=$(max_age_in "$snap" "$COLD_START" "$COLD_END")
	echo "cold range: max age $pre before the commit, $post after; span $span -> $(span_of "$snap")"
	[ "$(cfs_covered "$snap" | awk -v lo="$COLD_START" -v hi="$COLD_END" \
		'$1 <= lo && $2 >= hi { ok = 1 } END { print ok + 0 }')" = 1 ] ||
		{ echo "the cold range is no longer covered:"; cat "$snap"; return 1; }
	[ "$post" -ge $((pre / 4)) ] ||
		{ echo "the cold range's ages restarted:"; cat "$snap"; return 1; }
}

@test "commit of a shorter update_us takes effect at once, not after the old interval" {
	local snap=$BATS_TEST_TMPDIR/snap start end got
	cfs_start_sleeper 4
	read -r _ start end <<< "$ST_LINE"
	# vaddr with one small initial region and an update every 60 s: the
	# rest of the address space shows up only at the first update.
	cfs_mkctx web 1000 20000 60000000 10 100
	cfs_mktarget web t0 "$SLEEPER_PID"
	cfs_mkregion web t0 r0 "$start" $((start + MIB))
	cfs_on web
	cfs_wait_aggr web 2
	cfs_snapshot_to web t0 "$snap"
	got=$(span_of "$snap")
	[ "$got" = "$start $((start + MIB))" ] ||
		{ echo "updated before 60 s: spans $got"; return 1; }
	cfs_set "$CFS_CTXS/web/update_us" 100000
	cfs_commit web
	# Within a few aggregations (not 60 s) the three regions are there.
	local deadline=$((SECONDS + 10))
	while :; do
		cfs_snapshot_to web t0 "$snap"
		got=$(span_of "$snap")
		[ "$got" = "$start $((start + MIB))" ] || break
		[ "$SECONDS" -lt "$deadline" ] ||
			{ echo "no update 10 s after update_us became 100 ms"; return 1; }
		st_sleep 0.2
	done
	echo "spans $got after the commit"
}

@test "a commit superseded by another returns only once the newer setup is applied" {
	local done_a=$BATS_TEST_TMPDIR/a.done n0 n1 try pa pb
	cfs_start_sleeper 2
	# One aggregation every 3 s: commits wait up to that long.
	cfs_mkctx web 10000 3000000 3000000 10 100
	cfs_mktarget web t0 "$SLEEPER_PID"
	cfs_on web
	cfs_wait_aggr web 1 30
	for try in 1 2 3; do
		rm -f "$done_a"
		n0=$(cfs_nr_aggr web)
		( echo commit > "$CFS_CTXS/web/state" && touch "$done_a" ) 3>&- &
		pa=$!
		st_sleep 0.3
		( echo commit > "$CFS_CTXS/web/state" ) 3>&- &
		pb=$!
		st_sleep 0.5
		n1=$(cfs_nr_aggr web)
		if [ "$n1" = "$n0" ]; then
			# No aggregation since: nothing was applied yet.
			[ ! -e "$done_a" ] ||
				{ echo "the superseded commit returned before anything was applied"; return 1; }
			# (never a bare wait: bats' watchdog is a job too)
			wait "$pa" "$pb" || true
			[ -e "$done_a" ] || { echo "the superseded commit failed"; return 1; }
			return 0
		fi
		wait "$pa" "$pb" || true	# an aggregation came in between: again
	done
	skip "an aggregation fell between the two commits three times in a row"
}
