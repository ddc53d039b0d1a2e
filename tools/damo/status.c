// SPDX-License-Identifier: GPL-2.0
/*
 * damo status: every context of the configfs tree on one screen, with its
 * state, kdamond, intervals (and their auto-tuning goal), targets (and
 * their regions), what the latest snapshots say of a running context's
 * memory (an estimated bandwidth, idle time percentiles) and schemes
 * (their stats, quota and its goals, and filters), as text or as JSON
 * (the schema is in Documentation/damo.1).
 *
 * It only reads files, so a stand-in tree ($DAMO_CONFIGFS) will do.  The
 * whole tree is read before anything is printed: a file that cannot be
 * read is an error, and nothing is printed then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damo.h"

/* A value as configfs shows it: at most this long (numbers and words). */
#define ST_VALUE_MAX		64
/* Reading a snapshot that raced with two aggregations: tries. */
#define SNAPSHOT_TRIES		10

struct st_target {
	char *name;
	char pid[ST_VALUE_MAX];
	size_t nr_regions;		/* lines of its snapshot */
	struct snap_region *regions;	/* and what they say */
};

/* The scheme's files that status shows, by group. */
static const char *const scheme_files[] = { "action", "apply_interval_us", NULL };
static const char *const stats_files[] = {
	"nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds", NULL,
};
static const char *const quota_files[] = {
	"ms", "bytes", "reset_interval_ms", "effective_bytes", NULL,
};
enum { S_ACTION, S_APPLY_US };
enum { ST_NR_TRIED, ST_SZ_TRIED, ST_NR_APPLIED, ST_SZ_APPLIED, ST_QT_EXCEEDS };
enum { Q_MS, Q_BYTES, Q_RESET_MS, Q_EFFECTIVE };

#define NR_SCHEME_FILES		2
#define NR_STATS_FILES		5
#define NR_QUOTA_FILES		4

_Static_assert(ARRAY_SIZE(scheme_files) == NR_SCHEME_FILES + 1, "scheme_files");
_Static_assert(ARRAY_SIZE(stats_files) == NR_STATS_FILES + 1, "stats_files");
_Static_assert(ARRAY_SIZE(quota_files) == NR_QUOTA_FILES + 1, "quota_files");

/* A filter: its type, and the files that type uses. */
struct st_filter {
	char *name;
	char type[ST_VALUE_MAX];
	char matching[ST_VALUE_MAX];
	char addr_start[ST_VALUE_MAX], addr_end[ST_VALUE_MAX];	/* addr */
	char *text;	/* target: the target's name; memcg: memcg_path */
};

/* A quota goal: its metric, values, and the node and cgroup it uses. */
struct st_goal {
	char *name;
	char metric[ST_VALUE_MAX];
	char target[ST_VALUE_MAX], current[ST_VALUE_MAX];
	char nid[ST_VALUE_MAX];		/* node_* metrics, else empty */
	char *memcg_path;		/* node_memcg_* metrics, else NULL */
};

struct st_scheme {
	char *name;
	char v[NR_SCHEME_FILES][ST_VALUE_MAX];
	char target_nid[ST_VALUE_MAX];	/* migrate actions only */
	char stats[NR_STATS_FILES][ST_VALUE_MAX];
	char quotas[NR_QUOTA_FILES][ST_VALUE_MAX];
	struct st_goal *goals;		/* in creation order */
	size_t nr_goals;
	struct st_filter *filters;	/* in creation order */
	size_t nr_filters;
};

static const char *const context_files[] = {
	"state", "kdamond_pid", "operations", "nr_aggregations", "sample_us",
	"aggr_us", "update_us", "min_nr_regions", "max_nr_regions", NULL,
};
enum {
	C_STATE, C_KDAMOND_PID, C_OPERATIONS, C_NR_AGGREGATIONS, C_SAMPLE_US,
	C_AGGR_US, C_UPDATE_US, C_MIN_NR_REGIONS, C_MAX_NR_REGIONS,
	NR_CONTEXT_FILES,
};

_Static_assert(ARRAY_SIZE(context_files) == NR_CONTEXT_FILES + 1,
	       "context_files");

/* intervals_goal/, which older kernels lack */
static const char *const intervals_files[] = {
	"access_bp", "aggrs", "min_sample_us", "max_sample_us", NULL,
};
enum { I_ACCESS_BP, I_AGGRS, I_MIN_SAMPLE_US, I_MAX_SAMPLE_US,
	NR_INTERVALS_FILES };

_Static_assert(ARRAY_SIZE(intervals_files) == NR_INTERVALS_FILES + 1,
	       "intervals_files");

