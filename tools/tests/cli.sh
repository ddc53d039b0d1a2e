#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the damo command line: every report on crafted records
# (tests/mkrec.py) against answers worked out by hand, the same figures
# from the record formats (seed, json, json_compressed), damonitor/damo
# (the oracle, if beside the checkout) reading our records and we its, the
# error messages,
# --help everywhere, restore --dry-run against a stand-in configfs root,
# save/restore/status/clear on stand-in and configfs-like trees
# (tests/fakecfs.so), the ready-made policies, make install (DESTDIR too),
# and systemd-analyze verify on the installed units.
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
	"$DAMO" report raw -i "$T/tiny.data" --raw-numbers > "$T/out"
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
	"$DAMO" report wss -i "$T/simple.data" --raw-numbers > "$T/out"
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
	"$DAMO" report wss -i "$T/simple.data" --skip 0 --raw-numbers > "$T/out"
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
	"$DAMO" report wss -i "$T/simple.data" --skip 0 -r 0 100 40 --raw-numbers > "$T/out"
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

# ---- report units, --raw-numbers and --json (issue 17, section 3)

# Units by default; --raw-numbers is the seed's text (test_raw, test_wss).
test_report_units() {
	"$DAMO" report raw -i "$T/tiny.data" > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	start_time:  1000 s
	rel time:             0 ns
	nr_tasks:  1
	pid:  1348
	nr_regions:  2
	560189609000-56018abce000(  21.8 MiB):	0
	7fbdff59a000-7fbdffaf1a00(   5.3 MiB):	1

	rel time:         100.0 ms
	nr_tasks:  1
	pid:  1348
	nr_regions:  1
	560189609000-56018abce000(  21.8 MiB):	2

	EOF
	"$DAMO" report wss -i "$T/simple.data" --skip 0 > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	# <percentile> <wss>
	# pid	42
	# avr:	10.4 KiB
	0	8 KiB
	25	8 KiB
	50	12 KiB
	75	12 KiB
	100	12 KiB
	EOF
	# numbers of regions are counts: the same either way
	"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 > "$T/a"
	"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 --raw-numbers |
		cmp - "$T/a"
	# the edges of the units: below 1 KiB, whole, a tenth, just below the
	# next unit (1.0 MiB, not 1024.0 KiB); times from ns to s, and a
	# snapshot before the first
	python3 -c '
import struct, sys
def snap(sec, nsec, regions):
    b = struct.pack("=qqIQI", sec, nsec, 1, 7, len(regions))
    for s, e in regions:
        b += struct.pack("=QQI", s, e, 1)
    return b
a, regs = 1 << 20, []
for size in (1023, 1024, 1536, 1048575, 2 << 30, (1 << 48) - 1):
    regs.append((a, a + size))
    a += size + 4096
out = snap(5, 0, regs)
for sec, nsec in ((5, 999), (5, 1500), (5, 2000000), (95, 0), (4, 999000000)):
    out += snap(sec, nsec, [(4096, 8192)])
sys.stdout.buffer.write(out)' > "$T/units.data"
	"$DAMO" report raw -i "$T/units.data" > "$T/out"
	[ "$(grep -o '( *[^)]*)' "$T/out" | head -6 | tr -s ' ' | tr '\n' ,)" = \
		"( 1023 B),( 1 KiB),( 1.5 KiB),( 1.0 MiB),( 2 GiB),( 256.0 TiB)," ]
	[ "$(sed -n 's/^rel time: *//p' "$T/out" | tr '\n' ,)" = \
		"0 ns,999 ns,1.5 us,2 ms,90 s,-1 ms," ]
	grep -qx "start_time:  5 s" "$T/out"
	"$DAMO" report raw -i "$T/units.data" --raw-numbers |
		sed -n 's/^rel time: *//p' | tr '\n' , |
		grep -qx "0,999,1500,2000000,90000000000,-1000000,"
}

