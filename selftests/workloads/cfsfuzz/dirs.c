// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: tree mkdir and rmdir.  Of an extra target, region, scheme,
 * filter and quota goal, where rmdir must fail with EBUSY exactly when the
 * running setup holds the directory (never for a region: regions are
 * staged values); and where configfs allows none, which must fail with
 * EPERM.
 */
#define _GNU_SOURCE
#include "fuzz.h"

/*
 * The directories that dir_op() makes and removes (an extra target, region,
 * scheme, filter and quota goal), and whether each is part of the running
 * setup (made before the last "on" from off or the last commit): then, and
 * only then, rmdir must fail with EBUSY.  A region never is: the running
 * context keeps a copy of the ranges, so removing a region directory is
 * staged until the next commit.
 */
enum { X_TARGET, X_REGION, X_SCHEME, X_FILTER, X_GOAL, NR_EXTRA };

static const char *const extra_dirs[NR_EXTRA] = {
	"targets/tx", "targets/t0/regions/rx", "schemes/sx",
	"schemes/s0/filters/fx", "schemes/s1/quotas/goals/gx",
};
static bool extra_exists[NR_EXTRA], extra_running[NR_EXTRA];

/* After writing state word @w (0 on, 1 off, 2 commit) gave @err. */
void note_state(int w, int err, bool was_on)
{
	int i;

	for (i = 0; i < NR_EXTRA; i++) {
		/*
		 * on while on changes nothing; a commit interrupted by a
		 * signal still happens
		 */
		if ((w == 0 && !err && !was_on) ||
		    (w == 2 && (!err || err == EINTR)))
			extra_running[i] = extra_exists[i] && i != X_REGION;
		else if (w == 1 && !err)
			extra_running[i] = false;
	}
	note_goals(w, err, was_on);
	note_intervals(w, err, was_on);
}

/* Write @val to file @name of directory @dir, unchecked. */
static void put(const char *dir, const char *name, const char *val)
{
	char f[PATH_MAX + 32];

	snprintf(f, sizeof(f), "%s/%s", dir, name);
	write_str(f, val);
}

/* mkdir or rmdir where configfs allows none: EPERM. */
static void dir_op_eperm(bool mk)
{
	static const char *const no_mkdir[] = {
		"schemes/s0/stats/x", "schemes/s0/access_pattern/x",
		"schemes/s0/quotas/x", "schemes/s0/watermarks/x",
		"schemes/s1/filters/f0/x", "targets/t0/regions/r0/x",
		"schemes/s0/quotas/goals/g0/x", "intervals_goal/x",
	};
	static const char *const no_rmdir[] = {
		"schemes/s0/stats", "schemes/s1/filters",
		"schemes/s0/access_pattern", "schemes/s1/quotas",
		"schemes/s0/watermarks", "targets/t1/regions",
		"schemes/s0/quotas/goals", "intervals_goal",
	};
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/%s", ctxdir,
		 mk ? no_mkdir[rnd_below(ARRAY_SIZE(no_mkdir))] :
		      no_rmdir[rnd_below(ARRAY_SIZE(no_rmdir))]);
	err = mk ? do_mkdir(path) : do_rmdir(path);
	if (err != EPERM)
		fail("%s %s: %s, expected EPERM", mk ? "mkdir" : "rmdir",
		     path, ename(err));
	else
		nr_eperm++;
	if (mk && !err)
		do_rmdir(path);
}

/* Make extra directory @which, mostly with some valid values in it. */
static void make_extra(int which, const char *path)
{
	char pidbuf[32];
	int err = do_mkdir(path);

	extra_exists[which] = !err;
	if (err) {
		fail("mkdir %s: %s", path, ename(err));
	} else if (which == X_REGION && chance(70)) {
		put(path, "start", "4096");
		put(path, "end", "8192");
	} else if (which == X_TARGET && chance(70)) {
		snprintf(pidbuf, sizeof(pidbuf), "%ld", pid2);
		put(path, "pid", pidbuf);
	} else if (which == X_SCHEME && chance(70)) {
		put(path, "action", "stat");
		put(path, "access_pattern/min_age", "3");
	} else if (which == X_FILTER && chance(70)) {
		put(path, "type", "target");
		put(path, "target", chance(50) ? "tx" : "t1");
	} else if (which == X_GOAL && chance(80)) {
		/* one that on/commit take (without, target_value 0 refuses) */
		put(path, "target_metric", "user_input");
		put(path, "target_value", "100");
	}
}

/*
 * mkdir/rmdir of an extra target tx, an extra region t0/regions/rx, an
 * extra scheme sx, an extra filter s0/filters/fx and an extra quota goal
 * s1/quotas/goals/gx; and mkdir/rmdir where configfs allows none (in a
 * scheme's default groups but filters/ and quotas/goals/, in a filter or a
 * goal, in intervals_goal/; of a default group), which must fail with
 * EPERM.
 */
void dir_op(void)
{
	int which = rnd_below(NR_EXTRA + 2), err;
	char path[PATH_MAX];
	bool on;

	nr_dirops++;
	if (which >= NR_EXTRA) {
		dir_op_eperm(which == NR_EXTRA);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", ctxdir, extra_dirs[which]);
	/* off: nothing runs (a kdamond that stopped by itself is reaped) */
	on = state_is_on();
	if (!on)
		note_state(1, 0, false);
	if (is_dir(path) != extra_exists[which])
		fail("%s %s, though nobody %s it", path,
		     extra_exists[which] ? "is gone" : "exists",
		     extra_exists[which] ? "removed" : "made");
	if (!is_dir(path)) {
		make_extra(which, path);
		return;
	}
	err = do_rmdir(path);
	if (err != (extra_running[which] ? EBUSY : 0))
		fail("rmdir %s while %s, %s the running setup: %s", path,
		     on ? "on" : "off",
		     extra_running[which] ? "part of" : "not in", ename(err));
	if (err == EBUSY)
		nr_rmdir_busy++;
	if (!err && on)
		nr_rmdir_on++;
	if (!err)
		extra_exists[which] = extra_running[which] = false;
}
