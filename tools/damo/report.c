// SPDX-License-Identifier: GPL-2.0
/*
 * damo report: raw, heats, wss, nr_regions and heatmap, with the seed's
 * options and output formats (the .py scripts of the seed tools/damon).
 * raw and wss show sizes and times in units (fmt_fig()), and the seed's
 * plain numbers with --raw-numbers; raw, wss and nr_regions print JSON
 * with --json (the schemas are in Documentation/damo.1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "damo.h"

#define STR_(x)		#x
#define STR(x)		STR_(x)

/* heats: bins per axis by default, and at the most */
#define DEFAULT_RESOLUTION	500
#define MAX_RESOLUTION		1000000
/* the width assumed when the terminal's is unknown or below the minimum */
#define DEFAULT_TERM_WIDTH	80
#define MIN_TERM_WIDTH		20

/* Whether getopt left operands: the report commands take none. */
static bool extra_args(int argc, char **argv)
{
	if (optind == argc)
		return false;
	damo_err("unexpected argument '%s'", argv[optind]);
	return true;
}

/*
 * The options, then the record of --input; OPTS_GO_ON or the exit status.
 * *input is read after the options, which may set it.
 */
static int parse_and_load(int argc, char **argv, const struct damo_opt *opts,
			  const char *usage, bool in_order,
			  const char *const *input, struct record *rec)
{
	int rc = opts_parse(argc, argv, opts, usage, in_order);

	if (rc != OPTS_GO_ON)
		return rc;
	if (extra_args(argc, argv) || rec_load(*input, rec))
		return 1;
	return OPTS_GO_ON;
}

static void print_guides(FILE *out, const struct guide *g, size_t nr)
{
	size_t i, k;

	for (i = 0; i < nr; i++) {
		fprintf(out, "pid:%llu\n", (unsigned long long)g[i].pid);
		fprintf(out, "time: %lld-%lld (%lld)\n",
			(long long)g[i].start_time, (long long)g[i].end_time,
			(long long)(g[i].end_time - g[i].start_time));
		for (k = 0; k < g[i].nr_ranges; k++)
			fprintf(out, "region\t%2zu: %020llu-%020llu (%llu)\n", k,
				(unsigned long long)g[i].ranges[k][0],
				(unsigned long long)g[i].ranges[k][1],
				(unsigned long long)(g[i].ranges[k][1] -
						     g[i].ranges[k][0]));
	}
}

/* Python's repr() prints exponents from 10^16 and below 10^-4. */
#define REPR_EXP_MIN	(-4)
#define REPR_EXP_MAX	16

