// SPDX-License-Identifier: GPL-2.0
/*
 * The save/restore file as JSON: what `damo save --json` writes, and what
 * `damo restore` reads when the file starts with '{'.  It is the same tree
 * as the text form (conf.c), so the two convert into each other and
 * restore treats both alike:
 *
 *	{"contexts": [
 *	  {"name": "web", "sample_us": 5000, ...,
 *	   "intervals_goal": {"access_bp": 400, ...},
 *	   "targets": [{"name": "app", "pid": 1234, "regions": [...]}],
 *	   "schemes": [{"name": "s", "action": "stat",
 *	                "access_pattern": {...},
 *	                "quotas": {..., "goals": [...]}, "filters": [...]}],
 *	   "state": "on"}]}
 *
 * A block is an object; its attributes are members named by their key,
 * numbers (validate.c's numeric keys) as JSON numbers and the rest as
 * strings; named blocks are arrays under their configfs directory's name,
 * each with a "name"; unnamed groups are objects under their keyword.
 * Documentation/damo.1 has the schema.
 *
 * Read back, every attribute and block gets the line it is on, so that
 * conf_validate() and restore name lines of a JSON file as of a text one.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "damo.h"

/* ------------------------------------------------------------ printing */

/* Members, elements and closing brackets of non-empty objects and arrays
 * are on lines of their own, this far in per level. */
#define JSON_INDENT		2

static void newline(FILE *f, int depth)
{
	fprintf(f, "\n%*s", depth * JSON_INDENT, "");
}

/* Before a member: a comma unless it is the first, and its line. */
static void member(FILE *f, bool *first, int depth, const char *key)
{
	if (!*first)
		fputc(',', f);
	*first = false;
	newline(f, depth);
	json_put_key(f, key);
}

/* A numeric attribute as a number, if it is one (else a string, so that
 * whatever configfs held, the JSON is valid); target_nid may be -1. */
static void put_value(FILE *f, enum conf_kind k, const struct conf_attr *a)
{
	bool numeric = conf_attr_numeric(k, a->key);
	uint64_t v;
	int64_t sv;

	if (numeric && !parse_u64(a->value, &v))
		fprintf(f, "%llu", (unsigned long long)v);
	else if (numeric && !parse_s64(a->value, &sv))
		fprintf(f, "%lld", (long long)sv);
	else
		json_put_str(f, a->value);
}

static void put_attr(FILE *f, const struct conf_node *n, const char *key,
		     bool *first, int depth)
{
	const struct conf_attr *a = conf_get_attr(n, key);

	if (!a)
		return;
	member(f, first, depth, key);
	put_value(f, n->kind, a);
}

static void put_node(FILE *f, const struct conf_node *n, int depth);

/* n's children of kind k: named ones in an array (empty too: the schema
 * always has it), the group as an object if there is one. */
static void put_children(FILE *f, const struct conf_node *n,
			 enum conf_kind k, bool *first, int depth)
{
	bool any = false;
	size_t i;

	if (conf_kind_named(k)) {
		member(f, first, depth, conf_kind_dir(k));
		fputc('[', f);
	}
	for (i = 0; i < n->nr_children; i++) {
		if (n->children[i]->kind != k)
			continue;
		if (!conf_kind_named(k)) {
			member(f, first, depth, conf_kind_keyword(k));
			put_node(f, n->children[i], depth);
			continue;
		}
		if (any)
			fputc(',', f);
		any = true;
		newline(f, depth + 1);
		put_node(f, n->children[i], depth + 1);
	}
	if (!conf_kind_named(k))
		return;
	if (any)
		newline(f, depth);
	fputc(']', f);
}

