// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: state transitions.  Clean on, off and commit words, and
 * what state and kdamond_pid must read after each.
 */
#define _GNU_SOURCE
#include "fuzz.h"

bool state_is_on(void)
{
	char buf[16];

	return read_file(attrs[A_STATE].path, buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "on\n");
}

/* What kdamond_pid reads: -1 or a pid; -2 if anything else. */
long kdamond_pid(void)
{
	char path[PATH_MAX], buf[32];
	long p;

	snprintf(path, sizeof(path), "%s/kdamond_pid", ctxdir);
	if (read_file(path, buf, sizeof(buf)) < 0 || !parse_line_pid(buf, &p))
		return -2;
	return p;
}

/* on, off or commit, as a clean word. */
void state_word(void)
{
	static const char *const w[] = {
		"on", "on\n", "off", "off\n", "commit", "commit\n",
	};
	const char *word = w[rnd_below(6)];
	bool was_on = state_is_on();
	long kpid = was_on ? kdamond_pid() : -1;
	int err = write_state(attrs[A_STATE].path, word), cmd;

	nr_state_words++;
	count_errno(err);
	switch (word[1]) {
	case 'n':	/* on */
		if (!err)
			nr_on_ok++;
		if (err && err != EINVAL && err != ESRCH)
			fail("on gave %s", ename(err));
		if (!err && was_on && state_is_on() && kdamond_pid() != kpid)
			fail("on while on changed kdamond_pid %ld -> %ld",
			     kpid, kdamond_pid());
		if (err && !was_on && (state_is_on() || kdamond_pid() != -1))
			fail("a failed on left the context on");
		break;
	case 'f':	/* off */
		if (err)
			fail("off gave %s", ename(err));
		if (state_is_on() || kdamond_pid() != -1)
			fail("still on after off");
		break;
	default:	/* commit */
		if (!err)
			nr_commit_ok++;
		if (err == EINTR)
			nr_commit_intr++;
		if (!was_on && err != EINVAL)
			fail("commit while off gave %s", ename(err));
		if (was_on && err && err != EINVAL && err != ESRCH &&
		    err != EBUSY && err != EINTR)
			fail("commit gave %s", ename(err));
		break;
	}
	cmd = word[1] == 'n' ? 0 : word[1] == 'f' ? 1 : 2;
	if (intervals_refused(cmd, was_on) && (!err || err == EINTR))
		fail("%s gave %s, though intervals_goal/ tunes with min_sample_us %llu > max_sample_us %llu",
		     ctx_words[cmd], ename(err),
		     (unsigned long long)attrs[A_IG_MIN].model,
		     (unsigned long long)attrs[A_IG_MAX].model);
	note_state(cmd, err, was_on);
	check_readback(&attrs[A_STATE], word);
}

/*
 * A quota goal's current_value is the user's input for user_input, and
 * else the kernel's last measurement of the running (or last) setup,
 * which may replace what was written at any time while it runs and once
 * more as it stops.  After state word @w (0 on, 1 off, 2 commit) gave
 * @err (@was_on: the context was on before): the metric each goal runs
 * with, and whether its current_value is unsettled; a commit interrupted
 * by a signal may yet be applied, so once unsettled, only an off settles
 * it, when what it reads is the model again.
 */
void note_goals(int w, int err, bool was_on)
{
	bool started = (w == 0 && !err && !was_on) ||
		(w == 2 && (!err || err == EINTR));
	bool stopped = w == 1 && !err;
	struct goal_attrs *g;
	struct attr *cur;
	int i, k;

	for (i = 0; i < NR_SCHEMES; i++) {
		for (k = 0; k < schemes[i].nr_goals; k++) {
			g = &schemes[i].goals[k];
			cur = &attrs[g->current_value];
			if (started) {
				g->running_metric = attrs[g->metric].model;
				if (g->running_metric != GM_USER_INPUT)
					cur->unsettled = true;
			} else if (stopped) {
				g->running_metric = -1;
				if (cur->unsettled) {
					cur->unsettled = false;
					attr_load(cur);
				}
			}
		}
	}
}

/*
 * Whether state word @w (0 on, 1 off, 2 commit; @was_on: the context was
 * on before) must fail by the staged setup as the model knows it: an on
 * from off or a commit validate it, and with intervals_goal/access_bp set
 * (tuning) they refuse min_sample_us > max_sample_us (EINVAL, unless
 * something else is wrong first); without access_bp they do not look.
 */
bool intervals_refused(int w, bool was_on)
{
	if (!(w == 0 && !was_on) && !(w == 2 && was_on))
		return false;
	return attrs[A_IG_BP].model &&
	       (unsigned long long)attrs[A_IG_MIN].model >
	       (unsigned long long)attrs[A_IG_MAX].model;
}

/*
 * While the running setup tunes its intervals (intervals_goal/access_bp
 * set at the on or commit that started it), sample_us and aggr_us read
 * the values in use, which the kdamond changes at any time; written
 * values are staged, and read back again once off, or once a commit
 * without access_bp puts them back in use.  After state word @w gave @err
 * (@was_on: the context was on before): whether the running setup may
 * tune, and so whether those two reads are unsettled.  A commit
 * interrupted by a signal may yet be applied, and an on while on may have
 * met a kdamond that had just stopped by itself and started a new one: both
 * keep what was tuning too.  A failed on or commit changes nothing.
 */
void note_intervals(int w, int err, bool was_on)
{
	static bool tuning;
	bool staged = attrs[A_IG_BP].model != 0;

	if ((w == 0 && !err && !was_on) || (w == 2 && !err))
		tuning = staged;
	else if ((w == 0 && !err) || (w == 2 && err == EINTR))
		tuning = tuning || staged;
	else if (w == 1 && !err)
		tuning = false;
	attrs[A_SAMPLE].unsettled = attrs[A_AGGR].unsettled = tuning;
}
