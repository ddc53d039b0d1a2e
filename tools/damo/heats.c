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

/* Sort and merge the ranges that overlap or touch. */
static void merge_ranges(struct guide *g)
{
	uint64_t (*r)[2] = g->ranges;
	size_t n = 0, k;

	qsort(r, g->nr_ranges, sizeof(*r), range_cmp);
	for (k = 0; k < g->nr_ranges; k++) {
		if (n && r[k][0] <= r[n - 1][1]) {
			if (r[k][1] > r[n - 1][1])
				r[n - 1][1] = r[k][1];
			continue;
		}
		r[n][0] = r[k][0];
		r[n][1] = r[k][1];
		n++;
	}
	g->nr_ranges = n;
}

/* Ranges are merged when there are this many, to bound memory. */
#define GUIDE_MERGE_AT		4096

/* pid's guide, a new one if there is none yet. */
static struct guide *guide_for(struct guide **gp, size_t *nr, uint64_t pid,
			       int64_t time)
{
	struct guide *g;
	size_t k;

	for (k = 0; k < *nr; k++)
		if ((*gp)[k].pid == pid)
			return &(*gp)[k];
	*gp = xrealloc(*gp, (*nr + 1) * sizeof(**gp));
	g = &(*gp)[(*nr)++];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	g->start_time = time;
	return g;
}

/* The task's regions that are not empty join g's ranges. */
static void guide_add(struct guide *g, const struct rec_task *t)
{
	size_t cap = g->nr_ranges + t->nr_regions;
	uint32_t ri;

	g->ranges = xrealloc(g->ranges, (cap ? cap : 1) * sizeof(*g->ranges));
	for (ri = 0; ri < t->nr_regions; ri++) {
		if (t->regions[ri].start == t->regions[ri].end)
			continue;
		g->ranges[g->nr_ranges][0] = t->regions[ri].start;
		g->ranges[g->nr_ranges][1] = t->regions[ri].end;
		g->nr_ranges++;
	}
	if (g->nr_ranges > GUIDE_MERGE_AT)
		merge_ranges(g);
}

/* Largest space first; stable: equal spaces keep their order. */
static void sort_guides(struct guide *g, size_t nr)
{
	struct guide tmp;
	size_t i, k;

	for (i = 1; i < nr; i++) {
		tmp = g[i];
		for (k = i; k > 0 && guide_cmp(&g[k - 1], &tmp) > 0; k--)
			g[k] = g[k - 1];
		g[k] = tmp;
	}
}

/*
 * Per pid: the time span of its snapshots and the address ranges that were
 * monitored in any of them (every region of every snapshot, merged where
 * they touch), so that the gaps are what no snapshot ever covered.  Sorted
 * by the total monitored space, largest first, as the seed does.
 *
 * The seed's heats.py means to compute the same (the gaps common to every
 * snapshot) but does not quite: it keeps the first snapshot's gaps and
 * narrows each by the later gaps that overlap it, one after the other.
 * So a first-snapshot gap that a later snapshot covers stays a gap, and a
 * first-snapshot gap that later splits in two (a new mapping in the
 * middle: DAMON's "three regions" of the address space change as the
 * process maps memory) keeps only the first piece, and the range after it
 * swallows the second piece, however large, although no snapshot ever
 * covered it.  On a process that maps 32 MiB after the first snapshot,
 * under UML, that gave a range of about 509 GiB from the new mapping up
 * to the stack, nearly all of it never monitored, where the union here
 * gives the 32 MiB (tools/tests/cli.sh reproduces both, and runs the
 * seed's script on the same record where it can).  The union is kept:
 * the default range should be one that was monitored.
 */
int guides_of(const struct record *rec, struct guide **guidesp, size_t *nrp)
{
	const struct rec_snapshot *s;
	struct guide *g = NULL, *cur;
	size_t nr = 0, i;
	uint32_t ti;

	for (i = 0; i < rec->nr_snapshots; i++) {
		s = &rec->snapshots[i];
		for (ti = 0; ti < s->nr_tasks; ti++) {
			cur = guide_for(&g, &nr, s->tasks[ti].pid, s->time_ns);
			cur->end_time = s->time_ns;
			guide_add(cur, &s->tasks[ti]);
		}
	}
	for (i = 0; i < nr; i++)
		merge_ranges(&g[i]);
	sort_guides(g, nr);
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
 * The address range chosen for the user, on stderr: the heats' addresses
 * are relative to it, so this is the only place that says what they are.
 * The arguments then hold it as given, so that the same grid computed
 * again (the terminal heatmap beside an image) says nothing more.
 */
static void say_range(struct heats_args *a)
{
	fprintf(stderr, "%s: heats: address range %llu-%llu (pid %llu)\n",
		damo_prog, (unsigned long long)a->amin,
		(unsigned long long)a->amax, (unsigned long long)a->pid);
	a->has_amin = true;
	a->has_amax = true;
}

/* The index of g's largest range; the first of equal ones, as the seed. */
static size_t largest_range(const struct guide *g)
{
	size_t i, best = 0;

	for (i = 1; i < g->nr_ranges; i++)
		if (g->ranges[i][1] - g->ranges[i][0] >
		    g->ranges[best][1] - g->ranges[best][0])
			best = i;
	return best;
}

/*
 * Fill in what the user left out the seed's way: the pid with the most
 * monitored space, its whole time span and its largest monitored range
 * (see guides_of() for how that differs from the seed's).
 */
static int heats_defaults(const struct record *rec, struct heats_args *a)
{
	struct guide *g, *sel = NULL;
	size_t nr, i, best;

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
		if (!sel->nr_ranges) {
			damo_err("pid %llu has no regions",
				 (unsigned long long)a->pid);
			guides_free(g, nr);
			return -EINVAL;
		}
		best = largest_range(sel);
		if (!a->has_amin)
			a->amin = sel->ranges[best][0];
		if (!a->has_amax)
			a->amax = sel->ranges[best][1];
		say_range(a);
	}
	guides_free(g, nr);
	return 0;
}

