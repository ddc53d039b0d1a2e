// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz race paddr CTX ROUNDS: a paddr context turned on, off and
 * committed over and over with schemes whose actions and filters change
 * every round, racing another writer of state and a reader, while memory
 * comes and goes (a workload of the caller's: bin/churn).
 */
#define _GNU_SOURCE
#include <limits.h>

#include "race.h"

#define STATE_MS	60000	/* a state write that takes longer fails */

/* What the rounds cycle through: the paddr words features lists. */
struct paddr_words {
	const char *actions[8];
	int nr_actions;
	const char *ftypes[4];
	int nr_ftypes;
	long nids[2];		/* migrate targets: node 0, the last one */
	bool willneed, memcg, migrate;	/* for setups on must refuse */
};

/* @words of @cands that features (@f) lists for paddr, as @prefix:WORD. */
static int paddr_listed(const char *f, const char *prefix,
			const char *const *cands, int nr, const char **words)
{
	char w[64];
	int i, n = 0;

	for (i = 0; i < nr; i++) {
		snprintf(w, sizeof(w), "paddr:%s:%s", prefix, cands[i]);
		if (has_word(f, w))
			words[n++] = cands[i];
	}
	return n;
}

static int read_paddr_words(const char *ctx, struct paddr_words *pw)
{
	static const char *const actions[] = {
		"pageout", "lru_prio", "lru_deprio", "stat", "migrate_cold",
		"migrate_hot",
	};
	static const char *const ftypes[] = { "anon", "young", "memcg" };
	static char f[8192];
	long first, last;
	int i;

	if (!readf(ctx, "../../features", f, sizeof(f)))
		return race_fail("cannot read features");
	if (!has_word(f, "ops:paddr"))
		return race_fail("features lacks ops:paddr");
	pw->nr_actions = paddr_listed(f, "action", actions,
				      ARRAY_SIZE(actions), pw->actions);
	pw->nr_ftypes = paddr_listed(f, "filter", ftypes, ARRAY_SIZE(ftypes),
				     pw->ftypes);
	/* the first four actions and two filter types are a must */
	if (pw->nr_actions < 4 || strcmp(pw->actions[3], "stat") ||
	    pw->nr_ftypes < 2 || strcmp(pw->ftypes[1], "young"))
		return race_fail("features lacks paddr's pageout, lru_prio, lru_deprio, stat, anon or young: %s",
				 quote(f, strlen(f)));
	pw->willneed = has_word(f, "action:willneed");
	pw->memcg = has_word(f, "paddr:filter:memcg");
	pw->migrate = has_word(f, "paddr:action:migrate_cold");
	pw->nids[0] = pw->nids[1] = 0;
	if (node_list("/sys/devices/system/node/has_memory", &first, &last))
		pw->nids[1] = last;
	printf("paddr actions:");
	for (i = 0; i < pw->nr_actions; i++)
		printf(" %s", pw->actions[i]);
	printf("; filters:");
	for (i = 0; i < pw->nr_ftypes; i++)
		printf(" %s", pw->ftypes[i]);
	printf("; migrate to nodes %ld, %ld\n", pw->nids[0], pw->nids[1]);
	return 0;
}

/* Write state word @w to @ctx, within STATE_MS; tallied as @cat. */
static int state(const char *ctx, const char *w, const char *cat)
{
	char path[1300];
	int err;

	snprintf(path, sizeof(path), "%s/state", ctx);
	alarm_ms(STATE_MS);
	err = write_str(path, w);
	alarm_ms(0);
	tally(cat, err);
	if (err == EINTR)
		race_fail("%s did not return in %d s", w, STATE_MS / 1000);
	return err;
}

/* A staged write that must succeed (tallied as "write"). */
static int put(const char *dir, const char *file, const char *fmt,
	       const char *val)
{
	int err = writef(dir, file, fmt, val);

	tally("write", err);
	if (err)
		race_fail("%s/%s <- %s: %s", dir, file, val, ename(err));
	return err;
}

static int put_long(const char *dir, const char *file, long v)
{
	char val[32];

	snprintf(val, sizeof(val), "%ld", v);
	return put(dir, file, "%s", val);
}

/*
 * The statistics of both schemes read numbers; with @strict (off, after
 * the schemes ran) they are ones the actions could have given, and not
 * zero.  While on, an aggregation or an "on" (emptying them) between the
 * reads could make any numbers look wrong.
 */
static void check_stats(const char *ctx, const char *when, bool strict)
{
	unsigned long v[NR_STATS];
	char s[1200];
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(s, sizeof(s), "%s/schemes/s%d", ctx, k);
		if (!read_stats(s, v))
			race_fail("%s: cannot read the stats of s%d", when, k);
		else if (strict && (!stats_possible(v) || !v[ST_NR_TRIED]))
			race_fail("%s: s%d/stats: nr_tried %lu sz_tried %lu nr_applied %lu sz_applied %lu",
				  when, k, v[ST_NR_TRIED], v[ST_SZ_TRIED],
				  v[ST_NR_APPLIED], v[ST_SZ_APPLIED]);
		else if (v[ST_NR_TRIED])
			tally("tried", 0);
	}
}

