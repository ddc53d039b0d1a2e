#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Every file of the DAMON configfs interface, one write(2) at a
# time (configfs-layout.md, "Conventions" and the tables): defaults, valid
# values, each class of invalid value with its exact errno, idempotent
# rewrites, and that a failed write changes nothing.

load lib
load configfs

setup() {
	cfs_setup
	C=$CFS_CTXS/web
	T=$C/targets/app
	R=$T/regions/r0
	cfs_mkctx web
	cfs_mktarget web app
	cfs_expect_mkdir OK "$R"
}

teardown() {
	cfs_teardown
}

# Malformed numbers: each must fail with EINVAL.  (0, negative numbers and
# the empty write are listed separately.)
MALFORMED=(abc 12abc "12 " " 12" "1 2" 0x10 0X10 0b1 1.5 1e3 + ++1 +-1 --1
	"12"$'\t' $'\t12' "1"$'\n\n' $'\n1' "1"$'\r\n' "١٢" 12k)
NEGATIVE=(-1 -5000 -99999999999999999999 -18446744073709551616)
EMPTY=($'\n')
# Beyond 2^64-1: ERANGE.
OVER=("$U64_OVER" "$U64_OVER"$'\n' "+$U64_OVER" 99999999999999999999999
	340282366920938463463374607431768211456)

# rejects WANT FILE VALUE...: each VALUE fails with WANT and FILE keeps
# reading what it read before (checked by one sysio run, to spare UML a
# process per value).
rejects() {
	local want=$1 file=$2 out
	shift 2
	out=$("$SYSIO" rejects "$want" "$file" "$@") ||
		{ echo "$file:"; echo "$out"; return 1; }
}

# rejects_any FILE VALUE: VALUE fails, with whatever errno, and FILE keeps
# its value.
rejects_any() {
	local before after
	st_read before "$1"
	cfs__call write "$1" "$2"
	[ "$CFS_GOT" != OK ] || { echo "$(printf %q "$2") to $1 worked"; return 1; }
	st_read after "$1"
	[ "$after" = "$before" ] || { echo "$1: $before became $after"; return 1; }
}

# accepts FILE VALUE READBACK: VALUE is taken and FILE then reads READBACK.
accepts() {
	cfs_expect OK "$1" "$2" || return 1
	cfs_expect_value "$1" "$3"
}

# number_syntax FILE VALID: the number syntax on FILE, with VALID a value in
# range: with and without its newline, with +, with leading zeros (decimal
# only), idempotent rewrites, and every malformed class rejected.
number_syntax() {
	local f=$1 v=$2
	accepts "$f" "$v" "$v" || return 1
	accepts "$f" "$v" "$v" || return 1		# same value again
	accepts "$f" "$v"$'\n' "$v" || return 1
	accepts "$f" "+$v" "$v" || return 1
	accepts "$f" "+$v"$'\n' "$v" || return 1
	accepts "$f" "00$v" "$v" || return 1		# base 10, never 8
	accepts "$f" "010" "10" || return 1
	accepts "$f" "$v" "$v" || return 1
	rejects EINVAL "$f" "${MALFORMED[@]}" "${NEGATIVE[@]}" "${EMPTY[@]}" ||
		return 1
	rejects ERANGE "$f" "${OVER[@]}"
}

# ------------------------------------------------------------ operations

@test "operations: defaults to vaddr, takes vaddr and fvaddr, idempotently" {
	cfs_expect_value "$C/operations" vaddr
	accepts "$C/operations" vaddr vaddr
	accepts "$C/operations" fvaddr fvaddr
	accepts "$C/operations" fvaddr fvaddr
	accepts "$C/operations" vaddr$'\n' vaddr
	accepts "$C/operations" fvaddr$'\n' fvaddr
	accepts "$C/operations" vaddr vaddr
}

