// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the monitoring intervals auto-tuning (tuning.c): what a
 * window observed, one step of the sampling interval, and whole tuning
 * rounds on a hand-built context, with damon_set_attrs() keeping or
 * restarting the tuned intervals.
 */

#include <kunit/test.h>
#include <linux/sizes.h>

#include "../internal.h"

#define MET	DAMON_FEED_MET

/* ------------------------------------------------------------ one step */

struct next_case {
	const char *desc;
	unsigned long cur, score, min, max, next;
};

static const struct next_case next_cases[] = {
	{ "nothing observed: twice", 5000, 0, 1000, 1000000, 10000 },
	{ "half the goal: one and a half", 5000, MET / 2, 1000, 1000000, 7500 },
	{ "met: stays", 5000, MET, 1000, 1000000, 5000 },
	{ "half over: halved", 5000, MET * 3 / 2, 1000, 1000000, 2500 },
	{ "twice over: halved, not zero", 5000, 2 * MET, 1000, 1000000, 2500 },
	{ "not above max", 800000, 0, 1000, 1000000, 1000000 },
	{ "not below min", 1500, 2 * MET, 1000, 1000000, 1000 },
	{ "huge: saturates", ULONG_MAX - 1, 0, 1, ULONG_MAX, ULONG_MAX },
};

KUNIT_ARRAY_PARAM_DESC(next, next_cases, desc);

static void tuning_test_next_sample(struct kunit *test)
{
	const struct next_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, damon_tune_next_sample(c->cur, c->score, c->min,
						     c->max), c->next);
}

/* ------------------------------------------------------------ a context */

/*
 * A context (5 ms / 100 ms / 1 s: 20 samples a window) with one target of
 * two regions: 1 MiB seen accessed @hot times a window, 3 MiB never.
 */
static struct damon_ctx *ctx_of(struct kunit *test, unsigned int hot)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damon_target *t = damon_target_alloc();
	struct damon_region *r;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_target_append(ctx, t);
	r = damon_region_alloc(0, SZ_1M);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->nr_accesses = hot;
	damon_region_append(r, t);
	r = damon_region_alloc(SZ_1M, SZ_4M);
	KUNIT_ASSERT_NOT_NULL(test, r);
	damon_region_append(r, t);
	return ctx;
}

static void set_hot(struct damon_ctx *ctx, unsigned int hot)
{
	struct damon_target *t = list_first_entry(&ctx->targets,
						  struct damon_target, list);

	damon_regions_first(t)->nr_accesses = hot;
}

static void tuning_test_observed(struct kunit *test)
{
	struct damon_ctx *ctx = ctx_of(test, 20);

	/* a quarter of the bytes, every sample */
	KUNIT_EXPECT_EQ(test, damon_tune_observed_bp(ctx), 2500UL);
	set_hot(ctx, 10);
	KUNIT_EXPECT_EQ(test, damon_tune_observed_bp(ctx), 1250UL);
	/* counts above the window's samples (after a change) count as all */
	set_hot(ctx, 1000);
	KUNIT_EXPECT_EQ(test, damon_tune_observed_bp(ctx), 2500UL);
	set_hot(ctx, 0);
	KUNIT_EXPECT_EQ(test, damon_tune_observed_bp(ctx), 0UL);
	damon_ctx_free(ctx);
}

/* The attributes with a goal of @bp, every 2 windows, 1 ms .. 1 s. */
static struct damon_attrs tuned_attrs(unsigned long bp)
{
	struct damon_attrs a = damon_default_attrs();

	a.intervals_goal = (struct damon_intervals_goal) {
		.access_bp = bp, .aggrs = 2,
		.min_sample_us = 1000, .max_sample_us = 1000000,
	};
	return a;
}

static void tuning_test_rounds(struct kunit *test)
{
	struct damon_ctx *ctx = ctx_of(test, 20);
	struct damon_attrs a = tuned_attrs(1000);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	/* 2500 bp observed against 1000: more than twice, so halved */
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 5000UL);	/* 1 of 2 */
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 2500UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 50000UL);	/* ratio kept */
	KUNIT_EXPECT_EQ(test, ctx->attrs.update_us, 1000000UL);

	/* nothing observed: twice per round, up to max_sample_us */
	set_hot(ctx, 0);
	for (i = 0; i < 40; i++)
		damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 1000000UL);
	/* the aggregation interval may pass the update interval */
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 20000000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.update_us, 1000000UL);

	/* met exactly: stays */
	set_hot(ctx, 8);	/* 8 of 20 on a quarter: 1000 bp */
	damon_tune_intervals(ctx);
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 1000000UL);
	damon_ctx_free(ctx);
}

static void tuning_test_set_attrs(struct kunit *test)
{
	struct damon_ctx *ctx = ctx_of(test, 0);
	struct damon_attrs a = tuned_attrs(1000);

	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	damon_tune_intervals(ctx);
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 10000UL);

	/* the same starting point again (a commit of something else) */
	a.min_nr_regions = 20;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 10000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 200000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.min_nr_regions, 20UL);

	/* a new starting point restarts from it */
	a.sample_us = 2000;
	a.aggr_us = 40000;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 2000UL);
	damon_tune_intervals(ctx);
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 4000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 80000UL);

	/* tuning off: the values as set, and no tuning */
	a.intervals_goal.access_bp = 0;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 2000UL);
	damon_tune_intervals(ctx);
	damon_tune_intervals(ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 2000UL);
	damon_ctx_free(ctx);
}

static void tuning_test_validate(struct kunit *test)
{
	struct damon_attrs a = tuned_attrs(400);

	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), 0);
	a.intervals_goal.min_sample_us = 2000000;	/* above max */
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = tuned_attrs(400);
	a.intervals_goal.aggrs = 0;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = tuned_attrs(10001);
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	/* off: the goal's other fields do not matter */
	a = tuned_attrs(0);
	a.intervals_goal.aggrs = 0;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), 0);
}

static struct kunit_case tuning_cases[] = {
	KUNIT_CASE_PARAM(tuning_test_next_sample, next_gen_params),
	KUNIT_CASE(tuning_test_observed),
	KUNIT_CASE(tuning_test_rounds),
	KUNIT_CASE(tuning_test_set_attrs),
	KUNIT_CASE(tuning_test_validate),
	{}
};

static struct kunit_suite tuning_suite = {
	.name = "damon_intervals_tuning",
	.test_cases = tuning_cases,
};

kunit_test_suite(tuning_suite);
