// SPDX-License-Identifier: GPL-2.0
/*
 * physmap: where a process's pages are in physical memory, and on which
 * LRU list (a helper for the paddr tests, not a workload).
 *
 *   physmap PID START END
 *
 * For every page of [START, END) (decimal, page aligned) of process PID
 * that is in memory, prints one line
 *
 *   PADDR ACTIVE
 *
 * PADDR: the physical address of the page (its page frame number from
 * /proc/PID/pagemap times the page size), decimal; ACTIVE: 1 if
 * /proc/kpageflags says the page is on an active LRU list, 0 if not.
 * Pages not in memory (never touched, or swapped out) print nothing.
 * Needs root (CAP_SYS_ADMIN): pagemap shows frame numbers only then.
 * Exits 0, or 2 on usage or read errors.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>

#include "wl.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define KPF_ACTIVE	6

static void usage(void)
{
	fprintf(stderr, "usage: physmap PID START END\n");
	exit(2);
}

static int read_u64(int fd, uint64_t index, uint64_t *v)
{
	return pread(fd, v, sizeof(*v), (off_t)(index * sizeof(*v))) ==
	       (ssize_t)sizeof(*v) ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long pid, start, end, page_size, addr;
	char path[64];
	uint64_t e, flags, pfn;
	int pm, kpf;

	if (argc != 4)
		usage();
	pid = wl_num(argv[1], 1, INT_MAX, usage);
	start = wl_num(argv[2], 0, ULONG_MAX, usage);
	end = wl_num(argv[3], 0, ULONG_MAX, usage);
	page_size = (unsigned long)sysconf(_SC_PAGESIZE);
	if (start % page_size || end % page_size || start > end)
		usage();

	snprintf(path, sizeof(path), "/proc/%lu/pagemap", pid);
	pm = open(path, O_RDONLY);
	kpf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kpf < 0) {
		perror("physmap: open");
		return 2;
	}
	for (addr = start; addr < end; addr += page_size) {
		if (read_u64(pm, addr / page_size, &e)) {
			perror("physmap: pagemap");
			return 2;
		}
		pfn = e & PM_PFN_MASK;
		if (!(e & PM_PRESENT) || !pfn)
			continue;
		if (read_u64(kpf, pfn, &flags)) {
			perror("physmap: kpageflags");
			return 2;
		}
		printf("%llu %d\n", (unsigned long long)(pfn * page_size),
		       (int)(flags >> KPF_ACTIVE & 1));
	}
	return 0;
}
