// SPDX-License-Identifier: GPL-2.0
/*
 * configfs directories of DAMOS schemes: contexts/NAME/schemes/SNAME/.
 *
 * Like the rest of the tree, writes only stage values (checked one by one);
 * damos_cfs_build() turns a scheme directory into a checked struct damos
 * for a plan (configfs-run.c), and the kdamond publishes each scheme's
 * statistics back with damos_cfs_publish() (and takes its goals' user
 * input in exchange).
 */

#define pr_fmt(fmt) "damon-configfs: " fmt

#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "configfs.h"

#define DAMOS_CFS_MAX_WEIGHT	10000

static const char * const damos_cfs_wmark_metrics[NR_DAMOS_WMARK_METRICS] = {
	[DAMOS_WMARK_NONE] = "none",
	[DAMOS_WMARK_FREE_MEM_RATE] = "free_mem_rate",
};

/* The scheme of one of its default groups. */
#define DAMOS_CFS_GROUP_SCHEME(_grp)					\
static struct damos_cfs_scheme *damos_cfs_##_grp##_scheme(		\
		struct config_item *i)					\
{									\
	return container_of(to_config_group(i), struct damos_cfs_scheme, \
			    _grp##_group);				\
}

DAMOS_CFS_GROUP_SCHEME(pattern)
DAMOS_CFS_GROUP_SCHEME(quotas)
DAMOS_CFS_GROUP_SCHEME(wmarks)
DAMOS_CFS_GROUP_SCHEME(stats)

/* An unsigned long attribute @_file of group @_grp, staged in @_field. */
#define DAMOS_CFS_ULONG_ATTR(_grp, _file, _field, _min, _max)		\
	DAMON_CFS_NUM_ATTR(damos_cfs_##_grp##_, _file,			\
			   damos_cfs_##_grp##_scheme, o->cctx->lock,	\
			   _field, _min, _max)

/* the words of the word-valued attributes, by index */
#define damos_cfs_wmark_metric_name(i)	damos_cfs_wmark_metrics[i]

/* ------------------------------------------------------------ access_pattern */

DAMOS_CFS_ULONG_ATTR(pattern, min_size_bytes, pattern.min_sz, 0, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(pattern, max_size_bytes, pattern.max_sz, 0, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(pattern, min_nr_accesses, pattern.min_nr_accesses, 0, UINT_MAX);
DAMOS_CFS_ULONG_ATTR(pattern, max_nr_accesses, pattern.max_nr_accesses, 0, UINT_MAX);
DAMOS_CFS_ULONG_ATTR(pattern, min_age, pattern.min_age, 0, UINT_MAX);
DAMOS_CFS_ULONG_ATTR(pattern, max_age, pattern.max_age, 0, UINT_MAX);

static struct configfs_attribute *damos_cfs_pattern_attrs[] = {
	&damos_cfs_pattern_attr_min_size_bytes,
	&damos_cfs_pattern_attr_max_size_bytes,
	&damos_cfs_pattern_attr_min_nr_accesses,
	&damos_cfs_pattern_attr_max_nr_accesses,
	&damos_cfs_pattern_attr_min_age,
	&damos_cfs_pattern_attr_max_age,
	NULL,
};

static const struct config_item_type damos_cfs_pattern_type =
	DAMON_CFS_TYPE(damos_cfs_pattern_attrs);

/* ------------------------------------------------------------ quotas */

DAMOS_CFS_ULONG_ATTR(quotas, ms, quota.ms, 0, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(quotas, bytes, quota.sz, 0, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(quotas, reset_interval_ms, quota.reset_interval_ms, 1, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(quotas, weight_size, quota.weight_sz, 0, DAMOS_CFS_MAX_WEIGHT);
DAMOS_CFS_ULONG_ATTR(quotas, weight_nr_accesses, quota.weight_nr_accesses, 0,
		     DAMOS_CFS_MAX_WEIGHT);
DAMOS_CFS_ULONG_ATTR(quotas, weight_age, quota.weight_age, 0, DAMOS_CFS_MAX_WEIGHT);

static ssize_t damos_cfs_quotas_effective_bytes_show(struct config_item *i,
						     char *page)
{
	struct damos_cfs_scheme *cs = damos_cfs_quotas_scheme(i);
	unsigned long esz;

	scoped_guard(spinlock, &cs->stat_lock)
		esz = cs->esz;
	return sysfs_emit(page, "%lu\n", esz);
}

DAMON_CFS_ATTR_RO(damos_cfs_quotas_, effective_bytes);

static struct configfs_attribute *damos_cfs_quotas_attrs[] = {
	&damos_cfs_quotas_attr_ms,
	&damos_cfs_quotas_attr_bytes,
	&damos_cfs_quotas_attr_reset_interval_ms,
	&damos_cfs_quotas_attr_weight_size,
	&damos_cfs_quotas_attr_weight_nr_accesses,
	&damos_cfs_quotas_attr_weight_age,
	&damos_cfs_quotas_attr_effective_bytes,
	NULL,
};

static const struct config_item_type damos_cfs_quotas_type =
	DAMON_CFS_TYPE(damos_cfs_quotas_attrs);

/* ------------------------------------------------------------ memcg paths */

static ssize_t damos_cfs_path_show(struct mutex *lock, char **path,
				   char *page)
{
	guard(mutex)(lock);
	return sysfs_emit(page, "%s\n", *path ?: "");
}

/*
 * A cgroup v2 path from its root ("/a/b"), or nothing, into *@dst under
 * @lock; looked up at on.  At most PATH_MAX - 2 bytes: with its newline it
 * must read back whole.
 */
static ssize_t damos_cfs_path_store(struct mutex *lock, char **dst,
				    const char *page, size_t count)
{
	size_t len = count;
	char *path = NULL;

	if (damon_cfs_check_nul(page, count))
		return -EINVAL;
	if (len && page[len - 1] == '\n')
		len--;
	if (len > PATH_MAX - 2)
		return -ENAMETOOLONG;
	if (len && page[0] != '/')
		return -EINVAL;
	if (len) {
		path = kmemdup_nul(page, len, GFP_KERNEL);
		if (!path)
			return -ENOMEM;
	}
	scoped_guard(mutex, lock)
		swap(*dst, path);
	kfree(path);
	return count;
}

/* ------------------------------------------------------------ quota goals */

#define damos_cfs_goal_lock(cg)	((cg)->cs->cctx->lock)

DAMON_CFS_WORD_ATTR(damos_cfs_goal_, target_metric, to_damos_cfs_goal,
		    damos_cfs_goal_lock(o), metric, damos_goal_metric_name,
		    NR_DAMOS_GOAL_METRICS, damos_goal_metric_available);
DAMON_CFS_NUM_ATTR(damos_cfs_goal_, target_value, to_damos_cfs_goal,
		   damos_cfs_goal_lock(o), target_value, 0, ULONG_MAX);
DAMON_CFS_NUM_ATTR(damos_cfs_goal_, nid, to_damos_cfs_goal,
		   damos_cfs_goal_lock(o), nid, 0, MAX_NUMNODES - 1);

static ssize_t damos_cfs_goal_current_value_show(struct config_item *i,
						 char *page)
{
	struct damos_cfs_goal *cg = to_damos_cfs_goal(i);
	unsigned long v;

	scoped_guard(spinlock, &cg->cs->stat_lock)
		v = cg->current_value;
	return sysfs_emit(page, "%lu\n", v);
}

/* Not staged: a running user_input goal takes it at the next aggregation. */
static ssize_t damos_cfs_goal_current_value_store(struct config_item *i,
						  const char *page,
						  size_t count)
{
	struct damos_cfs_goal *cg = to_damos_cfs_goal(i);
	unsigned long v;
	int err = damon_cfs_parse_ulong(page, count, 0, ULONG_MAX, &v);

	if (err)
		return err;
	scoped_guard(spinlock, &cg->cs->stat_lock)
		cg->current_value = v;
	return count;
}

static ssize_t damos_cfs_goal_memcg_path_show(struct config_item *i,
					      char *page)
{
	struct damos_cfs_goal *cg = to_damos_cfs_goal(i);

	return damos_cfs_path_show(&damos_cfs_goal_lock(cg), &cg->memcg_path,
				   page);
}

static ssize_t damos_cfs_goal_memcg_path_store(struct config_item *i,
					       const char *page, size_t count)
{
	struct damos_cfs_goal *cg = to_damos_cfs_goal(i);

	return damos_cfs_path_store(&damos_cfs_goal_lock(cg),
				    &cg->memcg_path, page, count);
}

DAMON_CFS_ATTR(damos_cfs_goal_, current_value);
DAMON_CFS_ATTR(damos_cfs_goal_, memcg_path);

static struct configfs_attribute *damos_cfs_goal_attrs[] = {
	&damos_cfs_goal_attr_target_metric,
	&damos_cfs_goal_attr_target_value,
	&damos_cfs_goal_attr_current_value,
	&damos_cfs_goal_attr_nid,
	&damos_cfs_goal_attr_memcg_path,
	NULL,
};

static void damos_cfs_goal_release(struct config_item *i)
{
	struct damos_cfs_goal *cg = to_damos_cfs_goal(i);

	kfree(cg->memcg_path);
	kfree(cg);
}

static const struct config_item_type damos_cfs_goal_type =
	DAMON_CFS_TYPE(damos_cfs_goal_attrs,
		       DAMON_CFS_RELEASE(damos_cfs_goal_release));

static struct config_item *damos_cfs_goal_make(struct config_group *group,
					       const char *name)
{
	struct damos_cfs_scheme *cs = container_of(group,
			struct damos_cfs_scheme, goals_group);
	struct damos_cfs_goal *cg;

	cg = kzalloc(sizeof(*cg), GFP_KERNEL);
	if (!cg)
		return ERR_PTR(-ENOMEM);
	cg->cs = cs;
	cg->metric = DAMOS_GOAL_USER_INPUT;
	config_item_init_type_name(&cg->item, name, &damos_cfs_goal_type);
	return &cg->item;
}

static const struct config_item_type damos_cfs_goals_type =
	DAMON_CFS_TYPE(NULL, DAMON_CFS_MKDIR(make_item, damos_cfs_goal_make));

/* ------------------------------------------------------------ watermarks */

DAMON_CFS_WORD_ATTR(damos_cfs_wmarks_, metric, damos_cfs_wmarks_scheme,
		    o->cctx->lock, wmarks.metric, damos_cfs_wmark_metric_name,
		    NR_DAMOS_WMARK_METRICS, damon_cfs_any);
DAMOS_CFS_ULONG_ATTR(wmarks, interval_us, wmarks.interval_us, 1, ULONG_MAX);
DAMOS_CFS_ULONG_ATTR(wmarks, high, wmarks.high, 0, 1000);
DAMOS_CFS_ULONG_ATTR(wmarks, mid, wmarks.mid, 0, 1000);
DAMOS_CFS_ULONG_ATTR(wmarks, low, wmarks.low, 0, 1000);

static struct configfs_attribute *damos_cfs_wmarks_attrs[] = {
	&damos_cfs_wmarks_attr_metric,
	&damos_cfs_wmarks_attr_interval_us,
	&damos_cfs_wmarks_attr_high,
	&damos_cfs_wmarks_attr_mid,
	&damos_cfs_wmarks_attr_low,
	NULL,
};

static const struct config_item_type damos_cfs_wmarks_type =
	DAMON_CFS_TYPE(damos_cfs_wmarks_attrs);

/* ------------------------------------------------------------ stats */

/* A read-only counter of the last published statistics. */
#define DAMOS_CFS_STAT_ATTR(_name)					\
static ssize_t damos_cfs_stats_##_name##_show(struct config_item *i,	\
					       char *page)		\
{									\
	struct damos_cfs_scheme *cs = damos_cfs_stats_scheme(i);	\
	unsigned long v;						\
									\
	scoped_guard(spinlock, &cs->stat_lock)				\
		v = cs->stat._name;					\
	return sysfs_emit(page, "%lu\n", v);				\
}									\
DAMON_CFS_ATTR_RO(damos_cfs_stats_, _name)

DAMOS_CFS_STAT_ATTR(nr_tried);
DAMOS_CFS_STAT_ATTR(sz_tried);
DAMOS_CFS_STAT_ATTR(nr_applied);
DAMOS_CFS_STAT_ATTR(sz_applied);
DAMOS_CFS_STAT_ATTR(qt_exceeds);

static struct configfs_attribute *damos_cfs_stats_attrs[] = {
	&damos_cfs_stats_attr_nr_tried,
	&damos_cfs_stats_attr_sz_tried,
	&damos_cfs_stats_attr_nr_applied,
	&damos_cfs_stats_attr_sz_applied,
	&damos_cfs_stats_attr_qt_exceeds,
	NULL,
};

static const struct config_item_type damos_cfs_stats_type =
	DAMON_CFS_TYPE(damos_cfs_stats_attrs);

/*
 * In the kdamond, or once it stopped: make @s's results visible, and hand
 * its user_input goals what the user wrote since.
 */
void damos_cfs_publish(struct damos *s)
{
	struct damos_cfs_scheme *cs = s->priv;
	struct damos_cfs_goal *cg;
	struct damos_quota_goal *g;

	guard(spinlock)(&cs->stat_lock);
	cs->stat = s->stat;
	cs->esz = damos_quota_effective_sz(s);
	damos_for_each_goal(g, s) {
		cg = g->priv;
		if (g->metric == DAMOS_GOAL_USER_INPUT)
			g->current_value = cg->current_value;
		else
			cg->current_value = g->current_value;
	}
}

void damos_cfs_clear_stats(struct damos_cfs_scheme *cs)
{
	guard(spinlock)(&cs->stat_lock);
	cs->stat = (struct damos_stat) {};
	cs->esz = 0;
}

/* ------------------------------------------------------------ filters */

DAMON_CFS_WORD_ATTR(damos_cfs_filter_, type, to_damos_cfs_filter,
		    o->cctx->lock, type, damos_filter_type_name,
		    NR_DAMOS_FILTER_TYPES, damon_any_ops_can_filter);
DAMON_CFS_NUM_ATTR(damos_cfs_filter_, addr_start, to_damos_cfs_filter,
		   o->cctx->lock, addr_start, 0, ULONG_MAX);
DAMON_CFS_NUM_ATTR(damos_cfs_filter_, addr_end, to_damos_cfs_filter,
		   o->cctx->lock, addr_end, 0, ULONG_MAX);

static ssize_t damos_cfs_filter_matching_show(struct config_item *i,
					      char *page)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);

	guard(mutex)(&cf->cctx->lock);
	return sysfs_emit(page, "%c\n", cf->matching ? 'Y' : 'N');
}

/*
 * What kstrtobool() takes, the true half first, as whole words: kstrtobool()
 * itself looks at the first characters only.
 */
static const char * const damos_cfs_bool_words[] = {
	"y", "Y", "1", "on", "n", "N", "0", "off",
};

static const char *damos_cfs_bool_word(unsigned int i)
{
	return damos_cfs_bool_words[i];
}

static ssize_t damos_cfs_filter_matching_store(struct config_item *i,
					       const char *page, size_t count)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);
	int w = damon_cfs_parse_word(page, count, damos_cfs_bool_word,
				     ARRAY_SIZE(damos_cfs_bool_words));

	if (w < 0)
		return w;
	scoped_guard(mutex, &cf->cctx->lock)
		cf->matching = w < ARRAY_SIZE(damos_cfs_bool_words) / 2;
	return count;
}

static ssize_t damos_cfs_filter_target_show(struct config_item *i, char *page)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);

	guard(mutex)(&cf->cctx->lock);
	return sysfs_emit(page, "%s\n", cf->target);
}