@test "operations: unknown or inexact words fail with EINVAL, changing nothing" {
	cfs_set "$C/operations" fvaddr
	rejects EINVAL "$C/operations" foo VADDR Vaddr "vaddr " " vaddr" \
		vadd vaddrx fvadd "fvaddr"$'\n\n' $'\n' "vaddr"$'\r\n' \
		"vaddr"$'\t' "vaddr fvaddr" ops:vaddr 0 1 on
	cfs_expect_value "$C/operations" fvaddr
}

@test "operations: paddr is accepted exactly when features lists ops:paddr" {
	if grep -qw ops:paddr "$CFS/features"; then
		accepts "$C/operations" paddr paddr
	else
		rejects EINVAL "$C/operations" paddr paddr$'\n'
		cfs_expect_value "$C/operations" vaddr
	fi
}

@test "operations: a zero-byte write fails and changes nothing" {
	cfs_set "$C/operations" fvaddr
	run cfs_w "$C/operations" ""
	[ "$output" != OK ]
	cfs_expect_value "$C/operations" fvaddr
}

# ------------------------------------------------------------ intervals

@test "sample_us: default 5000; any of 1 .. 2^64-1 is taken" {
	cfs_expect_value "$C/sample_us" 5000
	accepts "$C/sample_us" 1 1
	accepts "$C/sample_us" "$U64_MAX" "$U64_MAX"
	accepts "$C/sample_us" "$U64_MAX"$'\n' "$U64_MAX"
	accepts "$C/sample_us" 4294967296 4294967296
	accepts "$C/sample_us" 5000 5000
}

@test "sample_us: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$C/sample_us" 2500
}

@test "sample_us: 0 fails with EINVAL" {
	cfs_set "$C/sample_us" 1234
	rejects EINVAL "$C/sample_us" 0 0$'\n' +0 00
}

@test "aggr_us: default 100000; any of 1 .. 2^64-1 is taken" {
	cfs_expect_value "$C/aggr_us" 100000
	accepts "$C/aggr_us" 1 1
	accepts "$C/aggr_us" "$U64_MAX" "$U64_MAX"
	accepts "$C/aggr_us" 100000 100000
}

@test "aggr_us: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$C/aggr_us" 20000
}

@test "aggr_us: 0 fails with EINVAL" {
	cfs_set "$C/aggr_us" 54321
	rejects EINVAL "$C/aggr_us" 0 0$'\n' +0 000
}

@test "update_us: default 1000000; any of 1 .. 2^64-1 is taken" {
	cfs_expect_value "$C/update_us" 1000000
	accepts "$C/update_us" 1 1
	accepts "$C/update_us" "$U64_MAX" "$U64_MAX"
	accepts "$C/update_us" 1000000 1000000
}

@test "update_us: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$C/update_us" 2000000
}

@test "update_us: 0 fails with EINVAL" {
	cfs_set "$C/update_us" 7654321
	rejects EINVAL "$C/update_us" 0 0$'\n' +0
}

# ------------------------------------------------------------ region bounds

@test "min_nr_regions: default 10; 3 .. 100000 taken" {
	cfs_expect_value "$C/min_nr_regions" 10
	accepts "$C/min_nr_regions" 3 3
	accepts "$C/min_nr_regions" 100000 100000
	accepts "$C/min_nr_regions" 100000$'\n' 100000
	accepts "$C/min_nr_regions" 10 10
}

@test "min_nr_regions: below 3 fails with EINVAL, above 100000 with ERANGE" {
	cfs_set "$C/min_nr_regions" 42
	rejects EINVAL "$C/min_nr_regions" 0 1 2 2$'\n' +2
	rejects ERANGE "$C/min_nr_regions" 100001 100001$'\n' 1000000 \
		4294967296 4294967299 "$U64_MAX"
}

@test "min_nr_regions: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$C/min_nr_regions" 77
}

@test "max_nr_regions: default 1000; 3 .. 100000 taken" {
	cfs_expect_value "$C/max_nr_regions" 1000
	accepts "$C/max_nr_regions" 3 3
	accepts "$C/max_nr_regions" 100000 100000
	accepts "$C/max_nr_regions" 1000 1000
}

