// SPDX-License-Identifier: GPL-2.0
/*
 * damo record: make a context through configfs with a target for every pid
 * given (or one for a command it starts; or, with --paddr, one without a
 * pid for the machine's physical memory), and take a snapshot of every
 * target for every aggregation, until all of them have exited, a signal
 * asks to stop or --timeout runs out: appended to the file as it comes in
 * the seed's format, kept and written at the end in the JSON ones.  Then
 * remove exactly the directories made here.
 *
 * Aggregations are noticed by polling nr_aggregations at a tenth of the
 * aggregation interval; after it moves, every target's snapshot is read
 * and nr_aggregations again: if it still reads the same, the snapshots are
 * that aggregation's.  Aggregations that passed unseen are counted as lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "damo.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const char record_usage[] =
"usage: damo record [OPTIONS] PID [PID...]\n"
"       damo record [OPTIONS] COMMAND [ARG...]\n"
"       damo record [OPTIONS] \"SHELL COMMAND LINE\"\n"
"       damo record [OPTIONS] --paddr [--region START-END...]\n"
"\n"
"Monitor processes with DAMON and record every aggregation's regions to a\n"
"file, until they have all exited, --timeout runs out or damo gets SIGINT,\n"
"SIGTERM or SIGHUP.  Several PIDs (damo record $(pidof app)) are one\n"
"context with a target each.  A first argument that is not a number is a\n"
"COMMAND, started by damo (and sent SIGTERM if damo stops first).  The\n"
"file is made with mode 0600: it shows the processes' address layout.\n"
"On a terminal, stderr shows the progress.\n"
"\n"
"With --paddr, the machine's physical memory is recorded instead (DAMON's\n"
"paddr operations: ops:paddr in features), whoever maps it: all of RAM, or\n"
"the --region ranges.  It takes no PID or COMMAND, and records until\n"
"--timeout runs out or a signal comes.\n"
"\n"
"  -s, --sample US      sampling interval in microseconds (kernel default\n"
"                       5000)\n"
"  -a, --aggr US        aggregation interval (default 100000)\n"
"  -u, --updr US        regions update interval (default 1000000)\n"
"  -n, --minr N         minimum number of regions (default 10)\n"
"  -m, --maxr N         maximum number of regions (default 1000)\n"
"  -o, --out FILE       record file (default " DAMO_DEFAULT_RECORD "); an\n"
"                       existing FILE is renamed to FILE.old\n"
"      --format FORMAT  " REC_FORMAT_NAMES ": damonitor/damo's JSON\n"
"                       record list, zlib-compressed (the default) or\n"
"                       plain, written when recording ends; or the\n"
"                       seed's binary snapshots, appended as they come\n"
"  -c, --context NAME   configfs context name (default damo-record.PID)\n"
"      --timeout SECONDS\n"
"                       stop recording after this long (30, 2.5, ...)\n"
"      --paddr          record physical memory (see above)\n"
"      --region START-END\n"
"                       with --paddr: a physical address range to record\n"
"                       (bytes, decimal or 0x hexadecimal, END exclusive)\n"
"                       instead of all of RAM; repeatable\n"
"  -l, --rbuf LEN       accepted for compatibility, ignored\n"
"  -h, --help\n"
"\n"
"The configfs root is $DAMO_CONFIGFS or " DAMO_CONFIGFS ".\n";

/* Aggregations are polled for this often, within these bounds. */
#define POLLS_PER_AGGR		10
#define POLL_MIN_US		1000
#define POLL_MAX_US		100000
/* After a new aggregation, this part of a poll for the kdamond to finish. */
#define SETTLE_PARTS		4

/* A number or a word read from configfs. */
#define ATTR_LEN		64

/* --timeout: ns 0 if not given; its text, for the summary. */
struct timeout {
	int64_t ns;
	const char *text;
};

