// SPDX-License-Identifier: GPL-2.0
/*
 * The save/restore file: the configfs tree as nested blocks.
 *
 *	context NAME {
 *		sample_us 5000
 *		target NAME {
 *			pid 1234	(or: command CMDLINE, or: unit NAME)
 *			region NAME { start N  end N }	(one per line)
 *		}
 *		scheme NAME {
 *			action pageout
 *			access_pattern { ... }
 *			filter NAME { ... }
 *		}
 *		state on
 *	}
 *
 * One item per line: "KEY VALUE", "KIND [NAME] {" or "}".  Lines starting
 * with '#' are comments.  Documentation/admin-guide.md describes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damo.h"

struct kind_info {
	const char *keyword;	/* in the file */
	const char *dir;	/* the configfs directory holding these */
	bool named;
	const char *const *attrs;
};

static const char *const ctx_attrs[] = {
	"operations", "sample_us", "aggr_us", "update_us", "min_nr_regions",
	"max_nr_regions", "state", NULL,
};
static const char *const target_attrs[] = { "pid", "command", "unit", NULL };
static const char *const region_attrs[] = { "start", "end", NULL };
static const char *const scheme_attrs[] = {
	"action", "apply_interval_us", NULL,
};
static const char *const pattern_attrs[] = {
	"min_size_bytes", "max_size_bytes", "min_nr_accesses",
	"max_nr_accesses", "min_age", "max_age", NULL,
};
static const char *const quotas_attrs[] = {
	"ms", "bytes", "reset_interval_ms", "weight_size",
	"weight_nr_accesses", "weight_age", NULL,
};
static const char *const wmarks_attrs[] = {
	"metric", "interval_us", "high", "mid", "low", NULL,
};
static const char *const filter_attrs[] = {
	"type", "matching", "addr_start", "addr_end", "target", NULL,
};
static const char *const no_attrs[] = { NULL };

static const struct kind_info kinds[NR_CONF_KINDS] = {
	[CK_ROOT] = { "", "", false, no_attrs },
	[CK_CONTEXT] = { "context", "contexts", true, ctx_attrs },
	[CK_TARGET] = { "target", "targets", true, target_attrs },
	[CK_REGION] = { "region", "regions", true, region_attrs },
	[CK_SCHEME] = { "scheme", "schemes", true, scheme_attrs },
	[CK_PATTERN] = { "access_pattern", "access_pattern", false,
			 pattern_attrs },
	[CK_QUOTAS] = { "quotas", "quotas", false, quotas_attrs },
	[CK_WMARKS] = { "watermarks", "watermarks", false, wmarks_attrs },
	[CK_FILTER] = { "filter", "filters", true, filter_attrs },
};

/* Which kinds may appear inside which. */
static bool child_allowed(enum conf_kind parent, enum conf_kind child)
{
	switch (parent) {
	case CK_ROOT:
		return child == CK_CONTEXT;
	case CK_CONTEXT:
		return child == CK_TARGET || child == CK_SCHEME;
	case CK_TARGET:
		return child == CK_REGION;
	case CK_SCHEME:
		return child == CK_PATTERN || child == CK_QUOTAS ||
			child == CK_WMARKS || child == CK_FILTER;
	default:
		return false;
	}
}

const char *conf_kind_keyword(enum conf_kind k)
{
	return kinds[k].keyword;
}

const char *conf_kind_dir(enum conf_kind k)
{
	return kinds[k].dir;
}

const char *const *conf_kind_attrs(enum conf_kind k)
{
	return kinds[k].attrs;
}

/* ------------------------------------------------------------ the tree */

struct conf_node *conf_new(enum conf_kind kind, const char *name, int line)
{
	struct conf_node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->name = name ? xstrdup(name) : NULL;
	n->line = line;
	return n;
}

