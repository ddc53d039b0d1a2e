// SPDX-License-Identifier: GPL-2.0
/*
 * Running what the configfs tree describes: on, off, commit and snapshots.
 *
 * Both "on" and "commit" first turn the staged tree into a plan: a checked,
 * self-contained copy (attributes, and per target its process and sorted
 * page-aligned ranges).  "on" applies the plan to a new damon_ctx and
 * starts it; "commit" hands the plan to the running kdamond, which applies
 * it at its next aggregation boundary, the one point where nothing else
 * looks at the context (or at once while every scheme is inactive and it
 * does not sample).  A plan is checked completely before anything is
 * changed, so a refused on or commit leaves everything as it was.
 *
 * While on, the context and its targets, schemes and filters in the running
 * setup are pinned with configfs_depend_item_unlocked(): configfs itself
 * then refuses to remove them (EBUSY), so the kdamond may point at targets'
 * snapshot slots and schemes' statistics.  Regions are not pinned: the plan
 * copied their ranges, nothing running refers to them, and a region's
 * rmdir is staged like a write of its start.  Pinning them would cost
 * O(N^2): each configfs_depend_item_unlocked() searches the whole subtree
 * under configfs' dirent spinlock.
 */

#define pr_fmt(fmt) "damon-configfs: " fmt

#include <linux/kthread.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "configfs.h"

struct damon_cfs_plan_target {
	struct damon_cfs_target *ct;
	struct pid *pid;
	unsigned int nr_ranges;
	struct damon_addr_range *ranges;
	bool refit;	/* fit the target's regions to @ranges */
	bool reset;	/* drop its regions for the operations' default */
};

struct damon_cfs_plan {
	struct kref kref;
	struct completion applied;
	int err;
	/* an earlier commit this one includes; it ends as this one does */
	struct damon_cfs_plan *superseded;
	enum damon_ops_id ops_id;
	struct damon_attrs attrs;
	unsigned int nr_targets;
	struct damon_cfs_plan_target *targets;
	unsigned int nr_schemes;
	struct damos **schemes;	/* checked settings; ->priv is the directory */
};

#define damon_cfs_for_each_child(item, group) \
	list_for_each_entry(item, &(group)->cg_children, ci_entry)

static struct mutex *damon_cfs_su_mutex(struct damon_cfs_ctx *cctx)
{
	return &cctx->group.cg_subsys->su_mutex;
}

/* ------------------------------------------------------------ plans */

static void damon_cfs_plan_release(struct kref *kref)
{
	struct damon_cfs_plan *plan = container_of(kref, struct damon_cfs_plan,
						   kref);
	unsigned int i;

	for (i = 0; i < plan->nr_targets; i++) {
		put_pid(plan->targets[i].pid);
		kfree(plan->targets[i].ranges);
	}
	kfree(plan->targets);
	for (i = 0; i < plan->nr_schemes; i++)
		damos_scheme_free(plan->schemes[i]);
	kfree(plan->schemes);
	/* only set while the plan is queued, which holds a reference */
	WARN_ON_ONCE(plan->superseded);
	kfree(plan);
}

static void damon_cfs_plan_put(struct damon_cfs_plan *plan)
{
	kref_put(&plan->kref, damon_cfs_plan_release);
}

static int damon_cfs_cmp_range(const void *a, const void *b)
{
	const struct damon_addr_range *l = a, *r = b;

	return l->start < r->start ? -1 : l->start > r->start;
}

/* Collect, round out, sort and check the regions of one target. */
static int damon_cfs_plan_ranges(struct damon_cfs_ctx *cctx,
				 struct damon_cfs_target *ct,
				 struct damon_cfs_plan_target *pt)
{
	const char *tname = config_item_name(&ct->group.cg_item);
	struct damon_cfs_region *cr;
	struct config_item *item;
	unsigned int nr = 0, i;

	damon_cfs_for_each_child(item, &ct->regions_group)
		nr++;
	if (!nr)
		return 0;
	pt->ranges = kcalloc(nr, sizeof(*pt->ranges), GFP_KERNEL);
	if (!pt->ranges)
		return -ENOMEM;