struct recorder {
	const char *out;	/* the record file */
	FILE *f;
	bool old_moved;		/* an older one became out.old */
	char *ctx;		/* the context directory, once made */
	char **targets;		/* its target directories, as made */
	size_t nr_targets;
	char **regions;		/* --region directories, as made */
	size_t nr_regions;
	bool on;
	pid_t child;		/* a command we started */
	int child_status;
	bool child_reaped;
	uint64_t poll_us;
	enum rec_format format;
	struct record rec;	/* JSON: the snapshots so far */
	struct rec_task *tasks;	/* the latest snapshot: a task a target */
	uint64_t last;		/* the latest aggregation recorded */
	int64_t last_ns;	/* and when */
	uint64_t lost, recorded;
	int64_t started_ns;	/* when the context went on */
	const struct timeout *timeout;
	bool timed_out;
	bool progress;		/* stderr is a terminal: show the progress */
	int64_t progress_ns;	/* when it was last shown; 0: not yet */
	uint64_t bytes;		/* written (seed) or held in memory (JSON) */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = {
		us / USEC_PER_SEC, (us % USEC_PER_SEC) * NSEC_PER_USEC,
	};

	nanosleep(&ts, NULL);	/* a signal cuts it short: fine */
}

static int get_u64(const char *dir, const char *name, uint64_t *v)
{
	char buf[ATTR_LEN];
	int r = get_attr(dir, name, buf, sizeof(buf));

	if (!r && parse_u64(buf, v)) {
		damo_err("reading %s/%s: %s", dir, name, strerror(EINVAL));
		r = -EINVAL;
	}
	return r;
}

static void reap_child(struct recorder *rc, bool block)
{
	pid_t r;

	if (!rc->child || rc->child_reaped)
		return;
	do {
		r = waitpid(rc->child, &rc->child_status, block ? 0 : WNOHANG);
	} while (r < 0 && errno == EINTR);
	if (r == rc->child || (r < 0 && errno == ECHILD))
		rc->child_reaped = true;
}

static void cleanup(struct recorder *rc)
{
	char *t;

	if (rc->on)
		set_attr(rc->ctx, "state", "off");
	/* newest first; then targets are left with only default groups */
	while (rc->nr_regions) {
		t = rc->regions[--rc->nr_regions];
		if (rmdir(t))
			damo_err("removing %s: %s", t, strerror(errno));
		free(t);
	}
	while (rc->nr_targets) {
		t = rc->targets[--rc->nr_targets];
		if (rmdir(t))
			damo_err("removing %s: %s", t, strerror(errno));
		free(t);
	}
	if (rc->ctx && rmdir(rc->ctx))
		damo_err("removing %s: %s", rc->ctx, strerror(errno));
	free(rc->regions);
	free(rc->targets);
	free(rc->ctx);
	rc->regions = NULL;
	rc->targets = NULL;
	rc->ctx = NULL;
}

/* The exit status of a child that could not exec, as sh's for "not found" */
#define EXIT_NOT_RUN		127

/*
 * Start argv, returning once it has exec'd (so that DAMON sees the new
 * address space, not a copy of damo's).  A close-on-exec pipe carries the
 * exec error, if any.
 */