/* A double the way Python's repr() prints it: shortest, with ".0". */
static void fmt_double(char *buf, size_t len, double v)
{
	int p, exp = 0, dec;
	char *e;

	/* the fewest significant digits that read back as v */
	for (p = 1; p <= DBL_DECIMAL_DIG; p++) {
		snprintf(buf, len, "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (p > DBL_DECIMAL_DIG)
		p = DBL_DECIMAL_DIG;
	e = strchr(buf, 'e');
	if (e)
		exp = atoi(e + 1);
	if (!isfinite(v) || exp < REPR_EXP_MIN || exp >= REPR_EXP_MAX)
		return;		/* scientific, as printed */
	dec = p - 1 - exp;
	snprintf(buf, len, "%.*f", dec > 0 ? dec : 0, v);
	if (!strchr(buf, '.'))
		strncat(buf, ".0", len - strlen(buf) - 1);
}

static void print_heats(FILE *out, const struct heats *h)
{
	char buf[64];
	int t, a;

	for (t = 0; t < h->tres; t++)
		for (a = 0; a < h->ares; a++) {
			fmt_double(buf, sizeof(buf), h->heat[t * h->ares + a]);
			fprintf(out, "%lld\t%llu\t%s\n",
				(long long)(t * h->tunit),
				(unsigned long long)(a * h->aunit), buf);
		}
}

/* ------------------------------------------------------------ raw */

/* Room for a signed figure: fmt_fig()'s and a '-'. */
#define SFIG_LEN		(FIG_LEN + 1)

/* A time in ns that may be negative (a snapshot before the first). */
static const char *fmt_sns(char buf[SFIG_LEN], int64_t ns, bool raw)
{
	if (raw || ns >= 0) {
		if (raw)
			snprintf(buf, SFIG_LEN, "%lld", (long long)ns);
		else
			fmt_fig(buf, (uint64_t)ns, FIG_NS, false);
		return buf;
	}
	buf[0] = '-';
	fmt_fig(buf + 1, -(uint64_t)ns, FIG_NS, false);
	return buf;
}

/* The seed's text; with units unless raw (then the seed's, byte for byte). */
static void print_raw(FILE *out, const struct record *rec, bool raw)
{
	char buf[SFIG_LEN];
	int64_t start = 0;
	size_t i;
	uint32_t ti, ri;

	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];

		if (!i) {
			start = s->time_ns;
			fprintf(out, "start_time:  %s\n",
				fmt_sns(buf, start, raw));
		}
		fprintf(out, "rel time: %16s\n",
			fmt_sns(buf, s->time_ns - start, raw));
		fprintf(out, "nr_tasks:  %u\n", s->nr_tasks);
		for (ti = 0; ti < s->nr_tasks; ti++) {
			const struct rec_task *t = &s->tasks[ti];

			fprintf(out, "pid:  %llu\n", (unsigned long long)t->pid);
			fprintf(out, "nr_regions:  %u\n", t->nr_regions);
			for (ri = 0; ri < t->nr_regions; ri++) {
				const struct rec_region *r = &t->regions[ri];

				fprintf(out, "%012llx-%012llx(%10s):\t%u\n",
					(unsigned long long)r->start,
					(unsigned long long)r->end,
					fmt_fig(buf, r->end - r->start,
						FIG_BYTES, raw),
					r->nr_accesses);
			}
			fputc('\n', out);
		}
	}
}

static void put_raw_task_json(FILE *out, const struct rec_task *t)
{
	uint32_t ri;

	fprintf(out, "{\"pid\": %llu, \"nr_regions\": %u, \"regions\": [",
		(unsigned long long)t->pid, t->nr_regions);
	for (ri = 0; ri < t->nr_regions; ri++) {
		const struct rec_region *r = &t->regions[ri];

		fprintf(out, "%s\n      {\"start\": %llu, \"end\": %llu, \"size\": %llu, \"nr_accesses\": %u}",
			ri ? "," : "", (unsigned long long)r->start,
			(unsigned long long)r->end,
			(unsigned long long)(r->end - r->start),
			r->nr_accesses);
	}
	fputs("]}", out);
}

/* The same as JSON: the schema is in damo.1. */
static void print_raw_json(FILE *out, const struct record *rec)
{
	int64_t start = rec->snapshots[0].time_ns;
	size_t i;
	uint32_t ti;

	fprintf(out, "{\"start_time_ns\": %lld,\n \"intervals\": ",
		(long long)start);
	if (rec->has_intervals)
		fprintf(out, "{\"sample_us\": %llu, \"aggr_us\": %llu, \"update_us\": %llu}",
			(unsigned long long)rec->sample_us,
			(unsigned long long)rec->aggr_us,
			(unsigned long long)rec->update_us);
	else
		fputs("null", out);
	fputs(",\n \"snapshots\": [", out);
	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];

		fprintf(out, "%s\n  {\"time_ns\": %lld, \"rel_time_ns\": %lld, \"tasks\": [",
			i ? "," : "", (long long)s->time_ns,
			(long long)(s->time_ns - start));
		for (ti = 0; ti < s->nr_tasks; ti++) {
			fputs(ti ? ",\n    " : "\n    ", out);
			put_raw_task_json(out, &s->tasks[ti]);
		}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
}

/* ------------------------------------------------------------ wss, nr_regions */

enum dist_metric { DIST_WSS, DIST_NR_REGIONS };

