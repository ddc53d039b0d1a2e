// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz cycles CONTEXTS N PID ON_EVERY and cfsfuzz names CONTEXTS SEED N
 * PID: a context, a target and a region made, used and removed again and
 * again; with plain names, or with random ones.
 */
#define _GNU_SOURCE
#include "cfsfuzz.h"

/* "FAIL: WHAT PATH: ERRNO" if @err; returns @err. */
static int must(int err, const char *what, const char *path)
{
	if (err) {
		printf("FAIL: %s %s: %s\n", what, path, ename(err));
		fflush(stdout);
	}
	return err;
}

int cmd_cycles(int argc, char **argv)
{
	char c[600], t[700], r[800], f[900];
	unsigned long n, i, on_every;
	const char *pid;

	if (argc != 6 || strlen(argv[2]) >= 512)
		return 2;
	n = strtoul(argv[3], NULL, 10);
	pid = argv[4];
	on_every = strtoul(argv[5], NULL, 10);
	snprintf(c, sizeof(c), "%s/cyc", argv[2]);
	snprintf(t, sizeof(t), "%s/targets/t", c);
	snprintf(r, sizeof(r), "%s/regions/r", t);
	for (i = 0; i < n; i++) {
		if (must(do_mkdir(c), "mkdir", c) ||
		    must(do_mkdir(t), "mkdir", t))
			return 1;
		snprintf(f, sizeof(f), "%s/pid", t);
		if (must(write_str(f, pid), "write pid to", f))
			return 1;
		if (i % 2) {
			if (must(do_mkdir(r), "mkdir", r))
				return 1;
			snprintf(f, sizeof(f), "%s/start", r);
			must(write_str(f, "4096\n"), "write", f);
			snprintf(f, sizeof(f), "%s/end", r);
			must(write_str(f, "1048576\n"), "write", f);
		}
		snprintf(f, sizeof(f), "%s/sample_us", c);
		must(write_str(f, "1000"), "write", f);
		snprintf(f, sizeof(f), "%s/aggr_us", c);
		must(write_str(f, "10000"), "write", f);
		if (on_every && i % on_every == 0) {
			snprintf(f, sizeof(f), "%s/state", c);
			if (must(write_str(f, "on"), "on:", f))
				return 1;
			if (i % (2 * on_every) == 0)
				must(write_state(f, "commit"), "commit:", f);
			if (must(write_str(f, "off"), "off:", f))
				return 1;
		}
		if (i % 2 && must(do_rmdir(r), "rmdir", r))
			return 1;
		if (must(do_rmdir(t), "rmdir", t) ||
		    must(do_rmdir(c), "rmdir", c))
			return 1;
	}
	printf("cycles %lu ok\n", n);
	return 0;
}

static void random_name(char *name, size_t *len)
{
	size_t i, n;

	switch (rnd_below(4)) {
	case 0:
		n = 255;
		break;
	case 1:
		n = 1 + rnd_below(3);
		break;
	default:
		n = 1 + rnd_below(255);
		break;
	}
	for (i = 0; i < n; i++) {
		unsigned char ch;

		do {
			switch (rnd_below(6)) {
			case 0:
				ch = '%';
				break;
			case 1:
				ch = '\n';
				break;
			case 2:
				ch = 0x80 + rnd_below(128);
				break;
			default:
				ch = 1 + rnd_below(255);
				break;
			}
		} while (ch == '/');
		name[i] = (char)ch;
	}
	name[n] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		name[0] = 'x';
	*len = n;
}

int cmd_names(int argc, char **argv)
{
	char c[1024], t[1400], r[1800], f[1900];
	char name[256], buf[64];
	unsigned long n, i;
	size_t len;
	long kpid;
	int bad = 0;

	if (argc != 6 || strlen(argv[2]) >= 512)
		return 2;
	rng_state = strtoul(argv[3], NULL, 10) * 0x9e3779b97f4a7c15ULL + 1;
	n = strtoul(argv[4], NULL, 10);
	for (i = 0; i < n && !bad; i++) {
		random_name(name, &len);
		snprintf(c, sizeof(c), "%s/%s", argv[2], name);
		random_name(name, &len);
		snprintf(t, sizeof(t), "%s/targets/%s", c, name);
		random_name(name, &len);
		snprintf(r, sizeof(r), "%s/regions/%s", t, name);
		if (must(do_mkdir(c), "mkdir", quote(c, strlen(c))) ||
		    must(do_mkdir(t), "mkdir", quote(t, strlen(t))) ||
		    must(do_mkdir(r), "mkdir", quote(r, strlen(r)))) {
			bad = 1;
			break;
		}
		snprintf(f, sizeof(f), "%s/pid", t);
		bad |= must(write_str(f, argv[5]), "write", "pid");
		snprintf(f, sizeof(f), "%s/start", r);
		bad |= must(write_str(f, "4096"), "write", "start");
		snprintf(f, sizeof(f), "%s/end", r);
		bad |= must(write_str(f, "8192"), "write", "end");
		snprintf(f, sizeof(f), "%s/state", c);
		bad |= must(write_str(f, "on"), "on:", quote(c, strlen(c)));
		snprintf(f, sizeof(f), "%s/kdamond_pid", c);
		if (read_file(f, buf, sizeof(buf)) < 0 ||
		    !parse_line_pid(buf, &kpid) || kpid <= 0) {
			printf("FAIL: kdamond_pid of %s\n", quote(c, strlen(c)));
			bad = 1;
		}
		snprintf(f, sizeof(f), "%s/state", c);
		bad |= must(write_str(f, "off"), "off:", quote(c, strlen(c)));
		bad |= must(do_rmdir(r), "rmdir", quote(r, strlen(r)));
		bad |= must(do_rmdir(t), "rmdir", quote(t, strlen(t)));
		bad |= must(do_rmdir(c), "rmdir", quote(c, strlen(c)));
	}
	if (!bad)
		printf("names %lu ok\n", n);
	return bad;
}
