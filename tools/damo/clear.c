// SPDX-License-Identifier: GPL-2.0
/*
 * damo clear: every context off, and the whole configfs tree removed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
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
		if (!strcmp(sub, "schemes"))
			rmdir_children(q, "filters", failed);
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
"usage: damo clear\n"
"\n"
"Turn every DAMON context off and remove the whole configfs tree:\n"
"contexts, targets, regions, schemes and filters.\n";

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

int cmd_clear(int argc, char **argv)
{
	const struct damo_opt opts[] = { OPT_HELP(), OPT_END() };
	char *ctxs, **names, *p;
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
