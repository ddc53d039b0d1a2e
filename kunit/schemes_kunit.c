// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for DAMOS (schemes.c): access pattern matching, priority
 * scores, quota accounting, watermarks, validation, and whole
 * damos_apply_schemes() runs on a hand-built context whose operations only
 * record what they were asked to do.
 *
 * Most tests are tables: a row a behaviour, one test body a table.
 */

#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/sizes.h>

#include "../internal.h"

#define P(n)	((unsigned long)(n) * PAGE_SIZE)

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

/* ------------------------------------------------------ pattern matching */

/*
 * One row: a pattern, a region of @sz bytes with @nr accesses and @age,
 * and whether they match.  Every bound is inclusive, on both sides.
 */
struct pattern_case {
	const char *desc;
	struct damos_access_pattern p;
	unsigned long sz;
	unsigned int nr, age;
	bool match;
};

/* a pattern of one size, count and age: those of P(10), 5, 7 */
#define EXACT	{ P(10), P(10), 5, 5, 7, 7 }

/* p: min_sz, max_sz, min_nr_accesses, max_nr_accesses, min_age, max_age */
static const struct pattern_case pattern_cases[] = {
	{ "min_sz = size", { P(10), ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "min_sz > size", { P(10) + 1, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, false },
	{ "min_sz < size", { P(10) - 1, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "max_sz = size", { 0, P(10), 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "max_sz < size", { 0, P(10) - 1, 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, false },
	{ "max_sz > size", { 0, P(10) + 1, 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "size range of one value",
	  { P(10), P(10), 0, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "min_nr = nr", { 0, ULONG_MAX, 5, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "min_nr > nr", { 0, ULONG_MAX, 6, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, false },
	{ "min_nr < nr", { 0, ULONG_MAX, 4, UINT_MAX, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "max_nr = nr", { 0, ULONG_MAX, 0, 5, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "max_nr < nr", { 0, ULONG_MAX, 0, 4, 0, UINT_MAX }, P(10), 5, 7, false },
	{ "max_nr > nr", { 0, ULONG_MAX, 0, 6, 0, UINT_MAX }, P(10), 5, 7, true },
	{ "[0, 0] nr: an accessed region",
	  { 0, ULONG_MAX, 0, 0, 0, UINT_MAX }, P(10), 5, 7, false },
	{ "[0, 0] nr: a region never accessed",
	  { 0, ULONG_MAX, 0, 0, 0, UINT_MAX }, P(10), 0, 7, true },
	{ "min_age = age", { 0, ULONG_MAX, 0, UINT_MAX, 7, UINT_MAX }, P(10), 5, 7, true },
	{ "min_age > age", { 0, ULONG_MAX, 0, UINT_MAX, 8, UINT_MAX }, P(10), 5, 7, false },
	{ "min_age < age", { 0, ULONG_MAX, 0, UINT_MAX, 6, UINT_MAX }, P(10), 5, 7, true },
	{ "max_age = age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 7 }, P(10), 5, 7, true },
	{ "max_age < age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 6 }, P(10), 5, 7, false },
	{ "max_age > age", { 0, ULONG_MAX, 0, UINT_MAX, 0, 8 }, P(10), 5, 7, true },
	{ "the types' extremes match all",
	  { 0, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX }, P(10), UINT_MAX, UINT_MAX, true },
	{ "max_age one below the extreme",
	  { 0, ULONG_MAX, 0, UINT_MAX, 0, UINT_MAX - 1 }, P(10), UINT_MAX, UINT_MAX, false },
	/* each bound on its own: one miss is enough */
	{ "all three exact", EXACT, P(10), 5, 7, true },
	{ "all three exact, one page larger", EXACT, P(11), 5, 7, false },
	{ "all three exact, one access fewer", EXACT, P(10), 4, 7, false },
	{ "all three exact, one interval older", EXACT, P(10), 5, 8, false },
};

KUNIT_ARRAY_PARAM_DESC(pattern, pattern_cases, desc);

static void damos_test_pattern_bounds(struct kunit *test)
{
	const struct pattern_case *c = test->param_value;
	struct damon_region r = region_of(c->sz, c->nr, c->age);

	KUNIT_EXPECT_EQ_MSG(test, damos_pattern_match(&c->p, &r), c->match,
			    "%s", c->desc);
}

/* ------------------------------------------------------ priority scores */

#define SCORE_REGIONS	5

/*
 * One row: a scheme's action and weights (size, frequency, age), the
 * context's intervals (0: the defaults) and up to SCORE_REGIONS regions
 * (size, nr_accesses, age; a size of 0 ends the list).
 *  - rank_cases: the regions score strictly lower one after the other,
 *    and the first no more than DAMOS_MAX_SCORE; with @like_pageout, each
 *    scores what it scores for pageout.
 *  - value_cases: each region scores @value.
 */
struct score_case {
	const char *desc;
	enum damos_action action;
	unsigned int w[3];
	struct {
		unsigned long sz;
		unsigned int nr, age;
	} r[SCORE_REGIONS];
	unsigned int value;
	bool like_pageout;
	unsigned long sample_us, aggr_us;
};

/*
 * With the default attributes an aggregation is 100 ms, of 20 samples;
 * age 100 is 10 seconds.
 */
#define OLD_IDLE	{ P(16), 0, 100 }	/* idle for 10 s */
#define NEW_IDLE	{ P(16), 0, 0 }		/* idle but new */
#define OLD_HOT		{ P(16), 20, 100 }	/* hot for 10 s */
#define NEW_HOT		{ P(16), 20, 0 }
#define WARM		{ P(16), 5, 0 }		/* warm and new */
#define COLD_FIRST	{ OLD_IDLE, NEW_IDLE, WARM, OLD_HOT }
#define HOT_FIRST	{ OLD_HOT, NEW_HOT, WARM, NEW_IDLE, OLD_IDLE }
#define SMALL_IDLE	{ P(1), 0, 0 }
#define BIG_HOT		{ SZ_1G, 20, 0 }
#define BUSY_NEW	{ P(16), 14, 0 }	/* more accessed and new */
#define WARM_OLD	{ P(16), 10, 600 }	/* less accessed, for a minute */
#define RARE_OLD	{ P(16), 4, 600 }	/* rarely accessed, for a minute */
#define SOME_NEW	{ P(16), 8, 0 }		/* more accessed and new */

static const struct score_case rank_cases[] = {
	{ "pageout: the coldest first", DAMOS_PAGEOUT, { 0, 1, 1 }, COLD_FIRST },
	{ "cold: the coldest first, as pageout", DAMOS_COLD, { 0, 1, 1 }, COLD_FIRST,
	  .like_pageout = true },
	{ "willneed: the hottest first", DAMOS_WILLNEED, { 0, 1, 1 }, HOT_FIRST },
	{ "hugepage: the hottest first", DAMOS_HUGEPAGE, { 0, 1, 1 }, HOT_FIRST },
	{ "nohugepage: the hottest first", DAMOS_NOHUGEPAGE, { 0, 1, 1 }, HOT_FIRST },
	{ "stat: the hottest first", DAMOS_STAT, { 0, 1, 1 }, HOT_FIRST },
	{ "lru_deprio: the coldest first, as pageout", DAMOS_LRU_DEPRIO,
	  { 0, 1, 1 }, COLD_FIRST, .like_pageout = true },
	{ "lru_prio: the hottest first", DAMOS_LRU_PRIO, { 0, 1, 1 }, HOT_FIRST },
	{ "migrate_cold: the coldest first, as pageout", DAMOS_MIGRATE_COLD,
	  { 0, 1, 1 }, COLD_FIRST, .like_pageout = true },
	{ "migrate_hot: the hottest first", DAMOS_MIGRATE_HOT, { 0, 1, 1 },
	  HOT_FIRST },
	{ "default weights: coldness decides", DAMOS_PAGEOUT, { 0, 1, 1 },
	  { SMALL_IDLE, BIG_HOT } },
	{ "size alone, pageout: larger first", DAMOS_PAGEOUT, { 1, 0, 0 },
	  { BIG_HOT, SMALL_IDLE } },
	{ "size alone, willneed: larger first", DAMOS_WILLNEED, { 1, 0, 0 },
	  { BIG_HOT, SMALL_IDLE } },
	{ "willneed, frequency alone: the busier", DAMOS_WILLNEED, { 0, 1, 0 },
	  { BUSY_NEW, WARM_OLD } },
	{ "willneed, age alone: the longer hot", DAMOS_WILLNEED, { 0, 0, 1 },
	  { WARM_OLD, BUSY_NEW } },
	/* pageout: accessed for long is hot; the default weights side with age */
	{ "pageout, frequency alone: the rarer", DAMOS_PAGEOUT, { 0, 1, 0 },
	  { RARE_OLD, SOME_NEW } },
	{ "pageout, age alone: the new one", DAMOS_PAGEOUT, { 0, 0, 1 },
	  { SOME_NEW, RARE_OLD } },
	{ "pageout, default weights: the new one", DAMOS_PAGEOUT, { 0, 1, 1 },
	  { SOME_NEW, RARE_OLD } },
	{ "pageout, frequency weighing 10: the rarer", DAMOS_PAGEOUT, { 0, 10, 1 },
	  { RARE_OLD, SOME_NEW } },
	/* ages count whole intervals: 200000 of 0.5 ms is idle for 100 s */
	{ "age of intervals shorter than 1 ms", DAMOS_PAGEOUT, { 0, 0, 1 },
	  { { P(16), 0, 200000 }, NEW_IDLE }, .sample_us = 100, .aggr_us = 500 },
};

/* The sub-scores at their ends give exactly 0 and DAMOS_MAX_SCORE. */
static const struct score_case value_cases[] = {
	{ "willneed: 1 TiB, accessed in every sample for ages", DAMOS_WILLNEED,
	  { 1, 1, 1 }, { { SZ_1T, 20, UINT_MAX } }, DAMOS_MAX_SCORE },
	{ "willneed: more accesses than samples saturate", DAMOS_WILLNEED,
	  { 1, 1, 1 }, { { SZ_1T, 1000, UINT_MAX } }, DAMOS_MAX_SCORE },
	{ "willneed: a single page idle for ages", DAMOS_WILLNEED,
	  { 1, 1, 1 }, { { PAGE_SIZE, 0, UINT_MAX } }, 0 },
	{ "pageout: 1 TiB idle for ages", DAMOS_PAGEOUT,
	  { 1, 1, 1 }, { { SZ_1T, 0, UINT_MAX } }, DAMOS_MAX_SCORE },
	{ "pageout: a single page accessed for ages", DAMOS_PAGEOUT,
	  { 1, 1, 1 }, { { PAGE_SIZE, 20, UINT_MAX } }, 0 },
	{ "pageout, no weights: all alike", DAMOS_PAGEOUT, { 0, 0, 0 },
	  { { P(1), 0, 0 }, { SZ_1G, 20, 1000 }, { P(3), 7, 3 }, { SZ_2M, 0, UINT_MAX } },
	  DAMOS_MAX_SCORE },
	{ "willneed, no weights: all alike", DAMOS_WILLNEED, { 0, 0, 0 },
	  { { P(1), 0, 0 }, { SZ_1G, 20, 1000 }, { P(3), 7, 3 }, { SZ_2M, 0, UINT_MAX } },
	  DAMOS_MAX_SCORE },
};

KUNIT_ARRAY_PARAM_DESC(rank, rank_cases, desc);
KUNIT_ARRAY_PARAM_DESC(value, value_cases, desc);

/* Score the regions of @c for @action into @sc; returns how many. */
static unsigned int scores_of(struct kunit *test, const struct score_case *c,
			      enum damos_action action, unsigned int *sc)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damos *s = damos_scheme_alloc();
	struct damon_region r;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	if (c->sample_us) {
		ctx->attrs.sample_us = c->sample_us;
		ctx->attrs.aggr_us = c->aggr_us;
	}
	s->action = action;
	s->quota.weight_sz = c->w[0];
	s->quota.weight_nr_accesses = c->w[1];
	s->quota.weight_age = c->w[2];
	for (i = 0; i < SCORE_REGIONS && c->r[i].sz; i++) {
		r = region_of(c->r[i].sz, c->r[i].nr, c->r[i].age);
		sc[i] = damos_score(ctx, &r, s);
	}
	damos_scheme_free(s);
	damon_ctx_free(ctx);
	return i;
}

static void damos_test_score_rank(struct kunit *test)
{
	const struct score_case *c = test->param_value;
	unsigned int sc[SCORE_REGIONS], as_pageout[SCORE_REGIONS];
	unsigned int i, n = scores_of(test, c, c->action, sc);

	KUNIT_EXPECT_LE(test, sc[0], (unsigned int)DAMOS_MAX_SCORE);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_GT_MSG(test, sc[i - 1], sc[i], "regions %u, %u",
				    i - 1, i);
	if (!c->like_pageout)
		return;
	scores_of(test, c, DAMOS_PAGEOUT, as_pageout);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, sc[i], as_pageout[i], "region %u", i);
}

static void damos_test_score_value(struct kunit *test)
{
	const struct score_case *c = test->param_value;
	unsigned int sc[SCORE_REGIONS];
	unsigned int i, n = scores_of(test, c, c->action, sc);

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, sc[i], c->value, "region %u", i);
}

/* ------------------------------------------------------ settings */

/*
 * The tables change schemes through settings: a knob and the value it is
 * turned to.  Most knobs are a field of the scheme, of its last filter or
 * of its context; the last few are of damos_apply_schemes() runs only (see
 * set_run_knobs()).
 */
enum knob_id {
	K_NONE,			/* the end of a list */
	K_ACTION, K_APPLY_US, K_TARGET_NID,
	K_MIN_SZ, K_MAX_SZ, K_MIN_NR, K_MAX_NR, K_MIN_AGE, K_MAX_AGE,
	K_QUOTA_MS, K_QUOTA_SZ, K_RESET_MS, K_W_SZ, K_W_NR, K_W_AGE,
	K_CHARGED, K_TOTAL_SZ, K_TOTAL_NS,	/* the quota's bookkeeping */
	K_WM_METRIC, K_WM_INTERVAL, K_WM_HIGH, K_WM_MID, K_WM_LOW,
	K_WM_NEXT_CHECK,
	K_FILTER_Y, K_FILTER_N,	/* add a filter of type v, matching Y or N */
	K_MATCHING, K_FILTER_TYPE, K_ADDR_START, K_ADDR_END, K_TARGET_IDX,
	K_NO_FILTER,		/* destroy the last filter */
	K_NEXT_INTERVAL,	/* the quota's reset interval is over */
	K_SAMPLE_US, K_SAMPLES,	/* ctx->attrs.sample_us, ctx->passed_samples */
	K_NO_OP,		/* operations without apply_scheme */
	K_SCHEME,		/* add a scheme of action v, for the knobs after */
	K_MODE,			/* what the operations report: a rec_mode */
	K_REAGE,		/* the regions get their first ages back */
};

#define NR_KNOBS	6

struct knob {
	enum knob_id id;
	unsigned long v;
};

/* Let the current quota reset interval of @s be over. */
static void end_quota_interval(struct damos *s)
{
	s->quota.charged_from -= msecs_to_jiffies(s->quota.reset_interval_ms) + 1;
}

#define SET(field, v)	((field) = (v), true)

/* Turn @k of @s (or of @ctx, if not NULL); false if there is no such knob. */
static bool set_knob(struct kunit *test, struct damon_ctx *ctx,
		     struct damos *s, const struct knob *k)
{
	struct damos_filter *f = NULL;
	unsigned long v = k->v;

	if (!list_empty(&s->filters))
		f = list_last_entry(&s->filters, struct damos_filter, list);
	if (k->id > K_FILTER_N && k->id <= K_NO_FILTER)
		KUNIT_ASSERT_NOT_NULL(test, f);
	if (k->id >= K_SAMPLE_US)
		KUNIT_ASSERT_NOT_NULL(test, ctx);

	switch (k->id) {
	case K_ACTION:		return SET(s->action, v);
	case K_APPLY_US:	return SET(s->apply_interval_us, v);
	case K_TARGET_NID:	return SET(s->target_nid, (int)v);
	case K_MIN_SZ:		return SET(s->pattern.min_sz, v);
	case K_MAX_SZ:		return SET(s->pattern.max_sz, v);
	case K_MIN_NR:		return SET(s->pattern.min_nr_accesses, v);
	case K_MAX_NR:		return SET(s->pattern.max_nr_accesses, v);
	case K_MIN_AGE:		return SET(s->pattern.min_age, v);
	case K_MAX_AGE:		return SET(s->pattern.max_age, v);
	case K_QUOTA_MS:	return SET(s->quota.ms, v);
	case K_QUOTA_SZ:	return SET(s->quota.sz, v);
	case K_RESET_MS:	return SET(s->quota.reset_interval_ms, v);
	case K_W_SZ:		return SET(s->quota.weight_sz, v);
	case K_W_NR:		return SET(s->quota.weight_nr_accesses, v);
	case K_W_AGE:		return SET(s->quota.weight_age, v);
	case K_CHARGED:		return SET(s->quota.charged_sz, v);
	case K_TOTAL_SZ:	return SET(s->quota.total_charged_sz, v);
	case K_TOTAL_NS:	return SET(s->quota.total_charged_ns, v);
	case K_WM_METRIC:	return SET(s->wmarks.metric, v);
	case K_WM_INTERVAL:	return SET(s->wmarks.interval_us, v);
	case K_WM_HIGH:		return SET(s->wmarks.high, v);
	case K_WM_MID:		return SET(s->wmarks.mid, v);
	case K_WM_LOW:		return SET(s->wmarks.low, v);
	case K_WM_NEXT_CHECK:	return SET(s->wmarks.next_check_ns, v);
	case K_MATCHING:	return SET(f->matching, v);
	case K_FILTER_TYPE:	return SET(f->type, v);
	case K_ADDR_START:	return SET(f->addr_range.start, v);
	case K_ADDR_END:	return SET(f->addr_range.end, v);
	case K_TARGET_IDX:	return SET(f->target_idx, v);
	case K_SAMPLE_US:	return SET(ctx->attrs.sample_us, v);
	case K_SAMPLES:		return SET(ctx->passed_samples, v);
	case K_NO_OP:		return SET(ctx->ops.apply_scheme, NULL);
	case K_FILTER_Y:
	case K_FILTER_N:
		f = damos_filter_alloc(v, k->id == K_FILTER_Y);
		KUNIT_ASSERT_NOT_NULL(test, f);
		damos_filter_append(s, f);
		return true;
	case K_NO_FILTER:
		damos_filter_free(f);
		return true;
	case K_NEXT_INTERVAL:
		end_quota_interval(s);
		return true;
	default:
		return false;
	}
}

/* Turn the knobs of @set (NR_KNOBS at the most) of @s. */
static void set_knobs(struct kunit *test, struct damos *s,
		      const struct knob *set)
{
	const struct knob *k;

	for (k = set; k < set + NR_KNOBS && k->id; k++)
		KUNIT_ASSERT_TRUE_MSG(test, set_knob(test, NULL, s, k),
				      "knob %d", k->id);
}

/* ------------------------------------------------------ quota accounting */

/* A time: @ivals reset intervals and @d jiffies after a case's start. */
struct when {
	unsigned long ivals;
	long d;
};

#define T(ivals, d)	{ ivals, d }

/*
 * A step: turn the knobs, renew the quota at @at, then expect @esz,
 * @exceeds and, of a limited quota, @charged and the interval's start.
 */
struct quota_step {
	const char *what;
	struct knob set[NR_KNOBS];
	struct when at;
	unsigned long esz, charged;
	struct when from;
	unsigned long exceeds;
};

/* A scheme set up with @setup, and steps on it from @start jiffies on. */
struct quota_case {
	const char *desc;
	unsigned long start;
	struct knob setup[NR_KNOBS];
	struct quota_step steps[7];
};

static const struct quota_case quota_cases[] = {
	{ "no quota: unlimited, never exceeded", 1000, { { K_CHARGED, SZ_1G } },
	  { { "at first", {}, T(0, 0), ULONG_MAX },
	    { "100 s later", {}, T(100, 0), ULONG_MAX } } },
	{ "a bytes quota across reset intervals", 5000,
	  { { K_QUOTA_SZ, SZ_1M + 100 }, { K_RESET_MS, 500 } },
	  { { "the first opens an interval; whole pages", {}, T(0, 0), SZ_1M, 0, T(0, 0), 0 },
	    { "used up: within the interval nothing renews",
	      { { K_CHARGED, SZ_1M } }, T(0, 1), SZ_1M, SZ_1M, T(0, 0), 0 },
	    { "nor at its last jiffy", {}, T(1, -1), SZ_1M, SZ_1M, T(0, 0), 0 },
	    { "one interval on: a new budget", {}, T(1, 0), SZ_1M, 0, T(1, 0), 1 },
	    { "an interval that did not use it all up is no exceed",
	      { { K_CHARGED, SZ_512K } }, T(2, 3), SZ_1M, 0, T(2, 3), 1 },
	    { "a renewal long overdue counts the used-up interval once",
	      { { K_CHARGED, SZ_1M } }, T(12, 3), SZ_1M, 0, T(12, 3), 2 },
	    { "less than a page is one page, never nothing",
	      { { K_QUOTA_SZ, 100 } }, T(13, 3), PAGE_SIZE, 0, T(13, 3), 2 } } },
	{ "intervals are measured in jiffies, which wrap", ULONG_MAX - 2,
	  { { K_QUOTA_SZ, SZ_64K }, { K_RESET_MS, 1000 } },
	  { { "the first renewal", {}, T(0, 0), SZ_64K, 0, T(0, 0), 0 },
	    { "wrapped, early", { { K_CHARGED, SZ_64K } }, T(1, -1), SZ_64K, SZ_64K, T(0, 0), 0 },
	    { "wrapped, renewed", {}, T(1, 0), SZ_64K, 0, T(1, 0), 1 } } },
	{ "the time quota becomes a size quota at the measured speed", 100,
	  { { K_QUOTA_MS, 3 }, { K_RESET_MS, 1000 } },
	  { { "nothing measured: 1 MiB per ms assumed", {}, T(0, 0), 3 * SZ_1M, 0, T(0, 0), 0 },
	    { "8 MiB in 4 ms: 2 MiB per ms",
	      { { K_TOTAL_SZ, 8 * SZ_1M }, { K_TOTAL_NS, 4 * NSEC_PER_MSEC } },
	      T(1, 0), 6 * SZ_1M, 0, T(1, 0), 0 },
	    /* with a size quota too, the smaller one holds */
	    { "5 MiB", { { K_QUOTA_SZ, 5 * SZ_1M } }, T(2, 0), 5 * SZ_1M, 0, T(2, 0), 0 },
	    { "7 MiB", { { K_QUOTA_SZ, 7 * SZ_1M } }, T(3, 0), 6 * SZ_1M, 0, T(3, 0), 0 },
	    { "an extremely slow action still gets one page per interval",
	      { { K_QUOTA_SZ, 0 }, { K_TOTAL_SZ, 100 }, { K_TOTAL_NS, NSEC_PER_SEC } },
	      T(4, 0), PAGE_SIZE, 0, T(4, 0), 0 } } },
	/* 32 TiB in 2^25 ms (about 9 hours) is 1 MiB per ms */
	{ "the speed estimate of a long-running scheme", 100,
	  { { K_QUOTA_MS, 1 }, { K_TOTAL_SZ, 1UL << 45 },
	    { K_TOTAL_NS, (1UL << 25) * NSEC_PER_MSEC } },
	  { { "tens of TiB acted on", {}, T(0, 0), SZ_1M, 0, T(0, 0), 0 } } },
};

KUNIT_ARRAY_PARAM_DESC(quota, quota_cases, desc);

static unsigned long jiffies_at(const struct quota_case *c, struct when w,
				unsigned long ival)
{
	return c->start + w.ivals * ival + w.d;
}

static void damos_test_quota(struct kunit *test)
{
	const struct quota_case *c = test->param_value;
	struct damos *s = damos_scheme_alloc();
	const struct quota_step *st;
	struct damos_quota *q;
	unsigned long ival;

	KUNIT_ASSERT_NOT_NULL(test, s);
	q = &s->quota;
	set_knobs(test, s, c->setup);
	ival = msecs_to_jiffies(q->reset_interval_ms);
	KUNIT_ASSERT_GT(test, ival, 1UL);
	for (st = c->steps; st < c->steps + ARRAY_SIZE(c->steps) && st->what;
	     st++) {
		set_knobs(test, s, st->set);
		damos_quota_renew(s, jiffies_at(c, st->at, ival));
		KUNIT_EXPECT_EQ_MSG(test, q->esz, st->esz, "%s", st->what);
		KUNIT_EXPECT_EQ_MSG(test, s->stat.qt_exceeds, st->exceeds,
				    "%s", st->what);
		if (!q->sz && !q->ms)
			continue;	/* no interval to speak of */
		KUNIT_EXPECT_EQ_MSG(test, q->charged_sz, st->charged, "%s",
				    st->what);
		KUNIT_EXPECT_EQ_MSG(test, q->charged_from,
				    jiffies_at(c, st->from, ival), "%s", st->what);
	}
	damos_scheme_free(s);
}

/*
 * ms is valid up to 2^64-1: more time never means a smaller budget.
 * (At the assumed 2^20 bytes per ms, 2^44 ms is 2^64 bytes.)
 */
static void damos_test_quota_ms_large(struct kunit *test)
{
	struct damos *s = damos_scheme_alloc();
	unsigned long esz_smaller;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.ms = 1UL << 43;
	damos_quota_renew(s, 100);
	esz_smaller = s->quota.esz;
	KUNIT_EXPECT_GE(test, esz_smaller, (unsigned long)SZ_1G);

	damos_scheme_free(s);
	s = damos_scheme_alloc();
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->quota.ms = 1UL << 44;
	damos_quota_renew(s, 100);
	KUNIT_EXPECT_GE(test, s->quota.esz, esz_smaller);
	damos_scheme_free(s);
}

/* ------------------------------------------------------ watermarks */

/* Watermarks, then metrics each with the state expected after it. */
struct wmarks_case {
	const char *desc;
	struct damos_watermarks w;
	struct {
		unsigned long metric;
		enum { WM_END, WM_OFF, WM_ON } then;
	} steps[20];
};

static const struct wmarks_case wmarks_cases[] = {
	{ "hysteresis", { .metric = DAMOS_WMARK_FREE_MEM_RATE,
			  .high = 600, .mid = 400, .low = 200, .active = false },
	  { { 500, WM_OFF }, { 600, WM_OFF }, { 401, WM_OFF },	/* inactive: stays off */
	    { 400, WM_ON },			/* at mid: on */
	    { 500, WM_ON }, { 600, WM_ON },	/* active up to high: stays on */
	    { 601, WM_OFF },			/* above high: off */
	    { 600, WM_OFF }, { 450, WM_OFF }, { 401, WM_OFF },	/* under high: still off */
	    { 300, WM_ON }, { 200, WM_ON },	/* below mid, at low: on */
	    { 199, WM_OFF },			/* below low: off */
	    { 200, WM_ON },			/* back at low (and below mid): on */
	    { 1000, WM_OFF }, { 1000, WM_OFF }, { 399, WM_ON }, { 0, WM_OFF } } },
	{ "low == mid == high: active exactly at that value",
	  { .metric = DAMOS_WMARK_FREE_MEM_RATE,
	    .high = 500, .mid = 500, .low = 500, .active = true },
	  { { 500, WM_ON }, { 501, WM_OFF }, { 500, WM_ON }, { 499, WM_OFF },
	    { 500, WM_ON } } },
};

KUNIT_ARRAY_PARAM_DESC(wmarks, wmarks_cases, desc);

static void damos_test_wmarks(struct kunit *test)
{
	const struct wmarks_case *c = test->param_value;
	struct damos_watermarks w = c->w;
	unsigned int i;
	bool on;

	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].then; i++) {
		on = c->steps[i].then == WM_ON;
		KUNIT_EXPECT_EQ_MSG(test, damos_wmarks_step(&w, c->steps[i].metric),
				    on, "step %u, metric %lu", i,
				    c->steps[i].metric);
		KUNIT_EXPECT_EQ_MSG(test, w.active, on, "step %u, metric %lu",
				    i, c->steps[i].metric);
	}
}

/* ------------------------------------------------------ validation */

/* One scheme, changed step by step: damos_validate() after each change. */
static const struct {
	const char *what;
	struct knob set[NR_KNOBS];
	int ret;
} validate_steps[] = {
	{ "the defaults", {}, 0 },
	{ "no such action", { { K_ACTION, NR_DAMOS_ACTIONS } }, -EINVAL },
	{ "pageout", { { K_ACTION, DAMOS_PAGEOUT } }, 0 },
	/* each min above its max; min == max is fine */
	{ "min_sz > max_sz", { { K_MIN_SZ, P(2) }, { K_MAX_SZ, P(1) } }, -EINVAL },
	{ "min_sz = max_sz", { { K_MAX_SZ, P(2) } }, 0 },
	{ "min_nr > max_nr", { { K_MIN_NR, 3 }, { K_MAX_NR, 2 } }, -EINVAL },
	{ "min_nr = max_nr", { { K_MAX_NR, 3 } }, 0 },
	{ "min_age > max_age", { { K_MIN_AGE, 10 }, { K_MAX_AGE, 9 } }, -EINVAL },
	{ "min_age = max_age", { { K_MAX_AGE, 10 } }, 0 },
	/* a quota needs a reset interval */
	{ "a size quota, no reset interval",
	  { { K_QUOTA_SZ, SZ_1M }, { K_RESET_MS, 0 } }, -EINVAL },
	{ "a time quota, no reset interval",
	  { { K_QUOTA_SZ, 0 }, { K_QUOTA_MS, 10 } }, -EINVAL },
	{ "a time quota, a reset interval", { { K_RESET_MS, 1 } }, 0 },
	/* watermarks: checked only with a metric */
	{ "low > mid > high, no metric",
	  { { K_WM_LOW, 500 }, { K_WM_MID, 400 }, { K_WM_HIGH, 300 } }, 0 },
	{ "low > mid > high",
	  { { K_WM_METRIC, DAMOS_WMARK_FREE_MEM_RATE } }, -EINVAL },
	{ "low <= mid, mid > high", { { K_WM_LOW, 300 } }, -EINVAL },
	{ "300 <= 400 <= 400", { { K_WM_HIGH, 400 } }, 0 },
	{ "low > mid", { { K_WM_LOW, 401 } }, -EINVAL },
	{ "low = mid = high", { { K_WM_LOW, 400 } }, 0 },
	{ "no check interval", { { K_WM_INTERVAL, 0 } }, -EINVAL },
	{ "a check interval", { { K_WM_INTERVAL, 1 } }, 0 },
	{ "no such metric", { { K_WM_METRIC, NR_DAMOS_WMARK_METRICS } }, -EINVAL },
	/* filters: addr needs start < end */
	{ "an empty addr range",
	  { { K_WM_METRIC, DAMOS_WMARK_NONE }, { K_FILTER_Y, DAMOS_FILTER_ADDR },
	    { K_ADDR_START, P(5) }, { K_ADDR_END, P(5) } }, -EINVAL },
	{ "an addr range ending before its start", { { K_ADDR_END, P(4) } }, -EINVAL },
	{ "an addr range of a byte", { { K_ADDR_END, P(5) + 1 } }, 0 },
	{ "target and anon filters too",
	  { { K_FILTER_N, DAMOS_FILTER_TARGET }, { K_FILTER_Y, DAMOS_FILTER_ANON } }, 0 },
	{ "no such filter type", { { K_FILTER_TYPE, NR_DAMOS_FILTER_TYPES } }, -EINVAL },
	{ "that filter gone", { { K_NO_FILTER } }, 0 },
	/* memcg filters need their cgroup; young ones nothing */
	{ "a memcg filter without a cgroup", { { K_FILTER_Y, DAMOS_FILTER_MEMCG } },
	  -EINVAL },
	{ "a young filter instead", { { K_FILTER_TYPE, DAMOS_FILTER_YOUNG } }, 0 },
	/* the migrate actions need a node with memory; node 0 has */
	{ "migrate_cold without a node", { { K_ACTION, DAMOS_MIGRATE_COLD } }, -EINVAL },
	{ "migrate_cold to node 0", { { K_TARGET_NID, 0 } }, 0 },
	{ "migrate_hot to node 0", { { K_ACTION, DAMOS_MIGRATE_HOT } }, 0 },
	{ "migrate_hot to a node beyond MAX_NUMNODES",
	  { { K_TARGET_NID, MAX_NUMNODES } }, -EINVAL },
	{ "migrate_hot to node -2", { { K_TARGET_NID, -2 } }, -EINVAL },
	{ "a node is no matter for pageout", { { K_ACTION, DAMOS_PAGEOUT } }, 0 },
};

static void damos_test_validate(struct kunit *test)
{
	struct damos *s = damos_scheme_alloc();
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(validate_steps); i++) {
		set_knobs(test, s, validate_steps[i].set);
		KUNIT_EXPECT_EQ_MSG(test, damos_validate(s),
				    validate_steps[i].ret, "%s",
				    validate_steps[i].what);
	}
	damos_scheme_free(s);
}

static void damos_test_defaults(struct kunit *test)
{
	struct damos *s = damos_scheme_alloc();

	KUNIT_ASSERT_NOT_NULL(test, s);
	/* the defaults configfs-layout.md lists */
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_STAT);
	KUNIT_EXPECT_EQ(test, s->apply_interval_us, 0UL);
	KUNIT_EXPECT_EQ(test, s->target_nid, NUMA_NO_NODE);
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
	damos_scheme_free(s);
}

/* Every action's name, both ways; and strings that name none. */
static const struct {
	const char *name;
	enum damos_action action;	/* NR_DAMOS_ACTIONS: none */
} action_names[] = {
	{ "willneed", DAMOS_WILLNEED },
	{ "cold", DAMOS_COLD },
	{ "pageout", DAMOS_PAGEOUT },
	{ "hugepage", DAMOS_HUGEPAGE },
	{ "nohugepage", DAMOS_NOHUGEPAGE },
	{ "stat", DAMOS_STAT },
	{ "lru_prio", DAMOS_LRU_PRIO },
	{ "lru_deprio", DAMOS_LRU_DEPRIO },
	{ "migrate_hot", DAMOS_MIGRATE_HOT },
	{ "migrate_cold", DAMOS_MIGRATE_COLD },
	{ "migrate", NR_DAMOS_ACTIONS },
	{ "PAGEOUT", NR_DAMOS_ACTIONS },
	{ "page", NR_DAMOS_ACTIONS },
	{ "", NR_DAMOS_ACTIONS },
};

static void damos_test_action_names(struct kunit *test)
{
	enum damos_action a;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(action_names); i++) {
		ret = damos_action_of(action_names[i].name, &a);
		if (action_names[i].action == NR_DAMOS_ACTIONS) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", action_names[i].name);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", action_names[i].name);
		KUNIT_EXPECT_EQ_MSG(test, a, action_names[i].action, "%s",
				    action_names[i].name);
		KUNIT_EXPECT_STREQ(test, damos_action_name(action_names[i].action),
				   action_names[i].name);
	}
	KUNIT_EXPECT_NULL(test, damos_action_name(NR_DAMOS_ACTIONS));
}

/* ------------------------------------------ damos_apply_schemes, fake ops */

#define STR_SZ	512

/* Append a span to @buf, a string of STR_SZ bytes; @action or nr and age. */
static void str_add(char *buf, unsigned int t, unsigned long start,
		    unsigned long end, const char *action, unsigned int nr,
		    unsigned int age)
{
	size_t len = strlen(buf);

	if (action)
		scnprintf(buf + len, STR_SZ - len, "%u:[%#lx, %#lx) %s; ", t,
			  start, end, action);
	else
		scnprintf(buf + len, STR_SZ - len, "%u:[%#lx, %#lx) nr %u age %u; ",
			  t, start, end, nr, age);
}

enum rec_mode { REC_ALL, REC_HALF, REC_NONE };

/* What the fake apply_scheme was asked to do: target:[start, end) action */
static struct {
	char calls[STR_SZ];
	unsigned int nr_calls;
	enum rec_mode mode;
} rec;

static unsigned long rec_apply_scheme(struct damon_ctx *ctx,
				      struct damon_target *t,
				      unsigned long start, unsigned long end,
				      struct damos *s)
{
	struct damon_target *it;
	unsigned int tidx = 0;

	damon_for_each_target(it, ctx) {
		if (it == t)
			break;
		tidx++;
	}
	str_add(rec.calls, tidx, start, end, damos_action_name(s->action), 0, 0);
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
	struct damon_ctx *ctx = damon_ctx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	memset(&rec, 0, sizeof(rec));
	ctx->ops = (struct damon_operations) {
		.id = DAMON_OPS_PADDR,
		.name = "recorder",
		.apply_scheme = rec_apply_scheme,
		.actions = GENMASK(NR_DAMOS_ACTIONS - 1, 0),
	};
	return ctx;
}

static struct damos *add_scheme(struct kunit *test, struct damon_ctx *ctx,
				enum damos_action action)
{
	struct damos *s = damos_scheme_alloc();

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->action = action;
	damos_scheme_append(ctx, s);
	return s;
}

static void expect_stat(struct kunit *test, const char *what,
			const struct damos_stat *got,
			const struct damos_stat *want)
{
	KUNIT_EXPECT_EQ_MSG(test, got->nr_tried, want->nr_tried, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->sz_tried, want->sz_tried, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->nr_applied, want->nr_applied, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->sz_applied, want->sz_applied, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, got->qt_exceeds, want->qt_exceeds, "%s", what);
}

/*
 * Pages [@start, @end) of the @t-th target: a region with @nr accesses and
 * @age, or (in a step's calls) what an apply_scheme call was for.
 */
struct span {
	unsigned int t;
	unsigned long start, end;
	unsigned int nr, age;
};

#define NR_REGIONS	5
#define NR_CALLS	4
#define NR_STEPS	6

#define THP	IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE)
/* the statistics of each scheme of the context, in order */
#define STATS(...)	((const struct damos_stat []){ __VA_ARGS__ })
/* all regions, target after target, in address order */
#define REGIONS(...)	((const struct span []){ __VA_ARGS__, {} })

/*
 * A step: turn the knobs of @set and run damos_apply_schemes() once; then
 * the operations were asked to apply the first scheme's action to @calls,
 * in order and no more, and, where given, @stat, @regions and (with @esz)
 * the first scheme's quota are so.  The first scheme is active unless
 * @inactive.
 */
struct apply_step {
	const char *what;
	struct knob set[NR_KNOBS];
	struct span calls[NR_CALLS];
	const struct damos_stat *stat;
	const struct span *regions;
	unsigned long esz, charged;
	bool inactive;
};

/*
 * A context with @regions (an end of 0 ends them) and a pageout scheme
 * whose quota intervals end only when a step says so, set up with @setup;
 * then the steps.
 */
struct apply_case {
	const char *desc;
	struct span regions[NR_REGIONS];
	struct knob setup[NR_KNOBS];
	struct apply_step steps[NR_STEPS];
};

static const struct apply_case apply_cases[] = {
	{ "only the regions that match the pattern",
	  { { 0, 0, 10, 0, 3 }, { 0, 10, 20, 5, 3 }, { 0, 20, 30, 0, 7 }, { 0, 40, 41, 0, 7 } },
	  { { K_MAX_NR, 0 }, { K_MIN_SZ, P(2) } },
	  { { "the idle ones large enough; their ages restart", {},
	      { { 0, 0, 10 }, { 0, 20, 30 } }, STATS({ 2, P(20), 2, P(20) }),
	      REGIONS({ 0, 0, 10, 0, 0 }, { 0, 10, 20, 5, 3 }, { 0, 20, 30, 0, 0 },
		      { 0, 40, 41, 0, 7 }) },
	    { "the stats add up over runs", {}, { { 0, 0, 10 }, { 0, 20, 30 } },
	      STATS({ 4, P(40), 4, P(40) }) } } },
	{ "stat only counts",
	  { { 0, 0, 10, 0, 3 }, { 0, 10, 20, 5, 3 }, { 0, 20, 30, 0, 7 } },
	  { { K_ACTION, DAMOS_STAT }, { K_MAX_NR, 0 } },
	  { { "no calls, the ages kept", {}, {}, STATS({ 2, P(20), 2, P(20) }),
	      REGIONS({ 0, 0, 10, 0, 3 }, { 0, 10, 20, 5, 3 }, { 0, 20, 30, 0, 7 }) },
	    { "without any apply_scheme in the operations", { { K_NO_OP } }, {},
	      STATS({ 4, P(40), 4, P(40) }) } } },
	{ "hugepage, which the operations apply only with THP",
	  { { 0, 0, 10, 3, 0 } },
	  { { K_ACTION, DAMOS_HUGEPAGE } },
	  { { "acted on with THP, left alone without", {}, { { 0, 0, 10 * THP } },
	      STATS({ THP, P(10) * THP, THP, P(10) * THP }) } } },
	{ "operations without apply_scheme only run stat schemes",
	  { { 0, 0, 10, 3, 5 } },
	  { { K_NO_OP } },
	  { { "pageout: not run, the age kept", {}, {}, STATS({}),
	      REGIONS({ 0, 0, 10, 3, 5 }) } } },
	{ "nr/sz_applied count what the operations report",
	  { { 0, 0, 10 }, { 0, 10, 14 } },
	  { { K_ACTION, DAMOS_COLD }, { K_MODE, REC_HALF } },
	  { { "half of it", {}, { { 0, 0, 10 }, { 0, 10, 14 } }, STATS({ 2, P(14), 2, P(7) }) },
	    { "nothing", { { K_MODE, REC_NONE } }, { { 0, 0, 10 }, { 0, 10, 14 } },
	      STATS({ 4, P(28), 2, P(7) }) } } },
	{ "a bytes quota per reset interval",
	  { { 0, 0, 10 }, { 0, 10, 20 }, { 0, 20, 30 } },
	  { { K_QUOTA_SZ, P(15) } },
	  { { "the region that would overrun it split, its first part acted on",
	      {}, { { 0, 0, 10 }, { 0, 10, 15 } }, STATS({ 2, P(15), 2, P(15) }),
	      REGIONS({ 0, 0, 10 }, { 0, 10, 15 }, { 0, 15, 20 }, { 0, 20, 30 }),
	      P(15), P(15) },
	    { "same interval: the budget is spent", {}, {}, STATS({ 2, P(15), 2, P(15) }) },
	    { "same interval again", {}, {}, STATS({ 2, P(15), 2, P(15) }) },
	    { "next interval: a new budget, the used-up one counted",
	      { { K_NEXT_INTERVAL } }, { { 0, 0, 10 }, { 0, 10, 15 } },
	      STATS({ 4, P(30), 4, P(30), 1 }) },
	    { "a budget larger than everything: all of it",
	      { { K_QUOTA_SZ, P(100) }, { K_NEXT_INTERVAL } },
	      { { 0, 0, 10 }, { 0, 10, 15 }, { 0, 15, 20 }, { 0, 20, 30 } },
	      STATS({ 8, P(60), 8, P(60), 2 }), NULL, P(100), P(30) },
	    { "an interval not used up is no exceed", { { K_NEXT_INTERVAL } },
	      { { 0, 0, 10 }, { 0, 10, 15 }, { 0, 15, 20 }, { 0, 20, 30 } },
	      STATS({ 12, P(90), 12, P(90), 2 }) } } },
	/* acted-on regions are still taken in address order */
	{ "under a quota the highest scores go first",
	  { { 0, 0, 10, 5, 0 }, { 0, 10, 20, 0, 200 }, { 0, 20, 30, 0, 0 } },
	  { { K_QUOTA_SZ, P(10) } },
	  { { "pageout, room for one: the one idle for longest", {},
	      { { 0, 10, 20 } }, NULL,
	      REGIONS({ 0, 0, 10, 5, 0 }, { 0, 10, 20 }, { 0, 20, 30 }) },
	    { "room for two: both idle ones, not the warm one",
	      { { K_REAGE }, { K_QUOTA_SZ, P(20) }, { K_NEXT_INTERVAL } },
	      { { 0, 10, 20 }, { 0, 20, 30 } }, NULL,
	      REGIONS({ 0, 0, 10, 5, 0 }, { 0, 10, 20 }, { 0, 20, 30 }) },
	    { "willneed wants the warm one first",
	      { { K_ACTION, DAMOS_WILLNEED }, { K_QUOTA_SZ, P(10) }, { K_REAGE },
		{ K_NEXT_INTERVAL } }, { { 0, 0, 10 } } } } },
	{ "under a quota with weight on size alone, the largest first",
	  { { 0, 0, 4 }, { 0, 4, 6 }, { 0, 6, 38, 20, 0 }, { 0, 38, 46 } },
	  { { K_QUOTA_SZ, P(32) }, { K_W_SZ, 1 }, { K_W_NR, 0 }, { K_W_AGE, 0 } },
	  { { "the hot one, the largest", {}, { { 0, 6, 38 } } },
	    { "the default weights, room for 14 pages: the three idle ones",
	      { { K_QUOTA_SZ, P(14) }, { K_W_SZ, 0 }, { K_W_NR, 1 }, { K_W_AGE, 1 },
		{ K_NEXT_INTERVAL } },
	      { { 0, 0, 4 }, { 0, 4, 6 }, { 0, 38, 46 } } } } },
	/*
	 * When the budget covers all of the best regions and part of the
	 * next ones, the best are all acted on, wherever they lie; only the
	 * rest of the budget goes to lower scores.
	 */
	{ "under a quota regions are taken by priority, not address",
	  { { 0, 0, 20, 20, 0 }, { 0, 20, 30 } },
	  { { K_QUOTA_SZ, P(15) } },
	  { { "all of the idle region, what is left of the hot one before it",
	      {}, { { 0, 0, 5 }, { 0, 20, 30 } }, STATS({ 2, P(15), 2, P(15) }) } } },
	{ "regions of every target compete for one budget",
	  { { 0, 0, 8, 3, 0 }, { 1, 0, 8, 0, 100 } },
	  { { K_QUOTA_SZ, P(8) } },
	  { { "the colder one", {}, { { 1, 0, 8 } }, STATS({ 1, P(8), 1, P(8) }) } } },
	{ "an addr filter",
	  { { 0, 0, 20 } },
	  { { K_FILTER_N, DAMOS_FILTER_ADDR }, { K_ADDR_START, P(5) }, { K_ADDR_END, P(12) } },
	  { { "matching N: only inside, the region cut at its bounds, no more tried",
	      {}, { { 0, 5, 12 } }, STATS({ 1, P(7), 1, P(7) }),
	      REGIONS({ 0, 0, 5 }, { 0, 5, 12 }, { 0, 12, 20 }) },
	    { "matching Y: everything but the range", { { K_MATCHING, true } },
	      { { 0, 0, 5 }, { 0, 12, 20 } }, STATS({ 3, P(20), 3, P(20) }) } } },
	{ "an addr range over several regions cuts the outer ones only",
	  { { 0, 0, 10 }, { 0, 10, 20 }, { 0, 20, 30 } },
	  { { K_FILTER_N, DAMOS_FILTER_ADDR }, { K_ADDR_START, P(5) }, { K_ADDR_END, P(25) } },
	  { { "over three regions", {}, { { 0, 5, 10 }, { 0, 10, 20 }, { 0, 20, 25 } },
	      NULL, REGIONS({ 0, 0, 5 }, { 0, 5, 10 }, { 0, 10, 20 }, { 0, 20, 25 },
			    { 0, 25, 30 }) },
	    { "bounds on region boundaries cut nothing",
	      { { K_ADDR_START, P(10) }, { K_ADDR_END, P(20) } }, { { 0, 10, 20 } },
	      NULL, REGIONS({ 0, 0, 5 }, { 0, 5, 10 }, { 0, 10, 20 }, { 0, 20, 25 },
			    { 0, 25, 30 }) } } },
	/* configfs-layout.md: [ALIGN_DOWN(start), ALIGN(end)) */
	{ "an addr filter works on whole pages",
	  { { 0, 0, 20 } },
	  { { K_FILTER_Y, DAMOS_FILTER_ADDR }, { K_ADDR_START, P(5) + 100 },
	    { K_ADDR_END, P(12) - 100 } },
	  { { "matching Y: the widened range kept out", {}, { { 0, 0, 5 }, { 0, 12, 20 } } },
	    { "matching N: only the widened range", { { K_MATCHING, false } }, { { 0, 5, 12 } } },
	    { "a range within one page is that page",
	      { { K_ADDR_START, P(15) + 1 }, { K_ADDR_END, P(15) + 2 } },
	      { { 0, 15, 16 } } } } },
	/* configfs takes 0 .. 2^64-1 */
	{ "an addr_end of ULONG_MAX does not wrap to 0",
	  { { 0, 0, 20 } },
	  { { K_FILTER_N, DAMOS_FILTER_ADDR }, { K_ADDR_START, P(5) },
	    { K_ADDR_END, ULONG_MAX } },
	  { { "matching N", {}, { { 0, 5, 20 } } },
	    { "matching Y", { { K_MATCHING, true } }, { { 0, 0, 5 } } } } },
	{ "a target filter",
	  { { 0, 0, 4 }, { 1, 0, 6 }, { 2, 0, 8 } },
	  { { K_FILTER_Y, DAMOS_FILTER_TARGET }, { K_TARGET_IDX, 1 } },
	  { { "matching Y: every target but the second", {},
	      { { 0, 0, 4 }, { 2, 0, 8 } }, STATS({ 2, P(12), 2, P(12) }) },
	    { "matching N: only the second", { { K_MATCHING, false } },
	      { { 1, 0, 6 } }, STATS({ 3, P(18), 3, P(18) }) } } },
	{ "filters add up: memory any of them keeps out is left alone",
	  { { 0, 0, 10 }, { 1, 0, 10 } },
	  { { K_FILTER_N, DAMOS_FILTER_TARGET }, { K_TARGET_IDX, 1 },
	    { K_FILTER_Y, DAMOS_FILTER_ADDR }, { K_ADDR_START, P(2) }, { K_ADDR_END, P(8) } },
	  { { "the second target, outside the range", {}, { { 1, 0, 2 }, { 1, 8, 10 } } } } },
	{ "anon filters are the operations' business: the core passes the range",
	  { { 0, 0, 10 } },
	  { { K_FILTER_Y, DAMOS_FILTER_ANON } },
	  { { "all of it", {}, { { 0, 0, 10 } }, STATS({ 1, P(10), 1, P(10) }) } } },
	{ "watermarks",
	  { { 0, 0, 10 } },
	  { { K_WM_METRIC, DAMOS_WMARK_FREE_MEM_RATE } },
	  { { "a window no free memory rate above 0 per mille is in", {}, {},
	      STATS({}), .inactive = true },
	    { "the whole range: on at the next check",
	      { { K_WM_HIGH, 1000 }, { K_WM_MID, 1000 }, { K_WM_NEXT_CHECK, 0 } },
	      { { 0, 0, 10 } } } } },
	{ "apply_interval_us: at the first aggregation at least that long after",
	  { { 0, 0, 10 } },
	  { { K_ACTION, DAMOS_STAT }, { K_APPLY_US, 4 * DAMON_DEFAULT_SAMPLE_US } },
	  { { "0 samples", { { K_SAMPLES, 0 } }, {}, STATS({ 1, P(10), 1, P(10) }) },
	    { "3 samples", { { K_SAMPLES, 3 } }, {}, STATS({ 1, P(10), 1, P(10) }) },
	    { "4 samples", { { K_SAMPLES, 4 } }, {}, STATS({ 2, P(20), 2, P(20) }) },
	    { "9 samples", { { K_SAMPLES, 9 } }, {}, STATS({ 3, P(30), 3, P(30) }) },
	    { "12 samples", { { K_SAMPLES, 12 } }, {}, STATS({ 3, P(30), 3, P(30) }) },
	    { "13 samples", { { K_SAMPLES, 13 } }, {}, STATS({ 4, P(40), 4, P(40) }) } } },
	{ "an apply interval near 2^64 us means hardly ever, never always",
	  { { 0, 0, 10 } },
	  { { K_ACTION, DAMOS_STAT }, { K_SAMPLE_US, 1 }, { K_APPLY_US, ULONG_MAX } },
	  { { "5 samples", { { K_SAMPLES, 5 } }, {}, STATS({ 1, P(10), 1, P(10) }) },
	    { "6 samples", { { K_SAMPLES, 6 } }, {}, STATS({ 1, P(10), 1, P(10) }) },
	    { "10^6 samples", { { K_SAMPLES, 1000000 } }, {}, STATS({ 1, P(10), 1, P(10) }) } } },
	{ "schemes run in order; a later one sees the ages an earlier one reset",
	  { { 0, 0, 10, 0, 50 }, { 0, 10, 20, 9, 50 } },
	  { { K_MAX_NR, 0 }, { K_SCHEME, DAMOS_STAT }, { K_MIN_AGE, 10 } },
	  { { "pageout the idle one; stat the other one only", {}, { { 0, 0, 10 } },
	      STATS({ 1, P(10), 1, P(10) }, { 1, P(10), 1, P(10) }) } } },
};

KUNIT_ARRAY_PARAM_DESC(apply, apply_cases, desc);

/* Turn the knobs of @set, of the first scheme of @ctx and after. */
static void set_run_knobs(struct kunit *test, struct damon_ctx *ctx,
			  const struct apply_case *c, const struct knob *set)
{
	struct damos *s = list_first_entry(&ctx->schemes, struct damos, list);
	const struct span *g = c->regions;
	struct damon_target *t;
	struct damon_region *r;
	const struct knob *k;

	for (k = set; k < set + NR_KNOBS && k->id; k++) {
		if (k->id == K_SCHEME) {
			s = add_scheme(test, ctx, k->v);
		} else if (k->id == K_MODE) {
			rec.mode = k->v;
		} else if (k->id == K_REAGE) {
			damon_for_each_target(t, ctx) {
				damon_for_each_region(r, t) {
					KUNIT_ASSERT_NE(test, g->end, 0UL);
					r->age = (g++)->age;
				}
			}
		} else {
			KUNIT_ASSERT_TRUE_MSG(test, set_knob(test, ctx, s, k),
					      "knob %d", k->id);
		}
	}
}

/* After @st: the calls and the rest of what it expects, as made and wanted. */
static void expect_step(struct kunit *test, struct damon_ctx *ctx,
			const struct apply_step *st)
{
	struct damos *s, *s0 = list_first_entry(&ctx->schemes, struct damos, list);
	char *got = kunit_kzalloc(test, STR_SZ, GFP_KERNEL);
	char *want = kunit_kzalloc(test, STR_SZ, GFP_KERNEL);
	const struct damos_stat *stat = st->stat;
	const struct span *g = st->calls;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int ti = 0;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (; g < st->calls + NR_CALLS && g->end; g++)
		str_add(want, g->t, P(g->start), P(g->end),
			damos_action_name(s0->action), 0, 0);
	KUNIT_EXPECT_EQ_MSG(test, rec.nr_calls, (unsigned int)(g - st->calls),
			    "%s: calls", st->what);
	KUNIT_EXPECT_STREQ_MSG(test, rec.calls, want, "%s: calls", st->what);
	if (stat) {
		damon_for_each_scheme(s, ctx)
			expect_stat(test, st->what, &s->stat, stat++);
	}
	if (st->esz) {
		KUNIT_EXPECT_EQ_MSG(test, s0->quota.esz, st->esz, "%s", st->what);
		KUNIT_EXPECT_EQ_MSG(test, s0->quota.charged_sz, st->charged, "%s",
				    st->what);
	}
	KUNIT_EXPECT_EQ_MSG(test, s0->wmarks.active, !st->inactive, "%s",
			    st->what);
	if (!st->regions)
		return;
	want[0] = '\0';
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t)
			str_add(got, ti, r->start, r->end, NULL, r->nr_accesses,
				r->age);
		ti++;
	}
	for (g = st->regions; g->end; g++)
		str_add(want, g->t, P(g->start), P(g->end), NULL, g->nr, g->age);
	KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s: regions", st->what);
}

static void damos_test_apply(struct kunit *test)
{
	const struct apply_case *c = test->param_value;
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_target *targets[NR_REGIONS];
	const struct apply_step *st;
	unsigned int nr_targets = 0;
	struct damon_region *r;
	const struct span *g;
	struct damos *s;

	for (g = c->regions; g < c->regions + NR_REGIONS && g->end; g++) {
		KUNIT_ASSERT_LT(test, g->t, NR_REGIONS);
		while (nr_targets <= g->t) {
			targets[nr_targets] = damon_target_alloc();
			KUNIT_ASSERT_NOT_NULL(test, targets[nr_targets]);
			damon_target_append(ctx, targets[nr_targets++]);
		}
		r = damon_region_alloc(P(g->start), P(g->end));
		KUNIT_ASSERT_NOT_NULL(test, r);
		r->nr_accesses = g->nr;
		r->age = g->age;
		damon_region_append(r, targets[g->t]);
	}
	s = add_scheme(test, ctx, DAMOS_PAGEOUT);
	s->quota.reset_interval_ms = 60000;
	set_run_knobs(test, ctx, c, c->setup);
	for (st = c->steps; st < c->steps + NR_STEPS && st->what; st++) {
		set_run_knobs(test, ctx, c, st->set);
		rec.nr_calls = 0;
		rec.calls[0] = '\0';
		damos_apply_schemes(ctx);
		expect_step(test, ctx, st);
	}
	damon_ctx_free(ctx);
}

/*
 * Operations apply the actions of their mask, hugepage and nohugepage only
 * with THP, stat always.
 */
static void damos_test_ops_can_apply(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);

	KUNIT_EXPECT_EQ(test, damon_ops_can_apply(&ctx->ops, DAMOS_HUGEPAGE), (bool)THP);
	KUNIT_EXPECT_EQ(test, damon_ops_can_apply(&ctx->ops, DAMOS_NOHUGEPAGE), (bool)THP);
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_PAGEOUT));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_LRU_PRIO));
	ctx->ops.actions &= ~BIT(DAMOS_LRU_PRIO);
	KUNIT_EXPECT_FALSE(test, damon_ops_can_apply(&ctx->ops, DAMOS_LRU_PRIO));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_LRU_DEPRIO));
	ctx->ops.actions = 0;
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_STAT));
	ctx->ops.actions = GENMASK(NR_DAMOS_ACTIONS - 1, 0);
	ctx->ops.apply_scheme = NULL;
	KUNIT_EXPECT_FALSE(test, damon_ops_can_apply(&ctx->ops, DAMOS_PAGEOUT));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_apply(&ctx->ops, DAMOS_STAT));
	damon_ctx_free(ctx);
}

