// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive regions adjustment.
 *
 * Every aggregation interval the kdamond merges adjacent regions whose
 * access counts are close, ages the result, publishes it, and then splits
 * the regions again at random points.  Regions that really differ stay
 * apart; regions that do not are merged back next time.  Over a few
 * intervals the boundaries settle where the access pattern changes, while
 * the number of regions stays within [min_nr_regions, max_nr_regions].
 *
 * Everything here is plain list work on targets owned by the caller (the
 * kdamond, or a test): no locks, no page tables.
 */

#include <linux/math64.h>
#include <linux/min_heap.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>

#include "internal.h"

/*
 * A page-aligned address picked uniformly from the pages of [start, end),
 * with @ctx's own pseudo-random numbers.  Sampling needs numbers that are
 * uniform, not unpredictable: prandom costs a few instructions, where
 * get_random_u32() runs ChaCha20 for every few numbers (measured on x86_64:
 * a quarter of the kdamond's time at a 16 MiB target).
 */
unsigned long damon_rand_page(struct damon_ctx *ctx, unsigned long start,
			      unsigned long end)
{
	unsigned long nr_pages = (end - start) >> PAGE_SHIFT;
	struct rnd_state *rnd = &ctx->rnd;
	u64 idx;

	if (nr_pages <= 1)
		return start;
	if (nr_pages <= U32_MAX) {
		/* the top 32 bits of a 32x32 product: below nr_pages */
		idx = ((u64)prandom_u32_state(rnd) * nr_pages) >> 32;
	} else {
		/* only on 64-bit: 2^32 pages and more */
		div64_u64_rem((u64)prandom_u32_state(rnd) << 32 |
			      prandom_u32_state(rnd), nr_pages, &idx);
	}
	return start + ((unsigned long)idx << PAGE_SHIFT);
}

/*
 * Split @r in two; the left piece keeps @sz_left bytes.  Both pieces carry
 * the parent's counters and age, and each takes its own bounds as its
 * previous range: a split changes nothing that was measured, so a piece that
 * stays apart must not look moved to the age accounting (with the parent's
 * range it did, and pieces of a cold range never grew old), and a piece
 * merged back gives the parent's range again.
 */
struct damon_region *damon_split_region_at(struct damon_target *t,
					   struct damon_region *r,
					   unsigned long sz_left)
{
	struct damon_region *n;

	n = damon_region_alloc(r->start + sz_left, r->end);
	if (!n)
		return NULL;	/* keep monitoring with one region fewer */
	n->nr_accesses = r->nr_accesses;
	n->age = r->age;
	n->last_nr_accesses = r->last_nr_accesses;
	r->end = n->start;
	r->last_start = r->start;
	r->last_end = r->end;
	damon_region_insert(n, r, t);
	return n;
}

/* Size-weighted mean of two counters. */
static unsigned int damon_wmean(unsigned int a, unsigned long wa,
				unsigned int b, unsigned long wb)
{
	return div64_ul((u64)a * wa + (u64)b * wb, wa + wb);
}

/* Merge @r, which must start where @l ends, into @l. */
void damon_merge_two_regions(struct damon_target *t, struct damon_region *l,
			     struct damon_region *r)
{
	/* each side weighs as much as the bytes it covers */
	unsigned long wl = damon_sz_region(l);
	unsigned long wr = damon_sz_region(r);

	l->nr_accesses = damon_wmean(l->nr_accesses, wl, r->nr_accesses, wr);
	l->last_nr_accesses = damon_wmean(l->last_nr_accesses, wl,
					  r->last_nr_accesses, wr);
	l->age = damon_wmean(l->age, wl, r->age, wr);
	/*
	 * The area the two covered last time is the union of what each
	 * covered: merging neighbours that behave alike is a change of
	 * representation, not of the access pattern, and keeps the age.
	 */
	l->last_start = min(l->last_start, r->last_start);
	l->last_end = max(l->last_end, r->last_end);
	l->end = r->end;
	damon_region_free(r, t);
}

/*
 * Merge each pair of adjacent regions of @t whose access counts differ by at
 * most @thres, as long as the result is not larger than @sz_limit.
 */
