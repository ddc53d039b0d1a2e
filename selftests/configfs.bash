# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the suites that test the DAMON configfs interface (the
# contract is configfs-layout.md).  A suite starts with
#
#	load lib
#	load configfs
#	setup() { cfs_setup; }
#	teardown() { cfs_teardown; }
#
# Every helper is prefixed cfs_.  Exact errnos come from bin/sysio (built
# from workloads/sysio.c), which makes each write, mkdir and rmdir one
# system call and prints "OK" or the errno's name.  One `sysio serve`
# per test answers the calls of the test's own shell through a coprocess:
# a fork and exec per call would cost ~30 ms each in UML.  Subshells and
# background jobs cannot share that pipe safely; they run sysio each time.
#
# shellcheck disable=SC2034 # the variables set here are for the suites

CFS=/sys/kernel/config/damon
CFS_CTXS=$CFS/contexts
SYSIO=$ST_BIN/sysio
PAGE_SIZE=4096
# (bash's HOSTTYPE, not a uname -m fork in every test)
[ "$HOSTTYPE" = x86_64 ] || PAGE_SIZE=$(getconf PAGESIZE)
U64_MAX=18446744073709551615
U64_OVER=18446744073709551616

# The files of each directory, with their modes, as the contract lists them.
CFS_CTX_RW=(operations sample_us aggr_us update_us min_nr_regions
	max_nr_regions state)
CFS_CTX_RO=(kdamond_pid nr_aggregations)
CFS_CTX_DIRS=(targets schemes intervals_goal)
CFS_INTERVALS_RW=(access_bp aggrs min_sample_us max_sample_us)
CFS_TARGET_RW=(pid)
CFS_TARGET_RO=(snapshot)
CFS_TARGET_DIRS=(regions)
CFS_REGION_RW=(start end)
CFS_SCHEME_RW=(action apply_interval_us target_nid)
CFS_SCHEME_DIRS=(access_pattern quotas watermarks filters stats)
CFS_PATTERN_RW=(min_size_bytes max_size_bytes min_nr_accesses
	max_nr_accesses min_age max_age)
CFS_QUOTAS_RW=(ms bytes reset_interval_ms weight_size weight_nr_accesses
	weight_age)
CFS_QUOTAS_RO=(effective_bytes)
CFS_QUOTAS_DIRS=(goals)
CFS_WMARKS_RW=(metric interval_us high mid low)
CFS_STATS_RO=(nr_tried sz_tried nr_applied sz_applied qt_exceeds)
CFS_FILTER_RW=(type matching addr_start addr_end target memcg_path)
CFS_GOAL_RW=(target_metric target_value current_value nid memcg_path)

# Each test starts from an empty contexts/ directory.
cfs_setup() {
	st_trace_test_only
	st_require_root
	st_require_fs configfs
	st_mount_type /sys/kernel/config > /dev/null
	if [ "$ST_MOUNT_TYPE" != configfs ]; then
		echo "configfs is not mounted at /sys/kernel/config"
		return 1
	fi
	if [ ! -d "$CFS" ]; then
		echo "$CFS does not exist: no CONFIG_DAMON_CONFIGFS in this kernel?"
		return 1
	fi
	if [ ! -x "$SYSIO" ]; then
		echo "$SYSIO is not built (make -C selftests)"
		return 1
	fi
	cfs__serve_start
	cfs_remove_all
}

cfs_teardown() {
	local rc=0
	cfs_stop_all || rc=1
	st_cleanup
	cfs_remove_all || rc=1
	return $rc
}

