// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for DAMOS (schemes.c): access pattern matching, priority
 * scores, quota accounting, watermarks, validation, and whole
 * damos_apply_schemes() runs on a hand-built context whose operations only
 * record what they were asked to do.
 */

#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/sizes.h>

#include "../internal.h"

#define P(n)	((unsigned long)(n) * PAGE_SIZE)

/* ------------------------------------------------------ pattern matching */

/* A region of @sz bytes with the given record, for the pure functions. */
static struct damon_region region_of(unsigned long sz, unsigned int nr,
				     unsigned int age)
{
	return (struct damon_region) {
		.start = P(100),
		.end = P(100) + sz,
		.nr_accesses = nr,
		.age = age,
	};
}

/*
 * One row: a pattern, a region of P(10) bytes with @nr accesses and @age,
 * and whether they match.  Every bound is inclusive, on both sides.
 */
struct pattern_case {
	const char *what;
	struct damos_access_pattern p;
	unsigned int nr, age;
	bool match;
};

/* p: min_sz, max_sz, min_nr_accesses, max_nr_accesses, min_age, max_age */
static const struct pattern_case pattern_cases[] = {
	{ "min_sz = size", { P(10), ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "min_sz > size", { P(10) + 1, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, 5, 7, false },
	{ "min_sz < size", { P(10) - 1, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "max_sz = size", { 0, P(10), 0, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "max_sz < size", { 0, P(10) - 1, 0, UINT_MAX, 0, UINT_MAX }, 5, 7, false },
	{ "max_sz > size", { 0, P(10) + 1, 0, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "size range of one value", { P(10), P(10), 0, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "min_nr = nr", { 0, ULONG_MAX, 5, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "min_nr > nr", { 0, ULONG_MAX, 6, UINT_MAX, 0, UINT_MAX }, 5, 7, false },
	{ "min_nr < nr", { 0, ULONG_MAX, 4, UINT_MAX, 0, UINT_MAX }, 5, 7, true },
	{ "max_nr = nr", { 0, ULONG_MAX, 0, 5, 0, UINT_MAX }, 5, 7, true },
	{ "max_nr < nr", { 0, ULONG_MAX, 0, 4, 0, UINT_MAX }, 5, 7, false },
	{ "max_nr > nr", { 0, ULONG_MAX, 0, 6, 0, UINT_MAX }, 5, 7, true },
	{ "[0, 0] nr: an accessed region", { 0, ULONG_MAX, 0, 0, 0, UINT_MAX }, 5, 7, false },
	{ "[0, 0] nr: a region never accessed", { 0, ULONG_MAX, 0, 0, 0, UINT_MAX }, 0, 7, true },
	{ "min_age = age", { 0, ULONG_MAX, 0, UINT_MAX, 7, UINT_MAX }, 5, 7, true },
	{ "min_age > age", { 0, ULONG_MAX, 0, UINT_MAX, 8, UINT_MAX }, 5, 7, false },
	{ "min_age < age", { 0, ULONG_MAX, 0, UINT_MAX, 6, UINT_MAX }, 5, 7, true },
	{ "max_age = age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 7 }, 5, 7, true },
	{ "max_age < age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 6 }, 5, 7, false },
	{ "max_age > age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 8 }, 5, 7, true },
	{ "the types' extremes match all",
	  { 0, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, UINT_MAX, UINT_MAX, true },
	{ "max_age one below the extreme",
	  { 0, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX - 1 }, UINT_MAX, UINT_MAX, false },
};

static void pattern_case_desc(const struct pattern_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pattern, pattern_cases, pattern_case_desc);

static void damos_test_pattern_bounds(struct kunit *test)
{
	const struct pattern_case *c = test->param_value;
	struct damon_region r = region_of(P(10), c->nr, c->age);

	KUNIT_EXPECT_EQ_MSG(test, damos_pattern_match(&c->p, &r), c->match,
			    "%s", c->what);
}

/* Each bound is checked on its own: one miss is enough. */
static void damos_test_pattern_all_three(struct kunit *test)
{
	struct damon_region r = region_of(P(10), 5, 7);
	struct damos_access_pattern p = {
		.min_sz = P(10), .max_sz = P(10),
		.min_nr_accesses = 5, .max_nr_accesses = 5,
		.min_age = 7, .max_age = 7,
	};

	KUNIT_EXPECT_TRUE(test, damos_pattern_match(&p, &r));
	r.end += PAGE_SIZE;
	KUNIT_EXPECT_FALSE(test, damos_pattern_match(&p, &r));
	r.end -= PAGE_SIZE;
	r.nr_accesses = 4;
	KUNIT_EXPECT_FALSE(test, damos_pattern_match(&p, &r));
	r.nr_accesses = 5;
	r.age = 8;
	KUNIT_EXPECT_FALSE(test, damos_pattern_match(&p, &r));
	r.age = 7;
	KUNIT_EXPECT_TRUE(test, damos_pattern_match(&p, &r));
}

/* ------------------------------------------------------ priority scores */

/*
 * With the default attributes an aggregation is 20 samples of 100 ms each;
 * age 100 is 10 seconds.
 */
static void damos_test_score_cold_first(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	/* idle for 10 s, idle but new, hot for 10 s, warm and new */
	struct damon_region old_idle = region_of(P(16), 0, 100);
	struct damon_region new_idle = region_of(P(16), 0, 0);
	struct damon_region old_hot = region_of(P(16), 20, 100);
	struct damon_region warm = region_of(P(16), 5, 0);
	enum damos_action cold_actions[] = { DAMOS_PAGEOUT, DAMOS_COLD };
	unsigned int i, a, b, c, d;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(cold_actions); i++) {
		s->action = cold_actions[i];
		a = damos_score(ctx, &old_idle, s);
		b = damos_score(ctx, &new_idle, s);
		c = damos_score(ctx, &warm, s);
		d = damos_score(ctx, &old_hot, s);
		KUNIT_EXPECT_GT(test, a, b);
		KUNIT_EXPECT_GT(test, b, c);
		KUNIT_EXPECT_GT(test, c, d);
		KUNIT_EXPECT_LE(test, a, (unsigned int)DAMOS_MAX_SCORE);
	}
	/* pageout and cold rank alike */
	s->action = DAMOS_PAGEOUT;
	a = damos_score(ctx, &warm, s);
	s->action = DAMOS_COLD;
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &warm, s), a);
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

static void damos_test_score_hot_first(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	struct damon_region old_idle = region_of(P(16), 0, 100);
	struct damon_region new_idle = region_of(P(16), 0, 0);
	struct damon_region old_hot = region_of(P(16), 20, 100);
	struct damon_region new_hot = region_of(P(16), 20, 0);
	struct damon_region warm = region_of(P(16), 5, 0);
	enum damos_action hot_actions[] = {
		DAMOS_WILLNEED, DAMOS_HUGEPAGE, DAMOS_NOHUGEPAGE, DAMOS_STAT,
	};
	unsigned int i, a, b, c, d, e;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(hot_actions); i++) {
		s->action = hot_actions[i];
		a = damos_score(ctx, &old_hot, s);
		b = damos_score(ctx, &new_hot, s);
		c = damos_score(ctx, &warm, s);
		d = damos_score(ctx, &new_idle, s);
		e = damos_score(ctx, &old_idle, s);
		KUNIT_EXPECT_GT(test, a, b);
		KUNIT_EXPECT_GT(test, b, c);
		KUNIT_EXPECT_GT(test, c, d);
		KUNIT_EXPECT_GT(test, d, e);
		KUNIT_EXPECT_LE(test, a, (unsigned int)DAMOS_MAX_SCORE);
	}
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

/* The sub-scores at their ends give exactly 0 and DAMOS_MAX_SCORE. */
static void damos_test_score_range(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	struct damon_region r;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.weight_sz = 1;

	/* 1 TiB, accessed in every sample for ages: the hottest possible */
	r = region_of(SZ_1T, 20, UINT_MAX);
	s->action = DAMOS_WILLNEED;
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &r, s), (unsigned int)DAMOS_MAX_SCORE);
	/* more accesses than samples (after an interval change) saturate */
	r.nr_accesses = 1000;
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &r, s), (unsigned int)DAMOS_MAX_SCORE);
	/* a single page idle for ages: the least wanted */
	r = region_of(PAGE_SIZE, 0, UINT_MAX);
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &r, s), 0U);

	/* and the other way round for pageout */
	s->action = DAMOS_PAGEOUT;
	r = region_of(SZ_1T, 0, UINT_MAX);
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &r, s), (unsigned int)DAMOS_MAX_SCORE);
	r = region_of(PAGE_SIZE, 20, UINT_MAX);
	KUNIT_EXPECT_EQ(test, damos_score(ctx, &r, s), 0U);
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

static void damos_test_score_weights(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	/* small and idle vs large and hot */
	struct damon_region small_idle = region_of(P(1), 0, 0);
	struct damon_region big_hot = region_of(SZ_1G, 20, 0);
	/* more accessed and new vs less accessed for a minute */
	struct damon_region busy_new = region_of(P(16), 14, 0);
	struct damon_region warm_old = region_of(P(16), 10, 600);
	/* rarely accessed for a minute vs more accessed and new */
	struct damon_region rare_old = region_of(P(16), 4, 600);
	struct damon_region some_new = region_of(P(16), 8, 0);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->action = DAMOS_PAGEOUT;

	/* the default weights (0, 1, 1): coldness decides */
	KUNIT_EXPECT_GT(test, damos_score(ctx, &small_idle, s),
			damos_score(ctx, &big_hot, s));
	/* size alone: larger first, whatever the action */
	s->quota.weight_sz = 1;
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 0;
	KUNIT_EXPECT_LT(test, damos_score(ctx, &small_idle, s),
			damos_score(ctx, &big_hot, s));
	s->action = DAMOS_WILLNEED;
	KUNIT_EXPECT_LT(test, damos_score(ctx, &small_idle, s),
			damos_score(ctx, &big_hot, s));

	/* willneed: frequency prefers the busier, age the longer-hot */
	s->quota.weight_sz = 0;
	s->quota.weight_nr_accesses = 1;
	KUNIT_EXPECT_GT(test, damos_score(ctx, &busy_new, s),
			damos_score(ctx, &warm_old, s));
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 1;
	KUNIT_EXPECT_LT(test, damos_score(ctx, &busy_new, s),
			damos_score(ctx, &warm_old, s));

	/*
	 * pageout: frequency prefers the rarely accessed, age the new one
	 * (accessed for long is hot); the default weights side with age
	 * here, a heavy frequency weight with frequency.
	 */
	s->action = DAMOS_PAGEOUT;
	s->quota.weight_nr_accesses = 1;
	s->quota.weight_age = 0;
	KUNIT_EXPECT_GT(test, damos_score(ctx, &rare_old, s),
			damos_score(ctx, &some_new, s));
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 1;
	KUNIT_EXPECT_LT(test, damos_score(ctx, &rare_old, s),
			damos_score(ctx, &some_new, s));
	s->quota.weight_nr_accesses = 1;
	KUNIT_EXPECT_LT(test, damos_score(ctx, &rare_old, s),
			damos_score(ctx, &some_new, s));
	s->quota.weight_nr_accesses = 10;
	KUNIT_EXPECT_GT(test, damos_score(ctx, &rare_old, s),
			damos_score(ctx, &some_new, s));
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

static void damos_test_score_zero_weights(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	struct damon_region rs[] = {
		region_of(P(1), 0, 0), region_of(SZ_1G, 20, 1000),
		region_of(P(3), 7, 3), region_of(SZ_2M, 0, UINT_MAX),
	};
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.weight_sz = 0;
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 0;
	for (i = 0; i < ARRAY_SIZE(rs); i++) {
		s->action = DAMOS_PAGEOUT;
		KUNIT_EXPECT_EQ(test, damos_score(ctx, &rs[i], s),
				(unsigned int)DAMOS_MAX_SCORE);
		s->action = DAMOS_WILLNEED;
		KUNIT_EXPECT_EQ(test, damos_score(ctx, &rs[i], s),
				(unsigned int)DAMOS_MAX_SCORE);
	}
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

/* Ages count whole aggregation intervals, even ones shorter than 1 ms. */
static void damos_test_score_age_short_aggr(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();
	struct damos *s = damos_new_scheme();
	/* 200000 intervals of 0.5 ms: idle for 100 s */
	struct damon_region old_idle = region_of(P(16), 0, 200000);
	struct damon_region new_idle = region_of(P(16), 0, 0);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	ctx->attrs.sample_us = 100;
	ctx->attrs.aggr_us = 500;
	s->action = DAMOS_PAGEOUT;
	s->quota.weight_sz = 0;
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 1;
	KUNIT_EXPECT_GT(test, damos_score(ctx, &old_idle, s),
			damos_score(ctx, &new_idle, s));
	damos_destroy_scheme(s);
	damon_destroy_ctx(ctx);
}

/* ------------------------------------------------------ quota accounting */

static void damos_test_quota_unlimited(struct kunit *test)
{
	struct damos *s = damos_new_scheme();

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.charged_sz = SZ_1G;
	damos_quota_renew(s, 1000);
	KUNIT_EXPECT_EQ(test, s->quota.esz, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);
	damos_quota_renew(s, 1000 + 100 * HZ);
	KUNIT_EXPECT_EQ(test, s->quota.esz, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);
	damos_destroy_scheme(s);
}

static void damos_test_quota_bytes_across_resets(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	struct damos_quota *q;
	unsigned long now = 5000, ival;

	KUNIT_ASSERT_NOT_NULL(test, s);
	q = &s->quota;
	q->sz = SZ_1M + 100;		/* rounded down to whole pages */
	q->reset_interval_ms = 500;
	ival = msecs_to_jiffies(500);
	KUNIT_ASSERT_GT(test, ival, 1UL);

	/* the first renewal opens an interval, counting nothing */
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 0UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);

	/* used up; within the interval nothing renews */
	q->charged_sz = SZ_1M;
	damos_quota_renew(s, now + 1);
	damos_quota_renew(s, now + ival - 1);
	KUNIT_EXPECT_EQ(test, q->charged_sz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);

	/* reset_interval_ms after its start, the budget renews */
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 0UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);

	/* an interval that did not use it all up is no exceed */
	q->charged_sz = SZ_512K;
	now += ival + 3;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 0UL);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);

	/* a renewal long overdue counts the used-up interval once */
	q->charged_sz = SZ_1M;
	now += 10 * ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 2UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);

	/* less than a page is one page, never nothing */
	q->sz = 100;
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 2UL);
	damos_destroy_scheme(s);
}

