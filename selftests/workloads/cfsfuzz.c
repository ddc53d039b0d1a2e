// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz: configfs input fuzzing and stress for the DAMON selftests.
 *
 *   cfsfuzz fuzz CTXDIR SEED SECONDS PID1 PID2
 *	Builds targets t0 (PID1) and t1 (PID2) with regions, and schemes s0
 *	(filters f0, f1) and s1 (filter f0) under the empty context CTXDIR,
 *	then for SECONDS writes random and adversarial values (valid,
 *	boundary, huge, negative, 4 KiB long, embedded NULs, non-UTF-8 bytes,
 *	partial numbers, white space variants, words with junk, near-miss
 *	words, long names, empty writes) to every attribute of the context,
 *	its targets, regions, schemes, their default groups and filters (and
 *	now and then to the read-only statistics), in an order drawn from
 *	SEED, interleaved with on/off/commit, reads, mkdir/rmdir of extra
 *	items and where configfs allows none, and repairs to a valid setup
 *	(so that the kdamond really runs with many of the values).  Every
 *	write's result is checked against configfs-layout.md, and so is what
 *	the file reads back afterwards (the value written, or the old one
 *	after a failure); so are rmdir's results (EBUSY exactly for what the
 *	running setup holds) and the statistics (applied <= tried).  Prints
 *	"seed SEED" first, a summary last; exits 1 on any violation.
 *
 *   cfsfuzz cycles CONTEXTS N PID ON_EVERY
 *	N times: mkdir a context, a target (pid PID) and a region, write
 *	their files, rmdir them again; every ON_EVERY-th cycle (0: never) also
 *	turns the context on and off.  Exits 1 on the first failure.
 *
 *   cfsfuzz names CONTEXTS SEED N PID
 *	N times: mkdir a context, a target and a region with random names
 *	(any bytes but '/' and NUL, 1 to 255 of them, '%' and '\n' likely),
 *	turn the context on with PID as target, check kdamond_pid, off, rmdir.
 *
 *   cfsfuzz race MODE DIR ROUNDS [PID]
 *	Races in a loop without a fork+exec per step (which costs a lot in
 *	UML): exit-on, exit-commit, exit-only (a target process killed
 *	during on / commit), exit-action (a target process killed while a
 *	pageout scheme pages its memory out; the arguments are then DIR
 *	ROUNDS MIB PID), gone (removal after the only target exited,
 *	without reading state), rmdir-off (rmdir racing off), dirs (mkdir
 *	and rmdir of targets and regions racing on/commit/off), reads (the
 *	read-mostly files of a context).  See the race_* functions.  Prints
 *	"COUNT WHAT OUTCOME N" lines and "FAIL: ..." lines; exits 1 on FAIL.
 *
 *   cfsfuzz dump DIR
 *	Prints every file under DIR but snapshots, one line each, with the
 *	bytes that are not printable ASCII escaped (see dump_dir()), so that
 *	a shell can check a whole tree with one fork.
 *
 *   cfsfuzz respawn PID TRIES PROG [ARG...]
 *	Fork up to TRIES children (each exits at once) until one gets the
 *	pid PID by the kernel's normal recycling, and run PROG in that one;
 *	wait for it and exit with its status (3: PID never came back).
 *
 * Writes are single write(2) calls; a commit gets a 3 s SIGALRM, so that a
 * commit waiting for a far aggregation boundary fails with EINTR instead
 * of hanging.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WRITE_MAX	4095	/* configfs passes at most PAGE_SIZE - 1 bytes */
#define BUF_MAX		8192
#define MAX_NR_REGIONS	100000UL
#define COMMIT_ALARM_MS	3000
#define MAX_FAILS	30

/* ------------------------------------------------------------ utilities */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

static const char *ename(int err)
{
	static char buf[32];
	const char *name;

	if (!err)
		return "OK";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static unsigned long nr_fails;
static unsigned long nr_ops;

static void fail(const char *fmt, ...)
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
static const char *quote(const char *buf, size_t len)
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

static void on_alarm(int sig)
{
	(void)sig;
}

static void alarm_ms(long ms)
{
	struct itimerval it = {};

	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * One write(2) of @len bytes; 0 or an errno.  *@written gets what write
 * returned when it did not fail.
 */
static int write_once(const char *path, const void *val, size_t len,
		      ssize_t *written)
{
	ssize_t n;
	int fd, err = 0;

	*written = -1;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, val, len);
	if (n < 0)
		err = errno;
	else
		*written = n;
	close(fd);
	return err;
}

static int write_str(const char *path, const char *s)
{
	ssize_t n;
	int err = write_once(path, s, strlen(s), &n);

	if (!err && n != (ssize_t)strlen(s))
		err = EIO;
	return err;
}

static int write_state(const char *path, const char *word)
{
	int err;

	if (!strncmp(word, "commit", 6))
		alarm_ms(COMMIT_ALARM_MS);
	err = write_str(path, word);
	alarm_ms(0);
	return err;
}

/* Read all of @path into @buf (NUL-terminated); length or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
		if ((size_t)len == size - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int do_mkdir(const char *path)
{
	return mkdir(path, 0755) ? errno : 0;
}

static int do_rmdir(const char *path)
{
	return rmdir(path) ? errno : 0;
}

/* "123\n" with a decimal unsigned number: true and the number. */
static bool parse_line_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\n'))
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && end[0] == '\n' && end[1] == '\0';
}

/* "-1\n" or "N\n" with 0 < N <= INT_MAX. */
static bool parse_line_pid(const char *s, long *v)
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

/* ------------------------------------------------------------ values */

/*
 * K_WORD: one of @words (accepted where @word_ok says so), reads the word;
 * K_BOOL: a filter's matching, reads Y or N; K_NAME: a filter's target,
 * any name of up to NAME_MAX bytes, reads it back; K_RO: a read-only
 * number (stats, effective_bytes) that no write may change into garbage.
 */
enum kind { K_NUM, K_PID, K_OPS, K_STATE, K_WORD, K_BOOL, K_NAME, K_RO };

struct attr {
	char path[PATH_MAX];
	const char *name;
	enum kind kind;
	unsigned long min, max;
	const char *const *words;	/* K_WORD */
	const bool *word_ok;
	int nr_words;
	/* the model: what the file must read (numbers; pids; word index) */
	long long model;
	char sval[NAME_MAX + 1];	/* K_NAME */
	size_t slen;
	bool present;
};


struct val {
	char buf[BUF_MAX];
	size_t len;
};

static void val_set(struct val *v, const char *s)
{
	v->len = strlen(s);
	memcpy(v->buf, s, v->len);
}

static void val_printf(struct val *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	v->len = vsnprintf(v->buf, sizeof(v->buf), fmt, ap);
	va_end(ap);
}

static void val_append(struct val *v, const char *s, size_t len)
{
	if (v->len + len > sizeof(v->buf))
		len = sizeof(v->buf) - v->len;
	memcpy(v->buf + v->len, s, len);
	v->len += len;
}

static const char *const boundary_numbers[] = {
	"0", "1", "2", "3", "4", "9", "10", "99999", "100000", "100001",
	"4095", "4096", "4097", "2147483647", "2147483648", "4294967295",
	"4294967296", "9223372036854775807", "9223372036854775808",
	"18446744073709547520", "18446744073709551615",
	"18446744073709551616", "18446744073709551617",
	"99999999999999999999", "100000000000000000000",
	"340282366920938463463374607431768211456", "007", "00", "+0",
	"+18446744073709551615", "0000000000000000000000000000001",
	/* the ranges of scheme files: per mille, weights, 32-bit counts */
	"999", "1000", "1001", "10000", "10001", "65535", "65536",
	"4294967294",
};

static const char *const junk[] = {
	"-1", "-0", "-9223372036854775808", "-18446744073709551616", "+",
	"++5", "+-5", "-+5", "5+", "5-", "0x10", "0X10", "0b1", "0o7", "1e3",
	"1.5", "1,5", "1_000", "1 000", " 5", "5 ", "\t5", "5\t", "5\r\n",
	"5\n\n", "\n5", "\n", " ", "\r", "\v5", "5\f", "\xd9\xa1\xd9\xa2",
	"\xef\xbc\x95", "\xff", "\xfe\xff", "\xc0\x80", "\xed\xa0\x80",
	"\x80\x81\x82", "five", "NaN", "inf", "-inf", "1k", "1M", "12abc",
	"abc12", "0,", "%s%n%p", "\x1b[2J", "on", "off", "commit", "vaddr",
	"fvaddr", "paddr", "ON", "Off", "COMMIT", "on ", " on", "on\n\n",
	"on\r\n", "onx", "o", "of", "offf", "comm", "commit\n\n", "vaddr ",
	"VADDR", "vaddr\t", "vaddrx", "fvaddr\n\n", "v", "addr", "none",
	"-", "on off", "on\noff", "commit on",
	/* near the words of scheme files */
	"Stat", "STAT", "page out", "pageout ", " pageout", "pageoutx",
	"pageou", "madv_pageout", "cold\n\n", "hugepages", "free_mem_rate ",
	"free-mem-rate", "Free_mem_rate", "NONE", "none\n\n", "Anon", "ADDR",
	"targets", "yes", "no", "true", "false", "Yes", "of", "2", "YN", "Y ",
	"y\n\n", "nn", "onn", "\xe2\x80\x8bstat", "stat\xc2\xa0",
};

static const char *const words[] = {
	"on", "off", "commit", "vaddr", "fvaddr", "paddr",
};

/* Fill @v with a random decimal number of up to 20 digits. */
static void gen_decimal(struct val *v)
{
	unsigned long x;

	switch (rnd_below(4)) {
	case 0:
		x = rnd_below(16);
		break;
	case 1:
		x = rnd_below(200000);
		break;
	case 2:
		x = rnd() >> rnd_below(64);
		break;
	default:
		x = rnd();
		break;
	}
	val_printf(v, "%lu", x);
}

