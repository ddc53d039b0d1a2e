// SPDX-License-Identifier: GPL-2.0
/*
 * fakecfs.so: an LD_PRELOAD stand-in for the DAMON configfs tree, so that
 * the host tests can run `damo record` without the kernel.  In a plain
 * directory tree at $FAKECFS_ROOT (the DAMO_CONFIGFS of the test):
 *
 *  - mkdir of a context, a target, a region, a scheme, a filter or a
 *    quota goal (contexts/NAME, .../targets/T, .../regions/R,
 *    .../schemes/S, .../filters/F, .../quotas/goals/G) also makes the
 *    files and default groups configfs would, with configfs's defaults
 *    (a context's intervals_goal/, a scheme's access_pattern/, quotas/
 *    with its goals/, watermarks/, filters/ and stats/);
 *  - rmdir of them removes those again first, as configfs does;
 *  - opening a file there for writing truncates it, since a configfs
 *    write replaces the value ("on" written over "off" reads "on").
 *
 * What the kernel does with the files (nr_aggregations, snapshots, state
 * going off when the targets exit) is tests/fakekdamond.py's part.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file of a directory configfs makes, and what it holds at first. */
struct attr {
	const char *name;
	const char *value;
};

/* A directory configfs makes: its files and its default groups. */
struct dir_spec {
	const char *name;		/* a default group's name */
	const struct attr *attrs;
	const struct dir_spec *const *groups;	/* NULL-terminated */
};

static const struct dir_spec *const no_groups[] = { NULL };

static const struct attr intervals_attrs[] = {
	{ "access_bp", "0" }, { "aggrs", "3" }, { "min_sample_us", "5000" },
	{ "max_sample_us", "10000000" }, { NULL, NULL },
};
static const struct attr no_attrs[] = { { NULL, NULL } };
static const struct dir_spec intervals_dir = {
	"intervals_goal", intervals_attrs, no_groups,
};
static const struct dir_spec targets_dir = { "targets", no_attrs, no_groups };
static const struct dir_spec schemes_dir = { "schemes", no_attrs, no_groups };
static const struct attr context_attrs[] = {
	{ "operations", "vaddr" }, { "sample_us", "5000" },
	{ "aggr_us", "100000" }, { "update_us", "1000000" },
	{ "min_nr_regions", "10" }, { "max_nr_regions", "1000" },
	{ "state", "off" }, { "kdamond_pid", "-1" },
	{ "nr_aggregations", "0" }, { NULL, NULL },
};
static const struct dir_spec *const context_groups[] = {
	&targets_dir, &schemes_dir, &intervals_dir, NULL,
};
static const struct dir_spec context_dir = {
	NULL, context_attrs, context_groups,
};

static const struct attr target_attrs[] = {
	{ "pid", "-1" }, { "snapshot", "" }, { NULL, NULL },
};
static const struct dir_spec regions_dir = { "regions", no_attrs, no_groups };
static const struct dir_spec *const target_groups[] = { &regions_dir, NULL };
static const struct dir_spec target_dir = {
	NULL, target_attrs, target_groups,
};

static const struct attr region_attrs[] = {
	{ "start", "0" }, { "end", "0" }, { NULL, NULL },
};
static const struct dir_spec region_dir = { NULL, region_attrs, no_groups };

static const struct attr pattern_attrs[] = {
	{ "min_size_bytes", "0" },
	{ "max_size_bytes", "18446744073709551615" },
	{ "min_nr_accesses", "0" }, { "max_nr_accesses", "4294967295" },
	{ "min_age", "0" }, { "max_age", "4294967295" }, { NULL, NULL },
};
static const struct dir_spec pattern_dir = {
	"access_pattern", pattern_attrs, no_groups,
};
static const struct dir_spec goals_dir = { "goals", no_attrs, no_groups };
static const struct dir_spec *const quotas_groups[] = { &goals_dir, NULL };
static const struct attr quotas_attrs[] = {
	{ "ms", "0" }, { "bytes", "0" }, { "reset_interval_ms", "1000" },
	{ "weight_size", "0" }, { "weight_nr_accesses", "1" },
	{ "weight_age", "1" }, { "effective_bytes", "0" }, { NULL, NULL },
};
static const struct dir_spec quotas_dir = {
	"quotas", quotas_attrs, quotas_groups,
};
static const struct attr wmarks_attrs[] = {
	{ "metric", "none" }, { "interval_us", "5000000" }, { "high", "0" },
	{ "mid", "0" }, { "low", "0" }, { NULL, NULL },
};
static const struct dir_spec wmarks_dir = {
	"watermarks", wmarks_attrs, no_groups,
};
static const struct dir_spec filters_dir = { "filters", no_attrs, no_groups };
static const struct attr stats_attrs[] = {
	{ "nr_tried", "0" }, { "sz_tried", "0" }, { "nr_applied", "0" },
	{ "sz_applied", "0" }, { "qt_exceeds", "0" }, { NULL, NULL },
};
static const struct dir_spec stats_dir = { "stats", stats_attrs, no_groups };
static const struct attr scheme_attrs[] = {
	{ "action", "stat" }, { "apply_interval_us", "0" },
	{ "target_nid", "-1" }, { NULL, NULL },
};
static const struct dir_spec *const scheme_groups[] = {
	&pattern_dir, &quotas_dir, &wmarks_dir, &filters_dir, &stats_dir,
	NULL,
};
static const struct dir_spec scheme_dir = {
	NULL, scheme_attrs, scheme_groups,
};

