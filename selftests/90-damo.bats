#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The damo tool (tools/) against the real configfs tree, and the DAMON
# tracepoints: damo record end to end on hotcold (the record shows the hot
# range hot and the cold one cold, and damo removes exactly what it made;
# several pids in one record; --timeout; --paddr, all of RAM or given
# physical ranges),
# the tracepoints through tracefs (damon_aggregated shows the regions the
# snapshot shows; damos_before_apply fires once per region a scheme tries),
# save -> clear -> restore -> save round-trips, restore resolves targets
# by command line, and a broken restore file changes nothing.

load lib
load configfs

DAMO=$ST_DIR/../tools/out/damo
TOOLS_TESTS=$ST_DIR/../tools/tests
FAILOPEN=$ST_DIR/../tools/out/failopen.so
TRACEFS=/sys/kernel/tracing
MIB=$((1024 * 1024))

setup() {
	cfs_setup
	if [ ! -x "$DAMO" ]; then
		echo "$DAMO is not built (make -C tools)"
		return 1
	fi
	D=$BATS_TEST_TMPDIR
}

teardown() {
	damo_trace_off
	cfs_teardown
	if [ -n "${DAMO_CG:-}" ]; then
		rmdir "$DAMO_CG/damo-test.service" 2>/dev/null || true
		umount "$DAMO_CG" 2>/dev/null || true
	fi
}

# ------------------------------------------------------------ helpers

# damo_trace_on EVENT...: clear the trace buffer and enable the events.
damo_trace_on() {
	local e
	[ -d "$TRACEFS/events/damon" ] ||
		skip "no damon events in $TRACEFS (tracefs or CONFIG_TRACEPOINTS missing)"
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	for e in "$@"; do
		echo 1 > "$TRACEFS/events/damon/$e/enable" || return 1
	done
	echo 1 > "$TRACEFS/tracing_on"
}

damo_trace_off() {
	[ -d "$TRACEFS/events/damon" ] || return 0
	echo 0 > "$TRACEFS/events/damon/enable" 2>/dev/null || true
}

# damo_contexts: the names under contexts/, space separated.
damo_contexts() {
	local d out=()
	for d in "$CFS_CTXS"/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		out+=("${d##*/}")
	done
	echo "${out[*]}"
}

# damo_wait_aggr CTX N: wait (up to 120 s) for N aggregations.
damo__aggr_ge() {
	local n
	st_read n "$CFS_CTXS/$1/nr_aggregations" 2>/dev/null || return 1
	[ "$n" -ge "$2" ]
}

damo_wait_aggr() {
	st_wait_for 120 damo__aggr_ge "$1" "$2"
}

# damo_setup_rich: a tree using every kind of directory: context "web"
# (on, monitoring ST_PID, a scheme with non-default groups, two filters and
# two quota goals, each pair made in non-alphabetical order) and context
# "batch" (off, fvaddr, two regions, no pid).
damo_setup_rich() {
	local c=$CFS_CTXS/web s
	mkdir "$c" "$c/targets/app"
	echo 5000 > "$c/sample_us"
	echo 200000 > "$c/aggr_us"
	echo 2000000 > "$c/update_us"
	echo 12 > "$c/min_nr_regions"
	echo 300 > "$c/max_nr_regions"
	echo "$ST_PID" > "$c/targets/app/pid"
	s=$c/schemes/cold
	mkdir "$s"
	echo cold > "$s/action"
	echo 1000000 > "$s/apply_interval_us"
	echo 4096 > "$s/access_pattern/min_size_bytes"
	echo 0 > "$s/access_pattern/max_nr_accesses"
	echo 50 > "$s/access_pattern/min_age"
	echo 104857600 > "$s/quotas/bytes"
	echo 500 > "$s/quotas/reset_interval_ms"
	echo 3 > "$s/quotas/weight_age"
	echo free_mem_rate > "$s/watermarks/metric"
	echo 1000 > "$s/watermarks/high"
	echo 999 > "$s/watermarks/mid"
	echo 0 > "$s/watermarks/low"
	mkdir "$s/filters/zz" "$s/filters/aa"
	echo addr > "$s/filters/zz/type"
	echo N > "$s/filters/zz/matching"
	echo "$HOT_START" > "$s/filters/zz/addr_start"
	echo "$COLD_END" > "$s/filters/zz/addr_end"
	echo target > "$s/filters/aa/type"
	echo app > "$s/filters/aa/target"
	mkdir "$s/quotas/goals/zz" "$s/quotas/goals/aa"
	echo 1000 > "$s/quotas/goals/zz/target_value"
	echo 400 > "$s/quotas/goals/zz/current_value"
	echo node_mem_free_bp > "$s/quotas/goals/aa/target_metric"
	echo 1 > "$s/quotas/goals/aa/target_value"
	mkdir "$c/schemes/stat"
	echo on > "$c/state"

	c=$CFS_CTXS/batch
	mkdir "$c" "$c/targets/t1" "$c/targets/t1/regions/r10" \
		"$c/targets/t1/regions/r2"
	echo fvaddr > "$c/operations"
	echo 4096 > "$c/targets/t1/regions/r2/start"
	echo 8192 > "$c/targets/t1/regions/r2/end"
	echo 65536 > "$c/targets/t1/regions/r10/start"
	echo 131072 > "$c/targets/t1/regions/r10/end"
}

