// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS: data access monitoring-based operation schemes.
 *
 * A scheme names an access pattern and an action.  After each aggregation
 * (and each apply interval), the kdamond applies the action to every region
 * whose size, access count and age match the pattern, then restarts the
 * region's age.  Three controls make that safe to leave running:
 *
 *  - quotas bound the bytes (and, through the measured speed, the time) a
 *    scheme may act on per reset interval; when there is more to do, the
 *    regions with the highest priority score go first; quota goals
 *    (goals.c) tune the bytes to reach a value of a metric;
 *  - watermarks switch a scheme on and off with a system metric;
 *  - filters keep memory out: address ranges and targets here in the core,
 *    anonymous memory in the operations (which see the mappings).
 *
 * Everything here runs in the kdamond, on objects only it touches.
 */

#define pr_fmt(fmt) "damos: " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "internal.h"

#include <trace/events/damon.h>

static const char * const damos_action_names[NR_DAMOS_ACTIONS] = {
	[DAMOS_WILLNEED] = "willneed",
	[DAMOS_COLD] = "cold",
	[DAMOS_PAGEOUT] = "pageout",
	[DAMOS_HUGEPAGE] = "hugepage",
	[DAMOS_NOHUGEPAGE] = "nohugepage",
	[DAMOS_STAT] = "stat",
	[DAMOS_LRU_PRIO] = "lru_prio",
	[DAMOS_LRU_DEPRIO] = "lru_deprio",
	[DAMOS_MIGRATE_HOT] = "migrate_hot",
	[DAMOS_MIGRATE_COLD] = "migrate_cold",
};

static const char * const damos_filter_type_names[NR_DAMOS_FILTER_TYPES] = {
	[DAMOS_FILTER_ANON] = "anon",
	[DAMOS_FILTER_ADDR] = "addr",
	[DAMOS_FILTER_TARGET] = "target",
	[DAMOS_FILTER_MEMCG] = "memcg",
	[DAMOS_FILTER_YOUNG] = "young",
};

const char *damos_action_name(enum damos_action action)
{
	return action < NR_DAMOS_ACTIONS ? damos_action_names[action] : NULL;
}

int damos_action_of(const char *name, enum damos_action *action)
{
	int i = match_string(damos_action_names, NR_DAMOS_ACTIONS, name);

	if (i < 0)
		return -EINVAL;
	*action = i;
	return 0;
}

const char *damos_filter_type_name(enum damos_filter_type type)
{
	return type < NR_DAMOS_FILTER_TYPES ? damos_filter_type_names[type] :
					      NULL;
}

/* Whether the migrate actions can move memory to node @nid now. */
bool damos_target_nid_valid(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && node_state(nid, N_MEMORY);
}

/* ------------------------------------------------------------ objects */

/*
 * The defaults of a scheme's parameters, the one place they are written:
 * every region matches, no quota, always active (no watermark metric).
 */
void damos_default_params(struct damos_access_pattern *pattern,
			  struct damos_quota *quota,
			  struct damos_watermarks *wmarks)
{
	*pattern = (struct damos_access_pattern) {
		.max_sz = ULONG_MAX,
		.max_nr_accesses = UINT_MAX,
		.max_age = UINT_MAX,
	};
	*quota = (struct damos_quota) {
		.reset_interval_ms = 1000,
		.weight_nr_accesses = 1,
		.weight_age = 1,
		.esz = ULONG_MAX,
	};
	*wmarks = (struct damos_watermarks) {
		.metric = DAMOS_WMARK_NONE,
		.interval_us = 5000000,
		.active = true,
	};
}

struct damos *damos_scheme_alloc(void)
{
	struct damos *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->action = DAMOS_STAT;
	s->target_nid = NUMA_NO_NODE;
	damos_default_params(&s->pattern, &s->quota, &s->wmarks);
	INIT_LIST_HEAD(&s->filters);
	INIT_LIST_HEAD(&s->goals);
	INIT_LIST_HEAD(&s->list);
	return s;
}

