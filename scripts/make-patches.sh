#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write this repository's DAMON as a patch series against the pristine
# 6.12 tree, for git am (or patch -p1).
#
#   make-patches.sh OUT WORK [KSRC]
#
# The series is made from exactly what the build uses: WORK/linux is a fresh
# extract of what the series touches in Debian's linux-source-6.12 (or a
# copy of it from KSRC) in a temporary git repository (WORK/git),
# committed as is; then each layer is applied and committed, and git
# format-patch writes OUT/*.patch:
#
#   1. each of scripts/patches/*.patch (the UML fixes), applied as
#      prepare-tree.sh applies them, its header as the commit message;
#   2. mm/damon: scripts/prepare-tree.sh itself lays our kernel/ and kunit/
#      into the tree (its links are then replaced by copies), and what it
#      changed is committed in parts: mm/damon, mm/damon/tests,
#      include/linux (the API header), include/trace (the tracepoints);
#      upstream's files that it removes are removed in these commits;
#   3. between those, the layers that only the series has: the kunit and
#      kselftest configuration that named options and interfaces that are
#      gone (here), and the documentation (scripts/series-docs.py).
#
# A change of prepare-tree.sh that no layer takes stops the script, and so
# does an upstream text that an edit does not find: the series cannot
# silently differ from the build.  OUT also gets README (how to apply the
# series; not a *.patch, so that "git am OUT/*.patch" is safe) and series
# (the patch names, in order, as quilt reads them).
#
# Author and date of the commits: PATCH_AUTHOR ("Name <email>", default:
# the author of this repository's last commit) and SOURCE_DATE_EPOCH
# (default: that commit's date), so the same sources give the same series.
set -euo pipefail

out=$1
work=$2
ksrc=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$work/linux

die() { echo "make-patches: $*" >&2; exit 1; }
command -v git >/dev/null || die "git is needed (apt-get install git)"

# git for the temporary repository only: no user or system configuration
# (hooks, signing, diff and format settings) reaches it.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git --git-dir="$work/git" --work-tree="$tree" "$@"; }

author=${PATCH_AUTHOR:-$(git -C "$top" log -1 --format='%an <%ae>' 2>/dev/null || true)}
[ -n "$author" ] || author="DAMON configfs <damon-configfs@localhost>"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}
export GIT_AUTHOR_NAME="${author% <*}" GIT_AUTHOR_EMAIL="${author##*<}"
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="@$epoch +0000" GIT_COMMITTER_DATE="@$epoch +0000"

# ---------------------------------------------------------------- helpers

# layer PATHSPEC...: commit what changed there, message on stdin.
layer() {
	(cd "$tree" && g add -A -f -- "$@")
	g diff --cached --quiet && die "nothing changed for the layer: $*"
	g commit -q --no-verify -F -
}

# edit FILE SED-SCRIPT: sed -i that must change FILE (a new file: no write
# through a hard link into KSRC).
edit() {
	local before
	before=$(md5sum < "$1")
	sed -i "$2" "$1"
	[ "$(md5sum < "$1")" != "$before" ] || die "$1: '$2' found nothing to change"
}

# describe FILE: the first sentence of FILE's header comment.
describe() {
	awk 'NR > 2 && /^ \*\/?$/ { exit } /^ \*\// { exit }
	     NR > 2 && /^ \* / { sub(/^ \* /, ""); printf "%s ", $0 }' "$1" |
		sed 's/\([.]\) .*/\1/; s/ $//'
}

# para TEXT: TEXT as a paragraph wrapped at 72 columns; item NAME TEXT:
# "- NAME: TEXT", wrapped with a hanging indent.
wrap() {	# INDENT TEXT
	echo "$2" | awk -v ind="$1" '{
		n = split($0, w, " "); line = w[1]
		for (i = 2; i <= n; i++)
			if (length(line) + 1 + length(w[i]) > 72) {
				print line; line = ind w[i]
			} else
				line = line " " w[i]
		print line }'
}
para() { wrap "" "$1"; }
item() { wrap "  " "- $1: $2"; }

# commas WORDS: the words as "a, b, c".
commas() { echo "$*" | sed 's/ \+/, /g'; }

