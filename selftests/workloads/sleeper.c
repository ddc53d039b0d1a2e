// SPDX-License-Identifier: GPL-2.0
/*
 * sleeper: an idle process to use as a monitoring target.
 *
 *   sleeper [MIB]
 *
 * Optionally populates MIB MiB of anonymous memory (never touched again),
 * prints "PID START END" (decimal, END exclusive; "PID 0 0" without MIB),
 * then sleeps until SIGTERM, SIGUSR1 or SIGINT and exits 0.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "wl.h"

static void usage(void)
{
	fprintf(stderr, "usage: sleeper [MIB]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long mib = 0, start = 0, end = 0;

	if (argc > 2)
		usage();
	if (argc == 2)
		mib = wl_num(argv[1], 0, 65536, usage);
	wl_stop_on_signals();

	if (mib) {
		size_t len = mib << 20;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("sleeper: mmap");
			return 2;
		}
		memset(p, 0x5a, len);
		start = (unsigned long)p;
		end = start + len;
	}
	printf("%ld %lu %lu\n", (long)getpid(), start, end);
	fflush(stdout);

	wl_wait_for_stop();
	return 0;
}
