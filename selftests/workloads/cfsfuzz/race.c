// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz race MODE DIR ROUNDS [PID | MIB PID]: races in a loop, without a
 * fork+exec per step (which costs a lot in UML).  The modes are in
 * race-exit.c (exit-on, exit-commit, exit-only), race-action.c
 * (exit-action), race-tree.c (gone, rmdir-off, dirs), race-paddr.c
 * (paddr) and here (reads);
 * here is also what they share: the tally of outcomes that ends the output,
 * target processes and their killers, files read and written in one line.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/prctl.h>
#include <time.h>

#include "race.h"

/* Outcome counters: "COUNT CATEGORY OUTCOME N" lines at the end. */
struct tally {
	char cat[24];
	int err;
	unsigned long n;
};

static struct tally tallies[128];
static int nr_tallies;

void tally(const char *cat, int err)
{
	int i;

	for (i = 0; i < nr_tallies; i++) {
		if (tallies[i].err == err && !strcmp(tallies[i].cat, cat)) {
			tallies[i].n++;
			return;
		}
	}
	if (nr_tallies == 128)
		return;
	snprintf(tallies[i].cat, sizeof(tallies[i].cat), "%s", cat);
	tallies[i].err = err;
	tallies[i].n = 1;
	nr_tallies++;
}

void print_tallies(void)
{
	int i;

	for (i = 0; i < nr_tallies; i++)
		printf("COUNT %s %s %lu\n", tallies[i].cat,
		       ename(tallies[i].err), tallies[i].n);
	fflush(stdout);
}

/* For a child: it prints its own tallies, not the parent's. */
void forget_tallies(void)
{
	nr_tallies = 0;
}

/* "FAIL: ..."; returns 1. */
int race_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	nr_fails++;
	return 1;
}

void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Microseconds on the monotonic clock. */
unsigned long long mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A target process: populates 1 MiB, then sleeps until killed. */
pid_t spawn_target(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		static char mem[1 << 20];

		/* never outlive cfsfuzz (bats waits for its output's EOF) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(mem, 1, sizeof(mem));
		for (;;)
			pause();
	}
	return pid;
}

/* A process that SIGKILLs @victim after 0 to @max_us microseconds. */
pid_t spawn_killer(pid_t victim, unsigned long max_us)
{
	unsigned long us = rnd_below(max_us + 1);
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sleep_us(us);
		kill(victim, SIGKILL);
		_exit(0);
	}
	return pid;
}

/* Write a value to @dir/@file as write_state() does; 0 or an errno. */
int writef(const char *dir, const char *file, const char *fmt, ...)
{
	char path[1400], val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_state(path, val);
}

bool readf(const char *dir, const char *file, char *buf, size_t size)
{
	char path[1400];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return read_file(path, buf, size) >= 0;
}

bool read_ulong(const char *dir, const char *file, unsigned long *v)
{
	char buf[64];

	return readf(dir, file, buf, sizeof(buf)) && parse_line_ulong(buf, v);
}

/* The statistics of scheme directory @s, in ST_ order. */
bool read_stats(const char *s, unsigned long v[NR_STATS])
{
	char file[32];
	int i;

	for (i = 0; i < NR_STATS; i++) {
		snprintf(file, sizeof(file), "stats/%s", stat_names[i]);
		if (!read_ulong(s, file, &v[i]))
			return false;
	}
	return true;
}

/* Poll (without reading anything else) until @ctx reads off; 30 s. */
bool wait_off(const char *ctx)
{
	char buf[16];
	int i;

	for (i = 0; i < 3000; i++) {
		if (readf(ctx, "state", buf, sizeof(buf)) &&
		    !strcmp(buf, "off\n"))
			return true;
		sleep_us(10000);
	}
	return false;
}

bool stopped(const char *ctx)
{
	char buf[16];

	return readf(ctx, "state", buf, sizeof(buf)) && !strcmp(buf, "off\n") &&
	       readf(ctx, "kdamond_pid", buf, sizeof(buf)) &&
	       !strcmp(buf, "-1\n");
}

/* reads CTX N: N times read the context's read-mostly files. */
static int race_reads(const char *ctx, unsigned long n)
{
	static char buf[MAX_NR_REGIONS * 64 + 1];
	unsigned long i, u;
	char path[1200];
	ssize_t len;
	long p;

	for (i = 0; i < n; i++) {
		len = readf(ctx, "state", buf, 16) ? (ssize_t)strlen(buf) : -1;
		tally("read-state", len < 0 ? errno : 0);
		if (len >= 0 && strcmp(buf, "on\n") && strcmp(buf, "off\n"))
			race_fail("state reads %s", quote(buf, len));
		if (readf(ctx, "kdamond_pid", buf, 32) &&
		    !parse_line_pid(buf, &p))
			race_fail("kdamond_pid reads %s", quote(buf, strlen(buf)));
		if (readf(ctx, "nr_aggregations", buf, 32) &&
		    !parse_line_ulong(buf, &u))
			race_fail("nr_aggregations reads %s",
				  quote(buf, strlen(buf)));
		snprintf(path, sizeof(path), "%s/targets/t%lu/snapshot", ctx,
			 i % 2);
		len = read_file(path, buf, sizeof(buf));
		tally("read-snapshot", len < 0 ? -len : 0);
	}
	return 0;
}

int cmd_race(int argc, char **argv)
{
	const char *mode, *dir;
	unsigned long rounds;
	long pid = argc > 5 ? strtol(argv[5], NULL, 10) : 0;

	if (argc < 5 || strlen(argv[3]) >= 512)
		return 2;
	mode = argv[2];
	dir = argv[3];
	rounds = strtoul(argv[4], NULL, 10);
	rng_state = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL + 1;
	if (!strcmp(mode, "exit-on"))
		race_exit_on(dir, rounds);
	else if (!strcmp(mode, "exit-commit"))
		race_exit_commit(dir, rounds);
	else if (!strcmp(mode, "exit-only"))
		race_exit_only(dir, rounds);
	else if (!strcmp(mode, "gone"))
		race_gone(dir, rounds);
	else if (!strcmp(mode, "rmdir-off") && argc == 6)
		race_rmdir_off(dir, rounds, pid);
	else if (!strcmp(mode, "dirs") && argc == 6)
		race_dirs(dir, rounds, pid);
	else if (!strcmp(mode, "reads"))
		race_reads(dir, rounds);
	else if (!strcmp(mode, "paddr"))
		race_paddr(dir, rounds);
	else if (!strcmp(mode, "exit-action") &&
		 (argc == 7 || (argc == 8 && !strcmp(argv[7], "willneed"))))
		race_exit_action(dir, rounds, strtoul(argv[5], NULL, 10),
				 strtol(argv[6], NULL, 10), argc == 8);
	else
		return 2;
	print_tallies();
	return nr_fails ? 1 : 0;
}
