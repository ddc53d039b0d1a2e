// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz CTXDIR SEED SECONDS PID1 PID2: sets up the tree (tree.c),
 * then for SECONDS draws operations from SEED: attribute writes, state
 * words, reads, repairs and mkdir/rmdir; prints a summary of what it did
 * and the failures.
 */
#define _GNU_SOURCE
#include <time.h>

#include "fuzz.h"

struct attr attrs[MAX_ATTRS];
int nr_attrs;
struct scheme_attrs schemes[NR_SCHEMES];
char ctxdir[512];
long pid1, pid2;

unsigned long nr_writes, nr_accepted, nr_state_words, nr_on_ok,
	nr_commit_ok, nr_commit_intr, nr_reads, nr_repairs, nr_dirops,
	nr_scheme_writes, nr_scheme_accepted, nr_stat_checks,
	nr_rmdir_busy, nr_rmdir_on, nr_eperm;
static unsigned long nr_errno[134];

void count_errno(int err)
{
	if (err >= 0 && err < 134)
		nr_errno[err]++;
}

/*
 * An attribute to fuzz: as often one of the context, targets and regions
 * as one of the schemes; read-only files now and then.
 */
static int pick_attr(void)
{
	int i;

	if (chance(50))
		return rnd_below(NR_CTX_ATTRS);
	do {
		i = NR_CTX_ATTRS + rnd_below(nr_attrs - NR_CTX_ATTRS);
	} while (attrs[i].kind == K_RO && chance(80));
	return i;
}

static void print_summary(void)
{
	unsigned long i;

	printf("ops %lu writes %lu accepted %lu scheme-writes %lu "
	       "scheme-accepted %lu state-words %lu on-ok %lu "
	       "commit-ok %lu commit-eintr %lu reads %lu stat-checks %lu "
	       "repairs %lu dirops %lu (rmdir-busy %lu rmdir-while-on %lu "
	       "eperm %lu)\n", nr_ops, nr_writes, nr_accepted,
	       nr_scheme_writes, nr_scheme_accepted, nr_state_words, nr_on_ok,
	       nr_commit_ok, nr_commit_intr, nr_reads, nr_stat_checks,
	       nr_repairs, nr_dirops, nr_rmdir_busy, nr_rmdir_on, nr_eperm);
	printf("errnos:");
	for (i = 0; i < 134; i++)
		if (nr_errno[i])
			printf(" %s=%lu", ename(i), nr_errno[i]);
	printf("\nfailures %lu\n", nr_fails);
}

int cmd_fuzz(int argc, char **argv)
{
	unsigned long seed, secs, i;
	struct timespec t0, now;
	int r;

	if (argc != 7 || strlen(argv[2]) >= sizeof(ctxdir))
		return 2;
	snprintf(ctxdir, sizeof(ctxdir), "%s", argv[2]);
	seed = strtoul(argv[3], NULL, 10);
	secs = strtoul(argv[4], NULL, 10);
	pid1 = strtol(argv[5], NULL, 10);
	pid2 = strtol(argv[6], NULL, 10);
	printf("seed %lu\n", seed);
	fflush(stdout);
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (fuzz_setup())
		return 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((unsigned long)(now.tv_sec - t0.tv_sec) >= secs)
			break;
		nr_ops++;
		r = rnd_below(100);
		if (r < 62)
			fuzz_attr(pick_attr());
		else if (r < 74)
			state_word();
		else if (r < 86)
			read_some();
		else if (r < 93)
			repair();
		else
			dir_op();
		if (nr_fails > MAX_FAILS)
			break;
	}
	/* the last word on the statistics, whatever state this ended in */
	for (i = 0; i < NR_SCHEMES; i++)
		check_stats(&schemes[i]);
	print_summary();
	return nr_fails ? 1 : 0;
}