/* Percentiles of a metric, as the seed's wss and nr_regions print them. */
struct dist_args {
	int start, stop, step;		/* range(start, stop, step) */
	bool sort;			/* by size (default) or by time */
	uint64_t skip;			/* each pid's first snapshots to skip */
};

/* the seed's defaults: 0 25 50 75 100, after 20 snapshots */
#define DIST_DEFAULT_START	0
#define DIST_DEFAULT_STOP	101
#define DIST_DEFAULT_STEP	25
#define DIST_DEFAULT_SKIP	20

/* How many percentiles range(start, stop, step) has (step is not 0). */
static int dist_range_nr(const struct dist_args *d)
{
	int n = (d->stop - d->start + d->step + (d->step > 0 ? -1 : 1)) /
		d->step;

	return n > 0 ? n : 0;
}

static int dist_range_at(const struct dist_args *d, int i)
{
	return d->start + i * d->step;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The metric of one task's regions: accessed bytes, or regions. */
static uint64_t metric_of(const struct rec_task *t, enum dist_metric m)
{
	uint64_t v = 0;
	uint32_t ri;

	if (m == DIST_NR_REGIONS)
		return t->nr_regions;
	for (ri = 0; ri < t->nr_regions; ri++)
		if (t->regions[ri].nr_accesses)
			v += t->regions[ri].end - t->regions[ri].start;
	return v;
}

/* pid's values, in time order, but for the first d->skip; how many. */
static size_t values_of(const struct record *rec, uint64_t pid,
			enum dist_metric m, const struct dist_args *d,
			uint64_t *vals)
{
	size_t i, nr = 0;
	uint64_t seen = 0;
	uint32_t ti;

	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];

		for (ti = 0; ti < s->nr_tasks; ti++) {
			if (s->tasks[ti].pid != pid || seen++ < d->skip)
				continue;
			vals[nr++] = metric_of(&s->tasks[ti], m);
		}
	}
	return nr;
}

/* One target's distribution: what wss and nr_regions print of it. */
struct dist {
	uint64_t pid;
	size_t nr_values;		/* its snapshots after --skip */
	uint64_t avg;			/* the average, rounded down */
	uint64_t *at;			/* at[k]: at dist_range_at(d, k) */
};

/* The average and the percentiles of nr values (nr > 0) into t. */
static void dist_fill(struct dist *t, const uint64_t *vals, size_t nr,
		      const struct dist_args *d)
{
	unsigned __int128 sum = 0;
	size_t i;
	long idx;
	int k;

	for (i = 0; i < nr; i++)
		sum += vals[i];
	t->nr_values = nr;
	t->avg = (uint64_t)(sum / nr);
	t->at = xcalloc(dist_range_nr(d), sizeof(*t->at));
	/* opt_range() made sure every percentile is in 0..100 */
	for (k = 0; k < dist_range_nr(d); k++) {
		/* the seed's index: int(p / 100 * nr), the last for 100 */
		idx = (long)(dist_range_at(d, k) / 100.0 * (double)nr);
		if (idx >= (long)nr)
			idx = (long)nr - 1;
		t->at[k] = vals[idx];
	}
}

static void dists_free(struct dist *t, size_t nr)
{
	size_t k;

	for (k = 0; k < nr; k++)
		free(t[k].at);
	free(t);
}

/*
 * Each pid's distribution, in order of appearance; an error (said) if a
 * pid has no snapshots left after d->skip.
 */
static int dists_of(const struct record *rec, enum dist_metric m,
		    const struct dist_args *d, struct dist **distsp,
		    size_t *nrp)
{
	struct dist *dists;
	uint64_t *pids, *vals;
	size_t nr_pids, nr, k;
	int rc = 0;

	nr_pids = rec_pids(rec, &pids);
	vals = xcalloc(rec->nr_snapshots, sizeof(*vals));
	dists = xcalloc(nr_pids, sizeof(*dists));
	for (k = 0; k < nr_pids; k++) {
		nr = values_of(rec, pids[k], m, d, vals);
		dists[k].pid = pids[k];
		if (!nr) {
			damo_err("pid %llu: no snapshots left after skipping the first %llu (see --skip)",
				 (unsigned long long)pids[k],
				 (unsigned long long)d->skip);
			rc = -EINVAL;
			continue;
		}
		if (d->sort)
			qsort(vals, nr, sizeof(*vals), u64_cmp);
		dist_fill(&dists[k], vals, nr, d);
	}
	free(vals);
	free(pids);
	if (rc) {
		dists_free(dists, nr_pids);
		return rc;
	}
	*distsp = dists;
	*nrp = nr_pids;
	return 0;
}