/* A random value of one of many kinds, for any attribute. */
static const char *gen_value(struct val *v, unsigned long page)
{
	size_t i, n;

	switch (rnd_below(20)) {
	case 0: case 1: case 2:
		gen_decimal(v);
		if (chance(30))
			val_append(v, "\n", 1);
		if (chance(10)) {
			memmove(v->buf + 1, v->buf, v->len);
			v->buf[0] = '+';
			v->len++;
		}
		return "decimal";
	case 3:
		/* page-aligned addresses, for regions */
		val_printf(v, "%lu", (unsigned long)(rnd_below(1UL << 35) * page));
		if (chance(50))
			val_append(v, "\n", 1);
		return "address";
	case 4: case 5:
		val_set(v, boundary_numbers[rnd_below(sizeof(boundary_numbers) /
						      sizeof(*boundary_numbers))]);
		if (chance(40))
			val_append(v, "\n", 1);
		return "boundary";
	case 6: case 7: case 8:
		val_set(v, junk[rnd_below(sizeof(junk) / sizeof(*junk))]);
		if (chance(20))
			val_append(v, "\n", 1);
		return "junk";
	case 9: case 10:
		val_set(v, words[rnd_below(sizeof(words) / sizeof(*words))]);
		if (chance(40))
			val_append(v, "\n", 1);
		return "word";
	case 11:
		/* an embedded NUL: before, inside or after a good value */
		gen_decimal(v);
		switch (rnd_below(3)) {
		case 0:
			val_append(v, "\0", 1);
			break;
		case 1:
			val_append(v, "\0junk", 5);
			break;
		default:
			memmove(v->buf + 1, v->buf, v->len);
			v->buf[0] = '\0';
			v->len++;
			break;
		}
		return "nul";
	case 12:
		/* random bytes, mostly not UTF-8 */
		v->len = 1 + rnd_below(64);
		for (i = 0; i < v->len; i++)
			v->buf[i] = (char)(chance(70) ? 0x80 + rnd_below(128) :
					   rnd_below(256));
		return "bytes";
	case 13:
		/* long runs of digits, around and beyond what one write holds */
		n = 20 + rnd_below(4200);
		if (chance(50))
			n = WRITE_MAX - 2 + rnd_below(5);
		v->len = n;
		for (i = 0; i < n; i++)
			v->buf[i] = (char)('0' + rnd_below(10));
		if (chance(50))
			memset(v->buf, '0', n - 1);
		if (chance(30))
			v->buf[n - 1] = '\n';
		return "long-digits";
	case 14:
		/* 4 KiB of one letter, or junk after 4095 good bytes */
		n = 4096 + rnd_below(2) * rnd_below(4096);
		memset(v->buf, chance(50) ? 'a' : '0', n);
		v->len = n;
		if (chance(50))
			v->buf[WRITE_MAX - 1] = '1';
		return "4k";
	case 15:
		/* a good number followed by junk */
		gen_decimal(v);
		{
			const char *j = junk[rnd_below(sizeof(junk) /
						       sizeof(*junk))];

			val_append(v, j, strlen(j));
		}
		return "number+junk";
	case 16:
		/* white space around a number or word */
		if (chance(50))
			gen_decimal(v);
		else
			val_set(v, words[rnd_below(sizeof(words) /
						   sizeof(*words))]);
		{
			static const char *const ws[] = {
				" ", "\t", "\n", "\r", "\v", "\f", "  ",
				"\n\n", " \n",
			};
			const char *w = ws[rnd_below(sizeof(ws) / sizeof(*ws))];

			if (chance(50)) {
				memmove(v->buf + strlen(w), v->buf, v->len);
				memcpy(v->buf, w, strlen(w));
				v->len += strlen(w);
			} else {
				val_append(v, w, strlen(w));
			}
		}
		return "whitespace";
	case 17:
		v->len = 0;
		return "empty";
	case 18:
		/* printable ASCII */
		v->len = 1 + rnd_below(40);
		for (i = 0; i < v->len; i++)
			v->buf[i] = (char)(0x20 + rnd_below(0x5f));
		return "ascii";
	default:
		/* a small pid: kernel threads, init, the shells around us */
		val_printf(v, "%lu\n", (unsigned long)rnd_below(400));
		return "small";
	}
}

static const char *const bool_words[] = {
	"y", "Y", "n", "N", "1", "0", "on", "off",
	/* what kstrtobool() alone would take too, and near misses */
	"yes", "no", "Yes", "NO", "true", "false", "of", "o", "On", "OFF",
	"oN", "2", "-1", "+1", "00", "01", "y ", " y", "Yn", "nY", "onx",
};

/* A random name for a filter's target: short, long, around NAME_MAX. */
static void gen_name(struct val *v)
{
	static const size_t lens[] = { 0, 1, 2, 3, 8, 254, 255, 256, 257, 300 };
	static const char *const known[] = { "t0", "t1", "tx", "t2", "T0" };
	size_t i, n;

	if (chance(40)) {
		val_set(v, known[rnd_below(sizeof(known) / sizeof(*known))]);
	} else {
		n = lens[rnd_below(sizeof(lens) / sizeof(*lens))];
		for (i = 0; i < n; i++) {
			switch (rnd_below(8)) {
			case 0:
				v->buf[i] = (char)(0x80 + rnd_below(128));
				break;
			case 1:
				v->buf[i] = "/\n%. \t"[rnd_below(6)];
				break;
			default:
				v->buf[i] = (char)('a' + rnd_below(26));
				break;
			}
		}
		v->len = n;
	}
	if (chance(50))
		val_append(v, "\n", 1);
}

/*
 * A value for attribute @a: mostly any kind (gen_value()), but words,
 * booleans and names also get near-valid values of their own.
 */
static const char *gen_value_for(struct val *v, const struct attr *a,
				 unsigned long page)
{
	const char *w;
	size_t n;

	if (a->kind == K_WORD && chance(40)) {
		w = a->words[rnd_below(a->nr_words)];
		val_set(v, w);
		n = v->len;
		switch (rnd_below(8)) {
		case 0:		/* one letter less */
			v->len = n - 1;
			break;
		case 1:		/* one more */
			val_append(v, "s", 1);
			break;
		case 2:		/* upper case */
			v->buf[0] = (char)(v->buf[0] - 'a' + 'A');
			break;
		case 3:
			val_append(v, "\n\n", 2);
			break;
		default:
			if (chance(50))
				val_append(v, "\n", 1);
			break;
		}
		return "own-word";
	}
	if (a->kind == K_BOOL && chance(40)) {
		val_set(v, bool_words[rnd_below(sizeof(bool_words) /
						sizeof(*bool_words))]);
		if (chance(40))
			val_append(v, "\n", 1);
		return "own-bool";
	}
	if (a->kind == K_NAME && chance(50)) {
		gen_name(v);
		return "own-name";
	}
	return gen_value(v, page);
}

/* ------------------------------------------------------------ the oracle */


static const char *const ops_names[] = { "vaddr", "fvaddr", "paddr" };
static bool ops_registered[3];

/*
 * What a number attribute does with @v (the first WRITE_MAX bytes of it):
 * *@want is the errno it must give (0: accepted, value in *@num), and
 * *@alt another errno the contract allows (-1: none).
 */
static void predict_num(const struct val *v, unsigned long min,
			unsigned long max, int *want, int *alt,
			unsigned long *num)
{
	size_t len = v->len > WRITE_MAX ? WRITE_MAX : v->len;
	const char *s = v->buf, *end = s + len;
	unsigned long x = 0;
	bool overflow = false, digits = false;

	*alt = -1;
	if (!len) {
		/* configfs gives EFAULT for an empty write: never stored */
		*want = EINVAL;
		*alt = EFAULT;
		return;
	}
	if (memchr(s, '\0', len)) {
		*want = EINVAL;
		return;
	}
	if (*s == '+')
		s++;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		digits = true;
		if (x > (ULONG_MAX - (*s - '0')) / 10)
			overflow = true;
		x = x * 10 + (*s - '0');
	}
	if (s < end && *s == '\n')
		s++;
	if (overflow) {
		*want = ERANGE;
		if (s != end)
			*alt = EINVAL;	/* too big and junk: either */
		return;
	}
	if (!digits || s != end) {
		*want = EINVAL;
		return;
	}
	if (x < min) {
		*want = EINVAL;
		return;
	}
	if (x > max) {
		*want = ERANGE;
		return;
	}
	*want = 0;
	*num = x;
}

/* Which of @names @v is ("word" or "word\n"), or -1. */
static int match_word(const struct val *v, const char *const *names, int nr)
{
	size_t len = v->len > WRITE_MAX ? WRITE_MAX : v->len;
	int i;

	if (memchr(v->buf, '\0', len))
		return -1;
	for (i = 0; i < nr; i++) {
		size_t n = strlen(names[i]);

		if ((len == n || (len == n + 1 && v->buf[n] == '\n')) &&
		    !memcmp(v->buf, names[i], n))
			return i;
	}
	return -1;
}

/* Check what @a reads against the model; fills @got for messages. */
static bool check_readback(struct attr *a, const char *why)
{
	char buf[NAME_MAX + 64];
	ssize_t n = read_file(a->path, buf, sizeof(buf));
	unsigned long u;
	const char *w;
	long p;

	if (n < 0) {
		fail("read %s: %s (%s)", a->path, ename(-n), why);
		return false;
	}
	switch (a->kind) {
	case K_NUM:
		if (!parse_line_ulong(buf, &u) || u < a->min || u > a->max) {
			fail("%s reads %s: not a number in [%lu, %lu] (%s)",
			     a->path, quote(buf, n), a->min, a->max, why);
			return false;
		}
		if ((long long)u != a->model) {
			fail("%s reads %lu, expected %llu (%s)", a->path, u,
			     a->model, why);
			return false;
		}
		return true;
	case K_PID:
		if (!parse_line_pid(buf, &p)) {
			fail("%s reads %s: not -1 or a pid (%s)", a->path,
			     quote(buf, n), why);
			return false;
		}
		if (p != a->model) {
			fail("%s reads %ld, expected %lld (%s)", a->path, p,
			     a->model, why);
			return false;
		}
		return true;
	case K_OPS:
		if (n < 2 || buf[n - 1] != '\n' ||
		    strncmp(buf, ops_names[a->model], n - 1) ||
		    strlen(ops_names[a->model]) != (size_t)n - 1) {
			fail("%s reads %s, expected \"%s\\n\" (%s)", a->path,
			     quote(buf, n), ops_names[a->model], why);
			return false;
		}
		return true;
	case K_STATE:
		if (strcmp(buf, "on\n") && strcmp(buf, "off\n")) {
			fail("%s reads %s (%s)", a->path, quote(buf, n), why);
			return false;
		}
		return true;
	case K_WORD:
		w = a->words[a->model];
		if ((size_t)n != strlen(w) + 1 || strncmp(buf, w, n - 1) ||
		    buf[n - 1] != '\n') {
			fail("%s reads %s, expected \"%s\\n\" (%s)", a->path,
			     quote(buf, n), w, why);
			return false;
		}
		return true;
	case K_BOOL:
		if (strcmp(buf, a->model ? "Y\n" : "N\n")) {
			fail("%s reads %s, expected \"%c\\n\" (%s)", a->path,
			     quote(buf, n), a->model ? 'Y' : 'N', why);
			return false;
		}
		return true;
	case K_NAME:
		if ((size_t)n != a->slen + 1 || memcmp(buf, a->sval, a->slen) ||
		    buf[n - 1] != '\n') {
			fail("%s reads %s, expected %s and a newline (%s)",
			     a->path, quote(buf, n), quote(a->sval, a->slen),
			     why);
			return false;
		}
		return true;
	case K_RO:
		if (!parse_line_ulong(buf, &u)) {
			fail("%s reads %s: not a number (%s)", a->path,
			     quote(buf, n), why);
			return false;
		}
		return true;
	}
	return false;
}

/* ------------------------------------------------------------ the fuzzer */

enum { A_OPS, A_SAMPLE, A_AGGR, A_UPDATE, A_MIN, A_MAX, A_STATE,
	A_T0_PID, A_T1_PID, A_T0R0_START, A_T0R0_END, A_T0R1_START,
	A_T0R1_END, A_T1R0_START, A_T1R0_END, NR_CTX_ATTRS };

#define MAX_ATTRS	128
#define NR_SCHEMES	2
#define MAX_FILTERS	2
#define NR_STATS	5

/* Where in attrs[] the files of one filter and of one scheme are. */
struct filter_attrs {
	int type, matching, addr_start, addr_end, target;
};

struct scheme_attrs {
	char dir[64];		/* relative to the context */
	int action, apply_interval;
	int min_sz, max_sz, min_nr, max_nr, min_age, max_age;
	int ms, bytes, reset, w_sz, w_nr, w_age, esz;
	int metric, wm_interval, high, mid, low;
	int stats[NR_STATS];
	int nr_filters;
	struct filter_attrs filters[MAX_FILTERS];
};

