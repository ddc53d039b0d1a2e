/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configfs interface: the objects behind /sys/kernel/config/damon/.
 *
 * configfs.c builds the tree and parses attribute writes into *staged*
 * values; configfs-run.c turns the staged tree into a running damon_ctx
 * (on), hands later changes to it (commit), stops it (off), and publishes
 * its results (snapshot).
 *
 * Locking, outermost first:
 *  - the subsystem's su_mutex (configfs holds it around mkdir and rmdir; we
 *    take it in the state store for a stable view of the tree);
 *  - damon_cfs_ctx.lock: one per context, protecting the staged values of
 *    the context and of everything under it, the live context pointer and
 *    the pins of running items;
 *  - damon_cfs_ctx.plan_lock and damon_cfs_target.snap_lock: spinlocks
 *    shared with the kdamond, held only to exchange a pointer.
 * The kdamond never takes su_mutex or damon_cfs_ctx.lock, so a store may
 * wait for the kdamond (off, commit) while holding them.
 */

#ifndef _MM_DAMON_CONFIGFS_H
#define _MM_DAMON_CONFIGFS_H

#include <linux/configfs.h>
#include <linux/damon.h>
#include <linux/kref.h>
#include <linux/limits.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/* Largest accepted max_nr_regions (and min_nr_regions). */
#define DAMON_CFS_MAX_NR_REGIONS	100000

/* A published snapshot: immutable text, freed with the last reference. */
struct damon_cfs_snapshot {
	struct kref kref;
	size_t len;
	char text[];
};

struct damon_cfs_plan;

struct damon_cfs_pin {
	struct config_item *item;
	bool *pinned;		/* the owner's flag, cleared when unpinned */
};

struct damon_cfs_ctx {
	struct config_group group;
	struct config_group targets_group;
	struct config_group schemes_group;
	struct config_group intervals_group;	/* intervals_goal/ */

	struct mutex lock;	/* see the top of this file */
	/* staged values */
	enum damon_ops_id ops_id;
	struct damon_attrs attrs;

	/* the running setup, under @lock */
	struct damon_ctx *live;
	unsigned long nr_aggregations;	/* of the last run, once off */
	bool pinned;
	/* items pinned (configfs_depend_item) while on; they can't go away */
	struct damon_cfs_pin *pins;
	unsigned int nr_pins;

	/* shared with the kdamond */
	spinlock_t plan_lock;	/* protects @plan and @live_ended */
	struct damon_cfs_plan *plan;	/* a commit on its way to it */
	bool live_ended;	/* @live's kdamond is ending on its own */

	/* cleans up after a kdamond that stopped on its own */
	struct work_struct reap_work;
};

struct damon_cfs_target {
	struct config_group group;
	struct config_group regions_group;
	struct damon_cfs_ctx *cctx;

	/* staged, under cctx->lock */
	struct pid *pid;
	/* part of the running setup; then it monitors @live_pid */
	bool pinned;
	struct pid *live_pid;
	/* the ranges of its regions at the last on or commit */
	struct damon_addr_range *live_ranges;
	unsigned int nr_live_ranges;

	spinlock_t snap_lock;	/* protects @snap and @snap_prev */
	struct damon_cfs_snapshot *snap;	/* newest */
	struct damon_cfs_snapshot *snap_prev;	/* the one before */
};

struct damon_cfs_region {
	struct config_item item;
	struct damon_cfs_ctx *cctx;
	/* staged, under cctx->lock */
	unsigned long start;
	unsigned long end;
};

/* A scheme directory; it stages the parameters of a struct damos. */
struct damos_cfs_scheme {
	struct config_group group;
	struct config_group pattern_group;
	struct config_group quotas_group;
	struct config_group goals_group;	/* in quotas_group */
	struct config_group wmarks_group;
	struct config_group filters_group;
	struct config_group stats_group;
	struct damon_cfs_ctx *cctx;

	/*
	 * staged, under cctx->lock; damos_cfs_build() copies them whole
	 * (the bookkeeping fields of @quota and @wmarks keep the defaults)
	 */
	enum damos_action action;
	int target_nid;
	unsigned long apply_interval_us;
	struct damos_access_pattern pattern;
	struct damos_quota quota;
	struct damos_watermarks wmarks;
	bool pinned;

