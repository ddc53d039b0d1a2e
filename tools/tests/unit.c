// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of damo's pieces: the record parser, the heats and guide
 * math on crafted records with known answers, the save/restore file parser
 * and validator (valid files and every class of invalid one), printing and
 * parsing round trips, and target resolution against a fake /proc.
 *
 *	unit COUNTS_FILE	writes "PASSED FAILED SKIPPED" to COUNTS_FILE
 */
#define _GNU_SOURCE
#ifndef DAMO_NO_CAIRO
#include <cairo.h>
#endif
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damo.h"

static int passed, failed;

#define CHECK(c) do {							\
	if (!(c)) {							\
		printf("#   %s:%d: check failed: %s\n", __FILE__,	\
		       __LINE__, #c);					\
		return -1;						\
	}								\
} while (0)

static void run(const char *name, int (*fn)(void))
{
	int r = fn();

	printf("%s - %s\n", r ? "not ok" : "ok", name);
	if (r)
		failed++;
	else
		passed++;
}

/* ------------------------------------------------------------ records */

/* A record in memory from snapshots given as arrays. */
static unsigned char *build(const struct rec_snapshot *s, size_t nr,
			    size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;

	for (i = 0; i < nr; i++)
		rec_write_snapshot(f, &s[i]);
	fclose(f);
	return (unsigned char *)buf;
}

/*
 * The "simple" record of tests/mkrec.py: pid 42, 25 snapshots 100 ms
 * apart from 1000 s; [4096, 8192) has 10 accesses from snapshot 10 on,
 * [8192, 16384) always 5, [16384, 20480) none (split in odd snapshots).
 */
static unsigned char *simple_record(size_t *len)
{
	static struct rec_region rg[25][4];
	static struct rec_task tk[25];
	static struct rec_snapshot sn[25];
	int i;

	for (i = 0; i < 25; i++) {
		rg[i][0] = (struct rec_region){ 4096, 8192, i >= 10 ? 10 : 0 };
		rg[i][1] = (struct rec_region){ 8192, 16384, 5 };
		if (i % 2) {
			rg[i][2] = (struct rec_region){ 16384, 18432, 0 };
			rg[i][3] = (struct rec_region){ 18432, 20480, 0 };
		} else {
			rg[i][2] = (struct rec_region){ 16384, 20480, 0 };
		}
		tk[i] = (struct rec_task){ 42, i % 2 ? 4 : 3, rg[i], 0 };
		sn[i] = (struct rec_snapshot){
			1000000000000LL + i * 100000000LL, 1, &tk[i] };
	}
	return build(sn, 25, len);
}

/* The n-byte (4 or 8) native integer at buf + off; no alignment needed. */
static uint64_t at(const unsigned char *buf, size_t off, size_t n)
{
	uint32_t v32;
	uint64_t v64;

	if (n == 4) {
		memcpy(&v32, buf + off, 4);
		return v32;
	}
	memcpy(&v64, buf + off, 8);
	return v64;
}

/* Store the n-byte native integer v at buf + off. */
static void put(unsigned char *buf, size_t off, size_t n, uint64_t v)
{
	uint32_t v32 = (uint32_t)v;

	if (n == 4)
		memcpy(buf + off, &v32, 4);
	else
		memcpy(buf + off, &v, 8);
}

static int test_rec_roundtrip(void)
{
	struct rec_region r[2] = { { 1, 2, 3 }, { 4096, 1ULL << 47, 7 } };
	struct rec_task t[2] = { { 7, 2, r, 0 }, { 8, 0, NULL, 0 } };
	struct rec_snapshot s[2] = { { 5123456789LL, 2, t }, { 6000000000LL, 1, t } };
	struct record rec;
	unsigned char *buf;
	char err[128];
	size_t len;

	buf = build(s, 2, &len);
	/* 20 + 2 tasks * 12 + 2 regions * 20, then 20 + 12 + 40 */
	CHECK(len == 84 + 72);
	/* the layout, byte for byte: sec, nsec, nr_tasks, pid, nr_regions */
	CHECK(at(buf, 0, 8) == 5 && at(buf, 8, 8) == 123456789);
	CHECK(at(buf, 16, 4) == 2 && at(buf, 20, 8) == 7);
	CHECK(at(buf, 28, 4) == 2 && at(buf, 32, 8) == 1);
	CHECK(at(buf, 40, 8) == 2 && at(buf, 48, 4) == 3);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == 0);
	CHECK(rec.nr_snapshots == 2 && !rec.truncated_bytes);
	CHECK(rec.snapshots[0].time_ns == 5123456789LL);
	CHECK(rec.snapshots[0].nr_tasks == 2);
	CHECK(rec.snapshots[0].tasks[0].regions[1].end == 1ULL << 47);
	CHECK(rec.snapshots[0].tasks[0].regions[1].nr_accesses == 7);
	CHECK(rec.snapshots[0].tasks[1].pid == 8);
	CHECK(rec.snapshots[0].tasks[1].nr_regions == 0);
	CHECK(rec.snapshots[1].nr_tasks == 1);
	rec_free(&rec);
	free(buf);
	return 0;
}

static int test_rec_empty(void)
{
	struct record rec;
	char err[128];

	CHECK(rec_parse((const unsigned char *)"", 0, &rec, err, sizeof(err)) == 0);
	CHECK(rec.nr_snapshots == 0 && !rec.truncated_bytes);
	rec_free(&rec);
	return 0;
}

/* Every cut inside the second snapshot keeps the first and counts the rest. */
static int test_rec_truncated(void)
{
	struct record rec;
	unsigned char *buf;
	size_t len, first, cut;
	char err[128];

	buf = simple_record(&len);
	first = 20 + 12 + 3 * 20;
	for (cut = first + 1; cut < first + 20 + 12 + 4 * 20; cut++) {
		CHECK(rec_parse(buf, cut, &rec, err, sizeof(err)) == 0);
		CHECK(rec.nr_snapshots == 1);
		CHECK(rec.truncated_bytes == cut - first);
		rec_free(&rec);
	}
	free(buf);
	return 0;
}

static int test_rec_malformed(void)
{
	struct rec_region r = { 8192, 4096, 1 };
	struct rec_task t = { 1, 1, &r, 0 };
	struct rec_snapshot s = { 0, 1, &t };
	struct record rec;
	unsigned char *buf;
	char err[128] = "";
	size_t len;

	buf = build(&s, 1, &len);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "offset 32: region end 4096 below start 8192"));
	/* nsec beyond a second */
	r.end = 9000;
	free(buf);
	buf = build(&s, 1, &len);
	put(buf, 8, 8, 1000000000);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "nsec"));
	/* an absurd nr_regions is a truncation, not a huge allocation */
	put(buf, 8, 8, 0);
	put(buf, 28, 4, 0xffffffff);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == 0);
	CHECK(rec.nr_snapshots == 0 && rec.truncated_bytes == len);
	rec_free(&rec);
	free(buf);
	return 0;
}

/* Reverse the bytes of the n-byte field at *off; its native value. */
static uint64_t swap_field(unsigned char *buf, size_t *off, size_t n)
{
	uint64_t v = at(buf, *off, n);
	unsigned char b;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		b = buf[*off + i];
		buf[*off + i] = buf[*off + n - 1 - i];
		buf[*off + n - 1 - i] = b;
	}
	*off += n;
	return v;
}

/* A seed record as the other byte order's machine writes it. */
static void swap_record(unsigned char *buf, size_t len)
{
	uint64_t nt, nr, i, j;
	size_t off = 0;

	while (off < len) {
		swap_field(buf, &off, 8);
		swap_field(buf, &off, 8);
		nt = swap_field(buf, &off, 4);
		for (i = 0; i < nt; i++) {
			swap_field(buf, &off, 8);
			nr = swap_field(buf, &off, 4);
			for (j = 0; j < nr; j++) {
				swap_field(buf, &off, 8);
				swap_field(buf, &off, 8);
				swap_field(buf, &off, 4);
			}
		}
	}
}

