// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: the oracle.  What a write of a value to an attribute must
 * do by configfs-layout.md (the errno, or the value stored), and whether
 * what an attribute reads matches the model.
 */
#define _GNU_SOURCE
#include "fuzz.h"

/* what the first eight bool_words[] mean */
const bool bool_value[8] = { 1, 1, 0, 0, 1, 0, 1, 0 };

/*
 * The decimal digits at @s, up to @end: their value in *@x (with
 * *@overflow if it is beyond 2^64-1) and whether there were any; where
 * they end, past one newline.
 */
static const char *parse_digits(const char *s, const char *end,
				unsigned long *x, bool *digits, bool *overflow)
{
	*x = 0;
	*digits = *overflow = false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		*digits = true;
		if (*x > (ULONG_MAX - (*s - '0')) / 10)
			*overflow = true;
		*x = *x * 10 + (*s - '0');
	}
	if (s < end && *s == '\n')
		s++;
	return s;
}

/*
 * Whether @v (the first WRITE_MAX bytes of it) can be a value at all:
 * not empty, no NUL in it.  If not, *@want is the errno a write of it
 * must give, *@alt another one the contract allows (-1: none).  If so,
 * *@len is its length.
 */
static bool plain_value(const struct val *v, int *want, int *alt,
			 size_t *len)
{
	*len = v->len > WRITE_MAX ? WRITE_MAX : v->len;
	*alt = -1;
	if (!*len) {
		/* configfs gives EFAULT for an empty write: never stored */
		*want = EINVAL;
		*alt = EFAULT;
		return false;
	}
	if (memchr(v->buf, '\0', *len)) {
		*want = EINVAL;
		return false;
	}
	return true;
}

/*
 * What number attribute @a does with @v (the first WRITE_MAX bytes of it):
 * *@want is the errno it must give (0: accepted, value in *@num), and
 * *@alt another errno the contract allows (-1: none).  One '+' may come
 * first; for a signed one (K_INT: a scheme's target_nid) a '-' too, and
 * a number out of [(long)min, (long)max] on either side is ERANGE; for
 * an unsigned one (K_NUM, K_PID), below min is EINVAL, above max ERANGE.
 */
