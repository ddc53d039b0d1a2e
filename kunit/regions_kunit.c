// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the adaptive regions algorithms (regions.c).
 */

#include <kunit/test.h>

#include "../internal.h"

/* A target holding @nr regions [ranges[i][0], ranges[i][1]). */
static struct damon_target *new_target_of(struct kunit *test,
					  const unsigned long (*ranges)[2],
					  unsigned int nr)
{
	struct damon_target *t = damon_target_alloc();
	struct damon_region *r;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < nr; i++) {
		r = damon_region_alloc(ranges[i][0], ranges[i][1]);
		KUNIT_ASSERT_NOT_NULL(test, r);
		damon_region_append(r, t);
	}
	return t;
}

static struct damon_region *nth_region(struct damon_target *t, unsigned int n)
{
	struct damon_region *r;

	damon_for_each_region(r, t)
		if (!n--)
			return r;
	return NULL;
}

/* Regions sorted, not overlapping, page aligned, and counted right. */
static void expect_sane(struct kunit *test, struct damon_target *t)
{
	struct damon_region *r;
	unsigned long prev_end = 0;
	unsigned int nr = 0;

	damon_for_each_region(r, t) {
		KUNIT_EXPECT_LT(test, r->start, r->end);
		KUNIT_EXPECT_GE(test, r->start, prev_end);
		KUNIT_EXPECT_EQ(test, r->start % DAMON_MIN_REGION, 0UL);
		KUNIT_EXPECT_EQ(test, r->end % DAMON_MIN_REGION, 0UL);
		prev_end = r->end;
		nr++;
	}
	KUNIT_EXPECT_EQ(test, nr, t->nr_regions);
}

static void damon_test_regions_add_destroy(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 2} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	struct damon_region *r = damon_regions_first(t);

	KUNIT_EXPECT_EQ(test, t->nr_regions, 1U);
	KUNIT_EXPECT_EQ(test, r->start, 0UL);
	KUNIT_EXPECT_EQ(test, r->end, PAGE_SIZE * 2);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, r->age, 0U);
	damon_region_free(r, t);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->regions));
	damon_target_free(t);
}

static void damon_test_cut_region_at(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 10} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	struct damon_region *r = damon_regions_first(t), *n;

	r->nr_accesses = 7;
	r->age = 3;
	damon_split_region_at(t, r, PAGE_SIZE * 4);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 2U);
	n = damon_region_next(r);
	KUNIT_EXPECT_EQ(test, r->end, PAGE_SIZE * 4);
	KUNIT_EXPECT_EQ(test, n->start, PAGE_SIZE * 4);
	KUNIT_EXPECT_EQ(test, n->end, PAGE_SIZE * 10);
	/* both pieces keep the parent's counters; their own bounds as before */
	KUNIT_EXPECT_EQ(test, n->nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, n->age, 3U);
	KUNIT_EXPECT_EQ(test, n->last_start, PAGE_SIZE * 4);
	KUNIT_EXPECT_EQ(test, n->last_end, PAGE_SIZE * 10);
	KUNIT_EXPECT_EQ(test, r->last_start, 0UL);
	KUNIT_EXPECT_EQ(test, r->last_end, PAGE_SIZE * 4);
	expect_sane(test, t);
	damon_target_free(t);
}

static void damon_test_two_regions_merge(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 1}, {PAGE_SIZE * 1, PAGE_SIZE * 4},
	};
	struct damon_target *t = new_target_of(test, ranges, 2);
	struct damon_region *l = nth_region(t, 0), *r = nth_region(t, 1);

	l->nr_accesses = 10;
	l->age = 40;
	r->nr_accesses = 2;
	r->age = 0;
	damon_merge_two_regions(t, l, r);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 1U);
	KUNIT_EXPECT_EQ(test, l->start, 0UL);
	KUNIT_EXPECT_EQ(test, l->end, PAGE_SIZE * 4);
	/* size-weighted: (10 * 1 + 2 * 3) / 4 and (40 * 1 + 0 * 3) / 4 */
	KUNIT_EXPECT_EQ(test, l->nr_accesses, 4U);
	KUNIT_EXPECT_EQ(test, l->age, 10U);
	/* the previous range is the union of both */
	KUNIT_EXPECT_EQ(test, l->last_start, 0UL);
	KUNIT_EXPECT_EQ(test, l->last_end, PAGE_SIZE * 4);
	damon_target_free(t);
}

