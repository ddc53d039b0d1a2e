// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring operations for the physical address space: "paddr".
 *
 * A paddr context has one target without a process: its regions are ranges
 * of physical addresses, by default the machine's RAM.  The sampled page of
 * a region is looked up as a folio; only folios on an LRU list take part,
 * anything else (free pages, kernel memory, hugetlb, a folio being split)
 * counts as not accessed.
 *
 * Access checks go through the reverse map: preparing a sample clears the
 * young bit of every page table entry that maps the folio (and tells
 * secondary MMUs), moving it into the folio's young flag for reclaim, and
 * marks the folio idle; checking it reads the entries back.  A folio that
 * is not mapped at all (page cache) is judged by its idle flag alone, which
 * folio_mark_accessed() clears.  A large folio is one check, whatever page
 * of it was sampled, and within one pass over the regions the last folio's
 * answer is reused for samples that fall into it again.
 *
 * Actions work through the LRU lists: pageout isolates the region's folios
 * and hands them to reclaim_pages(), lru_prio and lru_deprio (de)activate
 * them, migrate_hot and migrate_cold isolate them for migrate_pages().
 * Filters by anon, memcg and young are decided per folio.  Nothing here
 * walks page tables by hand.
 */

#define pr_fmt(fmt) "damon-pa: " fmt

#include <linux/ioport.h>
#include <linux/memcontrol.h>
#include <linux/memory_hotplug.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/nodemask.h>
#include <linux/page_idle.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/swap.h>

#include "../internal.h"
#include "internal.h"

/* ------------------------------------------------------- RAM ranges */

/*
 * Append [@start, @end) to @ram, merged into the last range when the two
 * touch or overlap.  Ranges must come in address order.
 */
int damon_pa_ram_add(struct damon_pa_ram *ram, unsigned long start,
		     unsigned long end)
{
	struct damon_addr_range *last, *ranges;
	unsigned int cap;

	if (start >= end)
		return 0;
	if (ram->nr) {
		last = &ram->ranges[ram->nr - 1];
		if (start <= last->end) {
			last->end = max(last->end, end);
			return 0;
		}
	}
	if (ram->nr == ram->cap) {
		cap = max(ram->cap * 2, 16U);
		ranges = krealloc_array(ram->ranges, cap, sizeof(*ranges),
					GFP_KERNEL);
		if (!ranges)
			return -ENOMEM;
		ram->ranges = ranges;
		ram->cap = cap;
	}
	ram->ranges[ram->nr++] = (struct damon_addr_range) { start, end };
	return 0;
}

void damon_pa_ram_free(struct damon_pa_ram *ram)
{
	kfree(ram->ranges);
	*ram = (struct damon_pa_ram) {};
}

/* Whole pages of one "System RAM" resource. */
static int damon_pa_add_res(struct resource *res, void *arg)
{
	u64 start = ALIGN(res->start, PAGE_SIZE);
	u64 end = ALIGN_DOWN(res->end + 1, PAGE_SIZE);

	/* what an unsigned long cannot address is not monitored */
	if (start >= end || start > ULONG_MAX - PAGE_SIZE)
		return 0;
	end = min_t(u64, end, ALIGN_DOWN(ULONG_MAX, PAGE_SIZE));
	return damon_pa_ram_add(arg, start, end);
}

/* pfn_valid() answers alike for every pfn of one such step */
#ifdef CONFIG_SPARSEMEM
#define DAMON_PA_VALID_STEP	PAGES_PER_SUBSECTION
#else
#define DAMON_PA_VALID_STEP	1UL
#endif

/*
 * Without "System RAM" resources (UML registers none), what the memory
 * model knows: each online node's span of page frames, less the stretches
 * without a memory map (pfn_valid() false).
 */
