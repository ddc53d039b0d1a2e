#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What the snapshots say (configfs-layout.md, "snapshot" and "Region"):
# a workload with a known hot and a known cold range is seen as such; the
# snapshot is well-formed and complete however many regions there are; the
# number of regions stays within its bounds; fvaddr monitors exactly the
# given ranges; vaddr starts from the given regions and then follows the
# address space.

load lib
load configfs

setup() {
	cfs_setup
	SNAP=$BATS_TEST_TMPDIR/snap
}

teardown() {
	cfs_teardown
}

# monitor CTX OPS PID SAMPLE AGGR UPDATE MIN MAX: a context with one target,
# t0, on PID (no regions yet, not on).
monitor() {
	cfs_mkctx "$1" "$4" "$5" "$6" "$7" "$8" &&
	cfs_set "$CFS_CTXS/$1/operations" "$2" &&
	cfs_mktarget "$1" t0 "$3"
}

# fresh_snapshot CTX TARGET: wait for an aggregation later than the last
# one fresh_snapshot saw for CTX (LAST_AGGR), then read the snapshot into
# SNAP.  LAST_AGGR becomes nr_aggregations as read after the snapshot, so
# successive calls return snapshots of distinct aggregations.
fresh_snapshot() {
	cfs_wait_aggr "$1" $((${LAST_AGGR:--1} + 1)) 60 || return 1
	cfs_snapshot_to "$1" "$2" "$SNAP" || return 1
	LAST_AGGR=$(cfs_nr_aggr "$1")
}

# expect_well_formed MAX_NR_ACCESSES: SNAP is non-empty and well-formed.
expect_well_formed() {
	local problems
	[ -s "$SNAP" ] || { echo "empty snapshot"; return 1; }
	problems=$(cfs_snapshot_problems "$SNAP" "$1")
	[ -z "$problems" ] || { echo "$problems" | head -n 20; return 1; }
}

# hot_cold_verdict MAX_NR_ACCESSES: for the snapshot in SNAP, print
# "good", "bad" or "inconclusive" (no region over the hot or the cold
# range), then the hot and cold statistics (N MEAN MAX each, see
# cfs_range_stats).  Good means the mean nr_accesses over the hot range is
# at least twice that over the cold range plus a tenth of the maximum.
hot_cold_verdict() {
	local hot cold hn hm cn cm verdict
	hot=$(cfs_range_stats "$SNAP" "$HOT_START" "$HOT_END")
	cold=$(cfs_range_stats "$SNAP" "$COLD_START" "$COLD_END")
	read -r hn hm _ <<< "$hot"
	read -r cn cm _ <<< "$cold"
	if [ "$hn" -eq 0 ] || [ "$cn" -eq 0 ]; then
		verdict=inconclusive
	elif awk -v h="$hm" -v c="$cm" -v m="$1" \
		'BEGIN { exit !(h + 0 >= 2 * c + m / 10) }'; then
		verdict=good
	else
		verdict=bad
	fi
	echo "$verdict hot [$hot] cold [$cold]"
}

# expect_hot_beats_cold CTX TARGET MAX_NR_ACCESSES [SECONDS]: within
# SECONDS (default 90), three snapshots of distinct aggregations in a row
# have a good verdict.  A bad one starts the count again; inconclusive ones
# do not count.
expect_hot_beats_cold() {
	local deadline=$((SECONDS + ${4:-90})) streak=0 v
	while [ "$SECONDS" -lt "$deadline" ]; do
		fresh_snapshot "$1" "$2" || return 1
		v=$(hot_cold_verdict "$3")
		case $v in
		good*) streak=$((streak + 1)) ;;
		bad*) streak=0 ;;
		esac
		[ "$streak" -lt 3 ] || return 0
	done
	echo "hot not seen hotter than cold in 3 snapshots in a row"
	echo "hot [$HOT_START, $HOT_END) cold [$COLD_START, $COLD_END)"
	echo "last: $v (nr_aggregations $LAST_AGGR)"
	cat "$SNAP"
	return 1
}

# expect_covers START END: the snapshot in SNAP covers [START, END).
expect_covers() {
	local s e
	while read -r s e; do
		if [ "$s" -le "$1" ] && [ "$2" -le "$e" ]; then
			return 0
		fi
	done < <(cfs_covered "$SNAP")
	echo "[$1, $2) is not covered; the snapshot covers:"
	cfs_covered "$SNAP"
	return 1
}

