// SPDX-License-Identifier: GPL-2.0
/*
 * damo record: make a context through configfs, run or attach the target,
 * and take one snapshot for every aggregation, until the target exits or a
 * signal asks to stop: appended to the file as it comes in the seed's
 * format, kept and written at the end in the JSON ones.  Then remove
 * exactly the directories made here.
 *
 * Aggregations are noticed by polling nr_aggregations at a tenth of the
 * aggregation interval; after it moves, the target's snapshot is read and
 * nr_aggregations again: if it still reads the same, the snapshot is that
 * aggregation's.  Aggregations that passed unseen are counted as lost.
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
"usage: damo record [OPTIONS] PID\n"
"       damo record [OPTIONS] COMMAND [ARG...]\n"
"       damo record [OPTIONS] \"SHELL COMMAND LINE\"\n"
"\n"
"Monitor a process with DAMON and record every aggregation's regions to a\n"
"file, until the process exits or damo gets SIGINT or SIGTERM.  A COMMAND\n"
"is started by damo (and sent SIGTERM if damo is stopped by a signal).\n"
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

struct recorder {
	const char *out;	/* the record file */
	FILE *f;
	bool old_moved;		/* an older one became out.old */
	char *ctx;		/* the context directory, once made */
	char *target;		/* its target directory, once made */
	bool on;
	pid_t child;		/* a command we started */
	int child_status;
	bool child_reaped;
	uint64_t poll_us;
	enum rec_format format;
	struct record rec;	/* JSON: the snapshots so far */
	struct rec_task task;	/* the latest snapshot */
	uint64_t last;		/* the latest aggregation recorded */
	int64_t last_ns;	/* and when */
	uint64_t lost, recorded;
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
	int r;

	if (rc->on)
		set_attr(rc->ctx, "state", "off");
	if (rc->target && rmdir(rc->target))
		damo_err("removing %s: %s", rc->target, strerror(errno));
	if (rc->ctx) {
		/* a region-less target leaves only default groups behind */
		r = rmdir(rc->ctx);
		if (r)
			damo_err("removing %s: %s", rc->ctx, strerror(errno));
	}
	free(rc->target);
	free(rc->ctx);
	rc->target = rc->ctx = NULL;
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

/* A snapshot line: start end nr_accesses age */
#define SNAPSHOT_FIELDS		4
/* Room for this many regions first, then twice as many each time. */
#define REGIONS_FIRST_ALLOC	64

/* Parse the snapshot text into t; -errno (-EAGAIN: read again). */
static int read_snapshot(const char *target, struct rec_task *t)
{
	char *p = xasprintf("%s/snapshot", target), *buf, *line, *save;
	unsigned long long s, e;
	unsigned int nr, age;
	size_t len, cap = 0;
	int r;

	r = read_whole(p, &buf, &len);
	free(p);
	if (r)
		return r;
	free(t->regions);
	t->regions = NULL;
	t->nr_regions = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llu %llu %u %u", &s, &e, &nr, &age) !=
		    SNAPSHOT_FIELDS) {
			damo_err("%s/snapshot: unexpected line '%s'", target,
				 line);
			free(buf);
			return -EINVAL;
		}
		if (t->nr_regions == cap) {
			cap = cap ? cap * 2 : REGIONS_FIRST_ALLOC;
			t->regions = xrealloc(t->regions,
					      cap * sizeof(*t->regions));
		}
		t->regions[t->nr_regions].start = s;
		t->regions[t->nr_regions].end = e;
		t->regions[t->nr_regions].nr_accesses = nr;
		t->nr_regions++;
	}
	free(buf);
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
	long pid;			/* a pid to attach to; 0: a command */
	char **cmd;			/* else the command */
	int nr_cmd;
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

/* A number names a running process; anything else is a command. */
static int target_of(int argc, char **argv, struct record_opts *o)
{
	uint64_t u;

	o->cmd = argv;
	o->nr_cmd = argc;
	if (argc != 1 || parse_u64(argv[0], &u))
		return 0;
	if (!u || u > DAMO_PID_MAX) {
		damo_err("'%s' is not a pid", argv[0]);
		return -EINVAL;
	}
	o->pid = (long)u;
	if (kill(o->pid, 0) && errno == ESRCH) {
		damo_err("no process with pid %ld", o->pid);
		return -ESRCH;
	}
	return 0;
}

/* OPTS_GO_ON, or the exit status. */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	const struct damo_opt others[] = {
		OPT_STRING('o', "out", &o->out),
		OPT_CALL('c', "context", &o->ctxname, opt_context),
		OPT_CALL(0, "format", &o->format, rec_opt_format),
		OPT_U64('l', "rbuf", &o->rbuf, &decimal, NULL),
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
	if (optind == argc) {
		damo_err("record: no target (a PID or a command)");
		fputs(record_usage, stderr);
		return 1;
	}
	return target_of(argc - optind, argv + optind, o) ? 1 : OPTS_GO_ON;
}