/* Records with nothing to report, in every format: errors, said. */
static int test_rec_unusable(void)
{
	struct record rec;
	unsigned char *buf;
	char err[256];
	size_t len;

	CHECK(rec_parse_any((const unsigned char *)"", 0, &rec, err,
			    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "the file is empty") && !rec.nr_snapshots);
	buf = simple_record(&len);
	CHECK(rec_parse_any(buf, 30, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "offset 0: not even one whole snapshot (30 bytes"));
	/* an absurd nr_tasks in the first snapshot: corrupt, not huge */
	put(buf, 16, 4, 0xfffffff0);
	CHECK(rec_parse_any(buf, len, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "not even one whole snapshot"));
	free(buf);
	/* the other byte order: whole, or cut short after a snapshot */
	buf = simple_record(&len);
	swap_record(buf, len);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "the seed's format in the other byte order"));
	CHECK(!rec.nr_snapshots && !rec.snapshots);
	CHECK(rec_parse_any(buf, len - 7, &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "other byte order"));
	free(buf);
	CHECK(rec_parse_any((const unsigned char *)" [] ", 4, &rec, err,
			    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no snapshots in it"));
	CHECK(rec_parse_any((const unsigned char *)"[{\"snapshots\": []}]", 19,
			    &rec, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no snapshots in it"));
	return 0;
}

static int load_simple(struct record *rec)
{
	unsigned char *buf;
	char err[128];
	size_t len;
	int r;

	buf = simple_record(&len);
	r = rec_parse(buf, len, rec, err, sizeof(err));
	free(buf);
	return r;
}

/* The grid worked out by hand in mkrec.py's terms. */
static int test_heats_known(void)
{
	static const double want[2][4] = {
		{ 2.5, 5, 5, 0 },	/* snapshots 1..12: 3 of 12 hot */
		{ 10, 5, 5, 0 },	/* snapshots 13..24 */
	};
	struct heats_args a = {
		.has_tmin = true, .has_tmax = true, .has_amin = true,
		.has_amax = true, .tmin = 1000000000000LL,
		.tmax = 1002400000000LL, .amin = 4096, .amax = 20480,
		.tres = 2, .ares = 4,
	};
	struct record rec;
	struct heats h;
	int t, i;

	CHECK(load_simple(&rec) == 0);
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(h.pid == 42 && h.tunit == 1200000000LL && h.aunit == 4096);
	for (t = 0; t < 2; t++)
		for (i = 0; i < 4; i++)
			CHECK(h.heat[t * 4 + i] > want[t][i] - 1e-9 &&
			      h.heat[t * 4 + i] < want[t][i] + 1e-9);
	CHECK(h.max_heat == 10);
	heats_free(&h);

	/* half a bin of address: [6144, 10240) is half 10, half 5 late */
	a.amin = 6144;
	a.amax = 10240;
	a.ares = 1;
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(h.heat[1] > 7.5 - 1e-9 && h.heat[1] < 7.5 + 1e-9);
	heats_free(&h);
	rec_free(&rec);
	return 0;
}

static int test_heats_errors(void)
{
	struct heats_args a = { .tres = 500, .ares = 500 };
	struct record rec;
	struct heats h;

	CHECK(load_simple(&rec) == 0);
	/* 16 KiB cannot be cut in 500 bins of whole bytes... it can: 32 */
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(h.amin == 4096 && h.aunit == 32 && h.tmin == 1000000000000LL);
	heats_free(&h);
	a = (struct heats_args){ .tres = 500, .ares = 20000 };
	CHECK(heats_compute(&rec, &a, &h) == -EINVAL);
	a = (struct heats_args){ .tres = 5, .ares = 5, .has_pid = true,
				 .pid = 43 };
	CHECK(heats_compute(&rec, &a, &h) == -ESRCH);
	a = (struct heats_args){ .tres = 5, .ares = 5, .has_amin = true,
				 .amin = 1 << 20, .has_amax = true,
				 .amax = 1 << 19 };
	CHECK(heats_compute(&rec, &a, &h) == -EINVAL);
	rec_free(&rec);
	return 0;
}

static int test_guides(void)
{
	struct rec_region r1[] = { { 0x10000, 0x20000, 1 } };
	struct rec_region r2[] = { { 0x100000, 0x180000, 3 },
				   { 0x180000, 0x200000, 0 },
				   { 0x800000, 0x900000, 7 } };
	struct rec_region r3[] = { { 0x100000, 0x200000, 3 },
				   { 0x700000, 0x7f0000, 1 } };
	struct rec_task t0[] = { { 1, 1, r1, 0 } };
	struct rec_task t1[] = { { 1, 1, r1, 0 }, { 2, 3, r2, 0 } };
	struct rec_task t2[] = { { 2, 2, r3, 0 } };
	struct rec_snapshot s[] = { { 100, 1, t0 }, { 200, 2, t1 },
				    { 300, 1, t2 } };
	struct heats_args a = { .tres = 4, .ares = 4 };
	struct record rec;
	struct guide *g;
	unsigned char *buf;
	char err[64];
	size_t len, nr;
	struct heats h;

	buf = build(s, 3, &len);
	CHECK(rec_parse(buf, len, &rec, err, sizeof(err)) == 0);
	free(buf);
	CHECK(guides_of(&rec, &g, &nr) == 0);
	CHECK(nr == 2);
	/* pid 2 monitored more space: first */
	CHECK(g[0].pid == 2 && g[0].start_time == 200 && g[0].end_time == 300);
	CHECK(g[0].nr_ranges == 3);
	CHECK(g[0].ranges[0][0] == 0x100000 && g[0].ranges[0][1] == 0x200000);
	CHECK(g[0].ranges[1][0] == 0x700000 && g[0].ranges[1][1] == 0x7f0000);
	CHECK(g[0].ranges[2][0] == 0x800000 && g[0].ranges[2][1] == 0x900000);
	CHECK(g[1].pid == 1 && g[1].nr_ranges == 1 && g[1].start_time == 100);
	guides_free(g, nr);
	/* the heats default: pid 2, its largest range, its time span */
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(h.pid == 2 && h.amin == 0x100000 && h.aunit == 0x40000);
	CHECK(h.tmin == 200 && h.tunit == 25);
	heats_free(&h);
	rec_free(&rec);
	return 0;
}

/* ------------------------------------------------------------ numbers */

static int test_parse_u64(void)
{
	uint64_t v;

	CHECK(parse_u64("0", &v) == 0 && v == 0);
	CHECK(parse_u64("+17", &v) == 0 && v == 17);
	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_u64("99999999999999999999", &v) == -ERANGE);
	CHECK(parse_u64("", &v) == -EINVAL);
	CHECK(parse_u64("+", &v) == -EINVAL);
	CHECK(parse_u64("-1", &v) == -EINVAL);
	CHECK(parse_u64("1 ", &v) == -EINVAL);
	CHECK(parse_u64("0x10", &v) == -EINVAL);
	CHECK(parse_u64_any("0x10", &v) == 0 && v == 16);
	CHECK(parse_u64_any("0x7fFF", &v) == 0 && v == 0x7fff);
	CHECK(parse_u64_any("0x", &v) == -EINVAL);
	CHECK(parse_u64_any("0x10000000000000000", &v) == -ERANGE);
	CHECK(parse_u64_any("42", &v) == 0 && v == 42);
	return 0;
}

static int test_parse_s64(void)
{
	int64_t v;

	CHECK(parse_s64("-1", &v) == 0 && v == -1);
	CHECK(parse_s64("+7", &v) == 0 && v == 7);
	CHECK(parse_s64("-0", &v) == 0 && v == 0);
	CHECK(parse_s64("9223372036854775807", &v) == 0 && v == INT64_MAX);
	CHECK(parse_s64("-9223372036854775808", &v) == 0 && v == INT64_MIN);
	CHECK(parse_s64("9223372036854775808", &v) == -ERANGE);
	CHECK(parse_s64("-9223372036854775809", &v) == -ERANGE);
	CHECK(parse_s64("-", &v) == -EINVAL);
	CHECK(parse_s64("-+1", &v) == -EINVAL);
	CHECK(parse_s64("--1", &v) == -EINVAL);
	CHECK(parse_s64("1-", &v) == -EINVAL);
	return 0;
}

/* ------------------------------------------------------------ conf */

static const char full_conf[] =
"# DAMON configfs setup (damo save); restore with `damo restore FILE`.\n"
"\n"
"context batch {\n"
"\toperations fvaddr\n"
"\tsample_us 5000\n"
"\taggr_us 100000\n"
"\tupdate_us 1000000\n"
"\tmin_nr_regions 10\n"
"\tmax_nr_regions 1000\n"
"\ttarget t1 {\n"
"\t\tregion r2 {\n"
"\t\t\tstart 4096\n"
"\t\t\tend 8192\n"
"\t\t}\n"
"\t}\n"
"\tstate off\n"
"}\n"
"\n"
"context web {\n"
"\toperations vaddr\n"
"\tsample_us 5000\n"
"\taggr_us 200000\n"
"\tupdate_us 2000000\n"
"\tmin_nr_regions 12\n"
"\tmax_nr_regions 300\n"
"\ttarget app {\n"
"\t\tpid 1234\n"
"\t}\n"
"\ttarget other {\n"
"\t\tcommand /usr/bin/app --flag  two\n"
"\t}\n"
"\tscheme cold {\n"
"\t\taction pageout\n"
"\t\tapply_interval_us 0\n"
"\t\taccess_pattern {\n"
"\t\t\tmin_size_bytes 4096\n"
"\t\t\tmax_size_bytes 18446744073709551615\n"
"\t\t\tmin_nr_accesses 0\n"
"\t\t\tmax_nr_accesses 0\n"
"\t\t\tmin_age 50\n"
"\t\t\tmax_age 4294967295\n"
"\t\t}\n"
"\t\tquotas {\n"
"\t\t\tms 0\n"
"\t\t\tbytes 104857600\n"
"\t\t\treset_interval_ms 1000\n"
"\t\t\tweight_size 0\n"
"\t\t\tweight_nr_accesses 1\n"
"\t\t\tweight_age 1\n"
"\t\t}\n"
"\t\twatermarks {\n"
"\t\t\tmetric free_mem_rate\n"
"\t\t\tinterval_us 5000000\n"
"\t\t\thigh 1000\n"
"\t\t\tmid 500\n"
"\t\t\tlow 0\n"
"\t\t}\n"
"\t\tfilter zz {\n"
"\t\t\ttype addr\n"
"\t\t\tmatching N\n"
"\t\t\taddr_start 4096\n"
"\t\t\taddr_end 8192\n"
"\t\t\ttarget\n"
"\t\t}\n"
"\t\tfilter aa {\n"
"\t\t\ttype target\n"
"\t\t\tmatching Y\n"
"\t\t\taddr_start 0\n"
"\t\t\taddr_end 0\n"
"\t\t\ttarget app\n"
"\t\t}\n"
"\t}\n"
"\tstate on\n"
"}\n";

static int test_conf_parse_full(void)
{
	struct conf_node *root, *web, *s;
	char err[256] = "";

	root = conf_parse(full_conf, err, sizeof(err));
	CHECK(root);
	CHECK(conf_validate(root, err, sizeof(err)) == 0);
	CHECK(root->nr_children == 2);
	web = root->children[1];
	CHECK(web->kind == CK_CONTEXT && !strcmp(web->name, "web"));
	CHECK(web->line == 19);
	CHECK(!strcmp(conf_get(web, "state"), "on"));
	CHECK(web->nr_children == 3);
	CHECK(!strcmp(conf_get(web->children[1], "command"),
		      "/usr/bin/app --flag  two"));
	s = web->children[2];
	CHECK(s->kind == CK_SCHEME && s->nr_children == 5);
	CHECK(s->children[3]->kind == CK_FILTER &&
	      !strcmp(s->children[3]->name, "zz"));
	CHECK(!strcmp(conf_get(s->children[3], "target"), ""));
	CHECK(conf_get_attr(s->children[4], "target")->line == 70);
	conf_free(root);
	return 0;
}

/* Physical memory: migrate actions, their node, memcg and young filters. */
static const char paddr_conf[] =
"# DAMON configfs setup (damo save); restore with `damo restore FILE`.\n"
"\n"
"context phys {\n"
"\toperations paddr\n"
"\ttarget ram {\n"
"\t}\n"
"\tscheme demote {\n"
"\t\taction migrate_cold\n"
"\t\tapply_interval_us 0\n"
"\t\ttarget_nid 1\n"
"\t\taccess_pattern {\n"
"\t\t\tmax_nr_accesses 0\n"
"\t\t\tmin_age 10\n"
"\t\t}\n"
"\t\tfilter cg {\n"
"\t\t\ttype memcg\n"
"\t\t\tmatching N\n"
"\t\t\tmemcg_path /workload.slice/db.service\n"
"\t\t}\n"
"\t\tfilter busy {\n"
"\t\t\ttype young\n"
"\t\t\tmatching Y\n"
"\t\t}\n"
"\t}\n"
"\tscheme promote {\n"
"\t\taction migrate_hot\n"
"\t\ttarget_nid 0\n"
"\t}\n"
"\tscheme active {\n"
"\t\taction lru_prio\n"
"\t\ttarget_nid -1\n"
"\t\tfilter f {\n"
"\t\t\ttype anon\n"
"\t\t\tmemcg_path\n"
"\t\t}\n"
"\t}\n"
"\tstate on\n"
"}\n";

static int test_conf_paddr(void)
{
	struct conf_node *root, *again, *s;
	char err[256] = "", *text, *json;

	root = conf_parse(paddr_conf, err, sizeof(err));
	CHECK(root);
	CHECK(conf_validate(root, err, sizeof(err)) == 0);
	s = root->children[0]->children[1];
	CHECK(!strcmp(conf_get(s, "target_nid"), "1"));
	CHECK(conf_action_migrates(conf_get(s, "action")));
	CHECK(!conf_action_migrates("lru_prio") && !conf_action_migrates(NULL));
	CHECK(!strcmp(conf_get(s->children[1], "memcg_path"),
		      "/workload.slice/db.service"));
	CHECK(conf_get_attr(s->children[1], "memcg_path")->line == 18);
	/* the text form prints back the same */
	text = conf_to_string(root);
	CHECK(!strcmp(text, paddr_conf));
	free(text);
	/* JSON: target_nid a number, -1 too; back to the same text */
	json = conf_to_json(root);
	CHECK(strstr(json, "\"target_nid\": 1,"));
	CHECK(strstr(json, "\"target_nid\": -1,"));
	CHECK(strstr(json, "\"memcg_path\": \"/workload.slice/db.service\""));
	again = conf_parse_json(json, strlen(json), err, sizeof(err));
	CHECK(again);
	CHECK(conf_validate(again, err, sizeof(err)) == 0);
	text = conf_to_string(again);
	CHECK(!strcmp(text, paddr_conf));
	free(text);
	free(json);
	conf_free(again);
	conf_free(root);
	/* which files older kernels lack, and what leaves them unused */
	CHECK(!strcmp(conf_attr_unused(CK_SCHEME, "target_nid"), "-1"));
	CHECK(!strcmp(conf_attr_unused(CK_FILTER, "memcg_path"), ""));
	CHECK(!conf_attr_unused(CK_SCHEME, "action"));
	CHECK(!conf_attr_unused(CK_FILTER, "target"));
	return 0;
}

/* Quota goals: blocks in quotas, in file order; current_value of
 * user_input goals; nid and memcg_path of the metrics that use them. */
static const char goals_conf[] =
"# DAMON configfs setup (damo save); restore with `damo restore FILE`.\n"
"\n"
"context phys {\n"
"\toperations paddr\n"
"\ttarget ram {\n"
"\t}\n"
"\tscheme reclaim {\n"
"\t\taction pageout\n"
"\t\tquotas {\n"
"\t\t\tbytes 268435456\n"
"\t\t\treset_interval_ms 1000\n"
"\t\t\tgoal free {\n"
"\t\t\t\ttarget_metric node_mem_free_bp\n"
"\t\t\t\ttarget_value 2000\n"
"\t\t\t\tnid 1\n"
"\t\t\t}\n"
"\t\t\tgoal in {\n"
"\t\t\t\ttarget_metric user_input\n"
"\t\t\t\ttarget_value 10000\n"
"\t\t\t\tcurrent_value 2500\n"
"\t\t\t\tnid 0\n"
"\t\t\t}\n"
"\t\t\tgoal cg {\n"
"\t\t\t\ttarget_metric node_memcg_used_bp\n"
"\t\t\t\ttarget_value 500\n"
"\t\t\t\tnid 0\n"
"\t\t\t\tmemcg_path /workload.slice/db.service\n"
"\t\t\t}\n"
"\t\t\tgoal dflt {\n"
"\t\t\t\ttarget_value 18446744073709551615\n"
"\t\t\t\tcurrent_value 0\n"
"\t\t\t}\n"
"\t\t}\n"
"\t\tfilter busy {\n"
"\t\t\ttype young\n"
"\t\t}\n"
"\t}\n"
"\tstate on\n"
"}\n";

static int test_conf_goals(void)
{
	struct conf_node *root, *again, *q, *g;
	char err[256] = "", *text, *json;

	root = conf_parse(goals_conf, err, sizeof(err));
	CHECK(root);
	CHECK(conf_validate(root, err, sizeof(err)) == 0);
	q = root->children[0]->children[1]->children[0];
	CHECK(q->kind == CK_QUOTAS && q->nr_children == 4);
	g = q->children[2];
	CHECK(g->kind == CK_GOAL && !strcmp(g->name, "cg") && g->line == 23);
	CHECK(!strcmp(conf_goal_metric(g), "node_memcg_used_bp"));
	CHECK(!strcmp(conf_get(g, "memcg_path"), "/workload.slice/db.service"));
	/* no target_metric: the kernel's default */
	CHECK(!strcmp(conf_goal_metric(q->children[3]), "user_input"));
	CHECK(conf_goal_metric_is_input("user_input"));
	CHECK(!conf_goal_metric_is_input("node_mem_free_bp"));
	CHECK(conf_goal_metric_per_node("node_mem_used_bp"));
	CHECK(conf_goal_metric_per_node("node_memcg_free_bp"));
	CHECK(!conf_goal_metric_per_node("active_mem_bp"));
	CHECK(!conf_goal_metric_per_node("some_mem_psi_us"));
	CHECK(conf_goal_metric_per_memcg("node_memcg_used_bp"));
	CHECK(!conf_goal_metric_per_memcg("node_mem_free_bp"));
	/* the text form prints back the same */
	text = conf_to_string(root);
	CHECK(!strcmp(text, goals_conf));
	free(text);
	/* JSON: goals an array in the quotas object, numbers as numbers */
	json = conf_to_json(root);
	CHECK(strstr(json, "\"weight_age\"") == NULL);
	CHECK(strstr(json, "\"reset_interval_ms\": 1000,\n            \"goals\": [\n              {\n                \"name\": \"free\",\n                \"target_metric\": \"node_mem_free_bp\",\n                \"target_value\": 2000,\n                \"nid\": 1\n              },"));
	CHECK(strstr(json, "\"current_value\": 2500,"));
	CHECK(strstr(json, "\"target_value\": 18446744073709551615,"));
	again = conf_parse_json(json, strlen(json), err, sizeof(err));
	CHECK(again);
	CHECK(conf_validate(again, err, sizeof(err)) == 0);
	text = conf_to_string(again);
	CHECK(!strcmp(text, goals_conf));
	free(text);
	free(json);
	conf_free(again);
	conf_free(root);
	/* memcg_path is left out unused, as a filter's */
	CHECK(!strcmp(conf_attr_unused(CK_GOAL, "memcg_path"), ""));
	CHECK(!conf_attr_unused(CK_GOAL, "nid"));
	/* goals are in quotas only, and named */
	root = conf_parse("context a {\n\tscheme s {\n\t\tgoal g {\n\t\t}\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 3: 'goal' cannot be inside scheme block"));
	root = conf_parse("context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal {\n\t\t\t}\n\t\t}\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strncmp(err, "line 4: '' is not a valid goal name", 35));
	root = conf_parse("context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t}\n\t\t\tgoal g {\n\t\t\t}\n\t\t}\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 6: goal g is already defined on line 4"));
	root = conf_parse("context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tms 5\n\t\t\t}\n\t\t}\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 5: unknown key 'ms' in a goal block"));
	return 0;
}

