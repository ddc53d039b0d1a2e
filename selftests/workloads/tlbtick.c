// SPDX-License-Identifier: GPL-2.0
/*
 * tlbtick: wake up every USEC microseconds, do nothing, sleep again.
 *
 *   tlbtick USEC
 *
 * For the x86_64 test machine under QEMU's TCG (selftests/init.sh starts
 * it there).  TCG caches translations in a software TLB that nothing but
 * a switch of address space (or an explicit flush) empties, and sets a
 * PTE's Accessed bit only when it fills an entry.  After DAMON clears the
 * bit, a process that runs alone on the vCPU keeps using the cached entry
 * and reads as idle however often it touches its pages.  A real CPU's
 * TLB is small and loses entries all the time.  Each wake-up of this
 * process switches the vCPU to its address space and back, which empties
 * TCG's TLB, as other processes and a small TLB do on real hardware; the
 * Accessed bits then say again what the workloads touch.  Runs until it
 * is killed.
 */
#include <time.h>

#include "wl.h"

static void usage(void)
{
	fprintf(stderr, "usage: tlbtick USEC\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long usec;

	if (argc != 2)
		usage();
	usec = wl_num(argv[1], 1, 1000000, usage);
	ts.tv_sec = usec / 1000000;
	ts.tv_nsec = (usec % 1000000) * 1000;
	for (;;)
		nanosleep(&ts, NULL);
}
