// SPDX-License-Identifier: GPL-2.0
/*
 * Targets named by command line or systemd unit, found in procfs: what
 * restore uses to turn a saved "command" or "unit" back into a pid, and
 * save --by-command to turn a pid into its command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damo.h"

char *proc_cmdline(const char *proc_root, const char *pid)
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

/* proc(5): /proc/PID/stat's field 2 is (comm), 22 the start time. */
#define STAT_COMM_FIELD		2
#define STAT_STARTTIME_FIELD	22

/* When the process started, in ticks since boot. */
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
	/* comm may hold spaces and parentheses: count from its end */
	for (field = STAT_COMM_FIELD; s && field < STAT_STARTTIME_FIELD;
	     field++) {
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
	size_t nr_names, i;
	char **names, *end;
	int nr = 0, r;

	r = list_dirs(proc_root, &names, &nr_names);
	if (r)
		return r;
	for (i = 0; i < nr_names; i++) {
		pid = strtol(names[i], &end, 10);
		if (*end || pid <= 0 || pid == self ||
		    !match(proc_root, names[i], arg))
			continue;
		nr++;
		st = oldest ? proc_starttime(proc_root, names[i]) : 0;
		if (nr == 1 || st < best_start ||
		    (st == best_start && pid < best)) {
			best = pid;
			best_start = st;
		}
	}
	free_names(names, nr_names);
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
