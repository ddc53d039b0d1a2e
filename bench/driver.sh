#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks, run inside one UML machine (bench/init.sh starts it)
# against one DAMON: BENCH_KERNEL=ours drives our configfs interface,
# BENCH_KERNEL=upstream upstream's sysfs interface, with the same
# attributes: sample 5 ms, aggregation 100 ms, update 1 s, 10..1000
# regions, one vaddr target.
#
# Writes to BENCH_OUT (over hostfs, only between measurements):
#   results.txt   one measurement per line, "KEY VALUE..." (below)
#   wl-*.txt      each workload's stdout (ground truth, progress lines)
#   trace-*.txt   damon:damon_aggregated events (accuracy phases only)
#
# Knobs (environment): BENCH_BIN (workload binaries), BENCH_SIZES (MiB,
# default "16 64 256", ":" or " " between), BENCH_WIN (seconds of
# each unmonitored window, default 5), BENCH_MON_WIN (seconds of the
# monitored window, default 10), BENCH_ACC_SECS (default 12), BENCH_JUMPS (default 6),
# BENCH_JUMP_SECS (default 3), BENCH_PO_SECS (default 10), BENCH_PHASES
# (which to run, default "sweep accuracy pageout scale"; "profile" only
# with make bench-profile's kernels), BENCH_SCALE_MIB
# (the scale target, default 512), BENCH_SCALE_NRS (region counts, default
# "1000 10000 100000"), BENCH_LAT_SECS (each mmap latency window, 5),
# BENCH_FLOOR_NRS (the floor phase's region counts, "3 10 30 100 300
# 1000"), BENCH_FLOOR_PA_NRS (its paddr region counts, "10 30 100 300").
set -u