static pid_t start_command(char **argv, int argc)
{
	/* one argument with shell syntax in it is a shell command line */
	bool shell = argc == 1 && strpbrk(argv[0], " \t|&;<>()$`'\"*?");
	char *line = shell ? xasprintf("exec %s", argv[0]) : NULL;
	char *sh_argv[] = { "sh", "-c", line, NULL };
	int p[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (shell)
		argv = sh_argv;
	if (pipe2(p, O_CLOEXEC)) {
		damo_err("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		damo_err("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		close(p[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		err = errno;
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(EXIT_NOT_RUN);
		_exit(EXIT_NOT_RUN);
	}
	close(p[1]);
	do {
		n = read(p[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof(err)) {
		damo_err("cannot run %s: %s", argv[0], strerror(err));
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* The target's snapshot into t; -errno (-EAGAIN: read again). */
static int read_snapshot(const char *target, struct rec_task *t)
{
	struct snap_region *rs;
	size_t i, nr;
	int r = cfs_read_snapshot(target, &rs, &nr);

	if (r)
		return r;
	free(t->regions);
	t->regions = xcalloc(nr ? nr : 1, sizeof(*t->regions));
	for (i = 0; i < nr; i++) {
		t->regions[i].start = rs[i].start;
		t->regions[i].end = rs[i].end;
		t->regions[i].nr_accesses = rs[i].nr_accesses;
	}
	t->nr_regions = nr;
	free(rs);
	return 0;
}

/* ------------------------------------------------------------ options */

/* The options that set a context attribute, in the order they are set. */
static const struct attr_opt {
	int letter;
	const char *name;	/* --name */
	const char *attr;	/* its file; errors name it, as the kernel's do */
} attr_opts[] = {
	{ 's', "sample", "sample_us" },
	{ 'a', "aggr", "aggr_us" },
	{ 'u', "updr", "update_us" },
	{ 'n', "minr", "min_nr_regions" },
	{ 'm', "maxr", "max_nr_regions" },
};

#define NR_ATTR_OPTS		ARRAY_SIZE(attr_opts)

struct record_opts {
	const char *out;
	const char *ctxname;
	enum rec_format format;
	uint64_t attrs[NR_ATTR_OPTS];
	bool given[NR_ATTR_OPTS];
	uint64_t rbuf;			/* the seed's; ignored */
	struct timeout timeout;
	long *pids;			/* pids to attach to, a target each */
	int nr_pids;			/* 0: a command */
	char **cmd;			/* else the command */
	int nr_cmd;
	bool paddr;			/* neither: physical memory */
	struct rec_region *regions;	/* --region: [start, end) each */
	size_t nr_regions;
};

static const struct num_rule decimal = {
	"a decimal number", false, 0, UINT64_MAX,
};

/* A context must be a directory name of its own. */
static int opt_context(const struct damo_opt *o, const char *arg, int argc,
		       char **argv)
{
	(void)argc;
	(void)argv;
	if (!*arg || strchr(arg, '/') || *arg == '.') {
		damo_err("--context: '%s' is not a directory name", arg);
		return -EINVAL;
	}
	*(const char **)o->value = arg;
	return 0;
}

/* The most --timeout takes (about 31 years): its ns fit in an int64_t. */
#define TIMEOUT_MAX_SECS	1000000000ULL
/* The longest whole part of a --timeout, in digits. */
#define SECS_DIGITS_MAX		20

/* Decimals of SECONDS: at most nanoseconds; 0 or -EINVAL. */
static int parse_fraction(const char *s, int64_t *ns)
{
	int64_t unit = NSEC_PER_SEC;

	*ns = 0;
	if (!*s)
		return -EINVAL;		/* "1." */
	for (; *s; s++) {
		unit /= 10;
		if (*s < '0' || *s > '9' || !unit)
			return -EINVAL;
		*ns += (*s - '0') * unit;
	}
	return 0;
}

/* SECONDS, a decimal number above 0 ("30", "2.5"), into ns. */
static int parse_secs(const char *s, int64_t *ns)
{
	char whole[SECS_DIGITS_MAX + 1];
	size_t n = strcspn(s, ".");
	int64_t frac = 0;
	uint64_t secs;

	if (!n || n > SECS_DIGITS_MAX)
		return -EINVAL;
	memcpy(whole, s, n);
	whole[n] = '\0';
	if (parse_u64(whole, &secs) || secs > TIMEOUT_MAX_SECS ||
	    (s[n] && parse_fraction(s + n + 1, &frac)))
		return -EINVAL;
	*ns = (int64_t)secs * NSEC_PER_SEC + frac;
	return *ns ? 0 : -EINVAL;
}

static int opt_timeout(const struct damo_opt *o, const char *arg, int argc,
		       char **argv)
{
	struct timeout *t = o->value;

	(void)argc;
	(void)argv;
	if (parse_secs(arg, &t->ns)) {
		damo_err("--timeout: '%s' is not a number of seconds above 0 (30, 2.5, ...)",
			 arg);
		return -EINVAL;
	}
	t->text = arg;
	return 0;
}

/* --region START-END: a physical range, not overlapping the others. */
static int opt_region(const struct damo_opt *opt, const char *arg, int argc,
		      char **argv)
{
	struct record_opts *o = opt->value;
	const char *dash = strchr(arg, '-');
	uint64_t s, e;
	char *start;
	size_t i;
	int r;

	(void)argc;
	(void)argv;
	if (!dash) {
		damo_err("--region: '%s' is not START-END", arg);
		return -EINVAL;
	}
	start = xasprintf("%.*s", (int)(dash - arg), arg);
	r = parse_u64_any(start, &s) || parse_u64_any(dash + 1, &e);
	free(start);
	if (r) {
		damo_err("--region: '%s' is not START-END (bytes, decimal or 0x hexadecimal)",
			 arg);
		return -EINVAL;
	}
	if (s >= e) {
		damo_err("--region: '%s': the end is not above the start", arg);
		return -EINVAL;
	}
	for (i = 0; i < o->nr_regions; i++)
		if (s < o->regions[i].end && o->regions[i].start < e) {
			damo_err("--region: '%s' overlaps %#llx-%#llx", arg,
				 (unsigned long long)o->regions[i].start,
				 (unsigned long long)o->regions[i].end);
			return -EINVAL;
		}
	o->regions = xrealloc(o->regions,
			      (o->nr_regions + 1) * sizeof(*o->regions));
	o->regions[o->nr_regions].start = s;
	o->regions[o->nr_regions].end = e;
	o->regions[o->nr_regions].nr_accesses = 0;
	o->nr_regions++;
	return 0;
}

/* A target for the pid arg; checked now, so that a typo makes nothing. */
static int add_pid(struct record_opts *o, const char *arg)
{
	uint64_t u;
	int i;

	if (parse_u64(arg, &u) || !u || u > DAMO_PID_MAX) {
		damo_err("'%s' is not a pid", arg);
		return -EINVAL;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] == (long)u) {
			damo_err("pid %llu is given twice",
				 (unsigned long long)u);
			return -EINVAL;
		}
	if (kill((pid_t)u, 0) && errno == ESRCH) {
		damo_err("no process with pid %llu", (unsigned long long)u);
		return -ESRCH;
	}
	o->pids[o->nr_pids++] = (long)u;
	return 0;
}

/*
 * A first argument that is a number makes them all pids of running
 * processes, a target each; anything else is a command and its arguments.
 */
static int targets_of(int argc, char **argv, struct record_opts *o)
{
	uint64_t u;
	int i;

	if (parse_u64(argv[0], &u)) {
		o->cmd = argv;
		o->nr_cmd = argc;
		return 0;
	}
	o->pids = xcalloc(argc, sizeof(*o->pids));
	for (i = 0; i < argc; i++)
		if (add_pid(o, argv[i]))
			return -EINVAL;
	return 0;
}

/* OPTS_GO_ON, or the exit status. */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	const struct damo_opt others[] = {
		OPT_STRING('o', "out", &o->out),
		OPT_CALL('c', "context", &o->ctxname, opt_context),
		OPT_CALL(0, "format", &o->format, rec_opt_format),
		OPT_CALL(0, "timeout", &o->timeout, opt_timeout),
		OPT_U64('l', "rbuf", &o->rbuf, &decimal, NULL),
		OPT_SET(0, "paddr", &o->paddr),
		OPT_CALL(0, "region", o, opt_region),
		OPT_HELP(),
		OPT_END(),
	};
	struct damo_opt opts[NR_ATTR_OPTS + ARRAY_SIZE(others)];
	size_t i;
	int r;

	for (i = 0; i < NR_ATTR_OPTS; i++) {
		const struct damo_opt a = OPT_U64(attr_opts[i].letter,
						  attr_opts[i].name,
						  &o->attrs[i], &decimal,
						  &o->given[i]);

		opts[i] = a;
		opts[i].label = attr_opts[i].attr;
	}
	memcpy(&opts[NR_ATTR_OPTS], others, sizeof(others));
	/* in order: the options after a COMMAND are the command's */
	r = opts_parse(argc, argv, opts, record_usage, true);
	if (r != OPTS_GO_ON)
		return r;
	if (o->paddr && optind < argc) {
		damo_err("record: --paddr records physical memory: no PID or command ('%s')",
			 argv[optind]);
		return 1;
	}
	if (o->nr_regions && !o->paddr) {
		damo_err("record: --region is for --paddr");
		return 1;
	}
	if (o->paddr)
		return OPTS_GO_ON;
	if (optind == argc) {
		damo_err("record: no target (a PID or a command)");
		fputs(record_usage, stderr);
		return 1;
	}
	return targets_of(argc - optind, argv + optind, o) ? 1 : OPTS_GO_ON;
}

/* ------------------------------------------------------------ set-up */

/* The FILE.old of an existing FILE back in its place. */
static void put_old_back(struct recorder *rc)
{
	char *old;

	if (!rc->old_moved)
		return;
	old = xasprintf("%s.old", rc->out);
	rename(old, rc->out);
	free(old);
}

/*
 * A new file of mode DAMO_RECORD_MODE: created exclusively (not through
 * whatever a name in a shared directory may have become meanwhile), then
 * given the bits the umask took away.
 */
static FILE *create_record(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		      DAMO_RECORD_MODE);
	FILE *f = NULL;
	int err;

	if (fd >= 0 && !fchmod(fd, DAMO_RECORD_MODE))
		f = fdopen(fd, "wb");
	if (f)
		return f;
	err = errno;
	damo_err("cannot create %s: %s", path, strerror(err));
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	errno = err;		/* for the caller: EEXIST is not ours */
	return NULL;
}

/*
 * The output first: failing here must not leave anything behind.  An
 * existing file becomes FILE.old.
 */
static int open_output(struct recorder *rc)
{
	struct stat st;
	char *old;

	if (!stat(rc->out, &st)) {
		old = xasprintf("%s.old", rc->out);
		if (rename(rc->out, old)) {
			damo_err("renaming %s to %s: %s", rc->out, old,
				 strerror(errno));
			free(old);
			return -1;
		}
		rc->old_moved = true;
		free(old);
	}
	rc->f = create_record(rc->out);
	if (!rc->f) {
		/* EEXIST: someone else's new file, which stays */
		if (errno != EEXIST)
			put_old_back(rc);
		return -1;
	}
	return 0;
}

/* Nothing recorded: the files as they were. */
static void drop_output(struct recorder *rc)
{
	unlink(rc->out);
	put_old_back(rc);
}

static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* A tenth of an aggregation, within bounds. */
static uint64_t poll_interval(uint64_t aggr_us)
{
	uint64_t us = aggr_us / POLLS_PER_AGGR;

	if (us < POLL_MIN_US)
		return POLL_MIN_US;
	return us > POLL_MAX_US ? POLL_MAX_US : us;
}

/* Target directories 0..nr-1, and a task for each one's snapshots. */
static int make_targets(struct recorder *rc, size_t nr)
{
	char *t;
	size_t i;

	rc->targets = xcalloc(nr, sizeof(*rc->targets));
	rc->tasks = xcalloc(nr, sizeof(*rc->tasks));
	for (i = 0; i < nr; i++) {
		t = xasprintf("%s/targets/%zu", rc->ctx, i);
		if (mkdir(t, DAMO_DIR_MODE)) {
			damo_err("making %s: %s", t, strerror(errno));
			free(t);
			return -1;
		}
		rc->targets[rc->nr_targets++] = t;
	}
	return 0;
}

/* --paddr: this kernel must have the paddr operations; 0 or -1, said. */
static int check_paddr(void)
{
	int r = cfs_has_feature("ops:paddr");

	if (!r)
		damo_err("--paddr: this kernel's DAMON cannot monitor physical memory (no ops:paddr in %s/features; CONFIG_DAMON_PADDR)",
			 cfs_root());
	return r == 1 ? 0 : -1;
}

/* --region: a region directory each, in the one target. */
static int make_regions(struct recorder *rc, const struct record_opts *o)
{
	char buf[32], *d;
	size_t i;

	rc->regions = xcalloc(o->nr_regions, sizeof(*rc->regions));
	for (i = 0; i < o->nr_regions; i++) {
		d = xasprintf("%s/regions/%zu", rc->targets[0], i);
		if (mkdir(d, DAMO_DIR_MODE)) {
			damo_err("making %s: %s", d, strerror(errno));
			free(d);
			return -1;
		}
		rc->regions[rc->nr_regions++] = d;
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)o->regions[i].start);
		if (set_attr(d, "start", buf))
			return -1;
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)o->regions[i].end);
		if (set_attr(d, "end", buf))
			return -1;
	}
	return 0;
}

/* The context with the options' attributes, and its target directories. */
static int make_context(struct recorder *rc, const struct record_opts *o)
{
	uint64_t aggr_us;
	char buf[32];
	size_t i;

	rc->ctx = xasprintf("%s/contexts/%s", cfs_root(), o->ctxname);
	if (mkdir(rc->ctx, DAMO_DIR_MODE)) {
		damo_err("making %s: %s%s", rc->ctx, strerror(errno),
			 errno == EEXIST ? " (choose another --context)" : "");
		free(rc->ctx);
		rc->ctx = NULL;
		return -1;
	}
	if (o->paddr && set_attr(rc->ctx, "operations", "paddr"))
		return -1;
	for (i = 0; i < NR_ATTR_OPTS; i++) {
		if (!o->given[i])
			continue;
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)o->attrs[i]);
		if (set_attr(rc->ctx, attr_opts[i].attr, buf))
			return -1;
	}
	if (get_u64(rc->ctx, "aggr_us", &aggr_us) ||
	    get_u64(rc->ctx, "sample_us", &rc->rec.sample_us) ||
	    get_u64(rc->ctx, "update_us", &rc->rec.update_us))
		return -1;
	rc->rec.aggr_us = aggr_us;
	rc->rec.has_intervals = true;
	rc->poll_us = poll_interval(aggr_us);
	if (make_targets(rc, o->nr_pids ? (size_t)o->nr_pids : 1))
		return -1;
	return o->nr_regions ? make_regions(rc, o) : 0;
}