/* print(parse(x)) == x for a canonical file; parse(print(t)) == t. */
static int test_conf_roundtrip(void)
{
	struct conf_node *root, *again;
	char err[256], *text, *text2;

	root = conf_parse(full_conf, err, sizeof(err));
	CHECK(root);
	text = conf_to_string(root);
	CHECK(!strcmp(text, full_conf));
	again = conf_parse(text, err, sizeof(err));
	CHECK(again);
	text2 = conf_to_string(again);
	CHECK(!strcmp(text, text2));
	free(text);
	free(text2);
	conf_free(root);
	conf_free(again);

	/* attributes in any order and odd spacing print canonically */
	/* "}" closes a block only on a line of its own */
	root = conf_parse("context x {\n\ttarget t {\n pid 5 }\n}\n}\n",
			  err, sizeof(err));
	CHECK(root);
	CHECK(conf_validate(root, err, sizeof(err)) == -1);
	CHECK(!strcmp(err, "line 3: pid: '5 }' is not a decimal number"));
	conf_free(root);
	root = conf_parse("  context x {\r\n state on\n\ttarget t {\n pid 5\n"
			  "}\n\taggr_us   7000  \n # note\n}\n", err, sizeof(err));
	CHECK(root);
	CHECK(conf_validate(root, err, sizeof(err)) == 0);
	text = conf_to_string(root);
	CHECK(strstr(text, "context x {\n\taggr_us 7000\n\ttarget t {\n\t\tpid 5\n\t}\n\tstate on\n}\n"));
	free(text);
	conf_free(root);
	return 0;
}

