#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Self-tuning (configfs-layout.md, "quotas/goals/GNAME/" and
# "intervals_goal/").  DAMOS quota goals: the goal directories, their files
# and checks, and the feedback loop on a running kernel: a user_input goal
# read below its target makes effective_bytes grow, above it shrink to the
# 1 MiB floor, without a commit; bytes stays a hard limit; and a
# node_mem_free_bp goal under a real memory hog pages out until the node
# is as free as asked, then backs off when the hog goes.  Intervals
# auto-tuning: the files and checks, and a workload whose access rate
# drops tenfold makes the sampling interval grow, and shrink again when
# the rate comes back.

load lib
load configfs

MIB=$((1024 * 1024))
FLOOR=$MIB		# the loop's least quota

setup_file() {
	st_swap_setup_file
}

teardown_file() {
	st_swap_teardown_file
}

setup() {
	cfs_setup
	C=$CFS_CTXS/web
	S=$C/schemes/s0
	Q=$S/quotas
	G=$Q/goals/g0
}

teardown() {
	cfs_teardown
	st_cgroups_cleanup
}

# ------------------------------------------------------------ helpers

# ctx_with_scheme PID ACTION [FILE=VALUE...]: context web (5 ms samples,
# 100 ms aggregations) on PID with scheme s0 doing ACTION, the quota
# renewed every aggregation, and FILE=VALUE written below the scheme.
ctx_with_scheme() {
	local kv
	cfs_mkctx web 5000 100000 1000000 10 200 || return 1
	cfs_mktarget web t0 "$1" || return 1
	cfs_expect_mkdir OK "$S" || return 1
	cfs_set "$S/action" "$2" || return 1
	cfs_set "$Q/reset_interval_ms" 100 || return 1
	shift 2
	for kv in "$@"; do
		cfs_set "$S/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# goal NAME METRIC TARGET [FILE=VALUE...]: make quotas/goals/NAME of s0.
goal() {
	local dir=$Q/goals/$1 kv
	cfs_expect_mkdir OK "$dir" || return 1
	cfs_set "$dir/target_metric" "$2" && cfs_set "$dir/target_value" "$3" ||
		return 1
	shift 3
	for kv in "$@"; do
		cfs_set "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
}

esz() {
	cfs_read "$Q/effective_bytes"
}

# esz_is N, esz_above N: poll predicates, without a process.
esz_is() {
	local v
	st_read v "$Q/effective_bytes" && [ "$v" = "$1" ]
}

esz_above() {
	local v
	st_read v "$Q/effective_bytes" && [ "$v" -gt "$1" ]
}

# wait_esz CMD ARG [SECONDS]: wait until esz_CMD ARG holds.
wait_esz() {
	st_wait_for "${3:-30}" "esz_$1" "$2" || {
		echo "effective_bytes $(esz): not $1 $2 after ${3:-30}s"
		return 1
	}
}

# cur_changed GOAL VALUE: the goal's current_value is no longer VALUE.
cur_changed() {
	local v
	st_read v "$Q/goals/$1/current_value" && [ "$v" != "$2" ]
}

# node0_free_bp: free memory of node 0 (of the machine without NUMA) per
# 10,000 of its memory, as the kernel's node_mem_free_bp counts it.
node0_free_bp() {
	local f=/sys/devices/system/node/node0/meminfo
	[ -r "$f" ] || f=/proc/meminfo
	awk '/MemTotal:/ { t = $(NF - 1) } /MemFree:/ { f = $(NF - 1) }
	END { printf "%d\n", f * 10000 / t }' "$f"
}

# ------------------------------------------------------------ the tree

# bats test_tags=x86
@test "features lists the goal metrics this kernel can measure" {
	local f
	f=" $(cat "$CFS/features") "
	for m in user_input node_mem_used_bp node_mem_free_bp active_mem_bp \
		inactive_mem_bp; do
		[[ "$f" == *" goal:$m "* ]] || { echo "no goal:$m in$f"; return 1; }
	done
	# PSI where the kernel has it (and it is on), memcg metrics with memcg
	if [ -r /proc/pressure/memory ]; then
		[[ "$f" == *" goal:some_mem_psi_us "* ]]
	else
		[[ "$f" != *" goal:some_mem_psi_us "* ]]
	fi
	if grep -qw '^memory' /proc/cgroups; then
		[[ "$f" == *" goal:node_memcg_used_bp goal:node_memcg_free_bp "* ]]
	else
		[[ "$f" != *" goal:node_memcg_"* ]]
	fi
}

@test "a goal has its five files, 0600, with the documented defaults" {
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	[ -d "$Q/goals" ]
	[ "$(ls "$Q/goals")" = "" ]
	cfs_expect_mkdir OK "$G"
	[ "$(ls "$G" | tr '\n' ' ')" = "current_value memcg_path nid target_metric target_value " ]
	for f in target_metric target_value current_value nid memcg_path; do
		[ "$(cfs_mode "$G/$f")" = 600 ] || { echo "$f: $(cfs_mode "$G/$f")"; return 1; }
	done
	cfs_expect_value "$G/target_metric" user_input
	cfs_expect_value "$G/target_value" 0
	cfs_expect_value "$G/current_value" 0
	cfs_expect_value "$G/nid" 0
	cfs_expect_value "$G/memcg_path" ""
	# goals/ is a default group: it cannot go; goals hold no directories
	cfs_expect_rmdir EPERM "$Q/goals"
	cfs_expect_mkdir EPERM "$G/x"
	cfs_expect_rmdir OK "$G"
}

@test "goal writes: listed metrics only, numbers to 2^64-1, nid in range; failures change nothing" {
	local m f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_mkdir OK "$G"
	for m in $(tr ' ' '\n' < "$CFS/features" | sed -n 's/^goal://p'); do
		cfs_set "$G/target_metric" "$m"
		cfs_expect_value "$G/target_metric" "$m"
	done
	cfs_set "$G/target_metric" node_mem_free_bp
	for bad in bogus "" user_input_ "node_mem_free_bp x" USER_INPUT; do
		cfs_expect_one_of "EINVAL EFAULT" "$G/target_metric" "$bad"
	done
	cfs_expect_value "$G/target_metric" node_mem_free_bp
	for f in target_value current_value; do
		cfs_set "$G/$f" 18446744073709551615
		cfs_expect_value "$G/$f" 18446744073709551615
		cfs_expect ERANGE "$G/$f" 18446744073709551616
		cfs_expect EINVAL "$G/$f" -1
		cfs_expect EINVAL "$G/$f" 12x
		cfs_expect_value "$G/$f" 18446744073709551615
	done
	cfs_expect ERANGE "$G/nid" 1000000
	cfs_expect EINVAL "$G/nid" -1
	cfs_expect_value "$G/nid" 0
	cfs_expect EINVAL "$G/memcg_path" relative/path
	cfs_set "$G/memcg_path" /some.slice
	cfs_expect_value "$G/memcg_path" /some.slice
}

@test "on and commit refuse a goal with target_value 0, a node without memory, a missing cgroup (EINVAL)" {
	local top
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	cfs_expect_mkdir OK "$G"
	cfs_expect EINVAL "$C/state" on
	cfs_expect_value "$C/state" off
	cfs_set "$G/target_value" 100
	cfs_on web
	cfs_off web
	# one past the last possible node: beyond the range (ERANGE; so on
	# UML, which has one node) or a node with no memory (EINVAL at on)
	top=$(cat /sys/devices/system/node/possible 2>/dev/null || echo 0)
	top=${top##*[-,]}
	cfs_set "$G/target_metric" node_mem_free_bp
	cfs_expect_one_of "OK ERANGE" "$G/nid" $((top + 1))
	if [ "$(cat "$G/nid")" = $((top + 1)) ]; then
		cfs_expect EINVAL "$C/state" on
		cfs_set "$G/nid" 0
	fi
	cfs_on web
	if grep -q '^goal:node_memcg_used_bp$' <(tr ' ' '\n' < "$CFS/features"); then
		cfs_set "$G/target_metric" node_memcg_used_bp
		cfs_expect EINVAL "$C/state" commit
		cfs_set "$G/memcg_path" /no-such-cgroup
		cfs_expect EINVAL "$C/state" commit
	fi
	# the running setup goes on
	cfs_expect_value "$C/state" on
	cfs_set "$G/target_metric" user_input
	cfs_commit web
}

@test "a goal made while on takes effect at commit and is then busy; after off it can go" {
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	cfs_on web
	cfs_wait_more_aggr web 2
	cfs_expect_value "$Q/effective_bytes" 0	# no quota
	goal g0 user_input 100
	cfs_expect_rmdir OK "$G"
	goal g0 user_input 100
	cfs_commit web
	wait_esz above 0
	cfs_expect_rmdir EBUSY "$G"
	cfs_off web
	cfs_expect_rmdir OK "$G"
}

# ------------------------------------------------------------ the loop

@test "user_input: below the target the quota grows, at twice it falls to 1 MiB, met it holds; no commit needed" {
	local ram e
	ram=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	goal g0 user_input 100 current_value=0
	cfs_on web
	# reading 0: it doubles each interval, up to the machine's memory
	wait_esz above $((64 * MIB))
	e=$(esz)
	[ "$e" -le "$ram" ] || { echo "effective_bytes $e > RAM $ram"; return 1; }
	# twice the target, written while on: down to the floor, no commit
	cfs_set "$G/current_value" 200
	wait_esz is "$FLOOR"
	# met: it stays
	cfs_set "$G/current_value" 100
	cfs_wait_more_aggr web 10
	esz_is "$FLOOR" || { echo "met, yet effective_bytes $(esz)"; return 1; }
	# half way: it grows again, by half an interval
	cfs_set "$G/current_value" 50
	wait_esz above $((4 * MIB))
	# the user's value reads back as written
	cfs_expect_value "$G/current_value" 50
}

@test "bytes and ms stay hard limits: the goal never takes the quota past them" {
	local i e
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat quotas/bytes=$((8 * MIB))
	goal g0 user_input 100 current_value=0
	cfs_on web
	wait_esz is $((8 * MIB))
	for ((i = 0; i < 10; i++)); do
		cfs_wait_more_aggr web 1
		e=$(esz)
		[ "$e" -le $((8 * MIB)) ] || { echo "effective_bytes $e > 8 MiB"; return 1; }
	done
	# a lower limit by commit holds at once; the goal kept its quota
	cfs_set "$Q/bytes" $((2 * MIB))
	cfs_commit web
	wait_esz is $((2 * MIB)) 5
	# over-achieved: down from the limit, not from a wound-up value
	cfs_set "$G/current_value" 150
	wait_esz is "$FLOOR"
}

@test "two goals: the quota stops growing as soon as one is met" {
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	goal g0 user_input 100 current_value=0
	goal g1 user_input 100 current_value=0
	cfs_on web
	wait_esz above $((16 * MIB))
	# g1 met twice over: the floor, whatever g0 says
	cfs_set "$Q/goals/g1/current_value" 200
	wait_esz is "$FLOOR"
	cfs_wait_more_aggr web 5
	esz_is "$FLOOR"
}

# bats test_tags=x86
@test "measured metrics show their last value in current_value" {
	local free cur
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	goal g0 node_mem_free_bp 100 current_value=12345
	goal g1 active_mem_bp 100 current_value=12345
	cfs_on web
	st_wait_for 30 cur_changed g0 12345
	st_wait_for 30 cur_changed g1 12345
	free=$(node0_free_bp)
	cur=$(cat "$G/current_value")
	[ "$cur" -ge $((free - 300)) ] && [ "$cur" -le $((free + 300)) ] ||
		{ echo "node_mem_free_bp $cur, /proc says $free"; return 1; }
	[ "$(cat "$Q/goals/g1/current_value")" -le 10000 ]
}

# bats test_tags=x86
@test "some_mem_psi_us is measured where the kernel has PSI" {
	grep -q '^goal:some_mem_psi_us$' <(tr ' ' '\n' < "$CFS/features") ||
		skip "no pressure stall information (CONFIG_PSI, psi=1)"
	cfs_start_sleeper
	ctx_with_scheme "$SLEEPER_PID" stat
	goal g0 some_mem_psi_us 1000 current_value=123456789
	cfs_on web
	# the first interval only takes the baseline; PSI refreshes every 2 s
	st_wait_for 30 cur_changed g0 123456789
}

# bats test_tags=x86
@test "node_mem_free_bp: pageout under a memory hog frees node memory up to the goal, then backs off when the hog exits" {
	local free0 target hog cur max=0 e i
	# A hog of hundreds of MiB paged out and back in costs minutes in UML
	# (0.3 ms a fault; measured: 272 s for this test under load): the
	# test is for the x86_64 machine, with real fault costs.
	[ "$(st_platform)" != uml ] ||
		skip "the memory hog test runs on x86_64 (make check runs it there); UML faults are too slow for it"
	st_need_swap
	cfs_start_sleeper	# keeps the context on once the hog is gone
	# a hog of a third of the machine, idle (cold) but for 4 MiB; its
	# pages are same-filled (-Z), so that paging them out to zram frees
	# their memory as a disk would (other data would only move into
	# zram's own memory and free nothing)
	hog=$(awk '/^MemTotal:/ { print int($2 / 1024 / 3) }' /proc/meminfo)
	st_start_hotcold -Z -i 100000 4 "$hog"
	free0=$(node0_free_bp)
	# 6 % more of node 0 free: about a fifth of the hog paged out
	target=$((free0 + 600))
	ctx_with_scheme "$ST_PID" pageout access_pattern/max_nr_accesses=0 \
		access_pattern/min_age=3 quotas/reset_interval_ms=500
	cfs_mktarget web t1 "$SLEEPER_PID"
	goal g0 node_mem_free_bp "$target" nid=0
	cfs_on web
	for ((i = 0; i < 90; i++)); do
		e=$(esz)
		[ "$e" -le "$max" ] || max=$e
		cur=$(cat "$G/current_value")
		[ "$cur" -lt $((target - 100)) ] || break
		sleep 1
	done
	echo "free0 $free0 target $target current $cur max effective_bytes $max paged out $(cat "$S/stats/sz_applied")"
	[ "$cur" -ge $((target - 100)) ]
	[ "$max" -gt "$FLOOR" ]
	[ "$(cat "$S/stats/sz_applied")" -gt 0 ]
	# the hog goes: more is free than asked, so the quota shrinks back
	st_stop "$ST_PID"
	[ "$ST_STATUS" = 0 ] || { echo "hog's data did not verify"; return 1; }
	wait_esz is "$FLOOR" 60
}

# ------------------------------------------------------------ intervals

@test "intervals_goal: its files and defaults; ranges; on refuses min_sample_us > max_sample_us only while tuning" {
	local i=$C/intervals_goal
	[[ " $(cat "$CFS/features") " == *" intervals_goal "* ]]
	cfs_start_sleeper
	cfs_mkctx web
	cfs_mktarget web t0 "$SLEEPER_PID"
	[ "$(ls "$i" | tr '\n' ' ')" = "access_bp aggrs max_sample_us min_sample_us " ]
	for f in access_bp aggrs min_sample_us max_sample_us; do
		[ "$(cfs_mode "$i/$f")" = 600 ]
	done
	cfs_expect_value "$i/access_bp" 0
	cfs_expect_value "$i/aggrs" 3
	cfs_expect_value "$i/min_sample_us" 5000
	cfs_expect_value "$i/max_sample_us" 10000000
	cfs_expect ERANGE "$i/access_bp" 10001
	cfs_expect ERANGE "$i/aggrs" 4294967296
	cfs_expect EINVAL "$i/aggrs" 0
	cfs_expect EINVAL "$i/min_sample_us" 0
	cfs_expect EINVAL "$i/max_sample_us" 0
	cfs_expect_value "$i/access_bp" 0
	cfs_expect_rmdir EPERM "$i"
	# bounds the wrong way round matter only with a goal
	cfs_set "$i/min_sample_us" 20000
	cfs_set "$i/max_sample_us" 10000
	cfs_on web
	cfs_set "$i/access_bp" 400
	cfs_expect EINVAL "$C/state" commit
	cfs_off web
	cfs_expect EINVAL "$C/state" on
	cfs_set "$i/max_sample_us" 20000
	cfs_on web
}

# median_sample SECONDS: after SECONDS of settling, the median of the live
# sample_us read every half second for 8 seconds (tuning goes in steps, and
# UML's timing is noisy: one reading says little).
median_sample() {
	local v=() k x
	st_sleep "$1"
	for ((k = 0; k < 16; k++)); do
		st_read x "$C/sample_us"
		v+=("$x")
		st_sleep 0.5
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n 8p
}

# ratio_kept: aggr_us is 20 times sample_us, read between two equal
# readings of aggr_us (the kdamond may retune between two reads).
ratio_kept() {
	local a s b
	st_read a "$C/aggr_us"
	st_read s "$C/sample_us"
	st_read b "$C/aggr_us"
	[ "$a" = "$b" ] && [ "$a" = $((s * 20)) ]
}

@test "intervals tuning: a tenfold drop of the access rate makes the intervals grow, its return shrinks them" {
	local i=$C/intervals_goal tr=/sys/kernel/tracing busy slow back
	# Under QEMU's TCG the machine's init runs tlbtick, whose wake-ups
	# empty the software TLB as a real machine's switches and small TLB
	# do (selftests/README.md): without it a process alone on the vCPU
	# read as idle after an mkold however often it touched the page.
	# 4 MiB hot of 64 MiB, a pass every 10 ms (-i), then every 100 ms
	# (SIGUSR2) and back; 4 % of what can be seen is asked for.  fvaddr
	# on the two ranges: a vaddr target's regions would span whatever the
	# layout puts between them (on x86_64 the random gap below the heap,
	# up to 1 GiB), so that 4 % would be out of reach there.
	st_start_hotcold -i 10000 4 60
	cfs_mkctx web 5000 100000 10000000 10 200
	cfs_set "$C/operations" fvaddr
	cfs_mktarget web t0 "$ST_PID"
	cfs_mkregion web t0 hot "$HOT_START" "$HOT_END"
	cfs_mkregion web t0 cold "$COLD_START" "$COLD_END"
	cfs_set "$i/access_bp" 400
	cfs_set "$i/aggrs" 2
	cfs_set "$i/min_sample_us" 1000
	cfs_set "$i/max_sample_us" 2000000
	cfs_on web
	busy=$(median_sample 10)
	st_wait_for 30 ratio_kept ||
		{ echo "aggr_us $(cat "$C/aggr_us") at sample_us $(cat "$C/sample_us")"; return 1; }
	kill -USR2 "$ST_PID"
	slow=$(median_sample 10)
	echo "sample_us medians: busy $busy, slow $slow"
	[ "$slow" -ge $((2 * busy)) ]
	st_wait_for 30 ratio_kept
	# a commit of the same starting point keeps the tuned intervals
	cfs_commit web
	[ "$(cat "$C/sample_us")" -gt "$busy" ]
	# the rate comes back: the intervals shrink again
	kill -USR2 "$ST_PID"
	back=$(median_sample 10)
	echo "back $back"
	[ "$((2 * back))" -le "$slow" ]
	# each change is traced
	if [ -d "$tr/events/damon/damon_monitor_intervals_tune" ]; then
		echo > "$tr/trace"
		echo 1 > "$tr/events/damon/damon_monitor_intervals_tune/enable"
		kill -USR2 "$ST_PID"
		st_wait_for 60 grep -q 'damon_monitor_intervals_tune: sample_us=' "$tr/trace" ||
			{ echo 0 > "$tr/events/damon/damon_monitor_intervals_tune/enable"; echo "no trace event"; return 1; }
		echo 0 > "$tr/events/damon/damon_monitor_intervals_tune/enable"
		echo > "$tr/trace"
	fi
	# off: the files read what was written again
	cfs_off web
	cfs_expect_value "$C/sample_us" 5000
	cfs_expect_value "$C/aggr_us" 100000
	st_stop "$ST_PID"
	[ "$ST_STATUS" = 0 ]
}