static void say_started(const struct recorder *rc, const struct record_opts *o)
{
	size_t i;

	if (o->paddr) {
		fprintf(stderr, "%s: recording physical memory (%s) to %s (context %s)\n",
			damo_prog, o->nr_regions ? "the --region ranges" :
			"all of RAM", rc->out, o->ctxname);
		return;
	}
	fprintf(stderr, "%s: recording pid%s", damo_prog,
		rc->nr_targets > 1 ? "s" : "");
	for (i = 0; i < rc->nr_targets; i++)
		fprintf(stderr, " %llu", (unsigned long long)rc->tasks[i].pid);
	fprintf(stderr, " to %s (context %s)\n", rc->out, o->ctxname);
}

/*
 * Start the command if there is one, set the pids, turn the context on.
 * --paddr: the target has no pid (0 in the record).
 */
static int start_targets(struct recorder *rc, const struct record_opts *o)
{
	char buf[32];
	size_t i;

	if (!o->nr_pids && !o->paddr) {
		rc->child = start_command(o->cmd, o->nr_cmd);
		if (rc->child < 0) {
			rc->child = 0;
			return -1;
		}
	}
	for (i = 0; i < rc->nr_targets && !o->paddr; i++) {
		rc->tasks[i].pid = o->nr_pids ? o->pids[i] : rc->child;
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)rc->tasks[i].pid);
		if (set_attr(rc->targets[i], "pid", buf))
			return -1;
	}
	if (set_attr(rc->ctx, "state", "on"))
		return -1;
	rc->on = true;
	rc->started_ns = now_ns();
	say_started(rc, o);
	return 0;
}

