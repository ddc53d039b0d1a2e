// SPDX-License-Identifier: GPL-2.0
/*
 * The kdamond: one kernel thread per running context.
 *
 * Each sampling interval it asks the operations to check the sampled page of
 * every region and to pick the next ones, in one pass.  Each aggregation
 * interval it merges, ages and publishes the regions (through the
 * after_aggregation callback), restarts the counters and splits the regions
 * again.  Each update interval it lets the operations follow address space
 * changes.  While the context has schemes and the watermarks keep every one
 * of them inactive, it does not sample at all: it sleeps until the next
 * watermark check (see kdamond_wait_active()).
 * The work per interval is proportional to the number of regions, which
 * max_nr_regions bounds, never to the size of the targets.
 *
 * Locking: ctx->kdamond_lock serialises damon_start() and damon_stop() and
 * protects ctx->kdamond.  The kdamond itself never takes it, so a stop that
 * waits for the thread while holding it cannot deadlock.  The thread
 * reports finishing on its own through ctx->kdamond_done; whoever starts or
 * stops the context next reaps it.
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/damon.h>

static bool kdamond_any_target_alive(struct damon_ctx *ctx)
{
	struct damon_target *t;

	damon_for_each_target(t, ctx)
		if (ctx->ops.target_alive(t))
			return true;
	return false;
}

/* About 146 years: a deadline this far from now cannot overflow ktime. */
#define KDAMOND_SLEEP_MAX_NS	((u64)KTIME_MAX / 2)

static unsigned long kdamond_samples(struct damon_ctx *ctx, unsigned long us)
{
	return max(us / ctx->attrs.sample_us, 1UL);
}

/* @us in nanoseconds, as a sleep: at most KDAMOND_SLEEP_MAX_NS. */
static u64 kdamond_sleep_ns(unsigned long us)
{
	u64 ns;

	/*
	 * Intervals may be up to 2^64-1 us, far beyond what ktime holds: in
	 * nanoseconds the deadline would wrap into the past and the kdamond
	 * would spin.  Anything over a century is as good as forever.
	 */
	if (check_mul_overflow((u64)us, (u64)NSEC_PER_USEC, &ns) ||
	    ns > KDAMOND_SLEEP_MAX_NS)
		ns = KDAMOND_SLEEP_MAX_NS;
	return ns;
}

/*
 * Sleep for @ns, or less if someone wakes us: kthread_stop() does, and so
 * does damon_kdamond_wake(), whose mark an @idle sleep also heeds (it
 * checks the mark after setting its state, as the waker sets the mark
 * before waking).  A short sample is harmless; a stop request stuck behind
 * a long interval is not.
 */
static void kdamond_sleep(struct damon_ctx *ctx, u64 ns, bool idle)
{
	ktime_t expires = ktime_add_ns(ktime_get(), ns);

	set_current_state(TASK_IDLE);
	if (!kthread_should_stop() && !(idle && READ_ONCE(ctx->kdamond_woken)))
		schedule_hrtimeout_range(&expires, ns / 100, HRTIMER_MODE_ABS);
	__set_current_state(TASK_RUNNING);
	/*
	 * A sleep of a few microseconds may end before it begins: its timer
	 * fires while being armed and the task never leaves the CPU.  Every
	 * loop of the kdamond passes here, so yield here too, or intervals of
	 * 1 us starve the CPU on a kernel without preemption (the "off" that
	 * would stop it included).
	 */
	cond_resched();
}

/*
 * At the start of an aggregation window: while the context has schemes and
 * the watermarks keep every one of them inactive, there is nothing to
 * monitor for.  Sleep instead, until the first watermark check is due or
 * for an update interval at most (to notice targets that exited), and give
 * the while_idle callback its turn first and after each wake-up
 * (damon_kdamond_wake() brings one on early).  The regions keep what the
 * last aggregation left, ages included; when a scheme turns active,
 * monitoring resumes with a whole aggregation window.  Returns non-zero if
 * the callback asked to stop.
 */
