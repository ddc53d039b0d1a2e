// SPDX-License-Identifier: GPL-2.0
/* damo: errors, numbers and files. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damo.h"

const char *damo_prog = "damo";

static void vmsg(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", damo_prog, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void damo_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void damo_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

/* Out of memory: an error like any other (the man page's EXIT STATUS). */
#define EXIT_NO_MEMORY		1

static void oom(void)
{
	fprintf(stderr, "%s: out of memory\n", damo_prog);
	exit(EXIT_NO_MEMORY);
}

void *xmalloc(size_t sz)
{
	void *p = malloc(sz ? sz : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t sz)
{
	void *p = calloc(nmemb ? nmemb : 1, sz ? sz : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

int parse_u64(const char *s, uint64_t *v)
{
	uint64_t r = 0;
	unsigned int d;

	if (*s == '+')
		s++;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = *s - '0';
		if (r > (UINT64_MAX - d) / 10)
			return -ERANGE;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

int parse_s64(const char *s, int64_t *v)
{
	bool neg = *s == '-';
	uint64_t u;
	int e;

	if (neg && s[1] == '+')
		return -EINVAL;
	e = parse_u64(s + neg, &u);
	if (e)
		return e;
	if (u > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	/* -(u - 1) - 1: INT64_MIN too, without overflow */
	*v = neg && u ? -(int64_t)(u - 1) - 1 : (int64_t)u;
	return 0;
}

#define U64_BITS		64
#define HEX_DIGIT_BITS		4

int parse_u64_any(const char *s, uint64_t *v)
{
	uint64_t r = 0;
	int d;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return parse_u64(s, v);
	s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
		d = isdigit((unsigned char)*s) ? *s - '0' :
			tolower((unsigned char)*s) - 'a' + 10;
		/* the top digit is taken: one more would overflow */
		if (r >> (U64_BITS - HEX_DIGIT_BITS))
			return -ERANGE;
		r = r << HEX_DIGIT_BITS | d;
	}
	*v = r;
	return 0;
}

/* An environment variable naming a root directory, if set and not empty. */
static const char *root_from_env(const char *name, const char *dflt)
{
	const char *r = getenv(name);

	return r && *r ? r : dflt;
}

const char *cfs_root(void)
{
	return root_from_env("DAMO_CONFIGFS", DAMO_CONFIGFS);
}

const char *proc_root(void)
{
	return root_from_env("DAMO_PROC", DAMO_PROC);
}

const char *cgroup_root(void)
{
	return root_from_env("DAMO_CGROUP", DAMO_CGROUP);
}

int cfs_check(void)
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

/* The fields of a snapshot line. */
#define SNAP_FIELDS		4

/* One line of a snapshot into r; 0, or -1 if it is not one. */
static int parse_snap_line(char *line, struct snap_region *r)
{
	uint64_t *f[SNAP_FIELDS] = {
		&r->start, &r->end, &r->nr_accesses, &r->age,
	};
	char *tok, *save = NULL;
	size_t i;

	for (i = 0; i < SNAP_FIELDS; i++) {
		tok = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok || parse_u64(tok, f[i]))
			return -1;
	}
	return strtok_r(NULL, " \t", &save) || r->start > r->end ? -1 : 0;
}

int cfs_read_snapshot(const char *target_dir, struct snap_region **regions,
		      size_t *nr)
{
	char *p = xasprintf("%s/snapshot", target_dir), *buf, *line, *next;
	struct snap_region *rs = NULL;
	size_t len, n = 0, cap = 0, lineno = 0;
	int r;

	r = read_whole(p, &buf, &len);
	if (r) {
		free(p);
		return r;
	}
	for (line = buf; line < buf + len; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = buf + len;
		lineno++;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			rs = xrealloc(rs, cap * sizeof(*rs));
		}
		if (parse_snap_line(line, &rs[n])) {
			damo_err("%s:%zu: not \"START END NR_ACCESSES AGE\"",
				 p, lineno);
			r = -EINVAL;
			break;
		}
		n++;
	}
	free(buf);
	free(p);
	if (r) {
		free(rs);
		return r;
	}
	*regions = rs;
	*nr = n;
	return 0;
}

char *cfs_features(void)
{
	char *path = xasprintf("%s/features", cfs_root()), *buf;
	size_t len;
	int r = read_whole(path, &buf, &len);

	if (r) {
		damo_err("reading %s: %s", path, strerror(-r));
		buf = NULL;
	}
	free(path);
	return buf;
}

bool features_have(const char *features, const char *word)
{
	static const char sep[] = " \t\n";
	size_t n = strlen(word);
	const char *w = features;

	while (*(w += strspn(w, sep))) {
		size_t l = strcspn(w, sep);

		if (l == n && !strncmp(w, word, n))
			return true;
		w += l;
	}
	return false;
}

int cfs_has_feature(const char *word)
{
	char *f = cfs_features();
	int r;

	if (!f)
		return -1;
	r = features_have(f, word);
	free(f);
	return r;
}

int read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int write_attr(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* An empty write is how configfs clears a string attribute. */
	n = write(fd, len ? value : "\n", len ? len : 1);
	err = errno;
	if (close(fd) && n >= 0) {
		n = -1;
		err = errno;
	}
	if (n < 0)
		return -err;
	return (size_t)n == (len ? len : 1) ? 0 : -EIO;
}

/* Room for this much first, then twice as much each time. */
#define READ_FIRST_ALLOC	4096

int set_attr(const char *dir, const char *name, const char *value)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = write_attr(p, value);

	if (r)
		damo_err("writing '%s' to %s: %s", value, p, strerror(-r));
	free(p);
	return r;
}

int get_attr(const char *dir, const char *name, char *buf,
		    size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = read_attr(p, buf, len);

	if (r)
		damo_err("reading %s: %s", p, strerror(-r));
	free(p);
	return r;
}

int read_whole(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = READ_FIRST_ALLOC;
	char *buf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap + 1);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			free(buf);
			return -err;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int list_dirs(const char *dir, char ***namesp, size_t *nrp)
{
	char **names = NULL;
	size_t nr = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR) {
			struct stat st;
			char *p;

			if (de->d_type != DT_UNKNOWN)
				continue;
			p = xasprintf("%s/%s", dir, de->d_name);
			if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
				free(p);
				continue;
			}
			free(p);
		}
		names = xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	*namesp = names;
	*nrp = nr;
	return 0;
}

