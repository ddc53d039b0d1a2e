// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: the values it writes.  Valid, boundary, huge, negative,
 * 4 KiB long numbers, embedded NULs, non-UTF-8 bytes, partial numbers,
 * white space variants, words with junk, near-miss words, long names and
 * empty writes, for any attribute; near misses of their own for words,
 * booleans and names.
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include "fuzz.h"

/* A random entry of array @a. */
#define PICK(a)	((a)[rnd_below(ARRAY_SIZE(a))])

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

static void val_prepend(struct val *v, const char *s, size_t len)
{
	memmove(v->buf + len, v->buf, v->len);
	memcpy(v->buf, s, len);
	v->len += len;
}

/* A newline at the end, @percent times in a hundred. */
static void maybe_newline(struct val *v, unsigned int percent)
{
	if (chance(percent))
		val_append(v, "\n", 1);
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
	"lru_prio ", "lru-prio", "LRU_PRIO", "lru_deprio\n\n", "migrate",
	"migrate_cold\t", "migrate-hot", "Young", "young ", "memcg\n\n",
	"MEMCG", "memcgs",
	/* near the words of quota goals */
	"user-input", "USER_INPUT", "user_input ", "userinput", "input",
	"node_mem_free", "node_mem_free_bp\n\n", "node_mem_free_bps",
	"Node_mem_used_bp", "memcg_used_bp", "node_memcg_bp", "psi",
	"some_mem_psi", "some_mem_psi_ms", "full_mem_psi_us", "active_mem",
	"active_bp", "inactive_mem_bp\t", "bp",
	/* near signed numbers and paths */
	"--1", "- 1", "-1-", "-1\n\n", " -1", "\xe2\x88\x92\x31", "-01",
	"-2", "/", "/\n", "//\n", "/sys/fs/cgroup", " /",
};

const char *const ctx_words[6] = {
	"on", "off", "commit", "vaddr", "fvaddr", "paddr",
};

