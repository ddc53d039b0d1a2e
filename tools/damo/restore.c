// SPDX-License-Identifier: GPL-2.0
/*
 * damo restore: the configfs tree from a file written by damo save: its
 * text form, or its JSON (save --json), told by the first character.
 *
 * restore checks the whole file (syntax, values, and for contexts that are
 * to be on, what "on" will check; quota goals' metrics and intervals_goal
 * blocks against the kernel's features) and resolves every target to a
 * pid before it touches the kernel.  Then it makes directories and writes
 * attributes in file order, and turns contexts on last.  On any failure it
 * turns off what it turned on and removes what it made, newest first, and
 * names the line that failed.
 *
 * For damon-restore.service, --boot refuses targets given by pid (a pid
 * does not survive a reboot) and --made FILE lists the contexts made, so
 * that `damo clear --only-from FILE` removes those and no others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "damo.h"

struct applier {
	const char *file;
	char **made;		/* directories made, oldest first */
	size_t nr_made;
	char **turned_on;	/* contexts turned on */
	size_t nr_on;
	bool dry_run;
};

static int do_mkdir(struct applier *ap, const char *path, int line)
{
	if (ap->dry_run) {
		printf("mkdir %s\n", path);
		return 0;
	}
	if (mkdir(path, DAMO_DIR_MODE)) {
		damo_err("%s:%d: making %s: %s", ap->file, line, path,
			 strerror(errno));
		return -1;
	}
	ap->made = xrealloc(ap->made, (ap->nr_made + 1) * sizeof(*ap->made));
	ap->made[ap->nr_made++] = xstrdup(path);
	return 0;
}

static int do_write(struct applier *ap, const char *dir, const char *key,
		    const char *value, int line)
{
	char *p = xasprintf("%s/%s", dir, key);
	int r = 0;

	if (ap->dry_run)
		printf("echo %s > %s\n", value, p);
	else
		r = write_attr(p, value);
	if (r)
		damo_err("%s:%d: writing '%s' to %s: %s", ap->file, line, value,
			 p, strerror(-r));
	free(p);
	return r ? -1 : 0;
}

static void rollback(struct applier *ap)
{
	size_t i;

	for (i = ap->nr_on; i > 0; i--) {
		char *p = xasprintf("%s/state", ap->turned_on[i - 1]);
		int r = write_attr(p, "off");

		if (r)
			damo_err("rollback: writing 'off' to %s: %s", p,
				 strerror(-r));
		free(p);
	}
	for (i = ap->nr_made; i > 0; i--)
		if (rmdir(ap->made[i - 1]))
			damo_err("rollback: removing %s: %s", ap->made[i - 1],
				 strerror(errno));
	if (ap->nr_made)
		damo_err("rolled back: turned off %zu context%s and removed the %zu director%s made",
			 ap->nr_on, ap->nr_on == 1 ? "" : "s", ap->nr_made,
			 ap->nr_made == 1 ? "y" : "ies");
}

static void applier_free(struct applier *ap)
{
	free_names(ap->made, ap->nr_made);
	free_names(ap->turned_on, ap->nr_on);
}

/* Write n's attributes (all but a context's state; targets: pid), but
 * not the defaults: empty strings, and unused files older kernels lack. */
static int apply_attrs(struct applier *ap, const struct conf_node *n,
		       const char *dir)
{
	size_t i;

	for (i = 0; i < n->nr_attrs; i++) {
		const struct conf_attr *a = &n->attrs[i];
		const char *unused = conf_attr_unused(n->kind, a->key);

		if (n->kind == CK_CONTEXT && !strcmp(a->key, "state"))
			continue;
		if (n->kind == CK_TARGET)
			continue;	/* resolved pids: apply_node */
		if (!*a->value)
			continue;	/* an empty string: the default */
		if (unused && !strcmp(a->value, unused))
			continue;	/* perhaps a file this kernel lacks */
		if (do_write(ap, dir, a->key, a->value, a->line))
			return -1;
	}
	return 0;
}

