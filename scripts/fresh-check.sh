#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/fresh-check.sh ROOT [REV]
#
# make check as a newcomer or a brand-new CI machine gets it: a Debian 12
# made by debootstrap in ROOT (kept for the next run: delete ROOT for a
# bare one again), a clone of this repository's REV (default HEAD) in
# ROOT/work/main, and .ci/run in a chroot there as root, with an empty
# ccache, so that every package is installed and every kernel built from
# nothing.  The oracles beside this checkout (../shared) are bound into
# the chroot read-only, where the clone looks for them.  Prints the wall
# time and make check's stage times; the whole log is ROOT/fresh-check.log.
# FRESH_CHECK_CMD replaces .ci/run (e.g. to try the chroot out quickly).
#
# Run it alone on the machine: it is the measurement of CI's time budget
# (45 minutes on 2 cores), and everything else on the machine counts.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 ROOT [REV]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (debootstrap, chroot)" >&2; exit 2; }
root=$(realpath -m "$1")
rev=${2:-HEAD}
top=$(cd "$(dirname "$0")/.." && pwd)
shared=$(realpath -m "$top/../shared")
mounts=()

cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null || :
	done
}
trap cleanup EXIT

# mnt TYPE-OR---bind SOURCE TARGET [OPTIONS]
mnt() {
	mkdir -p "$3"
	if [ "$1" = --bind ]; then
		mount --bind "$2" "$3"
		[ -z "${4:-}" ] || mount -o "remount,bind,$4" "$3"
	else
		mount -t "$1" "$2" "$3"
	fi
	mounts+=("$3")
}

export DEBIAN_FRONTEND=noninteractive
if ! command -v debootstrap > /dev/null; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends debootstrap > /dev/null
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
	echo "  DEBOOT  bookworm -> $root"
	debootstrap --variant=minbase bookworm "$root" \
		"${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$root.debootstrap.log" 2>&1 ||
		{ tail -n 20 "$root.debootstrap.log" >&2; exit 1; }
fi
# The suites a Debian 12 machine has (linux-source-6.12 comes with the
# point releases and security updates, not the base suite alone).
cat > "$root/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

rm -rf "$root/work/main" "$root/root/.ccache" "$root/root/.cache/ccache"
mkdir -p "$root/work"
git clone -q "$top" "$root/work/main"
git -C "$root/work/main" checkout -q "$rev"
echo "  CLONE   $(git -C "$root/work/main" log --oneline -1)"

mnt proc proc "$root/proc"
mnt sysfs sys "$root/sys"
mnt --bind /dev "$root/dev"
mnt devpts devpts "$root/dev/pts"
mnt tmpfs tmpfs "$root/dev/shm"
mnt tmpfs tmpfs "$root/tmp"
[ ! -d "$shared" ] || mnt --bind "$shared" "$root/work/shared" ro

echo "  CHECK   ${FRESH_CHECK_CMD:-.ci/run} in the chroot (log: $root/fresh-check.log)"
start=$SECONDS
rc=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	TERM=dumb LANG=C.UTF-8 /bin/bash -c "cd /work/main && ${FRESH_CHECK_CMD:-bash .ci/run}" \
	> "$root/fresh-check.log" 2>&1 || rc=$?
wall=$((SECONDS - start))
grep '^stage times:' "$root/fresh-check.log" || :
tail -n 1 "$root/fresh-check.log"
echo "fresh make check: exit $rc, $((wall / 60)) min $((wall % 60)) s wall"
exit "$rc"
