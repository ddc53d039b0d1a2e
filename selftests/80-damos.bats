#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# DAMOS through configfs (configfs-layout.md, "Scheme"): the scheme tree,
# its defaults and modes, every attribute's valid and invalid writes, the
# checks at on and commit, and what schemes do to real processes: stat
# only counts, pageout pages idle memory out to swap (on zram, set up by
# this suite) without losing data, quotas bound it per reset interval,
# watermarks switch schemes off and on, and each filter type keeps out what
# it says.  The actions are madvise(2) on the target, so residency is read
# from /proc/PID/pagemap and the data is checked by the workloads.

load lib
load configfs

MIB=$((1024 * 1024))

# ------------------------------------------------------------ swap on zram

# Swap on zram for the suite: pageout needs somewhere to put anonymous and
# shmem pages (st_need_swap skips a test when there is none).
setup_file() {
	st_swap_setup_file
}

teardown_file() {
	st_swap_teardown_file
}

# ------------------------------------------------------------ per test

setup() {
	cfs_setup
	C=$CFS_CTXS/web
	S=$C/schemes/s0
}

# Schemes and filters go first: cfs_teardown knows only the rest.
teardown() {
	local d
	cfs_stop_all
	for d in "$CFS_CTXS"/*/schemes/*/filters/*/; do
		[ ! -d "$d" ] || rmdir "$d"
	done
	for d in "$CFS_CTXS"/*/schemes/*/; do
		[ ! -d "$d" ] || rmdir "$d"
	done
	cfs_teardown
}

# ------------------------------------------------------------ helpers

# monitor CTX PID...: a vaddr context (5 ms samples, 100 ms aggregations)
# with targets t0, t1, ... on the PIDs.
monitor() {
	monitor_every 5000 100000 "$@"
}

# monitor_acc CTX PID...: the same with the intervals of tests that judge
# hot against cold (ST_ACC_*, lib.bash), for schemes that must tell them
# apart even on a busy host.
monitor_acc() {
	monitor_every "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" "$@"
}

# monitor_every SAMPLE_US AGGR_US CTX PID...
monitor_every() {
	local ctx=$3 i=0 pid
	cfs_mkctx "$ctx" "$1" "$2" 1000000 10 200 || return 1
	shift 3
	for pid in "$@"; do
		cfs_mktarget "$ctx" "t$i" "$pid" || return 1
		i=$((i + 1))
	done
}

# scheme CTX NAME ACTION [FILE=VALUE...]: make a scheme with ACTION and
# write each VALUE to FILE (relative to the scheme's directory).
scheme() {
	local dir=$CFS_CTXS/$1/schemes/$2 kv
	cfs_expect_mkdir OK "$dir" || return 1
	cfs_set "$dir/action" "$3" || return 1
	shift 3
	for kv in "$@"; do
		cfs_set "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# filter CTX SCHEME NAME TYPE MATCHING [FILE=VALUE...]
filter() {
	local dir=$CFS_CTXS/$1/schemes/$2/filters/$3 kv
	cfs_expect_mkdir OK "$dir" || return 1
	cfs_set "$dir/type" "$4" && cfs_set "$dir/matching" "$5" || return 1
	shift 5
	for kv in "$@"; do
		cfs_set "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# resident_pages PID START END: how many pages of [START, END) the process
# has in memory (present in its page table, bit 63 of /proc/PID/pagemap).
resident_pages() {
	local off=$(($2 / PAGE_SIZE * 8)) len=$((($3 - $2) / PAGE_SIZE * 8))
	dd if="/proc/$1/pagemap" bs=65536 iflag=skip_bytes,count_bytes \
		skip="$off" count="$len" 2> /dev/null |
		od -An -v -t x8 -w8 |
		awk '{ c = substr($1, 1, 1) } c ~ /[89a-f]/ { n++ } END { print n + 0 }'
}

pages_of() {
	echo $((($2 - $1) / PAGE_SIZE))
}

resident_at_most() {
	[ "$(resident_pages "$1" "$2" "$3")" -le "$4" ]
}

resident_at_least() {
	[ "$(resident_pages "$1" "$2" "$3")" -ge "$4" ]
}

# poll SECONDS CMD...: run CMD every half second until it succeeds;
# fail after SECONDS.  (Slower than st_wait_for: for the heavier checks.)
poll() {
	local secs=$1 end=$((SECONDS + $1))
	shift
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "still false after ${secs}s: $*"
			return 1
		fi
		st_sleep 0.5
	done
}

# wait_paged_out PID START END [SECONDS]: wait until at most a quarter of
# [START, END) is resident.
wait_paged_out() {
	local n max
	n=$(pages_of "$2" "$3")
	max=$((n / 4))
	poll "${4:-90}" resident_at_most "$1" "$2" "$3" "$max" && return 0
	echo "pid $1 [$2, $3): $(resident_pages "$1" "$2" "$3") of $n pages" \
		"still resident after ${4:-90}s (wanted <= $max)"
	return 1
}

# expect_resident PID START END: at least 95% of [START, END) is resident
# (within a few seconds: a hot range paged out is faulted back at once).
expect_resident() {
	local n min
	n=$(pages_of "$2" "$3")
	min=$((n * 95 / 100))
	poll 10 resident_at_least "$1" "$2" "$3" "$min" && return 0
	echo "pid $1 [$2, $3): only $(resident_pages "$1" "$2" "$3") of $n" \
		"pages resident (wanted >= $min)"
	return 1
}

# stop_verified PID: SIGTERM the workload; it must find its data intact.
stop_verified() {
	local out=$ST_OUT
	st_stop "$1" TERM 120 || return 1
	if [ "$ST_STATUS" -ne 0 ]; then
		echo "workload $1 exited with $ST_STATUS:"
		cat "$out"
		return 1
	fi
}

# free_rate: free memory in per mille of all memory, as the kernel's
# free_mem_rate metric computes it.
free_rate() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
	END { printf "%d\n", f * 1000 / t }' /proc/meminfo
}

# u64_ge A B: A >= B for decimal numbers up to 2^64-1 (bash's are signed).
u64_ge() {
	[ "${#1}" -gt "${#2}" ] || { [ "${#1}" -eq "${#2}" ] && [[ ! "$1" < "$2" ]]; }
}

has_feature() {
	grep -qw -- "$1" "$CFS/features"
}

# rejects WANT FILE VALUE...: each VALUE fails with WANT, FILE unchanged.
rejects() {
	local want=$1 file=$2 before now v
	shift 2
	st_read before "$file" || return 1
	for v in "$@"; do
		cfs_expect "$want" "$file" "$v" || return 1
		st_read now "$file"
		[ "$now" = "$before" ] ||
			{ echo "$file changed to $now by $(printf %q "$v")"; return 1; }
	done
}

# rejects_any FILE VALUE...: each VALUE fails with some errno, FILE unchanged.
rejects_any() {
	local file=$1 before now v
	shift
	st_read before "$file" || return 1
	for v in "$@"; do
		cfs__call write "$file" "$v"
		[ "$CFS_GOT" != OK ] || { echo "$(printf %q "$v") to $file worked"; return 1; }
		st_read now "$file"
		[ "$now" = "$before" ] ||
			{ echo "$file changed to $now by $(printf %q "$v")"; return 1; }
	done
}

# accepts FILE VALUE [READBACK]: VALUE is taken; FILE then reads READBACK
# (default VALUE without its newline), exactly, with one newline.
accepts() {
	cfs_expect OK "$1" "$2" || return 1
	cfs_expect_value "$1" "${3:-${2%$'\n'}}"
}

# Malformed numbers (EINVAL whatever the range): all of them on one file
# of each test, the short list on the others (each write is a round trip
# to sysio serve, and UML makes them slow).
MALFORMED_ALL=(abc 12abc "12 " " 12" 0x10 1.5 1e3 -1 -12 + "1"$'\n\n' $'\n'
	$'\n1' "1 2" 12k)
MALFORMED_SHORT=(12abc " 12" 0x10 -1 + $'\n' "1"$'\n\n')
MALFORMED=("${MALFORMED_ALL[@]}")

# number_file FILE MIN MAX [BELOW_ERRNO]: FILE takes MIN and MAX (and +N,
# leading zeros, a newline), rejects the MALFORMED numbers with EINVAL,
# values beyond 2^64-1 and (when MAX < 2^64-1) MAX+1 with ERANGE, and, with
# BELOW_ERRNO, MIN-1 with that.  Each failure leaves the value; a zero-byte
# write too.  Ends with FILE holding MIN, and MALFORMED the short list.
number_file() {
	local f=$1 min=$2 max=$3 below=${4:-} v
	accepts "$f" "$max" || return 1
	accepts "$f" "+$max"$'\n' "$max" || return 1
	accepts "$f" "000$min" "$min" || return 1
	accepts "$f" "$min"$'\n' || return 1
	rejects EINVAL "$f" "${MALFORMED[@]}" || return 1
	rejects ERANGE "$f" "$U64_OVER" 99999999999999999999999 || return 1
	if [ "$max" != "$U64_MAX" ]; then
		rejects ERANGE "$f" "$((max + 1))" || return 1
	fi
	if [ -n "$below" ]; then
		rejects "$below" "$f" "$((min - 1))" || return 1
	fi
	cfs__call write "$f" ""
	st_read v "$f"
	[ "$v" = "$min" ] || { echo "$f changed to $v by a zero-byte write"; return 1; }
	MALFORMED=("${MALFORMED_SHORT[@]}")
}

# expect_off CTX: not running.
expect_off() {
	cfs_expect_value "$CFS_CTXS/$1/state" off &&
	cfs_expect_value "$CFS_CTXS/$1/kdamond_pid" -1
}

# ------------------------------------------------------------ the tree

# bats test_tags=x86
@test "swap on zram is set up for the suite (pageout needs it)" {
	st_need_swap
	grep -q '^/dev/zram0 ' /proc/swaps
	[ "$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)" -gt 0 ]
}

# bats test_tags=x86
@test "features lists schemes, the filter types and the watermark metric" {
	local w
	for w in schemes action:stat action:willneed action:cold action:pageout \
		filter:anon filter:addr filter:target wmark:free_mem_rate; do
		has_feature "$w" || { echo "features lacks $w: $(cat "$CFS/features")"; return 1; }
	done
}

@test "a scheme has its files and the five default groups, with their modes" {
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_ls "$C/schemes" s0
	cfs_expect_ls "$S" access_pattern action apply_interval_us filters quotas stats target_nid watermarks
	cfs_expect_modes "$S" action apply_interval_us target_nid
	cfs_expect_ls "$S/access_pattern" max_age max_nr_accesses max_size_bytes min_age min_nr_accesses min_size_bytes
	cfs_expect_modes "$S/access_pattern" min_size_bytes max_size_bytes \
		min_nr_accesses max_nr_accesses min_age max_age
	cfs_expect_ls "$S/quotas" bytes effective_bytes goals ms reset_interval_ms weight_age weight_nr_accesses weight_size
	[ -d "$S/quotas/goals" ]
	cfs_expect_ls "$S/quotas/goals"
	cfs_expect_modes "$S/quotas" ms bytes reset_interval_ms weight_size \
		weight_nr_accesses weight_age
	cfs_expect_modes "$S/quotas" -- effective_bytes
	cfs_expect_ls "$S/watermarks" high interval_us low metric mid
	cfs_expect_modes "$S/watermarks" metric interval_us high mid low
	[ -d "$S/filters" ]
	cfs_expect_ls "$S/filters"
	cfs_expect_ls "$S/stats" nr_applied nr_tried qt_exceeds sz_applied sz_tried
	cfs_expect_modes "$S/stats" -- nr_tried sz_tried nr_applied sz_applied qt_exceeds
}

@test "a new scheme reads the documented defaults" {
	local f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_value "$S/action" stat
	cfs_expect_value "$S/apply_interval_us" 0
	cfs_expect_value "$S/access_pattern/min_size_bytes" 0
	cfs_expect_value "$S/access_pattern/max_size_bytes" "$U64_MAX"
	cfs_expect_value "$S/access_pattern/min_nr_accesses" 0
	cfs_expect_value "$S/access_pattern/max_nr_accesses" 4294967295
	cfs_expect_value "$S/access_pattern/min_age" 0
	cfs_expect_value "$S/access_pattern/max_age" 4294967295
	cfs_expect_value "$S/quotas/ms" 0
	cfs_expect_value "$S/quotas/bytes" 0
	cfs_expect_value "$S/quotas/reset_interval_ms" 1000
	cfs_expect_value "$S/quotas/weight_size" 0
	cfs_expect_value "$S/quotas/weight_nr_accesses" 1
	cfs_expect_value "$S/quotas/weight_age" 1
	cfs_expect_value "$S/quotas/effective_bytes" 0
	cfs_expect_value "$S/watermarks/metric" none
	cfs_expect_value "$S/watermarks/interval_us" 5000000
	cfs_expect_value "$S/watermarks/high" 0
	cfs_expect_value "$S/watermarks/mid" 0
	cfs_expect_value "$S/watermarks/low" 0
	for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
		cfs_expect_value "$S/stats/$f" 0
	done
}

@test "a filter has its files, modes and defaults" {
	local f=$S/filters/f0
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_mkdir OK "$f"
	cfs_expect_ls "$f" addr_end addr_start matching memcg_path target type
	cfs_expect_modes "$f" type matching addr_start addr_end target memcg_path
	cfs_expect_value "$f/type" anon
	cfs_expect_value "$f/matching" Y
	cfs_expect_value "$f/addr_start" 0
	cfs_expect_value "$f/addr_end" 0
	cfs_expect_value "$f/target" ""
	cfs_expect_value "$f/memcg_path" ""
}

@test "several schemes and filters per context and scheme; names are free" {
	cfs_mkctx web
	cfs_expect_mkdir OK "$C/schemes/s0"
	cfs_expect_mkdir OK "$C/schemes/Cold.Pages-2"
	cfs_expect_mkdir OK "$C/schemes/s0/filters/z"
	cfs_expect_mkdir OK "$C/schemes/s0/filters/a"
	cfs_expect_ls "$C/schemes" Cold.Pages-2 s0
	cfs_expect_ls "$C/schemes/s0/filters" a z
	cfs_expect_ls "$C/schemes/Cold.Pages-2/filters"
	cfs_expect_mkdir EEXIST "$C/schemes/s0"
	# removable while off, children first
	cfs_expect_rmdir OK "$C/schemes/s0/filters/z"
	cfs_expect_rmdir OK "$C/schemes/s0/filters/a"
	cfs_expect_rmdir OK "$C/schemes/s0"
	cfs_expect_rmdir OK "$C/schemes/Cold.Pages-2"
	cfs_expect_ls "$C/schemes"
}

@test "default groups of a scheme cannot be removed, nor anything made in them but filters (EPERM)" {
	local g
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	for g in access_pattern quotas watermarks filters stats; do
		cfs_expect_rmdir EPERM "$S/$g"
		[ -d "$S/$g" ]
	done
	for g in access_pattern quotas watermarks stats; do
		cfs_expect_mkdir EPERM "$S/$g/x"
		[ ! -e "$S/$g/x" ]
	done
	cfs_expect_mkdir EPERM "$S/x"
	[ ! -e "$S/x" ]
}

# ------------------------------------------------------------ attributes

@test "action: every word features lists is taken and read back; others fail with EINVAL" {
	local a
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	for a in willneed cold pageout stat; do
		accepts "$S/action" "$a"
		accepts "$S/action" "$a"$'\n' "$a"
	done
	for a in hugepage nohugepage; do
		if has_feature "action:$a"; then
			accepts "$S/action" "$a"
		else
			rejects EINVAL "$S/action" "$a" "$a"$'\n'
		fi
	done
	cfs_set "$S/action" pageout
	rejects EINVAL "$S/action" Stat PAGEOUT "stat " " stat" "stat"$'\n\n' \
		page pageouts madv_pageout MADV_COLD 0 3 $'\n' "stat cold" \
		"cold"$'\r\n'
	rejects_any "$S/action" ""
	cfs_expect_value "$S/action" pageout
}

@test "apply_interval_us: 0 .. 2^64-1, malformed EINVAL, beyond ERANGE, nothing changes on failure" {
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	number_file "$S/apply_interval_us" 0 "$U64_MAX"
	accepts "$S/apply_interval_us" 250000
}

@test "access_pattern: sizes 0 .. 2^64-1, nr_accesses and ages 0 .. 2^32-1 (ERANGE above)" {
	local p=$S/access_pattern f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	for f in min_size_bytes max_size_bytes; do
		number_file "$p/$f" 0 "$U64_MAX"
	done
	for f in min_nr_accesses max_nr_accesses min_age max_age; do
		number_file "$p/$f" 0 4294967295
		rejects ERANGE "$p/$f" 4294967296 "$U64_MAX" 99999999999
	done
	# each write alone: min above max is taken (checked at on/commit)
	accepts "$p/min_age" 10
	accepts "$p/max_age" 5
}

@test "quotas: ms and bytes 0 .. 2^64-1, reset_interval_ms 1 .. 2^64-1 (0 EINVAL), weights 0 .. 10000" {
	local q=$S/quotas f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	number_file "$q/ms" 0 "$U64_MAX"
	number_file "$q/bytes" 0 "$U64_MAX"
	number_file "$q/reset_interval_ms" 1 "$U64_MAX" EINVAL
	rejects EINVAL "$q/reset_interval_ms" 0 0$'\n' +0 000
	for f in weight_size weight_nr_accesses weight_age; do
		number_file "$q/$f" 0 10000
		rejects ERANGE "$q/$f" 10001 4294967296 "$U64_MAX"
		accepts "$q/$f" 7
	done
}

@test "watermarks: metric none or free_mem_rate, interval_us 1 .. 2^64-1, high/mid/low 0 .. 1000" {
	local w=$S/watermarks f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	accepts "$w/metric" free_mem_rate
	accepts "$w/metric" none$'\n' none
	accepts "$w/metric" free_mem_rate$'\n' free_mem_rate
	rejects EINVAL "$w/metric" None free_mem free_mem_rate_ "free_mem_rate " \
		0 1 $'\n' "none"$'\n\n' mem
	rejects_any "$w/metric" ""
	cfs_expect_value "$w/metric" free_mem_rate
	number_file "$w/interval_us" 1 "$U64_MAX" EINVAL
	for f in high mid low; do
		number_file "$w/$f" 0 1000
		rejects ERANGE "$w/$f" 1001 4294967296 "$U64_MAX"
	done
	# each alone: low above high is taken (checked at on/commit)
	accepts "$w/low" 900
	accepts "$w/high" 100
}

@test "filter type and matching: the documented words only, matching reads Y or N" {
	local f=$S/filters/f0 v
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_mkdir OK "$f"
	for v in addr target anon; do
		accepts "$f/type" "$v"
		accepts "$f/type" "$v"$'\n' "$v"
	done
	rejects EINVAL "$f/type" Anon ANON file addr_range "anon " $'\n' 0 \
		"anon"$'\n\n' "addr target"
	rejects_any "$f/type" ""
	cfs_expect_value "$f/type" anon
	for v in N n 0 off; do
		accepts "$f/matching" "$v" N
		accepts "$f/matching" "$v"$'\n' N
		accepts "$f/matching" Y Y
	done
	for v in y 1 on Y; do
		cfs_set "$f/matching" N
		accepts "$f/matching" "$v" Y
		cfs_set "$f/matching" N
		accepts "$f/matching" "$v"$'\n' Y
	done
	rejects EINVAL "$f/matching" yes no true false 2 -1 YY Yes "Y " " Y" \
		"Y"$'\n\n' $'\n' of onn 01
	rejects_any "$f/matching" ""
	cfs_expect_value "$f/matching" Y
}

@test "filter addr_start/addr_end 0 .. 2^64-1; target takes a name of up to 255 bytes" {
	local f=$S/filters/f0 name255 name256
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	cfs_expect_mkdir OK "$f"
	number_file "$f/addr_start" 0 "$U64_MAX"
	number_file "$f/addr_end" 0 "$U64_MAX"
	# unaligned bytes are fine
	accepts "$f/addr_start" 4097
	accepts "$f/target" t0
	accepts "$f/target" "app.1"$'\n' app.1
	name255=$(printf 'n%.0s' $(seq 255))
	name256=${name255}x
	accepts "$f/target" "$name255"
	accepts "$f/target" "$name255"$'\n' "$name255"
	rejects_any "$f/target" "$name256" "$name256"$'\n'
	cfs_expect_value "$f/target" "$name255"
}

@test "stats and effective_bytes are read-only: writes fail and change nothing" {
	local f
	cfs_mkctx web
	cfs_expect_mkdir OK "$S"
	for f in stats/nr_tried stats/sz_tried stats/nr_applied stats/sz_applied \
		stats/qt_exceeds quotas/effective_bytes; do
		rejects_any "$S/$f" 5 0 "5"$'\n'
		cfs_expect_value "$S/$f" 0
	done
}

# ------------------------------------------------------------ on / commit

@test "on fails with EINVAL, starting nothing, for each invalid scheme setup" {
	local p=$S/access_pattern w=$S/watermarks f=$S/filters/f0 s
	cfs_start_sleeper
	monitor web "$SLEEPER_PID"
	cfs_expect_mkdir OK "$S"

	cfs_set "$p/min_size_bytes" 8192
	cfs_set "$p/max_size_bytes" 8191
	cfs_expect EINVAL "$C/state" on
	expect_off web
	cfs_expect_value "$p/min_size_bytes" 8192	# still staged
	cfs_set "$p/max_size_bytes" 8192

	cfs_set "$p/min_nr_accesses" 3
	cfs_set "$p/max_nr_accesses" 2
	cfs_expect EINVAL "$C/state" on
	expect_off web
	cfs_set "$p/max_nr_accesses" 3

	cfs_set "$p/min_age" 10
	cfs_set "$p/max_age" 9
	cfs_expect EINVAL "$C/state" on
	expect_off web
	cfs_set "$p/max_age" 10

	# watermarks: low <= mid <= high, but only with a metric
	cfs_set "$w/high" 300
	cfs_set "$w/mid" 400
	cfs_set "$w/low" 500
	cfs_set "$w/metric" free_mem_rate
	cfs_expect EINVAL "$C/state" on		# low > mid > high
	cfs_set "$w/low" 200
	cfs_expect EINVAL "$C/state" on		# mid > high
	cfs_set "$w/high" 400
	cfs_set "$w/low" 401
	cfs_expect EINVAL "$C/state" on		# low > mid
	expect_off web
	cfs_set "$w/low" 400
	cfs_set "$w/high" 100
	cfs_set "$w/metric" none		# no metric: not checked

	# filters
	cfs_expect_mkdir OK "$f"
	cfs_set "$f/type" target
	cfs_set "$f/target" nosuchtarget
	cfs_expect EINVAL "$C/state" on
	cfs_set "$f/target" T0			# names are exact
	cfs_expect EINVAL "$C/state" on
	cfs_w "$f/target" $'\n' > /dev/null	# empty: names no target
	cfs_expect EINVAL "$C/state" on
	expect_off web
	cfs_set "$f/target" t0
	cfs_set "$f/type" addr
	cfs_set "$f/addr_start" 1048576
	cfs_set "$f/addr_end" 1048576
	cfs_expect EINVAL "$C/state" on		# start == end
	cfs_set "$f/addr_end" 4096
	cfs_expect EINVAL "$C/state" on		# start > end
	expect_off web
	cfs_expect_value "$C/nr_aggregations" 0
	for s in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
		cfs_expect_value "$S/stats/$s" 0
	done

	# all fixed: it starts
	cfs_set "$f/addr_end" 1048577
	cfs_on web
	cfs_expect_value "$C/state" on
	cfs_wait_more_aggr web 2
}

# stat_grows CTX SCHEME: nr_tried of SCHEME grows within 3 aggregations.
stat_grows() {
	local n
	n=$(cfs_stat "$1" "$2" nr_tried)
	cfs_wait_more_aggr "$1" 3 || return 1
	cfs_stat_above "$1" "$2" nr_tried "$n" && return 0
	echo "$2: nr_tried stays $n"
	return 1
}

# stat_stays CTX SCHEME: nr_tried of SCHEME does not change over 5
# aggregations (after one to let a change settle).
stat_stays() {
	local n
	cfs_wait_more_aggr "$1" 2 || return 1
	n=$(cfs_stat "$1" "$2" nr_tried)
	cfs_wait_more_aggr "$1" 5 || return 1
	[ "$(cfs_stat "$1" "$2" nr_tried)" = "$n" ] && return 0
	echo "$2: nr_tried changed from $n to $(cfs_stat "$1" "$2" nr_tried)"
	return 1
}

@test "commit of an invalid scheme setup fails with EINVAL; the running one goes on unchanged" {
	local p=$S/access_pattern w=$S/watermarks f=$S/filters/f0 pid
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	cfs_on web
	pid=$(cfs_kdamond_pid web)
	stat_grows web s0

	# staged along with each invalid setting: a pattern nothing matches
	cfs_set "$p/min_nr_accesses" 4294967295
	cfs_set "$p/min_age" 10
	cfs_set "$p/max_age" 9
	cfs_expect EINVAL "$C/state" commit
	cfs_set "$p/max_age" 10
	cfs_set "$p/min_size_bytes" 2
	cfs_set "$p/max_size_bytes" 1
	cfs_expect EINVAL "$C/state" commit
	cfs_set "$p/max_size_bytes" 2
	cfs_set "$p/max_nr_accesses" 0
	cfs_expect EINVAL "$C/state" commit
	cfs_set "$p/max_nr_accesses" 4294967295
	cfs_set "$w/metric" free_mem_rate
	cfs_set "$w/low" 10
	cfs_expect EINVAL "$C/state" commit	# low > mid (0)
	cfs_set "$w/mid" 20
	cfs_expect EINVAL "$C/state" commit	# mid > high (0)
	cfs_set "$w/metric" none
	cfs_expect_mkdir OK "$f"
	cfs_set "$f/type" target
	cfs_set "$f/target" t9
	cfs_expect EINVAL "$C/state" commit
	cfs_set "$f/type" addr
	cfs_set "$f/addr_start" 8192
	cfs_set "$f/addr_end" 8192
	cfs_expect EINVAL "$C/state" commit

	# nothing of it was applied: still running, still matching everything
	cfs_expect_value "$C/state" on
	[ "$(cfs_kdamond_pid web)" = "$pid" ]
	stat_grows web s0
	cfs_expect_value "$p/min_nr_accesses" 4294967295	# staged

	# a valid commit applies it: nothing matches any more
	cfs_expect_rmdir OK "$f"
	cfs_commit web
	stat_stays web s0
	[ "$(cfs_kdamond_pid web)" = "$pid" ]
}

@test "scheme writes while on are staged: read back at once, applied by commit" {
	local p=$S/access_pattern
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	cfs_on web
	stat_grows web s0
	cfs_set "$p/min_size_bytes" "$U64_MAX"
	cfs_expect_value "$p/min_size_bytes" "$U64_MAX"
	stat_grows web s0			# not applied yet
	cfs_commit web
	stat_stays web s0			# nothing is that large
	cfs_set "$p/min_size_bytes" 0
	cfs_commit web
	stat_grows web s0
}

# ------------------------------------------------------------ lifetime

@test "rmdir of a scheme or filter of a running setup fails with EBUSY; after off it works" {
	cfs_start_sleeper
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	filter web s0 f0 target N target=t0	# acts on t0 only: on all
	cfs_on web
	cfs_expect_rmdir EBUSY "$S/filters/f0"
	cfs_expect_rmdir EBUSY "$S"
	[ -d "$S/filters/f0" ]
	cfs_expect_value "$S/filters/f0/type" target
	cfs_expect_value "$C/state" on
	stat_grows web s0
	cfs_off web
	cfs_expect_rmdir OK "$S/filters/f0"
	cfs_expect_rmdir OK "$S"
}

@test "a scheme made while on does nothing until commit, can go before it, is busy after it" {
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	cfs_on web
	cfs_wait_more_aggr web 2
	scheme web s0 stat
	cfs_expect_rmdir OK "$S"
	scheme web s0 stat
	cfs_wait_more_aggr web 5
	cfs_expect_value "$S/stats/nr_tried" 0
	cfs_commit web
	stat_grows web s0
	cfs_expect_rmdir EBUSY "$S"
}

@test "a filter made while on takes effect at commit and is busy after it" {
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	cfs_on web
	stat_grows web s0
	# keeps the only target out
	filter web s0 f0 target Y target=t0
	stat_grows web s0
	cfs_expect_rmdir OK "$S/filters/f0"
	filter web s0 f0 target Y target=t0
	cfs_commit web
	stat_stays web s0
	cfs_expect_rmdir EBUSY "$S/filters/f0"
}

@test "statistics survive commit and off, and restart at on" {
	local n m
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	cfs_set "$C/aggr_us" 200000
	cfs_on web
	poll 60 cfs_stat_above web s0 nr_tried 60
	n=$(cfs_stat web s0 nr_tried)
	cfs_set "$S/access_pattern/max_age" 1000000	# still matches all
	cfs_commit web
	m=$(cfs_stat web s0 nr_tried)
	[ "$m" -ge "$n" ] || { echo "nr_tried went from $n to $m at commit"; return 1; }
	stat_grows web s0
	cfs_off web
	n=$(cfs_stat web s0 nr_tried)
	m=$(cfs_stat web s0 sz_tried)
	sleep 1
	cfs_expect_value "$S/stats/nr_tried" "$n"
	cfs_expect_value "$S/stats/sz_tried" "$m"
	cfs_on web
	# at most a couple of 200 ms aggregations since on: far below n
	m=$(cfs_stat web s0 nr_tried)
	[ "$m" -lt "$n" ] || { echo "nr_tried $m after on, $n before"; return 1; }
	stat_grows web s0
}

# ------------------------------------------------------------ behaviour

# age_share FILE START END ge|le AGE: "INSIDE MATCHING", the bytes of
# [START, END) that the snapshot's regions cover, and of those the bytes in
# regions aged at least (ge) or at most (le) AGE.  (A region may reach
# beyond the range: the unmapped hole and the neighbouring mappings are
# idle too, and regions merge across them.)
age_share() {
	awk -v lo="$2" -v hi="$3" -v op="$4" -v age="$5" '
	{
		s = $1 + 0 > lo + 0 ? $1 + 0 : lo + 0
		e = $2 + 0 < hi + 0 ? $2 + 0 : hi + 0
		if (s >= e) next
		in_sz += e - s
		if (op == "ge" ? $4 + 0 >= age + 0 : $4 + 0 <= age + 0)
			n += e - s
	}
	END { printf "%.0f %.0f\n", in_sz, n }' "$1"
}

# tried_per_aggr CTX N SCHEME...: sz_tried of each SCHEME per aggregation
# over the same next N aggregations, on one line.
tried_per_aggr() {
	local ctx=$1 n0 n1 v s out= i=0
	local -a s0=()
	st_read n0 "$CFS_CTXS/$ctx/nr_aggregations" || return 1
	for s in "${@:3}"; do
		cfs_stat_to v "$ctx" "$s" sz_tried || return 1
		s0+=("$v")
	done
	cfs_wait_more_aggr "$ctx" "$2" > /dev/null || return 1
	st_read n1 "$CFS_CTXS/$ctx/nr_aggregations" || return 1
	for s in "${@:3}"; do
		cfs_stat_to v "$ctx" "$s" sz_tried || return 1
		out+=" $(((v - s0[i++]) / (n1 - n0)))"
	done
	echo "${out# }"
}

@test "stat counts exactly the matching regions, changes nothing, and lets ages grow" {
	local hot_sz cold_sz rss0 rss1 hot_per idle_per inside aged i
	local snap=$BATS_TEST_TMPDIR/snap
	st_start_hotcold 8 32
	hot_sz=$((HOT_END - HOT_START))
	cold_sz=$((COLD_END - COLD_START))
	monitor_acc web "$ST_PID"
	scheme web hot stat access_pattern/min_nr_accesses=3
	scheme web idle stat access_pattern/max_nr_accesses=0
	rss0=$(st_rss_kib "$ST_PID")
	cfs_on web
	poll 60 cfs_stat_above web hot sz_tried 0
	cfs_wait_more_aggr web 5
	read -r hot_per idle_per <<< "$(tried_per_aggr web 10 hot idle)"
	echo "sz_tried per aggregation: hot $hot_per (hot range $hot_sz)," \
		"idle $idle_per (cold range $cold_sz)"
	cfs_snapshot_to web t0 "$snap"
	# about the hot range, never the 32 MiB cold range; the idle
	# scheme at least most of the cold range
	if [ "$hot_per" -gt $((hot_sz + 4 * MIB)) ] ||
		[ "$hot_per" -lt $((hot_sz / 2)) ] ||
		[ "$idle_per" -lt $((cold_sz * 3 / 4)) ]; then
		echo "hot [$HOT_START, $HOT_END) cold [$COLD_START, $COLD_END)"
		cat "$snap"
		return 1
	fi
	# matched by the idle stat scheme at every aggregation, regions of
	# the cold range still grow older than a few aggregations (an action
	# would restart them every time; random splits restart some anyway)
	for i in $(seq 10); do
		read -r inside aged <<< "$(age_share "$snap" "$COLD_START" "$COLD_END" ge 5)"
		[ "$aged" -eq 0 ] || break
		cfs_wait_more_aggr web 3
		cfs_snapshot_to web t0 "$snap"
	done
	[ "$aged" -gt 0 ] ||
		{ echo "no region of the cold range aged 5 or more:"; cat "$snap"; return 1; }
	cfs_off web
	# stat: everything tried counts as applied; no quota, no exceeds
	[ "$(cfs_stat web hot nr_applied)" -eq "$(cfs_stat web hot nr_tried)" ]
	[ "$(cfs_stat web hot sz_applied)" -eq "$(cfs_stat web hot sz_tried)" ]
	[ "$(cfs_stat web idle sz_applied)" -eq "$(cfs_stat web idle sz_tried)" ]
	[ "$(cfs_stat web hot qt_exceeds)" -eq 0 ]
	# nothing paged out
	rss1=$(st_rss_kib "$ST_PID")
	[ "$rss1" -ge $((rss0 - 512)) ] || { echo "RSS $rss0 -> $rss1 KiB"; return 1; }
	expect_resident "$ST_PID" "$COLD_START" "$COLD_END"
	expect_resident "$ST_PID" "$HOT_START" "$HOT_END"
	stop_verified "$ST_PID"
}

# bats test_tags=x86
@test "pageout of idle regions pages the cold range out, keeps the hot range, loses no data" {
	st_need_swap
	local rss0 rss1 cold_sz
	st_start_hotcold 8 32
	cold_sz=$((COLD_END - COLD_START))
	monitor_acc web "$ST_PID"
	scheme web s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=5
	rss0=$(st_rss_kib "$ST_PID")
	cfs_on web
	wait_paged_out "$ST_PID" "$COLD_START" "$COLD_END"
	expect_resident "$ST_PID" "$HOT_START" "$HOT_END"
	rss1=$(st_rss_kib "$ST_PID")
	echo "VmRSS $rss0 -> $rss1 KiB"
	[ "$rss1" -le $((rss0 - cold_sz / 2 / 1024)) ]
	cfs_off web
	# stable once off
	[ "$(cfs_stat web s0 nr_applied)" -gt 0 ]
	[ "$(cfs_stat web s0 sz_applied)" -ge $((cold_sz / 2)) ]
	[ "$(cfs_stat web s0 nr_tried)" -ge "$(cfs_stat web s0 nr_applied)" ]
	[ "$(cfs_stat web s0 sz_tried)" -ge "$(cfs_stat web s0 sz_applied)" ]
	[ "$(cfs_stat web s0 qt_exceeds)" -eq 0 ]
	stop_verified "$ST_PID"
	grep -q '^verify: ok' "$ST_OUT"
}

# bats test_tags=x86
@test "cold acts on idle regions without paging them out, and restarts their ages" {
	local snap=$BATS_TEST_TMPDIR/snap i inside young
	st_start_hotcold 4 16
	monitor web "$ST_PID"
	scheme web s0 cold access_pattern/max_nr_accesses=0
	cfs_on web
	poll 60 cfs_stat_above web s0 sz_applied $((8 * MIB))
	expect_resident "$ST_PID" "$COLD_START" "$COLD_END"
	# acted on at every aggregation: the regions of the cold range stay
	# young (with stat they keep growing older)
	for i in 1 2 3 4 5; do
		cfs_wait_more_aggr web 2
		cfs_snapshot_to web t0 "$snap"
		read -r inside young <<< "$(age_share "$snap" "$COLD_START" "$COLD_END" le 2)"
		if [ "$inside" -lt $(((COLD_END - COLD_START) / 2)) ] ||
			[ "$young" -lt $((inside * 9 / 10)) ]; then
			echo "cold range: $young of $inside bytes in regions aged <= 2"
			cat "$snap"
			return 1
		fi
	done
	cfs_off web
	stop_verified "$ST_PID"
}

# bats test_tags=x86
@test "a bytes quota bounds what is paged out per reset interval; qt_exceeds counts the used-up intervals" {
	st_need_swap
	local t0 t1 a0 a1 q0 q1 ms bound
	st_start_hotcold 2 48
	monitor web "$ST_PID"
	scheme web s0 pageout access_pattern/max_nr_accesses=0 \
		access_pattern/min_age=3 quotas/bytes="$MIB" \
		quotas/reset_interval_ms=1000
	cfs_on web
	poll 60 cfs_stat_above web s0 sz_applied 0
	cfs_expect_value "$S/quotas/effective_bytes" "$MIB"
	t0=$(date +%s%N)
	a0=$(cfs_stat web s0 sz_applied)
	q0=$(cfs_stat web s0 qt_exceeds)
	sleep 6
	a1=$(cfs_stat web s0 sz_applied)
	q1=$(cfs_stat web s0 qt_exceeds)
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	# T ms hold at most T/1000 + 1 reset intervals; one more for the
	# statistics published an aggregation late
	bound=$(((ms / 1000 + 2) * MIB))
	echo "sz_applied +$((a1 - a0)) in ${ms} ms (bound $bound), qt_exceeds $q0 -> $q1"
	[ "$((a1 - a0))" -gt 0 ]
	[ "$((a1 - a0))" -le "$bound" ]
	[ "$q1" -ge $((q0 + 2)) ]
	# most of the 48 MiB cold range is still there
	resident_at_least "$ST_PID" "$COLD_START" "$COLD_END" \
		$(( ($(pages_of "$COLD_START" "$COLD_END") * PAGE_SIZE - a1 - 2 * MIB) / PAGE_SIZE ))
	cfs_off web
	stop_verified "$ST_PID"
}

@test "effective_bytes: 0 without a quota, bytes when ms allows more, never less for more ms" {
	local q=$S/quotas big
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	# budgets renew at every aggregation: stat goes on counting
	scheme web s0 stat quotas/reset_interval_ms=100
	cfs_on web
	stat_grows web s0
	cfs_expect_value "$q/effective_bytes" 0
	cfs_set "$q/bytes" 2097152
	cfs_set "$q/ms" 100000
	cfs_commit web
	stat_grows web s0
	cfs_expect_value "$q/effective_bytes" 2097152
	# ms alone: some positive, page-aligned budget
	cfs_set "$q/bytes" 0
	cfs_set "$q/ms" 8796093022208		# 2^43
	cfs_commit web
	stat_grows web s0
	big=$(cat "$q/effective_bytes")
	u64_ge "$big" 1
	u64_ge "$big" "$MIB"		# 2^43 ms is more than a MiB at any speed
	# twice the time may not give a smaller budget
	cfs_set "$q/ms" 17592186044416		# 2^44
	cfs_commit web
	stat_grows web s0
	u64_ge "$(cat "$q/effective_bytes")" "$big" ||
		{ echo "ms 2^43: effective_bytes $big; ms 2^44: $(cat "$q/effective_bytes")"; return 1; }
}

# bats test_tags=x86
@test "watermarks: a window that excludes the free memory rate keeps a scheme off, one that includes it turns it on" {
	local w=$S/watermarks rate above
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	rate=$(free_rate)
	echo "free memory rate: $rate per mille"
	[ "$rate" -ge 100 ]
	[ "$rate" -lt 1000 ]
	# a window above the rate: below low, off
	above=$((rate + (1000 - rate + 1) / 2))
	scheme web s0 stat watermarks/metric=free_mem_rate \
		watermarks/interval_us=100000 watermarks/high=1000 \
		watermarks/mid=1000 watermarks/low="$above"
	cfs_on web
	# ten watermark checks; while the only scheme is off, no monitoring
	st_sleep 1
	cfs_expect_value "$C/nr_aggregations" 0
	cfs_expect_value "$S/stats/nr_tried" 0
	# a window around it: on
	cfs_set "$w/low" $((rate / 2))
	cfs_set "$w/mid" "$above"
	cfs_commit web
	poll 30 cfs_stat_above web s0 nr_tried 0
	stat_grows web s0
	# a window below it: above high, off
	cfs_set "$w/high" $((rate / 2))
	cfs_set "$w/mid" $((rate / 4))
	cfs_set "$w/low" 0
	cfs_commit web
	kd_watch web 1
	[ "$KD_AGGR" -eq 0 ]
	[ "$KD_STAT" -eq 0 ]
	# and on again
	cfs_set "$w/high" 1000
	cfs_set "$w/mid" 1000
	cfs_commit web
	stat_grows web s0
}

# kd_switches PID: the context switches of PID so far (voluntary and not):
# a kdamond sleeps once per sample, and only then.
kd_switches() {
	local line n=0
	st_lines "/proc/$1/status"
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" =~ ^(non)?voluntary_ctxt_switches:[[:space:]]+([0-9]+) ]]; then
			n=$((n + BASH_REMATCH[2]))
		fi
	done
	KD_SWITCHES=$n
}

# kd_watch CTX SECONDS: watch CTX for SECONDS: KD_TICKS is the CPU time
# its kdamond used (clock ticks: utime + stime, fields 14 and 15 of
# /proc/PID/stat; UML counts it by whole ticks, so a little CPU may read
# 0), KD_WAKES its context switches, KD_AGGR the aggregations it
# completed, KD_STAT how much nr_tried of scheme s0 grew, and KD_SNAP
# "same" if the snapshot of target t0 did not change (else "changed"; it
# is in KD_SNAP_FILE).
kd_watch() {
	local pid f t0 w0 n0 n1 st0 st1 a=$BATS_TEST_TMPDIR/kd_watch.0
	KD_SNAP_FILE=$BATS_TEST_TMPDIR/kd_watch.1
	read -r pid < "$CFS_CTXS/$1/kdamond_pid"
	[ "$pid" -gt 0 ] || { echo "$1 has no kdamond"; return 1; }
	read -r n0 < "$CFS_CTXS/$1/nr_aggregations"
	{ read -r st0 < "$CFS_CTXS/$1/schemes/s0/stats/nr_tried"; } 2> /dev/null ||
		st0=0
	cfs_snapshot_to "$1" t0 "$a"
	read -r -a f < "/proc/$pid/stat"
	t0=$((f[13] + f[14]))
	kd_switches "$pid"
	w0=$KD_SWITCHES
	st_sleep "$2"
	read -r -a f < "/proc/$pid/stat"
	KD_TICKS=$((f[13] + f[14] - t0))
	kd_switches "$pid"
	KD_WAKES=$((KD_SWITCHES - w0))
	read -r n1 < "$CFS_CTXS/$1/nr_aggregations"
	{ read -r st1 < "$CFS_CTXS/$1/schemes/s0/stats/nr_tried"; } 2> /dev/null ||
		st1=0
	KD_AGGR=$((n1 - n0))
	KD_STAT=$((st1 - st0))
	cfs_snapshot_to "$1" t0 "$KD_SNAP_FILE"
	if cmp -s "$a" "$KD_SNAP_FILE"; then KD_SNAP=same; else KD_SNAP=changed; fi
	echo "$1 over ${2}s: $KD_TICKS ticks of CPU, $KD_WAKES context" \
		"switches, $KD_AGGR aggregations, nr_tried +$KD_STAT," \
		"snapshot $KD_SNAP"
}

# A context on an idle sleeper with 1 ms samples, so that monitoring costs
# CPU, and an update interval of a minute, so that an idle kdamond does not
# wake up on its own during a test.
idle_ctx() {
	cfs_mkctx "$1" 1000 20000 60000000 10 200 &&
		cfs_mktarget "$1" t0 "$2"
}

# bats test_tags=x86
@test "watermarks keeping every scheme off stop monitoring and its CPU use; a commit turning one on resumes it at once" {
	local w=$S/watermarks ticks wakes start
	[ "$(free_rate)" -gt 0 ]
	cfs_start_sleeper 8
	idle_ctx web "$SLEEPER_PID"
	# on while free memory is at most 100 %: always; checked once a minute
	scheme web s0 stat watermarks/metric=free_mem_rate \
		watermarks/interval_us=60000000 watermarks/high=1000 \
		watermarks/mid=1000 watermarks/low=0
	cfs_on web
	cfs_wait_more_aggr web 5
	kd_watch web 4
	[ "$KD_AGGR" -gt 0 ]
	[ "$KD_STAT" -gt 0 ]
	ticks=$KD_TICKS
	wakes=$KD_WAKES
	# off: the free memory rate is above high (a commit measures it anew)
	cfs_set "$w/high" 0
	cfs_set "$w/mid" 0
	cfs_commit web
	kd_watch web 4
	[ "$KD_AGGR" -eq 0 ]
	[ "$KD_STAT" -eq 0 ]
	[ "$KD_SNAP" = same ]
	# about 4000 samples, each a sleep and a wake-up, against none
	echo "over 4 s: $ticks ticks and $wakes switches monitoring," \
		"$KD_TICKS and $KD_WAKES idle"
	[ "$wakes" -ge 400 ]
	[ "$KD_WAKES" -le 5 ]
	[ "$KD_TICKS" -le 2 ]
	cfs_expect_value "$C/state" on
	# on again: the commit wakes the kdamond, which would otherwise sleep
	# until the next check a minute later; monitoring resumes
	cfs_set "$w/high" 1000
	cfs_set "$w/mid" 1000
	start=$SECONDS
	cfs_commit web
	echo "the commit took $((SECONDS - start))s"
	[ $((SECONDS - start)) -lt 30 ]
	cfs_wait_more_aggr web 3 30
	kd_watch web 1
	[ "$KD_AGGR" -gt 0 ]
	[ "$KD_STAT" -gt 0 ]
	[ "$KD_SNAP" = changed ]
}

@test "a context whose schemes are all off from on never monitors, and off stops it at once; one without schemes monitors" {
	local start
	cfs_start_sleeper 8
	idle_ctx web "$SLEEPER_PID"
	# free_mem_rate with high = mid = low = 0: off whenever any memory is free
	scheme web s0 stat watermarks/metric=free_mem_rate \
		watermarks/interval_us=60000000
	idle_ctx plain "$SLEEPER_PID"
	cfs_on web
	cfs_on plain
	kd_watch web 3
	[ "$KD_AGGR" -eq 0 ]
	[ "$KD_WAKES" -le 5 ]
	[ "$KD_TICKS" -le 2 ]
	[ ! -s "$KD_SNAP_FILE" ]
	cfs_expect_value "$C/nr_aggregations" 0
	cfs_expect_value "$S/stats/nr_tried" 0
	kd_watch plain 3
	[ "$KD_AGGR" -gt 0 ]
	[ "$KD_WAKES" -ge 300 ]
	[ -s "$KD_SNAP_FILE" ]
	# a stop request ends the sleep until the next check, a minute away
	start=$SECONDS
	cfs_off web
	echo "off took $((SECONDS - start))s"
	[ $((SECONDS - start)) -lt 30 ]
	expect_off web
	cfs_expect_value "$CFS_CTXS/plain/state" on
}

@test "an idle kdamond notices its target's exit within an update interval and stops" {
	local start
	cfs_start_sleeper 8
	# 1 s updates; the watermarks are checked once a minute and keep s0 off
	cfs_mkctx web 1000 20000 1000000 10 200
	cfs_mktarget web t0 "$SLEEPER_PID"
	scheme web s0 stat watermarks/metric=free_mem_rate \
		watermarks/interval_us=60000000
	cfs_on web
	cfs_expect_value "$C/nr_aggregations" 0
	start=$SECONDS
	st_stop "$SLEEPER_PID" TERM
	cfs_wait_off web 30
	echo "stopped $((SECONDS - start))s after the exit"
	[ $((SECONDS - start)) -lt 20 ]
	expect_off web
	cfs_expect_value "$C/nr_aggregations" 0
	cfs_expect ESRCH "$C/state" on
}

# anon_pair PATH0 PATH1: two anonfile workloads (the second range of each
# mapped from PATH0 and PATH1, "-" for shared anonymous memory), each under
# a cold-memory pageout scheme: context y with an anon filter matching Y
# on the first, context n with one matching N on the second; both on.
# Sets P0 P1, A0S A0E R0S R0E and A1S A1E R1S R1E (anonymous and second
# range of each) and OUT0 (the first workload's output).
anon_pair() {
	st_start anonfile 8 8 "$1" || return 1
	P0=$ST_PID OUT0=$ST_OUT
	read -r _ A0S A0E R0S R0E <<< "$ST_LINE"
	st_start anonfile 8 8 "$2" || return 1
	P1=$ST_PID
	read -r _ A1S A1E R1S R1E <<< "$ST_LINE"
	monitor y "$P0" && monitor n "$P1" || return 1
	scheme y s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=3
	filter y s0 f0 anon Y
	scheme n s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=3
	filter n s0 f0 anon N
	cfs_on y && cfs_on n
}

# anon_pair_stop: off, and both workloads must find their data intact.
anon_pair_stop() {
	cfs_off y && cfs_off n && stop_verified "$P1" || return 1
	ST_OUT=$OUT0
	stop_verified "$P0"
}

# bats test_tags=x86
@test "anon filter: matching Y leaves anonymous memory alone, matching N acts on nothing else" {
	st_need_swap
	anon_pair "$BATS_TEST_TMPDIR/file0" "$BATS_TEST_TMPDIR/file1"
	# Y: the file mapping goes, the anonymous memory stays
	wait_paged_out "$P0" "$R0S" "$R0E"
	expect_resident "$P0" "$A0S" "$A0E"
	# N: the anonymous memory goes, the file mapping stays
	wait_paged_out "$P1" "$A1S" "$A1E"
	expect_resident "$P1" "$R1S" "$R1E"
	anon_pair_stop
}

# bats test_tags=x86
@test "anon filter: shared anonymous memory is anonymous (MAP_SHARED|MAP_ANONYMOUS)" {
	st_need_swap
	anon_pair - -
	# N acts only on anonymous memory: the shared range goes...
	wait_paged_out "$P1" "$R1S" "$R1E"
	# ...and Y, which leaves anonymous memory alone, keeps it
	expect_resident "$P0" "$R0S" "$R0E"
	anon_pair_stop
}

@test "addr filter: matching N acts only inside the range, matching Y only outside it" {
	st_need_swap
	local mid
	st_start_hotcold 2 32
	mid=$((COLD_START + 16 * MIB))
	monitor web "$ST_PID"
	scheme web s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=3
	filter web s0 f0 addr N addr_start="$COLD_START" addr_end="$mid"
	cfs_on web
	wait_paged_out "$ST_PID" "$COLD_START" "$mid"
	expect_resident "$ST_PID" "$mid" "$COLD_END"
	# the other way round: now the upper half goes
	cfs_set "$S/filters/f0/matching" Y
	cfs_commit web
	wait_paged_out "$ST_PID" "$mid" "$COLD_END"
	cfs_off web
	stop_verified "$ST_PID"
}

@test "addr filter bounds inside pages widen the range to whole pages" {
	st_need_swap
	local mid got want
	st_start_hotcold 2 32
	mid=$((COLD_START + 16 * MIB))
	monitor web "$ST_PID"
	scheme web s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=3
	# [COLD_START + 100, mid - 100) is kept out as [COLD_START, mid)
	filter web s0 f0 addr Y addr_start=$((COLD_START + 100)) addr_end=$((mid - 100))
	cfs_on web
	wait_paged_out "$ST_PID" "$mid" "$COLD_END"
	cfs_wait_more_aggr web 10
	want=$(pages_of "$COLD_START" "$mid")
	got=$(resident_pages "$ST_PID" "$COLD_START" "$mid")
	[ "$got" -eq "$want" ] ||
		{ echo "$((want - got)) of the $want kept-out pages were paged out"; return 1; }
	cfs_off web
	stop_verified "$ST_PID"
}

@test "an addr filter may end at 2^64-1: matching N then covers the top of the address space" {
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat
	filter web s0 f0 addr N addr_start=0 addr_end="$U64_MAX"
	cfs_on web
	stat_grows web s0
	cfs_off web
	# everything that was tried lies in [0, 2^64-1): all of it
	cfs_set "$S/filters/f0/addr_start" 4096
	cfs_on web
	stat_grows web s0
}

@test "target filter: matching Y leaves the named target alone, matching N acts on it only" {
	st_need_swap
	local p0 p1 c0s c0e c1s c1e out0
	st_start_hotcold 2 16
	p0=$ST_PID out0=$ST_OUT c0s=$COLD_START c0e=$COLD_END
	st_start_hotcold 2 16
	p1=$ST_PID c1s=$COLD_START c1e=$COLD_END
	monitor web "$p0" "$p1"
	scheme web s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=3
	filter web s0 f0 target Y target=t0
	cfs_on web
	wait_paged_out "$p1" "$c1s" "$c1e"
	expect_resident "$p0" "$c0s" "$c0e"
	cfs_set "$S/filters/f0/matching" N
	cfs_commit web
	wait_paged_out "$p0" "$c0s" "$c0e"
	cfs_off web
	stop_verified "$p1"
	ST_OUT=$out0
	stop_verified "$p0"
}

@test "apply_interval_us: the scheme runs at most once per interval" {
	local n0 n1 every slow aggr
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web every stat
	scheme web slow stat apply_interval_us=1000000
	cfs_on web
	poll 60 cfs_stat_above web slow nr_tried 0
	aggr=$(cfs_nr_aggr web)
	every=$(cfs_stat web every nr_tried)
	n0=$(cfs_stat web slow nr_tried)
	cfs_wait_more_aggr web 40
	every=$(( $(cfs_stat web every nr_tried) - every ))
	n1=$(( $(cfs_stat web slow nr_tried) - n0 ))
	aggr=$(( $(cfs_nr_aggr web) - aggr ))
	echo "over $aggr aggregations: every +$every, once a second +$n1"
	[ "$n1" -gt 0 ]
	# 100 ms aggregations: about a tenth of the runs
	[ $((n1 * 4)) -le "$every" ]
}

# vma_flags_in PID START END: the VmFlags lines of PID's mappings that lie
# inside [START, END).
vma_flags_in() {
	local line s e inside=0
	st_lines "/proc/$1/smaps" || return 1
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" =~ ^([0-9a-f]+)-([0-9a-f]+)\  ]]; then
			s=$((16#${BASH_REMATCH[1]}))
			e=$((16#${BASH_REMATCH[2]}))
			inside=0
			if [ "$s" -ge "$2" ] && [ "$e" -le "$3" ]; then inside=1; fi
		elif [ "$inside" = 1 ] && [[ "$line" == VmFlags:* ]]; then
			echo "$line"
		fi
	done
}

# bats test_tags=x86
@test "hugepage and nohugepage set the huge page advice of the regions' mappings" {
	if ! has_feature action:hugepage || ! has_feature action:nohugepage; then
		skip "features lacks action:hugepage/nohugepage: no transparent huge pages in this kernel"
	fi
	st_start_hotcold 8 8
	monitor web "$ST_PID"
	scheme web s0 hugepage access_pattern/min_nr_accesses=5
	cfs_on web
	poll 60 cfs_stat_above web s0 sz_applied 0
	vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END" | grep -qw hg ||
		{ echo "no hg in the hot range:"; vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END"; return 1; }
	grep AnonHugePages "/proc/$ST_PID/smaps_rollup"
	cfs_off web
	cfs_set "$S/action" nohugepage
	cfs_on web
	poll 60 cfs_stat_above web s0 sz_applied 0
	vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END" | grep -qw nh ||
		{ echo "no nh in the hot range:"; vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END"; return 1; }
	cfs_off web
	stop_verified "$ST_PID"
}

# hot_huge_kib_at_least KIB / hot_huge_kib_at_most KIB: the AnonHugePages
# of the workload's hot range.
hot_huge_kib_at_least() {
	[ "$(st_anon_huge_kib "$ST_PID" "$HOT_START" "$HOT_END")" -ge "$1" ]
}

hot_huge_kib_at_most() {
	[ "$(st_anon_huge_kib "$ST_PID" "$HOT_START" "$HOT_END")" -le "$1" ]
}

# bats test_tags=x86
@test "hugepage makes the re-faulted hot range huge pages (AnonHugePages); nohugepage makes it base pages again" {
	st_require_thp
	# The hot range is advised MADV_NOHUGEPAGE and re-faulted every pass.
	# A pass every 50 ms: back to back, the passes' page zeroing took
	# half of the machine's one CPU under TCG, a round of checks took
	# 13-20 s and only three or four fitted in the poll.
	st_start_hotcold -R -i 50000 8 8
	hot_huge_kib_at_most 0 ||
		{ grep AnonHugePages "/proc/$ST_PID/smaps_rollup"; return 1; }
	monitor web "$ST_PID"
	# any access: pages being dropped and re-faulted are absent from
	# some samples
	scheme web s0 hugepage access_pattern/min_nr_accesses=1
	cfs_on web
	poll 60 hot_huge_kib_at_least $((8 * 1024 / 2)) || {
		vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END"
		grep '^thp_fault' /proc/vmstat
		return 1
	}
	cfs_off web
	cfs_set "$S/action" nohugepage
	cfs_on web
	poll 60 hot_huge_kib_at_most 0 ||
		{ vma_flags_in "$ST_PID" "$HOT_START" "$HOT_END"; return 1; }
	cfs_off web
	stop_verified "$ST_PID"
}

# ------------------------------------------------------------ commits

@test "commits keep the quota interval's accounting: five commits in a minute spend a bytes quota once" {
	local i a
	cfs_start_sleeper 16
	monitor web "$SLEEPER_PID"
	# stat charges the quota like any action: at most 1 MiB a minute.
	scheme web s0 stat quotas/bytes="$MIB" quotas/reset_interval_ms=60000
	cfs_on web
	poll 60 cfs_stat_above web s0 sz_applied 0
	for i in 1 2 3 4 5; do
		cfs_commit web
		cfs_wait_more_aggr web 3
	done
	a=$(cfs_stat web s0 sz_applied)
	echo "sz_applied $a after five commits (quota $MIB a minute)"
	[ "$a" -le "$MIB" ]
}

@test "commit of a shorter apply_interval_us takes effect at once, not after the old interval" {
	local n
	cfs_start_sleeper 2
	monitor web "$SLEEPER_PID"
	scheme web s0 stat apply_interval_us=60000000
	cfs_on web
	poll 30 cfs_stat_above web s0 nr_tried 0
	n=$(cfs_stat web s0 nr_tried)
	cfs_set "$S/apply_interval_us" 200000
	cfs_commit web
	# Within 10 s, where the old schedule would have waited a minute.
	poll 10 cfs_stat_above web s0 nr_tried "$n"
}

# The example of configfs-layout.md, as printed there (between the line
# starting with "Example: page out" and the end of its code block).
layout_example() {
	awk '/^Example: page out/ { on = 1; next }
	on && /^```sh/ { code = 1; next }
	code && /^```/ { exit }
	code { print }' "$BATS_TEST_DIRNAME/../configfs-layout.md"
}

# squeeze_free DIR RATE: fill a tmpfs at DIR (mounted here) with zeros
# until free memory is below RATE per mille (at most 900 MiB).
squeeze_free() {
	local i
	mount -t tmpfs -o size=900m none "$1" || return 1
	for ((i = 0; i < 30; i++)); do
		[ "$(free_rate)" -ge "$2" ] || return 0
		dd if=/dev/zero of="$1/f$i" bs=1M count=32 status=none || return 1
	done
	echo "free memory still $(free_rate) per mille with 960 MiB in tmpfs"
	return 1
}

@test "the watermark example of configfs-layout.md switches the scheme off again once free memory is above 50 %" {
	local rate code=$BATS_TEST_TMPDIR/example.sh hog=$BATS_TEST_TMPDIR/hog n
	rate=$(free_rate)
	[ "$rate" -gt 600 ] ||
		skip "free memory is $rate per mille: not above the example's band"
	layout_example > "$code"
	grep -q '^c=/sys/kernel/config/damon/contexts/web' "$code" ||
		{ echo "the example changed:"; cat "$code"; return 1; }
	# The context the example expects ("a context with a target"), with
	# aggregations of 10 ms so that its min_age of 300 is 3 s.
	cfs_start_sleeper 8
	cfs_mkctx web 1000 10000 1000000 10 200
	cfs_mktarget web t0 "$SLEEPER_PID"
	cfs_on web
	# run it literally, in a shell of its own
	bash -e "$code" > /dev/null
	# Below the band the scheme works...
	mkdir -p "$hog"
	squeeze_free "$hog" 400 || { umount "$hog"; return 1; }
	echo "squeezed: free memory $(free_rate) per mille"
	poll 60 cfs_stat_above web reclaim nr_tried 0 || { umount "$hog"; return 1; }
	# ...and once free memory is back above 50 %, it stops.
	umount "$hog"
	rate=$(free_rate)
	echo "released: free memory $rate per mille"
	[ "$rate" -gt 550 ] || skip "free memory did not come back above 55 % ($rate)"
	sleep 6		# one watermark interval (5 s) and a bit
	n=$(cfs_stat web reclaim nr_tried)
	sleep 8		# the idle regions grow old enough again in 3 s
	echo "nr_tried $n -> $(cfs_stat web reclaim nr_tried); free memory $(free_rate) per mille"
	[ "$(cfs_stat web reclaim nr_tried)" -eq "$n" ]
}
