#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/fresh-check.sh ROOT [REV]
#
# make check as a newcomer or a brand-new CI machine gets it: a Debian 12
# made by debootstrap (once, in ROOT.base; each run starts from a fresh
# copy of it in ROOT), a clone of this repository's REV (default HEAD) in
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

# mnt TYPE-OR---bind SOURCE TARGET [OPTIONS]
mnt() {
	mkdir -p "$3"
	if [ "$1" = --bind ]; then
		mount --bind "$2" "$3"
		[ -z "${4:-}" ] || mount -o "remount,bind,$4" "$3"
	else
		mount -t "$1" "$2" "$3"
	fi
}

# The second half, run by the first in a mount namespace of its own
# (unshare --mount, private propagation): the chroot's mounts exist only
# there and go when the run ends, however it ends (no bind of /dev is ever
# left under ROOT for the next run's rm -rf to follow).
if [ "${FRESH_CHECK_NS:-}" = 1 ]; then
	mnt proc proc "$root/proc"
	mnt sysfs sys "$root/sys"
	mnt --bind /dev "$root/dev"
	mnt devpts devpts "$root/dev/pts"
	mnt tmpfs tmpfs "$root/dev/shm"
	mnt tmpfs tmpfs "$root/tmp"
	[ ! -d "$shared" ] || mnt --bind "$shared" "$root/work/shared" ro
	exec chroot "$root" /usr/bin/env -i HOME=/root \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8 \
		/bin/bash -c "cd /work/main && ${FRESH_CHECK_CMD:-bash .ci/run}"
fi

export DEBIAN_FRONTEND=noninteractive
if ! command -v debootstrap > /dev/null; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends debootstrap > /dev/null
fi
# The bare system is made once, in ROOT.base, and copied afresh for each
# run: what a run installs must not make the next one less than new.
if [ ! -x "$root.base/usr/bin/apt-get" ]; then
	echo "  DEBOOT  bookworm -> $root.base"
	rm -rf "$root.base"
	debootstrap --variant=minbase bookworm "$root.base" \
		"${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$root.debootstrap.log" 2>&1 ||
		{ tail -n 20 "$root.debootstrap.log" >&2; exit 1; }
fi
rm -rf "$root"
cp -a "$root.base" "$root"
# The suites a Debian 12 machine has (linux-source-6.12 comes with the
# point releases and security updates, not the base suite alone).
cat > "$root/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

mkdir -p "$root/work"
git clone -q "$top" "$root/work/main"
git -C "$root/work/main" checkout -q "$rev"
echo "  CLONE   $(git -C "$root/work/main" log --oneline -1)"

echo "  CHECK   ${FRESH_CHECK_CMD:-.ci/run} in the chroot (log: $root/fresh-check.log)"
start=$SECONDS
rc=0
FRESH_CHECK_NS=1 unshare --mount "$0" "$@" > "$root/fresh-check.log" 2>&1 || rc=$?
wall=$((SECONDS - start))
grep '^stage times:' "$root/fresh-check.log" || :
tail -n 1 "$root/fresh-check.log"
echo "fresh make check: exit $rc, $((wall / 60)) min $((wall % 60)) s wall"
exit "$rc"