static int damon_pa_add_node_spans(struct damon_pa_ram *ram)
{
	unsigned long pfn, end_pfn, run = 0;
	bool in_run = false;
	int nid, err;

	for_each_online_node(nid) {
		pfn = ALIGN_DOWN(node_start_pfn(nid), DAMON_PA_VALID_STEP);
		end_pfn = node_end_pfn(nid);
		for (; pfn < end_pfn; pfn += DAMON_PA_VALID_STEP) {
			if (pfn_valid(pfn) == in_run)
				continue;
			if (in_run) {
				err = damon_pa_ram_add(ram, PFN_PHYS(run),
						       PFN_PHYS(pfn));
				if (err)
					return err;
			}
			in_run = !in_run;
			run = pfn;
			cond_resched();
		}
		if (in_run) {
			err = damon_pa_ram_add(ram, PFN_PHYS(run),
					       PFN_PHYS(end_pfn));
			if (err)
				return err;
			in_run = false;
		}
	}
	return 0;
}

/* The machine's RAM, in address order, as whole pages. */
static int damon_pa_find_ram(struct damon_pa_ram *ram)
{
	int err;

	err = walk_system_ram_res(0, U64_MAX, ram, damon_pa_add_res);
	if (err && err != -EINVAL)	/* -EINVAL: no System RAM at all */
		return err;
	if (!ram->nr)
		err = damon_pa_add_node_spans(ram);
	else
		err = 0;
	if (!err && !ram->nr)
		err = -ENOMEM;	/* no memory to monitor: not a machine */
	return err;
}

/* ------------------------------------------------------- initial regions */

/* Merge ranges @i and @i + 1 of @ram, the hole between them included. */
static void damon_pa_ram_merge(struct damon_pa_ram *ram, unsigned int i)
{
	ram->ranges[i].end = ram->ranges[i + 1].end;
	memmove(&ram->ranges[i + 1], &ram->ranges[i + 2],
		(ram->nr - i - 2) * sizeof(*ram->ranges));
	ram->nr--;
}

static unsigned long damon_pa_piece_sz(const struct damon_pa_ram *ram,
				       const unsigned int *pieces,
				       unsigned int i)
{
	return (ram->ranges[i].end - ram->ranges[i].start) / pieces[i];
}

/*
 * Give @t regions covering the ranges of @ram (sorted, not overlapping,
 * page aligned): each range is a region of its own, split evenly, and the
 * holes between ranges are left out.  With more ranges than
 * @max_nr_regions allows, the ranges with the smallest holes between them
 * are merged, holes included, until they fit.  The ranges are then split
 * into about @min_nr_regions pieces in all (at least one per range, none
 * smaller than a page), larger ranges into more.  @ram is changed.
 */
int damon_pa_init_target_regions(struct damon_target *t,
				 struct damon_pa_ram *ram,
				 unsigned long min_nr_regions,
				 unsigned long max_nr_regions)
{
	unsigned long total = 0, unit, target, gap, best;
	unsigned int i, k, sum = 0, *pieces;
	struct damon_region *r;
	int err = 0;

	if (!ram->nr)
		return -EINVAL;
	while (ram->nr > 1 && ram->nr > max_nr_regions) {
		k = 0;
		best = ULONG_MAX;
		for (i = 0; i + 1 < ram->nr; i++) {
			gap = ram->ranges[i + 1].start - ram->ranges[i].end;
			if (gap < best) {
				best = gap;
				k = i;
			}
		}
		damon_pa_ram_merge(ram, k);
		cond_resched();
	}

	pieces = kcalloc(ram->nr, sizeof(*pieces), GFP_KERNEL);
	if (!pieces)
		return -ENOMEM;
	for (i = 0; i < ram->nr; i++)
		total += ram->ranges[i].end - ram->ranges[i].start;
	unit = max(total / max(min_nr_regions, 1UL), (unsigned long)PAGE_SIZE);
	for (i = 0; i < ram->nr; i++) {
		pieces[i] = max((ram->ranges[i].end - ram->ranges[i].start) /
				unit, 1UL);
		sum += pieces[i];
	}
	/* every range needs one piece, and no more than the maximum fit */
	target = clamp_t(unsigned long, min_nr_regions, ram->nr,
			 max(max_nr_regions, (unsigned long)ram->nr));
	/* rounding left too few pieces: cut the largest pieces once more */
	while (sum < target) {
		k = 0;
		for (i = 1; i < ram->nr; i++)
			if (damon_pa_piece_sz(ram, pieces, i) >
			    damon_pa_piece_sz(ram, pieces, k))
				k = i;
		if ((ram->ranges[k].end - ram->ranges[k].start) /
		    (pieces[k] + 1) < PAGE_SIZE)
			break;
		pieces[k]++;
		sum++;
	}
	/* the one-piece minimum made too many: join the smallest pieces */
	while (sum > target) {
		k = ram->nr;
		for (i = 0; i < ram->nr; i++) {
			if (pieces[i] < 2)
				continue;
			if (k == ram->nr || damon_pa_piece_sz(ram, pieces, i) <
			    damon_pa_piece_sz(ram, pieces, k))
				k = i;
		}
		if (k == ram->nr)
			break;
		pieces[k]--;
		sum--;
	}

	for (i = 0; i < ram->nr && !err; i++) {
		r = damon_region_alloc(ram->ranges[i].start, ram->ranges[i].end);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		damon_region_append(r, t);
		err = damon_split_region_evenly(t, r, pieces[i]);
	}
	kfree(pieces);
	return err;
}

