#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzing the configfs input (configfs-layout.md): random and adversarial
# writes to every attribute of a context, its intervals_goal/, its targets
# and regions, its schemes and their default groups, filters and quota
# goals, with on/off/commit interleaved and live workloads as targets.
# bin/cfsfuzz (workloads/cfsfuzz/) does the writing and checks each result
# and each read-back against the contract; afterwards every file must still
# read a valid value and the context must still turn on and off cleanly.
# The runner fails the run on any kernel splat the fuzzing causes.
#
# The seed is fixed (so a failure can be replayed) and printed in the TAP;
# ST_FUZZ_SEED and ST_FUZZ_SECS (default 60) override it and the duration:
#	ST_FUZZ_SEED=7 ST_FUZZ_SECS=600 scripts/run-selftests.sh \
#		build/uml/linux /tmp/fuzz 60-fuzz

load lib
load configfs

FUZZ=$ST_BIN/cfsfuzz
SEED=${ST_FUZZ_SEED:-20261203}
SECS=${ST_FUZZ_SECS:-60}

setup() {
	cfs_setup
	[ -x "$FUZZ" ] || { echo "$FUZZ is not built (make -C selftests)"; return 1; }
}

teardown() {
	[ -z "${STALL_WATCH:-}" ] || kill -KILL "$STALL_WATCH" 2>/dev/null
	cfs_teardown
}

# stall_watch SECONDS: if the test still runs after SECONDS, show on the
# TAP stream what every kdamond and every task in D state is doing (state,
# wchan, CPU time), so that a timeout says where it hung.  teardown kills
# the watch: one process, which sleeps by itself (st_sleep) so that no
# child of it outlives it holding the TAP stream open (bats waits for its
# end; a bash builtin sleep in a background job would be such a child),
# and by SIGKILL so that it cannot run the test's traps.
stall_watch() {
	(
		local p comm st
		st_sleep "$1"
		echo "# still running after $1 s: kdamonds and blocked tasks"
		for p in /proc/[0-9]*; do
			read -r comm < "$p/comm" 2>/dev/null || continue
			st=$(sed -n 's/^State:[[:space:]]*//p' "$p/status" 2>/dev/null)
			[[ "$comm" == kdamond* || "$st" == D* ]] || continue
			echo "# ${p#/proc/} $comm $st wchan $(cat "$p/wchan" 2>/dev/null)" \
				"schedstat $(cat "$p/schedstat" 2>/dev/null)"
		done
	) >&3 &
	STALL_WATCH=$!
}

# Numbers as configfs-layout.md shows them: decimal, no leading zeros.
U64='0|[1-9][0-9]{0,19}'
POS='[1-9][0-9]{0,19}'
PID='-1|[1-9][0-9]{0,9}'

# dump_tree DIR: read every file under DIR but snapshots with one fork
# (cfsfuzz dump; a fork costs ~20 ms in UML, and a scheme has 30 files):
# DUMP[PATH] is the text, bytes other than printable ASCII written as
# \xNN, DUMP_LEN[PATH] the number of bytes.
dump_tree() {
	local f=$BATS_TEST_TMPDIR/dump path len text
	if ! "$FUZZ" dump "$1" > "$f"; then
		echo "cannot read every file under $1:"
		awk -F'\t' '$2 == -1' "$f"
		return 1
	fi
	declare -gA DUMP=() DUMP_LEN=()
	while IFS=$'\t' read -r path len text; do
		DUMP[$1/$path]=$text
		DUMP_LEN[$1/$path]=$len
	done < "$f"
}

# valid FILE REGEX: FILE, as dump_tree read it, is one line matching REGEX
# (anchored) and a newline, nothing else.  The line is left in VALID_VAL.
valid() {
	local got=${DUMP[$1]-}
	[ -n "${DUMP_LEN[$1]+set}" ] || { echo "$1 is missing"; return 1; }
	if [[ "$got" != *'\x0a' ]] || ! [[ "${got%'\x0a'}" =~ ^($2)$ ]]; then
		echo "$1 reads \"$got\" (\\xNN: a byte), not /^($2)\$/ and a newline"
		return 1
	fi
	VALID_VAL=${got%'\x0a'}
}

