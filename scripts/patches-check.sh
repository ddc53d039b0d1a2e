#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the patch series that scripts/make-patches.sh wrote.
#
#   patches-check.sh PATCHES DIR COUNTS TREE [KSRC]
#
# In DIR, made anew on every run, from a fresh extract of the directories
# the series touches (the files directly in them) from Debian's
# linux-source-6.12, or from KSRC: a patch changes nothing outside them.
#
#   1. git am: DIR/series, committed as it was extracted (git directory
#      DIR/git, outside the tree), takes PATCHES/*.patch with git am;
#   2. patch -p1: a second copy takes them with patch -p1, and ends up
#      the same as DIR/series;
#   3. same as the build: in each of those directories DIR/series has the
#      files of TREE, the tree that scripts/prepare-tree.sh made for the
#      build, with the same contents, except where the series alone
#      changes the tree (Documentation, MAINTAINERS, tools/testing);
#   4. rst: the DAMON documentation pages of DIR/series parse without
#      warnings with docutils (skipped when python3-docutils is missing);
#   5. build: DIR/linux, a hard-linked copy of TREE whose series
#      directories hold DIR/series' files instead (so: the pristine tree
#      with the series applied), builds the UML kernel with $PC_BUILD
#      (the Makefile passes its patches-check-uml target:
#      scripts/uml.config, as uml-normal, with ccache).
#
# Prints one TAP line per check and a last PASS or FAIL line, writes
# "PASSED FAILED SKIPPED" to COUNTS, exits 0 only if nothing failed.
set -u

[ $# -ge 4 ] || { echo "usage: $0 PATCHES DIR COUNTS TREE [KSRC]" >&2; exit 2; }
patches=$(realpath -m "$1")
dir=$(realpath -m "$2")
counts=$3
build_tree=$(realpath -m "$4")
ksrc=${5:-}
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$dir/series
# Each step's output, kept beside DIR (which the first step makes anew).
logs=$dir-logs
log=$logs/log
rm -rf "$logs"
mkdir -p "$logs"
rm -f "$counts"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=patches-check GIT_AUTHOR_EMAIL=patches-check@localhost
export GIT_COMMITTER_NAME=patches-check GIT_COMMITTER_EMAIL=patches-check@localhost
g() { git --git-dir="$dir/git" --work-tree="$tree" "$@"; }

n=0 passed=0 failed=0 skipped=0
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n $1"
}
not_ok() {	# WHAT [LOG]: the log's tail as TAP comments
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $1"
	[ -n "${2:-}" ] && [ -s "$2" ] && tail -n 20 "$2" | sed 's/^/# /'
	return 0
}
skip() {
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n $1 # skip $2"
}
finish() {
	echo "1..$n"
	echo "$passed $failed $skipped" > "$counts"
	echo "patches: $passed passed, $failed failed, $skipped skipped"
	if [ "$failed" -eq 0 ]; then
		echo "patches-check: PASS"
		exit 0
	fi
	echo "patches-check: FAIL"
	exit 1
}
# step NAME COMMAND...: COMMAND's output into $log.NAME, its time to stdout.
step() {
	local name=$1 t0=$SECONDS rc
	shift
	"$@" > "$log.$name" 2>&1
	rc=$?
	echo "# $name: $((SECONDS - t0)) s"
	return $rc
}

