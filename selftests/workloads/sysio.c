// SPDX-License-Identifier: GPL-2.0
/*
 * sysio: single system calls for the configfs suites, with exact errnos.
 *
 *   sysio write FILE VALUE       open FILE write-only and write VALUE in
 *                                one write(2) (no newline is added; an
 *                                empty VALUE is a zero-byte write)
 *   sysio read FILE              copy FILE to stdout, reading SYSIO_BUFSZ
 *                                (default 65536) bytes per read(2)
 *   sysio readerr FILE           read FILE to its end, discarding the data
 *   sysio mkdir PATH             mkdir(2), mode 0755
 *   sysio rmdir PATH             rmdir(2)
 *   sysio hammer FILE N VALUE... N times: open FILE, write the next VALUE
 *                                (cycling), close
 *   sysio rejects ENAME FILE VALUE...
 *                                write each VALUE in turn; each must fail
 *                                with errno ENAME and leave what FILE reads
 *                                unchanged
 *   sysio withpid PID PROG [ARG...]
 *                                run PROG as a child that has pid PID
 *                                (clone3 with set_tid), wait for it and
 *                                exit with its status
 *   sysio serve                  answer requests on stdin until EOF, so a
 *                                shell makes many calls without a fork
 *                                each (UML pays ~20 ms per fork and exec).
 *                                A request is "OP PATHLEN VALLEN\n", then
 *                                PATHLEN bytes of path and VALLEN bytes of
 *                                value; OP is write, mkdir, rmdir, readerr
 *                                or read.  The answer is one line, "OK" or
 *                                the errno's name; for a successful read
 *                                "OK LEN\n" and LEN bytes of the file.
 *
 * write, readerr, mkdir and rmdir print "OK" or the errno's name ("EINVAL")
 * and exit 0 either way; read prints the errno's name to stderr and exits 1
 * on failure.  hammer prints "ok N" and one "ENAME N" line per errno seen.
 * rejects prints one line per VALUE that misbehaved and exits 1 if any did.
 * With SYSIO_ALARM_MS set, a SIGALRM (handled, SA_RESTART off) arrives that
 * many milliseconds after start, to interrupt a blocking call.
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "fileio.h"

/* With SYSIO_ALARM_MS set, a SIGALRM that many milliseconds from now. */
static void arm_alarm(void)
{
	const char *ms = getenv("SYSIO_ALARM_MS");
	long v;

	if (!ms || !*ms)
		return;
	v = strtol(ms, NULL, 10);
	if (v <= 0)
		return;
	catch_alarm();
	alarm_ms(v);
}

/* Read @path to its end, to stdout if @out; 0 or an errno. */
static int read_all(const char *path, int out)
{
	const char *bs = getenv("SYSIO_BUFSZ");
	size_t bufsz = bs && *bs ? strtoul(bs, NULL, 10) : 65536;
	ssize_t n;
	char *buf;
	int fd, err = 0;

	if (!bufsz)
		bufsz = 65536;
	buf = malloc(bufsz);
	if (!buf)
		return ENOMEM;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err = errno;
		free(buf);
		return err;
	}
	for (;;) {
		n = read(fd, buf, bufsz);
		if (n < 0) {
			err = errno;
			break;
		}
		if (!n)
			break;
		if (out && fwrite(buf, 1, n, stdout) != (size_t)n) {
			err = EIO;
			break;
		}
	}
	close(fd);
	free(buf);
	return err;
}

/* Read all of @path into @buf (NUL-terminated); 0 or an errno. */
static int slurp(const char *path, char *buf, size_t size)
{
	ssize_t n = read_file(path, buf, size);

	return n < 0 ? -n : 0;
}

static int rejects(const char *want, const char *path, char **vals,
		   int nr_vals)
{
	static char before[65536], after[65536];
	int i, err, bad = 0;

	for (i = 0; i < nr_vals; i++) {
		err = slurp(path, before, sizeof(before));
		if (err) {
			printf("read %s: %s\n", path, ename(err));
			return 1;
		}
		err = write_str(path, vals[i]);
		if (strcmp(ename(err), want)) {
			printf("value #%d \"%s\": expected %s, got %s\n", i + 1,
			       vals[i], want, ename(err));
			bad = 1;
		}
		err = slurp(path, after, sizeof(after));
		if (err || strcmp(before, after)) {
			printf("value #%d \"%s\" changed %s from \"%s\" to \"%s\"\n",
			       i + 1, vals[i], path, before, err ? ename(err) : after);
			bad = 1;
		}
	}
	return bad;
}

