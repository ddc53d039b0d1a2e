#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/analyze.sh RUN_DIR
#
# Turns the raw files of one bench machine (bench/driver.sh's results.txt,
# wl-*.txt, trace-*.txt) into "METRIC KERNEL VALUE" lines on stdout.
# Definitions (bench/README.md has them too):
#   kd_cpu_pct_S     kdamond CPU time / monitored wall time, %, S MiB target
#   slowdown_pct_S   workload progress rate unmonitored (mean of the window
#                    before and the one after) / monitored, minus 1, in %
#   base_rate_S      the workload's unmonitored progress rate (mean of the
#                    two windows), million pages a second: how fast this
#                    boot of the machine ran, which moves kd_cpu too
#   kd_flat          kd_cpu at the largest size / at the smallest
#   {hwc,mov}_precision, _recall   bytes-weighted, per aggregation, "hot"
#                    = nr_accesses >= half the maximum (aggr_us/sample_us/2)
#                    against the workload's hot range; mean over all
#                    aggregations (precision over those with any hot bytes)
#   mov_latency      per window move: aggregations after the move until
#                    recall of the new window >= 0.8; median over moves
#   mov_detected     fraction of moves detected before the next move
#   {hwc,mov}_nr_regions   mean number of regions per aggregation
#   po_rss_saved_pct, po_rss_saved_mib   RssAnon before the scheme minus at
#                    the end of the measurement window
#   po_slowdown_pct  progress rate before the scheme / with it, minus 1, %
#   po_acted_R_mib   MiB of the workload's range R (hot, warm, cold) the
#                    scheme acted on (damos_before_apply), summed; "other"
#                    is what it acted on in the workload's other mappings
#                    (code, libraries, stack: /proc/PID/maps at the end)
#   scale_setup_s_N  seconds to make N region directories and write their
#                    bounds (mkdir + 2 writes each; upstream: nr_regions)
#   scale_on_ms_N, scale_commit_ms_N   wall time of writing on / commit
#                    with N initial regions
#   scale_maplat_{max,p99}_us_N   one mmap()+munmap() of the target while
#                    N regions are monitored (0: not monitored)
#   scale_kd_cpu_pct_N   kdamond CPU at N regions (min = max = N)
#   floor_kd_cpu_pct_N   the same on the populated 64 MiB hot/warm/cold
#   floor_fixed_us, floor_region_us   a line through those: the cost of a
#                    sample with no region and of each region, us
#   floor_sleeper_cpu_pct, floor_sleeper_us   a task that sleeps 5 ms at a
#                    time: its CPU, and per wake-up
#   floor_pa_cpu_pct_N   kdamond CPU monitoring physical memory (the
#                    largest System RAM range) at N regions (min = max = N)
#   floor_nr_regions_N, floor_pa_nr_regions_N   the regions such a point
#                    really had: mean per aggregation over a traced second
set -u
dir=$1
r=$dir/results.txt
[ -f "$r" ] || exit 0
kernel=$(awk '$1 == "kernel" { print $2 }' "$r")
hot_min=10	# aggr_us / sample_us / 2 with 5 ms / 100 ms

# rate FILE LABEL_START LABEL_END: ops per second between two marks.
rate() {
	awk -v a="$2" -v b="$3" '
	$1 == "mark" { m = $2; next }
	$1 == "progress" && m != "" { t[m] = $2; o[m] = $3; m = "" }
	END {
		if (!(a in t) || !(b in t) || t[b] <= t[a]) exit 1
		printf "%.3f\n", (o[b] - o[a]) / (t[b] - t[a])
	}' "$1"
}

