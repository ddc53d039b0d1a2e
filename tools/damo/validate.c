// SPDX-License-Identifier: GPL-2.0
/*
 * The save/restore file's values and relations: each attribute against its
 * rule (a number in a range, one of some words, a name), and for contexts
 * that are to be on, what the kernel checks when they are turned on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damo.h"

/* V_NID: a NUMA node, min..max, or NID_NONE */
enum vtype { V_U64, V_NID, V_WORD, V_BOOL, V_NAME, V_TEXT, V_PATH };

struct attr_rule {
	enum conf_kind kind;
	const char *key;
	enum vtype type;
	uint64_t min, max;
	const char *const *words;
};

static const char *const ops_words[] = { "vaddr", "fvaddr", "paddr", NULL };
static const char *const state_words[] = { "on", "off", NULL };
static const char *const action_words[] = {
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "stat",
	"lru_prio", "lru_deprio", "migrate_hot", "migrate_cold", NULL,
};
/* the actions of action_words that move memory to the scheme's target_nid */
#define MIGRATE_ACTION_PREFIX	"migrate_"
static const char *const metric_words[] = { "none", "free_mem_rate", NULL };
static const char *const ftype_words[] = {
	"anon", "addr", "target", "memcg", "young", NULL,
};
/* a quota goal's target_metric: the first is the kernel's default */
static const char *const goal_metric_words[] = {
	"user_input", "some_mem_psi_us", "node_mem_used_bp",
	"node_mem_free_bp", "node_memcg_used_bp", "node_memcg_free_bp",
	"active_mem_bp", "inactive_mem_bp", NULL,
};
#define GOAL_NODE_PREFIX	"node_"		/* metrics of node nid */
#define GOAL_MEMCG_PREFIX	"node_memcg_"	/* ...and of a cgroup */

/* The kernel's limits on some values. */
#define NR_REGIONS_MIN		3
#define NR_REGIONS_MAX		100000
#define QUOTA_WEIGHT_MAX	10000
#define ACCESS_BP_MAX		10000	/* intervals_goal: basis points */
#define WMARK_PERMIL_MAX	1000	/* watermarks are per thousand */
#define NID_NONE		-1	/* target_nid: no node */
#define NID_MAX			1023	/* MAX_NUMNODES is at most 1024 */
#define GOAL_NID_MAX		NID_MAX		/* a goal's nid: 0.. */

#define U64M	UINT64_MAX
#define U32M	UINT32_MAX

