// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON core objects: regions, targets, contexts, attributes, and the
 * registry of operations sets.  The monitoring thread is in kdamond.c and
 * the adaptive regions algorithms in regions.c.
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/bits.h>
#include <linux/init.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

static struct kmem_cache *damon_regions_slab __ro_after_init;

/* Registered operations, indexed by id; an entry without ->init is empty. */
static struct damon_operations damon_ops_table[NR_DAMON_OPS];
static DEFINE_MUTEX(damon_ops_lock);

static const char * const damon_ops_names[NR_DAMON_OPS] = {
	[DAMON_OPS_VADDR] = "vaddr",
	[DAMON_OPS_FVADDR] = "fvaddr",
	[DAMON_OPS_PADDR] = "paddr",
};

/* ------------------------------------------------------------ regions */

struct damon_region *damon_region_alloc(unsigned long start, unsigned long end)
{
	struct damon_region *r;

	r = kmem_cache_zalloc(damon_regions_slab, GFP_KERNEL);
	if (!r)
		return NULL;
	r->start = start;
	r->end = end;
	r->sampling_addr = start;
	r->last_start = start;
	r->last_end = end;
	INIT_LIST_HEAD(&r->list);
	return r;
}

/* Insert @r after @pos, or first when @pos is NULL. */
void damon_region_insert(struct damon_region *r, struct damon_region *pos,
			 struct damon_target *t)
{
	list_add(&r->list, pos ? &pos->list : &t->regions);
	t->nr_regions++;
}

void damon_region_append(struct damon_region *r, struct damon_target *t)
{
	list_add_tail(&r->list, &t->regions);
	t->nr_regions++;
}

void damon_region_free(struct damon_region *r, struct damon_target *t)
{
	list_del(&r->list);
	t->nr_regions--;
	kmem_cache_free(damon_regions_slab, r);
}

/* ------------------------------------------------------------ targets */

struct damon_target *damon_target_alloc(void)
{
	struct damon_target *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	INIT_LIST_HEAD(&t->regions);
	INIT_LIST_HEAD(&t->list);
	return t;
}

void damon_target_append(struct damon_ctx *ctx, struct damon_target *t)
{
	list_add_tail(&t->list, &ctx->targets);
}

/* Unlink @t from its context, if any, and free it with its regions. */
void damon_target_free(struct damon_target *t)
{
	struct damon_region *r, *tmp;

	damon_for_each_region_safe(r, tmp, t)
		damon_region_free(r, t);
	list_del(&t->list);
	put_pid(t->pid);
	kfree(t);
}

/* Whether the context's targets are processes (virtual address spaces). */
bool damon_target_has_pid(const struct damon_ctx *ctx)
{
	switch (ctx->ops.id) {
	case DAMON_OPS_VADDR:
	case DAMON_OPS_FVADDR:
		return true;
	default:
		return false;
	}
}

unsigned int damon_nr_regions(const struct damon_ctx *ctx)
{
	struct damon_target *t;
	unsigned int nr = 0;

	list_for_each_entry(t, &ctx->targets, list)
		nr += t->nr_regions;
	return nr;
}

/* ------------------------------------------------------------ contexts */

/* The default monitoring attributes, the one place they are written. */
struct damon_attrs damon_default_attrs(void)
{
	return (struct damon_attrs) {
		.sample_us = DAMON_DEFAULT_SAMPLE_US,
		.aggr_us = DAMON_DEFAULT_AGGR_US,
		.update_us = DAMON_DEFAULT_UPDATE_US,
		.min_nr_regions = DAMON_DEFAULT_MIN_NR_REGIONS,
		.max_nr_regions = DAMON_DEFAULT_MAX_NR_REGIONS,
		.intervals_goal = {
			.aggrs = 3,
			.min_sample_us = DAMON_DEFAULT_SAMPLE_US,
			.max_sample_us = 10 * USEC_PER_SEC,
		},
	};
}

bool damon_tuning_intervals(const struct damon_attrs *attrs)
{
	return attrs->intervals_goal.access_bp;
}

