// SPDX-License-Identifier: GPL-2.0
/*
 * damo save: the whole configfs tree to a file, replaced atomically, as
 * text or (--json) as JSON.  Targets are saved by pid, or, for restoring
 * after a reboot, by the systemd unit or the command line of the process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damo.h"

/* How targets are saved, and in which form. */
struct save_opts {
	bool by_command, by_unit;
	bool json;
};

static bool attr_exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool r = !access(p, F_OK);

	free(p);
	return r;
}

static int save_attrs(struct conf_node *n, const char *dir, bool with_state)
{
	const char *const *a;
	const char *unused;
	char buf[CFS_ATTR_MAX];

	for (a = conf_kind_attrs(n->kind); *a; a++) {
		if (n->kind == CK_TARGET && strcmp(*a, "pid"))
			continue;
		if (n->kind == CK_CONTEXT && !strcmp(*a, "state") &&
		    !with_state)
			continue;
		/* a file older kernels lack: only if there and used */
		unused = conf_attr_unused(n->kind, *a);
		if (unused && !attr_exists(dir, *a))
			continue;
		if (get_attr(dir, *a, buf, sizeof(buf)))
			return -1;
		if (n->kind == CK_TARGET && !strcmp(buf, "-1"))
			continue;	/* no pid set */
		if (unused && !strcmp(buf, unused))
			continue;
		/* a goal's current_value: the user's input, or the kernel's
		 * measurement, which restore could not give back */
		if (n->kind == CK_GOAL && !strcmp(*a, "current_value") &&
		    !conf_goal_metric_is_input(conf_goal_metric(n)))
			continue;
		conf_set(n, *a, buf, 0);
	}
	return 0;
}

/* Named children of kind k under dir/<kind dir>, sorted by name or, for
 * filters and goals, in creation order (which configfs lists newest
 * first). */
