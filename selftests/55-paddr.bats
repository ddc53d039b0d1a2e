#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Physical memory monitoring (configfs-layout.md, "Physical memory"): what
# features says of paddr; the default regions (all of RAM) and given ones;
# a workload's hot pages found in accessed regions and its cold pages in
# idle ones, by their physical addresses (/proc/PID/pagemap, through
# bin/physmap); pageout of idle memory, whoever maps it, without touching
# the hot pages or losing data; lru_prio and lru_deprio moving pages
# between the LRU lists (/proc/kpageflags); and the setups on and commit
# refuse for paddr.

load lib
load configfs

MIB=$((1024 * 1024))

# Swap on zram for the suite, as in 80-damos: pageout needs it for
# anonymous memory.
setup_file() {
	zram_swap_on 256M || :
	PADDR_NO_SWAP=$ZRAM_SWAP_WHY
	PADDR_SWAP_OURS=$ZRAM_SWAP_MADE
	export PADDR_NO_SWAP PADDR_SWAP_OURS
}

teardown_file() {
	[ -n "${PADDR_SWAP_OURS:-}" ] || return 0
	zram_swap_off
}

setup() {
	cfs_setup
	grep -qw ops:paddr "$CFS/features" || skip "no ops:paddr in features"
	C=$CFS_CTXS/pa
	T=$C/targets/t0
	SNAP=$BATS_TEST_TMPDIR/snap
	[ -x "$ST_BIN/physmap" ] || { echo "$ST_BIN/physmap is not built"; return 1; }
}

