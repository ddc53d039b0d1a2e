// SPDX-License-Identifier: GPL-2.0
/*
 * damonitor/damo's record format: a JSON list with one record per
 * monitoring target, each with its snapshots and their regions, plain or
 * zlib-compressed.  Numbers may be JSON numbers or strings of digits (that
 * tool writes most of them as strings).  Documentation/record-format.md
 * lists the fields this file reads and writes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "damo.h"

/* Member names are at most this long (longer ones are skipped). */
#define KEY_LEN			32
/* A number's text, as a JSON number or a string. */
#define NUM_LEN			64
/* zlib's window bits field for a 32 KiB window, the largest. */
#define ZLIB_MAX_WBITS		7
/* Inflate into this much first, then twice as much each time. */
#define INFLATE_FIRST		(256 * 1024)
/* Deflate output goes out in chunks of this size. */
#define DEFLATE_CHUNK		(64 * 1024)
/* Room for this many regions first, then twice as many each time. */
#define REGIONS_FIRST_ALLOC	64

/* ------------------------------------------------------------ zlib */

bool rec_is_zlib(const unsigned char *buf, size_t len)
{
	/* CMF: deflate (8), window <= 32 KiB; CMF * 256 + FLG divisible
	 * by 31 */
	return len >= 2 && (buf[0] & 0x0f) == Z_DEFLATED &&
		(buf[0] >> 4) <= ZLIB_MAX_WBITS &&
		(buf[0] * 256 + buf[1]) % 31 == 0;
}

int rec_inflate(const unsigned char *buf, size_t len, char **outp,
		size_t *outlen, char *err, size_t errlen)
{
	size_t cap = INFLATE_FIRST;
	char *out = xmalloc(cap);
	z_stream z;
	int r;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		snprintf(err, errlen, "zlib: %s", z.msg ? z.msg : "no memory");
		free(out);
		return -EINVAL;
	}
	z.next_in = (unsigned char *)buf;
	do {
		/* zlib counts in uInt: feed at most that much at once */
		if (!z.avail_in && (size_t)(z.next_in - buf) < len) {
			size_t left = len - (z.next_in - buf);

			z.avail_in = left > UINT32_MAX ? UINT32_MAX : left;
		}
		if (z.total_out + 1 >= cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		z.next_out = (unsigned char *)out + z.total_out;
		z.avail_out = cap - 1 - z.total_out > UINT32_MAX ? UINT32_MAX :
			cap - 1 - z.total_out;
		r = inflate(&z, Z_NO_FLUSH);
	} while (r == Z_OK);
	if (r != Z_STREAM_END) {
		snprintf(err, errlen, "zlib-compressed data: %s",
			 r == Z_BUF_ERROR ? "truncated" :
			 z.msg ? z.msg : "corrupt");
		inflateEnd(&z);
		free(out);
		return -EINVAL;
	}
	*outlen = z.total_out;
	out[*outlen] = '\0';
	*outp = out;
	inflateEnd(&z);
	return 0;
}

/* ------------------------------------------------------------ reading */

/* One target's snapshot, until they are put in time order. */
struct entry {
	int64_t start, end;
	uint64_t pid;
	size_t order;		/* in the file */
	uint32_t nr_regions;
	struct rec_region *regions;
};

/* A region given a percent of samples: made samples at the record's end,
 * when its intervals are known. */
struct pending {
	size_t entry;
	uint32_t region;
	double percent;
};

struct reader {
	struct jp j;
	struct entry *e;
	size_t nr, cap;
	/* the current record's intervals */
	bool has_iv;
	uint64_t sample_us, aggr_us;
	struct pending *pend;
	size_t nr_pend;
};

/* A number, or a string of one; its text into buf. */
static int num_text(struct jp *j, const char *what, char *buf)
{
	enum jp_kind k = jp_peek(j);

	if (k == JP_STRING)
		return jp_string(j, buf, NUM_LEN);
	if (k == JP_NUMBER)
		return jp_number(j, buf, NUM_LEN);
	return jp_fail(j, "%s: expected a number, found %s", what,
		       jp_kind_name(k));
}

/* Drop the commas that group digits ("4,096": damonitor/damo writes
 * region addresses so); other commas stay, to fail. */
static void drop_grouping(char *s)
{
	char *d = s, *p;

	for (p = s; *p; p++)
		if (!(*p == ',' && p > s && isdigit((unsigned char)p[-1]) &&
		      isdigit((unsigned char)p[1])))
			*d++ = *p;
	*d = '\0';
}