# Sweep: CPU and slowdown per size.
first='' last=''
# A "kdamond" line: size, CPU time in units, units per second, wall start
# and end (s).  kd_cpu_S and kd_wall_S (the wall time in the same units)
# are for report.sh's pooled figure.
while read -r _ mib used unit t0 t1; do
	cpu=$(awk -v c="$used" -v u="$unit" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.4f", c / u / (b - a) * 100 }')
	echo "kd_cpu_pct_$mib $kernel $cpu"
	echo "kd_cpu_$mib $kernel $used"
	awk -v a="$t0" -v b="$t1" -v u="$unit" -v s="$mib" -v k="$kernel" \
		'BEGIN { printf "kd_wall_%s %s %.0f\n", s, k, (b - a) * u }'

	[ -n "$first" ] || first=$cpu
	last=$cpu
	f=$dir/wl-sweep$mib.txt
	b1=$(rate "$f" base1_start base1_end) && b2=$(rate "$f" base2_start base2_end) &&
		m=$(rate "$f" mon_start mon_end) &&
		awk -v x="$b1" -v y="$b2" -v m="$m" -v s="$mib" -v k="$kernel" \
			'BEGIN { printf "slowdown_pct_%s %s %.3f\n", s, k, ((x + y) / 2 / m - 1) * 100
				printf "base_rate_%s %s %.3f\n", s, k, (x + y) / 2 / 1e6 }'
done < <(awk '$1 == "kdamond"' "$r")
[ -n "$first" ] && awk -v a="$first" -v b="$last" -v k="$kernel" \
	'BEGIN { if (a > 0) printf "kd_flat %s %.3f\n", k, b / a }'

# Scale: time of on and commit with N regions, mmap()+munmap() latency
# while N regions are monitored (N = 0: unmonitored), kdamond CPU at N.
awk -v k="$kernel" '
$1 == "scale_setup" { printf "scale_setup_s_%s %s %.1f\n", $2, k, $3 / 1000 }
$1 == "scale_on" { printf "scale_on_ms_%s %s %s\n", $2, k, $3 }
$1 == "scale_commit" { printf "scale_commit_ms_%s %s %s\n", $2, k, $3 }
$1 == "scale_maplat" {
	printf "scale_maplat_max_us_%s %s %s\n", $2, k, $4
	printf "scale_maplat_p99_us_%s %s %s\n", $2, k, $5
}
$1 == "scale_kdamond" && $6 > $5 {
	printf "scale_kd_cpu_pct_%s %s %.4f\n", $2, k, $3 / $4 / ($6 - $5) * 100
}' "$r"