struct st_context {
	char *name;
	char v[NR_CONTEXT_FILES][ST_VALUE_MAX];
	bool has_intervals_goal;	/* intervals_goal/ is there */
	char intervals_goal[NR_INTERVALS_FILES][ST_VALUE_MAX];
	bool has_stats;			/* on, and its snapshots hold regions */
	struct access_stats stats;
	struct st_target *targets;
	size_t nr_targets;
	struct st_scheme *schemes;
	size_t nr_schemes;
};

/* Files that hold words; every other one a decimal number. */
static bool is_word_file(const char *name)
{
	return !strcmp(name, "state") || !strcmp(name, "operations") ||
		!strcmp(name, "action") || !strcmp(name, "type") ||
		!strcmp(name, "matching") || !strcmp(name, "target_metric");
}

/* Files where -1 means none. */
static bool may_be_none(const char *name)
{
	return !strcmp(name, "pid") || !strcmp(name, "kdamond_pid") ||
		!strcmp(name, "target_nid");
}

/* The text file a filter of type uses (a name, a path), or NULL. */
static const char *filter_text_file(const char *type)
{
	if (!strcmp(type, "target"))
		return "target";
	if (!strcmp(type, "memcg"))
		return "memcg_path";
	return NULL;
}

/* dir/name into v: a word, or a number that status prints as one. */
static int read_value(const char *dir, const char *name,
		      char v[ST_VALUE_MAX])
{
	uint64_t n;

	if (get_attr(dir, name, v, ST_VALUE_MAX))
		return -1;
	if (is_word_file(name) || !parse_u64(v, &n) ||
	    (may_be_none(name) && !strcmp(v, "-1")))
		return 0;
	damo_err("%s/%s: '%s' is not a number", dir, name, v);
	return -1;
}

/* The files of names[] under dir, into v[]; 0, or -1 said. */
static int read_files(const char *dir, const char *const *names,
		      char (*v)[ST_VALUE_MAX])
{
	size_t i;

	for (i = 0; names[i]; i++)
		if (read_value(dir, names[i], v[i]))
			return -1;
	return 0;
}

/* The subdirectories of dir/sub, in natural order; 0, or -1 said. */
static int list_sorted(const char *dir, const char *sub, char ***names,
		       size_t *nr)
{
	char *p = xasprintf("%s/%s", dir, sub);
	int r = list_dirs(p, names, nr);

	if (r)
		damo_err("listing %s: %s", p, strerror(-r));
	else if (*nr)
		qsort(*names, *nr, sizeof(**names), name_cmp);
	free(p);
	return r ? -1 : 0;
}

static int read_snapshot(const char *dir, struct st_target *t)
{
	int r, i;

	for (i = 0; i < SNAPSHOT_TRIES; i++) {
		r = cfs_read_snapshot(dir, &t->regions, &t->nr_regions);
		if (r != -EAGAIN)
			break;
	}
	if (r && r != -EINVAL)
		damo_err("reading %s/snapshot: %s", dir, strerror(-r));
	return r ? -1 : 0;
}

static int read_target(const char *dir, struct st_target *t)
{
	if (read_value(dir, "pid", t->pid))
		return -1;
	return read_snapshot(dir, t);
}

/* A filter's type and matching, and the files its type uses. */
static int read_filter(const char *dir, struct st_filter *fl)
{
	const char *file;
	char buf[CFS_ATTR_MAX];

	if (read_value(dir, "type", fl->type) ||
	    read_value(dir, "matching", fl->matching))
		return -1;
	if (!strcmp(fl->type, "addr") &&
	    (read_value(dir, "addr_start", fl->addr_start) ||
	     read_value(dir, "addr_end", fl->addr_end)))
		return -1;
	file = filter_text_file(fl->type);
	if (file) {
		if (get_attr(dir, file, buf, sizeof(buf)))
			return -1;
		fl->text = xstrdup(buf);
	}
	return 0;
}

static int read_filters(const char *dir, struct st_scheme *s)
{
	char *sub = xasprintf("%s/filters", dir), **names, *p;
	size_t nr, i;
	int r = list_dirs_created(sub, &names, &nr);

	if (r) {
		damo_err("listing %s: %s", sub, strerror(-r));
		free(sub);
		return -1;
	}
	s->filters = xcalloc(nr, sizeof(*s->filters));
	for (i = 0; i < nr && !r; i++) {
		s->filters[i].name = xstrdup(names[i]);
		s->nr_filters++;
		p = xasprintf("%s/%s", sub, names[i]);
		r = read_filter(p, &s->filters[i]);
		free(p);
	}
	free_names(names, nr);
	free(sub);
	return r;
}