static const char *const stat_names[NR_STATS] = {
	"nr_tried", "sz_tried", "nr_applied", "sz_applied", "qt_exceeds",
};
enum { ST_NR_TRIED, ST_SZ_TRIED, ST_NR_APPLIED, ST_SZ_APPLIED };

static const char *const action_names[] = {
	"willneed", "cold", "pageout", "hugepage", "nohugepage", "stat",
};
static bool action_ok[6];	/* as features lists them */
static const char *const metric_names[] = { "none", "free_mem_rate" };
static const bool metric_ok[] = { true, true };
static const char *const ftype_names[] = { "anon", "addr", "target" };
static const bool ftype_ok[] = { true, true, true };
/* what the first eight bool_words[] mean */
static const bool bool_value[8] = { 1, 1, 0, 0, 1, 0, 1, 0 };

static struct attr attrs[MAX_ATTRS];
static int nr_attrs;
static struct scheme_attrs schemes[NR_SCHEMES];
static char ctxdir[512];	/* short enough for every path below */
static long pid1, pid2;
static unsigned long page;

/* result counters */
static unsigned long nr_writes, nr_accepted, nr_state_words, nr_on_ok,
	nr_commit_ok, nr_commit_intr, nr_reads, nr_repairs, nr_dirops,
	nr_scheme_writes, nr_scheme_accepted, nr_stat_checks,
	nr_rmdir_busy, nr_rmdir_on, nr_eperm, nr_errno[134];

static void count_errno(int err)
{
	if (err >= 0 && err < 134)
		nr_errno[err]++;
}

/*
 * The directories that dir_op() makes and removes, and whether each is
 * part of the running setup (made before the last "on" from off or the
 * last commit): then, and only then, rmdir must fail with EBUSY.
 */
enum { X_TARGET, X_REGION, X_SCHEME, X_FILTER, NR_EXTRA };

static const char *const extra_dirs[NR_EXTRA] = {
	"targets/tx", "targets/t0/regions/rx", "schemes/sx",
	"schemes/s0/filters/fx",
};
static bool extra_exists[NR_EXTRA], extra_running[NR_EXTRA];

/* After writing state word @w (0 on, 1 off, 2 commit) gave @err. */
static void note_state(int w, int err, bool was_on)
{
	int i;

	for (i = 0; i < NR_EXTRA; i++) {
		/*
		 * on while on changes nothing; a commit interrupted by a
		 * signal still happens
		 */
		if ((w == 0 && !err && !was_on) ||
		    (w == 2 && (!err || err == EINTR)))
			extra_running[i] = extra_exists[i];
		else if (w == 1 && !err)
			extra_running[i] = false;
	}
}

static int attr_add(const char *rel, enum kind kind, unsigned long min,
		    unsigned long max)
{
	struct attr *a = &attrs[nr_attrs];

	if (nr_attrs == MAX_ATTRS) {
		fprintf(stderr, "cfsfuzz: MAX_ATTRS is too small\n");
		exit(2);
	}
	snprintf(a->path, sizeof(a->path), "%s/%s", ctxdir, rel);
	a->name = strrchr(a->path, '/') + 1;
	a->kind = kind;
	a->min = min;
	a->max = max;
	a->present = true;
	return nr_attrs++;
}

static int attr_add_words(const char *rel, const char *const *words,
			  const bool *ok, int nr)
{
	int i = attr_add(rel, K_WORD, 0, 0);

	attrs[i].words = words;
	attrs[i].word_ok = ok;
	attrs[i].nr_words = nr;
	return i;
}

/* Load the model from what the files read now. */
static int attr_load(struct attr *a)
{
	char buf[NAME_MAX + 64];
	ssize_t n = read_file(a->path, buf, sizeof(buf));
	unsigned long u;
	long p;
	int i;

	if (n < 0) {
		fail("read %s: %s", a->path, ename(-n));
		return -1;
	}
	switch (a->kind) {
	case K_NUM:
		if (!parse_line_ulong(buf, &u))
			goto bad;
		a->model = u;
		return 0;
	case K_PID:
		if (!parse_line_pid(buf, &p))
			goto bad;
		a->model = p;
		return 0;
	case K_OPS:
		for (i = 0; i < 3; i++) {
			if (!strncmp(buf, ops_names[i], n - 1) &&
			    strlen(ops_names[i]) == (size_t)n - 1) {
				a->model = i;
				return 0;
			}
		}
		goto bad;
	case K_WORD:
		for (i = 0; i < a->nr_words; i++) {
			if (n >= 1 && buf[n - 1] == '\n' &&
			    strlen(a->words[i]) == (size_t)n - 1 &&
			    !strncmp(buf, a->words[i], n - 1)) {
				a->model = i;
				return 0;
			}
		}
		goto bad;
	case K_BOOL:
		if (strcmp(buf, "Y\n") && strcmp(buf, "N\n"))
			goto bad;
		a->model = buf[0] == 'Y';
		return 0;
	case K_NAME:
		if (n < 1 || (size_t)n > NAME_MAX + 1 || buf[n - 1] != '\n' ||
		    memchr(buf, '\0', n))
			goto bad;
		memcpy(a->sval, buf, n - 1);
		a->slen = n - 1;
		return 0;
	case K_RO:
		if (!parse_line_ulong(buf, &u))
			goto bad;
		return 0;
	case K_STATE:
		return 0;
	}
bad:
	fail("%s reads %s", a->path, quote(buf, n));
	return -1;
}

static bool state_is_on(void)
{
	char buf[16];

	return read_file(attrs[A_STATE].path, buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "on\n");
}

static long kdamond_pid(void)
{
	char path[PATH_MAX], buf[32];
	long p;

	snprintf(path, sizeof(path), "%s/kdamond_pid", ctxdir);
	if (read_file(path, buf, sizeof(buf)) < 0 || !parse_line_pid(buf, &p))
		return -2;
	return p;
}

/*
 * What a filter's target does with @v: *@want the errno it must give (0:
 * stored, and the name is the first *@len bytes), *@alt another one the
 * contract allows.  Names are at most NAME_MAX bytes (one trailing newline
 * is not part of them); one with a '/' can never name a target directory,
 * so refusing it (EINVAL) is as good as storing it.
 */
static void predict_name(const struct val *v, int *want, int *alt,
			 size_t *len)
{
	size_t n = v->len > WRITE_MAX ? WRITE_MAX : v->len;

	*alt = -1;
	if (!n) {
		*want = EINVAL;
		*alt = EFAULT;
		return;
	}
	if (memchr(v->buf, '\0', n)) {
		*want = EINVAL;
		return;
	}
	if (v->buf[n - 1] == '\n')
		n--;
	*len = n;
	if (n > NAME_MAX) {
		*want = EINVAL;
		*alt = ENAMETOOLONG;
		return;
	}
	*want = 0;
	if (memchr(v->buf, '/', n))
		*alt = EINVAL;
}

/* Write a fuzzed value to attribute @i and check the result. */
static void fuzz_attr(int i)
{
	struct attr *a = &attrs[i];
	static struct val v;
	const char *kind = gen_value_for(&v, a, page);
	size_t eff = v.len > WRITE_MAX ? WRITE_MAX : v.len, name_len = 0;
	int err, want = 0, alt = -1, w;
	unsigned long num = 0;
	char why[600];
	ssize_t n;
	bool was_on = false;

	if (a->kind == K_STATE) {
		was_on = state_is_on();
		alarm_ms(COMMIT_ALARM_MS);
	}
	err = write_once(a->path, v.buf, v.len, &n);
	alarm_ms(0);
	nr_writes++;
	if (i >= NR_CTX_ATTRS) {
		nr_scheme_writes++;
		if (!err)
			nr_scheme_accepted++;
	}
	count_errno(err);
	snprintf(why, sizeof(why), "after writing %s value %s",
		 kind, quote(v.buf, v.len));
	if (!err && (size_t)n != eff) {
		fail("%s: write of %zu bytes returned %zd (%s)", a->path,
		     v.len, n, why);
		return;
	}
	if (!err)
		nr_accepted++;

	switch (a->kind) {
	case K_NUM:
		predict_num(&v, a->min, a->max, &want, &alt, &num);
		break;
	case K_PID:
		predict_num(&v, 1, INT_MAX, &want, &alt, &num);
		/* a good number: the process may or may not exist */
		if (!want && err == ESRCH)
			want = ESRCH;
		else if (!want && err == EINVAL)	/* a kernel thread */
			want = EINVAL;
		break;
	case K_OPS:
		w = match_word(&v, ops_names, 3);
		if (w >= 0 && ops_registered[w]) {
			want = 0;
			num = w;
		} else {
			want = EINVAL;
			if (!v.len)
				alt = EFAULT;
		}
		break;
	case K_WORD:
		w = match_word(&v, a->words, a->nr_words);
		if (w >= 0 && a->word_ok[w]) {
			want = 0;
			num = w;
		} else {
			want = EINVAL;
			if (!v.len)
				alt = EFAULT;
		}
		break;
	case K_BOOL:
		w = match_word(&v, bool_words, 8);
		if (w >= 0) {
			want = 0;
			num = bool_value[w];
		} else {
			want = EINVAL;
			if (!v.len)
				alt = EFAULT;
		}
		break;
	case K_NAME:
		predict_name(&v, &want, &alt, &name_len);
		break;
	case K_RO:
		/* any errno, but never success */
		want = err ? err : EACCES;
		break;
	case K_STATE:
		w = match_word(&v, words, 3);
		if (w < 0) {
			want = EINVAL;
			if (!v.len)
				alt = EFAULT;
			break;
		}
		nr_state_words++;
		/* on/off/commit: what happens depends on the setup */
		if (w == 0 && !err)
			nr_on_ok++;
		if (w == 2 && !err)
			nr_commit_ok++;
		if (w == 2 && err == EINTR)
			nr_commit_intr++;
		if (w == 1) {
			want = 0;
		} else if (w == 2 && !was_on) {
			want = EINVAL;
			/* it may have been turned on... not by us: strict */
		} else {
			want = err;	/* checked below against the list */
			if (err && err != EINVAL && err != ESRCH &&
			    !(w == 2 && (err == EBUSY || err == EINTR)))
				fail("%s: %s gave %s (%s)", a->path,
				     words[w], ename(err), why);
		}
		if (w == 1 && !err && (state_is_on() || kdamond_pid() != -1))
			fail("still on after off (%s)", why);
		note_state(w, err, was_on);
		break;
	}
	if (err != want && err != alt) {
		fail("%s: expected %s%s%s, got %s (%s)", a->path, ename(want),
		     alt >= 0 ? " or " : "", alt >= 0 ? ename(alt) : "",
		     ename(err), why);
		/* resynchronise the model with what the kernel did */
		if (!err && a->kind != K_STATE)
			attr_load(a);
		return;
	}
	if (!err && a->kind == K_NAME) {
		memcpy(a->sval, v.buf, name_len);
		a->slen = name_len;
	} else if (!err && a->kind != K_STATE && a->kind != K_RO) {
		a->model = (long long)num;
	}
	check_readback(a, why);
}

/* Write a valid value; it must be accepted. */
static void set_ok(int i, const char *fmt, ...)
{
	struct attr *a = &attrs[i];
	char buf[64];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	err = write_str(a->path, buf);
	if (err) {
		fail("repair: %s <- %s: %s", a->path, buf, ename(err));
		attr_load(a);
		return;
	}
	attr_load(a);
}

