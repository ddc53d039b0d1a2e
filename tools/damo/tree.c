// SPDX-License-Identifier: GPL-2.0
/*
 * damo save, restore and clear: the whole configfs tree to a file and back.
 *
 * restore checks the whole file (syntax, values, and for contexts that are
 * to be on, what "on" will check) and resolves every target to a pid
 * before it touches the kernel.  Then it makes directories and writes
 * attributes in file order, and turns contexts on last.  On any failure it
 * turns off what it turned on and removes what it made, newest first, and
 * names the line that failed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "damo.h"

/* ------------------------------------------------------------ targets */

static char *proc_cmdline(const char *proc_root, const char *pid)
{
	char *p = xasprintf("%s/%s/cmdline", proc_root, pid), *buf;
	size_t len, i;

	if (read_whole(p, &buf, &len)) {
		free(p);
		return NULL;
	}
	free(p);
	while (len && buf[len - 1] == '\0')
		len--;
	buf[len] = '\0';
	for (i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf;
}

/* Field 22 of /proc/PID/stat: when the process started, in ticks. */
static unsigned long long proc_starttime(const char *proc_root,
					 const char *pid)
{
	char *p = xasprintf("%s/%s/stat", proc_root, pid), *buf, *s;
	unsigned long long v = 0;
	size_t len;
	int field;

	if (read_whole(p, &buf, &len)) {
		free(p);
		return 0;
	}
	free(p);
	s = strrchr(buf, ')');
	for (field = 2; s && field < 22; field++) {
		s = strchr(s + 1, ' ');
		if (s)
			while (s[1] == ' ')
				s++;
	}
	if (s)
		v = strtoull(s + 1, NULL, 10);
	free(buf);
	return v;
}

/*
 * The processes for which match(pid) holds: exactly one must, or, with
 * oldest, the one started first is taken.
 */
static int resolve(const char *proc_root,
		   bool (*match)(const char *proc_root, const char *pid,
				 const void *arg),
		   const void *arg, bool oldest, long *pidp)
{
	unsigned long long best_start = 0, st;
	long best = 0, pid, self = getpid();
	int nr = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(proc_root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;

		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		if (!match(proc_root, de->d_name, arg))
			continue;
		nr++;
		st = oldest ? proc_starttime(proc_root, de->d_name) : 0;
		if (nr == 1 || st < best_start ||
		    (st == best_start && pid < best)) {
			best = pid;
			best_start = st;
		}
	}
	closedir(d);
	if (!nr)
		return -ESRCH;
	if (nr > 1 && !oldest)
		return -EEXIST;
	*pidp = best;
	return 0;
}

static bool match_cmdline(const char *proc_root, const char *pid,
			  const void *arg)
{
	char *c = proc_cmdline(proc_root, pid);
	bool r = c && !strcmp(c, arg);

	free(c);
	return r;
}

static bool match_unit(const char *proc_root, const char *pid,
		       const void *arg)
{
	char *p = xasprintf("%s/%s/cgroup", proc_root, pid), *buf, *line;
	char *save, *path, *last;
	bool r = false;
	size_t len;

	if (read_whole(p, &buf, &len)) {
		free(p);
		return false;
	}
	free(p);
	for (line = strtok_r(buf, "\n", &save); line && !r;
	     line = strtok_r(NULL, "\n", &save)) {
		/* hierarchy-ID:controllers:path */
		path = strchr(line, ':');
		path = path ? strchr(path + 1, ':') : NULL;
		if (!path)
			continue;
		last = strrchr(path + 1, '/');
		last = last ? last + 1 : path + 1;
		r = !strcmp(last, arg);
	}
	free(buf);
	return r;
}

int resolve_command(const char *proc_root, const char *cmdline, long *pid)
{
	return resolve(proc_root, match_cmdline, cmdline, false, pid);
}

/* The oldest process of the unit's cgroup: its main process, normally. */
int resolve_unit(const char *proc_root, const char *unit, long *pid)
{
	char *u = strchr(unit, '.') ? xstrdup(unit) :
		xasprintf("%s.service", unit);
	int r = resolve(proc_root, match_unit, u, true, pid);

	free(u);
	return r;
}

/* ------------------------------------------------------------ save */

static int read_value(const char *dir, const char *name, char *buf,
		      size_t size)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = read_attr(p, buf, size);

	if (r)
		damo_err("reading %s: %s", p, strerror(-r));
	free(p);
	return r;
}

