// SPDX-License-Identifier: GPL-2.0
/*
 * damo clear: every context off, and the whole configfs tree removed; or,
 * with --only-from LIST, only the contexts LIST names (damo restore --made).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damo.h"

static int rmdir_children(const char *dir, const char *sub, int *failed)
{
	char *p = xasprintf("%s/%s", dir, sub), **names, *q;
	size_t nr, i;
	int r;

	r = list_dirs(p, &names, &nr);
	if (r) {
		if (r != -ENOENT) {
			damo_err("listing %s: %s", p, strerror(-r));
			(*failed)++;
		}
		free(p);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		q = xasprintf("%s/%s", p, names[i]);
		if (!strcmp(sub, "schemes")) {
			rmdir_children(q, "filters", failed);
			/* (older kernels have no quota goals) */
			rmdir_children(q, "quotas/goals", failed);
		}
		if (!strcmp(sub, "targets"))
			rmdir_children(q, "regions", failed);
		if (rmdir(q)) {
			damo_err("removing %s: %s", q, strerror(errno));
			(*failed)++;
		}
		free(q);
	}
	free_names(names, nr);
	free(p);
	return 0;
}

static const char clear_usage[] =
"usage: damo clear [--only-from LIST]\n"
"\n"
"Turn every DAMON context off and remove the whole configfs tree:\n"
"contexts, targets, regions, schemes, filters and quota goals (a\n"
"context's intervals_goal and a scheme's groups go with their parent).\n"
"\n"
"      --only-from LIST  only the contexts named in LIST, one a line, as\n"
"                        `damo restore --made LIST` writes it; others (made\n"
"                        by hand, or by a running `damo record`) are left,\n"
"                        and named contexts that are gone already skipped\n";

/* One context off, its targets and schemes and then itself removed. */
static void clear_context(const char *ctx, int *failed)
{
	char *state = xasprintf("%s/state", ctx);
	int r = write_attr(state, "off");

	if (r) {
		damo_err("writing 'off' to %s: %s", state, strerror(-r));
		(*failed)++;
	}
	free(state);
	rmdir_children(ctx, "schemes", failed);
	rmdir_children(ctx, "targets", failed);
	if (rmdir(ctx)) {
		damo_err("removing %s: %s", ctx, strerror(errno));
		(*failed)++;
	}
}

/* The context names of a --only-from list; -1 if it cannot be read. */
static int read_list(const char *list, char ***namesp, size_t *nrp)
{
	char *text, *line, *next, **names = NULL;
	size_t len, nr = 0;
	int r, lineno = 0;

	r = read_whole(list, &text, &len);
	if (r) {
		damo_err("cannot read %s: %s", list, strerror(-r));
		return -1;
	}
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!*line || *line == '#')
			continue;
		/* a name, not a path: nothing outside contexts/ */
		if (!conf_valid_name(line)) {
			damo_err("%s:%d: '%s' is not a context name; nothing removed",
				 list, lineno, line);
			free_names(names, nr);
			free(text);
			return -1;
		}
		names = xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrdup(line);
	}
	free(text);
	*namesp = names;
	*nrp = nr;
	return 0;
}

int cmd_clear(int argc, char **argv)
{
	const char *list = NULL;
	const struct damo_opt opts[] = {
		OPT_STRING(0, "only-from", &list),
		OPT_HELP(),
		OPT_END(),
	};
	char *ctxs, **names, *p;
	struct stat st;
	int failed = 0, r;
	size_t nr, i;

	r = opts_parse(argc, argv, opts, clear_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (optind < argc) {
		damo_err("clear takes no arguments");
		fputs(clear_usage, stderr);
		return 1;
	}
	if (cfs_check())
		return 1;
	ctxs = xasprintf("%s/contexts", cfs_root());
	if (list) {
		if (read_list(list, &names, &nr)) {
			free(ctxs);
			return 1;
		}
		for (i = 0; i < nr; i++) {
			p = xasprintf("%s/%s", ctxs, names[i]);
			/* removed already (by hand): nothing to do */
			if (!stat(p, &st) || errno != ENOENT)
				clear_context(p, &failed);
			free(p);
		}
		free_names(names, nr);
		free(ctxs);
		return failed ? 1 : 0;
	}
	r = list_dirs(ctxs, &names, &nr);
	if (r) {
		damo_err("listing %s: %s", ctxs, strerror(-r));
		free(ctxs);
		return 1;
	}
	for (i = 0; i < nr; i++) {
		p = xasprintf("%s/%s", ctxs, names[i]);
		clear_context(p, &failed);
		free(p);
	}
	free_names(names, nr);
	free(ctxs);
	return failed ? 1 : 0;
}
