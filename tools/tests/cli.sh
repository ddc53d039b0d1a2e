#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the damo command line: every report on crafted records
# (tests/mkrec.py) against answers worked out by hand, the same figures
# from the record formats (seed, json, json_compressed), damonitor/damo
# (the oracle, if beside the checkout) reading our records and we its, the
# error messages,
# --help everywhere, restore --dry-run against a stand-in configfs root,
# make install, and systemd-analyze verify on the installed unit.
#
#	cli.sh DAMO COUNTS_FILE		writes "PASSED FAILED SKIPPED"
set -u
DAMO=$1
COUNTS=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$(dirname "$HERE")
T=$(mktemp -d /tmp/damo-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
passed=0 failed=0 skipped=0 n=0

# t NAME FUNCTION: run one test in a subshell (set -e inside).
t() {
	local out rc=0
	n=$((n + 1))
	# not under if, || or &&: set -e would be ignored inside the test
	(set -e; "$2") > "$T/.log" 2>&1
	rc=$?
	out=$(cat "$T/.log")
	if [ "$rc" -eq 0 ]; then
		if [[ "$out" == SKIP:* ]]; then
			echo "ok $n - $1 # skip ${out#SKIP: }"
			skipped=$((skipped + 1))
		else
			echo "ok $n - $1"
			passed=$((passed + 1))
		fi
	else
		echo "not ok $n - $1"
		sed 's/^/#   /' <<< "$out"
		failed=$((failed + 1))
	fi
}

skip() {
	echo "SKIP: $*"
	exit 0
}

# expect_fail "MESSAGE" CMD...: CMD exits 1 and says MESSAGE.
expect_fail() {
	local msg=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne 1 ] || [[ "$out" != *"$msg"* ]]; then
		echo "expected exit 1 and \"$msg\" from: $*"
		echo "got exit $rc: $out"
		return 1
	fi
}

# expect_quiet_fail "MESSAGE" CMD...: CMD exits 1, says MESSAGE on stderr
# and prints nothing on stdout (no partial output before the error).
expect_quiet_fail() {
	local msg=$1 rc=0
	shift
	"$@" > "$T/.out" 2> "$T/.err" || rc=$?
	if [ "$rc" -ne 1 ] || ! grep -qF -- "$msg" "$T/.err" || [ -s "$T/.out" ]; then
		echo "expected exit 1, \"$msg\" and no output from: $*"
		echo "got exit $rc; stderr: $(cat "$T/.err")"
		echo "stdout: $(head -c 500 "$T/.out")"
		return 1
	fi
}

python3 "$HERE/mkrec.py" simple "$T/simple.data"
python3 "$HERE/mkrec.py" twopids "$T/two.data"
python3 "$HERE/mkrec.py" tiny "$T/tiny.data"
python3 "$HERE/mkrec.py" varied "$T/varied.data"

# damonitor/damo 3.3.0, the test oracle of the record format (never used
# by damo itself), found by scripts/oracle-dir.sh ($DAMO_ORACLE, or
# ../shared/oracles beside the checkout or beside the one it was cloned
# from).  Its `damo` is a symbolic link stored as text: run the script it
# names.
ORACLE_DIR=$("$(dirname "$TOOLS")/scripts/oracle-dir.sh")
ORACLE=$ORACLE_DIR/src/damo.py

# oracle_ready: skip (with the reason) unless the oracle can run.
oracle_ready() {
	command -v python3 > /dev/null ||
		skip "python3 is not installed (apt-get install python3): the damonitor/damo oracle cannot run"
	[ -f "$ORACLE" ] ||
		skip "no damonitor/damo oracle at $ORACLE_DIR (set DAMO_ORACLE)"
	# it tells record formats apart with file(1)
	command -v file > /dev/null ||
		skip "file(1) is not installed (apt-get install file): the damonitor/damo oracle needs it"
}

# ------------------------------------------------------------ reports

test_raw() {
	"$DAMO" report raw -i "$T/tiny.data" > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	start_time:  1000000000000
	rel time:                0
	nr_tasks:  1
	pid:  1348
	nr_regions:  2
	560189609000-56018abce000(  22827008):	0
	7fbdff59a000-7fbdffaf1a00(   5601792):	1

	rel time:        100000731
	nr_tasks:  1
	pid:  1348
	nr_regions:  1
	560189609000-56018abce000(  22827008):	2

	EOF
	# the independent reader of record-format.md agrees
	python3 "$HERE/readrec.py" "$T/tiny.data" | diff -u - "$T/out"
}

# wss: 8192 bytes in snapshots 0-9, 12288 from 10 on; the first 20 skipped
test_wss() {
	"$DAMO" report wss -i "$T/simple.data" > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <wss>
	# pid	42
	# avr:	12288
	0	12288
	25	12288
	50	12288
	75	12288
	100	12288
	EOF
	# all 25: avr 266240 / 25 = 10649.6; index int(p / 100 * 25)
	"$DAMO" report wss -i "$T/simple.data" --skip 0 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <wss>
	# pid	42
	# avr:	10649
	0	8192
	25	8192
	50	12288
	75	12288
	100	12288
	EOF
	"$DAMO" report wss -i "$T/simple.data" --skip 0 -r 0 100 40 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <wss>
	# pid	42
	# avr:	10649
	0	8192
	40	12288
	80	12288
	EOF
}

# nr_regions: 3 in even snapshots, 4 in odd ones
test_nr_regions() {
	"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <# regions>
	# pid	42
	# avr:	3
	0	3
	25	3
	50	3
	75	4
	100	4
	EOF
	# in time order: index 5 is snapshot 5 (4), index 10 snapshot 10 (3)
	"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 -s time \
		-r 20 60 20 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <# regions>
	# pid	42
	# avr:	3
	20	4
	40	3
	EOF
}

test_heats() {
	"$DAMO" report heats -i "$T/simple.data" --tres 2 --ares 4 \
		--tmin 1000000000000 --tmax 1002400000000 \
		--amin 4096 --amax 0x5000 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	0	0	2.5
	0	4096	5.0
	0	8192	5.0
	0	12288	0.0
	1200000000	0	10.0
	1200000000	4096	5.0
	1200000000	8192	5.0
	1200000000	12288	0.0
	EOF
	# the defaults: 500 x 500 cells over the whole record
	[ "$("$DAMO" report heats -i "$T/simple.data" | wc -l)" -eq 250000 ]
}