/* A goal's metric and values, and the node and cgroup its metric uses. */
static int read_goal(const char *dir, struct st_goal *g)
{
	char buf[CFS_ATTR_MAX];

	if (read_value(dir, "target_metric", g->metric) ||
	    read_value(dir, "target_value", g->target) ||
	    read_value(dir, "current_value", g->current))
		return -1;
	if (conf_goal_metric_per_node(g->metric) &&
	    read_value(dir, "nid", g->nid))
		return -1;
	if (conf_goal_metric_per_memcg(g->metric)) {
		if (get_attr(dir, "memcg_path", buf, sizeof(buf)))
			return -1;
		g->memcg_path = xstrdup(buf);
	}
	return 0;
}

/* The goals of quotas/goals/ (none where older kernels lack it). */
static int read_goals(const char *quotas, struct st_scheme *s)
{
	char *sub = xasprintf("%s/goals", quotas), **names, *p;
	size_t nr, i;
	int r;

	if (access(sub, F_OK) && errno == ENOENT) {
		free(sub);
		return 0;
	}
	r = list_dirs_created(sub, &names, &nr);
	if (r) {
		damo_err("listing %s: %s", sub, strerror(-r));
		free(sub);
		return -1;
	}
	s->goals = xcalloc(nr, sizeof(*s->goals));
	for (i = 0; i < nr && !r; i++) {
		s->goals[i].name = xstrdup(names[i]);
		s->nr_goals++;
		p = xasprintf("%s/%s", sub, names[i]);
		r = read_goal(p, &s->goals[i]);
		free(p);
	}
	free_names(names, nr);
	free(sub);
	return r;
}

static int read_scheme(const char *dir, struct st_scheme *s)
{
	char *stats = xasprintf("%s/stats", dir);
	char *quotas = xasprintf("%s/quotas", dir);
	int r = -1;

	/* target_nid only where it matters: older kernels lack it */
	if (!read_files(dir, scheme_files, s->v) &&
	    (!conf_action_migrates(s->v[S_ACTION]) ||
	     !read_value(dir, "target_nid", s->target_nid)) &&
	    !read_files(stats, stats_files, s->stats) &&
	    !read_files(quotas, quota_files, s->quotas) &&
	    !read_goals(quotas, s) && !read_filters(dir, s))
		r = 0;
	free(stats);
	free(quotas);
	return r;
}

/* intervals_goal/, where the kernel has it. */
static int read_intervals_goal(const char *dir, struct st_context *c)
{
	char *p = xasprintf("%s/intervals_goal", dir);
	int r = 0;

	if (!access(p, F_OK) || errno != ENOENT) {
		c->has_intervals_goal = true;
		r = read_files(p, intervals_files, c->intervals_goal);
	}
	free(p);
	return r;
}

/* A number read_value() checked. */
static uint64_t num(const char *v)
{
	uint64_t n = 0;

	parse_u64(v, &n);
	return n;
}

/* A running context: what its targets' snapshots say together. */
static void context_stats(struct st_context *c)
{
	struct snap_region *all = NULL;
	size_t nr = 0, k;

	if (strcmp(c->v[C_STATE], "on"))
		return;
	for (k = 0; k < c->nr_targets; k++) {
		const struct st_target *t = &c->targets[k];

		if (!t->nr_regions)
			continue;
		all = xrealloc(all, (nr + t->nr_regions) * sizeof(*all));
		memcpy(all + nr, t->regions, t->nr_regions * sizeof(*all));
		nr += t->nr_regions;
	}
	c->has_stats = !access_stats(all, nr, num(c->v[C_SAMPLE_US]),
				     num(c->v[C_AGGR_US]), &c->stats);
	free(all);
}

static int read_context(const char *dir, struct st_context *c)
{
	char **names, *p;
	size_t nr, i;
	int r = 0;

	if (read_files(dir, context_files, c->v) ||
	    read_intervals_goal(dir, c))
		return -1;
	if (list_sorted(dir, "targets", &names, &nr))
		return -1;
	c->targets = xcalloc(nr, sizeof(*c->targets));
	for (i = 0; i < nr && !r; i++) {
		c->targets[i].name = xstrdup(names[i]);
		c->nr_targets++;
		p = xasprintf("%s/targets/%s", dir, names[i]);
		r = read_target(p, &c->targets[i]);
		free(p);
	}
	free_names(names, nr);
	if (r || list_sorted(dir, "schemes", &names, &nr))
		return -1;
	context_stats(c);
	c->schemes = xcalloc(nr, sizeof(*c->schemes));
	for (i = 0; i < nr && !r; i++) {
		c->schemes[i].name = xstrdup(names[i]);
		c->nr_schemes++;
		p = xasprintf("%s/schemes/%s", dir, names[i]);
		r = read_scheme(p, &c->schemes[i]);
		free(p);
	}
	free_names(names, nr);
	return r;
}