void damon_merge_regions_of(struct damon_target *t, unsigned int thres,
			    unsigned long sz_limit)
{
	struct damon_region *r, *tmp, *prev = NULL;

	damon_for_each_region_safe(r, tmp, t) {
		/* adjacent, alike, and together no larger than the limit */
		if (prev && prev->end == r->start &&
		    abs_diff(prev->nr_accesses, r->nr_accesses) <= thres &&
		    r->end - prev->start <= sz_limit)
			damon_merge_two_regions(t, prev, r);
		else
			prev = r;
		cond_resched();
	}
}

/*
 * Age accounting (after merging, once per aggregation): a region that kept
 * about the same range (its ends moved by at most a fifth of its size in
 * total) and about the same access count (within @thres) grows one interval
 * older; any other region starts again from zero.
 */
void damon_account_age(struct damon_target *t, unsigned int thres)
{
	struct damon_region *r;
	unsigned long moved;

	damon_for_each_region(r, t) {
		moved = abs_diff(r->start, r->last_start) +
			abs_diff(r->end, r->last_end);
		if (moved > damon_sz_region(r) / 5 ||
		    abs_diff(r->nr_accesses, r->last_nr_accesses) > thres)
			r->age = 0;
		else if (r->age < UINT_MAX)
			r->age++;
		cond_resched();
	}
}

/* Start a new aggregation window: remember this one, zero the counters. */
void damon_reset_aggregated(struct damon_target *t)
{
	struct damon_region *r;

	damon_for_each_region(r, t) {
		r->last_nr_accesses = r->nr_accesses;
		r->nr_accesses = 0;
		r->last_start = r->start;
		r->last_end = r->end;
		cond_resched();
	}
}

/*
 * Split every region of @t into @nr_subs pieces at random points.  Each cut
 * leaves 10% to 90% of the piece being cut on its left; regions too small
 * to cut are left alone.
 */
void damon_split_regions_of(struct damon_target *t, unsigned int nr_subs)
{
	struct damon_region *r, *tmp;
	unsigned long sz, sz_left;
	unsigned int i;

	damon_for_each_region_safe(r, tmp, t) {
		for (i = 1; i < nr_subs; i++) {
			sz = damon_sz_region(r);
			if (sz < 2 * DAMON_MIN_REGION)
				break;
			sz_left = ALIGN_DOWN(sz / 10 *
					     (1 + get_random_u32_below(9)),
					     DAMON_MIN_REGION);
			sz_left = clamp(sz_left, DAMON_MIN_REGION,
					sz - DAMON_MIN_REGION);
			damon_split_region_at(t, r, sz_left);
		}
		cond_resched();
	}
}

/*
 * The largest region merging may create: the total monitored size divided
 * by min_nr_regions, so that merging alone never takes the context below
 * min_nr_regions regions.
 */
unsigned long damon_region_sz_limit(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned long sz = 0;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			sz += damon_sz_region(r);
	if (ctx->attrs.min_nr_regions)
		sz /= ctx->attrs.min_nr_regions;
	return max(sz, DAMON_MIN_REGION);
}

/*
 * Merge all targets' regions.  While the context still has more than
 * max_nr_regions regions, merge again with a doubled threshold, up to the
 * largest possible access count (aggr_us / sample_us); as a last resort
 * merge any adjacent regions, so the upper bound holds whenever adjacent
 * regions allow it.  The threshold only grows and is capped, so this ends
 * after at most about 34 rounds, whatever the attributes.
 */
void damon_merge_regions(struct damon_ctx *ctx, unsigned int thres,
			 unsigned long sz_limit)
{
	unsigned long max_thres = ctx->attrs.aggr_us /
				  max(ctx->attrs.sample_us, 1UL);
	struct damon_target *t;
	bool last = false;

	max_thres = min_t(unsigned long, max_thres, UINT_MAX);
	for (;;) {
		damon_for_each_target(t, ctx)
			damon_merge_regions_of(t, thres, sz_limit);
		if (last || damon_nr_regions(ctx) <= ctx->attrs.max_nr_regions)
			return;
		cond_resched();
		if (thres >= max_thres) {
			/* only regions of any count and size are left */
			thres = UINT_MAX;
			sz_limit = ULONG_MAX;
			last = true;
			continue;
		}
		thres = thres ? min_t(unsigned long, 2UL * thres, max_thres) : 1;
	}
}

