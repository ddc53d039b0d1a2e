// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the physical address operations (paddr.c): the ranges of
 * RAM and the initial regions over them, and which actions they take.
 */

#include <kunit/test.h>

#include "../internal.h"

#define P(n)	((unsigned long)(n) * PAGE_SIZE)

/* @ram from @nr [start, end) pairs of pages, fed in order. */
static void ram_of(struct kunit *test, struct damon_pa_ram *ram,
		   const unsigned long (*pages)[2], unsigned int nr)
{
	unsigned int i;

	*ram = (struct damon_pa_ram) {};
	for (i = 0; i < nr; i++)
		KUNIT_ASSERT_EQ(test, damon_pa_ram_add(ram, P(pages[i][0]),
						       P(pages[i][1])), 0);
}

static unsigned int count_in(struct damon_target *t, unsigned long start,
			     unsigned long end)
{
	struct damon_region *r;
	unsigned int nr = 0;

	damon_for_each_region(r, t)
		if (r->start >= start && r->end <= end)
			nr++;
	return nr;
}

/* Regions sorted, not overlapping; returns the bytes they cover. */
static unsigned long covered(struct kunit *test, struct damon_target *t)
{
	struct damon_region *r;
	unsigned long prev_end = 0, sz = 0;

	damon_for_each_region(r, t) {
		KUNIT_EXPECT_LT(test, r->start, r->end);
		KUNIT_EXPECT_GE(test, r->start, prev_end);
		KUNIT_EXPECT_EQ(test, r->start % PAGE_SIZE, 0UL);
		KUNIT_EXPECT_EQ(test, r->end % PAGE_SIZE, 0UL);
		prev_end = r->end;
		sz += damon_sz_region(r);
	}
	return sz;
}

/* Touching and overlapping ranges join; empty ones are dropped. */
static void damon_test_pa_ram_add(struct kunit *test)
{
	const unsigned long pages[][2] = {
		{ 0, 100 }, { 100, 150 }, { 140, 160 }, { 170, 170 },
		{ 200, 300 }, { 300, 310 },
	};
	struct damon_pa_ram ram;

	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, ram.nr, 2U);
	KUNIT_EXPECT_EQ(test, ram.ranges[0].start, P(0));
	KUNIT_EXPECT_EQ(test, ram.ranges[0].end, P(160));
	KUNIT_EXPECT_EQ(test, ram.ranges[1].start, P(200));
	KUNIT_EXPECT_EQ(test, ram.ranges[1].end, P(310));
	damon_pa_ram_free(&ram);
	KUNIT_EXPECT_EQ(test, ram.nr, 0U);
	KUNIT_EXPECT_NULL(test, ram.ranges);
}

/* Two ranges of RAM: regions in each, none over the hole between them. */
static void damon_test_pa_regions_skip_holes(struct kunit *test)
{
	const unsigned long pages[][2] = { { 0, 100 }, { 200, 300 } };
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram;

	KUNIT_ASSERT_NOT_NULL(test, t);
	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, damon_pa_init_target_regions(t, &ram, 10, 1000),
			0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(0), P(100)), 5U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(200), P(300)), 5U);
	KUNIT_EXPECT_EQ(test, covered(test, t), P(200));
	KUNIT_EXPECT_EQ(test, damon_regions_first(t)->start, P(0));
	KUNIT_EXPECT_EQ(test, damon_regions_last(t)->end, P(300));
	damon_pa_ram_free(&ram);
	damon_target_free(t);
}

/*
 * More ranges than max_nr_regions: the closest ones are joined, hole
 * included.  Gaps of 10, 1, 5 and 20 pages: the 1 and 5 page ones go.
 */
static void damon_test_pa_regions_max(struct kunit *test)
{
	const unsigned long pages[][2] = {
		{ 0, 10 }, { 20, 30 }, { 31, 40 }, { 45, 50 }, { 70, 80 },
	};
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram;
	struct damon_region *r;

	KUNIT_ASSERT_NOT_NULL(test, t);
	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, damon_pa_init_target_regions(t, &ram, 3, 3), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 3U);
	r = damon_regions_first(t);
	KUNIT_EXPECT_EQ(test, r->start, P(0));
	KUNIT_EXPECT_EQ(test, r->end, P(10));
	r = damon_region_next(r);
	KUNIT_EXPECT_EQ(test, r->start, P(20));
	KUNIT_EXPECT_EQ(test, r->end, P(50));
	r = damon_region_next(r);
	KUNIT_EXPECT_EQ(test, r->start, P(70));
	KUNIT_EXPECT_EQ(test, r->end, P(80));
	damon_pa_ram_free(&ram);
	damon_target_free(t);
}

/* Tiny ranges get a region each; the total stays at min_nr_regions. */
static void damon_test_pa_regions_min_skewed(struct kunit *test)
{
	const unsigned long pages[][2] = {
		{ 0, 1 }, { 10, 11 }, { 100, 10100 },
	};
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram;

	KUNIT_ASSERT_NOT_NULL(test, t);
	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, damon_pa_init_target_regions(t, &ram, 5, 1000),
			0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(0), P(1)), 1U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(10), P(11)), 1U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(100), P(10100)), 3U);
	KUNIT_EXPECT_EQ(test, covered(test, t), P(10002));
	damon_pa_ram_free(&ram);
	damon_target_free(t);
}

