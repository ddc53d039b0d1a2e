// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: repairs.  Valid values for every attribute, written one by
 * one in a random order, so that the kdamond really runs with many of the
 * values the fuzzing leaves.
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include "fuzz.h"

/*
 * Write a valid value; it must be accepted.  Reloads the model, but for
 * an unsettled number, which may read a live value: the model is the
 * value written then.
 */
static void set_ok(int i, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_ok(int i, const char *fmt, ...)
{
	struct attr *a = &attrs[i];
	char buf[64];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	err = write_str(a->path, buf);
	if (err)
		fail("repair: %s <- %s: %s", a->path, buf, ename(err));
	if (!err && a->unsettled && a->kind == K_NUM)
		a->model = (long long)strtoul(buf, NULL, 10);
	else
		attr_load(a);
}

/* Valid writes collected, then made in a random order. */
struct pending {
	int attr;
	char val[64];
};

static void pend(struct pending *p, int *n, int attr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void pend(struct pending *p, int *n, int attr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p[*n].val, sizeof(p[*n].val), fmt, ap);
	va_end(ap);
	p[(*n)++].attr = attr;
}

static void pend_flush(struct pending *p, int n)
{
	struct pending t;
	int i, j;

	for (i = n - 1; i > 0; i--) {
		j = rnd_below(i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	for (i = 0; i < n; i++)
		set_ok(p[i].attr, "%s", p[i].val);
}

/* Two random numbers from @lo .. @hi, in order, in *@a <= *@b. */
static void ordered_pair(unsigned long lo, unsigned long hi,
			 unsigned long *a, unsigned long *b)
{
	unsigned long x = lo + rnd_below(hi - lo + 1);
	unsigned long y = lo + rnd_below(hi - lo + 1);

	*a = x < y ? x : y;
	*b = x < y ? y : x;
}

/*
 * Mostly (90 %) one of the @nr words that @ops_ok allows for the staged
 * operations, else one that @ok allows for any: on/commit refuse that
 * one now and then.
 */
static int pick_word(const bool *ok, const bool *ops_ok, int nr)
{
	int w;

	do {
		w = rnd_below(nr);
	} while (!(chance(90) ? ops_ok[w] : ok[w]));
	return w;
}

/*
 * A valid quota goal: a metric features lists, a target other than 0, a
 * node with memory for the node metrics (any node for the others), the
 * root cgroup for the memcg ones; a user_input goal gets an input to move
 * the quota by.
 */
static void repair_goal(struct pending *p, int *n, const struct goal_attrs *g)
{
	int m;

	do {
		m = rnd_below(NR_GOAL_METRICS);
	} while (!goal_metric_ok[m]);
	pend(p, n, g->metric, chance(50) ? "%s\n" : "%s",
	     goal_metric_names[m]);
	pend(p, n, g->target_value, "%lu",
	     chance(80) ? 1 + rnd_below(10000) : 1 + (rnd() >> 1));
	if (m >= GM_NODE_USED && m <= GM_MEMCG_FREE)
		pend(p, n, g->nid, "%ld", mem_node);
	else
		pend(p, n, g->nid, "%lu", rnd_below(max_numnodes));
	if (m >= GM_MEMCG_USED && m <= GM_MEMCG_FREE)
		pend(p, n, g->memcg_path, "/");
	else
		pend(p, n, g->memcg_path, chance(70) ? "\n" : "/");
	if (m == GM_USER_INPUT)
		pend(p, n, g->current_value, "%lu", rnd_below(20000));
}

/*
 * A valid scheme: an action the staged operations take (mostly ones that
 * do something), with a node with memory for the migrate ones, a pattern
 * with each min <= max, sometimes quotas and a watermark window (low <=
 * mid <= high), filters of types the operations take that name t0 or t1
 * or a real range or the root cgroup, and valid quota goals.  Every value
 * is written on its own, in a random order.
 */
static void repair_scheme(struct scheme_attrs *sa)
{
	int ops = attrs[A_OPS].model, n = 0, i, act;
	unsigned long x, y, z, lo, hi;
	struct pending p[64];

	act = pick_word(action_ok, ops_action_ok[ops], NR_ACTIONS);
	pend(p, &n, sa->action, chance(50) ? "%s\n" : "%s",
	     action_names[act]);
	if (act == ACT_MIGRATE_HOT || act == ACT_MIGRATE_COLD)
		pend(p, &n, sa->target_nid, "%ld", mem_node);
	else
		pend(p, &n, sa->target_nid, "%ld",
		     chance(50) ? -1 : (long)rnd_below(max_numnodes));
	pend(p, &n, sa->apply_interval, "%lu",
	     chance(50) ? 0 : rnd_below(300000));
	x = chance(60) ? 0 : page * rnd_below(64);
	y = chance(50) ? ULONG_MAX : x + page * rnd_below(1UL << 16);
	pend(p, &n, sa->min_sz, "%lu", x);
	pend(p, &n, sa->max_sz, "%lu\n", y);
	if (chance(50))
		ordered_pair(0, 30, &x, &y);
	else
		x = 0, y = UINT_MAX;
	pend(p, &n, sa->min_nr, "%lu", x);
	pend(p, &n, sa->max_nr, "%lu", y);
	if (chance(50))
		ordered_pair(0, 50, &x, &y);
	else
		x = rnd_below(3), y = UINT_MAX;
	pend(p, &n, sa->min_age, "%lu", x);
	pend(p, &n, sa->max_age, "+%lu", y);
	pend(p, &n, sa->ms, "%lu", chance(60) ? 0 : rnd_below(200));
	pend(p, &n, sa->bytes, "%lu",
	     chance(60) ? 0 : page * (1 + rnd_below(4096)));
	pend(p, &n, sa->reset, "%lu", 1 + rnd_below(2000));
	pend(p, &n, sa->w_sz, "%lu", rnd_below(10001));
	pend(p, &n, sa->w_nr, "%lu", chance(20) ? 0 : rnd_below(10001));
	pend(p, &n, sa->w_age, "%lu", chance(20) ? 10000 : rnd_below(10001));
	if (chance(70)) {
		pend(p, &n, sa->metric, "none");
	} else {
		/* low <= mid <= high, from three draws */
		ordered_pair(0, 1000, &lo, &hi);
		z = lo + rnd_below(hi - lo + 1);
		pend(p, &n, sa->metric, "free_mem_rate\n");
		pend(p, &n, sa->high, "%lu", hi);
		pend(p, &n, sa->mid, "%lu", z);
		pend(p, &n, sa->low, "%lu", lo);
		pend(p, &n, sa->wm_interval, "%lu", 1 + rnd_below(10000000));
	}
	for (i = 0; i < sa->nr_filters; i++) {
		struct filter_attrs *f = &sa->filters[i];

		pend(p, &n, f->type, "%s",
		     ftype_names[pick_word(ftype_ok, ops_ftype_ok[ops],
					   NR_FTYPES)]);
		pend(p, &n, f->matching, "%s", chance(50) ? "Y" : "n\n");
		x = 0x10000000UL + page * rnd_below(1UL << 20);
		pend(p, &n, f->addr_start, "%lu", x + rnd_below(page));
		pend(p, &n, f->addr_end, "%lu", x + page * (1 + rnd_below(1024)));
		pend(p, &n, f->target, chance(50) ? "t0" : "t1\n");
		pend(p, &n, f->memcg_path, chance(80) ? "/" : "\n");
	}
	for (i = 0; i < sa->nr_goals; i++)
		repair_goal(p, &n, &sa->goals[i]);
	pend_flush(p, n);
}

/*
 * The intervals goal: mostly (85 %) valid for on/commit, with tuning
 * (access_bp set) half the time, between sampling intervals close to what
 * repair() sets (so that the tuned aggregations keep short and commits do
 * not wait for long), every few aggregations; without tuning,
 * min_sample_us > max_sample_us now and then, which on/commit must take.
 * Else tuning with min_sample_us > max_sample_us, for on/commit to refuse.
 */
static void repair_intervals(struct pending *p, int *n)
{
	static const unsigned long bps[] = { 1, 400, 2500, 9999, 10000 };
	unsigned long bp, lo, hi;

	ordered_pair(100, 50000, &lo, &hi);
	if (chance(15)) {
		bp = chance(50) ? bps[rnd_below(ARRAY_SIZE(bps))] :
			1 + rnd_below(10000);
		if (lo == hi)
			hi++;
		pend(p, n, A_IG_MIN, "%lu", hi);
		pend(p, n, A_IG_MAX, "%lu\n", lo);
	} else {
		if (chance(50))
			bp = 0;
		else if (chance(50))
			bp = bps[rnd_below(ARRAY_SIZE(bps))];
		else
			bp = 1 + rnd_below(10000);
		if (!bp && chance(30) && lo < hi) {
			unsigned long t = lo;	/* only checked while tuning */

			lo = hi;
			hi = t;
		}
		pend(p, n, A_IG_MIN, "%lu", lo);
		pend(p, n, A_IG_MAX, "%lu\n", hi);
	}
	pend(p, n, A_IG_BP, chance(50) ? "%lu" : "%lu\n", bp);
	pend(p, n, A_IG_AGGRS, "%lu", 1 + rnd_below(chance(90) ? 5 : 100));
}

/*
 * Make the staged setup valid: interval relations, region counts, the
 * intervals goal (now and then not), the two workloads as targets,
 * non-overlapping regions, valid schemes.  Sometimes leaves the kdamond to
 * apply it with a commit.
 */
void repair(void)
{
	unsigned long sample = 1000 + rnd_below(9000);
	unsigned long aggr = sample * (2 + rnd_below(20));
	unsigned long update = aggr * (1 + rnd_below(5));
	unsigned long min = 3 + rnd_below(20);
	unsigned long max = min + rnd_below(1000);
	unsigned long base = 0x10000000UL + rnd_below(1UL << 20) * page;
	struct pending p[16];
	int i, n = 0;

	nr_repairs++;
	/* any order works: the relations are checked at on/commit only */
	pend(p, &n, A_SAMPLE, "%lu\n", sample);
	pend(p, &n, A_AGGR, "%lu\n", aggr);
	pend(p, &n, A_UPDATE, "%lu\n", update);
	pend(p, &n, A_MIN, "%lu\n", min);
	pend(p, &n, A_MAX, "%lu\n", max);
	repair_intervals(p, &n);
	pend_flush(p, n);
	if (!state_is_on()) {
		set_ok(A_OPS, chance(70) ? "vaddr" : "fvaddr\n");
		set_ok(A_T0_PID, "%ld", pid1);
		set_ok(A_T1_PID, "%ld\n", pid2);
	}
	set_ok(A_T0R0_START, "%lu", base);
	set_ok(A_T0R0_END, "%lu", base + page * (1 + rnd_below(64)));
	set_ok(A_T0R1_START, "%lu", base + page * 100);
	set_ok(A_T0R1_END, "%lu", base + page * (101 + rnd_below(64)));
	set_ok(A_T1R0_START, "%lu", base);
	set_ok(A_T1R0_END, "%lu", base + page * (1 + rnd_below(4096)));
	/* now and then leave broken schemes for on/commit to refuse */
	for (i = 0; i < NR_SCHEMES; i++)
		if (chance(85))
			repair_scheme(&schemes[i]);
}