	damon_cfs_for_each_child(item, &ct->regions_group) {
		cr = to_damon_cfs_region(item);
		if (cr->start >= cr->end)
			return damon_cfs_refuse(cctx, -EINVAL,
						"target %s: region %s: need start < end\n",
						tname, config_item_name(item));
		if (cr->end > ALIGN_DOWN(ULONG_MAX, PAGE_SIZE))
			return damon_cfs_refuse(cctx, -EINVAL,
						"target %s: region %s: end is beyond the last page boundary\n",
						tname, config_item_name(item));
		pt->ranges[pt->nr_ranges].start = ALIGN_DOWN(cr->start,
							     PAGE_SIZE);
		pt->ranges[pt->nr_ranges].end = ALIGN(cr->end, PAGE_SIZE);
		pt->nr_ranges++;
	}
	sort(pt->ranges, nr, sizeof(*pt->ranges), damon_cfs_cmp_range, NULL);
	for (i = 1; i < nr; i++)
		if (pt->ranges[i].start < pt->ranges[i - 1].end)
			return damon_cfs_refuse(cctx, -EINVAL, "target %s: regions overlap\n",
						tname);
	return 0;
}

/* Check the scheme directories and add what they say to @plan. */
static int damon_cfs_plan_schemes(struct damon_cfs_ctx *cctx,
				  struct damon_cfs_plan *plan)
{
	struct config_item *item;
	const char **names;
	unsigned int nr = 0, i;
	struct damos *s;
	int err = 0;

	damon_cfs_for_each_child(item, &cctx->schemes_group)
		nr++;
	if (!nr)
		return 0;
	plan->schemes = kcalloc(nr, sizeof(*plan->schemes), GFP_KERNEL);
	names = kcalloc(plan->nr_targets, sizeof(*names), GFP_KERNEL);
	if (!plan->schemes || !names) {
		kfree(names);
		return -ENOMEM;
	}
	for (i = 0; i < plan->nr_targets; i++)
		names[i] = config_item_name(&plan->targets[i].ct->group.cg_item);

	damon_cfs_for_each_child(item, &cctx->schemes_group) {
		s = damos_cfs_build(cctx, to_damos_cfs_scheme(item),
				    plan->ops_id, names, plan->nr_targets);
		if (IS_ERR(s)) {
			err = PTR_ERR(s);
			break;
		}
		plan->schemes[plan->nr_schemes++] = s;
	}
	kfree(names);
	return err;
}

/* Whether @pt's ranges differ from the ones its target was given last. */
static bool damon_cfs_ranges_changed(struct damon_cfs_target *ct,
				     struct damon_cfs_plan_target *pt)
{
	return ct->nr_live_ranges != pt->nr_ranges ||
	       (pt->nr_ranges && memcmp(ct->live_ranges, pt->ranges,
					pt->nr_ranges * sizeof(*pt->ranges)));
}

/* Check target directory @ct and copy what it says into @pt. */
static int damon_cfs_plan_target(struct damon_cfs_ctx *cctx,
				 struct damon_cfs_target *ct,
				 struct damon_cfs_plan_target *pt,
				 enum damon_ops_id ops_id)
{
	const char *tname = config_item_name(&ct->group.cg_item);
	int err;

	pt->ct = ct;
	if (ops_id == DAMON_OPS_PADDR) {
		/* physical memory: the target is the machine, not a process */
		if (ct->pid)
			return damon_cfs_refuse(cctx, -EINVAL, "target %s: paddr takes no pid\n",
						tname);
	} else if (!ct->pid) {
		return damon_cfs_refuse(cctx, -EINVAL, "target %s has no pid\n",
					tname);
	} else if (!damon_pid_has_mm(ct->pid)) {
		return damon_cfs_refuse(cctx, -ESRCH, "target %s: process %d has exited\n",
					tname, pid_vnr(ct->pid));
	}
	pt->pid = get_pid(ct->pid);
	err = damon_cfs_plan_ranges(cctx, ct, pt);
	if (err)
		return err;
	if (!pt->nr_ranges && ops_id == DAMON_OPS_FVADDR)
		return damon_cfs_refuse(cctx, -EINVAL, "target %s: fvaddr needs regions\n",
					tname);
	/*
	 * Which regions to fit to the ranges: all for fvaddr, whose ranges
	 * are what is monitored; for vaddr, whose ranges are only initial,
	 * and paddr, whose ranges nothing but the user changes, those of new
	 * targets and of targets whose ranges the user changed since the
	 * last on or commit.  A paddr target whose regions were all removed
	 * goes back to the whole of RAM (the operations' init).
	 */
	pt->refit = ops_id == DAMON_OPS_FVADDR || !ct->pinned ||
		    damon_cfs_ranges_changed(ct, pt);
	pt->reset = ops_id == DAMON_OPS_PADDR && pt->refit && !pt->nr_ranges;
	return 0;
}

