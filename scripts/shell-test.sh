#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   shell-test.sh COUNTS [x86]
#
# The test of `make shell`, a stage of make check.  Runs `make shell` with
# commands on stdin (UML; with x86 also PLATFORM=x86, the x86_64 kernel
# under QEMU) and checks that the machine is set up (configfs, tracefs,
# swap on zram, damo and the workloads on PATH, root), that a vaddr
# context on a bundled workload runs (it turns on, kdamond_pid is a pid,
# its snapshot has regions, damo sees it), that the shell's stdout and
# stderr come out separate and unchanged (no console lines, no \r), and
# that the shell's exit status reaches make (scripts/shell.sh exits with
# it only if the machine powered off cleanly; make then fails with "Error
# N").  Then drives the interactive UML shell on a pseudo-terminal
# (script(1)): a controlling terminal with job control, `exit N` powering
# off.  Prints TAP and writes "passed failed skipped" to COUNTS.
# SHELL_TEST_TIMEOUT: seconds for one machine (default 300).
# shellcheck disable=SC2016,SC2094 # commands for the machine in single
# quotes; script(1)'s output is polled while it is written
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 COUNTS [x86]" >&2; exit 2; }
counts=$1
platforms=(uml)
[ "${2:-}" = x86 ] && platforms+=(x86)
limit=${SHELL_TEST_TIMEOUT:-300}
tmp=$(mktemp -d /tmp/shell-test.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT

n=0 passed=0 failed=0 skipped=0
# check DESCRIPTION COMMAND...: one TAP line for COMMAND's success.
check() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $what"
		passed=$((passed + 1))
	else
		echo "not ok $n $what"
		failed=$((failed + 1))
		diag
	fi
}
skip() {
	n=$((n + 1))
	echo "ok $n $1 # skip $2"
	skipped=$((skipped + 1))
}
# diag: the run's output, as TAP comments.
diag() {
	local f
	for f in "$tmp/out" "$tmp/err"; do
		[ -f "$f" ] || continue
		echo "# ---- $(basename "$f") ----"
		tr -d '\r' < "$f" | tail -n 40 | sed 's/^/# /'
	done
}

# The commands: a context on the sleeper workload, then markers for the
# output checks.  stderr gets one line; stdout ends without a newline.
cat > "$tmp/cmds" <<'EOF'
echo "config $(stat -f -c %T /sys/kernel/config)"
echo "tracing $(stat -f -c %T /sys/kernel/tracing)"
grep -q '^/dev/zram0 ' /proc/swaps && echo "swap zram0"
echo "damo $(command -v damo)"
echo "sleeper $(command -v sleeper)"
echo "uid $(id -u)"
cd /sys/kernel/config/damon/contexts || exit 1
sleeper 16 > /tmp/sleeper.out &
while [ ! -s /tmp/sleeper.out ]; do sleep 0.1; done
read -r pid _ < /tmp/sleeper.out
mkdir shelltest shelltest/targets/t
echo "$pid" > shelltest/targets/t/pid
echo on > shelltest/state
echo "state $(cat shelltest/state)"
echo "kdamond_pid $(cat shelltest/kdamond_pid)"
sleep 1
echo "nr_aggregations $(cat shelltest/nr_aggregations)"
sed 's/^/snapshot /' shelltest/targets/t/snapshot
damo save - | grep -q shelltest && echo "damo sees shelltest"
echo off > shelltest/state
echo "state $(cat shelltest/state)"
kill "$pid"
wait "$pid"
rmdir shelltest/targets/t shelltest
echo "to stderr" >&2
printf 'the end'
exit 3
EOF

# val KEY: the rest of the output line "KEY rest".
val() { sed -n "s/^$1 //p" "$tmp/out" | head -n 1; }

has_regions() {
	local nr
	# "START END NR_ACCESSES AGE", every line
	nr=$(grep -c '^snapshot ' "$tmp/out")
	[ "$nr" -gt 0 ] &&
		[ "$(grep -cE '^snapshot [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$tmp/out")" = "$nr" ]
}

context_runs() {
	local kpid
	kpid=$(val kdamond_pid)
	[ "$(val state)" = on ] && [[ "$kpid" =~ ^[1-9][0-9]*$ ]] &&
		[ "$(val nr_aggregations)" -gt 0 ] && has_regions &&
		grep -qx 'state off' "$tmp/out" &&
		grep -qx 'damo sees shelltest' "$tmp/out"
}

