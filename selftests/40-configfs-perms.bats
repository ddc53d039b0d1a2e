#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Root only (configfs-layout.md, "Permissions"): files are 0600, read-only
# ones 0400, so no other user can read or write any of them, nor make or
# remove directories.  The snapshot reveals another process's memory
# layout, so it matters that it stays private.

load lib
load configfs

setup() {
	cfs_setup
	cfs_nobody_sysio
	# Find out once how to become another user (cached for the test).
	cfs_as_user 65534 65534 true ||
		skip "neither setpriv nor su can switch to uid 65534 here"
	C=$CFS_CTXS/web
	T=$C/targets/app
	R=$T/regions/r0
}

teardown() {
	cfs_teardown
	rm -rf "${CFS_NOBODY_DIR:-/nonexistent}"
}

# full_tree PID: a context with a target on PID and one region, and a
# scheme with one filter and one quota goal (which "on" takes).
full_tree() {
	cfs_mkctx web 1000 20000 1000000 10 100
	cfs_mktarget web app "$1"
	cfs_mkregion web app r0 4096 8192
	cfs_mkscheme web sc f0
	cfs_expect_mkdir OK "$C/schemes/sc/quotas/goals/g0"
	cfs_set "$C/schemes/sc/quotas/goals/g0/target_value" 1000
}

# all_files: every file below damon/.
all_files() {
	find "$CFS" -type f | LC_ALL=C sort
}

# value_for FILE: a value to try writing to FILE, in VAL: one that root
# could write successfully.  (A variable, not output: $(...) would fork.)
value_for() {
	case ${1##*/} in
	operations) VAL=fvaddr ;;
	state) VAL=on ;;
	action) VAL=pageout ;;
	metric) VAL=free_mem_rate ;;
	type) VAL=addr ;;
	matching) VAL=N ;;
	target) VAL=app ;;
	target_metric) VAL=node_mem_free_bp ;;
	memcg_path) VAL=/ ;;
	pid) VAL=1 ;;
	features) VAL=ops:paddr ;;
	start) VAL=12288 ;;
	end) VAL=16384 ;;
	*) VAL=4321 ;;
	esac
}

# nobody_fails UID GID OP FILE [VALUE]: as UID/GID, OP (readerr or write)
# on FILE fails with EACCES.
nobody_fails() {
	local uid=$1 gid=$2 op=$3 file=$4 got
	shift 4
	got=$(cfs_as_user "$uid" "$gid" "$NOBODY_SYSIO" "$op" "$file" "$@")
	[ "$got" = EACCES ] ||
		{ echo "uid $uid: $op $file: expected EACCES, got $got"; return 1; }
}