# cfs_stop_all: turn every context off.
cfs_stop_all() {
	local c rc=0
	for c in "$CFS_CTXS"/*/; do
		[ -d "$c" ] || continue
		echo off > "$c/state" || rc=1
	done
	return $rc
}

# cfs_remove_all: turn every context off and remove everything below
# contexts/.  Fails if something stays.
cfs_remove_all() {
	local d left=()
	cfs_stop_all
	for d in "$CFS_CTXS"/*/targets/*/regions/*/ \
		"$CFS_CTXS"/*/schemes/*/filters/*/ \
		"$CFS_CTXS"/*/schemes/*/quotas/goals/*/ "$CFS_CTXS"/*/schemes/*/ \
		"$CFS_CTXS"/*/targets/*/ "$CFS_CTXS"/*/; do
		[ -d "$d" ] && cfs__call rmdir "$d"
	done
	for d in "$CFS_CTXS"/* "$CFS_CTXS"/.[!.]*; do
		[ -e "$d" ] && left+=("${d##*/}")
	done
	if [ ${#left[@]} -gt 0 ]; then
		echo "cannot clean $CFS_CTXS: ${left[*]}"
		return 1
	fi
}

# ------------------------------------------------------------ system calls

cfs__serve_start() {
	CFS_SRV_OWNER=
	coproc CFS_SRV { exec "$SYSIO" serve 3>&-; }
	CFS_SRV_OWNER=$BASHPID
}

# cfs_serve_req OP PATH [VALUE]: one request of `sysio serve`'s protocol
# on stdout, for a server of the caller's own (a pipe into `sysio serve`).
cfs_serve_req() {
	local LC_ALL=C
	printf '%s %d %d\n%s%s' "$1" "${#2}" "${#3}" "$2" "${3-}"
}

# cfs__call OP PATH [VALUE]: one system call by sysio (see sysio.c); the
# answer ("OK" or an errno name) in CFS_GOT, for a read the data in
# CFS_DATA.
cfs__call() {
	local LC_ALL=C n
	CFS_DATA=
	if [ "${CFS_SRV_OWNER:-}" = "$BASHPID" ] && [ -n "${CFS_SRV[1]:-}" ]; then
		cfs_serve_req "$@" >&"${CFS_SRV[1]}" &&
		read -r CFS_GOT n <&"${CFS_SRV[0]}" || {
			CFS_GOT="sysio serve died"
			return 1
		}
		if [ "$1 $CFS_GOT" = "read OK" ] && [ "$n" -gt 0 ]; then
			IFS= read -r -N "$n" CFS_DATA <&"${CFS_SRV[0]}"
		fi
	elif [ "$1" = read ]; then
		n=$BATS_TEST_TMPDIR/.cfs_read.$BASHPID
		CFS_GOT=$("$SYSIO" read "$2" 2>&1 > "$n") && CFS_GOT=OK
		IFS= read -r -d '' CFS_DATA < "$n"
		rm -f "$n"
	else
		CFS_GOT=$("$SYSIO" "$1" "$2" ${3+"$3"})
	fi
}

# cfs_w FILE VALUE: one write(2) of VALUE (no newline added); prints OK or
# the errno name.
cfs_w() {
	cfs__call write "$1" "$2"
	echo "$CFS_GOT"
}

# cfs_expect WANT FILE VALUE: writing VALUE to FILE gives WANT (OK or an
# errno name).
cfs_expect() {
	local want=$1 file=$2 val=$3 got
	cfs__call write "$file" "$val"
	got=$CFS_GOT
	if [ "$got" != "$want" ]; then
		echo "write $(printf %q "$val") to $file: expected $want, got $got"
		return 1
	fi
}

# cfs_expect_one_of "WANT1 WANT2..." FILE VALUE
cfs_expect_one_of() {
	local wants=" $1 " file=$2 val=$3 got
	cfs__call write "$file" "$val"
	got=$CFS_GOT
	if [[ "$wants" != *" $got "* ]]; then
		echo "write $(printf %q "$val") to $file: expected one of$wants, got $got"
		return 1
	fi
}

# cfs_set FILE VALUE: write VALUE followed by a newline, which must work.
cfs_set() {
	cfs_expect OK "$1" "$2"$'\n'
}

# cfs_expect_mkdir WANT PATH, cfs_expect_rmdir WANT PATH
cfs_expect_mkdir() {
	local got
	cfs__call mkdir "$2"
	got=$CFS_GOT
	if [ "$got" != "$1" ]; then
		echo "mkdir $2: expected $1, got $got"
		return 1
	fi
}

cfs_expect_rmdir() {
	local got
	cfs__call rmdir "$2"
	got=$CFS_GOT
	if [ "$got" != "$1" ]; then
		echo "rmdir $2: expected $1, got $got"
		return 1
	fi
}

# cfs_expect_read WANT FILE: reading FILE to its end gives WANT.
cfs_expect_read() {
	local got
	cfs__call readerr "$2"
	got=$CFS_GOT
	if [ "$got" != "$1" ]; then
		echo "read $2: expected $1, got $got"
		return 1
	fi
}

# cfs_expect_value FILE WANT: FILE reads exactly WANT and one newline.
cfs_expect_value() {
	local got
	cfs__call read "$1"
	[ "$CFS_GOT" = OK ] || { echo "cannot read $1: $CFS_GOT"; return 1; }
	got=$CFS_DATA
	if [ "$got" != "$2"$'\n' ]; then
		echo "$1 reads $(printf %q "$got"), expected $(printf %q "$2"$'\n')"
		return 1
	fi
}

# cfs_mode PATH: the octal permission bits of PATH.
cfs_mode() {
	stat -c %a "$1"
}

# cfs_expect_ls DIR NAME...: DIR holds exactly the entries NAME..., in any
# order (no NAME: DIR is empty).  Globs and tests only: no process, where
# ls(1) piped to sort(1) cost four.
cfs_expect_ls() {
	local dir=$1 e got=() miss=()
	shift
	[ -d "$dir" ] || { echo "$dir is not a directory"; return 1; }
	for e in "$dir"/* "$dir"/.[!.]* "$dir"/..?*; do
		if [ -e "$e" ] || [ -L "$e" ]; then
			got+=("${e##*/}")
		fi
	done
	for e in "$@"; do
		[ -e "$dir/$e" ] || miss+=("$e")
	done
	if [ ${#miss[@]} -gt 0 ] || [ ${#got[@]} -ne $# ]; then
		echo "$dir holds (${got[*]}), expected ($*)"
		return 1
	fi
}

# cfs_expect_modes DIR RW_FILE... [-- RO_FILE...]: each FILE is a regular
# file owned by root, of mode 0600 before -- and 0400 after it.  One
# stat(1) for all of them.
cfs_expect_modes() {
	local dir=$1 mode=600 f files=() want=() got=() i
	shift
	for f in "$@"; do
		if [ "$f" = -- ]; then
			mode=400
			continue
		fi
		[ -f "$dir/$f" ] || { echo "$dir/$f is not a regular file"; return 1; }
		files+=("$dir/$f")
		want+=("$mode 0:0")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	mapfile -t got < <(stat -c '%a %u:%g' -- "${files[@]}")
	for i in "${!files[@]}"; do
		[ "${got[i]-}" = "${want[i]}" ] || {
			echo "${files[i]}: mode and owner ${got[i]-?}, expected ${want[i]}"
			return 1
		}
	done
}

# ------------------------------------------------------------ the tree

# cfs_mkctx NAME [SAMPLE AGGR UPDATE MIN MAX]: make a context, optionally
# setting its attributes.
cfs_mkctx() {
	local c=$CFS_CTXS/$1
	cfs_expect_mkdir OK "$c" || return 1
	[ $# -ge 6 ] || return 0
	cfs_attrs "$1" "$2" "$3" "$4" "$5" "$6"
}

# cfs_attrs CTX SAMPLE AGGR UPDATE MIN MAX (any order works, per contract)
cfs_attrs() {
	local c=$CFS_CTXS/$1
	cfs_set "$c/sample_us" "$2" &&
	cfs_set "$c/aggr_us" "$3" &&
	cfs_set "$c/update_us" "$4" &&
	cfs_set "$c/min_nr_regions" "$5" &&
	cfs_set "$c/max_nr_regions" "$6"
}

# cfs_mktarget CTX TARGET [PID]
cfs_mktarget() {
	local t=$CFS_CTXS/$1/targets/$2
	cfs_expect_mkdir OK "$t" || return 1
	[ $# -ge 3 ] || return 0
	cfs_set "$t/pid" "$3"
}

# cfs_mkregion CTX TARGET REGION START END
cfs_mkregion() {
	local r=$CFS_CTXS/$1/targets/$2/regions/$3
	cfs_expect_mkdir OK "$r" || return 1
	cfs_set "$r/start" "$4" && cfs_set "$r/end" "$5"
}

# cfs_mkscheme CTX SCHEME [FILTER...]: a scheme with default settings and
# the given filters.
cfs_mkscheme() {
	local s=$CFS_CTXS/$1/schemes/$2 f
	cfs_expect_mkdir OK "$s" || return 1
	shift 2
	for f in "$@"; do
		cfs_expect_mkdir OK "$s/filters/$f" || return 1
	done
}

# cfs_read FILE: print the first line of FILE (without a fork; st_read
# sets a variable instead, for a poll predicate).
cfs_read() {
	local v
	st_read v "$1" || return 1
	echo "$v"
}

# cfs_stat CTX SCHEME NAME: print a statistic of the scheme.
cfs_stat() {
	cfs_read "$CFS_CTXS/$1/schemes/$2/stats/$3"
}

# cfs_stat_to VAR CTX SCHEME NAME: VAR gets a statistic of the scheme (no
# process: for poll predicates and loops).
cfs_stat_to() {
	st_read "$1" "$CFS_CTXS/$2/schemes/$3/stats/$4"
}

# cfs_stat_above CTX SCHEME NAME N: the statistic exceeds N (a poll
# predicate: no process).
cfs_stat_above() {
	local v
	cfs_stat_to v "$1" "$2" "$3" && [ "$v" -gt "$4" ]
}

cfs_state() {
	cfs_read "$CFS_CTXS/$1/state"
}

cfs_nr_aggr() {
	cfs_read "$CFS_CTXS/$1/nr_aggregations"
}

cfs_kdamond_pid() {
	cfs_read "$CFS_CTXS/$1/kdamond_pid"
}

# cfs_on CTX, cfs_off CTX, cfs_commit CTX: must succeed.
cfs_on() {
	cfs_expect OK "$CFS_CTXS/$1/state" on
}

cfs_off() {
	cfs_expect OK "$CFS_CTXS/$1/state" off
}

cfs_commit() {
	cfs_expect OK "$CFS_CTXS/$1/state" commit
}

cfs__aggr_at_least() {
	local n
	read -r n < "$CFS_CTXS/$1/nr_aggregations" || return 1
	[ "$n" -ge "$2" ]
}

# cfs_wait_aggr CTX N [SECONDS]: wait until nr_aggregations >= N.
cfs_wait_aggr() {
	if ! st_wait_for "${3:-60}" cfs__aggr_at_least "$1" "$2"; then
		echo "$1: nr_aggregations still $(cfs_nr_aggr "$1") < $2" \
			"after ${3:-60}s (state $(cfs_state "$1"))"
		return 1
	fi
}

# cfs_wait_more_aggr CTX K [SECONDS]: wait for K more aggregations.
cfs_wait_more_aggr() {
	local n
	read -r n < "$CFS_CTXS/$1/nr_aggregations" || return 1
	cfs_wait_aggr "$1" $((n + $2)) "${3:-60}"
}

cfs__is_off() {
	local v
	read -r v < "$CFS_CTXS/$1/state" && [ "$v" = off ]
}

# cfs_wait_off CTX [SECONDS]: wait until the context reads off.
cfs_wait_off() {
	st_wait_for "${2:-30}" cfs__is_off "$1" || {
		echo "$1 still reads $(cfs_state "$1") after ${2:-30}s"
		return 1
	}
}

# ------------------------------------------------------------ snapshots

# cfs_snapshot_to CTX TARGET FILE: read the snapshot into FILE, again on
# EAGAIN (up to 20 times).
cfs_snapshot_to() {
	local snap=$CFS_CTXS/$1/targets/$2/snapshot i
	for ((i = 0; i < 20; i++)); do
		cfs__call read "$snap"
		if [ "$CFS_GOT" = OK ]; then
			printf '%s' "$CFS_DATA" > "$3"
			return 0
		fi
		[ "$CFS_GOT" = EAGAIN ] || { echo "read $snap: $CFS_GOT"; return 1; }
	done
	echo "read $snap: EAGAIN 20 times in a row"
	return 1
}

# cfs_snapshot_problems FILE MAX_NR_ACCESSES: print what is wrong with the
# snapshot in FILE (nothing if it is well-formed): every line
# "START END NR_ACCESSES AGE" in decimal, START < END, both page-aligned,
# sorted by address and not overlapping, NR_ACCESSES <= MAX_NR_ACCESSES,
# and the text ends with a newline.
cfs_snapshot_problems() {
	if [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" != '\n' ]; then
		echo "the text does not end with a newline"
	fi
	awk -v page="$PAGE_SIZE" -v maxacc="$2" '
	!/^(0|[1-9][0-9]*) (0|[1-9][0-9]*) (0|[1-9][0-9]*) (0|[1-9][0-9]*)$/ {
		print "line " NR ": malformed: \"" $0 "\""; next
	}
	{
		s = $1 + 0; e = $2 + 0
		if (s >= e) print "line " NR ": start >= end: " $0
		if (s % page || e % page) print "line " NR ": not page-aligned: " $0
		if (NR > 1 && s < prev) print "line " NR ": unsorted or overlapping: " $0
		if ($3 + 0 > maxacc) print "line " NR ": nr_accesses above " maxacc ": " $0
		prev = e
	}' "$1"
}

# cfs_covered FILE: the ranges the snapshot in FILE covers, adjacent
# regions joined, one "START END" a line.
cfs_covered() {
	awk '
	{ s = $1 + 0; e = $2 + 0 }
	NR == 1 { cs = s; ce = e; next }
	s == ce { ce = e; next }
	{ printf "%.0f %.0f\n", cs, ce; cs = s; ce = e }
	END { if (NR) printf "%.0f %.0f\n", cs, ce }' "$1"
}

# cfs_range_stats FILE START END: "N MEAN MAX" of the regions of the
# snapshot in FILE that overlap [START, END): their number, their mean
# nr_accesses weighted by the bytes of the range each covers, and the
# largest nr_accesses among them.  (Regions may reach beyond a range of a
# workload: an idle range merges with idle neighbours and holes.)
cfs_range_stats() {
	awk -v lo="$2" -v hi="$3" '
	{
		s = $1 + 0 > lo + 0 ? $1 + 0 : lo + 0
		e = $2 + 0 < hi + 0 ? $2 + 0 : hi + 0
		if (s >= e) next
		n++; sz += e - s; sum += (e - s) * $3
		if ($3 + 0 > max) max = $3 + 0
	}
	END { printf "%d %.2f %d\n", n, n ? sum / sz : 0, max }' "$1"
}

# ------------------------------------------------------------ processes

# cfs_start_sleeper [MIB]: start a sleeper; its pid in SLEEPER_PID.
cfs_start_sleeper() {
	st_start sleeper "$@" || return 1
	SLEEPER_PID=$ST_PID
}

# cfs_dead_pid: start a sleeper and let it exit; its pid in DEAD_PID (the
# number is free again, unless something else got it meanwhile).
cfs_dead_pid() {
	st_start sleeper || return 1
	DEAD_PID=$ST_PID
	st_stop "$DEAD_PID" TERM || return 1
}

# cfs_free_pid: print a pid number that no process has.
cfs_free_pid() {
	local max p
	read -r max < /proc/sys/kernel/pid_max
	for ((p = max - 1; p > max - 1000; p--)); do
		[ -e "/proc/$p" ] || { echo "$p"; return 0; }
	done
	return 1
}

# cfs_as_user UID GID CMD...: run CMD from / as UID and GID, without
# supplementary groups or capabilities: with setpriv(1), or su(1) as the
# fallback (for uid 65534 only).  Fails with 125 if neither works.
cfs_as_user() {
	local uid=$1 gid=$2 cmd
	shift 2
	if [ -z "${CFS_USER_VIA:-}" ]; then
		if (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all -- true) 2>/dev/null; then
			CFS_USER_VIA=setpriv
		elif (cd / && su -s /bin/sh nobody -c true) 2>/dev/null </dev/null; then
			CFS_USER_VIA=su
		else
			CFS_USER_VIA=none
		fi
	fi
	case $CFS_USER_VIA in
	setpriv)
		(cd / && exec setpriv --reuid="$uid" --regid="$gid" \
			--clear-groups --inh-caps=-all -- "$@")
		;;
	su)
		[ "$uid" = 65534 ] || return 125
		cmd=$(printf '%q ' "$@")
		(cd / && exec su -s /bin/sh nobody -c "$cmd")
		;;
	*)
		return 125
		;;
	esac
}

# cfs_as_nobody CMD...: cfs_as_user 65534 65534 CMD...
cfs_as_nobody() {
	cfs_as_user 65534 65534 "$@"
}

# cfs_nobody_sysio: a copy of sysio that nobody can run, in CFS_NOBODY_DIR
# (the work tree may not be reachable for other users); sets NOBODY_SYSIO.
cfs_nobody_sysio() {
	CFS_NOBODY_DIR=$(mktemp -d /tmp/cfs-nobody.XXXXXX) || return 1
	chmod 0755 "$CFS_NOBODY_DIR" &&
	cp "$SYSIO" "$CFS_NOBODY_DIR/sysio" &&
	chmod 0755 "$CFS_NOBODY_DIR/sysio" || return 1
	NOBODY_SYSIO=$CFS_NOBODY_DIR/sysio
}