static const struct attr_rule rules[] = {
	{ CK_CONTEXT, "operations", V_WORD, 0, 0, ops_words },
	{ CK_CONTEXT, "sample_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "aggr_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "update_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "min_nr_regions", V_U64, NR_REGIONS_MIN, NR_REGIONS_MAX,
	  NULL },
	{ CK_CONTEXT, "max_nr_regions", V_U64, NR_REGIONS_MIN, NR_REGIONS_MAX,
	  NULL },
	{ CK_CONTEXT, "state", V_WORD, 0, 0, state_words },
	{ CK_INTERVALS, "access_bp", V_U64, 0, ACCESS_BP_MAX, NULL },
	{ CK_INTERVALS, "aggrs", V_U64, 1, U32M, NULL },
	{ CK_INTERVALS, "min_sample_us", V_U64, 1, U64M, NULL },
	{ CK_INTERVALS, "max_sample_us", V_U64, 1, U64M, NULL },
	{ CK_TARGET, "pid", V_U64, 1, DAMO_PID_MAX, NULL },
	{ CK_TARGET, "command", V_TEXT, 0, 0, NULL },
	{ CK_TARGET, "unit", V_NAME, 0, 0, NULL },
	{ CK_REGION, "start", V_U64, 0, U64M, NULL },
	{ CK_REGION, "end", V_U64, 0, U64M, NULL },
	{ CK_SCHEME, "action", V_WORD, 0, 0, action_words },
	{ CK_SCHEME, "apply_interval_us", V_U64, 0, U64M, NULL },
	{ CK_SCHEME, "target_nid", V_NID, 0, NID_MAX, NULL },
	{ CK_PATTERN, "min_size_bytes", V_U64, 0, U64M, NULL },
	{ CK_PATTERN, "max_size_bytes", V_U64, 0, U64M, NULL },
	{ CK_PATTERN, "min_nr_accesses", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "max_nr_accesses", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "min_age", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "max_age", V_U64, 0, U32M, NULL },
	{ CK_QUOTAS, "ms", V_U64, 0, U64M, NULL },
	{ CK_QUOTAS, "bytes", V_U64, 0, U64M, NULL },
	{ CK_QUOTAS, "reset_interval_ms", V_U64, 1, U64M, NULL },
	{ CK_QUOTAS, "weight_size", V_U64, 0, QUOTA_WEIGHT_MAX, NULL },
	{ CK_QUOTAS, "weight_nr_accesses", V_U64, 0, QUOTA_WEIGHT_MAX, NULL },
	{ CK_QUOTAS, "weight_age", V_U64, 0, QUOTA_WEIGHT_MAX, NULL },
	{ CK_WMARKS, "metric", V_WORD, 0, 0, metric_words },
	{ CK_WMARKS, "interval_us", V_U64, 1, U64M, NULL },
	{ CK_WMARKS, "high", V_U64, 0, WMARK_PERMIL_MAX, NULL },
	{ CK_WMARKS, "mid", V_U64, 0, WMARK_PERMIL_MAX, NULL },
	{ CK_WMARKS, "low", V_U64, 0, WMARK_PERMIL_MAX, NULL },
	{ CK_FILTER, "type", V_WORD, 0, 0, ftype_words },
	{ CK_FILTER, "matching", V_BOOL, 0, 0, NULL },
	{ CK_FILTER, "addr_start", V_U64, 0, U64M, NULL },
	{ CK_FILTER, "addr_end", V_U64, 0, U64M, NULL },
	{ CK_FILTER, "target", V_NAME, 0, 0, NULL },
	{ CK_FILTER, "memcg_path", V_PATH, 0, 0, NULL },
	{ CK_GOAL, "target_metric", V_WORD, 0, 0, goal_metric_words },
	{ CK_GOAL, "target_value", V_U64, 0, U64M, NULL },
	{ CK_GOAL, "current_value", V_U64, 0, U64M, NULL },
	{ CK_GOAL, "nid", V_U64, 0, GOAL_NID_MAX, NULL },
	{ CK_GOAL, "memcg_path", V_PATH, 0, 0, NULL },
};

/* What the kernel's kstrtobool() takes. */
static const char *const bool_words[] = {
	"Y", "N", "y", "n", "1", "0", "on", "off", NULL,
};

static const struct attr_rule *rule_of(enum conf_kind k, const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].kind == k && !strcmp(rules[i].key, key))
			return &rules[i];
	return NULL;
}

bool conf_attr_numeric(enum conf_kind k, const char *key)
{
	const struct attr_rule *r = rule_of(k, key);

	return r && (r->type == V_U64 || r->type == V_NID);
}

bool conf_action_migrates(const char *action)
{
	return action && !strncmp(action, MIGRATE_ACTION_PREFIX,
				  strlen(MIGRATE_ACTION_PREFIX));
}

const char *conf_goal_metric(const struct conf_node *n)
{
	const char *m = conf_get(n, "target_metric");

	return m ? m : goal_metric_words[0];
}

bool conf_goal_metric_is_input(const char *metric)
{
	return !strcmp(metric, goal_metric_words[0]);
}

bool conf_goal_metric_per_node(const char *metric)
{
	return !strncmp(metric, GOAL_NODE_PREFIX, strlen(GOAL_NODE_PREFIX));
}

bool conf_goal_metric_per_memcg(const char *metric)
{
	return !strncmp(metric, GOAL_MEMCG_PREFIX, strlen(GOAL_MEMCG_PREFIX));
}

static bool is_one_of(const char *const *words, const char *s)
{
	for (; *words; words++)
		if (!strcmp(*words, s))
			return true;
	return false;
}