# Floor: kdamond CPU at N regions (min = max = N), a sleeping task's CPU,
# and a least-squares line through the kdamond's points, both in us per
# 5 ms sample (200 a second): the intercept is what a sample costs with no
# region, the slope what each region adds.  Each point counts the regions
# it really had (the mean per aggregation of the second traced after it:
# every aggregation emits nr_regions events, each weighing 1/nr_regions),
# which the line is fitted against where known.
floor_regions() {	# TRACE_FILE: mean regions per aggregation
	awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^nr_regions=/) { n++; inv += 1 / substr($i, 12) }
	} END { if (inv > 0) printf "%.1f", n / inv }' "$1"
}
counts=''	# "TRACE_NAME:REGIONS ...", e.g. "floor-3:3.0 floor-pa-10:7.0"
for f in "$dir"/trace-floor-*.txt; do
	[ -s "$f" ] || continue
	n=${f##*/trace-}; counts+=" ${n%.txt}:$(floor_regions "$f")"
done
awk -v k="$kernel" -v counts="$counts" '
BEGIN {
	m = split(counts, p, " ")
	for (i = 1; i <= m; i++) { split(p[i], q, ":"); cnt[q[1]] = q[2] }
}
$1 == "floor_sleeper" && $5 > $4 {
	v = $2 / $3 / ($5 - $4)
	printf "floor_sleeper_cpu_pct %s %.4f\n", k, v * 100
	printf "floor_sleeper_us %s %.2f\n", k, v * 1e6 / 200
}
$1 == "floor_pa_kdamond" && $6 > $5 {
	printf "floor_pa_cpu_pct_%s %s %.4f\n", $2, k, $3 / $4 / ($6 - $5) * 100
	if (cnt["floor-pa-" $2] > 0)
		printf "floor_pa_nr_regions_%s %s %s\n", $2, k, cnt["floor-pa-" $2]
}
$1 == "floor_kdamond" && $6 > $5 {
	v = $3 / $4 / ($6 - $5)
	c = cnt["floor-" $2]
	x = c > 0 ? c : $2
	printf "floor_kd_cpu_pct_%s %s %.4f\n", $2, k, v * 100
	if (c > 0)
		printf "floor_nr_regions_%s %s %s\n", $2, k, c
	n++; sx += x; sy += v; sxx += x * x; sxy += x * v
}
END {
	if (n < 2 || n * sxx == sx * sx)
		exit
	b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
	a = (sy - b * sx) / n
	printf "floor_fixed_us %s %.2f\n", k, a * 1e6 / 200
	printf "floor_region_us %s %.3f\n", k, b * 1e6 / 200
}' "$r"

# accuracy NAME WORKLOAD_FILE TRACE_FILE: precision, recall, latency.
# The workload file gives either one "range hot S E" (a fixed truth),
# "window T S E" lines (the truth from time T on; T and the trace's
# timestamps are both CLOCK_MONOTONIC), or "prange S E" lines (a fixed
# truth of several ranges: the hot range's physical pages).  An aggregation's events come in
# address order within a few microseconds; a new one starts when the
# address goes back or after a 50 ms gap.
accuracy() {
	awk -v name="$1" -v k="$kernel" -v hot_min="$hot_min" '
	# the truth of window w: nt[w] ranges ts_[w, i] .. te[w, i], tb[w] bytes
	function truth(w, s, e) { nt[w]++; ts_[w, nt[w]] = s; te[w, nt[w]] = e; tb[w] += e - s }
	FNR == NR {
		if ($1 == "range" && $2 == "hot") { nw = 1; wt[1] = 0; truth(1, $3, $4) }
		if ($1 == "window") { nw++; wt[nw] = $2; truth(nw, $3, $4) }
		if ($1 == "prange") { if (!nw) { nw = 1; wt[1] = 0 } truth(1, $2, $3) }
		next
	}
	{
		for (i = 1; i <= NF; i++) if ($i == "damon_aggregated:") break
		if (i > NF) next
		ts = $(i - 1); sub(/:$/, "", ts); ts += 0
		split($(i + 3), se, "[-:]")
		s = se[1] + 0; e = se[2] + 0; acc = $(i + 4) + 0
		if (n == 0 || s <= ps || ts - pts > 0.05) {
			flush()
			if (naggr == 0) t_first = ts
			naggr++; n = 0
		}
		n++; rs[n] = s; re_[n] = e; ra[n] = acc
		ps = s; pts = ts
	}
	function flush(   j, m, cur, det, inter, lo, hi, rec) {
		if (n == 0) return
		cur = 1
		for (j = 1; j <= nw; j++) if (wt[j] <= pts) cur = j
		det = 0; inter = 0
		for (j = 1; j <= n; j++) {
			if (ra[j] < hot_min) continue
			det += re_[j] - rs[j]
			for (m = 1; m <= nt[cur]; m++) {
				lo = rs[j] > ts_[cur, m] ? rs[j] : ts_[cur, m]
				hi = re_[j] < te[cur, m] ? re_[j] : te[cur, m]
				if (hi > lo) inter += hi - lo
			}
		}
		rec = inter / tb[cur]
		sr += rec; nr++; sn += n
		if (det > 0) { sp += inter / det; np++ }
		if (cur != lastcur) { since = 0; detected = 0; lastcur = cur }
		since++
		if (!detected && rec >= 0.8 && cur > 1 && wt[cur] > t_first) {
			lat[++nl] = since; detected = 1
		}
		n = 0
	}
	END {
		flush()
		printf "%s_precision %s %.4f\n", name, k, np ? sp / np : 0
		printf "%s_recall %s %.4f\n", name, k, nr ? sr / nr : 0
		printf "%s_aggregations %s %d\n", name, k, nr
		printf "%s_nr_regions %s %.1f\n", name, k, nr ? sn / nr : 0
		if (nw > 1) {
			moves = 0
			for (j = 2; j <= nw; j++) if (wt[j] > t_first && wt[j] < pts) moves++
			for (a = 2; a <= nl; a++) {
				v = lat[a]
				for (b = a - 1; b >= 1 && lat[b] > v; b--) lat[b + 1] = lat[b]
				lat[b + 1] = v
			}
			if (nl) printf "%s_latency %s %s\n", name, k, \
				nl % 2 ? lat[(nl + 1) / 2] : (lat[nl / 2] + lat[nl / 2 + 1]) / 2
			if (moves) printf "%s_detected %s %.3f\n", name, k, nl / moves
		}
	}' "$2" "$3"
}

[ -f "$dir/trace-hwc.txt" ] && accuracy hwc "$dir/wl-hwc.txt" "$dir/trace-hwc.txt"
[ -f "$dir/trace-moving.txt" ] &&
	accuracy mov "$dir/wl-moving.txt" "$dir/trace-moving.txt"
[ -f "$dir/trace-int_hwc.txt" ] &&
	accuracy int_hwc "$dir/wl-int_hwc.txt" "$dir/trace-int_hwc.txt"
[ -f "$dir/trace-int_moving.txt" ] &&
	accuracy int_mov "$dir/wl-int_moving.txt" "$dir/trace-int_moving.txt"

# The accuracy runs' kdamond CPU (fixed intervals: hwc, moving; tuned on
# ours: int_hwc, int_moving) and where the tuning took sample_us.
awk -v k="$kernel" '
function cpu(c, u, a, b) { return c / u / (b - a) * 100 }
$1 == "acc_kdamond" && $6 > $5 {
	n = $2; sub(/^moving$/, "mov", n); sub(/^int_moving$/, "int_mov", n)
	printf "%s_cpu_pct %s %.4f\n", n, k, cpu($3, $4, $5, $6)
}
$1 == "tuned" {
	n = $2; sub(/^int_moving$/, "int_mov", n)
	printf "%s_sample_ms %s %.1f\n", n, k, $3 / 1000
}
$1 == "paddr_kdamond" && $5 > $4 { printf "pa_cpu_pct %s %.4f\n", k, cpu($2, $3, $4, $5) }
$1 == "paddr_truth_moved" { printf "pa_truth_moved %s %s\n", k, $2 }' "$r"

# Physical memory: the hot range's physical pages (truth-paddr.txt,
# "prange S E", merged) against the regions each aggregation calls hot.
[ -f "$dir/trace-paddr.txt" ] && [ -f "$dir/truth-paddr.txt" ] &&
	accuracy pa "$dir/truth-paddr.txt" "$dir/trace-paddr.txt"

# Physical memory, pageout: RssAnon and MemFree before and after, bytes
# applied, the hot range's pages still resident at their frames.
read -r _ r0 r1 m0 m1 applied hot hotall < <(awk '$1 == "ppageout"' "$r")
if [ -n "${r0:-}" ]; then
	awk -v k="$kernel" -v a="$r0" -v b="$r1" -v m0="$m0" -v m1="$m1" \
		-v ap="$applied" -v h="$hot" -v ha="$hotall" 'BEGIN {
		printf "pp_rss_saved_mib %s %.2f\n", k, (a - b) / 1024
		printf "pp_memfree_gain_mib %s %.2f\n", k, (m1 - m0) / 1024
		printf "pp_applied_mib %s %.2f\n", k, ap / 1048576
		if (ha > 0) printf "pp_hot_resident_pct %s %.2f\n", k, h / ha * 100
	}'
	f=$dir/wl-ppageout.txt
	b=$(rate "$f" base_start base_end) && p=$(rate "$f" po_start po_end) &&
		awk -v b="$b" -v p="$p" -v k="$kernel" \
			'BEGIN { printf "pp_slowdown_pct %s %.3f\n", k, (b / p - 1) * 100 }'
