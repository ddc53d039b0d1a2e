// SPDX-License-Identifier: GPL-2.0
/*
 * The save/restore file: the configfs tree as nested blocks.
 *
 *	context NAME {
 *		sample_us 5000
 *		intervals_goal { access_bp 400 ... }	(one item a line)
 *		target NAME {
 *			pid 1234	(or: command CMDLINE, or: unit NAME)
 *			region NAME { start N  end N }	(one per line)
 *		}
 *		scheme NAME {
 *			action pageout
 *			access_pattern { ... }
 *			quotas { ...  goal NAME { ... } }
 *			filter NAME { ... }
 *		}
 *		state on
 *	}
 *
 * One item per line: "KEY VALUE", "KIND [NAME] {" or "}".  Lines starting
 * with '#' are comments.  Documentation/admin-guide.md describes it.
 * confjson.c reads and writes the same tree as JSON.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
static const char *const intervals_attrs[] = {
	"access_bp", "aggrs", "min_sample_us", "max_sample_us", NULL,
};
static const char *const target_attrs[] = { "pid", "command", "unit", NULL };
static const char *const region_attrs[] = { "start", "end", NULL };
static const char *const scheme_attrs[] = {
	"action", "apply_interval_us", "target_nid", NULL,
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
	"type", "matching", "addr_start", "addr_end", "target", "memcg_path",
	NULL,
};
static const char *const goal_attrs[] = {
	"target_metric", "target_value", "current_value", "nid", "memcg_path",
	NULL,
};
static const char *const no_attrs[] = { NULL };

static const struct kind_info kinds[NR_CONF_KINDS] = {
	[CK_ROOT] = { "", "", false, no_attrs },
	[CK_CONTEXT] = { "context", "contexts", true, ctx_attrs },
	[CK_INTERVALS] = { "intervals_goal", "intervals_goal", false,
			   intervals_attrs },
	[CK_TARGET] = { "target", "targets", true, target_attrs },
	[CK_REGION] = { "region", "regions", true, region_attrs },
	[CK_SCHEME] = { "scheme", "schemes", true, scheme_attrs },
	[CK_PATTERN] = { "access_pattern", "access_pattern", false,
			 pattern_attrs },
	[CK_QUOTAS] = { "quotas", "quotas", false, quotas_attrs },
	[CK_WMARKS] = { "watermarks", "watermarks", false, wmarks_attrs },
	[CK_FILTER] = { "filter", "filters", true, filter_attrs },
	[CK_GOAL] = { "goal", "goals", true, goal_attrs },
};

/*
 * Files that older kernels lack (those before migrate_hot/migrate_cold and
 * the memcg filter), with the value that leaves each unused; and a goal's
 * memcg_path, which only the memcg metrics use: save leaves it out unused
 * too.  (Older kernels lack quotas/goals/ as a whole: save.c.)
 */
static const struct {
	enum conf_kind kind;
	const char *key;
	const char *unused;
} optional_attrs[] = {
	{ CK_SCHEME, "target_nid", "-1" },
	{ CK_FILTER, "memcg_path", "" },
	{ CK_GOAL, "memcg_path", "" },
};

const char *conf_attr_unused(enum conf_kind k, const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(optional_attrs); i++)
		if (optional_attrs[i].kind == k &&
		    !strcmp(optional_attrs[i].key, key))
			return optional_attrs[i].unused;
	return NULL;
}

/* Which kinds may appear inside which. */
static bool child_allowed(enum conf_kind parent, enum conf_kind child)
{
	switch (parent) {
	case CK_ROOT:
		return child == CK_CONTEXT;
	case CK_CONTEXT:
		return child == CK_INTERVALS || child == CK_TARGET ||
			child == CK_SCHEME;
	case CK_TARGET:
		return child == CK_REGION;
	case CK_SCHEME:
		return child == CK_PATTERN || child == CK_QUOTAS ||
			child == CK_WMARKS || child == CK_FILTER;
	case CK_QUOTAS:
		return child == CK_GOAL;
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

bool conf_kind_named(enum conf_kind k)
{
	return kinds[k].named;
}

const struct conf_node *conf_find_child(const struct conf_node *n,
					enum conf_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < n->nr_children; i++)
		if (n->children[i]->kind == k &&
		    (!name || !strcmp(n->children[i]->name, name)))
			return n->children[i];
	return NULL;
}

bool conf_child_allowed(enum conf_kind parent, enum conf_kind child)
{
	return child_allowed(parent, child);
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

bool conf_is_attr(enum conf_kind k, const char *key)
{
	return is_attr_of(k, key);
}

static int kind_of_keyword(const char *kw)
{
	int k;

	for (k = CK_CONTEXT; k < NR_CONF_KINDS; k++)
		if (!strcmp(kinds[k].keyword, kw))
			return k;
	return -1;
}

void conf_seterr(char *err, size_t len, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, CONF_ERR_PREFIX "%d: ", line);
	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
}

bool conf_valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX || s[0] == '.')
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == '{' || *s == '}' || *s == '#' ||
		    *s == ' ' || iscntrl((unsigned char)*s))
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