# ------------------------------------------------------------ record

# bats test_tags=x86
@test "damo record runs hotcold to its end; the record shows the hot range hot" {
	local rec=$D/hot.data out=$D/out err=$D/err pid hs he cs ce line
	local t0 t1 tmin nbins

	# ST_ACC_* intervals (lib.bash): hot must read hot on a busy host too
	# the seed's format: what readrec.py below reads
	run "$DAMO" record -s "$ST_ACC_SAMPLE_US" -a "$ST_ACC_AGGR_US" \
		--format seed -o "$rec" "$ST_BIN/hotcold" -t 16 4 16
	echo "$output"
	echo "$output" > "$ST_OUTDIR/damo-record-hotcold.log"
	[ "$status" -eq 0 ]
	# hotcold's own line, then damo's summary
	line=$(grep -E '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' <<< "$output")
	read -r pid hs he cs ce <<< "$line"
	[ -n "$ce" ]
	grep -q "verify: ok" <<< "$output"
	grep -qE "recorded to $rec" <<< "$output"
	# only its own context, and it is gone
	[ -z "$(damo_contexts)" ]

	# the record names hotcold's pid and is what the report tools read
	# (plain numbers: the seed's text, which readrec.py prints too)
	"$DAMO" report raw -i "$rec" --raw-numbers > "$D/raw"
	grep -qx "pid:  $pid" "$D/raw"
	# every snapshot is counted: recorded + lost = aggregations seen
	local nrec nagg lost
	nrec=$(grep -c '^rel time:' "$D/raw")
	[ "$nrec" -gt 10 ]
	nagg=$(sed -nE 's/.* of ([0-9]+) aggregations.*/\1/p' <<< "$output")
	lost=$(sed -nE 's/.*; ([0-9]+) aggregations lost.*/\1/p' <<< "$output")
	[ "$nrec" -eq $((nagg - ${lost:-0})) ]

	# a reader written from Documentation/record-format.md agrees
	python3 "$TOOLS_TESTS/readrec.py" "$rec" > "$D/raw.py"
	cmp "$D/raw" "$D/raw.py"

	# hot vs cold, after the first 2 s (regions adapting): 1 MiB bins
	read -r t0 t1 < <("$DAMO" report heats -i "$rec" --guide |
		sed -nE 's/^time: ([0-9]+)-([0-9]+) .*/\1 \2/p')
	tmin=$((t0 + 2000000000))
	[ "$t1" -gt "$tmin" ]
	nbins=$(((ce - hs) / MIB))
	"$DAMO" report heats -i "$rec" --pid "$pid" --tres 1 --ares "$nbins" \
		--tmin "$tmin" --tmax "$t1" --amin "$hs" --amax "$ce" > "$D/heats"
	[ "$(wc -l < "$D/heats")" -eq "$nbins" ]
	awk -v hs="$hs" -v he="$he" -v cs="$cs" -v ce="$ce" '
	{ a = hs + $2; b = a + 1048576 }
	a >= hs && b <= he { hot += $3; nh++ }
	a >= cs + 2097152 && b <= ce { cold += $3; nc++ }
	END {
		printf "hot %.3f (%d bins), cold %.3f (%d bins)\n", hot / nh, nh, cold / nc, nc > "/dev/stderr"
		exit !(nh > 0 && nc > 0 && hot / nh > 1 && cold / nc * 4 < hot / nh)
	}' "$D/heats"
}

# damonitor/damo 3.3.0 (tools/tests/cli.sh has it too): a test oracle,
# never used by damo itself; scripts/oracle-dir.sh says where it is (once
# per suite: bats loads this file again for every test).
setup_file() {
	DAMO_ORACLE=$("$ST_DIR/../scripts/oracle-dir.sh")
	export DAMO_ORACLE
}

