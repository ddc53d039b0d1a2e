#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a bench UML machine; bench/run.sh boots UML with
# init=<this file>.  The root filesystem is the host's, over hostfs: until
# proc and sysfs are mounted here, /proc and /sys are the HOST's, so
# nothing is written below them before the mounts are verified.  Scratch
# files go to a tmpfs at /dev/shm, never to the host's /tmp.
#
# Settings arrive as environment variables from the kernel command line:
#   BENCH_OUT     results directory of this run (host path, over hostfs)
#   BENCH_KERNEL  ours | upstream (which DAMON interface to drive)
#   plus the BENCH_* knobs bench/driver.sh reads.
# Runs bench/driver.sh, saves the kernel log, writes BENCH_OUT/init.rc
# (the driver's exit status) and powers the machine off.  PID 1 must never
# exit: that would panic the kernel.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/dev/shm TMPDIR=/dev/shm TERM=dumb LC_ALL=C
unset LANG LANGUAGE

here=$(cd "$(dirname "$0")" && pwd)

say() { echo "bench-init: $*"; }

# reboot(2) powers this kernel off synchronously; never returns.
power_off() {
	sync
	perl -MConfig -e '
		my $nr = $Config{archname} =~ /^x86_64/ ? 169 : 88;
		syscall($nr, 0xfee1dead, 672274793, 0x4321fedc, 0);
		die "reboot: $!\n";'
	[ "$(stat -f -c %T /proc 2>/dev/null)" = proc ] &&
		echo o > /proc/sysrq-trigger 2>/dev/null
	while :; do sleep 3600; done
}

fatal() { say "FATAL: $*"; power_off; }

fstype_at() {	# the type this kernel has mounted at $1
	local mnt type rest found=
	while read -r _ mnt type rest; do
		[ "$mnt" = "$1" ] && found=$type
	done < /proc/self/mounts
	echo "$found"
}

mount_fs() {	# TYPE DIR [OPTIONS]
	[ "$(fstype_at "$2")" = "$1" ] && return 0
	mount -n -t "$1" ${3:+-o "$3"} "$1" "$2" || return 1
	[ "$(fstype_at "$2")" = "$1" ]
}

say "started on $(uname -r), $(date -u +%FT%TZ)"
if [ "$(stat -f -c %T /proc 2>/dev/null)" != proc ]; then
	mount -n -t proc proc /proc
fi
[ "$(stat -f -c %T /proc 2>/dev/null)" = proc ] || fatal "cannot mount /proc"
mount_fs sysfs /sys || fatal "cannot mount /sys"
[ "$(fstype_at /dev)" = devtmpfs ] || mount_fs devtmpfs /dev ||
	fatal "cannot mount /dev"
for l in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 \
	 stderr:/proc/self/fd/2; do
	[ -e "/dev/${l%%:*}" ] || ln -s "${l#*:}" "/dev/${l%%:*}"
done
mkdir -p /dev/shm
mount_fs tmpfs /dev/shm mode=1777 || fatal "cannot mount /dev/shm"
grep -qw configfs /proc/filesystems &&
	{ mount_fs configfs /sys/kernel/config || fatal "cannot mount configfs"; }
grep -qw tracefs /proc/filesystems && [ -d /sys/kernel/tracing ] &&
	{ mount_fs tracefs /sys/kernel/tracing || say "cannot mount tracefs"; }

{ [ -n "${BENCH_OUT:-}" ] && [ -d "$BENCH_OUT" ] && [ -w "$BENCH_OUT" ]; } ||
	fatal "BENCH_OUT '${BENCH_OUT:-}' is not a writable directory"

cd /dev/shm || fatal "no /dev/shm"
"$here/driver.sh" > "$BENCH_OUT/driver.log" 2>&1 < /dev/null
rc=$?
say "driver exited $rc"
dmesg > "$BENCH_OUT/dmesg.log" 2>&1
echo "$rc" > "$BENCH_OUT/init.rc"
cd / && power_off
