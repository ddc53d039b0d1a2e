// SPDX-License-Identifier: GPL-2.0
/*
 * phases: a workload whose hot range moves through its memory in phases.
 *
 *   phases [-p PHASES] [-s SECONDS] [-i USECS] MIB
 *
 * Maps MIB MiB of private anonymous memory, writes every page (so that all
 * of it is populated first), then prints one line to stdout:
 *
 *   PID START END
 *
 * (decimal, END exclusive).  The memory is cut into PHASES (default 4)
 * equal slices; in phase k, for SECONDS (default 3) seconds, it reads and
 * writes back one word of every page of slice k per pass, sleeping USECS
 * (default 1000) between passes, and leaves the other slices alone.  After
 * the last phase, or on SIGTERM or SIGINT, it prints "done: N phases" and
 * exits 0 (2 on usage or set-up errors).  The demo (`make demo`) records it
 * with damo: the heatmap shows a hot band stepping up the address range.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <time.h>

#include "wl.h"

static void usage(void)
{
	fprintf(stderr, "usage: phases [-p PHASES] [-s SECONDS] [-i USECS] MIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long phases = 4, secs = 3, usecs = 1000, mib, k;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len, slice, off;
	struct timespec nap;
	volatile uint64_t *w;
	char *mem;
	double end;
	int c;

	while ((c = getopt(argc, argv, "p:s:i:")) != -1) {
		switch (c) {
		case 'p':
			phases = wl_num(optarg, 1, 64, usage);
			break;
		case 's':
			secs = wl_num(optarg, 1, 3600, usage);
			break;
		case 'i':
			usecs = wl_num(optarg, 0, 1000000, usage);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	mib = wl_num(argv[optind], 1, 4096, usage);
	len = mib * MIB;
	slice = len / phases / page * page;
	if (!slice)
		usage();
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (off = 0; off < len; off += page)
		*(uint64_t *)(mem + off) = off;
	wl_stop_on_signals();
	printf("%d %lu %lu\n", (int)getpid(), (unsigned long)mem,
	       (unsigned long)(mem + len));
	fflush(stdout);

	nap.tv_sec = usecs / 1000000;
	nap.tv_nsec = usecs % 1000000 * 1000;
	for (k = 0; k < phases && !wl_stop; k++) {
		end = wl_now() + secs;
		while (!wl_stop && wl_now() < end) {
			for (off = k * slice; off < (k + 1) * slice; off += page) {
				w = (volatile uint64_t *)(mem + off);
				*w = *w;
			}
			if (usecs)
				nanosleep(&nap, NULL);
		}
	}
	printf("done: %lu phases\n", k);
	return 0;
}