/* Valid writes collected, then made in a random order. */
struct pending {
	int attr;
	char val[64];
};

static void pend(struct pending *p, int *n, int attr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p[*n].val, sizeof(p[*n].val), fmt, ap);
	va_end(ap);
	p[(*n)++].attr = attr;
}

static void pend_flush(struct pending *p, int n)
{
	struct pending t;
	int i, j;

	for (i = n - 1; i > 0; i--) {
		j = rnd_below(i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	for (i = 0; i < n; i++)
		set_ok(p[i].attr, "%s", p[i].val);
}

/* Two random numbers from @lo .. @hi, in order, in *@a <= *@b. */
static void ordered_pair(unsigned long lo, unsigned long hi,
			 unsigned long *a, unsigned long *b)
{
	unsigned long x = lo + rnd_below(hi - lo + 1);
	unsigned long y = lo + rnd_below(hi - lo + 1);

	*a = x < y ? x : y;
	*b = x < y ? y : x;
}

/*
 * A valid scheme: an available action (mostly ones that do something), a
 * pattern with each min <= max, sometimes quotas and a watermark window
 * (low <= mid <= high), and filters that name t0 or t1 or a real range.
 * Every value is written on its own, in a random order.
 */
static void repair_scheme(struct scheme_attrs *sa)
{
	struct pending p[64];
	unsigned long x, y, z, lo, hi;
	int n = 0, i, act;

	do {
		act = rnd_below(6);
	} while (!action_ok[act]);
	pend(p, &n, sa->action, chance(50) ? "%s\n" : "%s",
	     action_names[act]);
	pend(p, &n, sa->apply_interval, "%lu",
	     chance(50) ? 0 : rnd_below(300000));
	x = chance(60) ? 0 : page * rnd_below(64);
	y = chance(50) ? ULONG_MAX : x + page * rnd_below(1UL << 16);
	pend(p, &n, sa->min_sz, "%lu", x);
	pend(p, &n, sa->max_sz, "%lu\n", y);
	if (chance(50))
		ordered_pair(0, 30, &x, &y);
	else
		x = 0, y = UINT_MAX;
	pend(p, &n, sa->min_nr, "%lu", x);
	pend(p, &n, sa->max_nr, "%lu", y);
	if (chance(50))
		ordered_pair(0, 50, &x, &y);
	else
		x = rnd_below(3), y = UINT_MAX;
	pend(p, &n, sa->min_age, "%lu", x);
	pend(p, &n, sa->max_age, "+%lu", y);
	pend(p, &n, sa->ms, "%lu", chance(60) ? 0 : rnd_below(200));
	pend(p, &n, sa->bytes, "%lu",
	     chance(60) ? 0 : page * (1 + rnd_below(4096)));
	pend(p, &n, sa->reset, "%lu", 1 + rnd_below(2000));
	pend(p, &n, sa->w_sz, "%lu", rnd_below(10001));
	pend(p, &n, sa->w_nr, "%lu", chance(20) ? 0 : rnd_below(10001));
	pend(p, &n, sa->w_age, "%lu", chance(20) ? 10000 : rnd_below(10001));
	if (chance(70)) {
		pend(p, &n, sa->metric, "none");
	} else {
		/* low <= mid <= high, from three draws */
		ordered_pair(0, 1000, &lo, &hi);
		z = lo + rnd_below(hi - lo + 1);
		pend(p, &n, sa->metric, "free_mem_rate\n");
		pend(p, &n, sa->high, "%lu", hi);
		pend(p, &n, sa->mid, "%lu", z);
		pend(p, &n, sa->low, "%lu", lo);
		pend(p, &n, sa->wm_interval, "%lu", 1 + rnd_below(10000000));
	}
	for (i = 0; i < sa->nr_filters; i++) {
		struct filter_attrs *f = &sa->filters[i];

		pend(p, &n, f->type, "%s", ftype_names[rnd_below(3)]);
		pend(p, &n, f->matching, "%s", chance(50) ? "Y" : "n\n");
		x = 0x10000000UL + page * rnd_below(1UL << 20);
		pend(p, &n, f->addr_start, "%lu", x + rnd_below(page));
		pend(p, &n, f->addr_end, "%lu", x + page * (1 + rnd_below(1024)));
		pend(p, &n, f->target, chance(50) ? "t0" : "t1\n");
	}
	pend_flush(p, n);
}

/*
 * Make the staged setup valid: interval relations, region counts, the two
 * workloads as targets, non-overlapping regions, valid schemes.
 * Sometimes leaves the kdamond to apply it with a commit.
 */
static void repair(void)
{
	unsigned long sample = 1000 + rnd_below(9000);
	unsigned long aggr = sample * (2 + rnd_below(20));
	unsigned long update = aggr * (1 + rnd_below(5));
	unsigned long min = 3 + rnd_below(20);
	unsigned long max = min + rnd_below(1000);
	unsigned long base = 0x10000000UL + rnd_below(1UL << 20) * page;
	int i, order[5] = { A_SAMPLE, A_AGGR, A_UPDATE, A_MIN, A_MAX };
	unsigned long vals[5] = { sample, aggr, update, min, max };

	nr_repairs++;
	/* any order works: the relations are checked at on/commit only */
	for (i = 4; i > 0; i--) {
		int j = rnd_below(i + 1), t = order[i];
		unsigned long tv = vals[i];

		order[i] = order[j];
		vals[i] = vals[j];
		order[j] = t;
		vals[j] = tv;
	}
	for (i = 0; i < 5; i++)
		set_ok(order[i], "%lu\n", vals[i]);
	if (!state_is_on()) {
		set_ok(A_OPS, chance(70) ? "vaddr" : "fvaddr\n");
		set_ok(A_T0_PID, "%ld", pid1);
		set_ok(A_T1_PID, "%ld\n", pid2);
	}
	set_ok(A_T0R0_START, "%lu", base);
	set_ok(A_T0R0_END, "%lu", base + page * (1 + rnd_below(64)));
	set_ok(A_T0R1_START, "%lu", base + page * 100);
	set_ok(A_T0R1_END, "%lu", base + page * (101 + rnd_below(64)));
	set_ok(A_T1R0_START, "%lu", base);
	set_ok(A_T1R0_END, "%lu", base + page * (1 + rnd_below(4096)));
	/* now and then leave broken schemes for on/commit to refuse */
	for (i = 0; i < NR_SCHEMES; i++)
		if (chance(85))
			repair_scheme(&schemes[i]);
}

/* on, off or commit, as a clean word. */
static void state_word(void)
{
	static const char *const w[] = {
		"on", "on\n", "off", "off\n", "commit", "commit\n",
	};
	const char *word = w[rnd_below(6)];
	bool was_on = state_is_on();
	long kpid = was_on ? kdamond_pid() : -1;
	int err = write_state(attrs[A_STATE].path, word);

	nr_state_words++;
	count_errno(err);
	switch (word[1]) {
	case 'n':	/* on */
		if (!err)
			nr_on_ok++;
		if (err && err != EINVAL && err != ESRCH)
			fail("on gave %s", ename(err));
		if (!err && was_on && state_is_on() && kdamond_pid() != kpid)
			fail("on while on changed kdamond_pid %ld -> %ld",
			     kpid, kdamond_pid());
		if (err && !was_on && (state_is_on() || kdamond_pid() != -1))
			fail("a failed on left the context on");
		break;
	case 'f':	/* off */
		if (err)
			fail("off gave %s", ename(err));
		if (state_is_on() || kdamond_pid() != -1)
			fail("still on after off");
		break;
	default:	/* commit */
		if (!err)
			nr_commit_ok++;
		if (err == EINTR)
			nr_commit_intr++;
		if (!was_on && err != EINVAL)
			fail("commit while off gave %s", ename(err));
		if (was_on && err && err != EINVAL && err != ESRCH &&
		    err != EBUSY && err != EINTR)
			fail("commit gave %s", ename(err));
		break;
	}
	note_state(word[1] == 'n' ? 0 : word[1] == 'f' ? 1 : 2, err, was_on);
	check_readback(&attrs[A_STATE], word);
}


/*
 * The statistics of a scheme, read applied-first: they only grow between
 * two "on"s (and only this process writes "on"), so whatever the kdamond
 * publishes between the reads, what was tried covers what was applied,
 * a region tried is a page at least, and bytes applied mean a region
 * applied.
 */
static void check_stats(const struct scheme_attrs *sa)
{
	unsigned long v[NR_STATS];
	static const int order[NR_STATS] = {
		ST_SZ_APPLIED, ST_NR_APPLIED, ST_NR_TRIED, ST_SZ_TRIED, 4,
	};
	char buf[64];
	ssize_t n;
	int i, k;

	nr_stat_checks++;
	for (i = 0; i < NR_STATS; i++) {
		k = order[i];
		n = read_file(attrs[sa->stats[k]].path, buf, sizeof(buf));
		if (n < 0 || !parse_line_ulong(buf, &v[k])) {
			fail("%s reads %s", attrs[sa->stats[k]].path,
			     n < 0 ? ename(-n) : quote(buf, n));
			return;
		}
	}
	/* (each count read before the next one: only ever smaller) */
	if (v[ST_NR_APPLIED] > v[ST_NR_TRIED] ||
	    v[ST_SZ_APPLIED] > v[ST_SZ_TRIED] ||
	    v[ST_SZ_TRIED] % page || v[ST_SZ_APPLIED] % page ||
	    (v[ST_NR_TRIED] && v[ST_SZ_TRIED] / v[ST_NR_TRIED] < page) ||
	    (!v[ST_NR_APPLIED] && v[ST_SZ_APPLIED]))
		fail("%s/stats: nr_tried %lu sz_tried %lu nr_applied %lu sz_applied %lu: not what the action could have done",
		     sa->dir, v[ST_NR_TRIED], v[ST_SZ_TRIED],
		     v[ST_NR_APPLIED], v[ST_SZ_APPLIED]);
}

/* Read a file and check its format. */
static void read_some(void)
{
	static char buf[MAX_NR_REGIONS * 64 + 1];
	char path[PATH_MAX];
	unsigned long u, prev_end = 0, s, e, acc, age;
	ssize_t n;
	int i = rnd_below(nr_attrs + 4);
	char *line, *next;

	nr_reads++;
	if (i < nr_attrs) {
		if (attrs[i].present)
			check_readback(&attrs[i], "a plain read");
		return;
	}
	i -= nr_attrs;
	if (i == 0) {
		if (kdamond_pid() == -2)
			fail("kdamond_pid is not -1 or a pid");
		return;
	}
	if (i == 1) {
		snprintf(path, sizeof(path), "%s/nr_aggregations", ctxdir);
		n = read_file(path, buf, sizeof(buf));
		if (n < 0 || !parse_line_ulong(buf, &u))
			fail("nr_aggregations reads %s",
			     n < 0 ? ename(-n) : quote(buf, n));
		return;
	}
	if (i == 2) {
		check_stats(&schemes[rnd_below(NR_SCHEMES)]);
		return;
	}
	snprintf(path, sizeof(path), "%s/targets/t%d/snapshot", ctxdir,
		 (int)rnd_below(2));
	n = read_file(path, buf, sizeof(buf));
	if (n == -EAGAIN)
		return;
	if (n < 0) {
		fail("read %s: %s", path, ename(-n));
		return;
	}
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			fail("%s: last line without newline", path);
			return;
		}
		*next++ = '\0';
		if (sscanf(line, "%lu %lu %lu %lu", &s, &e, &acc, &age) != 4 ||
		    s >= e || s % page || e % page || s < prev_end) {
			fail("%s: bad line \"%s\"", path, line);
			return;
		}
		prev_end = e;
	}
}

