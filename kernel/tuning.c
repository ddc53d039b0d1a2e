// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring intervals auto-tuning.
 *
 * A fixed sampling interval suits one access rate: on memory that is
 * mostly idle few samples see an access and the snapshot says little at
 * full cost; on busy memory every sample does and hot cannot be told from
 * hotter.  With an intervals goal the kdamond measures, in each
 * aggregation window, how much of what it could have observed it did
 * observe: the mean of nr_accesses over its maximum (samples per window),
 * weighted by region size, in basis points.  Every @aggrs windows it
 * scores the mean of those against @access_bp and scales the sampling
 * interval as the quota goals scale a quota (damon_feed_step()):
 *
 *	next = sample_us * (2 - score / 10000)
 *
 * but by half or twice at most per step, within [min_sample_us,
 * max_sample_us].  Observations grow with the sampling interval (a page
 * has longer to be touched between two checks), so too few ask for longer
 * intervals, too many for shorter ones; near the goal the steps shrink.
 * The aggregation interval follows, keeping the ratio the user set (so a
 * window keeps the same number of samples); the update interval stays as
 * set, even below the aggregation interval.  Ages and counts are rescaled
 * as for any change of the intervals (damon_apply_attrs()).
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/log2.h>
#include <linux/math64.h>

#include "internal.h"

#include <trace/events/damon.h>

/*
 * What this window observed of what it could have, in basis points.
 * Weights are region sizes in pages, scaled down on huge address spaces
 * so that the weighted sum keeps within 64 bits.
 */
unsigned long damon_tune_observed_bp(struct damon_ctx *ctx)
{
	unsigned long max_nr = max(ctx->attrs.aggr_us / ctx->attrs.sample_us,
				   1UL);
	u64 pages = 0, weights = 0, sum = 0, w;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int shift = 0;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			pages += damon_sz_region(r) >> PAGE_SHIFT;
	if (pages >> 48)
		shift = ilog2(pages) - 47;
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			w = (damon_sz_region(r) >> PAGE_SHIFT) >> shift;
			weights += w;
			sum += w * div_u64((u64)min_t(unsigned long,
						      r->nr_accesses, max_nr) *
					   DAMON_FEED_MET, max_nr);
		}
		cond_resched();
	}
	return weights ? div64_u64(sum, weights) : 0;
}

/* The sampling interval after @cur at @score. */
unsigned long damon_tune_next_sample(unsigned long cur, unsigned long score,
				     unsigned long min, unsigned long max)
{
	u64 next = damon_feed_step(cur, score);
	u64 twice = cur > U64_MAX / 2 ? U64_MAX : (u64)cur * 2;

	next = clamp_t(u64, next, cur / 2, twice);
	return clamp_t(u64, next, min, max);
}

/*
 * After each aggregation, before the counters restart: record the window,
 * and every @aggrs windows move the intervals one step.
 */
void damon_tune_intervals(struct damon_ctx *ctx)
{
	const struct damon_intervals_goal *g = &ctx->attrs.intervals_goal;
	const struct damon_attrs *base = &ctx->tune_base;
	struct damon_attrs attrs = ctx->attrs;
	unsigned long observed, score;
	u64 ratio, aggr_us;

	if (!damon_tuning_intervals(&ctx->attrs))
		return;
	ctx->tune_sum_bp += damon_tune_observed_bp(ctx);
	if (++ctx->tune_nr_aggrs < g->aggrs)
		return;
	observed = ctx->tune_sum_bp / ctx->tune_nr_aggrs;
	ctx->tune_sum_bp = 0;
	ctx->tune_nr_aggrs = 0;

	score = damon_feed_score(observed, g->access_bp);
	attrs.sample_us = damon_tune_next_sample(attrs.sample_us, score,
						 g->min_sample_us,
						 g->max_sample_us);
	if (attrs.sample_us == ctx->attrs.sample_us)
		return;
	/* the ratio as set (below 2^32: validated); saturate, never wrap */
	ratio = div64_u64(base->aggr_us, base->sample_us);
	if (attrs.sample_us > U64_MAX / (ratio + 1))
		aggr_us = U64_MAX;
	else
		aggr_us = mul_u64_u64_div_u64(attrs.sample_us, base->aggr_us,
					      base->sample_us);
	attrs.aggr_us = clamp_t(u64, aggr_us, attrs.sample_us, ULONG_MAX);
	damon_apply_attrs(ctx, &attrs);
	trace_damon_monitor_intervals_tune(attrs.sample_us);
}