mapfile -t series < <(cat "$patches/series" 2>/dev/null)
if [ ${#series[@]} -eq 0 ]; then
	not_ok "a series in $patches (make patches)"
	finish
fi

# ---------------------------------------------------------------- trees

# The directories the series touches ("." is the top), one per line.
mapfile -t dirs < <(cd "$patches" && cat "${series[@]}" |
	sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' | sed 's|[^/]*$||; s|/$||; s|^$|.|' |
	sort -u)

prepare() {
	rm -rf "$dir"
	mkdir -p "$dir"
	"$top/scripts/extract-tree.sh" "$tree" "$ksrc" --flat "${dirs[@]}" &&
	cp -a "$tree" "$dir/plain"
}
if ! step extract prepare; then
	not_ok "a fresh extract of ${#dirs[@]} directories from ${ksrc:-linux-source-6.12}" "$log.extract"
	finish
fi

# ---------------------------------------------------------------- git am

am() {
	g init -q &&
	g config gc.auto 0 &&
	g config maintenance.auto false &&
	(cd "$tree" && g -c core.looseCompression=1 add -A -f .) &&
	g commit -q --no-verify -m base &&
	g tag base &&
	(cd "$tree" && g am --quiet "${series[@]/#/$patches/}") || {
		g am --abort 2>/dev/null
		return 1
	}
	g log --oneline base..HEAD
}
if step am am; then
	ok "git am of ${#series[@]} patches"
	am_ok=1
else
	not_ok "git am of ${#series[@]} patches" "$log.am"
	am_ok=0
fi

# ---------------------------------------------------------------- patch -p1

plain() {
	local p
	for p in "${series[@]}"; do
		patch -s -p1 -N -d "$dir/plain" --no-backup-if-mismatch \
			< "$patches/$p" || { echo "$p failed"; return 1; }
	done
	[ "$am_ok" = 1 ] || return 0
	diff -rq --no-dereference "$tree" "$dir/plain"
}
if step plain plain; then
	ok "patch -p1 of ${#series[@]} patches$([ "$am_ok" = 1 ] && echo ", the same tree as git am")"
else
	not_ok "patch -p1 of ${#series[@]} patches" "$log.plain"
fi

# ---------------------------------------------------------------- the build's tree

# Differences from the build's tree are allowed only where the series
# alone changes the tree; prepare-tree.sh's own marks do not count.  diff
# without -r compares the files directly in two directories (following
# the build's links); what only one side has is a difference unless it is
# a directory.
same_as_build() {
	local d line p n
	for d in "${dirs[@]}"; do
		mkdir -p "$dir/none"
		diff -q "$tree/$d" "$build_tree/$d" 2>/dev/null ||
		[ -d "$tree/$d" ] || diff -q "$dir/none" "$build_tree/$d"
	done | while IFS= read -r line; do
		case $line in
		"Files "*)
			p=${line#Files }
			echo "${p%% and *}";;
		"Only in "*)
			p=${line#Only in }
			n=${p#*: }
			p=${p%%: *}
			[ -d "$p/$n" ] || echo "$p/$n";;
		esac
	done | sed -e "s#^$tree/##" -e "s#^$build_tree/##" -e "s#^$dir/none/##" \
		-e 's#^\./##' |
		grep -Ev '^(\.prepared$|mm/damon/\.ours$|Documentation/|MAINTAINERS$|tools/testing/)'
	# grep found nothing but those allowed
	[ "${PIPESTATUS[3]}" = 1 ]
}
if [ "$am_ok" != 1 ]; then
	skip "the same tree as the build's" "git am failed"
elif step same same_as_build; then
	ok "the same files as the build's tree in ${#dirs[@]} directories"
else
	not_ok "the same files as the build's tree in ${#dirs[@]} directories" "$log.same"
fi

# ---------------------------------------------------------------- rst

# docutils alone knows neither Sphinx's roles and directives nor the
# kernel's: those become no-ops, the rest of reStructuredText is checked.
rst() {
	python3 - "$@" <<-'EOF'
	import sys
	from docutils import nodes
	from docutils.core import publish_doctree
	from docutils.parsers.rst import Directive, directives, roles

	def role(name, rawtext, text, lineno, inliner, options={}, content=[]):
	    return [nodes.literal(rawtext, text)], []

	class Ignored(Directive):
	    has_content = True
	    optional_arguments = 1
	    final_argument_whitespace = True
	    option_spec = {'maxdepth': directives.unchanged,
	                   'export': directives.unchanged,
	                   'internal': directives.unchanged,
	                   'identifiers': directives.unchanged}

	    def run(self):
	        return []

	for r in ('ref', 'doc'):
	    roles.register_local_role(r, role)
	for d in ('toctree', 'kernel-doc'):
	    directives.register_directive(d, Ignored)
	bad = 0
	for f in sys.argv[1:]:
	    try:
	        with open(f, encoding='utf-8') as src:
	            publish_doctree(src.read(), source_path=f,
	                            settings_overrides={'halt_level': 2,
	                                                'report_level': 2})
	        print('%s: ok' % f)
	    except Exception as e:  # a warning, halted on
	        print('%s: %s' % (f, e))
	        bad = 1
	sys.exit(bad)
	EOF
}
if [ "$am_ok" != 1 ]; then
	skip "rst of the DAMON documentation" "git am failed"
elif ! python3 -c 'import docutils' 2>/dev/null; then
	skip "rst of the DAMON documentation" "no python3-docutils"
else
	mapfile -t pages < <(cd "$tree" && ls Documentation/admin-guide/mm/damon/*.rst \
		Documentation/mm/damon/*.rst)
	if (cd "$tree" && step rst rst "${pages[@]}"); then
		ok "rst of the DAMON documentation (${#pages[@]} pages)"
	else
		not_ok "rst of the DAMON documentation" "$log.rst"
	fi
fi

# ---------------------------------------------------------------- build

# ccache counts this build's compilations in a log of its own: hits, and
# the files it missed (the normal build's objects should serve all but
# the few whose sources only the series changes).
ccache_summary() {
	[ -s "$1" ] || return 0
	echo "# ccache: $(grep -Ec '^(direct|preprocessed)_cache_hit$' "$1") hits," \
		"$(grep -c '^cache_miss$' "$1") misses"
	awk '/^# / { file = $2 } /^cache_miss$/ { print "#   missed " file }' "$1" |
		sort -u
}
# The whole patched tree without extracting it again: the build's tree
# (pristine outside the series' directories, which check 3 compared) with
# the series' directories as git am left them.
full_tree() {
	local d full=$dir/linux
	cp -al "$build_tree" "$full" || return 1
	rm -f "$full/.prepared"
	for d in "${dirs[@]}"; do
		if [ -d "$full/$d" ]; then
			find "$full/$d" -maxdepth 1 ! -type d -delete || return 1
		fi
		if [ -d "$tree/$d" ]; then
			mkdir -p "$full/$d" &&
			(cd "$tree/$d" && find . -maxdepth 1 ! -type d -print0 |
				xargs -0 -r cp -a -t "$full/$d") || return 1
		else	# the series removed it
			rmdir "$full/$d" 2>/dev/null
		fi
	done
	return 0
}
if [ "$am_ok" != 1 ]; then
	skip "UML kernel of the patched tree" "git am failed"
elif [ -z "${PC_BUILD:-}" ]; then
	skip "UML kernel of the patched tree" "no PC_BUILD command"
else
	if step full full_tree &&
	   CCACHE_STATSLOG=$logs/ccache-stats step build bash -c "$PC_BUILD"; then
		ccache_summary "$logs/ccache-stats" | head -n 40
		ok "UML kernel of the patched tree (scripts/uml.config)"
	else
		not_ok "UML kernel of the patched tree (scripts/uml.config)" "$log.build"
	fi
fi

finish