@test "max_nr_regions: below 3 fails with EINVAL, above 100000 with ERANGE" {
	cfs_set "$C/max_nr_regions" 4242
	rejects EINVAL "$C/max_nr_regions" 0 1 2 +2$'\n'
	rejects ERANGE "$C/max_nr_regions" 100001 1000000 4294967296 \
		4294968296 "$U64_MAX"$'\n'
}

@test "max_nr_regions: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$C/max_nr_regions" 500
}

@test "relations between files are not checked at write time" {
	# Each write is checked alone; so files may be written in any order.
	accepts "$C/sample_us" 200000 200000	# > aggr_us
	accepts "$C/update_us" 1 1		# < aggr_us
	accepts "$C/min_nr_regions" 5000 5000	# > max_nr_regions
	accepts "$C/max_nr_regions" 3 3		# < min_nr_regions
	accepts "$C/aggr_us" "$U64_MAX" "$U64_MAX"
	accepts "$C/sample_us" 1 1		# aggr_us / sample_us >= 2^32
	accepts "$R/start" 8192 8192
	accepts "$R/end" 4096 4096		# end < start
	accepts "$R/end" 8192 8192		# end == start
}

# configfs itself answers a zero-byte write(2) with EFAULT before the
# attribute sees it; the contract's "empty write" is a lone newline (what
# `echo > file` writes), which EMPTY covers with EINVAL.
@test "numbers: a zero-byte write fails and changes nothing" {
	local f
	cfs_set "$C/sample_us" 1111
	for f in "$C/sample_us" "$C/aggr_us" "$C/update_us" \
		"$C/min_nr_regions" "$C/max_nr_regions" "$T/pid" "$R/start" \
		"$R/end"; do
		rejects_any "$f" ""
	done
	cfs_expect_value "$C/sample_us" 1111
}

# ------------------------------------------------------------ state

@test "state: defaults to off; off while off succeeds and changes nothing" {
	cfs_expect_value "$C/state" off
	accepts "$C/state" off off
	accepts "$C/state" off$'\n' off
	accepts "$C/state" off off
	cfs_expect_value "$C/kdamond_pid" -1
	cfs_expect_value "$C/nr_aggregations" 0
}

@test "state: unknown or inexact words fail with EINVAL, changing nothing" {
	# A complete setup, so that a misparsed "on" would start it.
	cfs_start_sleeper
	cfs_set "$T/pid" "$SLEEPER_PID"
	cfs_expect_rmdir OK "$R"
	rejects EINVAL "$C/state" ON On start stop 1 0 "on " " on" "off " \
		"on"$'\n\n' $'\n' "on"$'\r\n' onn commi Commit "commit " \
		"on off" vaddr
	cfs_expect_value "$C/state" off
	cfs_expect_value "$C/kdamond_pid" -1
}

@test "state: commit while off fails with EINVAL" {
	cfs_start_sleeper
	cfs_set "$T/pid" "$SLEEPER_PID"
	cfs_expect_rmdir OK "$R"
	rejects EINVAL "$C/state" commit commit$'\n'
	cfs_expect_value "$C/state" off
}

# ------------------------------------------------------------ pid

@test "pid: default -1; the pid of a live process is taken" {
	cfs_start_sleeper
	cfs_expect_value "$T/pid" -1
	accepts "$T/pid" "$SLEEPER_PID" "$SLEEPER_PID"
	accepts "$T/pid" "$SLEEPER_PID" "$SLEEPER_PID"	# idempotent
	accepts "$T/pid" 1$'\n' 1
	accepts "$T/pid" "$$" "$$"
	accepts "$T/pid" "+$SLEEPER_PID"$'\n' "$SLEEPER_PID"
	accepts "$T/pid" "0$SLEEPER_PID" "$SLEEPER_PID"
}

@test "pid: 0, negative and malformed values fail with EINVAL" {
	cfs_set "$T/pid" 1
	rejects EINVAL "$T/pid" 0 0$'\n' +0 "${NEGATIVE[@]}" "${MALFORMED[@]}" \
		"${EMPTY[@]}"
	cfs_expect_value "$T/pid" 1
}

