#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Put a pristine 6.12 tree, or only some paths of it, into a new directory.
#
#   extract-tree.sh DEST KSRC [--flat] [PATH...]
#
# The source is Debian's linux-source-6.12 tarball, or the tree KSRC when
# that is not empty (hard-linked where the file system allows: whoever
# changes DEST must replace files rather than write into them, as patch(1),
# git and sed -i do).  With no PATH the whole tree is extracted.  A PATH
# is a file or a directory taken with everything below it; with --flat,
# every PATH is a directory of which only the files directly in it are
# taken ("." is the top).  A PATH that the source lacks is an error.
#
# Only the paths a patch series touches is enough to apply and compare it,
# and is a small fraction of the tree to write (the tarball is read whole:
# about 11 s of xz either way).
set -euo pipefail

dest=$1
ksrc=$2
shift 2
flat=0
if [ "${1:-}" = --flat ]; then
	flat=1
	shift
fi
tarball=/usr/src/linux-source-6.12.tar.xz

mkdir -p "$dest"
if [ -n "$ksrc" ]; then
	[ -f "$ksrc/Makefile" ] || { echo "KSRC=$ksrc is not a kernel tree" >&2; exit 1; }
	if [ $# -eq 0 ]; then
		rmdir "$dest"
		cp -al "$ksrc" "$dest" 2>/dev/null || { rm -rf "$dest"; cp -a "$ksrc" "$dest"; }
		# A tree configured in place would break O= builds.
		rm -f "$dest/.config"
		exit 0
	fi
	if [ $flat = 1 ]; then
		(cd "$ksrc" && find "$@" -maxdepth 1 ! -type d -print0)
	else
		(cd "$ksrc" && for p in "$@"; do
			[ -e "$p" ] || { echo "$ksrc: no $p" >&2; exit 1; }
			find "$p" ! -type d -print0
		done)
	fi > "$dest.list"
	(cd "$ksrc" && xargs -0 -r cp -al --parents -t "$dest" < "$dest.list" 2>/dev/null ||
		xargs -0 -r cp -a --parents -t "$dest" < "$dest.list")
	rm -f "$dest.list"
	exit 0
fi

[ -f "$tarball" ] || { echo "missing $tarball (apt-get install linux-source-6.12)" >&2; exit 1; }
if [ $# -eq 0 ]; then
	tar -xJf "$tarball" -C "$dest" --strip-components=1
	exit 0
fi
# Members are "linux-source-6.12/PATH"; "*" does not match "/" here.
patterns=()
for p in "$@"; do
	p=${p%/}
	if [ $flat = 1 ]; then
		[ "$p" = . ] && patterns+=("*/*") || patterns+=("*/$p/*")
	else
		patterns+=("*/$p")
	fi
done
tar -xJf "$tarball" -C "$dest" --strip-components=1 --wildcards \
	--no-wildcards-match-slash $([ $flat = 1 ] && echo --no-recursion) \
	"${patterns[@]}"
