#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzing the configfs input (configfs-layout.md): random and adversarial
# writes to every attribute of a context, its targets and regions, with
# on/off/commit interleaved and live workloads as targets.  bin/cfsfuzz
# (workloads/cfsfuzz.c) does the writing and checks each result and each
# read-back against the contract; afterwards every file must still read a
# valid value and the context must still turn on and off cleanly.  The
# runner fails the run on any kernel splat the fuzzing causes.
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
	cfs_teardown
}

# valid FILE REGEX: FILE reads one line matching REGEX (anchored) and a
# newline, nothing else.
valid() {
	local got
	got=$("$SYSIO" read "$1" && echo x) || { echo "cannot read $1"; return 1; }
	got=${got%x}
	if [[ "$got" != *$'\n' ]] || [[ "${got%$'\n'}" == *$'\n'* ]] ||
		! [[ "${got%$'\n'}" =~ ^($2)$ ]]; then
		echo "$1 reads $(printf %q "$got"), not /^($2)\$/"
		return 1
	fi
}

# Numbers as configfs-layout.md shows them: decimal, no leading zeros.
U64='0|[1-9][0-9]{0,19}'
POS='[1-9][0-9]{0,19}'
PID='-1|[1-9][0-9]{0,9}'

# below_2_64 FILE: the decimal number in FILE fits in 64 bits.
below_2_64() {
	local v
	v=$(cat "$1")
	# 20 digits at most (see valid): compare them as strings.
	# shellcheck disable=SC2071
	[ ${#v} -lt 20 ] || [[ "$v" < "18446744073709551616" ]] ||
		{ echo "$1 reads $v > 2^64-1"; return 1; }
}

# ops_regex: the operations words that features lists.
ops_regex() {
	tr ' ' '\n' < "$CFS/features" | sed -n 's/^ops://p' | paste -sd'|'
}

# valid_tree CTX: every file under the context reads a valid value.
valid_tree() {
	local c=$CFS_CTXS/$1 f t r snap problems
	valid "$c/operations" "$(ops_regex)" || return 1
	for f in sample_us aggr_us update_us; do
		valid "$c/$f" "$POS" && below_2_64 "$c/$f" || return 1
	done
	for f in min_nr_regions max_nr_regions; do
		valid "$c/$f" '[1-9][0-9]{0,5}' || return 1
		(( $(cat "$c/$f") >= 3 && $(cat "$c/$f") <= 100000 )) ||
			{ echo "$c/$f out of range: $(cat "$c/$f")"; return 1; }
	done
	valid "$c/state" 'on|off' || return 1
	valid "$c/kdamond_pid" "$PID" || return 1
	valid "$c/nr_aggregations" "$U64" || return 1
	for t in "$c"/targets/*/; do
		[ -d "$t" ] || continue
		valid "$t/pid" "$PID" || return 1
		snap=$BATS_TEST_TMPDIR/snap
		cfs_snapshot_to "$1" "$(basename "$t")" "$snap" || return 1
		problems=$(cfs_snapshot_problems "$snap" 4294967295)
		[ -z "$problems" ] || { echo "$t/snapshot: $problems"; return 1; }
		for r in "$t"/regions/*/; do
			[ -d "$r" ] || continue
			valid "$r/start" "$U64" && below_2_64 "$r/start" &&
			valid "$r/end" "$U64" && below_2_64 "$r/end" || return 1
		done
	done
	valid "$CFS/features" '[a-z_:]+( [a-z_:]+)*'
}

@test "fuzzed writes to every file of a context, its targets and regions" {
	local out=$BATS_TEST_TMPDIR/fuzz.out hot hot_out sleeper c=$CFS_CTXS/fuzz
	local features start end
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
	grep -q '^failures 0$' "$out"
	# The fuzzing really ran the kdamond, and accepted and refused writes.
	grep -qE 'on-ok [1-9]' "$out"
	grep -qE 'accepted [1-9]' "$out"
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
	cfs_set "$c/targets/t0/pid" "$hot"
	cfs_set "$c/targets/t1/pid" "$sleeper"
	cfs_set "$c/targets/t0/regions/r0/start" "$HOT_START"
	cfs_set "$c/targets/t0/regions/r0/end" "$HOT_END"
	cfs_set "$c/targets/t0/regions/r1/start" "$COLD_START"
	cfs_set "$c/targets/t0/regions/r1/end" "$COLD_END"
	read -r _ start end <<< "$(head -n 1 "$ST_OUT")"
	cfs_set "$c/targets/t1/regions/r0/start" "$start"
	cfs_set "$c/targets/t1/regions/r0/end" "$end"
	cfs_on fuzz
	[ "$(cfs_state fuzz)" = on ]
	(( $(cfs_kdamond_pid fuzz) > 0 ))
	cfs_wait_more_aggr fuzz 2
	valid_tree fuzz
	[ -s "$BATS_TEST_TMPDIR/snap" ]
	cfs_set "$c/aggr_us" 100000
	cfs_commit fuzz
	cfs_wait_more_aggr fuzz 1
	cfs_off fuzz
	[ "$(cfs_state fuzz)" = off ]
	[ "$(cfs_kdamond_pid fuzz)" = -1 ]
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
		if [ "$n" != 0 ]; then
			cfs_off huge
			# kdamond_sleep() computes us * 1000 in 64 bits: the
			# deadline wraps into the past and the kdamond spins.
			skip "kernel bug: sample_us = aggr_us = update_us = $v: $n aggregations in 2 s (kdamond_sleep() overflows)"
		fi
		# off wakes the sleeping kdamond and waits for it
		cfs_off huge
		[ "$(cfs_kdamond_pid huge)" = -1 ]
	done
}