# bats test_tags=x86
@test "damo record writes damonitor/damo's format; it reports our figures" {
	local rec=$D/rec.data
	command -v python3 > /dev/null ||
		skip "python3 is not installed: the damonitor/damo oracle cannot run"
	command -v file > /dev/null ||
		skip "file(1) is not installed: the damonitor/damo oracle needs it"
	[ -f "$DAMO_ORACLE/src/damo.py" ] ||
		skip "no damonitor/damo oracle at $DAMO_ORACLE"
	# the default format, json_compressed: a zlib header
	run "$DAMO" record -a 100000 -o "$rec" "$ST_BIN/hotcold" -t 4 4 16
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(head -c 1 "$rec" | od -An -tx1 | tr -d ' ')" = 78 ]
	# wss, nr_regions and every heatmap cell of the oracle's reports are
	# ours (its heat is per second: ours per aggregation x 10)
	python3 "$TOOLS_TESTS/oracle_cmp.py" "$DAMO" "$DAMO_ORACLE/src/damo.py" \
		"$rec" --hz 100000 | tee "$ST_OUTDIR/damo-oracle.log"
	# and as the seed's format, read by the independent reader
	"$DAMO" convert -i "$rec" -o "$D/seed.data" --format seed
	"$DAMO" report raw -i "$rec" --raw-numbers > "$D/raw"
	python3 "$TOOLS_TESTS/readrec.py" "$D/seed.data" | cmp - "$D/raw"
	# plain JSON: a list of records
	run "$DAMO" record -a 100000 --format json -o "$D/rec.json" "$ST_BIN/hotcold" -t 1 1 1
	[ "$status" -eq 0 ]
	[ "$(head -c 1 "$D/rec.json")" = "[" ]
	grep -q '"aggr_us": "100000"' "$D/rec.json"
	"$DAMO" report nr_regions -i "$D/rec.json" --skip 0 > /dev/null
}

@test "damo record attaches to a pid, stops on SIGINT and leaves others' contexts alone" {
	local rec=$D/att.data dpid ctx
	st_start_hotcold 2 8
	mkdir "$CFS_CTXS/other"
	"$DAMO" record -a 50000 -c rec1 -o "$rec" "$ST_PID" > "$D/out" 2>&1 3>&- &
	dpid=$!
	st_wait_for 60 test -d "$CFS_CTXS/rec1"
	damo_wait_aggr rec1 5
	[ "$(cfs_read "$CFS_CTXS/rec1/aggr_us")" = 50000 ]
	[ "$(cfs_read "$CFS_CTXS/rec1/targets/0/pid")" = "$ST_PID" ]
	kill -INT "$dpid"
	wait "$dpid"
	cat "$D/out"
	grep -q "stopped by signal 2" "$D/out"
	[ "$(damo_contexts)" = other ]
	# the target keeps running: damo did not start it
	! st_gone "$ST_PID" || false
	"$DAMO" report nr_regions -i "$rec" --skip 0 > "$D/nr"
	grep -qx "# pid	$ST_PID" "$D/nr"
	# an existing record is kept as .old
	"$DAMO" record -a 50000 -c rec1 -o "$rec" "$ST_PID" > "$D/out" 2>&1 3>&- &
	dpid=$!
	st_wait_for 60 test -d "$CFS_CTXS/rec1"
	kill -TERM "$dpid"
	wait "$dpid"
	[ -s "$rec.old" ]
	[ "$(damo_contexts)" = other ]
}

@test "damo record fails clearly and leaves nothing behind" {
	local free
	free=$(cfs_free_pid)
	run "$DAMO" record -o "$D/x" "$free"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no process with pid $free"* ]]

	st_start_hotcold 1 1
	mkdir "$CFS_CTXS/taken"
	run "$DAMO" record -c taken -o "$D/x" "$ST_PID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$CFS_CTXS/taken: File exists"* ]]
	[ -d "$CFS_CTXS/taken" ] && [ ! -d "$CFS_CTXS/taken/targets/0" ]

	# the kernel's refusal names the file, the value and the errno
	run "$DAMO" record -n 2 -o "$D/x" "$ST_PID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"writing '2' to "*"/min_nr_regions: Invalid argument"* ]]
	run "$DAMO" record -s 300000 -a 100000 -o "$D/x" "$ST_PID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"writing 'on' to "*"/state: Invalid argument"* ]]
	run "$DAMO" record -o "$D/x" /nonexistent/command
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot run /nonexistent/command: No such file or directory"* ]]
	# a command damo started is stopped again when the set-up fails
	run "$DAMO" record -s 300000 -a 100000 -o "$D/x" "$ST_BIN/sleeper" 3>&-
	[ "$status" -eq 1 ]
	[[ "$output" == *"writing 'on' to "*"/state: Invalid argument"* ]]
	! pgrep -f "^$ST_BIN/sleeper" || false
	# and no record file is left behind; an older one is kept in place
	[ ! -e "$D/x" ]
	echo old > "$D/x"
	run "$DAMO" record -n 2 -o "$D/x" "$ST_PID"
	[ "$status" -eq 1 ]
	[ "$(cat "$D/x")" = old ] && [ ! -e "$D/x.old" ]
	[ "$(damo_contexts)" = taken ]
}

# damo_guide_covers PID START END: in `damo report heats --guide` on
# stdin, a monitored range of PID holds [START, END).
damo_guide_covers() {
	awk -v pid="$1" -v s="$2" -v e="$3" '
	/^pid:/ { mine = ($0 == "pid:" pid) }
	mine && /^region/ {
		split($3, r, "[-]")
		if (r[1] + 0 <= s + 0 && r[2] + 0 >= e + 0) found = 1
	}
	END { exit !found }'
}