struct bad_case {
	const char *text;
	const char *err;	/* expected prefix of the message */
};

/* intervals_goal: a group in a context, before its targets as save puts
 * it; defaults and tuning told apart. */
static const char intervals_conf[] =
"# DAMON configfs setup (damo save); restore with `damo restore FILE`.\n"
"\n"
"context stat {\n"
"\toperations paddr\n"
"\tsample_us 5000\n"
"\taggr_us 100000\n"
"\tupdate_us 200000000\n"
"\tintervals_goal {\n"
"\t\taccess_bp 400\n"
"\t\taggrs 3\n"
"\t\tmin_sample_us 5000\n"
"\t\tmax_sample_us 10000000\n"
"\t}\n"
"\ttarget ram {\n"
"\t}\n"
"\tstate on\n"
"}\n";

/* parse and validate text; the root, or NULL with err filled */
static struct conf_node *parse_valid(const char *text, char *err,
				     size_t len)
{
	struct conf_node *root = conf_parse(text, err, len);

	if (root && conf_validate(root, err, len)) {
		conf_free(root);
		return NULL;
	}
	return root;
}

static int test_conf_intervals(void)
{
	static const struct bad_case bad[] = {
		{ "context a {\n\tintervals_goal {\n\t\taccess_bp 10001\n\t}\n}\n", "line 3: access_bp: 10001 is out of range 0..10000" },
		{ "context a {\n\tintervals_goal {\n\t\taggrs 0\n\t}\n}\n", "line 3: aggrs: 0 is out of range 1..4294967295" },
		{ "context a {\n\tintervals_goal {\n\t\taggrs 4294967296\n\t}\n}\n", "line 3: aggrs: 4294967296 is out of range 1..4294967295" },
		{ "context a {\n\tintervals_goal {\n\t\tmin_sample_us 0\n\t}\n}\n", "line 3: min_sample_us: 0 is out of range 1..18446744073709551615" },
		{ "context a {\n\tintervals_goal {\n\t\tmax_sample_us 1e6\n\t}\n}\n", "line 3: max_sample_us: '1e6' is not a decimal number" },
		/* at on, with tuning: the bounds the right way round, named
		 * at min_sample_us, else at access_bp */
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tintervals_goal {\n\t\taccess_bp 1\n\t\tmin_sample_us 20000\n\t\tmax_sample_us 10000\n\t}\n\tstate on\n}\n", "line 7: context a: intervals_goal needs min_sample_us (20000) <= max_sample_us (10000) to tune" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tintervals_goal {\n\t\taccess_bp 1\n\t\tmax_sample_us 4999\n\t}\n\tstate on\n}\n", "line 6: context a: intervals_goal needs min_sample_us (5000) <= max_sample_us (4999) to tune" },
	};
	/* bounds the wrong way round matter only while tuning, and on */
	static const char *const ok[] = {
		"context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tintervals_goal {\n\t\tmin_sample_us 20000\n\t\tmax_sample_us 10000\n\t}\n\tstate on\n}\n",
		"context a {\n\tintervals_goal {\n\t\taccess_bp 10000\n\t\tmin_sample_us 20000\n\t\tmax_sample_us 10000\n\t}\n}\n",
		"context a {\n\tintervals_goal {\n\t}\n}\n",
	};
	struct conf_node *root, *again, *g;
	char err[256] = "", *text, *json;
	size_t i;

	root = parse_valid(intervals_conf, err, sizeof(err));
	CHECK(root);
	g = root->children[0]->children[0];
	CHECK(g->kind == CK_INTERVALS && !g->name && g->line == 8);
	CHECK(!strcmp(conf_get(g, "access_bp"), "400"));
	CHECK(conf_intervals_tune(g) && conf_intervals_set(g));
	/* the text form prints back the same, and so does JSON, where the
	 * group is an object before the targets */
	text = conf_to_string(root);
	CHECK(!strcmp(text, intervals_conf));
	free(text);
	json = conf_to_json(root);
	CHECK(strstr(json, "\"update_us\": 200000000,\n      \"intervals_goal\": {\n        \"access_bp\": 400,\n        \"aggrs\": 3,\n        \"min_sample_us\": 5000,\n        \"max_sample_us\": 10000000\n      },\n      \"targets\": ["));
	again = conf_parse_json(json, strlen(json), err, sizeof(err));
	CHECK(again);
	CHECK(conf_validate(again, err, sizeof(err)) == 0);
	text = conf_to_string(again);
	CHECK(!strcmp(text, intervals_conf));
	free(text);
	free(json);
	conf_free(again);
	/* the defaults: not set; any value off them: set; tuning: access_bp */
	conf_set(g, "access_bp", "0", 0);
	CHECK(!conf_intervals_tune(g) && !conf_intervals_set(g));
	conf_set(g, "aggrs", "4", 0);
	CHECK(!conf_intervals_tune(g) && conf_intervals_set(g));
	conf_set(g, "aggrs", "+3", 0);
	conf_set(g, "max_sample_us", "10000001", 0);
	CHECK(conf_intervals_set(g));
	conf_free(root);
	root = conf_parse("context a {\n\tintervals_goal {\n\t}\n}\n", err,
			  sizeof(err));
	CHECK(root);
	CHECK(!conf_intervals_set(root->children[0]->children[0]));
	conf_free(root);
	/* where it may be, once, and nameless */
	root = conf_parse("context a {\n\tscheme s {\n\t\tintervals_goal {\n\t\t}\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 3: 'intervals_goal' cannot be inside scheme block"));
	root = conf_parse("intervals_goal {\n}\n", err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 1: 'intervals_goal' cannot be inside the top level"));
	root = conf_parse("context a {\n\tintervals_goal g {\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 2: 'intervals_goal' takes no name"));
	root = conf_parse("context a {\n\tintervals_goal {\n\t}\n\tintervals_goal {\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 4: intervals_goal is already defined on line 2"));
	root = conf_parse("context a {\n\tintervals_goal {\n\t\tsample_us 5\n\t}\n}\n",
			  err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 3: unknown key 'sample_us' in a intervals_goal block"));
	root = conf_parse("context a {\n\taccess_bp 400\n}\n", err, sizeof(err));
	CHECK(!root && !strcmp(err, "line 2: unknown key 'access_bp' in a context block"));
	root = conf_parse_json("{\"contexts\": [{\"name\": \"a\",\n \"intervals_goal\": []}]}",
			       52, err, sizeof(err));
	CHECK(!root && !strncmp(err, "line 2: JSON offset", 19));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		root = parse_valid(bad[i].text, err, sizeof(err));
		if (root || strncmp(err, bad[i].err, strlen(bad[i].err))) {
			printf("#   case %zu: got \"%s\"\n", i,
			       root ? "(valid)" : err);
			conf_free(root);
			return -1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		root = parse_valid(ok[i], err, sizeof(err));
		if (!root) {
			printf("#   ok case %zu: %s\n", i, err);
			return -1;
		}
		conf_free(root);
	}
	return 0;
}