/*
 * mkdir/rmdir of an extra target tx, an extra region t0/regions/rx, an
 * extra scheme sx and an extra filter s0/filters/fx; and mkdir/rmdir where
 * configfs allows none (in a scheme's default groups but filters/, in a
 * filter; of a default group), which must fail with EPERM.
 */
static void dir_op(void)
{
	static const char *const no_mkdir[] = {
		"schemes/s0/stats/x", "schemes/s0/access_pattern/x",
		"schemes/s0/quotas/x", "schemes/s0/watermarks/x",
		"schemes/s1/filters/f0/x", "targets/t0/regions/r0/x",
	};
	static const char *const no_rmdir[] = {
		"schemes/s0/stats", "schemes/s1/filters",
		"schemes/s0/access_pattern", "schemes/s1/quotas",
		"schemes/s0/watermarks", "targets/t1/regions",
	};
	char path[PATH_MAX], f[PATH_MAX + 32];
	int which = rnd_below(NR_EXTRA + 2), err;
	bool on;

	nr_dirops++;
	if (which >= NR_EXTRA) {
		bool mk = which == NR_EXTRA;

		snprintf(path, sizeof(path), "%s/%s", ctxdir,
			 mk ? no_mkdir[rnd_below(6)] : no_rmdir[rnd_below(6)]);
		err = mk ? do_mkdir(path) : do_rmdir(path);
		if (err != EPERM)
			fail("%s %s: %s, expected EPERM", mk ? "mkdir" : "rmdir",
			     path, ename(err));
		else
			nr_eperm++;
		if (mk && !err)
			do_rmdir(path);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", ctxdir, extra_dirs[which]);
	/* off: nothing runs (a kdamond that stopped by itself is reaped) */
	on = state_is_on();
	if (!on)
		note_state(1, 0, false);
	if (is_dir(path) != extra_exists[which])
		fail("%s %s, though nobody %s it", path,
		     extra_exists[which] ? "is gone" : "exists",
		     extra_exists[which] ? "removed" : "made");
	if (!is_dir(path)) {
		err = do_mkdir(path);
		extra_exists[which] = !err;
		if (err) {
			fail("mkdir %s: %s", path, ename(err));
		} else if (which == X_REGION && chance(70)) {
			snprintf(f, sizeof(f), "%s/start", path);
			write_str(f, "4096");
			snprintf(f, sizeof(f), "%s/end", path);
			write_str(f, "8192");
		} else if (which == X_TARGET && chance(70)) {
			char pidbuf[32];

			snprintf(f, sizeof(f), "%s/pid", path);
			snprintf(pidbuf, sizeof(pidbuf), "%ld", pid2);
			write_str(f, pidbuf);
		} else if (which == X_SCHEME && chance(70)) {
			snprintf(f, sizeof(f), "%s/action", path);
			write_str(f, "stat");
			snprintf(f, sizeof(f), "%s/access_pattern/min_age", path);
			write_str(f, "3");
		} else if (which == X_FILTER && chance(70)) {
			snprintf(f, sizeof(f), "%s/type", path);
			write_str(f, "target");
			snprintf(f, sizeof(f), "%s/target", path);
			write_str(f, chance(50) ? "tx" : "t1");
		}
		return;
	}
	err = do_rmdir(path);
	if (err != (extra_running[which] ? EBUSY : 0))
		fail("rmdir %s while %s, %s the running setup: %s", path,
		     on ? "on" : "off",
		     extra_running[which] ? "part of" : "not in", ename(err));
	if (err == EBUSY)
		nr_rmdir_busy++;
	if (!err && on)
		nr_rmdir_on++;
	if (!err)
		extra_exists[which] = extra_running[which] = false;
}

/* The files of scheme @name with @nr_filters filters f0, f1, ... */
static void add_scheme(struct scheme_attrs *sa, const char *name,
		       int nr_filters)
{
	char rel[128];
	int i;

#define REL(fmt, ...) (snprintf(rel, sizeof(rel), "%s/" fmt, sa->dir, \
				##__VA_ARGS__), rel)
	snprintf(sa->dir, sizeof(sa->dir), "schemes/%s", name);
	sa->action = attr_add_words(REL("action"), action_names, action_ok, 6);
	sa->apply_interval = attr_add(REL("apply_interval_us"), K_NUM, 0,
				      ULONG_MAX);
	sa->min_sz = attr_add(REL("access_pattern/min_size_bytes"), K_NUM, 0,
			      ULONG_MAX);
	sa->max_sz = attr_add(REL("access_pattern/max_size_bytes"), K_NUM, 0,
			      ULONG_MAX);
	sa->min_nr = attr_add(REL("access_pattern/min_nr_accesses"), K_NUM, 0,
			      UINT_MAX);
	sa->max_nr = attr_add(REL("access_pattern/max_nr_accesses"), K_NUM, 0,
			      UINT_MAX);
	sa->min_age = attr_add(REL("access_pattern/min_age"), K_NUM, 0,
			       UINT_MAX);
	sa->max_age = attr_add(REL("access_pattern/max_age"), K_NUM, 0,
			       UINT_MAX);
	sa->ms = attr_add(REL("quotas/ms"), K_NUM, 0, ULONG_MAX);
	sa->bytes = attr_add(REL("quotas/bytes"), K_NUM, 0, ULONG_MAX);
	sa->reset = attr_add(REL("quotas/reset_interval_ms"), K_NUM, 1,
			     ULONG_MAX);
	sa->w_sz = attr_add(REL("quotas/weight_size"), K_NUM, 0, 10000);
	sa->w_nr = attr_add(REL("quotas/weight_nr_accesses"), K_NUM, 0,
			    10000);
	sa->w_age = attr_add(REL("quotas/weight_age"), K_NUM, 0, 10000);
	sa->esz = attr_add(REL("quotas/effective_bytes"), K_RO, 0, 0);
	sa->metric = attr_add_words(REL("watermarks/metric"), metric_names,
				    metric_ok, 2);
	sa->wm_interval = attr_add(REL("watermarks/interval_us"), K_NUM, 1,
				   ULONG_MAX);
	sa->high = attr_add(REL("watermarks/high"), K_NUM, 0, 1000);
	sa->mid = attr_add(REL("watermarks/mid"), K_NUM, 0, 1000);
	sa->low = attr_add(REL("watermarks/low"), K_NUM, 0, 1000);
	for (i = 0; i < NR_STATS; i++)
		sa->stats[i] = attr_add(REL("stats/%s", stat_names[i]), K_RO,
					0, 0);
	sa->nr_filters = nr_filters;
	for (i = 0; i < nr_filters; i++) {
		struct filter_attrs *f = &sa->filters[i];

		f->type = attr_add_words(REL("filters/f%d/type", i),
					 ftype_names, ftype_ok, 3);
		f->matching = attr_add(REL("filters/f%d/matching", i), K_BOOL,
				       0, 0);
		f->addr_start = attr_add(REL("filters/f%d/addr_start", i),
					 K_NUM, 0, ULONG_MAX);
		f->addr_end = attr_add(REL("filters/f%d/addr_end", i), K_NUM,
				       0, ULONG_MAX);
		f->target = attr_add(REL("filters/f%d/target", i), K_NAME, 0,
				     0);
	}
#undef REL
}

/* A new scheme and its filters read the defaults of configfs-layout.md. */
static bool scheme_defaults(const struct scheme_attrs *sa)
{
	const struct filter_attrs *f;
	bool ok = attrs[sa->action].model == 5 &&	/* stat */
		attrs[sa->apply_interval].model == 0 &&
		attrs[sa->min_sz].model == 0 &&
		attrs[sa->max_sz].model == (long long)ULONG_MAX &&
		attrs[sa->min_nr].model == 0 &&
		attrs[sa->max_nr].model == UINT_MAX &&
		attrs[sa->min_age].model == 0 &&
		attrs[sa->max_age].model == UINT_MAX &&
		attrs[sa->ms].model == 0 && attrs[sa->bytes].model == 0 &&
		attrs[sa->reset].model == 1000 &&
		attrs[sa->w_sz].model == 0 && attrs[sa->w_nr].model == 1 &&
		attrs[sa->w_age].model == 1 &&
		attrs[sa->metric].model == 0 &&	/* none */
		attrs[sa->wm_interval].model == 5000000 &&
		attrs[sa->high].model == 0 && attrs[sa->mid].model == 0 &&
		attrs[sa->low].model == 0;
	int i;

	for (i = 0; i < sa->nr_filters; i++) {
		f = &sa->filters[i];
		ok = ok && attrs[f->type].model == 0 &&	/* anon */
		     attrs[f->matching].model == 1 &&
		     attrs[f->addr_start].model == 0 &&
		     attrs[f->addr_end].model == 0 && attrs[f->target].slen == 0;
	}
	return ok;
}

static int fuzz_setup(void)
{
	char path[PATH_MAX + 32], buf[512];
	static const char *const dirs[] = {
		"targets/t0", "targets/t1", "targets/t0/regions/r0",
		"targets/t0/regions/r1", "targets/t1/regions/r0",
		"schemes/s0", "schemes/s0/filters/f0", "schemes/s0/filters/f1",
		"schemes/s1", "schemes/s1/filters/f0",
	};
	size_t i;
	int err;

	page = sysconf(_SC_PAGESIZE);
	snprintf(path, sizeof(path), "%s/../../features", ctxdir);
	if (read_file(path, buf, sizeof(buf)) < 0) {
		fail("cannot read %s", path);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		char word[16];

		snprintf(word, sizeof(word), "ops:%s", ops_names[i]);
		ops_registered[i] = strstr(buf, word) != NULL;
	}
	for (i = 0; i < 6; i++) {
		char word[32];
		size_t l;
		char *at;

		/* "action:WORD" followed by a blank or the end */
		l = snprintf(word, sizeof(word), "action:%s", action_names[i]);
		at = strstr(buf, word);
		action_ok[i] = at && (at[l] == ' ' || at[l] == '\n' ||
				      !at[l]);
	}
	if (!action_ok[5]) {
		fail("features lacks action:stat: %s", quote(buf, strlen(buf)));
		return -1;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", ctxdir, dirs[i]);
		err = do_mkdir(path);
		if (err) {
			fail("mkdir %s: %s", path, ename(err));
			return -1;
		}
	}
	attr_add("operations", K_OPS, 0, 0);
	attr_add("sample_us", K_NUM, 1, ULONG_MAX);
	attr_add("aggr_us", K_NUM, 1, ULONG_MAX);
	attr_add("update_us", K_NUM, 1, ULONG_MAX);
	attr_add("min_nr_regions", K_NUM, 3, MAX_NR_REGIONS);
	attr_add("max_nr_regions", K_NUM, 3, MAX_NR_REGIONS);
	attr_add("state", K_STATE, 0, 0);
	attr_add("targets/t0/pid", K_PID, 1, INT_MAX);
	attr_add("targets/t1/pid", K_PID, 1, INT_MAX);
	attr_add("targets/t0/regions/r0/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r0/end", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r1/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t0/regions/r1/end", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t1/regions/r0/start", K_NUM, 0, ULONG_MAX);
	attr_add("targets/t1/regions/r0/end", K_NUM, 0, ULONG_MAX);
	if (nr_attrs != NR_CTX_ATTRS) {
		fail("the context's attributes are out of order");
		return -1;
	}
	add_scheme(&schemes[0], "s0", 2);
	add_scheme(&schemes[1], "s1", 1);
	for (i = 0; i < (size_t)nr_attrs; i++)
		if (attr_load(&attrs[i]))
			return -1;
	/* the defaults of a new tree, per configfs-layout.md */
	if (attrs[A_OPS].model != 0 || attrs[A_SAMPLE].model != 5000 ||
	    attrs[A_AGGR].model != 100000 || attrs[A_UPDATE].model != 1000000 ||
	    attrs[A_MIN].model != 10 || attrs[A_MAX].model != 1000 ||
	    attrs[A_T0_PID].model != -1 || attrs[A_T0R0_START].model != 0 ||
	    attrs[A_T0R0_END].model != 0) {
		fail("a new context, target or region has unexpected defaults");
		return -1;
	}
	for (i = 0; i < NR_SCHEMES; i++) {
		if (!scheme_defaults(&schemes[i])) {
			fail("a new scheme or filter (%s) has unexpected defaults",
			     schemes[i].dir);
			return -1;
		}
	}
	repair();
	return 0;
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

static int cmd_fuzz(int argc, char **argv)
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
	return nr_fails ? 1 : 0;
}

static int must(int err, const char *what, const char *path)
{
	if (err) {
		printf("FAIL: %s %s: %s\n", what, path, ename(err));
		fflush(stdout);
	}
	return err;
}

static int cmd_cycles(int argc, char **argv)
{
	char c[600], t[700], r[800], f[900];
	unsigned long n, i, on_every;
	const char *pid;

	if (argc != 6 || strlen(argv[2]) >= 512)
		return 2;
	n = strtoul(argv[3], NULL, 10);
	pid = argv[4];
	on_every = strtoul(argv[5], NULL, 10);
	snprintf(c, sizeof(c), "%s/cyc", argv[2]);
	snprintf(t, sizeof(t), "%s/targets/t", c);
	snprintf(r, sizeof(r), "%s/regions/r", t);
	for (i = 0; i < n; i++) {
		if (must(do_mkdir(c), "mkdir", c) ||
		    must(do_mkdir(t), "mkdir", t))
			return 1;
		snprintf(f, sizeof(f), "%s/pid", t);
		if (must(write_str(f, pid), "write pid to", f))
			return 1;
		if (i % 2) {
			if (must(do_mkdir(r), "mkdir", r))
				return 1;
			snprintf(f, sizeof(f), "%s/start", r);
			must(write_str(f, "4096\n"), "write", f);
			snprintf(f, sizeof(f), "%s/end", r);
			must(write_str(f, "1048576\n"), "write", f);
		}
		snprintf(f, sizeof(f), "%s/sample_us", c);
		must(write_str(f, "1000"), "write", f);
		snprintf(f, sizeof(f), "%s/aggr_us", c);
		must(write_str(f, "10000"), "write", f);
		if (on_every && i % on_every == 0) {
			snprintf(f, sizeof(f), "%s/state", c);
			if (must(write_str(f, "on"), "on:", f))
				return 1;
			if (i % (2 * on_every) == 0)
				must(write_state(f, "commit"), "commit:", f);
			if (must(write_str(f, "off"), "off:", f))
				return 1;
		}
		if (i % 2 && must(do_rmdir(r), "rmdir", r))
			return 1;
		if (must(do_rmdir(t), "rmdir", t) ||
		    must(do_rmdir(c), "rmdir", c))
			return 1;
	}
	printf("cycles %lu ok\n", n);
	return 0;
}

/* ------------------------------------------------------------ names */

static void random_name(char *name, size_t *len)
{
	size_t i, n;

	switch (rnd_below(4)) {
	case 0:
		n = 255;
		break;
	case 1:
		n = 1 + rnd_below(3);
		break;
	default:
		n = 1 + rnd_below(255);
		break;
	}
	for (i = 0; i < n; i++) {
		unsigned char ch;

		do {
			switch (rnd_below(6)) {
			case 0:
				ch = '%';
				break;
			case 1:
				ch = '\n';
				break;
			case 2:
				ch = 0x80 + rnd_below(128);
				break;
			default:
				ch = 1 + rnd_below(255);
				break;
			}
		} while (ch == '/');
		name[i] = (char)ch;
	}
	name[n] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		name[0] = 'x';
	*len = n;
}

static int cmd_names(int argc, char **argv)
{
	char c[1024], t[1400], r[1800], f[1900];
	char name[256], buf[64];
	unsigned long n, i;
	size_t len;
	long kpid;
	int bad = 0;

	if (argc != 6 || strlen(argv[2]) >= 512)
		return 2;
	rng_state = strtoul(argv[3], NULL, 10) * 0x9e3779b97f4a7c15ULL + 1;
	n = strtoul(argv[4], NULL, 10);
	for (i = 0; i < n && !bad; i++) {
		random_name(name, &len);
		snprintf(c, sizeof(c), "%s/%s", argv[2], name);
		random_name(name, &len);
		snprintf(t, sizeof(t), "%s/targets/%s", c, name);
		random_name(name, &len);
		snprintf(r, sizeof(r), "%s/regions/%s", t, name);
		if (must(do_mkdir(c), "mkdir", quote(c, strlen(c))) ||
		    must(do_mkdir(t), "mkdir", quote(t, strlen(t))) ||
		    must(do_mkdir(r), "mkdir", quote(r, strlen(r)))) {
			bad = 1;
			break;
		}
		snprintf(f, sizeof(f), "%s/pid", t);
		bad |= must(write_str(f, argv[5]), "write", "pid");
		snprintf(f, sizeof(f), "%s/start", r);
		bad |= must(write_str(f, "4096"), "write", "start");
		snprintf(f, sizeof(f), "%s/end", r);
		bad |= must(write_str(f, "8192"), "write", "end");
		snprintf(f, sizeof(f), "%s/state", c);
		bad |= must(write_str(f, "on"), "on:", quote(c, strlen(c)));
		snprintf(f, sizeof(f), "%s/kdamond_pid", c);
		if (read_file(f, buf, sizeof(buf)) < 0 ||
		    !parse_line_pid(buf, &kpid) || kpid <= 0) {
			printf("FAIL: kdamond_pid of %s\n", quote(c, strlen(c)));
			bad = 1;
		}
		snprintf(f, sizeof(f), "%s/state", c);
		bad |= must(write_str(f, "off"), "off:", quote(c, strlen(c)));
		bad |= must(do_rmdir(r), "rmdir", quote(r, strlen(r)));
		bad |= must(do_rmdir(t), "rmdir", quote(t, strlen(t)));
		bad |= must(do_rmdir(c), "rmdir", quote(c, strlen(c)));
	}
	if (!bad)
		printf("names %lu ok\n", n);
	return bad;
}

/* ------------------------------------------------------------ races */

/* Outcome counters: "COUNT CATEGORY OUTCOME N" lines at the end. */
struct tally {
	char cat[24];
	int err;
	unsigned long n;
};

static struct tally tallies[128];
static int nr_tallies;

static void tally(const char *cat, int err)
{
	int i;

	for (i = 0; i < nr_tallies; i++) {
		if (tallies[i].err == err && !strcmp(tallies[i].cat, cat)) {
			tallies[i].n++;
			return;
		}
	}
	if (nr_tallies == 128)
		return;
	snprintf(tallies[i].cat, sizeof(tallies[i].cat), "%s", cat);
	tallies[i].err = err;
	tallies[i].n = 1;
	nr_tallies++;
}

static void print_tallies(void)
{
	int i;

	for (i = 0; i < nr_tallies; i++)
		printf("COUNT %s %s %lu\n", tallies[i].cat,
		       ename(tallies[i].err), tallies[i].n);
	fflush(stdout);
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Microseconds on the monotonic clock. */
static unsigned long long mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A target process: populates 1 MiB, then sleeps until killed. */
static pid_t spawn_target(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		static char mem[1 << 20];

		/* never outlive cfsfuzz (bats waits for its output's EOF) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(mem, 1, sizeof(mem));
		for (;;)
			pause();
	}
	return pid;
}

/* A process that SIGKILLs @victim after 0 to @max_us microseconds. */
static pid_t spawn_killer(pid_t victim, unsigned long max_us)
{
	unsigned long us = rnd_below(max_us + 1);
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sleep_us(us);
		kill(victim, SIGKILL);
		_exit(0);
	}
	return pid;
}

static int writef(const char *dir, const char *file, const char *fmt, ...)
{
	char path[1400], val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_state(path, val);
}

static bool readf(const char *dir, const char *file, char *buf, size_t size)
{
	char path[1400];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return read_file(path, buf, size) >= 0;
}

/* Poll (without reading anything else) until @ctx reads off; 30 s. */
static bool wait_off(const char *ctx)
{
	char buf[16];
	int i;

	for (i = 0; i < 3000; i++) {
		if (readf(ctx, "state", buf, sizeof(buf)) &&
		    !strcmp(buf, "off\n"))
			return true;
		sleep_us(10000);
	}
	return false;
}

static bool stopped(const char *ctx)
{
	char buf[16];

	return readf(ctx, "state", buf, sizeof(buf)) && !strcmp(buf, "off\n") &&
	       readf(ctx, "kdamond_pid", buf, sizeof(buf)) &&
	       !strcmp(buf, "-1\n");
}

static int race_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	nr_fails++;
	return 1;
}

/*
 * exit-on CTX ROUNDS: CTX has a target t0 and valid attributes, is off.
 * Each round a new target process is killed while "on" is written.
 */
static int race_exit_on(const char *ctx, unsigned long rounds)
{
	char t0[1200];
	unsigned long i;
	pid_t b, k;
	int err;

	snprintf(t0, sizeof(t0), "%s/targets/t0", ctx);
	for (i = 0; i < rounds; i++) {
		b = spawn_target();
		if ((err = writef(t0, "pid", "%d", b)))
			return race_fail("pid %d: %s", b, ename(err));
		k = spawn_killer(b, 30000);
		err = writef(ctx, "state", "on");
		tally("on", err);
		if (err && err != ESRCH)
			race_fail("on while the target exits: %s", ename(err));
		reap(k);
		reap(b);
		/* its only target gone, the kdamond stops by itself */
		if (!wait_off(ctx) || !stopped(ctx))
			return race_fail("round %lu: still on 30 s after the target exited",
					 i);
	}
	return 0;
}

/*
 * exit-commit CTX ROUNDS: CTX is on with t0 on a process that lives.
 * Each round t1 gets a new process, killed while "commit" is written.
 */
static int race_exit_commit(const char *ctx, unsigned long rounds)
{
	char t1[1200], buf[16];
	unsigned long i;
	pid_t b, k;
	int err;

	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	for (i = 0; i < rounds; i++) {
		b = spawn_target();
		if ((err = do_mkdir(t1)) || (err = writef(t1, "pid", "%d", b)))
			return race_fail("t1 of %d: %s", b, ename(err));
		k = spawn_killer(b, 30000);
		alarm_ms(60000);
		err = writef(ctx, "state", "commit");
		alarm_ms(0);
		tally("commit", err);
		reap(k);
		reap(b);
		if (err == EINTR)
			return race_fail("commit did not return in 60 s");
		if (err && err != ESRCH)
			race_fail("commit while a new target exits: %s",
				  ename(err));
		/* t0 lives: still on; t1's process is gone: commit says so */
		if (!readf(ctx, "state", buf, sizeof(buf)) || strcmp(buf, "on\n"))
			return race_fail("round %lu: off though t0 lives", i);
		err = writef(ctx, "state", "commit");
		tally("commit-after", err);
		if (err != ESRCH)
			race_fail("commit with t1 exited: %s", ename(err));
		if ((err = writef(ctx, "state", "off")) || !stopped(ctx) ||
		    (err = do_rmdir(t1)) || (err = writef(ctx, "state", "on")))
			return race_fail("round %lu: off, rmdir t1, on: %s", i,
					 ename(err));
	}
	return 0;
}

/*
 * exit-only CTX ROUNDS: CTX has t0 and is off.  Each round: on with a new
 * process as t0, stage a change, kill the process while committing.
 */
static int race_exit_only(const char *ctx, unsigned long rounds)
{
	char t0[1200];
	unsigned long i;
	pid_t b, k;
	int err;

	snprintf(t0, sizeof(t0), "%s/targets/t0", ctx);
	for (i = 0; i < rounds; i++) {
		b = spawn_target();
		if ((err = writef(t0, "pid", "%d", b)) ||
		    (err = writef(ctx, "state", "on")) ||
		    (err = writef(ctx, "aggr_us", "%lu", 5000 + i % 5 * 1000)))
			return race_fail("round %lu set-up: %s", i, ename(err));
		k = spawn_killer(b, 30000);
		alarm_ms(60000);
		err = writef(ctx, "state", "commit");
		alarm_ms(0);
		tally("commit", err);
		reap(k);
		reap(b);
		if (err == EINTR)
			return race_fail("round %lu: commit did not return in 60 s (the kdamond ended without completing it?)",
					 i);
		/* EINVAL: the kdamond had already stopped (commit while off) */
		if (err && err != ESRCH && err != EINVAL)
			race_fail("commit while the only target exits: %s",
				  ename(err));
		if (!wait_off(ctx) || !stopped(ctx))
			return race_fail("round %lu: still on 30 s after the target exited",
					 i);
	}
	return 0;
}

/*
 * A target for exit-action: maps @mib MiB of private anonymous memory,
 * writes to every page (and, with @out, pages it all out itself), says so
 * through a pipe, then sleeps (@busy false) or keeps reading a word of
 * every page (so that what is paged out comes back at once), until
 * killed.  -1 if it could not.
 */
static pid_t spawn_victim(unsigned long mib, bool busy, bool out)
{
	size_t len = mib << 20, i;
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		volatile unsigned char *mem;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(1);
		/* not all one value: zram would store such pages for free */
		for (i = 0; i < len; i += page)
			mem[i] = (unsigned char)(i / page) | 1;
		if (out && madvise((void *)mem, len, MADV_PAGEOUT))
			_exit(1);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;) {
			if (!busy)
				pause();
			for (i = 0; busy && i < len; i += page)
				(void)mem[i];
		}
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		reap(pid);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* Resident pages of @pid (/proc/PID/statm), or -1. */
static long rss_pages(pid_t pid)
{
	char path[64], buf[128];
	long size, res;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%ld %ld", &size, &res) != 2)
		return -1;
	return res;
}

/* Pages in the swap cache (/proc/meminfo SwapCached), or -1. */
static long swap_cached_pages(void)
{
	static char buf[8192];
	const char *at;
	long kib;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	at = strstr(buf, "\nSwapCached:");
	if (!at || sscanf(at + 12, "%ld", &kib) != 1)
		return -1;
	return kib * 1024 / (long)page;
}

static bool read_ulong(const char *dir, const char *file, unsigned long *v)
{
	char buf[64];

	return readf(dir, file, buf, sizeof(buf)) && parse_line_ulong(buf, v);
}

static bool read_stats(const char *s0, unsigned long v[NR_STATS])
{
	char file[32];
	int i;

	for (i = 0; i < NR_STATS; i++) {
		snprintf(file, sizeof(file), "stats/%s", stat_names[i]);
		if (!read_ulong(s0, file, &v[i]))
			return false;
	}
	return true;
}

/*
 * exit-action CTX ROUNDS MIB PID [willneed]: CTX is off, with valid
 * attributes, a target t0 and a scheme s0 (no quota, no watermarks),
 * whose action this sets to pageout (or willneed).  Each round a new
 * process with MIB MiB is t0, and is killed while s0 pages its memory
 * out: once 1 to 70 % of it has left (resident pages, polled every
 * millisecond, for up to 10 s).  With willneed the process has paged all of it out
 * itself, and is killed while s0 reads it back into the swap cache, once
 * 1 to 70 % of it is there (SwapCached).  Even rounds t0 is the only
 * target, and the kdamond must stop by itself (in the second half of the
 * rounds, "off" is written at once instead, racing that); odd rounds a
 * target t1 (PID, which lives) keeps it going, and it must go on
 * aggregating and applying s0, until turned off.  With pageout, rounds 2 and 3 of every
 * four, the process keeps reading its memory back in and s0 acts on any
 * access count.  Then the statistics must add up, and show the action
 * that the exit interrupted.
 */
static int race_exit_action(const char *ctx, unsigned long rounds,
			    unsigned long mib, long survivor, bool willneed)
{
	unsigned long i, st[NR_STATS], again[NR_STATS], n0, n, pages;
	char t0[1200], t1[1200], s0[1200], buf[32];
	bool alone, busy, dropped, off_at_exit;
	long r0, r = -1, thresh, kpid;
	unsigned long long deadline;
	int err, tries;
	pid_t v;

	page = sysconf(_SC_PAGESIZE);
	pages = (mib << 20) / page;
	snprintf(t0, sizeof(t0), "%s/targets/t0", ctx);
	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	snprintf(s0, sizeof(s0), "%s/schemes/s0", ctx);
	err = writef(s0, "action", willneed ? "willneed" : "pageout");
	if (err)
		return race_fail("action: %s", ename(err));
	for (i = 0; i < rounds; i++) {
		alone = !(i & 1);
		busy = !willneed && (i & 2);
		off_at_exit = alone && i >= rounds / 2;
		v = spawn_victim(mib, busy, willneed);
		if (v < 0)
			return race_fail("round %lu: no process with %lu MiB%s",
					 i, mib, willneed ? " paged out" : "");
		err = writef(t0, "pid", "%d", v);
		if (!err)
			err = writef(s0, "access_pattern/max_nr_accesses",
				     busy ? "4294967295" : "0");
		if (!err && alone && is_dir(t1))
			err = do_rmdir(t1);
		if (!err && !alone && !is_dir(t1)) {
			err = do_mkdir(t1);
			if (!err)
				err = writef(t1, "pid", "%ld", survivor);
		}
		if (!err)
			err = writef(ctx, "state", "on");
		tally("on", err);
		if (err) {
			kill(v, SIGKILL);
			reap(v);
			return race_fail("round %lu: set-up and on: %s", i,
					 ename(err));
		}
		kpid = readf(ctx, "kdamond_pid", buf, sizeof(buf)) ?
		       strtol(buf, NULL, 10) : -2;

		/* "dropped": the action has moved that many pages */
		r0 = willneed ? swap_cached_pages() : rss_pages(v);
		thresh = (long)(pages * (1 + rnd_below(70)) / 100) + 1;
		thresh = willneed ? r0 + thresh : r0 - thresh;
		/*
		 * At most 10 s: a busy process may win the race for good
		 * (on x86_64 it faults its pages back about as fast as
		 * they leave); at least one round must see them leave.
		 */
		dropped = false;
		deadline = mono_us() + 10000000;
		while (!dropped && mono_us() < deadline) {
			r = willneed ? swap_cached_pages() : rss_pages(v);
			dropped = r >= 0 && (willneed ? r >= thresh :
					     r <= thresh);
			if (!dropped)
				sleep_us(1000);
		}
		kill(v, SIGKILL);
		if (off_at_exit) {
			/* off while the process exits and the kdamond acts */
			err = writef(ctx, "state", "off");
			tally("off-at-exit", err);
		}
		reap(v);
		tally(dropped ? "kill-mid-action" : "kill-no-drop", 0);

		if (off_at_exit) {
			if (err || !stopped(ctx))
				return race_fail("round %lu: off as the only target exited during the action: %s",
						 i, ename(err));
		} else if (alone) {
			/* its only target gone, the kdamond stops by itself */
			if (!wait_off(ctx) || !stopped(ctx))
				return race_fail("round %lu: still on 30 s after the only target exited during the action",
						 i);
			tally("stopped-by-itself", 0);
		} else {
			/* t1 lives: the kdamond goes on, and aggregates */
			if (!read_ulong(ctx, "nr_aggregations", &n0) ||
			    !read_stats(s0, st))
				return race_fail("round %lu: nr_aggregations, stats",
						 i);
			for (tries = 0; tries < 3000; tries++) {
				if (read_ulong(ctx, "nr_aggregations", &n) &&
				    n >= n0 + 3)
					break;
				sleep_us(10000);
			}
			if (tries == 3000 ||
			    !readf(ctx, "state", buf, sizeof(buf)) ||
			    strcmp(buf, "on\n") ||
			    !readf(ctx, "kdamond_pid", buf, sizeof(buf)) ||
			    strtol(buf, NULL, 10) != kpid)
				return race_fail("round %lu: the kdamond (pid %ld) did not go on with t1 after t0 exited during the action: state %s",
						 i, kpid,
						 readf(ctx, "state", buf, sizeof(buf)) ?
						 buf : "unreadable");
			tally("survived", 0);
			/* and so does s0, on t1's idle memory at least */
			if (!read_stats(s0, again) ||
			    again[ST_NR_TRIED] <= st[ST_NR_TRIED])
				race_fail("round %lu: s0 tried nothing more in 3 aggregations after t0 exited (nr_tried %lu)",
					  i, st[ST_NR_TRIED]);
			err = writef(ctx, "state", "off");
			tally("off", err);
			if (err || !stopped(ctx))
				return race_fail("round %lu: off: %s", i,
						 ename(err));
		}

		/* stopped: the final counts, to stay as they are */
		if (!read_stats(s0, st) || !read_stats(s0, again))
			return race_fail("round %lu: cannot read the stats", i);
		printf("round %lu: %s %s: killed at %ld %s pages, from %ld; stats %lu %lu %lu %lu %lu\n",
		       i, willneed ? "willneed" : busy ? "busy" : "idle",
		       off_at_exit ? "alone, off at once" :
		       alone ? "alone" : "with t1", r,
		       willneed ? "swap-cached" : "resident", r0,
		       st[0], st[1], st[2], st[3], st[4]);
		if (memcmp(st, again, sizeof(st)))
			race_fail("round %lu: the stats change while off", i);
		if (st[ST_NR_APPLIED] > st[ST_NR_TRIED] ||
		    st[ST_SZ_APPLIED] > st[ST_SZ_TRIED] ||
		    st[ST_SZ_TRIED] % page || st[ST_SZ_APPLIED] % page ||
		    (st[ST_NR_TRIED] && st[ST_SZ_TRIED] / st[ST_NR_TRIED] < page) ||
		    (!st[ST_NR_TRIED] && st[ST_SZ_TRIED]) || st[4])
			race_fail("round %lu: stats that no action without a quota could give",
				  i);
		/* memory moved: the action acted, and was counted */
		if (dropped && (!st[ST_NR_APPLIED] || !st[ST_SZ_APPLIED]))
			race_fail("round %lu: memory was moved, but the stats show nothing applied",
				  i);
	}
	return 0;
}

/* rmdir @n dirs in order; 0 when all are gone, else the first errno. */
static int rmdir_chain(char dirs[][1200], int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		if (!is_dir(dirs[i]))
			continue;
		err = do_rmdir(dirs[i]);
		if (err)
			return err;
	}
	return 0;
}

