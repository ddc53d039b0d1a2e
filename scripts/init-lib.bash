# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the inits of the test and bench machines (selftests/init.sh,
# bench/init.sh), which run as PID 1 with the host's root filesystem (see
# scripts/machine.bash).  Until proc and sysfs are mounted, /proc and /sys
# are the HOST's: nothing may be written below them before init_mounts
# has mounted and verified them.  PID 1 must never exit: that would panic the kernel.
# The caller defines say().

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export TERM=dumb LC_ALL=C
unset LANG LANGUAGE

# power_off: never returns.  reboot(2) is always this kernel's and acts
# synchronously, in this process.  (sysrq's power-off runs from a work
# item instead: with CONFIG_PREEMPT, as in the debug kernel, this init was
# scheduled again while UML tore its processes down, died of SIGSEGV, and
# the "Attempted to kill init" panic made UML abort with 134.)  UML powers
# off; the x86_64 machine restarts instead, and QEMU, started with
# -no-reboot, exits (the simplest way out that needs nothing of ACPI).
power_off() {
	local cmd=0x4321fedc	# LINUX_REBOOT_CMD_POWER_OFF

	[ "${MACHINE_PLATFORM:-uml}" = qemu ] && cmd=0x01234567	# _RESTART
	sync
	perl -MConfig -e '
		my $nr = $Config{archname} =~ /^x86_64/ ? 169 : 88;
		syscall($nr, 0xfee1dead, 672274793, hex($ARGV[0]), 0);
		die "reboot: $!\n";' "$cmd"
	say "reboot(2) failed; trying sysrq"
	if [ "$(stat -f -c %T /proc 2>/dev/null)" = proc ]; then
		echo o > /proc/sysrq-trigger 2>/dev/null
	fi
	while :; do sleep 3600; done
}

fatal() {
	say "FATAL: $*"
	power_off
}

# mount_type DIR: the type of what is mounted at DIR, from this kernel's
# mount table.
mount_type() {
	local mnt type rest found=
	while read -r _ mnt type rest; do
		[ "$mnt" = "$1" ] && found=$type
	done < /proc/self/mounts
	echo "$found"
}

# mount_fs TYPE DIR [OPTIONS]: mount unless DIR already has TYPE, verify.
mount_fs() {
	local type=$1 dir=$2 opts=${3:-}
	[ "$(mount_type "$dir")" = "$type" ] && return 0
	mount -n -t "$type" ${opts:+-o "$opts"} "$type" "$dir" || return 1
	[ "$(mount_type "$dir")" = "$type" ]
}

have_fs() { grep -qw "$1" /proc/filesystems; }

# init_mounts: this kernel's proc, sysfs, devtmpfs (with the /dev/fd links
# udev would make: bash's <(...) needs them), a tmpfs on /dev/shm, and
# configfs and tracefs where the kernel has them.
init_mounts() {
	local l args=()
	# procfs first, always: everything below relies on it being ours.
	# What is at /proc now is the host's, seen through the root file
	# system: over virtio-9p even statfs(2) answers for the host and
	# calls it proc, so no test of what is there can tell.  It is ours
	# if its PID 1 is this script.
	mount -n -t proc proc /proc || fatal "cannot mount /proc"
	mapfile -t -d '' args < /proc/1/cmdline
	[ "${args[1]:-}" = "$0" ] ||
		fatal "/proc is not this kernel's (PID 1 is '${args[*]}')"
	mount_fs sysfs /sys || fatal "cannot mount /sys"
	if [ "$(mount_type /dev)" != devtmpfs ]; then
		mount_fs devtmpfs /dev || fatal "cannot mount /dev"
	fi
	for l in fd:/proc/self/fd stdin:/proc/self/fd/0 \
		 stdout:/proc/self/fd/1 stderr:/proc/self/fd/2; do
		[ -e "/dev/${l%%:*}" ] || ln -s "${l#*:}" "/dev/${l%%:*}"
	done
	mkdir -p /dev/shm
	mount_fs tmpfs /dev/shm mode=1777 || fatal "cannot mount /dev/shm"
	if have_fs configfs; then
		mount_fs configfs /sys/kernel/config ||
			fatal "cannot mount configfs"
	else
		say "no configfs in this kernel"
	fi
	if have_fs debugfs && [ -d /sys/kernel/debug ]; then
		mount_fs debugfs /sys/kernel/debug || say "cannot mount debugfs"
	fi
	if have_fs tracefs && [ -d /sys/kernel/tracing ]; then
		mount_fs tracefs /sys/kernel/tracing ||
			say "cannot mount tracefs"
	fi
	if [ -w /proc/sys/kernel/sysrq ]; then
		echo 1 > /proc/sys/kernel/sysrq
	fi
}

# init_scratch KEEP...: private scratch space: a tmpfs on each of /tmp,
# /var/tmp and /run, so that what is written there stays in this machine
# instead of landing on the host's root.  The KEEP paths (the work tree,
# an output directory) may lie below them (a clone in /tmp, say): such host
# paths are bind-mounted aside first and moved back on top of the tmpfs,
# so that they stay visible at the same paths.
init_scratch() {
	local p k d m held=0 keep=() moves=()
	for p in "$@"; do
		p=$(readlink -f "$p")
		for k in "${keep[@]}"; do
			case $p/ in "$k"/*) continue 2 ;; esac
		done
		keep+=("$p")
	done
	for d in /tmp /var/tmp /run; do
		{ [ -d "$d" ] && [ ! -L "$d" ]; } || continue
		[ "$(mount_type "$d")" = tmpfs ] && continue
		moves=()
		for k in "${keep[@]}"; do
			[ "$k" != "$d" ] || fatal "$k cannot be hidden under a tmpfs"
			case $k in "$d"/*) ;; *) continue ;; esac
			held=$((held + 1))
			{ mkdir -p "/dev/.st-hold/$held" &&
				mount -n --bind "$k" "/dev/.st-hold/$held"; } ||
				fatal "cannot bind-mount $k"
			moves+=("$held:$k")
		done
		mount_fs tmpfs "$d" mode=1777 || fatal "cannot mount tmpfs on $d"
		for m in "${moves[@]}"; do
			{ mkdir -p "${m#*:}" &&
				mount -n --move "/dev/.st-hold/${m%%:*}" "${m#*:}"; } ||
				fatal "cannot move ${m#*:} back into place"
		done
	done
}

# zram_swap_on / zram_swap_off, shared with the selftests
# shellcheck source=zram-swap.bash
. "$(dirname "${BASH_SOURCE[0]}")/zram-swap.bash"
