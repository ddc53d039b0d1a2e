// SPDX-License-Identifier: GPL-2.0
/*
 * The record file: a sequence of snapshots, each
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
};

static int take(struct cursor *c, void *dst, size_t n)
{
	if (c->len - c->off < n)
		return -1;
	memcpy(dst, c->buf + c->off, n);
	c->off += n;
	return 0;
}

static void free_snapshot(struct rec_snapshot *s)
{
	uint32_t i;

	for (i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i].regions);
	free(s->tasks);
}

/* One snapshot at c->off; -1 if the buffer ends inside it. */
static int parse_snapshot(struct cursor *c, struct rec_snapshot *s,
			  char *err, size_t errlen)
{
	int64_t sec, nsec;
	uint32_t i, j;

	memset(s, 0, sizeof(*s));
	if (take(c, &sec, 8) || take(c, &nsec, 8) || take(c, &s->nr_tasks, 4))
		return -1;
	if (nsec < 0 || nsec >= 1000000000) {
		snprintf(err, errlen, "offset %zu: nsec %lld out of range",
			 c->off - 12, (long long)nsec);
		return -2;
	}
	s->time_ns = sec * 1000000000LL + nsec;
	/* Each task takes at least 12 bytes: bound before allocating. */
	if (s->nr_tasks > (c->len - c->off) / 12) {
		s->nr_tasks = 0;
		return -1;
	}
	s->tasks = xcalloc(s->nr_tasks, sizeof(*s->tasks));
	for (i = 0; i < s->nr_tasks; i++) {
		struct rec_task *t = &s->tasks[i];

		if (take(c, &t->pid, 8) || take(c, &t->nr_regions, 4))
			goto trunc;
		if (t->nr_regions > (c->len - c->off) / 20) {
			t->nr_regions = 0;
			goto trunc;
		}
		t->regions = xcalloc(t->nr_regions, sizeof(*t->regions));
		for (j = 0; j < t->nr_regions; j++) {
			struct rec_region *r = &t->regions[j];

			if (take(c, &r->start, 8) || take(c, &r->end, 8) ||
			    take(c, &r->nr_accesses, 4))
				goto trunc;
			if (r->end < r->start) {
				snprintf(err, errlen,
					 "offset %zu: region end %llu below start %llu",
					 c->off - 20,
					 (unsigned long long)r->end,
					 (unsigned long long)r->start);
				free_snapshot(s);
				return -2;
			}
		}
	}
	return 0;
trunc:
	free_snapshot(s);
	return -1;
}

/*
 * Parse a whole record.  An incomplete last snapshot (a recorder that was
 * killed) is dropped and counted in rec->truncated_bytes; malformed data
 * (a region ending before it starts, nsec >= 10^9) fails with -EINVAL and a
 * message naming the offset.
 */
int rec_parse(const unsigned char *buf, size_t len, struct record *rec,
	      char *err, size_t errlen)
{
	struct cursor c = { buf, len, 0 };
	size_t cap = 0, start;
	int r;

	memset(rec, 0, sizeof(*rec));
	while (c.off < len) {
		if (rec->nr_snapshots == cap) {
			cap = cap ? cap * 2 : 64;
			rec->snapshots = xrealloc(rec->snapshots,
						  cap * sizeof(*rec->snapshots));
		}
		start = c.off;
		r = parse_snapshot(&c, &rec->snapshots[rec->nr_snapshots],
				   err, errlen);
		if (r == -1) {
			rec->truncated_bytes = len - start;
			break;
		}
		if (r) {
			rec_free(rec);
			return -EINVAL;
		}
		rec->nr_snapshots++;
	}
	return 0;
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
	r = rec_parse((unsigned char *)buf, len, rec, err, sizeof(err));
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
	int64_t sec = s->time_ns / 1000000000LL;
	int64_t nsec = s->time_ns % 1000000000LL;
	uint32_t i, j;

	if (nsec < 0) {
		nsec += 1000000000LL;
		sec--;
	}
	fwrite(&sec, 8, 1, f);
	fwrite(&nsec, 8, 1, f);
	fwrite(&s->nr_tasks, 4, 1, f);
	for (i = 0; i < s->nr_tasks; i++) {
		const struct rec_task *t = &s->tasks[i];

		fwrite(&t->pid, 8, 1, f);
		fwrite(&t->nr_regions, 4, 1, f);
		for (j = 0; j < t->nr_regions; j++) {
			fwrite(&t->regions[j].start, 8, 1, f);
			fwrite(&t->regions[j].end, 8, 1, f);
			fwrite(&t->regions[j].nr_accesses, 4, 1, f);
		}
	}
	return ferror(f) ? -EIO : 0;
}
