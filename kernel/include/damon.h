/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON: data access monitoring.
 *
 * A monitoring context (struct damon_ctx) watches one or more targets.  Each
 * target's address space is covered by regions; one page of each region is
 * sampled per sampling interval and the region's access counter grows when
 * that page was accessed.  At each aggregation interval the counters are
 * published, adjacent regions with similar counters are merged and regions
 * are split again at random points, so the number of regions (and with it
 * the monitoring cost) stays within user-given bounds whatever the size of
 * the target.
 *
 * Address-space specifics (page tables, VMAs, physical memory) live behind
 * struct damon_operations; the core knows nothing about them.
 *
 * Ownership: while a context's kdamond runs, the kdamond alone touches the
 * context's targets, regions and attributes.  Other code gets at them only
 * from the callbacks in struct damon_callbacks, which the kdamond calls.
 */

#ifndef _LINUX_DAMON_H
#define _LINUX_DAMON_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/types.h>

struct mem_cgroup;
struct pid;
struct task_struct;

/* No region is smaller than this, and every region boundary is aligned to it. */
#define DAMON_MIN_REGION	PAGE_SIZE

/**
 * struct damon_region - a monitored address range with its access record.
 * @start:		first address of the range (inclusive).
 * @end:		end of the range (exclusive).
 * @sampling_addr:	the page checked at the next sample.
 * @nr_accesses:	samples that found the region accessed since the last
 *			aggregation.
 * @age:		aggregation intervals this region has kept a similar
 *			size and access frequency.
 * @last_nr_accesses:	@nr_accesses at the previous aggregation.
 * @last_start:		@start at the previous aggregation.
 * @last_end:		@end at the previous aggregation.
 * @list:		link in the target's region list (sorted by address).
 */
struct damon_region {
	unsigned long start;
	unsigned long end;
	unsigned long sampling_addr;
	unsigned int nr_accesses;
	unsigned int age;
	unsigned int last_nr_accesses;
	unsigned long last_start;
	unsigned long last_end;
	struct list_head list;
};

/**
 * struct damon_target - something to monitor.
 * @pid:	the process, for virtual address operations.  A reference to
 *		the struct pid, never a number, so that a recycled pid number
 *		can never redirect monitoring to another process.
 * @nr_regions:	number of entries in @regions.
 * @regions:	regions, sorted by address and not overlapping.
 * @list:	link in the context's target list.
 * @priv:	for the interface layer that created the target.
 */
struct damon_target {
	struct pid *pid;
	unsigned int nr_regions;
	struct list_head regions;
	struct list_head list;
	void *priv;
};

/**
 * struct damon_addr_range - a plain [start, end) address range.
 * @start:	inclusive start.
 * @end:	exclusive end.
 */
struct damon_addr_range {
	unsigned long start;
	unsigned long end;
};

enum damon_ops_id {
	DAMON_OPS_VADDR,	/* virtual address space, regions follow mappings */
	DAMON_OPS_FVADDR,	/* virtual address space, fixed regions */
	DAMON_OPS_PADDR,	/* physical address space */
	NR_DAMON_OPS,
};

/* ------------------------------------------------------------ DAMOS */

/* What a scheme does to the regions that match its access pattern. */
enum damos_action {
	DAMOS_WILLNEED,		/* madvise(MADV_WILLNEED) */
	DAMOS_COLD,		/* madvise(MADV_COLD) */
	DAMOS_PAGEOUT,		/* madvise(MADV_PAGEOUT) */
	DAMOS_HUGEPAGE,		/* madvise(MADV_HUGEPAGE) */
	DAMOS_NOHUGEPAGE,	/* madvise(MADV_NOHUGEPAGE) */
	DAMOS_STAT,		/* only count */
	DAMOS_LRU_PRIO,		/* activate on the LRU lists (paddr) */
	DAMOS_LRU_DEPRIO,	/* deactivate on the LRU lists (paddr) */
	DAMOS_MIGRATE_HOT,	/* move to damos->target_nid, hot first (paddr) */
	DAMOS_MIGRATE_COLD,	/* the same, cold first (paddr) */
	NR_DAMOS_ACTIONS,
};

