/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the bench workloads: argument parsing, populated anonymous
 * mappings, and the progress report on SIGUSR1; with the selftest
 * workloads (wl.h): strict numbers, the stop flag and the clock.
 *
 * Every workload counts its "ops" (one op = one page touched: a word read
 * and written back) and, whenever it receives SIGUSR1, prints
 *
 *   progress T OPS
 *
 * (T: CLOCK_MONOTONIC seconds, OPS: cumulative ops) as soon as its loop
 * sees the signal.  The bench driver sends SIGUSR1 at the edges of its
 * measurement windows; the rate over a window is dOPS/dT.  SIGTERM or
 * SIGINT make it print a last progress line and exit 0.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>

#include "../../selftests/workloads/wl.h"

static volatile sig_atomic_t bench_report;
static uint64_t bench_ops;

/* SIGUSR1 asks for a progress line; SIGTERM and SIGINT set wl_stop. */
static void bench_on_signal(int sig)
{
	if (sig == SIGUSR1)
		bench_report = 1;
	else
		wl_stop = 1;
}

/*
 * With BENCH_SWITCH_US=N in the environment, a child process wakes every
 * N microseconds for as long as the workload lives, so that the CPU
 * switches address space that often.  Under QEMU's TCG the software TLB
 * is flushed only then: a workload alone on its CPU would otherwise keep
 * translations cached for good, never set an Accessed bit again after
 * DAMON cleared it, and look idle to any DAMON.  (Real CPUs evict TLB
 * entries all the time; UML does not need it.)
 */
static void bench_switcher(void)
{
	const char *env = getenv("BENCH_SWITCH_US");
	unsigned long us = env ? strtoul(env, NULL, 10) : 0;
	struct timespec nap;
	pid_t parent = getpid();

	if (!us)
		return;
	nap.tv_sec = us / 1000000;
	nap.tv_nsec = (long)(us % 1000000) * 1000;
	if (fork())
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;)
		nanosleep(&nap, NULL);
}

static void bench_signals(void)
{
	bench_switcher();
	wl_handle_signals(bench_on_signal);
	/* stdout is a file or a pipe: every line must reach it at once. */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Print a progress line if one was asked for; returns 1 to stop. */
static int bench_poll(void)
{
	if (bench_report) {
		bench_report = 0;
		printf("progress %.6f %llu\n", wl_now(),
		       (unsigned long long)bench_ops);
	}
	if (wl_stop) {
		printf("progress %.6f %llu\n", wl_now(),
		       (unsigned long long)bench_ops);
		return 1;
	}
	return 0;
}

/*
 * The command line "[-@opt NUMBER] OPERAND..." with exactly @nr operands:
 * NUMBER (in [@min, @max], else @usage()) goes to *@val; returns the index
 * in @argv of the first operand.
 */
static int bench_args(int argc, char **argv, char opt, unsigned long *val,
		      unsigned long min, unsigned long max, int nr,
		      void (*usage)(void))
{
	const char optstring[] = { opt, ':', '\0' };
	int c;

	while ((c = getopt(argc, argv, optstring)) != -1) {
		if (c != opt)
			usage();
		*val = wl_num(optarg, min, max, usage);
	}
	if (argc - optind != nr)
		usage();
	return optind;
}

/* "range NAME START END": the ground truth of a range, END exclusive. */
static void bench_range(const char *name, const char *start, size_t len)
{
	printf("range %s %lu %lu\n", name, (unsigned long)start,
	       (unsigned long)(start + len));
}

/*
 * A private anonymous mapping of @len bytes, no huge pages, every page
 * written (populated) before it is returned.  MAP_POPULATE first: in UML
 * a page fault from user space costs ~0.3 ms, populating in the kernel
 * is much cheaper.
 */
static char *bench_map(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += page)
		*(volatile uint64_t *)(p + off) = off | 1;
	return p;
}

/* Touch one word of every page of [p, p + len); counts the ops. */
static void bench_touch(char *p, size_t len, size_t page)
{
	for (size_t off = 0; off < len; off += page) {
		volatile uint64_t *w = (volatile uint64_t *)(p + off);

		*w = *w + 1;
	}
	bench_ops += len / page;
}

#endif