/* ------------------------------------------------------------ status */

#define MIB		(1ULL << 20)

/* access_stats(): bandwidth and idle percentiles of known regions. */
static int test_access_stats(void)
{
	/* 10 MiB at 5 ms / 100 ms (20 samples), out of order: 2 MiB of it
	 * touched per aggregation (2 MiB * 10/20 + 1 MiB * 20/20), 20 MiB/s;
	 * idle 0 (3 MiB), 300 ms (4 MiB), 5 s (1 MiB), 60 s (2 MiB), and
	 * every percentile on a boundary: p70 is 7 MiB, still 300 ms */
	static const struct snap_region known[] = {
		{ 0, 1 * MIB, 0, 50 },
		{ 1 * MIB, 3 * MIB, 10, 4 },
		{ 8 * MIB, 10 * MIB, 0, 600 },
		{ 3 * MIB, 4 * MIB, 20, 1 },
		{ 4 * MIB, 8 * MIB, 0, 3 },
	};
	static const uint64_t known_idle[NR_IDLE_PERCENTILES] = {
		0, 0, 0, 0, 300000, 300000, 300000, 300000, 5000000,
		60000000, 60000000,
	};
	struct snap_region r[3];
	struct access_stats st;

	CHECK(access_stats(known, ARRAY_SIZE(known), 5000, 100000, &st) == 0);
	CHECK(st.bandwidth == 20 * MIB);
	CHECK(!memcmp(st.idle_us, known_idle, sizeof(known_idle)));
	/* the intervals scale it: twice the aggregation, half the rate,
	 * twice the idle times */
	CHECK(access_stats(known, ARRAY_SIZE(known), 10000, 200000, &st) == 0);
	CHECK(st.bandwidth == 10 * MIB);
	CHECK(st.idle_us[4] == 600000 && st.idle_us[10] == 120000000);
	/* nothing to go by: no regions, or only empty ones */
	CHECK(access_stats(NULL, 0, 5000, 100000, &st) == -1);
	r[0] = (struct snap_region){ 4096, 4096, 3, 3 };
	CHECK(access_stats(r, 1, 5000, 100000, &st) == -1);
	/* one region: every percentile is its idle time; an empty one does
	 * not count; an access count past the full scale is the full scale */
	r[1] = (struct snap_region){ 0, 4096, 0, 7 };
	CHECK(access_stats(r, 2, 5000, 100000, &st) == 0);
	CHECK(st.bandwidth == 0);
	CHECK(st.idle_us[0] == 700000 && st.idle_us[10] == 700000);
	r[1].nr_accesses = 99;
	CHECK(access_stats(r, 2, 5000, 100000, &st) == 0);
	CHECK(st.bandwidth == 40960 && st.idle_us[0] == 0 && st.idle_us[10] == 0);
	/* sample_us above aggr_us (not a setup "on" takes): one sample */
	CHECK(access_stats(r, 2, 200000, 100000, &st) == 0);
	CHECK(st.bandwidth == 40960);
	/* not a whole byte: rounded; the smallest share decides p0 and a
	 * byte past 10 % p10 */
	r[0] = (struct snap_region){ 0, 3, 1, 0 };
	r[1] = (struct snap_region){ 3, 30, 0, 1 };
	CHECK(access_stats(r, 2, 3, 9, &st) == 0);
	CHECK(st.bandwidth == 111111);	/* 3 B * 1/3 per 9 us */
	CHECK(st.idle_us[0] == 0 && st.idle_us[1] == 0 && st.idle_us[2] == 9);
	/* idle for longer than 64 bits of us: saturated, not wrapped */
	r[0] = (struct snap_region){ 0, 4096, 0, UINT32_MAX };
	r[1] = (struct snap_region){ 4096, 8192, 1, 0 };
	CHECK(access_stats(r, 2, 1, 1ULL << 40, &st) == 0);
	CHECK(st.idle_us[5] == 0 && st.idle_us[6] == UINT64_MAX);
	/* the largest sizes and counts do not overflow: (2^64 - 1) B in
	 * 2^32 of 2^40 samples, per 2^40 us */
	r[0] = (struct snap_region){ 0, UINT64_MAX, 1ULL << 32, 0 };
	CHECK(access_stats(r, 1, 1, 1ULL << 40, &st) == 0);
	CHECK(st.bandwidth == 65536000000ULL);
	return 0;
}

/* Every class of syntax error, each with its line. */
static int test_conf_parse_errors(void)
{
	static const struct bad_case cases[] = {
		{ "context a {\n", "line 1: block 'context a' is not closed" },
		{ "context a {\n}\n}\n", "line 3: '}' without an open block" },
		{ "sample_us 5\n", "line 1: 'sample_us' outside of any block" },
		{ "context a {\n\tfoo 1\n}\n", "line 2: unknown key 'foo' in a context block" },
		{ "context a {\n\tregion r {\n\t}\n}\n", "line 2: 'region' cannot be inside context block" },
		{ "target t {\n}\n", "line 1: 'target' cannot be inside the top level" },
		{ "context a\n", "line 1: 'context' must open a block" },
		{ "context {\n}\n", "line 1: '' is not a valid context name" },
		{ "context a/b {\n}\n", "line 1: 'a/b' is not a valid context name" },
		{ "context .x {\n}\n", "line 1: '.x' is not a valid context name" },
		{ "context a b {\n}\n", "line 1: 'a b' is not a valid context name" },
		{ "context a\x7f {\n}\n", "line 1: 'a\x7f' is not a valid context name" },
		{ "context a\x01b {\n}\n", "line 1: 'a\x01b' is not a valid context name" },
		{ "context a {\n}\ncontext a {\n}\n", "line 3: context a is already defined on line 1" },
		{ "context a {\n\tsample_us 1\n\tsample_us 2\n}\n", "line 3: 'sample_us' is already set on line 2" },
		{ "context a {\n\tscheme s {\n\t\tquotas q {\n\t\t}\n\t}\n}\n", "line 3: 'quotas' takes no name" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t}\n\t\tquotas {\n\t\t}\n\t}\n}\n", "line 5: quotas is already defined on line 3" },
		{ "context a {\n\tscheme s {\n\t\taccess_pattern {\n\t\t\tms 1\n\t\t}\n\t}\n}\n", "line 4: unknown key 'ms' in a access_pattern block" },
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct conf_node *root = conf_parse(cases[i].text, err,
						    sizeof(err));

		if (root || strncmp(err, cases[i].err, strlen(cases[i].err))) {
			printf("#   case %zu: got \"%s\"\n", i, root ? "(parsed)" : err);
			conf_free(root);
			return -1;
		}
	}
	return 0;
}