static int report(int err)
{
	puts(ename(err));
	return 0;
}

static int hammer(const char *path, long count, char **vals, int nr_vals)
{
	int counts[4096] = {};
	long i, ok = 0;
	int err;

	for (i = 0; i < count; i++) {
		const char *v = vals[i % nr_vals];

		err = write_str(path, v);
		if (!err)
			ok++;
		else if (err > 0 && err < 4096)
			counts[err]++;
	}
	printf("ok %ld\n", ok);
	for (err = 1; err < 4096; err++)
		if (counts[err])
			printf("%s %d\n", ename(err), counts[err]);
	return 0;
}

static int withpid(pid_t want, char **argv)
{
	struct clone_args args = {};
	pid_t tid = want, child;

	args.exit_signal = SIGCHLD;
	args.set_tid = (uintptr_t)&tid;
	args.set_tid_size = 1;
	child = syscall(SYS_clone3, &args, sizeof(args));
	if (child < 0) {
		fprintf(stderr, "sysio: clone3 with pid %d: %s\n", want,
			ename(errno));
		return 3;
	}
	if (!child) {
		execv(argv[0], argv);
		fprintf(stderr, "sysio: exec %s: %s\n", argv[0], ename(errno));
		_exit(127);
	}
	return wait_status(child);
}

/* Read exactly @len bytes from stdin into a new NUL-terminated buffer. */
static char *read_exact(size_t len)
{
	char *buf = malloc(len + 1);

	if (!buf || (len && fread(buf, 1, len, stdin) != len)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int serve_one(const char *op, const char *path, const char *val,
		     size_t vlen)
{
	static char data[1 << 20];
	int err;

	if (!strcmp(op, "write"))
		return write_all(path, val, vlen);
	if (!strcmp(op, "mkdir"))
		return do_mkdir(path);
	if (!strcmp(op, "rmdir"))
		return do_rmdir(path);
	if (!strcmp(op, "readerr"))
		return read_all(path, 0);
	if (!strcmp(op, "read")) {
		err = slurp(path, data, sizeof(data));
		if (!err) {
			printf("OK %zu\n", strlen(data));
			fputs(data, stdout);
		}
		return err ? err : -1;
	}
	return EINVAL;
}

static int serve(void)
{
	char op[16], *path, *val;
	size_t plen, vlen;
	int err;

	while (scanf("%15s %zu %zu", op, &plen, &vlen) == 3 &&
	       getchar() == '\n') {
		path = read_exact(plen);
		val = read_exact(vlen);
		if (!path || !val)
			return 1;
		err = serve_one(op, path, val, vlen);
		if (err >= 0)
			puts(ename(err));
		fflush(stdout);
		free(path);
		free(val);
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: sysio write FILE VALUE | read FILE | readerr FILE |\n"
		"             mkdir PATH | rmdir PATH | hammer FILE N VALUE... |\n"
		"             rejects ENAME FILE VALUE... |\n"
		"             withpid PID PROG [ARG...] | serve\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int err;

	if (argc == 2 && !strcmp(argv[1], "serve"))
		return serve();
	if (argc < 3)
		return usage();
	cmd = argv[1];
	arm_alarm();

	if (!strcmp(cmd, "write") && argc == 4)
		return report(write_str(argv[2], argv[3]));
	if (!strcmp(cmd, "readerr") && argc == 3)
		return report(read_all(argv[2], 0));
	if (!strcmp(cmd, "read") && argc == 3) {
		err = read_all(argv[2], 1);
		fflush(stdout);
		if (err) {
			fprintf(stderr, "%s\n", ename(err));
			return 1;
		}
		return 0;
	}
	if (!strcmp(cmd, "mkdir") && argc == 3)
		return report(do_mkdir(argv[2]));
	if (!strcmp(cmd, "rmdir") && argc == 3)
		return report(do_rmdir(argv[2]));
	if (!strcmp(cmd, "hammer") && argc >= 5)
		return hammer(argv[2], strtol(argv[3], NULL, 10), argv + 4,
			      argc - 4);
	if (!strcmp(cmd, "rejects") && argc >= 5)
		return rejects(argv[2], argv[3], argv + 4, argc - 4);
	if (!strcmp(cmd, "withpid") && argc >= 4)
		return withpid((pid_t)strtol(argv[2], NULL, 10), argv + 3);
	return usage();
}
