// SPDX-License-Identifier: GPL-2.0
/*
 * The guide (per pid: time span and monitored ranges) and the heats grid
 * (accesses over time and address) of a record: the numbers behind
 * damo report heats and heatmap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damo.h"

static int range_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static uint64_t guide_space(const struct guide *g)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < g->nr_ranges; i++)
		sum += g->ranges[i][1] - g->ranges[i][0];
	return sum;
}

static int guide_cmp(const void *a, const void *b)
{
	uint64_t x = guide_space(a), y = guide_space(b);

	return x > y ? -1 : x < y;	/* largest first */
}

/*
 * Per pid: the time span of its snapshots and the address ranges that were
 * monitored in any of them (every region of every snapshot, merged where
 * they touch), so that the gaps are what no snapshot ever covered.  Sorted
 * by the total monitored space, largest first, as the seed does.
 */
int guides_of(const struct record *rec, struct guide **guidesp, size_t *nrp)
{
	struct guide *g = NULL;
	size_t nr = 0, i, k, cap;
	uint32_t ti, ri;

	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];

		for (ti = 0; ti < s->nr_tasks; ti++) {
			const struct rec_task *t = &s->tasks[ti];
			struct guide *cur = NULL;

			for (k = 0; k < nr; k++)
				if (g[k].pid == t->pid)
					cur = &g[k];
			if (!cur) {
				g = xrealloc(g, (nr + 1) * sizeof(*g));
				cur = &g[nr++];
				memset(cur, 0, sizeof(*cur));
				cur->pid = t->pid;
				cur->start_time = s->time_ns;
			}
			cur->end_time = s->time_ns;
			cap = cur->nr_ranges + t->nr_regions;
			cur->ranges = xrealloc(cur->ranges,
					       (cap ? cap : 1) * sizeof(*cur->ranges));
			for (ri = 0; ri < t->nr_regions; ri++) {
				if (t->regions[ri].start == t->regions[ri].end)
					continue;
				cur->ranges[cur->nr_ranges][0] = t->regions[ri].start;
				cur->ranges[cur->nr_ranges][1] = t->regions[ri].end;
				cur->nr_ranges++;
			}
			/* merge now and then to bound memory */
			if (cur->nr_ranges > 4096) {
				size_t n = 0;

				qsort(cur->ranges, cur->nr_ranges,
				      sizeof(*cur->ranges), range_cmp);
				for (k = 0; k < cur->nr_ranges; k++) {
					if (n && cur->ranges[k][0] <= cur->ranges[n - 1][1]) {
						if (cur->ranges[k][1] > cur->ranges[n - 1][1])
							cur->ranges[n - 1][1] = cur->ranges[k][1];
						continue;
					}
					cur->ranges[n][0] = cur->ranges[k][0];
					cur->ranges[n][1] = cur->ranges[k][1];
					n++;
				}
				cur->nr_ranges = n;
			}
		}
	}
	for (i = 0; i < nr; i++) {
		struct guide *cur = &g[i];
		size_t n = 0;

		qsort(cur->ranges, cur->nr_ranges, sizeof(*cur->ranges),
		      range_cmp);
		for (k = 0; k < cur->nr_ranges; k++) {
			if (n && cur->ranges[k][0] <= cur->ranges[n - 1][1]) {
				if (cur->ranges[k][1] > cur->ranges[n - 1][1])
					cur->ranges[n - 1][1] = cur->ranges[k][1];
				continue;
			}
			cur->ranges[n][0] = cur->ranges[k][0];
			cur->ranges[n][1] = cur->ranges[k][1];
			n++;
		}
		cur->nr_ranges = n;
	}
	if (nr > 1) {
		/* stable: equal spaces keep their order of appearance */
		for (i = 1; i < nr; i++) {
			struct guide tmp = g[i];

			for (k = i; k > 0 && guide_cmp(&g[k - 1], &tmp) > 0; k--)
				g[k] = g[k - 1];
			g[k] = tmp;
		}
	}
	*guidesp = g;
	*nrp = nr;
	return 0;
}

void guides_free(struct guide *g, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(g[i].ranges);
	free(g);
}
/* ------------------------------------------------------------ heats */

/*
 * Fill in what the user left out the seed's way: the pid with the most
 * monitored space, its whole time span and its largest monitored range.
 */