# --json: the schemas of the man page, with the figures of --raw-numbers.
test_report_json() {
	local r
	for r in tiny two varied simple; do
		"$DAMO" report raw -i "$T/$r.data" --json > "$T/r.json"
		"$DAMO" report raw -i "$T/$r.data" --raw-numbers > "$T/r.txt"
		python3 - "$T/r.json" "$T/r.txt" <<-'EOF'
		import json, re, sys
		d = json.load(open(sys.argv[1]))
		text = open(sys.argv[2]).read()
		assert list(d) == ["start_time_ns", "intervals", "snapshots"], list(d)
		assert d["intervals"] is None
		assert text.startswith("start_time:  %d\n" % d["start_time_ns"])
		lines = []
		for s in d["snapshots"]:
		    assert s["rel_time_ns"] == s["time_ns"] - d["start_time_ns"]
		    lines.append("rel time: %16d" % s["rel_time_ns"])
		    lines.append("nr_tasks:  %d" % len(s["tasks"]))
		    for t in s["tasks"]:
		        lines += ["pid:  %d" % t["pid"], "nr_regions:  %d" % t["nr_regions"]]
		        assert t["nr_regions"] == len(t["regions"])
		        for g in t["regions"]:
		            assert g["size"] == g["end"] - g["start"]
		            lines.append("%012x-%012x(%10d):\t%d" % (g["start"], g["end"],
		                         g["size"], g["nr_accesses"]))
		        lines.append("")
		assert text.split("\n")[1:-1] == lines, "the JSON and the text differ"
		EOF
	done
	# a record with intervals (damonitor/damo's JSON)
	printf '[{"snapshots": [{"end_time": 2000000000, "regions": [{"start": 4096, "end": 8192, "nr_accesses": {"samples": 3}}]}], "intervals": {"sample_us": 5000, "aggr_us": 100000, "ops_update_us": 1000000}, "target_id": 9}]' > "$T/iv.json"
	"$DAMO" report raw -i "$T/iv.json" --json |
		python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["intervals"] == {"sample_us": 5000, "aggr_us": 100000, "update_us": 1000000}, d; assert d["snapshots"][0]["tasks"][0]["pid"] == 9'
	# wss and nr_regions: every figure of the text, in both orders
	for r in "simple.data --skip 0" "two.data --skip 0 -r 0 101 50" \
		"varied.data --skip 1 -s time -r 100 -1 -30"; do
		for m in wss nr_regions; do
			"$DAMO" report $m -i $T/$r --json > "$T/d.json"
			"$DAMO" report $m -i $T/$r --raw-numbers > "$T/d.txt"
			python3 - "$T/d.json" "$T/d.txt" "$m" "$r" <<-'EOF'
			import json, sys
			d = json.load(open(sys.argv[1]))
			m, args = sys.argv[3], sys.argv[4].split()
			assert d["metric"] == m and d["unit"] == ("bytes" if m == "wss" else "regions")
			assert d["sortby"] == ("time" if "time" in args else "size")
			assert d["skip"] == int(args[args.index("--skip") + 1])
			lines = ["# <percentile> <%s>" % ("wss" if m == "wss" else "# regions")]
			for t in d["targets"]:
			    assert t["nr_snapshots"] > 0
			    lines += ["# pid\t%d" % t["pid"], "# avr:\t%d" % t["average"]]
			    lines += ["%d\t%d" % (p["percentile"], p["value"]) for p in t["percentiles"]]
			assert open(sys.argv[2]).read().split("\n")[:-1] == lines, (lines, sys.argv)
			EOF
		done
	done
	"$DAMO" report wss -i "$T/simple.data" --skip 0 -r 50 51 1 --json |
		python3 -c 'import json, sys; t = json.load(sys.stdin)["targets"]; assert t == [{"pid": 42, "nr_snapshots": 25, "average": 10649, "percentiles": [{"percentile": 50, "value": 12288}]}], t'
	# --plot draws all the same
	"$DAMO" report wss -i "$T/simple.data" --skip 0 --json --plot "$T/j.png" |
		python3 -m json.tool > /dev/null
	[ -s "$T/j.png" ]
	# errors: a message, exit 1 and no JSON
	expect_quiet_fail "pid 2: no snapshots left after skipping the first 4" \
		"$DAMO" report wss -i "$T/two.data" --skip 4 --json
	expect_quiet_fail "not a DAMON record: the file is empty" \
		"$DAMO" report raw -i /dev/null --json
	expect_quiet_fail "option '--json' doesn't allow an argument" \
		"$DAMO" report nr_regions -i "$T/simple.data" --json=yes
	expect_quiet_fail "option '--raw-numbers' doesn't allow an argument" \
		"$DAMO" report raw -i "$T/simple.data" --raw-numbers=1
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
	"$DAMO" report wss -i "$T/two.data" --skip 0 -r 0 101 100 --raw-numbers > "$T/out"
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
	"$DAMO" report wss -i "$T/simple.data" --skip 0 --plot "$T/p.png" --raw-numbers > "$T/out"
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
			"$DAMO" report raw -i "$T/$r.data" --raw-numbers > "$T/a"
			"$DAMO" report raw -i "$f" --raw-numbers > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report wss -i "$T/$r.data" --skip 1 --raw-numbers > "$T/a"
			"$DAMO" report wss -i "$f" --skip 1 --raw-numbers > "$T/b"
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
	"$DAMO" report wss -i "$T/simple.jz" --skip 0 --raw-numbers | grep -qx "50	12288"
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
	"$DAMO" report raw -i "$T/hand.json" --raw-numbers > "$T/out"
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
	"$DAMO" report raw -i "$T/bracket.data" --raw-numbers | grep -q "^000000001000-000000002000(      4096):	2$"
	"$DAMO" report raw -i "$T/zhead.data" --raw-numbers | grep -q "^000000001000-000000002000(      4096):	2$"
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
			"$DAMO" report raw -i "$T/$r.data" --raw-numbers > "$T/a"
			"$DAMO" report raw -i "$T/$r.oracle" --raw-numbers > "$T/b"
			cmp "$T/a" "$T/b"
			"$DAMO" report wss -i "$T/$r.data" --skip 1 --raw-numbers > "$T/a"
			"$DAMO" report wss -i "$T/$r.oracle" --skip 1 --raw-numbers > "$T/b"
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
			t0=$("$DAMO" report raw -i "$T/$r.data" --raw-numbers | sed -n 's/^start_time:  //p')
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

# The options of issue 17 (section 3) in --help and in the man page.
test_help_new_options() {
	local man=$TOOLS/../Documentation/damo.1 c o
	for c in raw wss nr_regions; do
		for o in --json --raw-numbers; do
			"$DAMO" report $c --help | grep -q -- "^ *$o "
		done
	done
	"$DAMO" status --help | grep -q -- "^ *--raw-numbers "
	"$DAMO" save --help | grep -q -- "^ *--by-unit "
	"$DAMO" save --help | grep -q -- "^ *--json "
	"$DAMO" restore --help | grep -q "JSON"
	for o in 'raw\\-numbers' 'by\\-unit' 'json' DAMO_PROC DAMO_CGROUP DAMO_SYSTEMCTL; do
		grep -q -- "$o" "$man"
	done
	# every JSON schema of the man page is there: raw, wss/nr_regions,
	# save, status
	[ "$(grep -c '^{"' "$man")" -ge 4 ]
	# intervals_goal in save's and status's, the estimates in status's
	[ "$(grep -c '^ *"intervals_goal": {"access_bp": N, "aggrs": N, "min_sample_us": N,$' "$man")" = 2 ]
	grep -q '^ *"estimated_memory_bandwidth": N|null,$' "$man"
	grep -q '^ *"memory_idle_us_percentiles": {"p0": N, "p10": N, ..., "p100": N}|null,$' "$man"
	grep -q '^\.SH POLICIES$' "$man"
	"$DAMO" status --help | grep -q "bandwidth"
	"$DAMO" save --help | grep -q "intervals_goal"
	"$DAMO" restore --help | grep -q "intervals_goal"
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

# ---- save --by-unit; restore of unit targets (issue 17, section 3)

# A stand-in for systemd: /proc/PID/cgroup of five processes, a cgroup tree
# and a systemctl answering MainPID from $BU/main.UNIT; configfs targets
# of those processes.  $1: the directory.
bu_setup() {
	local B=$1 G=$1/cg c=$1/cfs/contexts/web u
	local usr=user.slice/user-1000.slice
	mkdir -p "$G/system.slice/app.service" "$G/system.slice/box.service/payload" \
		"$G/$usr/user@1000.service/app.slice/ed.service" "$G/$usr/session-7.scope"
	# the root's own cgroup.procs: a mounted tree, not an empty directory
	: > "$G/cgroup.procs"
	printf '4001\n4002\n' > "$G/system.slice/app.service/cgroup.procs"
	: > "$G/system.slice/box.service/cgroup.procs"
	echo 4006 > "$G/system.slice/box.service/payload/cgroup.procs"
	echo 4003 > "$G/$usr/user@1000.service/app.slice/ed.service/cgroup.procs"
	echo 4004 > "$G/$usr/session-7.scope/cgroup.procs"
	for u in 4001:system.slice/app.service 4003:$usr/user@1000.service/app.slice/ed.service \
		4004:$usr/session-7.scope 4005: 4006:system.slice/box.service/payload; do
		mkdir -p "$B/proc/${u%%:*}"
		echo "0::/${u#*:}" > "$B/proc/${u%%:*}/cgroup"
	done
	# cgroup v1: a line per hierarchy
	mkdir -p "$B/proc/4002"
	printf '12:pids:/system.slice/app.service\n1:name=systemd:/system.slice/app.service\n0::/system.slice/app.service\n' \
		> "$B/proc/4002/cgroup"
	printf 'myjob\0--fast\0' > "$B/proc/4005/cmdline"
	echo 4001 > "$B/main.app.service"
	cat > "$B/systemctl" <<-EOF
	#!/bin/sh
	[ "\$1 \$2 \$3 \$4 \$5" = "show -p MainPID --value --" ] || exit 2
	cat "$B/main.\$6" 2>/dev/null || echo 0
	EOF
	chmod +x "$B/systemctl"
	sv_files "$c" operations=vaddr sample_us=5000 aggr_us=100000 \
		update_us=1000000 min_nr_regions=10 max_nr_regions=1000 state=on
	mkdir -p "$c/schemes"
	for u in svc:4001 wrk:4002 usr:4003 scp:4004 none:4005; do
		sv_files "$c/targets/${u%%:*}" pid=${u#*:}
		mkdir -p "$c/targets/${u%%:*}/regions"
	done
}

test_save_by_unit() {
	local B=$T/bu
	bu_setup "$B"
	export DAMO_CONFIGFS=$B/cfs DAMO_PROC=$B/proc DAMO_CGROUP=$B/cg \
		DAMO_SYSTEMCTL=$B/systemctl
	"$DAMO" save --by-unit - > "$T/bu.conf" 2> "$T/err"
	[ "$(sed -n 's/^\t\t\(pid\|unit\) //p' "$T/bu.conf" | tr '\n' ,)" = \
		"4005,session-7.scope,app.service,ed.service,app.service," ]
	diff -u - "$T/err" <<-'EOF'
	damo: warning: target none: pid 4005 is in no systemd service or scope, saving the pid
	damo: warning: target wrk: pid 4002 is not the main process of app.service (pid 4001), which restore will take
	EOF
	# with --by-command: a process in no unit by its command line
	"$DAMO" save --by-unit --by-command "$T/bu.conf" 2> "$T/err"
	grep -qx "		command myjob --fast" "$T/bu.conf"
	! grep -q "target none" "$T/err" || false
	"$DAMO" save --by-unit --by-command --json "$T/bu.json" 2> /dev/null
	python3 - "$T/bu.json" <<-'EOF'
	import json, sys
	t = json.load(open(sys.argv[1]))["contexts"][0]["targets"]
	assert [{k: v for k, v in x.items() if k != "regions"} for x in t] == [
	    {"name": "none", "command": "myjob --fast"},
	    {"name": "scp", "unit": "session-7.scope"},
	    {"name": "svc", "unit": "app.service"},
	    {"name": "usr", "unit": "ed.service"},
	    {"name": "wrk", "unit": "app.service"}], t
	EOF
	# --by-command alone says what it always said
	"$DAMO" save --by-command - 2>&1 > /dev/null | grep -q "target scp: no command line for pid 4004, saving the pid"
	expect_fail "usage: damo save" "$DAMO" save --by-unit=yes
}

test_restore_by_unit() {
	local B=$T/bu2 E=$T/bu-e
	bu_setup "$B"
	mkdir -p "$E/contexts"
	export DAMO_CONFIGFS=$E DAMO_PROC=$B/proc DAMO_CGROUP=$B/cg \
		DAMO_SYSTEMCTL=$B/systemctl
	cat > "$T/bu.conf" <<-'EOF'
	context web {
		target svc {
			unit app
		}
		target usr {
			unit ed.service
		}
		target scp {
			unit session-7.scope
		}
		target box {
			unit box.service
		}
		target job {
			command myjob --fast
		}
	}
	EOF
	# bu_pids: the pids restore --boot --dry-run writes, in order
	bu_pids() {
		"$DAMO" restore --boot --dry-run "$@" | sed -n 's|^echo \(.*\) > .*/pid$|\1|p' |
			tr '\n' ,
	}
	# systemd's MainPID; none for user units, scopes: the cgroup's first
	[ "$(bu_pids "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	echo 4002 > "$B/main.app.service"
	[ "$(bu_pids "$T/bu.conf")" = "4002,4003,4004,4006,4005," ]
	# no systemctl, or no systemd to answer it: the cgroup's first
	[ "$(DAMO_SYSTEMCTL= bu_pids "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	[ "$(DAMO_SYSTEMCTL=false bu_pids "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	[ "$(DAMO_SYSTEMCTL=$T/none bu_pids "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	# no cgroup tree either: the oldest process whose cgroup names it
	[ "$(DAMO_SYSTEMCTL= DAMO_CGROUP=$T/none bu_pids "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	# the JSON form alike
	"$DAMO" restore --dry-run "$T/bu.conf" > "$T/a"
	python3 -c 'import json; print(json.dumps({"contexts": [{"name": "web", "targets": [{"name": n, k: v} for n, k, v in [("svc", "unit", "app"), ("usr", "unit", "ed.service"), ("scp", "unit", "session-7.scope"), ("box", "unit", "box.service"), ("job", "command", "myjob --fast")]]}]}, indent=1))' > "$T/bu.json"
	"$DAMO" restore --dry-run "$T/bu.json" | cmp - "$T/a"
	# a unit that is not running: a message naming it, exit 1, nothing done
	echo 0 > "$B/main.app.service"
	: > "$B/cg/system.slice/app.service/cgroup.procs"
	expect_quiet_fail "bu.conf:3: target svc: no process runs 'app': unit app.service is not running (no main process, and none in its cgroup)" \
		"$DAMO" restore --boot "$T/bu.conf"
	expect_quiet_fail "bu.json:8: target svc: no process runs 'app': unit app.service is not running" \
		"$DAMO" restore --boot --dry-run "$T/bu.json"
	DAMO_SYSTEMCTL= expect_quiet_fail "target svc: no process runs 'app': unit app.service is not running" \
		"$DAMO" restore --boot --dry-run "$T/bu.conf"
	# --wait: it starts meanwhile
	(sleep 0.5; echo 4001 > "$B/cg/system.slice/app.service/cgroup.procs") &
	[ "$(bu_pids --wait 10 "$T/bu.conf")" = "4001,4003,4004,4006,4005," ]
	wait
	[ -z "$(ls "$E/contexts")" ]
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
	# a scheme's filters and quota goals before the scheme (whose stand-in
	# quotas/ stays, no default group, and keeps it)
	mkdir -p "$C/x/schemes/s/filters/f" "$C/x/schemes/s/quotas/goals/g" \
		"$C/x/schemes/t/filters"
	DAMO_CONFIGFS=$T/mc expect_fail "removing $C/x/schemes/s: Directory not empty" \
		"$DAMO" clear
	[ -z "$(ls "$C/x/schemes/s/quotas/goals")" ]
	[ -z "$(ls "$C/x/schemes/s/filters")" ]
	rm -r "$C/x"
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

# ---- save --json; restore reads it (issue 17, section 3)

# sv_files DIR KEY=VALUE...: the files of a stand-in directory
sv_files() {
	local d=$1 kv
	shift
	mkdir -p "$d"
	for kv; do echo "${kv#*=}" > "$d/${kv%%=*}"; done
}

# sv_scheme DIR KEY=VALUE...: a stand-in scheme, its groups at their
# defaults
sv_scheme() {
	local s=$1
	shift
	sv_files "$s" "$@"
	sv_files "$s/access_pattern" min_size_bytes=0 \
		max_size_bytes=18446744073709551615 min_nr_accesses=0 \
		max_nr_accesses=4294967295 min_age=0 max_age=4294967295
	sv_files "$s/quotas" ms=0 bytes=0 reset_interval_ms=1000 \
		weight_size=0 weight_nr_accesses=1 weight_age=1
	sv_files "$s/watermarks" metric=none interval_us=5000000 high=0 \
		mid=0 low=0
	mkdir -p "$s/filters" "$s/quotas/goals"
}

# A stand-in tree with every kind of block, restorable: $1 the root.  The
# vaddr context's scheme and filter lack target_nid and memcg_path, and its
# quotas goals/, as on kernels before them; the paddr context's have them,
# used and not, and a quota goal each: of a node (its current_value the
# kernel's), a cgroup, and user_input (its current_value the user's).
sv_rich_tree() {
	local c=$1/contexts/web s=$1/contexts/web/schemes/cold
	sv_files "$c" operations=vaddr sample_us=5000 aggr_us=100000 \
		update_us=1000000 min_nr_regions=10 max_nr_regions=1000 state=on
	sv_files "$c/targets/app" pid=$$
	sv_files "$c/targets/app/regions/0" start=4096 end=8192
	sv_files "$c/targets/app/regions/1" start=8192 end=1073741824
	sv_files "$s" action=pageout apply_interval_us=0
	sv_files "$s/access_pattern" min_size_bytes=4096 \
		max_size_bytes=18446744073709551615 min_nr_accesses=0 \
		max_nr_accesses=0 min_age=300 max_age=4294967295
	sv_files "$s/quotas" ms=10 bytes=104857600 reset_interval_ms=1000 \
		weight_size=0 weight_nr_accesses=0 weight_age=1
	sv_files "$s/watermarks" metric=free_mem_rate interval_us=5000000 \
		high=500 mid=450 low=0
	sv_files "$s/filters/keep" type=target matching=Y addr_start=0 \
		addr_end=0 target=app
	c=$1/contexts/idle
	sv_files "$c" operations=paddr sample_us=5000 aggr_us=100000 \
		update_us=1000000 min_nr_regions=10 max_nr_regions=1000 state=off
	sv_files "$c/targets/none" pid=-1
	mkdir -p "$c/targets/none/regions"
	sv_scheme "$c/schemes/demote" action=migrate_cold apply_interval_us=0 \
		target_nid=1
	sv_files "$c/schemes/demote/filters/cg" type=memcg matching=N \
		addr_start=0 addr_end=0 target= memcg_path=/workload.slice
	sv_scheme "$c/schemes/warm" action=lru_prio apply_interval_us=0 \
		target_nid=-1
	sv_files "$c/schemes/warm/filters/busy" type=young matching=Y \
		addr_start=0 addr_end=0 target= memcg_path=
	sv_files "$c/schemes/demote/quotas/goals/free" \
		target_metric=node_mem_free_bp target_value=2000 \
		current_value=1834 nid=1 memcg_path=
	sv_files "$c/schemes/warm/quotas/goals/in" target_metric=user_input \
		target_value=10000 current_value=2500 nid=0 memcg_path=
	sv_scheme "$c/schemes/lift" action=stat apply_interval_us=0 \
		target_nid=-1
	sv_files "$c/schemes/lift/quotas/goals/cg" \
		target_metric=node_memcg_used_bp target_value=500 \
		current_value=12 nid=0 memcg_path=/workload.slice
}

# sv_replay: do in a stand-in tree what restore --dry-run printed (stdin),
# making the files configfs makes with a directory (a context's state and
# groups, a target's pid and regions, a scheme's filters and quota goals,
# a filter's and a goal's files at their defaults).
sv_replay() {
	local op rest
	while read -r op rest; do
		case $op in
		mkdir)
			mkdir "$rest"
			case $(basename "$(dirname "$rest")") in
			contexts) echo off > "$rest/state"
				mkdir "$rest/targets" "$rest/schemes" ;;
			targets) echo -1 > "$rest/pid"
				mkdir "$rest/regions" ;;
			schemes) mkdir -p "$rest/filters" "$rest/quotas/goals" ;;
			filters) sv_files "$rest" type=anon matching=Y \
				addr_start=0 addr_end=0 target= memcg_path= ;;
			goals) sv_files "$rest" target_metric=user_input \
				target_value=0 current_value=0 nid=0 memcg_path= ;;
			esac ;;
		echo)
			mkdir -p "$(dirname "${rest##* > }")"
			echo "${rest% > *}" > "${rest##* > }" ;;
		*)
			echo "sv_replay: '$op'?"
			return 1 ;;
		esac
	done
}

# save --json, restore of it, save again: the same file; and the same
# writes as from the text form.
test_save_json() {
	local R=$T/sj E=$T/sj-e
	sv_rich_tree "$R"
	DAMO_CONFIGFS=$R "$DAMO" save --json "$T/sj.json"
	DAMO_CONFIGFS=$R "$DAMO" save "$T/sj.conf"
	python3 - "$T/sj.json" "$$" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert list(d) == ["contexts"], d
	idle, web = d["contexts"]
	schemes = idle.pop("schemes")
	assert idle == {"name": "idle", "operations": "paddr", "sample_us": 5000,
	                "aggr_us": 100000, "update_us": 1000000,
	                "min_nr_regions": 10, "max_nr_regions": 1000,
	                "targets": [{"name": "none", "regions": []}],
	                "state": "off"}, idle
	# target_nid and memcg_path when used; left out at -1 and empty
	demote, lift, warm = schemes
	assert [demote["action"], demote["target_nid"]] == ["migrate_cold", 1], demote
	assert demote["filters"] == [{"name": "cg", "type": "memcg", "matching": "N",
	                              "addr_start": 0, "addr_end": 0, "target": "",
	                              "memcg_path": "/workload.slice"}], demote
	assert warm["action"] == "lru_prio" and "target_nid" not in warm, warm
	assert warm["filters"] == [{"name": "busy", "type": "young", "matching": "Y",
	                            "addr_start": 0, "addr_end": 0, "target": ""}], warm
	# goals in quotas; current_value of user_input only, memcg_path if set
	assert demote["quotas"]["goals"] == [{"name": "free",
	    "target_metric": "node_mem_free_bp", "target_value": 2000, "nid": 1}], demote
	assert warm["quotas"] == {"ms": 0, "bytes": 0, "reset_interval_ms": 1000,
	                          "weight_size": 0, "weight_nr_accesses": 1,
	                          "weight_age": 1, "goals": [{"name": "in",
	    "target_metric": "user_input", "target_value": 10000,
	    "current_value": 2500, "nid": 0}]}, warm
	assert lift["quotas"]["goals"] == [{"name": "cg",
	    "target_metric": "node_memcg_used_bp", "target_value": 500, "nid": 0,
	    "memcg_path": "/workload.slice"}], lift
	assert "target_nid" not in lift and lift["filters"] == [], lift
	assert web["state"] == "on" and web["operations"] == "vaddr"
	assert web["targets"] == [{"name": "app", "pid": int(sys.argv[2]), "regions": [
	    {"name": "0", "start": 4096, "end": 8192},
	    {"name": "1", "start": 8192, "end": 1073741824}]}], web["targets"]
	s, = web["schemes"]
	assert s["name"] == "cold" and s["action"] == "pageout"
	assert s["access_pattern"]["max_size_bytes"] == 2**64 - 1
	# (a kernel without quotas/goals/: none)
	assert s["quotas"] == {"ms": 10, "bytes": 104857600, "reset_interval_ms": 1000,
	                       "weight_size": 0, "weight_nr_accesses": 0,
	                       "weight_age": 1, "goals": []}, s["quotas"]
	assert s["watermarks"]["metric"] == "free_mem_rate"
	assert s["filters"] == [{"name": "keep", "type": "target", "matching": "Y",
	                         "addr_start": 0, "addr_end": 0, "target": "app"}]
	EOF
	# the text form alike; a kernel without the files saves without them
	grep -q "^		target_nid 1$" "$T/sj.conf"
	grep -q "^			memcg_path /workload.slice$" "$T/sj.conf"
	grep -q "^				memcg_path /workload.slice$" "$T/sj.conf"
	[ "$(grep -c "target_nid\|memcg_path" "$T/sj.conf")" = 3 ]
	grep -A3 -x "			goal in {" "$T/sj.conf" | grep -qx "				current_value 2500"
	[ "$(grep -c "current_value" "$T/sj.conf")" = 1 ]
	# restore: the same writes from either form (the kernel measures
	# every metric that the goals use)
	mkdir -p "$E/contexts"
	echo "ops:vaddr ops:paddr goal:user_input goal:node_mem_free_bp goal:node_memcg_used_bp" \
		> "$E/features"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/sj.json" > "$T/dj"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/sj.conf" | cmp - "$T/dj"
	grep -qx "echo on > $E/contexts/web/state" "$T/dj"
	grep -A1 -x "echo migrate_cold > $E/contexts/idle/schemes/demote/action" "$T/dj" |
		grep -qx "echo 0 > $E/contexts/idle/schemes/demote/apply_interval_us"
	grep -qx "echo 1 > $E/contexts/idle/schemes/demote/target_nid" "$T/dj"
	grep -qx "echo /workload.slice > $E/contexts/idle/schemes/demote/filters/cg/memcg_path" "$T/dj"
	[ "$(grep -c "target_nid\|memcg_path" "$T/dj")" = 3 ]
	# goals: made in quotas/goals, their files written in file order
	local g=$E/contexts/idle/schemes/warm/quotas/goals/in
	grep -A5 -x "mkdir $g" "$T/dj" | diff -u - <(printf '%s\n' "mkdir $g" \
		"echo user_input > $g/target_metric" "echo 10000 > $g/target_value" \
		"echo 2500 > $g/current_value" "echo 0 > $g/nid" \
		"echo none > $E/contexts/idle/schemes/warm/watermarks/metric")
	grep -qx "echo /workload.slice > $E/contexts/idle/schemes/lift/quotas/goals/cg/memcg_path" "$T/dj"
	[ "$(grep -c "current_value" "$T/dj")" = 1 ]
	# unused, written by hand: not written, so a kernel without them will do
	sed 's/^\t\taction lru_prio$/&\n\t\ttarget_nid -1/; s/^\t\t\ttype young$/&\n\t\t\tmemcg_path/; s/^\t\t\t\ttarget_metric node_mem_free_bp$/&\n\t\t\t\tmemcg_path/' \
		"$T/sj.conf" > "$T/sj-unused.conf"
	[ "$(grep -c "target_nid\|memcg_path" "$T/sj-unused.conf")" = 6 ]
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/sj-unused.conf" | cmp - "$T/dj"
	# done to a stand-in tree, and saved again: the same files
	sv_replay < "$T/dj"
	DAMO_CONFIGFS=$E "$DAMO" save --json - | cmp - "$T/sj.json"
	DAMO_CONFIGFS=$E "$DAMO" save - | cmp - "$T/sj.conf"
	# restore --boot takes JSON too, and refuses its pids the same way
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"sj.json:$(grep -n '"pid": ' "$T/sj.json" | cut -d: -f1): target app is pid $$: pids do not survive a reboot" \
		"$DAMO" restore --boot --dry-run "$T/sj.json"
	# an empty tree; names are JSON strings, whatever they hold
	sv_files "$T/sj0/contexts/w\"e\\b" operations=vaddr sample_us=1 aggr_us=2 \
		update_us=3 min_nr_regions=4 max_nr_regions=5 state=off
	mkdir -p "$T/sj0/contexts/w\"e\\b/targets" "$T/sj0/contexts/w\"e\\b/schemes"
	DAMO_CONFIGFS=$T/sj0 "$DAMO" save --json - > "$T/q.json"
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["contexts"][0]["name"] == "w\"e\\b"' "$T/q.json"
	DAMO_CONFIGFS=$T/sj-e "$DAMO" restore --dry-run "$T/q.json" |
		grep -qx "mkdir $T/sj-e/contexts/w\"e\\\\b"
	rm -r "$T/sj0/contexts/"*
	[ "$(DAMO_CONFIGFS=$T/sj0 "$DAMO" save --json -)" = "$(printf '{\n  "contexts": []\n}')" ]
}

# What restore says of JSON that is not a save file: the line, exit 1, and
# nothing done.
test_restore_json_errors() {
	local E=$T/sj-x
	mkdir -p "$E/contexts"
	# j FILE TEXT: a file of text (printf's escapes)
	j() { printf "$2" > "$T/$1"; }
	j b1.json '{"contexts": [\n  {"name": "x",\n   "bogus": 1}]}'
	j b2.json '{"contexts": [\n  {"name": "x"},\n  {"name": "x"}]}'
	j b3.json '{"contexts": [\n  {"name": "x", "max_nr_regions": 0}]}'
	j b4.json '{"contexts": [\n  {"name": "x"'
	j b5.json '{"contexts": [{"sample_us": true}]}'
	j b6.json '{"contexts": [{"sample_us": 5}]}'
	j b7.json '{"contexts": {}}'
	j b8.json '{"contexts": [{"name": "a/b"}]}'
	j b9.json '{"contexts": [{"name": "a", "schemes": [{"name": "s", "quotas": {"name": "q"}}]}]}'
	j b10.json '{"contexts": [{"name": "a", "targets": [{"name": "t", "command": "a\\nb"}]}]}'
	j b11.json '{"contexts": []} []'
	j b12.json '{"contexts": [{"name": "a", "sample_us": 1.5}]}'
	j b13.json '{"contexts": [],\n "version": 1}'
	j b14.json '{"contexts": [{"name": "a",\n "targets": [{"name": "t", "pid": 1, "unit": "u"}]}]}'
	j b15.json '{"contexts": [{"name": "a", "operations": "paddr", "targets": [{"name": "t"}],\n "schemes": [{"name": "s", "action": "migrate_hot",\n  "target_nid": -1}],\n "state": "on"}]}'
	j b16.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "filters": [{"name": "f", "type": "memcg",\n  "memcg_path": "workload.slice"}]}]}]}'
	j b17.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "target_nid": 1024}]}]}'
	j b18.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "quotas": {"goals": [{"name": "g",\n  "target_metric": "psi"}]}}]}]}'
	j b19.json '{"contexts": [{"name": "a", "targets": [{"name": "t", "pid": 1}],\n "schemes": [{"name": "s", "quotas": {"goals": [\n  {"name": "g", "target_metric": "active_mem_bp"}]}}],\n "state": "on"}]}'
	j b20.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "quotas": {"goals": [{"name": "g", "target_metric": "inactive_mem_bp",\n  "current_value": 5}]}}]}]}'
	j b21.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "quotas": {"goals": {}}}]}]}'
	j b22.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "goals": []}]}]}'
	j b23.json '{"contexts": [{"name": "a", "schemes": [{"name": "s",\n "quotas": {"goals": [{"target_value": 1}]}}]}]}'
	for f in \
		"b1.json:3: unknown key 'bogus' in a context object" \
		"b2.json:3: context x is already defined on line 2" \
		"b3.json:2: max_nr_regions: 0 is out of range 3..100000" \
		"b4.json:2: JSON offset 29: expected ',' or '}'" \
		"b5.json:1: sample_us: expected a string or a number, found true or false" \
		"b6.json:1: a context without a \"name\"" \
		"b7.json:1: contexts: expected an array, found an object" \
		"b8.json:1: 'a/b' is not a valid context name" \
		"b9.json:1: 'quotas' takes no name" \
		"b10.json:1: command: a control character in the value" \
		"b11.json:1: JSON offset 17: data after the end of the JSON value" \
		"b12.json:1: sample_us: '1.5' is not a decimal number" \
		"b13.json:2: unknown key 'version' at the top level" \
		"b14.json:2: target t: give only one of pid, command and unit" \
		"b15.json:3: scheme s: migrate_hot needs a target_nid (a node, not -1)" \
		"b16.json:3: memcg_path: 'workload.slice' is not a path from the cgroup root" \
		"b17.json:2: target_nid: 1024 is out of range -1..1023" \
		"b18.json:3: target_metric: 'psi' is not one of user_input some_mem_psi_us" \
		"b19.json:3: goal g: needs a target_value other than 0" \
		"b20.json:3: goal g: current_value is for user_input goals (the kernel measures inactive_mem_bp)" \
		"b21.json:2: goals: expected an array, found an object" \
		"b22.json:2: unknown key 'goals' in a scheme object" \
		"b23.json:2: a goal without a \"name\""; do
		DAMO_CONFIGFS=$E expect_quiet_fail "$T/$f" \
			"$DAMO" restore --dry-run "$T/${f%%:*}"
	done
	[ -z "$(ls "$E/contexts")" ]
	# hand-written: only names are needed, numbers may be strings
	j ok.json '  \n{"contexts": [{"name": "a", "aggr_us": "200000",\n "targets": [{"name": "t", "unit": "u"}]}]}'
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run --boot "$T/ok.json" 2>&1 |
		grep -q "ok.json:3: target t: no process runs 'u'"
	j ok.json '{"contexts": [{"name": "a", "aggr_us": "200000"}]}'
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/ok.json" |
		grep -qx "echo 200000 > $E/contexts/a/aggr_us"
}

