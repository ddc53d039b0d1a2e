// SPDX-License-Identifier: GPL-2.0
/*
 * damo record: make a context through configfs, run or attach the target,
 * and append one snapshot to the record file for every aggregation, until
 * the target exits or a signal asks to stop.  Then remove exactly the
 * directories made here.
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
"  -c, --context NAME   configfs context name (default damo-record.PID)\n"
"  -l, --rbuf LEN       accepted for compatibility, ignored\n"
"  -h, --help\n"
"\n"
"The configfs root is $DAMO_CONFIGFS or " DAMO_CONFIGFS ".\n";

struct recorder {
	char *ctx;		/* the context directory, once made */
	char *target;		/* its target directory, once made */
	bool on;
	pid_t child;		/* a command we started */
	int child_status;
	bool child_reaped;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);	/* a signal cuts it short: fine */
}

static int set_attr(const char *dir, const char *name, const char *value)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = write_attr(p, value);

	if (r)
		damo_err("writing '%s' to %s: %s", value, p, strerror(-r));
	free(p);
	return r;
}

static int get_u64(const char *dir, const char *name, uint64_t *v)
{
	char *p = xasprintf("%s/%s", dir, name), buf[64];
	int r = read_attr(p, buf, sizeof(buf));

	if (!r && parse_u64(buf, v))
		r = -EINVAL;
	if (r)
		damo_err("reading %s: %s", p, strerror(-r));
	free(p);
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

/*
 * Start argv, returning once it has exec'd (so that DAMON sees the new
 * address space, not a copy of damo's).  A close-on-exec pipe carries the
 * exec error, if any.
 */
static pid_t start_command(char **argv, int argc)
{
	char *sh_argv[4];
	int p[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (argc == 1 && strpbrk(argv[0], " \t|&;<>()$`'\"*?")) {
		sh_argv[0] = "sh";
		sh_argv[1] = "-c";
		sh_argv[2] = xasprintf("exec %s", argv[0]);
		sh_argv[3] = NULL;
		argv = sh_argv;
	}
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
			_exit(127);
		_exit(127);
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
		if (sscanf(line, "%llu %llu %u %u", &s, &e, &nr, &age) != 4) {
			damo_err("%s/snapshot: unexpected line '%s'", target,
				 line);
			free(buf);
			return -EINVAL;
		}
		if (t->nr_regions == cap) {
			cap = cap ? cap * 2 : 64;
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

static int parse_opt_u64(const char *name, const char *s, uint64_t *v)
{
	if (parse_u64(s, v)) {
		damo_err("%s: '%s' is not a decimal number", name, s);
		return -EINVAL;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sample", required_argument, NULL, 's' },
		{ "aggr", required_argument, NULL, 'a' },
		{ "updr", required_argument, NULL, 'u' },
		{ "minr", required_argument, NULL, 'n' },
		{ "maxr", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "context", required_argument, NULL, 'c' },
		{ "rbuf", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const attr_names[] = {
		"sample_us", "aggr_us", "update_us", "min_nr_regions",
		"max_nr_regions",
	};
	const char *out = DAMO_DEFAULT_RECORD, *ctxname = NULL;
	const char *attrs[5] = { NULL };
	struct recorder rc = { 0 };
	struct rec_snapshot snap;
	struct rec_task task = { 0 };
	struct sigaction sa;
	uint64_t u, aggr_us, poll_us, last = 0, nr, nr2, lost = 0;
	uint64_t recorded = 0;
	char buf[64], statep[4096], *path, *defname = NULL;
	long target_pid = 0;
	FILE *f = NULL;
	struct stat st;
	bool old_moved = false;
	int c, i, r, ret = 1;

	while ((c = getopt_long(argc, argv, "+s:a:u:n:m:o:c:l:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 's': case 'a': case 'u': case 'n': case 'm':
			i = strchr("saunm", c) - "saunm";
			if (parse_opt_u64(attr_names[i], optarg, &u))
				return 1;
			attrs[i] = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			ctxname = optarg;
			if (!*ctxname || strchr(ctxname, '/') || *ctxname == '.') {
				damo_err("--context: '%s' is not a directory name",
					 ctxname);
				return 1;
			}
			break;
		case 'l':
			if (parse_opt_u64("--rbuf", optarg, &u))
				return 1;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		default:
			fputs(record_usage, stderr);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		damo_err("record: no target (a PID or a command)");
		fputs(record_usage, stderr);
		return 1;
	}
	if (argc == 1 && !parse_u64(argv[0], &u)) {
		if (!u || u > 0x7fffffff) {
			damo_err("'%s' is not a pid", argv[0]);
			return 1;
		}
		target_pid = (long)u;
		if (kill(target_pid, 0) && errno == ESRCH) {
			damo_err("no process with pid %ld", target_pid);
			return 1;
		}
	}
	path = xasprintf("%s/contexts", cfs_root());
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		damo_err("%s: %s (is configfs mounted and the kernel built with CONFIG_DAMON_CONFIGFS?)",
			 path, strerror(errno ? errno : ENOTDIR));
		free(path);
		return 1;
	}
	if (!ctxname)
		ctxname = defname = xasprintf("damo-record.%d", (int)getpid());

	/* The output first: failing here must not leave anything behind. */
	if (!stat(out, &st)) {
		char *old = xasprintf("%s.old", out);

		if (rename(out, old)) {
			damo_err("renaming %s to %s: %s", out, old,
				 strerror(errno));
			free(old);
			goto out_free;
		}
		old_moved = true;
		free(old);
	}
	f = fopen(out, "wb");
	if (!f) {
		damo_err("cannot create %s: %s", out, strerror(errno));
		goto out_free;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	rc.ctx = xasprintf("%s/%s", path, ctxname);
	if (mkdir(rc.ctx, 0755)) {
		damo_err("making %s: %s%s", rc.ctx, strerror(errno),
			 errno == EEXIST ? " (choose another --context)" : "");
		free(rc.ctx);
		rc.ctx = NULL;
		goto out_close;
	}
	for (i = 0; i < 5; i++)
		if (attrs[i] && set_attr(rc.ctx, attr_names[i], attrs[i]))
			goto out_cleanup;
	if (get_u64(rc.ctx, "aggr_us", &aggr_us))
		goto out_cleanup;
	poll_us = aggr_us / 10;
	if (poll_us < 1000)
		poll_us = 1000;
	if (poll_us > 100000)
		poll_us = 100000;

	rc.target = xasprintf("%s/targets/0", rc.ctx);
	if (mkdir(rc.target, 0755)) {
		damo_err("making %s: %s", rc.target, strerror(errno));
		free(rc.target);
		rc.target = NULL;
		goto out_cleanup;
	}
	if (!target_pid) {
		rc.child = start_command(argv, argc);
		if (rc.child < 0) {
			rc.child = 0;
			goto out_cleanup;
		}
		target_pid = rc.child;
	}
	snprintf(buf, sizeof(buf), "%ld", target_pid);
	if (set_attr(rc.target, "pid", buf))
		goto out_cleanup;
	if (set_attr(rc.ctx, "state", "on"))
		goto out_cleanup;
	rc.on = true;
	fprintf(stderr, "%s: recording pid %ld to %s (context %s)\n",
		damo_prog, target_pid, out, ctxname);

	task.pid = target_pid;
	snap.nr_tasks = 1;
	snap.tasks = &task;
	for (;;) {
		bool off;

		if (stop_signal)
			break;
		sleep_us(poll_us);
		reap_child(&rc, false);
		snprintf(statep, sizeof(statep), "%s/state", rc.ctx);
		r = read_attr(statep, buf, sizeof(buf));
		if (r) {
			damo_err("reading %s/state: %s", rc.ctx, strerror(-r));
			goto out_cleanup;
		}
		off = !strcmp(buf, "off");
		if (get_u64(rc.ctx, "nr_aggregations", &nr))
			goto out_cleanup;
		if (nr > last) {
			/* let the kdamond finish publishing what it counted */
			if (!off)
				sleep_us(poll_us / 4 ? poll_us / 4 : 1);
			r = read_snapshot(rc.target, &task);
			if (r == -EAGAIN)
				continue;
			if (r) {
				damo_err("reading %s/snapshot: %s", rc.target,
					 strerror(-r));
				goto out_cleanup;
			}
			if (get_u64(rc.ctx, "nr_aggregations", &nr2))
				goto out_cleanup;
			if (nr2 != nr)
				continue;	/* moved on meanwhile: again */
			snap.time_ns = now_ns();
			if (rec_write_snapshot(f, &snap)) {
				damo_err("writing %s: %s", out, strerror(errno));
				goto out_cleanup;
			}
			lost += nr - last - 1;
			last = nr;
			recorded++;
		}
		if (off)
			break;
	}
	ret = 0;
out_cleanup:
	/* a command we started goes when we stop early or fail */
	if ((stop_signal || ret) && rc.child && !rc.child_reaped)
		kill(rc.child, SIGTERM);
	cleanup(&rc);
	if (rc.child)
		reap_child(&rc, true);
	free(task.regions);
out_close:
	if (f && fclose(f)) {
		damo_err("writing %s: %s", out, strerror(errno));
		ret = 1;
	}
	if (ret && !recorded) {
		/* nothing recorded: leave the files as they were */
		unlink(out);
		if (old_moved) {
			char *old = xasprintf("%s.old", out);

			rename(old, out);
			free(old);
		}
	}
	if (!ret) {
		fprintf(stderr, "%s: %llu snapshots of %llu aggregations recorded to %s",
			damo_prog, (unsigned long long)recorded,
			(unsigned long long)last, out);
		if (lost)
			fprintf(stderr, "; %llu aggregations lost (not seen in time)",
				(unsigned long long)lost);
		if (stop_signal)
			fprintf(stderr, "; stopped by signal %d",
				(int)stop_signal);
		fputc('\n', stderr);
	}
out_free:
	free(path);
	free(defname);
	return ret;
}