@test "damo record PID PID: a target each in one context; both in the record until both exit" {
	local rec=$D/two.data p1 p2 hs1 he1 hs2 he2 n
	# two hotcolds that end by themselves, some seconds apart
	st_start_hotcold -t 6 2 4
	p1=$ST_PID hs1=$HOT_START he1=$HOT_END
	st_start_hotcold -t 10 2 4
	p2=$ST_PID hs2=$HOT_START he2=$HOT_END
	run "$DAMO" record -a 100000 -c two --format seed -o "$rec" "$p1" "$p2"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"recording pids $p1 $p2 to $rec (context two)"* ]]
	# it ended by itself, after the later one
	[[ "$output" != *"stopped"* ]]
	st_gone "$p1"
	st_gone "$p2"
	[ -z "$(damo_contexts)" ]
	# every snapshot has both targets, and both have regions
	"$DAMO" report raw -i "$rec" > "$D/raw"
	n=$(grep -c '^rel time:' "$D/raw")
	[ "$n" -gt 20 ]
	[ "$(grep -c '^nr_tasks:  2$' "$D/raw")" -eq "$n" ]
	[ "$(grep -cx "pid:  $p1" "$D/raw")" -eq "$n" ]
	[ "$(grep -cx "pid:  $p2" "$D/raw")" -eq "$n" ]
	[ "$(grep -A1 -x "pid:  $p1" "$D/raw" | grep -c '^nr_regions:  [1-9]')" -gt $((n / 2)) ]
	[ "$(grep -A1 -x "pid:  $p2" "$D/raw" | grep -c '^nr_regions:  [1-9]')" -gt $((n / 2)) ]
	# each one's monitored ranges hold its hot range
	"$DAMO" report heats -i "$rec" --guide > "$D/guide"
	cat "$D/guide"
	damo_guide_covers "$p1" "$hs1" "$he1" < "$D/guide"
	damo_guide_covers "$p2" "$hs2" "$he2" < "$D/guide"
}

@test "damo record --timeout ends the record of a pid that runs on, and of a command; the file is 0600" {
	local rec=$D/to.data t0 t1
	st_start_hotcold 2 2
	t0=$(date +%s)
	run bash -c "umask 022; exec '$DAMO' record -a 100000 --timeout 3 -o '$rec' $ST_PID"
	t1=$(date +%s)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"; stopped after --timeout 3 s"* ]]
	[ $((t1 - t0)) -ge 3 ]
	[ $((t1 - t0)) -lt 60 ]
	# attached to, not started: it runs on
	! st_gone "$ST_PID" || false
	[ -z "$(damo_contexts)" ]
	[ "$(stat -c %a "$rec")" = 600 ]
	"$DAMO" report nr_regions -i "$rec" --skip 0 | grep -qx "# pid	$ST_PID"
	# a command damo started gets SIGTERM, as on a signal
	run "$DAMO" record -a 100000 --timeout 2 -o "$D/cmd.data" "$ST_BIN/sleeper" 3>&-
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"; stopped after --timeout 2 s"* ]]
	! pgrep -f "^$ST_BIN/sleeper" || false
	[ -z "$(damo_contexts)" ]
}