test_guide() {
	"$DAMO" report heats -i "$T/two.data" --guide > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	pid:2
	time: 1000100000000-1000400000000 (300000000)
	region	 0: 00000000000001048576-00000000000002097152 (1048576)
	region	 1: 00000000000008388608-00000000000009437184 (1048576)
	pid:1
	time: 1000000000000-1000400000000 (400000000)
	region	 0: 00000000000000065536-00000000000000131072 (65536)
	EOF
	# several pids: wss reports each, in order of appearance
	"$DAMO" report wss -i "$T/two.data" --skip 0 -r 0 101 100 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <wss>
	# pid	1
	# avr:	65536
	0	65536
	100	65536
	# pid	2
	# avr:	1572864
	0	1572864
	100	1572864
	EOF
}

test_heatmap_term() {
	"$DAMO" report heatmap -i "$T/simple.data" --tres 4 \
		--ares 4 --amin 4096 --amax 20480 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	          4000 |    |
	          3000 |++++|
	          2000 |++++|
	          1000 | +@@|
	               +----+
	          time  0 1.2 2.4 s
	address (hex) up, time right; pid 42; max 10 accesses per aggregation " .:-=+*#%@" (0..max)
	EOF
	# colours: 256-colour backgrounds, reset at each row's end
	COLUMNS=40 "$DAMO" report heatmap -i "$T/simple.data" --color > "$T/out"
	[ "$(grep -c $'\033\\[0m|$' "$T/out")" -eq 20 ]
	grep -q $'\033\\[48;5;231m' "$T/out"
	# not on a terminal, or with NO_COLOR: characters
	COLUMNS=40 "$DAMO" report heatmap -i "$T/simple.data" > "$T/out"
	! grep -q $'\033' "$T/out" || false
	NO_COLOR=1 script -qc "COLUMNS=40 $DAMO report heatmap -i $T/simple.data" /dev/null > "$T/out" ||
		skip "no script(1)"
	! grep -q $'\033\\[48' "$T/out" || false
}

test_heatmap_png() {
	"$DAMO" report heatmap -i "$T/simple.data" -o "$T/h.png"
	[ "$(head -c 8 "$T/h.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	# IHDR: 1000 x 640
	[ "$(od -An -tu1 -j16 -N8 "$T/h.png" | tr -s ' ')" = " 0 0 3 232 0 0 2 128" ]
	# wss and nr_regions --plot: an 800x500 PNG, and the same text
	"$DAMO" report wss -i "$T/simple.data" --skip 0 --plot "$T/p.png" > "$T/out"
	[ "$(od -An -tu1 -j16 -N8 "$T/p.png" | tr -s ' ')" = " 0 0 3 32 0 0 1 244" ]
	grep -qx "50	12288" "$T/out"
	"$DAMO" report nr_regions -i "$T/two.data" --skip 0 -s time -p "$T/p2.png" > /dev/null
	[ -s "$T/p2.png" ]
	# the seed's spelling: heats --heatmap FILE
	"$DAMO" report heats -i "$T/simple.data" --heatmap "$T/h2.png"
	cmp "$T/h.png" "$T/h2.png" || [ -s "$T/h2.png" ]
	expect_fail "cannot write $T/no/h.png" \
		"$DAMO" report heatmap -i "$T/simple.data" -o "$T/no/h.png"
}

test_report_errors() {
	expect_fail "cannot read record file $T/none: No such file or directory" \
		"$DAMO" report raw -i "$T/none"
	# tiny's first snapshot is 72 bytes: cut 10 bytes into the second
	head -c 82 "$T/tiny.data" > "$T/cut.data"
	"$DAMO" report raw -i "$T/cut.data" > "$T/out" 2> "$T/err"
	grep -q "ignoring an incomplete last snapshot (10 bytes)" "$T/err"
	[ "$(grep -c '^rel time:' "$T/out")" -eq 1 ]
	# a region that ends before it starts
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("=qqIQIQQI", 1, 0, 1, 7, 1, 8192, 4096, 0))' > "$T/bad.data"
	expect_fail "not a DAMON record: offset 32: region end 4096 below start 8192" \
		"$DAMO" report raw -i "$T/bad.data"
	expect_fail "pid 7 is not in the record" \
		"$DAMO" report heats -i "$T/simple.data" --pid 7
	expect_fail "no snapshots left after skipping the first 20" \
		"$DAMO" report wss -i "$T/two.data"
	expect_fail "--range needs START STOP STEP" \
		"$DAMO" report wss -i "$T/simple.data" -r 0 100
	expect_fail "--range: STEP must not be 0" \
		"$DAMO" report wss -i "$T/simple.data" -r 0 100 0
	expect_fail "--sortby: 'space' is neither size nor time" \
		"$DAMO" report wss -i "$T/simple.data" -s space
	expect_fail "cannot write $T/no/p.png" \
		"$DAMO" report wss -i "$T/simple.data" --plot "$T/no/p.png"
	expect_fail "--tres: 'x' is not a number" \
		"$DAMO" report heats -i "$T/simple.data" --tres x
	expect_fail "--amin: '0xg' is not an address" \
		"$DAMO" report heats -i "$T/simple.data" --amin 0xg
	expect_fail "unknown report type 'heat'" "$DAMO" report heat
	expect_fail "unknown command 'recrod'" "$DAMO" recrod
}

