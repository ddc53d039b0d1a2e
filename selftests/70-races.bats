#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Races and exits (configfs-layout.md, "state", "Lifetime rules while on",
# "pid", "Physical memory"): state writes from several shells at once,
# rmdir racing off and mkdir/rmdir racing on and commit, targets exiting
# during on, commit and a scheme's action, a paddr context's actions and
# filters changing with every on and commit while memory is allocated and
# freed, pid numbers recycled to new processes, and thousands of
# mkdir/rmdir cycles, with a kmemleak scan where the kernel has
# kmemleak (the debug flavour).  Loops are bounded; nothing asserts on timing.  The runner
# fails the run on any splat (lockdep, KASAN, ...) these cause.

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
# killed or until the context is gone (after a failure, teardown's rmdir).
read_forever() {
	local c=$CFS_CTXS/$1 v
	while [ -d "$c" ]; do
		read -r v < "$c/state" || :
		read -r v < "$c/kdamond_pid" || :
		read -r v < "$c/nr_aggregations" || :
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