/**
 * struct damos_access_pattern - which regions a scheme acts on.
 *
 * All ranges are inclusive: a region matches if its size, nr_accesses (per
 * aggregation interval) and age (in aggregation intervals) each lie within
 * [min, max].
 */
struct damos_access_pattern {
	unsigned long min_sz;
	unsigned long max_sz;
	unsigned int min_nr_accesses;
	unsigned int max_nr_accesses;
	unsigned int min_age;
	unsigned int max_age;
};

/* Priority scores of regions under a quota: 0 (last) .. DAMOS_MAX_SCORE. */
#define DAMOS_MAX_SCORE		100

/**
 * struct damos_quota - how much a scheme may do per reset interval.
 * @ms:			time budget for applying the action; 0: none.
 * @sz:			bytes the action may be applied to; 0: no limit.
 * @reset_interval_ms:	the budgets renew every this many ms.
 * @weight_sz:		weight of region size in the priority score.
 * @weight_nr_accesses:	weight of access frequency in the score.
 * @weight_age:		weight of age in the score.
 * @esz:		effective size quota of the current interval: @sz,
 *			or less if @ms, or the scheme's goals, allow less.
 *
 * The rest is the core's bookkeeping.  With neither @ms nor @sz nor goals
 * (&damos->goals) the scheme is unlimited.
 */
struct damos_quota {
	unsigned long ms;
	unsigned long sz;
	unsigned long reset_interval_ms;
	unsigned int weight_sz;
	unsigned int weight_nr_accesses;
	unsigned int weight_age;
	unsigned long esz;

	unsigned long charged_sz;	/* bytes acted on this interval */
	unsigned long charged_from;	/* jiffies the interval started */
	u64 total_charged_sz;		/* for the speed estimate of @ms */
	u64 total_charged_ns;
	unsigned int min_score;		/* lowest score acted on now */
	unsigned long min_score_left;	/* bytes left for that score */
	unsigned long histogram[DAMOS_MAX_SCORE + 1];	/* bytes by score */
	unsigned long goal_esz;		/* the goals' quota; 0: not started */
	u64 psi_mem_some_ns;		/* PSI total at the last interval */
};

/*
 * What a quota goal measures.  Each metric grows as the scheme does more:
 * the feedback loop relies on that (see goals.c).
 */
enum damos_goal_metric {
	DAMOS_GOAL_USER_INPUT,		/* a value the user feeds */
	DAMOS_GOAL_SOME_MEM_PSI_US,	/* memory stall time per interval */
	DAMOS_GOAL_NODE_MEM_USED_BP,	/* a node's used memory */
	DAMOS_GOAL_NODE_MEM_FREE_BP,	/* a node's free memory */
	DAMOS_GOAL_NODE_MEMCG_USED_BP,	/* a memcg's memory on a node */
	DAMOS_GOAL_NODE_MEMCG_FREE_BP,	/* a node's memory not the memcg's */
	DAMOS_GOAL_ACTIVE_MEM_BP,	/* active share of LRU memory */
	DAMOS_GOAL_INACTIVE_MEM_BP,	/* inactive share of LRU memory */
	NR_DAMOS_GOAL_METRICS,
};

/**
 * struct damos_quota_goal - a value a scheme's quota is tuned to reach.
 * @metric:		what is measured.
 * @target_value:	the value to reach (never 0).
 * @current_value:	the last measured value; for DAMOS_GOAL_USER_INPUT
 *			the interface writes it.
 * @nid:		the node of the node metrics.
 * @memcg:		the memory cgroup of the memcg metrics, referenced
 *			(dropped by damos_goal_free()).
 * @priv:		for the interface layer.
 * @list:		in the scheme's goal list.
 */
struct damos_quota_goal {
	enum damos_goal_metric metric;
	unsigned long target_value;
	unsigned long current_value;
	int nid;
	struct mem_cgroup *memcg;
	void *priv;
	struct list_head list;
};

enum damos_wmark_metric {
	DAMOS_WMARK_NONE,		/* always active */
	DAMOS_WMARK_FREE_MEM_RATE,	/* free memory, per mille of total */
	NR_DAMOS_WMARK_METRICS,
};