/* ------------------------------------------------------------ set-up */

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
	rc->f = fopen(rc->out, "wb");
	if (!rc->f) {
		damo_err("cannot create %s: %s", rc->out, strerror(errno));
		return -1;
	}
	return 0;
}

/* Nothing recorded: the files as they were. */
static void drop_output(struct recorder *rc)
{
	char *old;

	unlink(rc->out);
	if (!rc->old_moved)
		return;
	old = xasprintf("%s.old", rc->out);
	rename(old, rc->out);
	free(old);
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

/* The context with the options' attributes, and its target directory. */
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
	rc->target = xasprintf("%s/targets/0", rc->ctx);
	if (mkdir(rc->target, DAMO_DIR_MODE)) {
		damo_err("making %s: %s", rc->target, strerror(errno));
		free(rc->target);
		rc->target = NULL;
		return -1;
	}
	return 0;
}

/* Start the command if there is one, set the pid, turn the context on. */
static int start_target(struct recorder *rc, const struct record_opts *o)
{
	long pid = o->pid;
	char buf[32];

	if (!pid) {
		rc->child = start_command(o->cmd, o->nr_cmd);
		if (rc->child < 0) {
			rc->child = 0;
			return -1;
		}
		pid = rc->child;
	}
	snprintf(buf, sizeof(buf), "%ld", pid);
	if (set_attr(rc->target, "pid", buf) ||
	    set_attr(rc->ctx, "state", "on"))
		return -1;
	rc->on = true;
	rc->task.pid = pid;
	fprintf(stderr, "%s: recording pid %ld to %s (context %s)\n",
		damo_prog, pid, rc->out, o->ctxname);
	return 0;
}

/* ------------------------------------------------------------ recording */

enum take { TAKEN, TAKE_AGAIN, TAKE_FAILED };

/*
 * The snapshot of aggregation nr, unless another aggregation ended
 * while it was read.
 */
static enum take take_snapshot(struct recorder *rc, uint64_t nr, bool off)
{
	struct rec_snapshot snap = { .nr_tasks = 1, .tasks = &rc->task };
	uint64_t nr2;
	int r;

	/* let the kdamond finish publishing what it counted */
	if (!off)
		sleep_us(rc->poll_us / SETTLE_PARTS ?
			 rc->poll_us / SETTLE_PARTS : 1);
	r = read_snapshot(rc->target, &rc->task);
	if (r == -EAGAIN)
		return TAKE_AGAIN;
	if (r) {
		damo_err("reading %s/snapshot: %s", rc->target, strerror(-r));
		return TAKE_FAILED;
	}
	if (get_u64(rc->ctx, "nr_aggregations", &nr2))
		return TAKE_FAILED;
	if (nr2 != nr)
		return TAKE_AGAIN;	/* moved on meanwhile */
	snap.time_ns = now_ns();
	/* the aggregation began an interval before; the first, or after
	 * lost ones, on its own */
	rc->task.start_ns = snap.time_ns - (int64_t)rc->rec.aggr_us *
		NSEC_PER_USEC;
	if (rc->recorded && nr == rc->last + 1)
		rc->task.start_ns = rc->last_ns;
	if (rc->format != REC_SEED) {
		rec_append(&rc->rec, &snap);
	} else if (rec_write_snapshot(rc->f, &snap)) {
		damo_err("writing %s: %s", rc->out, strerror(errno));
		return TAKE_FAILED;
	}
	rc->lost += nr - rc->last - 1;
	rc->last = nr;
	rc->last_ns = snap.time_ns;
	rc->recorded++;
	return TAKEN;
}

/* Until the context is off or a signal came; 0 or -1. */
static int record_loop(struct recorder *rc)
{
	enum take t;
	char state[ATTR_LEN];
	uint64_t nr;
	bool off;

	while (!stop_signal) {
		sleep_us(rc->poll_us);
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
	fputc('\n', stderr);
}

/* Turn off and remove what was made; stop and reap a started command. */
static void stop_recording(struct recorder *rc, bool failed)
{
	/* a command we started goes when we stop early or fail */
	if ((stop_signal || failed) && rc->child && !rc->child_reaped)
		kill(rc->child, SIGTERM);
	cleanup(rc);
	if (rc->child)
		reap_child(rc, true);
	free(rc->task.regions);
}

static int record(struct recorder *rc, const struct record_opts *o)
{
	int r;

	if (open_output(rc))
		return -1;
	catch_stop_signals();
	r = make_context(rc, o);
	if (!r)
		r = start_target(rc, o);
	if (!r)
		r = record_loop(rc);
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
	if (r != OPTS_GO_ON)
		return r;
	if (cfs_check())
		return 1;
	if (!o.ctxname)
		o.ctxname = defname = xasprintf("damo-record.%d", (int)getpid());
	rc.out = o.out;
	rc.format = o.format;
	r = record(&rc, &o);
	free(defname);
	return r ? 1 : 0;
}