static int save_attrs(struct conf_node *n, const char *dir, bool with_state)
{
	const char *const *a;
	char buf[4096];

	for (a = conf_kind_attrs(n->kind); *a; a++) {
		if (n->kind == CK_TARGET && strcmp(*a, "pid"))
			continue;
		if (n->kind == CK_CONTEXT && !strcmp(*a, "state") &&
		    !with_state)
			continue;
		if (read_value(dir, *a, buf, sizeof(buf)))
			return -1;
		if (n->kind == CK_TARGET && !strcmp(buf, "-1"))
			continue;	/* no pid set */
		conf_set(n, *a, buf, 0);
	}
	return 0;
}

/* Named children of kind k under dir/<kind dir>, sorted by name or, for
 * filters, in creation order (which configfs lists newest first). */
static int save_children(struct conf_node *parent, const char *dir,
			 enum conf_kind k, int (*fill)(struct conf_node *,
						       const char *, bool),
			 bool by_command)
{
	char *sub = xasprintf("%s/%s", dir, conf_kind_dir(k)), **names;
	size_t nr, i;
	int r;

	r = list_dirs(sub, &names, &nr);
	if (r) {
		damo_err("listing %s: %s", sub, strerror(-r));
		free(sub);
		return -1;
	}
	if (k == CK_FILTER) {
		for (i = 0; i < nr / 2; i++) {
			char *t = names[i];

			names[i] = names[nr - 1 - i];
			names[nr - 1 - i] = t;
		}
	} else if (nr) {
		qsort(names, nr, sizeof(*names), name_cmp);
	}
	for (i = 0; i < nr && !r; i++) {
		struct conf_node *c = conf_add_child(parent, k, names[i], 0);
		char *p = xasprintf("%s/%s", sub, names[i]);

		r = fill(c, p, by_command);
		free(p);
	}
	free_names(names, nr);
	free(sub);
	return r;
}

static int fill_plain(struct conf_node *n, const char *dir, bool by_command)
{
	(void)by_command;
	return save_attrs(n, dir, false);
}

static int fill_target(struct conf_node *n, const char *dir, bool by_command)
{
	const char *pid;
	char *cmd;

	if (save_attrs(n, dir, false))
		return -1;
	pid = conf_get(n, "pid");
	if (by_command && pid) {
		cmd = proc_cmdline("/proc", pid);
		if (cmd && *cmd) {
			/* a target's only attribute is its pid */
			free(n->attrs[0].key);
			free(n->attrs[0].value);
			n->attrs[0].key = xstrdup("command");
			n->attrs[0].value = cmd;
			cmd = NULL;
		} else {
			damo_warn("target %s: no command line for pid %s, saving the pid",
				  n->name, pid);
		}
		free(cmd);
	}
	return save_children(n, dir, CK_REGION, fill_plain, false);
}

static int fill_group(struct conf_node *parent, const char *dir,
		      enum conf_kind k)
{
	struct conf_node *g = conf_add_child(parent, k, NULL, 0);
	char *p = xasprintf("%s/%s", dir, conf_kind_dir(k));
	int r = save_attrs(g, p, false);

	free(p);
	return r;
}

static int fill_scheme(struct conf_node *n, const char *dir, bool by_command)
{
	(void)by_command;
	if (save_attrs(n, dir, false) ||
	    fill_group(n, dir, CK_PATTERN) || fill_group(n, dir, CK_QUOTAS) ||
	    fill_group(n, dir, CK_WMARKS))
		return -1;
	return save_children(n, dir, CK_FILTER, fill_plain, false);
}

static int fill_context(struct conf_node *n, const char *dir,
			bool by_command)
{
	char buf[64];

	if (save_attrs(n, dir, false) ||
	    save_children(n, dir, CK_TARGET, fill_target, by_command) ||
	    save_children(n, dir, CK_SCHEME, fill_scheme, false))
		return -1;
	if (read_value(dir, "state", buf, sizeof(buf)))
		return -1;
	conf_set(n, "state", buf, 0);
	return 0;
}