static void free_scheme(struct st_scheme *s)
{
	size_t i;

	for (i = 0; i < s->nr_goals; i++) {
		free(s->goals[i].name);
		free(s->goals[i].memcg_path);
	}
	free(s->goals);
	for (i = 0; i < s->nr_filters; i++) {
		free(s->filters[i].name);
		free(s->filters[i].text);
	}
	free(s->filters);
	free(s->name);
}

static void free_contexts(struct st_context *c, size_t nr)
{
	size_t i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < c[i].nr_targets; k++) {
			free(c[i].targets[k].name);
			free(c[i].targets[k].regions);
		}
		for (k = 0; k < c[i].nr_schemes; k++)
			free_scheme(&c[i].schemes[k]);
		free(c[i].targets);
		free(c[i].schemes);
		free(c[i].name);
	}
	free(c);
}

/* Every context under the root; 0, or -1 said. */
static int read_tree(struct st_context **cp, size_t *nrp)
{
	struct st_context *c;
	char **names, *p;
	size_t nr, i;
	int r = 0;

	if (list_sorted(cfs_root(), "contexts", &names, &nr))
		return -1;
	c = xcalloc(nr, sizeof(*c));
	*nrp = 0;
	for (i = 0; i < nr && !r; i++) {
		c[i].name = xstrdup(names[i]);
		(*nrp)++;
		p = xasprintf("%s/contexts/%s", cfs_root(), names[i]);
		r = read_context(p, &c[i]);
		free(p);
	}
	free_names(names, nr);
	*cp = c;
	return r;
}

/* ------------------------------------------------------------ estimates */

/* a * b, or UINT64_MAX if it does not fit */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* A region's bytes and how long they have been idle. */
struct idle_span {
	uint64_t us;
	uint64_t bytes;
};

static int idle_cmp(const void *a, const void *b)
{
	const struct idle_span *x = a, *y = b;

	return x->us < y->us ? -1 : x->us > y->us;
}

/* ceil(total * p / 100) without overflow, for p in 0..100 */
static uint64_t share_of(uint64_t total, unsigned int p)
{
	return total / 100 * p + (total % 100 * p + 99) / 100;
}

int access_stats(const struct snap_region *r, size_t nr, uint64_t sample_us,
		 uint64_t aggr_us, struct access_stats *st)
{
	/* the most samples an aggregation has: nr_accesses' full scale */
	uint64_t max_nr = sample_us && aggr_us >= sample_us ?
		aggr_us / sample_us : 1;
	struct idle_span *spans = xcalloc(nr ? nr : 1, sizeof(*spans));
	uint64_t total = 0, cum = 0, bytes, acc;
	long double touched = 0, bw;
	size_t i, n = 0;
	unsigned int p = 0;

	for (i = 0; i < nr; i++) {
		bytes = r[i].end - r[i].start;
		if (!bytes)
			continue;
		acc = r[i].nr_accesses < max_nr ? r[i].nr_accesses : max_nr;
		touched += (long double)bytes * acc;
		spans[n].bytes = bytes;
		spans[n].us = acc ? 0 : mul_sat(r[i].age, aggr_us);
		total = total > UINT64_MAX - bytes ? UINT64_MAX : total + bytes;
		n++;
	}
	if (!n || !aggr_us) {
		free(spans);
		return -1;
	}
	/* per aggregation, then per second; rounded to the nearest byte */
	bw = touched / max_nr * USEC_PER_SEC / aggr_us;
	st->bandwidth = bw >= 0x1p64L ? UINT64_MAX : (uint64_t)(bw + 0.5L);
	qsort(spans, n, sizeof(*spans), idle_cmp);
	for (i = 0; i < n && p < NR_IDLE_PERCENTILES; i++) {
		cum = cum > UINT64_MAX - spans[i].bytes ? UINT64_MAX :
			cum + spans[i].bytes;
		while (p < NR_IDLE_PERCENTILES &&
		       share_of(total, p * IDLE_PERCENTILE_STEP) <= cum)
			st->idle_us[p++] = spans[i].us;
	}
	/* (only if the sums saturated) */
	for (; p < NR_IDLE_PERCENTILES; p++)
		st->idle_us[p] = spans[n - 1].us;
	free(spans);
	return 0;
}

/* ------------------------------------------------------------ text */

#define USEC_PER_MSEC		1000ULL

/*
 * A size or a time in units (fmt_fig()); with --raw-numbers the plain
 * integer, still followed by its unit: the text names no unit elsewhere.
 */