void damos_scheme_append(struct damon_ctx *ctx, struct damos *s)
{
	list_add_tail(&s->list, &ctx->schemes);
}

static void damos_free_goals(struct damos *s)
{
	struct damos_quota_goal *g, *tmp;

	damon_for_each_in_safe(g, tmp, &s->goals)
		damos_goal_free(g);
}

/* Unlink @s from its context, if any, and free it with its filters. */
void damos_scheme_free(struct damos *s)
{
	struct damos_filter *f, *tmp;

	damos_for_each_filter_safe(f, tmp, s)
		damos_filter_free(f);
	damos_free_goals(s);
	list_del(&s->list);
	kfree(s);
}

struct damos_filter *damos_filter_alloc(enum damos_filter_type type,
					bool matching)
{
	struct damos_filter *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	f->type = type;
	f->matching = matching;
	INIT_LIST_HEAD(&f->list);
	return f;
}

void damos_filter_append(struct damos *s, struct damos_filter *f)
{
	list_add_tail(&f->list, &s->filters);
}

void damos_filter_free(struct damos_filter *f)
{
	list_del(&f->list);
	mem_cgroup_put(f->memcg);
	kfree(f);
}

static bool damos_quota_limited(const struct damos *s)
{
	return s->quota.ms || s->quota.sz || !list_empty(&s->goals);
}

