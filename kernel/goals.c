// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS quota goals: a feedback loop that sizes a scheme's quota.
 *
 * A goal names a metric and the value it should reach.  Every metric here
 * grows when the scheme does more (reclaim frees memory and may cause
 * stalls, lru_prio activates memory, migrate_hot fills a node), so the loop
 * needs no sign per goal: too low a value asks for a larger quota, too high
 * a value for a smaller one.
 *
 * At the start of each reset interval the kdamond measures every goal and
 * scores it: the measured value in basis points of the target (10000: met
 * exactly), capped at 20000.  The highest score among the goals that could
 * be measured steers: every goal is a ceiling the scheme must not push
 * past, so the quota stops growing once any goal is met.  The next quota is
 *
 *	next = last * (2 - score / 10000)
 *
 * which doubles it when the metric reads 0, keeps it when the goal is met,
 * halves it at 1.5 times the target and drops it to the floor at twice the
 * target.  Near the goal the steps get small, so it settles instead of
 * oscillating around it.  The quota never goes below DAMOS_GOAL_MIN_ESZ
 * (so that it can grow again), nor above the hard limits the user set in
 * @ms and @sz, nor above all of the machine's memory (more than that could
 * not be acted on anyway; the cap keeps the loop from winding up while a
 * goal cannot be reached, and then needing dozens of intervals to come
 * back).  When no goal can be measured (a node without memory, the first
 * interval of a PSI goal), the quota stays as it is.
 */

#define pr_fmt(fmt) "damos: " fmt

#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/psi.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "internal.h"

static const char * const damos_goal_metric_names[NR_DAMOS_GOAL_METRICS] = {
	[DAMOS_GOAL_USER_INPUT] = "user_input",
	[DAMOS_GOAL_SOME_MEM_PSI_US] = "some_mem_psi_us",
	[DAMOS_GOAL_NODE_MEM_USED_BP] = "node_mem_used_bp",
	[DAMOS_GOAL_NODE_MEM_FREE_BP] = "node_mem_free_bp",
	[DAMOS_GOAL_NODE_MEMCG_USED_BP] = "node_memcg_used_bp",
	[DAMOS_GOAL_NODE_MEMCG_FREE_BP] = "node_memcg_free_bp",
	[DAMOS_GOAL_ACTIVE_MEM_BP] = "active_mem_bp",
	[DAMOS_GOAL_INACTIVE_MEM_BP] = "inactive_mem_bp",
};

const char *damos_goal_metric_name(enum damos_goal_metric metric)
{
	return metric < NR_DAMOS_GOAL_METRICS ?
	       damos_goal_metric_names[metric] : NULL;
}

bool damos_goal_metric_per_node(enum damos_goal_metric metric)
{
	return metric >= DAMOS_GOAL_NODE_MEM_USED_BP &&
	       metric <= DAMOS_GOAL_NODE_MEMCG_FREE_BP;
}

bool damos_goal_metric_per_memcg(enum damos_goal_metric metric)
{
	return metric == DAMOS_GOAL_NODE_MEMCG_USED_BP ||
	       metric == DAMOS_GOAL_NODE_MEMCG_FREE_BP;
}

/* Whether this kernel can measure @metric. */
bool damos_goal_metric_available(enum damos_goal_metric metric)
{
	switch (metric) {
	case DAMOS_GOAL_SOME_MEM_PSI_US:
#ifdef CONFIG_PSI
		return !static_branch_likely(&psi_disabled);
#else
		return false;
#endif
	case DAMOS_GOAL_NODE_MEMCG_USED_BP:
	case DAMOS_GOAL_NODE_MEMCG_FREE_BP:
		return IS_ENABLED(CONFIG_MEMCG);
	default:
		return metric < NR_DAMOS_GOAL_METRICS;
	}
}

struct damos_quota_goal *damos_goal_alloc(enum damos_goal_metric metric,
					  unsigned long target_value)
{
	struct damos_quota_goal *g = kzalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return NULL;
	g->metric = metric;
	g->target_value = target_value;
	INIT_LIST_HEAD(&g->list);
	return g;
}

void damos_goal_append(struct damos *s, struct damos_quota_goal *g)
{
	list_add_tail(&g->list, &s->goals);
}

void damos_goal_free(struct damos_quota_goal *g)
{
	list_del(&g->list);
	mem_cgroup_put(g->memcg);
	kfree(g);
}

/* ------------------------------------------------------------ metrics */

/* @part in basis points of @whole; false if @whole is 0. */
static bool damos_goal_bp(unsigned long part, unsigned long whole,
			  unsigned long *bp)
{
	if (!whole)
		return false;
	*bp = mul_u64_u64_div_u64(min(part, whole), 10000, whole);
	return true;
}

/*
 * Stall time of some task on memory since the last interval, in µs.  The
 * system's total is refreshed by PSI's own averaging work, every two
 * seconds while there is activity: shorter reset intervals see it in
 * steps.
 */