@test "pid: no such process fails with ESRCH" {
	local free
	cfs_set "$T/pid" 1
	free=$(cfs_free_pid)
	rejects ESRCH "$T/pid" "$free" "$free"$'\n'
	cfs_dead_pid
	[ ! -e "/proc/$DEAD_PID" ]
	rejects ESRCH "$T/pid" "$DEAD_PID"
	cfs_expect_value "$T/pid" 1
}

@test "pid: beyond 2^64-1 fails with ERANGE, beyond pid_t fails too" {
	cfs_set "$T/pid" 1
	rejects ERANGE "$T/pid" "${OVER[@]}"
	# Not a pid_t: either out of range or no such process.
	cfs_expect_one_of "ERANGE ESRCH" "$T/pid" 4294967297
	cfs_expect_one_of "ERANGE ESRCH" "$T/pid" "$U64_MAX"
	cfs_expect_value "$T/pid" 1
}

@test "pid: resolved in the writer's pid namespace" {
	local out=$BATS_TEST_TMPDIR/ns.out
	cfs_attrs web 1000 20000 1000000 3 10
	cfs_expect_rmdir OK "$R"	# vaddr: the default three regions
	if ! unshare --pid --fork --kill-child true 2>/dev/null; then
		skip "no pid namespaces in this kernel (CONFIG_PID_NS)"
	fi
	# In a new pid namespace its first process is pid 1; writing "1" from
	# there names that process, not the machine's init.
	unshare --pid --fork --kill-child -- bash -c \
		'echo 1 > "$1" && echo written && exec sleep 600' _ "$T/pid" \
		> "$out" 2>&1 3>&- &
	ST_PIDS+=($!)
	st_wait_for 30 grep -q written "$out"
	cfs_on web
	cfs_wait_aggr web 1
	# The namespace's init exits: the target is gone, the kdamond stops,
	# which it never would if pid 1 (this machine's init) were monitored.
	pkill -KILL -P "${ST_PIDS[-1]}" -x sleep
	cfs_wait_off web 30
}

# ------------------------------------------------------------ regions

@test "start and end: default 0; any of 0 .. 2^64-1 is taken" {
	cfs_expect_value "$R/start" 0
	cfs_expect_value "$R/end" 0
	accepts "$R/start" "$U64_MAX" "$U64_MAX"
	accepts "$R/end" "$U64_MAX" "$U64_MAX"
	accepts "$R/start" 0 0
	accepts "$R/end" 0 0
	accepts "$R/start" 4097 4097		# not page-aligned: kept as written
	accepts "$R/end" 140737488355328 140737488355328
}

@test "start: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$R/start" 65536
	accepts "$R/start" 0$'\n' 0
}

@test "end: number syntax; malformed EINVAL, beyond 2^64-1 ERANGE" {
	number_syntax "$R/end" 1048576
	accepts "$R/end" +0 0
}

@test "region files of different regions and targets are independent" {
	local t2=$C/targets/other
	cfs_expect_mkdir OK "$T/regions/r1"
	cfs_mktarget web other
	cfs_expect_mkdir OK "$t2/regions/r0"
	cfs_set "$R/start" 4096
	cfs_set "$T/regions/r1/end" 8192
	cfs_set "$t2/regions/r0/start" 12288
	cfs_expect_value "$R/start" 4096
	cfs_expect_value "$R/end" 0
	cfs_expect_value "$T/regions/r1/start" 0
	cfs_expect_value "$T/regions/r1/end" 8192
	cfs_expect_value "$t2/regions/r0/start" 12288
	cfs_expect_value "$t2/regions/r0/end" 0
}

# ------------------------------------------------------------ schemes

# scheme_setup: scheme sc with filter f0 in the context; S and F name them.
scheme_setup() {
	S=$C/schemes/sc
	F=$S/filters/f0
	cfs_mkscheme web sc f0
}

