// SPDX-License-Identifier: GPL-2.0
/*
 * damo report: raw, heats, wss, nr_regions and heatmap, with the seed's
 * options and output formats (the .py scripts of the seed tools/damon).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "damo.h"

/* Whether getopt left operands: the report commands take none. */
static bool extra_args(int argc, char **argv)
{
	if (optind == argc)
		return false;
	damo_err("unexpected argument '%s'", argv[optind]);
	return true;
}

/* ------------------------------------------------------------ guide */

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


/* A double the way Python's repr() prints it: shortest, with ".0". */
static void fmt_double(char *buf, size_t len, double v)
{
	int p, exp = 0, dec;
	char *e;

	for (p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (p > 17)
		p = 17;
	e = strchr(buf, 'e');
	if (e)
		exp = atoi(e + 1);
	if (!isfinite(v) || exp < -4 || exp >= 16)
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

static void print_raw(FILE *out, const struct record *rec)
{
	int64_t start = 0;
	size_t i;
	uint32_t ti, ri;

	for (i = 0; i < rec->nr_snapshots; i++) {
		const struct rec_snapshot *s = &rec->snapshots[i];

		if (!i) {
			start = s->time_ns;
			fprintf(out, "start_time:  %lld\n", (long long)start);
		}
		fprintf(out, "rel time: %16lld\n", (long long)(s->time_ns - start));
		fprintf(out, "nr_tasks:  %u\n", s->nr_tasks);
		for (ti = 0; ti < s->nr_tasks; ti++) {
			const struct rec_task *t = &s->tasks[ti];

			fprintf(out, "pid:  %llu\n", (unsigned long long)t->pid);
			fprintf(out, "nr_regions:  %u\n", t->nr_regions);
			for (ri = 0; ri < t->nr_regions; ri++) {
				const struct rec_region *r = &t->regions[ri];

				fprintf(out, "%012llx-%012llx(%10llu):\t%u\n",
					(unsigned long long)r->start,
					(unsigned long long)r->end,
					(unsigned long long)(r->end - r->start),
					r->nr_accesses);
			}
			fputc('\n', out);
		}
	}
}

/* ------------------------------------------------------------ wss, nr_regions */

enum dist_metric { DIST_WSS, DIST_NR_REGIONS };

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int print_dist(FILE *out, const struct record *rec,
		      enum dist_metric m, const struct dist_args *d,
		      struct plot_series **seriesp, size_t *nr_seriesp)
{
	struct plot_series *series = NULL, *cur;
	size_t nr_series = 0;
	uint64_t *pids = NULL, *vals;
	size_t nr_pids = 0, nr, i, k;
	uint32_t ti, ri;
	int p, rc = 0;

	for (i = 0; i < rec->nr_snapshots; i++)
		for (ti = 0; ti < rec->snapshots[i].nr_tasks; ti++) {
			uint64_t pid = rec->snapshots[i].tasks[ti].pid;

			for (k = 0; k < nr_pids && pids[k] != pid; k++)
				;
			if (k == nr_pids) {
				pids = xrealloc(pids, (nr_pids + 1) * sizeof(*pids));
				pids[nr_pids++] = pid;
			}
		}

	fprintf(out, "# <percentile> <%s>\n",
		m == DIST_WSS ? "wss" : "# regions");
	vals = xcalloc(rec->nr_snapshots, sizeof(*vals));
	for (k = 0; k < nr_pids; k++) {
		unsigned __int128 sum = 0;
		size_t seen = 0;

		nr = 0;
		for (i = 0; i < rec->nr_snapshots; i++) {
			const struct rec_snapshot *s = &rec->snapshots[i];

			for (ti = 0; ti < s->nr_tasks; ti++) {
				const struct rec_task *t = &s->tasks[ti];
				uint64_t v = 0;

				if (t->pid != pids[k])
					continue;
				if (seen++ < d->skip)
					continue;
				if (m == DIST_NR_REGIONS) {
					v = t->nr_regions;
				} else {
					for (ri = 0; ri < t->nr_regions; ri++)
						if (t->regions[ri].nr_accesses)
							v += t->regions[ri].end -
							     t->regions[ri].start;
				}
				vals[nr++] = v;
			}
		}
		fprintf(out, "# pid\t%llu\n", (unsigned long long)pids[k]);
		if (!nr) {
			damo_err("pid %llu: no snapshots left after skipping the first %zu (see --skip)",
				 (unsigned long long)pids[k], d->skip);
			rc = -EINVAL;
			continue;
		}
		if (d->sort)
			qsort(vals, nr, sizeof(*vals), u64_cmp);
		for (i = 0; i < nr; i++)
			sum += vals[i];
		fprintf(out, "# avr:\t%llu\n", (unsigned long long)(sum / nr));
		series = xrealloc(series, (nr_series + 1) * sizeof(*series));
		cur = &series[nr_series++];
		memset(cur, 0, sizeof(*cur));
		cur->pid = pids[k];
		for (p = d->start; d->step > 0 ? p < d->stop : p > d->stop;
		     p += d->step) {
			long idx = (long)(p / 100.0 * (double)nr);

			if (idx == (long)nr)
				idx--;
			if (idx < 0 || idx >= (long)nr) {
				damo_err("percentile %d is out of 0..100", p);
				rc = -EINVAL;
				break;
			}
			fprintf(out, "%d\t%llu\n", p,
				(unsigned long long)vals[idx]);
			cur->x = xrealloc(cur->x, (cur->n + 1) * sizeof(double));
			cur->y = xrealloc(cur->y, (cur->n + 1) * sizeof(double));
			cur->x[cur->n] = p;
			cur->y[cur->n] = (double)vals[idx];
			cur->n++;
		}
	}
	free(vals);
	free(pids);
	*seriesp = series;
	*nr_seriesp = nr_series;
	return rc;
}

/* ------------------------------------------------------------ commands */

static const char report_usage[] =
"usage: damo report TYPE [OPTIONS]\n"
"\n"
"Report the contents of a record file made by `damo record`.\n"
"\n"
"types:\n"
"  raw          the record as text\n"
"  heats        the access frequency over time and address, as\n"
"               \"<time> <address> <heat>\" lines (or --guide)\n"
"  wss          distribution of the working set size\n"
"  nr_regions   distribution of the number of regions\n"
"  heatmap      the heats as an image (-o FILE.png) or on the terminal\n"
"\n"
"common option: -i, --input FILE (default " DAMO_DEFAULT_RECORD ")\n"
"Run `damo report TYPE --help` for the options of each type.\n";

static const char heats_usage[] =
"usage: damo report heats [OPTIONS]\n"
"       damo report heatmap [-o FILE.png] [--term] [--no-color] [OPTIONS]\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n"
"      --pid PID        the target to report (default: the largest)\n"
"      --tres N         time resolution: number of time bins (default 500;\n"
"                       heatmap on a terminal: its width)\n"
"      --ares N         address resolution: number of address bins\n"
"                       (default 500; heatmap on a terminal: 20)\n"
"      --tmin NS, --tmax NS   time range, in the record's ns\n"
"      --amin ADDR, --amax ADDR  address range (decimal or 0x hex)\n"
"      --guide          print each target's time span and monitored ranges\n"
"                       (to choose the ranges above)\n"
"heatmap only:\n"
"  -o, --output FILE    write a PNG image\n"
"      --term           draw on the terminal too (the default without -o)\n"
"      --color, --no-color\n"
"                       terminal: ANSI colours or characters (default:\n"
"                       colours on a terminal unless NO_COLOR is set)\n"
"      --title TEXT     PNG title\n";

static const char dist_usage[] =
"usage: damo report wss|nr_regions [OPTIONS]\n"
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
"  -p, --plot FILE.png  also draw the values printed, one line per target\n";

static const char raw_usage[] =
"usage: damo report raw [-i FILE]\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n";

static int parse_int_opt(const char *name, const char *s, int *v)
{
	uint64_t u;

	if (parse_u64(s, &u) || u > 1000000) {
		damo_err("%s: '%s' is not a number in 1..1000000", name, s);
		return -EINVAL;
	}
	*v = (int)u;
	return 0;
}

static int parse_time_opt(const char *name, const char *s, int64_t *v)
{
	uint64_t u;

	if (parse_u64_any(s, &u) || u > INT64_MAX) {
		damo_err("%s: '%s' is not a time in ns", name, s);
		return -EINVAL;
	}
	*v = (int64_t)u;
	return 0;
}

static int parse_addr_opt(const char *name, const char *s, uint64_t *v)
{
	if (parse_u64_any(s, v)) {
		damo_err("%s: '%s' is not an address", name, s);
		return -EINVAL;
	}
	return 0;
}

static int term_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (c && atoi(c) > 20)
		return atoi(c);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

enum { OPT_PID = 256, OPT_TRES, OPT_ARES, OPT_TMIN, OPT_TMAX, OPT_AMIN,
	OPT_AMAX, OPT_GUIDE, OPT_TERM, OPT_NOCOLOR, OPT_COLOR, OPT_TITLE, OPT_SKIP,
	OPT_HEATMAP };

static int report_heats(int argc, char **argv, bool heatmap)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tres", required_argument, NULL, OPT_TRES },
		{ "ares", required_argument, NULL, OPT_ARES },
		{ "tmin", required_argument, NULL, OPT_TMIN },
		{ "tmax", required_argument, NULL, OPT_TMAX },
		{ "amin", required_argument, NULL, OPT_AMIN },
		{ "amax", required_argument, NULL, OPT_AMAX },
		{ "guide", no_argument, NULL, OPT_GUIDE },
		{ "output", required_argument, NULL, 'o' },
		{ "heatmap", required_argument, NULL, OPT_HEATMAP },
		{ "term", no_argument, NULL, OPT_TERM },
		{ "no-color", no_argument, NULL, OPT_NOCOLOR },
		{ "color", no_argument, NULL, OPT_COLOR },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = DAMO_DEFAULT_RECORD, *png = NULL, *title = NULL;
	struct heats_args a = { 0 };
	bool guide = false, term = false;
	bool color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	bool has_tres = false, has_ares = false;
	struct record rec;
	struct heats h;
	uint64_t u;
	int c, rc;

	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case OPT_PID:
			if (parse_u64(optarg, &u)) {
				damo_err("--pid: '%s' is not a pid", optarg);
				return 1;
			}
			a.pid = u;
			a.has_pid = true;
			break;
		case OPT_TRES:
			if (parse_int_opt("--tres", optarg, &a.tres) || !a.tres)
				return 1;
			has_tres = true;
			break;
		case OPT_ARES:
			if (parse_int_opt("--ares", optarg, &a.ares) || !a.ares)
				return 1;
			has_ares = true;
			break;
		case OPT_TMIN:
			if (parse_time_opt("--tmin", optarg, &a.tmin))
				return 1;
			a.has_tmin = true;
			break;
		case OPT_TMAX:
			if (parse_time_opt("--tmax", optarg, &a.tmax))
				return 1;
			a.has_tmax = true;
			break;
		case OPT_AMIN:
			if (parse_addr_opt("--amin", optarg, &a.amin))
				return 1;
			a.has_amin = true;
			break;
		case OPT_AMAX:
			if (parse_addr_opt("--amax", optarg, &a.amax))
				return 1;
			a.has_amax = true;
			break;
		case OPT_GUIDE:
			guide = true;
			break;
		case 'o':
		case OPT_HEATMAP:
			png = optarg;
			break;
		case OPT_TERM:
			term = true;
			break;
		case OPT_NOCOLOR:
			color = false;
			break;
		case OPT_COLOR:
			color = true;
			break;
		case OPT_TITLE:
			title = optarg;
			break;
		case 'h':
			fputs(heats_usage, stdout);
			return 0;
		default:
			fputs(heats_usage, stderr);
			return 1;
		}
	}
	if (extra_args(argc, argv))
		return 1;
	if (!heatmap && (term || title)) {
		damo_err("--term and --title are for `damo report heatmap`");
		return 1;
	}
	if (heatmap && !png)
		term = true;
	if (!has_tres)
		a.tres = term && !png ? term_width() - 16 : 500;
	if (!has_ares)
		a.ares = term && !png ? 20 : 500;

	if (rec_load(input, &rec))
		return 1;
	if (guide) {
		struct guide *g;
		size_t nr;

		guides_of(&rec, &g, &nr);
		print_guides(stdout, g, nr);
		guides_free(g, nr);
		rec_free(&rec);
		return 0;
	}
	rc = heats_compute(&rec, &a, &h);
	rec_free(&rec);
	if (rc)
		return 1;
	if (!heatmap && !png) {
		print_heats(stdout, &h);
	} else {
		if (png) {
			char *t = title ? xstrdup(title) :
				xasprintf("DAMON heatmap: %s, pid %llu", input,
					  (unsigned long long)h.pid);

			rc = heatmap_png(&h, png, t);
			free(t);
		}
		if (!rc && term) {
			if (has_tres || has_ares || !png) {
				heatmap_term(stdout, &h, color);
			} else {
				/* the PNG's resolution is too fine for a terminal */
				struct heats ht;

				heats_free(&h);
				if (rec_load(input, &rec))
					return 1;
				a.tres = term_width() - 16;
				a.ares = 20;
				rc = heats_compute(&rec, &a, &ht);
				rec_free(&rec);
				if (rc)
					return 1;
				heatmap_term(stdout, &ht, color);
				heats_free(&ht);
				return 0;
			}
		}
	}
	heats_free(&h);
	return rc ? 1 : 0;
}