/* ------------------------------------------------------------ recording */

enum take { TAKEN, TAKE_AGAIN, TAKE_FAILED };

/* The memory a snapshot kept for the JSON formats takes. */
static uint64_t snapshot_mem(const struct rec_snapshot *s)
{
	uint64_t b = sizeof(*s);
	uint32_t i;

	for (i = 0; i < s->nr_tasks; i++)
		b += sizeof(s->tasks[i]) +
			(uint64_t)s->tasks[i].nr_regions *
			sizeof(*s->tasks[i].regions);
	return b;
}

/* Into the file (seed) or the list written at the end (JSON); 0 or -1. */
static int keep_snapshot(struct recorder *rc, const struct rec_snapshot *s)
{
	off_t pos;

	if (rc->format != REC_SEED) {
		rec_append(&rc->rec, s);
		rc->bytes += snapshot_mem(s);
		return 0;
	}
	if (rec_write_snapshot(rc->f, s)) {
		damo_err("writing %s: %s", rc->out, strerror(errno));
		return -1;
	}
	pos = ftello(rc->f);
	if (pos > 0)
		rc->bytes = (uint64_t)pos;
	return 0;
}

/* Every target's snapshot into rc->tasks; TAKEN or what went wrong. */
static enum take read_snapshots(struct recorder *rc)
{
	size_t i;
	int r;