/*
 * Check the staged setup of @cctx and copy it into a plan.  Needs su_mutex
 * (the lists of children) and cctx->lock (the staged values).
 */
static struct damon_cfs_plan *damon_cfs_make_plan(struct damon_cfs_ctx *cctx)
{
	struct damon_cfs_plan *plan;
	struct config_item *item;
	unsigned int nr = 0, nr_ranges = 0;
	int err;

	lockdep_assert_held(damon_cfs_su_mutex(cctx));
	lockdep_assert_held(&cctx->lock);

	err = damon_validate_attrs(&cctx->attrs);
	if (err) {
		damon_cfs_refuse(cctx, err,
				 "need 0 < sample_us <= aggr_us <= update_us, aggr_us / sample_us < 2^32, min_nr_regions <= max_nr_regions, and with intervals_goal/access_bp min_sample_us <= max_sample_us\n");
		return ERR_PTR(err);
	}
	damon_cfs_for_each_child(item, &cctx->targets_group)
		nr++;
	if (!nr)
		return ERR_PTR(damon_cfs_refuse(cctx, -EINVAL, "no targets\n"));
	if (nr > 1 && cctx->ops_id == DAMON_OPS_PADDR)
		return ERR_PTR(damon_cfs_refuse(cctx, -EINVAL, "paddr takes exactly one target\n"));

	plan = kzalloc(sizeof(*plan), GFP_KERNEL);
	if (!plan)
		return ERR_PTR(-ENOMEM);
	kref_init(&plan->kref);
	init_completion(&plan->applied);
	plan->ops_id = cctx->ops_id;
	plan->attrs = cctx->attrs;
	plan->targets = kcalloc(nr, sizeof(*plan->targets), GFP_KERNEL);
	err = plan->targets ? 0 : -ENOMEM;

	damon_cfs_for_each_child(item, &cctx->targets_group) {
		if (err)
			break;
		err = damon_cfs_plan_target(cctx, to_damon_cfs_target(item),
					    &plan->targets[plan->nr_targets++],
					    plan->ops_id);
		nr_ranges += plan->targets[plan->nr_targets - 1].nr_ranges;
	}
	if (!err && nr_ranges > plan->attrs.max_nr_regions)
		err = damon_cfs_refuse(cctx, -EINVAL, "more regions than max_nr_regions\n");
	if (!err)
		err = damon_cfs_plan_schemes(cctx, plan);
	if (err) {
		damon_cfs_plan_put(plan);
		return ERR_PTR(err);
	}
	return plan;
}

static struct damon_target *damon_cfs_find_target(struct damon_ctx *ctx,
						  struct damon_cfs_target *ct)
{
	struct damon_target *t;

	damon_for_each_target(t, ctx)
		if (t->priv == ct)
			return t;
	return NULL;
}

/* Update the scheme of the same directory as @src, or add a new one. */
static int damon_cfs_apply_scheme(struct damon_ctx *ctx, struct damos *src)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx) {
		if (s->priv == src->priv) {
			damos_commit(ctx, s, src);
			return 0;
		}
	}
	s = damos_scheme_alloc();
	if (!s)
		return -ENOMEM;
	s->priv = src->priv;
	damos_commit(ctx, s, src);
	damos_scheme_append(ctx, s);
	return 0;
}

/*
 * Make @ctx what @plan says.  Targets already monitored keep their regions
 * and records; user ranges marked for refitting are fitted in with
 * damon_set_regions(), which keeps the records of what overlaps.  Runs on
 * a context no kdamond runs yet, or in the kdamond itself.
 */