static void damon_test_target_merges(struct kunit *test)
{
	/* the gap between regions 4 and 5 must never be merged over */
	const unsigned long ranges[][2] = {
		{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {6, 7}, {7, 8},
	};
	const unsigned int accesses[] = { 0, 1, 9, 10, 30, 30, 31 };
	unsigned long p[ARRAY_SIZE(ranges)][2];
	const unsigned long want[][2] = { {0, 2}, {2, 4}, {4, 5}, {6, 8} };
	struct damon_target *t;
	struct damon_region *r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		p[i][0] = ranges[i][0] * PAGE_SIZE;
		p[i][1] = ranges[i][1] * PAGE_SIZE;
	}
	t = new_target_of(test, p, ARRAY_SIZE(p));
	i = 0;
	damon_for_each_region(r, t)
		r->nr_accesses = accesses[i++];

	damon_merge_regions_of(t, 1, ULONG_MAX);
	KUNIT_ASSERT_EQ(test, t->nr_regions, (unsigned int)ARRAY_SIZE(want));
	i = 0;
	damon_for_each_region(r, t) {
		KUNIT_EXPECT_EQ(test, r->start, want[i][0] * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, r->end, want[i][1] * PAGE_SIZE);
		i++;
	}
	damon_target_free(t);
}

static void damon_test_merge_respects_sz_limit(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE}, {PAGE_SIZE, PAGE_SIZE * 2},
		{PAGE_SIZE * 2, PAGE_SIZE * 3}, {PAGE_SIZE * 3, PAGE_SIZE * 4},
	};
	struct damon_target *t = new_target_of(test, ranges, 4);
	struct damon_region *r;

	/* identical counts, but no result may exceed two pages */
	damon_merge_regions_of(t, 0, PAGE_SIZE * 2);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 2U);
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, damon_sz_region(r), PAGE_SIZE * 2);
	damon_target_free(t);
}

static void damon_test_target_splits(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 100}, {PAGE_SIZE * 200, PAGE_SIZE * 201},
	};
	struct damon_target *t = new_target_of(test, ranges, 2);
	struct damon_region *r;
	unsigned long sz = 0;

	damon_split_regions_of(t, 3);
	/* the big one is cut in three, the single page is left alone */
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
	damon_for_each_region(r, t)
		sz += damon_sz_region(r);
	KUNIT_EXPECT_EQ(test, sz, PAGE_SIZE * 101);
	KUNIT_EXPECT_EQ(test, damon_regions_last(t)->start, PAGE_SIZE * 200);
	expect_sane(test, t);
	damon_target_free(t);
}

static void damon_test_even_pieces(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 10} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	struct damon_region *r;
	unsigned int i = 0;

	r = damon_regions_first(t);
	KUNIT_EXPECT_EQ(test, damon_split_region_evenly(t, r, 3), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);
	damon_for_each_region(r, t) {
		/* 3, 3 and the remaining 4 pages */
		KUNIT_EXPECT_EQ(test, r->start, PAGE_SIZE * 3 * i);
		KUNIT_EXPECT_EQ(test, damon_sz_region(r),
				PAGE_SIZE * (i == 2 ? 4 : 3));
		i++;
	}
	/* pieces smaller than a page are refused, nothing changes */
	r = damon_regions_first(t);
	KUNIT_EXPECT_EQ(test, damon_split_region_evenly(t, r, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_split_region_evenly(t, r, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);
	expect_sane(test, t);
	damon_target_free(t);
}

static void damon_test_account_age(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 10}, {PAGE_SIZE * 10, PAGE_SIZE * 20},
		{PAGE_SIZE * 20, PAGE_SIZE * 30},
	};
	struct damon_target *t = new_target_of(test, ranges, 3);
	struct damon_region *a = nth_region(t, 0), *b = nth_region(t, 1),
			    *c = nth_region(t, 2);

	damon_for_each_region(a, t) {
		a->age = 5;
		a->nr_accesses = 10;
		a->last_nr_accesses = 10;
	}
	a = nth_region(t, 0);
	/* b: frequency changed beyond the threshold */
	b->nr_accesses = 14;
	/* c: its start moved by 3 of its 10 pages (over a fifth) */
	c->last_start = PAGE_SIZE * 17;
	damon_account_age(t, 2);
	KUNIT_EXPECT_EQ(test, a->age, 6U);
	KUNIT_EXPECT_EQ(test, b->age, 0U);
	KUNIT_EXPECT_EQ(test, c->age, 0U);

	/* within the thresholds: one page moved, frequency off by two */
	damon_reset_aggregated(t);
	b->age = 1;
	b->nr_accesses = 12;
	b->last_nr_accesses = 14;
	b->last_start = PAGE_SIZE * 9;
	damon_account_age(t, 2);
	KUNIT_EXPECT_EQ(test, b->age, 2U);
	damon_target_free(t);
}