/* The order of the text form: name, attributes, blocks, a context's state. */
static void put_node(FILE *f, const struct conf_node *n, int depth)
{
	const char *const *a;
	bool first = true;
	int k;

	fputc('{', f);
	if (n->name) {
		member(f, &first, depth + 1, "name");
		json_put_str(f, n->name);
	}
	for (a = conf_kind_attrs(n->kind); *a; a++)
		if (n->kind != CK_CONTEXT || strcmp(*a, "state"))
			put_attr(f, n, *a, &first, depth + 1);
	for (k = CK_CONTEXT; k < NR_CONF_KINDS; k++)
		if (conf_child_allowed(n->kind, k))
			put_children(f, n, k, &first, depth + 1);
	if (n->kind == CK_CONTEXT)
		put_attr(f, n, "state", &first, depth + 1);
	if (!first)
		newline(f, depth);
	fputc('}', f);
}

void conf_print_json(FILE *f, const struct conf_node *root)
{
	put_node(f, root, 0);
	fputc('\n', f);
}

char *conf_to_json(const struct conf_node *root)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return xstrdup("");
	conf_print_json(f, root);
	fclose(f);
	return buf;
}

/* ------------------------------------------------------------ parsing */

bool conf_is_json(const char *text)
{
	text += strspn(text, " \t\r\n");
	return *text == '{';
}

/* Members have short names; a value, a command line, may be long. */
#define CJ_KEY_MAX		64
#define CJ_VALUE_MAX		(64 * 1024)

struct cj {
	struct jp j;
	char jerr[256];		/* the JSON parser's message */
	const char *counted;	/* lines are counted up to here */
	int line;
	char *err;
	size_t errlen;
	bool said;		/* err holds a message of ours */
	char *buf;		/* a value, CJ_VALUE_MAX long */
};

/* The line the parser is on (it only moves forward). */
static int cj_line(struct cj *r)
{
	for (; r->counted < r->j.p; r->counted++)
		if (*r->counted == '\n')
			r->line++;
	return r->line;
}

/* A message of ours about line; -1. */
static int __attribute__((format(printf, 3, 4)))
cj_fail(struct cj *r, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conf_seterr(r->err, r->errlen, line, "%s", msg);
	r->said = true;
	return -1;
}

/* How messages name the object of n. */
static const char *where(const struct conf_node *n)
{
	return n->kind == CK_ROOT ? "the top level" :
		conf_kind_keyword(n->kind);
}

/* A string or a number, into r->buf; the text form's rules: no control
 * characters, which a line could not hold. */
static int read_scalar(struct cj *r, const char *key, int line)
{
	enum jp_kind t = jp_peek(&r->j);
	const char *c;
	int e;

	if (t == JP_STRING)
		e = jp_string(&r->j, r->buf, CJ_VALUE_MAX);
	else if (t == JP_NUMBER)
		e = jp_number(&r->j, r->buf, CJ_VALUE_MAX);
	else
		return cj_fail(r, line, "%s: expected a string or a number, found %s",
			       key, jp_kind_name(t));
	if (e)
		return -1;
	for (c = r->buf; *c; c++)
		if ((unsigned char)*c < 0x20)
			return cj_fail(r, line, "%s: a control character in the value",
				       key);
	return 0;
}

static int read_member_attr(struct cj *r, struct conf_node *n,
			    const char *key, int line)
{
	const struct conf_attr *a = conf_get_attr(n, key);

	if (a)
		return cj_fail(r, line, "'%s' is already set on line %d", key,
			       a->line);
	if (read_scalar(r, key, line))
		return -1;
	conf_set(n, key, r->buf, line);
	return 0;
}

static int read_name(struct cj *r, struct conf_node *n, int line)
{
	if (!conf_kind_named(n->kind))
		return cj_fail(r, line, "'%s' takes no name", where(n));
	if (n->name)
		return cj_fail(r, line, "%s %s: a second name", where(n),
			       n->name);
	if (read_scalar(r, "name", line))
		return -1;
	if (!conf_valid_name(r->buf))
		return cj_fail(r, line, "'%s' is not a valid %s name (no spaces, '/', braces or '#'; not starting with '.')",
			       r->buf, where(n));
	n->name = xstrdup(r->buf);
	return 0;
}

/* The kind of blocks a member of a parent block holds: named ones under
 * their directory's name ("targets"), groups under their keyword. */