/**
 * struct damos_watermarks - when a scheme is active.
 * @metric:	what is measured.
 * @interval_us: how often it is measured.
 * @high:	above this the scheme is deactivated.
 * @mid:	an inactive scheme is activated at or below this...
 * @low:	...and deactivated below this.
 * @active:	current state.
 * @next_check_ns: when to measure next (ktime).
 */
struct damos_watermarks {
	enum damos_wmark_metric metric;
	unsigned long interval_us;
	unsigned long high;
	unsigned long mid;
	unsigned long low;
	bool active;
	u64 next_check_ns;
};

/*
 * The core filters regions itself by address and target; the other types
 * are decided per folio by the operations, those that list them in
 * &damon_operations->filters.
 */
enum damos_filter_type {
	DAMOS_FILTER_ANON,	/* anonymous memory (ops level) */
	DAMOS_FILTER_ADDR,	/* an address range (core) */
	DAMOS_FILTER_TARGET,	/* a target, by index (core) */
	DAMOS_FILTER_MEMCG,	/* charged to a memory cgroup (ops level) */
	DAMOS_FILTER_YOUNG,	/* accessed since last checked (ops level) */
	NR_DAMOS_FILTER_TYPES,
};

/**
 * struct damos_filter - memory a scheme must leave alone.
 * @type:	what the filter looks at.
 * @matching:	true: exclude the memory of @type; false: exclude the
 *		memory that is not of @type (act only on @type).
 * @addr_range:	for DAMOS_FILTER_ADDR.
 * @target_idx:	for DAMOS_FILTER_TARGET, the target's index in the context.
 * @memcg:	for DAMOS_FILTER_MEMCG, the memory cgroup; the filter holds a
 *		reference, dropped by damos_filter_free(), so that the
 *		pointer cannot come to mean another cgroup.
 * @list:	in the scheme's filter list.
 */
struct damos_filter {
	enum damos_filter_type type;
	bool matching;
	struct damon_addr_range addr_range;
	unsigned int target_idx;
	struct mem_cgroup *memcg;
	struct list_head list;
};

/**
 * struct damos_stat - what a scheme did, since it was created.
 * @nr_tried:	regions that matched the pattern and passed core filters.
 * @sz_tried:	their total size.
 * @nr_applied:	regions the action was applied to (at least partly).
 * @sz_applied:	bytes the action succeeded on.
 * @qt_exceeds:	times the quota stopped the scheme in an interval.
 */
struct damos_stat {
	unsigned long nr_tried;
	unsigned long sz_tried;
	unsigned long nr_applied;
	unsigned long sz_applied;
	unsigned long qt_exceeds;
};

/**
 * struct damos - a scheme: act on regions of an access pattern.
 * @pattern:		which regions.
 * @action:		what to do.
 * @target_nid:		the node the migrate actions move memory to
 *			(NUMA_NO_NODE: none).
 * @apply_interval_us:	how often; 0: every aggregation interval.
 * @quota:		how much.
 * @wmarks:		when.
 * @filters:		what to leave alone.
 * @goals:		what the quota is tuned to reach (&struct
 *			damos_quota_goal); kept out of @quota, which
 *			interfaces copy by value.
 * @stat:		what it did.
 * @next_apply_sample:	kdamond bookkeeping for @apply_interval_us.
 * @priv:		for the interface layer.
 * @list:		in the context's scheme list.
 */
struct damos {
	struct damos_access_pattern pattern;
	enum damos_action action;
	int target_nid;
	unsigned long apply_interval_us;
	struct damos_quota quota;
	struct damos_watermarks wmarks;
	struct list_head filters;
	struct list_head goals;
	struct damos_stat stat;
	unsigned long next_apply_sample;
	void *priv;
	struct list_head list;
};

struct damon_ctx;