/* ------------------------------------------------------- folios */

/*
 * The folio of @pfn with a reference, if it is on an LRU list: not free,
 * not being split (a split freezes the reference count, so
 * folio_try_get() fails), not a kernel allocation.
 */
static struct folio *damon_pa_get_folio(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio;

	if (!page)
		return NULL;
	folio = page_folio(page);
	if (!folio_test_lru(folio) || !folio_try_get(folio))
		return NULL;
	/* split or freed and reused between the two looks */
	if (unlikely(page_folio(page) != folio || !folio_test_lru(folio))) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/* The first physical address after @folio. */
static unsigned long damon_pa_folio_end(struct folio *folio)
{
	return PFN_PHYS(folio_pfn(folio) + folio_nr_pages(folio));
}

/*
 * The next LRU folio (with a reference) holding a page of [*@addr, @end),
 * or NULL; *@addr moves past its end.  The actions walk their ranges with
 * it, so a large folio is met once.
 */
static struct folio *damon_pa_next_folio(unsigned long *addr,
					 unsigned long end)
{
	struct folio *folio;

	for (; *addr < end; *addr += PAGE_SIZE) {
		folio = damon_pa_get_folio(PHYS_PFN(*addr));
		if (folio) {
			*addr = damon_pa_folio_end(folio);
			return folio;
		}
	}
	return NULL;
}

/* ------------------------------------------------------- access checks */

/* What one reverse-map walk does and found. */
struct damon_pa_walk {
	bool mkold;	/* clear the young bits (else: read them) */
	bool young;	/* a mapping was found young */
};

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
static bool damon_pa_pmd_young(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t *pmd, bool mkold)
{
	addr = ALIGN_DOWN(addr, HPAGE_PMD_SIZE);
	if (mkold)
		return pmdp_clear_young_notify(vma, addr, pmd);
	return pmd_young(pmdp_get(pmd)) ||
	       mmu_notifier_test_young(vma->vm_mm, addr);
}
#else
static bool damon_pa_pmd_young(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t *pmd, bool mkold)
{
	return false;	/* no PMD mappings of folios without THP */
}
#endif

static bool damon_pa_pte_young(struct vm_area_struct *vma, unsigned long addr,
			       pte_t *pte, bool mkold)
{
	addr = ALIGN_DOWN(addr, PAGE_SIZE);
	if (mkold)
		return ptep_clear_young_notify(vma, addr, pte);
	return pte_young(ptep_get(pte)) ||
	       mmu_notifier_test_young(vma->vm_mm, addr);
}

/*
 * rmap_one: every entry mapping @folio in @vma.  Clearing goes through all
 * of them, a young bit found moving into the folio's young flag; reading
 * stops at the first young one.
 */
static bool damon_pa_rmap_one(struct folio *folio, struct vm_area_struct *vma,
			      unsigned long addr, void *arg)
{
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, addr, 0);
	struct damon_pa_walk *w = arg;
	bool young;

	while (page_vma_mapped_walk(&pvmw)) {
		if (pvmw.pte)
			young = damon_pa_pte_young(vma, pvmw.address, pvmw.pte,
						   w->mkold);
		else
			young = damon_pa_pmd_young(vma, pvmw.address, pvmw.pmd,
						   w->mkold);
		if (!young)
			continue;
		if (w->mkold) {
			folio_set_young(folio);
			continue;
		}
		w->young = true;
		page_vma_mapped_walk_done(&pvmw);
		return false;	/* found: no need to look further */
	}
	return true;
}