static ssize_t damos_cfs_filter_target_store(struct config_item *i,
					     const char *page, size_t count)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);
	size_t len = count;

	if (damon_cfs_check_nul(page, count))
		return -EINVAL;
	if (len && page[len - 1] == '\n')
		len--;
	if (len > NAME_MAX || memchr(page, '/', len))
		return -EINVAL;
	guard(mutex)(&cf->cctx->lock);
	memcpy(cf->target, page, len);
	cf->target[len] = '\0';
	return count;
}

static ssize_t damos_cfs_filter_memcg_path_show(struct config_item *i,
						char *page)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);

	return damos_cfs_path_show(&cf->cctx->lock, &cf->memcg_path, page);
}

static ssize_t damos_cfs_filter_memcg_path_store(struct config_item *i,
						 const char *page, size_t count)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);

	return damos_cfs_path_store(&cf->cctx->lock, &cf->memcg_path, page,
				    count);
}

DAMON_CFS_ATTR(damos_cfs_filter_, matching);
DAMON_CFS_ATTR(damos_cfs_filter_, target);
DAMON_CFS_ATTR(damos_cfs_filter_, memcg_path);

static struct configfs_attribute *damos_cfs_filter_attrs[] = {
	&damos_cfs_filter_attr_type,
	&damos_cfs_filter_attr_matching,
	&damos_cfs_filter_attr_addr_start,
	&damos_cfs_filter_attr_addr_end,
	&damos_cfs_filter_attr_target,
	&damos_cfs_filter_attr_memcg_path,
	NULL,
};

