#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The shape of /sys/kernel/config/damon/ (configfs-layout.md, "The tree"):
# features, the directories and files of contexts, targets, regions,
# schemes, filters and quota goals, their modes and defaults, and which
# mkdir and rmdir configfs allows.

load lib
load configfs

setup() {
	cfs_setup
}

teardown() {
	cfs_teardown
}

@test "damon/ holds features and contexts/, and contexts/ starts empty" {
	[ -d "$CFS" ]
	cfs_expect_ls "$CFS" contexts features
	[ -f "$CFS/features" ]
	[ -d "$CFS_CTXS" ]
	cfs_expect_ls "$CFS_CTXS"
}

@test "features is one line of distinct words naming every core feature" {
	local text word seen=" "
	text=$(cat "$CFS/features"; echo x)
	text=${text%x}
	# Exactly one line, newline-terminated, words separated by one space.
	[ "$(printf %s "$text" | wc -l)" -eq 1 ]
	[[ "$text" == *$'\n' ]]
	[[ "$text" =~ ^[a-z0-9_:]+( [a-z0-9_:]+)*$'\n'$ ]]
	for word in $text; do
		[[ "$seen" != *" $word "* ]] || { echo "duplicate word $word"; return 1; }
		seen+="$word "
	done
	for word in ops:vaddr ops:fvaddr state:commit snapshot nr_aggregations \
		schemes action:stat action:willneed action:cold action:pageout \
		filter:anon filter:addr filter:target wmark:free_mem_rate; do
		[[ "$seen" == *" $word "* ]] || { echo "features lacks $word: $text"; return 1; }
	done
}

@test "features is 0400, root-owned, and cannot be written" {
	local before
	cfs_expect_modes "$CFS" -- features
	before=$(cat "$CFS/features")
	run cfs_w "$CFS/features" "ops:vaddr"
	[ "$output" != OK ]
	[ "$(cat "$CFS/features")" = "$before" ]
}

@test "a new context has exactly its files and the targets/, schemes/ and intervals_goal/ groups" {
	local c=$CFS_CTXS/web
	cfs_mkctx web
	[ -d "$c" ]
	cfs_expect_ls "$c" "${CFS_CTX_RW[@]}" \
		"${CFS_CTX_RO[@]}" "${CFS_CTX_DIRS[@]}"
	cfs_expect_ls "$c/intervals_goal" "${CFS_INTERVALS_RW[@]}"
	cfs_expect_modes "$c/intervals_goal" "${CFS_INTERVALS_RW[@]}"
	[ -d "$c/targets" ]
	[ -d "$c/schemes" ]
	cfs_expect_ls "$c/targets"
	cfs_expect_ls "$c/schemes"
	cfs_expect_ls "$CFS_CTXS" web
}

@test "context files are 0600, read-only ones 0400, all root-owned" {
	cfs_mkctx web
	cfs_expect_modes "$CFS_CTXS/web" "${CFS_CTX_RW[@]}" -- "${CFS_CTX_RO[@]}"
}

@test "a new target has pid, snapshot and the regions/ group, with their modes" {
	local t=$CFS_CTXS/web/targets/app
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_ls "$t" "${CFS_TARGET_RW[@]}" \
		"${CFS_TARGET_RO[@]}" "${CFS_TARGET_DIRS[@]}"
	[ -d "$t/regions" ]
	cfs_expect_ls "$t/regions"
	cfs_expect_modes "$t" "${CFS_TARGET_RW[@]}" -- "${CFS_TARGET_RO[@]}"
}

@test "a new region has start and end, both 0600" {
	local r=$CFS_CTXS/web/targets/app/regions/r0
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$r"
	cfs_expect_ls "$r" end start
	cfs_expect_modes "$r" "${CFS_REGION_RW[@]}"
}

