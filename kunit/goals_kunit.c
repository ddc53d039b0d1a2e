// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the quota goals' feedback loop (goals.c): the score of a
 * measurement, one step of the loop, and the loop closed over synthetic
 * "plants" (a metric computed from the quota the loop chose), through
 * damos_goals_step() and damos_quota_renew() as the kdamond calls them.
 */

#include <kunit/test.h>
#include <linux/sizes.h>

#include "../internal.h"

#define MET	DAMON_FEED_MET
#define FLOOR	DAMOS_GOAL_MIN_ESZ

/* ------------------------------------------------------------ score */

struct score_case {
	const char *desc;
	unsigned long cur, target, score;
};

static const struct score_case score_cases[] = {
	{ "nothing yet", 0, 100, 0 },
	{ "half way", 50, 100, MET / 2 },
	{ "met", 100, 100, MET },
	{ "over by half", 150, 100, MET * 3 / 2 },
	{ "twice: the cap", 200, 100, 2 * MET },
	{ "far over: still the cap", ULONG_MAX, 1, 2 * MET },
	{ "huge values, no overflow", ULONG_MAX - 1, ULONG_MAX, MET - 1 },
	{ "no target (refused at on): met", 5, 0, MET },
};

KUNIT_ARRAY_PARAM_DESC(score, score_cases, desc);

static void goals_test_score(struct kunit *test)
{
	const struct score_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, damon_feed_score(c->cur, c->target), c->score);
}

/* ------------------------------------------------------------ one step */

struct step_case {
	const char *desc;
	unsigned long last, score, cap, next;
};

static const struct step_case step_cases[] = {
	{ "metric at 0: doubles", SZ_4M, 0, SZ_1G, SZ_8M },
	{ "half way: grows by half", SZ_4M, MET / 2, SZ_1G, SZ_4M + SZ_2M },
	{ "met: stays", SZ_4M, MET, SZ_1G, SZ_4M },
	{ "over by half: halves", SZ_4M, MET * 3 / 2, SZ_1G, SZ_2M },
	{ "twice the target: the floor", SZ_64M, 2 * MET, SZ_1G, FLOOR },
	{ "beyond twice: the floor", SZ_64M, 3 * MET, SZ_1G, FLOOR },
	{ "never above the cap", SZ_1G, 0, SZ_1G + SZ_512M, SZ_1G + SZ_512M },
	{ "never below the floor", FLOOR, MET + 1, SZ_1G, FLOOR },
	{ "not started (0) counts as the floor", 0, 0, SZ_1G, 2 * FLOOR },
	{ "a cap under the floor: the floor", SZ_4M, 0, SZ_64K, FLOOR },
	{ "no overflow at the top", ULONG_MAX - 1, 0, ULONG_MAX, ULONG_MAX },
	{ "growing near the top", ULONG_MAX / 2 + 1, MET / 2, ULONG_MAX,
	  ULONG_MAX },
};

KUNIT_ARRAY_PARAM_DESC(step, step_cases, desc);

static void goals_test_step(struct kunit *test)
{
	const struct step_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, damos_goal_next_esz(c->last, c->score, c->cap),
			c->next);
}

/* ------------------------------------------------------------ closed loop */

/* A scheme with user_input goals of the given targets. */
static struct damos *scheme_with_goals(struct kunit *test,
				       const unsigned long *targets,
				       unsigned int nr)
{
	struct damos *s = damos_scheme_alloc();
	struct damos_quota_goal *g;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < nr; i++) {
		g = damos_goal_alloc(DAMOS_GOAL_USER_INPUT, targets[i]);
		KUNIT_ASSERT_NOT_NULL(test, g);
		damos_goal_append(s, g);
	}
	return s;
}

/* The plant: every goal reads the quota of the last interval in 64 KiB. */
static void plant(struct damos *s, unsigned long spike)
{
	struct damos_quota_goal *g;

	damos_for_each_goal(g, s)
		g->current_value = spike ?: s->quota.goal_esz / SZ_64K;
}

/*
 * Where the plant settles: at @target units of 64 KiB, up to one unit
 * above (the plant reads whole units, the score whole basis points).
 */