static int build_ctx(char d[3][1200], const char *contexts, const char *name,
		     long pid)
{
	int err;

	snprintf(d[2], 1200, "%s/%s", contexts, name);
	snprintf(d[1], 1200, "%s/%s/targets/t0", contexts, name);
	snprintf(d[0], 1200, "%s/%s/targets/t0/regions/r0", contexts, name);
	if ((err = do_mkdir(d[2])) || (err = do_mkdir(d[1])) ||
	    (err = do_mkdir(d[0])) ||
	    (err = writef(d[2], "sample_us", "1000")) ||
	    (err = writef(d[2], "aggr_us", "5000")) ||
	    (err = writef(d[2], "update_us", "20000")) ||
	    (err = writef(d[2], "max_nr_regions", "100")) ||
	    (err = writef(d[1], "pid", "%ld", pid)) ||
	    (err = writef(d[0], "start", "%lu", 0x10000000UL)) ||
	    (err = writef(d[0], "end", "%lu", 0x10100000UL)))
		race_fail("set-up of %s: %s", name, ename(err));
	return err;
}

/*
 * gone CONTEXTS ROUNDS: each round a context runs on one process, which
 * is killed; then its region, target and the context must become
 * removable without anyone reading state, kdamond_pid or nr_aggregations
 * (the kdamond's own clean-up must release them).
 */
