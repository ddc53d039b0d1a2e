#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare a kernel build tree in which this project's kernel/ is mm/damon.
#
#   prepare-tree.sh TREE [KSRC]
#
# The pristine source is never modified: TREE is a private copy, either
# freshly extracted from Debian's linux-source-6.12 tarball or a hard-linked
# copy of KSRC.  Our UML fix patches are applied once, when TREE is made.
# The links from TREE/mm/damon into the work tree are refreshed on every
# call (cheap), so files added to or removed from kernel/ are picked up.
#
# With LINK_DAMON=0 the upstream mm/damon is left in place (the reference
# kernel used by the benchmarks).
set -euo pipefail

tree=$1
ksrc=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -f "$tree/.prepared" ]; then
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$(dirname "$tree")"
	echo "  EXTRACT ${ksrc:-linux-source-6.12} -> $tree"
	"$top/scripts/extract-tree.sh" "$tree.tmp" "$ksrc"
	for p in "$top"/scripts/patches/*.patch; do
		echo "  PATCH   $(basename "$p")"
		# patch(1) writes a new file and renames it, so hard links to
		# KSRC are broken rather than written through.
		patch -s -d "$tree.tmp" -p1 --no-backup-if-mismatch < "$p"
	done
	touch "$tree.tmp/.prepared"
	mv "$tree.tmp" "$tree"
fi

[ "${LINK_DAMON:-1}" = 1 ] || exit 0

# mm/damon: one link per file of kernel/, and mm/damon/tests: one link per
# file of kunit/.  Real directories of links (not a link to a directory), so
# that "../internal.h" in a test resolves inside the tree.
dir=$tree/mm/damon
if [ ! -f "$dir/.ours" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/tests"
	touch "$dir/.ours"
fi
link_files() {	# SRC_DIR DEST_DIR
	find "$2" -maxdepth 1 -type l ! -exec test -e {} \; -delete
	for f in "$1"/* "$1"/.kunitconfig; do
		[ -f "$f" ] && ln -sfn "$f" "$2/$(basename "$f")"
	done
	return 0
}
link_files "$top/kernel" "$dir"
link_files "$top/kunit" "$dir/tests"

# Our headers replace upstream's.
ln -sfn "$top/kernel/include/damon.h" "$tree/include/linux/damon.h"
if [ -f "$top/kernel/include/trace/damon.h" ]; then
	ln -sfn "$top/kernel/include/trace/damon.h" "$tree/include/trace/events/damon.h"
else
	rm -f "$tree/include/trace/events/damon.h"
fi
