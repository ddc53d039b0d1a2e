// SPDX-License-Identifier: GPL-2.0
/*
 * cfsfuzz fuzz: attribute writes.  A value from values.c to any attribute,
 * its result and then what the file reads checked against the oracle.
 */
#define _GNU_SOURCE
#include "fuzz.h"

/*
 * The state word @w (0 on, 1 off, 2 commit) gave @err (@was_on: the
 * context was on before).  Off must succeed, a commit while off must fail
 * with EINVAL; the rest depends on the setup, and may fail only with the
 * errnos that configfs-layout.md lists, and must fail where the model
 * knows the setup is invalid (intervals_refused()).  Returns the errno to
 * expect.
 */
static int predict_state(const struct attr *a, int w, int err, bool was_on,
			 const char *why)
{
	int want;

	nr_state_words++;
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
		want = err;	/* checked here against the list */
		if (err && err != EINVAL && err != ESRCH &&
		    !(w == 2 && (err == EBUSY || err == EINTR)))
			fail("%s: %s gave %s (%s)", a->path, ctx_words[w],
			     ename(err), why);
		/* invalid by the model: any errno above, but not success */
		if (intervals_refused(w, was_on) && (!err || err == EINTR))
			want = EINVAL;
	}
	if (w == 1 && !err && (state_is_on() || kdamond_pid() != -1))
		fail("still on after off (%s)", why);
	note_state(w, err, was_on);
	return want;
}

/* Write a fuzzed value to attribute @i and check the result. */
void fuzz_attr(int i)
{
	struct attr *a = &attrs[i];
	static struct val v;
	const char *kind = gen_value_for(&v, a);
	size_t eff = v.len > WRITE_MAX ? WRITE_MAX : v.len, name_len = 0;
	int err, want = 0, alt = -1;
	unsigned long num = 0;	/* a word's index */
	long long nval = 0;	/* a number */
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
	case K_INT:
		predict_num(&v, a, &want, &alt, &nval);
		break;
	case K_PID:
		predict_num(&v, a, &want, &alt, &nval);
		/* a good number: the process may or may not exist */
		if (!want && err == ESRCH)
			want = ESRCH;
		else if (!want && err == EINVAL)	/* a kernel thread */
			want = EINVAL;
		break;
	case K_OPS:
		want = predict_word(&v, ops_names, 3, ops_registered, &alt,
				    &num);
		break;
	case K_WORD:
		want = predict_word(&v, a->words, a->nr_words, a->word_ok,
				    &alt, &num);
		break;
	case K_BOOL:
		want = predict_word(&v, bool_words, 8, NULL, &alt, &num);
		if (!want)
			num = bool_value[num];
		break;
	case K_NAME:
		predict_name(&v, &want, &alt, &name_len);
		break;
	case K_PATH:
		predict_path(&v, &want, &alt, &name_len);
		break;
	case K_RO:
		/* any errno, but never success */
		want = err ? err : EACCES;
		break;
	case K_STATE:
		/* on/off/commit: what happens depends on the setup */
		want = predict_word(&v, ctx_words, 3, NULL, &alt, &num);
		if (!want)
			want = predict_state(a, num, err, was_on, why);
		break;
	}
	if (err != want && err != alt) {
		fail("%s: expected %s%s%s, got %s (%s)", a->path, ename(want),
		     alt >= 0 ? " or " : "", alt >= 0 ? ename(alt) : "",
		     ename(err), why);
		/*
		 * resynchronise the model with what the kernel did (not
		 * from a file that may read a live value instead)
		 */
		if (!err && a->kind != K_STATE && !a->unsettled)
			attr_load(a);
		return;
	}
	if (!err && (a->kind == K_NAME || a->kind == K_PATH)) {
		memcpy(a->sval, v.buf, name_len);
		a->slen = name_len;
	} else if (!err && (a->kind == K_NUM || a->kind == K_INT ||
			    a->kind == K_PID)) {
		a->model = nval;
	} else if (!err && a->kind != K_STATE && a->kind != K_RO) {
		a->model = (long long)num;
	}
	check_readback(a, why);
}