static void damos_cfs_filter_release(struct config_item *i)
{
	struct damos_cfs_filter *cf = to_damos_cfs_filter(i);

	kfree(cf->memcg_path);
	kfree(cf);
}

static const struct config_item_type damos_cfs_filter_type =
	DAMON_CFS_TYPE(damos_cfs_filter_attrs,
		       DAMON_CFS_RELEASE(damos_cfs_filter_release));

static struct config_item *damos_cfs_filter_make(struct config_group *group,
						 const char *name)
{
	struct damos_cfs_scheme *cs = container_of(group,
			struct damos_cfs_scheme, filters_group);
	struct damos_cfs_filter *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return ERR_PTR(-ENOMEM);
	cf->cctx = cs->cctx;
	cf->type = DAMOS_FILTER_ANON;
	cf->matching = true;
	config_item_init_type_name(&cf->item, name, &damos_cfs_filter_type);
	return &cf->item;
}

static const struct config_item_type damos_cfs_filters_type =
	DAMON_CFS_TYPE(NULL, DAMON_CFS_MKDIR(make_item, damos_cfs_filter_make));

/* ------------------------------------------------------------ schemes */

DAMON_CFS_WORD_ATTR(damos_cfs_scheme_, action, to_damos_cfs_scheme,
		    o->cctx->lock, action, damos_action_name, NR_DAMOS_ACTIONS,
		    damon_any_ops_can_apply);
