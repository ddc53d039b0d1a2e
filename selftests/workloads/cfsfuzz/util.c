// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz: random numbers, failure reports, and reading and writing
 * configfs files the way every command does.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "cfsfuzz.h"

unsigned long page;
uint64_t rng_state;
unsigned long nr_fails, nr_ops;

uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

/* "FAIL op N: ..." for the first MAX_FAILS failures; counts them all. */
void fail(const char *fmt, ...)
{
	va_list ap;

	nr_fails++;
	if (nr_fails > MAX_FAILS)
		return;
	printf("FAIL op %lu: ", nr_ops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* @buf of @len bytes as a C-like string literal, shortened when long. */
const char *quote(const char *buf, size_t len)
{
	static char out[400];
	size_t i, o = 0, shown = len > 60 ? 48 : len;

	out[o++] = '"';
	for (i = 0; i < shown; i++) {
		unsigned char c = buf[i];

		if (c == '\n')
			o += sprintf(out + o, "\\n");
		else if (c == '"' || c == '\\')
			o += sprintf(out + o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o++] = '"';
	out[o] = '\0';
	if (shown < len)
		sprintf(out + o, "...(%zu bytes)", len);
	return out;
}

/*
 * Write @word to a state file: a commit gets COMMIT_ALARM_MS, so that one
 * waiting for a far aggregation boundary fails with EINTR instead of
 * hanging.
 */
int write_state(const char *path, const char *word)
{
	int err;

	if (!strncmp(word, "commit", 6))
		alarm_ms(COMMIT_ALARM_MS);
	err = write_str(path, word);
	alarm_ms(0);
	return err;
}

bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* "123\n" with a decimal unsigned number: true and the number. */
bool parse_line_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\n'))
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && end[0] == '\n' && end[1] == '\0';
}

/* "-1\n" or "N\n" with 0 < N <= INT_MAX. */
bool parse_line_pid(const char *s, long *v)
{
	unsigned long u;

	if (!strcmp(s, "-1\n")) {
		*v = -1;
		return true;
	}
	if (!parse_line_ulong(s, &u) || !u || u > INT_MAX)
		return false;
	*v = (long)u;
	return true;
}

/* Whether @word is one of the blank-separated words of @list. */
bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *at;

	for (at = strstr(list, word); at; at = strstr(at + 1, word))
		if ((at == list || at[-1] == ' ') &&
		    (!at[n] || at[n] == ' ' || at[n] == '\n'))
			return true;
	return false;
}

/*
 * What is wrong with snapshot @buf (NUL-terminated; its lines get cut):
 * NULL if it is "START END NR_ACCESSES AGE" lines, each with its newline,
 * page-aligned, in address order; else the first bad line.
 */
const char *snapshot_problem(char *buf)
{
	unsigned long prev_end = 0, s, e, acc, age;
	char *line, *next;

	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			return line;
		*next++ = '\0';
		if (sscanf(line, "%lu %lu %lu %lu", &s, &e, &acc, &age) != 4 ||
		    s >= e || s % page || e % page || s < prev_end)
			return line;
		prev_end = e;
	}
	return NULL;
}

/*
 * The first and the last node of a sysfs node list such as "0-1,3\n", in
 * *@first and *@last; false if there is none, or no such file (no NUMA).
 */
bool node_list(const char *file, long *first, long *last)
{
	char buf[256], *p;

	if (read_file(file, buf, sizeof(buf)) < 0 || buf[0] < '0' ||
	    buf[0] > '9')
		return false;
	*first = strtol(buf, NULL, 10);
	for (p = buf + strcspn(buf, "\n");
	     p > buf && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	*last = strtol(p, NULL, 10);
	return true;
}

const char *const stat_names[NR_STATS] = {
	"nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds",
};

/*
 * Whether statistics @v could be true: what was applied was tried too, in
 * whole pages, and a region tried is a page at least.
 */
bool stats_possible(const unsigned long v[NR_STATS])
{
	return v[ST_NR_APPLIED] <= v[ST_NR_TRIED] &&
	       v[ST_SZ_APPLIED] <= v[ST_SZ_TRIED] &&
	       !(v[ST_SZ_TRIED] % page) && !(v[ST_SZ_APPLIED] % page) &&
	       !(v[ST_NR_TRIED] && v[ST_SZ_TRIED] / v[ST_NR_TRIED] < page);
}