@test "fresh contexts, targets and regions read their documented defaults" {
	local c=$CFS_CTXS/web t=$CFS_CTXS/web/targets/app
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$t/regions/r0"
	cfs_expect_value "$c/operations" vaddr
	cfs_expect_value "$c/sample_us" 5000
	cfs_expect_value "$c/aggr_us" 100000
	cfs_expect_value "$c/update_us" 1000000
	cfs_expect_value "$c/min_nr_regions" 10
	cfs_expect_value "$c/max_nr_regions" 1000
	cfs_expect_value "$c/state" off
	cfs_expect_value "$c/kdamond_pid" -1
	cfs_expect_value "$c/nr_aggregations" 0
	cfs_expect_value "$t/pid" -1
	# An empty snapshot is an empty file.
	[ "$("$SYSIO" read "$t/snapshot" | wc -c)" -eq 0 ]
	cfs_expect_value "$t/regions/r0/start" 0
	cfs_expect_value "$t/regions/r0/end" 0
}

@test "read-only files refuse writes, even from root, and keep their values" {
	local c=$CFS_CTXS/web t=$CFS_CTXS/web/targets/app f before
	cfs_mkctx web
	cfs_mktarget web app
	for f in "$c/kdamond_pid" "$c/nr_aggregations" "$t/snapshot"; do
		before=$(cat "$f")
		run cfs_w "$f" 1234
		[ "$output" != OK ] || { echo "writing $f worked"; return 1; }
		run cfs_w "$f" $'1\n'
		[ "$output" != OK ] || { echo "writing $f worked"; return 1; }
		[ "$(cat "$f")" = "$before" ]
	done
}

@test "default groups cannot be removed: rmdir fails with EPERM" {
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_rmdir EPERM "$CFS_CTXS"
	cfs_expect_rmdir EPERM "$CFS_CTXS/web/targets"
	cfs_expect_rmdir EPERM "$CFS_CTXS/web/schemes"
	cfs_expect_rmdir EPERM "$CFS_CTXS/web/targets/app/regions"
	[ -d "$CFS_CTXS/web/targets" ]
	[ -d "$CFS_CTXS/web/schemes" ]
	[ -d "$CFS_CTXS/web/targets/app/regions" ]
}

@test "a new scheme has action, apply_interval_us, target_nid and its five default groups" {
	local s=$CFS_CTXS/web/schemes/sc
	cfs_mkctx web
	cfs_mkscheme web sc
	cfs_expect_ls "$CFS_CTXS/web/schemes" sc
	cfs_expect_ls "$s" "${CFS_SCHEME_RW[@]}" \
		"${CFS_SCHEME_DIRS[@]}"
	cfs_expect_ls "$s/access_pattern" "${CFS_PATTERN_RW[@]}"
	cfs_expect_ls "$s/quotas" "${CFS_QUOTAS_RW[@]}" \
		"${CFS_QUOTAS_RO[@]}" "${CFS_QUOTAS_DIRS[@]}"
	cfs_expect_ls "$s/watermarks" "${CFS_WMARKS_RW[@]}"
	cfs_expect_ls "$s/stats" "${CFS_STATS_RO[@]}"
	[ -d "$s/filters" ]
	cfs_expect_ls "$s/filters"
	[ -d "$s/quotas/goals" ]
	cfs_expect_ls "$s/quotas/goals"
}

@test "scheme files are 0600, effective_bytes and stats 0400, all root-owned" {
	local s=$CFS_CTXS/web/schemes/sc
	cfs_mkctx web
	cfs_mkscheme web sc
	cfs_expect_modes "$s" "${CFS_SCHEME_RW[@]}"
	cfs_expect_modes "$s/access_pattern" "${CFS_PATTERN_RW[@]}"
	cfs_expect_modes "$s/quotas" "${CFS_QUOTAS_RW[@]}" -- "${CFS_QUOTAS_RO[@]}"
	cfs_expect_modes "$s/watermarks" "${CFS_WMARKS_RW[@]}"
	cfs_expect_modes "$s/stats" -- "${CFS_STATS_RO[@]}"
}

