// SPDX-License-Identifier: GPL-2.0
/*
 * moving: a large populated buffer with a hot window that jumps every few
 * seconds (bench workload 1).
 *
 *   moving [-s SECONDS_PER_WINDOW] BUF_MIB WINDOW_MIB
 *
 * The buffer is cut into BUF_MIB / WINDOW_MIB slots; the window visits
 * them in a fixed pseudo-random order (never the same slot twice in a
 * row).  Prints
 *
 *   ready PID
 *   range buf START END
 *
 * and, each time the window moves (the first time right after "ready"),
 *
 *   window T START END
 *
 * (T: CLOCK_MONOTONIC seconds at the move; addresses decimal, END
 * exclusive): the ground truth.  It loops without sleeping, touching one
 * word of every page of the window per pass, and nothing else.
 * Progress: see common.h.
 */
#include "common.h"

static void usage(void)
{
	fprintf(stderr, "usage: moving [-s SECONDS] BUF_MIB WINDOW_MIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long secs = 3, buf_mib, win_mib, nr_slots, slot = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), win_len;
	unsigned int pass = 0;
	uint64_t rnd = 0x2545f4914f6cdd1dULL;
	double next_move;
	char *mem, *win;
	int i;

	i = bench_args(argc, argv, 's', &secs, 1, 3600, 2, usage);
	buf_mib = wl_num(argv[i], 2, 65536, usage);
	win_mib = wl_num(argv[i + 1], 1, buf_mib / 2, usage);
	nr_slots = buf_mib / win_mib;
	win_len = win_mib * MIB;

	bench_signals();
	mem = bench_map(buf_mib * MIB);
	printf("ready %ld\n", (long)getpid());
	bench_range("buf", mem, buf_mib * MIB);

	next_move = 0;
	win = mem;
	for (;;) {
		if (pass % 8 == 0) {
			double now = wl_now();

			if (bench_poll())
				break;
			if (now >= next_move) {
				unsigned long s;

				/* xorshift64: the same walk on every run. */
				do {
					rnd ^= rnd << 13;
					rnd ^= rnd >> 7;
					rnd ^= rnd << 17;
					s = rnd % nr_slots;
				} while (s == slot && nr_slots > 1);
				slot = s;
				win = mem + slot * win_len;
				printf("window %.6f %lu %lu\n", now,
				       (unsigned long)win,
				       (unsigned long)(win + win_len));
				next_move = now + secs;
			}
		}
		pass++;
		bench_touch(win, win_len, page);
	}
	return 0;
}
