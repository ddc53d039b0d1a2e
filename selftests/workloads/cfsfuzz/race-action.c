// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz race exit-action CTX ROUNDS MIB PID [willneed]: a target process
 * killed while a pageout (or willneed) scheme moves its memory.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>

#include "race.h"

/*
 * A target for exit-action: maps @mib MiB of private anonymous memory,
 * writes to every page (and, with @out, pages it all out itself), says so
 * through a pipe, then sleeps (@busy false) or keeps reading a word of
 * every page (so that what is paged out comes back at once), until
 * killed.  -1 if it could not.
 */
static pid_t spawn_victim(unsigned long mib, bool busy, bool out)
{
	size_t len = mib << 20, i;
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		volatile unsigned char *mem;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(1);
		/* not all one value: zram would store such pages for free */
		for (i = 0; i < len; i += page)
			mem[i] = (unsigned char)(i / page) | 1;
		if (out && madvise((void *)mem, len, MADV_PAGEOUT))
			_exit(1);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;) {
			if (!busy)
				pause();
			for (i = 0; busy && i < len; i += page)
				(void)mem[i];
		}
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		reap(pid);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* Resident pages of @pid (/proc/PID/statm), or -1. */
static long rss_pages(pid_t pid)
{
	char path[64], buf[128];
	long size, res;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%ld %ld", &size, &res) != 2)
		return -1;
	return res;
}

/* Pages in the swap cache (/proc/meminfo SwapCached), or -1. */
static long swap_cached_pages(void)
{
	static char buf[8192];
	const char *at;
	long kib;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	at = strstr(buf, "\nSwapCached:");
	if (!at || sscanf(at + 12, "%ld", &kib) != 1)
		return -1;
	return kib * 1024 / (long)page;
}

/*
 * Wait (polling every millisecond, for up to 10 s) until the action has
 * moved 1 to 70 % of @v's @pages pages: until that many fewer are resident
 * or, with @willneed, until that many more are in the swap cache.  *@r0
 * gets the count at the start, *@r the last one.  Whether they moved.
 */
static bool wait_moved(pid_t v, unsigned long pages, bool willneed,
		       long *r0, long *r)
{
	unsigned long long deadline;
	bool moved = false;
	long thresh;

	*r0 = willneed ? swap_cached_pages() : rss_pages(v);
	thresh = (long)(pages * (1 + rnd_below(70)) / 100) + 1;
	thresh = willneed ? *r0 + thresh : *r0 - thresh;
	/*
	 * At most 10 s: a busy process may win the race for good
	 * (on x86_64 it faults its pages back about as fast as
	 * they leave); at least one round must see them leave.
	 */
	deadline = mono_us() + 10000000;
	while (!moved && mono_us() < deadline) {
		*r = willneed ? swap_cached_pages() : rss_pages(v);
		moved = *r >= 0 && (willneed ? *r >= thresh : *r <= thresh);
		if (!moved)
			sleep_us(1000);
	}
	return moved;
}

/*
 * t0 gone, t1 lives: the kdamond (@kpid) must go on aggregating, and
 * applying s0 (@s0), until turned off.  0 or 1 after a race_fail().
 */
static int goes_on_with_t1(const char *ctx, const char *s0, unsigned long i,
			   long kpid)
{
	unsigned long st[NR_STATS], again[NR_STATS], n0, n;
	char buf[32];
	int err, tries;

	if (!read_ulong(ctx, "nr_aggregations", &n0) || !read_stats(s0, st))
		return race_fail("round %lu: nr_aggregations, stats", i);
	for (tries = 0; tries < 3000; tries++) {
		if (read_ulong(ctx, "nr_aggregations", &n) && n >= n0 + 3)
			break;
		sleep_us(10000);
	}
	if (tries == 3000 || !readf(ctx, "state", buf, sizeof(buf)) ||
	    strcmp(buf, "on\n") ||
	    !readf(ctx, "kdamond_pid", buf, sizeof(buf)) ||
	    strtol(buf, NULL, 10) != kpid)
		return race_fail("round %lu: the kdamond (pid %ld) did not go on with t1 after t0 exited during the action: state %s",
				 i, kpid,
				 readf(ctx, "state", buf, sizeof(buf)) ?
				 buf : "unreadable");
	tally("survived", 0);
	/* and so does s0, on t1's idle memory at least */
	if (!read_stats(s0, again) || again[ST_NR_TRIED] <= st[ST_NR_TRIED])
		race_fail("round %lu: s0 tried nothing more in 3 aggregations after t0 exited (nr_tried %lu)",
			  i, st[ST_NR_TRIED]);
	err = writef(ctx, "state", "off");
	tally("off", err);
	if (err || !stopped(ctx))
		return race_fail("round %lu: off: %s", i, ename(err));
	return 0;
}

