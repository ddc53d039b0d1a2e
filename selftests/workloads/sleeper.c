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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned long mib = 0, start = 0, end = 0;
	struct sigaction sa;
	sigset_t mask, old;
	char *endp;

	if (argc > 2 || (argc == 2 && ((mib = strtoul(argv[1], &endp, 10)),
				       *endp || argv[1][0] == '\0' ||
				       argv[1][0] == '-' || mib > 65536))) {
		fprintf(stderr, "usage: sleeper [MIB]\n");
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

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

	/* Block the signals so none is lost between the check and the wait. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