/* Every class of bad value and broken relation, and what is not checked. */
static int test_conf_validate_errors(void)
{
	static const struct bad_case cases[] = {
		/* values */
		{ "context a {\n\tsample_us 0x10\n}\n", "line 2: sample_us: '0x10' is not a decimal number" },
		{ "context a {\n\tsample_us -1\n}\n", "line 2: sample_us: '-1' is not a decimal number" },
		{ "context a {\n\tsample_us\n}\n", "line 2: sample_us: '' is not a decimal number" },
		{ "context a {\n\tsample_us 0\n}\n", "line 2: sample_us: 0 is out of range 1..18446744073709551615" },
		{ "context a {\n\tsample_us 18446744073709551616\n}\n", "line 2: sample_us: 18446744073709551616 is out of range" },
		{ "context a {\n\tmin_nr_regions 2\n}\n", "line 2: min_nr_regions: 2 is out of range 3..100000" },
		{ "context a {\n\tmax_nr_regions 100001\n}\n", "line 2: max_nr_regions: 100001 is out of range" },
		{ "context a {\n\toperations paddr2\n}\n", "line 2: operations: 'paddr2' is not one of vaddr fvaddr paddr" },
		{ "context a {\n\tstate ON\n}\n", "line 2: state: 'ON' is not one of on off" },
		{ "context a {\n\ttarget t {\n\t\tpid 0\n\t}\n}\n", "line 3: pid: 0 is out of range" },
		{ "context a {\n\ttarget t {\n\t\tpid 12 34\n\t}\n}\n", "line 3: pid: '12 34' is not a decimal number" },
		{ "context a {\n\ttarget t {\n\t\tcommand\n\t}\n}\n", "line 3: command: empty" },
		{ "context a {\n\ttarget t {\n\t\tunit a/b\n\t}\n}\n", "line 3: unit: 'a/b' is not a valid name" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t\tunit x\n\t}\n}\n", "line 2: target t: give only one of pid, command and unit" },
		{ "context a {\n\tscheme s {\n\t\taction page_out\n\t}\n}\n", "line 3: action: 'page_out' is not one of" },
		{ "context a {\n\tscheme s {\n\t\taccess_pattern {\n\t\t\tmax_age 4294967296\n\t\t}\n\t}\n}\n", "line 4: max_age: 4294967296 is out of range 0..4294967295" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tweight_age 10001\n\t\t}\n\t}\n}\n", "line 4: weight_age: 10001 is out of range 0..10000" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\treset_interval_ms 0\n\t\t}\n\t}\n}\n", "line 4: reset_interval_ms: 0 is out of range" },
		{ "context a {\n\tscheme s {\n\t\twatermarks {\n\t\t\tmid 1001\n\t\t}\n\t}\n}\n", "line 4: mid: 1001 is out of range 0..1000" },
		{ "context a {\n\tscheme s {\n\t\twatermarks {\n\t\t\tmetric free_mem\n\t\t}\n\t}\n}\n", "line 4: metric: 'free_mem' is not one of none free_mem_rate" },
		{ "context a {\n\tscheme s {\n\t\tfilter f {\n\t\t\tmatching yes\n\t\t}\n\t}\n}\n", "line 4: matching: 'yes' is not Y or N" },
		{ "context a {\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype file\n\t\t}\n\t}\n}\n", "line 4: type: 'file' is not one of anon addr target memcg young" },
		{ "context a {\n\tscheme s {\n\t\taction migrate\n\t}\n}\n", "line 3: action: 'migrate' is not one of willneed cold pageout hugepage nohugepage stat lru_prio lru_deprio migrate_hot migrate_cold" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid one\n\t}\n}\n", "line 3: target_nid: 'one' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid 0x1\n\t}\n}\n", "line 3: target_nid: '0x1' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid\n\t}\n}\n", "line 3: target_nid: '' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid -2\n\t}\n}\n", "line 3: target_nid: -2 is out of range -1..1023" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid 1024\n\t}\n}\n", "line 3: target_nid: 1024 is out of range -1..1023" },
		{ "context a {\n\tscheme s {\n\t\ttarget_nid 99999999999999999999\n\t}\n}\n", "line 3: target_nid: 99999999999999999999 is out of range -1..1023" },
		{ "context a {\n\tscheme s {\n\t\tfilter f {\n\t\t\tmemcg_path workload.slice\n\t\t}\n\t}\n}\n", "line 4: memcg_path: 'workload.slice' is not a path from the cgroup root (starting with '/')" },
		/* relations, for contexts to be turned on */
		{ "context a {\n\tsample_us 6000\n\taggr_us 5000\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 3: context a: needs sample_us (6000) <= aggr_us (5000) <= update_us (1000000)" },
		{ "context a {\n\tupdate_us 50000\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 1: context a: needs sample_us (5000) <= aggr_us (100000) <= update_us (50000)" },
		{ "context a {\n\tsample_us 1\n\taggr_us 4294967296\n\tupdate_us 4294967296\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 3: context a: aggr_us / sample_us must be below 2^32" },
		{ "context a {\n\tmin_nr_regions 2000\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 2: context a: needs min_nr_regions <= max_nr_regions" },
		{ "context a {\n\tstate on\n}\n", "line 2: context a: needs a target to be on" },
		{ "context a {\n\ttarget t {\n\t}\n\tstate on\n}\n", "line 2: target t: needs a pid, command or unit to be on" },
		{ "context a {\n\toperations fvaddr\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 3: target t: fvaddr needs at least one region" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t\tregion r {\n\t\t\tstart 8192\n\t\t\tend 8192\n\t\t}\n\t}\n\tstate on\n}\n", "line 4: region r: start (8192) must be below end (8192)" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t\tregion r {\n\t\t\tstart 0\n\t\t\tend 4097\n\t\t}\n\t\tregion q {\n\t\t\tstart 8000\n\t\t\tend 9000\n\t\t}\n\t}\n\tstate on\n}\n", "line 2: target t: regions overlap (once rounded out to pages)" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\taccess_pattern {\n\t\t\tmin_age 5\n\t\t\tmax_age 4\n\t\t}\n\t}\n\tstate on\n}\n", "line 7: scheme s: min_age exceeds max_age" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\twatermarks {\n\t\t\tmetric free_mem_rate\n\t\t\thigh 100\n\t\t\tmid 200\n\t\t}\n\t}\n\tstate on\n}\n", "line 7: scheme s: watermarks need low <= mid <= high" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype addr\n\t\t}\n\t}\n\tstate on\n}\n", "line 6: filter f: addr needs addr_start < addr_end" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype target\n\t\t\ttarget u\n\t\t}\n\t}\n\tstate on\n}\n", "line 8: filter f: target 'u' is not a target of context a" },
		/* paddr: one target, no process; migrate actions need a node,
		 * the line of target_nid if given, else of action */
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t\tpid 1\n\t}\n\tstate on\n}\n", "line 3: target t: paddr takes no pid, command or unit" },
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\ttarget u {\n\t}\n\tstate on\n}\n", "line 5: target u: paddr takes only one target" },
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\taction migrate_cold\n\t}\n\tstate on\n}\n", "line 6: scheme s: migrate_cold needs a target_nid (a node, not -1)" },
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\taction migrate_hot\n\t\tapply_interval_us 0\n\t\ttarget_nid -1\n\t}\n\tstate on\n}\n", "line 8: scheme s: migrate_hot needs a target_nid (a node, not -1)" },
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\ttarget_nid -01\n\t\taction migrate_hot\n\t}\n\tstate on\n}\n", "line 6: scheme s: migrate_hot needs a target_nid" },
		/* a memcg filter needs a cgroup: the line of memcg_path if
		 * given, else of type */
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype memcg\n\t\t}\n\t}\n\tstate on\n}\n", "line 7: filter f: memcg needs a memcg_path" },
		{ "context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype memcg\n\t\t\tmatching N\n\t\t\tmemcg_path\n\t\t}\n\t}\n\tstate on\n}\n", "line 9: filter f: memcg needs a memcg_path" },
		/* quota goals: values always; at on, a target_value and the
		 * memcg metrics' cgroup */
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_metric node_mem_free\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: target_metric: 'node_mem_free' is not one of user_input some_mem_psi_us node_mem_used_bp node_mem_free_bp node_memcg_used_bp node_memcg_free_bp active_mem_bp inactive_mem_bp" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_value -1\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: target_value: '-1' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_value 18446744073709551616\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: target_value: 18446744073709551616 is out of range 0..18446744073709551615" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tcurrent_value 1.5\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: current_value: '1.5' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tnid -1\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: nid: '-1' is not a decimal number" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tnid 1024\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: nid: 1024 is out of range 0..1023" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tmemcg_path db.service\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: memcg_path: 'db.service' is not a path from the cgroup root (starting with '/')" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_metric some_mem_psi_us\n\t\t\t\tcurrent_value 5\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 6: goal g: current_value is for user_input goals (the kernel measures some_mem_psi_us)" },
		{ "context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\tcurrent_value 5\n\t\t\t\ttarget_metric active_mem_bp\n\t\t\t}\n\t\t}\n\t}\n}\n", "line 5: goal g: current_value is for user_input goals (the kernel measures active_mem_bp)" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n", "line 7: goal g: needs a target_value other than 0" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_value 0\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n", "line 8: goal g: needs a target_value other than 0" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_value 10\n\t\t\t\ttarget_metric node_memcg_free_bp\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n", "line 9: goal g: node_memcg_free_bp needs a memcg_path" },
		{ "context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_metric node_memcg_used_bp\n\t\t\t\ttarget_value 10\n\t\t\t\tmemcg_path\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n", "line 10: goal g: node_memcg_used_bp needs a memcg_path" },
	};
	/* the same broken relations are fine while the context stays off */
	static const char *const ok_off[] = {
		"context a {\n\tsample_us 6000\n\taggr_us 5000\n\tstate off\n}\n",
		"context a {\n\ttarget t {\n\t}\n}\n",
		"context a {\n\toperations fvaddr\n\ttarget t {\n\t\tregion r {\n\t\t\tstart 5\n\t\t\tend 1\n\t\t}\n\t}\n}\n",
		"context a {\n\tscheme s {\n\t\tfilter f {\n\t\t\ttype target\n\t\t\ttarget u\n\t\t}\n\t}\n}\n",
		"context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\taction migrate_cold\n\t\tfilter f {\n\t\t\ttype memcg\n\t\t}\n\t}\n}\n",
		/* a node is needed by migrate actions only; -1 and 0 are nodes
		 * to write, whether they have memory only "on" can tell */
		"context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\taction lru_deprio\n\t\ttarget_nid -1\n\t\tfilter f {\n\t\t\ttype young\n\t\t\tmemcg_path /x\n\t\t}\n\t}\n\tstate on\n}\n",
		"context a {\n\toperations paddr\n\ttarget t {\n\t}\n\tscheme s {\n\t\taction migrate_cold\n\t\ttarget_nid +0\n\t}\n\tstate on\n}\n",
		/* a goal with no target_value or cgroup while off; nid and
		 * memcg_path of metrics that do not use them */
		"context a {\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_metric node_memcg_used_bp\n\t\t\t}\n\t\t}\n\t}\n}\n",
		"context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_value 1\n\t\t\t\tnid 1023\n\t\t\t\tmemcg_path /x\n\t\t\t\tcurrent_value 7\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n",
		"context a {\n\ttarget t {\n\t\tpid 1\n\t}\n\tscheme s {\n\t\tquotas {\n\t\t\tgoal g {\n\t\t\t\ttarget_metric node_mem_used_bp\n\t\t\t\ttarget_value 1\n\t\t\t\tmemcg_path\n\t\t\t}\n\t\t}\n\t}\n\tstate on\n}\n",
	};
	struct conf_node *root;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		root = conf_parse(cases[i].text, err, sizeof(err));
		if (!root) {
			printf("#   case %zu does not parse: %s\n", i, err);
			return -1;
		}
		if (!conf_validate(root, err, sizeof(err)) ||
		    strncmp(err, cases[i].err, strlen(cases[i].err))) {
			printf("#   case %zu: got \"%s\"\n", i, err);
			conf_free(root);
			return -1;
		}
		conf_free(root);
	}
	for (i = 0; i < sizeof(ok_off) / sizeof(ok_off[0]); i++) {
		root = conf_parse(ok_off[i], err, sizeof(err));
		CHECK(root);
		if (conf_validate(root, err, sizeof(err))) {
			printf("#   off case %zu: %s\n", i, err);
			conf_free(root);
			return -1;
		}
		conf_free(root);
	}
	return 0;
}