	for (i = 0; i < rc->nr_targets; i++) {
		r = read_snapshot(rc->targets[i], &rc->tasks[i]);
		if (r == -EAGAIN)
			return TAKE_AGAIN;
		if (r) {
			damo_err("reading %s/snapshot: %s", rc->targets[i],
				 strerror(-r));
			return TAKE_FAILED;
		}
	}
	return TAKEN;
}

/*
 * The snapshots of aggregation nr, unless another aggregation ended
 * while they were read.
 */
static enum take take_snapshot(struct recorder *rc, uint64_t nr, bool off)
{
	struct rec_snapshot snap = {
		.nr_tasks = rc->nr_targets, .tasks = rc->tasks,
	};
	enum take t;
	int64_t start;
	uint64_t nr2;
	size_t i;

	/* let the kdamond finish publishing what it counted */
	if (!off)
		sleep_us(rc->poll_us / SETTLE_PARTS ?
			 rc->poll_us / SETTLE_PARTS : 1);
	t = read_snapshots(rc);
	if (t != TAKEN)
		return t;
	if (get_u64(rc->ctx, "nr_aggregations", &nr2))
		return TAKE_FAILED;
	if (nr2 != nr)
		return TAKE_AGAIN;	/* moved on meanwhile */
	snap.time_ns = now_ns();
	/* the aggregation began an interval before; the first, or after
	 * lost ones, on its own */
	start = snap.time_ns - (int64_t)rc->rec.aggr_us * NSEC_PER_USEC;
	if (rc->recorded && nr == rc->last + 1)
		start = rc->last_ns;
	for (i = 0; i < rc->nr_targets; i++)
		rc->tasks[i].start_ns = start;
	if (keep_snapshot(rc, &snap))
		return TAKE_FAILED;
	rc->lost += nr - rc->last - 1;
	rc->last = nr;
	rc->last_ns = snap.time_ns;
	rc->recorded++;
	return TAKEN;
}

