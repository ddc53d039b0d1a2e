// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz respawn PID TRIES PROG [ARG...]: fork up to TRIES children (each
 * exits at once) until one gets the pid PID by the kernel's normal
 * recycling, and run PROG in that one; wait for it and exit with its
 * status (3: PID never came back).
 */
#define _GNU_SOURCE
#include "cfsfuzz.h"

int cmd_respawn(int argc, char **argv)
{
	unsigned long tries, i;
	pid_t want, child;

	if (argc < 5)
		return 2;
	want = (pid_t)strtol(argv[2], NULL, 10);
	tries = strtoul(argv[3], NULL, 10);
	for (i = 1; i <= tries; i++) {
		child = fork();
		if (child < 0) {
			if (errno == EAGAIN)
				continue;
			perror("cfsfuzz: fork");
			return 3;
		}
		if (!child) {
			if (getpid() != want)
				_exit(0);
			execv(argv[4], argv + 4);
			perror("cfsfuzz: exec");
			_exit(127);
		}
		if (child == want) {
			fprintf(stderr, "cfsfuzz: pid %d again after %lu forks\n",
				(int)want, i);
			return wait_status(child);
		}
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	fprintf(stderr, "cfsfuzz: pid %d did not come back in %lu forks\n",
		(int)want, tries);
	return 3;
}