	/* what the kdamond did, published at each aggregation */
	spinlock_t stat_lock;	/* @stat, @esz, the goals' current_value */
	struct damos_stat stat;
	unsigned long esz;
};

/* A quota goal directory: quotas/goals/GNAME/. */
struct damos_cfs_goal {
	struct config_item item;
	struct damos_cfs_scheme *cs;
	/* staged, under cs->cctx->lock */
	unsigned long metric;
	unsigned long target_value;
	unsigned long nid;
	char *memcg_path;	/* NULL: none */
	bool pinned;
	/*
	 * Under cs->stat_lock: the user's input of a user_input goal, which
	 * the kdamond takes at every aggregation without a commit; for the
	 * other metrics the last value the kdamond measured.
	 */
	unsigned long current_value;
};

struct damos_cfs_filter {
	struct config_item item;
	struct damon_cfs_ctx *cctx;
	/* staged, under cctx->lock */
	unsigned long type;
	bool matching;
	unsigned long addr_start, addr_end;
	char target[NAME_MAX + 1];
	char *memcg_path;	/* NULL: none */
	bool pinned;
};

static inline struct damon_cfs_ctx *to_damon_cfs_ctx(struct config_item *i)
{
	return container_of(to_config_group(i), struct damon_cfs_ctx, group);
}

static inline struct damon_cfs_target *
to_damon_cfs_target(struct config_item *i)
{
	return container_of(to_config_group(i), struct damon_cfs_target,
			    group);
}

static inline struct damon_cfs_region *
to_damon_cfs_region(struct config_item *i)
{
	return container_of(i, struct damon_cfs_region, item);
}

static inline struct damos_cfs_scheme *
to_damos_cfs_scheme(struct config_item *i)
{
	return container_of(to_config_group(i), struct damos_cfs_scheme,
			    group);
}

static inline struct damos_cfs_goal *to_damos_cfs_goal(struct config_item *i)
{
	return container_of(i, struct damos_cfs_goal, item);
}

static inline struct damos_cfs_filter *
to_damos_cfs_filter(struct config_item *i)
{
	return container_of(i, struct damos_cfs_filter, item);
}

/* Root only: the files expose other processes' memory layouts. */
#define DAMON_CFS_ATTR(_pfx, _name)				\
static struct configfs_attribute _pfx##attr_##_name = {		\
	.ca_name	= __stringify(_name),			\
	.ca_mode	= 0600,					\
	.ca_owner	= THIS_MODULE,				\
	.show		= _pfx##_name##_show,			\
	.store		= _pfx##_name##_store,			\
}

#define DAMON_CFS_ATTR_RO(_pfx, _name)				\
static struct configfs_attribute _pfx##attr_##_name = {		\
	.ca_name	= __stringify(_name),			\
	.ca_mode	= 0400,					\
	.ca_owner	= THIS_MODULE,				\
	.show		= _pfx##_name##_show,			\
}

/*
 * Staged attributes, one line each.  Both macros define the show and store
 * of the file @_file of a directory whose object @_to(item) returns, as
 * `o`, and the attribute _pfx##attr_##_file.  @_lock names the context
 * lock in terms of `o` (o->lock, o->cctx->lock), taken around every access
 * to o->@_field.
 *
 * DAMON_CFS_NUM_ATTR: a decimal in [@_min, @_max] (below EINVAL, above
 * ERANGE: damon_cfs_parse_ulong()).
 * DAMON_CFS_WORD_ATTR: one of the @_nr words @_name_of(0 .. @_nr - 1)
 * (damon_cfs_parse_word()); a word for which @_ok(index) is false (not
 * built in) is EINVAL too.
 */
#define DAMON_CFS_NUM_ATTR(_pfx, _file, _to, _lock, _field, _min, _max) \
static ssize_t _pfx##_file##_show(struct config_item *item, char *page)	\
{									\
	typeof(_to(item)) o = _to(item);				\
	unsigned long v;						\
									\
	scoped_guard(mutex, &(_lock))					\
		v = o->_field;						\
	return sysfs_emit(page, "%lu\n", v);				\
}									\
static ssize_t _pfx##_file##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	typeof(_to(item)) o = _to(item);				\
	unsigned long v;						\
	int err = damon_cfs_parse_ulong(page, count, _min, _max, &v);	\
									\
	if (err)							\
		return err;						\
	scoped_guard(mutex, &(_lock))					\
		o->_field = v;						\
	return count;							\
}									\
DAMON_CFS_ATTR(_pfx, _file)