struct damon_ctx *damon_ctx_alloc(void)
{
	struct damon_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	ctx->attrs = damon_default_attrs();
	ctx->ops.id = NR_DAMON_OPS;	/* none selected yet */
	INIT_LIST_HEAD(&ctx->targets);
	INIT_LIST_HEAD(&ctx->schemes);
	mutex_init(&ctx->kdamond_lock);
	init_completion(&ctx->kdamond_up);
	prandom_seed_state(&ctx->rnd, get_random_u64());
	return ctx;
}

/* Stop the context if it runs, then free it with all its targets. */
void damon_ctx_free(struct damon_ctx *ctx)
{
	struct damon_target *t, *tmp;
	struct damos *s, *stmp;

	damon_stop(ctx);
	damon_for_each_target_safe(t, tmp, ctx)
		damon_target_free(t);
	damon_for_each_scheme_safe(s, stmp, ctx)
		damos_scheme_free(s);
	mutex_destroy(&ctx->kdamond_lock);
	kfree(ctx);
}

int damon_validate_attrs(const struct damon_attrs *a)
{
	const struct damon_intervals_goal *g = &a->intervals_goal;

	if (!a->sample_us || a->sample_us > a->aggr_us ||
	    a->aggr_us > a->update_us)
		return -EINVAL;
	if (a->min_nr_regions < 3 || a->min_nr_regions > a->max_nr_regions)
		return -EINVAL;
	/* nr_accesses counts samples per aggregation in an unsigned int */
	if (a->aggr_us / a->sample_us > UINT_MAX)
		return -EINVAL;
	if (g->access_bp &&
	    (g->access_bp > DAMON_FEED_MET || !g->aggrs ||
	     !g->min_sample_us || g->min_sample_us > g->max_sample_us))
		return -EINVAL;
	return 0;
}

/*
 * The feedback loops (quota goals, intervals tuning) score a measurement
 * @cur against its @target in basis points: DAMON_FEED_MET when met,
 * capped at twice that.
 */
unsigned long damon_feed_score(unsigned long cur, unsigned long target)
{
	if (!target)
		return DAMON_FEED_MET;
	if (cur / 2 >= target)
		return 2 * DAMON_FEED_MET;
	return mul_u64_u64_div_u64(cur, DAMON_FEED_MET, target);
}

/*
 * Their common step: what they control, @last, times (2 - @score as a
 * fraction), saturated at U64_MAX.  A score of 0 doubles it, a met goal
 * keeps it, twice the target takes it to 0.
 */
u64 damon_feed_step(u64 last, unsigned long score)
{
	score = min(score, 2 * DAMON_FEED_MET);
	/* the quotient must fit: x86 traps otherwise */
	if (score < DAMON_FEED_MET && last > U64_MAX / 2)
		return U64_MAX;
	return mul_u64_u64_div_u64(last, 2 * DAMON_FEED_MET - score,
				   DAMON_FEED_MET);
}

/*
 * @value * @mul / @div, saturated to what an unsigned int holds.  The
 * product may need 96 bits, so it is taken in two parts: @value times the
 * whole quotient @mul / @div, plus @value times the remainder over @div,
 * which is below @value and so cannot overflow the division.
 */
unsigned int damon_mul_div(unsigned int value, unsigned long mul,
			   unsigned long div)
{
	u64 whole;

	if (!div)
		return value;
	if (check_mul_overflow((u64)value, (u64)(mul / div), &whole) ||
	    whole > UINT_MAX)
		return UINT_MAX;
	whole += mul_u64_u64_div_u64(value, mul % div, div);
	return min_t(u64, whole, UINT_MAX);
}

/*
 * When something that recurs every @interval_us, and was due at sample
 * @next, falls due after a change of the sampling interval from
 * @old_sample_us to @new_sample_us, @passed samples into the run: at the
 * same time as before, or one new interval from now if that is sooner.
 * Sample counts saturate rather than wrap.
 */