# Every bad input: a message, exit 1, and nothing on standard output.
test_bad_inputs() {
	local c f
	# records with nothing to report, in every format
	: > "$T/empty.data"
	head -c 50 "$T/tiny.data" > "$T/cut1.data"
	# a first snapshot whose nr_tasks is absurd (the rest is fine)
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("=qqIQIQQI", 1, 0, 0xfffffff0, 7, 1, 4096, 8192, 2))' > "$T/corrupt.data"
	cat "$T/tiny.data" >> "$T/corrupt.data"
	# the seed's format from a machine of the other byte order
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack(("<" if sys.byteorder == "big" else ">") + "qqIQIQQIQQI", 1000, 5, 1, 7, 2, 4096, 8192, 2, 8192, 12288, 0))' > "$T/swapped.data"
	printf '[]\n' > "$T/none.json"
	printf '[{"snapshots": []}]' > "$T/nosnap.json"
	python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(b"[]"))' > "$T/none.jz"
	"$DAMO" convert -i "$T/tiny.data" -o "$T/tiny.json" --format json
	head -c 120 "$T/tiny.json" > "$T/cut.json"
	: > "$T/empty.json"
	for c in raw heats heatmap wss nr_regions; do
		expect_quiet_fail "empty.data: not a DAMON record: the file is empty" \
			"$DAMO" report $c -i "$T/empty.data"
		expect_quiet_fail "empty.json: not a DAMON record: the file is empty" \
			"$DAMO" report $c -i "$T/empty.json"
		expect_quiet_fail "cut1.data: not a DAMON record: offset 0: not even one whole snapshot (50 bytes" \
			"$DAMO" report $c -i "$T/cut1.data"
		expect_quiet_fail "corrupt.data: not a DAMON record: offset 0: not even one whole snapshot" \
			"$DAMO" report $c -i "$T/corrupt.data"
		expect_quiet_fail "swapped.data: not a DAMON record: offset 0: the seed's format in the other byte order" \
			"$DAMO" report $c -i "$T/swapped.data"
		for f in none.json nosnap.json none.jz; do
			expect_quiet_fail "$f: not a DAMON record: no snapshots in it" \
				"$DAMO" report $c -i "$T/$f"
		done
		expect_quiet_fail "cut.json: not a DAMON record: JSON offset 120:" \
			"$DAMO" report $c -i "$T/cut.json"
	done
	# convert writes nothing from them
	for f in empty.data cut1.data swapped.data none.json cut.json; do
		expect_quiet_fail "$f: not a DAMON record" \
			"$DAMO" convert -i "$T/$f" -o "$T/conv.out"
		[ ! -e "$T/conv.out" ]
	done
	# the native order of the same bytes reads
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("=qqIQIQQIQQI", 1000, 5, 1, 7, 2, 4096, 8192, 2, 8192, 12288, 0))' > "$T/native.data"
	"$DAMO" report raw -i "$T/native.data" | grep -q "^pid:  7$"
	# arguments, all checked before anything is printed
	expect_quiet_fail "--tres: '0' is not a number in 1..1000000" \
		"$DAMO" report heats -i "$T/simple.data" --tres 0
	expect_quiet_fail "--ares: '0' is not a number in 1..1000000" \
		"$DAMO" report heats -i "$T/simple.data" --ares 0
	expect_quiet_fail "--range: percentile 150 is out of 0..100" \
		"$DAMO" report wss -i "$T/simple.data" --range 0 200 50
	expect_quiet_fail "--range: percentile -10 is out of 0..100" \
		"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 -r -10 50 20
	expect_quiet_fail "--range: no percentiles from 50 to 10 by 5" \
		"$DAMO" report wss -i "$T/simple.data" --range 50 10 5
	# data-dependent errors too: pid 2 has 4 snapshots, pid 1 more
	expect_quiet_fail "pid 2: no snapshots left after skipping the first 4" \
		"$DAMO" report wss -i "$T/two.data" --skip 4
	expect_quiet_fail "cannot write $T/no/p.png" \
		"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 -p "$T/no/p.png"
	# a descending range is fine
	"$DAMO" report wss -i "$T/simple.data" --skip 0 -r 100 -1 -50 > "$T/out"
	[ "$(grep -v '^#' "$T/out" | cut -f1 | tr '\n' ' ')" = "100 50 0 " ]
	# out of memory: a message and 1, as for any error (10^9 cells)
	( ulimit -v 400000
	  expect_quiet_fail "damo: out of memory" \
		"$DAMO" report heats -i "$T/simple.data" --tres 1000000 --ares 1000 )
}

# ------------------------------------------------------------ formats

# Every fixture in all three formats: the same figures from every report,
# and back to the seed's format byte for byte.
test_formats_same_figures() {
	local r f fmt
	for r in simple two tiny varied; do
		f=$T/$r.data
		"$DAMO" convert -i "$f" -o "$T/$r.json" --format json
		"$DAMO" convert -i "$f" -o "$T/$r.jz" --format json_compressed
		# the default is json_compressed
		"$DAMO" convert -i "$f" -o "$T/$r.dflt"
		cmp "$T/$r.jz" "$T/$r.dflt"
		[ "$(head -c 1 "$T/$r.json")" = "[" ]
		[ "$(head -c 1 "$T/$r.jz" | od -An -tx1 | tr -d ' ')" = 78 ]
		for fmt in json jz; do
			"$DAMO" convert -i "$T/$r.$fmt" -o "$T/$r.back" --format seed
			cmp "$f" "$T/$r.back"
		done
	done
	for r in simple two tiny varied; do
		for fmt in json jz; do
			f=$T/$r.$fmt
			# the content tells the format, not the name
			cp "$f" "$T/$fmt.data"
			f=$T/$fmt.data
			"$DAMO" report raw -i "$T/$r.data" > "$T/a"
			"$DAMO" report raw -i "$f" > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report wss -i "$T/$r.data" --skip 1 > "$T/a"
			"$DAMO" report wss -i "$f" --skip 1 > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report nr_regions -i "$T/$r.data" --skip 0 -s time > "$T/a"
			"$DAMO" report nr_regions -i "$f" --skip 0 -s time > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report heats -i "$T/$r.data" --tres 13 --ares 11 > "$T/a"
			"$DAMO" report heats -i "$f" --tres 13 --ares 11 > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report heats -i "$T/$r.data" --guide > "$T/a"
			"$DAMO" report heats -i "$f" --guide > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report heatmap -i "$T/$r.data" --tres 30 --ares 8 > "$T/a"
			"$DAMO" report heatmap -i "$f" --tres 30 --ares 8 > "$T/b"
			cmp "$T/a" "$T/b"
		done
	done
	# the figures worked out by hand for the seed's format, from JSON
	"$DAMO" report wss -i "$T/simple.jz" --skip 0 | grep -qx "50	12288"
}