/**
 * struct damon_operations - address-space specific monitoring primitives.
 * @id:			which address space these operations handle.
 * @name:		user-visible name ("vaddr", ...).
 * @init:		build the initial regions of targets that have none.
 * @update:		follow changes of the address space (each update
 *			interval).
 * @prepare_samples: pick the page to sample in every region and clear
 *			its accessed state.
 * @check_samples:	count the regions whose sampled page was accessed
 *			since it was prepared; returns the largest
 *			&damon_region->nr_accesses seen.  With @prepare_next,
 *			also prepare the next sample of each region in the
 *			same pass, as prepare_samples() would: the
 *			kdamond asks for that when the regions stay as they
 *			are until the next check.
 * @target_alive:	whether the target can still be monitored.
 * @apply_scheme:	apply the scheme's action to [@start, @end) of the
 *			target, honouring the scheme's ops-level filters;
 *			returns the bytes the action succeeded on.
 * @actions:		the actions @apply_scheme implements, a bit per
 *			&enum damos_action (stat needs none).
 * @filters:		the ops-level filter types @apply_scheme honours, a
 *			bit per &enum damos_filter_type.
 * @cleanup:		release what the operations hold for the context.
 *
 * All callbacks run in the context's kdamond.  @init, @prepare_samples,
 * @check_samples and @target_alive are mandatory.
 */
struct damon_operations {
	enum damon_ops_id id;
	const char *name;
	int (*init)(struct damon_ctx *ctx);
	void (*update)(struct damon_ctx *ctx);
	void (*prepare_samples)(struct damon_ctx *ctx);
	unsigned int (*check_samples)(struct damon_ctx *ctx, bool prepare_next);
	bool (*target_alive)(struct damon_target *t);
	unsigned long (*apply_scheme)(struct damon_ctx *ctx,
				      struct damon_target *t,
				      unsigned long start, unsigned long end,
				      struct damos *s);
	unsigned long actions;
	unsigned long filters;
	void (*cleanup)(struct damon_ctx *ctx);
};

/**
 * struct damon_callbacks - hooks the kdamond calls for the interface layer.
 * @data:		free for the hooks' owner.
 * @before_start:	once, after the initial regions are built.
 * @after_aggregation:	each aggregation interval, after regions are merged
 *			and aged and before their counters restart.  The
 *			regions then form a consistent snapshot; this is also
 *			a safe point to change the context online (as is
 *			@while_idle, when the kdamond does not sample).
 * @while_idle:		while the watermarks keep every scheme inactive and
 *			the kdamond does not sample: as it stops sampling and
 *			after each time it wakes (a watermark check due,
 *			damon_kdamond_wake()).  The regions are as
 *			after_aggregation left them, with their counters
 *			restarted; the context may be changed here as there.
 * @before_terminate:	once, as the kdamond finishes.
 *
 * A hook returning non-zero stops the kdamond.
 */
struct damon_callbacks {
	void *data;
	int (*before_start)(struct damon_ctx *ctx);
	int (*after_aggregation)(struct damon_ctx *ctx);
	int (*while_idle)(struct damon_ctx *ctx);
	void (*before_terminate)(struct damon_ctx *ctx);
};

/**
 * struct damon_intervals_goal - what the intervals are tuned to reach.
 * @access_bp:		the share of the possible access observations (every
 *			sample of every byte seeing an access) a window should
 *			make, in basis points; 0: no tuning.
 * @aggrs:		tune every this many aggregation intervals.
 * @min_sample_us:	the sampling interval's lower bound...
 * @max_sample_us:	...and upper bound.
 */
struct damon_intervals_goal {
	unsigned long access_bp;
	unsigned long aggrs;
	unsigned long min_sample_us;
	unsigned long max_sample_us;
};

/**
 * struct damon_attrs - monitoring attributes.
 * @sample_us:		sampling interval.
 * @aggr_us:		aggregation interval.
 * @update_us:		operations update interval.
 * @min_nr_regions:	lower bound on the number of regions (per context).
 * @max_nr_regions:	upper bound on the number of regions (per context).
 * @intervals_goal:	auto-tuning of @sample_us and @aggr_us (tuning.c).
 *
 * Valid when 0 < sample_us <= aggr_us <= update_us and
 * 3 <= min_nr_regions <= max_nr_regions; see damon_validate_attrs().
 */
struct damon_attrs {
	unsigned long sample_us;
	unsigned long aggr_us;
	unsigned long update_us;
	unsigned long min_nr_regions;
	unsigned long max_nr_regions;
	struct damon_intervals_goal intervals_goal;
};

