// SPDX-License-Identifier: GPL-2.0
/*
 * sleeper US: a task that does nothing but sleep US microseconds at a
 * time, as a kdamond does between samples.  Its CPU time is what that
 * many wake-ups cost the machine (timer, wake-up, two context switches,
 * its own system calls), the floor under any monitor that wakes as often.
 * Prints "ready PID"; SIGTERM or SIGINT ends it.
 */
#include "../../selftests/workloads/wl.h"

static void usage(void)
{
	fprintf(stderr, "usage: sleeper US\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec nap;
	unsigned long us;

	if (argc != 2)
		usage();
	us = wl_num(argv[1], 1, 1000000, usage);
	nap.tv_sec = us / 1000000;
	nap.tv_nsec = (long)(us % 1000000) * 1000;
	wl_stop_on_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (!wl_stop)
		nanosleep(&nap, NULL);
	return 0;
}
