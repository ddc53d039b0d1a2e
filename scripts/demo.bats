# SPDX-License-Identifier: GPL-2.0
# The `make demo` scenario, run inside UML by scripts/demo.sh: monitor the
# hotcold workload through configfs with mkdir and echo only, and record a
# snapshot every 200 ms into $ST_OUTDIR/demo.rec ("TIME START END NR AGE").

setup() {
	load "$BATS_TEST_DIRNAME/../selftests/lib.bash"
}

teardown() {
	echo off > /sys/kernel/config/damon/contexts/demo/state 2>/dev/null || true
	rmdir /sys/kernel/config/damon/contexts/demo/targets/app \
	      /sys/kernel/config/damon/contexts/demo 2>/dev/null || true
	st_cleanup
}

@test "demo: monitor hotcold through configfs" {
	local c=/sys/kernel/config/damon/contexts/demo rec=$ST_OUTDIR/demo.rec i

	st_start_hotcold 8 24
	echo "# workload pid $ST_PID hot $HOT_START $HOT_END cold $COLD_START $COLD_END" > "$rec"
	mkdir "$c" "$c/targets/app"
	echo "$ST_PID" > "$c/targets/app/pid"
	echo on > "$c/state"
	for i in $(seq 1 25); do
		sleep 0.2
		awk -v t="$i" '{ print t, $0 }' "$c/targets/app/snapshot" >> "$rec"
	done
	echo "# nr_aggregations $(cat "$c/nr_aggregations") kdamond $(cat /proc/"$(cat "$c/kdamond_pid")"/comm)" >> "$rec"
	echo off > "$c/state"
}