DAMON_CFS_NUM_ATTR(damos_cfs_scheme_, apply_interval_us, to_damos_cfs_scheme,
		   o->cctx->lock, apply_interval_us, 0, ULONG_MAX);

static ssize_t damos_cfs_scheme_target_nid_show(struct config_item *i,
						char *page)
{
	struct damos_cfs_scheme *cs = to_damos_cfs_scheme(i);

	guard(mutex)(&cs->cctx->lock);
	return sysfs_emit(page, "%d\n", cs->target_nid);
}

/* -1 (no node) or a node number; whether it has memory is checked at on */
static ssize_t damos_cfs_scheme_target_nid_store(struct config_item *i,
						 const char *page, size_t count)
{
	struct damos_cfs_scheme *cs = to_damos_cfs_scheme(i);
	int nid, err;

	if (damon_cfs_check_nul(page, count))
		return -EINVAL;
	err = kstrtoint(page, 10, &nid);
	if (err)
		return err;
	if (nid < NUMA_NO_NODE || nid >= MAX_NUMNODES)
		return -ERANGE;
	scoped_guard(mutex, &cs->cctx->lock)
		cs->target_nid = nid;
	return count;
}

DAMON_CFS_ATTR(damos_cfs_scheme_, target_nid);

static struct configfs_attribute *damos_cfs_scheme_attrs[] = {
	&damos_cfs_scheme_attr_action,
	&damos_cfs_scheme_attr_apply_interval_us,
	&damos_cfs_scheme_attr_target_nid,
	NULL,
};

