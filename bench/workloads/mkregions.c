// SPDX-License-Identifier: GPL-2.0
/*
 * mkregions ours|upstream DIR N START END: set up N initial regions of
 * equal, page-aligned size covering [START, END) in the regions directory
 * DIR of a target, through either interface, for the scale benchmark (a
 * shell loop writing 200,000 files takes minutes under UML):
 *
 *   ours       mkdir DIR/rI, then DIR/rI/start and DIR/rI/end (I = 0..N-1);
 *   upstream   N into DIR/nr_regions, then DIR/I/start and DIR/I/end.
 *
 * mkregions ours|upstream DIR 0 removes them again (rmdir DIR/r*, or 0
 * into DIR/nr_regions).  Exits 1 at the first failure, saying which.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "../../selftests/workloads/wl.h"

static void usage(void)
{
	fprintf(stderr, "usage: mkregions ours|upstream DIR N START END\n"
		"       mkregions ours|upstream DIR 0\n");
	exit(2);
}

static void put(const char *path, unsigned long v)
{
	char buf[32];
	int fd, len = snprintf(buf, sizeof(buf), "%lu\n", v);

	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, buf, len) != len) {
		fprintf(stderr, "mkregions: write %lu to %s: %s\n", v, path,
			strerror(errno));
		exit(1);
	}
	close(fd);
}

static void remove_ours(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		perror(dir);
		exit(1);
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] != 'r')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rmdir(path)) {
			perror(path);
			exit(1);
		}
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	unsigned long n, i, start, end, sz, page = sysconf(_SC_PAGESIZE);
	char path[PATH_MAX + 16], item[PATH_MAX];
	bool ours;

	if (argc != 4 && argc != 6)
		usage();
	if (strcmp(argv[1], "ours") && strcmp(argv[1], "upstream"))
		usage();
	ours = !strcmp(argv[1], "ours");
	n = wl_num(argv[3], 0, 1000000, usage);
	if (!n) {
		if (argc != 4)
			usage();
		if (ours) {
			remove_ours(argv[2]);
		} else {
			snprintf(path, sizeof(path), "%s/nr_regions", argv[2]);
			put(path, 0);
		}
		return 0;
	}
	if (argc != 6)
		usage();
	start = wl_num(argv[4], 0, ULONG_MAX, usage);
	end = wl_num(argv[5], start + 1, ULONG_MAX, usage);
	sz = (end - start) / n / page * page;
	if (!sz) {
		fprintf(stderr, "mkregions: %lu regions do not fit\n", n);
		return 1;
	}
	if (!ours) {
		snprintf(path, sizeof(path), "%s/nr_regions", argv[2]);
		put(path, n);
	}
	for (i = 0; i < n; i++) {
		snprintf(item, sizeof(item), ours ? "%s/r%lu" : "%s/%lu",
			 argv[2], i);
		if (ours && mkdir(item, 0700)) {
			perror(item);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/start", item);
		put(path, start + i * sz);
		snprintf(path, sizeof(path), "%s/end", item);
		put(path, start + (i + 1) * sz);
	}
	return 0;
}