/* Intervals are measured in jiffies, which wrap. */
static void damos_test_quota_jiffies_wrap(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	unsigned long start = ULONG_MAX - 2, ival;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.sz = SZ_64K;
	s->quota.reset_interval_ms = 1000;
	ival = msecs_to_jiffies(1000);
	damos_quota_renew(s, start);
	KUNIT_EXPECT_EQ(test, s->quota.charged_from, start);
	s->quota.charged_sz = SZ_64K;
	damos_quota_renew(s, start + ival - 1);		/* wrapped, too early */
	KUNIT_EXPECT_EQ(test, s->quota.charged_from, start);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, (unsigned long)SZ_64K);
	damos_quota_renew(s, start + ival);
	KUNIT_EXPECT_EQ(test, s->quota.charged_from, start + ival);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, 0UL);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);
	damos_destroy_scheme(s);
}

/* The time quota becomes a size quota at the measured speed. */
static void damos_test_quota_ms(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	struct damos_quota *q;
	unsigned long now = 100, ival;

	KUNIT_ASSERT_NOT_NULL(test, s);
	q = &s->quota;
	q->ms = 3;
	q->reset_interval_ms = 1000;
	ival = msecs_to_jiffies(1000);

	/* nothing measured yet: 1 GiB/s (1 MiB per ms) is assumed */
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, 3UL * SZ_1M);

	/* 8 MiB in 4 ms: 2 MiB per ms */
	q->total_charged_sz = 8 * SZ_1M;
	q->total_charged_ns = 4 * NSEC_PER_MSEC;
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, 6UL * SZ_1M);

	/* with a size quota too, the smaller one holds */
	q->sz = 5 * SZ_1M;
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, 5UL * SZ_1M);
	q->sz = 7 * SZ_1M;
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, 6UL * SZ_1M);

	/* an extremely slow action still gets one page per interval */
	q->sz = 0;
	q->total_charged_sz = 100;
	q->total_charged_ns = NSEC_PER_SEC;
	now += ival;
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	damos_destroy_scheme(s);
}