@test "scheme action: default stat; the actions features lists are taken" {
	local word
	scheme_setup
	cfs_expect_value "$S/action" stat
	for word in stat willneed cold pageout hugepage nohugepage lru_prio \
		lru_deprio migrate_hot migrate_cold; do
		if grep -qw "action:$word" "$CFS/features"; then
			accepts "$S/action" "$word" "$word"
			accepts "$S/action" "$word"$'\n' "$word"
		else
			rejects EINVAL "$S/action" "$word"
		fi
	done
	# stat, willneed, cold and pageout are always there.
	accepts "$S/action" pageout pageout
	accepts "$S/action" stat stat
}

@test "scheme action: unknown or inexact words fail with EINVAL, changing nothing" {
	scheme_setup
	cfs_set "$S/action" cold
	rejects EINVAL "$S/action" foo STAT Stat "stat " " cold" "cold"$'\n\n' \
		$'\n' page_out pageout1 madv_cold action:cold 0 4
	cfs_expect_value "$S/action" cold
}

@test "scheme apply_interval_us: 0 .. 2^64-1; number syntax" {
	scheme_setup
	accepts "$S/apply_interval_us" "$U64_MAX" "$U64_MAX"
	accepts "$S/apply_interval_us" 0 0
	number_syntax "$S/apply_interval_us" 250000
}

@test "access_pattern sizes: 0 .. 2^64-1; number syntax" {
	local f
	scheme_setup
	for f in min_size_bytes max_size_bytes; do
		accepts "$S/access_pattern/$f" 0 0
		accepts "$S/access_pattern/$f" "$U64_MAX" "$U64_MAX"
		number_syntax "$S/access_pattern/$f" 8192
	done
}

@test "access_pattern nr_accesses and ages: 0 .. 2^32-1, beyond ERANGE" {
	local f
	scheme_setup
	for f in min_nr_accesses max_nr_accesses min_age max_age; do
		accepts "$S/access_pattern/$f" 0 0
		accepts "$S/access_pattern/$f" 4294967295 4294967295
		rejects ERANGE "$S/access_pattern/$f" 4294967296 4294967296$'\n' \
			"$U64_MAX"
		number_syntax "$S/access_pattern/$f" 12
	done
}

@test "quotas ms and bytes: 0 .. 2^64-1; number syntax" {
	local f
	scheme_setup
	for f in ms bytes; do
		accepts "$S/quotas/$f" "$U64_MAX" "$U64_MAX"
		accepts "$S/quotas/$f" 0 0
		number_syntax "$S/quotas/$f" 104857600
	done
}

@test "quotas reset_interval_ms: 1 .. 2^64-1; 0 fails with EINVAL" {
	scheme_setup
	accepts "$S/quotas/reset_interval_ms" 1 1
	accepts "$S/quotas/reset_interval_ms" "$U64_MAX" "$U64_MAX"
	rejects EINVAL "$S/quotas/reset_interval_ms" 0 0$'\n' +0
	number_syntax "$S/quotas/reset_interval_ms" 2000
}

@test "quotas weights: 0 .. 10000, above ERANGE" {
	local f
	scheme_setup
	for f in weight_size weight_nr_accesses weight_age; do
		accepts "$S/quotas/$f" 0 0
		accepts "$S/quotas/$f" 10000 10000
		rejects ERANGE "$S/quotas/$f" 10001 10001$'\n' 4294967296 "$U64_MAX"
		number_syntax "$S/quotas/$f" 300
	done
}

@test "watermarks metric: none or free_mem_rate, else EINVAL" {
	scheme_setup
	accepts "$S/watermarks/metric" free_mem_rate free_mem_rate
	accepts "$S/watermarks/metric" none$'\n' none
	accepts "$S/watermarks/metric" free_mem_rate$'\n' free_mem_rate
	rejects EINVAL "$S/watermarks/metric" None NONE "none " free_mem \
		free_mem_rate_ "free_mem_rate"$'\n\n' $'\n' 0 1
	cfs_expect_value "$S/watermarks/metric" free_mem_rate
}