static int damon_cfs_apply_plan(struct damon_ctx *ctx,
				struct damon_cfs_plan *plan)
{
	struct damon_cfs_plan_target *pt;
	struct damon_target *t;
	unsigned int i;
	int err;

	err = damon_set_attrs(ctx, &plan->attrs);
	if (err)
		return err;
	for (i = 0; i < plan->nr_targets; i++) {
		pt = &plan->targets[i];
		t = damon_cfs_find_target(ctx, pt->ct);
		if (!t) {
			t = damon_target_alloc();
			if (!t)
				return -ENOMEM;
			t->pid = get_pid(pt->pid);
			t->priv = pt->ct;
			damon_target_append(ctx, t);
		}
		if (pt->refit && pt->nr_ranges) {
			err = damon_set_regions(t, pt->ranges, pt->nr_ranges);
			if (err)
				return err;
		} else if (pt->reset) {
			damon_set_regions(t, NULL, 0);
		}
	}
	for (i = 0; i < plan->nr_schemes; i++) {
		err = damon_cfs_apply_scheme(ctx, plan->schemes[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ------------------------------------------------------------ pins */

static int damon_cfs_pin(struct damon_cfs_ctx *cctx, struct config_item *item,
			 bool *pinned)
{
	struct damon_cfs_pin *pins;
	int err;

	if (*pinned)
		return 0;
	pins = krealloc_array(cctx->pins, cctx->nr_pins + 1, sizeof(*pins),
			      GFP_KERNEL);
	if (!pins)
		return -ENOMEM;
	cctx->pins = pins;
	err = configfs_depend_item_unlocked(cctx->group.cg_subsys, item);
	if (err == -ENOENT) {
		/*
		 * An rmdir of @item is under way: the setup is changing under
		 * this on or commit.  Busy, not "no such file": the state
		 * file that was written exists.
		 */
		return damon_cfs_refuse(cctx, -EBUSY, "%s is being removed\n",
					config_item_name(item));
	}
	if (err)
		return err;
	pins[cctx->nr_pins++] = (struct damon_cfs_pin) { item, pinned };
	*pinned = true;
	return 0;
}

/*
 * Release the pins, the last taken (children) first.  An item may be
 * removed and freed the moment it is undepended, so its flag is cleared
 * before, and nothing of it is touched after.
 */
static void damon_cfs_unpin_all(struct damon_cfs_ctx *cctx)
{
	unsigned int i;

	for (i = cctx->nr_pins; i-- > 0; ) {
		*cctx->pins[i].pinned = false;
		configfs_undepend_item_unlocked(cctx->pins[i].item);
	}
	kfree(cctx->pins);
	cctx->pins = NULL;
	cctx->nr_pins = 0;
}

/*
 * Remember the ranges each target of @plan, now handed over, was given,
 * to tell at the next commit whether the user changed them.
 */
static void damon_cfs_keep_ranges(struct damon_cfs_plan *plan)
{
	struct damon_cfs_plan_target *pt;
	unsigned int i;

	for (i = 0; i < plan->nr_targets; i++) {
		pt = &plan->targets[i];
		kfree(pt->ct->live_ranges);
		pt->ct->live_ranges = kmemdup_array(pt->ranges, pt->nr_ranges,
						    sizeof(*pt->ranges),
						    GFP_KERNEL);
		/* without a copy, the next commit refits: that is safe */
		pt->ct->nr_live_ranges = pt->ct->live_ranges ? pt->nr_ranges : 0;
	}
}

/*
 * Pin the context and everything in @plan that is not pinned yet, and
 * record which process each target monitors from now on.
 */
static int damon_cfs_pin_plan(struct damon_cfs_ctx *cctx,
			      struct damon_cfs_plan *plan)
{
	struct damos_cfs_scheme *cs;
	struct damon_cfs_target *ct;
	struct config_item *item;
	unsigned int i;
	int err;

	err = damon_cfs_pin(cctx, &cctx->group.cg_item, &cctx->pinned);
	for (i = 0; !err && i < plan->nr_targets; i++) {
		ct = plan->targets[i].ct;
		if (!ct->pinned) {
			err = damon_cfs_pin(cctx, &ct->group.cg_item,
					    &ct->pinned);
			if (err)
				break;
			put_pid(ct->live_pid);
			ct->live_pid = get_pid(plan->targets[i].pid);
		}
	}
	for (i = 0; !err && i < plan->nr_schemes; i++) {
		cs = plan->schemes[i]->priv;
		err = damon_cfs_pin(cctx, &cs->group.cg_item, &cs->pinned);
		damon_cfs_for_each_child(item, &cs->filters_group) {
			if (err)
				break;
			err = damon_cfs_pin(cctx, item,
					    &to_damos_cfs_filter(item)->pinned);
		}
		damon_cfs_for_each_child(item, &cs->goals_group) {
			if (err)
				break;
			err = damon_cfs_pin(cctx, item,
					    &to_damos_cfs_goal(item)->pinned);
		}
	}
	return err;
}

/* ------------------------------------------------------------ snapshots */

static void damon_cfs_snapshot_release(struct kref *kref)
{
	kvfree(container_of(kref, struct damon_cfs_snapshot, kref));
}

void damon_cfs_snapshot_put(struct damon_cfs_snapshot *snap)
{
	if (snap)
		kref_put(&snap->kref, damon_cfs_snapshot_release);
}

/* In the kdamond: format @t's regions and make them the newest snapshot. */
static void damon_cfs_publish(struct damon_target *t)
{
	struct damon_cfs_target *ct = t->priv;
	struct damon_cfs_snapshot *snap, *old;
	size_t size = (size_t)t->nr_regions * 64 + 1;
	struct damon_region *r;

	snap = kvmalloc(struct_size(snap, text, size), GFP_KERNEL);
	if (!snap)
		return;		/* readers keep the previous one */
	kref_init(&snap->kref);
	snap->len = 0;
	damon_for_each_region(r, t)
		snap->len += scnprintf(snap->text + snap->len,
				       size - snap->len, "%lu %lu %u %u\n",
				       r->start, r->end, r->nr_accesses,
				       r->age);

	scoped_guard(spinlock, &ct->snap_lock) {
		old = ct->snap_prev;
		ct->snap_prev = ct->snap;
		ct->snap = snap;
	}
	damon_cfs_snapshot_put(old);
}

/*
 * configfs reads a binary attribute in two calls: one without a buffer for
 * the size, then one to fill a buffer of that size.  Any complete snapshot
 * of exactly that size will do, so the second call takes the newest one
 * that fits; only two publications between the calls make it fail.
 */
ssize_t damon_cfs_snapshot_read(struct damon_cfs_target *ct, void *buf,
				size_t len)
{
	struct damon_cfs_snapshot *snap = NULL;

	scoped_guard(spinlock, &ct->snap_lock) {
		if (!buf)
			return ct->snap ? ct->snap->len : 0;
		if (ct->snap && ct->snap->len == len)
			snap = ct->snap;
		else if (ct->snap_prev && ct->snap_prev->len == len)
			snap = ct->snap_prev;
		if (snap)
			kref_get(&snap->kref);
	}
	if (!snap)
		return -EAGAIN;
	memcpy(buf, snap->text, len);
	damon_cfs_snapshot_put(snap);
	return len;
}

void damon_cfs_target_clear_snapshots(struct damon_cfs_target *ct)
{
	struct damon_cfs_snapshot *snap, *prev;

	scoped_guard(spinlock, &ct->snap_lock) {
		snap = ct->snap;
		prev = ct->snap_prev;
		ct->snap = NULL;
		ct->snap_prev = NULL;
	}
	damon_cfs_snapshot_put(snap);
	damon_cfs_snapshot_put(prev);
}

/* ------------------------------------------------------------ kdamond hooks */

static struct damon_cfs_plan *damon_cfs_take_plan(struct damon_cfs_ctx *cctx)
{
	struct damon_cfs_plan *plan;

	guard(spinlock)(&cctx->plan_lock);
	plan = cctx->plan;
	cctx->plan = NULL;
	return plan;
}

/* End @plan and the commits it superseded with @err; drops a reference. */
static void damon_cfs_finish_plan(struct damon_cfs_plan *plan, int err)
{
	struct damon_cfs_plan *next;

	while (plan) {
		next = plan->superseded;
		plan->superseded = NULL;
		plan->err = err;
		complete(&plan->applied);
		damon_cfs_plan_put(plan);
		plan = next;
	}
}

/* In the kdamond: apply the commit handed over, if any. */
static void damon_cfs_apply_pending(struct damon_ctx *ctx)
{
	struct damon_cfs_plan *plan = damon_cfs_take_plan(ctx->cb.data);
	int err;

	if (!plan)
		return;
	err = damon_cfs_apply_plan(ctx, plan);
	if (!err)	/* initial regions for new targets */
		err = ctx->ops.init(ctx);
	damon_cfs_finish_plan(plan, err);
}

static int damon_cfs_after_aggregation(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damos *s;

	damon_for_each_target(t, ctx)
		damon_cfs_publish(t);
	damon_for_each_scheme(s, ctx)
		damos_cfs_publish(s);
	damon_cfs_apply_pending(ctx);
	return 0;
}

/*
 * Every scheme inactive: no aggregations, but commits still apply.  The
 * statistics are published for what the schemes did after the last
 * aggregation, and for a commit's new quota.
 */
static int damon_cfs_while_idle(struct damon_ctx *ctx)
{
	struct damos *s;

	damon_cfs_apply_pending(ctx);
	damon_for_each_scheme(s, ctx)
		damos_cfs_publish(s);
	return 0;
}

/*
 * The run has really started: only now are the last run's results
 * dropped, so that an on that fails changes nothing.  damon_start()
 * returns after this.
 */
static int damon_cfs_before_start(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damos *s;

	damon_for_each_target(t, ctx)
		damon_cfs_target_clear_snapshots(t->priv);
	damon_for_each_scheme(s, ctx)
		damos_cfs_clear_stats(s->priv);
	return 0;
}

static void damon_cfs_before_terminate(struct damon_ctx *ctx)
{
	struct damon_cfs_ctx *cctx = ctx->cb.data;
	struct damon_cfs_plan *plan = damon_cfs_take_plan(cctx);

	if (plan)
		damon_cfs_finish_plan(plan, kthread_should_stop() ?
				      -ECANCELED : -ESRCH);
	if (kthread_should_stop())
		return;
	/*
	 * Ended on its own: release the pins without waiting for a reader.
	 * The work may run before this thread is done; the flag tells it
	 * that this run is over all the same.
	 */
	scoped_guard(spinlock, &cctx->plan_lock)
		cctx->live_ended = true;
	schedule_work(&cctx->reap_work);
}

/* ------------------------------------------------------------ on, off, commit */

/* Whether @cctx runs: a live context whose kdamond has not finished. */
bool damon_cfs_running(struct damon_cfs_ctx *cctx)
{
	lockdep_assert_held(&cctx->lock);
	return cctx->live && damon_kdamond_running(cctx->live);
}

/*
 * Clean up after a kdamond that finished on its own (its targets exited),
 * or is finishing (@cctx->live_ended), so that "off" is all anybody sees
 * of it: its pins are released and its results kept.
 */
void damon_cfs_reap(struct damon_cfs_ctx *cctx)
{
	bool ended;

	lockdep_assert_held(&cctx->lock);
	if (!cctx->live)
		return;
	scoped_guard(spinlock, &cctx->plan_lock)
		ended = cctx->live_ended;
	if (ended || !damon_kdamond_running(cctx->live))
		damon_cfs_off(cctx);
}

void damon_cfs_reap_work(struct work_struct *work)
{
	struct damon_cfs_ctx *cctx = container_of(work, struct damon_cfs_ctx,
						  reap_work);

	guard(mutex)(&cctx->lock);
	damon_cfs_reap(cctx);
}

int damon_cfs_on(struct damon_cfs_ctx *cctx)
{
	struct damon_cfs_plan *plan;
	struct damon_ctx *ctx;
	int err;

	damon_cfs_reap(cctx);
	if (cctx->live)
		return 0;

	plan = damon_cfs_make_plan(cctx);
	if (IS_ERR(plan))
		return PTR_ERR(plan);

	ctx = damon_ctx_alloc();
	if (!ctx) {
		err = -ENOMEM;
		goto out;
	}
	err = damon_ctx_set_ops(ctx, plan->ops_id);
	if (!err)
		err = damon_cfs_apply_plan(ctx, plan);
	if (!err)
		err = damon_cfs_pin_plan(cctx, plan);
	if (err)
		goto fail;

	ctx->cb.data = cctx;
	ctx->cb.before_start = damon_cfs_before_start;
	ctx->cb.after_aggregation = damon_cfs_after_aggregation;
	ctx->cb.while_idle = damon_cfs_while_idle;
	ctx->cb.before_terminate = damon_cfs_before_terminate;

	err = damon_start(ctx, config_item_name(&cctx->group.cg_item));
	if (err) {
		damon_cfs_refuse(cctx, err, "cannot start (%d)\n", err);
		goto fail;
	}
	cctx->live = ctx;
	cctx->nr_aggregations = 0;
	damon_cfs_keep_ranges(plan);
	goto out;
fail:
	damon_cfs_unpin_all(cctx);
	damon_ctx_free(ctx);
out:
	damon_cfs_plan_put(plan);
	return err;
}

void damon_cfs_off(struct damon_cfs_ctx *cctx)
{
	struct damon_cfs_plan *plan;
	struct damos *s;

	lockdep_assert_held(&cctx->lock);
	if (!cctx->live)
		return;
	damon_stop(cctx->live);
	scoped_guard(spinlock, &cctx->plan_lock)
		cctx->live_ended = false;
	/* A plan handed over while the kdamond was already finishing. */
	plan = damon_cfs_take_plan(cctx);
	if (plan)
		damon_cfs_finish_plan(plan, -ECANCELED);
	cctx->nr_aggregations = cctx->live->nr_aggregations;
	damon_for_each_scheme(s, cctx->live)
		damos_cfs_publish(s);	/* the final counts */
	damon_ctx_free(cctx->live);
	cctx->live = NULL;
	damon_cfs_unpin_all(cctx);
}

/*
 * Check the staged setup against the running one and hand it to the
 * kdamond.  Returns the plan to wait for with damon_cfs_commit_wait().
 */
struct damon_cfs_plan *damon_cfs_commit_prepare(struct damon_cfs_ctx *cctx)
{
	struct damon_cfs_plan *plan;
	struct damon_cfs_target *ct;
	unsigned int i;
	int err;

	damon_cfs_reap(cctx);
	if (!cctx->live)
		return ERR_PTR(damon_cfs_refuse(cctx, -EINVAL, "commit needs a running context\n"));
	plan = damon_cfs_make_plan(cctx);
	if (IS_ERR(plan))
		return plan;

	err = 0;
	if (plan->ops_id != cctx->live->ops.id)
		err = damon_cfs_refuse(cctx, -EBUSY, "operations cannot change while on\n");
	for (i = 0; !err && i < plan->nr_targets; i++) {
		ct = plan->targets[i].ct;
		if (ct->pinned && ct->live_pid != plan->targets[i].pid)
			err = damon_cfs_refuse(cctx, -EBUSY,
					       "target %s: pid cannot change while on\n",
					       config_item_name(&ct->group.cg_item));
	}
	if (!err)
		err = damon_cfs_pin_plan(cctx, plan);
	if (err) {
		damon_cfs_plan_put(plan);
		return ERR_PTR(err);
	}

	damon_cfs_keep_ranges(plan);
	kref_get(&plan->kref);		/* the kdamond's reference */
	/*
	 * An earlier commit not applied yet: this one includes it, and its
	 * writer waits until this one is applied (or fails).
	 */
	scoped_guard(spinlock, &cctx->plan_lock) {
		plan->superseded = cctx->plan;
		cctx->plan = plan;
	}
	/* an idle kdamond would take it at its next watermark check only */
	damon_kdamond_wake(cctx->live);
	return plan;
}

int damon_cfs_commit_wait(struct damon_cfs_plan *plan)
{
	int err;

	err = wait_for_completion_interruptible(&plan->applied);
	if (!err)
		err = plan->err;
	else
		err = -EINTR;
	damon_cfs_plan_put(plan);
	return err;
}