static int apply_node(struct applier *ap, const struct conf_node *n,
		      const char *parent_dir, const long *pids, size_t *pidx)
{
	char *dir;
	size_t i;
	int r = -1;

	if (n->name) {
		dir = xasprintf("%s/%s/%s", parent_dir, conf_kind_dir(n->kind),
				n->name);
		if (do_mkdir(ap, dir, n->line))
			goto out;
	} else {
		/* default groups exist with their parent */
		dir = xasprintf("%s/%s", parent_dir, conf_kind_dir(n->kind));
	}
	if (apply_attrs(ap, n, dir))
		goto out;
	if (n->kind == CK_TARGET) {
		long pid = pids[(*pidx)++];

		if (pid > 0) {
			char buf[32];
			const struct conf_attr *a = conf_get_attr(n, "pid");

			if (!a)
				a = conf_get_attr(n, "command");
			if (!a)
				a = conf_get_attr(n, "unit");
			snprintf(buf, sizeof(buf), "%ld", pid);
			if (do_write(ap, dir, "pid", buf, a->line))
				goto out;
		}
	}
	for (i = 0; i < n->nr_children; i++)
		if (apply_node(ap, n->children[i], dir, pids, pidx))
			goto out;
	r = 0;
out:
	free(dir);
	return r;
}

/* How often a missing target's process is looked for again. */
#define RESOLVE_RETRY_US	200000
/* --wait: a day at the most */
#define MAX_WAIT_S		86400

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec +
		(double)(now.tv_nsec - start->tv_nsec) / NSEC_PER_SEC;
}

/* t's pid: given, or its command's or unit's process; 0: none given. */
static int target_pid(const struct conf_node *t,
		      const struct conf_attr **ap, long *pid)
{
	const struct conf_attr *a;
	uint64_t u;
	int r = 0;

	*pid = 0;
	if ((a = conf_get_attr(t, "pid"))) {
		parse_u64(a->value, &u);
		*pid = (long)u;
	} else if ((a = conf_get_attr(t, "command"))) {
		r = resolve_command(proc_root(), a->value, pid);
	} else if ((a = conf_get_attr(t, "unit"))) {
		r = unit_main_pid(a->value, pid);
	}
	*ap = a;
	return r;
}

/* Why a target's process was not found, or what to do about it. */
static char *resolve_failure(const struct conf_attr *a, int r)
{
	char *unit, *msg;

	if (r == -EEXIST)
		return xstrdup("give a pid instead");
	if (r != -ESRCH || strcmp(a->key, "unit"))
		return xstrdup(strerror(-r));
	unit = unit_full_name(a->value);
	msg = xasprintf("unit %s is not running (no main process, and none in its cgroup)",
			unit);
	free(unit);
	return msg;
}

/* target_pid(), again until a process is there or wait_s have passed. */
static int resolve_target(const char *file, const struct conf_node *t,
			  const struct timespec *start, uint64_t wait_s,
			  long *pid)
{
	const struct conf_attr *a;
	char *why;
	int r;

	while ((r = target_pid(t, &a, pid)) == -ESRCH &&
	       seconds_since(start) < wait_s)
		usleep(RESOLVE_RETRY_US);
	if (!r)
		return 0;
	why = resolve_failure(a, r);
	damo_err("%s:%d: target %s: %s '%s': %s", file, a->line, t->name,
		 r == -EEXIST ? "more than one process runs" :
		 "no process runs", a->value, why);
	free(why);
	return r;
}