static bool damos_goal_psi(struct damos_quota *q, unsigned long *us)
{
#ifdef CONFIG_PSI
	u64 total = READ_ONCE(psi_system.total[PSI_AVGS][PSI_MEM_SOME]);
	bool known = q->psi_mem_some_ns != 0;

	if (static_branch_likely(&psi_disabled))
		return false;
	*us = div_u64(total - min(q->psi_mem_some_ns, total), NSEC_PER_USEC);
	q->psi_mem_some_ns = total ?: 1;
	return known;
#else
	return false;
#endif
}

/* Node @nid's memory, in pages; without NUMA the one node is all of it. */
static void damos_goal_node_meminfo(struct sysinfo *si, int nid)
{
#ifdef CONFIG_NUMA
	si_meminfo_node(si, nid);
#else
	si_meminfo(si);
#endif
}

/* The pages of @memcg on the LRU lists of node @nid. */
static unsigned long damos_goal_memcg_pages(struct mem_cgroup *memcg,
					    int nid)
{
#ifdef CONFIG_MEMCG
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	unsigned long pages = 0;
	enum lru_list lru;

	for_each_evictable_lru(lru)
		pages += lruvec_page_state(lruvec, NR_LRU_BASE + lru);
	return pages;
#else
	return 0;
#endif
}

/* The LRU pages of the machine that are active (or inactive). */
static bool damos_goal_lru_bp(bool active, unsigned long *bp)
{
	unsigned long act, inact;

	act = global_node_page_state(NR_ACTIVE_ANON) +
	      global_node_page_state(NR_ACTIVE_FILE);
	inact = global_node_page_state(NR_INACTIVE_ANON) +
		global_node_page_state(NR_INACTIVE_FILE);
	return damos_goal_bp(active ? act : inact, act + inact, bp);
}

/* Measure @g into *@val; false if it cannot be measured now. */
static bool damos_goal_measure(struct damos_quota *q,
			       struct damos_quota_goal *g, unsigned long *val)
{
	enum damos_goal_metric m = g->metric;
	unsigned long used;
	struct sysinfo si = {};

	if (damos_goal_metric_per_node(m)) {
		if (!damos_target_nid_valid(g->nid))
			return false;
		damos_goal_node_meminfo(&si, g->nid);
	}
	switch (m) {
	case DAMOS_GOAL_USER_INPUT:
		*val = g->current_value;
		return true;
	case DAMOS_GOAL_SOME_MEM_PSI_US:
		return damos_goal_psi(q, val);
	case DAMOS_GOAL_NODE_MEM_USED_BP:
		return damos_goal_bp(si.totalram - si.freeram, si.totalram,
				     val);
	case DAMOS_GOAL_NODE_MEM_FREE_BP:
		return damos_goal_bp(si.freeram, si.totalram, val);
	case DAMOS_GOAL_NODE_MEMCG_USED_BP:
	case DAMOS_GOAL_NODE_MEMCG_FREE_BP:
		if (!g->memcg || !mem_cgroup_online(g->memcg))
			return false;
		used = min_t(unsigned long, si.totalram,
			     damos_goal_memcg_pages(g->memcg, g->nid));
		return damos_goal_bp(m == DAMOS_GOAL_NODE_MEMCG_USED_BP ?
				     used : si.totalram - used,
				     si.totalram, val);
	case DAMOS_GOAL_ACTIVE_MEM_BP:
	case DAMOS_GOAL_INACTIVE_MEM_BP:
		return damos_goal_lru_bp(m == DAMOS_GOAL_ACTIVE_MEM_BP, val);
	default:
		return false;
	}
}

/* ------------------------------------------------------------ the loop */

/* The quota after @last at @score, within [DAMOS_GOAL_MIN_ESZ, @cap]. */
unsigned long damos_goal_next_esz(unsigned long last, unsigned long score,
				  unsigned long cap)
{
	u64 next = damon_feed_step(max(last, DAMOS_GOAL_MIN_ESZ), score);

	return clamp_t(u64, next, DAMOS_GOAL_MIN_ESZ,
		       max(cap, DAMOS_GOAL_MIN_ESZ));
}

/*
 * At the start of a reset interval: measure @s's goals and move the goals'
 * quota one step, never above @hard (the limit of @ms and @sz).  Returns
 * whether @s has goals.
 */
bool damos_goals_step(struct damos *s, unsigned long hard)
{
	struct damos_quota *q = &s->quota;
	struct damos_quota_goal *g;
	unsigned long val, score, best = 0;
	bool measured = false;

	if (list_empty(&s->goals))
		return false;
	damos_for_each_goal(g, s) {
		if (!damos_goal_measure(q, g, &val))
			continue;
		g->current_value = val;
		score = damon_feed_score(val, g->target_value);
		best = max(best, score);
		measured = true;
	}
	hard = min(hard, (unsigned long)totalram_pages() << PAGE_SHIFT);
	if (!q->goal_esz)
		q->goal_esz = min(DAMOS_GOAL_MIN_ESZ, hard);
	else if (measured)
		q->goal_esz = damos_goal_next_esz(q->goal_esz, best, hard);
	return true;
}