/*
 * The core filters by address and target for any operations; the other
 * types only operations that list them, and that apply schemes at all.
 * Every type has its name.
 */
static void damos_test_ops_can_filter(struct kunit *test)
{
	static const char * const names[NR_DAMOS_FILTER_TYPES] = {
		"anon", "addr", "target", "memcg", "young",
	};
	struct damon_ctx *ctx = rec_ctx(test);
	struct damon_operations *ops = &ctx->ops;
	int i;

	ops->filters = BIT(DAMOS_FILTER_ANON);
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_ANON));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_ADDR));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_TARGET));
	KUNIT_EXPECT_FALSE(test, damon_ops_can_filter(ops, DAMOS_FILTER_MEMCG));
	KUNIT_EXPECT_FALSE(test, damon_ops_can_filter(ops, DAMOS_FILTER_YOUNG));
	KUNIT_EXPECT_FALSE(test, damon_ops_can_filter(ops, NR_DAMOS_FILTER_TYPES));
	ops->filters = BIT(DAMOS_FILTER_YOUNG) | BIT(DAMOS_FILTER_MEMCG);
	KUNIT_EXPECT_FALSE(test, damon_ops_can_filter(ops, DAMOS_FILTER_ANON));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_YOUNG));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_MEMCG));
	ops->apply_scheme = NULL;
	KUNIT_EXPECT_FALSE(test, damon_ops_can_filter(ops, DAMOS_FILTER_YOUNG));
	KUNIT_EXPECT_TRUE(test, damon_ops_can_filter(ops, DAMOS_FILTER_ADDR));
	for (i = 0; i < NR_DAMOS_FILTER_TYPES; i++)
		KUNIT_EXPECT_STREQ(test, damos_filter_type_name(i), names[i]);
	KUNIT_EXPECT_NULL(test, damos_filter_type_name(NR_DAMOS_FILTER_TYPES));
	damon_ctx_free(ctx);
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
	struct damos *src = damos_scheme_alloc();
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

	src->action = DAMOS_MIGRATE_COLD;
	src->target_nid = 0;
	src->quota.sz = SZ_1M;
	src->quota.reset_interval_ms = 60000;
	src->apply_interval_us = s->apply_interval_us;
	damos_commit(ctx, s, src);
	KUNIT_EXPECT_EQ(test, s->action, DAMOS_MIGRATE_COLD);
	KUNIT_EXPECT_EQ(test, s->target_nid, 0);
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
	damos_scheme_free(src);
	damon_ctx_free(ctx);
}

