#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   bench/report.sh RUN_DIR
#
# Analyses every machine of one bench invocation (bench/analyze.sh on
# RUN_DIR/rep-N-KERNEL/), writes RUN_DIR/results.tsv (machine-readable:
# "metric kernel rep value", one line per measurement) and RUN_DIR/table.md
# (per metric: the median and [min, max] over the repetitions for each
# kernel, the ratio of the medians ours/upstream, and the issue's target
# where there is one) and prints the table.
set -u
run=$(cd "${1:?usage: report.sh RUN_DIR}" && pwd -P)
here=$(cd "$(dirname "$0")" && pwd)

tsv=$run/results.tsv
: > "$tsv"
for d in "$run"/rep-*-*/; do
	rep=$(basename "$d"); rep=${rep#rep-}; rep=${rep%%-*}
	"$here/analyze.sh" "$d" | awk -v r="$rep" '{ print $1 "\t" $2 "\t" r "\t" $3 }' >> "$tsv"
done

# Metric order and labels for the table.
order() {
	cat <<-'EOT'
	kd_cpu_pct_16	kdamond CPU, % of one CPU, 16 MiB target	le
	kd_cpu_pct_64	kdamond CPU, % of one CPU, 64 MiB target	le
	kd_cpu_pct_256	kdamond CPU, % of one CPU, 256 MiB target	le
	kd_cpu_pct_512	kdamond CPU, % of one CPU, 512 MiB target	le
	kd_cpu_pct_1024	kdamond CPU, % of one CPU, 1024 MiB target	le
	kd_pooled_pct_16	kdamond CPU, %, 16 MiB, pooled over the repetitions	le
	kd_pooled_pct_64	kdamond CPU, %, 64 MiB, pooled over the repetitions	le
	kd_pooled_pct_256	kdamond CPU, %, 256 MiB, pooled over the repetitions	le
	kd_pooled_pct_512	kdamond CPU, %, 512 MiB, pooled over the repetitions	le
	kd_pooled_pct_1024	kdamond CPU, %, 1024 MiB, pooled over the repetitions	le
	kd_flat	kdamond CPU largest/smallest size, per run (flat: 0.8-1.2)	flat
	kd_pooled_flat	kdamond CPU largest/smallest size, pooled	flat
	slowdown_pct_16	workload slowdown %, 16 MiB	-
	slowdown_pct_64	workload slowdown %, 64 MiB	-
	slowdown_pct_256	workload slowdown %, 256 MiB	-
	slowdown_pct_512	workload slowdown %, 512 MiB	-
	slowdown_pct_1024	workload slowdown %, 1024 MiB	-
	base_rate_16	workload's unmonitored rate, million pages/s, 16 MiB (the boot's speed)	-
	base_rate_64	workload's unmonitored rate, million pages/s, 64 MiB	-
	base_rate_256	workload's unmonitored rate, million pages/s, 256 MiB	-
	base_rate_512	workload's unmonitored rate, million pages/s, 512 MiB	-
	base_rate_1024	workload's unmonitored rate, million pages/s, 1024 MiB	-
	hwc_precision	hot/warm/cold: hot precision (bytes)	ge
	hwc_recall	hot/warm/cold: hot recall (bytes)	ge
	mov_precision	moving hot set: precision (bytes)	ge
	mov_recall	moving hot set: recall (bytes)	ge
	mov_latency	moving hot set: aggregations to recall >= 0.8	-
	mov_detected	moving hot set: moves detected (fraction)	-
	po_rss_saved_mib	pageout: RSS saved, MiB (of 64)	ge
	po_rss_saved_pct	pageout: RSS saved, %	ge
	po_slowdown_pct	pageout: workload slowdown %	le
	po_applied_mib	pageout: bytes paged out by the scheme, MiB	-
	po_acted_hot_mib	pageout: MiB of the hot range the scheme acted on	-
	po_acted_warm_mib	pageout: MiB of the warm range the scheme acted on	-
	po_acted_cold_mib	pageout: MiB of the cold range the scheme acted on	-
	po_acted_other_mib	pageout: MiB of the workload's other mappings (code, libraries, stack) acted on	-
	hwc_cpu_pct	hot/warm/cold: kdamond CPU %, 5 ms / 100 ms	le
	mov_cpu_pct	moving hot set: kdamond CPU %, 5 ms / 100 ms	le
	int_hwc_cpu_pct	intervals: hot/warm/cold, kdamond CPU %, ours tuned (access_bp 4 %) / upstream 5 ms	half
	int_mov_cpu_pct	intervals: moving hot set, kdamond CPU %, ours tuned / upstream 5 ms	half
	int_hwc_precision	intervals: hot/warm/cold, hot precision	near
	int_hwc_recall	intervals: hot/warm/cold, hot recall	near
	int_mov_precision	intervals: moving hot set, precision	near
	int_mov_recall	intervals: moving hot set, recall	near
	int_mov_latency	intervals: moving hot set, aggregations to recall >= 0.8	-
	int_hwc_sample_ms	intervals: hot/warm/cold, sample interval at the end, ms	-
	int_mov_sample_ms	intervals: moving hot set, sample interval at the end, ms	-
	pa_cpu_pct	paddr: kdamond CPU %, 2 GiB of RAM	le
	pa_precision	paddr: hot precision (the hot range's physical pages)	near
	pa_recall	paddr: hot recall (the hot range's physical pages)	near
	pa_nr_regions	paddr: regions per aggregation (mean)	-
	pa_truth_moved	paddr: hot pages that changed frames during the run	-
	pp_rss_saved_mib	paddr pageout: workload RSS saved, MiB (of 64)	ge
	pp_memfree_gain_mib	paddr pageout: MemFree gained, MiB	ge
	pp_slowdown_pct	paddr pageout: workload slowdown %	le
	pp_hot_resident_pct	paddr pageout: hot pages still in their frames, %	ge
	pp_applied_mib	paddr pageout: bytes paged out by the scheme, MiB	-
	rc_none_freed_mib	reclaim, no DAMON: workload RSS freed, MiB	-
	rc_none_slowdown_pct	reclaim, no DAMON: workload slowdown %	-
	rc_none_psi_ms	reclaim, no DAMON: PSI some memory, ms	-
	rc_module_freed_mib	reclaim, upstream's DAMON_RECLAIM module (6.12 as built): workload RSS freed, MiB	-
	rc_module_applied_mib	reclaim, upstream's DAMON_RECLAIM module: bytes reclaimed, MiB	-
	rc_module_cpu_pct	reclaim, upstream's DAMON_RECLAIM module: kdamond CPU %	-
	rc_same_freed_mib	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: workload RSS freed, MiB	ge
	rc_same_memfree_gain_mib	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: MemFree gained, MiB	ge
	rc_same_slowdown_pct	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: workload slowdown %	le
	rc_same_psi_ms	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: PSI some memory, ms	le
	rc_same_cpu_pct	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: kdamond CPU %	le
	rc_same_applied_mib	reclaim, reclaim.conf / DAMON_RECLAIM's scheme by sysfs: bytes the scheme reclaimed, MiB	-
	rc_szq_freed_mib	reclaim, ours without the time quota / DAMON_RECLAIM's scheme by sysfs: workload RSS freed, MiB	ge
	rc_szq_memfree_gain_mib	reclaim, ours without the time quota / DAMON_RECLAIM's scheme by sysfs: MemFree gained, MiB	ge
	rc_szq_slowdown_pct	reclaim, ours without the time quota / DAMON_RECLAIM's scheme by sysfs: workload slowdown %	le
	rc_szq_psi_ms	reclaim, ours without the time quota / DAMON_RECLAIM's scheme by sysfs: PSI some memory, ms	le
	rc_szq_cpu_pct	reclaim, ours without the time quota / DAMON_RECLAIM's scheme by sysfs: kdamond CPU %	le
	rc_psi_freed_mib	reclaim, both with a PSI goal: workload RSS freed, MiB	ge
	rc_psi_memfree_gain_mib	reclaim, both with a PSI goal: MemFree gained, MiB	ge
	rc_psi_slowdown_pct	reclaim, both with a PSI goal: workload slowdown %	le
	rc_psi_psi_ms	reclaim, both with a PSI goal: PSI some memory, ms	le
	rc_psi_cpu_pct	reclaim, both with a PSI goal: kdamond CPU %	le
	rc_psi_applied_mib	reclaim, both with a PSI goal: bytes the scheme reclaimed, MiB	-
	hwc_nr_regions	hot/warm/cold: regions per aggregation (mean)	-
	mov_nr_regions	moving hot set: regions per aggregation (mean)	-
	hwc_aggregations	aggregations traced, hot/warm/cold run	-
	floor_kd_cpu_pct_3	floor: kdamond CPU %, 3 regions (64 MiB hot/warm/cold)	half
	floor_kd_cpu_pct_10	floor: kdamond CPU %, 10 regions	half
	floor_kd_cpu_pct_30	floor: kdamond CPU %, 30 regions	half
	floor_kd_cpu_pct_100	floor: kdamond CPU %, 100 regions	half
	floor_kd_cpu_pct_300	floor: kdamond CPU %, 300 regions	half
	floor_kd_cpu_pct_1000	floor: kdamond CPU %, 1000 regions	half
	floor_nr_regions_3	floor: regions counted, min = max = 3	-
	floor_nr_regions_10	floor: regions counted, min = max = 10	-
	floor_nr_regions_30	floor: regions counted, min = max = 30	-
	floor_nr_regions_100	floor: regions counted, min = max = 100	-
	floor_nr_regions_300	floor: regions counted, min = max = 300	-
	floor_nr_regions_1000	floor: regions counted, min = max = 1000	-
	floor_fixed_us	floor: a sample's fixed cost (fit, no region), us	le
	floor_region_us	floor: each region's cost per sample (fit), us	le
	floor_sleeper_cpu_pct	floor: a task sleeping 5 ms at a time, CPU %	-
	floor_sleeper_us	floor: that task, us per wake-up	-
	floor_pa_cpu_pct_10	floor: paddr kdamond CPU %, 10 regions (2 GiB of RAM)	le
	floor_pa_cpu_pct_30	floor: paddr kdamond CPU %, 30 regions	le
	floor_pa_cpu_pct_100	floor: paddr kdamond CPU %, 100 regions	le
	floor_pa_cpu_pct_300	floor: paddr kdamond CPU %, 300 regions	le
	floor_pa_nr_regions_10	floor: paddr regions counted, min = max = 10	-
	floor_pa_nr_regions_30	floor: paddr regions counted, min = max = 30	-
	floor_pa_nr_regions_100	floor: paddr regions counted, min = max = 100	-
	floor_pa_nr_regions_300	floor: paddr regions counted, min = max = 300	-
	scale_setup_s_1000	scale: making 1000 region directories, s	le
	scale_setup_s_10000	scale: making 10000 region directories, s	le
	scale_setup_s_100000	scale: making 100000 region directories, s	le
	scale_on_ms_1000	scale: on with 1000 regions, ms	le
	scale_on_ms_10000	scale: on with 10000 regions, ms	le
	scale_on_ms_100000	scale: on with 100000 regions, ms	le
	scale_commit_ms_1000	scale: commit with 1000 regions, ms	le
	scale_commit_ms_10000	scale: commit with 10000 regions, ms	le
	scale_commit_ms_100000	scale: commit with 100000 regions, ms	le
	scale_maplat_max_us_0	scale: longest mmap+munmap, us, not monitored	le
	scale_maplat_p99_us_0	scale: p99 mmap+munmap, us, not monitored	le
	scale_maplat_max_us_1000	scale: longest mmap+munmap, us, 1000 regions monitored	le
	scale_maplat_p99_us_1000	scale: p99 mmap+munmap, us, 1000 regions monitored	le
	scale_maplat_max_us_10000	scale: longest mmap+munmap, us, 10000 regions monitored	le
	scale_maplat_p99_us_10000	scale: p99 mmap+munmap, us, 10000 regions monitored	le
	scale_maplat_max_us_100000	scale: longest mmap+munmap, us, 100000 regions monitored	le
	scale_maplat_p99_us_100000	scale: p99 mmap+munmap, us, 100000 regions monitored	le
	scale_kd_cpu_pct_1000	scale: kdamond CPU %, 1000 regions	le
	scale_kd_cpu_pct_10000	scale: kdamond CPU %, 10000 regions	le
	scale_kd_cpu_pct_100000	scale: kdamond CPU %, 100000 regions	le
	EOT
}

# Pooled kdamond CPU: all repetitions' CPU time over all their wall time,
# per size and kernel (finer than any one run where CPU time comes in 10 ms
# ticks).
awk -F'\t' '
$1 ~ /^kd_cpu_[0-9]+$/ { s = substr($1, 8); t[s "\t" $2] += $4 }
$1 ~ /^kd_wall_[0-9]+$/ { s = substr($1, 9); w[s "\t" $2] += $4 }
END {
	for (k in t) if (w[k] > 0) {
		split(k, p, "\t")
		v = t[k] / w[k] * 100
		printf "kd_pooled_pct_%s\t%s\t0\t%.4f\n", p[1], p[2], v
		if (!(p[2] in lo) || p[1] + 0 < lo[p[2]]) { lo[p[2]] = p[1] + 0; vlo[p[2]] = v }
		if (!(p[2] in hi) || p[1] + 0 > hi[p[2]]) { hi[p[2]] = p[1] + 0; vhi[p[2]] = v }
	}
	for (k in lo) if (vlo[k] > 0)
		printf "kd_pooled_flat\t%s\t0\t%.4f\n", k, vhi[k] / vlo[k]
}' "$tsv" | sort > "$tsv.pooled"
cat "$tsv.pooled" >> "$tsv"
rm -f "$tsv.pooled"

table=$run/table.md
{
	echo "| measure | ours: median [min, max] | upstream: median [min, max] | ours/upstream | target |"
	echo "|---|---|---|---|---|"
	order | while IFS=$'\t' read -r key label want; do
		grep -q "^$key	" "$tsv" || continue
		for k in ours upstream; do
			awk -F'\t' -v key="$key" -v k="$k" '$1 == key && $2 == k { print $4 }' "$tsv" |
				sort -g | awk '
				{ v[NR] = $1 }
				END {
					if (!NR) { print "- - - 0"; exit }
					m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
					print m, v[1], v[NR], NR
				}'
		done | paste -sd' ' | awk -v label="$label" -v want="$want" '
		function f(x) { return x == "-" ? "-" : sprintf("%.3g", x) }
		{
			om = $1; omin = $2; omax = $3; on = $4
			um = $5; umin = $6; umax = $7; un = $8
			ratio = (om != "-" && um != "-" && um + 0 != 0) ? sprintf("%.2f", om / um) : "-"
			t = "-"
			if (want == "le" && ratio != "-") t = (om <= um ? "met" : "missed") " (<= 1.0x)"
			if (want == "le" && ratio == "-" && om != "-" && um != "-") t = om <= um ? "met" : "missed"
			if (want == "ge" && om != "-" && um != "-") t = (om >= um ? "met" : "missed") " (>= upstream)"
			if (want == "half" && ratio != "-") t = (om <= um / 2 ? "met" : "missed") " (<= 0.5x)"
			if (want == "near" && om != "-" && um != "-") t = (om >= um - 0.02 ? "met" : "missed") " (>= upstream - 0.02)"
			if (want == "flat" && om != "-") t = (om >= 0.8 && om <= 1.2 ? "met" : "missed") " (ours 0.8-1.2)"
			printf "| %s | %s [%s, %s] | %s [%s, %s] | %s | %s |\n", label, \
				f(om), f(omin), f(omax), f(um), f(umin), f(umax), ratio, t
		}'
	done
	# make bench-profile: where the time goes (bench/profile.sh)
	"$(dirname "$0")/profile.sh" "$run"
} > "$table"
reps=$(cut -f3 "$tsv" | grep -vx 0 | sort -u | wc -l)
echo
echo "bench: $(basename "$run"), $reps repetition(s) per kernel (raw: $run)"
cat "$table"