/* A region and its target, in a heap of regions largest first. */
struct damon_sized {
	struct damon_region *r;
	struct damon_target *t;
};

DEFINE_MIN_HEAP(struct damon_sized, damon_sized_heap);

static bool damon_sized_larger(const void *l, const void *r, void *args)
{
	return damon_sz_region(((const struct damon_sized *)l)->r) >
	       damon_sz_region(((const struct damon_sized *)r)->r);
}

static void damon_sized_swap(void *l, void *r, void *args)
{
	swap(*(struct damon_sized *)l, *(struct damon_sized *)r);
}

static const struct min_heap_callbacks damon_sized_cbs = {
	.less = damon_sized_larger,
	.swp = damon_sized_swap,
};

/*
 * Halve the largest region of @ctx until it has min_nr_regions regions or
 * no region is large enough to halve; returns the new count.  A heap of the
 * regions by size makes this O(n + k log n) for n regions and k splits
 * (rescanning for the largest at each split was O(n k): seconds at 100,000
 * regions after a big unmap).  Without memory for the heap, it is left to
 * the next aggregation.
 */
static unsigned int damon_restore_min_regions(struct damon_ctx *ctx,
					      unsigned int nr)
{
	unsigned int min = ctx->attrs.min_nr_regions;
	struct damon_sized_heap heap;
	struct damon_sized *data, *top;
	struct damon_region *r, *n;
	struct damon_target *t;

	data = kvmalloc_array(min, sizeof(*data), GFP_KERNEL);
	if (!data)
		return nr;
	min_heap_init(&heap, data, min);
	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			data[heap.nr++] = (struct damon_sized) { r, t };
	min_heapify_all(&heap, &damon_sized_cbs, NULL);

	while (nr < min) {
		top = min_heap_peek(&heap);
		if (!top || damon_sz_region(top->r) < 2 * DAMON_MIN_REGION)
			break;
		n = damon_split_region_at(top->t, top->r,
					  ALIGN_DOWN(damon_sz_region(top->r) / 2,
						     DAMON_MIN_REGION));
		if (!n)
			break;
		nr++;
		/* the left half stays in place; the right half joins */
		t = top->t;
		min_heap_sift_down(&heap, 0, &damon_sized_cbs, NULL);
		min_heap_push(&heap, &((struct damon_sized) { n, t }),
			      &damon_sized_cbs, NULL);
	}
	kvfree(data);
	return nr;
}

/*
 * Split regions after an aggregation.  First restore min_nr_regions if
 * merging or an address space change went below it.  Then, if doubling the
 * count cannot exceed max_nr_regions, split every region in two; or in
 * three when the count did not change since the last split (everything was
 * merged back, so look harder).
 */
void damon_split_regions(struct damon_ctx *ctx)
{
	unsigned int nr = damon_nr_regions(ctx);
	unsigned int nr_subs = 2;
	struct damon_target *t;

	if (nr < ctx->attrs.min_nr_regions)
		nr = damon_restore_min_regions(ctx, nr);

	if (nr > ctx->attrs.max_nr_regions / 2)
		return;
	if (nr == ctx->last_nr_regions && nr < ctx->attrs.max_nr_regions / 3)
		nr_subs = 3;
	ctx->last_nr_regions = nr;

	damon_for_each_target(t, ctx)
		damon_split_regions_of(t, nr_subs);
}

/*
 * Split @r into @nr_pieces regions of equal, page-aligned size; the last one
 * takes the remainder.
 */