void conf_free(struct conf_node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr_attrs; i++) {
		free(n->attrs[i].key);
		free(n->attrs[i].value);
	}
	free(n->attrs);
	for (i = 0; i < n->nr_children; i++)
		conf_free(n->children[i]);
	free(n->children);
	free(n->name);
	free(n);
}

struct conf_node *conf_add_child(struct conf_node *parent,
				 enum conf_kind kind, const char *name,
				 int line)
{
	struct conf_node *c = conf_new(kind, name, line);

	parent->children = xrealloc(parent->children,
				    (parent->nr_children + 1) *
				    sizeof(*parent->children));
	parent->children[parent->nr_children++] = c;
	return c;
}

const struct conf_attr *conf_get_attr(const struct conf_node *n,
				      const char *key)
{
	size_t i;

	for (i = 0; i < n->nr_attrs; i++)
		if (!strcmp(n->attrs[i].key, key))
			return &n->attrs[i];
	return NULL;
}

const char *conf_get(const struct conf_node *n, const char *key)
{
	const struct conf_attr *a = conf_get_attr(n, key);

	return a ? a->value : NULL;
}

void conf_set(struct conf_node *n, const char *key, const char *value,
	      int line)
{
	size_t i;

	for (i = 0; i < n->nr_attrs; i++)
		if (!strcmp(n->attrs[i].key, key)) {
			free(n->attrs[i].value);
			n->attrs[i].value = xstrdup(value);
			n->attrs[i].line = line;
			return;
		}
	n->attrs = xrealloc(n->attrs, (n->nr_attrs + 1) * sizeof(*n->attrs));
	n->attrs[n->nr_attrs].key = xstrdup(key);
	n->attrs[n->nr_attrs].value = xstrdup(value);
	n->attrs[n->nr_attrs].line = line;
	n->nr_attrs++;
}

static bool is_attr_of(enum conf_kind k, const char *key)
{
	const char *const *a;

	for (a = kinds[k].attrs; *a; a++)
		if (!strcmp(*a, key))
			return true;
	return false;
}

static int kind_of_keyword(const char *kw)
{
	int k;

	for (k = CK_CONTEXT; k < NR_CONF_KINDS; k++)
		if (!strcmp(kinds[k].keyword, kw))
			return k;
	return -1;
}

static void seterr(char *err, size_t len, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void seterr(char *err, size_t len, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, "line %d: ", line);
	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
}