/*
 * ms is valid up to 2^64-1: more time never means a smaller budget.
 * (At the assumed 2^20 bytes per ms, 2^44 ms is 2^64 bytes.)
 */
static void damos_test_quota_ms_large(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	unsigned long esz_smaller;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.ms = 1UL << 43;
	damos_quota_renew(s, 100);
	esz_smaller = s->quota.esz;
	KUNIT_EXPECT_GE(test, esz_smaller, (unsigned long)SZ_1G);

	damos_destroy_scheme(s);
	s = damos_new_scheme();
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.ms = 1UL << 44;
	damos_quota_renew(s, 100);
	KUNIT_EXPECT_GE(test, s->quota.esz, esz_smaller);
	damos_destroy_scheme(s);
}

/*
 * The speed estimate stays right once a long-running scheme has acted on
 * tens of TiB in total: 32 TiB in 2^25 ms (about 9 hours) is 1 MiB per ms.
 */
static void damos_test_quota_speed_long_run(struct kunit *test)
{
	struct damos *s = damos_new_scheme();

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.ms = 1;
	s->quota.total_charged_sz = 1ULL << 45;
	s->quota.total_charged_ns = (1ULL << 25) * NSEC_PER_MSEC;
	damos_quota_renew(s, 100);
	KUNIT_EXPECT_EQ(test, s->quota.esz, (unsigned long)SZ_1M);
	damos_destroy_scheme(s);
}

/* ------------------------------------------------------ watermarks */