int damon_split_region_evenly(struct damon_target *t, struct damon_region *r,
			      unsigned int nr_pieces)
{
	unsigned long sz_piece, end;
	struct damon_region *n;
	unsigned int i;

	if (!nr_pieces)
		return -EINVAL;
	sz_piece = ALIGN_DOWN(damon_sz_region(r) / nr_pieces, DAMON_MIN_REGION);
	if (!sz_piece)
		return -EINVAL;

	end = r->end;
	r->end = r->start + sz_piece;
	for (i = 1; i < nr_pieces; i++) {
		n = damon_region_alloc(r->end, i == nr_pieces - 1 ?
				     end : r->end + sz_piece);
		if (!n) {
			r->end = end;	/* give the rest back to the last piece */
			return -ENOMEM;
		}
		damon_region_insert(n, r, t);
		r = n;
	}
	return 0;
}

static unsigned long damon_range_start(const struct damon_addr_range *ar)
{
	return ALIGN_DOWN(ar->start, DAMON_MIN_REGION);
}

static unsigned long damon_range_end(const struct damon_addr_range *ar)
{
	return ALIGN(ar->end, DAMON_MIN_REGION);
}

/* Cut the region containing @addr there, so that no region spans @addr. */
void damon_split_at_addr(struct damon_target *t, unsigned long addr)
{
	struct damon_region *r;

	damon_for_each_region(r, t) {
		if (r->start < addr && addr < r->end) {
			damon_split_region_at(t, r, addr - r->start);
			return;
		}
	}
}

/*
 * Cover [@start, @end) with the regions of @t, all of which lie inside
 * ranges that are either this one or others that do not overlap it.  @r is
 * the first region not passed yet (NULL: none left) and @prev the one
 * before; both are updated.  The first and last region inside the range
 * are stretched to its ends, a gap between two regions gets a region of
 * its own, and so does a range without any region.
 */
static int damon_fill_range(struct damon_target *t, unsigned long start,
			    unsigned long end, struct damon_region **r,
			    struct damon_region **prev)
{
	unsigned long addr = start;
	struct damon_region *n;

	while (addr < end) {
		if (!*r || (*r)->start >= end) {
			if (addr > start) {	/* the range's last region */
				(*prev)->end = end;
				return 0;
			}
			n = damon_region_alloc(start, end);
			if (!n)
				return -ENOMEM;
			damon_region_insert(n, *prev, t);
			*prev = n;
			return 0;
		}
		if ((*r)->start > addr && addr == start) {
			(*r)->start = start;	/* the range's first region */
		} else if ((*r)->start > addr) {
			n = damon_region_alloc(addr, (*r)->start);
			if (!n)
				return -ENOMEM;
			damon_region_insert(n, *prev, t);
		}
		*prev = *r;
		addr = (*r)->end;
		*r = list_is_last(&(*r)->list, &t->regions) ?
			NULL : damon_region_next(*r);
	}
	return 0;
}

/*
 * Make the regions of @t cover exactly @ranges (sorted, not overlapping):
 * regions outside every range go, the first and last region inside a range
 * are stretched to its ends, a gap between two regions of a range gets a
 * region of its own, and so does a range without any region.  The regions
 * that stay keep their records.  Range ends are widened to page boundaries.
 */
int damon_set_regions(struct damon_target *t,
		      const struct damon_addr_range *ranges,
		      unsigned int nr_ranges)
{
	struct damon_region *r, *tmp, *prev = NULL;
	unsigned int i;
	bool inside;
	int err;

	/* No region may straddle a range boundary. */
	for (i = 0; i < nr_ranges; i++) {
		damon_split_at_addr(t, damon_range_start(&ranges[i]));
		damon_split_at_addr(t, damon_range_end(&ranges[i]));
	}

	damon_for_each_region_safe(r, tmp, t) {
		inside = false;
		for (i = 0; i < nr_ranges && !inside; i++)
			inside = r->start < damon_range_end(&ranges[i]) &&
				 damon_range_start(&ranges[i]) < r->end;
		if (!inside)
			damon_region_free(r, t);
	}

	/* Every region left lies inside one range: fill the ranges in. */
	r = list_first_entry_or_null(&t->regions, struct damon_region, list);
	for (i = 0; i < nr_ranges; i++) {
		err = damon_fill_range(t, damon_range_start(&ranges[i]),
				       damon_range_end(&ranges[i]), &r, &prev);
		if (err)
			return err;
		cond_resched();
	}
	return 0;
}
