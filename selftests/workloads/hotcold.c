// SPDX-License-Identifier: GPL-2.0
/*
 * hotcold: a workload with one hot and one cold anonymous memory range.
 *
 *   hotcold [-t SECONDS] [-i USECS] [-Z] [-H | -R | -T] HOT_MIB COLD_MIB
 *
 * Maps HOT_MIB MiB and COLD_MIB MiB of private anonymous memory as two
 * separate mappings with an unmapped hole between them, both starting at a
 * 2 MiB boundary, writes a per-page pattern into every page of both (so
 * that all of it is populated before anything is measured), then prints
 * one line to stdout:
 *
 *   PID HOT_START HOT_END COLD_START COLD_END
 *
 * all in decimal, the ends exclusive, every address page-aligned.  From
 * then on it reads and writes back one word of every hot page per pass,
 * sleeping USECS microseconds between passes (default 1000, 0 = spin), and
 * never touches the cold range.
 *
 * Both ranges are advised MADV_NOHUGEPAGE, so that they are made of base
 * pages, unless -H advises them MADV_HUGEPAGE instead (transparent huge
 * pages where the kernel has them: the PMD-mapped case of monitoring).
 * -R re-faults the hot range on every pass: it drops its pages
 * (MADV_DONTNEED) and writes the pattern again, so that the pages come
 * back under whatever huge page advice the range has at that time (the
 * hugepage and nohugepage actions change it).  -T maps both ranges from
 * the default hugetlb pool instead (MAP_HUGETLB; sizes in whole huge
 * pages), so that only huge PTEs map them; without enough free huge pages
 * it fails with status 2.
 *
 * -Z writes one value into all words of a page (a value per page): zram
 * then keeps a paged-out page in no memory, so that paging the cold range
 * out frees memory, as swapping to a disk would.
 *
 * SIGUSR2 switches the passes to ten times slower (a sleep of 10 x USECS)
 * and back: the access rate of the hot range drops tenfold and recovers.
 *
 * After SECONDS (default: forever) or on
 * SIGTERM, SIGUSR1 or SIGINT it checks every word of both ranges against
 * the pattern, prints "verify: ok" or "verify: FAILED ..." and exits 0 if
 * all data is intact, 1 if not (2 on usage or set-up errors).  Tests page
 * the cold range out and rely on this check to prove nothing was lost.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sys/mman.h>
#include <time.h>

#include "wl.h"

#define HUGE	(2UL * MIB)	/* a PMD's worth on x86_64; ranges align to it */
#define HOLE	HUGE		/* unmapped gap between the two ranges */

static volatile sig_atomic_t slow;

static void toggle_slow(int sig)
{
	(void)sig;
	slow = !slow;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hotcold [-t SECONDS] [-i USECS] [-Z] [-H | -R | -T] HOT_MIB COLD_MIB\n");
	exit(2);
}

/* Map @len bytes at @addr (2 MiB aligned) from the hugetlb pool. */
static int map_hugetlb(char *addr, size_t len)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_HUGETLB,
		       -1, 0);

	if (p == MAP_FAILED) {
		perror("hotcold: mmap(MAP_HUGETLB)");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long secs = 0, usecs = 1000, hot_mib, cold_mib;
	size_t hot_len, cold_len, hot_pages, words, len, page_size;
	int advice = MADV_NOHUGEPAGE, refault = 0, hugetlb = 0, opt;
	struct timespec nap, slow_nap, t0, now;
	struct wl_range ranges[2];
	char *map, *hot, *cold;
	uintptr_t slop;

	while ((opt = getopt(argc, argv, "t:i:ZHRT")) != -1) {
		switch (opt) {
		case 'Z':
			wl_flat = 1;
			break;
		case 'H':
			advice = MADV_HUGEPAGE;
			break;
		case 'R':
			refault = 1;
			break;
		case 'T':
			hugetlb = 1;
			break;
		case 't':
			secs = wl_num(optarg, 0, INT_MAX, usage);
			break;
		case 'i':
			usecs = wl_num(optarg, 0, 10UL * 1000 * 1000, usage);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || refault + hugetlb + (advice == MADV_HUGEPAGE) > 1)
		usage();
	hot_mib = wl_num(argv[optind], 0, 64UL * 1024, usage);
	cold_mib = wl_num(argv[optind + 1], 0, 64UL * 1024, usage);

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	words = page_size / sizeof(uint64_t);
	hot_len = hot_mib * MIB;
	cold_len = cold_mib * MIB;
	hot_pages = hot_len / page_size;

	/*
	 * Reserve both ranges, the hole and room to align at once, then
	 * trim the ends and punch the hole.
	 */
	len = hot_len + HOLE + cold_len;
	map = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		perror("hotcold: mmap");
		return 2;
	}
	slop = (HUGE - (uintptr_t)map % HUGE) % HUGE;
	hot = map + slop;
	cold = hot + hot_len + HOLE;
	if ((slop && munmap(map, slop)) ||
	    munmap(hot + len, HUGE - slop) || munmap(hot + hot_len, HOLE)) {
		perror("hotcold: munmap");
		return 2;
	}
	/* hugetlb: replace both ranges, now aligned, with hugetlb mappings */
	if (hugetlb && ((hot_len && map_hugetlb(hot, hot_len)) ||
			(cold_len && map_hugetlb(cold, cold_len))))
		return 2;
	/* Kernels without THP refuse both: only -H needs it. */
	if (!hugetlb && ((hot_len && madvise(hot, hot_len, advice)) ||
			 (cold_len && madvise(cold, cold_len, advice)))) {
		if (advice == MADV_HUGEPAGE) {
			perror("hotcold: madvise(MADV_HUGEPAGE)");
			return 2;
		}
	}

	ranges[0] = (struct wl_range){ hot, hot_len, "hot" };
	ranges[1] = (struct wl_range){ cold, cold_len, "cold" };

	wl_stop_on_signals();
	wl_fill_and_print(ranges, 2);

	nap.tv_sec = usecs / 1000000;
	nap.tv_nsec = (long)(usecs % 1000000) * 1000;
	slow_nap.tv_sec = usecs * 10 / 1000000;
	slow_nap.tv_nsec = (long)(usecs * 10 % 1000000) * 1000;
	signal(SIGUSR2, toggle_slow);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!wl_stop) {
		volatile uint64_t *h = (volatile uint64_t *)hot;

		if (refault) {
			/* Dropped pages read back as zeroes until refilled. */
			if (madvise(hot, hot_len, MADV_DONTNEED)) {
				perror("hotcold: madvise");
				return 2;
			}
			wl_fill((uint64_t *)hot, hot_pages, 0);
		}
		/* Read one word of each hot page and write it back unchanged. */
		for (size_t p = 0; p < hot_pages && !wl_stop; p++) {
			size_t i = p * words + (p % words);

			h[i] = h[i];
		}
		if (secs) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((unsigned long)(now.tv_sec - t0.tv_sec) >= secs)
				break;
		}
		if (usecs)
			nanosleep(slow ? &slow_nap : &nap, NULL);
	}

	return wl_verify(ranges, 2);
}