/* Resolve every target to a pid (0: none given), in tree order. */
static int resolve_targets(const char *file, const struct conf_node *root,
			   long **pidsp, uint64_t wait_s)
{
	struct timespec start;
	long *pids = NULL;
	size_t nr = 0, i, j;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < root->nr_children; i++) {
		const struct conf_node *c = root->children[i];

		for (j = 0; j < c->nr_children; j++) {
			if (c->children[j]->kind != CK_TARGET)
				continue;
			pids = xrealloc(pids, (nr + 1) * sizeof(*pids));
			if (resolve_target(file, c->children[j], &start,
					   wait_s, &pids[nr++])) {
				free(pids);
				return -1;
			}
		}
	}
	*pidsp = pids;
	return 0;
}

/* The checked tree of path's file; NULL, said, if it is not one. */
static struct conf_node *load_conf(const char *path)
{
	struct conf_node *root;
	char err[512], *text;
	size_t len;
	int r;

	r = read_whole(path, &text, &len);
	if (r) {
		damo_err("cannot read %s: %s", path, strerror(-r));
		return NULL;
	}
	if (strlen(text) != len) {
		damo_err("%s: not a text file (NUL bytes)", path);
		free(text);
		return NULL;
	}
	if (conf_is_json(text))
		root = conf_parse_json(text, len, err, sizeof(err));
	else
		root = conf_parse(text, err, sizeof(err));
	free(text);
	if (root && conf_validate(root, err, sizeof(err))) {
		conf_free(root);
		root = NULL;
	}
	/* "line N: ..." becomes "FILE:N: ..." */
	if (!root)
		damo_err("%s:%s", path, err + strlen(CONF_ERR_PREFIX));
	return root;
}

/* Nothing is changed unless every context is new. */
static int check_new_contexts(const char *path, const struct conf_node *root)
{
	const struct conf_node *c;
	struct stat st;
	size_t i;
	char *p;
	int r;

	for (i = 0; i < root->nr_children; i++) {
		c = root->children[i];
		p = xasprintf("%s/contexts/%s", cfs_root(), c->name);
		r = stat(p, &st);
		free(p);
		if (!r) {
			damo_err("%s:%d: context %s exists already; nothing changed (`damo clear` removes the whole tree)",
				 path, c->line, c->name);
			return -1;
		}
	}
	return 0;
}

/* Last, the contexts to be on. */
static int turn_on(struct applier *ap, const struct conf_node *root)
{
	const struct conf_node *c;
	const char *state;
	char *ctxdir;
	size_t i;

	for (i = 0; i < root->nr_children; i++) {
		c = root->children[i];
		state = conf_get(c, "state");
		if (!state || strcmp(state, "on"))
			continue;
		ctxdir = xasprintf("%s/contexts/%s", cfs_root(), c->name);
		if (do_write(ap, ctxdir, "state", "on",
			     conf_get_attr(c, "state")->line)) {
			free(ctxdir);
			return -1;
		}
		ap->turned_on = xrealloc(ap->turned_on, (ap->nr_on + 1) *
					 sizeof(*ap->turned_on));
		ap->turned_on[ap->nr_on++] = ctxdir;
	}
	return 0;
}

/* The whole tree, rolled back on a failure. */
static int apply_tree(struct applier *ap, const struct conf_node *root,
		      const long *pids)
{
	size_t i, pidx = 0;

	for (i = 0; i < root->nr_children; i++)
		if (apply_node(ap, root->children[i], cfs_root(), pids, &pidx))
			break;
	if (i < root->nr_children || turn_on(ap, root)) {
		rollback(ap);
		return -1;
	}
	return 0;
}

/* fn() on each quota goal of root's schemes (and its scheme), until one
 * returns non-zero, which is returned. */
static int for_each_goal(const struct conf_node *root,
			 int (*fn)(const struct conf_node *s,
				   const struct conf_node *g, void *arg),
			 void *arg)
{
	const struct conf_node *c, *s, *q;
	size_t i, j, k, l;
	int r;

	for (i = 0; i < root->nr_children; i++) {
		c = root->children[i];
		for (j = 0; j < c->nr_children; j++) {
			s = c->children[j];
			for (k = 0; s->kind == CK_SCHEME && k < s->nr_children;
			     k++) {
				q = s->children[k];
				for (l = 0; q->kind == CK_QUOTAS &&
				     l < q->nr_children; l++) {
					r = fn(s, q->children[l], arg);
					if (r)
						return r;
				}
			}
		}
	}
	return 0;
}