/* The grid's geometry from the arguments, and its cells. */
static int heats_setup(const struct heats_args *a, struct heats *h)
{
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
	h->heat = xcalloc((size_t)h->tres * h->ares, sizeof(double));
	return 0;
}

/* A part of the grid: times [t0, t1), addresses [s0, s1). */
struct span {
	int64_t t0, t1;
	uint64_t s0, s1;
};

/* The region's accesses over sp, shared out to the cells by overlap. */
static void add_span(struct heats *h, const struct span *sp,
		     uint32_t nr_accesses)
{
	int64_t tb, tb1 = (sp->t1 - 1 - h->tmin) / h->tunit;
	uint64_t ab, ab1 = (sp->s1 - 1 - h->amin) / h->aunit;
	int64_t c0, c1;
	uint64_t d0, d1;
	double dt, da;

	for (tb = (sp->t0 - h->tmin) / h->tunit; tb <= tb1; tb++) {
		c0 = h->tmin + tb * h->tunit;
		c1 = c0 + h->tunit;
		dt = (double)((sp->t1 < c1 ? sp->t1 : c1) -
			      (sp->t0 > c0 ? sp->t0 : c0));
		for (ab = (sp->s0 - h->amin) / h->aunit; ab <= ab1; ab++) {
			d0 = h->amin + ab * h->aunit;
			d1 = d0 + h->aunit;
			da = (double)((sp->s1 < d1 ? sp->s1 : d1) -
				      (sp->s0 > d0 ? sp->s0 : d0));
			h->heat[tb * h->ares + ab] += nr_accesses * dt * da;
		}
	}
}

/* The regions of a task over [t0, t1), clipped to the grid. */
static void add_task(struct heats *h, const struct rec_task *t,
		     int64_t t0, int64_t t1)
{
	uint64_t amax = h->amin + h->aunit * h->ares;
	const struct rec_region *r;
	struct span sp = { t0, t1, 0, 0 };
	uint32_t ri;

	for (ri = 0; ri < t->nr_regions; ri++) {
		r = &t->regions[ri];
		sp.s0 = r->start < h->amin ? h->amin : r->start;
		sp.s1 = r->end > amax ? amax : r->end;
		if (r->nr_accesses && sp.s0 < sp.s1)
			add_span(h, &sp, r->nr_accesses);
	}
}

/*
 * The heat of a (time, address) cell: the mean access count per
 * aggregation over the cell, weighted by time and space.  A snapshot
 * covers the time from its start_ns (a seed record's: the previous
 * snapshot's time; its first covers nothing) to its time.  Cells nothing
 * covered are 0.
 */
int heats_compute(const struct record *rec, struct heats_args *a,
		  struct heats *h)
{
	const struct rec_snapshot *s;
	int64_t t0, t1, tmax;
	size_t i, cells;
	uint32_t ti;
	int err;

	err = heats_defaults(rec, a);
	if (!err)
		err = heats_setup(a, h);
	if (err)
		return err;
	/* the range shrinks to whole cells */
	tmax = h->tmin + h->tunit * h->tres;
	for (i = 0; i < rec->nr_snapshots; i++) {
		s = &rec->snapshots[i];
		for (ti = 0; ti < s->nr_tasks; ti++) {
			if (s->tasks[ti].pid != h->pid)
				continue;
			t0 = s->tasks[ti].start_ns;
			t1 = s->time_ns;
			if (t0 < h->tmin)
				t0 = h->tmin;
			if (t1 > tmax)
				t1 = tmax;
			if (t0 < t1)
				add_task(h, &s->tasks[ti], t0, t1);
		}
	}
	cells = (size_t)h->tres * h->ares;
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