/* ------------------------------------------------------------ targets */

static int mkproc(const char *root, const char *pid, const char *cmdline,
		  size_t cmdlen, const char *cgroup, const char *start)
{
	char *d = xasprintf("%s/%s", root, pid), *p;
	FILE *f;

	mkdir(d, 0755);
	p = xasprintf("%s/cmdline", d);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fwrite(cmdline, 1, cmdlen, f);
	fclose(f);
	free(p);
	p = xasprintf("%s/cgroup", d);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs(cgroup, f);
	fclose(f);
	free(p);
	p = xasprintf("%s/stat", d);
	f = fopen(p, "w");
	if (!f)
		return -1;
	/* field 22 is starttime; comm with spaces and parens */
	fprintf(f, "%s (a (b) c) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %s 100 1\n",
		pid, start);
	fclose(f);
	free(p);
	free(d);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int test_resolve(void)
{
	char root[] = "/tmp/damo-unit-proc.XXXXXX", *p;
	long pid = 0;

	CHECK(mkdtemp(root));
	CHECK(!mkproc(root, "100", "/usr/bin/app\0--flag\0two\0", 24,
		      "0::/system.slice/app.service\n", "500"));
	CHECK(!mkproc(root, "101", "/usr/bin/app\0--flag\0", 20,
		      "0::/system.slice/app.service\n", "400"));
	CHECK(!mkproc(root, "102", "/usr/bin/other\0", 15,
		      "12:cpu:/user.slice\n0::/system.slice/db.service\n", "300"));
	CHECK(!mkproc(root, "103", "/usr/bin/other\0", 15,
		      "0::/user.slice/session-1.scope\n", "200"));
	p = xasprintf("%s/self", root);
	mkdir(p, 0755);
	free(p);

	CHECK(resolve_command(root, "/usr/bin/app --flag two", &pid) == 0);
	CHECK(pid == 100);
	CHECK(resolve_command(root, "/usr/bin/app --flag", &pid) == 0);
	CHECK(pid == 101);
	CHECK(resolve_command(root, "/usr/bin/app", &pid) == -ESRCH);
	CHECK(resolve_command(root, "/usr/bin/other", &pid) == -EEXIST);
	/* the oldest process of the unit; ".service" is implied */
	CHECK(resolve_unit(root, "app.service", &pid) == 0 && pid == 101);
	CHECK(resolve_unit(root, "app", &pid) == 0 && pid == 101);
	CHECK(resolve_unit(root, "db.service", &pid) == 0 && pid == 102);
	CHECK(resolve_unit(root, "web.service", &pid) == -ESRCH);
	CHECK(resolve_command("/nonexistent-proc", "x", &pid) == -ENOENT);
	CHECK(!nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS));
	return 0;
}

/* ------------------------------------------------------------ cmdline */

static int seen_argc;
static const char *seen_name;

static int fake_cmd(int argc, char **argv)
{
	seen_argc = argc;
	seen_name = argv[0];
	return 7;
}