/* Whether the scheme's settings make sense together; -EINVAL if not. */
int damos_validate(const struct damos *s)
{
	const struct damos_access_pattern *p = &s->pattern;
	const struct damos_watermarks *w = &s->wmarks;
	const struct damos_quota_goal *g;
	const struct damos_filter *f;

	if (s->action >= NR_DAMOS_ACTIONS)
		return -EINVAL;
	if (p->min_sz > p->max_sz || p->min_nr_accesses > p->max_nr_accesses ||
	    p->min_age > p->max_age)
		return -EINVAL;
	if (damos_quota_limited(s) && !s->quota.reset_interval_ms)
		return -EINVAL;
	if (w->metric >= NR_DAMOS_WMARK_METRICS)
		return -EINVAL;
	if (w->metric != DAMOS_WMARK_NONE &&
	    (!w->interval_us || w->low > w->mid || w->mid > w->high))
		return -EINVAL;
	list_for_each_entry(f, &s->filters, list) {
		if (f->type >= NR_DAMOS_FILTER_TYPES)
			return -EINVAL;
		if (f->type == DAMOS_FILTER_ADDR &&
		    f->addr_range.start >= f->addr_range.end)
			return -EINVAL;
		if (f->type == DAMOS_FILTER_MEMCG && !f->memcg)
			return -EINVAL;
	}
	damos_for_each_goal(g, s) {
		if (!damos_goal_metric_available(g->metric) ||
		    !g->target_value)
			return -EINVAL;
		if (damos_goal_metric_per_node(g->metric) &&
		    !damos_target_nid_valid(g->nid))
			return -EINVAL;
		if (damos_goal_metric_per_memcg(g->metric) && !g->memcg)
			return -EINVAL;
	}
	if ((s->action == DAMOS_MIGRATE_HOT ||
	     s->action == DAMOS_MIGRATE_COLD) &&
	    !damos_target_nid_valid(s->target_nid))
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------ matching */

bool damos_pattern_match(const struct damos_access_pattern *p,
			 const struct damon_region *r)
{
	unsigned long sz = damon_sz_region(r);

	return p->min_sz <= sz && sz <= p->max_sz &&
	       p->min_nr_accesses <= r->nr_accesses &&
	       r->nr_accesses <= p->max_nr_accesses &&
	       p->min_age <= r->age && r->age <= p->max_age;
}

/*
 * Whether the core filters of @s keep @r (of the target with index @tidx)
 * out.  Address filters must not cut across @r: see damos_cut_at_filters().
 */
bool damos_core_filtered(const struct damos *s, unsigned int tidx,
			 const struct damon_region *r)
{
	const struct damos_filter *f;
	bool is;

	damos_for_each_filter(f, s) {
		switch (f->type) {
		case DAMOS_FILTER_ADDR:
			/* whole pages, as damos_cut_at_filters() cuts */
			is = ALIGN_DOWN(f->addr_range.start,
					DAMON_MIN_REGION) <= r->start &&
			     (f->addr_range.end > ULONG_MAX - DAMON_MIN_REGION ||
			      r->end <= ALIGN(f->addr_range.end,
					      DAMON_MIN_REGION));
			break;
		case DAMOS_FILTER_TARGET:
			is = f->target_idx == tidx;
			break;
		default:
			continue;	/* the operations' business */
		}
		if (is == f->matching)
			return true;
	}
	return false;
}

/* Cut @t's regions at the bounds of @s's address filters. */
static void damos_cut_at_filters(struct damos *s, struct damon_target *t)
{
	struct damos_filter *f;

	damos_for_each_filter(f, s) {
		if (f->type != DAMOS_FILTER_ADDR)
			continue;
		damon_split_at_addr(t, ALIGN_DOWN(f->addr_range.start,
						  DAMON_MIN_REGION));
		damon_split_at_addr(t, ALIGN(f->addr_range.end,
					     DAMON_MIN_REGION));
	}
}

/* ------------------------------------------------------------ watermarks */

/*
 * One step of the watermark state machine for a measured @metric: above
 * high or below low the scheme goes inactive; an inactive scheme comes back
 * only once the metric is down to mid (and not below low).  Between mid and
 * high the state stays as it was: that gap is the hysteresis.
 */
bool damos_wmarks_step(struct damos_watermarks *w, unsigned long metric)
{
	if (metric > w->high || metric < w->low)
		w->active = false;
	else if (metric <= w->mid)
		w->active = true;
	return w->active;
}

static unsigned long damos_wmark_metric(enum damos_wmark_metric metric)
{
	switch (metric) {
	case DAMOS_WMARK_FREE_MEM_RATE:
		return global_zone_page_state(NR_FREE_PAGES) * 1000 /
		       totalram_pages();
	default:
		return 0;
	}
}

static bool damos_wmarks_active(struct damos_watermarks *w)
{
	u64 now;

	if (w->metric == DAMOS_WMARK_NONE)
		return true;
	now = ktime_get_ns();
	if (now < w->next_check_ns)
		return w->active;
	/* an interval too long for u64 nanoseconds means "never again" */
	if (check_mul_overflow((u64)w->interval_us, (u64)NSEC_PER_USEC,
			       &w->next_check_ns) ||
	    check_add_overflow(w->next_check_ns, now, &w->next_check_ns))
		w->next_check_ns = U64_MAX;
	return damos_wmarks_step(w, damos_wmark_metric(w->metric));
}

/*
 * Whether @ctx has schemes and their watermarks, measured again where due,
 * keep every one of them inactive: then there is nothing to monitor for.
 * If so, *@next_check_ns is the earliest time one of them is due to be
 * measured again (ktime).  Every scheme counts, whatever its action and
 * whether the operations can apply it.
 */
bool damos_wmarks_all_inactive(struct damon_ctx *ctx, u64 *next_check_ns)
{
	struct damos *s;

	if (list_empty(&ctx->schemes))
		return false;
	*next_check_ns = U64_MAX;
	damon_for_each_scheme(s, ctx) {
		if (damos_wmarks_active(&s->wmarks))
			return false;
		*next_check_ns = min(*next_check_ns, s->wmarks.next_check_ns);
	}
	return true;
}

/* ------------------------------------------------------------ quotas */

/*
 * The size quota in effect, as users see it: 0 without a quota, or before
 * its first interval has started.
 */
unsigned long damos_quota_effective_sz(const struct damos *s)
{
	return damos_quota_limited(s) && s->quota.charged_from ?
	       s->quota.esz : 0;
}

/* Actions that want the coldest memory first. */
static bool damos_wants_cold(enum damos_action action)
{
	return action == DAMOS_PAGEOUT || action == DAMOS_COLD ||
	       action == DAMOS_LRU_DEPRIO || action == DAMOS_MIGRATE_COLD;
}

/*
 * The priority of @r for @s, 0 .. DAMOS_MAX_SCORE: a weighted mean of three
 * sub-scores, each 0 .. 100.
 *  - size: log2 of the size, from one page (0) to 1 TiB and more (100);
 *    larger regions first, whatever the action.
 *  - frequency: nr_accesses per possible sample.
 *  - age: 50 for a new region; an old accessed region is hotter (up to
 *    100), an old idle one colder (down to 0), on a log2 scale of seconds.
 * For actions that want cold memory (pageout, cold, lru_deprio,
 * migrate_cold), frequency
 * and age are turned around, so the coldest regions score highest.
 */
unsigned int damos_score(const struct damon_ctx *ctx,
			 const struct damon_region *r, const struct damos *s)
{
	const struct damos_quota *q = &s->quota;
	unsigned long samples = max(ctx->attrs.aggr_us / ctx->attrs.sample_us,
				    1UL);
	unsigned long sz = damon_sz_region(r);
	unsigned int sz_sub, freq_sub, age_sub, weights;
	unsigned long age_s;

	weights = q->weight_sz + q->weight_nr_accesses + q->weight_age;
	if (!weights)
		return DAMOS_MAX_SCORE;

	sz_sub = ilog2(max(sz, DAMON_MIN_REGION)) - ilog2(DAMON_MIN_REGION);
	sz_sub = min(sz_sub * 100 / (40 - ilog2(DAMON_MIN_REGION)), 100U);
	freq_sub = min_t(unsigned long, r->nr_accesses * 100UL / samples, 100);
	/* in whole seconds, of intervals of any length (even under 1 ms) */
	if (check_mul_overflow((unsigned long)r->age, ctx->attrs.aggr_us,
			       &age_s))
		age_s = ULONG_MAX;
	age_s /= USEC_PER_SEC;
	age_sub = min_t(unsigned int, ilog2(age_s + 1) * 5, 50);
	age_sub = r->nr_accesses ? 50 + age_sub : 50 - age_sub;
	if (damos_wants_cold(s->action)) {
		freq_sub = 100 - freq_sub;
		age_sub = 100 - age_sub;
	}
	return (q->weight_sz * sz_sub + q->weight_nr_accesses * freq_sub +
		q->weight_age * age_sub) / weights;
}

/*
 * The effective size quota: the size quota, or less if the time quota at
 * the speed measured so far, or the goals, allow less; unlimited without
 * any of them.  With @step (a new reset interval), the goals' loop moves
 * first.
 */
static void damos_quota_set_esz(struct damos *s, bool step)
{
	struct damos_quota *q = &s->quota;
	unsigned long esz = ULONG_MAX;
	u64 bytes_per_ms, esz_ms;

	if (!damos_quota_limited(s)) {
		q->esz = ULONG_MAX;
		return;
	}
	if (q->sz)
		esz = q->sz;
	if (q->ms) {
		/* before any measurement, assume 1 GiB/s */
		bytes_per_ms = q->total_charged_ns ?
			mul_u64_u64_div_u64(q->total_charged_sz, NSEC_PER_MSEC,
					    q->total_charged_ns) : SZ_1M;
		if (check_mul_overflow(bytes_per_ms, (u64)q->ms, &esz_ms))
			esz_ms = ULONG_MAX;
		esz = min_t(u64, esz, esz_ms);
	}
	if (step)
		damos_goals_step(s, esz);
	if (!list_empty(&s->goals))
		esz = min(esz, q->goal_esz ?: DAMOS_GOAL_MIN_ESZ);
	q->esz = max(ALIGN_DOWN(esz, DAMON_MIN_REGION), DAMON_MIN_REGION);
}

/*
 * Start a new reset interval when due: count a used-up quota, renew the
 * budget, and derive the effective size quota from the time quota, the
 * speed measured so far and the goals.
 */
void damos_quota_renew(struct damos *s, unsigned long now)
{
	struct damos_quota *q = &s->quota;

	if (!damos_quota_limited(s)) {
		q->esz = ULONG_MAX;
		return;
	}
	if (q->charged_from &&
	    time_before(now, q->charged_from +
			msecs_to_jiffies(q->reset_interval_ms)))
		return;
	if (q->charged_from && q->charged_sz >= q->esz)
		s->stat.qt_exceeds++;
	q->charged_from = now ? now : 1;
	q->charged_sz = 0;
	damos_quota_set_esz(s, true);
}

/*
 * Find the lowest score worth acting on: going down from the top score,
 * the matching regions' sizes add up to what is left of the quota.  The
 * regions above that score fit in the quota; those at it share what the
 * higher ones leave, so that a region at the lowest score can never take
 * the budget of a better one that comes later in address order.
 */
static void damos_quota_set_min_score(struct damon_ctx *ctx, struct damos *s)
{
	struct damos_quota *q = &s->quota;
	unsigned long left = q->esz - min(q->charged_sz, q->esz), sum = 0;
	struct damon_target *t;
	struct damon_region *r;
	int score;

	memset(q->histogram, 0, sizeof(q->histogram));
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (damos_pattern_match(&s->pattern, r))
				q->histogram[damos_score(ctx, r, s)] +=
					damon_sz_region(r);
			cond_resched();
		}
	}
	for (score = DAMOS_MAX_SCORE; ; score--) {
		sum += q->histogram[score];
		if (sum >= left || !score)
			break;
	}
	q->min_score = score;
	q->min_score_left = left - min(sum - q->histogram[score], left);
}

