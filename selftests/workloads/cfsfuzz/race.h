/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfsfuzz race: what the races share (race.c), and the races.
 */
#ifndef RACE_H
#define RACE_H

#include "cfsfuzz.h"

void tally(const char *cat, int err);
void print_tallies(void);
void forget_tallies(void);
int race_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void sleep_us(unsigned long us);
unsigned long long mono_us(void);
void reap(pid_t pid);
pid_t spawn_target(void);
pid_t spawn_killer(pid_t victim, unsigned long max_us);

int writef(const char *dir, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool readf(const char *dir, const char *file, char *buf, size_t size);
bool read_ulong(const char *dir, const char *file, unsigned long *v);
bool read_stats(const char *s, unsigned long v[NR_STATS]);
bool wait_off(const char *ctx);
bool stopped(const char *ctx);

/* race-exit.c */
int race_exit_on(const char *ctx, unsigned long rounds);
int race_exit_commit(const char *ctx, unsigned long rounds);
int race_exit_only(const char *ctx, unsigned long rounds);
/* race-action.c */
int race_exit_action(const char *ctx, unsigned long rounds,
		     unsigned long mib, long survivor, bool willneed);
/* race-tree.c */
int race_gone(const char *contexts, unsigned long rounds);
int race_rmdir_off(const char *contexts, unsigned long rounds, long pid);
int race_dirs(const char *ctx, unsigned long rounds, long pid);
/* race-paddr.c */
int race_paddr(const char *ctx, unsigned long rounds);

#endif /* RACE_H */
