#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Races and exits (configfs-layout.md, "state", "Lifetime rules while on",
# "pid"): state writes from several shells at once, rmdir racing off and
# mkdir/rmdir racing on and commit, targets exiting during on, commit and
# a scheme's action, readers of state while the target exits, and
# thousands of mkdir/rmdir cycles, with a kmemleak scan where the kernel
# has kmemleak (the debug flavour).  71-races-pids-memory.bats has the
# races with pid reuse and with physical memory.  Loops are bounded;
# nothing asserts on timing.  The runner fails the run on any splat
# (lockdep, KASAN, ...) these cause.

load races

# ------------------------------------------------------------ tests

@test "on, off and commit from several shells at once, with readers" {
	local c=$CFS_CTXS/race i pids=() words hot out=$BATS_TEST_TMPDIR
	st_start_hotcold 2 2
	hot=$ST_PID
	cfs_start_sleeper 1
	cfs_mkctx race 1000 10000 50000 10 100
	cfs_mktarget race t0 "$hot"
	cfs_mktarget race t1 "$SLEEPER_PID"

	words=(on off commit $'on\n' $'commit\n' $'off\n')
	for i in 0 1 2 3; do
		# Each writer cycles through the words in its own order.
		"$SYSIO" hammer "$c/state" 100 "${words[@]:i}" "${words[@]:0:i}" \
			> "$out/hammer.$i" 2>&1 3>&- &
		pids+=($!)
	done
	"$FUZZ" race reads "$c" 300 > "$out/reads" 2>&1 3>&- &
	pids+=($!)
	for i in "${pids[@]}"; do
		wait "$i" || { cat "$out/reads"; return 1; }
	done

	cat "$out"/hammer.* "$out/reads"
	echo "# writers: $(cat "$out"/hammer.* | awk '{ n[$1] += $2 }
		END { for (k in n) printf "%s=%d ", k, n[k] }')" >&3
	for i in 0 1 2 3; do
		# EINVAL: a commit while off; ECANCELED: a commit
		# that a concurrent off overtook (configfs-layout.md, commit).
		allowed_only "$out/hammer.$i" ok EINVAL ECANCELED
		grep -qE '^ok [1-9]' "$out/hammer.$i"
	done
	counts "$out/reads" read-state OK
	counts "$out/reads" read-snapshot OK EAGAIN

	# Whatever state the writers left, off stops it cleanly, and the
	# context still works.
	cfs_off race
	stopped race
	cfs_on race
	cfs_wait_more_aggr race 2
	cfs_commit race
	cfs_off race
	stopped race
}

@test "rmdir races off" {
	local out=$BATS_TEST_TMPDIR/out
	cfs_start_sleeper 1
	"$FUZZ" race rmdir-off "$CFS_CTXS" 10 "$SLEEPER_PID" > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	# EBUSY until off, then removed (ENOENT: removed already); a region
	# is a staged value, removable while on.
	counts "$out" off OK
	counts "$out" rmdir-region OK ENOENT
	counts "$out" rmdir-target OK EBUSY ENOENT ENOTEMPTY
	counts "$out" rmdir-context OK EBUSY ENOTEMPTY
	[ -z "$(ls -A "$CFS_CTXS")" ]
}