/*
 * The RAM that t0 covers without regions, [*@lo, *@hi): from its first
 * snapshot after on.  0 or a race_fail().
 */
static int ram_span(const char *ctx, unsigned long *lo, unsigned long *hi)
{
	static char buf[MAX_NR_REGIONS * 64 + 1];
	unsigned long n, s, e;
	char path[1300], *line;
	int tries;
	ssize_t len = -1;

	for (tries = 0; tries < 3000; tries++) {
		if (read_ulong(ctx, "nr_aggregations", &n) && n >= 1) {
			snprintf(path, sizeof(path), "%s/targets/t0/snapshot",
				 ctx);
			len = read_file(path, buf, sizeof(buf));
			if (len > 0)
				break;
		}
		sleep_us(10000);
	}
	if (len <= 0)
		return race_fail("no snapshot of t0 30 s after on: %s",
				 len < 0 ? ename(-len) : "empty");
	*lo = ULONG_MAX;
	*hi = 0;
	for (line = buf; *line; line = strchr(line, '\n') + 1) {
		if (sscanf(line, "%lu %lu", &s, &e) != 2 || !strchr(line, '\n'))
			return race_fail("t0/snapshot: bad line %s",
					 quote(line, strcspn(line, "\n")));
		*lo = s < *lo ? s : *lo;
		*hi = e > *hi ? e : *hi;
	}
	printf("RAM without regions: [%lu, %lu)\n", *lo, *hi);
	return 0;
}

/*
 * The other writer (a child): @n times, after 0 to 30 ms, on, off or
 * commit.  It shares the staged setup, so its on and commit may meet a
 * setup half written, or one made bad on purpose (EINVAL), and its
 * commit an off of the main writer (ECANCELED) or the context off
 * (EINVAL).
 */
static void other_writer(const char *ctx, unsigned long n)
{
	static const char *const words[] = {
		"commit", "commit", "on", "off",
	};
	unsigned long i;
	const char *w;
	char cat[24];

	for (i = 0; i < n; i++) {
		sleep_us(rnd_below(30000));
		w = words[rnd_below(ARRAY_SIZE(words))];
		snprintf(cat, sizeof(cat), "other-%s", w);
		state(ctx, w, cat);
	}
}

/* The reader (a child): @n times, t0's snapshot and the statistics. */
static void reader(const char *ctx, unsigned long n)
{
	static char buf[MAX_NR_REGIONS * 64 + 1];
	const char *problem;
	char path[1300];
	unsigned long i;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/targets/t0/snapshot", ctx);
	for (i = 0; i < n; i++) {
		len = read_file(path, buf, sizeof(buf));
		tally("read-snapshot", len < 0 ? -len : 0);
		problem = len >= 0 ? snapshot_problem(buf) : NULL;
		if (problem)
			race_fail("t0/snapshot: bad line %s",
				  quote(problem, strlen(problem)));
		check_stats(ctx, "reader", false);
		sleep_us(rnd_below(10000));
	}
}

/* Fork @fn(@ctx, @n) as a child that prints its own tallies. */
static pid_t spawn(void (*fn)(const char *, unsigned long), const char *ctx,
		   unsigned long n)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		forget_tallies();
		rng_state ^= (uint64_t)getpid() << 17;
		fn(ctx, n);
		print_tallies();
		_exit(nr_fails ? 1 : 0);
	}
	return pid;
}

/*
 * Round @i's setup of scheme s@k of @ctx (which has 2 - @k filters): the
 * next action and filter types, matching either way; with @bad a setup
 * on and commit must refuse.  0 or a race_fail().
 */
static int set_scheme(const struct paddr_words *pw, const char *ctx, int k,
		      unsigned long i, int bad)
{
	const char *action = pw->actions[(i + k) % pw->nr_actions];
	char s[1200], f[1300];
	int j;

	snprintf(s, sizeof(s), "%s/schemes/s%d", ctx, k);
	if (put_long(s, "target_nid", pw->nids[i / pw->nr_actions % 2]))
		return 1;
	if (bad == 1 && put(s, "action", "%s", "willneed"))
		return 1;
	if (bad == 2 && (put(s, "target_nid", "%s", "-1") ||
			 put(s, "action", "%s", "migrate_cold")))
		return 1;
	if (!bad && put(s, "action", "%s", action))
		return 1;
	for (j = 0; j < 2 - k; j++) {
		snprintf(f, sizeof(f), "%s/filters/f%d", s, j);
		if (put(f, "memcg_path", "%s",
			bad == 3 ? "/cfsfuzz-no-such-cgroup" : "/") ||
		    put(f, "type", "%s", bad == 3 ? "memcg" :
			pw->ftypes[(i + j + k) % pw->nr_ftypes]) ||
		    put(f, "matching", "%s", chance(50) ? "Y" : "N"))
			return 1;
	}
	return 0;
}