static void damos_test_wmarks_hysteresis(struct kunit *test)
{
	struct damos_watermarks w = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.high = 600, .mid = 400, .low = 200,
		.active = false,
	};
	/* metric, then the state expected after it */
	const unsigned long steps[][2] = {
		{500, 0},	/* inactive between mid and high: stays off */
		{600, 0},
		{401, 0},
		{400, 1},	/* at mid: on */
		{500, 1},	/* active between mid and high: stays on */
		{600, 1},	/* at high: still on */
		{601, 0},	/* above high: off */
		{600, 0},	/* back under high is not enough */
		{450, 0},
		{401, 0},
		{300, 1},	/* below mid: on */
		{200, 1},	/* at low: still on */
		{199, 0},	/* below low: off */
		{200, 1},	/* back at low (and below mid): on again */
		{1000, 0},
		{1000, 0},
		{399, 1},
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		KUNIT_EXPECT_EQ_MSG(test, damos_wmarks_step(&w, steps[i][0]),
				    (bool)steps[i][1], "step %u, metric %lu",
				    i, steps[i][0]);
		KUNIT_EXPECT_EQ_MSG(test, w.active, (bool)steps[i][1],
				    "step %u, metric %lu", i, steps[i][0]);
	}
	KUNIT_EXPECT_FALSE(test, damos_wmarks_step(&w, 0));
	KUNIT_EXPECT_FALSE(test, w.active);
}

/* low == mid == high: active exactly at that value. */
static void damos_test_wmarks_one_point(struct kunit *test)
{
	struct damos_watermarks w = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.high = 500, .mid = 500, .low = 500,
		.active = true,
	};

	KUNIT_EXPECT_TRUE(test, damos_wmarks_step(&w, 500));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_step(&w, 501));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_step(&w, 500));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_step(&w, 499));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_step(&w, 500));
}

/* ------------------------------------------------------ validation */

static void damos_test_validate(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	struct damos_filter *f;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);

	s->action = NR_DAMOS_ACTIONS;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->action = DAMOS_PAGEOUT;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);

	/* each min above its max; min == max is fine */
	s->pattern.min_sz = P(2);
	s->pattern.max_sz = P(1);
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->pattern.max_sz = P(2);
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->pattern.min_nr_accesses = 3;
	s->pattern.max_nr_accesses = 2;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->pattern.max_nr_accesses = 3;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->pattern.min_age = 10;
	s->pattern.max_age = 9;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->pattern.max_age = 10;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);

	/* a quota needs a reset interval */
	s->quota.sz = SZ_1M;
	s->quota.reset_interval_ms = 0;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->quota.sz = 0;
	s->quota.ms = 10;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->quota.reset_interval_ms = 1;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);

	/* watermarks: checked only with a metric */
	s->wmarks.low = 500;
	s->wmarks.mid = 400;
	s->wmarks.high = 300;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->wmarks.metric = DAMOS_WMARK_FREE_MEM_RATE;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->wmarks.low = 300;			/* low <= mid, mid > high */
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->wmarks.high = 400;			/* 300 <= 400 <= 400 */
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->wmarks.low = 401;			/* low > mid */
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->wmarks.low = 400;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->wmarks.interval_us = 0;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->wmarks.interval_us = 1;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	s->wmarks.metric = NR_DAMOS_WMARK_METRICS;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	s->wmarks.metric = DAMOS_WMARK_NONE;

	/* filters: addr needs start < end */
	f = damos_new_filter(DAMOS_FILTER_ADDR, true);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	f->addr_range.start = P(5);
	f->addr_range.end = P(5);
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	f->addr_range.end = P(4);
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	f->addr_range.end = P(5) + 1;
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	f = damos_new_filter(DAMOS_FILTER_TARGET, false);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	f = damos_new_filter(DAMOS_FILTER_ANON, true);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	f->type = NR_DAMOS_FILTER_TYPES;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	damos_destroy_filter(f);
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	damos_destroy_scheme(s);
}