static int check_u64(const struct attr_rule *r, const struct conf_attr *a,
		     char *err, size_t len)
{
	uint64_t v;
	int e = parse_u64(a->value, &v);

	if (e == -EINVAL) {
		conf_seterr(err, len, a->line,
			    "%s: '%s' is not a decimal number", a->key,
			    a->value);
		return -1;
	}
	if (e || v < r->min || v > r->max) {
		conf_seterr(err, len, a->line,
			    "%s: %s is out of range %llu..%llu", a->key,
			    a->value, (unsigned long long)r->min,
			    (unsigned long long)r->max);
		return -1;
	}
	return 0;
}

static int check_nid(const struct attr_rule *r, const struct conf_attr *a,
		     char *err, size_t len)
{
	int64_t v;
	int e = parse_s64(a->value, &v);

	if (e == -EINVAL) {
		conf_seterr(err, len, a->line,
			    "%s: '%s' is not a decimal number", a->key,
			    a->value);
		return -1;
	}
	if (e || (v != NID_NONE &&
		  (v < (int64_t)r->min || v > (int64_t)r->max))) {
		conf_seterr(err, len, a->line,
			    "%s: %s is out of range %d..%llu", a->key,
			    a->value, NID_NONE, (unsigned long long)r->max);
		return -1;
	}
	return 0;
}

static int check_word(const struct attr_rule *r, const struct conf_attr *a,
		      char *err, size_t len)
{
	const char *const *w;
	size_t l;

	if (is_one_of(r->words, a->value))
		return 0;
	conf_seterr(err, len, a->line, "%s: '%s' is not one of", a->key,
		    a->value);
	for (w = r->words; *w; w++) {
		l = strlen(err);
		snprintf(err + l, len - l, " %s", *w);
	}
	return -1;
}

static int check_attr(const struct conf_node *n, const struct conf_attr *a,
		      char *err, size_t len)
{
	const struct attr_rule *r = rule_of(n->kind, a->key);

	if (!r) {
		conf_seterr(err, len, a->line, "unknown key '%s'", a->key);
		return -1;
	}
	switch (r->type) {
	case V_U64:
		return check_u64(r, a, err, len);
	case V_NID:
		return check_nid(r, a, err, len);
	case V_WORD:
		return check_word(r, a, err, len);
	case V_BOOL:
		if (is_one_of(bool_words, a->value))
			return 0;
		conf_seterr(err, len, a->line, "%s: '%s' is not Y or N",
			    a->key, a->value);
		return -1;
	case V_NAME:
		/* a filter's target may be empty (the default) */
		if ((!*a->value && n->kind == CK_FILTER) ||
		    conf_valid_name(a->value))
			return 0;
		conf_seterr(err, len, a->line, "%s: '%s' is not a valid name",
			    a->key, a->value);
		return -1;
	case V_TEXT:
		if (*a->value)
			return 0;
		conf_seterr(err, len, a->line, "%s: empty", a->key);
		return -1;
	case V_PATH:
		/* a cgroup's, from the root of cgroup v2; empty: none */
		if (!*a->value || a->value[0] == '/')
			return 0;
		conf_seterr(err, len, a->line,
			    "%s: '%s' is not a path from the cgroup root (starting with '/')",
			    a->key, a->value);
		return -1;
	}
	return 0;
}

/* The value of a numeric attribute, or its default. */
static uint64_t num(const struct conf_node *n, const char *key, uint64_t def)
{
	const char *v = conf_get(n, key);
	uint64_t r;

	if (!v || parse_u64(v, &r))
		return def;
	return r;
}

static int line_of(const struct conf_node *n, const char *key)
{
	const struct conf_attr *a = conf_get_attr(n, key);

	return a ? a->line : n->line;
}

/* The line of key in n if it is set there, else that of alt. */
static int line_of_either(const struct conf_node *n, const char *key,
			  const char *alt)
{
	return line_of(n, conf_get_attr(n, key) ? key : alt);
}


static int region_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* ------------------------------------------------------------ relations */

/* The kernel's defaults, for attributes a context leaves out. */
#define DEF_SAMPLE_US		5000
#define DEF_AGGR_US		100000
#define DEF_UPDATE_US		1000000
#define DEF_MIN_NR_REGIONS	10
#define DEF_MAX_NR_REGIONS	1000
/* The samples of an aggregation are counted in 32 bits. */
#define MAX_SAMPLES_PER_AGGR	(1ULL << 32)
/* intervals_goal/: the kernel's defaults (access_bp 0: no tuning) */
#define DEF_ACCESS_BP		0
#define DEF_AGGRS		3
#define DEF_MIN_SAMPLE_US	5000
#define DEF_MAX_SAMPLE_US	10000000