# What the JSON reader accepts beyond what damo writes, and what not.
test_formats_json_input() {
	# numbers as numbers, digit groups, members in any order, percent
	# of the intervals' samples, no start_time (the first covers nothing)
	cat > "$T/hand.json" <<-'EOF'
	[ {"snapshots": [
	    {"end_time": 2000000000, "regions": [
	      {"nr_accesses": {"percent": 50}, "start": "4,096", "end": 8192}]},
	    {"end_time": "3000000000", "start_time": "2000000000", "regions": [
	      {"start": 4096, "end": 8192, "nr_accesses": {"samples": 3, "percent": null}}]}],
	   "intervals": {"sample_us": "5000", "aggr_us": 100000, "ops_update_us": "1000000"},
	   "target_id": 9, "unknown": [{"x": [true, false, null, -1.5e3, "\u00e9\ud83d\ude00"]}]} ]
	EOF
	"$DAMO" report raw -i "$T/hand.json" > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	start_time:  2000000000
	rel time:                0
	nr_tasks:  1
	pid:  9
	nr_regions:  1
	000000001000-000000002000(      4096):	10

	rel time:       1000000000
	nr_tasks:  1
	pid:  9
	nr_regions:  1
	000000001000-000000002000(      4096):	3

	EOF
	# the intervals survive a conversion
	"$DAMO" convert -i "$T/hand.json" -o "$T/hand2.json" --format json
	grep -q '"intervals": {"sample_us": "5000", "aggr_us": "100000", "ops_update_us": "1000000"}' "$T/hand2.json"
	printf '[{"snapshots": [{"end_time": 1, "regions": [{"start": 8, "end": 4, "nr_accesses": {"samples": 1}}]}]}]' > "$T/bad.json"
	expect_fail "bad.json: not a DAMON record: JSON offset 97: region end 4 below start 8" \
		"$DAMO" report raw -i "$T/bad.json"
	printf '[{"snapshots": [{"end_time": 1, "regions": []}]}' > "$T/bad.json"
	expect_fail "not a DAMON record: JSON offset 48: expected ',' or ']'" \
		"$DAMO" report wss -i "$T/bad.json"
	printf '[{"snapshots": [{"end_time": "1 s", "regions": []}]}]' > "$T/bad.json"
	expect_fail "end_time: '1 s' is not an integer" \
		"$DAMO" report nr_regions -i "$T/bad.json"
	printf '[{"snapshots": [{"regions": []}]}]' > "$T/bad.json"
	expect_fail "a snapshot without end_time" \
		"$DAMO" report heats -i "$T/bad.json"
	printf '[{"snapshots": [{"end_time": 1, "regions": [{"start": 1, "end": 2, "nr_accesses": {"percent": 5}}]}]}]' > "$T/bad.json"
	expect_fail "nr_accesses: a percent, but no intervals to make it samples" \
		"$DAMO" report heatmap -i "$T/bad.json"
	printf '[1]' > "$T/bad.json"
	expect_fail "JSON offset 1: expected an object, found a number" \
		"$DAMO" report raw -i "$T/bad.json"
	printf '[] x' > "$T/bad.json"
	expect_fail "JSON offset 3: data after the end of the JSON value" \
		"$DAMO" report raw -i "$T/bad.json"
	# compressed: cut short, or not JSON inside
	head -c 100 "$T/varied.jz" > "$T/cut.jz"
	expect_fail "cut.jz: not a DAMON record: zlib-compressed data: truncated" \
		"$DAMO" report raw -i "$T/cut.jz"
	python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(b"{}"))' > "$T/obj.jz"
	expect_fail "obj.jz: not a DAMON record: JSON offset 0: expected an array, found an object" \
		"$DAMO" report raw -i "$T/obj.jz"
	# seed records whose first bytes look like the others' (the seed's
	# format has no magic number): read as seed records all the same
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("=qqIQIQQI", 91, 0, 1, 7, 1, 4096, 8192, 2))' > "$T/bracket.data"
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("=qqIQIQQI", 0x9c78, 0, 1, 7, 1, 4096, 8192, 2))' > "$T/zhead.data"
	[ "$(head -c 1 "$T/bracket.data")" = "[" ]
	"$DAMO" report raw -i "$T/bracket.data" | grep -q "^000000001000-000000002000(      4096):	2$"
	"$DAMO" report raw -i "$T/zhead.data" | grep -q "^000000001000-000000002000(      4096):	2$"
	# --format names
	expect_fail "--format: 'yaml' is not one of json_compressed|json|seed" \
		"$DAMO" convert -i "$T/simple.data" --format yaml
	expect_fail "--format: 'yaml' is not one of json_compressed|json|seed" \
		"$DAMO" record --format yaml true
	expect_fail "cannot read record file $T/none" "$DAMO" convert -i "$T/none" -o "$T/x"
	[ ! -e "$T/x" ]
}

# damonitor/damo reads the records damo writes and reports the same
# figures: wss, nr_regions and every heatmap cell (tests/oracle_cmp.py).
# json_compressed: the oracle tells plain JSON by file(1) printing "JSON
# data", which Debian 12's file(1) does not (it prints "JSON text data").
test_oracle_reads_ours() {
	oracle_ready
	local r
	for r in simple varied; do
		"$DAMO" convert -i "$T/$r.data" -o "$T/$r.o.jz"
		python3 "$HERE/oracle_cmp.py" "$DAMO" "$ORACLE" "$T/$r.o.jz"
	done
	# with monitoring intervals, the oracle's heat is per second
	sed 's|"intervals": null|"intervals": {"sample_us": "5000", "aggr_us": "50000", "ops_update_us": "1000000"}|' \
		"$T/varied.json" > "$T/iv.json"
	"$DAMO" convert -i "$T/iv.json" -o "$T/iv.jz"
	python3 "$HERE/oracle_cmp.py" "$DAMO" "$ORACLE" "$T/iv.jz" --hz 50000
}

# damo reads what damonitor/damo's own writer makes: the fixtures as
# `perf script` text of damon_aggregated, which its convert_record_format
# turns into its JSON records (plain and compressed).
test_ours_reads_oracle() {
	oracle_ready
	local r fmt t0 pid
	for r in simple two varied; do
		case $r in two) python3 "$HERE/mkrec.py" --perf-script twopids "$T/$r.txt" ;;
		*) python3 "$HERE/mkrec.py" --perf-script "$r" "$T/$r.txt" ;;
		esac
		for fmt in json json_compressed; do
			python3 "$ORACLE" convert_record_format --record_file "$T/$r.txt" \
				--format "$fmt" --output_file "$T/$r.oracle"
			if [ "$fmt" = json ]; then
				[ "$(head -c 1 "$T/$r.oracle")" = "[" ]
			else
				[ "$(head -c 1 "$T/$r.oracle" | od -An -tx1 | tr -d ' ')" = 78 ]
			fi
			"$DAMO" report raw -i "$T/$r.data" > "$T/a"
			"$DAMO" report raw -i "$T/$r.oracle" > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report wss -i "$T/$r.data" --skip 1 > "$T/a"
			"$DAMO" report wss -i "$T/$r.oracle" --skip 1 > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report nr_regions -i "$T/$r.data" --skip 0 > "$T/a"
			"$DAMO" report nr_regions -i "$T/$r.oracle" --skip 0 > "$T/b"
			cmp "$T/a" "$T/b"
			# The heats from the first snapshot's time on: the
			# oracle makes the first snapshot cover an average
			# interval before it (the seed's format: nothing).  Not
			# varied's pid 8: a snapshot after one it misses covers
			# both intervals in the oracle's (per target), only the
			# last in the seed's (per record).
			t0=$("$DAMO" report raw -i "$T/$r.data" | sed -n 's/^start_time:  //p')
			case $r in simple) pid=42 ;; two) pid=2 ;; varied) pid=7 ;; esac
			"$DAMO" report heats -i "$T/$r.data" --pid $pid --tmin "$t0" \
				--tres 9 --ares 7 > "$T/a"
			"$DAMO" report heats -i "$T/$r.oracle" --pid $pid --tmin "$t0" \
				--tres 9 --ares 7 > "$T/b"
			cmp "$T/a" "$T/b"
		done
	done
}