static int kdamond_wait_active(struct damon_ctx *ctx)
{
	struct damon_attrs *attrs = &ctx->attrs;
	u64 next_check_ns, now, ns;

	if (!damos_wmarks_all_inactive(ctx, &next_check_ns))
		return 0;
	while (!kthread_should_stop() && kdamond_any_target_alive(ctx)) {
		WRITE_ONCE(ctx->kdamond_woken, false);
		if (ctx->cb.while_idle && ctx->cb.while_idle(ctx))
			return -ECANCELED;
		/* due checks, and what a commit in the callback changed */
		if (!damos_wmarks_all_inactive(ctx, &next_check_ns))
			break;
		now = ktime_get_ns();
		ns = next_check_ns > now ? next_check_ns - now : 0;
		kdamond_sleep(ctx, min(ns, kdamond_sleep_ns(attrs->update_us)),
			      true);
	}
	ctx->next_aggr_sample = ctx->passed_samples +
				kdamond_samples(ctx, attrs->aggr_us);
	return 0;
}

/* One damon:damon_aggregated event per region, as the snapshot shows it. */
static void kdamond_trace_aggregated(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned int tidx = 0;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			trace_damon_aggregated(tidx, r, t->nr_regions);
			cond_resched();
		}
		tidx++;
	}
}

/*
 * The aggregation step.  Returns non-zero if the callback asked to stop.
 * @max_nr_accesses is the highest count of the window: regions closer than
 * a tenth of it are alike, both for merging and for aging.
 */
static int kdamond_aggregate(struct damon_ctx *ctx,
			     unsigned int max_nr_accesses)
{
	unsigned int thres = max_nr_accesses / 10;
	struct damon_target *t;

	damon_merge_regions(ctx, thres, damon_region_sz_limit(ctx));
	damon_for_each_target(t, ctx)
		damon_account_age(t, thres);
	ctx->nr_aggregations++;
	if (trace_damon_aggregated_enabled())
		kdamond_trace_aggregated(ctx);

	if (ctx->cb.after_aggregation && ctx->cb.after_aggregation(ctx))
		return -ECANCELED;
	damos_apply_schemes(ctx);
	damon_tune_intervals(ctx);

	damon_for_each_target(t, ctx)
		damon_reset_aggregated(t);
	damon_split_regions(ctx);
	ctx->next_aggr_sample = ctx->passed_samples +
				kdamond_samples(ctx, ctx->attrs.aggr_us);
	return 0;
}

static int kdamond_fn(void *data)
{
	struct damon_ctx *ctx = data;
	unsigned int max_nr_accesses;
	bool prepared = false, window_start = true;
	int err;

	err = ctx->ops.init(ctx);
	if (!err && ctx->cb.before_start)
		err = ctx->cb.before_start(ctx);
	/* damon_start() returns only now: before_start has had its say */
	complete(&ctx->kdamond_up);
	if (err)
		goto done;

	ctx->passed_samples = 0;
	ctx->next_aggr_sample = kdamond_samples(ctx, ctx->attrs.aggr_us);
	ctx->next_update_sample = kdamond_samples(ctx, ctx->attrs.update_us);

	while (!kthread_should_stop() && kdamond_any_target_alive(ctx)) {
		if (window_start) {
			if (kdamond_wait_active(ctx))
				break;
			window_start = false;
			continue;	/* it may have slept: check again */
		}
		if (!prepared)
			ctx->ops.prepare_samples(ctx);
		kdamond_sleep(ctx, kdamond_sleep_ns(ctx->attrs.sample_us),
			      false);
		if (kthread_should_stop())
			break;
		/*
		 * Until the next aggregation or update the regions stay as
		 * they are: check this sample and prepare the next one in a
		 * single pass.  After either, the new regions are prepared
		 * on their own.
		 */
		prepared = ctx->passed_samples + 1 < ctx->next_aggr_sample &&
			   ctx->passed_samples + 1 < ctx->next_update_sample;
		max_nr_accesses = ctx->ops.check_samples(ctx, prepared);
		ctx->passed_samples++;

		if (ctx->passed_samples >= ctx->next_aggr_sample) {
			if (kdamond_aggregate(ctx, max_nr_accesses))
				break;
			window_start = true;
		}

		if (ctx->passed_samples >= ctx->next_update_sample) {
			if (ctx->ops.update)
				ctx->ops.update(ctx);
			ctx->next_update_sample = ctx->passed_samples +
				kdamond_samples(ctx, ctx->attrs.update_us);
		}
	}
done:
	if (ctx->cb.before_terminate)
		ctx->cb.before_terminate(ctx);
	if (ctx->ops.cleanup)
		ctx->ops.cleanup(ctx);
	/* Pairs with the READ_ONCE() in damon_kdamond_alive(). */
	WRITE_ONCE(ctx->kdamond_done, true);
	return err;
}