unsigned long damon_resched(unsigned long passed, unsigned long next,
			    unsigned long old_sample_us,
			    unsigned long new_sample_us,
			    unsigned long interval_us)
{
	unsigned long left_us, at;

	if (next <= passed)
		return next;		/* due already */
	if (check_mul_overflow(next - passed, old_sample_us, &left_us))
		left_us = ULONG_MAX;
	left_us = min(left_us, interval_us);
	if (check_add_overflow(passed, left_us / new_sample_us, &at))
		at = ULONG_MAX;
	return at;
}

/*
 * Make @attrs the context's, unchecked.  Records kept in units of the old
 * intervals are converted, so results stay meaningful across a change:
 * ages count aggregation intervals, access counts count samples per
 * aggregation.  The next aggregation, operations update and scheme
 * applications are rescheduled in time (see damon_resched()), so a shorter
 * interval takes effect at once.
 */
void damon_apply_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs)
{
	unsigned long old_samples, new_samples;
	struct damon_target *t;
	struct damon_region *r;
	struct damos *s;

	/* what is pending stays due at the same time, or sooner */
	ctx->next_aggr_sample = damon_resched(ctx->passed_samples,
					      ctx->next_aggr_sample,
					      ctx->attrs.sample_us,
					      attrs->sample_us, attrs->aggr_us);
	ctx->next_update_sample = damon_resched(ctx->passed_samples,
						ctx->next_update_sample,
						ctx->attrs.sample_us,
						attrs->sample_us,
						attrs->update_us);
	damon_for_each_scheme(s, ctx)
		if (s->apply_interval_us)
			s->next_apply_sample =
				damon_resched(ctx->passed_samples,
					      s->next_apply_sample,
					      ctx->attrs.sample_us,
					      attrs->sample_us,
					      s->apply_interval_us);

	old_samples = ctx->attrs.aggr_us / ctx->attrs.sample_us;
	new_samples = attrs->aggr_us / attrs->sample_us;
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			r->age = damon_mul_div(r->age, ctx->attrs.aggr_us,
					       attrs->aggr_us);
			r->nr_accesses = damon_mul_div(r->nr_accesses,
						       new_samples,
						       old_samples);
			r->last_nr_accesses = damon_mul_div(r->last_nr_accesses,
							    new_samples,
							    old_samples);
		}
	}
	ctx->attrs = *attrs;
}

/*
 * Set the monitoring attributes (see damon_apply_attrs()).  While the
 * intervals are tuned, setting the same sampling and aggregation intervals
 * again (a commit that changed something else) keeps the tuned ones; new
 * ones restart the tuning from them.  Safe on a running context only from
 * its kdamond (the after_aggregation or while_idle callback).
 */
int damon_set_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs)
{
	struct damon_attrs set = *attrs;
	int err;

	err = damon_validate_attrs(attrs);
	if (err)
		return err;
	if (damon_tuning_intervals(&ctx->attrs) &&
	    damon_tuning_intervals(attrs) &&
	    attrs->sample_us == ctx->tune_base.sample_us &&
	    attrs->aggr_us == ctx->tune_base.aggr_us) {
		set.sample_us = ctx->attrs.sample_us;
		set.aggr_us = ctx->attrs.aggr_us;
	} else {
		ctx->tune_sum_bp = 0;
		ctx->tune_nr_aggrs = 0;
	}
	ctx->tune_base = *attrs;
	damon_apply_attrs(ctx, &set);
	return 0;
}

/* ------------------------------------------------------------ operations */

int damon_register_ops(const struct damon_operations *ops)
{
	int err = 0;

	if (ops->id >= NR_DAMON_OPS || !ops->init ||
	    !ops->prepare_samples || !ops->check_samples ||
	    !ops->target_alive)
		return -EINVAL;

	mutex_lock(&damon_ops_lock);
	if (damon_ops_table[ops->id].init)
		err = -EBUSY;
	else
		damon_ops_table[ops->id] = *ops;
	mutex_unlock(&damon_ops_lock);
	return err;
}

bool damon_ops_registered(enum damon_ops_id id)
{
	bool ret;

	if (id >= NR_DAMON_OPS)
		return false;
	mutex_lock(&damon_ops_lock);
	ret = damon_ops_table[id].init;
	mutex_unlock(&damon_ops_lock);
	return ret;
}

