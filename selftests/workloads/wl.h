/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftest workloads share: strict number arguments, the stop
 * flag that SIGTERM, SIGUSR1 and SIGINT raise, and a per-page data
 * pattern that proves after the fact that paging lost nothing.  One
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
#include <unistd.h>

#define MIB	(1024UL * 1024UL)

static volatile sig_atomic_t wl_stop;

static inline void wl_on_signal(int sig)
{
	(void)sig;
	wl_stop = 1;
}

/* SIGTERM, SIGUSR1 and SIGINT set wl_stop (system calls are restarted). */
static inline void wl_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wl_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
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

/* The value of word @w of page @p of range @r. */
static inline uint64_t wl_pattern(unsigned int r, size_t p, size_t w)
{
	uint64_t x = ((uint64_t)r << 62) ^ ((uint64_t)p << 20) ^ w;

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

#endif /* WL_H */