static void damon_test_reset_aggregated(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 4} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	struct damon_region *r = damon_regions_first(t);

	r->nr_accesses = 9;
	r->age = 4;
	r->last_start = PAGE_SIZE;
	damon_reset_aggregated(t);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, r->last_nr_accesses, 9U);
	KUNIT_EXPECT_EQ(test, r->last_start, 0UL);
	KUNIT_EXPECT_EQ(test, r->last_end, PAGE_SIZE * 4);
	KUNIT_EXPECT_EQ(test, r->age, 4U);
	damon_target_free(t);
}

/* A split that is merged right back leaves the age growing. */
static void damon_test_age_survives_split_merge(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 64} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	unsigned int round;

	for (round = 1; round <= 5; round++) {
		damon_split_regions_of(t, 3);
		damon_merge_regions_of(t, 0, ULONG_MAX);
		KUNIT_ASSERT_EQ(test, t->nr_regions, 1U);
		damon_account_age(t, 0);
		KUNIT_EXPECT_EQ(test, damon_regions_first(t)->age, round);
		damon_reset_aggregated(t);
	}
	damon_target_free(t);
}

/*
 * Pieces of a split that stay apart (a cold range kept in pieces by the
 * region bounds) go on aging: a split is no change in what was measured.
 */
static void damon_test_age_survives_split(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 64} };
	struct damon_target *t = new_target_of(test, ranges, 1);
	struct damon_region *r;
	unsigned int round;

	for (round = 1; round <= 5; round++) {
		damon_split_regions_of(t, 2);
		damon_account_age(t, 0);
		damon_for_each_region(r, t)
			KUNIT_EXPECT_EQ(test, r->age, round);
		damon_reset_aggregated(t);
	}
	damon_target_free(t);
}

static void damon_test_set_regions(struct kunit *test)
{
	/* regions 0-10, 10-20, 40-50, 70-80 pages, with records */
	const unsigned long ranges[][2] = {
		{0, 10}, {10, 20}, {40, 50}, {70, 80},
	};
	unsigned long p[4][2];
	/* new ranges: 5-15 (cuts two), 30-45 (extends one), 90-95 (new) */
	const struct damon_addr_range want[] = {
		{ PAGE_SIZE * 5, PAGE_SIZE * 15 },
		{ PAGE_SIZE * 30, PAGE_SIZE * 45 },
		{ PAGE_SIZE * 90, PAGE_SIZE * 95 },
	};
	const unsigned long expect[][2] = {
		{5, 10}, {10, 15}, {30, 45}, {90, 95},
	};
	struct damon_target *t;
	struct damon_region *r;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		p[i][0] = ranges[i][0] * PAGE_SIZE;
		p[i][1] = ranges[i][1] * PAGE_SIZE;
	}
	t = new_target_of(test, p, 4);
	nth_region(t, 2)->age = 11;

	KUNIT_ASSERT_EQ(test, damon_set_regions(t, want, 3), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 4U);
	i = 0;
	damon_for_each_region(r, t) {
		KUNIT_EXPECT_EQ(test, r->start, expect[i][0] * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, r->end, expect[i][1] * PAGE_SIZE);
		i++;
	}
	/* the region that was only stretched keeps its record */
	KUNIT_EXPECT_EQ(test, nth_region(t, 2)->age, 11U);
	expect_sane(test, t);
	damon_target_free(t);
}

