#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/profile.sh RUN_DIR
#
# The tables of make bench-profile: per target size, where each kernel's
# kdamond spends its time.  Reads every machine's profile-SIZE.txt (the
# function profiler's trace_stat tables: function, hits, time in us) and
# the profile_kdamond lines of its results.txt (the kdamond's run time over
# the same window), pooled over the repetitions, and prints per function
# the microseconds per second of wall time, the share of the kdamond's run
# time and the mean time per call.  Times include callees and exclude
# sleep, so rows nest: read a row as "of which".  The profile covers the
# whole machine: a function that other tasks call too (down_read,
# schedule) counts their calls as well.
set -u
run=${1:?usage: bench/profile.sh RUN_DIR}
shopt -s nullglob
files=("$run"/rep-*/profile-*.txt)
[ ${#files[@]} -gt 0 ] || exit 0

for f in "${files[@]}"; do
	d=${f%/*}
	k=${d##*-}
	s=${f##*/profile-}; s=${s%.txt}
	awk -v k="$k" -v s="$s" '
	$1 == "profile_kdamond" && $2 == s {
		printf "run\t%s\t%s\t%.3f\t%.0f\n", k, s, $6 - $5, $3 / $4 * 1e6
	}' "$d/results.txt"
	awk -v k="$k" -v s="$s" '
	$4 == "us" && $2 ~ /^[0-9]+$/ {
		printf "fn\t%s\t%s\t%s\t%s\t%s\n", k, s, $1, $2, $3
	}' "$f"
done | awk -F'\t' '
$1 == "run" { wall[$2 "\t" $3] += $4; kd[$2 "\t" $3] += $5; next }
{ key = $3 "\t" $4; hits[$2 "\t" key] += $5; us[$2 "\t" key] += $6; fns[key] = 1 }
END {
	for (key in fns) {
		split(key, p, "\t"); s = p[1]
		line = ""; keep = 0
		for (i = 1; i <= 2; i++) {
			k = i == 1 ? "ours" : "upstream"
			w = wall[k "\t" s]; c = kd[k "\t" s]
			t = us[k "\t" key]; h = hits[k "\t" key]
			if (w > 0 && h > 0) {
				line = line sprintf(" | %.0f | %.1f | %.2f", t / w,
					c > 0 ? t / c * 100 : 0, t / h)
				if (t / w >= 50) keep = 1
			} else {
				line = line " | - | - | -"
			}
		}
		if (keep)
			printf "%s\t%012.0f\t| %s%s |\n", s, 1e9 - us["ours\t" key] / (wall["ours\t" s] + 1e-9), p[2], line
	}
	for (ks in wall) {
		split(ks, p, "\t"); s = p[2]
		if (s in done) continue
		done[s] = 1
		line = ""
		for (i = 1; i <= 2; i++) {
			k = i == 1 ? "ours" : "upstream"
			w = wall[k "\t" s]
			line = line (w > 0 ? sprintf(" | %.0f | 100 | -", kd[k "\t" s] / w) : " | - | - | -")
		}
		printf "%s\t%012.0f\t| the kdamond (its run time, schedstat)%s |\n", s, 0, line
	}
}' | sort -t$'\t' -k1,1n -k2,2 | awk -F'\t' '
$1 != last {
	printf "\n#### %s MiB target\n\n", $1
	print "| function | ours: us/s | ours: % of kdamond | ours: us/call | upstream: us/s | upstream: % of kdamond | upstream: us/call |"
	print "|---|---|---|---|---|---|---|"
	last = $1
}
{ print $3 }'