static void damos_test_defaults_and_names(struct kunit *test)
{
	struct damos *s = damos_new_scheme();
	enum damos_action a;

	KUNIT_ASSERT_NOT_NULL(test, s);
	/* the defaults configfs-layout.md lists */
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_STAT);
	KUNIT_EXPECT_EQ(test, s->apply_interval_us, 0UL);
	KUNIT_EXPECT_EQ(test, s->pattern.min_sz, 0UL);
	KUNIT_EXPECT_EQ(test, s->pattern.max_sz, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->pattern.min_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, s->pattern.max_nr_accesses, UINT_MAX);
	KUNIT_EXPECT_EQ(test, s->pattern.min_age, 0U);
	KUNIT_EXPECT_EQ(test, s->pattern.max_age, UINT_MAX);
	KUNIT_EXPECT_EQ(test, s->quota.ms, 0UL);
	KUNIT_EXPECT_EQ(test, s->quota.sz, 0UL);
	KUNIT_EXPECT_EQ(test, s->quota.reset_interval_ms, 1000UL);
	KUNIT_EXPECT_EQ(test, s->quota.weight_sz, 0U);
	KUNIT_EXPECT_EQ(test, s->quota.weight_nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, s->quota.weight_age, 1U);
	KUNIT_EXPECT_EQ(test, s->wmarks.metric, DAMOS_WMARK_NONE);
	KUNIT_EXPECT_EQ(test, s->wmarks.interval_us, 5000000UL);
	KUNIT_EXPECT_TRUE(test, s->wmarks.active);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->filters));
	damos_destroy_scheme(s);

	KUNIT_EXPECT_EQ(test, damos_action_of("pageout", &a), 0);
	KUNIT_EXPECT_EQ(test, a, DAMOS_PAGEOUT);
	KUNIT_EXPECT_EQ(test, damos_action_of("nohugepage", &a), 0);
	KUNIT_EXPECT_EQ(test, a, DAMOS_NOHUGEPAGE);
	KUNIT_EXPECT_EQ(test, damos_action_of("stat", &a), 0);
	KUNIT_EXPECT_EQ(test, a, DAMOS_STAT);
	KUNIT_EXPECT_EQ(test, damos_action_of("PAGEOUT", &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, damos_action_of("page", &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, damos_action_of("", &a), -EINVAL);
	KUNIT_EXPECT_STREQ(test, damos_action_name(DAMOS_WILLNEED), "willneed");
	KUNIT_EXPECT_STREQ(test, damos_action_name(DAMOS_COLD), "cold");
	KUNIT_EXPECT_STREQ(test, damos_action_name(DAMOS_HUGEPAGE), "hugepage");
	KUNIT_EXPECT_NULL(test, damos_action_name(NR_DAMOS_ACTIONS));
}

/* ------------------------------------------ damos_apply_schemes, fake ops */

#define REC_MAX_CALLS	32

enum rec_mode { REC_ALL, REC_HALF, REC_NONE };

/* What the fake apply_scheme was asked to do, in call order. */
static struct {
	struct {
		struct damon_target *t;
		unsigned long start, end;
		enum damos_action action;
	} calls[REC_MAX_CALLS];
	unsigned int nr_calls;
	enum rec_mode mode;
} rec;

static unsigned long rec_apply_scheme(struct damon_ctx *ctx,
				      struct damon_target *t,
				      unsigned long start, unsigned long end,
				      struct damos *s)
{
	if (rec.nr_calls < REC_MAX_CALLS) {
		rec.calls[rec.nr_calls].t = t;
		rec.calls[rec.nr_calls].start = start;
		rec.calls[rec.nr_calls].end = end;
		rec.calls[rec.nr_calls].action = s->action;
	}
	rec.nr_calls++;
	switch (rec.mode) {
	case REC_HALF:
		return (end - start) / 2;
	case REC_NONE:
		return 0;
	default:
		return end - start;
	}
}

static struct damon_ctx *rec_ctx(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	memset(&rec, 0, sizeof(rec));
	ctx->ops = (struct damon_operations) {
		.id = DAMON_OPS_PADDR,
		.name = "recorder",
		.apply_scheme = rec_apply_scheme,
	};
	return ctx;
}

static struct damon_target *add_target(struct kunit *test,
				       struct damon_ctx *ctx)
{
	struct damon_target *t = damon_new_target();

	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	return t;
}

static struct damon_region *add_region(struct kunit *test,
				       struct damon_target *t,
				       unsigned long start, unsigned long end,
				       unsigned int nr_accesses,
				       unsigned int age)
{
	struct damon_region *r = damon_new_region(start, end);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->nr_accesses = nr_accesses;
	r->age = age;
	damon_add_region(r, t);
	return r;
}

static struct damos *add_scheme(struct kunit *test, struct damon_ctx *ctx,
				enum damos_action action)
{
	struct damos *s = damos_new_scheme();

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->action = action;
	damos_add_scheme(ctx, s);
	return s;
}

static struct damos_filter *add_filter(struct kunit *test, struct damos *s,
				       enum damos_filter_type type,
				       bool matching)
{
	struct damos_filter *f = damos_new_filter(type, matching);

	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	return f;
}

/* The @i-th recorded call was on [@start, @end) of @t. */
static void expect_call(struct kunit *test, unsigned int i,
			struct damon_target *t, unsigned long start,
			unsigned long end)
{
	if (i >= min(rec.nr_calls, (unsigned int)REC_MAX_CALLS)) {
		KUNIT_FAIL(test, "no call %u: %u calls", i, rec.nr_calls);
		return;
	}
	KUNIT_EXPECT_PTR_EQ_MSG(test, rec.calls[i].t, t, "call %u", i);
	KUNIT_EXPECT_EQ_MSG(test, rec.calls[i].start, start, "call %u", i);
	KUNIT_EXPECT_EQ_MSG(test, rec.calls[i].end, end, "call %u", i);
}

static void expect_stat(struct kunit *test, const struct damos *s,
			unsigned long nr_tried, unsigned long sz_tried,
			unsigned long nr_applied, unsigned long sz_applied)
{
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, nr_tried);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, sz_tried);
	KUNIT_EXPECT_EQ(test, s->stat.nr_applied, nr_applied);
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied, sz_applied);
}

/* Bytes of the recorded calls from the @from-th on. */
static unsigned long rec_bytes_from(unsigned int from)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = from; i < min(rec.nr_calls, (unsigned int)REC_MAX_CALLS); i++)
		sum += rec.calls[i].end - rec.calls[i].start;
	return sum;
}

/* Let the current quota reset interval of @s be over. */
static void end_quota_interval(struct damos *s)
{
	s->quota.charged_from -= msecs_to_jiffies(s->quota.reset_interval_ms) + 1;
}

static void damos_test_apply_only_matching(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damon_region *r0, *r1, *r2, *r3;

	r0 = add_region(test, t, P(0), P(10), 0, 3);
	r1 = add_region(test, t, P(10), P(20), 5, 3);
	r2 = add_region(test, t, P(20), P(30), 0, 7);
	r3 = add_region(test, t, P(40), P(41), 0, 7);	/* too small */
	s->pattern.max_nr_accesses = 0;
	s->pattern.min_sz = P(2);

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t, P(0), P(10));
	expect_call(test, 1, t, P(20), P(30));
	KUNIT_EXPECT_EQ(test, rec.calls[0].action, DAMOS_PAGEOUT);
	expect_stat(test, s, 2, P(20), 2, P(20));
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);
	/* acted on: age restarts; the others keep theirs */
	KUNIT_EXPECT_EQ(test, r0->age, 0U);
	KUNIT_EXPECT_EQ(test, r1->age, 3U);
	KUNIT_EXPECT_EQ(test, r2->age, 0U);
	KUNIT_EXPECT_EQ(test, r3->age, 7U);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);

	/* the stats add up over runs */
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 4U);
	expect_stat(test, s, 4, P(40), 4, P(40));
	damon_destroy_ctx(ctx);
}

static void damos_test_apply_stat_only_counts(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_STAT);
	struct damon_region *r0, *r1, *r2;

	r0 = add_region(test, t, P(0), P(10), 0, 3);
	r1 = add_region(test, t, P(10), P(20), 5, 3);
	r2 = add_region(test, t, P(20), P(30), 0, 7);
	s->pattern.max_nr_accesses = 0;

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 0U);
	expect_stat(test, s, 2, P(20), 2, P(20));
	KUNIT_EXPECT_EQ(test, r0->age, 3U);
	KUNIT_EXPECT_EQ(test, r1->age, 3U);
	KUNIT_EXPECT_EQ(test, r2->age, 7U);

	/* stat works without any apply_scheme in the operations */
	ctx->ops.apply_scheme = NULL;
	damos_apply_schemes(ctx);
	expect_stat(test, s, 4, P(40), 4, P(40));
	damon_destroy_ctx(ctx);
}

/* nr/sz_applied count what the operations report, not what was tried. */
static void damos_test_apply_stats_partial(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_COLD);

	add_region(test, t, P(0), P(10), 0, 0);
	add_region(test, t, P(10), P(14), 0, 0);
	rec.mode = REC_HALF;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_stat(test, s, 2, P(14), 2, P(7));

	rec.mode = REC_NONE;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 4U);
	expect_stat(test, s, 4, P(28), 2, P(7));
	damon_destroy_ctx(ctx);
}

