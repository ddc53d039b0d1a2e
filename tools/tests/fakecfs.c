// SPDX-License-Identifier: GPL-2.0
/*
 * fakecfs.so: an LD_PRELOAD stand-in for the DAMON configfs tree, so that
 * the host tests can run `damo record` without the kernel.  In a plain
 * directory tree at $FAKECFS_ROOT (the DAMO_CONFIGFS of the test):
 *
 *  - mkdir of contexts/NAME, contexts/NAME/targets/T or
 *    contexts/NAME/targets/T/regions/R also makes the files and default
 *    groups configfs would (with configfs's defaults);
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

static const struct attr context_attrs[] = {
	{ "operations", "vaddr" }, { "sample_us", "5000" },
	{ "aggr_us", "100000" }, { "update_us", "1000000" },
	{ "min_nr_regions", "10" }, { "max_nr_regions", "1000" },
	{ "state", "off" }, { "kdamond_pid", "-1" },
	{ "nr_aggregations", "0" }, { NULL, NULL },
};
static const char *const context_groups[] = { "targets", "schemes", NULL };

static const struct attr target_attrs[] = {
	{ "pid", "-1" }, { "snapshot", "" }, { NULL, NULL },
};
static const char *const target_groups[] = { "regions", NULL };

static const struct attr region_attrs[] = {
	{ "start", "0" }, { "end", "0" }, { NULL, NULL },
};
static const char *const no_groups[] = { NULL };

/* What kind of directory path is: 0 none of ours, else this. */
enum kind { NOT_OURS, CONTEXT, TARGET, REGION };

/* rmdir of a directory the fake kdamond is writing into: try again. */
#define RMDIR_TRIES		50
#define RMDIR_RETRY_US		2000

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

/* contexts/X is a context, contexts/X/targets/Y a target, and
 * contexts/X/targets/Y/regions/Z a region. */
static enum kind kind_of(const char *path)
{
	const char *rel = below_root(path), *p;
	int slashes = 0;

	if (!rel || strncmp(rel, "contexts/", strlen("contexts/")))
		return NOT_OURS;
	for (p = rel; *p; p++)
		slashes += *p == '/';
	if (slashes == 1)
		return CONTEXT;
	if (slashes == 3 && strstr(rel, "/targets/"))
		return TARGET;
	if (slashes == 5 && strstr(rel, "/targets/") && strstr(rel, "/regions/"))
		return REGION;
	return NOT_OURS;
}

static void make_files(const char *dir, const struct attr *attrs,
		       const char *const *groups)
{
	char p[4096];
	FILE *f;

	for (; attrs->name; attrs++) {
		snprintf(p, sizeof(p), "%s/%s", dir, attrs->name);
		f = fopen(p, "w");
		if (f) {
			fprintf(f, "%s%s", attrs->value, *attrs->value ? "\n" : "");
			fclose(f);
		}
	}
	for (; *groups; groups++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *groups);
		mkdir(p, 0755);
	}
}

static void remove_files(const char *dir, const struct attr *attrs,
			 const char *const *groups)
{
	int (*real_rmdir)(const char *) = dlsym(RTLD_NEXT, "rmdir");
	char p[4096];

	for (; attrs->name; attrs++) {
		snprintf(p, sizeof(p), "%s/%s", dir, attrs->name);
		unlink(p);
	}
	for (; *groups; groups++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *groups);
		real_rmdir(p);
	}
}

int mkdir(const char *path, mode_t mode)
{
	int (*real)(const char *, mode_t) = dlsym(RTLD_NEXT, "mkdir");
	int r = real(path, mode);

	if (r)
		return r;
	switch (kind_of(path)) {
	case CONTEXT:
		make_files(path, context_attrs, context_groups);
		break;
	case TARGET:
		make_files(path, target_attrs, target_groups);
		break;
	case REGION:
		make_files(path, region_attrs, no_groups);
		break;
	case NOT_OURS:
		break;
	}
	return 0;
}

int rmdir(const char *path)
{
	int (*real)(const char *) = dlsym(RTLD_NEXT, "rmdir");
	enum kind k = kind_of(path);
	int r, tries;

	for (tries = 0;; tries++) {
		if (k == CONTEXT)
			remove_files(path, context_attrs, context_groups);
		else if (k == TARGET)
			remove_files(path, target_attrs, target_groups);
		else if (k == REGION)
			remove_files(path, region_attrs, no_groups);
		r = real(path);
		if (!r || errno != ENOTEMPTY || k == NOT_OURS ||
		    tries == RMDIR_TRIES)
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