/* A region spanning the gap between two new ranges is cut in two. */
static void damon_test_set_regions_straddling(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 100} };
	const struct damon_addr_range want[] = {
		{ PAGE_SIZE * 10, PAGE_SIZE * 20 },
		{ PAGE_SIZE * 60, PAGE_SIZE * 70 },
	};
	struct damon_target *t = new_target_of(test, ranges, 1);

	KUNIT_ASSERT_EQ(test, damon_set_regions(t, want, 2), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 2U);
	KUNIT_EXPECT_EQ(test, nth_region(t, 0)->start, PAGE_SIZE * 10);
	KUNIT_EXPECT_EQ(test, nth_region(t, 0)->end, PAGE_SIZE * 20);
	KUNIT_EXPECT_EQ(test, nth_region(t, 1)->start, PAGE_SIZE * 60);
	KUNIT_EXPECT_EQ(test, nth_region(t, 1)->end, PAGE_SIZE * 70);
	damon_target_free(t);
}

/*
 * A gap inside a new range that no region covered before gets a region of
 * its own: the new ranges are covered exactly, with no hole.
 */
static void damon_test_set_regions_fills_holes(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 256}, {PAGE_SIZE * 512, PAGE_SIZE * 768},
	};
	const struct damon_addr_range want[] = {
		{ 0, PAGE_SIZE * 768 },
		{ PAGE_SIZE * 1024, PAGE_SIZE * 1280 },
	};
	struct damon_target *t = new_target_of(test, ranges, 2);
	struct damon_region *r;
	unsigned long covered = 0, prev_end = 0;

	nth_region(t, 0)->age = 5;
	nth_region(t, 1)->age = 7;
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, want, 2), 0);
	expect_sane(test, t);
	damon_for_each_region(r, t) {
		/* adjacent, except at the gap between the two ranges */
		if (r->start != PAGE_SIZE * 1024)
			KUNIT_EXPECT_EQ(test, r->start, prev_end);
		covered += damon_sz_region(r);
		prev_end = r->end;
	}
	KUNIT_EXPECT_EQ(test, covered, PAGE_SIZE * (768 + 256));
	KUNIT_EXPECT_EQ(test, damon_regions_first(t)->start, 0UL);
	KUNIT_EXPECT_EQ(test, damon_regions_last(t)->end, PAGE_SIZE * 1280);
	/* the regions that were there keep their records */
	damon_for_each_region(r, t) {
		if (r->start == 0)
			KUNIT_EXPECT_EQ(test, r->age, 5U);
		if (r->start == PAGE_SIZE * 512)
			KUNIT_EXPECT_EQ(test, r->age, 7U);
	}
	damon_target_free(t);
}

/* Unaligned range ends are widened to whole pages. */
static void damon_test_set_regions_unaligned(struct kunit *test)
{
	const struct damon_addr_range want[] = {
		{ PAGE_SIZE + 10, PAGE_SIZE * 3 - 10 },
	};
	struct damon_target *t = damon_target_alloc();

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, want, 1), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 1U);
	KUNIT_EXPECT_EQ(test, damon_regions_first(t)->start, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, damon_regions_first(t)->end, PAGE_SIZE * 3);
	damon_target_free(t);
}

static void damon_test_rand_page(struct kunit *test)
{
	unsigned long start = PAGE_SIZE * 16, end = PAGE_SIZE * 48, a;
	struct damon_ctx *ctx = damon_ctx_alloc();
	unsigned int i, hits[32] = {};

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	for (i = 0; i < 32000; i++) {
		a = damon_rand_page(ctx, start, end);
		KUNIT_ASSERT_GE(test, a, start);
		KUNIT_ASSERT_LT(test, a, end);
		KUNIT_ASSERT_EQ(test, a % PAGE_SIZE, 0UL);
		hits[(a - start) / PAGE_SIZE]++;
	}
	/* uniform: 1000 expected per page, standard deviation about 31 */
	for (i = 0; i < ARRAY_SIZE(hits); i++) {
		KUNIT_EXPECT_GT(test, hits[i], 800U);
		KUNIT_EXPECT_LT(test, hits[i], 1200U);
	}
	KUNIT_EXPECT_EQ(test, damon_rand_page(ctx, start, start + PAGE_SIZE),
			start);
	/* 2^34 pages: the 64-bit path, both halves of the range reached */
	for (i = 0, a = 0; i < 64; i++) {
		unsigned long p = damon_rand_page(ctx, 0, 1UL << 46);

		KUNIT_EXPECT_EQ(test, p % PAGE_SIZE, 0UL);
		KUNIT_EXPECT_LT(test, p, 1UL << 46);
		a |= p >= 1UL << 45 ? 2 : 1;
	}
	KUNIT_EXPECT_EQ(test, a, 3UL);
	damon_ctx_free(ctx);
}