/* Operations that cannot apply actions only run stat schemes. */
static void damos_test_apply_unsupported(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *huge = add_scheme(test, ctx, DAMOS_HUGEPAGE);
	struct damos *out;

	add_region(test, t, P(0), P(10), 3, 0);
	damos_apply_schemes(ctx);
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE)) {
		KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
		expect_stat(test, huge, 1, P(10), 1, P(10));
	} else {
		KUNIT_EXPECT_FALSE(test, damon_ops_can_apply(&ctx->ops, DAMOS_HUGEPAGE));
		KUNIT_EXPECT_FALSE(test, damon_ops_can_apply(&ctx->ops, DAMOS_NOHUGEPAGE));
		KUNIT_EXPECT_EQ(test, rec.nr_calls, 0U);
		expect_stat(test, huge, 0, 0, 0, 0);
	}
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_PAGEOUT));

	damos_destroy_scheme(huge);
	out = add_scheme(test, ctx, DAMOS_PAGEOUT);
	ctx->ops.apply_scheme = NULL;
	KUNIT_EXPECT_FALSE(test, damon_ops_can_apply(&ctx->ops, DAMOS_PAGEOUT));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_STAT));
	rec.nr_calls = 0;
	damon_first_region(t)->age = 5;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 0U);
	expect_stat(test, out, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, damon_first_region(t)->age, 5U);
	damon_destroy_ctx(ctx);
}

/*
 * A bytes quota: per reset interval at most that much is acted on; the
 * region that would overrun it is split and only its first part acted on;
 * nothing more until the interval ends, which counts as a quota exceed.
 */
static void damos_test_apply_bytes_quota(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damon_region *r1;

	add_region(test, t, P(0), P(10), 0, 0);
	r1 = add_region(test, t, P(10), P(20), 0, 0);
	add_region(test, t, P(20), P(30), 0, 0);
	s->quota.sz = P(15);
	s->quota.reset_interval_ms = 60000;	/* never ends by itself here */

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.esz, P(15));
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t, P(0), P(10));
	expect_call(test, 1, t, P(10), P(15));
	expect_stat(test, s, 2, P(15), 2, P(15));
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, P(15));
	/* the region was split at the budget's end */
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
	KUNIT_EXPECT_EQ(test, r1->end, P(15));
	KUNIT_EXPECT_EQ(test, damon_next_region(r1)->start, P(15));
	KUNIT_EXPECT_EQ(test, damon_next_region(r1)->end, P(20));

	/* same interval: the budget is spent */
	damos_apply_schemes(ctx);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_stat(test, s, 2, P(15), 2, P(15));
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);

	/* next interval: a new budget, and the used-up one counted */
	end_quota_interval(s);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);
	KUNIT_EXPECT_EQ(test, rec_bytes_from(2), P(15));
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 4U);
	expect_call(test, 2, t, P(0), P(10));
	expect_call(test, 3, t, P(10), P(15));
	expect_stat(test, s, 4, P(30), 4, P(30));

	/* a budget larger than everything: all of it, no exceed */
	s->quota.sz = P(100);
	end_quota_interval(s);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 2UL);	/* the previous one */
	KUNIT_EXPECT_EQ(test, s->quota.esz, P(100));
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, P(30));
	end_quota_interval(s);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 2UL);
	damon_destroy_ctx(ctx);
}

/*
 * Under a quota the regions with the highest score go first: for pageout
 * the coldest, for willneed the hottest.  Acted-on regions are still taken
 * in address order; only the choice follows the score.
 */
static void damos_test_apply_quota_priority(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damon_region *warm, *old_idle, *new_idle;

	warm = add_region(test, t, P(0), P(10), 5, 0);
	old_idle = add_region(test, t, P(10), P(20), 0, 200);
	new_idle = add_region(test, t, P(20), P(30), 0, 0);
	s->quota.sz = P(10);
	s->quota.reset_interval_ms = 60000;

	/* room for one region: the one idle for longest */
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(10), P(20));
	KUNIT_EXPECT_EQ(test, old_idle->age, 0U);

	/* room for two: both idle ones, not the warm one */
	old_idle->age = 200;
	s->quota.sz = P(20);
	end_quota_interval(s);
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t, P(10), P(20));
	expect_call(test, 1, t, P(20), P(30));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);

	/* willneed wants the warm one first */
	s->action = DAMOS_WILLNEED;
	s->quota.sz = P(10);
	old_idle->age = 200;
	end_quota_interval(s);
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(0), P(10));

	damon_destroy_ctx(ctx);
}

/* With weight on size alone, the largest region goes first. */
static void damos_test_apply_quota_size_priority(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);

	add_region(test, t, P(0), P(4), 0, 0);
	add_region(test, t, P(4), P(6), 0, 0);
	add_region(test, t, P(6), P(38), 20, 0);	/* hot, but largest */
	add_region(test, t, P(38), P(46), 0, 0);
	s->quota.sz = P(32);
	s->quota.reset_interval_ms = 60000;
	s->quota.weight_sz = 1;
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(6), P(38));

	/* the default weights, room for 14 pages: the three idle ones */
	s->quota.sz = P(14);
	s->quota.weight_sz = 0;
	s->quota.weight_nr_accesses = 1;
	s->quota.weight_age = 1;
	end_quota_interval(s);
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 3U);
	expect_call(test, 0, t, P(0), P(4));
	expect_call(test, 1, t, P(4), P(6));
	expect_call(test, 2, t, P(38), P(46));
	damon_destroy_ctx(ctx);
}

/* Bytes of the recorded calls that lie in [@start, @end). */
static unsigned long rec_bytes_in(unsigned long start, unsigned long end)
{
	unsigned long sum = 0, s, e;
	unsigned int i;

	for (i = 0; i < min(rec.nr_calls, (unsigned int)REC_MAX_CALLS); i++) {
		s = max(rec.calls[i].start, start);
		e = min(rec.calls[i].end, end);
		if (s < e)
			sum += e - s;
	}
	return sum;
}

/*
 * "Regions are taken by priority": when the budget covers all of the best
 * regions and part of the next ones, the best are all acted on, wherever
 * they lie; only the rest of the budget goes to lower scores.  Here a hot
 * region comes first in address order and an idle one after it.
 */