/* ------------------------------------------------------------ applying */

/* damon:damos_before_apply; one context per kdamond, so ctx_idx is 0. */
static void damos_trace_before_apply(struct damon_ctx *ctx, struct damos *s,
				     unsigned int tidx, struct damon_region *r,
				     unsigned int nr_regions)
{
	unsigned int sidx = 0;
	struct damos *it;

	damon_for_each_scheme(it, ctx) {
		if (it == s)
			break;
		sidx++;
	}
	trace_damos_before_apply(0, sidx, tidx, r, nr_regions);
}

/* Apply @s to @r, a region of @t (the @tidx-th target) that matched. */
static void damos_apply_region(struct damon_ctx *ctx, struct damon_target *t,
			       unsigned int tidx, struct damon_region *r,
			       struct damos *s)
{
	struct damos_quota *q = &s->quota;
	unsigned long sz = damon_sz_region(r), applied, budget;
	unsigned int score;
	u64 t0;

	if (damos_core_filtered(s, tidx, r))
		return;
	if (damos_quota_limited(s)) {
		score = damos_score(ctx, r, s);
		if (q->charged_sz >= q->esz || score < q->min_score)
			return;
		budget = q->esz - q->charged_sz;
		if (score == q->min_score)
			budget = min(budget, q->min_score_left);
		/* act on the part the quota still covers */
		if (sz > budget) {
			sz = ALIGN_DOWN(budget, DAMON_MIN_REGION);
			if (!sz) {
				if (budget == q->esz - q->charged_sz)
					q->charged_sz = q->esz;
				return;
			}
			damon_split_region_at(t, r, sz);
			sz = damon_sz_region(r);
		}
		if (score == q->min_score)
			q->min_score_left -= sz;
	}