static int count_goal(const struct conf_node *s, const struct conf_node *g,
		      void *arg)
{
	(void)s;
	(void)g;
	(*(size_t *)arg)++;
	return 0;
}

struct goal_check {
	const char *path;	/* the file */
	const char *features;
	bool any;		/* features lists some goal metric */
};

/* A goal's metric must be one this kernel measures: features says. */
static int check_goal_metric(const struct conf_node *s,
			     const struct conf_node *g, void *arg)
{
	const struct goal_check *gc = arg;
	const char *metric = conf_goal_metric(g);
	const struct conf_attr *a = conf_get_attr(g, "target_metric");
	char *word = xasprintf("goal:%s", metric);
	bool ok = features_have(gc->features, word);

	free(word);
	if (ok)
		return 0;
	if (!gc->any)
		damo_err("%s:%d: scheme %s: goal %s: this kernel's DAMON has no quota goals (no goal: words in %s/features); nothing changed",
			 gc->path, g->line, s->name, g->name, cfs_root());
	else
		damo_err("%s:%d: scheme %s: goal %s: this kernel cannot measure %s (no goal:%s in %s/features); nothing changed",
			 gc->path, a ? a->line : g->line, s->name, g->name,
			 metric, metric, cfs_root());
	return -1;
}

/* Quota goals: only metrics that features lists (none on kernels
 * without goals); features is read only for a file with goals. */
static int check_goal_features(const char *path, const struct conf_node *root)
{
	struct goal_check gc = { .path = path };
	size_t nr = 0;
	char *f;
	int r;

	for_each_goal(root, count_goal, &nr);
	if (!nr)
		return 0;
	f = cfs_features();
	if (!f)
		return -1;
	gc.features = f;
	gc.any = strstr(f, "goal:") != NULL;
	r = for_each_goal(root, check_goal_metric, &gc);
	free(f);
	return r;
}

/* The feature word of intervals_goal/ (configfs-layout.md). */
#define INTERVALS_FEATURE	"intervals_goal"

/*
 * intervals_goal blocks: only where features lists the group (older
 * kernels lack it, and writing it would fail half-way); features is read
 * only for a file with such a block.
 */
static int check_intervals_features(const char *path,
				    const struct conf_node *root)
{
	const struct conf_node *c = NULL, *g = NULL;
	size_t i;
	char *f;
	int r = 0;

	for (i = 0; i < root->nr_children && !g; i++) {
		c = root->children[i];
		g = conf_find_child(c, CK_INTERVALS, NULL);
	}
	if (!g)
		return 0;
	f = cfs_features();
	if (!f)
		return -1;
	if (!features_have(f, INTERVALS_FEATURE)) {
		damo_err("%s:%d: context %s: this kernel's DAMON cannot tune monitoring intervals (no %s in %s/features); nothing changed",
			 path, g->line, c->name, INTERVALS_FEATURE, cfs_root());
		r = -1;
	}
	free(f);
	return r;
}

/* --boot: a pid in the file names some process of an earlier boot. */
static int check_boot_targets(const char *path, const struct conf_node *root)
{
	const struct conf_node *c, *t;
	const struct conf_attr *a;
	size_t i, j;
	int bad = 0;

	for (i = 0; i < root->nr_children; i++) {
		c = root->children[i];
		for (j = 0; j < c->nr_children; j++) {
			t = c->children[j];
			if (t->kind != CK_TARGET)
				continue;
			a = conf_get_attr(t, "pid");
			if (!a)
				continue;
			damo_err("%s:%d: target %s is pid %s: pids do not survive a reboot; name it by \"command CMDLINE\" or \"unit NAME\" (damo save --by-command or --by-unit)",
				 path, a->line, t->name, a->value);
			bad++;
		}
	}
	if (bad)
		damo_err("%s: not restored at boot; nothing changed", path);
	return bad ? -1 : 0;
}