const char *const bool_words[] = {
	"y", "Y", "n", "N", "1", "0", "on", "off",
	/* what kstrtobool() alone would take too, and near misses */
	"yes", "no", "Yes", "NO", "true", "false", "of", "o", "On", "OFF",
	"oN", "2", "-1", "+1", "00", "01", "y ", " y", "Yn", "nY", "onx",
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
static const char *gen_value(struct val *v)
{
	static const char *const ws[] = {
		" ", "\t", "\n", "\r", "\v", "\f", "  ", "\n\n", " \n",
	};
	const char *s;
	size_t i, n;

	switch (rnd_below(20)) {
	case 0: case 1: case 2:
		gen_decimal(v);
		maybe_newline(v, 30);
		if (chance(10))
			val_prepend(v, "+", 1);
		return "decimal";
	case 3:
		/* page-aligned addresses, for regions */
		val_printf(v, "%lu", (unsigned long)(rnd_below(1UL << 35) * page));
		maybe_newline(v, 50);
		return "address";
	case 4: case 5:
		val_set(v, PICK(boundary_numbers));
		maybe_newline(v, 40);
		return "boundary";
	case 6: case 7: case 8:
		val_set(v, PICK(junk));
		maybe_newline(v, 20);
		return "junk";
	case 9: case 10:
		val_set(v, PICK(ctx_words));
		maybe_newline(v, 40);
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
			val_prepend(v, "\0", 1);
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
		s = PICK(junk);
		val_append(v, s, strlen(s));
		return "number+junk";
	case 16:
		/* white space around a number or word */
		if (chance(50))
			gen_decimal(v);
		else
			val_set(v, PICK(ctx_words));
		s = PICK(ws);
		if (chance(50))
			val_prepend(v, s, strlen(s));
		else
			val_append(v, s, strlen(s));
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

/* @n random bytes: mostly letters, some of "/\n%. \t", some not ASCII. */
static void random_name_bytes(char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (rnd_below(8)) {
		case 0:
			buf[i] = (char)(0x80 + rnd_below(128));
			break;
		case 1:
			buf[i] = "/\n%. \t"[rnd_below(6)];
			break;
		default:
			buf[i] = (char)('a' + rnd_below(26));
			break;
		}
	}
}

/* A random name for a filter's target: short, long, around NAME_MAX. */
static void gen_name(struct val *v)
{
	static const size_t lens[] = { 0, 1, 2, 3, 8, 254, 255, 256, 257, 300 };
	static const char *const known[] = { "t0", "t1", "tx", "t2", "T0" };

	if (chance(40)) {
		val_set(v, PICK(known));
	} else {
		v->len = PICK(lens);
		random_name_bytes(v->buf, v->len);
	}
	maybe_newline(v, 50);
}

/*
 * A random memcg_path: known good and bad ones, or random bytes after a
 * '/' (mostly), short or around what one write holds.
 */
static void gen_path(struct val *v)
{
	static const size_t lens[] = {
		1, 2, 8, 255, 256, 4093, 4094, 4095, 4096, 5000,
	};
	static const char *const known[] = {
		"/", "", "/a", "/system.slice", "/workload.slice/app.service",
		"/nonexistent", "//", "/.", "/..", "/a/", "/a//b", "a", "a/b",
		"./a", " /a", "\t/", "\\a", "~/a", "/a\n/b", "/\xff\xfe",
	};

	if (chance(40)) {
		val_set(v, PICK(known));
	} else {
		v->len = PICK(lens);
		random_name_bytes(v->buf, v->len);
		if (chance(80))
			v->buf[0] = '/';
	}
	maybe_newline(v, 50);
}

/*
 * A random signed number for @a (a K_INT): around both ends of its range
 * and of int's and long's, or anywhere near the range; now and then with
 * a '+', leading zeros or a newline.
 */
static void gen_int(struct val *v, const struct attr *a)
{
	static const char *const far[] = {
		"-2147483648", "-2147483649", "2147483647", "2147483648",
		"-9223372036854775808", "-9223372036854775809",
		"9223372036854775807", "-18446744073709551615",
		"-18446744073709551616", "-4294967296", "-4294967295",
	};
	static const char *const fmts[] = { "%ld", "%ld", "%+ld", "%05ld" };
	long min = (long)a->min, max = (long)a->max, x;

	if (chance(20)) {
		val_set(v, PICK(far));
	} else {
		switch (rnd_below(3)) {
		case 0:
			x = min - 2 + (long)rnd_below(4);
			break;
		case 1:
			x = max - 1 + (long)rnd_below(3);
			break;
		default:
			x = min - 3 + (long)rnd_below(max - min + 7);
			break;
		}
		val_printf(v, PICK(fmts), x);
	}
	maybe_newline(v, 40);
}

/* One of @a's own words with a near miss now and then. */
static void gen_own_word(struct val *v, const struct attr *a)
{
	size_t n;

	val_set(v, a->words[rnd_below(a->nr_words)]);
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
		maybe_newline(v, 50);
		break;
	}
}

/*
 * A value for attribute @a: mostly any kind (gen_value()), but words,
 * booleans, names, paths and signed numbers also get near-valid values
 * of their own.  Returns the kind of value, for messages.
 */
const char *gen_value_for(struct val *v, const struct attr *a)
{
	if (a->kind == K_WORD && chance(40)) {
		gen_own_word(v, a);
		return "own-word";
	}
	if (a->kind == K_BOOL && chance(40)) {
		val_set(v, PICK(bool_words));
		maybe_newline(v, 40);
		return "own-bool";
	}
	if (a->kind == K_NAME && chance(50)) {
		gen_name(v);
		return "own-name";
	}
	if (a->kind == K_PATH && chance(50)) {
		gen_path(v);
		return "own-path";
	}
	if (a->kind == K_INT && chance(50)) {
		gen_int(v, a);
		return "own-int";
	}
	return gen_value(v);
}