/* A value of the metric: wss in units unless raw; a number of regions. */
static const char *fmt_metric(char buf[FIG_LEN], uint64_t v,
			      enum dist_metric m, bool raw)
{
	if (m == DIST_WSS)
		return fmt_fig(buf, v, FIG_BYTES, raw);
	snprintf(buf, FIG_LEN, "%llu", (unsigned long long)v);
	return buf;
}

/* The seed's text (with units for wss unless raw). */
static void print_dists(FILE *out, const struct dist *t, size_t nr,
			enum dist_metric m, const struct dist_args *d,
			bool raw)
{
	char buf[FIG_LEN];
	size_t i;
	int k;

	fprintf(out, "# <percentile> <%s>\n",
		m == DIST_WSS ? "wss" : "# regions");
	for (i = 0; i < nr; i++) {
		fprintf(out, "# pid\t%llu\n", (unsigned long long)t[i].pid);
		fprintf(out, "# avr:\t%s\n", fmt_metric(buf, t[i].avg, m, raw));
		for (k = 0; k < dist_range_nr(d); k++)
			fprintf(out, "%d\t%s\n", dist_range_at(d, k),
				fmt_metric(buf, t[i].at[k], m, raw));
	}
}

/* The same as JSON: the schema is in damo.1. */
static void print_dists_json(FILE *out, const struct dist *t, size_t nr,
			     enum dist_metric m, const struct dist_args *d)
{
	size_t i;
	int k;

	fputc('{', out);
	json_put_key(out, "metric");
	json_put_str(out, m == DIST_WSS ? "wss" : "nr_regions");
	fputs(", ", out);
	json_put_key(out, "unit");
	json_put_str(out, m == DIST_WSS ? "bytes" : "regions");
	fputs(", ", out);
	json_put_key(out, "sortby");
	json_put_str(out, d->sort ? "size" : "time");
	fprintf(out, ", \"skip\": %llu,\n \"targets\": [",
		(unsigned long long)d->skip);
	for (i = 0; i < nr; i++) {
		fprintf(out, "%s\n  {\"pid\": %llu, \"nr_snapshots\": %zu, \"average\": %llu,\n   \"percentiles\": [",
			i ? "," : "", (unsigned long long)t[i].pid,
			t[i].nr_values, (unsigned long long)t[i].avg);
		for (k = 0; k < dist_range_nr(d); k++)
			fprintf(out, "%s{\"percentile\": %d, \"value\": %llu}",
				k ? ", " : "", dist_range_at(d, k),
				(unsigned long long)t[i].at[k]);
		fputs("]}", out);
	}
	fputs(nr ? "\n]}\n" : "]}\n", out);
}

/* What --plot draws: the printed percentiles, a line per target. */
static struct plot_series *dists_series(const struct dist *t, size_t nr,
					const struct dist_args *d)
{
	struct plot_series *s = xcalloc(nr, sizeof(*s));
	size_t i;
	int k, n = dist_range_nr(d);

	for (i = 0; i < nr; i++) {
		s[i].pid = t[i].pid;
		s[i].n = n;
		s[i].x = xcalloc(n, sizeof(*s[i].x));
		s[i].y = xcalloc(n, sizeof(*s[i].y));
		for (k = 0; k < n; k++) {
			s[i].x[k] = dist_range_at(d, k);
			s[i].y[k] = (double)t[i].at[k];
		}
	}
	return s;
}

static void series_free(struct plot_series *s, size_t nr)
{
	size_t k;

	for (k = 0; k < nr; k++) {
		free(s[k].x);
		free(s[k].y);
	}
	free(s);
}