# restore of quota goals: only metrics that features lists, said before
# anything changes; a file without goals needs no features file.
test_restore_goal_features() {
	local E=$T/gf
	mkdir -p "$E/contexts"
	cat > "$T/gf.conf" <<-EOF
	context a {
		scheme s {
			quotas {
				bytes 4096
				goal free {
					target_metric node_mem_free_bp
					target_value 2000
				}
				goal in {
					target_value 5
				}
				goal cg {
					target_value 100
					target_metric node_memcg_used_bp
					memcg_path /workload.slice
				}
			}
		}
	}
	EOF
	DAMO_CONFIGFS=$E expect_quiet_fail "reading $E/features: No such file or directory" \
		"$DAMO" restore "$T/gf.conf"
	echo "ops:vaddr ops:fvaddr schemes action:stat" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"gf.conf:5: scheme s: goal free: this kernel's DAMON has no quota goals (no goal: words in $E/features); nothing changed" \
		"$DAMO" restore "$T/gf.conf"
	# the line of target_metric, or of the goal for the default user_input
	echo "ops:vaddr goal:node_mem_free_bp goal:user_input" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"gf.conf:14: scheme s: goal cg: this kernel cannot measure node_memcg_used_bp (no goal:node_memcg_used_bp in $E/features); nothing changed" \
		"$DAMO" restore --dry-run "$T/gf.conf"
	echo "ops:vaddr goal:node_mem_free_bp goal:node_memcg_used_bp" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"gf.conf:9: scheme s: goal in: this kernel cannot measure user_input (no goal:user_input in" \
		"$DAMO" restore "$T/gf.conf"
	[ -z "$(ls "$E/contexts")" ]
	echo "ops:vaddr goal:node_mem_free_bp goal:node_memcg_used_bp goal:user_input" > "$E/features"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/gf.conf" > "$T/out"
	grep -qx "mkdir $E/contexts/a/schemes/s/quotas/goals/cg" "$T/out"
	grep -qx "echo 5 > $E/contexts/a/schemes/s/quotas/goals/in/target_value" "$T/out"
	# the order of the file, goals included
	[ "$(grep -c '^mkdir .*/goals/' "$T/out")" = 3 ]
	[ "$(grep '^mkdir .*/goals/' "$T/out" | sed 's|.*/||' | tr '\n' ' ')" = "free in cg " ]
	rm "$E/features"
	printf 'context b {\n\tscheme s {\n\t\tquotas {\n\t\t\tbytes 1\n\t\t}\n\t}\n}\n' > "$T/gf0.conf"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/gf0.conf" |
		grep -qx "echo 1 > $E/contexts/b/schemes/s/quotas/bytes"
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
	# filters, one a scheme (a stand-in lists several in no set order);
	# web's, as on kernels before them, have no memcg_path or target_nid
	mkdir -p "$c/schemes/reclaim/filters/keep" "$c/schemes/s2/filters"
	w "$c/schemes/reclaim/filters/keep" type=target matching=N \
		addr_start=0 addr_end=0 target=app
	# physical memory: the node of migrate actions, memcg, young, addr
	# filters; target_nid is read for migrate actions only
	local p=$R/contexts/phys sc
	mkdir -p "$p/targets/ram" "$p/schemes"
	w "$p" state=on kdamond_pid=77 operations=paddr nr_aggregations=5 \
		sample_us=5000 aggr_us=100000 update_us=1000000 \
		min_nr_regions=10 max_nr_regions=1000
	w "$p/targets/ram" pid=-1
	printf '0 1048576 0 3\n1048576 2097152 1 1\n' > "$p/targets/ram/snapshot"
	for sc in demote:migrate_cold:1:cg promote:migrate_hot:-1:busy \
		warm:lru_prio::low; do
		IFS=: read -r -a vals <<< "$sc"
		mkdir -p "$p/schemes/${vals[0]}/stats" \
			"$p/schemes/${vals[0]}/quotas" \
			"$p/schemes/${vals[0]}/filters/${vals[3]}"
		w "$p/schemes/${vals[0]}" action="${vals[1]}" apply_interval_us=0
		[ -z "${vals[2]}" ] || w "$p/schemes/${vals[0]}" target_nid="${vals[2]}"
		w "$p/schemes/${vals[0]}/stats" nr_tried=0 sz_tried=0 nr_applied=0 \
			sz_applied=0 qt_exceeds=0
		w "$p/schemes/${vals[0]}/quotas" ms=0 bytes=0 \
			reset_interval_ms=1000 effective_bytes=0
		w "$p/schemes/${vals[0]}/filters/${vals[3]}" matching=Y \
			addr_start=0 addr_end=0 target= memcg_path=
	done
	w "$p/schemes/demote/filters/cg" type=memcg matching=N \
		memcg_path=/workload.slice
	w "$p/schemes/promote/filters/busy" type=young
	w "$p/schemes/warm/filters/low" type=addr addr_start=4096 \
		addr_end=1073741824
	# quota goals, in their metrics' units; nid and memcg_path are read
	# for the metrics that use them only (warm's goal has neither file)
	mkdir -p "$p/schemes/demote/quotas/goals/free" \
		"$p/schemes/promote/quotas/goals/cg" "$p/schemes/warm/quotas/goals/psi"
	w "$p/schemes/demote/quotas" effective_bytes=1048576
	w "$p/schemes/demote/quotas/goals/free" target_metric=node_mem_free_bp \
		target_value=2000 current_value=1834 nid=1 memcg_path=
	w "$p/schemes/promote/quotas" bytes=268435456 effective_bytes=4194304
	w "$p/schemes/promote/quotas/goals/cg" target_metric=node_memcg_used_bp \
		target_value=500 current_value=12 nid=0 memcg_path=/workload.slice
	w "$p/schemes/warm/quotas/goals/psi" target_metric=some_mem_psi_us \
		target_value=100000 current_value=2500
	DAMO_CONFIGFS=$R "$DAMO" status > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	context idle: off, no kdamond, fvaddr, 1 aggregation
	  intervals: sample 2.5 ms, aggr 50 ms, update 1.5 ms; 3..100 regions
	  no targets
	  no schemes
	context phys: on, kdamond pid 77, paddr, 5 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target ram: no pid, 2 regions
	  estimated memory bandwidth: 512 KiB/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 0 us, p50 0 us, p60 300 ms, p70 300 ms, p80 300 ms, p90 300 ms, p100 300 ms
	  scheme demote: migrate_cold to node 1, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: set by 1 goal per 1 s, effective 1 MiB, exceeded 0 times
	    goal free: node_mem_free_bp on node 1, current 18.34 %, target 20 %
	    filter cg: excludes all but memcg /workload.slice
	  scheme promote: migrate_hot to no node, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: 256 MiB per 1 s, set by 1 goal below that, effective 4 MiB, exceeded 0 times
	    goal cg: node_memcg_used_bp on node 0 of /workload.slice, current 0.12 %, target 5 %
	    filter busy: excludes young
	  scheme warm: lru_prio, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: set by 1 goal per 1 s, effective no limit yet, exceeded 0 times
	    goal psi: some_mem_psi_us, current 2.5 ms, target 100 ms
	    filter low: excludes addr [4096, 1073741824)
	context web: on, kdamond pid 1234, vaddr, 412 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target app: pid 4321, 3 regions
	  target other: no pid, 0 regions
	  estimated memory bandwidth: 20 KiB/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 0 us, p50 0 us, p60 300 ms, p70 300 ms, p80 700 ms, p90 700 ms, p100 700 ms
	  scheme reclaim: pageout, every aggregation
	    tried 12 regions (48 MiB), applied 1 region (1.5 MiB)
	    quota: 100 MiB and 10 ms per 1 s, effective 80 MiB, exceeded 3 times
	    filter keep: excludes all but target app
	  scheme s2: stat, every 2 s
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: none
	EOF
	# --raw-numbers: plain bytes and us, each with its unit
	DAMO_CONFIGFS=$R "$DAMO" status --raw-numbers > "$T/out"
	diff -u - "$T/out" <<-'EOF'
	context idle: off, no kdamond, fvaddr, 1 aggregation
	  intervals: sample 2500 us, aggr 50000 us, update 1500 us; 3..100 regions
	  no targets
	  no schemes
	context phys: on, kdamond pid 77, paddr, 5 aggregations
	  intervals: sample 5000 us, aggr 100000 us, update 1000000 us; 10..1000 regions
	  target ram: no pid, 2 regions
	  estimated memory bandwidth: 524288 B/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 0 us, p50 0 us, p60 300000 us, p70 300000 us, p80 300000 us, p90 300000 us, p100 300000 us
	  scheme demote: migrate_cold to node 1, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: set by 1 goal per 1000000 us, effective 1048576 B, exceeded 0 times
	    goal free: node_mem_free_bp on node 1, current 1834 bp, target 2000 bp
	    filter cg: excludes all but memcg /workload.slice
	  scheme promote: migrate_hot to no node, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: 268435456 B per 1000000 us, set by 1 goal below that, effective 4194304 B, exceeded 0 times
	    goal cg: node_memcg_used_bp on node 0 of /workload.slice, current 12 bp, target 500 bp
	    filter busy: excludes young
	  scheme warm: lru_prio, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: set by 1 goal per 1000000 us, effective no limit yet, exceeded 0 times
	    goal psi: some_mem_psi_us, current 2500 us, target 100000 us
	    filter low: excludes addr [4096, 1073741824)
	context web: on, kdamond pid 1234, vaddr, 412 aggregations
	  intervals: sample 5000 us, aggr 100000 us, update 1000000 us; 10..1000 regions
	  target app: pid 4321, 3 regions
	  target other: no pid, 0 regions
	  estimated memory bandwidth: 20480 B/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 0 us, p50 0 us, p60 300000 us, p70 300000 us, p80 700000 us, p90 700000 us, p100 700000 us
	  scheme reclaim: pageout, every aggregation
	    tried 12 regions (50331648 B), applied 1 region (1572864 B)
	    quota: 104857600 B and 10000 us per 1000000 us, effective 83886080 B, exceeded 3 times
	    filter keep: excludes all but target app
	  scheme s2: stat, every 2000000 us
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: none
	EOF
	# JSON has plain numbers anyway
	DAMO_CONFIGFS=$R "$DAMO" status --json > "$T/a"
	DAMO_CONFIGFS=$R "$DAMO" status --json --raw-numbers | cmp - "$T/a"
	# --json: the schema of the man page, numbers as numbers, -1 as null
	DAMO_CONFIGFS=$R "$DAMO" status --json > "$T/st.json"
	python3 - "$T/st.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert list(d) == ["contexts"], d
	idle, phys, web = d["contexts"]
	assert idle == {"name": "idle", "state": "off", "kdamond_pid": None,
	                "operations": "fvaddr", "nr_aggregations": 1,
	                "sample_us": 2500, "aggr_us": 50000, "update_us": 1500,
	                "min_nr_regions": 3, "max_nr_regions": 100,
	                "intervals_goal": None, "targets": [],
	                "estimated_memory_bandwidth": None,
	                "memory_idle_us_percentiles": None, "schemes": []}, idle
	# a running context: what its snapshots estimate, in bytes/s and us
	assert web["estimated_memory_bandwidth"] == 20480, web
	assert web["memory_idle_us_percentiles"] == dict(
	    [("p%d" % p, 0) for p in range(0, 60, 10)] +
	    [("p60", 300000), ("p70", 300000), ("p80", 700000),
	     ("p90", 700000), ("p100", 700000)]), web
	assert list(web["memory_idle_us_percentiles"]) == [
	    "p%d" % p for p in range(0, 101, 10)], web
	assert web["kdamond_pid"] == 1234 and web["state"] == "on"
	assert web["targets"] == [
	    {"name": "app", "pid": 4321, "nr_regions": 3},
	    {"name": "other", "pid": None, "nr_regions": 0}], web["targets"]
	r = web["schemes"][0]
	assert r == {"name": "reclaim", "action": "pageout", "apply_interval_us": 0,
	             "target_nid": None,
	             "stats": {"nr_tried": 12, "sz_tried": 50331648, "nr_applied": 1,
	                       "sz_applied": 1572864, "qt_exceeds": 3},
	             "quotas": {"ms": 10, "bytes": 104857600,
	                        "reset_interval_ms": 1000,
	                        "effective_bytes": 83886080, "goals": []},
	             "filters": [{"name": "keep", "type": "target", "matching": "N",
	                          "addr_start": None, "addr_end": None,
	                          "target": "app", "memcg_path": None}]}, r
	assert web["schemes"][1]["apply_interval_us"] == 2000000
	assert web["schemes"][1]["filters"] == []
	# the node of migrate actions only (-1: null); the files a filter's
	# type uses, the others null
	assert phys["targets"] == [{"name": "ram", "pid": None, "nr_regions": 2}]
	demote, promote, warm = phys["schemes"]
	assert [demote["action"], demote["target_nid"]] == ["migrate_cold", 1]
	assert [promote["action"], promote["target_nid"]] == ["migrate_hot", None]
	assert [warm["action"], warm["target_nid"]] == ["lru_prio", None]
	none = {"addr_start": None, "addr_end": None, "target": None,
	        "memcg_path": None}
	assert demote["filters"] == [dict(none, name="cg", type="memcg",
	    matching="N", memcg_path="/workload.slice")], demote["filters"]
	assert promote["filters"] == [dict(none, name="busy", type="young",
	    matching="Y")], promote["filters"]
	assert warm["filters"] == [dict(none, name="low", type="addr",
	    matching="Y", addr_start=4096, addr_end=1073741824)], warm["filters"]
	# goals in quotas: nid for node metrics, memcg_path for memcg ones
	assert demote["quotas"] == {"ms": 0, "bytes": 0, "reset_interval_ms": 1000,
	    "effective_bytes": 1048576, "goals": [{"name": "free",
	    "target_metric": "node_mem_free_bp", "target_value": 2000,
	    "current_value": 1834, "nid": 1, "memcg_path": None}]}, demote["quotas"]
	assert promote["quotas"]["bytes"] == 268435456
	assert promote["quotas"]["goals"] == [{"name": "cg",
	    "target_metric": "node_memcg_used_bp", "target_value": 500,
	    "current_value": 12, "nid": 0, "memcg_path": "/workload.slice"}], promote
	assert warm["quotas"]["goals"] == [{"name": "psi",
	    "target_metric": "some_mem_psi_us", "target_value": 100000,
	    "current_value": 2500, "nid": None, "memcg_path": None}], warm
	EOF
	# user_input in plain numbers; a memcg metric without a cgroup
	w "$p/schemes/warm/quotas/goals/psi" target_metric=user_input
	DAMO_CONFIGFS=$R "$DAMO" status | grep -qx "    goal psi: user_input, current 2500, target 100000"
	w "$p/schemes/warm/quotas/goals/psi" target_metric=node_memcg_free_bp \
		nid=0 memcg_path=
	DAMO_CONFIGFS=$R "$DAMO" status --raw-numbers |
		grep -qx "    goal psi: node_memcg_free_bp on node 0 (no memcg_path), current 2500 bp, target 100000 bp"
	rm "$p/schemes/warm/quotas/goals/psi/current_value"
	DAMO_CONFIGFS=$R expect_quiet_fail \
		"reading $p/schemes/warm/quotas/goals/psi/current_value: No such file or directory" \
		"$DAMO" status --json
	w "$p/schemes/warm/quotas/goals/psi" current_value=2500
	# no cgroup named: said so; a migrate action's node must be there
	: > "$p/schemes/demote/filters/cg/memcg_path"
	DAMO_CONFIGFS=$R "$DAMO" status | grep -qx "    filter cg: excludes all but memcg (no memcg_path)"
	DAMO_CONFIGFS=$R "$DAMO" status --json |
		python3 -c 'import json, sys; f = json.load(sys.stdin)["contexts"][1]["schemes"][0]["filters"][0]; assert f["memcg_path"] == "", f'
	rm "$p/schemes/demote/target_nid"
	DAMO_CONFIGFS=$R expect_quiet_fail \
		"reading $p/schemes/demote/target_nid: No such file or directory" \
		"$DAMO" status
	rm -r "$p"
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
	expect_fail "option '--raw-numbers' doesn't allow an argument" \
		"$DAMO" status --raw-numbers=1
}