static struct damon_ctx *new_ctx_of(struct kunit *test,
				    const unsigned long (*ranges)[2],
				    unsigned int nr)
{
	struct damon_ctx *ctx = damon_ctx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	damon_target_append(ctx, new_target_of(test, ranges, nr));
	return ctx;
}

/*
 * Many aggregation rounds with random access counts: the number of regions
 * never leaves [min_nr_regions, max_nr_regions] and the monitored area is
 * exactly kept.
 */
static void damon_test_nr_regions_bounds(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 4096}, {PAGE_SIZE * 8192, PAGE_SIZE * 9000},
	};
	struct damon_ctx *ctx = new_ctx_of(test, ranges, 2);
	struct damon_target *t = list_first_entry(&ctx->targets,
						  struct damon_target, list);
	struct damon_region *r;
	unsigned int round, nr, max_nr;
	unsigned long sz;

	ctx->attrs.min_nr_regions = 10;
	ctx->attrs.max_nr_regions = 40;
	for (round = 0; round < 200; round++) {
		max_nr = 0;
		damon_for_each_region(r, t) {
			/* bursts of hot spots every few rounds */
			r->nr_accesses = get_random_u32_below(round % 3 ? 4 : 21);
			max_nr = max(max_nr, r->nr_accesses);
		}
		damon_merge_regions(ctx, max_nr / 10,
				    damon_region_sz_limit(ctx));
		nr = damon_nr_regions(ctx);
		KUNIT_EXPECT_LE(test, nr, 40U);
		damon_reset_aggregated(t);
		damon_split_regions(ctx);
		nr = damon_nr_regions(ctx);
		KUNIT_EXPECT_GE(test, nr, 10U);
		KUNIT_EXPECT_LE(test, nr, 40U);
		sz = 0;
		damon_for_each_region(r, t)
			sz += damon_sz_region(r);
		KUNIT_EXPECT_EQ(test, sz, PAGE_SIZE * (4096 + 808));
		expect_sane(test, t);
	}
	damon_ctx_free(ctx);
}

/* Too many regions with very different counts: max_nr_regions still wins. */
static void damon_test_merge_enforces_max(struct kunit *test)
{
	unsigned long (*p)[2];
	struct damon_target *t;
	struct damon_ctx *ctx;
	struct damon_region *r;
	unsigned int i;

	/* on the heap: 1 KiB of stack is too much beside KASAN's redzones */
	p = kunit_kcalloc(test, 64, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 64; i++) {
		p[i][0] = PAGE_SIZE * i;
		p[i][1] = PAGE_SIZE * (i + 1);
	}
	ctx = new_ctx_of(test, p, 64);
	ctx->attrs.min_nr_regions = 3;
	ctx->attrs.max_nr_regions = 8;
	t = list_first_entry(&ctx->targets, struct damon_target, list);
	i = 0;
	damon_for_each_region(r, t)
		r->nr_accesses = (i++ % 2) ? 20 : 0;
	damon_merge_regions(ctx, 0, damon_region_sz_limit(ctx));
	KUNIT_EXPECT_LE(test, damon_nr_regions(ctx), 8U);
	damon_ctx_free(ctx);
}

/*
 * Regions that can never merge (none adjacent) above max_nr_regions, with
 * the largest threshold the attributes allow (aggr_us / sample_us = 2^31):
 * merging gives up rather than doubling its threshold forever.
 */
static void damon_test_merge_gives_up(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE}, {PAGE_SIZE * 2, PAGE_SIZE * 3},
		{PAGE_SIZE * 4, PAGE_SIZE * 5}, {PAGE_SIZE * 6, PAGE_SIZE * 7},
	};
	struct damon_ctx *ctx = new_ctx_of(test, ranges, 4);

	ctx->attrs.sample_us = 1;
	ctx->attrs.aggr_us = 1UL << 31;
	ctx->attrs.update_us = 1UL << 31;
	ctx->attrs.min_nr_regions = 3;
	ctx->attrs.max_nr_regions = 3;
	KUNIT_ASSERT_EQ(test, damon_validate_attrs(&ctx->attrs), 0);
	damon_merge_regions(ctx, 0, damon_region_sz_limit(ctx));
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 4U);
	damon_ctx_free(ctx);
}