kernel=${BENCH_KERNEL:?}
here=$(cd "$(dirname "$0")" && pwd)
out=${BENCH_OUT:?}
bin=${BENCH_BIN:?}
sizes=${BENCH_SIZES:-16:64:256}
sizes=${sizes//:/ }
win=${BENCH_WIN:-5}
acc_secs=${BENCH_ACC_SECS:-12}
jumps=${BENCH_JUMPS:-6}
jump_secs=${BENCH_JUMP_SECS:-3}
po_secs=${BENCH_PO_SECS:-10}
phases=" ${BENCH_PHASES:-sweep accuracy pageout scale paddr intervals reclaim} "
phases=${phases//:/ }
scale_mib=${BENCH_SCALE_MIB:-512}
scale_nrs=${BENCH_SCALE_NRS:-1000 10000 100000}
scale_nrs=${scale_nrs//:/ }
lat_secs=${BENCH_LAT_SECS:-5}
floor_nrs=${BENCH_FLOOR_NRS:-3 10 30 100 300 1000}
floor_nrs=${floor_nrs//:/ }
floor_pa_nrs=${BENCH_FLOOR_PA_NRS:-10 30 100 300}
floor_pa_nrs=${floor_pa_nrs//:/ }
scratch=/dev/shm/bench
# Under QEMU (TCG) the workloads need an address-space switch every 0.5 ms
# to set Accessed bits at all (see bench_switcher() in workloads/common.h).
if [ "${MACHINE_PLATFORM:-}" = qemu ]; then
	export BENCH_SWITCH_US=${BENCH_SWITCH_US:-500}
fi
mkdir -p "$scratch"

log() { echo "driver: $(date -u +%T) $*"; }
want() { [[ $phases == *" $1 "* ]]; }
res() { echo "$*" >> "$scratch/results.txt"; }
die() { log "FATAL: $*"; save; exit 1; }
save() { cp "$scratch"/*.txt "$out"/ 2>/dev/null; }

# ------------------------------------------------------------ the two DAMONs

cfs=/sys/kernel/config/damon/contexts/bench
sfs=/sys/kernel/mm/damon/admin/kdamonds
KPID=

w() {	# FILE VALUE: write, loudly on failure
	echo "$2" > "$1" || die "cannot write '$2' to $1"
}

# up_ctx OPS MIN MAX: upstream's kdamond 0 with context 0 (made if
# missing) on OPS, 5 ms / 100 ms / 1 s, MIN..MAX regions, and target 0.
up_ctx() {
	local c=$sfs/0/contexts/0
	[ "$(cat "$sfs/nr_kdamonds")" = 1 ] || w "$sfs/nr_kdamonds" 1
	[ -d "$c" ] || w "$sfs/0/contexts/nr_contexts" 1
	w "$c/operations" "$1"
	w "$c/monitoring_attrs/intervals/sample_us" 5000
	w "$c/monitoring_attrs/intervals/aggr_us" 100000
	w "$c/monitoring_attrs/intervals/update_us" 1000000
	w "$c/monitoring_attrs/nr_regions/max" "$3"
	w "$c/monitoring_attrs/nr_regions/min" "$2"
	[ -d "$c/targets/0" ] || w "$c/targets/nr_targets" 1
}

# mon_start PID [pageout]: monitor PID (optionally with the pageout scheme:
# not accessed at all for at least 20 aggregations = 2 s); sets KPID.
# PID "-" monitors physical memory (paddr) over PADDR_RANGE ("START END",
# bytes, END exclusive) instead, and the pageout scheme then skips young
# folios (a filter on ours; upstream's paddr pageout does it by itself).
# With TUNE_BP set (ours only), the intervals tune themselves toward that
# many basis points of observed accesses, 5 ms .. 10 s, every 3
# aggregations (stat.conf's goal).  MON_MIN and MON_MAX bound the number
# of regions (10 and 1000 unless set).
PADDR_RANGE='' TUNE_BP='' MON_MIN=10 MON_MAX=1000
mon_start() {
	local pid=$1 scheme=${2:-} s ops=vaddr
	[ "$pid" = - ] && ops=paddr
	if [ "$kernel" = ours ]; then
		mkdir -p "$cfs/targets/t" || die "mkdir $cfs"
		w "$cfs/operations" $ops
		w "$cfs/sample_us" 5000
		w "$cfs/aggr_us" 100000
		w "$cfs/update_us" 1000000
		w "$cfs/min_nr_regions" "$MON_MIN"
		w "$cfs/max_nr_regions" "$MON_MAX"
		if [ $ops = paddr ]; then
			mkdir -p "$cfs/targets/t/regions/ram" || die "mkdir region"
			set -- $PADDR_RANGE
			w "$cfs/targets/t/regions/ram/start" "$1"
			w "$cfs/targets/t/regions/ram/end" "$2"
		else
			w "$cfs/targets/t/pid" "$pid"
		fi
		if [ -n "$TUNE_BP" ]; then
			w "$cfs/intervals_goal/access_bp" "$TUNE_BP"
			w "$cfs/intervals_goal/aggrs" 3
			w "$cfs/intervals_goal/min_sample_us" 5000
			w "$cfs/intervals_goal/max_sample_us" 10000000
		fi
		if [ -n "$scheme" ]; then
			s=$cfs/schemes/po
			mkdir -p "$s" || die "mkdir $s"
			w "$s/action" pageout
			w "$s/access_pattern/min_size_bytes" 0
			w "$s/access_pattern/max_size_bytes" 18446744073709551615
			w "$s/access_pattern/min_nr_accesses" 0
			w "$s/access_pattern/max_nr_accesses" 0
			w "$s/access_pattern/min_age" 20
			w "$s/access_pattern/max_age" 4294967295
			if [ $ops = paddr ]; then
				mkdir -p "$s/filters/young" || die "mkdir filter"
				w "$s/filters/young/type" young
				w "$s/filters/young/matching" Y
			fi
		fi
		w "$cfs/state" on
		KPID=$(cat "$cfs/kdamond_pid")
	else
		[ -z "$TUNE_BP" ] || die "upstream 6.12 has no intervals tuning"
		local c=$sfs/0/contexts/0
		up_ctx $ops "$MON_MIN" "$MON_MAX"
		if [ $ops = paddr ]; then
			set -- $PADDR_RANGE
			w "$c/targets/0/regions/nr_regions" 1
			w "$c/targets/0/regions/0/start" "$1"
			w "$c/targets/0/regions/0/end" "$2"
		else
			w "$c/targets/0/regions/nr_regions" 0
			w "$c/targets/0/pid_target" "$pid"
		fi
		if [ -n "$scheme" ]; then
			w "$c/schemes/nr_schemes" 1
			s=$c/schemes/0
			w "$s/action" pageout
			w "$s/access_pattern/sz/min" 0
			w "$s/access_pattern/sz/max" 18446744073709551615
			w "$s/access_pattern/nr_accesses/min" 0
			w "$s/access_pattern/nr_accesses/max" 0
			w "$s/access_pattern/age/min" 20
			w "$s/access_pattern/age/max" 4294967295
		else
			w "$c/schemes/nr_schemes" 0
		fi
		w "$sfs/0/state" on
		KPID=$(cat "$sfs/0/pid")
	fi
	[ "${KPID:-0}" -gt 0 ] 2>/dev/null || die "no kdamond pid"
}

# Bytes the scheme applied its action to (read before mon_stop).
scheme_applied() {
	if [ "$kernel" = ours ]; then
		cat "$cfs/schemes/po/stats/sz_applied"
	else
		w "$sfs/0/state" update_schemes_stats
		cat "$sfs/0/contexts/0/schemes/0/stats/sz_applied"
	fi
}

mon_stop() {
	if [ "$kernel" = ours ]; then
		w "$cfs/state" off
		rmdir "$cfs/schemes/po/filters/young" "$cfs/schemes/po" \
			"$cfs/targets/t/regions/ram" 2>/dev/null
		rmdir "$cfs/targets/t" "$cfs" || die "rmdir $cfs"
	else
		w "$sfs/0/state" off
	fi
	KPID=
}

# The kdamond's CPU time so far, in units of cpu_unit per second: its exact
# run time in ns from /proc/PID/schedstat where the kernel has it
# (CONFIG_SCHED_INFO) and its sched_clock is fine-grained, else utime +
# stime from /proc/PID/stat in clock ticks.  UML's sched_clock counts
# jiffies, so there schedstat would be no finer than the ticks.
if [ -r /proc/self/schedstat ] && [ "${MACHINE_PLATFORM:-}" != uml ]; then
	cpu_unit=1000000000
	cputime() {	# PID
		local run
		read -r run _ < "/proc/$1/schedstat" || die "task $1 is gone"
		echo "$run"
	}
else
	cpu_unit=$(getconf CLK_TCK)
	cputime() {	# PID
		local stat
		stat=$(cat "/proc/$1/stat") || die "task $1 is gone"
		stat=${stat##*) }
		local -a f
		read -r -a f <<< "$stat"	# f[0] is field 3, state
		echo $(( f[11] + f[12] ))
	}
fi
# A CPU window: cpu_from [PID] opens it on PID (default the kdamond; none
# when KPID is empty, as in reclaim's run without DAMON: 0 then), cpu_to
# closes it and prints "USED UNIT T0 T1", the tail of every result line
# that gives a CPU share (analyze.sh: USED / UNIT / (T1 - T0)).
cpu_from() {
	cpu_pid=${1-$KPID}
	cpu_t0=$(cut -d' ' -f1 /proc/uptime)
	cpu_c0=0
	[ -z "$cpu_pid" ] || cpu_c0=$(cputime "$cpu_pid")
}
cpu_to() {
	local t1 c1=0
	t1=$(cut -d' ' -f1 /proc/uptime)
	[ -z "$cpu_pid" ] || c1=$(cputime "$cpu_pid")
	echo "$((c1 - cpu_c0)) $cpu_unit $cpu_t0 $t1"
}
# The monitored window of the size sweep: 10 s, or 30 s where the CPU time
# comes in 10 ms ticks (a kdamond at 1 % collects ~10 ticks in 10 s).
if [ "$cpu_unit" = 1000000000 ]; then
	mon_win=${BENCH_MON_WIN:-10}
else
	mon_win=${BENCH_MON_WIN:-30}
fi

# ------------------------------------------------------------ tracing

tr=/sys/kernel/tracing
TRACE_EVENTS=
trace_on() {	# EVENT...: trace these damon:EVENT events
	local e
	TRACE_EVENTS="$*"
	w "$tr/tracing_on" 0
	w "$tr/trace_clock" mono
	w "$tr/buffer_size_kb" 16384
	: > "$tr/trace"
	for e in $TRACE_EVENTS; do
		[ -d "$tr/events/damon/$e" ] || die "no damon:$e tracepoint"
		w "$tr/events/damon/$e/enable" 1
	done
	w "$tr/tracing_on" 1
}

trace_off() {	# NAME: save the events to trace-NAME.txt
	local e
	w "$tr/tracing_on" 0
	for e in $TRACE_EVENTS; do
		w "$tr/events/damon/$e/enable" 0
	done
	grep -v '^#' "$tr/trace" > "$scratch/trace-$1.txt"
	res "trace_overrun $1 $(awk '/^overrun:/ { print $2 }' \
		"$tr/per_cpu/cpu0/stats")"
	: > "$tr/trace"
}

# ------------------------------------------------------------ workloads

WPID='' WOUT=''
wl_start() {	# NAME CMD...: start a workload, wait until it is ready
	local name=$1 i
	shift
	WOUT=$scratch/wl-$name.txt
	: > "$WOUT"; : > "$WOUT.marks"
	# No address-space randomization: both kernels see the same layout.
	# With it, x86_64 starts the heap up to 1 GiB after the program, a
	# gap inside the monitored range whose random size changes the
	# largest region merging may make (the total / min_nr_regions).
	setarch "$(uname -m)" -R "$@" >> "$WOUT" &
	WPID=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q '^ready' "$WOUT" && return 0
		kill -0 "$WPID" 2>/dev/null || die "workload $name died"
		sleep 0.1
	done
	die "workload $name not ready after 120 s"
}

# mark LABEL: have the workload print a progress line, tag it LABEL.
mark() {
	local n i
	n=$(grep -c '^progress' "$WOUT")
	kill -USR1 "$WPID" || die "workload gone"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c '^progress' "$WOUT")" -gt "$n" ] && break
		sleep 0.02
	done
	echo "mark $1" >> "$WOUT.marks"
	grep '^progress' "$WOUT" | tail -n 1 >> "$WOUT.marks"
}

wl_stop() {
	kill -TERM "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	cat "$WOUT.marks" >> "$WOUT"
	rm -f "$WOUT.marks"
	WPID=
}

rss_kib() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"; }
meminfo_kib() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# "some" memory stall time so far, us (/proc/pressure/memory, CONFIG_PSI)
psi_some_us() {
	sed -n 's/^some .*total=\([0-9]*\).*/\1/p' /proc/pressure/memory 2>/dev/null ||
		echo 0
}

# swap_on SIZE: an empty zram swap device of SIZE; swap_off: gone again.
swap_on() {
	swap_off
	w /sys/block/zram0/disksize "$1"
	mkswap /dev/zram0 > /dev/null || die "mkswap"
	swapon /dev/zram0 || die "swapon"
}
swap_off() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 > /sys/block/zram0/reset
}

# ------------------------------------------------------------ benchmarks

log "kernel $kernel ($(uname -r)), CPU time unit 1/${cpu_unit} s, sizes $sizes, windows ${win}s/${mon_win}s"
res "kernel $kernel"

if want sweep; then
	# Size sweep (workload 3): overhead and slowdown.  Windows: unmonitored,
	# monitored (after 2 s to settle), unmonitored again.
	for mib in $sizes; do
		log "sweep $mib MiB"
		wl_start "sweep$mib" "$bin/hwc" $((mib / 16)) $((mib * 3 / 16)) \
			$((mib * 12 / 16))
		sleep 1
		mark base1_start; sleep "$win"; mark base1_end
		# The kdamond's CPU time is counted from its start (settling
		# included): where it comes in 10 ms ticks, the longer the better.
		mon_start "$WPID"
		cpu_from
		sleep 2
		mark mon_start; sleep "$mon_win"; mark mon_end
		cpu=$(cpu_to)
		mon_stop
		sleep 1
		mark base2_start; sleep "$win"; mark base2_end
		wl_stop
		res "kdamond $mib $cpu"
		save
	done
fi

# acc_run NAME SECONDS CMD...: the workload CMD monitored for SECONDS with
# the damon_aggregated tracepoint on (trace-NAME.txt, wl-NAME.txt), and
# the kdamond's CPU time over it.
acc_run() {
	local name=$1 secs=$2 cpu
	shift 2
	log "accuracy: $name${TUNE_BP:+, intervals tuned to $TUNE_BP bp}"
	wl_start "$name" "$@"
	sleep 1
	trace_on damon_aggregated
	mon_start "$WPID"
	cpu_from
	sleep "$secs"
	cpu=$(cpu_to)
	# where the tuning took the intervals (the live values)
	[ -n "$TUNE_BP" ] &&
		res "tuned $name $(cat "$cfs/sample_us") $(cat "$cfs/aggr_us")"
	mon_stop
	trace_off "$name"
	wl_stop
	res "acc_kdamond $name $cpu"
	save
}

if want accuracy; then
	# Workload 2, accuracy: hot/warm/cold, 4 + 12 + 48 MiB.
	acc_run hwc "$acc_secs" "$bin/hwc" 4 12 48
	# Workload 1, accuracy and detection latency: a 4 MiB window in 64 MiB.
	acc_run moving $((jumps * jump_secs + 1)) "$bin/moving" -s "$jump_secs" 64 4
fi

# Intervals auto-tuning: the same two runs with ours tuning its intervals
# toward 4 % of the observable accesses (stat.conf's goal).  Upstream 6.12
# has no tuning: its runs here are the fixed 5 ms / 100 ms ones again.
if want intervals; then
	[ "$kernel" = ours ] && TUNE_BP=400
	acc_run int_hwc "$acc_secs" "$bin/hwc" 4 12 48
	acc_run int_moving $((jumps * jump_secs + 1)) "$bin/moving" -s "$jump_secs" 64 4
	TUNE_BP=
fi

if want pageout; then
	# DAMOS: pageout of cold memory on workload 2, with zram swap.
	log "pageout"
	if [ -e /sys/block/zram0/disksize ]; then
		swap_on 512M
		wl_start pageout "$bin/hwc" 4 12 48
		sleep 1
		mark base_start; sleep "$win"; mark base_end
		r0=$(rss_kib "$WPID")
		# Which memory the scheme acts on: damos_before_apply, one event
		# per region it is about to page out; and the regions it chose from.
		trace_on damos_before_apply damon_aggregated
		mon_start "$WPID" pageout
		sleep 4
		mark po_start; sleep "$po_secs"; mark po_end
		r1=$(rss_kib "$WPID")
		applied=$(scheme_applied)
		cat "/proc/$WPID/maps" > "$scratch/maps-pageout.txt"
		mon_stop
		trace_off pageout
		wl_stop
		res "pageout $r0 $r1 $applied"
		swap_off
	else
		log "no zram: pageout skipped"
	fi
fi

# Scale: "on" and "commit" with N initial regions, the longest wait for
# the target's mmap lock while N regions are monitored (maplat: one
# mmap()+munmap() pair at a time for BENCH_LAT_SECS), and the kdamond's CPU
# time at N regions.  The target is BENCH_SCALE_MIB MiB, mapped but not
# populated; min_nr_regions = max_nr_regions = N keeps N regions.  Also
# timed: making the N region directories and writing their bounds
# (bench/workloads/mkregions.c).
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

maplat() {	# LABEL: one maplat window, recorded under LABEL
	local label=$1 n i
	n=$(grep -c '^maplat' "$WOUT")
	kill -USR1 "$WPID" || die "maplat gone"
	for ((i = 0; i < lat_secs * 10 + 600; i++)); do
		[ "$(grep -c '^maplat' "$WOUT")" -gt "$n" ] && break
		sleep 0.1
	done
	set -- $(grep '^maplat' "$WOUT" | tail -n 1)
	res "scale_maplat $label $2 $3 $4"
}

scale_setup() {	# N PID START END: a context of N regions, not on
	local n=$1 pid=$2 c=$sfs/0/contexts/0
	if [ "$kernel" = ours ]; then
		mkdir -p "$cfs/targets/t" || die "mkdir $cfs"
		w "$cfs/sample_us" 5000
		w "$cfs/aggr_us" 100000
		w "$cfs/update_us" 1000000
		w "$cfs/max_nr_regions" "$n"
		w "$cfs/min_nr_regions" "$n"
		w "$cfs/targets/t/pid" "$pid"
		"$bin/mkregions" ours "$cfs/targets/t/regions" "$n" "$3" "$4" ||
			die "mkregions $n"
		return
	fi
	up_ctx vaddr "$n" "$n"
	w "$c/targets/0/pid_target" "$pid"
	w "$c/schemes/nr_schemes" 0
	"$bin/mkregions" upstream "$c/targets/0/regions" "$n" "$3" "$4" ||
		die "mkregions $n"
}

scale_state() {	# WORD: write it to the state file
	if [ "$kernel" = ours ]; then
		w "$cfs/state" "$1"
	else
		w "$sfs/0/state" "$1"
	fi
}

scale_teardown() {
	scale_state off
	if [ "$kernel" = ours ]; then
		"$bin/mkregions" ours "$cfs/targets/t/regions" 0 || die "rm regions"
		rmdir "$cfs/targets/t" "$cfs" || die "rmdir $cfs"
	else
		"$bin/mkregions" upstream "$sfs/0/contexts/0/targets/0/regions" 0
	fi
}

if want scale; then
	log "scale: $scale_mib MiB, $scale_nrs regions"
	wl_start scale "$bin/maplat" "$scale_mib" "$lat_secs"
	read -r _ sstart send < <(grep '^ready' "$WOUT")
	maplat 0
	for n in $scale_nrs; do
		log "scale: $n regions"
		t0=$(now_ms)
		scale_setup "$n" "$WPID" "$sstart" "$send"
		t1=$(now_ms)
		res "scale_setup $n $((t1 - t0))"
		t0=$(now_ms); scale_state on; t1=$(now_ms)
		res "scale_on $n $((t1 - t0))"
		if [ "$kernel" = ours ]; then
			KPID=$(cat "$cfs/kdamond_pid")
		else
			KPID=$(cat "$sfs/0/pid")
		fi
		sleep 2
		maplat "$n"
		cpu_from
		sleep "$mon_win"
		res "scale_kdamond $n $(cpu_to)"
		t0=$(now_ms); scale_state commit; t1=$(now_ms)
		res "scale_commit $n $((t1 - t0))"
		scale_teardown
		KPID=
		save
	done
	wl_stop
	save
fi

# ------------------------------------------------------------ physical memory

# The largest "System RAM" range of /proc/iomem, "START END" (END
# exclusive): DAMON_RECLAIM's default monitoring region, given to both
# DAMONs explicitly.  Empty where there is none (UML).
ram_range() {
	local span best=0 bs=0 be=0 s e
	while read -r span _; do
		s=$((16#${span%-*})); e=$((16#${span#*-} + 1))
		((e - s > best)) && { best=$((e - s)); bs=$s; be=$e; }
	done < <(grep -E '^[0-9a-f]+-[0-9a-f]+ : System RAM$' /proc/iomem)
	((best)) && echo "$bs $be"
}

# phys_truth NAME START END: the physical ranges ("prange S E", bytes,
# merged) of the workload's pages in [START, END), to truth-NAME.txt.
phys_truth() {
	"$bin/physmap" "$WPID" "$2" "$3" | sort -n | awk -v p=4096 '
	{ if (n && $1 == e) { e += p; next }
	  if (n) print "prange", s, e
	  s = $1; e = $1 + p; n++ }
	END { if (n) print "prange", s, e }' > "$scratch/truth-$1.txt"
}

# resident_in FILE PID START END: how many of the workload's pages in
# [START, END) are still at the physical addresses FILE lists.
resident_in() {
	"$bin/physmap" "$2" "$3" "$4" | awk '
	FNR == NR { s[++n] = $2; e[n] = $3; next }
	{ for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 < e[i]) { c++; break } }
	END { print c + 0 }' "$1" -
}

# Physical memory (paddr) over the largest System RAM range: accuracy of
# the hot set (the hot range's physical pages from pagemap against the
# regions the snapshot calls hot), the kdamond's CPU time, and a pageout
# run (regions idle for 2 s, young folios skipped) on the same workload.
if want paddr; then
	PADDR_RANGE=$(ram_range)
	if [ -z "$PADDR_RANGE" ]; then
		log "paddr: no System RAM in /proc/iomem: skipped"
	else
		log "paddr: $PADDR_RANGE"
		wl_start paddr "$bin/hwc" 4 12 48
		read -r _ hs he < <(grep '^range hot' "$WOUT" | cut -d' ' -f2-)
		sleep 1
		phys_truth paddr "$hs" "$he"
		trace_on damon_aggregated
		mon_start -
		cpu_from
		sleep "$acc_secs"
		cpu=$(cpu_to)
		mon_stop
		trace_off paddr
		res "paddr_kdamond $cpu"
		res "paddr_truth_moved $(( $(awk '{ n += ($3 - $2) / 4096 } END { print n }' \
			"$scratch/truth-paddr.txt") - $(resident_in "$scratch/truth-paddr.txt" \
			"$WPID" "$hs" "$he") ))"
		wl_stop
		save

		if [ -e /sys/block/zram0/disksize ]; then
			swap_on 512M
			wl_start ppageout "$bin/hwc" 4 12 48
			read -r _ hs he < <(grep '^range hot' "$WOUT" | cut -d' ' -f2-)
			sleep 1
			phys_truth ppageout "$hs" "$he"
			mark base_start; sleep "$win"; mark base_end
			r0=$(rss_kib "$WPID"); m0=$(meminfo_kib MemFree)
			mon_start - pageout
			sleep 4
			mark po_start; sleep "$po_secs"; mark po_end
			r1=$(rss_kib "$WPID"); m1=$(meminfo_kib MemFree)
			applied=$(scheme_applied)
			hot=$(resident_in "$scratch/truth-ppageout.txt" "$WPID" "$hs" "$he")
			mon_stop
			wl_stop
			res "ppageout $r0 $r1 $m0 $m1 $applied $hot $(((he - hs) / 4096))"
			swap_off
			save
		fi
	fi
fi

# Floor: what a sample costs apart from its regions.  The kdamond's CPU
# with min_nr_regions = max_nr_regions = N (BENCH_FLOOR_NRS) on the
# hot/warm/cold workload of 64 MiB, and the CPU of a task that only sleeps
# 5 ms at a time beside the same workload, unmonitored: the price of 200
# wake-ups a second on this machine.  bench/analyze.sh fits a line through
# the kdamond's points: its intercept is the fixed cost of a sample.  Then
# the same for physical memory (the largest System RAM range) at
# BENCH_FLOOR_PA_NRS regions, which removes what decides the paddr phase's
# CPU more than any cost: how many regions a run happens to settle at.
# min = max = N is not N regions for every DAMON (upstream starts a paddr
# target from one region and splits it in two or three per aggregation
# until it has over N/2), so each point also records the regions counted.
# floor_count NAME: the regions as they are, after the CPU window (the
# tracepoint costs time of its own): one second of damon_aggregated events.
floor_count() {
	trace_on damon_aggregated
	sleep 1
	trace_off "$1"
}
# floor_point N PID KEY TRACE: one point of the floor, N regions of PID
# ("-": physical memory) monitored, recorded as KEY, counted in TRACE.
floor_point() {
	MON_MIN=$1 MON_MAX=$1
	mon_start "$2"
	sleep 2
	cpu_from
	sleep "$mon_win"
	cpu=$(cpu_to)
	floor_count "$4"
	mon_stop
	res "$3 $1 $cpu"
	save
}
if want floor; then
	log "floor: $floor_nrs regions"
	wl_start floor "$bin/hwc" 4 12 48
	sleep 1
	"$bin/sleeper" 5000 > "$scratch/wl-sleeper.txt" &
	spid=$!
	sleep 1
	cpu_from "$spid"
	sleep "$mon_win"
	cpu=$(cpu_to)
	kill "$spid"; wait "$spid"
	res "floor_sleeper $cpu"
	for n in $floor_nrs; do
		floor_point "$n" "$WPID" floor_kdamond "floor-$n"
	done
	PADDR_RANGE=$(ram_range)
	for n in $floor_pa_nrs; do
		[ -n "$PADDR_RANGE" ] || break
		floor_point "$n" - floor_pa_kdamond "floor-pa-$n"
	done
	MON_MIN=10 MON_MAX=1000
	wl_stop
	save
fi

# Proactive reclaim of a whole machine: a 1 GiB workload of which 256 MiB
# stay hot (hwc 256 0 768) on a machine with BENCH_MEM (2 GiB) and zram
# swap, a fresh workload per configuration: no DAMON; ours with
# tools/policies/reclaim.conf without ("conf") and with ("psi") its PSI
# quota goal; upstream's DAMON_RECLAIM by its module parameters
# ("module"), and, because the module in this 6.12 tree reclaims nothing
# (its scheme is set on the running context, then the commit of the
# parameter context, which has none, removes it: the scheme never tries
# a region), DAMON_RECLAIM's scheme written through upstream's sysfs, as
# the module would make it ("sysfs"), and with a some_mem_psi_us goal of
# the same rate as ours ("sysfs_psi").  Ours also runs reclaim.conf
# without its time quota ("szq"), to show what that quota holds back
# (upstream times actions with the jiffy-grained coarse clock, ours with
# ktime_get_ns(), so the two time quotas need not bind alike).  All get
# the same thresholds: min_age 10 s instead of 2 min (BENCH_RC_MIN_AGE_S),
# and watermarks of 70 %/60 %/20 % free memory (rc_wmarks) instead of
# 50 %/40 %/20 %: a 1 GiB workload leaves ~46 % of 2 GiB free, where the
# shipped watermarks would never turn reclaim on.
# Per run: the workload's RssAnon and MemFree before and after
# BENCH_RC_SECS (60) of reclaim, PSI "some" memory stall time, the
# kdamond's CPU time, the bytes the scheme reclaimed and the workload's
# progress rate.
rc_secs=${BENCH_RC_SECS:-60}
rc_min_age=${BENCH_RC_MIN_AGE_S:-10}
rc_dir=/sys/module/damon_reclaim/parameters
rc_made=$scratch/reclaim.made
rc_wmarks=(700 600 200)	# high, mid, low: per mille of free memory

# rc_conf PSI [NOMS]: reclaim.conf with the bench's thresholds, with
# (PSI=1) or without its some_mem_psi_us goal; NOMS=1 drops the time quota
# (the size quota alone bounds it).
rc_conf() {
	awk -v age=$((rc_min_age * 10)) -v psi="$1" -v noms="${2:-0}" '
	/^[ \t]*goal psi \{/ && !psi { skip = 1 }
	skip { if ($0 ~ /^[ \t]*\}/) skip = 0; next }
	$1 == "ms" && noms { next }
	$1 == "min_age" { sub(/[0-9]+/, age) }
	$1 == "high" { sub(/[0-9]+/, high) }
	$1 == "mid" { sub(/[0-9]+/, mid) }
	$1 == "low" { sub(/[0-9]+/, low) }
	{ print }' high="${rc_wmarks[0]}" mid="${rc_wmarks[1]}" low="${rc_wmarks[2]}" \
		"$here/../tools/policies/reclaim.conf"
}

# rc_sysfs PSI: DAMON_RECLAIM's scheme (mm/damon/reclaim.c) through
# upstream's sysfs, with the bench's thresholds; PSI=1 adds a
# some_mem_psi_us goal of 1 ms per 1 s reset interval (ours: 2 ms per 2 s).
rc_sysfs() {
	local c=$sfs/0/contexts/0 s
	up_ctx paddr 10 1000
	set -- "$1" $(ram_range)
	w "$c/targets/0/regions/nr_regions" 1
	w "$c/targets/0/regions/0/start" "$2"
	w "$c/targets/0/regions/0/end" "$3"
	w "$c/schemes/nr_schemes" 1
	s=$c/schemes/0
	w "$s/action" pageout
	w "$s/access_pattern/sz/min" 4096
	w "$s/access_pattern/sz/max" 18446744073709551615
	w "$s/access_pattern/nr_accesses/min" 0
	w "$s/access_pattern/nr_accesses/max" 0
	w "$s/access_pattern/age/min" $((rc_min_age * 10))
	w "$s/access_pattern/age/max" 4294967295
	w "$s/quotas/ms" 10
	w "$s/quotas/bytes" 134217728
	w "$s/quotas/reset_interval_ms" 1000
	w "$s/quotas/weights/sz_permil" 0
	w "$s/quotas/weights/nr_accesses_permil" 0
	w "$s/quotas/weights/age_permil" 1
	if [ "$1" = 1 ]; then
		w "$s/quotas/goals/nr_goals" 1
		w "$s/quotas/goals/0/target_metric" some_mem_psi_us
		w "$s/quotas/goals/0/target_value" 1000
	fi
	w "$s/watermarks/metric" free_mem_rate
	w "$s/watermarks/interval_us" 5000000
	w "$s/watermarks/high" "${rc_wmarks[0]}"
	w "$s/watermarks/mid" "${rc_wmarks[1]}"
	w "$s/watermarks/low" "${rc_wmarks[2]}"
	w "$sfs/0/state" on
	KPID=$(cat "$sfs/0/pid")
}

rc_start() {	# none | module | sysfs | sysfs_psi | conf | psi; sets KPID
	case $1 in
	none) KPID= ;;
	module)
		w "$rc_dir/min_age" $((rc_min_age * 1000000))
		w "$rc_dir/wmarks_high" "${rc_wmarks[0]}"
		w "$rc_dir/wmarks_mid" "${rc_wmarks[1]}"
		w "$rc_dir/wmarks_low" "${rc_wmarks[2]}"
		w "$rc_dir/enabled" Y
		KPID=$(cat "$rc_dir/kdamond_pid")
		;;
	sysfs) rc_sysfs 0 ;;
	sysfs_psi) rc_sysfs 1 ;;
	conf|psi|szq)
		case $1 in
		conf) rc_conf 0 ;;
		psi) rc_conf 1 ;;
		szq) rc_conf 0 1 ;;
		esac > "$scratch/reclaim-$1.conf"
		"$damo" restore --made "$rc_made" "$scratch/reclaim-$1.conf" ||
			die "damo restore reclaim-$1.conf"
		KPID=$(cat /sys/kernel/config/damon/contexts/reclaim/kdamond_pid)
		;;
	esac
	[ "$1" = none ] || [ "${KPID:-0}" -gt 0 ] 2>/dev/null || die "no kdamond pid"
}