static int check_configfs(void)
{
	char *p = xasprintf("%s/contexts", cfs_root());
	struct stat st;
	int r = 0;

	if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
		damo_err("%s: %s (is configfs mounted, and the kernel built with CONFIG_DAMON_CONFIGFS?)",
			 p, strerror(errno ? errno : ENOTDIR));
		r = -1;
	}
	free(p);
	return r;
}

static const char save_usage[] =
"usage: damo save [--by-command] [FILE]\n"
"\n"
"Write the whole DAMON configfs tree (contexts, targets, regions, schemes\n"
"and their groups, and which contexts are on) to FILE (default\n"
DAMO_DEFAULT_CONF "; '-' for standard output).  The file is replaced\n"
"atomically.\n"
"\n"
"      --by-command     save targets as their command lines (\"command ...\")\n"
"                       instead of pids, for restoring after a reboot\n";

int cmd_save(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "by-command", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = DAMO_DEFAULT_CONF;
	struct conf_node *root;
	bool by_command = false;
	char *dir, *text;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			by_command = true;
			break;
		case 'h':
			fputs(save_usage, stdout);
			return 0;
		default:
			fputs(save_usage, stderr);
			return 1;
		}
	}
	if (optind + 1 < argc) {
		damo_err("save: too many arguments");
		return 1;
	}
	if (optind < argc)
		path = argv[optind];
	if (check_configfs())
		return 1;
	root = conf_new(CK_ROOT, NULL, 0);
	dir = xstrdup(cfs_root());
	r = save_children(root, dir, CK_CONTEXT, fill_context, by_command);
	free(dir);
	if (r) {
		conf_free(root);
		return 1;
	}
	text = conf_to_string(root);
	conf_free(root);
	if (!strcmp(path, "-")) {
		fputs(text, stdout);
		free(text);
		return fflush(stdout) ? 1 : 0;
	} else {
		char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
		char *pdir = xstrdup(path);
		FILE *f;

		/* make /etc/damon on first use */
		if (mkdir(dirname(pdir), 0755) && errno != EEXIST) {
			damo_err("making %s: %s", pdir, strerror(errno));
		}
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
		free(text);
		return r ? 1 : 0;
	}
}