/* A directory name: what configfs and the file syntax both allow. */
static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 255 || s[0] == '.')
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == '{' || *s == '}' || *s == '#' ||
		    (unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/* ------------------------------------------------------------ parsing */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

#define MAX_DEPTH 8

struct conf_node *conf_parse(const char *text, char *err, size_t errlen)
{
	struct conf_node *stack[MAX_DEPTH], *root, *n;
	char *copy = xstrdup(text), *line, *next, *key, *rest;
	int depth = 0, lineno = 0, k;
	size_t i;

	root = conf_new(CK_ROOT, NULL, 0);
	stack[0] = root;
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line = trim(line);
		if (!*line || *line == '#')
			continue;
		n = stack[depth];
		if (!strcmp(line, "}")) {
			if (!depth) {
				seterr(err, errlen, lineno, "'}' without an open block");
				goto fail;
			}
			depth--;
			continue;
		}
		key = line;
		rest = line + strcspn(line, " \t");
		if (*rest)
			*rest++ = '\0';
		rest = trim(rest);
		/* a filter's "target" is a key, not a block */
		k = is_attr_of(n->kind, key) ? -1 : kind_of_keyword(key);
		if (k >= 0) {
			size_t rl = strlen(rest);
			char *name;

			if (!rl || rest[rl - 1] != '{') {
				seterr(err, errlen, lineno,
				       "'%s' must open a block: '%s%s{'", key,
				       key, kinds[k].named ? " NAME " : " ");
				goto fail;
			}
			rest[rl - 1] = '\0';
			name = trim(rest);
			if (!child_allowed(n->kind, k)) {
				seterr(err, errlen, lineno,
				       "'%s' cannot be inside %s%s", key,
				       n->kind == CK_ROOT ? "the top level" :
				       kinds[n->kind].keyword,
				       n->kind == CK_ROOT ? "" : " block");
				goto fail;
			}
			if (kinds[k].named && !valid_name(name)) {
				seterr(err, errlen, lineno,
				       "'%s' is not a valid %s name (no spaces, '/', braces or '#'; not starting with '.')",
				       name, key);
				goto fail;
			}
			if (!kinds[k].named && *name) {
				seterr(err, errlen, lineno,
				       "'%s' takes no name", key);
				goto fail;
			}
			for (i = 0; i < n->nr_children; i++) {
				struct conf_node *c = n->children[i];

				if (c->kind == (enum conf_kind)k &&
				    (!kinds[k].named || !strcmp(c->name, name))) {
					seterr(err, errlen, lineno,
					       "%s%s%s is already defined on line %d",
					       key, *name ? " " : "", name,
					       c->line);
					goto fail;
				}
			}
			if (depth + 1 >= MAX_DEPTH) {
				seterr(err, errlen, lineno, "blocks nested too deep");
				goto fail;
			}
			stack[++depth] = conf_add_child(n, k,
							kinds[k].named ? name : NULL,
							lineno);
			continue;
		}
		if (n->kind == CK_ROOT) {
			seterr(err, errlen, lineno,
			       "'%s' outside of any block (expected 'context NAME {')",
			       key);
			goto fail;
		}
		if (!is_attr_of(n->kind, key)) {
			seterr(err, errlen, lineno,
			       "unknown key '%s' in a %s block", key,
			       kinds[n->kind].keyword);
			goto fail;
		}
		if (conf_get_attr(n, key)) {
			seterr(err, errlen, lineno,
			       "'%s' is already set on line %d", key,
			       conf_get_attr(n, key)->line);
			goto fail;
		}
		conf_set(n, key, rest, lineno);
	}
	if (depth) {
		seterr(err, errlen, stack[depth]->line,
		       "block '%s%s%s' is not closed",
		       kinds[stack[depth]->kind].keyword,
		       stack[depth]->name ? " " : "",
		       stack[depth]->name ? stack[depth]->name : "");
		goto fail;
	}
	free(copy);
	return root;
fail:
	free(copy);
	conf_free(root);
	return NULL;
}

/* ------------------------------------------------------------ validation */

enum vtype { V_U64, V_WORD, V_BOOL, V_NAME, V_TEXT };

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
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "stat", NULL,
};
static const char *const metric_words[] = { "none", "free_mem_rate", NULL };
static const char *const ftype_words[] = { "anon", "addr", "target", NULL };

#define U64M	UINT64_MAX
#define U32M	0xffffffffULL

