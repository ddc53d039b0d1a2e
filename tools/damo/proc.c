// SPDX-License-Identifier: GPL-2.0
/*
 * Targets named by command line or systemd unit: what restore uses to turn
 * a saved "command" or "unit" back into a pid, and save --by-command and
 * --by-unit to turn a pid into its command line or unit.  Command lines
 * are found in procfs; a unit's main process is systemd's word for it
 * (systemctl), else its cgroup's first process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static char *unit_of_path(const char *path);

/* Whether a cgroup path is the unit's: its last component, or the unit
 * that owns it (a cgroup the unit made below its own). */
static bool path_is_unit(const char *path, const char *unit)
{
	const char *last = strrchr(path, '/');
	char *owner;
	bool r;

	if (!strcmp(last ? last + 1 : path, unit))
		return true;
	owner = unit_of_path(path);
	r = owner && !strcmp(owner, unit);
	free(owner);
	return r;
}

static bool match_unit(const char *proc_root, const char *pid,
		       const void *arg)
{
	char *p = xasprintf("%s/%s/cgroup", proc_root, pid), *buf, *line;
	char *save, *path;
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
		if (path)
			r = path_is_unit(path + 1, arg);
	}
	free(buf);
	return r;
}

int resolve_command(const char *proc_root, const char *cmdline, long *pid)
{
	return resolve(proc_root, match_cmdline, cmdline, false, pid);
}

char *unit_full_name(const char *unit)
{
	return strchr(unit, '.') ? xstrdup(unit) :
		xasprintf("%s.service", unit);
}

/* The oldest process of the unit's cgroup: its main process, normally. */
int resolve_unit(const char *proc_root, const char *unit, long *pid)
{
	char *u = unit_full_name(unit);
	int r = resolve(proc_root, match_unit, u, true, pid);

	free(u);
	return r;
}

/* ------------------------------------------------------------ pid to unit */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

/*
 * The unit of a cgroup path: its last component that is a service or a
 * scope (a service may have cgroups of its own below it, and user
 * services sit below user@UID.service).
 */
static char *unit_of_path(const char *path)
{
	const char *end = path + strlen(path), *start;
	char *unit;

	while (end > path) {
		start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (ends_with(start, end - start, ".service") ||
		    ends_with(start, end - start, ".scope")) {
			unit = xasprintf("%.*s", (int)(end - start), start);
			if (conf_valid_name(unit))
				return unit;
			free(unit);
			return NULL;
		}
		end = start > path ? start - 1 : path;
	}
	return NULL;
}

char *proc_unit(const char *proc_root, const char *pid)
{
	char *p = xasprintf("%s/%s/cgroup", proc_root, pid), *buf, *line;
	char *save, *path, *unit = NULL;
	size_t len;

	if (read_whole(p, &buf, &len)) {
		free(p);
		return NULL;
	}
	free(p);
	/* hierarchy-ID:controllers:path, one line per hierarchy (v1), or
	 * just "0::path" (v2): any that names a unit */
	for (line = strtok_r(buf, "\n", &save); line && !unit;
	     line = strtok_r(NULL, "\n", &save)) {
		path = strchr(line, ':');
		path = path ? strchr(path + 1, ':') : NULL;
		if (path)
			unit = unit_of_path(path + 1);
	}
	free(buf);
	return unit;
}

/* ------------------------------------------------------------ unit to pid */

/* systemctl's answer is a number, a line: this is room enough. */
#define SYSTEMCTL_OUT_MAX	64

/* Read fd to its end: what fits into buf (NUL-terminated), the rest
 * dropped, so that the writer never blocks on a full pipe. */
static void read_all(int fd, char *buf, size_t size)
{
	char chunk[SYSTEMCTL_OUT_MAX];
	size_t len = 0, take;
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0 ||
	       (n < 0 && errno == EINTR)) {
		take = n > 0 ? (size_t)n : 0;
		if (take > size - 1 - len)
			take = size - 1 - len;
		memcpy(buf + len, chunk, take);
		len += take;
	}
	buf[len] = '\0';
}

/* The output of argv (run with no stdin and no stderr) into buf; its exit
 * status, or -errno if it could not run. */