static void put_fig(FILE *f, uint64_t v, enum fig_kind k, bool raw)
{
	char buf[FIG_LEN];

	fputs(fmt_fig(buf, v, k, raw), f);
	if (raw)
		fputs(k == FIG_BYTES ? " B" : " us", f);
}

/* ms (quotas' unit) in us, saturated rather than wrapped */
static uint64_t ms_to_us(uint64_t ms)
{
	return ms > UINT64_MAX / USEC_PER_MSEC ? UINT64_MAX :
		ms * USEC_PER_MSEC;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void put_scheme_text(FILE *f, const struct st_scheme *s, bool raw)
{
	uint64_t apply = num(s->v[S_APPLY_US]);
	uint64_t qms = num(s->quotas[Q_MS]), qbytes = num(s->quotas[Q_BYTES]);
	uint64_t n;

	fprintf(f, "  scheme %s: %s", s->name, s->v[S_ACTION]);
	if (conf_action_migrates(s->v[S_ACTION]) &&
	    !strcmp(s->target_nid, "-1"))
		fputs(" to no node", f);
	else if (conf_action_migrates(s->v[S_ACTION]))
		fprintf(f, " to node %s", s->target_nid);
	fputs(", ", f);
	if (apply) {
		fputs("every ", f);
		put_fig(f, apply, FIG_US, raw);
	} else {
		fputs("every aggregation", f);
	}
	n = num(s->stats[ST_NR_TRIED]);
	fprintf(f, "\n    tried %llu region%s (", (unsigned long long)n,
		plural(n));
	put_fig(f, num(s->stats[ST_SZ_TRIED]), FIG_BYTES, raw);
	n = num(s->stats[ST_NR_APPLIED]);
	fprintf(f, "), applied %llu region%s (", (unsigned long long)n,
		plural(n));
	put_fig(f, num(s->stats[ST_SZ_APPLIED]), FIG_BYTES, raw);
	fputs(")\n    quota: ", f);
	if (!qms && !qbytes && !s->nr_goals) {
		fputs("none\n", f);
		return;
	}
	if (qbytes)
		put_fig(f, qbytes, FIG_BYTES, raw);
	if (qbytes && qms)
		fputs(" and ", f);
	if (qms)
		put_fig(f, ms_to_us(qms), FIG_US, raw);
	if (!qms && !qbytes)
		fprintf(f, "set by %zu goal%s", s->nr_goals,
			plural(s->nr_goals));
	fputs(" per ", f);
	put_fig(f, ms_to_us(num(s->quotas[Q_RESET_MS])), FIG_US, raw);
	if ((qms || qbytes) && s->nr_goals)
		fprintf(f, ", set by %zu goal%s below that", s->nr_goals,
			plural(s->nr_goals));
	fputs(", effective ", f);
	if (num(s->quotas[Q_EFFECTIVE]))
		put_fig(f, num(s->quotas[Q_EFFECTIVE]), FIG_BYTES, raw);
	else
		fputs("no limit yet", f);
	n = num(s->stats[ST_QT_EXCEEDS]);
	fprintf(f, ", exceeded %llu time%s\n", (unsigned long long)n,
		plural(n));
}

/* The metrics in basis points (per 10,000) end so. */
#define BP_SUFFIX		"_bp"
#define BP_PER_PERCENT		100ULL
/* some_mem_psi_us is in microseconds (per reset interval) */
#define PSI_METRIC		"some_mem_psi_us"

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return l >= n && !strcmp(s + l - n, suffix);
}

/*
 * A goal's value in its metric's unit: basis points as a percentage
 * ("18.34 %"; raw: "1834 bp"), the PSI metric as a time, user_input as
 * the plain number.
 */
static void put_goal_value(FILE *f, const char *metric, uint64_t v, bool raw)
{
	uint64_t frac = v % BP_PER_PERCENT;

	if (!strcmp(metric, PSI_METRIC)) {
		put_fig(f, v, FIG_US, raw);
	} else if (!ends_with(metric, BP_SUFFIX)) {
		fprintf(f, "%llu", (unsigned long long)v);
	} else if (raw) {
		fprintf(f, "%llu bp", (unsigned long long)v);
	} else {
		fprintf(f, "%llu", (unsigned long long)(v / BP_PER_PERCENT));
		if (frac % 10)
			fprintf(f, ".%02llu", (unsigned long long)frac);
		else if (frac)
			fprintf(f, ".%llu", (unsigned long long)frac / 10);
		fputs(" %", f);
	}
}