#define DAMON_CFS_WORD_ATTR(_pfx, _file, _to, _lock, _field, _name_of,	\
			    _nr, _ok)					\
static const char *_pfx##_file##_word(unsigned int i)			\
{									\
	return _name_of(i);						\
}									\
static ssize_t _pfx##_file##_show(struct config_item *item, char *page)	\
{									\
	typeof(_to(item)) o = _to(item);				\
	unsigned int v;							\
									\
	scoped_guard(mutex, &(_lock))					\
		v = o->_field;						\
	return sysfs_emit(page, "%s\n", _name_of(v));			\
}									\
static ssize_t _pfx##_file##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	typeof(_to(item)) o = _to(item);				\
	int i = damon_cfs_parse_word(page, count, _pfx##_file##_word,	\
				     _nr);				\
									\
	if (i < 0 || !(_ok)(i))						\
		return -EINVAL;						\
	scoped_guard(mutex, &(_lock))					\
		o->_field = i;						\
	return count;							\
}									\
DAMON_CFS_ATTR(_pfx, _file)

/* an _ok for DAMON_CFS_WORD_ATTR: every word is */
static inline bool damon_cfs_any(unsigned int i)
{
	return true;
}

/*
 * The initializer of a directory's config_item_type: its attributes
 * (NULL: none) and, where it has any, what its items do:
 * DAMON_CFS_RELEASE(fn) for a directory users make, freed by fn on the
 * last put; DAMON_CFS_MKDIR(op, fn, ...) for one users mkdir in
 * (op is make_item or make_group).
 */
#define DAMON_CFS_TYPE(_attrs, ...)					\
	{ .ct_attrs = (_attrs), .ct_owner = THIS_MODULE, __VA_ARGS__ }
#define DAMON_CFS_RELEASE(_fn)						\
	.ct_item_ops = &(struct configfs_item_operations) { .release = (_fn) }
#define DAMON_CFS_MKDIR(_op, _fn, ...)					\
	.ct_group_ops = &(struct configfs_group_operations) {		\
		._op = (_fn), __VA_ARGS__ }

/* configfs.c */
int damon_cfs_check_nul(const char *page, size_t count);
int damon_cfs_parse_ulong(const char *page, size_t count,
			  unsigned long min, unsigned long max,
			  unsigned long *val);
__printf(3, 4)
int damon_cfs_refuse(struct damon_cfs_ctx *cctx, int err, const char *fmt, ...);
int damon_cfs_parse_word(const char *page, size_t count,
			 const char *(*name_of)(unsigned int i),
			 unsigned int nr);

/* configfs-schemes.c */
extern const struct config_item_type damos_cfs_schemes_type;
struct damos *damos_cfs_build(struct damon_cfs_ctx *cctx,
			      struct damos_cfs_scheme *cs,
			      enum damon_ops_id ops_id,
			      const char * const *target_names,
			      unsigned int nr_targets);
void damos_cfs_publish(struct damos *s);
void damos_cfs_clear_stats(struct damos_cfs_scheme *cs);

/* configfs-run.c */
int damon_cfs_on(struct damon_cfs_ctx *cctx);
void damon_cfs_off(struct damon_cfs_ctx *cctx);
struct damon_cfs_plan *damon_cfs_commit_prepare(struct damon_cfs_ctx *cctx);
int damon_cfs_commit_wait(struct damon_cfs_plan *plan);
bool damon_cfs_running(struct damon_cfs_ctx *cctx);
void damon_cfs_reap(struct damon_cfs_ctx *cctx);
void damon_cfs_reap_work(struct work_struct *work);
void damon_cfs_snapshot_put(struct damon_cfs_snapshot *snap);
ssize_t damon_cfs_snapshot_read(struct damon_cfs_target *ct, void *buf,
				size_t len);
void damon_cfs_target_clear_snapshots(struct damon_cfs_target *ct);

#endif /* _MM_DAMON_CONFIGFS_H */