/*
 * exit-action CTX ROUNDS MIB PID [willneed]: CTX is off, with valid
 * attributes, a target t0 and a scheme s0 (no quota, no watermarks),
 * whose action this sets to pageout (or willneed).  Each round a new
 * process with MIB MiB is t0, and is killed while s0 pages its memory
 * out: once 1 to 70 % of it has left (resident pages, polled every
 * millisecond, for up to 10 s).  With willneed the process has paged all
 * of it out itself, and is killed while s0 reads it back into the swap
 * cache, once 1 to 70 % of it is there (SwapCached).  Even rounds t0 is
 * the only target, and the kdamond must stop by itself (in the second half
 * of the rounds, "off" is written at once instead, racing that); odd
 * rounds a target t1 (PID, which lives) keeps it going, and it must go on
 * aggregating and applying s0, until turned off.  With pageout, rounds 2
 * and 3 of every four, the process keeps reading its memory back in and
 * s0 acts on any access count.  Then the statistics must add up, and show
 * the action that the exit interrupted.
 */
int race_exit_action(const char *ctx, unsigned long rounds,
		     unsigned long mib, long survivor, bool willneed)
{
	unsigned long i, st[NR_STATS], again[NR_STATS], pages;
	char t0[1200], t1[1200], s0[1200], buf[32];
	bool alone, busy, dropped, off_at_exit;
	long r0, r = -1, kpid;
	int err;
	pid_t v;

	pages = (mib << 20) / page;
	snprintf(t0, sizeof(t0), "%s/targets/t0", ctx);
	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	snprintf(s0, sizeof(s0), "%s/schemes/s0", ctx);
	err = writef(s0, "action", willneed ? "willneed" : "pageout");
	if (err)
		return race_fail("action: %s", ename(err));
	for (i = 0; i < rounds; i++) {
		alone = !(i & 1);
		busy = !willneed && (i & 2);
		off_at_exit = alone && i >= rounds / 2;
		v = spawn_victim(mib, busy, willneed);
		if (v < 0)
			return race_fail("round %lu: no process with %lu MiB%s",
					 i, mib, willneed ? " paged out" : "");
		err = writef(t0, "pid", "%d", v);
		if (!err)
			err = writef(s0, "access_pattern/max_nr_accesses",
				     busy ? "4294967295" : "0");
		if (!err && alone && is_dir(t1))
			err = do_rmdir(t1);
		if (!err && !alone && !is_dir(t1)) {
			err = do_mkdir(t1);
			if (!err)
				err = writef(t1, "pid", "%ld", survivor);
		}
		if (!err)
			err = writef(ctx, "state", "on");
		tally("on", err);
		if (err) {
			kill(v, SIGKILL);
			reap(v);
			return race_fail("round %lu: set-up and on: %s", i,
					 ename(err));
		}
		kpid = readf(ctx, "kdamond_pid", buf, sizeof(buf)) ?
		       strtol(buf, NULL, 10) : -2;

		/* "dropped": the action has moved that many pages */
		dropped = wait_moved(v, pages, willneed, &r0, &r);
		kill(v, SIGKILL);
		if (off_at_exit) {
			/* off while the process exits and the kdamond acts */
			err = writef(ctx, "state", "off");
			tally("off-at-exit", err);
		}
		reap(v);
		tally(dropped ? "kill-mid-action" : "kill-no-drop", 0);

		if (off_at_exit) {
			if (err || !stopped(ctx))
				return race_fail("round %lu: off as the only target exited during the action: %s",
						 i, ename(err));
		} else if (alone) {
			/* its only target gone, the kdamond stops by itself */
			if (!wait_off(ctx) || !stopped(ctx))
				return race_fail("round %lu: still on 30 s after the only target exited during the action",
						 i);
			tally("stopped-by-itself", 0);
		} else if (goes_on_with_t1(ctx, s0, i, kpid)) {
			return 1;
		}

		/* stopped: the final counts, to stay as they are */
		if (!read_stats(s0, st) || !read_stats(s0, again))
			return race_fail("round %lu: cannot read the stats", i);
		printf("round %lu: %s %s: killed at %ld %s pages, from %ld; stats %lu %lu %lu %lu %lu\n",
		       i, willneed ? "willneed" : busy ? "busy" : "idle",
		       off_at_exit ? "alone, off at once" :
		       alone ? "alone" : "with t1", r,
		       willneed ? "swap-cached" : "resident", r0,
		       st[0], st[1], st[2], st[3], st[4]);
		if (memcmp(st, again, sizeof(st)))
			race_fail("round %lu: the stats change while off", i);
		if (!stats_possible(st) ||
		    (!st[ST_NR_TRIED] && st[ST_SZ_TRIED]) || st[ST_QT_EXCEEDS])
			race_fail("round %lu: stats that no action without a quota could give",
				  i);
		/* memory moved: the action acted, and was counted */
		if (dropped && (!st[ST_NR_APPLIED] || !st[ST_SZ_APPLIED]))
			race_fail("round %lu: memory was moved, but the stats show nothing applied",
				  i);
	}
	return 0;
}