/* An integer (written as one, or as a float with no fraction). */
static int read_int(struct jp *j, const char *what, bool *neg, uint64_t *v)
{
	char buf[NUM_LEN], orig[NUM_LEN], *s = buf, *end;
	double d;

	if (num_text(j, what, buf))
		return -1;
	memcpy(orig, buf, sizeof(orig));
	drop_grouping(buf);
	*neg = *s == '-';
	if (*neg)
		s++;
	if (!isdigit((unsigned char)*s))
		goto bad;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end == '.' || *end == 'e' || *end == 'E') {
		d = strtod(s, &end);
		/* 2^64: the first double above UINT64_MAX */
		if (*end || d != floor(d) || d >= 18446744073709551616.0)
			goto bad;
		*v = (uint64_t)d;
	} else if (*end || errno) {
		goto bad;
	}
	if (!*v)
		*neg = false;
	return 0;
bad:
	return jp_fail(j, "%s: '%s' is not an integer", what, orig);
}

static int read_u64(struct jp *j, const char *what, uint64_t *v)
{
	bool neg;

	if (read_int(j, what, &neg, v))
		return -1;
	if (neg)
		return jp_fail(j, "%s: negative", what);
	return 0;
}

static int read_i64(struct jp *j, const char *what, int64_t *v)
{
	uint64_t u;
	bool neg;

	if (read_int(j, what, &neg, &u))
		return -1;
	if (u > (uint64_t)INT64_MAX)
		return jp_fail(j, "%s: out of range", what);
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int read_double(struct jp *j, const char *what, double *v)
{
	char buf[NUM_LEN], *end;

	if (num_text(j, what, buf))
		return -1;
	*v = strtod(buf, &end);
	if (!*buf || *end || !isfinite(*v))
		return jp_fail(j, "%s: '%s' is not a number", what, buf);
	return 0;
}

/*
 * nr_accesses: {"samples": N, "percent": P}; samples, or else a percent
 * of the samples an aggregation interval holds: *percent, pending (>= 0).
 */
static int read_nr_accesses(struct reader *r, uint32_t *nr, double *pend)
{
	struct jp *j = &r->j;
	bool has_samples = false, has_percent = false;
	char key[KEY_LEN];
	uint64_t samples = 0;
	double percent = 0;
	int k, n;

	if (jp_begin(j, JP_OBJECT))
		return -1;
	while ((k = jp_next_key(j, key, sizeof(key))) > 0) {
		n = jp_null(j);
		if (n < 0)
			return -1;
		if (n)
			continue;	/* null: not given */
		if (!strcmp(key, "samples")) {
			if (read_u64(j, "nr_accesses.samples", &samples))
				return -1;
			has_samples = true;
		} else if (!strcmp(key, "percent")) {
			if (read_double(j, "nr_accesses.percent", &percent))
				return -1;
			has_percent = true;
		} else if (jp_skip(j)) {
			return -1;
		}
	}
	if (k < 0 || j->failed)
		return -1;
	*pend = -1;
	if (!has_samples && has_percent && percent >= 0) {
		*pend = percent;
		*nr = 0;
		return 0;
	}
	if (!has_samples)
		return jp_fail(j, "nr_accesses: no samples");
	if (samples > UINT32_MAX)
		return jp_fail(j, "nr_accesses: %llu samples is too many",
			       (unsigned long long)samples);
	*nr = samples;
	return 0;
}

static int read_region(struct reader *r, struct rec_region *rg,
		       double *pend)
{
	struct jp *j = &r->j;
	bool has[3] = { false };
	char key[KEY_LEN];
	int k;

	*pend = -1;
	memset(rg, 0, sizeof(*rg));
	if (jp_begin(j, JP_OBJECT))
		return -1;
	while ((k = jp_next_key(j, key, sizeof(key))) > 0) {
		if (!strcmp(key, "start")) {
			if (read_u64(j, "region start", &rg->start))
				return -1;
			has[0] = true;
		} else if (!strcmp(key, "end")) {
			if (read_u64(j, "region end", &rg->end))
				return -1;
			has[1] = true;
		} else if (!strcmp(key, "nr_accesses")) {
			if (read_nr_accesses(r, &rg->nr_accesses, pend))
				return -1;
			has[2] = true;
		} else if (jp_skip(j)) {
			return -1;
		}
	}
	if (k < 0)
		return -1;
	if (!has[0] || !has[1] || !has[2])
		return jp_fail(j, "a region without %s", !has[0] ? "start" :
			       !has[1] ? "end" : "nr_accesses");
	if (rg->end < rg->start)
		return jp_fail(j, "region end %llu below start %llu",
			       (unsigned long long)rg->end,
			       (unsigned long long)rg->start);
	return 0;
}

static int read_regions(struct reader *r, struct entry *e)
{
	struct jp *j = &r->j;
	struct pending *p;
	size_t cap = 0;
	double pend;
	int k;

	if (jp_begin(j, JP_ARRAY))
		return -1;
	while ((k = jp_next_item(j)) > 0) {
		if (e->nr_regions == UINT32_MAX)
			return jp_fail(j, "too many regions");
		if (e->nr_regions == cap) {
			cap = cap ? cap * 2 : REGIONS_FIRST_ALLOC;
			e->regions = xrealloc(e->regions,
					      cap * sizeof(*e->regions));
		}
		if (read_region(r, &e->regions[e->nr_regions], &pend))
			return -1;
		if (pend >= 0) {
			r->pend = xrealloc(r->pend, (r->nr_pend + 1) *
					   sizeof(*r->pend));
			p = &r->pend[r->nr_pend++];
			p->entry = e - r->e;
			p->region = e->nr_regions;
			p->percent = pend;
		}
		e->nr_regions++;
	}
	return k;
}

static struct entry *new_entry(struct reader *r)
{
	if (r->nr == r->cap) {
		r->cap = r->cap ? r->cap * 2 : REGIONS_FIRST_ALLOC;
		r->e = xrealloc(r->e, r->cap * sizeof(*r->e));
	}
	memset(&r->e[r->nr], 0, sizeof(*r->e));
	r->e[r->nr].order = r->nr;
	return &r->e[r->nr++];
}

/* One snapshot of the current record: an entry (pid set later). */
static int read_snapshot(struct reader *r, int64_t prev_end)
{
	struct jp *j = &r->j;
	bool has_start = false, has_end = false;
	char key[KEY_LEN];
	struct entry *e;
	size_t idx;
	int k;

	if (jp_begin(j, JP_OBJECT))
		return -1;
	e = new_entry(r);
	idx = r->nr - 1;
	while ((k = jp_next_key(j, key, sizeof(key))) > 0) {
		e = &r->e[idx];
		if (!strcmp(key, "start_time")) {
			if (jp_null(j))
				continue;
			if (read_i64(j, "start_time", &e->start))
				return -1;
			has_start = true;
		} else if (!strcmp(key, "end_time")) {
			if (read_i64(j, "end_time", &e->end))
				return -1;
			has_end = true;
		} else if (!strcmp(key, "regions")) {
			if (read_regions(r, e))
				return -1;
		} else if (jp_skip(j)) {
			return -1;
		}
	}
	if (k < 0)
		return -1;
	e = &r->e[idx];
	if (!has_end)
		return jp_fail(j, "a snapshot without end_time");
	/* none: since the target's previous snapshot (the first: nothing) */
	if (!has_start)
		e->start = prev_end != INT64_MIN && prev_end < e->end ?
			prev_end : e->end;
	if (e->start > e->end)
		return jp_fail(j, "snapshot start_time %lld after end_time %lld",
			       (long long)e->start, (long long)e->end);
	return 0;
}

/* intervals: sample_us, aggr_us and ops_update_us. */
static int read_intervals(struct reader *r, struct record *rec)
{
	static const char *const names[] = {
		"sample_us", "aggr_us", "ops_update_us",
	};
	struct jp *j = &r->j;
	uint64_t v[ARRAY_SIZE(names)];
	bool has[ARRAY_SIZE(names)] = { false };
	char key[KEY_LEN];
	size_t i;
	int k;

	if (jp_begin(j, JP_OBJECT))
		return -1;
	while ((k = jp_next_key(j, key, sizeof(key))) > 0) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(key, names[i]))
				break;
		if (i == ARRAY_SIZE(names)) {
			if (jp_skip(j))
				return -1;
			continue;
		}
		if (read_u64(j, names[i], &v[i]))
			return -1;
		has[i] = true;
	}
	if (k < 0)
		return -1;
	if (!has[0] || !has[1])
		return 0;	/* incomplete: as if not given */
	r->has_iv = true;
	r->sample_us = v[0];
	r->aggr_us = v[1];
	if (!rec->has_intervals) {
		rec->has_intervals = true;
		rec->sample_us = v[0];
		rec->aggr_us = v[1];
		rec->update_us = has[2] ? v[2] : 0;
	}
	return 0;
}

