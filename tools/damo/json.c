// SPDX-License-Identifier: GPL-2.0
/*
 * A small pull parser of JSON (RFC 8259), enough to read record files
 * without building a tree: the caller walks objects and arrays member by
 * member, takes the values it wants and skips the others.  Errors name the
 * byte offset.  And the two pieces every JSON writer of damo needs: a
 * string, escaped, and a member's key.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "damo.h"

/* Objects and arrays nest at most this deep (skipped ones included). */
#define JP_MAX_DEPTH		256

void jp_init(struct jp *j, const char *text, size_t len, char *err,
	     size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->base = j->p = text;
	j->end = text + len;
	j->err = err;
	j->errlen = errlen;
}

int jp_fail(struct jp *j, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (j->failed)
		return -1;	/* the first error is the one to tell */
	j->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(j->err, j->errlen, "JSON offset %zu: %s",
		 (size_t)(j->p - j->base), msg);
	return -1;
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* The next token's first character, or 0 at the end. */
static char peek_char(struct jp *j)
{
	skip_ws(j);
	return j->p < j->end ? *j->p : 0;
}

enum jp_kind jp_peek(struct jp *j)
{
	switch (peek_char(j)) {
	case '{': return JP_OBJECT;
	case '[': return JP_ARRAY;
	case '"': return JP_STRING;
	case 't': case 'f': return JP_BOOL;
	case 'n': return JP_NULL;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return JP_NUMBER;
	case 0: return JP_END;
	default: return JP_BAD;
	}
}

const char *jp_kind_name(enum jp_kind k)
{
	static const char *const names[] = {
		[JP_OBJECT] = "an object", [JP_ARRAY] = "an array",
		[JP_STRING] = "a string", [JP_NUMBER] = "a number",
		[JP_BOOL] = "true or false", [JP_NULL] = "null",
		[JP_END] = "the end of the data", [JP_BAD] = "not JSON",
	};

	return names[k];
}

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return jp_fail(j, "expected '%s'", w);
	j->p += n;
	return 0;
}

int jp_null(struct jp *j)
{
	if (jp_peek(j) != JP_NULL)
		return 0;
	return word(j, "null") ? -1 : 1;
}

/*
 * Append the UTF-8 encoding of code point c to buf, if it fits (with the
 * NUL); else set *over.  buf NULL: only count.
 */
static void put_utf8(char *buf, size_t len, size_t *n, bool *over,
		     unsigned long c)
{
	unsigned char u[4];
	size_t k, m;

	if (c < 0x80) {
		u[0] = c;
		m = 1;
	} else if (c < 0x800) {
		u[0] = 0xc0 | (c >> 6);
		u[1] = 0x80 | (c & 0x3f);
		m = 2;
	} else if (c < 0x10000) {
		u[0] = 0xe0 | (c >> 12);
		u[1] = 0x80 | ((c >> 6) & 0x3f);
		u[2] = 0x80 | (c & 0x3f);
		m = 3;
	} else {
		u[0] = 0xf0 | (c >> 18);
		u[1] = 0x80 | ((c >> 12) & 0x3f);
		u[2] = 0x80 | ((c >> 6) & 0x3f);
		u[3] = 0x80 | (c & 0x3f);
		m = 4;
	}
	if (buf && *n + m < len)
		for (k = 0; k < m; k++)
			buf[*n + k] = u[k];
	else if (buf)
		*over = true;
	*n += m;
}

/* Four hex digits after "\u". */
static int hex4(struct jp *j, unsigned long *c)
{
	int k, d;

	*c = 0;
	if (j->end - j->p < 4)
		return jp_fail(j, "incomplete \\u escape");
	for (k = 0; k < 4; k++) {
		d = j->p[k];
		if (d >= '0' && d <= '9')
			d -= '0';
		else if (d >= 'a' && d <= 'f')
			d -= 'a' - 10;
		else if (d >= 'A' && d <= 'F')
			d -= 'A' - 10;
		else
			return jp_fail(j, "bad \\u escape");
		*c = *c * 16 + d;
	}
	j->p += 4;
	return 0;
}