fi

# Proactive reclaim: one line per configuration.  Rows compare ours and
# upstream: "none" with "none"; "same" (reclaim.conf with the bench's
# thresholds, no PSI goal) with DAMON_RECLAIM's scheme through sysfs;
# "szq" (reclaim.conf without its time quota) with the same sysfs run;
# "psi" (with the goal) with the same and a PSI goal; "module" is
# upstream's DAMON_RECLAIM module alone.
# The slowdown: the rate of the run without DAMON over the same 60 s
# window, divided by this run's, minus 1.  (Not against the run's own 5 s
# window before reclaim: right after populating 1 GiB that rate varies by
# +-20 % from run to run, the 60 s windows' by about 2 %.)  Without a run
# without DAMON, against its own window before.
nb=$(rate "$dir/wl-rc_none.txt" rc_start rc_end 2>/dev/null)
while read -r _ cfg r0 r1 m0 m1 psi used unit t0 t1 applied; do
	f=$dir/wl-rc_$cfg.txt
	b=${nb:-$(rate "$f" base_start base_end)} && p=$(rate "$f" rc_start rc_end) || b=
	for row in $(case $cfg in none|module) echo "$cfg" ;; conf) echo same ;;
		     sysfs) echo same szq ;; szq) echo szq ;;
		     psi|sysfs_psi) echo psi ;; esac); do
		awk -v k="$kernel" -v n="rc_$row" -v a="$r0" -v b_="$r1" \
			-v m0="$m0" -v m1="$m1" -v psi="$psi" -v c="$used" -v u="$unit" \
			-v t0="$t0" -v t1="$t1" -v ap="$applied" -v rb="$b" -v rp="${p:-}" 'BEGIN {
			printf "%s_freed_mib %s %.2f\n", n, k, (a - b_) / 1024
			printf "%s_memfree_gain_mib %s %.2f\n", n, k, (m1 - m0) / 1024
			printf "%s_psi_ms %s %.3f\n", n, k, psi / 1000
			if (t1 > t0) printf "%s_cpu_pct %s %.4f\n", n, k, c / u / (t1 - t0) * 100
			printf "%s_applied_mib %s %.2f\n", n, k, ap / 1048576
			if (rb != "" && rp > 0)
				printf "%s_slowdown_pct %s %.3f\n", n, k, (rb / rp - 1) * 100
		}'
	done