/* Make regions r0 and r1 of t0, the halves of [@lo, @hi), or remove them. */
static int toggle_regions(const char *ctx, unsigned long lo, unsigned long hi)
{
	unsigned long mid = lo + (hi - lo) / 2 / page * page;
	char r[2][1300];
	int k, err = 0;

	for (k = 0; k < 2; k++)
		snprintf(r[k], sizeof(r[k]), "%s/targets/t0/regions/r%d", ctx,
			 k);
	if (is_dir(r[0])) {
		for (k = 0; k < 2 && !err; k++)
			err = do_rmdir(r[k]);
		tally("rmdir-region", err);
	} else {
		for (k = 0; k < 2 && !err; k++)
			err = do_mkdir(r[k]);
		tally("mkdir-region", err);
		if (!err && (put_long(r[0], "start", lo) ||
			     put_long(r[0], "end", mid) ||
			     put_long(r[1], "start", mid) ||
			     put_long(r[1], "end", hi)))
			return 1;
	}
	if (err)
		return race_fail("mkdir or rmdir of t0's regions: %s",
				 ename(err));
	return 0;
}

/*
 * paddr CTX ROUNDS: CTX is a paddr context, off, with valid attributes,
 * one target t0 without a pid or regions, and schemes s0 (filters f0,
 * f1) and s1 (filter f0).  Each round sets the schemes to the next of the
 * actions that features lists for paddr among pageout, lru_prio,
 * lru_deprio, stat, migrate_cold and migrate_hot (these to node 0 or the
 * last node with memory), their filters to the next of anon, young and
 * memcg (memcg_path "/") that features lists for paddr, and writes on,
 * commit or off; every fourth round it makes or removes two regions that
 * halve the RAM.  Every seventh round s0 is one that commit must refuse
 * with EINVAL, and so must on unless the context is on already
 * (willneed, which paddr does not take; a migrate action without a node;
 * a memcg filter on no cgroup).  Meanwhile a child writes on, off and
 * commit, another reads the snapshot and the statistics.  At the end,
 * the context must stop, and still run a clean setup.
 */
int race_paddr(const char *ctx, unsigned long rounds)
{
	static const char *const words[] = { "on", "commit", "commit", "off" };
	unsigned long i, lo = 0, hi = 0, n0, n;
	struct paddr_words pw;
	char s[2][1200], f[1300];
	pid_t kids[2];
	const char *w;
	int j, k, bad, err, tries;

	if (read_paddr_words(ctx, &pw))
		return 1;
	for (k = 0; k < 2; k++) {
		snprintf(s[k], sizeof(s[k]), "%s/schemes/s%d", ctx, k);
		/* at most 1 MiB per 100 ms: the machine must stay usable */
		if (put(s[k], "quotas/bytes", "%s", "1048576") ||
		    put(s[k], "quotas/reset_interval_ms", "%s", "100") ||
		    set_scheme(&pw, ctx, k, 0, 0))
			return 1;
	}
	if (state(ctx, "on", "on") || ram_span(ctx, &lo, &hi))
		return race_fail("the first on");

	kids[0] = spawn(other_writer, ctx, rounds);
	kids[1] = spawn(reader, ctx, rounds);
	for (i = 1; i <= rounds; i++) {
		if (!(i % 4) && toggle_regions(ctx, lo, hi))
			break;
		bad = 0;
		if (!(i % 7))
			bad = 1 + rnd_below(3);
		if ((bad == 1 && !pw.willneed) || (bad == 2 && !pw.migrate) ||
		    (bad == 3 && !pw.memcg))
			bad = 0;
		if (set_scheme(&pw, ctx, 0, i, bad) ||
		    set_scheme(&pw, ctx, 1, i, 0))
			break;
		w = words[rnd_below(ARRAY_SIZE(words))];
		if (bad && !strcmp(w, "off"))
			w = "on";
		if (bad)
			err = state(ctx, w,
				    *w == 'o' ? "on-bad" : "commit-bad");
		else
			err = state(ctx, w, w);
		if (!err && strcmp(w, "off"))
			check_stats(ctx, w, false);
		sleep_us(rnd_below(40000));
	}
	reap(kids[0]);
	reap(kids[1]);

	/* it stops, and still runs a clean setup */
	if (state(ctx, "off", "off") || !stopped(ctx))
		return race_fail("not stopped after off");
	for (k = 0; k < 2; k++) {
		if (put(s[k], "action", "%s", "stat") ||
		    put(s[k], "quotas/bytes", "%s", "0"))
			return 1;
		for (j = 0; j < 2 - k; j++) {
			snprintf(f, sizeof(f), "%s/schemes/s%d/filters/f%d",
				 ctx, k, j);
			if (put(f, "type", "%s", "anon"))
				return 1;
		}
	}
	if (state(ctx, "on", "final-on") ||
	    !read_ulong(ctx, "nr_aggregations", &n0))
		return race_fail("the final on");
	for (tries = 0; tries < 3000; tries++) {
		if (read_ulong(ctx, "nr_aggregations", &n) && n >= n0 + 3)
			break;
		sleep_us(10000);
	}
	if (tries == 3000)
		race_fail("fewer than 3 aggregations in 30 s after the final on");
	if (state(ctx, "off", "final-off") || !stopped(ctx))
		return race_fail("not stopped after the final off");
	check_stats(ctx, "the final run", true);
	return 0;
}
