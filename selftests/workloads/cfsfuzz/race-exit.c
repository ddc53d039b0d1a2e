// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz race exit-on, exit-only and exit-commit: a target process killed
 * while "on" or "commit" is written.
 */
#define _GNU_SOURCE
#include "race.h"

/*
 * Write @word to @ctx's state while a killer SIGKILLs @victim 0 to 30 ms
 * from now (a commit has COMMIT_ALARM_MS, see write_state()); reap both.
 * The write's errno, tallied as @word.
 */
static int kill_during(const char *ctx, const char *word, pid_t victim)
{
	pid_t k = spawn_killer(victim, 30000);
	int err = writef(ctx, "state", "%s", word);

	tally(word, err);
	reap(k);
	reap(victim);
	return err;
}

/* exit-only, round @i: @b as t0, on, a change staged; 0 or an errno. */
static int stage_change(const char *ctx, const char *t0, pid_t b,
			unsigned long i)
{
	int err;

	if ((err = writef(t0, "pid", "%d", b)) ||
	    (err = writef(ctx, "state", "on")))
		return err;
	return writef(ctx, "aggr_us", "%lu", 5000 + i % 5 * 1000);
}

/*
 * exit-on and exit-only CTX ROUNDS: CTX has a target t0 and valid
 * attributes, and is off.  Each round a new target process is t0, and is
 * killed while "on" is written (exit-on); or, with @commit (exit-only),
 * once the context is on and a change staged, while "commit" is written.
 * Its only target gone, the kdamond must stop by itself.
 */
static int race_exit_alone(const char *ctx, unsigned long rounds,
			   bool commit)
{
	const char *word = commit ? "commit" : "on";
	char t0[1200];
	unsigned long i;
	pid_t b;
	int err;

	snprintf(t0, sizeof(t0), "%s/targets/t0", ctx);
	for (i = 0; i < rounds; i++) {
		b = spawn_target();
		if (!commit && (err = writef(t0, "pid", "%d", b)))
			return race_fail("pid %d: %s", b, ename(err));
		if (commit && (err = stage_change(ctx, t0, b, i)))
			return race_fail("round %lu set-up: %s", i, ename(err));
		err = kill_during(ctx, word, b);
		if (commit && err == EINTR)
			return race_fail("round %lu: commit did not return in %d ms (the kdamond ended without completing it?)",
					 i, COMMIT_ALARM_MS);
		/* EINVAL: the kdamond had already stopped (commit while off) */
		if (err && err != ESRCH && !(commit && err == EINVAL))
			race_fail("%s while the %starget exits: %s", word,
				  commit ? "only " : "", ename(err));
		if (!wait_off(ctx) || !stopped(ctx))
			return race_fail("round %lu: still on 30 s after the target exited",
					 i);
	}
	return 0;
}

int race_exit_on(const char *ctx, unsigned long rounds)
{
	return race_exit_alone(ctx, rounds, false);
}

int race_exit_only(const char *ctx, unsigned long rounds)
{
	return race_exit_alone(ctx, rounds, true);
}

/*
 * exit-commit CTX ROUNDS: CTX is on with t0 on a process that lives.
 * Each round t1 gets a new process, killed while "commit" is written.
 */
int race_exit_commit(const char *ctx, unsigned long rounds)
{
	char t1[1200], buf[16];
	unsigned long i;
	pid_t b;
	int err;

	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	for (i = 0; i < rounds; i++) {
		b = spawn_target();
		if ((err = do_mkdir(t1)) || (err = writef(t1, "pid", "%d", b)))
			return race_fail("t1 of %d: %s", b, ename(err));
		err = kill_during(ctx, "commit", b);
		if (err == EINTR)
			return race_fail("commit did not return in %d ms",
					 COMMIT_ALARM_MS);
		if (err && err != ESRCH)
			race_fail("commit while a new target exits: %s",
				  ename(err));
		/* t0 lives: still on; t1's process is gone: commit says so */
		if (!readf(ctx, "state", buf, sizeof(buf)) || strcmp(buf, "on\n"))
			return race_fail("round %lu: off though t0 lives", i);
		err = writef(ctx, "state", "commit");
		tally("commit-after", err);
		if (err != ESRCH)
			race_fail("commit with t1 exited: %s", ename(err));
		if ((err = writef(ctx, "state", "off")) || !stopped(ctx) ||
		    (err = do_rmdir(t1)) || (err = writef(ctx, "state", "on")))
			return race_fail("round %lu: off, rmdir t1, on: %s", i,
					 ename(err));
	}
	return 0;
}