/* Fewer pages than min_nr_regions: one region per page, no less. */
static void damon_test_pa_regions_min_small(struct kunit *test)
{
	const unsigned long pages[][2] = { { 0, 1 }, { 10, 12 }, { 100, 102 } };
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram;

	KUNIT_ASSERT_NOT_NULL(test, t);
	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, damon_pa_init_target_regions(t, &ram, 100, 1000),
			0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	KUNIT_EXPECT_EQ(test, covered(test, t), P(5));
	damon_pa_ram_free(&ram);
	damon_target_free(t);
}

/* min_nr_regions + one-piece minimums beyond max_nr_regions: capped. */
static void damon_test_pa_regions_cap(struct kunit *test)
{
	const unsigned long pages[][2] = {
		{ 0, 1 }, { 10, 11 }, { 20, 21 }, { 100, 1100 },
	};
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram;

	KUNIT_ASSERT_NOT_NULL(test, t);
	ram_of(test, &ram, pages, ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ(test, damon_pa_init_target_regions(t, &ram, 4, 4), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
	KUNIT_EXPECT_EQ(test, count_in(t, P(100), P(1100)), 1U);
	KUNIT_EXPECT_EQ(test, covered(test, t), P(1003));
	damon_pa_ram_free(&ram);
	damon_target_free(t);
}

static void damon_test_pa_regions_none(struct kunit *test)
{
	struct damon_target *t = damon_target_alloc();
	struct damon_pa_ram ram = {};

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, damon_pa_init_target_regions(t, &ram, 10, 1000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 0U);
	damon_target_free(t);
}

/*
 * paddr takes the LRU actions, pageout, and the migrate ones where the
 * kernel migrates; vaddr the madvise ones.
 */
static void damon_test_pa_actions(struct kunit *test)
{
	static const struct {
		enum damos_action action;
		bool paddr, vaddr;
	} cases[] = {
		{ DAMOS_STAT, true, true },
		{ DAMOS_PAGEOUT, true, true },
		{ DAMOS_LRU_PRIO, true, false },
		{ DAMOS_LRU_DEPRIO, true, false },
		{ DAMOS_MIGRATE_HOT, IS_ENABLED(CONFIG_MIGRATION), false },
		{ DAMOS_MIGRATE_COLD, IS_ENABLED(CONFIG_MIGRATION), false },
		{ DAMOS_WILLNEED, false, true },
		{ DAMOS_COLD, false, true },
		{ DAMOS_HUGEPAGE, false,
		  IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) },
		{ DAMOS_NOHUGEPAGE, false,
		  IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) },
	};
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, damon_ops_registered(DAMON_OPS_PADDR));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_registered_ops_can_apply(DAMON_OPS_PADDR,
								   cases[i].action),
				    cases[i].paddr, "paddr %s",
				    damos_action_name(cases[i].action));
		if (!IS_ENABLED(CONFIG_DAMON_VADDR))
			continue;
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_registered_ops_can_apply(DAMON_OPS_VADDR,
								   cases[i].action),
				    cases[i].vaddr, "vaddr %s",
				    damos_action_name(cases[i].action));
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_registered_ops_can_apply(DAMON_OPS_FVADDR,
								   cases[i].action),
				    cases[i].vaddr, "fvaddr %s",
				    damos_action_name(cases[i].action));
	}
	KUNIT_EXPECT_TRUE(test, damon_any_ops_can_apply(DAMOS_LRU_PRIO));
	KUNIT_EXPECT_FALSE(test, damon_registered_ops_can_apply(DAMON_OPS_PADDR,
								NR_DAMOS_ACTIONS));
}

/*
 * paddr decides anon, memcg (with the memory controller) and young per
 * folio; vaddr anon per mapping; both leave addr and target to the core.
 */
static void damon_test_pa_filters(struct kunit *test)
{
	static const struct {
		enum damos_filter_type type;
		bool paddr, vaddr;
	} cases[] = {
		{ DAMOS_FILTER_ANON, true, true },
		{ DAMOS_FILTER_ADDR, true, true },
		{ DAMOS_FILTER_TARGET, true, true },
		{ DAMOS_FILTER_MEMCG, IS_ENABLED(CONFIG_MEMCG), false },
		{ DAMOS_FILTER_YOUNG, true, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_registered_ops_can_filter(DAMON_OPS_PADDR,
								    cases[i].type),
				    cases[i].paddr, "paddr %s",
				    damos_filter_type_name(cases[i].type));
		if (!IS_ENABLED(CONFIG_DAMON_VADDR))
			continue;
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_registered_ops_can_filter(DAMON_OPS_VADDR,
								    cases[i].type),
				    cases[i].vaddr, "vaddr %s",
				    damos_filter_type_name(cases[i].type));
	}
	KUNIT_EXPECT_TRUE(test, damon_any_ops_can_filter(DAMOS_FILTER_YOUNG));
}

static struct kunit_case damon_paddr_cases[] = {
	KUNIT_CASE(damon_test_pa_ram_add),
	KUNIT_CASE(damon_test_pa_regions_skip_holes),
	KUNIT_CASE(damon_test_pa_regions_max),
	KUNIT_CASE(damon_test_pa_regions_min_skewed),
	KUNIT_CASE(damon_test_pa_regions_min_small),
	KUNIT_CASE(damon_test_pa_regions_cap),
	KUNIT_CASE(damon_test_pa_regions_none),
	KUNIT_CASE(damon_test_pa_actions),
	KUNIT_CASE(damon_test_pa_filters),
	{}
};

static struct kunit_suite damon_paddr_suite = {
	.name = "damon_paddr",
	.test_cases = damon_paddr_cases,
};

kunit_test_suite(damon_paddr_suite);