# damo__paddr_check RAW: the last snapshot of a `report raw` text: its
# regions in address order, not overlapping, within the populated zones'
# physical page frames (/proc/zoneinfo), covering at least MemTotal (the
# frames may hold more than MemTotal counts: reserved memory, the kernel
# itself); "REGIONS COVERED_BYTES" on stdout.
damo__paddr_check() {
	local line s e last=0 covered=0 nr=0 lo hi ram
	read -r lo hi < <(awk -v page="$PAGE_SIZE" '
		$1 == "spanned" { span = $2 }
		$1 == "present" { present = $2 }
		$1 == "start_pfn:" && present > 0 {
			s = $2 * page; e = ($2 + span) * page
			if (!n++ || s < lo) lo = s
			if (e > hi) hi = e
		}
		END { printf "%.0f %.0f\n", lo, hi }' /proc/zoneinfo)
	ram=$(awk '/^MemTotal:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo)
	st_lines "$1"
	for line in "${ST_LINES[@]}"; do
		if [[ "$line" == "rel time:"* ]]; then
			last=0 covered=0 nr=0
			continue
		fi
		[[ "$line" =~ ^([0-9a-f]+)-([0-9a-f]+)\( ]] || continue
		s=$((16#${BASH_REMATCH[1]}))
		e=$((16#${BASH_REMATCH[2]}))
		if [ "$s" -lt "$last" ] || [ "$s" -ge "$e" ] ||
		   [ "$s" -lt "$lo" ] || [ "$e" -gt "$hi" ]; then
			echo "region $line out of order or outside the frames $lo-$hi" >&2
			return 1
		fi
		last=$e
		covered=$((covered + e - s))
		nr=$((nr + 1))
	done
	echo "covered $covered bytes in $nr regions; MemTotal $ram" >&2
	[ "$covered" -ge "$ram" ] || return 1
	echo "$nr $covered"
}

# bats test_tags=x86
@test "damo record --paddr records physical memory: regions cover MemTotal; reports work on it" {
	local rec=$D/paddr.data nr covered
	grep -qw ops:paddr "$CFS/features" || skip "no ops:paddr in features"
	run "$DAMO" record --paddr -a 100000 --timeout 3 -o "$rec"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"recording physical memory (all of RAM) to $rec"* ]]
	[[ "$output" == *"; stopped after --timeout 3 s"* ]]
	[ -z "$(damo_contexts)" ]
	[ "$(stat -c %a "$rec")" = 600 ]
	# one target, without a pid: 0 in the record
	"$DAMO" report raw -i "$rec" > "$D/raw"
	[ "$(grep -c '^rel time:' "$D/raw")" -ge 10 ]
	! grep -v '^pid:  0$' "$D/raw" | grep -q '^pid:' || false
	read -r nr covered < <(damo__paddr_check "$D/raw")
	[ "$nr" -ge 10 ] && [ "$nr" -le 1000 ]
	"$DAMO" report nr_regions -i "$rec" --skip 0 | grep -qx "# pid	0"
	"$DAMO" report wss -i "$rec" --skip 0 | grep -qx "# pid	0"
	# --region: exactly those physical ranges (page-aligned here)
	run "$DAMO" record --paddr --region $((MIB))-$((3 * MIB)) \
		--region 0x800000-0x900000 -a 100000 --timeout 2 --format seed \
		-o "$D/r.data"
	echo "$output"
	[ "$status" -eq 0 ]
	"$DAMO" report heats -i "$D/r.data" --guide > "$D/guide"
	cat "$D/guide"
	grep -qx "region	 0: 0*$MIB-0*$((3 * MIB)) ($((2 * MIB)))" "$D/guide"
	grep -qx "region	 1: 0*$((8 * MIB))-0*$((9 * MIB)) ($MIB)" "$D/guide"
	[ -z "$(damo_contexts)" ]
	# no pid or command with it; nothing is made
	run "$DAMO" record --paddr -o "$D/x" "$$"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--paddr records physical memory: no PID or command"* ]]
	[ ! -e "$D/x" ]
	[ -z "$(damo_contexts)" ]
}

# ------------------------------------------------------------ tracepoints

# bats test_tags=x86
@test "damon:damon_aggregated shows the regions the snapshot shows" {
	local c=$CFS_CTXS/tr f=$TRACEFS/events/damon/damon_aggregated/format
	local n
	damo_trace_on damon_aggregated
	for n in target_id nr_regions start end nr_accesses age; do
		grep -q "field:.* $n;" "$f"
	done
	st_start_hotcold 2 8
	mkdir "$c" "$c/targets/t"
	echo "$ST_PID" > "$c/targets/t/pid"
	echo on > "$c/state"
	damo_wait_aggr tr 5
	echo off > "$c/state"
	echo 0 > "$TRACEFS/tracing_on"
	cp "$TRACEFS/trace" "$D/trace"
	cat "$c/targets/t/snapshot" > "$D/snap"
	[ -s "$D/snap" ]
	# the last aggregation's events: the last nr_regions of them
	sed -nE 's/.*damon_aggregated: target_id=0 nr_regions=([0-9]+) ([0-9]+)-([0-9]+): ([0-9]+) ([0-9]+)$/\1 \2 \3 \4 \5/p' \
		"$D/trace" > "$D/events"
	n=$(tail -n 1 "$D/events" | cut -d' ' -f1)
	[ "$n" -eq "$(wc -l < "$D/snap")" ]
	tail -n "$n" "$D/events" | cut -d' ' -f2- > "$D/last"
	diff "$D/snap" "$D/last"
	# one event per region per aggregation
	[ "$(wc -l < "$D/events")" -ge $((5 * 3)) ]
}

@test "damon:damos_before_apply fires once per region a scheme tries" {
	local c=$CFS_CTXS/tr s tried n
	local f=$TRACEFS/events/damon/damos_before_apply/format
	damo_trace_on damos_before_apply
	for n in context_idx scheme_idx target_idx start end nr_accesses age \
		nr_regions; do
		grep -q "field:.* $n;" "$f"
	done
	st_start_hotcold 2 8
	mkdir "$c" "$c/targets/t" "$c/schemes/s0" "$c/schemes/hot"
	echo "$ST_PID" > "$c/targets/t/pid"
	s=$c/schemes/hot
	echo 1 > "$s/access_pattern/min_nr_accesses"
	# s0 matches nothing: only scheme 1 ("hot") may show up
	echo 1 > "$c/schemes/s0/access_pattern/min_size_bytes"
	echo 1 > "$c/schemes/s0/access_pattern/max_size_bytes"
	echo on > "$c/state"
	damo_wait_aggr tr 10
	echo off > "$c/state"
	echo 0 > "$TRACEFS/tracing_on"
	# nothing was lost from the ring buffer
	! grep -h '^overrun:' "$TRACEFS"/per_cpu/cpu*/stats | grep -v 'overrun: 0$' || false
	grep -c 'damos_before_apply:' "$TRACEFS/trace" > "$D/nr" || true
	tried=$(cfs_read "$s/stats/nr_tried")
	[ "$tried" -gt 0 ]
	[ "$(cat "$D/nr")" -eq "$tried" ]
	[ "$(cfs_read "$c/schemes/s0/stats/nr_tried")" -eq 0 ]
	! grep 'damos_before_apply:' "$TRACEFS/trace" |
		grep -v 'ctx_idx=0 scheme_idx=1 target_idx=0 nr_regions=[0-9]* [0-9]*-[0-9]*: [1-9][0-9]* [0-9]*$'
}

# ------------------------------------------------------------ save/restore

@test "damo save -> clear -> restore -> save gives the same file" {
	st_start_hotcold 2 8
	damo_setup_rich
	"$DAMO" save "$D/one.conf"
	cat "$D/one.conf"
	# filters in creation order, the rest by name
	grep -A1 'filter zz' "$D/one.conf" | grep -q 'type addr'
	[ "$(grep -o 'filter [a-z]*' "$D/one.conf" | tr '\n' ' ')" = "filter zz filter aa " ]
	[ "$(grep -o 'goal [a-z]*' "$D/one.conf" | tr '\n' ' ')" = "goal zz goal aa " ]
	# the input of the user_input goal, not the measurement of the other
	[ "$(grep -c current_value "$D/one.conf")" -eq 1 ]
	grep -qx "				current_value 400" "$D/one.conf"
	[ "$(grep -o 'region r[0-9]*' "$D/one.conf" | tr '\n' ' ')" = "region r2 region r10 " ]
	[ "$(grep -o 'context [a-z]*' "$D/one.conf" | tr '\n' ' ')" = "context batch context web " ]
	grep -qx "		pid $ST_PID" "$D/one.conf"

	"$DAMO" clear
	[ -z "$(damo_contexts)" ]
	"$DAMO" restore "$D/one.conf"
	[ "$(cfs_state web)" = on ]
	[ "$(cfs_state batch)" = off ]
	"$DAMO" save "$D/two.conf"
	diff "$D/one.conf" "$D/two.conf"
	# and it really is the same setup: the kdamond monitors the workload
	damo_wait_aggr web 2
	[ -n "$(cat "$CFS_CTXS/web/targets/app/snapshot")" ]
	# status shows the goals with their metrics, in creation order
	"$DAMO" status > "$D/status"
	cat "$D/status"
	grep -A2 -x "    quota: 100 MiB per 500 ms, set by 2 goals below that, .*" "$D/status" |
		sed 1d | sed 's/current [0-9.]* %/current X/' > "$D/goals"
	diff - "$D/goals" <<-'EOF'
	    goal zz: user_input, current 400, target 1000
	    goal aa: node_mem_free_bp on node 0, current X, target 0.01 %
	EOF
	"$DAMO" status --json | grep -q '"goals": \['
	"$DAMO" status --json | grep -q '{"name": "zz", "target_metric": "user_input", "target_value": 1000, "current_value": 400, "nid": null, "memcg_path": null}'
	"$DAMO" clear
	[ -z "$(damo_contexts)" ]
	# an empty tree saves as just the header, and restores to nothing
	"$DAMO" save - > "$D/empty.conf"
	[ "$(grep -vc '^#' "$D/empty.conf")" -eq 0 ]
	"$DAMO" restore "$D/empty.conf"
}

@test "damo restore resolves targets by command line" {
	st_start_hotcold 1 2
	local cmdline
	cmdline=$(tr '\0' ' ' < "/proc/$ST_PID/cmdline")
	cmdline=${cmdline% }
	cat > "$D/cmd.conf" <<-EOF
	context bycmd {
		target app {
			command $cmdline
		}
		state on
	}
	EOF
	"$DAMO" restore "$D/cmd.conf"
	[ "$(cfs_read "$CFS_CTXS/bycmd/targets/app/pid")" = "$ST_PID" ]
	[ "$(cfs_state bycmd)" = on ]
	# save --by-command writes it back the same way
	"$DAMO" save --by-command - | grep -qx "		command $cmdline"
	"$DAMO" clear

	# no such process: nothing is made, the line is named
	sed -i 's|command .*|command /no/such/program --flag|' "$D/cmd.conf"
	run "$DAMO" restore "$D/cmd.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cmd.conf:3: target app: no process runs '/no/such/program --flag'"* ]]
	[ -z "$(damo_contexts)" ]
}

@test "damo restore resolves targets by systemd unit (the unit's cgroup)" {
	local cg=$BATS_TEST_TMPDIR/cg
	st_require_fs cgroup2
	mkdir "$cg"
	mount -t cgroup2 none "$cg"
	DAMO_CG=$cg
	mkdir "$cg/damo-test.service"
	st_start_hotcold 1 2
	echo "$ST_PID" > "$cg/damo-test.service/cgroup.procs"
	grep -qx '0::/damo-test.service' "/proc/$ST_PID/cgroup"
	cat > "$D/unit.conf" <<-EOF
	context byunit {
		target app {
			unit damo-test
		}
		state on
	}
	EOF
	"$DAMO" restore "$D/unit.conf"
	[ "$(cfs_read "$CFS_CTXS/byunit/targets/app/pid")" = "$ST_PID" ]
	[ "$(cfs_state byunit)" = on ]
	"$DAMO" clear
	sed -i 's/unit damo-test/unit other.service/' "$D/unit.conf"
	run "$DAMO" restore "$D/unit.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unit.conf:3: target app: no process runs 'other.service'"* ]]
	[ -z "$(damo_contexts)" ]
}

@test "the boot unit's commands: a pid config is refused, a unit-named one restored; stop removes only those" {
	local cg=$BATS_TEST_TMPDIR/cg made=$D/made
	st_require_fs cgroup2
	mkdir "$cg"
	mount -t cgroup2 none "$cg"
	DAMO_CG=$cg
	mkdir "$cg/damo-boot.service"
	st_start_hotcold 1 2
	echo "$ST_PID" > "$cg/damo-boot.service/cgroup.procs"
	# a context made by hand before the unit starts
	mkdir -p "$CFS_CTXS/byhand/targets/app"
	cat > "$D/pid.conf" <<-EOF
	context bypid {
		target app {
			pid $ST_PID
		}
		state on
	}
	EOF
	run "$DAMO" restore --boot --wait 5 --made "$made" "$D/pid.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"pid.conf:3: target app is pid $ST_PID: pids do not survive a reboot"* ]]
	[ ! -e "$made" ]
	[ "$(damo_contexts)" = byhand ]

	cat > "$D/unit.conf" <<-EOF
	context byunit {
		target app {
			unit damo-boot
		}
		state on
	}
	EOF
	"$DAMO" restore --boot --wait 5 --made "$made" "$D/unit.conf"
	[ "$(cfs_read "$CFS_CTXS/byunit/targets/app/pid")" = "$ST_PID" ]
	[ "$(cfs_state byunit)" = on ]
	grep -qx byunit "$made"
	# ExecStop: only what the unit restored goes
	"$DAMO" clear --only-from "$made"
	[ "$(damo_contexts)" = byhand ]
	"$DAMO" clear
}

@test "damo restore of a broken file changes nothing and names the line" {
	st_start_hotcold 1 2
	damo_setup_rich
	"$DAMO" save "$D/before.conf"
	local free
	free=$(cfs_free_pid)

	# syntax, values and relations: refused before touching anything
	printf 'context a {\n\tsample_us 0x10\n}\n' > "$D/b1.conf"
	printf 'context a {\n\ttarget t {\n\t\tpid 1\n}\n' > "$D/b2.conf"
	printf 'context a {\n\tsample_us 6000\n\taggr_us 5000\n\ttarget t {\n\t\tpid %s\n\t}\n\tstate on\n}\n' "$ST_PID" > "$D/b3.conf"
	printf 'context a {\n\tbogus 1\n}\n' > "$D/b4.conf"
	run "$DAMO" restore "$D/b1.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b1.conf:2: sample_us: '0x10' is not a decimal number"* ]]
	run "$DAMO" restore "$D/b2.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b2.conf:1: block 'context a' is not closed"* ]]
	run "$DAMO" restore "$D/b3.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b3.conf:3: context a: needs sample_us (6000) <= aggr_us (5000)"* ]]
	run "$DAMO" restore "$D/b4.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b4.conf:2: unknown key 'bogus' in a context block"* ]]
	# a name that exists already
	run "$DAMO" restore "$D/before.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"context batch exists already"* ]]

	# the kernel refuses half-way: what was made is removed again
	cat > "$D/b5.conf" <<-EOF
	context new1 {
		target t {
			pid $ST_PID
		}
		scheme s {
			action stat
		}
		state on
	}
	context new2 {
		target t {
			pid $free
		}
	}
	EOF
	run "$DAMO" restore "$D/b5.conf"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b5.conf:12: writing '$free' to $CFS_CTXS/new2/targets/t/pid: No such process"* ]]
	[[ "$output" == *"rolled back"* ]]
	"$DAMO" save "$D/after.conf"
	diff "$D/before.conf" "$D/after.conf"
	[ "$(damo_contexts)" = "batch web" ]
}

