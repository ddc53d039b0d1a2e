// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs tree of DAMON: /sys/kernel/config/damon/.
 *
 * This file only builds directories and turns attribute writes into staged
 * values, each checked on its own.  What the staged values mean together,
 * and running them, is configfs-run.c's job.  configfs-layout.md at the top
 * of the project is the user-visible contract.
 */

#define pr_fmt(fmt) "damon-configfs: " fmt

#include <linux/init.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "configfs.h"

/* ------------------------------------------------------------ parsing */

/* configfs hands us a NUL-terminated copy; refuse NULs inside the value. */
int damon_cfs_check_nul(const char *page, size_t count)
{
	return strnlen(page, count) == count ? 0 : -EINVAL;
}

/*
 * A decimal number in [@min, @max]: below @min is -EINVAL (the minimums
 * exclude meaningless values such as 0), above @max is -ERANGE.
 */
int damon_cfs_parse_ulong(const char *page, size_t count,
			  unsigned long min, unsigned long max,
			  unsigned long *val)
{
	unsigned long v;
	int err;

	err = damon_cfs_check_nul(page, count);
	if (!err)
		err = kstrtoul(page, 10, &v);
	if (err)
		return err;
	if (v < min)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

/* The i < @nr for which @page holds the word @name_of(i), or -EINVAL. */
int damon_cfs_parse_word(const char *page, size_t count,
			 const char *(*name_of)(unsigned int i),
			 unsigned int nr)
{
	unsigned int i;

	if (damon_cfs_check_nul(page, count))
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (sysfs_streq(page, name_of(i)))
			return i;
	return -EINVAL;
}

/*
 * Say why an on or commit of @cctx is refused, ratelimited, prefixed with
 * the context's name; returns @err for the caller to return.
 */
int damon_cfs_refuse(struct damon_cfs_ctx *cctx, int err, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info_ratelimited("%s: %pV", config_item_name(&cctx->group.cg_item),
			    &vaf);
	va_end(args);
	return err;
}

/* ------------------------------------------------------------ regions */

DAMON_CFS_NUM_ATTR(damon_cfs_region_, start, to_damon_cfs_region,
		   o->cctx->lock, start, 0, ULONG_MAX);
DAMON_CFS_NUM_ATTR(damon_cfs_region_, end, to_damon_cfs_region,
		   o->cctx->lock, end, 0, ULONG_MAX);

static struct configfs_attribute *damon_cfs_region_attrs[] = {
	&damon_cfs_region_attr_start,
	&damon_cfs_region_attr_end,
	NULL,
};

static void damon_cfs_region_release(struct config_item *item)
{
	kfree(to_damon_cfs_region(item));
}

static const struct config_item_type damon_cfs_region_type =
	DAMON_CFS_TYPE(damon_cfs_region_attrs,
		       DAMON_CFS_RELEASE(damon_cfs_region_release));

static struct config_item *damon_cfs_region_make(struct config_group *group,
						 const char *name)
{
	struct damon_cfs_target *ct = container_of(group,
			struct damon_cfs_target, regions_group);
	struct damon_cfs_region *cr;

	cr = kzalloc(sizeof(*cr), GFP_KERNEL);
	if (!cr)
		return ERR_PTR(-ENOMEM);
	cr->cctx = ct->cctx;
	config_item_init_type_name(&cr->item, name, &damon_cfs_region_type);
	return &cr->item;
}

static const struct config_item_type damon_cfs_regions_type =
	DAMON_CFS_TYPE(NULL, DAMON_CFS_MKDIR(make_item, damon_cfs_region_make));

/* ------------------------------------------------------------ targets */

static ssize_t damon_cfs_target_pid_show(struct config_item *item, char *page)
{
	struct damon_cfs_target *ct = to_damon_cfs_target(item);

	guard(mutex)(&ct->cctx->lock);
	return sysfs_emit(page, "%d\n", ct->pid ? pid_vnr(ct->pid) : -1);
}

/*
 * The number is resolved to the process now, in the writer's pid namespace,
 * so that a recycled number can never pick another process later.
 */
static ssize_t damon_cfs_target_pid_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct damon_cfs_target *ct = to_damon_cfs_target(item);
	struct task_struct *task;
	struct pid *pid;
	unsigned long nr;
	int err;

	err = damon_cfs_parse_ulong(page, count, 1, INT_MAX, &nr);
	if (err)
		return err;
	pid = find_get_pid(nr);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_PID);
	if (!task) {
		put_pid(pid);
		return -ESRCH;
	}
	/* Kernel threads have no address space to monitor. */
	err = task->flags & PF_KTHREAD ? -EINVAL : 0;
	put_task_struct(task);
	if (!err && !damon_pid_has_mm(pid))
		err = -ESRCH;	/* a zombie */
	if (err) {
		put_pid(pid);
		return err;
	}

	scoped_guard(mutex, &ct->cctx->lock)
		swap(ct->pid, pid);
	put_pid(pid);
	return count;
}

