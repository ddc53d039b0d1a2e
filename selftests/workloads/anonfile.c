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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB	(1024UL * 1024UL)
#define HOLE	(1UL * MIB)	/* unmapped gap between the two ranges */

static volatile sig_atomic_t stop;
static size_t page_size;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: anonfile ANON_MIB FILE_MIB PATH\n");
	exit(2);
}

static unsigned long parse_mib(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || !v || v > 4096)
		usage();
	return v;
}

/* The value of word @w of page @p of range @r (0 anon, 1 file). */
static uint64_t pattern(unsigned int r, size_t p, size_t w)
{
	uint64_t x = ((uint64_t)r << 61) ^ ((uint64_t)p << 24) ^ (w << 3);

	x ^= 0x2545f4914f6cdd1dULL;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 31);
}

static void fill(uint64_t *base, size_t pages, unsigned int r)
{
	size_t words = page_size / sizeof(uint64_t);

	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < words; w++)
			base[p * words + w] = pattern(r, p, w);
}

/* Returns the number of bad pages; reports the first one. */
static size_t check(const uint64_t *base, size_t pages, unsigned int r)
{
	size_t words = page_size / sizeof(uint64_t), bad = 0;

	for (size_t p = 0; p < pages; p++) {
		for (size_t w = 0; w < words; w++) {
			if (base[p * words + w] == pattern(r, p, w))
				continue;
			if (!bad)
				printf("verify: FAILED %s page %zu word %zu\n",
				       r ? "file" : "anon", p, w);
			bad++;
			break;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	size_t anon_len, file_len, anon_pages, file_pages, bad;
	struct sigaction sa;
	char *map, *anon, *file;
	sigset_t mask, old;
	int shared_anon;
	int fd;

	if (argc != 4)
		usage();
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	anon_len = parse_mib(argv[1]) * MIB;
	file_len = parse_mib(argv[2]) * MIB;
	anon_pages = anon_len / page_size;
	file_pages = file_len / page_size;

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

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fill((uint64_t *)anon, anon_pages, 0);
	fill((uint64_t *)file, file_pages, 1);

	printf("%ld %lu %lu %lu %lu\n", (long)getpid(),
	       (unsigned long)anon, (unsigned long)(anon + anon_len),
	       (unsigned long)file, (unsigned long)(file + file_len));
	fflush(stdout);

	/* Wait for a signal without a window between the test and the wait. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);

	bad = check((uint64_t *)anon, anon_pages, 0);
	bad += check((uint64_t *)file, file_pages, 1);
	if (bad) {
		printf("verify: FAILED, %zu of %zu pages differ\n", bad,
		       anon_pages + file_pages);
		return 1;
	}
	printf("verify: ok, %zu pages intact\n", anon_pages + file_pages);
	return 0;
}