static void damos_cfs_scheme_release(struct config_item *i)
{
	kfree(to_damos_cfs_scheme(i));
}

static const struct config_item_type damos_cfs_scheme_type =
	DAMON_CFS_TYPE(damos_cfs_scheme_attrs,
		       DAMON_CFS_RELEASE(damos_cfs_scheme_release));

static void damos_cfs_add_group(struct damos_cfs_scheme *cs,
				struct config_group *g, const char *name,
				const struct config_item_type *type)
{
	config_group_init_type_name(g, name, type);
	configfs_add_default_group(g, &cs->group);
}

static struct config_group *damos_cfs_scheme_make(struct config_group *group,
						  const char *name)
{
	struct damon_cfs_ctx *cctx = container_of(group, struct damon_cfs_ctx,
						  schemes_group);
	struct damos_cfs_scheme *cs;

	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return ERR_PTR(-ENOMEM);
	cs->cctx = cctx;
	spin_lock_init(&cs->stat_lock);
	cs->action = DAMOS_STAT;
	cs->target_nid = NUMA_NO_NODE;
	damos_default_params(&cs->pattern, &cs->quota, &cs->wmarks);

	config_group_init_type_name(&cs->group, name, &damos_cfs_scheme_type);
	damos_cfs_add_group(cs, &cs->pattern_group, "access_pattern",
			    &damos_cfs_pattern_type);
	damos_cfs_add_group(cs, &cs->quotas_group, "quotas",
			    &damos_cfs_quotas_type);
	config_group_init_type_name(&cs->goals_group, "goals",
				    &damos_cfs_goals_type);
	configfs_add_default_group(&cs->goals_group, &cs->quotas_group);
	damos_cfs_add_group(cs, &cs->wmarks_group, "watermarks",
			    &damos_cfs_wmarks_type);
	damos_cfs_add_group(cs, &cs->filters_group, "filters",
			    &damos_cfs_filters_type);
	damos_cfs_add_group(cs, &cs->stats_group, "stats",
			    &damos_cfs_stats_type);
	return &cs->group;
}