DAMON_CFS_ATTR(damon_cfs_target_, pid);

static struct configfs_attribute *damon_cfs_target_attrs[] = {
	&damon_cfs_target_attr_pid,
	NULL,
};

static ssize_t damon_cfs_target_snapshot_read(struct config_item *item,
					      void *buf, size_t len)
{
	return damon_cfs_snapshot_read(to_damon_cfs_target(item), buf, len);
}

/* 64 bytes is the longest line: two 20-digit and two 10-digit numbers. */
static struct configfs_bin_attribute damon_cfs_target_attr_snapshot = {
	.cb_attr = {
		.ca_name = "snapshot",
		.ca_mode = 0400,
		.ca_owner = THIS_MODULE,
	},
	.cb_max_size = DAMON_CFS_MAX_NR_REGIONS * 64,
	.read = damon_cfs_target_snapshot_read,
};

static struct configfs_bin_attribute *damon_cfs_target_bin_attrs[] = {
	&damon_cfs_target_attr_snapshot,
	NULL,
};

static void damon_cfs_target_release(struct config_item *item)
{
	struct damon_cfs_target *ct = to_damon_cfs_target(item);

	damon_cfs_target_clear_snapshots(ct);
	put_pid(ct->pid);
	put_pid(ct->live_pid);
	kfree(ct->live_ranges);
	kfree(ct);
}

static const struct config_item_type damon_cfs_target_type =
	DAMON_CFS_TYPE(damon_cfs_target_attrs,
		       .ct_bin_attrs = damon_cfs_target_bin_attrs,
		       DAMON_CFS_RELEASE(damon_cfs_target_release));

static struct config_group *damon_cfs_target_make(struct config_group *group,
						  const char *name)
{
	struct damon_cfs_ctx *cctx = container_of(group, struct damon_cfs_ctx,
						  targets_group);
	struct damon_cfs_target *ct;

	ct = kzalloc(sizeof(*ct), GFP_KERNEL);
	if (!ct)
		return ERR_PTR(-ENOMEM);
	ct->cctx = cctx;
	spin_lock_init(&ct->snap_lock);
	config_group_init_type_name(&ct->group, name, &damon_cfs_target_type);
	config_group_init_type_name(&ct->regions_group, "regions",
				    &damon_cfs_regions_type);
	configfs_add_default_group(&ct->regions_group, &ct->group);
	return &ct->group;
}

static const struct config_item_type damon_cfs_targets_type =
	DAMON_CFS_TYPE(NULL,
		       DAMON_CFS_MKDIR(make_group, damon_cfs_target_make));

/* ------------------------------------------------------------ contexts */

DAMON_CFS_WORD_ATTR(damon_cfs_ctx_, operations, to_damon_cfs_ctx, o->lock,
		    ops_id, damon_ops_name, NR_DAMON_OPS, damon_ops_registered);

/* an unsigned long monitoring attribute, staged in cctx->attrs */
#define DAMON_CFS_CTX_ULONG_ATTR(_name, _min, _max)			\
	DAMON_CFS_NUM_ATTR(damon_cfs_ctx_, _name, to_damon_cfs_ctx,	\
			   o->lock, attrs._name, _min, _max)

DAMON_CFS_CTX_ULONG_ATTR(update_us, 1, ULONG_MAX);
DAMON_CFS_CTX_ULONG_ATTR(min_nr_regions, 3, DAMON_CFS_MAX_NR_REGIONS);
DAMON_CFS_CTX_ULONG_ATTR(max_nr_regions, 3, DAMON_CFS_MAX_NR_REGIONS);

