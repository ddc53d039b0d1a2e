#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   shell.sh KERNEL
#
# `make shell`: boots KERNEL (a UML binary, or an x86_64 bzImage under
# QEMU: scripts/machine.bash) with the host's root filesystem and
# init=scripts/shell-init.sh, which mounts configfs, tracefs and a tmpfs on
# /tmp, swaps on zram, puts damo and the bundled workloads on PATH and
# runs a root bash in the work tree.  When the shell exits, the machine
# powers off.
#
# With stdin a terminal, the shell is interactive on the machine's
# console, which is this terminal (job control; Ctrl-C and Ctrl-Z go to
# the machine); kernel messages of warning level and above show there too.
# Otherwise all of stdin is read first and then run by bash in the machine
# as a script (as `bash -s` would), with this script's stdout and stderr
# as its own, unchanged; the console then goes to a log.
#
# Exits with the shell's exit status, or with 125 if the machine did not
# run the shell to its end and power off cleanly (then the last lines of
# its console are shown and the run's directory is kept).
#
# Environment: MACHINE_MEM (default 1G), MACHINE_SMP (a QEMU machine's
# CPUs, default 1).
# shellcheck disable=SC2054,SC2034 # commas belong to UML's and QEMU's
# options, and machine_cmd reads MACHINE_UML_CON and MACHINE_QEMU_SERIAL
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
me=$(basename "$0")

die() { echo "$me: $*" >&2; exit 125; }

[ $# -eq 1 ] || die "usage: $me KERNEL"
# shellcheck source=machine.bash
. "$top/scripts/machine.bash"
machine_platform "$1" || exit 125
kernel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# Everything goes through the kernel command line, split at white space.
case "$top" in
*[[:space:],]*) die "the work tree's path must not contain white space or commas" ;;
esac
[ -x "$top/tools/out/damo" ] || echo "$me: warning: no damo (make tools)" >&2

mkdir -p "$top/build/shell" || die "cannot create $top/build/shell"
dir=$(mktemp -d "$top/build/shell/run.XXXXXX") || die "mktemp failed"
umldir=$(mktemp -d /tmp/shell-machine.XXXXXX) || die "mktemp failed"
log=$dir/console.log
keep=1 tty_saved="" relays=() mpid=""

# unblock FD...: clear O_NONBLOCK and O_ASYNC, which UML sets on the files
# it reads and writes, from these descriptions, which others share.
unblock() {
	python3 - "$@" <<'EOF' 2> /dev/null
import fcntl, os, sys
for fd in map(int, sys.argv[1:]):
    try:
        fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fl & ~(os.O_NONBLOCK | 0o20000))
    except OSError:
        pass
EOF
}

cleanup() {
	if [ -n "$mpid" ] && kill -0 "$mpid" 2> /dev/null; then
		kill -TERM "$mpid" 2> /dev/null
		wait "$mpid" 2> /dev/null
	fi
	if [ -n "$tty_saved" ]; then
		unblock 0 1 2
		stty "$tty_saved" 2> /dev/null
	fi
	rm -rf "$umldir"
	[ "$keep" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM HUP

args=(MSH_DIR="$dir")
if [ -t 0 ]; then
	tty_saved=$(stty -g)
	[[ "${TERM:-}" =~ ^[A-Za-z0-9._+-]+$ ]] && args+=(MSH_TERM="$TERM")
	# Kernel messages: none of the boot's; warnings and worse from
	# then on (shell-init.sh).
	args+=(loglevel=1 MSH_LOGLEVEL=5)
	if [ "$MACHINE_PLATFORM" = uml ]; then
		# UML gives the tty its host terminal's size, and follows it.
		MACHINE_UML_CON=(con0=fd:0,fd:3)
		args+=(MSH_TTY=tty0)
	else
		# No QEMU escapes, no signals: Ctrl-C is the machine's.
		MACHINE_QEMU_SERIAL=(-chardev stdio,id=con,signal=off
			-serial chardev:con)
		args+=(MSH_TTY=ttyS0)
		read -r rows cols < <(stty size 2> /dev/null)
		[ "${rows:-0}" -gt 0 ] && [ "${cols:-0}" -gt 0 ] &&
			args+=(MSH_ROWS="$rows" MSH_COLS="$cols")
	fi
else
	cat > "$dir/stdin" || die "cannot read stdin"
	# The console to the log, the shell's stdout and stderr to lines of
	# their own (fds 3 and 4 of the machine's process).
	if [ "$MACHINE_PLATFORM" = uml ]; then
		MACHINE_UML_CON=(con0=null,fd:1 con1=null,fd:3 con2=null,fd:4)
		args+=(MSH_OUT=tty1 MSH_ERR=tty2)
	else
		MACHINE_QEMU_SERIAL=(-serial "file:$log"
			-chardev file,id=out,path=/dev/fd/3 -serial chardev:out
			-chardev file,id=err,path=/dev/fd/4 -serial chardev:err)
		args+=(MSH_OUT=ttyS1 MSH_ERR=ttyS2)
	fi
	# Through cat, which leaves our stdout and stderr blocking.
	exec 5> >(exec cat)
	relays+=($!)
	exec 6> >(exec cat >&2)
	relays+=($!)
fi
machine_cmd "$kernel" "$top/scripts/shell-init.sh" "$umldir" shell "${args[@]}"

# The machine runs in the background, so that the traps above can stop it
# (UML runs in a session of its own, out of reach of a hangup of this
# terminal or a signal to this process group).
ulimit -c 0  # a crashing UML aborts(); no core files in the work tree
if [ -n "$tty_saved" ]; then
	exec 7<&0
	if [ "$MACHINE_PLATFORM" = uml ]; then
		"${MACHINE_CMD[@]}" <&7 7<&- 3>&1 > "$log" 2>&1 &
	else
		"${MACHINE_CMD[@]}" <&7 7<&- 2> "$log" &
	fi
	mpid=$!
	exec 7<&-
else
	if [ "$MACHINE_PLATFORM" = uml ]; then
		"${MACHINE_CMD[@]}" 3>&5 4>&6 5>&- 6>&- < /dev/null \
			> "$log" 2>&1 &
	else
		"${MACHINE_CMD[@]}" 3>&5 4>&6 5>&- 6>&- < /dev/null \
			> "$dir/qemu.log" 2>&1 &
	fi
	mpid=$!
	exec 5>&- 6>&-
fi
wait "$mpid"
mrc=$?
mpid=
[ ${#relays[@]} -eq 0 ] || wait "${relays[@]}"
[ -n "$tty_saved" ] && { unblock 0 1 2; stty "$tty_saved" 2> /dev/null; }

rc=
[ -f "$dir/rc" ] && read -r rc < "$dir/rc"
if [ -z "$rc" ] || [ "$mrc" != 0 ]; then
	{
		if [ -z "$rc" ]; then
			echo "$me: the machine did not run the shell to its end" \
				"($MACHINE_NAME exited with status $mrc)"
		else
			echo "$me: the shell exited $rc, but $MACHINE_NAME did" \
				"not power off cleanly (status $mrc)"
		fi
		echo "---- last lines of $log ----"
		tail -n 40 "$log" 2> /dev/null
		echo "----"
	} >&2
	exit 125
fi
keep=0
exit "$rc"