@test "a new filter has type, matching, addr_start, addr_end, target and memcg_path, all 0600" {
	local f=$CFS_CTXS/web/schemes/sc/filters/f0
	cfs_mkctx web
	cfs_mkscheme web sc f0
	cfs_expect_ls "$f" "${CFS_FILTER_RW[@]}"
	cfs_expect_modes "$f" "${CFS_FILTER_RW[@]}"
}

@test "a new quota goal has target_metric, target_value, current_value, nid and memcg_path, all 0600" {
	local g=$CFS_CTXS/web/schemes/sc/quotas/goals/g0
	cfs_mkctx web
	cfs_mkscheme web sc f0
	cfs_expect_mkdir OK "$g"
	cfs_expect_ls "$CFS_CTXS/web/schemes/sc/quotas/goals" g0
	cfs_expect_ls "$g" "${CFS_GOAL_RW[@]}"
	cfs_expect_modes "$g" "${CFS_GOAL_RW[@]}"
}

@test "fresh schemes, filters and quota goals read their documented defaults" {
	local s=$CFS_CTXS/web/schemes/sc f
	cfs_mkctx web
	cfs_mkscheme web sc f0
	cfs_expect_mkdir OK "$s/quotas/goals/g0"
	cfs_expect_value "$s/action" stat
	cfs_expect_value "$s/apply_interval_us" 0
	cfs_expect_value "$s/access_pattern/min_size_bytes" 0
	cfs_expect_value "$s/access_pattern/max_size_bytes" "$U64_MAX"
	cfs_expect_value "$s/access_pattern/min_nr_accesses" 0
	cfs_expect_value "$s/access_pattern/max_nr_accesses" 4294967295
	cfs_expect_value "$s/access_pattern/min_age" 0
	cfs_expect_value "$s/access_pattern/max_age" 4294967295
	cfs_expect_value "$s/quotas/ms" 0
	cfs_expect_value "$s/quotas/bytes" 0
	cfs_expect_value "$s/quotas/reset_interval_ms" 1000
	cfs_expect_value "$s/quotas/weight_size" 0
	cfs_expect_value "$s/quotas/weight_nr_accesses" 1
	cfs_expect_value "$s/quotas/weight_age" 1
	cfs_expect_value "$s/quotas/effective_bytes" 0
	cfs_expect_value "$s/watermarks/metric" none
	cfs_expect_value "$s/watermarks/interval_us" 5000000
	cfs_expect_value "$s/watermarks/high" 0
	cfs_expect_value "$s/watermarks/mid" 0
	cfs_expect_value "$s/watermarks/low" 0
	for f in "${CFS_STATS_RO[@]}"; do
		cfs_expect_value "$s/stats/$f" 0
	done
	cfs_expect_value "$s/filters/f0/type" anon
	cfs_expect_value "$s/filters/f0/matching" Y
	cfs_expect_value "$s/filters/f0/addr_start" 0
	cfs_expect_value "$s/filters/f0/addr_end" 0
	# No target named: an empty value, with or without its newline.
	[ -z "$(cat "$s/filters/f0/target")" ]
	[ -z "$(cat "$s/filters/f0/memcg_path")" ]
	cfs_expect_value "$s/quotas/goals/g0/target_metric" user_input
	cfs_expect_value "$s/quotas/goals/g0/target_value" 0
	cfs_expect_value "$s/quotas/goals/g0/current_value" 0
	cfs_expect_value "$s/quotas/goals/g0/nid" 0
	[ -z "$(cat "$s/quotas/goals/g0/memcg_path")" ]
}