# Schemes and filters go first: cfs_teardown knows only the rest.
teardown() {
	local d
	cfs_stop_all
	for d in "$CFS_CTXS"/*/schemes/*/filters/*/ "$CFS_CTXS"/*/schemes/*/; do
		[ ! -d "$d" ] || rmdir "$d"
	done
	cfs_teardown
}

# ------------------------------------------------------------ helpers

need_swap() {
	[ -z "$PADDR_NO_SWAP" ] || skip "$PADDR_NO_SWAP"
}

# paddr_ctx CTX SAMPLE_US AGGR_US MIN MAX: a paddr context with one target
# t0 without a pid (and without regions: all of RAM), not on.
paddr_ctx() {
	cfs_mkctx "$1" "$2" "$3" "$((${3} * 10))" "$4" "$5" &&
	cfs_set "$CFS_CTXS/$1/operations" paddr &&
	cfs_mktarget "$1" t0
}

# scheme CTX NAME ACTION [FILE=VALUE...]
scheme() {
	local dir=$CFS_CTXS/$1/schemes/$2 kv
	cfs_expect_mkdir OK "$dir" || return 1
	cfs_set "$dir/action" "$3" || return 1
	shift 3
	for kv in "$@"; do
		cfs_set "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
}

stat_of() {
	cfs_read "$CFS_CTXS/$1/schemes/$2/stats/$3"
}

# physmap PID START END FILE: "PADDR ACTIVE" of each resident page.
physmap() {
	"$ST_BIN/physmap" "$1" "$2" "$3" > "$4"
}

# hot_cold_split SNAP HOTMAP COLDMAP: "HOT_ACC HOT COLD_IDLE COLD": how many
# of the pages in HOTMAP lie in regions of the snapshot with nr_accesses
# above 0, out of how many; how many of COLDMAP's lie in regions with 0
# accesses, out of how many.  Pages are all one size: counting them
# measures bytes.
hot_cold_split() {
	awk '
	FILENAME == ARGV[1] { s[n] = $1 + 0; e[n] = $2 + 0; a[n] = $3 + 0; n++; next }
	{
		p = $1 + 0; lo = 0; hi = n - 1; k = -1
		while (lo <= hi) {
			m = int((lo + hi) / 2)
			if (s[m] <= p) { k = m; lo = m + 1 } else { hi = m - 1 }
		}
		found = k >= 0 && p < e[k]
		if (FILENAME == ARGV[2]) { ht++; if (found && a[k] > 0) hg++ }
		else { ct++; if (found && a[k] == 0) cg++ }
	}
	END { printf "%d %d %d %d\n", hg, ht, cg, ct }' "$1" "$2" "$3"
}

# active_count MAP: "ACTIVE PAGES" of a physmap output.
active_count() {
	awk '{ n++; a += $2 } END { printf "%d %d\n", a, n }' "$1"
}

# lru_share_at_least PID START END ACTIVE PERCENT: at least PERCENT % of
# the resident pages of [START, END) are on an active (ACTIVE=1) or an
# inactive (ACTIVE=0) list.
lru_share_at_least() {
	local map=$BATS_TEST_TMPDIR/lru a n
	physmap "$1" "$2" "$3" "$map" || return 1
	read -r a n <<< "$(active_count "$map")"
	[ "$4" = 1 ] || a=$((n - a))
	LRU_SHARE="$a of $n"
	[ "$n" -gt 0 ] && [ $((a * 100)) -ge $((n * $5)) ]
}

# wait_lru PID START END ACTIVE PERCENT SECONDS
wait_lru() {
	local end=$((SECONDS + $6))
	until lru_share_at_least "$1" "$2" "$3" "$4" "$5"; do
		[ "$SECONDS" -lt "$end" ] || {
			echo "[$2, $3) of pid $1: only $LRU_SHARE pages with ACTIVE=$4 after $6 s"
			return 1
		}
		st_sleep 0.5
	done
}

resident_pages() {
	local map=$BATS_TEST_TMPDIR/res
	physmap "$1" "$2" "$3" "$map" || return 1
	awk 'END { print NR }' "$map"
}

# span_of MAP: "START END", the physical span of the pages of a physmap
# output (END exclusive).
span_of() {
	sort -n "$1" | awk -v page="$PAGE_SIZE" '
	NR == 1 { lo = $1 } { hi = $1 }
	END { printf "%.0f %.0f\n", lo, hi + page }'
}

# iomem_ram: the System RAM ranges of /proc/iomem as the contract says
# paddr takes them: whole pages, touching ranges joined; "START END" a
# line, decimal.
iomem_ram() {
	local line s e cs='' ce=''
	st_lines /proc/iomem
	for line in "${ST_LINES[@]}"; do
		[[ "$line" =~ ^([0-9a-f]+)-([0-9a-f]+)\ :\ System\ RAM$ ]] || continue
		s=$((16#${BASH_REMATCH[1]}))
		e=$((16#${BASH_REMATCH[2]} + 1))
		s=$(((s + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE))
		e=$((e / PAGE_SIZE * PAGE_SIZE))
		[ "$s" -lt "$e" ] || continue
		if [ -n "$cs" ] && [ "$s" -le "$ce" ]; then
			[ "$e" -le "$ce" ] || ce=$e
			continue
		fi
		[ -z "$cs" ] || echo "$cs $ce"
		cs=$s ce=$e
	done
	[ -z "$cs" ] || echo "$cs $ce"
}

# ram_bytes: MemTotal in bytes.
ram_bytes() {
	awk '/^MemTotal:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo
}

covered_bytes() {
	awk '{ s += $2 - $1 } END { printf "%.0f\n", s }' "$1"
}

# ------------------------------------------------------------ features

@test "features: ops:paddr, and per operations set the actions it takes" {
	local w
	for w in ops:paddr action:lru_prio action:lru_deprio paddr:action:stat \
		paddr:action:pageout paddr:action:lru_prio paddr:action:lru_deprio \
		vaddr:action:stat vaddr:action:willneed vaddr:action:cold \
		vaddr:action:pageout fvaddr:action:pageout; do
		grep -qw -- "$w" "$CFS/features" ||
			{ echo "features lacks $w: $(cat "$CFS/features")"; return 1; }
	done
	for w in paddr:action:willneed paddr:action:cold paddr:action:hugepage \
		paddr:action:nohugepage vaddr:action:lru_prio \
		vaddr:action:lru_deprio fvaddr:action:lru_prio; do
		! grep -qw -- "$w" "$CFS/features" ||
			{ echo "features lists $w: $(cat "$CFS/features")"; return 1; }
	done
}

# ------------------------------------------------------------ regions

@test "paddr without regions covers all of RAM; with regions exactly those; back to RAM when they go" {
	local problems covered ram nr
	paddr_ctx pa 5000 100000 10 1000
	cfs_on pa
	cfs_wait_aggr pa 1
	cfs_snapshot_to pa t0 "$SNAP"
	problems=$(cfs_snapshot_problems "$SNAP" 20)
	[ -z "$problems" ] || { echo "$problems"; return 1; }
	nr=$(awk 'END { print NR }' "$SNAP")
	[ "$nr" -ge 10 ] && [ "$nr" -le 1000 ] || { echo "$nr regions"; return 1; }
	covered=$(covered_bytes "$SNAP")
	ram=$(ram_bytes)
	echo "covered $covered bytes, MemTotal $ram"
	[ "$covered" -ge "$ram" ]
	# where the kernel lists System RAM, the regions are exactly that
	if grep -q ': System RAM$' /proc/iomem; then
		diff <(cfs_covered "$SNAP") <(iomem_ram)
	fi
	cfs_off pa

	# given regions: exactly those, rounded out to pages
	cfs_mkregion pa t0 r0 $((MIB + 100)) $((3 * MIB))
	cfs_mkregion pa t0 r1 $((8 * MIB)) $((9 * MIB - 1))
	cfs_on pa
	cfs_wait_aggr pa 1
	cfs_snapshot_to pa t0 "$SNAP"
	[ "$(cfs_covered "$SNAP")" = "$MIB $((3 * MIB))"$'\n'"$((8 * MIB)) $((9 * MIB))" ] ||
		{ cat "$SNAP"; return 1; }

	# a commit without region directories goes back to all of RAM
	rmdir "$T/regions/r0" "$T/regions/r1"
	cfs_commit pa
	cfs_wait_more_aggr pa 2
	cfs_snapshot_to pa t0 "$SNAP"
	[ "$(covered_bytes "$SNAP")" -ge "$ram" ] || { cat "$SNAP"; return 1; }
	[ "$(cfs_state pa)" = on ]
}

# ------------------------------------------------------------ accuracy

# Tolerance: region boundaries are found by random splits, and a region
# holding hot and cold pages reads as accessed, so some cold pages next to
# hot ones land in accessed regions (and a page is judged by its region,
# never alone).  At least 80 % of the hot range's pages must lie in
# regions with accesses and at least 80 % of the cold range's in regions
# without, in one snapshot within 40 aggregations.
@test "paddr: the hot range's physical pages lie in accessed regions, the cold range's in idle ones" {
	local hot=$BATS_TEST_TMPDIR/hot cold=$BATS_TEST_TMPDIR/cold i
	local hg=0 ht=0 cg=0 ct=0 best=
	st_start_hotcold 8 32
	physmap "$ST_PID" "$HOT_START" "$HOT_END" "$hot"
	physmap "$ST_PID" "$COLD_START" "$COLD_END" "$cold"
	paddr_ctx pa "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" 10 1000
	cfs_on pa
	for ((i = 0; i < 40; i++)); do
		cfs_wait_more_aggr pa 1
		cfs_snapshot_to pa t0 "$SNAP"
		read -r hg ht cg ct <<< "$(hot_cold_split "$SNAP" "$hot" "$cold")"
		best+="$hg/$ht $cg/$ct; "
		[ $((hg * 100)) -ge $((ht * 80)) ] && [ $((cg * 100)) -ge $((ct * 80)) ] &&
			break
	done
	echo "hot pages in accessed regions / cold pages in idle regions: $best"
	[ "$ht" -ge $(((HOT_END - HOT_START) / PAGE_SIZE * 95 / 100)) ]
	[ $((hg * 100)) -ge $((ht * 80)) ]
	[ $((cg * 100)) -ge $((ct * 80)) ]
	cfs_off pa
	st_stop "$ST_PID" TERM 120
	[ "$ST_STATUS" -eq 0 ]
}

# ------------------------------------------------------------ pageout

@test "paddr pageout of idle anonymous memory pages the cold range out, never the hot range, and loses no data" {
	need_swap
	local hot0=$BATS_TEST_TMPDIR/hot0 hot1=$BATS_TEST_TMPDIR/hot1
	local rss0 rss1 cold_sz cold_pages same n end
	st_start_hotcold 8 32
	cold_sz=$((COLD_END - COLD_START))
	cold_pages=$((cold_sz / PAGE_SIZE))
	physmap "$ST_PID" "$HOT_START" "$HOT_END" "$hot0"
	rss0=$(st_rss_kib "$ST_PID")
	paddr_ctx pa "$ST_ACC_SAMPLE_US" "$ST_ACC_AGGR_US" 10 1000
	scheme pa s0 pageout access_pattern/max_nr_accesses=0 access_pattern/min_age=5
	# act on anonymous memory only (matching N: all but anon is left alone)
	cfs_expect_mkdir OK "$C/schemes/s0/filters/f0"
	cfs_set "$C/schemes/s0/filters/f0/type" anon
	cfs_set "$C/schemes/s0/filters/f0/matching" N
	cfs_on pa
	# at most a quarter of the cold range left in memory, within 120 s
	end=$((SECONDS + 120))
	until [ "$(resident_pages "$ST_PID" "$COLD_START" "$COLD_END")" -le $((cold_pages / 4)) ]; do
		[ "$SECONDS" -lt "$end" ] || {
			echo "cold range: $(resident_pages "$ST_PID" "$COLD_START" "$COLD_END") of $cold_pages pages still resident"
			return 1
		}
		st_sleep 1
	done
	rss1=$(st_rss_kib "$ST_PID")
	echo "VmRSS $rss0 -> $rss1 KiB"
	[ "$rss1" -le $((rss0 - cold_sz / 2 / 1024)) ]
	cfs_off pa
	[ "$(stat_of pa s0 sz_applied)" -ge $((cold_sz / 2)) ]
	[ "$(stat_of pa s0 sz_tried)" -ge "$(stat_of pa s0 sz_applied)" ]
	# the hot pages stayed where they were: never reclaimed and faulted
	# back (that would have moved them)
	physmap "$ST_PID" "$HOT_START" "$HOT_END" "$hot1"
	n=$(awk 'END { print NR }' "$hot0")
	same=$(awk 'NR == FNR { p[$1] = 1; next } p[$1] { k++ } END { print k + 0 }' "$hot0" "$hot1")
	echo "hot pages still in their frames: $same of $n"
	[ "$n" -gt 0 ] && [ $((same * 100)) -ge $((n * 95)) ]
	st_stop "$ST_PID" TERM 120
	[ "$ST_STATUS" -eq 0 ] || { cat "$ST_OUT"; return 1; }
	grep -q '^verify: ok' "$ST_OUT"
}

# ------------------------------------------------------------ LRU lists

@test "paddr lru_prio and lru_deprio move an idle process's pages between the active and inactive lists" {
	local map=$BATS_TEST_TMPDIR/map start end span
	cfs_start_sleeper 16
	read -r _ start end <<< "$ST_LINE"
	physmap "$SLEEPER_PID" "$start" "$end" "$map"
	read -r span_start span_end <<< "$(span_of "$map")"
	paddr_ctx pa 5000 100000 10 1000
	cfs_mkregion pa t0 r0 "$span_start" "$span_end"
	scheme pa s0 lru_prio
	cfs_on pa
	wait_lru "$SLEEPER_PID" "$start" "$end" 1 90 30
	[ "$(stat_of pa s0 sz_applied)" -gt 0 ]
	cfs_set "$C/schemes/s0/action" lru_deprio
	cfs_commit pa
	wait_lru "$SLEEPER_PID" "$start" "$end" 0 90 30
	cfs_set "$C/schemes/s0/action" lru_prio
	cfs_commit pa
	wait_lru "$SLEEPER_PID" "$start" "$end" 1 90 30
	cfs_off pa
	[ "$(stat_of pa s0 nr_applied)" -gt 0 ]
}

# ------------------------------------------------------------ bad setups

# expect_refused CTX: on fails with EINVAL and the context stays off.
expect_on_refused() {
	cfs_expect EINVAL "$CFS_CTXS/$1/state" on &&
	[ "$(cfs_state "$1")" = off ] &&
	[ "$(cfs_kdamond_pid "$1")" = -1 ]
}

@test "paddr on: a pid on the target, a second target, a vaddr-only action: EINVAL, nothing runs" {
	cfs_start_sleeper
	paddr_ctx pa 5000 100000 10 1000
	# a pid on the target
	cfs_set "$T/pid" "$SLEEPER_PID"
	expect_on_refused pa
	rmdir "$T"
	cfs_mktarget pa t0
	# a second target
	cfs_mktarget pa t1
	expect_on_refused pa
	rmdir "$C/targets/t1"
	# madvise actions are vaddr's
	scheme pa s0 willneed
	expect_on_refused pa
	cfs_set "$C/schemes/s0/action" cold
	expect_on_refused pa
	# and the LRU actions are paddr's
	cfs_mkctx va
	cfs_mktarget va t0 "$SLEEPER_PID"
	scheme va s0 lru_prio
	expect_on_refused va
	cfs_set "$CFS_CTXS/va/schemes/s0/action" lru_deprio
	expect_on_refused va
	cfs_set "$CFS_CTXS/va/schemes/s0/action" pageout
	cfs_on va
	# the fixed paddr setup runs
	cfs_set "$C/schemes/s0/action" lru_prio
	cfs_on pa
	[ "$(cfs_state pa)" = on ]
}

@test "paddr commit: a pid, a second target, a vaddr-only action: EINVAL, the running setup stays" {
	local kpid n0
	cfs_start_sleeper
	paddr_ctx pa 5000 100000 10 1000
	scheme pa s0 stat
	cfs_on pa
	kpid=$(cfs_kdamond_pid pa)
	cfs_wait_aggr pa 1
	# a second target
	cfs_mktarget pa t1
	cfs_expect EINVAL "$C/state" commit
	rmdir "$C/targets/t1"
	# a vaddr-only action
	cfs_set "$C/schemes/s0/action" willneed
	cfs_expect EINVAL "$C/state" commit
	cfs_set "$C/schemes/s0/action" stat
	# a pid
	cfs_set "$T/pid" "$SLEEPER_PID"
	cfs_expect EINVAL "$C/state" commit
	# still running as it was: stat keeps counting
	[ "$(cfs_state pa)" = on ]
	[ "$(cfs_kdamond_pid pa)" = "$kpid" ]
	n0=$(stat_of pa s0 nr_tried)
	cfs_wait_more_aggr pa 2
	[ "$(stat_of pa s0 nr_tried)" -gt "$n0" ]
	cfs_off pa
}