# ---- intervals_goal, status estimates (issue 16, part 4)

# sv_ctx DIR KEY=VALUE...: a stand-in paddr context at the kernel's
# defaults but for KEY=VALUE..., its one target without a pid.
sv_ctx() {
	local d=$1
	shift
	sv_files "$d" operations=paddr sample_us=5000 aggr_us=100000 \
		update_us=1000000 min_nr_regions=10 max_nr_regions=1000 "$@"
	sv_files "$d/targets/ram" pid=-1
	mkdir -p "$d/targets/ram/regions" "$d/schemes"
}

# save writes intervals_goal when it is not at its defaults (and the
# kernel has it); restore writes it back, where features lists it;
# save, restore, save gives the same file, text or JSON.
test_save_intervals_goal() {
	local R=$T/ig E=$T/ig-e
	sv_ctx "$R/contexts/tuned" state=on sample_us=20000 aggr_us=400000 \
		update_us=200000000
	sv_files "$R/contexts/tuned/intervals_goal" access_bp=400 aggrs=3 \
		min_sample_us=5000 max_sample_us=10000000
	# not tuning, but bounds of its own: kept for when it does
	sv_ctx "$R/contexts/bounds" state=off
	sv_files "$R/contexts/bounds/intervals_goal" access_bp=0 aggrs=5 \
		min_sample_us=5000 max_sample_us=10000000
	# at the defaults, and a kernel without the group: neither saved
	sv_ctx "$R/contexts/plain" state=off
	sv_files "$R/contexts/plain/intervals_goal" access_bp=0 aggrs=3 \
		min_sample_us=5000 max_sample_us=10000000
	sv_ctx "$R/contexts/old" state=off
	DAMO_CONFIGFS=$R "$DAMO" save "$T/ig.conf" 2> "$T/err"
	[ ! -s "$T/err" ]
	# (not <<-: the expected text has tabs)
	diff -u - "$T/ig.conf" <<'EOF'
# DAMON configfs setup (damo save); restore with `damo restore FILE`.

context bounds {
	operations paddr
	sample_us 5000
	aggr_us 100000
	update_us 1000000
	min_nr_regions 10
	max_nr_regions 1000
	intervals_goal {
		access_bp 0
		aggrs 5
		min_sample_us 5000
		max_sample_us 10000000
	}
	target ram {
	}
	state off
}

context old {
	operations paddr
	sample_us 5000
	aggr_us 100000
	update_us 1000000
	min_nr_regions 10
	max_nr_regions 1000
	target ram {
	}
	state off
}

context plain {
	operations paddr
	sample_us 5000
	aggr_us 100000
	update_us 1000000
	min_nr_regions 10
	max_nr_regions 1000
	target ram {
	}
	state off
}

context tuned {
	operations paddr
	sample_us 20000
	aggr_us 400000
	update_us 200000000
	min_nr_regions 10
	max_nr_regions 1000
	intervals_goal {
		access_bp 400
		aggrs 3
		min_sample_us 5000
		max_sample_us 10000000
	}
	target ram {
	}
	state on
}
EOF
	DAMO_CONFIGFS=$R "$DAMO" save --json "$T/ig.json"
	python3 - "$T/ig.json" <<-'PY'
	import json, sys
	bounds, old, plain, tuned = json.load(open(sys.argv[1]))["contexts"]
	assert tuned["intervals_goal"] == {"access_bp": 400, "aggrs": 3,
	    "min_sample_us": 5000, "max_sample_us": 10000000}, tuned
	assert list(tuned)[:8] == ["name", "operations", "sample_us", "aggr_us",
	    "update_us", "min_nr_regions", "max_nr_regions",
	    "intervals_goal"], list(tuned)
	assert bounds["intervals_goal"]["aggrs"] == 5, bounds
	assert "intervals_goal" not in old and "intervals_goal" not in plain
	PY
	# restore: the group's files in file order, before the targets; the
	# same from either form
	mkdir -p "$E/contexts"
	echo "ops:paddr intervals_goal" > "$E/features"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/ig.conf" > "$T/igd"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/ig.json" | cmp - "$T/igd"
	local g=$E/contexts/tuned
	grep -A6 -x "echo 1000 > $g/max_nr_regions" "$T/igd" | diff -u - <(printf '%s\n' \
		"echo 1000 > $g/max_nr_regions" "echo 400 > $g/intervals_goal/access_bp" \
		"echo 3 > $g/intervals_goal/aggrs" \
		"echo 5000 > $g/intervals_goal/min_sample_us" \
		"echo 10000000 > $g/intervals_goal/max_sample_us" \
		"mkdir $g/targets/ram" "echo on > $g/state")
	[ "$(grep -c "/intervals_goal/" "$T/igd")" = 8 ]
	# done to a stand-in tree, and saved again: the same file
	sv_replay < "$T/igd"
	DAMO_CONFIGFS=$E "$DAMO" save - | cmp - "$T/ig.conf"
	DAMO_CONFIGFS=$E "$DAMO" save --json - | cmp - "$T/ig.json"
	# a tuned context shows the intervals in use, which save writes:
	# past update_us they would not restore, and save says so
	echo 300000000 > "$R/contexts/tuned/aggr_us"
	DAMO_CONFIGFS=$R "$DAMO" save - 2> "$T/err" > /dev/null
	diff -u - "$T/err" <<-'TXT'
	damo: warning: context tuned: its tuned aggr_us (300000000) exceeds update_us (200000000): restore will refuse the file until update_us is raised to at least aggr_us
	TXT
	# off: the values are the ones written, and said by validation
	echo off > "$R/contexts/tuned/state"
	DAMO_CONFIGFS=$R "$DAMO" save - 2> "$T/err" > /dev/null
	[ ! -s "$T/err" ]
}