@test "a scheme's default groups cannot be removed (EPERM) and go with it" {
	local s=$CFS_CTXS/web/schemes/sc d
	cfs_mkctx web
	cfs_mkscheme web sc f0
	cfs_expect_mkdir OK "$s/quotas/goals/g0"
	for d in "${CFS_SCHEME_DIRS[@]}" quotas/goals; do
		cfs_expect_rmdir EPERM "$s/$d"
		[ -d "$s/$d" ]
	done
	run "$SYSIO" rmdir "$s"
	[ "$output" != OK ]
	cfs_expect_rmdir OK "$s/filters/f0"
	# (a goal left: still not empty)
	run "$SYSIO" rmdir "$s"
	[ "$output" != OK ]
	cfs_expect_rmdir OK "$s/quotas/goals/g0"
	cfs_expect_rmdir OK "$s"
	[ ! -e "$s" ]
	cfs_expect_ls "$CFS_CTXS/web/schemes"
	# A scheme made again under the same name is fresh.
	cfs_mkscheme web sc
	cfs_expect_ls "$s/filters"
	cfs_expect_ls "$s/quotas/goals"
}

@test "mkdir in a scheme, its groups (but filters/ and quotas/goals/), a filter or a goal fails with EPERM" {
	local s=$CFS_CTXS/web/schemes/sc d
	cfs_mkctx web
	cfs_mkscheme web sc f0
	cfs_expect_mkdir OK "$s/quotas/goals/g0"
	for d in "$s" "$s/access_pattern" "$s/quotas" "$s/watermarks" \
		"$s/stats" "$s/filters/f0" "$s/quotas/goals/g0"; do
		cfs_expect_mkdir EPERM "$d/extra"
		[ ! -e "$d/extra" ]
	done
}

@test "several schemes, filters and goals coexist; filters and goals keep their names" {
	local s=$CFS_CTXS/web/schemes g
	cfs_mkctx web
	cfs_mkscheme web reclaim z a m
	cfs_mkscheme web hot
	for g in free psi in; do
		cfs_expect_mkdir OK "$s/reclaim/quotas/goals/$g"
	done
	cfs_expect_mkdir OK "$s/hot/quotas/goals/in"
	cfs_expect_ls "$s" hot reclaim
	cfs_expect_ls "$s/reclaim/filters" a m z
	cfs_expect_ls "$s/hot/filters"
	cfs_expect_ls "$s/reclaim/quotas/goals" free in psi
	cfs_expect_ls "$s/hot/quotas/goals" in
	cfs_set "$s/reclaim/action" pageout
	cfs_expect_value "$s/hot/action" stat
	cfs_set "$s/reclaim/quotas/goals/in/target_value" 7
	cfs_expect_value "$s/hot/quotas/goals/in/target_value" 0
	cfs_expect_mkdir EEXIST "$s/reclaim/quotas/goals/free"
}

@test "mkdir where configfs allows none fails with EPERM" {
	local t=$CFS_CTXS/web/targets/app
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$t/regions/r0"
	cfs_expect_mkdir EPERM "$CFS/extra"
	cfs_expect_mkdir EPERM "$CFS_CTXS/web/extra"
	cfs_expect_mkdir EPERM "$t/extra"
	cfs_expect_mkdir EPERM "$t/regions/r0/extra"
	cfs_expect_ls "$CFS" contexts features
	[ ! -e "$CFS_CTXS/web/extra" ]
	[ ! -e "$t/extra" ]
	[ ! -e "$t/regions/r0/extra" ]
}

@test "rmdir of a user-made directory that is not empty fails and keeps it" {
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$CFS_CTXS/web/targets/app/regions/r0"
	run "$SYSIO" rmdir "$CFS_CTXS/web"
	[ "$output" != OK ]
	run "$SYSIO" rmdir "$CFS_CTXS/web/targets/app"
	[ "$output" != OK ]
	[ -d "$CFS_CTXS/web/targets/app/regions/r0" ]
	# Children first, then the parents: the documented order works.
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/app/regions/r0"
	cfs_expect_rmdir OK "$CFS_CTXS/web/targets/app"
	cfs_expect_rmdir OK "$CFS_CTXS/web"
	cfs_expect_ls "$CFS_CTXS"
}