# exit_status RC: make shell failed as its recipe did, with the shell's 3
# (the script's own status; 125 if the machine had not powered off cleanly).
exit_status() {
	[ "$1" = 2 ] && grep -q '^make\(\[[0-9]*\]\)\?: \*\*\* \[.*shell\] Error 3$' "$tmp/err.all"
}

mounted() {
	[ "$(val config)" = configfs ] && [ "$(val tracing)" = tracefs ]
}

on_path() {
	[ "$(val damo)" = "$top/tools/out/damo" ] &&
		[ "$(val sleeper)" = "$top/selftests/bin/sleeper" ] &&
		[ "$(val uid)" = 0 ]
}

# interactive_ok RC: what the interactive session printed and returned.
interactive_ok() {
	[ "$1" = 2 ] && grep -qa 'shell\] Error 4' "$tmp/out" &&
		grep -qa "tty-42 /dev/tty0"$'\r' "$tmp/out" &&
		grep -qaE "flags-42 [a-zA-Z]*m" "$tmp/out"
}

output_clean() {
	# stdout begins with the first command's line and ends without a
	# newline exactly as printed; stderr is the one line; no \r anywhere
	[ "$(head -n 1 "$tmp/out")" = "config configfs" ] &&
		[ "$(tail -c 7 "$tmp/out")" = "the end" ] &&
		[ "$(cat "$tmp/err")" = "to stderr" ] &&
		! grep -q $'\r' "$tmp/out" "$tmp/err"
}

for p in "${platforms[@]}"; do
	t="make shell PLATFORM=$p, commands on stdin:"
	rm -f "$tmp/out" "$tmp/err"
	start=$SECONDS
	# Builds (nothing, normally) report on stderr; drop those lines.
	timeout -k 10 "$limit" make -s --no-print-directory -C "$top" shell \
		PLATFORM="$p" < "$tmp/cmds" > "$tmp/out" 2> "$tmp/err.all"
	rc=$?
	grep -vE '^  [A-Z0-9_]+ |^make(\[[0-9]+\])?: \*\*\* \[' "$tmp/err.all" > "$tmp/err"
	echo "# $p: make shell exited $rc after $((SECONDS - start))s"
	check "$t the shell's exit status reaches make" exit_status "$rc"
	if ! exit_status "$rc"; then
		for s in "configfs and tracefs" "swap on zram" "damo, workloads" \
			"a vaddr context runs" "stdout and stderr"; do
			skip "$t $s" "the machine did not run the commands"
		done
		continue
	fi
	check "$t configfs and tracefs are mounted" mounted
	check "$t swap on zram" grep -qx 'swap zram0' "$tmp/out"
	check "$t damo and the workloads on PATH, as root" on_path
	check "$t a vaddr context on a workload runs (on, kdamond_pid, snapshot regions, damo sees it)" \
		context_runs
	check "$t stdout and stderr separate and unchanged" output_clean
done

# Interactive: script(1) gives the shell a pseudo-terminal.  The commands
# are typed once the prompt is there (UML reads its console from the
# first keystroke after it opened it: what came before waits for the
# next), and stdin stays open until the machine powers off.  What is typed
# is echoed, so the checks look for what only the commands' output has.
t="make shell, interactive on a terminal:"
if ! command -v script > /dev/null; then
	skip "$t a terminal with job control; exit powers off" "no script(1)"
else
	rm -f "$tmp/err"
	: > "$tmp/out"
	start=$SECONDS
	{
		waitfor() {
			local i
			for ((i = 0; i < limit * 10; i++)); do
				grep -qa "$1" "$tmp/out" && return
				sleep 0.1
			done
		}
		waitfor '\[damon UML\] '
		printf '%s\n' 'echo "tty-$((6 * 7)) $(tty)"' \
			'echo "flags-$((6 * 7)) $-"' 'exit 4'
		waitfor 'shell-init: the shell exited'
	} | timeout -k 10 "$limit" script -qefc \
		"make -s --no-print-directory -C $top shell" /dev/null \
		> "$tmp/out" 2>&1
	rc=$?
	echo "# interactive: make shell exited $rc after $((SECONDS - start))s"
	check "$t a terminal with job control; exit powers off" \
		interactive_ok "$rc"
fi

echo "1..$n"
echo "$passed $failed $skipped" > "$counts"
echo "shell: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