# restore of intervals_goal: only where features lists it, said before
# anything changes; a file without it needs no features file.
test_restore_intervals_features() {
	local E=$T/if
	mkdir -p "$E/contexts"
	cat > "$T/if.conf" <<-'TXT'
	context plain {
	}
	context stat {
		operations paddr
		target ram {
		}
		intervals_goal {
			access_bp 400
		}
		state on
	}
	TXT
	DAMO_CONFIGFS=$E expect_quiet_fail "reading $E/features: No such file or directory" \
		"$DAMO" restore "$T/if.conf"
	echo "ops:vaddr ops:paddr schemes goal:user_input" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"if.conf:7: context stat: this kernel's DAMON cannot tune monitoring intervals (no intervals_goal in $E/features); nothing changed" \
		"$DAMO" restore "$T/if.conf"
	DAMO_CONFIGFS=$E expect_quiet_fail "if.conf:7: context stat: this kernel's DAMON cannot tune" \
		"$DAMO" restore --dry-run "$T/if.conf"
	# a word that only starts so is not the word
	echo "ops:paddr intervals_goals" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail "no intervals_goal in" \
		"$DAMO" restore "$T/if.conf"
	[ -z "$(ls "$E/contexts")" ]
	echo "ops:paddr intervals_goal" > "$E/features"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/if.conf" > "$T/out"
	grep -qx "echo 400 > $E/contexts/stat/intervals_goal/access_bp" "$T/out"
	# the relation "on" checks, named at its line
	sed 's/access_bp 400/&\n\t\tmin_sample_us 20000\n\t\tmax_sample_us 10000/' \
		"$T/if.conf" > "$T/if2.conf"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"if2.conf:9: context stat: intervals_goal needs min_sample_us (20000) <= max_sample_us (10000) to tune" \
		"$DAMO" restore --dry-run "$T/if2.conf"
	# (JSON alike)
	printf '{"contexts": [{"name": "s",\n "intervals_goal": {"aggrs": 0}}]}\n' > "$T/if.json"
	DAMO_CONFIGFS=$E expect_quiet_fail "if.json:2: aggrs: 0 is out of range 1..4294967295" \
		"$DAMO" restore --dry-run "$T/if.json"
	rm "$E/features"
	printf 'context b {\n\taggr_us 200000\n}\n' > "$T/if0.conf"
	DAMO_CONFIGFS=$E "$DAMO" restore --dry-run "$T/if0.conf" |
		grep -qx "echo 200000 > $E/contexts/b/aggr_us"
}

# fcfs ROOT CMD...: CMD on a configfs-like stand-in tree at ROOT
# (tests/fakecfs.so makes and removes what configfs makes with a
# directory, with its defaults).
fcfs() {
	local root=$1
	shift
	DAMO_CONFIGFS=$root FAKECFS_ROOT=$root LD_PRELOAD=$FAKECFS "$@"
}

# intervals_goal in a tree as configfs makes it (a context comes with the
# group, which goes with it): restore writes it, status shows it, clear
# removes it with its context.
test_intervals_goal_fakecfs() {
	local R=$T/igf c f v=
	[ -f "$FAKECFS" ] || skip "no $FAKECFS (make -C tools builds it)"
	mkdir -p "$R/contexts"
	echo "ops:paddr intervals_goal" > "$R/features"
	cat > "$T/igf.conf" <<-'TXT'
	context stat {
		operations paddr
		intervals_goal {
			access_bp 250
			aggrs 4
			max_sample_us 2000000
		}
		target ram {
		}
		state on
	}
	TXT
	fcfs "$R" "$DAMO" restore "$T/igf.conf"
	c=$R/contexts/stat
	# (a write leaves no newline behind in a stand-in file)
	for f in access_bp aggrs min_sample_us max_sample_us; do
		v+="$(cat "$c/intervals_goal/$f") "
	done
	[ "$v" = "250 4 5000 2000000 " ]
	fcfs "$R" "$DAMO" status > "$T/out"
	grep -qx "  intervals goal: 2.5 % of the observable accesses, checked every 4 aggregations; sample 5 ms..2 s" "$T/out"
	fcfs "$R" "$DAMO" status --raw-numbers |
		grep -qx "  intervals goal: 250 bp of the observable accesses, checked every 4 aggregations; sample 5000 us..2000000 us"
	fcfs "$R" "$DAMO" status --json | python3 -c '
import json, sys
c, = json.load(sys.stdin)["contexts"]
assert c["intervals_goal"] == {"access_bp": 250, "aggrs": 4,
    "min_sample_us": 5000, "max_sample_us": 2000000}, c
# on, but no aggregation yet: nothing to estimate from
assert c["estimated_memory_bandwidth"] is None, c
assert c["memory_idle_us_percentiles"] is None, c'
	# not tuning: no line, but JSON has the values
	echo 0 > "$c/intervals_goal/access_bp"
	fcfs "$R" "$DAMO" status > "$T/out"
	! grep -q "intervals goal" "$T/out" || false
	fcfs "$R" "$DAMO" status --json |
		grep -q '"intervals_goal": {"access_bp": 0, "aggrs": 4,'
	# save: the group as it is now (no longer tuning, but not at the
	# defaults either)
	fcfs "$R" "$DAMO" save - | grep -A5 -x "	intervals_goal {" |
		diff -u - <(printf '\t%s\n' "intervals_goal {" "	access_bp 0" \
			"	aggrs 4" "	min_sample_us 5000" \
			"	max_sample_us 2000000" "}")
	fcfs "$R" "$DAMO" clear
	[ -z "$(ls "$R/contexts")" ]
}

# status: a running context's estimated bandwidth and idle percentiles,
# from its targets' snapshots together, worked out by hand.
test_status_access() {
	local R=$T/sa c M=1048576
	c=$R/contexts/ram
	sv_ctx "$c" state=on kdamond_pid=7 nr_aggregations=9
	# 10 MiB, 20 samples an aggregation of 100 ms: 2 MiB * 10/20 +
	# 1 MiB * 20/20 touched per aggregation, 20 MiB/s; idle 0 (3 MiB),
	# 300 ms (4 MiB), 5 s (1 MiB), 60 s (2 MiB); p70 is 7 MiB exactly
	printf '%d %d %d %d\n' 0 $M 0 50 $M $((3 * M)) 10 4 \
		$((3 * M)) $((4 * M)) 20 1 $((4 * M)) $((8 * M)) 0 3 \
		$((8 * M)) $((10 * M)) 0 600 > "$c/targets/ram/snapshot"
	# a vaddr context, 5 samples of 50 ms: its two targets' snapshots
	# count together, 28 KiB: 8 KiB * 5/5 per 50 ms, 160 KiB/s; idle 0
	# (8 KiB, under 30 %), 500 ms (16 KiB at age 10, to 24 KiB: 85.7 %),
	# 2 s (4 KiB at age 40)
	local v=$R/contexts/web
	sv_files "$v" state=on kdamond_pid=8 operations=vaddr nr_aggregations=3 \
		sample_us=10000 aggr_us=50000 update_us=1000000 \
		min_nr_regions=10 max_nr_regions=1000
	mkdir -p "$v/schemes"
	sv_files "$v/targets/a" pid=11
	printf '4096 12288 5 2\n12288 16384 0 40\n' > "$v/targets/a/snapshot"
	sv_files "$v/targets/b" pid=12
	printf '65536 81920 0 10\n' > "$v/targets/b/snapshot"
	# off: its snapshot is old news, nothing estimated
	sv_ctx "$R/contexts/zoff" state=off nr_aggregations=2 kdamond_pid=-1
	echo "0 4096 1 1" > "$R/contexts/zoff/targets/ram/snapshot"
	DAMO_CONFIGFS=$R "$DAMO" status > "$T/out"
	diff -u - "$T/out" <<-'TXT'
	context ram: on, kdamond pid 7, paddr, 9 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target ram: no pid, 5 regions
	  estimated memory bandwidth: 20 MiB/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 300 ms, p50 300 ms, p60 300 ms, p70 300 ms, p80 5 s, p90 60 s, p100 60 s
	  no schemes
	context web: on, kdamond pid 8, vaddr, 3 aggregations
	  intervals: sample 10 ms, aggr 50 ms, update 1 s; 10..1000 regions
	  target a: pid 11, 2 regions
	  target b: pid 12, 1 region
	  estimated memory bandwidth: 160 KiB/s
	  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 500 ms, p40 500 ms, p50 500 ms, p60 500 ms, p70 500 ms, p80 500 ms, p90 2 s, p100 2 s
	  no schemes
	context zoff: off, no kdamond, paddr, 2 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target ram: no pid, 1 region
	  no schemes
	TXT
	DAMO_CONFIGFS=$R "$DAMO" status --raw-numbers > "$T/out"
	grep -qx "  estimated memory bandwidth: 20971520 B/s" "$T/out"
	grep -qx "  memory idle time: p0 0 us, p10 0 us, p20 0 us, p30 0 us, p40 300000 us, p50 300000 us, p60 300000 us, p70 300000 us, p80 5000000 us, p90 60000000 us, p100 60000000 us" "$T/out"
	grep -qx "  estimated memory bandwidth: 163840 B/s" "$T/out"
	DAMO_CONFIGFS=$R "$DAMO" status --json > "$T/sa.json"
	python3 - "$T/sa.json" <<-'PY'
	import json, sys
	ram, web, zoff = json.load(open(sys.argv[1]))["contexts"]
	keys = ["p%d" % p for p in range(0, 101, 10)]
	assert ram["estimated_memory_bandwidth"] == 20 * 2**20, ram
	p = ram["memory_idle_us_percentiles"]
	assert list(p) == keys, p
	assert list(p.values()) == [0, 0, 0, 0, 300000, 300000, 300000, 300000,
	                            5000000, 60000000, 60000000], p
	assert web["estimated_memory_bandwidth"] == 163840, web
	assert list(web["memory_idle_us_percentiles"].values()) == \
	    [0] * 3 + [500000] * 6 + [2000000] * 2, web
	assert zoff["estimated_memory_bandwidth"] is None, zoff
	assert zoff["memory_idle_us_percentiles"] is None, zoff
	# (a kernel without intervals_goal/: null)
	assert ram["intervals_goal"] is None, ram
	PY
	# a snapshot line that is not one: the file and line, nothing printed
	printf '0 4096 1 1\n4096 oops 0 0\n' > "$v/targets/b/snapshot"
	DAMO_CONFIGFS=$R expect_quiet_fail \
		"$v/targets/b/snapshot:2: not \"START END NR_ACCESSES AGE\"" \
		"$DAMO" status
	printf '8192 4096 1 1\n' > "$v/targets/b/snapshot"
	DAMO_CONFIGFS=$R expect_quiet_fail "$v/targets/b/snapshot:1: not" \
		"$DAMO" status --json
	printf '0 4096 1 1 7\n' > "$v/targets/b/snapshot"
	DAMO_CONFIGFS=$R expect_quiet_fail "$v/targets/b/snapshot:1: not" \
		"$DAMO" status
}

# ---- the ready-made policies (tools/policies)

# Every feature word a policy needs.
POLICY_FEATURES="ops:paddr paddr:action:pageout paddr:action:lru_prio paddr:action:lru_deprio paddr:filter:young wmark:free_mem_rate intervals_goal goal:some_mem_psi_us goal:active_mem_bp goal:inactive_mem_bp"

# tree_dump DIR: every file under DIR/contexts as PATH=VALUE, sorted.
tree_dump() {
	(cd "$1/contexts" && find . -type f | sort | while read -r f; do
		printf '%s=%s\n' "${f#./}" "$(cat "$f")"
	done)
}