/*
 * Whether the kdamond may stop sampling: only with schemes, every one of
 * them inactive, whatever its action; then the earliest next check.  The
 * checks are due far in the future, so nothing is measured.
 */
static void damos_test_wmarks_all_inactive(struct kunit *test)
{
	struct damon_ctx *ctx = rec_ctx(test);
	struct damos *a, *b;
	u64 next = 0;

	KUNIT_EXPECT_FALSE(test, damos_wmarks_all_inactive(ctx, &next));
	a = add_scheme(test, ctx, DAMOS_STAT);
	b = add_scheme(test, ctx, DAMOS_HUGEPAGE);
	ctx->ops.actions = 0;	/* b cannot be applied; it counts */
	a->wmarks.metric = DAMOS_WMARK_FREE_MEM_RATE;
	a->wmarks.active = false;
	a->wmarks.next_check_ns = U64_MAX - 1;
	KUNIT_EXPECT_FALSE(test, damos_wmarks_all_inactive(ctx, &next));
	b->wmarks = a->wmarks;
	b->wmarks.next_check_ns = U64_MAX - 2;
	KUNIT_EXPECT_TRUE(test, damos_wmarks_all_inactive(ctx, &next));
	KUNIT_EXPECT_EQ(test, next, U64_MAX - 2);
	b->wmarks.active = true;
	KUNIT_EXPECT_FALSE(test, damos_wmarks_all_inactive(ctx, &next));
	damon_ctx_free(ctx);
}

static struct kunit_case damos_cases[] = {
	KUNIT_CASE_PARAM(damos_test_pattern_bounds, pattern_gen_params),
	KUNIT_CASE_PARAM(damos_test_score_rank, rank_gen_params),
	KUNIT_CASE_PARAM(damos_test_score_value, value_gen_params),
	KUNIT_CASE_PARAM(damos_test_quota, quota_gen_params),
	KUNIT_CASE(damos_test_quota_ms_large),
	KUNIT_CASE_PARAM(damos_test_wmarks, wmarks_gen_params),
	KUNIT_CASE(damos_test_validate),
	KUNIT_CASE(damos_test_defaults),
	KUNIT_CASE(damos_test_action_names),
	KUNIT_CASE_PARAM(damos_test_apply, apply_gen_params),
	KUNIT_CASE(damos_test_ops_can_apply),
	KUNIT_CASE(damos_test_ops_can_filter),
	KUNIT_CASE(damos_test_commit_keeps_quota),
	KUNIT_CASE(damos_test_wmarks_all_inactive),
	{}
};

static struct kunit_suite damos_suite = {
	.name = "damon_schemes",
	.test_cases = damos_cases,
};

kunit_test_suite(damos_suite);