rc_applied() {
	case $1 in
	none) echo 0 ;;
	module) cat "$rc_dir/bytes_reclaimed_regions" ;;
	sysfs*)
		w "$sfs/0/state" update_schemes_stats
		cat "$sfs/0/contexts/0/schemes/0/stats/sz_applied"
		;;
	*) cat /sys/kernel/config/damon/contexts/reclaim/schemes/cold/stats/sz_applied ;;
	esac
}

rc_stop() {
	case $1 in
	module) w "$rc_dir/enabled" N ;;
	sysfs*)
		w "$sfs/0/state" off
		w "$sfs/0/contexts/0/schemes/nr_schemes" 0
		w "$sfs/0/contexts/0/targets/0/regions/nr_regions" 0
		;;
	conf|psi|szq) "$damo" clear --only-from "$rc_made" || die "damo clear" ;;
	esac
	KPID=
}

if want reclaim; then
	damo=$here/../tools/out/damo
	mem=$(meminfo_kib MemTotal)
	if [ "$mem" -lt $((1536 * 1024)) ] || [ ! -e /sys/block/zram0/disksize ]; then
		log "reclaim: needs 1.5 GiB of memory and zram (MemTotal $mem kB): skipped"
	elif [ "$kernel" = upstream ] && [ ! -d "$rc_dir" ]; then
		die "reclaim: no DAMON_RECLAIM in the upstream kernel"
	else
		if [ "$kernel" = ours ]; then
			rc_configs="none conf szq psi"
			[ -x "$damo" ] || die "no $damo (make -C tools)"
		else
			rc_configs="none module sysfs sysfs_psi"
		fi
		for cfg in $rc_configs; do
			log "reclaim: $cfg"
			swap_on 1G
			wl_start "rc_$cfg" "$bin/hwc" 256 0 768
			sleep 1
			mark base_start; sleep "$win"; mark base_end
			r0=$(rss_kib "$WPID"); m0=$(meminfo_kib MemFree); p0=$(psi_some_us)
			rc_start "$cfg"
			cpu_from
			mark rc_start; sleep "$rc_secs"; mark rc_end
			cpu=$(cpu_to)
			r1=$(rss_kib "$WPID"); m1=$(meminfo_kib MemFree); p1=$(psi_some_us)
			applied=$(rc_applied "$cfg")
			rc_stop "$cfg"
			wl_stop
			res "reclaim $cfg $r0 $r1 $m0 $m1 $((p1 - p0)) $cpu $applied"
			swap_off
			save
		done
	fi