/* target_id: a number (or a string of one); null is target 0. */
static int read_target_id(struct jp *j, uint64_t *pid)
{
	int n = jp_null(j);

	if (n)
		return n < 0 ? -1 : 0;
	return read_u64(j, "target_id", pid);
}

/* The current record's percents, as samples: that share of the samples
 * an aggregation interval holds. */
static int resolve_pending(struct reader *r)
{
	struct pending *p;
	double samples;
	size_t i;

	if (r->nr_pend && (!r->has_iv || !r->sample_us))
		return jp_fail(&r->j, "nr_accesses: a percent, but no intervals to make it samples");
	for (i = 0; i < r->nr_pend; i++) {
		p = &r->pend[i];
		samples = p->percent * ((double)r->aggr_us / r->sample_us) / 100;
		if (samples > UINT32_MAX)
			return jp_fail(&r->j, "nr_accesses: %g percent is too many",
				       p->percent);
		r->e[p->entry].regions[p->region].nr_accesses = samples;
	}
	r->nr_pend = 0;
	return 0;
}

static int read_record(struct reader *r, struct record *rec)
{
	struct jp *j = &r->j;
	size_t first = r->nr, i;
	char key[KEY_LEN];
	uint64_t pid = 0;
	int k, n;

	r->has_iv = false;
	if (jp_begin(j, JP_OBJECT))
		return -1;
	while ((k = jp_next_key(j, key, sizeof(key))) > 0) {
		if (!strcmp(key, "target_id")) {
			if (read_target_id(j, &pid))
				return -1;
		} else if (!strcmp(key, "intervals")) {
			n = jp_null(j);
			if (n < 0 || (!n && read_intervals(r, rec)))
				return -1;
		} else if (!strcmp(key, "snapshots")) {
			if (jp_begin(j, JP_ARRAY))
				return -1;
			while ((n = jp_next_item(j)) > 0)
				if (read_snapshot(r, r->nr > first ?
						  r->e[r->nr - 1].end : INT64_MIN))
					return -1;
			if (n < 0)
				return -1;
		} else if (jp_skip(j)) {
			return -1;
		}
	}
	if (k < 0)
		return -1;
	for (i = first; i < r->nr; i++)
		r->e[i].pid = pid;
	return resolve_pending(r);
}

