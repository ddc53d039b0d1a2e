// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz dump DIR: every file under DIR but snapshots, one line each,
 * so that a shell can check a whole tree with one fork.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>

#include "cfsfuzz.h"

/*
 * Print "RELPATH<TAB>LEN<TAB>TEXT" for every file under @dir but
 * snapshots (LEN -1 and the errno's name if it cannot be read): TEXT is
 * the file's bytes with those outside '!'..'~' and space, and the
 * backslash, written as \xNN (so a NUL is always "\x00").
 */
static int dump_dir(const char *dir, size_t skip)
{
	static char buf[65536];
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	ssize_t n, i;
	DIR *d = opendir(dir);
	int bad = 0;

	if (!d) {
		printf("%s\t-1\t%s\n", dir + skip, ename(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st))
			continue;	/* removed meanwhile */
		if (S_ISDIR(st.st_mode)) {
			bad |= dump_dir(path, skip);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !strcmp(de->d_name, "snapshot"))
			continue;
		n = read_file(path, buf, sizeof(buf));
		if (n < 0) {
			printf("%s\t-1\t%s\n", path + skip, ename(-n));
			bad = 1;
			continue;
		}
		printf("%s\t%zd\t", path + skip, n);
		for (i = 0; i < n; i++) {
			unsigned char c = buf[i];

			if (c >= ' ' && c <= '~' && c != '\\')
				putchar(c);
			else
				printf("\\x%02x", c);
		}
		putchar('\n');
	}
	closedir(d);
	return bad;
}

int cmd_dump(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	return dump_dir(argv[2], strlen(argv[2]) + 1);
}
