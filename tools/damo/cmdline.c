// SPDX-License-Identifier: GPL-2.0
/*
 * The command line, declared as tables: a command group (damo's commands,
 * report's types) is a table of { name, function, help } that both
 * dispatches and writes the usage text, and each command's options are
 * one table of { name, letter, kind, where the value goes }, from which
 * opts_parse() builds getopt_long()'s arguments and stores the values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "damo.h"

/* ------------------------------------------------------------ commands */

/* Listed names are padded to the longest one and this many spaces. */
#define CMD_LIST_GAP	3
/* The list is indented by this many spaces. */
#define CMD_LIST_INDENT	2

static int cmd_list_width(const struct cmd_group *g)
{
	size_t i, len, width = 0;

	for (i = 0; i < g->nr; i++) {
		if (!g->cmds[i].help)
			continue;
		len = strlen(g->cmds[i].name);
		if (len > width)
			width = len;
	}
	return (int)width + CMD_LIST_GAP;
}

/* One entry; a help text's further lines start under its first. */
static void cmd_list_entry(FILE *f, const struct damo_cmd *c, int width)
{
	const char *line = c->help, *nl;

	fprintf(f, "%*s%-*s", CMD_LIST_INDENT, "", width, c->name);
	while ((nl = strchr(line, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(nl - line), line,
			CMD_LIST_INDENT + width, "");
		line = nl + 1;
	}
	fprintf(f, "%s\n", line);
}

void cmd_usage(FILE *f, const struct cmd_group *g)
{
	int width = cmd_list_width(g);
	size_t i;

	fputs(g->head, f);
	for (i = 0; i < g->nr; i++)
		if (g->cmds[i].help)
			cmd_list_entry(f, &g->cmds[i], width);
	fputs(g->foot, f);
}

const struct damo_cmd *cmd_find(const struct cmd_group *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		if (!strcmp(g->cmds[i].name, name))
			return &g->cmds[i];
	return NULL;
}

int cmd_dispatch(const struct cmd_group *g, int argc, char **argv)
{
	const struct damo_cmd *c;

	if (argc < 2) {
		cmd_usage(stderr, g);
		return 1;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cmd_usage(stdout, g);
		return 0;
	}
	c = cmd_find(g, argv[1]);
	if (!c) {
		damo_err("unknown %s '%s'", g->what, argv[1]);
		cmd_usage(stderr, g);
		return 1;
	}
	/* the command sees itself as argv[0], as a program would */
	return c->fn(argc - 1, argv + 1);
}

/* ------------------------------------------------------------ options */

/*
 * getopt_long() reports a long option by its val: letters for options
 * that have one, and from here up the table index for the others.
 */
#define OPT_INDEX_BASE	256

static bool takes_arg(enum opt_kind k)
{
	return k != OPTK_HELP && k != OPTK_SET && k != OPTK_CLEAR;
}

static size_t nr_opts(const struct damo_opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != OPTK_END)
		n++;
	return n;
}

/* getopt_long()'s two descriptions of the table. */
static void opts_getopt_spec(const struct damo_opt *opts, size_t n,
			     bool in_order, char *shorts,
			     struct option *longs)
{
	size_t i;

	/* '+': stop at the first operand instead of permuting argv */
	if (in_order)
		*shorts++ = '+';
	for (i = 0; i < n; i++) {
		longs[i].name = opts[i].name;
		longs[i].has_arg = takes_arg(opts[i].kind) ?
			required_argument : no_argument;
		longs[i].flag = NULL;
		longs[i].val = opts[i].letter ? opts[i].letter :
			OPT_INDEX_BASE + (int)i;
		if (!opts[i].letter)
			continue;
		*shorts++ = (char)opts[i].letter;
		if (takes_arg(opts[i].kind))
			*shorts++ = ':';
	}
	*shorts = '\0';
	memset(&longs[n], 0, sizeof(longs[n]));
}

static const struct damo_opt *opt_of(const struct damo_opt *opts, size_t n,
				     int c)
{
	size_t i;

	if (c >= OPT_INDEX_BASE)
		return (size_t)(c - OPT_INDEX_BASE) < n ?
			&opts[c - OPT_INDEX_BASE] : NULL;
	for (i = 0; i < n; i++)
		if (opts[i].letter == c)
			return &opts[i];
	return NULL;
}

/* A number argument within o->num's rule, stored by o's kind. */
static int opt_number(const struct damo_opt *o, const char *arg)
{
	const struct num_rule *r = o->num;
	uint64_t v;
	int err;

	err = r->hex ? parse_u64_any(arg, &v) : parse_u64(arg, &v);
	if (err || v < r->min || v > r->max) {
		damo_err("%s: '%s' is not %s", opt_label(o), arg, r->what);
		return -EINVAL;
	}
	if (o->kind == OPTK_U64)
		*(uint64_t *)o->value = v;
	else if (o->kind == OPTK_I64)
		*(int64_t *)o->value = (int64_t)v;
	else
		*(int *)o->value = (int)v;
	return 0;
}

/* Apply one option; 0 or -errno (the message is out). */
static int opt_apply(const struct damo_opt *o, const char *arg, int argc,
		     char **argv)
{
	switch (o->kind) {
	case OPTK_SET:
	case OPTK_CLEAR:
		*(bool *)o->value = o->kind == OPTK_SET;
		return 0;
	case OPTK_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTK_U64:
	case OPTK_I64:
	case OPTK_INT:
		return opt_number(o, arg);
	case OPTK_CALL:
		return o->call(o, arg, argc, argv);
	default:
		return -EINVAL;
	}
}

const char *opt_label(const struct damo_opt *o)
{
	static char buf[64];

	if (o->label)
		return o->label;
	snprintf(buf, sizeof(buf), "--%s", o->name);
	return buf;
}

int opts_parse(int argc, char **argv, const struct damo_opt *opts,
	       const char *usage, bool in_order)
{
	size_t n = nr_opts(opts);
	/* per option: its letter and ':'; then '+' and the NUL */
	char *shorts = xmalloc(2 * n + 2);
	struct option *longs = xcalloc(n + 1, sizeof(*longs));
	const struct damo_opt *o;
	int c, ret = OPTS_GO_ON;

	opts_getopt_spec(opts, n, in_order, shorts, longs);
	/* 0, not 1: glibc's getopt then starts afresh, '+' included */
	optind = 0;
	while (ret == OPTS_GO_ON &&
	       (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		o = opt_of(opts, n, c);
		if (!o) {
			/* getopt_long() has said what is wrong */
			fputs(usage, stderr);
			ret = 1;
		} else if (o->kind == OPTK_HELP) {
			fputs(usage, stdout);
			ret = 0;
		} else if (opt_apply(o, optarg, argc, argv)) {
			ret = 1;
		} else if (o->given) {
			*o->given = true;
		}
	}
	free(shorts);
	free(longs);
	return ret;
}

int opts_operand(int argc, char **argv, const char *cmd, const char **arg)
{
	if (optind + 1 < argc) {
		damo_err("%s: too many arguments", cmd);
		return -E2BIG;
	}
	if (optind < argc)
		*arg = argv[optind];
	return 0;
}