@test "watermarks interval_us: 1 .. 2^64-1; 0 fails with EINVAL" {
	scheme_setup
	accepts "$S/watermarks/interval_us" 1 1
	accepts "$S/watermarks/interval_us" "$U64_MAX" "$U64_MAX"
	rejects EINVAL "$S/watermarks/interval_us" 0 +0$'\n'
	number_syntax "$S/watermarks/interval_us" 100000
}

@test "watermarks high, mid and low: 0 .. 1000 per mille, above ERANGE" {
	local f
	scheme_setup
	for f in high mid low; do
		accepts "$S/watermarks/$f" 1000 1000
		accepts "$S/watermarks/$f" 0 0
		rejects ERANGE "$S/watermarks/$f" 1001 1001$'\n' 4294967296 "$U64_MAX"
		number_syntax "$S/watermarks/$f" 500
	done
}

@test "filter type: anon, addr, target, and memcg, young as features lists them, else EINVAL" {
	local word
	scheme_setup
	accepts "$F/type" addr addr
	accepts "$F/type" target$'\n' target
	accepts "$F/type" anon anon
	for word in memcg young; do
		if grep -qw "filter:$word" "$CFS/features"; then
			accepts "$F/type" "$word" "$word"
		else
			rejects EINVAL "$F/type" "$word"
		fi
	done
	cfs_set "$F/type" addr
	rejects EINVAL "$F/type" ANON "anon " anonymous file "addr"$'\n\n' \
		$'\n' 0 1 MEMCG memory
	cfs_expect_value "$F/type" addr
}

@test "filter matching: Y/N, 1/0, y/n, on/off; reads Y or N; else EINVAL" {
	local v
	scheme_setup
	for v in N 0 n off N$'\n' off$'\n'; do
		accepts "$F/matching" "$v" N
	done
	for v in Y 1 y on Y$'\n' on$'\n'; do
		accepts "$F/matching" "$v" Y
	done
	rejects EINVAL "$F/matching" yes no true false 2 -1 YY "Y N" "Y " \
		"on"$'\n\n' $'\n' On OFF
	cfs_expect_value "$F/matching" Y
}

@test "filter addr_start and addr_end: 0 .. 2^64-1; number syntax" {
	local f
	scheme_setup
	for f in addr_start addr_end; do
		accepts "$F/$f" "$U64_MAX" "$U64_MAX"
		accepts "$F/$f" 0 0
		number_syntax "$F/$f" 1073741824
	done
}

@test "filter target: any name of up to 255 bytes" {
	local long
	scheme_setup
	accepts "$F/target" app app
	accepts "$F/target" app$'\n' app
	# Whether such a target exists is checked at on and commit only.
	accepts "$F/target" no-such-target no-such-target
	long=$(printf 't%.0s' $(seq 255))
	accepts "$F/target" "$long" "$long"
	rejects_any "$F/target" "${long}t"
	cfs_expect_value "$F/target" "$long"
}

@test "effective_bytes and stats files are read-only and start at 0" {
	local f
	scheme_setup
	for f in "$S/quotas/effective_bytes" "$S"/stats/*; do
		cfs_expect_value "$f" 0
		rejects_any "$f" 5
		rejects_any "$f" 0
	done
}

@test "relations of scheme files are not checked at write time" {
	scheme_setup
	accepts "$S/access_pattern/min_size_bytes" 8192 8192
	accepts "$S/access_pattern/max_size_bytes" 4096 4096
	accepts "$S/access_pattern/min_nr_accesses" 9 9
	accepts "$S/access_pattern/max_nr_accesses" 3 3
	accepts "$S/access_pattern/min_age" 100 100
	accepts "$S/access_pattern/max_age" 1 1
	accepts "$S/watermarks/metric" free_mem_rate free_mem_rate
	accepts "$S/watermarks/low" 900 900
	accepts "$S/watermarks/high" 100 100
	accepts "$F/type" addr addr
	accepts "$F/addr_start" 8192 8192
	accepts "$F/addr_end" 4096 4096
}