/* ------------------------------------------------------------ progress */

/* The progress line is redrawn at most this often. */
#define PROGRESS_NS		(NSEC_PER_SEC / 4)
#define KIB			1024.0

/* bytes as "812 B", "3.4 KiB", "1.2 MiB", ... */
static void fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= KIB && u + 1 < ARRAY_SIZE(units)) {
		v /= KIB;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/*
 * On a terminal: one line, rewritten in place ("\r", then erase to its
 * end), a few times a second at most.  Elsewhere (a log file, a pipe)
 * nothing: it would only pile up there.
 */
static void show_progress(struct recorder *rc)
{
	int64_t now = now_ns();
	char size[32];

	if (!rc->progress || (rc->progress_ns &&
			      now - rc->progress_ns < PROGRESS_NS))
		return;
	rc->progress_ns = now;
	fmt_bytes(size, sizeof(size), rc->bytes);
	fprintf(stderr, "\r\033[K%s: recording for %.1f s: %llu snapshot%s, %s %s",
		damo_prog, (double)(now - rc->started_ns) / NSEC_PER_SEC,
		(unsigned long long)rc->recorded, rc->recorded == 1 ? "" : "s",
		size, rc->format == REC_SEED ? "written" :
		"in memory (written at the end)");
}

/* The progress line away, before the lines that follow it. */
static void clear_progress(struct recorder *rc)
{
	if (rc->progress_ns)
		fputs("\r\033[K", stderr);
	rc->progress_ns = 0;
}

/* ------------------------------------------------------------ the loop */

/* Whether --timeout has run out (said in rc->timed_out). */
static bool timeout_passed(struct recorder *rc)
{
	if (rc->timeout->ns &&
	    now_ns() - rc->started_ns >= rc->timeout->ns)
		rc->timed_out = true;
	return rc->timed_out;
}

/* A poll interval, or what is left of --timeout if that is less. */
static uint64_t poll_wait(const struct recorder *rc)
{
	int64_t left_us;

	if (!rc->timeout->ns)
		return rc->poll_us;
	left_us = (rc->started_ns + rc->timeout->ns - now_ns()) /
		NSEC_PER_USEC;
	if (left_us <= 0)
		return 1;
	return (uint64_t)left_us < rc->poll_us ? (uint64_t)left_us : rc->poll_us;
}

/* Until the context is off, a signal came or --timeout ran out; 0 or -1. */
static int record_loop(struct recorder *rc)
{
	enum take t;
	char state[ATTR_LEN];
	uint64_t nr;
	bool off;

	while (!stop_signal) {
		show_progress(rc);
		sleep_us(poll_wait(rc));
		if (timeout_passed(rc))
			break;
		reap_child(rc, false);
		if (get_attr(rc->ctx, "state", state, sizeof(state)) ||
		    get_u64(rc->ctx, "nr_aggregations", &nr))
			return -1;
		off = !strcmp(state, "off");
		t = nr > rc->last ? take_snapshot(rc, nr, off) : TAKEN;
		if (t == TAKE_FAILED)
			return -1;
		if (t == TAKE_AGAIN)
			continue;
		if (off)
			break;
	}
	return 0;
}

static void print_summary(const struct recorder *rc)
{
	fprintf(stderr, "%s: %llu snapshots of %llu aggregations recorded to %s",
		damo_prog, (unsigned long long)rc->recorded,
		(unsigned long long)rc->last, rc->out);
	if (rc->lost)
		fprintf(stderr, "; %llu aggregations lost (not seen in time)",
			(unsigned long long)rc->lost);
	if (stop_signal)
		fprintf(stderr, "; stopped by signal %d", (int)stop_signal);
	else if (rc->timed_out)
		fprintf(stderr, "; stopped after --timeout %s s",
			rc->timeout->text);
	fputc('\n', stderr);
}

/* Turn off and remove what was made; stop and reap a started command. */
static void stop_recording(struct recorder *rc, bool failed)
{
	size_t i, nr = rc->nr_targets;

	/* a command we started goes when we stop early or fail */
	if ((stop_signal || rc->timed_out || failed) && rc->child &&
	    !rc->child_reaped)
		kill(rc->child, SIGTERM);
	cleanup(rc);
	if (rc->child)
		reap_child(rc, true);
	for (i = 0; i < nr; i++)
		free(rc->tasks[i].regions);
	free(rc->tasks);
	rc->tasks = NULL;
}

static int record(struct recorder *rc, const struct record_opts *o)
{
	int r;

	if (open_output(rc))
		return -1;
	catch_stop_signals();
	r = make_context(rc, o);
	if (!r)
		r = start_targets(rc, o);
	if (!r)
		r = record_loop(rc);
	clear_progress(rc);
	if (rc->ctx)
		stop_recording(rc, r);
	/* JSON: the whole list, now that it is complete */
	if (rc->format != REC_SEED && rc->recorded &&
	    rec_write(rc->f, &rc->rec, rc->format)) {
		damo_err("writing %s: %s", rc->out, strerror(errno));
		r = -1;
	}
	rec_free(&rc->rec);
	if (fclose(rc->f)) {
		damo_err("writing %s: %s", rc->out, strerror(errno));
		r = -1;
	}
	if (r && !rc->recorded)
		drop_output(rc);
	if (!r)
		print_summary(rc);
	return r;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.out = DAMO_DEFAULT_RECORD, .format = REC_DEFAULT_FORMAT,
	};
	struct recorder rc = { 0 };
	char *defname = NULL;
	int r;

	r = record_parse(argc, argv, &o);
	if (r == OPTS_GO_ON && (cfs_check() || (o.paddr && check_paddr())))
		r = 1;
	if (r != OPTS_GO_ON) {
		free(o.pids);
		free(o.regions);
		return r;
	}
	if (!o.ctxname)
		o.ctxname = defname = xasprintf("damo-record.%d", (int)getpid());
	rc.out = o.out;
	rc.format = o.format;
	rc.timeout = &o.timeout;
	rc.progress = isatty(STDERR_FILENO);
	r = record(&rc, &o);
	free(defname);
	free(o.pids);
	free(o.regions);
	return r ? 1 : 0;
}
