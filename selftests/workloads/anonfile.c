// SPDX-License-Identifier: GPL-2.0
/*
 * anonfile: an anonymous and a file-backed memory range, both left idle.
 *
 *   anonfile ANON_MIB FILE_MIB PATH
 *
 * Maps ANON_MIB MiB of private anonymous memory and, after an unmapped
 * hole, FILE_MIB MiB of the file PATH (created or truncated to that size,
 * mapped shared; with PATH "-", shared anonymous memory instead), writes a per-page pattern into every page of both, then
 * prints one line to stdout:
 *
 *   PID ANON_START ANON_END FILE_START FILE_END
 *
 * in decimal, the ends exclusive, every address page-aligned.  It then
 * touches neither range until SIGTERM, SIGUSR1 or SIGINT, when it checks
 * every word of both ranges against the pattern, prints "verify: ok, N
 * pages intact" or "verify: FAILED ..." and exits 0 if all data is intact,
 * 1 if not (2 on usage or set-up errors).  Tests use it to see which of the
 * two kinds of memory a scheme with an anon filter acts on.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>

#include "wl.h"

#define HOLE	(1UL * MIB)	/* unmapped gap between the two ranges */

static void usage(void)
{
	fprintf(stderr, "usage: anonfile ANON_MIB FILE_MIB PATH\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct wl_range ranges[2];
	size_t anon_len, file_len;
	char *map, *anon, *file;
	int shared_anon;
	int fd;

	if (argc != 4)
		usage();
	anon_len = wl_num(argv[1], 1, 4096, usage) * MIB;
	file_len = wl_num(argv[2], 1, 4096, usage) * MIB;

	shared_anon = !strcmp(argv[3], "-");
	fd = shared_anon ? -1 :
	     open(argv[3], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (!shared_anon && (fd < 0 || ftruncate(fd, (off_t)file_len))) {
		perror("anonfile: open or truncate");
		return 2;
	}
	/* Reserve both ranges and the hole, punch the hole, map the file. */
	map = mmap(NULL, anon_len + HOLE + file_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		perror("anonfile: mmap");
		return 2;
	}
	anon = map;
	file = map + anon_len + HOLE;
	if (munmap(map + anon_len, HOLE) ||
	    mmap(file, file_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | (shared_anon ? MAP_ANONYMOUS : 0),
		 fd, 0) != file) {
		perror("anonfile: munmap or file mmap");
		return 2;
	}
	if (fd >= 0)
		close(fd);
	madvise(anon, anon_len, MADV_NOHUGEPAGE);

	ranges[0] = (struct wl_range){ anon, anon_len, "anon" };
	ranges[1] = (struct wl_range){ file, file_len, "file" };

	wl_stop_on_signals();
	wl_fill_and_print(ranges, 2);
	wl_wait_for_stop();
	return wl_verify(ranges, 2);
}