static void expect_settled(struct kunit *test, unsigned long esz,
			   unsigned long target)
{
	KUNIT_EXPECT_GE(test, esz, target * SZ_64K);
	KUNIT_EXPECT_LT(test, esz, (target + 1) * SZ_64K);
}

/* Steps the loop @n times over the plant; returns the last quota. */
static unsigned long run(struct damos *s, unsigned int n, unsigned long hard)
{
	while (n--) {
		plant(s, 0);
		damos_goals_step(s, hard);
	}
	return s->quota.goal_esz;
}

static void goals_test_converges(struct kunit *test)
{
	const unsigned long target[] = { 256 };		/* 16 MiB */
	struct damos *s = scheme_with_goals(test, target, 1);
	unsigned long settled;
	unsigned int i;

	/* the first interval only starts the loop, at the floor */
	KUNIT_EXPECT_TRUE(test, damos_goals_step(s, ULONG_MAX));
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, FLOOR);
	/* nearly doubling, then settling: 16 MiB within ten steps */
	settled = run(s, 10, ULONG_MAX);
	expect_settled(test, settled, 256UL);
	/* and it stays there */
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, run(s, 1, ULONG_MAX), settled);
	damos_scheme_free(s);
}

static void goals_test_hard_limit(struct kunit *test)
{
	const unsigned long target[] = { 1024 };	/* 64 MiB */
	struct damos *s = scheme_with_goals(test, target, 1);
	unsigned int i;

	damos_goals_step(s, SZ_4M);
	for (i = 0; i < 30; i++)
		KUNIT_EXPECT_LE(test, run(s, 1, SZ_4M),
				(unsigned long)SZ_4M);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, (unsigned long)SZ_4M);
	/*
	 * No wind-up: once the goal is over-achieved the loop comes down
	 * from the limit at once, not from where an unbounded loop would be.
	 */
	plant(s, 1536);
	damos_goals_step(s, SZ_4M);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, (unsigned long)SZ_2M);
	damos_scheme_free(s);
}

static void goals_test_spike(struct kunit *test)
{
	const unsigned long target[] = { 256 };
	struct damos *s = scheme_with_goals(test, target, 1);
	unsigned long esz;

	damos_goals_step(s, ULONG_MAX);
	esz = run(s, 15, ULONG_MAX);
	expect_settled(test, esz, 256UL);
	/* one interval of ten times the target: down to the floor */
	plant(s, 2560);
	damos_goals_step(s, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, FLOOR);
	/* and back within ten intervals */
	KUNIT_EXPECT_EQ(test, run(s, 10, ULONG_MAX), esz);
	damos_scheme_free(s);
}

static void goals_test_several(struct kunit *test)
{
	/* 16 MiB and 8 MiB: the one met first holds the quota */
	const unsigned long targets[] = { 256, 128 };
	struct damos *s = scheme_with_goals(test, targets, 2);

	damos_goals_step(s, ULONG_MAX);
	expect_settled(test, run(s, 15, ULONG_MAX), 128UL);
	damos_scheme_free(s);
}

static void goals_test_unmeasurable(struct kunit *test)
{
	struct damos *s = damos_scheme_alloc();
	struct damos_quota_goal *g;

	KUNIT_ASSERT_NOT_NULL(test, s);
	g = damos_goal_alloc(DAMOS_GOAL_NODE_MEM_FREE_BP, 5000);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->nid = MAX_NUMNODES;	/* never a node */
	g->current_value = 1234;
	damos_goal_append(s, g);
	damos_goals_step(s, ULONG_MAX);
	s->quota.goal_esz = SZ_8M;
	damos_goals_step(s, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, (unsigned long)SZ_8M);
	KUNIT_EXPECT_EQ(test, g->current_value, 1234UL);

	/* node 0 has memory: measured, in basis points */
	g->nid = 0;
	damos_goals_step(s, ULONG_MAX);
	KUNIT_EXPECT_GT(test, g->current_value, 0UL);
	KUNIT_EXPECT_LE(test, g->current_value, MET);
	KUNIT_EXPECT_EQ(test, damos_validate(s), 0);
	g->nid = MAX_NUMNODES;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	g->nid = 0;
	g->target_value = 0;
	KUNIT_EXPECT_EQ(test, damos_validate(s), -EINVAL);
	damos_scheme_free(s);
}