static int run_capture(char *const argv[], char *buf, size_t size)
{
	posix_spawn_file_actions_t fa;
	int fds[2], r, status;
	pid_t child;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	r = posix_spawnp(&child, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (r) {
		close(fds[0]);
		return -r;
	}
	read_all(fds[0], buf, size);
	close(fds[0]);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}

/*
 * systemd's MainPID of the unit: 0, or -ESRCH if it has none (not running,
 * a scope, or no such unit) or systemd cannot be asked (no systemctl, or
 * no systemd running).  $DAMO_SYSTEMCTL names the program; "": none.
 */
static int systemctl_main_pid(const char *unit, long *pid)
{
	const char *prog = getenv("DAMO_SYSTEMCTL");
	char *argv[] = {
		(char *)(prog ? prog : "systemctl"), "show", "-p", "MainPID",
		"--value", "--", (char *)unit, NULL,
	};
	char out[SYSTEMCTL_OUT_MAX];
	uint64_t v;

	if (prog && !*prog)
		return -ESRCH;
	if (run_capture(argv, out, sizeof(out)))
		return -ESRCH;
	out[strcspn(out, "\n")] = '\0';
	if (parse_u64(out, &v) || !v || v > DAMO_PID_MAX)
		return -ESRCH;
	*pid = (long)v;
	return 0;
}

/* The first pid in dir/cgroup.procs; -ESRCH if there is none. */
static int cgroup_first_proc(const char *dir, long *pid)
{
	char *p = xasprintf("%s/cgroup.procs", dir), *buf;
	uint64_t v = 0;
	size_t len;

	if (read_whole(p, &buf, &len)) {
		free(p);
		return -ESRCH;
	}
	free(p);
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_u64(buf, &v) || !v || v > DAMO_PID_MAX)
		v = 0;
	free(buf);
	if (!v)
		return -ESRCH;
	*pid = (long)v;
	return 0;
}

/* A unit's cgroup may hold its processes in cgroups below it (delegation;
 * cgroup v2 has none in a parent then): looked for this deep. */
#define UNIT_SUBTREE_DEPTH	4

/* The first process in dir or, if none, in the cgroups below it. */
static int cgroup_subtree_proc(const char *dir, int depth, long *pid)
{
	char **names, *p;
	size_t nr, i;
	int r = cgroup_first_proc(dir, pid);

	if (!r || !depth || list_dirs(dir, &names, &nr))
		return r;
	qsort(names, nr, sizeof(*names), name_cmp);
	for (i = 0; i < nr && r; i++) {
		p = xasprintf("%s/%s", dir, names[i]);
		r = cgroup_subtree_proc(p, depth - 1, pid);
		free(p);
	}
	free_names(names, nr);
	return r;
}

/* Units sit this deep in the cgroup tree at the most (a user's service:
 * user.slice/user-UID.slice/user@UID.service/app.slice/NAME.service). */
#define CGROUP_SEARCH_DEPTH	8

/*
 * One level of the search: the cgroups below dirs that are named unit and
 * hold a process; else the next level's directories into *next.
 */
static int search_level(char **dirs, size_t nr, const char *unit,
			long *pid, char ***next, size_t *nr_next)
{
	char **names, *p;
	size_t i, k, nr_names;
	int r = -ESRCH;

	for (i = 0; i < nr && r; i++) {
		if (list_dirs(dirs[i], &names, &nr_names))
			continue;	/* gone, or not ours to read */
		qsort(names, nr_names, sizeof(*names), name_cmp);
		for (k = 0; k < nr_names && r; k++) {
			p = xasprintf("%s/%s", dirs[i], names[k]);
			if (!strcmp(names[k], unit))
				r = cgroup_subtree_proc(p, UNIT_SUBTREE_DEPTH,
							pid);
			*next = xrealloc(*next, (*nr_next + 1) * sizeof(**next));
			(*next)[(*nr_next)++] = p;
		}
		free_names(names, nr_names);
	}
	return r;
}

/*
 * The first process of the unit's cgroup, searched for breadth first under
 * root, so that the system's unit comes before a container's of the same
 * name; -ENOENT if no cgroup tree is mounted at root.
 */
static int cgroup_unit_proc(const char *root, const char *unit, long *pid)
{
	char **level, **next;
	size_t nr = 1, nr_next;
	int depth, r = -ESRCH;
	char *procs = xasprintf("%s/cgroup.procs", root);
	bool mounted = !access(procs, R_OK);

	/* an empty /sys/fs/cgroup (nothing mounted there) is no tree */
	free(procs);
	if (!mounted)
		return -ENOENT;
	level = xmalloc(sizeof(*level));
	level[0] = xstrdup(root);
	for (depth = 0; depth < CGROUP_SEARCH_DEPTH && nr && r; depth++) {
		next = NULL;
		nr_next = 0;
		r = search_level(level, nr, unit, pid, &next, &nr_next);
		free_names(level, nr);
		level = next;
		nr = nr_next;
	}
	free_names(level, nr);
	return r;
}

int unit_main_pid(const char *unit, long *pid)
{
	char *u = unit_full_name(unit);
	int r = systemctl_main_pid(u, pid);

	if (r)
		r = cgroup_unit_proc(cgroup_root(), u, pid);
	/* no cgroup tree mounted: procfs still says whose a process is */
	if (r == -ENOENT)
		r = resolve_unit(proc_root(), u, pid);
	free(u);
	return r;
}