# files STATUS PATH: the names (below PATH) of the staged files whose
# status is STATUS (A, D, M), on one line.
files() {
	g diff --cached --name-only --diff-filter="$1" -- "$2" |
		sed "s|^$2/||" | tr '\n' ' ' | sed 's/ $//'
}

# kconfig_syms FILE: the options a Kconfig file defines, on one line.
kconfig_syms() {
	sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# ---------------------------------------------------------------- the base

# Only the paths the series touches, and what its scripts read: the top
# Makefile (the version) and all of Documentation (series-docs.py checks
# that no page points to a removed one).  A change that reaches beyond
# them shows up as a file that no layer took, below.
paths=(Makefile MAINTAINERS Documentation mm/damon include/linux/damon.h
	include/trace/events/damon.h tools/testing/kunit/configs/all_tests.config
	tools/testing/selftests/Makefile tools/testing/selftests/damon)
for p in "$top"/scripts/patches/*.patch; do
	paths+=($(sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' "$p"))
done
rm -rf "$work"
mkdir -p "$work"
echo "  EXTRACT ${ksrc:-linux-source-6.12} (${#paths[@]} paths)"
"$top/scripts/extract-tree.sh" "$tree" "$ksrc" "${paths[@]}"
base_version=$(awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL)$/ {
	v = v (v == "" ? "" : ".") $3 } END { print v }' "$tree/Makefile")

echo "  GIT     base $base_version"
g init -q
# No automatic gc: it would pack the objects in the background.
g config gc.auto 0
g config maintenance.auto false
# -f: Debian's .gitignore ignores every top-level path of its tarball.
# Loose objects compressed lightly: the repository lives for one run.
(cd "$tree" && g -c core.looseCompression=1 add -A -f .)
g commit -q --no-verify -m "Linux $base_version (pristine)"
g tag base

# ---------------------------------------------------------------- UML fixes

for p in "$top"/scripts/patches/*.patch; do
	echo "  PATCH   $(basename "$p")"
	patch -s -d "$tree" -p1 --no-backup-if-mismatch < "$p"
	# The message: the patch's header, up to its first diff line.
	awk '/^(--- |diff |Index: )/ { exit } { print }' "$p" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | layer .
done

# ---------------------------------------------------------------- mm/damon

echo "  LAYERS  scripts/prepare-tree.sh"
old_kconfig=$work/upstream-Kconfig
cp "$tree/mm/damon/Kconfig" "$old_kconfig"
touch "$tree/.prepared"	# no extraction: only the mm/damon step
LINK_DAMON=1 "$top/scripts/prepare-tree.sh" "$tree"
rm -f "$tree/.prepared" "$tree/mm/damon/.ours"
# The links into this repository become copies of what they point to.
find "$tree" -type l -lname "$top/*" -print0 |
	while IFS= read -r -d '' l; do
		cp --remove-destination "$(readlink "$l")" "$l"
	done

new_syms=$(kconfig_syms "$tree/mm/damon/Kconfig")
gone_syms=$(comm -23 <(kconfig_syms "$old_kconfig" | tr ' ' '\n' | sort) \
		     <(echo "$new_syms" | tr ' ' '\n' | sort) | tr '\n' ' ' | sed 's/ $//')

(cd "$tree" && g add -A -f -- mm/damon ':(exclude)mm/damon/tests')
{
	cat <<-EOF
	mm/damon: replace DAMON with a configfs-driven implementation

	Replace the implementation of DAMON (Data Access MONitor) and DAMOS
	(access-pattern-based memory operation schemes) with one whose whole
	user interface is a configfs object tree at /sys/kernel/config/damon/.

	Why: upstream's interfaces are a sysfs tree of fixed shape
	(kdamonds/N/contexts/N/..., resized by writing nr_* files, with one
	global request slot for online updates), a deprecated debugfs
	interface, and special-purpose modules driven by module parameters.
	Under configfs every monitoring context, target, region, scheme and
	filter is a directory that its user makes with mkdir and names, so
	independent users get independent contexts.  Writing "on" to a
	context's state file validates the setup and starts its kdamond,
	"off" stops it, and "commit" hands a changed setup to the running
	kdamond, which applies all of it at its next aggregation and keeps
	the monitoring results; each target's snapshot file holds the latest
	aggregated regions, read in one consistent piece.

	What stays is the monitoring model: one page sampled per region and
	sampling interval, regions merged and split at every aggregation
	within min/max_nr_regions so that the cost is bounded by the number
	of regions, region ages, operations sets for the kinds of address
	space; and DAMOS with access patterns, quotas with prioritization
	weights, watermarks and filters.

	The files:

	EOF
	for f in $(cd "$tree/mm/damon" && ls -- *.c *.h); do
		item "$f" "$(describe "$tree/mm/damon/$f")"
	done
	echo
	item "Kconfig options" "$(commas "$new_syms")."
	item "upstream's options that are gone" "$(commas "$gone_syms")."
	item "upstream's files that are gone" "$(commas "$(files D mm/damon)")."
	cat <<-EOF

	The KUnit suites under tests/ follow in the next patch.  This series
	replaces DAMON as a whole: this patch builds only together with the
	new include/linux/damon.h and include/trace/events/damon.h later in
	the series.
	EOF
} | layer mm/damon ':(exclude)mm/damon/tests'

(cd "$tree" && g add -A -f -- mm/damon/tests)
nr_cases=$(cat "$tree"/mm/damon/tests/*.c | grep -c 'KUNIT_CASE(')
nr_suites=$(cat "$tree"/mm/damon/tests/*.c | grep -c 'struct kunit_suite .* = {')
checkers=$(for c in PROVE_LOCKING:lockdep KASAN:KASAN UBSAN:UBSAN; do
	if grep -q "^CONFIG_${c%%:*}=y" "$tree/mm/damon/tests/.kunitconfig"; then
		echo "${c#*:}"
	fi
done | tr '\n' ' ' | sed 's/ $//; s/ \([^ ]*\)$/ and \1/; s/ \([^ ]*\) and/, \1 and/')
[ -z "$checkers" ] || checkers=" with $checkers on"
{
	cat <<-EOF
	mm/damon/tests: KUnit suites of the configfs DAMON

	Upstream's DAMON tests are headers included at the end of core.c,
	vaddr.c, sysfs.c and dbgfs.c.  The new suites are objects of their
	own under mm/damon/tests/, built into the kernel with
	CONFIG_DAMON_KUNIT_TEST, that test what mm/damon/internal.h declares:
	$nr_cases cases in $nr_suites suites.

	EOF
	for f in $(cd "$tree/mm/damon/tests" && ls -- *.c); do
		item "$f" "$(describe "$tree/mm/damon/tests/$f")"
	done
	echo
	item "upstream's files that are gone" "$(commas "$(files D mm/damon/tests)")."
	cat <<-EOF

	tests/.kunitconfig runs them$checkers:

	  ./tools/testing/kunit/kunit.py run --kunitconfig mm/damon/tests
	EOF
} | layer mm/damon/tests

layer include/linux <<-EOF
	mm/damon: replace include/linux/damon.h with the new DAMON's API

	The objects and functions of the new DAMON that kernel code may use:
	contexts (struct damon_ctx) with their monitoring attributes,
	operations (struct damon_operations) and callbacks, targets, regions,
	and DAMOS schemes (struct damos) with their access patterns, quotas,
	watermarks and filters; starting, stopping and committing to a
	kdamond.  In 6.12 nothing outside mm/damon and the DAMON tracepoints
	includes this header, so no other code changes with it.
EOF

# ---------------------------------------------------------------- hooks

kunit_cfg=tools/testing/kunit/configs/all_tests.config
stale=$(sed -n 's/^CONFIG_\(DAMON[A-Z0-9_]*\)=.*/\1/p' "$tree/$kunit_cfg" |
	while read -r s; do
		[[ " $new_syms " == *" $s "* ]] || echo "CONFIG_$s"
	done | tr '\n' ' ' | sed 's/ $//')