static const struct attr_rule rules[] = {
	{ CK_CONTEXT, "operations", V_WORD, 0, 0, ops_words },
	{ CK_CONTEXT, "sample_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "aggr_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "update_us", V_U64, 1, U64M, NULL },
	{ CK_CONTEXT, "min_nr_regions", V_U64, 3, 100000, NULL },
	{ CK_CONTEXT, "max_nr_regions", V_U64, 3, 100000, NULL },
	{ CK_CONTEXT, "state", V_WORD, 0, 0, state_words },
	{ CK_TARGET, "pid", V_U64, 1, 0x7fffffff, NULL },
	{ CK_TARGET, "command", V_TEXT, 0, 0, NULL },
	{ CK_TARGET, "unit", V_NAME, 0, 0, NULL },
	{ CK_REGION, "start", V_U64, 0, U64M, NULL },
	{ CK_REGION, "end", V_U64, 0, U64M, NULL },
	{ CK_SCHEME, "action", V_WORD, 0, 0, action_words },
	{ CK_SCHEME, "apply_interval_us", V_U64, 0, U64M, NULL },
	{ CK_PATTERN, "min_size_bytes", V_U64, 0, U64M, NULL },
	{ CK_PATTERN, "max_size_bytes", V_U64, 0, U64M, NULL },
	{ CK_PATTERN, "min_nr_accesses", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "max_nr_accesses", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "min_age", V_U64, 0, U32M, NULL },
	{ CK_PATTERN, "max_age", V_U64, 0, U32M, NULL },
	{ CK_QUOTAS, "ms", V_U64, 0, U64M, NULL },
	{ CK_QUOTAS, "bytes", V_U64, 0, U64M, NULL },
	{ CK_QUOTAS, "reset_interval_ms", V_U64, 1, U64M, NULL },
	{ CK_QUOTAS, "weight_size", V_U64, 0, 10000, NULL },
	{ CK_QUOTAS, "weight_nr_accesses", V_U64, 0, 10000, NULL },
	{ CK_QUOTAS, "weight_age", V_U64, 0, 10000, NULL },
	{ CK_WMARKS, "metric", V_WORD, 0, 0, metric_words },
	{ CK_WMARKS, "interval_us", V_U64, 1, U64M, NULL },
	{ CK_WMARKS, "high", V_U64, 0, 1000, NULL },
	{ CK_WMARKS, "mid", V_U64, 0, 1000, NULL },
	{ CK_WMARKS, "low", V_U64, 0, 1000, NULL },
	{ CK_FILTER, "type", V_WORD, 0, 0, ftype_words },
	{ CK_FILTER, "matching", V_BOOL, 0, 0, NULL },
	{ CK_FILTER, "addr_start", V_U64, 0, U64M, NULL },
	{ CK_FILTER, "addr_end", V_U64, 0, U64M, NULL },
	{ CK_FILTER, "target", V_NAME, 0, 0, NULL },
};

static const struct attr_rule *rule_of(enum conf_kind k, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].kind == k && !strcmp(rules[i].key, key))
			return &rules[i];
	return NULL;
}

