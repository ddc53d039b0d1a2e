// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: the tree it fuzzes.  Under the empty context CTXDIR (with
 * its intervals_goal/), targets t0 and t1 with regions, schemes s0
 * (filters f0, f1; quota goal g0) and s1 (filter f0); every file of them
 * in attrs[], its model loaded from what it reads, which must be the
 * defaults of configfs-layout.md.
 */
#define _GNU_SOURCE
#include "fuzz.h"

const char *const ops_names[NR_OPS] = { "vaddr", "fvaddr", "paddr" };
bool ops_registered[NR_OPS];
/* every action and filter type configfs-layout.md names, in ACT_, FT_ order */
const char *const action_names[NR_ACTIONS] = {
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "stat",
	"lru_prio", "lru_deprio", "migrate_hot", "migrate_cold",
};
bool action_ok[NR_ACTIONS];	/* as features lists them */
bool ops_action_ok[NR_OPS][NR_ACTIONS];
const char *const metric_names[2] = { "none", "free_mem_rate" };
static const bool metric_ok[] = { true, true };
const char *const ftype_names[NR_FTYPES] = {
	"anon", "addr", "target", "memcg", "young",
};
bool ftype_ok[NR_FTYPES];
bool ops_ftype_ok[NR_OPS][NR_FTYPES];
/* every goal metric configfs-layout.md names, in GM_ order */
const char *const goal_metric_names[NR_GOAL_METRICS] = {
	"user_input", "some_mem_psi_us", "node_mem_used_bp",
	"node_mem_free_bp", "node_memcg_used_bp", "node_memcg_free_bp",
	"active_mem_bp", "inactive_mem_bp",
};
bool goal_metric_ok[NR_GOAL_METRICS];
_Static_assert(GM_INACTIVE + 1 == NR_GOAL_METRICS, "goal metrics");
long max_numnodes, mem_node;

static int attr_add(const char *rel, enum kind kind, unsigned long min,
		    unsigned long max)
{
	struct attr *a = &attrs[nr_attrs];

	if (nr_attrs == MAX_ATTRS) {
		fprintf(stderr, "cfsfuzz: MAX_ATTRS is too small\n");
		exit(2);
	}
	snprintf(a->path, sizeof(a->path), "%s/%s", ctxdir, rel);
	a->name = strrchr(a->path, '/') + 1;
	a->kind = kind;
	a->min = min;
	a->max = max;
	a->present = true;
	return nr_attrs++;
}

static int attr_add_words(const char *rel, const char *const *words,
			  const bool *ok, int nr)
{
	int i = attr_add(rel, K_WORD, 0, 0);

	attrs[i].words = words;
	attrs[i].word_ok = ok;
	attrs[i].nr_words = nr;
	return i;
}

/* The files of scheme @name with @nr_filters filters f0, f1, ... and
 * @nr_goals quota goals g0, ... */