# nobody_fails_all UID GID OP: as UID/GID, OP (readerr, or write of
# value_for's value) fails with EACCES on every file.  One unprivileged
# `sysio serve` answers for all of them: a process per file costs ~0.1 s
# in UML, ~20 s a test.
nobody_fails_all() {
	local uid=$1 gid=$2 op=$3 f i LC_ALL=C
	local -a files answers
	mapfile -t files < <(all_files)
	mapfile -t answers < <(for f in "${files[@]}"; do
		VAL=
		[ "$op" = write ] && value_for "$f"
		cfs_serve_req "$op" "$f" "$VAL"
	done | cfs_as_user "$uid" "$gid" "$NOBODY_SYSIO" serve)
	[ ${#answers[@]} -eq ${#files[@]} ] ||
		{ echo "uid $uid: ${#answers[@]} answers for ${#files[@]} files"; return 1; }
	for ((i = 0; i < ${#files[@]}; i++)); do
		[ "${answers[i]}" = EACCES ] || {
			echo "uid $uid: $op ${files[i]}: expected EACCES, got ${answers[i]}"
			return 1
		}
	done
}

# tree_contents: every file's name, read result and content, in TREE (read
# by root, through the suite's sysio server).
tree_contents() {
	local f
	TREE=
	while read -r f; do
		cfs__call read "$f"
		TREE+="$f $CFS_GOT $CFS_DATA"$'\n'
	done < <(all_files)
}

@test "the unprivileged helper really runs as nobody, without capabilities" {
	[ "$(cfs_as_nobody id -u)" = 65534 ]
	[ "$(cfs_as_nobody id -g)" = 65534 ]
	[ "$(cfs_as_nobody id -G)" = 65534 ]
	cfs_as_nobody grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status
	# It can read what everyone may read, so failures below are about
	# permissions, not a broken helper.
	[ "$(cfs_as_nobody "$NOBODY_SYSIO" readerr /proc/version)" = OK ]
	[ "$(cfs_as_nobody "$NOBODY_SYSIO" readerr /proc/self/status)" = OK ]
}

@test "every file is root-owned, 0600, or 0400 when read-only" {
	local f owner mode n=0
	cfs_start_sleeper
	full_tree "$SLEEPER_PID"
	# features; 9 context files, 4 in intervals_goal, 2 target, 2 region
	# files; 3 scheme files, 6 in access_pattern, 7 in quotas, 5 in
	# watermarks, 5 in stats; 6 filter files; 5 goal files.
	[ "$(all_files | wc -l)" -eq 55 ]
	while read -r owner mode f; do
		n=$((n + 1))
		[ "$owner" = 0:0 ] || { echo "$f: owner $owner"; return 1; }
		case ${f##*/} in
		features|kdamond_pid|nr_aggregations|snapshot|effective_bytes|\
		nr_tried|sz_tried|nr_applied|sz_applied|qt_exceeds)
			[ "$mode" = 400 ] || { echo "$f: mode $mode, expected 400"; return 1; } ;;
		*)
			[ "$mode" = 600 ] || { echo "$f: mode $mode, expected 600"; return 1; } ;;
		esac
	done < <(all_files | xargs -d '\n' stat -c '%u:%g %a %n')
	[ "$n" -eq 55 ]
}

@test "a non-root user can read no file" {
	local f
	cfs_start_sleeper
	full_tree "$SLEEPER_PID"
	nobody_fails_all 65534 65534 readerr
	# root can.
	while read -r f; do
		cfs_expect_read OK "$f"
	done < <(all_files)
}

@test "a non-root user can write no file, and nothing changes" {
	local before
	cfs_start_sleeper
	full_tree "$SLEEPER_PID"
	# A context that root could turn on: only the permissions stop nobody.
	tree_contents
	before=$TREE
	nobody_fails_all 65534 65534 write
	tree_contents
	[ "$TREE" = "$before" ] || { diff <(echo "$before") <(echo "$TREE"); return 1; }
	cfs_expect_value "$C/state" off
	cfs_expect_value "$C/kdamond_pid" -1
}

@test "group root does not help: uid 65534 with gid 0 can neither read nor write" {
	cfs_start_sleeper
	full_tree "$SLEEPER_PID"
	[ "$(cfs_as_user 65534 0 id -g)" = 0 ] ||
		skip "cannot run as uid 65534, gid 0 here (setpriv missing)"
	nobody_fails_all 65534 0 readerr
	nobody_fails_all 65534 0 write
}

@test "a non-root user can neither make nor remove contexts, targets, regions, schemes, filters or goals" {
	local got d
	full_tree 1
	for d in "$CFS_CTXS/evil" "$C/targets/evil" "$T/regions/evil" \
		"$C/schemes/evil" "$C/schemes/sc/filters/evil" \
		"$C/schemes/sc/quotas/goals/evil"; do
		got=$(cfs_as_nobody "$NOBODY_SYSIO" mkdir "$d")
		[ "$got" = EACCES ] || { echo "mkdir $d: $got"; return 1; }
		[ ! -e "$d" ]
	done
	for d in "$R" "$T" "$C/schemes/sc/filters/f0" \
		"$C/schemes/sc/quotas/goals/g0" "$C/schemes/sc" "$C"; do
		got=$(cfs_as_nobody "$NOBODY_SYSIO" rmdir "$d")
		[ "$got" = EACCES ] || { echo "rmdir $d: $got"; return 1; }
		[ -d "$d" ]
	done
}

@test "while monitoring runs, a non-root user can neither read results nor stop it" {
	local pid
	cfs_start_sleeper 2
	full_tree "$SLEEPER_PID"
	cfs_expect_rmdir OK "$R"
	cfs_on web
	cfs_wait_aggr web 2
	pid=$(cfs_kdamond_pid web)
	nobody_fails 65534 65534 readerr "$T/snapshot"
	nobody_fails 65534 65534 readerr "$C/nr_aggregations"
	nobody_fails 65534 65534 readerr "$C/kdamond_pid"
	nobody_fails 65534 65534 write "$C/state" off
	nobody_fails 65534 65534 write "$C/state" commit
	nobody_fails 65534 65534 write "$C/aggr_us" 5000
	nobody_fails 65534 65534 write "$T/pid" 1
	nobody_fails 65534 65534 readerr "$C/schemes/sc/stats/nr_tried"
	nobody_fails 65534 65534 write "$C/schemes/sc/action" pageout
	# nor feed a running user_input goal (current_value is not staged)
	nobody_fails 65534 65534 write "$C/schemes/sc/quotas/goals/g0/current_value" 5
	nobody_fails 65534 65534 readerr "$C/schemes/sc/quotas/goals/g0/current_value"
	cfs_expect_value "$C/schemes/sc/quotas/goals/g0/current_value" 0
	cfs_expect_value "$C/state" on
	cfs_expect_value "$C/kdamond_pid" "$pid"
	cfs_expect_value "$C/aggr_us" 20000
	[ -n "$(cat "$T/snapshot")" ]
}

@test "even the owner of a monitored process cannot read its snapshot" {
	local out=$BATS_TEST_TMPDIR/sleeper.out pid
	cfs_as_nobody "$ST_BIN/sleeper" 1 > "$out" 2>&1 3>&- &
	ST_PIDS+=($!)
	st_wait_for 30 grep -q . "$out"
	pid=$(cut -d' ' -f1 "$out")
	[ "$(stat -c %u "/proc/$pid")" = 65534 ]
	ST_PIDS+=("$pid")
	full_tree "$pid"
	cfs_expect_rmdir OK "$R"
	cfs_on web
	cfs_wait_aggr web 2
	[ -n "$(cat "$T/snapshot")" ]
	nobody_fails 65534 65534 readerr "$T/snapshot"
	nobody_fails 65534 65534 write "$C/state" off
	cfs_expect_value "$C/state" on
}
