// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz race gone, rmdir-off and dirs: removal of contexts, targets and
 * regions after their target exited, racing off, and racing on, commit
 * and off.
 */
#define _GNU_SOURCE
#include "race.h"

/* rmdir @n dirs in order; 0 when all are gone, else the first errno. */
static int rmdir_chain(char dirs[][1200], int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		if (!is_dir(dirs[i]))
			continue;
		err = do_rmdir(dirs[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Make context @name under @contexts, with target t0 (@pid) and region
 * r0, and valid attributes; @d gets the region, target and context
 * directories, in the order to remove them.  0 or an errno.
 */
static int build_ctx(char d[3][1200], const char *contexts, const char *name,
		     long pid)
{
	int err;

	snprintf(d[2], 1200, "%s/%s", contexts, name);
	snprintf(d[1], 1200, "%s/%s/targets/t0", contexts, name);
	snprintf(d[0], 1200, "%s/%s/targets/t0/regions/r0", contexts, name);
	if ((err = do_mkdir(d[2])) || (err = do_mkdir(d[1])) ||
	    (err = do_mkdir(d[0])) ||
	    (err = writef(d[2], "sample_us", "1000")) ||
	    (err = writef(d[2], "aggr_us", "5000")) ||
	    (err = writef(d[2], "update_us", "20000")) ||
	    (err = writef(d[2], "max_nr_regions", "100")) ||
	    (err = writef(d[1], "pid", "%ld", pid)) ||
	    (err = writef(d[0], "start", "%lu", 0x10000000UL)) ||
	    (err = writef(d[0], "end", "%lu", 0x10100000UL)))
		race_fail("set-up of %s: %s", name, ename(err));
	return err;
}

/*
 * gone CONTEXTS ROUNDS: each round a context runs on one process, which
 * is killed; then its region, target and the context must become
 * removable without anyone reading state, kdamond_pid or nr_aggregations
 * (the kdamond's own clean-up must release them).
 */
int race_gone(const char *contexts, unsigned long rounds)
{
	char d[3][1200], name[32], buf[32];
	unsigned long i, n;
	int err = 0, tries;
	pid_t b;

	for (i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "gone%lu", i);
		b = spawn_target();
		if (build_ctx(d, contexts, name, b) ||
		    (err = writef(d[2], "state", "on")))
			return race_fail("%s on: %s", name, ename(err));
		/* let it aggregate once */
		for (tries = 0; tries < 3000; tries++) {
			if (read_ulong(d[2], "nr_aggregations", &n) && n >= 1)
				break;
			sleep_us(10000);
		}
		kill(b, SIGKILL);
		reap(b);
		for (tries = 0; tries < 3000; tries++) {
			err = rmdir_chain(d, 3);
			if (!err)
				break;
			sleep_us(10000);
		}
		tally("rmdir-unread", err);
		if (err) {
			readf(d[2], "state", buf, sizeof(buf));
			race_fail("%s: rmdir still %s 30 s after its only target exited without anybody reading state; state then reads %.*s, and rmdir gives %s",
				  name, ename(err), (int)strcspn(buf, "\n"),
				  buf, ename(rmdir_chain(d, 3)));
		}
	}
	return 0;
}

/*
 * rmdir-off CONTEXTS ROUNDS PID: each round a context runs on PID while
 * a child keeps trying to remove its region, target and itself; then it
 * is turned off, after which the removal must succeed.
 */
int race_rmdir_off(const char *contexts, unsigned long rounds, long pid)
{
	char d[3][1200], name[32];
	unsigned long i;
	int err, tries;
	pid_t child;

	for (i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "rr%lu", i);
		if (build_ctx(d, contexts, name, pid) ||
		    (err = writef(d[2], "state", "on")))
			return race_fail("%s on", name);
		fflush(stdout);
		child = fork();
		if (!child) {
			forget_tallies();
			for (tries = 0; tries < 5000 && is_dir(d[2]); tries++) {
				tally("rmdir-region", do_rmdir(d[0]));
				tally("rmdir-target", do_rmdir(d[1]));
				tally("rmdir-context", do_rmdir(d[2]));
			}
			print_tallies();
			_exit(is_dir(d[2]) ? 1 : 0);
		}
		sleep_us(rnd_below(20000));
		err = writef(d[2], "state", "off");
		tally("off", err);
		reap(child);
		if (is_dir(d[2]))
			return race_fail("%s still there after off", name);
	}
	return 0;
}

/*
 * dirs CTX ROUNDS PID: CTX has t0 (on a live process) and valid
 * attributes.  A child makes and removes a target t1 (on PID), another
 * makes and removes regions of t0, while this process writes on, commit
 * and off.
 */
int race_dirs(const char *ctx, unsigned long rounds, long pid)
{
	static const char *const words[] = { "on", "commit", "off" };
	char t1[1200], r[1300];
	unsigned long i;
	pid_t kids[2];
	int k, err;

	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	for (k = 0; k < 2; k++) {
		fflush(stdout);
		kids[k] = fork();
		if (kids[k])
			continue;
		forget_tallies();
		for (i = 0; i < rounds; i++) {
			if (!k) {
				tally("mkdir-target", do_mkdir(t1));
				tally("write-pid", writef(t1, "pid", "%ld", pid));
				tally("rmdir-target", do_rmdir(t1));
				continue;
			}
			snprintf(r, sizeof(r), "%s/targets/t0/regions/r%lu",
				 ctx, i % 3);
			tally("mkdir-region", do_mkdir(r));
			tally("write-region", writef(r, "start", "%lu",
						     4096 * (i + 1)));
			tally("write-region", writef(r, "end", "%lu",
						     4096 * (i + 2)));
			tally("rmdir-region", do_rmdir(r));
		}
		print_tallies();
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		const char *w = words[rnd_below(3)];

		alarm_ms(60000);
		err = writef(ctx, "state", "%s", w);
		alarm_ms(0);
		tally(w, err);
		if (err == EINTR)
			race_fail("%s did not return in 60 s", w);
	}
	reap(kids[0]);
	reap(kids[1]);
	return 0;
}