static int heats_defaults(const struct record *rec, struct heats_args *a)
{
	struct guide *g, *sel = NULL;
	size_t nr, i, best = 0;

	guides_of(rec, &g, &nr);
	if (!nr) {
		damo_err("the record has no snapshots");
		guides_free(g, nr);
		return -EINVAL;
	}
	if (!a->has_pid) {
		a->pid = g[0].pid;
		a->has_pid = true;
	}
	for (i = 0; i < nr; i++)
		if (g[i].pid == a->pid)
			sel = &g[i];
	if (!sel) {
		damo_err("pid %llu is not in the record",
			 (unsigned long long)a->pid);
		guides_free(g, nr);
		return -ESRCH;
	}
	if (!a->has_tmin)
		a->tmin = sel->start_time;
	if (!a->has_tmax)
		a->tmax = sel->end_time;
	if (!a->has_amin || !a->has_amax) {
		for (i = 1; i < sel->nr_ranges; i++)
			if (sel->ranges[i][1] - sel->ranges[i][0] >
			    sel->ranges[best][1] - sel->ranges[best][0])
				best = i;
		if (!sel->nr_ranges) {
			damo_err("pid %llu has no regions",
				 (unsigned long long)a->pid);
			guides_free(g, nr);
			return -EINVAL;
		}
		if (!a->has_amin)
			a->amin = sel->ranges[best][0];
		if (!a->has_amax)
			a->amax = sel->ranges[best][1];
	}
	guides_free(g, nr);
	return 0;
}

/*
 * The heat of a (time, address) cell: the mean access count per
 * aggregation over the cell, weighted by time and space.  A snapshot
 * covers the time since the previous snapshot of the record; the first
 * covers nothing.  Cells nothing covered are 0.
 */
int heats_compute(const struct record *rec, struct heats_args *a,
		  struct heats *h)
{
	int64_t prev = 0, t0, t1, tmax;
	uint64_t amax;
	size_t i, cells;
	int err;

	err = heats_defaults(rec, a);
	if (err)
		return err;
	if (a->tres <= 0 || a->ares <= 0) {
		damo_err("--tres and --ares must be positive");
		return -EINVAL;
	}
	if (a->tmax <= a->tmin || a->amax <= a->amin) {
		damo_err("empty range: time %lld-%lld, address %llu-%llu",
			 (long long)a->tmin, (long long)a->tmax,
			 (unsigned long long)a->amin,
			 (unsigned long long)a->amax);
		return -EINVAL;
	}
	memset(h, 0, sizeof(*h));
	h->pid = a->pid;
	h->tres = a->tres;
	h->ares = a->ares;
	h->tmin = a->tmin;
	h->amin = a->amin;
	h->tunit = (a->tmax - a->tmin) / a->tres;
	h->aunit = (a->amax - a->amin) / a->ares;
	if (!h->tunit || !h->aunit) {
		damo_err("the range is smaller than the resolution (time %lld ns / %d, address %llu bytes / %d)",
			 (long long)(a->tmax - a->tmin), a->tres,
			 (unsigned long long)(a->amax - a->amin), a->ares);
		return -EINVAL;
	}
	/* Compensate the range so that it fits the resolution. */
	tmax = h->tmin + h->tunit * h->tres;
	amax = h->amin + h->aunit * h->ares;
	cells = (size_t)h->tres * h->ares;
	h->heat = xcalloc(cells, sizeof(double));

	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];
		uint32_t ti, ri;

		t0 = i ? prev : s->time_ns;
		t1 = s->time_ns;
		prev = s->time_ns;
		if (t0 < h->tmin)
			t0 = h->tmin;
		if (t1 > tmax)
			t1 = tmax;
		if (t0 >= t1)
			continue;
		for (ti = 0; ti < s->nr_tasks; ti++) {
			const struct rec_task *t = &s->tasks[ti];

			if (t->pid != h->pid)
				continue;
			for (ri = 0; ri < t->nr_regions; ri++) {
				const struct rec_region *r = &t->regions[ri];
				uint64_t s0 = r->start, s1 = r->end;
				int64_t tb, tb0, tb1;
				uint64_t ab, ab0, ab1;

				if (!r->nr_accesses)
					continue;
				if (s0 < h->amin)
					s0 = h->amin;
				if (s1 > amax)
					s1 = amax;
				if (s0 >= s1)
					continue;
				tb0 = (t0 - h->tmin) / h->tunit;
				tb1 = (t1 - 1 - h->tmin) / h->tunit;
				ab0 = (s0 - h->amin) / h->aunit;
				ab1 = (s1 - 1 - h->amin) / h->aunit;
				for (tb = tb0; tb <= tb1; tb++) {
					int64_t c0 = h->tmin + tb * h->tunit;
					int64_t c1 = c0 + h->tunit;
					double dt;

					dt = (double)((t1 < c1 ? t1 : c1) -
						      (t0 > c0 ? t0 : c0));
					for (ab = ab0; ab <= ab1; ab++) {
						uint64_t d0 = h->amin + ab * h->aunit;
						uint64_t d1 = d0 + h->aunit;
						double da;

						da = (double)((s1 < d1 ? s1 : d1) -
							      (s0 > d0 ? s0 : d0));
						h->heat[tb * h->ares + ab] +=
							r->nr_accesses * dt * da;
					}
				}
			}
		}
	}
	for (i = 0; i < cells; i++) {
		h->heat[i] /= (double)h->tunit * (double)h->aunit;
		if (h->heat[i] > h->max_heat)
			h->max_heat = h->heat[i];
	}
	return 0;
}

void heats_free(struct heats *h)
{
	free(h->heat);
	h->heat = NULL;
}
