// SPDX-License-Identifier: GPL-2.0
/*
 * The record file, in three formats told apart by their content:
 * damonitor/damo's JSON list of records, plain or zlib-compressed (read
 * and written in recjson.c), and the seed's, here: a sequence of
 * snapshots, each
 *
 *	s64 sec, s64 nsec, u32 nr_tasks,
 *	nr_tasks x { u64 pid, u32 nr_regions,
 *		     nr_regions x { u64 start, u64 end, u32 nr_accesses } }
 *
 * packed, in the machine's byte order, with no header: the format the seed's
 * tools/damon scripts read.  Documentation/record-format.md has the details.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damo.h"

struct cursor {
	const unsigned char *buf;
	size_t len, off;
	bool swap;		/* read in the other byte order */
};

static int take(struct cursor *c, void *dst, size_t n)
{
	unsigned char *d = dst, b;
	size_t i;

	if (c->len - c->off < n)
		return -1;
	memcpy(dst, c->buf + c->off, n);
	c->off += n;
	for (i = 0; c->swap && i < n / 2; i++) {
		b = d[i];
		d[i] = d[n - 1 - i];
		d[n - 1 - i] = b;
	}
	return 0;
}

/* The fields are as wide in the file as in the structures. */
#define TAKE(c, field)		take(c, &(field), sizeof(field))
#define PUT(f, field)		fwrite(&(field), sizeof(field), 1, f)

/* A task is at least a pid and nr_regions; a region, start end accesses. */
#define TASK_MIN_BYTES		(sizeof(uint64_t) + sizeof(uint32_t))
#define REGION_BYTES		(2 * sizeof(uint64_t) + sizeof(uint32_t))
/* Room for this many snapshots first, then twice as many each time. */
#define SNAPSHOTS_FIRST_ALLOC	64

/* What parsing a snapshot or a task found. */
enum { PARSED = 0, TRUNCATED = -1, MALFORMED = -2 };

static void free_snapshot(struct rec_snapshot *s)
{
	uint32_t i;

	for (i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i].regions);
	free(s->tasks);
}

/* One task at c->off, its regions allocated (freed by the caller). */
static int parse_task(struct cursor *c, struct rec_task *t, char *err,
		      size_t errlen)
{
	struct rec_region *r;
	uint32_t j;

	if (TAKE(c, t->pid) || TAKE(c, t->nr_regions))
		return TRUNCATED;
	/* bound by what is left before allocating */
	if (t->nr_regions > (c->len - c->off) / REGION_BYTES) {
		t->nr_regions = 0;
		return TRUNCATED;
	}
	t->regions = xcalloc(t->nr_regions, sizeof(*t->regions));
	for (j = 0; j < t->nr_regions; j++) {
		r = &t->regions[j];
		if (TAKE(c, r->start) || TAKE(c, r->end) ||
		    TAKE(c, r->nr_accesses))
			return TRUNCATED;
		if (r->end < r->start) {
			snprintf(err, errlen,
				 "offset %zu: region end %llu below start %llu",
				 c->off - REGION_BYTES,
				 (unsigned long long)r->end,
				 (unsigned long long)r->start);
			return MALFORMED;
		}
	}
	return PARSED;
}

/* One snapshot at c->off: PARSED, TRUNCATED (the buffer ends inside
 * it) or MALFORMED (with a message). */
static int parse_snapshot(struct cursor *c, struct rec_snapshot *s,
			  char *err, size_t errlen)
{
	int64_t sec, nsec;
	uint32_t i;
	int r;

	memset(s, 0, sizeof(*s));
	if (TAKE(c, sec) || TAKE(c, nsec) || TAKE(c, s->nr_tasks))
		return TRUNCATED;
	if (nsec < 0 || nsec >= NSEC_PER_SEC) {
		snprintf(err, errlen, "offset %zu: nsec %lld out of range",
			 c->off - sizeof(s->nr_tasks) - sizeof(nsec),
			 (long long)nsec);
		return MALFORMED;
	}
	s->time_ns = sec * NSEC_PER_SEC + nsec;
	/* bound by what is left before allocating */
	if (s->nr_tasks > (c->len - c->off) / TASK_MIN_BYTES) {
		s->nr_tasks = 0;
		return TRUNCATED;
	}
	s->tasks = xcalloc(s->nr_tasks, sizeof(*s->tasks));
	for (i = 0; i < s->nr_tasks; i++) {
		r = parse_task(c, &s->tasks[i], err, errlen);
		if (r != PARSED) {
			free_snapshot(s);
			return r;
		}
	}
	return PARSED;
}

/* rec_parse() in either byte order. */
static int parse_seed(const unsigned char *buf, size_t len, bool swap,
		      struct record *rec, char *err, size_t errlen)
{
	struct cursor c = { buf, len, 0, swap };
	size_t cap = 0, start;
	int r;

