// SPDX-License-Identifier: GPL-2.0
/*
 * churn: memory that comes and goes: mmap, write, read back, munmap.
 *
 *   churn [-i USECS] MIB SLOTS
 *
 * Keeps up to SLOTS mappings, about MIB MiB in all.  Each step picks a
 * slot at random: an empty one gets a new mapping of 1 page to 2 * MIB /
 * SLOTS MiB (private anonymous memory, or one time in four shared
 * anonymous memory: shmem, which the paddr operations do not count as
 * anonymous) and a per-page pattern in every page of it; a full one is
 * checked against its pattern and, every other time, unmapped.  Then it
 * sleeps USECS microseconds (default 1000, 0 = none).  So pages are
 * allocated, touched and freed all the time, while whatever DAMON does to
 * them (paging them out, moving them between LRU lists or nodes) must not
 * change their data.
 *
 * Prints its pid on a line first.  On SIGTERM, SIGUSR1 or SIGINT it checks
 * the mappings still there, prints "verify: ok, M mappings made, P pages
 * checked" and exits 0.  A page that lost its pattern, then or before,
 * ends it at once with "verify: FAILED ..." and status 1 (2 on usage or
 * set-up errors).
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "wl.h"

struct slot {
	uint64_t *start;	/* NULL: empty */
	size_t pages;
	unsigned int pattern;
};

static void usage(void)
{
	fprintf(stderr, "usage: churn [-i USECS] MIB SLOTS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long usecs = 1000, mib, nr, made = 0, checked = 0, bad = 0;
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE), max_pages;
	struct timespec nap;
	struct slot *slots, *s;
	unsigned int seed;
	int opt, flags;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i')
			usage();
		usecs = wl_num(optarg, 0, 10UL * 1000 * 1000, usage);
	}
	if (argc - optind != 2)
		usage();
	mib = wl_num(argv[optind], 1, 64UL * 1024, usage);
	nr = wl_num(argv[optind + 1], 1, 4096, usage);
	max_pages = 2 * mib * MIB / nr / page_size;
	if (!max_pages)
		max_pages = 1;
	slots = calloc(nr, sizeof(*slots));
	if (!slots) {
		perror("churn: calloc");
		return 2;
	}
	seed = (unsigned int)getpid();
	nap.tv_sec = usecs / 1000000;
	nap.tv_nsec = (long)(usecs % 1000000) * 1000;

	wl_stop_on_signals();
	printf("%ld\n", (long)getpid());
	fflush(stdout);
	while (!wl_stop && !bad) {
		s = &slots[rand_r(&seed) % nr];
		if (!s->start) {
			s->pages = 1 + rand_r(&seed) % max_pages;
			flags = rand_r(&seed) % 4 ? MAP_PRIVATE : MAP_SHARED;
			s->start = mmap(NULL, s->pages * page_size,
					PROT_READ | PROT_WRITE,
					flags | MAP_ANONYMOUS, -1, 0);
			if (s->start == MAP_FAILED) {
				perror("churn: mmap");
				return 2;
			}
			s->pattern = (unsigned int)made++;
			wl_fill(s->start, s->pages, s->pattern);
		} else {
			bad += wl_check(s->start, s->pages, s->pattern,
					"churn");
			checked += s->pages;
			if (rand_r(&seed) % 2) {
				if (munmap(s->start, s->pages * page_size)) {
					perror("churn: munmap");
					return 2;
				}
				s->start = NULL;
			}
		}
		if (usecs)
			nanosleep(&nap, NULL);
	}
	for (s = slots; !bad && s < slots + nr; s++) {
		if (!s->start)
			continue;
		bad += wl_check(s->start, s->pages, s->pattern, "churn");
		checked += s->pages;
	}
	if (bad) {
		printf("verify: FAILED, %lu pages differ\n", bad);
		return 1;
	}
	printf("verify: ok, %lu mappings made, %lu pages checked\n", made,
	       checked);
	return 0;
}