static void damos_test_apply_quota_priority_not_address(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);

	add_region(test, t, P(0), P(20), 20, 0);	/* hot */
	add_region(test, t, P(20), P(30), 0, 0);	/* idle */
	s->quota.sz = P(15);
	s->quota.reset_interval_ms = 60000;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ_MSG(test, rec_bytes_in(P(20), P(30)), P(10),
			    "the idle region was not (all) paged out");
	KUNIT_EXPECT_EQ(test, rec_bytes_in(P(0), P(20)), P(5));
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, P(15));
	damon_destroy_ctx(ctx);
}

/* Regions of every target compete for one budget. */
static void damos_test_apply_quota_across_targets(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t0 = add_target(test, ctx);
	struct damon_target *t1 = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);

	add_region(test, t0, P(0), P(8), 3, 0);
	add_region(test, t1, P(0), P(8), 0, 100);
	s->quota.sz = P(8);
	s->quota.reset_interval_ms = 60000;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t1, P(0), P(8));
	expect_stat(test, s, 1, P(8), 1, P(8));
	damon_destroy_ctx(ctx);
}

static void damos_test_apply_addr_filter(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t, P(0), P(20), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_ADDR, false);
	f->addr_range.start = P(5);
	f->addr_range.end = P(12);

	/* matching N: only inside the range; the region is cut at its bounds */
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(5), P(12));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);
	/* what the filter kept out is not tried */
	expect_stat(test, s, 1, P(7), 1, P(7));

	/* matching Y: everything but the range */
	f->matching = true;
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t, P(0), P(5));
	expect_call(test, 1, t, P(12), P(20));
	expect_stat(test, s, 3, P(20), 3, P(20));
	damon_destroy_ctx(ctx);
}

/* A range over several regions cuts the outer ones only. */
static void damos_test_apply_addr_filter_spanning(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t, P(0), P(10), 0, 0);
	add_region(test, t, P(10), P(20), 0, 0);
	add_region(test, t, P(20), P(30), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_ADDR, false);
	f->addr_range.start = P(5);
	f->addr_range.end = P(25);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 3U);
	expect_call(test, 0, t, P(5), P(10));
	expect_call(test, 1, t, P(10), P(20));
	expect_call(test, 2, t, P(20), P(25));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);

	/* bounds on region boundaries cut nothing */
	f->addr_range.start = P(10);
	f->addr_range.end = P(20);
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(10), P(20));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	damon_destroy_ctx(ctx);
}

/*
 * addr works on whole pages (configfs-layout.md): bounds inside pages
 * widen the range to [ALIGN_DOWN(start), ALIGN(end)), both for keeping it
 * out (matching Y) and for acting only on it (matching N).
 */
static void damos_test_apply_addr_filter_unaligned(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t, P(0), P(20), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_ADDR, true);
	f->addr_range.start = P(5) + 100;
	f->addr_range.end = P(12) - 100;

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t, P(0), P(5));
	expect_call(test, 1, t, P(12), P(20));

	f->matching = false;
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(5), P(12));

	/* a range within one page is that page */
	f->addr_range.start = P(15) + 1;
	f->addr_range.end = P(15) + 2;
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(15), P(16));
	damon_destroy_ctx(ctx);
}

/* addr_end may be ULONG_MAX (configfs takes 0 .. 2^64-1): no wrap to 0. */
static void damos_test_apply_addr_filter_top(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t, P(0), P(20), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_ADDR, false);
	f->addr_range.start = P(5);
	f->addr_range.end = ULONG_MAX;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(5), P(20));

	f->matching = true;
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(0), P(5));
	damon_destroy_ctx(ctx);
}

static void damos_test_apply_target_filter(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t0 = add_target(test, ctx);
	struct damon_target *t1 = add_target(test, ctx);
	struct damon_target *t2 = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t0, P(0), P(4), 0, 0);
	add_region(test, t1, P(0), P(6), 0, 0);
	add_region(test, t2, P(0), P(8), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_TARGET, true);
	f->target_idx = 1;

	/* matching Y: every target but the second */
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t0, P(0), P(4));
	expect_call(test, 1, t2, P(0), P(8));
	expect_stat(test, s, 2, P(12), 2, P(12));

	/* matching N: only the second */
	f->matching = false;
	rec.nr_calls = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t1, P(0), P(6));
	expect_stat(test, s, 3, P(18), 3, P(18));
	damon_destroy_ctx(ctx);
}

/* Filters add up: memory any of them keeps out is left alone. */
static void damos_test_apply_filters_combined(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t0 = add_target(test, ctx);
	struct damon_target *t1 = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos_filter *f;

	add_region(test, t0, P(0), P(10), 0, 0);
	add_region(test, t1, P(0), P(10), 0, 0);
	f = add_filter(test, s, DAMOS_FILTER_TARGET, false);
	f->target_idx = 1;
	f = add_filter(test, s, DAMOS_FILTER_ADDR, true);
	f->addr_range.start = P(2);
	f->addr_range.end = P(8);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 2U);
	expect_call(test, 0, t1, P(0), P(2));
	expect_call(test, 1, t1, P(8), P(10));
	damon_destroy_ctx(ctx);
}

/* anon filters are the operations' business: the core passes the range. */
static void damos_test_apply_anon_filter_to_ops(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);

	add_region(test, t, P(0), P(10), 0, 0);
	add_filter(test, s, DAMOS_FILTER_ANON, true);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_call(test, 0, t, P(0), P(10));
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);
	damon_destroy_ctx(ctx);
}

static void damos_test_apply_watermarks(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);

	add_region(test, t, P(0), P(10), 0, 0);
	/* a window no free memory rate above 0 per mille is in */
	s->wmarks.metric = DAMOS_WMARK_FREE_MEM_RATE;
	s->wmarks.high = 0;
	s->wmarks.mid = 0;
	s->wmarks.low = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 0U);
	KUNIT_EXPECT_FALSE(test, s->wmarks.active);
	expect_stat(test, s, 0, 0, 0, 0);

	/* the whole range: on at the next check */
	s->wmarks.high = 1000;
	s->wmarks.mid = 1000;
	s->wmarks.next_check_ns = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	KUNIT_EXPECT_TRUE(test, s->wmarks.active);
	damon_destroy_ctx(ctx);
}