static int report_dist(int argc, char **argv, enum dist_metric m)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "range", required_argument, NULL, 'r' },
		{ "sortby", required_argument, NULL, 's' },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dist_args d = { 0, 101, 25, true, 20 };
	const char *input = DAMO_DEFAULT_RECORD, *plot = NULL;
	struct plot_series *series;
	size_t nr_series, k;
	struct record rec;
	long v[3];
	uint64_t u;
	int c, i, rc;

	while ((c = getopt_long(argc, argv, "+i:r:s:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'r':
			/* three values: this one and the next two arguments */
			if (optind + 1 >= argc) {
				damo_err("--range needs START STOP STEP");
				return 1;
			}
			for (i = 0; i < 3; i++) {
				const char *s = i ? argv[optind + i - 1] : optarg;
				char *end;

				v[i] = strtol(s, &end, 10);
				if (!*s || *end || v[i] < -1000 || v[i] > 1000) {
					damo_err("--range: '%s' is not a percentile", s);
					return 1;
				}
			}
			optind += 2;
			if (!v[2]) {
				damo_err("--range: STEP must not be 0");
				return 1;
			}
			d.start = v[0];
			d.stop = v[1];
			d.step = v[2];
			break;
		case 's':
			if (!strcmp(optarg, "size")) {
				d.sort = true;
			} else if (!strcmp(optarg, "time")) {
				d.sort = false;
			} else {
				damo_err("--sortby: '%s' is neither size nor time",
					 optarg);
				return 1;
			}
			break;
		case OPT_SKIP:
			if (parse_u64(optarg, &u)) {
				damo_err("--skip: '%s' is not a number", optarg);
				return 1;
			}
			d.skip = u;
			break;
		case 'p':
			plot = optarg;
			break;
		case 'h':
			fputs(dist_usage, stdout);
			return 0;
		default:
			fputs(dist_usage, stderr);
			return 1;
		}
	}
	if (extra_args(argc, argv))
		return 1;
	if (rec_load(input, &rec))
		return 1;
	rc = print_dist(stdout, &rec, m, &d, &series, &nr_series);
	rec_free(&rec);
	if (!rc && plot)
		rc = plot_png(plot, series, nr_series,
			      d.sort ? "percentile" : "runtime (percent)",
			      m == DIST_WSS ? "working set size (bytes)" :
			      "number of regions",
			      m == DIST_WSS ? "DAMON: working set size" :
			      "DAMON: number of regions");
	for (k = 0; k < nr_series; k++) {
		free(series[k].x);
		free(series[k].y);
	}
	free(series);
	return rc ? 1 : 0;
}