@test "default groups go with their parent; a re-made context is fresh" {
	local c=$CFS_CTXS/web
	cfs_mkctx web
	cfs_mktarget web app 1
	cfs_set "$c/sample_us" 777
	cfs_set "$c/operations" fvaddr
	cfs_expect_rmdir OK "$c/targets/app"
	cfs_expect_rmdir OK "$c"
	[ ! -e "$c" ]
	[ ! -e "$c/targets" ]
	[ ! -e "$c/schemes" ]
	cfs_mkctx web
	cfs_expect_value "$c/sample_us" 5000
	cfs_expect_value "$c/operations" vaddr
	cfs_expect_ls "$c/targets"
}

@test "directory names are free: contexts, targets and regions" {
	local long name names=(a web.1 my-ctx_2 UPPER 0 "with space" café)
	long=$(printf 'n%.0s' $(seq 100))
	names+=("$long")
	for name in "${names[@]}"; do
		cfs_mkctx "$name"
		cfs_mktarget "$name" "$name"
		cfs_expect_mkdir OK "$CFS_CTXS/$name/targets/$name/regions/$name"
		[ -f "$CFS_CTXS/$name/targets/$name/regions/$name/start" ]
		cfs_expect_value "$CFS_CTXS/$name/state" off
	done
	[ "$(ls -A "$CFS_CTXS" | wc -l)" -eq "${#names[@]}" ]
	for name in "${names[@]}"; do
		cfs_expect_rmdir OK "$CFS_CTXS/$name/targets/$name/regions/$name"
		cfs_expect_rmdir OK "$CFS_CTXS/$name/targets/$name"
		cfs_expect_rmdir OK "$CFS_CTXS/$name"
	done
	cfs_expect_ls "$CFS_CTXS"
}

@test "a name that is taken cannot be made again (EEXIST)" {
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$CFS_CTXS/web/targets/app/regions/r0"
	cfs_expect_mkdir EEXIST "$CFS_CTXS/web"
	cfs_expect_mkdir EEXIST "$CFS_CTXS/web/targets/app"
	cfs_expect_mkdir EEXIST "$CFS_CTXS/web/targets/app/regions/r0"
	# Nor can a directory take the name of a file or a default group.
	cfs_expect_mkdir EEXIST "$CFS_CTXS/web/targets"
	run "$SYSIO" mkdir "$CFS_CTXS/web/sample_us"
	[ "$output" != OK ]
	[ -f "$CFS_CTXS/web/sample_us" ]
}

@test "many contexts, targets and regions coexist and go away cleanly" {
	local i j k
	for i in $(seq 12); do
		cfs_mkctx "c$i"
		for j in 1 2 3; do
			cfs_mktarget "c$i" "t$j"
			for k in 1 2 3; do
				cfs_expect_mkdir OK "$CFS_CTXS/c$i/targets/t$j/regions/r$k"
			done
		done
	done
	[ "$(ls -A "$CFS_CTXS" | wc -l)" -eq 12 ]
	[ "$(ls -d "$CFS_CTXS"/*/targets/*/regions/*/ | wc -l)" -eq $((12 * 9)) ]
	cfs_remove_all
}

@test "contexts are independent of each other" {
	cfs_mkctx a
	cfs_mkctx b
	cfs_set "$CFS_CTXS/a/sample_us" 1234
	cfs_set "$CFS_CTXS/a/operations" fvaddr
	cfs_mktarget a t1 1
	cfs_expect_value "$CFS_CTXS/b/sample_us" 5000
	cfs_expect_value "$CFS_CTXS/b/operations" vaddr
	cfs_expect_ls "$CFS_CTXS/b/targets"
	cfs_mktarget b t1
	cfs_expect_value "$CFS_CTXS/b/targets/t1/pid" -1
	cfs_expect_value "$CFS_CTXS/a/targets/t1/pid" 1
}

@test "files cannot be created or removed by hand" {
	local c=$CFS_CTXS/web
	cfs_mkctx web
	run touch "$c/newfile"
	[ "$status" -ne 0 ]
	[ ! -e "$c/newfile" ]
	run rm -f "$c/sample_us"
	[ -f "$c/sample_us" ]
	run rm -f "$CFS/features"
	[ -f "$CFS/features" ]
}