	memset(rec, 0, sizeof(*rec));
	while (c.off < len) {
		if (rec->nr_snapshots == cap) {
			cap = cap ? cap * 2 : SNAPSHOTS_FIRST_ALLOC;
			rec->snapshots = xrealloc(rec->snapshots,
						  cap * sizeof(*rec->snapshots));
		}
		start = c.off;
		r = parse_snapshot(&c, &rec->snapshots[rec->nr_snapshots],
				   err, errlen);
		if (r == TRUNCATED) {
			rec->truncated_bytes = len - start;
			break;
		}
		if (r) {
			rec_free(rec);
			return -EINVAL;
		}
		rec->nr_snapshots++;
	}
	/* the seed's format has no start times: each snapshot covers the
	 * time since the one before */
	for (size_t i = 0; i < rec->nr_snapshots; i++) {
		struct rec_snapshot *s = &rec->snapshots[i];

		for (uint32_t ti = 0; ti < s->nr_tasks; ti++)
			s->tasks[ti].start_ns = i ? rec->snapshots[i - 1].time_ns :
				s->time_ns;
	}
	rec->format = REC_SEED;
	return 0;
}

/*
 * Parse a whole record.  An incomplete last snapshot (a recorder that was
 * killed) is dropped and counted in rec->truncated_bytes; malformed data
 * (a region ending before it starts, nsec >= 10^9) fails with -EINVAL and a
 * message naming the offset.  So does a record that reads only in the
 * other byte order (written on a machine of the other endianness): read
 * natively, it fails or ends inside its first snapshot.
 */
int rec_parse(const unsigned char *buf, size_t len, struct record *rec,
	      char *err, size_t errlen)
{
	struct record other;
	char ignored[8];
	int r;

	r = parse_seed(buf, len, false, rec, err, errlen);
	if (!len || (!r && rec->nr_snapshots))
		return r;
	if (parse_seed(buf, len, true, &other, ignored, sizeof(ignored)))
		return r;
	/* not by chance: to the end, or over more than one snapshot */
	if (!other.nr_snapshots ||
	    (other.truncated_bytes && other.nr_snapshots < 2)) {
		rec_free(&other);
		return r;
	}
	rec_free(&other);
	if (!r)
		rec_free(rec);
	snprintf(err, errlen,
		 "offset 0: the seed's format in the other byte order (written on a %s-endian machine; it is read where it was written)",
		 __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "big" : "little");
	return -EINVAL;
}

static const char *const format_names[] = {
	[REC_JSON_COMPRESSED] = "json_compressed",
	[REC_JSON] = "json",
	[REC_SEED] = "seed",
};

const char *rec_format_name(enum rec_format f)
{
	return format_names[f];
}

int rec_format_parse(const char *name, enum rec_format *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(name, format_names[i])) {
			*f = i;
			return 0;
		}
	return -EINVAL;
}

int rec_opt_format(const struct damo_opt *o, const char *arg, int argc,
		   char **argv)
{
	(void)argc;
	(void)argv;
	if (!rec_format_parse(arg, o->value))
		return 0;
	damo_err("--format: '%s' is not one of " REC_FORMAT_NAMES, arg);
	return -EINVAL;
}

size_t rec_pids(const struct record *rec, uint64_t **pidsp)
{
	uint64_t *pids = NULL;
	size_t nr = 0, i, k;
	uint32_t ti;

	for (i = 0; i < rec->nr_snapshots; i++)
		for (ti = 0; ti < rec->snapshots[i].nr_tasks; ti++) {
			uint64_t pid = rec->snapshots[i].tasks[ti].pid;

			for (k = 0; k < nr && pids[k] != pid; k++)
				;
			if (k == nr) {
				pids = xrealloc(pids, (nr + 1) * sizeof(*pids));
				pids[nr++] = pid;
			}
		}
	*pidsp = pids;
	return nr;
}

/* Whether the first character other than JSON white space is c. */
static bool starts_with(const unsigned char *buf, size_t len, char c)
{
	size_t i;

	for (i = 0; i < len && strchr(" \t\r\n", buf[i]) && buf[i]; i++)
		;
	return i < len && buf[i] == (unsigned char)c;
}

/* The seed's format, as a second guess: only if it reads cleanly. */
static bool seed_fits(const unsigned char *buf, size_t len,
		      struct record *rec)
{
	char err[8];

	if (rec_parse(buf, len, rec, err, sizeof(err)))
		return false;
	if (rec->nr_snapshots && !rec->truncated_bytes)
		return true;
	rec_free(rec);
	return false;
}

/*
 * The format from the content: a zlib header that inflates is
 * json_compressed; text starting with '[' is json; anything else is the
 * seed's.  The seed's format has no magic number, so a seed record whose
 * first bytes happen to look like the others is read as such if they fail
 * and it reads as a seed record from end to end.
 */