@test "mkdir and rmdir of targets and regions race on, commit and off" {
	local c=$CFS_CTXS/mr out=$BATS_TEST_TMPDIR/out
	st_start_hotcold 1 1
	cfs_start_sleeper
	cfs_mkctx mr 1000 10000 50000 10 1000
	cfs_mktarget mr t0 "${ST_PIDS[0]}"
	"$FUZZ" race dirs "$c" 300 "$SLEEPER_PID" > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	# on/commit refuse a target without a pid yet or an empty region
	# (EINVAL), commit while off is EINVAL; rmdir of a running target is
	# EBUSY, of a region never (regions are staged);
	# the files of a directory being removed are gone (ENOENT).  on and
	# commit meeting a directory whose rmdir is under way fail with
	# EBUSY (configfs-layout.md); they failed with ENOENT, undocumented,
	# until the pinning translated configfs' answer.
	counts "$out" on OK EINVAL EBUSY
	counts "$out" commit OK EINVAL EBUSY
	counts "$out" off OK
	counts "$out" mkdir-target OK EEXIST
	counts "$out" write-pid OK ENOENT
	counts "$out" rmdir-target OK EBUSY ENOENT
	counts "$out" mkdir-region OK EEXIST
	counts "$out" write-region OK ENOENT
	counts "$out" rmdir-region OK ENOENT
	cfs_off mr
	stopped mr
	cfs_remove_all
	echo "# $(grep -E '^COUNT (on|commit) ' "$out" | paste -sd' ')" >&3
}

@test "a target exits during on" {
	local out=$BATS_TEST_TMPDIR/out
	cfs_mkctx exit 1000 10000 50000 10 100
	cfs_mktarget exit t0
	"$FUZZ" race exit-on "$CFS_CTXS/exit" 20 > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	echo "# $(grep '^COUNT on' "$out" | paste -sd' ')" >&3
	counts "$out" on OK ESRCH
	stopped exit
	cfs_expect OK "$CFS_CTXS/exit/targets/t0/pid" "$$"
	cfs_on exit
	cfs_off exit
}

@test "the last target exits: everything can be removed without reading state" {
	local out=$BATS_TEST_TMPDIR/out
	"$FUZZ" race gone "$CFS_CTXS" 10 > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	counts "$out" rmdir-unread OK
	[ -z "$(ls -A "$CFS_CTXS")" ]
}

@test "a target exits during commit" {
	local out=$BATS_TEST_TMPDIR/out
	st_start_hotcold 1 1
	cfs_mkctx cx 1000 10000 50000 10 100
	cfs_mktarget cx t0 "${ST_PIDS[0]}"
	cfs_on cx
	"$FUZZ" race exit-commit "$CFS_CTXS/cx" 10 > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	counts "$out" commit OK ESRCH
	counts "$out" commit-after ESRCH
	[ "$(cfs_state cx)" = on ]
	cfs_off cx
	stopped cx
}

@test "the only target exits during commit" {
	local out=$BATS_TEST_TMPDIR/out
	cfs_mkctx cy 1000 10000 50000 10 100
	cfs_mktarget cy t0
	"$FUZZ" race exit-only "$CFS_CTXS/cy" 10 > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	echo "# $(grep '^COUNT commit' "$out" | paste -sd' ')" >&3
	counts "$out" commit OK ESRCH EINVAL
	stopped cy
}

@test "the target exits during an action" {
	local c=$CFS_CTXS/act out=$BATS_TEST_TMPDIR/out s
	swap_on_zram || skip "$SWAP_WHY"
	cfs_start_sleeper 1
	kmemleak_begin
	# 5 ms samples: the first aggregation, 50 ms after on, finds the
	# whole of the new target idle, and pageout pages it out.
	cfs_mkctx act 5000 50000 1000000 10 100
	cfs_mktarget act t0
	cfs_mkscheme act s0
	s=$c/schemes/s0
	# Eight rounds of 32 MiB, each process killed in the middle of its
	# pageout; half of them the kdamond has another target to go on
	# with, two of the others off is written as the process is killed.
	"$FUZZ" race exit-action "$c" 8 32 "$SLEEPER_PID" > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	sed -n 's/^round/# round/p' "$out" >&3
	counts "$out" on OK
	counts "$out" off OK
	grep -qx 'COUNT stopped-by-itself OK 2' "$out"
	grep -qx 'COUNT off-at-exit OK 2' "$out"
	grep -qx 'COUNT survived OK 4' "$out"
	# The kills did land while pages were leaving (else this tested
	# nothing): each round waits for that, up to 10 s.
	grep -qE '^COUNT kill-mid-action OK [1-9]' "$out"
	stopped act

	# The same with willneed: processes that paged themselves out are
	# killed while the kdamond reads their memory back.
	"$FUZZ" race exit-action "$c" 4 32 "$SLEEPER_PID" willneed > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	cat "$out"
	sed -n 's/^round/# round/p' "$out" >&3
	counts "$out" on OK
	counts "$out" off OK
	grep -qx 'COUNT stopped-by-itself OK 1' "$out"
	grep -qx 'COUNT off-at-exit OK 1' "$out"
	grep -qx 'COUNT survived OK 2' "$out"
	grep -qE '^COUNT kill-mid-action OK [1-9]' "$out"
	stopped act

	# The context still works, and everything can be removed.
	cfs_set "$c/targets/t0/pid" "$SLEEPER_PID"
	cfs_on act
	cfs_wait_more_aggr act 2
	cfs_off act
	stopped act
	cfs_expect_rmdir OK "$s"
	cfs_remove_all
	[ -z "$(ls -A "$CFS_CTXS")" ]
	kill -0 "$SLEEPER_PID"
	kmemleak_check
}