static int check_attr(const struct conf_node *n, const struct conf_attr *a,
		      char *err, size_t len)
{
	const struct attr_rule *r = rule_of(n->kind, a->key);
	const char *const *w;
	uint64_t v;
	int e;

	if (!r) {
		seterr(err, len, a->line, "unknown key '%s'", a->key);
		return -1;
	}
	switch (r->type) {
	case V_U64:
		e = parse_u64(a->value, &v);
		if (e == -EINVAL) {
			seterr(err, len, a->line,
			       "%s: '%s' is not a decimal number", a->key,
			       a->value);
			return -1;
		}
		if (e || v < r->min || v > r->max) {
			seterr(err, len, a->line,
			       "%s: %s is out of range %llu..%llu", a->key,
			       a->value, (unsigned long long)r->min,
			       (unsigned long long)r->max);
			return -1;
		}
		return 0;
	case V_WORD:
		for (w = r->words; *w; w++)
			if (!strcmp(*w, a->value))
				return 0;
		seterr(err, len, a->line, "%s: '%s' is not one of", a->key,
		       a->value);
		for (w = r->words; *w; w++) {
			size_t l = strlen(err);

			snprintf(err + l, len - l, " %s", *w);
		}
		return -1;
	case V_BOOL:
		if (!strcmp(a->value, "Y") || !strcmp(a->value, "N") ||
		    !strcmp(a->value, "y") || !strcmp(a->value, "n") ||
		    !strcmp(a->value, "1") || !strcmp(a->value, "0") ||
		    !strcmp(a->value, "on") || !strcmp(a->value, "off"))
			return 0;
		seterr(err, len, a->line, "%s: '%s' is not Y or N", a->key,
		       a->value);
		return -1;
	case V_NAME:
		/* a filter's target may be empty (the default) */
		if ((!*a->value && n->kind == CK_FILTER) || valid_name(a->value))
			return 0;
		seterr(err, len, a->line, "%s: '%s' is not a valid name",
		       a->key, a->value);
		return -1;
	case V_TEXT:
		if (*a->value)
			return 0;
		seterr(err, len, a->line, "%s: empty", a->key);
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

static const struct conf_node *find_child(const struct conf_node *n,
					  enum conf_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < n->nr_children; i++)
		if (n->children[i]->kind == k &&
		    (!name || !strcmp(n->children[i]->name, name)))
			return n->children[i];
	return NULL;
}

static int region_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* What the kernel checks at "on": only for contexts that are to be on. */
static int check_relations(const struct conf_node *c, char *err, size_t len)
{
	uint64_t s = num(c, "sample_us", 5000), a = num(c, "aggr_us", 100000);
	uint64_t u = num(c, "update_us", 1000000);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const char *ops = conf_get(c, "operations");
	size_t i, j, nr_targets = 0;

	if (s > a || a > u) {
		seterr(err, len, line_of(c, "aggr_us"),
		       "context %s: needs sample_us (%llu) <= aggr_us (%llu) <= update_us (%llu)",
		       c->name, (unsigned long long)s, (unsigned long long)a,
		       (unsigned long long)u);
		return -1;
	}
	if (a / s >= (1ULL << 32)) {
		seterr(err, len, line_of(c, "aggr_us"),
		       "context %s: aggr_us / sample_us must be below 2^32",
		       c->name);
		return -1;
	}
	if (num(c, "min_nr_regions", 10) > num(c, "max_nr_regions", 1000)) {
		seterr(err, len, line_of(c, "min_nr_regions"),
		       "context %s: needs min_nr_regions <= max_nr_regions",
		       c->name);
		return -1;
	}
	for (i = 0; i < c->nr_children; i++) {
		const struct conf_node *t = c->children[i];
		uint64_t (*rg)[2];
		size_t nr = 0;

		if (t->kind != CK_TARGET)
			continue;
		nr_targets++;
		if (!conf_get(t, "pid") && !conf_get(t, "command") &&
		    !conf_get(t, "unit")) {
			seterr(err, len, t->line,
			       "target %s: needs a pid, command or unit to be on",
			       t->name);
			return -1;
		}
		rg = xcalloc(t->nr_children + 1, sizeof(*rg));
		for (j = 0; j < t->nr_children; j++) {
			const struct conf_node *r = t->children[j];
			uint64_t rs = num(r, "start", 0), re = num(r, "end", 0);

			if (rs >= re) {
				seterr(err, len, r->line,
				       "region %s: start (%llu) must be below end (%llu)",
				       r->name, (unsigned long long)rs,
				       (unsigned long long)re);
				free(rg);
				return -1;
			}
			rg[nr][0] = rs / page * page;
			rg[nr][1] = re > UINT64_MAX - page + 1 ? UINT64_MAX :
				(re + page - 1) / page * page;
			nr++;
		}
		qsort(rg, nr, sizeof(*rg), region_cmp);
		for (j = 1; j < nr; j++)
			if (rg[j][0] < rg[j - 1][1]) {
				seterr(err, len, t->line,
				       "target %s: regions overlap (once rounded out to pages)",
				       t->name);
				free(rg);
				return -1;
			}
		free(rg);
		if (ops && !strcmp(ops, "fvaddr") && !nr) {
			seterr(err, len, t->line,
			       "target %s: fvaddr needs at least one region",
			       t->name);
			return -1;
		}
	}
	if (!nr_targets) {
		seterr(err, len, line_of(c, "state"),
		       "context %s: needs a target to be on", c->name);
		return -1;
	}
	for (i = 0; i < c->nr_children; i++) {
		const struct conf_node *s = c->children[i], *p, *w;

		if (s->kind != CK_SCHEME)
			continue;
		p = find_child(s, CK_PATTERN, NULL);
		if (p) {
			static const char *const pairs[][2] = {
				{ "min_size_bytes", "max_size_bytes" },
				{ "min_nr_accesses", "max_nr_accesses" },
				{ "min_age", "max_age" },
			};

			for (j = 0; j < 3; j++)
				if (num(p, pairs[j][0], 0) >
				    num(p, pairs[j][1], UINT64_MAX)) {
					seterr(err, len, line_of(p, pairs[j][0]),
					       "scheme %s: %s exceeds %s", s->name,
					       pairs[j][0], pairs[j][1]);
					return -1;
				}
		}
		w = find_child(s, CK_WMARKS, NULL);
		if (w && conf_get(w, "metric") &&
		    strcmp(conf_get(w, "metric"), "none") &&
		    !(num(w, "low", 0) <= num(w, "mid", 0) &&
		      num(w, "mid", 0) <= num(w, "high", 0))) {
			seterr(err, len, line_of(w, "metric"),
			       "scheme %s: watermarks need low <= mid <= high",
			       s->name);
			return -1;
		}
		for (j = 0; j < s->nr_children; j++) {
			const struct conf_node *f = s->children[j];
			const char *type, *tn;

			if (f->kind != CK_FILTER)
				continue;
			type = conf_get(f, "type");
			if (type && !strcmp(type, "addr") &&
			    num(f, "addr_start", 0) >= num(f, "addr_end", 0)) {
				seterr(err, len, f->line,
				       "filter %s: addr needs addr_start < addr_end",
				       f->name);
				return -1;
			}
			tn = conf_get(f, "target");
			if (type && !strcmp(type, "target") &&
			    (!tn || !find_child(c, CK_TARGET, tn))) {
				seterr(err, len, line_of(f, "target"),
				       "filter %s: target '%s' is not a target of context %s",
				       f->name, tn ? tn : "", c->name);
				return -1;
			}
		}
	}
	return 0;
}

static int validate_node(const struct conf_node *n, char *err, size_t len)
{
	size_t i;
	int ids = 0;

	for (i = 0; i < n->nr_attrs; i++)
		if (check_attr(n, &n->attrs[i], err, len))
			return -1;
	if (n->kind == CK_TARGET) {
		ids = !!conf_get(n, "pid") + !!conf_get(n, "command") +
			!!conf_get(n, "unit");
		if (ids > 1) {
			seterr(err, len, n->line,
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

/* ------------------------------------------------------------ printing */

static void indent(FILE *f, int depth)
{
	while (depth-- > 0)
		fputc('\t', f);
}

static void print_attr(FILE *f, const struct conf_node *n, const char *key,
		       int depth)
{
	const char *v = conf_get(n, key);

	if (!v)
		return;
	indent(f, depth);
	if (*v)
		fprintf(f, "%s %s\n", key, v);
	else
		fprintf(f, "%s\n", key);
}

static void print_node(FILE *f, const struct conf_node *n, int depth)
{
	const char *const *a;
	size_t i;

	indent(f, depth);
	if (n->name)
		fprintf(f, "%s %s {\n", kinds[n->kind].keyword, n->name);
	else
		fprintf(f, "%s {\n", kinds[n->kind].keyword);
	for (a = kinds[n->kind].attrs; *a; a++)
		if (n->kind != CK_CONTEXT || strcmp(*a, "state"))
			print_attr(f, n, *a, depth + 1);
	for (i = 0; i < n->nr_children; i++)
		print_node(f, n->children[i], depth + 1);
	if (n->kind == CK_CONTEXT)
		print_attr(f, n, "state", depth + 1);
	indent(f, depth);
	fputs("}\n", f);
}

void conf_print(FILE *f, const struct conf_node *root)
{
	size_t i;

	fputs("# DAMON configfs setup (damo save); restore with `damo restore FILE`.\n", f);
	for (i = 0; i < root->nr_children; i++) {
		fputc('\n', f);
		print_node(f, root->children[i], 0);
	}
}

char *conf_to_string(const struct conf_node *root)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return xstrdup("");
	conf_print(f, root);
	fclose(f);
	return buf;
}