test_record_args() {
	expect_fail "sample_us: 'abc' is not a decimal number" \
		"$DAMO" record -s abc true
	expect_fail "record: no target (a PID or a command)" "$DAMO" record -o x
	expect_fail "'0' is not a pid" "$DAMO" record 0
	expect_fail "--context: 'a/b' is not a directory name" \
		"$DAMO" record -c a/b true
	[ ! -e x ]
}

test_help() {
	local c
	for c in record convert save restore clear status version; do
		"$DAMO" "$c" --help | grep -q "^usage: damo $c"
	done
	for c in raw heats heatmap wss nr_regions; do
		"$DAMO" report "$c" --help | grep -q "^usage: damo report"
	done
	"$DAMO" report --help | grep -q "^usage: damo report TYPE"
	"$DAMO" --help | grep -q "^usage: damo COMMAND"
	"$DAMO" --version | grep -q "^damo [0-9]"
	expect_fail "usage: damo COMMAND" "$DAMO"
}

# damo version: one line, the same from every spelling, and the man page's
test_version() {
	local v
	v=$("$DAMO" version)
	[[ "$v" =~ ^damo\ [0-9]+\.[0-9]+(\.[0-9]+)?$ ]]
	[ "$("$DAMO" --version)" = "$v" ]
	[ "$("$DAMO" -V)" = "$v" ]
	"$DAMO" version --help | grep -q "^usage: damo version"
	expect_fail "version takes no arguments" "$DAMO" version x
	# the man page's header names the same version
	grep -q "^\.TH DAMO 1 .* \"$v\" " "$(dirname "$TOOLS")/Documentation/damo.1"
}

# The command lists are generated from damo's command tables: pin the text.
test_usage_text() {
	"$DAMO" --help > "$T/out"
	diff -u - "$T/out" <<'EOF'
usage: damo COMMAND [OPTIONS]

The user-space tool of DAMON's configfs interface (/sys/kernel/config/damon).

commands:
  record    monitor a process and write a record file
  report    report a record: raw, heats, wss, nr_regions, heatmap
  convert   rewrite a record file in another format
  save      write the whole configfs tree to a file
  restore   rebuild the configfs tree from a file
  clear     turn everything off and remove the whole tree
  status    the contexts, targets and schemes, on one screen
  version   print damo's version

Run `damo COMMAND --help` for a command's options; man damo for more.
EOF
	"$DAMO" help | cmp - "$T/out"
	"$DAMO" -h | cmp - "$T/out"
	"$DAMO" report --help > "$T/out"
	diff -u - "$T/out" <<'EOF'
usage: damo report TYPE [OPTIONS]

Report the contents of a record file made by `damo record`, or by
damonitor/damo: JSON, zlib-compressed JSON or the seed's format, told
from the content.

types:
  raw          the record as text
  heats        the access frequency over time and address, as
               "<time> <address> <heat>" lines (or --guide)
  wss          distribution of the working set size
  nr_regions   distribution of the number of regions
  heatmap      the heats as an image (-o FILE.png) or on the terminal

common option: -i, --input FILE (default damon.data)
Run `damo report TYPE --help` for the options of each type.
EOF
	# without a type: the same text, on stderr, and exit 1
	local rc=0
	"$DAMO" report > "$T/out2" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] && cmp "$T/out" "$T/out2"
	expect_fail "unknown report type 'x'" "$DAMO" report x
	# an unknown option: getopt's message and the command's usage
	expect_fail "usage: damo report heats" "$DAMO" report heats --bogus
	expect_fail "usage: damo save" "$DAMO" save --bogus
}

# Every kind of option argument, and what each command says of operands.
test_option_errors() {
	local s=$T/simple.data
	expect_fail "--pid: 'x' is not a pid" "$DAMO" report heats -i "$s" --pid x
	expect_fail "--tmin: '-1' is not a time in ns" \
		"$DAMO" report heats -i "$s" --tmin -1
	expect_fail "--tmax: '9223372036854775808' is not a time in ns" \
		"$DAMO" report heats -i "$s" --tmax 9223372036854775808
	expect_fail "--ares: '1000001' is not a number in 1..1000000" \
		"$DAMO" report heats -i "$s" --ares 1000001
	expect_fail "--tres: '0' is not a number in 1..1000000" \
		"$DAMO" report heatmap -i "$s" --tres 0
	expect_fail "--amax: 'x' is not an address" \
		"$DAMO" report heatmap -i "$s" --amax x
	expect_fail "--term and --title are for \`damo report heatmap\`" \
		"$DAMO" report heats -i "$s" --term
	expect_fail "--skip: 'x' is not a number" "$DAMO" report wss -i "$s" --skip x
	expect_fail "--range: 'x' is not a percentile" \
		"$DAMO" report wss -i "$s" -r 0 x 5
	expect_fail "--range: '1001' is not a percentile" \
		"$DAMO" report nr_regions -i "$s" -r 0 1001 5
	expect_fail "unexpected argument 'extra'" "$DAMO" report raw -i "$s" extra
	expect_fail "unexpected argument 'extra'" "$DAMO" report wss extra -i "$s"
	# heats takes its options after an operand too (getopt permutes)
	expect_fail "unexpected argument 'extra'" "$DAMO" report heats extra -i "$s"
	expect_fail "--wait: '86401' is not a number of seconds" \
		"$DAMO" restore --wait 86401
	expect_fail "--rbuf: 'x' is not a decimal number" "$DAMO" record -l x true
	expect_fail "max_nr_regions: 'x' is not a decimal number" \
		"$DAMO" record -m x true
	expect_fail "min_nr_regions: '' is not a decimal number" \
		"$DAMO" record --minr= true
	expect_fail "save: too many arguments" "$DAMO" save a b
	expect_fail "restore: too many arguments" "$DAMO" restore a b
	expect_fail "clear takes no arguments" "$DAMO" clear x
	# record stops at its target: what follows is the command's
	DAMO_CONFIGFS=$T/nothing expect_fail "$T/nothing/contexts" \
		"$DAMO" record -o "$T/r.data" true -s abc
	[ ! -e "$T/r.data" ]
}

# ------------------------------------------------------------ configfs