static int report_raw(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = DAMO_DEFAULT_RECORD;
	struct record rec;
	int c;

	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'h':
			fputs(raw_usage, stdout);
			return 0;
		default:
			fputs(raw_usage, stderr);
			return 1;
		}
	}
	if (extra_args(argc, argv))
		return 1;
	if (rec_load(input, &rec))
		return 1;
	print_raw(stdout, &rec);
	rec_free(&rec);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *type;

	if (argc < 2) {
		fputs(report_usage, stderr);
		return 1;
	}
	type = argv[1];
	argc--;
	argv++;
	optind = 1;
	if (!strcmp(type, "-h") || !strcmp(type, "--help")) {
		fputs(report_usage, stdout);
		return 0;
	}
	if (!strcmp(type, "raw"))
		return report_raw(argc, argv);
	if (!strcmp(type, "heats"))
		return report_heats(argc, argv, false);
	if (!strcmp(type, "heatmap"))
		return report_heats(argc, argv, true);
	if (!strcmp(type, "wss"))
		return report_dist(argc, argv, DIST_WSS);
	if (!strcmp(type, "nr_regions"))
		return report_dist(argc, argv, DIST_NR_REGIONS);
	damo_err("unknown report type '%s'", type);
	fputs(report_usage, stderr);
	return 1;
}