/* A goal: its metric (of which node and cgroup), where it is, its aim. */
static void put_goal_text(FILE *f, const struct st_goal *g, bool raw)
{
	fprintf(f, "    goal %s: %s", g->name, g->metric);
	if (*g->nid)
		fprintf(f, " on node %s", g->nid);
	if (g->memcg_path && *g->memcg_path)
		fprintf(f, " of %s", g->memcg_path);
	else if (g->memcg_path)
		fputs(" (no memcg_path)", f);
	fputs(", current ", f);
	put_goal_value(f, g->metric, num(g->current), raw);
	fputs(", target ", f);
	put_goal_value(f, g->metric, num(g->target), raw);
	fputc('\n', f);
}

/* What a filter keeps out of the scheme's action. */
static void put_filter_text(FILE *f, const struct st_filter *fl)
{
	fprintf(f, "    filter %s: excludes %s%s", fl->name,
		strcmp(fl->matching, "Y") ? "all but " : "", fl->type);
	if (!strcmp(fl->type, "addr"))
		fprintf(f, " [%s, %s)", fl->addr_start, fl->addr_end);
	else if (fl->text && *fl->text)
		fprintf(f, " %s", fl->text);
	else if (fl->text)
		fprintf(f, " (no %s)", filter_text_file(fl->type));
	fputc('\n', f);
}

/* Tuning, when it is on: the share of accesses aimed at, how often, and
 * the bounds of sample_us. */
static void put_intervals_goal_text(FILE *f, const struct st_context *c,
				    bool raw)
{
	uint64_t aggrs;

	if (!c->has_intervals_goal || !num(c->intervals_goal[I_ACCESS_BP]))
		return;
	aggrs = num(c->intervals_goal[I_AGGRS]);
	fputs("  intervals goal: ", f);
	put_goal_value(f, "access" BP_SUFFIX,
		       num(c->intervals_goal[I_ACCESS_BP]), raw);
	fprintf(f, " of the observable accesses, checked every %llu aggregation%s; sample ",
		(unsigned long long)aggrs, plural(aggrs));
	put_fig(f, num(c->intervals_goal[I_MIN_SAMPLE_US]), FIG_US, raw);
	fputs("..", f);
	put_fig(f, num(c->intervals_goal[I_MAX_SAMPLE_US]), FIG_US, raw);
	fputc('\n', f);
}

/* A running context's estimated bandwidth and idle time percentiles. */
static void put_stats_text(FILE *f, const struct st_context *c, bool raw)
{
	size_t i;

	if (!c->has_stats)
		return;
	fputs("  estimated memory bandwidth: ", f);
	put_fig(f, c->stats.bandwidth, FIG_BYTES, raw);
	fputs("/s\n  memory idle time:", f);
	for (i = 0; i < NR_IDLE_PERCENTILES; i++) {
		fprintf(f, "%s p%zu ", i ? "," : "", i * IDLE_PERCENTILE_STEP);
		put_fig(f, c->stats.idle_us[i], FIG_US, raw);
	}
	fputc('\n', f);
}

static void put_context_text(FILE *f, const struct st_context *c, bool raw)
{
	uint64_t n = num(c->v[C_NR_AGGREGATIONS]);
	size_t k;

	fprintf(f, "context %s: %s, ", c->name, c->v[C_STATE]);
	if (!strcmp(c->v[C_KDAMOND_PID], "-1"))
		fputs("no kdamond", f);
	else if (!strcmp(c->v[C_KDAMOND_PID], "0"))
		fputs("kdamond in another pid namespace", f);
	else
		fprintf(f, "kdamond pid %s", c->v[C_KDAMOND_PID]);
	fprintf(f, ", %s, %llu aggregation%s\n", c->v[C_OPERATIONS],
		(unsigned long long)n, plural(n));
	fputs("  intervals: sample ", f);
	put_fig(f, num(c->v[C_SAMPLE_US]), FIG_US, raw);
	fputs(", aggr ", f);
	put_fig(f, num(c->v[C_AGGR_US]), FIG_US, raw);
	fputs(", update ", f);
	put_fig(f, num(c->v[C_UPDATE_US]), FIG_US, raw);
	fprintf(f, "; %s..%s regions\n", c->v[C_MIN_NR_REGIONS],
		c->v[C_MAX_NR_REGIONS]);
	put_intervals_goal_text(f, c, raw);
	if (!c->nr_targets)
		fputs("  no targets\n", f);
	for (k = 0; k < c->nr_targets; k++) {
		const struct st_target *t = &c->targets[k];

		fprintf(f, "  target %s: ", t->name);
		if (!strcmp(t->pid, "-1"))
			fputs("no pid", f);
		else
			fprintf(f, "pid %s", t->pid);
		fprintf(f, ", %llu region%s\n",
			(unsigned long long)t->nr_regions,
			plural(t->nr_regions));
	}
	put_stats_text(f, c, raw);
	if (!c->nr_schemes)
		fputs("  no schemes\n", f);
	for (k = 0; k < c->nr_schemes; k++) {
		const struct st_scheme *s = &c->schemes[k];
		size_t i;

		put_scheme_text(f, s, raw);
		for (i = 0; i < s->nr_goals; i++)
			put_goal_text(f, &s->goals[i], raw);
		for (i = 0; i < s->nr_filters; i++)
			put_filter_text(f, &s->filters[i]);
	}
}

