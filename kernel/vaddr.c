// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring operations for virtual address spaces: "vaddr" (regions follow
 * the process's mappings) and "fvaddr" (the user fixes the regions).
 *
 * Access checks use the Accessed (young) bit of the page table entry that
 * maps the sampled page: a PTE, a transparent huge page PMD or a hugetlb
 * huge PTE.  When DAMON clears a young bit it records that in the folio
 * (young flag) and marks the folio idle, so reclaim and page idle tracking
 * keep seeing the access; secondary MMUs are told through the
 * *_young_notify helpers.
 *
 * Every address handed to the page table helpers is page aligned (UML kills
 * the process on unaligned TLB sync ranges, and it is cheaper anyway).
 */

#define pr_fmt(fmt) "damon-va: " fmt

#include <linux/hugetlb.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmu_notifier.h>
#include <linux/page_idle.h>
#include <linux/pagewalk.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>

#include "internal.h"

/* ------------------------------------------------------- three regions */

void damon_gap_finder_init(struct damon_gap_finder *f)
{
	*f = (struct damon_gap_finder) {};
}

static unsigned long damon_range_sz(const struct damon_addr_range *ar)
{
	return ar->end - ar->start;
}

/* Feed the next mapping; mappings must come in address order. */
void damon_gap_finder_feed(struct damon_gap_finder *f, unsigned long start,
			   unsigned long end)
{
	struct damon_addr_range gap = { .start = f->prev_end, .end = start };

	if (!f->nr_fed++) {
		f->first_start = start;
	} else if (damon_range_sz(&gap) > damon_range_sz(&f->gaps[0])) {
		f->gaps[1] = f->gaps[0];
		f->gaps[0] = gap;
	} else if (damon_range_sz(&gap) > damon_range_sz(&f->gaps[1])) {
		f->gaps[1] = gap;
	}
	f->prev_end = end;
}

/*
 * The mapped span minus its two largest gaps: normally the heap and
 * program, the mmap area, and the stack.  -EINVAL if there are not two
 * gaps to cut out.
 */
int damon_gap_finder_result(struct damon_gap_finder *f,
			    struct damon_addr_range regions[3])
{
	struct damon_addr_range *lo = &f->gaps[0], *hi = &f->gaps[1];

	if (!damon_range_sz(hi))
		return -EINVAL;
	if (lo->start > hi->start)
		swap(lo, hi);

	regions[0].start = ALIGN_DOWN(f->first_start, DAMON_MIN_REGION);
	regions[0].end = ALIGN(lo->start, DAMON_MIN_REGION);
	regions[1].start = ALIGN_DOWN(lo->end, DAMON_MIN_REGION);
	regions[1].end = ALIGN(hi->start, DAMON_MIN_REGION);
	regions[2].start = ALIGN_DOWN(hi->end, DAMON_MIN_REGION);
	regions[2].end = ALIGN(f->prev_end, DAMON_MIN_REGION);
	return 0;
}

/*
 * Give @t the three @regions, split so that together they make about
 * @min_nr_regions regions of similar size (each at least one).
 */
