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
		r[i] = damon_region_alloc(regions[i].start, regions[i].end);
		if (!r[i])
			return -ENOMEM;
		damon_region_append(r[i], t);
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

static int damon_va_mapped_ranges(struct damon_target *t,
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

/*
 * A probe of one sampled page: either clear its accessed state (@mkold,
 * when the page is picked) or read it back (a sample later).
 */
struct damon_va_probe {
	struct vm_area_struct *vma;
	unsigned long addr;	/* page aligned */
	bool mkold;
	bool young;		/* what a check found */
};

/*
 * Apply @probe to @folio, mapped at @addr by an entry whose young bit was
 * @young (for mkold: the bit just cleared).  Clearing moves the young bit
 * into the folio's young flag, then marks the folio idle: an access after
 * this clears idle or sets a young bit, and either counts.
 */
static void damon_va_probe_folio(struct damon_va_probe *probe,
				 struct folio *folio, bool young,
				 unsigned long addr)
{
	if (probe->mkold) {
		if (young)
			folio_set_young(folio);
		folio_set_idle(folio);
		return;
	}
	probe->young = young || !folio_test_idle(folio) ||
		       mmu_notifier_test_young(probe->vma->vm_mm, addr);
}

/*
 * Only LRU folios take part, as in idle page tracking.  No reference is
 * taken: the caller holds the lock of the entry that maps the folio, and a
 * mapped folio can be neither freed nor split without that lock.
 */
static bool damon_va_lru_folio(struct folio *folio)
{
	return folio && folio_test_lru(folio);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* Returns true if @pmd maps a huge page (then probed) or a migrating one. */
static bool damon_va_probe_pmd(struct damon_va_probe *probe, pmd_t *pmd)
{
	unsigned long haddr = probe->addr & HPAGE_PMD_MASK;
	struct vm_area_struct *vma = probe->vma;
	struct folio *folio;
	spinlock_t *ptl;	/* the PMD's page table lock */
	pmd_t pmde;
	bool young;

	if (!pmd_trans_huge(pmdp_get(pmd)))
		return false;
	ptl = pmd_lock(vma->vm_mm, pmd);
	pmde = pmdp_get(pmd);
	if (!pmd_present(pmde) || !pmd_trans_huge(pmde)) {
		spin_unlock(ptl);
		return !pmd_present(pmde);	/* split meanwhile: PTEs */
	}
	folio = vm_normal_folio_pmd(vma, haddr, pmde);
	if (damon_va_lru_folio(folio)) {
		young = probe->mkold ?
			pmdp_clear_young_notify(vma, haddr, pmd) :
			pmd_young(pmde);
		damon_va_probe_folio(probe, folio, young, haddr);
	}
	spin_unlock(ptl);
	return true;
}
#else
static bool damon_va_probe_pmd(struct damon_va_probe *probe, pmd_t *pmd)
{
	return false;
}
#endif

static void damon_va_probe_pte(struct damon_va_probe *probe, pmd_t *pmd)
{
	struct vm_area_struct *vma = probe->vma;
	struct folio *folio;
	spinlock_t *ptl;	/* the PTE page's lock */
	pte_t *pte, ptent;
	bool young;

	pte = pte_offset_map_lock(vma->vm_mm, pmd, probe->addr, &ptl);
	if (!pte)
		return;		/* no page table, or it went away meanwhile */
	ptent = ptep_get(pte);
	if (pte_present(ptent)) {
		folio = vm_normal_folio(vma, probe->addr, ptent);
		if (damon_va_lru_folio(folio)) {
			young = probe->mkold ?
				ptep_clear_young_notify(vma, probe->addr, pte) :
				pte_young(ptent);
			damon_va_probe_folio(probe, folio, young, probe->addr);
		}
	}
	pte_unmap_unlock(pte, ptl);
}

/*
 * The PMD entry over @addr, or NULL where the page tables stop above it.
 * The mmap read lock keeps the upper levels from being freed; a PUD-sized
 * leaf (DAX) is not sampled, hugetlb never comes here.
 */
static pmd_t *damon_va_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;
	pud_t pudv;

	if (pgd_none(pgdp_get(pgd)) || pgd_bad(pgdp_get(pgd)))
		return NULL;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(p4dp_get(p4d)) || p4d_bad(p4dp_get(p4d)))
		return NULL;
	pud = pud_offset(p4d, addr);
	pudv = pudp_get(pud);
	if (pud_none(pudv) || pud_leaf(pudv) || pud_bad(pudv))
		return NULL;
	return pmd_offset(pud, addr);
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * A hugetlb mapping: one huge PTE for the whole huge page, found by the
 * generic page walk (it knows the huge page sizes and their locks).  Its
 * folio is never on an LRU list.  There is no test-and-clear-young helper
 * for huge PTEs: the entry is rewritten old, which can lose a Dirty bit
 * set in between, as upstream accepts (hugetlb folios are never written
 * back).
 */
static int damon_va_probe_hugetlb_entry(pte_t *pte, unsigned long hmask,
					unsigned long addr, unsigned long end,
					struct mm_walk *walk)
{
	struct damon_va_probe *probe = walk->private;
	struct mm_struct *mm = probe->vma->vm_mm;
	struct hstate *h = hstate_vma(probe->vma);
	unsigned long haddr = addr & hmask, sz = huge_page_size(h);
	struct folio *folio;
	spinlock_t *ptl;	/* the huge PTE's lock */
	pte_t entry;
	bool young;

	ptl = huge_pte_lock(h, mm, pte);
	entry = huge_ptep_get(mm, haddr, pte);
	if (pte_present(entry)) {
		folio = pfn_folio(pte_pfn(entry));
		young = pte_young(entry);
		if (probe->mkold) {
			if (young)
				set_huge_pte_at(mm, haddr, pte,
						pte_mkold(entry), sz);
#ifdef CONFIG_MMU_NOTIFIER
			if (mmu_notifier_clear_young(mm, haddr,
						     haddr + sz))
				young = true;
#endif
		}
		damon_va_probe_folio(probe, folio, young, haddr);
	}
	spin_unlock(ptl);
	return 0;
}

static const struct mm_walk_ops damon_va_hugetlb_ops = {
	.hugetlb_entry = damon_va_probe_hugetlb_entry,
	.walk_lock = PGWALK_RDLOCK,
};

static void damon_va_probe_hugetlb(struct damon_va_probe *probe)
{
	walk_page_range_vma(probe->vma, probe->addr, probe->addr + PAGE_SIZE,
			    &damon_va_hugetlb_ops, probe);
}
#else
static void damon_va_probe_hugetlb(struct damon_va_probe *probe)
{
}
#endif

/*
 * One pass over a target's regions, under its mm's read lock.  Consecutive
 * sampled pages mostly lie in one mapping, so the last mapping found is
 * kept and the maple tree is searched again only for an address outside it
 * (walk_page_range() searched it twice per probe).  @vma is only good while
 * the lock is held: dropping the lock forgets it.
 */
struct damon_va_pass {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

/*
 * Probe the page at @addr in @pass's address space: straight down the page
 * tables to its PMD and PTE (walk_page_range() spent more in its own
 * layers and two mapping lookups than in the probe itself).
 */
static bool damon_va_probe(struct damon_va_pass *pass, unsigned long addr,
			   bool mkold)
{
	struct damon_va_probe probe = {
		.addr = ALIGN_DOWN(addr, PAGE_SIZE),
		.mkold = mkold,
	};
	struct vm_area_struct *vma = pass->vma;
	pmd_t *pmd;

	if (!vma || probe.addr < vma->vm_start || probe.addr >= vma->vm_end) {
		vma = vma_lookup(pass->mm, probe.addr);
		pass->vma = vma;
	}
	/* no mapping, or raw PFNs without folios (as the page walk skips) */
	if (!vma || vma->vm_flags & VM_PFNMAP)
		return false;
	probe.vma = vma;
	if (is_vm_hugetlb_page(vma)) {
		damon_va_probe_hugetlb(&probe);
		return probe.young;
	}
	pmd = damon_va_pmd(pass->mm, probe.addr);
	if (pmd && !damon_va_probe_pmd(&probe, pmd))
		damon_va_probe_pte(&probe, pmd);
	return probe.young;
}

/* ------------------------------------------------------- operations */

static bool damon_va_target_alive(struct damon_target *t)
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
		if (damon_va_mapped_ranges(t, regions))
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
static void damon_va_follow_mappings(struct damon_ctx *ctx)
{
	struct damon_addr_range regions[3];
	struct damon_target *t;

	damon_for_each_target(t, ctx) {
		if (damon_va_mapped_ranges(t, regions))
			continue;
		damon_set_regions(t, regions, 3);
	}
}

/*
 * Let a writer of the mappings (mmap, munmap, a fault that needs the write
 * lock) or another task of this CPU in between probes: with 100,000
 * regions, one uninterrupted pass would hold the read lock for milliseconds.
 */
static void damon_va_yield_mmap_lock(struct damon_va_pass *pass)
{
	if (!need_resched() && !mmap_lock_is_contended(pass->mm))
		return;
	mmap_read_unlock(pass->mm);
	pass->vma = NULL;
	cond_resched();
	mmap_read_lock(pass->mm);
}

/* Pick a new page to sample in @r and clear its accessed state. */
static void damon_va_prepare_region(struct damon_ctx *ctx,
				    struct damon_va_pass *pass,
				    struct damon_region *r)
{
	r->sampling_addr = damon_rand_page(ctx, r->start, r->end);
	damon_va_probe(pass, r->sampling_addr, true);
}

/*
 * One pass over every region of every target, under each mm's read lock.
 * @check counts whether each region's sampled page was accessed since it
 * was prepared; @prepare then picks a new page to sample and clears its
 * accessed state.  Returns the highest nr_accesses seen.
 */
static unsigned int damon_va_sample(struct damon_ctx *ctx, bool check,
				    bool prepare)
{
	unsigned int max_nr_accesses = 0;
	struct damon_va_pass pass;
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx) {
		pass.mm = damon_va_get_mm(t);
		if (!pass.mm)
			continue;
		pass.vma = NULL;
		mmap_read_lock(pass.mm);
		damon_for_each_region(r, t) {
			if (check && damon_va_probe(&pass, r->sampling_addr,
						    false))
				r->nr_accesses++;
			if (prepare)
				damon_va_prepare_region(ctx, &pass, r);
			max_nr_accesses = max(max_nr_accesses, r->nr_accesses);
			damon_va_yield_mmap_lock(&pass);
		}
		mmap_read_unlock(pass.mm);
		mmput(pass.mm);
	}
	return max_nr_accesses;
}

static void damon_va_prepare_samples(struct damon_ctx *ctx)
{
	damon_va_sample(ctx, false, true);
}

static unsigned int damon_va_check_samples(struct damon_ctx *ctx,
					   bool prepare_next)
{
	return damon_va_sample(ctx, true, prepare_next);
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
static unsigned long damon_va_apply_action(struct damon_ctx *ctx,
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
		.update = damon_va_follow_mappings,
		.prepare_samples = damon_va_prepare_samples,
		.check_samples = damon_va_check_samples,
		.target_alive = damon_va_target_alive,
		.apply_scheme = damon_va_apply_action,
		.actions = BIT(DAMOS_WILLNEED) | BIT(DAMOS_COLD) |
			   BIT(DAMOS_PAGEOUT) | BIT(DAMOS_HUGEPAGE) |
			   BIT(DAMOS_NOHUGEPAGE),
		.filters = BIT(DAMOS_FILTER_ANON),
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