# The policies pass damo's own checks (restore --dry-run: parse, values,
# what "on" checks, the features they need) and write exactly these files
# with these values, in this order.
test_policies_validate() {
	local P=$TOOLS/policies E=$T/pv p
	[ "$(ls "$P" | tr '\n' ' ')" = "lru_sort.conf reclaim.conf stat.conf " ]
	mkdir -p "$E/contexts"
	echo "$POLICY_FEATURES" > "$E/features"
	for p in reclaim lru_sort stat; do
		DAMO_CONFIGFS=$E "$DAMO" restore --boot --dry-run "$P/$p.conf"
	done | sed "s|$E/contexts/||" > "$T/out"
	diff -u - "$T/out" <<-'TXT'
	mkdir reclaim
	echo paddr > reclaim/operations
	echo 5000 > reclaim/sample_us
	echo 100000 > reclaim/aggr_us
	echo 1000000 > reclaim/update_us
	echo 10 > reclaim/min_nr_regions
	echo 1000 > reclaim/max_nr_regions
	mkdir reclaim/targets/ram
	mkdir reclaim/schemes/cold
	echo pageout > reclaim/schemes/cold/action
	echo 0 > reclaim/schemes/cold/access_pattern/min_size_bytes
	echo 0 > reclaim/schemes/cold/access_pattern/max_nr_accesses
	echo 1200 > reclaim/schemes/cold/access_pattern/min_age
	echo 20 > reclaim/schemes/cold/quotas/ms
	echo 268435456 > reclaim/schemes/cold/quotas/bytes
	echo 2000 > reclaim/schemes/cold/quotas/reset_interval_ms
	echo 0 > reclaim/schemes/cold/quotas/weight_size
	echo 0 > reclaim/schemes/cold/quotas/weight_nr_accesses
	echo 1 > reclaim/schemes/cold/quotas/weight_age
	mkdir reclaim/schemes/cold/quotas/goals/psi
	echo some_mem_psi_us > reclaim/schemes/cold/quotas/goals/psi/target_metric
	echo 2000 > reclaim/schemes/cold/quotas/goals/psi/target_value
	echo free_mem_rate > reclaim/schemes/cold/watermarks/metric
	echo 5000000 > reclaim/schemes/cold/watermarks/interval_us
	echo 500 > reclaim/schemes/cold/watermarks/high
	echo 400 > reclaim/schemes/cold/watermarks/mid
	echo 200 > reclaim/schemes/cold/watermarks/low
	mkdir reclaim/schemes/cold/filters/busy
	echo young > reclaim/schemes/cold/filters/busy/type
	echo Y > reclaim/schemes/cold/filters/busy/matching
	echo on > reclaim/state
	mkdir lru_sort
	echo paddr > lru_sort/operations
	echo 5000 > lru_sort/sample_us
	echo 100000 > lru_sort/aggr_us
	echo 1000000 > lru_sort/update_us
	echo 10 > lru_sort/min_nr_regions
	echo 1000 > lru_sort/max_nr_regions
	mkdir lru_sort/targets/ram
	mkdir lru_sort/schemes/hot
	echo lru_prio > lru_sort/schemes/hot/action
	echo 10 > lru_sort/schemes/hot/access_pattern/min_nr_accesses
	echo 10 > lru_sort/schemes/hot/quotas/ms
	echo 1000 > lru_sort/schemes/hot/quotas/reset_interval_ms
	echo 0 > lru_sort/schemes/hot/quotas/weight_size
	echo 1 > lru_sort/schemes/hot/quotas/weight_nr_accesses
	echo 0 > lru_sort/schemes/hot/quotas/weight_age
	mkdir lru_sort/schemes/hot/quotas/goals/active
	echo active_mem_bp > lru_sort/schemes/hot/quotas/goals/active/target_metric
	echo 5000 > lru_sort/schemes/hot/quotas/goals/active/target_value
	echo free_mem_rate > lru_sort/schemes/hot/watermarks/metric
	echo 5000000 > lru_sort/schemes/hot/watermarks/interval_us
	echo 200 > lru_sort/schemes/hot/watermarks/high
	echo 150 > lru_sort/schemes/hot/watermarks/mid
	echo 50 > lru_sort/schemes/hot/watermarks/low
	mkdir lru_sort/schemes/cold
	echo lru_deprio > lru_sort/schemes/cold/action
	echo 0 > lru_sort/schemes/cold/access_pattern/max_nr_accesses
	echo 1200 > lru_sort/schemes/cold/access_pattern/min_age
	echo 10 > lru_sort/schemes/cold/quotas/ms
	echo 1000 > lru_sort/schemes/cold/quotas/reset_interval_ms
	echo 0 > lru_sort/schemes/cold/quotas/weight_size
	echo 0 > lru_sort/schemes/cold/quotas/weight_nr_accesses
	echo 1 > lru_sort/schemes/cold/quotas/weight_age
	mkdir lru_sort/schemes/cold/quotas/goals/inactive
	echo inactive_mem_bp > lru_sort/schemes/cold/quotas/goals/inactive/target_metric
	echo 5000 > lru_sort/schemes/cold/quotas/goals/inactive/target_value
	echo free_mem_rate > lru_sort/schemes/cold/watermarks/metric
	echo 5000000 > lru_sort/schemes/cold/watermarks/interval_us
	echo 200 > lru_sort/schemes/cold/watermarks/high
	echo 150 > lru_sort/schemes/cold/watermarks/mid
	echo 50 > lru_sort/schemes/cold/watermarks/low
	echo on > lru_sort/state
	mkdir stat
	echo paddr > stat/operations
	echo 5000 > stat/sample_us
	echo 100000 > stat/aggr_us
	echo 200000000 > stat/update_us
	echo 10 > stat/min_nr_regions
	echo 1000 > stat/max_nr_regions
	echo 400 > stat/intervals_goal/access_bp
	echo 3 > stat/intervals_goal/aggrs
	echo 5000 > stat/intervals_goal/min_sample_us
	echo 10000000 > stat/intervals_goal/max_sample_us
	mkdir stat/targets/ram
	echo on > stat/state
	TXT
	# each context in a file of its own, named after the file
	for p in reclaim lru_sort stat; do
		[ "$(grep -c "^context " "$P/$p.conf")" = 1 ]
		grep -qx "context $p {" "$P/$p.conf"
	done
	# a kernel that lacks what a policy needs: said, with the line,
	# before anything changes
	echo "${POLICY_FEATURES/ goal:some_mem_psi_us/}" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"reclaim.conf:$(grep -n "target_metric some_mem_psi_us" "$P/reclaim.conf" | cut -d: -f1): scheme cold: goal psi: this kernel cannot measure some_mem_psi_us" \
		"$DAMO" restore "$P/reclaim.conf"
	echo "${POLICY_FEATURES/ goal:inactive_mem_bp/}" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"lru_sort.conf:$(grep -n "target_metric inactive_mem_bp" "$P/lru_sort.conf" | cut -d: -f1): scheme cold: goal inactive: this kernel cannot measure inactive_mem_bp" \
		"$DAMO" restore "$P/lru_sort.conf"
	echo "${POLICY_FEATURES/ intervals_goal/}" > "$E/features"
	DAMO_CONFIGFS=$E expect_quiet_fail \
		"stat.conf:$(grep -n "^	intervals_goal {" "$P/stat.conf" | cut -d: -f1): context stat: this kernel's DAMON cannot tune monitoring intervals" \
		"$DAMO" restore "$P/stat.conf"
	[ -z "$(ls "$E/contexts")" ]
}

# Restored into a configfs-like tree (tests/fakecfs.so), the policies
# change exactly the files the dry run named, to those values, and
# nothing else; they save and restore again as themselves; status shows
# them; restore --made and clear --only-from, as damon-restore@.service
# runs them, remove one policy and leave the others.
test_policies_restore() {
	local P=$TOOLS/policies R=$T/pr R0=$T/pr0 R2=$T/pr2 p
	[ -f "$FAKECFS" ] || skip "no $FAKECFS (make -C tools builds it)"
	mkdir -p "$R/contexts" "$R0/contexts" "$R2/contexts"
	echo "$POLICY_FEATURES" | tee "$R/features" "$R2/features" > "$R0/features"
	for p in reclaim lru_sort stat; do
		DAMO_CONFIGFS=$R "$DAMO" restore --dry-run "$P/$p.conf"
		fcfs "$R" "$DAMO" restore --boot --made "$T/pr-$p.made" "$P/$p.conf"
		[ "$(grep -v '^#' "$T/pr-$p.made")" = "$p" ]
	done > "$T/pr.dry"
	# the same directories made, nothing written: configfs's defaults
	sed -n "s|^mkdir $R/|$R0/|p" "$T/pr.dry" | fcfs "$R0" xargs mkdir
	python3 - "$T/pr.dry" "$R/" <(tree_dump "$R0") <(tree_dump "$R") <<-'PY'
	import sys
	dry, root, before, after = sys.argv[1:]
	def dump(path):
	    return dict(l.rstrip("\n").split("=", 1) for l in open(path))
	before, after = dump(before), dump(after)
	writes = {}
	for l in open(dry):
	    if l.startswith("echo "):
	        value, path = l[5:].rstrip("\n").split(" > ")
	        path = path[len(root) + len("contexts/"):]
	        assert path in before, path      # a file configfs makes
	        writes[path] = value
	assert len(writes) == 73, len(writes)
	assert set(after) == set(before), set(after) ^ set(before)
	want = dict(before, **writes)
	bad = {k: (v, want[k]) for k, v in after.items() if v != want[k]}
	assert not bad, bad
	PY
	# saved, restored, saved: the same file
	fcfs "$R" "$DAMO" save "$T/pr.conf"
	fcfs "$R2" "$DAMO" restore "$T/pr.conf"
	fcfs "$R2" "$DAMO" save - | cmp - "$T/pr.conf"
	fcfs "$R" "$DAMO" save --json - > "$T/pr.json"
	python3 - "$T/pr.json" <<-'PY'
	import json, sys
	lru, reclaim, stat = json.load(open(sys.argv[1]))["contexts"]
	assert stat["intervals_goal"] == {"access_bp": 400, "aggrs": 3,
	    "min_sample_us": 5000, "max_sample_us": 10000000}, stat
	assert stat["update_us"] == 200000000 and stat["schemes"] == [], stat
	assert "intervals_goal" not in reclaim and "intervals_goal" not in lru
	cold, = reclaim["schemes"]
	assert cold["access_pattern"]["min_age"] == 1200, cold
	assert cold["quotas"]["goals"] == [{"name": "psi",
	    "target_metric": "some_mem_psi_us", "target_value": 2000,
	    "nid": 0}], cold
	assert cold["watermarks"] == {"metric": "free_mem_rate",
	    "interval_us": 5000000, "high": 500, "mid": 400, "low": 200}, cold
	cold, hot = lru["schemes"]
	assert hot["access_pattern"]["min_nr_accesses"] == 10, hot
	assert [hot["quotas"]["goals"][0]["target_metric"],
	        cold["quotas"]["goals"][0]["target_metric"]] == [
	    "active_mem_bp", "inactive_mem_bp"], lru
	PY
	fcfs "$R" "$DAMO" status > "$T/out"
	diff -u - "$T/out" <<-'TXT'
	context lru_sort: on, no kdamond, paddr, 0 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target ram: no pid, 0 regions
	  scheme cold: lru_deprio, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: 10 ms per 1 s, set by 1 goal below that, effective no limit yet, exceeded 0 times
	    goal inactive: inactive_mem_bp, current 0 %, target 50 %
	  scheme hot: lru_prio, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: 10 ms per 1 s, set by 1 goal below that, effective no limit yet, exceeded 0 times
	    goal active: active_mem_bp, current 0 %, target 50 %
	context reclaim: on, no kdamond, paddr, 0 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 1 s; 10..1000 regions
	  target ram: no pid, 0 regions
	  scheme cold: pageout, every aggregation
	    tried 0 regions (0 B), applied 0 regions (0 B)
	    quota: 256 MiB and 20 ms per 2 s, set by 1 goal below that, effective no limit yet, exceeded 0 times
	    goal psi: some_mem_psi_us, current 0 us, target 2 ms
	    filter busy: excludes young
	context stat: on, no kdamond, paddr, 0 aggregations
	  intervals: sample 5 ms, aggr 100 ms, update 200 s; 10..1000 regions
	  intervals goal: 4 % of the observable accesses, checked every 3 aggregations; sample 5 ms..10 s
	  target ram: no pid, 0 regions
	  no schemes
	TXT
	# what the template unit's stop does: that policy's contexts only
	fcfs "$R" "$DAMO" clear --only-from "$T/pr-reclaim.made"
	[ "$(ls "$R/contexts" | tr '\n' ' ')" = "lru_sort stat " ]
	fcfs "$R" "$DAMO" clear
	[ -z "$(ls "$R/contexts")" ]
}

# ------------------------------------------------------------ record, images, heats range

# damo record against a stand-in configfs tree: tests/fakecfs.so (preloaded)
# makes the files configfs would as damo makes directories, and
# tests/fakekdamond.py plays the kdamond (a snapshot of every target every
# aggr_us; state off once every target has exited).
FAKECFS=$(dirname "$DAMO")/fakecfs.so

# fake_start NAME: a stand-in tree at $T/cfs-NAME (R) and its kdamond (KD).
fake_start() {
	local i
	[ -f "$FAKECFS" ] || skip "no $FAKECFS (make -C tools builds it)"
	R=$T/cfs-$1
	mkdir -p "$R/contexts"
	python3 "$HERE/fakekdamond.py" "$R" &
	KD=$!
	for i in $(seq 100); do
		[ -e "$R/ready" ] && return 0
		sleep 0.1
	done
	echo "the stand-in kdamond did not start"
	return 1
}

# fake_stop: the stand-in kdamond ends (a failed test's ends with $T).
fake_stop() {
	touch "$R/stop"
	wait "$KD"
}

# frec ARGS...: damo record on the stand-in tree.
frec() {
	DAMO_CONFIGFS=$R FAKECFS_ROOT=$R LD_PRELOAD=$FAKECFS "$DAMO" record "$@"
}

# ms_since NS: milliseconds from NS (date +%s%N) to now.
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

test_record_mode() {
	local W=$T/rec-mode
	local f
	mkdir -p "$W"
	fake_start mode
	umask 022
	for f in json_compressed json seed; do
		frec -a 20000 --format "$f" -o "$W/m.$f" sleep 0.3 2> /dev/null
		[ "$(stat -c %a "$W/m.$f")" = 600 ]
		"$DAMO" report nr_regions -i "$W/m.$f" --skip 0 > /dev/null
	done
	# a umask that takes owner bits too
	(umask 0277; frec -a 20000 -o "$W/m.277" sleep 0.2 2> /dev/null)
	[ "$(stat -c %a "$W/m.277")" = 600 ]
	# the one kept as FILE.old keeps its mode; the new one is 0600
	chmod 0640 "$W/m.seed"
	frec -a 20000 --format seed -o "$W/m.seed" sleep 0.2 2> /dev/null
	[ "$(stat -c %a "$W/m.seed.old")" = 640 ]
	[ "$(stat -c %a "$W/m.seed")" = 600 ]
	fake_stop
	# convert: to a new file, and in place, whatever the input's mode
	chmod 0644 "$W/m.json"
	"$DAMO" convert -i "$W/m.json" -o "$W/m.conv" --format seed
	[ "$(stat -c %a "$W/m.conv")" = 600 ]
	"$DAMO" convert -i "$W/m.json"
	[ "$(stat -c %a "$W/m.json")" = 600 ]
}

test_record_timeout() {
	local W=$T/rec-timeout
	local t0 ms pid sp v
	mkdir -p "$W"
	fake_start tmo
	t0=$(date +%s%N)
	frec -a 20000 --timeout 1.5 -o "$W/t.data" sleep "1000.$$" 2> "$W/err"
	ms=$(ms_since "$t0")
	cat "$W/err"
	# about 1.5 s: not before, and not the command's 1000 s
	[ "$ms" -ge 1500 ]
	[ "$ms" -lt 20000 ]
	grep -q "; stopped after --timeout 1.5 s$" "$W/err"
	[ "$("$DAMO" report raw -i "$W/t.data" | grep -c '^rel time:')" -ge 10 ]
	# the command damo started got SIGTERM, as on a signal, and is gone
	pid=$(sed -n 's/^damo: recording pid \([0-9]*\) to .*/\1/p' "$W/err")
	[ -n "$pid" ]
	! kill -0 "$pid" 2> /dev/null || false
	! pgrep -f "sleep 1000.$$" > /dev/null || false
	# a process it attached to goes on
	sleep "1001.$$" &
	sp=$!
	frec -a 20000 --timeout 0.5 -o "$W/t2.data" "$sp" 2> "$W/err"
	grep -q "stopped after --timeout 0.5 s" "$W/err"
	kill -0 "$sp"
	kill "$sp"
	fake_stop
	# bad values: exit 1 and a message, before anything is made
	for v in 0 0.0 -1 abc 1. .5 1e3 0.0000000001 1.0000000001 1000000001 ''; do
		DAMO_CONFIGFS=$T/nothing expect_fail \
			"--timeout: '$v' is not a number of seconds above 0" \
			"$DAMO" record --timeout "$v" -o "$W/bad.data" true
	done
	[ ! -e "$W/bad.data" ]
}

test_record_pids() {
	local W=$T/rec-pids
	local p1 p2 n
	mkdir -p "$W"
	fake_start pids
	sleep "1002.$$" &
	p1=$!
	sleep "1003.$$" &
	p2=$!
	frec -a 20000 --timeout 1 -o "$W/two.rec" "$p1" "$p2" 2> "$W/err"
	grep -q "^damo: recording pids $p1 $p2 to $W/two.rec" "$W/err"
	# one context, a target each: every snapshot holds both
	"$DAMO" report raw -i "$W/two.rec" > "$W/raw"
	n=$(grep -c '^rel time:' "$W/raw")
	[ "$n" -ge 10 ]
	[ "$(grep -c '^nr_tasks:  2$' "$W/raw")" -eq "$n" ]
	[ "$(grep -cx "pid:  $p1" "$W/raw")" -eq "$n" ]
	[ "$(grep -cx "pid:  $p2" "$W/raw")" -eq "$n" ]
	# the seed's format holds several too; the reports see each
	frec -a 20000 --timeout 1 --format seed -o "$W/two.seed" "$p1" "$p2" 2> /dev/null
	[ "$("$DAMO" report heats -i "$W/two.seed" --guide | grep -c '^pid:')" -eq 2 ]
	"$DAMO" report wss -i "$W/two.seed" --skip 0 | grep -qx "# pid	$p2"
	kill "$p1" "$p2"
	# without --timeout: it ends once every one of them has exited
	sleep 1 &
	p1=$!
	sleep 2 &
	p2=$!
	frec -a 20000 -o "$W/two2.rec" "$p1" "$p2" 2> "$W/err"
	cat "$W/err"
	! grep -q "stopped" "$W/err" || false
	"$DAMO" report raw -i "$W/two2.rec" | grep -qx "pid:  $p2"
	fake_stop
	[ -z "$(ls "$R/contexts")" ]
	"$DAMO" record --help | grep -q "^usage: damo record \[OPTIONS\] PID \[PID...\]$"
	"$DAMO" record --help | grep -q "^      --timeout SECONDS$"
	# a later operand that is not a pid (a command comes alone), a pid
	# twice: errors, before anything is made
	DAMO_CONFIGFS=$T/nothing expect_fail "'abc' is not a pid" \
		"$DAMO" record -o "$W/bad.data" $$ abc
	DAMO_CONFIGFS=$T/nothing expect_fail "pid $$ is given twice" \
		"$DAMO" record -o "$W/bad.data" $$ $PPID $$
	[ ! -e "$W/bad.data" ]
}

# On a terminal: one line rewritten in place, a few times a second; else
# nothing.  script(1) gives damo a terminal.
test_record_progress() {
	local W=$T/rec-progress
	local n
	command -v script > /dev/null || skip "no script(1) (apt-get install bsdutils)"
	mkdir -p "$W"
	fake_start prog
	script -qc "DAMO_CONFIGFS=$R FAKECFS_ROOT=$R LD_PRELOAD=$FAKECFS $DAMO record -a 20000 --timeout 2 --format seed -o $W/p.data sleep 1004.$$" \
		/dev/null > "$W/tty"
	grep -q $'\r\033\\[Kdamo: recording for [0-9.]* s: [0-9]* snapshots, [0-9.]* [KM]iB written' "$W/tty"
	# 2 s, at most 4 a second: the first, up to 8 more, and slack
	n=$(grep -o 'recording for' "$W/tty" | wc -l)
	[ "$n" -ge 3 ]
	[ "$n" -le 10 ]
	# erased before the summary, which has its own line
	grep -q $'\r\033\\[Kdamo: [0-9]* snapshots of [0-9]* aggregations recorded' "$W/tty"
	# JSON: what is held in memory until the end
	script -qc "DAMO_CONFIGFS=$R FAKECFS_ROOT=$R LD_PRELOAD=$FAKECFS $DAMO record -a 20000 --timeout 1 -o $W/p2.data sleep 1005.$$" \
		/dev/null > "$W/tty"
	grep -q 'snapshots, [0-9.]* [KM]iB in memory (written at the end)' "$W/tty"
	# not a terminal: the first line and the summary, nothing else
	frec -a 20000 --timeout 1 -o "$W/p3.data" sleep "1006.$$" 2> "$W/err"
	[ "$(wc -l < "$W/err")" -eq 2 ]
	! grep -q $'\r' "$W/err" || false
	! grep -q 'recording for' "$W/err" || false
	fake_stop
}

# --paddr: a paddr context, one target without a pid; without --region no
# region directories (all of RAM), with it one each; until --timeout.
test_record_paddr() {
	local W=$T/rec-paddr
	local n
	mkdir -p "$W"
	fake_start paddr
	echo "ops:vaddr ops:fvaddr ops:paddr snapshot nr_aggregations" > "$R/features"
	frec --paddr -a 20000 --timeout 1 -c pa -o "$W/all.rec" 2> "$W/err" &
	# while it runs: operations paddr, one target, no pid, no regions
	for n in $(seq 100); do
		[ "$(cat "$R/contexts/pa/state" 2> /dev/null)" = on ] && break
		sleep 0.05
	done
	[ "$(cat "$R/contexts/pa/operations")" = paddr ]
	[ "$(ls "$R/contexts/pa/targets")" = 0 ]
	[ "$(cat "$R/contexts/pa/targets/0/pid")" = -1 ]
	[ -z "$(ls "$R/contexts/pa/targets/0/regions")" ]
	wait $!
	cat "$W/err"
	grep -q "^damo: recording physical memory (all of RAM) to $W/all.rec (context pa)$" "$W/err"
	grep -q "; stopped after --timeout 1 s$" "$W/err"
	"$DAMO" report raw -i "$W/all.rec" > "$W/raw"
	n=$(grep -c '^rel time:' "$W/raw")
	[ "$n" -ge 10 ]
	[ "$(grep -cx 'pid:  0' "$W/raw")" -eq "$n" ]
	"$DAMO" report wss -i "$W/all.rec" --skip 0 > /dev/null
	"$DAMO" report nr_regions -i "$W/all.rec" --skip 0 > /dev/null
	# --region: those ranges, decimal or hexadecimal; the seed's format too
	frec --paddr --region 0x200000-0x300000 --region 8388608-9437184 \
		-a 20000 --timeout 1 --format seed -o "$W/r.rec" 2> "$W/err"
	grep -q "recording physical memory (the --region ranges)" "$W/err"
	"$DAMO" report raw -i "$W/r.rec" > "$W/raw"
	n=$(grep -c '^rel time:' "$W/raw")
	[ "$n" -ge 10 ]
	[ "$(grep -c '^000000200000-000000300000(     1 MiB):' "$W/raw")" -eq "$n" ]
	[ "$(grep -c '^000000800000-000000900000(     1 MiB):' "$W/raw")" -eq "$n" ]
	[ "$(grep -cx 'nr_regions:  2' "$W/raw")" -eq "$n" ]
	"$DAMO" report heats -i "$W/r.rec" --guide | grep -qx 'pid:0'
	[ -z "$(ls "$R/contexts")" ]
	# errors, before anything is made
	expect_fail "--paddr records physical memory: no PID or command ('$$')" \
		frec --paddr -o "$W/bad.data" $$
	expect_fail "--paddr records physical memory: no PID or command ('true')" \
		frec --paddr -o "$W/bad.data" true
	expect_fail "--region is for --paddr" \
		frec --region 0-4096 -o "$W/bad.data" true
	expect_fail "--region: 'x' is not START-END" \
		frec --paddr --region x -o "$W/bad.data"
	expect_fail "--region: '8192-4096': the end is not above the start" \
		frec --paddr --region 8192-4096 -o "$W/bad.data"
	expect_fail "--region: '4096-12288' overlaps 0-0x2000" \
		frec --paddr --region 0-8192 --region 4096-12288 -o "$W/bad.data"
	# a kernel without the paddr operations
	echo "ops:vaddr ops:fvaddr snapshot nr_aggregations" > "$R/features"
	expect_fail "--paddr: this kernel's DAMON cannot monitor physical memory (no ops:paddr in $R/features" \
		frec --paddr -o "$W/bad.data"
	rm "$R/features"
	expect_fail "reading $R/features: No such file or directory" \
		frec --paddr -o "$W/bad.data"
	[ ! -e "$W/bad.data" ]
	[ -z "$(ls "$R/contexts")" ]
	fake_stop
	"$DAMO" record --help | grep -q -- "^      --paddr "
	"$DAMO" record --help | grep -q -- "^      --region START-END$"
}

# The type is the extension, for heatmaps and plots; -o - is a PNG on
# standard output; nothing else is guessed.
test_image_types() {
	local W=$T/images
	local e want
	mkdir -p "$W"
	for e in png svg pdf; do
		case $e in
		png) want="PNG image data" ;;
		svg) want="SVG Scalable Vector Graphics image" ;;
		pdf) want="PDF document" ;;
		esac
		"$DAMO" report heatmap -i "$T/simple.data" -o "$W/img.$e"
		file -b "$W/img.$e" | grep -q "^$want"
		"$DAMO" report wss -i "$T/simple.data" --skip 0 --plot "$W/plot.$e" > /dev/null
		file -b "$W/plot.$e" | grep -q "^$want"
	done
	# the extension in any case
	"$DAMO" report heatmap -i "$T/simple.data" -o "$W/IMG.PNG"
	cmp "$W/IMG.PNG" "$W/img.png"
	# -o - to a pipe: the same PNG; no file called - or stdout anywhere
	mkdir "$W/cwd"
	cd "$W/cwd"
	"$DAMO" report heatmap -i "$T/simple.data" -o - | cmp - "$W/img.png"
	"$DAMO" report heats -i "$T/simple.data" --heatmap - | file -b - | grep -q "^PNG image data, 1000 x 640"
	# a plot to standard output: the image only (the text would spoil it)
	"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 --plot - > "$W/p.out"
	file -b "$W/p.out" | grep -q "^PNG image data, 800 x 500"
	expect_quiet_fail "stdout: unknown image type: the name must end in .png, .svg or .pdf (or be - for a PNG on standard output)" \
		"$DAMO" report heatmap -i "$T/simple.data" -o stdout
	expect_quiet_fail "stdout: unknown image type" \
		"$DAMO" report wss -i "$T/simple.data" --skip 0 --plot stdout
	[ -z "$(ls -A)" ]
	# unknown or no extension: exit 1, the accepted ones named, nothing written
	expect_quiet_fail "$W/h.jpg: unknown image type: the name must end in .png, .svg or .pdf" \
		"$DAMO" report heatmap -i "$T/simple.data" -o "$W/h.jpg"
	expect_quiet_fail "$W/p.gif: unknown image type" \
		"$DAMO" report nr_regions -i "$T/simple.data" --skip 0 -p "$W/p.gif"
	expect_quiet_fail "$W/h: unknown image type" \
		"$DAMO" report heats -i "$T/simple.data" --heatmap "$W/h"
	expect_quiet_fail "$W/png.d/x: unknown image type" \
		"$DAMO" report heatmap -i "$T/simple.data" -o "$W/png.d/x"
	[ ! -e "$W/h.jpg" ]
	[ ! -e "$W/p.gif" ]
	[ ! -e "$W/h" ]
	"$DAMO" report heatmap --help | grep -q "^                       .png, .svg or .pdf; - writes a PNG to stdout$"
	"$DAMO" report wss --help | grep -q "FILE.png, .svg or .pdf; - a PNG to stdout"
	# the terminal too would go to standard output with the image
	expect_quiet_fail "-o - and --term both write to standard output" \
		"$DAMO" report heatmap -i "$T/simple.data" -o - --term
}