# maps_span PID: "LOW HIGH", the lowest start and highest end of PID's
# mappings (the vsyscall page, which is no mapping of the process, aside).
maps_span() {
	local line range lo='' hi='' s e
	st_lines "/proc/$1/maps" || return 1
	for line in "${ST_LINES[@]}"; do
		[[ "$line" == *"[vsyscall]"* ]] && continue
		range=${line%% *}
		s=$((16#${range%-*}))
		e=$((16#${range#*-}))
		if [ -z "$lo" ] || [ "$s" -lt "$lo" ]; then lo=$s; fi
		if [ -z "$hi" ] || [ "$e" -gt "$hi" ]; then hi=$e; fi
	done
	echo "$lo $hi"
}

# bats test_tags=x86
@test "vaddr: regions in the hot range show clearly more accesses than in the cold range" {
	st_start_hotcold 8 16
	monitor web vaddr "$ST_PID" "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" \
		1000000 10 100
	cfs_on web
	cfs_wait_aggr web 3
	expect_hot_beats_cold web t0 "$ST_ACC_MAX"
}

# bats test_tags=x86
@test "vaddr on transparent huge pages: the hot range shows clearly more accesses (PMD Accessed bits)" {
	local want huge
	st_require_thp
	st_start_hotcold -H 8 16
	# most of both ranges is mapped by PMDs, or the test tests nothing
	want=$(((8 + 16) * 1024 * 3 / 4))
	huge=$(st_anon_huge_kib "$ST_PID" "$HOT_START" "$COLD_END")
	[ "$huge" -ge "$want" ] ||
		{ echo "AnonHugePages $huge KiB of $(((8 + 16) * 1024))"; return 1; }
	monitor web vaddr "$ST_PID" "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" \
		1000000 10 100
	cfs_on web
	cfs_wait_aggr web 3
	expect_hot_beats_cold web t0 "$ST_ACC_MAX"
	# sampling clears and reads the PMDs' Accessed bits; it splits nothing
	huge=$(st_anon_huge_kib "$ST_PID" "$HOT_START" "$COLD_END")
	[ "$huge" -ge "$want" ] ||
		{ echo "AnonHugePages $huge KiB after monitoring"; return 1; }
}

# bats test_tags=x86
@test "vaddr on hugetlb pages: the hot range shows clearly more accesses (huge PTE Accessed bits)" {
	# 8 + 16 MiB in 2 MiB pages
	st_require_hugetlb 12
	st_start_hotcold -T 8 16
	monitor web vaddr "$ST_PID" "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" \
		1000000 10 100
	cfs_on web
	cfs_wait_aggr web 3
	expect_hot_beats_cold web t0 "$ST_ACC_MAX"
}

# bats test_tags=x86
@test "fvaddr: the given hot range shows clearly more accesses than the cold one" {
	st_start_hotcold 4 8
	monitor web fvaddr "$ST_PID" "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" \
		1000000 10 100
	cfs_mkregion web t0 hot "$HOT_START" "$HOT_END"
	cfs_mkregion web t0 cold "$COLD_START" "$COLD_END"
	cfs_on web
	cfs_wait_aggr web 3
	expect_hot_beats_cold web t0 "$ST_ACC_MAX"
}

@test "snapshots are well-formed: decimal, sorted, disjoint, page-aligned, counts in range" {
	local i
	st_start_hotcold 4 8
	monitor web vaddr "$ST_PID" 1000 20000 200000 10 200
	cfs_on web
	for i in $(seq 8); do
		fresh_snapshot web t0
		expect_well_formed 20
	done
}

# bats test_tags=x86
@test "vaddr: the regions cover the workload's ranges and stay within its mappings" {
	local i lo hi first last
	st_start_hotcold 4 8
	monitor web vaddr "$ST_PID" 1000 20000 200000 10 100
	cfs_on web
	for i in $(seq 5); do
		fresh_snapshot web t0
		expect_well_formed 20
		expect_covers "$HOT_START" "$HOT_END"
		expect_covers "$COLD_START" "$COLD_END"
		read -r lo hi <<< "$(maps_span "$ST_PID")"
		first=$(head -n 1 "$SNAP" | cut -d' ' -f1)
		last=$(tail -n 1 "$SNAP" | cut -d' ' -f2)
		[ "$first" -ge $((lo / PAGE_SIZE * PAGE_SIZE)) ] ||
			{ echo "region below the lowest mapping ($first < $lo)"; return 1; }
		[ "$last" -le "$hi" ] ||
			{ echo "region above the highest mapping ($last > $hi)"; return 1; }
	done
}

@test "the number of regions stays within [min_nr_regions, max_nr_regions]" {
	local i n
	st_start_hotcold 4 8
	monitor wide vaddr "$ST_PID" 1000 20000 200000 10 30
	monitor narrow vaddr "$ST_PID" 1000 20000 200000 3 6
	cfs_on wide
	cfs_on narrow
	local wide_aggr='' narrow_aggr=''
	for i in $(seq 8); do
		LAST_AGGR=$wide_aggr
		fresh_snapshot wide t0
		wide_aggr=$LAST_AGGR
		n=$(wc -l < "$SNAP")
		(( n >= 10 && n <= 30 )) || { echo "wide: $n regions"; cat "$SNAP"; return 1; }
		LAST_AGGR=$narrow_aggr
		fresh_snapshot narrow t0
		narrow_aggr=$LAST_AGGR
		n=$(wc -l < "$SNAP")
		(( n >= 3 && n <= 6 )) || { echo "narrow: $n regions"; cat "$SNAP"; return 1; }
	done
}

@test "the bounds hold for the whole context: two targets share them" {
	local i=0 n1 n2 a b sstart send last=0 lines
	cfs_start_sleeper 4
	read -r _ sstart send <<< "$ST_LINE"
	st_start_hotcold 4 4
	# Slow aggregations, so that both snapshots can be read within one.
	monitor web vaddr "$ST_PID" 5000 1000000 1000000 10 24
	cfs_mktarget web t1 "$SLEEPER_PID"
	cfs_on web
	for _ in $(seq 40); do
		[ "$i" -lt 5 ] || break
		cfs_wait_aggr web $((last + 1)) 60
		# No forks between the two reads: they must fall within one
		# aggregation, also in a slow debug kernel.
		read -r n1 < "$CFS_CTXS/web/nr_aggregations"
		cfs_snapshot_to web t0 "$SNAP.t0"
		cfs_snapshot_to web t1 "$SNAP.t1"
		read -r n2 < "$CFS_CTXS/web/nr_aggregations"
		last=$n2
		# Count only pairs from one aggregation.
		[ "$n1" = "$n2" ] || continue
		i=$((i + 1))
		mapfile -t lines < "$SNAP.t0"
		a=${#lines[@]}
		mapfile -t lines < "$SNAP.t1"
		b=${#lines[@]}
		(( a > 0 && b > 0 )) || { echo "a target without regions: $a $b"; return 1; }
		(( a + b >= 10 && a + b <= 24 )) ||
			{ echo "$a + $b regions, outside [10, 24]"; return 1; }
	done
	[ "$i" -eq 5 ] || { echo "only $i pairs from one aggregation"; return 1; }
	# Each target's snapshot is about its own process.
	cp "$SNAP.t1" "$SNAP"
	expect_well_formed 200
	expect_covers "$sstart" "$send"
	cp "$SNAP.t0" "$SNAP"
	expect_well_formed 200
	expect_covers "$HOT_START" "$HOT_END"
	expect_covers "$COLD_START" "$COLD_END"
}

@test "fvaddr monitors exactly the given ranges, rounded out to pages, in address order" {
	local i want got
	st_start_hotcold 4 8
	monitor web fvaddr "$ST_PID" 1000 20000 200000 10 100
	# Names do not matter: "z" is the lower range, "a" the upper one.
	# Unaligned bounds are rounded out to whole pages.
	cfs_mkregion web t0 z $((HOT_START + 100)) "$HOT_END"
	cfs_mkregion web t0 a "$COLD_START" $((COLD_END - 100))
	want=$(printf '%s %s\n%s %s' "$HOT_START" "$HOT_END" "$COLD_START" "$COLD_END")
	cfs_on web
	for i in $(seq 6); do
		fresh_snapshot web t0
		expect_well_formed 20
		got=$(cfs_covered "$SNAP")
		[ "$got" = "$want" ] ||
			{ echo "covers:"; echo "$got"; echo "expected:"; echo "$want"; return 1; }
	done
	# The regions are the user's: the snapshot has at least the two.
	(( $(wc -l < "$SNAP") >= 2 ))
}

@test "fvaddr: an untouched range reads 0 accesses and its regions age" {
	local start end i max_age max_acc
	cfs_start_sleeper 4
	read -r _ start end <<< "$ST_LINE"
	monitor web fvaddr "$SLEEPER_PID" 1000 20000 1000000 10 100
	cfs_mkregion web t0 r0 "$start" "$end"
	cfs_on web
	# The pages were written just before: give the first samples time.
	cfs_wait_aggr web 3
	for i in $(seq 5); do
		fresh_snapshot web t0
		expect_well_formed 20
		max_acc=$(awk '$3 + 0 > m { m = $3 + 0 } END { print m + 0 }' "$SNAP")
		[ "$max_acc" -eq 0 ] || { echo "untouched memory accessed:"; cat "$SNAP"; return 1; }
	done
	# The same, unchanging regions grow older.
	cfs_wait_aggr web 15
	fresh_snapshot web t0
	max_age=$(awk '$4 + 0 > m { m = $4 + 0 } END { print m + 0 }' "$SNAP")
	[ "$max_age" -ge 5 ] || { echo "max age $max_age after $LAST_AGGR aggregations"; cat "$SNAP"; return 1; }
}

# bats test_tags=x86
@test "vaddr: given regions are where monitoring starts, then it follows the address space" {
	local got n
	st_start_hotcold 4 8
	# An update (fitting to the address space) only every 200 aggregations.
	monitor web vaddr "$ST_PID" 1000 20000 4000000 10 100
	cfs_mkregion web t0 r0 "$HOT_START" "$HOT_END"
	cfs_on web
	LAST_AGGR=0
	fresh_snapshot web t0
	# Before the first update, exactly the given range is monitored.
	(( LAST_AGGR < 200 )) ||
		{ echo "the first snapshot read came after the first update"; return 1; }
	got=$(cfs_covered "$SNAP")
	[ "$got" = "$HOT_START $HOT_END" ] || { echo "covers: $got"; return 1; }
	# After it, the regions follow the mappings: the cold range is in.
	cfs_wait_aggr web 205 120
	LAST_AGGR=$(cfs_nr_aggr web)
	fresh_snapshot web t0
	expect_well_formed 20
	expect_covers "$HOT_START" "$HOT_END"
	expect_covers "$COLD_START" "$COLD_END"
}

# expect_complete_snapshot MIN MAX MAX_NR_ACCESSES: SNAP holds between MIN
# and MAX well-formed lines.
expect_complete_snapshot() {
	local n
	expect_well_formed "$3" || return 1
	n=$(wc -l < "$SNAP")
	(( n >= $1 && n <= $2 )) || { echo "$n regions, expected $1..$2"; return 1; }
}

@test "a snapshot of 500 to 1000 regions (over 4 KiB) reads complete" {
	local bytes
	st_start_hotcold 8 16
	monitor web vaddr "$ST_PID" 5000 50000 1000000 500 1000
	cfs_on web
	cfs_wait_aggr web 2
	fresh_snapshot web t0
	bytes=$(wc -c < "$SNAP")
	[ "$bytes" -gt 4096 ] || { echo "only $bytes bytes"; return 1; }
	expect_complete_snapshot 500 1000 10
	# Small reads give a complete file too, and so does cat.
	SYSIO_BUFSZ=7 cfs_snapshot_to web t0 "$SNAP"
	expect_complete_snapshot 500 1000 10
	for _ in 1 2 3; do
		cat "$CFS_CTXS/web/targets/t0/snapshot" > "$SNAP" && break
	done
	expect_complete_snapshot 500 1000 10
	# And it is kept, complete, after off.
	cfs_off web
	cfs_snapshot_to web t0 "$SNAP"
	expect_complete_snapshot 500 1000 10
}

@test "a snapshot of thousands of regions (about 100 KiB) reads complete" {
	local bytes
	st_start_hotcold 8 16
	monitor web vaddr "$ST_PID" 20000 100000 10000000 3000 6000
	cfs_on web
	cfs_wait_aggr web 2 120
	fresh_snapshot web t0
	bytes=$(wc -c < "$SNAP")
	[ "$bytes" -gt 32768 ] || { echo "only $bytes bytes"; return 1; }
	expect_complete_snapshot 3000 6000 5
}