/*
 * sample_us and aggr_us: staged like the rest, but while the running setup
 * tunes its intervals they read the live values (a write stages a new
 * starting point for the next on or commit).
 */
static ssize_t damon_cfs_ctx_interval_show(struct config_item *item,
					   char *page, bool aggr)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);
	struct damon_attrs *a = &cctx->attrs;

	guard(mutex)(&cctx->lock);
	damon_cfs_reap(cctx);
	if (cctx->live && damon_tuning_intervals(&cctx->live->attrs))
		a = &cctx->live->attrs;
	return sysfs_emit(page, "%lu\n", aggr ? READ_ONCE(a->aggr_us) :
						READ_ONCE(a->sample_us));
}

static ssize_t damon_cfs_ctx_interval_store(struct config_item *item,
					    const char *page, size_t count,
					    bool aggr)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);
	unsigned long v;
	int err = damon_cfs_parse_ulong(page, count, 1, ULONG_MAX, &v);

	if (err)
		return err;
	guard(mutex)(&cctx->lock);
	*(aggr ? &cctx->attrs.aggr_us : &cctx->attrs.sample_us) = v;
	return count;
}

static ssize_t damon_cfs_ctx_sample_us_show(struct config_item *item,
					    char *page)
{
	return damon_cfs_ctx_interval_show(item, page, false);
}

static ssize_t damon_cfs_ctx_sample_us_store(struct config_item *item,
					     const char *page, size_t count)
{
	return damon_cfs_ctx_interval_store(item, page, count, false);
}

static ssize_t damon_cfs_ctx_aggr_us_show(struct config_item *item,
					  char *page)
{
	return damon_cfs_ctx_interval_show(item, page, true);
}

static ssize_t damon_cfs_ctx_aggr_us_store(struct config_item *item,
					   const char *page, size_t count)
{
	return damon_cfs_ctx_interval_store(item, page, count, true);
}

DAMON_CFS_ATTR(damon_cfs_ctx_, sample_us);
DAMON_CFS_ATTR(damon_cfs_ctx_, aggr_us);

/* intervals_goal/: staged in cctx->attrs.intervals_goal */
static struct damon_cfs_ctx *damon_cfs_intervals_ctx(struct config_item *i)
{
	return container_of(to_config_group(i), struct damon_cfs_ctx,
			    intervals_group);
}

#define DAMON_CFS_INTERVALS_ATTR(_name, _min, _max)			\
	DAMON_CFS_NUM_ATTR(damon_cfs_intervals_, _name,			\
			   damon_cfs_intervals_ctx, o->lock,		\
			   attrs.intervals_goal._name, _min, _max)

DAMON_CFS_INTERVALS_ATTR(access_bp, 0, 10000);
DAMON_CFS_INTERVALS_ATTR(aggrs, 1, UINT_MAX);
DAMON_CFS_INTERVALS_ATTR(min_sample_us, 1, ULONG_MAX);
DAMON_CFS_INTERVALS_ATTR(max_sample_us, 1, ULONG_MAX);

static struct configfs_attribute *damon_cfs_intervals_attrs[] = {
	&damon_cfs_intervals_attr_access_bp,
	&damon_cfs_intervals_attr_aggrs,
	&damon_cfs_intervals_attr_min_sample_us,
	&damon_cfs_intervals_attr_max_sample_us,
	NULL,
};

static const struct config_item_type damon_cfs_intervals_type =
	DAMON_CFS_TYPE(damon_cfs_intervals_attrs);

static ssize_t damon_cfs_ctx_state_show(struct config_item *item, char *page)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);

	guard(mutex)(&cctx->lock);
	damon_cfs_reap(cctx);
	return sysfs_emit(page, "%s\n", damon_cfs_running(cctx) ? "on" : "off");
}

enum { DAMON_CFS_ON, DAMON_CFS_OFF, DAMON_CFS_COMMIT, NR_DAMON_CFS_CMDS };

static const char *damon_cfs_cmd_word(unsigned int cmd)
{
	static const char * const words[NR_DAMON_CFS_CMDS] = {
		[DAMON_CFS_ON] = "on",
		[DAMON_CFS_OFF] = "off",
		[DAMON_CFS_COMMIT] = "commit",
	};

	return words[cmd];
}