@test "thousands of mkdir/rmdir cycles leave nothing behind" {
	local out=$BATS_TEST_TMPDIR/cycles.out
	cfs_start_sleeper
	kmemleak_begin
	"$FUZZ" cycles "$CFS_CTXS" 2000 "$SLEEPER_PID" 100 > "$out" 2>&1 ||
		{ cat "$out"; return 1; }
	grep -qx 'cycles 2000 ok' "$out"
	[ -z "$(ls -A "$CFS_CTXS")" ]
	no_kdamond cyc
	kmemleak_check
}

# read_forever CTX: read the files whose readers clean up after a kdamond
# that stopped by itself, over and over (builtins only: no fork), until
# killed (by the test, or by teardown after a failure).
read_forever() {
	local c=$CFS_CTXS/$1 v
	while :; do
		read -r v < "$c/state"
		read -r v < "$c/kdamond_pid"
		read -r v < "$c/nr_aggregations"
	done 2>/dev/null
}

@test "readers of state hammer while the target exits and rmdirs retry" {
	local round start r1 r2 d end
	for round in $(seq 10); do
		cfs_start_sleeper 1
		read -r _ start _ <<< "$ST_LINE"
		cfs_mkctx rd 1000 10000 50000 10 100
		cfs_set "$CFS_CTXS/rd/operations" fvaddr
		cfs_mktarget rd t0 "$SLEEPER_PID"
		cfs_mkregion rd t0 r0 "$start" $((start + PAGE_SIZE))
		cfs_on rd
		read_forever rd 3>&- &
		r1=$!
		read_forever rd 3>&- &
		r2=$!
		st_sleep 0.2	# the readers are in their loops
		kill -TERM "$SLEEPER_PID"
		# Remove each directory as soon as it is unpinned: try again
		# and again for up to 20 s (a deadline, not a count of tries:
		# rmdir is a bash builtin in the test machine, a try takes
		# microseconds).
		for d in targets/t0/regions/r0 targets/t0; do
			end=$((EPOCHSECONDS + 20))
			until rmdir "$CFS_CTXS/rd/$d" 2>/dev/null; do
				[ "$EPOCHSECONDS" -lt "$end" ] || break
			done
			[ ! -d "$CFS_CTXS/rd/$d" ] ||
				{ echo "round $round: $d still there"; return 1; }
		done
		# SIGKILL: a copy of the test's shell caught by SIGTERM would
		# run bats' exit trap, the test's teardown included.
		kill -KILL "$r1" "$r2"
		wait "$r1" "$r2" 2>/dev/null || true
		cfs_expect_value "$CFS_CTXS/rd/state" off
		cfs_expect_rmdir OK "$CFS_CTXS/rd"
	done
}