/* Time order; the file's order among equal times. */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The entries, as snapshots: the targets' snapshots ending at the same
 * time become one snapshot with several targets. */
static void build(struct reader *r, struct record *rec)
{
	struct rec_snapshot *s = NULL;
	struct rec_task *t;
	size_t i;

	qsort(r->e, r->nr, sizeof(*r->e), entry_cmp);
	rec->snapshots = xcalloc(r->nr ? r->nr : 1, sizeof(*rec->snapshots));
	for (i = 0; i < r->nr; i++) {
		if (!s || s->time_ns != r->e[i].end) {
			s = &rec->snapshots[rec->nr_snapshots++];
			s->time_ns = r->e[i].end;
			s->tasks = xcalloc(1, sizeof(*s->tasks));
		} else {
			s->tasks = xrealloc(s->tasks, (s->nr_tasks + 1) *
					    sizeof(*s->tasks));
		}
		t = &s->tasks[s->nr_tasks++];
		t->pid = r->e[i].pid;
		t->start_ns = r->e[i].start;
		t->nr_regions = r->e[i].nr_regions;
		t->regions = r->e[i].regions;
		r->e[i].regions = NULL;
	}
}

int rec_parse_json(const char *text, size_t len, struct record *rec,
		   char *err, size_t errlen)
{
	struct reader r;
	size_t i;
	int k;

	memset(rec, 0, sizeof(*rec));
	memset(&r, 0, sizeof(r));
	jp_init(&r.j, text, len, err, errlen);
	if (!jp_begin(&r.j, JP_ARRAY)) {
		while ((k = jp_next_item(&r.j)) > 0)
			if (read_record(&r, rec))
				break;
		if (!k)
			jp_finish(&r.j);
	}
	if (!r.j.failed)
		build(&r, rec);
	for (i = 0; i < r.nr; i++)
		free(r.e[i].regions);
	free(r.e);
	free(r.pend);
	if (r.j.failed) {
		rec_free(rec);
		return -EINVAL;
	}
	rec->format = REC_JSON;
	return 0;
}

/* ------------------------------------------------------------ writing */

#define IND1	"    "
#define IND2	IND1 IND1
#define IND3	IND2 IND1
#define IND4	IND2 IND2