/* Defaults, as upstream's sysfs interface except update_us (seed value). */
#define DAMON_DEFAULT_SAMPLE_US		5000
#define DAMON_DEFAULT_AGGR_US		100000
#define DAMON_DEFAULT_UPDATE_US		1000000
#define DAMON_DEFAULT_MIN_NR_REGIONS	10
#define DAMON_DEFAULT_MAX_NR_REGIONS	1000

/**
 * struct damon_ctx - a monitoring context.
 * @attrs:		monitoring attributes.
 * @ops:		the operations in use.
 * @cb:			interface hooks.
 * @targets:		the targets.
 * @schemes:		the DAMOS schemes.
 * @nr_aggregations:	aggregations completed since the last start.
 * @kdamond_lock:	protects @kdamond and @kdamond_done against
 *			concurrent start, stop and state queries.
 * @kdamond:		the monitoring thread (a task reference is held),
 *			or NULL when not started.
 * @kdamond_done:	set by the kdamond when it finished on its own.
 * @kdamond_up:	completed when the kdamond has run the operations'
 *			init and the before_start callback: a started
 *			kdamond always runs its callbacks, even when stopped
 *			at once, and damon_start() returns after before_start.
 * @kdamond_woken:	set by damon_kdamond_wake(), cleared by the kdamond
 *			when it calls the while_idle callback.
 *
 * The remaining members are the kdamond's private bookkeeping.
 */
struct damon_ctx {
	struct damon_attrs attrs;
	struct damon_operations ops;
	struct damon_callbacks cb;
	struct list_head targets;
	struct list_head schemes;
	unsigned long nr_aggregations;

	struct mutex kdamond_lock;	/* see the kernel-doc above */
	struct task_struct *kdamond;
	bool kdamond_done;
	struct completion kdamond_up;
	bool kdamond_woken;

	/* kdamond bookkeeping, in units of sampling intervals */
	unsigned long passed_samples;
	unsigned long next_aggr_sample;
	unsigned long next_update_sample;
	/* number of regions after the previous split, to pick the split ways */
	unsigned int last_nr_regions;
	/* intervals tuning: the attributes as set, and the windows' records */
	struct damon_attrs tune_base;
	unsigned long tune_sum_bp;
	unsigned long tune_nr_aggrs;
	/* the kdamond's pseudo-random numbers for picking sampled pages */
	struct rnd_state rnd;
};

static inline unsigned long damon_sz_region(const struct damon_region *r)
{
	return r->end - r->start;
}

static inline struct damon_region *damon_region_next(struct damon_region *r)
{
	return list_next_entry(r, list);
}

static inline struct damon_region *damon_region_prev(struct damon_region *r)
{
	return list_prev_entry(r, list);
}

static inline struct damon_region *damon_regions_first(struct damon_target *t)
{
	return list_first_entry(&t->regions, struct damon_region, list);
}

static inline struct damon_region *damon_regions_last(struct damon_target *t)
{
	return list_last_entry(&t->regions, struct damon_region, list);
}

/*
 * Every list of the model (a target's regions, a context's targets and
 * schemes, a scheme's filters) links its members through their @list: one
 * pair of iterators walks them all.  The _safe forms let the body remove
 * @pos, with @tmp holding the member after it.
 */
#define damon_for_each_in(pos, head) list_for_each_entry(pos, head, list)
#define damon_for_each_in_safe(pos, tmp, head) \
	list_for_each_entry_safe(pos, tmp, head, list)

#define damon_for_each_region(r, t) damon_for_each_in(r, &(t)->regions)
#define damon_for_each_region_safe(r, tmp, t) \
	damon_for_each_in_safe(r, tmp, &(t)->regions)
#define damon_for_each_target(t, ctx) damon_for_each_in(t, &(ctx)->targets)
#define damon_for_each_target_safe(t, tmp, ctx) \
	damon_for_each_in_safe(t, tmp, &(ctx)->targets)
#define damon_for_each_scheme(s, ctx) damon_for_each_in(s, &(ctx)->schemes)
#define damon_for_each_scheme_safe(s, tmp, ctx) \
	damon_for_each_in_safe(s, tmp, &(ctx)->schemes)
#define damos_for_each_goal(g, s) damon_for_each_in(g, &(s)->goals)
#define damos_for_each_filter(f, s) damon_for_each_in(f, &(s)->filters)
#define damos_for_each_filter_safe(f, tmp, s) \
	damon_for_each_in_safe(f, tmp, &(s)->filters)