bool conf_intervals_tune(const struct conf_node *g)
{
	return num(g, "access_bp", DEF_ACCESS_BP) != DEF_ACCESS_BP;
}

bool conf_intervals_set(const struct conf_node *g)
{
	return conf_intervals_tune(g) ||
		num(g, "aggrs", DEF_AGGRS) != DEF_AGGRS ||
		num(g, "min_sample_us", DEF_MIN_SAMPLE_US) != DEF_MIN_SAMPLE_US ||
		num(g, "max_sample_us", DEF_MAX_SAMPLE_US) != DEF_MAX_SAMPLE_US;
}

/* With tuning on, its bounds the right way round. */
static int check_intervals_goal(const struct conf_node *c, char *err,
				size_t len)
{
	const struct conf_node *g = conf_find_child(c, CK_INTERVALS, NULL);
	uint64_t lo, hi;

	if (!g || !conf_intervals_tune(g))
		return 0;
	lo = num(g, "min_sample_us", DEF_MIN_SAMPLE_US);
	hi = num(g, "max_sample_us", DEF_MAX_SAMPLE_US);
	if (lo <= hi)
		return 0;
	conf_seterr(err, len, line_of_either(g, "min_sample_us", "access_bp"),
		    "context %s: intervals_goal needs min_sample_us (%llu) <= max_sample_us (%llu) to tune",
		    c->name, (unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

static int check_intervals(const struct conf_node *c, char *err, size_t len)
{
	uint64_t s = num(c, "sample_us", DEF_SAMPLE_US);
	uint64_t a = num(c, "aggr_us", DEF_AGGR_US);
	uint64_t u = num(c, "update_us", DEF_UPDATE_US);

	if (s > a || a > u) {
		conf_seterr(err, len, line_of(c, "aggr_us"),
			    "context %s: needs sample_us (%llu) <= aggr_us (%llu) <= update_us (%llu)",
			    c->name, (unsigned long long)s,
			    (unsigned long long)a, (unsigned long long)u);
		return -1;
	}
	if (a / s >= MAX_SAMPLES_PER_AGGR) {
		conf_seterr(err, len, line_of(c, "aggr_us"),
			    "context %s: aggr_us / sample_us must be below 2^32",
			    c->name);
		return -1;
	}
	if (num(c, "min_nr_regions", DEF_MIN_NR_REGIONS) >
	    num(c, "max_nr_regions", DEF_MAX_NR_REGIONS)) {
		conf_seterr(err, len, line_of(c, "min_nr_regions"),
			    "context %s: needs min_nr_regions <= max_nr_regions",
			    c->name);
		return -1;
	}
	return check_intervals_goal(c, err, len);
}

/* Regions start below their ends and, rounded out to pages, are apart. */
static int check_regions(const struct conf_node *t, char *err, size_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t (*rg)[2] = xcalloc(t->nr_children + 1, sizeof(*rg));
	uint64_t rs, re;
	size_t j, nr = 0;
	int ret = 0;

	for (j = 0; j < t->nr_children && !ret; j++) {
		const struct conf_node *r = t->children[j];

		rs = num(r, "start", 0);
		re = num(r, "end", 0);
		if (rs >= re) {
			conf_seterr(err, len, r->line,
				    "region %s: start (%llu) must be below end (%llu)",
				    r->name, (unsigned long long)rs,
				    (unsigned long long)re);
			ret = -1;
		}
		rg[nr][0] = rs / page * page;
		rg[nr][1] = re > UINT64_MAX - page + 1 ? UINT64_MAX :
			(re + page - 1) / page * page;
		nr++;
	}
	qsort(rg, nr, sizeof(*rg), region_cmp);
	for (j = 1; j < nr && !ret; j++)
		if (rg[j][0] < rg[j - 1][1]) {
			conf_seterr(err, len, t->line,
				    "target %s: regions overlap (once rounded out to pages)",
				    t->name);
			ret = -1;
		}
	free(rg);
	return ret;
}

static int check_target(const struct conf_node *c, const struct conf_node *t,
			char *err, size_t len)
{
	const char *ops = conf_get(c, "operations");
	bool paddr = ops && !strcmp(ops, "paddr");
	bool has_pid = conf_get(t, "pid") || conf_get(t, "command") ||
		conf_get(t, "unit");

	/* paddr: physical memory, one target without a process */
	if (paddr && has_pid) {
		conf_seterr(err, len, t->line,
			    "target %s: paddr takes no pid, command or unit",
			    t->name);
		return -1;
	}
	if (paddr && conf_find_child(c, CK_TARGET, NULL) != t) {
		conf_seterr(err, len, t->line,
			    "target %s: paddr takes only one target", t->name);
		return -1;
	}
	if (!paddr && !has_pid) {
		conf_seterr(err, len, t->line,
			    "target %s: needs a pid, command or unit to be on",
			    t->name);
		return -1;
	}
	if (check_regions(t, err, len))
		return -1;
	if (ops && !strcmp(ops, "fvaddr") && !t->nr_children) {
		conf_seterr(err, len, t->line,
			    "target %s: fvaddr needs at least one region",
			    t->name);
		return -1;
	}
	return 0;
}

static int check_pattern(const struct conf_node *s, char *err, size_t len)
{
	static const char *const pairs[][2] = {
		{ "min_size_bytes", "max_size_bytes" },
		{ "min_nr_accesses", "max_nr_accesses" },
		{ "min_age", "max_age" },
	};
	const struct conf_node *p = conf_find_child(s, CK_PATTERN, NULL);
	size_t j;

	for (j = 0; p && j < ARRAY_SIZE(pairs); j++)
		if (num(p, pairs[j][0], 0) > num(p, pairs[j][1], UINT64_MAX)) {
			conf_seterr(err, len, line_of(p, pairs[j][0]),
				    "scheme %s: %s exceeds %s", s->name,
				    pairs[j][0], pairs[j][1]);
			return -1;
		}
	return 0;
}

static int check_wmarks(const struct conf_node *s, char *err, size_t len)
{
	const struct conf_node *w = conf_find_child(s, CK_WMARKS, NULL);
	const char *metric = w ? conf_get(w, "metric") : NULL;

	if (!metric || !strcmp(metric, "none") ||
	    (num(w, "low", 0) <= num(w, "mid", 0) &&
	     num(w, "mid", 0) <= num(w, "high", 0)))
		return 0;
	conf_seterr(err, len, line_of(w, "metric"),
		    "scheme %s: watermarks need low <= mid <= high", s->name);
	return -1;
}

/* A migrate action's node (whether it has memory, only "on" can tell). */
static int check_target_nid(const struct conf_node *s, char *err, size_t len)
{
	const char *action = conf_get(s, "action");
	const char *nid = conf_get(s, "target_nid");
	int64_t v;

	if (!conf_action_migrates(action) ||
	    (nid && !parse_s64(nid, &v) && v >= 0))
		return 0;
	conf_seterr(err, len, line_of_either(s, "target_nid", "action"),
		    "scheme %s: %s needs a target_nid (a node, not -1)",
		    s->name, action);
	return -1;
}

/* An addr filter's range, a target filter's target (of context c), a
 * memcg filter's cgroup (whether it exists, only "on" can tell). */
static int check_filter(const struct conf_node *c, const struct conf_node *f,
			char *err, size_t len)
{
	const char *type = conf_get(f, "type"), *tn = conf_get(f, "target");
	const char *mp = conf_get(f, "memcg_path");

	if (type && !strcmp(type, "addr") &&
	    num(f, "addr_start", 0) >= num(f, "addr_end", 0)) {
		conf_seterr(err, len, f->line,
			    "filter %s: addr needs addr_start < addr_end",
			    f->name);
		return -1;
	}
	if (type && !strcmp(type, "target") &&
	    (!tn || !conf_find_child(c, CK_TARGET, tn))) {
		conf_seterr(err, len, line_of(f, "target"),
			    "filter %s: target '%s' is not a target of context %s",
			    f->name, tn ? tn : "", c->name);
		return -1;
	}
	if (type && !strcmp(type, "memcg") && (!mp || !*mp)) {
		conf_seterr(err, len, line_of_either(f, "memcg_path", "type"),
			    "filter %s: memcg needs a memcg_path", f->name);
		return -1;
	}
	return 0;
}

/* What "on" checks of a quota goal (whether its node has memory and its
 * cgroup exists, only "on" can tell). */
static int check_goal(const struct conf_node *c, const struct conf_node *g,
		      char *err, size_t len)
{
	const char *metric = conf_goal_metric(g);
	const char *mp = conf_get(g, "memcg_path");

	(void)c;
	if (!num(g, "target_value", 0)) {
		conf_seterr(err, len, line_of(g, "target_value"),
			    "goal %s: needs a target_value other than 0",
			    g->name);
		return -1;
	}
	if (conf_goal_metric_per_memcg(metric) && (!mp || !*mp)) {
		conf_seterr(err, len, line_of_either(g, "memcg_path",
						     "target_metric"),
			    "goal %s: %s needs a memcg_path", g->name, metric);
		return -1;
	}
	return 0;
}

typedef int (*check_fn)(const struct conf_node *c,
			const struct conf_node *child, char *err, size_t len);

/* check() on each child of kind k of parent, in context c; the first -1. */
static int check_each(const struct conf_node *c,
		      const struct conf_node *parent, enum conf_kind k,
		      check_fn check, char *err, size_t len)
{
	size_t i;

	for (i = 0; i < parent->nr_children; i++)
		if (parent->children[i]->kind == k &&
		    check(c, parent->children[i], err, len))
			return -1;
	return 0;
}

static int check_scheme(const struct conf_node *c, const struct conf_node *s,
			char *err, size_t len)
{
	const struct conf_node *q = conf_find_child(s, CK_QUOTAS, NULL);

	if (check_target_nid(s, err, len) || check_pattern(s, err, len) ||
	    check_wmarks(s, err, len) ||
	    (q && check_each(c, q, CK_GOAL, check_goal, err, len)))
		return -1;
	return check_each(c, s, CK_FILTER, check_filter, err, len);
}

/* What the kernel checks at "on": only for contexts that are to be on. */
static int check_relations(const struct conf_node *c, char *err, size_t len)
{
	if (check_intervals(c, err, len) ||
	    check_each(c, c, CK_TARGET, check_target, err, len))
		return -1;
	if (!conf_find_child(c, CK_TARGET, NULL)) {
		conf_seterr(err, len, line_of(c, "state"),
			    "context %s: needs a target to be on", c->name);
		return -1;
	}
	return check_each(c, c, CK_SCHEME, check_scheme, err, len);
}

static int validate_node(const struct conf_node *n, char *err, size_t len)
{
	size_t i;
	int ids = 0;

	for (i = 0; i < n->nr_attrs; i++)
		if (check_attr(n, &n->attrs[i], err, len))
			return -1;
	/* the kernel measures every metric but user_input itself */
	if (n->kind == CK_GOAL && conf_get(n, "current_value") &&
	    !conf_goal_metric_is_input(conf_goal_metric(n))) {
		conf_seterr(err, len, line_of(n, "current_value"),
			    "goal %s: current_value is for user_input goals (the kernel measures %s)",
			    n->name, conf_goal_metric(n));
		return -1;
	}
	if (n->kind == CK_TARGET) {
		ids = !!conf_get(n, "pid") + !!conf_get(n, "command") +
			!!conf_get(n, "unit");
		if (ids > 1) {
			conf_seterr(err, len, n->line,
			       "target %s: give only one of pid, command and unit",
			       n->name);
			return -1;
		}
	}
	for (i = 0; i < n->nr_children; i++)
		if (validate_node(n->children[i], err, len))
			return -1;
	if (n->kind == CK_CONTEXT) {
		const char *st = conf_get(n, "state");

		if (st && !strcmp(st, "on") && check_relations(n, err, len))
			return -1;
	}
	return 0;
}

int conf_validate(const struct conf_node *root, char *err, size_t errlen)
{
	return validate_node(root, err, errlen);
}