/* ------------------------------------------------------------ usage */

static const char heats_usage[] =
"usage: damo report heats [OPTIONS]\n"
"       damo report heatmap [-o FILE] [--term] [--no-color] [OPTIONS]\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n"
"      --pid PID        the target to report (default: the largest)\n"
"      --tres N         time resolution: number of time bins (default 500;\n"
"                       heatmap on a terminal: its width)\n"
"      --ares N         address resolution: number of address bins\n"
"                       (default 500; heatmap on a terminal: 20)\n"
"      --tmin NS, --tmax NS   time range, in the record's ns\n"
"      --amin ADDR, --amax ADDR  address range (decimal or 0x hex; default:\n"
"                       the largest monitored range, said on stderr)\n"
"      --guide          print each target's time span and monitored ranges\n"
"                       (to choose the ranges above)\n"
"heatmap only:\n"
"  -o, --output FILE    write an image, of the type FILE's extension says:\n"
"                       .png, .svg or .pdf; - writes a PNG to stdout\n"
"      --term           draw on the terminal too (the default without -o)\n"
"      --color, --no-color\n"
"                       terminal: ANSI colours or characters (default:\n"
"                       colours on a terminal unless NO_COLOR is set)\n"
"      --title TEXT     the image's title\n";

static const char dist_usage[] =
"usage: damo report wss|nr_regions [OPTIONS] [--json] [--raw-numbers]\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n"
"  -r, --range START STOP STEP\n"
"                       percentiles to print: START, START+STEP, ... below\n"
"                       STOP (default 0 25 50 75 100, inclusive)\n"
"  -s, --sortby size|time\n"
"                       sort the values before taking percentiles (size,\n"
"                       default) or keep them in time order\n"
"      --skip N         ignore each target's first N snapshots, as the\n"
"                       regions are still adapting (default 20)\n"
"  -p, --plot FILE      also draw the values printed, one line per target:\n"
"                       FILE.png, .svg or .pdf; - a PNG to stdout, instead\n"
"                       of the text\n"
"      --json           print JSON instead (schema: man damo)\n"
"      --raw-numbers    wss in plain bytes (\"12288\", not \"12 KiB\"), for\n"
"                       scripts; nr_regions prints plain counts either way\n";

static const char raw_usage[] =
"usage: damo report raw [-i FILE] [--json] [--raw-numbers]\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n"
"      --json           print JSON instead (schema: man damo)\n"
"      --raw-numbers    times in ns and sizes in bytes as plain integers,\n"
"                       the seed's text byte for byte, for scripts\n";

/* ------------------------------------------------------------ heats, heatmap */

static const struct num_rule pid_rule = { "a pid", false, 0, UINT64_MAX };
static const struct num_rule res_rule = {
	"a number in 1.." STR(MAX_RESOLUTION), false, 1, MAX_RESOLUTION,
};
static const struct num_rule time_rule = {
	"a time in ns", true, 0, INT64_MAX,
};
static const struct num_rule addr_rule = {
	"an address", true, 0, UINT64_MAX,
};

struct heats_opts {
	const char *input, *png, *title;
	struct heats_args a;
	bool has_tres, has_ares;
	bool guide, term, color;
};

static int term_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (c && atoi(c) > MIN_TERM_WIDTH)
		return atoi(c);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > MIN_TERM_WIDTH)
		return ws.ws_col;
	return DEFAULT_TERM_WIDTH;
}

/* The time bins of a heatmap as wide as the terminal. */
static int term_tres(void)
{
	return term_width() - HEATMAP_TERM_LEFT;
}