static int parse_any(const unsigned char *buf, size_t len, struct record *rec,
		     char *err, size_t errlen)
{
	char *text;
	size_t tlen;
	int r;

	if (rec_is_zlib(buf, len)) {
		r = rec_inflate(buf, len, &text, &tlen, err, errlen);
		if (r && seed_fits(buf, len, rec))
			return 0;
		if (r)
			return r;
		r = rec_parse_json(text, tlen, rec, err, errlen);
		free(text);
		if (!r)
			rec->format = REC_JSON_COMPRESSED;
		return r;
	}
	if (starts_with(buf, len, '[')) {
		r = rec_parse_json((const char *)buf, len, rec, err, errlen);
		if (r && seed_fits(buf, len, rec))
			return 0;
		return r;
	}
	return rec_parse(buf, len, rec, err, errlen);
}

/*
 * Any format, and a record to report: one with snapshots.  An empty file,
 * a seed record whose first snapshot is incomplete, or a JSON record with
 * no snapshots fails with -EINVAL and a message.
 */
int rec_parse_any(const unsigned char *buf, size_t len, struct record *rec,
		  char *err, size_t errlen)
{
	size_t cut;
	int r;

	if (!len) {
		snprintf(err, errlen, "the file is empty");
		memset(rec, 0, sizeof(*rec));
		return -EINVAL;
	}
	r = parse_any(buf, len, rec, err, errlen);
	if (r || rec->nr_snapshots)
		return r;
	cut = rec->truncated_bytes;
	if (cut)
		snprintf(err, errlen,
			 "offset 0: not even one whole snapshot (%zu bytes: the first is cut short or corrupt)",
			 cut);
	else
		snprintf(err, errlen, "no snapshots in it");
	rec_free(rec);
	return -EINVAL;
}

int rec_load(const char *path, struct record *rec)
{
	char err[256] = "";
	size_t len;
	char *buf;
	int r;

	r = read_whole(path, &buf, &len);
	if (r) {
		damo_err("cannot read record file %s: %s", path, strerror(-r));
		return r;
	}
	r = rec_parse_any((unsigned char *)buf, len, rec, err, sizeof(err));
	free(buf);
	if (r) {
		damo_err("%s: not a DAMON record: %s", path, err);
		return r;
	}
	if (rec->truncated_bytes)
		damo_warn("%s: ignoring an incomplete last snapshot (%zu bytes)",
			  path, rec->truncated_bytes);
	return 0;
}

void rec_free(struct record *rec)
{
	size_t i;

	for (i = 0; i < rec->nr_snapshots; i++)
		free_snapshot(&rec->snapshots[i]);
	free(rec->snapshots);
	memset(rec, 0, sizeof(*rec));
}

int rec_write_snapshot(FILE *f, const struct rec_snapshot *s)
{
	int64_t sec = s->time_ns / NSEC_PER_SEC;
	int64_t nsec = s->time_ns % NSEC_PER_SEC;
	const struct rec_task *t;
	uint32_t i, j;

	if (nsec < 0) {
		nsec += NSEC_PER_SEC;
		sec--;
	}
	PUT(f, sec);
	PUT(f, nsec);
	PUT(f, s->nr_tasks);
	for (i = 0; i < s->nr_tasks; i++) {
		t = &s->tasks[i];
		PUT(f, t->pid);
		PUT(f, t->nr_regions);
		for (j = 0; j < t->nr_regions; j++) {
			PUT(f, t->regions[j].start);
			PUT(f, t->regions[j].end);
			PUT(f, t->regions[j].nr_accesses);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int rec_write(FILE *f, const struct record *rec, enum rec_format fmt)
{
	size_t i;
	int r;

	if (fmt != REC_SEED)
		return rec_write_json(f, rec, fmt == REC_JSON_COMPRESSED);
	for (i = 0; i < rec->nr_snapshots; i++) {
		r = rec_write_snapshot(f, &rec->snapshots[i]);
		if (r)
			return r;
	}
	return 0;
}

void rec_append(struct record *rec, const struct rec_snapshot *s)
{
	size_t n = rec->nr_snapshots;
	struct rec_snapshot *d;
	struct rec_task *t;
	uint32_t i;

	/* room for 64 first, doubled whenever full (a power of two) */
	if (!n || (n >= SNAPSHOTS_FIRST_ALLOC && !(n & (n - 1))))
		rec->snapshots = xrealloc(rec->snapshots,
					  (n ? 2 * n : SNAPSHOTS_FIRST_ALLOC) *
					  sizeof(*rec->snapshots));
	d = &rec->snapshots[rec->nr_snapshots++];
	*d = *s;
	d->tasks = xcalloc(s->nr_tasks ? s->nr_tasks : 1, sizeof(*d->tasks));
	for (i = 0; i < s->nr_tasks; i++) {
		t = &d->tasks[i];
		*t = s->tasks[i];
		t->regions = xcalloc(t->nr_regions ? t->nr_regions : 1,
				     sizeof(*t->regions));
		memcpy(t->regions, s->tasks[i].regions,
		       t->nr_regions * sizeof(*t->regions));
	}
}