/* ------------------------------------------------------------ JSON */

/* "key": a number, or null for -1 or NULL */
static void put_json_num(FILE *f, const char *key, const char *v, bool last)
{
	fprintf(f, "\"%s\": %s%s", key, v && strcmp(v, "-1") ? v : "null",
		last ? "" : ", ");
}

/* "key": a string, or null for NULL */
static void put_json_str(FILE *f, const char *key, const char *v, bool last)
{
	json_put_key(f, key);
	if (v)
		json_put_str(f, v);
	else
		fputs("null", f);
	if (!last)
		fputs(", ", f);
}

/* A filter; the files its type does not use are null. */
static void put_filter_json(FILE *f, const struct st_filter *fl)
{
	bool addr = !strcmp(fl->type, "addr");

	fputs("{\"name\": ", f);
	json_put_str(f, fl->name);
	fputs(", ", f);
	put_json_str(f, "type", fl->type, false);
	put_json_str(f, "matching", fl->matching, false);
	put_json_num(f, "addr_start", addr ? fl->addr_start : NULL, false);
	put_json_num(f, "addr_end", addr ? fl->addr_end : NULL, false);
	put_json_str(f, "target", strcmp(fl->type, "target") ? NULL : fl->text,
		     false);
	put_json_str(f, "memcg_path",
		     strcmp(fl->type, "memcg") ? NULL : fl->text, true);
	fputc('}', f);
}

/* A goal; nid and memcg_path are null where its metric does not use them. */
static void put_goal_json(FILE *f, const struct st_goal *g)
{
	fputs("{\"name\": ", f);
	json_put_str(f, g->name);
	fputs(", ", f);
	put_json_str(f, "target_metric", g->metric, false);
	put_json_num(f, "target_value", g->target, false);
	put_json_num(f, "current_value", g->current, false);
	put_json_num(f, "nid", *g->nid ? g->nid : NULL, false);
	put_json_str(f, "memcg_path", g->memcg_path, true);
	fputc('}', f);
}

/* "key": {the files of names[]}; open: without the closing brace. */
static void put_json_group(FILE *f, const char *key,
			   const char *const *names,
			   const char (*v)[ST_VALUE_MAX], bool open)
{
	size_t i;

	fprintf(f, "\"%s\": {", key);
	for (i = 0; names[i]; i++)
		put_json_num(f, names[i], v[i], !names[i + 1]);
	if (!open)
		fputc('}', f);
}

/* The estimated bandwidth and idle time percentiles, or nulls. */
static void put_stats_json(FILE *f, const struct st_context *c)
{
	size_t i;

	if (!c->has_stats) {
		fputs("\"estimated_memory_bandwidth\": null, \"memory_idle_us_percentiles\": null",
		      f);
		return;
	}
	fprintf(f, "\"estimated_memory_bandwidth\": %llu,\n     \"memory_idle_us_percentiles\": {",
		(unsigned long long)c->stats.bandwidth);
	for (i = 0; i < NR_IDLE_PERCENTILES; i++)
		fprintf(f, "%s\"p%zu\": %llu", i ? ", " : "",
			i * IDLE_PERCENTILE_STEP,
			(unsigned long long)c->stats.idle_us[i]);
	fputc('}', f);
}