/* The escape after a backslash, as a code point. */
static int escape(struct jp *j, unsigned long *c)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned long lo;

	if (j->p >= j->end)
		return jp_fail(j, "unterminated string");
	e = strchr(from, *j->p);
	if (e && *j->p) {
		j->p++;
		*c = (unsigned char)to[e - from];
		return 0;
	}
	if (*j->p != 'u')
		return jp_fail(j, "bad escape '\\%c'", *j->p);
	j->p++;
	if (hex4(j, c))
		return -1;
	if (*c < 0xd800 || *c > 0xdfff)
		return 0;
	/* a surrogate pair: high, then "\u" and low */
	if (*c > 0xdbff || j->end - j->p < 2 || j->p[0] != '\\' ||
	    j->p[1] != 'u')
		return jp_fail(j, "unpaired surrogate in \\u escape");
	j->p += 2;
	if (hex4(j, &lo))
		return -1;
	if (lo < 0xdc00 || lo > 0xdfff)
		return jp_fail(j, "unpaired surrogate in \\u escape");
	*c = 0x10000 + ((*c - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* A string into buf (decoded, NUL-terminated) or, if it does not fit,
 * *over set; buf NULL: only checked. */
static int read_string(struct jp *j, char *buf, size_t len, bool *over)
{
	unsigned long c;
	size_t n = 0;

	*over = false;
	if (jp_peek(j) != JP_STRING)
		return jp_fail(j, "expected a string, found %s",
			       jp_kind_name(jp_peek(j)));
	j->p++;
	for (;;) {
		if (j->p >= j->end)
			return jp_fail(j, "unterminated string");
		c = (unsigned char)*j->p;
		if (c == '"')
			break;
		if (c < 0x20)
			return jp_fail(j, "control character in a string");
		j->p++;
		if (c == '\\' && escape(j, &c))
			return -1;
		put_utf8(buf, len, &n, over, c);
	}
	j->p++;
	if (buf && !*over)
		buf[n] = '\0';
	return 0;
}

int jp_string(struct jp *j, char *buf, size_t len)
{
	const char *s = j->p;
	bool over;

	if (read_string(j, buf, len, &over))
		return -1;
	if (over) {
		j->p = s;
		return jp_fail(j, "string longer than %zu bytes", len - 1);
	}
	return 0;
}

static bool is_digit(const struct jp *j)
{
	return j->p < j->end && *j->p >= '0' && *j->p <= '9';
}

int jp_number(struct jp *j, char *buf, size_t len)
{
	const char *s;

	if (jp_peek(j) != JP_NUMBER)
		return jp_fail(j, "expected a number, found %s",
			       jp_kind_name(jp_peek(j)));
	s = j->p;
	if (*j->p == '-')
		j->p++;
	if (!is_digit(j))
		return jp_fail(j, "bad number");
	if (*j->p == '0')
		j->p++;
	while (is_digit(j))
		j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!is_digit(j))
			return jp_fail(j, "bad number");
		while (is_digit(j))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!is_digit(j))
			return jp_fail(j, "bad number");
		while (is_digit(j))
			j->p++;
	}
	if (!buf)
		return 0;
	if ((size_t)(j->p - s) >= len) {
		j->p = s;
		return jp_fail(j, "number longer than %zu characters",
			       len - 1);
	}
	memcpy(buf, s, j->p - s);
	buf[j->p - s] = '\0';
	return 0;
}

int jp_begin(struct jp *j, enum jp_kind kind)
{
	if (jp_peek(j) != kind)
		return jp_fail(j, "expected %s, found %s", jp_kind_name(kind),
			       jp_kind_name(jp_peek(j)));
	if (j->depth >= JP_MAX_DEPTH)
		return jp_fail(j, "nested deeper than %d", JP_MAX_DEPTH);
	j->p++;
	j->depth++;
	j->first = true;
	return 0;
}

/* The separator before a member or element, or the closing bracket. */
static int next(struct jp *j, char close)
{
	char c = peek_char(j);

	if (c == close) {
		j->p++;
		j->depth--;
		j->first = false;
		return 0;
	}
	if (!j->first) {
		if (c != ',')
			return jp_fail(j, "expected ',' or '%c'", close);
		j->p++;
	}
	j->first = false;
	return 1;
}

int jp_next_item(struct jp *j)
{
	return next(j, ']');
}

int jp_next_key(struct jp *j, char *key, size_t len)
{
	bool over;
	int r = next(j, '}');

	if (r <= 0)
		return r;
	if (jp_peek(j) != JP_STRING)
		return jp_fail(j, "expected a member name");
	if (read_string(j, key, len, &over))
		return -1;
	if (over)
		key[0] = '\0';		/* too long for any name we know */
	if (peek_char(j) != ':')
		return jp_fail(j, "expected ':'");
	j->p++;
	return 1;
}

int jp_skip(struct jp *j)
{
	enum jp_kind k = jp_peek(j);
	char key[1];
	int r;

	switch (k) {
	case JP_OBJECT:
	case JP_ARRAY:
		if (jp_begin(j, k))
			return -1;
		while ((r = k == JP_OBJECT ? jp_next_key(j, key, sizeof(key)) :
			    jp_next_item(j)) > 0)
			if (jp_skip(j))
				return -1;
		return r;
	case JP_STRING:
		return jp_string(j, NULL, 0);
	case JP_NUMBER:
		return jp_number(j, NULL, 0);
	case JP_BOOL:
		return word(j, *j->p == 't' ? "true" : "false");
	case JP_NULL:
		return word(j, "null");
	default:
		return jp_fail(j, "expected a value, found %s",
			       jp_kind_name(k));
	}
}

int jp_finish(struct jp *j)
{
	if (jp_peek(j) != JP_END)
		return jp_fail(j, "data after the end of the JSON value");
	return 0;
}

/* ------------------------------------------------------------ writing */

/* Controls as \u escapes, '"' and '\' escaped; other bytes as they are. */
void json_put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void json_put_key(FILE *f, const char *key)
{
	json_put_str(f, key);
	fputs(": ", f);
}
