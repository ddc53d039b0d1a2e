#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Smoke tests of the selftest machine itself: that the suites run as root
# in the test machine (UML or QEMU) with private mounts, that the workloads
# behave as the other suites assume, and that a DAMON is built into the
# kernel under test.

# bats file_tags=x86
load lib

setup() {
	st_trace_test_only
}

teardown() {
	st_cleanup
}

@test "runs as root inside the test machine (UML or QEMU), under init.sh" {
	[ "$(id -u)" -eq 0 ]
	[[ "$(tr '\0' ' ' < /proc/1/cmdline)" == *"/selftests/init.sh "* ]]
	grep -q "^Linux version $(uname -r) " /proc/version
	if [ "$(st_platform)" = uml ]; then
		# UML reports the host's machine in uname -m; cpuinfo is its own.
		grep -q '^vendor_id[[:space:]]*: User Mode Linux$' /proc/cpuinfo
		grep -q '^model name[[:space:]]*: UML$' /proc/cpuinfo
	else
		# QEMU's TCG CPUs, and the host's root over virtio-9p
		[ "$(uname -m)" = x86_64 ]
		grep -q '^model name.*QEMU' /proc/cpuinfo
		[ "$(st_mount_type /)" = 9p ]
	fi
}

@test "/proc, /sys and /dev are this kernel's" {
	[ "$(stat -f -c %T /proc)" = proc ]
	[ "$(st_mount_type /proc)" = proc ]
	[ "$(st_mount_type /sys)" = sysfs ]
	[ "$(st_mount_type /dev)" = devtmpfs ]
	[ "$(cat /proc/sys/kernel/osrelease)" = "$(uname -r)" ]
	[ -c /dev/null ] && [ -c /dev/zero ]
}

@test "configfs is mounted at /sys/kernel/config" {
	grep -qw configfs /proc/filesystems || skip "CONFIG_CONFIGFS_FS is not set"
	[ "$(st_mount_type /sys/kernel/config)" = configfs ]
	[ -d /sys/kernel/config ]
}

@test "/tmp is a private tmpfs" {
	[ "$(st_mount_type /tmp)" = tmpfs ]
	[ "$(stat -f -c %T /tmp)" = tmpfs ]
	[[ "$BATS_TEST_TMPDIR" == /tmp/* ]]
	echo probe > "$BATS_TEST_TMPDIR/probe"
	[ "$(stat -f -c %T "$BATS_TEST_TMPDIR/probe")" = tmpfs ]
}

@test "hotcold reports page-aligned, disjoint ranges of the asked sizes" {
	local page hot_map cold_map
	page=$(getconf PAGESIZE)
	st_start_hotcold 4 8
	kill -0 "$ST_PID"
	(( HOT_START % page == 0 && HOT_END % page == 0 ))
	(( COLD_START % page == 0 && COLD_END % page == 0 ))
	(( HOT_END - HOT_START == 4 << 20 ))
	(( COLD_END - COLD_START == 8 << 20 ))
	# An unmapped hole separates the two.
	(( HOT_END < COLD_START || COLD_END < HOT_START ))
	# Each range is exactly one private writable mapping.
	hot_map=$(printf '%08x-%08x rw-p ' "$HOT_START" "$HOT_END")
	cold_map=$(printf '%08x-%08x rw-p ' "$COLD_START" "$COLD_END")
	grep -q "^$hot_map" "/proc/$ST_PID/maps"
	grep -q "^$cold_map" "/proc/$ST_PID/maps"
}

@test "hotcold populates both ranges and verifies them on SIGTERM" {
	local pages
	pages=$(( (4 + 8) * 1024 * 1024 / $(getconf PAGESIZE) ))
	st_start_hotcold 4 8
	# Everything is resident once the ranges are printed.
	(( $(st_rss_kib "$ST_PID") >= (4 + 8) * 1024 ))
	sleep 0.5
	kill -0 "$ST_PID"
	st_stop "$ST_PID" TERM
	[ "$ST_STATUS" -eq 0 ]
	grep -qx "verify: ok, $pages pages intact" "$ST_OUT"
}

@test "hotcold detects a corrupted cold page" {
	local page addr
	page=$(getconf PAGESIZE)
	st_start_hotcold 1 2
	addr=$(( COLD_START + 5 * page + 64 ))
	printf 'XXXXXXXX' | dd of="/proc/$ST_PID/mem" bs=8 count=1 \
		seek="$addr" oflag=seek_bytes conv=notrunc status=none
	st_stop "$ST_PID" USR1
	[ "$ST_STATUS" -eq 1 ]
	grep -q "^verify: FAILED cold page 5 word 8: " "$ST_OUT"
}

@test "hotcold -t stops and verifies by itself" {
	st_start_hotcold -t 1 1 1
	st_stop "$ST_PID" 0 30
	[ "$ST_STATUS" -eq 0 ]
	grep -q "^verify: ok" "$ST_OUT"
}

@test "sleeper populates its range and exits 0 on SIGTERM" {
	local pid start end
	st_start sleeper 2
	read -r pid start end <<< "$ST_LINE"
	[ "$pid" = "$ST_PID" ]
	(( end - start == 2 << 20 ))
	(( $(st_rss_kib "$ST_PID") >= 2 * 1024 ))
	st_stop "$ST_PID" TERM
	[ "$ST_STATUS" -eq 0 ]
}

@test "DAMON is built into the kernel" {
	if [ -r /proc/kallsyms ] && [ -s /proc/kallsyms ]; then
		grep -qw damon_ctx_alloc /proc/kallsyms
	else
		# No kallsyms: one of the DAMON interfaces must be there.
		[ -d /sys/kernel/config/damon ] || [ -d /sys/kernel/mm/damon ]
	fi
}

@test "run_kselftest.sh exits 0 on passes, 1 on a failure, 4 when all skip" {
	local d=$BATS_TEST_TMPDIR/ksft
	mkdir -p "$d"
	printf '@test "a" {\n\ttrue\n}\n@test "b" {\n\tskip "why"\n}\n' > "$d/pass.bats"
	printf '@test "a" {\n\ttrue\n}\n@test "b" {\n\tfalse\n}\n' > "$d/fail.bats"
	printf '@test "a" {\n\tskip "why"\n}\n' > "$d/skip.bats"
	run "$ST_DIR/run_kselftest.sh" "$d/pass.bats"
	[ "$status" -eq 0 ] && [[ "$output" == *"ok 2 b # skip why"* ]]
	run "$ST_DIR/run_kselftest.sh" "$d/fail.bats"
	[ "$status" -eq 1 ] && [[ "$output" == *"not ok 2 b"* ]]
	run "$ST_DIR/run_kselftest.sh" "$d/skip.bats"
	[ "$status" -eq 4 ]
	run "$ST_DIR/run_kselftest.sh" "$d/pass.bats" "$d/skip.bats"
	[ "$status" -eq 0 ]
	run "$ST_DIR/run_kselftest.sh" no-such-suite
	[ "$status" -eq 1 ]
}