static void put_snapshot(FILE *f, const struct rec_task *t, int64_t end,
			 bool first)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < t->nr_regions; i++)
		total += t->regions[i].end - t->regions[i].start;
	fprintf(f, "%s\n" IND3 "{\n"
		IND4 "\"start_time\": \"%lld\",\n"
		IND4 "\"end_time\": \"%lld\",\n"
		IND4 "\"regions\": [", first ? "" : ",",
		(long long)t->start_ns, (long long)end);
	for (i = 0; i < t->nr_regions; i++)
		fprintf(f, "%s\n" IND4 IND1 "{\"start\": \"%llu\", "
			"\"end\": \"%llu\", "
			"\"nr_accesses\": {\"samples\": %u, \"percent\": null}, "
			"\"age\": {\"usec\": \"0\", \"aggr_intervals\": \"0\"}, "
			"\"probe_hits\": [], \"sz_filter_passed\": \"0\"}",
			i ? "," : "",
			(unsigned long long)t->regions[i].start,
			(unsigned long long)t->regions[i].end,
			t->regions[i].nr_accesses);
	fprintf(f, "%s],\n"
		IND4 "\"total_bytes\": \"%llu\",\n"
		IND4 "\"damos_stats\": null,\n"
		IND4 "\"sample_interval_us\": null\n"
		IND3 "}", t->nr_regions ? "\n" IND4 : "",
		(unsigned long long)total);
}

/* One record: pid's snapshots, in the order of the file. */
static void put_record(FILE *f, const struct record *rec, uint64_t pid,
		       bool first)
{
	bool none = true;
	size_t i;
	uint32_t ti;

	fprintf(f, "%s\n" IND1 "{\n"
		IND2 "\"kdamond_idx\": null,\n"
		IND2 "\"context_idx\": null,\n", first ? "" : ",");
	if (rec->has_intervals)
		fprintf(f, IND2 "\"intervals\": {\"sample_us\": \"%llu\", "
			"\"aggr_us\": \"%llu\", \"ops_update_us\": \"%llu\"},\n",
			(unsigned long long)rec->sample_us,
			(unsigned long long)rec->aggr_us,
			(unsigned long long)rec->update_us);
	else
		fputs(IND2 "\"intervals\": null,\n", f);
	fprintf(f, IND2 "\"scheme_idx\": null,\n"
		IND2 "\"target_id\": %llu,\n"
		IND2 "\"scheme_filters\": [],\n"
		IND2 "\"snapshots\": [", (unsigned long long)pid);
	for (i = 0; i < rec->nr_snapshots; i++)
		for (ti = 0; ti < rec->snapshots[i].nr_tasks; ti++) {
			if (rec->snapshots[i].tasks[ti].pid != pid)
				continue;
			put_snapshot(f, &rec->snapshots[i].tasks[ti],
				     rec->snapshots[i].time_ns, none);
			none = false;
		}
	fprintf(f, "%s],\n" IND2 "\"data_source\": \"unknown\"\n" IND1 "}",
		none ? "" : "\n" IND2);
}

/* Deflate len bytes of text to f; 0 or -EIO. */
static int deflate_to(FILE *f, const char *text, size_t len)
{
	unsigned char *out = xmalloc(DEFLATE_CHUNK);
	size_t left = len, n;
	z_stream z;
	int r, flush;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(out);
		errno = ENOMEM;
		return -EIO;
	}
	z.next_in = (unsigned char *)text;
	do {
		if (!z.avail_in && left) {
			z.avail_in = left > UINT32_MAX ? UINT32_MAX : left;
			left -= z.avail_in;
		}
		flush = left ? Z_NO_FLUSH : Z_FINISH;
		z.next_out = out;
		z.avail_out = DEFLATE_CHUNK;
		r = deflate(&z, flush);
		n = DEFLATE_CHUNK - z.avail_out;
		if (n && fwrite(out, 1, n, f) != n)
			break;
	} while (r == Z_OK || (r == Z_BUF_ERROR && z.avail_out));
	deflateEnd(&z);
	free(out);
	return r == Z_STREAM_END && !ferror(f) ? 0 : -EIO;
}

int rec_write_json(FILE *f, const struct record *rec, bool compress)
{
	char *text = NULL;
	size_t len = 0, nr, k;
	uint64_t *pids;
	FILE *m;
	int r;

	m = open_memstream(&text, &len);
	if (!m) {
		damo_err("open_memstream: %s", strerror(errno));
		return -ENOMEM;
	}
	nr = rec_pids(rec, &pids);
	fputc('[', m);
	for (k = 0; k < nr; k++)
		put_record(m, rec, pids[k], !k);
	fputs(nr ? "\n]\n" : "]\n", m);
	free(pids);
	if (fclose(m)) {
		free(text);
		damo_err("open_memstream: %s", strerror(errno));
		return -ENOMEM;
	}
	if (compress)
		r = deflate_to(f, text, len);
	else
		r = fwrite(text, 1, len, f) == len && !ferror(f) ? 0 : -EIO;
	free(text);
	return r;
}
