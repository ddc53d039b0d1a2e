// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the virtual address operations' region building (vaddr.c).
 */

#include <kunit/test.h>

#include "../internal.h"

#define P(n)	((unsigned long)(n) * PAGE_SIZE)

static int three_regions_of(const unsigned long (*maps)[2], unsigned int nr,
			    struct damon_addr_range regions[3])
{
	struct damon_gap_finder f;
	unsigned int i;

	damon_gap_finder_init(&f);
	for (i = 0; i < nr; i++)
		damon_gap_finder_feed(&f, maps[i][0], maps[i][1]);
	return damon_gap_finder_result(&f, regions);
}

/* A typical layout: program and heap, libraries, stack. */
static void damon_test_gaps_of_mappings(struct kunit *test)
{
	const unsigned long maps[][2] = {
		{P(10), P(20)}, {P(20), P(25)}, {P(200), P(210)},
		{P(210), P(220)}, {P(300), P(305)}, {P(307), P(330)},
	};
	struct damon_addr_range r[3];

	KUNIT_ASSERT_EQ(test, three_regions_of(maps, ARRAY_SIZE(maps), r), 0);
	KUNIT_EXPECT_EQ(test, r[0].start, P(10));
	KUNIT_EXPECT_EQ(test, r[0].end, P(25));
	KUNIT_EXPECT_EQ(test, r[1].start, P(200));
	KUNIT_EXPECT_EQ(test, r[1].end, P(220));
	KUNIT_EXPECT_EQ(test, r[2].start, P(300));
	KUNIT_EXPECT_EQ(test, r[2].end, P(330));
}

/* The two largest gaps are cut even when the larger comes later. */
static void damon_test_three_regions_gap_order(struct kunit *test)
{
	const unsigned long maps[][2] = {
		{P(0), P(1)}, {P(3), P(4)}, {P(10), P(11)},
		{P(12), P(13)}, {P(100), P(101)},
	};
	struct damon_addr_range r[3];

	KUNIT_ASSERT_EQ(test, three_regions_of(maps, ARRAY_SIZE(maps), r), 0);
	/* gaps: 2, 6, 1, 87 pages; the 6 and 87 page ones are cut */
	KUNIT_EXPECT_EQ(test, r[0].start, P(0));
	KUNIT_EXPECT_EQ(test, r[0].end, P(4));
	KUNIT_EXPECT_EQ(test, r[1].start, P(10));
	KUNIT_EXPECT_EQ(test, r[1].end, P(13));
	KUNIT_EXPECT_EQ(test, r[2].start, P(100));
	KUNIT_EXPECT_EQ(test, r[2].end, P(101));
}

/* Without two gaps there are no three regions. */
static void damon_test_three_regions_too_few(struct kunit *test)
{
	const unsigned long one_gap[][2] = { {P(0), P(1)}, {P(5), P(6)} };
	const unsigned long adjacent[][2] = {
		{P(0), P(1)}, {P(1), P(2)}, {P(2), P(3)}, {P(9), P(10)},
	};
	struct damon_addr_range r[3];

	KUNIT_EXPECT_EQ(test, three_regions_of(one_gap, 2, r), -EINVAL);
	KUNIT_EXPECT_EQ(test, three_regions_of(adjacent, 4, r), -EINVAL);
	KUNIT_EXPECT_EQ(test, three_regions_of(one_gap, 0, r), -EINVAL);
}

static unsigned int count_in(struct damon_target *t,
			     const struct damon_addr_range *ar)
{
	struct damon_region *r;
	unsigned int nr = 0;

	damon_for_each_region(r, t)
		if (r->start >= ar->start && r->end <= ar->end)
			nr++;
	return nr;
}

/* The three regions become min_nr_regions regions, in proportion to size. */
static void damon_test_init_target_regions(struct kunit *test)
{
	const struct damon_addr_range three[3] = {
		{ P(0), P(100) }, { P(1000), P(1800) }, { P(5000), P(5100) },
	};
	struct damon_target *t = damon_target_alloc();
	struct damon_region *r;
	unsigned long prev_end = 0, sz = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_va_init_target_regions(t, three, 10), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[0]), 1U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[1]), 8U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[2]), 1U);
	damon_for_each_region(r, t) {
		KUNIT_EXPECT_GE(test, r->start, prev_end);
		prev_end = r->end;
		sz += damon_sz_region(r);
	}
	KUNIT_EXPECT_EQ(test, sz, P(1000));
	damon_target_free(t);
}

/* Tiny areas still get one region each, and the total stays at the minimum. */
static void damon_test_init_target_regions_skewed(struct kunit *test)
{
	const struct damon_addr_range three[3] = {
		{ P(0), P(1) }, { P(10), P(11) }, { P(100), P(10100) },
	};
	struct damon_target *t = damon_target_alloc();

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_va_init_target_regions(t, three, 5), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[0]), 1U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[1]), 1U);
	KUNIT_EXPECT_EQ(test, count_in(t, &three[2]), 3U);
	damon_target_free(t);
}

/* Fewer pages than requested regions: as many one-page regions as fit. */
static void damon_test_init_target_regions_small(struct kunit *test)
{
	const struct damon_addr_range three[3] = {
		{ P(0), P(1) }, { P(10), P(12) }, { P(100), P(102) },
	};
	struct damon_target *t = damon_target_alloc();

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_va_init_target_regions(t, three, 100), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	damon_target_free(t);
}

static struct kunit_case damon_vaddr_cases[] = {
	KUNIT_CASE(damon_test_gaps_of_mappings),
	KUNIT_CASE(damon_test_three_regions_gap_order),
	KUNIT_CASE(damon_test_three_regions_too_few),
	KUNIT_CASE(damon_test_init_target_regions),
	KUNIT_CASE(damon_test_init_target_regions_skewed),
	KUNIT_CASE(damon_test_init_target_regions_small),
	{}
};

static struct kunit_suite damon_vaddr_suite = {
	.name = "damon_vaddr",
	.test_cases = damon_vaddr_cases,
};

kunit_test_suite(damon_vaddr_suite);