/* Use operations @id for @ctx; the context must not be running. */
int damon_ctx_set_ops(struct damon_ctx *ctx, enum damon_ops_id id)
{
	int err = 0;

	if (id >= NR_DAMON_OPS)
		return -EINVAL;
	mutex_lock(&damon_ops_lock);
	if (damon_ops_table[id].init)
		ctx->ops = damon_ops_table[id];
	else
		err = -EINVAL;
	mutex_unlock(&damon_ops_lock);
	return err;
}

/*
 * Whether operations @ops can apply @action: the one rule.  Any operations
 * can count (stat); other actions need ->apply_scheme and the action's bit
 * in ->actions, and the huge page ones transparent huge pages in the
 * kernel.
 */
bool damon_ops_can_apply(const struct damon_operations *ops,
			 enum damos_action action)
{
	if (action >= NR_DAMOS_ACTIONS)
		return false;
	if (action == DAMOS_STAT)
		return true;
	if (!ops->apply_scheme || !(ops->actions & BIT(action)))
		return false;
	if (action == DAMOS_HUGEPAGE || action == DAMOS_NOHUGEPAGE)
		return IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE);
	return true;
}

/* Whether operations @id are registered and can apply @action. */
bool damon_registered_ops_can_apply(enum damon_ops_id id,
				    enum damos_action action)
{
	bool can;

	if (id >= NR_DAMON_OPS)
		return false;
	mutex_lock(&damon_ops_lock);
	can = damon_ops_table[id].init &&
	      damon_ops_can_apply(&damon_ops_table[id], action);
	mutex_unlock(&damon_ops_lock);
	return can;
}

/* Whether any registered operations can apply @action. */
bool damon_any_ops_can_apply(enum damos_action action)
{
	int id;

	for (id = 0; id < NR_DAMON_OPS; id++)
		if (damon_registered_ops_can_apply(id, action))
			return true;
	return false;
}

/*
 * Whether operations @ops honour filters of @type: the core's own types
 * (addr, target) always, the others where ->filters has their bit.
 */
bool damon_ops_can_filter(const struct damon_operations *ops,
			  enum damos_filter_type type)
{
	if (type >= NR_DAMOS_FILTER_TYPES)
		return false;
	if (type == DAMOS_FILTER_ADDR || type == DAMOS_FILTER_TARGET)
		return true;
	return ops->apply_scheme && (ops->filters & BIT(type));
}

bool damon_registered_ops_can_filter(enum damon_ops_id id,
				     enum damos_filter_type type)
{
	bool can;

	if (id >= NR_DAMON_OPS)
		return false;
	mutex_lock(&damon_ops_lock);
	can = damon_ops_table[id].init &&
	      damon_ops_can_filter(&damon_ops_table[id], type);
	mutex_unlock(&damon_ops_lock);
	return can;
}

bool damon_any_ops_can_filter(enum damos_filter_type type)
{
	int id;

	for (id = 0; id < NR_DAMON_OPS; id++)
		if (damon_registered_ops_can_filter(id, type))
			return true;
	return false;
}

/*
 * Whether @pid's process still has an address space to monitor.  A zombie
 * keeps its task but has no mm any more: to a monitor it has exited.
 */
bool damon_pid_has_mm(struct pid *pid)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	struct mm_struct *mm;

	if (!task)
		return false;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return false;
	mmput(mm);
	return true;
}

const char *damon_ops_name(enum damon_ops_id id)
{
	return id < NR_DAMON_OPS ? damon_ops_names[id] : NULL;
}

int damon_ops_id_of(const char *name, enum damon_ops_id *id)
{
	int i = match_string(damon_ops_names, NR_DAMON_OPS, name);

	if (i < 0)
		return -EINVAL;
	*id = i;
	return 0;
}

static int __init damon_init(void)
{
	/* regions come and go at every aggregation: a slab of their own */
	damon_regions_slab = KMEM_CACHE(damon_region, 0);
	if (!damon_regions_slab)
		return -ENOMEM;
	return 0;
}
subsys_initcall(damon_init);