# A damo built without cairo: configured by hand (NO_CAIRO=1) or because
# pkg-config finds none; a pkg-config that hides cairo shows that nothing
# of cairo is needed, not even its headers.
test_no_cairo_build() {
	local W=$T/nocairo
	local nc=$W/nocairo/damo pc
	mkdir -p "$W"
	pc=$(command -v pkg-config) || skip "no pkg-config"
	mkdir -p "$W/nopc"
	printf '#!/bin/sh\ncase " $* " in *" cairo "*) exit 1 ;; esac\nexec %s "$@"\n' \
		"$pc" > "$W/nopc/pkg-config"
	chmod +x "$W/nopc/pkg-config"
	# cairo not found: a warning, then the build without it
	PATH=$W/nopc:$PATH make -n -C "$TOOLS" O="$W/nc-auto" > "$W/out" 2>&1
	grep -q "cairo not found: building damo without images" "$W/out"
	grep -q -- "-DDAMO_NO_CAIRO" "$W/out"
	! grep -q -- "-lcairo\|canvas\.c\|heatimg\.c" "$W/out" || false
	PATH=$W/nopc:$PATH make -s -C "$TOOLS" O="$W/nocairo" NO_CAIRO=1 \
		"$W/nocairo/damo" "$W/nocairo/unit" > "$W/out" 2>&1 ||
		{ cat "$W/out"; return 1; }
	! ldd "$nc" | grep -q cairo || false
	"$W/nocairo/unit" "$W/nc.counts" > "$W/out" || { cat "$W/out"; return 1; }
	grep -q "^ok - heatmap: built without cairo, images fail" "$W/out"
	# the terminal heatmap, as with cairo
	"$DAMO" report heatmap -i "$T/simple.data" --tres 30 --ares 8 > "$W/a"
	"$nc" report heatmap -i "$T/simple.data" --tres 30 --ares 8 > "$W/b"
	cmp "$W/a" "$W/b"
	# images: exit 1, what to do, nothing written
	expect_quiet_fail "install libcairo2-dev and rebuild damo" \
		"$nc" report heatmap -i "$T/simple.data" -o "$W/nc.png"
	expect_quiet_fail "install libcairo2-dev and rebuild damo" \
		"$nc" report heatmap -i "$T/simple.data" -o -
	expect_quiet_fail "install libcairo2-dev and rebuild damo" \
		"$nc" report wss -i "$T/simple.data" --skip 0 --plot "$W/nc.svg"
	[ ! -e "$W/nc.png" ]
	[ ! -e "$W/nc.svg" ]
	# everything else works
	"$nc" report heats -i "$T/simple.data" --tres 7 --ares 5 > "$W/b"
	"$DAMO" report heats -i "$T/simple.data" --tres 7 --ares 5 | cmp - "$W/b"
	"$nc" convert -i "$T/simple.data" -o "$W/nc.jz"
	"$DAMO" convert -i "$T/simple.data" -o "$W/c.jz"
	cmp "$W/nc.jz" "$W/c.jz"
	"$nc" record --help | grep -q "^usage: damo record"
	# and installs without cairo
	PATH=$W/nopc:$PATH make -s -C "$TOOLS" O="$W/nocairo" NO_CAIRO=1 \
		install PREFIX="$W/nc-inst/usr" > "$W/out" 2>&1 ||
		{ cat "$W/out"; return 1; }
	"$W/nc-inst/usr/bin/damo" version | grep -q "^damo "
	! ldd "$W/nc-inst/usr/bin/damo" | grep -q cairo || false
}

# heats' default address range: the largest range some snapshot covered.
# mkrec.py's latemap is the issue's case: a process that maps 32 MiB after
# the first snapshot.  The seed's rule gives [0x80800000, 0x7fbffff000):
# the 32 MiB, 509 GiB that no snapshot covered, the stack.
LATE_OURS="2155872256-2189426688"
LATE_SEEDS="2155872256 548682067968"