const struct config_item_type damos_cfs_schemes_type =
	DAMON_CFS_TYPE(NULL,
		       DAMON_CFS_MKDIR(make_group, damos_cfs_scheme_make));

/* ------------------------------------------------------------ plans */

#ifdef CONFIG_MEMCG
/*
 * The memory cgroup of the cgroup v2 directory @path, with a reference, or
 * NULL if there is none or the memory controller is not enabled for it
 * (its memory would be charged to an ancestor).
 */
static struct mem_cgroup *damos_cfs_memcg_get(const char *path)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp))
		return NULL;
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	if (css && css->cgroup != cgrp) {
		css_put(css);
		css = NULL;
	}
	cgroup_put(cgrp);
	return css ? mem_cgroup_from_css(css) : NULL;
}
#else
static struct mem_cgroup *damos_cfs_memcg_get(const char *path)
{
	return NULL;
}
#endif

static int damos_cfs_build_filter(struct damon_cfs_ctx *cctx,
				  struct damos_cfs_scheme *cs,
				  struct damos_cfs_filter *cf, struct damos *s,
				  enum damon_ops_id ops_id,
				  const char * const *target_names,
				  unsigned int nr_targets)
{
	const char *where = config_item_name(&cs->group.cg_item);
	struct damos_filter *f;
	unsigned int i;

	if (!damon_registered_ops_can_filter(ops_id, cf->type))
		return damon_cfs_refuse(cctx, -EINVAL,
					"scheme %s: filter %s: %s cannot filter by %s\n",
					where, config_item_name(&cf->item),
					damon_ops_name(ops_id),
					damos_filter_type_name(cf->type));
	f = damos_filter_alloc(cf->type, cf->matching);
	if (!f)
		return -ENOMEM;
	damos_filter_append(s, f);
	switch (cf->type) {
	case DAMOS_FILTER_ADDR:
		if (cf->addr_start >= cf->addr_end)
			return damon_cfs_refuse(cctx, -EINVAL,
						"scheme %s: filter %s: need addr_start < addr_end\n",
						where, config_item_name(&cf->item));
		f->addr_range.start = cf->addr_start;
		f->addr_range.end = cf->addr_end;
		break;
	case DAMOS_FILTER_TARGET:
		for (i = 0; i < nr_targets; i++)
			if (!strcmp(target_names[i], cf->target))
				break;
		if (i == nr_targets)
			return damon_cfs_refuse(cctx, -EINVAL,
						"scheme %s: filter %s: no target '%s'\n",
						where, config_item_name(&cf->item),
						cf->target);
		f->target_idx = i;
		break;
	case DAMOS_FILTER_MEMCG:
		f->memcg = cf->memcg_path ?
			   damos_cfs_memcg_get(cf->memcg_path) : NULL;
		if (!f->memcg)
			return damon_cfs_refuse(cctx, -EINVAL,
						"scheme %s: filter %s: no memory cgroup at '%s'\n",
						where, config_item_name(&cf->item),
						cf->memcg_path ?: "");
		break;
	default:
		break;
	}
	return 0;
}