static int race_gone(const char *contexts, unsigned long rounds)
{
	char d[3][1200], name[32], buf[32];
	unsigned long i, n;
	int err = 0, tries;
	pid_t b;

	for (i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "gone%lu", i);
		b = spawn_target();
		if (build_ctx(d, contexts, name, b) ||
		    (err = writef(d[2], "state", "on")))
			return race_fail("%s on: %s", name, ename(err));
		/* let it aggregate once */
		for (tries = 0; tries < 3000; tries++) {
			if (readf(d[2], "nr_aggregations", buf, sizeof(buf)) &&
			    parse_line_ulong(buf, &n) && n >= 1)
				break;
			sleep_us(10000);
		}
		kill(b, SIGKILL);
		reap(b);
		for (tries = 0; tries < 3000; tries++) {
			err = rmdir_chain(d, 3);
			if (!err)
				break;
			sleep_us(10000);
		}
		tally("rmdir-unread", err);
		if (err) {
			readf(d[2], "state", buf, sizeof(buf));
			race_fail("%s: rmdir still %s 30 s after its only target exited without anybody reading state; state then reads %.*s, and rmdir gives %s",
				  name, ename(err), (int)strcspn(buf, "\n"),
				  buf, ename(rmdir_chain(d, 3)));
		}
	}
	return 0;
}