int damon_va_init_target_regions(struct damon_target *t,
				 const struct damon_addr_range regions[3],
				 unsigned long min_nr_regions)
{
	unsigned int pieces[3], sum = 0, i, k;
	struct damon_region *r[3];
	unsigned long total = 0, unit;
	int err;

	for (i = 0; i < 3; i++)
		total += damon_range_sz(&regions[i]);
	unit = max(total / max(min_nr_regions, 1UL), DAMON_MIN_REGION);

	for (i = 0; i < 3; i++) {
		pieces[i] = max(damon_range_sz(&regions[i]) / unit, 1UL);
		sum += pieces[i];
	}
	/* Floors may fall short, forced ones may overshoot: even it out. */
	while (sum != min_nr_regions) {
		k = 0;
		for (i = 1; i < 3; i++) {
			unsigned long sz_i = damon_range_sz(&regions[i]) / pieces[i];
			unsigned long sz_k = damon_range_sz(&regions[k]) / pieces[k];

			if (sum < min_nr_regions ? sz_i > sz_k :
			    pieces[i] > pieces[k])
				k = i;
		}
		if (sum < min_nr_regions) {
			if (damon_range_sz(&regions[k]) / (pieces[k] + 1) <
			    DAMON_MIN_REGION)
				break;	/* too small to cut further */
			pieces[k]++;
			sum++;
		} else {
			if (pieces[k] == 1)
				break;
			pieces[k]--;
			sum--;
		}
	}

	for (i = 0; i < 3; i++) {
		r[i] = damon_new_region(regions[i].start, regions[i].end);
		if (!r[i])
			return -ENOMEM;
		damon_add_region(r[i], t);
	}
	for (i = 0; i < 3; i++) {
		err = damon_split_region_evenly(t, r[i], pieces[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ------------------------------------------------------- target access */

static struct mm_struct *damon_va_get_mm(struct damon_target *t)
{
	struct task_struct *task;
	struct mm_struct *mm;

	task = get_pid_task(t->pid, PIDTYPE_PID);
	if (!task)
		return NULL;
	mm = get_task_mm(task);
	put_task_struct(task);
	return mm;
}

static int damon_va_three_regions(struct damon_target *t,
				  struct damon_addr_range regions[3])
{
	struct damon_gap_finder f;
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	mm = damon_va_get_mm(t);
	if (!mm)
		return -ESRCH;
	damon_gap_finder_init(&f);
	mmap_read_lock(mm);
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			damon_gap_finder_feed(&f, vma->vm_start, vma->vm_end);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return damon_gap_finder_result(&f, regions);
}

/* ------------------------------------------------------- young bits */

/* The LRU folio mapped at @pfn, with a reference, or NULL. */
static struct folio *damon_va_get_folio(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio;

	if (!page)
		return NULL;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		return NULL;
	/* It may have been split or freed before we got the reference. */
	if (page_folio(page) != folio || !folio_test_lru(folio)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/*
 * What one page table walk does at the sampled address: either clear the
 * accessed state (prepare) or read it (check).
 */
struct damon_va_probe {
	bool mkold;
	bool young;
};

/*
 * Apply @probe to @folio, whose mapping had its young bit cleared by us
 * (@cleared) or read as @young.  Clearing moves the young bit into the
 * folio's young flag, then marks the folio idle: an access after this
 * clears idle or sets a young bit, and either counts.
 */
static void damon_va_probe_folio(struct damon_va_probe *probe,
				 struct folio *folio, bool young,
				 struct mm_struct *mm, unsigned long addr)
{
	if (probe->mkold) {
		if (young)
			folio_set_young(folio);
		folio_set_idle(folio);
		return;
	}
	probe->young = young || !folio_test_idle(folio) ||
		       mmu_notifier_test_young(mm, addr);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* Returns true if @pmd maps a huge page, which was then probed. */
static bool damon_va_probe_pmd(pmd_t *pmd, unsigned long addr,
			       struct mm_walk *walk)
{
	struct damon_va_probe *probe = walk->private;
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	struct folio *folio;
	spinlock_t *ptl;	/* the PMD's page table lock */
	pmd_t pmde;
	bool young;

	if (!pmd_trans_huge(pmdp_get(pmd)))
		return false;
	ptl = pmd_lock(walk->mm, pmd);
	pmde = pmdp_get(pmd);
	if (!pmd_present(pmde) || !pmd_trans_huge(pmde)) {
		spin_unlock(ptl);
		return !pmd_present(pmde);
	}
	folio = damon_va_get_folio(pmd_pfn(pmde));
	if (folio) {
		young = probe->mkold ?
			pmdp_clear_young_notify(walk->vma, haddr, pmd) :
			pmd_young(pmde);
		damon_va_probe_folio(probe, folio, young, walk->mm, haddr);
		folio_put(folio);
	}
	spin_unlock(ptl);
	return true;
}
#else
static bool damon_va_probe_pmd(pmd_t *pmd, unsigned long addr,
			       struct mm_walk *walk)
{
	return false;
}
#endif

static int damon_va_probe_pmd_entry(pmd_t *pmd, unsigned long addr,
				    unsigned long next, struct mm_walk *walk)
{
	struct damon_va_probe *probe = walk->private;
	struct folio *folio;
	spinlock_t *ptl;	/* the PTE page's lock */
	pte_t *pte, ptent;
	bool young;

	if (damon_va_probe_pmd(pmd, addr, walk))
		return 0;

	pte = pte_offset_map_lock(walk->mm, pmd, addr, &ptl);
	if (!pte)
		return 0;	/* the page table went away meanwhile */
	ptent = ptep_get(pte);
	if (pte_present(ptent)) {
		folio = damon_va_get_folio(pte_pfn(ptent));
		if (folio) {
			young = probe->mkold ?
				ptep_clear_young_notify(walk->vma, addr, pte) :
				pte_young(ptent);
			damon_va_probe_folio(probe, folio, young, walk->mm,
					     addr);
			folio_put(folio);
		}
	}
	pte_unmap_unlock(pte, ptl);
	return 0;
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * A hugetlb mapping: one huge PTE for the whole huge page.  Its folio is
 * never on an LRU list, so damon_va_get_folio() does not apply; holding
 * the huge PTE's lock keeps the mapped folio from being freed.  There is
 * no test-and-clear-young helper for huge PTEs: the entry is rewritten
 * old, which can lose a Dirty bit set in between, as upstream accepts
 * (hugetlb folios are never written back).
 */
static int damon_va_probe_hugetlb_entry(pte_t *pte, unsigned long hmask,
					unsigned long addr, unsigned long end,
					struct mm_walk *walk)
{
	struct damon_va_probe *probe = walk->private;
	struct hstate *h = hstate_vma(walk->vma);
	unsigned long haddr = addr & hmask, sz = huge_page_size(h);
	struct folio *folio;
	spinlock_t *ptl;	/* the huge PTE's lock */
	pte_t entry;
	bool young;

	ptl = huge_pte_lock(h, walk->mm, pte);
	entry = huge_ptep_get(walk->mm, haddr, pte);
	if (pte_present(entry)) {
		folio = pfn_folio(pte_pfn(entry));
		folio_get(folio);
		young = pte_young(entry);
		if (probe->mkold) {
			if (young)
				set_huge_pte_at(walk->mm, haddr, pte,
						pte_mkold(entry), sz);
#ifdef CONFIG_MMU_NOTIFIER
			if (mmu_notifier_clear_young(walk->mm, haddr,
						     haddr + sz))
				young = true;
#endif
		}
		damon_va_probe_folio(probe, folio, young, walk->mm, haddr);
		folio_put(folio);
	}
	spin_unlock(ptl);
	return 0;
}
#endif

static const struct mm_walk_ops damon_va_probe_ops = {
	.pmd_entry = damon_va_probe_pmd_entry,
#ifdef CONFIG_HUGETLB_PAGE
	.hugetlb_entry = damon_va_probe_hugetlb_entry,
#endif
	.walk_lock = PGWALK_RDLOCK,
};

/* Probe the page at @addr; the caller holds the mmap read lock. */
static bool damon_va_probe(struct mm_struct *mm, unsigned long addr,
			   bool mkold)
{
	struct damon_va_probe probe = { .mkold = mkold };

	addr = ALIGN_DOWN(addr, PAGE_SIZE);
	walk_page_range(mm, addr, addr + PAGE_SIZE, &damon_va_probe_ops,
			&probe);
	return probe.young;
}

/* ------------------------------------------------------- operations */

static bool damon_va_target_valid(struct damon_target *t)
{
	return damon_pid_has_mm(t->pid);
}

static int damon_va_init(struct damon_ctx *ctx)
{
	struct damon_addr_range regions[3];
	struct damon_target *t;
	int err;

	damon_for_each_target(t, ctx) {
		if (t->nr_regions)
			continue;	/* the user gave the regions */
		/*
		 * An exited process, or one with too few mappings for three
		 * regions yet, starts without regions; the update step keeps
		 * looking for them.
		 */
		if (damon_va_three_regions(t, regions))
			continue;
		err = damon_va_init_target_regions(t, regions,
						   ctx->attrs.min_nr_regions);
		if (err)
			return err;
	}
	return 0;
}

static int damon_fva_init(struct damon_ctx *ctx)
{
	struct damon_target *t;

	damon_for_each_target(t, ctx)
		if (!t->nr_regions)
			return -EINVAL;
	return 0;
}

/* Follow mapping changes: regions are fitted to the new three regions. */
static void damon_va_update(struct damon_ctx *ctx)
{
	struct damon_addr_range regions[3];
	struct damon_target *t;

	damon_for_each_target(t, ctx) {
		if (damon_va_three_regions(t, regions))
			continue;
		damon_set_regions(t, regions, 3);
	}
}

/*
 * Let a writer of @mm's mappings (mmap, munmap, a fault that needs the
 * write lock) or another task of this CPU in between probes: with 100,000
 * regions, one uninterrupted pass would hold the read lock for milliseconds.
 */
static void damon_va_yield_mmap_lock(struct mm_struct *mm)
{
	if (!need_resched() && !mmap_lock_is_contended(mm))
		return;
	mmap_read_unlock(mm);
	cond_resched();
	mmap_read_lock(mm);
}

/*
 * One pass over every region of every target, under each mm's read lock:
 * @prepare picks a new sampling address and clears its accessed state;
 * otherwise it counts whether that address was accessed since.  Returns
 * the highest nr_accesses seen (checks only).
 */
static unsigned int damon_va_sample(struct damon_ctx *ctx, bool prepare)
{
	unsigned int max_nr_accesses = 0;
	struct damon_target *t;
	struct damon_region *r;
	struct mm_struct *mm;

	damon_for_each_target(t, ctx) {
		mm = damon_va_get_mm(t);
		if (!mm)
			continue;
		mmap_read_lock(mm);
		damon_for_each_region(r, t) {
			if (prepare) {
				r->sampling_addr = damon_rand_page(r->start,
								   r->end);
				damon_va_probe(mm, r->sampling_addr, true);
			} else if (damon_va_probe(mm, r->sampling_addr, false)) {
				r->nr_accesses++;
			}
			max_nr_accesses = max(max_nr_accesses, r->nr_accesses);
			damon_va_yield_mmap_lock(mm);
		}
		mmap_read_unlock(mm);
		mmput(mm);
	}
	return max_nr_accesses;
}

static void damon_va_prepare_access_checks(struct damon_ctx *ctx)
{
	damon_va_sample(ctx, true);
}

static unsigned int damon_va_check_accesses(struct damon_ctx *ctx)
{
	return damon_va_sample(ctx, false);
}

/* ------------------------------------------------------- actions */

static const int damon_va_madvise_behavior[NR_DAMOS_ACTIONS] = {
	[DAMOS_WILLNEED] = MADV_WILLNEED,
	[DAMOS_COLD] = MADV_COLD,
	[DAMOS_PAGEOUT] = MADV_PAGEOUT,
	[DAMOS_HUGEPAGE] = MADV_HUGEPAGE,
	[DAMOS_NOHUGEPAGE] = MADV_NOHUGEPAGE,
};

/* Whether the anon filters of @s keep a mapping (anonymous or not) out. */
static bool damon_va_filtered(struct damos *s, bool anon)
{
	struct damos_filter *f;

	damos_for_each_filter(f, s)
		if (f->type == DAMOS_FILTER_ANON && anon == f->matching)
			return true;
	return false;
}

/*
 * Find the part of [@addr, @end) that starts at the first mapping there and
 * stays within it; *@end_out is its end.  False if nothing is mapped.
 */
static bool damon_va_next_chunk(struct mm_struct *mm, unsigned long addr,
				unsigned long end, unsigned long *start_out,
				unsigned long *end_out, bool *anon)
{
	struct vm_area_struct *vma;
	bool found = false;

	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start < end) {
		*start_out = max(addr, vma->vm_start);
		*end_out = min(end, vma->vm_end);
		/* shared anonymous memory is shmem, but anonymous to users */
		*anon = vma_is_anonymous(vma) || vma_is_anon_shmem(vma);
		found = true;
	}
	mmap_read_unlock(mm);
	return found;
}

/*
 * Apply the action mapping by mapping, as madvise(2) on the target would,
 * skipping unmapped gaps and the mappings the anon filters exclude.  The
 * mmap lock is not held across do_madvise(), which takes it itself.
 * Returns the bytes the action succeeded on.
 */
static unsigned long damon_va_apply_scheme(struct damon_ctx *ctx,
					   struct damon_target *t,
					   unsigned long start,
					   unsigned long end, struct damos *s)
{
	unsigned long addr = start, chunk_start, chunk_end, applied = 0;
	struct mm_struct *mm;
	bool anon;

	if (s->action >= NR_DAMOS_ACTIONS || s->action == DAMOS_STAT)
		return 0;
	mm = damon_va_get_mm(t);
	if (!mm)
		return 0;
	while (addr < end && damon_va_next_chunk(mm, addr, end, &chunk_start,
						 &chunk_end, &anon)) {
		if (!damon_va_filtered(s, anon) &&
		    !do_madvise(mm, chunk_start, chunk_end - chunk_start,
				damon_va_madvise_behavior[s->action]))
			applied += chunk_end - chunk_start;
		addr = chunk_end;
		cond_resched();
	}
	mmput(mm);
	return applied;
}

static int __init damon_va_register(void)
{
	struct damon_operations ops = {
		.id = DAMON_OPS_VADDR,
		.name = "vaddr",
		.init = damon_va_init,
		.update = damon_va_update,
		.prepare_access_checks = damon_va_prepare_access_checks,
		.check_accesses = damon_va_check_accesses,
		.target_valid = damon_va_target_valid,
		.apply_scheme = damon_va_apply_scheme,
	};
	int err;

	err = damon_register_ops(&ops);
	if (err)
		return err;

	ops.id = DAMON_OPS_FVADDR;
	ops.name = "fvaddr";
	ops.init = damon_fva_init;
	ops.update = NULL;
	return damon_register_ops(&ops);
}
subsys_initcall(damon_va_register);