static int damos_cfs_build_goal(struct damon_cfs_ctx *cctx,
				struct damos_cfs_scheme *cs,
				struct damos_cfs_goal *cg, struct damos *s)
{
	const char *where = config_item_name(&cs->group.cg_item);
	const char *name = config_item_name(&cg->item);
	struct damos_quota_goal *g;

	if (!cg->target_value)
		return damon_cfs_refuse(cctx, -EINVAL,
					"scheme %s: goal %s: target_value is 0\n",
					where, name);
	g = damos_goal_alloc(cg->metric, cg->target_value);
	if (!g)
		return -ENOMEM;
	damos_goal_append(s, g);
	g->priv = cg;
	g->nid = cg->nid;
	scoped_guard(spinlock, &cs->stat_lock)
		g->current_value = cg->current_value;
	if (damos_goal_metric_per_node(g->metric) &&
	    !damos_target_nid_valid(g->nid))
		return damon_cfs_refuse(cctx, -EINVAL,
					"scheme %s: goal %s: node %d has no memory\n",
					where, name, g->nid);
	if (damos_goal_metric_per_memcg(g->metric)) {
		g->memcg = cg->memcg_path ?
			   damos_cfs_memcg_get(cg->memcg_path) : NULL;
		if (!g->memcg)
			return damon_cfs_refuse(cctx, -EINVAL,
						"scheme %s: goal %s: no memory cgroup at '%s'\n",
						where, name,
						cg->memcg_path ?: "");
	}
	return 0;
}

/*
 * The checked struct damos that scheme directory @cs describes, for a
 * context of operations @ops_id whose targets, in order, are named
 * @target_names.  Needs su_mutex and cctx->lock.
 */
struct damos *damos_cfs_build(struct damon_cfs_ctx *cctx,
			      struct damos_cfs_scheme *cs,
			      enum damon_ops_id ops_id,
			      const char * const *target_names,
			      unsigned int nr_targets)
{
	const char *name = config_item_name(&cs->group.cg_item);
	struct config_item *item;
	struct damos *s;
	int err;

	if (!damon_registered_ops_can_apply(ops_id, cs->action))
		return ERR_PTR(damon_cfs_refuse(cctx, -EINVAL, "scheme %s: %s cannot %s\n",
						name, damon_ops_name(ops_id),
						damos_action_name(cs->action)));
	s = damos_scheme_alloc();
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->priv = cs;
	s->action = cs->action;
	s->target_nid = cs->target_nid;
	s->apply_interval_us = cs->apply_interval_us;
	s->pattern = cs->pattern;
	s->quota = cs->quota;
	s->wmarks = cs->wmarks;

	list_for_each_entry(item, &cs->filters_group.cg_children, ci_entry) {
		err = damos_cfs_build_filter(cctx, cs,
					     to_damos_cfs_filter(item), s,
					     ops_id, target_names, nr_targets);
		if (err)
			goto fail;
	}
	list_for_each_entry(item, &cs->goals_group.cg_children, ci_entry) {
		err = damos_cfs_build_goal(cctx, cs, to_damos_cfs_goal(item),
					   s);
		if (err)
			goto fail;
	}
	if ((s->action == DAMOS_MIGRATE_HOT ||
	     s->action == DAMOS_MIGRATE_COLD) &&
	    !damos_target_nid_valid(s->target_nid)) {
		err = damon_cfs_refuse(cctx, -EINVAL,
				       "scheme %s: target_nid %d is not a node with memory\n",
				       name, s->target_nid);
		goto fail;
	}
	err = damos_validate(s);
	if (err) {
		damon_cfs_refuse(cctx, err,
				 "scheme %s: need min <= max in access_pattern, and low <= mid <= high with a watermark metric\n",
				 name);
		goto fail;
	}
	return s;
fail:
	damos_scheme_free(s);
	return ERR_PTR(err);
}
