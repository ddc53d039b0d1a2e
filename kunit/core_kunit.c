// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for DAMON core objects, operations dispatch and the kdamond.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/pid.h>
#include <linux/sched/task.h>

#include "../internal.h"

static void damon_test_target_lifecycle(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damon_target *t = damon_target_alloc();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->targets));
	damon_target_append(ctx, t);
	KUNIT_EXPECT_FALSE(test, list_empty(&ctx->targets));
	damon_region_append(damon_region_alloc(0, PAGE_SIZE), t);
	damon_region_append(damon_region_alloc(PAGE_SIZE, PAGE_SIZE * 3), t);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 2U);
	damon_target_free(t);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->targets));
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 0U);
	damon_ctx_free(ctx);
}

static void damon_test_ctx_defaults(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 5000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 100000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.update_us, 1000000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.min_nr_regions, 10UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.max_nr_regions, 1000UL);
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&ctx->attrs), 0);
	KUNIT_EXPECT_FALSE(test, damon_kdamond_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_ctx_kdamond_pid(ctx), -1);
	damon_ctx_free(ctx);
}

static void damon_test_validate_attrs(struct kunit *test)
{
	const struct damon_attrs ok = {
		.sample_us = 10, .aggr_us = 10, .update_us = 10,
		.min_nr_regions = 3, .max_nr_regions = 3,
	};
	struct damon_attrs a;

	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&ok), 0);
	a = ok;
	a.sample_us = 0;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = ok;
	a.sample_us = 11;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = ok;
	a.update_us = 9;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = ok;
	a.min_nr_regions = 2;
	a.max_nr_regions = 2;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
	a = ok;
	a.min_nr_regions = 4;
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&a), -EINVAL);
}

static void damon_test_set_attrs_rescales(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damon_target *t = damon_target_alloc();
	struct damon_region *r = damon_region_alloc(0, PAGE_SIZE);
	struct damon_attrs a;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, r);
	damon_target_append(ctx, t);
	damon_region_append(r, t);
	/* defaults: 20 samples per aggregation */
	r->nr_accesses = 10;
	r->last_nr_accesses = 20;
	r->age = 30;

	a = ctx->attrs;
	a.aggr_us = 200000;	/* 40 samples, aggregations twice as long */
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 20U);
	KUNIT_EXPECT_EQ(test, r->last_nr_accesses, 40U);
	KUNIT_EXPECT_EQ(test, r->age, 15U);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 200000UL);

	a.sample_us = 0;
	KUNIT_EXPECT_EQ(test, damon_set_attrs(ctx, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_us, 5000UL);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 20U);
	damon_ctx_free(ctx);
}

static void damon_test_mul_div(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damon_mul_div(10, 3, 2), 15U);
	KUNIT_EXPECT_EQ(test, damon_mul_div(10, 1, 3), 3U);
	KUNIT_EXPECT_EQ(test, damon_mul_div(UINT_MAX, 2, 1), UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_mul_div(7, 5, 0), 7U);
}

/* Products beyond 64 bits neither wrap nor trap. */
static void damon_test_mul_div_large(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damon_mul_div(3, ULONG_MAX, ULONG_MAX), 3U);
	KUNIT_EXPECT_EQ(test, damon_mul_div(1000, 1UL << 63, 1UL << 62), 2000U);
	KUNIT_EXPECT_EQ(test, damon_mul_div(10, ULONG_MAX, 2), UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_mul_div(UINT_MAX, ULONG_MAX - 1, ULONG_MAX),
			UINT_MAX - 1);
}

/*
 * A change of intervals reschedules what is pending, in time: a shorter
 * interval is due within its new length, a longer one does not postpone
 * what was due sooner, and a new sampling interval converts the time left
 * into its own samples.
 */
static void damon_test_set_attrs_reschedules(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damon_attrs a;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	a = ctx->attrs;		/* 5 ms samples, 100 ms aggregations */
	a.update_us = 60 * USEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	ctx->passed_samples = 1000;
	ctx->next_aggr_sample = 1000 + 20;
	ctx->next_update_sample = 1000 + 12000;

	a.update_us = USEC_PER_SEC;		/* 200 samples */
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->next_update_sample, 1000UL + 200);
	KUNIT_EXPECT_EQ(test, ctx->next_aggr_sample, 1000UL + 20);

	a.update_us = 120 * USEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->next_update_sample, 1000UL + 200);

	a.sample_us = 1000;	/* 100 ms left of the aggregation: 100 samples */
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &a), 0);
	KUNIT_EXPECT_EQ(test, ctx->next_aggr_sample, 1000UL + 100);
	KUNIT_EXPECT_EQ(test, ctx->next_update_sample, 1000UL + 1000);
	damon_ctx_free(ctx);
}