[ -n "$stale" ] || die "$kunit_cfg: no stale DAMON option (base changed?)"
for s in $stale; do
	edit "$tree/$kunit_cfg" "/^$s=/d"
done
edit "$tree/$kunit_cfg" \
	's/^CONFIG_DAMON_VADDR=y$/&\nCONFIG_CONFIGFS_FS=y\nCONFIG_DAMON_CONFIGFS=y/'

(cd "$tree" && g rm -r -q tools/testing/selftests/damon)
edit "$tree/tools/testing/selftests/Makefile" '/^TARGETS += damon$/d'
edit "$tree/MAINTAINERS" '/^F:\ttools\/testing\/selftests\/damon\/$/d'

{
	echo "mm/damon: drop removed options and interfaces from kunit and kselftest"
	echo
	para "$kunit_cfg enables DAMON options that the new DAMON does not have: $(commas "$stale").  kunit.py stops on options that did not make it into the .config.  Drop them, and enable the configfs interface instead so that its code is built there too."
	cat <<-EOF

	tools/testing/selftests/damon/ tests the sysfs and debugfs interfaces
	and the DAMON_RECLAIM and DAMON_LRU_SORT modules, which are gone:
	remove it, its TARGETS entry and its MAINTAINERS line.
	EOF
} | layer tools MAINTAINERS