static const struct attr filter_attrs[] = {
	{ "type", "anon" }, { "matching", "Y" }, { "addr_start", "0" },
	{ "addr_end", "0" }, { "target", "" }, { "memcg_path", "" },
	{ NULL, NULL },
};
static const struct dir_spec filter_dir = { NULL, filter_attrs, no_groups };

static const struct attr goal_attrs[] = {
	{ "target_metric", "user_input" }, { "target_value", "0" },
	{ "current_value", "0" }, { "nid", "0" }, { "memcg_path", "" },
	{ NULL, NULL },
};
static const struct dir_spec goal_dir = { NULL, goal_attrs, no_groups };

/* rmdir of a directory the fake kdamond is writing into: try again. */
#define RMDIR_TRIES		50
#define RMDIR_RETRY_US		2000
/* Components of our deepest path: contexts/X/schemes/S/quotas/goals/G */
#define MAX_DEPTH		7

/* path below $FAKECFS_ROOT, or NULL */
static const char *below_root(const char *path)
{
	const char *root = getenv("FAKECFS_ROOT");
	size_t n;

	if (!root || !*root)
		return NULL;
	n = strlen(root);
	if (strncmp(path, root, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* Where a directory the user makes may be: "*" any name. */
static const struct {
	const char *pattern[MAX_DEPTH + 1];	/* NULL-terminated */
	const struct dir_spec *spec;
} made_dirs[] = {
	{ { "contexts", "*", NULL }, &context_dir },
	{ { "contexts", "*", "targets", "*", NULL }, &target_dir },
	{ { "contexts", "*", "targets", "*", "regions", "*", NULL },
	  &region_dir },
	{ { "contexts", "*", "schemes", "*", NULL }, &scheme_dir },
	{ { "contexts", "*", "schemes", "*", "filters", "*", NULL },
	  &filter_dir },
	{ { "contexts", "*", "schemes", "*", "quotas", "goals", "*", NULL },
	  &goal_dir },
};

/* What kind of directory path is, by its components below the root; NULL:
 * none of ours. */
static const struct dir_spec *spec_of(const char *path)
{
	const char *rel = below_root(path), *c[MAX_DEPTH + 1];
	const char *const *pat;
	size_t n = 0, i, k;

	if (!rel)
		return NULL;
	for (c[n++] = rel; *rel; rel++) {
		if (*rel != '/')
			continue;
		if (n > MAX_DEPTH)
			return NULL;
		c[n++] = rel + 1;
	}
	for (i = 0; i < sizeof(made_dirs) / sizeof(made_dirs[0]); i++) {
		pat = made_dirs[i].pattern;
		for (k = 0; k < n && pat[k]; k++) {
			size_t l = strcspn(c[k], "/");

			if (!l || (strcmp(pat[k], "*") &&
				   (strlen(pat[k]) != l ||
				    strncmp(pat[k], c[k], l))))
				break;
		}
		if (k == n && !pat[k])
			return made_dirs[i].spec;
	}
	return NULL;
}

/* The files and default groups of dir, the groups' own included. */
static void make_files(const char *dir, const struct dir_spec *d)
{
	int (*real_mkdir)(const char *, mode_t) = dlsym(RTLD_NEXT, "mkdir");
	const struct dir_spec *const *g;
	const struct attr *a;
	char p[4096];
	FILE *f;

	for (a = d->attrs; a->name; a++) {
		snprintf(p, sizeof(p), "%s/%s", dir, a->name);
		f = fopen(p, "w");
		if (f) {
			fprintf(f, "%s%s", a->value, *a->value ? "\n" : "");
			fclose(f);
		}
	}
	for (g = d->groups; *g; g++) {
		snprintf(p, sizeof(p), "%s/%s", dir, (*g)->name);
		real_mkdir(p, 0755);
		make_files(p, *g);
	}
}

static void remove_files(const char *dir, const struct dir_spec *d)
{
	int (*real_rmdir)(const char *) = dlsym(RTLD_NEXT, "rmdir");
	const struct dir_spec *const *g;
	const struct attr *a;
	char p[4096];

	for (a = d->attrs; a->name; a++) {
		snprintf(p, sizeof(p), "%s/%s", dir, a->name);
		unlink(p);
	}
	for (g = d->groups; *g; g++) {
		snprintf(p, sizeof(p), "%s/%s", dir, (*g)->name);
		remove_files(p, *g);
		real_rmdir(p);
	}
}

int mkdir(const char *path, mode_t mode)
{
	int (*real)(const char *, mode_t) = dlsym(RTLD_NEXT, "mkdir");
	const struct dir_spec *d;
	int r = real(path, mode);

	if (r)
		return r;
	d = spec_of(path);
	if (d)
		make_files(path, d);
	return 0;
}

int rmdir(const char *path)
{
	int (*real)(const char *) = dlsym(RTLD_NEXT, "rmdir");
	const struct dir_spec *d = spec_of(path);
	int r, tries;

	for (tries = 0;; tries++) {
		if (d)
			remove_files(path, d);
		r = real(path);
		if (!r || errno != ENOTEMPTY || !d || tries == RMDIR_TRIES)
			return r;
		usleep(RMDIR_RETRY_US);
	}
}

static int call_open(const char *name, const char *path, int flags,
		     mode_t mode)
{
	int (*real)(const char *, int, ...) = dlsym(RTLD_NEXT, name);

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (below_root(path) && (flags & O_ACCMODE) != O_RDONLY)
		flags |= O_TRUNC;
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return call_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return call_open("open64", path, flags, mode);
}