static int save_children(struct conf_node *parent, const char *dir,
			 enum conf_kind k,
			 int (*fill)(struct conf_node *, const char *,
				     const struct save_opts *),
			 const struct save_opts *o)
{
	char *sub = xasprintf("%s/%s", dir, conf_kind_dir(k)), **names;
	size_t nr, i;
	int r;

	bool created = k == CK_FILTER || k == CK_GOAL;

	r = created ? list_dirs_created(sub, &names, &nr) :
		list_dirs(sub, &names, &nr);
	if (r) {
		damo_err("listing %s: %s", sub, strerror(-r));
		free(sub);
		return -1;
	}
	if (!created && nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	for (i = 0; i < nr && !r; i++) {
		struct conf_node *c = conf_add_child(parent, k, names[i], 0);
		char *p = xasprintf("%s/%s", sub, names[i]);

		r = fill(c, p, o);
		free(p);
	}
	free_names(names, nr);
	free(sub);
	return r;
}

static int fill_plain(struct conf_node *n, const char *dir,
		      const struct save_opts *o)
{
	(void)o;
	return save_attrs(n, dir, false);
}

/* A target's only attribute, its pid, becomes key value. */
static void replace_pid(struct conf_node *n, const char *key, char *value)
{
	free(n->attrs[0].key);
	free(n->attrs[0].value);
	n->attrs[0].key = xstrdup(key);
	n->attrs[0].value = value;
}

/* restore takes a unit's main process: say so if that is another one. */
static void check_main_pid(const struct conf_node *n, const char *unit,
			   const char *pid)
{
	long main_pid;

	if (unit_main_pid(unit, &main_pid) || main_pid == atol(pid))
		return;
	damo_warn("target %s: pid %s is not the main process of %s (pid %ld), which restore will take",
		  n->name, pid, unit, main_pid);
}

/* --by-unit, --by-command: the pid's unit, else its command line. */
static void name_target(struct conf_node *n, const char *pid,
			const struct save_opts *o)
{
	char *v;

	if (o->by_unit && (v = proc_unit(proc_root(), pid))) {
		check_main_pid(n, v, pid);
		replace_pid(n, "unit", v);
		return;
	}
	if (o->by_command) {
		v = proc_cmdline(proc_root(), pid);
		if (v && *v) {
			replace_pid(n, "command", v);
			return;
		}
		free(v);
	}
	if (!o->by_command)
		damo_warn("target %s: pid %s is in no systemd service or scope, saving the pid",
			  n->name, pid);
	else if (!o->by_unit)
		damo_warn("target %s: no command line for pid %s, saving the pid",
			  n->name, pid);
	else
		damo_warn("target %s: pid %s is in no systemd service or scope and has no command line, saving the pid",
			  n->name, pid);
}

static int fill_target(struct conf_node *n, const char *dir,
		       const struct save_opts *o)
{
	const char *pid;

	if (save_attrs(n, dir, false))
		return -1;
	pid = conf_get(n, "pid");
	if (pid && (o->by_command || o->by_unit))
		name_target(n, pid, o);
	return save_children(n, dir, CK_REGION, fill_plain, o);
}

/* A group, and in quotas its goals (if the kernel has them). */
static int fill_group(struct conf_node *parent, const char *dir,
		      enum conf_kind k, const struct save_opts *o)
{
	struct conf_node *g = conf_add_child(parent, k, NULL, 0);
	char *p = xasprintf("%s/%s", dir, conf_kind_dir(k));
	int r = save_attrs(g, p, false);

	if (!r && k == CK_QUOTAS && attr_exists(p, conf_kind_dir(CK_GOAL)))
		r = save_children(g, p, CK_GOAL, fill_plain, o);
	free(p);
	return r;
}

static int fill_scheme(struct conf_node *n, const char *dir,
		       const struct save_opts *o)
{
	if (save_attrs(n, dir, false) ||
	    fill_group(n, dir, CK_PATTERN, o) ||
	    fill_group(n, dir, CK_QUOTAS, o) ||
	    fill_group(n, dir, CK_WMARKS, o))
		return -1;
	return save_children(n, dir, CK_FILTER, fill_plain, o);
}

/*
 * intervals_goal, where the kernel has it (older kernels lack it), and only
 * when it asks for more than the defaults: a setup that does not tune its
 * intervals saves, and restores, as on a kernel without the group.
 */
static int fill_intervals(struct conf_node *n, const char *dir)
{
	const char *kd = conf_kind_dir(CK_INTERVALS);
	struct conf_node *g;
	char *p;
	int r;

	if (!attr_exists(dir, kd))
		return 0;
	g = conf_add_child(n, CK_INTERVALS, NULL, 0);
	p = xasprintf("%s/%s", dir, kd);
	r = save_attrs(g, p, false);
	free(p);
	if (!r && !conf_intervals_set(g)) {
		n->nr_children--;
		conf_free(g);
	}
	return r;
}

/* A context that tunes its intervals shows the values in use, which save
 * writes: past update_us, restore (and "on") would refuse them. */
static void check_tuned(const struct conf_node *n)
{
	const struct conf_node *g = conf_find_child(n, CK_INTERVALS, NULL);
	const char *state = conf_get(n, "state");
	const char *a = conf_get(n, "aggr_us"), *u = conf_get(n, "update_us");
	uint64_t aggr, update;

	if (!g || !conf_intervals_tune(g) ||
	    !state || strcmp(state, "on") || !a || !u ||
	    parse_u64(a, &aggr) || parse_u64(u, &update) || aggr <= update)
		return;
	damo_warn("context %s: its tuned aggr_us (%llu) exceeds update_us (%llu): restore will refuse the file until update_us is raised to at least aggr_us",
		  n->name, (unsigned long long)aggr, (unsigned long long)update);
}

static int fill_context(struct conf_node *n, const char *dir,
			const struct save_opts *o)
{
	char buf[64];

	if (save_attrs(n, dir, false) || fill_intervals(n, dir) ||
	    save_children(n, dir, CK_TARGET, fill_target, o) ||
	    save_children(n, dir, CK_SCHEME, fill_scheme, o))
		return -1;
	if (get_attr(dir, "state", buf, sizeof(buf)))
		return -1;
	conf_set(n, "state", buf, 0);
	check_tuned(n);
	return 0;
}

static const char save_usage[] =
"usage: damo save [--by-command] [--by-unit] [--json] [FILE]\n"
"\n"
"Write the whole DAMON configfs tree (contexts with their intervals_goal\n"
"when it is not at its defaults, targets, regions, schemes with their\n"
"groups, filters and quota goals, and which contexts are on) to\n"
"FILE (default " DAMO_DEFAULT_CONF "; '-' for standard output).  The file\n"
"is replaced atomically.  A quota goal's current_value is saved for\n"
"user_input goals only (for the other metrics it is the kernel's\n"
"measurement).  A context that tunes its intervals is saved with the\n"
"sample_us and aggr_us in use.\n"
"\n"
"      --by-command     save targets as their command lines (\"command ...\")\n"
"                       instead of pids, for restoring after a reboot\n"
"      --by-unit        save targets as the systemd service or scope whose\n"
"                       cgroup holds them (\"unit NAME\"), restored as its\n"
"                       main process; with --by-command, targets in no unit\n"
"                       by command line\n"
"      --json           write JSON instead (schema: man damo), which restore\n"
"                       reads too\n";

/* The configfs tree as the file's text; NULL if it cannot be read. */
static char *tree_text(const struct save_opts *o)
{
	struct conf_node *root = conf_new(CK_ROOT, NULL, 0);
	char *dir = xstrdup(cfs_root()), *text = NULL;

	if (!save_children(root, dir, CK_CONTEXT, fill_context, o))
		text = o->json ? conf_to_json(root) : conf_to_string(root);
	free(dir);
	conf_free(root);
	return text;
}

/* text into path through a temporary file: the old or the new, never half. */
static int write_atomically(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	char *pdir = xstrdup(path);
	FILE *f;
	int r;

	/* make /etc/damon on first use */
	if (mkdir(dirname(pdir), DAMO_DIR_MODE) && errno != EEXIST)
		damo_err("making %s: %s", pdir, strerror(errno));
	free(pdir);
	f = fopen(tmp, "w");
	r = f ? 0 : -errno;
	if (f) {
		fputs(text, f);
		if (fflush(f) || fsync(fileno(f)))
			r = -errno;
		if (fclose(f) && !r)
			r = -errno;
	}
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		damo_err("writing %s: %s", path, strerror(-r));
		unlink(tmp);
	}
	free(tmp);
	return r;
}

int cmd_save(int argc, char **argv)
{
	const char *path = DAMO_DEFAULT_CONF;
	struct save_opts o = { 0 };
	const struct damo_opt opts[] = {
		OPT_SET(0, "by-command", &o.by_command),
		OPT_SET(0, "by-unit", &o.by_unit),
		OPT_SET(0, "json", &o.json),
		OPT_HELP(),
		OPT_END(),
	};
	char *text;
	int r;

	r = opts_parse(argc, argv, opts, save_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (opts_operand(argc, argv, "save", &path) || cfs_check())
		return 1;
	text = tree_text(&o);
	if (!text)
		return 1;
	if (!strcmp(path, "-")) {
		fputs(text, stdout);
		r = fflush(stdout) ? -EIO : 0;
	} else {
		r = write_atomically(path, text);
	}
	free(text);
	return r ? 1 : 0;
}
