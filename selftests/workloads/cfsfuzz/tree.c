// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: the tree it fuzzes.  Under the empty context CTXDIR,
 * targets t0 and t1 with regions, schemes s0 (filters f0, f1) and s1
 * (filter f0); every file of them in attrs[], its model loaded from what
 * it reads, which must be the defaults of configfs-layout.md.
 */
#define _GNU_SOURCE
#include "fuzz.h"

const char *const ops_names[3] = { "vaddr", "fvaddr", "paddr" };
bool ops_registered[3];
const char *const action_names[6] = {
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "stat",
};
bool action_ok[6];	/* as features lists them */
const char *const metric_names[2] = { "none", "free_mem_rate" };
static const bool metric_ok[] = { true, true };
const char *const ftype_names[3] = { "anon", "addr", "target" };
static const bool ftype_ok[] = { true, true, true };

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

/* The files of scheme @name with @nr_filters filters f0, f1, ... */
static void add_scheme(struct scheme_attrs *sa, const char *name,
		       int nr_filters)
{
	char rel[128];
	int i;

#define REL(fmt, ...) (snprintf(rel, sizeof(rel), "%s/" fmt, sa->dir, \
				##__VA_ARGS__), rel)
	snprintf(sa->dir, sizeof(sa->dir), "schemes/%s", name);
	sa->action = attr_add_words(REL("action"), action_names, action_ok, 6);
	sa->apply_interval = attr_add(REL("apply_interval_us"), K_NUM, 0,
				      ULONG_MAX);
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
					 ftype_names, ftype_ok, 3);
		f->matching = attr_add(REL("filters/f%d/matching", i), K_BOOL,
				       0, 0);
		f->addr_start = attr_add(REL("filters/f%d/addr_start", i),
					 K_NUM, 0, ULONG_MAX);
		f->addr_end = attr_add(REL("filters/f%d/addr_end", i), K_NUM,
				       0, ULONG_MAX);
		f->target = attr_add(REL("filters/f%d/target", i), K_NAME, 0,
				     0);
	}
#undef REL
}

/* A new scheme and its filters read the defaults of configfs-layout.md. */
static bool scheme_defaults(const struct scheme_attrs *sa)
{
	const struct filter_attrs *f;
	bool ok = attrs[sa->action].model == 5 &&	/* stat */
		attrs[sa->apply_interval].model == 0 &&
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
		     attrs[f->addr_end].model == 0 && attrs[f->target].slen == 0;
	}
	return ok;
}

/* Which operations sets and actions the features file lists. */
static int read_features(void)
{
	char path[PATH_MAX + 32], buf[512], word[32];
	size_t i, l;
	char *at;

	snprintf(path, sizeof(path), "%s/../../features", ctxdir);
	if (read_file(path, buf, sizeof(buf)) < 0) {
		fail("cannot read %s", path);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		snprintf(word, sizeof(word), "ops:%s", ops_names[i]);
		ops_registered[i] = strstr(buf, word) != NULL;
	}
	for (i = 0; i < 6; i++) {
		/* "action:WORD" followed by a blank or the end */
		l = snprintf(word, sizeof(word), "action:%s", action_names[i]);
		at = strstr(buf, word);
		action_ok[i] = at && (at[l] == ' ' || at[l] == '\n' ||
				      !at[l]);
	}
	if (!action_ok[5]) {
		fail("features lacks action:stat: %s", quote(buf, strlen(buf)));
		return -1;
	}
	return 0;
}

/* Make the tree and its attrs[], check the defaults, and repair(). */
int fuzz_setup(void)
{
	static const char *const dirs[] = {
		"targets/t0", "targets/t1", "targets/t0/regions/r0",
		"targets/t0/regions/r1", "targets/t1/regions/r0",
		"schemes/s0", "schemes/s0/filters/f0", "schemes/s0/filters/f1",
		"schemes/s1", "schemes/s1/filters/f0",
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
	if (nr_attrs != NR_CTX_ATTRS) {
		fail("the context's attributes are out of order");
		return -1;
	}
	add_scheme(&schemes[0], "s0", 2);
	add_scheme(&schemes[1], "s1", 1);
	for (i = 0; i < (size_t)nr_attrs; i++)
		if (attr_load(&attrs[i]))
			return -1;
	/* the defaults of a new tree, per configfs-layout.md */
	if (attrs[A_OPS].model != 0 || attrs[A_SAMPLE].model != 5000 ||
	    attrs[A_AGGR].model != 100000 || attrs[A_UPDATE].model != 1000000 ||
	    attrs[A_MIN].model != 10 || attrs[A_MAX].model != 1000 ||
	    attrs[A_T0_PID].model != -1 || attrs[A_T0R0_START].model != 0 ||
	    attrs[A_T0R0_END].model != 0) {
		fail("a new context, target or region has unexpected defaults");
		return -1;
	}
	for (i = 0; i < NR_SCHEMES; i++) {
		if (!scheme_defaults(&schemes[i])) {
			fail("a new scheme or filter (%s) has unexpected defaults",
			     schemes[i].dir);
			return -1;
		}
	}
	repair();
	return 0;
}