	if (trace_damos_before_apply_enabled())
		damos_trace_before_apply(ctx, s, tidx, r, t->nr_regions);
	s->stat.nr_tried++;
	s->stat.sz_tried += sz;
	if (s->action == DAMOS_STAT) {
		applied = sz;
	} else {
		t0 = ktime_get_ns();
		applied = ctx->ops.apply_scheme(ctx, t, r->start, r->end, s);
		q->total_charged_ns += ktime_get_ns() - t0;
		q->total_charged_sz += sz;
		r->age = 0;	/* what was measured no longer holds */
	}
	q->charged_sz += sz;
	if (applied) {
		s->stat.nr_applied++;
		s->stat.sz_applied += applied;
	}
}

/* Whether @s is due at this aggregation, per its apply interval. */
static bool damos_due(struct damon_ctx *ctx, struct damos *s)
{
	if (!s->apply_interval_us)
		return true;
	if (ctx->passed_samples < s->next_apply_sample)
		return false;
	if (check_add_overflow(ctx->passed_samples,
			       max(s->apply_interval_us / ctx->attrs.sample_us,
				   1UL), &s->next_apply_sample))
		s->next_apply_sample = ULONG_MAX;	/* hardly ever again */
	return true;
}

/* In the kdamond, after each aggregation: apply every scheme that is due. */
void damos_apply_schemes(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r, *tmp;
	struct damos *s;
	unsigned int tidx;

	damon_for_each_scheme(s, ctx) {
		if (!damos_due(ctx, s) || !damos_wmarks_active(&s->wmarks))
			continue;
		if (!damon_ops_can_apply(&ctx->ops, s->action))
			continue;
		damos_quota_renew(s, jiffies);
		if (damos_quota_limited(s))
			damos_quota_set_min_score(ctx, s);

		tidx = 0;
		damon_for_each_target(t, ctx) {
			damos_cut_at_filters(s, t);
			damon_for_each_region_safe(r, tmp, t) {
				if (damos_pattern_match(&s->pattern, r))
					damos_apply_region(ctx, t, tidx, r, s);
				cond_resched();
			}
			tidx++;
		}
	}
}

