/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands of cfsfuzz share: random numbers, failure reports,
 * the formats configfs files read, a scheme's statistics, and the
 * commands themselves (see main.c).
 */
#ifndef CFSFUZZ_H
#define CFSFUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "../fileio.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof(*(a)))

#define WRITE_MAX	4095	/* configfs passes at most PAGE_SIZE - 1 bytes */
#define MAX_NR_REGIONS	100000UL
#define COMMIT_ALARM_MS	3000
#define MAX_FAILS	30

extern unsigned long page;	/* the page size */

/* xorshift64*; each command seeds rng_state */
extern uint64_t rng_state;
uint64_t rnd(void);
uint64_t rnd_below(uint64_t n);
bool chance(unsigned int percent);

/* failures so far; nr_ops numbers the fuzzer's operations for fail() */
extern unsigned long nr_fails, nr_ops;
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *quote(const char *buf, size_t len);

int write_state(const char *path, const char *word);
bool is_dir(const char *path);
bool parse_line_ulong(const char *s, unsigned long *v);
bool parse_line_pid(const char *s, long *v);
bool has_word(const char *list, const char *word);
bool node_list(const char *file, long *first, long *last);
const char *snapshot_problem(char *buf);

/* A scheme's stats/ files, in the order of the ST_ indices. */
#define NR_STATS	5
enum { ST_NR_TRIED, ST_SZ_TRIED, ST_NR_APPLIED, ST_SZ_APPLIED,
	ST_QT_EXCEEDS };
extern const char *const stat_names[NR_STATS];
bool stats_possible(const unsigned long v[NR_STATS]);

/* The commands: argc and argv of main(); 2 is a usage error. */
int cmd_fuzz(int argc, char **argv);
int cmd_cycles(int argc, char **argv);
int cmd_names(int argc, char **argv);
int cmd_race(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_respawn(int argc, char **argv);

#endif /* CFSFUZZ_H */