static void put_context_json(FILE *f, const struct st_context *c)
{
	size_t k, i;

	fputs("    {\"name\": ", f);
	json_put_str(f, c->name);
	fputs(", \"state\": ", f);
	json_put_str(f, c->v[C_STATE]);
	fputs(", ", f);
	put_json_num(f, "kdamond_pid", c->v[C_KDAMOND_PID], false);
	fputs("\"operations\": ", f);
	json_put_str(f, c->v[C_OPERATIONS]);
	fputs(",\n     ", f);
	put_json_num(f, "nr_aggregations", c->v[C_NR_AGGREGATIONS], false);
	put_json_num(f, "sample_us", c->v[C_SAMPLE_US], false);
	put_json_num(f, "aggr_us", c->v[C_AGGR_US], false);
	put_json_num(f, "update_us", c->v[C_UPDATE_US], false);
	put_json_num(f, "min_nr_regions", c->v[C_MIN_NR_REGIONS], false);
	put_json_num(f, "max_nr_regions", c->v[C_MAX_NR_REGIONS], true);
	fputs(",\n     ", f);
	if (c->has_intervals_goal)
		put_json_group(f, "intervals_goal", intervals_files,
			       c->intervals_goal, false);
	else
		fputs("\"intervals_goal\": null", f);
	fputs(",\n     \"targets\": [", f);
	for (k = 0; k < c->nr_targets; k++) {
		fputs(k ? ",\n       {\"name\": " : "\n       {\"name\": ", f);
		json_put_str(f, c->targets[k].name);
		fputs(", ", f);
		put_json_num(f, "pid", c->targets[k].pid, false);
		fprintf(f, "\"nr_regions\": %llu}",
			(unsigned long long)c->targets[k].nr_regions);
	}
	fputs("],\n     ", f);
	put_stats_json(f, c);
	fputs(",\n     \"schemes\": [", f);
	for (k = 0; k < c->nr_schemes; k++) {
		const struct st_scheme *s = &c->schemes[k];

		fputs(k ? ",\n       {\"name\": " : "\n       {\"name\": ", f);
		json_put_str(f, s->name);
		fputs(", \"action\": ", f);
		json_put_str(f, s->v[S_ACTION]);
		fputs(", ", f);
		put_json_num(f, "apply_interval_us", s->v[S_APPLY_US], false);
		put_json_num(f, "target_nid",
			     conf_action_migrates(s->v[S_ACTION]) ?
			     s->target_nid : NULL, true);
		fputs(",\n        ", f);
		put_json_group(f, "stats", stats_files, s->stats, false);
		fputs(",\n        ", f);
		put_json_group(f, "quotas", quota_files, s->quotas, true);
		fputs(",\n         \"goals\": [", f);
		for (i = 0; i < s->nr_goals; i++) {
			fputs(i ? ",\n           " : "\n           ", f);
			put_goal_json(f, &s->goals[i]);
		}
		fputs("]},\n        \"filters\": [", f);
		for (i = 0; i < s->nr_filters; i++) {
			fputs(i ? ",\n          " : "\n          ", f);
			put_filter_json(f, &s->filters[i]);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/* ------------------------------------------------------------ the command */

static const char status_usage[] =
"usage: damo status [--json] [--raw-numbers]\n"
"\n"
"Show every DAMON context of " DAMO_CONFIGFS " ($DAMO_CONFIGFS):\n"
"its state, kdamond, intervals (and their tuning goal, if on), targets\n"
"with their number of regions (in the latest snapshot), for a running\n"
"context what its latest snapshots estimate (the memory bandwidth, bytes\n"
"touched per second, and percentiles of how long its memory has been\n"
"idle), and schemes with their statistics, quota (with its goals: metric,\n"
"current value and target) and filters.\n"
"\n"
"      --json           the same as JSON (schema: man damo)\n"
"      --raw-numbers    sizes in bytes and times in us as plain integers\n"
"                       (\"50331648 B\", not \"48 MiB\"; goals in basis\n"
"                       points, \"1834 bp\", not \"18.34 %\"), for scripts\n";

int cmd_status(int argc, char **argv)
{
	bool json = false, raw = false;
	const struct damo_opt opts[] = {
		OPT_SET(0, "json", &json),
		OPT_SET(0, "raw-numbers", &raw),
		OPT_HELP(),
		OPT_END(),
	};
	struct st_context *c = NULL;
	size_t nr = 0, i, len;
	char *text = NULL;
	FILE *f;
	int r;

	r = opts_parse(argc, argv, opts, status_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (optind < argc) {
		damo_err("status takes no arguments");
		return 1;
	}
	if (cfs_check())
		return 1;
	r = read_tree(&c, &nr);
	if (r) {
		free_contexts(c, nr);
		return 1;
	}
	/* the whole text, then out at once */
	f = open_memstream(&text, &len);
	if (!f) {
		damo_err("out of memory");
		free_contexts(c, nr);
		return 1;
	}
	if (json)
		fputs("{\"contexts\": [", f);
	else if (!nr)
		fprintf(f, "no contexts in %s/contexts\n", cfs_root());
	for (i = 0; i < nr; i++) {
		if (json) {
			fputs(i ? ",\n" : "\n", f);
			put_context_json(f, &c[i]);
		} else {
			put_context_text(f, &c[i], raw);
		}
	}
	if (json)
		fputs(nr ? "\n]}\n" : "]}\n", f);
	free_contexts(c, nr);
	if (fclose(f)) {
		damo_err("out of memory");
		return 1;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return fflush(stdout) ? 1 : 0;
}