fi

# Profile: where the kdamond's time goes (make bench-profile, kernels with
# the function profiler).  Per size, the sweep's workload is monitored as
# in the sweep; for BENCH_MON_WIN seconds the profiler times the DAMON
# functions and the kernel functions they spend their time in, each from
# entry to return, without the time the thread sleeps (sleep-time off) and
# with its callees (graph-time on).  profile-SIZE.txt keeps every CPU's
# table; results.txt the kdamond's run time over the same window, so the
# tables can be read as shares of it.
PROF_FUNCS='damon_* damos_* kdamond_* __damon_* walk_page_range
__walk_page_range find_vma vma_lookup mt_find get_pid_task get_task_mm mmput
down_read up_read __pte_offset_map __pte_offset_map_lock
ptep_test_and_clear_young pmdp_test_and_clear_young ptep_clear_flush_young
folio_try_get pfn_to_online_page folio_set_idle folio_test_idle
__folio_put get_random_u32 schedule_hrtimeout_range
schedule_hrtimeout_range_clock usleep_range_state schedule
hrtimer_start_range_ns hrtimer_cancel'
if want profile; then
	if [ ! -e "$tr/function_profile_enabled" ] ||
	   [ ! -e "$tr/options/sleep-time" ]; then
		die "profile: the kernel has no function profiler with the graph tracer"
	fi
	w "$tr/options/sleep-time" 0
	w "$tr/options/graph-time" 1
	: > "$tr/set_ftrace_filter"
	for f in $PROF_FUNCS; do
		echo "$f" >> "$tr/set_ftrace_filter" 2>/dev/null
	done
	log "profile: $(wc -l < "$tr/set_ftrace_filter") functions"
	for mib in $sizes; do
		log "profile $mib MiB"
		wl_start "prof$mib" "$bin/hwc" $((mib / 16)) $((mib * 3 / 16)) \
			$((mib * 12 / 16))
		sleep 1
		mon_start "$WPID"
		sleep 2
		cpu_from
		w "$tr/function_profile_enabled" 1
		sleep "$mon_win"
		w "$tr/function_profile_enabled" 0
		res "profile_kdamond $mib $(cpu_to)"
		cat "$tr"/trace_stat/function* > "$scratch/profile-$mib.txt"
		mon_stop
		wl_stop
		save
	done
fi

save
log "done"