static ssize_t damon_cfs_ctx_state_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);
	struct mutex *su_mutex = &cctx->group.cg_subsys->su_mutex;
	struct damon_cfs_plan *plan = NULL;
	int cmd, err = 0;

	cmd = damon_cfs_parse_word(page, count, damon_cfs_cmd_word,
				   NR_DAMON_CFS_CMDS);
	if (cmd < 0)
		return cmd;

	/* su_mutex keeps the targets and regions lists still meanwhile. */
	mutex_lock(su_mutex);
	mutex_lock(&cctx->lock);
	switch (cmd) {
	case DAMON_CFS_ON:
		err = damon_cfs_on(cctx);
		break;
	case DAMON_CFS_OFF:
		damon_cfs_off(cctx);
		break;
	case DAMON_CFS_COMMIT:
		plan = damon_cfs_commit_prepare(cctx);
		if (IS_ERR(plan)) {
			err = PTR_ERR(plan);
			plan = NULL;
		}
		break;
	}
	mutex_unlock(&cctx->lock);
	mutex_unlock(su_mutex);

	/* Wait for the kdamond without holding anything it might need. */
	if (plan)
		err = damon_cfs_commit_wait(plan);
	return err ? err : count;
}

static ssize_t damon_cfs_ctx_kdamond_pid_show(struct config_item *item,
					      char *page)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);

	guard(mutex)(&cctx->lock);
	damon_cfs_reap(cctx);
	return sysfs_emit(page, "%d\n",
			  cctx->live ? damon_ctx_kdamond_pid(cctx->live) : -1);
}

static ssize_t damon_cfs_ctx_nr_aggregations_show(struct config_item *item,
						  char *page)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);

	guard(mutex)(&cctx->lock);
	damon_cfs_reap(cctx);	/* folds in a run that just ended */
	return sysfs_emit(page, "%lu\n",
			  cctx->live ? READ_ONCE(cctx->live->nr_aggregations) :
				       cctx->nr_aggregations);
}

DAMON_CFS_ATTR(damon_cfs_ctx_, state);
DAMON_CFS_ATTR_RO(damon_cfs_ctx_, kdamond_pid);
DAMON_CFS_ATTR_RO(damon_cfs_ctx_, nr_aggregations);

static struct configfs_attribute *damon_cfs_ctx_attrs[] = {
	&damon_cfs_ctx_attr_operations,
	&damon_cfs_ctx_attr_sample_us,
	&damon_cfs_ctx_attr_aggr_us,
	&damon_cfs_ctx_attr_update_us,
	&damon_cfs_ctx_attr_min_nr_regions,
	&damon_cfs_ctx_attr_max_nr_regions,
	&damon_cfs_ctx_attr_state,
	&damon_cfs_ctx_attr_kdamond_pid,
	&damon_cfs_ctx_attr_nr_aggregations,
	NULL,
};

static void damon_cfs_ctx_release(struct config_item *item)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);

	mutex_destroy(&cctx->lock);
	kfree(cctx);
}

static const struct config_item_type damon_cfs_ctx_type =
	DAMON_CFS_TYPE(damon_cfs_ctx_attrs,
		       DAMON_CFS_RELEASE(damon_cfs_ctx_release));

static struct config_group *damon_cfs_ctx_make(struct config_group *group,
					       const char *name)
{
	struct damon_cfs_ctx *cctx;

	cctx = kzalloc(sizeof(*cctx), GFP_KERNEL);
	if (!cctx)
		return ERR_PTR(-ENOMEM);
	mutex_init(&cctx->lock);
	spin_lock_init(&cctx->plan_lock);
	INIT_WORK(&cctx->reap_work, damon_cfs_reap_work);
	cctx->ops_id = DAMON_OPS_VADDR;
	cctx->attrs = damon_default_attrs();

	config_group_init_type_name(&cctx->group, name, &damon_cfs_ctx_type);
	config_group_init_type_name(&cctx->targets_group, "targets",
				    &damon_cfs_targets_type);
	configfs_add_default_group(&cctx->targets_group, &cctx->group);
	config_group_init_type_name(&cctx->schemes_group, "schemes",
				    &damos_cfs_schemes_type);
	configfs_add_default_group(&cctx->schemes_group, &cctx->group);
	config_group_init_type_name(&cctx->intervals_group, "intervals_goal",
				    &damon_cfs_intervals_type);
	configfs_add_default_group(&cctx->intervals_group, &cctx->group);
	return &cctx->group;
}