#ifdef CONFIG_DAMON

/* regions and targets */
struct damon_region *damon_region_alloc(unsigned long start, unsigned long end);
void damon_region_insert(struct damon_region *r, struct damon_region *pos,
			 struct damon_target *t);
void damon_region_append(struct damon_region *r, struct damon_target *t);
void damon_region_free(struct damon_region *r, struct damon_target *t);
int damon_set_regions(struct damon_target *t,
		      const struct damon_addr_range *ranges,
		      unsigned int nr_ranges);
int damon_split_region_evenly(struct damon_target *t, struct damon_region *r,
			      unsigned int nr_pieces);

struct damon_target *damon_target_alloc(void);
void damon_target_append(struct damon_ctx *ctx, struct damon_target *t);
void damon_target_free(struct damon_target *t);
bool damon_target_has_pid(const struct damon_ctx *ctx);
unsigned int damon_nr_regions(const struct damon_ctx *ctx);

/* contexts */
struct damon_attrs damon_default_attrs(void);
struct damon_ctx *damon_ctx_alloc(void);
void damon_ctx_free(struct damon_ctx *ctx);
int damon_validate_attrs(const struct damon_attrs *attrs);
int damon_set_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs);
bool damon_tuning_intervals(const struct damon_attrs *attrs);

/* operations */
int damon_register_ops(const struct damon_operations *ops);
bool damon_ops_registered(enum damon_ops_id id);
int damon_ctx_set_ops(struct damon_ctx *ctx, enum damon_ops_id id);
const char *damon_ops_name(enum damon_ops_id id);
int damon_ops_id_of(const char *name, enum damon_ops_id *id);

/* schemes */
void damos_default_params(struct damos_access_pattern *pattern,
			  struct damos_quota *quota,
			  struct damos_watermarks *wmarks);
struct damos *damos_scheme_alloc(void);
unsigned long damos_quota_effective_sz(const struct damos *s);
void damos_scheme_append(struct damon_ctx *ctx, struct damos *s);
void damos_scheme_free(struct damos *s);
struct damos_filter *damos_filter_alloc(enum damos_filter_type type,
					bool matching);
void damos_filter_append(struct damos *s, struct damos_filter *f);
void damos_filter_free(struct damos_filter *f);
struct damos_quota_goal *damos_goal_alloc(enum damos_goal_metric metric,
					  unsigned long target_value);
void damos_goal_append(struct damos *s, struct damos_quota_goal *g);
void damos_goal_free(struct damos_quota_goal *g);
const char *damos_goal_metric_name(enum damos_goal_metric metric);
bool damos_goal_metric_available(enum damos_goal_metric metric);
bool damos_goal_metric_per_node(enum damos_goal_metric metric);
bool damos_goal_metric_per_memcg(enum damos_goal_metric metric);
int damos_validate(const struct damos *s);
void damos_commit(struct damon_ctx *ctx, struct damos *dst, struct damos *src);
bool damon_ops_can_apply(const struct damon_operations *ops,
			 enum damos_action action);
bool damon_registered_ops_can_apply(enum damon_ops_id id,
				    enum damos_action action);
bool damon_any_ops_can_apply(enum damos_action action);
bool damon_ops_can_filter(const struct damon_operations *ops,
			  enum damos_filter_type type);
bool damon_registered_ops_can_filter(enum damon_ops_id id,
				     enum damos_filter_type type);
bool damon_any_ops_can_filter(enum damos_filter_type type);
bool damon_pid_has_mm(struct pid *pid);
const char *damos_action_name(enum damos_action action);
int damos_action_of(const char *name, enum damos_action *action);
const char *damos_filter_type_name(enum damos_filter_type type);
bool damos_target_nid_valid(int nid);

/* the kdamond */
int damon_start(struct damon_ctx *ctx, const char *name);
int damon_stop(struct damon_ctx *ctx);
bool damon_kdamond_running(struct damon_ctx *ctx);
void damon_kdamond_wake(struct damon_ctx *ctx);
int damon_ctx_kdamond_pid(struct damon_ctx *ctx);

#endif /* CONFIG_DAMON */

#endif /* _LINUX_DAMON_H */
