/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftest workloads (and, through bench/workloads/common.h, the
 * bench workloads) share: strict number arguments, the stop flag that
 * SIGTERM, SIGUSR1 and SIGINT raise, the monotonic clock, and a per-page
 * data pattern that proves after the fact that paging lost nothing.  One
 * program includes it once; everything is static.
 */
#ifndef WL_H
#define WL_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB	(1024UL * 1024UL)

static volatile sig_atomic_t wl_stop;

static inline void wl_on_signal(int sig)
{
	(void)sig;
	wl_stop = 1;
}

/* @handler for SIGTERM, SIGUSR1 and SIGINT (system calls are restarted). */
static inline void wl_handle_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* SIGTERM, SIGUSR1 and SIGINT set wl_stop. */
static inline void wl_stop_on_signals(void)
{
	wl_handle_signals(wl_on_signal);
}

/* Sleep until a signal has set wl_stop, with no window in which one is lost. */
static inline void wl_wait_for_stop(void)
{
	sigset_t mask, old;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!wl_stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* A plain decimal in [@min, @max], or @usage() (which exits). */
static inline unsigned long wl_num(const char *s, unsigned long min,
			    unsigned long max, void (*usage)(void))
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		usage();
	return v;
}

/* Seconds on the monotonic clock. */
static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Set (hotcold -Z): every word of a page carries the same value, so that
 * zram stores a paged-out page in no memory at all (a "same-filled" page)
 * and paging out really frees memory.
 */
static int wl_flat;

/* The value of word @w of page @p of range @r. */
static inline uint64_t wl_pattern(unsigned int r, size_t p, size_t w)
{
	uint64_t x = ((uint64_t)r << 62) ^ ((uint64_t)p << 20) ^
		     (wl_flat ? 0 : w);

	x ^= 0x5deece66dULL;
	x *= 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

static inline size_t wl_words_per_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE) / sizeof(uint64_t);
}

/* Write range @r's pattern into its @pages pages at @base. */
static inline void wl_fill(uint64_t *base, size_t pages, unsigned int r)
{
	size_t words = wl_words_per_page();

	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < words; w++)
			base[p * words + w] = wl_pattern(r, p, w);
}

/*
 * The number of the @pages pages at @base that lost range @r's pattern;
 * the first is reported as "verify: FAILED @name page P word W: GOT != WANT".
 */
static inline size_t wl_check(const uint64_t *base, size_t pages, unsigned int r,
		       const char *name)
{
	size_t words = wl_words_per_page(), bad = 0;

	for (size_t p = 0; p < pages; p++) {
		for (size_t w = 0; w < words; w++) {
			uint64_t want = wl_pattern(r, p, w);
			uint64_t got = base[p * words + w];

			if (got == want)
				continue;
			if (!bad)
				printf("verify: FAILED %s page %zu word %zu: %#llx != %#llx\n",
				       name, p, w, (unsigned long long)got,
				       (unsigned long long)want);
			bad++;
			break;
		}
	}
	return bad;
}

/* Ranges of memory that carry the pattern: range i has pattern i. */
struct wl_range {
	char *start;
	size_t len;
	const char *name;	/* for "verify: FAILED NAME ..." */
};

/*
 * Write the pattern into the @nr ranges @r, then print (and flush)
 * "PID START END..." with the start and end of each, in decimal.
 */
static inline void wl_fill_and_print(const struct wl_range *r, int nr)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < nr; i++)
		wl_fill((uint64_t *)r[i].start, r[i].len / page_size, i);
	printf("%ld", (long)getpid());
	for (i = 0; i < nr; i++)
		printf(" %lu %lu", (unsigned long)r[i].start,
		       (unsigned long)(r[i].start + r[i].len));
	printf("\n");
	fflush(stdout);
}

/*
 * Check the @nr ranges @r against their pattern (wl_check()) and print
 * "verify: ok, N pages intact" (returns 0) or "verify: FAILED, B of N
 * pages differ" (returns 1).
 */
static inline int wl_verify(const struct wl_range *r, int nr)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE), pages = 0, bad = 0;
	int i;

	for (i = 0; i < nr; i++) {
		bad += wl_check((uint64_t *)r[i].start, r[i].len / page_size, i,
				r[i].name);
		pages += r[i].len / page_size;
	}
	if (bad) {
		printf("verify: FAILED, %zu of %zu pages differ\n", bad, pages);
		return 1;
	}
	printf("verify: ok, %zu pages intact\n", pages);
	return 0;
}

#endif /* WL_H */