static void damon_test_ops_registry(struct kunit *test)
{
	struct damon_operations bad = { .id = DAMON_OPS_PADDR };
	struct damon_ctx *ctx = damon_ctx_alloc();
	enum damon_ops_id id;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_TRUE(test, damon_ops_registered(DAMON_OPS_VADDR));
	KUNIT_EXPECT_TRUE(test, damon_ops_registered(DAMON_OPS_FVADDR));
	KUNIT_EXPECT_FALSE(test, damon_ops_registered(NR_DAMON_OPS));

	/* incomplete operations are refused; a taken id too */
	KUNIT_EXPECT_EQ(test, damon_register_ops(&bad), -EINVAL);
	ctx->ops.id = NR_DAMON_OPS;
	KUNIT_ASSERT_EQ(test, damon_ctx_set_ops(ctx, DAMON_OPS_VADDR), 0);
	KUNIT_EXPECT_EQ(test, damon_register_ops(&ctx->ops), -EBUSY);

	KUNIT_EXPECT_EQ(test, ctx->ops.id, DAMON_OPS_VADDR);
	KUNIT_EXPECT_STREQ(test, ctx->ops.name, "vaddr");
	KUNIT_EXPECT_TRUE(test, damon_target_has_pid(ctx));
	KUNIT_EXPECT_EQ(test, damon_ctx_set_ops(ctx, NR_DAMON_OPS), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->ops.id, DAMON_OPS_VADDR);

	KUNIT_EXPECT_EQ(test, damon_ops_id_of("fvaddr", &id), 0);
	KUNIT_EXPECT_EQ(test, id, DAMON_OPS_FVADDR);
	KUNIT_EXPECT_EQ(test, damon_ops_id_of("paddr", &id), 0);
	KUNIT_EXPECT_EQ(test, id, DAMON_OPS_PADDR);
	KUNIT_EXPECT_EQ(test, damon_ops_id_of("vaddr ", &id), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_ops_id_of("", &id), -EINVAL);
	KUNIT_EXPECT_STREQ(test, damon_ops_name(DAMON_OPS_FVADDR), "fvaddr");
	KUNIT_EXPECT_NULL(test, damon_ops_name(NR_DAMON_OPS));
	damon_ctx_free(ctx);
}

static int exit_at_once(void *data)
{
	return 0;
}

/*
 * A target holds the struct pid, not the number: once the process is gone
 * the target is invalid for good, and whatever process gets the number
 * later has another struct pid.  (A kernel thread has no address space,
 * so it is no valid vaddr target even while it runs; the selftests cover
 * live processes.)
 */
static void damon_test_pid_reuse_safety(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();
	struct damon_target *t = damon_target_alloc();
	struct task_struct *task;
	struct pid *other;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, damon_ctx_set_ops(ctx, DAMON_OPS_VADDR), 0);
	damon_target_append(ctx, t);

	task = kthread_create(exit_at_once, NULL, "damon_kunit_pid");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	t->pid = get_task_pid(task, PIDTYPE_PID);
	KUNIT_EXPECT_FALSE(test, ctx->ops.target_alive(t));

	wake_up_process(task);
	kthread_stop_put(task);
	/* the pid is detached when the exited thread is reaped */
	for (i = 0; i < 200 && pid_has_task(t->pid, PIDTYPE_PID); i++)
		usleep_range(5000, 6000);
	KUNIT_EXPECT_FALSE(test, ctx->ops.target_alive(t));

	other = find_get_pid(pid_nr(t->pid));
	KUNIT_EXPECT_TRUE(test, other != t->pid);
	put_pid(other);
	damon_ctx_free(ctx);
}

/* ------------------------------------------------ a kdamond with fake ops */