static void add_scheme(struct scheme_attrs *sa, const char *name,
		       int nr_filters, int nr_goals)
{
	char rel[128];
	int i;

#define REL(fmt, ...) (snprintf(rel, sizeof(rel), "%s/" fmt, sa->dir, \
				##__VA_ARGS__), rel)
	snprintf(sa->dir, sizeof(sa->dir), "schemes/%s", name);
	sa->action = attr_add_words(REL("action"), action_names, action_ok,
				    NR_ACTIONS);
	sa->apply_interval = attr_add(REL("apply_interval_us"), K_NUM, 0,
				      ULONG_MAX);
	sa->target_nid = attr_add(REL("target_nid"), K_INT, -1,
				  max_numnodes - 1);
	sa->min_sz = attr_add(REL("access_pattern/min_size_bytes"), K_NUM, 0,
			      ULONG_MAX);
	sa->max_sz = attr_add(REL("access_pattern/max_size_bytes"), K_NUM, 0,
			      ULONG_MAX);
	sa->min_nr = attr_add(REL("access_pattern/min_nr_accesses"), K_NUM, 0,
			      UINT_MAX);
	sa->max_nr = attr_add(REL("access_pattern/max_nr_accesses"), K_NUM, 0,
			      UINT_MAX);
	sa->min_age = attr_add(REL("access_pattern/min_age"), K_NUM, 0,
			       UINT_MAX);
	sa->max_age = attr_add(REL("access_pattern/max_age"), K_NUM, 0,
			       UINT_MAX);
	sa->ms = attr_add(REL("quotas/ms"), K_NUM, 0, ULONG_MAX);
	sa->bytes = attr_add(REL("quotas/bytes"), K_NUM, 0, ULONG_MAX);
	sa->reset = attr_add(REL("quotas/reset_interval_ms"), K_NUM, 1,
			     ULONG_MAX);
	sa->w_sz = attr_add(REL("quotas/weight_size"), K_NUM, 0, 10000);
	sa->w_nr = attr_add(REL("quotas/weight_nr_accesses"), K_NUM, 0,
			    10000);
	sa->w_age = attr_add(REL("quotas/weight_age"), K_NUM, 0, 10000);
	sa->esz = attr_add(REL("quotas/effective_bytes"), K_RO, 0, 0);
	sa->metric = attr_add_words(REL("watermarks/metric"), metric_names,
				    metric_ok, 2);
	sa->wm_interval = attr_add(REL("watermarks/interval_us"), K_NUM, 1,
				   ULONG_MAX);
	sa->high = attr_add(REL("watermarks/high"), K_NUM, 0, 1000);
	sa->mid = attr_add(REL("watermarks/mid"), K_NUM, 0, 1000);
	sa->low = attr_add(REL("watermarks/low"), K_NUM, 0, 1000);
	for (i = 0; i < NR_STATS; i++)
		sa->stats[i] = attr_add(REL("stats/%s", stat_names[i]), K_RO,
					0, 0);
	sa->nr_filters = nr_filters;
	for (i = 0; i < nr_filters; i++) {
		struct filter_attrs *f = &sa->filters[i];

		f->type = attr_add_words(REL("filters/f%d/type", i),
					 ftype_names, ftype_ok, NR_FTYPES);
		f->matching = attr_add(REL("filters/f%d/matching", i), K_BOOL,
				       0, 0);
		f->addr_start = attr_add(REL("filters/f%d/addr_start", i),
					 K_NUM, 0, ULONG_MAX);
		f->addr_end = attr_add(REL("filters/f%d/addr_end", i), K_NUM,
				       0, ULONG_MAX);
		f->target = attr_add(REL("filters/f%d/target", i), K_NAME, 0,
				     0);
		f->memcg_path = attr_add(REL("filters/f%d/memcg_path", i),
					 K_PATH, 0, 0);
	}
	sa->nr_goals = nr_goals;
	for (i = 0; i < nr_goals; i++) {
		struct goal_attrs *g = &sa->goals[i];

		g->metric = attr_add_words(REL("quotas/goals/g%d/target_metric",
					       i), goal_metric_names,
					   goal_metric_ok, NR_GOAL_METRICS);
		g->target_value = attr_add(REL("quotas/goals/g%d/target_value",
					       i), K_NUM, 0, ULONG_MAX);
		g->current_value = attr_add(
			REL("quotas/goals/g%d/current_value", i), K_NUM, 0,
			ULONG_MAX);
		g->nid = attr_add(REL("quotas/goals/g%d/nid", i), K_NUM, 0,
				  max_numnodes - 1);
		g->memcg_path = attr_add(REL("quotas/goals/g%d/memcg_path", i),
					 K_PATH, 0, 0);
		g->running_metric = -1;
	}
#undef REL
}

/* A new scheme and its filters read the defaults of configfs-layout.md. */
static bool scheme_defaults(const struct scheme_attrs *sa)
{
	const struct filter_attrs *f;
	bool ok = attrs[sa->action].model == ACT_STAT &&
		attrs[sa->apply_interval].model == 0 &&
		attrs[sa->target_nid].model == -1 &&
		attrs[sa->min_sz].model == 0 &&
		attrs[sa->max_sz].model == (long long)ULONG_MAX &&
		attrs[sa->min_nr].model == 0 &&
		attrs[sa->max_nr].model == UINT_MAX &&
		attrs[sa->min_age].model == 0 &&
		attrs[sa->max_age].model == UINT_MAX &&
		attrs[sa->ms].model == 0 && attrs[sa->bytes].model == 0 &&
		attrs[sa->reset].model == 1000 &&
		attrs[sa->w_sz].model == 0 && attrs[sa->w_nr].model == 1 &&
		attrs[sa->w_age].model == 1 &&
		attrs[sa->metric].model == 0 &&	/* none */
		attrs[sa->wm_interval].model == 5000000 &&
		attrs[sa->high].model == 0 && attrs[sa->mid].model == 0 &&
		attrs[sa->low].model == 0;
	int i;

	for (i = 0; i < sa->nr_filters; i++) {
		f = &sa->filters[i];
		ok = ok && attrs[f->type].model == 0 &&	/* anon */
		     attrs[f->matching].model == 1 &&
		     attrs[f->addr_start].model == 0 &&
		     attrs[f->addr_end].model == 0 &&
		     attrs[f->target].slen == 0 &&
		     attrs[f->memcg_path].slen == 0;
	}
	for (i = 0; i < sa->nr_goals; i++) {
		const struct goal_attrs *g = &sa->goals[i];

		ok = ok && attrs[g->metric].model == GM_USER_INPUT &&
		     attrs[g->target_value].model == 0 &&
		     attrs[g->current_value].model == 0 &&
		     attrs[g->nid].model == 0 &&
		     attrs[g->memcg_path].slen == 0;
	}
	return ok;
}