# A stand-in configfs root: enough for the checks that come before any
# change (the kernel's own behaviour is tested in selftests/90-damo.bats).
test_no_configfs() {
	DAMO_CONFIGFS=$T/nothing expect_fail \
		"$T/nothing/contexts: No such file or directory (is configfs mounted" \
		"$DAMO" record -o "$T/r.data" true
	[ ! -e "$T/r.data" ]
	DAMO_CONFIGFS=$T/nothing expect_fail "$T/nothing/contexts" "$DAMO" clear
	DAMO_CONFIGFS=$T/nothing expect_fail "$T/nothing/contexts" "$DAMO" save -
}

test_restore_dry_run() {
	mkdir -p "$T/cfs/contexts"
	cat > "$T/ok.conf" <<-EOF
	# a comment
	context web {
		aggr_us 200000
		target app {
			pid $$
		}
		scheme s {
			action stat
			filter f {
				type target
				target app
			}
		}
		state on
	}
	EOF
	DAMO_CONFIGFS=$T/cfs "$DAMO" restore --dry-run "$T/ok.conf" > "$T/out"
	diff -u - "$T/out" <<-EOF
	mkdir $T/cfs/contexts/web
	echo 200000 > $T/cfs/contexts/web/aggr_us
	mkdir $T/cfs/contexts/web/targets/app
	echo $$ > $T/cfs/contexts/web/targets/app/pid
	mkdir $T/cfs/contexts/web/schemes/s
	echo stat > $T/cfs/contexts/web/schemes/s/action
	mkdir $T/cfs/contexts/web/schemes/s/filters/f
	echo target > $T/cfs/contexts/web/schemes/s/filters/f/type
	echo app > $T/cfs/contexts/web/schemes/s/filters/f/target
	echo on > $T/cfs/contexts/web/state
	EOF
	# a process named by its command line (a unique one)
	sleep "300.$$" &
	local sp=$!
	sed "s|pid $$|command sleep 300.$$|" "$T/ok.conf" > "$T/cmd.conf"
	DAMO_CONFIGFS=$T/cfs "$DAMO" restore --dry-run "$T/cmd.conf" > "$T/out"
	kill "$sp"
	grep -qx "echo $sp > $T/cfs/contexts/web/targets/app/pid" "$T/out"
	# --wait: a process that appears while restore waits for it
	sed "s|pid $$|command sleep 302.$$|" "$T/ok.conf" > "$T/wait.conf"
	(sleep 0.5; exec sleep "302.$$") &
	sp=$!
	DAMO_CONFIGFS=$T/cfs "$DAMO" restore --dry-run --wait 60 "$T/wait.conf" > "$T/out"
	kill "$sp"
	grep -qx "echo $sp > $T/cfs/contexts/web/targets/app/pid" "$T/out"
	DAMO_CONFIGFS=$T/cfs expect_fail "wait.conf:5: target app: no process runs 'sleep 302.$$'" \
		"$DAMO" restore --dry-run --wait 1 "$T/wait.conf"
	# checked before anything: a name that exists, a broken file
	mkdir "$T/cfs/contexts/web"
	DAMO_CONFIGFS=$T/cfs expect_fail \
		"ok.conf:2: context web exists already; nothing changed" \
		"$DAMO" restore "$T/ok.conf"
	printf 'context x {\n\ttarget t {\n\t\tunit nosuch-damo-test\n\t}\n}\n' > "$T/unit.conf"
	DAMO_CONFIGFS=$T/cfs expect_fail \
		"unit.conf:3: target t: no process runs 'nosuch-damo-test'" \
		"$DAMO" restore "$T/unit.conf"
	printf 'context x {\n\tmax_nr_regions 0\n}\n' > "$T/bad.conf"
	DAMO_CONFIGFS=$T/cfs expect_fail \
		"bad.conf:2: max_nr_regions: 0 is out of range 3..100000" \
		"$DAMO" restore "$T/bad.conf"
	printf 'context x {\0}\n' > "$T/bin.conf"
	DAMO_CONFIGFS=$T/cfs expect_fail "not a text file" \
		"$DAMO" restore "$T/bin.conf"
	DAMO_CONFIGFS=$T/cfs expect_fail "cannot read $T/none.conf" \
		"$DAMO" restore "$T/none.conf"
	[ "$(ls "$T/cfs/contexts")" = web ]
}

# restore --boot: pid targets refused before anything; command and unit
# targets go on.
test_restore_boot() {
	mkdir -p "$T/bt/contexts"
	cat > "$T/pid.conf" <<-EOF
	context web {
		target app {
			command sleep 304.$$
		}
		target old {
			pid $$
		}
	}
	context db {
		target d {
			pid 1
		}
	}
	EOF
	DAMO_CONFIGFS=$T/bt expect_fail \
		"pid.conf:6: target old is pid $$: pids do not survive a reboot; name it by \"command CMDLINE\" or \"unit NAME\"" \
		"$DAMO" restore --boot --made "$T/bt.made" "$T/pid.conf"
	DAMO_CONFIGFS=$T/bt expect_fail "pid.conf:11: target d is pid 1" \
		"$DAMO" restore --boot --dry-run "$T/pid.conf"
	# refused even where there is no DAMON: a clear message, nothing else
	DAMO_CONFIGFS=$T/nothing expect_quiet_fail "pid.conf: not restored at boot; nothing changed" \
		"$DAMO" restore --boot "$T/pid.conf"
	[ -z "$(ls "$T/bt/contexts")" ] && [ ! -e "$T/bt.made" ]
	# without --boot, the same file is fine
	sleep "304.$$" &
	local sp=$!
	DAMO_CONFIGFS=$T/bt "$DAMO" restore --dry-run "$T/pid.conf" > "$T/out"
	grep -qx "echo $$ > $T/bt/contexts/web/targets/old/pid" "$T/out"
	# command- and unit-named targets: resolved as ever
	sed '/target old {/,/}/d; /^context db/,$d' "$T/pid.conf" > "$T/cmd.conf"
	DAMO_CONFIGFS=$T/bt "$DAMO" restore --boot --dry-run "$T/cmd.conf" > "$T/out"
	kill "$sp"
	grep -qx "echo $sp > $T/bt/contexts/web/targets/app/pid" "$T/out"
	printf 'context u {\n\ttarget t {\n\t\tunit nosuch-damo-test\n\t}\n}\n' > "$T/unit.conf"
	DAMO_CONFIGFS=$T/bt expect_fail "unit.conf:3: target t: no process runs 'nosuch-damo-test'" \
		"$DAMO" restore --boot "$T/unit.conf"
	[ -z "$(ls "$T/bt/contexts")" ]
}