test_heats_range() {
	local W=$T/heats-range
	mkdir -p "$W"
	python3 "$HERE/mkrec.py" latemap "$W/late.data"
	"$DAMO" report heats -i "$W/late.data" --tres 10 --ares 10 > "$W/out" 2> "$W/err"
	# said on stderr; the rows are 32 MiB / 10 apart
	grep -qx "damo: heats: address range $LATE_OURS (pid 7)" "$W/err"
	[ "$(sed -n 2p "$W/out" | cut -f2)" = 3355443 ]
	# the range said gives the same grid; a given range is not said
	"$DAMO" report heats -i "$W/late.data" --tres 10 --ares 10 \
		--amin "${LATE_OURS%-*}" --amax "${LATE_OURS#*-}" 2> "$W/err" | cmp - "$W/out"
	[ ! -s "$W/err" ]
	# over the seed's range, rows 54,652,619,571 apart, and but for the
	# first (the 32 MiB) and the last (the stack) all are empty at all
	# times: there is nothing in them to see
	set -- $LATE_SEEDS
	"$DAMO" report heats -i "$W/late.data" --tres 10 --ares 10 \
		--amin "$1" --amax "$2" > "$W/seedrange"
	[ "$(sed -n 2p "$W/seedrange" | cut -f2)" = 54652619571 ]
	awk -F'\t' '$2 != 0 && $2 != 491873576139 && $3 != 0 { bad++ }
		END { exit bad > 0 }' "$W/seedrange"
	# one end given: the other is the default, and the range is said
	"$DAMO" report heats -i "$W/late.data" --amin 2155872256 --tres 1 \
		--ares 1 2>&1 > /dev/null | grep -qx "damo: heats: address range $LATE_OURS (pid 7)"
	# a heatmap says it once, though it computes the grid twice
	"$DAMO" report heatmap -i "$W/late.data" -o "$W/late.png" --term \
		2> "$W/err" > /dev/null
	[ "$(grep -c 'address range' "$W/err")" -eq 1 ]
}

# The seed's patches: $DAMO_SEEDS, or ../shared/seeds beside the checkout
# or beside the one it was cloned from (as scripts/oracle-dir.sh looks
# for the oracle).
seed_dir() {
	local top=$(dirname "$TOOLS") origin d
	if [ -n "${DAMO_SEEDS:-}" ]; then
		echo "$DAMO_SEEDS"
		return
	fi
	origin=$(git -C "$top" config --get remote.origin.url 2> /dev/null)
	for d in "$top/../shared/seeds" ${origin:+"$origin/../shared/seeds"}; do
		if [ -d "$d" ]; then
			echo "$d"
			return
		fi
	done
	echo "$top/../shared/seeds"
}

# The seed's heats.py itself (from its patch, into $T/seed), where python3
# can run it: its default range is the one above, its figures on that
# range ours, and on records where its rule and ours cannot differ (gaps
# alike in every snapshot) its range is ours.
test_heats_seed_script() {
	local W=$T/heats-seed
	local seeds p r line
	command -v python3 > /dev/null || skip "no python3: the seed's heats.py cannot run"
	mkdir -p "$W"
	seeds=$(seed_dir)
	p=$(grep -l '^+++ b/tools/damon/heats.py$' "$seeds"/*.patch 2> /dev/null | head -1)
	[ -n "$p" ] || skip "no seed patch with tools/damon/heats.py in $seeds (set DAMO_SEEDS)"
	mkdir -p "$W/seed"
	awk '/^\+\+\+ b\/tools\/damon\/heats.py$/ { on = 1; next }
	     on && /^diff --git/ { exit }
	     on && /^\+/ { print substr($0, 2) }' "$p" > "$W/seed/heats.py"
	python3 "$W/seed/heats.py" --help > /dev/null 2>&1 ||
		skip "the seed's heats.py does not run with this python3"
	cat > "$W/seed/range.py" <<-'EOF'
	# The range the seed's heats.py would choose: "PID AMIN AMAX".
	import argparse, sys
	sys.path.insert(0, sys.argv[1])
	import heats
	a = argparse.Namespace(input=sys.argv[2], pid=None, tmin=None,
	                       tmax=None, amin=None, amax=None)
	heats.set_missed_args(a)
	print(a.pid, a.amin, a.amax)
	EOF
	python3 "$HERE/mkrec.py" latemap "$W/late.data"
	[ "$(python3 "$W/seed/range.py" "$W/seed" "$W/late.data")" = "7 $LATE_SEEDS" ]
	# its rows: 54,652,619,571 apart, as in the issue
	python3 "$W/seed/heats.py" -i "$W/late.data" --tres 10 --ares 10 > "$W/seed.out"
	[ "$(sed -n 2p "$W/seed.out" | cut -f2)" = 54652619571 ]
	# our figures on its range: the same, a time bin later in its output
	# (it labels each bin with the next one's time and leaves out the
	# last), but in the top address bin (it cuts every region's end to
	# amax - 1, and the stack ends at amax: a byte less of it)
	set -- $LATE_SEEDS
	"$DAMO" report heats -i "$W/late.data" --tres 10 --ares 10 \
		--amin "$1" --amax "$2" > "$W/ours"
	diff <(sed -n 11,100p "$W/seed.out" | cut -f2,3 | grep -v ^491873576139) \
		<(sed -n 1,90p "$W/ours" | cut -f2,3 | grep -v ^491873576139)
	for r in simple two; do
		line=$("$DAMO" report heats -i "$T/$r.data" --tres 1 --ares 1 2>&1 > /dev/null)
		[[ "$line" =~ address\ range\ ([0-9]+)-([0-9]+)\ \(pid\ ([0-9]+)\) ]]
		[ "$(python3 "$W/seed/range.py" "$W/seed" "$T/$r.data")" = \
		  "${BASH_REMATCH[3]} ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" ]
	done
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
	! grep -q 'Wants=' "$u" || false
	grep -qx "Type=oneshot" "$u"
	grep -qx "RemainAfterExit=yes" "$u"
	grep -qx "Requires=sys-kernel-config.mount" "$u"
	grep -qx "After=sys-kernel-config.mount" "$u"
	command -v man > /dev/null && MANPATH=$T/inst/usr/share/man man -w damo > /dev/null
	# the template: an instance restores the policy it names, from where
	# the policies are installed, and stops what it made
	local tu=$T/inst/usr/lib/systemd/system/damon-restore@.service
	local pd=$T/inst/usr/share/damon/policies
	grep -qx "Environment=DAMON_POLICY=$pd/%i.conf" "$tu"
	grep -qx "ExecStart=$T/inst/usr/bin/damo restore --boot --made /run/damon-policy/%i/contexts \${DAMON_POLICY}" "$tu"
	grep -qx "ExecStop=$T/inst/usr/bin/damo clear --only-from /run/damon-policy/%i/contexts" "$tu"
	grep -qx "RuntimeDirectory=damon-policy/%i" "$tu"
	grep -qx "ConditionPathIsDirectory=/sys/kernel/config/damon" "$tu"
	grep -qx "Type=oneshot" "$tu"
	grep -qx "RemainAfterExit=yes" "$tu"
	grep -qx "Requires=sys-kernel-config.mount" "$tu"
	grep -qx "After=sys-kernel-config.mount" "$tu"
	grep -qx "WantedBy=multi-user.target" "$tu"
	! grep -q "/usr/local" "$tu" || false
	# what systemd would run for damon-restore@reclaim, with %i and
	# ${DAMON_POLICY} put in, and /run in $T, on a configfs-like tree
	local inst=reclaim run R=$T/inst-cfs cmd
	[ -f "$FAKECFS" ] || skip "no $FAKECFS (make -C tools builds it)"
	mkdir -p "$R/contexts" "$T/run/damon-policy/$inst"
	echo "$POLICY_FEATURES" > "$R/features"
	unit_cmd() {
		sed -n "s|^$1=||p" "$tu" | sed -e "s|%i|$inst|g" \
			-e "s|/run/|$T/run/|g" -e "s|\\\${DAMON_POLICY}|$pd/$inst.conf|"
	}
	[ "$(sed -n 's|^Environment=DAMON_POLICY=||p' "$tu" | sed "s|%i|$inst|")" = "$pd/$inst.conf" ]
	read -r -a cmd <<< "$(unit_cmd ExecStart)"
	[ "${cmd[*]}" = "$T/inst/usr/bin/damo restore --boot --made $T/run/damon-policy/reclaim/contexts $pd/reclaim.conf" ]
	fcfs "$R" "${cmd[@]}"
	[ "$(ls "$R/contexts")" = reclaim ]
	[ "$(cat "$R/contexts/reclaim/schemes/cold/action")" = pageout ]
	read -r -a cmd <<< "$(unit_cmd ExecStop)"
	fcfs "$R" "${cmd[@]}"
	[ -z "$(ls "$R/contexts")" ]
	command -v systemd-analyze > /dev/null ||
		skip "no systemd-analyze (apt-get install systemd)"
	# with the man page findable, as Documentation=man:damo(1) is checked
	MANPATH=$T/inst/usr/share/man systemd-analyze verify "$u"
	# the template, as itself and as an instance of it
	MANPATH=$T/inst/usr/share/man systemd-analyze verify "$tu"
	MANPATH=$T/inst/usr/share/man systemd-analyze verify \
		"$(dirname "$tu")/damon-restore@reclaim.service"
	# and it does catch a broken unit
	sed 's|^ExecStart=/|ExecStart=|' "$u" > "$T/damon-restore.service"
	! MANPATH=$T/inst/usr/share/man systemd-analyze verify \
		"$T/damon-restore.service" 2> /dev/null || false
	mkdir -p "$T/broken"
	sed 's|^ExecStop=/|ExecStop=|' "$tu" > "$T/broken/damon-restore@.service"
	! MANPATH=$T/inst/usr/share/man systemd-analyze verify \
		"$T/broken/damon-restore@stat.service" 2> /dev/null || false
}

# make install into DESTDIR: every file where the Makefile's head says,
# with its mode, and the units name the PREFIX paths, not DESTDIR's.
test_install_destdir() {
	local D=$T/destdir f
	make -s -C "$TOOLS" install DESTDIR="$D" PREFIX=/usr > "$T/out" 2>&1 ||
		{ cat "$T/out"; return 1; }
	(cd "$D" && find . -type f -printf '%m %p\n' | sort) > "$T/out"
	diff -u - "$T/out" <<-'TXT'
	644 ./usr/lib/systemd/system/damon-restore.service
	644 ./usr/lib/systemd/system/damon-restore@.service
	644 ./usr/share/damon/policies/lru_sort.conf
	644 ./usr/share/damon/policies/reclaim.conf
	644 ./usr/share/damon/policies/stat.conf
	644 ./usr/share/man/man1/damo.1
	755 ./usr/bin/damo
	TXT
	for f in lru_sort reclaim stat; do
		cmp "$TOOLS/policies/$f.conf" "$D/usr/share/damon/policies/$f.conf"
	done
	cmp "$(dirname "$TOOLS")/Documentation/damo.1" "$D/usr/share/man/man1/damo.1"
	cmp "$DAMO" "$D/usr/bin/damo"
	local u=$D/usr/lib/systemd/system
	grep -qx "ExecStart=/usr/bin/damo restore --boot --wait 30 --made /run/damon-restore/contexts /etc/damon/damon.conf" "$u/damon-restore.service"
	grep -qx "Environment=DAMON_POLICY=/usr/share/damon/policies/%i.conf" "$u/damon-restore@.service"
	grep -qx "ExecStart=/usr/bin/damo restore --boot --made /run/damon-policy/%i/contexts \${DAMON_POLICY}" "$u/damon-restore@.service"
	grep -qx "ExecStop=/usr/bin/damo clear --only-from /run/damon-policy/%i/contexts" "$u/damon-restore@.service"
	! grep -rq "$D\|/usr/local" "$u" || false
	# the defaults: /usr/local; UNITDIR and POLICYDIR of their own
	make -s -C "$TOOLS" install DESTDIR="$T/destdir2" UNITDIR=/lib/systemd/system \
		POLICYDIR=/usr/share/damo > "$T/out" 2>&1 || { cat "$T/out"; return 1; }
	[ -x "$T/destdir2/usr/local/bin/damo" ]
	[ -f "$T/destdir2/usr/local/share/man/man1/damo.1" ]
	[ "$(ls "$T/destdir2/usr/share/damo" | tr '\n' ' ')" = "lru_sort.conf reclaim.conf stat.conf " ]
	grep -qx "Environment=DAMON_POLICY=/usr/share/damo/%i.conf" \
		"$T/destdir2/lib/systemd/system/damon-restore@.service"
	grep -qx "ExecStop=/usr/local/bin/damo clear --only-from /run/damon-policy/%i/contexts" \
		"$T/destdir2/lib/systemd/system/damon-restore@.service"
}

t "report raw: the seed's text, byte for byte" test_raw
t "report wss: percentiles, average, --skip, --range" test_wss
t "report nr_regions: by size and in time order" test_nr_regions
t "report raw, wss, nr_regions: units; --raw-numbers" test_report_units
t "report raw, wss, nr_regions --json: the schemas, the same figures" test_report_json
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
t "--help and the man page: --json, --raw-numbers, --by-unit, intervals_goal, estimates" test_help_new_options
t "damo version: every spelling; the man page agrees" test_version
t "usage texts: the command and report type lists" test_usage_text
t "option arguments: every kind's error; operands" test_option_errors
t "no configfs: a clear message, nothing written" test_no_configfs
t "restore --dry-run: checks, resolves, prints the writes in order" test_restore_dry_run
t "restore --boot: pid targets refused; command and unit targets resolved" test_restore_boot
t "save --by-unit: the unit of each pid, from /proc/PID/cgroup" test_save_by_unit
t "restore of unit targets: the main process; not running: an error" test_restore_by_unit
t "restore --made, clear --only-from: only the contexts restored go" test_restore_made_clear
t "save: the file format, and read errors name the file" test_save_standin
t "save --json: the schema; restore of it saves the same again" test_save_json
t "restore of JSON: errors name the line; nothing done" test_restore_json_errors
t "restore of quota goals: their metrics must be in features" test_restore_goal_features
t "status: text and --json of a stand-in tree; errors" test_status_standin
t "save: intervals_goal when not at its defaults; restore; the same again" test_save_intervals_goal
t "restore of intervals_goal: only where features lists it; its relation" test_restore_intervals_features
t "intervals_goal in a configfs-like tree: restore, status, save, clear" test_intervals_goal_fakecfs
t "status: estimated bandwidth and idle time percentiles, by hand" test_status_access
t "policies: damo's checks pass; the writes, in order; what a kernel lacks" test_policies_validate
t "policies: exactly those files in a configfs-like tree; save, status, clear" test_policies_restore
t "record: the file is 0600 whatever the umask; convert's too" test_record_mode
t "record --timeout: stops, SIGTERMs the command it started; bad values" test_record_timeout
t "record PID PID...: one context, a target each, until all exit" test_record_pids
t "record: progress on a terminal only, a few times a second" test_record_progress
t "record --paddr: a paddr context, all of RAM or --region ranges; errors" test_record_paddr
t "images: .png .svg .pdf by extension, -o - a PNG on stdout, others refused" test_image_types
t "built without cairo: terminal heatmap, image errors, make install" test_no_cairo_build
t "heats: the default address range, said on stderr; the seed's differs" test_heats_range
t "heats: the seed's heats.py on the same records" test_heats_seed_script
t "make install; the template unit restores its policy; systemd-analyze verify on both units" test_install_unit
t "make install DESTDIR=: every file where documented, the units naming PREFIX's paths" test_install_destdir

echo "# cli: $passed passed, $failed failed, $skipped skipped"
echo "$passed $failed $skipped" > "$COUNTS"
[ "$failed" -eq 0 ]
