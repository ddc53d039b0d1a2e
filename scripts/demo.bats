# SPDX-License-Identifier: GPL-2.0
# The `make demo` scenario, run inside UML by scripts/demo.sh: record the
# phases workload (32 MiB, a hot quarter that moves up every 3 s) with
# `damo record`, into $ST_OUTDIR/demo.data; the workload's own line
# ("PID START END") goes to $ST_OUTDIR/demo.out.  The reports are made on
# the host.

setup() {
	load "$BATS_TEST_DIRNAME/../selftests/lib.bash"
}

teardown() {
	st_cleanup
}

@test "demo: record the phases workload with damo" {
	local damo=$BATS_TEST_DIRNAME/../tools/out/damo
	[ -x "$damo" ] || { echo "$damo is not built (make -C tools)"; return 1; }
	"$damo" record -s 5000 -a 100000 -o "$ST_OUTDIR/demo.data" \
		"$ST_BIN/phases" -p 4 -s 3 32 \
		> "$ST_OUTDIR/demo.out" 2> "$ST_OUTDIR/demo.err" 3>&-
	cat "$ST_OUTDIR/demo.out" "$ST_OUTDIR/demo.err"
	grep -q '^done: 4 phases$' "$ST_OUTDIR/demo.out"
	# damo removed what it made
	[ -z "$(ls /sys/kernel/config/damon/contexts)" ]
}