/* --made: the names of the contexts about to be made, one a line. */
static int write_made(const char *made, const char *path,
		      const struct conf_node *root)
{
	FILE *f = fopen(made, "w");
	size_t i;
	int r = 0;

	if (!f) {
		r = -errno;
	} else {
		fprintf(f, "# contexts made by `damo restore` from %s\n", path);
		for (i = 0; i < root->nr_children; i++)
			fprintf(f, "%s\n", root->children[i]->name);
		if (fflush(f))
			r = -errno;
		if (fclose(f) && !r)
			r = -errno;
	}
	if (r) {
		damo_err("writing %s: %s; nothing changed", made, strerror(-r));
		unlink(made);
	}
	return r ? -1 : 0;
}

static const char restore_usage[] =
"usage: damo restore [--wait SECONDS] [--dry-run] [--boot] [--made LIST] [FILE]\n"
"\n"
"Rebuild the DAMON configfs tree from FILE (default " DAMO_DEFAULT_CONF "),\n"
"as written by `damo save`: text, or JSON (save --json), told by the\n"
"content.  The file is checked (quota goals' metrics and intervals_goal\n"
"blocks against the kernel's features too) and every target resolved\n"
"before anything changes; contexts marked \"state on\" are turned on\n"
"last.  A \"unit\" target is the unit's main process (systemd's MainPID,\n"
"else the first process of its cgroup).  The ready-made policies are files\n"
"for it too (man damo, POLICIES).\n"
"On a failure, whatever was made is removed again and the failing line is\n"
"named.  Contexts of the same names must not exist (see `damo clear`).\n"
"\n"
"      --wait SECONDS   wait up to SECONDS for the processes of \"command\"\n"
"                       and \"unit\" targets to appear (default 0)\n"
"      --dry-run        check the file and print what would be done\n"
"      --boot           refuse targets given by pid, which do not survive a\n"
"                       reboot (damon-restore.service); command and unit\n"
"                       targets are fine\n"
"      --made LIST      write the names of the contexts made to LIST, for\n"
"                       `damo clear --only-from LIST`; removed on a failure\n";

static const struct num_rule wait_rule = {
	"a number of seconds", false, 0, MAX_WAIT_S,
};

int cmd_restore(int argc, char **argv)
{
	const char *path = DAMO_DEFAULT_CONF;
	struct applier ap = { 0 };
	uint64_t wait_s = 0;
	const char *made = NULL;
	bool boot = false;
	const struct damo_opt opts[] = {
		OPT_U64(0, "wait", &wait_s, &wait_rule, NULL),
		OPT_SET(0, "dry-run", &ap.dry_run),
		OPT_SET(0, "boot", &boot),
		OPT_STRING(0, "made", &made),
		OPT_HELP(),
		OPT_END(),
	};
	struct conf_node *root;
	long *pids = NULL;
	int r;

	r = opts_parse(argc, argv, opts, restore_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (opts_operand(argc, argv, "restore", &path))
		return 1;
	ap.file = path;
	root = load_conf(path);
	if (!root)
		return 1;
	if (boot && check_boot_targets(path, root)) {
		conf_free(root);
		return 1;
	}
	r = cfs_check() || check_new_contexts(path, root) ||
		check_goal_features(path, root) ||
		check_intervals_features(path, root) ||
		resolve_targets(path, root, &pids, wait_s);
	if (!r && made && !ap.dry_run)
		r = write_made(made, path, root);
	if (!r) {
		r = apply_tree(&ap, root, pids);
		if (r && made && !ap.dry_run)
			unlink(made);
	}
	applier_free(&ap);
	free(pids);
	conf_free(root);
	return r ? 1 : 0;
}