/* Blocks nest this deep at the most (the file's own go four deep). */
#define MAX_DEPTH 8

struct parser {
	struct conf_node *stack[MAX_DEPTH];	/* the open blocks */
	int depth;
	int lineno;
	char *err;
	size_t errlen;
};

/* "}": the innermost block ends. */
static int parse_close(struct parser *p)
{
	if (!p->depth) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'}' without an open block");
		return -1;
	}
	p->depth--;
	return 0;
}

/* A block's kind and name may stand where they do, and only once. */
static int check_block(struct parser *p, const struct conf_node *n,
		       const char *key, enum conf_kind k, const char *name)
{
	const struct conf_node *c;
	size_t i;

	if (!child_allowed(n->kind, k)) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' cannot be inside %s%s", key,
			    n->kind == CK_ROOT ? "the top level" :
			    kinds[n->kind].keyword,
			    n->kind == CK_ROOT ? "" : " block");
		return -1;
	}
	if (kinds[k].named && !conf_valid_name(name)) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' is not a valid %s name (no spaces, '/', braces or '#'; not starting with '.')",
			    name, key);
		return -1;
	}
	if (!kinds[k].named && *name) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' takes no name", key);
		return -1;
	}
	for (i = 0; i < n->nr_children; i++) {
		c = n->children[i];
		if (c->kind == k && (!kinds[k].named || !strcmp(c->name, name))) {
			conf_seterr(p->err, p->errlen, p->lineno,
				    "%s%s%s is already defined on line %d",
				    key, *name ? " " : "", name, c->line);
			return -1;
		}
	}
	return 0;
}

/* "KIND [NAME] {": a block opens inside the current one. */
static int parse_open(struct parser *p, const char *key, enum conf_kind k,
		      char *rest)
{
	struct conf_node *n = p->stack[p->depth];
	size_t rl = strlen(rest);
	char *name;

	if (!rl || rest[rl - 1] != '{') {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' must open a block: '%s%s{'", key, key,
			    kinds[k].named ? " NAME " : " ");
		return -1;
	}
	rest[rl - 1] = '\0';
	name = trim(rest);
	if (check_block(p, n, key, k, name))
		return -1;
	if (p->depth + 1 >= MAX_DEPTH) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "blocks nested too deep");
		return -1;
	}
	p->stack[++p->depth] = conf_add_child(n, k,
					      kinds[k].named ? name : NULL,
					      p->lineno);
	return 0;
}

/* "KEY VALUE": an attribute of the current block. */
static int parse_attr(struct parser *p, const char *key, const char *value)
{
	struct conf_node *n = p->stack[p->depth];
	const struct conf_attr *a;

	if (n->kind == CK_ROOT) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' outside of any block (expected 'context NAME {')",
			    key);
		return -1;
	}
	if (!is_attr_of(n->kind, key)) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "unknown key '%s' in a %s block", key,
			    kinds[n->kind].keyword);
		return -1;
	}
	a = conf_get_attr(n, key);
	if (a) {
		conf_seterr(p->err, p->errlen, p->lineno,
			    "'%s' is already set on line %d", key, a->line);
		return -1;
	}
	conf_set(n, key, value, p->lineno);
	return 0;
}

/* One line, trimmed, neither empty nor a comment. */
static int parse_line(struct parser *p, char *line)
{
	char *key = line, *rest;
	int k;

	if (!strcmp(line, "}"))
		return parse_close(p);
	rest = line + strcspn(line, " \t");
	if (*rest)
		*rest++ = '\0';
	rest = trim(rest);
	/* a filter's "target" is a key, not a block */
	k = is_attr_of(p->stack[p->depth]->kind, key) ? -1 :
		kind_of_keyword(key);
	if (k >= 0)
		return parse_open(p, key, k, rest);
	return parse_attr(p, key, rest);
}

/* At the end, no block may be open. */
static int check_closed(struct parser *p)
{
	const struct conf_node *n = p->stack[p->depth];

	if (!p->depth)
		return 0;
	conf_seterr(p->err, p->errlen, n->line, "block '%s%s%s' is not closed",
		    kinds[n->kind].keyword, n->name ? " " : "",
		    n->name ? n->name : "");
	return -1;
}

struct conf_node *conf_parse(const char *text, char *err, size_t errlen)
{
	struct parser p = { .err = err, .errlen = errlen };
	struct conf_node *root = conf_new(CK_ROOT, NULL, 0);
	char *copy = xstrdup(text), *line, *next;
	int r = 0;

	p.stack[0] = root;
	for (line = copy; line && !r; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.lineno++;
		line = trim(line);
		if (*line && *line != '#')
			r = parse_line(&p, line);
	}
	if (!r)
		r = check_closed(&p);
	free(copy);
	if (r) {
		conf_free(root);
		return NULL;
	}
	return root;
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
