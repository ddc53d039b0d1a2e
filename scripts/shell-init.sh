#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the `make shell` machine: scripts/shell.sh boots a UML kernel or
# an x86_64 kernel under QEMU with the host's root filesystem and
# init=<this file> (scripts/machine.bash).  The machine is set up as the
# selftests' is (scripts/init-lib.bash: proc, sysfs, devtmpfs, configfs,
# tracefs, a tmpfs on /tmp, /var/tmp and /run, swap on zram), with damo
# (tools/out) and the bundled workloads (selftests/bin) on PATH.  Then a
# root bash runs in the work tree; when it exits, its exit status goes to
# MSH_DIR/rc and the machine powers off.
#
# Settings arrive as environment variables from the kernel command line
# (MACHINE_PLATFORM from scripts/machine.bash, then these):
#   MSH_DIR           a host directory of this run (under the work tree)
#   MSH_TTY           an interactive shell on this tty (the console's: tty0,
#                     ttyS0), its controlling terminal;
#   MSH_OUT, MSH_ERR  or else a shell that runs MSH_DIR/stdin as a script,
#                     with its stdout and stderr on these ttys
#   MSH_TERM          the terminal type (interactive)
#   MSH_LOGLEVEL      the console's log level from now on (interactive)
#   MSH_ROWS, MSH_COLS  the terminal's size, where the tty cannot ask (QEMU)

top=$(cd "${0%/*}/.." && pwd)

say() { echo "shell-init: $*"; }

# shellcheck source=init-lib.bash
. "$top/scripts/init-lib.bash"

init_mounts
{ [ -n "${MSH_DIR:-}" ] && [ -d "$MSH_DIR" ]; } ||
	fatal "MSH_DIR '${MSH_DIR:-}' is not a directory"
init_scratch "$top" "$MSH_DIR"
swap="swap on /dev/zram0 (256 MiB)"
zram_swap_on 256M || swap="no swap ($ZRAM_SWAP_WHY)"

export HOME=/tmp TMPDIR=/tmp HISTFILE=/tmp/.bash_history
export PATH=$top/tools/out:$top/selftests/bin:$PATH
platform=UML
[ "${MACHINE_PLATFORM:-uml}" = qemu ] && platform="x86_64 (QEMU)"

# There is no systemd here to ask: in the shell, these end the shell, and
# so power the machine off.
poweroff() { exit "${1:-0}"; }
halt() { exit "${1:-0}"; }
reboot() { echo "reboot: no reboot here; exit powers off" >&2; }
export -f poweroff halt reboot

banner() {
	local wl
	wl=$(cd "$top/selftests/bin" 2> /dev/null && echo *)
	cat <<EOF
Linux $(uname -r) on $platform, with our DAMON; root over the host's /.
  DAMON:   /sys/kernel/config/damon (configfs-layout.md), tracefs at /sys/kernel/tracing
  PATH:    damo (tools/out), the workloads (selftests/bin: ${wl// /, })
  memory:  $(awk '/^MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo), $swap
  Only /tmp, /var/tmp, /run and /dev/shm are this machine's own: other
  writes land on the host.  \`exit\` powers the machine off.
EOF
}

# run_interactive: bash on MSH_TTY, with job control.
run_interactive() {
	local tty=/dev/$MSH_TTY
	[ -c "$tty" ] || fatal "no terminal $tty"
	export TERM=${MSH_TERM:-vt100}
	[ -n "${MSH_LOGLEVEL:-}" ] && dmesg -n "$MSH_LOGLEVEL"
	export PS1="[damon ${platform%% *}] \\W# "
	if [ -n "${MSH_ROWS:-}" ] && [ -n "${MSH_COLS:-}" ]; then
		stty -F "$tty" rows "$MSH_ROWS" cols "$MSH_COLS"
	fi
	# QEMU's stdio leaves the host terminal adding \r to each \n.
	[ "${MACHINE_PLATFORM:-uml}" = qemu ] && stty -F "$tty" -onlcr
	banner > "$tty"
	# -c makes the tty the shell's controlling terminal (/dev/console
	# cannot be one); -w waits for the shell and returns its status.
	# shellcheck disable=SC2094 # a terminal: both ways
	setsid -w -c bash --norc -i < "$tty" > "$tty" 2>&1
}

# run_script: MSH_DIR/stdin through bash, as `bash -s` would run it, its
# output unchanged (no \r added) on MSH_OUT and MSH_ERR.
run_script() {
	local rc
	exec 3> "/dev/$MSH_OUT" 4> "/dev/$MSH_ERR" ||
		fatal "cannot open /dev/$MSH_OUT and /dev/$MSH_ERR"
	if ! stty -F "/dev/$MSH_OUT" -opost || ! stty -F "/dev/$MSH_ERR" -opost; then
		fatal "cannot set up /dev/$MSH_OUT and /dev/$MSH_ERR"
	fi
	bash < "$MSH_DIR/stdin" >&3 2>&4 3>&- 4>&-
	rc=$?
	# all of the output out of the machine before it powers off
	perl -MPOSIX -e 'POSIX::tcdrain($_) for 3, 4'
	exec 3>&- 4>&-
	return $rc
}

cd "$top" || fatal "cannot cd to $top"
if [ -n "${MSH_TTY:-}" ]; then
	run_interactive
else
	run_script
fi
rc=$?
cd / || :
echo "$rc" > "$MSH_DIR/rc"
say "the shell exited $rc; powering off"
# Stop what the shell left running.
for s in /sys/kernel/config/damon/contexts/*/state; do
	[ -e "$s" ] && echo off > "$s"
done 2> /dev/null
power_off