/* The usage text comes from the table; dispatch finds hidden names too. */
static int test_cmd_table(void)
{
	static const struct damo_cmd cmds[] = {
		{ "one", fake_cmd, "the first" },
		{ "second", fake_cmd, "two lines:\nthe second" },
		{ "--hidden", fake_cmd, NULL },
	};
	static const struct cmd_group g = {
		"thing", cmds, ARRAY_SIZE(cmds), "# head\n", "# foot\n",
	};
	char *argv[] = { "prog", "--hidden", "arg", NULL };
	char *bad[] = { "prog", "three", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	cmd_usage(f, &g);
	fclose(f);
	/* names padded to the longest listed one and three spaces */
	CHECK(!strcmp(buf, "# head\n"
		      "  one      the first\n"
		      "  second   two lines:\n"
		      "           the second\n"
		      "# foot\n"));
	free(buf);
	CHECK(cmd_find(&g, "second") == &cmds[1]);
	CHECK(!cmd_find(&g, "sec"));
	CHECK(cmd_dispatch(&g, 3, argv) == 7);
	CHECK(seen_argc == 2 && !strcmp(seen_name, "--hidden"));
	CHECK(cmd_dispatch(&g, 2, bad) == 1);
	CHECK(cmd_dispatch(&g, 1, bad) == 1);
	return 0;
}

/* OPT_CALL: the argument and the next one, as --range takes three. */
static int take_pair(const struct damo_opt *o, const char *arg, int argc,
		     char **argv)
{
	if (optind >= argc)
		return -EINVAL;
	snprintf(o->value, 32, "%s+%s", arg, argv[optind++]);
	return 0;
}

struct parsed {
	const char *str;
	bool set, clear;
	uint64_t u;
	int64_t i;
	int n;
	bool u_given, n_given;
	char pair[32];
};

static int parse_with(struct parsed *p, char **argv, bool in_order)
{
	static const struct num_rule any = { "a number", true, 0, UINT64_MAX };
	static const struct num_rule few = { "1..9", false, 1, 9 };
	int argc = 0;
	struct damo_opt opts[] = {
		OPT_STRING('s', "str", &p->str),
		OPT_SET('y', "yes", &p->set),
		OPT_CLEAR(0, "no", &p->clear),
		OPT_U64('u', "u64", &p->u, &any, &p->u_given),
		OPT_I64(0, "i64", &p->i, &any, NULL),
		OPT_INT('n', "int", &p->n, &few, &p->n_given),
		OPT_CALL('p', "pair", p->pair, take_pair),
		/* a TAP comment, as it goes to stdout */
		{ .name = "help", .letter = 'h', .kind = OPTK_HELP },
		OPT_END(),
	};

	while (argv[argc])
		argc++;
	memset(p, 0, sizeof(*p));
	p->clear = true;
	return opts_parse(argc, argv, opts, "# usage\n", in_order);
}

static int test_opts_parse(void)
{
	char *all[] = { "cmd", "-s", "x", "--yes", "--no", "-u", "0x10",
			"--i64=12", "-n", "9", "op", "-p", "a", "b", NULL };
	char *order[] = { "cmd", "op", "-y", NULL };
	char *err1[] = { "cmd", "-n", "0", NULL };
	char *err2[] = { "cmd", "--u64", "1x", NULL };
	char *err3[] = { "cmd", "--what", NULL };
	char *err4[] = { "cmd", "-p", "a", NULL };
	char *help[] = { "cmd", "-y", "-h", "-n", "x", NULL };
	struct damo_opt labelled = { .name = "x", .label = "x_us" };
	struct damo_opt plain = { .name = "x" };
	struct parsed p;

	CHECK(parse_with(&p, all, false) == OPTS_GO_ON);
	CHECK(!strcmp(p.str, "x") && p.set && !p.clear);
	CHECK(p.u == 16 && p.u_given && p.i == 12 && p.n == 9 && p.n_given);
	CHECK(!strcmp(p.pair, "a+b"));
	/* getopt permuted the operand behind the options */
	CHECK(optind == 13 && !strcmp(all[optind], "op"));
	/* in order: options end at the first operand; parsing starts afresh */
	CHECK(parse_with(&p, order, true) == OPTS_GO_ON);
	CHECK(optind == 1 && !p.set);
	CHECK(parse_with(&p, order, false) == OPTS_GO_ON && p.set);
	/* bad values: exit status 1, nothing taken as given */
	CHECK(parse_with(&p, err1, false) == 1 && !p.n_given);
	CHECK(parse_with(&p, err2, false) == 1 && !p.u_given);
	CHECK(parse_with(&p, err3, false) == 1);
	CHECK(parse_with(&p, err4, false) == 1);
	/* --help: exit status 0, what follows is not looked at */
	CHECK(parse_with(&p, help, false) == 0 && p.set && !p.n_given);
	CHECK(!strcmp(opt_label(&labelled), "x_us"));
	CHECK(!strcmp(opt_label(&plain), "--x"));
	return 0;
}

/* ------------------------------------------------------------ heatmap */

#ifndef DAMO_NO_CAIRO
static int test_heatmap_png(void)
{
	/* the type is the extension: ".png" after mkstemps()' X's */
	char path[] = "/tmp/damo-unit-png.XXXXXX.png";
	struct heats_args a = { .tres = 100, .ares = 100 };
	cairo_surface_t *s;
	struct record rec;
	struct heats h;
	unsigned char *px;
	uint32_t hot, cold;
	int fd, stride;

	fd = mkstemps(path, strlen(".png"));
	CHECK(fd >= 0);
	close(fd);
	CHECK(load_simple(&rec) == 0);
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(heatmap_png(&h, path, "test") == 0);
	s = cairo_image_surface_create_from_png(path);
	CHECK(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS);
	CHECK(cairo_image_surface_get_width(s) == 1000);
	CHECK(cairo_image_surface_get_height(s) == 640);
	px = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	/*
	 * The plot spans x 150..860, y 50..570, addresses upwards: late in
	 * time, [4096, 8192) (the bottom quarter) is the hottest, white;
	 * [16384, 20480) (the top quarter) is never accessed, black.
	 */
	hot = *(uint32_t *)(px + 540 * stride + 800 * 4) & 0xffffff;
	cold = *(uint32_t *)(px + 80 * stride + 800 * 4) & 0xffffff;
	/* the ends of the colour scale: near white and near black */
	CHECK((hot >> 16) > 0xf0 && ((hot >> 8) & 0xff) > 0xf0 &&
	      (hot & 0xff) > 0xd0);
	CHECK((cold >> 16) < 0x10 && ((cold >> 8) & 0xff) < 0x10 &&
	      (cold & 0xff) < 0x10);
	cairo_surface_destroy(s);
	unlink(path);
	CHECK(heatmap_png(&h, "/nonexistent/dir/x.png", "t") == -EIO);
	heats_free(&h);
	rec_free(&rec);
	return 0;
}

/* path starts with magic (its first bytes). */
static int starts_with(const char *path, const char *magic)
{
	char buf[16] = "";
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n >= strlen(magic) && !memcmp(buf, magic, strlen(magic));
}

/* The extension is the type; an unknown one writes nothing. */
static int test_image_types(void)
{
	static const struct { const char *name, *magic; } types[] = {
		{ "h.svg", "<?xml" }, { "h.pdf", "%PDF-" },
		{ "h.PNG", "\x89PNG" },
	};
	char dir[] = "/tmp/damo-unit-img.XXXXXX", path[64];
	struct heats_args a = { .tres = 10, .ares = 10 };
	struct plot_series s = { .pid = 1 };
	double x[] = { 0, 50, 100 }, y[] = { 1, 2, 3 };
	struct record rec;
	struct heats h;
	size_t i;

	CHECK(mkdtemp(dir));
	CHECK(load_simple(&rec) == 0);
	CHECK(heats_compute(&rec, &a, &h) == 0);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, types[i].name);
		CHECK(heatmap_png(&h, path, "t") == 0);
		CHECK(starts_with(path, types[i].magic));
		CHECK(unlink(path) == 0);
	}
	s.n = ARRAY_SIZE(x);
	s.x = x;
	s.y = y;
	snprintf(path, sizeof(path), "%s/p.pdf", dir);
	CHECK(plot_png(path, &s, 1, "x", "y", "t") == 0);
	CHECK(starts_with(path, "%PDF-"));
	CHECK(unlink(path) == 0);
	snprintf(path, sizeof(path), "%s/h.jpg", dir);
	CHECK(heatmap_png(&h, path, "t") == -EINVAL);
	CHECK(plot_png(path, &s, 1, "x", "y", "t") == -EINVAL);
	snprintf(path, sizeof(path), "%s/png", dir);
	CHECK(heatmap_png(&h, path, "t") == -EINVAL);
	CHECK(rmdir(dir) == 0);		/* nothing left in it */
	heats_free(&h);
	rec_free(&rec);
	return 0;
}
#else
/* Built without cairo: images fail, saying so, and nothing is written. */
static int test_heatmap_png(void)
{
	char path[] = "/tmp/damo-unit-png.XXXXXX";
	struct heats_args a = { .tres = 100, .ares = 100 };
	struct record rec;
	struct heats h;

	CHECK(load_simple(&rec) == 0);
	CHECK(heats_compute(&rec, &a, &h) == 0);
	CHECK(heatmap_png(&h, path, "test") == -ENOTSUP);
	CHECK(access(path, F_OK) && errno == ENOENT);
	heats_free(&h);
	rec_free(&rec);
	return 0;
}
#endif

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: unit COUNTS_FILE\n");
		return 2;
	}
	damo_prog = "damo(unit)";
	run("record: write and parse back, byte layout", test_rec_roundtrip);
	run("record: an empty file has no snapshots", test_rec_empty);
	run("record: an incomplete last snapshot is dropped and counted", test_rec_truncated);
	run("record: malformed data fails with the offset", test_rec_malformed);
	run("record: empty, cut in the first snapshot, byte-swapped: errors", test_rec_unusable);
	run("heats: known answers on a crafted record", test_heats_known);
	run("heats: defaults and errors", test_heats_errors);
	run("guide: time spans and merged monitored ranges per pid", test_guides);
	run("numbers: strict decimal and hex parsing", test_parse_u64);
	run("numbers: signed decimal parsing", test_parse_s64);
	run("conf: a full file parses and validates", test_conf_parse_full);
	run("conf: print and parse round-trip", test_conf_roundtrip);
	run("conf: paddr, migrate actions and target_nid, memcg and young filters; text and JSON round-trip", test_conf_paddr);
	run("conf: quota goals in quotas; text and JSON round-trip; where they may be", test_conf_goals);
	run("conf: intervals_goal in a context; defaults, tuning, values, relations; text and JSON", test_conf_intervals);
	run("status: estimated bandwidth and idle time percentiles of known regions", test_access_stats);
	run("conf: every class of syntax error, with its line", test_conf_parse_errors);
	run("conf: every class of invalid value and relation", test_conf_validate_errors);
	run("targets: command and unit resolution on a fake /proc", test_resolve);
#ifndef DAMO_NO_CAIRO
	run("heatmap: PNG size and colours", test_heatmap_png);
	run("images: PNG, SVG, PDF by extension; others refused", test_image_types);
#else
	run("heatmap: built without cairo, images fail", test_heatmap_png);
#endif
	run("cmdline: the usage list and dispatch from a command table", test_cmd_table);
	run("cmdline: every kind of option in a table; order; errors", test_opts_parse);
	printf("# unit: %d passed, %d failed\n", passed, failed);
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "%d %d 0\n", passed, failed);
	fclose(f);
	return failed ? 1 : 0;
}