/* The options of heats and heatmap; OPTS_GO_ON or the exit status. */
static int heats_parse(int argc, char **argv, bool heatmap,
		       struct heats_opts *o)
{
	struct heats_args *a = &o->a;
	const struct damo_opt opts[] = {
		OPT_STRING('i', "input", &o->input),
		OPT_U64(0, "pid", &a->pid, &pid_rule, &a->has_pid),
		OPT_INT(0, "tres", &a->tres, &res_rule, &o->has_tres),
		OPT_INT(0, "ares", &a->ares, &res_rule, &o->has_ares),
		OPT_I64(0, "tmin", &a->tmin, &time_rule, &a->has_tmin),
		OPT_I64(0, "tmax", &a->tmax, &time_rule, &a->has_tmax),
		OPT_U64(0, "amin", &a->amin, &addr_rule, &a->has_amin),
		OPT_U64(0, "amax", &a->amax, &addr_rule, &a->has_amax),
		OPT_SET(0, "guide", &o->guide),
		OPT_STRING('o', "output", &o->png),
		OPT_STRING(0, "heatmap", &o->png),	/* the seed's name */
		OPT_SET(0, "term", &o->term),
		OPT_CLEAR(0, "no-color", &o->color),
		OPT_SET(0, "color", &o->color),
		OPT_STRING(0, "title", &o->title),
		OPT_HELP(),
		OPT_END(),
	};
	int r;

