#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the selftest UML machine; scripts/run-selftests.sh boots UML with
# init=<this file>.  The root filesystem is the host's, over hostfs, so until
# proc and sysfs are mounted here /proc and /sys are the HOST's: nothing may
# be written below them before the mounts are verified.
#
# Settings arrive as environment variables from the kernel command line:
#   ST_OUTDIR        results directory (a host path, written through hostfs)
#   ST_SUITES        comma-separated .bats files (default: selftests/*.bats)
#   ST_FILTER        bats --filter regex (no white space), optional
#   ST_TEST_TIMEOUT  seconds one test may take (default 300, 0: no limit)
#   ST_FUZZ_SEED, ST_FUZZ_SECS   for 60-fuzz.bats, optional
#
# Writes ST_OUTDIR/results.tap (bats' TAP), ST_OUTDIR/kmemleak.log (when
# the kernel has kmemleak), ST_OUTDIR/dmesg.log and, last,
# ST_OUTDIR/init.rc (the exit status of bats), then powers the machine off.
# PID 1 must never exit: that would panic the kernel.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp TERM=dumb LC_ALL=C
unset LANG LANGUAGE

ST_DIR=$(cd "$(dirname "$0")" && pwd)
export ST_DIR ST_BIN=$ST_DIR/bin ST_OUTDIR=${ST_OUTDIR:-}

say() { echo "uml-init: $*"; }

# Power the machine off; never returns.  reboot(2) is always this kernel's
# and powers off synchronously, in this process.  (sysrq's power-off runs
# from a work item instead: with CONFIG_PREEMPT, as in the debug kernel,
# this init was scheduled again while UML tore its processes down, died of
# SIGSEGV, and the "Attempted to kill init" panic made UML abort with 134.)
power_off() {
	sync
	perl -MConfig -e '
		my $nr = $Config{archname} =~ /^x86_64/ ? 169 : 88;
		syscall($nr, 0xfee1dead, 672274793, 0x4321fedc, 0);
		die "reboot: $!\n";'
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

# The type of what is mounted at $1, from this kernel's mount table.
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

say "started, $(date -u +%FT%TZ)"

# procfs first: everything below relies on it being ours.
if [ "$(stat -f -c %T /proc 2>/dev/null)" != proc ]; then
	mount -n -t proc proc /proc
fi
[ "$(stat -f -c %T /proc 2>/dev/null)" = proc ] || fatal "cannot mount /proc"
mount_fs sysfs /sys || fatal "cannot mount /sys"
if [ "$(mount_type /dev)" != devtmpfs ]; then
	mount_fs devtmpfs /dev || fatal "cannot mount /dev"
fi
# devtmpfs lacks the links udev would make; bash's <(...) needs /dev/fd.
for l in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 \
	 stderr:/proc/self/fd/2; do
	[ -e "/dev/${l%%:*}" ] || ln -s "${l#*:}" "/dev/${l%%:*}"
done
mkdir -p /dev/shm
mount_fs tmpfs /dev/shm mode=1777 || fatal "cannot mount /dev/shm"

# Private scratch space: without these, writes would land on the host.
# The work tree and ST_OUTDIR may lie below them (a clone in /tmp, say):
# such host paths are bind-mounted aside first and moved back on top of
# the tmpfs, so that they stay visible at the same paths.
{ [ -n "$ST_OUTDIR" ] && [ -d "$ST_OUTDIR" ]; } ||
	fatal "ST_OUTDIR '$ST_OUTDIR' is not a directory"
IFS=, read -r -a suites <<< "${ST_SUITES:-}"
keep=()
for p in "$(dirname "$ST_DIR")" "$ST_OUTDIR" "${suites[@]%/*}"; do
	p=$(readlink -f "$p")
	for k in "${keep[@]}"; do
		case $p/ in "$k"/*) continue 2 ;; esac
	done
	keep+=("$p")
done
held=0
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
if have_fs configfs; then
	mount_fs configfs /sys/kernel/config || fatal "cannot mount configfs"
else
	say "no configfs in this kernel"
fi
if have_fs debugfs && [ -d /sys/kernel/debug ]; then
	mount_fs debugfs /sys/kernel/debug || say "cannot mount debugfs"
fi
if have_fs tracefs && [ -d /sys/kernel/tracing ]; then
	mount_fs tracefs /sys/kernel/tracing || say "cannot mount tracefs"
fi
[ -w /proc/sys/kernel/sysrq ] && echo 1 > /proc/sys/kernel/sysrq

[ -w "$ST_OUTDIR" ] || fatal "ST_OUTDIR '$ST_OUTDIR' is not writable"

[ ${#suites[@]} -gt 0 ] || suites=("$ST_DIR"/*.bats)
opts=(--formatter tap --timing)
[ -n "${ST_FILTER:-}" ] && opts+=(--filter "$ST_FILTER")
# Per-test watchdog; ST_TEST_TIMEOUT=0 turns it off.
if [ "${ST_TEST_TIMEOUT:-300}" != 0 ]; then
	export BATS_TEST_TIMEOUT=${ST_TEST_TIMEOUT:-300}
fi

say "running ${#suites[@]} suite(s) as $(id -un) on $(uname -r) $(uname -m)"
cd "$ST_DIR" || fatal "cannot cd to $ST_DIR"
start=$(date +%s)
bats "${opts[@]}" "${suites[@]}" > "$ST_OUTDIR/results.tap" < /dev/null
rc=$?
say "bats exited $rc after $(( $(date +%s) - start ))s"

# kmemleak (the debug flavour has it): scan for what the whole run leaked
# and save the report for run-selftests.sh.  Objects younger than 5 s are
# never reported, hence the pause; a second scan drops what the first one
# saw unreferenced only because its pointer was in flight (the report
# lists the objects that the latest scan found unreferenced).
kmemleak=/sys/kernel/debug/kmemleak
if [ -e "$kmemleak" ]; then
	say "kmemleak: scanning"
	sleep 6
	if echo scan > "$kmemleak" && sleep 2 && echo scan > "$kmemleak"; then
		cat "$kmemleak" > "$ST_OUTDIR/kmemleak.log" 2>&1
		say "kmemleak: $(grep -c '^unreferenced object' \
			"$ST_OUTDIR/kmemleak.log") unreferenced object(s)"
	else
		# It disables itself on errors (metadata pool exhausted, ...).
		say "kmemleak: cannot scan"
		echo "kmemleak: unavailable: $(dmesg | grep -m3 'kmemleak:')" \
			> "$ST_OUTDIR/kmemleak.log"
	fi
fi

dmesg > "$ST_OUTDIR/dmesg.log" 2>&1 || say "dmesg failed"
echo "$rc" > "$ST_OUTDIR/init.rc"
cd / && power_off