/* ------------------------------------------------------------ restore */

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
	if (mkdir(path, 0755)) {
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

/* Write n's attributes (all but a context's state; targets: pid). */
static int apply_attrs(struct applier *ap, const struct conf_node *n,
		       const char *dir)
{
	size_t i;

	for (i = 0; i < n->nr_attrs; i++) {
		const struct conf_attr *a = &n->attrs[i];

		if (n->kind == CK_CONTEXT && !strcmp(a->key, "state"))
			continue;
		if (n->kind == CK_TARGET)
			continue;	/* resolved pids: apply_node */
		if (!*a->value)
			continue;	/* an empty string: the default */
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

/* Resolve every target to a pid (0: none given), in tree order. */
static int resolve_targets(const char *file, const struct conf_node *root,
			   long **pidsp, size_t *nrp, double wait_s)
{
	struct timespec start, now;
	long *pids = NULL;
	size_t nr = 0, i, j;
	int r = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < root->nr_children; i++) {
		const struct conf_node *c = root->children[i];

		for (j = 0; j < c->nr_children; j++) {
			const struct conf_node *t = c->children[j];
			const struct conf_attr *a;
			uint64_t u;
			long pid = 0;

			if (t->kind != CK_TARGET)
				continue;
			pids = xrealloc(pids, (nr + 1) * sizeof(*pids));
			for (;;) {
				r = 0;
				if ((a = conf_get_attr(t, "pid"))) {
					parse_u64(a->value, &u);
					pid = (long)u;
				} else if ((a = conf_get_attr(t, "command"))) {
					r = resolve_command("/proc", a->value, &pid);
				} else if ((a = conf_get_attr(t, "unit"))) {
					r = resolve_unit("/proc", a->value, &pid);
				}
				if (r != -ESRCH)
					break;
				clock_gettime(CLOCK_MONOTONIC, &now);
				if (now.tv_sec - start.tv_sec +
				    (now.tv_nsec - start.tv_nsec) / 1e9 >= wait_s)
					break;
				usleep(200000);
			}
			if (r) {
				damo_err("%s:%d: target %s: %s '%s': %s", file,
					 a->line, t->name,
					 r == -EEXIST ? "more than one process runs" :
					 "no process runs",
					 a->value,
					 r == -EEXIST ? "give a pid instead" :
					 strerror(-r));
				free(pids);
				return -1;
			}
			pids[nr++] = pid;
		}
	}
	*pidsp = pids;
	*nrp = nr;
	return 0;
}

static const char restore_usage[] =
"usage: damo restore [--wait SECONDS] [--dry-run] [FILE]\n"
"\n"
"Rebuild the DAMON configfs tree from FILE (default " DAMO_DEFAULT_CONF "),\n"
"as written by `damo save`.  The file is checked and every target resolved\n"
"before anything changes; contexts marked \"state on\" are turned on last.\n"
"On a failure, whatever was made is removed again and the failing line is\n"
"named.  Contexts of the same names must not exist (see `damo clear`).\n"
"\n"
"      --wait SECONDS   wait up to SECONDS for the processes of \"command\"\n"
"                       and \"unit\" targets to appear (default 0)\n"
"      --dry-run        check the file and print what would be done\n";

int cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "wait", required_argument, NULL, 'w' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = DAMO_DEFAULT_CONF;
	struct applier ap = { 0 };
	struct conf_node *root;
	double wait_s = 0;
	char err[512], *text, *ctxdir;
	size_t len, i, nr_pids, pidx = 0;
	long *pids = NULL;
	struct stat st;
	uint64_t u;
	int c, r, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (parse_u64(optarg, &u) || u > 86400) {
				damo_err("--wait: '%s' is not a number of seconds",
					 optarg);
				return 1;
			}
			wait_s = (double)u;
			break;
		case 'n':
			ap.dry_run = true;
			break;
		case 'h':
			fputs(restore_usage, stdout);
			return 0;
		default:
			fputs(restore_usage, stderr);
			return 1;
		}
	}
	if (optind + 1 < argc) {
		damo_err("restore: too many arguments");
		return 1;
	}
	if (optind < argc)
		path = argv[optind];
	ap.file = path;
	r = read_whole(path, &text, &len);
	if (r) {
		damo_err("cannot read %s: %s", path, strerror(-r));
		return 1;
	}
	if (strlen(text) != len) {
		damo_err("%s: not a text file (NUL bytes)", path);
		free(text);
		return 1;
	}
	root = conf_parse(text, err, sizeof(err));
	free(text);
	if (!root) {
		damo_err("%s:%s", path, err + 5);	/* "line N: ..." */
		return 1;
	}
	if (conf_validate(root, err, sizeof(err))) {
		damo_err("%s:%s", path, err + 5);
		goto out;
	}
	if (check_configfs())
		goto out;
	for (i = 0; i < root->nr_children; i++) {
		char *p = xasprintf("%s/contexts/%s", cfs_root(),
				    root->children[i]->name);

		r = stat(p, &st);
		free(p);
		if (!r) {
			damo_err("%s:%d: context %s exists already; nothing changed (`damo clear` removes the whole tree)",
				 path, root->children[i]->line,
				 root->children[i]->name);
			goto out;
		}
	}
	if (resolve_targets(path, root, &pids, &nr_pids, wait_s))
		goto out;

	for (i = 0; i < root->nr_children; i++)
		if (apply_node(&ap, root->children[i], cfs_root(), pids, &pidx))
			goto fail;
	for (i = 0; i < root->nr_children; i++) {
		const struct conf_node *cn = root->children[i];
		const char *state = conf_get(cn, "state");

		if (!state || strcmp(state, "on"))
			continue;
		ctxdir = xasprintf("%s/contexts/%s", cfs_root(), cn->name);
		if (do_write(&ap, ctxdir, "state", "on",
			     conf_get_attr(cn, "state")->line)) {
			free(ctxdir);
			goto fail;
		}
		ap.turned_on = xrealloc(ap.turned_on,
					(ap.nr_on + 1) * sizeof(*ap.turned_on));
		ap.turned_on[ap.nr_on++] = ctxdir;
	}
	ret = 0;
	goto out;
fail:
	rollback(&ap);
out:
	applier_free(&ap);
	free(pids);
	conf_free(root);
	return ret;
}

/* ------------------------------------------------------------ clear */

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
	if (check_configfs())
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