	r = opts_parse(argc, argv, opts, heats_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (extra_args(argc, argv))
		return 1;
	if (!heatmap && (o->term || o->title)) {
		damo_err("--term and --title are for `damo report heatmap`");
		return 1;
	}
	if (o->png && IMAGE_TO_STDOUT(o->png) && o->term) {
		damo_err("-o %s and --term both write to standard output",
			 DAMO_IMAGE_STDOUT);
		return 1;
	}
	if (heatmap && !o->png)
		o->term = true;
	if (!o->has_tres)
		a->tres = o->term && !o->png ? term_tres() : DEFAULT_RESOLUTION;
	if (!o->has_ares)
		a->ares = o->term && !o->png ? HEATMAP_TERM_ARES :
			DEFAULT_RESOLUTION;
	return OPTS_GO_ON;
}

/*
 * The terminal heatmap, at the resolution of the PNG drawn beside it if
 * the user gave one, else recomputed at the terminal's.
 */
static int heatmap_to_term(const struct heats_opts *o, const struct heats *h)
{
	struct heats_args a = o->a;
	struct record rec;
	struct heats ht;
	int rc;

	if (o->has_tres || o->has_ares || !o->png) {
		heatmap_term(stdout, h, o->color);
		return 0;
	}
	if (rec_load(o->input, &rec))
		return -EINVAL;
	a.tres = term_tres();
	a.ares = HEATMAP_TERM_ARES;
	rc = heats_compute(&rec, &a, &ht);
	rec_free(&rec);
	if (rc)
		return rc;
	heatmap_term(stdout, &ht, o->color);
	heats_free(&ht);
	return 0;
}

static int heatmap_out(const struct heats_opts *o, const struct heats *h)
{
	char *title;
	int rc = 0;

	if (o->png) {
		title = o->title ? xstrdup(o->title) :
			xasprintf("DAMON heatmap: %s, pid %llu", o->input,
				  (unsigned long long)h->pid);
		rc = heatmap_png(h, o->png, title);
		free(title);
	}
	if (!rc && o->term)
		rc = heatmap_to_term(o, h);
	return rc;
}

static int report_guide(const struct record *rec)
{
	struct guide *g;
	size_t nr;

	guides_of(rec, &g, &nr);
	print_guides(stdout, g, nr);
	guides_free(g, nr);
	return 0;
}

static int report_heats_as(int argc, char **argv, bool heatmap)
{
	struct heats_opts o = {
		.input = DAMO_DEFAULT_RECORD,
		.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
	};
	struct record rec;
	struct heats h;
	int rc;

	rc = heats_parse(argc, argv, heatmap, &o);
	if (rc != OPTS_GO_ON)
		return rc;
	if (rec_load(o.input, &rec))
		return 1;
	if (o.guide)
		rc = report_guide(&rec);
	else
		rc = heats_compute(&rec, &o.a, &h);
	rec_free(&rec);
	if (rc || o.guide)
		return rc ? 1 : 0;
	if (!heatmap && !o.png)
		print_heats(stdout, &h);
	else
		rc = heatmap_out(&o, &h);
	heats_free(&h);
	return rc ? 1 : 0;
}

static int report_heats(int argc, char **argv)
{
	return report_heats_as(argc, argv, false);
}

static int report_heatmap(int argc, char **argv)
{
	return report_heats_as(argc, argv, true);
}

/* ------------------------------------------------------------ wss, nr_regions */

/* --range START STOP STEP: the percentiles range(START, STOP, STEP) */
enum { RANGE_START, RANGE_STOP, RANGE_STEP, NR_RANGE_VALUES };
#define RANGE_VALUE_MAX		1000

/* --range: optarg and the two arguments after it. */
static int opt_range(const struct damo_opt *o, const char *arg, int argc,
		     char **argv)
{
	struct dist_args *d = o->value;
	long v[NR_RANGE_VALUES];
	const char *s;
	char *end;
	int i;

	if (argc - optind < NR_RANGE_VALUES - 1) {
		damo_err("--range needs START STOP STEP");
		return -EINVAL;
	}
	for (i = 0; i < NR_RANGE_VALUES; i++) {
		s = i ? argv[optind + i - 1] : arg;
		v[i] = strtol(s, &end, 10);
		if (!*s || *end || v[i] < -RANGE_VALUE_MAX ||
		    v[i] > RANGE_VALUE_MAX) {
			damo_err("--range: '%s' is not a percentile", s);
			return -EINVAL;
		}
	}
	optind += NR_RANGE_VALUES - 1;
	if (!v[RANGE_STEP]) {
		damo_err("--range: STEP must not be 0");
		return -EINVAL;
	}
	d->start = v[RANGE_START];
	d->stop = v[RANGE_STOP];
	d->step = v[RANGE_STEP];
	/* every percentile it names, before anything is printed */
	if (!dist_range_nr(d)) {
		damo_err("--range: no percentiles from %d to %d by %d (STOP is excluded)",
			 d->start, d->stop, d->step);
		return -EINVAL;
	}
	for (i = 0; i < dist_range_nr(d); i++)
		if (dist_range_at(d, i) < 0 || dist_range_at(d, i) > 100) {
			damo_err("--range: percentile %d is out of 0..100",
				 dist_range_at(d, i));
			return -EINVAL;
		}
	return 0;
}

static int opt_sortby(const struct damo_opt *o, const char *arg, int argc,
		      char **argv)
{
	bool *sort = o->value;

	(void)argc;
	(void)argv;
	if (!strcmp(arg, "size") || !strcmp(arg, "time")) {
		*sort = !strcmp(arg, "size");
		return 0;
	}
	damo_err("--sortby: '%s' is neither size nor time", arg);
	return -EINVAL;
}

static const struct num_rule count_rule = { "a number", false, 0, UINT64_MAX };

/* The options of wss and nr_regions. */
struct dist_opts {
	struct dist_args d;
	const char *input, *plot;
	bool json, raw;
};

/* The distributions as text or JSON into out, and --plot; 0 or -errno. */
static int dist_out(FILE *out, const struct record *rec, enum dist_metric m,
		    const struct dist_opts *o)
{
	struct plot_series *series;
	struct dist *t;
	size_t nr;
	int rc;

	rc = dists_of(rec, m, &o->d, &t, &nr);
	if (rc)
		return rc;
	if (o->json)
		print_dists_json(out, t, nr, m, &o->d);
	else
		print_dists(out, t, nr, m, &o->d, o->raw);
	if (o->plot) {
		series = dists_series(t, nr, &o->d);
		rc = plot_png(o->plot, series, nr,
			      o->d.sort ? "percentile" : "runtime (percent)",
			      m == DIST_WSS ? "working set size (bytes)" :
			      "number of regions",
			      m == DIST_WSS ? "DAMON: working set size" :
			      "DAMON: number of regions");
		series_free(series, nr);
	}
	dists_free(t, nr);
	return rc;
}

static int report_dist(int argc, char **argv, enum dist_metric m)
{
	struct dist_opts o = {
		.d = {
			.start = DIST_DEFAULT_START, .stop = DIST_DEFAULT_STOP,
			.step = DIST_DEFAULT_STEP, .sort = true,
			.skip = DIST_DEFAULT_SKIP,
		},
		.input = DAMO_DEFAULT_RECORD,
	};
	const struct damo_opt opts[] = {
		OPT_STRING('i', "input", &o.input),
		OPT_CALL('r', "range", &o.d, opt_range),
		OPT_CALL('s', "sortby", &o.d.sort, opt_sortby),
		OPT_U64(0, "skip", &o.d.skip, &count_rule, NULL),
		OPT_STRING('p', "plot", &o.plot),
		OPT_SET(0, "json", &o.json),
		OPT_SET(0, "raw-numbers", &o.raw),
		OPT_HELP(),
		OPT_END(),
	};
	struct record rec;
	char *text = NULL;
	size_t len;
	FILE *out;
	int rc;

	/* in order: --range takes the two arguments after its own */
	rc = parse_and_load(argc, argv, opts, dist_usage, true, &o.input,
			    &rec);
	if (rc != OPTS_GO_ON)
		return rc;
	/* the text waits for the plot: nothing printed if either fails */
	out = open_memstream(&text, &len);
	if (!out) {
		damo_err("out of memory");
		rec_free(&rec);
		return 1;
	}
	rc = dist_out(out, &rec, m, &o);
	rec_free(&rec);
	if (fclose(out)) {
		damo_err("out of memory");
		rc = -ENOMEM;
	}
	/* --plot -: standard output has the image, which text would spoil */
	if (!rc && !(o.plot && IMAGE_TO_STDOUT(o.plot)))
		fwrite(text, 1, len, stdout);
	free(text);
	return rc ? 1 : 0;
}

static int report_wss(int argc, char **argv)
{
	return report_dist(argc, argv, DIST_WSS);
}

static int report_nr_regions(int argc, char **argv)
{
	return report_dist(argc, argv, DIST_NR_REGIONS);
}

/* ------------------------------------------------------------ raw */

static int report_raw(int argc, char **argv)
{
	const char *input = DAMO_DEFAULT_RECORD;
	bool json = false, raw = false;
	const struct damo_opt opts[] = {
		OPT_STRING('i', "input", &input),
		OPT_SET(0, "json", &json),
		OPT_SET(0, "raw-numbers", &raw),
		OPT_HELP(),
		OPT_END(),
	};
	struct record rec;
	int rc;

	rc = parse_and_load(argc, argv, opts, raw_usage, false, &input, &rec);
	if (rc != OPTS_GO_ON)
		return rc;
	if (json)
		print_raw_json(stdout, &rec);
	else
		print_raw(stdout, &rec, raw);
	rec_free(&rec);
	return fflush(stdout) ? 1 : 0;
}

/* ------------------------------------------------------------ the types */

static const struct damo_cmd report_types[] = {
	{ "raw", report_raw, "the record as text" },
	{ "heats", report_heats,
	  "the access frequency over time and address, as\n"
	  "\"<time> <address> <heat>\" lines (or --guide)" },
	{ "wss", report_wss, "distribution of the working set size" },
	{ "nr_regions", report_nr_regions,
	  "distribution of the number of regions" },
	{ "heatmap", report_heatmap,
	  "the heats as an image (-o FILE.png) or on the terminal" },
};

static const char report_head[] =
"usage: damo report TYPE [OPTIONS]\n"
"\n"
"Report the contents of a record file made by `damo record`, or by\n"
"damonitor/damo: JSON, zlib-compressed JSON or the seed's format, told\n"
"from the content.\n"
"\n"
"types:\n";

static const char report_foot[] =
"\n"
"common option: -i, --input FILE (default " DAMO_DEFAULT_RECORD ")\n"
"Run `damo report TYPE --help` for the options of each type.\n";

static const struct cmd_group report_group =
	CMD_GROUP("report type", report_types, report_head, report_foot);

int cmd_report(int argc, char **argv)
{
	return cmd_dispatch(&report_group, argc, argv);
}
