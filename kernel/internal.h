/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of mm/damon and its KUnit tests (in
 * tests/).  Nothing here is exported to modules.
 */

#ifndef _MM_DAMON_INTERNAL_H
#define _MM_DAMON_INTERNAL_H

#include <linux/damon.h>

/* regions.c: the adaptive regions algorithms */
struct damon_region *damon_split_region_at(struct damon_target *t,
					   struct damon_region *r,
					   unsigned long sz_left);
void damon_merge_two_regions(struct damon_target *t, struct damon_region *l,
			     struct damon_region *r);
void damon_merge_regions_of(struct damon_target *t, unsigned int thres,
			    unsigned long sz_limit);
void damon_split_regions_of(struct damon_target *t, unsigned int nr_subs);
void damon_account_age(struct damon_target *t, unsigned int thres);
void damon_reset_aggregated(struct damon_target *t);
unsigned long damon_region_sz_limit(struct damon_ctx *ctx);
void damon_merge_regions(struct damon_ctx *ctx, unsigned int thres,
			 unsigned long sz_limit);
void damon_split_regions(struct damon_ctx *ctx);
unsigned long damon_rand_page(struct damon_ctx *ctx, unsigned long start,
			      unsigned long end);
void damon_split_at_addr(struct damon_target *t, unsigned long addr);

/* schemes.c */
bool damos_pattern_match(const struct damos_access_pattern *p,
			 const struct damon_region *r);
bool damos_core_filtered(const struct damos *s, unsigned int tidx,
			 const struct damon_region *r);
bool damos_wmarks_step(struct damos_watermarks *w, unsigned long metric);
bool damos_wmarks_all_inactive(struct damon_ctx *ctx, u64 *next_check_ns);
unsigned int damos_score(const struct damon_ctx *ctx,
			 const struct damon_region *r, const struct damos *s);
void damos_quota_renew(struct damos *s, unsigned long now);

/* goals.c: the quota goals' feedback loop */
#define DAMOS_GOAL_MIN_ESZ	BIT(20)		/* the loop's floor: 1 MiB */
unsigned long damos_goal_next_esz(unsigned long last, unsigned long score,
				  unsigned long cap);
bool damos_goals_step(struct damos *s, unsigned long hard);

/* tuning.c: monitoring intervals auto-tuning */
unsigned long damon_tune_observed_bp(struct damon_ctx *ctx);
unsigned long damon_tune_next_sample(unsigned long cur, unsigned long score,
				     unsigned long min, unsigned long max);
void damon_tune_intervals(struct damon_ctx *ctx);
void damos_apply_schemes(struct damon_ctx *ctx);

/* core.c */
#define DAMON_FEED_MET		10000UL	/* a feedback score: goal just met */
unsigned long damon_feed_score(unsigned long cur, unsigned long target);
u64 damon_feed_step(u64 last, unsigned long score);
void damon_apply_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs);
unsigned int damon_mul_div(unsigned int value, unsigned long mul,
			   unsigned long div);
unsigned long damon_resched(unsigned long passed, unsigned long next,
			    unsigned long old_sample_us,
			    unsigned long new_sample_us,
			    unsigned long interval_us);

/*
 * vaddr.c: the "three regions" of an address space, found by feeding the
 * mappings in address order and cutting out the two largest gaps.
 */
struct damon_gap_finder {
	unsigned long first_start;	/* start of the first mapping */
	unsigned long prev_end;		/* end of the last mapping fed */
	unsigned int nr_fed;
	struct damon_addr_range gaps[2];	/* gaps[0] is the larger */
};

void damon_gap_finder_init(struct damon_gap_finder *f);
void damon_gap_finder_feed(struct damon_gap_finder *f, unsigned long start,
			   unsigned long end);
int damon_gap_finder_result(struct damon_gap_finder *f,
			    struct damon_addr_range regions[3]);
int damon_va_init_target_regions(struct damon_target *t,
				 const struct damon_addr_range regions[3],
				 unsigned long min_nr_regions);

/*
 * paddr.c: ranges of RAM (sorted, not overlapping, whole pages) and the
 * initial regions over them.
 */
struct damon_pa_ram {
	struct damon_addr_range *ranges;
	unsigned int nr;
	unsigned int cap;	/* entries allocated */
};

int damon_pa_ram_add(struct damon_pa_ram *ram, unsigned long start,
		     unsigned long end);
void damon_pa_ram_free(struct damon_pa_ram *ram);
int damon_pa_init_target_regions(struct damon_target *t,
				 struct damon_pa_ram *ram,
				 unsigned long min_nr_regions,
				 unsigned long max_nr_regions);

#endif /* _MM_DAMON_INTERNAL_H */
