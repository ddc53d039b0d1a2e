// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz: configfs input fuzzing and stress for the DAMON selftests.
 *
 *   cfsfuzz fuzz CTXDIR SEED SECONDS PID1 PID2
 *	Builds targets t0 (PID1) and t1 (PID2) with regions, and schemes s0
 *	(filters f0, f1, quota goal g0) and s1 (filter f0) under the empty
 *	context CTXDIR, then for SECONDS writes random and adversarial values
 *	(valid, boundary, huge, negative, 4 KiB long, embedded NULs,
 *	non-UTF-8 bytes, partial numbers, white space variants, words with
 *	junk, near-miss words, long names, empty writes) to every attribute
 *	of the context, its intervals_goal/, targets, regions, schemes, their
 *	default groups, filters and goals (and now and then to the read-only
 *	statistics), in an order drawn from SEED, interleaved with
 *	on/off/commit, reads, mkdir/rmdir of extra items and where configfs
 *	allows none, and repairs to a valid setup (so that the kdamond really
 *	runs with many of the values).  Every write's result is checked
 *	against configfs-layout.md, and so is what the file reads back
 *	afterwards (the value written, or the old one after a failure; a
 *	goal's current_value only for its range while the kernel measures
 *	into it, and so sample_us and aggr_us while the running setup tunes
 *	them); so are on and commit where the model knows the setup is
 *	invalid (tuning with min_sample_us > max_sample_us: they must fail),
 *	rmdir's results (EBUSY exactly for what the running setup holds) and
 *	the statistics (applied <= tried).  Prints "seed SEED" first, a
 *	summary last; exits 1 on any violation.
 *
 *   cfsfuzz cycles CONTEXTS N PID ON_EVERY
 *	N times: mkdir a context, a target (pid PID) and a region, write
 *	their files, rmdir them again; every ON_EVERY-th cycle (0: never) also
 *	turns the context on and off.  Exits 1 on the first failure.
 *
 *   cfsfuzz names CONTEXTS SEED N PID
 *	N times: mkdir a context, a target and a region with random names
 *	(any bytes but '/' and NUL, 1 to 255 of them, '%' and '\n' likely),
 *	turn the context on with PID as target, check kdamond_pid, off, rmdir.
 *
 *   cfsfuzz race MODE DIR ROUNDS [PID]
 *	Races in a loop without a fork+exec per step (which costs a lot in
 *	UML): exit-on, exit-commit, exit-only (a target process killed
 *	during on / commit), exit-action (a target process killed while a
 *	pageout scheme pages its memory out; the arguments are then DIR
 *	ROUNDS MIB PID), gone (removal after the only target exited,
 *	without reading state), rmdir-off (rmdir racing off), dirs (mkdir
 *	and rmdir of targets and regions racing on/commit/off), reads (the
 *	read-mostly files of a context), paddr (a paddr context's on, off
 *	and commit with actions and filters changing every round, racing
 *	another writer and a reader).  See the race_* functions.  Prints
 *	"COUNT WHAT OUTCOME N" lines and "FAIL: ..." lines; exits 1 on FAIL.
 *
 *   cfsfuzz dump DIR
 *	Prints every file under DIR but snapshots, one line each, with the
 *	bytes that are not printable ASCII escaped (see dump_dir()), so that
 *	a shell can check a whole tree with one fork.
 *
 *   cfsfuzz respawn PID TRIES PROG [ARG...]
 *	Fork up to TRIES children (each exits at once) until one gets the
 *	pid PID by the kernel's normal recycling, and run PROG in that one;
 *	wait for it and exit with its status (3: PID never came back).
 *
 * Writes are single write(2) calls; a commit gets a 3 s SIGALRM, so that a
 * commit waiting for a far aggregation boundary fails with EINTR instead
 * of hanging.
 *
 * The files: fuzz.c runs the fuzzer, with its model of the tree in fuzz.h,
 * the tree and its defaults in tree.c, the values it writes in values.c,
 * what each write must do in oracle.c, and one file for each kind of
 * operation (writes.c, state.c, reads.c, dirs.c, repair.c); cycles.c has
 * cycles and names; race.c the races, with race-exit.c, race-action.c,
 * race-tree.c and race-paddr.c; dump.c and respawn.c their commands;
 * util.c what all share.
 */
#define _GNU_SOURCE
#include "cfsfuzz.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*cmd)(int argc, char **argv);
	} cmds[] = {
		{ "fuzz", cmd_fuzz }, { "cycles", cmd_cycles },
		{ "names", cmd_names }, { "respawn", cmd_respawn },
		{ "race", cmd_race }, { "dump", cmd_dump },
	};
	size_t i;
	int r = 2;

	catch_alarm();
	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);

	for (i = 0; argc >= 2 && i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			r = cmds[i].cmd(argc, argv);
			break;
		}
	}
	if (r == 2)
		fprintf(stderr,
			"usage: cfsfuzz fuzz CTXDIR SEED SECONDS PID1 PID2\n"
			"       cfsfuzz cycles CONTEXTS N PID ON_EVERY\n"
			"       cfsfuzz names CONTEXTS SEED N PID\n"
			"       cfsfuzz respawn PID TRIES PROG [ARG...]\n"
			"       cfsfuzz race MODE DIR ROUNDS [PID | MIB PID]\n"
			"       cfsfuzz dump DIR\n");
	return r;
}