/* Only reached when nothing is pinned, i.e. the context is off. */
static void damon_cfs_ctx_drop(struct config_group *group,
			       struct config_item *item)
{
	struct damon_cfs_ctx *cctx = to_damon_cfs_ctx(item);

	cancel_work_sync(&cctx->reap_work);
	scoped_guard(mutex, &cctx->lock)
		damon_cfs_off(cctx);
	config_item_put(item);
}

static const struct config_item_type damon_cfs_contexts_type =
	DAMON_CFS_TYPE(NULL, DAMON_CFS_MKDIR(make_group, damon_cfs_ctx_make,
					     .drop_item = damon_cfs_ctx_drop));

/* ------------------------------------------------------------ the root */

static ssize_t damon_cfs_root_features_show(struct config_item *item,
					    char *page)
{
	ssize_t len = 0;
	int id, i;

	for (id = 0; id < NR_DAMON_OPS; id++)
		if (damon_ops_registered(id))
			len += sysfs_emit_at(page, len, "ops:%s ",
					     damon_ops_name(id));
	len += sysfs_emit_at(page, len,
			     "state:commit snapshot nr_aggregations schemes intervals_goal");
	for (id = 0; id < NR_DAMOS_ACTIONS; id++)
		if (damon_any_ops_can_apply(id))
			len += sysfs_emit_at(page, len, " action:%s",
					     damos_action_name(id));
	/* and per operations set: OPS:action:WORD */
	for (id = 0; id < NR_DAMON_OPS; id++)
		for (i = 0; i < NR_DAMOS_ACTIONS; i++)
			if (damon_registered_ops_can_apply(id, i))
				len += sysfs_emit_at(page, len, " %s:action:%s",
						     damon_ops_name(id),
						     damos_action_name(i));
	for (id = 0; id < NR_DAMOS_FILTER_TYPES; id++)
		if (damon_any_ops_can_filter(id))
			len += sysfs_emit_at(page, len, " filter:%s",
					     damos_filter_type_name(id));
	/* and per operations set: OPS:filter:WORD */
	for (id = 0; id < NR_DAMON_OPS; id++)
		for (i = 0; i < NR_DAMOS_FILTER_TYPES; i++)
			if (damon_registered_ops_can_filter(id, i))
				len += sysfs_emit_at(page, len, " %s:filter:%s",
						     damon_ops_name(id),
						     damos_filter_type_name(i));
	for (id = 0; id < NR_DAMOS_GOAL_METRICS; id++)
		if (damos_goal_metric_available(id))
			len += sysfs_emit_at(page, len, " goal:%s",
					     damos_goal_metric_name(id));
	len += sysfs_emit_at(page, len, " wmark:free_mem_rate\n");
	return len;
}

DAMON_CFS_ATTR_RO(damon_cfs_root_, features);

static struct configfs_attribute *damon_cfs_root_attrs[] = {
	&damon_cfs_root_attr_features,
	NULL,
};

static const struct config_item_type damon_cfs_root_type =
	DAMON_CFS_TYPE(damon_cfs_root_attrs);

static struct config_group damon_cfs_contexts_group;

static struct configfs_subsystem damon_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "damon",
			.ci_type = &damon_cfs_root_type,
		},
	},
};

static int __init damon_cfs_init(void)
{
	int err;

	config_group_init(&damon_cfs_subsys.su_group);
	mutex_init(&damon_cfs_subsys.su_mutex);
	config_group_init_type_name(&damon_cfs_contexts_group, "contexts",
				    &damon_cfs_contexts_type);
	configfs_add_default_group(&damon_cfs_contexts_group,
				   &damon_cfs_subsys.su_group);
	err = configfs_register_subsystem(&damon_cfs_subsys);
	if (err)
		pr_err("cannot register (%d)\n", err);
	return err;
}
late_initcall(damon_cfs_init);