@test "damo restore turns off what it turned on when a later step fails" {
	st_start_hotcold 1 2
	cat > "$D/z.conf" <<-EOF
	context first {
		target t {
			pid $ST_PID
		}
		state on
	}
	context second {
		target t {
			pid $ST_PID
		}
		state on
	}
	EOF
	[ -f "$FAILOPEN" ]
	# the "on" of the second context is refused (fault injection)
	FAILOPEN_PATH=$CFS_CTXS/second/state LD_PRELOAD=$FAILOPEN \
		run "$DAMO" restore "$D/z.conf"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"z.conf:11: writing 'on' to $CFS_CTXS/second/state: Operation not permitted"* ]]
	[[ "$output" == *"rolled back: turned off 1 context and removed the 4 directories made"* ]]
	[ -z "$(damo_contexts)" ]
	# without the fault, the same file works
	"$DAMO" restore "$D/z.conf"
	[ "$(cfs_state first)" = on ] && [ "$(cfs_state second)" = on ]
}

# bats test_tags=x86
@test "the shipped policies restore and run here; status estimates bandwidth and idle time; clear removes them" {
	local pol=$ST_DIR/../tools/policies c=$CFS_CTXS s
	"$DAMO" restore --dry-run "$pol/reclaim.conf" > /dev/null
	"$DAMO" restore --dry-run "$pol/lru_sort.conf" > /dev/null
	"$DAMO" restore --dry-run "$pol/stat.conf" > /dev/null
	"$DAMO" restore "$pol/reclaim.conf"
	"$DAMO" restore "$pol/lru_sort.conf"
	"$DAMO" restore "$pol/stat.conf"
	[ "$(damo_contexts | tr '\n' ' ')" = "lru_sort reclaim stat " ]
	for s in reclaim lru_sort stat; do
		[ "$(cfs_state "$s")" = on ]
		cfs_expect_value "$c/$s/operations" paddr
		[ "$(cat "$c/$s/kdamond_pid")" -gt 0 ]
	done
	# what each one is, as the admin guide says
	s=$c/reclaim/schemes/cold
	cfs_expect_value "$s/action" pageout
	cfs_expect_value "$s/access_pattern/max_nr_accesses" 0
	cfs_expect_value "$s/access_pattern/min_age" 1200
	cfs_expect_value "$s/quotas/ms" 20
	cfs_expect_value "$s/quotas/bytes" 268435456
	cfs_expect_value "$s/quotas/goals/psi/target_metric" some_mem_psi_us
	cfs_expect_value "$s/watermarks/metric" free_mem_rate
	[ "$(cat "$s/watermarks/high") $(cat "$s/watermarks/mid") $(cat "$s/watermarks/low")" = "500 400 200" ]
	cfs_expect_value "$s/filters/busy/type" young
	[ "$(cat "$c/lru_sort/schemes/"*/action | sort | tr '\n' ' ')" = "lru_deprio lru_prio " ]
	grep -qx active_mem_bp "$c/lru_sort/schemes/"*/quotas/goals/*/target_metric
	[ -z "$(ls "$c/stat/schemes")" ]
	cfs_expect_value "$c/stat/intervals_goal/access_bp" 400
	cfs_expect_value "$c/stat/intervals_goal/min_sample_us" 5000
	cfs_expect_value "$c/stat/intervals_goal/max_sample_us" 10000000
	# the stat context's figures, once it has aggregated
	damo_wait_aggr stat 2
	"$DAMO" status > "$BATS_TEST_TMPDIR/status"
	cat "$BATS_TEST_TMPDIR/status"
	sed -n '/^context stat:/,/^context /p' "$BATS_TEST_TMPDIR/status" > "$BATS_TEST_TMPDIR/stat"
	grep -q '^  intervals goal: 4 % of the observable accesses' "$BATS_TEST_TMPDIR/stat"
	grep -Eq '^  estimated memory bandwidth: [0-9.]+ [KMGTPE]?i?B/s$' "$BATS_TEST_TMPDIR/stat"
	grep -Eq '^  memory idle time: p0 .*, p50 .*, p100 ' "$BATS_TEST_TMPDIR/stat"
	"$DAMO" status --json > "$BATS_TEST_TMPDIR/status.json"
	python3 - "$BATS_TEST_TMPDIR/status.json" <<-'PY'
	import json, sys
	doc = json.load(open(sys.argv[1]))
	ctxs = doc["contexts"] if isinstance(doc, dict) else doc
	st = next(c for c in ctxs if c["name"] == "stat")
	assert isinstance(st["estimated_memory_bandwidth"], int), st
	p = st["memory_idle_us_percentiles"]
	vals = [p["p%d" % k] for k in range(0, 101, 10)]
	assert vals == sorted(vals), vals
	assert st["intervals_goal"]["access_bp"] == 400, st
	PY
	"$DAMO" clear
	[ -z "$(damo_contexts)" ]
}