struct fake_ops_state {
	atomic_t nr_init;
	atomic_t nr_prepare;
	atomic_t nr_prepare_alone;	/* by prepare_samples() */
	atomic_t nr_check;
	atomic_t nr_aggregated;
	atomic_t nr_terminated;
	bool valid;
	bool stop_at_aggregation;
	bool counts_ok;		/* all counts seen at aggregations were right */
	bool prepared;		/* the next sample is prepared */
	bool protocol_ok;	/* every check had one preparation before it */
};

static struct fake_ops_state fake;

static int fake_init(struct damon_ctx *ctx)
{
	struct damon_target *t;

	atomic_inc(&fake.nr_init);
	damon_for_each_target(t, ctx)
		if (!t->nr_regions)
			damon_region_append(damon_region_alloc(0, PAGE_SIZE * 64), t);
	return 0;
}

static void fake_prepare(struct damon_ctx *ctx)
{
	atomic_inc(&fake.nr_prepare);
	atomic_inc(&fake.nr_prepare_alone);
	if (fake.prepared)
		fake.protocol_ok = false;
	fake.prepared = true;
}

/* Every sample finds every region accessed. */
static unsigned int fake_check(struct damon_ctx *ctx, bool prepare_next)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned int max_nr = 0;

	atomic_inc(&fake.nr_check);
	if (!fake.prepared)
		fake.protocol_ok = false;
	fake.prepared = prepare_next;
	if (prepare_next)
		atomic_inc(&fake.nr_prepare);
	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			max_nr = max(max_nr, ++r->nr_accesses);
	return max_nr;
}

static bool fake_alive(struct damon_target *t)
{
	return READ_ONCE(fake.valid);
}

static int fake_after_aggregation(struct damon_ctx *ctx)
{
	unsigned int samples = ctx->attrs.aggr_us / ctx->attrs.sample_us;
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			if (r->nr_accesses != samples)
				fake.counts_ok = false;
	/* the regions change now: nothing may be prepared across that */
	if (fake.prepared)
		fake.protocol_ok = false;
	atomic_inc(&fake.nr_aggregated);
	return fake.stop_at_aggregation;
}

static void fake_before_terminate(struct damon_ctx *ctx)
{
	atomic_inc(&fake.nr_terminated);
}

static struct damon_ctx *new_fake_ctx(struct kunit *test)
{
	struct damon_ctx *ctx = damon_ctx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	memset(&fake, 0, sizeof(fake));
	fake.valid = true;
	fake.counts_ok = true;
	fake.protocol_ok = true;
	ctx->ops = (struct damon_operations) {
		.id = DAMON_OPS_PADDR,
		.name = "fake",
		.init = fake_init,
		.prepare_samples = fake_prepare,
		.check_samples = fake_check,
		.target_alive = fake_alive,
	};
	ctx->cb.after_aggregation = fake_after_aggregation;
	ctx->cb.before_terminate = fake_before_terminate;
	ctx->attrs.sample_us = 1000;
	ctx->attrs.aggr_us = 4000;
	ctx->attrs.update_us = 8000;
	ctx->attrs.min_nr_regions = 3;
	damon_target_append(ctx, damon_target_alloc());
	return ctx;
}

/* Wait up to two seconds for @cond. */
#define wait_until(cond) ({					\
	int __i;						\
	for (__i = 0; __i < 400 && !(cond); __i++)		\
		usleep_range(5000, 6000);			\
	(cond);							\
})

static void damon_test_kdamond_lifecycle(struct kunit *test)
{
	struct damon_ctx *ctx = new_fake_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_start(ctx, "kunit"), 0);
	KUNIT_EXPECT_TRUE(test, damon_kdamond_running(ctx));
	KUNIT_EXPECT_GT(test, damon_ctx_kdamond_pid(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_start(ctx, "kunit"), -EBUSY);

	KUNIT_EXPECT_TRUE(test, wait_until(atomic_read(&fake.nr_aggregated) >= 3));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_FALSE(test, damon_kdamond_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_ctx_kdamond_pid(ctx), -1);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), -EPERM);

	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_init), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_terminated), 1);
	/* each sample prepares and checks once; four samples per aggregation */
	KUNIT_EXPECT_GE(test, atomic_read(&fake.nr_check),
			4 * atomic_read(&fake.nr_aggregated));
	KUNIT_EXPECT_LE(test, atomic_read(&fake.nr_check),
			atomic_read(&fake.nr_prepare));
	KUNIT_EXPECT_TRUE(test, fake.counts_ok);
	/*
	 * Never a check without a preparation, nor one prepared across a
	 * change of the regions; and only the first sample after a change
	 * (once per aggregation here: updates come with aggregations) is
	 * prepared on its own, the rest in the pass of the check before.
	 */
	KUNIT_EXPECT_TRUE(test, fake.protocol_ok);
	KUNIT_EXPECT_LE(test, atomic_read(&fake.nr_prepare_alone),
			atomic_read(&fake.nr_aggregated) + 2);
	KUNIT_EXPECT_GE(test, ctx->nr_aggregations, 3UL);
	damon_ctx_free(ctx);
}