# ---------------------------------------------------------------- trace

events=$(sed -n 's/^TRACE_EVENT(\([a-z_]*\),.*/damon:\1/p' \
	"$tree/include/trace/events/damon.h" | tr '\n' ' ' | sed 's/ $//')
{
	echo "mm/damon: replace include/trace/events/damon.h with the new tracepoints"
	echo
	para "The events of the new DAMON: $(commas "$events").  They keep upstream's names, fields and output format, so that perf, trace-cmd and the scripts built on them work unchanged: damon_aggregated reports every region of a target at the end of each aggregation interval, damos_before_apply every region a scheme is about to act on."
} | layer include/trace

# ---------------------------------------------------------------- docs

echo "  LAYERS  scripts/series-docs.py"
python3 "$top/scripts/series-docs.py" "$tree" "$top"
layer Documentation MAINTAINERS <<-EOF
	Docs/mm/damon: document the configfs interface

	Add Documentation/admin-guide/mm/damon/configfs.rst: every directory
	and file of /sys/kernel/config/damon/ with its unit, default, valid
	values and the errno of each kind of bad input; how state's on, off
	and commit behave; which changes a running context takes and when.

	Remove the pages of what the series removed: the sysfs and debugfs
	interfaces (admin-guide usage.rst and the ABI file
	sysfs-kernel-mm-damon), the DAMON_RECLAIM and DAMON_LRU_SORT modules,
	and the getting-started page, whose commands need the sysfs interface.
	Documentation/mm/damon/design.rst keeps describing the concepts; it
	now says which of them this DAMON implements and points to the
	configfs page where it pointed to the removed ones.  api.rst documents
	the functions of the files that have kernel-doc comments.

	The translations are left as they are.
EOF

left=$(g status --porcelain)
[ -z "$left" ] || die "changes that no layer took:
$left"

# ---------------------------------------------------------------- output

rm -rf "$out.tmp"
g format-patch -q --no-signature --no-renames --zero-commit \
	-o "$out.tmp" base..HEAD
(cd "$out.tmp" && ls -- *.patch) > "$out.tmp/series"
n=$(wc -l < "$out.tmp/series")
origin="Debian's linux-source-6.12"
[ -z "$ksrc" ] || origin=$ksrc
{
	cat <<-EOF
	DAMON with a configfs interface, as $n patches against Linux $base_version
	($origin), made by scripts/make-patches.sh.

	With git, in a fresh extract (-f: Debian's .gitignore ignores every
	top-level path of its tarball):

	  tar xf /usr/src/linux-source-6.12.tar.xz && cd linux-source-6.12
	  git init -q && git add -A -f && git commit -q -m base
	  git am $out/*.patch

	Or without git:

	  for p in \$(cat $out/series); do patch -p1 < $out/\$p; done

	The series:

	EOF
	for p in $(cat "$out.tmp/series"); do
		printf '  %s\n' "$p"
	done
	echo
	g diff --stat=72 base..HEAD | tail -1
	echo
	echo "Building and installing it: Documentation/install.md."
} > "$out.tmp/README"
rm -rf "$out"
mv "$out.tmp" "$out"
rm -rf "$work"
echo "  SERIES  $out ($n patches, $SECONDS s)"