int list_dirs_created(const char *dir, char ***namesp, size_t *nrp)
{
	char **names, *t;
	size_t i, nr;
	int r = list_dirs(dir, &names, &nr);

	if (r)
		return r;
	for (i = 0; i < nr / 2; i++) {
		t = names[i];
		names[i] = names[nr - 1 - i];
		names[nr - 1 - i] = t;
	}
	*namesp = names;
	*nrp = nr;
	return 0;
}

void free_names(char **names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* ------------------------------------------------------------ figures */

static const char *const byte_units[] = {
	"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
};
static const char *const time_units[] = { "ns", "us", "ms", "s" };

#define BYTE_STEP		1024
#define TIME_STEP		1000
/* Printed to a tenth, a value this close below the next step would read
 * as the step itself ("1024.0 KiB"): it takes the next unit instead. */
#define TENTH_ROUNDING		0.05

const char *fmt_fig(char buf[FIG_LEN], uint64_t v, enum fig_kind k,
		    bool raw)
{
	const char *const *units = k == FIG_BYTES ? byte_units : time_units;
	size_t nr = k == FIG_BYTES ? ARRAY_SIZE(byte_units) :
		ARRAY_SIZE(time_units);
	unsigned int step = k == FIG_BYTES ? BYTE_STEP : TIME_STEP;
	size_t u = k == FIG_US ? 1 : 0;		/* v's own unit */
	uint64_t div = 1;			/* v / div: in units[u] */
	double x;

	if (raw) {
		snprintf(buf, FIG_LEN, "%llu", (unsigned long long)v);
		return buf;
	}
	while (u + 1 < nr && v / div >= step) {
		div *= step;
		u++;
	}
	if (!(v % div)) {
		snprintf(buf, FIG_LEN, "%llu %s",
			 (unsigned long long)(v / div), units[u]);
		return buf;
	}
	x = (double)v / (double)div;
	if (x >= step - TENTH_ROUNDING && u + 1 < nr) {
		x /= step;
		u++;
	}
	snprintf(buf, FIG_LEN, "%.1f %s", x, units[u]);
	return buf;
}