/* A context below min_nr_regions is brought back to it by splitting. */
static void damon_test_split_restores_min(struct kunit *test)
{
	const unsigned long ranges[][2] = { {0, PAGE_SIZE * 1024} };
	struct damon_ctx *ctx = new_ctx_of(test, ranges, 1);

	ctx->attrs.min_nr_regions = 10;
	ctx->attrs.max_nr_regions = 12;	/* too few to allow random splits */
	damon_split_regions(ctx);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 10U);
	damon_ctx_free(ctx);
}

/*
 * Restoring min_nr_regions halves the largest region each time: 1024 pages
 * and 8 pages, to 10 regions, give seven of 128 pages, two of 64 and the 8,
 * still covering exactly the same ranges in address order.  With only
 * regions too small to halve, it stops short of the minimum.
 */
static void damon_test_split_restores_min_largest_first(struct kunit *test)
{
	const unsigned long ranges[][2] = {
		{0, PAGE_SIZE * 1024}, {PAGE_SIZE * 2048, PAGE_SIZE * 2056},
	};
	const unsigned long tiny[][2] = {
		{0, DAMON_MIN_REGION}, {DAMON_MIN_REGION * 2, DAMON_MIN_REGION * 3},
	};
	struct damon_ctx *ctx = new_ctx_of(test, ranges, 2);
	struct damon_target *t = list_first_entry(&ctx->targets,
						  struct damon_target, list);
	unsigned int nr_of[3] = {};
	unsigned long end = 0, sz;
	struct damon_region *r;

	ctx->attrs.min_nr_regions = 10;
	ctx->attrs.max_nr_regions = 10;	/* no random splits after */
	damon_split_regions(ctx);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 10U);
	damon_for_each_region(r, t) {
		KUNIT_EXPECT_GE(test, r->start, end);
		if (r->start != end)
			KUNIT_EXPECT_EQ(test, r->start, PAGE_SIZE * 2048);
		end = r->end;
		sz = damon_sz_region(r) / PAGE_SIZE;
		KUNIT_EXPECT_TRUE(test, sz == 128 || sz == 64 || sz == 8);
		nr_of[sz == 128 ? 0 : sz == 64 ? 1 : 2]++;
	}
	KUNIT_EXPECT_EQ(test, end, PAGE_SIZE * 2056);
	KUNIT_EXPECT_EQ(test, nr_of[0], 7U);
	KUNIT_EXPECT_EQ(test, nr_of[1], 2U);
	KUNIT_EXPECT_EQ(test, nr_of[2], 1U);
	damon_ctx_free(ctx);

	ctx = new_ctx_of(test, tiny, 2);
	t = list_first_entry(&ctx->targets, struct damon_target, list);
	ctx->attrs.min_nr_regions = 10;
	ctx->attrs.max_nr_regions = 10;
	damon_split_regions(ctx);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 2U);
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, damon_sz_region(r), DAMON_MIN_REGION);
	damon_ctx_free(ctx);
}

static struct kunit_case damon_regions_cases[] = {
	KUNIT_CASE(damon_test_regions_add_destroy),
	KUNIT_CASE(damon_test_cut_region_at),
	KUNIT_CASE(damon_test_two_regions_merge),
	KUNIT_CASE(damon_test_target_merges),
	KUNIT_CASE(damon_test_merge_respects_sz_limit),
	KUNIT_CASE(damon_test_target_splits),
	KUNIT_CASE(damon_test_even_pieces),
	KUNIT_CASE(damon_test_split_restores_min_largest_first),
	KUNIT_CASE(damon_test_account_age),
	KUNIT_CASE(damon_test_reset_aggregated),
	KUNIT_CASE(damon_test_age_survives_split_merge),
	KUNIT_CASE(damon_test_age_survives_split),
	KUNIT_CASE(damon_test_set_regions),
	KUNIT_CASE(damon_test_set_regions_straddling),
	KUNIT_CASE(damon_test_set_regions_unaligned),
	KUNIT_CASE(damon_test_set_regions_fills_holes),
	KUNIT_CASE(damon_test_rand_page),
	KUNIT_CASE(damon_test_nr_regions_bounds),
	KUNIT_CASE(damon_test_merge_enforces_max),
	KUNIT_CASE(damon_test_merge_gives_up),
	KUNIT_CASE(damon_test_split_restores_min),
	{}
};

static struct kunit_suite damon_regions_suite = {
	.name = "damon_regions",
	.test_cases = damon_regions_cases,
};

kunit_test_suite(damon_regions_suite);