/*
 * rmdir-off CONTEXTS ROUNDS PID: each round a context runs on PID while
 * a child keeps trying to remove its region, target and itself; then it
 * is turned off, after which the removal must succeed.
 */
static int race_rmdir_off(const char *contexts, unsigned long rounds, long pid)
{
	char d[3][1200], name[32];
	unsigned long i;
	int err, tries, status;
	pid_t child;

	for (i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), "rr%lu", i);
		if (build_ctx(d, contexts, name, pid) ||
		    (err = writef(d[2], "state", "on")))
			return race_fail("%s on", name);
		fflush(stdout);
		child = fork();
		if (!child) {
			nr_tallies = 0;	/* the parent prints its own */
			for (tries = 0; tries < 5000 && is_dir(d[2]); tries++) {
				tally("rmdir-region", do_rmdir(d[0]));
				tally("rmdir-target", do_rmdir(d[1]));
				tally("rmdir-context", do_rmdir(d[2]));
			}
			print_tallies();
			_exit(is_dir(d[2]) ? 1 : 0);
		}
		sleep_us(rnd_below(20000));
		err = writef(d[2], "state", "off");
		tally("off", err);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		if (is_dir(d[2]))
			return race_fail("%s still there after off", name);
	}
	return 0;
}

/*
 * dirs CTX ROUNDS PID: CTX has t0 (on a live process) and valid
 * attributes.  A child makes and removes a target t1 (on PID), another
 * makes and removes regions of t0, while this process writes on, commit
 * and off.
 */
static int race_dirs(const char *ctx, unsigned long rounds, long pid)
{
	static const char *const words[] = { "on", "commit", "off" };
	char t1[1200], r[1300];
	unsigned long i;
	pid_t kids[2];
	int k, err;

	snprintf(t1, sizeof(t1), "%s/targets/t1", ctx);
	for (k = 0; k < 2; k++) {
		fflush(stdout);
		kids[k] = fork();
		if (kids[k])
			continue;
		nr_tallies = 0;
		for (i = 0; i < rounds; i++) {
			if (!k) {
				tally("mkdir-target", do_mkdir(t1));
				tally("write-pid", writef(t1, "pid", "%ld", pid));
				tally("rmdir-target", do_rmdir(t1));
				continue;
			}
			snprintf(r, sizeof(r), "%s/targets/t0/regions/r%lu",
				 ctx, i % 3);
			tally("mkdir-region", do_mkdir(r));
			tally("write-region", writef(r, "start", "%lu",
						     4096 * (i + 1)));
			tally("write-region", writef(r, "end", "%lu",
						     4096 * (i + 2)));
			tally("rmdir-region", do_rmdir(r));
		}
		print_tallies();
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		const char *w = words[rnd_below(3)];

		alarm_ms(60000);
		err = writef(ctx, "state", w);
		alarm_ms(0);
		tally(w, err);
		if (err == EINTR)
			race_fail("%s did not return in 60 s", w);
	}
	reap(kids[0]);
	reap(kids[1]);
	return 0;
}

/* reads CTX N: N times read the context's read-mostly files. */
static int race_reads(const char *ctx, unsigned long n)
{
	static char buf[MAX_NR_REGIONS * 64 + 1];
	unsigned long i, u;
	char path[1200];
	ssize_t len;
	long p;

	for (i = 0; i < n; i++) {
		len = readf(ctx, "state", buf, 16) ? (ssize_t)strlen(buf) : -1;
		tally("read-state", len < 0 ? errno : 0);
		if (len >= 0 && strcmp(buf, "on\n") && strcmp(buf, "off\n"))
			race_fail("state reads %s", quote(buf, len));
		if (readf(ctx, "kdamond_pid", buf, 32) &&
		    !parse_line_pid(buf, &p))
			race_fail("kdamond_pid reads %s", quote(buf, strlen(buf)));
		if (readf(ctx, "nr_aggregations", buf, 32) &&
		    !parse_line_ulong(buf, &u))
			race_fail("nr_aggregations reads %s",
				  quote(buf, strlen(buf)));
		snprintf(path, sizeof(path), "%s/targets/t%lu/snapshot", ctx,
			 i % 2);
		len = read_file(path, buf, sizeof(buf));
		tally("read-snapshot", len < 0 ? -len : 0);
	}
	return 0;
}

static int cmd_race(int argc, char **argv)
{
	const char *mode, *dir;
	unsigned long rounds;
	long pid = argc > 5 ? strtol(argv[5], NULL, 10) : 0;

	if (argc < 5 || strlen(argv[3]) >= 512)
		return 2;
	mode = argv[2];
	dir = argv[3];
	rounds = strtoul(argv[4], NULL, 10);
	rng_state = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL + 1;
	if (!strcmp(mode, "exit-on"))
		race_exit_on(dir, rounds);
	else if (!strcmp(mode, "exit-commit"))
		race_exit_commit(dir, rounds);
	else if (!strcmp(mode, "exit-only"))
		race_exit_only(dir, rounds);
	else if (!strcmp(mode, "gone"))
		race_gone(dir, rounds);
	else if (!strcmp(mode, "rmdir-off") && argc == 6)
		race_rmdir_off(dir, rounds, pid);
	else if (!strcmp(mode, "dirs") && argc == 6)
		race_dirs(dir, rounds, pid);
	else if (!strcmp(mode, "reads"))
		race_reads(dir, rounds);
	else if (!strcmp(mode, "exit-action") &&
		 (argc == 7 || (argc == 8 && !strcmp(argv[7], "willneed"))))
		race_exit_action(dir, rounds, strtoul(argv[5], NULL, 10),
				 strtol(argv[6], NULL, 10), argc == 8);
	else
		return 2;
	print_tallies();
	return nr_fails ? 1 : 0;
}

/* ------------------------------------------------------------ dump */

/*
 * Print "RELPATH<TAB>LEN<TAB>TEXT" for every file under @dir but
 * snapshots (LEN -1 and the errno's name if it cannot be read): TEXT is
 * the file's bytes with those outside '!'..'~' and space, and the
 * backslash, written as \xNN (so a NUL is always "\x00").
 */
static int dump_dir(const char *dir, size_t skip)
{
	static char buf[65536];
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	ssize_t n, i;
	DIR *d = opendir(dir);
	int bad = 0;

	if (!d) {
		printf("%s\t-1\t%s\n", dir + skip, ename(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st))
			continue;	/* removed meanwhile */
		if (S_ISDIR(st.st_mode)) {
			bad |= dump_dir(path, skip);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !strcmp(de->d_name, "snapshot"))
			continue;
		n = read_file(path, buf, sizeof(buf));
		if (n < 0) {
			printf("%s\t-1\t%s\n", path + skip, ename(-n));
			bad = 1;
			continue;
		}
		printf("%s\t%zd\t", path + skip, n);
		for (i = 0; i < n; i++) {
			unsigned char c = buf[i];

			if (c >= ' ' && c <= '~' && c != '\\')
				putchar(c);
			else
				printf("\\x%02x", c);
		}
		putchar('\n');
	}
	closedir(d);
	return bad;
}

static int cmd_dump(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	return dump_dir(argv[2], strlen(argv[2]) + 1);
}

/* ------------------------------------------------------------ respawn */

static int cmd_respawn(int argc, char **argv)
{
	unsigned long tries, i;
	pid_t want, child;
	int status;

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
			while (waitpid(child, &status, 0) < 0)
				if (errno != EINTR)
					return 3;
			if (WIFSIGNALED(status))
				return 128 + WTERMSIG(status);
			return WEXITSTATUS(status);
		}
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	fprintf(stderr, "cfsfuzz: pid %d did not come back in %lu forks\n",
		(int)want, tries);
	return 3;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int r = 2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		r = cmd_fuzz(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "cycles"))
		r = cmd_cycles(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "names"))
		r = cmd_names(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "respawn"))
		r = cmd_respawn(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "race"))
		r = cmd_race(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "dump"))
		r = cmd_dump(argc, argv);
	if (r == 2)
		fprintf(stderr,
			"usage: cfsfuzz fuzz CTXDIR SEED SECONDS PID1 PID2\n"
			"       cfsfuzz cycles CONTEXTS N PID ON_EVERY\n"
			"       cfsfuzz names CONTEXTS SEED N PID\n"
			"       cfsfuzz respawn PID TRIES PROG [ARG...]\n"
			"       cfsfuzz race MODE DIR ROUNDS [PID | MIB PID]\n"
			"       cfsfuzz dump DIR\n");
	return r;
}