# restore --made LIST, clear --only-from LIST: only what restore made goes.
# A stand-in root has no default groups or attribute files, so these
# contexts have none, and clear, finding no state file to write "off" to,
# says so (exit 1) but removes the directories as asked.
test_restore_made_clear() {
	local C=$T/mc/contexts
	mkdir -p "$C/hand" "$C/rec"
	printf 'context a {\n}\ncontext b {\n}\n' > "$T/mc.conf"
	DAMO_CONFIGFS=$T/mc "$DAMO" restore --boot --made "$T/mc.made" "$T/mc.conf"
	[ "$(ls "$C" | tr '\n' ' ')" = "a b hand rec " ]
	[ "$(grep -v '^#' "$T/mc.made" | tr '\n' ' ')" = "a b " ]
	DAMO_CONFIGFS=$T/mc expect_fail "writing 'off' to $C/b/state" \
		"$DAMO" clear --only-from "$T/mc.made"
	[ "$(ls "$C" | tr '\n' ' ')" = "hand rec " ]
	# gone already: skipped; a bad list: nothing removed
	DAMO_CONFIGFS=$T/mc "$DAMO" clear --only-from "$T/mc.made"
	printf 'a\n../hand\n' > "$T/bad.made"
	DAMO_CONFIGFS=$T/mc expect_fail "bad.made:2: '../hand' is not a context name; nothing removed" \
		"$DAMO" clear --only-from "$T/bad.made"
	DAMO_CONFIGFS=$T/mc expect_fail "cannot read $T/none.made" \
		"$DAMO" clear --only-from "$T/none.made"
	[ "$(ls "$C" | tr '\n' ' ')" = "hand rec " ]
	# a failed restore leaves no list behind
	printf 'context hand {\n}\n' > "$T/mc2.conf"
	DAMO_CONFIGFS=$T/mc expect_fail "context hand exists already" \
		"$DAMO" restore --made "$T/mc2.made" "$T/mc2.conf"
	[ ! -e "$T/mc2.made" ]
	chmod 0555 "$C"
	if [ ! -w "$C" ]; then	# (root writes anyway)
		printf 'context z {\n}\n' > "$T/mc3.conf"
		DAMO_CONFIGFS=$T/mc expect_fail "making $C/z" \
			"$DAMO" restore --made "$T/mc3.made" "$T/mc3.conf"
		[ ! -e "$T/mc3.made" ]
	fi
	chmod 0755 "$C"
	# plain clear still removes everything
	DAMO_CONFIGFS=$T/mc expect_fail "writing 'off' to $C/hand/state" "$DAMO" clear
	[ -z "$(ls "$C")" ]
}

# save reads nothing but directories and files: a stand-in tree will do.
test_save_standin() {
	local c=$T/sv/contexts/a
	mkdir -p "$c/targets/t/regions" "$c/schemes"
	for f in operations:vaddr sample_us:5000 aggr_us:100000 \
		update_us:1000000 min_nr_regions:10 max_nr_regions:1000 state:off; do
		echo "${f#*:}" > "$c/${f%%:*}"
	done
	echo -1 > "$c/targets/t/pid"
	DAMO_CONFIGFS=$T/sv "$DAMO" save "$T/sv.conf"
	# (not <<-: the expected text has tabs)
	diff -u - "$T/sv.conf" <<'EOF'
# DAMON configfs setup (damo save); restore with `damo restore FILE`.

context a {
	operations vaddr
	sample_us 5000
	aggr_us 100000
	update_us 1000000
	min_nr_regions 10
	max_nr_regions 1000
	target t {
	}
	state off
}
EOF
	rm "$c/aggr_us"
	DAMO_CONFIGFS=$T/sv expect_fail "reading $c/aggr_us: No such file or directory" \
		"$DAMO" save "$T/sv2.conf"
	[ ! -e "$T/sv2.conf" ]
}

# status reads nothing but directories and files: a stand-in tree will do.
test_status_standin() {
	local R=$T/st c kv
	local -a vals
	c=$R/contexts/web
	mkdir -p "$c/targets/app" "$c/targets/other" "$R/contexts/idle/targets" \
		"$R/contexts/idle/schemes" "$c/schemes/reclaim/stats" \
		"$c/schemes/reclaim/quotas" "$c/schemes/s2/stats" "$c/schemes/s2/quotas"
	# w DIR KEY=VALUE...: files of a stand-in directory
	w() {
		local d=$1 kv
		shift
		for kv; do echo "${kv#*=}" > "$d/${kv%%=*}"; done
	}
	w "$c" state=on kdamond_pid=1234 operations=vaddr nr_aggregations=412 \
		sample_us=5000 aggr_us=100000 update_us=1000000 \
		min_nr_regions=10 max_nr_regions=1000
	w "$R/contexts/idle" state=off kdamond_pid=-1 operations=fvaddr \
		nr_aggregations=1 sample_us=2500 aggr_us=50000 update_us=1500 \
		min_nr_regions=3 max_nr_regions=100
	w "$c/targets/app" pid=4321
	printf '4096 8192 0 3\n8192 16384 5 1\n16384 20480 0 7\n' > "$c/targets/app/snapshot"
	w "$c/targets/other" pid=-1
	: > "$c/targets/other/snapshot"
	w "$c/schemes/reclaim" action=pageout apply_interval_us=0
	w "$c/schemes/reclaim/stats" nr_tried=12 sz_tried=50331648 nr_applied=1 \
		sz_applied=1572864 qt_exceeds=3
	w "$c/schemes/reclaim/quotas" ms=10 bytes=104857600 \
		reset_interval_ms=1000 effective_bytes=83886080
	w "$c/schemes/s2" action=stat apply_interval_us=2000000
	w "$c/schemes/s2/stats" nr_tried=0 sz_tried=0 nr_applied=0 \
		sz_applied=0 qt_exceeds=0
	w "$c/schemes/s2/quotas" ms=0 bytes=0 reset_interval_ms=1000 \
		effective_bytes=0
	DAMO_CONFIGFS=$R "$DAMO" status > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	context idle: off, no kdamond, fvaddr, 1 aggregation
	  intervals: sample 2500 us, aggr 50 ms, update 1500 us; 3..100 regions
	  no targets
	  no schemes
	context web: on, kdamond pid 1234, vaddr, 412 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target app: pid 4321, 3 regions
	  target other: no pid, 0 regions
	  scheme reclaim: pageout, every aggregation
	    tried 12 regions (48 MiB), applied 1 region (1.5 MiB)
	    quota: 100 MiB and 10 ms per 1 s, effective 80 MiB, exceeded 3 times
	  scheme s2: stat, every 2 s
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: none
	EOF
	# --json: the schema of the man page, numbers as numbers, -1 as null
	DAMO_CONFIGFS=$R "$DAMO" status --json > "$T/st.json"
	python3 - "$T/st.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert list(d) == ["contexts"], d
	idle, web = d["contexts"]
	assert idle == {"name": "idle", "state": "off", "kdamond_pid": None,
	                "operations": "fvaddr", "nr_aggregations": 1,
	                "sample_us": 2500, "aggr_us": 50000, "update_us": 1500,
	                "min_nr_regions": 3, "max_nr_regions": 100,
	                "targets": [], "schemes": []}, idle
	assert web["kdamond_pid"] == 1234 and web["state"] == "on"
	assert web["targets"] == [
	    {"name": "app", "pid": 4321, "nr_regions": 3},
	    {"name": "other", "pid": None, "nr_regions": 0}], web["targets"]
	r = web["schemes"][0]
	assert r == {"name": "reclaim", "action": "pageout", "apply_interval_us": 0,
	             "stats": {"nr_tried": 12, "sz_tried": 50331648, "nr_applied": 1,
	                       "sz_applied": 1572864, "qt_exceeds": 3},
	             "quotas": {"ms": 10, "bytes": 104857600,
	                        "reset_interval_ms": 1000,
	                        "effective_bytes": 83886080}}, r
	assert web["schemes"][1]["apply_interval_us"] == 2000000
	EOF
	# names are JSON strings, whatever they hold
	mv "$R/contexts/idle" "$R/contexts/i\"d\\le"
	DAMO_CONFIGFS=$R "$DAMO" status --json |
		python3 -c 'import json, sys; assert json.load(sys.stdin)["contexts"][0]["name"] == "i\"d\\le"'
	# an empty tree
	mkdir -p "$T/st0/contexts"
	DAMO_CONFIGFS=$T/st0 "$DAMO" status | grep -qx "no contexts in $T/st0/contexts"
	[ "$(DAMO_CONFIGFS=$T/st0 "$DAMO" status --json)" = '{"contexts": []}' ]
	# a file that is missing or not a number: the path, and no output
	mv "$c/schemes/reclaim/stats/qt_exceeds" "$T/qt"
	DAMO_CONFIGFS=$R expect_quiet_fail \
		"reading $c/schemes/reclaim/stats/qt_exceeds: No such file or directory" \
		"$DAMO" status
	mv "$T/qt" "$c/schemes/reclaim/stats/qt_exceeds"
	echo abc > "$c/targets/app/pid"
	DAMO_CONFIGFS=$R expect_quiet_fail "$c/targets/app/pid: 'abc' is not a number" \
		"$DAMO" status --json
	DAMO_CONFIGFS=$T/nothing expect_quiet_fail "$T/nothing/contexts" "$DAMO" status
	expect_fail "status takes no arguments" "$DAMO" status x
}