static int child_kind(enum conf_kind parent, const char *key)
{
	int k;

	for (k = CK_CONTEXT; k < NR_CONF_KINDS; k++)
		if (conf_child_allowed(parent, k) &&
		    !strcmp(key, conf_kind_named(k) ? conf_kind_dir(k) :
			    conf_kind_keyword(k)))
			return k;
	return -1;
}

static int read_object(struct cj *r, struct conf_node *n);

/* A named block read: it has a name, which no sibling has. */
static int check_named(struct cj *r, const struct conf_node *parent,
		       const struct conf_node *c)
{
	const struct conf_node *s;
	size_t i;

	if (!c->name)
		return cj_fail(r, c->line, "a %s without a \"name\"",
			       where(c));
	for (i = 0; i < parent->nr_children; i++) {
		s = parent->children[i];
		if (s != c && s->kind == c->kind && !strcmp(s->name, c->name))
			return cj_fail(r, c->line, "%s %s is already defined on line %d",
				       where(c), c->name, s->line);
	}
	return 0;
}

static int read_array(struct cj *r, struct conf_node *n, enum conf_kind k,
		      const char *key, int line)
{
	struct conf_node *c;
	int more;

	if (jp_peek(&r->j) != JP_ARRAY)
		return cj_fail(r, line, "%s: expected an array, found %s", key,
			       jp_kind_name(jp_peek(&r->j)));
	if (jp_begin(&r->j, JP_ARRAY))
		return -1;
	while ((more = jp_next_item(&r->j)) > 0) {
		jp_peek(&r->j);		/* to the element, for its line */
		c = conf_add_child(n, k, NULL, cj_line(r));
		if (read_object(r, c) || check_named(r, n, c))
			return -1;
	}
	return more;
}

static int read_group(struct cj *r, struct conf_node *n, enum conf_kind k,
		      int line)
{
	size_t i;

	for (i = 0; i < n->nr_children; i++)
		if (n->children[i]->kind == k)
			return cj_fail(r, line, "%s is already defined on line %d",
				       conf_kind_keyword(k),
				       n->children[i]->line);
	return read_object(r, conf_add_child(n, k, NULL, line));
}

static int read_member(struct cj *r, struct conf_node *n, const char *key,
		       int line)
{
	int k;

	if (n->kind != CK_ROOT && !strcmp(key, "name"))
		return read_name(r, n, line);
	if (n->kind != CK_ROOT && conf_is_attr(n->kind, key))
		return read_member_attr(r, n, key, line);
	k = child_kind(n->kind, key);
	if (k < 0 && n->kind == CK_ROOT)
		return cj_fail(r, line, "unknown key '%s' at the top level (expected \"contexts\")",
			       key);
	if (k < 0)
		return cj_fail(r, line, "unknown key '%s' in a %s object", key,
			       where(n));
	if (conf_kind_named(k))
		return read_array(r, n, k, key, line);
	return read_group(r, n, k, line);
}

/* An object into n: 0, or -1 with the message in r. */
static int read_object(struct cj *r, struct conf_node *n)
{
	char key[CJ_KEY_MAX];
	int more;

	if (jp_begin(&r->j, JP_OBJECT))
		return -1;
	while ((more = jp_next_key(&r->j, key, sizeof(key))) > 0)
		if (read_member(r, n, key, cj_line(r)))
			return -1;
	return more;
}

struct conf_node *conf_parse_json(const char *text, size_t len, char *err,
				  size_t errlen)
{
	struct cj r = {
		.counted = text, .line = 1, .err = err, .errlen = errlen,
		.jerr = "malformed JSON",
	};
	struct conf_node *root = conf_new(CK_ROOT, NULL, 0);
	int rc;

	jp_init(&r.j, text, len, r.jerr, sizeof(r.jerr));
	r.buf = xmalloc(CJ_VALUE_MAX);
	rc = read_object(&r, root);
	if (!rc)
		rc = jp_finish(&r.j);
	/* the parser's messages ("JSON offset N: ...") get the line too */
	if (rc && !r.said)
		conf_seterr(err, errlen, cj_line(&r), "%s", r.jerr);
	free(r.buf);
	if (rc) {
		conf_free(root);
		return NULL;
	}
	return root;
}