/*
 * Clear (@mkold) or read the accessed state of @folio, which the caller
 * holds a reference to.  File and KSM folios need the folio lock for the
 * walk: a folio locked by someone else is left alone (not prepared; not
 * accessed), and so are mappings whose rmap locks are contended, so the
 * kdamond never waits.  Returns whether a read found it accessed.
 */
static bool damon_pa_folio_access(struct folio *folio, bool mkold)
{
	struct damon_pa_walk w = { .mkold = mkold };
	struct rmap_walk_control rwc = {
		.arg = &w,
		.rmap_one = damon_pa_rmap_one,
		.anon_lock = folio_lock_anon_vma_read,
		.try_lock = true,
	};
	bool need_lock;

	/* folio_mark_accessed() and reclaim's reference check clear idle */
	if (!mkold && !folio_test_idle(folio))
		return true;
	if (folio_mapped(folio) && folio_raw_mapping(folio)) {
		need_lock = !folio_test_anon(folio) || folio_test_ksm(folio);
		if (need_lock && !folio_trylock(folio))
			return false;
		rmap_walk(folio, &rwc);
		if (need_lock)
			folio_unlock(folio);
		if (mkold && rwc.contended)
			return false;	/* some young bits left set */
	}
	if (mkold)
		folio_set_idle(folio);
	return w.young;
}

/*
 * The folio whose accessed state a pass over the regions dealt with last:
 * samples that fall into it again reuse the answer (or, when preparing,
 * need nothing more).
 */
struct damon_pa_pass {
	unsigned long start_pfn;
	unsigned long end_pfn;	/* 0: none yet */
	bool young;
};

static bool damon_pa_probe(struct damon_pa_pass *pass, unsigned long paddr,
			   bool mkold)
{
	unsigned long pfn = PHYS_PFN(paddr);
	struct folio *folio;
	bool young;

	if (pfn >= pass->start_pfn && pfn < pass->end_pfn)
		return pass->young;
	folio = damon_pa_get_folio(pfn);
	if (!folio)
		return false;
	young = damon_pa_folio_access(folio, mkold);
	pass->start_pfn = folio_pfn(folio);
	pass->end_pfn = pass->start_pfn + folio_nr_pages(folio);
	pass->young = young;
	folio_put(folio);
	return young;
}

/*
 * Check every region's sample (@check), then prepare the next ones
 * (@prepare).  Two passes, not one: preparing a large folio for one region
 * would otherwise clear what the check of the next region, sampled in the
 * same folio, had to find.  Returns the highest nr_accesses seen.
 */
static unsigned int damon_pa_sample(struct damon_ctx *ctx, bool check,
				    bool prepare)
{
	unsigned int max_nr_accesses = 0;
	struct damon_pa_pass pass;
	struct damon_target *t;
	struct damon_region *r;

	if (check) {
		pass = (struct damon_pa_pass) {};
		damon_for_each_target(t, ctx) {
			damon_for_each_region(r, t) {
				if (damon_pa_probe(&pass, r->sampling_addr,
						   false))
					r->nr_accesses++;
				max_nr_accesses = max(max_nr_accesses,
						      r->nr_accesses);
				cond_resched();
			}
		}
	}
	if (prepare) {
		pass = (struct damon_pa_pass) {};
		damon_for_each_target(t, ctx) {
			damon_for_each_region(r, t) {
				r->sampling_addr = damon_rand_page(ctx, r->start,
								   r->end);
				damon_pa_probe(&pass, r->sampling_addr, true);
				cond_resched();
			}
		}
	}
	return max_nr_accesses;
}

static void damon_pa_prepare_samples(struct damon_ctx *ctx)
{
	damon_pa_sample(ctx, false, true);
}

static unsigned int damon_pa_check_samples(struct damon_ctx *ctx,
					   bool prepare_next)
{
	return damon_pa_sample(ctx, true, prepare_next);
}

/* ------------------------------------------------------- operations */

/* Physical memory never goes away as a process does. */
static bool damon_pa_target_alive(struct damon_target *t)
{
	return true;
}

