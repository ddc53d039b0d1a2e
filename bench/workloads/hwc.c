// SPDX-License-Identifier: GPL-2.0
/*
 * hwc: hot, warm and cold ranges of fixed, different access intensities
 * (bench workload 2; with -m, the size sweep of workload 3).
 *
 *   hwc [-w WARM_MS] HOT_MIB WARM_MIB COLD_MIB
 *
 * Maps the three ranges as one populated anonymous mapping, in that
 * order (hot at the lowest address), prints the ground truth
 *
 *   ready PID
 *   range hot START END
 *   range warm START END
 *   range cold START END
 *
 * (decimal, END exclusive) and then loops without sleeping: every pass
 * touches one word of every hot page; once every WARM_MS milliseconds
 * (default 50) a pass also touches every warm page; cold pages are never
 * touched again.  So with DAMON's default 5 ms sampling, a hot page is
 * accessed in every sample, a warm one in about one sample of
 * WARM_MS / 5, a cold one in none.  Progress: see common.h.
 */
#include "common.h"

static void usage(void)
{
	fprintf(stderr, "usage: hwc [-w WARM_MS] HOT_MIB WARM_MIB COLD_MIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long warm_ms = 50, hot_mib, warm_mib, cold_mib;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t hot_len, warm_len, cold_len;
	double next_warm;
	unsigned int pass = 0;
	char *mem;
	int i;

	i = bench_args(argc, argv, 'w', &warm_ms, 1, 60000, 3, usage);
	hot_mib = wl_num(argv[i], 1, 65536, usage);
	warm_mib = wl_num(argv[i + 1], 0, 65536, usage);
	cold_mib = wl_num(argv[i + 2], 0, 65536, usage);
	hot_len = hot_mib * MIB;
	warm_len = warm_mib * MIB;
	cold_len = cold_mib * MIB;

	bench_signals();
	mem = bench_map(hot_len + warm_len + cold_len);
	printf("ready %ld\n", (long)getpid());
	bench_range("hot", mem, hot_len);
	bench_range("warm", mem + hot_len, warm_len);
	bench_range("cold", mem + hot_len + warm_len, cold_len);

	next_warm = wl_now();
	for (;;) {
		bench_touch(mem, hot_len, page);
		/* The clock is a system call in UML: look at it sparingly. */
		if (++pass % 8 == 0) {
			if (bench_poll())
				break;
			if (warm_len && wl_now() >= next_warm) {
				bench_touch(mem + hot_len, warm_len, page);
				next_warm += warm_ms / 1000.0;
				if (next_warm < wl_now())
					next_warm = wl_now() + warm_ms / 1000.0;
			}
		}
	}
	return 0;
}
