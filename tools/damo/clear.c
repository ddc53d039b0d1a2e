// SPDX-License-Identifier: GPL-2.0
/*
 * damo clear: every context off, and the whole configfs tree removed.
 */
#include <errno.h>
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

int cmd_clear(int argc, char **argv)
{
	char *ctxs, **names, *p, *q;
	size_t nr, i;
	int failed = 0, r;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(clear_usage, stdout);
		return 0;
	}
	if (argc > 1) {
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
		q = xasprintf("%s/state", p);
		r = write_attr(q, "off");
		if (r) {
			damo_err("writing 'off' to %s: %s", q, strerror(-r));
			failed++;
		}
		free(q);
		rmdir_children(p, "schemes", &failed);
		rmdir_children(p, "targets", &failed);
		if (rmdir(p)) {
			damo_err("removing %s: %s", p, strerror(errno));
			failed++;
		}
		free(p);
	}
	free_names(names, nr);
	free(ctxs);
	return failed ? 1 : 0;
}