/* apply_interval_us: at the first aggregation at least that long after. */
static void damos_test_apply_interval(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_STAT);

	add_region(test, t, P(0), P(10), 0, 0);
	s->apply_interval_us = 4 * ctx->attrs.sample_us;
	ctx->passed_samples = 0;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);
	ctx->passed_samples = 3;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);
	ctx->passed_samples = 4;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 2UL);
	ctx->passed_samples = 9;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 3UL);
	ctx->passed_samples = 12;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 3UL);
	ctx->passed_samples = 13;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 4UL);
	damon_destroy_ctx(ctx);
}

/* An apply interval near 2^64 us means "hardly ever", never "always". */
static void damos_test_apply_interval_huge(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *s = add_scheme(test, ctx, DAMOS_STAT);

	add_region(test, t, P(0), P(10), 0, 0);
	ctx->attrs.sample_us = 1;
	s->apply_interval_us = ULONG_MAX;
	ctx->passed_samples = 5;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);
	ctx->passed_samples = 6;
	damos_apply_schemes(ctx);
	ctx->passed_samples = 1000000;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);
	damon_destroy_ctx(ctx);
}

/*
 * A commit keeps what the scheme did in the current quota interval: the
 * same limit again, or a lower one, gives no new budget; a higher one adds
 * the difference.  Statistics and the apply schedule are kept too.
 */
static void damos_test_commit_keeps_quota(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damos *s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos *src = damos_new_scheme();
	struct damos_quota *q = &s->quota;

	KUNIT_ASSERT_NOT_NULL(test, src);
	q->sz = SZ_1M;
	q->reset_interval_ms = 60000;
	damos_quota_renew(s, 1000);
	q->charged_sz = SZ_1M;
	s->stat.sz_applied = SZ_1M;
	s->apply_interval_us = 10 * ctx->attrs.sample_us;
	ctx->passed_samples = 100;
	s->next_apply_sample = 105;

	src->action = DAMOS_PAGEOUT;
	src->quota.sz = SZ_1M;
	src->quota.reset_interval_ms = 60000;
	src->apply_interval_us = s->apply_interval_us;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, q->charged_sz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, q->charged_from, 1000UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, s->next_apply_sample, 105UL);
	damos_quota_renew(s, 1001);
	KUNIT_EXPECT_EQ(test, q->charged_sz, (unsigned long)SZ_1M);

	src->quota.sz = SZ_512K;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_512K);
	KUNIT_EXPECT_EQ(test, q->charged_from, 1000UL);

	src->quota.sz = SZ_2M;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_2M);
	KUNIT_EXPECT_EQ(test, q->charged_sz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, q->charged_from, 1000UL);

	/* a shorter apply interval is due within its new length */
	src->apply_interval_us = 2 * ctx->attrs.sample_us;
	s->next_apply_sample = 200;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, s->next_apply_sample, 102UL);
	damos_destroy_scheme(src);
	damon_destroy_ctx(ctx);
}

/* Schemes run in order; a later one sees the ages an earlier one reset. */
static void damos_test_apply_two_schemes(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *t = add_target(test, ctx);
	struct damos *out = add_scheme(test, ctx, DAMOS_PAGEOUT);
	struct damos *old = add_scheme(test, ctx, DAMOS_STAT);

	add_region(test, t, P(0), P(10), 0, 50);
	add_region(test, t, P(10), P(20), 9, 50);
	out->pattern.max_nr_accesses = 0;
	old->pattern.min_age = 10;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, rec.nr_calls, 1U);
	expect_stat(test, out, 1, P(10), 1, P(10));
	expect_stat(test, old, 1, P(10), 1, P(10));
	damon_destroy_ctx(ctx);
}

static struct kunit_case damos_cases[] = {
	KUNIT_CASE_PARAM(damos_test_pattern_bounds, pattern_gen_params),
	KUNIT_CASE(damos_test_pattern_all_three),
	KUNIT_CASE(damos_test_score_cold_first),
	KUNIT_CASE(damos_test_score_hot_first),
	KUNIT_CASE(damos_test_score_range),
	KUNIT_CASE(damos_test_score_weights),
	KUNIT_CASE(damos_test_score_zero_weights),
	KUNIT_CASE(damos_test_score_age_short_aggr),
	KUNIT_CASE(damos_test_quota_unlimited),
	KUNIT_CASE(damos_test_quota_bytes_across_resets),
	KUNIT_CASE(damos_test_quota_jiffies_wrap),
	KUNIT_CASE(damos_test_quota_ms),
	KUNIT_CASE(damos_test_quota_ms_large),
	KUNIT_CASE(damos_test_quota_speed_long_run),
	KUNIT_CASE(damos_test_wmarks_hysteresis),
	KUNIT_CASE(damos_test_wmarks_one_point),
	KUNIT_CASE(damos_test_validate),
	KUNIT_CASE(damos_test_defaults_and_names),
	KUNIT_CASE(damos_test_apply_only_matching),
	KUNIT_CASE(damos_test_apply_stat_only_counts),
	KUNIT_CASE(damos_test_apply_stats_partial),
	KUNIT_CASE(damos_test_apply_unsupported),
	KUNIT_CASE(damos_test_apply_bytes_quota),
	KUNIT_CASE(damos_test_apply_quota_priority),
	KUNIT_CASE(damos_test_apply_quota_size_priority),
	KUNIT_CASE(damos_test_apply_quota_priority_not_address),
	KUNIT_CASE(damos_test_apply_quota_across_targets),
	KUNIT_CASE(damos_test_apply_addr_filter),
	KUNIT_CASE(damos_test_apply_addr_filter_spanning),
	KUNIT_CASE(damos_test_apply_addr_filter_unaligned),
	KUNIT_CASE(damos_test_apply_addr_filter_top),
	KUNIT_CASE(damos_test_apply_target_filter),
	KUNIT_CASE(damos_test_apply_filters_combined),
	KUNIT_CASE(damos_test_apply_anon_filter_to_ops),
	KUNIT_CASE(damos_test_apply_watermarks),
	KUNIT_CASE(damos_test_apply_interval),
	KUNIT_CASE(damos_test_apply_interval_huge),
	KUNIT_CASE(damos_test_commit_keeps_quota),
	KUNIT_CASE(damos_test_apply_two_schemes),
	{}
};

static struct kunit_suite damos_suite = {
	.name = "damon_schemes",
	.test_cases = damos_cases,
};

kunit_test_suite(damos_suite);