/* Whether a kdamond was started and has not finished; needs kdamond_lock. */
static bool damon_kdamond_alive(struct damon_ctx *ctx)
{
	lockdep_assert_held(&ctx->kdamond_lock);
	return ctx->kdamond && !READ_ONCE(ctx->kdamond_done);
}

/* Wait for the kdamond to finish (asking it to) and drop it. */
static void damon_reap_kdamond(struct damon_ctx *ctx)
{
	lockdep_assert_held(&ctx->kdamond_lock);
	if (!ctx->kdamond)
		return;
	kthread_stop_put(ctx->kdamond);
	ctx->kdamond = NULL;
}

/**
 * damon_start() - start monitoring with a new kdamond.
 * @ctx:	the context, with operations, attributes and targets set.
 * @name:	suffix of the thread name ("kdamond.@name").
 *
 * Return: 0 on success, -EBUSY if already running, -EINVAL if the context
 * is incomplete or its attributes are invalid, -ESRCH if no target can be
 * monitored.
 */
int damon_start(struct damon_ctx *ctx, const char *name)
{
	struct damon_target *t;
	struct task_struct *tsk;
	int err;

	if (!ctx->ops.init || list_empty(&ctx->targets))
		return -EINVAL;
	err = damon_validate_attrs(&ctx->attrs);
	if (err)
		return err;

	mutex_lock(&ctx->kdamond_lock);
	if (damon_kdamond_alive(ctx)) {
		err = -EBUSY;
		goto out;
	}
	damon_reap_kdamond(ctx);	/* one that finished on its own */

	damon_for_each_target(t, ctx) {
		if (!ctx->ops.target_alive(t)) {
			err = -ESRCH;
			goto out;
		}
	}

	ctx->kdamond_done = false;
	ctx->kdamond_woken = false;
	ctx->nr_aggregations = 0;
	ctx->last_nr_regions = 0;
	tsk = kthread_create(kdamond_fn, ctx, "kdamond.%s", name);
	if (IS_ERR(tsk)) {
		err = PTR_ERR(tsk);
		goto out;
	}
	get_task_struct(tsk);
	ctx->kdamond = tsk;
	reinit_completion(&ctx->kdamond_up);
	wake_up_process(tsk);
	wait_for_completion(&ctx->kdamond_up);
out:
	mutex_unlock(&ctx->kdamond_lock);
	return err;
}

/**
 * damon_stop() - stop monitoring and wait for the kdamond to finish.
 * @ctx:	the context.
 *
 * Return: 0 if a running kdamond was stopped, -EPERM if it was not running
 * (including when it had finished on its own, which is reaped here).
 */
int damon_stop(struct damon_ctx *ctx)
{
	bool alive;

	mutex_lock(&ctx->kdamond_lock);
	alive = damon_kdamond_alive(ctx);
	damon_reap_kdamond(ctx);
	mutex_unlock(&ctx->kdamond_lock);
	return alive ? 0 : -EPERM;
}

bool damon_kdamond_running(struct damon_ctx *ctx)
{
	bool ret;

	mutex_lock(&ctx->kdamond_lock);
	ret = damon_kdamond_alive(ctx);
	mutex_unlock(&ctx->kdamond_lock);
	return ret;
}

/**
 * damon_kdamond_wake() - have an idle kdamond call while_idle now.
 * @ctx:	the context.
 *
 * While the watermarks keep every scheme inactive, the kdamond sleeps until
 * the next watermark check; a change handed to it for the while_idle
 * callback (a commit) would wait that long.  This ends the sleep.  A
 * kdamond that is monitoring only has its current sampling interval cut
 * short.
 */
void damon_kdamond_wake(struct damon_ctx *ctx)
{
	mutex_lock(&ctx->kdamond_lock);
	if (damon_kdamond_alive(ctx)) {
		/* before the wake-up: see kdamond_sleep() */
		WRITE_ONCE(ctx->kdamond_woken, true);
		wake_up_process(ctx->kdamond);
	}
	mutex_unlock(&ctx->kdamond_lock);
}

/*
 * The kdamond's pid as the caller's pid namespace sees it (0 if it does not
 * see the kdamond), or -1 when not running.
 */
int damon_ctx_kdamond_pid(struct damon_ctx *ctx)
{
	int pid = -1;

	mutex_lock(&ctx->kdamond_lock);
	if (damon_kdamond_alive(ctx))
		pid = task_pid_vnr(ctx->kdamond);
	mutex_unlock(&ctx->kdamond_lock);
	return pid;
}
