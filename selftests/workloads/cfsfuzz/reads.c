// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: reads.  Any attribute against the model, kdamond_pid,
 * nr_aggregations, a scheme's statistics and the targets' snapshots
 * against their formats.
 */
#define _GNU_SOURCE
#include "fuzz.h"

/* what a snapshot of MAX_NR_REGIONS regions reads, or anything else */
static char buf[MAX_NR_REGIONS * 64 + 1];

/*
 * The statistics of a scheme, read applied-first: they only grow between
 * two "on"s (and only this process writes "on"), so whatever the kdamond
 * publishes between the reads, what was tried covers what was applied,
 * a region tried is a page at least, and bytes applied mean a region
 * applied.
 */
void check_stats(const struct scheme_attrs *sa)
{
	static const int order[NR_STATS] = {
		ST_SZ_APPLIED, ST_NR_APPLIED, ST_NR_TRIED, ST_SZ_TRIED,
		ST_QT_EXCEEDS,
	};
	unsigned long v[NR_STATS];
	char stat[64];
	ssize_t n;
	int i, k;

	nr_stat_checks++;
	for (i = 0; i < NR_STATS; i++) {
		k = order[i];
		n = read_file(attrs[sa->stats[k]].path, stat, sizeof(stat));
		if (n < 0 || !parse_line_ulong(stat, &v[k])) {
			fail("%s reads %s", attrs[sa->stats[k]].path,
			     n < 0 ? ename(-n) : quote(stat, n));
			return;
		}
	}
	/* (each count read before the next one: only ever smaller) */
	if (!stats_possible(v) || (!v[ST_NR_APPLIED] && v[ST_SZ_APPLIED]))
		fail("%s/stats: nr_tried %lu sz_tried %lu nr_applied %lu sz_applied %lu: not what the action could have done",
		     sa->dir, v[ST_NR_TRIED], v[ST_SZ_TRIED],
		     v[ST_NR_APPLIED], v[ST_SZ_APPLIED]);
}

/* A snapshot: "START END NR_ACCESSES AGE" lines, page-aligned, in order. */
static void check_snapshot(void)
{
	const char *problem;
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/targets/t%d/snapshot", ctxdir,
		 (int)rnd_below(2));
	n = read_file(path, buf, sizeof(buf));
	if (n == -EAGAIN)
		return;
	if (n < 0) {
		fail("read %s: %s", path, ename(-n));
		return;
	}
	problem = snapshot_problem(buf);
	if (problem)
		fail("%s: bad line \"%s\"", path, problem);
}

/* Read a file and check its format. */
void read_some(void)
{
	int i = rnd_below(nr_attrs + 4);
	char path[PATH_MAX];
	unsigned long u;
	ssize_t n;

	nr_reads++;
	if (i < nr_attrs) {
		if (attrs[i].present)
			check_readback(&attrs[i], "a plain read");
		return;
	}
	switch (i - nr_attrs) {
	case 0:
		if (kdamond_pid() == -2)
			fail("kdamond_pid is not -1 or a pid");
		break;
	case 1:
		snprintf(path, sizeof(path), "%s/nr_aggregations", ctxdir);
		n = read_file(path, buf, sizeof(buf));
		if (n < 0 || !parse_line_ulong(buf, &u))
			fail("nr_aggregations reads %s",
			     n < 0 ? ename(-n) : quote(buf, n));
		break;
	case 2:
		check_stats(&schemes[rnd_below(NR_SCHEMES)]);
		break;
	default:
		check_snapshot();
		break;
	}
}