static void damon_test_kdamond_stops_without_targets(struct kunit *test)
{
	struct damon_ctx *ctx = new_fake_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_start(ctx, "kunit"), 0);
	WRITE_ONCE(fake.valid, false);
	KUNIT_EXPECT_TRUE(test, wait_until(!damon_kdamond_running(ctx)));
	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_terminated), 1);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), -EPERM);

	/* it can be started again, and the finished thread is reaped */
	WRITE_ONCE(fake.valid, true);
	KUNIT_ASSERT_EQ(test, damon_start(ctx, "kunit"), 0);
	KUNIT_EXPECT_TRUE(test, damon_kdamond_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_terminated), 2);
	damon_ctx_free(ctx);
}

static void damon_test_kdamond_callback_stops(struct kunit *test)
{
	struct damon_ctx *ctx = new_fake_ctx(test);

	fake.stop_at_aggregation = true;
	KUNIT_ASSERT_EQ(test, damon_start(ctx, "kunit"), 0);
	KUNIT_EXPECT_TRUE(test, wait_until(!damon_kdamond_running(ctx)));
	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_aggregated), 1);
	KUNIT_EXPECT_EQ(test, ctx->nr_aggregations, 1UL);
	damon_ctx_free(ctx);
}

static void damon_test_start_refuses_bad_ctx(struct kunit *test)
{
	struct damon_ctx *ctx = new_fake_ctx(test);
	struct damon_ctx *empty = damon_ctx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, empty);
	/* no operations, then no targets */
	KUNIT_EXPECT_EQ(test, damon_start(empty, "kunit"), -EINVAL);
	empty->ops = ctx->ops;
	KUNIT_EXPECT_EQ(test, damon_start(empty, "kunit"), -EINVAL);

	ctx->attrs.aggr_us = ctx->attrs.sample_us - 1;
	KUNIT_EXPECT_EQ(test, damon_start(ctx, "kunit"), -EINVAL);
	ctx->attrs.aggr_us = 4000;
	WRITE_ONCE(fake.valid, false);
	KUNIT_EXPECT_EQ(test, damon_start(ctx, "kunit"), -ESRCH);
	KUNIT_EXPECT_FALSE(test, damon_kdamond_running(ctx));
	KUNIT_EXPECT_EQ(test, atomic_read(&fake.nr_init), 0);
	damon_ctx_free(empty);
	damon_ctx_free(ctx);
}

static struct kunit_case damon_core_cases[] = {
	KUNIT_CASE(damon_test_target_lifecycle),
	KUNIT_CASE(damon_test_ctx_defaults),
	KUNIT_CASE(damon_test_validate_attrs),
	KUNIT_CASE(damon_test_set_attrs_rescales),
	KUNIT_CASE(damon_test_mul_div),
	KUNIT_CASE(damon_test_mul_div_large),
	KUNIT_CASE(damon_test_set_attrs_reschedules),
	KUNIT_CASE(damon_test_ops_registry),
	KUNIT_CASE(damon_test_pid_reuse_safety),
	KUNIT_CASE(damon_test_kdamond_lifecycle),
	KUNIT_CASE(damon_test_kdamond_stops_without_targets),
	KUNIT_CASE(damon_test_kdamond_callback_stops),
	KUNIT_CASE(damon_test_start_refuses_bad_ctx),
	{}
};

static struct kunit_suite damon_core_suite = {
	.name = "damon_core",
	.test_cases = damon_core_cases,
};

kunit_test_suite(damon_core_suite);