/*
 * Which of @nr @words features (@buf) lists as PREFIX:WORD, in @ok, and
 * per operations set as OPS:PREFIX:WORD, in @ops_ok (NR_OPS rows of
 * @nr).  A word some operations set takes is listed alone too, and the
 * other way round.  0, or -1 after a fail().
 */
static int read_feature_words(const char *buf, const char *prefix,
			      const char *const *words, int nr, bool *ok,
			      bool *ops_ok)
{
	char word[64];
	bool some;
	int i, o;

	for (i = 0; i < nr; i++) {
		snprintf(word, sizeof(word), "%s:%s", prefix, words[i]);
		ok[i] = has_word(buf, word);
		some = false;
		for (o = 0; o < NR_OPS; o++) {
			snprintf(word, sizeof(word), "%s:%s:%s", ops_names[o],
				 prefix, words[i]);
			ops_ok[o * nr + i] = has_word(buf, word);
			if (ops_ok[o * nr + i] && !ops_registered[o]) {
				fail("features lists %s, but not ops:%s",
				     word, ops_names[o]);
				return -1;
			}
			some = some || ops_ok[o * nr + i];
		}
		if (ok[i] != some) {
			fail("features %s %s:%s, but %s operations set with it",
			     ok[i] ? "lists" : "lacks", prefix, words[i],
			     ok[i] ? "no" : "an");
			return -1;
		}
	}
	return 0;
}

/*
 * MAX_NUMNODES, which bounds target_nid, as the file of scheme @dir
 * shows it: the first power of two (NODES_SHIFT is at most 10) that it
 * refuses with ERANGE, the number below accepted.  It must exceed every
 * possible node.  Also a node with memory, for the migrate actions (0
 * without NUMA).  Leaves target_nid at its default, -1.  0, or -1 after
 * a fail().
 */
static int probe_max_numnodes(const char *dir)
{
	char path[PATH_MAX + 64], val[24];
	long n, first, last;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s/target_nid", ctxdir, dir);
	for (n = 1; n <= 1024; n *= 2) {
		snprintf(val, sizeof(val), "%ld", n - 1);
		err = write_str(path, val);
		if (err) {
			fail("%s <- %s: %s", path, val, ename(err));
			return -1;
		}
		snprintf(val, sizeof(val), "%ld\n", n);
		err = write_str(path, val);
		if (err)
			break;
	}
	if (err != ERANGE) {
		fail("%s: no power of two up to 1024 refused with ERANGE (%ld: %s)",
		     path, n, ename(err));
		return -1;
	}
	max_numnodes = n;
	if (node_list("/sys/devices/system/node/possible", &first, &last) &&
	    last >= max_numnodes) {
		fail("%s refuses %ld, but node %ld is possible", path, n, last);
		return -1;
	}
	err = write_str(path, "-1\n");
	if (err) {
		fail("%s <- -1: %s", path, ename(err));
		return -1;
	}
	if (!node_list("/sys/devices/system/node/has_memory", &mem_node, &last))
		mem_node = 0;
	return 0;
}

/*
 * Which goal metrics features lists (goal:WORD, for any operations): those
 * configfs-layout.md names without a condition must be there.  0, or -1
 * after a fail().
 */
static int read_goal_features(const char *buf)
{
	static const int always[] = {
		GM_USER_INPUT, GM_NODE_USED, GM_NODE_FREE, GM_ACTIVE,
		GM_INACTIVE,
	};
	char word[64];
	size_t i;
	int o;

	for (i = 0; i < NR_GOAL_METRICS; i++) {
		snprintf(word, sizeof(word), "goal:%s", goal_metric_names[i]);
		goal_metric_ok[i] = has_word(buf, word);
		for (o = 0; o < NR_OPS; o++) {
			snprintf(word, sizeof(word), "%s:goal:%s",
				 ops_names[o], goal_metric_names[i]);
			if (has_word(buf, word))
				fail("features lists %s: goals are not per operations set",
				     word);
		}
	}
	for (i = 0; i < ARRAY_SIZE(always); i++)
		if (!goal_metric_ok[always[i]])
			fail("features lacks goal:%s: %s",
			     goal_metric_names[always[i]],
			     quote(buf, strlen(buf)));
	return nr_fails ? -1 : 0;
}