/* The target without regions (given none) gets the machine's RAM. */
static int damon_pa_init(struct damon_ctx *ctx)
{
	struct damon_pa_ram ram = {};
	struct damon_target *t;
	int err = 0;

	damon_for_each_target(t, ctx) {
		if (t->nr_regions)
			continue;
		if (!ram.nr) {
			err = damon_pa_find_ram(&ram);
			if (err)
				break;
		}
		err = damon_pa_init_target_regions(t, &ram,
						   ctx->attrs.min_nr_regions,
						   ctx->attrs.max_nr_regions);
		if (err)
			break;
	}
	damon_pa_ram_free(&ram);
	return err;
}

/* ------------------------------------------------------- actions */

/*
 * Whether @folio is accessed since it was last checked, by sampling or by
 * an earlier young filter; the check starts a new period, as sampling's
 * preparation does.
 */
static bool damon_pa_folio_young(struct folio *folio)
{
	if (!damon_pa_folio_access(folio, false))
		return false;
	damon_pa_folio_access(folio, true);
	return true;
}

/* Whether @folio is of the type of ops-level filter @f. */
static bool damon_pa_filter_match(struct damos_filter *f, struct folio *folio)
{
	bool match;

	switch (f->type) {
	case DAMOS_FILTER_ANON:
		return folio_test_anon(folio);
	case DAMOS_FILTER_MEMCG:
		rcu_read_lock();
		match = f->memcg && folio_memcg_check(folio) == f->memcg;
		rcu_read_unlock();
		return match;
	case DAMOS_FILTER_YOUNG:
		return damon_pa_folio_young(folio);
	default:	/* the core's, already applied to the region */
		return false;
	}
}

/* Whether the ops-level filters of @s keep @folio out. */
static bool damon_pa_filtered(struct damos *s, struct folio *folio)
{
	struct damos_filter *f;

	damos_for_each_filter(f, s)
		if ((f->type == DAMOS_FILTER_ANON ||
		     f->type == DAMOS_FILTER_MEMCG ||
		     f->type == DAMOS_FILTER_YOUNG) &&
		    damon_pa_filter_match(f, folio) == f->matching)
			return true;
	return false;
}

/* Folios isolated before they go to reclaim or migration in one batch. */
#define DAMON_PA_ISOLATE_BATCH	512

/*
 * Reclaim the LRU folios of [@start, @end), whoever maps them: isolate
 * them, then let reclaim_pages() unmap, write back or swap out what it
 * can (it puts the rest back).  Returns the bytes really reclaimed.
 */
static unsigned long damon_pa_pageout(unsigned long start, unsigned long end,
				      struct damos *s)
{
	unsigned long addr = start, reclaimed = 0;
	unsigned int nr_isolated = 0;
	struct folio *folio;
	LIST_HEAD(folios);

	while ((folio = damon_pa_next_folio(&addr, end))) {
		if (!damon_pa_filtered(s, folio) && folio_isolate_lru(folio)) {
			list_add(&folio->lru, &folios);
			nr_isolated++;
		}
		folio_put(folio);
		if (nr_isolated >= DAMON_PA_ISOLATE_BATCH) {
			reclaimed += reclaim_pages(&folios);
			nr_isolated = 0;
		}
		cond_resched();
	}
	reclaimed += reclaim_pages(&folios);
	return reclaimed * PAGE_SIZE;
}

/*
 * Move the LRU folios of [@start, @end) to the active list (@prio) or to
 * the inactive one.  Returns the bytes of the folios that were on the other
 * list.  The moves are batched per CPU; this CPU's batch is drained at the
 * end, so they are done when the action returns (but for folios batched
 * before a move of the kdamond to another CPU).
 */
static unsigned long damon_pa_lru_move(unsigned long start, unsigned long end,
				       struct damos *s, bool prio)
{
	unsigned long addr = start, applied = 0;
	struct folio *folio;

	while ((folio = damon_pa_next_folio(&addr, end))) {
		if (!damon_pa_filtered(s, folio) &&
		    !folio_test_unevictable(folio) &&
		    folio_test_active(folio) != prio) {
			if (prio)
				folio_activate(folio);
			else
				folio_deactivate(folio);
			applied += folio_size(folio);
		}
		folio_put(folio);
		cond_resched();
	}
	lru_add_drain();
	return applied;
}