/**
 * damos_commit() - give a scheme of a running context new settings.
 * @ctx:	the context @dst belongs to.
 * @dst:	the running scheme.
 * @src:	a checked scheme with the new settings; its filters move to
 *		@dst.
 *
 * What the scheme did survives: its statistics, the accounting of the
 * current quota interval (bytes charged and when the interval started, so
 * that a commit never hands out a fresh budget; a changed limit applies
 * to what is left of the interval), the measured speed of the action, the
 * quota the goals reached (unless the scheme has no goals any more), and
 * the watermark state unless the metric changed (the metric is measured
 * again at once).  The goals themselves are replaced by @src's; PSI is
 * measured afresh from the next interval.  The apply schedule is kept in time; a shorter apply
 * interval is due within its new length.
 * Runs in the kdamond (or on a context no kdamond runs yet).
 */
void damos_commit(struct damon_ctx *ctx, struct damos *dst, struct damos *src)
{
	struct damos_quota *q = &dst->quota;
	struct damos_filter *f, *tmp;
	bool active;

	dst->pattern = src->pattern;
	dst->action = src->action;
	dst->target_nid = src->target_nid;
	if (dst->apply_interval_us != src->apply_interval_us)
		dst->next_apply_sample =
			damon_resched(ctx->passed_samples,
				      dst->next_apply_sample,
				      ctx->attrs.sample_us, ctx->attrs.sample_us,
				      src->apply_interval_us);
	dst->apply_interval_us = src->apply_interval_us;

	q->ms = src->quota.ms;
	q->sz = src->quota.sz;
	q->reset_interval_ms = src->quota.reset_interval_ms;
	q->weight_sz = src->quota.weight_sz;
	q->weight_nr_accesses = src->quota.weight_nr_accesses;
	q->weight_age = src->quota.weight_age;
	damos_free_goals(dst);
	list_splice_init(&src->goals, &dst->goals);
	if (list_empty(&dst->goals))
		q->goal_esz = 0;
	q->psi_mem_some_ns = 0;
	if (q->charged_from)
		damos_quota_set_esz(dst, false);	/* the new limit, now */

	/* the state carries over a change of bounds, not of metric */
	if (dst->wmarks.metric == src->wmarks.metric)
		active = dst->wmarks.active;
	else
		active = src->wmarks.metric == DAMOS_WMARK_NONE;
	dst->wmarks = src->wmarks;
	dst->wmarks.active = active;
	dst->wmarks.next_check_ns = 0;	/* measure with the new bounds */

	damos_for_each_filter_safe(f, tmp, dst)
		damos_filter_free(f);
	list_splice_init(&src->filters, &dst->filters);
}