/* Which operations sets, actions and filter types features lists. */
static int read_features(void)
{
	char path[PATH_MAX + 32];
	static char buf[8192];
	int i;

	snprintf(path, sizeof(path), "%s/../../features", ctxdir);
	if (read_file(path, buf, sizeof(buf)) < 0) {
		fail("cannot read %s", path);
		return -1;
	}
	for (i = 0; i < NR_OPS; i++) {
		snprintf(path, sizeof(path), "ops:%s", ops_names[i]);
		ops_registered[i] = has_word(buf, path);
	}
	if (read_feature_words(buf, "action", action_names, NR_ACTIONS,
			       action_ok, &ops_action_ok[0][0]) ||
	    read_feature_words(buf, "filter", ftype_names, NR_FTYPES,
			       ftype_ok, &ops_ftype_ok[0][0]) ||
	    read_goal_features(buf))
		return -1;
	if (!action_ok[ACT_STAT] || !has_word(buf, "intervals_goal")) {
		fail("features lacks action:stat or intervals_goal: %s",
		     quote(buf, strlen(buf)));
		return -1;
	}
	/* lru_prio, lru_deprio, migrate_*, memcg and young are paddr's own */
	for (i = 0; i < NR_OPS - 1; i++) {
		int k;

		for (k = ACT_STAT + 1; k < NR_ACTIONS; k++)
			if (ops_action_ok[i][k])
				fail("features lists %s:action:%s",
				     ops_names[i], action_names[k]);
		for (k = FT_MEMCG; k < NR_FTYPES; k++)
			if (ops_ftype_ok[i][k])
				fail("features lists %s:filter:%s",
				     ops_names[i], ftype_names[k]);
	}
	return nr_fails ? -1 : 0;
}

/* Make the tree and its attrs[], check the defaults, and repair(). */
int fuzz_setup(void)
{
	static const char *const dirs[] = {
		"targets/t0", "targets/t1", "targets/t0/regions/r0",
		"targets/t0/regions/r1", "targets/t1/regions/r0",
		"schemes/s0", "schemes/s0/filters/f0", "schemes/s0/filters/f1",
		"schemes/s1", "schemes/s1/filters/f0",
		"schemes/s0/quotas/goals/g0",
	};
	char path[PATH_MAX + 32];
	size_t i;
	int err;

	if (read_features())
		return -1;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", ctxdir, dirs[i]);
		err = do_mkdir(path);
		if (err) {
			fail("mkdir %s: %s", path, ename(err));
			return -1;
		}
	}
	if (probe_max_numnodes("schemes/s0"))
		return -1;
	attr_add("operations", K_OPS, 0, 0);
	attr_add("sample_us", K_NUM, 1, ULONG_MAX);
	attr_add("aggr_us", K_NUM, 1, ULONG_MAX);
	attr_add("update_us", K_NUM, 1, ULONG_MAX);
	attr_add("min_nr_regions", K_NUM, 3, MAX_NR_REGIONS);
	attr_add("max_nr_regions", K_NUM, 3, MAX_NR_REGIONS);
	attr_add("state", K_STATE, 0, 0);
	attr_add("targets/t0/pid", K_PID, 1, INT_MAX);
	attr_add("targets/t1/pid", K_PID, 1, INT_MAX);
	attr_add("targets/t0/regions/r0/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r0/end", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r1/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r1/end", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t1/regions/r0/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t1/regions/r0/end", K_NUM, 0, ULONG_MAX);
	attr_add("intervals_goal/access_bp", K_NUM, 0, 10000);
	attr_add("intervals_goal/aggrs", K_NUM, 1, UINT_MAX);
	attr_add("intervals_goal/min_sample_us", K_NUM, 1, ULONG_MAX);
	attr_add("intervals_goal/max_sample_us", K_NUM, 1, ULONG_MAX);
	if (nr_attrs != NR_CTX_ATTRS) {
		fail("the context's attributes are out of order");
		return -1;
	}
	add_scheme(&schemes[0], "s0", 2, 1);
	add_scheme(&schemes[1], "s1", 1, 0);
	for (i = 0; i < (size_t)nr_attrs; i++)
		if (attr_load(&attrs[i]))
			return -1;
	/* the defaults of a new tree, per configfs-layout.md */
	if (attrs[A_OPS].model != 0 || attrs[A_SAMPLE].model != 5000 ||
	    attrs[A_AGGR].model != 100000 || attrs[A_UPDATE].model != 1000000 ||
	    attrs[A_MIN].model != 10 || attrs[A_MAX].model != 1000 ||
	    attrs[A_T0_PID].model != -1 || attrs[A_T0R0_START].model != 0 ||
	    attrs[A_T0R0_END].model != 0 || attrs[A_IG_BP].model != 0 ||
	    attrs[A_IG_AGGRS].model != 3 || attrs[A_IG_MIN].model != 5000 ||
	    attrs[A_IG_MAX].model != 10000000) {
		fail("a new context, its intervals_goal/, a target or a region has unexpected defaults");
		return -1;
	}
	for (i = 0; i < NR_SCHEMES; i++) {
		if (!scheme_defaults(&schemes[i])) {
			fail("a new scheme, filter or goal (%s) has unexpected defaults",
			     schemes[i].dir);
			return -1;
		}
	}
	repair();
	return 0;
}