/*
 * Migrate the isolated folios of @folios to node @nid, allocating there
 * only and without reclaim (a full node fails quickly); put back what did
 * not move.  Returns the bytes moved.
 */
static unsigned long damon_pa_migrate_list(struct list_head *folios, int nid)
{
	struct migration_target_control mtc = {
		.nid = nid,
		.gfp_mask = (GFP_HIGHUSER_MOVABLE & ~__GFP_RECLAIM) |
			    __GFP_THISNODE | __GFP_NOWARN | __GFP_NOMEMALLOC,
	};
	unsigned int nr_succeeded = 0;
	struct folio *folio, *next;

	if (list_empty(folios))
		return 0;
	migrate_pages(folios, alloc_migration_target, NULL,
		      (unsigned long)&mtc, MIGRATE_ASYNC, MR_DAMON,
		      &nr_succeeded);
	list_for_each_entry_safe(folio, next, folios, lru) {
		list_del(&folio->lru);
		node_stat_sub_folio(folio, NR_ISOLATED_ANON +
				    folio_is_file_lru(folio));
		folio_putback_lru(folio);
	}
	return (unsigned long)nr_succeeded * PAGE_SIZE;
}

/*
 * Move the LRU folios of [@start, @end) that are not on node
 * @s->target_nid there.  Returns the bytes moved.
 */
static unsigned long damon_pa_migrate(unsigned long start, unsigned long end,
				      struct damos *s)
{
	unsigned long addr = start, moved = 0;
	unsigned int nr_isolated = 0;
	int nid = s->target_nid;
	struct folio *folio;
	LIST_HEAD(folios);

	/* checked at on/commit; the node may have lost its memory since */
	if (!damos_target_nid_valid(nid))
		return 0;
	while ((folio = damon_pa_next_folio(&addr, end))) {
		if (folio_nid(folio) != nid && !damon_pa_filtered(s, folio) &&
		    folio_isolate_lru(folio)) {
			node_stat_add_folio(folio, NR_ISOLATED_ANON +
					    folio_is_file_lru(folio));
			list_add(&folio->lru, &folios);
			nr_isolated++;
		}
		folio_put(folio);
		if (nr_isolated >= DAMON_PA_ISOLATE_BATCH) {
			moved += damon_pa_migrate_list(&folios, nid);
			nr_isolated = 0;
		}
		cond_resched();
	}
	return moved + damon_pa_migrate_list(&folios, nid);
}

static unsigned long damon_pa_apply_action(struct damon_ctx *ctx,
					   struct damon_target *t,
					   unsigned long start,
					   unsigned long end, struct damos *s)
{
	switch (s->action) {
	case DAMOS_PAGEOUT:
		return damon_pa_pageout(start, end, s);
	case DAMOS_LRU_PRIO:
		return damon_pa_lru_move(start, end, s, true);
	case DAMOS_LRU_DEPRIO:
		return damon_pa_lru_move(start, end, s, false);
	case DAMOS_MIGRATE_HOT:
	case DAMOS_MIGRATE_COLD:
		return damon_pa_migrate(start, end, s);
	default:
		return 0;
	}
}

static int __init damon_pa_register(void)
{
	struct damon_operations ops = {
		.id = DAMON_OPS_PADDR,
		.name = "paddr",
		.init = damon_pa_init,
		.prepare_samples = damon_pa_prepare_samples,
		.check_samples = damon_pa_check_samples,
		.target_alive = damon_pa_target_alive,
		.apply_scheme = damon_pa_apply_action,
		.actions = BIT(DAMOS_PAGEOUT) | BIT(DAMOS_LRU_PRIO) |
			   BIT(DAMOS_LRU_DEPRIO) |
			   (IS_ENABLED(CONFIG_MIGRATION) ?
			    BIT(DAMOS_MIGRATE_HOT) | BIT(DAMOS_MIGRATE_COLD) : 0),
		.filters = BIT(DAMOS_FILTER_ANON) | BIT(DAMOS_FILTER_YOUNG) |
			   (IS_ENABLED(CONFIG_MEMCG) ? BIT(DAMOS_FILTER_MEMCG) : 0),
	};

	return damon_register_ops(&ops);
}
subsys_initcall(damon_pa_register);