done < <(awk '$1 == "reclaim"' "$r")

# Pageout.
read -r _ r0 r1 applied < <(awk '$1 == "pageout"' "$r")
if [ -n "${r0:-}" ]; then
	awk -v a="$r0" -v b="$r1" -v ap="$applied" -v k="$kernel" 'BEGIN {
		printf "po_rss_before_mib %s %.2f\n", k, a / 1024
		printf "po_rss_saved_mib %s %.2f\n", k, (a - b) / 1024
		printf "po_rss_saved_pct %s %.2f\n", k, (a > 0 ? (a - b) / a * 100 : 0)
		printf "po_applied_mib %s %.2f\n", k, ap / 1048576
	}'
	f=$dir/wl-pageout.txt
	b=$(rate "$f" base_start base_end) && p=$(rate "$f" po_start po_end) &&
		awk -v b="$b" -v p="$p" -v k="$kernel" \
			'BEGIN { printf "po_slowdown_pct %s %.3f\n", k, (b / p - 1) * 100 }'
fi

# Pageout: the bytes of each of the workload's ranges (hot, warm, cold) the
# scheme acted on, over the whole monitored time (damos_before_apply
# events).  Acting on the hot or warm range is what costs the workload.
if [ -f "$dir/trace-pageout.txt" ]; then
	# maps: "START-END ..." in hex; gawk's strtonum is not in mawk.
	maps=
	[ -f "$dir/maps-pageout.txt" ] && maps=$(while read -r span _; do
		echo "$((16#${span%-*})) $((16#${span#*-}))"
	done < "$dir/maps-pageout.txt")
	awk -v k="$kernel" -v maps="$maps" '
	BEGIN {
		nm = split(maps, m, "\n")
		for (j = 1; j <= nm; j++) { split(m[j], f, " "); ms[j] = f[1]; me[j] = f[2] }
	}
	FNR == NR {
		if ($1 == "range") { nr++; name[nr] = $2; rs[nr] = $3; re_[nr] = $4 }
		next
	}
	function overlap(s, e, a, b,   lo, hi) {
		lo = s > a ? s : a; hi = e < b ? e : b
		return hi > lo ? hi - lo : 0
	}
	{
		for (i = 1; i <= NF; i++) if ($i == "damos_before_apply:") break
		if (i > NF) next
		split($(i + 5), se, "[-:]")
		s = se[1] + 0; e = se[2] + 0
		for (j = 1; j <= nm; j++) other += overlap(s, e, ms[j], me[j])
		for (j = 1; j <= nr; j++) {
			v = overlap(s, e, rs[j], re_[j])
			acted[j] += v; other -= v
		}
	}
	END {
		for (j = 1; j <= nr; j++)
			printf "po_acted_%s_mib %s %.2f\n", name[j], k, acted[j] / 1048576
		if (nm) printf "po_acted_other_mib %s %.2f\n", k, other / 1048576
	}' "$dir/wl-pageout.txt" "$dir/trace-pageout.txt"
fi
exit 0
