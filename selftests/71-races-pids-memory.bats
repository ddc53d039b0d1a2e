#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Races with pid numbers and physical memory (configfs-layout.md, "pid",
# "Physical memory"): pid numbers recycled to new processes, a paddr
# context's actions and filters changing with every on and commit while
# memory is allocated and freed, and the cgroup of a running memcg filter
# removed, with a kmemleak scan where the kernel has kmemleak.  The
# configfs races are in 70-races.bats; the helpers in races.bash.  Loops
# are bounded; nothing asserts on timing.

load races

# ------------------------------------------------------------ tests

@test "paddr: on, off and commit race memory churn, actions and filters changing" {
	local c=$CFS_CTXS/pa out=$BATS_TEST_TMPDIR/out churn
	grep -qw ops:paddr "$CFS/features" || skip "no ops:paddr in features"
	# pageout needs swap for anonymous memory and shmem (without, it
	# puts them back: the race goes on without that part)
	swap_on_zram || echo "# no swap, pageout keeps anonymous memory: $SWAP_WHY" >&3
	kmemleak_begin
	# 32 MiB in up to 16 mappings, made, checked and unmapped all the time
	st_start churn 32 16
	churn=$ST_PID
	cfs_mkctx pa 5000 20000 100000 10 100
	cfs_set "$c/operations" paddr
	cfs_mktarget pa t0
	cfs_mkscheme pa s0 f0 f1
	cfs_mkscheme pa s1 f0
	# Rounds of pageout, lru_prio, lru_deprio, stat (and migrate_cold,
	# migrate_hot where paddr takes them) with anon, young (and memcg "/")
	# filters, regions made and removed, a setup on and commit refuse
	# every seventh round; another writer and a reader race them.
	"$FUZZ" race paddr "$c" 150 > "$out" 2>&1 || { cat "$out"; return 1; }
	cat "$out"
	echo "# $(grep '^paddr actions' "$out")" >&3
	echo "# $(grep -E '^COUNT ((other-)?(on|commit|off)|on-bad|commit-bad) ' "$out" |
		cut -d' ' -f2- | paste -sd' ')" >&3
	counts "$out" write OK
	counts "$out" mkdir-region OK
	counts "$out" rmdir-region OK
	# on is idempotent, also with a bad setup staged; commit fails when
	# off (EINVAL) or overtaken by the other writer's off (ECANCELED),
	# and always with a bad setup; the other writer's on and commit may
	# meet a setup half written or bad (EINVAL), or a region directory
	# being removed (EBUSY).
	counts "$out" on OK
	counts "$out" commit OK EINVAL ECANCELED
	counts "$out" off OK
	counts "$out" on-bad OK EINVAL
	counts "$out" commit-bad EINVAL
	counts "$out" other-on OK EINVAL EBUSY
	counts "$out" other-commit OK EINVAL ECANCELED EBUSY
	counts "$out" other-off OK
	counts "$out" read-snapshot OK EAGAIN
	counts "$out" final-on OK
	counts "$out" final-off OK
	# The schemes ran in between (else this tested nothing).
	grep -qE '^COUNT commit OK [1-9]' "$out"
	grep -qE '^COUNT tried OK [1-9]' "$out"
	stopped pa

	# The workload lived through it all, its data intact.
	st_stop "$churn" TERM
	[ "$ST_STATUS" -eq 0 ] || { echo "churn: $(cat "$ST_OUT")"; return 1; }
	echo "# churn: $(grep '^verify' "$ST_OUT")" >&3
	grep -q '^verify: ok' "$ST_OUT"
	cfs_remove_all
	[ -z "$(ls -A "$CFS_CTXS")" ]
	kmemleak_check
}

@test "pid reuse (clone3 set_tid): the new process is never monitored" {
	local c=$CFS_CTXS/reuse a c_pid old out wrapper snap=$BATS_TEST_TMPDIR/snap
	local b_line hot_s hot_e n cov1 cov2
	st_start_hotcold 1 1
	a=$ST_PID old=$a
	cfs_start_sleeper
	c_pid=$SLEEPER_PID
	# 5 ms sampling: faster sampling starves the workload in UML.
	cfs_mkctx reuse 5000 50000 100000 10 100
	cfs_mktarget reuse t0 "$a"
	cfs_mktarget reuse t1 "$c_pid"
	cfs_on reuse
	cfs_wait_more_aggr reuse 2

	st_stop "$a" KILL
	# The regions of a dead target stay where they are (merging and
	# splitting keep what they cover): remember what they cover.
	cfs_wait_more_aggr reuse 2
	cfs_snapshot_to reuse t0 "$snap"
	cov1=$(cfs_covered "$snap")
	[ -n "$cov1" ]

	# B: another busy hotcold, with A's pid number.
	out=$BATS_TEST_TMPDIR/b.out
	"$SYSIO" withpid "$old" "$ST_BIN/hotcold" 1 1 > "$out" 2>&1 3>&- &
	wrapper=$!
	EXTRA_PIDS+=("$old")
	st_wait_for 60 test -s "$out"
	read -r b_line hot_s hot_e _ < "$out"
	[ "$b_line" = "$old" ] || { echo "withpid: $(cat "$out")"; return 1; }
	[ -d "/proc/$old" ]

	# t0 still means A: its number reads back, commit says A exited.
	[ "$(cat "$c/targets/t0/pid")" = "$old" ]
	cfs_expect ESRCH "$c/state" commit
	[ "$(cfs_state reuse)" = on ]
	# Several update intervals later t0 still covers A's old address
	# space, not B's, and sees no access (B hammers its hot range).
	cfs_wait_more_aggr reuse 4
	cfs_snapshot_to reuse t0 "$snap"
	cov2=$(cfs_covered "$snap")
	if [ "$cov1" != "$cov2" ]; then
		echo "t0's regions moved after A exited: before [$cov1] now [$cov2]"
		cat "$snap"
		return 1
	fi
	n=$(awk '$3 != 0' "$snap" | wc -l)
	[ "$n" -eq 0 ] || { echo "t0 sees accesses after A exited:"; cat "$snap"; return 1; }
	# When C exits too, the context stops by itself, B alive or not.
	st_stop "$c_pid" TERM
	cfs_wait_off reuse 30
	stopped reuse
	cfs_expect ESRCH "$c/state" on

	# Control: writing the number again does pick B: t0 then covers B's
	# hot range, so the checks above could have failed.
	cfs_expect_rmdir OK "$c/targets/t1"
	cfs_set "$c/targets/t0/pid" "$old"
	cfs_on reuse
	cfs_wait_more_aggr reuse 4
	cfs_snapshot_to reuse t0 "$snap"
	if ! cfs_covered "$snap" | awk -v s="$hot_s" -v e="$hot_e" \
		'$1 <= s + 0 && $2 >= e + 0 { f = 1 } END { exit !f }'; then
		echo "t0 on B does not cover B's hot range [$hot_s, $hot_e):"
		cat "$snap"
		return 1
	fi
	cfs_off reuse
	kill -TERM "$old"
	wait "$wrapper"
}