# ------------------------------------------------------------ install

test_install_unit() {
	make -s -C "$TOOLS" install PREFIX="$T/inst/usr" > "$T/out" 2>&1 ||
		{ cat "$T/out"; return 1; }
	[ -x "$T/inst/usr/bin/damo" ]
	[ -f "$T/inst/usr/share/man/man1/damo.1" ]
	local u=$T/inst/usr/lib/systemd/system/damon-restore.service
	grep -qx "ExecStart=$T/inst/usr/bin/damo restore --boot --wait 30 --made /run/damon-restore/contexts /etc/damon/damon.conf" "$u"
	grep -qx "ExecStop=$T/inst/usr/bin/damo clear --only-from /run/damon-restore/contexts" "$u"
	grep -qx "RuntimeDirectory=damon-restore" "$u"
	grep -qx "ConditionPathIsDirectory=/sys/kernel/config/damon" "$u"
	# the drop-in advice orders, it does not pull the application in
	grep -q '"After=myapp.service"' "$u"
	! grep -q 'Wants=' "$u"
	grep -qx "Type=oneshot" "$u"
	grep -qx "RemainAfterExit=yes" "$u"
	grep -qx "Requires=sys-kernel-config.mount" "$u"
	grep -qx "After=sys-kernel-config.mount" "$u"
	command -v man > /dev/null && MANPATH=$T/inst/usr/share/man man -w damo > /dev/null
	command -v systemd-analyze > /dev/null ||
		skip "no systemd-analyze (apt-get install systemd)"
	# with the man page findable, as Documentation=man:damo(1) is checked
	MANPATH=$T/inst/usr/share/man systemd-analyze verify "$u"
	# and it does catch a broken unit
	sed 's|^ExecStart=/|ExecStart=|' "$u" > "$T/damon-restore.service"
	! MANPATH=$T/inst/usr/share/man systemd-analyze verify \
		"$T/damon-restore.service" 2> /dev/null
}

t "report raw: the seed's text, byte for byte" test_raw
t "report wss: percentiles, average, --skip, --range" test_wss
t "report nr_regions: by size and in time order" test_nr_regions
t "report heats: the grid worked out by hand" test_heats
t "report heats --guide: time spans and ranges per pid" test_guide
t "report heatmap on a terminal: characters and colours" test_heatmap_term
t "report heatmap -o and wss/nr_regions --plot: PNGs" test_heatmap_png
t "report: errors name the file, option or value" test_report_errors
t "bad inputs: empty, cut, corrupt, swapped records; arguments; OOM" test_bad_inputs
t "record formats: json and json_compressed give the seed's figures" test_formats_same_figures
t "record formats: JSON input variants and errors; told by content" test_formats_json_input
t "oracle: damonitor/damo reports our records with our figures" test_oracle_reads_ours
t "oracle: damo reads records damonitor/damo's writer made" test_ours_reads_oracle
t "record: option and target errors" test_record_args
t "--help for every command and report type" test_help
t "damo version: every spelling; the man page agrees" test_version
t "usage texts: the command and report type lists" test_usage_text
t "option arguments: every kind's error; operands" test_option_errors
t "no configfs: a clear message, nothing written" test_no_configfs
t "restore --dry-run: checks, resolves, prints the writes in order" test_restore_dry_run
t "restore --boot: pid targets refused; command and unit targets resolved" test_restore_boot
t "restore --made, clear --only-from: only the contexts restored go" test_restore_made_clear
t "save: the file format, and read errors name the file" test_save_standin
t "status: text and --json of a stand-in tree; errors" test_status_standin
t "make install; systemd-analyze verify on damon-restore.service" test_install_unit

echo "# cli: $passed passed, $failed failed, $skipped skipped"
echo "$passed $failed $skipped" > "$COUNTS"
[ "$failed" -eq 0 ]