# le_dec A B: decimal A <= decimal B (no leading zeros, any length).
le_dec() {
	[ ${#1} -lt ${#2} ] || { [ ${#1} -eq ${#2} ] && [[ ! "$1" > "$2" ]]; }
}

# valid_num FILE MAX [REGEX]: FILE reads a decimal number (matching REGEX,
# default any) from 0 to MAX.
valid_num() {
	valid "$1" "${3:-$U64}" || return 1
	le_dec "$VALID_VAL" "$2" || { echo "$1 reads $VALID_VAL > $2"; return 1; }
}

# valid_name FILE: FILE reads a name of at most 255 bytes (any but NUL)
# and a newline.
valid_name() {
	local got=${DUMP[$1]-} len=${DUMP_LEN[$1]:-0}
	if [ "$len" -lt 1 ] || [ "$len" -gt 256 ] || [[ "$got" != *'\x0a' ]] ||
		[[ "$got" == *'\x00'* ]]; then
		echo "$1 reads \"$got\" ($len bytes; \\xNN: a byte): not a name and a newline"
		return 1
	fi
}

# valid_path FILE: FILE reads a memcg_path: empty, or a path starting with
# '/' of at most a page (any bytes but NUL), and a newline.
valid_path() {
	local got=${DUMP[$1]-} len=${DUMP_LEN[$1]:-0}
	if [ "$len" -lt 1 ] || [ "$len" -gt 4096 ] || [[ "$got" != *'\x0a' ]] ||
		[[ "$got" == *'\x00'* ]] || { [ "$len" -gt 1 ] && [[ "$got" != /* ]]; }; then
		echo "$1 reads \"$got\" ($len bytes; \\xNN: a byte): not empty or a path from /, and a newline"
		return 1
	fi
}

# features_regex PREFIX: the words that features lists after PREFIX
# ("ops:"), as a regex.
features_regex() {
	local w words=() IFS=' '
	for w in ${DUMP[$CFS/features]%'\x0a'}; do
		[[ "$w" != "$1"* ]] || words+=("${w#"$1"}")
	done
	IFS='|'
	echo "${words[*]}"
}

# valid_scheme DIR STATE: every file of the scheme, its default groups, its
# filters and its quota goals reads a value configfs-layout.md allows; with
# the context in STATE off (nothing changes them between the reads), the
# statistics add up.
valid_scheme() {
	local s=$1 f st=()
	valid "$s/action" "$ACTION_RE" &&
	valid_num "$s/apply_interval_us" "$U64_MAX" &&
	valid "$s/target_nid" '-1|0|[1-9][0-9]{0,9}' || return 1
	for f in min_size_bytes max_size_bytes; do
		valid_num "$s/access_pattern/$f" "$U64_MAX" || return 1
	done
	for f in min_nr_accesses max_nr_accesses min_age max_age; do
		valid_num "$s/access_pattern/$f" 4294967295 || return 1
	done
	for f in ms bytes effective_bytes; do
		valid_num "$s/quotas/$f" "$U64_MAX" || return 1
	done
	valid_num "$s/quotas/reset_interval_ms" "$U64_MAX" "$POS" || return 1
	for f in weight_size weight_nr_accesses weight_age; do
		valid_num "$s/quotas/$f" 10000 || return 1
	done
	valid "$s/watermarks/metric" 'none|free_mem_rate' &&
	valid_num "$s/watermarks/interval_us" "$U64_MAX" "$POS" || return 1
	for f in high mid low; do
		valid_num "$s/watermarks/$f" 1000 || return 1
	done
	for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
		valid_num "$s/stats/$f" "$U64_MAX" || return 1
		st+=("$VALID_VAL")
	done
	if [ "$2" = off ] &&
		! { le_dec "${st[2]}" "${st[0]}" && le_dec "${st[3]}" "${st[1]}"; }; then
		echo "$s/stats: applied ${st[2]} regions, ${st[3]} bytes > tried ${st[0]}, ${st[1]}"
		return 1
	fi
	for f in "$s"/filters/*/; do
		[ -d "$f" ] || continue
		f=${f%/}
		valid "$f/type" "$FTYPE_RE" &&
		valid "$f/matching" 'Y|N' &&
		valid_num "$f/addr_start" "$U64_MAX" &&
		valid_num "$f/addr_end" "$U64_MAX" &&
		valid_name "$f/target" &&
		valid_path "$f/memcg_path" || return 1
	done
	for f in "$s"/quotas/goals/*/; do
		[ -d "$f" ] || continue
		f=${f%/}
		valid "$f/target_metric" "$GOAL_RE" &&
		valid_num "$f/target_value" "$U64_MAX" &&
		valid_num "$f/current_value" "$U64_MAX" &&
		valid_num "$f/nid" 1023 &&
		valid_path "$f/memcg_path" || return 1
	done
}

# valid_tree CTX: every file under the context reads a valid value.
valid_tree() {
	local c=$CFS_CTXS/$1 f t r s snap problems state
	dump_tree "$CFS" || return 1
	valid "$CFS/features" '[a-z_:]+( [a-z_:]+)*' || return 1
	ACTION_RE=$(features_regex action:)
	FTYPE_RE=$(features_regex filter:)
	GOAL_RE=$(features_regex goal:)
	valid "$c/operations" "$(features_regex ops:)" || return 1
	for f in sample_us aggr_us update_us; do
		valid_num "$c/$f" "$U64_MAX" "$POS" || return 1
	done
	for f in min_nr_regions max_nr_regions; do
		valid "$c/$f" '[1-9][0-9]{0,5}' || return 1
		(( VALID_VAL >= 3 && VALID_VAL <= 100000 )) ||
			{ echo "$c/$f out of range: $VALID_VAL"; return 1; }
	done
	valid_num "$c/intervals_goal/access_bp" 10000 &&
	valid_num "$c/intervals_goal/aggrs" 4294967295 "$POS" &&
	valid_num "$c/intervals_goal/min_sample_us" "$U64_MAX" "$POS" &&
	valid_num "$c/intervals_goal/max_sample_us" "$U64_MAX" "$POS" || return 1
	valid "$c/state" 'on|off' || return 1
	state=$VALID_VAL
	valid "$c/kdamond_pid" "$PID" || return 1
	valid "$c/nr_aggregations" "$U64" || return 1
	for t in "$c"/targets/*/; do
		[ -d "$t" ] || continue
		t=${t%/}
		valid "$t/pid" "$PID" || return 1
		snap=$BATS_TEST_TMPDIR/snap
		cfs_snapshot_to "$1" "$(basename "$t")" "$snap" || return 1
		problems=$(cfs_snapshot_problems "$snap" 4294967295)
		[ -z "$problems" ] || { echo "$t/snapshot: $problems"; return 1; }
		for r in "$t"/regions/*/; do
			[ -d "$r" ] || continue
			r=${r%/}
			valid_num "$r/start" "$U64_MAX" &&
			valid_num "$r/end" "$U64_MAX" || return 1
		done
	done
	for s in "$c"/schemes/*/; do
		[ -d "$s" ] || continue
		valid_scheme "${s%/}" "$state" || return 1
	done
}

# stats_of CTX SCHEME: "NR_TRIED SZ_TRIED NR_APPLIED SZ_APPLIED QT_EXCEEDS"
stats_of() {
	local d=$CFS_CTXS/$1/schemes/$2/stats f v vals=()
	for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
		v=$(cfs_read "$d/$f") || return 1
		vals+=("$v")
	done
	echo "${vals[*]}"
}

@test "fuzzed writes to every file of a context, its intervals goal, targets, regions, schemes, filters and goals" {
	local out=$BATS_TEST_TMPDIR/fuzz.out hot hot_out sleeper c=$CFS_CTXS/fuzz
	local features start end s f nt st na sa qt nt0
	features=$(cat "$CFS/features")
	echo "# fuzz seed $SEED, ${SECS}s (ST_FUZZ_SEED, ST_FUZZ_SECS)" >&3

	st_start_hotcold 2 4
	hot=$ST_PID hot_out=$ST_OUT
	cfs_start_sleeper 2
	sleeper=$SLEEPER_PID
	cfs_mkctx fuzz

	"$FUZZ" fuzz "$c" "$SEED" "$SECS" "$hot" "$sleeper" > "$out" 2>&1 ||
		{ cat "$out"; echo "cfsfuzz failed (seed $SEED)"; return 1; }
	cat "$out"
	echo "# $(grep '^ops ' "$out")" >&3
	echo "# $(grep '^errnos:' "$out")" >&3
	# what the fuzzing left running: the rest of the test runs with it
	echo "# end: $(cat "$c/state") $(cat "$c/operations") sample/aggr/update_us" \
		"$(cat "$c/sample_us" "$c/aggr_us" "$c/update_us" | tr '\n' ' ')" \
		"access_bp $(cat "$c/intervals_goal/access_bp")" >&3
	stall_watch 150
	grep -q '^failures 0$' "$out"
	# The fuzzing really ran the kdamond, and accepted and refused writes.
	grep -qE 'on-ok [1-9]' "$out"
	grep -qE ' accepted [1-9]' "$out"
	grep -qE 'scheme-accepted [1-9]' "$out"
	grep -qE 'stat-checks [1-9]' "$out"
	# rmdir refused while on.  (An rmdir of a directory made while on
	# needs a rarer sequence: the debug kernel, ten times slower, may not
	# reach one in the bounded time, so it is counted, not required.)
	grep -qE 'rmdir-busy [1-9]' "$out"
	grep -qE 'EINVAL=[1-9]' "$out"
	grep -qE 'ERANGE=[1-9]' "$out"

	# Every file still reads a valid value; features did not change.
	valid_tree fuzz
	[ "$(cat "$CFS/features")" = "$features" ]
	# The workloads survived being monitored, their memory intact.
	kill -0 "$hot" && kill -0 "$sleeper"

	# The context still works: make the setup valid again (any order),
	# turn it on, see it aggregate and commit, turn it off.
	cfs_off fuzz
	[ "$(cat "$c/kdamond_pid")" = -1 ]
	[ ! -d "$c/targets/t0/regions/rx" ] || cfs_expect_rmdir OK "$c/targets/t0/regions/rx"
	[ ! -d "$c/targets/tx" ] || cfs_expect_rmdir OK "$c/targets/tx"
	cfs_set "$c/operations" vaddr
	cfs_attrs fuzz 5000 50000 200000 10 1000
	# no tuning, so that the intervals stay as written (and a
	# min_sample_us above max_sample_us would not matter)
	cfs_set "$c/intervals_goal/access_bp" 0
	cfs_set "$c/intervals_goal/aggrs" 3
	cfs_set "$c/intervals_goal/min_sample_us" 5000
	cfs_set "$c/intervals_goal/max_sample_us" 10000000
	cfs_set "$c/targets/t0/pid" "$hot"
	cfs_set "$c/targets/t1/pid" "$sleeper"
	cfs_set "$c/targets/t0/regions/r0/start" "$HOT_START"
	cfs_set "$c/targets/t0/regions/r0/end" "$HOT_END"
	cfs_set "$c/targets/t0/regions/r1/start" "$COLD_START"
	cfs_set "$c/targets/t0/regions/r1/end" "$COLD_END"
	read -r _ start end <<< "$(head -n 1 "$ST_OUT")"
	cfs_set "$c/targets/t1/regions/r0/start" "$start"
	cfs_set "$c/targets/t1/regions/r0/end" "$end"
	# Every scheme counts every region (stat, any pattern, no quota, no
	# goals, no watermark); filters of any type are made anon filters,
	# which stat ignores.
	for s in "$c"/schemes/*/; do
		for f in "$s"/quotas/goals/*/; do
			[ ! -d "$f" ] || cfs_expect_rmdir OK "${f%/}"
		done
		cfs_set "$s/action" stat
		cfs_set "$s/apply_interval_us" 0
		cfs_set "$s/access_pattern/min_size_bytes" 0
		cfs_set "$s/access_pattern/max_size_bytes" "$U64_MAX"
		cfs_set "$s/access_pattern/min_nr_accesses" 0
		cfs_set "$s/access_pattern/max_nr_accesses" 4294967295
		cfs_set "$s/access_pattern/min_age" 0
		cfs_set "$s/access_pattern/max_age" 4294967295
		cfs_set "$s/quotas/ms" 0
		cfs_set "$s/quotas/bytes" 0
		cfs_set "$s/watermarks/metric" none
		for f in "$s"/filters/*/; do
			[ ! -d "$f" ] || cfs_set "$f/type" anon
		done
	done
	cfs_on fuzz
	[ "$(cfs_state fuzz)" = on ]
	(( $(cfs_kdamond_pid fuzz) > 0 ))
	cfs_wait_more_aggr fuzz 2
	valid_tree fuzz
	[ -s "$BATS_TEST_TMPDIR/snap" ]
	# (the statistics of one aggregation are published at the next)
	cfs_wait_more_aggr fuzz 2
	read -r nt0 st na sa qt <<< "$(stats_of fuzz s0)"
	(( nt0 > 0 && st >= nt0 * PAGE_SIZE && qt == 0 ))
	cfs_set "$c/aggr_us" 100000
	cfs_commit fuzz
	cfs_wait_more_aggr fuzz 1
	cfs_off fuzz
	[ "$(cfs_state fuzz)" = off ]
	[ "$(cfs_kdamond_pid fuzz)" = -1 ]
	# stat applies to all it tries; the counts survived the commit and
	# stay once off
	for s in "$c"/schemes/*/; do
		s=$(basename "$s")
		read -r nt st na sa qt <<< "$(stats_of fuzz "$s")"
		if (( nt == 0 || na != nt || sa != st || qt != 0 )); then
			echo "$s: stats $(stats_of fuzz "$s") after a stat run"
			return 1
		fi
		[ "$(stats_of fuzz "$s")" = "$nt $st $na $sa $qt" ]
	done
	read -r nt _ <<< "$(stats_of fuzz s0)"
	(( nt >= nt0 ))
	valid_tree fuzz
	if grep -qx 'kdamond.fuzz' /proc/[0-9]*/comm 2>/dev/null; then
		echo "a kdamond.fuzz thread is still there after off"
		return 1
	fi

	st_stop "$hot" TERM
	[ "$ST_STATUS" -eq 0 ]
	grep -q '^verify: ok' "$hot_out"
}

@test "random directory names: make, run, remove" {
	local out=$BATS_TEST_TMPDIR/names.out
	echo "# names seed $SEED" >&3
	cfs_start_sleeper
	"$FUZZ" names "$CFS_CTXS" "$SEED" 40 "$SLEEPER_PID" > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	grep -qx 'names 40 ok' "$out"
	[ -z "$(ls -A "$CFS_CTXS")" ]
}

@test "1 us intervals: the kdamond runs flat out yet yields; the shell goes on and off stops it" {
	local w=$CFS_CTXS/tiny/schemes/s0/watermarks i n0 n1
	cfs_start_sleeper
	cfs_mkctx tiny
	cfs_mktarget tiny t0 "$SLEEPER_PID"
	cfs_attrs tiny 1 1 1 10 1000
	# sampling: an aggregation per sample
	cfs_on tiny
	n0=$(cfs_nr_aggr tiny)
	for i in $(seq 10); do cat "$CFS_CTXS/tiny/state" > /dev/null; done
	n1=$(cfs_nr_aggr tiny)
	[ "$n1" -gt "$n0" ] || { echo "no aggregation: $n0 then $n1"; return 1; }
	cfs_off tiny
	[ "$(cfs_kdamond_pid tiny)" = -1 ]
	# idle: a scheme whose watermarks, checked every 1 us, keep it off
	cfs_mkscheme tiny s0
	cfs_set "$w/metric" free_mem_rate
	cfs_set "$w/interval_us" 1
	cfs_set "$w/high" 1000
	cfs_set "$w/mid" 1000
	cfs_set "$w/low" 1000
	cfs_on tiny
	for i in $(seq 10); do cat "$CFS_CTXS/tiny/state" > /dev/null; done
	cfs_expect_value "$CFS_CTXS/tiny/nr_aggregations" 0
	cfs_off tiny
	[ "$(cfs_kdamond_pid tiny)" = -1 ]
}

@test "huge intervals are slept, not overflowed into a busy loop" {
	local v n
	cfs_start_sleeper
	cfs_mkctx huge
	cfs_mktarget huge t0 "$SLEEPER_PID"
	# 2^64-1, 2^63 and 10^16 us: centuries; no aggregation can complete.
	for v in "$U64_MAX" 9223372036854775808 10000000000000000; do
		cfs_attrs huge "$v" "$v" "$v" 10 1000
		cfs_on huge
		sleep 2
		n=$(cfs_nr_aggr huge)
		# Until kdamond_sleep() saturated, us * 1000 wrapped the
		# deadline into the past and the kdamond spun: 628372
		# aggregations in 2 s at 2^63 us.
		[ "$n" = 0 ] || { echo "$v us: $n aggregations in 2 s"; return 1; }
		# off wakes the sleeping kdamond and waits for it
		cfs_off huge
		[ "$(cfs_kdamond_pid huge)" = -1 ]
	done
}