@test "pid reuse by recycling under a lowered pid_max" {
	local c=$CFS_CTXS/recycle a out bg i p=0
	[ -w "$PID_MAX" ] || skip "$PID_MAX is not writable"
	SAVED_PID_MAX=$(cat "$PID_MAX")
	# New pids now come from [301, 1024): a number recycles within a few
	# hundred forks.  Numbers below 301 never come back, and a machine
	# that forked little since boot may not be past them yet: fork until
	# it is.
	echo 1024 > "$PID_MAX"
	for ((i = 0; i < 1024 && p < 310; i++)); do
		: &
		p=$!
		wait "$p"
	done
	cfs_start_sleeper
	a=$SLEEPER_PID
	(( a > 300 && a < 1024 )) || { echo "sleeper got pid $a, outside [301, 1024)"; return 1; }
	cfs_mkctx recycle 1000 10000 20000 10 100
	cfs_mktarget recycle t0 "$a"
	cfs_on recycle
	cfs_wait_more_aggr recycle 1
	st_stop "$a" KILL

	out=$BATS_TEST_TMPDIR/respawn.out
	"$FUZZ" respawn "$a" 20000 "$ST_BIN/sleeper" > "$out" 2>&1 3>&- &
	bg=$!
	EXTRA_PIDS+=("$a")
	st_wait_for 120 grep -q "^$a " "$out" ||
		{ echo "pid $a did not recycle: $(cat "$out")"; return 1; }
	echo "# $(grep 'again after' "$out")" >&3
	[ -d "/proc/$a" ]

	# The only target exited: off by itself, though pid $a lives again.
	cfs_wait_off recycle 30
	stopped recycle
	[ "$(cat "$c/targets/t0/pid")" = "$a" ]
	cfs_expect ESRCH "$c/state" on
	stopped recycle
	kill -TERM "$a"
	wait "$bg"
}

# file_above FILE N: FILE holds a number above N (0 if N is left out).
file_above() {
	local v
	read -r v < "$1" && [ "$v" -gt "${2:-0}" ]
}

@test "paddr: the cgroup a running memcg filter names is removed; the scheme runs on, commit refuses the path, off frees it" {
	local c=$CFS_CTXS/pa s=$CFS_CTXS/pa/schemes/s0 n0 n1 end
	grep -qw paddr:filter:memcg "$CFS/features" ||
		skip "no paddr:filter:memcg in features (no CONFIG_MEMCG)"
	kmemleak_begin
	st_cgroups pa-gone
	ST_CGROUP=$ST_CG/pa-gone cfs_start_sleeper 8
	cfs_mkctx pa 5000 20000 100000 10 100
	cfs_set "$c/operations" paddr
	cfs_mktarget pa t0
	cfs_mkscheme pa s0 f0
	cfs_set "$s/action" stat
	cfs_set "$s/filters/f0/type" memcg
	cfs_set "$s/filters/f0/matching" N
	cfs_set "$s/filters/f0/memcg_path" /pa-gone
	cfs_on pa
	st_wait_for 30 file_above "$s/stats/nr_tried"
	# the cgroup goes while the filter holds it: its last task first
	st_stop "$SLEEPER_PID" TERM
	end=$((SECONDS + 30))
	until rmdir "$ST_CG/pa-gone" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || { echo "cannot remove pa-gone"; return 1; }
		st_sleep 1
	done
	ST_CG_MADE=()
	# the scheme goes on trying regions against the removed cgroup
	n0=$(cfs_read "$s/stats/nr_tried")
	st_wait_for 30 file_above "$s/stats/nr_tried" "$n0"
	[ "$(cfs_state pa)" = on ]
	# a commit looks the path up again: it names nothing now
	cfs_expect EINVAL "$c/state" commit
	[ "$(cfs_state pa)" = on ]
	n1=$(cfs_read "$s/stats/nr_tried")
	st_wait_for 30 file_above "$s/stats/nr_tried" "$n1"
	cfs_expect OK "$c/state" off
	stopped pa
	# and with the filter gone, on works again
	cfs_expect_rmdir OK "$s/filters/f0"
	cfs_expect OK "$c/state" on
	cfs_expect OK "$c/state" off
	kmemleak_check
}
