// SPDX-License-Identifier: GPL-2.0
/*
 * maplat MIB SECS: the target of the scale benchmark, and a gauge of how
 * long a monitor keeps its mmap lock.
 *
 * Maps MIB MiB of anonymous memory without populating it (the cost of
 * monitoring a region does not depend on what is behind it) and prints
 * "ready START END".  Then, at each SIGUSR1, it maps and unmaps one page
 * for SECS seconds, as fast as it can: mmap() and munmap() take the mmap
 * lock for writing, so each one waits for any reader of it, such as a
 * kdamond's sampling pass over the regions of this process.  It prints
 * "maplat CALLS MAX_US P99_US": how many mmap()+munmap() pairs it made
 * and the longest and 99th-percentile time of one pair.  SIGTERM or
 * SIGINT ends it.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "../../selftests/workloads/wl.h"

/* a histogram of pair times in microseconds; the last bin is "or more" */
#define MAPLAT_BINS	100000

static volatile sig_atomic_t measure;
static unsigned int hist[MAPLAT_BINS];

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		measure = 1;
	else
		wl_stop = 1;
}

static void measure_for(double secs, size_t page)
{
	double t, start = wl_now(), max = 0;
	unsigned long calls = 0, sum = 0, us;
	void *p;

	memset(hist, 0, sizeof(hist));
	while (!wl_stop && wl_now() - start < secs) {
		t = wl_now();
		p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || munmap(p, page)) {
			perror("maplat: mmap/munmap");
			exit(1);
		}
		t = (wl_now() - t) * 1e6;
		max = t > max ? t : max;
		us = t < MAPLAT_BINS - 1 ? (unsigned long)t : MAPLAT_BINS - 1;
		hist[us]++;
		calls++;
	}
	for (us = 0; us < MAPLAT_BINS; us++) {
		sum += hist[us];
		if (sum * 100 >= calls * 99)
			break;
	}
	printf("maplat %lu %.0f %lu\n", calls, max, us + 1);
}

static void usage(void)
{
	fprintf(stderr, "usage: maplat MIB SECS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), len;
	sigset_t mask, old;
	double secs;
	void *base;

	if (argc != 3)
		usage();
	len = wl_num(argv[1], 1, 1UL << 20, usage) * MIB;
	secs = wl_num(argv[2], 1, 3600, usage);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		perror("maplat: mmap");
		return 1;
	}
	wl_handle_signals(on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %lu %lu\n", (unsigned long)base,
	       (unsigned long)base + len);
	/* no signal may slip in between a look at the flags and the wait */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!wl_stop) {
		if (!measure) {
			sigsuspend(&old);
			continue;
		}
		measure = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
		measure_for(secs, page);
		sigprocmask(SIG_BLOCK, &mask, NULL);
	}
	return 0;
}