void predict_num(const struct val *v, const struct attr *a, int *want,
		 int *alt, long long *num)
{
	const char *s = v->buf, *end;
	bool overflow, digits, neg = false, sign = a->kind == K_INT;
	unsigned long x;
	size_t len;

	if (!plain_value(v, want, alt, &len))
		return;
	end = s + len;
	if (*s == '+' || (sign && *s == '-'))
		neg = *s++ == '-';
	s = parse_digits(s, end, &x, &digits, &overflow);
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
	if (!sign) {
		if (x < a->min || x > a->max) {
			*want = x < a->min ? EINVAL : ERANGE;
			return;
		}
		*want = 0;
		*num = (long long)x;
		return;
	}
	/* up to LONG_MAX + 1 fits when negated (0 - x: no signed overflow) */
	if (neg ? x > (unsigned long)LONG_MAX + 1 ||
		  (long)(0UL - x) < (long)a->min :
		  x > (unsigned long)(long)a->max) {
		*want = ERANGE;
		return;
	}
	*want = 0;
	*num = neg ? (long)(0UL - x) : (long)x;
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

/*
 * What a word attribute does with @v: the errno it must give, 0 if @v is
 * one of the @nr @names that @ok allows (NULL: all), its index then in
 * *@num.  *@alt gets another errno the contract allows, if any.
 */
int predict_word(const struct val *v, const char *const *names, int nr,
		 const bool *ok, int *alt, unsigned long *num)
{
	int w = match_word(v, names, nr);

	if (w >= 0 && (!ok || ok[w])) {
		*num = w;
		return 0;
	}
	if (!v->len)
		*alt = EFAULT;
	return EINVAL;
}

/*
 * Whether @v is a string such a file stores: if so, *@len is its length
 * without one trailing newline (within the first WRITE_MAX bytes); if
 * not, *@want and *@alt are the errnos as plain_value() gives them.
 */
static bool string_value(const struct val *v, int *want, int *alt,
			 size_t *len)
{
	if (!plain_value(v, want, alt, len))
		return false;
	if (v->buf[*len - 1] == '\n')
		(*len)--;
	return true;
}

/*
 * What a filter's target does with @v: *@want the errno it must give (0:
 * stored, and the name is the first *@len bytes), *@alt another one the
 * contract allows.  Names are at most NAME_MAX bytes (one trailing newline
 * is not part of them); one with a '/' can never name a target directory,
 * so refusing it (EINVAL) is as good as storing it.
 */
void predict_name(const struct val *v, int *want, int *alt, size_t *len)
{
	if (!string_value(v, want, alt, len))
		return;
	if (*len > NAME_MAX) {
		*want = EINVAL;
		*alt = ENAMETOOLONG;
		return;
	}
	*want = 0;
	if (memchr(v->buf, '/', *len))
		*alt = EINVAL;
}

/*
 * What a filter's memcg_path does with @v, as predict_name(): empty (a
 * lone newline) or starting with '/', up to what one write holds, it is
 * stored; longer than 4094 bytes ENAMETOOLONG, anything else EINVAL.
 */
void predict_path(const struct val *v, int *want, int *alt, size_t *len)
{
	if (!string_value(v, want, alt, len))
		return;
	/* at most PATH_MAX - 2 bytes, to read back whole with a newline */
	if (*len > 4094)
		*want = ENAMETOOLONG;
	else
		*want = *len && v->buf[0] != '/' ? EINVAL : 0;
}

/* Which of @nr @words @buf (@n bytes) is, with a newline; or -1. */
static int read_word(const char *buf, ssize_t n, const char *const *words,
		     int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (n >= 1 && buf[n - 1] == '\n' &&
		    strlen(words[i]) == (size_t)n - 1 &&
		    !strncmp(buf, words[i], n - 1))
			return i;
	return -1;
}

/* "-N\n" or "N\n", a decimal number that fits a long. */
static bool parse_line_long(const char *s, long *v)
{
	unsigned long u;

	if (s[0] != '-') {
		if (!parse_line_ulong(s, &u) || u > LONG_MAX)
			return false;
		*v = (long)u;
		return true;
	}
	if (!parse_line_ulong(s + 1, &u) || !u ||
	    u > (unsigned long)LONG_MAX + 1)
		return false;
	*v = -(long)u;
	return true;
}

/* What a file reads: a value of a page at most, a newline, a NUL. */
static char rbuf[WRITE_MAX + 64];

/* Check what @a reads against the model; @why is for messages. */
bool check_readback(struct attr *a, const char *why)
{
	char *buf = rbuf;
	ssize_t n = read_file(a->path, buf, sizeof(rbuf));
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
		/* the kernel's measurement may have replaced what we wrote */
		if (a->unsettled)
			return true;
		if ((long long)u != a->model) {
			fail("%s reads %lu, expected %llu (%s)", a->path, u,
			     a->model, why);
			return false;
		}
		return true;
	case K_INT:
		if (!parse_line_long(buf, &p) || p < (long)a->min ||
		    p > (long)a->max) {
			fail("%s reads %s: not a number in [%ld, %ld] (%s)",
			     a->path, quote(buf, n), (long)a->min,
			     (long)a->max, why);
			return false;
		}
		if (p != a->model) {
			fail("%s reads %ld, expected %lld (%s)", a->path, p,
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
	case K_WORD:
		w = a->kind == K_OPS ? ops_names[a->model] :
		    a->words[a->model];
		if (read_word(buf, n, &w, 1)) {
			fail("%s reads %s, expected \"%s\\n\" (%s)", a->path,
			     quote(buf, n), w, why);
			return false;
		}
		return true;
	case K_STATE:
		if (strcmp(buf, "on\n") && strcmp(buf, "off\n")) {
			fail("%s reads %s (%s)", a->path, quote(buf, n), why);
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
	case K_PATH:
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

/* Load the model of @a from what it reads now; 0, or -1 after a fail(). */
int attr_load(struct attr *a)
{
	char *buf = rbuf;
	ssize_t n = read_file(a->path, buf, sizeof(rbuf));
	unsigned long u;
	size_t max;
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
	case K_INT:
		if (!parse_line_long(buf, &p))
			goto bad;
		a->model = p;
		return 0;
	case K_PID:
		if (!parse_line_pid(buf, &p))
			goto bad;
		a->model = p;
		return 0;
	case K_OPS:
	case K_WORD:
		i = a->kind == K_OPS ? read_word(buf, n, ops_names, 3) :
		    read_word(buf, n, a->words, a->nr_words);
		if (i < 0)
			goto bad;
		a->model = i;
		return 0;
	case K_BOOL:
		if (strcmp(buf, "Y\n") && strcmp(buf, "N\n"))
			goto bad;
		a->model = buf[0] == 'Y';
		return 0;
	case K_NAME:
	case K_PATH:
		max = a->kind == K_NAME ? NAME_MAX : WRITE_MAX;
		if (n < 1 || (size_t)n > max + 1 || buf[n - 1] != '\n' ||
		    memchr(buf, '\0', n) ||
		    (a->kind == K_PATH && n > 1 && buf[0] != '/'))
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