/*
 * The loop as the kdamond runs it: at each renewed reset interval, and
 * under the bytes quota; a commit keeps what it reached.
 */
static void goals_test_renew_and_commit(struct kunit *test)
{
	const unsigned long target[] = { 256 };
	struct damos *s = scheme_with_goals(test, target, 1);
	struct damos *src = scheme_with_goals(test, target, 1);
	struct damon_ctx *ctx = damon_ctx_alloc();
	unsigned long now = 1000, step = msecs_to_jiffies(1000) + 1, esz;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	damos_quota_renew(s, now);
	KUNIT_EXPECT_EQ(test, damos_quota_effective_sz(s), FLOOR);
	/* within the interval nothing moves */
	plant(s, 0);
	damos_quota_renew(s, now + 1);
	KUNIT_EXPECT_EQ(test, s->quota.esz, FLOOR);
	for (i = 0; i < 10; i++) {
		plant(s, 0);
		damos_quota_renew(s, now += step);
	}
	esz = s->quota.goal_esz;
	expect_settled(test, esz, 256UL);
	/* the effective quota is the goals', in whole pages */
	KUNIT_EXPECT_EQ(test, damos_quota_effective_sz(s),
			ALIGN_DOWN(esz, DAMON_MIN_REGION));

	/* a commit with a bytes quota under it: effective at once */
	src->quota.sz = SZ_4M;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, s->quota.esz, (unsigned long)SZ_4M);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, esz);
	KUNIT_EXPECT_TRUE(test, list_empty(&src->goals));
	/* ... and the loop is clamped to it from the next interval */
	plant(s, 0);
	damos_quota_renew(s, now += step);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, (unsigned long)SZ_4M);

	/* no goals left: the loop forgets, only bytes limit */
	src->quota.sz = SZ_2M;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, s->quota.goal_esz, 0UL);
	KUNIT_EXPECT_EQ(test, s->quota.esz, (unsigned long)SZ_2M);
	damos_scheme_free(src);
	damos_scheme_free(s);
	damon_ctx_free(ctx);
}

static void goals_test_metric_names(struct kunit *test)
{
	unsigned int m;

	for (m = 0; m < NR_DAMOS_GOAL_METRICS; m++)
		KUNIT_EXPECT_NOT_NULL(test, damos_goal_metric_name(m));
	KUNIT_EXPECT_NULL(test, damos_goal_metric_name(NR_DAMOS_GOAL_METRICS));
	KUNIT_EXPECT_TRUE(test,
			  damos_goal_metric_available(DAMOS_GOAL_USER_INPUT));
	KUNIT_EXPECT_FALSE(test,
			   damos_goal_metric_available(NR_DAMOS_GOAL_METRICS));
	m = DAMOS_GOAL_NODE_MEMCG_FREE_BP;
	KUNIT_EXPECT_TRUE(test, damos_goal_metric_per_node(m));
	KUNIT_EXPECT_TRUE(test, damos_goal_metric_per_memcg(m));
	m = DAMOS_GOAL_ACTIVE_MEM_BP;
	KUNIT_EXPECT_FALSE(test, damos_goal_metric_per_node(m));
	KUNIT_EXPECT_FALSE(test, damos_goal_metric_per_memcg(m));
}

static struct kunit_case goals_cases[] = {
	KUNIT_CASE_PARAM(goals_test_score, score_gen_params),
	KUNIT_CASE_PARAM(goals_test_step, step_gen_params),
	KUNIT_CASE(goals_test_converges),
	KUNIT_CASE(goals_test_hard_limit),
	KUNIT_CASE(goals_test_spike),
	KUNIT_CASE(goals_test_several),
	KUNIT_CASE(goals_test_unmeasurable),
	KUNIT_CASE(goals_test_renew_and_commit),
	KUNIT_CASE(goals_test_metric_names),
	{}
};

static struct kunit_suite goals_suite = {
	.name = "damon_quota_goals",
	.test_cases = goals_cases,
};

kunit_test_suite(goals_suite);
